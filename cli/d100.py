"""``ledger d100 ...``: the percentile system's commands.

A d100 roll is ONE face from 1 to 100: ``--faces 47`` records a physical 47
(00 on the percentile dice is 100). Healing dice follow the skill roll:
``ledger d100 heal firstaid --faces 12,3`` is a 12 on Primeros auxilios, then
a 3 on the 1d3.
"""

from __future__ import annotations

import re
from typing import Any

import click

from ledger.cli.options import Ctx, common, emit, faces_option, pass_ctx, run_command
from ledger.cli.systems import SystemGroup
from ledger.errors import LedgerError
from ledger.i18n import N_, _
from ledger.systems.d100 import commands as cmd
from ledger.systems.d100 import events as ev
from ledger.systems.d100 import model, roll

LEVELS = ["success", "special", "critical"]


@click.group(
    "d100",
    cls=SystemGroup,
    short_help=N_("The d100 system: percentile skills, luck, hit/valor/fatigue points."),
    help=N_(
        "The d100 system: percentile tests, luck, hit/valor/fatigue points, combat rounds.\n"
        "\n"
        "Characters join with `ledger d100 character NAME TAM=12 ... skill.Trepar=40`\n"
        "(validated) or `ledger character add NAME --attr TAM=12 ...`."
    ),
)
def group() -> None:
    pass


def _line(event: Any) -> str:
    if isinstance(event, ev.Tested):
        target = _("{skill} target {target}", skill=model.tested(event.skill), target=event.target)
        if event.modifiers:
            target = f"{target} ({', '.join(model.modifier(m) for m in event.modifiers)})"
        return _(
            "{who}: {tested}: rolled {face} -> {level}  [critical <={critical}, special <={special}, "
            "fumble >={fumble}; p(success) {p:.2f}]",
            who=event.who,
            tested=target,
            face=event.face,
            level=model.level(event.level).upper(),
            critical=event.critical_at,
            special=event.special_at,
            fumble=event.fumble_at,
            p=event.p_success,
        )
    return str(event.summary())


def _text(rec: Any) -> str:
    return "\n".join(_line(e) for e in rec.events)


luck_option = click.option(
    "--luck",
    "use_luck",
    is_flag=True,
    help=N_("Luck declared before rolling: a failure is bought (roll - target) if affordable."),
)
"""``--luck`` on every roll that may spend luck."""


@group.command(
    "character",
    help=N_(
        "Create character NAME: TAM= CON= FUE= INT= EDU= DES= CAR= POD=, skill.NAME=N,\nand optionally hp= valor= fatigue= luck= instead of the derived values."
    ),
)
@click.argument("name")
@click.argument("values", nargs=-1, metavar="KEY=VALUE...")
@common
@pass_ctx
def character(c: Ctx, name: str, values: tuple[str, ...]) -> None:
    chars: dict[str, int] = {}
    skills: dict[str, int] = {}
    points: dict[str, int] = {}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not re.fullmatch(r"-?\d{1,4}", raw.strip()):
            raise LedgerError(_("{item!r} is not KEY=NUMBER; e.g. DES=12 or skill.Trepar=40", item=item))
        value = int(raw)
        if key.lower().startswith("skill."):
            skills[key[6:].replace("_", " ").strip()] = value
        elif key.lower() in ("hp", "valor", "fatigue", "luck"):
            points[key.lower()] = value
        else:
            chars[model.characteristic_key(key.strip()) or key.strip().upper()] = value
    run_command(
        c, cmd.CreateCharacter(name=name, characteristics=chars, skills=skills, points=points), text=_text
    )


@group.command(
    "test",
    help=N_("Roll d100 under SKILL (a skill, Idea/Resistencia/..., or a characteristic with --times)."),
)
@click.argument("skill")
@click.option(
    "--target", type=int, default=None, help=N_("The director's target instead of the skill value.")
)
@click.option("--double", is_flag=True, help=N_("Easy: the target is doubled."))
@click.option("--half", is_flag=True, help=N_("Hard: the target is halved (rounded up)."))
@click.option(
    "--times",
    type=int,
    default=None,
    help=N_("Test a characteristic (TAM...POD) times N; a luck test is `POD --times 4`."),
)
@click.option(
    "--attack",
    type=click.Choice(["melee", "ranged"]),
    default=None,
    help=N_("The roll is an attack (ranged attacks use the DES given up with `steady`)."),
)
@click.option("--aimed", is_flag=True, help=N_("Aimed attack: half target unless the character aimed first."))
@luck_option
@faces_option
@common
@pass_ctx
def test(
    c: Ctx,
    skill: str,
    target: int | None,
    double: bool,
    half: bool,
    times: int | None,
    attack: str | None,
    aimed: bool,
    use_luck: bool,
    faces: str | None,
) -> None:
    run_command(
        c,
        cmd.Test(
            skill=skill,
            target=target,
            double=double,
            half=half,
            times=times,
            attack=attack,
            aimed=aimed,
            luck=use_luck,
        ),
        faces,
        text=_text,
    )


@group.command("luck", help=N_("Spend luck (roll minus target) to turn the last failed roll into a success."))
@common
@pass_ctx
def luck(c: Ctx) -> None:
    run_command(c, cmd.SpendLuck(), text=_text)


@group.command("refund", help=N_("The director returns the luck last spent (the roll was not needed)."))
@common
@pass_ctx
def refund(c: Ctx) -> None:
    run_command(c, cmd.RefundLuck(), text=_text)


@group.command(
    "award", help=N_("The director gives POINTS luck (between adventures, at milestones, as a reward).")
)
@click.argument("points", type=int)
@click.option("--reason", default="", help=N_("Why (a milestone, the end of an adventure...)."))
@common
@pass_ctx
def award(c: Ctx, points: int, reason: str) -> None:
    run_command(c, cmd.AwardLuck(points=points, reason=reason), text=_text)


@group.command("damage", help=N_("The character loses AMOUNT hit points (one wound)."))
@click.argument("amount", type=int)
@click.option("--cause", default="wound", help=N_("What caused the wound."))
@common
@pass_ctx
def damage(c: Ctx, amount: int, cause: str) -> None:
    run_command(c, cmd.Damage(amount=amount, cause=cause), text=_text)


@group.command(
    "heal",
    help=N_("First aid (1d3, once per wound) or medicine (1d6, once a week): skill roll, then the die."),
)
@click.argument("method", type=click.Choice(["firstaid", "medicine"]))
@click.option("--patient", default=None, help=N_("Who is treated (default: the acting character)."))
@click.option("--wound", type=int, default=None, help=N_("Wound number for first aid (default: the latest)."))
@luck_option
@faces_option
@common
@pass_ctx
def heal(
    c: Ctx, method: str, patient: str | None, wound: int | None, use_luck: bool, faces: str | None
) -> None:
    run_command(c, cmd.Heal(method=method, patient=patient, wound=wound, luck=use_luck), faces, text=_text)


@group.command("horror", help=N_("The character loses AMOUNT valor points; at 0, panic."))
@click.argument("amount", type=int)
@click.option("--cause", default="horror", help=N_("What the character witnessed."))
@common
@pass_ctx
def horror(c: Ctx, amount: int, cause: str) -> None:
    run_command(c, cmd.Horror(amount=amount, cause=cause), text=_text)


@group.command("therapy", help=N_("Psychotherapy: skill roll, then 1d6 valor back; once a day per patient."))
@click.option("--patient", default=None, help=N_("Who is treated (default: the acting character)."))
@luck_option
@faces_option
@common
@pass_ctx
def therapy(c: Ctx, patient: str | None, use_luck: bool, faces: str | None) -> None:
    run_command(c, cmd.Therapy(patient=patient, luck=use_luck), faces, text=_text)


@group.command("fatigue", help=N_("The character loses AMOUNT fatigue points; at 0, exhausted."))
@click.argument("amount", type=int)
@click.option("--cause", default="exertion", help=N_("Running, lifting, a fatiguing attack..."))
@common
@pass_ctx
def fatigue(c: Ctx, amount: int, cause: str) -> None:
    run_command(c, cmd.Fatigue(amount=amount, cause=cause), text=_text)


def _minutes(text: str) -> int:
    m = re.fullmatch(r"\s*(\d{1,6})\s*(m|min|h|d|w)?\s*", text.lower())
    if not m:
        raise LedgerError(
            _("rest time {text!r} is not understood; use minutes (90) or 2h, 3d, 1w", text=text)
        )
    unit = {"m": 1, "min": 1, None: 1, "h": 60, "d": 1440, "w": 10080}[m.group(2)]
    return int(m.group(1)) * unit


@group.command(
    "rest",
    help=N_(
        "Rest TIME (minutes, or 2h, 3d, 1w): game time passes and any combat ends.\n\n1 fatigue per 15 minutes; valor per full day; hit points per full week."
    ),
)
@click.argument("time")
@click.option("--all", "everyone", is_flag=True, help=N_("The whole party rests (default: the actor)."))
@faces_option
@common
@pass_ctx
def rest(c: Ctx, time: str, everyone: bool, faces: str | None) -> None:
    run_command(c, cmd.Rest(minutes=_minutes(time), everyone=everyone), faces, text=_text)


@group.command(
    "round",
    help=N_(
        "Declare the character's intentions for a combat round (costs 1 fatigue).\n\nActions by DES: 6-10 two, 11-15 three, 16-18 four; one attack per round."
    ),
)
@click.option("--run", "option", flag_value="run", help=N_("Run at most (30 m): no actions."))
@click.option(
    "--half-run", "option", flag_value="half-run", help=N_("Run half: one action (DES 10-) or two (DES 11+).")
)
@click.option(
    "--act",
    "actions",
    multiple=True,
    metavar="ACTION",
    help=N_("An action (a skill, Apuntar, Salir...); repeatable."),
)
@click.option(
    "--attack", "attacks", multiple=True, metavar="SKILL", help=N_("An attack with SKILL; repeatable.")
)
@click.option(
    "--defend",
    metavar="esquivar|bloquear",
    default=None,
    help=N_("How the character defends."),
)
@click.option("--multi-attack-weapon", is_flag=True, help=N_("The weapon allows several attacks a round."))
@common
@pass_ctx
def round_(
    c: Ctx,
    option: str | None,
    actions: tuple[str, ...],
    attacks: tuple[str, ...],
    defend: str | None,
    multi_attack_weapon: bool,
) -> None:
    run_command(
        c,
        cmd.DeclareRound(
            option=option or "actions",
            actions=actions,
            attacks=attacks,
            defense=defend,
            multi_attack_weapon=multi_attack_weapon,
        ),
        text=_text,
    )


@group.command(
    "aim", help=N_("Use the declared Apuntar action: the next aimed attack is at its normal target.")
)
@common
@pass_ctx
def aim(c: Ctx) -> None:
    run_command(c, cmd.Aim(), text=_text)


@group.command(
    "steady",
    help=N_("Give up POINTS of DES for +10 each on the next ranged attack (lost if attacked first)."),
)
@click.argument("points", type=int)
@common
@pass_ctx
def steady(c: Ctx, points: int) -> None:
    run_command(c, cmd.Steady(points=points), text=_text)


@group.command("dodge", help=N_("Roll Esquivar: an equal or better success level cancels the melee attack."))
@click.option(
    "--against",
    type=click.Choice(LEVELS),
    default=None,
    help=N_("Success level of the attack (default: the last melee attack recorded)."),
)
@luck_option
@faces_option
@common
@pass_ctx
def dodge(c: Ctx, against: str | None, use_luck: bool, faces: str | None) -> None:
    run_command(c, cmd.Dodge(against=against, luck=use_luck), faces, text=_text)


@group.command("endcombat", help=N_("End the combat (resting also ends it)."))
@common
@pass_ctx
def endcombat(c: Ctx) -> None:
    run_command(c, cmd.EndCombat(), text=_text)


@group.command("odds", help=N_("Exact chances of each success level for TARGET (no campaign needed)."))
@click.argument("target", type=int)
@click.option(
    "--skill", type=int, default=None, help=N_("Skill points for the fumble value (default: TARGET).")
)
@common
@pass_ctx
def odds(c: Ctx, target: int, skill: int | None) -> None:
    counts = roll.chances(target, target if skill is None else skill)
    data = {
        "target": target,
        "skill": target if skill is None else skill,
        "faces": counts,
        "p_success": roll.p_success(target, target if skill is None else skill),
    }
    emit(
        c,
        data,
        lambda: _(
            "{levels}  (success {p:.2f})",
            levels="  ".join(f"{model.level(k)} {v}%" for k, v in reversed(counts.items())),
            p=data["p_success"],
        ),
    )


group.create = character
"""The d100 creation command: `ledger character create` runs it (and `d100 character`)."""


def register(cli: click.Group) -> None:
    """Add the d100 system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
