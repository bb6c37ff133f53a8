"""The d20 rules as a player meets them: given these events, when this command, then
exactly these events (or this refusal). No database: the events are folded into a
campaign state by the core fold and the system's own, the dice are physical faces."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from ledger.deciding.commands import Command
from ledger.errors import FacesError, GameOverError, Input, RuleError
from ledger.log.events import CampaignStarted, CharacterAdded, Event
from ledger.log.state import CampaignState
from ledger.systems import get_system
from ledger.systems.d20.commands import (
    Attack,
    Carry,
    Check,
    Create,
    Heal,
    Panic,
    RollInitiative,
    Stress,
    TakeDamage,
    Treat,
    Use,
)
from ledger.systems.d20.events import (
    Attacked,
    Checked,
    Created,
    D20Roll,
    Damaged,
    Panicked,
    Stressed,
    UsageRolled,
)
from tests.helpers_rules import decided, folded

SYSTEM = get_system("d20")
TABLES, _ = SYSTEM.rules.load_tables(None)

# Seven 3d6: totals 15, 8, 4 (the lowest, dropped), 18, 12, 13, 9.
SEVEN = [6, 5, 4, 3, 3, 2, 1, 1, 2, 6, 6, 6, 4, 4, 4, 5, 5, 3, 2, 3, 4]
STRONG = {"fue": 18, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 8}

RIPLEY = Created(
    who="Ripley",
    manual=True,
    rolls=((6, 5, 4), (3, 3, 2), (1, 1, 2), (6, 6, 6), (4, 4, 4), (5, 5, 3), (2, 3, 4)),
    dropped=2,
    attributes=STRONG,
    modifiers={"fue": 3, "des": 1, "con": 1, "int": 0, "sab": 0, "car": -1},
    cls="marine",
    endurance=10,
    talents=("veteran", "heavy-hands"),
    skills=("athletics", "precision", "perception"),
    hp=11,  # d10 endurance + CON +1
    calm=10,  # d10 + SAB 0
    defense=13,  # 10 + DES +1 + armor 2
    armor=2,
    mov=11,
    money=800,
    weapons=("pulse rifle", "combat knife"),
    usage={"rifle rounds": 8, "oxygen": 8, "rations": 6},
)


def given(*events: Event) -> CampaignState:
    """The campaign state after a new d20 campaign and these events."""
    started = CampaignStarted(name="Station", system="d20", tables=TABLES)
    return folded(SYSTEM, started, events, lambda e: getattr(e, "who", None) or getattr(e, "name", None))


def when(state: CampaignState, command: Command, faces: list[int] | None = None) -> list[Any]:
    """The events the d20 system decides for ``command``, rolling exactly ``faces``."""
    return decided(SYSTEM, state, command, faces or [])


def roll(faces: tuple[int, ...], kept: int, modifier: int, target: int, p: float, **more: Any) -> D20Roll:
    success = kept == 20 or (kept != 1 and kept + modifier >= target)
    return D20Roll(
        faces=faces,
        kept=kept,
        modifier=modifier,
        total=kept + modifier,
        target=target,
        success=success,
        p_success=p,
        manual=True,
        **more,
    )


def test_creation_drops_the_lowest_of_seven_rolls_and_places_the_rest_as_assigned() -> None:
    assert when(given(), Create(name="Ripley", cls="marine", assign=STRONG), SEVEN) == [
        CharacterAdded(name="Ripley"),
        RIPLEY,
    ]


def test_an_assignment_with_the_dropped_roll_is_refused() -> None:
    with pytest.raises(RuleError, match=r"the kept rolls are \[18, 15, 13, 12, 9, 8\]"):
        when(given(), Create(name="Ripley", cls="marine", assign={**STRONG, "car": 4}), SEVEN)


def test_a_pushed_check_spends_a_calm_point_for_advantage() -> None:
    # DES +1 against hard (14): with advantage 1 - (12/20)^2 = 0.64
    then = when(given(RIPLEY), Check(attribute="des", dc="hard", push=True, actor="Ripley"), [3, 17])
    assert then == [
        Checked(
            who="Ripley",
            attribute="des",
            roll=roll((3, 17), 17, 1, 14, 0.64, mode="advantage"),
            pushed=True,
            calm_after=9,
        )
    ]


def test_a_usage_die_rolling_two_steps_down() -> None:
    assert when(given(RIPLEY), Use(resource="oxygen", actor="Ripley"), [2]) == [
        UsageRolled(who="Ripley", manual=True, resource="oxygen", sides=8, face=2, after=6)
    ]


def test_a_long_burst_doubles_the_damage_dice_takes_advantage_and_steps_the_ammunition_down() -> None:
    # ATQ 1 + DES 1 against DEF 12 with advantage: 1 - (9/20)^2 = 0.7975
    then = when(
        given(RIPLEY), Attack(weapon="pulse rifle", defense=12, mode="long", actor="Ripley"), [4, 15, 7, 8]
    )
    assert then == [
        Attacked(
            who="Ripley",
            weapon="pulse rifle",
            melee=False,
            mode="long",
            range="optimal",
            defense=12,
            roll=roll((4, 15), 15, 2, 12, 0.7975, mode="advantage"),
            hit=True,
            damage_dice="2d10",
            damage_faces=(7, 8),
            damage=15,
            ammo="rifle rounds",
            ammo_before=8,
            ammo_after=6,
        )
    ]


def test_a_fumbled_shot_jams_the_weapon_and_a_jammed_weapon_cannot_fire() -> None:
    shot = Attack(weapon="pulse rifle", defense=12, actor="Ripley")
    (jammed,) = when(given(RIPLEY), shot, [1])
    assert jammed == Attacked(
        who="Ripley",
        weapon="pulse rifle",
        melee=False,
        mode="short",
        range="optimal",
        defense=12,
        roll=roll((1,), 1, 2, 12, 0.55, natural="fumble"),
        hit=False,
        damage_dice="1d10",
        jammed=True,
        ammo="rifle rounds",
        ammo_before=8,
        ammo_after=8,
    )
    with pytest.raises(RuleError, match="the pulse rifle is jammed") as refused:
        when(given(RIPLEY, jammed), shot, [20])
    fix = refused.value.fix
    assert fix is not None and (fix.action, fix.command, fix.options) == (
        "command",
        "unjam",
        (Input("weapon", "pulse rifle"),),
    )


def test_a_lethal_wound_kills_and_the_dead_do_not_act() -> None:
    (wound,) = when(given(RIPLEY), TakeDamage(amount=40, actor="Ripley"))
    assert wound == Damaged(who="Ripley", amount=40, hp_after=0, calm_lost=1, calm_after=9, died=True)
    with pytest.raises(GameOverError, match=r"Ripley is dead \(0 HP\)") as refused:
        when(given(RIPLEY, wound), Check(attribute="des", dc="11", actor="Ripley"), [15])
    assert refused.value.fix is not None and refused.value.fix.action == "choose_character"


def test_a_fumbled_stress_check_brings_panic_and_a_high_panic_roll_a_trauma() -> None:
    # INS 1 + SAB 0 against 20: 2 faces in 20 succeed; the failure loses a d10 of calm
    (stressed,) = when(given(RIPLEY), Stress(difficulty=20, actor="Ripley"), [1, 10])
    assert stressed == Stressed(
        who="Ripley",
        difficulty=20,
        roll=roll((1,), 1, 1, 20, 0.1, natural="fumble"),
        loss_sides=10,
        loss_face=10,
        calm_after=0,
        panic_due=True,
    )
    assert when(given(RIPLEY, stressed), Panic(actor="Ripley"), [5, 3, 2]) == [
        Panicked(
            who="Ripley",
            manual=True,
            sides=6,
            face=5,
            result=TABLES["panic"]["results"]["5"]["en"],
            trauma_sides=10,
            trauma_face=3,
            trauma=TABLES["traumas"]["results"]["3"]["en"],
            new_trauma=True,
            recovered_face=2,
            calm_after=2,
        )
    ]
    with pytest.raises(RuleError, match="has no panic roll due"):
        when(given(RIPLEY), Panic(actor="Ripley"), [5, 3, 2])


# --- boundaries no other test tells apart --------------------------------------------------------


def test_the_usage_die_starts_at_d12_and_only_1_2_steps_it_down() -> None:
    # "Dado de uso ... Si su puntuación es 1-2, el Du baja un nivel": d12, d10, d8, d6, d4
    water = msgspec.structs.replace(RIPLEY, usage={**RIPLEY.usage, "water": 12})
    (kept,) = when(given(water), Use(resource="water", actor="Ripley"), [3])
    (stepped,) = when(given(water), Use(resource="water", actor="Ripley"), [2])
    assert (kept.sides, kept.after, stepped.after) == (12, 12, 10)


def test_a_d20_check_takes_faces_of_1_to_20_only() -> None:
    with pytest.raises(FacesError):
        when(given(RIPLEY), Check(attribute="des", dc="11", actor="Ripley"), [21])


def test_a_skill_adds_its_point_only_when_the_character_has_it() -> None:
    # "D20 +/- modificador de atributo + puntuación de habilidad": precision trained (1), technology not (0)
    (trained,) = when(given(RIPLEY), Check(attribute="des", dc="11", skill="precision", actor="Ripley"), [9])
    (untrained,) = when(
        given(RIPLEY), Check(attribute="des", dc="11", skill="technology", actor="Ripley"), [9]
    )
    assert (trained.roll.modifier, trained.roll.success) == (2, True)
    assert (untrained.roll.modifier, untrained.roll.success) == (1, False)


@pytest.mark.parametrize(
    ("distance", "band"),
    [
        (0, "point-blank"),  # "Bocajarro: Distancias de menos de 2 metros", down to none at all
        (2, "optimal"),  # "Óptima: Se encuentra entre los 2 metros y la distancia especificada"
        (40, "optimal"),  # the pulse rifle's 40 m is still optimal
        (41, "extreme"),  # "Extrema: Más allá del alcance óptimo"
        (80, "extreme"),  # "No es posible disparar más allá del doble": twice the range still fires
    ],
)
def test_range_bands_by_distance_at_their_edges(distance: float, band: str) -> None:
    shot = Attack(weapon="pulse rifle", defense=30, distance=distance, actor="Ripley")
    faces = [3] if band == "optimal" else [3, 4]
    (attacked,) = when(given(RIPLEY), shot, faces)
    assert attacked.range == band


def test_a_melee_hit_does_at_least_1_damage_whatever_the_fue_modifier() -> None:
    # rulings/d20.md: a hit does at least 1 damage; FUE -1 on a d4 showing 1 would do 0
    weak = msgspec.structs.replace(RIPLEY, modifiers={**RIPLEY.modifiers, "fue": -1})
    (hit,) = when(given(weak), Attack(weapon="combat knife", defense=5, actor="Ripley"), [15, 1])
    assert (hit.hit, hit.damage) == (True, 1)


def test_covering_fire_shares_every_damage_point_larger_shares_first() -> None:
    # "Fuego de cobertura: ... repartir los puntos de daño infligidos entre varios objetivos"
    burst = Attack(weapon="pulse rifle", defense=12, mode="long", split=3, actor="Ripley")
    (fired,) = when(given(RIPLEY), burst, [4, 15, 7, 9])
    assert (fired.damage, fired.split) == (16, (6, 5, 5))


@pytest.mark.parametrize(("difficulty", "sides"), [(11, 4), (14, 6), (17, 8), (20, 10)])
def test_a_failed_stress_check_loses_the_die_of_its_difficulty(difficulty: int, sides: int) -> None:
    # "Dificultad 11+ / pérdida de 1D4 PC", 14+ 1D6, 17+ 1D8, 20+ 1D10
    stress = Stress(difficulty=difficulty, actor="Ripley")
    (stressed,) = when(given(RIPLEY), stress, [2, sides])
    assert (stressed.loss_sides, stressed.loss_face, stressed.calm_after) == (sides, sides, 10 - sides)
    with pytest.raises(FacesError):
        when(given(RIPLEY), stress, [2, sides + 1])


def test_first_aid_succeeds_at_14_and_heals_1d4_or_1d6_with_a_kit() -> None:
    # "Primeros auxilios: A través de una prueba de INT + Precisión a 14+ ... se recuperan 1D4 PV.
    # Realizarlo con un botiquín ... aumentar el 1D4 a 1D6": INT 0 + precision 1
    (wound,) = when(given(RIPLEY), TakeDamage(amount=6, actor="Ripley"))
    hurt = given(RIPLEY, wound)
    (missed,) = when(hurt, Heal(actor="Ripley"), [12])
    assert (missed.roll.total, missed.roll.success, missed.hp_after) == (13, False, 5)
    (healed,) = when(hurt, Heal(actor="Ripley"), [13, 4])
    assert (healed.roll.total, healed.sides, healed.hp_after) == (14, 4, 9)
    with pytest.raises(FacesError):
        when(hurt, Heal(actor="Ripley"), [13, 5])
    (kit,) = when(hurt, Heal(actor="Ripley", kit=True), [13, 6])
    assert (kit.sides, kit.hp_after) == (6, 11)


def test_attributes_are_3d6_and_initiative_a_d20() -> None:
    # "siete tiradas de 3D6"; "Iniciativa: D20 +/- modificador de SAB"
    for die in range(3):
        with pytest.raises(FacesError):
            when(
                given(),
                Create(name="Ripley", cls="marine", assign=STRONG),
                [*SEVEN[:die], 7, *SEVEN[die + 1 :]],
            )
    (top,) = when(given(RIPLEY), RollInitiative(actor="Ripley"), [20])
    assert (top.face, top.total) == (20, 20)
    with pytest.raises(FacesError):
        when(given(RIPLEY), RollInitiative(actor="Ripley"), [21])


def test_a_pushed_stress_check_spends_its_calm_point_before_the_loss() -> None:
    # "Forzar tirada: Se puede gastar 1 PC para obtener Ventaja": 10 - 1 - a d4 of 3 = 6
    (stressed,) = when(given(RIPLEY), Stress(difficulty=11, push=True, actor="Ripley"), [2, 3, 3])
    assert (stressed.roll.success, stressed.calm_after) == (False, 6)


def test_after_panic_the_calm_back_is_a_d4() -> None:
    # "Una vez que los efectos de la tirada de Pánico terminan, el personaje recupera 1D4 PC"
    (stressed,) = when(given(RIPLEY), Stress(difficulty=20, actor="Ripley"), [1, 10])
    after = given(RIPLEY, stressed)
    (panicked,) = when(after, Panic(actor="Ripley"), [2, 4])
    assert (panicked.recovered_face, panicked.calm_after) == (4, 4)
    with pytest.raises(FacesError):
        when(after, Panic(actor="Ripley"), [2, 5])


def test_carrying_as_many_items_as_fue_is_not_overloaded_one_more_is() -> None:
    # "Cada personaje puede llevar tantos objetos como su puntuación de FUE. Si sobrepasa ese
    # límite ... sufre Desventaja en todas sus acciones físicas": FUE 3, a rifle and a knife
    light = msgspec.structs.replace(RIPLEY, attributes={**RIPLEY.attributes, "fue": 3})
    swing = Attack(weapon="combat knife", defense=5, actor="Ripley")
    (rope,) = when(given(light), Carry(items=("rope",), actor="Ripley"))
    assert when(given(light, rope), swing, [15, 2])[0].roll.mode == "normal"
    (more,) = when(given(light), Carry(items=("rope", "torch"), actor="Ripley"))
    assert when(given(light, more), swing, [15, 3, 2])[0].roll.mode == "disadvantage"


def test_the_sheet_runs_twice_the_movement_and_shows_the_level_1_atq_and_ins() -> None:
    # "Movimiento (MOV): 10 +/- modificador de DES. Correr duplica el movimiento"
    shown = SYSTEM.read.sheet(given(RIPLEY), "Ripley")
    assert (shown["mov"], shown["run"]) == (11, 22)
    assert (shown["atq"], shown["ins"]) == (1, 1)  # level 1's row of the sample levels table


def test_a_wound_costs_the_last_calm_point_but_never_goes_below_zero() -> None:
    # "Se sufre algún daño: Cada vez que se sufra una herida, se pierde 1 PC"; "Cuando los PC de un
    # personaje lleguen a 0 ... se debe realizar una tirada de Pánico"
    (one_left,) = when(given(RIPLEY), Stress(difficulty=20, actor="Ripley"), [2, 9])
    (wound,) = when(given(RIPLEY, one_left), TakeDamage(amount=1, actor="Ripley"))
    assert (wound.calm_lost, wound.calm_after, wound.panic_due) == (1, 0, True)
    (again,) = when(given(RIPLEY, one_left, wound), TakeDamage(amount=1, actor="Ripley"))
    assert (again.calm_lost, again.calm_after) == (0, 0)


def test_therapy_treats_the_trauma_chosen_by_its_number() -> None:
    # "Realizar terapia con un profesional conlleva 6 meses ... se recupera del trauma mental"
    (fumbled,) = when(given(RIPLEY), Stress(difficulty=20, actor="Ripley"), [1, 10])
    (first,) = when(given(RIPLEY, fumbled), Panic(actor="Ripley"), [5, 3, 2])
    (again,) = when(given(RIPLEY, fumbled, first), Stress(difficulty=20, actor="Ripley"), [1, 1])
    (second,) = when(given(RIPLEY, fumbled, first, again), Panic(actor="Ripley"), [6, 5, 2])
    assert (first.trauma, second.trauma) == (
        TABLES["traumas"]["results"]["3"]["en"],
        TABLES["traumas"]["results"]["5"]["en"],
    )
    traumatised = given(RIPLEY, fumbled, first, again, second)
    (therapy,) = when(traumatised, Treat(trauma=1, actor="Ripley"), [16])
    assert therapy.trauma == first.trauma
