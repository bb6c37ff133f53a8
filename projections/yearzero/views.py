"""The party's Rot and the Zone's map: each a view of the game state and its text."""

from __future__ import annotations

import re
from typing import Any

from ledger.i18n import _
from ledger.projections.yearzero.game import YZState
from ledger.projections.yearzero.vocabulary import clock, said, split_sector

_MADE_PERMANENT = re.compile(r"^(?P<cause>.*), (?P<n>\d+) made permanent$")


def _source(text: str) -> str:
    """A Rot history entry's source (as the fold words it, in English) in the reader's language."""
    m = _MADE_PERMANENT.match(text)
    if m:
        return _("{cause}, {n} made permanent", cause=said(m["cause"]), n=int(m["n"]))
    return said(text)


def rot_view(game: YZState) -> dict[str, Any]:
    return {
        "time": clock(game.minute),
        "characters": {n: {"total": c.rot, "permanent": c.permanent_rot} for n, c in game.characters.items()},
        "history": [
            {
                "time": clock(r.at)["text"],
                "character": r.character,
                "change": r.change,
                "total": r.total,
                "permanent": r.permanent,
                "source": r.source,
            }
            for r in game.rot_log
        ],
        "sectors": [{"sector": s, "rot_level": game.sectors[s].rot_level} for s in game.path[-8:]],
    }


def render_rot(data: dict[str, Any]) -> str:
    lines = [_("Rot at {time}", time=data["time"]["text"])]
    for n, r in data["characters"].items():
        lines.append(
            _(
                "  {name:<12} {total:>3} total {permanent:>3} permanent  {bar}",
                name=n,
                total=r["total"],
                permanent=r["permanent"],
                bar="#" * r["total"],
            )
        )
    if data["history"]:
        lines.append(_("History:"))
        for h in data["history"][-15:]:
            lines.append(
                _(
                    "  {time}  {name:<12} {change:+d} -> {total} ({permanent} perm.)  {source}",
                    time=h["time"],
                    name=h["character"],
                    change=h["change"],
                    total=h["total"],
                    permanent=h["permanent"],
                    source=_source(h["source"]),
                )
            )
    if data["sectors"]:
        lines.append(
            _(
                "Last sectors: {sectors}",
                sectors="  ".join(f"{s['sector']}:{s['rot_level']}" for s in data["sectors"]),
            )
        )
    return "\n".join(lines)


def zone_view(game: YZState) -> dict[str, Any]:
    return {
        "time": clock(game.minute),
        "position": game.position or None,
        "ark": game.ark or None,
        "sectors": {
            n: {"rot_level": s.rot_level, "explored": s.explored, "visits": s.visits}
            for n, s in game.sectors.items()
        },
        "path": list(game.path),
    }


def _column_name(col: int) -> str:
    name = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        name = chr(ord("A") + rem) + name
    return name


def render_zone(data: dict[str, Any]) -> str:
    cells = {split_sector(n): (n, s) for n, s in data["sectors"].items() if split_sector(n)}
    if not cells:
        return _("no sectors visited yet")
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, c1 = max(min(cols) - 1, 0), max(cols) + 1
    r0, r1 = max(min(rows) - 1, 0), max(rows) + 1
    lines = ["     " + "".join(f"{_column_name(c):^5}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        row = f"{r:>4} "
        for c in range(c0, c1 + 1):
            found = cells.get((c, r))
            if found is None:
                row += "  .  "
                continue
            name, s = found
            mark = "@" if name == data["position"] else ("A" if name == data["ark"] else " ")
            row += f" {mark}{'E' if s['explored'] else '?'}{s['rot_level']} "
        lines.append(row.rstrip())
    lines.append(_("@ party  A the Ark  E explored  ? entered only  digit: Rot level"))
    lines.append(
        _(
            "{time}: the party is in {position}; path {path}",
            time=data["time"]["text"],
            position=data["position"] or "-",
            path=" > ".join(data["path"][-10:]),
        )
    )
    return "\n".join(lines)
