"""The campaign state every system shares, and the fold that builds it."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.i18n import N_, _
from ledger.log.events import (
    ActionRevealed,
    BranchForked,
    CampaignStarted,
    CharacterAdded,
    Envelope,
    Event,
)
from ledger.systems import System


class CoreState(msgspec.Struct, frozen=True, gc=False):
    """What every campaign knows about itself, whatever the system."""

    campaign_id: str = ""
    name: str = ""
    system: str = ""
    seed: int | None = None
    settings: dict[str, Any] = {}
    tables: dict[str, Any] = {}
    characters: tuple[str, ...] = ()
    attrs: dict[str, dict[str, str]] = {}
    last_actor: str | None = None
    version: int = 0
    day: int | None = None
    forks: tuple[str, ...] = ()


class CampaignState(msgspec.Struct, frozen=True):
    core: CoreState = CoreState()
    game: Any = None


def _started(core: CoreState, ev: CampaignStarted, env: Envelope[Any]) -> CoreState:
    return replace(
        core,
        campaign_id=env.campaign,
        name=ev.name,
        system=ev.system,
        seed=ev.seed,
        settings=ev.settings,
        tables=_with_settings(ev.tables, ev.settings),
    )


def _with_settings(tables: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """The campaign's tables as played: its settings (``--setting KEY=VALUE``) win over the
    ``[settings]`` of its tables, for the rules and for ``ledger tables`` alike."""
    if not settings:
        return tables
    return {**tables, "settings": {**tables.get("settings", {}), **settings}}


def _character(core: CoreState, ev: CharacterAdded, env: Envelope[Any]) -> CoreState:
    attrs = dict(core.attrs)
    attrs[ev.name] = dict(ev.attrs)
    return replace(core, characters=(*core.characters, ev.name), attrs=attrs, last_actor=ev.name)


def _forked(core: CoreState, ev: BranchForked, env: Envelope[Any]) -> CoreState:
    return replace(core, name=ev.name, forks=(*core.forks, ev.name))


_CORE = {CampaignStarted: _started, CharacterAdded: _character, BranchForked: _forked}


def evolve(state: CampaignState, env: Envelope[Any], system: System) -> CampaignState:
    """Fold one stored event into the campaign state."""
    ev: Event = env.event
    if isinstance(ev, ActionRevealed) and ev.folded:
        return evolve_core(state, env, system, revealed(state.game, ev, env, system))
    game = (
        system.rules.initial(ev)
        if isinstance(ev, CampaignStarted)
        else system.rules.evolve(state.game, ev, env)
    )
    return evolve_core(state, env, system, game)


def revealed(game: Any, ev: ActionRevealed, env: Envelope[Any], system: System) -> Any:
    """The game state once a sealed action is revealed: its events folded, as its actor's,
    where the reveal stands (until then its ``action.sealed`` folded nothing). A content
    that cannot be read folds nothing (``verify`` names it)."""
    from ledger.log import sealing  # lazy: only a reveal needs it

    try:
        content = sealing.decode(ev.content, system.name)
    except ValueError:
        return game
    for inner in content.events:
        game = system.rules.evolve(game, inner, replace(env, event=inner, actor=ev.actor))
    return game


def evolve_core(state: CampaignState, env: Envelope[Any], system: System, game: Any) -> CampaignState:
    """Fold one stored event into the campaign state whose game state, ``game``, the
    system's fold already gave (as a command's draft folds it while deciding)."""
    ev: Event = env.event
    core = state.core
    handler = _CORE.get(type(ev))
    if handler is not None:
        core = handler(core, ev, env)  # type: ignore[operator]
    actor = env.actor if env.actor is not None else core.last_actor
    core = replace(core, version=env.v, day=system.rules.day(game), last_actor=actor)
    return CampaignState(core, game)


SUBJECT_FIELDS = ("character", "who")
"""The fields by which an event names the character it is about."""


PARTY = N_("the party")
"""Whose the party's action is (``Decision.party``), told in a log or a journal."""
PARTY_BY = N_("the party (seat {seat})")
"""Whose the party's action is, with the seat that issued it."""


def told_as(event: Event, actor: str | None, party: bool = False, seat: str | None = None) -> str | None:
    """Whose an event is, told in a log or a journal: the character it is about (its
    ``character`` or ``who``: "Bob gains a Rot point" is Bob's, whoever acted), else the
    party's when its action is the party's (with the ``seat`` that issued it, when one is
    given: ``the party (seat gm)``), else the actor its action was recorded under."""
    for field in SUBJECT_FIELDS:
        value = getattr(event, field, None)
        if isinstance(value, str) and value:
            return value
    return told_party(seat) if party else actor


def told_party(seat: str | None = None) -> str:
    """The party, as its action is told: with the seat that issued it, when one did."""
    return _(PARTY) if seat is None else _(PARTY_BY, seat=seat)


def told_on(event: Event, day: int | None) -> int | None:
    """The game day an event is told on: the day it names ("day 0 ends" is recorded once
    day 1 has begun), else ``day``, the day it was recorded on."""
    named = getattr(event, "day", None)
    if day is not None and isinstance(named, int) and not isinstance(named, bool):
        return named
    return day
