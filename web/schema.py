"""What a client may send and gets back, as JSON Schema and as an OpenAPI 3.1 description.

The commands are msgspec Structs: their schemas come from ``msgspec.json.schema_components``,
each under its stable name (``core.Roll``, ``crawl.Move``: the name an action's decision
records, :func:`ledger.deciding.commands.stable_commands`), so the page builds a form from a
command's fields and a tool builder generates a client, for every installed system, a
plugin's included. The request and answer bodies of the API are Structs here too, and the
OpenAPI description is built from the same components.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import msgspec

from ledger.deciding.commands import stable_commands
from ledger.errors import AnyFix
from ledger.systems import get_system, system_names
from ledger.web import affordances

MAX_FACES = 1000


class Action(msgspec.Struct, forbid_unknown_fields=True):
    """``POST /api/c/{campaign}/actions``: a command by its stable name and its fields."""

    command: Annotated[str, msgspec.Meta(examples=["core.Roll"])]
    """The command's stable name (``core.Roll``, ``crawl.Move``; ``GET /api/schema`` lists them)."""
    args: Annotated[
        dict[str, Any], msgspec.Meta(examples=[{"notation": "2d6+1", "label": "to hit", "actor": "Ana"}])
    ] = {}
    """The command's fields; a player's ``actor`` is their own character."""
    faces: list[int] | None = None
    """Physical dice, in the order the command rolls them; all must be used."""
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """The head the client saw: the action is recorded right after it, or refused with a
    409 (someone acted first), in any number of server processes."""
    visibility: Literal["public", "private", "blind"] = "public"
    """A roll's mode: ``private`` (the roller and the GM see the result), ``blind`` (the GM
    alone); sealed until the GM reveals it (docs/dice.md, "Sealed rolls")."""
    to: list[str] = []
    """A note's recipients (characters): a whisper only they and the GM read."""


class Count(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../undo`` and ``.../redo``: how many actions, and the head the GM saw (an
    undo names the actions it takes back: one recorded in between refuses it, 409, rather
    than be undone unseen)."""

    count: int = 1
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None
    """The head the GM saw: the undo or redo takes back (or brings back) what they saw, or
    is refused with a 409."""


class Fork(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../fork``: the new branch's name, and where (default: the head)."""

    name: str
    at: int | None = None
    day: int | None = None
    take_table: bool = True
    """Offer every seat of the campaign a seat at the branch (else: a GM link for it)."""


class Invite(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../seats``: a new seat (the GM's to invite)."""

    role: Literal["player", "watcher", "gm"]
    character: str | None = None
    """A player's character (and only a player's)."""
    label: str | None = None
    """The seat's name at this table (default: the character's, or the role's)."""
    reusable: bool = False
    """The link seats any number of devices (a kiosk, a watcher's screen), not one."""


class Reveal(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../dice/reveal``: the next commitment's client seed (default: the same)."""

    client_seed: str | None = None


class RevealSealed(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../reveal``: the sealed roll or whisper at ``version``, or ``all`` sealed rolls
    not revealed yet (the GM's)."""

    version: Annotated[int, msgspec.Meta(ge=1)] | None = None
    all: bool = False


class Seed(msgspec.Struct, forbid_unknown_fields=True):
    """``POST .../dice/seed``: the players' client seed for the open commitment, given
    before any die is drawn under it (docs/dice.md)."""

    client_seed: str


class Recorded(msgspec.Struct):
    """What an action recorded: what ``ledger --json`` prints for it."""

    campaign: str
    action: str
    version: int
    events: list[dict[str, Any]]


class Decision(msgspec.Struct):
    """How an action was decided: its command, the seat that sent it, its dice."""

    command: str
    seat: str | None
    faces: list[int]
    dice: str | None
    """``physical`` (entered by hand), ``committed`` (derived under ``commitment``, proven
    once it is revealed), ``unproven`` (virtual dice with no commitment), or None (no dice)."""
    commitment: str | None


class Entry(msgspec.Struct):
    """One event of the log: ``ledger log --json``'s fields, its data and its decision."""

    version: int
    action: str
    kind: str
    at: str
    day: int | None
    actor: str | None
    who: str | None
    """Whose the event is: the character it is about, else ``the party`` for the party's
    action, else the actor."""
    party: bool
    """The event's action is the party's (recorded under no character, ``actor`` None)."""
    seat: str | None
    """The seat the event's action was recorded from (None: the command line)."""
    summary: str
    undone: bool
    event: dict[str, Any]
    decision: Decision | None


class Events(msgspec.Struct):
    campaign: str
    head: int
    events: list[Entry]
    more: bool
    """More events follow the last one given: ask again after it."""


class SeatView(msgspec.Struct):
    label: str
    campaign: str
    role: str
    character: str | None
    invited: str
    revoked: str | None
    reusable: bool = False
    joined: str | None = None
    """When the seat's link (or offer) last seated a device; None: not yet."""


class Invited(msgspec.Struct):
    """The answer to ``POST .../seats``: the seat, its link (shown once) and its QR code."""

    seat: SeatView
    link: str
    qr_svg: str
    """The link as a QR code: an SVG document, to show as an image."""


class Offer(msgspec.Struct):
    """A seat at a fork offered to a seat of its parent: ``POST`` its ``url`` to take it."""

    campaign: str
    url: str
    role: str
    character: str | None


class Taken(msgspec.Struct):
    """The answer to ``POST .../offers/{fork}``: the seat at the fork and its page; the cookie
    is set (a bearer client gets its ``secret`` instead)."""

    seat: SeatView
    page: str
    secret: str | None = None


class Table(msgspec.Struct):
    """``GET /api/c/{campaign}``: the campaign, its head, and the asking seat."""

    campaign: str
    system: str
    head: int
    day: int | None
    characters: list[str]
    seat: SeatView
    commands: list[str]
    """The stable names of the commands this seat may issue (``GET /api/schema`` has their
    fields): the GM's every one, a player's those it may issue for its own character, a
    watcher's none."""
    confirm: list[str]
    """The commands of ``commands`` this seat confirms once before sending: what a player
    cannot take back (the GM's seat, which may undo, confirms none)."""
    gm_values: dict[str, dict[str, list[Any]]]
    """Per command of ``commands``, the values of its fields this seat may not send (the
    GM's: ``{"yearzero.Eat": {"everyone": [true]}}``); empty for the GM's seat."""
    confirm_values: dict[str, dict[str, list[Any]]]
    """Per command of ``commands``, the values of its fields that make it one to confirm
    first (``{"yearzero.Eat": {"contaminated": [true]}}``)."""
    next: list[str]
    """What the rules expect next, as the command line's hints say it (``next:``)."""
    dice: dict[str, Any]
    """What ``ledger dice status --json`` prints: the open commitment, its client seed, the dice drawn."""
    map_kind: str | None = None
    """How ``GET .../map`` is drawn: ``hex``, ``zone``, or None (the system has no map)."""
    offers: list[Offer] = []
    """The seats at forks offered to the asking seat and not taken yet."""


class ForkAnswer(msgspec.Struct):
    name: str
    parent: str
    at: int
    offered: list[str] | None = None
    """With ``take_table``: the labels of the seats offered a seat at the branch."""
    take: str | None = None
    """With ``take_table``: where the asking seat takes its own (``POST``)."""
    seat: str | None = None
    """Without ``take_table``: the branch's GM seat."""
    link: str | None = None
    """Without ``take_table``: the branch's GM link (``/join/SECRET``)."""


class ErrorBody(msgspec.Struct):
    type: str
    message: str
    exit_code: int
    fix: AnyFix | None = None
    """How to put it right: one of the closed set of fix operations (``ledger.errors``), tagged by
    ``action``, its ``text`` as the command line words it."""
    field: str | None = None


class Error(msgspec.Struct):
    """Every refusal: the object ``ledger --json`` prints for it."""

    error: ErrorBody


ANSWERS: tuple[type, ...] = (
    Action,
    Count,
    Fork,
    Reveal,
    RevealSealed,
    Seed,
    Recorded,
    Events,
    Table,
    ForkAnswer,
    Error,
    SeatView,
    Invite,
    Invited,
    Offer,
    Taken,
)


def _commands() -> dict[str, type]:
    found: dict[str, type] = {}
    for name in system_names():
        found.update(stable_commands(get_system(name)))
    return found


def _renamed(tree: Any, names: dict[str, str], prefix: str) -> Any:
    if isinstance(tree, dict):
        out = {k: _renamed(v, names, prefix) for k, v in tree.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith(prefix) and ref[len(prefix) :] in names:
            out["$ref"] = prefix + names[ref[len(prefix) :]]
        return out
    if isinstance(tree, list):
        return [_renamed(v, names, prefix) for v in tree]
    return tree


def components(prefix: str) -> tuple[dict[str, str], dict[str, Any]]:
    """Each command's reference by stable name, and every schema (commands under their
    stable names), with references starting ``prefix``."""
    commands = _commands()
    kinds = list(dict.fromkeys([*commands.values(), *ANSWERS]))
    refs, found = msgspec.json.schema_components(kinds, ref_template=prefix + "{name}")
    by_kind = dict(zip(kinds, refs, strict=True))
    names = {by_kind[kind]["$ref"][len(prefix) :]: stable for stable, kind in commands.items()}
    schemas = {names.get(k, k): _renamed(v, names, prefix) for k, v in found.items()}
    return {stable: prefix + stable for stable in commands}, schemas


@functools.cache
def command_schema() -> dict[str, Any]:
    """``GET /api/schema``: every command of every installed system, by stable name, each
    with its ``name`` on the command line (and on the page) where it has one."""
    refs, schemas = components("#/$defs/")
    systems = {name: sorted(stable_commands(get_system(name))) for name in system_names()}
    named = {stable: cli for name in system_names() for stable, cli in affordances.names(name).items()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "campaign-ledger commands",
        "commands": {
            name: {"$ref": ref, **({"name": named[name]} if name in named else {})}
            for name, ref in sorted(refs.items())
        },
        "systems": systems,
        "$defs": schemas,
    }


def _error_responses(*statuses: int) -> dict[str, Any]:
    said = {
        400: "The body is not JSON, or a query parameter is malformed",
        401: "No seat, or an unknown or revoked secret",
        403: "The seat may not do this (another campaign, character or role; a cross-site write)",
        404: "No such page or campaign",
        409: "Someone acted first (`expected_version`), the campaign is busy, an `Idempotency-Key` is under way or its answer is not kept (shown once, or cut off after recording), or a seat was taken",
        413: "The body is larger than the server reads",
        415: "The body is not application/json",
        422: "The command line's refusal of the action, word for word",
        429: "Too many unknown secrets from this address: wait and try again",
        503: "The database cannot be reached or written",
    }
    ref = {"$ref": "#/components/schemas/Error"}
    return {
        str(s): {"description": said[s], "content": {"application/json": {"schema": ref}}} for s in statuses
    }


def _json(description: str, ref: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": ref}}}}


@functools.cache
def openapi() -> dict[str, Any]:
    """``GET /api/openapi.json``: the whole API, OpenAPI 3.1, msgspec's components."""
    _refs, schemas = components("#/components/schemas/")
    campaign = {"name": "campaign", "in": "path", "required": True, "schema": {"type": "string"}}
    idem = {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x21-\\x7e]+$"},
        "description": "A retry with the same key gets the first answer and records nothing more.",
    }
    version_param = {"schema": {"type": "integer", "minimum": 0}, "in": "query", "required": False}
    reading = _error_responses(400, 401, 403, 404, 429, 503)
    writing = _error_responses(400, 401, 403, 404, 409, 413, 415, 422, 429, 503)

    def post(summary: str, body: str, answer: str, *, idempotent: bool = False) -> dict[str, Any]:
        op: dict[str, Any] = {
            "summary": summary,
            "parameters": [campaign, *([idem] if idempotent else [])],
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{body}"}}},
            },
            "responses": {"200": _json("Recorded", f"#/components/schemas/{answer}"), **writing},
        }
        return {"post": op}

    paths = {
        "/api/c/{campaign}": {
            "get": {
                "summary": "The campaign, its head, its commands, what comes next, its dice, and the asking seat",
                "parameters": [campaign],
                "responses": {"200": _json("The table", "#/components/schemas/Table"), **reading},
            }
        },
        "/api/c/{campaign}/actions": post(
            "Record an action: a command by its stable name", "Action", "Recorded", idempotent=True
        ),
        "/api/c/{campaign}/undo": post("Undo the last actions (GM)", "Count", "Recorded", idempotent=True),
        "/api/c/{campaign}/redo": post("Redo undone actions (GM)", "Count", "Recorded", idempotent=True),
        "/api/c/{campaign}/fork": post("Fork a branch (GM)", "Fork", "ForkAnswer"),
        "/api/c/{campaign}/dice/reveal": post(
            "Reveal the dice commitment's seed and open the next (GM)", "Reveal", "Recorded"
        ),
        "/api/c/{campaign}/reveal": post(
            "Reveal a sealed roll or whisper, or every sealed roll (GM)",
            "RevealSealed",
            "Recorded",
            idempotent=True,
        ),
        "/api/c/{campaign}/dice/seed": post(
            "Give the players' client seed for the open dice commitment (a player or the GM)",
            "Seed",
            "Recorded",
            idempotent=True,
        ),
        "/api/c/{campaign}/events": {
            "get": {
                "summary": "The events after a version (every one, undone ones marked)",
                "parameters": [campaign, {"name": "after", **version_param}],
                "responses": {"200": _json("Events", "#/components/schemas/Events"), **reading},
            }
        },
        "/api/c/{campaign}/sheet": {
            "get": {
                "summary": "The character sheet, now or (GM) at a version or game day",
                "parameters": [
                    campaign,
                    {"name": "at", **version_param},
                    {"name": "day", **version_param},
                    {"name": "character", "in": "query", "required": False, "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "What `ledger sheet --json` prints",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_error_responses(400, 401, 403, 404, 422, 429, 503),
                },
            }
        },
        "/api/c/{campaign}/sheets": {
            "get": {
                "summary": "Every character's sheet as the page draws it, now or (GM) at a version or game day",
                "parameters": [campaign, {"name": "at", **version_param}, {"name": "day", **version_param}],
                "responses": {
                    "200": {
                        "description": "`{campaign, version, sheets}`: each sheet as `GET .../sheet` gives it",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_error_responses(400, 401, 403, 404, 422, 429, 503),
                },
            }
        },
        "/api/c/{campaign}/map": {
            "get": {
                "summary": "The system's map (hexes, the Zone), now or at a version or game day",
                "parameters": [campaign, {"name": "at", **version_param}, {"name": "day", **version_param}],
                "responses": {
                    "200": {
                        "description": "`{kind, map, legend}`, as the report draws it",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_error_responses(400, 401, 403, 404, 422, 429),
                },
            }
        },
        "/api/c/{campaign}/offers/{fork}": {
            "post": {
                "summary": "Take the seat at a fork offered to the asking seat (one device)",
                "parameters": [
                    campaign,
                    {"name": "fork", "in": "path", "required": True, "schema": {"type": "string"}},
                ],
                "responses": {"200": _json("The seat taken", "#/components/schemas/Taken"), **writing},
            }
        },
        "/api/c/{campaign}/seats": {
            "post": {
                "summary": "Invite a seat (GM): its link, shown once, and the link's QR code",
                "parameters": [campaign],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Invite"}}},
                },
                "responses": {"200": _json("The seat invited", "#/components/schemas/Invited"), **writing},
            },
            "get": {
                "summary": "The campaign's seats, never their secrets (GM)",
                "parameters": [campaign],
                "responses": {
                    "200": {
                        "description": "The seats",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/SeatView"},
                                }
                            }
                        },
                    },
                    **reading,
                },
            },
        },
        "/api/c/{campaign}/seats/{label}": {
            "delete": {
                "summary": "Revoke a seat (GM): its link and every device it seated open nothing more",
                "parameters": [
                    campaign,
                    {"name": "label", "in": "path", "required": True, "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": _json("The seat, revoked", "#/components/schemas/SeatView"),
                    **_error_responses(400, 401, 403, 404, 409, 422, 429, 503),
                },
            }
        },
        "/api/c/{campaign}/stream": {
            "get": {
                "summary": "Server-Sent Events: each event as an `Entry`, its id the version",
                "parameters": [
                    campaign,
                    {"name": "after", **version_param},
                    {
                        "name": "Last-Event-ID",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "The stream",
                        "content": {"text/event-stream": {"schema": {"type": "string"}}},
                    },
                    **reading,
                },
            }
        },
        "/api/schema": {
            "get": {
                "summary": "The JSON Schema of every command",
                "security": [],
                "responses": {
                    "200": {
                        "description": "The schema",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "campaign-ledger live table",
            "version": "1",
            "description": "The API `ledger serve` answers (docs/api.md).",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "seat": {"type": "http", "scheme": "bearer", "description": "A seat's secret"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "ledger_seat"},
            },
        },
        "security": [{"seat": []}, {"cookie": []}],
    }
