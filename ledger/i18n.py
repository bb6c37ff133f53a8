"""Words in the reader's language: English or Spanish today, a third language by adding its
catalogs.

Every sentence the ledger shows is written in English in the code and passed through a GNU
gettext catalog (``ledger/locale/<lang>/LC_MESSAGES/ledger.po``, compiled to ``.mo`` when
the wheel is built) by one of four functions, which Babel's extractor knows by name::

    _("{who} rolled {total}", who=name, total=7)        # a sentence, its values named
    n_("{n} die", "{n} dice", n)                          # a count, by the language's plural rule
    p_("skill", "Shoot")                                  # a word whose sense needs a context
    N_("Shoot")                                           # marked here, put into words later
    np_("food", "{n} ration", "{n} rations", n)           # both

Each returns the sentence in the language of the moment, a context variable
(:func:`using`, :func:`set_language`): a front end sets it where it puts a message into words
(the command line once, from ``--lang``; the live page for each request and each seat's
stream, so one table answers each seat in its own language). A process starts in the one its environment names (:func:`from_environment`): ``LEDGER_LANG``,
then ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``, and English when none names a language the
ledger speaks.

Catalogs load lazily, one per language and domain, the first time a sentence is said in
that language: English needs none (the sources are English). A plugin ships its own catalog
under its own domain (:class:`Catalog`, docs/plugins.md).

Numbers with a fraction are written as the language writes them (CLDR's symbols, through
Babel: ``1.5`` in English, ``1,5`` in Spanish); whole numbers are left as they are (they
are versions, counts and dice more often than amounts).
"""

from __future__ import annotations

import gettext as _gettext
import os
import re
import string
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "es")
"""The languages the ledger speaks, the first its default."""

NAMES = {"en": "English", "es": "Español"}
"""Each language in its own words (a language picker shows these)."""

PSEUDO = "qps"
"""The pseudo-language: every sentence from a catalog comes back bracketed and accented
(``⟦Ŧĥé ŕöļļ⟧``), so a word shown without passing through the catalogs stands out (CI runs
the demo, the README session and the browser tests in it)."""

DOMAIN = "ledger"
LOCALE_DIR = Path(__file__).parent / "locale"

_current: ContextVar[str | None] = ContextVar("ledger_language", default=None)
_default: list[str] = []  # the process's language, once read from its environment


def normalize(tag: str | None) -> str | None:
    """The language a locale name or tag means, when the ledger speaks it: ``es_ES.UTF-8``,
    ``es-419`` and ``ES`` are ``es``; ``C``, ``POSIX`` and unknown languages are None."""
    if not tag:
        return None
    code = re.split(r"[_.@-]", tag.strip(), maxsplit=1)[0].lower()
    if code == PSEUDO:
        return PSEUDO
    return code if code in LANGUAGES else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language an environment names: ``LEDGER_LANG``, then ``LC_ALL``, ``LC_MESSAGES``
    and ``LANG`` (the first that is set decides, as the C library reads them), else English."""
    env = os.environ if environ is None else environ
    if env.get("LEDGER_LANG"):
        return normalize(env["LEDGER_LANG"]) or LANGUAGES[0]
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if env.get(name):
            return normalize(env[name]) or LANGUAGES[0]
    return LANGUAGES[0]


def negotiate(accept_language: str | None) -> str | None:
    """The language of an HTTP ``Accept-Language`` header the ledger speaks, by the header's
    preference (``es-ES,es;q=0.9,en;q=0.8`` is ``es``); None when it names none."""
    if not accept_language:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        match = re.search(r"q\s*=\s*([0-9.]+)", params)
        if match:
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        lang = normalize(tag)
        if lang and lang != PSEUDO and quality > 0:
            ranked.append((-quality, index, lang))
    return min(ranked)[2] if ranked else None


def language() -> str:
    """The language of the moment: the context's (:func:`using`), else the process's."""
    current = _current.get()
    if current is not None:
        return current
    if not _default:
        _default.append(from_environment())
    return _default[0]


def set_language(lang: str | None) -> None:
    """Make ``lang`` the language of this context from now on (None: the environment's)."""
    _current.set(normalize(lang) if lang else None)


@contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Say everything in ``lang`` inside the block (None: the language of the moment)."""
    token = _current.set(normalize(lang) or language())
    try:
        yield language()
    finally:
        _current.reset(token)


_OTHERS: list[Catalog] = []
"""The plugins' catalogs, as each is made."""


class Catalog:
    """One gettext domain's catalogs, found in ``directory/<lang>/LC_MESSAGES/<domain>.mo``
    (or its ``.po``, compiled on first use where no up-to-date ``.mo`` lies beside it, as in
    a checkout), each loaded the first time a sentence is said in its language."""

    def __init__(self, domain: str, directory: Path) -> None:
        self.domain = domain
        self.directory = Path(directory)
        self._loaded: dict[str, _gettext.NullTranslations] = {}
        self._lock = threading.Lock()
        if domain != DOMAIN:
            _OTHERS.append(self)

    def translations(self, lang: str) -> _gettext.NullTranslations:
        found = self._loaded.get(lang)
        if found is None:
            with self._lock:
                found = self._loaded.get(lang)
                if found is None:
                    found = self._loaded[lang] = self._load(lang)
        return found

    def _load(self, lang: str) -> _gettext.NullTranslations:
        if lang == PSEUDO:
            return _Pseudo()
        folder = self.directory / lang / "LC_MESSAGES"
        po, mo = folder / f"{self.domain}.po", folder / f"{self.domain}.mo"
        if po.exists() and (not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime):
            data = compile_po(po)
            try:  # beside its source, where the checkout is writable: the next run reads it
                tmp = mo.with_suffix(f".mo.{os.getpid()}")
                tmp.write_bytes(data)
                os.replace(tmp, mo)
            except OSError:
                pass
            import io  # lazy: only where a .po was compiled in memory

            return _gettext.GNUTranslations(io.BytesIO(data))
        if mo.exists():
            with mo.open("rb") as f:
                return _gettext.GNUTranslations(f)
        return _gettext.NullTranslations()

    # The marking functions, bound to this catalog: each says its sentence in the language
    # of the moment, its {fields} filled from ``params``.
    def _(self, msgid: str, /, **params: Any) -> str:
        return _render(self, language(), None, msgid, None, None, params)

    def n_(self, singular: str, plural: str, n: int | float, /, **params: Any) -> str:
        return _render(self, language(), None, singular, plural, n, {"n": n, **params})

    def p_(self, context: str, msgid: str, /, **params: Any) -> str:
        return _render(self, language(), context, msgid, None, None, params)

    def np_(self, context: str, singular: str, plural: str, n: int | float, /, **params: Any) -> str:
        return _render(self, language(), context, singular, plural, n, {"n": n, **params})

    def translate(self, msgid: str, context: str | None = None, lang: str | None = None) -> str:
        """``msgid`` (marked elsewhere with ``N_``) in ``lang`` or the language of the moment.
        The ledger's catalog looks in the plugins' catalogs for what it does not hold (a
        plugin's sheet labels are shown by the ledger's sheet)."""
        lang = lang or language()
        said = self.say(lang, context, msgid, None, None)
        if said == msgid and self.domain == DOMAIN and lang != LANGUAGES[0]:
            for other in _OTHERS:
                found = other.say(lang, context, msgid, None, None)
                if found != msgid:
                    return found
        return said

    def say(
        self, lang: str, context: str | None, msgid: str, plural: str | None, n: int | float | None
    ) -> str:
        """The template for ``msgid`` in ``lang``."""
        if lang == LANGUAGES[0]:  # the sources are English: no catalog to read
            return msgid if plural is None or n == 1 else plural
        t = self.translations(lang)
        if plural is not None:
            count = int(n) if isinstance(n, (int, float)) and float(n).is_integer() else 2
            if context is not None:
                return t.npgettext(context, msgid, plural, count)
            return t.ngettext(msgid, plural, count)
        if context is not None:
            return t.pgettext(context, msgid)
        return t.gettext(msgid)


def compile_po(po: Path) -> bytes:
    """A ``.po`` file compiled to ``.mo`` bytes by Babel (fuzzy entries left out, as
    ``pybabel compile`` does)."""
    # lazy: Babel's catalog tools only where a checkout compiles a .po (never in a wheel)
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


class _Pseudo(_gettext.NullTranslations):
    """The pseudo-language's translations: the source, bracketed and accented."""

    def gettext(self, message: str) -> str:
        return pseudo(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)

    def pgettext(self, context: str, message: str) -> str:
        return pseudo(message)

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return pseudo(msgid1 if n == 1 else msgid2)


_ACCENTS = str.maketrans("aceinoruyAEIOUC", "àçéîñöŕûýÀÉÎÖÛÇ")
PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"


def pseudo(template: str) -> str:
    """``template`` in the pseudo-language: its words accented, its ``{fields}`` and
    backquoted names (commands, options, values typed as they are) kept, all bracketed."""
    parts = re.split(r"(\{[^{}]*\}|`[^`]*`)", template)
    body = "".join(p if p.startswith(("{", "`")) else p.translate(_ACCENTS) for p in parts)
    return f"{PSEUDO_OPEN}{body}{PSEUDO_CLOSE}"


class _Formatter(string.Formatter):
    """``str.format`` that writes fractions with the language's decimal and group symbols."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        text = format(value, format_spec)
        if isinstance(value, float) and self.lang not in (LANGUAGES[0], PSEUDO):
            return localize_digits(text, self.lang)
        return text


def localize_digits(text: str, lang: str) -> str:
    """``1,234.5`` as ``lang`` writes it, by CLDR's symbols (Babel): ``1.234,5`` in Spanish."""
    decimal, group = _symbols(lang)
    return text.translate({ord("."): "\0", ord(","): group}).replace("\0", decimal)


_SYMBOLS: dict[str, tuple[str, str]] = {}


def _symbols(lang: str) -> tuple[str, str]:
    found = _SYMBOLS.get(lang)
    if found is None:
        from babel.numbers import get_decimal_symbol, get_group_symbol  # lazy: English needs no CLDR

        found = _SYMBOLS[lang] = (get_decimal_symbol(lang), get_group_symbol(lang))
    return found


def number(value: int | float, lang: str | None = None, decimals: int | None = None) -> str:
    """``value`` written as ``lang`` (default: the language of the moment) writes numbers:
    ``decimals`` places when given (``number(1.5)`` is ``1,5`` in Spanish)."""
    lang = lang or language()
    text = f"{value:.{decimals}f}" if decimals is not None else str(value)
    if lang in (LANGUAGES[0], PSEUDO):
        return text
    return localize_digits(text, lang)


def _render(
    catalog: Catalog,
    lang: str,
    context: str | None,
    msgid: str,
    plural: str | None,
    n: int | float | None,
    params: dict[str, Any],
) -> str:
    template = catalog.say(lang, context, msgid, plural, n)
    if not params:
        return template.replace("{{", "{").replace("}}", "}") if "{" in template else template
    if lang in (LANGUAGES[0], PSEUDO) or not any(type(v) is float for v in params.values()):
        return template.format_map(params)  # nothing to localize: str.format's own speed
    return _Formatter(lang).vformat(template, (), params)


CATALOG = Catalog(DOMAIN, LOCALE_DIR)
"""The ledger's own catalog."""

_ = CATALOG._
n_ = CATALOG.n_
p_ = CATALOG.p_
np_ = CATALOG.np_
translate = CATALOG.translate


def localized(value: str | Mapping[str, str], lang: str | None = None) -> str:
    """A text a user wrote in one or more languages (a table file's ``{ en = "...", es =
    "..." }``, or a plain string in one): the one in ``lang`` (default: the language of the
    moment), else English, else the first given."""
    if isinstance(value, str):
        return value
    lang = lang or language()
    if lang == PSEUDO:
        return pseudo(localized(value, LANGUAGES[0]))
    for want in (lang, LANGUAGES[0]):
        if value.get(want):
            return value[want]
    return next(iter(value.values()), "")


def NP_(context: str, msgid: str) -> str:
    """:func:`N_` for a word whose sense needs a context; put into words with
    ``translate(msgid, context)``."""
    return msgid


def N_(msgid: str) -> str:
    """Mark ``msgid`` for the catalogs where it is written; it is put into words where it is
    shown (:func:`translate`)."""
    return msgid


def fold(word: str) -> str:
    """A typed word as the ledger compares it: lower case, accents and ``ñ``'s tilde kept
    apart (``Empatía`` and ``empatia`` are one), spaces and hyphens as ``_``."""
    import unicodedata  # lazy: only a typed word's reading needs it (tests/test_cli_startup.py)

    text = unicodedata.normalize("NFKD", word.strip().lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return re.sub(r"[\s\-]+", "_", text)


class Readings:
    """The words a player may type for each of a set of game terms, in every language the
    ledger speaks: a term's stable key (what is stored), its English name (marked ``N_``,
    translated under ``context``) and that name in each catalog, plus ``aliases`` (short
    forms: ``str``, ``FUE``). Built on first use."""

    def __init__(
        self,
        terms: Mapping[str, str],
        context: str | None = None,
        aliases: Mapping[str, str] | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.terms = dict(terms)
        self.context = context
        self.aliases = dict(aliases or {})
        self.catalog = catalog or CATALOG
        self._table: dict[str, dict[str, str]] | None = None

    def name(self, key: str, lang: str | None = None) -> str:
        """``key``'s name in ``lang`` (default: the language of the moment)."""
        english = self.terms.get(key)
        if english is None:
            return key
        return self.catalog.translate(english, self.context, lang)

    def _build(self) -> dict[str, dict[str, str]]:
        table: dict[str, dict[str, str]] = {}

        def add(word: str, key: str, lang: str) -> None:
            table.setdefault(fold(word), {}).setdefault(key, lang)

        for key, english in self.terms.items():
            add(key, key, LANGUAGES[0])
            for lang in LANGUAGES:
                add(self.catalog.translate(english, self.context, lang), key, lang)
        for alias, key in self.aliases.items():
            add(alias, key, "")
        return table

    def read(self, text: str) -> dict[str, str]:
        """The terms ``text`` may mean, each with the language that reads it so (empty for
        an alias): none, one, or more when two languages read it as different terms."""
        if self._table is None:
            self._table = self._build()
        return dict(self._table.get(fold(text), {}))

    def words(self, lang: str | None = None) -> list[str]:
        """Every term's name in ``lang``, for a list of what may be typed."""
        return [self.name(key, lang) for key in self.terms]
