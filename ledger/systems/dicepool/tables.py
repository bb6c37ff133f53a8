"""The dicepool tables: skill web, range table, situational modifiers, weapons.

The rules cite these tables without printing them, so the ledger ships sample
files in ``samples/dicepool/`` (each marked ``sample = true``). A user's TOML
file may replace any of the sections ``[skills]``, ``[ranges]``,
``[modifiers]`` and ``[weapons]``; sections it leaves out keep the samples.
The tables are embedded in the campaign's first event, so replay never reads
these files again.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ledger.errors import RuleError, TableError
from ledger.systems.dicepool.damage import parse_damage
from ledger.systems.dicepool.model import ATTRIBUTES

SAMPLES = resources.files("ledger.samples") / "dicepool"
SECTIONS = ("skills", "ranges", "modifiers", "weapons", "rules")
WOUND_MODIFIERS = ("cumulative", "worst")
RANGE_CLASSES = ("short", "medium", "long", "extreme")
RANGE_TN = {"short": 4, "medium": 5, "long": 6, "extreme": 9}
""""(4, 5, 6 y 9, respectivamente)"."""
MELEE = "melee"


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise TableError(f"table file {str(path)!r} does not exist; give the path of a TOML file") from None
    except tomllib.TOMLDecodeError as e:
        raise TableError(f"table file {str(path)!r} is not valid TOML ({e}); fix the line it names") from None


def _table(data: dict[str, Any], section: str, where: str) -> dict[str, Any]:
    table = data.get(section)
    if not isinstance(table, dict) or not table:
        raise TableError(f"{where}: [{section}] must be a non-empty table of entries; see samples/dicepool/")
    for key, entry in table.items():
        if section != "rules" and not isinstance(entry, dict):
            raise TableError(f"{where}: [{section}.{key}] must be a table, got {entry!r}")
    return table


def _int(entry: dict[str, Any], key: str, where: str, lo: int, hi: int, default: int | None = None) -> int:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise TableError(f"{where}: {key} must be a whole number from {lo} to {hi}, got {value!r}")
    return value


def check_skills(table: dict[str, Any], where: str) -> None:
    for name, entry in table.items():
        at = f"{where} [skills.{name}]"
        if entry.get("attribute") not in ATTRIBUTES:
            raise TableError(
                f"{at}: attribute must be one of {', '.join(ATTRIBUTES)}, got {entry.get('attribute')!r}"
            )
        related = entry.get("related", [])
        if not isinstance(related, list) or not all(isinstance(r, str) and r for r in related):
            raise TableError(f"{at}: related must be a list of skill names, got {related!r}")


def check_ranges(table: dict[str, Any], where: str) -> None:
    for name, entry in table.items():
        at = f"{where} [ranges.{name}]"
        bounds = [_int(entry, cls, at, 1, 100_000) for cls in RANGE_CLASSES]
        if bounds != sorted(set(bounds)):
            raise TableError(f"{at}: short < medium < long < extreme (meters) is required, got {bounds}")


def check_modifiers(table: dict[str, Any], where: str) -> None:
    for name, entry in table.items():
        at = f"{where} [modifiers.{name}]"
        _int(entry, "tn", at, -20, 20)
        if not isinstance(entry.get("text", ""), str):
            raise TableError(f"{at}: text must be a string, got {entry.get('text')!r}")


def check_weapons(table: dict[str, Any], ranges: dict[str, Any], where: str) -> None:
    for name, entry in table.items():
        at = f"{where} [weapons.{name}]"
        cls = entry.get("class")
        if cls != MELEE and cls not in ranges:
            raise TableError(
                f"{at}: class must be 'melee' or a [ranges] class ({', '.join(ranges)}), got {cls!r}"
            )
        if not isinstance(entry.get("skill"), str):
            raise TableError(f"{at}: skill must name the skill that fires it, got {entry.get('skill')!r}")
        try:
            parse_damage(str(entry.get("damage", "")), strength=1)
        except RuleError as e:
            raise TableError(f"{at}: {e}") from None
        _int(entry, "burst", at, 1, 30, default=1)
        _int(entry, "recoil_comp", at, 0, 30, default=0)
        _int(entry, "reach", at, 0, 5, default=0)


def check_rules(table: dict[str, Any], where: str) -> None:
    unknown = sorted(set(table) - {"wound_modifiers"})
    if unknown:
        raise TableError(
            f"{where} [rules]: unknown setting {unknown[0]!r}; the settings are: wound_modifiers"
        )
    if table.get("wound_modifiers", "cumulative") not in WOUND_MODIFIERS:
        raise TableError(
            f"{where} [rules]: wound_modifiers must be one of {', '.join(WOUND_MODIFIERS)}, "
            f"got {table.get('wound_modifiers')!r}"
        )


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """The sample tables, with any section a user's file gives replacing them."""
    tables: dict[str, Any] = {}
    for section in SECTIONS:
        tables[section] = _table(
            _read(SAMPLES / f"{section}.toml"), section, f"samples/dicepool/{section}.toml"
        )
    source = "samples/dicepool (sample content)"
    if path is not None:
        data = _read(Path(path))
        given = [s for s in SECTIONS if s in data]
        unknown = sorted(set(data) - set(SECTIONS) - {"sample"})
        if unknown or not given:
            raise TableError(
                f"table file {path!r} has {', '.join(unknown) or 'no known section'}; "
                f"give one or more of [{'], ['.join(SECTIONS)}]"
            )
        for section in given:
            tables[section] = _table(data, section, path)
        kept = [s for s in SECTIONS if s not in given]
        source = f"{path} ({', '.join(given)})" + (f"; samples for {', '.join(kept)}" if kept else "")
    where = path or "samples/dicepool"
    check_skills(tables["skills"], where)
    check_ranges(tables["ranges"], where)
    check_modifiers(tables["modifiers"], where)
    check_weapons(tables["weapons"], tables["ranges"], where)
    check_rules(tables["rules"], where)
    return tables, source


def range_class(tables: dict[str, Any], weapon_class: str, meters: int) -> str:
    """The range class a distance falls in for a weapon class."""
    bands = tables["ranges"][weapon_class]
    for cls in RANGE_CLASSES:
        if meters <= bands[cls]:
            return cls
    raise RuleError(
        f"{meters} m is beyond the extreme range of a {weapon_class} ({bands['extreme']} m); move closer"
    )


def weapon(tables: dict[str, Any], name: str) -> dict[str, Any]:
    weapons = tables.get("weapons", {})
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in weapons:
        raise RuleError(f"unknown weapon {name!r}; choose one of: {', '.join(sorted(weapons))}")
    return {"key": key, **weapons[key]}


def modifier(tables: dict[str, Any], text: str) -> tuple[str, int]:
    """A situational modifier by its name in the modifiers table, or a number such as ``+2``."""
    raw = text.strip()
    if re.fullmatch(r"[+-]?[0-9]{1,3}", raw):
        value = int(raw)
        if not -20 <= value <= 20:
            raise RuleError(f"a modifier of {text!r} is out of range; use -20 to +20")
        return f"modifier {value:+d}", value
    mods = tables.get("modifiers", {})
    key = raw.lower().replace(" ", "_").replace("-", "_")
    if key not in mods:
        raise RuleError(
            f"unknown modifier {text!r}; give a number like +2 or one of: {', '.join(sorted(mods))}"
        )
    entry = mods[key]
    return str(entry.get("text") or key), int(entry["tn"])


def skill_entry(tables: dict[str, Any], skill: str) -> dict[str, Any] | None:
    entry = tables.get("skills", {}).get(skill)
    return entry if isinstance(entry, dict) else None


def listing(data: dict[str, Any]) -> list[Any]:
    """The dicepool reference tables: skills, weapons, ranges and situational modifiers."""
    from ledger.browse import Row, Table

    def skill(s: dict[str, Any]) -> str:
        related = s.get("related") or []
        return s.get("attribute", "") + (f"; defaults from {', '.join(related)}" if related else "")

    return [
        Table("skills", "Skills", tuple(Row(n, skill(s), dict(s)) for n, s in data["skills"].items())),
        Table(
            "weapons",
            "Weapons",
            tuple(
                Row(n, f"{w['name']}: {w['class']}, {w['skill']}, damage {w['damage']}", dict(w))
                for n, w in data["weapons"].items()
            ),
        ),
        Table(
            "ranges",
            "Ranges in meters (short, medium, long, extreme)",
            tuple(
                Row(n, ", ".join(f"{k} {v}" for k, v in r.items()), dict(r))
                for n, r in data["ranges"].items()
            ),
        ),
        Table(
            "modifiers",
            "Situational modifiers to the target number",
            tuple(
                Row(n, f"{m['tn']:+d} TN: {m.get('text', '')}", dict(m)) for n, m in data["modifiers"].items()
            ),
        ),
    ]
