"""Signed steps: a game master's Ed25519 key signs each step's last digest as it is appended
(`StepSigned`), so a log re-chained after an edit fails its audit even where the dice agree.

`cryptography` (the `sign` extra) does the cryptography; nothing here is needed to read or
audit an unsigned log. `keygen(path)` writes a private key (PEM, readable by its owner only)
and returns the public key as hex, the form `audit --key` takes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from combatlog.events import LogError


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:
        raise LogError("signing needs the cryptography package: pip install 'combatlog[sign]'") from None
    return serialization, ed25519


def keygen(path: Path) -> str:
    """Write a new Ed25519 private key to `path` (which must not exist); returns its public key, hex."""
    serialization, ed25519 = _crypto()
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return public_hex(key)


def public_hex(key: Any) -> str:
    serialization, _ = _crypto()
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return str(raw.hex())


def signer(path: Path) -> Callable[[str], tuple[str, str]]:
    """A Session's signer from the private key at `path`: digest -> (public key hex, signature hex)."""
    serialization, ed25519 = _crypto()
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as exc:
        raise LogError(f"{path}: not an Ed25519 private key ({exc})") from None
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise LogError(f"{path}: not an Ed25519 private key; make one with `combatlog keygen`")
    public = public_hex(key)
    return lambda digest: (public, key.sign(digest.encode()).hex())


def verifier(public: str) -> Callable[[str, str], bool]:
    """`check(digest, signature hex) -> bool` for the public key `public` (hex)."""
    _, ed25519 = _crypto()
    try:
        key = ed25519.Ed25519PublicKey.from_public_bytes(bytes.fromhex(public))
    except ValueError:
        raise LogError(f"--key {public[:20]!r}: an Ed25519 public key is 64 hex digits (as keygen prints)") from None

    def check(digest: str, signature: str) -> bool:
        try:
            key.verify(bytes.fromhex(signature), digest.encode())
        except Exception:  # InvalidSignature, or a signature that isn't hex
            return False
        return True

    return check
