"""`ledger stats`, `ledger query` and `ledger simulate`: luck, fairness, survival, safety, reproducibility."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import duckdb
import msgspec
import pytest

from ledger import Ledger
from ledger.projections.stats.maths import chi2_sf, fairness, gamma_q, kaplan_meier, luck_index
from ledger.projections.warehouse.loading import Warehouse
from ledger.systems import system_names
from tests.conftest import Session

# --- the mathematics -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "dof", "p"),
    [
        (3.841458820694124, 1, 0.05),
        (11.070497693516351, 5, 0.05),
        (15.08627246938899, 5, 0.01),
        (2.0, 4, math.exp(-1) * 2),  # chi-square with 4 dof: e^(-x/2) (1 + x/2)
        (30.0, 2, math.exp(-15)),  # with 2 dof: e^(-x/2)
    ],
)
def test_chi_square_survival_matches_known_values(x: float, dof: int, p: float) -> None:
    assert chi2_sf(x, dof) == pytest.approx(p, rel=1e-9)


def test_gamma_q_edges() -> None:
    assert gamma_q(2.5, 0) == 1.0
    assert gamma_q(1, 1e6) == 0.0
    with pytest.raises(ValueError):
        gamma_q(0, 1)


def test_luck_index_counts_standard_deviations() -> None:
    # ten rolls at p = 0.5, eight successes: (8 - 5) / sqrt(2.5)
    assert luck_index(8, 5, 2.5) == pytest.approx(3 / math.sqrt(2.5))
    assert luck_index(3, 3, 0) is None


def test_fairness_needs_enough_throws() -> None:
    verdict = fairness(20, [1] * 20)
    assert verdict.p_value is None and not verdict.flagged
    assert "too few throws" in verdict.verdict


def test_kaplan_meier_censors_the_living() -> None:
    curve = kaplan_meier([(3, True), (5, False), (5, True), (7, False)])
    by_day = {row["day"]: row for row in curve}
    assert by_day[2]["survival"] == 1.0
    assert by_day[3]["survival"] == 0.75
    assert by_day[5]["at_risk"] == 3
    assert by_day[5]["survival"] == pytest.approx(0.75 * 2 / 3, abs=1e-4)
    assert by_day[7]["survival"] == pytest.approx(0.5, abs=1e-4)


# --- dice fairness through the CLI ---------------------------------------------------------------


def _throw(ledger_cli: Session, faces: list[int]) -> None:
    for i in range(0, len(faces), 100):
        chunk = faces[i : i + 100]
        ledger_cli("roll", f"{len(chunk)}d6", "--faces", ",".join(map(str, chunk)))


def _fairness(ledger_cli: Session) -> dict[str, object]:
    data = json.loads(ledger_cli("stats", "--report", "fairness", "--json").output)
    (d6,) = data["fairness"]
    return d6


def test_a_loaded_d6_is_flagged(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "table")
    rng = random.Random(1)
    _throw(ledger_cli, rng.choices(range(1, 7), weights=[1, 1, 1, 1, 1, 2], k=600))
    d6 = _fairness(ledger_cli)
    assert d6["throws"] == 600
    assert d6["flagged"] is True
    assert d6["p_value"] < 0.001
    assert str(d6["verdict"]).startswith("unfair")
    text = ledger_cli("stats", "--report", "fairness").output
    assert "d6" in text and "unfair" in text


def test_a_fair_d6_is_not_flagged(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "table")
    rng = random.Random(1)
    _throw(ledger_cli, [rng.randint(1, 6) for _ in range(600)])
    d6 = _fairness(ledger_cli)
    assert d6["throws"] == 600
    assert d6["flagged"] is False
    assert d6["verdict"] == "consistent with a fair die"


def test_random_dice_are_not_judged_for_fairness(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "table", "--seed", "3")
    ledger_cli("roll", "100d6")
    assert json.loads(ledger_cli("stats", "--report", "fairness", "--json").output)["fairness"] == []


# --- luck, rates and mulligans ------------------------------------------------------------------


def test_luck_index_per_character_and_campaign(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    ledger_cli("character", "add", "Bo")
    for face in (15, 18, 12, 20, 11, 14, 17, 13, 2, 5):  # eight of ten 1d20>=11 succeed
        ledger_cli("roll", "1d20>=11", "--faces", str(face), "--as", "Ana")
    for face in (1, 3):
        ledger_cli("roll", "1d20>=11", "--faces", str(face), "--as", "Bo")
    data = json.loads(ledger_cli("stats", "--json").output)
    ana = next(r for r in data["luck"]["characters"] if r["character"] == "Ana")
    assert (ana["judged"], ana["successes"], ana["expected"]) == (10, 8, 5.0)
    assert ana["luck"] == pytest.approx(round(3 / math.sqrt(2.5), 2))
    bo = next(r for r in data["luck"]["characters"] if r["character"] == "Bo")
    assert bo["luck"] == pytest.approx(round(-1 / math.sqrt(0.5), 2))
    overall = data["luck"]["overall"]
    assert overall["judged"] == 12 and overall["successes"] == 8
    (roll_row,) = data["rolls"]
    assert roll_row["rate"] == pytest.approx(8 / 12, abs=1e-4) and roll_row["expected_rate"] == 0.5
    only_bo = json.loads(ledger_cli("stats", "--character", "Bo", "--report", "luck", "--json").output)
    assert only_bo["luck"]["overall"]["judged"] == 2
    text = ledger_cli("stats").output
    assert "luck index +1.15" in text


def test_mulligans_count_undone_rolls_by_player(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    ledger_cli("character", "add", "Bo")
    ledger_cli("roll", "1d20>=11", "--faces", "3", "--as", "Ana")
    ledger_cli("undo")
    ledger_cli("roll", "1d20>=11", "--faces", "16", "--as", "Ana")
    ledger_cli("roll", "1d20>=11", "--faces", "4", "--as", "Bo")
    data = json.loads(ledger_cli("stats", "--json").output)
    assert data["mulligans"] == [{"character": "Ana", "rolls": 2, "undone": 1, "share": 0.5}]
    luck = data["luck"]["overall"]  # the undone roll's die was thrown: in the luck index
    assert (luck["judged"], luck["kept"]["judged"], luck["mulligans"]["rolls"]) == (3, 2, 1)


def test_a_roll_counts_for_the_character_it_names_not_whoever_typed_it(tmp_path: Path) -> None:
    """One initiative command rolls for the whole party: each roll is its character's, in
    the reports and under --character, whoever recorded the command."""
    if "dicepool" not in system_names():
        pytest.skip("the dicepool system is not installed")
    from ledger.projections.stats.reports import Scope, rolls
    from ledger.systems.dicepool.commands import Initiative, Join

    with Ledger(str(tmp_path / "s.ledger")) as book:
        book.new_campaign("dicepool", "alley")
        book.execute(Join(name="Eddie", attrs={"body": "4", "quickness": "5"}), "alley")
        book.execute(Join(name="Mark", attrs={"body": "3"}), "alley")
        book.execute(Initiative(), "alley", actor="Eddie", faces=[6, 2])
        wh = Warehouse(book, tmp_path / "s.duckdb")
        wh.catch_up()
        con = wh.connect_read_only()
        try:
            counted = {
                who: {r["purpose"]: r["rolls"] for r in rolls(con, Scope(character=who))}
                for who in ("Eddie", "Mark")
            }
        finally:
            con.close()
    assert counted == {"Eddie": {"initiative": 1}, "Mark": {"initiative": 1}}


def test_rot_counts_for_the_character_who_gained_it(tmp_path: Path) -> None:
    """In the Year Zero sample Mira records Rot that Vesna and Grit gain: each character's
    last Rot total in the warehouse is the one on that character's sheet."""
    if "yearzero" not in system_names():
        pytest.skip("the yearzero system is not installed")
    from ledger.projections.stats.reports import Scope
    from ledger.systems.yearzero.system import SAMPLE_LOG

    with Ledger(str(tmp_path / "z.ledger")) as book:
        with SAMPLE_LOG.open("rb") as data:
            book.import_(data, "zone")
        camp = book.campaign("zone")
        system, state = book.system(camp), book.state("zone")
        wh = Warehouse(book, tmp_path / "z.duckdb")
        wh.catch_up()
        con = wh.connect_read_only()
        try:
            where, params = Scope(campaign="zone").where("NOT undone")
            last = dict(
                con.execute(
                    f"SELECT coalesce(character, actor), arg_max(total, position) FROM rot {where} GROUP BY 1",
                    params,
                ).fetchall()
            )
        finally:
            con.close()
        sheets = {who: system.read.sheet(state, who)["rot"]["total"] for who in last}
    assert {"Vesna", "Grit"} <= set(last)
    assert last == sheets


def test_healing_counts_for_the_patient_not_the_healer(tmp_path: Path) -> None:
    """In the d100 sample Bruno's medicine heals Ana 5: the healing is Ana's, the roll Bruno's."""
    if "d100" not in system_names():
        pytest.skip("the d100 system is not installed")
    from ledger.systems.d100.demo import SAMPLE

    with Ledger(str(tmp_path / "h.ledger")) as book:
        with SAMPLE.open("rb") as data:
            book.import_(data, "clinic")
        wh = Warehouse(book, tmp_path / "h.duckdb")
        wh.catch_up()
        con = wh.connect_read_only()
        try:
            healed = con.execute(
                "SELECT coalesce(character, actor), actor, -amount FROM wounds WHERE cause = 'medicine'"
            ).fetchall()
            rolled = con.execute(
                "SELECT coalesce(character, actor) FROM rolls WHERE purpose = 'medicine heal'"
            ).fetchall()
        finally:
            con.close()
    assert healed == [("Ana", "Bruno", 5)]
    assert rolled == [("Bruno",)]


def test_stats_refuse_an_unknown_campaign(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "c")
    result = ledger_cli("stats", "-c", "nope", ok=False)
    assert result.exit_code == 1 and "no campaign named 'nope'" in result.stderr


# --- ledger query -------------------------------------------------------------------------------


@pytest.fixture
def rolled(ledger_cli: Session) -> Session:
    ledger_cli("new", "freeform", "c", "--seed", "5")
    for _ in range(3):
        ledger_cli("roll", "2d6>=4")
    return ledger_cli


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("DELETE FROM rolls", "error: ledger query is read-only: DELETE statements are refused; use SELECT"),
        ("SELECT * FROM read_csv('/etc/passwd')", "cannot read files or reach the network"),
        ("COPY rolls TO 'out.csv'", "COPY statements are refused"),
        ("ATTACH 'x.db' AS x", "ATTACH statements are refused"),
        ("SET enable_external_access = true", "SET statements are refused"),
        ("SELECT 1; DROP TABLE rolls", "give one statement, not 2"),
        ("SELEC 1", "the query cannot be parsed"),
    ],
)
def test_query_refuses_anything_but_reading(rolled: Session, db: str, sql: str, message: str) -> None:
    rolled("warehouse", "rebuild")
    result = rolled("query", sql, ok=False)
    assert result.exit_code == 1
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    con = duckdb.connect(db + ".duckdb", read_only=True)
    assert con.execute("SELECT count(*) FROM rolls").fetchone() == (3,)
    con.close()


def test_query_outputs_table_json_and_csv(rolled: Session) -> None:
    sql = "SELECT purpose, count(*) AS n FROM rolls GROUP BY purpose"
    table = rolled("query", sql).output.splitlines()
    assert table[0].split() == ["purpose", "n"]
    assert table[2].split() == ["roll", "3"]
    assert json.loads(rolled("query", sql, "--json").output) == [{"purpose": "roll", "n": 3}]
    assert rolled("query", sql, "--csv").output == "purpose,n\nroll,3\n"


# --- simulation ----------------------------------------------------------------------------------


def _sim_stats(
    tmp_path: Path, name: str, seed: int, system: str = "freeform", n: int = 30
) -> dict[str, object]:
    session = Session(str(tmp_path / f"{name}.ledger"))
    session("simulate", system, "--campaigns", str(n), "--seed", str(seed))
    data: dict[str, object] = json.loads(session("stats", "--simulated", "--json").output)
    return data


def test_simulation_is_reproducible_with_a_seed(tmp_path: Path) -> None:
    first = _sim_stats(tmp_path, "a", 7)
    again = _sim_stats(tmp_path, "b", 7)
    other = _sim_stats(tmp_path, "c", 8)
    assert first == again
    assert first["luck"] != other["luck"]
    assert first["overview"]["campaigns"] == 30  # type: ignore[index]
    assert first["mulligans"]  # simulated players take failed rolls back


def test_simulated_campaigns_verify_and_replay(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "v.ledger"))
    session("simulate", "freeform", "--campaigns", "3", "--seed", "1")
    assert session("verify", "--all").exit_code == 0
    with Ledger(str(tmp_path / "v.ledger")) as book:
        camp = book.campaigns()[0]
        undone = [e for e in book.log(camp.name, show_all=True) if e.undone]
        effective = [e for e in book.log(camp.name) if e.kind == "dice.rolled"]
        assert undone or effective


def test_simulate_again_skips_its_own_campaigns_and_refuses_anyone_elses(tmp_path: Path) -> None:
    session = Session(str(tmp_path / "d.ledger"))
    session("simulate", "freeform", "--campaigns", "2", "--seed", "1")
    again = session("simulate", "freeform", "--campaigns", "3", "--seed", "1")
    assert again.stdout.startswith("simulated 1 freeform campaign (seed 1; 2 of the 3 were there already)")
    with Ledger(str(tmp_path / "d.ledger")) as book:
        assert sorted(c.name for c in book.campaigns()) == [f"sim-freeform-1-0000{i}" for i in (1, 2, 3)]
    session("new", "freeform", "mine-00001", "--seed", "5")
    for args in (("--prefix", "mine"), ("--prefix", "sim-freeform-1", "--seed", "2")):
        result = session("simulate", "freeform", "--campaigns", "2", "--seed", "1", *args, ok=False)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1
        assert "exists already and is not part of this run; use another --seed or --prefix" in result.stderr
    result = session(
        "simulate", "crawl", "--campaigns", "1", "--seed", "1", "--prefix", "sim-freeform-1", ok=False
    )
    assert "'sim-freeform-1-00001' exists already and is not part of this run" in result.stderr


def _within_three_standard_errors(book: Ledger, tmp_path: Path, system: str) -> None:
    wh = Warehouse(book, tmp_path / f"{system}.duckdb")
    wh.catch_up()
    con = duckdb.connect(str(wh.path), read_only=True)
    n, wins, expected, variance = con.execute(
        "SELECT count(*), sum(success::INTEGER), sum(p_success), sum(p_success * (1 - p_success)) "
        "FROM rolls WHERE p_success IS NOT NULL AND success IS NOT NULL AND system = ?",
        [system],
    ).fetchone()
    con.close()
    assert n >= 1000, f"only {n} judged rolls"
    assert abs(wins - expected) <= 3 * math.sqrt(variance), (system, wins, expected)


def test_simulated_success_rates_match_recorded_probabilities(tmp_path: Path) -> None:
    """Every roll counts here, undone ones too: the dice are fair even when players are not."""
    with Ledger(str(tmp_path / "sim.ledger")) as book:
        from ledger.play.simulate import plan, simulate_campaign

        run = plan("freeform", 60, 11)
        for name, seed in zip(run.names, run.seeds, strict=True):
            simulate_campaign(book, "freeform", name, seed, 30)
        _within_three_standard_errors(book, tmp_path, "freeform")


@pytest.mark.parametrize("system", [s for s in ("crawl", "yearzero", "dicepool", "d100", "d20")])
def test_systems_with_an_autoplayer_roll_as_expected(tmp_path: Path, system: str) -> None:
    if system not in system_names():
        pytest.skip(f"the {system} system is not installed")
    from ledger.systems import get_system

    if get_system(system).play.autoplay is None:
        pytest.skip(f"the {system} system has no autoplayer")
    from ledger.play.simulate import plan, simulate_campaign

    with Ledger(str(tmp_path / "sys.ledger")) as book:
        run = plan(system, 200, 3)
        for name, seed in zip(run.names, run.seeds, strict=True):
            simulate_campaign(book, system, name, seed, 30)
        _within_three_standard_errors(book, tmp_path, system)


def test_crawl_simulation_reports_a_survival_curve(tmp_path: Path) -> None:
    if "crawl" not in system_names():
        pytest.skip("the crawl system is not installed")
    from ledger.systems import get_system

    if get_system("crawl").play.autoplay is None:
        pytest.skip("the crawl system has no autoplayer")
    first = _sim_stats(tmp_path, "c1", 7, "crawl", 20)
    again = _sim_stats(tmp_path, "c2", 7, "crawl", 20)
    assert first == again
    curve = first["survival"]
    assert isinstance(curve, list) and curve and curve[0]["survival"] == 1.0
    assert first["luck"]["overall"]["judged"] > 0  # type: ignore[index]


def test_demo_report_simulates_once_and_summarises(tmp_path: Path) -> None:
    from ledger.cli.fixes import command_line
    from ledger.cli.stats import demo_report

    lines: list[str] = []
    with Ledger(str(tmp_path / "demo.ledger")) as book:
        book.new_campaign("freeform", "table")
        book.roll("30d6", "table", faces=[1, 2, 3, 4, 5, 6] * 5)
        demo_report(book, Warehouse(book), lines.append, campaigns=3, word=command_line)
        events = book.store.max_notification_id()
        again: list[str] = []
        demo_report(book, Warehouse(book), again.append, campaigns=3, word=command_line)
        assert book.store.max_notification_id() == events  # the campaigns are simulated once
    (d6,) = [line for line in lines if line.startswith("physical d6: 30 throws, p = ")]
    assert d6.endswith("consistent with a fair die")
    assert any("luck index" in line for line in lines)
    if "crawl" in system_names():
        assert lines[0] == "$ ledger simulate crawl --campaigns 3 --seed 7"
        assert not again[0].startswith("$ ledger simulate")


def test_the_reports_are_the_shared_ones_then_the_systems_own() -> None:
    from ledger.projections.stats.reports import REPORTS, report_names, system_reports
    from ledger.systems import installed

    own = [name for system in installed() for name in system.read.reports]
    assert report_names() == [*REPORTS, *own]
    assert list(system_reports()) == own
    if "yearzero" in system_names():
        assert {"pushes", "rot"} <= set(own)
    if "crawl" in system_names():
        assert "hunger" in own


def test_a_system_report_runs_under_its_name_and_prints_under_its_title(ledger_cli: Session) -> None:
    if "crawl" not in system_names():
        pytest.skip("the crawl system is not installed")
    ledger_cli("new", "crawl", "c", "--seed", "3")
    ledger_cli("crawl", "move", "n")
    data = json.loads(ledger_cli("stats", "--report", "hunger", "--json").output)
    assert set(data) == {"scope", "hunger"}
    refused = ledger_cli("stats", "--report", "nope", ok=False)
    assert refused.exit_code == 2 and "hunger" in refused.stderr  # the choices name the systems' reports


def test_a_report_name_two_systems_give_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:

    from ledger.errors import PluginError
    from ledger.projections.stats import reports as stats
    from ledger.systems import StatsReport, installed

    real = installed()
    twin = StatsReport(title="Luck again", run=lambda con, scope: [], render=lambda v: [])
    clash = msgspec.structs.replace(
        real[0], read=msgspec.structs.replace(real[0].read, reports={"luck": twin})
    )
    monkeypatch.setattr("ledger.systems.installed", lambda: [clash, *real[1:]])
    with pytest.raises(PluginError, match="'luck' is the ledger's already"):
        stats.system_reports()


def test_damage_reads_each_systems_own_health_tracks() -> None:
    from ledger.projections.stats.reports import _health, health_tracks

    found = health_tracks()
    if "yearzero" in system_names():
        assert found["yearzero"] == ("strength",)
    assert "freeform" not in found  # no wounds, no tracks
    assert _health({"a": ("hp",), "b": ("o'clock",)}) == (
        "((system = 'a' AND track IN ('hp')) OR (system = 'b' AND track IN ('o''clock')))"
    )
    assert _health({}) == "false"


def test_luck_from_the_log_matches_the_warehouse(ledger_cli: Session, db: str) -> None:
    from ledger.projections.stats.sheet import luck_from_log

    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    for face in (15, 18, 12, 20, 11, 14, 17, 13, 2, 5):
        ledger_cli("roll", "1d20>=11", "--faces", str(face))
    ledger_cli("roll", "1d20>=11", "--faces", "1")
    ledger_cli("undo")  # a mulligan: its die was thrown, so it is in the luck index
    data = json.loads(ledger_cli("stats", "--report", "luck", "--json").output)
    with Ledger(db) as book:
        direct = luck_from_log(book, "c", "Ana")
    assert direct == {"judged": 11, "successes": 8, "expected": 5.5, "luck": 1.51}
    assert data["luck"]["overall"]["luck"] == direct["luck"]


def test_luck_from_the_log_reads_system_facts(tmp_path: Path) -> None:
    if "crawl" not in system_names():
        pytest.skip("the crawl system is not installed")
    from ledger.play.simulate import plan, simulate_campaign
    from ledger.projections.stats.sheet import luck_from_log

    with Ledger(str(tmp_path / "l.ledger")) as book:
        run = plan("crawl", 1, 5)
        simulate_campaign(book, "crawl", run.names[0], run.seeds[0], 10)
        direct = luck_from_log(book, run.names[0])
        wh = Warehouse(book, tmp_path / "l.duckdb")
        wh.catch_up()
        con = wh.connect_read_only()
        from ledger.projections.stats.reports import Scope, luck

        overall = luck(con, Scope(campaign=run.names[0]))["overall"]
        con.close()
    assert (direct["judged"], direct["successes"], direct["luck"]) == (
        overall["judged"],
        overall["successes"] or 0,
        overall["luck"],
    )


def test_simulate_refuses_a_system_without_a_simulator_before_recording(tmp_path: Path) -> None:
    from ledger.play.simulate import simulators

    missing = [s for s in system_names() if s not in simulators()]
    if not missing:
        pytest.skip("every installed system can be simulated")
    session = Session(str(tmp_path / "n.ledger"))
    result = session("simulate", missing[0], "--campaigns", "2", "--seed", "1", ok=False)
    assert result.exit_code == 1
    assert f"the {missing[0]} system has no simulator yet; simulate one of: freeform" in result.stderr
    assert session("campaigns").output.startswith("no campaigns yet")


def test_the_luck_line_on_mulligans_agrees_with_the_undone_rolls_below_it(ledger_cli: Session) -> None:
    ledger_cli("new", "freeform", "c")
    ledger_cli("character", "add", "Ana")
    ledger_cli("roll", "1d20>=11", "--faces", "3")
    for face in ("1", "2", "3", "4"):
        ledger_cli("roll", "1d6", "--faces", face)
        ledger_cli("undo")
    text = ledger_cli("stats").output
    assert "no roll undone" not in text
    assert (
        "mulligans: no roll with a chance of success undone (the 4 undone rolls had no chance to judge)"
        in text
    )
    assert "Ana            5       4" in text  # the mulligans table below: 5 rolls, 4 undone
