"""Playing ``dicepool`` by itself: two gunfighters shoot it out, turn by turn.

The autoplayer (``Play.autoplay``, used by ``ledger simulate``)
feeds the statistics warehouse with tests, attacks, dodges and resistance
tests whose recorded odds the simulation checks against what the dice did.
Each choice comes from a generator seeded by the campaign's seed and version,
so a simulated campaign replays the same way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ledger.errors import RuleError
from ledger.play.autoplay import Player
from ledger.projections.dicepool.state import Character, DicepoolState
from ledger.systems.dicepool.commands import Attack, Dodge, Initiative, Join, Resist, Test
from ledger.systems.dicepool.tables import RANGE_CLASSES

GUNS = (
    ("ares_predator", "pistols"),
    ("colt_america_l36", "pistols"),
    ("ingram_smartgun", "submachine_guns"),
    ("remington_990", "shotguns"),
)


def _fighter(rng: random.Random) -> dict[str, str]:
    weapon, skill = rng.choice(GUNS)
    # Now and then the fighter lacks the gun's skill and defaults to a related one.
    known = skill if rng.random() < 0.8 else rng.choice(("rifles", "assault_rifles"))
    return {
        "body": str(rng.randint(3, 6)),
        "quickness": str(rng.randint(3, 6)),
        "intelligence": str(rng.randint(3, 6)),
        "willpower": str(rng.randint(2, 5)),
        f"skill.{known}": str(rng.randint(3, 6)),
        "skill.stealth": str(rng.randint(1, 4)),
        "armor": str(rng.randint(0, 3)),
        "weapon": weapon,
    }


def _standing(game: DicepoolState) -> list[Character]:
    return [who for who in game.characters.values() if who.status == "active"]


class Autoplayer(Player):
    """The dicepool policy: what to do next, given the state the last action left."""

    def __init__(self, ledger: Any, campaign: str | None, on_action: Callable[[Any], None] | None) -> None:
        super().__init__(ledger, campaign, on_action)
        core = self.state.core
        self.seed = core.seed if core.seed is not None else random.randrange(2**32)

    @property
    def game(self) -> DicepoolState:
        game: DicepoolState = self.state.game
        return game

    def rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.state.core.version}:policy")

    def run(self, command: Any, actor: str | None = None) -> Any:
        """Record a command; a refusal (a rule the policy overlooked) plays nothing."""
        try:
            return self.record(command, actor)
        except RuleError:
            return None

    def exchange(self, shooter: Character, target: Character) -> None:
        rng = self.rng()
        pool = rng.randint(0, shooter.pool_left("combat") // 2)
        rec = self.run(Attack(target=target.name, range=rng.choice(RANGE_CLASSES), pool=pool), shooter.name)
        if rec is None or not rec.events[0].hit:
            return
        left = target.pool_left("combat")
        if left and rng.random() < 0.6:
            rec = self.run(Dodge(pool=rng.randint(1, left)), target.name)
            if rec is None or rec.events[0].remaining <= 0:
                return
        self.run(Resist(pool=self.game.characters[target.name].pool_left("combat")), target.name)

    def turn(self) -> bool:
        """One combat turn; False when fewer than two fighters stand."""
        if len(_standing(self.game)) < 2:
            return False
        rec = self.run(Initiative())
        for entry in rec.events[0].entries if rec else ():
            standing = _standing(self.game)
            shooter = self.game.characters[entry.character]
            if len(standing) < 2 or shooter.status != "active":
                break
            target = next(who for who in standing if who.name != shooter.name)
            rng = self.rng()
            if rng.random() < 0.15:
                self.run(Test(skill="stealth", tn=rng.randint(3, 8)), shooter.name)
            else:
                self.exchange(shooter, target)
        return True


def autoplay(
    ledger: Any, campaign: str | None, days: int, on_action: Callable[[Any], None] | None = None
) -> int:
    """Play up to ``days`` combat turns (or until one fighter drops); returns the turns played."""
    player = Autoplayer(ledger, campaign, on_action)
    if not player.game.characters:
        for name in ("Red", "Blue"):
            player.run(Join(name=name, attrs=_fighter(player.rng())))
    turns = 0
    while turns < days and player.turn():
        turns += 1
    return turns
