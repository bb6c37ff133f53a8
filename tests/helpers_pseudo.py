"""The pseudo-language check: a text shown in the pseudo-language (``qps``, ledger.i18n) has
every catalog sentence bracketed (``⟦Ŧĥé ŕöļļ⟧``); a word of the ledger's own English
vocabulary left outside the brackets was shown without passing through a catalog.

The vocabulary is every word written in lower case in an English source sentence of the
catalogs (what the ledger itself may say; a capitalised word only there is a name, an
all-capitals one an abbreviation); names, notation, numbers, commands in backquotes and the
values a sentence was given are not in it or are inside the brackets, so they pass."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from ledger.i18n import PSEUDO_CLOSE, PSEUDO_OPEN

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = [
    ROOT / "ledger" / "locale" / "es" / "LC_MESSAGES" / "ledger.po",
    ROOT / "ledger" / "locale" / "es" / "LC_MESSAGES" / "page.po",
]

# Words a line may show as they are in every language: the interface (commands, options,
# system names typed as they are), units and the notation's letters.
INTERFACE = {
    "ledger",
    "crawl",
    "dicepool",
    "yearzero",
    "d100",
    "d20",
    "freeform",
    "coin",
    "yz",
    "dp",
    "json",
    "sqlite",
    "postgresql",
    "duckdb",
    "sha256",
    "ed25519",
    "http",
    "https",
    "url",
    "api",
    "gm",
    "ok",
    "id",
    "utc",
    "jsonl",
    "html",
    "sql",
    "csv",
    "md",
    "toml",
    "qr",
    "lan",
}
WORD = re.compile(r"[A-Za-z][A-Za-z']+")


@cache
def table_keys() -> frozenset[str]:
    """The keys of the sample tables (``bar``, ``pipe``, ``hard``): identifiers a player types
    to name a row, the same in every language, not sentences."""
    import tomllib

    keys: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                keys.update(w.lower() for w in WORD.findall(str(key)))
                walk(inner)

    for path in (ROOT / "samples").glob("*/*.toml"):
        walk(tomllib.loads(path.read_text(encoding="utf-8")))
    return frozenset(keys)


def typed(commands: list[str]) -> set[str]:
    """The words a user typed in ``commands`` (names, labels, table names): shown back as
    typed, in any language."""
    return {w.lower() for command in commands for w in WORD.findall(command)}


@cache
def vocabulary() -> frozenset[str]:
    from babel.messages.pofile import read_po

    words: set[str] = set()
    for po in CATALOGS:
        if not po.exists():
            continue
        with po.open("rb") as f:
            catalog = read_po(f)
        for message in catalog:
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            for text in ids:
                text = re.sub(r"\{[^{}]*\}|`[^`]*`", " ", text or "")
                words.update(w for w in WORD.findall(text) if len(w) >= 3 and w.islower())
    return frozenset(words - INTERFACE)


def strip_translated(text: str) -> str:
    """``text`` without its bracketed (translated) parts, innermost first."""
    inner = re.compile(
        re.escape(PSEUDO_OPEN) + r"[^" + PSEUDO_OPEN + PSEUDO_CLOSE + r"]*" + re.escape(PSEUDO_CLOSE)
    )
    while True:
        stripped = inner.sub(" ", text)
        if stripped == text:
            return stripped
        text = stripped


def untranslated(text: str, allowed: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The lines of ``text`` that show a word of the ledger's vocabulary outside any
    translated sentence, each with the words that gave it away."""
    vocab, keys = vocabulary(), table_keys()
    found = []
    for line in text.splitlines():
        rest = strip_translated(line)
        rest = re.sub(r"\$ ledger\b.*?(?=\s{2,}|\(|$)", " ", rest)  # a command as typed
        rest = re.sub(r"\b(?:ledger|crawl|yz|yearzero|d20|d100|dicepool|coin)(?: [a-z][a-z-]*)+", " ", rest)
        rest = re.sub(r"`[^`]*`|https?://\S+|\S*[/\\]\S*|\b[0-9a-f]{8,}\b", " ", rest)
        words = [
            w
            for w in WORD.findall(rest)
            if not w.isupper() and w.lower() in vocab and w.lower() not in allowed and w.lower() not in keys
        ]
        if words:
            found.append(f"{line.strip()}   <- {', '.join(sorted(set(words)))}")
    return found
