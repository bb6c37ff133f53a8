"""The yearzero fold: the state a new campaign starts from, and how each event evolves it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from ledger.log.events import CampaignStarted, CharacterAdded, Envelope, Event
from ledger.projections.yearzero.characters import parse_attrs
from ledger.projections.yearzero.game import (
    Booze,
    Character,
    Injury,
    PendingRoll,
    RotEntry,
    Sector,
    YZState,
    rot_interval,
)
from ledger.projections.yearzero.vocabulary import remember_tables
from ledger.systems.yearzero import events as ev


def initial(started: CampaignStarted) -> YZState:
    tables = started.tables
    remember_tables(tables)
    settings = {**tables.get("settings", {}), **started.settings}
    zone = tables.get("zone")
    ark = str(zone.get("ark", "")).strip().upper() if isinstance(zone, dict) else ""
    start = str(settings.get("start_hour", 8))
    start_hour = int(start) if start.isdigit() and int(start) < 24 else 8
    sectors = {ark: Sector(rot_level=0, explored=True, first_at=start_hour * 60)} if ark else {}
    return YZState(
        minute=start_hour * 60,
        tables=tables,
        settings=settings,
        ark=ark,
        position=ark,
        sectors=sectors,
        path=(ark,) if ark else (),
    )


def _update(state: YZState, name: str, fn: Callable[[Character], Character]) -> YZState:
    if name not in state.characters:
        return state
    chars = dict(state.characters)
    chars[name] = fn(chars[name])
    return replace(state, characters=chars)


def _clock(state: YZState, at: int | None) -> YZState:
    return replace(state, minute=max(state.minute, at)) if at is not None else state


def _set(c: Character, attribute: str, value: int) -> Character:
    current = dict(c.current)
    current[attribute] = value
    broken = dict(c.broken)
    if value > 0:
        broken.pop(attribute, None)
    return replace(c, current=current, broken=broken)


def _with_item(c: Character, name: str | None, **changes: Any) -> Character:
    if name is None or name not in c.gear:
        return c
    gear = dict(c.gear)
    gear[name] = replace(gear[name], **changes)
    return replace(c, gear=gear)


def _condition(c: Character, condition: str, active: bool) -> Character:
    rest = tuple(x for x in c.conditions if x != condition)
    return replace(c, conditions=(*rest, condition) if active else rest)


def _character_added(s: YZState, e: CharacterAdded, env: Envelope[Any]) -> YZState:
    character, _ = parse_attrs(e.name, e.attrs)
    chars = {**s.characters, e.name: character}
    return replace(s, characters=chars, order=(*s.order, e.name))


def _rolled(s: YZState, e: ev.Rolled, env: Envelope[Any]) -> YZState:
    pending = PendingRoll(
        env.action, e.character, e.attribute, e.skill, e.purpose, e.target, e.dice, e.item, e.successes
    )
    s = replace(s, pending=pending, rolls={**s.rolls, e.character: pending})
    if e.purpose == "heal" and e.target:

        def tried(c: Character) -> Character:
            injuries = tuple(
                replace(i, tried_by=(*i.tried_by, e.character)) if i.lethal else i for i in c.injuries
            )
            return replace(c, injuries=injuries)

        s = _update(s, e.target, tried)
    return s


def _pushed(s: YZState, e: ev.Pushed, env: Envelope[Any]) -> YZState:
    own = s.rolls.get(e.character)
    if own is not None:
        own = replace(own, pushed=True, dice=e.dice, successes=e.successes, action=env.action)
        s = replace(s, rolls={**s.rolls, e.character: own})
    if s.pending is not None and (own is None or s.pending.character == e.character):
        s = replace(
            s, pending=replace(s.pending, pushed=True, dice=e.dice, successes=e.successes, action=env.action)
        )

    def apply(c: Character) -> Character:
        c = replace(
            _set(c, e.attribute, e.attribute_after), mutation_points=c.mutation_points + e.mutation_points
        )
        if e.item_bonus_after is not None:
            c = _with_item(c, e.item, bonus=e.item_bonus_after)
        return c

    return _update(s, e.character, apply)


def _without_roll(s: YZState, character: str) -> dict[str, PendingRoll]:
    return {k: v for k, v in s.rolls.items() if k != character}


def _settled(s: YZState, e: ev.Settled, env: Envelope[Any]) -> YZState:
    s = replace(s, pending=None, rolls=_without_roll(s, e.character))
    if e.item is None or e.bonus_after is None or e.max_bonus_after is None:
        return s
    owner = _owner_of(s, e.item, e.character)
    return _update(
        s,
        owner,
        lambda c: _with_item(
            c, e.item, bonus=e.bonus_after, max_bonus=e.max_bonus_after, destroyed=e.destroyed
        ),
    )


def _owner_of(s: YZState, item: str, repairer: str) -> str:
    """Whose item a repair worked on: the repairer's own first, as the decider does."""
    if repairer in s.characters and item in s.characters[repairer].gear:
        return repairer
    for name, c in s.characters.items():
        if item in c.gear:
            return name
    return repairer


def _repaired(s: YZState, e: ev.Repaired, env: Envelope[Any]) -> YZState:
    s = replace(s, pending=None, rolls=_without_roll(s, e.character))
    owner = _owner_of(s, e.item, e.character)
    return _update(s, owner, lambda c: _with_item(c, e.item, bonus=e.bonus_after))


def _armor_rolled(s: YZState, e: ev.ArmorRolled, env: Envelope[Any]) -> YZState:
    return _update(s, e.character, lambda c: _with_item(c, e.item, bonus=e.rating_after))


def _worn(s: YZState, e: ev.Worn, env: Envelope[Any]) -> YZState:
    def wear(c: Character) -> Character:
        worn = dict(c.worn)
        if e.item is None:
            worn.pop(e.slot, None)
        else:
            worn[e.slot] = e.item
        return replace(c, worn=worn)

    return _update(s, e.character, wear)


def _trauma(s: YZState, e: ev.Trauma, env: Envelope[Any]) -> YZState:
    return _update(_clock(s, e.at), e.character, lambda c: _set(c, e.attribute, e.after))


def _broken(s: YZState, e: ev.Broken, env: Envelope[Any]) -> YZState:
    def brk(c: Character) -> Character:
        return replace(c, broken={**c.broken, e.attribute: e.getup_at})

    return _update(s, e.character, brk)


def _critical(s: YZState, e: ev.CriticalInjury, env: Envelope[Any]) -> YZState:
    injury = Injury(e.name, e.result, e.lethal and not e.instant, e.deadline_at, e.heals_at, e.effect)
    return _update(s, e.character, lambda c: replace(c, injuries=(*c.injuries, injury)))


def _healed(s: YZState, e: ev.Healed, env: Envelope[Any]) -> YZState:
    new_heal = dict(e.injuries)

    def heal(c: Character) -> Character:
        injuries = []
        for i in c.injuries:
            if i.name in e.saved:
                i = replace(i, lethal=False, deadline_at=None)
            if i.name in new_heal:
                i = replace(i, heals_at=new_heal[i.name])
            injuries.append(i)
        c = replace(c, injuries=tuple(injuries))
        if e.attribute and e.restored:
            c = _set(c, e.attribute, e.restored)
        return c

    return _update(s, e.character, heal)


def _injury_healed(s: YZState, e: ev.InjuryHealed, env: Envelope[Any]) -> YZState:
    def heal(c: Character) -> Character:
        return replace(c, injuries=tuple(i for i in c.injuries if i.name != e.name))

    return _update(_clock(s, e.at), e.character, heal)


def _died(s: YZState, e: ev.Died, env: Envelope[Any]) -> YZState:
    return _update(_clock(s, e.at), e.character, lambda c: replace(c, dead=True, death_cause=e.cause))


def _recovered(s: YZState, e: ev.Recovered, env: Envelope[Any]) -> YZState:
    return _update(_clock(s, e.at), e.character, lambda c: _set(c, e.attribute, e.after))


def _consumed(s: YZState, e: ev.Consumed, env: Envelope[Any]) -> YZState:
    condition = "hungry" if e.resource == "grub" else "thirsty"

    def eat(c: Character) -> Character:
        if e.use == "recovery":
            return replace(c, bank=(*c.bank, e.resource))
        c = _condition(c, condition, False) if e.use == "lifts" else c
        return replace(c, ate=True) if e.resource == "grub" else replace(c, drank=True)

    return _update(s, e.character, eat)


def _rest(c: Character, e: ev.Rested) -> Character:
    bank = list(c.bank)
    if c.name in e.sleep_kept:
        bank.append("sleep")
    if c.name in e.intimacy:
        bank.append("intimacy")
    if e.sleep and e.hours >= 4:
        c = replace(_condition(c, "sleepless", False), slept=True)
    return replace(c, bank=tuple(bank))


def _rested(s: YZState, e: ev.Rested, env: Envelope[Any]) -> YZState:
    for name in e.characters:
        s = _update(s, name, lambda c: _rest(c, e))
    return s


def _recovery_used(s: YZState, e: ev.Recovered, env: Envelope[Any]) -> YZState:
    """A rest recovery spends the matching banked resource."""
    s = _recovered(s, e, env)
    resource = {"strength": "grub", "agility": "water", "wits": "sleep", "empathy": "intimacy"}[e.attribute]
    if e.cause != "rest":
        return s

    def spend(c: Character) -> Character:
        bank = list(c.bank)
        if resource in bank:
            bank.remove(resource)
        return replace(c, bank=tuple(bank))

    return _update(s, e.character, spend)


def _condition_changed(s: YZState, e: ev.ConditionChanged, env: Envelope[Any]) -> YZState:
    return _update(_clock(s, e.at), e.character, lambda c: _condition(c, e.condition, e.active))


def _day_ended(s: YZState, e: ev.DayEnded, env: Envelope[Any]) -> YZState:
    s = _clock(s, e.at)
    chars = {n: replace(c, ate=False, drank=False, slept=False) for n, c in s.characters.items()}
    return replace(s, characters=chars)


def _time_passed(s: YZState, e: ev.TimePassed, env: Envelope[Any]) -> YZState:
    return replace(s, minute=max(s.minute, e.end))


def _boozed(s: YZState, e: ev.Boozed, env: Envelope[Any]) -> YZState:
    def drink(c: Character) -> Character:
        c = _set(c, "strength", c.current["strength"] + e.damage)
        c = _set(c, "empathy", c.current["empathy"] + e.doubt)
        return replace(c, booze=(*c.booze, Booze(e.damage, e.doubt, e.wears_off_at)))

    return _update(s, e.character, drink)


def _booze_wore_off(s: YZState, e: ev.BoozeWoreOff, env: Envelope[Any]) -> YZState:
    def wear_off(c: Character) -> Character:
        return replace(c, booze=tuple(b for b in c.booze if b.wears_off_at != e.at))

    return _update(_clock(s, e.at), e.character, wear_off)


def _hypothermia(s: YZState, e: ev.Hypothermia, env: Envelope[Any]) -> YZState:
    return _update(_clock(s, e.at), e.character, lambda c: _condition(c, "hypothermic", not e.warm))


def _rot_gained(s: YZState, e: ev.RotGained, env: Envelope[Any]) -> YZState:
    s = _clock(s, e.at)

    def gain(c: Character) -> Character:
        if e.absorbed or e.suit_after is not None:
            c = _with_item(c, e.suit, bonus=e.suit_after)
        if e.absorbed:
            return c
        return replace(c, rot=e.total, permanent_rot=e.permanent, washed=False)

    s = _update(s, e.character, gain)
    if not e.absorbed:
        entry = RotEntry(
            e.at if e.at is not None else s.minute, e.character, 1, e.total, e.permanent, e.source
        )
        s = replace(s, rot_log=(*s.rot_log, entry))
    if e.source.startswith("sector") and e.at is not None:
        interval = rot_interval(s, s.rot_level_here())
        s = replace(s, next_rot_at=e.at + interval if interval else None)
    return s


def _rot_lost(s: YZState, e: ev.RotLost, env: Envelope[Any]) -> YZState:
    s = _clock(s, e.at)
    washed = e.cause == "washing"
    s = _update(
        s,
        e.character,
        lambda c: replace(c, rot=e.total, permanent_rot=e.permanent, washed=c.washed or washed),
    )
    source = e.cause + (f", {e.permanent_gained} made permanent" if e.permanent_gained else "")
    entry = RotEntry(
        e.at if e.at is not None else s.minute, e.character, -e.lost, e.total, e.permanent, source
    )
    return replace(s, rot_log=(*s.rot_log, entry))


def _entered(s: YZState, e: ev.SectorEntered, env: Envelope[Any]) -> YZState:
    sectors = dict(s.sectors)
    old = sectors.get(e.sector)
    if old is None:
        sectors[e.sector] = Sector(rot_level=e.rot_level, first_at=s.minute)
    else:
        sectors[e.sector] = replace(old, visits=old.visits + 1)
    s = replace(s, sectors=sectors, position=e.sector, path=(*s.path, e.sector), next_rot_at=e.next_rot_at)
    if e.rot_level > 0:
        s = replace(s, characters={n: replace(c, washed=False) for n, c in s.characters.items()})
    return s


def _explored(s: YZState, e: ev.SectorExplored, env: Envelope[Any]) -> YZState:
    sectors = dict(s.sectors)
    if e.sector in sectors:
        sectors[e.sector] = replace(sectors[e.sector], explored=True)
    return replace(s, sectors=sectors)


def _initiative(s: YZState, e: ev.Initiative, env: Envelope[Any]) -> YZState:
    return s


def _heal_attempted(s: YZState, e: ev.HealAttempted, env: Envelope[Any]) -> YZState:
    return s


HANDLERS: dict[type[Event], Callable[[YZState, Any, Envelope[Any]], YZState]] = {
    CharacterAdded: _character_added,
    ev.Rolled: _rolled,
    ev.Pushed: _pushed,
    ev.Settled: _settled,
    ev.Repaired: _repaired,
    ev.Initiative: _initiative,
    ev.ArmorRolled: _armor_rolled,
    ev.Worn: _worn,
    ev.Trauma: _trauma,
    ev.Broken: _broken,
    ev.CriticalInjury: _critical,
    ev.Healed: _healed,
    ev.HealAttempted: _heal_attempted,
    ev.InjuryHealed: _injury_healed,
    ev.Died: _died,
    ev.Recovered: _recovery_used,
    ev.Consumed: _consumed,
    ev.Rested: _rested,
    ev.ConditionChanged: _condition_changed,
    ev.DayEnded: _day_ended,
    ev.TimePassed: _time_passed,
    ev.Boozed: _boozed,
    ev.BoozeWoreOff: _booze_wore_off,
    ev.Hypothermia: _hypothermia,
    ev.RotGained: _rot_gained,
    ev.RotLost: _rot_lost,
    ev.SectorEntered: _entered,
    ev.SectorExplored: _explored,
}


def evolve(state: YZState, event: Event, env: Envelope[Any]) -> YZState:
    handler = HANDLERS.get(type(event))
    if handler is None or state is None:
        return state
    state = handler(state, event, env)
    return replace(state, last_action=env.action, rolls=_still_pushable(state.rolls, env))


def _still_pushable(rolls: dict[str, PendingRoll], env: Envelope[Any]) -> dict[str, PendingRoll]:
    """The rolls still pushable after an event: the party's action ends them all, a
    character's own action ends that character's roll (unless it is the roll's action)."""
    if not rolls:
        return rolls
    if env.actor is None:
        return {}
    own = rolls.get(env.actor)
    if own is None or own.action == env.action:
        return rolls
    return {k: v for k, v in rolls.items() if k != env.actor}


def day(state: YZState | None) -> int | None:
    if state is None:
        return None
    remember_tables(state.tables)  # a log or a journal read in another language: its table texts
    return state.day
