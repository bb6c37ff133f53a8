"""`--help` works on every command of the CLI, found by walking click's command tree."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from ledger.cli.main import cli


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group, as the words a user types after `ledger`."""
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, prefix: tuple[str, ...]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            found.append((*prefix, name))
            if isinstance(command, click.Group):
                walk(command, (*prefix, name))

    walk(cli, ())
    return found


def test_the_walk_reaches_every_system_group() -> None:
    paths = command_paths()
    assert {("yz", "roll"), ("yz", "heal"), ("yz", "repair"), ("crawl", "move"), ("d20", "create")} <= set(
        paths
    )
    assert len(paths) > 100


def test_help_exits_zero_on_every_command(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "none.ledger")
    broken = []
    for path in command_paths():
        result = runner.invoke(cli, ["--db", db, *path, "--help"])
        if result.exit_code != 0 or "Usage:" not in result.output:
            broken.append(f"ledger {' '.join(path)} --help: {result.exit_code} {result.output[:120]!r}")
    assert not broken, "\n".join(broken)
    assert not Path(db).exists(), "asking for help created the ledger file"


def test_the_root_help_walks_through_a_crawl_day_with_real_commands() -> None:
    text = CliRunner().invoke(cli, ["--help"]).output
    start = text.index("Play a crawl day")
    named = [
        line.split()[:3] for line in text[start:].splitlines() if line.strip().startswith("ledger crawl ")
    ]
    steps = [words[2] for words in named]
    assert steps[:4] == ["move", "terrain", "event", "fight"]
    assert {"attack", "eat", "sleep", "buy"} <= set(steps)
    crawl = cli.get_command(click.Context(cli), "crawl")
    assert isinstance(crawl, click.Group)
    assert set(steps) <= set(crawl.list_commands(click.Context(crawl)))
    assert "ledger new crawl" in text[start:] and "character create" in text[start:]
