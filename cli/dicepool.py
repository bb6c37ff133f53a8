"""``ledger dicepool ...``: tests, attacks, dodges, resistance, initiative, the exchange view."""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.options import (
    Ctx,
    common,
    emit,
    faces_option,
    pass_ctx,
    recorded_json,
    run_command,
    state_for,
    time_travel,
)
from ledger.cli.systems import SystemGroup
from ledger.errors import RuleError
from ledger.i18n import N_, Readings, _, n_, translate
from ledger.projections.dicepool.state import exchange_text, exchange_view
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Join, Resist, Test
from ledger.systems.dicepool.events import Roll, reason_text
from ledger.systems.dicepool.model import RANGE_NAMES, TRACK_NAMES, read

group = SystemGroup(
    "dicepool",
    short_help=_("The dicepool system: target numbers, pools, damage staging."),
    help=_("The dicepool system: d6 pools against target numbers, rule of six, combat pool, damage staging."),
)


GOALS = {
    "dicepool.dodged": N_("dodging clear"),
    "dicepool.resisted": N_("no wound"),
    "dicepool.attacked": N_("a hit"),
}


def _tn_line(kind: str, roll: Roll, tables: Any = None) -> str:
    steps = "".join(f" {m.value:+d} {reason_text(m.reason, tables)}" for m in roll.modifiers)
    floor = (
        _(" (floor 2)") if roll.tn == 2 and roll.base_tn + sum(m.value for m in roll.modifiers) < 2 else ""
    )
    need = n_("{n}+ success", "{n}+ successes", roll.needed)
    goal = _("{goal}, ", goal=translate(GOALS[kind])) if kind in GOALS else ""
    return _(
        "  TN {base}{steps} = {tn}{floor}; p({goal}{need}) = {p}",
        base=roll.base_tn,
        steps=steps,
        tn=roll.tn,
        floor=floor,
        goal=goal,
        need=need,
        p=f"{roll.p_success:.4f}",
    )


def _text(rec: Any) -> str:
    lines = []
    tables = getattr(getattr(rec.state, "core", None), "tables", None)
    for env in rec.envelopes:
        ev = env.event
        lines.append(ev.summary())
        roll = getattr(ev, "roll", None)
        if isinstance(roll, Roll):
            lines.append(_tn_line(ev.kind, roll, tables))
    return "\n".join(lines)


class WordChoice(click.Choice):
    """A choice of stable keys that also takes each key's name in either language
    (``--range medio`` is ``--range medium``); what the command gets is the key."""

    def __init__(self, names: Readings) -> None:
        super().__init__(list(names.terms))
        self.names = names

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = read(value, self.names) or value
        return super().convert(value, param, ctx)


dice_option = click.option(
    "--dice", type=int, default=None, metavar="N", help=_("Roll N dice instead of the computed pool size.")
)
pool_option = click.option("--pool", type=int, default=0, metavar="K", help=_("Combat pool dice to add."))
mod_option = click.option(
    "--mod",
    "mods",
    multiple=True,
    metavar="NAME|+N",
    help=_("A situational modifier from the table, or a number (repeatable)."),
)


@group.command(
    "join", help=_("Add a character NAME to the party, checking every --attr against the convention.")
)
@click.argument("name")
@click.option(
    "--attr",
    "attrs",
    multiple=True,
    metavar="KEY=VALUE",
    help=_(
        "body=4, quickness=5, skill.pistols=5, pool.combat=6, armor=2, weapon=ares_predator (repeatable)."
    ),
)
@common
@pass_ctx
def join(c: Ctx, name: str, attrs: tuple[str, ...]) -> None:
    """Add a character NAME to the party, checking every --attr against the convention."""
    parsed: dict[str, str] = {}
    for item in attrs:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RuleError(_("--attr {item!r} is not KEY=VALUE; e.g. --attr skill.pistols=5", item=item))
        parsed[key.strip()] = value.strip()
    rec = c.ledger.execute(Join(name=name, attrs=parsed), c.campaign)
    emit(c, recorded_json(rec), _("{who} joins {campaign!r}", who=name, campaign=rec.campaign.name))


@group.command(
    "test", help=_("Test SKILL (or an ATTRIBUTE) at --tn; defaults to a related skill or the attribute.")
)
@click.argument("skill")
@click.option("--tn", type=int, required=True, help=_("Target number set by the GM (never below 2)."))
@pool_option
@click.option(
    "--pool-name", default="combat", show_default=True, help=_("Which pool the --pool dice come from.")
)
@mod_option
@dice_option
@faces_option
@common
@pass_ctx
def test(
    c: Ctx,
    skill: str,
    tn: int,
    pool: int,
    pool_name: str,
    mods: tuple[str, ...],
    dice: int | None,
    faces: str | None,
) -> None:
    """Test SKILL (or an ATTRIBUTE) at --tn; defaults to a related skill or the attribute."""
    run_command(
        c, Test(skill=skill, tn=tn, pool=pool, pool_name=pool_name, mods=mods, dice=dice), faces, text=_text
    )


@group.command("attack", help=_("Attack: opens an exchange that the target dodges (optional) and resists."))
@click.option("--skill", default=None, help=_("Combat skill (default: the weapon's)."))
@pool_option
@click.option(
    "--range",
    "range_",
    type=WordChoice(RANGE_NAMES),
    default=None,
    help=_("Range class: short, medium, long, extreme (TN 4, 5, 6, 9)."),
)
@click.option(
    "--distance",
    type=int,
    default=None,
    metavar="METERS",
    help=_("Distance to the target: the range class comes from the weapon's range table."),
)
@click.option(
    "--scope", type=int, default=0, metavar="L", help=_("Scope level: moves the range class L closer.")
)
@mod_option
@click.option("--weapon", default=None, help=_("Weapon from the weapons table (default: the character's)."))
@click.option(
    "--target", default=None, metavar="CHARACTER", help=_("Who is attacked (they dodge and resist).")
)
@click.option(
    "--burst",
    type=int,
    default=1,
    metavar="ROUNDS",
    help=_("Rounds fired: +1 power per round, +1 wound level per 3, recoil."),
)
@click.option(
    "--damage", default=None, metavar="CODE", help=_("Damage code instead of the weapon's, e.g. 9L.")
)
@click.option("--melee", is_flag=True, help=_("A melee attack (TN 4, impact armor)."))
@dice_option
@faces_option
@common
@pass_ctx
def attack(
    c: Ctx,
    skill: str | None,
    pool: int,
    range_: str | None,
    distance: int | None,
    scope: int,
    mods: tuple[str, ...],
    weapon: str | None,
    target: str | None,
    burst: int,
    damage: str | None,
    melee: bool,
    dice: int | None,
    faces: str | None,
) -> None:
    """Attack: opens an exchange that the target dodges (optional) and resists."""
    run_command(
        c,
        Attack(
            skill=skill,
            pool=pool,
            range=range_,
            distance=distance,
            scope=scope,
            mods=mods,
            weapon=weapon,
            target=target,
            burst=burst,
            damage=damage,
            melee=melee,
            dice=dice,
        ),
        faces,
        text=_text,
    )


@group.command("dodge", help=_("Dodge the open attack: each success cancels one attacker success."))
@click.option("--pool", type=int, required=True, metavar="K", help=_("Combat pool dice to dodge with."))
@click.option(
    "--tn", type=int, default=4, show_default=True, help=_("Dodge target number (the GM may vary it).")
)
@dice_option
@faces_option
@common
@pass_ctx
def dodge(c: Ctx, pool: int, tn: int, dice: int | None, faces: str | None) -> None:
    """Dodge the open attack: each success cancels one attacker success."""
    run_command(c, Dodge(pool=pool, tn=tn, dice=dice), faces, text=_text)


@group.command(
    "resist", help=_("Resist damage with Body + pool at TN = power - armor; stages and marks the wound.")
)
@click.option(
    "--damage",
    default=None,
    metavar="CODE",
    help=_("Damage code, e.g. 9L (S suave 1 box, L leve 3, G grave 6, M mortal 10)."),
)
@click.option("--armor", type=int, default=None, help=_("Armor rating (default: the character's)."))
@pool_option
@click.option(
    "--against", type=int, default=None, metavar="N", help=_("Attacker successes, when no attack is open.")
)
@click.option("--stun", is_flag=True, help=_("Stun damage (the stun track)."))
@dice_option
@faces_option
@common
@pass_ctx
def resist(
    c: Ctx,
    damage: str | None,
    armor: int | None,
    pool: int,
    against: int | None,
    stun: bool,
    dice: int | None,
    faces: str | None,
) -> None:
    """Resist damage with Body + pool at TN = power - armor; stages and marks the wound."""
    run_command(
        c,
        Resist(damage=damage, armor=armor, pool=pool, against=against, stun=stun, dice=dice),
        faces,
        text=_text,
    )


@group.command(
    "initiative",
    help=_("Start a combat turn: Reaction + initiative dice (no rule of six); refresh every pool."),
)
@click.option(
    "--only", multiple=True, metavar="CHARACTER", help=_("Roll only for these characters (repeatable).")
)
@faces_option
@common
@pass_ctx
def initiative(c: Ctx, only: tuple[str, ...], faces: str | None) -> None:
    """Start a combat turn: Reaction + initiative dice (no rule of six); refresh every pool."""
    run_command(c, Initiative(only=only), faces, text=_text)


@group.command("heal", help=_("Clear boxes from the character's condition monitor."))
@click.option("--boxes", type=int, required=True, help=_("Boxes to clear."))
@click.option(
    "--track",
    type=WordChoice(TRACK_NAMES),
    default="physical",
    show_default=True,
    help=_("Which condition track."),
)
@click.option("--reason", default="", help=_("First aid, rest, a spell..."))
@common
@pass_ctx
def heal(c: Ctx, boxes: int, track: str, reason: str) -> None:
    """Clear boxes from the character's condition monitor."""
    run_command(c, Heal(boxes=boxes, track=track, reason=reason), text=_text)


@group.command(
    "exchange", help=_("Show the last exchange: attacker successes, dodged, resisted, staged wound.")
)
@time_travel
@common
@pass_ctx
def exchange(c: Ctx, at: int | None, day: int | None) -> None:
    """Show the last exchange: attacker successes, dodged, resisted, staged wound."""
    state = state_for(c, at, day)
    view = exchange_view(state.game.last if state.game is not None else None)
    emit(c, view, lambda: exchange_text(view) if view else _("no exchange yet"))


group.create = join
"""The dicepool creation command: `ledger character create` runs it (and `dicepool join`)."""


def register(cli: click.Group) -> None:
    """Add the dicepool system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
