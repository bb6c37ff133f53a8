"""The campaigns of one store: the registry that names them (its own stream of
events), the current campaign, the character each campaign acts as, and starting a
campaign.

Imports the store, the chain, the events, the records and the name checks (``ledger.text``);
the recording's retries and size check (``ledger.campaign.recording``), the dice commitments
(``ledger.dice.provable``) and the acting character's rule (``ledger.deciding.action``) where a
campaign is started, registered or acted in, so that a command that only reads loads none of them.
"""

from __future__ import annotations

import contextlib
import functools
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from ledger.errors import (
    ConflictError,
    DropOption,
    DuplicateNameError,
    LedgerError,
    NoActorError,
    NoCurrentCampaignError,
    NotALedgerError,
    RunCommand,
    UnknownCampaignError,
)
from ledger.i18n import _
from ledger.log import chain
from ledger.log.events import (
    FORMAT,
    BranchForked,
    CampaignRegistered,
    CampaignStarted,
    Envelope,
    Event,
    LedgerCreated,
    envelope_decoder,
)
from ledger.log.records import Campaign, Rows, unreadable
from ledger.log.state import CampaignState
from ledger.log.store import Store, VersionConflict
from ledger.systems import get_system
from ledger.text import check_distinct, check_name, nfc

REGISTRY = "registry"

Registration = Callable[[], tuple[CampaignRegistered, Rows]]
"""What registers a campaign: its registry event and its stream's first rows, made again
when another writer registered first."""


@functools.cache
def _opening() -> msgspec.json.Decoder[Envelope[LedgerCreated]]:
    """A decoder of the registry's first event, as opening a ledger reads it (built once)."""
    return msgspec.json.Decoder(Envelope[LedgerCreated])


class Campaigns:
    """The registry of one store, read once and then only what was appended since; the
    current campaign and each campaign's acting character, choices of this ledger that
    are never events."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._registry_version = 0
        self._by_name: dict[str, Campaign] = {}
        self._by_id: dict[str, Campaign] = {}
        self._registry_hash = chain.GENESIS
        self._chosen: dict[str, str | None] = {}
        """The acting character chosen per campaign id, as read once from the store."""
        self._open()

    # --- the registry -------------------------------------------------------------

    def _open(self) -> None:
        first = self.store.first(REGISTRY)
        if first is None:
            env = Envelope(
                v=1,
                campaign=REGISTRY,
                action=chain.new_action(),
                at=chain.now(),
                prev=chain.GENESIS,
                event=LedgerCreated(),
            )
            raw, __ = chain.seal(env)
            with contextlib.suppress(VersionConflict):  # another process created it first
                self.store.append([(REGISTRY, 1, "ledger.created", raw)])
            first = self.store.first(REGISTRY)
            if first is None:
                raise NotALedgerError(
                    _("{store} has no registry; restore it from a backup", store=self.store.describe())
                )
        try:
            try:  # a ledger begins with its creation: decoded alone, no decoder of every core event built
                env = _opening().decode(first)
            except msgspec.DecodeError:  # anything else is told apart by the full decoder
                env = envelope_decoder(None).decode(first)
        except msgspec.DecodeError as e:
            raise NotALedgerError(
                _(
                    "{store} has an unreadable registry ({problem}); restore it from a backup",
                    store=self.store.describe(),
                    problem=e,
                )
            ) from e
        created = env.event
        if not isinstance(created, LedgerCreated):
            raise NotALedgerError(_("{store} is not a campaign-ledger store", store=self.store.describe()))
        if created.format > FORMAT:
            raise NotALedgerError(
                _(
                    "{store} was written by a newer campaign-ledger "
                    "(format {format}, this one reads up to {known}); upgrade campaign-ledger",
                    store=self.store.describe(),
                    format=created.format,
                    known=FORMAT,
                )
            )

    def refresh(self) -> None:
        """Read the registry events appended since the last read."""
        decoder = envelope_decoder(None)
        for stored in self.store.scan(REGISTRY, gt=self._registry_version):
            try:
                env = decoder.decode(stored.state)
            except msgspec.DecodeError as e:
                raise unreadable("(registry)", stored.originator_version, e) from e
            self._registry_version = env.v
            self._registry_hash = env.hash
            ev = env.event
            if isinstance(ev, CampaignRegistered):
                lineage: tuple[tuple[str, int, int | None], ...] = ((ev.campaign_id, 0, None),)
                if ev.parent_id is not None and ev.parent_version is not None:
                    parent = self._by_id[ev.parent_id]
                    cut = ev.parent_version
                    lineage = (
                        *(
                            (s, lo, cut if hi is None or hi > cut else hi)
                            for s, lo, hi in parent.lineage
                            if lo < cut
                        ),
                        (ev.campaign_id, cut, None),
                    )
                c = Campaign(
                    ev.campaign_id,
                    ev.name,
                    ev.system,
                    ev.parent_id,
                    ev.parent_version,
                    ev.imported,
                    lineage,
                    ev.signed_by,
                )
                self._by_name[c.name] = c
                self._by_id[c.id] = c

    def all(self) -> list[Campaign]:
        self.refresh()
        return list(self._by_name.values())

    def named(self, name: str | None = None) -> Campaign:
        """A campaign by name; without one, the current campaign (see :meth:`current`)."""
        if name is not None and name in self._by_name:
            return self._by_name[name]  # a registered name never changes what it names
        self.refresh()
        if name is None:
            return self.current()
        try:
            return self._by_name[nfc(name)]
        except KeyError:
            raise UnknownCampaignError(name, sorted(self._by_name)) from None

    def by_id(self, campaign_id: str) -> Campaign:
        """A campaign by its id (a fork's ``parent_id``, say)."""
        if campaign_id not in self._by_id:
            self.refresh()
        try:
            return self._by_id[campaign_id]
        except KeyError:
            raise LedgerError(_("no campaign has the id {id!r}", id=campaign_id)) from None

    def summary(self, event: Event) -> str:
        """What ``event`` says, as this ledger tells it: a fork names its parent only when
        the ledger holds a campaign with the parent's id (see ``BranchForked.told``)."""
        if not isinstance(event, BranchForked):
            return event.summary()
        if event.parent_id not in self._by_id:
            self.refresh()
        held = self._by_id.get(event.parent_id)
        return event.told(held.name if held is not None else None)

    def register(self, make: Registration, *, keep_current: bool = True) -> None:
        """Append a registry event together with a new stream's first rows: ``make`` gives
        both, and is called again when another writer registered first.

        A ledger's only campaign is current until one is chosen; before a second one
        arrives, that one is kept current (unless ``keep_current`` is False: a campaign
        started or forked here, which its caller may choose), so that an imported or
        simulated campaign never changes which campaign commands act on."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.campaign.recording import MAX_ATTEMPTS, backoff

        if keep_current:
            self._keep_current()
        for attempt in range(MAX_ATTEMPTS):
            self.refresh()
            registered, rows = make()
            if registered.name in self._by_name:
                raise DuplicateNameError(
                    _("a campaign named {name!r} exists; choose another name", name=registered.name)
                )
            check_distinct(registered.name, self._by_name, "campaign")
            env = Envelope(
                v=self._registry_version + 1,
                campaign=REGISTRY,
                action=chain.new_action(),
                at=chain.now(),
                prev=self._registry_hash,
                event=registered,
            )
            raw, __ = chain.seal(env)
            try:
                self.store.append([(REGISTRY, env.v, registered.kind, raw), *rows])
                self.refresh()
                return
            except VersionConflict:
                backoff(attempt)
        raise ConflictError(_("the campaign registry is busy; try again"))

    def start(
        self,
        system: str,
        name: str,
        *,
        seed: int | None = None,
        tables: str | None = None,
        settings: dict[str, Any] | None = None,
        commit: bool = True,
        client_seed: str = "",
    ) -> Campaign:
        """Start a campaign; unless ``commit`` is False or the dice are seeded, its first
        dice commitment opens with it (see ledger.dice.provable)."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.campaign.recording import check_size
        from ledger.dice import provable as fairness

        sysdef = get_system(system)
        name = check_name(name, "campaign")
        if settings:
            if sysdef.rules.check_settings is None:
                raise LedgerError(
                    _("the {system} system takes no settings", system=system),
                    field="settings",
                    fix=DropOption(text=_("drop `settings`"), inputs=("settings",)),
                )
            settings = sysdef.rules.check_settings(settings)
        table_data: dict[str, Any] = {}
        source: str | None = None
        if sysdef.rules.load_tables is not None:
            table_data, source = sysdef.rules.load_tables(tables)
        elif tables is not None:
            raise LedgerError(
                _("the {system} system has no tables", system=system),
                fix=DropOption(text=_("drop `tables`"), inputs=("tables",)),
            )
        if seed is not None and not 0 <= seed < 2**63:
            raise LedgerError(_("`seed` {seed} is out of range; use 0 to 2**63-1", seed=seed), field="seed")
        client_seed = fairness.check_client_seed(client_seed)
        if client_seed and (not commit or seed is not None):
            raise LedgerError(
                _(
                    "`client_seed` goes into a dice commitment, and a campaign with `seed` or `commit=False` "
                    "opens none; drop one of them"
                ),
                field="client_seed",
            )
        cid = str(uuid.uuid4())
        commitment = fairness.new_seed(self.store, client_seed, cid) if commit and seed is None else None
        started = CampaignStarted(
            name=name,
            system=system,
            seed=seed,
            settings=settings or {},
            tables=table_data,
            tables_source=source,
            commitment=commitment or msgspec.UNSET,
            client_seed=client_seed if commitment else msgspec.UNSET,
        )
        env = Envelope(
            v=1, campaign=cid, action=chain.new_action(), at=chain.now(), prev=chain.GENESIS, event=started
        )
        raw, __ = chain.seal(env)
        check_size(raw)

        def make() -> tuple[CampaignRegistered, Rows]:
            return (
                CampaignRegistered(campaign_id=cid, name=name, system=system),
                [(cid, 1, started.kind, raw)],
            )

        self.register(make, keep_current=False)
        return self._by_name[name]

    # --- the current campaign -------------------------------------------------------

    def current(self) -> Campaign:
        """The current campaign: the one last chosen with :meth:`use` (``ledger use``,
        ``ledger new``, ``ledger fork``); the only campaign when none was chosen.
        Bulk work (simulate, import) never changes it."""
        self.refresh()
        chosen = self.current_id()
        if chosen is not None and chosen in self._by_id:
            return self._by_id[chosen]
        if len(self._by_name) == 1:
            return next(iter(self._by_name.values()))
        if not self._by_name:
            raise NoCurrentCampaignError(
                _("no campaigns yet"),
                [],
                fix=RunCommand(text=_("create one with `new`"), command="new", arguments=("SYSTEM", "NAME")),
            )
        known = sorted(self._by_name)
        shown = ", ".join(known[:8])
        if len(known) > 8:
            shown = _("{names} and {more} more", names=shown, more=len(known) - 8)
        raise NoCurrentCampaignError(
            _("no current campaign (there are {count}: {names})", count=len(known), names=shown),
            known,
            fix=RunCommand(
                text=_("choose one with `use` or give `campaign` NAME"), command="use", arguments=("NAME",)
            ),
        )

    def current_id(self) -> str | None:
        """The id of the campaign chosen with :meth:`use`, if any."""
        return self.store.current_campaign()

    def _keep_current(self) -> None:
        """Choose the only campaign, current without being chosen, before another arrives."""
        self.refresh()
        if len(self._by_name) == 1 and self.current_id() not in self._by_id:
            self.store.use_campaign(next(iter(self._by_name.values())).id)

    def use(self, name: str) -> Campaign:
        """Make the campaign ``name`` current: commands without a campaign act on it."""
        c = self.named(name)
        if self.store.current_campaign() != c.id:
            self.store.use_campaign(c.id)
        return c

    # --- the acting character: a choice of this ledger, per campaign, never an event ---

    def acting(self, c: Campaign, state: CampaignState) -> str | None:
        """The character a command acts as when none is named: the one chosen with
        :meth:`act_as` while it is still a character of the campaign (in ``state``),
        else its only character; None when it has none, or several and none was chosen."""
        chars = state.core.characters
        if len(chars) < 2:
            return chars[0] if chars else None
        chosen = self.chosen(c)
        return chosen if chosen in chars else None

    def chosen(self, c: Campaign) -> str | None:
        """The acting character chosen in ``c``, as the store keeps it (read once)."""
        if c.id not in self._chosen:
            self._chosen[c.id] = self.store.acting_character(c.id)
        return self._chosen[c.id]

    def choose(self, c: Campaign, name: str) -> None:
        if self.chosen(c) != name:
            self.store.act_as(c.id, name)
        self._chosen[c.id] = name

    def forget_choice(self, c: Campaign) -> None:
        """Read the acting character of ``c`` again when next needed (a batch may have chosen it)."""
        self._chosen.pop(c.id, None)

    def act_as(self, c: Campaign, state: CampaignState, name: str) -> str:
        """Choose the character that commands of ``c`` act as when none is named."""
        # lazy: a command that reads imports none of the recording (tests/test_cli_startup.py)
        from ledger.deciding.action import actor_in

        chosen = actor_in(state, name)
        assert chosen is not None  # a name was asked for: it exists or was refused
        self.choose(c, chosen)
        return chosen

    def acting_or_refuse(self, c: Campaign, state: CampaignState) -> str | None:
        """The acting character, refused when the campaign has several and none was chosen."""
        acting = self.acting(c, state)
        chars = state.core.characters
        if acting is None and len(chars) > 1:
            raise NoActorError(state.core.name, list(chars))
        return acting

    def keep_acting(self, c: Campaign, before: CampaignState, after: CampaignState) -> None:
        """After a character joins: the first of a campaign becomes the acting one, and an
        only character that was acting stays so (a newcomer never takes the choice over)."""
        if self.chosen(c) in before.core.characters:
            return
        keep = self.acting(c, before)
        if keep is None and not before.core.characters and after.core.characters:
            keep = after.core.characters[0]
        if keep is not None:
            self.choose(c, keep)
