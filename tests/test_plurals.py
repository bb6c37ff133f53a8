"""A count agrees with its noun: ``1 success``, ``1 campaign``, ``1 die``, never ``1 successes``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli.main import cli
from ledger.i18n import n_, using
from tests.conftest import Session

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("lang", "n", "shown"),
    [
        ("en", 1, "1 die"),
        ("en", 0, "0 dice"),
        ("en", 3, "3 dice"),
        ("es", 1, "1 dado"),
        ("es", 0, "0 dados"),
        ("es", 3, "3 dados"),
        ("es", 1000000, "1000000 dados"),  # CLDR's "many" form, which Spanish writes as "other"
    ],
)
def test_a_count_agrees_with_its_noun_in_each_language(lang: str, n: int, shown: str) -> None:
    """Counts go through the catalogs' plural rules (ngettext), English's and Spanish's."""
    with using(lang):
        assert n_("{n} die", "{n} dice", n) == shown


def test_one_campaign_one_roll_one_success_in_stats_and_sheet(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "One", "--no-commit")
    ledger_cli("character", "add", "Ana")
    ledger_cli("roll", "1d20>=11", "--faces", "15")
    stats = ledger_cli("stats").output
    assert "Statistics: all campaigns (1 campaign, 3 events, 1 roll)" in stats
    assert "luck index +1.00 over every die thrown: 1 success in 1 roll," in stats
    assert "luck +1.00: 1 success in 1 roll where 0.5 were expected" in ledger_cli("sheet").output


def test_one_event_verified_and_exported(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "One", "--no-commit")
    assert "ok  One: 1 event, head " in ledger_cli("verify").output
    out = tmp_path / "one.jsonl"
    assert ledger_cli("export", "-o", str(out)).output.startswith(f"exported 1 event to {out}")


def test_one_simulated_campaign(tmp_path: Path) -> None:
    done = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "s.ledger"), "simulate", "freeform", "--campaigns", "1", "--seed", "3"]
    )
    assert done.exit_code == 0, done.output
    assert "simulated 1 freeform campaign (seed 3): " in done.output


def test_keeping_more_dice_than_one_names_one_die(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "One")
    done = ledger_cli("roll", "1d6kh2", ok=False)
    assert "kh2 keeps 2 of 1 die; keep 1 to 1" in done.output


# --- no text renderer prints a count with a fixed plural -------------------------------------------

NOUNS = (
    "successes|campaigns|events|rolls|dice|days|rows|actions|bits|faces|sides|deaths|characters"
    "|throws|boxes|bars|stunts|versions|wounds|flips"
)
FIXED = re.compile(
    r"\{([^{}]+)\} (?:(?:more|pool|combat pool|base|skill|gear|attacker|simulated) )?("
    + NOUNS
    + r")\b(?! AS)"
)
ALWAYS_MANY = {
    # (file, the counted expression): counts that are never 1 where they are printed
    ("ledger/dice/notation.py", "MAX_LABEL"),
    ("ledger/dice/notation.py", "n"),  # above MAX_DICE
    ("ledger/dice/notation.py", "MAX_LENGTH"),
    ("ledger/dice/sources.py", "len(parts)"),  # above MAX_FACES_INPUT
    ("ledger/dice/sources.py", "MAX_DICE"),
    ("ledger/dice/legacy.py", "count"),  # above MAX_DICE
    ("ledger/dice/legacy.py", "MAX_DICE"),
    ("ledger/text.py", "len(value)"),  # above the name limit
    ("ledger/text.py", "len(text)"),  # above the text limit
    ("ledger/trust/admission.py", "MAX_TEXT"),
    ("cli/stats_text.py", "MIN_RANKED"),
    ("ledger/systems/yearzero/commands.py", "MAX_DICE"),
    ("ledger/systems/dicepool/checks.py", "wanted"),  # negative
    ("ledger/systems/d100/system.py", "used"),  # above the allowed, at least 1
    ("ledger/systems/yearzero/commands.py", "base"),  # out of range: below 0 or above 20
    ("ledger/systems/yearzero/commands.py", "skill_level"),  # out of range: below 0 or above 10
    ("ledger/systems/dicepool/combat.py", "command.against"),  # out of range
    ("ledger/dice/notation.py", "MAX_DICE"),
    ("ledger/errors.py", "len(characters)"),  # several characters, none chosen
    ("ledger/systems/dicepool/invariants.py", "MONITOR"),  # a condition monitor's ten boxes
    ("projections/warehouse/query.py", "sent"),  # past a result's byte budget: many rows
}
NOT_COUNTS = {
    ("cli/crawl.py", "game.fruit"),  # "fruit 2 bits 3": labels before values
    ("cli/demo.py", "where"),  # "--db PATH campaigns": a command line
    ("ledger/campaign/commitments.py", "c.name!r"),  # "campaign 'X' rolls seeded dice"
    ("ledger/campaign/sealing.py", "c.name!r"),  # "campaign 'X' rolls seeded dice"
    ("cli/stats.py", "rate:,.0f"),  # "N events/s": a unit
    ("ledger/systems/yearzero/events.py", "self.character"),  # "Ana rolls": a verb
    ("ledger/systems/dicepool/dice.py", "what"),  # "Ana rolls": a verb
    ("ledger/systems/dicepool/combat.py", "command.track"),  # "no hull boxes to heal"
    ("ledger/systems/dicepool/events.py", "track"),  # the plural of "hull box", given to count
    ("ledger/systems/dicepool/checks.py", "pool"),  # the plural of "combat pool die", given to count
    ("ledger/systems/d20/tables.py", "name!r"),  # "weapon 'x' sides": a table field
}


def _fstring_texts(path: Path) -> list[str]:
    """The text of each f-string in a module, with its expressions as ``{source}``."""
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            found.append(ast.get_source_segment(source, node) or "")
    return found


def test_no_count_is_printed_with_a_fixed_plural() -> None:
    files = [*ROOT.glob("cli/**/*.py"), *ROOT.glob("projections/**/*.py"), *ROOT.glob("ledger/**/*.py")]
    fixed = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for text in _fstring_texts(path):
            for m in FIXED.finditer(text):
                expr = m.group(1).split(":")[0] if ":," not in m.group(1) else m.group(1)
                if (rel, expr) in ALWAYS_MANY or (rel, m.group(1)) in NOT_COUNTS or (rel, expr) in NOT_COUNTS:
                    continue
                fixed.append(f"{rel}: {m.group(0)}")
    assert not fixed, "counts printed with a fixed plural:\n" + "\n".join(fixed)
