"""Fair dice (commit and reveal): random fights of every bundled example, played fair, then
forged every way a game master or a player could, and checked as `audit --fair` checks them,
from the log and from the table's export."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.cli.main import app
from combatlog.engine import Refused, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.fair import Secret, commitment, effective_seed, read_secret, write_secret
from combatlog.engine.lean import LeanSession
from combatlog.events import (
    GENESIS,
    Command,
    CommandIssued,
    Contributed,
    DiceRolled,
    EncounterCreated,
    LogError,
    SeedRevealed,
    decode_line,
    seal,
)
from combatlog.replays import MemoryLog
from combatlog.replays.audit import UNREVEALED, audit
from combatlog.replays.cursor import envelopes
from combatlog.replays.fair import check
from combatlog.replays.views import TABLE, hidden_at, seen, viewed_envelopes
from tests.builders import lines, resealed

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def log_of(raw: list[bytes]) -> MemoryLog:
    log = MemoryLog()
    log._lines = list(raw)
    return log


def rechained(raw: list[bytes], change) -> list[bytes]:
    """`raw` with every envelope passed through `change` and every line sealed again (a forger's log)."""
    out, previous = [], GENESIS
    for line in raw:
        env = change(decode_line(line))
        new, sealed = seal(previous, env.seq, env.step, env.event)
        previous = sealed.digest
        out.append(new)
    return out


def fair_commands(path: Path, fair: bool | str = True) -> list[Command]:
    commands = read_encounter(path)
    params = {k: v for k, v in commands[0].params.items() if k != "seed"}
    commands[0] = Command(kind="create", params={**params, "fair": fair})
    return commands


def fair_fight(path: Path, secret: Secret, contributions: list[str], steps: int = 40, reveal: bool = True) -> Session:
    """The example at `path` made fair with `secret`, a seat's contribution each, begun and played
    by the policy for at most `steps` steps, ended, and revealed when `reveal`."""
    session = Session(MemoryLog(), signer=None, secret=secret)
    for command in fair_commands(path):
        session.execute(command)
    for n, value in enumerate(contributions):
        session.contribute(value, by=f"seat:p{n}")
    session.execute(Command(kind="begin"))
    for _ in range(steps):
        if session.state.phase == "end":
            break
        session.auto()
    if session.state.phase != "end":
        session.execute(Command(kind="end"))
    if reveal:
        session.reveal()
    return session


def table_export(log: MemoryLog) -> list:
    """What the table receives of `log`, as `export --viewer table` writes it, read back."""
    encode = msgspec.json.Encoder().encode
    return [
        decode_line(encode(env)) for env in viewed_envelopes(envelopes(log), TABLE, log, hidden_at(log, None, TABLE))
    ]


secrets_ = st.builds(
    Secret,
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    nonce=st.binary(min_size=16, max_size=16).map(bytes.hex),
)
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz 0123456789", min_size=1, max_size=20).filter(str.strip)
fights = st.tuples(st.sampled_from(EXAMPLES), secrets_, st.lists(words, min_size=0, max_size=3))
# secrets long enough that finding one's digits in a text means it is there, not that a die showed them
long_secrets = st.builds(
    Secret,
    seed=st.integers(min_value=10**15, max_value=2**63 - 1),
    nonce=st.binary(min_size=16, max_size=16).map(bytes.hex).filter(lambda h: len(set(h)) > 6),
)
long_fights = st.tuples(st.sampled_from(EXAMPLES), long_secrets, st.lists(words, min_size=0, max_size=3))


def engine_dice(raw: list[bytes]) -> list[int]:
    """The indexes of `raw`'s lines that are engine dice showing at least one face."""
    out = []
    for i, line in enumerate(raw):
        e = decode_line(line).event
        if type(e) is DiceRolled and e.source == "engine" and e.faces:
            out.append(i)
    return out


# --- the definitions ---------------------------------------------------------------------


def test_the_commitment_and_the_effective_seed_are_the_documented_hashes():
    # the worked example of docs/fair-dice.md, as a player checks it with sha256sum
    seed, nonce = 5551234, "00112233445566778899aabbccddeeff"
    assert commitment(seed, nonce) == hashlib.sha256(b"5551234:00112233445566778899aabbccddeeff").hexdigest()
    owl = hashlib.sha256(b"owl feather").hexdigest()
    text = f"dice:5551234:00112233445566778899aabbccddeeff:{owl}".encode()
    assert effective_seed(seed, nonce, ["owl feather"]) == int(hashlib.sha256(text).hexdigest(), 16)
    # without contributions it is still not the commitment (which is public)
    assert effective_seed(seed, nonce, []) != int(commitment(seed, nonce), 16)


# --- fights played fair ------------------------------------------------------------------


@FAST
@given(fights)
def test_a_revealed_fair_fight_audits_clean_and_every_engine_die_follows_from_the_seed(fight):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions)
    report = audit(session.log)
    assert report.findings == [] and report.notes == []
    fair = check(envelopes(session.log))
    assert fair.findings == [] and fair.revealed and fair.contributions == len(contributions)
    assert fair.checked == sum(1 for i in engine_dice(lines(session))) > 0


@FAST
@given(fights)
def test_after_the_reveal_the_tables_export_passes_audit_fair(fight):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions)
    fair = check(table_export(session.log))
    assert fair.findings == [] and fair.revealed
    assert fair.checked > 0
    assert fair.contributions == len(contributions)


@FAST
@given(long_fights)
def test_before_the_reveal_nothing_the_table_receives_holds_the_seed_or_the_effective_seed(fight):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions, reveal=False)
    state = session.state
    effective = effective_seed(secret.seed, secret.nonce, contributions)
    secrets_shown = [str(secret.seed), secret.nonce, str(effective), f"{effective:x}"]
    encode = msgspec.json.Encoder().encode
    received = b"\n".join(encode(env) for env in table_export(session.log)).decode()
    board = json.dumps(msgspec.to_builtins(seen(state, TABLE, session.projection.seq)))
    log_itself = b"\n".join(lines(session)).decode()  # nor the game master's log: the seed isn't in it
    for text in (received, board, log_itself):
        assert not [s for s in secrets_shown if s in text]
    assert state.fair is not None and state.fair.commitment in received  # the commitment is public
    fair = check(table_export(session.log))
    assert fair.findings == [] and not fair.revealed and fair.unchecked > 0
    assert any("isn't revealed yet" in n for n in fair.notes)


@FAST
@given(fights)
def test_before_the_reveal_the_audit_is_clean_and_says_it_cant_check_the_engine_dice(fight):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions, reveal=False)
    report = audit(session.log)
    assert report.findings == [] and report.notes == [UNREVEALED]


# --- forgeries -----------------------------------------------------------------------------


@FAST
@given(fights, st.data())
def test_a_changed_engine_die_is_caught_from_the_log_and_from_the_export(fight, data):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions)
    raw = lines(session)
    i = data.draw(st.sampled_from(engine_dice(raw)))
    rolled = decode_line(raw[i]).event
    k = data.draw(st.integers(0, len(rolled.faces) - 1))
    other = rolled.faces[k] + 1 if rolled.faces[k] == 1 else rolled.faces[k] - 1  # another face of its die

    def forged(env):
        faces = tuple(other if n == k else f for n, f in enumerate(env.event.faces))
        return msgspec.structs.replace(env, event=msgspec.structs.replace(env.event, faces=faces))

    log = log_of(resealed(raw, i, forged))  # the digest chain made good again, as a forger would
    assert i + 1 in {f.seq for f in check(envelopes(log)).findings if f.kind == "dice"}
    assert audit(log).findings  # re-deciding the step catches it too
    export = table_export(session.log)
    j = next(n for n, env in enumerate(export) if env.seq == i + 1)
    if export[j].event.faces:  # a secret roll reaches the table redacted: nothing there to forge
        export[j] = forged(export[j])
        assert [f.seq for f in check(export).findings] == [i + 1]


@FAST
@given(fights, st.integers(min_value=0, max_value=2**63 - 1), st.booleans())
def test_a_seed_or_nonce_other_than_the_committed_ones_never_passes(fight, other, change_nonce):
    path, secret, contributions = fight
    # a seed chosen after the contributions were seen (to steer the dice) can't match the commitment
    forged = Secret(seed=secret.seed, nonce=f"{other:032x}") if change_nonce else Secret(seed=other, nonce=secret.nonce)
    if forged == secret:
        return
    session = fair_fight(path, secret, contributions, reveal=False)
    with pytest.raises(Refused, match="don't match the commitment"):
        session.execute(Command(kind="reveal", params={"seed": forged.seed, "nonce": forged.nonce}))
    # the whole fight rolled from the forged secret under the honest commitment, chain made good
    cheat = lines(fair_fight(path, forged, contributions))

    def honest(env):
        e = env.event
        if type(e) is EncounterCreated:
            e = msgspec.structs.replace(e, commitment=secret.commitment)
        elif type(e) is CommandIssued and e.command.kind == "create":
            params = {**e.command.params, "commitment": secret.commitment}
            e = msgspec.structs.replace(e, command=msgspec.structs.replace(e.command, params=params))
        return msgspec.structs.replace(env, event=e)

    log = log_of(rechained(cheat, honest))
    findings = check(envelopes(log)).findings
    reveal = next(f for f in findings if f.kind == "fair")
    assert type(decode_line(log._lines[reveal.seq - 1]).event) is SeedRevealed
    assert "don't match the commitment" in reveal.message
    assert audit(log).findings  # re-deciding the reveal refuses it


@FAST
@given(fights, st.data())
def test_a_changed_contribution_is_caught(fight, data):
    path, secret, contributions = fight
    if not contributions:
        contributions = ["lantern"]
    session = fair_fight(path, secret, contributions)
    raw = lines(session)
    at = [i for i, line in enumerate(raw) if type(decode_line(line).event) is Contributed]
    i = data.draw(st.sampled_from(at))

    def forged(env):
        return msgspec.structs.replace(env, event=msgspec.structs.replace(env.event, value=env.event.value + "!"))

    log = log_of(resealed(raw, i, forged))
    findings = check(envelopes(log)).findings
    assert findings and all(f.kind == "dice" for f in findings)  # every die now disagrees with the seed
    export = table_export(session.log)
    j = next(n for n, env in enumerate(export) if env.seq == i + 1)
    export[j] = forged(export[j])
    assert check(export).findings


@FAST
@given(fights)
def test_a_changed_revealed_seed_is_caught(fight):
    path, secret, contributions = fight
    session = fair_fight(path, secret, contributions)
    raw = lines(session)
    i = next(i for i, line in enumerate(raw) if type(decode_line(line).event) is SeedRevealed)

    def forged(env):
        return msgspec.structs.replace(env, event=SeedRevealed(seed=env.event.seed ^ 1, nonce=env.event.nonce))

    findings = check(envelopes(log_of(resealed(raw, i, forged)))).findings
    assert [(f.seq, f.kind) for f in findings] == [(i + 1, "fair")]


# --- the contributions come first ----------------------------------------------------------


def skirmish() -> Path:
    return next(p for p in EXAMPLES if p.name.startswith("skirmish"))


def test_a_contribution_after_the_first_engine_die_is_refused_even_after_undoing_it():
    session = fair_fight(skirmish(), Secret(seed=1, nonce="ab" * 16), ["moth"], steps=0, reveal=False)
    session.undo()  # the end
    session.undo()  # the beginning and its initiative dice: undone, but rolled and seen
    with pytest.raises(Refused, match="the engine's dice have rolled already"):
        session.contribute("chosen knowing the dice", by="seat:late")
    with pytest.raises(Refused, match="is a contribution, and the engine's dice have rolled since"):
        session.undo()


def test_a_contribution_forged_in_after_the_first_engine_die_is_a_finding_at_its_seq():
    session = fair_fight(skirmish(), Secret(seed=1, nonce="ab" * 16), ["moth"], steps=2)
    raw = lines(session)
    die = engine_dice(raw)[0]
    late = next(i for i, line in enumerate(raw) if i > die and type(decode_line(line).event) is not DiceRolled)
    step = decode_line(raw[late]).step

    def forged(env):  # a note's step, made a contribution
        return msgspec.structs.replace(env, event=Contributed(by="seat:late", value="x"))

    findings = check(envelopes(log_of(resealed(raw, late, forged)))).findings
    assert any(f.seq == late + 1 and f.kind == "fair" and "after the first engine die" in f.message for f in findings)
    assert step > 0


def test_contributions_are_a_players_one_each_before_the_fight_and_only_in_a_fair_encounter():
    session = Session(MemoryLog(), signer=None, secret=Secret(seed=3, nonce="cd" * 16))
    for command in fair_commands(skirmish()):
        session.execute(command)
    with pytest.raises(Refused, match="a contribution is a player's"):
        session.contribute("mine", by="gm")
    session.contribute("first", by="seat:a")
    with pytest.raises(Refused, match="seat:a has contributed already"):
        session.contribute("second", by="seat:a")
    with pytest.raises(Refused, match="at most 200"):
        session.contribute("x" * 201, by="seat:b")
    ordinary = Session(MemoryLog(), signer=None)
    for command in read_encounter(skirmish()):
        ordinary.execute(command)
    with pytest.raises(Refused, match="aren't committed"):
        ordinary.contribute("owl", by="seat:a")
    with pytest.raises(Refused, match="nothing to reveal"):
        ordinary.reveal()


# --- where the secret lives -----------------------------------------------------------------


def test_the_secret_file_is_the_owners_alone_never_overwritten_and_checked_against_the_commitment(tmp_path):
    secret = Secret(seed=9, nonce="ef" * 16)
    path = tmp_path / "fight.db.secret"
    write_secret(path, secret)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with pytest.raises(LogError, match="never overwritten"):
        write_secret(path, Secret.new())
    assert read_secret(path, secret.commitment) == secret
    with pytest.raises(LogError, match="don't match this log's commitment"):
        read_secret(path, commitment(10, secret.nonce))


def test_without_the_secret_the_engines_dice_are_refused_in_one_line_and_typed_ones_taken():
    session = fair_fight(skirmish(), Secret(seed=1, nonce="ab" * 16), [], steps=0, reveal=False)
    session.undo()  # the end
    lone = Session(session.log, signer=None, secret=None)
    with pytest.raises(Refused) as refused:
        lone.auto()
    assert "need the game master's secret" in str(refused.value) and "\n" not in str(refused.value)
    falling = {"reason": "a falling rock", "damage": {"target": "g1", "amount": "1d6"}}
    done = lone.execute(Command(kind="override", params=falling, entered=((4,),)))
    assert [e.event.faces for e in done if type(e.event) is DiceRolled] == [(4,)]
    lean = LeanSession()  # decides as a Session does, and holds no secret
    with pytest.raises(Refused, match="committed by a session"):
        lean.execute(fair_commands(skirmish())[0])
    lean.execute(Command(kind="create", params={"rules": "skirmish", "commitment": "ab" * 32}))
    lean.execute(Command(kind="add", params={"id": "a", "side": "x", "stats": {"hp": 3}}))
    lean.execute(Command(kind="add", params={"id": "b", "side": "y", "stats": {"hp": 3}}))
    with pytest.raises(Refused, match="need the game master's secret"):
        lean.execute(Command(kind="begin"))


def test_a_fair_encounter_set_to_reveal_at_its_end_is_revealed_in_the_step_after_the_end():
    session = Session(MemoryLog(), signer=None, secret=Secret(seed=5, nonce="01" * 16))
    for command in fair_commands(skirmish(), fair="end"):
        session.execute(command)
    session.execute(Command(kind="begin"))
    done = session.execute(Command(kind="end"))
    assert [type(e.event).__name__ for e in done][-2:] == ["CommandIssued", "SeedRevealed"]
    assert session.state.fair is not None and session.state.fair.seed == 5
    assert check(envelopes(session.log)).findings == []


def test_an_ordinary_log_audits_as_before_and_audit_fair_says_it_isnt_fair():
    session = Session(MemoryLog(), signer=None)
    for command in read_encounter(skirmish()):
        session.execute(command)
    session.execute(Command(kind="begin"))
    session.auto()
    report = audit(session.log)
    assert report.findings == [] and report.notes == []
    assert [f.message for f in check(envelopes(session.log)).findings] == [
        "the encounter's dice aren't committed: a seed, not a commitment (not fair)"
    ]


# --- the command line ----------------------------------------------------------------------


def test_the_worked_example_at_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMBATLOG_FAIR_SECRET", raising=False)
    monkeypatch.delenv("COMBATLOG_SIGNING_KEY", raising=False)
    runner = CliRunner()
    Path("ford.toml").write_text(skirmish().read_text())

    def run(*args: str, code: int = 0):
        result = runner.invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result

    made = run("new", "ford.toml", "--fair")
    assert "fair dice: commitment" in made.output and Path("ford.db.secret").exists()
    run("do", "ford.db", "contribute", "owl", "feather", "--by", "seat:ayla")
    run("do", "ford.db", "begin")
    run("do", "ford.db", "auto")
    run("export", "ford.db", "before.jsonl", "--viewer", "table")
    before = run("audit", "--fair", "before.jsonl")
    assert "not revealed yet" in before.output
    run("reveal", "ford.db", code=1)  # the fight goes on
    run("do", "ford.db", "end")
    assert "revealed: seed" in run("reveal", "ford.db").output
    run("export", "ford.db", "after.jsonl", "--viewer", "table")
    after = run("audit", "--fair", "after.jsonl")
    assert re.search(r"\d+ engine rolls? follow from them", after.output)
    assert "revealed;" in run("audit", "--fair", "ford.db").output
    # the export with one face changed: one finding, naming its seq
    rows = Path("after.jsonl").read_bytes().splitlines()
    i = next(n for n, row in enumerate(rows) if b'"DiceRolled"' in row and b'"faces":[' in row)
    row = json.loads(rows[i])
    face = row["event"]["faces"][0]
    row["event"]["faces"][0] = face + 1 if face == 1 else face - 1
    rows[i] = json.dumps(row, separators=(",", ":")).encode()
    Path("forged.jsonl").write_bytes(b"\n".join(rows) + b"\n")
    forged = run("audit", "--fair", "forged.jsonl", code=1)
    assert forged.stdout.splitlines()[0].startswith(f"seq {row['seq']}: dice: ")
    run("new", "ford.toml", "other.db", "--fair", "--seed", "3", code=2)
