"""The README's promises: its Python example runs, its quick start matches .ci/run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def test_the_python_api_example_runs():
    code = next(b for b in blocks("python") if "Session(" in b)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["s"].state.phase == "end"


def test_the_quick_start_has_two_commands_and_ci_runs_the_test_one_exactly():
    commands = [b.strip() for b in blocks("sh")]
    assert len(commands) == 2
    # the test command is .ci/run's first command, exactly; the lint, format and type checks follow it
    ci = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd ", "export "))
    ]
    assert ci[0] == commands[1]


def test_the_main_job_command_plays_the_demo(tmp_path):
    main = blocks("sh")[0].strip()
    assert main.startswith("pip install -e . && combatlog demo")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "combatlog",
            *main.split("combatlog ", 1)[1].split(),
            "--log",
            str(tmp_path / "demo.db"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "The encounter ends" in done.stdout


def test_the_example_script_plays_to_the_end_and_audits_clean():
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "scripted_encounter.py"), "--seed", "11"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines()[0].startswith('{"seq":1,')
    assert out.rstrip().endswith("audit clean")
