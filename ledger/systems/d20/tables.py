"""The d20 tables as data: typed, read, checked and normalised.

The rules cite tables they do not print (attribute modifiers, classes, levels,
difficulties, panic, traumas, weapons); the samples live in ``samples/d20/``,
one TOML file per table, each marked ``sample = true``. A user's file may hold
any of the sections; the sections it leaves out come from the samples. The file
is decoded into the Structs below (:mod:`ledger.tables.file`: a wrong type, a
missing or an unknown key is refused with its place), then checked for what a
type cannot say (bands covering every score, a class's weapons in [weapons]).
The normalised tables, plain dicts, are embedded in the campaign's start event,
so replay never reads a file.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from ledger.errors import Other, TableError
from ledger.i18n import LANGUAGES, N_, _, localized, translate
from ledger.systems.d20 import model
from ledger.tables.browse import Row, Table, ranged_rows
from ledger.tables.file import decode

SAMPLES = resources.files("ledger.samples") / "d20"
SECTIONS = ("modifiers", "levels", "difficulties", "skills", "classes", "weapons", "panic", "traumas")
ATTRIBUTES = ("fue", "des", "con", "int", "sab", "car")
"""FUE, DES, CON, INT, SAB, CAR, in the order the rules' sheet lists them."""
USAGE_DICE = (12, 10, 8, 6, 4)
TABLE_DICE = (4, 6, 8, 10, 12, 20)
_DIE = re.compile(r"^d(\d+)$")
_DAMAGE = re.compile(r"^(\d+)d(\d+)$")


# --- the file, typed ----------------------------------------------------------------


class Band(Struct, forbid_unknown_fields=True):
    """Scores ``min`` to ``max`` give the modifier ``mod``."""

    min: Annotated[int, Meta(ge=3, le=18)]
    max: Annotated[int, Meta(ge=3, le=18)]
    mod: Annotated[int, Meta(ge=-10, le=10)]


class Level(Struct, forbid_unknown_fields=True):
    level: Annotated[int, Meta(ge=0, le=100)]
    atq: Annotated[int, Meta(ge=0, le=100)]
    ins: Annotated[int, Meta(ge=0, le=100)]


class Weapon(Struct, forbid_unknown_fields=True):
    kind: Literal["melee", "ranged"]
    damage: str
    """Dice such as ``1d8``."""
    range: Annotated[int, Meta(ge=1, le=100_000)] | None = None
    """Optimal range in metres (ranged weapons); extreme range is twice that."""
    ammo: str | None = None
    """The usage-die resource a ranged weapon feeds from."""
    autofire: bool = False


Text = str | dict[str, str]
"""A text in one language, or in several: ``{ en = "...", es = "..." }``."""


class CharacterClass(Struct, forbid_unknown_fields=True):
    endurance: str
    """The endurance die (``d10``)."""
    talents: Annotated[dict[str, Text], Meta(min_length=1)]
    label: Text | None = None
    money: Annotated[int, Meta(ge=0, le=10_000_000)] = 0
    armor: Annotated[int, Meta(ge=0, le=20)] = 0
    synthetic: bool = False
    weapons: list[str] = []
    skills: list[str] = []
    usage: dict[str, str] = {}
    """Starting supplies: resource -> usage die (``d8``)."""


RolledEntries = dict[str, str | int | dict[str, str]]
"""A rolled table's entries by face (``1 = "..."``, or ``1 = { en = "...", es = "..." }``),
with its ``die`` (and panic's ``trauma_from``) allowed among them."""
Named = Annotated[dict[str, Text], Meta(min_length=1)]


class TableFile(Struct, forbid_unknown_fields=True):
    """A d20 table file: any of the sections, the samples one each."""

    sample: bool = False
    income_per_level: Annotated[int, Meta(ge=0, le=1_000_000)] | None = None
    die: str | None = None
    """The die of the one rolled table a file holds."""
    trauma_from: int | None = None
    panic_die: str | None = None
    traumas_die: str | None = None
    modifiers: Annotated[list[Band], Meta(min_length=1)] | None = None
    levels: Annotated[list[Level], Meta(min_length=1)] | None = None
    difficulties: Annotated[dict[str, Annotated[int, Meta(ge=1, le=40)]], Meta(min_length=1)] | None = None
    skills: Named | None = None
    classes: Annotated[dict[str, CharacterClass], Meta(min_length=1)] | None = None
    weapons: Annotated[dict[str, Weapon], Meta(min_length=1)] | None = None
    panic: RolledEntries | None = None
    traumas: RolledEntries | None = None

    def given(self) -> list[str]:
        """The sections the file holds (levels also when it sets the income alone)."""
        return [
            s
            for s in SECTIONS
            if getattr(self, s) is not None or (s == "levels" and self.income_per_level is not None)
        ]


class Rolled(Struct):
    """A rolled table as read: its die and entries (and panic's trauma threshold)."""

    die: object
    results: dict[str, str | int | dict[str, str]]
    trauma_from: object = None


class Sections(Struct):
    """The eight tables a campaign uses, each from the user's file or the samples."""

    modifiers: list[Band]
    levels: list[Level]
    income_per_level: int
    difficulties: dict[str, int]
    skills: dict[str, Text]
    classes: dict[str, CharacterClass]
    weapons: dict[str, Weapon]
    panic: Rolled
    traumas: Rolled


# --- reading ------------------------------------------------------------------------


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """The tables of a new campaign: the user's file over the samples."""
    raw = _read_samples()
    source = "samples/d20 (sample tables)"
    sample = set(SECTIONS)
    if path is not None:
        user = _read(Path(path))
        given = user.given()
        if not given:
            raise TableError(
                _("{path} has none of the d20 tables; add a section such as [weapons]", path=path)
            )
        for section in given:
            _take(raw, user, section, path)
        sample -= set(given) if not user.sample else set()
        rest = [s for s in SECTIONS if s not in given]
        source = str(path) + (f" (samples for {', '.join(rest)})" if rest else "")
    try:
        tables = normalise(raw)
    except TableError as e:
        if path is None:
            raise
        raise TableError(_("{path}: {message}", path=path, message=e.message), fix=e.fix) from None
    tables["sample"] = sorted(sample)
    return tables, source


def _read(path: Path | Any) -> TableFile:
    try:
        data = path.read_bytes()
    except FileNotFoundError as e:
        raise TableError(_("table file {file!r} does not exist; check the path", file=str(path))) from e
    except OSError as e:
        raise TableError(
            _("table file {file!r} cannot be read ({e}); check the file", file=str(path), e=e)
        ) from e
    return decode(data, TableFile, str(path))


def _take(raw: Sections, data: TableFile, section: str, origin: object) -> None:
    """One section of a file into ``raw``, with the panic/trauma dice and the income kept beside it."""
    if section in ("panic", "traumas"):
        setattr(raw, section, _rolled(data, section))
    elif section == "levels":
        if data.levels is None:
            raise TableError(_("[[levels]]: the file sets income_per_level but lists no levels; add them"))
        raw.levels = data.levels
        raw.income_per_level = 500 if data.income_per_level is None else data.income_per_level
    else:
        value = getattr(data, section)
        if value is None:
            raise TableError(
                _("{origin}: section [{section}] is missing; add it", origin=origin, section=section)
            )
        setattr(raw, section, value)


def _rolled(data: TableFile, section: str) -> Rolled:
    """A rolled table: its die (and panic's trauma threshold) may sit inside the
    section, as ``panic_die``/``traumas_die`` beside it, or as ``die`` in a file
    holding that table alone."""
    entries = dict(getattr(data, section) or {})
    beside = data.panic_die if section == "panic" else data.traumas_die
    default = "d6" if section == "panic" else "d10"
    die = entries.pop("die", beside if beside is not None else data.die if data.die is not None else default)
    table = Rolled(die=die, results=entries)
    if section == "panic":
        table.trauma_from = entries.pop("trauma_from", 4 if data.trauma_from is None else data.trauma_from)
    return table


def _read_samples() -> Sections:
    """The sample tables (read once per process; each caller gets its own copy)."""
    return copy.deepcopy(_parsed_samples())


@cache
def _parsed_samples() -> Sections:
    parts: dict[str, TableFile] = {s: _read(SAMPLES / f"{s}.toml") for s in SECTIONS}
    levels = parts["levels"]
    return Sections(
        modifiers=parts["modifiers"].modifiers or [],
        levels=levels.levels or [],
        income_per_level=500 if levels.income_per_level is None else levels.income_per_level,
        difficulties=parts["difficulties"].difficulties or {},
        skills=parts["skills"].skills or {},
        classes=parts["classes"].classes or {},
        weapons=parts["weapons"].weapons or {},
        panic=_rolled(parts["panic"], "panic"),
        traumas=_rolled(parts["traumas"], "traumas"),
    )


# --- what a type cannot say ---------------------------------------------------------------


def normalise(raw: Sections) -> dict[str, Any]:
    """Checked, JSON-ready tables; one-line TableError on the first problem."""
    weapons = _weapons(raw.weapons)
    for skill, text in raw.skills.items():
        _text(text, f"skill {skill!r}")
    return {
        "modifiers": _modifiers(raw.modifiers),
        **_levels(raw.levels, raw.income_per_level),
        "difficulties": dict(raw.difficulties),
        "skills": {k: _plain(v) for k, v in raw.skills.items()},
        "weapons": weapons,
        "classes": _classes(raw.classes, raw.skills, weapons),
        "panic": _panic(raw.panic),
        "traumas": _roll_table(raw.traumas, "traumas"),
    }


class _Stored(Struct, forbid_unknown_fields=True):
    """The tables as a campaign stores them (:func:`normalise`, and the sample sections)."""

    modifiers: list[Band]
    levels: list[Level]
    income_per_level: Annotated[int, Meta(ge=0, le=1_000_000)]
    difficulties: Annotated[dict[str, Annotated[int, Meta(ge=1, le=40)]], Meta(min_length=1)]
    skills: Named
    weapons: dict[str, dict[str, Any]]
    classes: dict[str, dict[str, Any]]
    panic: dict[str, Any]
    traumas: dict[str, Any]
    sample: list[Literal[SECTIONS]]  # type: ignore[valid-type]


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, read back into the sections a table file gives (each
    die written as the file writes it) and judged by :func:`normalise`, which must store
    them exactly so (``Rules.check_tables``); a one-line TableError otherwise."""
    fix = Other(text=_("import an export the ledger wrote, unedited"))
    try:
        stored = msgspec.convert(data, _Stored)
        weapons = {
            name: Weapon(
                kind=w["kind"],
                damage=f"{_int(w['count'], f'weapon {name!r} count', 1, 10)}d{_int(w['sides'], f'weapon {name!r} sides', 2, 20)}",
                range=w.get("range"),
                ammo=w.get("ammo"),
                autofire=w["autofire"],
            )
            for name, w in stored.weapons.items()
        }
        classes = {
            name: msgspec.convert(
                {
                    **{k: v for k, v in c.items() if k not in ("endurance", "usage")},
                    "endurance": f"d{c['endurance']}",
                    "usage": {k: f"d{v}" for k, v in c["usage"].items()},
                },
                CharacterClass,
            )
            for name, c in stored.classes.items()
        }
        panic = Rolled(
            die=f"d{stored.panic['die']}",
            results=stored.panic["results"],
            trauma_from=stored.panic["trauma_from"],
        )
        traumas = Rolled(die=f"d{stored.traumas['die']}", results=stored.traumas["results"])
        raw = Sections(
            modifiers=stored.modifiers,
            levels=stored.levels,
            income_per_level=stored.income_per_level,
            difficulties=stored.difficulties,
            skills=stored.skills,
            classes=classes,
            weapons=weapons,
            panic=panic,
            traumas=traumas,
        )
        again = {**normalise(raw), "sample": stored.sample}
    except TableError as e:
        raise TableError(_("the stored tables: {message}", message=e.message), fix=fix) from None
    except (msgspec.ValidationError, KeyError, TypeError, AttributeError) as e:
        shown = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise TableError(_("the stored tables are not d20 tables ({shown})", shown=shown), fix=fix) from None
    if again != data:
        raise TableError(
            _("the stored tables are not tables the ledger stores (a table was edited)"), fix=fix
        )


def die_sides(text: object, where: str, allowed: tuple[int, ...]) -> int:
    m = _DIE.match(str(text).strip().lower())
    if not m or int(m.group(1)) not in allowed:
        shown = ", ".join(f"d{s}" for s in allowed)
        raise TableError(
            _(
                '{where}: die {text!r} is not one of {shown}; write e.g. "d{example}"',
                where=where,
                text=text,
                shown=shown,
                example=allowed[1],
            )
        )
    return int(m.group(1))


def _int(value: object, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise TableError(
            _(
                "{where}: expected a whole number from {lo} to {hi}, got {value!r}",
                where=where,
                lo=lo,
                hi=hi,
                value=value,
            )
        )
    return value


def _modifiers(bands: list[Band]) -> list[dict[str, int]]:
    rows = [msgspec.to_builtins(b) for b in bands]
    covered = sorted(score for b in bands for score in range(b.min, b.max + 1))
    if covered != list(range(3, 19)):
        raise TableError(
            _(
                "[[modifiers]] bands cover scores {covered!r}; every score 3 to 18 must be in exactly one band",
                covered=covered,
            )
        )
    return sorted(rows, key=lambda b: b["min"])


def _levels(levels: list[Level], income: int) -> dict[str, Any]:
    numbers = [row.level for row in levels]
    if numbers != list(range(1, len(levels) + 1)):
        raise TableError(
            _("[[levels]] has levels {numbers!r}; list levels 1, 2, 3... in order", numbers=numbers)
        )
    return {"levels": [msgspec.to_builtins(row) for row in levels], "income_per_level": income}


def _weapons(weapons: dict[str, Weapon]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, row in weapons.items():
        where = f"weapon {name!r}"
        m = _DAMAGE.match(row.damage.strip().lower())
        if not m or not 1 <= int(m.group(1)) <= 10 or int(m.group(2)) not in (2, 3, *TABLE_DICE):
            raise TableError(
                _('{where}: damage {damage!r} is not dice like "1d8"; fix it', where=where, damage=row.damage)
            )
        weapon: dict[str, Any] = {
            "kind": row.kind,
            "count": int(m.group(1)),
            "sides": int(m.group(2)),
            "autofire": row.autofire,
        }
        if row.kind == "ranged":
            if row.range is None:
                raise TableError(
                    _("{where}: a ranged weapon needs range = METRES (its optimal range)", where=where)
                )
            weapon["range"] = row.range
            if row.ammo is None or not row.ammo.strip():
                raise TableError(
                    _('{where}: a ranged weapon needs ammo = "RESOURCE" (its usage die)', where=where)
                )
            weapon["ammo"] = row.ammo.strip()
        elif row.autofire:
            raise TableError(_("{where}: a melee weapon cannot have autofire; drop it", where=where))
        out[name] = weapon
    return out


def _classes(
    classes: dict[str, CharacterClass], skills: dict[str, str], weapons: dict[str, Any]
) -> dict[str, Any]:
    out = {}
    for name, row in classes.items():
        where = f"class {name!r}"
        if len(row.talents) < 2:
            raise TableError(
                _(
                    "{where}: lists {count} talent(s); list at least two to choose from",
                    where=where,
                    count=len(row.talents),
                )
            )
        for w in row.weapons:
            if w not in weapons:
                raise TableError(
                    _("{where}: weapon {w!r} is not in [weapons]; add it or fix the name", where=where, w=w)
                )
        for s in row.skills:
            if s not in skills:
                raise TableError(
                    _("{where}: skill {s!r} is not in [skills]; add it or fix the name", where=where, s=s)
                )
        usage = {k: die_sides(v, f"{where} usage {k!r}", USAGE_DICE) for k, v in row.usage.items()}
        for talent, text in row.talents.items():
            _text(text, f"{where} talent {talent!r}")
        if row.label is not None:
            _text(row.label, f"{where} label")
        out[name] = {
            "label": name if row.label is None else _plain(row.label),
            "endurance": die_sides(row.endurance, f"{where} endurance", TABLE_DICE),
            "money": row.money,
            "armor": row.armor,
            "synthetic": row.synthetic,
            "weapons": list(row.weapons),
            "skills": list(row.skills),
            "usage": usage,
            "talents": {k: _plain(v) for k, v in row.talents.items()},
        }
    return out


def _roll_table(table: Rolled, name: str) -> dict[str, Any]:
    sides = die_sides(table.die, f"[{name}] die", TABLE_DICE)
    results = table.results
    if not results:
        raise TableError(
            _(
                "[{name}]: expected a non-empty table of entries; a d{sides} table needs entries 1 to {sides}",
                name=name,
                sides=sides,
            )
        )
    keys = sorted(results, key=lambda k: int(k) if k.isdigit() else -1)
    if keys != [str(i) for i in range(1, sides + 1)]:
        raise TableError(
            _(
                "[{name}] has entries {keys!r}; a d{sides} table needs entries 1 to {sides}",
                name=name,
                keys=keys,
                sides=sides,
            )
        )
    for k in keys:
        if not isinstance(results[k], str | dict):
            raise TableError(
                _(
                    "[{name}] entry {k} is {entry!r}; write the result as text in quotes",
                    name=name,
                    k=k,
                    entry=results[k],
                )
            )
        _text(results[k], f"[{name}] entry {k}")
    stored = {k: _plain(results[k]) for k in keys}
    model.remember(name, stored)
    return {"die": sides, "results": stored}


def _text(value: object, where: str) -> None:
    """A text in several languages names only languages the ledger speaks, each with text."""
    if isinstance(value, dict):
        if not value:
            raise TableError(
                _('{where}: an empty text; write it as "..." or {{ en = "...", es = "..." }}', where=where)
            )
        for lang, text in value.items():
            if lang not in LANGUAGES:
                raise TableError(
                    _(
                        "{where}: language {lang!r} is none of {languages}; name the text's language",
                        where=where,
                        lang=lang,
                        languages=", ".join(LANGUAGES),
                    )
                )
            if not isinstance(text, str) or not text.strip():
                raise TableError(
                    _("{where}: the {lang} text is empty; write it in quotes", where=where, lang=lang)
                )


def _plain(value: Text) -> Text:
    """A text as stored: a string as it is, several languages as a plain dict."""
    return dict(value) if isinstance(value, dict) else str(value)


def sample_texts() -> dict[str, dict[str, Any]]:
    """The sample rolled tables' entries (panic, traumas), by row, as the files give them."""
    samples = _parsed_samples()
    return {"panic": dict(samples.panic.results), "traumas": dict(samples.traumas.results)}


def _panic(table: Rolled) -> dict[str, Any]:
    rolled = _roll_table(table, "panic")
    trauma_from = _int(table.trauma_from, "[panic] trauma_from", 1, 100)
    return {**rolled, "trauma_from": trauma_from}


def listing(data: dict[str, Any]) -> list[Any]:
    """The d20 tables: panic and traumas as rolled; classes, skills, weapons and the rest to read."""

    def rolled(name: str, title: str) -> Any:
        table = data[name]
        dice = f"1d{table['die']}"
        return Table(name, title, ranged_rows(table["results"], dice, lambda v: (localized(v), {})), dice)

    def weapon(w: dict[str, Any]) -> str:
        dice = f"{w['count']}d{w['sides']}"
        kind = translate(KINDS.get(w["kind"], w["kind"]))
        if w.get("autofire"):
            return _("{kind}, {dice} damage, autofire", kind=kind, dice=dice)
        return _("{kind}, {dice} damage", kind=kind, dice=dice)

    def cls(c: dict[str, Any]) -> str:
        return _(
            "{label}: endurance {endurance}, armor {armor}, weapons {weapons}, skills {skills}, talents {talents}",
            label=localized(c.get("label", "")),
            endurance=c.get("endurance"),
            armor=c.get("armor"),
            weapons=", ".join(model.names(c.get("weapons", []))),
            skills=", ".join(model.names(c.get("skills", []))),
            talents=", ".join(model.names(c.get("talents", {}))),
        )

    return [
        rolled("panic", _("Panic")),
        rolled("traumas", _("Traumas")),
        Table("classes", _("Classes"), tuple(Row(n, cls(c), dict(c)) for n, c in data["classes"].items())),
        Table("skills", _("Skills"), tuple(Row(n, localized(text)) for n, text in data["skills"].items())),
        Table("weapons", _("Weapons"), tuple(Row(n, weapon(w), dict(w)) for n, w in data["weapons"].items())),
        Table(
            "difficulties",
            _("Difficulties (target on 1d20)"),
            tuple(Row(n, str(t), {"target": t}) for n, t in data["difficulties"].items()),
        ),
        Table(
            "modifiers",
            _("Attribute modifiers"),
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
            _("Levels"),
            tuple(
                Row(
                    str(lv["level"]),
                    _("attack {atq:+d}, instinct {ins:+d}", atq=lv["atq"], ins=lv["ins"]),
                    dict(lv),
                )
                for lv in data["levels"]
            ),
        ),
    ]


KINDS = {"melee": N_("melee"), "ranged": N_("ranged")}
"""A weapon's kind, in words."""
