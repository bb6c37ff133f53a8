"""The freeform system on the command line: it has no command group (the core's commands
are its own), and its part of ``ledger demo`` shows what every campaign can do with them,
on generic rolls: physical dice, undo, redo, a fork, a sealed roll, and the log they leave, each as the
command a player types (``ledger.cli.systems.demo_of``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.dice.sources import render
from ledger.i18n import _

NAME = "demo-freeform"
FORK = "demo-freeform-what-if"


def demo(book: Any, echo: Callable[[str], None]) -> None:
    """Rolls typed with their faces, an undo of two, a redo, a fork that rolls on its own,
    a blind roll and its reveal (made once), then both branches' logs."""
    if NAME not in {c.name for c in book.campaigns()}:
        book.new_campaign("freeform", NAME)
        book.add_character("Ines", NAME, {"class": "rogue"})
        for notation, faces in (
            ("1d20+3", [14]),
            ("4d6kh3", [6, 2, 5, 4]),
            ("2d6!", [6, 3, 2]),
            ("1d20", [1]),
            ("8d6>=5", [5, 6, 1, 3, 5, 2, 6, 4]),
        ):
            rec = book.roll(notation, NAME, faces=faces)
            echo(f"  $ ledger roll {notation} --faces {','.join(map(str, faces))}")
            echo(f"    {render(rec.events[0].result)}")
        book.undo(NAME, 2)
        echo(_("  $ ledger undo 2      (the natural 1 and the pool roll are retracted)"))
        book.redo(NAME)
        echo(_("  $ ledger redo        (the natural 1 comes back; the pool roll stays undone)"))
        book.fork(NAME, FORK, at=4)
        book.roll("1d20", FORK, faces=[20])
        echo(f"  $ ledger fork {FORK} --at 4 && ledger roll 1d20 --faces 20")
        sealed = book.roll("1d20", NAME, label="perception", faces=[12], visibility="blind")
        echo(_("  $ ledger roll 1d20 perception --faces 12 --blind   (behind the screen: the log keeps"))
        echo(_("    a salted sha256 of the result; the table sees that a roll was made)"))
        book.reveal(NAME, sealed.version)
        echo(
            _(
                "  $ ledger reveal {version}        (the result, checked against that commitment)",
                version=sealed.version,
            )
        )
    echo("  $ ledger log --all")
    for e in book.log(NAME, show_all=True):
        mark = " " + _(" [undone]") if e.undone else ""
        echo(f"    v{e.version:<3} {e.summary}{mark}")
    echo(f"  $ ledger -c {FORK} log")
    for e in book.log(FORK):
        echo(f"    v{e.version:<3} {e.summary}")
