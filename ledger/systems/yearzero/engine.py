"""The yearzero rules engine: dice pools, trauma, Rot and the passing of time.

Every rule here works on a :class:`ledger.deciding.decider.Draft` of the yearzero state:
each event is folded into ``draft.game`` as soon as it is emitted, so later
rules see earlier consequences (a push that breaks a character rolls the
critical injury on the Strength it left). All dice go through ``dice.roll(6)``
in the documented order, so ``--faces`` works for every command.

The draft's clock is the game's ``minute``: every rule stamps its events with
:func:`now`, and only :func:`advance` moves it, to each moment that comes due
on the way to the end of the time that passes.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from msgspec.structs import replace

from ledger.deciding.decider import Draft
from ledger.errors import ChooseCharacter, RuleError, Setting
from ledger.i18n import _
from ledger.projections.yearzero.game import Character, YZState
from ledger.projections.yearzero.vocabulary import ATTRIBUTES, DAY, TRAUMA, said
from ledger.systems.yearzero import events as ev
from ledger.systems.yearzero.tables import english

YZDraft = Draft[YZState]
"""A yearzero command being decided."""

GETUP_BLOCKERS = ("hungry", "thirsty", "hypothermic")
RECOVERY_BLOCKERS = {
    "strength": ("thirsty", "hungry", "hypothermic"),
    "agility": ("thirsty",),
    "wits": ("thirsty", "sleepless", "hypothermic"),
    "empathy": ("thirsty",),
}
RESOURCE = {"strength": "grub", "agility": "water", "wits": "sleep", "empathy": "intimacy"}


SETTINGS: dict[str, tuple[int, int, int]] = {
    "start_hour": (8, 0, 23),
    "night_start": (20, 0, 23),
    "night_end": (6, 0, 23),
    "suit_sixes_to_absorb": (1, 1, 10),
    "max_hours": (168, 1, 24 * 365),
}
"""Each yearzero setting: (default, lowest, highest)."""


def setting(game: YZState, key: str) -> int:
    """A whole-number setting of the campaign, refusing a value that is not one."""
    default, lo, hi = SETTINGS[key]
    raw = game.settings.get(key, default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = lo - 1
    if isinstance(raw, bool) or not lo <= value <= hi:
        raise RuleError(
            _(
                "the campaign's setting {key}={raw!r} is not a whole number from {lo} to {hi}",
                key=key,
                raw=raw,
                lo=lo,
                hi=hi,
            ),
            fix=Setting(
                text=_(
                    "start the campaign again with {key} set to a whole number from {lo} to {hi}",
                    key=key,
                    lo=lo,
                    hi=hi,
                ),
                key=key,
            ),
        )
    return value


def check_settings(game: YZState) -> None:
    for key in SETTINGS:
        setting(game, key)


def d6(d: YZDraft, count: int) -> tuple[int, ...]:
    """``count`` six-sided dice, rolled in order."""
    return tuple(d.dice.roll(6) for _ in range(count))


def char(d: YZDraft, name: str) -> Character:
    """A character as the events decided so far leave them."""
    return d.game.characters[name]


def alive(d: YZDraft) -> list[str]:
    """The party members still alive, in the order they joined."""
    return [n for n in d.game.order if not d.game.characters[n].dead]


def now(d: YZDraft) -> int:
    """The game minute the draft has reached."""
    return d.game.minute


def move_clock(d: YZDraft, minute: int) -> None:
    """Move the draft's clock on to ``minute``, where the next things come due; the
    ``TimePassed`` that ends the advance records the time for good."""
    d.game = replace(d.game, minute=minute)


# --- exact probabilities ---------------------------------------------------------


@cache
def _binomial(n: int) -> tuple[Fraction, ...]:
    """P(k sixes on n d6), k = 0..n."""
    dist = [Fraction(1)]
    for _die in range(n):
        nxt = [Fraction(0)] * (len(dist) + 1)
        for k, p in enumerate(dist):
            nxt[k] += p * Fraction(5, 6)
            nxt[k + 1] += p * Fraction(1, 6)
        dist = nxt
    return tuple(dist)


def p_success(rolled: int, negative: int = 0, kept_sixes: int = 0, kept_negative_sixes: int = 0) -> float:
    """Exact P(at least one net success): ``rolled`` positive dice to roll, ``negative``
    negative dice to roll, plus sixes already kept on each side."""
    total = Fraction(0)
    for k, pk in enumerate(_binomial(rolled)):
        for m, pm in enumerate(_binomial(negative)):
            if kept_sixes + k - kept_negative_sixes - m >= 1:
                total += pk * pm
    return float(total)


# --- trauma, breaking, critical injuries -------------------------------------------


def living(d: YZDraft, name: str) -> Character:
    c = char(d, name)
    if c.dead:
        raise RuleError(
            _("{name} is dead ({cause})", name=name, cause=said(c.death_cause or "")),
            fix=ChooseCharacter(text=_("act as another character"), characters=tuple(alive(d))),
        )
    return c


def hurt(d: YZDraft, name: str, kind: str, amount: int, cause: str, *, armor: bool = False) -> None:
    """Trauma of one kind; armor and shield roll first against damage from attacks."""
    c = char(d, name)
    if c.dead or amount <= 0:
        return
    if armor and kind == "damage":
        amount = _armor(d, name, amount)
    c = char(d, name)
    attribute = TRAUMA[kind]
    before = c.current[attribute]
    taken = min(amount, before)
    d.emit(
        ev.Trauma(
            character=name,
            trauma=kind,
            attribute=attribute,
            amount=taken,
            after=before - taken,
            cause=cause,
            at=now(d),
        )
    )
    after_trauma(d, name, attribute, before, amount)


def _armor(d: YZDraft, name: str, amount: int) -> int:
    for slot in ("shield", "armor"):
        item = char(d, name).worn_item(slot)
        if item is None or item.bonus <= 0 or amount <= 0:
            continue
        faces = d6(d, item.bonus)
        stopped = min(amount, faces.count(6))
        after = max(0, item.bonus - faces.count(1))
        d.emit(
            ev.ArmorRolled(
                character=name, item=item.name, slot=slot, faces=faces, stopped=stopped, rating_after=after
            )
        )
        amount -= stopped
    return amount


def after_trauma(d: YZDraft, name: str, attribute: str, before: int, amount: int) -> None:
    """Breaking at 0: a critical injury for Strength (2d6), then 1d6 hours to get up."""
    c = char(d, name)
    if amount <= 0 or c.current[attribute] > 0:
        return
    if attribute == "strength":
        critical(d, name)
        if char(d, name).dead:
            return
    if before > 0:
        face = d.dice.roll(6)
        d.emit(ev.Broken(character=name, attribute=attribute, getup_face=face, getup_at=now(d) + face * 60))


def critical(d: YZDraft, name: str) -> None:
    faces = d6(d, 2)
    result = sum(faces)
    row = d.game.tables["critical_injuries"][str(result)]
    lethal, instant = bool(row.get("lethal")), bool(row.get("instant"))
    deadline = now(d) + int(row["deadline_minutes"]) if lethal and not instant else None
    heal_days = int(row.get("heal_days", 0))
    d.emit(
        ev.CriticalInjury(
            character=name,
            faces=(faces[0], faces[1]),
            result=result,
            name=english(row["name"]),
            lethal=lethal,
            instant=instant,
            deadline_at=deadline,
            heals_at=now(d) + heal_days * DAY if heal_days else None,
            effect=english(row.get("effect", "")),
        )
    )
    if instant:
        d.emit(ev.Died(character=name, cause=f"critical injury: {english(row['name'])}", at=now(d)))


# --- Rot -----------------------------------------------------------------------------


def gain_rot(d: YZDraft, name: str, source: str, *, suit: bool = True) -> None:
    """One Rot point: the rot suit rolls its protection, then base dice equal to total Rot."""
    c = char(d, name)
    if c.dead:
        return
    worn = c.worn_item("suit") if suit else None
    suit_faces: tuple[int, ...] = ()
    absorbed, suit_after = False, None
    if worn is not None and worn.bonus > 0:
        suit_faces = d6(d, worn.bonus)
        absorbed = suit_faces.count(6) >= setting(d.game, "suit_sixes_to_absorb")
        suit_after = max(0, worn.bonus - suit_faces.count(1))
    if absorbed:
        d.emit(
            ev.RotGained(
                character=name,
                source=source,
                suit=worn.name if worn else None,
                suit_faces=suit_faces,
                absorbed=True,
                suit_after=suit_after,
                total=c.rot,
                permanent=c.permanent_rot,
                at=now(d),
            )
        )
        return
    total = c.rot + 1
    rot_faces = d6(d, total)
    damage = rot_faces.count(1)
    d.emit(
        ev.RotGained(
            character=name,
            source=source,
            suit=worn.name if worn else None,
            suit_faces=suit_faces,
            suit_after=suit_after,
            rot_faces=rot_faces,
            damage=damage,
            total=total,
            permanent=c.permanent_rot,
            at=now(d),
        )
    )
    hurt(d, name, "damage", damage, "rot")


def lose_rot(d: YZDraft, name: str, count: int, cause: str) -> None:
    """Rot points about to be lost: one base die each, a 1 keeps the point for good."""
    c = char(d, name)
    count = min(count, c.rot - c.permanent_rot)
    if count <= 0:
        return
    faces = d6(d, count)
    stays = faces.count(1)
    lost = count - stays
    d.emit(
        ev.RotLost(
            character=name,
            cause=cause,
            faces=faces,
            lost=lost,
            permanent_gained=stays,
            total=c.rot - lost,
            permanent=c.permanent_rot + stays,
            at=now(d),
        )
    )


# --- getting up and recovering -------------------------------------------------------


def getup_blocked(c: Character, attribute: str) -> bool:
    if any(c.has(x) for x in GETUP_BLOCKERS):
        return True
    return attribute == "wits" and c.has("sleepless")


def check_getups(d: YZDraft) -> None:
    """Broken characters whose 1d6 hours are over get up with 1 point, unless blocked."""
    for name in alive(d):
        c = char(d, name)
        for attribute, due in sorted(c.broken.items()):
            if due <= now(d) and not getup_blocked(c, attribute):
                d.emit(
                    ev.Recovered(
                        character=name, attribute=attribute, amount=1, after=1, cause="got up", at=now(d)
                    )
                )
                if attribute == "strength":
                    mend_minor_injuries(d, name)
                c = char(d, name)


def mend_minor_injuries(d: YZDraft, name: str) -> None:
    """Critical injuries with no healing time are gone once the character is up again."""
    for injury in char(d, name).injuries:
        if injury.heals_at is None and not injury.lethal:
            d.emit(ev.InjuryHealed(character=name, name=injury.name, at=now(d)))


def recover_after_rest(d: YZDraft, names: tuple[str, ...]) -> None:
    """Four hours of rest plus the matching resource bring an attribute back to its maximum."""
    for name in names:
        c = char(d, name)
        if c.dead:
            continue
        for attribute in ATTRIBUTES:
            lost = c.max[attribute] - c.current[attribute]
            if lost <= 0 or attribute in c.broken or RESOURCE[attribute] not in c.bank:
                continue
            if any(c.has(x) for x in RECOVERY_BLOCKERS[attribute]):
                continue
            d.emit(
                ev.Recovered(
                    character=name,
                    attribute=attribute,
                    amount=lost,
                    after=c.max[attribute],
                    cause="rest",
                    at=now(d),
                )
            )
            c = char(d, name)


# --- time ----------------------------------------------------------------------------


def is_night(game: YZState, minute: int) -> bool:
    start = setting(game, "night_start")
    end = setting(game, "night_end")
    hour = (minute % DAY) // 60
    return hour >= start or hour < end if start > end else start <= hour < end


def _due(game: YZState, after: int, end: int) -> int | None:
    times: list[int] = [((after // DAY) + 1) * DAY]
    if game.next_rot_at is not None:
        times.append(game.next_rot_at)
    for c in game.characters.values():
        if c.dead:
            continue
        times += [b.wears_off_at for b in c.booze]
        times += [i.deadline_at for i in c.injuries if i.lethal and i.deadline_at is not None]
        times += [i.heals_at for i in c.injuries if i.heals_at is not None]
        times += [t for a, t in c.broken.items() if not getup_blocked(c, a)]
    future = [t for t in times if after < t <= end]
    return min(future) if future else None


def advance(d: YZDraft, minutes: int, activity: str) -> None:
    """Let ``minutes`` pass, applying in time order what comes due."""
    limit = setting(d.game, "max_hours") * 60
    if minutes > limit:
        raise RuleError(
            _(
                "{hours} hours is more than one advance allows ({most}); advance in smaller steps",
                hours=f"{minutes / 60:g}",
                most=limit // 60,
            )
        )
    start = now(d)
    end = start + minutes
    check_getups(d)
    while (t := _due(d.game, now(d), end)) is not None:
        move_clock(d, t)
        _deadlines(d, t)
        _booze(d, t)
        _healing(d, t)
        check_getups(d)
        if d.game.next_rot_at is not None and d.game.next_rot_at <= t:
            _sector_rot(d, t)
        if t % DAY == 0:
            day_end(d, t)
    d.emit(ev.TimePassed(start=start, end=end, activity=activity))


def _deadlines(d: YZDraft, t: int) -> None:
    for name in alive(d):
        for injury in char(d, name).injuries:
            if injury.lethal and injury.deadline_at is not None and injury.deadline_at <= t:
                d.emit(ev.Died(character=name, cause=f"critical injury: {injury.name}", at=t))
                break


def _booze(d: YZDraft, t: int) -> None:
    for name in alive(d):
        for b in char(d, name).booze:
            if b.wears_off_at <= t:
                d.emit(ev.BoozeWoreOff(character=name, at=b.wears_off_at))
                hurt(d, name, "damage", b.damage, "booze wears off")
                hurt(d, name, "doubt", b.doubt, "booze wears off")


def _healing(d: YZDraft, t: int) -> None:
    for name in alive(d):
        for injury in char(d, name).injuries:
            if injury.heals_at is not None and injury.heals_at <= t and not injury.lethal:
                d.emit(ev.InjuryHealed(character=name, name=injury.name, at=t))


def _sector_rot(d: YZDraft, t: int) -> None:
    sector = d.game.position
    level = d.game.rot_level_here()
    for name in alive(d):
        gain_rot(d, name, f"sector {sector}, Rot level {level}")


def day_end(d: YZDraft, t: int) -> None:
    """Midnight: deaths from being broken while starving or parched, then the day's needs."""
    day = t // DAY - 1
    ate = tuple(n for n in alive(d) if char(d, n).ate)
    drank = tuple(n for n in alive(d) if char(d, n).drank)
    slept = tuple(n for n in alive(d) if char(d, n).slept)
    rot_free = d.game.rot_level_here() == 0
    for name in alive(d):
        c = char(d, name)
        if c.has("hungry") and "strength" in c.broken:
            d.emit(ev.Died(character=name, cause="broken by damage while hungry", at=t))
            continue
        if c.has("thirsty") and c.broken:
            d.emit(ev.Died(character=name, cause="broken while thirsty", at=t))
            continue
        _need(d, name, c.ate, "hungry", (("damage", 1),), "hunger", t)
        _need(d, name, c.drank, "thirsty", (("damage", 1), ("fatigue", 1)), "thirst", t)
        _need(d, name, c.slept, "sleepless", (("confusion", 1),), "no sleep", t)
        if rot_free and not char(d, name).dead:
            lose_rot(d, name, 1, "decontamination")
    d.emit(ev.DayEnded(day=day, at=t, ate=ate, drank=drank, slept=slept))


def _need(
    d: YZDraft, name: str, met: bool, condition: str, trauma: tuple[tuple[str, int], ...], cause: str, t: int
) -> None:
    c = char(d, name)
    if met or c.dead:
        return
    if not c.has(condition):
        d.emit(ev.ConditionChanged(character=name, condition=condition, active=True, at=t))
    for kind, amount in trauma:
        hurt(d, name, kind, amount, cause)
