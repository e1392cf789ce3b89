"""`combatlog rulesets` and `init`: what each rule system offers, its checklist, a file to start from."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
import msgspec

from combatlog.cli.main import app, example_path, fail
from combatlog.engine import ActionParam, Refused, Session, get_rules, rule_names
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError, read_encounter
from combatlog.engine.words import article, resource, spoken
from combatlog.replays import open_log
from combatlog.replays.encounters import check_commands


@app.command()
@click.argument("name", required=False)
@click.option("--check", "check_it", is_flag=True, help="Run the checklist on NAME (a plugin's, say).")
def rulesets(name: str | None, check_it: bool) -> None:
    """The installed rule systems, their options and commands; with NAME, all about that one:
    its stats, its actions with their costs and help, as the bundled example's combatants have them.

    --check NAME: its example starts with `new`, plays to the end with `auto`, audits clean,
    gives the same bytes for the same seed, and undo and redo restore the state.
    """
    if check_it:
        if name is None:
            fail("rulesets --check needs NAME", 2)
        _check_ruleset(name)
        return
    if name is not None:
        _ruleset(name)
        return
    for name in rule_names():
        try:
            rules = get_rules(name)
        except Exception as exc:  # one broken plugin never hides the rest
            click.echo(f"{name}: failed to load ({type(exc).__name__}: {' '.join(str(exc).split())[:400]})")
            continue
        click.echo(f"{name} {rules.version}")
        _options(rules)
        if rules.required_stats:
            click.echo(f"  stats {', '.join(rules.required_stats)}")
        for kind, text in rules.commands.items():
            words = " ".join(
                w.lstrip("*").upper() + ("..." if w.startswith("*") else "") for w in rules.command_words.get(kind, ())
            )
            click.echo(f"  command {kind} {words}".rstrip() + f": {text}")


def _options(rules: Any) -> None:
    """A line per option: its default and the values it takes, as an encounter file writes them
    (`option timing = turn (turn, simultaneous, mixed)`; an option with no default: `not set`)."""
    for key, spec in rules.option_specs.items():
        choices = [c for c in spec.choices or () if c is not None]
        listed = f" ({', '.join(spoken(c) for c in choices)})" if choices else ""
        if spec.default is msgspec.NODEFAULT:
            default = "required"
        else:
            default = "= " + spoken(spec.default, nothing="not set" if spec.default is None else "none")
        click.echo(f"  option {key} {default}{listed}" + (f": {spec.help}" if spec.help else ""))


def _struct_in(annotation: Any) -> type | None:
    """The msgspec Struct an annotation holds (a list of weapons, an optional shield), if any."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    for arg in typing.get_args(annotation):
        found = _struct_in(arg)
        if found is not None:
            return found
    return None


def _ruleset(name: str) -> None:
    try:
        rules = get_rules(name)
    except KeyError:
        fail(f"no rule system {name!r}; installed: {', '.join(rule_names())}")
    click.echo(f"{name} {rules.version}")
    _options(rules)
    if rules.stats_type is not None:
        import typing

        hints = typing.get_type_hints(rules.stats_type)
        for field in msgspec.structs.fields(rules.stats_type):
            if field.required:
                shown = "required"
            else:
                default = field.default_factory() if field.default is msgspec.NODEFAULT else field.default
                shown = f"default {spoken(default)}"
            click.echo(f"  stat {field.name}: {shown}")
            inner = _struct_in(hints.get(field.name))
            if inner is not None:  # a table of its own (a weapon, a card): its keys
                keys = [f.name + ("" if not f.required else " (required)") for f in msgspec.structs.fields(inner)]
                click.echo(f"    {field.name} keys: {', '.join(keys)}")
    for kind, text in rules.commands.items():
        words = " ".join(
            w.lstrip("*.").upper() + ("..." if w[0] in "*." else "") for w in rules.command_words.get(kind, ())
        )
        click.echo(f"  command {kind} {words}".rstrip() + f": {text}")
    try:
        session = Session(open_log("memory:"), signer=None)
        for command in read_encounter(example_path(name)):
            session.execute(command)
        session.do("begin")
    except (Refused, DiceError, EncounterFileError, SystemExit):
        return
    state = session.state
    seen: set[str] = set()
    for c in state.active():
        for spec in session.rules.actions(state, c):
            if spec.name in seen:
                continue
            seen.add(spec.name)
            # a cost of 0 in a resource the action spends is the system's to work out (a weapon's AP)
            cost = ", ".join(
                resource(v, k) if v else f"{resource('', k).strip()} varies" for k, v in sorted(spec.cost.items())
            )
            cost = cost or "free"
            targets = spec.targets if spec.max_targets else "no target"
            click.echo(f"  action {spec.name} [{cost}; {targets}]" + (f": {spec.help}" if spec.help else ""))
            if spec.params:
                click.echo("    params: " + ", ".join(_param_word(p) for p in spec.params))


def _param_word(p: ActionParam) -> str:
    """A declared parameter as `rulesets` lists it, as a person types it: `defense=none|block|dodge`,
    `x=N (a whole number)`, `through=true|false`, `weapon`."""
    if p.choices:
        return f"{p.name}=" + "|".join(str(c).lower() if isinstance(c, bool) else str(c) for c in p.choices)
    if p.kind == "bool":
        return f"{p.name}=true|false"
    if p.kind in _KIND_WORDS:
        return f"{p.name}=N ({_KIND_WORDS[p.kind]})"
    return p.name


_KIND_WORDS = {"int": "a whole number", "number": "a number"}  # a parameter's kind, in words


def _check_ruleset(name: str) -> None:
    """The checklist of a rule system, a line each; exit 1 at the first that fails."""
    from combatlog.replays.audit import audit as audit_log
    from combatlog.simulate.run import play

    try:
        get_rules(name)
    except Exception as exc:
        fail(f"{name}: failed to load ({type(exc).__name__}: {' '.join(str(exc).split())[:400]})")
    path = example_path(name)

    def step(what: str, ok: bool, why: str = "") -> None:
        click.echo(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {why}" if why and not ok else ""))
        if not ok:
            sys.exit(1)

    try:
        commands = read_encounter(path)
        check_commands(commands, str(path))
        step(f"its example {path.name} starts with `new`", True)
    except (EncounterFileError, Refused, DiceError) as exc:
        step(f"its example {path.name} starts with `new`", False, str(exc))
    try:
        first = play(commands, 7, {})
        step("it plays to the end with `auto`", first.state.phase == "end", f"phase {first.state.phase}")
    except (Refused, DiceError, RuntimeError) as exc:
        step("it plays to the end with `auto`", False, str(exc))
    report = audit_log(first.log, workers=1)
    step("the log audits clean", report.clean, "; ".join(str(f) for f in report.findings[:3]))
    again = play(commands, 7, {})
    step("the same seed gives the same bytes", list(first.log.lines()) == list(again.log.lines()))
    session = Session(open_log("memory:"), signer=None)
    for command in commands:
        session.execute(command)
    session.do("begin")
    session.auto()
    before = session.state
    if session.state.phase != "end":
        session.auto()
    after = session.state
    session.undo()
    undone = session.state == before
    session.redo()
    step("undo and redo restore the state", undone and session.state == after)


@app.command()
@click.option("--rules", "rules_name", required=True, help="The rule system (see `combatlog rulesets`).")
@click.argument("path", metavar="[FILE]", required=False)
def init(rules_name: str, path: str | None) -> None:
    """Write an encounter file to start from: the rule system's bundled example, commented, which plays as written."""
    if rules_name not in rule_names():
        fail(f"no rule system {rules_name!r}; installed: {', '.join(rule_names())}")
    source = example_path(rules_name)
    target = Path(path or f"{rules_name}-encounter.toml")
    if target.exists():
        fail(f"{target} exists; choose another file")
    header = (
        f"# {article(rules_name).capitalize()} encounter to start from (`combatlog rulesets {rules_name}` lists\n"
        f"# the options, stats and actions).\n"
        f"# Play it: combatlog new {target} && combatlog play {target.with_suffix('.db')}\n"
    )
    target.write_text(header + source.read_text(encoding="utf-8"), encoding="utf-8")
    click.echo(f"{target}: {article(rules_name)} encounter; `combatlog new {target}` starts it.")
