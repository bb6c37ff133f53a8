"""What the d100 rules and the d100 fold both know: the characteristics, the points a
character has, how skill names are matched, and the rounding the rules use.

Plain constants and pure helpers, importing nothing of the system: the fold
(``ledger.projections.d100.state``) reads them without importing the decide side.
"""

from __future__ import annotations

import unicodedata

CHARACTERISTICS = ("TAM", "CON", "FUE", "INT", "EDU", "DES", "CAR", "POD")
POINTS = ("hp", "valor", "fatigue", "luck")


def fold(name: str) -> str:
    """A skill name for matching: no accents, no case, ``_``/``-`` as spaces."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return " ".join(plain.replace("_", " ").replace("-", " ").lower().split())


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)
