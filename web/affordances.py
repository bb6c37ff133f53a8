"""What the table's page offers a seat, from what the system declares (``ledger.systems``):
the sheet's controls for one character (:func:`controls`), the forms of the commands the
sheet does not hold (:func:`forms`), the choices those forms pick from the sheet
(:func:`choices`), and what the page says comes next (:func:`hints`), in the page's own
words, naming the page's own buttons.

A form's name is the command's name on the command line (``yz tick``), and its help and
each field's are the command line's own (the command's first line of help, each option's
help), read from the system's command group (the command line installed, ledger.web.commands); a field the command line asks in other units
than the command records (hours for minutes) says so in the form (``Ask.scale``).
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from typing import Any

import click
import msgspec

from ledger import i18n
from ledger.deciding.commands import Introduction, stable_commands
from ledger.i18n import N_, NP_
from ledger.projections import sheets
from ledger.systems import Ask, Form, System, get_system
from ledger.web import commands as on_cli

CORE_FORMS = (
    Form(command="core.Note", name="note", group=N_("Notes"), asks=(Ask(field="text", label="text"),)),
    Form(
        command="core.AddCharacter",
        name="character add",
        group=N_("Party"),
        asks=(Ask(field="name", label="name"), Ask(field="attrs", label="attr")),
    ),
)
"""The core's commands as forms in every campaign (``core.Roll`` is the page's dice box)."""

SHOWN = {"note": N_("Note"), "character add": N_("Character add")}
"""The core's forms' buttons, as the page names them (:func:`page_label`)."""

WORDS = {
    "add": N_("Nobody plays yet: add a character with “Character add” (Party)."),
    "tap": N_("Tap what you roll on your sheet ({where}): its options open first, each with a default."),
    "lit": N_("{label}: tap it on the sheet."),
    "dice": N_("Anything else: the dice box (“Roll”) takes any notation, 2d6+1 or 4d6kh3."),
    "watch": N_("This seat watches the table: it records nothing."),
}
"""Every sentence the page's hints are made of, in one place (said in the language of the
moment: :func:`said`)."""


def said(key: str, **fields: Any) -> str:
    """One of the page's :data:`WORDS` in the language of the moment."""
    text = i18n.translate(WORDS[key])
    return text.format(**fields) if fields else text


# --- the command line's words for a form ---------------------------------------------------


def cli_command(system: str, name: str) -> click.Command | None:
    """The command-line command a form's ``name`` names (``yz tick``, ``note``,
    ``character add``): in the system's group when the name starts with it, else the root's."""
    first, *rest = name.split()
    group: click.Command | None
    if first == on_cli.command_name(system):
        group = on_cli.system_group(system)
    else:
        group, rest = on_cli.root(), [first, *rest]
    found: click.Command | None = group
    for word in rest:
        if not isinstance(found, click.Group):
            return None
        found = found.get_command(click.Context(found), word)  # a lazy command loads here
    return found


def cli_param(command: click.Command, label: str) -> click.Parameter | None:
    """The parameter a field's label names: an option by one of its names (without the
    dashes) or its destination, an argument by its name."""
    wanted = label.lower().replace(" ", "-")
    for p in command.params:
        names = {o.lstrip("-").lower() for o in getattr(p, "opts", [])}
        if wanted in names or (p.name or "").lower().replace("_", "-") == wanted:
            return p
    return None


def _help_line(text: str | None) -> str:
    return (text or "").strip().split("\n\n")[0].replace("\n", " ").strip()


# --- a command's fields --------------------------------------------------------------------


def _kind(tp: Any) -> tuple[str, bool]:
    """A field's type as the page asks it (``integer``, ``number``, ``boolean``, ``string``,
    ``list``, ``pairs``) and whether None is allowed."""
    optional = False
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        optional = len(args) < len(typing.get_args(tp))
        tp = args[0] if len(args) == 1 else str
        origin = typing.get_origin(tp)
    if tp is bool:
        return "boolean", optional
    if tp is int:
        return "integer", optional
    if tp is float:
        return "number", optional
    if origin in (tuple, list) or tp in (tuple, list):
        return "list", optional
    if origin is dict or tp is dict:
        return "pairs", optional
    return "string", optional


def fields_of(kind: type) -> dict[str, dict[str, Any]]:
    """Each field of a command class: its type, whether it is required, its default."""
    out = {}
    for f in msgspec.structs.fields(kind):
        if f.name == "actor":
            continue
        shown, optional = _kind(f.type)
        required = f.required
        default = None
        if not required:
            default = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
        out[f.name] = {
            "type": shown,
            "required": required,
            "optional": optional,
            "default": list(default) if isinstance(default, tuple) else default,
        }
    return out


def _asked(ask: Ask, kind: dict[str, Any], param: click.Parameter | None) -> dict[str, Any]:
    found = kind.get(ask.field, {"type": "string", "required": False, "optional": True, "default": None})
    help_text = _help_line(getattr(param, "help", None)) or ask.help
    return {
        "field": ask.field,
        "label": ask.label or ask.field.replace("_", " "),
        "help": help_text,
        "type": found["type"],
        "required": found["required"],
        "default": ask.default if ask.default is not None else found["default"],
        "choices": list(ask.choices) or None,
        "pick": ask.pick or None,
        "scale": ask.scale,
        "flip": ask.flip,
        "low": ask.low,
        "high": ask.high,
    }


CHARACTER_ADD = "character add"
"""The core's way to bring a character in, on the command line and the page: the system's
own creation where it takes attributes (``ledger.deciding.action.creation``), checked the
same; else the core's ``core.AddCharacter``."""


def creation_kind(system: System) -> type | None:
    """The system's own creation command ``character add`` runs (a command with
    ``from_attrs``), None where it runs the core's."""
    return next((k for k in system.rules.commands if getattr(k, "from_attrs", None) is not None), None)


def page_label(system_name: str, name: str) -> str:
    """A command's button on the page: its one name without the system's group (``yz
    armor``: ``Armor``; ``character add``: ``Character add``)."""
    if name in SHOWN:
        return i18n.translate(SHOWN[name])
    words = name.split()
    if len(words) > 1 and words[0] == on_cli.command_name(system_name):
        words = words[1:]
    return i18n.translate(" ".join(words).capitalize(), BUTTON)


BUTTON = "button"
"""The context of a command's button in the catalogs (:data:`BUTTONS`)."""
BUTTONS = (
    NP_("button", "Aim"),
    NP_("button", "Armor"),
    NP_("button", "Assign"),
    NP_("button", "Attack"),
    NP_("button", "Award"),
    NP_("button", "Booze"),
    NP_("button", "Buy"),
    NP_("button", "Carry"),
    NP_("button", "Check"),
    NP_("button", "Cold"),
    NP_("button", "Create"),
    NP_("button", "Critical"),
    NP_("button", "Damage"),
    NP_("button", "Dodge"),
    NP_("button", "Drink"),
    NP_("button", "Eat"),
    NP_("button", "Endcombat"),
    NP_("button", "Enter"),
    NP_("button", "Escape"),
    NP_("button", "Event"),
    NP_("button", "Explore"),
    NP_("button", "Fatigue"),
    NP_("button", "Fight"),
    NP_("button", "Heal"),
    NP_("button", "Hide"),
    NP_("button", "Horror"),
    NP_("button", "Initiative"),
    NP_("button", "Join"),
    NP_("button", "Loot"),
    NP_("button", "Luck"),
    NP_("button", "Move"),
    NP_("button", "Panic"),
    NP_("button", "Push"),
    NP_("button", "Quest"),
    NP_("button", "Refund"),
    NP_("button", "Reload"),
    NP_("button", "Repair"),
    NP_("button", "Resist"),
    NP_("button", "Rest"),
    NP_("button", "Roll"),
    NP_("button", "Rot"),
    NP_("button", "Round"),
    NP_("button", "Sleep"),
    NP_("button", "Steady"),
    NP_("button", "Stress"),
    NP_("button", "Supply"),
    NP_("button", "Technique"),
    NP_("button", "Terrain"),
    NP_("button", "Test"),
    NP_("button", "Therapy"),
    NP_("button", "Tick"),
    NP_("button", "Unjam"),
    NP_("button", "Usage"),
    NP_("button", "Warm"),
    NP_("button", "Wash"),
)
"""The built-in systems' command buttons, each as the page names it (a plugin's are in its
own catalog, under the same context)."""


def forms(system_name: str) -> tuple[dict[str, Any], ...]:
    """The system's forms and the core's (:func:`forms_in`), in the language of the moment."""
    return forms_in(system_name, i18n.language())


def worded(system_name: str) -> list[dict[str, Any]]:
    """The forms as the page shows them, in the language of the moment: each button's label
    and group put into words (a system names them in English and marks them for the
    catalogs), the rest as :func:`forms` has it."""
    return [
        {**f, "label": i18n.translate(f["label"]), "group": i18n.translate(f["group"])}
        for f in forms(system_name)
    ]


@functools.cache
def forms_in(system_name: str, lang: str) -> tuple[dict[str, Any], ...]:
    """The system's forms and the core's, each with the command line's help: ``{"command",
    "name", "label", "group", "help", "seen", "asks": [...]}``. ``command`` is what the form
    records; ``send`` (when given) is what the page sends for it: ``character add``, which
    the API runs as the command line does, the system's own creation where it has one (the
    core's form is left out where the system's own form already offers that creation)."""
    system = get_system(system_name)
    commands = stable_commands(system)
    own = creation_kind(system)
    own_name = next((n for n, k in commands.items() if k is own), None)
    offered = {f.command for f in system.read.forms}
    out = []
    for form in (*system.read.forms, *CORE_FORMS):
        kind = commands.get(form.command)
        if kind is None:
            continue
        records, send = form.command, None
        if form.name == CHARACTER_ADD and own_name is not None:
            if own_name in offered:
                continue
            records, send = own_name, CHARACTER_ADD
        shape = fields_of(kind)
        command = cli_command(system_name, form.name)
        out.append(
            {
                "command": records,
                **({"send": send} if send is not None else {}),
                "name": form.name,
                "label": page_label(system_name, form.name),
                "group": form.group,
                "help": _help_line(command.help if command is not None else None) or form.help,
                "seen": form.seen,
                "sheet": form.sheet,
                "asks": [
                    _asked(ask, shape, cli_param(command, ask.label) if command is not None else None)
                    for ask in form.asks
                ],
                "creates": issubclass(kind, Introduction),
                "rolls": rolls(command),
            }
        )
    return tuple(out)


def rolls(command: click.Command | None) -> bool:
    """Whether a command rolls dice: it takes ``--faces`` on the command line, and with it
    the roll modes (``--private``, ``--blind``) the page offers beside it."""
    return command is not None and cli_param(command, "faces") is not None


def _coerced(value: Any, kind: dict[str, Any] | None) -> Any:
    """A value filled from the sheet, as the command's field takes it (a technique's
    number is a key of the sheet: ``"2"`` becomes 2)."""
    if kind is None:
        return value
    if kind["type"] == "integer" and isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    if kind["type"] == "list" and isinstance(value, str):
        return [value]
    return value


def controls(system: System, sheet: Mapping[str, Any], state: Any) -> list[dict[str, Any]]:
    """The sheet's controls for one character, each with what its command needs: its
    options typed and helped as the forms' fields, and whether a plain tap is enough
    (``ready``: every field the command requires is filled or has a default)."""
    layout = system.read.sheet_layout
    if layout is None:
        return []
    commands = stable_commands(system)
    found = sheets.controls(layout, sheet, list(state.core.characters), state.core.tables)
    out = []
    for c in found:
        kind = commands.get(c["command"])
        if kind is None:
            continue
        shape = fields_of(kind)
        args = {k: _coerced(v, shape.get(k)) for k, v in c["args"].items() if v is not None}
        options = []
        for o in c["options"]:
            typed = shape.get(o["field"], {"type": "string", "required": False, "default": None})
            default = o["default"] if o["default"] is not None else typed["default"]
            if o["choices"] is not None and default is not None and default not in o["choices"]:
                default = None if not typed["required"] else (o["choices"][0] if o["choices"] else None)
            options.append(
                {
                    **o,
                    "type": typed["type"],
                    "required": typed["required"],
                    "default": default,
                    "help": _option_help(system.name, c["command"], o["label"]),
                }
            )
        asked = {o["field"] for o in options if o["default"] is not None}
        ready = all(not f["required"] or n in args or n in asked for n, f in shape.items())
        out.append(
            {
                **c,
                "label": _own_label(system.name, c),
                "args": args,
                "options": options,
                "ready": ready,
                "rolls": _control_rolls(system.name, c["command"]),
            }
        )
    return out


@functools.cache
def _control_rolls(system_name: str, command: str) -> bool:
    """Whether a sheet's control rolls dice (:func:`rolls`), by its command's one name."""
    name = names(system_name).get(command)
    return rolls(cli_command(system_name, name) if name else None)


def _own_label(system_name: str, control: Mapping[str, Any]) -> str:
    """A control's label, told apart from the page's forms: a thing on the sheet named as a
    command of another form's button (Year Zero's Heal skill beside ``yz heal``) is worded
    by what its tap does, its command's name first (``roll heal``), so no two buttons share
    a label."""
    label = str(control["label"])
    taken = {f["label"].lower(): f["command"] for f in worded(system_name) if not f["sheet"]}
    other = taken.get(label.lower())
    if other is None or other == control["command"]:
        return label
    return f"{name_of(system_name, control['command']).split()[-1]} {label}"


def _option_help(system_name: str, command: str, label: str) -> str:
    return _option_help_in(system_name, command, label, i18n.language())


@functools.cache
def _option_help_in(system_name: str, command: str, label: str, lang: str) -> str:
    """The command line's help of one option of a command, found through the system's
    forms' names (a control's command is named as its form is), else nothing."""
    for form in forms(system_name):
        if form["command"] == command:
            for ask in form["asks"]:
                if ask["label"] == label and ask["help"]:
                    return str(ask["help"])
    name = names(system_name).get(command)
    found = cli_command(system_name, name) if name else None
    param = cli_param(found, label) if found is not None else None
    return _help_line(getattr(param, "help", None))


@functools.cache
def names(system_name: str) -> dict[str, str]:
    """Each command's one name, by stable name: its name on the command line (``yz armor``
    for ``yearzero.Wear``), which the page's buttons and the API's refusals use too and the
    API takes in place of the stable name (:func:`stable_name`). The forms name their
    commands; the core's roll is ``roll``; a system's command that brings a character in
    and has no form is named by the command ``ledger character create`` runs in the
    system's campaigns (``yz character``). A command with no name on the command line (a
    plugin's without a command group) goes by its stable name alone."""
    out = {f["command"]: f["name"] for f in forms(system_name)}
    out.setdefault("core.Roll", "roll")
    group = on_cli.system_group(system_name)
    creator = getattr(group, "create", None)
    if group is not None and isinstance(creator, click.Command):
        system = get_system(system_name)
        newcomers = [
            stable
            for stable, kind in stable_commands(system).items()
            if issubclass(kind, Introduction) and stable not in out and not stable.startswith("core.")
        ]
        if len(newcomers) == 1:
            out[newcomers[0]] = f"{group.name} {creator.name}"
    return out


def name_of(system_name: str, stable: str) -> str:
    """A command's one name (:func:`names`), else its stable name."""
    return names(system_name).get(stable, stable)


@functools.cache
def _by_name(system_name: str) -> dict[str, str]:
    return {" ".join(name.lower().split()): stable for stable, name in names(system_name).items()}


def stable_name(system_name: str, given: str) -> str | None:
    """The stable name of the command ``given`` names: its stable name (``yearzero.Wear``)
    or its one name, as the command line spells it (``yz armor``, ``ledger yz armor``;
    case and spacing aside). None when it names no command of the system."""
    if given in stable_commands(get_system(system_name)):
        return given
    words = given.lower().split()
    if words[:1] == ["ledger"]:
        words = words[1:]
    return _by_name(system_name).get(" ".join(words))


def choices(system: System, sheet: Mapping[str, Any], state: Any) -> dict[str, dict[str, list[Any]]]:
    """The choices each form picks from the sheet, the characters or the tables, by
    command and field."""
    own = sheet.get("name") if isinstance(sheet.get("name"), str) else None
    out: dict[str, dict[str, list[Any]]] = {}
    for form in (*system.read.forms, *CORE_FORMS):
        for ask in form.asks:
            if ask.pick:
                found = sheets.choices(ask, sheet, list(state.core.characters), state.core.tables, own)
                out.setdefault(form.command, {})[ask.field] = found or []
    return out


def _lit(system: System, control: dict[str, Any]) -> bool:
    """Whether a control is there because of the moment (a push after one's own roll, a
    panic that is due, the day's next step) rather than always."""
    layout = system.read.sheet_layout
    n = int(str(control["id"]).split(":", 1)[0])
    if layout is None or n >= len(layout.controls):
        return False
    declared = layout.controls[n]
    return bool(declared.when or (declared.where and (not declared.each or "" in declared.where)))


def hints(system: System, state: Any, shown: list[dict[str, Any]], role: str) -> dict[str, list[str]]:
    """What comes next, in the page's words, naming the page's own buttons: ``now``, the
    controls the moment lights up (a push, a panic due, the day's next step); ``more``,
    where the sheet's other controls are and the dice box for anything else (a character
    first, when there is none)."""
    if role == "watch":
        return {"now": [], "more": [said("watch")]}
    if not state.core.characters and not shown:
        return {"now": [], "more": [said("add"), said("dice")] if role == "gm" else [said("dice")]}
    now = [said("lit", label=c["label"][:1].upper() + c["label"][1:]) for c in shown if _lit(system, c)]
    layout = system.read.sheet_layout
    where: list[str] = []
    if layout is not None:
        headline = {f.key: f.label for f in layout.headline}
        for c in shown:
            if _lit(system, c):
                continue
            if c["on"] in headline:
                where.append(c["label"])
            else:
                where.extend(
                    i18n.translate(s.title)
                    for s in layout.sections
                    if any(f.key == c["on"] for f in s.fields)
                )
    more = [said("tap", where=", ".join(dict.fromkeys(where)))] if where else []
    return {"now": list(dict.fromkeys(now)), "more": [*more, said("dice")]}


def next_commands(system: System, state: Any) -> list[str]:
    """What comes next as command lines (the table's ``next``): the command line's hints."""
    return on_cli.hints(system, state)
