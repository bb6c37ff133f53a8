"""No shared module names a built-in system: each system is reached through its contract.

A shared module is any file under ``ledger/``, ``projections/`` or ``cli/`` outside a
system's own folders (``ledger/systems/<name>/``, ``projections/<name>/``,
``cli/<name>.py`` and ``cli/<name>_help.py``, what ``ledger --help`` shows of it). In those, no identifier, string literal or comment may name a system
the project ships (by its name or its command-line group's name): what a system adds to
the report, the statistics, the warehouse or the command line comes from its ``System``.
"""

from __future__ import annotations

import io
import re
import tokenize
from importlib import metadata
from pathlib import Path

import pytest

from ledger.cli.systems import command_name
from ledger.systems import GROUP

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("ledger", "projections", "cli")
OTHER_FILES = (".js", ".html", ".css")
"""Files read as plain text (the report's page): no system name in them either."""


def builtin_names() -> dict[str, str]:
    """Every name a built-in system goes by, lower case -> the system's name."""
    points = metadata.distribution("campaign-ledger").entry_points
    names: dict[str, str] = {}
    for point in points:
        if point.group != GROUP:
            continue
        names[point.name.lower()] = point.name
        alias = command_name(point.name)
        if alias:
            names[alias.lower()] = point.name
    return names


def own_folders(names: set[str]) -> list[Path]:
    """What belongs to one system: its folders in each layer, its command-line module and
    the module of its help."""
    out = []
    for name in names:
        out += [ROOT / "ledger" / "systems" / name, ROOT / "projections" / name, ROOT / "cli" / f"{name}.py"]
        out.append(ROOT / "cli" / f"{name}_help.py")
    return out


def shared_files(names: set[str]) -> list[Path]:
    owned = own_folders(names)
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*")):
            if not path.is_file() or path.suffix not in (".py", *OTHER_FILES):
                continue
            if any(path == own or own in path.parents for own in owned):
                continue
            found.append(path)
    return found


PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")
"""The words of an identifier: ``CRAWL_CAP`` is crawl and cap, ``YZState`` yz and state."""


def words_in_text(text: str) -> set[str]:
    """Whole words of prose or a string: ``1d20`` is no word ``d20``, ``demo-crawl`` has ``crawl``."""
    return {m.group(0).lower() for m in re.finditer(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*", text)}


def words_in_name(name: str) -> set[str]:
    found = {name.lower()}
    for part in name.split("_"):
        found.add(part.lower())
        found.update(p.lower() for p in PARTS.findall(part))
    return found


def offences(path: Path, names: dict[str, str]) -> list[str]:
    """``file:line: what`` for each place the file names a built-in system."""
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT) if ROOT in path.parents else path.name
    out: list[str] = []
    if path.suffix != ".py":
        for number, line in enumerate(text.splitlines(), start=1):
            hit = words_in_text(line) & names.keys()
            if hit:
                out.append(f"{where}:{number}: names {', '.join(sorted(hit))}")
        return out
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME:
            hit = words_in_name(token.string) & names.keys()
            if hit:
                out.append(
                    f"{where}:{token.start[0]}: identifier names {', '.join(sorted(hit))}: {token.string}"
                )
            continue
        if token.type == tokenize.COMMENT:
            kind = "comment"
        elif token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            kind = "string"
        else:
            continue
        for offset, line in enumerate(token.string.splitlines()):
            hit = words_in_text(line) & names.keys()
            if hit:
                number = token.start[0] + offset
                out.append(f"{where}:{number}: {kind} names {', '.join(sorted(hit))}: {line.strip()[:70]!r}")
    return out


def test_the_built_in_systems_are_known() -> None:
    names = builtin_names()
    assert len(set(names.values())) >= 2, names  # the walk below has names to look for


def test_no_shared_module_names_a_built_in_system() -> None:
    names = builtin_names()
    found = [line for path in shared_files(set(names.values())) for line in offences(path, names)]
    assert not found, "shared modules that name a built-in system:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("CRAWL_CAP = 20\n", "identifier names crawl"),
        ("class YZState: ...\n", "identifier names yz"),
        ("x = {'crawl': 'hex'}\n", "string names crawl"),
        ("x = 1  # the crawl's hexes\n", "comment names crawl"),
        ('def f():\n    """A roll.\n\n    a d20 roll"""\n', "probe.py:4: string names d20"),
    ],
)
def test_the_walk_finds_a_system_named_in_code(tmp_path: Path, source: str, expected: str) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    found = offences(path, {"crawl": "crawl", "yz": "yearzero", "d20": "d20"})
    assert len(found) == 1 and expected in found[0], found


@pytest.mark.parametrize("source", ["roll('1d20+3')\n", "RotFact = 1\n", "x = 'yearly'  # a dicey pool\n"])
def test_the_walk_leaves_other_words_alone(tmp_path: Path, source: str) -> None:
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    found = offences(path, {"crawl": "crawl", "yz": "yearzero", "d20": "d20", "dicepool": "dicepool"})
    assert not found, found
