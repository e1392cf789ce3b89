"""combatlog.engine: commands, decide, dice, order and timing strategies, rule systems, policies."""

from combatlog.engine.decide import CORE_COMMANDS, decide, legal_commands, rules_of
from combatlog.engine.dice import (
    Dice,
    DiceError,
    EnteredDice,
    NeedDice,
    RecordedDice,
    ScriptedDice,
    SeededDice,
    parse,
)
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.order import ActionPointOrder, RankedOrder, ReverseDeclareOrder, make_order
from combatlog.engine.protocol import ActionParam, ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.registry import get as get_rules
from combatlog.engine.registry import names as rule_names
from combatlog.engine.registry import register
from combatlog.engine.session import Session, dice_for, load
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import Command

__all__ = [
    "CORE_COMMANDS",
    "decide",
    "legal_commands",
    "rules_of",
    "Dice",
    "DiceError",
    "EnteredDice",
    "NeedDice",
    "RecordedDice",
    "ScriptedDice",
    "SeededDice",
    "parse",
    "Draft",
    "Refused",
    "ActionPointOrder",
    "RankedOrder",
    "ReverseDeclareOrder",
    "make_order",
    "ActionParam",
    "ActionSpec",
    "OptionSpec",
    "RuleSystem",
    "get_rules",
    "rule_names",
    "register",
    "Session",
    "dice_for",
    "load",
    "Timing",
    "make_timing",
    "Command",
]
