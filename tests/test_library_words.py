"""The kernel and the read side speak the library's words: no string of theirs names a
command-line option (``--faces``) or a ``ledger`` command. An input is named as a caller
passes it (``faces``, ``client_seed``) and the command line words it (``ledger.cli.fixes``).

The rule systems' folders (``ledger/systems/``, ``projections/<name>/``) are not walked."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted([*ROOT.glob("ledger/*.py"), *ROOT.glob("projections/*.py")])
CLI_WORDS = re.compile(r"(?<![\w-])--(?:[a-z]|$)|`ledger ")


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string nodes that are docstrings: the first statement of a module,
    class or function, or a string standing alone after an assignment (an attribute's)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                found.add(id(stmt.value))
    return found


def cli_words(source: str) -> list[tuple[int, str]]:
    """Each string literal (an f-string's text too) naming an option or a ``ledger`` command,
    with its line, docstrings and comments left out."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        literal = isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        if literal and CLI_WORDS.search(node.value):
            hits.append((node.lineno, node.value))
    return sorted(hits)


def test_the_check_sees_options_and_commands_but_not_docstrings_or_comments() -> None:
    source = '''"""Parse ``--faces 3,5,6``; see `ledger roll`."""
# --faces in a comment
def f(n: int) -> str:
    """Give --seed."""
    a = "`faces` is empty"
    b = f"--seed {n} is out of range"
    c = f"--{a}"
    return "run `ledger verify`" + a + b + c
'''
    assert [line for line, _ in cli_words(source)] == [6, 7, 8]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_command_line_words_in_library_strings(path: Path) -> None:
    hits = cli_words(path.read_text(encoding="utf-8"))
    assert not hits, "\n".join(f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in hits)
