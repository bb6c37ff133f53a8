"""Counts in words that agree with their number: ``1 success``, ``2 successes``."""

from __future__ import annotations

IRREGULAR = {"success": "successes", "die": "dice", "box": "boxes", "is": "are", "was": "were"}
"""Plurals that adding an ``s`` does not make."""


def plural(n: int | float, word: str, many: str | None = None) -> str:
    """``word`` as the count ``n`` needs it: the singular for exactly 1, else ``many`` (by
    default the plural of its last word, ``combat pool die`` -> ``combat pool dice``, or
    the word with an ``s``)."""
    if n == 1:
        return word
    if many:
        return many
    head, _, last = word.rpartition(" ")
    return (f"{head} " if head else "") + IRREGULAR.get(last, last + "s")


def count(n: int | float, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in agreement: ``count(1, "roll")`` is ``1 roll``, ``count(3, "die")``
    is ``3 dice``."""
    return f"{n} {plural(n, word, many)}"
