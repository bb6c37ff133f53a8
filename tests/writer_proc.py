"""A writer process for the concurrency tests: appends N rolls to a campaign."""

from __future__ import annotations

import sys

from ledger import Ledger


def main() -> None:
    target, campaign, count, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with Ledger(target) as book:
        for i in range(count):
            book.roll("1d6", campaign, label=f"{tag}-{i}")


if __name__ == "__main__":
    main()
