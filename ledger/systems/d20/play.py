"""Playing ``d20`` by itself: a small crew explores a derelict, one shift a day.

The autoplayer (``Play.autoplay``, used by ``ledger simulate``)
creates a crew of two or three with ``create`` and plays up to ``days``
shifts: each shift brings one scene (a task, a disturbing event, a creature,
a cache of supplies, or nothing at all), then the crew breathes from its oxygen, patches its
wounds and rests. Every roll of the crew goes through the system's commands,
so each recorded event carries its exact ``p_success``.

The game master's side is played here: a creature attacks by forcing its
target to an instinct check of DES against the creature's difficulty (the
rules ask for an INS roll "cuando un personaje se enfrenta a una amenaza o
peligro"); on a failure the wound is recorded with ``take-damage``, its amount
rolled behind the screen. The creatures below are the simulated game
master's, not rules tables.

Choices come from a generator seeded by the campaign's seed (apart from the
campaign's dice), so a simulated campaign replays the same way and no choice
peeks at a die yet to be rolled.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec

from ledger.play.autoplay import Player
from ledger.projections.d20.state import D20State, Hero
from ledger.systems.d20.commands import (
    Attack,
    Check,
    Create,
    Heal,
    Panic,
    Reload,
    Rest,
    RollInitiative,
    Stress,
    Supply,
    TakeDamage,
    Treat,
    Unjam,
    Use,
)

NAMES = ("Ripley", "Parker", "Lambert", "Hicks", "Vasquez", "Bishop", "Dallas", "Kane")


class Creature(msgspec.Struct, frozen=True):
    """A foe as the game master runs it: the numbers the crew rolls against."""

    name: str
    defense: int
    hp: int
    threat: int
    """Difficulty of the crew's instinct check to avoid its attack."""
    damage: int
    """Sides of its damage die."""


CREATURES = (
    Creature("crawler", defense=11, hp=5, threat=11, damage=4),
    Creature("feral colonist", defense=10, hp=7, threat=11, damage=6),
    Creature("rogue android", defense=13, hp=10, threat=14, damage=6),
    Creature("drone", defense=14, hp=12, threat=14, damage=8),
)

TASKS = (
    ("int", "technology", "hard"),
    ("des", "stealth", "normal"),
    ("fue", "athletics", "normal"),
    ("sab", "perception", "easy"),
    ("int", "science", "hard"),
    ("des", "piloting", "very-hard"),
    ("car", "command", "normal"),
    ("con", "survival", "normal"),
)
STRESS = ((11, 0.5), (14, 0.3), (17, 0.15), (20, 0.05))
ROUNDS = 3
"""Rounds before a fight breaks off (the creature flees into the ducts)."""
BREATHE = 0.3
"""Chance a shift ends with a roll of the oxygen (or rations) usage die."""


def living(game: D20State) -> list[Hero]:
    return [h for h in game.heroes.values() if h.alive]


class Autoplayer(Player):
    """The d20 policy: what to do next, given the state the last action left."""

    def __init__(self, ledger: Any, campaign: str | None, on_action: Callable[[Any], None] | None) -> None:
        super().__init__(ledger, campaign, on_action)
        seed = self.state.core.seed
        self.rng = random.Random(f"d20-autoplay:{seed if seed is not None else random.randrange(2**62)}")

    @property
    def game(self) -> D20State:
        game: D20State = self.state.game
        return game

    def hero(self, name: str) -> Hero:
        return self.game.heroes[name]

    def run(self, command: Any, actor: str | None = None) -> Any:
        """Record a command; the policy only asks for what the rules allow."""
        return self.record(command, actor)

    # --- the crew -----------------------------------------------------------------------

    def recruit(self) -> None:
        classes = list(self.game.tables["classes"])
        for name in self.rng.sample(NAMES, 3 if self.rng.random() < 0.25 else 2):
            self.run(Create(name=name, cls=self.rng.choice(classes)))

    def calm_enough(self, hero: Hero) -> bool:
        """Push (spend 1 PC for advantage) only with calm to spare."""
        return hero.calm > hero.calm_max // 2 and self.rng.random() < 0.25

    # --- scenes ---------------------------------------------------------------------------

    def task(self) -> None:
        hero = self.rng.choice(living(self.game))
        attr, skill, dc = self.rng.choice(TASKS)
        if self.rng.random() < 0.2:
            self.run(Check(attribute=attr, dc=dc, instinct=True), hero.name)
            return
        roll = self.rng.random()
        adv, dis = roll < 0.15, 0.15 <= roll < 0.25
        push = not adv and self.calm_enough(hero)
        self.run(Check(attribute=attr, dc=dc, skill=skill, adv=adv, dis=dis, push=push), hero.name)

    def stress(self, hero: Hero | None = None) -> None:
        hero = hero or self.rng.choice(living(self.game))
        levels, weights = zip(*STRESS, strict=True)
        difficulty = self.rng.choices(levels, weights)[0]
        self.run(Stress(difficulty=difficulty, push=self.calm_enough(hero)), hero.name)

    def cache(self) -> None:
        """A locker of supplies: the most depleted resource of one of the crew."""
        hero = self.rng.choice(living(self.game))
        if not hero.usage:
            return
        resource = min(hero.usage, key=lambda r: (hero.usage[r], r))
        self.run(Supply(resource=resource, die=self.rng.choice(("d6", "d8"))), hero.name)

    def quiet(self) -> None:
        """A shift of routine work: nothing to roll."""

    # --- combat -------------------------------------------------------------------------------

    def fight(self) -> None:
        foe = self.rng.choice(CREATURES)
        hp = foe.hp
        for hero in living(self.game):
            self.run(RollInitiative(), hero.name)
        fired: set[tuple[str, str]] = set()
        for _ in range(ROUNDS):
            order = sorted(living(self.game), key=lambda h: -(h.initiative or 0))
            for hero in order:
                if hp <= 0:
                    break
                hp -= self.act(self.hero(hero.name), foe, fired)
            if hp <= 0 or not living(self.game):
                break
            self.strike(foe)
            if not living(self.game):
                return
        self.after_fight(fired)
        if living(self.game) and self.rng.random() < 0.5:
            self.stress()

    def ranged(self, hero: Hero) -> str | None:
        weapons = self.game.tables["weapons"]
        for name in hero.weapons:
            row = weapons[name]
            ready = name not in hero.jammed and name not in hero.empty
            if row["kind"] == "ranged" and ready and hero.usage.get(row["ammo"], 0):
                return name
        return None

    def melee(self, hero: Hero) -> str:
        weapons = self.game.tables["weapons"]
        blades = [w for w in hero.weapons if weapons[w]["kind"] == "melee"]
        return blades[0] if blades else "unarmed"

    def act(self, hero: Hero, foe: Creature, fired: set[tuple[str, str]]) -> int:
        """One action of one of the crew; returns the damage dealt to the creature."""
        weapons = self.game.tables["weapons"]
        if hero.jammed and self.rng.random() < 0.7:
            self.run(Unjam(weapon=hero.jammed[0], push=self.calm_enough(hero)), hero.name)
            return 0
        empty = [w for w in hero.empty if hero.usage.get(weapons[w]["ammo"], 0)]
        if empty:
            self.run(Reload(weapon=empty[0]), hero.name)
            return 0
        gun = self.ranged(hero)
        cover = "partial" if self.rng.random() < 0.2 else None
        if gun is None:
            push = self.calm_enough(hero)
            attack = Attack(weapon=self.melee(hero), defense=foe.defense, cover=cover, push=push)
        else:
            fired.add((hero.name, weapons[gun]["ammo"]))
            attack = self.shot(hero, gun, foe.defense, cover)
        rec = self.run(attack, hero.name)
        return int(rec.events[0].damage)

    def shot(self, hero: Hero, gun: str, defense: int, cover: str | None) -> Attack:
        row = self.game.tables["weapons"][gun]
        mode = None
        if row.get("autofire"):
            mode = self.rng.choices(("short", "long", "full"), (0.6, 0.3, 0.1))[0]
        band = self.rng.choices(("optimal", "point-blank", "extreme"), (0.7, 0.15, 0.15))[0]
        easy = mode in ("long", "full") or band == "point-blank"
        push = not easy and self.calm_enough(hero)
        return Attack(weapon=gun, defense=defense, mode=mode, range=band, cover=cover, push=push)

    def strike(self, foe: Creature) -> None:
        """The creature lunges at one of the crew, who must react in time or be hurt."""
        target = self.rng.choice(living(self.game))
        rec = self.run(Check(attribute="des", dc=str(foe.threat), instinct=True), target.name)
        if not rec.events[0].roll.success:
            wound = self.rng.randint(1, foe.damage)
            self.run(TakeDamage(amount=wound, cause=foe.name), target.name)

    def after_fight(self, fired: set[tuple[str, str]]) -> None:
        """At the end of a fight, every ammunition used rolls its usage die."""
        for name, ammo in sorted(fired):
            hero = self.hero(name)
            if hero.alive and hero.usage.get(ammo, 0):
                self.run(Use(resource=ammo), name)

    # --- upkeep ---------------------------------------------------------------------------------

    def panics(self) -> None:
        for hero in living(self.game):
            if hero.panic_due:
                self.run(Panic(), hero.name)

    def breathe(self) -> None:
        """Every few shifts someone checks how much air and food is left."""
        if self.rng.random() >= BREATHE:
            return
        hero = self.rng.choice(living(self.game))
        for resource in ("oxygen", "rations"):
            if hero.usage.get(resource, 0):
                self.run(Use(resource=resource), hero.name)
                return

    def patch_up(self) -> None:
        """The best medic tends the worst wound (a scratch can wait); a kit when med supplies remain."""
        crew = living(self.game)
        hurt = [h for h in crew if h.hp <= h.hp_max - 2]
        if not hurt:
            return
        patient = min(hurt, key=lambda h: (h.hp - h.hp_max, h.name))
        skill = "technology" if patient.synthetic else "precision"
        medic = max(crew, key=lambda h: (h.modifiers["int"] + (skill in h.skills), h.name))
        kit = bool(medic.usage.get("med supplies", 0))
        if kit:
            self.run(Use(resource="med supplies"), medic.name)
        push = self.calm_enough(self.hero(medic.name))
        self.run(Heal(target=patient.name, kit=kit, push=push), medic.name)

    def rest(self) -> None:
        """A day of rest once someone is down to half their PV or PC."""
        crew = living(self.game)
        if any(2 * h.hp <= h.hp_max or 2 * h.calm <= h.calm_max for h in crew):
            self.run(Rest(), crew[0].name)

    def therapy(self) -> None:
        """Now and then a traumatised survivor spends six months in therapy."""
        troubled = [h for h in living(self.game) if h.traumas]
        if troubled and self.rng.random() < 0.1:
            self.run(Treat(), troubled[0].name)

    # --- a shift -----------------------------------------------------------------------------------

    def shift(self) -> bool:
        """One day aboard; False once the whole crew is dead."""
        if not living(self.game):
            return False
        self.panics()
        scenes = (self.task, self.stress, self.fight, self.cache, self.quiet)
        self.rng.choices(scenes, (0.3, 0.12, 0.15, 0.08, 0.35))[0]()
        if not living(self.game):
            return False
        self.panics()
        self.breathe()
        self.patch_up()
        self.therapy()
        self.rest()
        return True


def autoplay(
    ledger: Any, campaign: str | None, days: int, on_action: Callable[[Any], None] | None = None
) -> int:
    """Play up to ``days`` shifts (or until the whole crew is dead); returns the shifts played."""
    player = Autoplayer(ledger, campaign, on_action)
    if not player.game.heroes:
        player.recruit()
    shifts = 0
    while shifts < days and player.shift():
        shifts += 1
    return shifts
