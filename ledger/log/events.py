"""The vocabulary: every fact the ledger can record, as frozen msgspec Structs.

All events form one tagged union (tag field ``kind``). The core events live
here; each rule system lists its own in ``Rules.events``. A stored event is an
:class:`Envelope` around one
event; the envelope carries the campaign, the branch version, the action id
(the unit of undo), wall time, game day, actor and the chain hash.

Schema evolution (see docs/schema.md): new fields get defaults, a field's
type never changes, a tag is never reused or renamed.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar, Union

import msgspec

from ledger import i18n
from ledger.i18n import _
from ledger.systems import get_system, system_names

FORMAT = 1
"""Store format version, written once into the registry stream."""
MAX_LINE = 8 * 1024 * 1024
"""Longest stored event, in bytes: the ledger refuses to record a longer one, an import
reads no longer line."""
MAX_DAY = 1_000_000
"""Latest game day an envelope may carry (some 2,700 years of play)."""


class Event(msgspec.Struct, frozen=True, tag_field="kind", kw_only=True, gc=False):
    """Base of every event. Subclasses set ``tag=`` to a stable name."""

    later_fields: ClassVar[frozenset[str]] = frozenset()
    """Fields added after the event was first recorded (docs/schema.md): an event an older
    ledger wrote leaves them out, and reads as their default. No other field may be left
    out of a stored event (``ledger.trust.canonical``)."""

    def summary(self) -> str:
        return str(self.__struct_config__.tag)

    def stored_summary(self) -> str:
        """The summary as an event that names this one stores it (an undo's, a reveal's
        ``what``): in English whatever the language of the moment, as the log stays
        language-neutral; :func:`retold` says it again in the reader's language)."""
        with i18n.using(i18n.LANGUAGES[0]):
            return self.summary()

    @property
    def kind(self) -> str:
        return str(self.__struct_config__.tag)


_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)[^{}]*\}")


@cache
def _templates() -> tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...]:
    """Every sentence of the catalogs as a pattern its English reads by (a field matches any
    text), with the sentence and its fields, the longest wording first: what :func:`retold`
    tries a stored sentence against. The sentences are those of a catalog of another language
    (the same in each), read once."""
    found: list[tuple[int, re.Pattern[str], str, tuple[str, ...]]] = []
    others = [lang for lang in i18n.LANGUAGES if lang != i18n.LANGUAGES[0]]
    catalog = getattr(i18n.CATALOG.translations(others[0]), "_catalog", {}) if others else {}
    for msgid in catalog:
        if not isinstance(msgid, str) or not msgid or "\x04" in msgid:
            continue  # the header, a plural's forms, a sentence with a context
        pattern, fields, literal, at = "", [], 0, 0
        for match in _FIELD.finditer(msgid):
            text = msgid[at : match.start()]
            pattern += re.escape(text)
            literal += len(text)
            token = match.group(0)
            if token in ("{{", "}}"):
                pattern += re.escape(token[0])
                literal += 1
            elif match.group(1) in fields:
                pattern += f"(?P={match.group(1)})"
            else:
                fields.append(match.group(1))
                pattern += f"(?P<{match.group(1)}>.*?)"
            at = match.end()
        pattern += re.escape(msgid[at:])
        literal += len(msgid) - at
        lead = len(msgid) if not fields else msgid.find("{")
        if literal >= 8 or lead >= 3:  # enough words of its own not to read a text by chance
            found.append((literal, re.compile(pattern, re.DOTALL), msgid, tuple(fields)))
    found.sort(key=lambda t: -t[0])
    return tuple((p, m, f) for _n, p, m, f in found)


def retold(text: str) -> str:
    """A sentence stored as the log words it in English (an undo's or a reveal's ``what``,
    :meth:`Event.stored_summary`) said again in the language of the moment: the catalog
    sentence it reads as, its fields kept as they were written (a fragment such as
    ``, success`` said again too). A text that reads as none is shown as stored."""
    lang = i18n.language()
    if lang == i18n.LANGUAGES[0] or not text:
        return text
    for pattern, msgid, fields in _templates():
        found = pattern.fullmatch(text)
        if found is None:
            continue
        said = i18n.CATALOG.say(lang, None, msgid, None, None)
        return _FIELD.sub(
            lambda match, found=found, fields=fields: _refilled(match, found, fields, lang), said
        )
    return text


def _refilled(match: re.Match[str], found: re.Match[str], fields: tuple[str, ...], lang: str) -> str:
    """A field of a sentence said again: the text it was written with (a fragment of a
    catalog sentence, ``, success``, said again in ``lang``)."""
    token = match.group(0)
    if token in ("{{", "}}"):
        return token[0]
    given = found.group(match.group(1)) if match.group(1) in fields else token
    for fragment in _fragments():  # a field may end in one (``6, failure``)
        if given.endswith(fragment):
            return given[: -len(fragment)] + i18n.CATALOG.say(lang, None, fragment, None, None)
    return given


@cache
def _fragments() -> tuple[str, ...]:
    """The catalogs' sentences that are a fragment of another (``, success``): said again in
    a stored sentence's fields."""
    return tuple(m for _p, m, f in _templates() if not f and m[:1] in (",", " ", ";") and m.strip())


def _opening(
    commitment: str | msgspec.UnsetType, client_seed: str | msgspec.UnsetType
) -> tuple[str | None, str]:
    return (
        commitment if isinstance(commitment, str) else None,
        client_seed if isinstance(client_seed, str) else "",
    )


# --- the registry stream -------------------------------------------------


class LedgerCreated(Event, frozen=True, tag="ledger.created"):
    format: int = FORMAT
    application: str = "campaign-ledger"

    def summary(self) -> str:
        return _("ledger created (format {format})", format=self.format)


class CampaignRegistered(Event, frozen=True, tag="campaign.registered"):
    campaign_id: str
    name: str
    system: str
    parent_id: str | None = None
    parent_version: int | None = None
    imported: bool = False
    signed_by: str | None = None
    """An import's signer: the public key (``ed25519:<hex>``) whose valid
    signature the export carried; None for an unsigned file or no import."""
    simulated: bool = False
    """Played by ``ledger simulate``, not at a table: ``stats`` leaves it out unless asked
    (``--simulated``). False in registrations recorded before the mark."""

    def summary(self) -> str:
        if self.parent_id:
            return _(
                "campaign {name!r} forked at version {version}", name=self.name, version=self.parent_version
            )
        return _("campaign {name!r} ({system}) registered", name=self.name, system=self.system)


# --- campaign streams ----------------------------------------------------


class CampaignStarted(Event, frozen=True, tag="campaign.started"):
    name: str
    system: str
    seed: int | None = None
    settings: dict[str, Any] = {}
    tables: dict[str, Any] = {}
    tables_source: str | None = None
    commitment: str | msgspec.UnsetType = msgspec.UNSET
    """The first dice commitment (see :class:`DiceCommitted`), opened with the campaign;
    left out of the stored event when none opens (so older events read the same)."""
    client_seed: str | msgspec.UnsetType = msgspec.UNSET

    def opens(self) -> tuple[str | None, str]:
        """The dice commitment this event opens, if any, and its client seed."""
        return _opening(self.commitment, self.client_seed)

    def summary(self) -> str:
        if self.seed is not None:
            return _(
                "campaign {name!r} started ({system}, seed {seed})",
                name=self.name,
                system=self.system,
                seed=self.seed,
            )
        return _("campaign {name!r} started ({system})", name=self.name, system=self.system)


class BranchForked(Event, frozen=True, tag="branch.forked"):
    """First event of a fork: history up to ``at`` is read from the parent."""

    name: str
    parent_id: str
    parent_name: str
    at: int
    commitment: str | msgspec.UnsetType = msgspec.UNSET
    """The fork's own dice commitment, opened with it when the parent had one open
    (a fork never shares the parent's seed; see docs/dice.md); left out when none."""
    client_seed: str | msgspec.UnsetType = msgspec.UNSET

    def opens(self) -> tuple[str | None, str]:
        return _opening(self.commitment, self.client_seed)

    def summary(self) -> str:
        return self.told(self.parent_name)

    def told(self, parent: str | None) -> str:
        """The summary as a ledger tells it: ``parent`` is the name of the campaign it
        holds under ``parent_id``, or None when it holds none (an imported fork whose
        parent is elsewhere, or a forged one): the recorded name is then only a claim."""
        if parent is None:
            return _(
                "forked {name!r} at version {version} from a campaign this ledger "
                "does not hold (recorded as {parent!r})",
                name=self.name,
                version=self.at,
                parent=self.parent_name,
            )
        return _(
            "forked {name!r} from {parent!r} at version {version}",
            name=self.name,
            parent=parent,
            version=self.at,
        )


class CharacterAdded(Event, frozen=True, tag="character.added"):
    name: str
    attrs: dict[str, str] = {}

    def summary(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.attrs.items())
        if extra:
            return _("character {name} joins ({attributes})", name=self.name, attributes=extra)
        return _("character {name} joins", name=self.name)


class Die(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """One physical or random die, in roll order."""

    sides: int
    face: int
    kept: bool = True
    explodes: int | None = None
    """Index (within its group) of the die whose maximum made this one roll."""
    rerolls: int | None = None
    """Index (within its group) of the die this one was rolled to replace (``r1``, ``ro<3``);
    that die is not kept."""
    value: int | None = None
    """What the die counts for when that is not its face: a minimum or maximum
    (``mi3``, ``ma5``), or a Fate die (faces 1, 2, 3 count -1, 0, +1)."""


class DiceGroup(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    count: int
    sides: int
    dice: tuple[Die, ...]
    value: int
    sign: int = 1
    keep: str | None = None
    explode: bool = False
    success: str | None = None
    term: str = ""
    """The group's notation in canonical order (``4d6r1!kh3``); empty in older rolls."""
    label: str = ""
    fate: bool = False
    """Fate/Fudge dice: recorded as d3 faces 1, 2, 3, counting -1, 0, +1."""


class RollResult(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    notation: str
    groups: tuple[DiceGroup, ...]
    modifier: int
    total: int
    successes: int | None = None
    semantics: int = 1
    """The notation rules the roll was made under: 1, the first version (a die and
    its explosions one value; see :mod:`ledger.dice.legacy`); 2, each explosion its
    own die, checks on a total, every counting group adding to ``successes``; 3,
    the current ones (a count inside arithmetic is a number; see docs/dice-notation.md)."""
    target: str | None = None
    """A check on the total (``>=15`` in ``1d20+5>=15``): ``successes`` is then 1 or 0."""

    def faces(self) -> list[int]:
        """The faces as rolled or typed with ``--faces`` (a Fate die as -1, 0 or 1)."""
        return [d.face - 2 if g.fate else d.face for g in self.groups for d in g.dice]


class Rolled(Event, frozen=True, tag="dice.rolled"):
    """A free roll in any campaign (``ledger roll``)."""

    result: RollResult
    label: str = ""
    manual: bool = False
    p_success: float | None = None
    p_truncated: bool | msgspec.UnsetType = msgspec.UNSET
    """True when ``p_success`` leaves out an explosion's tail, under 10^-12 in all (absent
    otherwise, and in rolls recorded before it; see docs/dice-notation.md)."""

    def summary(self) -> str:
        faces = ",".join(str(f) for f in self.result.faces())
        how = _(" (physical dice)") if self.manual else ""
        verdict = ""
        if self.result.target is not None:
            verdict = _(", success") if self.result.successes else _(", failure")
        fields = {"notation": self.result.notation, "total": self.result.total, "faces": faces}
        if self.label:
            return _(
                "rolled {label}: {notation} = {total}{verdict} [{faces}]{how}",
                label=self.label,
                verdict=verdict,
                how=how,
                **fields,
            )
        return _("rolled {notation} = {total}{verdict} [{faces}]{how}", verdict=verdict, how=how, **fields)


class Noted(Event, frozen=True, tag="note"):
    text: str

    def summary(self) -> str:
        return _("note: {text}", text=self.text)


class ActionUndone(Event, frozen=True, tag="action.undone"):
    """Retracts one action: the state returns to that at ``target``."""

    later_fields = frozenset({"what"})

    undone: str
    first: int
    last: int
    target: int
    what: str = ""
    """The undone action's first event, as the log words it."""

    def summary(self) -> str:
        if self.last > self.first:
            if self.what:
                return _(
                    "undo v{first}-{last}: {what}", first=self.first, last=self.last, what=retold(self.what)
                )
            return _("undo v{first}-{last}", first=self.first, last=self.last)
        if self.what:
            return _("undo v{first}: {what}", first=self.first, what=retold(self.what))
        return _("undo v{first}", first=self.first)


class ActionRedone(Event, frozen=True, tag="action.redone"):
    """Retracts an undo: the state returns to that at ``target``."""

    later_fields = frozenset({"what"})

    redone: str
    target: int
    what: str = ""

    def summary(self) -> str:
        if self.what:
            return _("redo: {what} (back to version {target})", what=retold(self.what), target=self.target)
        return _("redo (back to version {target})", target=self.target)


class DiceCommitted(Event, frozen=True, tag="dice.committed"):
    """A dice commitment opens: ``commitment`` is sha256 of a secret 32-byte server seed
    (hex), kept out of the log until :class:`DiceRevealed`; every virtual die from now
    on is derived from that seed, ``client_seed`` and its number (docs/dice.md)."""

    commitment: str
    client_seed: str = ""

    def opens(self) -> tuple[str | None, str]:
        return self.commitment, self.client_seed

    def summary(self) -> str:
        if self.client_seed:
            return _(
                "dice committed: {commitment}, client seed {seed!r}",
                commitment=self.commitment[:16],
                seed=self.client_seed,
            )
        return _("dice committed: {commitment}", commitment=self.commitment[:16])


class DiceRevealed(Event, frozen=True, tag="dice.revealed"):
    """The server seed of a commitment, published: anyone can now recompute its dice."""

    commitment: str
    seed: str
    """The 32-byte server seed, as 64 hex digits."""

    def summary(self) -> str:
        return _("dice revealed: {commitment}, seed {seed}", commitment=self.commitment[:16], seed=self.seed)


class DiceSeeded(Event, frozen=True, tag="dice.seeded"):
    """The players' client seed for the open commitment, given after it was published and
    before any die was drawn under it: its dice use this client seed from now on, and
    the server seed, drawn before the players chose it, cannot have been picked to suit
    it (docs/dice.md)."""

    commitment: str
    client_seed: str

    def summary(self) -> str:
        return _(
            "dice seeded: {commitment}, client seed {seed!r}",
            commitment=self.commitment[:16],
            seed=self.client_seed,
        )


class ActionSealed(Event, frozen=True, kw_only=True, tag="action.sealed"):
    """An action recorded sealed (a GM's blind roll, a player's private roll, a whisper):
    what anyone may know of it, and ``commitment``, the sha256 of its sealed content (the
    events it decided and how, :class:`ledger.log.sealing.Sealed`) and a salt, fixed in the
    chain when it is made. The content and its salt are kept beside the log, in the GM's
    store, until :class:`ActionRevealed` publishes them (docs/dice.md, "Sealed rolls")."""

    command: str
    """The command's stable name (``core.Roll``)."""
    label: str = ""
    """What was rolled, as the roller named it (a roll's label, a command's name)."""
    visibility: str
    """``private`` (the roller and the GM see it), ``blind`` (the GM only) or ``whisper``
    (a note for ``to`` and the GM only)."""
    to: tuple[str, ...] = ()
    """A whisper's recipients: characters of the campaign."""
    seat: str | None = None
    """The seat that made it, when one did."""
    commitment: str
    dice: str | None = None
    """The provable dice commitment its virtual dice were derived under, if any."""
    nonce: int | None = None
    """The number of its first die under ``dice``."""
    drawn: int = 0
    """How many dice it drew under ``dice`` (their faces are sealed, their count is not)."""

    def summary(self) -> str:
        if self.visibility == "whisper":
            return _("whispered to {names}, sealed", names=", ".join(self.to))
        shown = {"private": _("private"), "blind": _("blind")}.get(self.visibility, self.visibility)
        if self.label:
            return _("rolled {label}, sealed ({visibility})", label=self.label, visibility=shown)
        return _("rolled, sealed ({visibility})", visibility=shown)


class ActionRevealed(Event, frozen=True, tag="action.revealed"):
    """A sealed action's content and salt, published: anyone re-hashes them against the
    commitment its :class:`ActionSealed` (version ``sealed``) fixed when it was made."""

    sealed: int
    """The version of the ``action.sealed`` event it opens."""
    content: str
    """The sealed content, its canonical JSON text, as committed."""
    salt: str
    """The salt, 32 hex digits."""
    what: str = ""
    """The revealed action's first event, as the log words it."""
    actor: str | None = None
    """The character the sealed action was recorded under: its events are folded as theirs."""
    folded: bool = True
    """Whether its events fold into the game where the reveal stands: false when the sealed
    action was undone by then (an undone roll is revealed, never played)."""

    def summary(self) -> str:
        if self.what:
            return _("revealed v{version}: {what}", version=self.sealed, what=retold(self.what))
        return _("revealed v{version}", version=self.sealed)


RESETS = (ActionUndone, ActionRedone)


def redoable(trailing: list[Event]) -> list[ActionUndone]:
    """The undos a redo could bring back, oldest first, given the resets that end a
    branch (newest first): each redo takes back the latest undo still standing."""
    stack: list[ActionUndone] = []
    for reset in reversed(trailing):
        if isinstance(reset, ActionUndone):
            stack.append(reset)
        elif stack:
            stack.pop()
    return stack


DICE_EVENTS = (DiceCommitted, DiceSeeded, DiceRevealed)
"""Events that open, seed and close dice commitments: no command's, never undone."""

CORE_EVENTS: tuple[type[Event], ...] = (
    LedgerCreated,
    CampaignRegistered,
    CampaignStarted,
    BranchForked,
    CharacterAdded,
    Rolled,
    Noted,
    ActionUndone,
    ActionRedone,
    DiceCommitted,
    DiceRevealed,
    DiceSeeded,
    ActionSealed,
    ActionRevealed,
)


class Decision(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """How an action was decided, kept on its first event so that an import can
    decide it again and compare: the command, every die face drawn in order, and
    the rules versions it was decided under (``rules``)."""

    command: str
    """The command's stable name, ``core.<Class>`` or ``<system>.<Class>``, whatever
    module the class lives in (``ledger.systems.commands``)."""
    args: dict[str, Any]
    faces: tuple[int, ...] = ()
    manual: bool = False
    """The faces were physical dice (``--faces``)."""
    rules: str = ""
    """The rules versions in force, ``core=3 <system>=1`` (``ledger.deciding.action.rules_in_force``).
    Decisions recorded before versions were kept hold a 32-hex hash of the rules' code
    instead: they are version 1 of both. An import decides every action again under the
    versions it records (docs/reliability.md)."""
    commitment: str | None = None
    """The dice commitment the faces were derived under (virtual dice while one is open)."""
    nonce: int | None = None
    """The number of the first die under the commitment; the action's dice follow it
    one by one (``nonce``, ``nonce + 1``, ...)."""
    sides: tuple[int, ...] = ()
    """The sides of each derived die, in order (a Fate die as 3)."""
    seat: str | None = None
    """The device or seat the action was recorded from (``Ledger.execute(seat=...)``), a
    name as a character's is checked; None when none was named (the command line)."""
    party: bool = False
    """The action is the party's, not a character's (a command reaching the whole party:
    ``ledger.deciding.authority.Reach.PARTY``): its events are recorded under no actor and
    told as the party's. Recorded since the ledger told the party's actions apart; an older
    such action is recorded under the character who was acting."""


E = TypeVar("E")


class Envelope(msgspec.Struct, Generic[E], frozen=True, kw_only=True, gc=False):
    """A stored event. ``hash`` must stay the last field: it covers the bytes
    before it (see ``ledger.log.chain``)."""

    later_fields: ClassVar[frozenset[str]] = frozenset({"decision"})
    """As :attr:`Event.later_fields`: events recorded before decisions were kept have none."""

    v: int
    campaign: str
    action: str
    at: str
    day: int | None = None
    actor: str | None = None
    last_reset: int = 0
    decision: Decision | None = None
    """On an action's first event (recorded since format 1 gained it; older events: None)."""
    prev: str
    event: E
    hash: str = ""


def system_events(system: str) -> tuple[type[Event], ...]:
    """The event types of one installed system (``Rules.events``); none for an unknown name."""
    return tuple(get_system(system).rules.events) if system in system_names() else ()


@cache
def envelope_decoder(system: str | None) -> msgspec.json.Decoder[Any]:
    """A decoder for the envelopes of one system's campaigns (built once)."""
    types = CORE_EVENTS + (system_events(system) if system else ())
    union = Union[types]  # noqa: UP007 - a runtime union of classes
    return msgspec.json.Decoder(Envelope[union])  # type: ignore[valid-type]


encoder = msgspec.json.Encoder()
