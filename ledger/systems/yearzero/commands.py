"""What a yearzero player can ask for, and how each request is decided.

Dice order (for ``--faces``): a roll is base dice, then skill dice (or
negative dice), then gear dice; a push re-rolls in the same order; armor
rolls the shield, then the armor; a Rot point rolls the rot suit, then base
dice equal to total Rot; a character reaching Strength 0 rolls 2d6 for the
critical injury, then 1d6 for the hours until they get up.

Who may ask (``authority``, :mod:`ledger.deciding.authority`): a player rolls, pushes,
eats, drinks, wears, washes, repairs and heals as their own mutant, and marks on their
own sheet the trauma and Rot the GM calls for; the GM moves the party (enter, explore),
lets time pass (tick, sleep, rest) and feeds or warms everyone at once. A push, trauma,
Rot, a critical injury, the cold and contaminated grub or water may break or kill a
mutant, and a repair takes two hours of everyone's time: a player confirms those first.
"""

from __future__ import annotations

import msgspec

from ledger import errors
from ledger.deciding.authority import OWN, Authority, Reach, When
from ledger.deciding.commands import Command, Introduction
from ledger.deciding.decider import Decider
from ledger.errors import (
    ChooseCharacter,
    DuplicateNameError,
    GiveOption,
    Input,
    Other,
    RuleError,
    RunCommand,
)
from ledger.i18n import N_, _, translate
from ledger.log.events import CharacterAdded
from ledger.projections.yearzero.characters import parse_attrs
from ledger.projections.yearzero.fold import evolve
from ledger.projections.yearzero.game import Character, Item, rot_interval
from ledger.projections.yearzero.vocabulary import (
    ATTRIBUTES,
    KIND_OF,
    SKILLS,
    SLOTS,
    SPECIALIST_SKILLS,
    TRAUMA,
    attribute_name,
    read_rollable,
    read_trauma,
    slot_word,
    split_sector,
    stored_key,
    term,
    term_name,
    trauma_word,
)
from ledger.systems.yearzero import engine as eng
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero.engine import YZDraft, alive, char, d6, gain_rot, hurt, living, now
from ledger.text import check_attrs, check_name, check_text

MAX_DICE = 30
MAX_ATTRIBUTE = 5
"""The highest an attribute starts at (docs/rulings/yearzero.md): a mutant's are 1 to 5."""
EVERYONE = When(field="everyone", value=True, reach=Reach.PARTY)
"""The whole party eats, drinks or is warmed at once: the party's."""
CONTAMINATED = When(field="contaminated", value=True, confirm=True)
"""Contaminated grub or water: a Rot point, which may chain into damage and a critical injury."""
_CREATE = RunCommand(
    text=N_("create it with `character create`"),
    command="character create",
    arguments=("NAME",),
    options=tuple(Input(attribute, "N") for attribute in ("strength", "agility", "wits", "empathy")),
)
"""The fix of a creation refused for its attributes: the checked creation, in full."""


class CreateCharacter(Introduction, frozen=True):
    name: str
    attrs: dict[str, str] = msgspec.field(default_factory=dict)

    @classmethod
    def from_attrs(cls, name: str, attrs: dict[str, str]) -> CreateCharacter:
        """The creation ``character add NAME`` asks for with attributes: checked the same."""
        return cls(name=name, attrs=attrs)


class Roll(Command, frozen=True):
    authority = OWN

    what: str
    base: int | None = None
    skill: int | None = None
    gear: int | None = None
    item: str | None = None
    helpers: int = 0
    modifier: int = 0


class Push(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)


class Damage(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    kind: str
    amount: int
    armor: bool = True


class Wear(Command, frozen=True):
    authority = OWN

    item: str | None = None
    off: str | None = None


class Eat(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(EVERYONE, CONTAMINATED))

    contaminated: bool = False
    everyone: bool = False


class Drink(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(EVERYONE, CONTAMINATED))

    contaminated: bool = False
    everyone: bool = False


class Sleep(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)

    hours: int
    watch: tuple[str, ...] = ()


class Rest(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)

    hours: int
    intimacy: tuple[str, ...] = ()


class Booze(Command, frozen=True):
    authority = OWN


class Rot(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    points: int
    source: str = "exposure"


class Enter(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)

    sector: str
    rot_level: int | None = None
    vehicle: bool = False


class Explore(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)

    hurry: bool = False
    stunt: bool = False
    terrain: str = "typical"


class Wash(Command, frozen=True):
    authority = OWN


class Repair(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    item: str
    gear: int | None = None
    tool: str | None = None
    helpers: int = 0
    modifier: int = 0


class Critical(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)


class Tick(Command, frozen=True):
    authority = Authority(reach=Reach.PARTY)

    minutes: int


class Initiative(Command, frozen=True):
    authority = OWN

    ambush: bool = False


class Heal(Command, frozen=True):
    authority = OWN

    target: str
    gear: int | None = None
    item: str | None = None
    helpers: int = 0
    modifier: int = 0


class Cold(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, confirm=True)

    gear: int | None = None
    item: str | None = None


class Warm(Command, frozen=True):
    authority = Authority(reach=Reach.OWN, when=(EVERYONE,))

    everyone: bool = False


# --- helpers ---------------------------------------------------------------------


def _run(doing: str, command: str, *arguments: str) -> RunCommand:
    """The fix of ``doing`` something the yearzero command ``command`` does, given ``arguments``."""
    return RunCommand(
        text=_("{doing} with `{command}`", doing=doing, command=command),
        command=command,
        arguments=arguments,
        system="yearzero",
    )


def actor_of(d: YZDraft, command: Command) -> str:
    if command.actor is None or command.actor not in d.game.characters:
        if d.game.order:
            fix = ChooseCharacter(text=_("say which character acts"), characters=tuple(alive(d)))
        else:
            fix = errors.CreateCharacter(text=_("create a character first"))
        raise RuleError(_("no character is acting"), fix=fix)
    return command.actor


def able(d: YZDraft, name: str) -> Character:
    c = living(d, name)
    if c.broken:
        kinds = ", ".join(trauma_word(KIND_OF[a]) for a in ATTRIBUTES if a in c.broken)
        raise RuleError(
            _(
                "{name} is broken by {kinds} and cannot roll skills; a broken character may only make "
                "one maneuver a turn",
                name=name,
                kinds=kinds,
            ),
            fix=_run(_("heal them, or wait until they get up"), "tick"),
        )
    return c


def find_item(d: YZDraft, name: str, item: str) -> tuple[str, Item]:
    """An item of the character, else of another party member (names may not clash)."""
    own = char(d, name).gear.get(item)
    if own is not None:
        return name, own
    owners = [(n, c.gear[item]) for n, c in d.game.characters.items() if item in c.gear]
    if len(owners) == 1:
        return owners[0]
    have = ", ".join(char(d, name).gear) or _("none")
    if owners:
        owner_names = tuple(n for n, _owned in owners)
        raise RuleError(
            _("several characters own {item!r} ({owners})", item=item, owners=", ".join(owner_names)),
            fix=ChooseCharacter(text=_("act as its owner"), characters=owner_names),
        )
    raise RuleError(
        _("{name} has no item {item!r} (gear: {have})", name=name, item=item, have=have),
        fix=Other(text=_("give the character the item as its attribute gear.NAME=BONUS")),
    )


def usable_gear(d: YZDraft, name: str, gear: int | None, item: str | None) -> tuple[int, str | None]:
    if gear is not None and item is not None:
        raise RuleError(
            _("a roll takes a gear bonus or an item, not both"),
            fix=GiveOption(
                system="yearzero",
                text=_("give the gear bonus or the item"),
                inputs=(Input("gear", "N"), Input("item", "NAME")),
                exclusive=True,
            ),
        )
    if item is None:
        if gear is not None and not 0 <= gear <= 10:
            raise RuleError(_("a gear bonus of {gear} is out of range; a gear bonus is 0 to 10", gear=gear))
        return gear or 0, None
    found = char(d, name).gear.get(item)
    if found is None:
        have = ", ".join(char(d, name).gear) or _("none")
        raise RuleError(
            _(
                "{name} has no item {item!r} (gear: {have}); use one of theirs",
                name=name,
                item=item,
                have=have,
            )
        )
    if found.destroyed:
        raise RuleError(_("{item} is destroyed for good; use another item", item=item))
    if found.bonus <= 0:
        raise RuleError(
            _("{item} is broken (bonus 0) and does not work", item=item),
            fix=_run(_("repair it"), "repair", item),
        )
    return found.bonus, item


def make_roll(
    d: YZDraft,
    name: str,
    *,
    attribute: str,
    skill: str | None,
    purpose: str = "skill",
    target: str | None = None,
    base: int | None = None,
    skill_level: int | None = None,
    gear: int | None = None,
    item: str | None = None,
    helpers: int = 0,
    modifier: int = 0,
) -> ev.Rolled:
    c = able(d, name)
    if not 0 <= helpers <= 3:
        raise RuleError(
            _("{helpers} helpers is not allowed; at most 3 people can help (0 to 3)", helpers=helpers)
        )
    if helpers and skill in SPECIALIST_SKILLS:
        raise RuleError(
            _("nobody can help with the specialist skill {skill}", skill=term(skill)),
            fix=Other(text=_("roll it without helpers")),
        )
    if skill in SPECIALIST_SKILLS and c.skills.get(skill, 0) == 0 and skill_level is None:
        raise RuleError(
            _(
                "{name} does not have the specialist skill {skill}; only its specialists roll it",
                name=name,
                skill=term(skill),
            )
        )
    if base is not None and not 0 <= base <= 20:
        raise RuleError(_("{base} base dice is out of range; give 0 to 20 base dice", base=base))
    if skill_level is not None and not 0 <= skill_level <= 10:
        raise RuleError(_("{level} skill dice is out of range; give 0 to 10 skill dice", level=skill_level))
    if not -10 <= modifier <= 10:
        raise RuleError(_("a modifier of {modifier:+d} is out of range; use -10 to +10", modifier=modifier))
    gear_dice, item = usable_gear(d, name, gear, item)
    base_dice = c.current[attribute] if base is None else base
    level = (c.skills.get(skill, 0) if skill else 0) if skill_level is None else skill_level
    net = level + helpers + modifier
    skill_dice, negative = max(net, 0), max(-net, 0)
    if base_dice + skill_dice + gear_dice + negative > MAX_DICE:
        raise RuleError(
            _("that roll needs more than {most} dice; check its base, skill and gear dice", most=MAX_DICE)
        )
    dice = ev.Pool(
        base=d6(d, base_dice), skill=d6(d, skill_dice), gear=d6(d, gear_dice), negative=d6(d, negative)
    )
    rolled = ev.Rolled(
        character=name,
        attribute=attribute,
        skill=skill,
        purpose=purpose,
        target=target,
        dice=dice,
        item=item,
        helpers=helpers,
        modifier=modifier,
        successes=dice.successes(),
        p_success=eng.p_success(base_dice + skill_dice + gear_dice, negative),
        manual=d.dice.manual,
    )
    d.emit(rolled)
    return rolled


def settle(d: YZDraft) -> None:
    """A failed repair or cold roll left unpushed becomes final before anything else."""
    p = d.game.pending
    if p is None or p.successes > 0 or p.purpose not in ("repair", "cold"):
        return
    if p.purpose == "repair" and p.target is not None:
        _owner, item = find_item(d, p.character, p.target)
        d.emit(
            ev.Settled(
                character=p.character,
                purpose="repair",
                item=p.target,
                bonus_after=item.bonus,
                max_bonus_after=item.bonus,
                destroyed=item.bonus == 0,
            )
        )
    else:
        d.emit(ev.Settled(character=p.character, purpose=p.purpose))
        freeze(d, p.character)


def freeze(d: YZDraft, name: str) -> None:
    """A failed Endure roll against cold: hypothermic, 1 damage and 1 confusion."""
    if not char(d, name).has("hypothermic"):
        d.emit(ev.Hypothermia(character=name, at=now(d)))
    hurt(d, name, "damage", 1, "cold")
    hurt(d, name, "confusion", 1, "cold")


# --- deciders --------------------------------------------------------------------------


def _before(d: YZDraft) -> None:
    """Every command: the campaign's settings must be usable, and a failed repair or cold
    roll that was not pushed becomes final (its roller's push is the one command that may
    follow it)."""
    eng.check_settings(d.game)
    pending = d.game.pending
    if pending is None:
        return
    if not isinstance(d.command, Push) or (d.command.actor or pending.character) != pending.character:
        settle(d)


decider = Decider("yearzero", evolve, before=_before)
"""The yearzero commands and their handlers: ``SYSTEM.decide``."""


def _above(value: str) -> bool:
    """Whether an attribute's value reads (as ``parse_attrs`` reads it) above the maximum."""
    try:
        return int(value) > MAX_ATTRIBUTE
    except ValueError:
        return False  # parse_attrs names it


def _created() -> RunCommand:
    """The creation's fix, worded in the language of the moment."""
    return msgspec.structs.replace(_CREATE, text=translate(_CREATE.text))


def _stored_keys(attrs: dict[str, str]) -> dict[str, str]:
    """The attributes as stored: a skill or an attribute named in words the stored keys were
    never read in (``skill.hacer_un_trato``, ``Destreza`` already was) stored by its key
    (``skill.make_a_deal``), so a campaign replays alike in every language."""
    out: dict[str, str] = {}
    for raw, value in attrs.items():
        prefix, dot, rest = raw.strip().partition(".")
        if dot and prefix.lower() == "skill":
            key = stored_key("skill", rest)
            out[f"skill.{key}" if key else raw] = value
        elif not dot:
            key = stored_key("attribute", raw)
            out[key or raw] = value
        else:
            out[raw] = value
    return out


@decider.on(CreateCharacter)
def create_character(d: YZDraft, cmd: CreateCharacter) -> None:
    check_name(cmd.name, "character")  # the command holds the name in NFC already
    attrs = check_attrs(cmd.attrs)
    if cmd.name in d.game.characters:
        raise DuplicateNameError(_("character {name!r} already exists; pick another name", name=cmd.name))
    attrs = _stored_keys(attrs)
    _c, problems = parse_attrs(cmd.name, attrs)
    high = [f"{k}={v}" for k, v in attrs.items() if attribute_name(k.strip().lower()) and _above(v)]
    if problems or high:
        raise RuleError(
            _(
                "cannot read {attrs}; use strength/agility/wits/empathy=1..{most}, "
                "skill.NAME=0..5 (a Year Zero skill), gear.NAME=0..10, armor./shield./suit.NAME=0..10",
                attrs=", ".join([*problems, *high]),
                most=MAX_ATTRIBUTE,
            ),
            fix=_created(),
        )
    keys = {attribute_name(k) for k in attrs}
    missing = [a for a in ATTRIBUTES if a not in keys]
    if missing:
        raise RuleError(
            _("give every attribute; missing {attributes}", attributes=", ".join(term(a) for a in missing)),
            fix=_created(),
        )
    d.emit(CharacterAdded(name=cmd.name, attrs=attrs))


@decider.on(Roll)
def roll(d: YZDraft, cmd: Roll) -> None:
    name = actor_of(d, cmd)
    key = read_rollable(cmd.what)
    skill = key if key in SKILLS else None
    attribute = SKILLS[skill] if skill else key
    if attribute is None:
        raise RuleError(
            _(
                "{what!r} is neither a skill nor an attribute; use one of {attributes} or {skills}",
                what=cmd.what,
                attributes=", ".join(term(a) for a in ATTRIBUTES),
                skills=", ".join(term(k) for k in SKILLS),
            )
        )
    if skill is None and cmd.skill:
        raise RuleError(
            _("an attribute roll has no skill dice"),
            fix=Other(text=_("roll a skill, or the attribute without skill dice")),
        )
    make_roll(
        d,
        name,
        attribute=attribute,
        skill=skill,
        purpose="skill" if skill else "attribute",
        base=cmd.base,
        skill_level=cmd.skill,
        gear=cmd.gear,
        item=cmd.item,
        helpers=cmd.helpers,
        modifier=cmd.modifier,
    )


@decider.on(Push)
def push(d: YZDraft, cmd: Push) -> None:
    name = cmd.actor or (d.game.pending.character if d.game.pending is not None else None)
    p = d.game.rolls.get(name) if name is not None else None
    if p is None:
        others = tuple(k for k, v in d.game.rolls.items() if not v.pushed)
        if name is not None:
            message = _(
                "{name} has no roll to push; a push must come right after the character's own roll, "
                "before that character or the party does anything else",
                name=name,
            )
        else:
            message = _(
                "there is no roll to push; a push must come right after the character's own roll, "
                "before that character or the party does anything else"
            )
        raise RuleError(
            message,
            fix=ChooseCharacter(text=_("act as {names}", names=_(" or ").join(others)), characters=others)
            if others
            else None,
        )
    if p.pushed:
        raise RuleError(_("that roll was already pushed; a roll can be pushed only once"))
    c = living(d, name)
    old = p.dice
    base = tuple(f if f in (1, 6) else d.dice.roll(6) for f in old.base)
    skill = tuple(f if f == 6 else d.dice.roll(6) for f in old.skill)
    gear = tuple(f if f in (1, 6) else d.dice.roll(6) for f in old.gear)
    new = ev.Pool(base=base, skill=skill, gear=gear, negative=old.negative)
    rerolled = ev.Pool(
        base=tuple(f for f, o in zip(base, old.base, strict=True) if o not in (1, 6)),
        skill=tuple(f for f, o in zip(skill, old.skill, strict=True) if o != 6),
        gear=tuple(f for f, o in zip(gear, old.gear, strict=True) if o not in (1, 6)),
    )
    kept_sixes = old.base.count(6) + old.skill.count(6) + old.gear.count(6)
    rolled = len(rerolled.base) + len(rerolled.skill) + len(rerolled.gear)
    ones = base.count(1)
    before = c.current[p.attribute]
    trauma = min(ones, before)
    gear_ones = gear.count(1)
    bonus_after = None
    if p.item is not None and p.item in c.gear:
        bonus_after = max(0, c.gear[p.item].bonus - gear_ones)
    d.emit(
        ev.Pushed(
            character=name,
            attribute=p.attribute,
            skill=p.skill,
            dice=new,
            rerolled=rerolled,
            successes=new.successes(),
            p_success=eng.p_success(rolled, 0, kept_sixes, old.negative.count(6)),
            base_ones=ones,
            trauma=trauma,
            attribute_after=before - trauma,
            mutation_points=ones,
            item=p.item,
            gear_damage=gear_ones if p.item else 0,
            item_bonus_after=bonus_after,
            manual=d.dice.manual,
        )
    )
    eng.after_trauma(d, name, p.attribute, before, trauma)
    _roll_outcome(d, p.purpose, name, p.target, new.successes())
    if d.game.pending is not None and new.successes() == 0:
        settle(d)


def _roll_outcome(d: YZDraft, purpose: str, name: str, target: str | None, successes: int) -> None:
    if successes == 0 or target is None:
        return
    if purpose == "repair":
        _owner, item = find_item(d, name, target)
        d.emit(ev.Repaired(character=name, item=target, bonus_after=item.max_bonus))
    elif purpose == "heal":
        heal_effects(d, name, target, successes)


@decider.on(Damage)
def damage(d: YZDraft, cmd: Damage) -> None:
    name = actor_of(d, cmd)
    living(d, name)
    kind = cmd.kind if cmd.kind in TRAUMA else read_trauma(cmd.kind)
    if kind is None:
        raise RuleError(
            _(
                "unknown trauma {kind!r}; use {kinds}",
                kind=cmd.kind,
                kinds=_("damage, fatigue, confusion or doubt"),
            )
        )
    if not 1 <= cmd.amount <= 20:
        raise RuleError(_("trauma of {amount} is out of range; give 1 to 20 points", amount=cmd.amount))
    hurt(d, name, kind, cmd.amount, "attack" if cmd.armor else "harm", armor=cmd.armor)


@decider.on(Wear)
def wear(d: YZDraft, cmd: Wear) -> None:
    name = actor_of(d, cmd)
    c = living(d, name)
    if cmd.off is not None:
        if cmd.off not in SLOTS:
            raise RuleError(
                _("there is no slot {slot!r} to take off; use armor, shield or suit", slot=cmd.off)
            )
        if cmd.off not in c.worn:
            raise RuleError(_("{name} wears no {slot}", name=name, slot=slot_word(cmd.off)))
        d.emit(ev.Worn(character=name, slot=cmd.off))
        return
    if cmd.item is None:
        raise RuleError(_("name the armor, shield or rot suit to wear, or the slot to take off"))
    item = c.gear.get(cmd.item)
    if item is None or item.kind == "gear":
        worn = [n for n, i in c.gear.items() if i.kind != "gear"] or [_("none")]
        raise RuleError(
            _(
                "{name} has no armor, shield or rot suit {item!r} (have: {worn})",
                name=name,
                item=cmd.item,
                worn=", ".join(worn),
            ),
            fix=Other(text=_("give the character one as its attribute armor.NAME=RATING")),
        )
    if item.destroyed:
        raise RuleError(_("{item} is destroyed for good", item=cmd.item))
    d.emit(ev.Worn(character=name, slot=item.kind, item=cmd.item))


def _eaters(d: YZDraft, cmd: Eat | Drink) -> list[str]:
    if cmd.everyone:
        return alive(d)
    name = actor_of(d, cmd)
    living(d, name)
    return [name]


@decider.on(Drink)
@decider.on(Eat)
def eat(d: YZDraft, cmd: Eat | Drink) -> None:
    resource = "grub" if isinstance(cmd, Eat) else "water"
    condition = "hungry" if resource == "grub" else "thirsty"
    for name in _eaters(d, cmd):
        c = char(d, name)
        met = c.ate if resource == "grub" else c.drank
        use = "lifts" if c.has(condition) else ("recovery" if met else "need")
        d.emit(ev.Consumed(character=name, resource=resource, use=use, contaminated=cmd.contaminated))
        if cmd.contaminated:
            gain_rot(d, name, f"contaminated {resource}", suit=False)
    eng.check_getups(d)


def _hours(hours: int) -> int:
    if not 1 <= hours <= 24:
        raise RuleError(_("{hours} hours is out of range; give 1 to 24", hours=hours))
    return hours


@decider.on(Sleep)
def sleep(d: YZDraft, cmd: Sleep) -> None:
    hours = _hours(cmd.hours)
    unknown = [w for w in cmd.watch if w not in d.game.characters]
    if unknown:
        raise RuleError(
            _("nobody named {names} can keep watch; use a party member's name", names=", ".join(unknown))
        )
    sleepers = tuple(n for n in alive(d) if n not in cmd.watch)
    kept = tuple(n for n in sleepers if hours >= 8 or (hours >= 4 and char(d, n).slept))
    d.emit(ev.Rested(characters=sleepers, hours=hours, sleep=True, sleep_kept=kept))
    eng.advance(d, hours * 60, "sleep")
    if hours >= 4:
        eng.recover_after_rest(d, sleepers)


@decider.on(Rest)
def rest(d: YZDraft, cmd: Rest) -> None:
    hours = _hours(cmd.hours)
    unknown = [w for w in cmd.intimacy if w not in alive(d)]
    if unknown:
        raise RuleError(
            _(
                "no living character named {names} for a moment of intimacy; use a party member's name",
                names=", ".join(unknown),
            )
        )
    if len(cmd.intimacy) == 1:
        raise RuleError(_("a moment of intimacy needs two mutants; name both"))
    d.emit(ev.Rested(characters=tuple(alive(d)), hours=hours, sleep=False, intimacy=cmd.intimacy))
    eng.advance(d, hours * 60, "rest")
    if hours >= 4:
        eng.recover_after_rest(d, tuple(alive(d)))


@decider.on(Booze)
def booze(d: YZDraft, cmd: Booze) -> None:
    name = actor_of(d, cmd)
    c = living(d, name)
    healed = min(1, c.max["strength"] - c.current["strength"])
    doubt = min(1, c.max["empathy"] - c.current["empathy"])
    face = d.dice.roll(6)
    d.emit(ev.Boozed(character=name, damage=healed, doubt=doubt, face=face, wears_off_at=now(d) + face * 60))
    if healed and c.current["strength"] == 0:
        eng.mend_minor_injuries(d, name)
    hurt(d, name, "confusion", 1, "booze")


@decider.on(Rot)
def rot(d: YZDraft, cmd: Rot) -> None:
    name = actor_of(d, cmd)
    living(d, name)
    if not 1 <= cmd.points <= 20:
        raise RuleError(_("{points} Rot points is out of range; give 1 to 20", points=cmd.points))
    source = check_text(cmd.source, _("the Rot source"), 200) or "exposure"
    for _point in range(cmd.points):
        gain_rot(d, name, source)


@decider.on(Enter)
def enter(d: YZDraft, cmd: Enter) -> None:
    sector = cmd.sector.strip().upper()
    here = d.game.position
    where = split_sector(sector)
    if where is None:
        raise RuleError(
            _("sector {sector!r} is not a map sector; use letters then a number, e.g. F8", sector=cmd.sector)
        )
    if sector == here:
        raise RuleError(_("the party is already in {sector}", sector=sector))
    if here:
        hx, hy = split_sector(here) or (0, 0)
        if max(abs(hx - where[0]), abs(hy - where[1])) != 1:
            raise RuleError(
                _(
                    "{sector} is not next to {here}; move one sector at a time (diagonals allowed)",
                    sector=sector,
                    here=here,
                )
            )
    if not d.game.order:
        raise RuleError(
            _("the party has nobody yet"), fix=errors.CreateCharacter(text=_("add characters first"))
        )
    if not alive(d):
        raise RuleError(_("nobody in the party is alive; the Zone has claimed them all"))
    known = d.game.sectors.get(sector)
    face = None
    if known is not None:
        if cmd.rot_level is not None and cmd.rot_level != known.rot_level:
            raise RuleError(
                _(
                    "{sector} has Rot level {level}, not {given}",
                    sector=sector,
                    level=known.rot_level,
                    given=cmd.rot_level,
                ),
                fix=Other(text=_("enter it without a Rot level")),
            )
        level = known.rot_level
    elif cmd.rot_level is not None:
        if str(cmd.rot_level) not in d.game.tables.get("rot_levels", {}):
            levels = ", ".join(sorted(d.game.tables.get("rot_levels", {})))
            raise RuleError(
                _(
                    "Rot level {level} is not in the tables; use one of {levels}",
                    level=cmd.rot_level,
                    levels=levels,
                )
            )
        level = cmd.rot_level
    else:
        face = d.dice.roll(6)
        level = int(d.game.tables["sector_rot"][str(face)])
    explored = known is not None and known.explored
    night = eng.is_night(d.game, now(d))
    minutes = (30 if cmd.vehicle else 60) * (2 if night else 1) if explored else 0
    interval = rot_interval(d.game, level)
    d.emit(
        ev.SectorEntered(
            sector=sector,
            rot_level=level,
            rot_face=face,
            explored=explored,
            minutes=minutes,
            vehicle=cmd.vehicle,
            night=night,
            next_rot_at=now(d) + interval if interval else None,
        )
    )
    if minutes:
        eng.advance(d, minutes, f"passing through {sector}")


TERRAIN = {"open": 120, "typical": 240, "difficult": 480}


@decider.on(Explore)
def explore(d: YZDraft, cmd: Explore) -> None:
    sector = d.game.sectors.get(d.game.position)
    if sector is None or not d.game.position:
        raise RuleError(_("the party is in no sector"), fix=_run(_("enter one"), "enter", "SECTOR"))
    if sector.explored:
        raise RuleError(
            _("{sector} is already explored; passing through it takes an hour", sector=d.game.position)
        )
    if cmd.terrain not in TERRAIN:
        raise RuleError(_("terrain {terrain!r}: use open, typical or difficult", terrain=cmd.terrain))
    if cmd.hurry and cmd.stunt:
        raise RuleError(_("a hurried crossing cannot also use a stunt; choose one of the two"))
    minutes = TERRAIN[cmd.terrain]
    if cmd.stunt:
        minutes //= 2
    if cmd.hurry:
        minutes //= 4
    night = eng.is_night(d.game, now(d))
    if night:
        minutes *= 2
    d.emit(
        ev.SectorExplored(
            sector=d.game.position,
            minutes=minutes,
            hurry=cmd.hurry,
            stunt=cmd.stunt,
            night=night,
            terrain=cmd.terrain,
        )
    )
    eng.advance(d, minutes, f"exploring {d.game.position}")


@decider.on(Wash)
def wash(d: YZDraft, cmd: Wash) -> None:
    name = actor_of(d, cmd)
    c = living(d, name)
    if d.game.rot_level_here() != 0:
        raise RuleError(
            _("{sector} is not Rot-free; wash in the Ark or another Rot-free refuge", sector=d.game.position)
        )
    if c.washed:
        raise RuleError(
            _("{name} already washed since coming back; washing works once per return", name=name)
        )
    temporary = c.rot - c.permanent_rot
    if temporary <= 0:
        raise RuleError(_("{name} has no Rot that washing can remove", name=name))
    eng.lose_rot(d, name, (temporary + 1) // 2, "washing")


@decider.on(Repair)
def repair(d: YZDraft, cmd: Repair) -> None:
    name = actor_of(d, cmd)
    _owner, item = find_item(d, name, cmd.item)
    if item.destroyed:
        raise RuleError(_("{item} is destroyed for good and cannot be repaired", item=cmd.item))
    if item.bonus >= item.max_bonus:
        raise RuleError(
            _(
                "{item} is not damaged (bonus {bonus} of {most})",
                item=cmd.item,
                bonus=item.bonus,
                most=item.max_bonus,
            )
        )
    if char(d, name).skills.get("jury_rig", 0) == 0:
        raise RuleError(
            _(
                "{name} cannot repair: it takes the {skill} skill (a Gearhead's); add skill.jury_rig",
                name=name,
                skill=term_name("jury_rig"),
            )
        )
    rolled = make_roll(
        d,
        name,
        attribute="wits",
        skill="jury_rig",
        purpose="repair",
        target=cmd.item,
        gear=cmd.gear,
        item=cmd.tool,
        helpers=cmd.helpers,
        modifier=cmd.modifier,
    )
    _roll_outcome(d, "repair", name, cmd.item, rolled.successes)
    eng.advance(d, 120, f"repairing {cmd.item}")


@decider.on(Critical)
def critical(d: YZDraft, cmd: Critical) -> None:
    name = actor_of(d, cmd)
    living(d, name)
    eng.critical(d, name)


@decider.on(Tick)
def tick(d: YZDraft, cmd: Tick) -> None:
    if cmd.minutes <= 0:
        raise RuleError(
            _(
                "time only moves forward; give a positive number of hours, got {hours}",
                hours=f"{cmd.minutes / 60:g}",
            )
        )
    eng.advance(d, cmd.minutes, "time passes")


@decider.on(Initiative)
def initiative(d: YZDraft, cmd: Initiative) -> None:
    name = actor_of(d, cmd)
    c = living(d, name)
    face = d.dice.roll(6)
    agility = c.current["agility"]
    d.emit(
        ev.Initiative(
            character=name,
            face=face,
            agility=agility,
            ambush=cmd.ambush,
            total=face + agility + (3 if cmd.ambush else 0),
        )
    )


@decider.on(Heal)
def heal(d: YZDraft, cmd: Heal) -> None:
    name = actor_of(d, cmd)
    target = cmd.target
    if target not in d.game.characters:
        raise RuleError(_("no character named {target!r}; heal a party member", target=target))
    t = char(d, target)
    if t.dead:
        raise RuleError(_("{target} is dead; nobody can heal them", target=target))
    lethal = [i for i in t.injuries if i.lethal]
    modifier = cmd.modifier
    if lethal:
        if any(name in i.tried_by for i in lethal):
            raise RuleError(
                _(
                    "{name} already tried to save {target}; each healer rolls only once",
                    name=name,
                    target=target,
                )
            )
        if name == target:
            modifier -= 2
    elif not t.broken and not any(i.heals_at is not None for i in t.injuries):
        raise RuleError(
            _(
                "{target} has nothing a {skill} roll can treat (not broken, no critical injury healing)",
                target=target,
                skill=term_name("heal"),
            )
        )
    rolled = make_roll(
        d,
        name,
        attribute="empathy",
        skill="heal",
        purpose="heal",
        target=target,
        gear=cmd.gear,
        item=cmd.item,
        helpers=cmd.helpers,
        modifier=modifier,
    )
    _roll_outcome(d, "heal", name, target, rolled.successes)


def heal_effects(d: YZDraft, healer: str, target: str, successes: int) -> None:
    t = char(d, target)
    lethal = tuple(i.name for i in t.injuries if i.lethal)
    if lethal:
        d.emit(ev.Healed(healer=healer, character=target, saved=lethal))
        return
    broken = [a for a in ATTRIBUTES if a in t.broken]
    attribute = broken[0] if broken else None
    restored = min(successes, t.max[attribute]) if attribute else 0
    halved = tuple(
        (i.name, now(d) + (i.heals_at - now(d) + 1) // 2)
        for i in t.injuries
        if i.heals_at is not None and i.heals_at > now(d)
    )
    d.emit(
        ev.Healed(
            healer=healer,
            character=target,
            halved=tuple(n for n, _ in halved),
            injuries=halved,
            attribute=attribute,
            restored=restored,
        )
    )
    if attribute == "strength" and restored:
        eng.mend_minor_injuries(d, target)


@decider.on(Cold)
def cold(d: YZDraft, cmd: Cold) -> None:
    name = actor_of(d, cmd)
    c = living(d, name)
    if c.has("hypothermic") and "strength" in c.broken:
        d.emit(ev.Died(character=name, cause="broken by damage while hypothermic", at=now(d)))
        return
    if c.broken:
        d.emit(ev.Settled(character=name, purpose="cold"))
        freeze(d, name)
        return
    make_roll(d, name, attribute="strength", skill="endure", purpose="cold", gear=cmd.gear, item=cmd.item)


@decider.on(Warm)
def warm(d: YZDraft, cmd: Warm) -> None:
    names = alive(d) if cmd.everyone else [actor_of(d, cmd)]
    cold_ones = [n for n in names if char(d, n).has("hypothermic")]
    if not cold_ones:
        raise RuleError(_("nobody here is hypothermic"))
    for name in cold_ones:
        d.emit(ev.Hypothermia(character=name, warm=True, at=now(d)))
    eng.check_getups(d)


# --- rules version 1 ---------------------------------------------------------------------


def _push_v1(d: YZDraft, cmd: Push) -> None:
    """A push under rules version 1: right after the roll it re-rolls, by whoever rolled it."""
    p = d.game.pending
    if p is None or p.action != d.game.last_action:
        raise RuleError(_("there is no roll to push; a push must come right after the roll it re-rolls"))
    if (cmd.actor or p.character) != p.character:
        raise RuleError(
            _("only {name} can push their own roll", name=p.character),
            fix=ChooseCharacter(text=_("act as {names}", names=p.character), characters=(p.character,)),
        )
    push(d, cmd)


decider_v1 = Decider("yearzero", evolve, before=_before)
"""The yearzero rules of version 1, kept so that the actions recorded under them are decided
again as they were: version 2 pushes the acting character's own last roll, whoever rolled
since; version 1 pushed only the roll just made, and only by whoever made it."""
for _kind in decider.commands:
    decider_v1.on(_kind)(_push_v1 if _kind is Push else decider.handler(_kind))  # type: ignore[arg-type]
