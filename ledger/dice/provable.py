"""Provable virtual dice: commit to a secret seed before the rolls, reveal it after.

While a commitment is open on a branch, every virtual die is derived from the
commitment's secret 32-byte server seed, the players' client seed, the branch
(the campaign id sealed in the roll's envelope) and the die's number under the
commitment, its *nonce* (:func:`ledger.dice.sources.committed_face`, stated in
docs/dice.md). The log records the commitment (sha256 of the seed) when it
opens, and the seed when it is revealed; in between the seed lives in the
store's ``ledger_seeds`` table, which no export, log or warehouse reads.

Nonces only go up: the next one is the count of virtual dice drawn under the
commitment in the branch's whole stored history, undone actions included, read
from the log itself. Two writers that decide at the same head draw the same
nonces, but only one append wins the version; the other decides again on the
new head, with the next nonces. A counter kept beside the seed could not be
written in the same transaction as the events, so it is not kept.

The players may give their client seed after the commitment is published and before
any die is drawn under it (``dice.seeded``): the server seed was drawn before they chose
it, so it cannot have been picked to suit the first rolls. From then on the dice under
that commitment use the seeded client seed.

A fork opens its own commitment (a fresh seed) when its parent had one open:
revealing the fork's seed then tells nothing about the parent's next roll,
and the fork's dice are derived from another seed and another branch id.

:func:`check` walks a branch's stored history (a ledger's, or an export's
lines) and proves every virtual die under each revealed commitment.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, Literal

import msgspec

from ledger.dice.sources import Dice, committed_face
from ledger.errors import LedgerError, RunCommand, StoreError, TamperError, named
from ledger.i18n import _, n_
from ledger.log.events import (
    ActionRevealed,
    ActionSealed,
    BranchForked,
    CampaignStarted,
    Decision,
    DiceCommitted,
    DiceRevealed,
    DiceSeeded,
    Envelope,
    Rolled,
    RollResult,
)
from ledger.log.store import Store
from ledger.text import check_text, nfc

SEED_STREAM = "dice-seed:"
BRANCH_STREAM = "dice-branch:"
"""A record per branch on which a commitment was ever opened (or imported): a branch
without one has none, and its first roll need not look for one in its log."""
KNOWN_STREAM = "dice-known:"
"""A record per commitment an import brought in (its seed is elsewhere): an import that
opens one already known here must hold the very event this ledger stores."""
SEEDED_STREAM = "dice-seeded:"
"""A record per branch and commitment that may have been seeded (written before its
``dice.seeded`` is appended, or when an import brings one): only such a commitment's
client seed is looked for in the log behind its latest die."""
MARKER = b'"commitment":'
"""Present in the stored bytes of every event or decision that opens, closes or draws
under a commitment (as a key: a quote inside text is always escaped)."""
REVEALED = b'"dice.revealed"'
SEEDED = b'"dice.seeded"'
CLIENT_SEED_LIMIT = 200
HEX64 = re.compile(r"[0-9a-f]{64}")

Mark = Literal["proven", "pending", "physical", "seeded", "unproven", "none"]


def check_client_seed(text: str) -> str:
    """The players' contribution: one printable line of at most 200 characters (NFC)."""
    return check_text(nfc(text), "`client_seed`", CLIENT_SEED_LIMIT, field="client_seed")


def check_seeding(text: str) -> str:
    """A client seed given after the commitment: a client seed, and not empty."""
    given = check_client_seed(text)
    if not given:
        raise LedgerError(
            _("`client_seed` is empty; the players' client seed is the text they choose"),
            field="client_seed",
        )
    return given


def commitment_of(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


# --- the seed table -----------------------------------------------------------------


def new_seed(store: Store, client_seed: str, branch: str) -> str:
    """Draw a secret server seed for a commitment about to open on ``branch``, keep it
    in the seed table, and return its commitment."""
    seed = secrets.token_bytes(32)
    commitment = commitment_of(seed)
    record = {
        "seed": seed.hex(),
        "client_seed": client_seed,
        "branch": branch,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    try:
        mark_branch(store, branch)
        store.put_seed(SEED_STREAM + commitment, json.dumps(record).encode())
    except StoreError as e:
        raise StoreError(
            _("{problem}; the dice seed could not be kept, nothing was recorded", problem=e.message)
        ) from e
    return commitment


def _note(store: Store, key: str) -> None:
    """An empty row of the seed table under ``key`` (a note), unless one is there."""
    if store.seed_record(key) is None:
        store.put_seed(key, b"{}", exist_ok=True)


def mark_branch(store: Store, branch: str) -> None:
    """Note that ``branch`` has (or will have) commitments in its log."""
    _note(store, BRANCH_STREAM + branch)


def note_seeded(store: Store, branch: str, commitment: str) -> None:
    """Note that ``commitment`` may be seeded in ``branch``'s log (see :data:`SEEDED_STREAM`)."""
    _note(store, f"{SEEDED_STREAM}{branch}:{commitment}")


def note_known(store: Store, commitment: str) -> None:
    """Note that an import brought in ``commitment`` (see :data:`KNOWN_STREAM`)."""
    _note(store, KNOWN_STREAM + commitment)


def known_here(store: Store, commitment: str) -> bool:
    """Whether this ledger made ``commitment`` or an import brought it in."""
    return any(store.seed_record(key + commitment) is not None for key in (SEED_STREAM, KNOWN_STREAM))


def load_seed(store: Store, commitment: str, branch: str | None = None) -> tuple[bytes, str] | None:
    """The seed and client seed of a commitment made by this ledger (for ``branch``,
    when given: a seed drawn for one branch never serves another); None when this
    store does not hold it (a commitment made by the ledger a campaign came from)."""
    raw = store.seed_record(SEED_STREAM + commitment)
    if raw is None:
        return None
    record = json.loads(raw)
    seed = bytes.fromhex(record["seed"])
    if commitment_of(seed) != commitment:
        raise StoreError(
            _("the seed kept for dice commitment {commitment} does not match it", commitment=commitment[:16])
        )
    if branch is not None and record.get("branch", branch) != branch:
        return None  # drawn for another branch (seeds kept before branches were noted serve any)
    return seed, str(record.get("client_seed", ""))


# --- the open commitment of a branch -------------------------------------------------


class DiceStatus(msgspec.Struct, frozen=True):
    """A branch's dice at its head: the open commitment, if any, and the next nonce."""

    branch: str
    commitment: str | None = None
    next_nonce: int = 0
    seed: bytes | None = None
    """None while a commitment is open whose seed this store does not hold."""
    client_seed: str = ""
    """The client seed its dice use: the commitment's, or the one seeded after it."""
    seeded_at: int | None = None
    """The version of the ``dice.seeded`` that gave the client seed; None when it came
    with the commitment."""
    lost: bool = False
    """The seed table lost this branch's rows: its log opens commitments, the table does
    not note the branch (the seed of the open one is then missing, not elsewhere)."""

    def __repr__(self) -> str:  # the seed of an open commitment is never printed
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__ if name != "seed"
        )
        return f"DiceStatus({shown})"

    def opened(self, store: Store, commitment: str | None) -> DiceStatus:
        if commitment is None:
            return DiceStatus(self.branch)
        found = load_seed(store, commitment, self.branch)
        seed, client = found if found else (None, "")
        return DiceStatus(self.branch, commitment, 0, seed, client, lost=self.lost)

    def seeded(self, ev: DiceSeeded, version: int) -> DiceStatus:
        """The status after ``ev`` (recorded only for the open commitment, before a die)."""
        if ev.commitment != self.commitment:  # pragma: no cover - the ledger never records this
            return self
        return msgspec.structs.replace(self, client_seed=ev.client_seed, seeded_at=version)


def draw_of(env: Envelope[Any]) -> tuple[str, int, int] | None:
    """The dice an event drew under a commitment: the commitment, the first nonce and how
    many; from its decision, or from an ``action.sealed`` (whose faces are sealed, but
    not their number); None when it drew none under one."""
    how = env.decision
    if how is not None and how.commitment is not None and how.nonce is not None:
        return how.commitment, how.nonce, len(how.faces)
    ev = env.event
    if isinstance(ev, ActionSealed) and ev.dice is not None and ev.nonce is not None:
        return ev.dice, ev.nonce, ev.drawn
    return None


class _Opened(msgspec.Struct):
    decision: Decision | None = None


def revealed_decision(content: str) -> Decision | None:
    """The decision a revealed sealed content holds (None when it holds none, or cannot be read)."""
    try:
        return msgspec.json.decode(content, type=_Opened).decision
    except msgspec.DecodeError:
        return None


def advance(status: DiceStatus, envs: Iterable[Envelope[Any]], store: Store) -> DiceStatus:
    """The status after ``envs``, appended to the branch in order."""
    for env in envs:
        ev = env.event
        drew = draw_of(env)
        if drew is not None:
            commitment, nonce, count = drew
            if status.commitment != commitment:  # pragma: no cover - the ledger never does this
                status = status.opened(store, commitment)
            status = msgspec.structs.replace(status, next_nonce=nonce + count)
        if isinstance(ev, DiceRevealed):
            status = DiceStatus(status.branch)
        elif isinstance(ev, DiceSeeded):
            status = status.seeded(ev, env.v)
        elif isinstance(ev, DiceCommitted | CampaignStarted | BranchForked):
            status = status.opened(store, ev.opens()[0])
    return status


def status_at(
    store: Store, stream: str, after: int, version: int, decode: Callable[[bytes], Envelope[Any]]
) -> DiceStatus:
    """The dice status of branch ``stream`` (its own versions after ``after``) at
    ``version``, read backwards from it to the latest die drawn or commitment opened.

    A fork's own stream starts with its ``branch.forked`` event, which opens the fork's
    own commitment or none: the parent's history never needs to be read."""
    blank = DiceStatus(stream)
    if store.seed_record(BRANCH_STREAM + stream) is None:
        # No note: no commitment was ever opened on this branch, unless the seed table
        # lost its rows; a branch whose first own event opens one still says so.
        first = store.marked(stream, after, after + 1, MARKER, 1)
        opener = getattr(decode(first[0][1]).event, "opens", None) if first else None
        if opener is None or opener()[0] is None:
            return blank
        blank = DiceStatus(stream, lost=True)
    top = version
    while top > after:
        rows = store.marked(stream, after, top, MARKER, 16)
        if not rows:
            break
        for v, raw in rows:
            env = decode(raw)
            drew = draw_of(env)
            if drew is not None:
                commitment, nonce, count = drew
                found = _seeding(store, stream, after, v, commitment, decode)
                if found is None:
                    found = blank.opened(store, commitment)
                return msgspec.structs.replace(found, next_nonce=nonce + count)
            ev = env.event
            if isinstance(ev, DiceRevealed):
                return blank
            if isinstance(ev, DiceSeeded):
                return blank.opened(store, ev.commitment).seeded(ev, v)
            if isinstance(ev, DiceCommitted | CampaignStarted | BranchForked):
                return blank.opened(store, ev.opens()[0])
        top = rows[-1][0] - 1  # only text that looks like the marker (an attribute's name)
    return blank


def _seeding(
    store: Store,
    stream: str,
    after: int,
    before: int,
    commitment: str,
    decode: Callable[[bytes], Envelope[Any]],
) -> DiceStatus | None:
    """The status right after ``commitment`` was seeded in ``stream`` (its own versions
    in (after, before)), or None when it was not: only a commitment noted as seeded is
    looked for. The latest ``dice.seeded`` before a die under it is its own, if any (a
    commitment is seeded only while it is open, before its first die)."""
    if store.seed_record(f"{SEEDED_STREAM}{stream}:{commitment}") is None:
        return None
    top = before - 1
    while top > after:
        rows = store.marked(stream, after, top, SEEDED, 16)
        if not rows:
            break
        for v, raw in rows:
            ev = decode(raw).event
            if isinstance(ev, DiceSeeded):
                if ev.commitment != commitment:
                    return None
                return DiceStatus(stream).opened(store, commitment).seeded(ev, v)
        top = rows[-1][0] - 1
    return None


# --- proving a branch's dice ------------------------------------------------------------


class Commitment(msgspec.Struct):
    commitment: str
    branch: str
    client_seed: str
    opened: int
    next_nonce: int = 0
    seeded: int | None = None
    """The version of the ``dice.seeded`` that gave ``client_seed``, if one did."""
    seed: bytes | None = None
    revealed: int | None = None
    closed: str = ""
    """Why it stopped being open without a reveal here: "fork" or "replaced"."""
    rolls: list[tuple[Envelope[Any], int]] = msgspec.field(default_factory=list)
    """Each action that drew under it, with its position in the history read."""


class DiceReport(msgspec.Struct):
    """What ``ledger verify --dice`` found on one branch."""

    campaign: str
    proven: int = 0
    """Virtual dice recomputed from a revealed seed."""
    pending: int = 0
    """Virtual dice under a commitment not revealed (yet)."""
    physical: int = 0
    seeded: int = 0
    """Dice of a ``--seed`` campaign: reproducible, not provable."""
    unproven: int = 0
    """Virtual dice drawn with no commitment open (or recorded before commitments)."""
    commitments: list[dict[str, Any]] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    marks: dict[int, Mark] = msgspec.field(default_factory=dict)
    """Per version whose action drew dice: proven, pending, physical, seeded or unproven."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "proven": self.proven,
            "pending": self.pending,
            "physical": self.physical,
            "seeded": self.seeded,
            "unproven": self.unproven,
            "commitments": self.commitments,
            "warnings": self.warnings,
        }

    def line(self, *, spell: Callable[[str], str] = named) -> str:
        """One line of counts; ``spell`` names an input (``seed``) in the reader's words."""
        parts = [n_("{n} die proven", "{n} dice proven", self.proven)]
        for n, what in (
            (
                self.pending,
                n_(
                    "{n} pending (commitment not revealed)",
                    "{n} pending (commitment not revealed)",
                    self.pending,
                ),
            ),
            (self.physical, n_("{n} physical", "{n} physical", self.physical)),
            (
                self.seeded,
                n_(
                    "{n} seeded ({seed}, not provable)",
                    "{n} seeded ({seed}, not provable)",
                    self.seeded,
                    seed=spell("seed"),
                ),
            ),
            (
                self.unproven,
                n_("{n} virtual without a commitment", "{n} virtual without a commitment", self.unproven),
            ),
        ):
            if n:
                parts.append(what)
        return ", ".join(parts)


def drawn_under(
    name: str, env: Envelope[Any], open_: Commitment | None, commitment: str, nonce: int | None, told: str
) -> Commitment:
    """The open commitment dice recorded at ``env`` were drawn under, checked: the one they
    name (``told``: "its dice", "its sealed dice"), of their own branch, their first die
    the number that comes next."""
    if nonce is None or open_ is None or commitment != open_.commitment:
        raise TamperError(
            name,
            env.v,
            _(
                "{told} name commitment {commitment}, which is not the open one",
                told=told,
                commitment=commitment[:16],
            ),
        )
    if env.campaign != open_.branch:
        raise TamperError(name, env.v, _("its dice were drawn under another branch's commitment"))
    if nonce != open_.next_nonce:
        raise TamperError(
            name,
            env.v,
            _(
                "its first die is number {nonce} under commitment {commitment}, "
                "where {next} comes next (a gap or a repeat)",
                nonce=nonce,
                commitment=commitment[:16],
                next=open_.next_nonce,
            ),
        )
    return open_


def check(
    name: str,
    envelopes: Iterable[Envelope[Any]],
    reveals: dict[str, str] | None = None,
) -> DiceReport:
    """Prove every virtual die of a branch's stored history (in stored order, undone
    actions included): each revealed seed hashes to its commitment, every die under it
    is the face the derivation gives, and the nonces under each commitment run from 0
    without gaps or repeats. ``reveals`` adds seeds revealed outside this history (on a
    parent branch, after a fork). Raises :class:`TamperError` at the first roll that
    does not match; a commitment replaced without a reveal is a warning."""
    report = DiceReport(name)
    known: dict[str, Commitment] = {}
    open_: Commitment | None = None
    seeded = False

    def opening(env: Envelope[Any], commitment: str | None, client_seed: str) -> Commitment | None:
        if commitment is None:
            return None
        problem = opening_problem(commitment, client_seed)
        if problem is not None:
            raise TamperError(name, env.v, problem)
        if commitment in known:
            raise TamperError(
                name,
                env.v,
                _("it opens dice commitment {commitment} a second time", commitment=commitment[:16]),
            )
        made = Commitment(commitment, env.campaign, client_seed, env.v)
        known[commitment] = made
        return made

    sealed: dict[int, tuple[Commitment, Envelope[Any]]] = {}
    """Each sealed roll drawn under a commitment, by version, until it is revealed."""
    for env in envelopes:
        ev = env.event
        if isinstance(ev, ActionSealed) and ev.dice is not None:
            open_ = drawn_under(name, env, open_, ev.dice, ev.nonce, _("its sealed dice"))
            open_.next_nonce += ev.drawn
            sealed[env.v] = (open_, env)
            report.pending += ev.drawn
            report.marks[env.v] = "sealed"
            continue
        if isinstance(ev, ActionRevealed) and ev.sealed in sealed:
            made, at = sealed.pop(ev.sealed)
            held: ActionSealed = at.event
            how = revealed_decision(ev.content)
            if (
                how is None
                or how.commitment != held.dice
                or how.nonce != held.nonce
                or len(how.faces) != held.drawn
                or len(how.sides) != held.drawn
            ):
                raise TamperError(
                    name,
                    env.v,
                    _(
                        "its revealed dice are not the {drawn} drawn at version {version}",
                        drawn=held.drawn,
                        version=ev.sealed,
                    ),
                )
            report.pending -= held.drawn
            made.rolls.append((msgspec.structs.replace(at, decision=how), 0))
            continue
        if isinstance(ev, CampaignStarted):
            seeded = ev.seed is not None
            open_ = opening(env, *ev.opens())
        elif isinstance(ev, BranchForked):
            if open_ is not None:
                open_.closed = "fork"
            open_ = opening(env, *ev.opens())
        elif isinstance(ev, DiceCommitted):
            if open_ is not None:
                open_.closed = "replaced"
                report.warnings.append(
                    _(
                        "version {version} opens dice commitment {commitment} while "
                        "{open} (v{opened}) was open and never revealed: "
                        "its dice can never be proven",
                        version=env.v,
                        commitment=ev.commitment[:16],
                        open=open_.commitment[:16],
                        opened=open_.opened,
                    )
                )
            open_ = opening(env, ev.commitment, ev.client_seed)
        elif isinstance(ev, DiceSeeded):
            problem = seeding_problem(
                ev, open_.commitment if open_ else None, open_.next_nonce if open_ else 0
            )
            if problem is not None or open_ is None:
                raise TamperError(name, env.v, problem or "")
            open_.client_seed = ev.client_seed
            open_.seeded = env.v
        elif isinstance(ev, DiceRevealed):
            problem = reveal_problem(ev, open_.commitment if open_ else None)
            if problem is not None or open_ is None:
                raise TamperError(name, env.v, problem or "")
            open_.seed = bytes.fromhex(ev.seed)
            open_.revealed = env.v
            open_ = None
        how = env.decision
        if how is None or not how.faces:
            continue
        if isinstance(ev, Rolled) and how.commitment is not None and shown_faces(ev.result) != how.faces:
            raise TamperError(
                name,
                env.v,
                _(
                    "the roll it shows [{faces}] is not the dice its decision draws under the commitment",
                    faces=",".join(map(str, ev.result.faces()[:20])),
                ),
            )
        if how.manual:
            report.physical += len(how.faces)
            report.marks[env.v] = "physical"
            if how.commitment is not None or how.nonce is not None:
                raise TamperError(name, env.v, _("its physical dice carry a dice nonce"))
            continue
        if how.commitment is None:
            if seeded:
                report.seeded += len(how.faces)
                report.marks[env.v] = "seeded"
            elif open_ is not None:
                raise TamperError(
                    name,
                    env.v,
                    _(
                        "its virtual dice were drawn while dice commitment {commitment} was open, "
                        "but not derived from it",
                        commitment=open_.commitment[:16],
                    ),
                )
            else:
                report.unproven += len(how.faces)
                report.marks[env.v] = "unproven"
            continue
        open_ = drawn_under(name, env, open_, how.commitment, how.nonce, _("its dice"))
        if len(how.sides) != len(how.faces):
            raise TamperError(name, env.v, _("its dice record a number of sides for each face, and do not"))
        open_.next_nonce += len(how.faces)
        open_.rolls.append((env, 0))
    for made in known.values():
        if made.seed is None and reveals and made.commitment in reveals:
            made.seed = bytes.fromhex(reveals[made.commitment])
        _prove(name, made, report)
    return report


def shown_faces(result: RollResult) -> tuple[int, ...]:
    """The die faces a recorded roll shows, as drawn (a Fate die as its d3 face)."""
    return tuple(d.face for g in result.groups for d in g.dice)


def _prove(name: str, made: Commitment, report: DiceReport) -> None:
    dice = sum(len(env.decision.faces) for env, _ in made.rolls)
    state = "revealed" if made.seed is not None else "open" if not made.closed else made.closed
    report.commitments.append(
        {
            "commitment": made.commitment,
            "opened": made.opened,
            "revealed": made.revealed,
            "client_seed": made.client_seed,
            "seeded": made.seeded,
            "dice": dice,
            "state": state,
        }
    )
    for env, _nonce in made.rolls:
        how = env.decision
        if made.seed is None:
            report.pending += len(how.faces)
            report.marks[env.v] = "pending"
            continue
        for i, (face, sides) in enumerate(zip(how.faces, how.sides, strict=True)):
            if not 1 <= sides <= 2**32:
                raise TamperError(
                    name,
                    env.v,
                    n_("its die {i} records {n} side", "its die {i} records {n} sides", sides, i=i + 1),
                )
            want = committed_face(made.seed, made.client_seed, env.campaign, how.nonce + i, sides)
            if face != want:
                raise TamperError(
                    name,
                    env.v,
                    _(
                        "its die {i} (nonce {nonce}, d{sides}) records {face}, but the revealed "
                        "seed of commitment {commitment} gives {want}",
                        i=i + 1,
                        nonce=how.nonce + i,
                        sides=sides,
                        face=face,
                        commitment=made.commitment[:16],
                        want=want,
                    ),
                )
        report.proven += len(how.faces)
        report.marks[env.v] = "proven"


def seeding_problem(ev: DiceSeeded, open_commitment: str | None, drawn: int) -> str | None:
    """Why the ledger could not have recorded ``ev`` on a branch whose open commitment is
    ``open_commitment`` with ``drawn`` dice drawn under it; None when it could have."""
    shown = ev.commitment[:16]
    if open_commitment is None or ev.commitment != open_commitment:
        return _("it seeds dice commitment {commitment}, which is not the open one", commitment=shown)
    if drawn:
        return n_(
            "it seeds dice commitment {commitment} after {n} of its dice was drawn "
            "(a client seed comes before the first die)",
            "it seeds dice commitment {commitment} after {n} of its dice were drawn "
            "(a client seed comes before the first die)",
            drawn,
            commitment=shown,
        )
    if not _recorded_as_given(check_seeding, ev.client_seed):
        return _("its client seed is not one line of 1 to 200 visible characters, trimmed, in NFC")
    return None


def _recorded_as_given(check: Callable[[str], str], text: str) -> bool:
    """Whether ``check`` takes ``text`` and would record it unchanged."""
    try:
        return check(text) == text
    except LedgerError:
        return False


def opening_problem(commitment: str, client_seed: str) -> str | None:
    """Why the ledger could not have opened a commitment ``commitment`` with ``client_seed``
    (its sha256 as 64 lowercase hex digits; a client seed it takes); None when it could."""
    if not HEX64.fullmatch(commitment):
        return _(
            "its dice commitment {commitment!r} is not a sha256 in 64 lowercase hex digits",
            commitment=commitment[:16],
        )
    if not _recorded_as_given(check_client_seed, client_seed):
        return _("its client seed is not one line of at most 200 visible characters, in NFC")
    return None


def reveal_problem(ev: DiceRevealed, open_commitment: str | None) -> str | None:
    """Why the ledger could not have recorded ``ev`` while ``open_commitment`` is open: it
    reveals only the open commitment, with the seed that hashes to it."""
    shown = ev.commitment[:16]
    if open_commitment is None or ev.commitment != open_commitment:
        return _("it reveals dice commitment {commitment}, which is not the open one", commitment=shown)
    if not HEX64.fullmatch(ev.seed) or commitment_of(bytes.fromhex(ev.seed)) != ev.commitment:
        return _("the seed it reveals does not hash to dice commitment {commitment}", commitment=shown)
    return None


def revealed_in(rows: Iterator[bytes], decode: Callable[[bytes], Envelope[Any]]) -> dict[str, str]:
    """Every seed revealed in a stream: commitment -> seed hex."""
    found: dict[str, str] = {}
    for raw in rows:
        if REVEALED in raw:
            ev = decode(bytes(raw)).event
            proper = isinstance(ev, DiceRevealed) and HEX64.fullmatch(ev.seed) is not None
            if proper and commitment_of(bytes.fromhex(ev.seed)) == ev.commitment:
                found[ev.commitment] = ev.seed
    return found


class Unavailable(Dice):
    """The dice of a branch whose open commitment's seed is not here: an action that
    draws no die is recorded, the first die drawn is refused (``refusal``)."""

    def __init__(self, refusal: LedgerError) -> None:
        self.refusal = refusal

    def roll(self, sides: int) -> int:
        raise self.refusal


def refuse_foreign(status: DiceStatus) -> LedgerError:
    shown = (status.commitment or "")[:16]
    if status.lost:
        return LedgerError(
            _(
                "the seed of the open dice commitment {commitment} is missing from this ledger's seed table "
                "(ledger_seeds), so no die is drawn, proven or unproven",
                commitment=shown,
            ),
            fix=RunCommand(
                text=_("restore the ledger from a backup, or open a new commitment with `dice commit`"),
                command="dice commit",
            ),
        )
    return LedgerError(
        _(
            "the open dice commitment {commitment} was made by the ledger this campaign was imported from, "
            "which holds its seed",
            commitment=shown,
        ),
        fix=RunCommand(text=_("open one here with `dice commit`"), command="dice commit"),
    )
