"""Shared fixtures: a ledger on every store, and a CLI runner."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ledger import Ledger
from ledger.cli.main import cli

PG_URL = os.environ.get("LEDGER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def postgres_available() -> str | None:
    """None when the test server answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3):
            return None
    except Exception as e:  # any failure to connect means: no server here
        return f"PostgreSQL at {PG_URL} is unreachable ({type(e).__name__})"


def postgres_schema_url() -> Iterator[str]:
    """A PostgreSQL target in a fresh schema, dropped afterwards.

    Outside CI the test is skipped when the server is unreachable; with
    CI=true it fails loudly."""
    why = postgres_available()
    if why:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {why}")
        pytest.skip(why)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    yield f"{PG_URL}?schema={schema}"
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield from postgres_schema_url()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Every contract test runs against SQLite and PostgreSQL."""
    if request.param == "sqlite":
        yield str(tmp_path / "test.ledger")
    else:
        yield from postgres_schema_url()


@pytest.fixture
def book(target: str) -> Iterator[Ledger]:
    with Ledger(target) as ledger:
        yield ledger


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.ledger")


class Session:
    """Runs `ledger` commands against one database, like a terminal session."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str, ok: bool = True) -> Result:
        result = self.runner.invoke(cli, ["--db", self.db, *args], catch_exceptions=True)
        if ok and result.exit_code != 0:
            raise AssertionError(f"ledger {' '.join(args)} failed: {result.output}{result.stderr}")
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result


@pytest.fixture
def ledger_cli(db: str) -> Session:
    return Session(db)


@pytest.fixture(autouse=True, scope="session")
def _the_table_reads_the_command_line() -> Iterator[None]:
    """The live table's apps made in these tests read the command line, as `ledger serve`
    makes them (ledger.web.commands)."""
    from ledger.cli.serve import command_line
    from ledger.web import commands

    commands.install(command_line())
    yield
    commands.install(None)
