"""The yearzero system in Spanish and English: the game's words as the Spanish rules write
them (Fortaleza, Disparar, Hacer un apaño, forzar la tirada...), typed in either language
in either mode and stored as the same keys, and a campaign played in one language read in
the other."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ledger import i18n
from ledger.cli.main import cli
from ledger.errors import RuleError
from ledger.projections.yearzero import vocabulary
from ledger.systems.yearzero.system import SYSTEM
from ledger.systems.yearzero.tables import SAMPLE, listing, load_tables

FACES = ["--faces", "6,1,3,1,2,1,4,1"]  # 4 base (Agility), 2 skill, 2 gear (rifle)


@pytest.fixture(autouse=True)
def english_around() -> Iterator[None]:
    """Each test starts and ends in English, whatever `--lang` a command set."""
    with i18n.using("en"):
        yield


def session(tmp_path: Path, *new: str) -> object:
    runner = CliRunner()
    db = str(tmp_path / "t.ledger")

    def invoke(*args: str, ok: bool = True) -> Result:
        with i18n.using("en"):  # `--lang` lasts for the command, as in a process of its own
            result = runner.invoke(cli, ["--db", db, *args])
        if ok:
            assert result.exit_code == 0, result.output
        return result

    invoke("new", "yearzero", "zone", "--seed", "7", *new)
    invoke(
        "yz",
        "character",
        "Vesna",
        "--strength",
        "3",
        "--agility",
        "4",
        "--wits",
        "3",
        "--empathy",
        "2",
        "--skill",
        "shoot=2",
        "--skill",
        "jury_rig=1",
        "--gear",
        "rifle=2",
        "--armor",
        "jacket=1",
    )
    return invoke


def events(result: Result) -> list[dict[str, object]]:
    return json.loads(result.output)["events"]  # type: ignore[no-any-return]


def test_the_spanish_sheet_names_the_skills_conditions_and_gear_as_the_rules_do(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    sheet = invoke("--lang", "es", "--as", "Vesna", "sheet").output
    assert "Disparar 2, Hacer un apaño 1" in sheet
    assert "rifle equipo +2/2, jacket armadura +1/1 (puesto)" in sheet
    assert "día 0 08:00" in sheet and "[bien]" in sheet
    data = json.loads(invoke("--lang", "es", "--as", "Vesna", "sheet", "--json").output)
    assert data["skills"] == {"shoot": 2, "jury_rig": 1}  # the keys stay as they are
    assert data["skill_text"] == "Disparar 2, Hacer un apaño 1"
    assert data["condition_text"] == "ninguna" and ": ninguna" in sheet
    english = invoke("--as", "Vesna", "sheet").output
    assert "Skills: shoot 2, jury-rig 1" in english and "rifle gear +2/2, jacket armor +1/1 (worn)" in english
    assert "Strength 3/3  Agility 4/4  Wits 3/3  Empathy 2/2" in english


def test_the_sheet_layout_words_are_in_the_catalog() -> None:
    layout = SYSTEM.read.sheet_layout
    assert layout is not None
    with i18n.using("es"):
        labels = [i18n.translate(f.label) for f in layout.headline]
        titles = [i18n.translate(s.title) for s in layout.sections]
        controls = [i18n.translate(c.label) for c in layout.controls if c.label and "{" not in c.label]
    assert labels == ["Fortaleza", "Destreza", "Intelecto", "Empatía"]
    assert titles[:3] == ["Mutante", "Habilidades", "Equipo"] and "Heridas críticas" in titles
    assert "Forzar tirada" in controls and "otra habilidad" in controls


def test_a_roll_and_its_push_read_in_spanish(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    rolled = invoke("--lang", "es", "--as", "Vesna", "yz", "roll", "disparar", "--item", "rifle", *FACES)
    assert rolled.output.strip() == (
        "Vesna tira Disparar: base [6,1,3,1] habilidad [2,1] equipo [4,1] = 1 éxito"
    )
    pushed = invoke("--lang", "es", "--as", "Vesna", "yz", "push", "--faces", "6,6,1,2").output
    assert pushed.strip() == (
        "Vesna fuerza la tirada: base [6,1,6,1] habilidad [6,1] equipo [2,1] = 3 éxitos, 2 proezas; "
        "2 de trauma a Destreza, +2 PM, rifle bonificación 1"
    )


def test_english_output_is_as_it_was(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    rolled = invoke("--as", "Vesna", "yz", "roll", "shoot", "--item", "rifle", *FACES)
    assert rolled.output.strip() == "Vesna rolls shoot: base [6,1,3,1] skill [2,1] gear [4,1] = 1 success"
    pushed = invoke("--as", "Vesna", "yz", "push", "--faces", "6,6,1,2").output
    assert pushed.strip() == (
        "Vesna pushes: base [6,1,6,1] skill [6,1] gear [2,1] = 3 successes, 2 stunts; "
        "2 trauma to agility, +2 MP, rifle bonus 1"
    )


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize(
    ("typed", "skill", "attribute"),
    [
        ("disparar", "shoot", "agility"),
        ("shoot", "shoot", "agility"),
        ("Disparar", "shoot", "agility"),
        ("hacer un apaño", "jury_rig", "wits"),
        ("Hacer_un_apano", "jury_rig", "wits"),
        ("jury-rig", "jury_rig", "wits"),
        ("jury_rig", "jury_rig", "wits"),
        ("Fortaleza", None, "strength"),
        ("str", None, "strength"),
        ("empatia", None, "empathy"),
        ("Intelecto", None, "wits"),
    ],
)
def test_either_languages_word_records_the_same_key(
    tmp_path: Path, lang: str, typed: str, skill: str | None, attribute: str
) -> None:
    invoke = session(tmp_path)
    out = invoke(
        "--lang",
        lang,
        "--json",
        "--as",
        "Vesna",
        "yz",
        "roll",
        typed,
        "--base",
        "1",
        "--skill",
        "0",
        "--faces",
        "6",
    )
    rolled = events(out)[0]
    assert (rolled["skill"], rolled["attribute"]) == (skill, attribute)


def test_a_word_is_refused_in_the_readers_language(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    refused = invoke("--lang", "es", "--as", "Vesna", "yz", "roll", "volar", ok=False)
    assert refused.exit_code == 1
    assert "'volar' no es ni una habilidad ni una característica" in refused.output
    assert "Fortaleza, Destreza, Intelecto, Empatía" in refused.output and "Hacer un apaño" in refused.output


def test_a_word_two_readings_share_is_refused_naming_both(monkeypatch: pytest.MonkeyPatch) -> None:
    """No word of the two editions names two terms today; a reading that did (here, an alias
    given to a word the English edition already uses) is refused, naming both."""
    clash = i18n.Readings(
        terms=vocabulary.ROLLABLE.terms,
        context=vocabulary.CONTEXT,
        aliases={"mover": "force", "moverse": "force"},
    )
    monkeypatch.setattr(vocabulary, "ROLLABLE", clash)
    with i18n.using("es"), pytest.raises(RuleError) as refused:
        vocabulary.read_rollable("Moverse")
    message = str(refused.value)
    assert "ambiguo" in message and "Moverse (Español)" in message and "Forzar" in message
    with pytest.raises(RuleError, match=r"ambiguous: it reads as Force \(alias\), Move \(Español\)"):
        vocabulary.read_rollable("moverse")


def test_a_skill_in_new_spanish_words_is_stored_by_its_key(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    out = invoke(
        "--lang",
        "es",
        "--json",
        "yz",
        "character",
        "Grit",
        "--strength",
        "3",
        "--agility",
        "3",
        "--wits",
        "4",
        "--empathy",
        "3",
        "--skill",
        "Hacer un trato=2",
        "--skill",
        "disparar=1",
    )
    attrs = events(out)[0]["attrs"]
    assert attrs["skill.make_a_deal"] == "2"  # a word the stored keys were never read in
    assert attrs["skill.disparar"] == "1"  # an alias they always read stays as typed
    data = json.loads(invoke("--as", "Grit", "sheet", "--json").output)
    assert data["skills"] == {"make_a_deal": 2, "shoot": 1}


def test_trauma_is_typed_in_either_language(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    spanish = invoke("--json", "--as", "Vesna", "yz", "damage", "fatiga", "1")
    english = invoke("--json", "--as", "Vesna", "yz", "damage", "fatigue", "1")
    assert [e["trauma"] for e in events(spanish) + events(english) if e["kind"] == "yz.trauma"] == [
        "fatigue",
        "fatigue",
    ]
    shown = invoke("--lang", "es", "--as", "Vesna", "yz", "damage", "duda", "1").output
    assert "Vesna sufre 1 de duda (ataque), Empatía 1" in shown


def test_a_campaign_played_in_spanish_reads_in_english(tmp_path: Path) -> None:
    invoke = session(tmp_path)
    invoke("--lang", "es", "--as", "Vesna", "yz", "roll", "hacer un apaño", "--faces", "6,2,3,4")
    # 3 damage to Strength 3: the armor rolls a 2, a critical injury 5 (broken ribs), up in 4 hours
    invoke("--lang", "es", "--as", "Vesna", "yz", "damage", "daño", "3", "--faces", "2,2,3,4")
    invoke("--lang", "es", "yz", "tick", "1")
    spanish = invoke("--lang", "es", "log").output
    assert "Vesna tira Hacer un apaño: base [6,2,3] habilidad [4] equipo [-] = 1 éxito" in spanish
    assert "Vesna sufre 3 de daño (ataque), Fortaleza 0" in spanish
    assert "herida crítica de Vesna 5 [2,3]: costillas rotas" in spanish
    assert "pasa 1 hora (pasa el tiempo)" in spanish
    english = invoke("log").output
    assert "Vesna rolls jury-rig: base [6,2,3] skill [4] gear [-] = 1 success" in english
    assert "Vesna suffers 3 damage (attack), strength 0" in english
    assert "Vesna critical injury 5 [2,3]: broken ribs" in english
    assert "1 hour passes (time passes)" in english
    assert not re.search(r"[áéíóúñ]", english.split("character Vesna joins", 1)[1])
    data = json.loads(invoke("--lang", "es", "--as", "Vesna", "sheet", "--json").output)
    assert data["critical_injuries"][0]["name"] == "broken ribs"  # stored as recorded
    assert data["injury_lines"][0].startswith("costillas rotas, se cura día 6 ")
    assert data["injury_lines"][0].endswith(". Forzar y Luchar -1 hasta curarse.")


def test_the_sample_tables_list_in_either_language() -> None:
    tables, _ = load_tables(None)
    assert tables["critical_injuries"]["5"]["name"] == "broken ribs"  # stored in English
    with i18n.using("es"):
        shown = {t.name: t for t in listing(tables)}
    injuries = [row.text for row in shown["critical_injuries"].rows]
    assert "costillas rotas: no letal, se cura en 6 días. Forzar y Luchar -1 hasta curarse." in injuries
    assert shown["critical_injuries"].title == "Heridas críticas"
    levels = [row.text for row in shown["rot_levels"].rows]
    assert "Descomposición intensa: un punto de Descomposición por hora" in levels
    assert "Descomposición débil: un punto de Descomposición al día" in levels
    english = {t.name: t for t in listing(tables)}
    assert "broken ribs: not lethal, heals in 6 days. Force and Fight -1 until healed." in [
        row.text for row in english["critical_injuries"].rows
    ]


def test_a_users_table_in_both_languages_reads_in_each(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8").replace(
        '{ en = "broken ribs", es = "costillas rotas" }',
        '{ en = "cracked ribs", es = "costillas astilladas" }',
    )
    mine = tmp_path / "mine.toml"
    mine.write_text(text, encoding="utf-8")
    (tmp_path / "own").mkdir()
    invoke = session(tmp_path / "own", "--tables", str(mine))
    out = invoke("--json", "--as", "Vesna", "yz", "critical", "--faces", "2,3")
    injury = next(e for e in events(out) if e["kind"] == "yz.critical")
    assert injury["name"] == "cracked ribs"  # the event records the English
    vocabulary._TABLE_TEXTS.clear()  # as in a new process: the campaign's stored tables tell
    vocabulary._SEEN.clear()
    data = json.loads(invoke("--lang", "es", "--as", "Vesna", "sheet", "--json").output)
    assert data["injury_lines"][0].startswith("costillas astilladas, se cura ")
    assert "herida crítica de Vesna 5 [2,3]: costillas astilladas" in invoke("--lang", "es", "log").output
    assert "cracked ribs" in invoke("log").output


def test_the_sample_week_reads_in_spanish(tmp_path: Path) -> None:
    """The sample campaign, recorded in English before the ledger spoke Spanish, reads in
    Spanish: its log, its sheets, its injuries from the sample tables and its statistics."""
    runner = CliRunner()
    db = str(tmp_path / "s.ledger")

    def invoke(*args: str) -> str:
        with i18n.using("en"):
            result = runner.invoke(cli, ["--db", db, *args])
        assert result.exit_code == 0, result.output
        return result.output

    invoke("import", str(Path(__file__).resolve().parents[1] / "samples" / "yearzero" / "campaign.jsonl"))
    log = invoke("--lang", "es", "log")
    assert "Grit tira Hacer un apaño: base [5,1,4,2] habilidad [3,4] equipo [-] = fallo" in log
    assert "pasan 2 horas (reparando bow)" in log and "Vesna, Grit, Mira: 8 horas de sueño" in log
    grit = invoke("--lang", "es", "--as", "Grit", "sheet")
    assert "Hacer un apaño 2, Comprender 1, Luchar 1" in grit
    assert "dedos rotos, se cura día 4 12:00. Disparar y Hacer un apaño -1 hasta curarse." in grit
    pushes = invoke("--lang", "es", "stats", "--report", "pushes")
    assert "Destreza" in pushes and "Fortaleza" in pushes
    assert "yearzero  agility" in invoke("stats", "--report", "pushes")
