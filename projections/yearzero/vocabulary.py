"""The yearzero words a character, a roll and the Zone are written in: the four
attributes and their trauma, the skills and their aliases (English and Spanish), the
gear slots, the conditions, the day and its clock, and a sector's name on the map."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ledger import i18n
from ledger.errors import RuleError
from ledger.i18n import _, p_

CONTEXT = "yearzero"
"""The catalog context of the game's words (one English word, another sense elsewhere)."""

ATTRIBUTES = ("strength", "agility", "wits", "empathy")
TRAUMA = {"damage": "strength", "fatigue": "agility", "confusion": "wits", "doubt": "empathy"}
KIND_OF = {attr: kind for kind, attr in TRAUMA.items()}
ATTRIBUTE_ALIASES = {
    "strength": "strength",
    "str": "strength",
    "fortaleza": "strength",
    "fuerza": "strength",
    "agility": "agility",
    "agi": "agility",
    "destreza": "agility",
    "wits": "wits",
    "wit": "wits",
    "intelecto": "wits",
    "empathy": "empathy",
    "emp": "empathy",
    "empatia": "empathy",
    "empatía": "empathy",
}
BASIC_SKILLS = {
    "endure": "strength",
    "force": "strength",
    "fight": "strength",
    "sneak": "agility",
    "move": "agility",
    "shoot": "agility",
    "scout": "wits",
    "comprehend": "wits",
    "know_the_zone": "wits",
    "sense_emotion": "empathy",
    "manipulate": "empathy",
    "heal": "empathy",
}
SPECIALIST_SKILLS = {
    "intimidate": "strength",
    "jury_rig": "wits",
    "find_the_path": "wits",
    "make_a_deal": "empathy",
    "sic_a_dog": "agility",
    "inspire": "empathy",
    "command": "wits",
    "shake_it_off": "strength",
}
SKILLS = {**BASIC_SKILLS, **SPECIALIST_SKILLS}
SKILL_ALIASES = {
    "resistir": "endure",
    "forzar": "force",
    "luchar": "fight",
    "escabullirse": "sneak",
    "moverse": "move",
    "disparar": "shoot",
    "otear": "scout",
    "comprender": "comprehend",
    "conocer_la_zona": "know_the_zone",
    "percibir_emociones": "sense_emotion",
    "manipular": "manipulate",
    "curar": "heal",
    "intimidar": "intimidate",
    "hacer_un_apano": "jury_rig",
    "hacer_un_apaño": "jury_rig",
    "encontrar_el_camino": "find_the_path",
}


def _english() -> dict[str, dict[str, str]]:
    """The game's words by their stored keys, in the English edition's words (each marked
    for the catalog under the ``yearzero`` context; the Spanish ones are the catalog's)."""
    return {
        "attributes": {
            "strength": p_("yearzero", "Strength"),
            "agility": p_("yearzero", "Agility"),
            "wits": p_("yearzero", "Wits"),
            "empathy": p_("yearzero", "Empathy"),
        },
        "skills": {
            "endure": p_("yearzero", "Endure"),
            "force": p_("yearzero", "Force"),
            "fight": p_("yearzero", "Fight"),
            "sneak": p_("yearzero", "Sneak"),
            "move": p_("yearzero", "Move"),
            "shoot": p_("yearzero", "Shoot"),
            "scout": p_("yearzero", "Scout"),
            "comprehend": p_("yearzero", "Comprehend"),
            "know_the_zone": p_("yearzero", "Know the Zone"),
            "sense_emotion": p_("yearzero", "Sense Emotion"),
            "manipulate": p_("yearzero", "Manipulate"),
            "heal": p_("yearzero", "Heal"),
            "intimidate": p_("yearzero", "Intimidate"),
            "jury_rig": p_("yearzero", "Jury-Rig"),
            "find_the_path": p_("yearzero", "Find the Path"),
            "make_a_deal": p_("yearzero", "Make a Deal"),
            "sic_a_dog": p_("yearzero", "Sic a Dog"),
            "inspire": p_("yearzero", "Inspire"),
            "command": p_("yearzero", "Command"),
            "shake_it_off": p_("yearzero", "Shake It Off"),
        },
        "trauma": {
            "damage": p_("yearzero", "damage"),
            "fatigue": p_("yearzero", "fatigue"),
            "confusion": p_("yearzero", "confusion"),
            "doubt": p_("yearzero", "doubt"),
        },
        "conditions": {
            "hungry": p_("yearzero", "hungry"),
            "thirsty": p_("yearzero", "thirsty"),
            "sleepless": p_("yearzero", "sleepless"),
            "hypothermic": p_("yearzero", "hypothermic"),
        },
        "slots": {
            "armor": p_("yearzero", "armor"),
            "shield": p_("yearzero", "shield"),
            "suit": p_("yearzero", "suit"),
            "gear": p_("yearzero", "gear"),
        },
        # what a roll is for, a ration and its use, a rest: words events hold as keys
        "other": {
            "skill": p_("yearzero", "skill"),
            "attribute": p_("yearzero", "attribute"),
            "repair": p_("yearzero", "repair"),
            "cold": p_("yearzero", "cold"),
            "heal": p_("yearzero", "heal"),
            "grub": p_("yearzero", "grub"),
            "water": p_("yearzero", "water"),
            "need": p_("yearzero", "need"),
            "lifts": p_("yearzero", "lifts"),
            "recovery": p_("yearzero", "recovery"),
            "sleep": p_("yearzero", "sleep"),
            "rest": p_("yearzero", "rest"),
        },
    }


with i18n.using("en"):
    _WORDS = _english()
ATTRIBUTE_NAMES = _WORDS["attributes"]
SKILL_NAMES = _WORDS["skills"]
TRAUMA_NAMES = _WORDS["trauma"]
CONDITION_NAMES = _WORDS["conditions"]
SLOT_NAMES = _WORDS["slots"]
OTHER_WORDS = _WORDS["other"]
ROLLABLE = i18n.Readings(
    terms={**SKILL_NAMES, **ATTRIBUTE_NAMES},
    context=CONTEXT,
    aliases={**SKILL_ALIASES, **{k: v for k, v in ATTRIBUTE_ALIASES.items() if k not in ATTRIBUTES}},
)
"""Every word a player may type for a skill or an attribute, in either language."""
TRAUMA_WORDS = i18n.Readings(terms=TRAUMA_NAMES, context=CONTEXT)
"""Every word a player may type for a kind of trauma (``damage``, ``daño``)."""

SLOTS = ("armor", "shield", "suit")
CONDITIONS = ("hungry", "thirsty", "sleepless", "hypothermic")
DAY = 24 * 60


def skill_name(text: str) -> str | None:
    """The skill a stored attribute key names (``skill.NAME``), read as it always was (the
    keys and the aliases above, never a catalog: a campaign replays the same in every
    language and with every catalog); new words are stored as keys (:func:`stored_key`)."""
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    key = SKILL_ALIASES.get(key, key)
    return key if key in SKILLS else None


def attribute_name(text: str) -> str | None:
    """The attribute a stored attribute key names, read as it always was (:func:`skill_name`)."""
    return ATTRIBUTE_ALIASES.get(text.strip().lower())


def read_rollable(text: str) -> str | None:
    """The skill or attribute key a player's word means, in either language (``disparar``,
    ``shoot``, ``Hacer un apaño``, ``str``); None when it means none. A word that two
    languages read as two terms is refused, naming both readings."""
    found = ROLLABLE.read(text)
    if len(found) > 1:
        readings = ", ".join(
            _("{name} ({language})", name=term_name(key), language=i18n.NAMES.get(lang) or _("alias"))
            for key, lang in sorted(found.items())
        )
        raise RuleError(
            _(
                "{word!r} is ambiguous: it reads as {readings}; type the key instead",
                word=text,
                readings=readings,
            )
        )
    return next(iter(found), None)


def read_trauma(text: str) -> str | None:
    """The kind of trauma a player's word means, in either language (``daño``, ``damage``)."""
    found = TRAUMA_WORDS.read(text)
    if len(found) > 1:
        readings = ", ".join(trauma_word(key) for key in sorted(found))
        raise RuleError(_("{word!r} is ambiguous: it reads as {readings}", word=text, readings=readings))
    return next(iter(found), None)


def stored_key(prefix: str, text: str) -> str | None:
    """The stable key to store for ``skill.TEXT`` or an attribute ``TEXT`` a player typed
    in words the stored-key readers (:func:`skill_name`, :func:`attribute_name`) do not
    know (``skill.hacer_un_trato`` is stored as ``skill.make_a_deal``); None when they
    already read it, or it names no term."""
    if prefix == "skill":
        if skill_name(text):
            return None
        key = read_rollable(text)
        return key if key in SKILLS else None
    if attribute_name(text):
        return None
    key = read_rollable(text)
    return key if key in ATTRIBUTES else None


def term_name(key: str) -> str:
    """A skill's or an attribute's name in the language of the moment (``Jury-Rig``,
    ``Hacer un apaño``); the key itself when it is neither."""
    return ROLLABLE.name(key)


def term(key: str) -> str:
    """A skill or an attribute as a sentence names it: English writes it in lower case as it
    always has (``rolls shoot``, ``jury-rig``), other languages as their rulebooks do."""
    if key not in ROLLABLE.terms:
        return key
    name = ROLLABLE.name(key)
    return name.lower() if i18n.language() == i18n.LANGUAGES[0] else name


def trauma_word(key: str) -> str:
    """A kind of trauma in the language of the moment (``damage``, ``daño``)."""
    return i18n.translate(TRAUMA_NAMES[key], CONTEXT) if key in TRAUMA_NAMES else key


def condition_word(key: str) -> str:
    """A condition in the language of the moment (``hungry``, ``hambriento``)."""
    return i18n.translate(CONDITION_NAMES[key], CONTEXT) if key in CONDITION_NAMES else key


def slot_word(key: str) -> str:
    """An item's kind in the language of the moment (``armor``, ``armadura``)."""
    return i18n.translate(SLOT_NAMES[key], CONTEXT) if key in SLOT_NAMES else key


def word(key: str) -> str:
    """Another stored key in the language of the moment (a roll's purpose, a resource)."""
    return i18n.translate(OTHER_WORDS[key], CONTEXT) if key in OTHER_WORDS else key


def clock(minute: int) -> dict[str, Any]:
    return {
        "day": minute // DAY,
        "hour": (minute % DAY) // 60,
        "minute": minute % 60,
        "text": p_(
            "yearzero clock",
            "day {day} {hour:02d}:{minute:02d}",
            day=minute // DAY,
            hour=(minute % DAY) // 60,
            minute=minute % 60,
        ),
    }


def split_sector(sector: str) -> tuple[int, int] | None:
    """``C7`` -> (column 2, row 7); None when it is not a letter-number sector."""
    letters = "".join(ch for ch in sector if ch.isalpha())
    digits = sector[len(letters) :]
    if not letters or not digits.isdigit() or not sector.startswith(letters):
        return None
    col = 0
    for ch in letters.upper():
        col = col * 26 + (ord(ch) - ord("A") + 1)
    return col - 1, int(digits)


# --- texts events hold: causes, sources, activities, table results ----------------------


def _causes() -> tuple[str, ...]:
    """The causes, sources and activities the rules write into events, in English (marked
    for the catalog under ``yearzero cause``): events keep them as they are, the reader
    reads them in their language (:func:`said`)."""
    return (
        p_("yearzero cause", "attack"),
        p_("yearzero cause", "harm"),
        p_("yearzero cause", "cold"),
        p_("yearzero cause", "booze"),
        p_("yearzero cause", "booze wears off"),
        p_("yearzero cause", "rot"),
        p_("yearzero cause", "hunger"),
        p_("yearzero cause", "thirst"),
        p_("yearzero cause", "no sleep"),
        p_("yearzero cause", "got up"),
        p_("yearzero cause", "rest"),
        p_("yearzero cause", "sleep"),
        p_("yearzero cause", "healed"),
        p_("yearzero cause", "exposure"),
        p_("yearzero cause", "decontamination"),
        p_("yearzero cause", "washing"),
        p_("yearzero cause", "time passes"),
        p_("yearzero cause", "contaminated grub"),
        p_("yearzero cause", "contaminated water"),
        p_("yearzero cause", "broken by damage while hypothermic"),
        p_("yearzero cause", "broken by damage while hungry"),
        p_("yearzero cause", "broken while thirsty"),
    )


with i18n.using("en"):
    CAUSES = frozenset(_causes())


def _patterns() -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]:
    return [
        (
            re.compile(r"^critical injury: (?P<name>.+)$"),
            lambda m: _("critical injury: {name}", name=table_text("critical_injuries", "name", m["name"])),
        ),
        (
            re.compile(r"^sector (?P<sector>\S+), Rot level (?P<level>\d+)$"),
            lambda m: _("sector {sector}, Rot level {level}", sector=m["sector"], level=m["level"]),
        ),
        (re.compile(r"^exploring (?P<sector>.+)$"), lambda m: _("exploring {sector}", sector=m["sector"])),
        (
            re.compile(r"^passing through (?P<sector>.+)$"),
            lambda m: _("passing through {sector}", sector=m["sector"]),
        ),
        (re.compile(r"^repairing (?P<item>.+)$"), lambda m: _("repairing {item}", item=m["item"])),
    ]


def said(text: str) -> str:
    """A cause, source or activity an event holds (in English, as the rules wrote it) in the
    language of the moment; a text a player wrote (a Rot source) stays as written."""
    if text in CAUSES:
        return i18n.translate(text, "yearzero cause")
    if i18n.language() == i18n.LANGUAGES[0]:
        return text
    for pattern, words in _patterns():
        m = pattern.match(text)
        if m:
            return words(m)
    return text


_TABLE_TEXTS: dict[tuple[str, str, str], dict[str, str]] = {}
"""Texts of tables given in several languages, by (table, field, English text): what a
result recorded in English reads as in another language."""
_SAMPLE_READ: list[bool] = []


_SEEN: dict[int, Mapping[str, Any]] = {}


def remember_tables(tables: Mapping[str, Any]) -> None:
    """Keep the texts of a campaign's tables that are given in several languages (a row's
    ``{ en = "...", es = "..." }``), so that a result recorded from them reads in the
    reader's language (:func:`table_text`). Each campaign's tables are read once."""
    if _SEEN.get(id(tables)) is tables:
        return
    _SEEN[id(tables)] = tables
    for table in ("critical_injuries", "rot_levels"):
        rows = tables.get(table)
        if not isinstance(rows, Mapping):
            continue
        for row in rows.values():
            if not isinstance(row, Mapping):
                continue
            for field, value in row.items():
                if isinstance(value, Mapping) and value.get("en"):
                    _TABLE_TEXTS.setdefault((table, field, str(value["en"])), dict(value))


def table_text(table: str, field: str, recorded: str) -> str:
    """A table's text recorded in an event (the English of a row given in several languages,
    or the only text of a row given in one) in the language of the moment: the row's text in
    that language when its table gives it, else the text as recorded."""
    if not _SAMPLE_READ:
        _SAMPLE_READ.append(True)
        # lazy: the sample tables' file (trusted package data), read once when a result is
        import tomllib  # read; the fold imports no rules module (ledger.systems.yearzero.tables)
        from importlib import resources

        sample = resources.files("ledger.samples") / "yearzero" / "tables.toml"
        remember_tables(tomllib.loads(sample.read_text(encoding="utf-8")))
    found = _TABLE_TEXTS.get((table, field, recorded))
    return i18n.localized(found) if found else recorded
