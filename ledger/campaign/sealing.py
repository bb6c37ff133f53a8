"""Sealed actions on the recording side: an action asked sealed becomes an ``action.sealed``
event with its content and salt kept in the GM's store (:data:`SEALED_TABLE`); a reveal
records them in the log (``action.revealed``); a seat reads a sealed content only as
:func:`ledger.log.sealing.content_seen` lets it (docs/dice.md, "Sealed rolls").

Imports the history, the store and the sealing rules of the log; loaded only when a sealed
action is made, read or revealed.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ledger.campaign.history import History
from ledger.errors import GiveOption, Input, LedgerError, RuleError, RunCommand, SealedError
from ledger.i18n import _
from ledger.log import sealing
from ledger.log.events import ActionRevealed, ActionSealed, Decision, Envelope, Event
from ledger.log.records import Campaign, Tip
from ledger.log.store import SEALED_TABLE, Store

if TYPE_CHECKING:
    from ledger.dice.sources import Dice
    from ledger.log.state import CampaignState
    from ledger.systems import System

_TOPIC = "sealed"
_SEALED_KIND = b'"kind":"action.sealed"'
_REVEALED_KIND = b'"kind":"action.revealed"'

CORE_SEALED = ("core.Roll", "core.Note")
"""The core's commands that may be sealed whatever they fold (a plain roll, a table roll,
a whisper): what they change (a sheet's count of rolls, its last roll) waits for the reveal.
A system's command may be sealed when its events change nothing of the game state."""


def keep(store: Store, commitment: str, content: str, salt: str) -> None:
    """Keep a sealed content beside the log, under its commitment (written before the
    ``action.sealed`` that names it: an append that loses its race leaves a row no event
    names, which nothing reads)."""
    raw = msgspec.json.encode(sealing.Kept(content, salt))
    if not store.put_private(SEALED_TABLE, commitment, 1, _TOPIC, raw):
        raise LedgerError(_("a sealed action's commitment was drawn twice; nothing was recorded, try again"))


def kept(store: Store, commitment: str) -> sealing.Kept | None:
    """The content and salt kept under a commitment, if this ledger holds them."""
    rows = store.private_records(SEALED_TABLE, commitment)
    if not rows:
        return None
    try:
        found = msgspec.json.decode(bytes(rows[0].state), type=sealing.Kept)
    except msgspec.DecodeError:
        return None
    return found if sealing.commitment_of(found.salt, found.content) == commitment else None


def check_visibility(visibility: str, to: tuple[str, ...], state: CampaignState) -> str:
    """The visibility an action is recorded with: ``public``, ``private`` or ``blind``, or
    ``whisper`` when it names recipients (each a character of the campaign)."""
    if visibility not in sealing.VISIBILITIES and visibility != sealing.WHISPER:
        raise LedgerError(
            _("visibility {visibility!r} is none of public, private, blind", visibility=visibility[:40]),
            fix=GiveOption(
                text=_("give `visibility` public, private or blind"), inputs=(Input("visibility"),)
            ),
        )
    if not to:
        if visibility == sealing.WHISPER:
            raise LedgerError(
                _("a whisper names its recipients"),
                fix=GiveOption(text=_("name them with `to`"), inputs=(Input("to", "NAME"),)),
            )
        return visibility
    if visibility not in (sealing.PUBLIC, sealing.WHISPER):
        raise LedgerError(
            _("a whisper is read by its recipients; it cannot also be {visibility}", visibility=visibility)
        )
    known = state.core.characters
    for name in to:
        if name not in known:
            raise LedgerError(
                _(
                    "no character named {name!r} to whisper to (characters: {characters})",
                    name=name,
                    characters=", ".join(known) or _("none yet"),
                ),
                fix=GiveOption(
                    text=_("name a character of the campaign with `to`"), inputs=(Input("to", "NAME"),)
                ),
            )
    return sealing.WHISPER


def sealed_event(
    c: Campaign,
    tip: Tip,
    system: System,
    events: list[Event],
    after: CampaignState,
    how: Decision | None,
    *,
    visibility: str,
    to: tuple[str, ...],
    seat: str | None,
    label: str,
    store: Store,
) -> ActionSealed:
    """The ``action.sealed`` event that stands for ``events`` (which led ``tip`` to
    ``after``), their content and salt kept in ``store``; refused when the action may not
    be sealed: it changes what others see of the game, or its dice are known to all."""
    command = how.command if how is not None else "?"
    if tip.state.core.seed is not None:
        raise RuleError(
            _(
                "campaign {campaign!r} rolls seeded dice, whose seed its log shows: a sealed roll would "
                "be rolled again by anyone; roll it in public",
                campaign=c.name,
            ),
        )
    if visibility != sealing.WHISPER and (how is None or not how.faces):
        raise RuleError(
            _("`{what}` rolls no dice: only a roll is made private or blind", what=label or command)
        )
    if visibility == sealing.WHISPER and command != "core.Note":
        raise RuleError(_("only a note is whispered"))
    if command not in CORE_SEALED and not unchanged(tip.state, after):
        raise RuleError(
            _(
                "`{what}` changes the {system} game state the whole table sees, so it "
                "cannot be sealed; make it in public (sealed: plain rolls, table rolls, checks whose "
                "result the GM applies)",
                what=label or command,
                system=system.name,
            ),
        )
    salt = secrets.token_hex(16)
    content = sealing.encode(sealing.Sealed(how, list(events)))
    commitment = sealing.commitment_of(salt, content)
    keep(store, commitment, content, salt)
    derived = how is not None and how.commitment is not None and how.nonce is not None
    return ActionSealed(
        command=command,
        label=label,
        visibility=visibility,
        to=to,
        seat=seat,
        commitment=commitment,
        dice=how.commitment if derived and how is not None else None,
        nonce=how.nonce if derived and how is not None else None,
        drawn=len(how.faces) if derived and how is not None else 0,
    )


def unchanged(before: CampaignState, after: CampaignState) -> bool:
    """Whether folding an action left the game state, and the campaign's own, as they were
    (but for its version, day and acting character, which the sealed event moves too)."""
    if before.game != after.game:
        return False
    b, a = before.core, after.core
    return (b.characters, b.attrs, b.tables, b.settings, b.forks) == (
        a.characters,
        a.attrs,
        a.tables,
        a.settings,
        a.forks,
    )


def label_of(command: Any, name: str, events: Sequence[Event] = ()) -> str:
    """What a sealed action is told as: the roll's label (given, or decided from the words
    after its notation: ``1d100 encounter``), else its notation, else its command's word and
    what it rolls (``check SAB``, ``test Spot Hidden``, ``roll shoot``): what was rolled is
    no secret; what came up is."""
    for event in events:
        value = getattr(event, "label", "")
        if isinstance(value, str) and value:
            return value
    for field in ("label", "notation"):
        value = getattr(command, field, "")
        if isinstance(value, str) and value:
            return value
    word = name.split(".", 1)[-1].lower()
    for field in ("skill", "what", "weapon", "table", "attribute"):
        value = getattr(command, field, None)
        if isinstance(value, str) and value:
            return f"{word} {value.upper() if field == 'attribute' else value}"
    return word


class Pending(msgspec.Struct, frozen=True):
    """A sealed action of a branch and whether it was revealed."""

    env: Envelope[Any]
    revealed: bool


def sealed_actions(history: History, c: Campaign, upto: int | None = None) -> list[Pending]:
    """Every ``action.sealed`` of a branch (up to ``upto``), undone ones too, with whether a
    reveal followed."""
    found: dict[int, Envelope[Any]] = {}
    opened: set[int] = set()
    for v, raw in enumerate(history.stored(c, 0, upto), start=1):
        if _SEALED_KIND not in raw and _REVEALED_KIND not in raw:
            continue  # most events: not decoded
        env = history.decode(c, bytes(raw), v)
        ev = env.event
        if isinstance(ev, ActionSealed):
            found[env.v] = env
        elif isinstance(ev, ActionRevealed):
            opened.add(ev.sealed)
    return [Pending(env, v in opened) for v, env in found.items()]


def not_revealed(history: History, c: Campaign, commitment: str) -> list[int]:
    """The versions of the sealed actions still unrevealed whose dice were drawn under a
    provable commitment: its seed would tell their faces."""
    return [p.env.v for p in sealed_actions(history, c) if not p.revealed and p.env.event.dice == commitment]


class RevealSealed:
    """Revealing sealed actions: the content and salt of each, from the GM's store."""

    by_actor: ClassVar[bool] = False

    def __init__(self, history: History, c: Campaign, version: int | None) -> None:
        self.history, self.c, self.version = history, c, version

    def decide(self, tip: Tip, _dice: Dice) -> list[Event]:
        # the whole stored branch: a head this ledger remembers may be behind another
        # process's append, which the append then finds (and decides again on)
        pending = sealed_actions(self.history, self.c)
        if self.version is not None:
            chosen = [p for p in pending if p.env.v == self.version]
            if not chosen:
                raise SealedError(
                    _(
                        "version {version} of {campaign!r} is no sealed action",
                        version=self.version,
                        campaign=self.c.name,
                    ),
                    fix=RunCommand(text=_("see the log for sealed actions"), command="log"),
                )
            if chosen[0].revealed:
                raise LedgerError(
                    _(
                        "version {version} of {campaign!r} was revealed already",
                        version=self.version,
                        campaign=self.c.name,
                    )
                )
        else:  # every sealed roll; a whisper is revealed by its version only
            chosen = [p for p in pending if not p.revealed and p.env.event.visibility != sealing.WHISPER]
            if not chosen:
                raise LedgerError(
                    _("campaign {campaign!r} has no sealed roll left to reveal", campaign=self.c.name)
                )
        events: list[Event] = []
        for p in chosen:
            ev: ActionSealed = p.env.event
            held = kept(self.history.store, ev.commitment)
            if held is None:
                raise LedgerError(
                    _(
                        "the content of sealed version {version} is not in this ledger (a players' "
                        "export carries commitments only); reveal it from the GM's ledger",
                        version=p.env.v,
                    )
                )
            what = told(held.content, self.c.system)
            live = sealing.live_at(lambda u: self.history.envelope(self.c, u), tip.version, p.env.v)
            events.append(
                ActionRevealed(
                    sealed=p.env.v,
                    content=held.content,
                    salt=held.salt,
                    what=what,
                    actor=p.env.actor,
                    folded=live,
                )
            )
        return events


def told(content: str, system: str) -> str:
    """A sealed content's first event, as the log words it."""
    try:
        found = sealing.decode(content, system)
    except ValueError:
        return ""
    return found.events[0].stored_summary() if found.events else ""


def content_for(
    history: History, c: Campaign, version: int, viewer: sealing.Viewer, summary: Any
) -> dict[str, Any]:
    """What a sealed action holds, for a viewer who may see it: its events as the log
    words them and as data, and its faces; refused, naming nothing of it, for any other."""
    head = history.head(c)
    env = history.envelope(c, version) if 1 <= version <= head else None
    if env is None or not isinstance(env.event, ActionSealed) or not sealing.entry_seen(viewer, env):
        raise SealedError(
            _(
                "version {version} of {campaign!r} is no sealed action this seat may read",
                version=version,
                campaign=c.name,
            )
        )
    ev: ActionSealed = env.event
    revealed = any(p.env.v == version and p.revealed for p in sealed_actions(history, c))
    if not revealed and not sealing.content_seen(viewer, ev, env.actor):
        raise SealedError(
            _(
                "version {version} of {campaign!r} is sealed: its result is the GM's until revealed",
                version=version,
                campaign=c.name,
            )
        )
    held = kept(history.store, ev.commitment)
    if held is None:
        raise SealedError(_("the content of sealed version {version} is not in this ledger", version=version))
    found = sealing.decode(held.content, c.system)
    how = found.decision
    return {
        "version": version,
        "visibility": ev.visibility,
        "revealed": revealed,
        "summaries": [summary(e) for e in found.events],
        "events": [msgspec.to_builtins(e) for e in found.events],
        "faces": list(how.faces) if how is not None else [],
    }
