"""The dicepool rules as a player meets them: given these events, when this command, then these events.

No ledger and no database: the given events are folded with the system's
``initial`` and ``evolve`` into a :class:`ledger.log.state.CampaignState`, the command
is decided by ``SYSTEM.decide`` on physical dice (:class:`ledger.dice.sources.Faces`), and
the events it decides are compared whole.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
import pytest

from ledger.errors import GameOverError, RuleError
from ledger.log.events import CampaignStarted, CharacterAdded, Event
from ledger.log.state import CampaignState
from ledger.systems.dicepool.commands import Attack, Dodge, Initiative, Resist
from ledger.systems.dicepool.commands import Test as SkillTest
from ledger.systems.dicepool.damage import DamageCode, burst, parse_damage
from ledger.systems.dicepool.events import (
    Attacked,
    Defaulting,
    Dodged,
    InitiativeEntry,
    InitiativeRolled,
    Modifier,
    PoolDie,
    Resisted,
    Roll,
)
from ledger.systems.dicepool.events import Tested as SkillTested
from ledger.systems.dicepool.system import SYSTEM
from ledger.systems.dicepool.tables import load_tables
from tests.helpers_rules import decided, folded

EDDIE = CharacterAdded(
    name="Eddie",
    attrs={
        "body": "4",
        "quickness": "5",
        "intelligence": "3",
        "skill.pistols": "5",
        "pool.combat": "6",
        "weapon": "ares_predator",
    },
)

MARK = CharacterAdded(name="Mark", attrs={"body": "3", "pool.combat": "6", "armor": "2"})
GUN = CharacterAdded(name="Gun", attrs={"body": "3", "skill.submachine_guns": "4", "pool.combat": "7"})
TABLES = load_tables(None)[0]


def given(*events: Event) -> CampaignState:
    """The state a new street campaign reaches through ``events``, folded as the ledger folds them."""
    started = CampaignStarted(name="alley", system="dicepool", tables=TABLES)
    return folded(SYSTEM, started, events, lambda e: e.name if isinstance(e, CharacterAdded) else None)


def when(state: CampaignState, command: Any, faces: list[int]) -> list[Event]:
    """What the command decides on these faces, every face used."""
    return decided(SYSTEM, state, command, faces)


def pool(*totals: int | tuple[int, ...]) -> tuple[PoolDie, ...]:
    """Dice as rolled: a face, or a 6 with its re-rolls as a tuple."""
    dice = []
    for die in totals:
        faces = die if isinstance(die, tuple) else (die,)
        dice.append(PoolDie(faces=faces, total=sum(faces)))
    return tuple(dice)


def at_least_one(dice: int, p: Fraction) -> float:
    return float(1 - (1 - p) ** dice)


PISTOLS = Defaulting(wanted="pistols", used="pistols", how="skill", rating=5)


@pytest.mark.parametrize(("reroll", "successes"), [(3, 1), (2, 0)])
def test_at_tn_9_a_six_is_rolled_again_and_added(reroll: int, successes: int) -> None:
    events = when(given(EDDIE, MARK), SkillTest(skill="pistols", tn=9, dice=1, actor="Eddie"), [6, reroll])
    assert events == [
        SkillTested(
            character="Eddie",
            defaulting=PISTOLS,
            roll=Roll(
                tn=9,
                dice=pool((6, reroll)),
                successes=successes,
                p_success=float(Fraction(1, 6) * Fraction(4, 6)),  # a 6, then 3 or more
                base_tn=9,
            ),
            manual=True,
        )
    ]


def test_at_tn_6_or_less_a_six_already_succeeds_and_is_not_rolled_again() -> None:
    events = when(given(EDDIE, MARK), SkillTest(skill="pistols", tn=6, dice=2, actor="Eddie"), [6, 6])
    assert events == [
        SkillTested(
            character="Eddie",
            defaulting=PISTOLS,
            roll=Roll(
                tn=6, dice=pool(6, 6), successes=2, p_success=at_least_one(2, Fraction(1, 6)), base_tn=6
            ),
            manual=True,
        )
    ]


def test_without_the_skill_a_related_one_is_used_at_tn_plus_2_with_half_the_pool() -> None:
    state = given(EDDIE, MARK, GUN)
    with pytest.raises(RuleError, match=r"Gun can spend 3 combat pool dice here \(half the pool"):
        when(state, SkillTest(skill="pistols", tn=4, pool=4, actor="Gun"), [])
    events = when(state, SkillTest(skill="pistols", tn=4, pool=3, actor="Gun"), [1, 2, 3, 4, 5, 6, 6])
    assert events == [
        SkillTested(
            character="Gun",
            defaulting=Defaulting(wanted="pistols", used="submachine_guns", how="related", rating=4),
            roll=Roll(
                tn=6,
                dice=pool(1, 2, 3, 4, 5, 6, 6),
                successes=2,
                p_success=at_least_one(7, Fraction(1, 6)),
                base_tn=4,
                modifiers=(Modifier(reason="defaulting to related skill submachine_guns", value=2),),
            ),
            pool_used=3,
            manual=True,
        )
    ]
    assert given(EDDIE, MARK, GUN, *events).game.characters["Gun"].pool_left("combat") == 4


SHOT = Attack(
    target="Mark",
    skill="pistols",
    pool=4,
    range="medium",
    mods=("smartlink_external",),
    weapon="ares_predator",
    actor="Eddie",
)


def test_the_rules_worked_example_eddie_shoots_mark_dodges_and_the_wound_stages_from_l_to_g() -> None:
    shot = when(given(EDDIE, MARK), SHOT, [3, 5, 5, 6, 4, 5, 1, 6, 6])
    assert shot == [
        Attacked(
            exchange=1,
            attacker="Eddie",
            target="Mark",
            defaulting=PISTOLS,
            melee=False,
            range_class="medium",
            effective_class="medium",
            weapon="Ares Predator",
            damage="9L",
            burst=1,
            roll=Roll(
                tn=4,
                dice=pool(3, 5, 5, 6, 4, 5, 1, 6, 6),
                successes=7,
                p_success=at_least_one(9, Fraction(1, 2)),
                base_tn=5,
                modifiers=(Modifier(reason="smartlink, not implanted (sensiarma no implantado)", value=-1),),
            ),
            pool_used=4,
            hit=True,
            manual=True,
        )
    ]
    dodge = when(given(EDDIE, MARK, *shot), Dodge(pool=3, actor="Mark"), [4, 2, 3])
    assert dodge == [
        Dodged(
            exchange=1,
            character="Mark",
            # three dice cannot cancel seven successes: the odds of dodging clear are 0
            roll=Roll(tn=4, dice=pool(4, 2, 3), successes=1, p_success=0.0, needed=7, base_tn=4),
            pool_used=3,
            remaining=6,
            manual=True,
        )
    ]
    resist = when(
        given(EDDIE, MARK, *shot, *dodge),
        Resist(damage="9L", armor=2, pool=3, actor="Mark"),
        [2, 6, 1, 5, 6, 2, 6, 3, 5],
    )
    assert resist == [
        Resisted(
            exchange=1,
            character="Mark",
            damage="9L",
            armor=2,
            power=7,
            body=3,
            pool_used=3,
            roll=Roll(
                tn=7,
                dice=pool(2, (6, 1), 5, (6, 2), (6, 3), 5),
                successes=3,
                p_success=0.0,  # six dice cannot stage an L wound away from six successes
                needed=7,
                base_tn=9,
                modifiers=(Modifier(reason="armor", value=-2),),
            ),
            attacker_successes=6,
            net=3,
            stages=1,
            base_level="L",
            level="G",
            track="physical",
            boxes=6,
            physical=6,
            stun=0,
            overflow=0,
            manual=True,
        )
    ]
    mark = given(EDDIE, MARK, *shot, *dodge, *resist).game.characters["Mark"]
    assert (mark.physical, mark.tn_modifier, mark.pool_left("combat")) == (6, 3, 0)


def test_a_dodge_that_cancels_every_success_leaves_nothing_to_resist() -> None:
    shot = when(given(EDDIE, MARK), Attack(target="Mark", range="short", actor="Eddie"), [4, 1, 1, 1, 1])
    dodge = when(given(EDDIE, MARK, *shot), Dodge(pool=2, actor="Mark"), [5, 2])
    assert dodge == [
        Dodged(
            exchange=1,
            character="Mark",
            roll=Roll(tn=4, dice=pool(5, 2), successes=1, p_success=0.75, needed=1, base_tn=4),
            pool_used=2,
            remaining=0,
            manual=True,
        )
    ]
    after = given(EDDIE, MARK, *shot, *dodge)
    assert after.game.last is not None and after.game.last.status == "dodged"
    with pytest.raises(RuleError, match="there is no open attack"):
        when(after, Resist(actor="Mark"), [])


def test_only_the_target_dodges_and_the_attacker_cannot() -> None:
    bystander = CharacterAdded(name="Bystander", attrs={"body": "2", "pool.combat": "2"})
    shot = when(given(EDDIE, MARK), Attack(target="Mark", range="short", actor="Eddie"), [4, 4, 4, 4, 4])
    state = given(EDDIE, MARK, bystander, *shot)
    with pytest.raises(RuleError) as refused:
        when(state, Dodge(pool=1, actor="Bystander"), [])
    assert refused.value.message == "the open attack is aimed at Mark"
    assert refused.value.fix is not None and refused.value.fix.characters == ("Mark",)
    with pytest.raises(RuleError, match="Eddie made this attack and cannot dodge it"):
        when(state, Dodge(pool=1, actor="Eddie"), [])
    with pytest.raises(RuleError, match=r"Eddie's attack \(exchange 1\) is still open"):
        when(state, Attack(target="Mark", range="short", actor="Eddie"), [])


KNOCKOUT = Resist(damage="12M", against=4, stun=True, actor="Mark")


def test_a_full_stun_track_knocks_out_and_more_stun_rolls_into_physical() -> None:
    knocked = when(given(MARK), KNOCKOUT, [1, 1, 1])
    assert [(e.power, e.level, e.track, e.boxes, e.stun, e.physical) for e in knocked] == [
        (10, "M", "stun", 10, 10, 0)
    ]
    state = given(MARK, *knocked)
    assert state.game.characters["Mark"].status == "unconscious"
    with pytest.raises(RuleError, match="Mark is unconscious") as refused:
        when(state, SkillTest(skill="body", tn=4, actor="Mark"), [])
    assert refused.value.fix is not None and refused.value.fix.command == "heal"
    more = when(state, Resist(damage="2S", against=0, stun=True, actor="Mark"), [1, 1, 1])
    assert [(e.level, e.track, e.boxes, e.stun, e.physical, e.overflow) for e in more] == [
        ("S", "stun", 1, 10, 1, 0)
    ]


def test_physical_damage_past_the_track_and_past_body_kills() -> None:
    deadly = Resist(damage="12M", against=4, actor="Mark")
    events: list[Event] = []
    for _ in range(2):  # 10 boxes fill the track, the next 10 overflow past body 3
        events += when(given(MARK, *events), deadly, [1, 1, 1])
    assert [(e.level, e.boxes, e.physical, e.overflow) for e in events] == [
        ("M", 10, 10, 0),
        ("M", 10, 10, 10),
    ]
    state = given(MARK, *events)
    assert state.game.characters["Mark"].status == "dead"
    with pytest.raises(GameOverError, match=r"Mark is dead \(overflow 10 > body 3\)"):
        when(state, Resist(damage="4S", against=1, actor="Mark"), [])


def test_wounds_raise_every_target_number() -> None:
    wounded = given(
        MARK, *when(given(MARK), Resist(damage="6G", against=0, armor=0, actor="Mark"), [1, 1, 1])
    )
    (tested,) = when(wounded, SkillTest(skill="body", tn=4, actor="Mark"), [1, 2, 5])
    assert tested.roll.modifiers == (Modifier(reason="wounds", value=3),)
    assert (tested.roll.tn, tested.roll.successes) == (7, 0)


def test_initiative_rolls_plain_dice_and_refreshes_every_pool() -> None:
    spent = when(given(EDDIE, MARK), SkillTest(skill="pistols", tn=4, pool=6, actor="Eddie"), [1] * 11)
    state = given(EDDIE, MARK, *spent)
    assert state.game.characters["Eddie"].pool_left("combat") == 0
    rolled = when(state, Initiative(), [6, 2])
    assert rolled == [
        InitiativeRolled(
            turn=1,
            entries=(
                InitiativeEntry(character="Eddie", reaction=4, faces=(6,), penalty=0, score=10),
                InitiativeEntry(character="Mark", reaction=0, faces=(2,), penalty=0, score=2),
            ),
            manual=True,
        )
    ]
    after = given(EDDIE, MARK, *spent, *rolled).game
    assert after.order == ("Eddie", "Mark")
    assert after.characters["Eddie"].pool_left("combat") == 6


def test_a_refused_command_decides_no_event() -> None:
    state = given(EDDIE, MARK)
    with pytest.raises(RuleError, match="no open attack to dodge"):
        when(state, Dodge(pool=1, actor="Mark"), [])
    with pytest.raises(RuleError) as refused:
        when(state, SkillTest(skill="pistols", tn=31, actor="Eddie"), [])
    assert refused.value.message.startswith("a TN of 31 is out of range")


# --- edges no other test tells apart -----------------------------------------------------------


@pytest.mark.parametrize(
    ("rounds", "code"),
    [(1, "7L"), (2, "9L"), (3, "10G"), (5, "12G"), (6, "13M")],
)
def test_a_burst_adds_a_power_point_per_round_and_a_level_per_full_three(rounds: int, code: str) -> None:
    # "esta potencia se aumenta usando [...] ráfagas de más de una bala"; "Este código puede
    # aumentarse también [...] disparando ráfagas en múltiplos de 3 proyectiles"
    assert str(burst(DamageCode(7, "L"), rounds)) == code


def test_a_strength_damage_code_takes_its_modifier_either_way() -> None:
    # rulings/dicepool.md: "A melee damage code may take the attacker's Strength as power: `STR+1L`"
    assert parse_damage("STRM", strength=4) == DamageCode(4, "M")
    assert parse_damage("STR-1L", strength=4) == DamageCode(3, "L")
    assert parse_damage("STR+2S", strength=4) == DamageCode(6, "S")


def test_a_target_at_no_distance_at_all_is_at_short_range() -> None:
    # "el Master dice la distancia a la que se encuentra el objetivo [...] y se mira en qué clase
    # de alcance entra (corto, medio, largo o extremo)": 0 m is short, at TN 4
    shot = Attack(target="Mark", skill="pistols", distance=0, weapon="ares_predator", actor="Eddie")
    (attacked,) = when(given(EDDIE, MARK), shot, [4, 4, 4, 4, 4])
    assert (attacked.range_class, attacked.roll.tn) == ("short", 4)


def test_a_weapon_fires_bursts_up_to_its_limit_with_recoil_less_its_compensation() -> None:
    # rulings/dicepool.md, "Bursts": "each round of a burst adds +1 to the attack TN, less the
    # weapon's `recoil_comp`. A weapon fires at most its table's `burst` rounds."
    spray = Attack(
        target="Mark", skill="submachine_guns", range="short", burst=10, weapon="ingram_smartgun", actor="Gun"
    )
    (sprayed,) = when(given(GUN, MARK), spray, [1, 1, 1, 1])
    assert (sprayed.roll.tn, sprayed.damage) == (4 + 10 - 1, "17M")
    sam = CharacterAdded(name="Sam", attrs={"body": "3", "skill.assault_rifles": "3"})
    rifle = Attack(target="Mark", skill="assault_rifles", range="short", burst=3, weapon="ak_97", actor="Sam")
    (fired,) = when(given(sam, MARK), rifle, [1, 1, 1])
    assert fired.roll.tn == 4 + 3  # no compensation at all
    with pytest.raises(RuleError, match="fires at most 1"):
        when(given(EDDIE, MARK), msgspec.structs.replace(SHOT, burst=2), [])


def test_an_attack_without_a_single_success_misses() -> None:
    # "se comprueba cuántos éxitos se tienen (dados que igualen o superen la dificultad)": none, a miss
    (missed,) = when(given(EDDIE, MARK), SHOT, [1, 2, 3, 1, 2, 3, 1, 2, 3])
    assert (missed.roll.successes, missed.hit) == (0, False)


def test_a_dodge_may_spend_every_combat_pool_die_left() -> None:
    shot = when(given(EDDIE, MARK), SHOT, [3, 5, 5, 6, 4, 5, 1, 6, 6])
    (dodged,) = when(given(EDDIE, MARK, *shot), Dodge(pool=6, actor="Mark"), [4, 4, 4, 4, 4, 4])
    assert (dodged.pool_used, dodged.remaining) == (6, 1)
    with pytest.raises(RuleError, match="a dodge spends 1 to 6 combat pool dice, not 7"):
        when(given(EDDIE, MARK, *shot), Dodge(pool=7, actor="Mark"), [])


def test_a_target_number_of_2_is_the_lowest_a_test_takes() -> None:
    # rulings/dicepool.md, "Target number floor": "por encima de 2" puts the floor at 2
    (tested,) = when(given(EDDIE, MARK), SkillTest(skill="pistols", tn=2, dice=2, actor="Eddie"), [1, 2])
    assert (tested.roll.tn, tested.roll.successes) == (2, 1)
    with pytest.raises(RuleError, match="a TN of 1 is out of range"):
        when(given(EDDIE, MARK), SkillTest(skill="pistols", tn=1, dice=2, actor="Eddie"), [])


@pytest.mark.parametrize(("code", "boxes"), [("4S", 1), ("4L", 3), ("4G", 6), ("4M", 10)])
def test_each_wound_level_marks_its_boxes(code: str, boxes: int) -> None:
    # "1 para Suaves, 3 para Leves, 6 para Graves y 10 para Mortales": one attacker success,
    # none resisted, net 1 stages nothing
    (resisted,) = when(given(MARK), Resist(damage=code, armor=0, against=1, pool=0, actor="Mark"), [1, 1, 1])
    assert (resisted.net, resisted.level, resisted.boxes) == (1, code[-1], boxes)
