"""Playing ``crawl`` by itself: the autoplayer (``Play.autoplay``)."""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from typing import Any

from ledger.deciding.commands import Command
from ledger.errors import LedgerError
from ledger.projections.crawl.game import DIRECTIONS, Crawl, Hex, key, neighbour
from ledger.systems.crawl import combat
from ledger.systems.crawl import events as ev
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
    in_town,
)

# --- the autoplayer ------------------------------------------------------------------


class Policy:
    """A sensible explorer: eats when hungry, rests in towns, flees when losing."""

    def __init__(self, game: Crawl, tables: dict[str, Any], rng: random.Random) -> None:
        self.g, self.tables, self.rng = game, tables, rng

    def next(self) -> Command:
        g = self.g
        options = allowed(g)
        if g.phase == "dawn":
            return Move(direction=self.direction())
        if g.phase == "terrain":
            return Terrain()
        if g.phase == "event":
            return Explore()
        if g.phase == "encounter":
            return Fight() if "hide" not in options or self.strong_enough() else Hide()
        if g.phase == "combat":
            return self.combat_move(options)
        return self.camp(options)

    def food(self) -> int:
        return self.g.bar + self.g.fruit

    def strong_enough(self) -> bool:
        """Fight God only when the expected fight leaves a margin."""
        assert self.g.fight is not None
        return self.expected_loss(self.g.fight.foe) < self.g.health - 4

    def expected_loss(self, foe: ev.Foe) -> float:
        """Health the rest of the fight should cost, trading basic attacks."""
        g = self.g
        name = combat.best_weapon(g, self.tables, bows=True)
        blow = g.attack + int(combat.weapons(g, self.tables)[name]["attack"]) - foe.defense
        if blow <= 0:
            return float("inf")
        rounds = math.ceil(foe.health / blow)
        defense = combat.defense_of(g, self.tables)
        per_turn = sum(max(0, face + foe.attack - defense) for face in range(1, 7)) / 6
        return rounds * per_turn

    def combat_move(self, options: list[str]) -> Command:
        g = self.g
        assert g.fight is not None
        foe = g.fight.foe
        losing = self.expected_loss(foe) >= g.health - 1
        if losing and "escape" in options and g.energy >= 2 and g.health > 2:
            if combat.p_escape(foe.esc - (2 if 5 in g.fight.effects else 0)) > 0:
                return Escape()
            if 5 in g.techniques and g.energy >= 4 and 5 not in g.fight.effects:
                return Technique(number=5)
        for n in (3, 1, 2, 4):
            if n in g.techniques and g.energy >= combat.TECHNIQUES[n]["cost"] + 3:
                try:
                    combat.check_technique(g, n)
                except LedgerError:
                    continue
                return Technique(number=n)
        return Attack()

    def camp(self, options: list[str]) -> Command:
        g = self.g
        if "loot" in options:
            return Loot()
        if "buy" in options:
            purchase = self.purchase()
            if purchase:
                return Buy(item=purchase)
        if "quest" in options:
            return Quest()
        if "eat" in options:
            meal = self.meal()
            if meal:
                return Eat(food=meal)
        if in_town(g):
            return Sleep(where="hotel" if g.bits >= 3 and g.health < 12 else "town")
        return Sleep(where="wild")

    def purchase(self) -> str | None:
        g, shop = self.g, self.tables["shop"]
        reserve = 3 if g.health < 12 else 0
        wanted = ["bar"] if self.food() < 4 else []
        if g.arrows < 3 and any(self.tables["items"].get(i, {}).get("bow") for i in g.inventory):
            wanted.append("arrows")
        for item in ("pipe", "armour"):
            if item in shop and item not in g.inventory and self.food() >= 2:
                wanted.append(item)
        for item in wanted:
            if item in shop and g.bits - shop[item]["price"] >= reserve:
                return item
        return None

    def meal(self) -> str | None:
        g = self.g
        hurt = g.health <= 14 or g.energy <= 8
        if g.meals > 0 and not (hurt and self.food() > 3):
            return None
        if in_town(g) and g.bits >= 3 and g.health <= 12 and g.meals == 0:
            return "tavern"
        if g.bar and (g.health <= g.energy or not g.fruit):
            return "bar"
        if g.fruit:
            return "fruit"
        if g.bar:
            return "bar"
        return None

    def direction(self) -> str:
        g = self.g
        if (self.food() == 0 or g.health < 9) and not in_town(g):
            step = self.toward_town()
            if step:
                return step
        fresh, known = [], []
        for direction in DIRECTIONS:
            h = g.hexes.get(key(*neighbour(g.q, g.r, direction)))
            if h is not None and (h.icon in ("impassable", "god") or h.foe is not None):
                continue
            (known if h is not None and h.visits else fresh).append(direction)
        open_ways = [
            d for d in DIRECTIONS if g.hexes.get(key(*neighbour(g.q, g.r, d)), Hex()).icon != "impassable"
        ]
        return self.rng.choice(fresh or known or open_ways)

    def toward_town(self) -> str | None:
        """First step of the shortest walk over visited hexes to a town."""
        g = self.g
        start = (g.q, g.r)
        seen = {start: ""}
        queue = deque([start])
        while queue:
            q, r = queue.popleft()
            h = g.hexes.get(key(q, r))
            if (q, r) != start and h is not None and h.icon == "town":
                return seen[(q, r)]
            for direction in DIRECTIONS:
                nxt = neighbour(q, r, direction)
                nh = g.hexes.get(key(*nxt))
                if nxt in seen or nh is None or not nh.visits or nh.foe is not None:
                    continue
                if nh.icon in ("impassable", "god"):
                    continue
                seen[nxt] = seen[(q, r)] or direction
                queue.append(nxt)
        return None


def autoplay(
    ledger: Any, campaign: str | None, days: int, on_action: Callable[[Any], None] | None = None
) -> int:
    """Play ``days`` whole days (or until death); returns the days played."""
    state = ledger.state(campaign)
    seed = state.core.seed if state.core.seed is not None else random.randrange(2**32)
    target = state.game.day + days
    played = 0
    for _ in range(days * 40):
        state = ledger.state(campaign)
        g: Crawl = state.game
        if not g.alive or (g.phase == "dawn" and g.day >= target):
            break
        rng = random.Random(f"{seed}:{state.core.version}:policy")
        command = Policy(g, state.core.tables, rng).next()
        rec = ledger.execute(command, campaign)
        if on_action:
            on_action(rec)
        if any(isinstance(e.event, ev.DayEnded) for e in rec.envelopes):
            played += 1
    return played
