"""The documentation's code examples run: a test written in a guide is a test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
FILE = re.compile(r"# [\w./-]+\.(py|toml)\n")  # a block that is a file (tests/test_outside_plugin.py)


def example_tests() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        for i, code in enumerate(BLOCK.findall(page.read_text())):
            if "def test_" in code and not FILE.match(code):  # a file of a package: its own test runs it
                found.append((f"{page.relative_to(DOCS)}#{i}", code))
    return found


def test_the_guide_has_a_runnable_example():
    assert any(name.startswith("writing-a-rule-system.md") for name, _ in example_tests())


@pytest.mark.parametrize("name, code", example_tests(), ids=[n for n, _ in example_tests()])
def test_a_documented_test_passes(name, code):
    namespace: dict = {}
    exec(compile("from combatlog.events import *\n" + code, name, "exec"), namespace)
    tests = [fn for key, fn in namespace.items() if key.startswith("test_") and callable(fn)]
    assert tests
    for fn in tests:
        fn()


RULES = sorted((DOCS / "rules").glob("*.md"))
PLAY_IT = re.compile(r"\A# [^\n]+\n\n## Play it\n\n(?P<intro>.*?)```sh\n(?P<commands>.*?)```", re.S)


@pytest.mark.parametrize("page", RULES, ids=lambda p: p.stem)
def test_each_rule_systems_page_opens_with_commands_that_work(page, tmp_path, monkeypatch):
    """A new reader's first look at a system: its page opens with "Play it", a bundled
    encounter and a handful of commands; each runs, in an empty folder, as written."""
    import shlex

    from click.testing import CliRunner

    from combatlog.cli.main import app

    text = page.read_text()
    found = PLAY_IT.match(text)
    assert found, f"{page.name} doesn't open with '## Play it' and a sh block"
    example = re.search(r"`examples/([\w.-]+\.toml)`", found["intro"])
    assert example and (DOCS.parent / "examples" / example[1]).is_file(), found["intro"]
    lines = [x for x in found["commands"].splitlines() if x.strip()]
    assert len(lines) >= 5 and any(" act " in x for x in lines) and any(x.split()[1] == "new" for x in lines)
    monkeypatch.chdir(tmp_path)
    for line in lines:
        words = shlex.split(line)
        assert words[0] == "combatlog", line
        result = CliRunner().invoke(app, words[1:], catch_exceptions=False)
        assert result.exit_code == 0, f"{page.name}: `{line}` failed: {result.output}"
        assert "combatlog:" not in result.output, result.output  # nothing refused on the way


@pytest.mark.parametrize("page", RULES, ids=lambda p: p.stem)
def test_a_rules_text_is_named_by_its_title_not_a_path_outside_the_repository(page):
    text = page.read_text()
    assert not re.search(r"shared/rules|[0-9a-f]{16}\.txt|\.\./", text), page.name
