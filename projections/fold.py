"""The fold: one pure handler per event type, and the Projection that applies them in order.

`apply(state, event) -> state` never rolls a die or reads a clock. The handlers sit in a
dict keyed by event type (a dict lookup per event: the fold is the replay hot path).
Rule systems register handlers for their own event types with `register_fold`.

`Projection` adds what a single event can't know: the phase check (an event illegal in
the current phase is an error naming its seq), the digest and seq it has reached, and the
undo and redo stacks. Undoing step k restores the state exactly as it was before step k;
redoing it restores the state exactly as it was after, i.e. the same events and dice.
`Projection.fold_lines` is the same fold for a whole stored log, written as one loop with
the projection's fields in locals: replaying is the hot path.
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from combatlog.events import catalogue as ev
from combatlog.events.envelope import GENESIS, Envelope
from combatlog.projections.phases import DECLARE, RESOLVE, TABLE
from combatlog.projections.state import (
    Combatant,
    Condition,
    Contribution,
    Encounter,
    Fair,
    Held,
    Pending,
    PlayerView,
    SeatEntry,
    Seating,
)

replace = msgspec.structs.replace
ValidationError = msgspec.ValidationError

Handler = Callable[[Encounter, Any], Encounter]
HANDLERS: dict[type, Handler] = {}
# Per event type: (phase -> next phase, fold handler or None for undo/redo), from TABLE and
# HANDLERS, built on first use. The bulk fold (projections/bulk.py) keeps its own faster
# table, built from these rows; `on_fold_registered` tells it when a fold handler changes.
ROWS: dict[type, tuple[dict[str, str], Handler | None]] = {}
_on_register: list[Callable[[type], None]] = []
_ISSUED, _CREATED = ev.CommandIssued, ev.EncounterCreated


class FoldError(Exception):
    """An event can't be folded where it stands in the log (phase, step or reference)."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq


class NeedsHistory(Exception):
    """An undo or redo reaches a step whose before/after state this projection never saw."""

    def __init__(self, step: int) -> None:
        super().__init__(f"step {step} was folded before this projection was restored")
        self.step = step


def on_fold_registered(fn: Callable[[type], None]) -> None:
    """`fn(event_type)` is called whenever a fold is registered for `event_type` (a table built
    from the rows forgets that type's)."""
    _on_register.append(fn)


def register_fold(event_type: type) -> Callable[[Handler], Handler]:
    """Decorator: make the decorated function the fold of `event_type`."""

    def deco(fn: Handler) -> Handler:
        HANDLERS[event_type] = fn
        ROWS.pop(event_type, None)
        for forget in _on_register:
            forget(event_type)
        return fn

    return deco


# A rule system's own per-encounter state: a frozen Struct kept in `Encounter.extra`, made
# empty when the encounter is created under that system. The engine registers each system's
# type here (`register_rules_state`) and installs a loader (`set_rules_loader`) that imports
# a system the first time a log names it, so a replay in a fresh process gets the same type.
_RULES_STATE: dict[str, type] = {}
_rules_loader: list[Callable[[str], None]] = []


def register_rules_state(rules: str, state_type: type) -> None:
    """Keep `state_type` (a frozen Struct with defaults) as the `extra` of encounters under `rules`."""
    _RULES_STATE[rules] = state_type


def set_rules_loader(fn: Callable[[str], None]) -> None:
    """`fn(rules)` loads the rule system `rules` (which registers its state type); installed by the engine."""
    _rules_loader[:] = [fn]


def rules_state_type(rules: str) -> type | None:
    """The state type of the rule system `rules` (loading the system if no log here named it
    yet), or None for a system that isn't installed or keeps no state of its own."""
    if rules not in _RULES_STATE and _rules_loader:
        try:
            _rules_loader[0](rules)
        except Exception:  # an unknown or broken system: its events will be reported where they stand
            return None
    return _RULES_STATE.get(rules)


# A rule system's typed models of what a log records: `stats(given) -> model` for a
# combatant's stats and `options(given) -> model` for the encounter's options, each lenient
# (what a log recorded always folds; see `combatlog.engine.typed.lenient`). The engine
# installs the function that finds them for a system by its name (`set_rules_models`); a
# system without a model of one keeps it as given.
Models = tuple[Callable[[Any], Any] | None, Callable[[Any], Any] | None]
_NO_MODELS: Models = (None, None)
_models_of: list[Callable[[str], Models]] = []


def set_rules_models(fn: Callable[[str], Models]) -> None:
    """`fn(rules)` gives the typed models (stats, options) of the rule system `rules`; installed by the engine."""
    _models_of[:] = [fn]


def rules_models(rules: str | None) -> Models:
    """The typed models (stats, options) of the rule system `rules`; (None, None) for a system
    that isn't installed or declares none (or with no engine to ask)."""
    if rules is None or not _models_of:
        return _NO_MODELS
    try:
        return _models_of[0](rules)
    except Exception:  # an unknown or broken system: what it recorded is kept as given
        return _NO_MODELS


def typed_state(state: Encounter) -> Encounter:
    """`state` with its `extra` as the rule system's state type, and its options and each
    combatant's stats as the system's typed models (a state decoded from bytes holds dicts)."""
    if state.rules is None:
        return state
    changes: dict[str, Any] = {}
    if isinstance(state.extra, dict):
        kind = rules_state_type(state.rules)
        if kind is not None:
            changes["extra"] = msgspec.convert(state.extra, kind)
    stats, options = rules_models(state.rules)
    if options is not None and type(state.options) is dict:
        changes["options"] = options(state.given_options)
    if stats is not None and any(type(c.stats) is dict for c in state.combatants.values()):
        changes["combatants"] = {
            cid: replace(c, stats=stats(c.given_stats)) if type(c.stats) is dict else c
            for cid, c in state.combatants.items()
        }
    return replace(state, **changes) if changes else state


def _with(state: Encounter, cid: str, **changes: Any) -> Encounter:
    """`state` with combatant `cid` changed."""
    combatants = state.combatants.copy()
    c = combatants.get(cid)
    if c is None:
        c = state.combatant(cid)  # raises KeyError naming the known ids
    combatants[cid] = replace(c, **changes)
    return replace(state, combatants=combatants)


def put_extra(state: Encounter, key: str, sub: str, value: Any) -> Encounter:
    """`state` with a rule system's table `extra[key]` holding `value` at `sub` (None removes it), copied on write."""
    extra = state.extra
    table = extra.get(key)
    if table is None:
        table = {}
    else:
        old = table.get(sub)
        if old is not None and type(old) is type(value) and old == value:
            return state  # already so: nothing to copy
        table = table.copy()
    extra = extra.copy()
    if value is None:
        table.pop(sub, None)
    else:
        table[sub] = value
    extra[key] = table
    return replace(state, extra=extra)


def unchanged(state: Encounter, event: Any) -> Encounter:
    """The fold of an event that changes nothing of the state (a roll, a note, a ruling)."""
    return state


for _t in (
    ev.CommandIssued,
    ev.DiceRolled,
    ev.GmRuling,
    ev.GmOverride,
    ev.Note,
    ev.ResolutionStarted,
    ev.StepSigned,
    ev.Forked,
    ev.StepAmended,  # the record of an amendment; the superseded step's undo already folded
):
    HANDLERS[_t] = unchanged


@register_fold(ev.EncounterCreated)
def _created(state: Encounter, e: ev.EncounterCreated) -> Encounter:
    kind = rules_state_type(e.rules)
    options = rules_models(e.rules)[1]
    return Encounter(
        rules=e.rules,
        rules_version=e.rules_version,
        options=e.options if options is None else options(e.options),
        given_options=e.options,
        seed=e.seed,
        title=e.title,
        extra={} if kind is None else kind(),
        fair=None if e.commitment is None else Fair(commitment=e.commitment, reveal_at_end=e.reveal_at_end),
    )


@register_fold(ev.Contributed)
def _contributed(state: Encounter, e: ev.Contributed) -> Encounter:
    if state.fair is None:
        raise KeyError("a contribution to an encounter whose dice aren't committed (no commitment)")
    contributions = (*state.fair.contributions, Contribution(by=e.by, value=e.value))
    return replace(state, fair=replace(state.fair, contributions=contributions))


@register_fold(ev.SeedRevealed)
def _revealed(state: Encounter, e: ev.SeedRevealed) -> Encounter:
    if state.fair is None:
        raise KeyError("a seed revealed in an encounter whose dice aren't committed (no commitment)")
    return replace(state, fair=replace(state.fair, seed=e.seed, nonce=e.nonce))


@register_fold(ev.ViewSet)
def _view(state: Encounter, e: ev.ViewSet) -> Encounter:
    view = state.players or PlayerView()
    if e.side is not None and e.hp is not None:
        view = replace(view, hp={**view.hp, e.side: e.hp})
    if e.combatant is not None and e.hidden is not None:
        rest = tuple(c for c in view.hidden if c != e.combatant)
        view = replace(view, hidden=(*rest, e.combatant) if e.hidden else rest)
        if view.reveal_on_act or e.reveal is not None:
            others = tuple(c for c in view.reveal_on_act if c != e.combatant)
            view = replace(view, reveal_on_act=(*others, e.combatant) if e.hidden and e.reveal == "act" else others)
    if e.combatant is not None and e.hp is not None:
        view = replace(view, hp_of_combatant={**view.hp_of_combatant, e.combatant: e.hp})
    if e.odds is not None:
        view = replace(view, odds=e.odds)
    return replace(state, players=view)


@register_fold(ev.SeatSet)
def _seat(state: Encounter, e: ev.SeatSet) -> Encounter:
    seating = state.seating or Seating()
    seats = {k: v for k, v in seating.seats.items() if k != e.seat}
    if not e.revoked:
        seats[e.seat] = SeatEntry(id=e.seat, name=e.name, combatants=e.combatants, generation=e.generation)
    return replace(state, seating=replace(seating, seats=seats))


@register_fold(ev.SeatingSet)
def _seating(state: Encounter, e: ev.SeatingSet) -> Encounter:
    return replace(state, seating=replace(state.seating or Seating(), commands=e.commands, undo=e.undo))


@register_fold(ev.CombatantAdded)
def _added(state: Encounter, e: ev.CombatantAdded) -> Encounter:
    combatants = dict(state.combatants)
    stats = rules_models(state.rules)[0]
    combatants[e.id] = Combatant(
        id=e.id,
        name=e.name,
        side=e.side,
        kind=e.kind,
        group=e.group,
        stats=e.stats if stats is None else stats(e.stats),
        given_stats=e.stats,
    )
    return replace(state, combatants=combatants)


@register_fold(ev.CombatantRemoved)
def _removed(state: Encounter, e: ev.CombatantRemoved) -> Encounter:
    return _with(state, e.id, removed=True)


@register_fold(ev.SurpriseDetermined)
def _surprise(state: Encounter, e: ev.SurpriseDetermined) -> Encounter:
    return replace(state, surprised=e.surprised)


@register_fold(ev.InitiativeRolled)
def _initiative(state: Encounter, e: ev.InitiativeRolled) -> Encounter:
    combatants = dict(state.combatants)
    for cid in e.combatants:
        combatants[cid] = replace(state.combatant(cid), initiative=e.value, tiebreak=e.tiebreak)
    return replace(state, combatants=combatants)


@register_fold(ev.OrderSet)
def _order(state: Encounter, e: ev.OrderSet) -> Encounter:
    return replace(state, order=e.tiers)


@register_fold(ev.RoundStarted)
def _round_started(state: Encounter, e: ev.RoundStarted) -> Encounter:
    return replace(
        state,
        round=e.round,
        surprise_round=e.surprise,
        acted=(),
        acting=(),
        resolving=None,
        action_pass=1,
        phase=DECLARE,
    )


@register_fold(ev.HeldDamageReleased)
def _held_released(state: Encounter, e: ev.HeldDamageReleased) -> Encounter:
    return replace(state, held=())


@register_fold(ev.PassStarted)
def _pass_started(state: Encounter, e: ev.PassStarted) -> Encounter:
    return replace(state, action_pass=e.number, acted=(), acting=(), resolving=None, phase=DECLARE)


@register_fold(ev.RoundEnded)
def _round_ended(state: Encounter, e: ev.RoundEnded) -> Encounter:
    # Durations count round ends; a condition whose count runs out lapses here.
    combatants = state.combatants
    changed = None
    for cid, c in combatants.items():
        if c.conditions and any(cond.remaining is not None for cond in c.conditions):
            kept = tuple(
                cond if cond.remaining is None else replace(cond, remaining=cond.remaining - 1)
                for cond in c.conditions
                if cond.remaining is None or cond.remaining > 1
            )
            if changed is None:
                changed = dict(combatants)
            changed[cid] = replace(c, conditions=kept)
    return replace(
        state,
        combatants=changed if changed is not None else combatants,
        held=(),
        acting=(),
        resolving=None,
        phase=RESOLVE,
    )


@register_fold(ev.TurnStarted)
def _turn_started(state: Encounter, e: ev.TurnStarted) -> Encounter:
    return replace(state, acting=e.actors, declaring=e.declaring, phase=DECLARE)


@register_fold(ev.TurnEnded)
def _turn_ended(state: Encounter, e: ev.TurnEnded) -> Encounter:
    # plain loops: a comprehension's own frame costs more than these few-item tuples
    actors = e.actors
    acted = state.acted
    if not e.yielded:
        add: tuple[str, ...] = ()
        for a in actors:
            if a not in acted:
                add += (a,)
        if add:
            acted = acted + add
    acting: tuple[str, ...] = ()
    for a in state.acting:
        if a not in actors:
            acting += (a,)
    return replace(state, acting=acting, declaring=state.declaring and bool(acting), acted=acted)


@register_fold(ev.ActionDeclared)
def _declared(state: Encounter, e: ev.ActionDeclared) -> Encounter:
    pending = Pending(
        id=e.id,
        actor=e.actor,
        action=e.action,
        targets=e.targets,
        params=e.params,
        cost=e.cost,
        category=e.category,
        round=state.round,
    )
    return replace(state, pending=state.pending + (pending,), phase=DECLARE)


@register_fold(ev.ActionResolved)
def _resolved(state: Encounter, e: ev.ActionResolved) -> Encounter:
    eid = e.id
    pending: tuple[Pending, ...] = ()
    for p in state.pending:
        if p.id != eid:
            pending += (p,)
    return replace(state, pending=pending)


HANDLERS[ev.ResolutionStarted] = lambda state, e: replace(state, resolving=e.category or "all", phase=RESOLVE)


# The handlers below run for most events of a fight, so they are written out rather than
# going through _with (a keyword call and a second lookup cost a third of their time).


@register_fold(ev.ResourcesSet)
def _resources_set(state: Encounter, e: ev.ResourcesSet) -> Encounter:
    cid = e.combatant
    combatants = state.combatants.copy()
    c = combatants.get(cid)
    if c is None:
        c = state.combatant(cid)  # raises KeyError naming the known ids
    combatants[cid] = replace(c, resources=e.resources.copy())
    return replace(state, combatants=combatants)


@register_fold(ev.ResourceSpent)
def _spent(state: Encounter, e: ev.ResourceSpent) -> Encounter:
    cid = e.combatant
    combatants = state.combatants.copy()
    c = combatants.get(cid)
    if c is None:
        c = state.combatant(cid)  # raises KeyError naming the known ids
    resources = c.resources.copy()
    resources[e.resource] = resources.get(e.resource, 0) - e.amount
    combatants[cid] = replace(c, resources=resources)
    return replace(state, combatants=combatants)


@register_fold(ev.DamageApplied)
def _damage(state: Encounter, e: ev.DamageApplied) -> Encounter:
    if e.held:
        held = Held(target=e.target, amount=e.amount, location=e.location, kind=e.kind, source=e.source)
        return replace(state, held=state.held + (held,))
    cid = e.target
    combatants = state.combatants.copy()
    c = combatants.get(cid)
    if c is None:
        c = state.combatant(cid)  # raises KeyError naming the known ids
    if e.location is None:
        combatants[cid] = replace(c, damage=c.damage + e.amount)
    else:
        wounds = c.wounds.copy()
        wounds[e.location] = wounds.get(e.location, 0) + e.amount
        combatants[cid] = replace(c, damage=c.damage + e.amount, wounds=wounds)
    return replace(state, combatants=combatants)


@register_fold(ev.ConditionApplied)
def _condition(state: Encounter, e: ev.ConditionApplied) -> Encounter:
    c = state.combatant(e.target)
    rest = tuple(x for x in c.conditions if x.name != e.condition)
    cond = Condition(name=e.condition, remaining=e.duration, source=e.source, ends=e.ends, armed=e.armed)
    return _with(state, e.target, conditions=rest + (cond,))


@register_fold(ev.ConditionRemoved)
def _condition_removed(state: Encounter, e: ev.ConditionRemoved) -> Encounter:
    c = state.combatant(e.target)
    return _with(state, e.target, conditions=tuple(x for x in c.conditions if x.name != e.condition))


@register_fold(ev.Moved)
def _moved(state: Encounter, e: ev.Moved) -> Encounter:
    return _with(state, e.combatant, position=e.to)


@register_fold(ev.CombatantDefeated)
def _defeated(state: Encounter, e: ev.CombatantDefeated) -> Encounter:
    c = state.combatant(e.combatant)
    if any(x.ends is not None for x in c.conditions):  # a condition lasting until a turn ends with the bearer
        return _with(state, e.combatant, defeated=e.how, conditions=tuple(x for x in c.conditions if x.ends is None))
    return _with(state, e.combatant, defeated=e.how)


@register_fold(ev.EncounterEnded)
def _ended(state: Encounter, e: ev.EncounterEnded) -> Encounter:
    return replace(state, outcome=e.outcome, winner=e.winner, acting=())


_META = (ev.StepUndone, ev.StepRedone)
_UNDO_REDO = ("undo", "redo")


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    """A projection frozen at one seq: fold the tail onto it to get the full fold."""

    state: Encounter
    seq: int
    step: int
    digest: str
    undo: tuple[int, ...]
    redo: tuple[int, ...]

    def as_recorded(self) -> Snapshot:
        """This snapshot with its state `as_recorded` (the form saved projections are compared in)."""
        return replace(self, state=self.state.as_recorded())


class _Overlay(dict[int, list[Encounter]]):
    """A projection's history on top of a shared, finished one (a replay cursor's): its own
    steps in itself, the shared ones read through, never copied or changed."""

    __slots__ = ("shared",)

    def __init__(self, shared: dict[int, list[Encounter]]) -> None:
        super().__init__()
        self.shared = shared

    def get(self, key: int, default: Any = None) -> Any:
        found = dict.get(self, key)
        return self.shared.get(key, default) if found is None else found

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self.shared


class Projection:
    """Folds envelopes in order into an `Encounter`, checking phases and keeping undo/redo.

    `history` maps each live step to (state before, state after); states are immutable and
    shared, so keeping them costs references, and undo and redo cost a lookup.
    """

    __slots__ = (
        "state",
        "seq",
        "step",
        "digest",
        "undo",
        "redo",
        "history",
        "_open",
        "keep",
        "_kept",
        "_weight",
        "low",
        "marks",
        "mark_every",
        "_mark_weight",
        "far_marks",
    )

    # Steps whose before/after states are kept for undo and redo; older ones are dropped and,
    # if an undo or redo reaches them, folded again from the log (`projections.replay`), so a
    # long log replays in bounded memory.
    KEEP = 4096
    # ... and at most this many combatants summed over the kept steps' states: each state's
    # roster is its own dict, so a roster of 10,000 keeps about 100 steps, not 4,096 (memory in
    # proportion to the roster, not to the roster times KEEP); a fight of 250 still keeps 4,096
    BUDGET = 1 << 20
    # A mark at every MARK_EVERY-th step: the state it opened on and the seq of its first line.
    # An undo or redo older than the kept history is folded again from the nearest mark below
    # it, a few steps, never from the log's start (`projections.replay`). Marks are kept for the
    # whole log, up to MARK_BUDGET combatants summed over their states; past it every other
    # mark is dropped (the spacing doubles), so memory stays bounded whatever the log's length.
    MARK_EVERY = 8
    MARK_BUDGET = 1 << 17

    def __init__(
        self,
        snapshot: Snapshot | None = None,
        history: dict[int, list[Encounter]] | None = None,
        keep: int | None = None,
        marks: bool = True,
    ) -> None:
        """`marks=False`: no marks kept (a fold that is only read, `show`, the replay cursor: an
        undo older than the history then folds from the log's start)."""
        self.keep = self.KEEP if keep is None else keep
        if snapshot is None:
            self.state = Encounter()
            self.seq = 0
            self.step = 0
            self.digest = GENESIS
            self.undo: list[int] = []
            self.redo: list[int] = []
        else:
            self.state = typed_state(snapshot.state)
            self.seq = snapshot.seq
            self.step = snapshot.step
            self.digest = snapshot.digest
            self.undo = list(snapshot.undo)
            self.redo = list(snapshot.redo)
        # On top of another fold's finished history (a replay cursor's), whose entries are
        # final: steps already there are read through, never rewritten nor copied (a seek
        # costs the same however long the history), and a fold that stops mid-step never
        # leaves a half step in it. KEEP and BUDGET bound this projection's own steps.
        self.history: dict[int, list[Encounter]] = {} if history is None else _Overlay(history)
        self._kept: deque[int] = deque()  # the order steps entered the history, oldest first
        self._weight = 0  # combatants kept (BUDGET)
        self._open: list[Encounter] | None = None
        self.marks: dict[int, tuple[int, Encounter]] = {}  # step -> (seq of its first line, state it opened on)
        self.mark_every = self.MARK_EVERY if marks else 0
        self._mark_weight = 0
        # marks far apart, from the log's checkpoints (`projections.checkpoint`): step -> (seq of
        # its first line, state it opened on); an undo past the marks above folds from the nearest
        self.far_marks: dict[int, tuple[int, Encounter]] = {}
        # the undo stack's lowest length since a reader last set it (an undo pops it): a reader
        # keeping many snapshots (the replay cursor) shares the stack's part below it between them
        self.low = len(self.undo)

    def snapshot(self) -> Snapshot:
        """The projection as it stands, as a Snapshot."""
        return Snapshot(
            state=self.state,
            seq=self.seq,
            step=self.step,
            digest=self.digest,
            undo=tuple(self.undo),
            redo=tuple(self.redo),
        )

    def apply(self, envelope: Envelope[Any]) -> None:
        """Fold one envelope; raises FoldError (naming its seq) if it can't come here."""
        seq = envelope.seq
        if seq != self.seq + 1:
            raise FoldError(f"expected seq {self.seq + 1}, found {seq}", seq)
        event = envelope.event
        etype = type(event)
        if envelope.step != self.step:
            if envelope.step < self.step:
                raise FoldError(f"step {envelope.step} comes after step {self.step}", seq)
            self.step = envelope.step
            self._open = None
            if etype is _ISSUED:
                if event.command.kind not in ("undo", "redo"):
                    self._begin_step()
            elif etype not in _META:
                self._begin_step()
        state = self.state
        if state.rules is None or etype is _CREATED:
            if etype is _CREATED:
                if state.rules is not None:
                    raise FoldError("the encounter was already created", seq)
            elif etype is not _ISSUED:
                raise FoldError(f"{etype.__name__} before the encounter was created", seq)
        row = ROWS.get(etype)
        if row is None:
            try:
                row = rows_of(etype)
            except FoldError as exc:  # a type without a fold: refused where it stands
                raise FoldError(str(exc), seq) from None
        phase = row[0].get(state.phase)
        if phase is None:
            raise FoldError(f"{etype.__struct_config__.tag} is not legal in phase {state.phase}", seq)
        handler = row[1]
        if handler is None:
            self._meta(event, seq)
        else:
            try:
                state = handler(state, event)
            except KeyError as exc:
                raise FoldError(str(exc.args[0]), seq) from None
            if phase != state.phase:
                state = replace(state, phase=phase)
            self.state = state
            if self._open is not None:
                self._open[1] = state
        self.seq = seq
        self.digest = envelope.digest

    def _sync(
        self, state: Encounter, seq: int, step: int, open_: list[Encounter] | None, last: Envelope[Any] | None
    ) -> None:
        """Write fold_lines' locals back: state, seq, step, the open step and the digest.

        The open step's after-state is written only if events were folded inline since the
        last sync (`last`): apply writes it after every event but an undo or redo, which
        leave it as it was.
        """
        self.state = state
        self.seq = seq
        self.step = step
        self._open = open_
        if last is not None:
            self.digest = last.digest
            if open_ is not None:
                open_[1] = state

    def _begin_step(self) -> None:
        self._open = self._open_step(self.step, self.state, self.seq + 1)

    def _open_step(self, step: int, state: Encounter, seq: int) -> list[Encounter] | None:
        """Step `step` opens on `state` at line `seq`: it becomes the last live step (ending the
        redo chain) and gets its (before, after) entry in the history (and a mark, every
        `mark_every` steps); returns that entry, None if a shared, finished history already holds it."""
        self.undo.append(step)
        if self.redo:
            self.redo.clear()
        every = self.mark_every
        if every and step % every == 0:
            self._mark(step, seq, state)
        history = self.history
        if step in history:
            return None
        open_ = [state, state]
        self.remember(step, open_)
        return open_

    def _mark(self, step: int, seq: int, state: Encounter) -> None:
        """Mark step `step` (its first line `seq`, the state it opened on); past MARK_BUDGET,
        keep every other mark."""
        self.marks[step] = (seq, state)
        self._mark_weight += len(state.combatants) + 1
        if self._mark_weight > self.MARK_BUDGET:
            every = self.mark_every = self.mark_every * 2
            self.marks = {s: m for s, m in self.marks.items() if s % every == 0}
            self._mark_weight = sum(len(m[1].combatants) + 1 for m in self.marks.values())

    def forget_marks_below(self, step: int) -> None:
        """Drop the marks of steps below `step` (a writer whose checkpoints keep far marks: an undo
        that deep folds again from one of those, so its memory stays flat however long it runs)."""
        if self.marks and min(self.marks) < step:
            self.marks = {s: m for s, m in self.marks.items() if s >= step}
            self._mark_weight = sum(len(m[1].combatants) + 1 for m in self.marks.values())

    def window(self) -> int:
        """How many steps the history keeps at the current roster's size (KEEP, fewer for a
        roster so large that KEEP of its states would pass BUDGET)."""
        return max(1, min(self.keep, self.BUDGET // _weight([self.state])))

    def remember(self, step: int, entry: list[Encounter], spare: int | None = None) -> None:
        """Keep step `step`'s (before, after) states, dropping the oldest kept steps past KEEP or
        BUDGET (but never the newest one, nor `spare`): folded again from the log if ever needed."""
        history, kept = self.history, self._kept
        history[step] = entry
        kept.append(step)
        self._weight += _weight(entry)
        while len(kept) > self.keep or (self._weight > self.BUDGET and len(kept) > 1):
            dropped = kept.popleft()
            old = history.get(dropped) if dropped == spare else history.pop(dropped, None)
            if old is not None:
                self._weight -= _weight(old)

    def _meta(self, event: Any, seq: int) -> None:
        if type(event) is ev.StepUndone:
            if not self.undo or self.undo[-1] != event.step:
                top = self.undo[-1] if self.undo else "none"
                raise FoldError(f"step {event.step} can't be undone now (the last live step is {top})", seq)
            before_after = self.history.get(event.step)
            if before_after is None:
                raise NeedsHistory(event.step)
            self.undo.pop()
            self.low = min(self.low, len(self.undo))
            self.redo.append(event.step)
            self.state = before_after[0]
        else:
            if not self.redo or self.redo[-1] != event.step:
                top = self.redo[-1] if self.redo else "none"
                raise FoldError(f"step {event.step} can't be redone now (the next to redo is {top})", seq)
            before_after = self.history.get(event.step)
            if before_after is None:
                raise NeedsHistory(event.step)
            self.redo.pop()
            self.undo.append(event.step)
            self.state = before_after[1]


def _weight(entry: list[Encounter]) -> int:
    """What a kept step costs against Projection.BUDGET: its first state's combatants, and one."""
    return len(entry[0].combatants) + 1


def rows_of(etype: type) -> tuple[dict[str, str], Handler | None]:
    """`etype`'s row: the phases it is legal in (phase -> next phase), and its fold (None for undo/redo).

    Raises FoldError when the type has no fold. Cached once its phases are declared.
    """
    tag = etype.__struct_config__.tag  # type: ignore[attr-defined]  # an event type: a tagged Struct
    phases = {src: dest for (src, trigger), dest in TABLE.items() if trigger == tag}
    if etype in _META:
        handler = None
    else:
        handler = HANDLERS.get(etype)
        if handler is None:
            raise FoldError(f"no fold for event type {tag}", 0)
    if phases:  # not cached without: its phases may not be declared yet
        ROWS[etype] = (phases, handler)
    return phases, handler


class paused_gc:
    """Pause the cyclic garbage collector while folding a whole log.

    A fold builds millions of short-lived, acyclic objects (freed by reference counting);
    the collector's passes over the growing undo history only cost time.
    """

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()


def fold(envelopes: Iterable[Envelope[Any]], start: Projection | Snapshot | None = None) -> Projection:
    """Fold `envelopes` onto `start` (a fresh projection if None); returns the projection."""
    if isinstance(start, Projection):
        projection = start
    else:
        projection = Projection(start)
    apply = projection.apply
    for envelope in envelopes:
        apply(envelope)
    return projection


def apply(state: Encounter, event: Any) -> Encounter:
    """The bare fold of one event onto a state (no phase, seq or undo bookkeeping)."""
    return HANDLERS[type(event)](state, event)
