"""Timing strategies: when declared actions resolve, and when their damage counts.

- turn-based: each action resolves as soon as it is declared; damage counts at once.
- simultaneous: everyone declares; then everything resolves; damage is held until the
  round ends, so a combatant who falls this round still acts.
- mixed: turn-based or simultaneous chosen per category of action (movement, shooting,
  melee); the simultaneous ones resolve after the declarations, movement first, then
  shooting, then melee, and their damage counts at the end of the round.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CATEGORIES = ("movement", "shooting", "melee")
MODES = ("turn", "simultaneous")


@dataclass(frozen=True)
class Timing:
    """How each category of action is timed; categories not named use `default`."""

    default: str = "turn"
    per_category: dict[str, str] = field(default_factory=dict)
    hold_damage: bool = True
    hold_until: str = "round"  # "round": held damage counts when the round ends; "tier": when actions
    # with equal resolution keys (a tier acting together) have all resolved
    all_immediate: bool = field(init=False, repr=False, compare=False)
    """True when every action resolves as soon as it is declared (turn-based throughout): worked
    out once, asked at every turn's start."""

    def __post_init__(self) -> None:
        for mode in (self.default, *self.per_category.values()):
            if mode not in MODES:
                raise ValueError(f"unknown timing {mode!r}; use turn or simultaneous")
        if self.hold_until not in ("round", "tier"):
            raise ValueError(f"unknown hold_until {self.hold_until!r}; use round or tier")
        every = self.default == "turn" and all(m == "turn" for m in self.per_category.values())
        object.__setattr__(self, "all_immediate", every)  # frozen: set once, here

    @property
    def name(self) -> str:
        modes = {self.mode(c) for c in CATEGORIES} | {self.default}
        return modes.pop() if len(modes) == 1 else "mixed"

    def mode(self, category: str | None) -> str:
        """`turn` or `simultaneous` for actions of `category`."""
        return self.per_category.get(category or "", self.default)

    def immediate(self, category: str | None) -> bool:
        """True when an action of `category` resolves as soon as it is declared."""
        return self.per_category.get(category or "", self.default) == "turn"  # (mode, inlined: asked every action)

    @staticmethod
    def category_rank(category: str | None) -> int:
        """Movement resolves first, then shooting, then melee, then everything else."""
        return CATEGORIES.index(category) if category in CATEGORIES else len(CATEGORIES)


def make_timing(
    kind: str, per_category: dict[str, str] | None = None, hold_damage: bool = True, hold_until: str = "round"
) -> Timing:
    """The timing named `kind`: turn, simultaneous, or mixed (with `per_category`)."""
    if kind in MODES:
        return Timing(default=kind, hold_damage=hold_damage, hold_until=hold_until)
    if kind == "mixed":
        per = dict(per_category or {})
        for cat in per:
            if cat not in CATEGORIES:
                raise ValueError(f"unknown category {cat!r}; use movement, shooting or melee")
        return Timing(default="turn", per_category=per, hold_damage=hold_damage, hold_until=hold_until)
    raise ValueError(f"unknown timing {kind!r}; use turn, simultaneous or mixed")
