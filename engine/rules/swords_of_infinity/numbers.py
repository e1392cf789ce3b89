"""The numbers the text's worked examples give: power, criticals, block damage (Bjoric), dodge
(Parthenia), knockback, Exploit stacks, hit locations, resisted movement."""

from __future__ import annotations

from typing import Any

from combatlog.engine.rules.swords_of_infinity.model import RESISTED


def power_of(roll: int, tn: int) -> int:
    """A Power check's power: the roll when it is at or under the TN, else 0."""
    return roll if roll <= tn else 0


def critical(roll: int, tn: int) -> bool:
    """A roll at or under a tenth of its TN is critical (our reading)."""
    return roll <= tn // 10


def block_damage(power: int, armor_class: int, shield_class: int) -> int:
    """Damage through a block: power less 10 per class of armour and the blocking shield (Bjoric's block)."""
    return max(0, power - 10 * (armor_class + shield_class))


def dodged(defense_roll: int, attack_roll: int, tn: int) -> bool:
    """A dodge succeeds at or under both the attacker's hit roll and one's own TN (Parthenia's dodge)."""
    return defense_roll <= attack_roll and defense_roll <= tn


def knockback_damage(knockback_feet: int, obstacle_feet: int | None) -> int:
    """Damage from hitting an obstacle: the distance not travelled (30 ft towards a wall 10 ft away: 20)."""
    if obstacle_feet is None:
        return 0
    return max(0, knockback_feet - obstacle_feet)


def exploit_stacks(weapon_exploit: int, attacker_size: int, target_vulnerable: bool) -> int:
    """Vulnerability stacks one Vulnerable source gives an attack with Exploit (the weapon's, 1 per size below 0)."""
    if not target_vulnerable:
        return 0
    return 1 + weapon_exploit + max(0, -attacker_size)


def location(roll: int, composition_: dict[str, Any]) -> str:
    """The damage target the d% roll's ones digit (0 = 10) falls on."""
    digit = roll % 10 or 10
    for name, (lo, hi) in composition_.items():
        if lo <= digit <= hi:
            return name
    return next(iter(composition_))


def moved_squares(kind: str, power: int, walk: int, rough: bool) -> int:
    """Squares a resisted move covers for its power (a sprint never less than a walk; rough terrain halves it)."""
    squares = power // RESISTED[kind]
    if kind == "sprint":
        if rough:
            squares //= 2
        squares = max(squares, walk)
    return squares
