"""Narrow a cosmic-ray session to the mutants worth running: one operator set, nothing in annotations.

Run after `cosmic-ray init`, before `cosmic-ray exec`: `python tools/mutation/filter.py SESSION`.
Marks as skipped:

- the operator replacements we don't run. We keep one natural counterpart per binary
  operator (`+`/`-`, `*`/`/`, `//`/`/`, `%`/`//`, `|`/`&` ...), the boundary and the
  negation of each comparison (`<` -> `<=`, `<` -> `>=`; `==` <-> `!=`; `is` <-> `is not`),
  dropping `not`, `-x` -> `+x`, and every other core operator except removing a decorator
  (a cache or a registration) and the random variable replacers. Cosmic-ray's default of
  every operator into every other gives 8,000 mutants here, most of them duplicates of
  one kill.
- mutants inside annotations (`def f(x: int | None)`, `-> A | B`) and `if TYPE_CHECKING:`
  blocks: with `from __future__ import annotations` nothing evaluates them.
- in a rule system (`engine/rules/`), mutants inside the hooks that only tell what the
  rules decided (`VIEWS`: a transcript's line, `show`'s summary, a form's choices, a health
  bar): the runs of the rule systems measure their rules.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import WorkerOutcome, WorkResult

KEEP_BINARY = (
    "Add_Sub|Sub_Add|Mul_Div|Div_Mul|FloorDiv_Div|Mod_FloorDiv|Pow_Mul"
    "|LShift_RShift|RShift_LShift|BitOr_BitAnd|BitAnd_BitOr|BitXor_BitAnd"
)
KEEP_COMPARISON = "Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Lt_GtE|LtE_Gt|Gt_LtE|GtE_Lt|Is_IsNot|IsNot_Is"
EXCLUDED = re.compile(
    "|".join(
        [
            rf"core/ReplaceBinaryOperator_(?!(?:{KEEP_BINARY})$)",
            rf"core/ReplaceComparisonOperator_(?!(?:{KEEP_COMPARISON})$)",
            r"core/ReplaceUnaryOperator_(?!(?:USub_UAdd|Delete_Not)$)",
            r"core/RemoveDecorator",
            r"core/Variable",
        ]
    )
)


# a rule system's hooks that tell, never decide (`RuleSystem` in engine/protocol.py)
VIEWS = ("narrate", "summary", "describe", "board", "health", "health_level", "param_choices", "place_of")


def _views(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of every method of a rule system's class in `path` named in VIEWS."""
    if "engine/rules/" not in path.as_posix():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    spans = [
        node
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name in VIEWS
    ]
    return [((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0)) for n in spans]


def _unevaluated(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of every annotation and `if TYPE_CHECKING:` block in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    spans: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            spans.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            spans.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            spans.append(node.annotation)
        elif isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            spans.append(node)
    return [((n.lineno, n.col_offset), (n.end_lineno or n.lineno, n.end_col_offset or 0)) for n in spans]


def main(session: str) -> None:
    skipped = 0
    spans: dict[Path, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    views: dict[Path, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
    with use_db(session, WorkDB.Mode.open) as db:
        for item in list(db.work_items):  # again after a run: a view's mutants are set aside too
            for mutation in item.mutations:
                path = Path(mutation.module_path)
                if path not in spans:
                    spans[path] = _unevaluated(path)
                    views[path] = _views(path)
                start = tuple(mutation.start_pos)
                why = ""
                if EXCLUDED.match(mutation.operator_name):
                    why = "operator not in the set we run"
                elif any(lo <= start < hi for lo, hi in spans[path]):
                    why = "inside an annotation"
                elif any(lo <= start < hi for lo, hi in views[path]):
                    why = "inside a view of the rule system"
                if why:
                    db.set_result(item.job_id, WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED))
                    skipped += 1
                    break
    print(f"{session}: {skipped} mutants skipped")


if __name__ == "__main__":
    main(sys.argv[1])
