"""``ledger table``: the seats of the live table (``ledger serve``): invite, list, revoke."""

from __future__ import annotations

import click

from ledger.cli.options import Ctx, common, emit, pass_ctx
from ledger.cli.serve import qr_text
from ledger.deciding.action import actor_in
from ledger.log.store import resolve_target
from ledger.trust.seats import seats_of
from ledger.web.announce import served_url

DEFAULT_URL = "http://127.0.0.1:8000"
"""Where a link points when no `ledger serve` of the ledger runs and no --url is given."""


@click.group("table")
def table() -> None:
    """Seats at the live table (`ledger serve`): invite, list, revoke."""


@table.command("invite")
@click.option("--gm", is_flag=True, help="The GM's seat: everything, undo and fork included.")
@click.option("--watch", is_flag=True, help="A watcher's seat: reads only.")
@click.option(
    "--label", default=None, help="The seat's name at this table, in `ledger table seats` and the log."
)
@click.option(
    "--reusable", is_flag=True, help="The link seats any number of devices (a kiosk, a watcher's screen)."
)
@click.option(
    "--url",
    default=None,
    metavar="BASE",
    help=f"Where `ledger serve` is reached (default: where it listens while it runs, else {DEFAULT_URL}).",
)
@click.option("--qr", is_flag=True, help="Print the link as a QR code too, for a phone's camera.")
@common
@pass_ctx
def invite(
    c: Ctx, gm: bool, watch: bool, label: str | None, reusable: bool, url: str | None, qr: bool
) -> None:
    """Invite a seat to the campaign: prints its link, with a fresh secret shown once.

    Give exactly one of --gm, --as CHARACTER (a player's seat, acting as that character
    only) or --watch. The link seats one device (the browser that opens it and confirms),
    unless --reusable. Only the secret's sha256 is kept; a lost link is revoked
    (`ledger table revoke SEAT`) and a new one invited."""

    character = c.actor
    if gm + watch + (character is not None) != 1:
        raise click.UsageError("give one of --gm, --as CHARACTER or --watch")
    role = "gm" if gm else "watch" if watch else "player"
    book = c.ledger
    camp = book.campaign(c.campaign)
    if character is not None:
        character = actor_in(book.tip(camp).state, character)
    base = url or served_url(resolve_target(c.db)) or DEFAULT_URL
    seat, secret = seats_of(book).invite(camp.id, role, character, label, reusable=reusable)
    link = f"{base.rstrip('/')}/join/{secret}"
    as_who = f" as {seat.character}" if seat.character else ""
    once = "on every screen it seats" if reusable else "on the one device it seats"
    text = f"{seat.label}: {seat.role}{as_who} at {camp.name!r}; open this link {once} (it is shown only now):\n{link}"
    if qr:
        text += "\n" + qr_text(link).rstrip("\n")
    emit(
        c,
        {
            "seat": seat.label,
            "campaign": camp.name,
            "role": seat.role,
            "character": seat.character,
            "reusable": seat.reusable,
            "link": link,
        },
        text,
    )


@table.command("seats")
@common
@pass_ctx
def seats(c: Ctx) -> None:
    """List the seats (never their secrets): of the campaign given with -c, else all."""

    book = c.ledger
    only = book.campaign(c.campaign).id if c.campaign is not None else None
    found = seats_of(book).all(only)
    names = {camp.id: camp.name for camp in book.campaigns()}
    data = [
        {
            "seat": s.label,
            "campaign": names.get(s.campaign, s.campaign),
            "role": s.role,
            "character": s.character,
            "invited": s.invited,
            "joined": s.joined,
            "reusable": s.reusable,
            "revoked": s.revoked,
        }
        for s in found
    ]

    def text() -> str:
        if not data:
            return "no seats yet: `ledger table invite -c NAME --gm` invites the GM"
        lines = []
        for row in data:
            who = f" as {row['character']}" if row["character"] else ""
            gone = f" (revoked {row['revoked']})" if row["revoked"] else ""
            kiosk = " (reusable link)" if row["reusable"] else ""
            lines.append(f"{row['seat']}: {row['role']}{who} at {row['campaign']!r}{kiosk}{gone}")
        return "\n".join(lines)

    emit(c, data, text)


@table.command("revoke")
@click.argument("seat")
@common
@pass_ctx
def revoke(c: Ctx, seat: str) -> None:
    """End the seat SEAT at once: its link and cookies open nothing, its open pages stop.

    Labels are unique at one campaign's table: when several campaigns have a seat SEAT,
    say whose with -c NAME."""

    book = c.ledger
    only = book.campaign(c.campaign).id if c.campaign is not None else None
    names = {camp.id: camp.name for camp in book.campaigns()}
    ended = seats_of(book).revoke(seat, only, names)
    emit(c, {"seat": ended.label, "revoked": ended.revoked}, f"{ended.label}: revoked")
