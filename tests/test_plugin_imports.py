"""A plugin imports only what docs/plugins.md lists as public: the coin plugin, read.

docs/plugins.md's table "What a plugin imports" names each public module of ``ledger`` and
the names a plugin may take from it. Every import of the sample plugin
(samples/plugin-coin/), at the top of a module or inside a function, is read from its
source and held to that table: a module of ``ledger`` it does not list, or a name it does
not list, fails the test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "plugins.md"
PLUGIN = ROOT / "samples" / "plugin-coin" / "campaign_ledger_coin"

_ROW = re.compile(r"^\| `(ledger[\w.]*)` \| (.+) \|$")


def public(doc: str) -> dict[str, set[str]]:
    """The public modules of ``ledger`` and their names, as the doc's table lists them."""
    section = doc.partition("## What a plugin imports\n")[2].partition("\n## ")[0]
    found: dict[str, set[str]] = {}
    for line in section.splitlines():
        row = _ROW.match(line.strip())
        if row is not None:
            found[row.group(1)] = set(re.findall(r"`(\w+)`", row.group(2)))
    return found


def imports(source: str) -> list[tuple[str, str | None]]:
    """Each import of ``ledger`` in a module's source: (module, name), the name None for a
    whole-module import (``import ledger.log.events``)."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            found += [(node.module, alias.name) for alias in node.names]
    return [(module, name) for module, name in found if module.split(".")[0] == "ledger"]


def outside(source: str, allowed: dict[str, set[str]]) -> list[str]:
    """The imports of ``source`` that are not public, in words."""
    problems = []
    for module, name in imports(source):
        if module not in allowed:
            if name is not None and f"{module}.{name}" in allowed:
                continue  # ``from ledger.cli import plugin``
            problems.append(f"{module} is no public module")
        elif name is not None and name not in allowed[module]:
            problems.append(f"{module}.{name} is no public name")
    return problems


def test_the_doc_lists_the_public_modules() -> None:
    allowed = public(DOC.read_text(encoding="utf-8"))
    assert {"ledger.systems", "ledger.log.events", "ledger.cli.plugin"} <= set(allowed)
    assert "System" in allowed["ledger.systems"] and "Ctx" in allowed["ledger.cli.plugin"]


def test_the_coin_plugin_imports_only_public_modules_of_the_ledger() -> None:
    allowed = public(DOC.read_text(encoding="utf-8"))
    files = sorted(PLUGIN.glob("*.py"))
    assert files, f"no plugin source under {PLUGIN}"
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in files
        for problem in outside(path.read_text(encoding="utf-8"), allowed)
    ]
    assert problems == []
    assert any(imports(path.read_text(encoding="utf-8")) for path in files)  # the plugin was read


def test_an_import_of_a_private_module_or_name_is_found() -> None:
    allowed = public(DOC.read_text(encoding="utf-8"))
    planted = (
        "from ledger.cli.options import Ctx\n"
        "import ledger.trust.admission\n"
        "def f():\n"
        "    from ledger.systems import get_system\n"
        "from ledger.log.events import Event\n"
    )
    assert outside(planted, allowed) == [
        "ledger.cli.options is no public module",
        "ledger.trust.admission is no public module",
        "ledger.systems.get_system is no public name",
    ]


def test_every_public_name_exists() -> None:
    import importlib

    for module, names in public(DOC.read_text(encoding="utf-8")).items():
        found = importlib.import_module(module)
        assert [n for n in sorted(names) if not hasattr(found, n)] == [], module
