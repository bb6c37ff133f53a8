"""``ledger simulate``: whole campaigns played fast by each system's autoplayer or
simulator, each recorded whole through the ledger's bulk path (:class:`Simulator`)."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path
from typing import Any

import msgspec

from ledger.campaign import Ledger
from ledger.errors import DuplicateNameError, LedgerError
from ledger.i18n import _
from ledger.log.events import CampaignRegistered, CampaignStarted
from ledger.systems import get_system, system_names


class SimulationPlan(msgspec.Struct, frozen=True):
    """What ``simulate`` will create: campaign names and their dice seeds."""

    system: str
    seed: int
    names: tuple[str, ...]
    seeds: tuple[int, ...]


def plan(system: str, campaigns: int, seed: int, prefix: str | None = None) -> SimulationPlan:
    if campaigns < 1:
        raise LedgerError(
            _("`campaigns` must be at least 1, got {count}", count=campaigns), field="campaigns"
        )
    stem = prefix or f"sim-{system}-{seed}"
    names = tuple(f"{stem}-{i:05d}" for i in range(1, campaigns + 1))
    seeds = tuple(random.Random(f"{seed}:{system}:{i}").getrandbits(62) for i in range(1, campaigns + 1))
    return SimulationPlan(system, seed, names, seeds)


def simulators() -> list[str]:
    """The installed systems ``simulate`` can play: those with an autoplayer or a simulator."""
    return [n for n in system_names() if get_system(n).play.autoplay or get_system(n).play.simulate]


def check_simulator(system: str) -> None:
    """Refuse, before anything is recorded, a system that cannot be simulated."""
    get_system(system)
    if system not in simulators():
        raise LedgerError(
            _(
                "the {system} system has no simulator yet; simulate one of: {systems}",
                system=system,
                systems=", ".join(simulators()),
            )
        )


def _play(ledger: Any, system: str, name: str, seed: int, days: int) -> None:
    """Create and play one campaign: the system's simulator, or its autoplayer in one batch."""
    sysdef = get_system(system)
    autoplay = sysdef.play.autoplay
    if sysdef.play.simulate is not None:
        sysdef.play.simulate(ledger, name, seed, days)
    elif autoplay is not None:
        ledger.new_campaign(system, name, seed=seed)
        with ledger.batch(name) as batch:
            autoplay(batch, name, days)
    else:
        check_simulator(system)


class Simulator:
    """Plays campaigns in a scratch ledger of its own, then appends each one, registration and
    every event, to the real ledger in one transaction: a run killed at any moment leaves
    each of its campaigns whole or absent, never a stub."""

    RENEW = 100
    """Campaigns played in one scratch ledger before it is replaced by an empty one."""

    def __init__(self, ledger: Any, system: str, days: int) -> None:
        self.ledger = ledger
        self.system = system
        self.days = days
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._scratch: Any = None
        self._played = 0

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._scratch is not None:
            self._scratch.close()
            self._scratch = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def _fresh_scratch(self) -> Any:
        if self._scratch is None or self._played >= self.RENEW:
            self.close()
            self._folder = tempfile.TemporaryDirectory(prefix="ledger-sim-", dir=_scratch_dir())
            self._scratch = Ledger(str(Path(self._folder.name) / "play.ledger"))
            self._played = 0
        return self._scratch

    def play(self, name: str, seed: int) -> None:
        """Play campaign ``name`` and record it whole (refused if the name is taken)."""
        if name in {c.name for c in self.ledger.campaigns()}:
            raise DuplicateNameError(_("a campaign named {name!r} exists; choose another name", name=name))
        scratch = self._fresh_scratch()
        _play(scratch, self.system, name, seed, self.days)
        self._played += 1
        played = scratch.campaign(name)
        rows = [
            (played.id, stored.originator_version, stored.topic, bytes(stored.state))
            for stored in scratch.store.read(played.id)
        ]

        def make() -> tuple[CampaignRegistered, list[tuple[str, int, str, bytes]]]:
            registered = CampaignRegistered(
                campaign_id=played.id, name=name, system=self.system, simulated=True
            )
            return registered, rows

        self.ledger.register(make)


def _scratch_dir() -> str | None:
    """Shared memory when the machine has it (a scratch ledger need never reach a disk)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def simulate_campaign(ledger: Any, system: str, name: str, seed: int, days: int) -> None:
    """Create and play one campaign, recorded whole in one transaction (see :class:`Simulator`)."""
    with Simulator(ledger, system, days) as simulator:
        simulator.play(name, seed)


def still_to_simulate(ledger: Any, run: SimulationPlan) -> list[tuple[str, int]]:
    """The (name, seed) of each campaign of ``run`` not recorded yet: a run stopped part-way
    resumes where it stopped. A campaign of the run's name that another run (or a player)
    made is refused."""
    known = {c.name: c for c in ledger.campaigns()}
    todo = []
    for name, seed in zip(run.names, run.seeds, strict=True):
        camp = known.get(name)
        if camp is None:
            todo.append((name, seed))
            continue
        started = ledger.envelope(camp, 1).event if camp.parent_id is None else None
        if camp.system != run.system or not isinstance(started, CampaignStarted) or started.seed != seed:
            raise DuplicateNameError(
                _(
                    "campaign {name!r} exists already and is not part of this run; use another `seed` or `prefix`",
                    name=name,
                ),
                field="prefix",
            )
    return todo
