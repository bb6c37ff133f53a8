"""The crawl in Spanish and English: the game words as the Spanish rules write them, a table
roll's text in the reader's language, words typed in either language stored as one key, and
a campaign played in one language read in the other (the log is the same)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from ledger import Ledger, i18n
from ledger.cli.crawl_help import WALKTHROUGH
from ledger.cli.main import cli
from ledger.errors import RuleError, TableError
from ledger.projections.crawl import views
from ledger.systems.crawl import events as ev
from ledger.systems.crawl import terms
from ledger.systems.crawl.order import Buy, Eat, Explore, Move, Sleep, Terrain
from ledger.systems.crawl.system import SYSTEM
from ledger.systems.crawl.tables import load_tables
from tests.test_crawl import write_tables

SAMPLE = Path(__file__).parents[1] / "samples" / "crawl" / "campaign.jsonl"


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """``--lang`` sets the language of the moment for the process: each test starts in English
    and leaves the language to the environment again."""
    i18n.set_language("en")
    yield
    i18n.set_language(None)


@pytest.fixture
def run(tmp_path: Path) -> Any:
    runner = CliRunner()
    db = str(tmp_path / "cli.ledger")

    def invoke(*args: str) -> Any:
        return runner.invoke(cli, ["--db", db, *args])

    return invoke


def first_day(run: Any, lang: str, food: str = "bar", where: str = "wild") -> list[str]:
    """Day 1 on the sample tables: north, a forest (2), wild fruit trees (2+3), a meal, a night."""
    return [
        run("--lang", lang, "crawl", "move", "n").output,
        run("--lang", lang, "crawl", "terrain", "--faces", "2").output,
        run("--lang", lang, "crawl", "event", "--faces", "2,3").output,
        run("--lang", lang, "crawl", "eat", food).output,
        run("--lang", lang, "crawl", "sleep", where).output,
    ]


def test_a_day_in_spanish_says_the_game_words_of_the_spanish_rules(run: Any) -> None:
    assert run("new", "crawl", "viaje", "--explorer", "Ada").exit_code == 0
    moved, terrain, event, ate, slept = first_day(run, "es", "barra", "naturaleza")
    assert "día 1: avanza al n hasta (0,-1)" in moved
    assert "Salud 10  Energía 10  barras 3 fruta 0 bits 3" in moved
    assert "terreno d6 [2]: bosque (dados físicos)" in terrain
    # the table roll's text, recorded in English, read in Spanish from the sample's row
    assert "events.forest [2, 3] = 5: árboles frutales silvestres (dados físicos)" in event
    assert "árboles frutales silvestres: fruta +2" in event
    assert "come barra: Salud +2 Energía +1 (comida 1)" in ate
    assert "duerme (naturaleza): Salud +3 Energía +2" in slept
    assert (
        "termina el día 1 (durmió): caminó al n; bosque; árboles frutales silvestres; comió barra; "
        "durmió: naturaleza"
    ) in slept
    sheet = run("--lang", "es", "sheet").output
    assert "Ada in viaje, day 1: vivo" in sheet or "Ada en viaje, día 1: vivo" in sheet
    data = json.loads(run("--lang", "es", "sheet", "--json").output)
    assert (data["inventory"], data["carrying"]) == (["knife"], ["cuchillo"])
    assert (data["position"]["terrain"], data["position"]["name"]) == ("forest", "bosque")
    assert (data["weapon"]["name"], data["weapon"]["shown"], data["status"]) == ("knife", "cuchillo", "vivo")
    assert data["next_chapter"]["name"] == "los Durmientes"
    journal = run("--lang", "es", "journal").output
    assert "caminó al n; bosque; árboles frutales silvestres; comió barra; durmió: naturaleza" in journal
    calendar = run("--lang", "es", "crawl", "calendar").output
    assert "capítulo 1  los Durmientes" in calendar and "(dentro de 2 días)" in calendar
    shown = run("--lang", "es", "crawl", "map").output
    assert "@ tú (día 1)" in shown and "b=bosque" in shown


def test_the_same_day_in_english_is_unchanged(run: Any) -> None:
    assert run("new", "crawl", "trip", "--explorer", "Ada").exit_code == 0
    moved, terrain, event, ate, slept = first_day(run, "en")
    assert "day 1: moved n to (0,-1)" in moved
    assert "day 1  Health 10  Energy 10  bars 3 fruit 0 bits 3" in moved
    assert "terrain d6 [2]: forest (physical dice)" in terrain
    assert "events.forest [2, 3] = 5: wild fruit trees (physical dice)" in event
    assert "eats bar: Health +2 Energy +1 (meal 1)" in ate
    assert "day 1 ends (slept): walked n; forest; wild fruit trees; ate bar; slept wild" in slept
    assert "Ada in trip, day 1: alive" in run("--lang", "en", "sheet").output


def test_words_typed_in_either_language_are_stored_as_one_key(run: Any) -> None:
    played = {}
    for name, lang, food, where, direction in (
        ("es", "es", "barra", "naturaleza", "so"),
        ("en", "en", "bar", "wild", "sw"),
        ("mixed", "es", "bar", "WILD", "SW"),
        ("crossed", "en", "fruta", "Naturaleza", "so"),
    ):
        assert run("new", "crawl", name, "--explorer", "Ada").exit_code == 0
        out = [
            run("--lang", lang, "crawl", "move", direction),
            run("--lang", lang, "crawl", "terrain", "--faces", "2"),
            run("--lang", lang, "crawl", "event", "--faces", "2,3"),
            run("--lang", lang, "crawl", "eat", food),
            run("--lang", lang, "crawl", "sleep", where, "--json"),
        ]
        assert all(r.exit_code == 0 for r in out), [r.output for r in out]
        events = json.loads(out[-1].output)["events"]
        played[name] = events
    for events in played.values():
        assert [e["where"] for e in events if "where" in e] == ["wild"]
    exported = {name: run("export", "-c", name).output for name in played}
    stored = {
        name: [json.loads(line)["event"] for line in text.splitlines() if '"crawl.' in line]
        for name, text in exported.items()
    }
    assert stored["es"] == stored["en"] == stored["mixed"]
    moved = [e for e in stored["es"] if e.get("kind", e.get("type")) == "crawl.moved" or "direction" in e]
    assert moved and all(e["direction"] == "sw" for e in moved)
    assert any(e.get("food") == "fruit" for e in stored["crossed"])


def test_the_library_reads_either_language_too(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "l.ledger")) as book:
        book.new_campaign("crawl", "run", tables=write_tables(tmp_path / "t.toml"))
        book.execute(Move(direction="no"), "run")
        book.execute(Terrain(), "run", faces=[1])
        book.execute(Explore(repeat="pasar"), "run", faces=[2, 4])
        assert book.execute(Eat(food="Barra"), "run").events[0].food == "bar"
        slept = book.execute(Sleep(where="naturaleza"), "run").events
        assert slept[0].where == "wild"
        assert book.state("run").game.path[-1] == (-1, 0)  # no: north-west


def test_a_word_two_languages_read_as_two_terms_is_refused_naming_both(tmp_path: Path) -> None:
    """A user's shop sells a crowbar named ``barra`` and a ration ``bar``: ``barra`` is the
    first in English and the second in Spanish."""
    path = Path(write_tables(tmp_path / "t.toml"))
    path.write_text(
        path.read_text(encoding="utf-8") + '[shop.barra]\nprice = 3\ntext = "a crowbar"\nbar = 0\n',
        encoding="utf-8",
    )
    with Ledger(str(tmp_path / "a.ledger")) as book:
        book.new_campaign("crawl", "run", tables=str(path))
        book.execute(Move(direction="n"), "run")
        book.execute(Terrain(), "run", faces=[1])
        book.execute(Explore(), "run", faces=[4, 4])  # a town
        with pytest.raises(RuleError) as refused:
            book.execute(Buy(item="barra"), "run")
        message = str(refused.value)
        assert (
            "'barra' is ambiguous" in message and "barra (English)" in message and "bar (Español)" in message
        )
        assert "\n" not in message
        with i18n.using("es"), pytest.raises(RuleError, match="'barra' es ambiguo: se lee bar"):
            book.execute(Buy(item="barra"), "run")
        assert book.execute(Buy(item="bar"), "run").events[0].item == "bar"


def test_a_campaign_played_in_spanish_reads_in_english(run: Any) -> None:
    assert run("new", "crawl", "viaje", "--explorer", "Ada").exit_code == 0
    first_day(run, "es", "barra", "naturaleza")
    log = run("--lang", "en", "log").output
    assert "events.forest [2, 3] = 5: wild fruit trees (physical dice)" in log
    assert "day 1 ends (slept): walked n; forest; wild fruit trees; ate bar; slept wild" in log
    assert "árboles" not in log and "naturaleza" not in log
    journal = run("--lang", "en", "journal").output
    assert "walked n; forest; wild fruit trees; ate bar; slept wild" in journal
    exported = run("export").output
    assert "wild fruit trees" in exported and "árboles" not in exported


def test_the_sample_tables_give_every_text_in_both_languages_and_store_the_english() -> None:
    written = msgspec.toml.decode(
        (Path(__file__).parents[1] / "samples" / "crawl" / "tables.toml").read_bytes()
    )
    texts = [row["text"] for row in written["events"]["default"].values()]
    texts += [ware["text"] for ware in written["shop"].values()]
    assert texts and all(isinstance(t, dict) and t.get("en") and t.get("es") for t in texts)
    stored, _source = load_tables(None)
    assert stored["events"]["forest"]["5"]["text"] == "wild fruit trees"
    assert stored["shop"]["pipe"]["text"] == "a heavy iron pipe"


def test_a_users_table_in_two_languages_is_stored_so_and_rolled_in_english(tmp_path: Path) -> None:
    rows = {
        7: '{ text = { en = "a ration", es = "una ración" }, bar = 1 }',
        8: '{ text = { es = "un pueblo" }, town = true }',
    }
    path = write_tables(tmp_path / "t.toml", rows=rows)
    stored, _source = load_tables(path)
    assert stored["events"]["plain"]["7"]["text"] == {"en": "a ration", "es": "una ración"}
    with Ledger(str(tmp_path / "u.ledger")) as book:
        book.new_campaign("crawl", "run", tables=path)
        book.execute(Move(direction="n"), "run")
        book.execute(Terrain(), "run", faces=[1])
        rolled = book.execute(Explore(), "run", faces=[3, 4]).events[0]
        assert isinstance(rolled, ev.TableRolled) and rolled.text == "a ration"
        state = book.state("run")
        with i18n.using("es"):
            assert terms.table_text(rolled.table, rolled.row, rolled.text, state.core.tables) == "una ración"
            assert "una ración" in views.journal(state)[-1]["text"]
        with i18n.using("en"):
            assert rolled.summary() == "events.plain [3, 4] = 7: a ration (physical dice)"
            assert "a ration" in views.journal(state)[-1]["text"]
        listed = {t.name: t for t in SYSTEM.read.listing(state.core.tables)}
        assert any(r.text.startswith("a ration") for r in listed["events.plain"].rows)
        with i18n.using("es"):
            listed = {t.name: t for t in SYSTEM.read.listing(state.core.tables)}
        assert any(r.text.startswith("una ración") for r in listed["events.plain"].rows)
        assert any(r.text.startswith("un pueblo") for r in listed["events.plain"].rows)
        # an export of it imports again: its stored tables are tables the ledger stores
        out = io.BytesIO()
        book.export(out, "run")
    with Ledger(str(tmp_path / "v.ledger")) as other:
        camp = other.import_(io.BytesIO(out.getvalue()), "again")
        other.verify(camp.name)
        assert other.state("again").core.tables["events"]["plain"]["7"]["text"]["es"] == "una ración"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{ fr = "une ration" }', "fr"),
        ("{ }", "text"),
        ('{ en = "" }', "text"),
        ("{ en = 3 }", "text"),
    ],
)
def test_a_hostile_language_map_is_refused_in_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = write_tables(tmp_path / "t.toml", rows={7: f"{{ text = {text}, bar = 1 }}"})
    with pytest.raises(TableError) as refused:
        load_tables(path)
    message = str(refused.value)
    assert "\n" not in message and "events.default" in message and problem in message


def test_the_sample_campaign_journal_reads_in_spanish(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "s.ledger")) as book, SAMPLE.open("rb") as f:
        camp = book.import_(f)
        state = book.state(camp.name)
        english = views.journal(state)
        with i18n.using("es"):
            spanish = views.journal(state)
    assert len(english) == len(spanish)
    first = next(i for i, row in enumerate(english) if not row["text"].startswith("note"))
    assert english[first]["text"].startswith("walked ")
    assert spanish[first]["text"].startswith("caminó ")
    assert english != spanish


def test_help_and_walkthrough_in_spanish(run: Any) -> None:
    assert "Exploración de casillas en solitario" in run("--lang", "es", "crawl", "--help").output
    helped = run("--lang", "es", "crawl", "eat", "--help").output
    assert "Come una ración: barra (+2/+1)" in helped
    assert "Eat a ration: bar (+2/+1)" in run("--lang", "en", "crawl", "eat", "--help").output
    with i18n.using("es"):
        assert (
            i18n.translate(WALKTHROUGH.title)
            == "Juega un día de crawl (cada orden muestra lo que puede venir después)"
        )
        assert i18n.translate(WALKTHROUGH.steps[-1][1]) == "deshaz la última acción"


def test_an_unknown_word_is_refused_in_the_readers_language(run: Any) -> None:
    assert run("new", "crawl", "viaje", "--explorer", "Ada").exit_code == 0
    refused = run("--lang", "es", "crawl", "move", "oeste")
    assert refused.exit_code == 2 and "'oeste' no es un valor válido (dirección de casilla)" in refused.output
    assert "n, ne, se, s, so, no" in refused.output
    out = run("--lang", "es", "crawl", "event")
    assert out.exit_code == 1
    assert "error: event no sigue el orden del día: se esperaba move el día 0" in out.output


def test_the_game_words_have_their_spanish_names() -> None:
    with i18n.using("es"):
        assert [terms.stat(k) for k in ("health", "energy", "attack", "defense", "esc")] == [
            "Salud",
            "Energía",
            "Ataque",
            "Defensa",
            "ESC",
        ]
        assert terms.technique(5) == "carrera"
        assert terms.technique(6) == "flechas eléctricas" and terms.technique(7) == "flechas flamígeras"
        assert terms.word("reinforced bow") == "arco reforzado" and terms.word("solar taser") == "taser solar"
        assert terms.word("the Sleepers") == "los Durmientes"
        assert terms.word("a name of mine") == "a name of mine"
    assert terms.technique(6) == "electric arrows" and terms.word("solar taser") == "solar taser"


def test_a_technique_is_typed_by_its_number_or_its_name_in_either_language(run: Any) -> None:
    assert run("new", "crawl", "viaje", "--explorer", "Ada").exit_code == 0
    for typed in ("5", "carrera", "Sprint", "flechas flamígeras"):
        out = run("--lang", "es", "crawl", "technique", typed)
        assert out.exit_code == 1 and "technique no sigue el orden del día" in out.output, typed
    refused = run("--lang", "es", "crawl", "technique", "volar")
    assert refused.exit_code == 2 and "'volar' no es un valor válido (habilidad técnica)" in refused.output
    assert "esquiva y golpea" in refused.output and "carrera" in refused.output
