"""Deciding one action on a branch's head, whatever records it: the dice source it
draws from, the character who acts, the events a command decides (the core's
commands first, then the system's ``decide``), the decision the action keeps
(``Envelope.decision``) and the rules versions it names.

This is the ledger's side of deciding; :mod:`ledger.deciding.decider` is the systems' side
(the ``Decider`` a system registers its command handlers with, which
:func:`decide_command` reaches through ``System.decide``). The one recording path
(``ledger.campaign.recording``) decides through :func:`decide_and_draw`, and an import
decides a recorded command again with :func:`decide_command` (``ledger.trust.admission``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, Protocol

import msgspec

from ledger.deciding.commands import AddCharacter, Command, command_name, decide_core
from ledger.deciding.decider import Decided, Decider, Stamp
from ledger.dice import provable as fairness
from ledger.dice.sources import CommittedDice, Dice, Faces, RandomDice, seeded
from ledger.errors import Input, LedgerError, RuleError, RunCommand
from ledger.i18n import _
from ledger.log.events import Decision, Event
from ledger.log.state import CampaignState
from ledger.systems import System
from ledger.text import nfc

if TYPE_CHECKING:
    from ledger.log.records import Tip

CORE_RULES = 4
"""The version of the core commands' rules (characters, rolls, notes), recorded with every
decided action beside its system's (``Rules.rules_version``); raised whenever a core
command changes what it records. Version 2 rolls under notation rules 3 (a count inside
arithmetic is a number, keep and drop count the dice an explosion added; see
``RollResult.semantics``). Version 3 records the party's action under no character, its
decision marked ``party`` (``Command.by_party``); an older one recorded it under the
character who was acting. Version 4 rolls under notation rules 4: Foundry's capped
rerolls and explosions (``2d6r1=1``, ``4d6x2>=5``) are refused with what to write, and the
words after a roll are its label when none is given, whoever sends it (the command line,
the page, the API)."""

PARTY_RULES = 3
"""The first core rules version that records the party's action as the party's."""

CORE_NOTATION = {1: 2, 2: 3, 3: 3, 4: 4}
"""The notation rules (``RollResult.semantics``) each core rules version rolls under: an
action recorded under version 1 is decided again as it was, under notation rules 2."""

_RULES = re.compile(r"core=([1-9][0-9]{0,5}) ([a-z0-9][a-z0-9_-]{0,63})=([1-9][0-9]{0,5})")
_FINGERPRINT = re.compile(r"[0-9a-f]{32}")


def rules_in_force(system: System) -> str:
    """What ``Decision.rules`` records: the rules versions an action is decided under."""
    return f"core={CORE_RULES} {system.name}={system.rules.rules_version}"


def recorded_rules(rules: str, system: System) -> tuple[int, int]:
    """The (core, system) rules versions a decision records. A decision recorded before
    versions were kept holds a hash of the rules' code (or nothing): those are version 1
    of both. Raises a LedgerError for any other text, or another system's versions."""
    if not rules or _FINGERPRINT.fullmatch(rules):
        return 1, 1
    found = _RULES.fullmatch(rules)
    if found is None or found[2] != system.name:
        raise LedgerError(
            _(
                "its decision records rules {rules!r}, which are no rules of {system}",
                rules=rules[:60],
                system=system.name,
            )
        )
    return int(found[1]), int(found[3])


def dice_for(tip: Tip, faces: list[int] | None) -> Dice:
    """Physical faces, the campaign's seeded dice, dice derived under the open
    commitment, or (with none open) the system CSPRNG."""
    if faces is not None:
        return Faces(faces)
    if tip.state.core.seed is not None:
        return seeded(tip.state.core.seed, tip.version)
    status = tip.dice
    if status is None:
        raise LedgerError(_("the dice of this campaign were not looked up; record through Ledger or Batch"))
    if status.commitment is None:
        return RandomDice()
    if status.seed is None:
        return fairness.Unavailable(fairness.refuse_foreign(status))  # refused at the first die
    return CommittedDice(status.seed, status.client_seed, status.branch, status.next_nonce, status.commitment)


class Step(Protocol):
    """An action decided on a branch's head that is no command of the rules: an undo,
    a redo, a dice commitment, or events a program gives (``Ledger.record``).
    ``by_actor`` says whether it is recorded under the acting character (an undo is;
    a dice commitment, the ledger's own, is recorded under nobody)."""

    by_actor: ClassVar[bool]

    def decide(self, tip: Tip, dice: Dice) -> list[Event]: ...


def decide_and_draw(
    system: System,
    tip: Tip,
    action: Command | Step,
    faces: list[int] | None,
    stamp: Stamp | None = None,
) -> tuple[Decided, Dice]:
    """The events ``action`` decides on the head (a command by the rules of ``system``),
    with the game state after each when the system's draft folded them under ``stamp``
    (the envelopes they are recorded with), and the dice it drew."""
    dice = dice_for(tip, faces)
    try:
        if isinstance(action, Command):
            decided = decide_folded(system, tip.state, action, dice, stamp=stamp)
        else:
            decided = Decided(action.decide(tip, dice), None)
    except LedgerError:
        raise
    except Exception as e:  # the rules met state the ledger did not write: one line, not a traceback
        core = tip.state.core
        raise LedgerError(
            _(
                "the {system} rules cannot decide this on campaign {campaign!r} "
                "({error}: {problem}); nothing was recorded. Its tables or events may not be "
                "ones the ledger wrote (an imported campaign?)",
                system=core.system,
                campaign=core.name,
                error=type(e).__name__,
                problem=e,
            ),
            fix=RunCommand(
                text=_("verify the campaign, and report it if it verifies"),
                command="verify",
                options=(Input("campaign", core.name),),
            ),
        ) from e
    if isinstance(dice, Faces):
        dice.finish()
    if not decided.events:
        raise LedgerError(_("the command changes nothing; nothing was recorded"))
    return decided, dice


def drawn(dice: Dice) -> tuple[int, ...]:
    """Every face a dice source gave, in order."""
    if isinstance(dice, Faces):
        return tuple(dice.faces[: dice.used])
    if isinstance(dice, RandomDice | CommittedDice):
        return tuple(dice.rolled)
    return ()


def decision(command: Command | None, dice: Dice, system: System, seat: str | None = None) -> Decision | None:
    """What re-deciding an action needs: its command and the faces it drew; and the
    ``seat`` (device) it was recorded from, when one is named."""
    if command is None:
        return None
    name = command_name(system, type(command))
    if name is None:  # pragma: no cover - a decider took a class it does not list
        raise LookupError(f"the {system.name} system does not list the command {type(command).__name__}")
    faces = drawn(dice)
    derived = isinstance(dice, CommittedDice) and bool(faces)
    return Decision(
        command=name,
        args=msgspec.to_builtins(command),
        party=command.by_party(),
        faces=faces,
        manual=dice.manual,
        rules=rules_in_force(system),
        commitment=dice.commitment if derived else None,  # type: ignore[attr-defined]
        nonce=dice.first if derived else None,  # type: ignore[attr-defined]
        sides=tuple(dice.sides) if derived else (),  # type: ignore[attr-defined]
        seat=seat,
    )


def actor_in(state: CampaignState, wanted: str | None) -> str | None:
    """The character a command acts as: the one asked for (who must exist), the only
    character, or the last one who acted. The last rule is how an action recorded without
    a named actor was read when it was recorded (an import decides it again the same way);
    the ledger now names the acting character of every action it records
    (``Ledger.acting``), so only such old actions still reach it."""
    chars = state.core.characters
    if wanted is not None:
        wanted = nfc(wanted)
        if wanted not in chars:
            known = ", ".join(chars) if chars else _("none yet")
            shown = wanted if wanted.isprintable() else "NAME"
            raise LedgerError(
                _(
                    "no character named {name!r} in {campaign!r} (characters: {characters})",
                    name=wanted,
                    campaign=state.core.name,
                    characters=known,
                ),
                fix=RunCommand(
                    text=_("add one with `character add`"), command="character add", arguments=(shown,)
                ),
            )
        return wanted
    if len(chars) == 1:
        return chars[0]
    return state.core.last_actor


def creation(system: System, name: str, attrs: dict[str, str]) -> Command:
    """The command that adds a character ``name`` with ``attrs`` to a campaign of ``system``:
    the system's own creation where it takes attributes (its command's ``from_attrs``), so
    that adding and creating check the same; attributes are refused where the system's
    creation takes other inputs, or none (a solo game's character has only a name); else
    the core's."""
    for kind in system.rules.commands:
        make = getattr(kind, "from_attrs", None)
        if make is not None:
            made: Command = make(name, attrs)
            return made
    if attrs and system.rules.solo:
        raise RuleError(
            _(
                "{system}'s character has no attributes ({attributes} given)",
                system=system.name,
                attributes=", ".join(sorted(attrs)),
            ),
            fix=RunCommand(
                text=_("create it with its name only"), command="character create", arguments=(name,)
            ),
        )
    if attrs and system.rules.creates is not None:
        raise RuleError(
            _(
                "a {system} character takes no attributes ({attributes} given): its creation gives them",
                system=system.name,
                attributes=", ".join(sorted(attrs)),
            ),
            fix=RunCommand(
                text=_("create it with `character create`"), command="character create", arguments=(name,)
            ),
        )
    return AddCharacter(name=name, attrs=attrs)


def decide_command(
    system: System, state: CampaignState, command: Command, dice: Dice, core_rules: int = CORE_RULES
) -> list[Event]:
    """The events a command decides on a state: core commands first (under the core rules
    version given: today's, or an older one an imported action was recorded under), then
    the system's."""
    return decide_folded(system, state, command, dice, core_rules).events


def decide_folded(
    system: System,
    state: CampaignState,
    command: Command,
    dice: Dice,
    core_rules: int = CORE_RULES,
    *,
    stamp: Stamp | None = None,
) -> Decided:
    """What :func:`decide_command` decides, with the game state after each event when the
    system's :class:`Decider` folded them under ``stamp`` with the system's own fold (a
    core command's events, and a decider's whose ``after`` rewrote them, are not folded)."""
    if isinstance(command, AddCharacter) and system.rules.solo and state.core.characters:
        raise RuleError(
            _(
                "{system} is solo: {campaign!r} already has its character, {character!r}",
                system=system.name,
                campaign=state.core.name,
                character=state.core.characters[0],
            ),
            fix=RunCommand(
                text=_("start another campaign for another character with `new`"),
                command="new",
                arguments=(system.name, "NAME"),
            ),
        )
    # The party's action is no character's: it is decided as none (its rules read no actor).
    acting = None if command.by_party() else actor_in(state, command.actor)
    cmd = command if acting == command.actor else msgspec.structs.replace(command, actor=acting)
    events = decide_core(state, cmd, dice, CORE_NOTATION[core_rules])
    if events is not None:
        return Decided(events, None)
    decide = system.rules.decide
    if isinstance(decide, Decider) and stamp is not None and decide.evolve is system.rules.evolve:
        return decide.decide(state, cmd, dice, stamp)
    return Decided(decide(state, cmd, dice), None)
