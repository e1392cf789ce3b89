"""The rule-system registry: ours by name, a third party's through an entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.engine import RuleSystem, Session, get_rules, registry, rule_names, rules_of
from combatlog.engine.protocol import ActionSpec, OptionSpec
from combatlog.engine.rules.skirmish import SKIRMISH
from combatlog.replays import MemoryLog


class Duel(RuleSystem):
    """A third party's system: one blow ends it."""

    name = "duel"
    option_specs = {"pace": OptionSpec("slow", ("slow", "fast"))}

    def initiative(self, draft, combatant, ids):
        return draft.roll("1d6", "initiative", by=combatant.id).total

    def actions(self, state, actor):
        def blow(draft, pending):
            from combatlog.events import CombatantDefeated

            draft.emit(CombatantDefeated(combatant=pending.targets[0], how="struck"))
            return "struck"

        return [ActionSpec("blow", "melee", {"actions": 1}, blow)]


class FakeEntryPoint:
    name = "duel"

    def load(self):
        return Duel()


def test_our_systems_are_found_by_name():
    assert get_rules("skirmish") is SKIRMISH
    assert "skirmish" in rule_names()


def test_an_unknown_system_is_refused_naming_the_installed_ones():
    with pytest.raises(KeyError, match="no rule system 'nope'; installed: .*skirmish"):
        get_rules("nope")


def test_a_third_party_system_plugs_in_through_its_entry_point(monkeypatch):
    monkeypatch.setattr(registry, "_entry_points", lambda: {"duel": FakeEntryPoint()})
    monkeypatch.delitem(registry._systems, "duel", raising=False)
    assert "duel" in rule_names()
    s = Session(MemoryLog())
    s.do("create", rules="duel", seed=2, options={"pace": "fast"})
    s.do("add", id="a", side="left")
    s.do("add", id="b", side="right")
    s.do("begin")
    s.do("act", actor=s.state.acting[0], action="blow", targets=("b" if s.state.acting[0] == "a" else "a",))
    assert s.state.phase == "end"
    registry._systems.pop("duel", None)


class SwiftDuel(Duel):
    """Duel's fast pace as a variant: two actions a turn, the rest Duel's."""

    def budget(self, state, combatant):
        return {"actions": 2}


class VariedDuel(Duel):
    def variant(self, options):
        return SWIFT if options["pace"] == "fast" else self


SWIFT = SwiftDuel()


class VariedEntryPoint(FakeEntryPoint):
    def load(self):
        return VariedDuel()


@pytest.mark.parametrize("pace, variant, actions", [("fast", SwiftDuel, 2), ("slow", VariedDuel, 1)])
def test_a_plugin_variant_chosen_by_the_options_plays_the_encounter_and_the_log_names_the_system(
    monkeypatch, pace, variant, actions
):
    monkeypatch.setattr(registry, "_entry_points", lambda: {"duel": VariedEntryPoint()})
    monkeypatch.delitem(registry._systems, "duel", raising=False)
    s = Session(MemoryLog())
    s.do("create", rules="duel", seed=2, options={"pace": pace})
    s.do("add", id="a", side="left")
    s.do("add", id="b", side="right")
    s.do("begin")
    assert type(rules_of(s.state)) is variant and type(s.rules) is variant
    assert s.state.combatants[s.state.acting[0]].resources == {"actions": actions}
    assert (s.state.rules, s.state.options) == ("duel", {"pace": pace})
    registry._systems.pop("duel", None)


def test_options_are_checked_against_what_the_system_accepts():
    s = Session(MemoryLog())
    from combatlog.engine import Refused

    with pytest.raises(Refused, match="option 'speed'.*known options: group_initiative"):
        s.do("create", rules="skirmish", options={"speed": 3})
    with pytest.raises(Refused, match="option timing='sometimes'.*use one of turn, simultaneous, mixed"):
        s.do("create", rules="skirmish", options={"timing": "sometimes"})
    assert s.log.head()[0] == 0


def test_a_decoder_made_before_a_system_loaded_decodes_its_events(tmp_path):
    """A long-running process (a bot, a live follower) makes a decoder, then a rule system loads."""
    import subprocess
    import sys

    example = str(Path(__file__).resolve().parents[1] / "examples" / "starflight-patrol.toml")
    script = (
        "from pathlib import Path\n"
        "import combatlog.engine.rules.infinite_realms, combatlog.engine.rules.swords_of_infinity\n"
        "import combatlog.engine.rules.skirmish  # every system but Starflight is loaded already\n"
        "from combatlog.events import line_decoder\n"
        "decode = line_decoder()  # the union holds no Starflight event yet\n"
        "from combatlog.engine import Session\n"
        "from combatlog.engine.encounter_file import read_encounter\n"
        "from combatlog.replays import MemoryLog\n"
        "log = MemoryLog(); s = Session(log)\n"
        f"for c in read_encounter(Path({example!r})): s.execute(c)\n"
        "s.do('begin'); s.auto()\n"
        "kinds = {type(decode(line).event).__name__ for line in log.lines()}\n"  # not an f-string: braces kept
        "assert 'StrengthTotalled' in kinds, kinds\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_an_unknown_tag_loads_only_a_system_a_log_named(monkeypatch):
    from combatlog.engine import registry
    from combatlog.events import catalogue

    loaded = []
    monkeypatch.setattr(catalogue, "_named", set())

    class Point:
        def __init__(self, name):
            self.name = name

        def load(self):
            loaded.append(self.name)
            raise ImportError("not really installed")

    monkeypatch.setattr(registry, "_entry_points", lambda: {"minid20": Point("minid20"), "other": Point("other")})
    registry._load_system_of("minid20.CriticalHit")  # installed, but no log read here named it
    registry._load_system_of("other.Thing")
    assert loaded == []
    catalogue.named("minid20")  # a log's creation names it
    registry._load_system_of("minid20.CriticalHit")
    registry._load_system_of("other.Thing")  # a stray tag of another installed system: not loaded
    registry._load_system_of("stranger.Thing")  # names nothing installed: nothing is imported
    assert loaded == ["minid20"]


def test_a_stray_plugin_tag_in_a_log_loads_no_plugin_and_the_creation_names_its_system(monkeypatch):
    from combatlog.engine import registry
    from combatlog.events import CorruptLog, Note, catalogue, decode_line
    from combatlog.projections import replay
    from combatlog.replays import MemoryLog
    from tests.builders import lines, new_session
    from tests.test_audit_findings import chained

    loaded = []

    class Point:
        def load(self):
            loaded.append("minid20")
            raise ImportError("not really installed")

    monkeypatch.setattr(catalogue, "_named", set())
    monkeypatch.setattr(registry, "_entry_points", lambda: {"minid20": Point()})
    raw = lines(new_session(seed=7, combatants=()))  # a skirmish log: its creation names skirmish
    raw = raw + chained([(decode_line(raw[-1]).step + 1, Note(text="x"))], raw)
    stray = raw[-1].replace(b'"type":"Note"', b'"type":"minid20.CriticalHit"')  # an event of no system here
    log = MemoryLog()
    log._lines = [*raw[:-1], stray]
    with pytest.raises(CorruptLog, match="minid20.CriticalHit"):
        replay(log)
    assert loaded == [] and catalogue.is_named("skirmish") and not catalogue.is_named("minid20")


def test_every_bundled_system_is_an_entry_point_named_as_the_system():
    # one registry: each folder of engine/rules/ is listed in the installed metadata, the way a
    # third party's system is, and its entry point loads the instance of that name
    from importlib.metadata import entry_points

    folders = {
        p.name
        for p in (Path(__file__).resolve().parents[1] / "engine" / "rules").iterdir()
        if (p / "__init__.py").exists()
    }
    points = {ep.name: ep for ep in entry_points(group="combatlog.rules") if ep.value.startswith("combatlog.")}
    assert {ep.value.split(":")[0].rsplit(".", 1)[1] for ep in points.values()} == folders
    for name, ep in points.items():
        assert ep.load().name == name
        assert get_rules(name).name == name and registry.package_of(name) is None


def test_a_bundled_system_is_imported_only_once_a_name_or_a_log_asks_for_it():
    import subprocess
    import sys

    saved = Path(__file__).resolve().parent / "fixtures" / "saved-logs" / "triptycho.jsonl"
    script = (
        "import sys\n"
        "from combatlog.engine import get_rules\n"
        "from combatlog.projections import replay\n"
        "from combatlog.replays import open_log\n"
        "loaded = lambda: sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.count('.') == 3"
        " and m.startswith('combatlog.engine.rules.'))\n"
        "assert loaded() == [], loaded()\n"
        "get_rules('straalara')\n"
        "assert loaded() == ['straalara'], loaded()\n"
        f"state = replay(open_log({str(saved)!r}, create=False, read_only=True)).state\n"
        "assert loaded() == ['straalara', 'triptycho'] and state.rules == 'triptycho', loaded()\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_a_bundled_system_missing_from_the_installed_metadata_says_to_reinstall(monkeypatch):
    # metadata written before a system was listed (an editable install made earlier) or none
    points = {n: ep for n, ep in registry._entry_points().items() if n != "straalara"}
    monkeypatch.setattr(registry, "_entry_points", lambda: points)
    monkeypatch.delitem(registry._systems, "straalara", raising=False)
    with pytest.raises(KeyError, match="no rule system 'straalara'; installed: .*; it is one of combatlog's own.*"):
        get_rules("straalara")
    with pytest.raises(KeyError) as refused:
        get_rules("strala")
    assert "combatlog's own" not in str(refused.value)
