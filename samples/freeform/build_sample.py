"""Build the freeform sample campaign (sample content): a one-shot with a fork.

Run from the repository root: ``python samples/freeform/build_sample.py``.
It writes ``samples/freeform/campaign.jsonl``, a golden log every test run
decodes and verifies.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ledger import Ledger

HERE = Path(__file__).parent


def build(book: Ledger) -> None:
    name = "sample-one-shot"
    book.new_campaign("freeform", name)
    book.add_character("Ines", name, {"class": "rogue", "dex": "16"})
    book.add_character("Tomas", name, {"class": "cleric", "wis": "15"})
    book.note("The caravan reaches the ruined toll house at dusk.", name)
    book.roll("1d20+3", name, label="perception", faces=[14], actor="Ines")
    book.roll("2d6", name, label="reaction", faces=[2, 3], actor="Tomas")
    book.note("Bandits in the rafters!", name)
    book.roll("1d20+5", name, label="attack", faces=[19], actor="Ines")
    book.roll("1d8+3", name, label="damage", faces=[8], actor="Ines")
    book.roll("1d20+2", name, label="attack", faces=[1], actor="Tomas")
    book.undo(name)  # the table agreed the cleric's fumble was a miscall
    book.roll("1d20+2", name, label="attack", faces=[12], actor="Tomas")
    book.roll("4d6kh3", name, label="loot", faces=[6, 1, 4, 4], actor="Ines")
    book.note("The toll house is ours.", name)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, Ledger(str(Path(tmp) / "s.ledger")) as book:
        build(book)
        with (HERE / "campaign.jsonl").open("wb") as out:
            book.export(out, "sample-one-shot")


if __name__ == "__main__":
    main()
