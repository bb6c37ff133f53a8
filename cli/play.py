"""Playing a campaign with the core's commands: ``ledger character`` (add, create), ``roll``
and ``note``."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import click

from ledger.cli.create import CharacterCreate
from ledger.cli.options import (
    Ctx,
    common,
    emit,
    emit_sealed,
    faces_option,
    key_values,
    pass_ctx,
    recorded_json,
)
from ledger.cli.options import faces as parse_faces
from ledger.cli.root import cli
from ledger.cli.translated import Command
from ledger.errors import LedgerError
from ledger.i18n import N_, _


@cli.group("character", help=N_("Manage the campaign's characters: `character create NAME` in every system."))
def character() -> None:
    pass


@character.command(
    "add",
    help=N_("Add a character NAME to the campaign, its --attr checked as `character create` checks them."),
)
@click.argument("name")
@click.option("--attr", "attrs", multiple=True, metavar="KEY=VALUE", help=N_("An attribute (repeatable)."))
@common
@pass_ctx
def character_add(c: Ctx, name: str, attrs: tuple[str, ...]) -> None:
    rec = c.ledger.create_character(name, c.campaign, key_values(attrs, "--attr"))
    emit(c, recorded_json(rec), _("{name} joins {campaign!r}", name=name, campaign=rec.campaign.name))


character.add_command(CharacterCreate(core=character_add))
"""``character create`` runs the system's own creation command (its group's ``create``),
else the core's ``character add``."""


# --- dice and notes ----------------------------------------------------------


class NotationCommand(Command):
    """A command whose arguments are dice notation: one that starts with a minus
    (``ledger roll -1d4+5``) is notation, not an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            return super().parse_args(ctx, args)
        takes_value = {
            name for p in self.params if isinstance(p, click.Option) and not p.is_flag for name in p.opts
        }
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            if NEGATIVE_NOTATION.match(arg):
                words.append(arg)
            elif arg.startswith("-"):
                options.append(arg)
                if arg in takes_value:
                    value = next(rest, None)
                    if value is not None:
                        options.append(value)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words] if words else options)


NEGATIVE_NOTATION = re.compile(r"-(\d|[dD](\d|%|[fF])|\(|\{|(floor|ceil|round|abs)\()")
"""An argument that is dice notation with a leading minus, not an option."""
REDIRECTED = re.compile(r"[<>=]{0,2}\d+")
"""A file the shell made of the end of ``3d6>=5`` (``=5``) or ``3d6>5`` (``5``)."""
JUST_MADE = 10.0
"""Seconds within which such a file counts as just made by the shell."""


def _redirect_accident(formula: Any) -> str | None:
    """The file a shell likely made of a notation's ``>``: the notation is one plain dice
    group, and a file named like ``=5`` or ``5`` is stdout or was written seconds ago."""
    # lazy: `ledger --help` imports no dice (tests/test_cli_startup.py)
    from ledger.dice.notation import DiceTerm

    if formula.check is not None or not isinstance(formula.root, DiceTerm) or formula.root.success:
        return None
    try:
        out = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        out = None
    now = time.time()
    try:
        entries = [e for e in Path(".").iterdir() if REDIRECTED.fullmatch(e.name) and e.is_file()]
    except OSError:  # an unreadable folder: nothing to say
        return None
    for entry in entries:
        try:
            st = entry.stat()
        except OSError:
            continue
        if (
            out is not None and (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)
        ) or now - st.st_mtime < JUST_MADE:
            return entry.name
    return None


@cli.command(
    "roll",
    cls=NotationCommand,
    help=N_(
        "Roll dice NOTATION: 2d6+1, 4d6kh3, 4d6dl1, '3d6!' (exploding), '5d6!!' (compounding), 2d6r1,\n"
        "1d20mi10, '8d6>=5' (counts dice), '1d20+5>=15' (checks the total), 4dF, '(1d6+2)*3',\n"
        "'1d8[fire]', '{1d20,1d20}kh1'. Quote the notation: a shell reads > < ( ) ! [ ] { } * itself\n"
        "(unquoted, 3d6>=5 rolls 3d6 into a file named =5). Words after it are the label:\n"
        "ledger roll 1d20+5 attack."
    ),
)
@click.argument("notation", nargs=-1, required=True)
@faces_option
@click.option(
    "--label", default="", help=N_("What the roll was for (default: the words after the notation).")
)
@common
@pass_ctx
def roll(c: Ctx, notation: tuple[str, ...], faces: str | None, label: str) -> None:
    # lazy: `ledger --help` imports no dice (tests/test_cli_startup.py)
    from ledger.dice.notation import parse
    from ledger.dice.sources import render

    text = " ".join(notation)
    formula = parse(text)  # refuses bad notation before anything is opened
    if formula.comment and not label:
        label = formula.comment
    rec = c.ledger.roll(
        text, c.campaign, label=label, faces=parse_faces(faces), actor=c.actor, visibility=c.visibility
    )
    if emit_sealed(c, rec):
        return
    result = rec.events[0].result  # type: ignore[attr-defined]
    label = rec.events[0].label  # type: ignore[attr-defined]  # as stored: stripped, NFC
    who = f"{rec.envelopes[0].actor}: " if rec.envelopes[0].actor else ""
    made = _redirect_accident(formula)
    if made is not None:
        click.echo(
            _(
                "warning: the shell took '>' in the notation as a redirection and wrote the file {file!r}; "
                "recorded {notation}. Quote the notation: ledger roll '{notation}>{file}'",
                file=made,
                notation=result.notation,
            ),
            err=True,
        )
    emit(c, recorded_json(rec), f"{who}{label + ': ' if label else ''}{render(result)}")


@cli.command("note", help=N_("Record a journal line; with --to, a whisper, sealed from every other seat."))
@click.argument("text")
@click.option(
    "--to",
    "to",
    multiple=True,
    metavar="NAME",
    help=N_("Whisper it to this character (repeatable): only they and the GM read it."),
)
@common
@pass_ctx
def note(c: Ctx, text: str, to: tuple[str, ...]) -> None:
    rec = c.ledger.note(text, c.campaign, actor=c.actor, to=to)
    told = (
        _("whispered (v{version})", version=rec.version)
        if to
        else _("noted (v{version})", version=rec.version)
    )
    emit(c, recorded_json(rec), told)


@cli.command(
    "reveal",
    help=N_(
        "Reveal the sealed roll or whisper at VERSION (or --all sealed rolls): its content and\n"
        "salt go into the log, where anyone checks them against the commitment made with it."
    ),
)
@click.argument("version", type=int, required=False)
@click.option("--all", "every", is_flag=True, help=N_("Reveal every sealed roll not revealed yet."))
@common
@pass_ctx
def reveal(c: Ctx, version: int | None, every: bool) -> None:
    if (version is None) == (not every):
        raise LedgerError(_("give a VERSION or --all, not both: ledger reveal 12, ledger reveal --all"))
    rec = c.ledger.reveal(c.campaign, None if every else version)
    lines = [e.event.summary() for e in rec.envelopes]
    emit(c, recorded_json(rec), "\n".join(lines))
