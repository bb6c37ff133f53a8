"""The dicepool tables: skill web, range table, situational modifiers, weapons, rules.

The rules cite these tables without printing them, so the ledger ships sample
files in ``samples/dicepool/`` (each marked ``sample = true``). A user's TOML
file may replace any of the sections ``[skills]``, ``[ranges]``,
``[modifiers]``, ``[weapons]`` and ``[rules]``; sections it leaves out keep the
samples. Each file is decoded into the typed :class:`TableFile` (a wrong type, a
missing field or an unknown key is refused with its path, :mod:`ledger.tables.file`), then checked for what
a type cannot say (the weapon's range class exists, the range bands grow). The
tables are embedded in the campaign's first event as plain data, so replay never
reads these files again.
"""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any

import msgspec

from ledger.errors import EditTable, Other, RuleError, TableError
from ledger.systems.dicepool.damage import parse_damage
from ledger.systems.dicepool.model import ATTRIBUTES
from ledger.tables import file as tablefile
from ledger.tables.browse import Row, Table

SAMPLES = resources.files("ledger.samples") / "dicepool"
SECTIONS = ("skills", "ranges", "modifiers", "weapons", "rules")
WOUND_MODIFIERS = ("cumulative", "worst")
RANGE_CLASSES = ("short", "medium", "long", "extreme")
RANGE_TN = {"short": 4, "medium": 5, "long": 6, "extreme": 9}
""""(4, 5, 6 y 9, respectivamente)"."""
MELEE = "melee"

Meters = Annotated[int, msgspec.Meta(ge=1, le=100_000)]
Name = Annotated[str, msgspec.Meta(min_length=1)]
NONEMPTY = msgspec.Meta(min_length=1)


class Skill(msgspec.Struct, forbid_unknown_fields=True):
    """A skill of the web: the attribute it defaults to, its related skills best first."""

    attribute: str
    related: list[Name] | msgspec.UnsetType = msgspec.UNSET


class Ranges(msgspec.Struct, forbid_unknown_fields=True):
    """The upper bound in meters of each range class, for one weapon class."""

    short: Meters
    medium: Meters
    long: Meters
    extreme: Meters


class Modifier(msgspec.Struct, forbid_unknown_fields=True):
    """A situational modifier to the target number."""

    tn: Annotated[int, msgspec.Meta(ge=-20, le=20)]
    text: str | msgspec.UnsetType = msgspec.UNSET


class Weapon(msgspec.Struct, forbid_unknown_fields=True):
    """A weapon: its class (a [ranges] class or melee), skill and damage code."""

    name: Name
    weapon_class: str = msgspec.field(name="class")
    skill: Name
    damage: str
    burst: Annotated[int, msgspec.Meta(ge=1, le=30)] | msgspec.UnsetType = msgspec.UNSET
    """Most rounds one attack may fire (1 when not given: single shots only)."""
    recoil_comp: Annotated[int, msgspec.Meta(ge=0, le=30)] | msgspec.UnsetType = msgspec.UNSET
    stun: bool | msgspec.UnsetType = msgspec.UNSET
    reach: Annotated[int, msgspec.Meta(ge=0, le=5)] | msgspec.UnsetType = msgspec.UNSET


class Rules(msgspec.Struct, forbid_unknown_fields=True):
    """Settings where players disagree (docs/rulings/dicepool.md)."""

    wound_modifiers: str


class TableFile(msgspec.Struct, forbid_unknown_fields=True):
    """One table file: any of the sections, each a non-empty table of entries."""

    sample: bool = False
    skills: Annotated[dict[str, Skill], NONEMPTY] | msgspec.UnsetType = msgspec.UNSET
    ranges: Annotated[dict[str, Ranges], NONEMPTY] | msgspec.UnsetType = msgspec.UNSET
    modifiers: Annotated[dict[str, Modifier], NONEMPTY] | msgspec.UnsetType = msgspec.UNSET
    weapons: Annotated[dict[str, Weapon], NONEMPTY] | msgspec.UnsetType = msgspec.UNSET
    rules: Rules | msgspec.UnsetType = msgspec.UNSET

    def given(self) -> list[str]:
        return [s for s in SECTIONS if getattr(self, s) is not msgspec.UNSET]


def _refused(where: str, problem: str) -> TableError:
    """A file that gives none of the sections."""
    fix = Other(text="give one or more of the sections " + ", ".join(f"[{s}]" for s in SECTIONS))
    return TableError(f"table file {where!r}: {problem}", fix=fix)


def _read(path: Path | Traversable, where: str) -> TableFile:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TableError(
            f"table file {where!r} does not exist", fix=Other(text="give the path of a TOML file")
        ) from None
    except OSError as e:
        raise TableError(
            f"table file {where!r} cannot be read ({e.strerror})",
            fix=Other(text="give the path of a readable TOML file"),
        ) from None
    return tablefile.decode(data, TableFile, where)


# --- what a type cannot say ------------------------------------------------------------------


def _bad(where: str, table: str, problem: str) -> TableError:
    return TableError(
        f"table file {where!r} [{table}]: {problem}",
        fix=EditTable(text=f"fix the [{table}] table", table=table),
    )


def check(
    skills: dict[str, Skill],
    ranges: dict[str, Ranges],
    weapons: dict[str, Weapon],
    rules: Rules,
    where: str,
) -> None:
    """The cross-checks of a complete set of tables: choices, bands, classes, damage codes."""
    for name, skill in skills.items():
        if skill.attribute not in ATTRIBUTES:
            raise _bad(
                where,
                f"skills.{name}",
                f"attribute must be one of {', '.join(ATTRIBUTES)}, got {skill.attribute!r}",
            )
    for name, bands in ranges.items():
        bounds = [getattr(bands, cls) for cls in RANGE_CLASSES]
        if bounds != sorted(set(bounds)):
            raise _bad(
                where, f"ranges.{name}", f"short < medium < long < extreme (meters) is required, got {bounds}"
            )
    for name, arm in weapons.items():
        if arm.weapon_class != MELEE and arm.weapon_class not in ranges:
            raise _bad(
                where,
                f"weapons.{name}",
                f"class must be 'melee' or a [ranges] class ({', '.join(ranges)}), got {arm.weapon_class!r}",
            )
        try:
            parse_damage(arm.damage, strength=1)
        except RuleError as e:
            raise _bad(where, f"weapons.{name}", e.message) from None
    if rules.wound_modifiers not in WOUND_MODIFIERS:
        raise _bad(
            where,
            "rules",
            f"wound_modifiers must be one of {', '.join(WOUND_MODIFIERS)}, got {rules.wound_modifiers!r}",
        )


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """The sample tables, with any section a user's file gives replacing them."""
    merged = TableFile()
    for section in SECTIONS:
        sample = _read(SAMPLES / f"{section}.toml", f"samples/dicepool/{section}.toml")
        merged = msgspec.structs.replace(merged, **{section: getattr(sample, section)})
    source = "samples/dicepool (sample content)"
    if path is not None:
        own = _read(Path(path), path)
        given = own.given()
        if not given:
            raise _refused(path, "has no known section")
        merged = msgspec.structs.replace(merged, **{s: getattr(own, s) for s in given})
        kept = [s for s in SECTIONS if s not in given]
        source = f"{path} ({', '.join(given)})" + (f"; samples for {', '.join(kept)}" if kept else "")
    sections = {s: getattr(merged, s) for s in SECTIONS}
    check(
        sections["skills"],
        sections["ranges"],
        sections["weapons"],
        sections["rules"],
        path or "samples/dicepool",
    )
    plain = msgspec.to_builtins(merged)
    return {section: plain[section] for section in SECTIONS}, source


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, judged by the types and :func:`check` a table file is
    read with, every section given, and stored exactly so (``Rules.check_tables``)."""

    def store(tables: TableFile, source: str) -> dict[str, Any]:
        missing = [s for s in SECTIONS if s not in tables.given()]
        if missing:
            raise TableError(f"{source} have no [{'], ['.join(missing)}]")
        check(tables.skills, tables.ranges, tables.weapons, tables.rules, source)  # type: ignore[arg-type]
        plain = msgspec.to_builtins(tables)
        return {section: plain[section] for section in SECTIONS}

    tablefile.check_stored(data, TableFile, store, "dicepool")


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
