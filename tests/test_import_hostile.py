"""A forger who re-seals: an import accepts only what the ledger itself could have recorded.

The chain is unkeyed, so anyone can edit an export and recompute every hash and
the header (``helpers_forgery``). Each file below is such a re-sealed export; the
import must refuse it in one line naming the version and the reason, exit
non-zero and leave the ledger exactly as it was.
"""

from __future__ import annotations

import subprocess
import tracemalloc
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

Events = list[dict[str, Any]]


def build(db: str) -> str:
    """A freeform campaign: a character, a roll of 2d6 on [5, 4], notes, an undo and a redo."""
    with Ledger(db) as book:
        camp = book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb", attrs={"str": "3"})
        book.roll("2d6", "Tomb", label="door", faces=[5, 4])
        book.note("the door is trapped", "Tomb")
        book.roll("1d20+2", "Tomb")
        book.undo("Tomb")
        book.redo("Tomb")
        book.note("we go in", "Tomb")
        return camp.id


@pytest.fixture
def exported(tmp_path: Path) -> tuple[str, Path]:
    db = str(tmp_path / "t.ledger")
    build(db)
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out


def version_of(events: Events, kind: str, nth: int = 0) -> int:
    return int([e for e in events if e["event"]["kind"] == kind][nth]["v"])


def event_of(events: Events, kind: str, nth: int = 0) -> dict[str, Any]:
    return [e for e in events if e["event"]["kind"] == kind][nth]


def assert_refused(db: str, path: Path, *expected: str) -> str:
    """One line, non-zero exit, every expected fragment in it, and nothing written."""
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(path), "--name", "Copy")
    line = hr.assert_one_line_error(result)
    for fragment in expected:
        assert fragment in line, line
    assert hr.store_rows(db) == before, "a refused import recorded something"
    return line


def at_version(v: int) -> str:
    return f"campaign 'Copy' fails verification at version {v}: import refused:"


# --- the forger is faithful -----------------------------------------------------------


def test_a_resealed_export_with_nothing_changed_is_the_same_file_and_imports(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    copy = forgery.forge_export(path, tmp_path / "same.jsonl", lambda _h, events: events)
    assert copy.read_bytes().splitlines()[1:] == path.read_bytes().splitlines()[1:]
    result = hr.invoke(db, "import", str(copy), "--name", "Copy")
    assert result.exit_code == 0, result.stderr
    assert hr.invoke(db, "verify", "--all").exit_code == 0


# --- what the events mean ---------------------------------------------------------------


def test_a_roll_whose_total_disagrees_with_its_dice_is_refused(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        roll = event_of(events, "dice.rolled")
        assert [d["face"] for d in roll["event"]["result"]["groups"][0]["dice"]] == [5, 4]
        roll["event"]["result"]["total"] = 99
        roll["event"]["result"]["groups"][0]["value"] = 99
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "dice.rolled")
    assert_refused(db, forged, at_version(v), "records 99 but its dice give 9")


def test_a_roll_with_a_face_off_its_die_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        result = event_of(events, "dice.rolled")["event"]["result"]
        result["groups"][0]["dice"][0]["face"] = 8  # 8 + 4 on "2d6"
        result["groups"][0]["value"] = result["total"] = 12
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "dice.rolled")
    assert_refused(db, forged, at_version(v), "cannot have been rolled", "not on a d6")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("fine\nv99 forged line", "U+000A LINE FEED, a line break"),
        ("red \x1b[31malert\x1b[0m", "U+001B ESCAPE, a control or invisible character"),
        ("x" * 501, "it is 501 characters long"),
    ],
)
def test_a_note_the_note_command_would_refuse_is_refused(
    exported: tuple[str, Path], tmp_path: Path, text: str, why: str
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "note")["event"]["text"] = text
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(version_of(forgery.read_export(path)[1], "note")), why)


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("name", "Ana\x1b[2J", "character name"),
        ("name", "Ana\n", "name"),
        ("attrs", {"str\nv99 forged": "3"}, "an attribute key"),
        ("attrs", {"str": "3\x1b[31m"}, "an attribute value"),
    ],
)
def test_a_character_the_character_command_would_refuse_is_refused(
    exported: tuple[str, Path], tmp_path: Path, field: str, value: Any, why: str
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "character.added")["event"][field] = value
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(2), why)


@pytest.mark.parametrize("day", [-(2**62), 5])
def test_an_envelope_day_the_rules_do_not_give_is_refused(
    exported: tuple[str, Path], tmp_path: Path, day: int
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "note")["day"] = day
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "note")
    assert_refused(db, forged, at_version(v), f"its day {day} is not the day the rules give")


def test_a_day_outside_the_range_the_ledger_records_is_refused_even_when_the_rules_give_it(
    tmp_path: Path,
) -> None:
    """In a crawl campaign the day comes from the events; a forged move to day 2**62
    folds to that day, and is refused by its range."""
    db = str(tmp_path / "t.ledger")
    Ledger(db).close()
    source = Path(__file__).parents[1] / "samples" / "crawl" / "campaign.jsonl"

    def edit(_h: dict[str, Any], events: Events) -> Events:
        moved = event_of(events, "crawl.moved")
        moved["event"]["day"] = moved["day"] = 10**7
        return events

    forged = forgery.forge_export(source, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(source)[1], "crawl.moved")
    assert_refused(db, forged, at_version(v), "its day 10000000 is outside 0 to 1000000")


# --- undo and redo ------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["own version", "zero", "negative", "past the head", "one action too far"])
def test_an_undo_whose_target_the_ledger_would_not_have_chosen_is_refused(
    exported: tuple[str, Path], tmp_path: Path, where: str
) -> None:
    db, path = exported
    events = forgery.read_export(path)[1]
    undo = event_of(events, "action.undone")
    target = {
        "own version": undo["v"],
        "zero": 0,
        "negative": -3,
        "past the head": len(events) + 5,
        "one action too far": undo["event"]["target"] - 1,
    }[where]

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "action.undone")["event"]["target"] = target
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(undo["v"]), f"the undo records target {target}")


def test_a_redo_with_nothing_to_redo_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        note = event_of(events, "note", 1)
        note["event"] = {"kind": "action.redone", "redone": note["action"], "target": 2}
        note["last_reset"] = note["v"]
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "note", 1)
    assert_refused(db, forged, at_version(v), "nothing to redo")


def test_a_last_reset_pointing_at_an_event_that_is_not_a_reset_is_refused(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "note", 1)["last_reset"] = 2
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "note", 1)
    assert_refused(db, forged, at_version(v), "its last_reset 2 is not the latest undo or redo")


# --- the header against the events ---------------------------------------------------------


def test_the_ledger_refuses_to_record_an_event_longer_than_an_import_reads(tmp_path: Path) -> None:
    """What the import refuses by size, the ledger never writes: every export imports."""
    db = str(tmp_path / "t.ledger")
    build(db)
    before = hr.store_rows(db)
    attrs = [a for i in range(900) for a in ("--attr", f"k{i}={'x' * 10_000}")]
    line = hr.assert_one_line_error(hr.invoke(db, "-c", "Tomb", "character", "add", "Big", *attrs))
    assert "above the 8 MiB one event may take" in line, line
    assert hr.store_rows(db) == before


def test_a_header_saying_crawl_over_freeform_events_is_refused(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    forged = forgery.forge_export(
        path, tmp_path / "f.jsonl", lambda _h, events: events, header=lambda h: dict(h, system="crawl")
    )
    assert_refused(
        db, forged, at_version(1), "the header says crawl but the campaign was started as 'freeform'"
    )


def test_a_registry_event_inside_a_campaign_is_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "note")["event"] = {"kind": "ledger.created"}
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "note")
    assert_refused(db, forged, at_version(v), "belongs to the registry")


# --- nesting and sizes ----------------------------------------------------------------------


def test_a_header_nested_100000_deep_is_refused_in_one_line(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported
    deep = b'{"format":"campaign-ledger-export","version":1,"name":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    forged = forgery.forge_export(path, tmp_path / "f.jsonl", lambda _h, events: events, raw_header=deep)
    assert_refused(db, forged, "header", "too long or too deeply nested")


def test_a_payload_nested_5000_deep_is_refused_in_one_line(
    exported: tuple[str, Path], tmp_path: Path
) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        events[0]["event"]["settings"] = {"terrain": "DEEP"}
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit, raw={b"DEEP": b"[" * 5000 + b"]" * 5000})
    assert_refused(db, forged, at_version(1), "nests deeper than 64 levels")


def test_a_50_mb_note_is_refused_without_reading_it_whole(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "note")["event"]["text"] = "x" * (50 * 1024 * 1024)
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "note")
    before = hr.store_rows(db)
    tracemalloc.start()
    try:
        result = hr.invoke(db, "import", str(forged), "--name", "Copy")
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    line = hr.assert_one_line_error(result)
    assert at_version(v) in line and "longer than 8 MiB" in line, line
    assert peak < 20 * 1024 * 1024, f"the import held {peak / 2**20:.0f} MiB for a refused 50 MiB line"
    assert hr.store_rows(db) == before


# --- a re-sealed stored log: verify and the readers ----------------------------------------


def test_verify_refuses_a_stored_roll_whose_total_disagrees_with_its_dice(tmp_path: Path) -> None:
    db = str(tmp_path / "t.ledger")
    stream = build(db)
    versions: list[int] = []

    def edit(events: Events) -> None:
        roll = event_of(events, "dice.rolled")
        roll["event"]["result"]["total"] = 99
        versions.append(roll["v"])

    forgery.forge_store(db, stream, edit)
    line = hr.assert_one_line_error(hr.invoke(db, "verify", "--all"), code=4)
    assert f"campaign 'Tomb' fails verification at version {versions[0]}:" in line, line
    assert "records 99 but its dice give 9" in line, line


READERS = (
    ["log"],
    ["log", "--all"],
    ["sheet"],
    ["journal"],
    ["replay"],
    ["undo"],
    ["redo"],
    ["roll", "1d6"],
    ["report", "-o", "REPORT"],
    ["verify"],
    ["query", "SELECT count(*) FROM events"],
    ["stats"],
)


@pytest.mark.parametrize(
    "forge",
    [
        "undo target is its own version",
        "undo target past the head",
        "undo target negative",
        "undo target zero",
        "last_reset at a note",
    ],
)
def test_readers_over_a_stored_log_with_a_bad_reset_refuse_naming_the_version(
    tmp_path: Path, forge: str
) -> None:
    """The walks over resets go down or refuse: no reader spins or gives a traceback."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        stream = book.new_campaign("freeform", "Tomb").id
        book.add_character("Ana", "Tomb")
        book.note("the door is trapped", "Tomb")
        book.roll("1d20+2", "Tomb")
        book.undo("Tomb")  # the undo is where every walk from the head goes through
        book.note("we go in", "Tomb")
    named: list[int] = []

    def edit(events: Events) -> None:
        undo = event_of(events, "action.undone")
        if forge == "last_reset at a note":
            later = event_of(events, "note", 1)
            later["last_reset"] = event_of(events, "note")["v"]
            named.append(later["v"])
            return
        undo["event"]["target"] = {
            "undo target is its own version": undo["v"],
            "undo target past the head": len(events) + 10,
            "undo target negative": -1,
            "undo target zero": 0,
        }[forge]
        named.append(undo["v"])

    forgery.forge_store(db, stream, edit)
    for args in READERS:
        args = [str(tmp_path / "r.html") if a == "REPORT" else a for a in args]
        try:
            proc = hr.run_ledger(db, "-c", "Tomb", *args, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"ledger {' '.join(args)} spun on a bad reset")
        line = hr.assert_process_refused(proc)
        assert f"campaign 'Tomb' fails verification at version {named[0]}:" in line, (args, line)


# --- actions decided again from their recorded command and dice -------------------------------

SEVEN = "6,5,4,3,3,2,1,1,2,6,6,6,4,4,4,5,5,3,2,3,4"
ASSIGN = "fue=18,des=15,con=13,int=12,sab=9,car=8"


def d20_export(tmp_path: Path) -> tuple[str, Path]:
    """A d20 campaign whose actions keep their commands and dice: a character and a check."""
    db = str(tmp_path / "t.ledger")
    for args in (
        ["new", "d20", "Station"],
        ["-c", "Station", "d20", "create", "Ripley", "--assign", ASSIGN, "--faces", SEVEN],
        ["-c", "Station", "d20", "check", "des", "--dc", "hard", "--faces", "3"],
    ):
        result = hr.invoke(db, *args)
        assert result.exit_code == 0, result.output
    out = tmp_path / "station.jsonl"
    assert hr.invoke(db, "-c", "Station", "export", "-o", str(out)).exit_code == 0
    return db, out


def test_a_system_event_whose_consequences_its_command_does_not_give_is_refused(tmp_path: Path) -> None:
    """A check forged to make a panic roll due: the roll itself is untouched and
    consistent, so only deciding the check again from its command and its recorded
    die shows the lie."""
    db, path = d20_export(tmp_path)

    def edit(_h: dict[str, Any], events: Events) -> Events:
        check = event_of(events, "d20.checked")
        assert check["decision"]["faces"] == [3] and not check["event"].get("panic_due")
        check["event"]["panic_due"] = True
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "d20.checked")
    assert_refused(db, forged, at_version(v), "not what its command decides on its recorded dice")


def test_a_re_rolled_die_in_a_seeded_campaign_is_refused(tmp_path: Path) -> None:
    """Seeded dice are decided by the seed: a forger cannot choose other faces, even
    well-formed ones whose total agrees."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb", seed=7)
        book.add_character("Ana", "Tomb")
        book.roll("1d6", "Tomb")
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")

    def edit(_h: dict[str, Any], events: Events) -> Events:
        roll = event_of(events, "dice.rolled")
        face = 6 if roll["decision"]["faces"] != [6] else 5
        roll["decision"]["faces"] = [face]
        roll["event"]["result"]["groups"][0]["dice"][0]["face"] = face
        roll["event"]["result"]["groups"][0]["value"] = roll["event"]["result"]["total"] = face
        return events

    forged = forgery.forge_export(out, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(out)[1], "dice.rolled")
    assert_refused(db, forged, at_version(v), "not the faces the campaign's seeded dice drew")


def test_a_decision_naming_a_class_outside_the_commands_is_refused(tmp_path: Path) -> None:
    db, path = d20_export(tmp_path)

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "d20.checked")["decision"]["command"] = "os.system"
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    v = version_of(forgery.read_export(path)[1], "d20.checked")
    assert_refused(db, forged, at_version(v), "which is no command of d20")


# --- provable dice: the players' client seed, given after the commitment ------------------------


def committed_export(tmp_path: Path) -> tuple[str, Path, list[str]]:
    """A campaign with dice commitments: notes where a forger can put a ``dice.seeded``
    (v2 before the first die, v4 after it, v7 after the reveal), and both commitments."""
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Tomb")
        first = book.dice_status("Tomb")["commitment"]
        book.note("we wait", "Tomb")
        book.roll("1d6", "Tomb")
        book.note("the players choose", "Tomb")
        book.reveal_dice("Tomb")
        book.note("after the reveal", "Tomb")
        second = book.dice_status("Tomb")["commitment"]
    out = tmp_path / "tomb.jsonl"
    with Ledger(db) as book, out.open("wb") as f:
        book.export(f, "Tomb")
    return db, out, [first, second]


def seeding_at(path: Path, target: Path, v: int, commitment: str, client_seed: str) -> Path:
    """The export with its note at version ``v`` turned into a ``dice.seeded`` event."""

    def edit(_h: dict[str, Any], events: Events) -> Events:
        note = events[v - 1]
        assert note["event"]["kind"] == "note"
        note.pop("decision")
        note["event"] = {"kind": "dice.seeded", "commitment": commitment, "client_seed": client_seed}
        return events

    return forgery.forge_export(path, target, edit)


def test_a_seeding_of_the_open_commitment_before_its_first_die_imports(tmp_path: Path) -> None:
    """The forger's edit is one the ledger could have made: the file imports."""
    db, path, (_, second) = committed_export(tmp_path)
    forged = seeding_at(path, tmp_path / "f.jsonl", 7, second, "table 7")
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    assert result.exit_code == 0, result.stderr
    with Ledger(db) as book:
        assert book.dice_status("Copy")["client_seed"] == "table 7"


@pytest.mark.parametrize(
    ("v", "which", "client_seed", "problem"),
    [
        (4, 0, "late", "after 1 of its dice was drawn"),
        (2, None, "table 7", "which is not the open one"),
        (7, 0, "table 7", "which is not the open one"),
        (2, 0, " table 7", "its client seed is not one line"),
        (2, 0, "", "its client seed is not one line"),
        (2, 0, "x" * 201, "its client seed is not one line"),
    ],
    ids=["after-a-die", "unknown-commitment", "revealed-commitment", "untrimmed", "empty", "too-long"],
)
def test_a_seeding_the_ledger_could_not_have_recorded_is_refused(
    tmp_path: Path, v: int, which: int | None, client_seed: str, problem: str
) -> None:
    db, path, commitments = committed_export(tmp_path)
    commitment = "ab" * 32 if which is None else commitments[which]
    forged = seeding_at(path, tmp_path / "f.jsonl", v, commitment, client_seed)
    assert_refused(db, forged, at_version(v), problem)


@pytest.mark.parametrize(
    ("v", "field", "value", "problem"),
    [
        (5, "seed", "00" * 32, "the seed it reveals does not hash to dice commitment"),
        (
            5,
            "commitment",
            "ab" * 32,
            "it reveals dice commitment abababababababab, which is not the open one",
        ),
        (1, "commitment", "not-a-sha256", "is not a sha256 in 64 lowercase hex digits"),
        (6, "client_seed", "x" * 201, "its client seed is not one line of at most 200"),
    ],
    ids=["wrong-seed", "not-open", "not-hex", "long-client-seed"],
)
def test_a_commitment_or_reveal_the_ledger_could_not_have_recorded_is_refused(
    tmp_path: Path, v: int, field: str, value: str, problem: str
) -> None:
    """What only ``verify --dice`` named before: the import refuses it too."""
    db, path, _ = committed_export(tmp_path)

    def edit(_h: dict[str, Any], events: Events) -> Events:
        assert events[v - 1]["event"]["kind"] in ("campaign.started", "dice.revealed", "dice.committed")
        events[v - 1]["event"][field] = value
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(v), problem)


def test_rules_that_fail_on_stored_tables_refuse_in_one_line_and_record_nothing(tmp_path: Path) -> None:
    """Tables the ledger would not have written (a number where the crawl's terrain table
    stands) are refused at import now (tests/test_import_tables.py); a campaign stored so
    by an older ledger still gets, from the first command whose rule reads them, a one-line
    refusal, not a traceback, and nothing recorded."""
    db = str(tmp_path / "b.ledger")
    with Ledger(db) as book:
        camp = book.new_campaign("crawl", "Copy", seed=3)

    def edit(events: Events) -> None:
        events[0]["event"]["tables"]["terrain"] = 5

    forgery.forge_store(db, camp.id, edit)
    assert hr.invoke(db, "-c", "Copy", "crawl", "move", "n").exit_code == 0
    before = hr.store_rows(db)
    line = hr.assert_one_line_error(hr.invoke(db, "-c", "Copy", "crawl", "terrain"), code=1)
    assert "the crawl rules cannot decide this on campaign 'Copy' (TypeError:" in line
    assert "`ledger verify -c Copy`" in line
    assert hr.store_rows(db) == before


# --- a forger's random edits ------------------------------------------------------------------

ODD_VALUES: list[Any] = [
    -1,
    0,
    2**62,
    -(2**62),
    1.5,
    "",
    "x\ny",
    "\x1b[2J",
    "Ana",
    "Bo",
    None,
    True,
    [],
    {},
    [1, 2],
    {"kind": "note", "text": "hi"},
    "2d6",
]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value a forger could change."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in ("hash", "prev", "v"):  # re-sealed anyway
                found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


def _set(value: Any, path: tuple[Any, ...], new: Any) -> None:
    for key in path[:-1]:
        value = value[key]
    value[path[-1]] = new


@pytest.mark.parametrize("trial", range(40))
def test_a_forgers_random_edit_is_refused_in_one_line_or_reads_cleanly(
    exported: tuple[str, Path], tmp_path: Path, trial: int
) -> None:
    """Any one value of a re-sealed export changed to an odd one: the import refuses it in
    one line recording nothing, or what it admits verifies and every reader works."""
    import random

    db, path = exported
    rng = random.Random(f"forger:{trial}")

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event = rng.choice(events)
        _set(event, rng.choice(_paths(event)), rng.choice(ODD_VALUES))
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    before = hr.store_rows(db)
    result = hr.invoke(db, "import", str(forged), "--name", "Copy")
    if result.exit_code != 0:
        hr.assert_one_line_error(result)
        assert hr.store_rows(db) == before
        return
    assert hr.invoke(db, "verify", "--all").exit_code == 0
    for args in (["log", "--all"], ["sheet"], ["journal"], ["replay"], ["undo"], ["roll", "1d6"]):
        out = hr.invoke(db, "-c", "Copy", *args)
        assert out.exception is None or isinstance(out.exception, SystemExit), (args, out.exception)
        assert len(hr.terminal_lines(out.output)) >= 1
        if out.exit_code != 0:
            hr.assert_one_line_error(out)


def test_an_older_d20_export_with_a_check_forged_the_other_way_is_refused(tmp_path: Path) -> None:
    """An export from before actions kept their decisions: the d20 roll is still
    recomputed from its faces by the d20 roller."""
    db = str(tmp_path / "t.ledger")
    Ledger(db).close()
    source = Path(__file__).parents[1] / "samples" / "d20" / "campaign.jsonl"
    check = event_of(forgery.read_export(source)[1], "d20.checked")
    assert "decision" not in check
    was = check["event"]["roll"]["success"]

    def edit(_h: dict[str, Any], events: Events) -> Events:
        events[check["v"] - 1]["event"]["roll"]["success"] = not was
        return events

    forged = forgery.forge_export(source, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(check["v"]), "but its dice give", f"success {was}")


def test_settings_on_a_system_that_takes_none_are_refused(exported: tuple[str, Path], tmp_path: Path) -> None:
    db, path = exported

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "campaign.started")["event"]["settings"] = {"repeat": "pass"}
        return events

    forged = forgery.forge_export(path, tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(1), "the freeform system takes no settings")


@pytest.mark.parametrize(
    ("settings", "why"),
    [({"bogus": "1"}, "has no setting 'bogus'"), ({"repeat": "maybe"}, "repeat='maybe' is refused")],
)
def test_a_crawl_setting_the_ledger_would_refuse_is_refused(
    tmp_path: Path, settings: dict[str, str], why: str
) -> None:
    db = str(tmp_path / "c.ledger")
    source = tmp_path / "source.ledger"
    with Ledger(str(source)) as book, (tmp_path / "k.jsonl").open("wb") as out:
        book.new_campaign("crawl", "Tomb", seed=3, settings={"repeat": "pass"})
        book.export(out, "Tomb")
    with Ledger(db):
        pass

    def edit(_h: dict[str, Any], events: Events) -> Events:
        event_of(events, "campaign.started")["event"]["settings"] = settings
        return events

    honest = forgery.forge_export(tmp_path / "k.jsonl", tmp_path / "same.jsonl", lambda _h, events: events)
    assert hr.invoke(db, "import", str(honest), "--name", "Honest").exit_code == 0
    forged = forgery.forge_export(tmp_path / "k.jsonl", tmp_path / "f.jsonl", edit)
    assert_refused(db, forged, at_version(1), why)
