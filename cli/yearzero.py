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
from ledger.projections.yearzero.views import render_rot, render_zone, rot_view, zone_view
from ledger.projections.yearzero.vocabulary import SLOTS, TRAUMA
from ledger.systems.yearzero import commands as cmd


def helpers_option(text: str) -> Callable[[Any], Any]:
    """``--helpers/-H N``: people helping the roll (each rule says what they add)."""
    return click.option("--helpers", "-H", "helpers", type=int, default=0, metavar="N", help=text)


@click.group("yz", cls=SystemGroup, short_help="The yearzero system: pushes, trauma, Rot and the Zone.")
def group() -> None:
    """Mutant: Year Zero: rolls and pushes, trauma, conditions, Rot and the Zone.

    Dice order for --faces: base, skill (or negative), gear; a push re-rolls in
    the same order; shield before armor; rot suit before the Rot roll; a
    critical injury (2d6) before the hours to get up (1d6).
    """


def _hours(text: str) -> int:
    try:
        hours = float(text)
    except ValueError:
        raise LedgerError(f"{text!r} is not a number of hours; e.g. 4 or 0.5") from None
    minutes = round(hours * 60)
    if minutes != hours * 60:
        raise LedgerError(f"{text} hours is not a whole number of minutes; e.g. 1.5")
    return minutes


@group.command("character")
@click.argument("name")
@click.option("--strength", type=int, required=True, help="Strength (Fortaleza).")
@click.option("--agility", type=int, required=True, help="Agility (Destreza).")
@click.option("--wits", type=int, required=True, help="Wits (Intelecto).")
@click.option("--empathy", type=int, required=True, help="Empathy (Empatía).")
@click.option(
    "--skill", "skills", multiple=True, metavar="NAME=LEVEL", help="A skill, e.g. shoot=2 (repeatable)."
)
@click.option("--gear", "gear", multiple=True, metavar="NAME=BONUS", help="Gear with its bonus (repeatable).")
@click.option("--armor", "armor", multiple=True, metavar="NAME=RATING", help="Armor (repeatable).")
@click.option("--shield", "shield", multiple=True, metavar="NAME=RATING", help="A shield (repeatable).")
@click.option("--suit", "suit", multiple=True, metavar="NAME=PROTECTION", help="A rot suit (repeatable).")
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
    """Create a character NAME with validated attributes, skills and gear."""
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
                raise LedgerError(f"--{prefix} {item!r} is not NAME=VALUE; e.g. --{prefix} rifle=2")
            attrs[f"{prefix}.{key.strip()}"] = value.strip()
    run_command(c, cmd.CreateCharacter(name=name, attrs=attrs))


@group.command("roll")
@click.argument("what", metavar="SKILL|ATTRIBUTE")
@click.option("--base", type=int, default=None, help="Base dice (default: the attribute's current value).")
@click.option("--skill", type=int, default=None, help="Skill dice (default: the skill level).")
@click.option("--gear", type=int, default=None, help="Gear dice, without naming an item.")
@click.option(
    "--item", default=None, help="Use this item: its bonus is the gear dice, and a push can damage it."
)
@helpers_option("People helping: +1 skill die each, at most 3.")
@click.option(
    "--mod", "modifier", type=int, default=0, help="Other modifier to skill dice (negative ones allowed)."
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
    """Roll a skill or an attribute: base, skill and gear dice; a 6 is a success."""
    run_command(
        c,
        cmd.Roll(what=what, base=base, skill=skill, gear=gear, item=item, helpers=helpers, modifier=modifier),
        faces,
    )


@group.command("push")
@faces_option
@common
@pass_ctx
def push(c: Ctx, faces: str | None) -> None:
    """Push your own last roll once: re-roll what is not a 6 (nor a 1 on base and gear dice)."""
    run_command(c, cmd.Push(), faces)


@group.command("damage")
@click.argument("kind", type=click.Choice(sorted(TRAUMA)))
@click.argument("amount", type=int)
@click.option("--no-armor", is_flag=True, help="Armor and shield do not roll (falls, Rot, hunger...).")
@faces_option
@common
@pass_ctx
def damage(c: Ctx, kind: str, amount: int, no_armor: bool, faces: str | None) -> None:
    """Suffer AMOUNT trauma of KIND; damage rolls the shield, then the armor."""
    run_command(c, cmd.Damage(kind=kind, amount=amount, armor=not no_armor), faces)


@group.command("armor")
@click.argument("item", required=False)
@click.option("--off", type=click.Choice(SLOTS), default=None, help="Take off the armor, shield or suit.")
@common
@pass_ctx
def armor(c: Ctx, item: str | None, off: str | None) -> None:
    """Wear the armor, shield or rot suit ITEM (or take one off with --off)."""
    run_command(c, cmd.Wear(item=item, off=off))


@group.command("eat")
@click.option("--contaminated", is_flag=True, help="The grub carries Rot: one Rot point.")
@click.option("--all", "everyone", is_flag=True, help="Every living character eats a ration.")
@faces_option
@common
@pass_ctx
def eat(c: Ctx, contaminated: bool, everyone: bool, faces: str | None) -> None:
    """Eat a ration of grub: the daily ration first, then one for recovering Strength."""
    run_command(c, cmd.Eat(contaminated=contaminated, everyone=everyone), faces)


@group.command("drink")
@click.option("--contaminated", is_flag=True, help="The water carries Rot: one Rot point.")
@click.option("--all", "everyone", is_flag=True, help="Every living character drinks a ration.")
@faces_option
@common
@pass_ctx
def drink(c: Ctx, contaminated: bool, everyone: bool, faces: str | None) -> None:
    """Drink a ration of water: the daily ration first, then one for recovering Agility."""
    run_command(c, cmd.Drink(contaminated=contaminated, everyone=everyone), faces)


@group.command("sleep")
@click.argument("hours", type=int)
@click.option("--watch", multiple=True, metavar="NAME", help="This character keeps watch and does not sleep.")
@faces_option
@common
@pass_ctx
def sleep(c: Ctx, hours: int, watch: tuple[str, ...], faces: str | None) -> None:
    """The party sleeps HOURS (4+ for the daily need; 4 more recover Wits)."""
    run_command(c, cmd.Sleep(hours=hours, watch=watch), faces)


@group.command("rest")
@click.argument("hours", type=int)
@click.option(
    "--intimacy",
    multiple=True,
    metavar="NAME",
    help="Two or more characters share a moment of intimacy (recovers Empathy).",
)
@faces_option
@common
@pass_ctx
def rest(c: Ctx, hours: int, intimacy: tuple[str, ...], faces: str | None) -> None:
    """The party rests HOURS without sleeping; 4+ hours recover with the resources taken."""
    run_command(c, cmd.Rest(hours=hours, intimacy=intimacy), faces)


@group.command("booze")
@faces_option
@common
@pass_ctx
def booze(c: Ctx, faces: str | None) -> None:
    """A dose of booze: heals 1 damage and 1 doubt for 1d6 hours, causes 1 confusion."""
    run_command(c, cmd.Booze(), faces)


@group.command("rot")
@click.argument("points", type=int, required=False)
@click.option("--source", default="exposure", help="Where the Rot came from.")
@faces_option
@time_travel
@common
@pass_ctx
def rot(c: Ctx, points: int | None, source: str, faces: str | None, at: int | None, day: int | None) -> None:
    """Gain POINTS Rot points (each rolls base dice equal to total Rot); without POINTS, show the Rot."""
    if points is not None:
        run_command(c, cmd.Rot(points=points, source=source), faces)
        return
    data = rot_view(state_for(c, at, day).game)
    emit(c, data, lambda: render_rot(data))


@group.command("enter")
@click.argument("sector")
@click.option(
    "--rot-level", type=int, default=None, help="The sector's Rot level (else rolled on the table)."
)
@click.option("--vehicle", is_flag=True, help="By vehicle: an explored sector takes 30 minutes.")
@faces_option
@common
@pass_ctx
def enter(c: Ctx, sector: str, rot_level: int | None, vehicle: bool, faces: str | None) -> None:
    """Move the party into a neighbouring SECTOR (diagonals allowed)."""
    run_command(c, cmd.Enter(sector=sector, rot_level=rot_level, vehicle=vehicle), faces)


@group.command("explore")
@click.option("--hurry", is_flag=True, help="A quarter of the time, no threats, no finds.")
@click.option("--stunt", is_flag=True, help="The Stalker's stunt halves the time.")
@click.option(
    "--terrain",
    type=click.Choice(sorted(cmd.TERRAIN)),
    default="typical",
    help="open (half the time), typical (4 hours), difficult (double).",
)
@faces_option
@common
@pass_ctx
def explore(c: Ctx, hurry: bool, stunt: bool, terrain: str, faces: str | None) -> None:
    """Explore the party's sector: 4 hours, doubled at night."""
    run_command(c, cmd.Explore(hurry=hurry, stunt=stunt, terrain=terrain), faces)


@group.command("wash")
@faces_option
@common
@pass_ctx
def wash(c: Ctx, faces: str | None) -> None:
    """Wash with clean water in a Rot-free place: half the Rot goes (once per return)."""
    run_command(c, cmd.Wash(), faces)


@group.command("repair")
@click.argument("item")
@click.option("--gear", type=int, default=None, help="Gear dice from tools.")
@click.option("--tool", default=None, help="Use this item of the repairer as gear.")
@helpers_option("People helping (not allowed: Jury-Rig is a specialist skill).")
@click.option("--mod", "modifier", type=int, default=0, help="Modifier to skill dice.")
@faces_option
@common
@pass_ctx
def repair(
    c: Ctx, item: str, gear: int | None, tool: str | None, helpers: int, modifier: int, faces: str | None
) -> None:
    """Repair ITEM: two hours and a Jury-Rig roll; failure fixes the bonus for good."""
    run_command(c, cmd.Repair(item=item, gear=gear, tool=tool, helpers=helpers, modifier=modifier), faces)


@group.command("critical")
@faces_option
@common
@pass_ctx
def critical(c: Ctx, faces: str | None) -> None:
    """Roll a critical injury (2d6 on the table) for the character."""
    run_command(c, cmd.Critical(), faces)


@group.command("heal")
@click.argument("target")
@click.option("--gear", type=int, default=None, help="Gear dice (a medkit).")
@click.option("--item", default=None, help="Use this item as gear.")
@helpers_option("People helping: +1 skill die each, at most 3.")
@click.option("--mod", "modifier", type=int, default=0, help="Modifier to skill dice.")
@faces_option
@common
@pass_ctx
def heal(
    c: Ctx, target: str, gear: int | None, item: str | None, helpers: int, modifier: int, faces: str | None
) -> None:
    """Roll Heal on TARGET: save a life, get them up, or halve a critical injury's healing time."""
    run_command(c, cmd.Heal(target=target, gear=gear, item=item, helpers=helpers, modifier=modifier), faces)


@group.command("cold")
@click.option("--gear", type=int, default=None, help="Gear dice from warm clothes.")
@click.option("--item", default=None, help="Use this item as gear.")
@faces_option
@common
@pass_ctx
def cold(c: Ctx, gear: int | None, item: str | None, faces: str | None) -> None:
    """Roll Endure against the cold; failing makes the character hypothermic."""
    run_command(c, cmd.Cold(gear=gear, item=item), faces)


@group.command("warm")
@click.option("--all", "everyone", is_flag=True, help="Everyone gets warm (a fire).")
@common
@pass_ctx
def warm(c: Ctx, everyone: bool) -> None:
    """The character is warm again: hypothermia ends."""
    run_command(c, cmd.Warm(everyone=everyone))


@group.command("initiative")
@click.option("--ambush", is_flag=True, help="Attacking by surprise: +3.")
@faces_option
@common
@pass_ctx
def initiative(c: Ctx, ambush: bool, faces: str | None) -> None:
    """Roll initiative: 1d6 plus current Agility (cannot be pushed)."""
    run_command(c, cmd.Initiative(ambush=ambush), faces)


@group.command("tick")
@click.argument("hours")
@faces_option
@common
@pass_ctx
def tick(c: Ctx, hours: str, faces: str | None) -> None:
    """Let HOURS pass (6, or 0.5 for half an hour): day ends, booze, deadlines, Rot."""
    run_command(c, cmd.Tick(minutes=_hours(hours)), faces)


@group.command("zone")
@time_travel
@common
@pass_ctx
def zone(c: Ctx, at: int | None, day: int | None) -> None:
    """The Zone map: sectors visited and explored, Rot levels, where the party is."""
    data = zone_view(state_for(c, at, day).game)
    emit(c, data, lambda: render_zone(data))


group.create = character
"""The Year Zero creation command: `ledger character create` runs it (and `yz character`)."""


def register(cli: click.Group) -> None:
    """Add the yearzero system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
