"""Everything a rule system outside combatlog needs, from one place.

    from combatlog.plugin import RuleSystem, ActionSpec, Event, allow, register_fold, ...

A system subclasses `RuleSystem`, declares its events (tagged with its name as a prefix,
`minid20.AttackRolled`), their folds (`register_fold`) and the phases they may occur in
(`allow`), its typed `Stats`/`Options`/`State` (msgspec Structs), the version of this API it
was written for (`api = 5`, the number: `API` is this combatlog's), and names its instance in
the `combatlog.rules` entry-point group. `register` (and loading the entry point) checks it and
says what breaks the protocol in one line (`PluginError`), an older plugin's hooks among it.
`docs/writing-a-rule-system.md` walks through one; `combatlog rulesets --check NAME` runs the
checklist on an installed one.
"""

# no `from __future__ import annotations`: it would make `annotations` a name of this module

from msgspec.structs import replace

from combatlog.engine.battlemap import Map
from combatlog.engine.dice import DiceError, Expr, parse
from combatlog.engine.errors import Refused
from combatlog.engine.order import ActionPointOrder, RankedOrder, ReverseDeclareOrder, make_order
from combatlog.engine.protocol import ActionParam, ActionSpec, Draft, OptionSpec, Order, RollMods, RuleSystem
from combatlog.engine.registry import API, PluginError, check, register
from combatlog.engine.timing import Timing, make_timing
from combatlog.engine.typed import DiceExpr, put_row
from combatlog.events import (
    CombatantDefeated,
    Command,
    ConditionApplied,
    ConditionRemoved,
    DamageApplied,
    DiceRolled,
    Event,
    InitiativeRolled,
    Moved,
    OrderSet,
    ResourceSpent,
    ResourcesSet,
)
from combatlog.events.privacy import GameMaster, Seat, Spectator, TableViewer, Viewer
from combatlog.projections import Combatant, Condition, Encounter, Pending
from combatlog.projections.fold import register_fold
from combatlog.projections.phases import DECLARE, END, INITIATIVE, LIVE, RESOLVE, SETUP, SURPRISE, allow

__all__ = [
    "API",
    "DECLARE",
    "END",
    "INITIATIVE",
    "LIVE",
    "RESOLVE",
    "SETUP",
    "SURPRISE",
    "ActionParam",
    "ActionPointOrder",
    "ActionSpec",
    "Combatant",
    "CombatantDefeated",
    "Command",
    "Condition",
    "ConditionApplied",
    "ConditionRemoved",
    "DamageApplied",
    "DiceError",
    "DiceExpr",
    "DiceRolled",
    "Draft",
    "Encounter",
    "Event",
    "Expr",
    "InitiativeRolled",
    "Map",
    "Moved",
    "OptionSpec",
    "Order",
    "OrderSet",
    "Pending",
    "PluginError",
    "RankedOrder",
    "Refused",
    "RollMods",
    "ResourceSpent",
    "ResourcesSet",
    "ReverseDeclareOrder",
    "RuleSystem",
    "Timing",
    "Viewer",
    "GameMaster",
    "TableViewer",
    "Seat",
    "Spectator",
    "allow",
    "check",
    "make_order",
    "make_timing",
    "parse",
    "put_row",
    "register",
    "register_fold",
    "replace",
]
