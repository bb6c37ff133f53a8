"""What ``ledger --help`` shows of the crawl, published under ``campaign_ledger.system_help``
without importing the crawl or its commands: its group's line and the walk through a day
of play, as a player types the commands (the group ``ledger.cli.crawl`` holds the same)."""

from ledger.i18n import N_
from ledger.systems import SystemHelp, Walkthrough

WALKTHROUGH = Walkthrough(
    title=N_("Play a crawl day (each command prints what may come next)"),
    steps=(
        ("ledger new crawl Mine --explorer Ada", N_("start; your explorer Ada stands on (0,0)")),
        ("ledger crawl move n", N_("a new day: walk to a neighbour (n ne se s sw nw)")),
        ("ledger crawl terrain", N_("a blank hex: roll its terrain (1d6)")),
        ("ledger crawl event", N_("roll the day's event (2d6 on a new hex)")),
        ("ledger crawl fight", N_("an enemy? it strikes first; then")),
        ("ledger crawl attack", N_("... attack (or technique N, or escape) until it falls")),
        ("ledger crawl buy bar", N_("in a town: trade, then quest, eat, sleep")),
        ("ledger crawl eat bar", N_("up to 3 rations: bar, fruit, or tavern in a town")),
        ("ledger crawl sleep wild", N_("end the day (wild, town or hotel)")),
        ("ledger sheet; ledger crawl map", N_("how you are, where you are")),
        ("ledger report -o mine.html", N_("a page of your sheet, map and log, day by day")),
        ("ledger tables", N_("the tables the dice are rolled on")),
        ("ledger undo", N_("take the last action back")),
    ),
)
"""A day of the crawl, command by command, at the end of ``ledger --help``."""

HELP = SystemHelp(
    name="crawl",
    command="crawl",
    summary=N_("The crawl system: a solo hex-crawl, day by day."),
    walkthrough=WALKTHROUGH,
)
