"""Dice notation and physical faces, including hostile input."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.dice import Faces, RandomDice, parse, parse_faces, render, roll
from ledger.errors import FacesError, LedgerError, NotationError


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
        ("2d6++1", "two operators"),
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
