"""A sheet as a player reads it: a system's :class:`~ledger.systems.SheetLayout` applied
to the data its ``sheet`` gives.

:func:`view` picks and labels the fields the layout names (internal fields stay out) and
is what ``ledger sheet --json`` gives under ``view`` and what the report draws;
:func:`text` is the terminal's rendering of the same view; :func:`controls` are the
layout's controls for one sheet (what the live table lets a player tap) and :func:`choices`
the choices of a field it asks. All are pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ledger.i18n import _, translate
from ledger.systems import Ask, Control, Given, SheetField, SheetLayout

_PART = re.compile(r"\{([^{}]+)\}")
_MISSING = object()


def lookup(sheet: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (``position.q``), or a marker when it is not there."""
    value: Any = sheet
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def fill(template: str, sheet: Mapping[str, Any]) -> str:
    """A template's ``{path}`` parts filled from the sheet (a missing or None part is left
    out)."""

    def part(m: re.Match[str]) -> str:
        found = lookup(sheet, m.group(1))
        return "" if found is _MISSING or found is None else words(found)

    return " ".join(_PART.sub(part, template).split())


def words(value: Any) -> str:
    """A value as a short line of text."""
    if value is True:
        return _("yes")
    if value is False:
        return _("no")
    if isinstance(value, float):
        return _("{value:g}", value=value)
    if isinstance(value, list | tuple):
        return ", ".join(words(v) for v in value) or _("none")
    if isinstance(value, Mapping):
        if set(value) == {"current", "max"}:
            return f"{value['current']}/{value['max']}"
        return ", ".join(f"{k} {words(v)}" for k, v in value.items()) or _("none")
    return str(value)


def row(field: SheetField, sheet: Mapping[str, Any]) -> dict[str, Any] | None:
    """One labelled field: ``{"key", "label", "value"}``, with ``max`` for a track and
    ``text`` for a worded value; None when the sheet has no value for it."""
    value = lookup(sheet, field.key)
    if value is _MISSING or value is None:
        return None
    out: dict[str, Any] = {"key": field.key, "label": translate(field.label) if field.label else field.label}
    if isinstance(value, Mapping) and set(value) == {"current", "max"}:
        out["value"], out["max"] = value["current"], value["max"]
    else:
        out["value"] = value
        if field.max is not None:
            top = field.max if isinstance(field.max, int) else lookup(sheet, field.max)
            if isinstance(top, int) and not isinstance(top, bool):
                out["max"] = top
    if field.show:
        out["text"] = fill(translate(field.show), sheet)
    return out


def view(layout: SheetLayout, sheet: Mapping[str, Any]) -> dict[str, Any]:
    """The sheet as the layout reads it: its title, the headline fields, and each section
    whose ``when`` holds, with the rows that have a value."""
    sections = []
    for section in layout.sections:
        if section.when:
            found = lookup(sheet, section.when)
            if found is _MISSING or not found:
                continue
        rows = [r for r in (row(f, sheet) for f in section.fields) if r is not None]
        if rows:
            sections.append(
                {"title": translate(section.title) if section.title else section.title, "rows": rows}
            )
    headline = [r for r in (row(f, sheet) for f in layout.headline) if r is not None]
    return {"title": title(layout, sheet), "headline": headline, "sections": sections}


def title(layout: SheetLayout, sheet: Mapping[str, Any]) -> str:
    """The first of the layout's title templates whose every part the sheet holds (the last
    one, with what it has, when none does)."""
    for template in layout.title:
        parts = _PART.findall(template)
        if all(lookup(sheet, p) not in (_MISSING, None) for p in parts):
            return fill(translate(template), sheet)
    return fill(translate(layout.title[-1]), sheet) if layout.title else ""


def shown(r: Mapping[str, Any]) -> str:
    """A row's value as the terminal prints it."""
    if "text" in r:
        return str(r["text"])
    if "max" in r:
        return f"{words(r['value'])}/{r['max']}"
    return words(r["value"])


def text(v: Mapping[str, Any]) -> str:
    """The terminal's sheet: the title, the headline on one line, then a line per section."""
    lines = [v["title"]]
    if v["headline"]:
        lines.append("  ".join(f"{r['label']} {shown(r)}" for r in v["headline"]))
    for section in v["sections"]:
        parts = [f"{r['label']} {shown(r)}" if r["label"] else shown(r) for r in section["rows"]]
        lines.append(f"{section['title']}: " + "   ".join(parts))
    return "\n".join(lines)


# --- what a player taps: the layout's controls, for one sheet --------------------------------


def entries(found: Any) -> list[tuple[Any, Any]]:
    """A value's entries as (key, value): a dict's items, a list's items (keyed by their
    ``name`` when they are dicts), nothing for anything else."""
    if isinstance(found, Mapping):
        return list(found.items())
    if isinstance(found, list | tuple):
        return [(x.get("name") if isinstance(x, Mapping) else x, x) for x in found]
    return []


def kept(value: Any, where: Mapping[str, tuple[Given | None, ...]]) -> bool:
    """Whether an entry's value holds, at each path of ``where``, one of the values given."""
    for path, allowed in where.items():
        found = value if path == "" else lookup(value, path) if isinstance(value, Mapping) else _MISSING
        got = None if found is _MISSING else found
        if not any(got == a and type(got) is type(a) for a in allowed):
            return False
    return True


def filled(template: Given, sheet: Mapping[str, Any], key: Any = None, value: Any = None) -> Any:
    """A declared argument or label with its ``{key}``, ``{value...}`` and ``{PATH}`` parts
    filled in; a template that is one part alone keeps that part's value as it is (a
    number stays a number)."""
    if not isinstance(template, str) or "{" not in template:
        return template

    def part(path: str) -> Any:
        if path == "key":
            return key
        if path == "value":
            return value
        if path.startswith("value."):
            return lookup(value, path[6:]) if isinstance(value, Mapping) else _MISSING
        return lookup(sheet, path)

    whole = _PART.fullmatch(template)
    if whole is not None:
        found = part(whole.group(1))
        return None if found is _MISSING else found

    def sub(m: re.Match[str]) -> str:
        found = part(m.group(1))
        return "" if found is _MISSING or found is None else words(found)

    return " ".join(_PART.sub(sub, template).split())


def choices(
    ask: Ask,
    sheet: Mapping[str, Any],
    characters: list[str] | tuple[str, ...] = (),
    tables: Mapping[str, Any] | None = None,
    own: str | None = None,
) -> list[Any] | None:
    """The choices of a field the live table asks: fixed, or picked from the sheet, the
    campaign's characters or its tables; None when the field is asked freely."""
    if ask.choices:
        return list(ask.choices)
    if not ask.pick:
        return None
    if ask.pick == "@characters":
        return list(characters)
    if ask.pick == "@others":
        return [c for c in characters if c != own]
    if ask.pick.startswith("@tables."):
        found = lookup(tables or {}, ask.pick[len("@tables.") :])
        return [] if found is _MISSING else [k for k, _ in entries(found)]
    found = lookup(sheet, ask.pick)
    return [k for k, v in entries(None if found is _MISSING else found) if kept(v, ask.where)]


def _plain(value: Any) -> bool:
    """A value shown in a few words: not a list, nor a dict other than a track."""
    if isinstance(value, Mapping):
        return set(value) == {"current", "max"}
    return value is not None and not isinstance(value, list | tuple)


def _field_label(layout: SheetLayout, key: str) -> str | None:
    fields = [*layout.headline, *(f for s in layout.sections for f in s.fields)]
    return next((translate(f.label) for f in fields if f.key == key and f.label), None)


def _options(
    control: Control,
    sheet: Mapping[str, Any],
    characters: list[str] | tuple[str, ...],
    tables: Mapping[str, Any] | None,
    own: str | None,
) -> list[dict[str, Any]]:
    return [
        {
            "field": ask.field,
            "label": translate(ask.label) if ask.label else ask.field.replace("_", " "),
            "choices": choices(ask, sheet, characters, tables, own),
            "default": ask.default,
            "scale": ask.scale,
            "flip": ask.flip,
            "low": ask.low,
            "high": ask.high,
        }
        for ask in control.options
    ]


def controls(
    layout: SheetLayout,
    sheet: Mapping[str, Any],
    characters: list[str] | tuple[str, ...] = (),
    tables: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The layout's controls for one sheet, each ``{"id", "on", "key", "label", "detail",
    "command", "args", "options"}``: one per control on a field, or per entry of its
    ``each``; a control whose ``when`` is not set, or whose field the sheet does not show,
    is left out. ``characters`` and ``tables`` are the campaign's (for the options' choices)."""
    own = sheet.get("name") if isinstance(sheet.get("name"), str) else None
    out: list[dict[str, Any]] = []
    for n, control in enumerate(layout.controls):
        if control.when:
            found = lookup(sheet, control.when)
            if found is _MISSING or not found:
                continue
        shown = lookup(sheet, control.on) if control.on else None
        if control.on and (shown is _MISSING or shown is None):
            continue
        if not control.each and not kept(sheet, control.where):
            continue
        options = _options(control, sheet, characters, tables, own)
        if control.each:
            every = entries(None if (f := lookup(sheet, control.each)) is _MISSING else f)
            aligned = shown if isinstance(shown, list) and len(shown) == len(every) else None
            picked = [(i, k, v) for i, (k, v) in enumerate(every) if kept(v, control.where)]
        else:
            aligned, picked = None, [(0, None, shown)]
        for i, key, value in picked:
            if control.label:
                label = filled(
                    translate(control.label) if isinstance(control.label, str) else control.label,
                    sheet,
                    key,
                    value,
                )
            elif aligned is not None:
                label = words(aligned[i])
            elif control.each:
                label = str(key).replace("_", " ")
            else:
                label = _field_label(layout, control.on) or control.on or control.command.split(".")[-1]
            if control.detail:
                detail = filled(
                    translate(control.detail) if isinstance(control.detail, str) else control.detail,
                    sheet,
                    key,
                    value,
                )
            elif _plain(value) and not (control.each and value == key) and aligned is None:
                detail = words(value)
            else:
                detail = ""
            out.append(
                {
                    "id": f"{n}:{'' if key is None else key}",
                    "on": control.on,
                    "key": key,
                    "label": str(label or ""),
                    "detail": str(detail or ""),
                    "command": control.command,
                    "args": {k: filled(v, sheet, key, value) for k, v in control.args.items()},
                    "options": options,
                }
            )
    return out
