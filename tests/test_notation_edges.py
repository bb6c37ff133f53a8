"""Dice notation where other rollers (avrae's d20, Foundry, Roll20) and players' habits
meet the ledger's: each case typed at `ledger roll`, as a player would."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ledger.dice.sources import Faces, chance, roll
from tests.conftest import Session
from tests.test_dice_oracle import through_d20


def rolled(run: Session, *args: str) -> dict[str, Any]:
    """The event `ledger --json roll ARGS` recorded."""
    event: dict[str, Any] = json.loads(run("--json", "roll", *args).output)["events"][0]
    return event


def rolls_recorded(run: Session) -> int:
    return sum(1 for e in json.loads(run("--json", "log", "--all").output) if e["kind"] == "dice.rolled")


@pytest.fixture
def run(ledger_cli: Session) -> Session:
    ledger_cli("new", "freeform", "Edges")
    return ledger_cli


def test_not_equal_after_a_die_is_refused_with_what_to_write(run: Session) -> None:
    result = run("roll", "1d20!=5", "--faces", "5,3", ok=False)
    assert result.exit_code != 0
    assert "'!=' reads as 'not equal'" in result.stderr and "write 1d20!5" in result.stderr
    assert "Traceback" not in result.output + result.stderr
    assert rolls_recorded(run) == 0
    assert run("roll", "1d20!5", "--faces", "5,3").output.strip() == "1d20!5 = 8  [5, 3!]"


@pytest.mark.parametrize(
    ("typed", "faces", "theirs"),
    [
        ("4d6!pl1", [6, 5, 2, 3, 1], "4d6e6pl1"),
        ("2d8epl1", [8, 4, 2], "2d8e8pl1"),
    ],
)
def test_an_explosion_then_a_drop_is_not_penetration(
    run: Session, typed: str, faces: list[int], theirs: str
) -> None:
    event = rolled(run, typed, "--faces", ",".join(map(str, faces)))
    their = through_d20(theirs, faces)
    assert event["result"]["total"] == their.total
    assert event["result"]["notation"].endswith("dl1")


def test_a_compounding_explosion_then_a_drop(run: Session) -> None:
    out = run("roll", "2d6!!pl1", "--faces", "6,4,3").output.strip()
    assert out == "2d6!!dl1 = 10  [6, 4!, ~3]"


def test_keep_counts_the_dice_an_explosion_added(run: Session) -> None:
    event = rolled(run, "2d6!kh3", "--faces", "6,3,2")
    assert event["result"]["total"] == through_d20("2d6e6kh3", [6, 3, 2]).total == 11
    # Without an explosion there are fewer dice than kept: all of them count.
    assert rolled(run, "2d6!kh3", "--faces", "4,3")["result"]["total"] == 7


def test_a_count_inside_arithmetic_is_a_number(run: Session) -> None:
    out = run("roll", "(3d6=6)-(2d6=6)", "--faces", "6,1,1,6,1").output.strip()
    assert out == "(3d6=6)-(2d6=6) = 0  ([6, 1, 1]) -([6, 1])"
    event = rolled(run, "(3d6=6)-(2d6=6)", "--faces", "6,1,1,6,1")
    assert "successes" not in event["result"] and event["p_success"] is None
    # A success needs a check on the result.
    event = rolled(run, "(3d6=6)-(2d6=6)>=1", "--faces", "6,6,1,6,1")
    assert event["result"]["successes"] == 1 and 0 < event["p_success"] < 1


def _exploding_d100_pair_at_least(target: int) -> float:
    """P(two exploding d100 sum to at least target), by summing the die's own values."""
    die = {}
    for k in range(12):  # k explosions, then a face below 100
        for r in range(1, 100):
            die[100 * k + r] = 0.01**k * 0.01
    return sum(p * q for a, p in die.items() for b, q in die.items() if a + b >= target)


@pytest.mark.parametrize("notation", ["(15d6!)>=55", "(20d6!)>=80", "(10d10!)>=60", "(2d100!)>=150"])
def test_long_explosions_get_a_chance_and_say_a_tail_was_cut(run: Session, notation: str) -> None:
    event = rolled(run, notation)
    assert event["p_success"] is not None and 0 < event["p_success"] < 1
    assert event["p_truncated"] is True
    # A chance that leaves nothing out does not say so.
    assert "p_truncated" not in rolled(run, "1d20+5>=15", "--faces", "9")
    if notation == "(2d100!)>=150":
        assert event["p_success"] == pytest.approx(_exploding_d100_pair_at_least(150), abs=1e-12)


@pytest.mark.parametrize(
    ("typed", "faces", "shown"),
    [
        ("10d6cs>=5", "5,6,1,2,3,4,5,6,1,1", "10d6>=5 = 4 successes  [5, 6, 1, 2, 3, 4, 5, 6, 1, 1]"),
        ("6d6cf<3", "1,2,3,4,5,2", "6d6<3 = 3 successes  [1, 2, 3, 4, 5, 2]"),
        ("3d6xo", "6,6,2,3", "3d6!o = 17  [6, 6!, 2, 3]"),
        ("{1d20,1d20}kh1", "5,17", "{1d20,1d20}kh1 = 17  {[5], [17]}kh1"),
        ("{1d20+5,2d6}kl1", "3,6,6", "{1d20+5,2d6}kl1 = 8  {[3] +5, [6, 6]}kl1"),
        ("floor(1d6/2)", "5", "floor(1d6/2) = 2  floor([5]/2)"),
        ("ceil(1d6/2)", "5", "ceil(1d6/2) = 3  ceil([5]/2)"),
        ("round(1d6/4)", "2", "round(1d6/4) = 1  round([2]/4)"),
        ("abs(1d6-4)", "1", "abs(1d6-4) = 3  abs([1] -4)"),
        ("2d6r1r2", "1,2,5,3", "2d6r1r2 = 8  [~1, ~2, 5, 3]"),
        ("4d6s", "5,1,6,3", "4d6s = 15  [1, 3, 5, 6]"),
        ("4d6sd", "5,1,6,3", "4d6sd = 15  [6, 5, 3, 1]"),
        ("+1d20", "7", "1d20 = 7  [7]"),
        ("1d20*+2", "7", "1d20*2 = 14  [7]*2"),
    ],
)
def test_forms_other_rollers_take(run: Session, typed: str, faces: str, shown: str) -> None:
    assert run("roll", typed, "--faces", faces).output.strip() == shown


@pytest.mark.parametrize(
    ("typed", "faces", "theirs"),
    [
        ("{1d20,1d20}kh1", [5, 17], "(1d20,1d20)kh1"),
        ("3d6xo", [6, 6, 2, 3], "3d6ra6"),
        ("+1d20+2", [7], "+1d20+2"),
    ],
)
def test_new_forms_total_as_avrae_does(run: Session, typed: str, faces: list[int], theirs: str) -> None:
    event = rolled(run, typed, "--faces", ",".join(map(str, faces)))
    assert event["result"]["total"] == through_d20(theirs, faces).total


def test_words_after_the_roll_are_its_label(run: Session) -> None:
    assert run("roll", "1d20+5 attack", "--faces", "12").output.strip() == "attack: 1d20+5 = 17  [12] +5"
    assert (
        run("roll", "1d20+5", "sneak", "attack", "--faces", "12").output.strip().startswith("sneak attack:")
    )
    out = run("roll", "1d20+5 attack", "--label", "grapple", "--faces", "12").output.strip()
    assert out.startswith("grapple: 1d20+5 = 17")
    # Modifiers set apart from their dice stay refused: they are not a comment.
    result = run("roll", "4d6 kh3", "--faces", "1,2,3,4", ok=False)
    assert result.exit_code != 0 and "no space" in result.stderr


def test_a_notation_starting_with_a_minus_needs_no_double_dash(run: Session) -> None:
    assert run("roll", "-1d4+5", "--faces", "3").output.strip() == "-1d4+5 = 2  -[3] +5"
    assert run("roll", "--faces", "3", "-1d4+5").output.strip() == "-1d4+5 = 2  -[3] +5"
    assert run("roll", "4dF", "--faces", "-1,0,1,1").output.strip().startswith("4dF = 1")


def test_every_new_form_is_checked_again_on_import(run: Session, tmp_path: Any) -> None:
    for typed, faces in [
        ("2d6!kh3", "6,3,2"),
        ("{1d20,1d20}kh1", "5,17"),
        ("ceil(1d6/2)", "5"),
        ("3d6xo", "6,6,2,3"),
        ("2d6r1r2", "1,2,5,3"),
        ("(20d6!)>=80", ",".join(["3"] * 20)),
    ]:
        run("roll", typed, "--faces", faces)
    out = tmp_path / "edges.jsonl"
    run("export", "-o", str(out))
    run("import", str(out), "--name", "Again")
    assert rolls_recorded(run) == 6


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("{1d20,1d20}kh3", "keeps 3 of 2 rolls; keep 1 to 2"),
        ("{1d20,1d20}dl2", "drops 2 of 2 rolls; drop 1 to 1"),
        ("{1d20,1d20", "pool is not closed"),
        ("3d6!!o", "a compounding die cannot explode once"),
        ("2d6r1ro2", "mixes rerolls until another face with ro"),
        ("floor(1d6/2", "floor( is not closed"),
    ],
)
def test_the_new_forms_refuse_what_they_cannot_mean(run: Session, typed: str, problem: str) -> None:
    result = run("roll", typed, "--faces", "1,2,3", ok=False)
    assert result.exit_code != 0 and problem in result.stderr
    assert "Traceback" not in result.stderr and rolls_recorded(run) == 0


@pytest.mark.parametrize(
    ("notation", "faces", "instead"),
    [
        ("2d6r1=1", "1,5,1,2", "write 2d6ro1 to reroll each such die once, or 2d6r1cs=1 to reroll 1s"),
        ("4d6x2>=5", "2,5,6,1,3", "write 4d6x>=5 to explode on >=5 without a cap, or 4d6x2cs>=5"),
        ("4d6r1<3", "1,2,4,6,5", "write 4d6ro<3 to reroll each such die once, or 4d6r1cs<3"),
    ],
)
def test_foundrys_capped_forms_are_refused_with_what_to_write(
    run: Session, notation: str, faces: str, instead: str
) -> None:
    """Foundry reads ``2d6r1=1`` as one reroll of a 1 at most and ``4d6x2>=5`` as two
    explosions on 5+ at most: never read silently as a face and then a count."""
    result = run("roll", notation, "--faces", faces, ok=False)
    assert result.exit_code != 0 and result.stderr.count("\n") == 1
    assert "Foundry's capped" in result.stderr and instead in result.stderr
    assert rolls_recorded(run) == 0


def test_a_count_after_a_reroll_is_written_with_cs_and_read_back_the_same(run: Session) -> None:
    event = rolled(run, "2d6r1cs=1", "--faces", "1,5,1,2")
    assert event["result"]["notation"] == "2d6r1cs=1" and event["result"]["successes"] == 0
    explicit = rolled(run, "2d6r=1=1", "--faces", "1,5,1,2")  # the face named with '=': no cap to read
    assert explicit["result"]["notation"] == "2d6r1cs=1"
    assert run("verify").exit_code == 0


@pytest.mark.parametrize(
    ("notation", "faces", "successes"),
    [
        ("3d6>=3", [3, 4, 1], 2),
        ("3d6>3", [3, 4, 1], 1),  # '>' is strict: the 3 does not count
        ("3d6<=3", [3, 4, 1], 2),
        ("3d6<3", [3, 4, 1], 1),  # '<' is strict
        ("3d6=3", [3, 4, 1], 1),
        ("1d20+2>=14", [12], 1),  # a check on the total: 14 reaches 14
        ("1d20+2>14", [12], 0),
        ("1d20+2<=14", [12], 1),
        ("1d20+2<14", [12], 0),
    ],
)
def test_each_comparison_at_the_face_it_names(notation: str, faces: list[int], successes: int) -> None:
    # docs/dice-notation.md: "`>` and `<` are strict, as in Foundry and avrae"
    assert roll(notation, Faces(faces)).successes == successes


def test_a_fate_die_shows_minus_1_0_or_plus_1_and_explodes_on_plus_1() -> None:
    # docs/dice-notation.md: "Fate / Fudge dice, faces typed -1, 0, 1"; the explosion's
    # default face is a die's highest, a Fate die's +1
    assert chance(roll("1dF+0>=1", Faces([1]))) == (pytest.approx(1 / 3), False)
    assert chance(roll("2dF+1>=2", Faces([1, 0]))) == (pytest.approx(1 / 3), False)
    faces = Faces([1, 1, 0])
    assert roll("1dF!", faces).total == 2 and faces.used == 3


@pytest.mark.parametrize(
    ("notation", "face", "total"),
    [
        ("round(1d6/4)", 1, 0),  # a quarter rounds down
        ("round(1d6/4)", 2, 1),  # "halves round up, as Foundry's Math.round"
        ("round(1d6/2)", 4, 2),  # a whole number stays
        ("round(-1d6/2)", 5, -2),  # -2.5 rounds up, to -2
        ("ceil(1d6/2)", 5, 3),
        ("floor(1d6/2)", 5, 2),
        ("1d6/4", 3, 0),  # outside them "/ still rounds down at once"
        ("1d6/2", 5, 2),
        ("1d6/1", 5, 5),
        ("-1d6/2", 5, -3),
        ("abs(1d6-4)", 1, 3),
        ("-abs(1d6-4)", 1, -3),
    ],
)
def test_functions_round_once_where_the_readings_differ(notation: str, face: int, total: int) -> None:
    # docs/dice-notation.md, "Functions": inside floor(), ceil() and round() a division is exact
    # and the function rounds the result once
    assert roll(notation, Faces([face])).total == total
