"""Applying table outcomes to the draft of a command's events (:class:`ledger.deciding.decider.Draft`)."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.deciding.decider import Draft
from ledger.dice.sources import Dice
from ledger.errors import LedgerError, RunCommand
from ledger.i18n import _
from ledger.projections.crawl.game import CAP, Crawl, key, neighbour, stored_table
from ledger.systems.crawl import events as ev
from ledger.systems.crawl import terms

REPEATABLE = ("events.", "ruins")
"""Tables whose repeated results follow the repetition rule."""


def setting(d: Draft[Crawl], key: str, default: str) -> str:
    """One of the campaign's rulings (the ``[settings]`` of its tables)."""
    return str(d.tables.get("settings", {}).get(key, default))


def capped(value: int, delta: int) -> int:
    return max(0, min(CAP, value + delta))


def starve(d: Draft[Crawl], streak: int, cost: int, before: int | None = None) -> bool:
    """A day without a meal: the Health lost is the streak's ``cost``, at most the
    Health there was (``before``, if an escape already took it off); False when
    it kills."""
    before = d.game.health if before is None else before
    loss = min(cost, before)
    d.emit(ev.Starved(streak=streak, loss=loss, health=before - loss, cost=cost))
    return before > loss


def foe_from(tables: dict[str, Any], name: str) -> ev.Foe:
    """The foe of an [enemies] row, typed as its event records it: a row an older ledger
    stored with a value of another type is refused, never written into an event."""
    row = stored_table(stored_table(tables, "enemies"), name)
    try:
        return msgspec.convert(
            {
                "name": name,
                "health": row["health"],
                "max_health": row["health"],
                "attack": row["attack"],
                "defense": row["defense"],
                "esc": row["esc"],
                "robot": row["robot"],
                "god": name == "god",
            },
            ev.Foe,
        )
    except msgspec.ValidationError as e:
        raise LedgerError(
            _(
                "the campaign's stored tables give enemy {name!r} a value no table file can ({problem}); "
                "they are not tables the ledger writes",
                name=name,
                problem=e,
            ),
            fix=RunCommand(
                text=_("verify the campaign, and start it again from a table file"), command="verify"
            ),
        ) from None


def roll_table(
    d: Draft[Crawl], table: str, rows: dict[str, Any], count: int, dice: Dice, repeat: str | None = None
) -> dict[str, Any] | None:
    """Roll ``count`` d6 on a table; a repeated result is passed or shifted."""
    faces = tuple(dice.roll(6) for _ in range(count))
    total = sum(faces)
    repeated = table.startswith(REPEATABLE) and total in d.game.seen.get(table, ())
    row: int | None = total
    choice = "play"
    if repeated:
        choice = repeat or setting(d, "repeat", "shift")
        row = (total - 1 if total % 2 else total + 1) if choice == "shift" else None
        if row is not None and str(row) not in rows:
            row, choice = None, "pass"
    outcome = rows.get(str(row)) if row is not None else None
    text = terms.recorded(outcome["text"]) if outcome else terms.FIXED_TEXTS[2]
    d.emit(
        ev.TableRolled(
            table=table, dice=faces, total=total, row=row, text=text, repeated=repeated, choice=choice
        )
    )
    return outcome


def apply_outcome(
    d: Draft[Crawl], outcome: dict[str, Any], cause: str, dice: Dice, repeat: str | None = None
) -> None:
    """Every consequence of one table row, in a fixed order."""
    _changes(d, outcome, cause)
    if not d.game.alive:
        return
    _icons(d, outcome)
    if outcome.get("ruins"):
        found = roll_table(d, "ruins", d.tables["ruins"], 1, dice, repeat)
        if found:
            apply_outcome(d, found, "ruins", dice, repeat)
    chapter = outcome.get("divine")
    if chapter and chapter in d.game.chapters:
        chapter_event(d, chapter, dice)
    if outcome.get("enemy"):
        d.emit(ev.EnemyMet(foe=foe_from(d.tables, outcome["enemy"])))


def _changes(d: Draft[Crawl], outcome: dict[str, Any], cause: str) -> None:
    g = d.game
    keys = ("health", "energy", "bits", "bar", "fruit", "arrows", "attack", "defense")
    if not any(outcome.get(k) for k in keys) and not outcome.get("item") and not outcome.get("technique"):
        return
    health = capped(g.health, outcome.get("health", 0))
    energy = capped(g.energy, outcome.get("energy", 0))
    floor = {k: max(-getattr(g, k), outcome.get(k, 0)) for k in ("bits", "bar", "fruit", "arrows")}
    d.emit(
        ev.Changed(
            cause=cause,
            health=health - g.health,
            energy=energy - g.energy,
            attack=outcome.get("attack", 0),
            defense=outcome.get("defense", 0),
            item=outcome.get("item"),
            technique=outcome.get("technique"),
            health_now=health,
            energy_now=energy,
            **floor,
        )
    )
    if health == 0:
        d.emit(ev.Died(cause=cause, day=d.game.day))


def _icons(d: Draft[Crawl], outcome: dict[str, Any]) -> None:
    g = d.game
    if outcome.get("town") and g.here.icon != "town":
        d.emit(ev.IconPlaced(q=g.q, r=g.r, icon="town", number=g.towns + 1))
    for icon in ("treasure", "impassable"):
        direction = outcome.get(icon)
        if direction:
            q, r = neighbour(g.q, g.r, direction)
            target = g.hexes.get(key(q, r))
            if target is None or (not target.icon and target.visits == 0):
                d.emit(ev.IconPlaced(q=q, r=r, icon=icon))
    chapter = outcome.get("divine")
    if chapter and not g.here.icon:
        d.emit(ev.IconPlaced(q=g.q, r=g.r, icon="divine", number=chapter))


def chapter_event(d: Draft[Crawl], chapter: int, dice: Dice, face: int | None = None) -> None:
    """A divine chapter's event: God appears, or 1d6 on the chapter's table; the
    chapter's icon (God's for chapter 3) goes on the hex unless it has one."""
    rows = d.tables["chapters"][str(chapter)]
    god = bool(rows.get("god"))
    if not d.game.here.icon:
        # Icons do not stack: a hex that already has one (a town, a treasure, a
        # waiting enemy, another chapter's sign) keeps it.
        icon, number = ("god", None) if god else ("divine", chapter)
        d.emit(ev.IconPlaced(q=d.game.q, r=d.game.r, icon=icon, number=number))
    if god:
        d.emit(ev.EnemyMet(foe=foe_from(d.tables, "god")))
        return
    if face is None:
        outcome = roll_table(d, f"chapter.{chapter}", rows, 1, dice)
    else:
        outcome = rows[str(face)]
        d.emit(
            ev.TableRolled(
                table=f"chapter.{chapter}",
                dice=(face,),
                total=face,
                row=face,
                text=terms.recorded(outcome["text"]),
            )
        )
    if outcome:
        apply_outcome(d, outcome, rows["name"], dice)
