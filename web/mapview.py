"""The map a screen draws, as SVG: a system's sections and borders (Triptycho), an x,y grid
(Swords of Infinity, Starflight on a grid) or range bands (Starflight without one), with
the combatants a viewer may see where they stand. Every text is escaped; nothing here
decides where anyone may go: a drop is a `move` the engine checks."""

from __future__ import annotations

import html
from collections import deque
from dataclasses import dataclass
from typing import Any

from combatlog.engine.protocol import BoardView
from combatlog.engine.words import counted
from combatlog.replays.views import Seen

CELL = 44  # a grid square, in px
BOX_W, BOX_H, GAP_X, GAP_Y = 150, 96, 56, 34  # a section and the room between sections
FILL = {"lit": "#fff6d6", "shadowy": "#c9c5b9", "dark": "#3d3e48"}
INK = {"lit": "#1d1d1f", "shadowy": "#1d1d1f", "dark": "#f4f2ec"}


@dataclass
class Token:
    id: str
    name: str
    initials: str
    side: str
    own: bool
    acting: bool
    status: str


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _initials(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w]
    if not words:
        return "?"
    if len(words) == 1:
        return words[0][:2]
    last = words[-1]
    return (words[0][0] + (last if last.isdigit() else last[0]))[:3]


def tokens_at(view: Seen) -> dict[str, list[Token]]:
    """The visible combatants by where they stand (a large entity in each of its sections)."""
    out: dict[str, list[Token]] = {}
    for c in view.combatants:
        if c.position is None or c.status == "removed":
            continue
        token = Token(c.id, c.name, _initials(c.name), c.side, c.own, c.acting, c.status)
        for part in c.position.split("+"):
            out.setdefault(part.strip(), []).append(token)
    return out


def draw(board: BoardView | None, view: Seen, movable: bool | str) -> str:
    """The map as an inline SVG (empty when the system has none); `movable`: every token can be
    dragged (True), none (False), or "own": a seat's own tokens while they act."""
    if board is None:
        return ""
    at = tokens_at(view)
    if board.kind == "sections":
        svg = _sections(board, at, movable)
    elif board.kind == "grid":
        svg = _grid(at, movable)
    elif board.kind == "distances":
        return _distances(board, view)
    else:
        svg = _bands(board, at)
    # with tokens to move it holds controls: a group, not a picture
    return svg.replace(' role="img" ', ' role="group" ', 1) if "data-drag" in svg else svg


def _layout(board: BoardView) -> dict[str, tuple[int, int]]:
    """Each section's (column, row): columns by fewest borders from the first section."""
    ids = [s.id for s in board.sections]
    links: dict[str, list[str]] = {sid: [] for sid in ids}
    for b in board.borders:
        if b.a in links and b.b in links:
            links[b.a].append(b.b)
            links[b.b].append(b.a)
    depth: dict[str, int] = {}
    for start in ids:  # every part of the map, the unconnected ones too, in declared order
        if start in depth:
            continue
        depth[start] = max(depth.values(), default=-1) + 1 if depth else 0
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for there in links[here]:
                if there not in depth:
                    depth[there] = depth[here] + 1
                    queue.append(there)
    rows: dict[int, int] = {}
    out = {}
    for sid in ids:
        col = depth[sid]
        out[sid] = (col, rows.get(col, 0))
        rows[col] = rows.get(col, 0) + 1
    return out


def _token(t: Token, x: float, y: float, movable: bool | str, r: int = 15) -> str:
    classes = ["token", f"side-{_e(t.side)}"] + (["own"] if t.own else []) + (["acting"] if t.acting else [])
    if t.status not in ("active",):
        classes.append("down")
    can = movable is True or (movable == "own" and t.own and t.acting)
    drag = ' data-drag="true" tabindex="0" role="button"' if can else ""
    label = f"{t.name}{' (acting)' if t.acting else ''}{'' if t.status == 'active' else f', {t.status}'}"
    return (
        f'<g class="{" ".join(classes)}" data-id="{_e(t.id)}"{drag} aria-label="{_e(label)}">'
        f"<title>{_e(label)}</title>"
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r}"/>'
        f'<text x="{x:.0f}" y="{y + 4:.0f}" text-anchor="middle">{_e(t.initials)}</text></g>'
    )


def _sections(board: BoardView, at: dict[str, list[Token]], movable: bool | str) -> str:
    place = _layout(board)
    cols = max((c for c, _ in place.values()), default=0) + 1
    rows = max((r for _, r in place.values()), default=0) + 1
    width, height = 20 + cols * (BOX_W + GAP_X), 20 + rows * (BOX_H + GAP_Y)
    parts = [
        f'<svg class="map" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="the map: {counted(len(board.sections), "section")}">'
    ]

    def centre(sid: str) -> tuple[float, float]:
        c, r = place[sid]
        return 20 + c * (BOX_W + GAP_X) + BOX_W / 2, 20 + r * (BOX_H + GAP_Y) + BOX_H / 2

    for b in board.borders:
        if b.a not in place or b.b not in place:
            continue
        (x1, y1), (x2, y2) = centre(b.a), centre(b.b)
        kind = "hard" if b.kind == "hard" else "soft"
        what = f"{kind} border {b.a}|{b.b}" + (f", {b.b} {b.height:+d} high" if b.height else "")
        what += "" if b.climbable or not b.height else ", no climbing"
        ends = f'x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}"'
        parts.append(f'<line class="border {kind}" {ends}><title>{_e(what)}</title></line>')
        if b.height:
            mx, my = (x1 + x2) / 2, (y1 + y2) / 2
            note = f"{b.height:+d}" + ("" if b.climbable else " no climb")
            parts.append(f'<text class="height" x="{mx:.0f}" y="{my - 6:.0f}" text-anchor="middle">{_e(note)}</text>')
    for s in board.sections:
        c, r = place[s.id]
        x, y = 20 + c * (BOX_W + GAP_X), 20 + r * (BOX_H + GAP_Y)
        marks = [s.light] + (["underwater"] if s.underwater else ["water"] if s.water else [])
        title = s.name or s.id
        ink = INK.get(s.light, "#000")
        parts.append(
            f'<g class="section" data-place="{_e(s.id)}"><title>{_e(title)}: {_e(", ".join(marks))}</title>'
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="8" fill="{FILL.get(s.light, "#fff")}"'
            f' class="{"water" if s.water or s.underwater else ""}"/>'
            f'<text x="{x + 8}" y="{y + 17}" fill="{ink}" class="label">{_e(title)}</text>'
            f'<text x="{x + 8}" y="{y + 32}" fill="{ink}" class="marks">{_e(" ".join(marks))}</text>'
        )
        for i, t in enumerate(at.get(s.id, [])):
            tx = x + 22 + (i % 4) * 34
            ty = y + 56 + (i // 4) * 34
            parts.append(_token(t, tx, ty, movable))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _square(place: str) -> tuple[int, int] | None:
    try:
        x, y = place.split(",")
        return round(float(x)), round(float(y))
    except ValueError:
        return None


def _grid(at: dict[str, list[Token]], movable: bool | str) -> str:
    squares = {sq: ts for place, ts in at.items() if (sq := _square(place)) is not None}
    if squares:
        xs = [x for x, _ in squares]
        ys = [y for _, y in squares]
        x0, x1, y0, y1 = min(xs) - 2, max(xs) + 2, min(ys) - 2, max(ys) + 2
    else:
        x0, x1, y0, y1 = 0, 7, 0, 5
    w, h = (x1 - x0 + 1) * CELL, (y1 - y0 + 1) * CELL
    parts = [
        f'<svg class="map grid" viewBox="0 0 {w + 30} {h + 20}" width="{w + 30}" height="{h + 20}" role="img" '
        f'aria-label="the grid, squares {x0},{y0} to {x1},{y1}">'
    ]
    for gx in range(x0, x1 + 1):
        for gy in range(y0, y1 + 1):
            px, py = 30 + (gx - x0) * CELL, 10 + (gy - y0) * CELL
            parts.append(
                f'<rect class="square" data-place="{gx},{gy}" x="{px}" y="{py}" width="{CELL}" height="{CELL}">'
                f"<title>{gx},{gy}</title></rect>"
            )
    for gx in range(x0, x1 + 1):
        ax = 30 + (gx - x0) * CELL + CELL / 2
        parts.append(f'<text class="axis" x="{ax:.0f}" y="{h + 20}" text-anchor="middle">{gx}</text>')
    for gy in range(y0, y1 + 1):
        parts.append(
            f'<text class="axis" x="14" y="{10 + (gy - y0) * CELL + CELL / 2 + 4:.0f}" text-anchor="middle">{gy}</text>'
        )
    for (gx, gy), ts in squares.items():
        for i, t in enumerate(ts[:4]):
            px = 30 + (gx - x0) * CELL + CELL / 2 + (i % 2) * 8 - (4 if len(ts) > 1 else 0)
            py = 10 + (gy - y0) * CELL + CELL / 2 + (i // 2) * 8 - (4 if len(ts) > 2 else 0)
            parts.append(_token(t, px, py, movable, r=CELL // 2 - 5))
    parts.append("</svg>")
    return "".join(parts)


def _bands(board: BoardView, at: dict[str, list[Token]]) -> str:
    width, band_w = 40 + len(board.bands) * 130, 130
    tallest = max((len(at.get(b, [])) for b in board.bands), default=1)
    height = 60 + max(tallest, 1) * 40
    parts = [
        f'<svg class="map bands" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="range bands to the target">'
    ]
    for i, band in enumerate(board.bands):
        x = 20 + i * band_w
        box = f'x="{x}" y="10" width="{band_w - 8}" height="{height - 20}" rx="6"'
        parts.append(
            f'<g class="band" data-place="{_e(band)}"><rect {box}/>'
            f'<text x="{x + 8}" y="28" class="label">range {_e(band)}</text>'
        )
        for j, t in enumerate(at.get(band, [])):
            parts.append(_token(t, x + 30 + (j % 2) * 40, 56 + (j // 2) * 38, False))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _distances(board: BoardView, view: Seen) -> str:
    """A system without positions: the yards between each pair this viewer can see, nearest first."""
    names = {c.id: c.name for c in view.combatants if c.status != "removed"}
    rows = sorted(
        (yards, names[a], names[b], engaged) for a, b, yards, engaged in board.distances if a in names and b in names
    )
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{_e(x)}</td><td>{_e(y)}</td><td>{yards} yards{' (engaged)' if engaged else ''}</td></tr>"
        for yards, x, y, engaged in rows
    )
    return (
        '<table class="list distances" aria-label="distances between combatants">'
        f"<thead><tr><th>from</th><th>to</th><th>distance</th></tr></thead><tbody>{body}</tbody></table>"
    )
