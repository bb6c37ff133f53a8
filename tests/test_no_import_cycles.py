"""No import cycle among the project's modules.

Every module of ``ledger/``, ``projections/`` and ``cli/`` is read as it installs
(``projections`` as ``ledger.projections``, ``cli`` as ``ledger.cli``), and every import
counts: at module level and inside functions alike, excluding only the blocks under
``if TYPE_CHECKING:`` (they name a type and run nothing). ``import a.b`` and
``from a.b import c`` are edges to ``a.b``, and to ``a.b.c`` when that is a module.
A lazy import may stay for startup time, but it must not close a cycle either.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = {
    "ledger": "ledger",
    "projections": "ledger.projections",
    "cli": "ledger.cli",
    "web": "ledger.web",
}
"""Each source folder and the package name it installs as (pyproject.toml's package-dir)."""


def modules(root: Path, installed: Mapping[str, str]) -> dict[str, Path]:
    """Every module under the folders of ``installed``, by its installed dotted name."""
    found: dict[str, Path] = {}
    for folder, package in installed.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(node: ast.AST, name: str, package: bool) -> Iterator[str]:
    """The dotted names every import under ``node`` reaches, but under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for stmt in child.orelse:
                yield from _imported(ast.Module(body=[stmt], type_ignores=[]), name, package)
            continue
        if isinstance(child, ast.Import):
            yield from (alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            if child.level:
                here = name.split(".") if package else name.split(".")[:-1]
                here = here[: len(here) - (child.level - 1)]
                source = ".".join(here + ([child.module] if child.module else []))
            else:
                source = child.module or ""
            yield source
            yield from (f"{source}.{alias.name}" for alias in child.names)
        yield from _imported(child, name, package)


def import_graph(found: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each module and the project modules it imports."""
    graph: dict[str, set[str]] = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        reached = _imported(tree, name, path.name == "__init__.py")
        graph[name] = {target for target in reached if target in found and target != name}
    return graph


def _strongly_connected(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """The groups of modules that reach each other (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.add(member)
                        if member == node:
                            break
                    groups.append(group)
    return groups


def _shortest_cycle(graph: Mapping[str, set[str]], start: str, group: set[str]) -> list[str]:
    """The shortest path from ``start`` back to itself inside ``group``."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return []


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through each module that is on a cycle, each cycle once."""
    found: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    for group in _strongly_connected(graph):
        if len(group) == 1:
            continue
        for start in sorted(group):
            cycle = _shortest_cycle(graph, start, group)
            key = frozenset(pairwise(cycle))
            if key not in seen:
                seen.add(key)
                found.append(cycle)
    return found


def _report(found: list[list[str]]) -> str:
    return "import cycles:\n" + "\n".join("  " + " -> ".join(cycle) for cycle in found)


def test_the_project_has_no_import_cycle() -> None:
    graph = import_graph(modules(ROOT, INSTALLED))
    assert "ledger.cli.main" in graph and "ledger.projections.crawl.state" in graph  # the tree was read
    found = cycles(graph)
    assert not found, _report(found)


def _plant(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_cycle_closed_inside_a_function_is_found(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "ledger/low.py": "def f():\n    from ledger.cli import high\n    return high\n",
            "cli/__init__.py": "",
            "cli/high.py": "from ledger import low\n",
        },
    )
    found = cycles(import_graph(modules(tmp_path, INSTALLED)))
    assert found == [["ledger.cli.high", "ledger.low", "ledger.cli.high"]]
    assert "ledger.cli.high -> ledger.low -> ledger.cli.high" in _report(found)


def test_a_relative_import_through_installed_names_is_found(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "projections/__init__.py": "",
            "projections/a.py": "from .b import thing\n",
            "projections/b.py": "import ledger.projections.c\nthing = 1\n",
            "projections/c.py": "class C:\n    def m(self):\n        from ledger.projections import a\n",
        },
    )
    found = cycles(import_graph(modules(tmp_path, INSTALLED)))
    assert found == [
        ["ledger.projections.a", "ledger.projections.b", "ledger.projections.c", "ledger.projections.a"]
    ]


def test_an_import_only_for_type_checking_closes_no_cycle(tmp_path: Path) -> None:
    _plant(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "ledger/low.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from ledger import high\n"
                "else:\n    import json\n"
            ),
            "ledger/high.py": "from ledger import low\n",
        },
    )
    assert cycles(import_graph(modules(tmp_path, INSTALLED))) == []
    (tmp_path / "ledger/low.py").write_text(
        "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    from ledger import high\n",
        encoding="utf-8",
    )
    assert cycles(import_graph(modules(tmp_path, INSTALLED))) == [
        ["ledger.high", "ledger.low", "ledger.high"]
    ]
