"""What each viewer may see: the one place that decides it, below every surface.

The show command, the transcript, `follow`, `export --viewer`, the web tracker's pages and
its live stream all ask here; nothing else redacts (a test holds that). The rules, in short
(`docs/views.md` has them in full):

- The game master sees everything. Every other viewer never gets the seed (nor the `create`
  command's copy of it), nor the game master's settings of the players' view but those that
  say how health reads. A fair encounter's commitment, contributions and reveal are public
  (its seed is in no event before the reveal: the game master's session holds it).
- A combatant hidden from the players is absent: not in the state (combatants, order,
  acting), and a step that names only hidden combatants is withheld whole. A step is judged
  as a whole, by who is hidden when it ends, so a combatant added hidden is never told as
  joining, and one revealed by its own action is seen making it.
- An event naming visible and hidden combatants (a visible one's attack on a hidden one, or
  the reverse) is told with each hidden one as "someone unseen" (its id as `unseen`); what
  concerns a hidden combatant alone (its damage, its conditions, its fall) is withheld.
- Order lines list the visible entries; rounds, phases and the end of the fight always show.
- A seat also sees its own combatants whole (even hidden from the table): their health,
  stats, resources and private events (a card drawn, a secret roll).
- A spectator watches a finished fight: every combatant, health exact, and the private
  things the rules reveal at the end (`RuleSystem.revealed_at_end`); never the seed.
- What was shown stays shown: a step undone later is told as undone, never taken back; an
  undo of a step the viewer never saw is not told either.

The rule system says how its own things read through hooks with defaults, so a plugin gets
views for free: `health` and `health_level` (how a track reads as a level), `seen_by` (what
of its own state is private) and `revealed_at_end`; a private event has `private_to` and
`redacted()`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from combatlog.engine import RuleSystem, rules_of
from combatlog.engine.words import counted
from combatlog.events import CorruptLog, Envelope, EventLog
from combatlog.events import catalogue as ev
from combatlog.events.privacy import (
    GM,
    SPECTATOR,
    TABLE,
    GameMaster,
    Seat,
    Spectator,
    TableViewer,
    Viewer,
    owner_of,
)
from combatlog.projections import Combatant, Encounter, FoldError, PlayerView, Projection
from combatlog.projections.replay import apply_from
from combatlog.replays.cursor import replay

UNSEEN = "unseen"  # a hidden combatant's id where an event names it beside visible ones
UNSEEN_NAME = "someone unseen"  # ... and its name in what is told

VIEWERS = (
    ("gm", "the game master: everything, the seed too"),
    ("table", "the players' shared screen: what the game master lets the players see"),
    ("seat:ID[,ID...]", "one player: the table's view and these combatants' own things"),
    ("side:SIDE", "a seat holding every combatant of SIDE (a bare side name says the same)"),
    ("spectator", "a finished fight: every combatant and what the rules reveal at the end"),
)
VIEWER_HELP = "; ".join(f"{name}: {what}" for name, what in VIEWERS)


class ViewerError(ValueError):
    """A viewer named that doesn't exist, or can't look at this fight; one line saying which exist."""


def known_viewers(state: Encounter | None = None) -> str:
    """The viewers there are, as a one-line list (with this encounter's sides and ids)."""
    text = ", ".join(name for name, _ in VIEWERS)
    if state is not None and state.combatants:
        text += f" (sides: {', '.join(state.sides())}; ids: {', '.join(state.combatants)})"
    return text


def parse_viewer(text: str, state: Encounter | None = None) -> Viewer:
    """The viewer named by `text` (`gm`, `table`, `seat:bo,ayla`, `side:party` or `party`,
    `spectator`); `state` (the log's last) checks the ids and sides and that a spectator's
    fight is over. Raises ViewerError, one line listing the known viewers."""
    word = text.strip()
    low = word.lower()
    if low in ("gm", "game-master", "game_master"):
        return GM
    if low in ("table", "players", "nobody"):
        return TABLE
    if low == "spectator":
        if state is not None and state.phase != "end":
            raise ViewerError("viewer 'spectator': the fight isn't over; a spectator sees a finished fight (use table)")
        return SPECTATOR
    kind, sep, rest = word.partition(":")
    if sep and kind.lower() in ("seat", "side"):
        names = tuple(x.strip() for x in rest.split(",") if x.strip())
        if not names:
            raise ViewerError(f"viewer {word!r}: name the {kind.lower()}'s combatants; known: {known_viewers(state)}")
        if kind.lower() == "side":
            return _side_seat(word, names, state)
        ids = [n for n in names if not n.startswith("side:")]
        sides = [n[5:] for n in names if n.startswith("side:")]
        if state is not None:
            unknown = [n for n in ids if n not in state.combatants]
            if unknown:
                raise ViewerError(f"viewer {word!r}: no combatant {unknown[0]!r}; known: {known_viewers(state)}")
            _side_seat(word, tuple(sides), state)
        return Seat(combatants=frozenset(ids), sides=frozenset(sides))
    if state is not None and word in state.sides():
        return Seat(sides=frozenset({word}))
    raise ViewerError(f"unknown viewer {word!r}; use one of: {known_viewers(state)}")


def _side_seat(word: str, sides: tuple[str, ...], state: Encounter | None) -> Seat:
    if state is not None:
        unknown = [s for s in sides if s not in state.sides()]
        if unknown:
            raise ViewerError(f"viewer {word!r}: no side {unknown[0]!r}; known: {known_viewers(state)}")
    return Seat(sides=frozenset(sides))


def _rules(state: Encounter) -> RuleSystem | None:
    try:
        return rules_of(state) if state.rules is not None else None
    except KeyError:
        return None


def _side_of(state: Encounter) -> Any:
    return lambda cid: c.side if (c := state.combatants.get(cid)) is not None else None


def hidden_from(state: Encounter, viewer: Viewer) -> frozenset[str]:
    """The combatants absent for `viewer` in `state`: those hidden from the players, less a
    seat's own; none for the game master and a spectator."""
    players = state.players
    if viewer.gm or isinstance(viewer, Spectator) or players is None or not players.hidden:
        return frozenset()
    if isinstance(viewer, Seat):
        side_of = _side_of(state)
        return frozenset(cid for cid in players.hidden if not viewer.controls(cid, side_of))
    return frozenset(players.hidden)


def may_read(event: Any, state: Encounter, viewer: Viewer) -> bool:
    """True when `viewer` may read a private event whole (its owner's seat, the game master,
    a spectator of a fight whose rules reveal it at the end)."""
    owner = owner_of(event)
    if owner is None or viewer.may_see(owner, _side_of(state)):
        return True
    if isinstance(viewer, Spectator):
        rules = _rules(state)
        return rules is None or rules.revealed_at_end(state)
    return False


# --- events ------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def named(event: Any, ids: Iterable[str]) -> set[str]:
    """The ids among `ids` that `event` names anywhere: a field's value, an item of a list, a
    key, or a word of a text (`strike at g1`)."""
    wanted = set(ids)
    found: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x in wanted:
                found.add(x)
            elif any(ch in x for ch in " >|+,:"):
                found.update(w for w in _WORD.findall(x) if w in wanted)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(msgspec.to_builtins(event))
    return found


def _anonymous(x: Any, hidden: frozenset[str], names: Any) -> Any:
    """`x` (builtins) with each hidden id left out of a list, and as `unseen` elsewhere; in a
    text, a hidden combatant's name as "someone unseen" (`names`: `_names`)."""
    if isinstance(x, str):
        if x in hidden:
            return UNSEEN
        out = names(x)
        if any(ch in out for ch in " >|+,:"):
            out = _WORD.sub(lambda m: UNSEEN if m[0] in hidden else m[0], out)
        return out
    if isinstance(x, dict):
        return {_anonymous(k, hidden, names): _anonymous(v, hidden, names) for k, v in x.items()}
    if isinstance(x, (list, tuple)):  # to_builtins keeps a tuple a tuple
        return [_anonymous(v, hidden, names) for v in x if not (isinstance(v, str) and v in hidden)]
    return x


def _retyped(event: Any, data: Any) -> Any:
    return msgspec.convert(data, type(event))


@dataclass
class Judge:
    """Judges a log's events for one viewer, step by step, remembering what it showed (an undo
    of a step it never showed isn't told) and who each action concerns."""

    viewer: Viewer
    hidden: frozenset[str] | None = None  # absent throughout (a view at one seq); None: as each step ends
    shown_steps: set[int] = field(default_factory=set)
    actions: dict[str, set[str]] = field(default_factory=dict)  # action id -> the combatants it names

    def step(self, items: list[tuple[Envelope[Any], Encounter]]) -> tuple[list[Any], frozenset[str]]:
        """The events of one whole step as this viewer reads them (None: withheld), and the
        combatants hidden from it, judged by who is hidden when the step ends; `items` are
        (envelope, state just after it)."""
        if not items:
            return [], frozenset()
        if self.viewer.gm:
            return [env.event for env, _ in items], frozenset()
        hidden = self.hidden if self.hidden is not None else hidden_from(items[-1][1], self.viewer)
        end = items[-1][1]  # a step's command names a combatant its events add
        out = [self.event(env.event, state, hidden, end) for env, state in items]
        if any(e is not None for e in out):
            self.shown_steps.add(items[0][0].step)
        return out, hidden

    def _owns(self, cid: str, state: Encounter) -> bool:
        return isinstance(self.viewer, Spectator) or self.viewer.controls(cid, _side_of(state))

    def event(self, e: Any, state: Encounter, hidden: frozenset[str], end: Encounter | None = None) -> Any:
        """One event as this viewer reads it (None: withheld); `state`: just after it; `hidden`:
        the combatants absent for this viewer; `end`: the state when its step ends."""
        end = end if end is not None else state
        t = type(e)
        if t is ev.EncounterCreated:  # a fair encounter's commitment stays: it is public, its seed isn't there
            return msgspec.structs.replace(e, seed=None) if e.seed is not None else e
        if t is ev.Contributed or t is ev.SeedRevealed:
            return e  # fair dice: every contribution and the reveal are public, whoever's seat is named
        if t is ev.CommandIssued:
            cmd = e.command
            if cmd.kind == "create" and "seed" in cmd.params:
                cmd = msgspec.structs.replace(cmd, params={k: v for k, v in cmd.params.items() if k != "seed"})
                e = msgspec.structs.replace(e, command=cmd)
            if cmd.kind in ("view", "seat", "seating"):  # the game master's settings: their effect shows
                return None
            if cmd.kind == "add" and "stats" in cmd.params and not self._owns(str(cmd.params.get("id")), state):
                e = msgspec.structs.replace(e, command=msgspec.structs.replace(cmd, params={**cmd.params, "stats": {}}))
        elif t is ev.StepUndone or t is ev.StepRedone or t is ev.StepAmended:
            return e if e.step in self.shown_steps else None
        elif t is ev.SeatSet or t is ev.SeatingSet:
            return None  # the seats at the table are the game master's to see
        elif t is ev.ViewSet:
            # the game master's settings: the players see their effect, not the setting; a
            # reveal is told as the combatant coming into view
            if e.combatant is None or e.hp is not None or e.hidden or e.combatant in hidden:
                return None
            return msgspec.structs.replace(e, reveal=None)
        elif t is ev.CombatantAdded and e.stats and not self._owns(e.id, state):
            e = msgspec.structs.replace(e, stats={})  # a stat block is the game master's and its seat's
        if t is ev.ActionDeclared:  # whom it names anywhere (a target, or `toward=b1` in its parameters)
            self.actions[e.id] = named(e, end.combatants.keys() | hidden) if hidden else {e.actor, *e.targets}
        if t is ev.OrderSet:
            return msgspec.structs.replace(
                e, tiers=tuple(tier for tier in (tuple(c for c in t_ if c not in hidden) for t_ in e.tiers) if tier)
            )
        if owner_of(e) is not None and not may_read(e, state, self.viewer):
            e = e.redacted()
        if not hidden:
            return e
        if t not in _ACTIONS and any(isinstance(v := getattr(e, f, None), str) and v in hidden for f in _SUBJECT):
            return None  # a fact about a hidden combatant (its damage, its fall), whoever caused it
        names = named(e, end.combatants.keys() | hidden)
        if t is ev.ActionResolved:  # an outcome concerns whoever the action named
            names |= self.actions.get(e.id, set())
        if not names & hidden:
            return e
        if names <= hidden:
            return None
        return _retyped(e, _anonymous(msgspec.to_builtins(e), hidden, _names(end, hidden)))


_SUBJECT = ("target", "combatant", "id")  # the field that says whom a fact is about
_ACTIONS = (ev.ActionDeclared, ev.ActionResolved, ev.CommandIssued)  # these name an actor and targets


def _names(state: Encounter, hidden: frozenset[str]) -> Any:
    """A function putting "someone unseen" for each hidden combatant's name in a text, whole
    names only, longest first: a visible `Bandit chief` stays when `Bandit` is hidden."""
    every: dict[str, bool] = {}
    for cid, c in state.combatants.items():
        if c.name:  # a name shared by a hidden and a visible one is put out of sight for both
            every[c.name] = every.get(c.name, False) or cid in hidden
    if not any(every.values()):
        return lambda text: text
    pattern = re.compile(
        r"(?<![\w])(" + "|".join(re.escape(n) for n in sorted(every, key=len, reverse=True)) + r")(?![\w])"
    )
    return lambda text: pattern.sub(lambda m: UNSEEN_NAME if every[m[0]] else m[0], text)


def told_state(state: Encounter, hidden: frozenset[str]) -> Encounter:
    """`state` for telling a line to a viewer: each hidden combatant named "someone unseen"."""
    if not hidden:
        return state
    combatants = dict(state.combatants)
    for cid in hidden:
        c = combatants.get(cid)
        if c is not None:
            combatants[cid] = msgspec.structs.replace(c, name=UNSEEN_NAME)
    return msgspec.structs.replace(state, combatants=combatants)


def folded_steps(
    stream: Iterable[Envelope[Any]], log: EventLog | None = None, projection: Projection | None = None
) -> Iterator[list[tuple[Envelope[Any], Encounter]]]:
    """The stream's events folded, a whole step at a time: each step as (envelope, the state
    just after it). The last step of a torn log comes as far as it goes. Raises CorruptLog
    naming the seq of an event that can't be folded where it stands, as a replay does."""
    projection = projection if projection is not None else Projection()
    step: list[tuple[Envelope[Any], Encounter]] = []
    left = 0
    for envelope in stream:
        if isinstance(envelope.event, ev.CommandIssued) and step:
            yield step
            step = []
        try:
            if log is None:
                projection.apply(envelope)
            else:
                apply_from(log, projection, envelope)
        except FoldError as exc:
            raise CorruptLog(str(exc), exc.seq) from None
        step.append((envelope, projection.state))
        left = envelope.event.events - 1 if isinstance(envelope.event, ev.CommandIssued) else left - 1
        if left <= 0:
            yield step
            step = []
    if step:
        yield step


def hidden_at(log: EventLog, stop: int | None, viewer: Viewer) -> frozenset[str]:
    """The combatants absent for `viewer` in `log` at seq `stop` (None: its last)."""
    if viewer.gm or isinstance(viewer, Spectator):
        return frozenset()
    return hidden_from(replay(log, stop, Projection(marks=False)).state, viewer)


def viewed_envelopes(
    stream: Iterable[Envelope[Any]], viewer: Viewer, log: EventLog | None = None, hidden: frozenset[str] | None = None
) -> Iterator[Envelope[Any]]:
    """The envelopes `viewer` may receive, each event as that viewer reads it (withheld ones
    left out); `hidden`: the combatants absent throughout (a view at one seq, from `hidden_at`;
    None: as each step ends). A redacted event keeps its seq and step but not its digest (it is
    no longer the event the digest seals), so a viewer's export can't be taken for the log."""
    judge = Judge(viewer, hidden=hidden)
    for items in folded_steps(stream, log):
        for (env, _), e in zip(items, judge.step(items)[0]):
            if e is None:
                continue
            if viewer.gm:
                yield env
            else:
                yield msgspec.structs.replace(env, event=e, digest="")


# --- states ------------------------------------------------------------------------------


class SeenHealth(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A combatant's health as a viewer sees it: `exact` (left of most, and its level),
    `level` (the level alone) or `hidden` (nothing)."""

    shown: str
    left: int | None = None
    most: int | None = None
    level: str | None = None


class SeenCondition(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    name: str
    rounds: int | None = None  # rounds left, when it has a count


class SeenCombatant(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One combatant as a viewer sees it."""

    id: str
    name: str
    side: str
    kind: str
    status: str  # active, removed, or how it was defeated
    acting: bool = False
    initiative: int | None = None
    initiative_said: str | None = None  # as the rule system says it, where its number would mislead
    position: str | None = None
    conditions: tuple[SeenCondition, ...] = ()
    health: SeenHealth | None = None
    damage: int | None = None  # the game master's, a seat's own, and where health shows exactly
    resources: dict[str, int] | None = None  # the game master's and a seat's own
    stats: dict[str, Any] | None = None  # the game master's and a seat's own
    own: bool = False  # one of this seat's combatants
    hidden: bool = False  # hidden from the players (the game master's view marks it)


class Seen(msgspec.Struct, frozen=True, kw_only=True):
    """The fight at one seq as one viewer sees it: what every surface shows that viewer."""

    viewer: str
    seq: int
    title: str
    rules: str
    phase: str
    round: int
    outcome: str | None
    winner: str | None
    order: tuple[tuple[str, ...], ...]  # tiers of ids, fastest first, the visible ones
    acting: tuple[str, ...]  # ids of the visible ones acting
    unseen_acting: int  # how many hidden ones are acting ("someone acts")
    combatants: tuple[SeenCombatant, ...]  # the order's, then the rest as added
    summary: tuple[str, ...]  # the rule system's lines, as this viewer may read them
    rules_state: Any = None  # the rule system's own state (the game master's view only)

    def combatant(self, cid: str) -> SeenCombatant | None:
        return next((c for c in self.combatants if c.id == cid), None)


def changed(a: Seen, b: Seen) -> list[str]:
    """What differs from `a` to `b` (two views by one viewer), in words: "Goblin 1: 7/7 -> 4/7",
    "Ayla: prone", "round 1 -> round 2", "acting: Bo"."""
    out: list[str] = []
    if (a.phase, a.round) != (b.phase, b.round):
        out.append(f"{a.phase}, round {a.round} -> {b.phase}, round {b.round}")
    names = {c.id: c.name for c in (*a.combatants, *b.combatants)}
    if a.acting != b.acting or a.unseen_acting != b.unseen_acting:
        acting = [names[c] for c in b.acting] + ([UNSEEN_NAME] * b.unseen_acting)
        out.append("acting: " + (", ".join(acting) or "no one"))
    if a.order != b.order and b.order:
        out.append("order: " + "; ".join(", ".join(names[c] for c in tier) for tier in b.order))
    before = {c.id: c for c in a.combatants}
    after = {c.id: c for c in b.combatants}
    for cid, c in after.items():
        old = before.get(cid)
        if old is None:
            out.append(f"{c.name} joins ({c.side})")
            continue
        out.extend(f"{c.name}: {what}" for what in _combatant_changes(old, c))
    out.extend(f"{c.name} is gone from view" for cid, c in before.items() if cid not in after)
    if b.outcome != a.outcome and b.outcome is not None:
        out.append(f"the fight ends: {b.outcome}" + (f", won by {b.winner}" if b.winner else ""))
    return out


def _health_words(h: SeenHealth | None) -> str:
    if h is None or h.shown == "hidden":
        return ""
    if h.shown == "exact" and h.left is not None:
        return f"{h.left}/{h.most}"
    return h.level or ""


def _combatant_changes(a: SeenCombatant, b: SeenCombatant) -> list[str]:
    out = []
    if a.status != b.status:
        out.append(f"{a.status} -> {b.status}")
    was, now = _health_words(a.health), _health_words(b.health)
    if was != now and (was or now):
        out.append(f"{was or '?'} -> {now or '?'}")
    if a.initiative != b.initiative and b.initiative is not None:
        out.append(f"initiative {b.initiative_said or b.initiative}")
    if a.position != b.position and b.position is not None:
        out.append(f"moves to {b.position}" if a.position is None else f"moves {a.position} -> {b.position}")
    had = {x.name: x.rounds for x in a.conditions}
    has = {x.name: x.rounds for x in b.conditions}
    for name, rounds in has.items():
        if name not in had:
            out.append(name + (f" ({counted(rounds, 'round')})" if rounds else ""))
    out.extend(f"no longer {name}" for name in had if name not in has)
    for key in sorted(set(a.resources or {}) | set(b.resources or {})):
        x, y = (a.resources or {}).get(key, 0), (b.resources or {}).get(key, 0)
        if x != y:
            out.append(f"{key} {x} -> {y}")
    if a.hidden != b.hidden:
        out.append("hidden from the players" if b.hidden else "shown to the players")
    return out


def _status(c: Combatant) -> str:
    if c.removed:
        return "removed"
    return c.defeated or "active"


def seen(state: Encounter, viewer: Viewer, seq: int) -> Seen:
    """`state` (at `seq`) as `viewer` sees it."""
    rules = _rules(state)
    hidden = hidden_from(state, viewer)
    side_of = _side_of(state)
    players = state.players or PlayerView()
    ended = state.phase == "end" and isinstance(viewer, Spectator)
    flat = state.flat_order()
    ids = flat + [cid for cid in state.combatants if cid not in flat]
    rows = []
    for cid in ids:
        if cid in hidden:
            continue
        c = state.combatants[cid]
        own = viewer.gm or ended or viewer.controls(cid, side_of)
        track = rules.health(state, c) if rules is not None else None
        level = rules.health_level(state, c) if rules is not None else None
        shown = "exact" if own else players.hp_shown(state, c)
        if shown == "exact" and track is not None:
            health: SeenHealth | None = SeenHealth(shown="exact", left=track[0], most=track[1], level=level)
        elif shown == "hidden":
            health = SeenHealth(shown="hidden")
        elif level is not None:
            health = SeenHealth(shown="level", level=level)
        else:
            health = None
        rows.append(
            SeenCombatant(
                id=c.id,
                name=c.name,
                side=c.side,
                kind=c.kind,
                status=_status(c),
                acting=c.id in state.acting,
                initiative=c.initiative,
                initiative_said=rules.initiative_said(state, c) if rules is not None else None,
                position=rules.place_of(state, c) if rules is not None else c.position,
                conditions=tuple(SeenCondition(name=x.name, rounds=x.remaining) for x in c.conditions),
                health=health,
                damage=c.damage if own or shown == "exact" else None,
                resources=dict(sorted(c.resources.items())) if own else None,
                stats=dict(c.given_stats) if own else None,
                own=viewer.controls(cid, side_of),
                hidden=viewer.gm and cid in players.hidden,
            )
        )
    if viewer.gm:
        summary = rules.summary(state) if rules is not None else []
    else:
        summary = rules.summary(_for_rules(state, viewer, hidden, rules)) if rules is not None else []
    return Seen(
        viewer=viewer.name,
        seq=seq,
        title=state.title or (state.rules or "encounter"),
        rules=state.rules or "",
        phase=state.phase,
        round=state.round,
        outcome=state.outcome,
        winner=state.winner,
        order=tuple(tier for tier in (tuple(c for c in t if c not in hidden) for t in state.order) if tier),
        acting=tuple(c for c in state.acting if c not in hidden),
        unseen_acting=sum(1 for c in state.acting if c in hidden),
        combatants=tuple(rows),
        summary=tuple(summary),
        rules_state=msgspec.to_builtins(state.extra) if viewer.gm else None,
    )


def _for_rules(state: Encounter, viewer: Viewer, hidden: frozenset[str], rules: RuleSystem) -> Encounter:
    """`state` as a rule system's hooks may read it for `viewer`: its private things taken out
    (`seen_by`), then every hidden combatant, and every entry of the system's own state that
    names one; the seed and the players' settings gone."""
    if isinstance(viewer, Spectator) and state.phase == "end" and rules.revealed_at_end(state):
        out = state
    else:
        out = rules.seen_by(state, viewer)
    out = msgspec.structs.replace(out, seed=None, players=None)
    if not hidden:
        return out
    extra = _scrubbed(out.extra, hidden) if isinstance(out.extra, msgspec.Struct) else out.extra
    return msgspec.structs.replace(
        out,
        combatants={cid: c for cid, c in out.combatants.items() if cid not in hidden},
        order=tuple(tier for tier in (tuple(c for c in t if c not in hidden) for t in out.order) if tier),
        acting=tuple(c for c in out.acting if c not in hidden),
        acted=tuple(c for c in out.acted if c not in hidden),
        pending=tuple(p for p in out.pending if p.actor not in hidden and not set(p.targets) & hidden),
        held=tuple(h for h in out.held if not named(h, hidden)),
        extra=extra,
    )


def _scrubbed(x: Any, hidden: frozenset[str]) -> Any:
    """`x` (a rule system's state, or a value in it) without a key, item or record that names a
    hidden combatant; a field of a record that names one goes back to its default."""
    if isinstance(x, dict):
        return {k: _scrubbed(v, hidden) for k, v in x.items() if not _names_hidden(k, hidden, deep=False)}
    if isinstance(x, (list, tuple)):
        return type(x)(_scrubbed(v, hidden) for v in x if not _names_hidden(v, hidden, deep=True))
    if isinstance(x, msgspec.Struct):
        changes = {}
        for f in msgspec.structs.fields(x):
            value = getattr(x, f.name)
            if isinstance(value, str) and _names_hidden(value, hidden, deep=False):
                if f.default is not msgspec.NODEFAULT:
                    changes[f.name] = f.default
            elif isinstance(value, (dict, list, tuple, msgspec.Struct)):
                changes[f.name] = _scrubbed(value, hidden)
        return msgspec.structs.replace(x, **changes) if changes else x
    return x


def _names_hidden(x: Any, hidden: frozenset[str], deep: bool) -> bool:
    """True when `x` (a key, a text, or with `deep` a record of the system's) names a hidden combatant."""
    if isinstance(x, str):
        return x in hidden or any(w in hidden for w in re.split(r"[|>+,: ]", x))
    if deep and isinstance(x, msgspec.Struct):
        return bool(named(x, hidden))
    return False


__all__ = [
    "GM",
    "SPECTATOR",
    "TABLE",
    "UNSEEN",
    "UNSEEN_NAME",
    "VIEWERS",
    "VIEWER_HELP",
    "changed",
    "GameMaster",
    "Judge",
    "Seat",
    "Seen",
    "SeenCombatant",
    "SeenHealth",
    "Spectator",
    "TableViewer",
    "Viewer",
    "ViewerError",
    "folded_steps",
    "hidden_at",
    "hidden_from",
    "known_viewers",
    "parse_viewer",
    "seen",
    "told_state",
    "viewed_envelopes",
]
