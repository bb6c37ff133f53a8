"""The crawl fold: the state a new campaign starts from, and one small function per event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from ledger.log.events import CampaignStarted, Envelope, Event, Noted
from ledger.projections.crawl.game import Crawl, Fight, Hex, key, stored_table
from ledger.systems.crawl import events as ev


def initial(started: CampaignStarted) -> Crawl:
    start = stored_table(started.tables, "start")
    return Crawl(
        bits=int(start.get("bits", 0)),
        arrows=int(start.get("arrows", 0)),
        fruit=int(start.get("fruit", 0)),
        inventory=tuple(start.get("inventory", ())),
        hexes={key(0, 0): Hex(visits=1)},
    )


def _hex(g: Crawl, q: int, r: int, **changes: Any) -> dict[str, Hex]:
    hexes = dict(g.hexes)
    hexes[key(q, r)] = replace(hexes.get(key(q, r), Hex()), **changes)
    return hexes


def _note(g: Crawl, text: str) -> tuple[str, ...]:
    return (*g.today, text)


# --- one small function per event ----------------------------------------------


def _moved(g: Crawl, e: ev.Moved) -> Crawl:
    old = g.hexes.get(key(e.q, e.r), Hex())
    hexes = _hex(g, e.q, e.r, visits=old.visits + 1)
    here = hexes[key(e.q, e.r)]
    if here.terrain is None:
        phase = "terrain"
    elif here.icon == "town":
        phase = "camp"
    else:
        phase = "event"
    return replace(
        g,
        day=e.day,
        q=e.q,
        r=e.r,
        hexes=hexes,
        path=(*g.path, (e.q, e.r)),
        phase=phase,
        meals=0,
        town_step=0,
        can_loot=False,
        chapter_today=None,
        fight=None,
        today=(f"walked {e.direction}" + (" back" if e.revisit else ""),),
    )


def _chapter(g: Crawl, e: ev.ChapterOpened) -> Crawl:
    phase = "event" if g.phase == "camp" else g.phase
    return replace(
        g,
        chapters=(*g.chapters, e.chapter),
        chapter_today=e.chapter,
        phase=phase,
        today=_note(g, f"chapter {e.chapter} ({e.name}) opens"),
    )


def _terrain(g: Crawl, e: ev.TerrainRolled) -> Crawl:
    return replace(g, hexes=_hex(g, e.q, e.r, terrain=e.terrain), phase="event", today=_note(g, e.terrain))


def _table(g: Crawl, e: ev.TableRolled) -> Crawl:
    seen = dict(g.seen)
    seen[e.table] = (*seen.get(e.table, ()), e.total)
    phase = "camp" if g.phase == "event" else g.phase
    can_loot = g.can_loot and e.table != "rewards"
    return replace(g, seen=seen, phase=phase, can_loot=can_loot, today=_note(g, e.text))


def _changed(g: Crawl, e: ev.Changed) -> Crawl:
    techniques = g.techniques
    if e.technique is not None and e.technique not in techniques:
        techniques = {**techniques, e.technique: 0}
    inventory = (*g.inventory, e.item) if e.item else g.inventory
    return replace(
        g,
        health=e.health_now,
        energy=e.energy_now,
        bits=g.bits + e.bits,
        bar=g.bar + e.bar,
        fruit=g.fruit + e.fruit,
        arrows=g.arrows + e.arrows,
        attack=g.attack + e.attack,
        defense=g.defense + e.defense,
        inventory=inventory,
        techniques=techniques,
    )


def _icon(g: Crawl, e: ev.IconPlaced) -> Crawl:
    towns = e.number if e.icon == "town" and e.number else g.towns
    changes: dict[str, Any] = {"icon": e.icon, "number": e.number}
    if e.icon == "":
        changes["foe"] = None
    phase = "camp" if e.icon == "town" and (e.q, e.r) == (g.q, g.r) else g.phase
    return replace(g, hexes=_hex(g, e.q, e.r, **changes), towns=towns, phase=phase)


def _met(g: Crawl, e: ev.EnemyMet) -> Crawl:
    return replace(g, fight=Fight(foe=e.foe), phase="encounter", today=_note(g, f"met {e.foe.name}"))


def _combat(g: Crawl, e: ev.CombatStarted) -> Crawl:
    fight = replace(g.fight, started=True) if g.fight else None
    return replace(g, fight=fight, phase="combat")


def _enemy_struck(g: Crawl, e: ev.EnemyStruck) -> Crawl:
    fight = g.fight
    if fight is not None:
        stun = max(0, fight.stun - 1) if e.stunned else fight.stun
        fight = replace(fight, defense_penalty=0, stun=stun)
    return replace(g, health=e.health, fight=fight)


def blow_loss(g: Crawl, e: ev.EnemyStruck) -> int:
    """The Health an enemy's blow took, ``g`` the state before it. An event with ``lost``
    records it; an older one recorded only the blow's ``damage``, read as at most the Health
    there was (docs/rulings/crawl.md, 20)."""
    if e.lost is not None:
        return e.lost
    return min(e.damage, g.health)


def _player_struck(g: Crawl, e: ev.PlayerStruck) -> Crawl:
    fight = g.fight
    if fight is not None:
        fight = replace(fight, foe=replace(fight.foe, health=e.foe_health))
    return replace(g, fight=fight, arrows=g.arrows - e.arrows_spent)


def _technique(g: Crawl, e: ev.TechniqueRolled) -> Crawl:
    fight = g.fight
    if fight is not None:
        if not e.success:
            fight = replace(fight, defense_penalty=2)
        elif e.number >= 5:
            fight = replace(fight, effects=(*fight.effects, e.number))
        if e.stun:
            fight = replace(fight, stun=e.stun)
    return replace(g, energy=e.energy, techniques={**g.techniques, e.number: e.successes}, fight=fight)


def _escaped(g: Crawl, e: ev.Escaped) -> Crawl:
    foe = replace(e.foe, escapable=False)
    hexes = _hex(g, e.q, e.r, foe=foe, icon="god" if foe.god else "enemy", number=None)
    return replace(
        g,
        energy=e.energy,
        health=e.health,
        hexes=hexes,
        fight=None,
        fled_with=g.health,
        today=_note(g, f"escaped from {e.foe.name}"),
    )


def _defeated(g: Crawl, e: ev.EnemyDefeated) -> Crawl:
    here = g.here
    hexes = g.hexes
    if here.icon in ("enemy", "god"):
        hexes = _hex(g, g.q, g.r, icon="", number=None, foe=None)
    return replace(
        g, fight=None, hexes=hexes, phase="camp", can_loot=True, today=_note(g, f"defeated {e.foe}")
    )


def _bought(g: Crawl, e: ev.Bought) -> Crawl:
    return replace(g, bits=e.bits, today=_note(g, f"bought {e.item}"))


def _quest(g: Crawl, e: ev.QuestTaken) -> Crawl:
    return replace(
        g,
        hexes=_hex(g, g.q, g.r, quest_done=True),
        town_step=1,
        can_loot=False,
        today=_note(g, f"took the quest of town {e.town}"),
    )


def _ate(g: Crawl, e: ev.Ate) -> Crawl:
    bar = g.bar - (e.food == "bar")
    fruit = g.fruit - (e.food == "fruit")
    return replace(
        g,
        health=e.health,
        energy=e.energy,
        bar=bar,
        fruit=fruit,
        bits=g.bits - e.cost,
        meals=g.meals + 1,
        town_step=2,
        can_loot=False,
        today=_note(g, f"ate {e.food}") if g.meals == 0 else g.today,
    )


def _starved(g: Crawl, e: ev.Starved) -> Crawl:
    return replace(
        g,
        health=e.health,
        hunger_streak=e.streak,
        longest_streak=max(g.longest_streak, e.streak),
        hunger_lost=g.hunger_lost + hunger_loss(g, e),
        fled_with=None,
        today=_note(g, f"went hungry (-{hunger_loss(g, e)})"),
    )


def hunger_loss(g: Crawl, e: ev.Starved) -> int:
    """The Health a day's hunger took. An event with its ``cost`` records it as
    ``loss``; an older one recorded the streak's cost there even on the day it
    killed, so its loss is read as at most the Health there was before it."""
    if e.cost is not None:
        return e.loss
    before = g.health if g.fled_with is None else g.fled_with
    return min(e.loss, before)


def _slept(g: Crawl, e: ev.Slept) -> Crawl:
    return replace(
        g, health=e.health, energy=e.energy, bits=g.bits - e.cost, today=_note(g, f"slept {e.where}")
    )


def _hid(g: Crawl, e: ev.Hid) -> Crawl:
    return replace(g, fight=None, today=_note(g, f"hid from {e.foe}"))


def _day_ended(g: Crawl, e: ev.DayEnded) -> Crawl:
    return replace(
        g,
        journal=(*g.journal, (e.day, e.line)),
        hunger_streak=e.streak,
        longest_streak=max(g.longest_streak, e.streak),
        phase="dawn",
        today=(),
        can_loot=False,
    )


def _died(g: Crawl, e: ev.Died) -> Crawl:
    return replace(
        g,
        alive=False,
        phase="dead",
        cause=e.cause,
        health=0,
        fight=None,
        journal=(*g.journal, (e.day, f"{'; '.join(g.today)}; died: {e.cause}")),
        today=(),
    )


def _noted(g: Crawl, e: Noted) -> Crawl:
    return replace(g, notes=(*g.notes, (g.day, e.text)))


FOLDS: dict[type[Event], Callable[[Crawl, Any], Crawl]] = {
    ev.Moved: _moved,
    ev.ChapterOpened: _chapter,
    ev.TerrainRolled: _terrain,
    ev.TableRolled: _table,
    ev.Changed: _changed,
    ev.IconPlaced: _icon,
    ev.EnemyMet: _met,
    ev.CombatStarted: _combat,
    ev.EnemyStruck: _enemy_struck,
    ev.PlayerStruck: _player_struck,
    ev.TechniqueRolled: _technique,
    ev.Escaped: _escaped,
    ev.EnemyDefeated: _defeated,
    ev.Bought: _bought,
    ev.QuestTaken: _quest,
    ev.Ate: _ate,
    ev.Starved: _starved,
    ev.Slept: _slept,
    ev.Hid: _hid,
    ev.DayEnded: _day_ended,
    ev.Died: _died,
    Noted: _noted,
}


def evolve(game: Crawl | None, event: Event, _env: Envelope[Any]) -> Crawl | None:
    fold = FOLDS.get(type(event))
    if fold is None or game is None:
        return game
    return fold(game, event)


def day(game: Crawl | None) -> int | None:
    return None if game is None else game.day
