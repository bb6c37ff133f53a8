"""The kernel speaks the player's language: its refusals, their fixes and the log's lines in
Spanish when Spanish is chosen (``--lang es``, ``LEDGER_LANG=es``), on one line and with the
same exit code and JSON fields as in English; what is stored stays English (an undo's summary
of what it undid). A table file may write a text in either language or both, and names only
languages the ledger speaks."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from ledger import Ledger, i18n
from ledger.errors import TableError
from ledger.log.events import ActionUndone, retold
from ledger.tables import browse
from ledger.tables import file as tablefile
from tests.conftest import Session

ROOT = Path(__file__).parents[1]


@pytest.fixture(autouse=True)
def _language_of_the_environment() -> Iterator[None]:
    """Each test starts in the environment's language (English here): an in-process
    ``--lang es`` sets the language of the context, which would outlive its command."""
    i18n.set_language(None)
    yield
    i18n.set_language(None)


def one_line(text: str) -> str:
    """The one line a refusal prints (stderr or stdout), checked to be one."""
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_an_unknown_campaign_is_refused_in_spanish_with_ledger_lang(tmp_path: Path) -> None:
    db = str(tmp_path / "x.ledger")
    base = {k: v for k, v in os.environ.items() if k not in ("LEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG")}

    def run(*args: str, lang: str | None = None) -> subprocess.CompletedProcess[str]:
        env = dict(base, **({"LEDGER_LANG": lang} if lang else {}))
        command = [sys.executable, "-m", "ledger.cli.main", "--db", db, *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)

    assert run("new", "freeform", "Mesa").returncode == 0
    english = run("-c", "Nada", "log")
    spanish = run("-c", "Nada", "log", lang="es")
    assert spanish.returncode == english.returncode != 0
    line = one_line(spanish.stderr)
    assert "no hay ninguna campaña llamada 'Nada' (existentes: Mesa)" in line
    assert "no campaign named" not in line
    assert "no campaign named 'Nada' (known: Mesa)" in one_line(english.stderr)


def test_nothing_to_undo_in_spanish_and_in_english(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Mesa")
    english = ledger_cli("undo", ok=False)
    spanish = ledger_cli("--lang", "es", "undo", ok=False)
    assert spanish.exit_code == english.exit_code != 0
    assert "nothing to undo in 'Mesa'" in one_line(english.stderr)
    assert "no hay nada que deshacer en 'Mesa'" in one_line(spanish.stderr)


def test_a_json_refusal_keeps_its_type_and_fields_with_a_spanish_message(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Aquí")
    result = ledger_cli("--lang", "es", "--json", "-c", "Allí", "note", "x", ok=False)
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "UnknownCampaignError" and error["exit_code"] == result.exit_code == 1
    assert error["name"] == "Allí" and error["known"] == ["Aquí"]
    assert error["message"].startswith("no hay ninguna campaña llamada 'Allí'"), error
    assert "\n" not in error["message"]


def test_a_tampered_log_fails_verification_in_spanish(ledger_cli: Session, db: str) -> None:
    ledger_cli("new", "freeform", "Mesa")
    ledger_cli("note", "el dragón duerme")
    with sqlite3.connect(db) as conn:
        rowid, state = next(
            (r, bytes(s))
            for r, s in conn.execute("SELECT rowid, state FROM ledger_events")
            if b"duerme" in bytes(s)
        )
        conn.execute(
            "UPDATE ledger_events SET state=? WHERE rowid=?", (state.replace(b"duerme", b"vuela!"), rowid)
        )
    english = ledger_cli("verify", ok=False)
    spanish = ledger_cli("--lang", "es", "verify", ok=False)
    assert spanish.exit_code == english.exit_code == 4
    said = one_line(spanish.stdout + spanish.stderr)
    assert "la campaña 'Mesa' no supera la verificación en la versión 2" in said, said
    assert "el hash no coincide con los bytes guardados (el evento se editó)" in said
    assert "fails verification at version 2" in one_line(english.stdout + english.stderr)


def test_the_log_is_told_in_spanish_but_an_undo_stores_english(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "x.ledger")) as book:
        book.new_campaign("freeform", "Mesa", seed=7)
        with i18n.using("es"):
            book.note("llueve", campaign="Mesa")
            recorded = book.undo("Mesa")
        undone = recorded.envelopes[0].event
        assert isinstance(undone, ActionUndone)
        assert undone.what == "note: llueve"  # stored as in English, whatever the language
        with i18n.using("es"):  # told again in the reader's language
            assert undone.summary() == "deshacer v2: nota: llueve"
        with i18n.using("qps"):
            assert undone.summary() == "⟦ûñdö v2: ⟦ñöté: llueve⟧⟧"
        assert undone.summary() == "undo v2: note: llueve"


def test_a_bad_name_is_refused_in_spanish(ledger_cli: Session) -> None:
    english = ledger_cli("new", "freeform", " Mesa", ok=False)
    spanish = ledger_cli("--lang", "es", "new", "freeform", " Mesa", ok=False)
    assert spanish.exit_code == english.exit_code != 0
    assert "campaign name ' Mesa' is not allowed: it starts with U+0020 SPACE" in one_line(english.stderr)
    line = one_line(spanish.stderr)
    assert "el nombre de campaña ' Mesa' no se admite: empieza por U+0020 SPACE" in line
    assert "usa de 1 a 64 letras o dígitos" in line


# --- table files in one language or two ---------------------------------------------------


class Row(msgspec.Struct, forbid_unknown_fields=True):
    text: tablefile.Words


class Sample(msgspec.Struct, forbid_unknown_fields=True):
    title: tablefile.Words
    ruins: dict[str, Row]


BILINGUAL = """
title = { en = "Ruins", es = "Ruinas" }
[ruins.1]
text = { en = "A fallen tower", es = "Una torre caída" }
[ruins.2]
text = "Only in one language"
[ruins.3]
text = { es = "Solo en español" }
"""


def test_a_bilingual_table_file_is_read_in_either_language() -> None:
    tables = tablefile.decode(BILINGUAL, Sample, "ruins.toml")
    rows = tables.ruins
    with i18n.using("en"):
        assert tablefile.said(tables.title) == "Ruins"
        assert [tablefile.said(rows[k].text) for k in "123"] == [
            "A fallen tower",
            "Only in one language",
            "Solo en español",  # no English: the language it has
        ]
    with i18n.using("es"):
        assert tablefile.said(tables.title) == "Ruinas"
        assert [tablefile.said(rows[k].text) for k in "123"] == [
            "Una torre caída",
            "Only in one language",
            "Solo en español",
        ]
    assert tablefile.every(tables.title) == ("Ruins", "Ruinas")
    assert tablefile.every(rows["2"].text) == ("Only in one language",)


@pytest.mark.parametrize(
    ("toml", "place", "problem"),
    [
        ('title = "T"\n[ruins.1]\ntext = { fr = "Une tour" }', "ruins.1.text", "key `fr` is no language"),
        ('title = { en = "T", de = "X" }\n[ruins]', "title", "key `de` is no language"),
        ('title = "T"\n[ruins.1]\ntext = { en = 5 }', "ruins.1.text.en", "expected text, got a whole number"),
        ('title = "T"\n[ruins.1]\ntext = {}', "ruins.1.text", "expected a table of length >= 1"),
        ('title = "T"\n[ruins.1]\ntext = { es = "" }', "ruins.1.text.es", "expected text of length >= 1"),
        ('title = "T"\n[ruins.1]\ntext = 3', "ruins.1.text", "text, or a table of texts by language"),
    ],
)
def test_a_table_file_names_only_languages_the_ledger_speaks(toml: str, place: str, problem: str) -> None:
    with pytest.raises(TableError) as refused:
        tablefile.decode(toml, Sample, "mine.toml")
    said = str(refused.value)
    assert one_line(said).startswith(f"mine.toml: {place}: ")
    assert problem in said
    assert refused.value.fix is not None and refused.value.fix.action == "edit_tables"
    assert said.endswith(f"fix {place} in the table file")


def test_a_bad_language_key_is_refused_in_spanish_too() -> None:
    with i18n.using("es"), pytest.raises(TableError) as refused:
        tablefile.decode('title = "T"\n[ruins.1]\ntext = { fr = "Une tour" }', Sample, "mine.toml")
    said = one_line(str(refused.value))
    assert said == (
        "mine.toml: ruins.1.text: la clave `fr` no es un idioma que hable el registro; escribe el "
        "texto en cualquiera de en, es; corrige ruins.1.text en el archivo de tablas"
    )


def test_a_table_is_found_by_its_name_in_either_language() -> None:
    tables = [
        browse.Table("ruins", "Ruins", (), "1d6", aliases=("Ruins", "Ruinas")),
        browse.Table("rewards", "Loot after a fight", (), "1d6", aliases=("Botín tras un combate",)),
    ]
    assert browse.find(tables, "ruins", "crawl").name == "ruins"
    assert browse.find(tables, "RUINAS", "crawl").name == "ruins"
    assert browse.find(tables, "botin tras un combate", "crawl").name == "rewards"  # accents aside
    with pytest.raises(Exception, match="no table 'nada' in crawl; its tables: ruins, rewards"):
        browse.find(tables, "nada", "crawl")
    with i18n.using("es"), pytest.raises(Exception, match="no hay ninguna tabla 'nada' en crawl"):
        browse.find(tables, "nada", "crawl")


def test_a_word_naming_two_tables_is_refused_naming_both() -> None:
    tables = [
        browse.Table("camp", "Camp", (), "1d6", aliases=("Campamento",)),
        browse.Table("field", "Field", (), "1d6", aliases=("campamento",)),
    ]
    with pytest.raises(
        Exception, match=r"names more than one table in crawl: camp \(Camp\), field \(Field\)"
    ):
        browse.find(tables, "Campamento", "crawl")


def test_a_truncated_export_is_refused_in_spanish(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Mesa")
    ledger_cli("note", "primera")
    ledger_cli("note", "segunda")
    whole = tmp_path / "mesa.jsonl"
    ledger_cli("export", "--unsigned", "-o", str(whole))
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(whole.read_text().splitlines(keepends=True)[:-1]))
    english = ledger_cli("import", str(cut), "--name", "Copia", ok=False)
    spanish = ledger_cli("--lang", "es", "import", str(cut), "--name", "Copia", ok=False)
    assert spanish.exit_code == english.exit_code == 4
    assert "import refused: the file ends before its recorded head (truncated)" in one_line(english.stderr)
    line = one_line(spanish.stderr)
    assert (
        "importación rechazada: el archivo termina antes de su última versión registrada (truncado)" in line
    )


def test_the_log_reads_in_spanish(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "Mesa", "--seed", "3")
    ledger_cli("roll", "1d20+2>=10", "ataque")
    ledger_cli("note", "llueve")
    english = ledger_cli("log").stdout
    spanish = ledger_cli("--lang", "es", "log").stdout
    assert "campaign 'Mesa' started (freeform, seed 3)" in english
    assert "campaña 'Mesa' empezada (freeform, semilla 3)" in spanish
    assert "rolled ataque: 1d20+2>=10 = " in english and "tirada ataque: 1d20+2>=10 = " in spanish
    assert ("éxito" in spanish) == ("success" in english) and ("fallo" in spanish) == ("failure" in english)
    assert "nota: llueve" in spanish and "note: llueve" in english


def test_a_stored_summary_is_told_again_in_spanish() -> None:
    """An undo's stored English summary reads again in the reader's language, its values as
    they were written and its fragments said again; a text that is no sentence of the
    catalogs is shown as stored."""
    physical = "rolled attack: 1d20+5>=10 = 16, success [11] (physical dice)"
    with i18n.using("es"):
        assert retold(physical) == "tirada attack: 1d20+5>=10 = 16, éxito [11] (dados físicos)"
        assert retold("rolled 1d20 = 3, failure [3]") == "tirada 1d20 = 3, fallo [3]"
        assert (
            retold("campaign 'Mesa' started (freeform, seed 3)")
            == "campaña 'Mesa' empezada (freeform, semilla 3)"
        )
        assert retold("Ada found a key") == "Ada found a key"
    assert retold(physical) == physical
