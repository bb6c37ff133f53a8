"""A sheet as a player reads it: a system's :class:`~ledger.systems.SheetLayout` applied
to the data its ``sheet`` gives.

:func:`view` picks and labels the fields the layout names (internal fields stay out) and
is what ``ledger sheet --json`` gives under ``view`` and what the report draws;
:func:`text` is the terminal's rendering of the same view. Both are pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ledger.systems import SheetField, SheetLayout

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
        return "yes"
    if value is False:
        return "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ", ".join(words(v) for v in value) or "none"
    if isinstance(value, Mapping):
        if set(value) == {"current", "max"}:
            return f"{value['current']}/{value['max']}"
        return ", ".join(f"{k} {words(v)}" for k, v in value.items()) or "none"
    return str(value)


def row(field: SheetField, sheet: Mapping[str, Any]) -> dict[str, Any] | None:
    """One labelled field: ``{"key", "label", "value"}``, with ``max`` for a track and
    ``text`` for a worded value; None when the sheet has no value for it."""
    value = lookup(sheet, field.key)
    if value is _MISSING or value is None:
        return None
    out: dict[str, Any] = {"key": field.key, "label": field.label}
    if isinstance(value, Mapping) and set(value) == {"current", "max"}:
        out["value"], out["max"] = value["current"], value["max"]
    else:
        out["value"] = value
        if field.max is not None:
            top = field.max if isinstance(field.max, int) else lookup(sheet, field.max)
            if isinstance(top, int) and not isinstance(top, bool):
                out["max"] = top
    if field.show:
        out["text"] = fill(field.show, sheet)
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
            sections.append({"title": section.title, "rows": rows})
    headline = [r for r in (row(f, sheet) for f in layout.headline) if r is not None]
    return {"title": title(layout, sheet), "headline": headline, "sections": sections}


def title(layout: SheetLayout, sheet: Mapping[str, Any]) -> str:
    """The first of the layout's title templates whose every part the sheet holds (the last
    one, with what it has, when none does)."""
    for template in layout.title:
        parts = _PART.findall(template)
        if all(lookup(sheet, p) not in (_MISSING, None) for p in parts):
            return fill(template, sheet)
    return fill(layout.title[-1], sheet) if layout.title else ""


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
