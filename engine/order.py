"""Order strategies: who acts next, and in what order declared actions resolve.

- `RankedOrder`: an initiative order in ranked tiers, highest first, with pluggable tie
  rules and group initiative; combatants in one tier act simultaneously.
- `ReverseDeclareOrder`: the same ranking, but actions are declared lowest first and
  resolved highest first (Straalara).
- `ActionPointOrder`: no fixed turns; whoever has the most action points left acts next,
  pays, and the order is recomputed after every action (Infinite Realms).

Tie rules, applied in order to entries with equal initiative:
`higher:STAT` (the higher stat first), `pc_first` (PCs before NPCs), `rolloff:EXPR`
(each tied entry rolls EXPR, highest first, re-rolled until clear), `simultaneous`
(entries still tied share a tier). Ties left after the last rule share a tier.

A tier (one entry of `OrderSet.tiers`: combatants tied under `simultaneous`, or a group that
rolled once) takes its turn together; see "Tiers" in docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from combatlog.engine.protocol import Draft, Order
from combatlog.events import InitiativeRolled, OrderSet

if TYPE_CHECKING:
    from combatlog.projections import Combatant, Encounter, Pending

ROLLOFF_LIMIT = 50  # roll-offs that keep tying this often are left simultaneous


@dataclass
class Entry:
    """One initiative roll: a combatant, or a group rolling once for all its members."""

    ids: tuple[str, ...]
    value: int
    pc: bool
    stats: dict[str, Any]


def initiative_entries(draft: Draft, group_initiative: bool) -> list[Entry]:
    """Roll initiative for every active combatant (NPC groups once when asked); emits the rolls."""
    state = draft.state
    rules = draft.rules
    entries: list[Entry] = []
    seen_groups: dict[tuple[str, str], int] = {}
    for c in state.active():
        if group_initiative and c.kind == "npc" and c.group is not None:
            key = (c.side, c.group)  # a group is of one side: the same name on two sides is two groups
            if key in seen_groups:
                entry = entries[seen_groups[key]]
                entry.ids = entry.ids + (c.id,)
                continue
            seen_groups[key] = len(entries)
        entries.append(Entry(ids=(c.id,), value=0, pc=c.kind == "pc", stats=c.given_stats))
    for entry in entries:
        first = state.combatant(entry.ids[0])
        entry.value = rules.initiative(draft, first, entry.ids)
        group = first.group if len(entry.ids) > 1 else None
        draft.emit(InitiativeRolled(combatants=entry.ids, value=entry.value, group=group))
    return entries


def rank(draft: Draft, entries: list[Entry], ties: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Order `entries` highest first, breaking ties by `ties`; returns the tiers."""
    by_value: dict[int, list[Entry]] = {}
    for e in entries:
        by_value.setdefault(e.value, []).append(e)
    tiers: list[tuple[str, ...]] = []
    for value in sorted(by_value, reverse=True):
        for bucket in _break(draft, by_value[value], list(ties)):
            tiers.append(tuple(cid for e in bucket for cid in e.ids))
    return tuple(tiers)


def _break(draft: Draft, tied: list[Entry], ties: list[str]) -> list[list[Entry]]:
    """Split a list of tied entries into ordered buckets using the first applicable tie rule."""
    if len(tied) < 2 or not ties:
        return [tied]
    rule, rest = ties[0], ties[1:]
    if rule == "simultaneous":
        return [tied]
    if rule == "pc_first":
        keyed = [(1 if e.pc else 0, e) for e in tied]
    elif rule.startswith("higher:"):
        stat = rule.split(":", 1)[1]
        keyed = [(int(e.stats.get(stat, 0)), e) for e in tied]
    elif rule.startswith("rolloff:"):
        return _rolloff(draft, tied, rule.split(":", 1)[1], rest)
    else:
        raise ValueError(f"unknown tie rule {rule!r}; use pc_first, higher:STAT, rolloff:EXPR or simultaneous")
    buckets: dict[int, list[Entry]] = {}
    for k, e in keyed:
        buckets.setdefault(k, []).append(e)
    out: list[list[Entry]] = []
    for k in sorted(buckets, reverse=True):
        out.extend(_break(draft, buckets[k], rest))
    return out


def _rolloff(draft: Draft, tied: list[Entry], expression: str, rest: list[str], depth: int = 0) -> list[list[Entry]]:
    if depth >= ROLLOFF_LIMIT:
        return [tied]
    names = ", ".join("+".join(e.ids) for e in tied)
    buckets: dict[int, list[Entry]] = {}
    for e in tied:
        roll = draft.roll(expression, f"initiative roll-off: {names}", by=e.ids[0])
        buckets.setdefault(roll.total, []).append(e)
    out: list[list[Entry]] = []
    for k in sorted(buckets, reverse=True):
        bucket = buckets[k]
        out.extend(_rolloff(draft, bucket, expression, rest, depth + 1) if len(bucket) > 1 else [bucket])
    return out


class RankedOrder:
    """A ranked initiative order, rolled at the start (or every round), acted tier by tier."""

    name = "ranked"
    refills_each_turn = True
    one_action_turns = False
    reverse_declare = False

    def __init__(
        self, ties: Sequence[str] = ("simultaneous",), group_initiative: bool = False, every_round: bool = False
    ) -> None:
        self.ties = tuple(ties)
        self.group_initiative = group_initiative
        self.every_round = every_round

    def roll(self, draft: Draft) -> None:
        """Roll initiative and set the order."""
        entries = initiative_entries(draft, self.group_initiative)
        draft.emit(OrderSet(tiers=rank(draft, entries, self.ties), reason="initiative"))

    def round_started(self, draft: Draft) -> None:
        """Hook at the start of every round after the first."""
        if self.every_round:
            self.roll(draft)

    def next_actors(self, state: Encounter, may_act: Callable[[Combatant], bool]) -> tuple[str, ...]:
        """The combatants whose turn comes next this round, or () when everyone has had one."""
        acted, combatants = state.acted, state.combatants
        for tier in reversed(state.order) if self.reverse_declare else state.order:
            # asked at every turn: a list, not a generator, and a tier of one (the most) as it is
            actors = [cid for cid in tier if cid not in acted and may_act(combatants[cid])]
            if actors:
                return tuple(tier) if len(actors) == len(tier) else tuple(actors)  # (a tuple: itself)
        return ()

    def after_action(self, draft: Draft) -> None:
        """Hook after every action (a ranked order doesn't change)."""

    def pass_started(self, draft: Draft) -> None:
        """Hook when another pass of the round begins (the order for it may change)."""

    def resolution_key(self, state: Encounter) -> Callable[[Pending], Any]:
        """A sort key putting pending actions in the order they resolve: initiative order."""
        rank_of = {cid: i for i, cid in enumerate(state.flat_order())}
        return lambda p: rank_of.get(p.actor, len(rank_of))

    def tier_key(self, state: Encounter) -> Callable[[Pending], Any]:
        """The tier each pending action's actor acts in (equal values: one tier acting together):
        its place among the order's tiers."""
        tier_of = {cid: i for i, tier in enumerate(state.order) for cid in tier}
        return lambda p: tier_of.get(p.actor, len(state.order))


class ReverseDeclareOrder(RankedOrder):
    """Declared from the lowest initiative up, resolved from the highest down."""

    name = "reverse"
    reverse_declare = True


class ActionPointOrder:
    """Most action points left acts next; recomputed after every action; ties by a per-round roll."""

    name = "action-points"
    refills_each_turn = False
    one_action_turns = True
    reverse_declare = False

    def __init__(self, resource: str = "ap", ties: Sequence[str] = ()) -> None:
        self.resource = resource
        self.ties = tuple(ties)

    def roll(self, draft: Draft) -> None:
        """Roll this round's tie-break values (the rule system's initiative) and set the order."""
        for c in draft.state.active():
            value = draft.rules.initiative(draft, c, (c.id,))
            draft.emit(InitiativeRolled(combatants=(c.id,), value=value))
        self._set(draft, "round start")

    def round_started(self, draft: Draft) -> None:
        self.roll(draft)

    def _set(self, draft: Draft, reason: str) -> None:
        state = draft.state
        order = tuple((cid,) for cid in self.ranking(state))
        if order != state.order:
            draft.emit(OrderSet(tiers=order, reason=reason))

    def _ranked(self, state: Encounter) -> list[tuple[int, int, int, Combatant]]:
        # one tuple sort, no key function (asked after every action and for every turn): the
        # roster's index last, so equals keep the order they were added and no two rows tie
        res, acted = self.resource, state.acted
        live = [
            (-c.resources.get(res, 0), -(c.initiative or 0), i, c)
            for i, c in enumerate(state.combatants.values())
            if c.defeated is None and not c.removed and c.id not in acted
        ]
        live.sort()
        return live

    def ranking(self, state: Encounter) -> list[str]:
        """Active combatants by action points left, then tie-break value, then the order they were added."""
        return [row[3].id for row in self._ranked(state)]

    def next_actors(self, state: Encounter, may_act: Callable[[Combatant], bool]) -> tuple[str, ...]:
        res = self.resource
        for row in self._ranked(state):
            c = row[3]
            if c.resources.get(res, 0) > 0 and may_act(c):
                return (c.id,)
        return ()

    def after_action(self, draft: Draft) -> None:
        self._set(draft, "action points spent")

    def pass_started(self, draft: Draft) -> None:
        """Action points have no passes."""

    def resolution_key(self, state: Encounter) -> Callable[[Pending], Any]:
        return lambda p: 0

    def tier_key(self, state: Encounter) -> Callable[[Pending], Any]:
        """No rank is shared under action points: what waits to resolve, resolves as one."""
        return lambda p: 0


def make_order(kind: str, **kw: Any) -> Order:
    """The order strategy named `kind` (ranked, reverse, action-points)."""
    if kind == "ranked":
        return RankedOrder(**kw)
    if kind == "reverse":
        return ReverseDeclareOrder(**kw)
    if kind == "action-points":
        return ActionPointOrder(**kw)
    raise ValueError(f"unknown order {kind!r}; use ranked, reverse or action-points")
