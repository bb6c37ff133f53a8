"""An import decides every recorded action again, whatever its decision says of its rules.

A decision records the rules versions it was decided under (``core=1 crawl=1``); one
recorded before versions were kept holds a hash of the rules' code, and any such hash is
version 1. Each forgery below takes a golden log recorded with decisions, gives every
decision another code hash (as any change to the rules' code did, a reworded message
included) and edits one result the rules cannot give, re-sealing the chain: the import
must refuse it in one line naming the version, and record nothing.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
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
from ledger.errors import TamperError
from ledger.systems import get_system, system_names
from ledger.trust import admission

SAMPLES = Path(__file__).parents[1] / "samples"
DECIDED = sorted(SAMPLES.glob("*/campaign-rules-v1*.jsonl"))
OTHER_CODE = "5f" * 16
"""A code hash no ledger's rules had: what a decision recorded by other code holds."""

Events = list[dict[str, Any]]


def admitted(data: bytes) -> admission.Admission:
    """Every event of an export admitted in order, as ``ledger import`` does."""
    stream = io.BytesIO(data)
    header, _fields = admission.read_header(stream)
    admit = admission.Admission("Copy", get_system(header.system))
    for raw in admission.lines(stream):
        admit.admit(raw)
    admit.check_head(header)
    admit.finish()
    return admit


def decided(events: Events) -> int:
    return sum(1 for e in events if e.get("decision"))


def other_code(events: Events) -> Events:
    for e in events:
        if e.get("decision"):
            e["decision"]["rules"] = OTHER_CODE
    return events


def forged(tmp_path: Path, log: str, edit: Callable[[Events], None], *, rules: bool = True) -> Path:
    def both(_head: dict[str, Any], events: Events) -> Events:
        if rules:
            other_code(events)
        edit(events)
        return events

    return forgery.forge_export(SAMPLES / log, tmp_path / "forged.jsonl", both)


def nth(
    events: Events, kind: str, n: int = 0, where: Callable[[dict[str, Any]], bool] = lambda _e: True
) -> dict[str, Any]:
    return [e for e in events if e["event"]["kind"] == kind and where(e["event"])][n]


def action_start(events: Events, event: dict[str, Any]) -> dict[str, Any]:
    """The first event of the action ``event`` belongs to (where its decision is)."""
    return next(e for e in events if e["action"] == event["action"])


# --- older actions are decided again ------------------------------------------------------


@pytest.mark.parametrize("path", DECIDED, ids=[f"{p.parent.name}/{p.name}" for p in DECIDED])
def test_every_action_of_a_golden_log_is_decided_again_whatever_code_hash_it_records(path: Path) -> None:
    if path.parent.name not in system_names():
        pytest.skip(f"system {path.parent.name} is not installed")
    _head, events = forgery.read_export(path)
    assert decided(events) > 10
    assert all(len(e["decision"]["rules"]) == 32 for e in events if e.get("decision"))  # before versions
    assert admitted(path.read_bytes()).redecided == decided(events)
    elsewhere = forgery.forge_export(
        path, path.parent / ".." / ".." / ".pytest-elsewhere.jsonl", lambda _h, ev: other_code(ev)
    )
    try:
        assert admitted(elsewhere.read_bytes()).redecided == decided(events)
    finally:
        elsewhere.unlink()


def test_an_action_records_the_rules_versions_it_was_decided_under(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("crawl", "Dunes", seed=3)
        book.execute(get_system("crawl").rules.commands[0](direction="n"), "Dunes")  # type: ignore[call-arg]
        out = io.BytesIO()
        book.export(out, "Dunes")
    rules = {json.loads(line)["decision"]["rules"] for line in out.getvalue().splitlines()[2:3]}
    assert rules == {"core=4 crawl=1"}
    assert admitted(out.getvalue()).redecided == 1


def refusal(tmp_path: Path, path: Path) -> str:
    """The one-line refusal of importing ``path``, the ledger left without the copy."""
    with Ledger(str(tmp_path / "t.ledger")) as book:
        with path.open("rb") as data, pytest.raises(TamperError) as refused:
            book.import_(data, "Copy")
        assert "Copy" not in {c.name for c in book.campaigns()}
    message = str(refused.value)
    assert "\n" not in message and "import refused:" in message
    return message


# --- impossible results, refused ----------------------------------------------------------


def crawl_health(events: Events) -> None:
    nth(events, "crawl.ate")["event"]["health"] = 1000


def crawl_fourth_meal(events: Events) -> None:
    nth(events, "crawl.ate", 0)["event"]["meal"] = 4


def crawl_hotel_debt(events: Events) -> None:
    nth(events, "crawl.bought")["event"]["bits"] = -491


def crawl_hotel_night(events: Events) -> None:
    slept = nth(events, "crawl.slept")
    slept["event"]["where"] = "hotel"
    slept["event"]["cost"] = 494


def crawl_seeded_reroll(events: Events) -> None:
    rolled = nth(events, "crawl.terrain_rolled")
    face = rolled["event"]["face"]
    other = 1 if face != 1 else 2
    rolled["event"]["dice"] = [other]
    rolled["event"]["face"] = other
    action_start(events, rolled)["decision"]["faces"] = [other]


def crawl_p_success(events: Events) -> None:
    nth(events, "crawl.enemy_struck")["event"]["p_success"] = 7.5


def crawl_enemy_attack(events: Events) -> None:
    struck = nth(events, "crawl.player_struck")
    struck["event"]["damage"] = 1000
    struck["event"]["foe_health"] = -996


def d100_face(events: Events) -> None:
    tested = nth(events, "d100.tested")
    tested["event"]["face"] = 1000
    action_start(events, tested)["decision"]["faces"] = [1000]


def d100_target(events: Events) -> None:
    nth(events, "d100.tested")["event"]["p_success"] = 7.5


def yearzero_seven(events: Events) -> None:
    rolled = nth(events, "yz.rolled")
    rolled["event"]["dice"]["base"][0] = 7
    action_start(events, rolled)["decision"]["faces"][0] = 7


def yearzero_successes(events: Events) -> None:
    nth(events, "yz.rolled")["event"]["successes"] = 9


def dicepool_nine(events: Events) -> None:
    tested = nth(events, "dicepool.tested")
    tested["event"]["roll"]["dice"][0]["faces"] = [6, 6, 6, 6, 6, 6, 6, 6, 6]
    tested["event"]["roll"]["dice"][0]["total"] = 54
    tested["event"]["roll"]["successes"] = 9
    action_start(events, tested)["decision"]["faces"] = [6, 6, 6, 6, 6, 6, 6, 6, 6, 1, 5]


def d20_hp(events: Events) -> None:
    nth(events, "d20.damaged")["event"]["hp_after"] = 1000


CASES: dict[str, tuple[str, Callable[[Events], None]]] = {
    "crawl Health 1000 of 20": ("crawl/campaign-rules-v1.jsonl", crawl_health),
    "crawl a fourth meal": ("crawl/campaign-rules-v1.jsonl", crawl_fourth_meal),
    "crawl bits at -491": ("crawl/campaign-rules-v1.jsonl", crawl_hotel_debt),
    "crawl a night for 494 bits": ("crawl/campaign-rules-v1.jsonl", crawl_hotel_night),
    "crawl a re-rolled seeded die": ("crawl/campaign-rules-v1.jsonl", crawl_seeded_reroll),
    "crawl p_success 7.5": ("crawl/campaign-rules-v1.jsonl", crawl_p_success),
    "crawl a blow of 1000": ("crawl/campaign-rules-v1-random.jsonl", crawl_enemy_attack),
    "d100 a face of 1000": ("d100/campaign-rules-v1.jsonl", d100_face),
    "d100 p_success 7.5": ("d100/campaign-rules-v1.jsonl", d100_target),
    "yearzero a 7 on a d6": ("yearzero/campaign-rules-v1.jsonl", yearzero_seven),
    "yearzero nine successes": ("yearzero/campaign-rules-v1.jsonl", yearzero_successes),
    "dicepool nine successes from one die": ("dicepool/campaign-rules-v1.jsonl", dicepool_nine),
    "d20 Health 1000": ("d20/campaign-rules-v1.jsonl", d20_hp),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_impossible_result_under_another_code_hash_is_refused(case: str, tmp_path: Path) -> None:
    log, edit = CASES[case]
    refusal(tmp_path, forged(tmp_path, log, edit))


@pytest.mark.parametrize(
    "case", ["crawl bits at -491", "d100 a face of 1000", "crawl a re-rolled seeded die"]
)
def test_the_command_line_refuses_it_with_exit_4_and_writes_nothing(case: str, tmp_path: Path) -> None:
    log, edit = CASES[case]
    path = forged(tmp_path, log, edit)
    db = str(tmp_path / "t.ledger")
    with Ledger(db) as book:
        book.new_campaign("freeform", "Home")
    before = hr.store_rows(db)
    line = hr.assert_one_line_error(hr.invoke(db, "import", str(path), "--name", "Copy"), code=4)
    assert "campaign 'Copy' fails verification at version" in line
    assert hr.store_rows(db) == before


def test_a_reseeded_die_names_the_seeded_dice(tmp_path: Path) -> None:
    path = forged(tmp_path, "crawl/campaign-rules-v1.jsonl", crawl_seeded_reroll)
    assert "not the faces the campaign's seeded dice drew" in refusal(tmp_path, path)


# --- rules versions -----------------------------------------------------------------------


def versions(rules: str) -> Callable[[Events], None]:
    def edit(events: Events) -> None:
        for e in events:
            if e.get("decision"):
                e["decision"]["rules"] = rules

    return edit


def test_a_newer_rules_version_is_refused_with_upgrade(tmp_path: Path) -> None:
    path = forged(tmp_path, "crawl/campaign-rules-v1.jsonl", versions("core=1 crawl=2"), rules=False)
    line = refusal(tmp_path, path)
    assert "recorded by rules version 2 of crawl; this ledger knows up to 1: upgrade campaign-ledger" in line


def test_a_newer_core_rules_version_is_refused_with_upgrade(tmp_path: Path) -> None:
    path = forged(tmp_path, "freeform/campaign-rules-v1.jsonl", versions("core=9 freeform=1"), rules=False)
    line = refusal(tmp_path, path)
    assert "rules version 9 of the core commands; this ledger knows up to 4: upgrade campaign-ledger" in line


def test_rules_that_name_another_system_are_refused(tmp_path: Path) -> None:
    path = forged(tmp_path, "crawl/campaign-rules-v1.jsonl", versions("core=1 d20=1"), rules=False)
    assert "which are no rules of crawl" in refusal(tmp_path, path)


def test_a_roll_recorded_under_core_rules_1_is_decided_again_under_its_notation_rules(tmp_path: Path) -> None:
    """Core rules 2 roll under notation rules 3; an action recorded under core rules 1 (any
    recorded before versions, such as the golden logs') is decided again as it was rolled,
    under notation rules 2, and the same action claiming core rules 2 is refused."""
    path = tmp_path / "v1.jsonl"
    path.write_bytes((SAMPLES / "freeform" / "campaign-rules-v1.jsonl").read_bytes())
    assert admitted(path.read_bytes()).redecided > 0
    claimed = forged(tmp_path, "freeform/campaign-rules-v1.jsonl", versions("core=2 freeform=1"), rules=False)
    assert "the event is not what its command decides on its recorded dice" in refusal(tmp_path, claimed)


def test_the_current_versions_import_and_are_decided_again(tmp_path: Path) -> None:
    path = forged(tmp_path, "crawl/campaign-rules-v1.jsonl", versions("core=4 crawl=1"), rules=False)
    _head, events = forgery.read_export(path)
    assert admitted(path.read_bytes()).redecided == decided(events)


# --- the second line: each system's invariants, on actions recorded without a decision ------


def undecided(events: Events) -> Events:
    """The log as a ledger that kept no decisions would have recorded it: each action is
    then only folded, and the system's invariants are what stand behind the fold."""
    for e in events:
        e.pop("decision", None)
    return events


def inserted(events: Events, after: dict[str, Any], *new: dict[str, Any]) -> None:
    """Events put in after ``after``, the versions of everything later moved on."""
    at = events.index(after) + 1
    events[at:at] = list(new)
    for v, e in enumerate(events, 1):
        e["v"] = v


def another_action(event: dict[str, Any], n: int, **changes: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(event))
    copy["action"] = f"{n:016x}"
    copy["event"].update(changes)
    return copy


def crawl_health_undecided(events: Events) -> None:
    nth(undecided(events), "crawl.ate")["event"]["health"] = 1000


def crawl_debt_undecided(events: Events) -> None:
    nth(undecided(events), "crawl.bought")["event"]["bits"] = -491


def crawl_four_meals(events: Events) -> None:
    ate = nth(undecided(events), "crawl.ate", 0, lambda e: e["food"] == "bar")
    inserted(
        events,
        ate,
        *(another_action(ate, n, food="tavern", cost=0, meal=ate["event"]["meal"] + n) for n in (1, 2, 3)),
    )


def crawl_after_death(events: Events) -> None:
    starved = nth(undecided(events), "crawl.starved")
    starved["event"]["health"] = 0
    died = json.loads(json.dumps(starved))
    died["event"] = {"kind": "crawl.died", "cause": "hunger", "day": starved["day"]}
    inserted(events, starved, died)


SECOND_LINE: dict[str, tuple[Callable[[Events], None], str]] = {
    "Health 1000": (crawl_health_undecided, "Health 1000 is outside 0 to 20"),
    "bits at -491": (crawl_debt_undecided, "bits -491 is below zero"),
    "four meals in a day": (crawl_four_meals, "4 meals on day"),
    "a move after death": (crawl_after_death, "the explorer acts after dying (hunger)"),
}


def d20_health_undecided(events: Events) -> None:
    nth(undecided(events), "d20.damaged")["event"]["hp_after"] = 1000


def d100_face_undecided(events: Events) -> None:
    nth(undecided(events), "d100.tested")["event"]["face"] = 1000


def yearzero_seven_undecided(events: Events) -> None:
    nth(undecided(events), "yz.rolled")["event"]["dice"]["base"][0] = 7


def yearzero_nine_undecided(events: Events) -> None:
    nth(undecided(events), "yz.rolled")["event"]["successes"] = 9


def dicepool_monitor_undecided(events: Events) -> None:
    nth(undecided(events), "dicepool.resisted")["event"]["physical"] = 1000


OTHER_SYSTEMS: dict[str, tuple[str, Callable[[Events], None], str]] = {
    "yearzero a 7 on a d6": (
        "yearzero",
        yearzero_seven_undecided,
        "Vesna's roll shows a 7, which is not on a d6",
    ),
    "yearzero nine successes": (
        "yearzero",
        yearzero_nine_undecided,
        "Vesna's roll records 9 successes where its dice give 0",
    ),
    "dicepool 1000 boxes": (
        "dicepool",
        dicepool_monitor_undecided,
        "Mark's physical damage 1000 is outside 0 to 10 boxes",
    ),
    "d20 Health 1000": ("d20", d20_health_undecided, "Parker's Health 1000 is outside 0 to 8"),
    "d100 a face of 1000": (
        "d100",
        d100_face_undecided,
        "Ana's last test shows 1000, which is not on a d100",
    ),
}


@pytest.mark.parametrize("case", list(SECOND_LINE))
def test_an_undecided_action_that_breaks_an_invariant_is_refused(case: str, tmp_path: Path) -> None:
    edit, problem = SECOND_LINE[case]
    line = refusal(tmp_path, forged(tmp_path, "crawl/campaign-rules-v1.jsonl", edit, rules=False))
    assert f"the crawl rules cannot reach its state: {problem}" in line


@pytest.mark.parametrize("case", list(OTHER_SYSTEMS))
def test_an_undecided_action_that_breaks_another_systems_invariant_is_refused(
    case: str, tmp_path: Path
) -> None:
    system, edit, problem = OTHER_SYSTEMS[case]
    line = refusal(tmp_path, forged(tmp_path, f"{system}/campaign-rules-v1.jsonl", edit, rules=False))
    assert f"the {system} rules cannot reach its state: {problem}" in line


def test_an_undecided_log_within_the_invariants_imports(tmp_path: Path) -> None:
    path = forged(tmp_path, "crawl/campaign-rules-v1.jsonl", undecided, rules=False)
    assert admitted(path.read_bytes()).redecided == 0


# --- older rules, kept -------------------------------------------------------------------


def admitted_under(data: bytes, system: Any) -> admission.Admission:
    stream = io.BytesIO(data)
    admission.read_header(stream)
    admit = admission.Admission("Copy", system)
    for raw in admission.lines(stream):
        admit.admit(raw)
    admit.finish()
    return admit


def test_an_action_of_an_older_rules_version_is_decided_by_the_decider_kept_for_it() -> None:
    """As after crawl raises its rules version: the golden log's version-1 actions are
    decided by the version-1 decider the system keeps, every one of them."""
    import msgspec

    crawl = get_system("crawl")
    calls: list[int] = []

    def version_1(state: Any, command: Any, dice: Any) -> Any:
        calls.append(1)
        return crawl.rules.decide(state, command, dice)

    def version_2(state: Any, command: Any, dice: Any) -> Any:
        raise AssertionError("a version-1 action decided by version 2")

    newer = msgspec.structs.replace(
        crawl,
        rules=msgspec.structs.replace(
            crawl.rules, rules_version=2, decide=version_2, older_rules={1: version_1}
        ),
    )
    data = (SAMPLES / "crawl" / "campaign-rules-v1.jsonl").read_bytes()
    _head, events = forgery.read_export(SAMPLES / "crawl" / "campaign-rules-v1.jsonl")
    assert admitted_under(data, newer).redecided == decided(events)
    assert len(calls) == sum(
        1 for e in events if (e.get("decision") or {}).get("command", "").startswith("crawl.")
    )


def test_an_action_of_an_older_rules_version_no_decider_is_kept_for_is_refused() -> None:
    import msgspec

    crawl = get_system("crawl")
    newer = msgspec.structs.replace(crawl, rules=msgspec.structs.replace(crawl.rules, rules_version=2))
    data = (SAMPLES / "crawl" / "campaign-rules-v1.jsonl").read_bytes()
    with pytest.raises(
        TamperError, match=r"recorded by rules version 1 of crawl, which this ledger no longer decides"
    ):
        admitted_under(data, newer)


def test_a_log_recorded_under_core_rules_3_verifies_as_it_was_recorded(tmp_path: Path) -> None:
    """``campaign-rules-core3.jsonl`` was recorded under core rules 3 (notation rules 3):
    ``2d6r1=1`` rerolled 1s and counted the dice showing 1, ``4d6x2>=5`` exploded on 2 and
    counted, and ``1d20+5 ataque`` sent without a label recorded none. Core rules 4 refuse the
    first forms and label the last; the old log is decided again by the rules it names, and
    the same actions claiming core rules 4 are refused."""
    path = SAMPLES / "freeform" / "campaign-rules-core3.jsonl"
    assert admitted(path.read_bytes()).redecided == 5
    with Ledger(str(tmp_path / "imported.ledger")) as book:
        with path.open("rb") as data:
            camp = book.import_(data, "Copy")
        book.verify("Copy")
        rolls = [e.event for e in book.effective(camp) if e.event.kind == "dice.rolled"]
    assert [(r.result.notation, r.result.successes, r.label) for r in rolls] == [  # type: ignore[attr-defined]
        ("2d6r1=1", 0, ""),
        ("4d6!2>=5", 2, ""),
        ("4d6r1<3", 1, ""),
        ("1d20+5", None, ""),
    ]
    claimed = forged(
        tmp_path, "freeform/campaign-rules-core3.jsonl", versions("core=4 freeform=1"), rules=False
    )
    assert "Foundry's capped reroll" in refusal(tmp_path, claimed)


def test_a_push_after_anothers_roll_is_yearzero_rules_2_and_refused_under_rules_1(tmp_path: Path) -> None:
    """Yearzero rules 2 push the acting character's own last roll, whoever rolled since;
    rules 1 (the golden logs') pushed only the roll just made: the same action claiming
    rules 1 is refused at import."""
    from ledger.systems.yearzero import commands as yz

    mutant = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3"}
    with Ledger(str(tmp_path / "z.ledger")) as book:
        book.new_campaign("yearzero", "Zone")
        book.add_character("Ana", "Zone", mutant)
        book.add_character("Bo", "Zone", mutant)
        book.execute(yz.Roll(what="wits"), "Zone", actor="Ana", faces=[2, 3, 4])
        book.execute(yz.Roll(what="wits"), "Zone", actor="Bo", faces=[2, 3, 4])
        pushed = book.execute(yz.Push(), "Zone", actor="Ana", faces=[6, 5, 5])
        assert pushed.envelopes[0].decision is not None
        assert pushed.envelopes[0].decision.rules.endswith(" yearzero=2")
        with (tmp_path / "zone.jsonl").open("wb") as out:
            book.export(out, "Zone")
    assert admitted((tmp_path / "zone.jsonl").read_bytes()).redecided > 0
    old = forgery.forge_export(
        tmp_path / "zone.jsonl",
        tmp_path / "old.jsonl",
        lambda _h, events: (versions("core=4 yearzero=1")(events), events)[1],
    )
    assert "only Bo can push their own roll" in refusal(tmp_path, old)
