"""Combat: the enemy first, attack minus defense, weapons, techniques, escape.

Dice order, for physical dice: ``fight`` rolls the enemy's d6; ``attack`` rolls
the enemy's next d6 unless the blow kills; ``technique N`` rolls its training
dice (1 to 3 d6, none once mastered; technique 4 always rolls them for the
stun) then the enemy's d6; ``escape`` rolls 1d6, then on a failure the
enemy's d6.
"""

from __future__ import annotations

import math
from typing import Any

from ledger.deciding.decider import Draft
from ledger.dice.sources import Dice
from ledger.errors import Fix, Other, ReadTable, RuleError
from ledger.i18n import _
from ledger.projections.crawl.game import Crawl
from ledger.systems.crawl import events as ev
from ledger.systems.crawl import terms
from ledger.systems.crawl.model import TECHNIQUES
from ledger.systems.crawl.outcomes import setting, starve
from ledger.systems.crawl.tables import sources

MASTERY = 6
"""Successful uses after which a technique needs no training roll."""


def defense_of(g: Crawl, tables: dict[str, Any]) -> int:
    armour = [tables["items"].get(i, {}).get("defense", 0) for i in g.inventory]
    return g.defense + max(armour, default=0)


def weapons(g: Crawl, tables: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Weapons carried (bare hands always), by name."""
    found = {"hands": {"attack": 0, "bow": False}}
    for name in g.inventory:
        item = tables["items"].get(name, {})
        if item.get("attack") or item.get("bow"):
            found[name] = item
    return found


def best_weapon(g: Crawl, tables: dict[str, Any], bows: bool) -> str:
    usable = {n: w for n, w in weapons(g, tables).items() if bows or not w.get("bow")}
    if g.arrows == 0:
        usable = {n: w for n, w in usable.items() if not w.get("bow")}
    return max(usable, key=lambda n: (arrow_bonus(g, usable[n]) + usable[n]["attack"], n))


def arrow_bonus(g: Crawl, weapon: dict[str, Any]) -> int:
    if not weapon.get("bow") or g.fight is None:
        return 0
    return sum(TECHNIQUES[n]["arrow"] for n in g.fight.effects if "arrow" in TECHNIQUES[n])


def p_enemy_hits(attack: int, defense: int) -> float:
    return sum(1 for face in range(1, 7) if face + attack - defense > 0) / 6


def enemy_turn(d: Draft[Crawl], dice: Dice) -> None:
    """The enemy's turn: skipped while stunned, else 1d6 + its Attack vs Defense."""
    fight = d.game.fight
    if fight is None or not d.game.alive:
        return
    foe = fight.foe
    if fight.stun > 0:
        d.emit(
            ev.EnemyStruck(
                foe=foe.name, face=None, attack=0, defense=0, damage=0, health=d.game.health, stunned=True
            )
        )
        return
    face = dice.roll(6)
    defense = defense_of(d.game, d.tables) - fight.defense_penalty
    attack = face + foe.attack
    damage = max(0, attack - defense)
    health = max(0, d.game.health - damage)
    d.emit(
        ev.EnemyStruck(
            foe=foe.name,
            face=face,
            attack=attack,
            defense=defense,
            damage=damage,
            health=health,
            p_success=p_enemy_hits(foe.attack, defense),
            lost=d.game.health - health,
        )
    )
    if health == 0:
        d.emit(ev.Died(cause=f"killed by {foe.name}", day=d.game.day))


def fight(d: Draft[Crawl], dice: Dice) -> None:
    assert d.game.fight is not None
    d.emit(ev.CombatStarted(foe=d.game.fight.foe.name))
    enemy_turn(d, dice)


def _strike(d: Draft[Crawl], weapon: str, bonus: int, technique: int | None, arrows: int) -> bool:
    """The explorer's blow; True when the enemy falls."""
    assert d.game.fight is not None
    foe = d.game.fight.foe
    item = weapons(d.game, d.tables)[weapon]
    attack = d.game.attack + item["attack"] + bonus + (arrow_bonus(d.game, item) if arrows else 0)
    damage = max(0, attack - foe.defense)
    left = max(0, foe.health - damage)
    d.emit(
        ev.PlayerStruck(
            foe=foe.name,
            weapon=weapon,
            attack=attack,
            defense=foe.defense,
            damage=damage,
            foe_health=left,
            arrows_spent=arrows,
            technique=technique,
        )
    )
    if left == 0:
        d.emit(ev.EnemyDefeated(foe=foe.name, god=foe.god))
        return True
    return False


def attack(d: Draft[Crawl], weapon: str | None, dice: Dice) -> None:
    owned = weapons(d.game, d.tables)
    name = terms.read_or_keep(terms.readings(owned), weapon) or best_weapon(d.game, d.tables, bows=True)
    if name not in owned:
        raise RuleError(
            _(
                "no weapon {weapon!r} in your inventory; use one of {weapons}",
                weapon=weapon if weapon else name,
                weapons=", ".join(terms.names(owned)),
            )
        )
    arrows = 1 if owned[name].get("bow") else 0
    if arrows and d.game.arrows < 1:
        raise RuleError(
            _(
                "the {weapon} needs arrows and you have none; attack with another weapon",
                weapon=terms.word(name),
            )
        )
    if not _strike(d, name, 0, None, arrows):
        enemy_turn(d, dice)


def p_training(needed: int, dice_count: int) -> float:
    """Chance that at least one of the dice shows ``needed`` or less."""
    miss = max(0, 6 - needed) / 6
    return 1 - miss**dice_count


def check_technique(g: Crawl, n: int, tables: dict[str, Any] | None = None) -> dict[str, Any]:
    if n not in TECHNIQUES:
        raise RuleError(_("there is no technique {number}; techniques are numbered 1 to 7", number=n))
    tech = TECHNIQUES[n]
    name = terms.technique(n)
    if n not in g.techniques:
        known = ", ".join(map(str, sorted(g.techniques))) or _("none yet")
        where, table = _where(tables, "technique", n, _("a quest, a ruin or a divine chapter teaches it"))
        raise RuleError(
            _(
                "technique {number} ({name}) is not known (known: {known}); learn it first: {where}",
                number=n,
                name=name,
                known=known,
                where=where,
            ),
            fix=_see(table),
        )
    assert g.fight is not None
    if tech.get("robots") and not g.fight.foe.robot:
        raise RuleError(
            _(
                "technique {number} ({name}) only affects robots; {foe} is not one",
                number=n,
                name=name,
                foe=terms.word(g.fight.foe.name),
            )
        )
    missing = [i for i in tech.get("needs", ()) if i not in g.inventory]
    if missing:
        found = [_where(tables, "item", item, _("found in ruins or on the road")) for item in missing]
        raise RuleError(
            _(
                "technique {number} ({name}) needs {items}; get it first: {where}",
                number=n,
                name=name,
                items=_(" and ").join(terms.names(missing)),
                where="; ".join(where for where, _table in found),
            ),
            fix=_see(next((table for _where_, table in found if table), None)),
        )
    if n >= 5 and n in g.fight.effects:
        raise RuleError(
            _("technique {number} ({name}) is already active for this combat", number=n, name=name)
        )
    if g.energy < tech["cost"]:
        raise RuleError(
            _(
                "technique {number} costs {cost} Energy and you have {energy}",
                number=n,
                cost=tech["cost"],
                energy=g.energy,
            ),
            fix=Other(text=_("attack (or escape) now: food and sleep bring Energy back")),
        )
    return tech


def _where(tables: dict[str, Any] | None, key: str, value: object, otherwise: str) -> tuple[str, str | None]:
    """Which tables give it, in a player's words, and the first of them to look up."""
    found = sources(tables or {}, key, value)
    if not found:
        return otherwise, None
    if found == ["shop"]:
        return _("a town's shop sells {item}", item=terms.word(str(value))), "shop"
    places = []
    for place in found:
        table, _sep, roll = place.partition(" ")
        places.append(_("{table} on a {roll}", table=table, roll=roll) if roll else _("a town's shop"))
    return _("it comes from {places}", places=", ".join(places)), found[0].partition(" ")[0]


def _see(table: str | None) -> Fix | None:
    """Read the table that gives what is missing (None when no table does)."""
    if table is None:
        return None
    return ReadTable(text=_("see the {table} table", table=table), table=table)


def technique(d: Draft[Crawl], n: int, dice: Dice) -> None:
    tech = check_technique(d.game, n, d.tables)
    energy = d.game.energy - tech["cost"]
    successes = d.game.techniques[n]
    if n >= 5:
        d.emit(
            ev.TechniqueRolled(
                number=n,
                dice=(),
                needed=None,
                success=True,
                energy_cost=tech["cost"],
                energy=energy,
                successes=successes,
            )
        )
        enemy_turn(d, dice)
        return
    count = min(3, len(d.game.techniques))
    needs_roll = successes < MASTERY
    faces = tuple(dice.roll(6) for _ in range(count)) if needs_roll or n == 4 else ()
    needed = successes + 1 if needs_roll else None
    success = not needs_roll or min(faces) <= successes + 1
    p = p_training(successes + 1, count) if needs_roll else 1.0
    stun = math.ceil(sum(faces) / 2) if n == 4 and success else 0
    d.emit(
        ev.TechniqueRolled(
            number=n,
            dice=faces,
            needed=needed,
            success=success,
            energy_cost=tech["cost"],
            energy=energy,
            successes=min(MASTERY, successes + success),
            p_success=p,
            stun=stun,
        )
    )
    if success and "bonus" in tech:
        weapon = best_weapon(d.game, d.tables, bows=False)
        if _strike(d, weapon, tech["bonus"], n, 0):
            return
    enemy_turn(d, dice)


def p_escape(esc: int) -> float:
    return sum(1 for face in range(1, 7) if face > esc) / 6


def escape(d: Draft[Crawl], dice: Dice) -> None:
    g = d.game
    assert g.fight is not None
    foe = g.fight.foe
    if g.energy < 2:
        raise RuleError(_("escaping costs 2 Energy and you have {energy}; fight on", energy=g.energy))
    esc = max(0, foe.esc - (2 if 5 in g.fight.effects else 0))
    face = dice.roll(6)
    success = face > esc
    d.emit(ev.EscapeRolled(foe=foe.name, face=face, esc=esc, success=success, p_success=p_escape(esc)))
    if not success:
        enemy_turn(d, dice)
        return
    streak = d.game.hunger_streak + 1
    cost = 2 if setting(d, "escape_hunger", "fixed") == "fixed" else streak + 1
    loss = min(cost, g.health)
    health = g.health - loss
    d.emit(
        ev.Escaped(foe=foe, q=g.q, r=g.r, energy_cost=2, health_cost=loss, energy=g.energy - 2, health=health)
    )
    if not starve(d, streak, cost, before=g.health):
        d.emit(ev.Died(cause="hunger after an escape", day=d.game.day))
        return
    d.emit(ev.DayEnded(day=d.game.day, ate=False, streak=streak, how="escaped", line=line(d.game)))


def line(g: Crawl) -> str:
    return "; ".join(g.today)
