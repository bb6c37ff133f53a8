"""The yearzero SQL facts (ledger.rules.yearzero_facts_sql) equal its Python facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from ledger import Ledger
from ledger.events import yearzero as ev
from ledger.rules import yearzero_commands as yz
from tests import helpers_facts
from tests.helpers_facts import assert_same_facts, play

ANA = {"strength": "3", "agility": "3", "wits": "3", "empathy": "3", "skill.shoot": "2", "gear.rifle": "2"}
_BY_TAG = {cls.__struct_config__.tag: cls for cls in ev.EVENTS}


def _strip(cls: type[msgspec.Struct], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the fields left at their default (as omit_defaults would store it)."""
    out = {}
    for field in msgspec.structs.fields(cls):
        value = data.get(field.encode_name, msgspec.UNSET)
        if field.default is not msgspec.NODEFAULT and value == msgspec.to_builtins(field.default):
            continue
        if isinstance(value, dict) and field.type is ev.Pool:
            value = _strip(ev.Pool, value)
        if value is not msgspec.UNSET:
            out[field.encode_name] = value
    return out


def test_rare_rolls_and_events_without_their_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative dice, an attribute roll and its push by hand; then every event stored without defaults."""
    with Ledger(str(tmp_path / "l.ledger")) as book:
        play(book, "yearzero", campaigns=3, days=20)
        book.new_campaign("yearzero", "zone")
        book.add_character("Ana", "zone", ANA)
        for command, faces in [
            (yz.Roll(what="shoot", modifier=-4), [6, 2, 2, 6, 3]),  # negative dice cancel the base 6
            (yz.Push(), [1, 2]),
            (yz.Roll(what="force"), [1, 2, 3]),  # an attribute roll: no skill
            (yz.Push(), [6, 4]),
        ]:
            book.execute(command, "zone", faces=faces)
        assert assert_same_facts(book, "yearzero") > 100

        stored = helpers_facts._stored

        def without_defaults(book: Ledger, system: str) -> list[tuple[int, str, bytes]]:
            out = []
            for position, stream, state in stored(book, system):
                env = msgspec.json.decode(state)
                cls = _BY_TAG.get(env["event"]["kind"])
                if cls is not None:
                    env["event"] = {"kind": env["event"]["kind"], **_strip(cls, env["event"])}
                out.append((position, stream, msgspec.json.encode(env)))
            return out

        monkeypatch.setattr(helpers_facts, "_stored", without_defaults)
        assert assert_same_facts(book, "yearzero") > 100
