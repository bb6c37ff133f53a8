"""The dice pool, the dice notation and the freeform sheet in Spanish and English: what a
Spanish-speaking table reads (``ledger --lang es``), the game's words typed in either
language and stored as the same key, a word two languages read two ways refused, and the
English the ledger has always written left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger import Ledger, i18n
from ledger.dice.notation import parse
from ledger.dice.sources import Faces, render, roll
from ledger.errors import NotationError, RuleError
from ledger.systems.dicepool.commands import Attack, Join
from ledger.systems.dicepool.commands import Test as SkillTest
from ledger.systems.dicepool.events import Attacked
from ledger.systems.dicepool.events import Tested as SkillTested
from tests.conftest import Session

EDDIE = ("--attr", "resistencia=4", "--attr", "rapidez=5", "--attr", "habilidad.pistolas=5")
EDDIE += ("--attr", "skill.stealth=3", "--attr", "reserva.combate=6", "--attr", "arma=ares_predator")


@pytest.fixture
def table(db: str) -> Session:
    """A street campaign whose runner was made in Spanish, and his target in English."""
    session = Session(db)
    session("--lang", "es", "new", "dicepool", "alley")
    session("--lang", "es", "dicepool", "join", "Eddie", *EDDIE)
    session("--lang", "en", "dicepool", "join", "Mark", "--attr", "body=3", "--attr", "pool.combat=6")
    return session


def events(db: str, kind: type) -> list:
    with Ledger(db) as book:
        return [e.event for e in book.log("alley", show_all=True) if isinstance(e.event, kind)]


def test_a_runner_made_in_spanish_is_stored_with_the_conventions_keys(table: Session, db: str) -> None:
    with Ledger(db) as book:
        attrs = book.state("alley").core.attrs["Eddie"]
    assert attrs == {
        "body": "4",
        "quickness": "5",
        "skill.pistols": "5",
        "skill.stealth": "3",
        "pool.combat": "6",
        "weapon": "ares_predator",
    }


def test_a_test_in_spanish_reads_in_spanish_and_records_the_key(table: Session, db: str) -> None:
    out = table(
        "--lang", "es", "dicepool", "test", "sigilo", "--tn", "4", "--as", "Eddie", "--faces", "1,5,6"
    )
    assert out.output.splitlines() == [
        "Eddie chequea Sigilo 3 a dificultad 4: 2 éxitos [1, 5, 6]",
        "  dificultad 4 = 4; p(1+ éxito) = 0.8750",
    ]
    table("--lang", "en", "dicepool", "test", "stealth", "--tn", "4", "--as", "Eddie", "--faces", "2,2,2")
    first, second = events(db, SkillTested)
    assert first.defaulting.wanted == second.defaulting.wanted == "stealth"
    assert first.defaulting.used == second.defaulting.used == "stealth"


def test_an_attribute_named_in_either_language_is_the_same_attribute(table: Session, db: str) -> None:
    table(
        "--lang", "es", "dicepool", "test", "Resistencia", "--tn", "4", "--as", "Eddie", "--faces", "1,2,3,4"
    )
    table("--lang", "en", "dicepool", "test", "body", "--tn", "4", "--as", "Eddie", "--faces", "1,2,3,4")
    table(
        "--lang", "en", "dicepool", "test", "resistencia", "--tn", "4", "--as", "Eddie", "--faces", "1,2,3,4"
    )
    assert {(e.defaulting.used, e.defaulting.how) for e in events(db, SkillTested)} == {("body", "attribute")}


def test_the_worked_example_in_spanish(table: Session, db: str) -> None:
    """ "Eddie dispara su Ares Predator contra Mark [...] la dificultad será 5 (pues es medio
    alcance), a lo que resta 1 porque Eddie tiene un sensiarma, pero no implantado"."""
    shot = table(
        "--lang", "es", "dicepool", "attack", "--as", "Eddie", "--target", "Mark", "--pool", "4",
        "--range", "medio", "--mod", "smartlink_external", "--faces", "3,5,5,6,4,5,1,6,6",
    )  # fmt: skip
    assert shot.output.splitlines() == [
        "Eddie ataca a Mark con Ares Predator (alcance medio, Pistolas 5 +4 de reserva) a dificultad 4: "
        "7 éxitos [3, 5, 5, 6, 4, 5, 1, 6, 6]",
        "  dificultad 5 -1 sensiarma no implantado = 4; p(un impacto, 1+ éxito) = 0.9980",
    ]
    (attack,) = events(db, Attacked)
    assert (attack.range_class, attack.effective_class) == ("medium", "medium")
    assert attack.roll.modifiers[0].reason == "smartlink, not implanted (sensiarma no implantado)"
    table("--lang", "es", "dicepool", "dodge", "--as", "Mark", "--pool", "3", "--faces", "4,2,3")
    hit = table("--lang", "es", "dicepool", "resist", "--as", "Mark", "--pool", "3", "--armor", "2",
                "--faces", "2,6,1,5,6,2,6,3,5")  # fmt: skip
    assert hit.output.splitlines()[0] == (
        "Mark resiste 9L (armadura 2, potencia 7) con 6 dados: 3 éxitos [2, 6+1=7, 5, 6+2=8, 6+3=9, 5]; "
        "neto +3, la herida pasa de L a G: herida G, 6 casillas físicas"
    )
    english = table("--lang", "en", "dicepool", "exchange").output
    assert english == (
        "#1 Eddie -> Mark: 7 successes; 1 dodged (6 left); 9L vs armor 2 = power 7, 3 resisted; "
        "net +3, staged L -> G: 6 physical boxes; resolved\n"
    )
    spanish = table("--lang", "es", "dicepool", "exchange").output
    assert spanish == (
        "#1 Eddie -> Mark: 7 éxitos; 1 esquivados (quedan 6); 9L contra armadura 2 = potencia 7, "
        "3 resistidos; neto +3, escalada L -> G: 6 casillas físicas; resuelto\n"
    )


def test_the_sheet_and_the_log_in_spanish(table: Session) -> None:
    table(
        "--lang", "es", "dicepool", "test", "pistolas", "--tn", "5", "--as", "Eddie", "--faces", "1,2,3,5,6"
    )
    sheet = table("--lang", "es", "sheet", "--as", "Eddie").output
    assert "Eddie (activo), alley" in sheet
    assert "Resistencia 4, Rapidez 5" in sheet
    assert "Pistolas 5, Sigilo 3" in sheet
    assert "Eddie 0F/0A reserva 6, Mark 0F/0A reserva 6" in sheet
    log = table("--lang", "es", "log").output
    assert "Eddie chequea Pistolas 5 a dificultad 5: 2 éxitos [1, 2, 3, 5, 6]" in log
    english = table("--lang", "en", "sheet", "--as", "Eddie").output
    assert "Eddie (active), alley" in english and "body 4, quickness 5" in english
    assert "pistols 5, stealth 3" in english
    assert "Eddie tests pistols 5 at TN 5: 2 successes [1, 2, 3, 5, 6]" in table("--lang", "en", "log").output


def test_spanish_refusals_name_the_game_in_spanish(table: Session) -> None:
    far = table("--lang", "es", "dicepool", "attack", "--as", "Eddie", "--target", "Mark", "--pool", "9",
                "--range", "largo", ok=False)  # fmt: skip
    assert "Eddie puede gastar aquí 6 dados de la reserva de Combate, no 9" in far.output
    heal = table("--lang", "es", "dicepool", "heal", "--as", "Mark", "--boxes", "2", "--track", "aturdimiento",
                 ok=False)  # fmt: skip
    assert "Mark no tiene casillas de aturdimiento que curar" in heal.output


def test_a_word_read_two_ways_is_refused_naming_both(tmp_path: Path) -> None:
    """A Spanish group's own skill web has a skill ``conducir``; in Spanish "Conducir" is
    also the sample web's ``car``: typing it is refused, naming both readings."""
    own = tmp_path / "own.toml"
    own.write_text(
        '[skills.conducir]\nattribute = "reaction"\n[skills.car]\nattribute = "reaction"\n'
        '[skills.pistols]\nattribute = "quickness"\n',
        encoding="utf-8",
    )
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("dicepool", "alley", tables=str(own))
        attrs = {"body": "4", "reaction": "4", "skill.conducir": "3", "skill.car": "2"}
        book.execute(Join(name="Rosa", attrs=attrs), "alley")
        readings = {
            "es": "'Conducir' se lee de dos maneras: conducir (una clave de las tablas) o car (en castellano)",
            "en": "'Conducir' reads two ways: conducir (a key of the tables) or car (in Spanish)",
        }
        for lang, said in readings.items():
            with i18n.using(lang), pytest.raises(RuleError) as refused:
                book.execute(SkillTest(skill="Conducir", tn=4), "alley", actor="Rosa", faces=[1, 2, 3])
            assert refused.value.message.startswith(said), refused.value.message
        # the key settles it, in either language
        rec = book.execute(SkillTest(skill="car", tn=4), "alley", actor="Rosa", faces=[4, 5])
        assert rec.events[0].defaulting.used == "car"


def test_spanish_range_and_track_words_are_the_keys(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("dicepool", "alley")
        book.execute(Join(name="Eddie", attrs={"body": "4", "skill.pistols": "5"}), "alley")
        rec = book.execute(Attack(skill="Pistolas", range="Extremo", weapon="ares_predator"), "alley",
                           actor="Eddie", faces=[1, 2, 3, 4, 5])  # fmt: skip
        event = rec.events[0]
        assert (event.range_class, event.defaulting.used) == ("extreme", "pistols")


NOTATION_ERRORS = [
    ("4d6x2>=5", "es la explosión limitada de Foundry (como mucho 2 explosiones con >=5)"),
    ("2d6r1=1", "es la repetición limitada de Foundry (como mucho 1 repetición de un dado =1)"),
    ("4d6kh5", "kh5 conserva 5 de 4 dados; conserva de 1 a 4"),
    ("3d6/0", "divide por cero"),
    ("", "está vacía"),
]


@pytest.mark.parametrize(("notation", "spanish"), NOTATION_ERRORS)
def test_the_notations_refusals_in_spanish(notation: str, spanish: str) -> None:
    with i18n.using("es"), pytest.raises(NotationError) as refused:
        parse(notation)
    assert spanish in refused.value.message
    with i18n.using("en"), pytest.raises(NotationError) as english:
        parse(notation)
    assert spanish not in english.value.message


def test_the_foundry_capped_explosion_in_english_is_unchanged() -> None:
    with i18n.using("en"), pytest.raises(NotationError) as refused:
        parse("4d6x2>=5")
    assert (
        "4d6x2>=5 is Foundry's capped explosion (at most 2 explosions on >=5), which the ledger does not "
        "roll: write 4d6x>=5 to explode on >=5 without a cap, or 4d6x2cs>=5 to explode on 2 and count the "
        "dice >=5" in refused.value.message
    )


def test_physical_dice_refusals_in_spanish(table: Session) -> None:
    out = table(
        "--lang",
        "es",
        "dicepool",
        "test",
        "sigilo",
        "--tn",
        "9",
        "--as",
        "Eddie",
        "--dice",
        "1",
        "--faces",
        "6",
        ok=False,
    )
    assert "el dado 1 saca un 6 a dificultad 9, así que la regla del seis lo vuelve a tirar" in out.output


def test_a_rolled_notation_reads_in_spanish() -> None:
    result = roll("8d6>=5", Faces([1, 2, 3, 4, 5, 6, 5, 6]))
    with i18n.using("es"):
        assert render(result) == "8d6>=5 = 4 éxitos  [1, 2, 3, 4, 5, 6, 5, 6]"
    with i18n.using("en"):
        assert render(result) == "8d6>=5 = 4 successes  [1, 2, 3, 4, 5, 6, 5, 6]"


def test_the_freeform_sheet_in_spanish(db: str) -> None:
    session = Session(db)
    session("--lang", "en", "new", "freeform", "table")
    session("--lang", "en", "character", "add", "Ana")
    session("--lang", "en", "roll", "2d6", "--as", "Ana", "--faces", "3,4")
    session("--lang", "en", "roll", "1d6", "--as", "Ana", "--faces", "4")
    assert "Ana: 2 tiradas, media 5,5" in session("--lang", "es", "sheet").output
    assert "Ana: 2 rolls, average 5.5" in session("--lang", "en", "sheet").output


def test_the_sample_modifiers_are_given_in_both_languages() -> None:
    from ledger.systems.dicepool.tables import listing, load_tables

    data, _source = load_tables(None)
    assert all(
        isinstance(m["text"], dict) and set(m["text"]) == {"en", "es"} for m in data["modifiers"].values()
    )
    with i18n.using("es"):
        rows = {t.name: t for t in listing(data)}["modifiers"].rows
    assert any(r.text == "-1 a la dificultad: sensiarma no implantado" for r in rows)
    with i18n.using("en"):
        rows = {t.name: t for t in listing(data)}["modifiers"].rows
    assert any(r.text == "-1 TN: smartlink, not implanted (sensiarma no implantado)" for r in rows)


def test_json_keeps_its_keys_and_values(table: Session) -> None:
    out = table("--lang", "es", "--json", "dicepool", "test", "sigilo", "--tn", "4", "--as", "Eddie",
                "--faces", "1,5,6")  # fmt: skip
    data = json.loads(out.output)
    event = data["events"][0]
    assert event["kind"] == "dicepool.tested"
    assert event["defaulting"] == {"wanted": "stealth", "used": "stealth", "how": "skill", "rating": 3}


def test_a_tables_file_may_give_its_texts_in_one_language_or_both(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(
        '[modifiers.humo]\ntn = 2\ntext = { es = "humo denso" }\n'
        '[modifiers.fog]\ntn = 1\ntext = { en = "fog", es = "niebla" }\n'
        '[modifiers.rain]\ntn = 1\ntext = "rain"\n',
        encoding="utf-8",
    )
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("dicepool", "alley", tables=str(own))
        book.execute(Join(name="Eddie", attrs={"body": "4", "skill.stealth": "3"}), "alley")
        rec = book.execute(SkillTest(skill="sigilo", tn=4, mods=("humo", "fog", "rain")), "alley",
                           actor="Eddie", faces=[1, 2, 3])  # fmt: skip
        reasons = [m.reason for m in rec.events[0].roll.modifiers]
        assert reasons == ["humo denso", "fog", "rain"]
    bad = tmp_path / "bad.toml"
    bad.write_text('[modifiers.humo]\ntn = 2\ntext = { fr = "fumée" }\n', encoding="utf-8")
    with Ledger(str(tmp_path / "u.ledger")) as book, i18n.using("es"), pytest.raises(Exception) as refused:
        book.new_campaign("dicepool", "alley", tables=str(bad))
    assert "un texto en varios idiomas da cada uno por su código (en, es); se recibió fr" in str(
        refused.value
    )


def test_the_tn_line_shows_a_tables_modifier_in_the_readers_language(db: str, tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text('[modifiers.fog]\ntn = 1\ntext = { en = "fog", es = "niebla" }\n', encoding="utf-8")
    session = Session(db)
    session("--lang", "en", "new", "dicepool", "alley", "--tables", str(own))
    session("--lang", "en", "dicepool", "join", "Eddie", "--attr", "body=4", "--attr", "skill.stealth=3")
    out = session("--lang", "es", "dicepool", "test", "stealth", "--tn", "4", "--mod", "fog", "--mod", "+1",
                  "--as", "Eddie", "--faces", "6,6,6").output  # fmt: skip
    assert "  dificultad 4 +1 niebla +1 modificador +1 = 6; p(1+ éxito)" in out
