"""The baseline: the eventsourcing package used its default way.

An ``Application`` with an ``Aggregate`` whose methods are decorated with
``@event``, persisted by the package's SQLite module with the same file
settings as the ledger (WAL).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Campaign(Aggregate):
    def __init__(self, name: str) -> None:
        self.name = name
        self.events = 0
        self.kinds: dict[str, int] = {}

    @event("Recorded")
    def record(self, payload: dict[str, Any]) -> None:
        self.events += 1
        kind = payload.get("event", {}).get("kind", "?")
        self.kinds[kind] = self.kinds.get(kind, 0) + 1


class Tabletop(Application[UUID]):
    pass


def open_app(db: str) -> Tabletop:
    return Tabletop(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": db})


def append(db: str, payloads: list[dict[str, Any]]) -> tuple[Tabletop, UUID]:
    """Record every payload as an aggregate event and save them together."""
    app = open_app(db)
    campaign = Campaign("bench")
    for p in payloads:
        campaign.record(p)
    app.save(campaign)
    return app, campaign.id


def replay(app: Tabletop, campaign_id: UUID) -> Campaign:
    return app.repository.get(campaign_id)
