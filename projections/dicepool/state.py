"""The dicepool state: the party, their pools and condition monitors, the last exchange.

Characters join with the core ``character.added`` event; their string
attributes follow this convention (``ledger character add NAME --attr ...``):

- ``body=4``, ``quickness=5``, ... : attributes (body, quickness, strength,
  charisma, intelligence, willpower, reaction, essence, magic); reaction
  defaults to (quickness + intelligence) / 2, rounded down;
- ``skill.pistols=5``: a skill rating (names in lower case, ``_`` for spaces);
- ``pool.combat=6``: a pool's size; the combat pool defaults to
  (quickness + intelligence + willpower) / 2, rounded down;
- ``armor=2`` (ballistic) or ``armor.ballistic=2`` and ``armor.impact=1``;
- ``weapon=ares_predator``: the weapon used when ``--weapon`` is not given;
- ``initiative.dice=1``: initiative dice (1 unless boosted).

Values that break the convention are kept aside under ``ignored`` on the
sheet (the fold never raises); ``ledger dicepool join`` validates them first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from ledger import i18n
from ledger.i18n import N_, _, n_
from ledger.log.events import CampaignStarted, CharacterAdded, Envelope, Event
from ledger.systems import Ask, Control, Form, SheetField, SheetLayout, SheetSection
from ledger.systems.dicepool.events import (
    Attacked,
    Dodged,
    Healed,
    InitiativeRolled,
    Resisted,
    Tested,
    boxes_text,
)
from ledger.systems.dicepool.model import (
    ATTRIBUTE_NAMES,
    ATTRIBUTES,
    EXCHANGE_WORDS,
    MONITOR,
    STATUS_NAMES,
    box_level,
    level_text,
    shown,
    skill_or_attribute,
    tn_modifier,
)

MAX_RATING = 30


class Character(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    attributes: dict[str, int] = {}
    skills: dict[str, int] = {}
    pools: dict[str, int] = {}
    spent: dict[str, int] = {}
    """Pool dice spent since the last combat turn began."""
    armor_ballistic: int = 0
    armor_impact: int = 0
    weapon: str | None = None
    initiative_dice: int = 1
    physical: int = 0
    stun: int = 0
    overflow: int = 0
    initiative: int | None = None
    ignored: dict[str, str] = {}
    worst_wound_only: bool = False
    """The campaign's ``wound_modifiers = "worst"`` setting."""

    def attribute(self, name: str) -> int:
        return self.attributes.get(name, 0)

    def pool_left(self, pool: str) -> int:
        return max(0, self.pools.get(pool, 0) - self.spent.get(pool, 0))

    @property
    def tn_modifier(self) -> int:
        return tn_modifier(self.physical, self.stun, self.worst_wound_only)

    @property
    def dead(self) -> bool:
        return self.overflow > self.attribute("body")

    @property
    def unconscious(self) -> bool:
        return self.physical >= MONITOR or self.stun >= MONITOR

    @property
    def status(self) -> str:
        if self.dead:
            return "dead"
        if self.unconscious:
            return "unconscious"
        return "active"


class Exchange(msgspec.Struct, frozen=True, kw_only=True):
    """One attack and what came of it: dodge, resistance, staged wound."""

    number: int
    attacker: str
    target: str | None
    weapon: str | None
    damage: str | None
    melee: bool
    tn: int
    successes: int
    remaining: int
    status: str
    stun: bool = False
    """open (waiting for a dodge or the resistance test), missed, dodged or resolved."""
    dodged: int | None = None
    resisted: int | None = None
    power: int | None = None
    armor: int | None = None
    net: int | None = None
    base_level: str | None = None
    level: str | None = None
    track: str | None = None
    boxes: int = 0


class DicepoolState(msgspec.Struct, frozen=True, kw_only=True):
    wound_modifiers: str = "cumulative"
    characters: dict[str, Character] = {}
    turn: int = 0
    order: tuple[str, ...] = ()
    exchanges: int = 0
    last: Exchange | None = None

    @property
    def open_exchange(self) -> Exchange | None:
        return self.last if self.last is not None and self.last.status == "open" else None


# --- the attribute convention ------------------------------------------------------


def norm(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def _rating(value: str) -> int | None:
    text = value.strip()
    if not (0 < len(text) <= 3 and all(c in "0123456789" for c in text)):
        return None
    number = int(text)
    return number if 0 <= number <= MAX_RATING else None


def parse_character(name: str, attrs: dict[str, str]) -> Character:
    """A character from its string attributes; what does not fit goes to ``ignored``."""
    attributes: dict[str, int] = {}
    skills: dict[str, int] = {}
    pools: dict[str, int] = {}
    extra: dict[str, Any] = {"initiative_dice": 1}
    ignored: dict[str, str] = {}
    for raw_key, value in attrs.items():
        key = norm(raw_key)
        head, _, tail = key.partition(".")
        if key == "weapon":
            extra["weapon"] = norm(value) or None
            continue
        number = _rating(value)
        if number is None:
            ignored[raw_key] = value
        elif key in ATTRIBUTES or (head == "attr" and tail in ATTRIBUTES):
            attributes[tail or key] = number
        elif head == "skill" and tail:
            skills[tail] = number
        elif head == "pool" and tail:
            pools[tail] = number
        elif key in ("armor", "armor.ballistic"):
            extra["armor_ballistic"] = number
        elif key == "armor.impact":
            extra["armor_impact"] = number
        elif key == "initiative.dice" and number >= 1:
            extra["initiative_dice"] = number
        else:
            ignored[raw_key] = value
    if "reaction" not in attributes and {"quickness", "intelligence"} <= set(attributes):
        attributes["reaction"] = (attributes["quickness"] + attributes["intelligence"]) // 2
    if "combat" not in pools and {"quickness", "intelligence", "willpower"} <= set(attributes):
        pools["combat"] = (
            attributes["quickness"] + attributes["intelligence"] + attributes["willpower"]
        ) // 2
    return Character(name=name, attributes=attributes, skills=skills, pools=pools, ignored=ignored, **extra)


# --- the fold -------------------------------------------------------------------------


def initial(started: CampaignStarted) -> DicepoolState:
    rules = started.tables.get("rules", {})
    setting = rules.get("wound_modifiers", "cumulative") if isinstance(rules, dict) else "cumulative"
    return DicepoolState(wound_modifiers=str(setting))


def _put(state: DicepoolState, who: Character) -> DicepoolState:
    return replace(state, characters={**state.characters, who.name: who})


def _spend(state: DicepoolState, name: str, pool: str, dice: int) -> DicepoolState:
    who = state.characters.get(name)
    if who is None or dice <= 0:
        return state
    return _put(state, replace(who, spent={**who.spent, pool: who.spent.get(pool, 0) + dice}))


def _added(state: DicepoolState, ev: CharacterAdded, _env: Envelope[Any]) -> DicepoolState:
    who = parse_character(ev.name, dict(ev.attrs))
    return _put(state, replace(who, worst_wound_only=state.wound_modifiers == "worst"))


def _tested(state: DicepoolState, ev: Tested, _env: Envelope[Any]) -> DicepoolState:
    return _spend(state, ev.character, ev.pool, ev.pool_used)


def _attacked(state: DicepoolState, ev: Attacked, _env: Envelope[Any]) -> DicepoolState:
    state = _spend(state, ev.attacker, "combat", ev.pool_used)
    exchange = Exchange(
        number=ev.exchange,
        attacker=ev.attacker,
        target=ev.target,
        weapon=ev.weapon,
        damage=ev.damage,
        melee=ev.melee,
        stun=ev.stun,
        tn=ev.roll.tn,
        successes=ev.roll.successes,
        remaining=ev.roll.successes,
        status="open" if ev.hit else "missed",
    )
    return replace(state, exchanges=max(state.exchanges, ev.exchange), last=exchange)


def _dodged(state: DicepoolState, ev: Dodged, _env: Envelope[Any]) -> DicepoolState:
    state = _spend(state, ev.character, "combat", ev.pool_used)
    if state.last is None or state.last.number != ev.exchange:
        return state
    last = replace(
        state.last,
        target=ev.character,
        dodged=ev.roll.successes,
        remaining=ev.remaining,
        status="dodged" if ev.remaining <= 0 else "open",
    )
    return replace(state, last=last)


def _resisted(state: DicepoolState, ev: Resisted, _env: Envelope[Any]) -> DicepoolState:
    state = _spend(state, ev.character, "combat", ev.pool_used)
    who = state.characters.get(ev.character)
    if who is not None:
        state = _put(state, replace(who, physical=ev.physical, stun=ev.stun, overflow=ev.overflow))
    if ev.exchange is None or state.last is None or state.last.number != ev.exchange:
        return state
    last = replace(
        state.last,
        target=ev.character,
        damage=ev.damage,
        resisted=ev.roll.successes,
        power=ev.power,
        armor=ev.armor,
        net=ev.net,
        base_level=ev.base_level,
        level=ev.level,
        track=ev.track,
        boxes=ev.boxes,
        status="resolved",
    )
    return replace(state, last=last)


def _initiative(state: DicepoolState, ev: InitiativeRolled, _env: Envelope[Any]) -> DicepoolState:
    scores = {e.character: e.score for e in ev.entries}
    characters = {
        name: replace(who, spent={}, initiative=scores.get(name)) for name, who in state.characters.items()
    }
    order = tuple(e.character for e in ev.entries)
    return replace(state, characters=characters, turn=ev.turn, order=order)


def _healed(state: DicepoolState, ev: Healed, _env: Envelope[Any]) -> DicepoolState:
    who = state.characters.get(ev.character)
    if who is None:
        return state
    return _put(state, replace(who, physical=ev.physical, stun=ev.stun))


_FOLDS: dict[type[Event], Callable[[DicepoolState, Any, Envelope[Any]], DicepoolState]] = {
    CharacterAdded: _added,
    Tested: _tested,
    Attacked: _attacked,
    Dodged: _dodged,
    Resisted: _resisted,
    InitiativeRolled: _initiative,
    Healed: _healed,
}


def evolve(state: DicepoolState, event: Event, env: Envelope[Any]) -> DicepoolState:
    fold = _FOLDS.get(type(event))
    return state if fold is None else fold(state, event, env)


# --- the sheet ------------------------------------------------------------------------


def _level_text(level: str | None) -> str | None:
    return level_text(level) if level else None


def exchange_view(exchange: Exchange | None) -> dict[str, Any] | None:
    """The last exchange: attacker successes, dodged, resisted, staged wound."""
    if exchange is None:
        return None
    return {
        "exchange": exchange.number,
        "attacker": exchange.attacker,
        "target": exchange.target,
        "weapon": exchange.weapon,
        "damage": exchange.damage,
        "tn": exchange.tn,
        "attacker_successes": exchange.successes,
        "dodged": exchange.dodged,
        "remaining": exchange.remaining,
        "power": exchange.power,
        "armor": exchange.armor,
        "resisted": exchange.resisted,
        "net": exchange.net,
        "staged": (
            f"{exchange.base_level} -> {exchange.level or _('no wound')}" if exchange.base_level else None
        ),
        "wound": _level_text(exchange.level),
        "boxes": exchange.boxes,
        "track": exchange.track,
        "status": exchange.status,
    }


def character_view(who: Character) -> dict[str, Any]:
    worst = max(
        (lvl for lvl in (box_level(who.physical), box_level(who.stun)) if lvl),
        key="SLGM".index,
        default=None,
    )
    return {
        "name": who.name,
        "status": who.status,
        "attributes": dict(who.attributes),
        "skills": dict(who.skills),
        "pools": {p: {"current": who.pool_left(p), "max": size} for p, size in who.pools.items()},
        "condition": {"physical": who.physical, "stun": who.stun, "boxes": MONITOR, "overflow": who.overflow},
        "wound_level": worst,
        "wounds": {
            "physical": _level_text(box_level(who.physical)),
            "stun": _level_text(box_level(who.stun)),
        },
        "tn_modifier": who.tn_modifier,
        "armor": {"ballistic": who.armor_ballistic, "impact": who.armor_impact},
        "weapon": who.weapon,
        "initiative": who.initiative,
        "ignored": dict(who.ignored),
    }


def sheet(state: Any, actor: str | None) -> dict[str, Any]:
    game: DicepoolState = state.game or DicepoolState()
    name = actor or state.core.last_actor
    if name not in game.characters:
        name = next(iter(game.characters), None)
    data: dict[str, Any] = {"campaign": state.core.name, "system": "dicepool", "turn": game.turn}
    if name is not None:
        data.update(character_view(game.characters[name]))
    data["party"] = {
        who.name: {
            "status": who.status,
            "physical": who.physical,
            "stun": who.stun,
            "combat_pool": who.pool_left("combat"),
            "initiative": who.initiative,
        }
        for who in game.characters.values()
    }
    data["last_exchange"] = exchange_view(game.last)
    if name is not None:
        data["status_text"] = shown(data["status"], STATUS_NAMES)
        data["attribute_text"] = ", ".join(
            f"{shown(k, ATTRIBUTE_NAMES)} {v}" for k, v in data["attributes"].items()
        ) or _("none")
        data["skill_text"] = ", ".join(f"{skill_or_attribute(k)} {v}" for k, v in data["skills"].items())
    if len(data["party"]) > 1:
        data["party_lines"] = [
            _(
                "{who} {physical}P/{stun}S pool {pool}",
                who=n,
                physical=p["physical"],
                stun=p["stun"],
                pool=p["combat_pool"],
            )
            for n, p in data["party"].items()
        ]
    if data.get("condition", {}).get("overflow"):
        data["overflow"] = data["condition"]["overflow"]
    if data["last_exchange"]:
        data["exchange_line"] = exchange_text(data["last_exchange"])
    return data


POOL = Ask(field="pool", label="pool", default=0, low=0, high=30)
MODS = Ask(field="mods", label="mod", pick="@tables.modifiers")
TEST_OPTIONS = (
    Ask(field="tn", label="tn", default=4, low=2, high=30),
    POOL,
    Ask(field="pool_name", label="pool-name", pick="pools", default="combat"),
    MODS,
)
"""A test asks its target number (4, the usual one, unless the GM sets another), the pool
dice added and the situational modifiers."""
RANGES = ("short", "medium", "long", "extreme")

CONTROLS = (
    Control(
        command="dicepool.Test",
        on="attributes",
        each="attributes",
        args={"skill": "{key}"},
        options=TEST_OPTIONS,
    ),
    Control(
        command="dicepool.Test", on="skills", each="skills", args={"skill": "{key}"}, options=TEST_OPTIONS
    ),
    Control(
        command="dicepool.Attack",
        on="weapon",
        label=N_("attack with {weapon}"),
        detail=N_("combat pool {pools.combat.current}"),
        options=(
            Ask(field="target", label="target", pick="@others"),
            Ask(field="range", label="range", choices=RANGES),
            POOL,
            Ask(field="burst", label="burst", default=1, low=1, high=20),
            Ask(field="melee", label="melee"),
            MODS,
        ),
    ),
    Control(
        command="dicepool.Dodge",
        on="pools.combat",
        label=N_("dodge the attack"),
        where={"last_exchange.status": ("open",)},
        options=(
            Ask(field="pool", label="pool", low=1, high=30),
            Ask(field="tn", label="tn", default=4, low=2, high=30),
        ),
    ),
    Control(
        command="dicepool.Resist",
        on="pools.combat",
        label=N_("resist the damage"),
        where={"last_exchange.status": ("open",)},
        options=(POOL, Ask(field="stun", label="stun")),
    ),
)
"""What a runner taps on the sheet: an attribute or a skill tests it, the weapon attacks;
while an attack is open, a dodge and the resistance test."""

FORMS = (
    Form(command="dicepool.Test", name=N_("dicepool test"), group=N_("Rolls"), sheet=True),
    Form(command="dicepool.Dodge", name=N_("dicepool dodge"), group=N_("Fight"), sheet=True),
    Form(
        command="dicepool.Initiative",
        name=N_("dicepool initiative"),
        group=N_("Fight"),
        asks=(Ask(field="only", label="only", pick="@characters"),),
    ),
    Form(
        command="dicepool.Attack",
        name=N_("dicepool attack"),
        group=N_("Fight"),
        asks=(
            Ask(field="weapon", label="weapon", pick="@tables.weapons"),
            Ask(field="target", label="target", pick="@others"),
            Ask(field="skill", label="skill", pick="skills"),
            Ask(field="range", label="range", choices=RANGES),
            Ask(field="distance", label="distance", low=0),
            POOL,
            Ask(field="burst", label="burst", default=1, low=1, high=20),
            Ask(field="damage", label="damage"),
            Ask(field="melee", label="melee"),
            MODS,
        ),
    ),
    Form(
        command="dicepool.Resist",
        name=N_("dicepool resist"),
        group=N_("Fight"),
        asks=(
            Ask(field="damage", label="damage"),
            Ask(field="armor", label="armor", low=0),
            POOL,
            Ask(field="against", label="against", low=0),
            Ask(field="stun", label="stun"),
        ),
    ),
    Form(
        command="dicepool.Heal",
        name=N_("dicepool heal"),
        group=N_("Healing"),
        asks=(
            Ask(field="boxes", label="boxes", low=1, high=10),
            Ask(field="track", label="track", choices=("physical", "stun"), default="physical"),
            Ask(field="reason", label="reason"),
        ),
    ),
    Form(
        command="dicepool.Join",
        name=N_("dicepool join"),
        group=N_("Party"),
        asks=(Ask(field="name", label="name"), Ask(field="attrs", label="attr")),
    ),
)
"""The dicepool commands a runner's sheet does not hold, by what the party is doing."""

SHEET = SheetLayout(
    title=(
        N_("{name} ({status_text}), {campaign}, combat turn {turn}"),
        N_("{campaign} (dicepool), combat turn {turn}"),
    ),
    headline=(
        SheetField("condition.physical", N_("Physical"), max="condition.boxes"),
        SheetField("condition.stun", N_("Stun"), max="condition.boxes"),
        SheetField("pools.combat", N_("Combat pool")),
        SheetField("wound_level", N_("wound")),
    ),
    sections=(
        SheetSection(N_("Attributes"), (SheetField("attributes", "", show="{attribute_text}"),), when="name"),
        SheetSection(N_("Skills"), (SheetField("skills", "", show="{skill_text}"),), when="skills"),
        SheetSection(
            N_("Combat"),
            (
                SheetField("weapon", N_("weapon")),
                SheetField(
                    "armor", N_("armor"), show=N_("ballistic {armor.ballistic}, impact {armor.impact}")
                ),
                SheetField("tn_modifier", N_("TN modifier"), show="+{tn_modifier}"),
                SheetField("overflow", N_("overflow boxes")),
                SheetField("initiative", N_("initiative")),
            ),
            when="name",
        ),
        SheetSection(N_("Ignored attributes"), (SheetField("ignored", ""),), when="ignored"),
        SheetSection(N_("Party"), (SheetField("party_lines", ""),), when="party_lines"),
        SheetSection(N_("Last exchange"), (SheetField("exchange_line", ""),), when="exchange_line"),
    ),
    controls=CONTROLS,
)
"""A runner's sheet as a player reads it (``ledger sheet``, the report)."""


def exchange_text(x: dict[str, Any]) -> str:
    parts = [
        n_(
            "#{number} {attacker} -> {target}: {n} success",
            "#{number} {attacker} -> {target}: {n} successes",
            x["attacker_successes"],
            number=x["exchange"],
            attacker=x["attacker"],
            target=x["target"] or "?",
        )
    ]
    if x["dodged"] is not None:
        parts.append(_("{dodged} dodged ({remaining} left)", dodged=x["dodged"], remaining=x["remaining"]))
    if x["resisted"] is not None:
        parts.append(
            _(
                "{damage} vs armor {armor} = power {power}, {resisted} resisted",
                damage=x["damage"],
                armor=x["armor"],
                power=x["power"],
                resisted=x["resisted"],
            )
        )
        parts.append(
            _(
                "net {net}, staged {staged}: {boxes}",
                net=f"{x['net']:+d}",
                staged=x["staged"],
                boxes=boxes_text(x["boxes"], x["track"]),
            )
        )
    status = x["status"]
    parts.append(
        i18n.translate(EXCHANGE_WORDS[status], "dicepool exchange") if status in EXCHANGE_WORDS else status
    )
    return "; ".join(parts)
