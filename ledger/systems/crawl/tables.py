"""The ``crawl`` tables: a documented TOML format, loaded and validated.

The format is described at the top of ``samples/crawl/tables.toml``. A table
file is checked completely when a campaign is created, so play never meets a
missing row; every problem is reported on one line with its fix.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ledger.errors import TableError

SAMPLE = resources.files("ledger.samples") / "crawl" / "tables.toml"
DIRECTIONS = ("n", "ne", "se", "s", "sw", "nw")
CHANGES = ("health", "energy", "bits", "bar", "fruit", "arrows", "attack", "defense")
OUTCOME_KEYS = {
    *CHANGES,
    "text",
    "item",
    "technique",
    "enemy",
    "town",
    "ruins",
    "treasure",
    "impassable",
    "divine",
    "god",
    "price",
}
SETTINGS = {"terrain": ("d6", "3d6"), "repeat": ("shift", "pass"), "escape_hunger": ("fixed", "streak")}
DEFAULT_SETTINGS = {"terrain": "d6", "repeat": "shift", "escape_hunger": "fixed"}


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """Read and validate a table file (the sample tables when None)."""
    file = SAMPLE if path is None else Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableError(f"table file {str(file)!r} does not exist; give a path to a TOML file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise TableError(f"table file {str(file)!r} is not valid TOML ({e}); fix the syntax") from None
    tables = normalise(data, str(file))
    return tables, "sample" if path is None else str(file)


def normalise(data: dict[str, Any], source: str = "tables") -> dict[str, Any]:
    """Validate the raw TOML and fill in the per-terrain event tables."""
    v = _Validator(source)
    terrain = v.rows(data, "terrain", range(1, 7), str)
    enemies = v.enemies(data)
    items = v.items(data)
    names = list(dict.fromkeys(terrain.values()))
    if len(names) != 6:
        v.fail("terrain", "has a repeated terrain name", "give six different names")
    events = v.section(data, "events")
    default = events.get("default", {})
    full: dict[str, dict[str, Any]] = {}
    for name in names:
        merged = {**default, **events.get(name, {})}
        full[name] = v.outcomes(merged, f"events.{name}", range(2, 13), enemies, items)
    for name in events:
        if name != "default" and name not in names:
            v.fail(f"events.{name}", "names no terrain", f"use one of {sorted(names)}")
    encounters = v.section(data, "encounters")
    enc = {}
    for name in names:
        rows = encounters.get(name)
        if not isinstance(rows, dict):
            v.fail(f"encounters.{name}", "is missing", 'give rows "1", "3" and "5" with enemy names')
        enc[name] = {k: v.enemy_name(val, f"encounters.{name}.{k}", enemies) for k, val in rows.items()}
        for odd in ("1", "3", "5"):
            if odd not in enc[name]:
                v.fail(f"encounters.{name}", f"has no row {odd}", "give rows 1, 3 and 5")
    chapters = v.chapters(data, enemies, items)
    shop = v.shop(data, items)
    return {
        "sample": bool(data.get("sample", False)),
        "start": v.start(data, items),
        "settings": v.settings(data),
        "terrain": terrain,
        "events": full,
        "ruins": v.outcomes(v.section(data, "ruins"), "ruins", range(1, 7), enemies, items),
        "rewards": v.outcomes(v.section(data, "rewards"), "rewards", range(1, 7), enemies, items),
        "quests": v.outcomes(v.section(data, "quests"), "quests", range(1, 7), enemies, items),
        "encounters": enc,
        "enemies": enemies,
        "items": items,
        "shop": shop,
        "chapters": chapters,
    }


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str, fix: str) -> None:
        raise TableError(f"{self.source}: [{where}] {problem}; {fix}")

    def section(self, data: dict[str, Any], name: str) -> dict[str, Any]:
        found = data.get(name)
        if not isinstance(found, dict):
            self.fail(name, "is missing", f"add a [{name}] table (see samples/crawl/tables.toml)")
        return found  # type: ignore[return-value]

    def rows(self, data: dict[str, Any], name: str, keys: range, kind: type) -> dict[str, Any]:
        rows = self.section(data, name)
        for k in keys:
            if not isinstance(rows.get(str(k)), kind):
                self.fail(
                    name,
                    f"row {k} is missing or not a {kind.__name__}",
                    f"give rows {keys.start}-{keys.stop - 1}",
                )
        return {str(k): rows[str(k)] for k in keys}

    def integer(self, value: Any, where: str, lo: int = -100, hi: int = 100) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(where, f"is {value!r}, not a whole number from {lo} to {hi}", "fix the value")
        return int(value)

    def enemies(self, data: dict[str, Any]) -> dict[str, dict[str, Any]]:
        out = {}
        for name, row in self.section(data, "enemies").items():
            where = f"enemies.{name}"
            if not isinstance(row, dict):
                self.fail(where, "is not a table", "give health, attack, defense, esc, robot")
            out[name] = {
                "health": self.integer(row.get("health"), f"{where}.health", 1, 100),
                "attack": self.integer(row.get("attack", 0), f"{where}.attack", 0, 20),
                "defense": self.integer(row.get("defense", 0), f"{where}.defense", 0, 20),
                "esc": self.integer(row.get("esc"), f"{where}.esc", 0, 6),
                "robot": bool(row.get("robot", False)),
            }
        if "god" not in out:
            self.fail("enemies", "has no god", "add [enemies.god] for the third divine chapter")
        return out

    def items(self, data: dict[str, Any]) -> dict[str, dict[str, Any]]:
        out = {}
        for name, row in self.section(data, "items").items():
            where = f"items.{name}"
            if not isinstance(row, dict):
                self.fail(where, "is not a table", "give attack, defense, bow or tool")
            out[name] = {
                "attack": self.integer(row.get("attack", 0), f"{where}.attack", 0, 20),
                "defense": self.integer(row.get("defense", 0), f"{where}.defense", 0, 20),
                "bow": bool(row.get("bow", False)),
                "tool": bool(row.get("tool", False)),
            }
        return out

    def enemy_name(self, value: Any, where: str, enemies: dict[str, Any]) -> str:
        if value not in enemies:
            self.fail(
                where, f"names enemy {value!r}, which is not in [enemies]", f"use one of {sorted(enemies)}"
            )
        return str(value)

    def outcome(self, row: Any, where: str, enemies: dict[str, Any], items: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(row, dict) or not isinstance(row.get("text"), str):
            self.fail(where, "is not a table with a text", 'write e.g. { text = "a quiet day" }')
        unknown = set(row) - OUTCOME_KEYS
        if unknown:
            self.fail(where, f"has unknown keys {sorted(unknown)}", f"use only {sorted(OUTCOME_KEYS)}")
        for change in CHANGES:
            if change in row:
                self.integer(row[change], f"{where}.{change}", -20, 20)
        if "item" in row and row["item"] not in items:
            self.fail(
                where, f"gives item {row['item']!r}, which is not in [items]", f"use one of {sorted(items)}"
            )
        if "technique" in row:
            self.integer(row["technique"], f"{where}.technique", 1, 7)
        if "enemy" in row:
            self.enemy_name(row["enemy"], f"{where}.enemy", enemies)
        for key in ("treasure", "impassable"):
            if key in row and row[key] not in DIRECTIONS:
                self.fail(
                    where, f"{key} is {row[key]!r}, not a direction", f"use one of {', '.join(DIRECTIONS)}"
                )
        if "divine" in row and row["divine"] not in (1, 2, 4, 5):
            self.fail(where, f"divine is {row['divine']!r}", "use chapter 1, 2, 4 or 5 (God is chapter 3)")
        return dict(row)

    def outcomes(
        self, rows: dict[str, Any], where: str, keys: range, enemies: dict[str, Any], items: dict[str, Any]
    ) -> dict[str, Any]:
        out = {}
        for k in keys:
            if str(k) not in rows:
                self.fail(where, f"has no row {k}", f"give rows {keys.start} to {keys.stop - 1}")
            out[str(k)] = self.outcome(rows[str(k)], f"{where}.{k}", enemies, items)
        return out

    def chapters(
        self, data: dict[str, Any], enemies: dict[str, Any], items: dict[str, Any]
    ) -> dict[str, Any]:
        section = self.section(data, "chapters")
        out: dict[str, Any] = {}
        for n in range(1, 6):
            row = section.get(str(n))
            where = f"chapters.{n}"
            if not isinstance(row, dict) or not isinstance(row.get("name"), str):
                self.fail(where, "is missing or has no name", 'give name = "..." and rows 1-6')
            if n == 3:
                out["3"] = {"name": row["name"], "god": True}
                continue
            rows = {k: v for k, v in row.items() if k != "name"}
            out[str(n)] = {"name": row["name"], **self.outcomes(rows, where, range(1, 7), enemies, items)}
        return out

    def shop(self, data: dict[str, Any], items: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for name, row in self.section(data, "shop").items():
            where = f"shop.{name}"
            outcome = self.outcome(row, where, {}, items)
            self.integer(outcome.get("price"), f"{where}.price", 0, 1000)
            out[name] = outcome
        return out

    def start(self, data: dict[str, Any], items: dict[str, Any]) -> dict[str, Any]:
        start = data.get("start", {})
        inventory = start.get("inventory", [])
        if not isinstance(inventory, list) or any(i not in items for i in inventory):
            self.fail("start.inventory", f"is {inventory!r}", f"list names from [items]: {sorted(items)}")
        return {
            "bits": self.integer(start.get("bits", 0), "start.bits", 0, 1000),
            "arrows": self.integer(start.get("arrows", 0), "start.arrows", 0, 1000),
            "fruit": self.integer(start.get("fruit", 0), "start.fruit", 0, 100),
            "inventory": list(inventory),
        }

    def settings(self, data: dict[str, Any]) -> dict[str, str]:
        given = data.get("settings", {})
        out = dict(DEFAULT_SETTINGS)
        for key, value in given.items():
            if key not in SETTINGS:
                self.fail("settings", f"has unknown setting {key!r}", f"use {sorted(SETTINGS)}")
            if value not in SETTINGS[key]:
                self.fail(f"settings.{key}", f"is {value!r}", f"choose one of {', '.join(SETTINGS[key])}")
            out[key] = value
        return out


def listing(data: dict[str, Any]) -> list[Any]:
    """The crawl's tables as rolled (terrain, events, ruins...) and its reference lists."""
    from ledger.browse import Row, Table, effects, ranged_rows
    from ledger.systems.crawl.combat import TECHNIQUES

    def outcome(value: Any) -> tuple[str, dict[str, Any]]:
        if isinstance(value, str):
            return value, {}
        more = effects(value)
        return value.get("text", "") + (f" ({more})" if more else ""), {
            k: v for k, v in value.items() if k != "text"
        }

    variant = data["settings"].get("terrain") == "3d6"
    out = [
        Table(
            "terrain",
            "Terrain of a blank hex",
            ranged_rows(data["terrain"], "1d6", lambda v: (v, {})),
            "1d6",
            "this campaign rolls 3d6 and keeps one (the neighbours variant)" if variant else "",
        )
    ]
    for terrain, rows in data["events"].items():
        out.append(
            Table(
                f"events.{terrain}",
                f"Events on a new {terrain} hex",
                ranged_rows(rows, "2d6", outcome),
                "2d6",
            )
        )
    out.append(Table("ruins", "Ruins", ranged_rows(data["ruins"], "1d6", outcome), "1d6"))
    for terrain, rows in data["encounters"].items():
        out.append(
            Table(
                f"encounters.{terrain}",
                f"Enemies met again on an empty {terrain} hex",
                ranged_rows(rows, "1d6", lambda v: (v, {"enemy": v})),
                "1d6",
            )
        )
    out.append(Table("rewards", "Loot after a fight", ranged_rows(data["rewards"], "1d6", outcome), "1d6"))
    out.append(Table("quests", "A town's quest", ranged_rows(data["quests"], "1d6", outcome), "1d6"))
    for number, chapter in data["chapters"].items():
        rows = {k: v for k, v in chapter.items() if k.isdigit()}
        if rows:
            out.append(
                Table(
                    f"chapters.{number}",
                    f"Divine chapter {number}: {chapter['name']}",
                    ranged_rows(rows, "1d6", outcome),
                    "1d6",
                )
            )
    out.append(
        Table(
            "shop",
            "A town's shop: stock and prices",
            tuple(
                Row(
                    name,
                    f"{item['price']} {'bit' if item['price'] == 1 else 'bits'}: {_bought(item)}",
                    dict(item),
                )
                for name, item in data["shop"].items()
            ),
        )
    )
    out.append(
        Table(
            "enemies",
            "Enemies",
            tuple(
                Row(
                    name,
                    f"Health {e['health']}, Attack {e['attack']}, Defense {e['defense']}, ESC {e['esc']}"
                    + (", robot" if e.get("robot") else ""),
                    dict(e),
                )
                for name, e in data["enemies"].items()
            ),
        )
    )
    out.append(
        Table(
            "items",
            "Items",
            tuple(Row(name, effects(item) or "no bonus", dict(item)) for name, item in data["items"].items()),
        )
    )
    out.append(
        Table(
            "techniques",
            "Techniques (ledger crawl technique N)",
            tuple(
                Row(
                    str(n),
                    f"{t['name']}: {t['cost']} Energy"
                    + (f", +{t['bonus']} damage" if "bonus" in t else "")
                    + (", robots only" if t.get("robots") else "")
                    + (f", needs {' or '.join(t['needs'])}" if "needs" in t else ""),
                    {k: list(v) if isinstance(v, tuple) else v for k, v in t.items()},
                )
                for n, t in TECHNIQUES.items()
            ),
        )
    )
    return out


def _bought(item: dict[str, Any]) -> str:
    from ledger.browse import effects

    more = effects(item, skip=("text", "price"))
    return item.get("text", "") + (f" ({more})" if more else "")


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
