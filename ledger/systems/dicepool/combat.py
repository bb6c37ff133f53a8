"""Combat: attack, dodge, resistance and staging, initiative, healing.

An attack opens an *exchange*: the target may dodge (combat pool at TN 4,
each success cancels one attacker success), then resists with Body plus
pool dice against the weapon's power less armor; every 2 net successes
stage the wound level up or down, and the staged wound is marked on the
condition monitor.
"""

from __future__ import annotations

from typing import Any

from ledger import words
from ledger.deciding.decider import Draft
from ledger.errors import ChooseCharacter, CreateCharacter, GiveOption, Input, Other, RuleError
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
)
from ledger.systems.dicepool.model import BOXES
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
            f"{attacker.name} cannot attack themself",
            fix=GiveOption(
                system="dicepool", text="name another target", inputs=(Input("target", "CHARACTER"),)
            ),
        )
    return target.name


def _range(tables: dict[str, Any], command: Attack, arm: dict[str, Any] | None) -> tuple[str, str]:
    """(range class, class after the scope): "las miras telescópicas [...] reducen la clase de alcance"."""
    if command.range is not None and command.distance is not None:
        raise RuleError("give a range class or a distance, not both")
    if command.distance is not None:
        if arm is None:
            raise RuleError(
                "a distance needs a weapon to look up its range class",
                fix=GiveOption(system="dicepool", text="name the weapon", inputs=(Input("weapon", "NAME"),)),
            )
        if command.distance < 0:
            raise RuleError(f"a distance of {command.distance} m is negative; give meters from 0")
        found = tables_mod.range_class(tables, str(arm["class"]), command.distance)
    elif command.range in RANGE_CLASSES:
        found = command.range
    else:
        raise RuleError(
            f"a ranged attack needs a range class ({', '.join(RANGE_CLASSES)}) or a distance in meters, "
            f"got {command.range!r}",
            fix=GiveOption(
                system="dicepool",
                text="give the range or the distance",
                inputs=(Input("range", "CLASS"), Input("distance", "METERS")),
            ),
        )
    if not 0 <= command.scope <= MAX_SCOPE:
        raise RuleError(f"scope level {command.scope} is out of range; a scope level is 0 to {MAX_SCOPE}")
    closer = RANGE_CLASSES[max(0, RANGE_CLASSES.index(found) - command.scope)]
    return found, closer


def _burst(command: Attack, arm: dict[str, Any] | None) -> list[Modifier]:
    """Recoil: +1 TN per round of a burst beyond the weapon's compensation."""
    rounds = command.burst
    if rounds < 1:
        raise RuleError(f"a burst of {rounds} fires no rounds; give 1 or more")
    if rounds == 1:
        return []
    most = int(arm.get("burst", 1)) if arm else 1
    if rounds > most and arm is None:
        raise RuleError(
            f"a burst of {rounds} needs a weapon",
            fix=GiveOption(system="dicepool", text="name the weapon", inputs=(Input("weapon", "NAME"),)),
        )
    if rounds > most and arm is not None:
        raise RuleError(
            f"a burst of {rounds}: the {arm['name']} fires at most {most}",
            fix=GiveOption(
                system="dicepool", text=f"fire {most} rounds or fewer", inputs=(Input("burst", str(most)),)
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
            "an attack needs a skill or a weapon that names its skill",
            fix=GiveOption(
                system="dicepool",
                text="name the skill or the weapon",
                inputs=(Input("skill", "SKILL"), Input("weapon", "NAME")),
            ),
        )
    found = resolve_skill(who, skill, tables)
    if found.how == "attribute":
        raise RuleError(
            f"attack with a combat skill, not the attribute {found.used}",
            fix=GiveOption(
                system="dicepool",
                text="name a combat skill such as pistols",
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
            "a melee attack has no range or scope",
            fix=Other(text="leave out the range, distance and scope"),
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
            f"the {arm['name']} is a ranged weapon",
            fix=Other(text="attack with it at range, or pick a melee weapon"),
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
            f"{exchange.attacker}'s attack (exchange {exchange.number}) is still open",
            fix=run("resolve it first (or undo it)", "resist", (Input("as", target),)),
        )


# --- dodge -----------------------------------------------------------------------------


def _open_for(game: DicepoolState, who: Character, verb: str) -> Exchange | None:
    exchange = game.open_exchange
    if exchange is None:
        return None
    if exchange.attacker == who.name:
        others = tuple(n for n in game.characters if n != who.name)
        raise RuleError(
            f"{who.name} made this attack and cannot {verb} it",
            fix=ChooseCharacter(text=f"{verb} as the target", characters=others),
        )
    if exchange.target is not None and exchange.target != who.name:
        raise RuleError(
            f"the open attack is aimed at {exchange.target}",
            fix=ChooseCharacter(text=f"{verb} as {exchange.target}", characters=(exchange.target,)),
        )
    return exchange


def decide_dodge(draft: Draft[DicepoolState], command: Dodge) -> None:
    game = game_of(draft)
    who = character(game, command.actor)
    exchange = _open_for(game, who, "dodge")
    if exchange is None:
        raise RuleError("there is no open attack to dodge; a dodge answers an attack")
    if exchange.dodged is not None:
        raise RuleError(f"{who.name} already dodged this attack", fix=run("resist it now", "resist"))
    left = who.pool_left("combat")
    if not 1 <= command.pool <= left:
        raise RuleError(
            f"a dodge spends 1 to {words.count(left, 'combat pool die')}, not {command.pool} "
            f"({who.name} has {left} left this turn)"
        )
    if not 2 <= command.tn <= 30:
        raise RuleError(
            f"a dodge TN of {command.tn} is out of range; a dodge is TN 4 unless the GM says otherwise (2-30)"
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
                f"the open attack already gives {words.count(exchange.remaining, 'success')}",
                fix=Other(text="leave out the attacker's successes"),
            )
        text = command.damage or exchange.damage
        if text is None:
            raise RuleError(
                "the attack named no weapon",
                fix=GiveOption(
                    system="dicepool", text="give its damage code, e.g. 9L", inputs=(Input("damage", "CODE"),)
                ),
            )
        return exchange.remaining, text, command.stun or exchange.stun, exchange.melee, exchange.number
    if command.against is None or command.damage is None:
        raise RuleError(
            "there is no open attack",
            fix=GiveOption(
                system="dicepool",
                text="give the damage code and the attacker's successes left after any dodge",
                inputs=(Input("damage", "CODE"), Input("against", "N")),
                every=True,
            ),
        )
    if not 0 <= command.against <= MAX_DICE:
        raise RuleError(f"{command.against} attacker successes is out of range; give 0 to {MAX_DICE}")
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
        raise RuleError(f"an armor of {armor} is out of range; give 0 to 30")
    if who.unconscious and command.pool:
        raise RuleError(
            f"{who.name} is unconscious and resists with Body alone",
            fix=GiveOption(system="dicepool", text="resist without pool dice", inputs=(Input("pool", "0"),)),
        )
    left = who.pool_left("combat")
    if not 0 <= command.pool <= left:
        raise RuleError(
            f"{who.name} has {words.count(left, 'combat pool die')} left this turn, not {command.pool}"
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
                f"no character named {name!r}; the party is {', '.join(game.characters) or 'empty'}"
            )
    ready = [game.characters[n] for n in dict.fromkeys(names) if game.characters[n].status == "active"]
    if not ready:
        raise RuleError("nobody can act this combat turn", fix=CreateCharacter(text="add one to the party"))
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
    reason = check_text(command.reason, "the reason", 200)
    who = character(game_of(draft), command.actor, acting=False)
    if command.track not in TRACKS:
        raise RuleError(f"{command.track!r} is not a track; use physical or stun")
    marked = who.physical if command.track == "physical" else who.stun
    if not 1 <= command.boxes <= marked:
        raise RuleError(
            f"{who.name} has {words.count(marked, command.track + ' box')} marked, not {command.boxes}; heal 1 to {marked}"
            if marked
            else f"{who.name} has no {command.track} boxes to heal"
        )
    physical = who.physical - command.boxes if command.track == "physical" else who.physical
    stun = who.stun - command.boxes if command.track == "stun" else who.stun
    draft.emit(
        Healed(
            character=who.name,
            track=command.track,
            boxes=command.boxes,
            physical=physical,
            stun=stun,
            reason=reason,
        )
    )
