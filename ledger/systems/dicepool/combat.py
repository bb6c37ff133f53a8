"""Combat: attack, dodge, resistance and staging, initiative, healing.

An attack opens an *exchange*: the target may dodge (combat pool at TN 4,
each success cancels one attacker success), then resists with Body plus
pool dice against the weapon's power less armor; every 2 net successes
stage the wound level up or down, and the staged wound is marked on the
condition monitor.
"""

from __future__ import annotations

from typing import Any

from ledger.deciding.decider import Draft
from ledger.errors import ChooseCharacter, CreateCharacter, GiveOption, Input, Other, RuleError
from ledger.i18n import _, n_
from ledger.projections.dicepool.state import Character, DicepoolState, Exchange
from ledger.systems.dicepool import tables as tables_mod
from ledger.systems.dicepool.checks import (
    character,
    check_pool,
    default_modifiers,
    dice_count,
    game_of,
    resolve_skill,
    run,
    situational,
    wound_modifiers,
)
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Resist
from ledger.systems.dicepool.damage import (
    DamageCode,
    Monitor,
    burst,
    parse_damage,
    stage,
    staging_steps,
)
from ledger.systems.dicepool.dice import MAX_DICE, roll_initiative, test
from ledger.systems.dicepool.events import (
    Attacked,
    Defaulting,
    Dodged,
    Healed,
    InitiativeEntry,
    InitiativeRolled,
    Modifier,
    Resisted,
    boxes_text,
)
from ledger.systems.dicepool.model import BOXES, RANGE_NAMES, TRACK_NAMES, read, shown, skill_or_attribute
from ledger.systems.dicepool.tables import MELEE, RANGE_CLASSES, RANGE_TN
from ledger.text import check_text

MELEE_TN = 4
MAX_SCOPE = 3
TRACKS = ("physical", "stun")


# --- attack ----------------------------------------------------------------------------


def _weapon(tables: dict[str, Any], who: Character, name: str | None) -> dict[str, Any] | None:
    chosen = name or who.weapon
    return tables_mod.weapon(tables, chosen) if chosen else None


def _target(game: DicepoolState, attacker: Character, name: str | None) -> str | None:
    if name is None:
        return None
    target = character(game, name, acting=False)
    if target.name == attacker.name:
        raise RuleError(
            _("{who} cannot attack themself", who=attacker.name),
            fix=GiveOption(
                system="dicepool", text=_("name another target"), inputs=(Input("target", "CHARACTER"),)
            ),
        )
    return target.name


def _range(tables: dict[str, Any], command: Attack, arm: dict[str, Any] | None) -> tuple[str, str]:
    """(range class, class after the scope): "las miras telescópicas [...] reducen la clase de alcance"."""
    if command.range is not None and command.distance is not None:
        raise RuleError(_("give a range class or a distance, not both"))
    named = read(command.range, RANGE_NAMES) if command.range is not None else None
    if command.distance is not None:
        if arm is None:
            raise RuleError(
                _("a distance needs a weapon to look up its range class"),
                fix=GiveOption(
                    system="dicepool", text=_("name the weapon"), inputs=(Input("weapon", "NAME"),)
                ),
            )
        if command.distance < 0:
            raise RuleError(_("a distance of {m} m is negative; give meters from 0", m=command.distance))
        found = tables_mod.range_class(tables, str(arm["class"]), command.distance)
    elif named in RANGE_CLASSES:
        found = named
    else:
        raise RuleError(
            _(
                "a ranged attack needs a range class ({classes}) or a distance in meters, got {got!r}",
                classes=", ".join(shown(c, RANGE_NAMES) for c in RANGE_CLASSES),
                got=command.range,
            ),
            fix=GiveOption(
                system="dicepool",
                text=_("give the range or the distance"),
                inputs=(Input("range", "CLASS"), Input("distance", "METERS")),
            ),
        )
    if not 0 <= command.scope <= MAX_SCOPE:
        raise RuleError(
            _(
                "scope level {level} is out of range; a scope level is 0 to {most}",
                level=command.scope,
                most=MAX_SCOPE,
            )
        )
    closer = RANGE_CLASSES[max(0, RANGE_CLASSES.index(found) - command.scope)]
    return found, closer


def _burst(command: Attack, arm: dict[str, Any] | None) -> list[Modifier]:
    """Recoil: +1 TN per round of a burst beyond the weapon's compensation."""
    rounds = command.burst
    if rounds < 1:
        raise RuleError(_("a burst of {rounds} fires no rounds; give 1 or more", rounds=rounds))
    if rounds == 1:
        return []
    most = int(arm.get("burst", 1)) if arm else 1
    if rounds > most and arm is None:
        raise RuleError(
            _("a burst of {rounds} needs a weapon", rounds=rounds),
            fix=GiveOption(system="dicepool", text=_("name the weapon"), inputs=(Input("weapon", "NAME"),)),
        )
    if rounds > most and arm is not None:
        raise RuleError(
            _(
                "a burst of {rounds}: the {weapon} fires at most {most}",
                rounds=rounds,
                weapon=arm["name"],
                most=most,
            ),
            fix=GiveOption(
                system="dicepool",
                text=_("fire {most} rounds or fewer", most=most),
                inputs=(Input("burst", str(most)),),
            ),
        )
    recoil = max(0, rounds - int(arm.get("recoil_comp", 0) if arm else 0))
    return [Modifier(reason=f"recoil, {rounds}-round burst", value=recoil)] if recoil else []


def _damage(command: Attack, arm: dict[str, Any] | None, who: Character) -> DamageCode | None:
    text = command.damage or (str(arm["damage"]) if arm else None)
    if text is None:
        return None
    return burst(parse_damage(text, strength=who.attribute("strength")), command.burst)


def _skill(command: Attack, arm: dict[str, Any] | None, who: Character, tables: dict[str, Any]) -> Defaulting:
    skill = command.skill or (str(arm["skill"]) if arm else None)
    if skill is None:
        raise RuleError(
            _("an attack needs a skill or a weapon that names its skill"),
            fix=GiveOption(
                system="dicepool",
                text=_("name the skill or the weapon"),
                inputs=(Input("skill", "SKILL"), Input("weapon", "NAME")),
            ),
        )
    found = resolve_skill(who, skill, tables)
    if found.how == "attribute":
        raise RuleError(
            _(
                "attack with a combat skill, not the attribute {attribute}",
                attribute=skill_or_attribute(found.used),
            ),
            fix=GiveOption(
                system="dicepool",
                text=_("name a combat skill such as pistols"),
                inputs=(Input("skill", "pistols"),),
            ),
        )
    return found


def _base_tn(
    command: Attack, melee: bool, tables: dict[str, Any], arm: dict[str, Any] | None
) -> tuple[int, str | None, str | None]:
    """(base TN, range class, class after the scope); melee has no range."""
    if not melee:
        range_class, closer = _range(tables, command, arm)
        return RANGE_TN[closer], range_class, closer
    if command.range or command.distance is not None or command.scope:
        raise RuleError(
            _("a melee attack has no range or scope"),
            fix=Other(text=_("leave out the range, distance and scope")),
        )
    return MELEE_TN, None, None


def decide_attack(draft: Draft[DicepoolState], command: Attack) -> None:
    game = game_of(draft)
    who = character(game, command.actor)
    _refuse_open(game.open_exchange)
    tables = draft.tables
    dice = draft.dice
    arm = _weapon(tables, who, command.weapon)
    melee = command.melee or (arm is not None and arm["class"] == MELEE)
    if command.melee and arm is not None and arm["class"] != MELEE:
        raise RuleError(
            _("the {weapon} is a ranged weapon", weapon=arm["name"]),
            fix=Other(text=_("attack with it at range, or pick a melee weapon")),
        )
    found = _skill(command, arm, who, tables)
    target = _target(game, who, command.target)
    check_pool(who, found, "combat", command.pool)
    base, range_class, closer = _base_tn(command, melee, tables, arm)
    modifiers = (
        default_modifiers(found)
        + wound_modifiers(who)
        + _burst(command, arm)
        + situational(tables, command.mods)
    )
    code = _damage(command, arm, who)
    roll = test(dice_count(found.rating, command.pool, command.dice), base, modifiers, dice)
    draft.emit(
        Attacked(
            exchange=game.exchanges + 1,
            attacker=who.name,
            target=target,
            defaulting=found,
            melee=melee,
            range_class=range_class,
            effective_class=closer,
            weapon=str(arm["name"]) if arm else None,
            damage=str(code) if code else None,
            burst=command.burst,
            roll=roll,
            stun=bool(arm.get("stun", False)) if arm else False,
            pool_used=command.pool,
            hit=roll.successes > 0,
            manual=dice.manual,
        )
    )


def _refuse_open(exchange: Exchange | None) -> None:
    if exchange is not None:
        target = exchange.target or "TARGET"
        raise RuleError(
            _(
                "{attacker}'s attack (exchange {number}) is still open",
                attacker=exchange.attacker,
                number=exchange.number,
            ),
            fix=run(_("resolve it first (or undo it)"), "resist", (Input("as", target),)),
        )


# --- dodge -----------------------------------------------------------------------------


def _open_for(game: DicepoolState, who: Character, verb: str) -> Exchange | None:
    exchange = game.open_exchange
    if exchange is None:
        return None
    dodge = verb == "dodge"
    if exchange.attacker == who.name:
        others = tuple(n for n in game.characters if n != who.name)
        raise RuleError(
            _("{who} made this attack and cannot dodge it", who=who.name)
            if dodge
            else _("{who} made this attack and cannot resist it", who=who.name),
            fix=ChooseCharacter(
                text=_("dodge as the target") if dodge else _("resist as the target"), characters=others
            ),
        )
    if exchange.target is not None and exchange.target != who.name:
        raise RuleError(
            _("the open attack is aimed at {target}", target=exchange.target),
            fix=ChooseCharacter(
                text=_("dodge as {target}", target=exchange.target)
                if dodge
                else _("resist as {target}", target=exchange.target),
                characters=(exchange.target,),
            ),
        )
    return exchange


def decide_dodge(draft: Draft[DicepoolState], command: Dodge) -> None:
    game = game_of(draft)
    who = character(game, command.actor)
    exchange = _open_for(game, who, "dodge")
    if exchange is None:
        raise RuleError(_("there is no open attack to dodge; a dodge answers an attack"))
    if exchange.dodged is not None:
        raise RuleError(
            _("{who} already dodged this attack", who=who.name), fix=run(_("resist it now"), "resist")
        )
    left = who.pool_left("combat")
    if not 1 <= command.pool <= left:
        raise RuleError(
            n_(
                "a dodge spends 1 to {n} combat pool die, not {pool} ({who} has {n} left this turn)",
                "a dodge spends 1 to {n} combat pool dice, not {pool} ({who} has {n} left this turn)",
                left,
                pool=command.pool,
                who=who.name,
            )
        )
    if not 2 <= command.tn <= 30:
        raise RuleError(
            _(
                "a dodge TN of {tn} is out of range; a dodge is TN 4 unless the GM says otherwise (2-30)",
                tn=command.tn,
            )
        )
    count = dice_count(0, command.pool, command.dice)
    dice = draft.dice
    roll = test(count, command.tn, wound_modifiers(who), dice, needed=exchange.remaining)
    draft.emit(
        Dodged(
            exchange=exchange.number,
            character=who.name,
            roll=roll,
            pool_used=command.pool,
            remaining=exchange.remaining - roll.successes,
            manual=dice.manual,
        )
    )


# --- resistance and staging ------------------------------------------------------------


def needed_to_avoid(attacker: int, level: str, dice: int) -> int:
    """Fewest resistance successes that stage the wound below S (dice + 1 if none can)."""
    for successes in range(dice + 1):
        if stage(level, staging_steps(attacker - successes)) is None:
            return successes
    return dice + 1


def _incoming(command: Resist, exchange: Exchange | None) -> tuple[int, str, bool, bool, int | None]:
    """(attacker successes, damage code, stun, melee, exchange number)."""
    if exchange is not None:
        if command.against is not None:
            raise RuleError(
                n_(
                    "the open attack already gives {n} success",
                    "the open attack already gives {n} successes",
                    exchange.remaining,
                ),
                fix=Other(text=_("leave out the attacker's successes")),
            )
        text = command.damage or exchange.damage
        if text is None:
            raise RuleError(
                _("the attack named no weapon"),
                fix=GiveOption(
                    system="dicepool",
                    text=_("give its damage code, e.g. 9L"),
                    inputs=(Input("damage", "CODE"),),
                ),
            )
        return exchange.remaining, text, command.stun or exchange.stun, exchange.melee, exchange.number
    if command.against is None or command.damage is None:
        raise RuleError(
            _("there is no open attack"),
            fix=GiveOption(
                system="dicepool",
                text=_("give the damage code and the attacker's successes left after any dodge"),
                inputs=(Input("damage", "CODE"), Input("against", "N")),
                every=True,
            ),
        )
    if not 0 <= command.against <= MAX_DICE:
        raise RuleError(
            _("{n} attacker successes is out of range; give 0 to {most}", n=command.against, most=MAX_DICE)
        )
    return command.against, command.damage, command.stun, False, None


def decide_resist(draft: Draft[DicepoolState], command: Resist) -> None:
    game = game_of(draft)
    who = character(game, command.actor, acting=False)
    exchange = _open_for(game, who, "resist")
    attacker, text, stun, melee, number = _incoming(command, exchange)
    code = parse_damage(text)
    armor = (
        command.armor if command.armor is not None else (who.armor_impact if melee else who.armor_ballistic)
    )
    if not 0 <= armor <= 30:
        raise RuleError(_("an armor of {armor} is out of range; give 0 to 30", armor=armor))
    if who.unconscious and command.pool:
        raise RuleError(
            _("{who} is unconscious and resists with Body alone", who=who.name),
            fix=GiveOption(
                system="dicepool", text=_("resist without pool dice"), inputs=(Input("pool", "0"),)
            ),
        )
    left = who.pool_left("combat")
    if not 0 <= command.pool <= left:
        raise RuleError(
            n_(
                "{who} has {n} combat pool die left this turn, not {pool}",
                "{who} has {n} combat pool dice left this turn, not {pool}",
                left,
                who=who.name,
                pool=command.pool,
            )
        )
    body = who.attribute("body")
    count = dice_count(body, command.pool, command.dice)
    armor_mod = [Modifier(reason="armor", value=-armor)] if armor else []
    dice = draft.dice
    roll = test(count, code.power, armor_mod, dice, needed=needed_to_avoid(attacker, code.level, count))
    net = attacker - roll.successes
    steps = staging_steps(net)
    level = stage(code.level, steps)
    boxes = BOXES[level] if level else 0
    track = "stun" if stun else "physical"
    after = Monitor(who.physical, who.stun, who.overflow).mark(track, boxes)
    draft.emit(
        Resisted(
            exchange=number,
            character=who.name,
            damage=str(code),
            armor=armor,
            power=roll.tn,
            body=body,
            pool_used=command.pool,
            roll=roll,
            attacker_successes=attacker,
            net=net,
            stages=steps,
            base_level=code.level,
            level=level,
            track=track,
            boxes=boxes,
            physical=after.physical,
            stun=after.stun,
            overflow=after.overflow,
            manual=dice.manual,
        )
    )


# --- initiative and healing -------------------------------------------------------------


def decide_initiative(draft: Draft[DicepoolState], command: Initiative) -> None:
    game = game_of(draft)
    names = list(command.only) or list(game.characters)
    for name in names:
        if name not in game.characters:
            raise RuleError(
                _(
                    "no character named {name!r}; the party is {party}",
                    name=name,
                    party=", ".join(game.characters),
                )
                if game.characters
                else _("no character named {name!r}; the party is empty", name=name)
            )
    ready = [game.characters[n] for n in dict.fromkeys(names) if game.characters[n].status == "active"]
    if not ready:
        raise RuleError(
            _("nobody can act this combat turn"), fix=CreateCharacter(text=_("add one to the party"))
        )
    entries = []
    for who in ready:
        faces = roll_initiative(who.initiative_dice, draft.dice)
        reaction = who.attribute("reaction")
        entries.append(
            InitiativeEntry(
                character=who.name,
                reaction=reaction,
                faces=faces,
                penalty=who.tn_modifier,
                score=max(0, reaction + sum(faces) - who.tn_modifier),
            )
        )
    order = sorted(range(len(entries)), key=lambda i: (-entries[i].score, -entries[i].reaction, i))
    draft.emit(
        InitiativeRolled(
            turn=game.turn + 1, entries=tuple(entries[i] for i in order), manual=draft.dice.manual
        )
    )


def decide_heal(draft: Draft[DicepoolState], command: Heal) -> None:
    reason = check_text(command.reason, _("the reason"), 200)
    who = character(game_of(draft), command.actor, acting=False)
    track = read(command.track, TRACK_NAMES) or command.track
    if track not in TRACKS:
        raise RuleError(
            _(
                "{track!r} is not a track; use {physical} or {stun}",
                track=command.track,
                physical=shown("physical", TRACK_NAMES),
                stun=shown("stun", TRACK_NAMES),
            )
        )
    marked = who.physical if track == "physical" else who.stun
    if not 1 <= command.boxes <= marked:
        if not marked:
            raise RuleError(
                _("{who} has no physical boxes to heal", who=who.name)
                if track == "physical"
                else _("{who} has no stun boxes to heal", who=who.name)
            )
        raise RuleError(
            _(
                "{who} has {marked} marked, not {boxes}; heal 1 to {n}",
                who=who.name,
                marked=boxes_text(marked, track),
                boxes=command.boxes,
                n=marked,
            )
        )
    physical = who.physical - command.boxes if track == "physical" else who.physical
    stun = who.stun - command.boxes if track == "stun" else who.stun
    draft.emit(
        Healed(
            character=who.name,
            track=track,
            boxes=command.boxes,
            physical=physical,
            stun=stun,
            reason=reason,
        )
    )
