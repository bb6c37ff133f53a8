"""What a crawl player reads of the state: the sheet and its layout, the calendar, the
hunger, the journal and the hex map."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.i18n import N_, _
from ledger.projections.crawl.game import (
    CHAPTER_DAYS,
    DIRECTIONS,
    GOD_CHAPTER,
    Crawl,
    Hex,
    not_stored,
    stored_table,
)
from ledger.systems import Ask, Control, Form, SheetField, SheetLayout, SheetSection
from ledger.systems.crawl import terms


def chapter_name(tables: dict[str, Any], chapter: int) -> str:
    return str(
        stored_table(stored_table(tables, "chapters"), str(chapter)).get(
            "name", _("chapter {chapter}", chapter=chapter)
        )
    )


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
        "carrying": terms.names(g.inventory),
        "weapon": _weapon(g, state.core.tables),
        "position": {
            "q": g.q,
            "r": g.r,
            "terrain": g.here.terrain,
            "name": terms.word(g.here.terrain) if g.here.terrain else None,
        },
        "meals_today": g.meals,
        "phase": g.phase,
        "expected": expected(g, state.core.tables) if g.alive else [],
        "fight": fight,
        "chapters_open": list(g.chapters),
        "next_chapter": {**cal["next"], "name": terms.word(cal["next"]["name"])} if cal["next"] else None,
        "cause_of_death": g.cause,
        "status": _("alive") if g.alive else _("dead ({cause})", cause=terms.cause(g.cause or "")),
        "who": state.core.characters[0] if state.core.characters else _("the explorer"),
        "mastery": [
            _("{number}: {uses}/6 mastered", number=n, uses=s)
            if s >= 6
            else _("{number}: {uses}/6", number=n, uses=s)
            for n, s in sorted(g.techniques.items())
        ],
    }


STEPS = (
    ("move", N_("Move"), (Ask(field="direction", label=N_("direction"), choices=tuple(DIRECTIONS)),)),
    ("terrain", N_("Terrain"), (Ask(field="choose", label=N_("choose")),)),
    ("event", N_("Explore"), (Ask(field="repeat", label=N_("repeat"), choices=("shift", "pass")),)),
    (
        "eat",
        N_("Eat"),
        (Ask(field="food", label=N_("food"), choices=("bar", "fruit", "tavern"), default="bar"),),
    ),
    (
        "sleep",
        N_("Sleep"),
        (Ask(field="where", label=N_("where"), choices=("wild", "town", "hotel"), default="wild"),),
    ),
    ("buy", N_("Buy"), (Ask(field="item", label=N_("item"), pick="@tables.shop"),)),
    ("quest", N_("Quest"), ()),
    ("fight", N_("Fight"), ()),
    ("attack", N_("Attack"), (Ask(field="weapon", label=N_("weapon"), pick="inventory"),)),
    ("technique", N_("Technique"), (Ask(field="number", label=N_("number"), pick="techniques"),)),
    ("escape", N_("Escape"), ()),
    ("hide", N_("Hide"), ()),
    ("loot", N_("Loot"), ()),
)
"""Each step of the day by its name in the day's order, its command and what it asks."""

STEP_LABELS = {
    "move": N_("move"),
    "terrain": N_("terrain"),
    "event": N_("event"),
    "eat": N_("eat"),
    "sleep": N_("sleep"),
    "buy": N_("buy"),
    "quest": N_("quest"),
    "fight": N_("fight"),
    "attack": N_("attack"),
    "technique": N_("technique"),
    "escape": N_("escape"),
    "hide": N_("hide"),
    "loot": N_("loot"),
}
"""Each step's control on the sheet, as the day's order names it."""

CONTROLS = tuple(
    Control(
        command=f"crawl.{kind}",
        on="expected",
        each="allowed",
        where={"": (name,)},
        label=STEP_LABELS[name],
        options=asks,
    )
    for name, kind, asks in STEPS
)
"""What the explorer taps: the steps the day's order allows now, where the sheet says
what comes next."""

FORMS = tuple(
    Form(command=f"crawl.{kind}", name=f"crawl {name}", group=N_("The day"), sheet=True)
    for name, kind, _ in STEPS
)
"""Each step of the day by its name on the command line: the sheet offers them all."""

SHEET = SheetLayout(
    title=(N_("{who} in {campaign}, day {day}: {status}"),),
    headline=(
        SheetField("health", N_("Health"), max=20),
        SheetField("energy", N_("Energy"), max=20),
        SheetField("attack", N_("Attack"), show=N_("{weapon.attack} with {weapon.shown}")),
        SheetField("defense", N_("Defense")),
    ),
    sections=(
        SheetSection(
            N_("Supplies"),
            (
                SheetField("food.bar", N_("bars")),
                SheetField("food.fruit", N_("fruit")),
                SheetField("bits", N_("bits")),
                SheetField("arrows", N_("arrows")),
            ),
        ),
        SheetSection(
            N_("Hunger"),
            (SheetField("hunger_streak", N_("streak")), SheetField("meals_today", N_("meals today"))),
        ),
        SheetSection(
            N_("Gear"), (SheetField("carrying", N_("carrying")), SheetField("mastery", N_("techniques")))
        ),
        SheetSection(
            N_("Where"),
            (
                SheetField("position", N_("at"), show="({position.q}, {position.r}) {position.name}"),
                SheetField("chapters_open", N_("chapters open")),
                SheetField(
                    "next_chapter", N_("next chapter"), show=N_("day {next_chapter.day}, {next_chapter.name}")
                ),
            ),
        ),
        SheetSection(
            N_("Fighting"),
            (
                SheetField("fight.enemy", ""),
                SheetField("fight.health", N_("Health")),
                SheetField("fight.attack", N_("Attack")),
                SheetField("fight.defense", N_("Defense")),
                SheetField("fight.esc", N_("ESC")),
                SheetField("fight.effects", N_("effects")),
            ),
            when="fight",
        ),
        SheetSection(N_("Next"), (SheetField("expected", ""),), when="expected"),
    ),
    controls=CONTROLS,
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
            raise not_stored(_("the attack of item {name!r}", name=name), attack)
        if attack > bonus:
            best, bonus = name, item["attack"]
    return {"name": best, "attack": g.attack + bonus, "shown": terms.word(best)}


def journal(state: Any) -> list[dict[str, Any]]:
    g: Crawl = state.game
    tables = state.core.tables
    rows: list[tuple[int, int, str]] = [(d, 0, terms.line(text, tables)) for d, text in g.journal]
    rows += [(d, 1, _("note: {text}", text=text)) for d, text in g.notes]
    if g.today:
        rows.append((g.day, 0, terms.line("; ".join(g.today), tables) + " ..."))
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
        return terms.word(chapter_name(tables, h.number))
    if h.icon == "god":
        return terms.word(chapter_name(tables, GOD_CHAPTER))
    return None


def terrain_letters(tables: dict[str, Any]) -> dict[str, str]:
    letters: dict[str, str] = {}
    for name in stored_table(tables, "terrain").values():
        if not isinstance(name, str) or not name:
            raise not_stored(_("a terrain's name"), name)
        shown = terms.word(name)
        letter = next((ch for ch in shown if ch.isalnum()), name[0]).lower()
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
    legend_terrain = "  ".join(f"{v}={terms.word(k)}" for k, v in letters.items())
    signs = sorted({(e["number"], e["chapter"]) for e in entries if e["icon"] == "divine"})
    legend_signs = (
        _("divine signs: {signs}", signs="  ".join(f"+{n} {terms.word(name)}" for n, name in signs)) + "\n"
        if signs
        else ""
    )
    legend = _(
        "@ you (day {day})  . walked  T town  $ treasure  +n divine sign of chapter n  G God  "
        "! waiting enemy  # impassable  ? unexplored  o no terrain yet",
        day=g.day,
    )
    return f"{body}\n\n{legend}\n{legend_signs}{legend_terrain}"


def _cell(e: dict[str, Any], letters: dict[str, str]) -> str:
    terrain = letters.get(e["terrain"], "?") if e["terrain"] else ("o" if e["walked"] else "?")
    icon = ICON_MARK.get(e["icon"] or "", "")
    if icon and e["number"] is not None:
        icon += str(e["number"])
    mark = "@" if e["here"] else ("." if e["walked"] else " ")
    return f"{mark}{terrain}{icon}"[:4]
