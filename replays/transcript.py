"""Transcripts: a saved log told as prose, one line per thing the table would say aloud."""

from __future__ import annotations

from typing import Iterator

from combatlog.engine import get_rules
from combatlog.events import EventLog
from combatlog.events import catalogue as ev
from combatlog.projections import Projection
from combatlog.replays.cursor import envelopes


def _name(projection: Projection, cid: str | None) -> str:
    c = projection.state.combatants.get(cid or "")
    return c.name if c is not None else str(cid)


def transcript(log: EventLog, stop: int | None = None) -> Iterator[tuple[int, str]]:
    """Yield (seq, line) for the events worth saying, up to `stop`; raises CorruptLog like a replay."""
    projection = Projection()
    rules = None
    for envelope in envelopes(log, 1, stop):
        e = envelope.event
        t = type(e)
        before = projection.state
        projection.apply(envelope)
        state = projection.state
        line = None
        if t is ev.EncounterCreated:
            rules = get_rules(e.rules)
            line = f"{e.title or 'An encounter'} under {e.rules} {e.rules_version}" + (
                f", seed {e.seed}." if e.seed is not None else ", dice entered at the table.")
        elif t is ev.CombatantAdded:
            line = f"{e.name} ({e.kind.upper()}, {e.side}) joins."
        elif t is ev.SurpriseDetermined:
            line = f"Surprised: {', '.join(e.surprised)}." if e.surprised else "No one is surprised."
        elif t is ev.OrderSet and e.reason == "initiative":
            line = "Order: " + "; ".join(
                ", ".join(f"{_name(projection, c)} ({state.combatants[c].initiative})" for c in tier) for tier in e.tiers)
        elif t is ev.RoundStarted:
            line = "Surprise round." if e.surprise else f"Round {e.round}."
        elif t is ev.ActionDeclared and rules is not None:
            pending = state.pending[-1]
            line = rules.describe(state, pending) + "."
        elif t is ev.DiceRolled:
            faces = " ".join(str(f) for f in e.faces)
            who = f"{_name(projection, e.by)}: " if e.by else ""
            line = f"  {who}{e.expression} [{faces}] = {e.total} ({e.purpose})" + (
                " (entered)" if e.source == "entered" else "")
        elif t is ev.DamageApplied:
            where = f" to the {e.location}" if e.location else ""
            line = f"  {_name(projection, e.target)} takes {e.amount} damage{where}" + (
                ", held to the round's end." if e.held else ".")
        elif t is ev.ActionResolved and e.outcome:
            line = f"  -> {e.outcome}"
        elif t is ev.CombatantDefeated:
            line = f"  {_name(projection, e.combatant)} is {e.how}."
        elif t is ev.ConditionApplied:
            line = f"  {_name(projection, e.target)} is {e.condition}."
        elif t is ev.Moved:
            line = f"  {_name(projection, e.combatant)} moves to {e.to}."
        elif t is ev.GmRuling:
            line = f"GM ruling ({e.topic}): {e.decision}" + (f" - {e.text}" if e.text else "")
        elif t is ev.GmOverride:
            line = f"GM override: {e.reason} ({e.subject})."
        elif t is ev.Note:
            line = f"Note: {e.text}"
        elif t is ev.StepUndone:
            line = f"Undone: step {e.step}."
        elif t is ev.StepRedone:
            line = f"Redone: step {e.step}."
        elif t is ev.EncounterEnded:
            line = f"The encounter ends: {e.outcome}" + (f"; {e.winner} win." if e.winner else ".")
        del before
        if line is not None:
            yield envelope.seq, line
