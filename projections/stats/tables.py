"""Report rows as plain aligned text tables: the command line's ``ledger stats`` and
``ledger query`` print them, and a system's own report renders its rows with them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ledger import i18n
from ledger.i18n import N_

HEADERS = {
    "system": N_("system"),
    "purpose": N_("purpose"),
    "rolls": N_("rolls"),
    "undone": N_("undone"),
    "physical": N_("physical"),
    "judged": N_("judged"),
    "rate": N_("rate"),
    "expected_rate": N_("expected_rate"),
    "luck": N_("luck"),
    "campaign": N_("campaign"),
    "character": N_("character"),
    "successes": N_("successes"),
    "expected": N_("expected"),
    "kept luck": N_("kept luck"),
    "mulligans": N_("mulligans"),
    "player": N_("player"),
    "day": N_("day"),
    "taken": N_("taken"),
    "healed": N_("healed"),
    "cause": N_("cause"),
    "deaths": N_("deaths"),
    "first_day": N_("first_day"),
    "die": N_("die"),
    "throws": N_("throws"),
    "verdict": N_("verdict"),
    "who": N_("who"),
    "wounds": N_("wounds"),
    "campaigns": N_("campaigns"),
    "death_day": N_("death_day"),
    "last_day": N_("last_day"),
    "share": N_("share"),
}
"""The columns of the statistics' reports, as their headers are put into words (a report's
rows keep their keys: ``--json`` and ``ledger query`` name them so)."""


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 72) -> str:
    """A plain aligned table; numbers right-aligned, NULL shown as '-'."""
    return "\n".join(table_lines(headers, [rows], max_width))


def table_lines(
    headers: Sequence[str], pages: Iterable[Sequence[Sequence[Any]]], max_width: int = 72
) -> Iterator[str]:
    """The lines of :func:`format_table` for rows that arrive page by page: the columns are
    as wide as the first page needs (a longer cell later pushes its line out)."""

    def cell(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            text = f"{v:.4g}" if abs(v) < 1e6 else f"{v:.0f}"
            return text if lang in ("en", i18n.PSEUDO) else i18n.localize_digits(text, lang)
        text = str(v).replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return "  ".join(parts).rstrip()

    lang = i18n.language()
    widths = [len(h) for h in headers]
    numeric = [False] * len(headers)
    first = True
    for rows in pages:
        cells = [[cell(v) for v in row] for row in rows]
        if first:
            for row in cells:
                widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
            numeric = [
                all(isinstance(r[i], int | float) or r[i] is None for r in rows) and bool(rows)
                for i in range(len(headers))
            ]
            yield line(list(headers))
            yield line(["-" * w for w in widths])
            first = False
        yield from (line(row) for row in cells)
    if first:
        yield line(list(headers))
        yield line(["-" * w for w in widths])


def dict_table(found: list[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Report rows as an indented table (the columns of the first row unless given)."""
    if not found:
        return i18n._("  (none)")
    cols = list(columns or found[0].keys())
    shown = [i18n.translate(HEADERS[c]) if c in HEADERS else c for c in cols]
    return "\n".join(
        "  " + ln for ln in format_table(shown, [[r.get(c) for c in cols] for r in found]).splitlines()
    )


_dict_table = dict_table
