"""What the d100 rules and the d100 fold both know: the characteristics, the points a
character has, how skill names are matched, the rounding the rules use, and the game's
words in the reader's language (what a player may type for them).

Plain constants and pure helpers, importing nothing of the system: the fold
(``ledger.projections.d100.state``) reads them without importing the decide side.
"""

from __future__ import annotations

import unicodedata

from ledger.i18n import LANGUAGES, N_, Readings, _, p_, translate, using
from ledger.text import read_term

CHARACTERISTICS = ("TAM", "CON", "FUE", "INT", "EDU", "DES", "CAR", "POD")
POINTS = ("hp", "valor", "fatigue", "luck")


def fold(name: str) -> str:
    """A skill name for matching: no accents, no case, ``_``/``-`` as spaces."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return " ".join(plain.replace("_", " ").replace("-", " ").lower().split())


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --- the game's words ------------------------------------------------------------------
# The d100's game words in the reader's language, and what a player may type for them.
#
# Stored keys stay as they are: the characteristics (``TAM``, ``FUE``, ``DES``...), the
# success levels (``fumble``, ``special``...), the points (``hp``, ``valor``...) and the
# skills, by the names their table gives them. Shown, the characteristics are the Spanish
# rules' TAM, CON, FUE, INT, EDU, DES, CAR, POD or the English editions' SIZ, CON, STR, INT,
# EDU, DEX, CHA, POW; the levels pifia, fallo, éxito, éxito especial, éxito crítico or fumble,
# failure, success, special, critical. A player types either language's word (``DEX=12`` or
# ``DES=12``; ``test Climb`` or ``test Trepar``); docs/rulings/d100.md ("Words") says where an
# edition has no term.

CHARACTERISTIC_NAMES = {
    "TAM": N_("SIZ"),
    "CON": N_("CON"),
    "FUE": N_("STR"),
    "INT": N_("INT"),
    "EDU": N_("EDU"),
    "DES": N_("DEX"),
    "CAR": N_("CHA"),
    "POD": N_("POW"),
}
"""Each characteristic's short name, by its stored key (the Spanish rules')."""
CHARACTERISTIC_READINGS = Readings(terms=CHARACTERISTIC_NAMES)
"""Short forms only: a named test (Fuerza, Carisma) keeps its full name."""

LEVEL_NAMES = {
    "fumble": N_("fumble"),
    "failure": N_("failure"),
    "success": N_("success"),
    "special": N_("special"),
    "critical": N_("critical"),
}
"""The success levels (``Tested.level``), worst to best."""
LEVELS = Readings(terms=LEVEL_NAMES)

POINT_NAMES = {"hp": N_("hp"), "valor": N_("valor"), "fatigue": N_("fatigue"), "luck": N_("luck")}
"""The points a character has (hit, valor, fatigue and luck points)."""
POINT_READINGS = Readings(terms=POINT_NAMES)

STATES = {
    "ok": N_("ok"),
    "dead": N_("dead"),
    "dying": N_("dying"),
    "unconscious": N_("unconscious"),
    "panic": N_("panic"),
    "exhausted": N_("exhausted"),
    "unconscious_risk": N_("unconscious_risk"),
}
"""A character's states (``state``, ``conditions`` on the sheet)."""

SKILL_CONTEXT = "d100 skill"
"""The catalog context of the skills' names (one English word, another sense elsewhere)."""


def _skill_names() -> dict[str, str]:
    """The sample's skills and tests by their table names, in the English editions' words
    (marked for the catalog under :data:`SKILL_CONTEXT`; the Spanish ones are the catalog's)."""
    with using(LANGUAGES[0]):
        return {
            "Actuar": p_("d100 skill", "Perform"),
            "Apostar": p_("d100 skill", "Gamble"),
            "Arrojar": p_("d100 skill", "Throw"),
            "Arte": p_("d100 skill", "Art"),
            "Arte Marcial": p_("d100 skill", "Martial Arts"),
            "Artesanía": p_("d100 skill", "Craft"),
            "Artimañas": p_("d100 skill", "Sleight of Hand"),
            "Camuflar": p_("d100 skill", "Camouflage"),
            "Charlatanería": p_("d100 skill", "Fast Talk"),
            "Ciencia": p_("d100 skill", "Science"),
            "Conducir": p_("d100 skill", "Drive"),
            "Conocimiento": p_("d100 skill", "Knowledge"),
            "Disfraz": p_("d100 skill", "Disguise"),
            "Divisar": p_("d100 skill", "Spot"),
            "Enseñar": p_("d100 skill", "Teach"),
            "Esconderse": p_("d100 skill", "Hide"),
            "Escuchar": p_("d100 skill", "Listen"),
            "Esquivar": p_("d100 skill", "Dodge"),
            "Estatus": p_("d100 skill", "Status"),
            "Explosivos": p_("d100 skill", "Demolition"),
            "Idioma": p_("d100 skill", "Language"),
            "Investigar": p_("d100 skill", "Research"),
            "Lanzar": p_("d100 skill", "Sling"),
            "Literatura": p_("d100 skill", "Literature"),
            "Mando": p_("d100 skill", "Command"),
            "Manitas": p_("d100 skill", "Fine Manipulation"),
            "Medicina": p_("d100 skill", "Medicine"),
            "Montar": p_("d100 skill", "Ride"),
            "Nadar": p_("d100 skill", "Swim"),
            "Navegar": p_("d100 skill", "Navigate"),
            "Perspicacia": p_("d100 skill", "Insight"),
            "Persuadir": p_("d100 skill", "Persuade"),
            "Pilotar": p_("d100 skill", "Pilot"),
            "Primeros auxilios": p_("d100 skill", "First Aid"),
            "Psicoterapia": p_("d100 skill", "Psychotherapy"),
            "Rastrear": p_("d100 skill", "Track"),
            "Regatear": p_("d100 skill", "Bargain"),
            "Reparar": p_("d100 skill", "Repair"),
            "Saltar": p_("d100 skill", "Jump"),
            "Sentir": p_("d100 skill", "Sense"),
            "Tecnología": p_("d100 skill", "Technology"),
            "Trepar": p_("d100 skill", "Climb"),
            "Valuar": p_("d100 skill", "Appraise"),
            "Volar": p_("d100 skill", "Fly"),
            "Pelea": p_("d100 skill", "Brawl"),
            "Armas cortas": p_("d100 skill", "Handgun"),
            "Armas de fuego": p_("d100 skill", "Firearms"),
            "Resistencia": p_("d100 skill", "Stamina roll"),
            "Fuerza": p_("d100 skill", "Effort roll"),
            "Idea": p_("d100 skill", "Idea roll"),
            "Conocimientos Generales": p_("d100 skill", "Know roll"),
            "Agilidad": p_("d100 skill", "Agility roll"),
            "Carisma": p_("d100 skill", "Charisma roll"),
        }


SKILL_NAMES = _skill_names()
"""The sample's skills and tests (named in Spanish, as the rules name them), each with the
English editions' name: a player may type either (a table's own skill as it is written)."""
SKILLS = Readings(terms=SKILL_NAMES, context=SKILL_CONTEXT)


ACTIONS = {"Apuntar": N_("Aim"), "Salir": N_("Withdraw")}
"""The combat round's actions that are no skill (the rules' Apuntar and Salir)."""
DEFENSES = {"esquivar": N_("dodge"), "bloquear": N_("block")}
"""How a character defends in a round (``--defend``), by its stored key."""


def skill(name: str) -> str:
    """A skill, test or round action recorded by its table name, in the reader's language
    (``Trepar``: Climb, Trepar); a specialisation keeps its own words (``Arte (Pintura)``:
    Art (Pintura)); a table's own skill as it is written."""
    if name in SKILL_NAMES:
        return translate(SKILL_NAMES[name], SKILL_CONTEXT)
    if name in ACTIONS:
        return translate(ACTIONS[name])
    family, sep, rest = name.partition(" (")
    english = SKILL_NAMES.get(family)
    if english and sep:
        return f"{translate(english, SKILL_CONTEXT)} ({rest}"
    return name


def action_key(text: str) -> str:
    """A round's action typed in either language, as stored: a sample skill by its table
    name, Aim and Withdraw as Apuntar and Salir, anything else as typed."""
    for key, english in ACTIONS.items():
        if Readings(terms={key: english}).read(text):
            return key
    return skill_key(text)


def defense_key(text: str) -> str:
    """``dodge``/``block`` (or the Spanish ``esquivar``/``bloquear``) as stored."""
    return read(Readings(terms=DEFENSES), text, _("defence")) or text


def characteristic(key: str) -> str:
    """A characteristic's short name in the reader's language (``DES``: DEX, DES)."""
    return CHARACTERISTIC_READINGS.name(key) if key in CHARACTERISTIC_NAMES else key


def tested(what: str) -> str:
    """What a test recorded it tested, in the reader's language: a characteristic times a
    multiple (``DESx5``: DEXx5) in the language's short form, a skill by :func:`skill`."""
    head, sep, times = what.rpartition("x")
    if sep and head in CHARACTERISTIC_NAMES and times.isdigit():
        return f"{characteristic(head)}x{times}"
    return skill(what)


MODIFIERS = {
    "double": N_("double"),
    "half": N_("half"),
    "aimed after aiming": N_("aimed after aiming"),
    "aimed (half)": N_("aimed (half)"),
}
"""What changed a test's target, as ``Tested.modifiers`` records it."""


def modifier(text: str) -> str:
    """A recorded modifier of a test's target in the reader's language (``target 50``,
    ``steady +20``, ``double``...)."""
    english = MODIFIERS.get(text)
    if english:
        return translate(english)
    head, _sep, number = text.rpartition(" ")
    if head == "target":
        return _("target {target}", target=number)
    if head == "steady":
        return _("steady {bonus}", bonus=number)
    return text


def level(key: str) -> str:
    """A success level in the reader's language (``special``: special, éxito especial)."""
    english = LEVEL_NAMES.get(key)
    return translate(english) if english else key


OPTIONS = {"run": N_("run"), "half-run": N_("half-run"), "actions": N_("actions")}
"""A combat round's options (``RoundDeclared.option``)."""


CAUSES = {"wound": N_("wound"), "horror": N_("horror"), "exertion": N_("exertion")}
"""The causes a command records when none is given (``--cause``'s defaults)."""


def cause(text: str) -> str:
    """A recorded cause in the reader's language: a default one translated, a given one
    as the player wrote it."""
    english = CAUSES.get(text)
    return translate(english) if english else text


def option(key: str) -> str:
    english = OPTIONS.get(key)
    return translate(english) if english else key


def state(key: str) -> str:
    english = STATES.get(key)
    return translate(english) if english else key


def point(key: str) -> str:
    english = POINT_NAMES.get(key)
    return translate(english) if english else key


read = read_term
"""A term typed in any language (:func:`ledger.text.read_term`)."""


def characteristic_key(text: str) -> str | None:
    """The characteristic ``text`` names in either language (``DEX``, ``DES``, ``destreza``)."""
    return read(CHARACTERISTIC_READINGS, text, _("characteristic"))


def skill_key(text: str) -> str:
    """The sample's skill ``text`` names in English (``Climb``: ``Trepar``), else ``text``."""
    found = read(SKILLS, text, _("skill"))
    if found:
        return found
    family, sep, rest = text.partition(" (")
    found = read(SKILLS, family, _("skill")) if sep else None
    return f"{found} ({rest}" if found else text
