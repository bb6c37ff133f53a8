"""Integrity: walking the chain, exporting and importing campaigns.

``verify`` re-checks every stored event of a branch: its hash over the exact
stored bytes, its version, its ``prev`` link and its kind. An export carries
the same bytes, so ``import_campaign`` applies the same checks and also
refuses a file that stops short of the head recorded in its header.
"""

from __future__ import annotations

import json
import uuid
from typing import IO, TYPE_CHECKING

import msgspec

from ledger import chain, provenance, snapshots
from ledger.commands import check_name
from ledger.errors import ImportFileError, TamperError
from ledger.events import FORMAT, RESETS, CampaignRegistered, CampaignStarted, envelope_decoder
from ledger.systems import get_system
from projections.core import CampaignState, evolve

if TYPE_CHECKING:
    from ledger.campaign import Campaign, Ledger, VerifyReport

REGISTRY = "registry"
EXPORT_FORMAT = "campaign-ledger-export"


def verify(book: Ledger, campaign: str | None = None, *, every: bool = False) -> VerifyReport:
    """Walk the chain; raise TamperError at the first bad event."""
    from ledger.campaign import VerifyReport

    report = VerifyReport()
    _verify_stream(book, "(registry)", REGISTRY, None, 0, chain.GENESIS, report)
    targets = book.campaigns() if every else [book.campaign(campaign)]
    for c in targets:
        after, prev = 0, chain.GENESIS
        for stream, lo, _hi in c.lineage:
            if stream != c.id:
                continue
            after = lo
            if lo:
                prev = book.envelope(c, lo).hash
        _verify_stream(book, c.name, c.id, c, after, prev, report)
        _verify_snapshots(book, c)
    return report


def _verify_snapshots(book: Ledger, c: Campaign) -> None:
    """Re-fold the branch and compare every snapshot of its own versions."""
    system = book.system(c)
    head = book.head(c)
    own = c.lineage[-1][1]
    if head < snapshots.EVERY or head // snapshots.EVERY * snapshots.EVERY <= own:
        return
    state = CampaignState()
    for env in book.envelopes(c, 0, head):
        if isinstance(env.event, RESETS):
            target = env.event.target
            state = book.state_at(c, target, system, use_snapshots=False) if target else CampaignState()
        else:
            state = evolve(state, env, system)
        if env.v % snapshots.EVERY or env.v <= own:
            continue
        row = book.store.snapshot(snapshots.key(c.stream_for(env.v), system), env.v)
        if row is None or row.originator_version != env.v:
            continue
        found = snapshots.decode(row.state)
        if found is None or found[0] != env.hash or found[1] != state:
            raise TamperError(
                c.name,
                env.v,
                "the snapshot cached at this version disagrees with the log; the events are intact, "
                "delete the rows of the ledger_snapshots table (a cache) and verify again",
            )


def _verify_stream(
    book: Ledger, name: str, stream: str, c: Campaign | None, after: int, prev: str, report: VerifyReport
) -> None:
    decode = envelope_decoder(c.system if c else None).decode
    expected = after + 1
    count = 0
    for row in book.store.scan(stream):
        v = row.originator_version
        if v != expected:
            raise TamperError(name, expected, f"the event is missing (next stored is {v})")
        problem = chain.check(row.state)
        if problem:
            raise TamperError(name, v, problem)
        try:
            env = decode(row.state)
        except msgspec.DecodeError as e:
            raise TamperError(name, v, f"the event cannot be read ({e})") from e
        if env.v != v:
            raise TamperError(name, v, f"the event says it is version {env.v} (rows moved)")
        if env.prev != prev:
            raise TamperError(
                name, v, "it does not follow the event before it (rows removed, inserted or swapped)"
            )
        if row.topic != env.event.kind:
            raise TamperError(name, v, f"stored kind {row.topic!r} differs from the event's")
        prev = env.hash
        expected += 1
        count += 1
    report.checked[name] = count
    report.heads[name] = prev


def export(book: Ledger, out: IO[bytes], campaign: str | None = None, *, sign: bool = True) -> int:
    """Write a campaign's whole branch as JSON lines; returns the event count.

    The header is signed with this ledger's key (see ledger.provenance) unless
    ``sign`` is False."""
    c = book.campaign(campaign)
    head = book.head(c)
    head_env = book.envelope(c, head)
    header = {
        "format": EXPORT_FORMAT,
        "version": FORMAT,
        "name": c.name,
        "system": c.system,
        "campaign_id": c.id,
        "head": head,
        "head_hash": head_env.hash,
    }
    if sign:
        header = provenance.sign(book.store, header)
    out.write(json.dumps(header).encode() + b"\n")
    n = 0
    for raw in book.stored(c):
        out.write(bytes(raw) + b"\n")
        n += 1
    return n


def import_campaign(
    book: Ledger,
    data: IO[bytes],
    name: str | None = None,
    *,
    require_signed: bool = False,
    dry_run: bool = False,
    file: str | None = None,
) -> Campaign:
    """Import an export after verifying its chain and signature; refuses edited files.

    ``dry_run`` checks everything and records nothing (``ledger verify FILE``);
    the campaign returned is then not in the ledger."""
    lines = iter(data)
    try:
        header = json.loads(next(lines))
    except (StopIteration, ValueError, UnicodeDecodeError) as e:
        raise ImportFileError("the import file has no export header; use a file from `ledger export`") from e
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ImportFileError(
            "the import file is not a campaign-ledger export; use a file from `ledger export`"
        )
    if not isinstance(header.get("version"), int) or header["version"] > FORMAT:
        raise ImportFileError(
            f"the export is from a newer format ({header.get('version')}); upgrade campaign-ledger"
        )
    signer = provenance.check_header(book, header, require_signed=require_signed, file=file)
    system = header.get("system")
    sysdef = get_system(str(system))
    new_name = check_name(name or str(header.get("name", "")), "campaign")
    decode = envelope_decoder(sysdef.name).decode
    cid = str(uuid.uuid4())
    rows: list[tuple[str, int, str, bytes]] = []
    prev, v = chain.GENESIS, 0
    for line in lines:
        raw = line.rstrip(b"\r\n")
        if not raw.strip():
            continue
        v += 1
        problem = chain.check(raw)
        if problem:
            raise TamperError(new_name, v, f"import refused: {problem}")
        try:
            env = decode(raw)
        except msgspec.DecodeError as e:
            raise TamperError(new_name, v, f"import refused: the event cannot be read ({e})") from e
        if env.v != v or env.prev != prev:
            raise TamperError(new_name, v, "import refused: events are missing, inserted or reordered")
        if v == 1 and not isinstance(env.event, CampaignStarted):
            raise ImportFileError("the export does not start with a campaign start; it is incomplete")
        rows.append((cid, v, env.event.kind, raw))
        prev = env.hash
    if not rows:
        raise ImportFileError("the import file has no events")
    if header.get("head") != v or header.get("head_hash") != prev:
        raise TamperError(new_name, v, "import refused: the file ends before its recorded head (truncated)")

    if dry_run:
        from ledger.campaign import Campaign

        return Campaign(
            cid, new_name, sysdef.name, imported=True, lineage=((cid, 0, None),), signed_by=signer.key
        )

    def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
        registered = CampaignRegistered(
            campaign_id=cid, name=new_name, system=sysdef.name, imported=True, signed_by=signer.key
        )
        return registered, rows

    book._register(make)
    return book._by_name[new_name]
