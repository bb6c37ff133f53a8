"""The refusal of a user's table file: written out, loaded by a system, refused in one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ledger.cli.fixes import message
from ledger.errors import TableError


def refused_file(load_tables: Callable[[str | None], Any], tmp_path: Path, text: str) -> TableError:
    """The TableError ``load_tables`` raises for a file holding ``text``, checked to be one line."""
    own = tmp_path / "own.toml"
    own.write_text(text, encoding="utf-8")
    with pytest.raises(TableError) as refused:
        load_tables(str(own))
    assert "\n" not in message(refused.value)
    return refused.value
