"""The routes of the live table: small endpoints over one :class:`ledger.Ledger`.

Every action goes through ``Ledger.execute`` (or ``undo``, ``redo``, ``fork``,
``reveal_dice``), the path the command line takes, so each refusal is the command line's,
word for word, as its ``--json`` error object (``web.errors``). An action's answer is
what ``ledger --json`` prints for it. Each endpoint checks the seat first (``web.auth``):
the role, the campaign, the character. Ledger work runs on the table's one ledger thread
(``Table.run``), so this process decides one action at a time, as a command line does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ledger import i18n
from ledger.deciding.action import actor_in, creation
from ledger.deciding.authority import by_player, declared
from ledger.deciding.commands import AddCharacter, nfc, stable_commands
from ledger.errors import LedgerError, StaleVersionError, UnknownCampaignError
from ledger.i18n import N_, _
from ledger.log.records import Campaign, Recorded, recorded_json
from ledger.projections import report as reports
from ledger.projections import sheets
from ledger.projections.stats.sheet import luck_from_log
from ledger.text import shell_word
from ledger.trust.admission import command_class
from ledger.trust.seats import Seat, UnknownLinkError
from ledger.web import affordances, auth, idempotency, language, pages, schema
from ledger.web.entries import entries_after, feed_languages, message_seen, recorded_entries
from ledger.web.errors import (
    BadRequest,
    MethodNotAllowed,
    NotFound,
    RequestTooLarge,
    ServerFault,
    StaleVersion,
    Unauthorized,
    Unprocessable,
    UnsupportedMediaType,
    refusal,
)
from ledger.web.stream import Message, message

MAX_BODY = 64 * 1024
"""The largest request body read (a command's text is at most 10,000 characters)."""
MAX_DEPTH = 32
"""How deep a body's arrays and objects may nest (a command's fields nest two or three)."""
VERSION = re.compile(r"[0-9]{1,18}")
"""A version as a query parameter or ``Last-Event-ID`` takes it: ASCII digits only (``²``
passes ``str.isdigit`` and no ``int``)."""
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
T = TypeVar("T")


def json_answer(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        msgspec.json.encode(data), status_code=status, media_type="application/json", headers=headers
    )


def table_of(request: Request) -> Any:
    return request.app.state.table


# --- reading the request ----------------------------------------------------------------


async def body_of(request: Request) -> bytes:
    """The body, refused past :data:`MAX_BODY` bytes before any of it is parsed."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestTooLarge(_("the body may take {kib} KiB at most", kib=MAX_BODY // 1024))
    kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if kind != "application/json":
        raise UnsupportedMediaType(_("the body is {kind!r}; send application/json", kind=kind[:60]))
    got = bytearray()
    async for chunk in request.stream():
        got += chunk
        if len(got) > MAX_BODY:
            raise RequestTooLarge(_("the body may take {kib} KiB at most", kib=MAX_BODY // 1024))
    return bytes(got)


def depth(raw: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (its strings left out)."""
    deepest = level = 0
    for ch in _STRINGS.sub(b"", raw).translate(None, _NOT_BRACKETS):
        if ch in b"[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def decoded(raw: bytes, kind: type[T]) -> T:
    """The body as ``kind``: 400 when it is not JSON or nests deeper than
    :data:`MAX_DEPTH`, 422 when it does not fit."""
    if depth(raw) > MAX_DEPTH:
        raise BadRequest(
            _(
                "the body nests deeper than {depth} levels of arrays and objects; send a command's fields as they are",
                depth=MAX_DEPTH,
            ),
            field="body",
        )
    try:
        return msgspec.json.decode(raw or b"{}", type=kind)
    except msgspec.ValidationError as e:
        raise Unprocessable(_("the body does not fit: {problem}", problem=e), field="body") from None
    except msgspec.DecodeError as e:
        raise BadRequest(_("the body is not JSON: {problem}", problem=e), field="body") from None


def version_query(request: Request, name: str) -> int | None:
    given = request.query_params.get(name)
    if given is None:
        return None
    if not VERSION.fullmatch(given):
        raise BadRequest(
            _("`{name}` is a version, a whole number from 0; got {given!r}", name=name, given=given[:40]),
            field=name,
        )
    return int(given)


async def seat_of(request: Request) -> tuple[Seat, bool]:
    """The asking seat, and whether it came by cookie; 401 without one, 429 past the guesses."""
    table = table_of(request)
    secret, by_cookie = auth.secret_of(request)
    if secret is None:
        raise Unauthorized(
            _(
                "no seat: send `Authorization: Bearer SECRET` or open your invitation link (`ledger table invite`)"
            )
        )
    seat = await seat_opened(table, auth.address(request), secret)
    if by_cookie and request.method in auth.WRITES:
        auth.check_origin(request)
    return seat, by_cookie


async def seat_opened(table: Any, who: str, secret: str) -> Seat:
    """The seat a secret opens; 401 for an unknown one, counted against the address, and 429
    once the address is past its guesses, without a look at the store (``web.auth``)."""
    # A seat seen before is taken from memory, and checked again on the ledger thread by
    # the call that serves the request (``campaign_of``): one trip to that thread, not two.
    seat = table.known_seat(secret)
    if seat is not None:
        return seat  # type: ignore[no-any-return]
    over = table.guesses.over(who)
    seat = await table.run(table.resolve_lately if over else table.resolve, secret)
    if seat is None:
        table.guesses.failed(who)
        raise table.guesses.refusal(who) if over else auth.unknown_secret()
    return seat  # type: ignore[no-any-return]


def campaign_of(table: Any, seat: Seat, asked: str) -> Campaign:
    """The seat's campaign, when it is the one asked for and the seat still holds (on the
    ledger thread)."""
    table.confirm(seat)
    campaign = table.book.campaign_by_id(seat.campaign)
    auth.may_read(seat, campaign, asked)
    return campaign


# --- what is sent back --------------------------------------------------------------------


def seat_view(seat: Seat, book: Any) -> dict[str, Any]:
    return {
        "label": seat.label,
        "campaign": book.campaign_by_id(seat.campaign).name,
        "role": seat.role,
        "character": seat.character,
        "invited": seat.invited,
        "revoked": seat.revoked,
        "reusable": seat.reusable,
        "joined": seat.joined,
    }


# --- the endpoints ------------------------------------------------------------------------


def endpoint(run: Callable[[Request], Any]) -> Callable[[Request], Any]:
    """An endpoint whose refusals are the command line's ``--json`` error object."""

    async def answer(request: Request) -> Response:
        try:
            return await run(request)  # type: ignore[no-any-return]
        except LedgerError as e:
            return refusal(e)

    answer.__name__ = run.__name__
    answer.__doc__ = run.__doc__
    return answer


def commands_for(seat: Seat, system: Any) -> list[str]:
    """The commands a seat may send: the GM's every one; a player's those declared its
    character's own deed (``ledger.deciding.authority``: with some values a command may
    still be the GM's, :func:`values_for`); a watcher's none."""
    names = stable_commands(system)
    if seat.role == "gm":
        return sorted(names)
    if seat.role != "player":
        return []
    return sorted(n for n in names if _player_may(names[n]))


def _player_may(kind: type) -> bool:
    found = declared(kind)
    return found is not None and by_player(found.reach)


def confirm_for(seat: Seat, system: Any) -> list[str]:
    """The commands a seat confirms once before sending, whatever their values: a
    player's seat, what it cannot take back (the GM's may undo: none)."""
    if seat.role != "player":
        return []
    names = stable_commands(system)
    return sorted(n for n in commands_for(seat, system) if (found := declared(names[n])) and found.confirm)


def values_for(seat: Seat, system: Any, *, confirm: bool) -> dict[str, dict[str, list[Any]]]:
    """Per command a player's seat may send, the values of its fields that make it the
    GM's (``confirm`` False) or one to confirm first (``confirm`` True); none for another seat."""
    if seat.role != "player":
        return {}
    names = stable_commands(system)
    found: dict[str, dict[str, list[Any]]] = {}
    for name in commands_for(seat, system):
        declaration = declared(names[name])
        for when in declaration.when if declaration is not None else ():
            if when.confirm if confirm else when.reach is not None and not by_player(when.reach):
                found.setdefault(name, {}).setdefault(when.field, []).append(when.value)
    return found


@endpoint
async def table_info(request: Request) -> Response:
    seat, _by_cookie = await seat_of(request)
    table = table_of(request)

    def read() -> dict[str, Any]:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        system = book.system(c)
        state = book.tip(c).state
        return {
            "campaign": c.name,
            "system": c.system,
            "head": book.head(c),
            "day": state.core.day,
            "characters": list(state.core.characters),
            "seat": seat_view(seat, book),
            "commands": commands_for(seat, system),
            "confirm": confirm_for(seat, system),
            "gm_values": values_for(seat, system, confirm=False),
            "confirm_values": values_for(seat, system, confirm=True),
            "forms": affordances.worded(system.name),
            "names": affordances.names(system.name),
            "next": affordances.next_commands(system, state),
            "dice": book.dice_status(c.name),
            "map_kind": system.read.report.map_kind if system.read.report.map is not None else None,
            "offers": [msgspec.to_builtins(o) for o in table.offers(seat.key).get(seat.key, ())],
        }

    return json_answer(await table.run(read))


Written = tuple[dict[str, Any], Recorded | None]
"""A write's answer, and what it recorded in the seat's campaign (None: nothing there)."""


async def _write(
    request: Request, seat: Seat, raw: bytes, run: Callable[[], Written], campaign_id: str
) -> Response:
    """Run a write on the ledger thread, once per ``Idempotency-Key``, and hand what it
    recorded to the campaign's streams, each entry encoded once, as it was recorded."""
    table = table_of(request)
    key = request.headers.get("idempotency-key")
    made: list[Message] = []

    def answered() -> idempotency.Answer:
        try:
            answer, rec = run()
        except StaleVersionError as e:  # the API's name for it, with the head it is at
            stale = StaleVersion(e.message, field=e.field)
            stale.head = e.head
            raise stale from None
        if rec is not None:
            made.extend(message(item) for item in recorded_entries(table.book, rec, feed_languages()))
        return idempotency.answer(200, answer)

    if key is None:
        sent = await table.run(answered)
        status, body = sent.status, sent.body
    else:
        idempotency.check_key(key)
        mark = idempotency.fingerprint(request.method, request.url.path, raw)

        def once() -> tuple[int, bytes]:
            table.confirm(seat)
            # a label is unique at its campaign's table only: the key is the seat's, by both
            return idempotency.once(table.book.store, f"{seat.campaign}/{seat.label}", key, mark, answered)

        status, body = await table.run(once)
    table.feeds.recorded(campaign_id, made)
    return Response(body, status_code=status, media_type="application/json")


@endpoint
async def actions(request: Request) -> Response:
    """Record an action: a command by its stable name, decided as the command line does."""
    seat, _by_cookie = await seat_of(request)
    auth.may_act(seat)
    raw = await body_of(request)
    asked = decoded(raw, schema.Action)
    table = table_of(request)

    def run() -> Written:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        system = book.system(c)
        stable = affordances.stable_name(system.name, asked.command)
        kind = command_class(stable, system) if stable is not None else None
        if stable is None or kind is None:
            taken = sorted(affordances.name_of(system.name, n) for n in stable_commands(system))
            raise Unprocessable(
                _(
                    "{command!r} is no command of the {system} system; it takes "
                    "{commands} (or their stable names, GET /api/schema)",
                    command=asked.command[:80],
                    system=system.name,
                    commands=", ".join(taken),
                ),
                field="command",
            )
        name = affordances.name_of(system.name, stable)
        try:
            if name == affordances.CHARACTER_ADD and asked.command != stable:
                # by the command line's name: as `ledger character add` runs it, the system's
                # own creation where it has one, its attributes checked the same
                added = msgspec.convert(asked.args, AddCharacter)
                command = creation(system, added.name, dict(added.attrs))
            else:
                command = msgspec.convert(asked.args, kind)
        except msgspec.ValidationError as e:
            raise Unprocessable(
                _("the `args` of `{name}` do not fit: {problem}", name=name, problem=e), field="args"
            ) from None
        auth.may_issue(seat, name, command)
        actor = auth.actor_for(seat, command.actor)
        rec = book.execute(
            command,
            c.name,
            faces=asked.faces,
            actor=actor,
            seat=seat.label,
            expected_version=asked.expected_version,
            visibility=asked.visibility,
            to=tuple(nfc(name) for name in asked.to),
        )
        return recorded_json(rec), rec

    return await _write(request, seat, raw, run, seat.campaign)


def _gm_write(what: str, kind: type[T], act: Callable[[Any, Campaign, Seat, T], Written]) -> Any:
    @endpoint
    async def write(request: Request) -> Response:
        seat, _by_cookie = await seat_of(request)
        auth.gm_only(seat, what)
        raw = await body_of(request)
        asked = decoded(raw, kind)
        table = table_of(request)

        def run() -> Written:
            c = campaign_of(table, seat, request.path_params["campaign"])
            return act(table, c, seat, asked)

        return await _write(request, seat, raw, run, seat.campaign)

    write.__name__ = what.split()[0]
    return write


def _undo(table: Any, c: Campaign, seat: Seat, asked: schema.Count) -> Written:
    rec = table.book.undo(c.name, asked.count, seat=seat.label, expected_version=asked.expected_version)
    return recorded_json(rec), rec


def _redo(table: Any, c: Campaign, seat: Seat, asked: schema.Count) -> Written:
    rec = table.book.redo(c.name, asked.count, seat=seat.label, expected_version=asked.expected_version)
    return recorded_json(rec), rec


def _fork(table: Any, c: Campaign, seat: Seat, asked: schema.Fork) -> Written:
    if asked.at is not None and asked.day is not None:
        raise LedgerError(_("give `at` or `day`, not both"))
    book = table.book
    forked = book.fork(c.name, asked.name, at=asked.at, day=asked.day)
    answer: dict[str, Any] = {"name": forked.name, "parent": c.name, "at": forked.parent_version}
    if asked.take_table:
        # Every seat of the parent is offered a seat at the fork (the GM's too), taken with one
        # tap: no link, so no secret in this answer or anywhere else.
        offered = table.seats.offer(c.id, forked.id, book.tip(forked).state.core.characters)
        take = f"/api/c/{auth.in_path(c.name)}/offers/{auth.in_path(forked.name)}"
        return {**answer, "offered": [s.label for s in offered], "take": take}, None
    gm, secret = table.seats.invite(forked.id, "gm", label=None)
    link = idempotency.Secret(
        f"/join/{secret}",
        gone=_(
            "campaign {fork!r} was forked from {parent!r} by this request, and the link "
            "of its GM seat {seat!r} was shown once and is not kept; if it was lost, revoke "
            "that seat (`ledger table revoke {seat_word}`) and invite a new one "
            "(`ledger table invite -c {fork_word} --gm`)",
            fork=forked.name,
            parent=c.name,
            seat=gm.label,
            seat_word=shell_word(gm.label),
            fork_word=shell_word(forked.name),
        ),
    )
    return {**answer, "seat": gm.label, "link": link}, None


def _reveal(table: Any, c: Campaign, seat: Seat, asked: schema.Reveal) -> Written:
    rec = table.book.reveal_dice(c.name, client_seed=asked.client_seed)
    shown, opened = rec.events
    return {
        **recorded_json(rec),
        "revealed": shown.commitment,
        "seed": shown.seed,
        "commitment": opened.commitment,
    }, rec


def _reveal_sealed(table: Any, c: Campaign, seat: Seat, asked: schema.RevealSealed) -> Written:
    if (asked.version is None) != asked.all:
        raise Unprocessable(_('give `version` or `all`, not both: {{"version": 12}} or {{"all": true}}'))
    rec = table.book.reveal(c.name, asked.version, seat=seat.label)
    return recorded_json(rec), rec


@endpoint
async def sealed(request: Request) -> Response:
    """What a sealed roll or whisper holds, for a seat the visibility rule lets see it (the
    GM; a private roll's roller; a whisper's sender and recipients; anyone once revealed);
    404 for any other, naming nothing of it."""
    seat, _by_cookie = await seat_of(request)
    table = table_of(request)
    raw = request.path_params["version"]
    if not VERSION.fullmatch(raw) or len(raw) > 12:
        raise BadRequest(_("a sealed action is named by its version, a whole number"), field="version")

    def read() -> dict[str, Any]:
        c = campaign_of(table, seat, request.path_params["campaign"])
        return table.book.sealed_content(c.name, int(raw), auth.viewer_of(seat))

    return json_answer(await table.run(read))


@endpoint
async def seed(request: Request) -> Response:
    """The players' client seed for the open dice commitment: any seat that acts gives it."""
    seat, _by_cookie = await seat_of(request)
    raw = await body_of(request)
    asked = decoded(raw, schema.Seed)
    auth.may_act(seat)
    table = table_of(request)

    def run() -> Written:
        c = campaign_of(table, seat, request.path_params["campaign"])
        rec = table.book.seed_dice(asked.client_seed, c.name)
        return recorded_json(rec), rec

    return await _write(request, seat, raw, run, seat.campaign)


undo = _gm_write(N_("undo actions"), schema.Count, _undo)
redo = _gm_write(N_("redo actions"), schema.Count, _redo)
fork = _gm_write(N_("fork the campaign"), schema.Fork, _fork)
reveal = _gm_write(N_("reveal the dice"), schema.Reveal, _reveal)
reveal_sealed = _gm_write(N_("reveal sealed rolls"), schema.RevealSealed, _reveal_sealed)


@endpoint
async def events(request: Request) -> Response:
    """The events after ``after`` (default 0), undone ones marked, a page at a time."""
    seat, _by_cookie = await seat_of(request)
    after = version_query(request, "after") or 0
    table = table_of(request)

    def read() -> dict[str, Any]:
        c = campaign_of(table, seat, request.path_params["campaign"])
        found, head, more = entries_after(table.book, c, after, 500, auth.viewer_of(seat))
        return {"campaign": c.name, "head": head, "events": found, "more": more}

    return json_answer(await table.run(read))


def travel(request: Request, seat: Seat) -> tuple[int | None, int | None]:
    """The version (``at``) or the ``day`` a read asks for, either or none: time travel is
    the GM's."""
    at, day = version_query(request, "at"), version_query(request, "day")
    if at is not None or day is not None:
        auth.gm_only(seat, N_("travel in time"))
    if at is not None and day is not None:
        raise LedgerError(_("give `at` or `day`, not both"))
    return at, day


@endpoint
async def sheet(request: Request) -> Response:
    """What ``ledger sheet --json`` prints, now or ``at`` a version or on a ``day``."""
    seat, _by_cookie = await seat_of(request)
    at, day = travel(request, seat)
    character = request.query_params.get("character")
    table = table_of(request)

    def read() -> dict[str, Any]:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        state = book.state(c.name, at=at, day=day)
        system = book.system(c)
        who = character or seat.character or book.acting(c.name, state)
        if who is not None:
            who = actor_in(state, who)
        data: dict[str, Any] = system.read.sheet(state, who)
        version = at if at is not None else (book.version_at_day(c, day) if day is not None else None)
        data["luck_index"] = luck_from_log(book, c.name, who, version=version)
        return played(system, state, data, seat)

    return Response(msgspec.json.encode(await table.run(read)), media_type="application/json")


def played(system: Any, state: Any, data: dict[str, Any], seat: Seat) -> dict[str, Any]:
    """A sheet as the page draws it: its ``view`` (the system's layout), its ``controls``
    (what a player taps on it), the ``choices`` its forms pick from it and the page's
    ``hints`` (what comes next, in the page's words; ``now``: the ones the moment lights up)."""
    if system.read.sheet_layout is not None:
        data["view"] = sheets.view(system.read.sheet_layout, data)
    data["controls"] = affordances.controls(system, data, state)
    data["choices"] = affordances.choices(system, data, state)
    said = affordances.hints(system, state, data["controls"], seat.role)
    data["hints"] = [*said["now"], *said["more"]]
    data["now"] = said["now"]
    return data


@endpoint
async def every_sheet(request: Request) -> Response:
    """Every character's sheet as the page draws it (one for the table when the system
    keeps one for everyone), now or ``at`` a version or on a ``day``: the GM's laptop and a
    player's look at the rest of the table."""
    seat, _by_cookie = await seat_of(request)
    at, day = travel(request, seat)
    table = table_of(request)

    def read() -> dict[str, Any]:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        state = book.state(c.name, at=at, day=day)
        system = book.system(c)
        if state.game is None:
            return {"campaign": c.name, "version": state.core.version, "sheets": {}}
        found = reports.sheets(system, state)
        return {
            "campaign": c.name,
            "version": state.core.version,
            "sheets": {who: played(system, state, data, seat) for who, data in found.items()},
        }

    return Response(msgspec.json.encode(await table.run(read)), media_type="application/json")


async def drawing(request: Request) -> Response:
    """The drawing module the page and the report share (the report inlines it)."""
    return Response(
        reports.drawing_module(),
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


@endpoint
async def board(request: Request) -> Response:
    """The system's map (``ReportHooks.map``: a crawl's hexes, the yearzero Zone) now, ``at`` a
    version or on a ``day``, as the report draws it: ``{"kind", "map", "legend"}``."""
    seat, _by_cookie = await seat_of(request)
    at, day = travel(request, seat)
    table = table_of(request)

    def read() -> dict[str, Any]:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        system = book.system(c)
        hooks = system.read.report
        if hooks.map is None:
            raise NotFound(_("the {system} system draws no map", system=system.name))
        state = book.state(c.name, at=at, day=day)
        return {
            "kind": hooks.map_kind,
            "map": hooks.map(state) if state.game is not None else None,
            "legend": hooks.legend(state.core.tables) if hooks.legend is not None else {},
        }

    return json_answer(await table.run(read))


@endpoint
async def seats(request: Request) -> Response:
    """The campaign's seats, never their secrets: the GM's."""
    seat, _by_cookie = await seat_of(request)
    auth.gm_only(seat, N_("list the seats"))
    table = table_of(request)

    def read() -> list[dict[str, Any]]:
        c = campaign_of(table, seat, request.path_params["campaign"])
        return [seat_view(s, table.book) for s in table.seats.all(c.id)]

    return json_answer(await table.run(read))


@endpoint
async def stream(request: Request) -> Response:
    """Server-Sent Events: each entry after ``Last-Event-ID`` (or ``after``), then each new one."""
    seat, _by_cookie = await seat_of(request)
    table = table_of(request)
    last = request.headers.get("last-event-id")
    if last is not None:
        if not VERSION.fullmatch(last.strip()):
            raise BadRequest(
                _("Last-Event-ID is a version, a whole number from 0; got {given!r}", given=last[:40]),
                field="last_event_id",
            )
        after = int(last.strip())
    else:
        after = version_query(request, "after") or 0
    c = await table.run(campaign_of, table, seat, request.path_params["campaign"])

    viewer = auth.viewer_of(seat)

    def read(since: int) -> tuple[list[dict[str, Any]], bool]:
        found, _head, more = entries_after(table.book, c, since, 500, viewer)
        return found, more

    return StreamingResponse(
        table.feeds.follow(
            c.id, after, read, seat.key, sees=lambda sent: message_seen(viewer, sent), lang=i18n.language()
        ),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def invitation(request: Request) -> tuple[Seat, str]:
    """The seat a link would seat and its campaign's name; 410 for a link that seated its
    device, 401 for an unknown one (counted as a guess), 429 past the guesses."""
    table = table_of(request)
    who = auth.address(request)
    over = table.guesses.over(who)
    try:
        return await table.run(table.invitation, request.path_params["secret"], over)  # type: ignore[no-any-return]
    except UnknownLinkError:
        table.guesses.failed(who)
        raise table.guesses.refusal(who) if over else auth.unknown_secret() from None


async def join_page(request: Request) -> Response:
    """The confirm page of an invitation link: "Join CAMPAIGN as WHO?" and a button. Opening
    the link seats nothing: a page of another site may send a browser here, but only this
    page's own form can seat it (``join``)."""
    try:
        seat, name = await invitation(request)
    except LedgerError as e:
        return pages.notice(e)
    return pages.confirm(seat, name)


async def join(request: Request) -> Response:
    """The confirm page's form: seat this browser (a secret of its own, in the cookie) and
    go to the table. The link seats no other device from then on, unless it is reusable."""
    table = table_of(request)
    try:
        auth.check_origin(request)
        await invitation(request)
        _seat, name, secret = await table.run(table.join, request.path_params["secret"])
    except LedgerError as e:
        return pages.notice(e)
    # The cookie goes with this campaign's API only (its path, as the page's script writes
    # it), so a seat at a second table, a fork's say, does not replace the first one's.
    answer = RedirectResponse(f"/t/{auth.in_path(name)}", status_code=303)
    seat_cookie(answer, request, name, secret)
    return answer


def seat_cookie(answer: Response, request: Request, campaign: str, secret: str) -> None:
    """Give the browser its seat at ``campaign``: a cookie sent to that campaign's API only."""
    answer.set_cookie(
        auth.COOKIE,
        secret,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=f"/api/c/{auth.in_path(campaign)}",
    )


def link_base(request: Request) -> str:
    """Where an invitation link points: the address the server announced (``ledger serve
    --lan``) when the GM reached it through the loopback, else the address the GM used."""
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    shared = getattr(table_of(request), "shared_url", None)
    host = request.url.hostname or ""
    if shared and (host == "localhost" or host.startswith("127.") or host in ("::1", "[::1]")):
        return str(shared).rstrip("/")
    return own


@endpoint
async def invite(request: Request) -> Response:
    """Invite a seat (the GM's): its view, its link (a fresh secret, shown only in this
    answer, never kept: an ``Idempotency-Key`` does not replay it) and the link's QR code."""
    seat, _by_cookie = await seat_of(request)
    auth.gm_only(seat, N_("invite a seat"))
    asked = decoded(await body_of(request), schema.Invite)
    role = {"watcher": "watch"}.get(asked.role, asked.role)
    table = table_of(request)

    def run() -> tuple[dict[str, Any], str]:
        book = table.book
        c = campaign_of(table, seat, request.path_params["campaign"])
        character = asked.character
        if character is not None:
            if role != "player":
                raise Unprocessable(_("only a player's seat names a character"), field="character")
            character = actor_in(book.tip(c).state, character)
        made, secret = table.seats.invite(c.id, role, character, asked.label, reusable=asked.reusable)
        return seat_view(made, book), secret

    view, secret = await table.run(run)
    link = f"{link_base(request)}/join/{secret}"
    return json_answer(
        {"seat": view, "link": link, "qr_svg": pages.qr_svg(link)}, headers=dict(pages.NO_STORE)
    )


@endpoint
async def revoke(request: Request) -> Response:
    """Revoke a seat of this table (the GM's), as ``ledger table revoke`` does: its link and
    every device it seated open nothing from now on, and its open streams end with a
    ``revoked`` message. The asking seat is not revoked from its own page."""
    seat, _by_cookie = await seat_of(request)
    auth.gm_only(seat, N_("revoke a seat"))
    label = request.path_params["label"]
    table = table_of(request)

    def run() -> dict[str, Any]:
        c = campaign_of(table, seat, request.path_params["campaign"])
        if nfc(label) == seat.label:
            raise Unprocessable(
                _(
                    "seat {seat!r} is the one this page sits in; revoke it from the command line "
                    "(`ledger table revoke {seat_word}`)",
                    seat=seat.label,
                    seat_word=shell_word(seat.label),
                ),
                field="label",
            )
        return seat_view(table.seats.revoke(nfc(label), c.id), table.book)

    return json_answer(await table.run(run), headers=dict(pages.NO_STORE))


@endpoint
async def take_offer(request: Request) -> Response:
    """Take the seat at a fork offered to the asking seat: the same role, character and
    label there, a secret of its own in the cookie (a bearer client gets it in the answer)."""
    seat, by_cookie = await seat_of(request)
    table = table_of(request)

    def run() -> tuple[dict[str, Any], str, str]:
        book = table.book
        campaign_of(table, seat, request.path_params["campaign"])
        asked = request.path_params["fork"]
        try:
            fork = book.campaign(asked)
        except UnknownCampaignError:
            raise Unprocessable(
                _("seat {seat!r} was offered no seat at {fork!r}", seat=seat.label, fork=asked[:100]),
                field="fork",
            ) from None
        taken, secret = table.seats.take(seat, fork.id, fork.name)
        return seat_view(taken, book), fork.name, secret

    view, name, secret = await table.run(run)
    body: dict[str, Any] = {"seat": view, "page": f"/t/{auth.in_path(name)}"}
    if not by_cookie:
        body["secret"] = secret
    answer = json_answer(body, headers=dict(pages.NO_STORE))
    if by_cookie:
        seat_cookie(answer, request, name, secret)
    return answer


async def front(request: Request) -> Response:
    return pages.front()


async def page(request: Request) -> Response:
    """The table's page (``static/table.html``): it reads everything through the API. Its
    answer names the two reads the page makes first, the seat's sheet and the table's
    description, as ``Link: rel=preload``: a browser asks for them as the page's headers
    arrive, while it still builds the page and loads its scripts, and the script's own
    requests are answered from them."""
    lang = i18n.language()
    html = resources.files("ledger.web").joinpath("static/table.html").read_bytes()
    html = html.replace(b'<html lang="en">', b'<html lang="%s">' % lang.encode(), 1)
    html = html.replace(b'src="/static/words.js"', b'src="/static/words.%s.js"' % lang.encode(), 1)
    api = f"/api/c/{auth.in_path(request.path_params['campaign'])}"
    first = ", ".join(f"<{path}>; rel=preload; as=fetch; crossorigin" for path in (f"{api}/sheet", api))
    return Response(
        html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store", "Link": first}
    )


def _asked_language(request: Request) -> str:
    lang = i18n.normalize(request.path_params["lang"])
    if lang is None:
        raise NotFound(
            _(
                "the page speaks {languages}; no {asked!r}",
                languages=", ".join(i18n.LANGUAGES),
                asked=request.path_params["lang"][:20],
            )
        )
    return lang


@endpoint
async def page_words(request: Request) -> Response:
    """``GET /i18n/page.<lang>.json``: the page's words in a language (``web.language``)."""
    return Response(
        language.page_words(_asked_language(request)),
        media_type="application/json",
        headers={"Cache-Control": "no-cache"},
    )


@endpoint
async def words_script(request: Request) -> Response:
    """``GET /static/words.<lang>.js``: the page's words as the script the page loads first."""
    return Response(
        language.page_script(_asked_language(request)),
        media_type="text/javascript; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


async def command_schema(request: Request) -> Response:
    return json_answer(schema.command_schema())


async def openapi(request: Request) -> Response:
    return json_answer(schema.openapi())


async def not_found(request: Request, exc: Exception) -> Response:
    return refusal(
        NotFound(
            _("no page at {path!r}; the API is described at /api/openapi.json", path=request.url.path[:200])
        )
    )


def server_error(exc: Exception) -> Response:
    """A fault of the server itself, as the same error object (never a traceback)."""
    return refusal(
        ServerFault(
            _(
                "the server failed on this request ({error}); nothing was recorded unless the events show it",
                error=type(exc).__name__,
            )
        )
    )


async def not_allowed(request: Request, exc: Exception) -> Response:
    return refusal(
        MethodNotAllowed(
            _("{method} is not how {path!r} is used", method=request.method, path=request.url.path[:200])
        )
    )


def routes() -> list[Route | Mount]:
    static = StaticFiles(packages=[("ledger.web", "static")])
    return [
        Route("/api/schema", command_schema, methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        Route("/api/c/{campaign}", table_info, methods=["GET"]),
        Route("/api/c/{campaign}/actions", actions, methods=["POST"]),
        Route("/api/c/{campaign}/undo", undo, methods=["POST"]),
        Route("/api/c/{campaign}/redo", redo, methods=["POST"]),
        Route("/api/c/{campaign}/fork", fork, methods=["POST"]),
        Route("/api/c/{campaign}/dice/reveal", reveal, methods=["POST"]),
        Route("/api/c/{campaign}/dice/seed", seed, methods=["POST"]),
        Route("/api/c/{campaign}/reveal", reveal_sealed, methods=["POST"]),
        Route("/api/c/{campaign}/sealed/{version}", sealed, methods=["GET"]),
        Route("/api/c/{campaign}/events", events, methods=["GET"]),
        Route("/api/c/{campaign}/sheet", sheet, methods=["GET"]),
        Route("/api/c/{campaign}/sheets", every_sheet, methods=["GET"]),
        Route("/api/c/{campaign}/map", board, methods=["GET"]),
        Route("/api/c/{campaign}/seats", seats, methods=["GET"]),
        Route("/api/c/{campaign}/seats", invite, methods=["POST"]),
        Route("/api/c/{campaign}/seats/{label}", revoke, methods=["DELETE"]),
        Route("/api/c/{campaign}/offers/{fork}", take_offer, methods=["POST"]),
        Route("/api/c/{campaign}/stream", stream, methods=["GET"]),
        Route("/join/{secret}", join_page, methods=["GET"]),
        Route("/join/{secret}", join, methods=["POST"]),
        Route("/", front, methods=["GET"]),
        Route("/t/{campaign}", page, methods=["GET"]),
        Route("/static/draw.js", drawing, methods=["GET"]),
        Route("/static/words.{lang}.js", words_script, methods=["GET"]),
        Route("/i18n/page.{lang}.json", page_words, methods=["GET"]),
        Mount("/static", app=static, name="static"),
    ]
