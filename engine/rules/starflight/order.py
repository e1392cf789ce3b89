"""Starflight's orders: initiative after the composite strength index is totalled, and Simple
Combat's (no initiative: every group at once)."""

from __future__ import annotations

from combatlog.engine.order import RankedOrder
from combatlog.engine.protocol import Draft
from combatlog.engine.rules.starflight.events import SimpleCombatStarted, StrengthTotalled
from combatlog.engine.rules.starflight.reading import csi
from combatlog.engine.rules.starflight.simple_combat import simple_groups
from combatlog.events import OrderSet


class SimpleOrder(RankedOrder):
    """Simple Combat has no initiative: every group rolls in each exchange, all at once."""

    name = "simple"

    def roll(self, draft: Draft) -> None:
        state = draft.state
        draft.emit(StrengthTotalled(csi=csi(state), reason="initial"))
        groups = simple_groups(state)
        draft.emit(SimpleCombatStarted(groups={g: tuple(ids) for g, ids in groups.items()}))
        draft.emit(OrderSet(tiers=(tuple(c.id for c in state.active()),), reason="simple combat"))


class StarflightOrder(RankedOrder):
    """The initiative order, after the composite strength index is totalled."""

    def roll(self, draft: Draft) -> None:
        draft.emit(StrengthTotalled(csi=csi(draft.state), reason="initial"))
        super().roll(draft)
