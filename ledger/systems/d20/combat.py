"""d20 combat: attacks (melee, ranged, autofire), jams, reloads and wounds."""

from __future__ import annotations

from typing import Any

from ledger.deciding.decider import Draft
from ledger.dice.sources import Dice
from ledger.errors import DropOption, GiveOption, Input, RuleError
from ledger.i18n import _, n_
from ledger.projections.d20.state import D20State, Hero
from ledger.systems.d20 import model
from ledger.systems.d20.commands import Attack, Reload, TakeDamage, Unjam
from ledger.systems.d20.crew import game, hero_for, level_row, push_calm, roll_for, run, skill_points
from ledger.systems.d20.dice import step_down, usage_roll
from ledger.systems.d20.events import Attacked, D20Roll, Damaged, Reloaded, Unjammed
from ledger.text import check_text

MODES = ("short", "long", "full")
MULTIPLIER = {"single": 1, "short": 1, "long": 2, "full": 3}
"""Long burst: twice the damage dice; full auto: three times."""
RANGES = ("point-blank", "optimal", "extreme")
COVER_BONUS = {"partial": 4}
RUNNING_BONUS = 2
UNJAM_TARGET = 14
POINT_BLANK = 2
"""Metres: closer than this is point-blank."""


def weapon_key(state: Any, name: str) -> str:
    """The weapon's key, its name typed in either language (``rifle de pulsos``, ``pulse rifle``)."""
    weapons: dict[str, Any] = game(state).tables["weapons"]
    key = model.key_of(weapons, name, _("weapon"))
    if key is None:
        known = ", ".join(model.names(weapons))
        raise RuleError(_("unknown weapon {name!r}; use one of {known}", name=name, known=known))
    return key


def weapon_row(state: Any, hero: Hero, name: str) -> dict[str, Any]:
    weapons: dict[str, Any] = game(state).tables["weapons"]
    name = weapon_key(state, name)
    if name != "unarmed" and name not in hero.weapons:
        carried = ", ".join(model.names(hero.weapons)) or _("none")
        raise RuleError(
            _(
                "{who} does not carry a {weapon} (weapons: {carried})",
                who=hero.name,
                weapon=model.name(name),
                carried=carried,
            ),
            fix=run(_("pick it up with `carry`"), "carry", name),
        )
    return weapons[name]


def range_band(weapon: dict[str, Any], band: str | None, distance: float | None) -> str:
    """The range band given, or the one the distance in metres falls in."""
    if band is not None and distance is not None:
        raise RuleError(
            _("both a range band and a distance were given"),
            fix=DropOption(
                system="d20", text=_("give the range band or the distance"), inputs=("range", "distance")
            ),
        )
    if band is not None:
        if band not in RANGES:
            raise RuleError(
                _("unknown range {band!r}; use one of {known}", band=band, known=", ".join(RANGES))
            )
        return band
    if distance is None:
        return "optimal"
    if distance < 0:
        raise RuleError(_("distance {distance!r} is negative; give metres to the target", distance=distance))
    if distance > 2 * weapon["range"]:
        raise RuleError(
            _(
                "the target at {distance:g} m is out of range (twice the weapon's {range} m); get closer",
                distance=distance,
                range=weapon["range"],
            )
        )
    if distance < POINT_BLANK:
        return "point-blank"
    return "optimal" if distance <= weapon["range"] else "extreme"


def _mode(cmd: Attack, name: str, weapon: dict[str, Any]) -> str:
    if cmd.mode is None:
        return "short" if weapon["autofire"] else "single"
    if cmd.mode not in MODES:
        raise RuleError(
            _("unknown fire mode {mode!r}; use one of {known}", mode=cmd.mode, known=", ".join(MODES))
        )
    if not weapon["autofire"]:
        raise RuleError(
            _("the {weapon} has no automatic fire", weapon=model.name(name)),
            fix=DropOption(system="d20", text=_("fire it without a fire mode"), inputs=("mode",)),
        )
    return cmd.mode


def _check_ranged(hero: Hero, name: str, weapon: dict[str, Any]) -> int:
    """The ammunition usage die, refusing a jammed, empty or dry weapon."""
    if name in hero.jammed:
        raise RuleError(
            _("the {weapon} is jammed", weapon=model.name(name)),
            fix=run(_("clear it with `unjam`"), "unjam", weapon=name),
        )
    if name in hero.empty:
        raise RuleError(
            _("the {weapon}'s magazine is empty after full auto", weapon=model.name(name)),
            fix=run(_("reload it with `reload`"), "reload", weapon=name),
        )
    ammo = hero.usage.get(weapon["ammo"], 0)
    if not ammo:
        raise RuleError(
            _("{who} has no {ammo} left", who=hero.name, ammo=model.name(weapon["ammo"])),
            fix=run(_("resupply with `supply`"), "supply", weapon["ammo"], "d6"),
        )
    return ammo


def _split(cmd: Attack, mode: str) -> int:
    if not 1 <= cmd.split <= 10:
        raise RuleError(
            _("fire split among {split} targets: give 1 to 10 targets to share the fire", split=cmd.split)
        )
    if cmd.split > 1 and mode not in ("long", "full"):
        raise RuleError(
            _("covering fire on several targets needs a long burst or full auto"),
            fix=GiveOption(system="d20", text=_("fire a long burst"), inputs=(Input("mode", "long"),)),
        )
    return cmd.split


def share(damage: int, targets: int) -> tuple[int, ...]:
    """Damage shared among targets as evenly as possible, larger shares first."""
    if targets == 1:
        return ()
    base, rest = divmod(damage, targets)
    return tuple(base + (1 if i < rest else 0) for i in range(targets))


def attack(draft: Draft[D20State], cmd: Attack) -> None:
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    name = weapon_key(state, cmd.weapon)
    weapon = weapon_row(state, hero, name)
    melee = weapon["kind"] == "melee"
    if cmd.cover == "total":
        raise RuleError(_("a target in total cover cannot be attacked; wait until it shows itself"))
    if cmd.cover not in (None, "none", "partial"):
        raise RuleError(_("unknown cover {cover!r}; use partial or total", cover=cmd.cover))
    if not 1 <= cmd.defense <= 40:
        raise RuleError(
            _(
                "the target's {def_} {defense} is not from 1 to 40; give the target's {def_}",
                def_=model.translate(model.DEF),
                defense=cmd.defense,
            )
        )
    mode, band, ammo = "single", None, None
    if melee:
        if cmd.mode or cmd.range or cmd.distance is not None:
            raise RuleError(
                _("the {weapon} is a melee weapon, with no fire mode or range", weapon=model.name(name)),
                fix=DropOption(
                    system="d20",
                    text=_("attack without a fire mode, range or distance"),
                    inputs=("mode", "range", "distance"),
                    every=True,
                ),
            )
    else:
        mode = _mode(cmd, name, weapon)
        band = range_band(weapon, cmd.range, cmd.distance)
        ammo = _check_ranged(hero, name, weapon)
    targets = _split(cmd, mode)
    defense = cmd.defense + COVER_BONUS.get(cmd.cover or "", 0) + (RUNNING_BONUS if cmd.running else 0)
    bonus = hero.modifiers["fue" if melee else "des"]
    roll = roll_for(
        dice,
        hero,
        level_row(state, hero)["atq"] + bonus,
        defense,
        adv=cmd.adv,
        dis=cmd.dis,
        push=cmd.push,
        physical=True,
        extra_adv=int(mode in ("long", "full")) + int(band == "point-blank"),
        extra_dis=int(band == "extreme"),
    )
    draft.emit(_attacked(cmd, name, hero, weapon, mode, band, defense, roll, ammo, targets, dice))


def _attacked(
    cmd: Attack,
    name: str,
    hero: Hero,
    weapon: dict[str, Any],
    mode: str,
    band: str | None,
    defense: int,
    roll: D20Roll,
    ammo: int | None,
    targets: int,
    dice: Dice,
) -> Attacked:
    melee = weapon["kind"] == "melee"
    count = weapon["count"] * MULTIPLIER[mode]
    bonus = hero.modifiers["fue"] if melee else 0
    critical = roll.natural == "critical"
    faces: tuple[int, ...] = ()
    damage = 0
    if critical:
        damage = count * weapon["sides"] + 1 + bonus
    elif roll.success:
        faces = tuple(dice.roll(weapon["sides"]) for _ in range(count))
        damage = max(1, sum(faces) + bonus)
    fumble = roll.natural == "fumble"
    after = ammo
    if ammo is not None and mode == "long":
        after = step_down(ammo)
    return Attacked(
        who=hero.name,
        weapon=name,
        melee=melee,
        mode=mode,
        range=band,
        cover=cmd.cover if cmd.cover != "none" else None,
        running=cmd.running,
        defense=defense,
        roll=roll,
        hit=roll.success,
        critical=critical,
        damage_dice=f"{count}d{weapon['sides']}",
        damage_faces=faces,
        damage_bonus=bonus,
        damage=damage,
        split=share(damage, targets) if roll.success else (),
        pushed=cmd.push,
        calm_after=push_calm(hero, cmd.push),
        jammed=fumble and not melee,
        exposed=fumble and melee,
        ammo=None if melee else weapon["ammo"],
        ammo_before=ammo,
        ammo_after=after,
        emptied=mode == "full",
    )


def _single(items: tuple[str, ...], given: str | None, what: str) -> str:
    """The one weapon ``what`` (jammed, empty) that ``given`` names, or the only one."""
    shown = ", ".join(model.names(items))
    if given is not None:
        given = model.key_of(items, given, _("weapon")) or given
        if given not in items:
            if what == "jammed":
                message = _(
                    "the {weapon} is not jammed ({jammed}); check the name",
                    weapon=given,
                    jammed=shown or _("none is"),
                )
            else:
                message = _(
                    "the {weapon} is not empty ({empty}); check the name",
                    weapon=given,
                    empty=shown or _("none is"),
                )
            raise RuleError(message)
        return given
    if len(items) != 1:
        if what == "jammed":
            message = n_(
                "{n} weapon is jammed ({weapons})",
                "{n} weapons are jammed ({weapons})",
                len(items),
                weapons=shown or "-",
            )
        else:
            message = n_(
                "{n} weapon is empty ({weapons})",
                "{n} weapons are empty ({weapons})",
                len(items),
                weapons=shown or "-",
            )
        raise RuleError(
            message,
            fix=GiveOption(system="d20", text=_("name the weapon"), inputs=(Input("weapon", "NAME"),)),
        )
    return items[0]


def unjam(draft: Draft[D20State], cmd: Unjam) -> None:
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    weapon = _single(hero.jammed, cmd.weapon, "jammed")
    modifier = hero.modifiers["des"] + skill_points(state, hero, "precision")
    roll = roll_for(dice, hero, modifier, UNJAM_TARGET, push=cmd.push, physical=True)
    draft.emit(
        Unjammed(
            who=hero.name, weapon=weapon, roll=roll, pushed=cmd.push, calm_after=push_calm(hero, cmd.push)
        )
    )


def reload(draft: Draft[D20State], cmd: Reload) -> None:
    """Reloading after full auto is a use of the ammunition: roll its usage die."""
    state, dice = draft.state, draft.dice
    hero = hero_for(state, cmd.actor)
    name = _single(hero.empty, cmd.weapon, "empty")
    resource = game(state).tables["weapons"][name]["ammo"]
    sides = hero.usage.get(resource, 0)
    if not sides:
        raise RuleError(
            _(
                "{who} has no {ammo} left to reload the {weapon}",
                who=hero.name,
                ammo=model.name(resource),
                weapon=model.name(name),
            ),
            fix=run(_("resupply first with `supply`"), "supply", resource, "d6"),
        )
    draft.emit(usage_roll(hero.name, resource, sides, dice, reason="reload"))
    draft.emit(Reloaded(who=hero.name, weapon=name))


def take_damage(draft: Draft[D20State], cmd: TakeDamage) -> None:
    """Each wound costs 1 PC; 0 PV is death; 0 PC makes the panic roll due."""
    hero = hero_for(draft.state, cmd.actor)
    if not 1 <= cmd.amount <= 1000:
        raise RuleError(
            _("damage {amount} is not 1 to 1000; give the points of damage taken", amount=cmd.amount)
        )
    hp = max(0, hero.hp - cmd.amount)
    lost = 1 if hero.calm > 0 else 0
    calm = hero.calm - lost
    died = hp == 0
    draft.emit(
        Damaged(
            who=hero.name,
            amount=cmd.amount,
            hp_after=hp,
            calm_lost=lost,
            calm_after=calm,
            died=died,
            panic_due=(calm == 0 or hero.panic_due) and not died,
            cause=check_text(cmd.cause, "the cause", 200) or "wound",
        )
    )
