"""The campaign's history: ``ledger undo``, ``redo`` and ``fork`` move through it; ``log``,
``sheet``, ``journal`` and ``replay`` read it, now or as it stood (``--at``, ``--day``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ledger.cli.options import (
    Ctx,
    common,
    emit,
    pass_ctx,
    recorded_json,
    render_mapping,
    state_for,
    time_travel,
)
from ledger.cli.root import cli
from ledger.errors import LedgerError
from ledger.i18n import N_, _, n_
from ledger.log.state import told_as, told_on
from ledger.text import shell_word
from ledger.trust import outfile

# --- undo, redo, fork ------------------------------------------------------------


@cli.command("undo", help=N_("Retract the last COUNT actions (all the events of each)."))
@click.argument("count", type=int, default=1)
@common
@pass_ctx
def undo(c: Ctx, count: int) -> None:
    rec = c.ledger.undo(c.campaign, count)
    emit(c, recorded_json(rec), "\n".join(e.event.summary() for e in rec.envelopes))


@cli.command("redo", help=N_("Bring back the last COUNT undone actions (while nothing new was recorded)."))
@click.argument("count", type=int, default=1)
@common
@pass_ctx
def redo(c: Ctx, count: int) -> None:
    rec = c.ledger.redo(c.campaign, count)
    emit(c, recorded_json(rec), "\n".join(e.event.summary() for e in rec.envelopes))


@cli.command(
    "fork",
    help=N_(
        "Start a branch NEW_NAME sharing this campaign's history up to a point; the new\n"
        "branch becomes the current campaign."
    ),
)
@click.argument("new_name")
@click.option(
    "--at", type=int, default=None, metavar="VERSION", help=N_("Fork at this version (default: head).")
)
@click.option("--day", type=int, default=None, help=N_("Fork at the end of this game day."))
@common
@pass_ctx
def fork(c: Ctx, new_name: str, at: int | None, day: int | None) -> None:
    if at is not None and day is not None:
        raise LedgerError(_("give --at or --day, not both"))
    parent = c.ledger.campaign(c.campaign)
    camp = c.ledger.fork(parent.name, new_name, at=at, day=day)
    c.ledger.use(camp.name)
    emit(
        c,
        {"name": camp.name, "parent": parent.name, "at": camp.parent_version, "current": True},
        _(
            "forked {name!r} at version {version}; now playing it (back with `ledger use {parent}`)",
            name=camp.name,
            version=camp.parent_version,
            parent=shell_word(parent.name),
        ),
    )


# --- reading the log -----------------------------------------------------------------


@cli.command("log", help=N_("Show the campaign's events, oldest first."))
@click.option("--all", "show_all", is_flag=True, help=N_("Include undone events (marked)."))
@click.option(
    "--at", type=int, default=None, metavar="VERSION", help=N_("The log as it stood at this version.")
)
@common
@pass_ctx
def log(c: Ctx, show_all: bool, at: int | None) -> None:
    entries = c.ledger.log(c.campaign, show_all=show_all, at=at)
    data = [
        {
            "version": e.version,
            "action": e.action,
            "kind": e.kind,
            "at": e.at,
            "day": e.day,
            "actor": e.actor,
            "who": told_as(e.event, e.actor, e.party),
            "party": e.party,
            "seat": e.seat,
            "summary": e.summary,
            "undone": e.undone,
        }
        for e in entries
    ]

    def text() -> str:
        lines = []
        for e in entries:
            mark = _(" [undone]") if e.undone else ""
            day = f" d{e.day}" if e.day is not None else ""
            told = told_as(e.event, e.actor, e.party, e.seat)
            who = f" {told}:" if told else ""
            lines.append(f"v{e.version:<5}{day}{who} {e.summary}{mark}")
        return "\n".join(lines)

    emit(c, data, text)


@cli.command("sheet", help=N_("Show the character sheet (the campaign's state) now, or --at / --day."))
@time_travel
@common
@pass_ctx
def sheet(c: Ctx, at: int | None, day: int | None) -> None:
    # lazy: `ledger --help` imports none of the read side (tests/test_cli_startup.py)
    from ledger.projections.stats.sheet import luck_from_log

    state = state_for(c, at, day)
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    who = c.actor or book.acting(camp.name, state)  # the acting character's sheet by default
    data = system.read.sheet(state, who)
    version = at if at is not None else (book.version_at_day(camp, day) if day is not None else None)
    data["luck_index"] = luck_from_log(book, camp.name, who, version=version)
    layout = system.read.sheet_layout
    if layout is not None:
        # lazy: `ledger --help` imports none of the read side (tests/test_cli_startup.py)
        from ledger.projections import sheets

        data["view"] = sheets.view(layout, data)

    def text() -> str:
        luck = data["luck_index"]
        line = ""
        if luck["judged"] and luck["luck"] is None:  # every judged roll had p = 0 or 1
            line = "\n" + n_(
                "luck: none to measure: {n} roll was all certain to succeed or fail",
                "luck: none to measure: {n} rolls were all certain to succeed or fail",
                luck["judged"],
            )
        elif luck["judged"]:
            line = "\n" + n_(
                "luck {luck:+.2f}: {successes} in {rolls} where {n} was expected",
                "luck {luck:+.2f}: {successes} in {rolls} where {n} were expected",
                luck["expected"],
                luck=luck["luck"],
                successes=n_("{n} success", "{n} successes", luck["successes"]),
                rolls=n_("{n} roll", "{n} rolls", luck["judged"]),
            )
        if layout is not None:
            return sheets.text(data["view"]) + line
        if system.read.render_sheet is not None:
            return system.read.render_sheet(data) + line
        return render_mapping({k: v for k, v in data.items() if k != "luck_index"}) + line

    emit(c, data, text)


@cli.command(
    "journal",
    help=N_(
        "One entry per game day (per date where the system counts none): who did what, with\n"
        "notes; --format md for Markdown."
    ),
)
@time_travel
@click.option(
    "--format",
    "form",
    type=click.Choice(["text", "md"]),
    default="text",
    show_default=True,
    help=N_("md: Markdown for a notes vault or a blog (a heading per day, the state at each day's end)."),
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help=N_("Write the journal to this file (default: standard output)."),
)
@click.option("--force", is_flag=True, help=N_("Overwrite the --output file if it exists."))
@common
@pass_ctx
def journal(c: Ctx, at: int | None, day: int | None, form: str, output: str | None, force: bool) -> None:
    if output is not None and form != "md":
        raise LedgerError(_("-o writes the Markdown journal; add --format md"))
    if output is not None:
        outfile.check_target(Path(output), outfile.own_files(c.ledger.store))
        if Path(output).exists() and not force:
            raise LedgerError(
                _("{file} already exists; pick another file or add --force to overwrite it", file=output)
            )
    state = state_for(c, at, day)
    if form == "md":
        # lazy: `ledger --help` imports none of the read side (tests/test_cli_startup.py)
        from ledger.projections.journal import render as markdown

        text_md = markdown(c.ledger, c.campaign, c.actor, state.core.version or None)
        if output is None:
            emit(c, {"format": "md", "markdown": text_md}, text_md.rstrip("\n"))
            return
        outfile.write_text(output, text_md, protected=outfile.own_files(c.ledger.store), replace=force)
        emit(c, {"file": output, "format": "md"}, _("journal written to {file}", file=output))
        return
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    # lazy: `ledger --help` imports no dice (tests/test_cli_startup.py)
    from ledger.deciding.commands import told_actions

    hook = system.read.journal
    if hook is not None:
        rows = hook(state)
        emit(
            c,
            rows,
            lambda: "\n".join(f"{_('day {day}', day=r['day']):>8}  {r['text']}" for r in rows) or _(EMPTY),
        )
        return
    data: list[dict[str, Any]] = []  # one entry per game day (per date without days)
    for env, party, seat in told_actions(system, book.effective(camp, state.core.version or None)):
        if env.event.kind in ("campaign.started", "branch.forked"):
            continue
        day = told_on(env.event, env.day)
        date = None if day is not None else env.at[:10]
        if not data or (data[-1]["day"], data[-1]["date"]) != (day, date):
            data.append({"day": day, "date": date, "actions": []})
        who = told_as(env.event, env.actor, party, seat)
        data[-1]["actions"].append({"version": env.v, "who": who, "text": env.event.summary()})
    emit(c, data, lambda: journal_text(data) or _(EMPTY))


EMPTY = N_("the journal is empty")


def journal_text(days: list[dict[str, Any]]) -> str:
    """The journal's entries: a day (or a date) and who did what on it, a line for each
    run of things told as the same one's (the party's, with the seat that issued them),
    named first unless every one of them names its doer already."""
    out: list[str] = []
    width = 8 if all(entry["day"] is not None for entry in days) else 10
    for entry in days:
        when = _("day {day}", day=entry["day"]) if entry["day"] is not None else entry["date"]
        runs: list[tuple[str | None, list[str]]] = []
        for act in entry["actions"]:
            if runs and runs[-1][0] == act["who"]:
                runs[-1][1].append(act["text"])
            else:
                runs.append((act["who"], [act["text"]]))
        for k, (who, texts) in enumerate(runs):
            told = "; ".join(texts)
            if who and not all(text.startswith(who) for text in texts):
                told = f"{who}: {told}"
            out.append(f"{when if k == 0 else '':>{width}}  {told}")
    return "\n".join(out)


@cli.command("replay", help=N_("Step through the effective actions, showing what each changed."))
@click.option("--at", type=int, default=None, metavar="VERSION", help=N_("Stop at this version."))
@click.option("--to", "old_to", type=int, default=None, hidden=True, help=N_("The old name of --at."))
@common
@pass_ctx
def replay(c: Ctx, at: int | None, old_to: int | None) -> None:
    if at is not None and old_to is not None:
        raise LedgerError(_("give --at alone (--to is its old name)"))
    at = old_to if at is None else at
    book = c.ledger
    camp = book.campaign(c.campaign)
    system = book.system(camp)
    steps = []
    for group, before, after in book.replay(camp.name, to=at):
        if before.game is None:
            changes: dict[str, Any] = {}
        else:
            changes = _diff(system.read.sheet(before, c.actor), system.read.sheet(after, c.actor))
        steps.append(
            {
                "versions": [group[0].v, group[-1].v],
                "action": group[0].action,
                "events": [book.summary(e.event) for e in group],
                "changed": changes,
            }
        )

    def text() -> str:
        out = []
        for s in steps:
            lo, hi = s["versions"]
            span = f"v{lo}" if lo == hi else f"v{lo}-{hi}"
            out.append(f"{span}: " + "; ".join(s["events"]))
            for key, (old, new_value) in s["changed"].items():
                out.append(f"    {key}: {_shown(old)} -> {_shown(new_value)}")
        return "\n".join(out)

    emit(c, steps, text)
    if old_to is not None:  # after the output: a script reading stdout sees no change
        click.echo(_("warning: `replay --to` is now `replay --at`; --to will go away"), err=True)


def _shown(value: Any) -> str:
    """A sheet value as a player reads it: none, a list of words, key=value pairs."""
    if value is None or value == [] or value == {}:
        return _("none")
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return ", ".join(_shown(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_shown(v)}" for k, v in value.items())
    return str(value)


def _diff(old: dict[str, Any], new_value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key in set(old) | set(new_value):
        a, b = old.get(key), new_value.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            changes.update(_diff(a, b, f"{prefix}{key}."))
        else:
            changes[f"{prefix}{key}"] = (a, b)
    return dict(sorted(changes.items()))
