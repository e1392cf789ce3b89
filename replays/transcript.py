"""Transcripts: a saved log told as prose, one line per thing the table would say aloud."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator
from typing import Any

from combatlog.engine import get_rules, rules_of
from combatlog.engine.words import plainly, spoken
from combatlog.events import Envelope, EventLog
from combatlog.events import catalogue as ev
from combatlog.events.privacy import GM, Viewer
from combatlog.projections import Projection
from combatlog.replays.cursor import envelopes
from combatlog.replays.views import UNSEEN, UNSEEN_NAME, Judge, folded_steps, hidden_at, told_state


def _name(state: Any, cid: str | None) -> str:
    c = state.combatants.get(cid or "")
    if c is None and cid == UNSEEN:
        return UNSEEN_NAME
    return c.name if c is not None else str(cid)


_SPAN = re.compile(r"\b(?:turns?|rounds?)\b")  # a condition's reason that is its time running out, not told

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _initiative(rules: Any, state: Any, cid: str) -> str:
    """A combatant's initiative as its rule system says it (`71, failed`), else its number."""
    c = state.combatants[cid]
    said = rules.initiative_said(state, c) if rules is not None else None
    return said or str(c.initiative)


def _places(rules: Any, state: Any) -> dict[str, str]:
    """The names the map gives its sections (`stair` -> `the stair head`), for a move's line."""
    board = rules.board(state) if rules is not None else None
    if board is None or board.kind != "sections":
        return {}
    return {s.id: s.name for s in board.sections if getattr(s, "name", "")}


def printable(text: str) -> str:
    """`text` with control characters (terminal escape sequences among them) shown as `?`."""
    return _CONTROL.sub("?", text)


def transcript(
    log: EventLog, stop: int | None = None, dice: bool = False, viewer: Viewer = GM
) -> Iterator[tuple[int, str]]:
    """Yield (seq, line) for the events worth saying, up to `stop`; raises CorruptLog like a replay.

    Prose: an action and its outcome make one line ("Ayla (initiative 17) fires the blaster at
    Thrynn 2: 14 against HD 11, a hit; 2d6 = 7 damage."), headings ("Round 2.") are flush left,
    details are indented. With `dice`, every roll is told as well, under its action.

    For a `viewer` other than the game master, the lines are those it may read at `stop`
    (`combatlog.replays.views`): a combatant hidden then is absent from all of it.
    """
    hidden = None if viewer.gm else hidden_at(log, stop, viewer)
    return tell(envelopes(log, 1, stop), dice, log, viewer, hidden)


def tell(
    stream: Iterable[Envelope[Any]],
    dice: bool = False,
    log: EventLog | None = None,
    viewer: Viewer = GM,
    hidden: frozenset[str] | None = None,
    start: Projection | None = None,
) -> Iterator[tuple[int, str]]:
    """The transcript of envelopes from seq 1 on, as they come: a live stream is told step by step.
    Every line is printable: a name's control characters never reach a terminal. `hidden`: the
    combatants absent for `viewer` throughout (None: each step as it stood when it ended, as a
    live stream must, since a line once printed can't be taken back). `start`: the fight as it
    stood before the stream's first envelope (a step just taken, told without reading the log
    from its start); it is folded on."""
    return ((seq, printable(line)) for seq, line in _tell(stream, dice, log, viewer, hidden, start))


def _tell(
    stream: Iterable[Envelope[Any]],
    dice: bool,
    log: EventLog | None,
    viewer: Viewer,
    hidden: frozenset[str] | None,
    start: Projection | None = None,
) -> Iterator[tuple[int, str]]:
    """The lines of `tell`, as the events give them.

    What a step says is yielded by the step's end (its `CommandIssued` counts its events),
    except an action declared to resolve later, told when it does. `log` (the stream's own)
    lets an undo reaching past the kept history be folded again from it. An event that
    can't be folded where it stands raises CorruptLog naming its seq, as a replay does.
    """
    rules = None
    places: dict[str, str] | None = None  # a section's id -> its name, where the map names it
    declared: dict[str, str] = {}  # action id -> its description, for actions that resolve later
    open_action: tuple[int, str, str] | None = None  # (seq, id, text) of a declaration not told yet
    deferred: list[tuple[int, str]] = []  # what happened while an action resolved, told after it
    resolving = False
    # the combatants hit by damage a tier held, being released now (None: no release is being
    # told): it is told as it comes, under the tier's last action, not deferred to the next
    releasing: set[str] | None = None
    judge = Judge(viewer, hidden=hidden)
    if start is not None and start.state.rules is not None:  # what the start was waiting to resolve
        rules = rules_of(start.state)
        told = told_state(start.state, hidden or frozenset())
        declared = {p.id: rules.describe(told, p) for p in start.state.pending}
    for items in folded_steps(stream, log, projection=start):
        judged, hidden = judge.step(items)
        for i, ((envelope, whole), e) in enumerate(zip(items, judged)):
            t = type(envelope.event)
            if t in _BOUNDARIES:  # a boundary withheld from this viewer still closes what it closes
                if open_action is not None:  # declared, to resolve later (simultaneous timing)
                    yield open_action[0], f"{open_action[2]} (declared)."
                    open_action = None
                yield from deferred
                deferred.clear()
                resolving = False
                releasing = None
            last = i == len(items) - 1
            if e is None:
                if last and open_action is None and deferred:
                    yield from deferred
                    deferred.clear()
                continue
            seq = envelope.seq
            state = told_state(whole, hidden)  # a hidden combatant named beside visible ones: "someone unseen"
            line = None
            if releasing is not None and not _released(e, t, releasing):
                releasing = None  # the next action's own events: told after it, as ever
            if t is ev.HeldDamageReleased and not dice:
                releasing = set()
                yield from deferred
                deferred.clear()
            if t is ev.ActionDeclared:
                if rules is not None:
                    text = rules.describe(state, state.pending[-1])
                    declared[e.id] = text
                    if dice:
                        line = text + "."
                    else:
                        open_action = (seq, e.id, text)
            elif t is ev.ResolutionStarted:
                resolving = True
            elif t is ev.ActionResolved:
                if open_action is not None and open_action[1] == e.id:
                    line, seq = f"{open_action[2]}: {plainly(e.outcome)}.", open_action[0]
                    open_action = None
                elif dice:
                    line = f"  -> {plainly(e.outcome)}"
                else:
                    line = f"{declared.get(e.id, 'An action')}: {plainly(e.outcome)}."
                yield seq, line
                line = None
                yield from deferred  # what the action did, after the line that says it
                deferred.clear()
            elif t is ev.EncounterCreated:
                rules = get_rules(e.rules).variant(whole.options)
                line = f"{e.title or 'An encounter'} under {e.rules} {e.rules_version}" + (
                    f", seed {e.seed}."
                    if e.seed is not None
                    else f", fair dice: the game master's seed committed as {e.commitment[:16]}..."
                    if e.commitment is not None
                    else ", the engine's dice (the seed is the game master's)."
                    if envelope.event.seed is not None
                    else ", dice entered at the table."
                )
            elif t is ev.CombatantAdded:
                line = f"{e.name} ({e.kind.upper()}, {e.side}) joins."
            elif t is ev.SurpriseDetermined:
                line = f"Surprised: {', '.join(e.surprised)}." if e.surprised else "No one is surprised."
            elif t is ev.OrderSet and e.reason == "initiative":
                line = "Order: " + "; ".join(
                    ", ".join(f"{_name(state, c)} ({_initiative(rules, state, c)})" for c in tier) for tier in e.tiers
                )
            elif t is ev.RoundStarted:
                line = "Surprise round." if e.surprise else f"Round {e.round}."
            elif t is ev.PassStarted:
                line = f"Round {state.round}, pass {e.number}: those with another action declare it."
            elif t is ev.DiceRolled:
                if dice and e.private_to is not None and not e.faces:
                    line = f"  {_name(state, e.by or e.private_to)} rolls in secret ({e.purpose})"
                elif dice:
                    faces = " ".join(str(f) for f in e.faces)
                    who = f"{_name(state, e.by)}: " if e.by else ""
                    line = f"  {who}{e.expression} [{faces}] = {e.total} ({_named(state, e.purpose)})" + (
                        " (entered)" if e.source == "entered" else ""
                    )
            elif t is ev.DamageApplied:
                if dice or not e.held:
                    where = f" to the {e.location}" if e.location else ""
                    if e.amount < 0:
                        line = f"  {_name(state, e.target)} recovers {-e.amount}{where}."
                    else:
                        line = f"  {_name(state, e.target)} takes {e.amount} damage{where}" + (
                            _held_until(rules, whole.options) if e.held else "."
                        )
            elif t is ev.CombatantDefeated:
                line = f"  {_name(state, e.combatant)} is {e.how}."
            elif t is ev.ConditionApplied and e.armed:
                pass  # the source's next turn began: nothing to tell
            elif t is ev.ConditionApplied:
                line = f"  {_name(state, e.target)}: {e.condition}."
            elif t is ev.ConditionRemoved:
                why = f" ({e.reason})" if e.reason and not _SPAN.search(e.reason) else ""  # a span: said
                line = f"  {_name(state, e.target)}: no longer {e.condition}{why}."
            elif t is ev.Moved:
                if places is None:  # the map's names of its places, read once a fight
                    places = _places(rules, state)
                line = f"  {_name(state, e.combatant)} moves to {places.get(e.to, e.to)}."
            elif t is ev.GmRuling:
                line = f"GM ruling ({e.topic}): {spoken(e.decision)}" + (f" - {e.text}" if e.text else "")
            elif t is ev.GmOverride:
                line = f"GM override: {e.reason} ({e.subject})."
            elif t is ev.Note:
                line = f"Note: {e.text}"
            elif t is ev.CombatantRemoved:
                line = f"{_name(state, e.id)} leaves the fight" + (f" ({e.reason})." if e.reason else ".")
            elif t is ev.ViewSet:
                how = "as levels" if e.hp == "level" else e.hp
                if e.odds is not None:
                    line = "Players' view: the odds from this moment " + (
                        "shown." if e.odds else "kept to the game master."
                    )
                elif e.side is not None:
                    line = f"Players' view: {e.side}'s health shown {how}."
                elif e.hp is not None:
                    line = f"Players' view: {_name(state, e.combatant)}'s health shown {how}."
                elif not viewer.gm:
                    line = f"{_name(state, e.combatant)} comes into view."
                else:
                    line = f"Players' view: {_name(state, e.combatant or '')} {'hidden' if e.hidden else 'shown'}" + (
                        " until it acts." if e.reveal == "act" else "."
                    )
            elif t is ev.SeatSet:
                if e.revoked:
                    line = f"Seat {e.seat}: closed."
                else:
                    names = ", ".join(_name(state, c) for c in e.combatants)
                    line = f"Seat {e.seat} ({e.name}): {names}" + (
                        f", a new link ({e.generation})." if e.generation > 1 else "."
                    )
            elif t is ev.SeatingSet:
                line = (
                    "Seats' commands "
                    + ("wait for the game master" if e.commands == "queue" else "apply at once")
                    + ("; a seat may undo its own latest step." if e.undo else ".")
                )
            elif t is ev.Forked:
                line = (
                    f"A fork of another log at seq {e.at} (whose head was then seq {e.parent_seq}, "
                    f"digest {e.parent_digest[:12]}...): a fight of its own from here."
                )
            elif t is ev.Contributed:
                who = _name(state, e.by[5:]) if e.by.startswith("seat:") else e.by
                line = f"{who} adds to the dice: {e.value[:40]}."
            elif t is ev.SeedRevealed:
                line = f"The seed revealed: {e.seed} (nonce {e.nonce[:8]}...); the dice can be checked now."
            elif t is ev.StepAmended:
                line = f"Amended: step {e.step}, decided again in its place."
            elif t is ev.StepUndone:
                line = f"Undone: step {e.step}."
            elif t is ev.StepRedone:
                line = f"Redone: step {e.step}."
            elif t is ev.EncounterEnded:
                line = f"The encounter ends: {e.outcome}" + (f", won by {e.winner}." if e.winner else ".")
            elif rules is not None:
                line = rules.narrate(state, e, dice)
            if line is not None:
                if releasing is not None:
                    yield seq, line
                elif resolving and not dice:
                    deferred.append((seq, line))
                else:
                    yield seq, line
            if last and open_action is None and deferred:  # the step is whole: say what it held back
                yield from deferred
                deferred.clear()
    if open_action is not None:
        yield open_action[0], f"{open_action[2]}."
    yield from deferred


def _released(e: Any, t: type, targets: set[str]) -> bool:
    """True when `e` is part of a release of held damage being told: the damage itself (its
    target noted in `targets`), or what it did to a combatant it hit (down, dazed), which
    `RuleSystem.after_damage` emits right after it; the next action starts otherwise."""
    if t is ev.DamageApplied:
        if e.held:
            return False
        targets.add(e.target)
        return True
    if t in _NOT_AFTER_DAMAGE:
        return False
    subject = getattr(e, "target", None) or getattr(e, "combatant", None)
    return isinstance(subject, str) and subject in targets


_NOT_AFTER_DAMAGE = {ev.DiceRolled, ev.Moved, ev.ActionResolved, ev.ResolutionStarted}


def _held_until(rules: Any, options: Any) -> str:
    """How a held hit's line ends: held until its tier has acted, or to the round's end."""
    timing = rules.timing(options) if rules is not None else None
    if timing is not None and (timing.hold_until == "tier" or timing.all_immediate):
        return ", held until its tier has acted."  # turn-based timing holds damage only in a tier
    return ", held to the round's end."


_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class _Unseen:
    name = UNSEEN_NAME


def _named(state: Any, text: str) -> str:
    """`text` (a roll's purpose, `strike at g1`) with combatant ids read as their names."""
    combatants = {**state.combatants, UNSEEN: _Unseen}
    return _WORD.sub(lambda m: combatants[m[0]].name if m[0] in combatants else m[0], text)


_BOUNDARIES = {
    ev.CommandIssued,
    ev.ActionDeclared,
    ev.RoundEnded,
    ev.RoundStarted,
    ev.PassStarted,
    ev.TurnStarted,
    ev.TurnEnded,
    ev.EncounterEnded,
}


def undone_of(log: EventLog, told: Iterable[tuple[int, str]]) -> list[tuple[str, bool]]:
    """Each told line with whether its step stands undone at the log's end (it stays told:
    nothing is erased, and a reader sees it was undone)."""
    step_of: dict[int, int] = {}
    undone: set[int] = set()
    for env in envelopes(log):
        step_of[env.seq] = env.step
        if type(env.event) is ev.StepUndone:
            undone.add(env.event.step)
        elif type(env.event) is ev.StepRedone:
            undone.discard(env.event.step)
    return [(line, step_of.get(seq) in undone) for seq, line in told]


def render(
    lines: Iterable[str | tuple[str, bool]], fmt: str = "text", title: str = "combatlog transcript"
) -> Iterator[str]:
    """The transcript's lines as plain text, Markdown or a standalone HTML page; a line given
    with True (`undone_of`) is marked undone: `[undone]` in text, struck through elsewhere."""
    pairs = [(x, False) if isinstance(x, str) else x for x in lines]
    if fmt == "text":
        for line, undone in pairs:
            yield f"{line} [undone]" if undone else line
        return
    if fmt == "markdown":
        first = True
        for line, undone in pairs:
            stripped = html.escape(printable(line.strip()), quote=False)  # a name can't be markup
            if undone and not first:
                stripped = f"~~{stripped}~~ (undone)"
            if first:  # the encounter's opening line is the page's title
                yield f"# {stripped}\n"
                first = False
            elif stripped.startswith(_HEADINGS):
                yield f"\n### {stripped}\n"
            elif line.startswith("  "):
                yield f"  - {stripped}"
            else:
                yield f"- {stripped}"
        return
    if fmt != "html":
        raise ValueError(f"unknown format {fmt!r}; use text, markdown or html")
    yield "<!DOCTYPE html>"
    yield '<html lang="en"><head><meta charset="utf-8">'
    yield f"<title>{html.escape(title)}</title>"
    yield (
        "<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;line-height:1.45}"
        "h2{margin-top:1.5rem;border-bottom:1px solid #ccc}p{margin:.2rem 0}p.detail{margin-left:1.5rem;"
        "color:#555;font-size:.92em}</style></head><body>"
    )
    first = True
    for line, undone in pairs:
        stripped = html.escape(line.strip())
        if undone and not first:
            stripped = f'<del title="undone">{stripped}</del>'
        if first:
            yield f"<h1>{stripped}</h1>"
            first = False
        elif line.strip().startswith(_HEADINGS):
            yield f"<h2>{stripped}</h2>"
        elif line.startswith("  "):
            yield f'<p class="detail">{stripped}</p>'
        else:
            yield f"<p>{stripped}</p>"
    yield "</body></html>"


_HEADINGS = ("Round ", "Surprise round")
