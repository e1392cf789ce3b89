"""Signed steps: each step ends with the game master's Ed25519 signature of the digest before
it, so a log re-chained after an edit fails `audit --key` even where re-deciding can't see it."""

from __future__ import annotations

import msgspec
import pytest
from click.testing import CliRunner

pytest.importorskip("cryptography", reason="cryptography isn't installed: pip install -e '.[sign]'")

from combatlog.cli.main import app
from combatlog.engine import Session
from combatlog.events import GENESIS, LogError, StepSigned, decode_line, seal
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit, signatures
from combatlog.replays.signing import keygen, signer
from tests.builders import PARTY


@pytest.fixture
def key(tmp_path):
    path = tmp_path / "gm.pem"
    return path, keygen(path)


def signed_fight(path) -> MemoryLog:
    log = MemoryLog()
    s = Session(log, signer=signer(path))
    s.do("create", rules="skirmish", options={}, seed=7)
    for c in PARTY:
        s.do("add", **c)
    s.do("begin")
    s.auto()
    s.auto()
    return log


def rechained(raw: list[bytes], change) -> list[bytes]:
    """`raw` with `change` applied to each event and every line sealed again (signatures kept as they were)."""
    out, previous = [], GENESIS
    for line in raw:
        env = decode_line(line)
        new, sealed = seal(previous, env.seq, env.step, change(env.event))
        previous = sealed.digest
        out.append(new)
    return out


def test_every_step_is_signed_and_audits_clean_with_the_key(key):
    path, public = key
    log = signed_fight(path)
    envs = [decode_line(line) for line in log.lines()]
    steps = {e.step for e in envs}
    assert sum(isinstance(e.event, StepSigned) for e in envs) == len(steps)
    assert audit(log, workers=1).clean  # a signature isn't something the rules decide
    assert signatures(log, public) == []


def test_a_rechained_rename_the_dice_cant_see_fails_the_signatures(key):
    path, public = key
    raw = list(signed_fight(path).lines())

    def rename(event):
        if type(event).__name__ == "CombatantAdded" and event.id == "ayla":
            return msgspec.structs.replace(event, name="Aylaa")
        return event

    forged = MemoryLog()
    forged.append(rechained(raw, rename), expected_seq=1)
    findings = signatures(forged, public)
    assert findings and all(f.kind == "signature" for f in findings)
    assert "doesn't verify" in findings[0].message


def test_another_key_and_an_unsigned_step_are_findings(tmp_path, key):
    path, public = key
    log = signed_fight(path)
    other = keygen(tmp_path / "other.pem")
    assert "signed by another key" in signatures(log, other)[0].message
    Session(log).do("note", text="added without the key")
    assert signatures(log, public)[-1].message.endswith("is not signed")


def test_keygen_never_overwrites_and_a_bad_key_is_one_line(tmp_path):
    target = tmp_path / "k.pem"
    first = CliRunner().invoke(app, ["keygen", str(target)])
    assert first.exit_code == 0 and len(first.output.strip()) == 64
    again = CliRunner().invoke(app, ["keygen", str(target)])
    assert again.exit_code == 1 and "never overwritten" in again.output
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key")
    with pytest.raises(LogError, match="not an Ed25519 private key"):
        signer(bad)
    with pytest.raises(LogError, match="64 hex digits"):
        signatures(MemoryLog(), "zz")


def test_signing_from_the_command_line_keygen_sign_and_audit_with_the_key(tmp_path, monkeypatch):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"
    runner = CliRunner()
    made = runner.invoke(app, ["keygen", str(tmp_path / "gm.pem")])
    assert made.exit_code == 0, made.output
    public = made.output.strip()
    log = tmp_path / "signed.jsonl"
    monkeypatch.setenv("COMBATLOG_SIGNING_KEY", str(tmp_path / "gm.pem"))
    for args in (["new", str(example), str(log)], ["do", str(log), "begin"], ["do", str(log), "auto"]):
        assert runner.invoke(app, args).exit_code == 0
    checked = runner.invoke(app, ["audit", str(log), "--key", public])
    assert checked.exit_code == 0 and "clean" in checked.output, checked.output
    monkeypatch.delenv("COMBATLOG_SIGNING_KEY")
    assert runner.invoke(app, ["do", str(log), "auto"]).exit_code == 0  # a step nobody signed
    unsigned = runner.invoke(app, ["audit", str(log), "--key", public])
    assert unsigned.exit_code == 1 and "is not signed" in unsigned.output, unsigned.output
    assert runner.invoke(app, ["audit", str(log)]).exit_code == 0  # without --key, signatures aren't asked for


def test_every_path_that_appends_signs_with_the_key_the_environment_names(tmp_path, key, monkeypatch):
    # the command line, play, the web tracker and the Python API: one audit --key finds every step signed
    from litestar.testing import TestClient

    from combatlog.replays import open_log
    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables
    from tests.test_web import post

    path, public = key
    monkeypatch.setenv("COMBATLOG_SIGNING_KEY", str(path))
    runner = CliRunner()
    encounter = tmp_path / "ford.toml"
    assert runner.invoke(app, ["init", "--rules", "skirmish", str(encounter)]).exit_code == 0
    log = tmp_path / "ford.db"
    assert runner.invoke(app, ["new", str(encounter)]).exit_code == 0  # the command line
    assert runner.invoke(app, ["do", str(log), "begin"]).exit_code == 0
    played = runner.invoke(app, ["play", str(log)], input="auto\nnote the bridge holds\n")  # play
    assert played.exit_code == 0, played.output
    tables = Tables.single(str(log), b"a test secret")  # the web tracker
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        assert post(client, table, kind="auto").status_code == 200
        assert post(client, table, kind="line", line="note from the browser").status_code == 200
    table.close()
    opened = open_log(str(log), create=False)  # the Python API
    try:
        Session(opened).do("note", text="from a script")
    finally:
        opened.close()
    checked = runner.invoke(app, ["audit", str(log), "--key", public])
    assert checked.exit_code == 0, checked.output
    steps = runner.invoke(app, ["replay", str(log), "--json"]).output
    assert steps.count('"StepSigned"') == steps.count('"CommandIssued"') >= 8
    assert "from a script" in steps and "from the browser" in steps


def test_a_session_asked_for_no_signature_signs_nothing_whatever_the_environment_says(key, monkeypatch):
    path, _ = key
    monkeypatch.setenv("COMBATLOG_SIGNING_KEY", str(path))
    log = MemoryLog()
    Session(log, signer=None).do("create", rules="skirmish", options={}, seed=7)
    assert not any(b"StepSigned" in line for line in log.lines())
    monkeypatch.setenv("COMBATLOG_SIGNING_KEY", str(path.with_name("missing.pem")))
    with pytest.raises(LogError, match="missing.pem"):
        Session(MemoryLog())
