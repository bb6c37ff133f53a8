"""A system's table file read into typed tables: TOML decoded by msgspec into Structs.

A system describes its table file as msgspec Structs (``forbid_unknown_fields``,
``Meta`` bounds) and reads it with :func:`decode`. A value of the wrong type, a
missing or an unknown key is refused with one line naming the file and the exact
place as TOML writes it (``weapons."combat knife".kind``, ``modifiers[2]``; the entry
of a keyed table msgspec shows as ``[...]`` is found and named), the problem (with the
value given, the keys or the choices allowed) and a :class:`~ledger.errors.Fix` naming
the table to edit. What a type cannot say (a class naming a weapon the file lacks) the
system checks after decoding.

A user-facing text of a table (a row's text, a table's title or name) may be written in one
language or in several: a plain string, or a TOML inline table by language,
``{ en = "Ruins", es = "Ruinas" }`` (:data:`Words`; either or both, only the languages the
ledger speaks, each a non-empty string). :func:`said` picks the one to show in the language
of the moment (:func:`ledger.i18n.localized`); :func:`every` gives all of them, the words a
player may type for it in either language (``browse.Table.aliases``).
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

import msgspec

from ledger.errors import EditTable, GiveOption, Input, LedgerError, Other, TableError
from ledger.i18n import LANGUAGES, _, localized

T = TypeVar("T")

_AT = re.compile(r"^(?P<problem>.*?)(?: - at `(?P<at>[^`]*)`(?: in `(?P<within>[^`]*)`)?)?$", re.DOTALL)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
Language = Literal.__getitem__(LANGUAGES)  # type: ignore[attr-defined]
"""A language key of a text written in several (``en``, ``es``): the languages the ledger speaks."""
Words = (
    str | Annotated[dict[Language, Annotated[str, msgspec.Meta(min_length=1)]], msgspec.Meta(min_length=1)]
)  # type: ignore[valid-type]
"""A text a table file writes in one language (a string) or in several (``{ en = "...", es =
"..." }``): a table's type for a row's text, a title or a name."""


def said(value: str | Mapping[str, str]) -> str:
    """A :data:`Words` value in the language of the moment (else English, else the first)."""
    return localized(value)


def every(value: str | Mapping[str, str]) -> tuple[str, ...]:
    """Every language's text of a :data:`Words` value, each once: what a player may type."""
    if isinstance(value, str):
        return (value,)
    return tuple(dict.fromkeys(v for v in value.values() if isinstance(v, str) and v))


def _words() -> tuple[tuple[str, str], ...]:
    """msgspec's words and the table file's, in the language of the moment: each of
    msgspec's phrases a refusal may hold, with its replacement."""
    return (
        ("Object contains unknown field", _("unknown key")),
        ("Object missing required field", _("missing key")),
        ("`str | object`", _("text, or a table of texts by language")),
        ("`object`", _("a table")),
        ("`array`", _("a list")),
        ("`str`", _("text")),
        ("`int`", _("a whole number")),
        ("`float`", _("a number")),
        ("`bool`", _("true or false")),
        ("Invalid enum value", _("Invalid enum value")),
        ("Expected ", _("Expected ")),
        (" of length ", _(" of length ")),
        (" of at least length ", _(" of at least length ")),
        (" of at most length ", _(" of at most length ")),
        (" that's a multiple of ", _(" that's a multiple of ")),
        (" matching regex ", _(" matching regex ")),
        (", got ", _(", got ")),
    )


def decode(data: bytes | str, kind: type[T], file: str) -> T:
    """The table file ``data`` (read from ``file``) as ``kind``; a one-line TableError
    naming the file, the place and the table to fix when it is not."""
    try:
        return msgspec.toml.decode(data, type=kind)
    except msgspec.ValidationError as e:
        raise _refusal(data, kind, file, str(e)) from None
    except msgspec.DecodeError as e:
        raise TableError(
            _one_line(_("table file {file!r} is not valid TOML ({problem})", file=file, problem=e)),
            fix=Other(text=_("fix the syntax")),
        ) from None


STORED = "the stored tables"
"""How a refusal names a campaign's stored tables (the ``source`` the checks are given)."""


def check_stored(
    data: typing.Mapping[str, Any], kind: type[T], store: typing.Callable[[T, str], Any], system: str
) -> None:
    """A campaign's stored tables (its start event's), judged as a table file is: decoded
    by the same table ``kind`` and bounds, checked and stored by ``store`` (the function a
    system's ``load_tables`` stores a file's tables with, given the typed tables and the
    source to name), and required to be exactly what that stores. A one-line TableError
    naming the first problem otherwise."""
    fix = Other(text=_("import an export the ledger wrote, unedited"))
    try:
        typed = msgspec.convert(data, kind)
    except msgspec.ValidationError as e:
        problem = _one_line(_worded(str(e)))[:200]
        raise TableError(
            _("the stored tables are not {system} tables ({problem})", system=system, problem=problem),
            fix=fix,
        ) from None
    if store(typed, STORED) != data:
        raise TableError(
            _("the stored tables are not tables the ledger stores (a table was edited)"), fix=fix
        )


def settings(given: typing.Mapping[str, Any], kind: type[Any], system: str) -> dict[str, Any]:
    """A campaign's ``settings`` (``--setting KEY=VALUE``) checked against the system's typed
    ``[settings]`` table ``kind``: the values as given (a whole number may come as its
    digits), or a one-line LedgerError naming the setting and what it takes."""
    known = [f.encode_name for f in msgspec.structs.fields(kind)]
    for key, value in given.items():
        if key not in known:
            raise LedgerError(
                _(
                    "the {system} system has no setting {key!r}; its settings are {settings}",
                    system=system,
                    key=key,
                    settings=", ".join(known),
                ),
                field="settings",
                fix=GiveOption(
                    text=_("give `settings` KEY=VALUE with one of them"),
                    inputs=(Input("settings", "KEY=VALUE"),),
                ),
            )
        try:
            msgspec.convert({key: value}, kind, strict=False)
        except msgspec.ValidationError as e:
            found = _AT.match(str(e))
            problem = found["problem"] if found else str(e)
            words = _worded(problem)
            if problem.startswith("Invalid enum value"):
                words += _choices(_field_kind(kind, key))
            raise LedgerError(
                _("the setting {key}={value!r} is refused: {problem}", key=key, value=value, problem=words),
                field="settings",
                fix=GiveOption(
                    text=_("give `settings` {key}=VALUE", key=key),
                    inputs=(Input("settings", f"{key}=VALUE"),),
                ),
            ) from None
    return dict(given)


def _refusal(data: bytes | str, kind: type[Any], file: str, error: str) -> TableError:
    found = _AT.match(error)
    problem, at, within = (found["problem"], found["at"], found["within"]) if found else (error, None, None)
    place = _located(msgspec.toml.decode(data), kind, _segments(within if within is not None else at or ""))
    words = _worded(problem)
    if within is not None:
        words = _bad_key(place, words)
    elif problem.startswith("Object contains unknown field"):
        words += _("; use any of {names}", names=", ".join(place.fields()))
    elif problem.startswith("Invalid enum value"):
        words += _choices(place.kind)
    elif problem.startswith("Expected") and ", got " not in problem and _scalar(place.value):
        words += _(", got {value}", value=_shown(place.value))
    keys = place.keys
    if not keys:
        key = re.search(r"`([^`]+)`", problem)
        table = key[1] if key else ""
        if problem.startswith("Object contains unknown field"):
            known = ", ".join(place.fields())
            return TableError(
                _one_line(
                    _(
                        "{file}: unknown section `{table}`; use any of {names}",
                        file=file,
                        table=table,
                        names=known,
                    )
                ),
                fix=EditTable(
                    text=_("rename or remove {table}", table=toml_key(table)), table=toml_key(table)
                ),
            )
        if not problem.startswith("Object missing required field"):
            return TableError(_one_line(f"{file}: {words}"), fix=Other(text=_("fix the table file")))
        written = place.value if isinstance(place.value, dict) else {}
        missing = [
            f.encode_name for f in msgspec.structs.fields(kind) if f.required and f.encode_name not in written
        ]
        tables = ", ".join(f"[{toml_key(name)}]" for name in missing or [table])
        return TableError(
            _one_line(_("{file}: missing {tables}", file=file, tables=tables)),
            fix=EditTable(
                text=_("add {tables} to the table file", tables=tables),
                table=toml_key((missing or [table])[0]),
            ),
        )
    shown = _dotted(keys)
    named = [k for k in keys if isinstance(k, str)]
    holder = keys if within is not None or problem.startswith("Object ") else named[:-1]
    table = _dotted(holder) or _dotted(keys[:1])
    return TableError(
        _one_line(f"{file}: {shown}: {words}"),
        fix=EditTable(text=_("fix {place} in the table file", place=shown), table=table),
    )


def _bad_key(place: _Place, words: str) -> str:
    """The words of a refused key of the table at ``place``: which key, and what it should be."""
    args = typing.get_args(place.kind)
    key_kind = args[0] if args else Any
    table = place.value if isinstance(place.value, dict) else {}
    key = next((k for k in table if not _fits(k, key_kind)), None)
    if key is not None and _unwrapped(key_kind, key) == Language:
        return _(
            "key `{key}` is no language the ledger speaks; write the text in any of {languages}",
            key=key,
            languages=", ".join(LANGUAGES),
        )
    if key is not None:
        return _("key `{key}`: {problem}", key=key, problem=words + _choices(_unwrapped(key_kind, key)))
    return _("a key: {problem}", problem=words + _choices(_unwrapped(key_kind, key)))


def _worded(problem: str) -> str:
    for theirs, ours in _words():
        problem = problem.replace(theirs, ours)
    return problem[:1].lower() + problem[1:]


def _choices(kind: Any) -> str:
    """``; use any of n, ne, se`` for a Literal, else nothing."""
    if typing.get_origin(kind) is typing.Literal:
        return _(
            "; use any of {names}",
            names=", ".join(_shown(c) if isinstance(c, bool) else str(c) for c in typing.get_args(kind)),
        )
    return ""


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _shown(value: Any) -> str:
    """A value as the file writes it."""
    return str(value).lower() if isinstance(value, bool) else repr(value)


def _segments(path: str) -> list[str | int | None]:
    """``$.weapons[...].kind`` as ``["weapons", None, "kind"]``: None where msgspec hides a key."""
    out: list[str | int | None] = []
    for name, index in _SEGMENT.findall(path.removeprefix("$")):
        out.append(name if name else None if index == "..." else int(index))
    return out


class _Place:
    """Where msgspec's path leads in the file: the keys (each hidden key found), the value
    written there and the type it should have."""

    def __init__(self, keys: list[str | int], value: Any, kind: Any) -> None:
        self.keys, self.value, self.kind = keys, value, kind

    def fields(self) -> list[str]:
        """The keys the table here may have."""
        if isinstance(self.kind, type) and issubclass(self.kind, msgspec.Struct):
            return [f.encode_name for f in msgspec.structs.fields(self.kind)]
        return []


def _located(data: Any, kind: Any, segments: list[str | int | None]) -> _Place:
    """The segments with each hidden key found: the first entry of the table there whose
    key or value does not decode."""
    keys: list[str | int] = []
    for segment in segments:
        kind = _unwrapped(kind, data)
        if segment is None and isinstance(data, dict):
            args = typing.get_args(kind)
            key_kind, value_kind = args if len(args) == 2 else (Any, Any)
            segment = next(
                (k for k, v in data.items() if not _fits(k, key_kind) or not _fits(v, value_kind)), None
            )
            if segment is None:
                break
            kind = value_kind
        elif isinstance(segment, int) and isinstance(data, list) and segment < len(data):
            kind = typing.get_args(kind)[0] if typing.get_args(kind) else Any
        elif isinstance(segment, str) and isinstance(data, dict) and segment in data:
            kind = _field_kind(kind, segment)
        else:
            if segment is not None:
                keys.append(segment)
                data = None
                kind = _field_kind(kind, segment)
            break
        keys.append(segment)
        data = data[segment]
    return _Place(keys, data, _unwrapped(kind, data))


def _unwrapped(kind: Any, data: Any) -> Any:
    """``kind`` without Annotated and without the union members ``data`` is not."""
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        members = [m for m in typing.get_args(kind) if m is not type(None)]
        fitting = [m for m in members if _container(m) is type(data)]
        kind = fitting[0] if fitting else members[0]
        return _unwrapped(kind, data)
    return kind


def _container(kind: Any) -> type | None:
    while typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    origin = typing.get_origin(kind) or kind
    if isinstance(origin, type) and issubclass(origin, msgspec.Struct):
        return dict
    if origin in (list, tuple):
        return list
    return origin if isinstance(origin, type) else None


def _field_kind(kind: Any, name: str) -> Any:
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        for field in msgspec.structs.fields(kind):
            if field.encode_name == name:
                return field.type
    return Any


def _fits(value: Any, kind: Any) -> bool:
    try:
        msgspec.convert(value, type=kind)
    except msgspec.ValidationError:
        return False
    return True


def toml_key(name: str) -> str:
    """A key as TOML writes it in a table's name: bare (``rat``) or quoted (``"solar taser"``)."""
    return name if _BARE.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def _dotted(keys: list[str | int]) -> str:
    """The place as TOML writes it: ``classes.marine.usage."rifle rounds"``, ``modifiers[2]``."""
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key + 1}]"
        else:
            out += f".{toml_key(key)}" if out else toml_key(key)
    return out


def _one_line(text: str) -> str:
    """A message with every unprintable character (a line break in a key) escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
