"""The coin plugin speaks through its own catalog (``campaign_ledger_coin``), in the
language the ledger's front end chose: a flip, its streak and its refusals in Spanish and
in English, the faces typed in either language and recorded as the same key, and the
catalog in the plugin's wheel compiled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import i18n
from ledger.systems import system_names
from tests.conftest import Session

if "coin" not in system_names():
    WHY = "the coin plugin is not installed (pip install -e samples/plugin-coin)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true but {WHY}", pytrace=False)
    pytest.skip(WHY, allow_module_level=True)

PLUGIN = Path(__file__).resolve().parent.parent / "samples" / "plugin-coin"


@pytest.fixture
def coin(db: str) -> Session:
    session = Session(db)
    session("--lang", "en", "new", "coin", "Toss")
    return session


def test_a_flip_in_spanish_and_in_english(coin: Session) -> None:
    spanish = coin("--lang", "es", "coin", "flip", "--call", "cara", "--faces", "cruz").output
    assert spanish == "lanzamiento: pidió cara, salió cruz: pierde (moneda de verdad)\nracha: cruz 1 vez\n"
    english = coin("--lang", "en", "coin", "flip", "--call", "tails", "--faces", "tails").output
    assert english == "flip: called tails, tails: won (physical coin)\nstreak: 2 tails in a row\n"
    spanish = coin("--lang", "es", "coin", "flip", "--call", "cruz", "--faces", "tails").output
    assert spanish.endswith("racha: cruz 3 veces seguidas\n")


def test_either_languages_face_is_recorded_as_its_key(coin: Session) -> None:
    out = coin("--lang", "es", "--json", "coin", "flip", "--call", "Cara", "--faces", "cruz").output
    assert json.loads(out)["events"] == [
        {"kind": "coin.flipped", "call": "heads", "face": "tails", "manual": True}
    ]
    out = coin("--lang", "en", "--json", "coin", "flip", "--call", "heads", "--faces", "tails").output
    assert json.loads(out)["events"][0]["call"] == "heads"


def test_the_log_reads_in_the_readers_language(coin: Session) -> None:
    coin("--lang", "en", "coin", "flip", "--call", "heads", "--faces", "heads")
    assert (
        "lanzamiento: pidió cara, salió cara: gana (moneda de verdad)" in coin("--lang", "es", "log").output
    )
    assert "flip: called heads, heads: won (physical coin)" in coin("--lang", "en", "log").output


def test_a_bad_call_is_refused_in_the_readers_language() -> None:
    from campaign_ledger_coin.commands import Flip

    from ledger.errors import RuleError

    with _temp_ledger() as book:
        book.new_campaign("coin", "Toss")
        with i18n.using("es"), pytest.raises(RuleError) as refused:
            book.execute(Flip(call="canto"), "Toss")
        assert refused.value.message == "se pide cara o cruz, no 'canto'"
        with i18n.using("en"), pytest.raises(RuleError) as refused:
            book.execute(Flip(call="canto"), "Toss")
        assert refused.value.message == "a call is heads or tails, not 'canto'"


def _temp_ledger():  # type: ignore[no-untyped-def]
    import tempfile

    from ledger import Ledger

    return Ledger(str(Path(tempfile.mkdtemp()) / "coin.ledger"))


def test_the_plugins_catalog_is_its_own() -> None:
    from campaign_ledger_coin.i18n import CATALOG

    assert CATALOG.domain == "campaign_ledger_coin"
    with i18n.using("es"):
        assert CATALOG._("heads") == "cara"
        assert i18n._("heads") == "heads"  # the ledger's catalog does not hold the plugin's words


def test_the_plugins_build_compiles_its_catalog(tmp_path: Path) -> None:
    """pyproject.toml ships the .po as package data, setup.py's build step compiles it: the
    built package (what the wheel holds) carries both, and the .mo says the Spanish."""
    import gettext

    built = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
        cwd=PLUGIN,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    folder = tmp_path / "campaign_ledger_coin" / "locale" / "es" / "LC_MESSAGES"
    assert (folder / "campaign_ledger_coin.po").is_file()
    with (folder / "campaign_ledger_coin.mo").open("rb") as f:
        assert gettext.GNUTranslations(f).gettext("heads") == "cara"
