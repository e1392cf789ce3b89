"""The read model: an encounter as the table sees it, folded from the log.

Every struct here is frozen; a fold returns a new state that shares what did not change,
so keeping the state before and after a step (undo, redo, snapshots) costs a reference.
Mappings inside a frozen struct are never mutated in place: a fold copies and replaces.
States are built from the log bottom-up and never refer back to themselves, so the structs
are `gc=False` (the cyclic garbage collector doesn't track them); what a rule system keeps
in `extra` must not hold a reference back to a state either.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Condition(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A condition on a combatant; `remaining` counts round ends left (None: until removed)."""

    name: str
    remaining: int | None = None
    source: str | None = None
    ends: str | None = None  # bearer_turn | source_turn: it lasts until a turn (ConditionApplied)
    armed: bool = False  # a source_turn condition whose source's next turn has begun


class Combatant(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One combatant's standing: who, on which side, and what has happened to them."""

    id: str
    name: str
    side: str
    kind: str = "npc"
    group: str | None = None
    # the stats as the rule system's typed model (its `stats_type`), made once when the
    # combatant is added; the stats as given when the system has no model, or when a log's
    # stats don't convert to it (they were recorded by an older release)
    stats: Any = {}
    given_stats: dict[str, Any] = {}  # the stats exactly as the log records them (`CombatantAdded`)
    damage: int = 0
    wounds: dict[str, int] = {}
    conditions: tuple[Condition, ...] = ()
    resources: dict[str, int] = {}
    initiative: int | None = None
    tiebreak: tuple[int, ...] = ()
    position: str | None = None
    defeated: str | None = None
    removed: bool = False

    @property
    def active(self) -> bool:
        """True while the combatant is still in the fight."""
        return self.defeated is None and not self.removed

    def has(self, condition: str) -> bool:
        """True if the combatant is under `condition`."""
        for c in self.conditions:  # noqa: SIM110  # a loop, not any(): asked very often, most have none
            if c.name == condition:
                return True
        return False


class Pending(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A declared action not resolved yet."""

    id: str
    actor: str
    action: str
    targets: tuple[str, ...] = ()
    params: dict[str, Any] = {}
    cost: dict[str, int] = {}
    category: str | None = None
    round: int = 0


class Held(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Damage that counts only when the simultaneous round ends."""

    target: str
    amount: int
    location: str | None = None
    kind: str | None = None
    source: str | None = None


HP_SHOWN = ("exact", "level", "hidden")


class PlayerView(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """What the players may see (`ViewSet`): health as `exact`, `level` or `hidden`, per side
    (a side not named: `exact` for a side with a player character, `level` for the others)
    or per combatant (which wins over its side's); the combatants hidden from them; and those
    of the hidden whom their own next action reveals."""

    hp: dict[str, str] = {}
    hidden: tuple[str, ...] = ()
    hp_of_combatant: dict[str, str] = {}
    reveal_on_act: tuple[str, ...] = ()
    odds: bool = False  # the players see the odds from this moment

    def hp_of(self, state: Encounter, side: str) -> str:
        """How `side`'s health shows to the players."""
        given = self.hp.get(side)
        if given is not None:
            return given
        pcs = any(c.kind == "pc" and c.side == side for c in state.combatants.values())
        return "exact" if pcs else "level"

    def hp_shown(self, state: Encounter, c: Combatant) -> str:
        """How combatant `c`'s health shows to the players: its own setting, else its side's."""
        return self.hp_of_combatant.get(c.id) or self.hp_of(state, c.side)


class SeatEntry(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One player's seat (`SeatSet`): its name, its combatants, which of its links is valid."""

    id: str
    name: str = ""
    combatants: tuple[str, ...] = ()
    generation: int = 1


class Seating(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """The seats at the table and how their commands are taken (`SeatSet`, `SeatingSet`)."""

    seats: dict[str, SeatEntry] = {}
    commands: str = "now"  # or "queue": the game master accepts each
    undo: bool = False  # a seat may undo its own latest step


class Contribution(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One player's contribution to a fair encounter's dice (`Contributed`)."""

    by: str
    value: str


class Fair(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A fair encounter's dice: the game master's commitment, the players' contributions in
    log order, and once revealed (`SeedRevealed`) the seed and nonce. The seed is never here
    before the reveal: the game master's session holds it (`combatlog.engine.fair`)."""

    commitment: str
    reveal_at_end: bool = False
    contributions: tuple[Contribution, ...] = ()
    seed: int | None = None
    nonce: str | None = None


class Encounter(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """The state of one encounter at one point of its log."""

    rules: str | None = None
    rules_version: str | None = None
    # the options as the rule system's typed model (its `options_type`), made once when the
    # encounter is created; as given when the system has none, or when they don't convert
    options: Any = {}
    given_options: dict[str, Any] = {}  # the options exactly as the log records them (`EncounterCreated`)
    seed: int | None = None
    title: str = ""
    phase: str = "setup"
    round: int = 0
    action_pass: int = 1  # the declare-and-resolve pass within the round (PassStarted)
    surprise_round: bool = False
    surprised: tuple[str, ...] = ()
    combatants: dict[str, Combatant] = {}
    order: tuple[tuple[str, ...], ...] = ()
    acting: tuple[str, ...] = ()
    declaring: bool = False
    acted: tuple[str, ...] = ()
    pending: tuple[Pending, ...] = ()
    resolving: str | None = None
    held: tuple[Held, ...] = ()
    outcome: str | None = None
    winner: str | None = None
    extra: Any = {}  # the rule system's own state (its registered Struct), or {} for a system without one
    players: PlayerView | None = None  # what the players' view shows (None: the defaults)
    seating: Seating | None = None  # the players' seats (None: none yet)
    fair: Fair | None = None  # a fair encounter's commitment and contributions (None: an ordinary one)

    def combatant(self, cid: str) -> Combatant:
        """The combatant `cid`; raises KeyError naming the known ids when there is none."""
        try:
            return self.combatants[cid]
        except KeyError:
            known = ", ".join(self.combatants) or "none yet"
            raise KeyError(f"no combatant {cid!r} (known: {known})") from None

    def active(self) -> list[Combatant]:
        """Combatants still in the fight, in the order they were added."""
        return [c for c in self.combatants.values() if c.defeated is None and not c.removed]  # (c.active)

    def sides(self) -> list[str]:
        """Every side, in the order its first combatant was added."""
        return list(dict.fromkeys(c.side for c in self.combatants.values() if not c.removed))

    def flat_order(self) -> list[str]:
        """The acting order as one list of ids, tier by tier."""
        return [cid for tier in self.order for cid in tier]

    def as_recorded(self) -> Encounter:
        """This state with its options and each combatant's stats as the log records them,
        their typed models set aside (they follow from what was recorded, by the rule
        system's current models): the form a saved projection is kept and compared in,
        which a model gaining a field with a default doesn't change."""
        combatants = {
            cid: msgspec.structs.replace(c, stats=c.given_stats, given_stats={}) for cid, c in self.combatants.items()
        }
        return msgspec.structs.replace(self, options=self.given_options, given_options={}, combatants=combatants)
