"""``ledger crawl ...``: the solo hex-crawl, one command per step of the day."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

import click

from ledger import i18n
from ledger.cli.crawl_help import WALKTHROUGH
from ledger.cli.options import (
    Ctx,
    common,
    emit,
    faces_option,
    pass_ctx,
    recorded_json,
    run_command,
    state_for,
    time_travel,
)
from ledger.cli.systems import SystemGroup
from ledger.errors import LedgerError
from ledger.i18n import N_, _, n_
from ledger.projections import sheets
from ledger.projections.crawl import views
from ledger.projections.crawl.game import Crawl
from ledger.systems.crawl import order, terms
from ledger.systems.crawl.play import autoplay as play
from ledger.systems.crawl.tables import load_tables


def _hints(state: Any) -> list[str]:
    """What the day's order lets the explorer do next (nothing once dead)."""
    game: Crawl | None = state.game
    if game is None or not game.alive:
        return []
    return list(order.expected(game))


class _Said(click.Command):
    """A command whose help (marked ``N_``) is said in the reader's language when shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        kept = self.help
        self.help = i18n.translate(kept) if kept else kept
        try:
            super().format_help_text(ctx, formatter)
        finally:
            self.help = kept

    def get_short_help_str(self, limit: int = 45) -> str:
        kept = self.help
        self.help = i18n.translate(kept) if kept else kept
        try:
            return super().get_short_help_str(limit)
        finally:
            self.help = kept


class _Group(_Said, SystemGroup):
    """The crawl's group, its help said in the reader's language."""


class _Option(click.Option):
    """An option whose help (marked ``N_``) is said in the reader's language when shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        kept = self.help
        self.help = i18n.translate(kept) if kept else kept
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = kept


class _Word(click.ParamType):
    """A game word typed in either language, read as its stored key (``barra`` is ``bar``)."""

    def __init__(self, words: i18n.Readings, what: str) -> None:
        self.words = words
        self.what = what
        self.name = what

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.words.terms) + "]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return terms.read(self.words, str(value), i18n.translate(self.what))
        except LedgerError as e:
            self.fail(e.message, param, ctx)


class _Technique(click.ParamType):
    """A technique by its number (1-7) or its name in either language (``carrera`` is 5)."""

    name = "technique"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[1-7]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if text.isdigit() and 1 <= int(text) <= 7:
            return int(text)
        try:
            return int(terms.read(terms.TECHNIQUE_WORDS, text, i18n.translate(N_("technique"))))
        except LedgerError as e:
            self.fail(e.message, param, ctx)


SAMPLE_LOG = resources.files("ledger.samples") / "crawl" / "campaign.jsonl"
SAMPLE_NAME = "crawl-sample"


def demo(ledger: Any, echo: Callable[[str], None]) -> None:
    """The crawl's part of ``ledger demo``: import the sample campaign (once) and show its
    sheet, map and journal, and the commands that show more."""
    names = {c.name for c in ledger.campaigns()}
    if SAMPLE_NAME not in names:
        with SAMPLE_LOG.open("rb") as f:
            ledger.import_(f, SAMPLE_NAME)
    state = ledger.state(SAMPLE_NAME)
    echo(
        _(
            "{name}: imported from samples/crawl/campaign.jsonl ({events})",
            name=SAMPLE_NAME,
            events=n_("{n} event", "{n} events", state.core.version),
        )
    )
    echo(sheets.text(sheets.view(views.SHEET, views.sheet(state, expected=order.expected))))
    echo("")
    echo(_("the map around the explorer (ledger crawl map --radius 4):"))
    echo(views.render_map(state, radius=4))
    echo("")
    rows = views.journal(state)
    echo(_("journal ({lines}), the last 8:", lines=n_("{n} line", "{n} lines", len(rows))))
    for row in rows[-8:]:
        echo(_("  day {day:>3}  {text}", day=row["day"], text=row["text"][:100]))
    echo(
        _(
            "try: {commands}",
            commands="ledger crawl map -c crawl-sample --day 25 ; ledger crawl hunger -c crawl-sample",
        )
    )


group = _Group(
    "crawl",
    first_steps=(
        N_("crawl move DIR (n ne se s sw nw: the explorer walks to a neighbouring hex; day 1 begins)"),
    ),
    hints=_hints,
    demo=demo,
    walkthrough=WALKTHROUGH,
    short_help=N_("The crawl system: a solo hex-crawl, day by day."),
    help=N_(
        "A solo hex-crawl: move, terrain, event, eat, sleep; one hex a day.\n\n"
        "Name your explorer as the campaign starts (`ledger new crawl NAME --explorer ADA`) "
        "or once after (`ledger character create ADA`); the sheet, the log and "
        "`ledger report -o FILE.html` go by that name.\n\n"
        "The day's order is fixed: move DIR; terrain (a blank hex); event; on an "
        "enemy fight, then attack / technique N / escape; loot after a win; in a "
        "town buy, quest; eat (up to 3); sleep. Each command says what comes next."
    ),
)


def _text(rec: Any) -> str:
    game: Crawl = rec.state.game
    lines = [f"  {env.event.summary()}" for env in rec.envelopes]
    status = _(
        "day {day}  Health {health}  Energy {energy}  bars {bars} fruit {fruit} bits {bits}",
        day=game.day,
        health=game.health,
        energy=game.energy,
        bars=game.bar,
        fruit=game.fruit,
        bits=game.bits,
    )
    nxt = order.expected(game, rec.state.core.tables)
    tail = (
        _("next: {commands}", commands=" | ".join(nxt))
        if game.alive
        else _("the explorer is dead; the campaign is over")
    )
    return "\n".join([*lines, status, tail])


def _expected(rec: Any) -> dict[str, Any]:
    """What the JSON adds: the commands the day's order allows next."""
    return {"expected": order.expected(rec.state.game, rec.state.core.tables)}


@click.command("create", cls=_Said)
@click.argument("name")
@common
@pass_ctx
def create(c: Ctx, name: str) -> None:
    rec = c.ledger.add_character(name, c.campaign)
    emit(c, recorded_json(rec), _("{name} explores in {campaign!r}", name=name, campaign=rec.campaign.name))


create.help = N_("Name the campaign's explorer NAME (once: the crawl is solo).")


def _action(name: str, help_text: str) -> Any:
    """Decorate a command that records one step of the day."""

    def wrap(f: Any) -> Any:
        f.__doc__ = help_text
        f = pass_ctx(f)
        f = common(f)
        f = faces_option(f)
        return group.command(name, cls=_Said)(f)

    return wrap


@_action("move", N_("Start a new day: walk to the neighbouring hex DIRECTION (n ne se s sw nw)."))
@click.argument("direction", type=_Word(terms.DIRECTION_WORDS, N_("hex direction")))
def move(c: Ctx, direction: str, faces: str | None) -> None:
    run_command(c, order.Move(direction=direction), faces, text=_text, more=_expected)


@_action("terrain", N_("Roll the terrain of a blank hex (1d6; 3d6 with neighbours in the variant)."))
@click.option(
    "--choose",
    cls=_Option,
    default=None,
    metavar="TERRAIN",
    help=N_("3d6 variant: the terrain to keep (on a die, or set by two matching neighbours)."),
)
def terrain(c: Ctx, choose: str | None, faces: str | None) -> None:
    run_command(c, order.Terrain(choose=choose), faces, text=_text, more=_expected)


@_action("event", N_("Roll the day's event: 2d6 on a new hex; icons, revisits and divine days otherwise."))
@click.option(
    "--repeat",
    cls=_Option,
    type=_Word(terms.REPEAT_WORDS, N_("repeat choice")),
    default=None,
    help=N_("On a repeated events/ruins result: take the row above/below, or pass through."),
)
def event(c: Ctx, repeat: str | None, faces: str | None) -> None:
    run_command(c, order.Explore(repeat=repeat), faces, text=_text, more=_expected)


@_action("eat", N_("Eat a ration: bar (+2/+1), fruit (+1/+2) or tavern (town, 3 bits, +10/+4)."))
@click.argument("food", type=_Word(terms.FOOD_WORDS, N_("food")))
def eat(c: Ctx, food: str, faces: str | None) -> None:
    run_command(c, order.Eat(food=food), faces, text=_text, more=_expected)


@_action("sleep", N_("End the day: sleep wild (+3/+2), in town (+4/+3) or at the hotel (3 bits, +10/+6)."))
@click.argument("where", type=_Word(terms.NIGHT_WORDS, N_("place to sleep")))
def sleep(c: Ctx, where: str, faces: str | None) -> None:
    run_command(c, order.Sleep(where=where), faces, text=_text, more=_expected)


@_action("buy", N_("Buy ITEM from the town's shop (trade comes first in a town)."))
@click.argument("item")
def buy(c: Ctx, item: str, faces: str | None) -> None:
    run_command(c, order.Buy(item=item), faces, text=_text, more=_expected)


@_action("quest", N_("Take this town's one quest (1d6 on the quest table)."))
def quest(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Quest(), faces, text=_text, more=_expected)


@_action("fight", N_("Face the enemy met today; it strikes first (1d6 + its Attack)."))
def fight(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Fight(), faces, text=_text, more=_expected)


@_action("attack", N_("Basic attack: always hits (bows spend an arrow); then the enemy's turn."))
@click.option("--weapon", cls=_Option, default=None, help=N_("Weapon to use (default: your best)."))
def attack(c: Ctx, weapon: str | None, faces: str | None) -> None:
    run_command(c, order.Attack(weapon=weapon), faces, text=_text, more=_expected)


@_action("technique", N_("Use technique N (1-7): Energy, a training roll for 1-4, lasting effects for 5-7."))
@click.argument("number", type=_Technique())
def technique(c: Ctx, number: int, faces: str | None) -> None:
    run_command(c, order.Technique(number=number), faces, text=_text, more=_expected)


@_action(
    "escape", N_("Try to flee: 1d6 above the enemy's ESC; success costs 2 Energy, 2 Health and the day.")
)
def escape(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Escape(), faces, text=_text, more=_expected)


@_action("hide", N_("Hide from God: the day ends with no meal and no sleep."))
def hide(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Hide(), faces, text=_text, more=_expected)


@_action("loot", N_("Search a defeated enemy's surroundings (1d6 on the rewards table)."))
def loot(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Loot(), faces, text=_text, more=_expected)


def _projection(name: str, help_text: str) -> Any:
    def wrap(f: Any) -> Any:
        f.__doc__ = help_text
        return group.command(name, cls=_Said)(time_travel(common(pass_ctx(f))))

    return wrap


@_projection("map", N_("Draw the hex map: terrain, icons, the path walked and where you stand."))
@click.option(
    "--radius",
    cls=_Option,
    type=click.IntRange(0, 1000),
    default=None,
    help=N_("Draw only the hexes within this many steps of the explorer."),
)
def map_(c: Ctx, at: int | None, day: int | None, radius: int | None) -> None:
    state = state_for(c, at, day)
    emit(c, views.map_entries(state), lambda: views.render_map(state, radius))


@_projection("hunger", N_("The hunger streak: current, longest, Health lost to hunger."))
def hunger(c: Ctx, at: int | None, day: int | None) -> None:
    data = views.hunger(state_for(c, at, day))
    emit(
        c,
        data,
        lambda: _(
            "day {day}: hunger streak {streak} (longest {longest}), Health lost to hunger {lost}, "
            "meals today {meals}",
            day=data["day"],
            streak=data["streak"],
            longest=data["longest"],
            lost=data["lost"],
            meals=data["meals_today"],
        ),
    )


@_projection("calendar", N_("The divine calendar: today, the chapters open and the next one."))
def calendar(c: Ctx, at: int | None, day: int | None) -> None:
    data = views.calendar(state_for(c, at, day))

    def text() -> str:
        lines = [_("day {day}", day=data["day"])]
        for ch in data["chapters"]:
            mark = _("open") if ch["open"] else (_("missed") if ch["day"] <= data["day"] else "")
            lines.append(
                _(
                    "  day {day:>2}  chapter {chapter}  {name:<20} {mark}",
                    day=ch["day"],
                    chapter=ch["chapter"],
                    name=terms.word(ch["name"]),
                    mark=mark,
                )
            )
        nxt = data["next"]
        lines.append(
            _(
                "next: {name} on day {day} (in {days})",
                name=terms.word(nxt["name"]),
                day=nxt["day"],
                days=n_("{n} day", "{n} days", nxt["in_days"]),
            )
            if nxt
            else _("next: no chapter left")
        )
        return "\n".join(lines)

    emit(c, data, text)


@group.command("autoplay", cls=_Said)
@click.option(
    "--days",
    cls=_Option,
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help=N_("Whole days to play."),
)
@common
@pass_ctx
def autoplay(c: Ctx, days: int) -> None:
    before = c.ledger.state(c.campaign).game
    played = play(c.ledger, c.campaign, days)
    g: Crawl = c.ledger.state(c.campaign).game
    data = {
        "days_played": played,
        "from_day": before.day,
        "day": g.day,
        "alive": g.alive,
        "health": g.health,
        "energy": g.energy,
        "cause_of_death": g.cause,
    }

    def text() -> str:
        end = _("alive") if g.alive else _("dead ({cause})", cause=terms.cause(g.cause or ""))
        return _(
            "played {days}: day {start} -> {day}, {end}, Health {health} Energy {energy}",
            days=n_("{n} day", "{n} days", played),
            start=before.day,
            day=g.day,
            end=end,
            health=g.health,
            energy=g.energy,
        )

    emit(c, data, text)


autoplay.help = N_(
    "Play by the rules with a sensible policy (eat when hungry, rest in towns, flee when losing)."
)


@group.command("tables", cls=_Said)
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@common
@pass_ctx
def tables(c: Ctx, file: str | None) -> None:
    data, source = load_tables(file)
    summary = {
        "source": source,
        "sample": data["sample"],
        "settings": data["settings"],
        "terrain": data["terrain"],
        "enemies": sorted(data["enemies"]),
        "items": sorted(data["items"]),
        "shop": {k: v["price"] for k, v in data["shop"].items()},
        "chapters": {k: v["name"] for k, v in data["chapters"].items()},
    }
    emit(
        c,
        summary,
        lambda: (
            (
                _("{source}: valid crawl tables (sample content)", source=source)
                if data["sample"]
                else _("{source}: valid crawl tables", source=source)
            )
            + "\n"
            + _("terrain: {names}", names=", ".join(terms.names(data["terrain"].values())))
            + "\n"
            + _("settings: {settings}", settings=", ".join(f"{k}={v}" for k, v in data["settings"].items()))
        ),
    )


tables.help = N_("Check a tables FILE (default: the sample tables); `ledger tables` shows the rows.")


group.create = create
"""``ledger character create`` runs this command in a crawl campaign."""


def register(cli: click.Group) -> None:
    """Add the crawl system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
