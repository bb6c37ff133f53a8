"""Tests and defaulting: who rolls, with which skill, how many dice, at what TN.

"Si se posee alguna de ellas, se chequea usando su valor, a una dificultad 2
puntos más alta que la anterior y sólo pudiendo usar la mitad de la Reserva
[...] comprobamos a qué Atributo pertenece dicha habilidad y chequeamos con
él. En este caso, la dificultad es 4 puntos más alta, y no se puede utilizar
ninguna reserva."
"""

from __future__ import annotations

import difflib
from typing import Any

from ledger import i18n
from ledger.deciding.decider import Draft
from ledger.errors import (
    ChooseCharacter,
    CreateCharacter,
    DuplicateNameError,
    GameOverError,
    GiveOption,
    Input,
    Other,
    ReadTable,
    RuleError,
    RunCommand,
)
from ledger.i18n import _, n_
from ledger.log.events import CharacterAdded
from ledger.projections.dicepool.state import Character, DicepoolState, norm, parse_character
from ledger.systems.dicepool import tables as tables_mod
from ledger.systems.dicepool.commands import Join, Test
from ledger.systems.dicepool.dice import check_count, test
from ledger.systems.dicepool.events import Defaulting, Modifier, Tested
from ledger.systems.dicepool.model import (
    ATTRIBUTE_NAMES,
    ATTRIBUTES,
    POOL_NAMES,
    SKILL_NAMES,
    read,
    shown,
    skill_or_attribute,
)
from ledger.text import check_attrs, check_name

RELATED_TN = 2
ATTRIBUTE_TN = 4


def run(doing: str, command: str, options: tuple[Input, ...] = ()) -> RunCommand:
    """The fix of ``doing`` what the dicepool command ``command`` does, given ``options``."""
    return RunCommand(
        text=_("{doing} with `{command}`", doing=doing, command=command),
        command=command,
        options=options,
        system="dicepool",
    )


def game_of(draft: Draft[Any]) -> DicepoolState:
    game = draft.game
    return game if isinstance(game, DicepoolState) else DicepoolState()


def character(game: DicepoolState, name: str | None, *, acting: bool = True) -> Character:
    """The character a command is for; acting needs one who is conscious."""
    if name is None or name not in game.characters:
        if not game.characters:
            raise RuleError(_("no character is acting"), fix=CreateCharacter(text=_("add one to the party")))
        raise RuleError(
            _("no character is acting"),
            fix=ChooseCharacter(text=_("say which character acts"), characters=tuple(game.characters)),
        )
    who = game.characters[name]
    others = tuple(n for n, c in game.characters.items() if n != name and c.status == "active")
    if who.dead:
        raise GameOverError(
            _(
                "{who} is dead (overflow {overflow} > body {body})",
                who=name,
                overflow=who.overflow,
                body=who.attribute("body"),
            ),
            fix=ChooseCharacter(text=_("act as another character"), characters=others),
        )
    if acting and who.unconscious:
        raise RuleError(
            _("{who} is unconscious (a full condition track)", who=name),
            fix=run(_("heal them first"), "heal"),
        )
    return who


def resolve_skill(who: Character, wanted: str, tables: dict[str, Any]) -> Defaulting:
    """The skill itself, the best related skill (TN+2) or the skill's attribute (TN+4)."""
    known = tuple(tables.get("skills", {})) + tuple(who.skills)
    skill = read(wanted, ATTRIBUTE_NAMES, SKILL_NAMES, keys=known) or norm(wanted)
    if skill in ATTRIBUTES:
        return Defaulting(wanted=skill, used=skill, how="attribute", rating=who.attribute(skill))
    if skill in who.skills:
        return Defaulting(wanted=skill, used=skill, how="skill", rating=who.skills[skill])
    entry = tables_mod.skill_entry(tables, skill)
    if entry is None:
        owned = ", ".join(sorted(skill_or_attribute(s) for s in who.skills)) or _("none")
        raise RuleError(
            _(
                "{who} has no skill {wanted!r} and the skill web does not list it "
                "({who}'s skills: {known}); name a skill of the web or an attribute",
                who=who.name,
                wanted=wanted,
                known=owned,
            )
        )
    related = [r for r in entry.get("related", []) if r in who.skills]
    if related:
        best = max(related, key=lambda r: who.skills[r])
        return Defaulting(wanted=skill, used=best, how="related", rating=who.skills[best])
    attribute = str(entry["attribute"])
    return Defaulting(wanted=skill, used=attribute, how="default-attribute", rating=who.attribute(attribute))


def default_modifiers(found: Defaulting) -> list[Modifier]:
    if found.how == "related":
        return [Modifier(reason=f"defaulting to related skill {found.used}", value=RELATED_TN)]
    if found.how == "default-attribute":
        return [Modifier(reason=f"defaulting to attribute {found.used}", value=ATTRIBUTE_TN)]
    return []


def usable_pool(who: Character, found: Defaulting, pool: str) -> int:
    """All the pool for a skill, half (rounded down) for a related skill, none otherwise."""
    left = who.pool_left(pool)
    if found.how == "skill":
        return left
    if found.how == "related":
        return left // 2
    return 0


def check_pool(who: Character, found: Defaulting, pool: str, wanted: int) -> None:
    if wanted < 0:
        raise RuleError(_("a pool of {n} dice is negative; spend 0 or more pool dice", n=wanted))
    usable = usable_pool(who, found, pool)
    if wanted <= usable:
        return
    if found.how in ("attribute", "default-attribute"):
        raise RuleError(
            _(
                "no pool dice on a test of {attribute}, an attribute",
                attribute=skill_or_attribute(found.used),
            ),
            fix=GiveOption(system="dicepool", text=_("spend no pool dice"), inputs=(Input("pool", "0"),)),
        )
    fields = {"who": who.name, "pool": shown(pool, POOL_NAMES), "wanted": wanted}
    if found.how == "related":
        message = n_(
            "{who} can spend {n} {pool} pool die here (half the pool, defaulting to a related skill), "
            "not {wanted} (the {pool} pool refreshes each combat turn)",
            "{who} can spend {n} {pool} pool dice here (half the pool, defaulting to a related skill), "
            "not {wanted} (the {pool} pool refreshes each combat turn)",
            usable,
            **fields,
        )
    else:
        message = n_(
            "{who} can spend {n} {pool} pool die here, not {wanted} (the {pool} pool refreshes each combat turn)",
            "{who} can spend {n} {pool} pool dice here, not {wanted} (the {pool} pool refreshes each combat turn)",
            usable,
            **fields,
        )
    raise RuleError(
        message,
        fix=GiveOption(
            system="dicepool", text=_("spend {n} or fewer", n=usable), inputs=(Input("pool", str(usable)),)
        ),
    )


def wound_modifiers(who: Character) -> list[Modifier]:
    value = who.tn_modifier
    return [Modifier(reason="wounds", value=value)] if value else []


def situational(tables: dict[str, Any], mods: tuple[str, ...]) -> list[Modifier]:
    found = (tables_mod.modifier(tables, m) for m in mods)
    return [Modifier(reason=reason, value=value) for reason, value in found]


def dice_count(rating: int, pool: int, override: int | None) -> int:
    count = rating + pool if override is None else override
    check_count(count, _("the test"))
    if count == 0:
        raise RuleError(
            _("the test has no dice (rating 0 and no pool)"),
            fix=GiveOption(
                system="dicepool",
                text=_("raise the rating or say how many dice to roll"),
                inputs=(Input("dice", "N"),),
            ),
        )
    return count


def decide_test(draft: Draft[DicepoolState], command: Test) -> None:
    who = character(game_of(draft), command.actor)
    if not 2 <= command.tn <= 30:
        raise RuleError(
            _(
                "a TN of {tn} is out of range; the rules put a TN above 2, rarely past 10 (2 to 30)",
                tn=command.tn,
            )
        )
    tables = draft.tables
    found = resolve_skill(who, command.skill, tables)
    pool = read(command.pool_name, POOL_NAMES, keys=tuple(who.pools)) or norm(command.pool_name)
    check_pool(who, found, pool, command.pool)
    modifiers = default_modifiers(found) + wound_modifiers(who) + situational(tables, command.mods)
    count = dice_count(found.rating, command.pool, command.dice)
    roll = test(count, command.tn, modifiers, draft.dice)
    draft.emit(
        Tested(
            character=who.name,
            defaulting=found,
            roll=roll,
            pool=pool,
            pool_used=command.pool,
            manual=draft.dice.manual,
        )
    )


def check_join(tables: dict[str, Any], name: str, attrs: dict[str, str]) -> Character:
    """Validate a new character's attributes (strictly: nothing may be ignored)."""
    who = parse_character(name, attrs)
    if who.ignored:
        key, value = next(iter(who.ignored.items()))
        raise RuleError(
            _("the attribute {key}={value} does not fit", key=key, value=value),
            fix=Other(
                text=_(
                    "use an attribute ({attributes}), skill.NAME, pool.NAME, armor, "
                    "armor.impact, weapon or initiative.dice with a rating 0 to 30",
                    attributes=", ".join(ATTRIBUTES),
                )
            ),
        )
    if who.attribute("body") < 1:
        raise RuleError(
            _("{who} needs a body of 1 or more (it resists damage)", who=name),
            fix=GiveOption(text=_("give the character a body"), inputs=(Input("attrs", "body=N"),)),
        )
    known = tables.get("skills", {})
    for skill in who.skills:
        if skill not in known:
            near = [k for k in known if k.startswith(skill)] or difflib.get_close_matches(
                skill, list(known), 3
            )
            raise RuleError(
                _(
                    "no skill {skill!r} in the campaign's skills table (did you mean {near}?)",
                    skill=skill,
                    near=", ".join(near),
                )
                if near
                else _("no skill {skill!r} in the campaign's skills table", skill=skill),
                fix=ReadTable(text=_("see the skills table"), table="skills"),
            )
    if who.weapon is not None:
        tables_mod.weapon(tables, who.weapon)
    return who


HEADS = {"habilidad": "skill", "reserva": "pool", "armadura": "armor", "iniciativa": "initiative"}
"""The convention's Spanish words for its parts (``habilidad.pistolas=5``)."""
TAILS = {"impacto": "impact", "balistica": "ballistic", "dados": "dice"}
SINGLE = {"armadura": "armor", "arma": "weapon"}


def neutral_key(raw: str, tables: dict[str, Any]) -> str:
    """An attribute key typed in either language as the convention stores it: ``raw``
    itself when it already is one (what English typing stores, as always), else the key
    it names (``resistencia`` is ``body``, ``habilidad.pistolas`` is ``skill.pistols``)."""
    key = norm(raw)
    head, sep, tail = key.partition(".")
    if not sep:
        if key in ATTRIBUTES or key in ("armor", "weapon"):
            return raw
        return SINGLE.get(i18n.fold(key)) or read(raw, ATTRIBUTE_NAMES) or raw
    english = HEADS.get(i18n.fold(head), head)
    if english == "skill":
        skills = tuple(tables.get("skills", {}))
        found = tail if tail in skills else read(tail, SKILL_NAMES, keys=skills) or tail
    elif english == "pool":
        found = read(tail, POOL_NAMES) or tail
    elif english == "attr":
        found = read(tail, ATTRIBUTE_NAMES) or tail
    else:
        found = TAILS.get(i18n.fold(tail), tail)
    if (english, found) == (head, tail):
        return raw
    return f"{english}.{found}"


def join(draft: Draft[DicepoolState], command: Join) -> None:
    """A new party member, its attributes checked against the convention; keys typed in
    Spanish are stored as the convention's (language-neutral) keys."""
    name = check_name(command.name, "character")
    attrs = check_attrs(command.attrs)
    attrs = {neutral_key(k, draft.tables): v for k, v in attrs.items()}
    if name in draft.state.core.characters:
        raise DuplicateNameError(_("character {name!r} already exists; pick another name", name=name))
    check_join(draft.tables, command.name, attrs)
    draft.emit(CharacterAdded(name=name, attrs=attrs))
