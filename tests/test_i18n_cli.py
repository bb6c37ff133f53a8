"""The command line in the reader's language: its help (click's own words too), the language
chosen by --lang, LEDGER_LANG or the locale, and what a Spanish-speaking table reads: the
demo's framing, status, stats with decimal commas, the tables listing and the report."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ledger import i18n
from ledger.cli.main import cli

LOCALE_VARIABLES = ("LEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every test starts from an environment that names no language, in its own folder."""
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("LEDGER_DB", raising=False)
    monkeypatch.setenv("LEDGER_WAREHOUSE", str(tmp_path / "w.duckdb"))
    monkeypatch.chdir(tmp_path)


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env, prog_name="ledger")


def ok(*args: str, env: dict[str, str] | None = None) -> str:
    result = run(*args, env=env)
    assert result.exit_code == 0, (args, result.output)
    return result.output


def flat(text: str) -> str:
    """A help as one line: its words as click wraps them to the terminal, joined by spaces."""
    return " ".join(text.split())


SPANISH_HELP = (
    "Uso: ledger [OPCIONES] ORDEN [ARGUMENTOS]...",
    "Lleva una campaña de rol de mesa",
    "Opciones:",
    "Órdenes:",
    "Muestra este mensaje y sale.",
    "Muestra la versión y sale.",
    "Actúa como este personaje solo en esta orden",
    "Enumera las campañas y sus ramas",
)


def test_the_help_in_spanish_with_lang_es_clicks_words_included() -> None:
    out = ok("--lang", "es", "--help")
    for words in SPANISH_HELP:
        assert words in out, words
    assert "Usage:" not in out and "Show this message and exit." not in out


def test_a_commands_help_in_spanish_its_options_and_arguments_too() -> None:
    out = ok("--lang", "es", "roll", "--help")
    assert out.startswith("Uso: ledger roll [OPCIONES] NOTATION...")
    assert "Tira los dados de NOTATION" in out
    assert "Dados físicos: las caras obtenidas" in out  # --faces
    assert "Tirada sellada solo para el DJ" in out  # --blind
    assert "Salida JSON legible por máquina." in out  # --json, shared by every command
    assert "Muestra este mensaje y sale." in out
    out = flat(ok("--lang", "es", "journal", "--help"))
    assert "Una entrada por día de juego" in out and "[por defecto: text]" in out


def test_a_help_given_as_a_template_is_in_spanish_with_its_field_filled() -> None:
    out = flat(ok("--lang", "es", "new", "--help"))
    assert "Empieza una campaña NAME del sistema SYSTEM (" in out
    assert "freeform" in out and "{systems}" not in out
    assert "Una decisión de mesa donde los jugadores discrepan" in out
    assert "Dados virtuales demostrables" in ok("--lang", "es", "dice", "--help")


def test_ledger_lang_in_the_environment_picks_spanish() -> None:
    assert "Uso: ledger" in ok("--help", env={"LEDGER_LANG": "es"})
    assert "Uso: ledger" in ok("status", "--help", env={"LEDGER_LANG": "es"})


@pytest.mark.parametrize("variable", ["LC_ALL", "LC_MESSAGES", "LANG"])
def test_the_locale_picks_spanish(variable: str) -> None:
    out = ok("--help", env={variable: "es_ES.UTF-8"})
    assert "Uso: ledger" in out and "Muestra este mensaje y sale." in out


def test_lang_beats_the_environment_and_english_is_the_default() -> None:
    out = ok("--lang", "en", "--help", env={"LEDGER_LANG": "es"})
    assert out.startswith("Usage: ledger") and "Show this message and exit." in out
    assert ok("--help").startswith("Usage: ledger")
    assert ok("--help", env={"LANG": "fr_FR.UTF-8"}).startswith("Usage: ledger")


def test_a_spanish_run_leaves_the_next_one_in_english() -> None:
    """A run's language is its own: the one the process had is back after it."""
    assert "Uso:" in ok("--lang", "es", "--help")
    assert ok("--help").startswith("Usage: ledger")
    assert i18n._("the journal is empty") == "the journal is empty"


@pytest.mark.parametrize("lang", ["fr", "klingon"])
def test_an_unknown_lang_is_refused_in_one_line(lang: str) -> None:
    result = run("--lang", lang, "status")
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"error: {lang!r} is not a language the ledger speaks; give one of en, es"
    ]
    spanish = run("--lang", lang, "status", env={"LEDGER_LANG": "es"})
    assert spanish.output.splitlines() == [
        f"error: {lang!r} no es un idioma que hable el ledger; da uno de en, es"
    ]
    as_json = run("--lang", lang, "--json", "status")
    assert '"type": "LanguageRefused"' in as_json.output and '"exit_code": 2' in as_json.output


def test_clicks_usage_errors_in_spanish() -> None:
    result = run("--lang", "es", "--nope")
    assert result.exit_code == 2
    assert "Prueba 'ledger --help' para ver la ayuda." in result.output
    assert "Error: No existe la opción '--nope'." in result.output
    result = run("--lang", "es", "roll")
    assert "Error: Falta el argumento 'NOTATION...'." in result.output or "Falta" in result.output


def test_status_campaigns_and_refusals_in_spanish() -> None:
    out = ok("--lang", "es", "new", "freeform", "Viernes")
    assert out.splitlines()[0] == "campaña 'Viernes' empezada (freeform)"
    out = ok("--lang", "es", "new", "d20", "Nostromo")
    assert (
        "siguiente: character create NAME ... (`ledger character create --help` enumera las opciones)" in out
    )
    ok("use", "Viernes")
    ok("character", "create", "Inés", "--attr", "class=pícara")
    out = ok("--lang", "es", "status")
    assert out.splitlines()[:2] == ["campaña   Viernes (freeform), v2", "personaje Inés"]
    assert ok("--lang", "es", "journal").strip()  # the journal has its entry
    out = ok("--lang", "es", "fork", "Viernes-y-si", "--at", "1")
    assert out.strip() == (
        "rama 'Viernes-y-si' creada en la versión 1; ahora se juega (vuelve con `ledger use Viernes`)"
    )
    out = ok("--lang", "es", "campaigns")
    assert "(rama de Viernes en v1)" in out
    assert ok("--lang", "es", "journal").strip() == "el diario está vacío"
    refused = run("--lang", "es", "fork", "Otra", "--at", "1", "--day", "1")
    assert refused.exit_code == 1
    assert refused.output.strip() == "error: da --at o --day, no ambas"


def test_json_keeps_its_keys_in_spanish() -> None:
    ok("new", "freeform", "Viernes")
    english = ok("--json", "status")
    spanish = ok("--lang", "es", "--json", "status")
    assert english == spanish  # every value here is data, not words


def luck_ledger() -> None:
    ok("new", "freeform", "Viernes")
    ok("character", "create", "Inés")
    for face in ("9", "17", "3", "12"):
        ok("roll", "1d20+5>=15", "--faces", face)


def test_stats_write_decimals_with_a_comma_in_spanish() -> None:
    luck_ledger()
    english = ok("stats", "--report", "luck")
    spanish = ok("--lang", "es", "stats", "--report", "luck")
    assert re.search(r"luck index [+-]\d+\.\d\d over every die thrown", english)
    found = re.search(r"índice de suerte ([+-]\d+,\d\d) sobre todos los dados tirados", spanish)
    assert found, spanish
    assert "Estadísticas: todas las campañas" in spanish
    assert "4 tiradas" in spanish and "éxitos" in spanish
    table = spanish.split("\n\n")[-1]
    assert re.search(r"\d,\d", table) and not re.search(r"\d\.\d", table), table
    assert "personaje" in table and "suerte" in table  # the columns' headers


def test_the_sheet_says_its_luck_in_spanish() -> None:
    luck_ledger()
    out = ok("--lang", "es", "sheet")
    assert re.search(r"suerte [+-]\d+,\d\d: \d+ éxitos? en 4 tiradas donde se esperaba", out), out


def test_the_tables_listing_frames_in_spanish() -> None:
    out = ok("--lang", "es", "tables", "--system", "crawl")
    assert out.startswith("tablas del sistema crawl (tablas de ejemplo):")
    assert re.search(r"\(\d+ filas?\)", out)
    assert out.rstrip().endswith("ver una: ledger tables TABLE; tirar en una: ledger roll-table TABLE")


def test_the_demo_in_spanish_has_spanish_framing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's framing, with the freeform tour alone (the simulations are the README's
    test's): the intro, the headings, the tour's commentary and the chain check."""
    import ledger.cli.stats as stats
    from ledger.cli import systems as on_cli
    from ledger.systems import get_system

    monkeypatch.setattr(on_cli, "shown_in_demo", lambda: [get_system("freeform")])
    monkeypatch.setattr(stats, "demo", lambda book, echo: echo("  -"))
    out = ok("--lang", "es", "demo", "--db", "demo.ledger")
    assert out.startswith("demo de campaign-ledger: cada tirada, comida y herida es un evento en demo.ledger")
    assert "== estadísticas de todas las campañas ==" in out
    assert "== verificación: la cadena sha256 de cada campaña ==" in out
    assert "(se retiran el 1 natural y la tirada de reserva)" in out
    assert "  [deshecho]" in out
    assert re.search(r"ok  demo-freeform: \d+ eventos, cabeza [0-9a-f]{16}", out)
    assert "Explóralo: ledger --db demo.ledger campaigns" in out
    english = ok("demo", "--db", "demo.ledger")
    assert english.startswith("campaign-ledger demo: every roll, meal and wound is an event in demo.ledger")
    assert "== verify: the sha256 chain over every campaign ==" in english


def test_the_report_page_is_in_spanish(tmp_path: Path) -> None:
    luck_ledger()
    ok("--lang", "es", "report", "-o", "es.html")
    ok("report", "-o", "en.html")
    spanish = (tmp_path / "es.html").read_text()
    english = (tmp_path / "en.html").read_text()
    assert '<html lang="es">' in spanish and '<html lang="en">' in english
    assert '<h1 id="title">Informe de campaña</h1>' in spanish and "<h2>Diario" in spanish
    assert "<title>Viernes (freeform) - informe de campaña</title>" in spanish
    words = html.unescape(re.search(r'data-words="([^"]*)"', spanish).group(1))  # type: ignore[union-attr]
    assert json.loads(words)["Rolls against expectation"] == "Tiradas frente a lo esperado"
    assert json.loads(words)["{n} roll|{n} rolls"] == ["{n} tirada", "{n} tiradas"]
    assert json.loads(words)["."] == ","
    assert 'data-words="{}"' in english
    assert '<h1 id="title">Campaign report</h1>' in english and "{{t:" not in english


def test_every_word_the_report_page_says_is_in_the_catalog() -> None:
    """report.js's t("...") and report.html's {{t:...}} are the sentences report.py lists."""
    from ledger.projections import report

    assets = Path(report.__file__).parent / "report_assets"
    script = (assets / "report.js").read_text()
    said = set(re.findall(r'\bt\("((?:[^"\\]|\\.)*)"', script))
    said |= set(re.findall(r"\{\{t:([^{}]*)\}\}", (assets / "report.html").read_text()))
    assert said and said <= set(report.PAGE_WORDS), sorted(said - set(report.PAGE_WORDS))
    counts = set(re.findall(r'counted\([^,()]+, "([^"]*)", "([^"]*)"\)', script))
    assert counts and counts <= set(report.PAGE_PLURALS)
    with i18n.using("es"):
        words = report.page_words()
    assert all(words[msgid] != msgid or msgid in ("mulligans",) for msgid in report.PAGE_WORDS), [
        m for m in report.PAGE_WORDS if words[m] == m
    ]


def test_the_markdown_journal_in_spanish() -> None:
    ok("new", "freeform", "Viernes")
    ok("note", "llueve sobre el puerto")
    spanish = ok("--lang", "es", "journal", "--format", "md")
    assert "Una campaña de freeform, hasta la versión 2." in spanish
    english = ok("journal", "--format", "md")
    assert "A freeform campaign, up to version 2." in english
    ok("new", "freeform", "Vacía")
    assert "Aún no ha pasado nada." in ok("--lang", "es", "journal", "--format", "md")


def test_a_plugin_group_says_its_help_from_its_own_catalog(tmp_path: Path) -> None:
    """A group with a catalog of its own (a plugin's) says its commands' help from it, and
    click's words from the ledger's."""
    import click

    from ledger.cli.plugin import Command, Group

    folder = tmp_path / "locale" / "es" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "plugin.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n"Language: es\\n"\n\n'
        'msgid "Flip a coin."\nmsgstr "Lanza una moneda."\n\n'
        'msgid "Call it first."\nmsgstr "Cántala antes."\n',
        encoding="utf-8",
    )
    group = Group("toss")
    group.catalog = i18n.Catalog("plugin", tmp_path / "locale")  # type: ignore[attr-defined]

    @group.command("flip", help=i18n.N_("Flip a coin."))
    @click.option("--call", help=i18n.N_("Call it first."))
    def flip(call: str | None) -> None:
        pass

    assert isinstance(flip, Command)
    with i18n.using("es"):
        out = CliRunner().invoke(group, ["flip", "--help"], prog_name="toss").output
    assert "Lanza una moneda." in out and "Cántala antes." in out and "Uso: toss flip" in out
    assert "Flip a coin." in CliRunner().invoke(group, ["flip", "--help"], prog_name="toss").output


def test_the_spanish_report_draws_in_spanish_in_a_browser(tmp_path: Path) -> None:
    """The page's script says its words from the catalog in Chromium, with no error: the
    journal's days, the log's header, the luck chart's words and a decimal comma."""
    from ledger import Ledger
    from ledger.projections import report
    from tests.test_report_browser import SAMPLES, browse, chromium, errors

    chromium()
    book = Ledger(str(tmp_path / "r.ledger"))
    with (SAMPLES / "crawl" / "campaign.jsonl").open("rb") as f:
        name = book.import_(f).name
    page = tmp_path / "es.html"
    with i18n.using("es"):
        report.write(book, name, page)
    dom = browse(page, "day=6")
    assert errors(dom) == ""
    assert '<html lang="es">' in dom
    assert "<span>día</span><span>quién</span><span>evento</span>" in dom
    assert re.search(r'<span class="when">día \d+</span>', dom)
    assert "índice de suerte sobre todos los dados tirados" in dom
    assert re.search(r"donde se esperaban \d+,\d+", dom), "the expected successes, with a decimal comma"
    assert "registro entero (" in dom and "eventos)" in dom
