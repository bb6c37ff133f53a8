"""``ledger new``, ``campaigns``, ``use`` and ``status``: starting a campaign, choosing the one
to act on and who acts in it, and where play stands."""

from __future__ import annotations

from typing import Any

import click

from ledger import docs
from ledger.cli import systems as on_cli
from ledger.cli.options import (
    CommandHelpLater,
    Ctx,
    OptionHelpLater,
    common,
    emit,
    installed_systems,
    key_values,
    pass_ctx,
    typed_campaign,
)
from ledger.cli.root import cli
from ledger.errors import NoCurrentCampaignError
from ledger.i18n import N_, _
from ledger.systems import get_system
from ledger.text import check_name, shell_word

# --- campaigns and characters ------------------------------------------------


def _new_help() -> str:
    return _(
        "Start a campaign NAME of SYSTEM ({systems}).\n\n"
        "It becomes the current campaign (see `ledger use`). Its first dice commitment opens\n"
        "with it (see `ledger dice`), unless --seed or --no-commit.",
        systems=installed_systems(),
    )


@cli.command("new", cls=CommandHelpLater, help=_new_help)
@click.argument("system")
@click.argument("name")
@click.option(
    "--seed", type=int, default=None, help=N_("Make the campaign's dice reproducible (never provable).")
)
@click.option(
    "--no-commit", is_flag=True, help=N_("Open no dice commitment (virtual dice from the OS, unproven).")
)
@click.option(
    "--client-seed", default="", metavar="TEXT", help=N_("The players' part of the first dice commitment.")
)
@click.option(
    "--tables",
    type=click.Path(dir_okay=False),
    default=None,
    help=N_("Your own tables file (TOML) instead of the sample tables."),
)
@click.option(
    "--setting",
    "settings",
    multiple=True,
    metavar="KEY=VALUE",
    cls=OptionHelpLater,
    help=lambda: _(
        "A table ruling where players disagree (repeatable; see {doc}).", doc=docs.path("rulings.md")
    ),
)
@click.option(
    "--explorer",
    "--character",
    "character",
    default=None,
    metavar="NAME",
    help=N_(
        "Its first character, who acts (a solo game's one character), where the system's "
        "`character create` takes only a NAME."
    ),
)
@common
@pass_ctx
def new(
    c: Ctx,
    system: str,
    name: str,
    seed: int | None,
    no_commit: bool,
    client_seed: str,
    tables: str | None,
    settings: tuple[str, ...],
    character: str | None,
) -> None:
    # Refused before the ledger is opened: a mistyped system or name makes no ledger file.
    get_system(system)
    check_name(name, "campaign")
    if character is not None:
        character = _first_character(system, character)
    campaign = c.ledger.new_campaign(
        system,
        name,
        seed=seed,
        tables=tables,
        settings=key_values(settings, "--setting"),
        commit=not no_commit,
        client_seed=client_seed,
    )
    c.ledger.use(campaign.name)
    if character is not None:
        c.ledger.add_character(character, campaign.name)
    chosen = c.ledger.system(campaign)
    if character is None or chosen.rules.solo:
        nxt = on_cli.first_steps(campaign.system)
    else:
        nxt = on_cli.hints(chosen, c.ledger.state(campaign))
    data = {"name": campaign.name, "system": campaign.system, "id": campaign.id, "current": True, "next": nxt}
    if character is not None:
        data["character"] = character
    lines = [_("campaign {name!r} started ({system})", name=campaign.name, system=campaign.system)]
    if character is not None:
        lines.append(_("{character} acts", character=character))
    if nxt:
        lines.append(_("next: {commands}", commands=" | ".join(nxt)))
    emit(c, data, "\n".join(lines))


def _first_character(system: str, name: str) -> str:
    """The name of a campaign's first character, checked before the campaign starts: refused
    where the system's creation takes more than a name (its `character create` does)."""
    found = get_system(system)
    if found.rules.creates is not None and not found.rules.solo:
        raise click.UsageError(
            _(
                "the {system} system creates a character with its own options: start the campaign "
                "without --explorer, then run `ledger character create {name} ...` "
                "(`ledger character create --help` lists them)",
                system=system,
                name=shell_word(name),
            )
        )
    return check_name(name, "character")


@cli.command("campaigns", help=N_("List the campaigns and forks; `*` marks the current one."))
@common
@pass_ctx
def campaigns(c: Ctx) -> None:
    book = c.ledger
    rows = []
    every = book.campaigns()
    current = _current_id(c)
    for camp in every:
        head = book.head(camp)
        rows.append(
            {
                "name": camp.name,
                "system": camp.system,
                "head": head,
                "version": book.effective_version(camp, head),
                "parent": book.campaign_by_id(camp.parent_id).name if camp.parent_id else None,
                "forked_at": camp.parent_version,
                "imported": camp.imported,
                "current": camp.id == current,
            }
        )

    def text() -> str:
        if not rows:
            return _("no campaigns yet; create one with `ledger new SYSTEM NAME`")
        out = []
        for r in rows:
            fork = (
                _("  (fork of {parent} at v{version})", parent=r["parent"], version=r["forked_at"])
                if r["parent"]
                else ""
            )
            mark = "*" if r["current"] else " "
            out.append(f"{mark} {r['name']:<24} {r['system']:<9} {versions(r['head'], r['version'])}{fork}")
        if current is None and len(rows) > 1:
            out.append(_("no current campaign: choose one with `ledger use NAME`"))
        return "\n".join(out)

    emit(c, rows, text)


def versions(head: int, effective: int) -> str:
    """A campaign's version: its head, and after an undo the version its state stands at."""
    if head == effective:
        return f"v{head}"
    return _("head v{head}, effective v{effective}", head=head, effective=effective)


def _current_id(c: Ctx) -> str | None:
    """The current campaign's id, or None when there is none to act on."""
    try:
        return c.ledger.current().id
    except NoCurrentCampaignError:
        return None


@cli.command(
    "use",
    help=N_(
        "Make NAME the current campaign: commands without -c act on it from now on.\n"
        "\n"
        "With --as CHARACTER, make CHARACTER the one who acts in the campaign (NAME, or the\n"
        "current one) from now on: commands without --as act as them. `ledger status` shows both."
    ),
)
@click.argument("name", required=False)
@common
@pass_ctx
def use(c: Ctx, name: str | None) -> None:
    if name is None and c.actor is None:
        raise click.UsageError(_("give a campaign NAME, --as CHARACTER, or both"))
    book = c.ledger
    camp = book.campaign(typed_campaign(name) or name if name is not None else c.campaign)
    acting = book.act_as(c.actor, camp.name) if c.actor is not None else None  # refused: nothing moves
    if name is not None:
        book.use(camp.name)
    lines = (
        [_("now playing {name!r} ({system})", name=camp.name, system=camp.system)] if name is not None else []
    )
    if acting is not None:
        lines.append(_("{character} acts in {name!r}", character=acting, name=camp.name))
    data: dict[str, Any] = {"name": camp.name, "system": camp.system, "current": camp.id == _current_id(c)}
    if acting is not None:
        data["acting"] = acting
    emit(c, data, "\n".join(lines))


@cli.command(
    "status", help=N_("Where you are: the current campaign, its system, character, day, and what comes next.")
)
@common
@pass_ctx
def status(c: Ctx) -> None:
    book = c.ledger
    camp = book.campaign(c.campaign)
    state = book.state(camp)
    acting = book.acting(camp.name, state)
    actor = c.actor or acting
    head = book.head(camp)
    data = {
        "campaign": camp.name,
        "system": camp.system,
        "current": camp.id == _current_id(c),
        "character": actor,
        "acting": acting,
        "characters": list(state.core.characters),
        "day": state.core.day,
        "version": state.core.version,
        "head": head,
        "next": on_cli.hints(book.system(camp), state),
    }

    def text() -> str:
        how = "" if data["current"] else _("  (chosen with -c; the current one is unchanged)")
        where = versions(head, state.core.version)
        lines = [
            _("campaign  {name} ({system}), {version}", name=camp.name, system=camp.system, version=where)
            + how
        ]
        chars = data["characters"]
        if actor is not None:
            others = [n for n in chars if n != actor]
            if others:
                lines.append(_("character {name} (also: {others})", name=actor, others=", ".join(others)))
            else:
                lines.append(_("character {name}", name=actor))
            if actor != acting:
                lines.append(
                    _(
                        "          with --as, for this command only; {who} acts without it",
                        who=acting or _("no one"),
                    )
                )
        elif chars:
            lines.append(
                _(
                    "character none acts of {names}: choose one with `ledger use --as NAME`",
                    names=", ".join(chars),
                )
            )
        if data["day"] is not None:
            lines.append(_("day       {day}", day=data["day"]))
        if data["next"]:
            lines.append(_("next: {commands}", commands=" | ".join(data["next"])))
        return "\n".join(lines)

    emit(c, data, text)
