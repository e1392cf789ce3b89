"""Fair dice: the game master commits to a secret seed, the players add their own randomness,
and the engine's dice come from all of them together (commit and reveal).

- The **commitment** is the lowercase hex SHA-256 of the text `SEED:NONCE` (the seed a
  whole number in decimal, the nonce 32 lowercase hex digits): `EncounterCreated.commitment`.
- A **contribution** is any text a player gives (`Contributed.value`), public from the start.
- The **effective seed** is the whole number read from the hex SHA-256 of the text
  `dice:SEED:NONCE`, followed, for each contribution in log order, by `:` and the hex SHA-256
  of the contribution's UTF-8 bytes. The engine's dice of step k are `SeededDice(effective, k)`,
  exactly as an ordinary encounter's are `SeededDice(seed, k)`.

Nothing of the seed is in the log until `SeedRevealed`; until then the game master's session
holds it, read from a side file beside the log (`secret_path`), readable by its owner only.
The seed and nonce are drawn from `secrets` once, when the encounter is made: they are
committed in the log, and no decision or fold reads a random source.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from combatlog.events import LogError

SECRET_VARIABLE = "COMBATLOG_FAIR_SECRET"  # names the secret file of a log that isn't a file (PostgreSQL)
SECRET_SUFFIX = ".secret"
MAX_CONTRIBUTION = 200  # characters of one contribution


class Secret(msgspec.Struct, frozen=True, kw_only=True):
    """The game master's seed and nonce of a fair encounter, kept outside the log until the reveal."""

    seed: int
    nonce: str

    @classmethod
    def new(cls) -> Secret:
        """A fresh secret: a 63-bit seed and a 128-bit nonce from the operating system's randomness."""
        return cls(seed=secrets.randbits(63), nonce=secrets.token_hex(16))

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.nonce)


def commitment(seed: int, nonce: str) -> str:
    """The commitment to `seed` and `nonce`: hex SHA-256 of `SEED:NONCE`."""
    return hashlib.sha256(f"{seed}:{nonce}".encode()).hexdigest()


def effective_seed(seed: int, nonce: str, contributions: Iterable[str]) -> int:
    """The seed the engine's dice are drawn from: SHA-256 over `dice:SEED:NONCE` and the hex
    SHA-256 of each contribution in log order, read as a whole number (big-endian)."""
    text = f"dice:{seed}:{nonce}" + "".join(":" + hashlib.sha256(c.encode()).hexdigest() for c in contributions)
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


def is_commitment(text: Any) -> bool:
    """True for 64 lowercase hex digits."""
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def contribution_problem(value: Any) -> str | None:
    """Why `value` can't be a contribution (None: it can): a text of 1 to 200 printable characters."""
    if not isinstance(value, str) or not value.strip():
        return "a contribution is a text: a word, a phrase, a few dice rolled at the table"
    if len(value) > MAX_CONTRIBUTION:
        return f"{len(value):,} characters; a contribution is at most {MAX_CONTRIBUTION}"
    if not value.isprintable():
        return "a contribution is printable text (no control characters or line breaks)"
    return None


def contribution() -> str:
    """A random contribution (32 hex digits) for a player who has none of their own to type."""
    return secrets.token_hex(16)


def secret_path(log: Any) -> Path | None:
    """Where the secret of `log`'s fair encounter is kept: the file COMBATLOG_FAIR_SECRET names,
    else `<the log's file>.secret` beside it; None for a log that isn't a file (name one then)."""
    named = os.environ.get(SECRET_VARIABLE)
    if named:
        return Path(named)
    path = getattr(log, "path", None)
    return Path(f"{path}{SECRET_SUFFIX}") if path is not None else None


_decode = msgspec.json.Decoder(Secret).decode


def read_secret(path: Path, expected: str | None = None) -> Secret:
    """The secret kept at `path`, checked against the commitment `expected` when given; raises
    LogError, one line, for a file that is missing, isn't a secret, or doesn't match."""
    try:
        secret = _decode(path.read_bytes())
    except FileNotFoundError:
        raise LogError(f"{path}: no such file (the game master's secret of a fair encounter)") from None
    except OSError as exc:
        raise LogError(f"{path}: can't read the secret ({exc.strerror})") from None
    except msgspec.DecodeError as exc:
        raise LogError(f"{path}: not a fair encounter's secret ({exc})") from None
    if expected is not None and secret.commitment != expected:
        raise LogError(f"{path}: its seed and nonce don't match this log's commitment ({expected[:16]}...)")
    return secret


def write_secret(path: Path, secret: Secret) -> None:
    """Keep `secret` at `path`, a new file readable and writable by its owner only; raises
    LogError when the file exists (a secret is never overwritten) or can't be written."""
    data = msgspec.json.encode({"seed": secret.seed, "nonce": secret.nonce, "commitment": secret.commitment}) + b"\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise LogError(f"{path} exists; a fair encounter's secret is never overwritten (move it away)") from None
    except OSError as exc:
        raise LogError(f"{path}: can't write the secret ({exc.strerror})") from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
