"""``crawl``: a solo hex-crawl, one hex a day, in a fixed order.

The decider turns the commands of :mod:`ledger.systems.crawl.order` into the
events of :mod:`ledger.systems.crawl.events`; :mod:`ledger.projections.crawl.state` folds them.
Dice order, for ``--faces``: ``move`` none; ``terrain`` 1d6 (3d6 in the
variant); ``event`` 2d6 on a new hex (then 1d6 for ruins), 1d6 on a revisit,
an icon or a divine chapter; ``eat``/``sleep``/``buy`` none; ``quest`` and
``loot`` 1d6; combat as in :mod:`ledger.systems.crawl.combat`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from ledger.dice import Dice
from ledger.errors import RuleError
from ledger.events import Event
from ledger.projections.crawl import report as rep
from ledger.projections.crawl import state as proj
from ledger.projections.crawl.state import CHAPTER_DAYS, DIRECTIONS, GOD_CHAPTER
from ledger.systems import System, Walkthrough
from ledger.systems.crawl import combat as combat
from ledger.systems.crawl import events as ev
from ledger.systems.crawl import stats as crawl_stats
from ledger.systems.crawl.facts_sql import FACTS_SQL
from ledger.systems.crawl.order import (
    Attack,
    Buy,
    Eat,
    Escape,
    Explore,
    Fight,
    Hide,
    Loot,
    Move,
    Quest,
    Sleep,
    Technique,
    Terrain,
    expected,
    in_town,
    require,
)
from ledger.systems.crawl.outcomes import (
    Draft,
    apply_outcome,
    capped,
    chapter_event,
    foe_from,
    roll_table,
    starve,
)
from ledger.systems.crawl.tables import listing, load_tables

MEALS: dict[str, tuple[int, int, int]] = {"bar": (2, 1, 0), "fruit": (1, 2, 0), "tavern": (10, 4, 3)}
"""Food -> (Health, Energy, bits)."""
NIGHTS: dict[str, tuple[int, int, int]] = {"wild": (3, 2, 0), "town": (4, 3, 0), "hotel": (10, 6, 3)}
"""Where -> (Health, Energy, bits)."""


def _move(d: Draft, c: Move, _dice: Dice) -> None:
    if c.direction not in DIRECTIONS:
        raise RuleError(
            f"direction {c.direction!r} is not a hex direction; use one of {', '.join(DIRECTIONS)}"
        )
    q, r = proj.neighbour(d.g.q, d.g.r, c.direction)
    target = d.g.hexes.get(proj.key(q, r))
    if target is not None and target.icon == "impassable":
        raise RuleError(f"the hex to the {c.direction} ({q},{r}) is impassable; choose another direction")
    day = d.g.day + 1
    d.add(ev.Moved(day=day, direction=c.direction, q=q, r=r, revisit=bool(target and target.visits)))
    chapter = CHAPTER_DAYS.get(day)
    if chapter is not None:
        d.add(ev.ChapterOpened(chapter=chapter, name=proj.chapter_name(d.tables, chapter), day=day))


def _terrain(d: Draft, c: Terrain, dice: Dice) -> None:
    terrain = d.tables["terrain"]
    if d.settings.get("terrain") != "3d6":
        if c.choose is not None:
            raise RuleError("--choose is for the 3d6 terrain variant; this campaign rolls 1d6")
        face = dice.roll(6)
        d.add(ev.TerrainRolled(q=d.g.q, r=d.g.r, dice=(face,), face=face, terrain=terrain[str(face)]))
        return
    faces = tuple(dice.roll(6) for _ in range(3))
    counts = _neighbour_terrains(d)
    options = [terrain[str(f)] for f in faces] + [t for t, n in counts.items() if n >= 2]
    options = list(dict.fromkeys(options))
    choice = c.choose or _default_choice(faces, counts, terrain)
    if choice not in options:
        raise RuleError(
            f"terrain {choice!r} is not on the dice nor set by a neighbour pair; choose one of {', '.join(options)}"
        )
    face = int(next(k for k, v in terrain.items() if v == choice))
    d.add(
        ev.TerrainRolled(
            q=d.g.q, r=d.g.r, dice=faces, face=face, terrain=choice, variant="3d6", options=tuple(options)
        )
    )


def _neighbour_terrains(d: Draft) -> dict[str, int]:
    counts: dict[str, int] = {}
    for direction in DIRECTIONS:
        h = d.g.hexes.get(proj.key(*proj.neighbour(d.g.q, d.g.r, direction)))
        if h is not None and h.terrain:
            counts[h.terrain] = counts.get(h.terrain, 0) + 1
    return counts


def _default_choice(faces: tuple[int, ...], counts: dict[str, int], terrain: dict[str, str]) -> str:
    """Without --choose: the terrain most neighbours share (two or more), else the first die."""
    pairs = [t for t, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n >= 2]
    return pairs[0] if pairs else terrain[str(faces[0])]


def _explore(d: Draft, c: Explore, dice: Dice) -> None:
    if c.repeat not in (None, "shift", "pass"):
        raise RuleError(f"--repeat {c.repeat!r} is not a choice; use shift or pass")
    g = d.g
    here = g.here
    if g.chapter_today is not None:
        chapter_event(d, g.chapter_today, dice)
    elif here.foe is not None:
        d.add(ev.EnemyMet(foe=here.foe, waiting=True))
    elif here.icon == "treasure":
        outcome = roll_table(d, "treasure", d.tables["rewards"], 1, dice)
        d.add(ev.IconPlaced(q=g.q, r=g.r, icon=""))
        if outcome:
            apply_outcome(d, outcome, "treasure", dice)
    elif here.icon == "divine" and here.number is not None:
        _divine_icon(d, here.number, dice)
    elif here.icon == "god":
        chapter_event(d, GOD_CHAPTER, dice)
    elif here.visits <= 1:
        rows = d.tables["events"][here.terrain]
        outcome = roll_table(d, f"events.{here.terrain}", rows, 2, dice, c.repeat)
        if outcome:
            apply_outcome(d, outcome, outcome["text"], dice, c.repeat)
    else:
        _revisit(d, dice)


def _divine_icon(d: Draft, chapter: int, dice: Dice) -> None:
    if chapter in d.g.chapters:
        chapter_event(d, chapter, dice)
        return
    face = dice.roll(6)
    if face % 2:
        chapter_event(d, chapter, dice, face=face)
    else:
        d.add(
            ev.TableRolled(
                table=f"chapter.{chapter}",
                dice=(face,),
                total=face,
                row=None,
                text="the divine sign is silent (closed chapter, even roll)",
                choice="nothing",
            )
        )


def _revisit(d: Draft, dice: Dice) -> None:
    terrain = d.g.here.terrain or ""
    face = dice.roll(6)
    if face % 2 == 0:
        d.add(
            ev.TableRolled(
                table="revisit",
                dice=(face,),
                total=face,
                row=None,
                text="a familiar hex, nothing happens",
                choice="nothing",
            )
        )
        return
    name = d.tables["encounters"][terrain][str(face)]
    d.add(ev.TableRolled(table="revisit", dice=(face,), total=face, row=face, text=f"an encounter: {name}"))
    d.add(ev.EnemyMet(foe=foe_from(d.tables, name)))


def _eat(d: Draft, c: Eat, _dice: Dice) -> None:
    if c.food not in MEALS:
        raise RuleError(f"food {c.food!r} is not on the menu; eat bar, fruit or tavern")
    g = d.g
    health, energy, cost = MEALS[c.food]
    if c.food == "tavern":
        if not in_town(g):
            raise RuleError("a tavern meal needs a town; eat a bar or fruit from your pack")
        if g.bits < cost:
            raise RuleError(f"a tavern meal costs {cost} bits and you have {g.bits}; eat from your pack")
    elif getattr(g, c.food) < 1:
        raise RuleError(f"no {c.food} left in your pack; eat something else or sleep hungry")
    new_health, new_energy = capped(g.health, health), capped(g.energy, energy)
    d.add(
        ev.Ate(
            food=c.food,
            health_gain=new_health - g.health,
            energy_gain=new_energy - g.energy,
            health=new_health,
            energy=new_energy,
            cost=cost,
            meal=g.meals + 1,
        )
    )


def _sleep(d: Draft, c: Sleep, _dice: Dice) -> None:
    if c.where not in NIGHTS:
        raise RuleError(f"cannot sleep {c.where!r}; sleep wild, town or hotel")
    g = d.g
    health, energy, cost = NIGHTS[c.where]
    if c.where != "wild" and not in_town(g):
        raise RuleError(f"sleeping {c.where} needs a town; sleep wild")
    if g.bits < cost:
        raise RuleError(f"the hotel costs {cost} bits and you have {g.bits}; sleep in town for free")
    ate = g.meals > 0
    streak = 0 if ate else g.hunger_streak + 1
    if not ate and not _starve(d, streak):
        return
    g = d.g
    new_health, new_energy = capped(g.health, health), capped(g.energy, energy)
    d.add(
        ev.Slept(
            where=c.where,
            health_gain=new_health - g.health,
            energy_gain=new_energy - g.energy,
            health=new_health,
            energy=new_energy,
            cost=cost,
        )
    )
    d.add(ev.DayEnded(day=d.g.day, ate=ate, streak=streak, how="slept", line=combat.line(d.g)))


def _starve(d: Draft, streak: int) -> bool:
    """The hunger streak's loss (2, 3, 4 ...); False when it kills."""
    if not starve(d, streak, streak + 1):
        d.add(ev.Died(cause=f"hunger (day {streak} without a meal)", day=d.g.day))
        return False
    return True


def _hide(d: Draft, _c: Hide, _dice: Dice) -> None:
    assert d.g.fight is not None
    d.add(ev.Hid(foe=d.g.fight.foe.name))
    streak = d.g.hunger_streak + 1
    if _starve(d, streak):
        d.add(ev.DayEnded(day=d.g.day, ate=False, streak=streak, how="hid", line=combat.line(d.g)))


def _buy(d: Draft, c: Buy, _dice: Dice) -> None:
    shop = d.tables["shop"]
    if c.item not in shop:
        raise RuleError(f"the shop sells no {c.item!r}; it sells {', '.join(sorted(shop))}")
    row = shop[c.item]
    if d.g.bits < row["price"]:
        raise RuleError(f"{c.item} costs {row['price']} bits and you have {d.g.bits}; buy something cheaper")
    d.add(ev.Bought(item=c.item, price=row["price"], bits=d.g.bits - row["price"], town=d.g.here.number or 0))
    goods = {k: v for k, v in row.items() if k != "price"}
    apply_outcome(d, goods, f"bought {c.item}", _NO_DICE)


def _quest(d: Draft, _c: Quest, dice: Dice) -> None:
    d.add(ev.QuestTaken(town=d.g.here.number or 0))
    outcome = roll_table(d, "quests", d.tables["quests"], 1, dice)
    if outcome:
        apply_outcome(d, outcome, "quest", dice)


def _loot(d: Draft, _c: Loot, dice: Dice) -> None:
    outcome = roll_table(d, "rewards", d.tables["rewards"], 1, dice)
    if outcome:
        apply_outcome(d, outcome, "loot", dice)


class _NoDice(Dice):
    def roll(self, sides: int) -> int:
        raise RuleError("a shop item cannot call for dice; fix the [shop] table")


_NO_DICE = _NoDice()

HANDLERS: dict[type, Callable[[Draft, Any, Dice], None]] = {
    Move: _move,
    Terrain: _terrain,
    Explore: _explore,
    Eat: _eat,
    Sleep: _sleep,
    Buy: _buy,
    Quest: _quest,
    Loot: _loot,
    Hide: _hide,
    Fight: lambda d, _c, dice: combat.fight(d, dice),
    Attack: lambda d, c, dice: combat.attack(d, c.weapon, dice),
    Technique: lambda d, c, dice: combat.technique(d, c.number, dice),
    Escape: lambda d, _c, dice: combat.escape(d, dice),
}


def decide(state: Any, command: Any, dice: Dice) -> list[Event]:
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise RuleError(
            f"the crawl system has no command {type(command).__name__}; see `ledger crawl --help`"
        )
    game: proj.Crawl = state.game
    require(game, command, state.core.tables)
    draft = Draft(game, state.core.tables)
    handler(draft, command, dice)
    return [_marked(e) for e in draft.events] if dice.manual else draft.events


def _marked(e: Event) -> Event:
    """A rolling event of an action played with physical dice (``--faces``), marked so."""
    rolled = (
        isinstance(e, ev.TerrainRolled | ev.TableRolled | ev.EscapeRolled)
        or (isinstance(e, ev.TechniqueRolled) and bool(e.dice))
        or (isinstance(e, ev.EnemyStruck) and e.face is not None)
    )
    return msgspec.structs.replace(e, manual=True) if rolled else e


def hints(state: Any) -> list[str]:
    """What the day's order lets the explorer do next (nothing once dead)."""
    game: proj.Crawl | None = state.game
    if game is None or not game.alive:
        return []
    return list(expected(game))


def _system() -> System:
    from ledger.systems.crawl.play import autoplay, demo, facts

    return System(
        name="crawl",
        description="a solo hex-crawl: one hex a day, hunger, towns, divine chapters, combat",
        initial=proj.initial,
        evolve=proj.evolve,
        decide=decide,
        sheet=proj.sheet,
        render_sheet=proj.render_sheet,
        day=proj.day,
        load_tables=load_tables,
        demo=demo,
        events=ev.EVENTS,
        commands=tuple(HANDLERS),
        listing=listing,
        solo=True,
        journal=proj.journal,
        facts=facts,
        facts_sql=FACTS_SQL,
        autoplay=autoplay,
        hints=hints,
        report=rep.HOOKS,
        reports=crawl_stats.REPORTS,
        stats_demo=crawl_stats.STATS_DEMO,
        health_tracks=("health",),
        walkthrough=Walkthrough(
            title="Play a crawl day (each command prints what may come next)",
            steps=(
                ("ledger new crawl Mine", "start; the explorer stands on (0,0)"),
                ("ledger crawl move n", "a new day: walk to a neighbour (n ne se s sw nw)"),
                ("ledger crawl terrain", "a blank hex: roll its terrain (1d6)"),
                ("ledger crawl event", "roll the day's event (2d6 on a new hex)"),
                ("ledger crawl fight", "an enemy? it strikes first; then"),
                ("ledger crawl attack", "... attack (or technique N, or escape) until it falls"),
                ("ledger crawl buy bar", "in a town: trade, then quest, eat, sleep"),
                ("ledger crawl eat bar", "up to 3 rations: bar, fruit, or tavern in a town"),
                ("ledger crawl sleep wild", "end the day (wild, town or hotel)"),
                ("ledger sheet; ledger crawl map", "how you are, where you are"),
                ("ledger tables", "the tables the dice are rolled on"),
                ("ledger undo", "take the last action back"),
            ),
        ),
        cli="ledger.cli.crawl:group",
        cli_help="The crawl system: a solo hex-crawl, day by day.",
        create="ledger.cli.crawl:create",
        first_steps=(
            "crawl move DIR (n ne se s sw nw: the explorer walks to a neighbouring hex; day 1 begins)",
        ),
    )


SYSTEM = _system()
