"""Combat: attack, dodge, resistance and staging, initiative, healing.

An attack opens an *exchange*: the target may dodge (combat pool at TN 4,
each success cancels one attacker success), then resists with Body plus
pool dice against the weapon's power less armor; every 2 net successes
stage the wound level up or down, and the staged wound is marked on the
condition monitor.
"""

from __future__ import annotations

from typing import Any

from ledger.commands import check_text
from ledger.dice import Dice
from ledger.errors import RuleError
from ledger.projections.dicepool.state import Character, Exchange
from ledger.systems.dicepool import tables as tables_mod
from ledger.systems.dicepool.checks import (
    character,
    check_pool,
    default_modifiers,
    dice_count,
    game_of,
    resolve_skill,
    situational,
    wound_modifiers,
)
from ledger.systems.dicepool.commands import Attack, Dodge, Heal, Initiative, Resist
from ledger.systems.dicepool.damage import (
    BOXES,
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
from ledger.systems.dicepool.tables import MELEE, RANGE_CLASSES, RANGE_TN

MELEE_TN = 4
MAX_SCOPE = 3
TRACKS = ("physical", "stun")


# --- attack ----------------------------------------------------------------------------


def _weapon(tables: dict[str, Any], who: Character, name: str | None) -> dict[str, Any] | None:
    chosen = name or who.weapon
    return tables_mod.weapon(tables, chosen) if chosen else None


def _target(state: Any, attacker: Character, name: str | None) -> str | None:
    if name is None:
        return None
    target = character(state, name, acting=False)
    if target.name == attacker.name:
        raise RuleError(f"{attacker.name} cannot attack themself; give another --target")
    return target.name


def _range(tables: dict[str, Any], command: Attack, arm: dict[str, Any] | None) -> tuple[str, str]:
    """(range class, class after the scope): "las miras telescópicas [...] reducen la clase de alcance"."""
    if command.range is not None and command.distance is not None:
        raise RuleError("give --range or --distance, not both")
    if command.distance is not None:
        if arm is None:
            raise RuleError("--distance needs a weapon to look up its range class; add --weapon NAME")
        if command.distance < 0:
            raise RuleError(f"--distance {command.distance} is negative; give meters from 0")
        found = tables_mod.range_class(tables, str(arm["class"]), command.distance)
    elif command.range in RANGE_CLASSES:
        found = command.range
    else:
        raise RuleError(
            f"a ranged attack needs --range ({', '.join(RANGE_CLASSES)}) or --distance METERS, "
            f"got {command.range!r}"
        )
    if not 0 <= command.scope <= MAX_SCOPE:
        raise RuleError(f"--scope {command.scope} is out of range; a scope level is 0 to {MAX_SCOPE}")
    closer = RANGE_CLASSES[max(0, RANGE_CLASSES.index(found) - command.scope)]
    return found, closer


def _burst(command: Attack, arm: dict[str, Any] | None) -> list[Modifier]:
    """Recoil: +1 TN per round of a burst beyond the weapon's compensation."""
    rounds = command.burst
    if rounds < 1:
        raise RuleError(f"--burst {rounds} fires no rounds; give 1 or more")
    if rounds == 1:
        return []
    most = int(arm.get("burst", 1)) if arm else 1
    if rounds > most:
        what = f"the {arm['name']} fires at most {most}" if arm else "a burst needs --weapon"
        raise RuleError(f"--burst {rounds}: {what}; lower --burst")
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
        raise RuleError("an attack needs --skill SKILL or a --weapon that names its skill")
    found = resolve_skill(who, skill, tables)
    if found.how == "attribute":
        raise RuleError(f"attack with a combat skill, not the attribute {found.used}; e.g. --skill pistols")
    return found


def _base_tn(
    command: Attack, melee: bool, tables: dict[str, Any], arm: dict[str, Any] | None
) -> tuple[int, str | None, str | None]:
    """(base TN, range class, class after the scope); melee has no range."""
    if not melee:
        range_class, closer = _range(tables, command, arm)
        return RANGE_TN[closer], range_class, closer
    if command.range or command.distance is not None or command.scope:
        raise RuleError("a melee attack has no range or scope; drop --range/--distance/--scope")
    return MELEE_TN, None, None


def decide_attack(state: Any, command: Attack, dice: Dice) -> list[Attacked]:
    game = game_of(state)
    who = character(state, command.actor)
    _refuse_open(game.open_exchange)
    tables = state.core.tables
    arm = _weapon(tables, who, command.weapon)
    melee = command.melee or (arm is not None and arm["class"] == MELEE)
    if command.melee and arm is not None and arm["class"] != MELEE:
        raise RuleError(f"the {arm['name']} is a ranged weapon; drop --melee or pick a melee --weapon")
    found = _skill(command, arm, who, tables)
    target = _target(state, who, command.target)
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
    return [
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
    ]


def _refuse_open(exchange: Exchange | None) -> None:
    if exchange is not None:
        target = exchange.target or "TARGET"
        raise RuleError(
            f"{exchange.attacker}'s attack (exchange {exchange.number}) is still open; resolve it first "
            f"with `ledger dicepool resist --as {target}` (or undo it)"
        )


# --- dodge -----------------------------------------------------------------------------


def _open_for(state: Any, who: Character, verb: str) -> Exchange | None:
    exchange = game_of(state).open_exchange
    if exchange is None:
        return None
    if exchange.attacker == who.name:
        raise RuleError(f"{who.name} made this attack and cannot {verb} it; use --as TARGET")
    if exchange.target is not None and exchange.target != who.name:
        raise RuleError(f"the open attack is aimed at {exchange.target}; {verb} with --as {exchange.target}")
    return exchange


def decide_dodge(state: Any, command: Dodge, dice: Dice) -> list[Dodged]:
    who = character(state, command.actor)
    exchange = _open_for(state, who, "dodge")
    if exchange is None:
        raise RuleError("there is no open attack to dodge; a dodge answers `ledger dicepool attack`")
    if exchange.dodged is not None:
        raise RuleError(f"{who.name} already dodged this attack; now `ledger dicepool resist`")
    left = who.pool_left("combat")
    if not 1 <= command.pool <= left:
        raise RuleError(
            f"--pool {command.pool}: a dodge spends 1 to {left} combat pool dice "
            f"({who.name} has {left} left this turn)"
        )
    if not 2 <= command.tn <= 30:
        raise RuleError(
            f"--tn {command.tn} is out of range; a dodge is TN 4 unless the GM says otherwise (2-30)"
        )
    count = dice_count(0, command.pool, command.dice)
    roll = test(count, command.tn, wound_modifiers(who), dice, needed=exchange.remaining)
    return [
        Dodged(
            exchange=exchange.number,
            character=who.name,
            roll=roll,
            pool_used=command.pool,
            remaining=exchange.remaining - roll.successes,
            manual=dice.manual,
        )
    ]


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
            raise RuleError(f"the open attack already gives {exchange.remaining} successes; drop --against")
        text = command.damage or exchange.damage
        if text is None:
            raise RuleError("the attack named no weapon; give its damage code, e.g. --damage 9L")
        return exchange.remaining, text, command.stun or exchange.stun, exchange.melee, exchange.number
    if command.against is None or command.damage is None:
        raise RuleError(
            "there is no open attack; give --damage CODE and --against N "
            "(the attacker's successes left after any dodge)"
        )
    if not 0 <= command.against <= MAX_DICE:
        raise RuleError(f"--against {command.against} is out of range; give 0 to {MAX_DICE}")
    return command.against, command.damage, command.stun, False, None


def decide_resist(state: Any, command: Resist, dice: Dice) -> list[Resisted]:
    who = character(state, command.actor, acting=False)
    exchange = _open_for(state, who, "resist")
    attacker, text, stun, melee, number = _incoming(command, exchange)
    code = parse_damage(text)
    armor = (
        command.armor if command.armor is not None else (who.armor_impact if melee else who.armor_ballistic)
    )
    if not 0 <= armor <= 30:
        raise RuleError(f"--armor {armor} is out of range; give 0 to 30")
    if who.unconscious and command.pool:
        raise RuleError(f"{who.name} is unconscious and resists with Body alone; drop --pool")
    left = who.pool_left("combat")
    if not 0 <= command.pool <= left:
        raise RuleError(f"--pool {command.pool}: {who.name} has {left} combat pool dice left this turn")
    body = who.attribute("body")
    count = dice_count(body, command.pool, command.dice)
    armor_mod = [Modifier(reason="armor", value=-armor)] if armor else []
    roll = test(count, code.power, armor_mod, dice, needed=needed_to_avoid(attacker, code.level, count))
    net = attacker - roll.successes
    steps = staging_steps(net)
    level = stage(code.level, steps)
    boxes = BOXES[level] if level else 0
    track = "stun" if stun else "physical"
    after = Monitor(who.physical, who.stun, who.overflow).mark(track, boxes)
    return [
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
    ]


# --- initiative and healing -------------------------------------------------------------


def decide_initiative(state: Any, command: Initiative, dice: Dice) -> list[InitiativeRolled]:
    game = game_of(state)
    names = list(command.only) or list(game.characters)
    for name in names:
        if name not in game.characters:
            raise RuleError(
                f"no character named {name!r}; the party is {', '.join(game.characters) or 'empty'}"
            )
    ready = [game.characters[n] for n in dict.fromkeys(names) if game.characters[n].status == "active"]
    if not ready:
        raise RuleError("nobody can act this combat turn; add a character with `ledger dicepool join`")
    entries = []
    for who in ready:
        faces = roll_initiative(who.initiative_dice, dice)
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
    return [
        InitiativeRolled(turn=game.turn + 1, entries=tuple(entries[i] for i in order), manual=dice.manual)
    ]


def decide_heal(state: Any, command: Heal) -> list[Healed]:
    reason = check_text(command.reason, "--reason", 200)
    who = character(state, command.actor, acting=False)
    if command.track not in TRACKS:
        raise RuleError(f"--track {command.track!r} is not a track; use physical or stun")
    marked = who.physical if command.track == "physical" else who.stun
    if not 1 <= command.boxes <= marked:
        raise RuleError(
            f"--boxes {command.boxes}: {who.name} has {marked} {command.track} boxes marked; "
            f"heal 1 to {marked}"
            if marked
            else f"{who.name} has no {command.track} boxes to heal"
        )
    physical = who.physical - command.boxes if command.track == "physical" else who.physical
    stun = who.stun - command.boxes if command.track == "stun" else who.stun
    return [
        Healed(
            character=who.name,
            track=command.track,
            boxes=command.boxes,
            physical=physical,
            stun=stun,
            reason=reason,
        )
    ]
