"""The campaign journal as Markdown: a heading per day, the events as list items,
and the character's state at the end of each day.

Written for a notes vault (Obsidian) or a blog: plain CommonMark, every bit of
user text (names, notes, labels) escaped so it cannot become a heading, a
link, HTML or emphasis. Systems with game days get a heading per game day;
the others a heading per calendar day the events were recorded on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ledger.deciding.commands import Told, told_actions
from ledger.i18n import _
from ledger.log.state import told_as, told_on

SKIPPED = frozenset({"campaign.started", "branch.forked", "action.undone", "action.redone"})
"""Bookkeeping, not play: left out of the journal."""

HIDDEN_STATE = frozenset({"campaign", "system", "day", "luck_index", "last_roll", "name"})
"""Sheet keys no day's headline shows: what every sheet carries about itself (a system adds
its own in ``ReadModel.journal_hidden``)."""

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~^$&])")
"""Emphasis, code, links, HTML, headings, tables, strike-through, math, entities."""
_LINE_START = re.compile(r"^(\d+)([.)])|^([-+])(?=\s|$)")


def escape(text: str) -> str:
    """``text`` safe inside a Markdown paragraph or list item, on one line."""
    flat = " ".join(str(text).split())
    escaped = _SPECIAL.sub(r"\\\1", flat).replace("==", "=\\=")  # == is a highlight in Obsidian
    return _LINE_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", escaped)


def _value(value: Any) -> str:
    if value is None or value == [] or value == {}:
        return _("none")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_value(v) for v in value)
    return str(value)


def state_line(sheet: dict[str, Any], hidden: Iterable[str] = ()) -> str:
    """The sheet's headline values, ``health 10 · energy 8 · food bar 3, fruit 0``, leaving out
    the ``hidden`` keys as well as :data:`HIDDEN_STATE`."""
    left_out = HIDDEN_STATE | frozenset(hidden)
    parts = []
    for key, value in sheet.items():
        if key in left_out or key.startswith("_") or value is None or value in ([], {}, ""):
            continue
        if isinstance(value, dict) and any(isinstance(v, dict | list) for v in value.values()):
            continue  # nested detail (a fight, a map): the sheet shows it, the journal does not
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            continue
        parts.append(f"{key.replace('_', ' ')} {_value(value)}")
    return " · ".join(escape(p) for p in parts)


def render(book: Any, campaign: str | None, actor: str | None, version: int | None = None) -> str:
    """The journal of ``campaign`` up to ``version`` (head by default) as Markdown."""
    camp = book.campaign(campaign)
    system = book.system(camp)
    head = book.head(camp) if version is None else version
    days: list[tuple[str, int | None, list[Told]]] = []
    for told in told_actions(system, book.effective(camp, head)):
        env = told[0]
        if env.event.kind in SKIPPED:
            continue
        day = told_on(env.event, env.day)
        heading = _("Day {day}", day=day) if day is not None else env.at[:10]
        if not days or days[-1][0] != heading:
            days.append((heading, day, []))
        days[-1][2].append(told)
    lines = [
        f"# {escape(camp.name)}",
        "",
        _("A {system} campaign, up to version {head}.", system=escape(system.name), head=head),
        "",
    ]
    if not days:
        lines += [_("Nothing has happened yet."), ""]
    for heading, day, envs in days:
        lines += [f"## {heading}", ""]
        for env, party, seat in envs:
            whose = told_as(env.event, env.actor, party, seat)
            who = f"**{escape(whose)}**: " if whose else ""
            lines.append(f"- {who}{escape(env.event.summary())}")
        state = book.state(camp.name, at=envs[-1][0].v)
        if state.game is not None:
            sheet = system.read.sheet(state, actor)
            shown = state_line(sheet, system.read.journal_hidden)
            if shown:
                end = (
                    _("*End of day {day}*: {state}", day=day, state=shown)
                    if day is not None
                    else _("*End of {date}*: {state}", date=heading, state=shown)
                )
                lines += ["", end]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
