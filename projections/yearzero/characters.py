"""A yearzero character from the attributes ``character add`` gives.

Characters join through the core ``character.added`` event. Their string
attributes follow this convention (keys are case-insensitive):

- ``strength``, ``agility``, ``wits``, ``empathy``: the attribute's maximum
  (Spanish ``fortaleza``/``fuerza``, ``destreza``, ``intelecto``, ``empatia``
  also work); a missing attribute is 3.
- ``skill.NAME=LEVEL``: a skill (``skill.shoot=2``, ``skill.jury_rig=1``).
- ``gear.NAME=BONUS``: a piece of gear with its gear bonus (``gear.rifle=2``).
- ``armor.NAME=RATING``, ``shield.NAME=RATING``, ``suit.NAME=PROTECTION``:
  armor, a shield, a rot suit; the first of each kind is worn.
- ``mutation_points=N``, ``rot=N``, ``permanent_rot=N``: starting values.

Values that cannot be read are listed under ``ignored`` on the sheet
(``ledger yz character`` validates them before recording).
"""

from __future__ import annotations

from ledger.projections.yearzero.game import Character, Item
from ledger.projections.yearzero.vocabulary import ATTRIBUTES, SLOTS, attribute_name, skill_name


def parse_attrs(name: str, attrs: dict[str, str]) -> tuple[Character, list[str]]:
    """A character from ``character add`` attributes, and the keys that could not be read."""
    maxima = dict.fromkeys(ATTRIBUTES, 3)
    skills: dict[str, int] = {}
    gear: dict[str, Item] = {}
    worn: dict[str, str] = {}
    counters = {"mutation_points": 0, "rot": 0, "permanent_rot": 0}
    problems: list[str] = []
    for raw_key, raw_value in attrs.items():
        key = raw_key.strip().lower()
        try:
            value = int(raw_value)
        except ValueError:
            problems.append(f"{raw_key}={raw_value}")
            continue
        prefix, _, rest = key.partition(".")
        if attribute_name(key) and 1 <= value <= 10:
            maxima[attribute_name(key) or key] = value
        elif key in counters and 0 <= value <= 99:
            counters[key] = value
        elif prefix == "skill" and skill_name(rest) and 0 <= value <= 5:
            skills[skill_name(rest) or rest] = value
        elif prefix in ("gear", *SLOTS) and rest and 0 <= value <= 10:
            item_name = raw_key.strip().partition(".")[2]
            gear[item_name] = Item(item_name, "gear" if prefix == "gear" else prefix, value, value)
            if prefix in SLOTS and prefix not in worn:
                worn[prefix] = item_name
        else:
            problems.append(f"{raw_key}={raw_value}")
    rot = max(counters["rot"], counters["permanent_rot"])
    character = Character(
        name=name,
        max=maxima,
        current=dict(maxima),
        skills=skills,
        gear=gear,
        worn=worn,
        mutation_points=counters["mutation_points"],
        rot=rot,
        permanent_rot=counters["permanent_rot"],
        ignored=tuple(problems),
    )
    return character, problems
