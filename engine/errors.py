"""The one error a command can meet: Refused, saying what, why, and what is allowed now."""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A command can't be carried out now; nothing was appended.

    The message is one line for a person: what was refused, why, and what would be allowed.
    """

    def __init__(self, what: str, why: str, allowed: str = "") -> None:
        message = f"{what}: {why}"
        if allowed:
            message += f"; {allowed}"
        super().__init__(message)
        self.what = what
        self.why = why
        self.allowed = allowed
        self.need: Any = None  # a refusal for a roll not entered: the NeedDice saying which, and whose

    def __reduce__(self) -> tuple[type[Refused], tuple[str, str, str]]:
        # made again from its three parts: a refusal met in a worker process (a simulation's
        # process pool, a cluster's executor) reaches the caller whole, not as a broken pool
        return (type(self), (self.what, self.why, self.allowed))
