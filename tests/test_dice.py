"""Dice notation and physical faces, including hostile input."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.dice.sources import (
    MAX_DICE,
    MAX_GROUPS,
    SEMANTICS,
    Faces,
    RandomDice,
    p_any_success,
    parse,
    parse_faces,
    recompute,
    render,
    roll,
)
from ledger.errors import FacesError, LedgerError, NotationError
from ledger.log.events import Rolled


def test_keep_highest_and_lowest() -> None:
    r = roll("4d6kh3", Faces([2, 6, 2, 5]))
    assert r.total == 13
    assert [d.kept for d in r.groups[0].dice] == [True, True, False, True]
    r = roll("2d20kl1", Faces([17, 4]))
    assert r.total == 4


def test_exploding_dice_consume_faces_in_roll_order() -> None:
    r = roll("2d6!", Faces([6, 6, 3, 2]))
    assert r.total == 17
    assert [(d.face, d.explodes) for d in r.groups[0].dice] == [(6, None), (6, 0), (3, 1), (2, None)]


def test_success_counting_and_modifiers() -> None:
    assert roll("8d6>=5", Faces([5, 6, 1, 2, 5, 4, 3, 6])).successes == 4
    assert roll("2d6+3-1", Faces([1, 2])).total == 5
    assert roll("d%", Faces([100])).total == 100
    assert roll("1d6-1d4", Faces([6, 4])).total == 2


def test_render_marks_dropped_dice() -> None:
    assert render(roll("3d6kl2", Faces([5, 1, 3]))) == "3d6kl2 = 4  [~5, 1, 3]"


@pytest.mark.parametrize(
    ("notation", "problem"),
    [
        ("", "empty"),
        ("d", "needs its sides"),
        ("2d0", "outside d1"),
        ("5d6kh9", "keeps 9 of 5"),
        ("1001d6", "above the limit"),
        ("4", "rolls no dice"),
        ("1d1!", "explode forever"),
        ("2d6 3", "unexpected '3'"),
    ],
)
def test_bad_notation_names_the_problem(notation: str, problem: str) -> None:
    with pytest.raises(NotationError, match=problem):
        parse(notation)


def test_faces_must_fit_the_dice() -> None:
    with pytest.raises(FacesError, match=r"face 9 .* not on a d8"):
        roll("1d8", Faces([9]))
    faces = Faces([3, 3, 3])
    roll("2d6", faces)
    with pytest.raises(FacesError, match="too many faces"):
        faces.finish()
    with pytest.raises(FacesError, match="whole number"):
        parse_faces("3,x")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        formula = parse(text)
    except LedgerError as e:
        assert "\n" not in str(e)
        return
    result = roll(formula.text, RandomDice(random.Random(1)))
    assert isinstance(result.total, int)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=-5, max_value=30), max_size=12),
    st.sampled_from(["2d6", "3d6!", "4d6kh3", "1d20", "5d10>=8", "2d4+1"]),
)
def test_any_faces_fit_or_are_refused(faces: list[int], notation: str) -> None:
    dice = Faces(faces)
    try:
        result = roll(notation, dice)
        dice.finish()
    except FacesError as e:
        assert "\n" not in str(e)
        return
    assert result.groups[0].dice and [d.face for g in result.groups for d in g.dice] == faces


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.integers(min_value=2, max_value=20), st.integers(0, 2**32))
def test_random_rolls_stay_in_range(count: int, sides: int, seed: int) -> None:
    result = roll(f"{count}d{sides}", RandomDice(random.Random(seed)))
    assert count <= result.total <= count * sides


# --- rolls recorded by the first version keep their meaning -------------------------

OLD_ROLLS = [
    # (stored event, as the first version rendered it)
    (
        '{"kind":"dice.rolled","result":{"notation":"4d6kh3!","groups":[{"count":4,"sides":6,"dice":'
        '[{"sides":6,"face":6},{"sides":6,"face":2,"explodes":0},{"sides":6,"face":3,"kept":false},'
        '{"sides":6,"face":4},{"sides":6,"face":5}],"value":17,"keep":"kh3","explode":true}],'
        '"modifier":0,"total":17},"label":"","manual":true,"p_success":null}',
        "4d6kh3! = 17  [6, 2!, ~3, 4, 5]",
    ),
    (
        '{"kind":"dice.rolled","result":{"notation":"1d20>=15+5","groups":[{"count":1,"sides":20,'
        '"dice":[{"sides":20,"face":17}],"value":1,"success":">=15"}],"modifier":5,"total":6,'
        '"successes":1},"label":"","manual":true,"p_success":0.30000000000000004}',
        "1d20>=15+5 = 1 success  [17] +5",
    ),
    (
        '{"kind":"dice.rolled","result":{"notation":"3d6!>=8","groups":[{"count":3,"sides":6,"dice":'
        '[{"sides":6,"face":6},{"sides":6,"face":2,"explodes":0},{"sides":6,"face":1},'
        '{"sides":6,"face":1}],"value":1,"explode":true,"success":">=8"}],"modifier":0,"total":1,'
        '"successes":1},"label":"","manual":true,"p_success":null}',
        "3d6!>=8 = 1 success  [6, 2!, 1, 1]",
    ),
]


@pytest.mark.parametrize(("stored", "shown"), OLD_ROLLS)
def test_an_old_roll_reads_as_it_was_recorded(stored: str, shown: str) -> None:
    event = msgspec.json.decode(stored, type=Rolled)
    assert event.result.semantics == 1
    assert render(event.result) == shown
    assert recompute(event.result) == event.result
    # Re-encoded, it is byte for byte what was stored: nothing new is written into it.
    assert msgspec.json.encode(event).decode() == stored


def test_the_same_notation_now_means_each_explosion_its_own_die() -> None:
    old = msgspec.json.decode(OLD_ROLLS[0][0], type=Rolled).result
    new = roll(old.notation, Faces(old.faces()))
    assert (old.total, new.total) == (17, 15)
    assert new.semantics == SEMANTICS and "semantics" in msgspec.json.encode(new).decode()


def test_recompute_catches_a_total_that_its_faces_do_not_give() -> None:
    for result in (
        msgspec.json.decode(OLD_ROLLS[0][0], type=Rolled).result,
        roll("4d6r1!kh3+2", Faces([1, 6, 6, 2, 3, 4, 5])),
        roll("1d20+5>=15", Faces([9])),
    ):
        assert recompute(result) == result
        forged = msgspec.structs.replace(result, total=result.total + 1)
        assert recompute(forged) != forged


def test_recompute_refuses_faces_that_do_not_fit_the_notation() -> None:
    result = roll("2d6", Faces([3, 4]))
    with pytest.raises(FacesError, match="too many faces"):
        recompute(msgspec.structs.replace(result, notation="1d6"))
    with pytest.raises(NotationError, match="newer than this ledger"):
        recompute(msgspec.structs.replace(result, semantics=SEMANTICS + 1))


def test_fate_dice_take_faces_minus_one_to_one() -> None:
    assert parse_faces("-1,0,1,1") == [-1, 0, 1, 1]
    result = roll("4dF", Faces([-1, 0, 1, 1]))
    assert result.total == 1 and result.faces() == [-1, 0, 1, 1]
    assert [d.face for d in result.groups[0].dice] == [1, 2, 3, 3]  # a d3 for the statistics
    with pytest.raises(FacesError, match="not on a Fate die"):
        roll("1dF", Faces([2]))
    with pytest.raises(FacesError, match="not on a d6"):
        roll("1d6", Faces([-1]))


def test_the_cli_takes_negative_faces(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ledger.cli.main import cli

    db = ["--db", str(tmp_path / "c.ledger")]
    runner = CliRunner()
    assert runner.invoke(cli, [*db, "new", "freeform", "F"]).exit_code == 0
    done = runner.invoke(cli, [*db, "roll", "4dF+1", "--faces=-1,0,1,1"])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == "4dF+1 = 2  [-1, 0, +1, +1] +1"
    done = runner.invoke(cli, [*db, "roll", "1d20+5>=15", "--faces", "-3"])
    assert done.exit_code != 0 and "not on a d20" in done.output and "Traceback" not in done.output


def test_a_check_and_a_count_record_their_exact_chance(tmp_path: Path) -> None:
    from ledger import Ledger

    with Ledger(str(tmp_path / "c.ledger")) as book:
        book.new_campaign("freeform", "F")
        for notation, faces, chance in [
            ("1d20+5>=15", [12], 11 / 20),
            ("4d6!kh3>=6", [6, 2, 3, 4, 5], None),
            ("(2d20kh1)>=15", [3, 17], 1 - (14 / 20) ** 2),
        ]:
            event = book.roll(notation, "F", faces=faces).events[0]
            if chance is None:
                assert 0 < event.p_success < 1
            else:
                assert event.p_success == pytest.approx(chance)


NOTATION_ALPHABET = "0123456789dDFkhlprRoeximna!<>=+-*/()[] %"


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=NOTATION_ALPHABET, max_size=30)
    | st.from_regex(
        r"\A\(?[1-9]?d(6|20|F)(kh[1-3]|dl1|r1|ro<2|!|!!|!>5|mi2|ma5|>=4|[fire])*\)?"
        r"([+*/-]\(?[1-9]?d?[0-9]{1,2}\)?)?(>=1[0-5])?\Z",
        fullmatch=True,
    ),
    st.integers(0, 2**32),
)
def test_notation_like_text_rolls_or_is_refused_cleanly(text: str, seed: int) -> None:
    """Hostile or mistyped notation never raises anything but a one-line LedgerError,
    and whatever parses stays within the limits and reads back from its own faces."""
    try:
        result = roll(text, RandomDice(random.Random(seed)))
    except LedgerError as e:
        assert "\n" not in str(e)
        return
    assert all(len(g.dice) <= MAX_DICE for g in result.groups)
    assert len(result.groups) <= MAX_GROUPS
    assert recompute(result) == result
    assert parse(result.notation).text == result.notation
    chance = p_any_success(result)
    assert chance is None or 0.0 <= chance <= 1.0
    if result.successes is None:
        assert chance is None
    render(result)


def test_runaway_rolls_and_chances_stop_at_their_limits() -> None:
    with pytest.raises(NotationError, match=f"passed {MAX_DICE} dice"):
        roll("1d6!", Faces([6] * (MAX_DICE + 1)))
    with pytest.raises(NotationError, match=f"passed {MAX_DICE} dice"):
        roll("2d6r<6", Faces([1] * (MAX_DICE + 1)))
    huge = roll("(1000d1000kh500)>=250000", RandomDice(random.Random(3)))
    assert huge.successes is not None and p_any_success(huge) is None


def test_the_notation_table_in_the_docs_is_true() -> None:
    """Each row of docs/dice-notation.md's table: its first example on its faces gives
    the first number it states."""
    import re

    doc = (Path(__file__).parents[1] / "docs" / "dice-notation.md").read_text()
    table = doc.split("## Every form", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) >= 20
    for row in rows:
        _, _form, example, faces, gives, _ = (cell.strip() for cell in row.split("|"))
        notation = re.search(r"`([^`]+)`", example)[1]  # type: ignore[index]
        expected = int(re.match(r"-?\d+", gives)[0])  # type: ignore[index]
        dice = Faces(parse_faces(faces))
        assert roll(notation, dice).total == expected, row
        dice.finish()


def test_the_log_line_of_a_check_says_how_it_went() -> None:
    hit = Rolled(result=roll("1d20+5>=15", Faces([12])), label="attack", manual=True)
    assert hit.summary() == "rolled attack: 1d20+5>=15 = 17, success [12] (physical dice)"
    miss = Rolled(result=roll("1d20+5>=15", Faces([2])))
    assert miss.summary() == "rolled 1d20+5>=15 = 7, failure [2]"
    assert Rolled(result=roll("8d6>=5", Faces([5] * 8))).summary() == "rolled 8d6>=5 = 8 [5,5,5,5,5,5,5,5]"
