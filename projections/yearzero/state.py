"""The ``yearzero`` game state, its fold, and the sheet, Rot and Zone views.

Characters join through the core ``character.added`` event. Their string
attributes follow this convention (keys are case-insensitive):

- ``strength``, ``agility``, ``wits``, ``empathy``: the attribute's maximum
  (Spanish ``fortaleza``/``fuerza``, ``destreza``, ``intelecto``, ``empatia``
  also work); a missing attribute is 3.
- ``skill.NAME=LEVEL``: a skill (``skill.shoot=2``, ``skill.jury_rig=1``).
- ``gear.NAME=BONUS``: a piece of gear with its gear bonus (``gear.rifle=2``).
- ``armor.NAME=RATING``, ``shield.NAME=RATING``, ``suit.NAME=PROTECTION``:
  armor, a shield, a rot suit; the first of each kind is worn.
- ``mutation_points=N``, ``rot=N``, ``permanent_rot=N``: starting values.

Values that cannot be read are listed under ``ignored`` on the sheet
(``ledger yz character`` validates them before recording).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.events import CampaignStarted, CharacterAdded, Envelope, Event
from ledger.systems import SheetField, SheetLayout, SheetSection
from ledger.systems.yearzero import events as ev

ATTRIBUTES = ("strength", "agility", "wits", "empathy")
TRAUMA = {"damage": "strength", "fatigue": "agility", "confusion": "wits", "doubt": "empathy"}
KIND_OF = {attr: kind for kind, attr in TRAUMA.items()}
ATTRIBUTE_ALIASES = {
    "strength": "strength",
    "str": "strength",
    "fortaleza": "strength",
    "fuerza": "strength",
    "agility": "agility",
    "agi": "agility",
    "destreza": "agility",
    "wits": "wits",
    "wit": "wits",
    "intelecto": "wits",
    "empathy": "empathy",
    "emp": "empathy",
    "empatia": "empathy",
    "empatía": "empathy",
}
BASIC_SKILLS = {
    "endure": "strength",
    "force": "strength",
    "fight": "strength",
    "sneak": "agility",
    "move": "agility",
    "shoot": "agility",
    "scout": "wits",
    "comprehend": "wits",
    "know_the_zone": "wits",
    "sense_emotion": "empathy",
    "manipulate": "empathy",
    "heal": "empathy",
}
SPECIALIST_SKILLS = {
    "intimidate": "strength",
    "jury_rig": "wits",
    "find_the_path": "wits",
    "make_a_deal": "empathy",
    "sic_a_dog": "agility",
    "inspire": "empathy",
    "command": "wits",
    "shake_it_off": "strength",
}
SKILLS = {**BASIC_SKILLS, **SPECIALIST_SKILLS}
SKILL_ALIASES = {
    "resistir": "endure",
    "forzar": "force",
    "luchar": "fight",
    "escabullirse": "sneak",
    "moverse": "move",
    "disparar": "shoot",
    "otear": "scout",
    "comprender": "comprehend",
    "conocer_la_zona": "know_the_zone",
    "percibir_emociones": "sense_emotion",
    "manipular": "manipulate",
    "curar": "heal",
    "intimidar": "intimidate",
    "hacer_un_apano": "jury_rig",
    "hacer_un_apaño": "jury_rig",
    "encontrar_el_camino": "find_the_path",
}
SLOTS = ("armor", "shield", "suit")
CONDITIONS = ("hungry", "thirsty", "sleepless", "hypothermic")
DAY = 24 * 60


def skill_name(text: str) -> str | None:
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    key = SKILL_ALIASES.get(key, key)
    return key if key in SKILLS else None


def attribute_name(text: str) -> str | None:
    return ATTRIBUTE_ALIASES.get(text.strip().lower())


class Item(msgspec.Struct, frozen=True):
    name: str
    kind: str = "gear"
    """gear, armor, shield or suit."""
    bonus: int = 1
    max_bonus: int = 1
    destroyed: bool = False


class Injury(msgspec.Struct, frozen=True):
    name: str
    result: int
    lethal: bool = False
    deadline_at: int | None = None
    heals_at: int | None = None
    effect: str = ""
    tried_by: tuple[str, ...] = ()


class Booze(msgspec.Struct, frozen=True):
    damage: int
    doubt: int
    wears_off_at: int


class Character(msgspec.Struct, frozen=True):
    name: str
    max: dict[str, int]
    current: dict[str, int]
    skills: dict[str, int] = {}
    gear: dict[str, Item] = {}
    worn: dict[str, str] = {}
    mutation_points: int = 0
    rot: int = 0
    """Total Rot points, permanent ones included."""
    permanent_rot: int = 0
    conditions: tuple[str, ...] = ()
    ate: bool = False
    drank: bool = False
    slept: bool = False
    bank: tuple[str, ...] = ()
    """Resources taken for recovery, waiting for four hours of rest (grub, water, sleep, intimacy)."""
    broken: dict[str, int] = {}
    """Broken attribute -> game minute from which the character may get up alone."""
    injuries: tuple[Injury, ...] = ()
    booze: tuple[Booze, ...] = ()
    dead: bool = False
    death_cause: str | None = None
    washed: bool = False
    ignored: tuple[str, ...] = ()

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def worn_item(self, slot: str) -> Item | None:
        name = self.worn.get(slot)
        item = self.gear.get(name) if name else None
        return item if item is not None and not item.destroyed else None


class PendingRoll(msgspec.Struct, frozen=True):
    """The last roll, which may still be pushed once (right after it)."""

    action: str
    character: str
    attribute: str
    skill: str | None
    purpose: str
    target: str | None
    dice: ev.Pool
    item: str | None
    successes: int
    pushed: bool = False


class Sector(msgspec.Struct, frozen=True):
    rot_level: int
    explored: bool = False
    visits: int = 1
    first_at: int = 0


class RotEntry(msgspec.Struct, frozen=True):
    at: int
    character: str
    change: int
    total: int
    permanent: int
    source: str


class YZState(msgspec.Struct, frozen=True):
    minute: int = 8 * 60
    characters: dict[str, Character] = {}
    order: tuple[str, ...] = ()
    sectors: dict[str, Sector] = {}
    position: str = ""
    ark: str = ""
    path: tuple[str, ...] = ()
    next_rot_at: int | None = None
    rot_log: tuple[RotEntry, ...] = ()
    pending: PendingRoll | None = None
    last_action: str = ""
    tables: dict[str, Any] = {}
    settings: dict[str, Any] = {}

    @property
    def day(self) -> int:
        return self.minute // DAY

    def rot_level_here(self) -> int:
        sector = self.sectors.get(self.position)
        return sector.rot_level if sector else 0


# --- building characters --------------------------------------------------------


def parse_attrs(name: str, attrs: dict[str, str]) -> tuple[Character, list[str]]:
    """A character from ``character add`` attributes, and the keys that could not be read."""
    maxima = dict.fromkeys(ATTRIBUTES, 3)
    skills: dict[str, int] = {}
    gear: dict[str, Item] = {}
    worn: dict[str, str] = {}
    counters = {"mutation_points": 0, "rot": 0, "permanent_rot": 0}
    problems: list[str] = []
    for raw_key, raw_value in attrs.items():
        key = raw_key.strip().lower()
        try:
            value = int(raw_value)
        except ValueError:
            problems.append(f"{raw_key}={raw_value}")
            continue
        prefix, _, rest = key.partition(".")
        if attribute_name(key) and 1 <= value <= 10:
            maxima[attribute_name(key) or key] = value
        elif key in counters and 0 <= value <= 99:
            counters[key] = value
        elif prefix == "skill" and skill_name(rest) and 0 <= value <= 5:
            skills[skill_name(rest) or rest] = value
        elif prefix in ("gear", *SLOTS) and rest and 0 <= value <= 10:
            item_name = raw_key.strip().partition(".")[2]
            gear[item_name] = Item(item_name, "gear" if prefix == "gear" else prefix, value, value)
            if prefix in SLOTS and prefix not in worn:
                worn[prefix] = item_name
        else:
            problems.append(f"{raw_key}={raw_value}")
    rot = max(counters["rot"], counters["permanent_rot"])
    character = Character(
        name=name,
        max=maxima,
        current=dict(maxima),
        skills=skills,
        gear=gear,
        worn=worn,
        mutation_points=counters["mutation_points"],
        rot=rot,
        permanent_rot=counters["permanent_rot"],
        ignored=tuple(problems),
    )
    return character, problems


# --- the fold ------------------------------------------------------------------


def initial(started: CampaignStarted) -> YZState:
    tables = started.tables
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
    s = replace(s, pending=pending)
    if e.purpose == "heal" and e.target:

        def tried(c: Character) -> Character:
            injuries = tuple(
                replace(i, tried_by=(*i.tried_by, e.character)) if i.lethal else i for i in c.injuries
            )
            return replace(c, injuries=injuries)

        s = _update(s, e.target, tried)
    return s


def _pushed(s: YZState, e: ev.Pushed, env: Envelope[Any]) -> YZState:
    if s.pending is not None:
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


def _settled(s: YZState, e: ev.Settled, env: Envelope[Any]) -> YZState:
    s = replace(s, pending=None)
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
    s = replace(s, pending=None)
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


def rot_interval(s: YZState, level: int) -> int | None:
    """Minutes between Rot points at a sector Rot level (None: no Rot)."""
    levels = s.tables.get("rot_levels", {})
    row = levels.get(str(level)) if isinstance(levels, dict) else None
    if not isinstance(row, dict):
        return None
    minutes = row.get("minutes_per_point")
    return int(minutes) if isinstance(minutes, int) and minutes > 0 else None


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
    return replace(state, last_action=env.action)


def day(state: YZState | None) -> int | None:
    return state.day if state is not None else None


# --- views ---------------------------------------------------------------------


def clock(minute: int) -> dict[str, Any]:
    return {
        "day": minute // DAY,
        "hour": (minute % DAY) // 60,
        "minute": minute % 60,
        "text": f"day {minute // DAY} {(minute % DAY) // 60:02d}:{minute % 60:02d}",
    }


def character_sheet(c: Character, game: YZState) -> dict[str, Any]:
    return {
        "name": c.name,
        **{a: {"current": c.current[a], "max": c.max[a]} for a in ATTRIBUTES},
        "broken": bool(c.broken),
        "broken_by": [KIND_OF[a] for a in ATTRIBUTES if a in c.broken],
        "dead": c.dead,
        "death_cause": c.death_cause,
        "conditions": list(c.conditions),
        "mutation_points": c.mutation_points,
        "skills": dict(c.skills),
        "gear": {
            n: {
                "kind": i.kind,
                "bonus": i.bonus,
                "max_bonus": i.max_bonus,
                "broken": i.bonus == 0 and not i.destroyed,
                "destroyed": i.destroyed,
                "worn": c.worn.get(i.kind) == n,
            }
            for n, i in c.gear.items()
        },
        "rot": {"total": c.rot, "permanent": c.permanent_rot},
        "critical_injuries": [
            {
                "name": i.name,
                "result": i.result,
                "lethal": i.lethal,
                "deadline": clock(i.deadline_at)["text"] if i.deadline_at is not None else None,
                "heals": clock(i.heals_at)["text"] if i.heals_at is not None else None,
                "effect": i.effect,
            }
            for i in c.injuries
        ],
        "today": {"ate": c.ate, "drank": c.drank, "slept": c.slept},
        "recovery_resources": list(c.bank),
        "booze": [clock(b.wears_off_at)["text"] for b in c.booze],
        "time": clock(game.minute),
        **({"ignored": list(c.ignored)} if c.ignored else {}),
        "status": _status(c),
        "gear_lines": [_gear_line(n, i, c.worn.get(i.kind) == n) for n, i in c.gear.items()],
        "injury_lines": [
            f"{i.name}"
            + (
                f" LETHAL, dies {clock(i.deadline_at)['text']}"
                if i.lethal and i.deadline_at is not None
                else ""
            )
            + (f", heals {clock(i.heals_at)['text']}" if i.heals_at is not None else "")
            + (f". {i.effect}" if i.effect else "")
            for i in c.injuries
        ],
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: YZState = state.game
    name = actor if actor in game.characters else state.core.last_actor
    if name not in game.characters:
        name = game.order[-1] if game.order else None
    party = {
        "time": clock(game.minute),
        "position": game.position or None,
        "characters": list(game.order),
    }
    if name is None:
        return {"campaign": state.core.name, "system": "yearzero", **party}
    pending = game.pending
    return {
        **character_sheet(game.characters[name], game),
        "campaign": state.core.name,
        "position": party["position"],
        "party": party["characters"],
        "can_push": bool(
            pending
            and not pending.pushed
            and pending.character == name
            and pending.action == game.last_action
        ),
    }


def _status(c: Character) -> str:
    if c.dead:
        return f"DEAD: {c.death_cause}"
    return "broken by " + ", ".join(KIND_OF[a] for a in ATTRIBUTES if a in c.broken) if c.broken else "ok"


def _gear_line(name: str, i: Any, worn: bool) -> str:
    mark = " destroyed" if i.destroyed else (" broken" if i.bonus == 0 and not i.destroyed else "")
    return f"{name} {i.kind} +{i.bonus}/{i.max_bonus}{mark}" + (" (worn)" if worn else "")


SHEET = SheetLayout(
    title=(
        "{name}  {time.text}  at {position}  [{status}]",
        "{campaign} (yearzero) {time.text}: no characters yet",
    ),
    headline=tuple(SheetField(a, a.capitalize()) for a in ATTRIBUTES),
    sections=(
        SheetSection(
            "Mutant",
            (
                SheetField("mutation_points", "mutation points"),
                SheetField("rot", "Rot", show="{rot.total} ({rot.permanent} permanent)"),
            ),
        ),
        SheetSection("Skills", (SheetField("skills", ""),), when="skills"),
        SheetSection("Gear", (SheetField("gear_lines", ""),), when="gear_lines"),
        SheetSection("Conditions", (SheetField("conditions", ""),), when="name"),
        SheetSection("Critical injuries", (SheetField("injury_lines", ""),), when="injury_lines"),
        SheetSection("Party", (SheetField("party", ""),), when="name"),
    ),
)
"""A mutant's sheet as a player reads it (``ledger sheet``, the report)."""


def rot_view(game: YZState) -> dict[str, Any]:
    return {
        "time": clock(game.minute),
        "characters": {n: {"total": c.rot, "permanent": c.permanent_rot} for n, c in game.characters.items()},
        "history": [
            {
                "time": clock(r.at)["text"],
                "character": r.character,
                "change": r.change,
                "total": r.total,
                "permanent": r.permanent,
                "source": r.source,
            }
            for r in game.rot_log
        ],
        "sectors": [{"sector": s, "rot_level": game.sectors[s].rot_level} for s in game.path[-8:]],
    }


def render_rot(data: dict[str, Any]) -> str:
    lines = [f"Rot at {data['time']['text']}"]
    for n, r in data["characters"].items():
        lines.append(f"  {n:<12} {r['total']:>3} total {r['permanent']:>3} permanent  " + "#" * r["total"])
    if data["history"]:
        lines.append("History:")
        for h in data["history"][-15:]:
            lines.append(
                f"  {h['time']}  {h['character']:<12} {h['change']:+d} -> {h['total']} "
                f"({h['permanent']} perm.)  {h['source']}"
            )
    if data["sectors"]:
        lines.append("Last sectors: " + "  ".join(f"{s['sector']}:{s['rot_level']}" for s in data["sectors"]))
    return "\n".join(lines)


def split_sector(sector: str) -> tuple[int, int] | None:
    """``C7`` -> (column 2, row 7); None when it is not a letter-number sector."""
    letters = "".join(ch for ch in sector if ch.isalpha())
    digits = sector[len(letters) :]
    if not letters or not digits.isdigit() or not sector.startswith(letters):
        return None
    col = 0
    for ch in letters.upper():
        col = col * 26 + (ord(ch) - ord("A") + 1)
    return col - 1, int(digits)


def zone_view(game: YZState) -> dict[str, Any]:
    return {
        "time": clock(game.minute),
        "position": game.position or None,
        "ark": game.ark or None,
        "sectors": {
            n: {"rot_level": s.rot_level, "explored": s.explored, "visits": s.visits}
            for n, s in game.sectors.items()
        },
        "path": list(game.path),
    }


def _column_name(col: int) -> str:
    name = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        name = chr(ord("A") + rem) + name
    return name


def render_zone(data: dict[str, Any]) -> str:
    cells = {split_sector(n): (n, s) for n, s in data["sectors"].items() if split_sector(n)}
    if not cells:
        return "no sectors visited yet"
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, c1 = max(min(cols) - 1, 0), max(cols) + 1
    r0, r1 = max(min(rows) - 1, 0), max(rows) + 1
    lines = ["     " + "".join(f"{_column_name(c):^5}" for c in range(c0, c1 + 1))]
    for r in range(r0, r1 + 1):
        row = f"{r:>4} "
        for c in range(c0, c1 + 1):
            found = cells.get((c, r))
            if found is None:
                row += "  .  "
                continue
            name, s = found
            mark = "@" if name == data["position"] else ("A" if name == data["ark"] else " ")
            row += f" {mark}{'E' if s['explored'] else '?'}{s['rot_level']} "
        lines.append(row.rstrip())
    lines.append("@ party  A the Ark  E explored  ? entered only  digit: Rot level")
    lines.append(
        f"{data['time']['text']}: the party is in {data['position'] or '-'}; path "
        + " > ".join(data["path"][-10:])
    )
    return "\n".join(lines)
