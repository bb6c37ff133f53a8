"""Build the d20 sample campaign: a crew on a derelict station.

Ammunition running down, a long burst, a jam, stress checks, a panic and a
trauma, and a death in a fork. Every roll is given as physical dice (faces),
so the log is the same on every run. Writes ``campaign.jsonl`` (the main
line) and ``campaign-fork.jsonl`` (the branch where Parker dies) beside
this file::

    python samples/d20/build_sample.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from ledger import Ledger
from ledger.systems.d20.commands import (
    Attack,
    Check,
    Create,
    Heal,
    Panic,
    Reload,
    Rest,
    RollInitiative,
    Stress,
    TakeDamage,
    Unjam,
    Use,
)

HERE = Path(__file__).resolve().parent
NAME = "derelict"
FORK = "derelict-dark"

CREW: list[tuple[Create, list[int]]] = [
    (
        Create(
            name="Ripley",
            cls="marine",
            assign={"fue": 18, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 8},
        ),
        [6, 5, 4, 3, 3, 2, 1, 1, 2, 6, 6, 6, 4, 4, 4, 5, 5, 3, 2, 3, 4],
    ),
    (
        Create(
            name="Parker",
            cls="technician",
            skills=("technology", "precision", "athletics"),
            assign={"fue": 12, "des": 13, "con": 12, "int": 16, "sab": 7, "car": 11},
        ),
        [5, 4, 3, 6, 5, 5, 2, 2, 3, 4, 4, 5, 1, 2, 2, 3, 4, 4, 6, 3, 3],
    ),
    (
        Create(
            name="Bishop",
            cls="synthetic",
            assign={"fue": 15, "des": 16, "con": 12, "int": 17, "sab": 12, "car": 9},
        ),
        [5, 5, 5, 4, 4, 4, 3, 3, 3, 6, 6, 4, 2, 2, 1, 3, 4, 5, 6, 5, 6],
    ),
]

STORY: list[tuple[str, Any, list[int] | None]] = [
    ("Parker", Check(attribute="int", skill="technology", dc="hard", push=True), [6, 13]),
    ("Ripley", Use(resource="oxygen"), [2]),
    ("Parker", Stress(difficulty=14), [8, 3]),
    ("Ripley", RollInitiative(), [15]),
    ("Ripley", Attack(weapon="pulse rifle", defense=14, mode="long"), [12, 17, 6, 9]),
    ("Ripley", Attack(weapon="pulse rifle", defense=14), [1]),
    ("Ripley", Unjam(), [9]),
    ("Ripley", Unjam(), [14]),
    ("Parker", TakeDamage(amount=4, cause="claws"), None),
    ("Ripley", Attack(weapon="pulse rifle", defense=14, mode="long"), [16, 8, 10, 7]),
    ("Parker", Stress(difficulty=17), [5, 6]),
    ("Parker", Panic(), [5, 1, 3]),
    ("Ripley", Use(resource="rifle rounds"), [3]),
    ("Bishop", Heal(target="Parker", kit=True), [12, 4]),
    ("Bishop", TakeDamage(amount=3, cause="acid"), None),
    ("Parker", Heal(target="Bishop"), [11, 2]),
    ("Ripley", Rest(), None),
]

FINALE: list[tuple[str, Any, list[int] | None]] = [
    ("Ripley", Attack(weapon="pulse rifle", defense=15, mode="full"), [7, 18, 4, 5, 9]),
    ("Ripley", Reload(), [3]),
]

DARK: list[tuple[str, Any, list[int] | None]] = [
    ("Parker", TakeDamage(amount=9, cause="the queen"), None),
]


def play(book: Ledger, name: str, steps: list[tuple[str, Any, list[int] | None]]) -> None:
    for who, command, faces in steps:
        book.execute(command, name, faces=faces, actor=who)


def build(book: Ledger) -> None:
    book.new_campaign("d20", NAME, seed=20)
    for command, faces in CREW:
        book.execute(command, NAME, faces=faces)
    play(book, NAME, STORY)
    book.note("The crew reaches the hangar; the queen waits by the shuttle.", NAME)
    book.fork(NAME, FORK)
    play(book, NAME, FINALE)
    play(book, FORK, DARK)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, Ledger(str(Path(tmp) / "build.ledger")) as book:
        build(book)
        for name, file in ((NAME, "campaign.jsonl"), (FORK, "campaign-fork.jsonl")):
            with (HERE / file).open("wb") as out:
                count = book.export(out, name)
            print(f"wrote {count} events to {HERE / file}")


if __name__ == "__main__":
    main()
