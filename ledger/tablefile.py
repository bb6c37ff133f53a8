"""A system's table file read into typed tables: TOML decoded by msgspec into Structs.

A system describes its table file as msgspec Structs (``forbid_unknown_fields``,
``Meta`` bounds) and reads it with :func:`decode`. A value of the wrong type, a
missing or an unknown key is refused with one line naming the file and the exact
place (``weapons."combat knife".kind``) and a :class:`~ledger.errors.Fix` naming the
table to edit. What a type cannot say (a class naming a weapon the file lacks) the
system checks after decoding.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, TypeVar

import msgspec

from ledger.errors import Fix, TableError

T = TypeVar("T")

_AT = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_SEGMENT = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_WORDS = (
    ("Object contains unknown field", "unknown key"),
    ("Object missing required field", "missing key"),
    ("`object`", "a table"),
    ("`array`", "a list"),
    ("`str`", "text"),
    ("`int`", "a whole number"),
    ("`float`", "a number"),
    ("`bool`", "true or false"),
)


def decode(data: bytes | str, kind: type[T], file: str) -> T:
    """The table file ``data`` (read from ``file``) as ``kind``; a one-line TableError
    naming the file, the place and the table to fix when it is not."""
    try:
        return msgspec.toml.decode(data, type=kind)
    except msgspec.ValidationError as e:
        raise _refusal(data, kind, file, str(e)) from None
    except msgspec.DecodeError as e:
        raise TableError(f"table file {file!r} is not valid TOML ({e}); fix the syntax") from None


def _refusal(data: bytes | str, kind: type[Any], file: str, error: str) -> TableError:
    found = _AT.match(error)
    problem, path = (found["problem"], found["path"] or "") if found else (error, "")
    keys = _located(msgspec.toml.decode(data), kind, _segments(path))
    shown = _dotted(keys)
    words = _worded(problem)
    if not keys:
        key = re.search(r"`([^`]+)`", problem)
        table = key[1] if key else ""
        if problem.startswith("Object contains unknown field"):
            known = ", ".join(f.encode_name for f in msgspec.structs.fields(kind))
            return TableError(f"{file}: unknown section `{table}`; use any of {known}")
        return TableError(
            f"{file}: {words}", fix=Fix("edit_tables", f"add [{table}] to the table file", {"table": table})
        )
    return TableError(
        f"{file}: {shown}: {words}",
        fix=Fix("edit_tables", f"fix {shown} in the table file", {"table": str(keys[0])}),
    )


def _worded(problem: str) -> str:
    for theirs, ours in _WORDS:
        problem = problem.replace(theirs, ours)
    return problem[:1].lower() + problem[1:]


def _segments(path: str) -> list[str | int | None]:
    """``.weapons[...].kind`` as ``["weapons", None, "kind"]``: None where msgspec hides a key."""
    out: list[str | int | None] = []
    for name, index in _SEGMENT.findall(path):
        out.append(name if name else None if index == "..." else int(index))
    return out


def _located(data: Any, kind: Any, segments: list[str | int | None]) -> list[str | int]:
    """The segments with each hidden key found: the first entry of the table there whose
    value does not decode."""
    keys: list[str | int] = []
    for segment in segments:
        kind = _unwrapped(kind, data)
        if segment is None and isinstance(data, dict):
            value_kind = typing.get_args(kind)[1] if typing.get_args(kind) else Any
            segment = next((k for k, v in data.items() if not _fits(v, value_kind)), None)
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
            break
        keys.append(segment)
        data = data[segment]
    return keys


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


def _dotted(keys: list[str | int]) -> str:
    """The place as TOML writes it: ``classes.marine.usage."rifle rounds"``, ``modifiers[2]``."""
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key + 1}]"
        else:
            name = key if _BARE.match(key) else '"' + key.replace('"', '\\"') + '"'
            out += f".{name}" if out else name
    return out
