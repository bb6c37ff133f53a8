"""The d20 and d100 systems in Spanish and in English: the game words as each language's
rules write them, either language's words typed in either mode and stored as the same key,
a word the two languages read two ways refused, and a campaign played in one language
read in the other."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ledger import Ledger
from ledger.cli.main import cli

SAMPLES = Path(__file__).resolve().parents[1] / "samples"
SEVEN = "6,5,4,3,3,2,1,1,2,6,6,6,4,4,4,5,5,3,2,3,4"
ASSIGN = "fue=18,des=15,con=13,int=12,sab=9,car=8"
ANA = ["TAM=12", "CON=11", "FUE=10", "INT=14", "EDU=15", "DES=9", "CAR=12", "POD=13"]

Invoke = Callable[..., Result]


def runner_for(db: Path) -> Invoke:
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> Result:
        lang = () if "--lang" in args else ("--lang", "en")  # each command says its language
        result = runner.invoke(cli, ["--db", str(db), *lang, *args])
        assert result.exit_code == code, result.output
        return result

    return invoke


@pytest.fixture
def d20(tmp_path: Path) -> Invoke:
    ledger = runner_for(tmp_path / "d20.ledger")
    ledger("new", "d20", "Estación")
    ledger("d20", "create", "Ripley", "--class", "marine", "--assign", ASSIGN, "--faces", SEVEN)
    return ledger


@pytest.fixture
def d100(tmp_path: Path) -> Invoke:
    ledger = runner_for(tmp_path / "d100.ledger")
    ledger("new", "d100", "Casa")
    ledger("d100", "character", "Ana", *ANA, "skill.Trepar=40")
    return ledger


def events(db: Path, campaign: str) -> list[dict[str, Any]]:
    """The campaign's events as stored (without their envelopes)."""
    import msgspec

    with Ledger(str(db)) as book:
        return [msgspec.to_builtins(e.event) for e in book.log(campaign)]


# --- d20 --------------------------------------------------------------------------------


def test_a_d20_check_in_spanish_says_the_rules_words(d20: Invoke) -> None:
    out = d20(
        "--lang", "es", "d20", "check", "FUE", "--dc", "difícil", "--skill", "atletismo", "--faces", "12"
    )
    assert out.output.strip() == "Ripley prueba FUE + atletismo: d20 [12]+4 = 16 contra 14: éxito"
    out = d20("--lang", "es", "d20", "check", "SAB", "--dc", "muy-difícil", "--faces", "1")
    assert out.output.strip() == "Ripley prueba SAB: d20 [1]+0 = 1 contra 17: pifia"
    out = d20("--lang", "es", "d20", "damage", "3")
    assert out.output.strip() == "Ripley recibe 3 de daño: PV 8, PC 9"


def test_a_d20_check_in_english_is_english_throughout(d20: Invoke) -> None:
    out = d20("d20", "check", "STR", "--dc", "hard", "--skill", "athletics", "--faces", "12").output
    assert out.strip() == "Ripley check STR + athletics: d20 [12]+4 = 16 vs 14: success"
    sheet = d20("sheet").output
    assert "STR 18 (+3)" in sheet and "WIS 9 (+0)" in sheet
    assert "athletics, precision, perception" in sheet and "veteran, heavy-hands" in sheet
    assert "rifle rounds d8" in sheet and "800 shares" in sheet
    for spanish in ("FUE ", "SAB ", "PV ", "Atletismo", "Veterano", "acciones", "munición"):
        assert spanish not in sheet, spanish


def test_either_languages_words_are_stored_as_the_same_key(tmp_path: Path) -> None:
    spoken = {
        "es": ("FUE", "difícil", "atletismo", "--lang", "es"),
        "en": ("STR", "hard", "athletics", "--lang", "en"),
        "keys": ("fue", "hard", "athletics", "--lang", "en"),
        "names": ("fuerza", "14", "Atletismo", "--lang", "es"),
    }
    stored = []
    for name, (attribute, dc, skill, *lang) in spoken.items():
        db = tmp_path / f"{name}.ledger"
        ledger = runner_for(db)
        ledger("new", "d20", "Estación")
        ledger(*lang, "d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
        ledger(*lang, "d20", "check", attribute, "--dc", dc, "--skill", skill, "--faces", "12")
        stored.append(events(db, "Estación")[-1])
    assert all(e == stored[0] for e in stored), stored
    assert (stored[0]["attribute"], stored[0]["skill"], stored[0]["roll"]["target"]) == (
        "fue",
        "athletics",
        14,
    )


def test_the_d20_sheet_in_spanish(d20: Invoke) -> None:
    view = json.loads(d20("--lang", "es", "sheet", "--json").output)
    assert view["attributes"]["fue"] == {"score": 18, "mod": 3}  # the keys stay
    assert view["scores"][0] == "FUE 18 (+3)" and view["scores"][4] == "SAB 9 (+0)"
    assert view["skill_names"] == ["atletismo", "precisión", "percepción"]
    assert view["talent_names"] == ["veterano", "manos pesadas"]
    assert view["usage_dice"] == {"munición de rifle": "d8", "oxígeno": "d8", "raciones": "d6"}
    assert view["carried"] == ["rifle de pulsos", "cuchillo de combate"]
    assert view["status"] == "vivo" and view["class_name"] == "marine"
    text = d20("--lang", "es", "sheet").output
    assert "FUE 18 (+3), DES 15 (+1)" in text and "veterano" in text and "athletics" not in text


def test_a_weapon_and_a_supply_named_in_spanish(d20: Invoke) -> None:
    out = d20(
        "--lang",
        "es",
        "d20",
        "attack",
        "-w",
        "rifle de pulsos",
        "--def",
        "12",
        "--mode",
        "long",
        "--faces",
        "14,5,7,8",
    )
    assert (
        "Ripley ataca con rifle de pulsos en ráfaga larga" in out.output and "15 de daño [7,8]" in out.output
    )
    out = d20("--lang", "es", "d20", "usage", "oxígeno", "--faces", "1")
    assert out.output.strip() == "Ripley usa oxígeno: d8 [1] -> d6"
    assert "Ripley attacks with pulse rifle long burst" in d20("log").output


def test_the_panic_table_reads_in_the_language_of_the_moment(d20: Invoke) -> None:
    d20("d20", "stress", "20", "--faces", "2,10")  # 10 calm points lost: panic due
    es = d20("--lang", "es", "d20", "panic", "--faces", "5,3,2").output
    assert "Ripley entra en pánico: d6 [5] Ataque de histeria; trauma d10 [3] Paranoia" in es
    assert "recupera d4 [2] PC, PC 2" in es
    log = d20("log").output
    assert "Ripley panics: d6 [5] Hysterics; trauma d10 [3] Paranoia; recovers d4 [2] CP, CP 2" in log
    assert "histeria" not in log
    tables = d20("--lang", "es", "tables", "panic").output
    assert "Ataque de histeria" in tables and "Hysterics" not in tables
    assert "Hysterics" in d20("tables", "panic").output


def test_the_sample_campaign_played_in_spanish_reads_in_english(tmp_path: Path) -> None:
    ledger = runner_for(tmp_path / "sample.ledger")
    ledger("import", str(SAMPLES / "d20" / "campaign.jsonl"), "--name", "derelicto")
    english = ledger("-c", "derelicto", "log").output
    assert "Parker panics: d6 [5] Hysterics" in english and "Ataque de histeria" not in english
    spanish = ledger("--lang", "es", "-c", "derelicto", "log").output
    assert "Parker entra en pánico: d6 [5] Ataque de histeria" in spanish


def test_a_campaign_played_in_spanish_is_stored_as_one_played_in_english(tmp_path: Path) -> None:
    def play(lang: str, words: dict[str, str]) -> list[dict[str, Any]]:
        db = tmp_path / f"{lang}.ledger"
        ledger = runner_for(db)
        ledger("new", "d20", "Estación")
        ledger("--lang", lang, "d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN)
        ledger(
            "--lang",
            lang,
            "d20",
            "check",
            words["des"],
            "--dc",
            words["hard"],
            "--skill",
            words["precision"],
            "--faces",
            "9",
        )
        ledger("--lang", lang, "d20", "attack", "-w", words["rifle"], "--def", "12", "--faces", "14,7")
        ledger("--lang", lang, "d20", "stress", "20", "--faces", "2,10")
        ledger("--lang", lang, "d20", "panic", "--faces", "5,3,2")
        ledger("--lang", lang, "d20", "carry", words["knife"], "--drop")
        return events(db, "Estación")

    spanish = play(
        "es",
        {
            "des": "DES",
            "hard": "difícil",
            "precision": "precisión",
            "rifle": "rifle de pulsos",
            "knife": "cuchillo de combate",
        },
    )
    english = play(
        "en",
        {
            "des": "DEX",
            "hard": "hard",
            "precision": "precision",
            "rifle": "pulse rifle",
            "knife": "combat knife",
        },
    )
    assert spanish[1:] == english[1:]  # the start event names its own campaign id
    panicked = next(e for e in spanish if e["kind"] == "d20.panicked")
    assert panicked["result"].startswith("Hysterics:")  # the language-neutral record: the English


def test_a_word_two_languages_read_two_ways_is_refused_naming_both(tmp_path: Path) -> None:
    tables = tmp_path / "own.toml"
    tables.write_text(
        '[skills]\nsigilo = "Sigilo casero"\nstealth = "Stealth"\nathletics = "x"\nprecision = "x"\n'
        'perception = "x"\ntechnology = "x"\npiloting = "x"\nscience = "x"\nmedicine = "x"\n',
        encoding="utf-8",
    )
    ledger = runner_for(tmp_path / "own.ledger")
    ledger("new", "d20", "Propia", "--tables", str(tables))
    ledger("d20", "create", "Ana", "--faces", SEVEN)
    refused = ledger(
        "--lang", "es", "d20", "check", "DES", "--dc", "10", "--skill", "sigilo", "--faces", "10", code=1
    )
    assert refused.output.count("\n") == 1
    assert "'sigilo'" in refused.output and "sigilo (English), stealth (Español)" in refused.output
    english = ledger("d20", "check", "DES", "--dc", "10", "--skill", "sigilo", "--faces", "10", code=1).output
    assert "reads two ways between the languages: sigilo (English), stealth (Español)" in english
    assert (
        "+ stealth"
        in ledger("d20", "check", "DES", "--dc", "10", "--skill", "stealth", "--faces", "10").output
    )


def test_an_unknown_attribute_lists_the_languages_names(d20: Invoke) -> None:
    assert (
        "usa uno de estos: FUE, DES, CON, INT, SAB, CAR"
        in d20("--lang", "es", "d20", "check", "FOO", "--dc", "10", code=1).output
    )
    assert (
        "use one of STR, DEX, CON, INT, WIS, CHA" in d20("d20", "check", "FOO", "--dc", "10", code=1).output
    )


# --- d100 -------------------------------------------------------------------------------


def test_a_d100_test_in_spanish_says_exito_especial_and_pifia(d100: Invoke) -> None:
    out = d100("--lang", "es", "d100", "test", "Trepar", "--faces", "10").output
    assert "Ana: Trepar objetivo 40: saca 10 -> ÉXITO ESPECIAL" in out
    out = d100("--lang", "es", "d100", "test", "Trepar", "--faces", "99").output
    assert "saca 99 -> PIFIA" in out
    assert "Ana Trepar 40: saca 99, pifia" in d100("--lang", "es", "log").output


def test_a_d100_test_in_english_names_skills_as_the_english_editions(d100: Invoke) -> None:
    out = d100("d100", "test", "Climb", "--faces", "10").output
    assert "Ana: Climb target 40: rolled 10 -> SPECIAL" in out
    d100("d100", "test", "POW", "--times", "5", "--faces", "3")
    stored = json.loads(d100("d100", "test", "Trepar", "--faces", "50", "--json").output)
    assert stored["events"][0]["skill"] == "Trepar"  # the table's key, typed in either language
    log = d100("log").output
    assert "Ana Climb 40: rolled 10, special" in log and "Ana POWx5 65: rolled 3, critical" in log
    assert "Ana PODx5 65: saca 3, éxito crítico" in d100("--lang", "es", "log").output


def test_d100_characteristics_typed_in_english_are_stored_by_the_rules_keys(tmp_path: Path) -> None:
    ledger = runner_for(tmp_path / "chars.ledger")
    ledger("new", "d100", "Casa")
    ledger(
        "d100",
        "character",
        "Eva",
        "SIZ=12",
        "CON=11",
        "STR=10",
        "INT=14",
        "EDU=15",
        "DEX=9",
        "CHA=12",
        "POW=13",
    )
    (added,) = [e for e in events(tmp_path / "chars.ledger", "Casa") if e["kind"] == "character.added"]
    assert {k: added["attrs"][k] for k in ("TAM", "FUE", "DES", "CAR", "POD")} == {
        "TAM": "12",
        "FUE": "10",
        "DES": "9",
        "CAR": "12",
        "POD": "13",
    }
    view = json.loads(ledger("--lang", "es", "sheet", "--json").output)
    assert view["characteristic_names"][:3] == ["TAM 12", "CON 11", "FUE 10"]
    english = json.loads(ledger("sheet", "--json").output)
    assert english["characteristic_names"][:3] == ["SIZ 12", "CON 11", "STR 10"]
