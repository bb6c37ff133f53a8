"""Every import inside a function says why it is not at the top of its module.

An import belongs at the top of its module, where a reader sees what the module needs. One
stays inside a function only where a start-up test needs it (what a command imports,
``tests/test_cli_startup.py``; what importing the warehouse imports, ``tests/test_warehouse.py``),
and then it carries the reason in one ``# lazy:`` comment: on its own line, or in the comment
block right above it or above the run of imports it opens.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("ledger", "projections", "cli")
MARK = "# lazy:"

NOT_YET_SWEPT = frozenset(
    {
        # The command line's modules, the campaign facade and three systems' System: each
        # leaves this set as it is swept.
        "cli/campaigns.py",
        "cli/create.py",
        "cli/demo.py",
        "cli/fixes.py",
        "cli/history.py",
        "cli/options.py",
        "cli/play.py",
        "cli/trust.py",
        "ledger/campaign/campaigns.py",
        "ledger/campaign/history.py",
        "ledger/campaign/ledger.py",
        "ledger/campaign/recording.py",
        "ledger/systems/crawl/system.py",
        "ledger/systems/d100/system.py",
        "ledger/systems/yearzero/system.py",
    }
)
"""Files whose function-level imports have not all been given a place yet."""

Import = ast.Import | ast.ImportFrom


def _runs(body: list[ast.stmt]) -> Iterator[list[Import]]:
    """The runs of consecutive import statements in one block."""
    run: list[Import] = []
    for stmt in body:
        if isinstance(stmt, Import):
            run.append(stmt)
            continue
        if run:
            yield run
        run = []
    if run:
        yield run


def _blocks(node: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every block of statements under ``node`` that runs inside a function."""
    for child in ast.walk(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(child):
                for field in ("body", "orelse", "finalbody"):
                    block = getattr(inner, field, None)
                    if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                        yield block


def _comment_above(lines: list[str], first: int) -> list[str]:
    """The comment lines directly above line ``first`` (1-based)."""
    found: list[str] = []
    at = first - 2
    while at >= 0 and lines[at].lstrip().startswith("#"):
        found.append(lines[at])
        at -= 1
    return found


def unexplained(text: str) -> list[int]:
    """The lines of the imports inside functions that carry no ``# lazy:`` reason."""
    lines = text.splitlines()
    found: set[int] = set()
    seen: set[int] = set()
    for block in _blocks(ast.parse(text)):
        for run in _runs(block):
            if id(run[0]) in seen:
                continue
            seen.update(id(stmt) for stmt in run)
            above = any(MARK in line for line in _comment_above(lines, run[0].lineno))
            for stmt in run:
                own = any(MARK in line for line in lines[stmt.lineno - 1 : stmt.end_lineno])
                if not (own or above):
                    found.add(stmt.lineno)
    return sorted(found)


def sources(root: Path) -> dict[str, str]:
    """Every module of the project's source folders under ``root``, by its path from ``root``."""
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for folder in FOLDERS
        for path in sorted((root / folder).rglob("*.py"))
    }


def _report(found: dict[str, list[int]]) -> str:
    return "imports inside functions with no `# lazy:` reason (move them to the top):\n" + "\n".join(
        f"  {name}:{line}" for name, lines in sorted(found.items()) for line in lines
    )


def test_every_import_inside_a_function_says_why() -> None:
    read = sources(ROOT)
    assert "ledger/dice/sources.py" in read and "projections/warehouse/query.py" in read  # the tree was read
    found = {name: lines for name, text in read.items() if (lines := unexplained(text))}
    assert {n: lines for n, lines in found.items() if n not in NOT_YET_SWEPT} == {}, _report(found)
    swept = sorted(NOT_YET_SWEPT - set(found))
    assert swept == [], f"swept already, take out of NOT_YET_SWEPT: {swept}"


def test_a_lazy_import_without_its_reason_is_found() -> None:
    planted = (
        "import os\n"
        "\n"
        "def bare():\n"
        "    import json\n"
        "    return json\n"
        "\n"
        "def explained():\n"
        "    # lazy: a command that reads imports no duckdb (tests/test_warehouse.py)\n"
        "    import duckdb\n"
        "    from collections import (\n"
        "        OrderedDict,\n"
        "    )\n"
        "    return duckdb, OrderedDict\n"
        "\n"
        "def inline():\n"
        "    import csv  # lazy: only the export writes CSV\n"
        "    x = 1\n"
        "    import sqlite3\n"
        "    return csv, sqlite3, x\n"
        "\n"
        "class Shelf:\n"
        "    def method(self):\n"
        "        if self:\n"
        "            # the reason is missing here\n"
        "            from pathlib import Path\n"
        "            return Path\n"
    )
    assert unexplained(planted) == [4, 18, 25]


def test_the_tree_is_read_from_every_source_folder(tmp_path: Path) -> None:
    for folder in FOLDERS:
        (tmp_path / folder / "deep").mkdir(parents=True)
        (tmp_path / folder / "deep" / "m.py").write_text("def f():\n    import os\n", encoding="utf-8")
    found = {name: lines for name, text in sources(tmp_path).items() if (lines := unexplained(text))}
    assert found == {f"{folder}/deep/m.py": [2] for folder in FOLDERS}
    assert "cli/deep/m.py:2" in _report(found)
