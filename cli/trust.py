"""Trust in a log: ``ledger verify`` (the chain, the signatures, the provable dice), ``dice``
(commit, seed, reveal), ``export`` and ``import`` (signed files), and ``key`` (this ledger's
signing key and the keys it trusts)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import click

from ledger import docs
from ledger.cli import fixes
from ledger.cli.options import (
    Ctx,
    GroupHelpLater,
    common,
    emit,
    pass_ctx,
    recorded_json,
)
from ledger.cli.root import cli
from ledger.errors import LedgerError, OutputExistsError
from ledger.i18n import N_, _, n_
from ledger.trust import outfile

# --- integrity -------------------------------------------------------------------


@cli.command(
    "verify",
    help=N_(
        "Walk the hash chain; exit non-zero naming the first bad version.\n"
        "\n"
        "With FILE, check an export without importing it: its chain, its head,\n"
        "every event, and who signed it (FILE may be a pipe, or - for the standard\n"
        "input). --dice (and --all) recompute every virtual die under each revealed\n"
        "dice commitment, and report the rest."
    ),
)
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--all", "every", is_flag=True, help=N_("Verify every campaign in the ledger, dice included."))
@click.option("--dice", "dice", is_flag=True, help=N_("Also prove every virtual die (see `ledger dice`)."))
@click.option(
    "--require-signed", is_flag=True, help=N_("With FILE: fail unless it is signed by a known key.")
)
@common
@pass_ctx
def verify(c: Ctx, file: str | None, every: bool, dice: bool, require_signed: bool) -> None:
    # lazy: a command that reads imports no integrity or provenance, `ledger --help` no
    # ledger.log.store (tests/test_cli_startup.py)
    from ledger.trust import infile, integrity, provenance

    if file is not None:
        # lazy: `ledger --help` imports no ledger.log.store (tests/test_cli_startup.py)
        from ledger.log.store import is_postgres, resolve_target

        if every:
            raise LedgerError(_("give FILE or --all, not both"))
        target = resolve_target(c.db)
        book = c.ledger if is_postgres(target) or Path(target).exists() else None
        with infile.opened(file) as data:  # a pipe is read once, and read again from memory
            found = provenance.verify_file(book, data, file, require_signed=require_signed)
            shown = found.as_dict()
            again = None if infile.is_stream(file) else file  # a pipe's hint names the key itself
            text = _(
                "ok  {file}: {name!r} ({system}), {events}, head {head}; {signer}",
                file=file,
                name=found.name,
                system=found.system,
                events=n_("{n} event", "{n} events", found.head),
                head=found.head_hash[:16],
                signer=found.signer.describe(again, word=fixes.worded),
            )
            if dice:
                data.seek(0)
                _checked, proof = integrity.verify_dice_file(data, file)
                shown["dice"] = proof.as_dict()
                text += "\n" + _dice_lines(found.name, proof)
        emit(c, shown, text)
        return
    if require_signed:
        raise LedgerError(_("--require-signed goes with FILE: ledger verify FILE --require-signed"))
    report = c.ledger.verify(c.campaign, every=every)
    proofs = integrity.verify_dice(c.ledger, c.campaign, every=every) if dice or every else {}
    signers = provenance.of_campaigns(c.ledger, list(report.checked))
    data = {
        "ok": True,
        "checked": report.checked,
        "heads": report.heads,
        "signers": {name: s.as_dict() for name, s in signers.items()},
    }
    if proofs:
        data["dice"] = {name: proof.as_dict() for name, proof in proofs.items()}

    def line(name: str, n: int) -> str:
        came = (
            _("; imported, {signer}", signer=signers[name].describe(word=fixes.worded))
            if name in signers
            else ""
        )
        events = n_("{n} event", "{n} events", n)
        return (
            _(
                "ok  {campaign}: {events}, head {head}",
                campaign=name,
                events=events,
                head=report.heads[name][:16],
            )
            + came
        )

    lines = [line(name, n) for name, n in report.checked.items()]
    lines += [_dice_lines(name, proof) for name, proof in proofs.items()]
    emit(c, data, "\n".join(lines))


def _dice_lines(name: str, proof: Any) -> str:
    warned = "".join(
        "\n" + _("warning  {campaign}: {warning}", campaign=name, warning=w) for w in proof.warnings
    )
    return _("dice  {campaign}: {line}", campaign=name, line=proof.line(spell=fixes.spelled)) + warned


# --- provable dice ---------------------------------------------------------------------


def _dice_help() -> str:
    return _(
        "Provable virtual dice: commit to a secret seed, let the players seed it, roll, reveal (see {doc}).",
        doc=docs.path("dice.md"),
    )


@cli.group("dice", cls=GroupHelpLater, help=_dice_help)
def dice_group() -> None:
    """Provable virtual dice (the help names where the installed docs/dice.md is)."""


@dice_group.command(
    "commit", help=N_("Open a dice commitment: the sha256 of a fresh secret seed goes in the log.")
)
@click.option(
    "--client-seed", default="", metavar="TEXT", help=N_("The players' contribution (default: empty).")
)
@common
@pass_ctx
def dice_commit(c: Ctx, client_seed: str) -> None:
    rec = c.ledger.commit_dice(c.campaign, client_seed=client_seed)
    ev = rec.events[0]
    emit(
        c,
        {**recorded_json(rec), "commitment": ev.commitment},  # type: ignore[attr-defined]
        _(
            "dice committed in {campaign!r}: {commitment}",
            campaign=rec.campaign.name,
            commitment=ev.commitment,
        ),  # type: ignore[attr-defined]
    )


@dice_group.command(
    "seed",
    help=N_(
        "Give the players' client seed TEXT for the open dice commitment.\n"
        "\n"
        "Players choose TEXT after the commitment is published (`ledger dice status`\n"
        "shows it) and before the first virtual die under it: the secret seed was drawn\n"
        "before they chose, so it cannot have been picked to suit the rolls. Every die\n"
        "under the commitment then uses TEXT. Refused once a die has been drawn under\n"
        "it; reveal it (that opens the next one) and seed that one. Not an action:\n"
        "`ledger undo` passes over it."
    ),
)
@click.argument("text")
@common
@pass_ctx
def dice_seed(c: Ctx, text: str) -> None:
    rec = c.ledger.seed_dice(text, c.campaign)
    ev = rec.events[0]
    emit(
        c,
        {**recorded_json(rec), "commitment": ev.commitment, "client_seed": ev.client_seed},  # type: ignore[attr-defined]
        _(
            "dice seeded in {campaign!r}: commitment {commitment}, client seed {seed!r}",
            campaign=rec.campaign.name,
            commitment=ev.commitment[:16],  # type: ignore[attr-defined]
            seed=ev.client_seed,  # type: ignore[attr-defined]
        ),
    )


@dice_group.command(
    "reveal",
    help=N_(
        "Publish the open commitment's seed (every die under it can then be recomputed)\n"
        "and open the next commitment."
    ),
)
@click.option(
    "--client-seed", default=None, metavar="TEXT", help=N_("The players' part of the next commitment.")
)
@common
@pass_ctx
def dice_reveal(c: Ctx, client_seed: str | None) -> None:
    rec = c.ledger.reveal_dice(c.campaign, client_seed=client_seed)
    shown, opened = rec.events
    emit(
        c,
        {
            **recorded_json(rec),
            "revealed": shown.commitment,  # type: ignore[attr-defined]
            "seed": shown.seed,  # type: ignore[attr-defined]
            "commitment": opened.commitment,  # type: ignore[attr-defined]
        },
        _(
            "revealed {commitment}: seed {seed}\ndice committed: {next}",
            commitment=shown.commitment[:16],  # type: ignore[attr-defined]
            seed=shown.seed,  # type: ignore[attr-defined]
            next=opened.commitment,  # type: ignore[attr-defined]
        ),
    )


@dice_group.command(
    "status",
    help=N_(
        "The open dice commitment, its client seed (and whether the players seeded it\n"
        "after it opened), and how many dice were drawn under it."
    ),
)
@common
@pass_ctx
def dice_status(c: Ctx) -> None:
    found = c.ledger.dice_status(c.campaign)

    def text() -> str:
        if found["seeded"]:
            return _(
                "{campaign}: seeded dice (--seed), reproducible, not provable", campaign=found["campaign"]
            )
        if found["commitment"] is None:
            return _(
                "{campaign}: no dice commitment open; virtual dice are unproven (`ledger dice commit`)",
                campaign=found["campaign"],
            )
        where = (
            ""
            if found["seed_here"]
            else _(" (its seed is missing from this ledger's seed table)")
            if found.get("seed_lost")
            else _(" (its seed is in the ledger this campaign came from)")
        )
        client = _(", client seed {seed!r}", seed=found["client_seed"]) if found["client_seed"] else ""
        if found["seeded_at"] is not None:
            client += _(" (seeded after the commitment, v{version})", version=found["seeded_at"])
        elif found["client_seed"]:
            client += _(" (given with the commitment)")
        hint = ""
        if not found["drawn"] and found["seed_here"] and found["seeded_at"] is None:
            hint = _("; players may seed it before the first roll (`ledger dice seed TEXT`)")
        drawn = n_("{n} die drawn", "{n} dice drawn", found["drawn"])
        return _(
            "{campaign}: commitment {commitment}{client}, {drawn}{where}{hint}",
            campaign=found["campaign"],
            commitment=found["commitment"],
            client=client,
            drawn=drawn,
            where=where,
            hint=hint,
        )

    emit(c, found, text)


@cli.command(
    "export",
    help=N_(
        "Write the campaign as JSON lines, with its chain hashes.\n"
        "\n"
        "`ledger export parquet DIR` writes the statistics warehouse's tables as\n"
        "Parquet files instead, partitioned by system, into a new or empty folder\n"
        "(or one an earlier export of this ledger wrote: its tables are replaced). The header is signed with\n"
        "this ledger's key (made on first export; see `ledger key show`). With\n"
        "--json and no -o, one JSON object holds the file's lines (`lines`; joined\n"
        "with line feeds they are the export). The export is the GM's backup: it\n"
        "carries the content of every sealed roll and whisper; give\n"
        "--for-players for a copy that carries their commitments only."
    ),
)
@click.argument("kind", required=False, type=click.Choice(["parquet"]))
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    default="-",
    help=N_("Write to this file (default: standard output)."),
)
@click.option("--unsigned", is_flag=True, help=N_("Leave the header unsigned (no key is made or used)."))
@click.option("--force", is_flag=True, help=N_("With -o: replace the file if it exists."))
@click.option(
    "--for-players",
    "players",
    is_flag=True,
    help=N_("Leave out the sealed rolls' and whispers' contents: the file carries their commitments only."),
)
@common
@pass_ctx
def export(
    c: Ctx, kind: str | None, directory: str | None, output: str, unsigned: bool, force: bool, players: bool
) -> None:
    # lazy: a command that reads imports no provenance, `ledger --help` no ledger.log.store
    # (tests/test_cli_startup.py)
    from ledger.trust import provenance

    if kind == "parquet":
        # lazy: `ledger --help` imports none of the read side (tests/test_cli_startup.py)
        from ledger.projections.warehouse.export import export_parquet

        if not directory:
            raise LedgerError(_("`ledger export parquet` needs a folder: ledger export parquet DIR"))
        files = export_parquet(c.ledger, directory)
        emit(c, {"files": files}, lambda: "\n".join(files) or _("the warehouse is empty"))
        return
    book = c.ledger
    camp = book.campaign(c.campaign)
    sign = not unsigned
    if sign and book.store.read_only and provenance.own_key(book.store, create=False) is None:
        sign = False  # a read-only ledger cannot make its first key
        click.echo(
            _(
                "warning: {ledger} is read-only and has no signing key yet; the export is unsigned",
                ledger=book.store.describe(),
            ),
            err=True,
        )
    if output == "-":
        if c.json:
            buf = io.BytesIO()
            n = book.export(buf, camp.name, sign=sign, players=players)
            lines = buf.getvalue().decode().splitlines()
            emit(c, {"campaign": camp.name, "events": n, "signed": sign, "lines": lines}, "")
            return
        book.export(sys.stdout.buffer, camp.name, sign=sign, players=players)
        sys.stdout.flush()
        return
    protected = outfile.own_files(book.store)
    outfile.check_target(Path(output), protected)
    if os.path.lexists(output) and not force:
        raise OutputExistsError(
            _("{file} exists; give --force to replace it, or another -o FILE", file=output), output
        )
    n = outfile.write_file(
        output,
        lambda out: book.export(out, camp.name, sign=sign, players=players),
        protected=protected,
        replace=force,
    )
    emit(
        c,
        {"campaign": camp.name, "events": n, "file": output, "signed": sign},
        _("exported {events} to {file}", events=n_("{n} event", "{n} events", n), file=output),
    )


@cli.command(
    "import",
    help=N_(
        "Import a campaign from an export, refusing it if any event was edited.\n"
        "\n"
        "Says whether the file was signed by this ledger, a trusted key, an\n"
        "unknown key or nobody; a signature that does not match is refused.\n"
        "FILE may be a pipe (`<(...)`, /dev/stdin, or - for the standard input):\n"
        "it is read whole, once, before anything is recorded."
    ),
)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--name", default=None, help=N_("Import under this name (default: the exported name)."))
@click.option(
    "--require-signed",
    is_flag=True,
    help=N_("Refuse a file unless it is signed by this ledger or a trusted key."),
)
@common
@pass_ctx
def import_(c: Ctx, file: str, name: str | None, require_signed: bool) -> None:
    # lazy: a command that reads imports no admission or provenance, `ledger --help` no
    # ledger.log.store (tests/test_cli_startup.py)
    from ledger.trust import infile, provenance
    from ledger.trust.admission import read_header

    with infile.opened(file) as data:  # a pipe is read once, and read again from memory
        camp = c.ledger.import_(data, name, require_signed=require_signed, file=file)
        data.seek(0)
        given = read_header(data)[0].head  # the file's events (the import may open a commitment after them)
    head = c.ledger.head(camp)
    signer = provenance.of_campaign(c.ledger, camp)
    assert signer is not None
    emit(
        c,
        {"name": camp.name, "system": camp.system, "head": head, "signer": signer.as_dict()},
        _(
            "imported {campaign!r} ({system}, {events}, chain verified); {signer}",
            campaign=camp.name,
            system=camp.system,
            events=n_("{n} event", "{n} events", given),
            signer=signer.describe(None if infile.is_stream(file) else file, word=fixes.worded),
        ),
    )


@cli.group("key", help=N_("This ledger's signing key, and the keys of other ledgers it trusts."))
def key() -> None:
    pass


@key.command(
    "show", help=N_("Print this ledger's public key and its fingerprint (made now if there is none).")
)
@common
@pass_ctx
def key_show(c: Ctx) -> None:
    # lazy: a command that reads imports no provenance, `ledger --help` no ledger.log.store
    # (tests/test_cli_startup.py)
    from ledger.trust import provenance

    own = provenance.own_key(c.ledger.store)
    assert own is not None
    emit(
        c,
        {"fingerprint": own.fingerprint, "public_key": own.key, "created": own.created},
        _("fingerprint {fingerprint}\npublic key  {key}", fingerprint=own.fingerprint, key=own.key),
    )


@key.command(
    "trust",
    help=N_("Trust the key that signed an export FILE, or a public key as `ledger key show` prints it."),
)
@click.argument("source", metavar="FILE_OR_KEY")
@click.option("--name", default=None, help=N_("Whose key it is (default: the export's campaign name)."))
@common
@pass_ctx
def key_trust(c: Ctx, source: str, name: str | None) -> None:
    # lazy: a command that reads imports no provenance, `ledger --help` no ledger.log.store
    # (tests/test_cli_startup.py)
    from ledger.trust import provenance

    found, suggested = provenance.key_from(source)
    name = name or suggested
    if name is None:
        raise LedgerError(_("say whose key it is: ledger key trust KEY --name NAME"))
    trusted = provenance.trust(c.ledger.store, found, name)
    emit(
        c,
        {"name": trusted.name, "fingerprint": trusted.fingerprint, "public_key": trusted.key},
        _("trusted key {name!r} ({fingerprint})", name=trusted.name, fingerprint=trusted.fingerprint),
    )


@key.command(
    "forget", help=N_("Stop trusting a key; campaigns it signed then verify as signed by an unknown key.")
)
@click.argument("who", metavar="NAME_OR_FINGERPRINT")
@common
@pass_ctx
def key_forget(c: Ctx, who: str) -> None:
    # lazy: a command that reads imports no provenance, `ledger --help` no ledger.log.store
    # (tests/test_cli_startup.py)
    from ledger.trust import provenance

    gone = provenance.forget(c.ledger.store, who)
    emit(
        c,
        {"name": gone.name, "fingerprint": gone.fingerprint},
        _("no longer trusted: {name!r} ({fingerprint})", name=gone.name, fingerprint=gone.fingerprint),
    )


@key.command("list", help=N_("This ledger's own key and every trusted one."))
@common
@pass_ctx
def key_list(c: Ctx) -> None:
    # lazy: a command that reads imports no provenance, `ledger --help` no ledger.log.store
    # (tests/test_cli_startup.py)
    from ledger.trust import provenance

    own = provenance.own_key(c.ledger.store, create=False)
    trusted = provenance.trusted_keys(c.ledger.store)
    rows = (
        [{"name": None, "own": True, "fingerprint": own.fingerprint, "public_key": own.key}] if own else []
    ) + [{"name": k.name, "own": False, "fingerprint": k.fingerprint, "public_key": k.key} for k in trusted]

    def text() -> str:
        lines = (
            [_("{fingerprint}  (this ledger)", fingerprint=own.fingerprint)]
            if own
            else [_("no key yet (made on first export or `ledger key show`)")]
        )
        lines += [f"{k.fingerprint}  {k.name}" for k in trusted]
        return "\n".join(lines)

    emit(c, rows, text)
