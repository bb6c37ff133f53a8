"""An import never moves the current campaign, and after an undo `campaigns` and `status`
say the same versions: the head and the effective one, both labelled."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Session


def exports(tmp_path: Path) -> tuple[Path, Path]:
    home = Session(str(tmp_path / "home.ledger"))
    files = []
    for name in ("Alpha", "Beta"):
        home("new", "freeform", name, "--no-commit")
        home("note", f"{name} begins")
        files.append(tmp_path / f"{name}.jsonl")
        home("export", "-c", name, "-o", str(files[-1]))
    return files[0], files[1]


def test_a_second_import_leaves_the_first_campaign_current(tmp_path: Path) -> None:
    alpha, beta = exports(tmp_path)
    s = Session(str(tmp_path / "fresh.ledger"))
    s("import", str(alpha))
    s("import", str(beta))
    assert s("campaigns").output == (
        "* Alpha                    freeform  v2\n  Beta                     freeform  v2\n"
    )
    assert s("status").output.splitlines()[0] == "campaign  Alpha (freeform), v2"
    assert s("note", "still here").output == "noted (v3)\n"


def test_after_an_undo_campaigns_and_status_say_the_head_and_the_effective_version(
    ledger_cli: Session,
) -> None:
    ledger_cli("new", "freeform", "Table")
    ledger_cli("roll", "1d6", "--faces", "1")
    ledger_cli("roll", "1d6", "--faces", "2")
    ledger_cli("undo")
    assert ledger_cli("campaigns").output == "* Table                    freeform  head v4, effective v2\n"
    assert ledger_cli("status").output.splitlines()[0] == "campaign  Table (freeform), head v4, effective v2"
    ledger_cli("roll", "1d6", "--faces", "3")
    assert ledger_cli("campaigns").output == "* Table                    freeform  v5\n"
    assert ledger_cli("status").output.splitlines()[0] == "campaign  Table (freeform), v5"
