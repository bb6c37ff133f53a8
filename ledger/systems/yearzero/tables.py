"""The yearzero tables: critical injuries, sector Rot levels, night hours.

A tables file is TOML (see ``samples/yearzero/tables.toml``, sample content),
decoded into the typed :class:`Tables` once, when the campaign starts, and
embedded in the log as plain data, so replay never depends on the file. Keys a
file leaves out stay out of the stored tables (a missing optional key is
:data:`msgspec.UNSET`), so what a campaign stores is what its file said; a key
the tables do not know is refused, so a misspelt key cannot be silently ignored.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ledger.errors import EditTable, TableError
from ledger.i18n import _, localized, n_
from ledger.projections.yearzero.vocabulary import (
    SKILLS,
    SPECIALIST_SKILLS,
    remember_tables,
    split_sector,
    table_text,
    term,
)
from ledger.tables import browse
from ledger.tables import file as tablefile

SAMPLE = resources.files("ledger.samples") / "yearzero" / "tables.toml"

Hour = Annotated[int, Meta(ge=0, le=23)]
Level = Annotated[int, Meta(ge=0, le=99)]
Numbered = Annotated[str, Meta(pattern="^[0-9]+$")]
Text = str | dict[str, str]
"""A text of a table in one language, or in several (``{ en = "...", es = "..." }``)."""


def english(text: Any) -> str:
    """The text an event records of a table's text: its English (else its first language)."""
    return localized(text, "en") if isinstance(text, dict) else str(text)


class Table(msgspec.Struct, forbid_unknown_fields=True):
    """A table of the file: no key it does not name."""


class Settings(Table, kw_only=True):
    """Defaults of the campaign's settings (``--setting KEY=VALUE`` at start wins)."""

    start_hour: Hour | UnsetType = UNSET
    night_start: Hour | UnsetType = UNSET
    night_end: Hour | UnsetType = UNSET
    suit_sixes_to_absorb: Annotated[int, Meta(ge=1, le=10)] | UnsetType = UNSET
    max_hours: Annotated[int, Meta(ge=1, le=24 * 365)] | UnsetType = UNSET


class Zone(Table, kw_only=True):
    ark: str
    """The party's Rot-free home sector, like ``F8``."""

    def __post_init__(self) -> None:
        if split_sector(self.ark) is None:
            raise ValueError(
                _('ark should be a sector like "F8" (letters then a number), got {ark!r}', ark=self.ark)
            )


class RotLevel(Table, kw_only=True):
    name: Text | UnsetType = UNSET
    minutes_per_point: Annotated[int, Meta(ge=0, le=60 * 24 * 365)]
    """Minutes between Rot points while the party stays (0: no Rot)."""


class Injury(Table, kw_only=True):
    """A row of the 2d6 critical injuries."""

    name: Text
    lethal: bool | UnsetType = UNSET
    instant: bool | UnsetType = UNSET
    deadline_minutes: Annotated[int, Meta(ge=1, le=60 * 24 * 30)] | UnsetType = UNSET
    heal_days: Annotated[int, Meta(ge=0, le=365)] | UnsetType = UNSET
    effect: Text | UnsetType = UNSET

    def __post_init__(self) -> None:
        if not english(self.name).strip():
            raise ValueError(_("name should be a non-empty text"))
        if self.lethal is True and self.instant is not True and self.deadline_minutes is UNSET:
            raise ValueError(_("a lethal injury that does not kill at once needs deadline_minutes"))


class Tables(Table, kw_only=True):
    """A whole yearzero tables file."""

    sample: bool | UnsetType = UNSET
    settings: Settings | UnsetType = UNSET
    zone: Zone
    rot_levels: dict[Numbered, RotLevel]
    sector_rot: dict[str, Level]
    critical_injuries: dict[str, Injury]


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """The tables of ``path`` (the sample tables when None) as stored data, and their source."""
    source = Path(path) if path is not None else SAMPLE
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TableError(
            _("tables file {file!r} does not exist; give an existing TOML file", file=str(source))
        ) from None
    except UnicodeDecodeError as e:
        raise TableError(
            _(
                "tables file {file!r} is not UTF-8 text ({problem}); save it as UTF-8",
                file=str(source),
                problem=e,
            )
        ) from None
    tables = decode(text, str(source))
    data = msgspec.to_builtins(tables)
    remember_tables(data)
    if path is None:
        # A campaign keeps the sample's texts in English, as it always has (the sample logs
        # stay as they are); they read in Spanish from the sample file (vocabulary.table_text).
        data = in_english(data)
    return data, "sample" if path is None else str(source)


def in_english(data: Any) -> Any:
    """Stored tables with every text given in several languages kept in English alone."""
    if isinstance(data, dict):
        if data and all(isinstance(k, str) and len(k) == 2 for k in data) and "en" in data:
            return str(data["en"])
        return {k: in_english(v) for k, v in data.items()}
    return data


def check_stored(data: dict[str, Any]) -> None:
    """A campaign's stored tables, judged by the types and checks a table file is read
    with (:func:`decode`), and stored exactly so (``Rules.check_tables``)."""

    def store(tables: Tables, source: str) -> dict[str, Any]:
        _check(tables, source)
        return msgspec.to_builtins(tables)  # type: ignore[no-any-return]

    tablefile.check_stored(data, Tables, store, "yearzero")


def decode(text: str, source: str) -> Tables:
    """The typed tables of a file's text (:mod:`ledger.tables.file`), checked for what a type
    cannot say; a TableError naming the entry that is wrong."""
    tables = tablefile.decode(text, Tables, source)
    _check(tables, source)
    return tables


def _fail(source: str, where: str, expected: str, got: Any) -> TableError:
    table = where.strip("[]").split(".")[0]
    return TableError(
        _(
            "tables file {file!r}: {where} should be {expected}, got {got!r}",
            file=source,
            where=where,
            expected=expected,
            got=got,
        ),
        fix=EditTable(text=_("fix {where} of the tables file", where=where), table=table),
    )


def _check(tables: Tables, source: str) -> None:
    """What one entry cannot say alone: every row of each die, levels that exist."""
    missing = [str(n) for n in range(2, 13) if str(n) not in tables.critical_injuries]
    if missing:
        raise _fail(
            source, "[critical_injuries]", _("rows 2 to 12"), _("missing {rows}", rows=", ".join(missing))
        )
    if "0" not in tables.rot_levels:
        raise _fail(source, "[rot_levels]", _("a table with at least level 0"), sorted(tables.rot_levels))
    if sorted(tables.sector_rot) != [str(n) for n in range(1, 7)]:
        raise _fail(source, "[sector_rot]", _("rows 1 to 6"), sorted(tables.sector_rot))
    for key, level in tables.sector_rot.items():
        if str(level) not in tables.rot_levels:
            raise _fail(source, f"sector_rot.{key}", _("a level listed in [rot_levels]"), level)


def listing(data: dict[str, Any]) -> list[Any]:
    """Year Zero's tables: sector Rot (1d6), critical injuries (2d6), Rot levels and skills."""
    levels = data["rot_levels"]

    def rot(value: Any) -> tuple[str, dict[str, Any]]:
        name = levels.get(str(value), {}).get("name", "")
        if name:
            return _("Rot level {level} ({name})", level=value, name=shown("rot_levels", "name", name)), {
                "rot_level": value
            }
        return _("Rot level {level}", level=value), {"rot_level": value}

    def injury(value: Any) -> tuple[str, dict[str, Any]]:
        if value.get("instant"):
            when = _("dies at once")
        elif value.get("lethal"):
            when = _("lethal in {minutes} minutes unless healed", minutes=value.get("deadline_minutes"))
        else:
            when = _("not lethal")
        name = shown("critical_injuries", "name", value["name"])
        effect = shown("critical_injuries", "effect", value.get("effect", ""))
        if value.get("heal_days"):
            days = n_("{n} day", "{n} days", value["heal_days"])
            line = _(
                "{name}: {when}, heals in {days}. {effect}", name=name, when=when, days=days, effect=effect
            )
        else:
            line = _("{name}: {when}. {effect}", name=name, when=when, effect=effect)
        return line.strip(), dict(value)

    def every(minutes: int) -> str:
        if not minutes:
            return _("no Rot")
        if minutes % 1440 == 0:
            return n_("a Rot point every day", "a Rot point every {n} days", minutes // 1440)
        if minutes % 60 == 0:
            return n_("a Rot point every hour", "a Rot point every {n} hours", minutes // 60)
        return n_("a Rot point every minute", "a Rot point every {n} minutes", minutes)

    def level_line(level: str, row: dict[str, Any]) -> str:
        name = (
            shown("rot_levels", "name", row["name"]) if row.get("name") else _("level {level}", level=level)
        )
        return _("{name}: {every}", name=name, every=every(row["minutes_per_point"]))

    def skill_line(skill: str, attribute: str) -> str:
        if skill in SPECIALIST_SKILLS:
            return _("{attribute} (specialist: nobody can help)", attribute=term(attribute))
        return term(attribute)

    return [
        browse.Table(
            "sector_rot", _("A sector's Rot level"), browse.ranged_rows(data["sector_rot"], "1d6", rot), "1d6"
        ),
        browse.Table(
            "critical_injuries",
            _("Critical injuries"),
            browse.ranged_rows(data["critical_injuries"], "2d6", injury),
            "2d6",
        ),
        browse.Table(
            "rot_levels",
            _("Rot levels"),
            tuple(browse.Row(level, level_line(level, row), dict(row)) for level, row in levels.items()),
        ),
        browse.Table(
            "skills",
            _("Skills and their attributes"),
            tuple(
                browse.Row(
                    skill,
                    skill_line(skill, attribute),
                    {"attribute": attribute, "specialist": skill in SPECIALIST_SKILLS},
                )
                for skill, attribute in SKILLS.items()
            ),
        ),
    ]


def shown(table: str, field: str, value: Any) -> str:
    """A table's text in the reader's language: the one it gives in that language, or the
    one its row gives in the sample tables (:func:`table_text`), else as it is."""
    if isinstance(value, dict):
        return localized(value)
    return table_text(table, field, str(value)) if value else ""


def check_settings(given: dict[str, Any]) -> dict[str, Any]:
    """``--setting KEY=VALUE`` values, checked against the ``[settings]`` table's keys and
    values (docs/rulings/yearzero.md): a campaign's settings win over its tables'."""
    return tablefile.settings(given, Settings, "yearzero")
