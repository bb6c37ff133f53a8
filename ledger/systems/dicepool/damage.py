"""Damage codes, staging and marking the condition monitor.

A damage code is a power and a wound level in the text's Spanish letters:
S (suave) 1 box, L (leve) 3, G (grave) 6, M (mortal) 10. The English words
are accepted by meaning (light = S, moderate = L, serious = G, deadly = M),
never the English letters: a single letter always means what the text means.
The levels, their boxes and the wound penalties are in ``model``.
"""

from __future__ import annotations

import re

import msgspec

from ledger.errors import RuleError
from ledger.i18n import _
from ledger.systems.dicepool.model import LEVELS, MONITOR

WORDS = {
    "s": "S",
    "suave": "S",
    "light": "S",
    "l": "L",
    "leve": "L",
    "moderate": "L",
    "g": "G",
    "grave": "G",
    "serious": "G",
    "m": "M",
    "mortal": "M",
    "deadly": "M",
}
MAX_POWER = 40

_CODE = re.compile(r"^\s*(?P<power>STR(?:\s*[+-]\s*\d+)?|\d+)\s*-?\s*(?P<level>[A-Za-z]+)\s*$", re.I)


class DamageCode(msgspec.Struct, frozen=True):
    power: int
    level: str

    def __str__(self) -> str:
        return f"{self.power}{self.level}"


def parse_damage(text: str, strength: int | None = None) -> DamageCode:
    """``9L``, ``6G``, ``STR+2L`` (melee: the attacker's Strength), ``9 moderate``."""
    m = _CODE.match(text)
    level = WORDS.get(m.group("level").lower()) if m else None
    if m is None or level is None:
        raise RuleError(
            _(
                "damage code {code!r} is not power + wound level; use e.g. 9L, 6G or STR+1L "
                "(S suave 1 box, L leve 3, G grave 6, M mortal 10)",
                code=text,
            )
        )
    power_text = m.group("power").upper().replace(" ", "")
    if power_text.startswith("STR"):
        if strength is None:
            raise RuleError(
                _(
                    "damage code {code!r} uses the attacker's Strength; give the attacker a strength",
                    code=text,
                )
            )
        power = strength + int(power_text[3:] or 0)
    else:
        power = int(power_text)
    if not 1 <= power <= MAX_POWER:
        raise RuleError(
            _(
                "damage code {code!r} has power {power}; use 1 to {most}",
                code=text,
                power=power,
                most=MAX_POWER,
            )
        )
    return DamageCode(power, level)


def burst(code: DamageCode, rounds: int) -> DamageCode:
    """A burst of ``rounds``: +1 power per round, +1 level per 3 rounds (capped at M)."""
    if rounds <= 1:
        return code
    return DamageCode(code.power + rounds, stage(code.level, rounds // 3) or "M")


def stage(level: str, steps: int) -> str | None:
    """Move a level ``steps`` up (or down); above M stays M, below S is None."""
    index = LEVELS.index(level) + steps
    if index < 0:
        return None
    return LEVELS[min(index, len(LEVELS) - 1)]


def staging_steps(net: int) -> int:
    """Every 2 net successes move the level one step, toward whoever is ahead."""
    return net // 2 if net >= 0 else -((-net) // 2)


class Monitor(msgspec.Struct, frozen=True):
    physical: int
    stun: int
    overflow: int

    def mark(self, track: str, boxes: int) -> Monitor:
        """Stun past 10 rolls into physical; physical past 10 is overflow."""
        physical, stun, overflow = self.physical, self.stun, self.overflow
        if track == "stun":
            stun += boxes
            extra = max(0, stun - MONITOR)
            stun = min(stun, MONITOR)
            physical += extra
        else:
            physical += boxes
        overflow += max(0, physical - MONITOR)
        return Monitor(min(physical, MONITOR), stun, overflow)
