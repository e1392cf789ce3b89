"""decide: what happens if a command is carried out now, as a list of events.

The procedure common to every rule system lives here: creating the encounter, adding
combatants, the game master's surprise ruling, beginning the fight (initiative, the
order, the first round), declaring actions, ending turns and rounds, releasing held
damage, the end check, rulings, overrides, notes, undo and redo. The rule system (the
protocol in `combatlog.engine.protocol`, found by name in `combatlog.engine.registry`)
supplies the numbers and the actions.

Each kind of command has its type (`combatlog.engine.commands`) and one handler here, found
by the type: `_HANDLERS` (and `_WHOLE_STEPS` for undo, redo and a fork's record, and
`_create`). A command's fields are checked when it is read into its type; the handlers check
it against the encounter as it stands.

`decide` never writes anything: it returns the events, or raises Refused and nothing
happens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.engine import registry
from combatlog.engine.commands import (
    FORK_USAGE,
    KINDS,
    SEAT_USAGE,
    Act,
    Add,
    Begin,
    Contribute,
    Create,
    End,
    EndTurn,
    Fork,
    Note,
    Override,
    Redo,
    Remove,
    Reveal,
    Ruling,
    Seat,
    Seating,
    Surprise,
    SystemCommand,
    TypedCommand,
    Undo,
    View,
    help_of,
    kind_of,
    read,
    recorded,
    whole,
)
from combatlog.engine.dice import Dice, DiceError, DiceMismatch, NeedDice
from combatlog.engine.dicetree import MAX_DIGITS
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.fair import commitment
from combatlog.engine.protocol import ActionSpec, RuleSystem
from combatlog.engine.turns import advance, resolve_declared, start_round
from combatlog.events import (
    ActionDeclared,
    CombatantAdded,
    CombatantDefeated,
    CombatantRemoved,
    Command,
    ConditionApplied,
    ConditionRemoved,
    Contributed,
    DamageApplied,
    EncounterCreated,
    EncounterEnded,
    Event,
    Forked,
    GmOverride,
    GmRuling,
    Moved,
    ResolutionStarted,
    ResourceSpent,
    ResourcesSet,
    SeatingSet,
    SeatSet,
    SeedRevealed,
    StepAmended,
    StepRedone,
    StepUndone,
    SurpriseDetermined,
    TurnEnded,
    ViewSet,
)
from combatlog.events import Note as NoteEvent
from combatlog.projections import Combatant, Encounter, Projection

# every core kind and its help (its Struct's docstring: `combatlog.engine.commands`)
CORE_COMMANDS = {kind: help_of(cls) for kind, cls in KINDS.items()}


_AFTER_END = (Note, Ruling, View, Seat, Seating, Reveal)  # what may still be done when it's over


def rules_of(state: Encounter) -> RuleSystem:
    """The rule system the encounter was created under, as its recorded options choose it
    (`RuleSystem.variant`: Starflight's Simple Combat plays with a variant of Starflight).
    Raises KeyError (`MissingRuleSystem`) when that system isn't installed."""
    return registry.get(state.rules or "").variant(state.options)


def decide(
    view: Projection, command: Command | TypedCommand, dice: Dice, rules: RuleSystem | None = None
) -> list[Event]:
    """The events of carrying out `command` on `view` with `dice`; raises Refused if it can't be done.

    `command` is typed (`combatlog.engine.commands`), or recorded, and then read into its type
    first. The step number the events will get is `view.step + 1`.
    """
    decided = decided_step(view, command, dice, rules)
    return decided if isinstance(decided, list) else decided.events


def decided_step(
    view: Projection, command: Command | TypedCommand, dice: Dice, rules: RuleSystem | None = None
) -> Draft | list[Event]:
    """`decide`, keeping the Draft when there is one (its `state` is the state after the step,
    folded as it went); the events alone for a creation, an undo, a redo or a fork."""
    typed = command if isinstance(command, TypedCommand) else read(command)
    state = view.state
    if isinstance(typed, Create):
        return _create(view, typed)
    kind = type(typed)
    if state.rules is None:
        raise Refused(kind_of(typed), "there is no encounter yet", "create one first")
    if typed.amends is not None or typed.draws is not None:
        _check_amends(view, typed)
    entire = _WHOLE_STEPS.get(kind)
    if entire is not None:  # undo, redo, the record of a fork (in any phase, the end included)
        return entire(view, typed)
    if rules is None:
        rules = rules_of(state)
    if state.phase == "end" and kind not in _AFTER_END and kind_of(typed) not in rules.after_end:
        extra = ", or " + ", ".join(rules.after_end) if rules.after_end else ""
        raise Refused(
            kind_of(typed), f"the encounter is over ({state.outcome})", f"you can undo, add a note or a ruling{extra}"
        )
    draft = Draft(state, dice, rules, view.step + 1)
    if typed.amends is not None:
        draft.emit(StepAmended(step=typed.amends))
    try:
        _HANDLERS[kind](draft, typed)
    except DiceMismatch:
        raise  # a forged die in a log under audit: the audit's finding, not a refusal
    except DiceError as exc:
        refused = Refused(kind_of(typed), str(exc))
        refused.need = exc if isinstance(exc, NeedDice) else None
        raise refused from None
    return draft


# --- set-up ---------------------------------------------------------------------------


def _create(view: Projection, command: Create) -> list[Event]:
    if view.state.rules is not None or view.seq:
        raise Refused("create", "this log already holds an encounter", "start a new log")
    try:
        rules = registry.get(command.rules)
    except KeyError as exc:
        raise Refused("create", str(exc.args[0])) from None
    except registry.PluginError as exc:  # a plugin that breaks the protocol: what to change, in its line
        raise Refused("create", f"the rule system doesn't load: {exc}") from None
    options = rules.options(dict(command.options))
    if command.fair is not None:  # a Session turns it into a commitment to the secret it draws and keeps
        raise Refused(
            "create", "fair dice are committed by a session, which keeps their secret", "create it on a Session"
        )
    return [
        EncounterCreated(
            rules=rules.name,
            rules_version=rules.version,
            options=options,
            seed=command.seed,
            title=command.title,
            package=registry.package_of(rules.name),
            commitment=command.commitment,
            reveal_at_end=command.reveal_at_end,
        )
    ]


def _add(draft: Draft, command: Add) -> None:
    cid = command.id
    if cid in draft.state.combatants:
        raise Refused(f"add {cid}", "that id is taken", "choose another id")
    side = command.side
    if draft.state.phase == "surprise" and side not in draft.state.sides():
        raise Refused(
            f"add {cid}",
            f"the surprise was ruled before side {side!r} was there",
            "undo the ruling, add the new side's combatants, then rule again",
        )
    raw = command.stats
    too_big = _unusable_number(raw, "stats")
    if too_big is not None:  # a stat a roll can never take: refused here, not at the first roll
        where, number = too_big
        raise Refused(
            f"combatant {cid}: {where}",
            f"{number} is past {_MOST_A_STAT:,}, the most a number in a roll can be",
            "give a smaller number",
        )
    given = dict(raw)  # what the log records; the checks read the typed model
    try:
        stats = draft.rules.check_combatant(given, cid)
    except Refused as exc:
        if exc.what.startswith(f"combatant {cid}"):
            raise
        # a system's own check that didn't say who: the refusal names the combatant all the same
        what = f"combatant {cid}" if exc.what == "combatant" else f"combatant {cid}: {exc.what}"
        raise Refused(what, exc.why, exc.allowed) from None
    draft.rules.check_added(draft.state, stats, cid)
    name = command.name if command.name is not None else cid
    draft.emit(CombatantAdded(id=cid, name=name, side=side, kind=command.kind, group=command.group, stats=given))
    if command.hidden:  # in the same step: no viewer is ever told it joined
        draft.emit(ViewSet(combatant=cid, hidden=True, reveal=command.reveal))


MAX_PARAMS = 4096  # bytes of an action's parameters, as JSON
_MOST_A_STAT = 10**MAX_DIGITS - 1  # a roll's numbers have at most MAX_DIGITS digits


def _unusable_number(value: Any, where: str) -> tuple[str, int] | None:
    """The first whole number in `value` (a stats table, nested) too big for a roll, with its path."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (where, value) if abs(value) > _MOST_A_STAT else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _unusable_number(v, f"{where}.{k}")
            if found is not None:
                return found
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _unusable_number(v, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def _remove(draft: Draft, command: Remove) -> None:
    c = _combatant(draft.state, command.actor, "remove")
    if c.removed:
        raise Refused(f"remove {c.id}", "already removed")
    draft.emit(CombatantRemoved(id=c.id, reason=command.reason))
    if c.id in draft.state.acting:
        draft.emit(TurnEnded(actors=(c.id,)))
        if not draft.state.acting:
            advance(draft)


def _surprise(draft: Draft, command: Surprise) -> None:
    if draft.state.phase != "setup":
        raise Refused("surprise", f"surprise is ruled before the fight begins (phase is {draft.state.phase})")
    known = draft.state.sides()
    for s in command.sides:
        if s not in known:
            raise Refused(f"surprise {s!r}", "no such side", f"sides: {', '.join(known)}")
    sides = tuple(str(s) for s in command.sides)  # each one of the sides: its name, text
    draft.emit(GmRuling(topic="surprise", decision=list(sides), text=command.text))
    draft.emit(SurpriseDetermined(surprised=draft.rules.surprise(draft.state, sides), ruled_by=command.by))


def _begin(draft: Draft, command: Begin) -> None:
    state = draft.state
    if state.phase not in ("setup", "surprise"):
        raise Refused("begin", f"the fight has begun already (phase {state.phase})")
    standing = {c.side for c in state.active()}
    if len(standing) < 2:
        raise Refused("begin", "a fight needs combatants on at least two sides", "add combatants first")
    order = draft.turn_order
    order.roll(draft)
    start_round(draft, 0 if draft.state.surprised else 1, first=True)


def _act(draft: Draft, command: Act) -> None:
    state = draft.state
    rules = draft.rules
    if state.phase not in ("declare", "resolve") or not state.acting:
        raise Refused("act", f"no one is taking a turn (phase {state.phase})", "begin the fight first")
    actor = _combatant(state, command.actor, "act")
    if actor.id not in state.acting:
        who = ", ".join(state.combatants[a].name for a in state.acting)
        raise Refused(f"{actor.name} acts", "it is not their turn", f"it is {who}'s turn")
    spec = rules.action(state, actor, command.action)
    targets = _targets(state, actor, spec, command.targets)
    params = dict(command.params)
    size = len(msgspec.json.encode(params))
    if size > MAX_PARAMS:  # an action's parameters are a few words: nothing the size of a file is kept
        raise Refused(
            f"{actor.name}: {spec.name}",
            f"{size:,} bytes of parameters; an action takes at most {MAX_PARAMS:,}",
            "give the action's own parameters (weapon=axe, to=gallery)",
        )
    rules.check_params(state, actor, spec, params)  # one it doesn't take: refused, naming those it does
    if spec.check is not None:
        why = spec.check(state, actor, targets, params)
        if why:
            raise Refused(f"{actor.name}: {spec.name}", why)
    cost = rules.cost(state, actor, spec, params)
    if _short(cost, actor.resources):
        left = ", ".join(f"{k} {actor.resources.get(k, 0)}" for k in sorted(cost))
        can = ", ".join(s.name for s in rules.affordable(state, actor)) or "end the turn"
        raise Refused(f"{actor.name}: {spec.name}", f"costs {_fmt(cost)} but {left} left", f"can do: {can}")
    action_id = f"{draft.step}"
    players = state.players
    if players is not None and actor.id in players.reveal_on_act:  # its own action shows it, this step whole
        draft.emit(ViewSet(combatant=actor.id, hidden=False))
    draft.emit(
        ActionDeclared(
            id=action_id,
            actor=actor.id,
            action=spec.name,
            targets=targets,
            params=params,
            cost=cost,
            category=spec.category,
        )
    )
    for resource in sorted(cost):
        if cost[resource]:
            draft.emit(ResourceSpent(combatant=actor.id, resource=resource, amount=cost[resource]))
    rules.declared(draft, draft.state.pending[-1])
    timing = draft.timing
    if timing.immediate(spec.category):
        draft.emit(ResolutionStarted(category=spec.category))
        pending = draft.state.pending[-1]
        resolve_declared(draft, pending)
    order = draft.turn_order
    order.after_action(draft)
    state = draft.state
    if state.phase == "end":
        return
    if order.one_action_turns:
        # a turn under action points is one action: the actor yields to whoever leads now,
        # and may act again while they have points (yielding isn't passing)
        if state.acting:
            draft.emit(TurnEnded(actors=state.acting, yielded=True))
    elif actor.id in state.acting:
        me = state.combatants[actor.id]
        if not me.active or not rules.affordable(state, me):
            rules.turn_ending(draft, (actor.id,), command.params)
            if actor.id in draft.state.acting:
                draft.emit(TurnEnded(actors=(actor.id,)))
    advance(draft)


def _end_turn(draft: Draft, command: EndTurn) -> None:
    state = draft.state
    if not state.acting:
        raise Refused("end_turn", f"no one is taking a turn (phase {state.phase})")
    if command.actor is None:
        actors = state.acting
    else:
        actor = _combatant(state, command.actor, "end_turn")
        if actor.id not in state.acting:
            who = ", ".join(state.combatants[a].name for a in state.acting)
            raise Refused(f"{actor.name} ends the turn", "it is not their turn", f"it is {who}'s turn")
        actors = (actor.id,)
    draft.rules.turn_ending(draft, actors, command.params)
    draft.emit(TurnEnded(actors=actors))
    if not draft.state.acting:
        advance(draft)


# --- the game master ------------------------------------------------------------------


def _ruling(draft: Draft, command: Ruling) -> None:
    draft.emit(GmRuling(topic=command.topic, decision=command.decision, text=command.text))


def _note(draft: Draft, command: Note) -> None:
    draft.emit(NoteEvent(text=command.text, by=command.by))


def _view(draft: Draft, command: View) -> None:
    state = draft.state
    if command.odds is not None:
        draft.emit(ViewSet(odds=command.odds))
        return
    side, hp, who = command.side, command.hp, command.combatant
    if side is not None:
        if side not in state.sides():
            raise Refused(f"view side={side!r}", "no such side", f"sides: {', '.join(state.sides()) or 'none yet'}")
        draft.emit(ViewSet(side=str(side), hp=hp))
        return
    assert who is not None  # one of side and combatant: the command's own check
    _combatant(state, who, "view")
    if hp is not None:
        draft.emit(ViewSet(combatant=who, hp=hp))
        return
    draft.emit(ViewSet(combatant=who, hidden=command.hidden, reveal=command.reveal))


def _seat(draft: Draft, command: Seat) -> None:
    state = draft.state
    sid = command.seat
    seats = state.seating.seats if state.seating is not None else {}
    now = seats.get(sid)
    if command.revoke:
        if now is None:
            raise Refused(f"seat {sid}", "no such seat", "seats: " + (", ".join(seats) or "none yet"))
        draft.emit(SeatSet(seat=sid, revoked=True, generation=now.generation))
        return
    given = command.combatants if command.combatants is not None else now.combatants if now is not None else ()
    ids = tuple(dict.fromkeys(x for x in given if x))
    if not ids:
        raise Refused(f"seat {sid}", "a seat commands at least one combatant", SEAT_USAGE)
    for cid in ids:
        _combatant(state, cid, f"seat {sid}")
    name = command.name if command.name is not None else now.name if now is not None else sid
    name = name.strip()[:64] or sid
    generation = (now.generation + (1 if command.renew else 0)) if now is not None else 1
    draft.emit(SeatSet(seat=sid, name=name, combatants=ids, generation=generation))


def _seating(draft: Draft, command: Seating) -> None:
    seating = draft.state.seating
    commands = command.commands if command.commands is not None else seating.commands if seating is not None else "now"
    undo = command.undo if command.undo is not None else seating.undo if seating is not None else False
    draft.emit(SeatingSet(commands=commands, undo=undo))


def _contribute(draft: Draft, command: Contribute) -> None:
    state = draft.state
    fair = state.fair
    if fair is None:
        raise Refused("contribute", "this encounter's dice aren't committed", "contributions are for a fair encounter")
    if fair.seed is not None:
        raise Refused("contribute", "the seed is revealed already")
    if state.phase not in ("setup", "surprise"):
        raise Refused("contribute", f"the fight has begun (phase {state.phase})", "contributions come before `begin`")
    if command.by in ("gm", "policy", ""):
        raise Refused(
            "contribute", "a contribution is a player's, and gives nothing if the game master makes it", "give by=SEAT"
        )
    if any(c.by == command.by for c in fair.contributions):
        raise Refused("contribute", f"{command.by} has contributed already", "one contribution each")
    draft.emit(Contributed(by=command.by, value=command.value))


def _reveal(draft: Draft, command: Reveal) -> None:
    state = draft.state
    fair = state.fair
    if fair is None:
        raise Refused("reveal", "this encounter's dice aren't committed: there is nothing to reveal")
    if fair.seed is not None:
        raise Refused("reveal", "the seed is revealed already")
    if state.phase != "end" and not command.early:
        raise Refused(
            "reveal",
            "the fight goes on, and once the seed is out anyone can foretell the engine's dice",
            "end the fight first, or give early=true",
        )
    seed, nonce = command.seed, command.nonce
    if seed is None or nonce is None:
        raise Refused(
            "reveal", "give the seed (a whole number) and the nonce", "the game master's secret file holds them"
        )
    if commitment(seed, nonce) != fair.commitment:
        raise Refused("reveal", "that seed and nonce don't match the commitment", "give the ones the secret file holds")
    draft.emit(SeedRevealed(seed=seed, nonce=nonce))


def _end(draft: Draft, command: End) -> None:
    winner = command.winner
    if winner is not None and winner not in draft.state.sides():
        raise Refused(f"end: winner {winner!r}", "no such side", f"sides: {', '.join(draft.state.sides())}")
    draft.emit(EncounterEnded(outcome=command.outcome, winner=None if winner is None else str(winner)))


def _override(draft: Draft, command: Override) -> None:
    if draft.state.phase in ("setup", "surprise") and command.effects() != ["move"]:
        # placing combatants before the fight is the game master's to do; outcomes come later
        raise Refused(
            "override",
            f"there is no outcome to override before the fight begins (phase {draft.state.phase})",
            "place combatants with a move override; change stats with remove and add, or begin first",
        )
    try:
        _override_effects(draft, command)
    except (KeyError, ValueError, TypeError, OverflowError) as exc:
        raise Refused(
            "override",
            f"a field is missing or of the wrong kind ({exc})",
            "damage needs target and amount; condition and remove_condition target and name; "
            "defeat target; move target and to; resources target and values",
        ) from None


def _override_effects(draft: Draft, command: Override) -> None:
    state = draft.state
    reason = command.reason
    effects = command.effects()
    draft.emit(GmOverride(reason=reason, subject=", ".join(effects), value={k: getattr(command, k) for k in effects}))
    for key, v in command.each():
        target = _combatant(state, v["target"], f"override {key}").id
        if key == "damage":
            amount = v.get("amount", 0)
            if isinstance(amount, str) and not whole(amount):  # dice: rolled as any roll is
                name = state.combatants[target].name
                purpose = f"{'healing' if v.get('heal') else 'damage'} to {name} (game master)"
                amount = draft.roll(amount, purpose).total
            amount = int(amount)
            if v.get("heal") is True:  # healing gives back what was lost, never past the maximum
                lost = draft.state.combatants[target].damage if v.get("location") is None else abs(amount)
                amount = -min(abs(amount), max(lost, 0))
            draft.emit(
                DamageApplied(
                    target=target,
                    amount=amount,
                    location=v.get("location"),
                    kind=v.get("kind"),
                    source="gm",
                )
            )
            draft.rules.after_damage(draft, target)
        elif key == "condition":
            ends = v.get("ends")
            if ends not in (None, "bearer_turn", "source_turn"):
                raise Refused(f"override condition ends={ends!r}", "not a turn it can last until", "bearer_turn")
            draft.emit(
                ConditionApplied(
                    target=target,
                    condition=str(v["name"]),
                    duration=v.get("duration"),
                    source=str(v.get("source", "gm")),
                    ends=ends,
                )
            )
            draft.rules.after_condition(draft, target, str(v["name"]))
        elif key == "remove_condition":
            draft.emit(ConditionRemoved(target=target, condition=str(v["name"]), reason=reason))
        elif key == "defeat":
            draft.emit(CombatantDefeated(combatant=target, how=str(v.get("how", "defeated"))))
        elif key == "move":
            to = str(v["to"])
            why = draft.rules.place_problem(state, to)
            if why:  # a place the system can't read would break a later step
                raise Refused(f"override move {target}", why)
            draft.emit(Moved(combatant=target, to=to, distance=int(v.get("distance", 0))))
        elif key == "resources":
            draft.emit(ResourcesSet(combatant=target, resources={k: int(x) for k, x in v["values"].items()}))


# --- undo and redo --------------------------------------------------------------------


def _undo(view: Projection, command: TypedCommand | None = None) -> list[Event]:
    if not view.undo:
        raise Refused("undo", "there is nothing to undo")
    step = view.undo[-1]
    if step == 1:  # a log's first step is always the encounter's creation
        raise Refused("undo", "the encounter's creation can't be undone", "start a new log instead")
    return [StepUndone(step=step)]


def _redo(view: Projection, command: TypedCommand | None = None) -> list[Event]:
    if not view.redo:
        raise Refused("redo", "there is nothing to redo", "redo works right after an undo, before a new command")
    return [StepRedone(step=view.redo[-1])]


# --- amendments ----------------------------------------------------------------------


def _check_amends(view: Projection, command: TypedCommand) -> None:
    """Refuse a command of an amendment (`Command.amends`, `Command.draws`) that can't stand where
    it is: both are past steps that don't count now (undone), and the draws are the amended
    step's or an earlier step's, never a later one's. `combatlog.replays.amend` writes them."""
    kind = kind_of(command)
    what = f"{kind} in place of step {command.amends}"
    if isinstance(command, Create | Undo | Redo | Fork):
        raise Refused(what, f"a {kind} step is never decided in place of another")
    amends, draws = command.amends, command.draws
    if not isinstance(amends, int) or not isinstance(draws, int) or isinstance(amends, bool) or isinstance(draws, bool):
        raise Refused(what, "an amendment's step names both the step it amends and the step whose draws it takes")
    if not 2 <= draws <= amends <= view.step:
        raise Refused(
            what,
            f"takes the draws of step {draws}: a step from 2 up to the one amended, and that step before this one",
        )
    for number, role in ((amends, "amended"), (draws, "whose draws it takes")):
        if number in view.undo:
            raise Refused(what, f"step {number} ({role}) still counts", "undo it first: `combatlog amend` does")


# --- forks ----------------------------------------------------------------------------


def _fork(view: Projection, command: Fork) -> list[Event]:
    """A fork's record: right after the lines it copied (seq `at`, this log's last line so far),
    naming its parent's head."""
    at, parent_seq = command.at, command.parent_seq
    if at != view.seq:
        raise Refused(
            "fork", f"the record of a fork at seq {at} comes right after it, and this log ends at seq {view.seq}"
        )
    if parent_seq < at:
        raise Refused("fork", f"the parent's head (seq {parent_seq}) is before the fork's seq {at}", FORK_USAGE)
    return [Forked(at=at, parent_seq=parent_seq, parent_digest=command.parent_digest)]


def _system(draft: Draft, command: SystemCommand) -> None:
    """A rule system's own command, decided by the system (which reads it as recorded)."""
    rules = draft.rules
    if command.kind not in rules.commands:
        known = ", ".join(list(CORE_COMMANDS) + list(rules.commands))
        raise Refused(f"command {command.kind!r}", "unknown command", f"commands: {known}")
    rules.command(draft, recorded(command))


# --- helpers --------------------------------------------------------------------------


def _combatant(state: Encounter, cid: str | None, what: str) -> Combatant:
    if not cid:
        raise Refused(what, "name a combatant", "ids: " + ", ".join(state.combatants))
    c = state.combatants.get(cid)
    if c is None:
        raise Refused(f"{what} {cid!r}", "no such combatant", "ids: " + (", ".join(state.combatants) or "none"))
    return c


def _targets(state: Encounter, actor: Combatant, spec: ActionSpec, given: tuple[str, ...]) -> tuple[str, ...]:
    if spec.targets == "none":
        if given:
            raise Refused(f"{actor.name}: {spec.name}", "takes no target")
        return ()
    if spec.targets == "self":
        if given and tuple(given) != (actor.id,):
            raise Refused(f"{actor.name}: {spec.name}", "targets only the one who takes it", "give no target")
        return (actor.id,)
    if not spec.min_targets <= len(given) <= spec.max_targets:
        n = str(spec.min_targets) if spec.min_targets == spec.max_targets else f"{spec.min_targets}-{spec.max_targets}"
        raise Refused(
            f"{actor.name}: {spec.name}",
            f"needs {n} target(s), {len(given)} given",
            "targets: " + ", ".join(_candidates(state, actor, spec)),
        )
    for t in given:
        c = state.combatants.get(t)
        if c is None or not _eligible(c, actor, spec):
            raise Refused(
                f"{actor.name}: {spec.name} at {t!r}",
                "not a valid target",
                "targets: " + (", ".join(_candidates(state, actor, spec)) or "none"),
            )
    return tuple(given)


def _candidates(state: Encounter, actor: Combatant, spec: ActionSpec) -> list[str]:
    return [c.id for c in state.combatants.values() if _eligible(c, actor, spec)]


def _eligible(c: Combatant, actor: Combatant, spec: ActionSpec) -> bool:
    """True when `c` may be a target of `actor`'s `spec` (one of `_candidates`): in the fight, or
    down (defeated, not removed) for a spec that says `targets_down_ok`."""
    if c.removed or (c.defeated is not None and not spec.targets_down_ok):
        return False
    if spec.targets == "enemy":
        return c.side != actor.side
    return spec.targets != "ally" or c.side == actor.side


def _short(cost: dict[str, int], resources: dict[str, int]) -> bool:
    """True when `resources` fall short of `cost` (a loop, not any(): every action asks)."""
    for resource, amount in cost.items():  # noqa: SIM110
        if resources.get(resource, 0) < amount:
            return True
    return False


def _fmt(cost: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in sorted(cost.items())) or "nothing"


# what decides each kind: in a draft, a step of the fight ...
_HANDLERS: dict[type, Callable[[Draft, Any], None]] = {
    Add: _add,
    Remove: _remove,
    Surprise: _surprise,
    Begin: _begin,
    Act: _act,
    EndTurn: _end_turn,
    Ruling: _ruling,
    Override: _override,
    Note: _note,
    View: _view,
    Seat: _seat,
    Seating: _seating,
    End: _end,
    Contribute: _contribute,
    Reveal: _reveal,
    SystemCommand: _system,
}
# ... or whole, in any phase, without a draft (a creation is decided before there are rules)
_WHOLE_STEPS: dict[type, Callable[[Projection, Any], list[Event]]] = {Undo: _undo, Redo: _redo, Fork: _fork}
HANDLED = (Create, *_HANDLERS, *_WHOLE_STEPS)  # every type decide takes


def legal_commands(view: Projection) -> list[str]:
    """The command kinds that make sense now (for prompts and help)."""
    state = view.state
    if state.rules is None:
        return ["create"]
    out = []
    if state.phase == "end":
        out = ["note", "ruling", "view"]
    elif state.phase in ("setup", "surprise"):
        out = ["add", "remove", "begin", "note", "ruling", "view", "override", "end"]
        if state.phase == "setup":
            out.insert(2, "surprise")
        if state.fair is not None and state.fair.seed is None:
            out.append("contribute")
    else:
        out = ["act", "end_turn", "add", "remove", "note", "ruling", "view", "override", "end"]
    if state.fair is not None and state.fair.seed is None and (state.phase == "end"):
        out.append("reveal")
    if view.undo:
        try:
            _undo(view)
            out.append("undo")
        except Refused:
            pass
    if view.redo:
        out.append("redo")
    return out
