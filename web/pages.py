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

from ledger.errors import LedgerError
from ledger.trust.seats import Seat
from ledger.web.errors import status_of

NO_STORE = {"Cache-Control": "no-store"}


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    text = f"""<!doctype html>
<html lang="en">
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


def as_whom(seat: Seat) -> str:
    """Who the seat sits as, in words: "as Mira", "as the GM", "as a watcher"."""
    if seat.role == "player" and seat.character is not None:
        return f"as {seat.character}"
    return "as the GM" if seat.role == "gm" else "as a watcher"


def confirm(seat: Seat, campaign: str) -> HTMLResponse:
    """``GET /join/SECRET``: "Join CAMPAIGN as WHO?" and one button that posts the join."""
    question = f"Join {campaign} {as_whom(seat)}?"
    devices = (
        "This link seats any number of screens."
        if seat.reusable
        else "This link seats one device: open it on the phone or computer you will play on."
    )
    body = f"""<h1>{html.escape(question)}</h1>
<p>{html.escape(devices)}</p>
<form method="post">
<button type="submit">Join {html.escape(campaign)}</button>
</form>
<p class="small">Seat {html.escape(seat.label)}. If you did not expect this link, close this page.</p>"""
    return _page(question, body)


def notice(error: LedgerError, title: str = "The table") -> HTMLResponse:
    """A refusal as a page, with its status: a used link, an unknown one, too many guesses."""
    body = f"""<h1>{html.escape(title)}</h1>
<p role="alert">{html.escape(error.message)}</p>"""
    return _page(title, body, status_of(error))


def front() -> HTMLResponse:
    """``GET /``: what someone who opened the server's own address is told."""
    body = """<h1>The table</h1>
<p>This is a campaign's live table. Open the link the GM gave you for your seat (or scan its
QR code with your phone's camera): it seats this device.</p>"""
    return _page("The table", body)


def qr_svg(link: str) -> str:
    """A QR code of ``link`` as an SVG document (dark on white, with its quiet zone): a
    page may show it as an image (``data:image/svg+xml``), nothing fetched from elsewhere."""
    out = io.BytesIO()
    segno.make(link, error="m").save(
        out, kind="svg", xmldecl=False, svgns=True, scale=6, border=4, dark="#000", light="#fff", nl=False
    )
    return out.getvalue().decode()
