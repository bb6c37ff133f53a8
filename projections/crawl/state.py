"""The ``crawl`` fold and its projections: sheet, map, hunger, calendar, journal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from ledger.errors import LedgerError, RunCommand
from ledger.events import CampaignStarted, Envelope, Event, Noted
from ledger.systems import SheetField, SheetLayout, SheetSection
from ledger.systems.crawl import events as ev

CAP = 20
"""Health and Energy never exceed this."""
CHAPTER_DAYS: dict[int, int] = {3: 1, 15: 2, 25: 3, 40: 4, 50: 5}
"""Day -> divine chapter."""
GOD_CHAPTER = 3
"""The chapter in which God himself appears."""
DIRECTIONS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "ne": (1, -1),
    "se": (1, 0),
    "s": (0, 1),
    "sw": (-1, 1),
    "nw": (-1, 0),
}
"""Axial steps of a flat-topped hex grid."""


def key(q: int, r: int) -> str:
    return f"{q},{r}"


def neighbour(q: int, r: int, direction: str) -> tuple[int, int]:
    dq, dr = DIRECTIONS[direction]
    return q + dq, r + dr


class Hex(msgspec.Struct, frozen=True):
    terrain: str | None = None
    icon: str = ""
    number: int | None = None
    visits: int = 0
    foe: ev.Foe | None = None
    quest_done: bool = False


class Fight(msgspec.Struct, frozen=True):
    foe: ev.Foe
    started: bool = False
    defense_penalty: int = 0
    stun: int = 0
    effects: tuple[int, ...] = ()


class Crawl(msgspec.Struct, frozen=True):
    """The explorer and the map: everything the rules need to decide."""

    health: int = 10
    energy: int = 10
    attack: int = 1
    defense: int = 1
    bar: int = 3
    fruit: int = 0
    bits: int = 0
    arrows: int = 0
    inventory: tuple[str, ...] = ()
    techniques: dict[int, int] = {}
    """Known technique -> successful uses so far."""
    day: int = 0
    phase: str = "dawn"
    """dawn, terrain, event, encounter, combat, camp, dead."""
    q: int = 0
    r: int = 0
    hexes: dict[str, Hex] = {}
    path: tuple[tuple[int, int], ...] = ((0, 0),)
    meals: int = 0
    town_step: int = 0
    """0: may trade; 1: quest taken; 2: eaten (a town's order)."""
    can_loot: bool = False
    hunger_streak: int = 0
    longest_streak: int = 0
    hunger_lost: int = 0
    """Health actually lost to hunger (escapes included)."""
    fled_with: int | None = None
    """The Health before an escape's hunger, read by the ``crawl.starved`` that follows."""
    alive: bool = True
    cause: str | None = None
    chapters: tuple[int, ...] = ()
    chapter_today: int | None = None
    towns: int = 0
    seen: dict[str, tuple[int, ...]] = {}
    fight: Fight | None = None
    today: tuple[str, ...] = ()
    journal: tuple[tuple[int, str], ...] = ()
    notes: tuple[tuple[int, str], ...] = ()

    @property
    def here(self) -> Hex:
        return self.hexes.get(key(self.q, self.r), Hex())


def not_stored(where: str, value: object) -> LedgerError:
    """A campaign's stored tables hold ``value`` where a table or a name should be: tables no
    ledger wrote (an import checks them since; a campaign kept by an older ledger may not)."""
    what = {list: "a list", dict: "a table", str: "text", bool: "true or false"}.get(type(value), "a number")
    return LedgerError(
        f"the campaign's stored tables hold {what} where {where} should be; they are not tables the ledger writes",
        fix=RunCommand(text="verify the campaign, and start it again from a table file", command="verify"),
    )


def stored_table(tables: object, name: str) -> dict[str, Any]:
    """One table of a campaign's stored tables (empty when missing), refused in one line
    when the stored value is no table."""
    if not isinstance(tables, dict):
        raise not_stored("the tables", tables)
    found = tables.get(name, {})
    if not isinstance(found, dict):
        raise not_stored(f"the {name} table", found)
    return found


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


# --- projections -------------------------------------------------------------------


def chapter_name(tables: dict[str, Any], chapter: int) -> str:
    return str(stored_table(stored_table(tables, "chapters"), str(chapter)).get("name", f"chapter {chapter}"))


def calendar(state: Any) -> dict[str, Any]:
    g: Crawl = state.game
    tables = state.core.tables
    chapters = [
        {"day": d, "chapter": c, "name": chapter_name(tables, c), "open": c in g.chapters}
        for d, c in CHAPTER_DAYS.items()
    ]
    upcoming = [c for c in chapters if c["day"] > g.day]
    nxt = None
    if upcoming:
        first = upcoming[0]
        nxt = {**first, "in_days": first["day"] - g.day}
    return {"day": g.day, "chapters": chapters, "next": nxt}


def hunger(state: Any) -> dict[str, Any]:
    g: Crawl = state.game
    return {
        "day": g.day,
        "streak": g.hunger_streak,
        "longest": g.longest_streak,
        "lost": g.hunger_lost,
        "meals_today": g.meals,
    }


Upcoming = Callable[[Crawl, dict[str, Any] | None], list[str]]
"""What the day's order lets the explorer do next, as commands to type, from the game and
the campaign's tables: the rules decide it (``ledger.systems.crawl.order.expected``), so the
system hands it to :func:`sheet` rather than the fold importing the rules."""


def sheet(state: Any, actor: str | None = None, *, expected: Upcoming) -> dict[str, Any]:
    """The explorer's sheet; ``expected`` gives its list of the commands that may come next."""
    g: Crawl = state.game
    cal = calendar(state)
    fight = None
    if g.fight is not None:
        foe = g.fight.foe
        fight = {
            "enemy": foe.name,
            "health": foe.health,
            "attack": foe.attack,
            "defense": foe.defense,
            "esc": foe.esc,
            "robot": foe.robot,
            "escapable": foe.escapable,
            "effects": list(g.fight.effects),
            "stunned": g.fight.stun,
        }
    return {
        "campaign": state.core.name,
        "explorer": state.core.characters[0] if state.core.characters else None,
        "day": g.day,
        "alive": g.alive,
        "health": g.health,
        "energy": g.energy,
        "attack": g.attack,
        "defense": g.defense,
        "food": {"bar": g.bar, "fruit": g.fruit},
        "bits": g.bits,
        "arrows": g.arrows,
        "hunger_streak": g.hunger_streak,
        "techniques": {str(n): {"successes": s, "mastered": s >= 6} for n, s in sorted(g.techniques.items())},
        "inventory": list(g.inventory),
        "weapon": _weapon(g, state.core.tables),
        "position": {"q": g.q, "r": g.r, "terrain": g.here.terrain},
        "meals_today": g.meals,
        "phase": g.phase,
        "expected": expected(g, state.core.tables) if g.alive else [],
        "fight": fight,
        "chapters_open": list(g.chapters),
        "next_chapter": cal["next"],
        "cause_of_death": g.cause,
        "status": "alive" if g.alive else f"dead ({g.cause})",
        "who": state.core.characters[0] if state.core.characters else "the explorer",
        "mastery": [f"{n}: {s}/6" + (" mastered" if s >= 6 else "") for n, s in sorted(g.techniques.items())],
    }


SHEET = SheetLayout(
    title=("{who} in {campaign}, day {day}: {status}",),
    headline=(
        SheetField("health", "Health", max=20),
        SheetField("energy", "Energy", max=20),
        SheetField("attack", "Attack", show="{weapon.attack} with {weapon.name}"),
        SheetField("defense", "Defense"),
    ),
    sections=(
        SheetSection(
            "Supplies",
            (
                SheetField("food.bar", "bars"),
                SheetField("food.fruit", "fruit"),
                SheetField("bits", "bits"),
                SheetField("arrows", "arrows"),
            ),
        ),
        SheetSection(
            "Hunger", (SheetField("hunger_streak", "streak"), SheetField("meals_today", "meals today"))
        ),
        SheetSection("Gear", (SheetField("inventory", "carrying"), SheetField("mastery", "techniques"))),
        SheetSection(
            "Where",
            (
                SheetField("position", "at", show="({position.q}, {position.r}) {position.terrain}"),
                SheetField("chapters_open", "chapters open"),
                SheetField(
                    "next_chapter", "next chapter", show="day {next_chapter.day}, {next_chapter.name}"
                ),
            ),
        ),
        SheetSection(
            "Fighting",
            (
                SheetField("fight.enemy", ""),
                SheetField("fight.health", "Health"),
                SheetField("fight.attack", "Attack"),
                SheetField("fight.defense", "Defense"),
                SheetField("fight.esc", "ESC"),
                SheetField("fight.effects", "effects"),
            ),
            when="fight",
        ),
        SheetSection("Next", (SheetField("expected", ""),), when="expected"),
    ),
)
"""The explorer's sheet as a player reads it (``ledger sheet``, the report)."""


def _weapon(g: Crawl, tables: dict[str, Any]) -> dict[str, Any]:
    """The best weapon carried and the Attack it gives (bows only with arrows)."""
    best, bonus = "hands", 0
    for name in g.inventory:
        item = stored_table(stored_table(tables, "items"), name)
        if item.get("bow") and g.arrows == 0:
            continue
        attack = item.get("attack", 0)
        if type(attack) is not int:
            raise not_stored(f"the attack of item {name!r}", attack)
        if attack > bonus:
            best, bonus = name, item["attack"]
    return {"name": best, "attack": g.attack + bonus}


def journal(state: Any) -> list[dict[str, Any]]:
    g: Crawl = state.game
    rows: list[tuple[int, int, str]] = [(d, 0, text) for d, text in g.journal]
    rows += [(d, 1, f"note: {text}") for d, text in g.notes]
    if g.today:
        rows.append((g.day, 0, "; ".join(g.today) + " ..."))
    rows.sort(key=lambda row: (row[0], row[1]))
    return [{"day": d, "text": text} for d, _, text in rows]


ICON_MARK = {"town": "T", "treasure": "$", "divine": "+", "god": "G", "enemy": "!", "impassable": "#"}


def map_entries(state: Any) -> list[dict[str, Any]]:
    g: Crawl = state.game
    tables = state.core.tables
    walked: dict[tuple[int, int], list[int]] = {}
    for day_number, spot in enumerate(g.path):
        walked.setdefault(spot, []).append(day_number)
    out = []
    for k, h in sorted(g.hexes.items(), key=lambda kv: tuple(map(int, kv[0].split(",")))[::-1]):
        q, r = map(int, k.split(","))
        out.append(
            {
                "q": q,
                "r": r,
                "terrain": h.terrain,
                "icon": h.icon or None,
                "number": h.number,
                "chapter": _icon_chapter(tables, h),
                "visits": h.visits,
                "walked": (q, r) in walked,
                "days": walked.get((q, r), []),
                "here": (q, r) == (g.q, g.r),
                "enemy": h.foe.name if h.foe else None,
                "quest_done": h.quest_done,
            }
        )
    return out


def _icon_chapter(tables: dict[str, Any], h: Hex) -> str | None:
    """The name of the divine chapter whose icon (a sign, or God's) the hex holds."""
    if h.icon == "divine" and h.number is not None:
        return chapter_name(tables, h.number)
    if h.icon == "god":
        return chapter_name(tables, GOD_CHAPTER)
    return None


def terrain_letters(tables: dict[str, Any]) -> dict[str, str]:
    letters: dict[str, str] = {}
    for name in stored_table(tables, "terrain").values():
        if not isinstance(name, str) or not name:
            raise not_stored("a terrain's name", name)
        letter = name[0].lower()
        if letter in letters.values():
            letter = letter.upper()
        letters[name] = letter
    return letters


def distance(q: int, r: int, q2: int, r2: int) -> int:
    dq, dr = q - q2, r - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def render_map(state: Any, radius: int | None = None) -> str:
    """Flat-topped hexes drawn on a text grid: each column is shifted half a row.

    With ``radius`` only the hexes that close to the explorer are drawn."""
    g: Crawl = state.game
    entries = map_entries(state)
    if radius is not None:
        entries = [e for e in entries if distance(e["q"], e["r"], g.q, g.r) <= radius]
    letters = terrain_letters(state.core.tables)
    rows2 = [2 * e["r"] + e["q"] for e in entries]
    qs = [e["q"] for e in entries]
    q0, row0 = min(qs), min(rows2)
    width, height = (max(qs) - q0 + 1) * 4 + 2, max(rows2) - row0 + 1
    grid = [[" "] * width for _ in range(height)]
    for e in entries:
        x, y = (e["q"] - q0) * 4, 2 * e["r"] + e["q"] - row0
        cell = _cell(e, letters)
        for i, ch in enumerate(cell):
            grid[y][x + i] = ch
    body = "\n".join("".join(line).rstrip() for line in grid)
    legend_terrain = "  ".join(f"{v}={k}" for k, v in letters.items())
    signs = sorted({(e["number"], e["chapter"]) for e in entries if e["icon"] == "divine"})
    legend_signs = "divine signs: " + "  ".join(f"+{n} {name}" for n, name in signs) + "\n" if signs else ""
    return (
        f"{body}\n\n@ you (day {g.day})  . walked  T town  $ treasure  +n divine sign of chapter n  G God  "
        f"! waiting enemy  # impassable  ? unexplored  o no terrain yet\n{legend_signs}{legend_terrain}"
    )


def _cell(e: dict[str, Any], letters: dict[str, str]) -> str:
    terrain = letters.get(e["terrain"], "?") if e["terrain"] else ("o" if e["walked"] else "?")
    icon = ICON_MARK.get(e["icon"] or "", "")
    if icon and e["number"] is not None:
        icon += str(e["number"])
    mark = "@" if e["here"] else ("." if e["walked"] else " ")
    return f"{mark}{terrain}{icon}"[:4]
