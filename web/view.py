"""What each screen shows, built from what a viewer may see: `combatlog.replays.views`
decides it (the game master's everything, the table's redacted view, a seat's), on the
server, and this module only lays it out for the templates: names for ids, bars for
tracks, the order as tiers of names. Nothing here redacts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from combatlog.engine import RuleSystem, rules_of
from combatlog.engine.protocol import ActionSpec, level_of
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter
from combatlog.replays.views import UNSEEN_NAME, Seen, Viewer, seen


@dataclass
class Row:
    """One combatant as a screen shows it."""

    id: str
    name: str
    side: str
    kind: str
    status: str  # active, removed, or how it was defeated
    acting: bool
    initiative: int | str | None  # the number, or as the rule system says it (`71, failed`)
    conditions: list[str]
    health: tuple[int, int] | None  # (left, most), when shown exactly
    level: str | None  # healthy ... down (or the system's own words), when shown as a level
    damage: int | None  # the damage taken, when the system has no single track (the GM's screen)
    resources: dict[str, int] = field(default_factory=dict)
    hidden: bool = False  # hidden from the players (the GM's screen marks it)
    own: bool = False  # one of this seat's combatants

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

    @property
    def tone(self) -> str:
        """The level's place on the five-step scale (for its colour; the word is always shown)."""
        if self.health is not None:
            return level_of(*self.health)
        return self.level if self.level in ("healthy", "injured", "bloodied", "critical", "down") else "other"


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
    acting: list[str]  # names ("someone unseen" for a hidden one, off the game master's screen)
    rows: list[Row]
    summary: list[str] = field(default_factory=list)  # the rule system's own lines, as this viewer may read them


def screen(state: Encounter, viewer: Viewer, seq: int) -> Screen:
    """The screen `viewer` sees of `state` at `seq`."""
    return layout(seen(state, viewer, seq))


def layout(view: Seen) -> Screen:
    """A `Seen` laid out for the templates."""
    names = {c.id: c.name for c in view.combatants}
    rows = []
    for c in view.combatants:
        h = c.health
        exact = (h.left, h.most) if h is not None and h.shown == "exact" and h.left is not None else None
        rows.append(
            Row(
                id=c.id,
                name=c.name,
                side=c.side,
                kind=c.kind,
                status=c.status,
                acting=c.acting,
                initiative=c.initiative_said or c.initiative,
                conditions=[_condition(x.name, x.rounds) for x in c.conditions],
                health=exact,  # type: ignore[arg-type]
                level=h.level if h is not None and h.shown != "hidden" else None,
                damage=c.damage if h is None else None,
                resources=c.resources or {},
                hidden=c.hidden,
                own=c.own,
            )
        )
    acting = [names[cid] for cid in view.acting]
    if view.unseen_acting:
        acting.append(UNSEEN_NAME)
    return Screen(
        title=view.title,
        rules=view.rules,
        seq=view.seq,
        phase=view.phase,
        round=view.round,
        outcome=view.outcome,
        winner=view.winner,
        order=[[names[cid] for cid in tier if cid in names] for tier in view.order],
        acting=acting,
        rows=rows,
        summary=list(view.summary),
    )


def _rules(state: Encounter) -> RuleSystem | None:
    try:
        return rules_of(state) if state.rules is not None else None
    except KeyError:
        return None


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
    dice: list[str] = field(default_factory=list)  # the rolls it asks for ("1d20+4 to hit"), when told
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)  # a parameter's choices, for a list
    param_help: dict[str, str] = field(default_factory=dict)  # a declared parameter's line of help


@dataclass(frozen=True)
class ParamField:
    """One parameter input of a turn's form: its name, its choices (none: a value typed), its
    help, and the actions that take it."""

    name: str
    choices: tuple[str, ...]
    help: str
    actions: tuple[str, ...]


def with_dice(session: Any, turn: Turn) -> Turn:
    """`turn` with each choice's rolls, as the engine would ask them of its first target (the
    dice at their highest: nothing of the engine's own dice is told)."""
    for choice in turn.choices:
        targets = tuple(t for t, _ in choice.targets[: max(choice.min_targets, 1)]) if choice.targets else ()
        try:
            rolls = session.rolls_asked(Command(kind="act", actor=turn.id, action=choice.name, targets=targets))
        except Exception:  # an action that needs parameters first: its dice are said when it is sent
            continue
        choice.dice = [f"{r.expression} ({r.purpose})" for r in rolls]
    return turn


@dataclass
class Turn:
    """One acting combatant's form."""

    id: str
    name: str
    resources: dict[str, int]
    choices: list[Choice]

    @property
    def fields(self) -> list[ParamField]:
        """The parameters of every action offered, one input each (a list when any action
        offers choices for it), in the order the actions declare them."""
        merged: dict[str, tuple[list[str], list[str], str]] = {}
        for c in self.choices:
            for name, options in c.params.items():
                listed, takers, help = merged.setdefault(name, ([], [], c.param_help.get(name, "")))
                listed.extend(o for o in options if o not in listed)
                takers.append(c.name)
        return [ParamField(name, tuple(listed), help, tuple(takers)) for name, (listed, takers, help) in merged.items()]


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
            for c in state.combatants.values()
            if not c.removed
            and (c.defeated is None or spec.targets_down_ok)
            and c.id != actor.id
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
        params=rules.param_choices(state, actor, spec.name),
        param_help={p.name: p.help for p in spec.params or ()},
        name=spec.name,
        cost=cost,
        help=spec.help,
        targets=targets,
        min_targets=spec.min_targets if targets else 0,
        max_targets=spec.max_targets,
    )
