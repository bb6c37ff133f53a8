"""The d100 rules as a player meets them: given these events, when this command, then
exactly these events (or this refusal). No database: the events are folded into a
campaign state by the core fold and the system's own, the dice are physical faces."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.deciding.commands import Command
from ledger.errors import Input, RuleError
from ledger.log import snapshots
from ledger.log.events import CampaignStarted, CharacterAdded, Event
from ledger.log.state import CampaignState
from ledger.systems import get_system
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import events as ev
from tests.helpers_rules import decided, folded

SYSTEM = get_system("d100")
TABLES, _ = SYSTEM.rules.load_tables(None)

CHARS = {"TAM": 12, "CON": 11, "FUE": 10, "INT": 14, "EDU": 15, "DES": 9, "CAR": 12, "POD": 13}
ANA = CharacterAdded(
    name="Ana",
    attrs={**{k: str(v) for k, v in CHARS.items()}, "skill.Trepar": "40", "skill.Esquivar": "40"},
)

"""Ana: hp (CON + TAM) / 2 = 12, valor and luck POD x 5 = 65, fatigue CON + FUE = 21."""


def given(*events: Event) -> CampaignState:
    """The campaign state after a new d100 campaign and these events."""
    started = CampaignStarted(name="Casa", system="d100", tables=TABLES)
    return folded(SYSTEM, started, events, lambda e: getattr(e, "who", None) or getattr(e, "name", None))


def when(state: CampaignState, command: Command, faces: list[int] | None = None) -> list[Any]:
    """The events the d100 system decides for ``command``, rolling exactly ``faces``."""
    return decided(SYSTEM, state, command, faces or [])


def climb(face: int, level: str) -> ev.Tested:
    """Ana's Trepar 40 test: special at 20, critical at 8, fumble from 98; 40 faces in 100 succeed."""
    return ev.Tested(
        who="Ana",
        skill="Trepar",
        skill_value=40,
        target=40,
        face=face,
        level=level,
        special_at=20,
        critical_at=8,
        fumble_at=98,
        p_success=0.4,
        manual=True,
    )


def test_a_character_is_added_with_its_characteristics_and_skills_as_typed() -> None:
    command = c.CreateCharacter(name="Ana", characteristics=CHARS, skills={"trepar": 40, "Esquivar": 40})
    assert when(given(), command) == [ANA]
    assert given(ANA).game.characters["Ana"].hp == 12


def test_a_roll_at_a_fifth_of_the_skill_is_a_critical() -> None:
    assert when(given(ANA), c.Test(skill="Trepar", actor="Ana"), [8]) == [climb(8, "critical")]


def test_luck_declared_before_the_roll_buys_off_the_failure() -> None:
    then = when(given(ANA), c.Test(skill="Trepar", luck=True, actor="Ana"), [50])
    assert then == [
        climb(50, "failure"),
        ev.LuckSpent(who="Ana", points=10, face=50, target=40, luck_after=55),
    ]


def test_luck_cannot_buy_off_a_fumble_in_the_sample_rules() -> None:
    assert when(given(ANA), c.Test(skill="Trepar", luck=True, actor="Ana"), [99]) == [climb(99, "fumble")]
    with pytest.raises(RuleError, match="a fumble, which luck cannot buy off"):
        when(given(ANA, climb(99, "fumble")), c.SpendLuck(actor="Ana"))


def test_a_wound_to_zero_hp_leaves_the_character_dying_and_unable_to_roll() -> None:
    (wound,) = when(given(ANA), c.Damage(amount=12, actor="Ana"))
    assert wound == ev.Wounded(who="Ana", wound=1, amount=12, cause="wound", hp_after=0, state="dying")
    with pytest.raises(RuleError, match=r"Ana is dying \(hp 0\) and cannot roll"):
        when(given(ANA, wound), c.Test(skill="Trepar", actor="Ana"), [8])


def test_horror_to_zero_valor_panics_and_a_panicking_character_can_only_flee() -> None:
    (horror,) = when(given(ANA), c.Horror(amount=70, cause="the thing in the cellar", actor="Ana"))
    assert horror == ev.Horrified(
        who="Ana", amount=70, cause="the thing in the cellar", valor_after=0, panic=True
    )
    with pytest.raises(RuleError, match=r"Ana is in panic \(valor 0\) and can only flee") as refused:
        when(given(ANA, horror), c.Test(skill="Trepar", actor="Ana"), [8])
    fix = refused.value.fix
    assert fix is not None and (fix.action, fix.command, fix.options) == ("command", "round", (Input("run"),))


def test_an_exhausted_character_is_told_to_rest() -> None:
    (tired,) = when(given(ANA), c.Fatigue(amount=21, actor="Ana"))
    assert tired == ev.Fatigued(who="Ana", amount=21, cause="exertion", fatigue_after=0)
    with pytest.raises(RuleError, match="exhausted") as refused:
        when(given(ANA, tired), c.Test(skill="Trepar", actor="Ana"), [8])
    fix = refused.value.fix
    assert fix is not None and (fix.command, fix.arguments) == ("rest", ("15",))


def test_the_fold_imports_no_module_of_the_decide_side() -> None:
    for system, fold in (("d100", "ledger.projections.d100.state"), ("d20", "ledger.projections.d20.state")):
        found = [m for m in snapshots.dependencies([fold]) if m.startswith(f"ledger.systems.{system}.")]
        allowed = {
            f"ledger.systems.{system}",
            f"ledger.systems.{system}.events",
            f"ledger.systems.{system}.model",
        }
        assert set(found) <= allowed, (system, found)
