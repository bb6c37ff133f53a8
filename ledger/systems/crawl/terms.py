"""The crawl's game words in the reader's language, and the words a player may type for them.

What is stored stays the English key (``bar``, ``wild``, ``sw``, ``knife``, ``prairie``);
what is shown is the word in the language of the moment, as the Spanish rules write it
(``barra``, ``naturaleza``, ``so``, ``cuchillo``, ``pradera``). A player types either
language's word (:func:`read`); a word two languages read as different terms is refused
naming both readings. The sample tables' names (terrains, enemies, items, chapters) are
here too: the ledger ships them, so it says them in every language it speaks
(docs/rulings/crawl.md, "Words").

A table row's text, recorded in a ``crawl.table_rolled`` event as it was rolled (in
English), is read in the reader's language by :func:`table_text`: the campaign's own
tables when they give that row in several languages, else the shipped sample tables
when the row is theirs, else the recorded text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

import msgspec

from ledger import i18n
from ledger.errors import RuleError
from ledger.i18n import N_, Readings

CONTEXT = "crawl"
"""The catalog context of the crawl's words (``Health`` is ``Salud`` here)."""


def p_(context: str, msgid: str) -> str:
    """Mark ``msgid`` under ``context`` for the catalogs (Babel reads this name as
    ``i18n.p_``'s); it is put into words where it is shown (:func:`word`)."""
    return msgid


STATS = {
    "health": p_("crawl", "Health"),
    "energy": p_("crawl", "Energy"),
    "attack": p_("crawl", "Attack"),
    "defense": p_("crawl", "Defense"),
    "esc": p_("crawl", "ESC"),
}
"""The explorer's and the enemy's values (Salud, Energía, Ataque, Defensa, ESC)."""

FOODS = {"bar": p_("crawl", "bar"), "fruit": p_("crawl", "fruit"), "tavern": p_("crawl", "tavern")}
"""What the explorer eats: a bar or fruit from the pack, a tavern meal in a town."""

NIGHTS = {"wild": p_("crawl", "wild"), "town": p_("crawl", "town"), "hotel": p_("crawl", "hotel")}
"""Where the explorer sleeps."""

DIRECTIONS = {
    "n": p_("crawl", "n"),
    "ne": p_("crawl", "ne"),
    "se": p_("crawl", "se"),
    "s": p_("crawl", "s"),
    "sw": p_("crawl", "sw"),
    "nw": p_("crawl", "nw"),
}
"""The six hex directions (Spanish writes south-west and north-west ``so`` and ``no``)."""

REPEATS = {"shift": p_("crawl", "shift"), "pass": p_("crawl", "pass")}
"""What a repeated events/ruins result becomes: the neighbouring row, or a pass-through."""

TECHNIQUE_NAMES = {
    1: p_("crawl", "dodge and strike"),
    2: p_("crawl", "roll and cut cables"),
    3: p_("crawl", "jump and attack"),
    4: p_("crawl", "electromagnetic grenade"),
    5: p_("crawl", "sprint"),
    6: p_("crawl", "electric arrows"),
    7: p_("crawl", "flaming arrows"),
}
"""The techniques (HT 1-7 of the Spanish rules)."""

SAMPLE_NAMES = (
    # terrains
    p_("crawl", "prairie"),
    p_("crawl", "forest"),
    p_("crawl", "hills"),
    p_("crawl", "marsh"),
    p_("crawl", "scrapland"),
    p_("crawl", "mountain"),
    # enemies
    p_("crawl", "wild dog"),
    p_("crawl", "scavenger"),
    p_("crawl", "boar"),
    p_("crawl", "swamp drone"),
    p_("crawl", "sentinel"),
    p_("crawl", "hunter"),
    p_("crawl", "sleeper"),
    p_("crawl", "warehouse keeper"),
    p_("crawl", "god"),
    # items and wares
    p_("crawl", "hands"),
    p_("crawl", "knife"),
    p_("crawl", "pipe"),
    p_("crawl", "bow"),
    p_("crawl", "reinforced bow"),
    p_("crawl", "armour"),
    p_("crawl", "solar taser"),
    p_("crawl", "arrows"),
    # the divine chapters
    p_("crawl", "the Sleepers"),
    p_("crawl", "the Warehouse"),
    p_("crawl", "God himself"),
    p_("crawl", "the Radio Tower"),
    p_("crawl", "the Power Supply"),
)
"""The names the sample tables give (their keys, stored as they are), said in every
language; ``bar`` and ``fruit`` are the foods'."""

ICONS = {
    "town": p_("crawl", "town"),
    "treasure": p_("crawl", "treasure"),
    "divine": p_("crawl", "divine"),
    "god": p_("crawl", "god"),
    "enemy": p_("crawl", "enemy"),
    "impassable": p_("crawl", "impassable"),
}
"""The map's icons."""

_KNOWN = frozenset((*FOODS.values(), *NIGHTS.values(), *SAMPLE_NAMES, *ICONS.values()))

FIXED_TEXTS = (
    N_("the divine sign is silent (closed chapter, even roll)"),
    N_("a familiar hex, nothing happens"),
    N_("a repeated result: the hex is a pass-through"),
)
"""Texts the rules record in a ``crawl.table_rolled`` of their own (no table row)."""

_ENCOUNTER = re.compile(r"^an encounter: (?P<name>.+)$")


def word(name: str) -> str:
    """A game word or a sample table's name in the language of the moment; a name the
    ledger does not know (a user's own table's) as it is."""
    if name in _KNOWN:
        return i18n.translate(name, CONTEXT)
    return name


def stat(key: str) -> str:
    """``health`` as ``Health`` (``Salud``)."""
    return i18n.translate(STATS[key], CONTEXT) if key in STATS else key


def technique(number: int) -> str:
    """Technique ``number``'s name in the language of the moment."""
    english = TECHNIQUE_NAMES.get(number)
    return i18n.translate(english, CONTEXT) if english else str(number)


def names(keys: Any) -> list[str]:
    return [word(str(k)) for k in keys]


def readings(terms: Mapping[str, str] | Any) -> Readings:
    """The words a player may type for ``terms`` (keys, their English names and each
    catalog's translation); a list of keys is its own English."""
    if not isinstance(terms, Mapping) or not all(isinstance(v, str) for v in terms.values()):
        terms = {str(k): str(k) for k in terms}
    return Readings(terms=terms, context=CONTEXT)


FOOD_WORDS = readings(FOODS)
NIGHT_WORDS = readings(NIGHTS)
DIRECTION_WORDS = readings(DIRECTIONS)
REPEAT_WORDS = readings(REPEATS)
TECHNIQUE_WORDS = readings({str(n): name for n, name in TECHNIQUE_NAMES.items()})


def read(words: Readings, text: str, what: str) -> str:
    """The stored key ``text`` names, in either language; a one-line refusal when it names
    none or, read in two languages, two different terms."""
    found = words.read(text)
    if not found:
        raise RuleError(
            i18n._(
                "{text!r} is not a {what}; give one of {choices}",
                text=text,
                what=what,
                choices=", ".join(words.words()),
            )
        )
    return _one(words, text, found)


def _one(words: Readings, text: str, found: Mapping[str, str]) -> str:
    if len(found) == 1:
        return next(iter(found))
    shown = sorted(
        i18n._(
            "{term} ({language})",
            term=words.name(key, "en"),
            language=i18n.NAMES.get(lang, i18n._("a short form")),
        )
        for key, lang in found.items()
    )
    raise RuleError(
        i18n._(
            "{text!r} is ambiguous: it reads {readings}; type the word of one language",
            text=text,
            readings=i18n._(" or ").join(shown),
        )
    )


def read_or_keep(words: Readings, text: str | None) -> str | None:
    """``text`` as its stored key when it names one term, as typed when it names none (the
    rules refuse it in their own words); refused when two languages read it as two terms."""
    if text is None:
        return None
    found = words.read(text)
    return _one(words, text, found) if found else text


# --- table texts ---------------------------------------------------------------


def text_of(value: Any, lang: str | None = None) -> str:
    """A table text as written (a string, or a map of languages) in ``lang``."""
    if isinstance(value, Mapping):
        return i18n.localized({str(k): str(v) for k, v in value.items()}, lang)
    return str(value)


def recorded(value: Any) -> str:
    """A table text as a roll records it: the English (language-neutral, as it always was),
    else the first language given."""
    return text_of(value, "en")


@functools.lru_cache(maxsize=1)
def _sample() -> dict[str, Any]:
    """The shipped sample tables as written (texts in both languages)."""
    sample = resources.files("ledger.samples") / "crawl" / "tables.toml"
    try:
        return msgspec.toml.decode(sample.read_text(encoding="utf-8"))
    except (OSError, msgspec.DecodeError):
        return {}


def _row(tables: Mapping[str, Any], table: str, row: int | str | None) -> Any:
    """The text of row ``row`` of ``table`` (as a roll names it) in ``tables``, or None."""
    if row is None or not isinstance(tables, Mapping):
        return None
    head, _, rest = table.partition(".")
    rows: Any
    if head == "events":
        events = tables.get("events", {})
        rows = {}
        if isinstance(events, Mapping):
            default, own = events.get("default", {}), events.get(rest, {})
            rows = {
                **(default if isinstance(default, Mapping) else {}),
                **(own if isinstance(own, Mapping) else {}),
            }
    elif head == "chapter":
        chapters = tables.get("chapters", {})
        rows = chapters.get(rest, {}) if isinstance(chapters, Mapping) else {}
    elif head == "treasure":
        rows = tables.get("rewards", {})
    elif head in ("ruins", "rewards", "quests"):
        rows = tables.get(head, {})
    else:
        return None
    found = rows.get(str(row)) if isinstance(rows, Mapping) else None
    return found.get("text") if isinstance(found, Mapping) else None


def table_text(table: str, row: int | str | None, text: str, tables: Mapping[str, Any] | None = None) -> str:
    """A rolled row's recorded ``text`` in the language of the moment: from the campaign's
    ``tables`` when they give the row in several languages, else from the shipped sample
    tables when the row is theirs (its English is the text recorded), else as recorded."""
    if i18n.language() == "en":
        return text
    if text in FIXED_TEXTS:
        return i18n.translate(text)
    match = _ENCOUNTER.match(text)
    if match and row is not None and table == "revisit":
        return i18n._("an encounter: {name}", name=word(match["name"]))
    if tables is not None:
        own = _row(tables, table, row)
        if isinstance(own, Mapping):
            return text_of(own)
    sample = _row(_sample(), table, row)
    if sample is not None and recorded(sample) == text:
        return text_of(sample)
    return text


# --- the words of the day's notes, causes and choices ----------------------------


def word_of(terms: Mapping[str, str], key: str) -> str:
    """A stored key of ``terms`` (a food, a night, a direction...) in the language of the moment."""
    english = terms.get(key)
    return i18n.translate(english, CONTEXT) if english is not None else word(key)


CHOICES = {
    "play": N_("play"),
    "pass": N_("pass"),
    "shift": N_("shift"),
    "nothing": N_("nothing"),
}
"""What became of a roll on a table (a repeated result passed or shifted)."""

HOWS = {"slept": N_("slept"), "escaped": N_("escaped"), "hid": N_("hid")}
"""How a day ended."""

DELTAS = {
    "health": N_("health"),
    "energy": N_("energy"),
    "bits": N_("bits"),
    "bar": N_("bar"),
    "fruit": N_("fruit"),
    "arrows": N_("arrows"),
    "attack": N_("attack"),
    "defense": N_("defense"),
}
"""What a table row changes, as a change's summary names it (``health +2``)."""

CAUSES = {"treasure": N_("treasure"), "ruins": N_("ruins"), "loot": N_("loot"), "quest": N_("quest")}
"""Where a change came from, when no table text says it."""


def choice(key: str) -> str:
    return i18n.translate(CHOICES[key]) if key in CHOICES else key


def how(key: str) -> str:
    return i18n.translate(HOWS[key]) if key in HOWS else key


def delta(key: str) -> str:
    return i18n.translate(DELTAS[key]) if key in DELTAS else key


NOTES = (
    N_("walked {direction} back"),
    N_("walked {direction}"),
    N_("chapter {chapter} ({name}) opens"),
    N_("met {foe}"),
    N_("escaped from {foe}"),
    N_("defeated {foe}"),
    N_("bought {item}"),
    N_("took the quest of town {town}"),
    N_("ate {food}"),
    N_("went hungry (-{loss})"),
    N_("slept {where}"),
    N_("hid from {foe}"),
    N_("died: {cause}"),
    N_("killed by {foe}"),
    N_("hunger (day {streak} without a meal)"),
    N_("hunger after an escape"),
    N_("an encounter: {name}"),
)
"""The English the fold writes into a day's notes (and so into the journal line a
``crawl.day_ended`` records), and the causes the rules record: each read back into the
language of the moment by :func:`say`."""

_FIELD = re.compile(r"\{(\w+)\}")


@functools.lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for template in NOTES:
        parts = _FIELD.split(template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
        out.append((re.compile(f"^{regex}$"), template))
    return out


def _field(name: str, value: str, tables: Mapping[str, Any] | None) -> str:
    if name == "direction":
        return word_of(DIRECTIONS, value)
    if name == "food":
        return word_of(FOODS, value)
    if name == "where":
        return word_of(NIGHTS, value)
    if name == "cause":
        return say(value, tables)
    return word(value)


def say(text: str, tables: Mapping[str, Any] | None = None) -> str:
    """One English note, cause or table text the rules recorded, in the language of the
    moment: by the template that wrote it, the table row it is, or the game word it is;
    as recorded when none (a user's own words)."""
    if i18n.language() == "en" or not text:
        return text
    if text in FIXED_TEXTS:
        return i18n.translate(text)
    if text in CAUSES:
        return i18n.translate(CAUSES[text])
    texts = _texts(tables)
    if text in texts:
        return text_of(texts[text])
    for regex, template in _patterns():
        match = regex.match(text)
        if match:
            fields = {k: _field(k, v, tables) for k, v in match.groupdict().items()}
            return i18n.translate(template).format(**fields)
    return word(text)


def row_text(text: Any, tables: Mapping[str, Any] | None = None) -> str:
    """A table row's text (as written, or as stored in English) in the reader's language."""
    if isinstance(text, Mapping):
        return text_of(text)
    texts = _texts(tables) if i18n.language() != "en" else {}
    return text_of(texts[text]) if text in texts else str(text)


def _texts(tables: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every row text written in several languages, by its English: the sample tables' and
    the campaign's own."""
    found = dict(_sample_texts())
    if tables is not None:
        for value in _all_texts(tables):
            found[recorded(value)] = value
    return found


@functools.lru_cache(maxsize=1)
def _sample_texts() -> dict[str, Any]:
    return {recorded(v): v for v in _all_texts(_sample())}


def _all_texts(tables: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []

    def scan(rows: Any) -> None:
        if isinstance(rows, Mapping):
            for row in rows.values():
                if isinstance(row, Mapping) and isinstance(row.get("text"), Mapping):
                    out.append(row["text"])

    if not isinstance(tables, Mapping):
        return out
    for name in ("ruins", "rewards", "quests", "shop"):
        scan(tables.get(name))
    for group in ("events", "chapters"):
        value = tables.get(group)
        if isinstance(value, Mapping):
            for rows in value.values():
                scan(rows)
    return out


def cause(text: str) -> str:
    """A change's or a death's recorded cause in the language of the moment."""
    return say(text)


def line(text: str, tables: Mapping[str, Any] | None = None) -> str:
    """A journal line (the day's notes joined by ``; ``) in the language of the moment."""
    if i18n.language() == "en":
        return text
    return "; ".join(say(part, tables) for part in text.split("; "))


def names_of(terms: Mapping[str, str]) -> list[str]:
    """Every key of ``terms`` in the language of the moment, in order."""
    return [word_of(terms, key) for key in terms]
