"""Imports run one way, `events ◀ projections ◀ engine ◀ replays ◀ simulate / cli / web ◀ api`,
and no module imports another that imports it back (a type named under `if TYPE_CHECKING:`
counts); the engine outside engine/rules/ imports no rule system; no module imports another's
private names; simulate imports no interface: checked by walking every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# folder -> rank: a module may import only from packages of its rank or lower
LAYERS = {"events": 0, "projections": 1, "engine": 2, "replays": 3, "simulate": 4, "cli": 4, "web": 4, "api": 5}
# the folder installed as the package `combatlog` itself (plugin, testing, __main__): the public
# door, above every layer
ROOT_PACKAGE = "api"


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == ROOT_PACKAGE:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["combatlog", *parts])


def modules() -> dict[str, Path]:
    out = {}
    for folder in LAYERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[module_name(path)] = path
    return out


MODULES = set(modules())  # every module of the project, by its name


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports(path: Path, top_level_only: bool) -> list[tuple[int, str]]:
    """(line, module) for every import of a combatlog module: at import time, inside a function,
    or under `if TYPE_CHECKING:` (a module named for its types depends on that module as surely
    as one that calls it); with `top_level_only`, only those run at import time."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if top_level_only and _type_checking(child):
                continue  # never runs
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom) and child.module and (inner or not top_level_only):
                found.append((child.lineno, child.module))
                for alias in child.names:  # `from combatlog.engine import rules` imports a module too
                    found.append((child.lineno, f"{child.module}.{alias.name}"))
            elif isinstance(child, ast.Import) and (inner or not top_level_only):
                found.extend((child.lineno, a.name) for a in child.names)
            elif isinstance(child, ast.Call) and not top_level_only:
                fn = child.func
                name = getattr(fn, "attr", getattr(fn, "id", ""))
                if name in ("import_module", "__import__"):
                    found.extend(
                        (child.lineno, a.value)
                        for a in child.args
                        if isinstance(a, ast.Constant) and isinstance(a.value, str)
                    )
            visit(child, inner)

    visit(tree, True)
    return [(line, name) for line, name in found if name.startswith("combatlog.")]


def rank_of(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2:
        return None  # `combatlog` itself: its version, imported by everything, importing nothing
    if parts[1] in LAYERS and parts[1] != ROOT_PACKAGE:
        return LAYERS[parts[1]]
    return LAYERS[ROOT_PACKAGE] if (ROOT / ROOT_PACKAGE / f"{parts[1]}.py").exists() else None


def test_no_module_imports_against_the_layer_order():
    bad = []
    for name, path in modules().items():
        mine = rank_of(name)
        for line, target in imports(path, top_level_only=False):
            theirs = rank_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert bad == []


def import_graph(root_modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at import time or inside a function."""
    return {
        name: {t for _, t in imports(path, top_level_only=False) if t in root_modules and t != name}
        for name, path in root_modules.items()
    }


def circles(graph: dict[str, set[str]]) -> list[str]:
    """Every circle of imports found by a depth-first walk, as `a -> b -> a`."""
    # a package's __init__ importing its own submodules is how a package is built, not a circle
    found = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                circle = stack[stack.index(nxt) :] + [nxt]
                if not any(b.startswith(a + ".") for a, b in zip(circle, circle[1:])):
                    found.append(" -> ".join(circle))
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_no_circle_of_imports():
    assert circles(import_graph(modules())) == []


def test_the_walk_finds_a_circle():
    graph = {
        "combatlog.replays.stores": {"combatlog.replays.postgres"},
        "combatlog.replays.postgres": {"combatlog.replays.stores"},
    }
    assert circles(graph) == ["combatlog.replays.postgres -> combatlog.replays.stores -> combatlog.replays.postgres"]


def test_the_walk_counts_imports_made_for_types_only(tmp_path):
    # a module that names another's types depends on it: a circle through `if TYPE_CHECKING:`
    # (the draft and the turn procedure, once) is a circle all the same
    planted = tmp_path / "typed.py"
    planted.write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from combatlog.engine.draft import Draft\n"
    )
    assert (4, "combatlog.engine.draft") in imports(planted, top_level_only=False)
    assert imports(planted, top_level_only=True) == []  # never run


def test_the_walk_finds_imports_against_the_order(tmp_path):
    # the check itself: a planted upward import is found
    planted = tmp_path / "bad.py"
    planted.write_text("def f():\n    from combatlog.replays import open_log\n")
    assert (2, "combatlog.replays") in imports(planted, top_level_only=False)
    assert imports(planted, top_level_only=True) == []


def test_the_package_says_its_version_and_license():
    import subprocess
    import sys
    from importlib.metadata import metadata

    import combatlog

    meta = metadata("combatlog")
    assert combatlog.__version__ == meta["Version"]
    assert meta["License-Expression"] == "MIT"
    out = subprocess.run([sys.executable, "-m", "combatlog", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"combatlog {combatlog.__version__}"
    assert (ROOT / ROOT_PACKAGE / "py.typed").exists() and (ROOT / "LICENSE").exists()


def test_every_package_of_the_code_is_listed_for_installing():
    # a folder with an __init__.py missing from [tool.setuptools] packages is left out of a wheel
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = config["package-dir"]
    folders = {(ROOT / folder).resolve() for folder in mapped.values()}
    found = set()
    for package, folder in mapped.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            if init.parent.resolve() in folders - {(ROOT / folder).resolve()}:
                continue  # a folder mapped to a package of its own (api/ is combatlog)
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *rel.parts]))
    assert found <= listed, sorted(found - listed)


def across_interfaces(mods: dict[str, Path]) -> list[str]:
    """Imports between the layers of one rank that run one way only: simulate imports neither
    the command line nor the web, the web not the command line."""
    # simulate, cli and web share a rank: what a screen and a report share lives below them
    # (views in replays); the web may ask simulate for the odds, never the other way
    forbidden = {"simulate": ("cli", "web"), "web": ("cli",)}
    bad = []
    for name, path in mods.items():
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in forbidden:
            continue
        for line, target in imports(path, top_level_only=False):
            other = target.split(".")[1] if len(target.split(".")) > 1 else ""
            if other in forbidden[parts[1]]:
                bad.append(f"{_where(path)}:{line} imports {target}")
    return bad


BUNDLED = "combatlog.engine.rules"  # the bundled rule systems, one package each


def into_the_systems(mods: dict[str, Path]) -> list[str]:
    """Imports of a bundled rule system by an engine module outside engine/rules/: the engine
    knows a system by the protocol (`engine/protocol.py`) and finds it by name (`engine/registry.py`)."""
    bad = []
    for name, path in mods.items():
        if not name.startswith("combatlog.engine") or name == BUNDLED or name.startswith(BUNDLED + "."):
            continue
        for line, target in imports(path, top_level_only=False):
            if target == BUNDLED or target.startswith(BUNDLED + "."):
                bad.append(f"{_where(path)}:{line} imports {target}")
    return bad


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _kept_from(importer: str, path: Path, target: str) -> bool:
    """True when `target` (a dotted name) is private to a package `importer` isn't in: a private
    name of another module, or anything of a private module (`combatlog._kit.x`) outside the
    package that holds it; a package's own modules may use its private modules."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            holder = ".".join(parts[:i])
            is_module = ".".join(parts[: i + 1]) in MODULES
            return not (is_module and _package_of(importer, path) == holder)
    return False


def private_imports(mods: dict[str, Path]) -> list[str]:
    """Names a module keeps to itself (`_name`) that another imports (`from x import _name`) or
    reads off it (`x._name`): what is shared is public, or lives where it is used. A package's
    private module (`combatlog._testkit`) is its own modules' to use."""
    bad = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        bound: dict[str, str] = {}  # a local name -> the project module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("combatlog"):
                for alias in node.names:
                    if _kept_from(name, path, f"{node.module}.{alias.name}"):
                        bad.append(f"{_where(path)}:{node.lineno} imports {node.module}.{alias.name}")
                    if f"{node.module}.{alias.name}" in mods:
                        bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                bound.update({a.asname: a.name for a in node.names if a.asname and a.name in mods})
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
                module = bound.get(node.value.id)
                if module is not None and _kept_from(name, path, f"{module}.{node.attr}"):
                    bad.append(f"{_where(path)}:{node.lineno} reads {module}.{node.attr}")
    return bad


def _where(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def test_simulate_imports_no_interface_and_the_web_no_command_line():
    assert across_interfaces(modules()) == []


def test_no_engine_module_outside_the_systems_imports_one():
    assert into_the_systems(modules()) == []


def test_no_module_imports_another_ones_private_names():
    assert private_imports(modules()) == []


def test_each_check_finds_what_it_forbids(tmp_path):
    # the checks themselves: a planted module breaking each rule is found
    def planted(name: str, text: str) -> dict[str, Path]:
        path = tmp_path / f"{name.replace('.', '_')}.py"
        path.write_text(text)
        return {name: path, "combatlog.engine.registry": ROOT / "engine" / "registry.py"}

    assert across_interfaces(planted("combatlog.simulate.run", "from combatlog.web.view import page\n")) == [
        "combatlog_simulate_run.py:1 imports combatlog.web.view",
        "combatlog_simulate_run.py:1 imports combatlog.web.view.page",
    ]
    lazy = "def f():\n    from combatlog.engine.rules.skirmish import SKIRMISH\n"
    assert into_the_systems(planted("combatlog.engine.decide", lazy)) == [
        "combatlog_engine_decide.py:2 imports combatlog.engine.rules.skirmish",
        "combatlog_engine_decide.py:2 imports combatlog.engine.rules.skirmish.SKIRMISH",
    ]
    assert into_the_systems(planted("combatlog.engine.rules.skirmish.actions", lazy)) == []  # a system's own
    peeking = (
        "from combatlog.projections.fold import ROWS, _noop\n"  # one name public, one kept to itself
        "from combatlog.engine import registry\n"
        "registry._systems\n"
    )
    assert private_imports(planted("combatlog.replays.audit", peeking)) == [
        "combatlog_replays_audit.py:1 imports combatlog.projections.fold._noop",
        "combatlog_replays_audit.py:3 reads combatlog.engine.registry._systems",
    ]
    kit = "from combatlog import _testkit\nfrom combatlog._testkit import fight\n"
    assert private_imports(planted("combatlog.testing", kit)) == []  # the package's own private module
    assert private_imports(planted("combatlog.cli.main", kit)) == [
        "combatlog_cli_main.py:1 imports combatlog._testkit",
        "combatlog_cli_main.py:2 imports combatlog._testkit.fight",
    ]


def test_only_the_views_module_redacts():
    # one place decides what a viewer sees: no interface calls the privacy helpers or the
    # rule systems' view hooks itself (the protocol declares the hooks, the systems keep them)
    bad = []
    for name, path in modules().items():
        own = ("combatlog.replays.views", "combatlog.events.privacy", "combatlog.engine.protocol")
        if name in own or ".rules" in name:
            continue
        text = path.read_text()
        for needle in ("redact(", "seen_by(", ".redacted()", "players.hidden"):
            if needle in text:
                bad.append(f"{path.relative_to(ROOT)}: {needle}")
    assert bad == []
