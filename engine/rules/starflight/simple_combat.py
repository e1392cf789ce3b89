"""Simple Combat: every group rolls once an exchange; losses by the difference, goals, size and
experience modifiers (the 16 / 13 / 9 example)."""

from __future__ import annotations

from combatlog.engine.errors import Refused
from combatlog.engine.protocol import Draft
from combatlog.engine.rules.starflight.events import Awaiting, GoalEvent, GroupsRanked, HitsTaken
from combatlog.engine.rules.starflight.model import Goal, own
from combatlog.engine.rules.starflight.reading import group_key
from combatlog.events import CombatantDefeated, Command, EncounterEnded, TurnEnded
from combatlog.projections import Encounter


def simple_groups(state: Encounter) -> dict[str, list[str]]:
    """Simple Combat's groups (name -> active ids): a side with a PC is one group; others by group or side."""
    pc_sides = {c.side for c in state.combatants.values() if c.kind == "pc" and not c.removed}
    groups: dict[str, list[str]] = {}
    for c in state.active():
        name = c.side if c.side in pc_sides else group_key(state, c)
        groups.setdefault(name, []).append(c.id)
    return groups


def _group_side(state: Encounter, ids: list[str]) -> str:
    return state.combatants[ids[0]].side


def size_modifiers(sizes: dict[str, int]) -> dict[str, int]:
    """+1 for a group larger than the smallest, +1 more per further whole multiple (3x: +3)."""
    if not sizes:
        return {}
    smallest = min(sizes.values())
    return {g: (n // smallest if n > smallest else 0) for g, n in sizes.items()}


def simple_losses(results: dict[str, int], side_of: dict[str, str]) -> dict[str, int]:
    """Each group's losses: the highest hostile result above it minus its own (cumulative down the chain)."""
    out = {}
    for g, mine in results.items():
        higher = [r for h, r in results.items() if side_of[h] != side_of[g] and r > mine]
        out[g] = max(higher) - mine if higher else 0
    return out


def not_simple(draft: Draft, command: Command) -> None:
    """`exchange` in an encounter of standard rounds: refused."""
    raise Refused("exchange", "this encounter isn't Simple Combat", "create it with option method=simple")


def exchange(draft: Draft, command: Command) -> None:
    state = draft.state
    if not state.acting:
        raise Refused("exchange", f"no exchange is under way (phase {state.phase})", "begin the fight first")
    due = [g for g, v in own(state).goals.items() if v.choice_due]
    if due:
        raise Refused(
            "exchange", f"{due[0]} rolled 18 and must choose first", f"goal group={due[0]} choice=secondary|bonus"
        )
    opts = state.options
    groups = simple_groups(state)
    side_of = {g: _group_side(state, ids) for g, ids in groups.items()}
    sizes = {g: len(ids) for g, ids in groups.items()}
    size_mod = size_modifiers(sizes) if opts.simple_size_modifier else {g: 0 for g in groups}
    experience = opts.simple_experience
    unknown = [
        g
        for g in experience
        if g not in groups
        and not any(g == state.combatants[i].group for i in (cid for ids in groups.values() for cid in ids))
    ]
    if unknown:
        raise Refused(
            f"option simple_experience: {', '.join(map(str, unknown))}", "no such group", f"groups: {', '.join(groups)}"
        )
    goals = own(state).goals
    naturals: dict[str, int] = {}
    modifiers: dict[str, int] = {}
    for g in groups:
        naturals[g] = draft.roll("2d10z", f"simple combat: {g}", by=groups[g][0]).total
        modifiers[g] = size_mod.get(g, 0) + experience.get(g, 0) + goals.get(g, Goal()).bonus
    primary: str | None = None
    if opts.simple_goals:
        for g in groups:
            if naturals[g] == 18:
                again = draft.roll("2d10z", f"{g} rolled 18: the goal roll", by=groups[g][0]).total
                opposing = sum(n for h, n in sizes.items() if side_of[h] != side_of[g])
                if again > opposing and not goals.get(g, Goal()).primary_lost:
                    draft.emit(GoalEvent(group=g, what="primary", roll=again))
                    primary = primary or g
                else:
                    draft.emit(GoalEvent(group=g, what="choice due", roll=again))
            elif naturals[g] == 0:
                again = draft.roll("2d10z", f"{g} rolled 0: roll again", by=groups[g][0]).total
                if any(n > again for h, n in sizes.items() if h != g):
                    draft.emit(GoalEvent(group=g, what="primary lost", roll=again))
    results = {g: naturals[g] + modifiers[g] for g in groups}
    losses = simple_losses(results, side_of)
    draft.emit(GroupsRanked(results=results, modifiers=modifiers, losses=losses))
    for g, ids in groups.items():
        loss = losses[g]
        if not loss:
            continue
        npcs = [cid for cid in ids if draft.state.combatants[cid].kind == "npc"]
        pcs = [cid for cid in ids if draft.state.combatants[cid].kind == "pc"]
        for cid in npcs[:loss]:
            draft.emit(CombatantDefeated(combatant=cid, how="incapacitated"))
        if pcs and loss > len(npcs):
            _pc_hits(draft, pcs, sum(1 for h in groups if side_of[h] != side_of[g] and results[h] > results[g]))
    if primary is not None:
        draft.emit(EncounterEnded(outcome=f"primary goal reached by {primary}", winner=side_of[primary]))
        return
    over = draft.rules.outcome(draft.state)
    if over is not None:  # the exchange settled it: no choice is left to make
        draft.emit(EncounterEnded(outcome=over[0], winner=over[1]))
        return
    if any(v.choice_due for v in own(draft.state).goals.values()):
        draft.emit(Awaiting(topic="goal choice"))
        return
    draft.emit(TurnEnded(actors=draft.state.acting))
    draft.advance()


def _pc_hits(draft: Draft, pcs: list[str], hits: int) -> None:
    """Each PC rolls 1d10; the low throw (ties re-rolled) takes `hits` hits."""
    tied = list(pcs)
    while len(tied) > 1:
        throws = {cid: draft.roll("1d10z", "simple combat: who takes the hits", by=cid).total for cid in tied}
        low = min(throws.values())
        tied = [cid for cid in tied if throws[cid] == low]
    victim = draft.state.combatants[tied[0]]
    draft.emit(HitsTaken(combatant=victim.id, hits=hits))
    given = victim.stats.hits
    limit = draft.state.options.simple_hits if given is None else given
    if own(draft.state).hits.get(victim.id, 0) >= limit:
        draft.emit(CombatantDefeated(combatant=victim.id, how="incapacitated"))


def goal(draft: Draft, command: Command) -> None:
    """Decide `goal`: a group that rolled 18 chooses a secondary goal or +1."""
    state = draft.state
    g = str(command.params.get("group", ""))
    due = [k for k, v in own(state).goals.items() if v.choice_due]
    if g not in due:
        raise Refused(
            f"goal {g!r}",
            "no choice is due for that group",
            f"due: {', '.join(due)}" if due else "a choice comes after a group rolls 18",
        )
    choice = command.params.get("choice")
    if choice not in ("secondary", "bonus"):
        raise Refused(f"goal {g}: choice={choice!r}", "not a choice", "choose secondary or bonus")
    draft.emit(GoalEvent(group=g, what=str(choice)))
    if any(v.choice_due for v in own(draft.state).goals.values()):
        return
    draft.emit(Awaiting(topic=None))
    draft.emit(TurnEnded(actors=draft.state.acting))
    draft.advance()
