"""Straalara's typed models: stats, weapons, options, and the per-encounter state."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Literal

import msgspec
from msgspec import Meta

if TYPE_CHECKING:
    pass

Rating = Annotated[int, Meta(ge=0, le=20)]
Kind = Literal["brawl", "melee", "bow", "thrown", "spell"]
Defense = Literal["block", "parry", "dodge", "spell", "none"]
Stance = Literal["offense", "partial", "defense"]

# the ability each attack kind adds to Dexterity (a spell's pool is given with the spell)
ATTACK_ABILITY: dict[str, str] = {"brawl": "brawl", "melee": "weaponry", "bow": "archery", "thrown": "athletics"}
# the ability each defense adds to Dexterity (a spell defense's pool is the `spell_defense` stat)
DEFENSE_ABILITY: dict[str, str] = {"block": "brawl", "parry": "melee", "dodge": "dodge"}
# What each stance may defend with ("none": soak alone). Version 3, as the text has it: "Offense:
# Character can only Soak or Parry", and a block isn't a parry ("A parry is a block using a
# melee weapon or shield", not the other way round), nor is a spell.
STANCE_DEFENSES: dict[str, tuple[str, ...]] = {
    "offense": ("parry", "none"),
    "partial": ("block", "parry", "dodge", "spell", "none"),
    "defense": ("block", "parry", "dodge", "spell", "none"),
}
# versions 1 and 2 read a block as a parry with bare hands, and allowed a spell with Offense too
STANCE_DEFENSES_V2: dict[str, tuple[str, ...]] = {
    "offense": ("block", "parry", "spell", "none"),
    "partial": ("block", "parry", "dodge", "spell", "none"),
    "defense": ("block", "parry", "dodge", "spell", "none"),
}
# the defenses the Defense stance's 4 dice go to, besides soak: "+4 dice to add to any Soak,
# Parry or Dodge rolls" (version 3; versions 1 and 2 gave them to a block and a spell too)
DEFENSE_STANCE_DICE = 4
DEFENSE_STANCE_ROLLS = ("parry", "dodge")


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon, or a spell used as an attack."""

    name: str
    kind: Kind
    damage: Annotated[int, Meta(ge=0, le=30, description="base damage dice")]
    difficulty: Annotated[int, Meta(ge=2, le=10)] | None = None  # None: the encounter's base difficulty
    pool: Annotated[int, Meta(ge=0, le=30)] | None = None  # a spell's attack pool (its description's)


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """A Straalara combatant as the encounter file gives it (`dict=True`: room for the derived
    values below, worked out once per combatant)."""

    wits: Rating
    dexterity: Rating
    stamina: Rating
    brawl: Rating = 0
    weaponry: Rating = 0
    archery: Rating = 0
    athletics: Rating = 0
    melee: Rating = 0
    dodge: Rating = 0
    soak: Annotated[int, Meta(ge=0, le=30)] | None = None  # the soak pool: Stamina (plus armour) when not given
    spell_defense: Annotated[int, Meta(ge=0, le=30)] = 0  # the pool of a defensive spell, if any
    weapons: tuple[Weapon, ...] = ()

    def soak_pool(self) -> int:
        """The soak pool: the `soak` stat, or Stamina."""
        return self.stamina if self.soak is None else self.soak

    def weapon(self, name: str | None) -> Weapon | None:
        """The weapon named `name` (the first one if None)."""
        for w in self.weapons:
            if name is None or w.name == name:
                return w
        return None

    def attack_pool(self, w: Weapon) -> int:
        """Dexterity + the weapon's ability (Brawl, Weaponry, Archery, Athletics), or a spell's own pool."""
        if w.kind == "spell":
            return w.pool or 0
        return self.dexterity + int(getattr(self, ATTACK_ABILITY[w.kind]))

    def defense_pool(self, defense: str) -> int:
        """Block: Dexterity + Brawl; parry: Dexterity + Melee; dodge: Dexterity + Dodge; a spell: its pool."""
        if defense == "none":
            return 0
        if defense == "spell":
            return self.spell_defense
        return self.dexterity + int(getattr(self, DEFENSE_ABILITY[defense]))

    # Derived once per combatant (the fold makes the typed model once, when it is added):
    # the policy and every attack ask for them.

    @cached_property
    def best_defenses(self) -> dict[str, str]:
        """stance -> the defense with the biggest pool it allows (the first of equals; none if
        every pool is empty), as versions 1 and 2 allowed them."""
        out = {}
        for stance, defenses in STANCE_DEFENSES_V2.items():
            allowed = [d for d in defenses if d != "none"]
            best = max(allowed, key=lambda d: (self.defense_pool(d), -allowed.index(d)))
            out[stance] = best if self.defense_pool(best) > 0 else "none"
        return out

    @cached_property
    def best_defenses_v3(self) -> dict[str, str]:
        """stance -> the defense with the biggest pool it allows (the first of equals; none if
        every pool is empty), the Defense stance's 4 dice counted where they go (version 3)."""
        out = {}
        for stance, defenses in STANCE_DEFENSES.items():
            allowed = [d for d in defenses if d != "none"]

            def pool(d: str, stance: str = stance) -> int:
                return self.defense_pool(d) + (
                    DEFENSE_STANCE_DICE if stance == "defense" and d in DEFENSE_STANCE_ROLLS else 0
                )

            best = max(allowed, key=lambda d: (pool(d), -allowed.index(d)))
            out[stance] = best if self.defense_pool(best) > 0 else "none"
        return out

    @cached_property
    def best_weapon(self) -> Weapon | None:
        """The weapon with the biggest attack pool plus damage dice (the first of equals), None without one."""
        weapons = self.weapons
        if not weapons:
            return None
        return max(weapons, key=lambda w: (self.attack_pool(w) + w.damage, -weapons.index(w)))

    @cached_property
    def armed(self) -> dict[str | None, tuple[Weapon, int]]:
        """`weapon(name)` and its attack pool, by name (None: the first weapon)."""
        out: dict[str | None, tuple[Weapon, int]] = {}
        for w in self.weapons:
            out.setdefault(None, (w, self.attack_pool(w)))
            out.setdefault(w.name, (w, self.attack_pool(w)))
        return out

    @cached_property
    def soak_dice(self) -> int:
        """`soak_pool()`, worked out once."""
        return self.soak_pool()


class HealthLevel(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One box of the health track: its name and its wound penalty (dice lost, ≤ 0)."""

    name: str
    penalty: Annotated[int, Meta(le=0, ge=-10)]


DEFAULT_TRACK = (
    HealthLevel("Bruised", 0),
    HealthLevel("Hurt", -1),
    HealthLevel("Injured", -1),
    HealthLevel("Wounded", -2),
    HealthLevel("Mauled", -2),
    HealthLevel("Crippled", -5),
)


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The encounter's options (`dict=True`: room for the wound penalties, worked out once)."""

    passes: Annotated[
        Literal["repeat", "interleaved"],
        Meta(
            description="second actions: repeat = a second declare/resolve pass after the first; "
            "interleaved = declared with the first, resolved at score - 10 among the others"
        ),
    ] = "repeat"
    health_levels: Annotated[
        tuple[HealthLevel, ...],
        Meta(min_length=1, description="the health track before Incapacitated: [{name, penalty}, ...]"),
    ] = DEFAULT_TRACK
    dazed: Annotated[
        Literal["lose_next_action", "no_effect"], Meta(description="what Dazed does (the text doesn't say)")
    ] = "lose_next_action"
    incapacitated: Annotated[
        Literal["collapse", "die"], Meta(description="what Incapacitated means: collapse (out of the fight) or death")
    ] = "collapse"
    difficulty: Annotated[int, Meta(ge=2, le=10, description="the base difficulty of attacks and defenses")] = 6

    @cached_property
    def penalties(self) -> tuple[int, ...]:
        """damage -> the wound penalty, for damage 0 up to the track's length (more: the last)."""
        return (0, *(int(h.penalty) for h in self.health_levels))

    def wound_penalty(self, damage: int) -> int:
        """The dice lost with `damage` health levels lost (0 or less)."""
        penalties = self.penalties
        return penalties[damage if damage < len(penalties) else -1] if damage > 0 else 0


class Declared(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A combatant's stance and defense for one turn (round)."""

    round: int
    stance: Stance
    defense: Defense


class Effect(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """An extended or delayed action's effect, landing at the end of turn `round`."""

    round: int
    actor: str
    text: str


class State(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Straalara's own state in an encounter."""

    declared: dict[str, Declared] = {}  # combatant -> this turn's stance and defense
    dazing: dict[str, str] = {}  # target -> attacker of a dazing blow whose damage hasn't counted yet
    botch: str | None = None  # an attack botched: the game master rules its adverse effect first
    effects: tuple[Effect, ...] = ()  # extended and delayed effects still to land
