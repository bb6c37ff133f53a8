"""Shared pieces of the d20 decider: who acts, their bonuses, pushing."""

from __future__ import annotations

from typing import Any

from ledger.dice.sources import Dice
from ledger.errors import ChooseCharacter, DropOption, GameOverError, Input, RuleError, RunCommand
from ledger.i18n import _
from ledger.projections.d20.state import D20State, Hero
from ledger.systems.d20 import model
from ledger.systems.d20.dice import mode_of, roll_d20
from ledger.systems.d20.events import D20Roll
from ledger.systems.d20.tables import ATTRIBUTES

PHYSICAL = ("fue", "des", "con")
"""Attributes of physical actions: an overloaded character has disadvantage on them."""


def run(said: str, command: str, *arguments: str, **options: str) -> RunCommand:
    """The fix that is one of the d20 system's commands: ``command`` with its ``arguments``
    (``supply``, ``'oxygen'``, ``d6``) and ``options`` (``weapon="'pistol'"``), ``said`` in
    the library's words, naming the command in backquotes."""
    given = tuple(Input(name, value) for name, value in options.items())
    return RunCommand(text=said, command=command, arguments=arguments, options=given, system="d20")


def create_first(who: str | None = None) -> RunCommand:
    """Create the character (``who``, or one to be named) before it acts."""
    if who is None:
        return run(_("create one with `create`"), "create", "NAME")
    return run(_("create it with `create`"), "create", who)


def game(state: Any) -> D20State:
    return state.game  # type: ignore[no-any-return]


def hero_for(state: Any, who: str | None, *, alive: bool = True) -> Hero:
    """The acting character's sheet, refusing when there is none or they are dead."""
    if who is None:
        raise RuleError(_("no character to act"), fix=create_first())
    hero = game(state).heroes.get(who)
    if hero is None:
        raise RuleError(_("{who!r} has no d20 sheet yet", who=who), fix=create_first(who))
    if alive and not hero.alive:
        living = tuple(n for n, h in game(state).heroes.items() if h.alive)
        raise GameOverError(
            _("{who} is dead (0 {hp})", who=who, hp=model.translate(model.HP)),
            fix=ChooseCharacter(text=_("act as another character"), characters=living),
        )
    return hero


def level_row(state: Any, hero: Hero) -> dict[str, int]:
    levels = game(state).tables["levels"]
    row: dict[str, int] = levels[min(hero.level, len(levels)) - 1]
    return row


def attribute(name: str) -> str:
    """The attribute's key, its name typed in either language (``FUE``, ``STR``, ``fuerza``)."""
    key = model.read(model.ATTRIBUTES, name, _("attribute"))
    if key not in ATTRIBUTES:
        known = ", ".join(model.attribute_name(a) for a in ATTRIBUTES)
        raise RuleError(_("unknown attribute {name!r}; use one of {known}", name=name, known=known))
    return key


def difficulty(state: Any, text: str) -> int:
    """The difficulty as a number or a difficulty name from the tables."""
    table: dict[str, int] = game(state).tables["difficulties"]
    key = text.strip().lower()
    if key in table:
        return table[key]
    if key.isdigit() and 1 <= int(key) <= 40:
        return int(key)
    named = model.key_of(table, text.strip(), _("difficulty"))
    if named is not None:
        return table[named]
    names = ", ".join(f"{model.name(k)} ({v})" for k, v in table.items())
    raise RuleError(
        _(
            "difficulty {text!r} is neither a number from 1 to 40 nor a named one; use one of {names}",
            text=text,
            names=names,
        )
    )


def skill_key(state: Any, skill: str | None) -> str | None:
    """The skill's key, its name typed in either language (``sigilo``, ``stealth``)."""
    if skill is None:
        return None
    skills = game(state).tables["skills"]
    key = model.key_of(skills, skill.strip(), _("skill"))
    if key is None:
        known = ", ".join(model.names(skills))
        raise RuleError(_("unknown skill {skill!r}; use one of {known}", skill=skill, known=known))
    return key


def skill_points(state: Any, hero: Hero, skill: str | None) -> int:
    key = skill_key(state, skill)
    if key is None:
        return 0
    return 1 if key in hero.skills else 0


def check_push(hero: Hero, push: bool, adv: bool) -> None:
    if not push:
        return
    if adv:
        raise RuleError(
            _("pushing buys advantage the roll already has"),
            fix=DropOption(system="d20", text=_("push or take advantage, not both"), inputs=("push", "adv")),
        )
    if hero.calm < 1:
        raise RuleError(
            _(
                "{who} has no calm points left to push ({calm} 0)",
                who=hero.name,
                calm=model.translate(model.CALM),
            ),
            fix=DropOption(system="d20", text=_("roll without pushing"), inputs=("push",)),
        )


def push_calm(hero: Hero, push: bool) -> int | None:
    """Calm points after pushing (1 PC spent), or None when not pushed."""
    return hero.calm - 1 if push else None


def roll_for(
    dice: Dice,
    hero: Hero,
    modifier: int,
    target: int,
    *,
    adv: bool = False,
    dis: bool = False,
    push: bool = False,
    physical: bool = False,
    extra_adv: int = 0,
    extra_dis: int = 0,
) -> D20Roll:
    """Roll a d20 for ``hero``: advantage when asked for or pushed, disadvantage
    when asked for or when overloaded on a physical action."""
    check_push(hero, push, adv or extra_adv > 0)
    advantages = int(adv) + int(push) + extra_adv
    disadvantages = int(dis) + int(physical and hero.overloaded) + extra_dis
    return roll_d20(dice, modifier, target, mode_of(advantages, disadvantages))
