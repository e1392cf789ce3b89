"""The README's promises: its quick start matches .ci/run, its first fight plays as written,
the docs' Python example runs, and the docs build as a site with no broken link."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def blocks(lang: str, text: str = README) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_the_python_api_example_runs():
    api = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    code = next(b for b in blocks("python", api) if "Session(" in b)
    namespace: dict = {}
    exec(compile(code, "docs/python-api.md", "exec"), namespace)
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


def test_the_first_fight_plays_as_the_readme_tells_it(tmp_path):
    """The README's step-by-step fight, command by command (its shell lines, and its play session)."""
    section = README.split("## A first fight, step by step", 1)[1].split("\n## ", 1)[0]
    shell = [line.strip().split("  #")[0].strip() for line in section.splitlines() if line.startswith("    combatlog ")]
    typed = [
        line.split("combatlog> ", 1)[1].split("  #")[0].strip()
        for line in section.splitlines()
        if "combatlog> " in line
    ]

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "combatlog", *args], capture_output=True, text=True, cwd=tmp_path)

    for line in shell:
        words = line.split()[1:]
        if words[0] == "play":
            done = subprocess.run(
                [sys.executable, "-m", "combatlog", *words],
                input="\n".join(typed) + "\nquit\n",
                capture_output=True,
                text=True,
                cwd=tmp_path,
            )
        elif words[0] == "transcript":
            done = cli(*words[: words.index(">")])
        else:
            done = cli(*words)
        assert done.returncode == 0, (line, done.stdout[-500:], done.stderr[-500:])
        if words[0] == "play":
            assert "refused" not in done.stdout, done.stdout[-800:]
            assert "Bo strikes Goblin 1" in done.stdout and "Undone: step" in done.stdout  # each step told
    assert cli("audit", "ford.db").returncode == 0


def test_the_docs_build_as_a_site_with_no_broken_link(tmp_path):
    import pytest

    mkdocs = pytest.importorskip("mkdocs", reason="mkdocs isn't installed: pip install -e '.[docs]'")
    assert mkdocs
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "site" / "index.html").exists() and (tmp_path / "site" / "cli" / "index.html").exists()
