"""What the dicepool rules and the dicepool fold both know: attributes, wound levels, the monitor.

Plain constants and pure helpers only: the fold (``ledger.projections.dicepool``)
reads them to build the sheet, the rules read them to decide; neither side's
modules are imported here.
"""

from __future__ import annotations

from ledger import i18n
from ledger.errors import RuleError
from ledger.i18n import _

ATTRIBUTES = (
    "body",
    "quickness",
    "strength",
    "charisma",
    "intelligence",
    "willpower",
    "reaction",
    "essence",
    "magic",
)
LEVELS = ("S", "L", "G", "M")
"""Wound levels in the text's Spanish letters: suave, leve, grave, mortal."""
BOXES = {"S": 1, "L": 3, "G": 6, "M": 10}
NAMES = {"S": "suave", "L": "leve", "G": "grave", "M": "mortal"}
MONITOR = 10
"""Boxes on each track (physical and stun)."""
PENALTY = {None: 0, "S": 1, "L": 2, "G": 3, "M": 3}
"""TN modifier of a track's wound (the same number comes off initiative)."""


def box_level(boxes: int) -> str | None:
    """The wound a track shows: 1-2 boxes S, 3-5 L, 6-9 G, 10 M."""
    for level in reversed(LEVELS):
        if boxes >= BOXES[level]:
            return level
    return None


def tn_modifier(physical: int, stun: int, worst_only: bool = False) -> int:
    """Both tracks' penalties add up, or only the worse counts (setting ``wound_modifiers``)."""
    penalties = (PENALTY[box_level(physical)], PENALTY[box_level(stun)])
    return max(penalties) if worst_only else sum(penalties)


# --- the game's words --------------------------------------------------------------------
# Each term's stable key (what is stored) and its English name, the English edition's (a
# second- and third-edition street game of d6 pools); the Spanish, the rules' own where they
# name it, is in the catalog under the term's context (docs/rulings/dicepool.md, "Words").


class _Marked:
    """Marks a game word for the catalog under its context; it is put into words where it
    is shown (:class:`ledger.i18n.Readings`)."""

    @staticmethod
    def p_(context: str, msgid: str) -> str:
        return msgid


_w = _Marked()

ATTRIBUTE_WORDS = {
    "body": _w.p_("dicepool attribute", "Body"),
    "quickness": _w.p_("dicepool attribute", "Quickness"),
    "strength": _w.p_("dicepool attribute", "Strength"),
    "charisma": _w.p_("dicepool attribute", "Charisma"),
    "intelligence": _w.p_("dicepool attribute", "Intelligence"),
    "willpower": _w.p_("dicepool attribute", "Willpower"),
    "reaction": _w.p_("dicepool attribute", "Reaction"),
    "essence": _w.p_("dicepool attribute", "Essence"),
    "magic": _w.p_("dicepool attribute", "Magic"),
}
SKILL_WORDS = {
    "pistols": _w.p_("dicepool skill", "Pistols"),
    "submachine_guns": _w.p_("dicepool skill", "Submachine Guns"),
    "rifles": _w.p_("dicepool skill", "Rifles"),
    "assault_rifles": _w.p_("dicepool skill", "Assault Rifles"),
    "shotguns": _w.p_("dicepool skill", "Shotguns"),
    "heavy_weapons": _w.p_("dicepool skill", "Heavy Weapons"),
    "gunnery": _w.p_("dicepool skill", "Gunnery"),
    "throwing_weapons": _w.p_("dicepool skill", "Throwing Weapons"),
    "projectile_weapons": _w.p_("dicepool skill", "Projectile Weapons"),
    "armed_combat": _w.p_("dicepool skill", "Armed Combat"),
    "edged_weapons": _w.p_("dicepool skill", "Edged Weapons"),
    "unarmed_combat": _w.p_("dicepool skill", "Unarmed Combat"),
    "stealth": _w.p_("dicepool skill", "Stealth"),
    "athletics": _w.p_("dicepool skill", "Athletics"),
    "car": _w.p_("dicepool skill", "Car"),
    "bike": _w.p_("dicepool skill", "Bike"),
    "car_b_r": _w.p_("dicepool skill", "Car B/R"),
    "electronics": _w.p_("dicepool skill", "Electronics"),
    "computer": _w.p_("dicepool skill", "Computer"),
    "biotech": _w.p_("dicepool skill", "Biotech"),
    "etiquette": _w.p_("dicepool skill", "Etiquette"),
    "negotiation": _w.p_("dicepool skill", "Negotiation"),
    "leadership": _w.p_("dicepool skill", "Leadership"),
    "read_write": _w.p_("dicepool skill", "Read/Write"),
}
"""The sample skill web's skills (a campaign's own table may name others: they are typed
and shown by their key)."""
POOL_WORDS = {
    "combat": _w.p_("dicepool pool", "Combat"),
    "magic": _w.p_("dicepool pool", "Magic"),
    "hacking": _w.p_("dicepool pool", "Hacking"),
    "control": _w.p_("dicepool pool", "Control"),
    "astral": _w.p_("dicepool pool", "Astral"),
}
RANGE_WORDS = {
    "short": _w.p_("dicepool range", "Short"),
    "medium": _w.p_("dicepool range", "Medium"),
    "long": _w.p_("dicepool range", "Long"),
    "extreme": _w.p_("dicepool range", "Extreme"),
}
TRACK_WORDS = {
    "physical": _w.p_("dicepool track", "Physical"),
    "stun": _w.p_("dicepool track", "Stun"),
}
LEVEL_WORDS = {
    "S": _w.p_("dicepool wound", "suave"),
    "L": _w.p_("dicepool wound", "leve"),
    "G": _w.p_("dicepool wound", "grave"),
    "M": _w.p_("dicepool wound", "mortal"),
}
"""The wound levels' names beside their letters (``G (grave)``): the text's Spanish words,
which the letters stand for; English names the same levels Light, Moderate, Serious and
Deadly (``ledger.systems.dicepool.damage`` reads those too)."""
STATUS_WORDS = {
    "active": _w.p_("dicepool status", "active"),
    "unconscious": _w.p_("dicepool status", "unconscious"),
    "dead": _w.p_("dicepool status", "dead"),
}
EXCHANGE_WORDS = {
    "open": _w.p_("dicepool exchange", "open"),
    "missed": _w.p_("dicepool exchange", "missed"),
    "dodged": _w.p_("dicepool exchange", "dodged"),
    "resolved": _w.p_("dicepool exchange", "resolved"),
}


ATTRIBUTE_NAMES = i18n.Readings(ATTRIBUTE_WORDS, context="dicepool attribute")
SKILL_NAMES = i18n.Readings(SKILL_WORDS, context="dicepool skill")
POOL_NAMES = i18n.Readings(POOL_WORDS, context="dicepool pool")
RANGE_NAMES = i18n.Readings(RANGE_WORDS, context="dicepool range")
TRACK_NAMES = i18n.Readings(TRACK_WORDS, context="dicepool track")
STATUS_NAMES = i18n.Readings(STATUS_WORDS, context="dicepool status")
LEVEL_NAMES = i18n.Readings(LEVEL_WORDS, context="dicepool wound")


def shown(key: str, names: i18n.Readings) -> str:
    """A stored key as the reader reads it: in English the key itself (what English output
    has always shown: ``pistols``, ``body``), in another language the term's name there
    (``Pistolas``, ``Resistencia``); a key the names do not know (a campaign's own skill)
    as it is."""
    if i18n.language() == i18n.LANGUAGES[0] or key not in names.terms:
        return key
    return names.name(key)


def skill_or_attribute(key: str) -> str:
    """A skill's or an attribute's key as the reader reads it."""
    return shown(key, ATTRIBUTE_NAMES if key in ATTRIBUTE_WORDS else SKILL_NAMES)


def level_text(level: str) -> str:
    """``G (grave)``: a wound level's letter and its name."""
    return f"{level} ({i18n.translate(LEVEL_WORDS[level], 'dicepool wound')})"


def _norm(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def read(text: str, *names: i18n.Readings, keys: tuple[str, ...] = ()) -> str | None:
    """The stable key a word a player typed names, in either language: a key of ``keys``
    (a campaign's own skills) or a term of ``names``; None when it names none. A word two
    languages read as different terms is refused, naming both readings."""
    found: dict[str, str] = {}
    typed = _norm(text)
    for key in keys:
        if key == typed or i18n.fold(key) == i18n.fold(text):
            found.setdefault(key, "")
    for table in names:
        for key, lang in table.read(text).items():
            found.setdefault(key, lang)
    if len(found) > 1:
        languages = {"en": _("English"), "es": _("Spanish")}
        readings = [
            _("{term} (in {language})", term=key, language=languages[lang])
            if lang in languages
            else _("{term} (a key of the tables)", term=key)
            for key, lang in found.items()
        ]
        raise RuleError(
            _(
                "{word!r} reads two ways: {readings}; type the key of the one you mean",
                word=text,
                readings=_(" or ").join(readings),
            )
        )
    return next(iter(found), None)
