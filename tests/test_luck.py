"""The luck index is the dice's luck: every die thrown counts, undone ones included. Beside
it, each labelled, the kept luck (the rolls that stayed) and the mulligans (the undone
rolls and what undoing them did to the kept luck); characters are ranked only with rolls
enough for their luck to compare, and each shows how many rolls it rests on."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from tests.conftest import Session


def _stats(db: str, *args: str) -> str:
    done = CliRunner().invoke(cli, ["--db", db, "stats", *args])
    assert done.exit_code == 0, done.output
    return done.output


def test_undone_failures_count_in_the_luck_index_and_show_as_mulligans(ledger_cli: Session) -> None:
    """Ten failed rolls, each undone and rolled again to a success: the dice gave ten
    successes in twenty coin flips (luck 0), the kept rolls ten in ten (+3.16)."""
    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    for _ in range(10):
        ledger_cli("roll", "1d20>=11", "--faces", "3")
        ledger_cli("undo")
        ledger_cli("roll", "1d20>=11", "--faces", "16")
    data = json.loads(ledger_cli("stats", "--json").output)
    overall = data["luck"]["overall"]
    assert (overall["judged"], overall["successes"], overall["expected"], overall["luck"]) == (
        20,
        10,
        10.0,
        0.0,
    )
    kept_luck = round(5 / math.sqrt(2.5), 2)
    assert overall["kept"] == {"judged": 10, "successes": 10, "expected": 5.0, "luck": kept_luck}
    assert overall["mulligans"] == {"rolls": 10, "successes": 0, "expected": 5.0, "effect": kept_luck}
    (ana,) = data["luck"]["characters"]
    assert (ana["judged"], ana["luck"], ana["kept"]["luck"], ana["mulligans"]["rolls"]) == (
        20,
        0.0,
        kept_luck,
        10,
    )
    (by_purpose,) = data["rolls"]
    assert (by_purpose["rolls"], by_purpose["undone"], by_purpose["judged"]) == (10, 10, 20)
    assert (by_purpose["rate"], by_purpose["luck"]) == (0.5, 0.0)
    text = ledger_cli("stats", "--report", "luck").output
    assert "luck index +0.00 over every die thrown: 10 successes in 20 rolls" in text
    assert f"kept luck +{kept_luck:.2f}: the 10 rolls that stayed" in text
    assert (
        f"mulligans: 10 rolls undone (0 successes, 5.0 expected); undoing them moved the kept luck by +{kept_luck:.2f}"
        in text
    )
    sheet = json.loads(ledger_cli("sheet", "--json").output)["luck_index"]
    assert sheet == {"judged": 20, "successes": 10, "expected": 10.0, "luck": 0.0}


def test_fair_simulated_dice_show_no_luck_however_many_rolls_were_undone(tmp_path: Path) -> None:
    """The issue's run: fair dice, a simulator that takes failed rolls back. The luck index
    stays within chance; the kept luck is what shows the mulligans."""
    db = str(tmp_path / "s.ledger")
    done = CliRunner().invoke(cli, ["--db", db, "simulate", "freeform", "--campaigns", "60", "--seed", "1"])
    assert done.exit_code == 0, done.output
    luck = json.loads(_stats(db, "--simulated", "--report", "luck", "--json"))["luck"]["overall"]
    assert abs(luck["luck"]) < 2
    assert luck["kept"]["luck"] > 3
    assert luck["mulligans"]["rolls"] > 100 and luck["mulligans"]["effect"] > 2
    assert luck["judged"] == luck["kept"]["judged"] + luck["mulligans"]["rolls"]


def _rolls(book: Ledger, who: str, wins: int, losses: int, notation: str = "1d20>=11") -> None:
    for face in [20] * wins + [1] * losses:
        book.roll(notation, "c", faces=[face], actor=who)


def test_four_failed_rolls_are_not_the_unluckiest_character(tmp_path: Path) -> None:
    """Kit failed 4 rolls at 95% (-8.7 standard deviations on four rolls); Vera made 12 of
    40 even rolls (-2.53). Vera is the unluckiest: Kit's four rolls are too few to rank,
    and the report says how many rolls each luck rests on."""
    db = str(tmp_path / "r.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "c", seed=1)
        names = ["Kit", "Vera", *(f"P{i:02d}" for i in range(11))]
        for name in names:
            book.add_character(name, "c")
        _rolls(book, "Kit", 0, 4, "1d20>=2")
        _rolls(book, "Vera", 12, 28)
        for i, name in enumerate(names[2:]):
            _rolls(book, name, 8 + i % 5, 12 - i % 5)
    text = _stats(db, "--report", "luck")
    table = text[text.index("campaign  character") :].splitlines()
    assert all("Kit" not in line for line in table)
    assert table[0].split() == [
        "campaign",
        "character",
        "rolls",
        "successes",
        "expected",
        "luck",
        "kept",
        "luck",
        "mulligans",
    ]
    assert table[-1].split()[:6] == ["c", "Vera", "40", "12", "20", "-2.53"]
    assert "(1 character with fewer rolls is not ranked)" in text
    data = json.loads(_stats(db, "--report", "luck", "--json"))["luck"]
    kit = next(c for c in data["characters"] if c["character"] == "Kit")
    assert (kit["judged"], kit["luck"], kit["ranked"]) == (4, -8.72, False)
    assert data["unluckiest_characters"][0]["character"] == "Vera"
    assert "Kit" not in [c["character"] for c in data["unluckiest_characters"]]


@pytest.mark.parametrize(
    ("expected", "judged", "ranked"), [(4.9, 20, False), (15.1, 20, False), (5.0, 10, True)]
)
def test_a_luck_index_is_ranked_with_five_successes_and_five_failures_expected(
    expected: float, judged: int, ranked: bool
) -> None:
    from ledger.projections.stats.maths import rankable

    assert rankable({"judged": judged, "expected": expected, "luck": 1.0}) is ranked
