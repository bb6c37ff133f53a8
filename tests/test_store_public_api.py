"""The store uses eventsourcing's public API only, so that any version the pyproject admits
works the same (CI runs the store's tests on the oldest and the newest): no private
attribute of another object is read or set, and a class built on one of eventsourcing's
keeps its own state, touching none of the private attributes its bases use."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

STORE = Path(__file__).parents[1] / "ledger" / "log" / "store"
MODULES = sorted(STORE.glob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_private_attribute_of_another_object_is_touched(path: Path) -> None:
    tree = ast.parse(path.read_text())
    touched = [
        f"{path.name}:{node.lineno} {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and _private(node.attr)
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert touched == []


def _self_private(source: str) -> set[str]:
    return {m for m in re.findall(r"\bself\.(_\w+)", source) if _private(m)}


def test_no_private_attribute_of_eventsourcing_is_used_as_its_own() -> None:
    """A subclass (nested in a function or not) that reads or sets a private attribute
    of its eventsourcing base, such as a subscription's stop flag, breaks on the next
    version that renames it."""
    package = Path(importlib.util.find_spec("eventsourcing").origin).parent  # type: ignore[arg-type, union-attr]
    theirs: set[str] = set()
    for name in ("persistence.py", "postgres.py", "sqlite.py"):
        theirs |= _self_private((package / name).read_text())
    used = {path.name: _self_private(path.read_text()) & theirs for path in MODULES}
    assert {name: sorted(found) for name, found in used.items() if found} == {}
