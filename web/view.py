"""What each screen shows, built from a state: the game master's (everything) and the
players' (redacted here, on the server: what a player may not see never reaches a template).

The players' view follows the encounter's `PlayerView` (the `view` command): each side's
health as `exact`, a `level` (healthy, injured, bloodied, critical, down) or `hidden`, and
combatants hidden from the players, who then appear nowhere: not in the order, not as the
one acting (a hidden combatant's turn shows as "someone acts"), not in the transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combatlog.engine import RuleSystem, get_rules
from combatlog.engine.rules.base import ActionSpec
from combatlog.events import Envelope, Event
from combatlog.projections import Combatant, Encounter, PlayerView

LEVELS = ("healthy", "injured", "bloodied", "critical", "down")


def level_of(left: int, most: int) -> str:
    """The descriptive level of `left` of `most`: healthy (untouched), injured (over half),
    bloodied (over a quarter), critical (anything left), down."""
    if left <= 0:
        return "down"
    if left >= most:
        return "healthy"
    if left * 2 > most:
        return "injured"
    if left * 4 > most:
        return "bloodied"
    return "critical"


@dataclass
class Row:
    """One combatant as a screen shows it."""

    id: str
    name: str
    side: str
    kind: str
    status: str  # active, removed, or how it was defeated
    acting: bool
    initiative: int | None
    conditions: list[str]
    health: tuple[int, int] | None  # (left, most), when shown exactly
    level: str | None  # healthy ... down, when shown as a level
    damage: int | None  # the damage taken, when the system has no single track (the GM's screen)
    resources: dict[str, int] = field(default_factory=dict)
    hidden: bool = False  # hidden from the players (the GM's screen marks it)

    @property
    def percent(self) -> int:
        if self.health is None:
            return 0
        left, most = self.health
        return max(0, min(100, round(100 * left / max(most, 1))))

    @property
    def colour(self) -> str:
        if self.health is None:
            return "none"
        left, most = self.health
        return "good" if left * 2 > most else "hurt" if left * 4 > most else "bad"


@dataclass
class Screen:
    """A whole screen: where the fight stands, the order, the combatants."""

    title: str
    rules: str
    seq: int
    phase: str
    round: int
    outcome: str | None
    winner: str | None
    order: list[list[str]]  # tiers of names, fastest first
    acting: list[str]  # names ("someone" for a hidden one, on the players' screen)
    rows: list[Row]
    summary: list[str] = field(default_factory=list)  # the rule system's own lines (GM only)


def _status(c: Combatant) -> str:
    if c.removed:
        return "removed"
    return c.defeated or "active"


def _rules(state: Encounter) -> RuleSystem | None:
    try:
        return get_rules(state.rules) if state.rules is not None else None
    except KeyError:
        return None


def _ordered(state: Encounter) -> list[Combatant]:
    flat = state.flat_order()
    ids = flat + [cid for cid in state.combatants if cid not in flat]
    return [state.combatants[cid] for cid in ids]


def _row(state: Encounter, c: Combatant, **shown: Any) -> Row:
    """A combatant as a screen shows it; `shown`: how health and the rest show on this screen."""
    return Row(
        id=c.id,
        name=c.name,
        side=c.side,
        kind=c.kind,
        status=_status(c),
        acting=c.id in state.acting,
        initiative=c.initiative,
        conditions=[_condition(x.name, x.remaining) for x in c.conditions],
        **shown,
    )


def _screen(state: Encounter, seq: int, **shown: Any) -> Screen:
    return Screen(
        title=state.title or (state.rules or "encounter"),
        rules=state.rules or "",
        seq=seq,
        phase=state.phase,
        round=state.round,
        outcome=state.outcome,
        winner=state.winner,
        **shown,
    )


def gm_screen(state: Encounter, seq: int) -> Screen:
    """Everything, for the game master."""
    rules = _rules(state)
    view = state.players or PlayerView()
    rows = []
    for c in _ordered(state):
        track = rules.health(state, c) if rules is not None else None
        rows.append(
            _row(
                state,
                c,
                health=track,
                level=level_of(*track) if track is not None else None,
                damage=None if track is not None else c.damage,
                resources=dict(sorted(c.resources.items())),
                hidden=c.id in view.hidden,
            )
        )
    return _screen(
        state,
        seq,
        order=[[state.combatants[cid].name for cid in tier] for tier in state.order],
        acting=[state.combatants[cid].name for cid in state.acting],
        rows=rows,
        summary=rules.summary(state) if rules is not None else [],
    )


def player_screen(state: Encounter, seq: int) -> Screen:
    """What the players may see: hidden combatants left out, health as each side shows it."""
    rules = _rules(state)
    view = state.players or PlayerView()
    hidden = set(view.hidden)
    rows = []
    for c in _ordered(state):
        if c.id in hidden or c.removed:
            continue
        shown = view.hp_of(state, c.side)
        track = rules.health(state, c) if rules is not None else None
        if shown != "level":
            level = None
        elif c.defeated is not None:
            level = "down"
        else:
            level = level_of(*track) if track is not None else None
        rows.append(_row(state, c, health=track if shown == "exact" else None, level=level, damage=None))
    acting = [state.combatants[cid].name for cid in state.acting if cid not in hidden]
    if len(acting) < len(state.acting):
        acting.append("someone")
    order = [
        names for tier in state.order if (names := [state.combatants[cid].name for cid in tier if cid not in hidden])
    ]
    return _screen(state, seq, order=order, acting=acting, rows=rows)


def _condition(name: str, remaining: int | None) -> str:
    return name if remaining is None else f"{name} ({remaining})"


# --- what the acting combatants can do ---------------------------------------------------


@dataclass
class Choice:
    """An action a form offers: its name, cost, help, and the targets it may take."""

    name: str
    cost: str
    help: str
    targets: list[tuple[str, str]]  # (id, name)
    min_targets: int
    max_targets: int


@dataclass
class Turn:
    """One acting combatant's form."""

    id: str
    name: str
    resources: dict[str, int]
    choices: list[Choice]


def turns(state: Encounter) -> list[Turn]:
    """A form for each acting combatant, generated from the rule system's action specs."""
    rules = _rules(state)
    if rules is None or state.phase == "end":
        return []
    out = []
    for cid in state.acting:
        actor = state.combatants[cid]
        choices = [_choice(rules, state, actor, spec) for spec in rules.affordable(state, actor)]
        out.append(Turn(id=cid, name=actor.name, resources=dict(sorted(actor.resources.items())), choices=choices))
    return out


def _choice(rules: RuleSystem, state: Encounter, actor: Combatant, spec: ActionSpec) -> Choice:
    kind = spec.targets
    if kind in ("self", "none") or spec.max_targets == 0:
        targets: list[tuple[str, str]] = []
    else:
        targets = [
            (c.id, c.name)
            for c in state.active()
            if c.id != actor.id
            and (
                kind == "any"
                or (kind == "enemy") == (c.side != actor.side)
                or (kind == "ally" and c.side == actor.side)
            )
        ]
    cost = ", ".join(
        f"{v} {k[:-1] if v == 1 and k.endswith('s') else k}"
        for k, v in sorted(rules.cost(state, actor, spec, {}).items())
    )
    cost = cost or "free"
    return Choice(
        name=spec.name,
        cost=cost,
        help=spec.help,
        targets=targets,
        min_targets=spec.min_targets if targets else 0,
        max_targets=spec.max_targets,
    )


# --- the transcript ----------------------------------------------------------------------

_WHO = ("combatant", "actor", "target", "id", "attacker", "enemy")
_WHO_MANY = ("combatants", "actors", "targets")


def involved(event: Event) -> set[str]:
    """The combatant ids an event names (whoever it is about, acts or is acted on)."""
    out: set[str] = set()
    for name in _WHO:
        value = getattr(event, name, None)
        if isinstance(value, str):
            out.add(value)
    for name in _WHO_MANY:
        value = getattr(event, name, None)
        if isinstance(value, (tuple, list)):
            out.update(v for v in value if isinstance(v, str))
    command = getattr(event, "command", None)
    if command is not None:
        if command.actor:
            out.add(command.actor)
        out.update(command.targets)
    return out


def player_lines(
    told: list[tuple[int, str]], events: dict[int, Envelope[Any]], state: Encounter
) -> list[tuple[int, str]]:
    """The transcript lines a player may read: none from a step that names a combatant hidden
    from the players now, and none about the players' view itself."""
    hidden = set((state.players or PlayerView()).hidden)
    secret_steps = set()
    for env in events.values():
        if type(env.event).__name__ == "ViewSet" or (hidden and involved(env.event) & hidden):
            secret_steps.add(env.step)
    return [(seq, line) for seq, line in told if seq in events and events[seq].step not in secret_steps]
