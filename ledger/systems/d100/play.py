"""Playing ``d100`` by itself: a party of investigators lives through scenes.

The autoplayer (``Play.autoplay``, used by ``ledger simulate``)
creates two or three investigators with ``d100 character`` and plays scene
after scene until the campaign clock reaches the last day or everyone is
dead: investigations (skill and characteristic tests, luck declared or spent
afterwards, a refund or an award from the director), horrors, exertion, and
fights against a creature the director runs (at half hit points the
director calls a Resistencia test, and who fails it faints). After a scene the party gives
first aid, medicine and psychotherapy where the rules allow them, then rests.

Every investigator's roll is a ``d100`` command, so its event records the
exact probability of success. The director's own dice (the creature's attack
and its damage) are free ``ledger roll`` rolls with a label and no target,
as at a real table; the creature itself lives in the director's notes, not
on the party's sheets. Choices come from a generator seeded by the
campaign's seed and version, so a simulated campaign replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from ledger.deciding.commands import Note, Roll
from ledger.errors import RuleError
from ledger.play.autoplay import Player
from ledger.projections.d100.state import MINUTES_PER_DAY, MINUTES_PER_WEEK, D100State, Investigator, state_of
from ledger.systems.d100 import commands as c
from ledger.systems.d100 import roll
from ledger.systems.d100.model import CHARACTERISTICS

NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fermin")
INVESTIGATION = ("Investigar", "Divisar", "Escuchar", "Rastrear", "Trepar", "Persuadir")
QUICK_TESTS = ("Idea", "Conocimientos Generales", "Agilidad", "Resistencia")
WEAPONS = (("Pelea", "melee"), ("Armas cortas", "ranged"), ("Armas de fuego", "ranged"))
CREATURES = (
    # name, attack skill, damage, melee?, hit points
    ("un perro salvaje", 45, "1d6", True, 8),
    ("un sectario con cuchillo", 50, "1d4+2", True, 12),
    ("un sectario armado", 40, "1d8", False, 11),
    ("el guardian del sotano", 60, "1d8+1", True, 20),
    ("un profundo", 55, "1d6+2", True, 16),
)
SCENES = (("investigation", 0.45), ("fight", 0.25), ("horror", 0.15), ("exertion", 0.15))
MAX_ROUNDS = 3
TRAINED = 20
"""Fewest skill points a healer needs before the party lets them try."""


class Creature(msgspec.Struct):
    """What the director keeps in their notes about the foe of a fight."""

    name: str
    skill: int
    damage: str
    melee: bool
    hp: int


def _investigator(rng: random.Random, name: str, role: int) -> c.CreateCharacter:
    """Characteristics 3d6 (INT and EDU 2d6+6), a weapon, and a speciality by role."""
    chars = {k: sum(rng.randint(1, 6) for _ in range(3)) for k in CHARACTERISTICS}
    chars["INT"] = rng.randint(1, 6) + rng.randint(1, 6) + 6
    chars["EDU"] = rng.randint(1, 6) + rng.randint(1, 6) + 6
    weapon, _kind = rng.choice(WEAPONS)
    skills = {
        weapon: rng.randint(35, 70),
        "Esquivar": rng.randint(25, 60),
        "Primeros auxilios": rng.randint(30, 65),
        rng.choice(INVESTIGATION): rng.randint(40, 75),
    }
    if role == 0:
        skills["Medicina"] = rng.randint(40, 70)
    if role == 1:
        skills["Psicoterapia"] = rng.randint(35, 60)
    return c.CreateCharacter(name=name, characteristics=chars, skills=skills)


def _weapon(inv: Investigator) -> tuple[str, str]:
    """The investigator's trained weapon skill and its kind (melee or ranged)."""
    for skill, kind in WEAPONS:
        if skill in inv.skills:
            return skill, kind
    return "Pelea", "melee"


def can_act(inv: Investigator) -> bool:
    """Conscious, not in panic, not exhausted: may roll, heal and fight."""
    return state_of(inv) not in ("dead", "dying", "unconscious") and inv.valor > 0 and inv.fatigue > 0


def can_dodge(inv: Investigator) -> bool:
    """Dodging is allowed in panic, not unconscious, dying or exhausted."""
    return state_of(inv) not in ("dead", "dying", "unconscious") and inv.fatigue > 0


class Autoplayer(Player):
    """The d100 policy: what to do next, given the state the last action left."""

    def __init__(self, ledger: Any, campaign: str | None, on_action: Callable[[Any], None] | None) -> None:
        super().__init__(ledger, campaign, on_action)
        self.refusals: list[RuleError] = []
        self.fainted: set[str] = set()
        """Who fell senseless in the current fight (a failed Resistencia at half hit points)."""
        core = self.state.core
        seed = core.seed if core.seed is not None else random.randrange(2**32)
        self.rng = random.Random(f"{seed}:{core.version}")

    @property
    def game(self) -> D100State:
        game: D100State = self.state.game
        return game

    def party(self) -> list[Investigator]:
        return [inv for inv in self.game.characters.values() if not inv.dead]

    def able(self) -> list[Investigator]:
        return [inv for inv in self.party() if can_act(inv)]

    def run(self, command: Any, actor: str | None = None) -> Any:
        """Record a command; a refusal (a rule the policy overlooked) is kept and plays nothing."""
        try:
            return self.record(command, actor)
        except RuleError as e:
            self.refusals.append(e)
            return None

    # --- scenes -------------------------------------------------------------------

    def create_party(self) -> None:
        for role, name in enumerate(NAMES[: self.rng.randint(2, 3)]):
            self.run(_investigator(self.rng, name, role))

    def scene(self) -> None:
        kinds, weights = zip(*SCENES, strict=True)
        kind = self.rng.choices(kinds, weights)[0]
        getattr(self, kind)()

    def investigation(self) -> None:
        """One or two investigators look into things; luck may turn a failure."""
        able = self.able()
        for inv in self.rng.sample(able, min(len(able), self.rng.randint(1, 2))):
            self.test(inv)
        if able and self.rng.random() < 0.05:
            self.run(c.AwardLuck(points=self.rng.randint(2, 10), reason="una buena idea"), able[0].name)

    def test(self, inv: Investigator) -> None:
        r = self.rng.random()
        if r < 0.15:
            command = c.Test(skill=self.rng.choice(QUICK_TESTS))
        elif r < 0.2:
            command = c.Test(skill="POD", times=4)
        else:
            skill = self.rng.choice((*INVESTIGATION, *(s for s in inv.skills if s in INVESTIGATION)))
            hard = self.rng.random()
            command = c.Test(
                skill=skill, half=hard < 0.1, double=0.1 <= hard < 0.2, luck=self.rng.random() < 0.1
            )
        rec = self.run(command, inv.name)
        if rec is not None and len(rec.events) == 1:
            self.maybe_spend_luck(inv.name)

    def maybe_spend_luck(self, name: str) -> None:
        """After a failed test, sometimes spend the luck it costs (and rarely get it back)."""
        inv = self.game.characters[name]
        last = inv.last_test
        if last is None or last.level != roll.FAILURE or last.luck_spent:
            return
        cost = last.face - max(last.target, 0)
        if cost > inv.luck or cost > 15 or self.rng.random() < 0.5:
            return
        if self.run(c.SpendLuck(), name) is not None and self.rng.random() < 0.1:
            self.run(c.RefundLuck(), name)

    def horror(self) -> None:
        """Something dreadful: each conscious witness loses valor."""
        for inv in self.party():
            if state_of(inv) not in ("dying", "unconscious") and self.rng.random() < 0.7:
                amount = self.rng.randint(1, 4) if self.rng.random() < 0.6 else self.rng.randint(5, 20)
                self.run(c.Horror(amount=amount, cause="lo que vieron"), inv.name)

    def exertion(self) -> None:
        """A chase or a climb: a Resistencia test, and fatigue for whoever fails it."""
        able = self.able()
        if not able:
            return
        inv = self.rng.choice(able)
        rec = self.run(c.Test(skill="Resistencia"), inv.name)
        if rec is not None and not roll.is_success(rec.events[0].level):
            self.run(c.Fatigue(amount=self.rng.randint(2, 8), cause="persecucion"), inv.name)

    # --- the fight ----------------------------------------------------------------

    def fight(self) -> None:
        name, skill, damage, melee, hp = self.rng.choice(CREATURES)
        foe = Creature(name, skill, damage, melee, hp)
        self.fainted = set()
        for _ in range(MAX_ROUNDS):
            if foe.hp <= 0 or not self.party():
                break
            self.combat_round(foe)
        if foe.hp <= 0:
            self.run(Note(text=f"{foe.name} cae"))
        if self.game.in_combat:
            self.run(c.EndCombat())

    def combat_round(self, foe: Creature) -> None:
        """Everyone declares; then the creature strikes before or after the party (its DES)."""
        quick = self.rng.random() < 0.5
        fighters = []
        for inv in self.party():
            if inv.name in self.fainted:
                continue
            if can_act(inv):
                fighters.append(self.declare(inv))
            elif can_dodge(inv):
                self.run(c.DeclareRound(option="run", defense="esquivar"), inv.name)
        if quick:
            self.creature_attacks(foe)
        for name, aim in fighters:
            if foe.hp > 0:
                self.attack(self.game.characters[name], foe, aim)
        if foe.hp > 0 and not quick:
            self.creature_attacks(foe)

    def declare(self, inv: Investigator) -> tuple[str, bool]:
        """Declare an attack with the investigator's weapon; aim first now and then."""
        weapon, kind = _weapon(inv)
        aim = kind == "ranged" and inv.characteristics["DES"] > 5 and self.rng.random() < 0.25
        actions = ("Apuntar",) if aim else ()
        self.run(c.DeclareRound(actions=actions, attacks=(weapon,), defense="esquivar"), inv.name)
        return inv.name, aim

    def attack(self, inv: Investigator, foe: Creature, aim: bool) -> None:
        if not can_act(inv):  # the round's fatigue point may have exhausted them
            return
        weapon, kind = _weapon(inv)
        if aim:
            self.run(c.Aim(), inv.name)
        elif kind == "ranged" and self.rng.random() < 0.15:
            self.run(c.Steady(points=self.rng.randint(1, min(3, inv.characteristics["DES"] - 1))), inv.name)
        command = c.Test(skill=weapon, attack=kind, aimed=aim, luck=self.rng.random() < 0.1)
        rec = self.run(command, inv.name)
        if rec is None:
            return
        level = rec.events[0].level if len(rec.events) == 1 else roll.SUCCESS
        if roll.is_success(level):
            hit = self.rng.randint(1, 6) + (self.rng.randint(1, 6) if level != roll.SUCCESS else 0)
            foe.hp -= hit

    def creature_attacks(self, foe: Creature) -> None:
        """The director rolls the creature's attack and damage; the victim may dodge."""
        standing = [inv for inv in self.party() if state_of(inv) not in ("dying", "unconscious")]
        targets = standing or self.party()
        if not targets:
            return
        victim = self.rng.choice(targets)
        rec = self.run(Roll(notation="1d100", label=f"{foe.name} ataca ({foe.skill})"), victim.name)
        if rec is None:
            return
        level = roll.level(rec.events[0].result.total, foe.skill, foe.skill)
        if not roll.is_success(level):
            return
        victim = self.game.characters[victim.name]
        awake = can_dodge(victim) and victim.name not in self.fainted
        if foe.melee and awake and self.rng.random() < 0.8:
            dodged = self.run(c.Dodge(against=level, luck=self.rng.random() < 0.1), victim.name)
            if dodged is not None and dodged.events[-1].cancelled:
                return
        dice = self.run(Roll(notation=foe.damage, label=f"dano de {foe.name}"), victim.name)
        if dice is not None:
            amount = max(1, dice.events[0].result.total)
            self.run(c.Damage(amount=amount, cause=foe.name), victim.name)
            self.risk_fainting(victim.name)

    def risk_fainting(self, name: str) -> None:
        """At half hit points the director calls a Resistencia test; failing it, the victim faints."""
        inv = self.game.characters[name]
        if name in self.fainted or state_of(inv) != "unconscious_risk" or not can_act(inv):
            return
        rec = self.run(c.Test(skill="Resistencia"), name)
        if rec is not None and not roll.is_success(rec.events[0].level):
            self.fainted.add(name)

    # --- care and rest ------------------------------------------------------------

    def healer(self, skill: str, patient: Investigator) -> Investigator | None:
        """The able investigator best at ``skill`` (not the patient, unless alone), if trained."""
        able = self.able()
        others = [inv for inv in able if inv.name != patient.name] or able
        best = max(others, key=lambda inv: inv.skills.get(skill, 0), default=None)
        return best if best is not None and best.skills.get(skill, 0) >= TRAINED else None

    def first_aid(self) -> None:
        for patient in self.party():
            patient = self.game.characters[patient.name]
            wound = next((w for w in reversed(patient.wounds) if not w.first_aid), None)
            healer = self.healer("Primeros auxilios", patient)
            if wound is None or healer is None or patient.hp >= patient.hp_max:
                continue
            self.run(c.Heal(method="firstaid", patient=patient.name, wound=wound.number), healer.name)

    def medicine(self) -> None:
        for patient in self.party():
            patient = self.game.characters[patient.name]
            last = patient.medicine_minute
            weekly = last is None or self.game.clock - last >= MINUTES_PER_WEEK
            healer = self.healer("Medicina", patient)
            if not weekly or healer is None or 2 * patient.hp > patient.hp_max:
                continue
            self.run(c.Heal(method="medicine", patient=patient.name), healer.name)

    def therapy(self) -> None:
        today = self.game.clock // MINUTES_PER_DAY
        for patient in self.party():
            patient = self.game.characters[patient.name]
            healer = self.healer("Psicoterapia", patient)
            if healer is None or patient.therapy_day == today or 2 * patient.valor > patient.valor_max:
                continue
            self.run(c.Therapy(patient=patient.name), healer.name)

    def care(self) -> None:
        self.first_aid()
        self.medicine()
        self.therapy()

    def rest(self) -> Any:
        """A short breather after a hard scene, else two to five days; a week when nobody can act."""
        tired = any(inv.fatigue < inv.fatigue_max // 2 for inv in self.party())
        if not self.able():
            minutes = MINUTES_PER_WEEK
        elif tired and self.rng.random() < 0.5:
            minutes = 15 * self.rng.randint(4, 16)
        else:
            minutes = MINUTES_PER_DAY * self.rng.randint(2, 5)
        return self.run(c.Rest(minutes=minutes, everyone=True))

    def play(self, days: int) -> int:
        """Scenes, care and rest until ``days`` game days have passed or everyone is dead."""
        if not self.game.characters:
            self.create_party()
        start = self.today()
        while self.today() < start + days and self.party():
            self.scene()
            self.care()
            if self.rest() is None:
                break
        return self.today() - start

    def today(self) -> int:
        return self.game.clock // MINUTES_PER_DAY


def autoplay(
    ledger: Any, campaign: str | None, days: int, on_action: Callable[[Any], None] | None = None
) -> int:
    """Play scenes until ``days`` game days have passed or the whole party is dead;
    returns the game days played."""
    return Autoplayer(ledger, campaign, on_action).play(days)
