"""One reading of every byte: a stored or imported event is exactly what the ledger writes.

JSON can spell one value many ways: a key twice (``"actor":"Mallory","actor":"Ann"``),
spaces between values, an escaped letter (``\\u003e`` for ``>``), a field no event has.
Two readers then disagree: the decoder that verifies keeps the last of two keys, DuckDB
(the warehouse) the first. The ledger writes one spelling only, msgspec's encoding of
the envelope, so an event is admitted only when its bytes are that encoding of the
values they decode to (:func:`problem`). The one exception is history: a field an
event class added later (``later_fields``, docs/schema.md) is left out of events an
older ledger wrote, and reads as its default; it may be left out, nothing else may.

An export's header is likewise exactly what ``export`` writes (:func:`header_problem`).

Checking costs one encode and one comparison per event; the slower reading below runs
only for a line that differs, to find the legacy spelling or to name what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec

from ledger.i18n import _
from ledger.log.events import Envelope, encoder

_WHITESPACE = b" \t\r\n"


class _Twice(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Twice(key)
        out[key] = value
    return out


def _shown(key: str) -> str:
    return repr(key[:40])


def problem(raw: bytes, env: Envelope[Any]) -> str | None:
    """What keeps ``raw`` from being the bytes the ledger writes for ``env`` (the envelope
    it decodes to), or None when it is them (or an older ledger's, see the module)."""
    if encoder.encode(env) == raw:
        return None
    return _slow_problem(raw, env)


def _slow_problem(raw: bytes, env: Envelope[Any]) -> str | None:
    try:
        tree = json.loads(raw, object_pairs_hook=_pairs)
    except _Twice as e:
        return _(
            "it holds the key {key} twice in one object, and the ledger writes each key once",
            key=_shown(e.key),
        )
    except (ValueError, RecursionError):
        return _("it is not JSON as the ledger writes it")
    spelled = msgspec.json.encode(tree)
    if spelled != raw:
        return _spelling(raw, spelled)
    try:
        expected = _as_written(env, msgspec.to_builtins(env), tree, "")
    except _Unwritten as e:
        return str(e)
    if msgspec.json.encode(expected) != raw:
        return _("its fields are not written as the ledger writes them (their order or their form)")
    return None


def _spelling(raw: bytes, spelled: bytes) -> str:
    """Name the first byte where ``raw`` spells its values otherwise than the ledger."""
    at = next((i for i, (a, b) in enumerate(zip(raw, spelled, strict=False)) if a != b), len(spelled))
    byte = raw[at : at + 1]
    if byte and byte in _WHITESPACE:
        return _(
            "it holds whitespace between its values (byte {byte}), which the ledger never writes", byte=at + 1
        )
    if byte == b"\\" or spelled[at : at + 1] == b"\\":
        shown = "".join(c if c.isprintable() else "?" for c in raw[at : at + 6].decode("utf-8", "replace"))
        return _(
            "it escapes a character ('{shown}' at byte {byte}) that the ledger writes as it is, or writes one it escapes",
            shown=shown,
            byte=at + 1,
        )
    return _("it spells a value otherwise than the ledger writes it (byte {byte})", byte=at + 1)


def _in(where: str) -> str:
    return _(" (in {where!r})", where=where) if where else ""


class _Unwritten(Exception):
    """A field the ledger would not write, or one it would not leave out."""


def _as_written(value: Any, built: Any, tree: Any, where: str) -> Any:
    """``built`` (the ledger's own encoding of ``value``, as builtins) without the later
    fields ``tree`` (the line as read) leaves out; refuses any other difference in fields."""
    if isinstance(value, msgspec.Struct):
        if not isinstance(built, dict) or not isinstance(tree, dict):
            return built
        config = value.__struct_config__
        later = getattr(type(value), "later_fields", frozenset())
        names = dict(zip(value.__struct_encode_fields__, value.__struct_fields__, strict=True))
        for key in tree:
            if key not in built and key != config.tag_field:
                if key in names:
                    raise _Unwritten(
                        _(
                            "it writes the field {field}{where} at its default, which the ledger leaves out",
                            field=_shown(key),
                            where=_in(where),
                        )
                    )
                raise _Unwritten(
                    _(
                        "it holds a field {field}{where}, which no event of the ledger has (a newer campaign-ledger's export: upgrade to read it)",
                        field=_shown(key),
                        where=_in(where),
                    )
                )
        kept: dict[str, Any] = {}
        for key, item in built.items():
            if key in tree:
                inner = getattr(value, names[key]) if key in names else None  # the tag: a string
                kept[key] = _as_written(inner, item, tree[key], f"{where}.{key}" if where else key)
            elif key in later:
                continue  # an older ledger's event, written before the field was
            else:
                raise _Unwritten(
                    _(
                        "it leaves out the field {field}{where}, which the ledger writes",
                        field=_shown(key),
                        where=_in(where),
                    )
                )
        return kept
    if isinstance(value, list | tuple) and isinstance(built, list | tuple) and isinstance(tree, list):
        kept_items = [_as_written(v, b, t, where) for v, b, t in zip(value, built, tree, strict=False)]
        return kept_items + list(built[len(tree) :])
    if isinstance(value, dict) and isinstance(built, dict) and isinstance(tree, dict):
        return {k: _as_written(value.get(k), b, tree.get(k), where) for k, b in built.items()}
    return built


HEADER_FIELDS = ("format", "version", "name", "system", "campaign_id", "head", "head_hash")
SIGNATURE_FIELDS = ("signed_by", "signature")


def header_problem(raw: bytes, fields: Mapping[str, Any]) -> str | None:
    """What keeps an export's first line from being the header ``export`` writes: its
    fields in order, the signature's two last when it is signed, and Python's
    ``json.dumps`` spelling (``fields``: the line as decoded)."""
    try:
        json.loads(raw, object_pairs_hook=_pairs)
    except _Twice as e:
        return _("holds the field {key} twice", key=_shown(e.key))
    except (ValueError, RecursionError):
        return _("is not JSON as `export` writes it")
    extra = [k for k in fields if k not in HEADER_FIELDS + SIGNATURE_FIELDS]
    if extra:
        return _("holds a field {field}, which no export header has", field=_shown(extra[0]))
    order = HEADER_FIELDS + (SIGNATURE_FIELDS if any(k in fields for k in SIGNATURE_FIELDS) else ())
    expected = {k: fields.get(k) for k in order}
    if json.dumps(expected).encode() != raw:
        return _("is not written as `export` writes it (its fields' order, spaces or escapes)")
    return None
