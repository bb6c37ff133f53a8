"""Integrity: walking the chain, exporting and importing campaigns.

``verify`` re-checks every stored event of a branch: its hash over the exact
stored bytes, its version, its ``prev`` link, its kind, its undo and redo
targets, and what it means (``ledger.trust.admission``: the chain is unkeyed, so a
forger can re-seal an edit; the event must still be one the ledger could have
recorded). An export carries the same bytes, so ``import_campaign`` applies the
same checks as the file streams in, and also refuses a file that stops short of
the head recorded in its header.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

import msgspec

from ledger.dice import provable as fairness
from ledger.errors import DuplicateNameError, ImportFileError, LedgerError, TamperError
from ledger.i18n import _
from ledger.log import chain, sealing, snapshots
from ledger.log.events import (
    FORMAT,
    RESETS,
    ActionSealed,
    BranchForked,
    CampaignRegistered,
    DiceCommitted,
    Envelope,
    Event,
    envelope_decoder,
)
from ledger.log.records import Campaign, VerifyReport
from ledger.log.state import CampaignState
from ledger.log.store import SEALED_TABLE
from ledger.systems import get_system
from ledger.text import check_distinct, check_name
from ledger.trust import admission, sharing

if TYPE_CHECKING:
    from ledger.campaign import Ledger
    from ledger.campaign.campaigns import Campaigns
    from ledger.campaign.history import History
    from ledger.log.store import Store

REGISTRY = "registry"


def verify_registry(history: History) -> VerifyReport:
    """Walk the registry's chain; raise TamperError at the first bad event."""
    report = VerifyReport()
    _verify_stream(history, "(registry)", REGISTRY, None, 0, chain.GENESIS, report)
    return report


def verify_campaigns(
    history: History, targets: list[Campaign], report: VerifyReport, held: list[Campaign] | None = None
) -> VerifyReport:
    """Walk the chain of each target campaign, and what each event means, into ``report``;
    raise TamperError at the first bad event. ``held``: every campaign of the ledger (a
    fork's parent named, when its history is not the fork's, is looked up there)."""
    for c in targets:

        def run(shared: bool, c: Campaign = c) -> None:
            _verify_campaign(history, c, report, targets if held is None else held, shared)

        sharing.shared_or_alone(run, history.head(c))
    return report


def _verify_campaign(
    history: History, c: Campaign, report: VerifyReport, held: list[Campaign], shared: bool
) -> None:
    """Walk one campaign's chain and what each event means (``shared``: with a partner
    process deciding most actions again, :mod:`ledger.trust.sharing`)."""
    after, prev, last_reset = 0, chain.GENESIS, 0
    for stream, lo, _hi in c.lineage:
        if stream != c.id:
            continue
        after = lo
        if lo:
            base = history.envelope(c, lo)
            prev = base.hash
            last_reset = lo if isinstance(base.event, RESETS) else base.last_reset
    homes = frozenset(stream for stream, _lo, _hi in c.lineage)
    system = get_system(c.system)
    meaning = admission.Admission(c.name, system, prefix="", homes=homes, lines=False)
    if shared:
        meaning.partner = sharing.Partner(lambda: admission.Admission(c.name, system, homes=homes))
    try:
        snapshots_check = _SnapshotCheck(history, c)
        meaning.watch = snapshots_check
        if after:
            _admit_all(meaning, history.stored(c, 0, after))  # a fork's history before it
        _verify_stream(history, c.name, c.id, c, after, prev, report, last_reset, meaning)
        if meaning.version:
            meaning.finish()
    finally:
        if meaning.partner is not None:
            meaning.partner.stop()
    check_fork_parents(history.store, held, meaning)
    snapshots_check.finish()


def verify_dice(
    book: Ledger, campaign: str | None = None, *, every: bool = False
) -> dict[str, fairness.DiceReport]:
    """Prove the virtual dice of a campaign (or every campaign) from its stored history
    (see ledger.dice.provable.check); seeds revealed on a parent after a fork count too.
    Raises TamperError at the first roll that does not match."""
    targets = book.campaigns() if every else [book.campaign(campaign)]
    reports = {}
    for c in targets:
        decode = envelope_decoder(c.system).decode
        reveals: dict[str, str] = {}
        for stream, _lo, _hi in c.lineage[:-1]:
            reveals.update(fairness.revealed_in(book.store.states(stream), decode))
        history = book.envelopes(c)
        try:
            reports[c.name] = fairness.check(c.name, history, reveals)
        finally:
            history.close()  # a refusal leaves no read open on the store
    return reports


def verify_dice_file(
    data: IO[bytes], file: str | None = None
) -> tuple[admission.Header, fairness.DiceReport]:
    """Prove the virtual dice of an export from the file alone (its chain is checked by
    ``ledger verify FILE`` first)."""
    header, __ = admission.read_header(data)
    decode = envelope_decoder(get_system(header.system).name).decode

    def envelopes() -> Iterator[Envelope[Any]]:
        for v, raw in enumerate(events_of(admission.lines(data), []), start=1):
            try:
                yield decode(raw)
            except msgspec.DecodeError as e:
                raise TamperError(
                    header.name, v, _("the event cannot be read ({problem})", problem=e)
                ) from None

    return header, fairness.check(header.name, envelopes())


def _admit_all(meaning: admission.Admission, rows: Iterator[bytes]) -> None:
    try:
        for raw in rows:
            meaning.admit(bytes(raw))
    finally:
        if isinstance(rows, Generator):
            rows.close()  # a refusal leaves no read open on the store


class _SnapshotCheck:
    """Compares every snapshot cached at a branch's own versions with the state the
    admission folds there (one fold serves both); a disagreement is reported once the
    whole chain and its meaning are found sound."""

    def __init__(self, history: History, c: Campaign) -> None:
        self.history = history
        self.c = c
        self.system = get_system(c.system)
        self.own = c.lineage[-1][1]
        head = history.head(c)
        self.active = head >= snapshots.EVERY and head // snapshots.EVERY * snapshots.EVERY > self.own
        self.wrong: int | None = None

    def __call__(self, env: Envelope[Any], state: CampaignState) -> None:
        if not self.active or env.v % snapshots.EVERY or env.v <= self.own or self.wrong is not None:
            return
        row = self.history.store.snapshot(snapshots.key(self.c.stream_for(env.v), self.system), env.v)
        if row is None or row.originator_version != env.v:
            return
        found = snapshots.decode(row.state)
        if found is None or found[0] != env.hash or found[1] != state:
            self.wrong = env.v

    def finish(self) -> None:
        if self.wrong is not None:
            raise TamperError(
                self.c.name,
                self.wrong,
                _(
                    "the snapshot cached at this version disagrees with the log; the events are intact, delete the rows of the ledger_snapshots table (a cache) and verify again"
                ),
            )


def _verify_stream(
    history: History,
    name: str,
    stream: str,
    c: Campaign | None,
    after: int,
    prev: str,
    report: VerifyReport,
    last_reset: int = 0,
    meaning: admission.Admission | None = None,
) -> None:
    """Check the chain of one stream and, for a campaign, what each event means
    (``ledger.trust.admission``: a forger who re-sealed the chain after an edit is caught
    at the edited event)."""
    decode = envelope_decoder(c.system if c else None).decode

    def fail(v: int, problem: str) -> TamperError:
        if meaning is not None:
            meaning.settle()  # an earlier event's meaning is named before a later broken link
        return TamperError(name, v, problem)

    expected = after + 1
    count = 0
    rows = history.store.rows(stream)
    try:
        for v, topic, state in rows:
            if v != expected:
                raise fail(expected, _("the event is missing (next stored is {version})", version=v))
            problem = chain.check(state)
            if problem:
                raise fail(v, problem)
            try:
                env = decode(state)
            except msgspec.DecodeError as e:
                raise fail(v, _("the event cannot be read ({problem})", problem=e)) from e
            if env.v != v:
                raise fail(v, _("the event says it is version {version} (rows moved)", version=env.v))
            if env.prev != prev:
                raise fail(v, _("it does not follow the event before it (rows removed, inserted or swapped)"))
            if topic != env.event.kind:
                raise fail(v, _("stored kind {topic!r} differs from the event's", topic=topic))
            if c is not None:
                last_reset = _check_reset(name, env, last_reset)
            if meaning is not None:
                meaning.admit_read(bytes(state), env)  # hash checked and decoded above
            prev = env.hash
            expected += 1
            count += 1
    finally:
        rows.close()  # a refusal leaves no read open on the store
    report.checked[name] = count
    report.heads[name] = prev


def _check_reset(name: str, env: Envelope[Any], last_reset: int) -> int:
    """An undo or redo goes back to an earlier version, and every event names the
    latest undo or redo at or before it: the walks over resets always go down."""
    if isinstance(env.event, RESETS):
        if not 0 < env.event.target < env.v:
            raise TamperError(
                name,
                env.v,
                _("its undo or redo target {target} is not an earlier version", target=env.event.target),
            )
        last_reset = env.v
    if env.last_reset != last_reset:
        raise TamperError(
            name,
            env.v,
            _(
                "its last_reset {last_reset} is not the latest undo or redo before it ({expected})",
                last_reset=env.last_reset,
                expected=last_reset,
            ),
        )
    return last_reset


def export(
    history: History,
    out: IO[bytes],
    c: Campaign,
    *,
    sign: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    players: bool = False,
) -> int:
    """Write a campaign's whole branch as JSON lines; returns the event count.

    ``sign`` gives the header its signature (the Ledger signs with its key, see
    ledger.trust.provenance); without it the header goes out unsigned. The GM's export
    then carries the content and salt of each sealed action this ledger holds, a line each
    (:class:`ledger.log.sealing.Carried`); a players' export (``players``) only the
    commitments its events hold."""
    head = history.head(c)
    head_env = history.envelope(c, head)
    header = {
        "format": admission.EXPORT_FORMAT,
        "version": FORMAT,
        "name": c.name,
        "system": c.system,
        "campaign_id": c.id,
        "head": head,
        "head_hash": head_env.hash,
    }
    if sign is not None:
        header = sign(header)
    out.write(json.dumps(header).encode() + b"\n")
    n = 0
    commitments: list[tuple[int, str]] = []
    for raw in history.stored(c):
        out.write(bytes(raw) + b"\n")
        n += 1
        if not players and b'"action.sealed"' in raw:
            ev = history.decode(c, bytes(raw), n).event
            if isinstance(ev, ActionSealed):
                commitments.append((n, ev.commitment))
    for v, commitment in commitments:
        rows = history.store.private_records(SEALED_TABLE, commitment)
        if not rows:
            continue
        held = msgspec.json.decode(bytes(rows[0].state), type=sealing.Kept)
        carried = sealing.Carried(sealed=v, commitment=commitment, content=held.content, salt=held.salt)
        out.write(msgspec.json.encode(carried) + b"\n")
    return n


class _Reread:
    """The event lines of a file, to be read a second time: the first reading keeps them
    (an import keeps every event in memory anyway), the second gives them again, then
    what the first stopped at (a line it could not read, or the rest of the file)."""

    def __init__(self, source: Iterator[bytes]) -> None:
        self.source = source
        self.seen: list[bytes] = []
        self.error: Exception | None = None
        self.reads = 0

    def __call__(self) -> Iterator[bytes]:
        self.reads += 1
        return self._first() if self.reads == 1 else self._again()

    def _first(self) -> Iterator[bytes]:
        seen = self.seen
        try:
            for raw in self.source:
                seen.append(raw)
                yield raw
        except Exception as e:
            self.error = e
            raise

    def _again(self) -> Iterator[bytes]:
        yield from list(self.seen)
        if self.error is not None:
            raise self.error
        yield from self.source


def events_of(raws: Iterator[bytes], carried: list[bytes]) -> Iterator[bytes]:
    """The event lines of an export, the sealed contents a GM's export carries after them
    set aside into ``carried``."""
    for raw in raws:
        if raw.startswith(sealing.CARRIED):
            carried.append(raw)
            continue
        if carried:
            raise ImportFileError(
                _("an event follows the sealed contents at the end of the file; no export is so")
            )
        yield raw


def carried_rows(admit: admission.Admission, carried: list[bytes]) -> list[tuple[str, bytes]]:
    """The sealed contents a GM's export carries, each checked against the ``action.sealed``
    it names (the commitment fixed when it was made): the rows of the GM's store."""
    rows: list[tuple[str, bytes]] = []
    for i, raw in enumerate(carried, start=admit.version + 2):
        try:
            found = msgspec.json.decode(raw, type=sealing.Carried)
        except msgspec.DecodeError as e:
            raise ImportFileError(
                _("line {i} of the import file is no sealed content ({value})", i=i, value=str(e)[:80])
            ) from None
        env = admit.decode(admit.raws[found.sealed - 1]) if 1 <= found.sealed <= admit.version else None
        ev = env.event if env is not None else None
        if not isinstance(ev, ActionSealed) or ev.commitment != found.commitment:
            raise admit.refuse(
                found.sealed, _("the sealed content the file carries for it names another commitment")
            )
        problem = sealing.reveal_problem(ev, found.content, found.salt)
        if problem is not None:
            raise admit.refuse(
                found.sealed, _("the sealed content the file carries for it: {problem}", problem=problem)
            )
        rows.append((found.commitment, msgspec.json.encode(sealing.Kept(found.content, found.salt))))
    return rows


def import_campaign(
    registry: Campaigns | None,
    data: IO[bytes],
    name: str | None = None,
    *,
    signer: Callable[[Mapping[str, Any]], str | None],
    dry_run: bool = False,
) -> Campaign:
    """Import an export after checking its chain, its signature, every event's meaning
    (see ``ledger.trust.admission``) and its dice (``ledger.dice.provable.check``: what ``verify
    --all`` would refuse is refused here); a refused file records nothing. ``signer``
    checks the header's signature and gives the key that signed it, None for an
    unsigned file (``ledger.trust.provenance.check_header``).

    The campaign keeps the id its last events carry, so what is played after the import
    continues the same chain and exports again as one history; a ledger that already
    holds that id (a copy of a campaign it has) stores it as a branch of its own, under
    a new id, which a ``branch.forked`` at the file's head opens. Whenever the file's
    head has a dice commitment open (its seed stays with the ledger that made it), the
    import opens a fresh one of this ledger's, so the campaign plays at once.

    ``dry_run`` checks everything and records nothing (``ledger verify FILE``); the
    campaign returned is then not in the ledger, and ``registry`` may be None."""
    header, fields = admission.read_header(data)
    signed_by = signer(fields)
    new_name = check_name(name if name is not None else header.name, "campaign")
    system = get_system(header.system)
    # An older ledger stored an import under a stream id of its own, the header's, and
    # sealed what was played after it with that id: such an export changes id once, to it.
    homes = frozenset({header.campaign_id})
    carried: list[bytes] = []
    read = _Reread(events_of(admission.lines(data), carried))

    def run(shared: bool) -> admission.Admission:
        share = sharing.IMPORT_SHARE
        admit = admission.Admission(new_name, system, homes=homes, share=share)
        if shared:
            admit.partner = sharing.Partner(
                lambda: admission.Admission(new_name, system, homes=homes, share=share)
            )
        try:
            for raw in read():
                admit.admit(raw)
            admit.check_head(header)
            admit.finish()
        except admission.LineTooLong as e:
            raise admit.refuse(
                e.version,
                _(
                    "the event is longer than {value} MiB; no event of the ledger is",
                    value=admission.MAX_LINE // (1024 * 1024),
                ),
            ) from None
        finally:
            if admit.partner is not None:
                admit.partner.stop()
        return admit

    # Checked with a partner process where one pays; a file it refuses is read again.
    admit = sharing.shared_or_alone(run, header.head)
    sealed_rows = carried_rows(admit, carried)
    if any(fairness.MARKER in raw or b'"nonce":' in raw for raw in admit.raws):  # else no die to prove
        try:
            fairness.check(new_name, (admit.decode(raw) for raw in admit.raws))
        except TamperError as e:
            raise admit.refuse(e.version, e.problem) from None
    if registry is not None:
        check_fork_parents(registry.store, registry.all(), admit)
    if dry_run or registry is None:
        cid = admit.campaign_id
        return Campaign(
            cid, new_name, system.name, imported=True, lineage=((cid, 0, None),), signed_by=signed_by
        )
    held_campaigns = registry.all()
    names = [c.name for c in held_campaigns]
    if new_name in names:  # the name refused as registering it would, before a seed row is written
        raise DuplicateNameError(
            _("a campaign named {new_name!r} exists; choose another name", new_name=new_name)
        )
    check_distinct(new_name, names, "campaign")
    _known_commitments(registry, admit, held_campaigns)
    held = {c.id for c in held_campaigns}
    copy = admit.campaign_id in held or registry.store.head(admit.campaign_id) > 0
    if copy and admit.switched is not None:
        raise LedgerError(
            _(
                "this ledger holds the campaign the file continues from version {switched}, where an older ledger changed its id without a fork; import the file into a ledger that does not hold the campaign",
                switched=admit.switched,
            )
        )
    cid = str(uuid.uuid4()) if copy else admit.campaign_id
    seeded_dice = admit.state.core.seed is not None
    fresh = (
        fairness.new_seed(registry.store, admit.dice_client, cid)
        if admit.dice_open is not None and not seeded_dice
        else None
    )
    kinds = admit.kinds
    rows = [(cid, v, kinds[v - 1], raw) for v, raw in enumerate(admit.raws, start=1)]
    opening: Event | None = None
    if copy:
        opening = BranchForked(
            name=new_name,
            parent_id=admit.campaign_id,
            parent_name=admit.state.core.name,
            at=admit.version,
            commitment=fresh or msgspec.UNSET,
            client_seed=admit.dice_client if fresh else msgspec.UNSET,
        )
    elif fresh is not None:
        opening = DiceCommitted(commitment=fresh, client_seed=admit.dice_client)
    if opening is not None:
        env = Envelope(
            v=admit.version + 1,
            campaign=cid,
            action=chain.new_action(),
            at=chain.now(),
            day=admit.state.core.day,
            last_reset=admit.last_reset,
            prev=admit.prev,
            event=opening,
        )
        raw, __ = chain.seal(env)
        rows.append((cid, env.v, opening.kind, raw))
    if admit.opened:  # a fresh commitment opens only where the file opened one
        fairness.mark_branch(registry.store, cid)  # its dice commitments are in its log
        for commitment in sorted(admit.opened):
            fairness.note_known(registry.store, commitment)
        for commitment in sorted(admit.seeded):  # and the client seeds given after them
            fairness.note_seeded(registry.store, cid, commitment)

    def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
        registered = CampaignRegistered(
            campaign_id=cid, name=new_name, system=system.name, imported=True, signed_by=signed_by
        )
        return registered, rows

    for (
        commitment,
        kept,
    ) in sealed_rows:  # the GM's sealed contents, beside the log (before it: harmless alone)
        registry.store.put_private(SEALED_TABLE, commitment, 1, "sealed", kept)
    registry.register(make)
    return registry.named(new_name)


def check_fork_parents(store: Store, held: list[Campaign], admit: admission.Admission) -> None:
    """A fork names as its parent the campaign whose history it continues. When that
    campaign's events are not before it (a fork of a fork, taken before the middle one
    began), the parent is elsewhere: if this ledger holds a campaign under its id, that
    campaign must hold the event the fork continues from, or the log would tell a
    stranger as its parent (a forged ``parent_id``)."""
    if not admit.parents_elsewhere:
        return
    by_id = {c.id: c for c in held}
    for v, parent_id, at, prev in admit.parents_elsewhere:
        parent = by_id.get(parent_id)
        if parent is None:
            continue  # told as a campaign this ledger does not hold
        try:
            rows = store.read(parent.stream_for(at), gt=at - 1, lte=at)
        except LedgerError:
            rows = []
        if not rows or chain.stored_hash(bytes(rows[0].state)) != prev:
            raise admit.refuse(
                v,
                _(
                    "the fork names as its parent campaign {name!r}, which this ledger holds and whose version {at} is not the event the fork continues: a fork's parent is the campaign whose history comes before it",
                    name=parent.name,
                    at=at,
                ),
            )


def _known_commitments(
    registry: Campaigns, admit: admission.Admission, held_campaigns: list[Campaign]
) -> None:
    """A commitment this ledger made, or an earlier import brought in, comes in again only
    with the very event that opens it here (a copy of a campaign this ledger holds): a
    forged file that reuses one (published by ``dice status``) would have this ledger
    derive dice under a seed it keeps for another campaign, and reveal it."""
    streams: list[str] | None = None
    for commitment, v in admit.opened.items():
        if not fairness.known_here(registry.store, commitment):
            continue
        if streams is None:
            streams = sorted({s for c in held_campaigns for s, lo, hi in c.lineage})
        raw = admit.raws[v - 1]
        if not any(
            bytes(row.state) == raw for s in streams for row in registry.store.read(s, gt=v - 1, lte=v)
        ):
            raise admit.refuse(
                v,
                _(
                    "it opens dice commitment {commitment}, which this ledger already holds for another campaign (a commitment opens once)",
                    commitment=commitment[:16],
                ),
            )
