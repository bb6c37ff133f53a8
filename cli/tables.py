"""``ledger tables`` and ``ledger roll-table``: browse a system's tables, roll on any of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ledger.cli.options import (
    Ctx,
    OptionHelpLater,
    common,
    emit,
    emit_sealed,
    faces_option,
    pass_ctx,
    recorded_json,
)
from ledger.cli.options import faces as parse_faces
from ledger.cli.translated import Command
from ledger.dice.sources import render as render_roll
from ledger.errors import LedgerError
from ledger.i18n import N_, _, n_
from ledger.log.store import is_postgres, resolve_target
from ledger.systems import get_system
from ledger.tables import browse
from ledger.tables.browse import systems_with_tables
from ledger.text import shell_word


def _has_ledger(c: Ctx) -> bool:
    target = resolve_target(c.db)
    return is_postgres(target) or Path(target).exists()


def _campaign_tables(c: Ctx) -> tuple[str, str, dict[str, Any]]:
    """(system, campaign name, tables) of the campaign meant: its own tables, as it was started."""
    if not _has_ledger(c):
        raise LedgerError(_("no campaign here; give --system SYSTEM, or -c CAMPAIGN with --db PATH"))
    camp = c.ledger.campaign(c.campaign)
    tables = c.ledger.state(camp.name).core.tables
    return camp.system, camp.name, tables


def _system_tables(system: str) -> dict[str, Any]:
    found = get_system(system)
    if found.rules.load_tables is None:
        raise LedgerError(
            _(
                "the {system} system has no tables; systems with tables: {systems}",
                system=system,
                systems=", ".join(systems_with_tables()),
            )
        )
    data, _source = found.rules.load_tables(None)
    return data


def render(table: Any) -> str:
    dice = f" ({table.dice})" if table.dice else ""
    lines = [f"{table.name}{dice}: {table.title}"]
    if table.note:
        lines.append(f"  {table.note}")
    width = max((len(r.key) for r in table.rows), default=0)
    lines += [f"  {r.key:<{width}}  {r.text}" for r in table.rows]
    return "\n".join(lines)


def _system_help() -> str:
    return _(
        "A system's sample tables, without a campaign ({systems}).", systems=", ".join(systems_with_tables())
    )


@click.command(
    "tables",
    cls=Command,
    help=N_(
        "Browse the tables of the campaign's system: each table with its dice and rows.\n"
        "\n"
        "Without TABLE, the list of tables (with --all, every one in full); roll on\n"
        "one with `ledger roll-table TABLE`. Shops, enemies, items, techniques,\n"
        "skills and classes are listed as the system has them."
    ),
)
@click.argument("table", required=False)
@click.option(
    "--system",
    cls=OptionHelpLater,
    default=None,
    metavar="SYSTEM",
    help=_system_help,
)
@click.option("--all", "everything", is_flag=True, help=N_("Print every table in full."))
@common
@pass_ctx
def tables(c: Ctx, table: str | None, system: str | None, everything: bool) -> None:
    if system is not None:
        data = _system_tables(system)
        heading = _("tables of the {system} system (sample tables):", system=system)
    else:
        system, name, data = _campaign_tables(c)
        heading = _("tables of {name!r} ({system}):", name=name, system=system)
    listed = browse.listing(system, data)
    if table is not None:
        found = browse.find(listed, table, system)
        emit(c, found.as_dict(), lambda: render(found))
        return

    def text() -> str:
        if everything:
            return "\n\n".join(render(t) for t in listed)
        width = max(len(t.name) for t in listed)
        lines = [heading]
        for t in listed:
            rows = n_("{n} row", "{n} rows", len(t.rows))
            dice = t.dice or _("list")
            lines.append(f"  {t.name:<{width}}  {dice:<5} {t.title} ({rows})")
        lines.append(_("show one: ledger tables TABLE; roll on one: ledger roll-table TABLE"))
        return "\n".join(lines)

    emit(c, {"system": system, "tables": [t.as_dict() for t in listed]}, text)


@click.command(
    "roll-table",
    cls=Command,
    help=N_("Roll on TABLE of the campaign's system and record the roll (--faces for physical dice)."),
)
@click.argument("table")
@faces_option
@common
@pass_ctx
def roll_table(c: Ctx, table: str, faces: str | None) -> None:
    system, name, data = _campaign_tables(c)
    found = browse.find(browse.listing(system, data), table, system)
    if found.dice is None:
        raise LedgerError(
            _(
                "{table} is a list to read, not a table to roll; see `ledger tables {word}`",
                table=found.name,
                word=shell_word(found.name),
            )
        )
    rec = c.ledger.roll(
        found.dice,
        name,
        label=f"table {found.name}",
        faces=parse_faces(faces),
        actor=c.actor,
        visibility=c.visibility,
    )
    if emit_sealed(c, rec):
        return
    result = rec.events[0].result  # type: ignore[attr-defined]
    row = found.row_for(result.total)
    data_out = recorded_json(rec)
    data_out["table"] = found.name
    data_out["row"] = {"key": row.key, "text": row.text, **row.details}
    emit(c, data_out, f"{found.name}: {render_roll(result)} -> {row.text}")
