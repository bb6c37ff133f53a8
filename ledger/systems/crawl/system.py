"""``crawl``: a solo hex-crawl, one hex a day, in a fixed order.

The decider turns the commands of :mod:`ledger.systems.crawl.order` into the
events of :mod:`ledger.systems.crawl.events`; :mod:`ledger.projections.crawl.state` folds them.
Dice order, for physical dice: ``move`` none; ``terrain`` 1d6 (3d6 in the
variant); ``event`` 2d6 on a new hex (then 1d6 for ruins), 1d6 on a revisit,
an icon or a divine chapter; ``eat``/``sleep``/``buy`` none; ``quest`` and
``loot`` 1d6; combat as in :mod:`ledger.systems.crawl.combat`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.deciding.decider import Decider, Draft
from ledger.dice.sources import Dice
from ledger.errors import EditTable, Other, RuleError
from ledger.i18n import N_, _, n_
from ledger.log.events import Event
from ledger.projections.crawl import report as rep
from ledger.projections.crawl import state as proj
from ledger.projections.crawl.state import CHAPTER_DAYS, DIRECTIONS, GOD_CHAPTER, Crawl
from ledger.systems import Play, ReadModel, Rules, System
from ledger.systems.crawl import combat, terms
from ledger.systems.crawl import events as ev
from ledger.systems.crawl import stats as crawl_stats
from ledger.systems.crawl.facts import FACTS_SQL, facts
from ledger.systems.crawl.invariants import check_state
from ledger.systems.crawl.model import MEALS, NIGHTS
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
    allowed,
    expected,
    in_town,
    require,
)
from ledger.systems.crawl.outcomes import (
    apply_outcome,
    capped,
    chapter_event,
    foe_from,
    roll_table,
    setting,
    starve,
)
from ledger.systems.crawl.play import autoplay
from ledger.systems.crawl.tables import check_settings, check_stored, listing, load_tables


def _in_order(d: Draft[Crawl]) -> None:
    """Every command first: the explorer is alive and the day's order allows it."""
    require(d.game, d.command)


def _physical(d: Draft[Crawl], e: Event) -> Event:
    """An action played with physical dice (``faces``): its rolling events are marked so,
    as they are emitted (the fold, which reads no mark, folds the event recorded)."""
    return _marked(e) if d.dice.manual else e


def _marked(e: Event) -> Event:
    """A rolling event of an action played with physical dice, marked so."""
    rolled = (
        isinstance(e, ev.TerrainRolled | ev.TableRolled | ev.EscapeRolled)
        or (isinstance(e, ev.TechniqueRolled) and bool(e.dice))
        or (isinstance(e, ev.EnemyStruck) and e.face is not None)
    )
    return msgspec.structs.replace(e, manual=True) if rolled else e


decider = Decider("crawl", proj.evolve, before=_in_order, mark=_physical)
"""The crawl's commands, in the day's order, each with its handler."""


@decider.on(Move)
def _move(d: Draft[Crawl], c: Move) -> None:
    direction = terms.read_or_keep(terms.DIRECTION_WORDS, c.direction) or ""
    if direction not in DIRECTIONS:
        raise RuleError(
            _(
                "direction {direction!r} is not a hex direction; use one of {choices}",
                direction=c.direction,
                choices=", ".join(terms.names_of(terms.DIRECTIONS)),
            )
        )
    q, r = proj.neighbour(d.game.q, d.game.r, direction)
    target = d.game.hexes.get(proj.key(q, r))
    if target is not None and target.icon == "impassable":
        raise RuleError(
            _(
                "the hex to the {direction} ({q},{r}) is impassable; choose another direction",
                direction=terms.word_of(terms.DIRECTIONS, direction),
                q=q,
                r=r,
            )
        )
    day = d.game.day + 1
    d.emit(ev.Moved(day=day, direction=direction, q=q, r=r, revisit=bool(target and target.visits)))
    chapter = CHAPTER_DAYS.get(day)
    if chapter is not None:
        d.emit(ev.ChapterOpened(chapter=chapter, name=proj.chapter_name(d.tables, chapter), day=day))


@decider.on(Terrain)
def _terrain(d: Draft[Crawl], c: Terrain) -> None:
    terrain = d.tables["terrain"]
    if setting(d, "terrain", "d6") != "3d6":
        if c.choose is not None:
            raise RuleError(
                _(
                    "a terrain to keep ({terrain!r}) is for the 3d6 terrain variant; this campaign rolls 1d6",
                    terrain=c.choose,
                ),
                fix=Other(text=_("roll the terrain without choosing one")),
            )
        face = d.dice.roll(6)
        name = terrain[str(face)]
        if not isinstance(name, str):
            raise proj.not_stored(_("the terrain of a {face}", face=face), name)
        d.emit(ev.TerrainRolled(q=d.game.q, r=d.game.r, dice=(face,), face=face, terrain=name))
        return
    faces = tuple(d.dice.roll(6) for _ in range(3))
    counts = _neighbour_terrains(d)
    options = [terrain[str(f)] for f in faces] + [t for t, n in counts.items() if n >= 2]
    for face, name in zip(faces, options, strict=False):
        if not isinstance(name, str):
            raise proj.not_stored(_("the terrain of a {face}", face=face), name)
    options = list(dict.fromkeys(options))
    chosen = terms.read_or_keep(terms.readings(terrain.values()), c.choose)
    choice = chosen or _default_choice(faces, counts, terrain)
    if choice not in options:
        raise RuleError(
            _(
                "terrain {terrain!r} is not on the dice nor set by a neighbour pair; choose one of {choices}",
                terrain=c.choose if c.choose else choice,
                choices=", ".join(terms.names(options)),
            )
        )
    face = int(next(k for k, v in terrain.items() if v == choice))
    d.emit(
        ev.TerrainRolled(
            q=d.game.q,
            r=d.game.r,
            dice=faces,
            face=face,
            terrain=choice,
            variant="3d6",
            options=tuple(options),
        )
    )


def _neighbour_terrains(d: Draft[Crawl]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for direction in DIRECTIONS:
        h = d.game.hexes.get(proj.key(*proj.neighbour(d.game.q, d.game.r, direction)))
        if h is not None and h.terrain:
            counts[h.terrain] = counts.get(h.terrain, 0) + 1
    return counts


def _default_choice(faces: tuple[int, ...], counts: dict[str, int], terrain: dict[str, str]) -> str:
    """Without a choice: the terrain most neighbours share (two or more), else the first die."""
    pairs = [t for t, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n >= 2]
    return pairs[0] if pairs else terrain[str(faces[0])]


@decider.on(Explore)
def _explore(d: Draft[Crawl], c: Explore) -> None:
    repeat = terms.read_or_keep(terms.REPEAT_WORDS, c.repeat)
    if repeat not in (None, "shift", "pass"):
        raise RuleError(
            _(
                "a repeated result is shifted or passed, not {repeat!r}; choose {shift} or {pass_}",
                repeat=c.repeat,
                shift=terms.word_of(terms.REPEATS, "shift"),
                pass_=terms.word_of(terms.REPEATS, "pass"),
            )
        )
    g, dice = d.game, d.dice
    here = g.here
    if g.chapter_today is not None:
        chapter_event(d, g.chapter_today, dice)
    elif here.foe is not None:
        d.emit(ev.EnemyMet(foe=here.foe, waiting=True))
    elif here.icon == "treasure":
        outcome = roll_table(d, "treasure", d.tables["rewards"], 1, dice)
        d.emit(ev.IconPlaced(q=g.q, r=g.r, icon=""))
        if outcome:
            apply_outcome(d, outcome, "treasure", dice)
    elif here.icon == "divine" and here.number is not None:
        _divine_icon(d, here.number, dice)
    elif here.icon == "god":
        chapter_event(d, GOD_CHAPTER, dice)
    elif here.visits <= 1:
        rows = d.tables["events"][here.terrain]
        outcome = roll_table(d, f"events.{here.terrain}", rows, 2, dice, repeat)
        if outcome:
            apply_outcome(d, outcome, terms.recorded(outcome["text"]), dice, repeat)
    else:
        _revisit(d, dice)


def _divine_icon(d: Draft[Crawl], chapter: int, dice: Dice) -> None:
    if chapter in d.game.chapters:
        chapter_event(d, chapter, dice)
        return
    face = dice.roll(6)
    if face % 2:
        chapter_event(d, chapter, dice, face=face)
    else:
        d.emit(
            ev.TableRolled(
                table=f"chapter.{chapter}",
                dice=(face,),
                total=face,
                row=None,
                text=terms.FIXED_TEXTS[0],
                choice="nothing",
            )
        )


def _revisit(d: Draft[Crawl], dice: Dice) -> None:
    terrain = d.game.here.terrain or ""
    face = dice.roll(6)
    if face % 2 == 0:
        d.emit(
            ev.TableRolled(
                table="revisit",
                dice=(face,),
                total=face,
                row=None,
                text=terms.FIXED_TEXTS[1],
                choice="nothing",
            )
        )
        return
    name = d.tables["encounters"][terrain][str(face)]
    d.emit(ev.TableRolled(table="revisit", dice=(face,), total=face, row=face, text=f"an encounter: {name}"))
    d.emit(ev.EnemyMet(foe=foe_from(d.tables, name)))


@decider.on(Eat)
def _eat(d: Draft[Crawl], c: Eat) -> None:
    food = terms.read_or_keep(terms.FOOD_WORDS, c.food) or ""
    if food not in MEALS:
        raise RuleError(
            _(
                "food {food!r} is not on the menu; eat {bar}, {fruit} or {tavern}",
                food=food,
                bar=terms.word("bar"),
                fruit=terms.word("fruit"),
                tavern=terms.word("tavern"),
            )
        )
    g = d.game
    health, energy, cost = MEALS[food]
    if food == "tavern":
        if not in_town(g):
            raise RuleError(_("a tavern meal needs a town; eat a bar or fruit from your pack"))
        if g.bits < cost:
            raise RuleError(
                _(
                    "a tavern meal costs {price} and you have {bits}; eat from your pack",
                    price=n_("{n} bit", "{n} bits", cost),
                    bits=g.bits,
                )
            )
    elif getattr(g, food) < 1:
        raise RuleError(
            _("no {food} left in your pack; eat something else or sleep hungry", food=terms.word(food))
        )
    new_health, new_energy = capped(g.health, health), capped(g.energy, energy)
    d.emit(
        ev.Ate(
            food=food,
            health_gain=new_health - g.health,
            energy_gain=new_energy - g.energy,
            health=new_health,
            energy=new_energy,
            cost=cost,
            meal=g.meals + 1,
        )
    )


@decider.on(Sleep)
def _sleep(d: Draft[Crawl], c: Sleep) -> None:
    where = terms.read_or_keep(terms.NIGHT_WORDS, c.where) or ""
    if where not in NIGHTS:
        raise RuleError(
            _(
                "cannot sleep {where!r}; sleep {wild}, {town} or {hotel}",
                where=where,
                wild=terms.word("wild"),
                town=terms.word("town"),
                hotel=terms.word("hotel"),
            )
        )
    g = d.game
    health, energy, cost = NIGHTS[where]
    if where != "wild" and not in_town(g):
        raise RuleError(
            _("sleeping {where} needs a town; sleep {wild}", where=terms.word(where), wild=terms.word("wild"))
        )
    if g.bits < cost:
        raise RuleError(
            _(
                "the hotel costs {price} and you have {bits}; sleep in town for free",
                price=n_("{n} bit", "{n} bits", cost),
                bits=g.bits,
            )
        )
    ate = g.meals > 0
    streak = 0 if ate else g.hunger_streak + 1
    if not ate and not _starve(d, streak):
        return
    g = d.game
    new_health, new_energy = capped(g.health, health), capped(g.energy, energy)
    d.emit(
        ev.Slept(
            where=where,
            health_gain=new_health - g.health,
            energy_gain=new_energy - g.energy,
            health=new_health,
            energy=new_energy,
            cost=cost,
        )
    )
    d.emit(ev.DayEnded(day=d.game.day, ate=ate, streak=streak, how="slept", line=combat.line(d.game)))


def _starve(d: Draft[Crawl], streak: int) -> bool:
    """The hunger streak's loss (2, 3, 4 ...); False when it kills."""
    if not starve(d, streak, streak + 1):
        d.emit(ev.Died(cause=f"hunger (day {streak} without a meal)", day=d.game.day))
        return False
    return True


@decider.on(Buy)
def _buy(d: Draft[Crawl], c: Buy) -> None:
    shop = d.tables["shop"]
    item = terms.read_or_keep(terms.readings(shop), c.item) or ""
    if item not in shop:
        raise RuleError(
            _(
                "the shop sells no {item!r}; it sells {wares}",
                item=c.item,
                wares=", ".join(sorted(terms.names(shop))),
            )
        )
    row = shop[item]
    if d.game.bits < row["price"]:
        raise RuleError(
            _(
                "{item} costs {price} and you have {bits}; buy something cheaper",
                item=terms.word(item),
                price=n_("{n} bit", "{n} bits", row["price"]),
                bits=d.game.bits,
            )
        )
    d.emit(
        ev.Bought(
            item=item, price=row["price"], bits=d.game.bits - row["price"], town=d.game.here.number or 0
        )
    )
    goods = {k: v for k, v in row.items() if k != "price"}
    apply_outcome(d, goods, f"bought {item}", _NO_DICE)


@decider.on(Quest)
def _quest(d: Draft[Crawl], _c: Quest) -> None:
    d.emit(ev.QuestTaken(town=d.game.here.number or 0))
    outcome = roll_table(d, "quests", d.tables["quests"], 1, d.dice)
    if outcome:
        apply_outcome(d, outcome, "quest", d.dice)


@decider.on(Loot)
def _loot(d: Draft[Crawl], _c: Loot) -> None:
    outcome = roll_table(d, "rewards", d.tables["rewards"], 1, d.dice)
    if outcome:
        apply_outcome(d, outcome, "loot", d.dice)


@decider.on(Hide)
def _hide(d: Draft[Crawl], _c: Hide) -> None:
    assert d.game.fight is not None
    d.emit(ev.Hid(foe=d.game.fight.foe.name))
    streak = d.game.hunger_streak + 1
    if _starve(d, streak):
        d.emit(ev.DayEnded(day=d.game.day, ate=False, streak=streak, how="hid", line=combat.line(d.game)))


@decider.on(Fight)
def _fight(d: Draft[Crawl], _c: Fight) -> None:
    combat.fight(d, d.dice)


@decider.on(Attack)
def _attack(d: Draft[Crawl], c: Attack) -> None:
    combat.attack(d, c.weapon, d.dice)


@decider.on(Technique)
def _technique(d: Draft[Crawl], c: Technique) -> None:
    combat.technique(d, c.number, d.dice)


@decider.on(Escape)
def _escape(d: Draft[Crawl], _c: Escape) -> None:
    combat.escape(d, d.dice)


class _NoDice(Dice):
    def roll(self, sides: int) -> int:
        raise RuleError(
            _("a shop item cannot call for dice (a ruin, a divine chapter)"),
            fix=EditTable(text=_("give the [shop] items goods only"), table="shop"),
        )


_NO_DICE = _NoDice()


def sheet(state: Any, actor: str | None = None) -> dict[str, Any]:
    """The explorer's sheet, with the commands the day's order allows next: as command
    lines (``expected``) and by name (``allowed``)."""
    data = proj.sheet(state, actor, expected=expected)
    game = state.game
    data["allowed"] = allowed(game) if game is not None and game.alive else []
    return data


def _system() -> System:
    return System(
        name="crawl",
        description=N_("a solo hex-crawl: one hex a day, hunger, towns, divine chapters, combat"),
        rules=Rules(
            initial=proj.initial,
            evolve=proj.evolve,
            decide=decider,
            day=proj.day,
            load_tables=load_tables,
            check_tables=check_stored,
            check_state=check_state,
            check_settings=check_settings,
            events=ev.EVENTS,
            commands=decider.commands,
            solo=True,
        ),
        read=ReadModel(
            sheet=sheet,
            sheet_layout=proj.SHEET,
            forms=proj.FORMS,
            listing=listing,
            journal=proj.journal,
            journal_hidden=("expected", "allowed", "phase", "next_chapter"),
            facts=facts,
            facts_sql=FACTS_SQL,
            report=rep.HOOKS,
            reports=crawl_stats.REPORTS,
            health_tracks=("health",),
        ),
        play=Play(
            autoplay=autoplay,
            stats_demo=crawl_stats.STATS_DEMO,
        ),
    )


SYSTEM = _system()
