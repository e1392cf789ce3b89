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

from combatlog.engine.signing import crypto, from_environment, public_hex, signer
from combatlog.events import LogError


def keygen(path: Path) -> str:
    """Write a new Ed25519 private key to `path` (which must not exist); returns its public key, hex."""
    serialization, ed25519 = crypto()
    key = ed25519.Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return public_hex(key)


def verifier(public: str) -> Callable[[str, str], bool]:
    """`check(digest, signature hex) -> bool` for the public key `public` (hex)."""
    _, ed25519 = crypto()
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


__all__ = ["from_environment", "keygen", "public_hex", "signer", "verifier"]
