"""The yearzero words a character, a roll and the Zone are written in: the four
attributes and their trauma, the skills and their aliases (English and Spanish), the
gear slots, the conditions, the day and its clock, and a sector's name on the map."""

from __future__ import annotations

from typing import Any

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
SLOTS = ("armor", "shield", "suit")
CONDITIONS = ("hungry", "thirsty", "sleepless", "hypothermic")
DAY = 24 * 60


def skill_name(text: str) -> str | None:
    key = text.strip().lower().replace("-", "_").replace(" ", "_")
    key = SKILL_ALIASES.get(key, key)
    return key if key in SKILLS else None


def attribute_name(text: str) -> str | None:
    return ATTRIBUTE_ALIASES.get(text.strip().lower())


def clock(minute: int) -> dict[str, Any]:
    return {
        "day": minute // DAY,
        "hour": (minute % DAY) // 60,
        "minute": minute % 60,
        "text": f"day {minute // DAY} {(minute % DAY) // 60:02d}:{minute % 60:02d}",
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
