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

from ledger import i18n
from ledger.errors import EditTable, Other, RuleError, TableError
from ledger.i18n import _
from ledger.systems.dicepool.damage import parse_damage
from ledger.systems.dicepool.model import ATTRIBUTE_NAMES, ATTRIBUTES, RANGE_NAMES, shown, skill_or_attribute
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


Text = str | dict[str, str]
"""A text in one language, or in several: ``{ en = "...", es = "..." }``."""


class Modifier(msgspec.Struct, forbid_unknown_fields=True):
    """A situational modifier to the target number; its text in one language or several
    (the English one, else the first given, is what a roll records as its reason)."""

    tn: Annotated[int, msgspec.Meta(ge=-20, le=20)]
    text: Text | msgspec.UnsetType = msgspec.UNSET


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
    fix = Other(
        text=_("give one or more of the sections {sections}", sections=", ".join(f"[{s}]" for s in SECTIONS))
    )
    return TableError(_("table file {file!r}: {problem}", file=where, problem=problem), fix=fix)


def _read(path: Path | Traversable, where: str) -> TableFile:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise TableError(
            _("table file {file!r} does not exist", file=where),
            fix=Other(text=_("give the path of a TOML file")),
        ) from None
    except OSError as e:
        raise TableError(
            _("table file {file!r} cannot be read ({problem})", file=where, problem=e.strerror),
            fix=Other(text=_("give the path of a readable TOML file")),
        ) from None
    return tablefile.decode(data, TableFile, where)


# --- what a type cannot say ------------------------------------------------------------------


def _bad(where: str, table: str, problem: str) -> TableError:
    return TableError(
        _("table file {file!r} [{table}]: {problem}", file=where, table=table, problem=problem),
        fix=EditTable(text=_("fix the [{table}] table", table=table), table=table),
    )


def check(
    skills: dict[str, Skill],
    ranges: dict[str, Ranges],
    weapons: dict[str, Weapon],
    rules: Rules,
    where: str,
    modifiers: dict[str, Modifier] | None = None,
) -> None:
    """The cross-checks of a complete set of tables: choices, bands, classes, damage codes,
    the languages a text is given in."""
    for name, skill in skills.items():
        if skill.attribute not in ATTRIBUTES:
            raise _bad(
                where,
                f"skills.{name}",
                _(
                    "attribute must be one of {choices}, got {got!r}",
                    choices=", ".join(ATTRIBUTES),
                    got=skill.attribute,
                ),
            )
    for name, mod in (modifiers or {}).items():
        if isinstance(mod.text, dict):
            unknown = [lang for lang in mod.text if lang not in i18n.LANGUAGES]
            if unknown or not mod.text or not all(mod.text.values()):
                raise _bad(
                    where,
                    f"modifiers.{name}",
                    _(
                        "text in several languages gives each by its code ({languages}); got {got}",
                        languages=", ".join(i18n.LANGUAGES),
                        got=", ".join(mod.text) or _("none"),
                    ),
                )
    for name, bands in ranges.items():
        bounds = [getattr(bands, cls) for cls in RANGE_CLASSES]
        if bounds != sorted(set(bounds)):
            raise _bad(
                where,
                f"ranges.{name}",
                _("short < medium < long < extreme (meters) is required, got {bounds}", bounds=bounds),
            )
    for name, arm in weapons.items():
        if arm.weapon_class != MELEE and arm.weapon_class not in ranges:
            raise _bad(
                where,
                f"weapons.{name}",
                _(
                    "class must be 'melee' or a [ranges] class ({classes}), got {got!r}",
                    classes=", ".join(ranges),
                    got=arm.weapon_class,
                ),
            )
        try:
            parse_damage(arm.damage, strength=1)
        except RuleError as e:
            raise _bad(where, f"weapons.{name}", e.message) from None
    if rules.wound_modifiers not in WOUND_MODIFIERS:
        raise _bad(
            where,
            "rules",
            _(
                "wound_modifiers must be one of {choices}, got {got!r}",
                choices=", ".join(WOUND_MODIFIERS),
                got=rules.wound_modifiers,
            ),
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
            raise _refused(path, _("has no known section"))
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
        sections["modifiers"],
    )
    plain = msgspec.to_builtins(merged)
    return {section: plain[section] for section in SECTIONS}, source


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, judged by the types and :func:`check` a table file is
    read with, every section given, and stored exactly so (``Rules.check_tables``)."""

    def store(tables: TableFile, source: str) -> dict[str, Any]:
        missing = [s for s in SECTIONS if s not in tables.given()]
        if missing:
            raise TableError(_("{source} have no [{missing}]", source=source, missing="], [".join(missing)))
        check(tables.skills, tables.ranges, tables.weapons, tables.rules, source, tables.modifiers)  # type: ignore[arg-type]
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
        _(
            "{m} m is beyond the extreme range of a {weapon_class} ({most} m); move closer",
            m=meters,
            weapon_class=weapon_class,
            most=bands["extreme"],
        )
    )


def weapon(tables: dict[str, Any], name: str) -> dict[str, Any]:
    weapons = tables.get("weapons", {})
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in weapons:
        raise RuleError(
            _(
                "unknown weapon {name!r}; choose one of: {choices}",
                name=name,
                choices=", ".join(sorted(weapons)),
            )
        )
    return {"key": key, **weapons[key]}


def modifier(tables: dict[str, Any], text: str) -> tuple[str, int]:
    """A situational modifier by its name in the modifiers table, or a number such as ``+2``."""
    raw = text.strip()
    if re.fullmatch(r"[+-]?[0-9]{1,3}", raw):
        value = int(raw)
        if not -20 <= value <= 20:
            raise RuleError(_("a modifier of {text!r} is out of range; use -20 to +20", text=text))
        return f"modifier {value:+d}", value
    mods = tables.get("modifiers", {})
    key = raw.lower().replace(" ", "_").replace("-", "_")
    if key not in mods:
        raise RuleError(
            _(
                "unknown modifier {text!r}; give a number like +2 or one of: {choices}",
                text=text,
                choices=", ".join(sorted(mods)),
            )
        )
    entry = mods[key]
    said = entry.get("text")
    return (i18n.localized(said, i18n.LANGUAGES[0]) if said else key), int(entry["tn"])


def skill_entry(tables: dict[str, Any], skill: str) -> dict[str, Any] | None:
    entry = tables.get("skills", {}).get(skill)
    return entry if isinstance(entry, dict) else None


def listing(data: dict[str, Any]) -> list[Any]:
    """The dicepool reference tables: skills, weapons, ranges and situational modifiers."""

    def skill(s: dict[str, Any]) -> str:
        related = [skill_or_attribute(r) for r in s.get("related") or []]
        attribute = shown(str(s.get("attribute", "")), ATTRIBUTE_NAMES)
        if related:
            return _("{attribute}; defaults from {related}", attribute=attribute, related=", ".join(related))
        return attribute

    def weapon(w: dict[str, Any]) -> str:
        return _(
            "{name}: {weapon_class}, {skill}, damage {damage}",
            name=w["name"],
            weapon_class=w["class"],
            skill=skill_or_attribute(str(w["skill"])),
            damage=w["damage"],
        )

    def modifier(m: dict[str, Any]) -> str:
        return _("{tn} TN: {text}", tn=f"{m['tn']:+d}", text=i18n.localized(m.get("text", "")))

    def bands(r: dict[str, Any]) -> str:
        return ", ".join(f"{shown(k, RANGE_NAMES)} {v}" for k, v in r.items())

    return [
        Table("skills", _("Skills"), tuple(Row(n, skill(s), dict(s)) for n, s in data["skills"].items())),
        Table("weapons", _("Weapons"), tuple(Row(n, weapon(w), dict(w)) for n, w in data["weapons"].items())),
        Table(
            "ranges",
            _("Ranges in meters (short, medium, long, extreme)"),
            tuple(Row(n, bands(r), dict(r)) for n, r in data["ranges"].items()),
        ),
        Table(
            "modifiers",
            _("Situational modifiers to the target number"),
            tuple(Row(n, modifier(m), dict(m)) for n, m in data["modifiers"].items()),
        ),
    ]
