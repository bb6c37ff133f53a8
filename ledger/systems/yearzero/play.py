"""Playing ``yearzero`` by itself: a party of mutants ventures out of the Ark, day by day.

The autoplayer (``Play.autoplay``, used by ``ledger simulate``)
makes up a party of three from the Mutant: Year Zero roles (enforcer,
gearhead, stalker, fixer, chronicler) and plays each day in three stretches,
as a table would. Morning: a ration of grub and one of water each (a second
helping for the wounded; now and then a ration is contaminated, or there is
none), then a march into the next sector of the Zone, explored (a pathfinder
may cut the time) or, when its Rot is heavy, crossed in a hurry and left at
once. Afternoon: one scene (an obstacle overcome with a skill, a fight with
Zone ghouls, a drink of booze, a freezing wind), then the broken and the
critically injured are healed and damaged gear repaired. Night: camp away from
heavy Rot, rest (a pair may share a moment of intimacy) and sleep. After a
few days out, or when the Rot or the wounds pile up, the party marches back to
the Ark to wash and stays a day or more. Failed rolls are pushed when the
roller can spare the trauma.

Every roll goes through the system's commands, so its events carry their
exact odds; each choice comes from a generator seeded by the campaign's seed
and version, so a simulated campaign replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ledger.errors import RuleError
from ledger.play.autoplay import Player
from ledger.projections.yearzero.game import Character, YZState
from ledger.projections.yearzero.vocabulary import DAY, SKILLS, SPECIALIST_SKILLS, split_sector
from ledger.systems.yearzero import commands as yz
from ledger.systems.yearzero import events as ev

NAMES = ("Vesna", "Grit", "Mira", "Hank", "Tove", "Rix", "Jolie", "Doc", "Ezra", "Kasia")

ROLES: dict[str, dict[str, Any]] = {
    "enforcer": {
        "key": "strength",
        "skills": ("intimidate", "fight", "endure", "force"),
        "gear": ("club", "machete"),
        "armor": ("armor", "scrap_armor"),
    },
    "gearhead": {
        "key": "wits",
        "skills": ("jury_rig", "comprehend", "shoot", "force"),
        "gear": ("wrench", "scrap_pistol"),
        "armor": ("shield", "car_door"),
    },
    "stalker": {
        "key": "agility",
        "skills": ("find_the_path", "scout", "shoot", "sneak", "know_the_zone"),
        "gear": ("bow", "binoculars"),
        "armor": ("suit", "rot_suit"),
    },
    "fixer": {
        "key": "empathy",
        "skills": ("make_a_deal", "heal", "manipulate", "sense_emotion"),
        "gear": ("bandages", "knife"),
        "armor": ("armor", "leather_jacket"),
    },
    "chronicler": {
        "key": "empathy",
        "skills": ("inspire", "heal", "comprehend", "sense_emotion"),
        "gear": ("bandages", "old_book"),
        "armor": ("suit", "gas_mask"),
    },
}

OBSTACLES = (
    ("scout", "binoculars"),
    ("find_the_path", None),
    ("know_the_zone", None),
    ("sneak", None),
    ("move", None),
    ("force", None),
    ("comprehend", None),
    ("endure", None),
    ("sense_emotion", None),
    ("make_a_deal", None),
)
ARK_CHORES = ("comprehend", "manipulate", "make_a_deal", "know_the_zone", "sense_emotion", "inspire", "force")
WEAPONS = {"fight": ("club", "machete", "knife"), "shoot": ("bow", "scrap_pistol")}
HEAVY_ROT = 2
"""From this sector Rot level on, the party hurries through and never camps."""
BED_HOUR, WAKE_HOUR = 22, 8


def _attributes(rng: random.Random, key: str) -> dict[str, str]:
    """Fourteen points over the four attributes, the role's key attribute highest (2 to 5)."""
    values = {"strength": 2, "agility": 2, "wits": 2, "empathy": 2}
    values[key] = rng.randint(4, 5)
    while sum(values.values()) < 14:
        other = rng.choice([a for a in values if a != key and values[a] < 4])
        values[other] += 1
    return {a: str(v) for a, v in values.items()}


def mutant(rng: random.Random, role: str) -> dict[str, str]:
    """The ``character add`` attributes of a new mutant of ``role``."""
    spec = ROLES[role]
    attrs = _attributes(rng, spec["key"])
    specialist, *basics = spec["skills"]
    attrs[f"skill.{specialist}"] = str(rng.randint(1, 3))
    for skill in rng.sample(basics, 2):
        attrs[f"skill.{skill}"] = str(rng.randint(1, 3))
    for item in spec["gear"]:
        attrs[f"gear.{item}"] = str(rng.randint(1, 2))
    slot, item = spec["armor"]
    attrs[f"{slot}.{item}"] = str(rng.randint(1, 3))
    return attrs


def _step(here: tuple[int, int], there: tuple[int, int]) -> tuple[int, int]:
    """One sector from ``here`` toward ``there`` (diagonals allowed)."""

    def toward(a: int, b: int) -> int:
        return a + (b > a) - (b < a)

    return toward(here[0], there[0]), toward(here[1], there[1])


def sector_name(col: int, row: int) -> str:
    return f"{chr(ord('A') + col)}{row}"


class Autoplayer(Player):
    """The yearzero policy: what to do next, given the state the last action left."""

    def __init__(self, ledger: Any, campaign: str | None, on_action: Callable[[Any], None] | None) -> None:
        super().__init__(ledger, campaign, on_action)
        core = self.state.core
        self.seed = core.seed if core.seed is not None else random.randrange(2**32)
        self.refused: list[str] = []
        self.days_out = 0
        self.homeward = False
        self.ark_days = 0

    @property
    def game(self) -> YZState:
        game: YZState = self.state.game
        return game

    def rng(self) -> random.Random:
        """The policy's own generator: seeded like the campaign's dice but salted, so no choice
        ever follows the dice the next command will throw (that would bias the rolls)."""
        return random.Random(f"{self.seed}:{self.state.core.version}:policy")

    def run(self, command: Any, actor: str | None = None) -> Any:
        """Record a command; a refusal (a rule the policy overlooked) plays nothing."""
        try:
            return self.record(command, actor)
        except RuleError as e:
            self.refused.append(f"{type(command).__name__}: {e}")
            return None

    # --- who can do what ---------------------------------------------------------------

    def living(self) -> list[Character]:
        return [self.game.characters[n] for n in self.game.order if not self.game.characters[n].dead]

    def able(self) -> list[Character]:
        """Who can roll: alive, not broken, and not about to break from a cold roll."""
        doomed = self.settling()
        return [c for c in self.living() if not c.broken and c.name != doomed]

    def best(self, skill: str, among: list[Character] | None = None) -> Character | None:
        """The able mutant with the most dice for ``skill`` (a specialist skill needs its specialist)."""
        who = [
            c
            for c in (self.able() if among is None else among)
            if skill not in SPECIALIST_SKILLS or c.skills.get(skill, 0) > 0
        ]
        if not who:
            return None
        return max(who, key=lambda c: (c.current[SKILLS[skill]] + c.skills.get(skill, 0), c.name))

    @staticmethod
    def usable(c: Character, item: str | None) -> str | None:
        found = c.gear.get(item) if item else None
        return item if found is not None and found.bonus > 0 and not found.destroyed else None

    # --- rolls ----------------------------------------------------------------------------

    def test(self, who: Character, skill: str, item: str | None = None) -> int:
        """Roll a skill (with a helper now and then); the successes, after a push if any."""
        helpers = 0 if skill in SPECIALIST_SKILLS else self.rng().randint(0, 1)
        helpers = min(helpers, len(self.able()) - 1)
        return self.attempt(yz.Roll(what=skill, item=self.usable(who, item), helpers=helpers), who)

    def attempt(self, command: Any, who: Character) -> int:
        """A rolling command, pushed when it failed and the roller can spare the trauma."""
        rec = self.run(command, who.name)
        rolled = [e for e in rec.events if isinstance(e, ev.Rolled)] if rec else []
        if not rolled or rolled[0].successes:
            return rolled[0].successes if rolled else 0
        pending = self.game.pending
        if pending is None or pending.character != who.name:
            return 0
        spare = self.game.characters[who.name].current[pending.attribute]
        if spare < 2 or self.rng().random() > 0.7:
            return 0
        rec = self.run(yz.Push(), who.name)
        pushed = [e for e in rec.events if isinstance(e, ev.Pushed)] if rec else []
        return pushed[0].successes if pushed else 0

    def settling(self) -> str | None:
        """Who a failed, unpushed cold roll will hurt (and maybe break) at the next command."""
        p = self.game.pending
        if p is None or p.successes or p.purpose != "cold":
            return None
        c = self.game.characters[p.character]
        return p.character if min(c.current["strength"], c.current["wits"]) <= 1 else None

    # --- the day ---------------------------------------------------------------------------

    def breakfast(self) -> None:
        """A ration of grub and one of water each, and a second helping when someone is hurt."""
        rng = self.rng()
        if rng.random() < 0.95:
            self.run(yz.Eat(everyone=True, contaminated=rng.random() < 0.08))
            if any(c.current["strength"] < c.max["strength"] and "grub" not in c.bank for c in self.living()):
                self.run(yz.Eat(everyone=True))
        rng = self.rng()
        if rng.random() < 0.97 and self.living():
            self.run(yz.Drink(everyone=True, contaminated=rng.random() < 0.1))
            if any(c.current["agility"] < c.max["agility"] and "water" not in c.bank for c in self.living()):
                self.run(yz.Drink(everyone=True))

    def homecoming(self) -> None:
        """Back to the Ark in one march, sector by sector."""
        ark = split_sector(self.game.ark) or (5, 8)
        for _ in range(12):
            here = split_sector(self.game.position) or ark
            if (
                here == ark
                or not self.living()
                or self.run(yz.Enter(sector=sector_name(*_step(here, ark)))) is None
            ):
                return

    def march(self) -> None:
        """Into the next sector, never into known heavy Rot; heavy Rot found is crossed in a hurry
        and left at once. A sector not explored yet is explored (a pathfinder may cut the time)."""
        here = split_sector(self.game.position) or split_sector(self.game.ark) or (5, 8)
        rng = self.rng()
        choices = [
            (here[0] + dx, here[1] + dy)
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            if (dx or dy) and 0 <= here[0] + dx < 26 and 1 <= here[1] + dy <= 20
        ]
        known = self.game.sectors
        safe = [
            c for c in choices if sector_name(*c) not in known or known[sector_name(*c)].rot_level < HEAVY_ROT
        ]
        fresh = [c for c in safe if sector_name(*c) not in known]
        sector = sector_name(*rng.choice(fresh or safe or choices))
        if self.run(yz.Enter(sector=sector)) is None:
            return
        found = self.game.sectors[sector]
        if found.explored:
            return
        if found.rot_level >= HEAVY_ROT:
            self.run(yz.Explore(hurry=True))
            self.retreat()
            return
        pathfinder = self.best("find_the_path")
        stunt = pathfinder is not None and self.test(pathfinder, "find_the_path") > 1
        self.run(yz.Explore(stunt=stunt, terrain=rng.choice(("open", "typical", "difficult"))))

    def retreat(self) -> None:
        """Out of heavy Rot, back to the sector the party came from."""
        if self.game.rot_level_here() >= HEAVY_ROT and len(self.game.path) >= 2:
            back = self.game.path[-2]
            if back != self.game.position:
                self.run(yz.Enter(sector=back))

    def scene(self) -> None:
        """What the Zone throws at the party today."""
        rng = self.rng()
        roll = rng.random()
        if roll < 0.3:
            self.fight(rng)
        elif roll < 0.85:
            self.obstacle(rng)
        elif roll < 0.93:
            self.drink_booze(rng)
        else:
            self.cold_snap(rng)

    def obstacle(self, rng: random.Random) -> None:
        skill, item = rng.choice(OBSTACLES)
        who = self.best(skill)
        if who is None:
            return
        if self.test(who, skill, item) == 0 and rng.random() < 0.4:
            kind = rng.choice(("damage", "fatigue", "confusion", "doubt"))
            self.run(yz.Damage(kind=kind, amount=rng.randint(1, 2), armor=kind == "damage"), who.name)

    def fight(self, rng: random.Random) -> None:
        """Zone ghouls: initiative, then every able mutant strikes once and the ghouls strike back."""
        fighters = self.able()
        order = []
        for c in fighters:
            rec = self.run(yz.Initiative(ambush=rng.random() < 0.1), c.name)
            if rec is not None:
                order.append((rec.events[0].total, c.name))
        ghouls = rng.randint(1, 3)
        for _, name in sorted(order, reverse=True):
            c = self.game.characters[name]
            if c.dead or c.broken or not ghouls:
                continue
            skill = "shoot" if c.skills.get("shoot", 0) >= c.skills.get("fight", 0) else "fight"
            weapon = next((w for w in WEAPONS[skill] if self.usable(c, w)), None)
            hits = self.test(c, skill, weapon)
            ghouls = max(0, ghouls - hits)
        for _ in range(ghouls):
            targets = self.living()
            if not targets:
                return
            target = self.rng().choice(targets)
            self.run(yz.Damage(kind="damage", amount=self.rng().randint(1, 3)), target.name)

    def drink_booze(self, rng: random.Random) -> None:
        who = self.living()
        if who:
            self.run(yz.Booze(), rng.choice(who).name)

    def cold_snap(self, rng: random.Random) -> None:
        """A freezing wind: every mutant endures it, and the party warms up by a fire."""
        for c in self.living():
            item = next((i for i in c.gear if c.gear[i].kind == "suit" and self.usable(c, i)), None)
            if c.broken:
                self.run(yz.Cold(), c.name)
            else:
                self.attempt(yz.Cold(item=item), c)
        p = self.game.pending
        roller = self.game.characters[p.character] if p is not None else None
        freezing = p is not None and p.purpose == "cold" and not p.successes
        freezing = freezing and roller is not None and roller.current["strength"] > 1
        if (freezing or any(c.has("hypothermic") for c in self.living())) and rng.random() < 0.7:
            self.run(yz.Warm(everyone=True))

    def tend(self) -> None:
        """Heal the broken and the critically injured; repair a damaged piece of gear."""
        for c in self.living():
            c = self.game.characters[c.name]
            lethal = [i for i in c.injuries if i.lethal]
            if (
                c.dead
                or c.name == self.settling()
                or not (lethal or c.broken or any(i.heals_at is not None for i in c.injuries))
            ):
                continue
            healers = [h for h in self.able() if not any(h.name in i.tried_by for i in lethal)]
            others = [h for h in healers if h.name != c.name]
            healer = self.best("heal", others or healers)
            if healer is not None:
                self.attempt(yz.Heal(target=c.name, item=self.usable(healer, "bandages")), healer)
        mechanic = next((c for c in self.able() if c.skills.get("jury_rig", 0)), None)
        if mechanic is None:
            return
        owners: dict[str, int] = {}
        for c in self.game.characters.values():
            for n in c.gear:
                owners[n] = owners.get(n, 0) + 1
        for c in self.living():
            damaged = [
                n
                for n, i in c.gear.items()
                if not i.destroyed and i.bonus < i.max_bonus and (c.name == mechanic.name or owners[n] == 1)
            ]
            if damaged:
                tool = self.usable(mechanic, "wrench") if damaged[0] != "wrench" else None
                self.attempt(yz.Repair(item=damaged[0], tool=tool), mechanic)
                return

    def at_the_ark(self) -> None:
        """Home: everyone washes off what Rot they can, and the party stays a day or more."""
        for c in self.living():
            if not c.washed and c.rot - c.permanent_rot >= 2:
                self.run(yz.Wash(), c.name)
        self.homeward = False
        self.days_out = 0
        self.ark_days = self.rng().randint(1, 3)

    def ark_day(self) -> None:
        """A day at home: chores and dealings in the Ark, the wounded and the gear tended."""
        rng = self.rng()
        if rng.random() < 0.6:
            skill = rng.choice(ARK_CHORES)
            who = self.best(skill)
            if who is not None:
                self.test(who, skill)
        elif rng.random() < 0.3:
            self.drink_booze(rng)
        self.tend()
        self.ark_days -= 1

    def night(self) -> None:
        """Away from heavy Rot, make camp: rest until bedtime (now and then a pair finds a
        moment of intimacy), then sleep until morning."""
        self.retreat()
        if not self.living():
            return
        rng = self.rng()
        living = [c.name for c in self.living()]
        doubting = [c.name for c in self.living() if c.current["empathy"] < c.max["empathy"]]
        left = (BED_HOUR * 60 - self.game.minute % DAY) // 60
        if left > 0:
            pair: tuple[str, ...] = ()
            if doubting and len(living) >= 2 and rng.random() < 0.5:
                pair = (doubting[0], next(n for n in living if n != doubting[0]))
            self.run(yz.Rest(hours=left, intimacy=pair))
        until = (WAKE_HOUR * 60 - self.game.minute % DAY) % DAY
        self.run(yz.Sleep(hours=max(8, min(24, until // 60))))

    def morning(self) -> None:
        """Rations, then a march: outward, home to the Ark, or nowhere on a day at home."""
        self.breakfast()
        if not self.living():
            return
        if self.homeward:
            self.homecoming()
            self.at_the_ark()
        elif not self.ark_days:
            self.march()

    def afternoon(self) -> None:
        """Out in the Zone a scene and then the wounded tended; at home, a day's chores."""
        if self.ark_days:
            self.ark_day()
            return
        self.scene()
        self.tend()
        self.days_out += 1
        rot = max((c.rot - c.permanent_rot for c in self.living()), default=0)
        hurt = any(c.broken or c.injuries for c in self.living())
        self.homeward = self.days_out >= self.rng().randint(3, 6) or rot >= 3 or hurt

    def stretch(self, part: int) -> bool:
        """One stretch of the day (0 morning, 1 afternoon, 2 night); False once nobody is alive."""
        if not self.living():
            return False
        (self.morning, self.afternoon, self.night)[part % 3]()
        return bool(self.living())


def autoplay(
    ledger: Any, campaign: str | None, days: int, on_action: Callable[[Any], None] | None = None
) -> int:
    """Play up to ``days`` stretches of days in the Zone, three to a day (the morning's rations
    and march, the afternoon's scene, the night's camp), or until the whole party is dead;
    returns the stretches played. Counting stretches keeps a simulated campaign to a few
    dozen commands: ``ledger simulate yearzero --days 30`` plays ten days in the Zone."""
    player = Autoplayer(ledger, campaign, on_action)
    if not player.game.characters:
        roles = player.rng().sample(sorted(ROLES), 3)
        names = player.rng().sample(NAMES, 3)
        for name, role in zip(names, roles, strict=True):
            player.run(yz.CreateCharacter(name=name, attrs=mutant(player.rng(), role)))
    start = 0 if player.game.minute % DAY < 12 * 60 else 2
    played = 0
    while played < days and player.stretch(start + played):
        played += 1
    return played
