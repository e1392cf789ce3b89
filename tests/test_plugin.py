"""The plugin API: a third party's rule system, written from `combatlog.plugin` alone and
installed the way a user installs one, passes the checklist; each protocol mistake is said
in one line; a broken plugin never hides the others."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import msgspec
import pytest

import combatlog.plugin as plugin
from combatlog.engine import registry
from combatlog.plugin import API, ActionSpec, Event, PluginError, RuleSystem, allow, register_fold

MINID20 = Path(__file__).parent / "plugins" / "minid20"


def _act(draft, pending) -> str:
    return "acts"


class _Good(RuleSystem):
    name = "tidy"
    version = "1"

    def initiative(self, draft, combatant, ids):
        return 1

    def actions(self, state, actor):
        return [ActionSpec("wait", None, {}, _act, targets="none", min_targets=0, max_targets=0)]


class Unfolded(Event, frozen=True, tag="tidy.Unfolded"):
    who: str


class Unallowed(Event, frozen=True, tag="tidy.Unallowed"):
    who: str


class Untagged(Event, frozen=True, tag="Untagged"):
    who: str


register_fold(Unallowed)(lambda state, e: state)
register_fold(Untagged)(lambda state, e: state)
allow("Untagged")


class _NoActions(RuleSystem):
    name = "lazy"

    def initiative(self, draft, combatant, ids):
        return 1


class _NoInitiative(_Good):
    name = "slow"
    initiative = RuleSystem.initiative  # type: ignore[assignment]


def _with_events(*events):
    return type("Evented", (_Good,), {"events": events})()


@pytest.mark.parametrize(
    ("system", "says"),
    [
        (_Good, "_Good: the entry point names the class; name its instance (X = _Good())"),
        (_NoActions(), "lazy: no actions; override actions(state, actor) to return its ActionSpecs"),
        (_NoInitiative(), "slow: no initiative; override initiative(draft, combatant, ids), or order(options)"),
        (_with_events(Unfolded), "tidy: event tidy.Unfolded has no fold; decorate one with @register_fold(Unfolded)"),
        (
            _with_events(Unallowed),
            "tidy: event tidy.Unallowed is allowed in no phase; call allow('tidy.Unallowed', ...)",
        ),
        (_with_events(Untagged), "tidy: event Untagged: tag it with the system's name, tag='tidy.Untagged'"),
    ],
)
def test_each_protocol_mistake_is_one_line_naming_the_fix(system, says):
    with pytest.raises(PluginError) as err:
        registry.register(system)
    assert str(err.value) == says and "\n" not in str(err.value)


class _WrittenLongAgo(_Good):
    """A plugin written when check_combatant took the stats alone (plugin API 1)."""

    name = "elder"

    def check_combatant(self, stats):
        return stats


def _elder(**hooks):
    return type("Elder", (_WrittenLongAgo,), hooks)()


def _who(self, stats, who=""):
    return stats


@pytest.mark.parametrize(
    ("system", "says"),
    [
        (
            _elder(),
            "elder: check_combatant(self, stats) can't take what combatlog passes, check_combatant(stats, who): "
            "since plugin API 2 it is also given who, the combatant's id, to name in its refusals; "
            "declare def check_combatant(self, stats, who='')",
        ),
        (
            _elder(api=1),
            "elder: check_combatant(self, stats) can't take what combatlog passes, check_combatant(stats, who): "
            "since plugin API 2 (it declares API 1) it is also given who, the combatant's id, to name in its "
            "refusals; declare def check_combatant(self, stats, who='')",
        ),
        (
            _elder(check_combatant=_who, refill_each_turn=lambda self, options: True),
            "elder: refill_each_turn is no longer called since plugin API 2: the order strategy says it "
            "(make_order('action-points') refills once a round; 'ranked' each turn); remove it",
        ),
        (
            _elder(check_combatant=_who, budget=lambda self, state: {"actions": 1}),
            "elder: budget(self, state) can't take what combatlog passes, budget(state, combatant); "
            "declare def budget(self, state, combatant)",
        ),
        (
            _elder(check_combatant=_who, api=API + 1),  # one ahead: the nearest a newer plugin can be
            f"elder: written for plugin API {API + 1}, and this combatlog speaks API {API}; upgrade combatlog",
        ),
        (
            _elder(check_combatant=_who, api=str(API)),
            f"elder: api = '{API}': give the plugin API version it was written for, a whole number (this is {API})",
        ),
    ],
    ids=["undeclared", "declared", "a hook no longer called", "any hook", "a newer API", "not a number"],
)
def test_a_plugin_written_for_an_older_api_is_told_at_load_which_hook_changed_and_how(system, says):
    with pytest.raises(PluginError) as err:
        registry.register(system)
    assert str(err.value) == says and "\n" not in str(err.value)


def test_a_new_encounter_of_an_older_plugin_is_refused_in_that_one_line(monkeypatch):
    from combatlog.engine import Refused, Session
    from combatlog.replays import MemoryLog

    class Point:
        name = "elder"

        def load(self):
            return _elder()

    monkeypatch.setattr(registry, "_entry_points", lambda: {"elder": Point()})
    session = Session(MemoryLog())
    with pytest.raises(Refused) as err:
        session.do("create", rules="elder")
    said = str(err.value)
    assert said.startswith("create: the rule system doesn't load: elder: check_combatant(self, stats) can't take")
    assert "\n" not in said and session.log.head()[0] == 0


def test_a_hook_that_takes_more_than_it_is_given_by_default_values_still_loads():
    class Roomy(_Good):
        name = "roomy"
        api = 4

        def check_combatant(self, stats, who="", *extra, strict=False):
            return stats

        def narrate(self, state, event, dice=False):
            return None

    assert registry.check(Roomy()).name == "roomy"


class Forgotten(Event, frozen=True, tag="forgetful.Forgotten"):
    who: str


register_fold(Forgotten)(lambda state, e: state)
allow("forgetful.Forgotten")


def test_an_event_of_the_system_missing_from_its_events_is_named_at_load_with_the_fix():
    forgetful = type("Forgetful", (_Good,), {"name": "forgetful"})()
    with pytest.raises(PluginError) as err:
        registry.register(forgetful)
    assert str(err.value) == (
        "forgetful: event forgetful.Forgotten (tests.test_plugin) isn't in Forgetful.events, so no log could "
        "read it back; list it: events = (Forgotten,)"
    )
    listed = type("Forgetful", (_Good,), {"name": "forgetful", "events": (Forgotten,)})()
    assert registry.check(listed) is listed


class Shouted(Event, frozen=True, tag="Shouted"):  # not tagged with a system's name: the load can't tell whose
    who: str


register_fold(Shouted)(lambda state, e: state)
allow("Shouted")


def test_an_event_emitted_but_in_no_systems_events_is_refused_naming_the_fix(monkeypatch):
    from combatlog.engine import Refused, Session
    from combatlog.replays import MemoryLog

    def shout(draft, pending):
        draft.emit(Shouted(who=pending.actor))
        return "shouts"

    class Loud(_Good):
        name = "loud"

        def actions(self, state, actor):
            return [ActionSpec("shout", None, {}, shout, targets="none", min_targets=0, max_targets=0)]

    monkeypatch.setattr(registry, "_systems", dict(registry._systems))  # registered for this test alone
    registry.register(Loud())
    s = Session(MemoryLog())
    s.do("create", rules="loud", seed=1)
    s.do("add", id="a", side="x", stats={})
    s.do("add", id="b", side="y", stats={})
    s.do("begin")
    head = s.log.head()
    with pytest.raises(Refused) as err:
        s.do("act", actor=s.state.acting[0], action="shout")
    assert str(err.value) == (
        "act: event Shouted is not among loud's events, so no log could read it back; "
        "list Shouted in the RuleSystem's events"
    )
    assert s.log.head() == head


def test_the_bundled_systems_keep_the_current_protocol():
    for name in registry.names():
        system = registry.get(name)
        assert registry.check(system) is system
        assert system.api in (None, registry.API)


def test_the_plugin_module_exports_what_a_system_needs():
    for name in (
        "RuleSystem",
        "ActionSpec",
        "OptionSpec",
        "Event",
        "Draft",
        "Refused",
        "allow",
        "register_fold",
        "Encounter",
        "Combatant",
        "make_order",
        "make_timing",
        "parse",
        "DiceExpr",
        "put_row",
    ):
        assert hasattr(plugin, name), name
    assert set(plugin.__all__) <= set(dir(plugin))
    # and nothing else: every public name of the module is one it means to export
    assert {n for n in dir(plugin) if not n.startswith("_")} == set(plugin.__all__)


def test_one_broken_plugin_never_hides_the_rest(monkeypatch):
    from click.testing import CliRunner

    from combatlog.cli.main import app

    class Broken:
        name = "brokenone"

        def load(self):
            raise ImportError("No module named 'brokenone_internals'")

    ours = registry._entry_points()  # the bundled systems are entry points too
    monkeypatch.setattr(registry, "_entry_points", lambda: {**ours, "brokenone": Broken()})
    out = CliRunner().invoke(app, ["rulesets"]).output
    assert "brokenone: failed to load (ImportError: No module named 'brokenone_internals')" in out
    assert f"skirmish {registry.get('skirmish').version}" in out
    assert f"triptycho {registry.get('triptycho').version}" in out


def _see_our_packages(python: Path) -> None:
    """Lets the environment of `python` import this interpreter's packages, combatlog among
    them: needed when this one is itself a virtual environment (the README's quick start makes
    one), whose packages `system_site_packages` alone would miss."""
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    (Path(purelib) / "_outer_site.pth").write_text("".join(f"import site; site.addsitedir({d!r})\n" for d in ours))


def test_a_plugin_installed_in_a_fresh_environment_passes_the_checklist(tmp_path):
    env = tmp_path / "env"
    venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env)
    python = env / "bin" / "python"
    if sys.prefix != sys.base_prefix:
        _see_our_packages(python)
    source = tmp_path / "minid20"  # built from a copy: the build leaves nothing in the repository
    shutil.copytree(MINID20, source)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr[-800:]
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def combatlog(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(python), "-m", "combatlog", *args],
            capture_output=True,
            text=True,
            timeout=300,
            env=clean_env,
            cwd=tmp_path,
            check=False,
        )

    listed = combatlog("rulesets")
    assert "minid20 1" in listed.stdout, listed.stderr
    checked = combatlog("rulesets", "--check", "minid20")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("ok  ") == 5
    log = tmp_path / "road.jsonl"
    assert combatlog("demo", "--rules", "minid20", "--log", str(log)).returncode == 0
    assert combatlog("audit", str(log)).returncode == 0
    # a `minid20.py` in the folder the command runs in is never imported in the plugin's place
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "minid20.py").write_text(f"open({str(stranger / 'ran')!r}, 'w').close()\nraise SystemExit(3)\n")
    beside = subprocess.run(
        [str(python), "-m", "combatlog", "audit", str(log)],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_env,
        cwd=stranger,
        check=False,
    )
    assert beside.returncode == 0 and not (stranger / "ran").exists(), beside.stderr
    schema = msgspec.json.decode(combatlog("schema").stdout)
    assert "minid20.CriticalHit" in msgspec.json.encode(schema).decode()
    assert sys.executable != str(python)

    # where the plugin isn't installed (this process): one line naming it, its version and its package
    from combatlog.replays import open_log
    from combatlog.replays.audit import audit

    saved = open_log(log, create=False, read_only=True)
    report = audit(saved, workers=1)
    assert [f.kind for f in report.findings] == ["rules"]
    assert "rule system 'minid20' version 1 (from the package minid20) isn't installed" in report.findings[0].message
    assert "pip install minid20" in report.findings[0].message
    here = subprocess.run(
        [sys.executable, "-m", "combatlog", "audit", str(log)], capture_output=True, text=True, check=False
    )
    assert here.returncode == 1 and here.stderr.count("\n") == 1 and "pip install minid20" in here.stderr
    copied = subprocess.run(
        [sys.executable, "-m", "combatlog", "export", str(log), str(tmp_path / "copy.jsonl")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert copied.returncode == 0 and (tmp_path / "copy.jsonl").read_bytes() == log.read_bytes()
