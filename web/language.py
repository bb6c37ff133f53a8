"""Each seat's language: which one a request asks for, the middleware that says everything
of that request in it, and the page's words (the ``page`` catalog) as the page reads them.

A request names its language, first to last: the ``X-Ledger-Lang`` header (a client's
choice: a bot's), the ``lang`` query parameter (the page's stream, an ``EventSource``,
names its page's), the ``ledger_lang`` cookie (the page's language picker keeps the seat's
choice in it and in localStorage, so the page itself, the reads its answer preloads and
every read and write after them go in that language) and the browser's
``Accept-Language``; else the language the server's own environment names
(``LEDGER_LANG``...), English by default. A server started in the
pseudo-language (``LEDGER_LANG=qps``) answers every browser in it, unless a seat chose.

Everything the server words for a request (a refusal, a log entry, a sheet, a hint) is
said inside ``i18n.using(lang)``: the ledger thread runs each call in its caller's context
(``web.ledger_thread``), and a stream renders its entries in its own connection's language.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Mapping
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from ledger import i18n

HEADER = "x-ledger-lang"
QUERY = "lang"
COOKIE = "ledger_lang"
PAGE_DOMAIN = "page"


def _cookie(raw: str) -> str | None:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(raw)
    except CookieError:
        return None
    found = jar.get(COOKIE)
    return found.value if found is not None else None


def chosen(headers: Mapping[str, str], query: str = "") -> str | None:
    """The language a seat chose for a request (header, query, cookie), None: it chose none."""
    asked = headers.get(HEADER) or (parse_qs(query).get(QUERY) or [None])[0]
    if not asked and headers.get("cookie"):
        asked = _cookie(headers["cookie"])
    return i18n.normalize(asked) if asked else None


def of_request(headers: Mapping[str, str], query: str = "") -> str:
    """The language a request is answered in (see the module's doc)."""
    picked = chosen(headers, query)
    if picked is not None:
        return picked
    own = i18n.language()
    if own == i18n.PSEUDO:
        return own
    return i18n.negotiate(headers.get("accept-language")) or own


class Language:
    """Says everything of each HTTP request in the language it asks for, and tells the
    client which (``Content-Language``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        lang = of_request(headers, scope.get("query_string", b"").decode("latin-1"))
        scope.setdefault("state", {})["lang"] = lang

        async def told(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                varies = [v for k, v in headers if k.lower() == b"vary"]
                kept = [h for h in headers if h[0].lower() not in (b"content-language", b"vary")]
                vary = b", ".join([*varies, b"Accept-Language, Cookie"])
                message = {
                    **message,
                    "headers": [*kept, (b"content-language", lang.encode()), (b"vary", vary)],
                }
            await send(message)

        with i18n.using(lang):
            await self.app(scope, receive, told)


# --- the page's words ------------------------------------------------------------------------


def _po(lang: str) -> Path:
    return i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{PAGE_DOMAIN}.po"


def _messages(lang: str) -> tuple[dict[str, str | list[str]], str]:
    """The page catalog of ``lang`` from its compiled form (the ``.mo`` Babel writes): each
    translated sentence by its key (``msgid``, or ``context\\x04msgid``), a plural's forms
    as a list, and the catalog's plural rule (``Plural-Forms``)."""
    from babel.messages.mofile import read_mo  # lazy: once per language the page is asked in

    source = _po(i18n.LANGUAGES[1] if lang == i18n.PSEUDO else lang)
    if not source.exists():
        return {}, "nplurals=2; plural=(n != 1);"
    catalog = read_mo(io.BytesIO(i18n.compile_po(source)))
    found: dict[str, str | list[str]] = {}
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
        key = ids[0] if not m.context else f"{m.context}\x04{ids[0]}"
        if lang == i18n.PSEUDO:
            found[key] = [i18n.pseudo(ids[0]), i18n.pseudo(ids[-1])] if len(ids) > 1 else i18n.pseudo(ids[0])
            continue
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        if all(strings):
            found[key] = list(strings) if len(ids) > 1 else strings[0]
    rule = "nplurals=2; plural=(n != 1);" if lang == i18n.PSEUDO else catalog.plural_forms
    return found, rule


@functools.lru_cache(maxsize=16)
def _page_words(lang: str, stamp: float) -> bytes:
    messages, rule = _messages(lang) if lang != i18n.LANGUAGES[0] else ({}, "nplurals=2; plural=(n != 1);")
    data = {
        "lang": lang,
        "plural_forms": rule,
        "messages": messages,
        "languages": {code: i18n.NAMES[code] for code in i18n.LANGUAGES},
    }
    return json.dumps(data, ensure_ascii=False, sort_keys=True).encode()


def page_words(lang: str) -> bytes:
    """The page's words in ``lang`` as JSON: ``{"lang", "plural_forms", "messages",
    "languages"}`` (English: no messages, the sources are English)."""
    source = _po(i18n.LANGUAGES[1] if lang == i18n.PSEUDO else lang)
    stamp = source.stat().st_mtime if source.exists() else 0.0
    return _page_words(lang, stamp)


def page_script(lang: str) -> bytes:
    """The page's words as the script the page loads before its own (no inline script)."""
    return b"window.LedgerWords = " + page_words(lang) + b";\n"
