"""One name per command: every command of every installed system has one name, the command
line's (``yz armor`` for ``yearzero.Wear``), which the page's button shows, the API takes
beside the stable name (the key the decision records) and its refusals use; docs/api.md
lists them. Two of the page's buttons never share a label."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from ledger import Ledger
from ledger.campaign import Ledger as Book
from ledger.cli.main import cli
from ledger.deciding.commands import stable_commands
from ledger.errors import LedgerError
from ledger.projections import report as reports
from ledger.systems import get_system, system_names
from ledger.trust.seats import Seat, seats_of
from ledger.web import affordances
from ledger.web.api import played
from ledger.web.app import create_app
from tests.helpers_web import TestClient, bearer

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "api.md").read_text()
ARGUMENTS = {
    "roll": ["1d6"],
    "d100 rest": ["60"],
    "d20 assign": ["fue=14"],
    "yz tick": ["1"],
    "yz rot": ["1"],
    "crawl technique": ["1"],
}
"""What a command needs on the command line to act, where a placeholder does not do."""
MUTANT = {"strength": "3", "agility": "4", "wits": "3", "empathy": "2"}


class Sent(LedgerError):
    """What stands in for recording: the command the command line built."""

    def __init__(self, command: Any) -> None:
        super().__init__("sent")
        self.command = command


def placeholder(param: click.Parameter) -> str:
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(kind.choices[0])
    if isinstance(kind, click.types.IntParamType | click.types.FloatParamType):
        return "1"
    words = getattr(getattr(kind, "words", None), "terms", None)  # a game word in any language
    if words:
        return str(next(iter(words)))
    return "x"


def built_by_the_command_line(db: str, name: str, command: click.Command) -> type:
    """The class of the command ``ledger NAME ...`` builds and sends to be recorded, its
    required parameters given placeholders (:data:`ARGUMENTS` where those do not do)."""
    args = list(ARGUMENTS.get(name, []))
    if name not in ARGUMENTS:
        for p in command.params:
            if p.required:
                args += [placeholder(p)] if isinstance(p, click.Argument) else [p.opts[0], placeholder(p)]
    sent: list[Any] = []

    def execute(self: Book, made: Any, *_a: Any, **_k: Any) -> Any:
        sent.append(made)
        raise Sent(made)

    original = Book.execute
    Book.execute = execute  # type: ignore[method-assign]
    try:
        done = CliRunner().invoke(cli, ["--db", db, *name.split(), *args])
    finally:
        Book.execute = original  # type: ignore[method-assign]
    assert sent, f"`ledger {name}` sent nothing: {done.output}"
    return type(sent[0])


@pytest.mark.parametrize("system", system_names())
def test_each_command_has_one_name_on_the_command_line_the_page_and_the_api(
    system: str, tmp_path: Path
) -> None:
    db = str(tmp_path / "names.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Friday")
        gm = seats_of(book).invite(book.campaign("Friday").id, "gm", label="gm")[1]
    commands = stable_commands(get_system(system))
    named = affordances.names(system)
    own = affordances.creation_kind(get_system(system))
    # every command has a name, but the core's newcomer where the system's creation stands in
    unnamed = set(commands) - set(named)
    assert unnamed <= ({"core.AddCharacter"} if own is not None else set()), sorted(unnamed)
    assert len(set(named.values())) == len(named), "two commands share a name"
    # the command line: each name is a command there, and it sends that very command
    for stable, name in named.items():
        found = affordances.cli_command(system, name)
        assert found is not None and found.callback is not None, f"no `ledger {name}`"
        assert built_by_the_command_line(db, name, found) is commands[stable], (stable, name)
    # the page: each form's button says the name (without the system's group)
    with TestClient(create_app(db)) as client:
        info = client.get("/api/c/Friday", headers=bearer(gm)).json()
        assert info["names"] == named
        for form in info["forms"]:
            assert named[form["command"]] == form["name"]
            assert form["label"] == affordances.page_label(system, form["name"])
        labels = [f["label"].lower() for f in info["forms"] if not f["sheet"]]
        assert len(set(labels)) == len(labels), labels
        # the API: each name is taken in place of the stable name, and a refusal says it
        for name in named.values():
            answer = client.post(
                "/api/c/Friday/actions",
                json={"command": name.upper(), "args": {"actor": 5}},
                headers=bearer(gm),
            )
            assert answer.status_code == 422, answer.text
            said = answer.json()["error"]
            assert said["field"] == "args" and said["message"].startswith(
                f"the `args` of `{name}` do not fit"
            )
        schema = client.get("/api/schema").json()["commands"]
        assert {s: schema[s].get("name") for s in named} == named


def test_a_command_sent_by_its_name_is_recorded_by_its_stable_name(tmp_path: Path) -> None:
    db = str(tmp_path / "zone.ledger")
    with Ledger(db) as book:
        book.new_campaign("yearzero", "Zone")
        book.create_character("Mira", "Zone", {**MUTANT, "shield.car_door": "3"})
        gm = seats_of(book).invite(book.campaign("Zone").id, "gm", label="gm")[1]
    with TestClient(create_app(db)) as client:
        worn = client.post(
            "/api/c/Zone/actions",
            json={"command": "ledger yz armor", "args": {"item": "car_door", "actor": "Mira"}},
            headers=bearer(gm),
        )
        assert worn.status_code == 200, worn.text
        added = client.post(
            "/api/c/Zone/actions",
            json={"command": "character add", "args": {"name": "Vesna", "attrs": MUTANT}},
            headers=bearer(gm),
        )
        assert added.status_code == 200, added.text
        checked = client.post(
            "/api/c/Zone/actions",
            json={"command": "character add", "args": {"name": "Cy", "attrs": {"strength": "3"}}},
            headers=bearer(gm),
        )
        assert checked.status_code == 422  # checked as `ledger character add` checks it
        unknown = client.post(
            "/api/c/Zone/actions", json={"command": "armor", "args": {}}, headers=bearer(gm)
        )
        assert unknown.status_code == 422 and "yz armor, yz booze" in unknown.json()["error"]["message"]
    with Ledger(db) as book:
        decided = [e.decision.command for e in book.effective(book.campaign("Zone")) if e.decision]
    assert decided[-2:] == ["yearzero.Wear", "yearzero.CreateCharacter"]


def test_docs_list_each_commands_one_name_and_its_stable_name() -> None:
    table = DOC.partition("<!-- names: the table below is each command's one name -->\n")[2]
    rows = [line for line in table.split("\n\n")[0].splitlines() if line.startswith("| ")][1:]
    said: dict[str, dict[str, str]] = {}
    for row in rows:
        system, pairs = (cell.strip() for cell in row.strip("|").split("|"))
        said[system] = dict((stable, name) for name, stable in re.findall(r"`([^`]+)` `([\w.]+)`", pairs))
    core = {s: n for s, n in affordances.names("freeform").items() if s.startswith("core.")}
    assert said.pop("core") == core
    for system in system_names():
        own = {
            s: n for s, n in affordances.names(system).items() if not s.startswith("core.") or s not in core
        }
        assert said.get(system, {}) == own, system


@pytest.mark.parametrize("system", [s for s in system_names() if (ROOT / "samples" / s).is_dir()])
def test_no_two_buttons_of_a_sheet_and_its_forms_share_a_label(system: str, tmp_path: Path) -> None:
    """The sample campaign's every character, as the GM's page draws it: each control's
    label, each form's and the page's own buttons, once each (Year Zero's Heal skill beside
    ``yz heal`` reads "Roll heal")."""
    with Ledger(str(tmp_path / "sample.ledger")) as book:
        with (ROOT / "samples" / system / "campaign.jsonl").open("rb") as f:
            c = book.import_(f)
        found = get_system(system)
        state = book.tip(c).state
        gm = Seat(label="gm", campaign=c.id, role="gm", character=None, invited="")
        forms = [f["label"].lower() for f in affordances.forms(system) if not f["sheet"]]
        for who, data in reports.sheets(found, state).items():
            shown = played(found, state, data, gm)
            labels = (
                [c["label"].lower() for c in shown["controls"]] + forms + ["roll", "undo", "redo", "fork"]
            )
            repeated = sorted({x for x in labels if labels.count(x) > 1})
            assert repeated == [], f"{who}: buttons share a label: {repeated}"
