"""``expected_version`` means the same with one ``ledger serve`` or two: two real server
processes on one ledger (SQLite and PostgreSQL), 20 rounds of 20 writes sent at once with
the same ``expected_version``: in every round exactly one is recorded, right after it, and
the other 19 get the 409 that says someone acted first."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import postgres_schema_url
from tests.helpers_web import bearer, seat_table, serving

ROUNDS = 20
AT_ONCE = 20


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "sqlite":
        yield str(tmp_path / "table.ledger")
    else:
        yield from postgres_schema_url()


async def _round(bases: list[str], secret: str) -> tuple[int, list[tuple[int, dict[str, Any]]]]:
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=2 * AT_ONCE)) as client:
        info = await client.get(f"{bases[0]}/api/c/Friday", headers=bearer(secret))
        seen = info.json()["head"]
        body = {"command": "core.Roll", "args": {"notation": "d20"}, "expected_version": seen}
        answers = await asyncio.gather(
            *(
                client.post(f"{bases[i % 2]}/api/c/Friday/actions", json=body, headers=bearer(secret))
                for i in range(AT_ONCE)
            )
        )
        return seen, [(a.status_code, a.json()) for a in answers]


def test_one_write_of_twenty_with_one_expected_version_wins_across_two_processes(shared: str) -> None:
    seated = seat_table(shared)
    with serving(shared) as one, serving(shared) as two:
        for _ in range(ROUNDS):
            seen, answers = asyncio.run(_round([one, two], seated.ana))
            recorded = [body for status, body in answers if status == 200]
            refused = [body["error"] for status, body in answers if status == 409]
            assert len(recorded) == 1, [status for status, _ in answers]
            assert recorded[0]["version"] == seen + 1
            assert len(refused) == AT_ONCE - 1
            assert {(e["type"], e["field"]) for e in refused} == {("StaleVersion", "expected_version")}
            assert {e["head"] for e in refused} == {seen + 1}
        after = httpx.get(f"{two}/api/c/Friday", headers=bearer(seated.ana)).json()["head"]
        assert after == seen + 1
