"""Signing a step as it is appended: an Ed25519 key, from a file or from the environment.

The session signs (`combatlog.engine.session.Session`), so every path that appends (the
command line, `play`, the web tracker, the Python API) signs alike when
COMBATLOG_SIGNING_KEY names a key. `cryptography` (the `sign` extra) is imported only to
sign; `combatlog.replays.signing` makes keys and checks signatures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from combatlog.events import LogError

KEY_VARIABLE = "COMBATLOG_SIGNING_KEY"


def crypto() -> Any:
    """`cryptography`'s serialization and Ed25519 modules; raises LogError when it isn't installed."""
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise LogError("signing needs the cryptography package: pip install 'combatlog[sign]'") from None
    return serialization, ed25519


def public_hex(key: Any) -> str:
    serialization, _ = crypto()
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return str(raw.hex())


def signer(path: Path) -> Callable[[str], tuple[str, str]]:
    """A Session's signer from the private key at `path`: digest -> (public key hex, signature hex)."""
    serialization, ed25519 = crypto()
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as exc:
        raise LogError(f"{path}: not an Ed25519 private key ({exc})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise LogError(f"{path}: not an Ed25519 private key; make one with `combatlog keygen`")
    public = public_hex(key)
    return lambda digest: (public, key.sign(digest.encode()).hex())


def from_environment() -> Callable[[str], tuple[str, str]] | None:
    """The signer of the key COMBATLOG_SIGNING_KEY names (None when it names none); raises
    LogError, one line, for a file that isn't such a key."""
    path = os.environ.get(KEY_VARIABLE)
    return signer(Path(path)) if path else None
