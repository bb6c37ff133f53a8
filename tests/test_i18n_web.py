"""The live table in each seat's language: the page's words come from the ``page`` catalog
(served as a script and as JSON, its plural rule as data), ``<html lang>`` names the
language, every refusal the server words is said in the asking seat's language (its
``Accept-Language``, or the choice it made on the page: a header, the stream's query, a
cookie) with the same JSON fields, a stream speaks its own connection's language, and the
web imports nothing of the command line (its import contract)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ledger import i18n
from ledger.cli.main import cli
from ledger.web.app import create_app
from ledger.web.language import of_request
from ledger.web.stream import in_language, message
from tests.helpers_web import Seated, bearer, join, seat_table, serving, sse

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
SPANISH = {"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}


@pytest.fixture
def table(tmp_path: Path) -> Iterator[tuple[TestClient, Seated]]:
    seated = seat_table(str(tmp_path / "i18n.ledger"))
    with TestClient(create_app(seated.db)) as client:
        yield client, seated


def test_a_refusal_is_said_in_the_seats_language_with_the_same_fields(
    table: tuple[TestClient, Seated],
) -> None:
    client, seated = table
    # no seat at all: the server's own refusal
    en = client.get("/api/c/Friday").json()["error"]
    es = client.get("/api/c/Friday", headers=SPANISH).json()["error"]
    assert en["message"].startswith("no seat: send `Authorization: Bearer SECRET`")
    assert es["message"].startswith("sin asiento: envía `Authorization: Bearer SECRET`")
    assert {k: v for k, v in en.items() if k != "message"} == {k: v for k, v in es.items() if k != "message"}

    # a refusal worded on the ledger thread (the seat's campaign is checked there)
    asked = {**bearer(seated.other_gm), **SPANISH}
    es = client.get("/api/c/Friday/events", headers=asked)
    en = client.get("/api/c/Friday/events", headers=bearer(seated.other_gm))
    assert es.status_code == en.status_code == 403
    assert es.headers["content-language"] == "es" and en.headers["content-language"] == "en"
    assert es.json()["error"]["message"] == "el asiento 'other-gm' es de la campaña 'Other', no de 'Friday'"
    assert en.json()["error"]["message"] == "seat 'other-gm' is for campaign 'Other', not 'Friday'"
    assert es.json()["error"].keys() == en.json()["error"].keys()

    # a player sends what is the GM's: the whole sentence and the phrase inside it in Spanish
    undo = client.post("/api/c/Friday/undo", json={"count": 1}, headers={**bearer(seated.ana), **SPANISH})
    assert undo.status_code == 403
    assert undo.json()["error"]["message"] == (
        "solo el asiento del DJ puede deshacer acciones; el asiento 'ana' es de un jugador"
    )


def test_the_seats_choice_wins_over_its_browser(table: tuple[TestClient, Seated]) -> None:
    client, _seated = table
    chose_en = {**SPANISH, "X-Ledger-Lang": "en"}
    assert client.get("/api/c/Friday", headers=chose_en).json()["error"]["message"].startswith("no seat")
    by_query = client.get("/api/c/Friday?lang=es").json()["error"]["message"]
    assert by_query.startswith("sin asiento")
    client.cookies.set("ledger_lang", "es")
    try:
        assert client.get("/api/c/Friday").json()["error"]["message"].startswith("sin asiento")
    finally:
        client.cookies.delete("ledger_lang")
    assert of_request({"accept-language": "fr-FR, de;q=0.5"}) == "en"
    assert of_request({"accept-language": "fr-FR, es;q=0.5"}) == "es"


def test_the_page_names_its_language_and_loads_that_languages_words(table: tuple[TestClient, Seated]) -> None:
    client, seated = table
    assert join(client, seated.ana).status_code == 303
    es = client.get("/t/Friday", headers=SPANISH)
    assert '<html lang="es">' in es.text and 'src="/static/words.es.js"' in es.text
    en = client.get("/t/Friday")
    assert '<html lang="en">' in en.text and 'src="/static/words.en.js"' in en.text
    # the join page too
    confirm = client.get(f"/join/{seated.bob}", headers=SPANISH)
    assert '<html lang="es">' in confirm.text and "¿Unirte a Friday como Bob?" in confirm.text

    words = client.get("/i18n/page.es.json").json()
    assert words["lang"] == "es" and words["plural_forms"].startswith("nplurals=")
    assert words["messages"]["Roll"] == "Tirar" and words["messages"]["Sheet"] == "Hoja"
    assert words["messages"]["{n} seat"] == ["{n} asiento", "{n} asientos", "{n} asientos"]
    assert words["messages"]["d100 level\x04fumble"] == "pifia"
    assert words["languages"] == {"en": "English", "es": "Español"}
    assert client.get("/i18n/page.en.json").json()["messages"] == {}
    script = client.get("/static/words.es.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.text.startswith("window.LedgerWords = ") and '"Tirar"' in script.text
    assert client.get("/i18n/page.fr.json").status_code == 404


def test_every_word_the_page_script_says_is_in_the_spanish_catalog(table: tuple[TestClient, Seated]) -> None:
    """Each _() / n_() / p_() of table.js has its Spanish (the catalog check's rule, for the page)."""
    client, _seated = table
    messages = client.get("/i18n/page.es.json").json()["messages"]
    source = (ROOT / "web" / "static" / "table.js").read_text()
    marked = re.findall(r'\b(?:_|n_)\("((?:[^"\\]|\\.)*)"', source)
    contexts = re.findall(r'\bp_\("([^"]+)", "((?:[^"\\]|\\.)*)"', source)
    assert len(marked) > 150
    missing = [m for m in marked if json.loads(f'"{m}"') not in messages]
    missing += [f"{c}|{m}" for c, m in contexts if f"{c}\x04{m}" not in messages]
    assert missing == []


def test_the_page_picks_a_plural_form_by_the_catalogs_rule_without_eval() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    source = (ROOT / "web" / "static" / "table.js").read_text()
    start = source.index("  function pluralRule(forms) {")
    end = source.index("  var PLURAL = pluralRule")
    rule = "nplurals=3; plural=(n == 1 ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2);"
    script = source[start:end] + f"var r = pluralRule({json.dumps(rule)});\n"
    script += "console.log(JSON.stringify([0, 1, 2, 5, 1000000, 2000001].map(r)));\n"
    script += 'var two = pluralRule("nplurals=2; plural=(n != 1);");\n'
    script += "console.log(JSON.stringify([0, 1, 2].map(two)));\n"
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout.split()
    assert json.loads(out[0]) == [2, 0, 2, 2, 1, 2]
    assert json.loads(out[1]) == [1, 0, 1]


def test_a_feed_message_is_sent_in_each_streams_language() -> None:
    item = {
        "version": 3,
        "summary": {"en": "rolled", "es": "tiró"},
        "who": {"en": "the party", "es": "el grupo"},
    }
    version, sent = message(item)
    assert version == 3 and isinstance(sent, dict)
    spanish = json.loads(in_language(sent, "es").split(b"data: ", 1)[1])
    english = json.loads(in_language(sent, "en").split(b"data: ", 1)[1])
    assert (spanish["summary"], spanish["who"]) == ("tiró", "el grupo")
    assert (english["summary"], english["who"]) == ("rolled", "the party")
    assert in_language(sent, "qps") == in_language(sent, "en")  # a language it was not said in
    plain = message({"version": 4, "summary": "rolled", "who": None})
    assert isinstance(plain[1], bytes)


def test_two_streams_of_one_table_each_end_in_their_own_language(tmp_path: Path) -> None:
    seated = seat_table(str(tmp_path / "streams.ledger"))
    with serving(seated.db) as base:
        url = f"{base}/api/c/Friday/stream"
        with (
            httpx.stream("GET", url + "?lang=es", headers=bearer(seated.ana), timeout=10) as ana,
            httpx.stream(
                "GET", url, headers={**bearer(seated.bob), **SPANISH, "X-Ledger-Lang": "en"}, timeout=10
            ) as bob,
        ):
            ana_lines, bob_lines = ana.iter_lines(), bob.iter_lines()
            for lines in (ana_lines, bob_lines):
                sse(lines, 3, time.monotonic() + 10)  # the campaign's start and its two characters
            for label in ("ana", "bob"):
                done = CliRunner().invoke(cli, ["--db", seated.db, "table", "revoke", label])
                assert done.exit_code == 0, done.output
            (ended_es,) = sse(ana_lines, 1, time.monotonic() + 5)
            (ended_en,) = sse(bob_lines, 1, time.monotonic() + 5)
    assert ended_es["event"] == ended_en["event"] == "revoked"
    assert ended_es["data"]["error"]["message"] == "este asiento fue revocado"
    assert ended_en["data"]["error"]["message"] == "this seat was revoked"
    assert ended_es["data"]["error"]["type"] == ended_en["data"]["error"]["type"] == "Unauthorized"


def test_a_refusals_fix_is_worded_by_the_library_in_the_language_of_the_moment() -> None:
    from ledger import fixes
    from ledger.errors import LedgerError, Undo

    error = LedgerError("that was not meant", fix=Undo(text="undo it"))
    assert fixes.message(error) == "that was not meant; take it back with `ledger undo`"
    with i18n.using("es"):
        assert fixes.message(error) == "that was not meant; deshazlo con `ledger undo`"


def _lint_imports(tmp_path: Path, edit: str | None = None) -> str:
    """import-linter on the package as it installs (as .ci/run stages it), with ``edit`` (a
    line added to web/pages.py) when given: its report."""
    stage = tmp_path / "stage"
    shutil.copytree(ROOT / "ledger", stage / "ledger", ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    for folder in ("projections", "cli", "web"):
        shutil.copytree(
            ROOT / folder, stage / "ledger" / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    if edit is not None:
        pages = stage / "ledger" / "web" / "pages.py"
        pages.write_text(pages.read_text().replace("import segno\n", f"import segno\n{edit}\n", 1))
    linter = Path(sys.executable).parent / "lint-imports"
    found = subprocess.run(
        [str(linter), str(ROOT / "pyproject.toml"), "--contract", "live-table-no-cli", "--no-cache"],
        cwd=stage,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return found.stdout + found.stderr


def test_the_live_table_imports_nothing_of_the_command_line(tmp_path: Path) -> None:
    kept = _lint_imports(tmp_path / "kept")
    assert "The live table imports nothing of the command line KEPT" in kept, kept
    broken = _lint_imports(tmp_path / "broken", "from ledger.cli import fixes as _fixes  # noqa")
    assert "The live table imports nothing of the command line BROKEN" in broken, broken
    assert "ledger.web.pages -> ledger.cli.fixes" in broken


def test_seats_asking_at_once_in_two_languages_each_get_their_own(tmp_path: Path) -> None:
    """Many requests at once, half Spanish, half English: the ledger thread runs them in
    groups, each in its own request's language."""
    from concurrent.futures import ThreadPoolExecutor

    seated = seat_table(str(tmp_path / "together.ledger"))
    with serving(seated.db) as base:

        def ask(n: int) -> tuple[str, str]:
            lang = "es" if n % 2 else "en"
            headers = {**bearer(seated.other_gm), "Accept-Language": lang}
            answer = httpx.get(f"{base}/api/c/Friday/events", headers=headers, timeout=20)
            return lang, answer.json()["error"]["message"]

        with ThreadPoolExecutor(max_workers=12) as pool:
            answers = list(pool.map(ask, range(48)))
    for lang, said in answers:
        expected = (
            "el asiento 'other-gm' es de la campaña" if lang == "es" else "seat 'other-gm' is for campaign"
        )
        assert said.startswith(expected), (lang, said)
