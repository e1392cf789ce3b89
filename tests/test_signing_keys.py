"""Signing keys: a private key only its owner reads, refused in one line when it isn't an Ed25519
key or isn't there, signatures that verify only for their digest and key, and a clear word when
the cryptography package is missing.

Each test here fails against a mutant of `replays/signing.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import stat
import sys

import pytest

pytest.importorskip("cryptography", reason="cryptography isn't installed: pip install -e '.[sign]'")

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from combatlog.events import LogError
from combatlog.replays.signing import keygen, public_hex, signer, verifier


def test_a_new_private_key_is_readable_by_its_owner_only(tmp_path):
    path = tmp_path / "gm.pem"
    public = keygen(path)
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert len(public) == 64 and int(public, 16) >= 0


def test_keygen_never_writes_over_a_file(tmp_path):
    path = tmp_path / "gm.pem"
    path.write_text("precious")
    with pytest.raises(FileExistsError):
        keygen(path)
    assert path.read_text() == "precious"


def test_a_signature_verifies_for_its_digest_and_key_only(tmp_path):
    public = keygen(tmp_path / "gm.pem")
    other = keygen(tmp_path / "other.pem")
    sign = signer(tmp_path / "gm.pem")
    key, signature = sign("ab" * 32)
    assert key == public
    assert verifier(public)("ab" * 32, signature)
    assert not verifier(public)("cd" * 32, signature)
    assert not verifier(other)("ab" * 32, signature)
    assert not verifier(public)("ab" * 32, "not hex at all")  # a forged line's garbage: False, no traceback


def test_a_missing_key_file_is_one_line(tmp_path):
    with pytest.raises(LogError, match=r"gone\.pem: not an Ed25519 private key \("):
        signer(tmp_path / "gone.pem")


def test_a_key_of_another_kind_is_refused_with_how_to_make_one(tmp_path):
    path = tmp_path / "ec.pem"
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(pem)
    with pytest.raises(LogError, match="not an Ed25519 private key; make one with `combatlog keygen`"):
        signer(path)


def test_a_public_key_of_the_wrong_length_is_one_line_quoting_its_first_20_characters():
    with pytest.raises(LogError, match="64 hex digits"):
        verifier("ab" * 16)
    bad = "0123456789abcdefghij" + "k" * 60
    with pytest.raises(LogError) as error:
        verifier(bad)
    assert str(error.value).startswith("--key '0123456789abcdefghij': an Ed25519 public key is 64 hex digits")


def test_without_the_cryptography_package_signing_says_what_to_install(monkeypatch, tmp_path):
    public = keygen(tmp_path / "gm.pem")
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives", None)  # import fails
    for call in (lambda: keygen(tmp_path / "k.pem"), lambda: verifier(public), lambda: public_hex(None)):
        with pytest.raises(LogError, match=r"pip install 'combatlog\[sign\]'"):
            call()
