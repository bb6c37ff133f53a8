"""``ledger yz ...``: the Mutant: Year Zero commands and views."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ledger.cli.options import (
    Ctx,
    common,
    emit,
    faces_option,
    pass_ctx,
    run_command,
    state_for,
    time_travel,
)
from ledger.cli.systems import SystemGroup
from ledger.errors import LedgerError
from ledger.i18n import N_, _
from ledger.projections.yearzero.views import render_rot, render_zone, rot_view, zone_view
from ledger.projections.yearzero.vocabulary import SLOTS
from ledger.systems.yearzero import commands as cmd


def helpers_option(text: str) -> Callable[[Any], Any]:
    """``--helpers/-H N``: people helping the roll (each rule says what they add)."""
    return click.option("--helpers", "-H", "helpers", type=int, default=0, metavar="N", help=text)


@click.group(
    "yz",
    cls=SystemGroup,
    short_help=N_("The yearzero system: pushes, trauma, Rot and the Zone."),
    help=N_(
        "Mutant: Year Zero: rolls and pushes, trauma, conditions, Rot and the Zone.\n\n"
        "Dice order for --faces: base, skill (or negative), gear; a push re-rolls in the same "
        "order; shield before armor; rot suit before the Rot roll; a critical injury (2d6) "
        "before the hours to get up (1d6)."
    ),
)
def group() -> None:
    """Mutant: Year Zero: rolls and pushes, trauma, conditions, Rot and the Zone."""


def _hours(text: str) -> int:
    try:
        hours = float(text)
    except ValueError:
        raise LedgerError(_("{text!r} is not a number of hours; e.g. 4 or 0.5", text=text)) from None
    minutes = round(hours * 60)
    if minutes != hours * 60:
        raise LedgerError(_("{text} hours is not a whole number of minutes; e.g. 1.5", text=text))
    return minutes


@group.command("character", help=N_("Create a character NAME with validated attributes, skills and gear."))
@click.argument("name")
@click.option("--strength", type=int, required=True, help=N_("Strength (Fortaleza)."))
@click.option("--agility", type=int, required=True, help=N_("Agility (Destreza)."))
@click.option("--wits", type=int, required=True, help=N_("Wits (Intelecto)."))
@click.option("--empathy", type=int, required=True, help=N_("Empathy (Empatía)."))
@click.option(
    "--skill", "skills", multiple=True, metavar="NAME=LEVEL", help=N_("A skill, e.g. shoot=2 (repeatable).")
)
@click.option(
    "--gear", "gear", multiple=True, metavar="NAME=BONUS", help=N_("Gear with its bonus (repeatable).")
)
@click.option("--armor", "armor", multiple=True, metavar="NAME=RATING", help=N_("Armor (repeatable)."))
@click.option("--shield", "shield", multiple=True, metavar="NAME=RATING", help=N_("A shield (repeatable)."))
@click.option("--suit", "suit", multiple=True, metavar="NAME=PROTECTION", help=N_("A rot suit (repeatable)."))
@common
@pass_ctx
def character(
    c: Ctx,
    name: str,
    strength: int,
    agility: int,
    wits: int,
    empathy: int,
    skills: tuple[str, ...],
    gear: tuple[str, ...],
    armor: tuple[str, ...],
    shield: tuple[str, ...],
    suit: tuple[str, ...],
) -> None:
    attrs = {"strength": str(strength), "agility": str(agility), "wits": str(wits), "empathy": str(empathy)}
    for prefix, items in (
        ("skill", skills),
        ("gear", gear),
        ("armor", armor),
        ("shield", shield),
        ("suit", suit),
    ):
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise LedgerError(
                    _(
                        "--{prefix} {item!r} is not NAME=VALUE; e.g. --{prefix} rifle=2",
                        prefix=prefix,
                        item=item,
                    )
                )
            attrs[f"{prefix}.{key.strip()}"] = value.strip()
    run_command(c, cmd.CreateCharacter(name=name, attrs=attrs))


@group.command("roll", help=N_("Roll a skill or an attribute: base, skill and gear dice; a 6 is a success."))
@click.argument("what", metavar="SKILL|ATTRIBUTE")
@click.option(
    "--base", type=int, default=None, help=N_("Base dice (default: the attribute's current value).")
)
@click.option("--skill", type=int, default=None, help=N_("Skill dice (default: the skill level)."))
@click.option("--gear", type=int, default=None, help=N_("Gear dice, without naming an item."))
@click.option(
    "--item", default=None, help=N_("Use this item: its bonus is the gear dice, and a push can damage it.")
)
@helpers_option(N_("People helping: +1 skill die each, at most 3."))
@click.option(
    "--mod", "modifier", type=int, default=0, help=N_("Other modifier to skill dice (negative ones allowed).")
)
@faces_option
@common
@pass_ctx
def roll(
    c: Ctx,
    what: str,
    base: int | None,
    skill: int | None,
    gear: int | None,
    item: str | None,
    helpers: int,
    modifier: int,
    faces: str | None,
) -> None:
    run_command(
        c,
        cmd.Roll(what=what, base=base, skill=skill, gear=gear, item=item, helpers=helpers, modifier=modifier),
        faces,
    )


@group.command(
    "push", help=N_("Push your own last roll once: re-roll what is not a 6 (nor a 1 on base and gear dice).")
)
@faces_option
@common
@pass_ctx
def push(c: Ctx, faces: str | None) -> None:
    run_command(c, cmd.Push(), faces)


@group.command("damage", help=N_("Suffer AMOUNT trauma of KIND; damage rolls the shield, then the armor."))
@click.argument("kind", metavar="{confusion|damage|doubt|fatigue}")
@click.argument("amount", type=int)
@click.option("--no-armor", is_flag=True, help=N_("Armor and shield do not roll (falls, Rot, hunger...)."))
@faces_option
@common
@pass_ctx
def damage(c: Ctx, kind: str, amount: int, no_armor: bool, faces: str | None) -> None:
    run_command(c, cmd.Damage(kind=kind, amount=amount, armor=not no_armor), faces)


@group.command("armor", help=N_("Wear the armor, shield or rot suit ITEM (or take one off with --off)."))
@click.argument("item", required=False)
@click.option("--off", type=click.Choice(SLOTS), default=None, help=N_("Take off the armor, shield or suit."))
@common
@pass_ctx
def armor(c: Ctx, item: str | None, off: str | None) -> None:
    run_command(c, cmd.Wear(item=item, off=off))


@group.command(
    "eat", help=N_("Eat a ration of grub: the daily ration first, then one for recovering Strength.")
)
@click.option("--contaminated", is_flag=True, help=N_("The grub carries Rot: one Rot point."))
@click.option("--all", "everyone", is_flag=True, help=N_("Every living character eats a ration."))
@faces_option
@common
@pass_ctx
def eat(c: Ctx, contaminated: bool, everyone: bool, faces: str | None) -> None:
    run_command(c, cmd.Eat(contaminated=contaminated, everyone=everyone), faces)


@group.command(
    "drink", help=N_("Drink a ration of water: the daily ration first, then one for recovering Agility.")
)
@click.option("--contaminated", is_flag=True, help=N_("The water carries Rot: one Rot point."))
@click.option("--all", "everyone", is_flag=True, help=N_("Every living character drinks a ration."))
@faces_option
@common
@pass_ctx
def drink(c: Ctx, contaminated: bool, everyone: bool, faces: str | None) -> None:
    run_command(c, cmd.Drink(contaminated=contaminated, everyone=everyone), faces)


@group.command("sleep", help=N_("The party sleeps HOURS (4+ for the daily need; 4 more recover Wits)."))
@click.argument("hours", type=int)
@click.option(
    "--watch", multiple=True, metavar="NAME", help=N_("This character keeps watch and does not sleep.")
)
@faces_option
@common
@pass_ctx
def sleep(c: Ctx, hours: int, watch: tuple[str, ...], faces: str | None) -> None:
    run_command(c, cmd.Sleep(hours=hours, watch=watch), faces)


@group.command(
    "rest", help=N_("The party rests HOURS without sleeping; 4+ hours recover with the resources taken.")
)
@click.argument("hours", type=int)
@click.option(
    "--intimacy",
    multiple=True,
    metavar="NAME",
    help=N_("Two or more characters share a moment of intimacy (recovers Empathy)."),
)
@faces_option
@common
@pass_ctx
def rest(c: Ctx, hours: int, intimacy: tuple[str, ...], faces: str | None) -> None:
    run_command(c, cmd.Rest(hours=hours, intimacy=intimacy), faces)


@group.command(
    "booze", help=N_("A dose of booze: heals 1 damage and 1 doubt for 1d6 hours, causes 1 confusion.")
)
@faces_option
@common
@pass_ctx
def booze(c: Ctx, faces: str | None) -> None:
    run_command(c, cmd.Booze(), faces)


@group.command(
    "rot",
    help=N_(
        "Gain POINTS Rot points (each rolls base dice equal to total Rot); without POINTS, show the Rot."
    ),
)
@click.argument("points", type=int, required=False)
@click.option("--source", default="exposure", help=N_("Where the Rot came from."))
@faces_option
@time_travel
@common
@pass_ctx
def rot(c: Ctx, points: int | None, source: str, faces: str | None, at: int | None, day: int | None) -> None:
    if points is not None:
        run_command(c, cmd.Rot(points=points, source=source), faces)
        return
    data = rot_view(state_for(c, at, day).game)
    emit(c, data, lambda: render_rot(data))


@group.command("enter", help=N_("Move the party into a neighbouring SECTOR (diagonals allowed)."))
@click.argument("sector")
@click.option(
    "--rot-level", type=int, default=None, help=N_("The sector's Rot level (else rolled on the table).")
)
@click.option("--vehicle", is_flag=True, help=N_("By vehicle: an explored sector takes 30 minutes."))
@faces_option
@common
@pass_ctx
def enter(c: Ctx, sector: str, rot_level: int | None, vehicle: bool, faces: str | None) -> None:
    run_command(c, cmd.Enter(sector=sector, rot_level=rot_level, vehicle=vehicle), faces)


@group.command("explore", help=N_("Explore the party's sector: 4 hours, doubled at night."))
@click.option("--hurry", is_flag=True, help=N_("A quarter of the time, no threats, no finds."))
@click.option("--stunt", is_flag=True, help=N_("The Stalker's stunt halves the time."))
@click.option(
    "--terrain",
    type=click.Choice(sorted(cmd.TERRAIN)),
    default="typical",
    help=N_("open (half the time), typical (4 hours), difficult (double)."),
)
@faces_option
@common
@pass_ctx
def explore(c: Ctx, hurry: bool, stunt: bool, terrain: str, faces: str | None) -> None:
    run_command(c, cmd.Explore(hurry=hurry, stunt=stunt, terrain=terrain), faces)


@group.command(
    "wash", help=N_("Wash with clean water in a Rot-free place: half the Rot goes (once per return).")
)
@faces_option
@common
@pass_ctx
def wash(c: Ctx, faces: str | None) -> None:
    run_command(c, cmd.Wash(), faces)


@group.command(
    "repair", help=N_("Repair ITEM: two hours and a Jury-Rig roll; failure fixes the bonus for good.")
)
@click.argument("item")
@click.option("--gear", type=int, default=None, help=N_("Gear dice from tools."))
@click.option("--tool", default=None, help=N_("Use this item of the repairer as gear."))
@helpers_option(N_("People helping (not allowed: Jury-Rig is a specialist skill)."))
@click.option("--mod", "modifier", type=int, default=0, help=N_("Modifier to skill dice."))
@faces_option
@common
@pass_ctx
def repair(
    c: Ctx, item: str, gear: int | None, tool: str | None, helpers: int, modifier: int, faces: str | None
) -> None:
    run_command(c, cmd.Repair(item=item, gear=gear, tool=tool, helpers=helpers, modifier=modifier), faces)


@group.command("critical", help=N_("Roll a critical injury (2d6 on the table) for the character."))
@faces_option
@common
@pass_ctx
def critical(c: Ctx, faces: str | None) -> None:
    run_command(c, cmd.Critical(), faces)


@group.command(
    "heal",
    help=N_("Roll Heal on TARGET: save a life, get them up, or halve a critical injury's healing time."),
)
@click.argument("target")
@click.option("--gear", type=int, default=None, help=N_("Gear dice (a medkit)."))
@click.option("--item", default=None, help=N_("Use this item as gear."))
@helpers_option(N_("People helping: +1 skill die each, at most 3."))
@click.option("--mod", "modifier", type=int, default=0, help=N_("Modifier to skill dice."))
@faces_option
@common
@pass_ctx
def heal(
    c: Ctx, target: str, gear: int | None, item: str | None, helpers: int, modifier: int, faces: str | None
) -> None:
    run_command(c, cmd.Heal(target=target, gear=gear, item=item, helpers=helpers, modifier=modifier), faces)


@group.command("cold", help=N_("Roll Endure against the cold; failing makes the character hypothermic."))
@click.option("--gear", type=int, default=None, help=N_("Gear dice from warm clothes."))
@click.option("--item", default=None, help=N_("Use this item as gear."))
@faces_option
@common
@pass_ctx
def cold(c: Ctx, gear: int | None, item: str | None, faces: str | None) -> None:
    run_command(c, cmd.Cold(gear=gear, item=item), faces)


@group.command("warm", help=N_("The character is warm again: hypothermia ends."))
@click.option("--all", "everyone", is_flag=True, help=N_("Everyone gets warm (a fire)."))
@common
@pass_ctx
def warm(c: Ctx, everyone: bool) -> None:
    run_command(c, cmd.Warm(everyone=everyone))


@group.command("initiative", help=N_("Roll initiative: 1d6 plus current Agility (cannot be pushed)."))
@click.option("--ambush", is_flag=True, help=N_("Attacking by surprise: +3."))
@faces_option
@common
@pass_ctx
def initiative(c: Ctx, ambush: bool, faces: str | None) -> None:
    run_command(c, cmd.Initiative(ambush=ambush), faces)


@group.command(
    "tick", help=N_("Let HOURS pass (6, or 0.5 for half an hour): day ends, booze, deadlines, Rot.")
)
@click.argument("hours")
@faces_option
@common
@pass_ctx
def tick(c: Ctx, hours: str, faces: str | None) -> None:
    run_command(c, cmd.Tick(minutes=_hours(hours)), faces)


@group.command("zone", help=N_("The Zone map: sectors visited and explored, Rot levels, where the party is."))
@time_travel
@common
@pass_ctx
def zone(c: Ctx, at: int | None, day: int | None) -> None:
    data = zone_view(state_for(c, at, day).game)
    emit(c, data, lambda: render_zone(data))


group.create = character
"""The Year Zero creation command: `ledger character create` runs it (and `yz character`)."""


def register(cli: click.Group) -> None:
    """Add the yearzero system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
