"""The library speaks its own words: no string of the kernel, the rule systems, the read
side or a sample plugin's library names a command-line option or a ``ledger`` command. An
input is named as a caller passes it (``faces``, ``client_seed``), in backquotes in a
message, an operation likewise (```query```), and how to put a refusal right is a typed
:class:`ledger.errors.Fix`; the command line words them all (``ledger.cli.fixes``).

The rule, on every string literal (an f-string's text too) outside docstrings and comments:

- a double-dash option: ``--`` then a letter, or ``--`` ending the string (``--faces``,
  ``f"--{name}"``), not preceded by a letter, digit or dash (``a--b`` is no option);
- a single-dash option: ``-`` then one letter, then a space, the end of the string or
  ``,;)]``/a backquote (``-c NAME``, ``-o FILE``), not preceded by a letter, digit or dash:
  a negative number (``-1``), a hyphenated word (``re-roll``) or a field (``-e.amount``)
  is none;
- a command: ``ledger`` then one of the command line's commands (``ledger query``, ``run
  ledger verify``, ```ledger undo```), unless ``ledger`` follows an article or a
  determiner (``the ledger import``, ``this ledger keeps``) or is part of a word
  (``campaign-ledger export``).

Walked: every module of ``ledger/`` and ``projections/`` (the systems' folders too) and the
coin sample's library (its ``cli`` module is the command line's), a system's demo and
walkthrough too (but ``ledger/fixes.py``, the command line's words for a fix, shared with the
live table's API): what shows commands as a player types them (a part of ``ledger demo``
with command lines, the walk through a game at the end of ``ledger --help``, the hints of
what comes next, a new campaign's first steps) is the command line's part of a system,
held by its command group (``ledger.cli.systems.SystemGroup``) in ``cli/``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
import pytest

from ledger.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
COIN = ROOT / "samples" / "plugin-coin" / "campaign_ledger_coin"
WORDING = ROOT / "ledger" / "fixes.py"
"""The command line's words for a Fix, which the live table's API answers in too (its error
object is ``ledger --json``'s): the one module outside ``cli/`` that writes command lines,
because the live table imports nothing of the command line (``ledger.web.commands``)."""
MODULES = sorted(
    [
        *(p for p in ROOT.glob("ledger/**/*.py") if p != WORDING),
        *ROOT.glob("projections/**/*.py"),
        *(p for p in COIN.glob("*.py") if p.name != "cli.py"),
    ]
)
COMMANDS = frozenset(cli.list_commands(click.Context(cli)))
"""Every command and group of the command line's root (``query``, ``verify``, ``d20`` ...)."""

OPTION = re.compile(r"(?<![\w-])(?:--(?:[a-z]|$)|-[A-Za-z](?=[\s,;)\]`]|$))")
COMMAND = re.compile(r"(?<![\w-])ledger ([a-z][a-z0-9-]*)")
DETERMINERS = frozenset(
    {
        *("a", "an", "the", "this", "that", "each", "every", "any", "another"),
        *("its", "your", "their", "our", "one", "own", "older", "newer", "same"),
    }
)
"""Words after which ``ledger`` is the noun of a sentence, not the program."""


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


def names_the_command_line(text: str) -> bool:
    """Whether ``text`` names an option or a ``ledger`` command (the rule above)."""
    if OPTION.search(text):
        return True
    for found in COMMAND.finditer(text):
        before = text[: found.start()].split()
        if found.group(1) in COMMANDS and not (before and before[-1].lower() in DETERMINERS):
            return True
    return False


def cli_words(source: str) -> list[tuple[int, str]]:
    """Each string literal (an f-string's text too) naming an option or a ``ledger`` command,
    with its line; docstrings and comments left out."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        literal = isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        if literal and names_the_command_line(node.value):
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


@pytest.mark.parametrize(
    "planted",
    [
        "no current campaign; or give -c NAME",
        "write it with -o FILE",
        "ledger query is read-only",
        "more than ledger query gives",
        "run ledger verify first",
        "try: ledger crawl map",
        "the check fails; run `ledger undo`",
    ],
)
def test_the_check_sees_single_dash_options_and_bare_commands(planted: str) -> None:
    assert names_the_command_line(planted)
    assert [line for line, _ in cli_words(f"x = 1\ny = {planted!r}\n")] == [2]


@pytest.mark.parametrize(
    "prose",
    [
        "the ledger keeps every event",
        "this ledger knows up to version 3",
        "import the file into a ledger that does not hold the campaign",
        "the ledger import refused it",
        "not a campaign-ledger export",
        "a modifier of -1 (-2 at night)",
        "a re-roll of 2d6-1",
        "SELECT -e.amount FROM t",
        "ledger file campaigns.ledger",
    ],
)
def test_ordinary_prose_is_no_command_line(prose: str) -> None:
    assert not names_the_command_line(prose)


def test_a_string_in_a_system_module_is_seen() -> None:
    """The systems' folders are walked, and a planted option in a refusal of one is found."""
    path = ROOT / "ledger" / "systems" / "d20" / "combat.py"
    assert path in MODULES and (ROOT / "projections" / "d20" / "state.py") in MODULES
    source = path.read_text(encoding="utf-8")
    planted = source.replace('"name the weapon"', '"name the weapon with --weapon NAME"', 1)
    assert planted != source
    assert [text for _, text in cli_words(planted)] == ["name the weapon with --weapon NAME"]


def test_a_demo_and_a_walkthrough_in_the_library_are_seen() -> None:
    source = """def demo(book, echo):
    echo("  $ ledger -c x log")
HELP = Walkthrough(title="t", steps=(("ledger undo", "take it back"),))
SYSTEM = System(first_steps=("coin flip --call heads",))
def hints():
    return "ledger undo"
"""
    assert cli_words(source) == [
        (2, "  $ ledger -c x log"),
        (3, "ledger undo"),
        (4, "coin flip --call heads"),
        (6, "ledger undo"),
    ]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_command_line_words_in_library_strings(path: Path) -> None:
    hits = cli_words(path.read_text(encoding="utf-8"))
    assert not hits, "\n".join(f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in hits)
