"""`simulate --html`: a standalone page with the study's charts, drawn by Plotly (its
JavaScript inlined once, so the page opens with no network), beside the numbers as tables."""

from __future__ import annotations

from html import escape
from typing import Any

from combatlog.replays.transcript import printable
from combatlog.simulate import LEGEND, Report
from combatlog.simulate.stats import left, number, share, spread


def render(studies: list[tuple[str, Report]]) -> str:
    """The page for one study, or two run on the same seeds (`--compare`)."""
    try:
        import plotly.graph_objects as go
    except ImportError as exc:  # the report extra is optional
        raise RuntimeError("--html needs Plotly: pip install 'combatlog[report]'") from exc

    parts: list[str] = []
    first = True

    def chart(fig: Any) -> None:
        nonlocal first
        fig.update_layout(template="plotly_white", margin={"l": 60, "r": 20, "t": 50, "b": 50}, height=360)
        parts.append(fig.to_html(include_plotlyjs=first, full_html=False, config={"displaylogo": False}))
        first = False

    for path, report in studies:
        parts.append(
            f"<h2>{_text(report.title)} <small>{_text(path)}</small></h2>"
            if report.title
            else f"<h2>{_text(path)}</h2>"
        )
        fights = "fights" if report.at is None else f"fights continued from seq {report.at}"
        parts.append(
            f"<p>{report.runs:,} {fights}, seed {report.seed}; the PCs' side: <b>{_text(report.party)}</b>.</p>"
        )
        outcomes = [*(printable(side) for side in report.sides), "draw"]
        odds = [*(s.win for s in report.sides.values()), report.draw]
        chart(
            go.Figure(
                go.Bar(
                    x=outcomes,
                    y=[o.p for o in odds],
                    error_y=_bars([o.p for o in odds], [o.low for o in odds], [o.high for o in odds]),
                    hovertemplate="%{x}: %{y:.1%}<extra></extra>",
                ),
                layout={"title": "Who wins (95% Wilson interval)", "yaxis": {"tickformat": ".0%", "range": [0, 1]}},
            )
        )
        rounds = sorted(report.rounds_histogram)
        chart(
            go.Figure(
                go.Bar(x=rounds, y=[report.rounds_histogram[r] / report.runs for r in rounds]),
                layout={"title": "How many rounds", "xaxis": {"title": "rounds"}, "yaxis": {"tickformat": ".0%"}},
            )
        )
        names = [printable(f"{c.name} ({c.side})") for c in report.combatants.values()]
        defeated = [c.defeated for c in report.combatants.values()]
        chart(
            go.Figure(
                go.Bar(
                    x=names,
                    y=[d.p for d in defeated],
                    error_y=_bars([d.p for d in defeated], [d.low for d in defeated], [d.high for d in defeated]),
                ),
                layout={
                    "title": "Defeated (out of the fight in any way: down, dead, fled, removed ...)",
                    "yaxis": {"tickformat": ".0%", "range": [0, 1]},
                },
            )
        )
        fig = go.Figure(layout={"title": "Damage taken and dealt (median, 5th to 95th percentile)", "barmode": "group"})
        for label, pick in (("taken", lambda c: c.taken), ("dealt", lambda c: c.dealt)):
            spreads = [pick(c) for c in report.combatants.values()]
            fig.add_trace(
                go.Bar(
                    name=label,
                    x=names,
                    y=[s.p50 for s in spreads],
                    error_y=_bars([s.p50 for s in spreads], [s.p5 for s in spreads], [s.p95 for s in spreads]),
                )
            )
        chart(fig)
        tracked = [(n, c) for n, c in zip(names, report.combatants.values()) if c.left is not None]
        if tracked:
            spreads = [c.left for _, c in tracked if c.left is not None]
            chart(
                go.Figure(
                    [
                        go.Bar(
                            name="left",
                            x=[n for n, _ in tracked],
                            y=[s.p50 for s in spreads],
                            error_y=_bars([s.p50 for s in spreads], [s.p5 for s in spreads], [s.p95 for s in spreads]),
                        ),
                        go.Scatter(
                            name="most",
                            x=[n for n, _ in tracked],
                            y=[c.most for _, c in tracked],
                            mode="markers",
                            marker={"symbol": "line-ew-open", "size": 24},
                        ),
                    ],
                    layout={
                        "title": "What is left at the end (median, 5th to 95th percentile; the mark: its full amount)"
                    },
                )
            )
        fig = go.Figure(layout={"title": "How each ends (share of the fights)", "barmode": "stack"})
        levels = list(dict.fromkeys(end for c in report.combatants.values() for end in c.ends))
        for level in levels:
            fig.add_trace(
                go.Bar(
                    name=printable(level),
                    x=names,
                    y=[c.ends.get(level, 0.0) for c in report.combatants.values()],
                    hovertemplate="%{x}: %{y:.1%}<extra>" + escape(printable(level)) + "</extra>",
                )
            )
        fig.update_layout(yaxis={"tickformat": ".0%", "range": [0, 1]})
        chart(fig)
        parts.append(_table(report))
    title = " vs ".join(_text(report.title or p) for p, report in studies) + ": the odds"
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>{_STYLE}</style></head><body><h1>{title}</h1>"
        + "\n".join(parts)
        + "</body></html>\n"
    )


def _bars(mid: list[float], low: list[float], high: list[float]) -> dict[str, Any]:
    """Plotly's asymmetric error bars from each value's low and high ends."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [h - m for m, h in zip(mid, high)],
        "arrayminus": [m - lo for m, lo in zip(mid, low)],
    }


def _pct(o: Any) -> str:
    return f"{o.p:.1%} ({o.low:.1%}–{o.high:.1%})"


def _text(text: str) -> str:
    return escape(printable(text))


def _table(report: Report) -> str:
    rows = "".join(
        f"<tr><td>{_text(c.name)}</td><td>{_text(c.side)}</td><td>{_pct(c.defeated)}</td>"
        f"<td>{spread(c.taken)}</td><td>{spread(c.dealt)}</td>"
        f"<td>{left(c, none='–')}</td><td>{', '.join(f'{_text(e)} {share(p)}' for e, p in c.ends.items())}</td></tr>"
        for c in report.combatants.values()
    )
    sides = "".join(f"<li>{_text(side)}: {_pct(s.win)}</li>" for side, s in report.sides.items())
    return (
        f"<p>who wins (95% interval):</p><ul>{sides}<li>a draw: {_pct(report.draw)}</li></ul>"
        f"<p>rounds: mean {report.rounds.mean:.1f}, 5th {number(report.rounds.p5)}, "
        f"median {number(report.rounds.p50)}, 95th {number(report.rounds.p95)}</p>"
        "<table><thead><tr><th>combatant</th><th>side</th><th>defeated</th><th>damage taken (mean, 5/50/95)</th>"
        "<th>damage dealt (mean, 5/50/95)</th><th>left at the end (mean of its full amount, 5/50/95)</th>"
        f"<th>how it ends (share)</th></tr></thead><tbody>{rows}</tbody></table>"
        f"<p class='legend'>{escape(LEGEND)}</p>"
    )


_STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}"
    "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd}"
)
