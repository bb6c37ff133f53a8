"""The coin system, a sample plugin for campaign-ledger: call heads or tails, flip a coin.

Sample content: the smallest complete rule system, written the way any plugin is
(docs/plugins.md). ``system.SYSTEM`` is what the entry point publishes, ``cli.register``
adds the ``ledger coin`` group to the command line; ``HELP`` is what ``ledger --help``
shows of the system, published too, so that the help lists the system without importing
it.
"""

from campaign_ledger_coin.i18n import N_  # the coin's catalog, which says its help line
from ledger.systems import SystemHelp

HELP = SystemHelp(
    name="coin",
    command="coin",
    summary=N_("The coin system (sample plugin): call heads or tails, flip."),
)
