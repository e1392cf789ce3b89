"""decide: what happens if a command is carried out now, as a list of events.

The procedure common to every rule system lives here: creating the encounter, adding
combatants, the game master's surprise ruling, beginning the fight (initiative, the
order, the first round), declaring actions, ending turns and rounds, releasing held
damage, the end check, rulings, overrides, notes, undo and redo. The rule system (the
protocol in `combatlog.engine.protocol`, found by name in `combatlog.engine.registry`)
supplies the numbers and the actions.

`decide` never writes anything: it returns the events, or raises Refused and nothing
happens.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.engine import registry
from combatlog.engine.dice import Dice, DiceError, DiceMismatch, parse
from combatlog.engine.dicetree import MAX_DIGITS
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.fair import commitment, contribution_problem, is_commitment
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
    Note,
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
from combatlog.projections import HP_SHOWN, Combatant, Encounter, Projection

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

CORE_COMMANDS = {
    "create": "create the encounter (params: rules, options, seed, title; or commitment, reveal_at_end: "
    "fair dice, which a session makes of fair=true|end)",
    "add": "add a combatant (params: id, name, side, kind, group, stats; hidden=true: hidden from the players)",
    "remove": "take a combatant out of the encounter (actor)",
    "surprise": "the game master's surprise ruling (params: sides = the sides surprised)",
    "begin": "roll initiative and start the first round",
    "act": "declare an action (actor, action, targets, params)",
    "end_turn": "end a turn (actor; all who are acting if omitted)",
    "ruling": "record a game-master ruling (params: topic, decision, text)",
    "override": "override an outcome (params: reason and damage/condition/remove_condition/defeat/move/resources)",
    "note": "add a note (params: text)",
    "view": "what the players' view shows (params: side or combatant, hp = exact|level|hidden; "
    "or combatant, hidden = true|false, reveal = act)",
    "seat": "a player's seat: the combatants its own link commands (params: seat, combatants, name, renew, revoke)",
    "seating": "how the seats' commands are taken (params: commands = now|queue, undo = true|false)",
    "end": "end the encounter (params: outcome, winner)",
    "contribute": "a player's own random contribution to a fair encounter's dice, before it begins "
    "(params: value; by: the player's seat)",
    "reveal": "reveal a fair encounter's seed and nonce, once it is over (params: seed, nonce, which the "
    "game master's session fills in; early=true: before the end)",
    "fork": "record that this log is a fork of another (params: at, parent_seq, parent_digest); "
    "`combatlog fork` writes it",
    "undo": "undo the last step",
    "redo": "redo the last undone step",
}


_AFTER_END = ("note", "ruling", "view", "seat", "seating", "reveal")  # what may still be done when it's over
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


def rules_of(state: Encounter) -> RuleSystem:
    """The rule system the encounter was created under, as its recorded options choose it
    (`RuleSystem.variant`: Starflight's Simple Combat plays with a variant of Starflight).
    Raises KeyError (`MissingRuleSystem`) when that system isn't installed."""
    return registry.get(state.rules or "").variant(state.options)


def decide(view: Projection, command: Command, dice: Dice, rules: RuleSystem | None = None) -> list[Event]:
    """The events of carrying out `command` on `view` with `dice`; raises Refused if it can't be done.

    The step number the events will get is `view.step + 1`.
    """
    decided = decided_step(view, command, dice, rules)
    return decided if isinstance(decided, list) else decided.events


def decided_step(
    view: Projection, command: Command, dice: Dice, rules: RuleSystem | None = None
) -> Draft | list[Event]:
    """`decide`, keeping the Draft when there is one (its `state` is the state after the step,
    folded as it went); the events alone for a creation, an undo or a redo."""
    state = view.state
    kind = command.kind
    step = view.step + 1
    if kind == "create":
        return _create(view, command)
    if state.rules is None:
        raise Refused(f"{kind}", "there is no encounter yet", "create one first")
    if command.amends is not None or command.draws is not None:
        _check_amends(view, command)
    if kind == "undo":
        return _undo(view)
    if kind == "redo":
        return _redo(view)
    if kind == "fork":  # the record of where the log's lines came from: in any phase, the end included
        return _fork(view, command)
    if rules is None:
        rules = rules_of(state)
    if state.phase == "end" and kind not in _AFTER_END and kind not in rules.after_end:
        extra = ", or " + ", ".join(rules.after_end) if rules.after_end else ""
        raise Refused(kind, f"the encounter is over ({state.outcome})", f"you can undo, add a note or a ruling{extra}")
    draft = Draft(state, dice, rules, step)
    if command.amends is not None:
        draft.emit(StepAmended(step=command.amends))
    handler = _COMMANDS.get(kind)
    try:
        if handler is not None:
            handler(draft, command)
        elif kind in rules.commands:
            rules.command(draft, command)
        else:
            known = ", ".join(list(CORE_COMMANDS) + list(rules.commands))
            raise Refused(f"command {kind!r}", "unknown command", f"commands: {known}")
    except DiceMismatch:
        raise  # a forged die in a log under audit: the audit's finding, not a refusal
    except DiceError as exc:
        raise Refused(kind, str(exc)) from None
    return draft


# --- set-up ---------------------------------------------------------------------------


def _create(view: Projection, command: Command) -> list[Event]:
    if view.state.rules is not None or view.seq:
        raise Refused("create", "this log already holds an encounter", "start a new log")
    p = command.params
    try:
        rules = registry.get(str(p.get("rules", "")))
    except KeyError as exc:
        raise Refused("create", str(exc.args[0])) from None
    except registry.PluginError as exc:  # a plugin that breaks the protocol: what to change, in its line
        raise Refused("create", f"the rule system doesn't load: {exc}") from None
    options = rules.options(dict(p.get("options", {})))
    seed = p.get("seed")
    if seed is not None and not isinstance(seed, int):
        raise Refused("create", f"seed {seed!r} is not a whole number", "give an integer seed")
    if "fair" in p:  # a Session turns it into a commitment to the secret it draws and keeps
        raise Refused(
            "create", "fair dice are committed by a session, which keeps their secret", "create it on a Session"
        )
    committed = p.get("commitment")
    if committed is not None:
        if not is_commitment(committed):
            raise Refused("create", f"commitment {str(committed)[:20]!r} is not 64 lowercase hex digits")
        if seed is not None:
            raise Refused("create", "a fair encounter records a commitment, never its seed", "give one of them")
    reveal_at_end = p.get("reveal_at_end", False)
    if not isinstance(reveal_at_end, bool) or (reveal_at_end and committed is None):
        raise Refused("create", "reveal_at_end is true or false, and only with a commitment")
    return [
        EncounterCreated(
            rules=rules.name,
            rules_version=rules.version,
            options=options,
            seed=seed,
            title=str(p.get("title", "")),
            package=registry.package_of(rules.name),
            commitment=committed,
            reveal_at_end=reveal_at_end,
        )
    ]


def _add(draft: Draft, command: Command) -> None:
    p = command.params
    cid = str(p.get("id", ""))
    if not _ID.match(cid):
        raise Refused(f"add {cid!r}", "an id is 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
    if cid in draft.state.combatants:
        raise Refused(f"add {cid}", "that id is taken", "choose another id")
    kind = p.get("kind", "npc")
    if kind not in ("pc", "npc"):
        raise Refused(f"add {cid}", f"kind {kind!r} is neither pc nor npc")
    side = p.get("side")
    if not side:
        raise Refused(f"add {cid}", "a combatant needs a side")
    if draft.state.phase == "surprise" and side not in draft.state.sides():
        raise Refused(
            f"add {cid}",
            f"the surprise was ruled before side {side!r} was there",
            "undo the ruling, add the new side's combatants, then rule again",
        )
    raw = p.get("stats", {})
    if not isinstance(raw, dict):
        raise Refused(f"add {cid}", f"stats must be a table of names and values, not {type(raw).__name__}")
    too_big = _unusable_number(raw, "stats")
    if too_big is not None:  # a stat a roll can never take: refused here, not at the first roll
        where, number = too_big
        raise Refused(
            f"combatant {cid}: {where}",
            f"{number} is past {_MOST_A_STAT:,}, the most a number in a roll can be",
            "give a smaller number",
        )
    try:
        stats = draft.rules.check_combatant(dict(raw), cid)
    except Refused as exc:
        if exc.what.startswith(f"combatant {cid}"):
            raise
        # a system's own check that didn't say who: the refusal names the combatant all the same
        what = f"combatant {cid}" if exc.what == "combatant" else f"combatant {cid}: {exc.what}"
        raise Refused(what, exc.why, exc.allowed) from None
    draft.rules.check_added(draft.state, stats, cid)
    hidden = p.get("hidden")
    if hidden is not None and not isinstance(hidden, bool):
        raise Refused(f"add {cid}: hidden={hidden!r}", "hidden is true or false")
    draft.emit(
        CombatantAdded(
            id=cid, name=str(p.get("name", cid)), side=str(side), kind=kind, group=p.get("group"), stats=stats
        )
    )
    if hidden:  # in the same step: no viewer is ever told it joined
        draft.emit(ViewSet(combatant=cid, hidden=True, reveal="act" if p.get("reveal") == "act" else None))


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


def _remove(draft: Draft, command: Command) -> None:
    c = _combatant(draft.state, command.actor, "remove")
    if c.removed:
        raise Refused(f"remove {c.id}", "already removed")
    draft.emit(CombatantRemoved(id=c.id, reason=str(command.params.get("reason", ""))))
    if c.id in draft.state.acting:
        draft.emit(TurnEnded(actors=(c.id,)))
        if not draft.state.acting:
            advance(draft)


def _surprise(draft: Draft, command: Command) -> None:
    if draft.state.phase != "setup":
        raise Refused("surprise", f"surprise is ruled before the fight begins (phase is {draft.state.phase})")
    sides = tuple(command.params.get("sides", ()))
    known = draft.state.sides()
    for s in sides:
        if s not in known:
            raise Refused(f"surprise {s!r}", "no such side", f"sides: {', '.join(known)}")
    draft.emit(GmRuling(topic="surprise", decision=list(sides), text=str(command.params.get("text", ""))))
    draft.emit(SurpriseDetermined(surprised=draft.rules.surprise(draft.state, sides), ruled_by=command.by))


def _begin(draft: Draft, command: Command) -> None:
    state = draft.state
    if state.phase not in ("setup", "surprise"):
        raise Refused("begin", f"the fight has begun already (phase {state.phase})")
    standing = {c.side for c in state.active()}
    if len(standing) < 2:
        raise Refused("begin", "a fight needs combatants on at least two sides", "add combatants first")
    order = draft.turn_order
    order.roll(draft)
    start_round(draft, 0 if draft.state.surprised else 1, first=True)


def _act(draft: Draft, command: Command) -> None:
    state = draft.state
    rules = draft.rules
    if state.phase not in ("declare", "resolve") or not state.acting:
        raise Refused("act", f"no one is taking a turn (phase {state.phase})", "begin the fight first")
    actor = _combatant(state, command.actor, "act")
    if actor.id not in state.acting:
        who = ", ".join(state.combatants[a].name for a in state.acting)
        raise Refused(f"{actor.name} acts", "it is not their turn", f"it is {who}'s turn")
    spec = rules.action(state, actor, command.action or "")
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


def _end_turn(draft: Draft, command: Command) -> None:
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


def _ruling(draft: Draft, command: Command) -> None:
    p = command.params
    if not p.get("topic"):
        raise Refused("ruling", "a ruling needs a topic", "give params topic and decision")
    draft.emit(GmRuling(topic=str(p["topic"]), decision=p.get("decision"), text=str(p.get("text", ""))))


def _note(draft: Draft, command: Command) -> None:
    text = str(command.params.get("text", "")).strip()
    if not text:
        raise Refused("note", "the note is empty")
    draft.emit(Note(text=text, by=command.by))


_VIEW_USAGE = (
    "give side=SIDE hp=exact|level|hidden, combatant=ID hp=exact|level|hidden, "
    "combatant=ID hidden=true|false (with reveal=act: its own next action shows it), or odds=true|false"
)
_HP_ALIASES = {"levels": "level", "none": "hidden"}


def _view(draft: Draft, command: Command) -> None:
    p = command.params
    state = draft.state
    side, hp, who, hidden, reveal = p.get("side"), p.get("hp"), p.get("combatant"), p.get("hidden"), p.get("reveal")
    unknown = sorted(k for k in p if k not in ("side", "hp", "combatant", "hidden", "reveal", "odds"))
    if unknown:
        raise Refused(f"view {unknown[0]}=", "not a setting of the players' view", _VIEW_USAGE)
    if "odds" in p:
        if len(p) != 1 or not isinstance(p["odds"], bool):
            raise Refused("view odds=", "odds is true or false, set on its own", "give odds=true|false")
        draft.emit(ViewSet(odds=p["odds"]))
        return
    if (
        (side is None) == (who is None)
        or (side is not None and (hp is None or hidden is not None))
        or (who is not None and (hp is None) == (hidden is None))
    ):
        raise Refused("view", "say what the players see", _VIEW_USAGE)
    if hp is not None:
        hp = _HP_ALIASES.get(str(hp), hp)
        if hp not in HP_SHOWN:
            raise Refused(f"view hp={hp!r}", "not a way to show health", "use exact, level or hidden (none)")
    if reveal is not None and (reveal != "act" or hidden is not True):
        raise Refused(f"view reveal={reveal!r}", "reveal=act goes with hidden=true", _VIEW_USAGE)
    if side is not None:
        if side not in state.sides():
            raise Refused(f"view side={side!r}", "no such side", f"sides: {', '.join(state.sides()) or 'none yet'}")
        draft.emit(ViewSet(side=str(side), hp=str(hp)))
        return
    _combatant(state, str(who), "view")
    if hp is not None:
        draft.emit(ViewSet(combatant=str(who), hp=str(hp)))
        return
    if not isinstance(hidden, bool):
        raise Refused(f"view hidden={hidden!r}", "hidden is true or false")
    draft.emit(ViewSet(combatant=str(who), hidden=hidden, reveal="act" if reveal == "act" else None))


_SEAT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_SEAT_USAGE = "give seat=ID combatants=ID,ID (name=NAME optional; renew=true for a new link; revoke=true to close it)"


def _seat(draft: Draft, command: Command) -> None:
    p = command.params
    state = draft.state
    unknown = sorted(k for k in p if k not in ("seat", "name", "combatants", "renew", "revoke"))
    if unknown:
        raise Refused(f"seat {unknown[0]}=", "not a setting of a seat", _SEAT_USAGE)
    sid = str(p.get("seat", ""))
    if not _SEAT_ID.match(sid):
        raise Refused(f"seat {sid[:40]!r}", "a seat's id is 1-32 letters, digits, '_' or '-'", _SEAT_USAGE)
    seats = state.seating.seats if state.seating is not None else {}
    now = seats.get(sid)
    if p.get("revoke") is True:
        if now is None:
            raise Refused(f"seat {sid}", "no such seat", "seats: " + (", ".join(seats) or "none yet"))
        draft.emit(SeatSet(seat=sid, revoked=True, generation=now.generation))
        return
    raw = p.get("combatants", now.combatants if now is not None else ())
    given = [x.strip() for x in raw.split(",")] if isinstance(raw, str) else raw
    if not isinstance(given, (list, tuple)) or not all(isinstance(x, str) for x in given):
        raise Refused(f"seat {sid}", "combatants is a list of ids", _SEAT_USAGE)
    ids = tuple(dict.fromkeys(x for x in given if x))
    if not ids:
        raise Refused(f"seat {sid}", "a seat commands at least one combatant", _SEAT_USAGE)
    for cid in ids:
        _combatant(state, cid, f"seat {sid}")
    name = str(p.get("name", now.name if now is not None else sid)).strip()[:64] or sid
    generation = (now.generation + (1 if p.get("renew") is True else 0)) if now is not None else 1
    draft.emit(SeatSet(seat=sid, name=name, combatants=ids, generation=generation))


def _seating(draft: Draft, command: Command) -> None:
    p = command.params
    unknown = sorted(k for k in p if k not in ("commands", "undo"))
    seating = draft.state.seating
    commands = p.get("commands", seating.commands if seating is not None else "now")
    undo = p.get("undo", seating.undo if seating is not None else False)
    if unknown or commands not in ("now", "queue") or not isinstance(undo, bool):
        raise Refused(
            "seating",
            "say how the seats' commands are taken",
            "give commands=now|queue (a queue waits for the game master) and undo=true|false",
        )
    draft.emit(SeatingSet(commands=str(commands), undo=undo))


def _contribute(draft: Draft, command: Command) -> None:
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
    value = command.params.get("value")
    why = contribution_problem(value)
    if why is not None:
        raise Refused("contribute", why, "give value=TEXT")
    if any(c.by == command.by for c in fair.contributions):
        raise Refused("contribute", f"{command.by} has contributed already", "one contribution each")
    draft.emit(Contributed(by=command.by, value=str(value)))


def _reveal(draft: Draft, command: Command) -> None:
    state = draft.state
    fair = state.fair
    if fair is None:
        raise Refused("reveal", "this encounter's dice aren't committed: there is nothing to reveal")
    if fair.seed is not None:
        raise Refused("reveal", "the seed is revealed already")
    p = command.params
    if state.phase != "end" and p.get("early") is not True:
        raise Refused(
            "reveal",
            "the fight goes on, and once the seed is out anyone can foretell the engine's dice",
            "end the fight first, or give early=true",
        )
    seed, nonce = p.get("seed"), p.get("nonce")
    if isinstance(seed, bool) or not isinstance(seed, int) or not isinstance(nonce, str):
        raise Refused(
            "reveal", "give the seed (a whole number) and the nonce", "the game master's secret file holds them"
        )
    if commitment(seed, nonce) != fair.commitment:
        raise Refused("reveal", "that seed and nonce don't match the commitment", "give the ones the secret file holds")
    draft.emit(SeedRevealed(seed=seed, nonce=nonce))


def _end(draft: Draft, command: Command) -> None:
    p = command.params
    winner = p.get("winner")
    if winner is not None and winner not in draft.state.sides():
        raise Refused(f"end: winner {winner!r}", "no such side", f"sides: {', '.join(draft.state.sides())}")
    draft.emit(EncounterEnded(outcome=str(p.get("outcome", "ended by the game master")), winner=winner))


_OVERRIDES = ("damage", "condition", "remove_condition", "defeat", "move", "resources")


def _override(draft: Draft, command: Command) -> None:
    p = dict(command.params)
    reason = str(p.pop("reason", "")).strip()
    if not reason:
        raise Refused("override", "an override needs a reason", "give params reason")
    effects = [k for k in _OVERRIDES if k in p]
    unknown = [k for k in p if k not in _OVERRIDES]
    if unknown or not effects:
        raise Refused(
            "override",
            f"nothing to override{' with ' + ', '.join(unknown) if unknown else ''}",
            "give one of " + ", ".join(_OVERRIDES),
        )
    if draft.state.phase in ("setup", "surprise") and effects != ["move"]:
        # placing combatants before the fight is the game master's to do; outcomes come later
        raise Refused(
            "override",
            f"there is no outcome to override before the fight begins (phase {draft.state.phase})",
            "place combatants with a move override; change stats with remove and add, or begin first",
        )
    for key in effects:  # each effect's fields by kind, before anything is decided
        for one in p[key] if isinstance(p[key], list) and p[key] else [p[key]]:
            _check_effect(key, one)
    try:
        _override_effects(draft, reason, effects, p)
    except (KeyError, ValueError, TypeError, OverflowError) as exc:
        raise Refused(
            "override",
            f"a field is missing or of the wrong kind ({exc})",
            "damage needs target and amount; condition and remove_condition target and name; "
            "defeat target; move target and to; resources target and values",
        ) from None


# what each override takes: its fields, and what a value of each must be (read as the deciding reads it)
_EFFECT_USAGE = {
    "damage": 'damage={"target": ID, "amount": N or DICE} (heal, location, kind optional; a list for several)',
    "condition": 'condition={"target": ID, "name": NAME} (duration, source, ends optional)',
    "remove_condition": 'remove_condition={"target": ID, "name": NAME}',
    "defeat": 'defeat={"target": ID} (how optional)',
    "move": 'move={"target": ID, "to": PLACE} (distance optional)',
    "resources": 'resources={"target": ID, "values": {"ap": 2}}',
}
_NEEDS = {
    "damage": ("target",),
    "condition": ("target", "name"),
    "remove_condition": ("target", "name"),
    "defeat": ("target",),
    "move": ("target", "to"),
    "resources": ("target", "values"),
}


def _whole(x: Any) -> bool:
    """True for what `int()` reads as a whole number the log can hold (not a bool, a list, a table)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, str)):
        return False
    try:
        return abs(int(x)) < 2**63
    except (ValueError, OverflowError):
        return False


def _check_effect(key: str, v: Any) -> None:
    """Refuse, in one line naming the effect and the field, an override's value of the wrong shape."""
    usage = "give " + _EFFECT_USAGE[key]
    if not isinstance(v, dict):
        raise Refused(f"override {key}", f"a mapping of its fields, not {type(v).__name__}", usage)
    for name in _NEEDS[key]:
        if name not in v:
            raise Refused(f"override {key}", f"{name} is missing", usage)
    if not isinstance(v["target"], str):
        raise Refused(f"override {key}", f"target is a combatant's id, not {type(v['target']).__name__}", usage)
    if "distance" in v and not _whole(v["distance"]):
        raise Refused(f"override {key}", f"distance {str(v['distance'])[:20]!r} is not a whole number", usage)
    if "amount" in v and not _whole(v["amount"]):
        amount = v["amount"]
        if not isinstance(amount, str):
            raise Refused(f"override {key}", f"amount {str(amount)[:20]!r} is not a whole number", usage)
        try:
            parse(amount)  # a dice expression the engine rolls (or the table's dice are typed for)
        except DiceError as exc:
            raise Refused(f"override {key}", f"amount {amount[:20]!r} is neither a number nor dice ({exc})") from None
    if "heal" in v and not isinstance(v["heal"], bool):
        raise Refused(f"override {key}", "heal is true or false", usage)
    if key == "resources":
        values = v["values"]
        if not isinstance(values, dict) or not all(isinstance(k, str) and _whole(x) for k, x in values.items()):
            raise Refused(f"override {key}", "values is a mapping of resource names to whole numbers", usage)


def _override_effects(draft: Draft, reason: str, effects: list[str], p: dict[str, Any]) -> None:
    state = draft.state
    draft.emit(GmOverride(reason=reason, subject=", ".join(effects), value={k: p[k] for k in effects}))
    for key, v in [(k, one) for k in effects for one in (p[k] if isinstance(p[k], list) and p[k] else [p[k]])]:
        if not isinstance(v, dict):
            raise Refused(f"override {key}", "give its fields as a mapping")
        target = _combatant(state, v.get("target"), f"override {key}").id
        if key == "damage":
            amount = v.get("amount", 0)
            if isinstance(amount, str) and not _whole(amount):  # dice: rolled as any roll is
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


def _undo(view: Projection) -> list[Event]:
    if not view.undo:
        raise Refused("undo", "there is nothing to undo")
    step = view.undo[-1]
    if step == 1:  # a log's first step is always the encounter's creation
        raise Refused("undo", "the encounter's creation can't be undone", "start a new log instead")
    return [StepUndone(step=step)]


def _redo(view: Projection) -> list[Event]:
    if not view.redo:
        raise Refused("redo", "there is nothing to redo", "redo works right after an undo, before a new command")
    return [StepRedone(step=view.redo[-1])]


# --- amendments ----------------------------------------------------------------------


def _check_amends(view: Projection, command: Command) -> None:
    """Refuse a command of an amendment (`Command.amends`, `Command.draws`) that can't stand where
    it is: both are past steps that don't count now (undone), and the draws are the amended
    step's or an earlier step's, never a later one's. `combatlog.replays.amend` writes them."""
    what = f"{command.kind} in place of step {command.amends}"
    if command.kind in ("create", "undo", "redo", "fork"):
        raise Refused(what, f"a {command.kind} step is never decided in place of another")
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

_FORK_USAGE = "give params at, parent_seq and parent_digest (64 hex digits); `combatlog fork` writes them"


def _fork(view: Projection, command: Command) -> list[Event]:
    """A fork's record: right after the lines it copied (seq `at`, this log's last line so far),
    naming its parent's head."""
    p = command.params
    at, parent_seq, digest = p.get("at"), p.get("parent_seq"), p.get("parent_digest")
    for name, x in (("at", at), ("parent_seq", parent_seq)):
        if isinstance(x, bool) or not isinstance(x, int):
            raise Refused("fork", f"{name} is a seq, a whole number, not {str(x)[:20]!r}", _FORK_USAGE)
    assert isinstance(at, int) and isinstance(parent_seq, int)  # for the type checker: checked just above
    if not isinstance(digest, str) or not _DIGEST.match(digest):
        raise Refused("fork", f"parent_digest {str(digest)[:20]!r} is not 64 lowercase hex digits", _FORK_USAGE)
    if at != view.seq:
        raise Refused(
            "fork", f"the record of a fork at seq {at} comes right after it, and this log ends at seq {view.seq}"
        )
    if parent_seq < at:
        raise Refused("fork", f"the parent's head (seq {parent_seq}) is before the fork's seq {at}", _FORK_USAGE)
    return [Forked(at=at, parent_seq=parent_seq, parent_digest=digest)]


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


_COMMANDS: dict[str, Callable[[Draft, Command], None]] = {
    "add": _add,
    "remove": _remove,
    "surprise": _surprise,
    "begin": _begin,
    "act": _act,
    "end_turn": _end_turn,
    "ruling": _ruling,
    "override": _override,
    "note": _note,
    "view": _view,
    "seat": _seat,
    "seating": _seating,
    "end": _end,
    "contribute": _contribute,
    "reveal": _reveal,
}


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
