"""The guide's outside route, end to end: the package `docs/writing-a-rule-system.md` writes
out (its pyproject, its module, its tests) is built in a folder of its own, its entry point
recorded as pip would record it (without pip), and then its kit tests pass, combatlog finds
it by name, and a fight saved from it is replayed by the pytest plugin."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "writing-a-rule-system.md"
FILE = re.compile(r"```(?:python|toml)\n# (?P<path>[\w./-]+\.(?:py|toml))\n(?P<code>.*?)```", re.S)


def _package(root: Path) -> None:
    """The guide's files under `root`, and the `.dist-info` pip would write for its entry points."""
    files = {m["path"]: m["code"] for m in FILE.finditer(GUIDE.read_text())}
    assert {"pyproject.toml", "bx/__init__.py", "tests/test_bx.py"} <= set(files), sorted(files)
    for path, code in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(code)
    project = tomllib.loads(files["pyproject.toml"])["project"]
    info = root / f"{project['name']}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    points = "".join(f"{name} = {target}\n" for name, target in project["entry-points"]["combatlog.rules"].items())
    (info / "entry_points.txt").write_text("[combatlog.rules]\n" + points)


def test_the_guides_outside_package_loads_by_its_entry_point_and_its_tests_and_saved_logs_pass(tmp_path):
    root = tmp_path / "bx"
    _package(root)
    # the other installed pytest plugins (hypothesis, faker, anyio) cost each run a second or two:
    # left out, combatlog's is named
    env = {**os.environ, "PYTHONPATH": str(root), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

    def run(*args: str, cwd: Path = root) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
        )

    (root / "tests" / "logs").mkdir()
    save = (
        "from combatlog.testing import fight, fighter\n"
        "f = fight('bx', fighter('bo', 'party', kind='pc', hp=8, ac=14, attack=2), fighter('orc', 'orcs', hp=5),"
        " fighter('gob', 'orcs', hp=3), seed=11)\n"
        "f.play_out()\n"
        "f.save('tests/logs/rout.jsonl')\n"
    )
    saved = run("-c", save)
    assert saved.returncode == 0, saved.stderr
    pytest = (
        "-m",
        "pytest",
        "-q",
        "-p",
        "combatlog.testing",
        "-p",
        "no:cacheprovider",
        "--combatlog-logs",
        "tests/logs",
    )
    first = run(*pytest, "--combatlog-update", "tests")
    assert first.returncode == 0 and "5 passed" in first.stdout, first.stdout + first.stderr  # 4 tests, 1 log
    assert (root / "tests" / "logs" / "rout.expected.json").exists()
    again = run(*pytest, "tests")
    assert again.returncode == 0 and "5 passed" in again.stdout, again.stdout + again.stderr
    listed = run("-m", "combatlog", "rulesets", cwd=tmp_path)  # `python -m` leaves its own folder off the path
    assert "bx 1" in listed.stdout, listed.stdout + listed.stderr
