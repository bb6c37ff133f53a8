"""A system's fold evolves state; it does not decide: ``projections/<system>/state.py``
imports none of its system's rules modules (the decider, commands, combat, the day's
order...), not even inside a function, and neither do the modules of its system it may
import (its events, what fold and rules share in ``model``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDS = sorted(p.parent.name for p in (ROOT / "projections").glob("*/state.py"))
SHARED = frozenset({"events", "model"})
"""The modules of its own system a fold may import: what is recorded, and what fold and
rules share."""


def _imports(tree: ast.AST) -> set[str]:
    """Every module an import names, in functions too, but not under ``if TYPE_CHECKING:``."""
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _own_modules(system: str, module: str) -> set[str]:
    """The submodules of ``ledger.systems.<system>`` that ``module``'s imports name."""
    package = f"ledger.systems.{system}."
    found: set[str] = set()
    for name in _imports(ast.parse(module)):
        if name.startswith(package):
            found.add(name.removeprefix(package).split(".")[0])
    return {m for m in found if (ROOT / "ledger" / "systems" / system / f"{m}.py").exists()}


@pytest.mark.parametrize("system", FOLDS)
def test_the_fold_imports_no_rules_of_its_system(system: str) -> None:
    seen: set[str] = set()
    todo = _own_modules(system, (ROOT / "projections" / system / "state.py").read_text())
    while todo:
        name = todo.pop()
        seen.add(name)
        text = (ROOT / "ledger" / "systems" / system / f"{name}.py").read_text()
        todo |= _own_modules(system, text) - seen
    assert seen <= SHARED, (
        f"projections/{system}/state.py reaches ledger.systems.{system}."
        f"{sorted(seen - SHARED)}: a fold imports only {sorted(SHARED)} of its system"
    )


def test_every_built_in_system_has_a_fold_checked() -> None:
    assert set(FOLDS) >= {"crawl", "d100", "d20", "dicepool", "freeform", "yearzero"}
