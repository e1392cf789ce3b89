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
