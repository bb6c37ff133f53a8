"""The d20 tables as data: load, validate and normalise them.

The rules cite tables they do not print (attribute modifiers, classes, levels,
difficulties, panic, traumas, weapons); the samples live in ``samples/d20/``,
one TOML file per table, each marked ``sample = true``. A user's file
(``ledger new d20 NAME --tables FILE``) may hold any of the sections; the
sections it leaves out come from the samples. The normalised tables are
embedded in the campaign's start event, so replay never reads a file.
"""

from __future__ import annotations

import copy
import re
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ledger.errors import TableError

SAMPLES = resources.files("ledger.samples") / "d20"
SECTIONS = ("modifiers", "levels", "difficulties", "skills", "classes", "weapons", "panic", "traumas")
ATTRIBUTES = ("fue", "des", "con", "int", "sab", "car")
"""FUE, DES, CON, INT, SAB, CAR, in the order the rules' sheet lists them."""
USAGE_DICE = (12, 10, 8, 6, 4)
TABLE_DICE = (4, 6, 8, 10, 12, 20)
_DIE = re.compile(r"^d(\d+)$")
_DAMAGE = re.compile(r"^(\d+)d(\d+)$")


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """The tables of a new campaign: the user's file over the samples."""
    raw = _read_samples()
    source = "samples/d20 (sample tables)"
    sample = set(SECTIONS)
    if path is not None:
        user = _read(Path(path))
        given = [s for s in SECTIONS if s in user or (s == "levels" and "income_per_level" in user)]
        extra = {"sample", "income_per_level", "die", "trauma_from", "panic_die", "traumas_die"}
        unknown = sorted(set(user) - {*SECTIONS, *extra})
        if unknown:
            raise TableError(
                f"{path}: unknown section(s) {', '.join(map(repr, unknown))}; "
                f"use any of {', '.join(SECTIONS)}"
            )
        if not given:
            raise TableError(f"{path} has none of the d20 tables; add a section such as [weapons]")
        for section in given:
            raw[section] = _section(user, section, path)
        sample -= set(given) if not user.get("sample") else set()
        rest = [s for s in SECTIONS if s not in given]
        source = str(path) + (f" (samples for {', '.join(rest)})" if rest else "")
    tables = normalise(raw)
    tables["sample"] = sorted(sample)
    return tables, source


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError as e:
        raise TableError(f"table file {str(path)!r} does not exist; check the path") from e
    except tomllib.TOMLDecodeError as e:
        raise TableError(f"table file {str(path)!r} is not valid TOML ({e}); fix the syntax") from e


def _section(data: dict[str, Any], section: str, origin: object) -> Any:
    """One section of a file, with the panic/trauma dice and the income kept beside it."""
    if section in ("panic", "traumas"):
        return _roll_section(data, section)
    if section == "levels":
        return {"income_per_level": data.get("income_per_level", 500), "levels": data.get("levels")}
    if section not in data:
        raise TableError(f"{origin}: section [{section}] is missing; add it")
    return data[section]


def _roll_section(data: dict[str, Any], section: str) -> dict[str, Any]:
    """A rolled table: its die (and panic's trauma threshold) may sit inside the
    section, as ``panic_die``/``traumas_die`` beside it, or as ``die`` in a file
    holding that table alone."""
    entries = dict(data.get(section) or {})
    default = "d6" if section == "panic" else "d10"
    die = entries.pop("die", data.get(f"{section}_die", data.get("die", default)))
    table: dict[str, Any] = {"die": die, "results": entries}
    if section == "panic":
        table["trauma_from"] = entries.pop("trauma_from", data.get("trauma_from", 4))
    return table


def _read_samples() -> dict[str, Any]:
    """The sample tables (read once per process; each caller gets its own copy)."""
    return copy.deepcopy(_parsed_samples())


@cache
def _parsed_samples() -> dict[str, Any]:
    raw: dict[str, Any] = {}
    for section in SECTIONS:
        data = _read(SAMPLES / f"{section}.toml")
        raw[section] = _section(data, section, SAMPLES / f"{section}.toml")
    return raw


# --- validation ---------------------------------------------------------------


def normalise(raw: dict[str, Any]) -> dict[str, Any]:
    """Validated, JSON-ready tables; one-line TableError on the first problem."""
    skills = _skills(raw["skills"])
    weapons = _weapons(raw["weapons"])
    return {
        "modifiers": _modifiers(raw["modifiers"]),
        **_levels(raw["levels"]),
        "difficulties": _difficulties(raw["difficulties"]),
        "skills": skills,
        "weapons": weapons,
        "classes": _classes(raw["classes"], skills, weapons),
        "panic": _panic(raw["panic"]),
        "traumas": _roll_table(raw["traumas"], "traumas"),
    }


def die_sides(text: object, where: str, allowed: tuple[int, ...]) -> int:
    m = _DIE.match(str(text).strip().lower())
    if not m or int(m.group(1)) not in allowed:
        shown = ", ".join(f"d{s}" for s in allowed)
        raise TableError(f'{where}: die {text!r} is not one of {shown}; write e.g. "d{allowed[1]}"')
    return int(m.group(1))


def _int(value: object, where: str, lo: int = -100, hi: int = 10_000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise TableError(f"{where}: expected a whole number from {lo} to {hi}, got {value!r}")
    return value


def _mapping(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not value:
        raise TableError(f"{where}: expected a non-empty table of names, got {value!r}")
    return value


def _modifiers(rows: object) -> list[dict[str, int]]:
    if not isinstance(rows, list) or not rows:
        raise TableError(f"[[modifiers]]: expected a list of {{min, max, mod}} bands, got {rows!r}")
    bands = []
    for i, row in enumerate(rows, start=1):
        where = f"modifiers band {i}"
        if not isinstance(row, dict):
            raise TableError(f"{where}: expected {{min, max, mod}}, got {row!r}")
        bands.append(
            {
                "min": _int(row.get("min"), f"{where} min", 3, 18),
                "max": _int(row.get("max"), f"{where} max", 3, 18),
                "mod": _int(row.get("mod"), f"{where} mod", -10, 10),
            }
        )
    covered = sorted(score for b in bands for score in range(b["min"], b["max"] + 1))
    if covered != list(range(3, 19)):
        raise TableError(
            f"[[modifiers]] bands cover scores {covered!r}; every score 3 to 18 must be in exactly one band"
        )
    return sorted(bands, key=lambda b: b["min"])


def _levels(raw: dict[str, Any]) -> dict[str, Any]:
    rows = raw.get("levels")
    if not isinstance(rows, list) or not rows:
        raise TableError(f"[[levels]]: expected a list of {{level, atq, ins}} rows, got {rows!r}")
    levels = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise TableError(f"levels row {i}: expected {{level, atq, ins}}, got {row!r}")
        levels.append({k: _int(row.get(k), f"levels row {i} {k}", 0, 100) for k in ("level", "atq", "ins")})
    numbers = [row["level"] for row in levels]
    if numbers != list(range(1, len(levels) + 1)):
        raise TableError(f"[[levels]] has levels {numbers!r}; list levels 1, 2, 3... in order")
    income = _int(raw.get("income_per_level"), "income_per_level", 0, 1_000_000)
    return {"levels": levels, "income_per_level": income}


def _difficulties(raw: object) -> dict[str, int]:
    table = _mapping(raw, "[difficulties]")
    return {str(k): _int(v, f"difficulty {k!r}", 1, 40) for k, v in table.items()}


def _skills(raw: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in _mapping(raw, "[skills]").items()}


def _weapons(raw: object) -> dict[str, dict[str, Any]]:
    weapons = {}
    for name, row in _mapping(raw, "[weapons]").items():
        where = f"weapon {name!r}"
        row = _mapping(row, where)
        kind = row.get("kind")
        if kind not in ("melee", "ranged"):
            raise TableError(f'{where}: kind {kind!r} is not melee or ranged; set kind = "ranged"')
        m = _DAMAGE.match(str(row.get("damage", "")).strip().lower())
        if not m or not 1 <= int(m.group(1)) <= 10 or int(m.group(2)) not in (2, 3, *TABLE_DICE):
            raise TableError(f'{where}: damage {row.get("damage")!r} is not dice like "1d8"; fix it')
        weapon: dict[str, Any] = {
            "kind": kind,
            "count": int(m.group(1)),
            "sides": int(m.group(2)),
            "autofire": bool(row.get("autofire", False)),
        }
        if kind == "ranged":
            weapon["range"] = _int(row.get("range"), f"{where} range", 1, 100_000)
            ammo = row.get("ammo")
            if not isinstance(ammo, str) or not ammo.strip():
                raise TableError(f'{where}: a ranged weapon needs ammo = "RESOURCE" (its usage die)')
            weapon["ammo"] = ammo.strip()
        elif weapon["autofire"]:
            raise TableError(f"{where}: a melee weapon cannot have autofire; drop it")
        weapons[str(name)] = weapon
    return weapons


def _classes(raw: object, skills: dict[str, str], weapons: dict[str, Any]) -> dict[str, Any]:
    classes = {}
    for name, row in _mapping(raw, "[classes]").items():
        where = f"class {name!r}"
        row = _mapping(row, where)
        talents = _mapping(row.get("talents"), f"{where} talents")
        if len(talents) < 2:
            raise TableError(f"{where}: lists {len(talents)} talent(s); list at least two to choose from")
        for w in row.get("weapons", []):
            if w not in weapons:
                raise TableError(f"{where}: weapon {w!r} is not in [weapons]; add it or fix the name")
        suggested = list(row.get("skills", []))
        for s in suggested:
            if s not in skills:
                raise TableError(f"{where}: skill {s!r} is not in [skills]; add it or fix the name")
        usage = {
            str(k): die_sides(v, f"{where} usage {k!r}", USAGE_DICE)
            for k, v in dict(row.get("usage", {})).items()
        }
        classes[str(name)] = {
            "label": str(row.get("label", name)),
            "endurance": die_sides(row.get("endurance"), f"{where} endurance", TABLE_DICE),
            "money": _int(row.get("money", 0), f"{where} money", 0, 10_000_000),
            "armor": _int(row.get("armor", 0), f"{where} armor", 0, 20),
            "synthetic": bool(row.get("synthetic", False)),
            "weapons": [str(w) for w in row.get("weapons", [])],
            "skills": suggested,
            "usage": usage,
            "talents": {str(k): str(v) for k, v in talents.items()},
        }
    return classes


def _roll_table(raw: object, name: str) -> dict[str, Any]:
    table = _mapping(raw, f"[{name}]")
    sides = die_sides(table.get("die"), f"[{name}] die", TABLE_DICE)
    results = _mapping(table.get("results"), f"[{name}]")
    keys = sorted(results, key=lambda k: int(k) if str(k).isdigit() else -1)
    if [str(k) for k in keys] != [str(i) for i in range(1, sides + 1)]:
        raise TableError(
            f"[{name}] has entries {[str(k) for k in keys]!r}; a d{sides} table needs entries 1 to {sides}"
        )
    return {"die": sides, "results": {str(k): str(results[k]) for k in keys}}


def _panic(raw: object) -> dict[str, Any]:
    table = _roll_table(raw, "panic")
    trauma_from = _int(_mapping(raw, "[panic]").get("trauma_from"), "[panic] trauma_from", 1, 100)
    return {**table, "trauma_from": trauma_from}


def listing(data: dict[str, Any]) -> list[Any]:
    """The d20 tables: panic and traumas as rolled; classes, skills, weapons and the rest to read."""
    from ledger.browse import Row, Table, ranged_rows

    def rolled(name: str, title: str) -> Any:
        table = data[name]
        dice = f"1d{table['die']}"
        return Table(name, title, ranged_rows(table["results"], dice, lambda v: (v, {})), dice)

    def weapon(w: dict[str, Any]) -> str:
        return f"{w['kind']}, {w['count']}d{w['sides']} damage" + (", autofire" if w.get("autofire") else "")

    def cls(c: dict[str, Any]) -> str:
        return (
            f"{c.get('label', '')}: endurance {c.get('endurance')}, armor {c.get('armor')}, "
            f"weapons {', '.join(c.get('weapons', []))}, skills {', '.join(c.get('skills', []))}, "
            f"talents {', '.join(c.get('talents', {}))}"
        )

    return [
        rolled("panic", "Panic"),
        rolled("traumas", "Traumas"),
        Table("classes", "Classes", tuple(Row(n, cls(c), dict(c)) for n, c in data["classes"].items())),
        Table("skills", "Skills", tuple(Row(n, text) for n, text in data["skills"].items())),
        Table("weapons", "Weapons", tuple(Row(n, weapon(w), dict(w)) for n, w in data["weapons"].items())),
        Table(
            "difficulties",
            "Difficulties (target on 1d20)",
            tuple(Row(n, str(t), {"target": t}) for n, t in data["difficulties"].items()),
        ),
        Table(
            "modifiers",
            "Attribute modifiers",
            tuple(
                Row(
                    f"{m['min']}" if m["min"] == m["max"] else f"{m['min']}-{m['max']}",
                    f"{m['mod']:+d}",
                    dict(m),
                )
                for m in data["modifiers"]
            ),
        ),
        Table(
            "levels",
            "Levels",
            tuple(
                Row(str(lv["level"]), f"attack {lv['atq']:+d}, instinct {lv['ins']:+d}", dict(lv))
                for lv in data["levels"]
            ),
        ),
    ]
