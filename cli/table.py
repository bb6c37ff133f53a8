"""``ledger table``: the seats of the live table (``ledger serve``): invite, list, revoke."""

from __future__ import annotations

import click

from ledger import i18n
from ledger.cli.options import Ctx, OptionHelpLater, common, emit, pass_ctx
from ledger.cli.serve import qr_text
from ledger.cli.translated import Group
from ledger.deciding.action import actor_in
from ledger.i18n import N_, _
from ledger.log.store import resolve_target
from ledger.trust.seats import seats_of
from ledger.web.announce import served_url

DEFAULT_URL = "http://127.0.0.1:8000"
ROLES = {"gm": N_("gm"), "player": N_("player"), "watch": N_("watch")}
"""A seat's role (stored as its key) as the command line says it."""
"""Where a link points when no `ledger serve` of the ledger runs and no --url is given."""


@click.group("table", cls=Group, help=N_("Seats at the live table (`ledger serve`): invite, list, revoke."))
def table() -> None:
    pass


@table.command(
    "invite",
    help=N_(
        "Invite a seat to the campaign: prints its link, with a fresh secret shown once.\n"
        "\n"
        "Give exactly one of --gm, --as CHARACTER (a player's seat, acting as that character\n"
        "only) or --watch. The link seats one device (the browser that opens it and confirms),\n"
        "unless --reusable. Only the secret's sha256 is kept; a lost link is revoked\n"
        "(`ledger table revoke SEAT`) and a new one invited."
    ),
)
@click.option("--gm", is_flag=True, help=N_("The GM's seat: everything, undo and fork included."))
@click.option("--watch", is_flag=True, help=N_("A watcher's seat: reads only."))
@click.option(
    "--label", default=None, help=N_("The seat's name at this table, in `ledger table seats` and the log.")
)
@click.option(
    "--reusable", is_flag=True, help=N_("The link seats any number of devices (a kiosk, a watcher's screen).")
)
@click.option(
    "--url",
    default=None,
    metavar="BASE",
    cls=OptionHelpLater,
    help=lambda: _(
        "Where `ledger serve` is reached (default: where it listens while it runs, else {url}).",
        url=DEFAULT_URL,
    ),
)
@click.option("--qr", is_flag=True, help=N_("Print the link as a QR code too, for a phone's camera."))
@common
@pass_ctx
def invite(
    c: Ctx, gm: bool, watch: bool, label: str | None, reusable: bool, url: str | None, qr: bool
) -> None:
    character = c.actor
    if gm + watch + (character is not None) != 1:
        raise click.UsageError(_("give one of --gm, --as CHARACTER or --watch"))
    role = "gm" if gm else "watch" if watch else "player"
    book = c.ledger
    camp = book.campaign(c.campaign)
    if character is not None:
        character = actor_in(book.tip(camp).state, character)
    base = url or served_url(resolve_target(c.db)) or DEFAULT_URL
    seat, secret = seats_of(book).invite(camp.id, role, character, label, reusable=reusable)
    link = f"{base.rstrip('/')}/join/{secret}"
    as_who = _(" as {character}", character=seat.character) if seat.character else ""
    once = (
        _(
            "{seat}: {role}{as_who} at {campaign!r}; open this link on every screen it seats (it is shown only now):"
        )
        if reusable
        else _(
            "{seat}: {role}{as_who} at {campaign!r}; open this link on the one device it seats (it is shown only now):"
        )
    )
    text = (
        once.format(seat=seat.label, role=i18n.translate(ROLES[seat.role]), as_who=as_who, campaign=camp.name)
        + f"\n{link}"
    )
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


@table.command(
    "seats", help=N_("List the seats (never their secrets): of the campaign given with -c, else all.")
)
@common
@pass_ctx
def seats(c: Ctx) -> None:
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
            return _("no seats yet: `ledger table invite -c NAME --gm` invites the GM")
        lines = []
        for row in data:
            who = _(" as {character}", character=row["character"]) if row["character"] else ""
            gone = _(" (revoked {when})", when=row["revoked"]) if row["revoked"] else ""
            kiosk = _(" (reusable link)") if row["reusable"] else ""
            told = _(
                "{seat}: {role}{as_who} at {campaign!r}",
                seat=row["seat"],
                role=i18n.translate(ROLES.get(row["role"], row["role"])),
                as_who=who,
                campaign=row["campaign"],
            )
            lines.append(f"{told}{kiosk}{gone}")
        return "\n".join(lines)

    emit(c, data, text)


@table.command(
    "revoke",
    help=N_(
        "End the seat SEAT at once: its link and cookies open nothing, its open pages stop.\n"
        "\n"
        "Labels are unique at one campaign's table: when several campaigns have a seat SEAT,\n"
        "say whose with -c NAME."
    ),
)
@click.argument("seat")
@common
@pass_ctx
def revoke(c: Ctx, seat: str) -> None:
    book = c.ledger
    only = book.campaign(c.campaign).id if c.campaign is not None else None
    names = {camp.id: camp.name for camp in book.campaigns()}
    ended = seats_of(book).revoke(seat, only, names)
    emit(c, {"seat": ended.label, "revoked": ended.revoked}, _("{seat}: revoked", seat=ended.label))
