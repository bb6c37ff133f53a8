"""Counts in words that agree with their number: ``1 success``, ``2 successes``."""

from __future__ import annotations

IRREGULAR = {
    "success": "successes",
    "die": "dice",
    "mulligan": "mulligans",
    "campaign": "campaigns",
    "is": "are",
    "was": "were",
}
"""Plurals that adding an ``s`` does not make (and a few common ones, spelled once)."""


def plural(n: int | float, word: str, many: str | None = None) -> str:
    """``word`` as the count ``n`` needs it: the singular for exactly 1, else ``many`` (by
    default the word's known plural, or the word with an ``s``)."""
    if n == 1:
        return word
    return many or IRREGULAR.get(word) or word + "s"


def count(n: int | float, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in agreement: ``count(1, "roll")`` is ``1 roll``, ``count(3, "die")``
    is ``3 dice``."""
    return f"{n} {plural(n, word, many)}"
