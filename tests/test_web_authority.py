"""Who may do what at the live table, in every system: a player's seat sends its own
character's deeds; what acts for the whole party, moves the clock, awards, rules or brings a
character in is the GM's (a 403, nothing recorded), and the GM's same request is recorded.

Each system plays a short evening through the API. A player tries every command its system
declares the GM's (and every value that makes a command the GM's, ``everyone: true``), each
refused with 403 and nothing recorded; the GM then sends the very same request and it is
recorded, so the refusal was the seat's and nothing else. ``test_every_gm_form_is_tried``
holds each evening to every GM-only form its system declares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger import Ledger
from ledger.deciding.authority import Reach, by_player, declared
from ledger.deciding.commands import Note, stable_commands
from ledger.systems import get_system, system_names
from ledger.systems.d20.commands import Create
from ledger.systems.d100.commands import CreateCharacter as Investigator
from ledger.systems.dicepool.commands import Join
from ledger.trust.seats import seats_of
from ledger.web import affordances
from ledger.web.app import create_app
from tests.helpers_web import TestClient, bearer, head

Step = tuple[str, str, dict[str, Any], list[int] | None, int]
"""(seat, command, args, physical faces or None, the status expected)."""

MUTANT = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3"}
INVESTIGATOR = {"TAM": 11, "CON": 12, "FUE": 10, "INT": 15, "EDU": 16, "DES": 12, "CAR": 13, "POD": 12}
RUNNER = {
    "body": "4",
    "quickness": "5",
    "intelligence": "4",
    "willpower": "3",
    "strength": "3",
    "skill.pistols": "5",
    "pool.combat": "6",
    "armor": "1",
}


def _freeform(book: Ledger) -> None:
    book.add_character("Ana", "Friday")
    book.add_character("Bo", "Friday")


def _coin(book: Ledger) -> None:
    book.add_character("Ana", "Friday")
    book.add_character("Bo", "Friday")


def _crawl(book: Ledger) -> None:
    book.add_character("Ana", "Friday")


def _yearzero(book: Ledger) -> None:
    book.add_character("Ana", "Friday", MUTANT)
    book.add_character("Bo", "Friday", MUTANT)


def _d100(book: Ledger) -> None:
    for name in ("Ana", "Bo"):
        book.execute(Investigator(name=name, characteristics=INVESTIGATOR, skills={"Trepar": 40}), "Friday")


def _d20(book: Ledger) -> None:
    for name in ("Ana", "Bo"):
        book.execute(Create(name=name, cls="marine"), "Friday")


def _dicepool(book: Ledger) -> None:
    for name in ("Ana", "Bo"):
        book.execute(Join(name=name, attrs=RUNNER), "Friday")


SETUPS: dict[str, Callable[[Ledger], None]] = {
    "freeform": _freeform,
    "coin": _coin,
    "crawl": _crawl,
    "yearzero": _yearzero,
    "d100": _d100,
    "d20": _d20,
    "dicepool": _dicepool,
}

NEWCOMER: list[Step] = [
    ("ana", "core.AddCharacter", {"name": "Cy"}, None, 403),
    ("gm", "core.AddCharacter", {"name": "Cy"}, None, 200),
]

EVENINGS: dict[str, list[Step]] = {
    "freeform": [
        ("ana", "core.Roll", {"notation": "2d6", "label": "climb"}, None, 200),
        ("ana", "core.Note", {"text": "I hold the rope"}, None, 200),
        *NEWCOMER,
        ("gm", "core.Roll", {"notation": "1d20", "actor": "Bo"}, None, 200),
    ],
    "coin": [
        ("ana", "coin.Flip", {"call": "heads"}, None, 200),
        *NEWCOMER,
        ("gm", "coin.Flip", {"call": "tails", "actor": "Bo"}, None, 200),
    ],
    "crawl": [
        # The explorer's own solo game: its player takes every step of the day.
        ("ana", "crawl.Move", {"direction": "n"}, None, 200),
        ("ana", "core.Note", {"text": "the dunes go on"}, None, 200),
        ("ana", "core.AddCharacter", {"name": "Cy"}, None, 403),
    ],
    "yearzero": [
        ("ana", "yearzero.Roll", {"what": "scout"}, None, 200),
        ("ana", "yearzero.Eat", {}, None, 200),
        ("ana", "yearzero.Eat", {"everyone": True}, None, 403),
        ("gm", "yearzero.Eat", {"everyone": True}, None, 200),
        ("ana", "yearzero.Drink", {}, None, 200),
        ("ana", "yearzero.Drink", {"everyone": True}, None, 403),
        ("gm", "yearzero.Drink", {"everyone": True}, None, 200),
        ("ana", "yearzero.Tick", {"minutes": 720}, None, 403),
        ("gm", "yearzero.Tick", {"minutes": 720}, None, 200),
        ("ana", "yearzero.Enter", {"sector": "G7", "rot_level": 1}, None, 403),
        ("gm", "yearzero.Enter", {"sector": "G7", "rot_level": 1}, None, 200),
        ("ana", "yearzero.Explore", {}, None, 403),
        ("gm", "yearzero.Explore", {}, None, 200),
        ("ana", "yearzero.Rest", {"hours": 4}, None, 403),
        ("gm", "yearzero.Rest", {"hours": 4}, None, 200),
        ("ana", "yearzero.Sleep", {"hours": 8}, None, 403),
        ("gm", "yearzero.Sleep", {"hours": 8}, None, 200),
        # A failed Endure roll against the cold: Ana is hypothermic once it is final.
        ("ana", "yearzero.Cold", {}, [2, 2, 2], 200),
        ("ana", "yearzero.Warm", {"everyone": True}, None, 403),
        ("gm", "yearzero.Warm", {"everyone": True}, None, 200),
        ("ana", "yearzero.CreateCharacter", {"name": "Cy", "attrs": MUTANT}, None, 403),
        ("gm", "yearzero.CreateCharacter", {"name": "Cy", "attrs": MUTANT}, None, 200),
        *NEWCOMER[:1],
        ("gm", "yearzero.Roll", {"what": "scout", "actor": "Bo"}, None, 200),
    ],
    "d100": [
        ("ana", "d100.Test", {"skill": "Trepar"}, [90], 200),
        ("ana", "d100.SpendLuck", {}, None, 200),
        ("ana", "d100.RefundLuck", {}, None, 403),
        ("gm", "d100.RefundLuck", {"actor": "Ana"}, None, 200),
        ("ana", "d100.AwardLuck", {"points": 999}, None, 403),
        ("ana", "d100.AwardLuck", {"points": 5, "reason": "a good idea"}, None, 403),
        ("gm", "d100.AwardLuck", {"points": 5, "reason": "a good idea", "actor": "Ana"}, None, 200),
        ("ana", "d100.Rest", {"minutes": 60}, None, 403),
        ("gm", "d100.Rest", {"minutes": 60, "actor": "Ana"}, None, 200),
        ("ana", "d100.Rest", {"minutes": 60, "everyone": True}, None, 403),
        ("gm", "d100.Rest", {"minutes": 60, "everyone": True}, None, 200),
        ("ana", "d100.DeclareRound", {}, None, 200),
        ("ana", "d100.EndCombat", {}, None, 403),
        ("gm", "d100.EndCombat", {}, None, 200),
        ("ana", "d100.CreateCharacter", {"name": "Cy", "characteristics": INVESTIGATOR}, None, 403),
        ("gm", "d100.CreateCharacter", {"name": "Cy", "characteristics": INVESTIGATOR}, None, 200),
        *NEWCOMER[:1],
    ],
    "d20": [
        ("ana", "d20.Check", {"attribute": "fue", "dc": "normal"}, None, 200),
        ("ana", "d20.Supply", {"resource": "torches", "die": "d6"}, None, 403),
        ("gm", "d20.Supply", {"resource": "torches", "die": "d6", "actor": "Ana"}, None, 200),
        ("ana", "d20.Rest", {}, None, 403),
        ("gm", "d20.Rest", {}, None, 200),
        # A fumbled INS SAB check, then the panic roll (6: a trauma, 3 on the traumas, 2 calm back).
        ("ana", "d20.Stress", {"difficulty": 11}, [1, 2], 200),
        ("ana", "d20.Panic", {}, [6, 3, 2], 200),
        ("ana", "d20.Treat", {}, None, 403),
        ("gm", "d20.Treat", {"actor": "Ana"}, None, 200),
        ("ana", "d20.Create", {"name": "Cy", "cls": "marine"}, None, 403),
        ("gm", "d20.Create", {"name": "Cy", "cls": "marine"}, None, 200),
        *NEWCOMER[:1],
    ],
    "dicepool": [
        ("ana", "dicepool.Test", {"skill": "pistols", "tn": 4}, None, 200),
        ("ana", "dicepool.Initiative", {}, None, 403),
        ("gm", "dicepool.Initiative", {}, None, 200),
        # Ana resists a stun hit no roll of hers can stage away: boxes marked, to heal.
        ("ana", "dicepool.Resist", {"damage": "9M", "against": 20, "stun": True}, None, 200),
        ("ana", "dicepool.Heal", {"boxes": 1, "track": "stun"}, None, 403),
        ("gm", "dicepool.Heal", {"boxes": 1, "track": "stun", "actor": "Ana"}, None, 200),
        ("ana", "dicepool.Join", {"name": "Cy", "attrs": RUNNER}, None, 403),
        ("gm", "dicepool.Join", {"name": "Cy", "attrs": RUNNER}, None, 200),
        *NEWCOMER[:1],
    ],
}


class Table(msgspec.Struct):
    db: str
    gm: str
    ana: str
    watch: str


def seat(tmp_path: Path, system: str) -> Table:
    db = str(tmp_path / f"{system}.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Friday", seed=5)
        SETUPS[system](book)
        c = book.campaign("Friday")
        seats = seats_of(book)
        return Table(
            db,
            gm=seats.invite(c.id, "gm", label="gm")[1],
            ana=seats.invite(c.id, "player", "Ana", label="ana")[1],
            watch=seats.invite(c.id, "watch", label="watch")[1],
        )


@pytest.fixture
def client_for(tmp_path: Path) -> Iterator[Callable[[str], tuple[TestClient, Table]]]:
    opened: list[TestClient] = []

    def open_(system: str) -> tuple[TestClient, Table]:
        table = seat(tmp_path, system)
        client = TestClient(create_app(table.db))
        client.__enter__()
        opened.append(client)
        return client, table

    yield open_
    for client in opened:
        client.__exit__(None, None, None)


def send(client: TestClient, secret: str, command: str, args: dict[str, Any], faces: list[int] | None) -> Any:
    body: dict[str, Any] = {"command": command, "args": args}
    if faces is not None:
        body["faces"] = faces
    return client.post("/api/c/Friday/actions", json=body, headers=bearer(secret))


INSTALLED = [name for name in EVENINGS if name in system_names()]


@pytest.mark.parametrize("system", INSTALLED)
def test_a_player_is_refused_what_is_the_gms_and_the_gm_records_it(
    system: str, client_for: Callable[[str], tuple[TestClient, Table]]
) -> None:
    client, table = client_for(system)
    for who, command, args, faces, status in EVENINGS[system]:
        before = head(table.db)
        answer = send(client, getattr(table, who), command, args, faces)
        assert answer.status_code == status, (who, command, args, answer.text)
        if status == 403:
            error = answer.json()["error"]
            assert error["type"] == "Forbidden" and error["field"] == "command", error
            # the refusal names the command by its one name, the command line's (`yz tick`)
            named = f"only the GM's seat may send `{affordances.name_of(system, command)}`"
            assert error["message"].startswith(named) and "seat 'ana' plays 'Ana'" in error["message"]
            assert head(table.db) == before, f"{command} {args} recorded something"
        else:
            assert head(table.db) > before


def gm_forms(system: str) -> set[tuple[str, str | None]]:
    """Every command of ``system`` a player may not send, and every field value that makes
    one of its commands the GM's: (stable name, field or None)."""
    forms: set[tuple[str, str | None]] = set()
    for name, kind in stable_commands(get_system(system)).items():
        found = declared(kind)
        assert found is not None
        if not by_player(found.reach):
            forms.add((name, None))
        forms |= {(name, w.field) for w in found.when if w.reach is not None and not by_player(w.reach)}
    return forms


@pytest.mark.parametrize("system", INSTALLED)
def test_every_gm_form_is_tried(system: str) -> None:
    """Each evening above tries every GM-only command and value of its system (the core's
    creation once, in freeform; the crawl's solo campaign takes no second character)."""
    tried = set()
    for who, command, args, _faces, status in EVENINGS[system]:
        if who == "ana" and status == 403:
            found = declared(stable_commands(get_system(system))[command])
            assert found is not None
            widened = [w.field for w in found.when if w.reach is not None and w.field in args]
            tried.add((command, widened[0] if widened else None))
    assert gm_forms(system) <= tried, sorted(gm_forms(system) - tried)


@pytest.mark.parametrize("system", INSTALLED)
def test_the_table_shows_each_seat_what_it_may_send(
    system: str, client_for: Callable[[str], tuple[TestClient, Table]]
) -> None:
    client, table = client_for(system)
    names = stable_commands(get_system(system))
    gm = client.get("/api/c/Friday", headers=bearer(table.gm)).json()
    player = client.get("/api/c/Friday", headers=bearer(table.ana)).json()
    watcher = client.get("/api/c/Friday", headers=bearer(table.watch)).json()
    assert gm["commands"] == sorted(names) and gm["confirm"] == [] and gm["gm_values"] == {}
    assert watcher["commands"] == [] and watcher["confirm"] == []
    own = {n for n, kind in names.items() if (d := declared(kind)) is not None and d.reach is Reach.OWN}
    assert set(player["commands"]) == own
    assert {n for n, _field in gm_forms(system) if (n, None) in gm_forms(system)}.isdisjoint(
        player["commands"]
    )
    assert set(player["confirm"]) <= own
    assert set(player["gm_values"]) <= own


def test_a_phone_sees_which_taps_ask_first_in_year_zero(
    client_for: Callable[[str], tuple[TestClient, Table]],
) -> None:
    client, table = client_for("yearzero")
    info = client.get("/api/c/Friday", headers=bearer(table.ana)).json()
    assert {"yearzero.Push", "yearzero.Rot", "yearzero.Critical", "yearzero.Damage"} <= set(info["confirm"])
    assert "yearzero.Roll" not in info["confirm"] and "yearzero.Tick" not in info["commands"]
    assert info["gm_values"]["yearzero.Eat"] == {"everyone": [True]}
    assert info["confirm_values"]["yearzero.Eat"] == {"contaminated": [True]}


def test_the_party_s_action_is_told_as_the_party_s_with_its_seat(
    client_for: Callable[[str], tuple[TestClient, Table]],
) -> None:
    client, table = client_for("yearzero")
    assert send(client, table.gm, "yearzero.Tick", {"minutes": 720, "actor": "Ana"}, None).status_code == 200
    assert send(client, table.gm, "yearzero.Enter", {"sector": "G7", "rot_level": 1}, None).status_code == 200
    assert send(client, table.ana, "yearzero.Roll", {"what": "scout"}, None).status_code == 200
    events = client.get("/api/c/Friday/events?after=3", headers=bearer(table.gm)).json()["events"]
    told = [(e["who"], e["actor"], e["party"], e["seat"], e["summary"]) for e in events]
    assert told[0] == ("the party", None, True, "gm", "12 hours pass (time passes)")
    assert told[1] == ("the party", None, True, "gm", "the party enters G7 (Rot level 1)")
    assert told[2][:4] == ("Ana", "Ana", False, "ana")
    with Ledger(table.db) as book:
        first = book.envelope(book.campaign("Friday"), 4)
        assert first.actor is None and first.decision is not None
        assert first.decision.party and first.decision.seat == "gm"
        lines = [f"{e.version} {e.party} {e.seat}" for e in book.log("Friday")[3:6]]
        assert lines == ["4 True gm", "5 True gm", "6 False ana"]


def test_a_command_that_declares_nothing_is_the_gms_alone(
    client_for: Callable[[str], tuple[TestClient, Table]], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, table = client_for("freeform")
    monkeypatch.setattr(Note, "authority", None)
    before = head(table.db)
    answer = send(client, table.ana, "core.Note", {"text": "mine"}, None)
    assert answer.status_code == 403
    assert "its system does not say who may" in answer.json()["error"]["message"]
    assert head(table.db) == before
    assert send(client, table.gm, "core.Note", {"text": "mine", "actor": "Ana"}, None).status_code == 200
    assert "core.Note" not in client.get("/api/c/Friday", headers=bearer(table.ana)).json()["commands"]


def test_a_player_marks_rot_on_their_own_mutant_only(
    client_for: Callable[[str], tuple[TestClient, Table]],
) -> None:
    """Rot and a critical injury on another mutant are the GM's to call; on one's own, a
    player's, asked first (``confirm``)."""
    client, table = client_for("yearzero")
    for command, args in (("yearzero.Rot", {"points": 1}), ("yearzero.Critical", {})):
        before = head(table.db)
        answer = send(client, table.ana, command, {**args, "actor": "Bo"}, None)
        assert answer.status_code == 403 and "acts as 'Ana' only, not as 'Bo'" in answer.text
        assert head(table.db) == before
    assert send(client, table.ana, "yearzero.Rot", {"points": 1}, [2]).status_code == 200
    assert send(client, table.gm, "yearzero.Rot", {"points": 1, "actor": "Bo"}, [2]).status_code == 200
