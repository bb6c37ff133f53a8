"""The live table's API, in process: each seat may do what its role allows and nothing
more, every refusal is the command line's ``--json`` error object with its status, and
nothing refused is recorded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.cli.main import cli
from ledger.trust.seats import seats_of
from ledger.web.app import create_app
from ledger.web.auth import Guesses
from tests.helpers_web import Seated, TestClient, bearer, head, join, seat_table

ROLL = {"command": "core.Roll", "args": {"notation": "2d6"}}
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture
def seated(tmp_path: Path) -> Seated:
    return seat_table(str(tmp_path / "web.ledger"))


@pytest.fixture
def client(seated: Seated) -> Iterator[TestClient]:
    with TestClient(create_app(seated.db)) as client:
        yield client


def error_of(answer: object) -> dict[str, object]:
    body = answer.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"}
    assert {"type", "message", "exit_code"} <= set(body["error"])
    return body["error"]  # type: ignore[no-any-return]


def cli_json_error(db: str, *args: str) -> dict[str, object]:
    result = CliRunner().invoke(cli, ["--db", db, "--json", *args])
    assert result.exit_code != 0
    return json.loads(result.output)["error"]  # type: ignore[no-any-return]


def test_a_seat_records_an_action_as_the_command_line_prints_it(client: TestClient, seated: Seated) -> None:
    answer = client.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.ana))
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"campaign", "action", "version", "events"}
    assert body["campaign"] == "Friday" and body["version"] == head(seated.db)
    assert body["events"][0]["kind"] == "dice.rolled"
    with Ledger(seated.db) as book:
        env = book.envelope(book.campaign("Friday"), body["version"])
        assert env.actor == "Ana"
        assert env.decision is not None and env.decision.seat == "ana"
        assert env.decision.command == "core.Roll"


def test_physical_dice_are_recorded_as_given(client: TestClient, seated: Seated) -> None:
    answer = client.post("/api/c/Friday/actions", json={**ROLL, "faces": [2, 5]}, headers=bearer(seated.gm))
    assert answer.status_code == 200, answer.text
    assert answer.json()["events"][0]["result"]["total"] == 7
    found = client.get(
        "/api/c/Friday/events", params={"after": head(seated.db) - 1}, headers=bearer(seated.gm)
    )
    (last,) = found.json()["events"]
    assert last["decision"] == {
        "command": "core.Roll",
        "seat": "gm",
        "faces": [2, 5],
        "dice": "physical",
        "commitment": None,
    }


def test_a_refusal_is_the_command_lines_word_for_word(client: TestClient, seated: Seated) -> None:
    before = head(seated.db)
    answer = client.post(
        "/api/c/Friday/actions",
        json={"command": "core.Roll", "args": {"notation": "2x6", "actor": "Ana"}},
        headers=bearer(seated.gm),
    )
    assert answer.status_code == 422
    assert error_of(answer) == cli_json_error(seated.db, "-c", "Friday", "--as", "Ana", "roll", "2x6")
    faces = client.post(
        "/api/c/Friday/actions",
        json={**ROLL, "args": {"notation": "2d6", "actor": "Ana"}, "faces": [9, 1]},
        headers=bearer(seated.gm),
    )
    assert faces.status_code == 422
    assert error_of(faces) == cli_json_error(
        seated.db, "-c", "Friday", "--as", "Ana", "roll", "2d6", "--faces", "9,1"
    )
    assert head(seated.db) == before


def test_a_note_that_looks_like_html_comes_back_as_json_text(client: TestClient, seated: Seated) -> None:
    noted = client.post(
        "/api/c/Friday/actions",
        json={"command": "core.Note", "args": {"text": XSS}},
        headers=bearer(seated.ana),
    )
    labelled = client.post(
        "/api/c/Friday/actions",
        json={"command": "core.Roll", "args": {"notation": "d6", "label": XSS}},
        headers=bearer(seated.ana),
    )
    named = client.post(
        "/api/c/Friday/actions",
        json={"command": "core.AddCharacter", "args": {"name": "D'Arcy"}},
        headers=bearer(seated.gm),
    )
    assert noted.status_code == labelled.status_code == named.status_code == 200, named.text
    assert noted.headers["content-type"] == "application/json"
    found = client.get("/api/c/Friday/events", headers=bearer(seated.watch)).json()["events"]
    assert found[-3]["event"]["text"] == XSS and found[-3]["summary"] == f"note: {XSS}"
    assert found[-2]["event"]["label"] == XSS
    assert found[-1]["event"]["name"] == "D'Arcy"
    angled = client.post(
        "/api/c/Friday/actions",
        json={"command": "core.AddCharacter", "args": {"name": XSS}},
        headers=bearer(seated.gm),
    )
    assert angled.status_code == 422  # the library's name rule: no < or = in a name
    assert error_of(angled) == cli_json_error(seated.db, "-c", "Friday", "character", "add", XSS)


def test_the_page_inserts_nothing_as_html() -> None:
    static = Path(__file__).parents[1] / "web" / "static"
    for script in static.glob("*.js"):
        text = script.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, (script.name, sink)
    assert "<script>" not in (static / "table.html").read_text()  # no inline script: the CSP forbids one


@pytest.mark.parametrize(
    ("secret", "path", "body"),
    [
        ("ana", "actions", {"command": "core.Roll", "args": {"notation": "d6", "actor": "Bob"}}),
        ("ana", "actions", {"command": "core.AddCharacter", "args": {"name": "Cy"}}),
        ("ana", "undo", {}),
        ("ana", "redo", {}),
        ("ana", "fork", {"name": "Branch"}),
        ("ana", "dice/reveal", {}),
        ("watch", "actions", ROLL),
        ("watch", "undo", {}),
        ("other_gm", "actions", ROLL),
        ("other_gm", "undo", {}),
    ],
)
def test_each_write_beyond_the_seat_is_403_and_records_nothing(
    client: TestClient, seated: Seated, secret: str, path: str, body: dict[str, object]
) -> None:
    client.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.gm))
    before = head(seated.db)
    with Ledger(seated.db) as book:
        campaigns = len(book.campaigns())
    answer = client.post(f"/api/c/Friday/{path}", json=body, headers=bearer(getattr(seated, secret)))
    assert answer.status_code == 403
    assert error_of(answer)["type"] == "Forbidden"
    assert head(seated.db) == before
    with Ledger(seated.db) as book:
        assert len(book.campaigns()) == campaigns


@pytest.mark.parametrize("path", ["", "/events", "/sheet", "/stream", "/seats"])
def test_a_seat_reads_no_other_campaign(client: TestClient, seated: Seated, path: str) -> None:
    answer = client.get(f"/api/c/Other{path}", headers=bearer(seated.ana))
    assert answer.status_code == 403 and error_of(answer)["type"] == "Forbidden"
    missing = client.get(f"/api/c/Nowhere{path}", headers=bearer(seated.gm))
    assert missing.status_code == 403  # a seat learns no other campaign's name


def test_only_the_gm_lists_the_seats_and_never_a_secret(client: TestClient, seated: Seated) -> None:
    for secret in (seated.ana, seated.watch):
        assert client.get("/api/c/Friday/seats", headers=bearer(secret)).status_code == 403
    answer = client.get("/api/c/Friday/seats", headers=bearer(seated.gm))
    assert answer.status_code == 200
    assert [s["label"] for s in answer.json()] == ["gm", "ana", "bob", "watch"]
    for secret in (seated.gm, seated.ana, seated.bob, seated.watch):
        assert secret not in answer.text


def test_the_gm_undoes_redoes_forks_and_reveals(client: TestClient, seated: Seated) -> None:
    gm = bearer(seated.gm)
    rolled = client.post(
        "/api/c/Friday/actions", json={**ROLL, "args": {"notation": "d6", "actor": "Bob"}}, headers=gm
    )
    assert rolled.status_code == 200
    undone = client.post("/api/c/Friday/undo", json={}, headers=gm)
    assert undone.status_code == 200 and undone.json()["events"][0]["kind"] == "action.undone"
    log = client.get("/api/c/Friday/events", headers=gm).json()["events"]
    assert [e["undone"] for e in log if e["version"] == rolled.json()["version"]] == [True]
    redone = client.post("/api/c/Friday/redo", json={"count": 1}, headers=gm)
    assert redone.status_code == 200 and redone.json()["events"][0]["kind"] == "action.redone"
    revealed = client.post("/api/c/Friday/dice/reveal", json={}, headers=gm)
    assert revealed.status_code == 200, revealed.text
    assert {"revealed", "seed", "commitment"} <= set(revealed.json())
    forked = client.post("/api/c/Friday/fork", json={"name": "Branch", "take_table": False}, headers=gm)
    assert forked.status_code == 200, forked.text
    branch = forked.json()
    assert branch["name"] == "Branch" and branch["parent"] == "Friday"
    joined = join(client, branch["link"].rsplit("/", 1)[1])
    assert joined.status_code == 303 and joined.headers["location"] == "/t/Branch"
    nothing = client.post("/api/c/Friday/redo", json={}, headers=gm)
    assert nothing.status_code == 422
    assert error_of(nothing) == cli_json_error(seated.db, "-c", "Friday", "redo")


def test_an_unknown_or_revoked_secret_is_401(client: TestClient, seated: Seated) -> None:
    assert client.get("/api/c/Friday/events").status_code == 401
    assert client.get("/api/c/Friday/events", headers=bearer("x" * 43)).status_code == 401
    assert client.get("/api/c/Friday/events", headers={"Authorization": "Basic abc"}).status_code == 401
    assert client.get("/api/c/Friday/events", headers=bearer(seated.bob)).status_code == 200
    result = CliRunner().invoke(cli, ["--db", seated.db, "table", "revoke", "bob"])
    assert result.exit_code == 0, result.output
    before = head(seated.db)
    answer = client.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.bob))
    assert answer.status_code == 401 and error_of(answer)["type"] == "Unauthorized"
    assert client.get(f"/join/{seated.bob}", follow_redirects=False).status_code == 401
    assert client.post(f"/join/{seated.bob}", headers={"Origin": "http://testserver"}).status_code == 401
    assert head(seated.db) == before


def test_guessed_secrets_are_rate_limited(seated: Seated) -> None:
    with TestClient(create_app(seated.db, guesses=Guesses(limit=5, window=60))) as client:
        for n in range(5):
            assert client.get("/api/c/Friday/events", headers=bearer(f"guess{n}")).status_code == 401
        limited = client.get("/api/c/Friday/events", headers=bearer("guess-more"))
        assert limited.status_code == 429 and error_of(limited)["type"] == "TooManyRequests"
        assert client.get("/join/another-guess", follow_redirects=False).status_code == 429


def test_a_body_past_the_limit_is_413_before_it_is_parsed(client: TestClient, seated: Seated) -> None:
    before = head(seated.db)
    big = b'{"command": "core.Note", "args": {"text": "' + b"a" * 70_000 + b'"}}'
    answer = client.post(
        "/api/c/Friday/actions",
        content=big,
        headers={**bearer(seated.gm), "Content-Type": "application/json"},
    )
    assert answer.status_code == 413 and error_of(answer)["type"] == "RequestTooLarge"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"command": "core.Note", "args": {"text": "'
        for _ in range(100):
            yield b"a" * 1000
        yield b'"}}'

    streamed = client.post(
        "/api/c/Friday/actions",
        content=chunks(),
        headers={**bearer(seated.gm), "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413
    assert head(seated.db) == before


def test_bad_bodies_are_400_or_422(client: TestClient, seated: Seated) -> None:
    gm = {**bearer(seated.gm), "Content-Type": "application/json"}
    assert client.post("/api/c/Friday/actions", content=b"{not json", headers=gm).status_code == 400
    assert client.post("/api/c/Friday/actions", json={"command": 5}, headers=gm).status_code == 422
    unknown = client.post("/api/c/Friday/actions", json={"command": "crawl.Move", "args": {}}, headers=gm)
    said = error_of(unknown)["message"]
    assert unknown.status_code == 422 and "it takes character add, note, roll (or their stable names" in said  # type: ignore[operator]
    wrong = client.post(
        "/api/c/Friday/actions", json={"command": "core.Roll", "args": {"notation": 5}}, headers=gm
    )
    assert wrong.status_code == 422 and error_of(wrong)["field"] == "args"
    typed = client.post(
        "/api/c/Friday/actions", content=b"{}", headers={**bearer(seated.gm), "Content-Type": "text/plain"}
    )
    assert typed.status_code == 415
    assert client.get("/api/c/Friday/events", params={"after": "-1"}, headers=gm).status_code == 400


def test_expected_version_turns_a_stale_action_into_409(client: TestClient, seated: Seated) -> None:
    seen = head(seated.db)
    first = client.post(
        "/api/c/Friday/actions", json={**ROLL, "expected_version": seen}, headers=bearer(seated.ana)
    )
    assert first.status_code == 200
    late = client.post(
        "/api/c/Friday/actions", json={**ROLL, "expected_version": seen}, headers=bearer(seated.bob)
    )
    assert late.status_code == 409 and error_of(late)["type"] == "StaleVersion"
    assert head(seated.db) == seen + 1


def test_an_idempotent_retry_records_once_even_after_a_restart(seated: Seated) -> None:
    body = {**ROLL, "args": {"notation": "3d6", "actor": "Ana"}}
    key = {**bearer(seated.gm), "Idempotency-Key": "roll-1"}
    with TestClient(create_app(seated.db)) as client:
        first = client.post("/api/c/Friday/actions", json=body, headers=key)
        again = client.post("/api/c/Friday/actions", json=body, headers=key)
    after = head(seated.db)
    with TestClient(create_app(seated.db)) as restarted:
        later = restarted.post("/api/c/Friday/actions", json=body, headers=key)
        other = restarted.post(
            "/api/c/Friday/actions", json={**body, "args": {"notation": "d4"}}, headers=key
        )
        another_seat = restarted.post(
            "/api/c/Friday/actions", json=body, headers={**bearer(seated.ana), "Idempotency-Key": "roll-1"}
        )
    assert first.status_code == again.status_code == later.status_code == 200
    assert first.json() == again.json() == later.json()
    assert other.status_code == 422 and error_of(other)["field"] == "key"
    assert another_seat.status_code == 200  # keys are the seat's own
    assert head(seated.db) == after + 1


def test_an_idempotency_key_is_the_seats_own_though_another_table_has_its_label(seated: Seated) -> None:
    with Ledger(seated.db) as book:  # a seat labelled "gm" at the other campaign's table too
        _seat, other_gm = seats_of(book).invite(book.campaign("Other").id, "gm", label="gm")
    key = {"Idempotency-Key": "roll-1"}
    with TestClient(create_app(seated.db)) as client:
        here = client.post("/api/c/Friday/actions", json=ROLL, headers={**bearer(seated.gm), **key})
        there = client.post("/api/c/Other/actions", json=ROLL, headers={**bearer(other_gm), **key})
    assert here.status_code == there.status_code == 200, there.text
    assert (here.json()["campaign"], there.json()["campaign"]) == ("Friday", "Other")


def test_the_cookie_from_the_link_acts_only_from_this_origin(client: TestClient, seated: Seated) -> None:
    joined = join(client, seated.ana)
    assert joined.status_code == 303 and joined.headers["location"] == "/t/Friday"
    cookie = joined.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api/c/Friday" in cookie
    assert seated.ana not in joined.headers["location"]
    before = head(seated.db)
    assert client.get("/api/c/Friday/events").status_code == 200  # the cookie reads
    for origin in ({}, {"Origin": "http://evil.example"}):
        refused = client.post("/api/c/Friday/actions", json=ROLL, headers=origin)
        assert refused.status_code == 403 and error_of(refused)["type"] == "Forbidden"
    assert head(seated.db) == before
    own = client.post("/api/c/Friday/actions", json=ROLL, headers={"Origin": "http://testserver"})
    assert own.status_code == 200 and head(seated.db) == before + 1


def test_one_browser_keeps_a_seat_at_each_table_it_joined(client: TestClient, seated: Seated) -> None:
    """The GM opens a second table's link (a fork's, another campaign's): the first table's
    cookie still opens the first table, each campaign's API gets its own seat."""
    assert join(client, seated.gm).status_code == 303
    assert join(client, seated.other_gm).status_code == 303
    friday, other = client.get("/api/c/Friday").json(), client.get("/api/c/Other").json()
    assert (friday["seat"]["label"], other["seat"]["label"]) == ("gm", "other-gm")
    forked = client.post(
        "/api/c/Friday/fork",
        json={"name": "Friday's what-if", "take_table": False},
        headers={"Origin": "http://testserver"},
    )
    assert forked.status_code == 200, forked.text
    followed = join(client, forked.json()["link"].rsplit("/", 1)[1])
    assert followed.headers["location"] == "/t/Friday's%20what-if"
    assert client.get("/api/c/Friday's what-if").json()["seat"]["label"] == forked.json()["seat"]
    assert client.get("/api/c/Friday").json()["seat"]["label"] == "gm"


def test_every_response_carries_the_content_security_policy(client: TestClient, seated: Seated) -> None:
    for answer in (
        client.get("/t/Friday"),
        client.get("/static/table.js"),
        client.get("/api/schema"),
        client.get("/api/c/Friday/events"),
        client.get("/nowhere"),
        client.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.gm)),
    ):
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'self'" in policy
        assert "unsafe-inline" not in policy and "*" not in policy
        assert answer.headers["x-content-type-options"] == "nosniff"


def test_the_sheet_now_at_a_version_and_for_a_character(client: TestClient, seated: Seated) -> None:
    mine = client.get("/api/c/Friday/sheet", headers=bearer(seated.bob))
    assert mine.status_code == 200 and mine.json()["luck_index"]["judged"] == 0
    for secret in (seated.bob, seated.watch):  # time travel is the GM's
        for query in ({"at": 2}, {"day": 0}):
            assert client.get("/api/c/Friday/sheet", params=query, headers=bearer(secret)).status_code == 403
    earlier = client.get(
        "/api/c/Friday/sheet", params={"at": 2, "character": "Ana"}, headers=bearer(seated.gm)
    )
    assert earlier.status_code == 200
    both = client.get("/api/c/Friday/sheet", params={"at": 2, "day": 0}, headers=bearer(seated.gm))
    assert both.status_code == 422
    far = client.get("/api/c/Friday/sheet", params={"at": 99}, headers=bearer(seated.gm))
    assert far.status_code == 422 and error_of(far) == cli_json_error(
        seated.db, "-c", "Friday", "sheet", "--at", "99"
    )


def test_the_table_names_the_seat_and_the_commands(client: TestClient, seated: Seated) -> None:
    answer = client.get("/api/c/Friday", headers=bearer(seated.ana)).json()
    assert answer["seat"]["role"] == "player" and answer["seat"]["character"] == "Ana"
    assert answer["characters"] == ["Ana", "Bob"] and "core.Roll" in answer["commands"]
    assert answer["dice"]["commitment"] is not None
    status = CliRunner().invoke(cli, ["--db", seated.db, "-c", "Friday", "--json", "status"])
    assert answer["next"] == json.loads(status.output)["next"] == ["roll NOTATION", "note TEXT"]
    # A player's seat is shown no command that brings a character in (the server would
    # refuse it: only the GM does); the GM's seat is shown them.
    assert "core.AddCharacter" not in answer["commands"]
    gm = client.get("/api/c/Friday", headers=bearer(seated.gm)).json()
    assert set(gm["commands"]) - set(answer["commands"]) == {"core.AddCharacter"}


def test_the_schema_names_every_command_by_its_stable_name(client: TestClient) -> None:
    found = client.get("/api/schema").json()
    assert {"core.Roll", "crawl.Move", "d20.Check", "coin.Flip"} <= set(found["commands"])
    roll = found["$defs"]["core.Roll"]
    assert roll["properties"]["notation"]["type"] == "string" and "notation" in roll["required"]
    spec = client.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    assert "/api/c/{campaign}/actions" in spec["paths"] and "core.Roll" in spec["components"]["schemas"]


def test_a_fault_of_the_server_is_the_same_error_object(
    seated: Seated, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ledger.web import api

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(api, "entries_after", broken)
    with TestClient(create_app(seated.db), raise_server_exceptions=False) as client:
        answer = client.get("/api/c/Friday/events", headers=bearer(seated.gm))
    assert answer.status_code == 500
    assert error_of(answer)["type"] == "ServerFault" and "RuntimeError" in str(error_of(answer)["message"])
    assert "script-src 'self'" in answer.headers["content-security-policy"]


@pytest.mark.postgres
def test_an_idempotent_retry_records_once_on_postgresql(pg_url: str) -> None:
    seated = seat_table(pg_url)
    body = {**ROLL, "args": {"notation": "3d6", "actor": "Bob"}}
    key = {**bearer(seated.gm), "Idempotency-Key": "pg-roll"}
    with TestClient(create_app(pg_url)) as one, TestClient(create_app(pg_url)) as two:
        first = one.post("/api/c/Friday/actions", json=body, headers=key)
        again = two.post("/api/c/Friday/actions", json=body, headers=key)
        assert two.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.watch)).status_code == 403
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert head(pg_url) == first.json()["version"]


def test_every_answer_says_how_long_the_server_took(client: TestClient, seated: Seated) -> None:
    """``Server-Timing: app;dur=MS`` on answers and refusals alike: a bot can tell the
    server's part of a slow round trip from the network's."""
    for answer in (
        client.post("/api/c/Friday/actions", json=ROLL, headers=bearer(seated.ana)),
        client.get("/api/c/Friday/events", headers=bearer(seated.watch)),
        client.post("/api/c/Friday/undo", json={}, headers=bearer(seated.ana)),
        client.get("/api/nowhere"),
    ):
        name, _, took = answer.headers["server-timing"].partition(";dur=")
        assert name == "app" and 0 < float(took) < 10_000, answer.headers["server-timing"]


def test_a_rolls_trailing_words_are_its_label_as_on_the_command_line(
    client: TestClient, seated: Seated
) -> None:
    sent = {"command": "core.Roll", "args": {"notation": "1d20+5 ataque"}, "faces": [12]}
    answer = client.post("/api/c/Friday/actions", json=sent, headers=bearer(seated.ana))
    assert answer.status_code == 200, answer.text
    rolled = answer.json()["events"][0]
    assert rolled["label"] == "ataque" and rolled["result"]["notation"] == "1d20+5"
    told = client.get("/api/c/Friday/events", headers=bearer(seated.watch)).json()["events"][-1]
    assert told["event"]["label"] == "ataque" and "ataque" in told["summary"]
    typed = CliRunner().invoke(cli, ["--db", seated.db, "-c", "Friday", "--json", "roll", "1d20+5 ataque"])
    assert json.loads(typed.output)["events"][0]["label"] == "ataque"


def test_a_capped_foundry_form_is_refused_from_the_page_as_on_the_command_line(
    client: TestClient, seated: Seated
) -> None:
    before = head(seated.db)
    sent = {"command": "core.Roll", "args": {"notation": "4d6x2>=5"}}
    answer = client.post("/api/c/Friday/actions", json=sent, headers=bearer(seated.ana))
    assert answer.status_code >= 400
    assert "Foundry's capped explosion" in str(error_of(answer)["message"])
    assert head(seated.db) == before
