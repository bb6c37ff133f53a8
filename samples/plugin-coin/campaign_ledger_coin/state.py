"""The coin system's read side: its state, the fold, the sheet and the warehouse facts.

``evolve`` is pure: it never rolls and never refuses, it folds what was
recorded. An undone flip is never folded (the ledger folds the effective
history), so every count here is of effective flips.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from campaign_ledger_coin.events import FACES, Flipped
from campaign_ledger_coin.i18n import N_, _, face, n_
from ledger.facts import DieFace, Fact, RollFact
from ledger.log.events import CampaignStarted, Envelope, Event
from ledger.systems import Control, Form, SheetField, SheetLayout, SheetSection

P_SUCCESS = 0.5
"""A call wins on one face of two: exactly one chance in two."""


class CoinState(msgspec.Struct, frozen=True):
    """What a coin campaign knows: its flips, and the run the last face is on."""

    flips: int = 0
    heads: int = 0
    tails: int = 0
    won: int = 0
    streak: int = 0
    """How many flips in a row, up to the last one, fell on the same face."""
    streak_face: str | None = None
    last: Flipped | None = None


def initial(_started: CampaignStarted) -> CoinState:
    return CoinState()


def evolve(state: CoinState, event: Event, _env: Envelope[Any]) -> CoinState:
    if not isinstance(event, Flipped):
        return state
    streak = state.streak + 1 if event.face == state.streak_face else 1
    return replace(
        state,
        flips=state.flips + 1,
        heads=state.heads + (event.face == "heads"),
        tails=state.tails + (event.face == "tails"),
        won=state.won + event.won,
        streak=streak,
        streak_face=event.face,
        last=event,
    )


def sheet(state: Any, _actor: str | None) -> dict[str, Any]:
    """The campaign's sheet (one for the whole table: the coin is everyone's)."""
    game: CoinState = state.game
    return {
        "campaign": state.core.name,
        "system": "coin",
        "flips": game.flips,
        "streak": game.streak,
        "streak_face": game.streak_face,
        "heads": game.heads,
        "tails": game.tails,
        "won": game.won,
        "last": game.last.summary() if game.last else None,
        "calls": list(FACES),
    }


SHEET = SheetLayout(
    title=(N_("{campaign} (coin): flips {flips}, calls won {won}"),),
    headline=(
        SheetField("flips", N_("flips")),
        SheetField("won", N_("calls won"), max="flips"),
        SheetField("streak", N_("streak"), show=N_("{streak} {streak_face} in a row")),
    ),
    sections=(
        SheetSection(N_("Call"), (SheetField("calls", ""),)),
        SheetSection(N_("Faces"), (SheetField("heads", N_("heads")), SheetField("tails", N_("tails")))),
        SheetSection(N_("Last flip"), (SheetField("last", ""),), when="last"),
    ),
    controls=(
        Control(
            command="coin.Flip", on="calls", each="calls", args={"call": "{key}"}, label=N_("call {key}")
        ),
    ),
)
"""How the sheet reads (``ledger sheet``, the report, the live table), and what a player
taps on it: a call, heads or tails, flips the coin."""


def render_sheet(data: dict[str, Any]) -> str:
    if not data["flips"]:
        return _("{campaign} (coin): no flip yet", campaign=data["campaign"])
    return "\n".join(
        [
            _(
                "{campaign} (coin): flips {flips}, calls won {won}",
                campaign=data["campaign"],
                flips=data["flips"],
                won=data["won"],
            ),
            _(
                "heads {heads}, tails {tails}; streak: {run}",
                heads=data["heads"],
                tails=data["tails"],
                run=streak_text(data["streak"], data["streak_face"]),
            ),
            _("last: {flip}", flip=data["last"]),
        ]
    )


def streak_text(streak: int, streak_face: str | None) -> str:
    """``3 heads in a row``."""
    return n_("{n} {face} in a row", "{n} {face} in a row", streak, face=face(streak_face or ""))


def facts(env: Envelope[Any]) -> list[Fact]:
    """The warehouse rows of one stored event: a flip is a roll of one d2 (``rolls``)."""
    ev = env.event
    if not isinstance(ev, Flipped):
        return []
    return [
        RollFact(
            purpose="flip",
            dice=(DieFace(2, FACES.index(ev.face) + 1),),
            outcome=ev.face,
            success=ev.won,
            manual=ev.manual,
            p_success=P_SUCCESS,
        )
    ]


FORMS = (Form(command="coin.Flip", name=N_("coin flip"), group=N_("Flip"), sheet=True),)
"""The coin's one command, by its name on the command line: the sheet's calls offer it."""
