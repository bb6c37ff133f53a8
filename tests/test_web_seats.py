"""Seats at the live table: invited with a fresh secret of which only the sha256 is kept,
listed without secrets, revoked at once, on every store; and never shown by an export,
the log, the warehouse or the event table."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import duckdb
import pytest

from ledger import Ledger
from ledger.errors import DuplicateNameError, InvalidNameError, LedgerError
from ledger.log.store import REQUESTS_TABLE, SEATS_TABLE
from ledger.projections.warehouse.loading import Warehouse
from ledger.trust.seats import UnknownSeatError, seats_of
from tests.conftest import Session


def test_a_seat_resolves_from_its_secret_until_it_is_revoked(book: Ledger) -> None:
    c = book.new_campaign("freeform", "Friday")
    seats = seats_of(book)
    gm, gm_secret = seats.invite(c.id, "gm")
    ana, ana_secret = seats.invite(c.id, "player", "Ana", label="Ana's phone")
    assert (gm.label, gm.role, gm.character) == ("gm", "gm", None)
    assert (ana.label, ana.role, ana.character) == ("Ana's phone", "player", "Ana")
    assert len(gm_secret) >= 43 and gm_secret != ana_secret  # 256 bits, URL-safe
    other = seats_of(book)  # another process's view of the same store
    assert other.resolve(gm_secret) == gm and other.resolve(ana_secret) == ana
    assert other.resolve("x" * 43) is None
    revoked = seats.revoke("Ana's phone")
    assert revoked.revoked is not None
    assert other.resolve(ana_secret) is None and other.current("Ana's phone") is None
    assert [s.label for s in other.all(c.id)] == ["gm", "Ana's phone"]
    assert seats.invite(c.id, "gm")[0].label == "gm-2"


def test_the_store_keeps_only_the_secrets_sha256(tmp_path: Path) -> None:
    db = str(tmp_path / "s.ledger")
    with Ledger(db) as book:
        c = book.new_campaign("freeform", "Friday")
        _seat, secret = seats_of(book).invite(c.id, "watch")
    raw = b"".join(bytes(row[0]) for row in sqlite3.connect(db).execute(f"SELECT state FROM {SEATS_TABLE}"))
    assert secret.encode() not in raw
    assert hashlib.sha256(secret.encode()).hexdigest().encode() in raw


def test_invitations_are_refused_in_the_librarys_words(book: Ledger) -> None:
    c = book.new_campaign("freeform", "Friday")
    seats = seats_of(book)
    seats.invite(c.id, "gm", label="table")
    with pytest.raises(DuplicateNameError, match="this campaign's table has a seat labelled 'table' already"):
        seats.invite(c.id, "watch", label="table")
    with pytest.raises(InvalidNameError, match="seat name"):
        seats.invite(c.id, "watch", label="<b>")
    with pytest.raises(LedgerError, match="a player's seat names its character"):
        seats.invite(c.id, "player")
    with pytest.raises(LedgerError, match="gm, player or watch"):
        seats.invite(c.id, "owner")  # type: ignore[arg-type]
    with pytest.raises(UnknownSeatError, match="no seat is labelled 'nobody'"):
        seats.revoke("nobody")


def test_the_command_line_invites_lists_and_revokes(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Friday")
    ledger_cli("character", "add", "Ana")
    link = json.loads(
        ledger_cli("--json", "table", "invite", "--as", "Ana", "--url", "https://table.example/").output
    )
    assert link["seat"] == "Ana" and link["role"] == "player"
    assert link["link"].startswith("https://table.example/join/")
    secret = link["link"].rsplit("/", 1)[1]
    shown = ledger_cli("table", "invite", "--gm").output
    assert shown.startswith("gm: gm at 'Friday'; open this link on the one device it seats")
    assert shown.splitlines()[1].startswith("http://127.0.0.1:8000/join/")
    listed = ledger_cli("table", "seats").output
    assert listed == "Ana: player as Ana at 'Friday'\ngm: gm at 'Friday'\n"
    assert secret not in ledger_cli("--json", "table", "seats").output
    assert ledger_cli("table", "revoke", "Ana").output == "Ana: revoked\n"
    assert "(revoked " in ledger_cli("table", "seats").output
    refused = ledger_cli("table", "invite", "--gm", "--watch", ok=False)
    assert refused.exit_code == 2 and "give one of --gm, --as CHARACTER or --watch" in refused.output
    missing = ledger_cli("table", "invite", "--as", "Bob", ok=False)
    assert missing.exit_code == 1
    assert (
        missing.stderr
        == "error: no character named 'Bob' in 'Friday' (characters: Ana); add one with `ledger character add Bob`\n"
    )
    unknown = ledger_cli("table", "revoke", "nobody", ok=False)
    assert (
        unknown.stderr
        == "error: no seat is labelled 'nobody' (seats: Ana, gm); list them with `ledger table seats`\n"
    )


def _warehouse_text(book: Ledger, path: Path) -> str:
    Warehouse(book, path).rebuild()
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return "\n".join(str(con.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables)
    finally:
        con.close()


def test_no_export_log_or_warehouse_holds_a_seat(ledger_cli: Session, db: str, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Friday")
    ledger_cli("character", "add", "Ana")
    ledger_cli("roll", "2d6")
    invited = [
        json.loads(ledger_cli("--json", "table", "invite", "--gm", "--label", "seat-label-gm").output),
        json.loads(
            ledger_cli("--json", "table", "invite", "--as", "Ana", "--label", "seat-label-ana").output
        ),
    ]
    secrets = [i["link"].rsplit("/", 1)[1] for i in invited]
    hashes = [hashlib.sha256(s.encode()).hexdigest() for s in secrets]
    book = Ledger(db)
    assert len(book.store.private_records(SEATS_TABLE, "seats")) == 2  # the rows are there to leak
    exported = ledger_cli("export", "--unsigned").output
    logs = ledger_cli("--json", "log", "--all").output + ledger_cli("log", "--all").output
    events = (
        sqlite3.connect(db)
        .execute("SELECT group_concat(CAST(state AS TEXT), '') FROM ledger_events")
        .fetchone()[0]
    )
    shown = _warehouse_text(book, tmp_path / "w.duckdb")
    book.close()
    for where in (exported, logs, events, shown):
        for leak in (*secrets, *hashes, "seat-label-gm", "seat-label-ana", "seat.invited"):
            assert leak not in where
    assert REQUESTS_TABLE not in shown and SEATS_TABLE not in shown


def test_an_action_keeps_its_seat_through_export_and_import(tmp_path: Path) -> None:
    import io

    from ledger.deciding.commands import Roll

    with Ledger(str(tmp_path / "a.ledger")) as book:
        book.new_campaign("freeform", "Friday")
        book.add_character("Ana", "Friday")
        sent = book.execute(Roll(notation="2d6"), "Friday", seat="Ana's phone")
        typed = book.roll("d6", "Friday")
        undone = book.undo("Friday", seat="gm")
        assert sent.envelopes[0].decision.seat == "Ana's phone"  # type: ignore[union-attr]
        assert typed.envelopes[0].decision.seat is None  # type: ignore[union-attr]
        assert undone.envelopes[0].decision is None  # an undo decides nothing to keep
        out = io.BytesIO()
        book.export(out, "Friday")
    with Ledger(str(tmp_path / "b.ledger")) as other:
        other.import_(io.BytesIO(out.getvalue()))
        c = other.campaign("Friday")
        assert other.envelope(c, sent.version).decision.seat == "Ana's phone"  # type: ignore[union-attr]
        assert other.verify("Friday") is not None
