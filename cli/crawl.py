"""``ledger crawl ...``: the solo hex-crawl, one command per step of the day."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

import click

from ledger import words
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
from ledger.projections import sheets
from ledger.projections.crawl import views
from ledger.projections.crawl.game import DIRECTIONS, Crawl
from ledger.systems.crawl import order
from ledger.systems.crawl.play import autoplay as play
from ledger.systems.crawl.tables import load_tables


def _hints(state: Any) -> list[str]:
    """What the day's order lets the explorer do next (nothing once dead)."""
    game: Crawl | None = state.game
    if game is None or not game.alive:
        return []
    return list(order.expected(game))


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
        f"{SAMPLE_NAME}: imported from samples/crawl/campaign.jsonl ({words.count(state.core.version, 'event')})"
    )
    echo(sheets.text(sheets.view(views.SHEET, views.sheet(state, expected=order.expected))))
    echo("")
    echo("the map around the explorer (ledger crawl map --radius 4):")
    echo(views.render_map(state, radius=4))
    echo("")
    rows = views.journal(state)
    echo(f"journal ({len(rows)} lines), the last 8:")
    for row in rows[-8:]:
        echo(f"  day {row['day']:>3}  {row['text'][:100]}")
    echo("try: ledger crawl map -c crawl-sample --day 25 ; ledger crawl hunger -c crawl-sample")


group = SystemGroup(
    "crawl",
    first_steps=("crawl move DIR (n ne se s sw nw: the explorer walks to a neighbouring hex; day 1 begins)",),
    hints=_hints,
    demo=demo,
    walkthrough=WALKTHROUGH,
    short_help="The crawl system: a solo hex-crawl, day by day.",
    help="A solo hex-crawl: move, terrain, event, eat, sleep; one hex a day.\n\n"
    "Name your explorer as the campaign starts (`ledger new crawl NAME --explorer ADA`) "
    "or once after (`ledger character create ADA`); the sheet, the log and "
    "`ledger report -o FILE.html` go by that name.\n\n"
    "The day's order is fixed: move DIR; terrain (a blank hex); event; on an "
    "enemy fight, then attack / technique N / escape; loot after a win; in a "
    "town buy, quest; eat (up to 3); sleep. Each command says what comes next.",
)


def _text(rec: Any) -> str:
    game: Crawl = rec.state.game
    lines = [f"  {env.event.summary()}" for env in rec.envelopes]
    status = (
        f"day {game.day}  Health {game.health}  Energy {game.energy}  "
        f"bars {game.bar} fruit {game.fruit} bits {game.bits}"
    )
    nxt = order.expected(game, rec.state.core.tables)
    tail = f"next: {' | '.join(nxt)}" if game.alive else "the explorer is dead; the campaign is over"
    return "\n".join([*lines, status, tail])


def _expected(rec: Any) -> dict[str, Any]:
    """What the JSON adds: the commands the day's order allows next."""
    return {"expected": order.expected(rec.state.game, rec.state.core.tables)}


@click.command("create")
@click.argument("name")
@common
@pass_ctx
def create(c: Ctx, name: str) -> None:
    """Name the campaign's explorer NAME (once: the crawl is solo)."""
    rec = c.ledger.add_character(name, c.campaign)
    emit(c, recorded_json(rec), f"{name} explores in {rec.campaign.name!r}")


def _action(name: str, help_text: str) -> Any:
    """Decorate a command that records one step of the day."""

    def wrap(f: Any) -> Any:
        f.__doc__ = help_text
        f = pass_ctx(f)
        f = common(f)
        f = faces_option(f)
        return group.command(name)(f)

    return wrap


@_action("move", "Start a new day: walk to the neighbouring hex DIRECTION (n ne se s sw nw).")
@click.argument("direction", type=click.Choice(list(DIRECTIONS)))
def move(c: Ctx, direction: str, faces: str | None) -> None:
    run_command(c, order.Move(direction=direction), faces, text=_text, more=_expected)


@_action("terrain", "Roll the terrain of a blank hex (1d6; 3d6 with neighbours in the variant).")
@click.option(
    "--choose",
    default=None,
    metavar="TERRAIN",
    help="3d6 variant: the terrain to keep (on a die, or set by two matching neighbours).",
)
def terrain(c: Ctx, choose: str | None, faces: str | None) -> None:
    run_command(c, order.Terrain(choose=choose), faces, text=_text, more=_expected)


@_action("event", "Roll the day's event: 2d6 on a new hex; icons, revisits and divine days otherwise.")
@click.option(
    "--repeat",
    type=click.Choice(["shift", "pass"]),
    default=None,
    help="On a repeated events/ruins result: take the row above/below, or pass through.",
)
def event(c: Ctx, repeat: str | None, faces: str | None) -> None:
    run_command(c, order.Explore(repeat=repeat), faces, text=_text, more=_expected)


@_action("eat", "Eat a ration: bar (+2/+1), fruit (+1/+2) or tavern (town, 3 bits, +10/+4).")
@click.argument("food", type=click.Choice(["bar", "fruit", "tavern"]))
def eat(c: Ctx, food: str, faces: str | None) -> None:
    run_command(c, order.Eat(food=food), faces, text=_text, more=_expected)


@_action("sleep", "End the day: sleep wild (+3/+2), in town (+4/+3) or at the hotel (3 bits, +10/+6).")
@click.argument("where", type=click.Choice(["wild", "town", "hotel"]))
def sleep(c: Ctx, where: str, faces: str | None) -> None:
    run_command(c, order.Sleep(where=where), faces, text=_text, more=_expected)


@_action("buy", "Buy ITEM from the town's shop (trade comes first in a town).")
@click.argument("item")
def buy(c: Ctx, item: str, faces: str | None) -> None:
    run_command(c, order.Buy(item=item), faces, text=_text, more=_expected)


@_action("quest", "Take this town's one quest (1d6 on the quest table).")
def quest(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Quest(), faces, text=_text, more=_expected)


@_action("fight", "Face the enemy met today; it strikes first (1d6 + its Attack).")
def fight(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Fight(), faces, text=_text, more=_expected)


@_action("attack", "Basic attack: always hits (bows spend an arrow); then the enemy's turn.")
@click.option("--weapon", default=None, help="Weapon to use (default: your best).")
def attack(c: Ctx, weapon: str | None, faces: str | None) -> None:
    run_command(c, order.Attack(weapon=weapon), faces, text=_text, more=_expected)


@_action("technique", "Use technique N (1-7): Energy, a training roll for 1-4, lasting effects for 5-7.")
@click.argument("number", type=click.IntRange(1, 7))
def technique(c: Ctx, number: int, faces: str | None) -> None:
    run_command(c, order.Technique(number=number), faces, text=_text, more=_expected)


@_action("escape", "Try to flee: 1d6 above the enemy's ESC; success costs 2 Energy, 2 Health and the day.")
def escape(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Escape(), faces, text=_text, more=_expected)


@_action("hide", "Hide from God: the day ends with no meal and no sleep.")
def hide(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Hide(), faces, text=_text, more=_expected)


@_action("loot", "Search a defeated enemy's surroundings (1d6 on the rewards table).")
def loot(c: Ctx, faces: str | None) -> None:
    run_command(c, order.Loot(), faces, text=_text, more=_expected)


def _projection(name: str, help_text: str) -> Any:
    def wrap(f: Any) -> Any:
        f.__doc__ = help_text
        return group.command(name)(time_travel(common(pass_ctx(f))))

    return wrap


@_projection("map", "Draw the hex map: terrain, icons, the path walked and where you stand.")
@click.option(
    "--radius",
    type=click.IntRange(0, 1000),
    default=None,
    help="Draw only the hexes within this many steps of the explorer.",
)
def map_(c: Ctx, at: int | None, day: int | None, radius: int | None) -> None:
    state = state_for(c, at, day)
    emit(c, views.map_entries(state), lambda: views.render_map(state, radius))


@_projection("hunger", "The hunger streak: current, longest, Health lost to hunger.")
def hunger(c: Ctx, at: int | None, day: int | None) -> None:
    data = views.hunger(state_for(c, at, day))
    emit(
        c,
        data,
        lambda: (
            f"day {data['day']}: hunger streak {data['streak']} "
            f"(longest {data['longest']}), Health lost to hunger {data['lost']}, "
            f"meals today {data['meals_today']}"
        ),
    )


@_projection("calendar", "The divine calendar: today, the chapters open and the next one.")
def calendar(c: Ctx, at: int | None, day: int | None) -> None:
    data = views.calendar(state_for(c, at, day))

    def text() -> str:
        lines = [f"day {data['day']}"]
        for ch in data["chapters"]:
            mark = "open" if ch["open"] else ("missed" if ch["day"] <= data["day"] else "")
            lines.append(f"  day {ch['day']:>2}  chapter {ch['chapter']}  {ch['name']:<20} {mark}")
        nxt = data["next"]
        lines.append(
            f"next: {nxt['name']} on day {nxt['day']} (in {words.count(nxt['in_days'], 'day')})"
            if nxt
            else "next: no chapter left"
        )
        return "\n".join(lines)

    emit(c, data, text)


@group.command("autoplay")
@click.option(
    "--days", type=click.IntRange(1, 1000), default=10, show_default=True, help="Whole days to play."
)
@common
@pass_ctx
def autoplay(c: Ctx, days: int) -> None:
    """Play by the rules with a sensible policy (eat when hungry, rest in towns, flee when losing)."""
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
        end = "alive" if g.alive else f"dead ({g.cause})"
        return f"played {words.count(played, 'day')}: day {before.day} -> {g.day}, {end}, Health {g.health} Energy {g.energy}"

    emit(c, data, text)


@group.command("tables")
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@common
@pass_ctx
def tables(c: Ctx, file: str | None) -> None:
    """Check a tables FILE (default: the sample tables); `ledger tables` shows the rows."""
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
            f"{source}: valid crawl tables"
            + (" (sample content)" if data["sample"] else "")
            + f"\nterrain: {', '.join(data['terrain'].values())}\n"
            f"settings: {', '.join(f'{k}={v}' for k, v in data['settings'].items())}"
        ),
    )


group.create = create
"""``ledger character create`` runs this command in a crawl campaign."""


def register(cli: click.Group) -> None:
    """Add the crawl system's group to the command line (its ``campaign_ledger.commands``)."""
    cli.add_command(group)
