"""What the d100 rules and the d100 fold both know: the characteristics, the points a
character has, how skill names are matched, the rounding the rules use, and the game's
words in the reader's language (what a player may type for them).

Plain constants and pure helpers, importing nothing of the system: the fold
(``ledger.projections.d100.state``) reads them without importing the decide side.
"""

from __future__ import annotations

import unicodedata

from ledger.errors import RuleError
from ledger.i18n import N_, NAMES, Readings, _, translate

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

SKILL_NAMES = {
    "Actuar": N_("Perform"),
    "Apostar": N_("Gamble"),
    "Arrojar": N_("Throw"),
    "Arte": N_("Art"),
    "Arte Marcial": N_("Martial Arts"),
    "Artesanía": N_("Craft"),
    "Artimañas": N_("Sleight of Hand"),
    "Camuflar": N_("Camouflage"),
    "Charlatanería": N_("Fast Talk"),
    "Ciencia": N_("Science"),
    "Conducir": N_("Drive"),
    "Conocimiento": N_("Knowledge"),
    "Disfraz": N_("Disguise"),
    "Divisar": N_("Spot"),
    "Enseñar": N_("Teach"),
    "Esconderse": N_("Hide"),
    "Escuchar": N_("Listen"),
    "Esquivar": N_("Dodge"),
    "Estatus": N_("Status"),
    "Explosivos": N_("Demolition"),
    "Idioma": N_("Language"),
    "Investigar": N_("Research"),
    "Lanzar": N_("Sling"),
    "Literatura": N_("Literature"),
    "Mando": N_("Command"),
    "Manitas": N_("Fine Manipulation"),
    "Medicina": N_("Medicine"),
    "Montar": N_("Ride"),
    "Nadar": N_("Swim"),
    "Navegar": N_("Navigate"),
    "Perspicacia": N_("Insight"),
    "Persuadir": N_("Persuade"),
    "Pilotar": N_("Pilot"),
    "Primeros auxilios": N_("First Aid"),
    "Psicoterapia": N_("Psychotherapy"),
    "Rastrear": N_("Track"),
    "Regatear": N_("Bargain"),
    "Reparar": N_("Repair"),
    "Saltar": N_("Jump"),
    "Sentir": N_("Sense"),
    "Tecnología": N_("Technology"),
    "Trepar": N_("Climb"),
    "Valuar": N_("Appraise"),
    "Volar": N_("Fly"),
    "Pelea": N_("Brawl"),
    "Armas cortas": N_("Handgun"),
    "Armas de fuego": N_("Firearms"),
    "Resistencia": N_("Stamina"),
    "Fuerza": N_("Strength"),
    "Idea": N_("Idea"),
    "Conocimientos Generales": N_("General Knowledge"),
    "Agilidad": N_("Agility"),
    "Carisma": N_("Charisma"),
}
"""The sample's skills and tests (named in Spanish, as the rules name them), each with the
English editions' name: a player may type either (a table's own skill as it is written)."""
SKILLS = Readings(terms=SKILL_NAMES)


ACTIONS = {"Apuntar": N_("Aim"), "Salir": N_("Withdraw")}
"""The combat round's actions that are no skill (the rules' Apuntar and Salir)."""
DEFENSES = {"esquivar": N_("dodge"), "bloquear": N_("block")}
"""How a character defends in a round (``--defend``), by its stored key."""


def skill(name: str) -> str:
    """A skill, test or round action recorded by its table name, in the reader's language
    (``Trepar``: Climb, Trepar); a specialisation keeps its own words (``Arte (Pintura)``:
    Art (Pintura)); a table's own skill as it is written."""
    english = SKILL_NAMES.get(name) or ACTIONS.get(name)
    if english:
        return translate(english)
    family, sep, rest = name.partition(" (")
    english = SKILL_NAMES.get(family)
    if english and sep:
        return f"{translate(english)} ({rest}"
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


def option(key: str) -> str:
    english = OPTIONS.get(key)
    return translate(english) if english else key


def state(key: str) -> str:
    english = STATES.get(key)
    return translate(english) if english else key


def point(key: str) -> str:
    english = POINT_NAMES.get(key)
    return translate(english) if english else key


def read(readings: Readings, text: str, what: str) -> str | None:
    """The key ``text`` names in ``readings``; None when it names none; RuleError when two
    languages read it as two different terms (naming both readings)."""
    found = readings.read(text)
    if len(found) > 1:
        both = ", ".join(
            _("{key} ({language})", key=key, language=NAMES.get(lang, lang) or _("short form"))
            for key, lang in sorted(found.items())
        )
        raise RuleError(
            _(
                "{what} {text!r} reads two ways between the languages: {both}; type one of those",
                what=what,
                text=text,
                both=both,
            )
        )
    return next(iter(found), None)


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
