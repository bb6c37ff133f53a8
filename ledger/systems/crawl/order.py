"""The ``crawl`` commands and the day's fixed order.

A day is: move, terrain (blank hex only), the event, then in a town trade,
quest; then eat (up to 3 rations), sleep. A fight, an escape or hiding from
God happen inside the event step. :func:`expected` says what may come next;
:func:`require` refuses a command given out of that order.

The crawl is the explorer's own solo game: its player decides every step of the day
(``authority``, :mod:`ledger.deciding.authority`), and confirms an escape (2 Health and 2
Energy, no meal, no sleep) or hiding from God (no meal, no sleep) before it is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ledger.deciding.authority import OWN, Authority, Reach
from ledger.deciding.commands import Command
from ledger.errors import GameOverError, OutOfOrderError
from ledger.i18n import _
from ledger.systems.crawl.model import MEALS, NIGHTS, TECHNIQUES

if TYPE_CHECKING:
    from ledger.projections.crawl.game import Crawl


class Move(Command, frozen=True):
    authority = OWN

    direction: str


class Terrain(Command, frozen=True):
    authority = OWN

    choose: str | None = None
    """3d6 variant: the terrain to keep (a die's or one a neighbour pair allows)."""


class Explore(Command, frozen=True):
    """The day's event roll (2d6 on a new hex, icons and revisits otherwise)."""

    authority = OWN

    repeat: str | None = None
    """On a repeated events/ruins result: 'shift' or 'pass' (default: the setting)."""


class Eat(Command, frozen=True):
    authority = OWN

    food: str


class Sleep(Command, frozen=True):
    authority = OWN

    where: str


class Buy(Command, frozen=True):
    authority = OWN

    item: str


class Quest(Command, frozen=True):
    authority = OWN


class Fight(Command, frozen=True):
    authority = OWN


class Attack(Command, frozen=True):
    authority = OWN

    weapon: str | None = None


class Technique(Command, frozen=True):
    authority = OWN

    number: int


class Escape(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)


class Hide(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)


class Loot(Command, frozen=True):
    authority = OWN


NAMES: dict[type[Command], str] = {
    Move: "move",
    Terrain: "terrain",
    Explore: "event",
    Eat: "eat",
    Sleep: "sleep",
    Buy: "buy",
    Quest: "quest",
    Fight: "fight",
    Attack: "attack",
    Technique: "technique",
    Escape: "escape",
    Hide: "hide",
    Loot: "loot",
}


def in_town(g: Crawl) -> bool:
    return g.here.icon == "town"


def allowed(g: Crawl) -> list[str]:
    """Names of the commands the day's order allows now."""
    if not g.alive:
        return []
    if g.phase == "dawn":
        return ["move"]
    if g.phase in ("terrain", "event"):
        return ["terrain" if g.phase == "terrain" else "event"]
    if g.phase == "encounter":
        return ["fight", "hide"] if g.fight and g.fight.foe.god else ["fight"]
    if g.phase == "combat":
        escape = ["escape"] if g.fight and g.fight.foe.escapable else []
        return ["attack", "technique", *escape]
    out = []
    if g.can_loot:
        out.append("loot")
    if in_town(g) and g.town_step == 0:
        out.append("buy")
        if not g.here.quest_done:
            out.append("quest")
    if g.meals < 3:
        out.append("eat")
    out.append("sleep")
    return out


HINTS = {
    "move": "move DIR",
    "eat": "eat bar|fruit|tavern",
    "sleep": "sleep wild|town|hotel",
    "technique": "technique N",
    "buy": "buy ITEM",
}


def expected(g: Crawl, tables: dict[str, Any] | None = None) -> list[str]:
    """What the explorer can do now, as commands to type: only the food in the pack,
    the nights and wares they can pay for, the techniques they know and can afford."""
    out = []
    for name in allowed(g):
        hint = _hint(g, name, tables)
        if hint is not None:
            out.append(f"crawl {hint}")
    return out or [f"crawl {name}" for name in allowed(g)]


def _hint(g: Crawl, name: str, tables: dict[str, Any] | None) -> str | None:
    """The hint for one allowed command, or None when nothing could come of it now."""
    town = in_town(g)
    if name == "eat":
        foods = [f for f, have in (("bar", g.bar > 0), ("fruit", g.fruit > 0)) if have]
        if town and g.bits >= MEALS["tavern"][2]:
            foods.append("tavern")
        return f"eat {'|'.join(foods)}" if foods else None
    if name == "sleep":
        if not town:
            return "sleep wild"
        return "sleep town|hotel" if g.bits >= NIGHTS["hotel"][2] else "sleep town"
    if name == "buy":
        if tables is None:
            return HINTS["buy"]
        wares = [w for w, row in tables.get("shop", {}).items() if row.get("price", 0) <= g.bits]
        return f"buy {'|'.join(wares)}" if wares else None
    if name == "technique":
        usable = [str(n) for n in sorted(g.techniques) if TECHNIQUES[n]["cost"] <= g.energy]
        return f"technique {'|'.join(usable)}" if usable else None
    return HINTS.get(name, name)


def require(g: Crawl, command: Command) -> None:
    """Refuse a command that the day's order does not allow now."""
    name = NAMES[type(command)]
    if not g.alive:
        from ledger.systems.crawl.terms import cause  # lazy: only a dead party's refusal words it

        raise GameOverError(
            _(
                "the explorer died on day {day} ({cause}); the campaign is over: "
                "undo, fork from an earlier day or start a new campaign",
                day=g.day,
                cause=cause(g.cause or ""),
            )
        )
    if name in allowed(g):
        return
    why = ""
    if name == "eat" and g.meals >= 3 and g.phase == "camp":
        why = _(" (at most 3 rations a day; 3 eaten today)")
    elif name in ("buy", "quest") and g.phase == "camp" and not in_town(g):
        why = _(" (only in a town)")
    elif name in ("buy", "quest") and g.phase == "camp" and g.town_step > 0:
        why = _(" (a town's order is trade, quest, eat, sleep)")
    elif name == "quest" and g.phase == "camp":
        why = _(" (one quest per town; this town's is done)")
    elif name == "escape" and g.phase == "combat":
        why = _(" (a waiting enemy cannot be escaped again)")
    elif name == "loot" and g.phase == "camp":
        why = _(" (loot right after a win, once)")
    raise OutOfOrderError(
        _(
            "{command} is out of the day's order{why}: expected {expected} on day {day}",
            command=name,
            why=why,
            expected=_(" or ").join(allowed(g)),
            day=g.day,
        )
    )
