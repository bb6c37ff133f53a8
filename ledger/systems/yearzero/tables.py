"""The yearzero tables: critical injuries, sector Rot levels, night hours.

A tables file is TOML (see ``samples/yearzero/tables.toml``, sample content).
It is read and validated once, when the campaign starts, and embedded in the
log, so replay never depends on the file.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from ledger.errors import TableError
from ledger.projections.yearzero.state import split_sector

SAMPLE = resources.files("ledger.samples") / "yearzero" / "tables.toml"


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    source = Path(path) if path is not None else SAMPLE
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableError(f"tables file {str(source)!r} does not exist; give an existing TOML file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise TableError(f"tables file {str(source)!r} is not valid TOML ({e}); fix the syntax") from None
    validate(data, str(source))
    return data, "sample" if path is None else str(source)


def _fail(source: str, where: str, expected: str, got: Any) -> TableError:
    return TableError(f"tables file {source!r}: {where} should be {expected}, got {got!r}; fix that entry")


def _int(source: str, where: str, value: Any, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise _fail(source, where, f"a whole number from {lo} to {hi}", value)
    return value


def validate(data: dict[str, Any], source: str) -> None:
    crits = data.get("critical_injuries")
    if not isinstance(crits, dict):
        raise _fail(source, "[critical_injuries]", "a table with rows 2 to 12", crits)
    missing = [str(n) for n in range(2, 13) if str(n) not in crits]
    if missing:
        raise _fail(source, "[critical_injuries]", "rows 2 to 12", f"missing {', '.join(missing)}")
    for key, row in crits.items():
        where = f"critical_injuries.{key}"
        if not isinstance(row, dict) or not isinstance(row.get("name"), str) or not row["name"].strip():
            raise _fail(source, f"{where}.name", "a non-empty text", row)
        for flag in ("lethal", "instant"):
            if not isinstance(row.get(flag, False), bool):
                raise _fail(source, f"{where}.{flag}", "true or false", row.get(flag))
        if row.get("lethal") and not row.get("instant"):
            _int(source, f"{where}.deadline_minutes", row.get("deadline_minutes"), 1, 60 * 24 * 30)
        _int(source, f"{where}.heal_days", row.get("heal_days", 0), 0, 365)
        if not isinstance(row.get("effect", ""), str):
            raise _fail(source, f"{where}.effect", "a text", row.get("effect"))
    levels = data.get("rot_levels")
    if not isinstance(levels, dict) or "0" not in levels:
        raise _fail(source, "[rot_levels]", "a table with at least level 0", levels)
    for key, row in levels.items():
        if not key.isdigit() or not isinstance(row, dict):
            raise _fail(source, f"rot_levels.{key}", "a numbered table", row)
        _int(source, f"rot_levels.{key}.minutes_per_point", row.get("minutes_per_point"), 0, 60 * 24 * 365)
    sector_rot = data.get("sector_rot")
    if not isinstance(sector_rot, dict) or sorted(sector_rot) != [str(n) for n in range(1, 7)]:
        raise _fail(source, "[sector_rot]", "rows 1 to 6", sector_rot)
    for key, level in sector_rot.items():
        if str(_int(source, f"sector_rot.{key}", level, 0, 99)) not in levels:
            raise _fail(source, f"sector_rot.{key}", "a level listed in [rot_levels]", level)
    zone = data.get("zone", {})
    ark = zone.get("ark") if isinstance(zone, dict) else None
    if not isinstance(ark, str) or split_sector(ark) is None:
        raise _fail(source, "zone.ark", 'a sector like "F8" (letters then a number)', ark)
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise _fail(source, "[settings]", "a table", settings)
    for key, lo, hi in (
        ("start_hour", 0, 23),
        ("night_start", 0, 23),
        ("night_end", 0, 23),
        ("suit_sixes_to_absorb", 1, 10),
        ("max_hours", 1, 24 * 365),
    ):
        if key in settings:
            _int(source, f"settings.{key}", settings[key], lo, hi)


def listing(data: dict[str, Any]) -> list[Any]:
    """Year Zero's tables: sector Rot (1d6), critical injuries (2d6), Rot levels and skills."""
    from ledger.browse import Row, Table, ranged_rows
    from ledger.projections.yearzero.state import SKILLS, SPECIALIST_SKILLS

    levels = data["rot_levels"]

    def rot(value: Any) -> tuple[str, dict[str, Any]]:
        name = levels.get(str(value), {}).get("name", "")
        return f"Rot level {value}" + (f" ({name})" if name else ""), {"rot_level": value}

    def injury(value: Any) -> tuple[str, dict[str, Any]]:
        if value.get("instant"):
            when = "dies at once"
        elif value.get("lethal"):
            when = f"lethal in {value.get('deadline_minutes')} minutes unless healed"
        else:
            when = "not lethal"
        heal = f", heals in {value['heal_days']} days" if value.get("heal_days") else ""
        return f"{value['name']}: {when}{heal}. {value.get('effect', '')}".strip(), dict(value)

    def every(minutes: int) -> str:
        if not minutes:
            return "no Rot"
        for unit, size in (("day", 1440), ("hour", 60), ("minute", 1)):
            if minutes % size == 0:
                n = minutes // size
                return f"a Rot point every {unit}" if n == 1 else f"a Rot point every {n} {unit}s"
        return f"a Rot point every {minutes} minutes"

    return [
        Table("sector_rot", "A sector's Rot level", ranged_rows(data["sector_rot"], "1d6", rot), "1d6"),
        Table(
            "critical_injuries",
            "Critical injuries",
            ranged_rows(data["critical_injuries"], "2d6", injury),
            "2d6",
        ),
        Table(
            "rot_levels",
            "Rot levels",
            tuple(
                Row(level, f"{row['name']}: {every(row['minutes_per_point'])}", dict(row))
                for level, row in levels.items()
            ),
        ),
        Table(
            "skills",
            "Skills and their attributes",
            tuple(
                Row(
                    skill,
                    attribute + (" (specialist: nobody can help)" if skill in SPECIALIST_SKILLS else ""),
                    {"attribute": attribute, "specialist": skill in SPECIALIST_SKILLS},
                )
                for skill, attribute in SKILLS.items()
            ),
        ),
    ]
