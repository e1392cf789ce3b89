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
from combatlog.plugin import ActionSpec, Event, PluginError, RuleSystem, allow, register_fold

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
    assert "skirmish 2" in out and "triptycho 1" in out


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
