"""Skirmish's own event types: none. Everything it does is told by the core's events
(`DiceRolled`, `DamageApplied`, `ConditionApplied`, `Moved`, `CombatantDefeated`).

A system with events of its own declares them here as tagged frozen Structs named in the
past tense, with the system's name as the tag's prefix, each with its fold
(`register_fold`) and the phases it is legal in (`allow`); see
`docs/writing-a-rule-system.md`.
"""

from __future__ import annotations

EVENTS: tuple[type, ...] = ()
