"""Admission: an import accepts exactly what the ledger itself could have recorded.

The chain is unkeyed: anyone holding an export can edit it and recompute every
hash and the header. The hashes therefore only prove that the file is whole;
what the events *mean* is checked here, event by event, as the file streams in:

* size and shape: each line at most :data:`MAX_LINE` bytes and nested at most
  :data:`MAX_DEPTH` deep, refused before it is decoded;
* one reading of every byte: each line is exactly the bytes the ledger writes for the
  values it decodes to (no key twice, no unknown field, no whitespace, no needless
  escape; :mod:`ledger.trust.canonical`), and the header exactly what ``export`` writes;
* the envelope: version, ``prev`` link, campaign id (it changes only at a fork),
  action id, time stamp, actor, ``last_reset`` (the latest reset at or before
  the event) and ``day`` (what the fold of the rules gives, within
  0 to :data:`MAX_DAY`);
* every value in every event: text is one printable line of at most
  :data:`MAX_TEXT` characters, whole numbers within +-2**53, every recorded
  roll is what its notation gives on its faces (:func:`ledger.dice.sources.recompute`);
* each core event as its command would have checked it (names, note and label
  lengths, attributes, duplicates), the start event against the header's system;
* undo and redo are decided again from the history before them and must equal
  what the file records (targets, ranges, the action undone);
* the rules fold every event and build the campaign's sheet without error.

A refusal is a :class:`~ledger.errors.TamperError` naming the version.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import IO, Any

import msgspec

from ledger.deciding.action import CORE_RULES, PARTY_RULES, actor_in, decide_command, drawn, recorded_rules
from ledger.deciding.commands import Command, stable_commands
from ledger.dice import provable as fairness
from ledger.dice import sources as dice_mod
from ledger.errors import ImportFileError, LedgerError, RunCommand, TamperError
from ledger.i18n import _, n_
from ledger.log import chain
from ledger.log.events import (
    DICE_EVENTS,
    FORMAT,
    MAX_DAY,
    MAX_LINE,
    RESETS,
    ActionRedone,
    ActionRevealed,
    ActionSealed,
    ActionUndone,
    BranchForked,
    CampaignRegistered,
    CampaignStarted,
    CharacterAdded,
    Decision,
    DiceCommitted,
    DiceRevealed,
    DiceSeeded,
    Envelope,
    LedgerCreated,
    Noted,
    Rolled,
    RollResult,
    envelope_decoder,
    redoable,
)
from ledger.log.state import CampaignState, evolve
from ledger.systems import Refusal, System
from ledger.text import (
    ATTR_KEY_LIMIT,
    LABEL_LIMIT,
    MAX_TEXT,
    NOTE_LIMIT,
    check_distinct,
    check_name,
    check_text,
)
from ledger.trust import canonical, sharing, unsealing

EXPORT_FORMAT = "campaign-ledger-export"


def export_file() -> RunCommand:
    """The fix of an import file that is no export."""
    return RunCommand(text=_("use a file from `export`"), command="export")


MAX_HEADER = 64 * 1024
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects in one line."""
MAX_INT = 2**53
MAX_SEED = 2**63

ACTION_RE = re.compile(r"[0-9a-f]{16}")
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
AT_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def real_instant(at: str) -> bool:
    """Whether ``at``, in the shape the ledger writes (``AT_RE``), names a real UTC
    instant: month 1 to 12, a day its month has, hours to 23, minutes and seconds to 59
    (the ledger's clock, Python's ``datetime``, never writes a leap second)."""
    try:
        datetime.fromisoformat(at)
    except ValueError:
        return False
    return True


_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
STATE_CACHE = 256
"""States kept at recent action ends, where undo and redo targets usually land (at least
this many, at most twice as many)."""


class Header(msgspec.Struct, frozen=True):
    """The first line of an export."""

    format: str
    version: int
    name: str
    system: str
    campaign_id: str
    head: int
    head_hash: str


def read_header(data: IO[bytes]) -> tuple[Header, dict[str, Any]]:
    """The export header, typed, and all its fields (a signature covers every one);
    refused in one line when it is missing, nested or malformed."""
    line = data.readline(MAX_HEADER + 1)
    raw = line.rstrip(b"\r\n")
    if not raw.strip():
        raise ImportFileError(_("the import file has no export header"), fix=export_file())
    if len(raw) > MAX_HEADER or too_deep(raw, 4):
        raise ImportFileError(
            _("the import file's header is too long or too deeply nested"), fix=export_file()
        )
    try:
        header = msgspec.json.decode(raw, type=Header)
        fields = msgspec.json.decode(raw, type=dict[str, Any])
    except (msgspec.DecodeError, RecursionError) as e:
        shown = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ImportFileError(
            _("the import file has no valid export header ({shown})", shown=shown), fix=export_file()
        ) from None
    if header.format != EXPORT_FORMAT:
        raise ImportFileError(_("the import file is not a campaign-ledger export"), fix=export_file())
    problem = canonical.header_problem(raw, fields)
    if problem is not None:
        raise ImportFileError(
            _("line 1 of the import file, its header, {problem}", problem=problem), fix=export_file()
        )
    if header.version > FORMAT:
        raise ImportFileError(
            _(
                "the export is from a newer format ({version}); upgrade campaign-ledger",
                version=header.version,
            )
        )
    if header.version < 1:
        raise ImportFileError(
            _("the export header names format {version}", version=header.version), fix=export_file()
        )
    if not UUID_RE.fullmatch(header.campaign_id):
        raise ImportFileError(_("the export header's campaign_id is not a campaign id"), fix=export_file())
    if not 1 <= header.head < MAX_INT or not re.fullmatch(r"[0-9a-f]{64}", header.head_hash):
        raise ImportFileError(_("the export header's head is malformed"), fix=export_file())
    return header, fields


def lines(data: IO[bytes]) -> Iterator[bytes]:
    """The event lines after the header, each read with a size cap. A blank line is refused
    where it stands: no export of the ledger holds one (each event is one line, the last one
    ends the file), so a file of blank lines is refused at its second line, not read to its end."""
    v = 0
    while True:
        line = data.readline(MAX_LINE + 2)
        if not line:
            return
        raw = line.rstrip(b"\r\n")
        if len(raw) > MAX_LINE:
            raise LineTooLong(v + 1)
        if not raw.strip():
            raise ImportFileError(
                _(
                    "line {value} of the import file is blank, and no export holds a blank line (one event a line, after the header)",
                    value=v + 2,
                ),
                fix=export_file(),
            )
        v += 1
        yield raw


class LineTooLong(Exception):
    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


def too_deep(raw: bytes, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in a JSON text."""
    return raw.count(b"[") + raw.count(b"{") > limit and depth(raw) > limit


def depth(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text (strings are skipped)."""
    brackets = _STRINGS.sub(b'""', raw).translate(None, _NOT_BRACKETS)
    deepest = level = 0
    for b in brackets:
        if b in b"[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def command_class(name: str, system: System) -> type[Command] | None:
    """The command class a decision names by its stable name (``core.Roll``,
    ``<system>.<Class>``), if it is one of the core's or the system's."""
    found = stable_commands(system).get(name)
    return found if isinstance(found, type) and issubclass(found, Command) else None


class Replayed(dice_mod.Dice):
    """The faces an action recorded, given again in order."""

    def __init__(self, faces: tuple[int, ...], manual: bool, sides: tuple[int, ...] = ()) -> None:
        self.faces = faces
        self.used = 0
        self.manual = manual
        self.sides = sides
        """The sides each die was recorded with (derived dice), checked as they are drawn."""

    def roll(self, sides: int) -> int:
        if self.used >= len(self.faces):
            raise Refusal(_("its command draws more dice than it records"))
        face = self.faces[self.used]
        if not 1 <= face <= sides:
            raise Refusal(
                _(
                    "its recorded face {face} (die {value}) is not on a d{sides}",
                    face=face,
                    value=self.used + 1,
                    sides=sides,
                )
            )
        if self.sides and (self.used >= len(self.sides) or self.sides[self.used] != sides):
            raise Refusal(
                _(
                    "its die {value} is recorded with other sides than the d{sides} it rolls",
                    value=self.used + 1,
                    sides=sides,
                )
            )
        self.used += 1
        return face


class Admission:
    """Checks one campaign's events in order, folding them as the ledger would."""

    def __init__(
        self,
        name: str,
        system: System,
        prefix: str | None = None,
        homes: frozenset[str] = frozenset(),
        *,
        lines: bool = True,
        share: int = sharing.SHARE,
    ) -> None:
        self.name = name
        self.prefix = _("import refused: ") if prefix is None else prefix
        self.lines = lines
        """Whether the events are the lines of a file after its header (an import), whose
        line a refusal of what its bytes spell names."""
        self.system = system
        self.decode = envelope_decoder(system.name).decode
        self.raws: list[bytes] = []
        self.actions: list[str] = []
        self.action_last: dict[str, int] = {}
        """The last version of each action id read (an id is refused again within 64 events)."""
        self.kinds: list[str] = []
        self.prev = chain.GENESIS
        self.last_reset = 0
        self.state = CampaignState()
        self.before = CampaignState()
        """The state before the action being read."""
        self.action: str | None = None
        self.action_kind: type | None = None
        self.undo_cursor = 0
        self.states: dict[int, CampaignState] = {}
        self.action_actors: list[tuple[int, str]] = []
        self.action_envs: list[Envelope[Any]] = []
        """The events of the action being read."""
        self.ruled: dict[str, tuple[System, int]] = {}
        """The system and core rules version each rules string a decision records names
        (:meth:`_rules`, read once per string)."""
        self.command_kinds: dict[str, type[Command]] = {}
        """The command class each stable name a decision records names (looked up once)."""
        self.redecided = 0
        """Actions decided again from their recorded command and dice."""
        self.campaign_id = ""
        self.homes = homes
        """The streams a stored branch lives in (verify): an imported campaign's later
        events carry its stream's id, not the id its imported events were sealed with."""
        """The campaign id of the event before (it changes only at a fork)."""
        self.action_checked = ""
        """The last action id found well formed."""
        self.date_checked = ""
        """The last date (``YYYY-MM-DD``) of a time stamp found to be a real instant."""
        self.ids: set[str] = set()
        """Every campaign id the events read so far carry."""
        self.parents_elsewhere: list[tuple[int, str, int, str]] = []
        """Forks whose parent is no campaign the events before them carry: (version,
        parent id, version forked at, hash of the event before). A ledger may hold a
        campaign under that id: it must then hold that very history (:func:`ledger.trust.integrity.check_fork_parents`)."""
        self.actor_names: set[str] = set()
        """Actors found to be valid names."""
        self.dice_open: str | None = None
        """The dice commitment open at the event read, as the ledger tracks it."""
        self.dice_drawn = 0
        """Virtual dice drawn while it was open (undone actions' too)."""
        self.seeded: set[str] = set()
        """The commitments a ``dice.seeded`` event seeds."""
        self.switched: int | None = None
        """The version at which the campaign id changed to a home's without a fork (a
        campaign an older ledger imported and played on), if it did."""
        self.dice_client = ""
        """The client seed in force under the open commitment (its own, or a seeding's)."""
        self.opened: dict[str, int] = {}
        """Every commitment opened, with the version that opens it (each opens once)."""
        self.revealed: set[int] = set()
        """The sealed actions revealed so far (each opens once)."""
        self.watch: Callable[[Envelope[Any], CampaignState], None] | None = None
        """Called with each admitted event and the state it leaves (``verify`` compares
        the cached snapshots with it instead of folding the branch a second time)."""
        self.partner: sharing.Partner | None = None
        """A second process deciding the other actions again (:mod:`ledger.trust.sharing`);
        this one then decides one action in :attr:`share`."""
        self.share = share
        """With a partner: this admission decides again the actions whose ordinal is a
        multiple of ``share``, the partner (built with the same ``share``) the others."""
        self.action_index = 0
        """The ordinal of the action being read (1 for the first)."""

    @property
    def version(self) -> int:
        return len(self.raws)

    def refuse(self, v: int, problem: str) -> TamperError:
        return TamperError(self.name, v, f"{self.prefix}{problem}")

    # --- one line --------------------------------------------------------------

    def settle(self) -> None:
        """Finish checking the action read so far (before blaming a later event for a
        broken chain: a re-hashed edit is named at the edited event)."""
        try:
            self._close_action()
        except Refusal as e:
            raise self.refuse(e.version or self.version, str(e)) from None

    def admit(self, raw: bytes) -> None:
        v = len(self.raws) + 1
        problem = chain.check(raw)
        if problem:
            self.settle()
            raise self.refuse(v, problem)
        self.admit_read(raw)

    def admit_read(self, raw: bytes, env: Envelope[Any] | None = None) -> None:
        """Admit a line whose hash the caller has checked, and (``env``) that it has
        decoded with this campaign's decoder: ``verify`` reads each stored event once."""
        v = len(self.raws) + 1
        if self.partner is not None:
            self.partner.send(raw)
        if too_deep(raw, MAX_DEPTH):
            raise self.refuse(
                v,
                _(
                    "the event nests deeper than {max_depth} levels; no event of the ledger does",
                    max_depth=MAX_DEPTH,
                ),
            )
        if env is None:
            try:
                env = self.decode(raw)
            except (msgspec.DecodeError, RecursionError) as e:
                shown = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise self.refuse(v, _("the event cannot be read ({shown})", shown=shown)) from None
        if env.v != v or env.prev != self.prev:
            self.settle()
            raise self.refuse(v, _("events are missing, inserted or reordered"))
        try:
            self._check(env, v)
        except Refusal as e:
            raise self.refuse(e.version or v, str(e)) from None
        except LedgerError as e:
            raise self.refuse(v, str(e)) from None
        # After what it means (a forged value is named as such): the bytes must be the
        # ledger's one spelling of what they decode to, or two readers could differ.
        spelled = canonical.problem(raw, env)
        if spelled is not None:
            if self.lines:
                said = _("line {line} of the file: {problem}", line=v + 1, problem=spelled)
            else:
                said = _("the stored event: {problem}", problem=spelled)
            raise self.refuse(v, said)
        self.raws.append(raw)
        self.actions.append(env.action)
        self.action_last[env.action] = v
        self.kinds.append(env.event.kind)
        self.prev = env.hash
        if self.watch is not None:
            self.watch(env, self.state)

    def check_head(self, header: Header) -> None:
        """The file holds every event up to the head its header records."""
        v = self.version
        if not v:
            raise ImportFileError(_("the import file has no events"))
        if header.head != v or header.head_hash != self.prev:
            raise self.refuse(v, _("the file ends before its recorded head (truncated)"))

    def finish(self) -> None:
        """Checks once every event is read: the last action, and the sheet of the head
        (and, shared, the partner's verdict on the actions it decided again)."""
        v = self.version
        try:
            self._close_action()
        except Refusal as e:
            raise self.refuse(e.version or v, str(e)) from None
        if self.partner is not None:
            self.partner.verdict()
        try:
            self.system.read.sheet(self.state, None)
        except LedgerError:
            pass  # a sheet may refuse a state (no character yet); it does so in one line
        except Exception as e:
            raise self.refuse(
                v,
                _(
                    "the {system} sheet cannot be built from it ({error})",
                    system=self.system.name,
                    error=type(e).__name__,
                ),
            ) from None

    # --- the checks --------------------------------------------------------------

    def _check(self, env: Envelope[Any], v: int) -> None:
        ev = env.event
        if isinstance(ev, _REGISTRY_EVENTS):
            raise Refusal(_("a {kind} event belongs to the registry, not to a campaign", kind=ev.kind))
        if (v == 1) != isinstance(ev, CampaignStarted):
            raise Refusal(_("a campaign starts with its campaign.started event, and only there"))
        if env.action != self.action:
            self._close_action()
            self.before = self.state
            self.action = env.action
            self.action_index += 1
            self.action_kind = type(ev) if isinstance(ev, RESETS) else None
            self.undo_cursor = v - 1
            last = self.action_last.get(env.action)
            if v > 1 and last is not None and last >= v - 64:  # among the 64 events before
                raise Refusal(_("its action id was used by an earlier action"))
        elif (type(ev) if isinstance(ev, RESETS) else None) is not self.action_kind:
            raise Refusal(_("an undo or redo shares its action with other events"))
        self.action_envs.append(env)
        self._envelope(env, v)
        self._meaning(env, v)
        redeciding = self.action_envs[0].decision is not None  # every decided action is decided again
        checks = self.system.rules.roll_checks
        walk(ev, "event", rolls=not redeciding, checks=checks)  # a re-decided action's rolls are rolled again
        if env.decision is not None:  # a command as typed (the command trims it); never shown
            if not plain_decision(env.decision):
                walk(env.decision, "decision", text=False, checks=checks)
            seat = env.decision.seat  # a device's label, checked as the ledger checks a name
            if seat is not None and check_name(seat, "seat") != seat:
                raise Refusal(_("its seat is not written as the ledger writes a name (Unicode NFC)"))
        state = self._fold(env)
        if v == 1 and env.day is not None:
            raise Refusal(_("the start of a campaign has no day"))
        if v > 1 and env.day != state.core.day:
            raise Refusal(
                _("its day {day} is not the day the rules give ({day2})", day=env.day, day2=state.core.day)
            )
        if env.day is not None and not 0 <= env.day <= MAX_DAY:
            raise Refusal(_("its day {day} is outside 0 to {max_day}", day=env.day, max_day=MAX_DAY))
        if env.actor is not None:
            if env.actor not in self.actor_names:  # a table has a few players, each checked once
                check_name(env.actor, "actor")
                self.actor_names.add(env.actor)
            self.action_actors.append((v, env.actor))
        self.state = state

    def _envelope(self, env: Envelope[Any], v: int) -> None:
        ev = env.event
        # The campaign id, the action id and the day of the time stamp are each checked
        # where they change (the id at a fork, the action at each action, the date daily).
        if env.campaign != self.campaign_id and not UUID_RE.fullmatch(env.campaign):
            raise Refusal(_("its campaign id is malformed"))
        if v > 1 and not isinstance(ev, BranchForked) and env.campaign != self.campaign_id:
            if not (env.campaign in self.homes and self.campaign_id not in self.homes):
                raise Refusal(_("its campaign id changes without a fork"))
            # A campaign an older ledger imported keeps the id its events were sealed
            # with; what it recorded after the import carries the id of its stream.
            self.switched = v
        if isinstance(ev, BranchForked) and env.campaign == self.campaign_id:
            raise Refusal(_("a fork keeps the campaign id of its parent"))
        self.campaign_id = env.campaign
        if isinstance(ev, BranchForked) and ev.parent_id not in self.ids:
            self.parents_elsewhere.append((v, ev.parent_id, ev.at, env.prev))
        self.ids.add(env.campaign)
        if env.action != self.action_checked:
            if not ACTION_RE.fullmatch(env.action):
                raise Refusal(_("its action id is malformed"))
            self.action_checked = env.action
        at = env.at
        if (
            not AT_RE.fullmatch(at)
            or not (
                at[:10] == self.date_checked
                and at[11:13] <= "23"  # the shape is checked: two digits each
                and at[14:16] <= "59"
                and at[17:19] <= "59"
            )
        ):
            if not AT_RE.fullmatch(at) or not real_instant(at):
                raise Refusal(_("its time {at!r} is not a time the ledger writes", at=at[:40]))
            self.date_checked = at[:10]
        expected = v if isinstance(ev, RESETS) else self.last_reset
        if env.last_reset != expected:
            raise Refusal(
                _(
                    "its last_reset {last_reset} is not the latest undo or redo at or before it ({expected})",
                    last_reset=env.last_reset,
                    expected=expected,
                )
            )
        self.last_reset = expected

    def _env(self, v: int) -> Envelope[Any]:
        return self.decode(self.raws[v - 1])  # type: ignore[no-any-return]

    def _meaning(self, env: Envelope[Any], v: int) -> None:
        """Each core event as the command that records it would have checked it."""
        ev = env.event
        core = self.state.core
        if type(ev) is Rolled:  # most events: the checks of its branch below, first
            self._rolled(ev)
        elif isinstance(ev, CampaignStarted):
            self._started(ev)
        elif isinstance(ev, BranchForked):
            check_name(ev.name, "fork")
            check_name(ev.parent_name, "parent campaign")
            if ev.at != v - 1:
                raise Refusal(
                    _("the fork says it continues version {at}, not {value}", at=ev.at, value=v - 1)
                )
            if not UUID_RE.fullmatch(ev.parent_id) or ev.parent_id == env.campaign:
                raise Refusal(_("the fork's parent id is malformed"))
        elif isinstance(ev, CharacterAdded):
            check_name(ev.name, "character")
            if ev.name in core.characters:
                raise Refusal(_("character {name!r} already exists", name=ev.name))
            check_distinct(ev.name, core.characters, "character")
            for key, value in ev.attrs.items():
                check_text(key, _("an attribute key"), ATTR_KEY_LIMIT)
                check_text(value, _("an attribute value"), MAX_TEXT)
        elif isinstance(ev, Noted):
            text = check_text(ev.text, _("a note"), NOTE_LIMIT)
            if not text or text != ev.text:
                raise Refusal(
                    n_(
                        "a note is one trimmed line of 1 to {n} character",
                        "a note is one trimmed line of 1 to {n} characters",
                        NOTE_LIMIT,
                    )
                )
        elif isinstance(ev, Rolled):
            self._rolled(ev)
        elif isinstance(ev, ActionSealed):
            problem = unsealing.sealed_problem(ev, core.characters)
            if problem is not None:
                raise Refusal(problem)
        elif isinstance(ev, ActionRevealed):
            sealed_env = self._env(ev.sealed) if 0 < ev.sealed < v else None
            problem = unsealing.revealed_problem(ev, env, sealed_env, self.revealed, self.system.name)
            if problem is not None:
                raise Refusal(problem)
            self._redecide_revealed(ev, v)
            if ev.folded != unsealing.live_at(self._env, v - 1, ev.sealed):
                raise Refusal(
                    _("it says version {sealed} was live at the reveal, which it was not", sealed=ev.sealed)
                    if ev.folded
                    else _(
                        "it says version {sealed} was undone at the reveal, which it was not",
                        sealed=ev.sealed,
                    )
                )
            self.revealed.add(ev.sealed)
        elif isinstance(ev, ActionUndone):
            self._undone(ev, v)
        elif isinstance(ev, ActionRedone):
            self._redone(ev, v)
        self._dice(env)

    def _rolled(self, ev: Rolled) -> None:
        label = ev.label
        if len(label) <= LABEL_LIMIT and label.isascii() and label.isprintable():
            trimmed = label.strip()  # what check_text gives for printable ASCII
        else:
            trimmed = check_text(label, _("a roll's label"), LABEL_LIMIT)
        if trimmed != label:
            raise Refusal(_("a roll's label is trimmed"))
        p, truncated = dice_mod.chance(ev.result)
        if ev.p_success != p or (ev.p_truncated is True) != truncated or ev.p_truncated is False:
            raise Refusal(_("the roll's chance of success is not what its notation gives"))

    def _dice(self, env: Envelope[Any]) -> None:
        """The open commitment and its dice drawn: a commitment opens as a sha256 with a
        client seed the ledger takes, a ``dice.revealed`` reveals the open one with the seed
        that hashes to it, and a ``dice.seeded`` seeds the open one before its first die."""
        ev = env.event
        if isinstance(ev, DiceSeeded):
            problem = fairness.seeding_problem(ev, self.dice_open, self.dice_drawn)
            if problem is not None:
                raise Refusal(problem)
            self.seeded.add(ev.commitment)
            self.dice_client = ev.client_seed
        elif isinstance(ev, DiceRevealed):
            problem = fairness.reveal_problem(ev, self.dice_open)
            if problem is not None:
                raise Refusal(problem)
            self.dice_open, self.dice_drawn = None, 0
        elif isinstance(ev, DiceCommitted | CampaignStarted | BranchForked):
            commitment, client_seed = ev.opens()
            if commitment is not None:
                problem = fairness.opening_problem(commitment, client_seed)
                if problem is not None:
                    raise Refusal(problem)
                if commitment in self.opened:
                    raise Refusal(
                        _(
                            "it opens dice commitment {commitment} a second time (version {opened} opened it)",
                            commitment=commitment[:16],
                            opened=self.opened[commitment],
                        )
                    )
                self.opened[commitment] = env.v
            self.dice_open, self.dice_drawn, self.dice_client = commitment, 0, client_seed
        how = env.decision
        if self.dice_open is not None and how is not None and not how.manual:
            self.dice_drawn += len(how.faces)
        if self.dice_open is not None and isinstance(ev, ActionSealed):
            self.dice_drawn += ev.drawn

    def _fold(self, env: Envelope[Any]) -> CampaignState:
        ev = env.event
        if isinstance(ev, RESETS):
            return self._state_at(ev.target)
        try:
            return evolve(self.state, env, self.system)
        except LedgerError as e:
            raise Refusal(
                _("the {name} rules refuse it ({problem})", name=self.system.name, problem=e)
            ) from None
        except Exception as e:
            raise Refusal(
                _(
                    "the {system} rules cannot fold it ({error})",
                    system=self.system.name,
                    error=type(e).__name__,
                )
            ) from None

    def _started(self, ev: CampaignStarted) -> None:
        check_name(ev.name, "campaign")
        if ev.system != self.system.name:
            raise Refusal(
                _(
                    "the header says {name} but the campaign was started as {system!r}",
                    name=self.system.name,
                    system=ev.system[:40],
                )
            )
        if ev.seed is not None and not 0 <= ev.seed < MAX_SEED:
            raise Refusal(_("its seed {seed} is outside 0 to 2**63-1", seed=ev.seed))
        if self.system.rules.load_tables is None and (ev.tables or ev.tables_source is not None):
            raise Refusal(_("the {name} system has no tables", name=self.system.name))
        if ev.tables_source is not None:
            check_text(ev.tables_source, _("the tables' source"), 4096)
        if ev.tables and self.system.rules.check_tables is not None:
            try:
                self.system.rules.check_tables(dict(ev.tables))
            except LedgerError as e:
                raise Refusal(e.message) from None
        if ev.settings:
            if self.system.rules.check_settings is None:
                raise Refusal(_("the {name} system takes no settings", name=self.system.name))
            try:
                self.system.rules.check_settings(dict(ev.settings))
            except LedgerError as e:
                raise Refusal(e.message) from None

    def _close_action(self) -> None:
        """An action is recorded under a character known before it, or one it brings in."""
        before, after = self.before.core, self.state.core
        for v, actor in self.action_actors:
            if (
                actor not in before.characters
                and actor not in after.characters
                and actor != before.last_actor
            ):
                raise Refusal(
                    _("it is recorded under {actor!r}, who is no character of the campaign", actor=actor), v
                )
        self.action_actors = []
        if self.action_envs:
            if self.partner is None or self.action_index % self.share == 0:
                self._redecide(self.action_envs)  # else the partner decides it again
            check = self.system.rules.check_state
            if check is not None and self.action_kind is None:  # an undo or redo goes back to a state checked
                problem = check(self.before, self.state)
                if problem is not None:
                    raise Refusal(
                        _(
                            "the {name} rules cannot reach its state: {problem}",
                            name=self.system.name,
                            problem=problem,
                        ),
                        self.version,
                    )
        self.action_envs = []
        self._keep_state()

    def _keep_state(self) -> None:
        v = len(self.raws)
        if v:
            states = self.states
            states[v] = self.state  # versions only grow: the oldest is first
            if len(states) >= 2 * STATE_CACHE:  # the latest STATE_CACHE kept, the rest dropped at once
                self.states = dict(list(states.items())[-STATE_CACHE:])

    # --- the partner's share: the events folded, the other actions decided again ------

    def follow(self, raw: bytes) -> None:
        """What the partner does with each event the admission reads: fold it as the
        admission does (the admission checks everything else), and decide again each
        action that is not the admission's share. Raises at the first that differs."""
        env: Envelope[Any] = self.decode(raw)
        if env.action != self.action:
            self.follow_end()
            self.before = self.state
            self.action = env.action
            self.action_index += 1
        self.action_envs.append(env)
        self.state = self._fold(env)
        self.raws.append(raw)
        self.actions.append(env.action)

    def follow_end(self) -> None:
        """Close the action followed so far (the last one, once every event is read)."""
        if self.action_envs and self.action_index % self.share != 0:
            self._redecide(self.action_envs)
        self.action_envs = []
        self._keep_state()

    # --- commands, decided again -----------------------------------------------------

    def _redecide(self, envs: list[Envelope[Any]]) -> None:
        """Decide the action again from its recorded command and dice, on the state
        before it, and require the very events (and actors) the file records."""
        first = envs[0]
        for env in envs[1:]:
            if env.decision is not None:
                raise Refusal(_("only the first event of an action records its decision"), env.v)
        how = first.decision
        if how is None:
            return  # recorded before decisions were kept: the checks above are all there is
        if isinstance(first.event, _NO_COMMAND):
            raise Refusal(_("a {kind} event records a command", kind=first.event.kind), first.v)
        ruled = self.ruled.get(how.rules)
        if ruled is None:
            ruled = self.ruled[how.rules] = self._rules(how.rules, first.v)
        system, core_rules = ruled
        kind = self.command_kinds.get(how.command)
        if kind is None:
            kind = command_class(how.command, self.system)
            if kind is None:
                raise Refusal(
                    _(
                        "it names {command!r}, which is no command of {name}",
                        command=how.command[:60],
                        name=self.system.name,
                    ),
                    first.v,
                )
            self.command_kinds[how.command] = kind
        try:
            command = msgspec.convert(how.args, kind)
        except msgspec.ValidationError as e:
            raise Refusal(_("its command cannot be read ({problem})", problem=e), first.v) from None
        seed = self.before.core.seed
        seeded = not how.manual and seed is not None
        dice: dice_mod.Dice = (
            dice_mod.seeded(seed, first.v - 1)
            if seeded and seed is not None
            else Replayed(how.faces, how.manual, how.sides)
        )
        party = command.by_party()
        if how.party and core_rules < PARTY_RULES:
            raise Refusal(
                _(
                    "it marks {command} as the party's action under core rules version {core_rules}, which recorded none as the party's",
                    command=how.command,
                    core_rules=core_rules,
                ),
                first.v,
            )
        if how.party and not party:
            raise Refusal(
                _("it records {command} as the party's action, which is a character's", command=how.command),
                first.v,
            )
        if not how.party and party and core_rules >= PARTY_RULES:
            raise Refusal(
                _("it records {command}, the party's action, as a character's", command=how.command), first.v
            )
        try:
            events = decide_command(system, self.before, command, dice, core_rules)
            # The party's action is recorded under no character (one recorded under core rules
            # before version 3, under the character who was acting).
            who = None if how.party else command.introduces() or actor_in(self.before, command.actor)
        except Refusal as e:
            raise Refusal(str(e), first.v) from None
        except LedgerError as e:
            raise Refusal(
                _("its command is refused on the state before it ({problem})", problem=e), first.v
            ) from None
        except Exception as e:
            raise Refusal(
                _("its command cannot be decided ({name})", name=type(e).__name__), first.v
            ) from None
        faces = drawn(dice) if seeded else how.faces[: dice.used] if isinstance(dice, Replayed) else ()
        if faces != how.faces:
            if seeded:
                raise Refusal(
                    _("its recorded faces are not the faces the campaign's seeded dice drew"), first.v
                )
            raise Refusal(_("its recorded faces are not the faces its command drew"), first.v)
        for k, env in enumerate(envs):
            if k >= len(events) or events[k] != env.event:
                try:
                    walk(
                        env.event, "event", checks=self.system.rules.roll_checks
                    )  # a roll that disagrees with its own dice says so
                except Refusal as e:
                    raise Refusal(str(e), env.v) from None
                raise Refusal(_("the event is not what its command decides on its recorded dice"), env.v)
            want = env.event.name if isinstance(env.event, CharacterAdded) else who
            if env.actor != want:
                raise Refusal(
                    _(
                        "it is recorded under {actor!r}, not {want!r} as its command was",
                        actor=env.actor,
                        want=want,
                    ),
                    env.v,
                )
        if len(events) > len(envs):
            raise Refusal(_("its command decides an event the file does not record here"), envs[-1].v + 1)
        self.redecided += 1

    def _redecide_revealed(self, ev: ActionRevealed, v: int) -> None:
        """A revealed content holds what its command decides with its faces on the state
        before the sealed action, as any recorded action is decided again."""
        content = unsealing.content_of(ev, self.system.name)
        how = content.decision
        if how is None:
            raise Refusal(_("its revealed content keeps no decision"))
        system, core_rules = self._rules(how.rules, v)
        kind = command_class(how.command, self.system)
        if kind is None:
            raise Refusal(
                _(
                    "its revealed command {command!r} is no command of {name}",
                    command=how.command[:60],
                    name=self.system.name,
                )
            )
        dice = Replayed(how.faces, how.manual, how.sides)
        try:
            command = msgspec.convert(how.args, kind)
            events = decide_command(system, self._state_at(ev.sealed - 1), command, dice, core_rules)
        except Refusal:
            raise
        except LedgerError as e:
            raise Refusal(
                _("its revealed command is refused on the state before it ({problem})", problem=e)
            ) from None
        except Exception as e:
            raise Refusal(
                _("its revealed command cannot be decided ({name})", name=type(e).__name__)
            ) from None
        if dice.used != len(how.faces) or events != content.events:
            raise Refusal(
                _(
                    "its revealed events are not what its command decides with its faces at version {sealed}",
                    sealed=ev.sealed,
                )
            )

    def _rules(self, rules: str, v: int) -> tuple[System, int]:
        """The system as it decided under the rules versions a decision records (today's
        rules, or the older decider the system keeps for that version; refused otherwise),
        and the core rules version (every one is kept: :data:`ledger.deciding.action.CORE_NOTATION`)."""
        name, known = self.system.name, self.system.rules.rules_version
        try:
            core, version = recorded_rules(rules, self.system)
        except LedgerError as e:
            raise Refusal(e.message, v) from None
        if core > CORE_RULES:
            raise Refusal(
                _(
                    "recorded by rules version {core} of the core commands; this ledger knows up to {core_rules}: upgrade campaign-ledger",
                    core=core,
                    core_rules=CORE_RULES,
                ),
                v,
            )
        if version > known:
            raise Refusal(
                _(
                    "recorded by rules version {version} of {name}; this ledger knows up to {known}: upgrade campaign-ledger",
                    version=version,
                    name=name,
                    known=known,
                ),
                v,
            )
        if version == known:
            return self.system, core
        older = self.system.rules.older_rules.get(version)
        if older is None:
            raise Refusal(
                _(
                    "recorded by rules version {version} of {name}, which this ledger no longer decides (it keeps {value})",
                    version=version,
                    name=name,
                    value=", ".join(map(str, sorted({known, *self.system.rules.older_rules}))),
                ),
                v,
            )
        rules = msgspec.structs.replace(self.system.rules, decide=older)
        return msgspec.structs.replace(self.system, rules=rules), core

    # --- undo and redo, decided again ----------------------------------------------

    def _undone(self, ev: ActionUndone, v: int) -> None:
        last = self._last_effective(self.undo_cursor)
        if last is None:
            raise Refusal(_("it undoes an action, but there is nothing to undo before it"))
        first = last.v
        while first > 1 and self.actions[first - 2] == last.action:
            first -= 1
        what = (last if first == last.v else self._env(first)).event.stored_summary()
        expected = ActionUndone(undone=last.action, first=first, last=last.v, target=first - 1, what=what)
        if ev != expected:
            raise Refusal(
                _(
                    "the undo records target {target} (v{first}-{last}) where the ledger would have undone v{first2}-{version} back to version {value}",
                    target=ev.target,
                    first=ev.first,
                    last=ev.last,
                    first2=first,
                    version=last.v,
                    value=first - 1,
                )
            )
        self.undo_cursor = first - 1

    def _redone(self, ev: ActionRedone, v: int) -> None:
        trailing = []
        u = v - 1
        while u > 0:
            env = self._env(u)
            if not isinstance(env.event, RESETS):
                break
            trailing.append(env.event)
            u -= 1
        stack = redoable(trailing)
        if not stack:
            raise Refusal(_("it redoes an action, but there is nothing to redo before it"))
        top = stack[-1]
        expected = ActionRedone(redone=top.undone, target=top.last, what=top.what)
        if ev != expected:
            raise Refusal(
                _(
                    "the redo records target {target} where the ledger would have gone back to version {last}",
                    target=ev.target,
                    last=top.last,
                )
            )

    def _last_effective(self, v: int) -> Envelope[Any] | None:
        while v > 0:
            env = self._env(v)
            if isinstance(env.event, RESETS):
                v = env.event.target  # checked below v when it was admitted
            elif isinstance(env.event, (BranchForked, *DICE_EVENTS)):
                v -= 1
            elif isinstance(env.event, CampaignStarted):
                return None
            else:
                return env
        return None

    def _state_at(self, target: int) -> CampaignState:
        """The effective state at an earlier version, as the ledger folds it."""
        if target == 0:
            return CampaignState()
        cached = self.states.get(target)
        if cached is not None:
            return cached
        plan: list[tuple[int, int]] = []
        v = target
        while v > 0:
            env = self._env(v)
            reset = v if isinstance(env.event, RESETS) else env.last_reset
            plan.append((reset, v))
            if reset == 0:
                break
            v = (env if reset == v else self._env(reset)).event.target
        state = CampaignState()
        for lo, hi in reversed(plan):
            for u in range(lo + 1, hi + 1):
                state = evolve(state, self._env(u), self.system)
        return state


def _plain(value: Any) -> bool:
    """Whether ``walk(value, text=False)`` passes ``value`` at a glance: None, a boolean,
    text of at most MAX_TEXT characters, or a whole number within +-2**53."""
    kind = type(value)
    if kind is str:
        return len(value) <= MAX_TEXT
    if kind is int:
        return -MAX_INT <= value <= MAX_INT
    return kind is bool or value is None


def plain_decision(how: Decision) -> bool:
    """Whether :func:`walk` (``text=False``) passes a decision at a glance: its fields and
    each argument short text, a whole number in range, a boolean or None, as a command's
    are. Anything else (a list, a float, an object) is walked."""
    if len(how.command) > MAX_TEXT or len(how.rules) > MAX_TEXT:
        return False
    if not (
        (how.commitment is None or _plain(how.commitment))
        and (how.nonce is None or _plain(how.nonce))
        and (how.seat is None or _plain(how.seat))
    ):
        return False
    for numbers in (how.faces, how.sides):
        if numbers and not all(type(x) is int and -MAX_INT <= x <= MAX_INT for x in numbers):
            return False
    for key, value in how.args.items():
        if type(key) is not str or len(key) > MAX_TEXT:
            return False
        kind = type(value)  # what _plain tells, inline
        if kind is str:
            if len(value) > MAX_TEXT:
                return False
        elif kind is int:
            if not -MAX_INT <= value <= MAX_INT:
                return False
        elif not (kind is bool or value is None):
            return False
    return True


def walk(
    value: Any,
    where: str,
    *,
    text: bool = True,
    rolls: bool = True,
    checks: Mapping[type, Callable[[Any], None]] = MappingProxyType({}),
) -> None:
    """Refuse a value no command records: control characters or line breaks in text
    (with ``text``), text over MAX_TEXT, whole numbers beyond +-2**53, numbers that are
    not finite, and (with ``rolls``) rolls whose totals disagree with their faces:
    the ledger's own rolls, and those the campaign's system records in a form of its
    own, each run through its check (``checks``: the system's ``roll_checks``).

    A roll is not walked into: recomputed from its notation (here, or when its action
    is decided again), its every number is one the roller gives."""
    kind = type(value)
    if kind is str:
        if len(value) <= MAX_TEXT and value.isascii() and value.isprintable():
            return  # printable ASCII: no control or invisible character, nothing to normalise
        if text:
            check_text(value, where, MAX_TEXT)
        elif len(value) > MAX_TEXT:
            raise Refusal(_("{where} holds text over {max_text} characters", where=where, max_text=MAX_TEXT))
        return
    if kind is int:
        if not -MAX_INT <= value <= MAX_INT:
            raise Refusal(_("{where} holds {value}, beyond +-2**53", where=where, value=value))
        return
    if kind is bool or value is None:
        return
    fields = _STRUCT_FIELDS.get(kind)
    if fields is not None and kind not in checks:  # an event or value struct without a roll check of its own
        for field in fields:
            item = getattr(value, field)
            # What passes at a glance is not walked into (the checks below, inline: this
            # runs for every field of every event).
            of = type(item)
            if of is str:
                if len(item) <= MAX_TEXT and item.isascii() and item.isprintable():
                    continue
            elif of is int:
                if -MAX_INT <= item <= MAX_INT:
                    continue
            elif of is bool or item is None or item is _UNSET or (of is RollResult and not rolls):
                continue
            elif of is float:
                if math.isfinite(item) and -MAX_INT <= item <= MAX_INT:
                    continue
            elif of is tuple and all(type(x) is int and -MAX_INT <= x <= MAX_INT for x in item):
                continue  # no value, or whole numbers (a decision's faces and sides)
            walk(item, field, text=text, rolls=rolls, checks=checks)
        return
    if kind is dict:
        for key, item in value.items():
            if not (type(key) is str and len(key) <= MAX_TEXT and key.isascii() and key.isprintable()):
                walk(key, _("{where} key", where=where), text=text, rolls=rolls, checks=checks)
            of = type(item)
            if of is str:
                if len(item) <= MAX_TEXT and item.isascii() and item.isprintable():
                    continue
            elif of is int:
                if -MAX_INT <= item <= MAX_INT:
                    continue
            elif of is bool or item is None:
                continue
            walk(item, f"{where}.{key}", text=text, rolls=rolls, checks=checks)
        return
    if isinstance(value, RollResult):
        if rolls:
            check_roll(value)
        return
    check = checks.get(kind)
    if check is not None and rolls:
        check(value)
    if isinstance(value, str):
        if text:
            check_text(value, where, MAX_TEXT)
        elif len(value) > MAX_TEXT:
            raise Refusal(_("{where} holds text over {max_text} characters", where=where, max_text=MAX_TEXT))
    elif isinstance(value, bool) or value is None or value is msgspec.UNSET:
        return
    elif isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise Refusal(_("{where} holds {value}, beyond +-2**53", where=where, value=value))
    elif isinstance(value, float):
        if not math.isfinite(value) or not -MAX_INT <= value <= MAX_INT:
            raise Refusal(
                _("{where} holds {value}, not a number the ledger records", where=where, value=value)
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            walk(key, _("{where} key", where=where), text=text, rolls=rolls, checks=checks)
            walk(item, f"{where}.{key}", text=text, rolls=rolls, checks=checks)
    elif isinstance(value, list | tuple):
        for item in value:
            walk(item, where, text=text, rolls=rolls, checks=checks)
    elif isinstance(value, msgspec.Struct):
        fields = tuple(f for f in value.__struct_fields__ if not (kind is CampaignStarted and f == "seed"))
        if not isinstance(value, RollResult) and check is None:
            _STRUCT_FIELDS[kind] = fields  # the next one of its kind goes straight to its fields
        for field in fields:
            walk(getattr(value, field), field, text=text, rolls=rolls, checks=checks)
    else:  # pragma: no cover - the decoder yields only the types above
        raise Refusal(_("{where} holds a {name}", where=where, name=type(value).__name__))


_UNSET = msgspec.UNSET
_REGISTRY_EVENTS = (LedgerCreated, CampaignRegistered)
_NO_COMMAND = (*RESETS, CampaignStarted, BranchForked)
"""Events no command records."""
_STRUCT_FIELDS: dict[type, tuple[str, ...]] = {}
"""The fields walked of each struct type seen that is not a roll (a start's seed is not);
a type one system checks as its own roll is walked through its check whenever that
system's campaign is read, whatever another system's campaign cached of it."""


def check_roll(result: RollResult) -> None:
    """A recorded roll must be what its notation gives on its faces."""
    try:
        again = dice_mod.recompute(result)
    except LedgerError as e:
        raise Refusal(
            _(
                "the roll {notation!r} cannot have been rolled ({problem})",
                notation=result.notation[:40],
                problem=e,
            )
        ) from None
    if again != result:
        faces = ",".join(map(str, result.faces()[:20]))
        if again.successes is not None:
            shown = n_("{n} success", "{n} successes", again.successes)
        else:
            shown = str(again.total)
        raise Refusal(
            _(
                "the roll {notation!r} [{faces}] records {total} but its dice give {shown}",
                notation=result.notation,
                faces=faces,
                total=result.total,
                shown=shown,
            )
        )
