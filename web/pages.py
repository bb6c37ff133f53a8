"""The small pages a browser meets before the table: the join confirm page, a notice (a
used or unknown link, a refusal), and the front page; and the QR codes of links.

Each page is whole HTML with no script, its one style sheet this server's own
(``static/join.css``), nothing from anywhere else, served under the same
Content-Security-Policy as the table and ``Referrer-Policy: no-referrer``. The confirm page
does not write the secret anywhere: its form posts back to the address it was opened at.
Texts come from the ledger (a campaign's name, a character's) and are escaped.
"""

from __future__ import annotations

import html
import io

import segno
from starlette.responses import HTMLResponse

from ledger import i18n
from ledger.errors import LedgerError
from ledger.i18n import _
from ledger.trust.seats import Seat
from ledger.web.errors import status_of

NO_STORE = {"Cache-Control": "no-store"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    text = f"""<!doctype html>
<html lang="{i18n.language()}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{html.escape(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/join.css">
</head>
<body>
<main class="join">
{body}
</main>
</body>
</html>
"""
    return HTMLResponse(text, status_code=status, headers=NO_STORE)


def question(seat: Seat, campaign: str) -> str:
    """The confirm page's question, one sentence for each kind of seat: "Join Mine as
    Mira?", "Join Mine as the GM?", "Join Mine as a watcher?"."""
    if seat.role == "player" and seat.character is not None:
        return _("Join {campaign} as {character}?", campaign=campaign, character=seat.character)
    if seat.role == "gm":
        return _("Join {campaign} as the GM?", campaign=campaign)
    return _("Join {campaign} as a watcher?", campaign=campaign)


def confirm(seat: Seat, campaign: str) -> HTMLResponse:
    """``GET /join/SECRET``: "Join CAMPAIGN as WHO?" and one button that posts the join."""
    asked = question(seat, campaign)
    devices = (
        _("This link seats any number of screens.")
        if seat.reusable
        else _("This link seats one device: open it on the phone or computer you will play on.")
    )
    join = _("Join {campaign}", campaign=campaign)
    label = _("Seat {label}. If you did not expect this link, close this page.", label=seat.label)
    body = f"""<h1>{html.escape(asked)}</h1>
<p>{html.escape(devices)}</p>
<form method="post">
<button type="submit">{html.escape(join)}</button>
</form>
<p class="small">{html.escape(label)}</p>"""
    return _page(asked, body)


def notice(error: LedgerError, title: str | None = None) -> HTMLResponse:
    """A refusal as a page, with its status: a used link, an unknown one, too many guesses."""
    title = title if title is not None else _("The table")
    body = f"""<h1>{html.escape(title)}</h1>
<p role="alert">{html.escape(error.message)}</p>"""
    return _page(title, body, status_of(error))


def front() -> HTMLResponse:
    """``GET /``: what someone who opened the server's own address is told."""
    title = _("The table")
    text = _(
        "This is a campaign's live table. Open the link the GM gave you for your seat (or scan its "
        "QR code with your phone's camera): it seats this device."
    )
    body = f"""<h1>{html.escape(title)}</h1>
<p>{html.escape(text)}</p>"""
    return _page(title, body)


def qr_svg(link: str) -> str:
    """A QR code of ``link`` as an SVG document (dark on white, with its quiet zone): a
    page may show it as an image (``data:image/svg+xml``), nothing fetched from elsewhere."""
    out = io.BytesIO()
    segno.make(link, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, scale=6, border=4, dark="#000", light="#fff", nl=False
    )
    return out.getvalue().decode()
