"""The ``crawl`` tables: a documented TOML format, decoded into typed tables.

The format is described at the top of ``samples/crawl/tables.toml``; the Structs
below are that format, decoded with ``msgspec.toml``. A table file is checked
completely when a campaign is created, so play never meets a missing row: a wrong
type, a missing key or an unknown one is refused with its path, then
:func:`check` refuses what the types cannot say (an enemy or an item named but not
listed, a terrain without all its events). Every problem is one line naming the
file, the place and the fix. A campaign stores its tables as plain data in its
start event (:func:`stored`), the same as it always has.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import UNSET, Meta, UnsetType, field

from ledger.errors import EditTable, Other, TableError
from ledger.i18n import _, n_
from ledger.systems.crawl import terms
from ledger.systems.crawl.model import TECHNIQUES
from ledger.tables import file as tablefile
from ledger.tables.browse import Row, Table, effects, ranged_rows
from ledger.tables.file import toml_key

SAMPLE = resources.files("ledger.samples") / "crawl" / "tables.toml"
DIRECTIONS = ("n", "ne", "se", "s", "sw", "nw")

Change = Annotated[int, Meta(ge=-20, le=20)]
"""A table row's change to a track or a stock."""
Bonus = Annotated[int, Meta(ge=0, le=20)]
Direction = Literal["n", "ne", "se", "s", "sw", "nw"]
Face = Literal["1", "2", "3", "4", "5", "6"]
"""A row of a 1d6 table."""
Total = Literal["2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]
"""A row of a 2d6 events table."""
Language = Literal["en", "es"]
"""A language a table text may be written in (``ledger.i18n.LANGUAGES``)."""
Text = (
    str | Annotated[dict[Language, Annotated[str, Meta(min_length=1, max_length=2000)]], Meta(min_length=1)]
)
"""A row's text: plain, or ``{ en = "...", es = "..." }`` (one language or more)."""
_FACES = {f"r{n}": str(n) for n in range(1, 7)}
_CHAPTERS = {f"c{n}": str(n) for n in range(1, 6)}


class Outcome(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """What a table row does: its text, then any changes, finds and signs."""

    text: Text
    health: Change | UnsetType = UNSET
    energy: Change | UnsetType = UNSET
    bits: Change | UnsetType = UNSET
    bar: Change | UnsetType = UNSET
    fruit: Change | UnsetType = UNSET
    arrows: Change | UnsetType = UNSET
    attack: Change | UnsetType = UNSET
    defense: Change | UnsetType = UNSET
    item: str | UnsetType = UNSET
    """A name from [items]."""
    technique: Annotated[int, Meta(ge=1, le=7)] | UnsetType = UNSET
    enemy: str | UnsetType = UNSET
    """A name from [enemies]."""
    town: bool | UnsetType = UNSET
    ruins: bool | UnsetType = UNSET
    treasure: Direction | UnsetType = UNSET
    """The neighbour that gets a treasure icon."""
    impassable: Direction | UnsetType = UNSET
    divine: Literal[1, 2, 4, 5] | UnsetType = UNSET
    """This hex gets that chapter's icon (God is chapter 3)."""
    god: bool | UnsetType = UNSET


class Ware(Outcome, kw_only=True):
    """A shop's item: its price, and the outcome bought."""

    price: Annotated[int, Meta(ge=0, le=1000)]


class Enemy(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    health: Annotated[int, Meta(ge=1, le=100)]
    attack: Bonus = 0
    defense: Bonus = 0
    esc: Annotated[int, Meta(ge=0, le=6)]
    """An escape succeeds on a d6 above it."""
    robot: bool = False


class Item(msgspec.Struct, forbid_unknown_fields=True):
    attack: Bonus = 0
    defense: Bonus = 0
    bow: bool = False
    tool: bool = False


class Start(msgspec.Struct, forbid_unknown_fields=True):
    """A new explorer's bits, arrows, fruit and inventory."""

    bits: Annotated[int, Meta(ge=0, le=1000)] = 0
    arrows: Annotated[int, Meta(ge=0, le=1000)] = 0
    fruit: Annotated[int, Meta(ge=0, le=100)] = 0
    inventory: list[str] = []
    """Names from [items]."""


class Settings(msgspec.Struct, forbid_unknown_fields=True):
    """The rulings players disagree on (docs/rulings/crawl.md)."""

    terrain: Literal["d6", "3d6"] = "d6"
    repeat: Literal["shift", "pass"] = "shift"
    escape_hunger: Literal["fixed", "streak"] = "fixed"


class Terrains(msgspec.Struct, forbid_unknown_fields=True, rename=_FACES):
    """The terrain of a blank hex, by 1d6."""

    r1: str
    r2: str
    r3: str
    r4: str
    r5: str
    r6: str


class Rows(msgspec.Struct, forbid_unknown_fields=True, rename=_FACES):
    """A 1d6 table of outcomes."""

    r1: Outcome
    r2: Outcome
    r3: Outcome
    r4: Outcome
    r5: Outcome
    r6: Outcome


class Chapter(msgspec.Struct, forbid_unknown_fields=True, rename=_FACES):
    """A divine chapter: its name and its 1d6 table."""

    name: str
    r1: Outcome
    r2: Outcome
    r3: Outcome
    r4: Outcome
    r5: Outcome
    r6: Outcome


class GodChapter(msgspec.Struct, forbid_unknown_fields=True):
    """The third chapter, in which God himself appears."""

    name: str
    god: Literal[True] = True


class Chapters(msgspec.Struct, forbid_unknown_fields=True, rename=_CHAPTERS):
    c1: Chapter
    c2: Chapter
    c3: GodChapter
    c4: Chapter
    c5: Chapter


class CrawlTables(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A crawl tables file."""

    sample: bool = False
    start: Start = field(default_factory=Start)
    settings: Settings = field(default_factory=Settings)
    terrain: Terrains
    events: dict[str, dict[Total, Outcome]]
    """``default`` and any terrain: rows "2" to "12"; a terrain's rows override the default's."""
    ruins: Rows
    encounters: dict[str, dict[Face, str]]
    """Per terrain: the enemies met again on an empty hex (rows 1, 3 and 5)."""
    enemies: dict[str, Enemy]
    rewards: Rows
    quests: Rows
    chapters: Chapters
    items: dict[str, Item]
    shop: dict[str, Ware]


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """Read and check a table file (the sample tables when None): the tables as stored, and their source."""
    file = SAMPLE if path is None else Path(path)
    source = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TableError(
            _("table file {source!r} does not exist", source=source),
            fix=Other(text=_("give a path to a TOML file")),
        ) from None
    except UnicodeDecodeError as e:
        raise TableError(
            _(
                "table file {source!r} is not UTF-8 text ({reason} at byte {byte})",
                source=source,
                reason=e.reason,
                byte=e.start,
            ),
            fix=Other(text=_("save it as UTF-8")),
        ) from None
    except OSError as e:
        raise TableError(
            _("table file {source!r} cannot be read ({reason})", source=source, reason=e.strerror),
            fix=Other(text=_("give a path to a TOML file")),
        ) from None
    return stored(decode(text, source), msgspec.toml.decode(text)), "sample" if path is None else source


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, judged as its table file was: decoded by the same table
    types and bounds, checked by the same rules (:func:`check`), and stored exactly as
    :func:`stored` stores them; a TableError naming the first problem otherwise."""

    def store(tables: CrawlTables, source: str) -> dict[str, Any]:
        check(tables, _Problems(source))
        return stored(tables, data)

    tablefile.check_stored(data, CrawlTables, store, "crawl")


def decode(text: str, source: str = "tables") -> CrawlTables:
    """The typed tables of a TOML text, checked whole; a TableError names the first problem
    (the checks a campaign's stored tables meet at import too: :func:`check_stored`)."""
    tables = tablefile.decode(text, CrawlTables, source)
    check(tables, _Problems(source))
    return tables


class _Problems:
    """Refusals of one table file, each naming the file, the place and what to put there."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str, fix: str, table: str | None = None) -> None:
        table = table or where
        raise TableError(
            f"{self.source}: [{where}] {problem}",
            fix=EditTable(text=fix, table=table),
        )


def check(tables: CrawlTables, problems: _Problems) -> None:
    """What the types cannot say: names that refer to other tables, and whole events tables."""
    names = list(msgspec.to_builtins(tables.terrain).values())
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        problems.fail(
            "terrain",
            _("names {name!r} more than once", name=twice[0]),
            _("give six different terrains"),
        )
    enemies, items = tables.enemies, tables.items
    if "god" not in enemies:
        problems.fail("enemies", _("has no god"), _("add [enemies.god], the foe of the third divine chapter"))
    for name in tables.events:
        if name != "default" and name not in names:
            problems.fail(
                f"events.{toml_key(name)}",
                _("names no terrain"),
                _("name one of {names}", names=", ".join(names)),
            )
    default = tables.events.get("default", {})
    for name in names:
        rows = tables.events.get(name, {})
        for total in get_args(Total):
            if total not in rows and total not in default:
                problems.fail(
                    f"events.{toml_key(name)}",
                    _("has no row {total}, nor has [events.default]", total=total),
                    _("give row {total}", total=total),
                )
    for table, where, outcome in _outcomes(tables):
        _refers(problems, table, where, outcome, enemies, items)
    for name, ware in tables.shop.items():
        where = f"shop.{toml_key(name)}"
        if ware.enemy is not UNSET:
            problems.fail(f"{where}.enemy", _("brings an enemy"), _("sell goods only"), where)
        _refers(problems, where, where, ware, enemies, items)
    for name in tables.encounters:
        if name not in names:
            problems.fail(
                f"encounters.{toml_key(name)}",
                _("names no terrain"),
                _("name one of {names}", names=", ".join(names)),
            )
    for name in names:
        rows = tables.encounters.get(name)
        if rows is None:
            problems.fail(
                f"encounters.{toml_key(name)}",
                _("is missing"),
                _("give rows 1, 3 and 5 with enemy names"),
                "encounters",
            )
            continue
        for face in ("1", "3", "5"):
            if face not in rows:
                problems.fail(
                    f"encounters.{toml_key(name)}",
                    _("has no row {face}", face=face),
                    _("give rows 1, 3 and 5"),
                )
        for face, enemy in rows.items():
            if enemy not in enemies:
                problems.fail(
                    f"encounters.{toml_key(name)}.{face}",
                    _(
                        "names enemy {enemy!r}, which is not in [enemies] ({enemies})",
                        enemy=enemy,
                        enemies=", ".join(enemies),
                    ),
                    _("name one of [enemies] or add [enemies.{key}]", key=toml_key(enemy)),
                    f"encounters.{toml_key(name)}",
                )
    for n, item in enumerate(tables.start.inventory):
        if item not in items:
            problems.fail(
                f"start.inventory[{n}]",
                _("is {item!r}, which is not in [items] ({items})", item=item, items=", ".join(items)),
                _("list names from [items]"),
                "start",
            )


def _outcomes(tables: CrawlTables) -> Iterator[tuple[str, str, Outcome]]:
    """Every outcome the file writes (shop wares aside): its table, where it is, the outcome."""
    for name, rows in tables.events.items():
        table = f"events.{toml_key(name)}"
        for total, outcome in rows.items():
            yield table, f"{table}.{total}", outcome
    for table in ("ruins", "rewards", "quests"):
        for face, outcome in _faces(getattr(tables, table)):
            yield table, f"{table}.{face}", outcome
    for number in (1, 2, 4, 5):
        for face, outcome in _faces(getattr(tables.chapters, f"c{number}")):
            yield f"chapters.{number}", f"chapters.{number}.{face}", outcome


def _faces(rows: Rows | Chapter) -> Iterator[tuple[str, Outcome]]:
    for n in range(1, 7):
        yield str(n), getattr(rows, f"r{n}")


def _refers(
    problems: _Problems,
    table: str,
    where: str,
    outcome: Outcome,
    enemies: Mapping[str, Enemy],
    items: Mapping[str, Item],
) -> None:
    """An outcome names only enemies and items the file lists."""
    if outcome.enemy is not UNSET and outcome.enemy not in enemies:
        problems.fail(
            f"{where}.enemy",
            _(
                "names enemy {enemy!r}, which is not in [enemies] ({enemies})",
                enemy=outcome.enemy,
                enemies=", ".join(enemies),
            ),
            _("name one of [enemies] or add [enemies.{key}]", key=toml_key(outcome.enemy)),
            table,
        )
    if outcome.item is not UNSET and outcome.item not in items:
        problems.fail(
            f"{where}.item",
            _(
                "gives item {item!r}, which is not in [items] ({items})",
                item=outcome.item,
                items=", ".join(items),
            ),
            _("name one of [items] or add [items.{key}]", key=toml_key(outcome.item)),
            table,
        )


def stored(tables: CrawlTables, written: Mapping[str, Any]) -> dict[str, Any]:
    """The tables as a campaign stores them in its start event: plain data, each terrain's
    events whole (its rows over the default's), each outcome with the keys ``written``
    (the file as plain TOML) gives it, in the order written."""
    names = list(msgspec.to_builtins(tables.terrain).values())
    events = written["events"]

    plain = tables.sample

    def terrain_events(name: str) -> dict[str, Any]:
        rows = {**tables.events.get("default", {}), **tables.events.get(name, {})}
        raw = {**events.get("default", {}), **events.get(name, {})}
        return {total: _as_written(rows[total], raw[total], plain) for total in get_args(Total)}

    def table(rows: Rows | Chapter, raw: Mapping[str, Any]) -> dict[str, Any]:
        return {face: _as_written(outcome, raw[face], plain) for face, outcome in _faces(rows)}

    chapters: dict[str, Any] = {}
    for number in range(1, 6):
        chapter = getattr(tables.chapters, f"c{number}")
        if isinstance(chapter, GodChapter):
            chapters[str(number)] = {"name": chapter.name, "god": True}
        else:
            chapters[str(number)] = {"name": chapter.name, **table(chapter, written["chapters"][str(number)])}
    return {
        "sample": tables.sample,
        "start": msgspec.to_builtins(tables.start),
        "settings": msgspec.to_builtins(tables.settings),
        "terrain": msgspec.to_builtins(tables.terrain),
        "events": {name: terrain_events(name) for name in names},
        "ruins": table(tables.ruins, written["ruins"]),
        "rewards": table(tables.rewards, written["rewards"]),
        "quests": table(tables.quests, written["quests"]),
        "encounters": {name: dict(tables.encounters[name]) for name in names},
        "enemies": {name: msgspec.to_builtins(enemy) for name, enemy in tables.enemies.items()},
        "items": {name: msgspec.to_builtins(item) for name, item in tables.items.items()},
        "shop": {name: _as_written(ware, written["shop"][name], plain) for name, ware in tables.shop.items()},
        "chapters": chapters,
    }


def _as_written(outcome: Outcome, raw: Mapping[str, Any], plain: bool = False) -> dict[str, Any]:
    """An outcome as plain data, its keys in the order the file wrote them. Its text as
    written (one language or a map of several), but ``plain``: the sample tables, whose
    texts the ledger itself says in every language it speaks (:mod:`ledger.systems.crawl.terms`),
    keep storing their English, as their campaigns always have."""
    built = msgspec.to_builtins(outcome)
    if plain and "text" in built:
        built["text"] = terms.recorded(built["text"])
    return {key: built[key] for key in raw}


def listing(data: dict[str, Any]) -> list[Any]:
    """The crawl's tables as rolled (terrain, events, ruins...) and its reference lists."""

    def outcome(value: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(value, str):
            return value, {}
        more = effects(value)
        return _shown(value.get("text", "")) + (f" ({more})" if more else ""), {
            k: v for k, v in value.items() if k != "text"
        }

    variant = data["settings"].get("terrain") == "3d6"
    out = [
        Table(
            "terrain",
            _("Terrain of a blank hex"),
            ranged_rows(data["terrain"], "1d6", lambda v: (terms.word(v), {})),
            "1d6",
            _("this campaign rolls 3d6 and keeps one (the neighbours variant)") if variant else "",
        )
    ]
    for terrain, rows in data["events"].items():
        out.append(
            Table(
                f"events.{terrain}",
                _("Events on a new {terrain} hex", terrain=terms.word(terrain)),
                ranged_rows(rows, "2d6", outcome),
                "2d6",
            )
        )
    out.append(Table("ruins", _("Ruins"), ranged_rows(data["ruins"], "1d6", outcome), "1d6"))
    for terrain, rows in data["encounters"].items():
        out.append(
            Table(
                f"encounters.{terrain}",
                _("Enemies met again on an empty {terrain} hex", terrain=terms.word(terrain)),
                ranged_rows(rows, "1d6", lambda v: (terms.word(v), {"enemy": v})),
                "1d6",
            )
        )
    out.append(Table("rewards", _("Loot after a fight"), ranged_rows(data["rewards"], "1d6", outcome), "1d6"))
    out.append(Table("quests", _("A town's quest"), ranged_rows(data["quests"], "1d6", outcome), "1d6"))
    for number, chapter in data["chapters"].items():
        rows = {k: v for k, v in chapter.items() if k.isdigit()}
        if rows:
            out.append(
                Table(
                    f"chapters.{number}",
                    _("Divine chapter {number}: {name}", number=number, name=terms.word(chapter["name"])),
                    ranged_rows(rows, "1d6", outcome),
                    "1d6",
                )
            )
    out.append(
        Table(
            "shop",
            _("A town's shop: stock and prices"),
            tuple(
                Row(
                    name,
                    _(
                        "{price}: {bought}",
                        price=n_("{n} bit", "{n} bits", item["price"]),
                        bought=_bought(item),
                    ),
                    dict(item),
                )
                for name, item in data["shop"].items()
            ),
        )
    )
    out.append(
        Table(
            "enemies",
            _("Enemies"),
            tuple(
                Row(
                    name,
                    (
                        _(
                            "Health {health}, Attack {attack}, Defense {defense}, ESC {esc}, robot",
                            health=e["health"],
                            attack=e["attack"],
                            defense=e["defense"],
                            esc=e["esc"],
                        )
                        if e.get("robot")
                        else _(
                            "Health {health}, Attack {attack}, Defense {defense}, ESC {esc}",
                            health=e["health"],
                            attack=e["attack"],
                            defense=e["defense"],
                            esc=e["esc"],
                        )
                    ),
                    dict(e),
                )
                for name, e in data["enemies"].items()
            ),
        )
    )
    out.append(
        Table(
            "items",
            _("Items"),
            tuple(
                Row(name, effects(item) or _("no bonus"), dict(item)) for name, item in data["items"].items()
            ),
        )
    )
    out.append(
        Table(
            "techniques",
            _("Techniques (used in combat by number)"),
            tuple(
                Row(
                    str(n),
                    _("{name}: {cost} Energy", name=terms.technique(n), cost=t["cost"])
                    + (_(", +{bonus} damage", bonus=t["bonus"]) if "bonus" in t else "")
                    + (_(", +{arrow} Attack with every arrow", arrow=t["arrow"]) if "arrow" in t else "")
                    + (_(", robots only") if t.get("robots") else "")
                    + (
                        _(", needs {items}", items=_(" and ").join(terms.names(t["needs"])))
                        if "needs" in t
                        else ""
                    ),
                    {k: list(v) if isinstance(v, tuple) else v for k, v in t.items()},
                )
                for n, t in TECHNIQUES.items()
            ),
        )
    )
    return out


def _bought(item: dict[str, Any]) -> str:
    more = effects(item, skip=("text", "price"))
    return _shown(item.get("text", "")) + (f" ({more})" if more else "")


def _shown(text: Any) -> str:
    """A row's text in the reader's language: as the file wrote it in that language, or the
    sample's own words for it."""
    return terms.row_text(text)


def sources(data: dict[str, Any], key: str, value: object) -> list[str]:
    """Where in the tables an outcome gives ``key = value``: ``quests 3``, ``chapters.4 2``, ``shop``."""
    found: list[str] = []

    def scan(name: str, rows: Any) -> None:
        for roll, row in rows.items():
            if isinstance(row, dict) and row.get(key) == value:
                found.append(f"{name} {roll}")

    for terrain, rows in data.get("events", {}).items():
        scan(f"events.{terrain}", rows)
    for name in ("ruins", "rewards", "quests"):
        scan(name, data.get(name, {}))
    for number, chapter in data.get("chapters", {}).items():
        scan(f"chapters.{number}", {k: v for k, v in chapter.items() if k.isdigit()})
    if any(row.get(key) == value for row in data.get("shop", {}).values()):
        found.append("shop")
    return found


def check_settings(given: dict[str, Any]) -> dict[str, Any]:
    """``--setting KEY=VALUE`` values, checked against the ``[settings]`` table's keys and
    values (docs/rulings/crawl.md): a campaign's settings win over its tables'."""
    return tablefile.settings(given, Settings, "crawl")
