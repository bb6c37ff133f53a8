"""``ledger d20 ...``: the d20 system's commands (creation, checks, combat, stress) and its
part of ``ledger demo``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ledger.cli.options import Ctx, common, faces_option, pass_ctx, run_command
from ledger.cli.systems import SystemGroup
from ledger.errors import LedgerError
from ledger.i18n import N_, _, number, translate
from ledger.projections import sheets
from ledger.projections.d20.state import SHEET, sheet
from ledger.systems.d20.commands import (
    Assign,
    Attack,
    Carry,
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
from ledger.systems.d20.facts import facts
from ledger.systems.d20.model import HP
from ledger.systems.d20.tables import SAMPLES

MAIN, DARK = "demo-d20-derelict", "demo-d20-derelict-dark"
SHOWN = ("d20.attacked", "d20.unjammed", "d20.stressed", "d20.panicked", "d20.usage")


def _import(book: Any, name: str, file: str) -> None:
    if name not in {c.name for c in book.campaigns()}:
        with (SAMPLES / file).open("rb") as data:
            book.import_(data, name)


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """The d20's part of ``ledger demo``: the derelict-station sample and its fork (imported
    once), the commands that show them and what they print."""
    _import(book, MAIN, "campaign.jsonl")
    _import(book, DARK, "campaign-fork.jsonl")
    echo(f"  $ ledger import samples/d20/campaign.jsonl --name {MAIN}")
    echo(f"  $ ledger -c {MAIN} log   " + _("(combat and stress, abridged)"))
    for e in book.log(MAIN):
        if e.kind in SHOWN:
            echo(f"    v{e.version:<3} {e.summary}")
    echo(f"  $ ledger -c {MAIN} sheet --as Parker")
    for line in sheets.text(sheets.view(SHEET, sheet(book.state(MAIN), "Parker"))).splitlines():
        echo(f"    {line}")
    dark = sheet(book.state(DARK), "Parker")
    echo(f"  $ ledger -c {DARK} sheet --as Parker   " + _("(the branch where the queen strikes first)"))
    hp = _(
        "{hp_} {current}/{max}, alive: {alive}",
        hp_=translate(HP),
        current=dark["hp"]["current"],
        max=dark["hp"]["max"],
        alive=_("True") if dark["alive"] else _("False"),
    )
    echo(f"    {hp}")
    rolls = [
        f
        for env in book.effective(book.campaign(MAIN))
        for f in facts(env)
        if getattr(f, "p_success", None) is not None and f.purpose.startswith(("attack", "stress"))
    ]
    chances = ", ".join(f"{f.purpose} {number(f.p_success, decimals=2)}" for f in rolls)
    echo("  " + _("exact chances of success recorded with each roll: {chances}", chances=chances))


@click.group(
    "d20",
    cls=SystemGroup,
    short_help=N_("The d20 system: checks, calm points, usage dice, stress and panic."),
    demo=demo,
    help=N_("The d20 system: a crew in deep space, calm points, usage dice, autofire, panic."),
)
def group() -> None:
    pass


def _pairs(text: str | None) -> dict[str, int] | None:
    """``fue=14,des=12,...`` as a mapping."""
    if text is None:
        return None
    pairs: dict[str, int] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not value.strip().isdigit():
            raise LedgerError(
                _("--assign has {part!r}, not ATTR=VALUE; e.g. --assign fue=14,des=12,...", part=part)
            )
        pairs[key.strip()] = int(value)
    return pairs


def _names(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(p.strip() for p in text.split(",") if p.strip())


adv_options = [
    click.option("--adv", is_flag=True, help=N_("Advantage: roll 2d20, keep the higher.")),
    click.option("--dis", is_flag=True, help=N_("Disadvantage: roll 2d20, keep the lower.")),
]
push_option = click.option("--push", is_flag=True, help=N_("Spend 1 calm point (CP) for advantage."))


def rolls_d20(f: Any) -> Any:
    for option in reversed(adv_options):
        f = option(f)
    return push_option(f)


@group.command(
    "create", help=N_("Create character NAME (or the --as character): seven 3d6, the lowest dropped.")
)
@click.argument("name", required=False)
@click.option(
    "--assign",
    default=None,
    metavar="fue=N,des=N,...",
    help=N_("Place the six kept rolls on STR, DEX, CON, INT, WIS, CHA (default: in roll order)."),
)
@click.option("--class", "cls", default=None, help=N_("Class from the tables (default: the first listed)."))
@click.option(
    "--talents", default=None, metavar="A,B", help=N_("The two talents (default: the class's first two).")
)
@click.option(
    "--skills",
    default=None,
    metavar="A,B,C",
    help=N_("Three different skills, 1 point each (default: the class's suggested ones)."),
)
@faces_option
@common
@pass_ctx
def create(
    c: Ctx,
    name: str | None,
    assign: str | None,
    cls: str | None,
    talents: str | None,
    skills: str | None,
    faces: str | None,
) -> None:
    run_command(
        c,
        Create(name=name, assign=_pairs(assign), cls=cls, talents=_names(talents), skills=_names(skills)),
        faces,
    )


# `ledger character create` runs this command (and `d20 create`).


@group.command("assign", help=N_("Place the kept rolls anew (only before the character first acts)."))
@click.argument("values", metavar="fue=N,des=N,...")
@common
@pass_ctx
def assign(c: Ctx, values: str) -> None:
    run_command(c, Assign(assign=_pairs(values) or {}))


@group.command(
    "check", help=N_("Roll d20 + ATTRIBUTE modifier + skill against --dc (natural 20 succeeds, 1 fumbles).")
)
@click.argument("attribute", metavar="FUE|DES|CON|INT|SAB|CAR|STR|DEX|WIS|CHA")
@click.option(
    "--dc", required=True, metavar="N|NAME", help=N_("Difficulty: a number or a name (hard, very-hard...).")
)
@click.option("--skill", default=None, help=N_("Add this skill's point (if trained)."))
@click.option(
    "--ins", "instinct", is_flag=True, help=N_("An instinct (INS) check: add the INS bonus of the level.")
)
@rolls_d20
@faces_option
@common
@pass_ctx
def check(
    c: Ctx,
    attribute: str,
    dc: str,
    skill: str | None,
    instinct: bool,
    adv: bool,
    dis: bool,
    push: bool,
    faces: str | None,
) -> None:
    run_command(
        c,
        Check(attribute=attribute, dc=dc, skill=skill, instinct=instinct, adv=adv, dis=dis, push=push),
        faces,
    )


@group.command("initiative", help=N_("Roll initiative: d20 + WIS modifier (also ends being exposed)."))
@faces_option
@common
@pass_ctx
def initiative(c: Ctx, faces: str | None) -> None:
    run_command(c, RollInitiative(), faces)


@group.command(
    "usage", help=N_("Use RESOURCE: roll its usage die; 1-2 steps it down, past the d4 it is exhausted.")
)
@click.argument("resource")
@faces_option
@common
@pass_ctx
def usage(c: Ctx, resource: str, faces: str | None) -> None:
    run_command(c, Use(resource=resource), faces)


@group.command("supply", help=N_("Resupply (or add) RESOURCE with a fresh usage DIE."))
@click.argument("resource")
@click.argument("die", metavar="d12|d10|d8|d6|d4")
@common
@pass_ctx
def supply(c: Ctx, resource: str, die: str) -> None:
    run_command(c, Supply(resource=resource, die=die))


@group.command(
    "attack", help=N_("Attack a target: d20 + ATK (+STR melee, +DEX ranged) against its DEF, then damage.")
)
@click.option("--weapon", "-w", required=True, help=N_("Weapon from the tables (or unarmed)."))
@click.option("--def", "defense", type=int, required=True, help=N_("The target's DEF."))
@click.option(
    "--mode",
    type=click.Choice(["short", "long", "full"]),
    default=None,
    help=N_(
        "Automatic fire: short burst, long burst (advantage, ammo die down, 2x dice), "
        "full auto (advantage, magazine empty, 3x dice)."
    ),
)
@click.option(
    "--range",
    "band",
    type=click.Choice(["point-blank", "optimal", "extreme"]),
    default=None,
    help=N_("Range band: point-blank gives advantage, extreme disadvantage."),
)
@click.option("--distance", type=float, default=None, help=N_("Metres to the target (sets the range band)."))
@click.option(
    "--cover",
    type=click.Choice(["none", "partial", "total"]),
    default=None,
    help=N_("Target's cover: partial +4 DEF, total cannot be attacked."),
)
@click.option("--running", is_flag=True, help=N_("The target runs: +2 DEF."))
@click.option(
    "--split", type=int, default=1, help=N_("Covering fire: share the damage among this many targets.")
)
@rolls_d20
@faces_option
@common
@pass_ctx
def attack(
    c: Ctx,
    weapon: str,
    defense: int,
    mode: str | None,
    band: str | None,
    distance: float | None,
    cover: str | None,
    running: bool,
    split: int,
    adv: bool,
    dis: bool,
    push: bool,
    faces: str | None,
) -> None:
    run_command(
        c,
        Attack(
            weapon=weapon,
            defense=defense,
            mode=mode,
            range=band,
            distance=distance,
            cover=cover,
            running=running,
            split=split,
            adv=adv,
            dis=dis,
            push=push,
        ),
        faces,
    )


@group.command(
    "reload", help=N_("Reload a weapon emptied by full auto: a use of its ammunition (usage die).")
)
@click.option("--weapon", "-w", default=None, help=N_("The emptied weapon (default: the only one)."))
@faces_option
@common
@pass_ctx
def reload(c: Ctx, weapon: str | None, faces: str | None) -> None:
    run_command(c, Reload(weapon=weapon), faces)


@group.command("unjam", help=N_("Clear a jammed weapon: DEX + precision at 14+."))
@click.option("--weapon", "-w", default=None, help=N_("The jammed weapon (default: the only one)."))
@push_option
@faces_option
@common
@pass_ctx
def unjam(c: Ctx, weapon: str | None, push: bool, faces: str | None) -> None:
    run_command(c, Unjam(weapon=weapon, push=push), faces)


@group.command("damage", help=N_("Take AMOUNT damage: lose HP and 1 calm point; 0 HP is death."))
@click.argument("amount", type=int)
@click.option("--cause", default="wound", help=N_("What dealt the damage."))
@common
@pass_ctx
def damage(c: Ctx, amount: int, cause: str) -> None:
    run_command(c, TakeDamage(amount=amount, cause=cause))


@group.command("stress", help=N_("INS WIS check at DIFFICULTY; failing loses 1d4/1d6/1d8/1d10 calm points."))
@click.argument("difficulty", type=click.Choice(["11", "14", "17", "20"]))
@rolls_d20
@faces_option
@common
@pass_ctx
def stress(c: Ctx, difficulty: str, adv: bool, dis: bool, push: bool, faces: str | None) -> None:
    run_command(c, Stress(difficulty=int(difficulty), adv=adv, dis=dis, push=push), faces)


@group.command(
    "panic", help=N_("Roll on the panic table (due at 0 CP or a fumbled INS WIS), then recover 1d4 CP.")
)
@faces_option
@common
@pass_ctx
def panic(c: Ctx, faces: str | None) -> None:
    run_command(c, Panic(), faces)


@group.command(
    "rest", help=N_("A day of rest for the crew: HP (not synthetics) and CP back as many as the level.")
)
@common
@pass_ctx
def rest(c: Ctx) -> None:
    run_command(c, Rest())


@group.command(
    "heal", help=N_("First aid (INT + precision 14+) or, on a synthetic, repairs (INT + technology 14+).")
)
@click.option("--on", "target", default=None, help=N_("Who is treated (default: yourself)."))
@click.option("--kit", is_flag=True, help=N_("With a medkit or proper tools: 1d6 instead of 1d4."))
@push_option
@faces_option
@common
@pass_ctx
def heal(c: Ctx, target: str | None, kit: bool, push: bool, faces: str | None) -> None:
    run_command(c, Heal(target=target, kit=kit, push=push), faces)


@group.command(
    "therapy", help=N_("Six months of therapy for trauma number TRAUMA, then INS WIS at 17+ to recover.")
)
@click.argument("trauma", type=int, default=1)
@push_option
@faces_option
@common
@pass_ctx
def therapy(c: Ctx, trauma: int, push: bool, faces: str | None) -> None:
    run_command(c, Treat(trauma=trauma, push=push), faces)


@group.command("carry", help=N_("Pick up (or --drop) ITEMS; more objects than STR is overloaded."))
@click.argument("items", nargs=-1, required=True)
@click.option("--drop", is_flag=True, help=N_("Drop the items instead."))
@common
@pass_ctx
def carry(c: Ctx, items: tuple[str, ...], drop: bool) -> None:
    run_command(c, Carry(items=items, drop=drop))


group.create = create
"""The d20 creation command: `ledger character create` runs it (and `d20 create`)."""


def register(cli: click.Group) -> None:
    """Add the d20 system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
