"""An action's parameters are declared: a parameter it doesn't take is refused in one line
naming those it does (from each system's version that says so), a declared one is taken,
and the forms, the completion and `rulesets` offer the declared ones. A log recorded before
re-decides as it was recorded."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from combatlog.engine import ActionParam, ActionSpec, Refused, RuleSystem, Session, get_rules, registry
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import ActionDeclared, Command
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# each system, its bundled example, and the version from which its parameters are checked
# (triptycho's rules are at 3: its parameters have been checked since 2)
SYSTEMS = [
    ("skirmish", "skirmish-ambush.toml", 3),
    ("straalara", "straalara-bridge.toml", 3),
    ("triptycho", "triptycho-cistern.toml", 2),
    ("starflight", "starflight-patrol.toml", 2),
    ("infinite-realms", "infinite-realms-road.toml", 3),
    ("swords-of-infinity", "swords-of-infinity-ambush.toml", 3),
]


def started(example: str, seed: int = 3) -> Session:
    s = Session(MemoryLog(), signer=None)
    for command in read_encounter(EXAMPLES / example, seed=seed):
        s.execute(command)
    if s.state.phase in ("setup", "surprise"):
        s.do("begin")
    return s


def an_action_with_parameters(s: Session) -> Command:
    """The first command the automatic policy gives that declares an action with parameters
    (playing on until one comes); skirmish's policy only strikes, so its move is made here."""
    rules = s.rules
    if rules.name == "skirmish":
        return Command(kind="act", actor=s.state.acting[0], action="move", params={"to": "the ford"})
    for _ in range(200):
        state = s.state
        if state.acting:
            command = rules.policy(state, state.combatants[state.acting[0]])
            if command.kind == "act" and command.params:
                return msgspec.structs.replace(command, by="gm")
        s.auto()
    raise AssertionError(f"{rules.name}: the policy gave no action with parameters in 200 steps")


def misspelt(name: str) -> str:
    """`name` with its last two letters swapped (`defense` -> `defenes`), or a letter added."""
    return name[:-2] + name[-1] + name[-2] if len(name) > 2 and name[-1] != name[-2] else name + "e"


@pytest.mark.parametrize(("system", "example", "since"), SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_an_unknown_parameter_is_refused_naming_the_known_ones_and_a_declared_one_is_taken(system, example, since):
    s = started(example)
    rules = get_rules(system)  # its parameters checked from `since`, and in every version since
    assert rules.params_since == since and int(rules.version) >= since
    assert s.state.rules_version == rules.version
    command = an_action_with_parameters(s)
    actor = s.state.combatants[command.actor]
    spec = s.rules.action(s.state, actor, command.action or "")
    known = [p.name for p in spec.params or ()]
    first = next(iter(command.params))
    typo = misspelt(first)
    before = s.log.head()
    with pytest.raises(Refused) as refused:
        s.execute(msgspec.structs.replace(command, params={**command.params, typo: command.params[first]}))
    said = str(refused.value)
    assert said == (
        f"{actor.name}: {spec.name} takes no parameter {typo!r} (did you mean {first}?); it takes: {', '.join(known)}"
    )
    assert s.log.head() == before  # nothing appended
    events = [e.event for e in s.execute(command)]  # the declared ones are taken
    declared = next(e for e in events if type(e) is ActionDeclared)
    assert declared.params == command.params and set(declared.params) <= set(known)


@pytest.mark.parametrize(("system", "example", "since"), SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_every_action_of_the_bundled_systems_declares_its_parameters(system, example, since):
    s = started(example)
    for c in s.state.combatants.values():
        for spec in s.rules.actions(s.state, c):
            assert spec.params is not None, f"{system}: {spec.name} declares no parameters"
            names = [p.name for p in spec.params]
            assert len(names) == len(set(names)), f"{system}: {spec.name} declares one twice"


def test_defence_for_defense_no_longer_rolls_no_defence_in_silence():
    s = started("swords-of-infinity-ambush.toml")
    actor = s.state.combatants[s.state.acting[0]]
    foe = next(c.id for c in s.state.active() if c.side != actor.side)
    with pytest.raises(Refused, match=r"attack takes no parameter 'defence' \(did you mean defense\?\); it takes: "):
        s.do("act", actor=actor.id, action="attack", targets=(foe,), defence="dodge")


def test_an_action_that_takes_none_says_so():
    s = started("skirmish-ambush.toml")
    actor = s.state.combatants[s.state.acting[0]]
    with pytest.raises(Refused, match=f"^{actor.name}: guard takes no parameter 'to'; it takes none$"):
        s.do("act", actor=actor.id, action="guard", to="the ford")


def test_two_unknown_parameters_are_named_together():
    s = started("skirmish-ambush.toml")
    actor = s.state.acting[0]
    with pytest.raises(Refused, match=r"move takes no parameters 'dist', 'plan' \(did you mean distance\?\)"):
        s.do("act", actor=actor, action="move", to="the ford", dist=2, plan="x")


@pytest.mark.parametrize(
    ("example", "action", "params", "says"),
    [
        (
            "swords-of-infinity-ambush.toml",
            "move",
            {"x": 1, "y": 1, "defense": "parry"},
            "use one of block, dodge, none",
        ),
        ("swords-of-infinity-ambush.toml", "move", {"x": 1.5, "y": 1}, "x='1.5': not a whole number"),
        ("straalara-bridge.toml", "defend", {"stance": "aggressive"}, "use one of offense, partial, defense"),
        ("straalara-bridge.toml", "task", {"pool": 3, "modifier": 1}, "takes no parameter 'modifier'"),
        ("straalara-bridge.toml", "task", {"pool": 3, "at_end_of_turn": "yes"}, "use true or false"),
        ("skirmish-ambush.toml", "move", {"to": "ford", "distance": "far"}, "distance='far': not a whole number"),
    ],
)
def test_a_value_outside_the_declared_kind_or_choices_is_refused_naming_what_is_taken(example, action, params, says):
    s = started(example)
    actor = s.state.acting[0]
    before = s.log.head()
    with pytest.raises(Refused, match=re.escape(says)):
        s.do("act", actor=actor, action=action, **params)
    assert s.log.head() == before


def recorded_under(monkeypatch, system: str, version: str) -> None:
    """New encounters of `system` are recorded under `version` of its rules (the class's: undo restores it)."""
    monkeypatch.setattr(type(get_rules(system)), "version", version)


@pytest.mark.parametrize(("system", "example", "since"), SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_a_log_recorded_before_keeps_its_unknown_parameter_and_re_decides_the_same(monkeypatch, system, example, since):
    installed = get_rules(system).version
    recorded_under(monkeypatch, system, str(since - 1))
    s = started(example)
    command = an_action_with_parameters(s)
    typo = "defence"  # no action of any system declares it
    events = [e.event for e in s.execute(msgspec.structs.replace(command, params={**command.params, typo: "dodge"}))]
    declared = next(e for e in events if type(e) is ActionDeclared)
    assert declared.params[typo] == "dodge"  # taken, and kept, as that version did
    s.auto()
    monkeypatch.undo()  # this combatlog's own version again
    report = audit(s.log)  # every step re-decided by the installed rules
    assert report.clean, [str(f) for f in report.findings]
    assert report.notes == [f"recorded under {system} {since - 1}, audited with {installed}"]
    with pytest.raises(Refused, match=f"recorded under {system} {since - 1}, and this combatlog plays"):
        s.auto()  # read and audited, not played on


def test_the_same_command_is_refused_under_the_new_version_and_taken_under_the_old(monkeypatch):
    def attack_with_a_typo(s: Session) -> Command:
        actor = s.state.combatants[s.state.acting[0]]
        foe = next(c.id for c in s.state.active() if c.side != actor.side)
        return Command(kind="act", actor=actor.id, action="attack", targets=(foe,), params={"defence": "dodge"})

    new = started("swords-of-infinity-ambush.toml")
    with pytest.raises(Refused, match="no parameter 'defence'"):
        new.execute(attack_with_a_typo(new))
    recorded_under(monkeypatch, "swords-of-infinity", "2")
    old = started("swords-of-infinity-ambush.toml")
    assert old.execute(attack_with_a_typo(old))  # as swords-of-infinity 2 did: no defence rolled


# --- a version one newer than the one installed ---------------------------------------------


def one_ahead(monkeypatch, system: str = "straalara") -> Session:
    """A fight recorded under the version after the one installed (a newer combatlog's)."""
    installed = get_rules(system).version
    recorded_under(monkeypatch, system, str(int(installed) + 1))
    s = started("straalara-bridge.toml")
    s.auto()
    monkeypatch.undo()
    return s


def test_a_log_recorded_one_version_ahead_is_not_played_on(monkeypatch):
    s = one_ahead(monkeypatch)
    installed = get_rules("straalara").version
    before = s.log.head()
    for go_on in (s.auto, lambda: s.do("note", text="later")):
        with pytest.raises(Refused, match=f"recorded under straalara {int(installed) + 1}, and this combatlog plays"):
            go_on()
    assert s.log.head() == before


def test_a_log_recorded_one_version_ahead_is_not_simulated(monkeypatch):
    from combatlog.simulate.run import moment

    s = one_ahead(monkeypatch)
    installed = get_rules("straalara").version
    with pytest.raises(Refused, match=f"under straalara {int(installed) + 1}, and this combatlog plays straalara"):
        moment(s.log)


def test_a_log_recorded_one_version_ahead_is_an_audit_finding(monkeypatch):
    s = one_ahead(monkeypatch)
    findings = audit(s.log).findings
    assert findings and findings[0].kind == "unfollowed" and findings[0].seq == 2


# --- a plugin's actions ----------------------------------------------------------------------


def _struck(draft, pending) -> str:
    return "struck"


class Duel(RuleSystem):
    """A third party's system: a blow that declares no parameters, and a feint that declares one."""

    name = "duel-params"

    def initiative(self, draft, combatant, ids):
        return draft.roll("1d6", "initiative", by=combatant.id).total

    def actions(self, state, actor):
        return [
            ActionSpec("blow", "melee", {}, _struck),
            ActionSpec("feint", "melee", {}, _struck, params=(ActionParam("side", choices=("left", "right")),)),
        ]


@pytest.fixture
def duel(monkeypatch):
    monkeypatch.setitem(registry._systems, "duel-params", Duel())
    s = Session(MemoryLog(), signer=None)
    s.do("create", rules="duel-params", seed=2)
    s.do("add", id="a", side="left")
    s.do("add", id="b", side="right")
    s.do("begin")
    return s


def test_a_plugins_action_that_declares_no_parameters_takes_any_as_before(duel):
    actor = duel.state.acting[0]
    events = [e.event for e in duel.do("act", actor=actor, action="blow", targets=("b" if actor == "a" else "a",), x=1)]
    assert next(e for e in events if type(e) is ActionDeclared).params == {"x": 1}


def test_a_plugins_action_that_declares_its_parameters_refuses_another(duel):
    actor = duel.state.acting[0]
    target = ("b" if actor == "a" else "a",)
    with pytest.raises(Refused, match="feint takes no parameter 'sid' \\(did you mean side\\?\\); it takes: side"):
        duel.do("act", actor=actor, action="feint", targets=target, sid="left")
    with pytest.raises(Refused, match="side='up': not an accepted value; use one of left, right"):
        duel.do("act", actor=actor, action="feint", targets=target, side="up")
    assert duel.do("act", actor=actor, action="feint", targets=target, side="left")


# --- what the forms, the completion and rulesets offer ---------------------------------------


def test_the_web_form_for_act_lists_the_declared_parameters_and_refuses_another(tmp_path):
    pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")
    from litestar.testing import TestClient

    from combatlog.replays.cursor import envelopes
    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables
    from tests.test_web import head, new_log, post, refusal
    from tests.web_support import SECRET

    tables = Tables.single(str(new_log(tmp_path / "ambush.db", EXAMPLES / "swords-of-infinity-ambush.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        page = client.get(f"/gm/{table.gm_token}").text
        fields = {
            name: takers for takers, name in re.findall(r'<label class="param"[^>]*data-actions="([^"]*)">(\w+)', page)
        }
        actor = table.session.state.combatants[table.session.state.acting[0]]
        spec = table.session.rules.action(table.session.state, actor, "attack")
        for p in spec.params:  # every parameter the attack declares, saying it is the attack's
            assert "attack" in fields[p.name].split(), p.name
        assert "defence" not in fields
        offered = re.search(r'<select name="param\.defense">(.*?)</select>', page, re.S)[1]
        assert re.findall(r"<option>([^<]+)</option>", offered) == ["none", "block", "dodge"]
        assert re.search(r'<input type="text" name="param\.x"', page)  # typed: no list for a square
        foe = next(c.id for c in table.session.state.active() if c.side != actor.side)
        before = head(table)
        form = {"kind": "act", "actor": actor.id, "action": "attack", "targets": foe}
        response = post(client, table, **form, params="defence=dodge")
        assert response.status_code == 422 and "attack takes no parameter 'defence'" in refusal(response.text)
        assert head(table) == before
        assert post(client, table, **form, **{"param.defense": "dodge"}).status_code == 200
        declared = [e.event for e in envelopes(table.log) if type(e.event) is ActionDeclared]
        assert declared[-1].actor == actor.id and declared[-1].params == {"defense": "dodge"}
    table.close()  # its watcher thread would keep later tests from splitting an audit


def test_play_completes_the_declared_parameters_and_their_values():
    from combatlog.cli.play import words_for

    s = started("swords-of-infinity-ambush.toml")
    actor = s.state.acting[0]
    foe = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    spec = s.rules.action(s.state, s.state.combatants[actor], "attack")
    offered = words_for(s, f"act {actor} attack {foe} ")
    assert [w for w in offered if w.endswith("=")] == [f"{p.name}=" for p in spec.params]
    assert words_for(s, f"act {actor} attack {foe} defense=") == ["defense=none", "defense=block", "defense=dodge"]
    assert "defense=" not in words_for(s, f"act {actor} attack {foe} defense=dodge ")
    assert words_for(s, f"act {actor} prone ") == []  # it takes none


def test_rulesets_lists_each_actions_parameters():
    from click.testing import CliRunner

    from combatlog.cli.main import app

    out = CliRunner().invoke(app, ["rulesets", "swords-of-infinity"]).output
    assert "    params: x=N (a whole number), y=N (a whole number), through=true|false, defense=block|dodge|none" in out


@pytest.mark.parametrize(("system", "example", "since"), SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_each_systems_page_lists_the_parameters_its_actions_declare(system, example, since):
    page = (Path(__file__).resolve().parents[1] / "docs" / "rules" / f"{system}.md").read_text()
    section = page.split("\n## Parameters\n", 1)[1].split("\n## ", 1)[0]
    assert f"version {since} of these rules refuses an unknown parameter" in " ".join(section.split())
    listed: dict[str, set[str]] = {}
    for actions, params in re.findall(r"^\| (`.*?) \| (.*?) \|$", section, re.M):
        for action in re.findall(r"`(\w+)`", actions):
            listed[action] = set(re.findall(r"`(\w+)`", params))
    s = started(example)
    for c in s.state.combatants.values():
        for spec in s.rules.actions(s.state, c):
            assert listed.get(spec.name) == {p.name for p in spec.params}, spec.name
