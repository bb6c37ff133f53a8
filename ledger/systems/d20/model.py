"""What the d20 rules and the d20 fold both know: the game's words in the reader's language,
and what a player may type for them.

What is stored keeps its stable keys (``fue``, ``hard``, ``athletics``, ``veteran``); these
are their names as the Spanish rules write them (FUE, DES, CON, INT, SAB, CAR; PV, PC,
ATQ, INS; difícil) and as the English editions name them (STR, DEX, CON, INT, WIS, CHA;
HP, CP, ATK, INS; hard). docs/rulings/d20.md ("Words") says where an edition has no term.

A player types either language's word (``check FUE`` or ``check STR``, ``--dc difícil`` or
``--dc hard``); a word two languages read as two different terms is refused, naming both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ledger.i18n import LANGUAGES, N_, Readings, localized, translate
from ledger.text import read_term

ATTRIBUTE_NAMES = {
    "fue": N_("STR"),
    "des": N_("DEX"),
    "con": N_("CON"),
    "int": N_("INT"),
    "sab": N_("WIS"),
    "car": N_("CHA"),
}
"""Each attribute's short name (the sheet's, the rules'), by its stored key."""
ATTRIBUTE_WORDS = {
    "fuerza": "fue",
    "strength": "fue",
    "destreza": "des",
    "dexterity": "des",
    "constitucion": "con",
    "constitution": "con",
    "inteligencia": "int",
    "intelligence": "int",
    "sabiduria": "sab",
    "wisdom": "sab",
    "carisma": "car",
    "charisma": "car",
}
"""The attributes' full names in either language, read as their keys."""
ATTRIBUTES = Readings(terms=ATTRIBUTE_NAMES, aliases=ATTRIBUTE_WORDS)

HP, CALM, DEF, MOV, ATK, INS = N_("HP"), N_("CP"), N_("DEF"), N_("MOV"), N_("ATK"), N_("INS")
"""The sheet's abbreviations: hit points (PV), calm points (PC), defense, movement,
attack and instinct bonus."""

DIFFICULTY_NAMES = {
    "trivial": N_("trivial"),
    "easy": N_("easy"),
    "normal": N_("normal"),
    "hard": N_("hard"),
    "very-hard": N_("very-hard"),
    "heroic": N_("heroic"),
}
"""The sample difficulties' names (a table file's own names are read as they are written)."""

TERMS = {
    # skills (samples/d20/skills.toml)
    "athletics": N_("athletics"),
    "precision": N_("precision"),
    "technology": N_("technology"),
    "medicine": N_("medicine"),
    "piloting": N_("piloting"),
    "stealth": N_("stealth"),
    "perception": N_("perception"),
    "science": N_("science"),
    "command": N_("command"),
    "survival": N_("survival"),
    # classes (samples/d20/classes.toml)
    "marine": N_("marine"),
    "technician": N_("technician"),
    "scientist": N_("scientist"),
    "pilot": N_("pilot"),
    "synthetic": N_("synthetic"),
    # talents
    "veteran": N_("veteran"),
    "heavy-hands": N_("heavy-hands"),
    "point-man": N_("point-man"),
    "drill": N_("drill"),
    "jury-rig": N_("jury-rig"),
    "ducts": N_("ducts"),
    "scavenger": N_("scavenger"),
    "calm-hands": N_("calm-hands"),
    "analysis": N_("analysis"),
    "field-medic": N_("field-medic"),
    "detached": N_("detached"),
    "protocol": N_("protocol"),
    "hotshot": N_("hotshot"),
    "navigator": N_("navigator"),
    "cool-head": N_("cool-head"),
    "shortcut": N_("shortcut"),
    "tireless": N_("tireless"),
    "data-link": N_("data-link"),
    "three-laws": N_("three-laws"),
    "precise": N_("precise"),
    # weapons and supplies (samples/d20/weapons.toml, classes.toml)
    "unarmed": N_("unarmed"),
    "combat knife": N_("combat knife"),
    "plasma cutter": N_("plasma cutter"),
    "pistol": N_("pistol"),
    "pulse rifle": N_("pulse rifle"),
    "shotgun": N_("shotgun"),
    "smart gun": N_("smart gun"),
    "rifle rounds": N_("rifle rounds"),
    "pistol rounds": N_("pistol rounds"),
    "shells": N_("shells"),
    "smart rounds": N_("smart rounds"),
    "cutter fuel": N_("cutter fuel"),
    "fuel": N_("fuel"),
    "oxygen": N_("oxygen"),
    "rations": N_("rations"),
    "med supplies": N_("med supplies"),
}
"""The sample tables' keys (skills, classes, talents, weapons, supplies), each with its
English name: a key a table file adds is shown as it is written."""

MODES = {"short": N_("short burst"), "long": N_("long burst"), "full": N_("full auto")}
"""Automatic fire's modes (``--mode``)."""
RANGES = {"point-blank": N_("point-blank"), "optimal": N_("optimal"), "extreme": N_("extreme")}
"""The range bands (``--range``)."""
COVERS = {"none": N_("none"), "partial": N_("partial"), "total": N_("total")}
"""The cover (``--cover``)."""


def attribute_name(key: str) -> str:
    """An attribute's short name in the reader's language (``fue``: STR, FUE)."""
    return ATTRIBUTES.name(key) if key in ATTRIBUTE_NAMES else key.upper()


def name(key: str) -> str:
    """A table key (a skill, a class, a talent, a weapon, a supply) in the reader's language;
    a key of the user's own tables as it is written."""
    english = TERMS.get(key) or DIFFICULTY_NAMES.get(key)
    return translate(english) if english else key


def names(keys: Iterable[str]) -> list[str]:
    return [name(k) for k in keys]


read = read_term
"""A term typed in any language (:func:`ledger.text.read_term`)."""


def readings(keys: Iterable[str]) -> Readings:
    """The words for a table's keys in every language: the key itself, its English name and
    its name in each catalog (the sample's; a key of the user's own tables as it is)."""
    return Readings(terms={k: TERMS.get(k) or DIFFICULTY_NAMES.get(k) or k for k in keys})


def key_of(keys: Iterable[str], text: str, what: str) -> str | None:
    """The table key ``text`` names, in either language (None when it names none)."""
    return read(readings(list(keys)), text, what)


# --- texts a table gives in one language or several ----------------------------------------

Text = str | Mapping[str, str]
"""A table's text: a plain string, or ``{en = "...", es = "..."}``."""


def recorded(value: Text) -> str:
    """The text an event records for a table's entry: its English (the first given), so
    the same command records the same event in any language."""
    return localized(value, LANGUAGES[0])


_KNOWN: dict[tuple[str, str], list[Mapping[str, str]]] = {}
"""Every entry in several languages seen in a table (the samples, a campaign's tables),
by table and row, for :func:`reading`."""


_LOADED: list[bool] = []
"""Whether the sample tables' rows are in :data:`_KNOWN`."""


def remember(table: str, results: Mapping[str, Any]) -> None:
    """Note the entries of a rolled table that are given in several languages."""
    for row, value in results.items():
        if isinstance(value, Mapping):
            found = _KNOWN.setdefault((table, str(row)), [])
            if value not in found:
                found.append(dict(value))


def reading(table: str, row: object, text: str) -> str:
    """A recorded table result in the reader's language, when the table it came from has
    that row in several languages (looked up by table and row, matched by the recorded
    text in any of them); else the recorded text."""
    _samples()
    for value in _KNOWN.get((table, str(row)), ()):
        if text in value.values():
            return localized(value)
    return text


def reading_any(table: str, text: str) -> str:
    """A recorded text of ``table`` whose row is not recorded beside it (a trauma on the
    sheet), in the reader's language when some row of the table has it in several."""
    _samples()
    for (name, _row), values in _KNOWN.items():
        if name == table:
            for value in values:
                if text in value.values():
                    return localized(value)
    return text


def head(text: str) -> str:
    """A result's name, before its colon (``Paranoia: ...`` is ``Paranoia``)."""
    return text.split(":")[0]


def _samples() -> None:
    """The sample panic and traumas tables' rows (read from their files once)."""
    if _LOADED:
        return
    _LOADED.append(True)
    # lazy: the sample tables' files are read once, when a recorded text is first shown
    import tomllib
    from importlib import resources

    folder = resources.files("ledger.samples") / "d20"
    for table in ("panic", "traumas"):
        data = tomllib.loads((folder / f"{table}.toml").read_text(encoding="utf-8"))
        remember(table, {k: v for k, v in data.get(table, {}).items() if k.isdigit()})
