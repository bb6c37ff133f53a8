"""The live table under load: N tables of 5 seats, one stream per seat, against the library's own append.

    python bench/serve_load.py                         # SQLite with one process, PostgreSQL with two
    python bench/serve_load.py --no-postgres --tables 10,25,50
    python bench/serve_load.py --quick --no-postgres   # a smoke run: 2 tables for a few seconds

For each number of tables in ``--tables`` (one step each, ``--seconds`` long), every
table is a freeform campaign of five characters, each with a player's seat
(``ledger table invite --as``) and one Server-Sent Events stream open on
``GET /api/c/{campaign}/stream``. Each table acts at table pace: an action every
``--pace`` seconds on average (exponential gaps), a roll now and then a note, and in
``--burst`` of those moments all five players act at once (everyone rolls initiative).
On PostgreSQL two ``ledger serve`` processes share the database: a table's seats, their
streams and their actions alternate between them, so every action reaches some of its
table's streams through the other process. During each step ``--reconnect`` of the
streams drop and come back with ``Last-Event-ID``. Two load processes play the seats
(httpx, asyncio): one sends every action, the other follows every stream (each with a
client of its own, as each device has), so that no action's answer waits in the load's
own event loop behind another seat's stream messages.

Figures per step, each against a baseline measured in the same run:

- action round trip (``POST /api/c/{campaign}/actions``, from the request to its
  answer) p50/p99, against the library's own in-process ``Ledger.execute`` of the same
  actions in the same moments on the same store, in a process of its own that runs
  beside the load for the whole step (a moment every ``--baseline-gap`` seconds on its
  own campaign, ``--burst`` of them five actions at once, appended in turn and each
  timed from the moment's start, as a client times its request), so that both meet the
  machine as it is at that moment (goal: p99 within 3x); and apart, the actions sent
  alone against the in-process appends of the moments with one action: the server's
  own cost, with no burst's queue in either;
- fan-out: from the moment the action's events were sealed (their recorded ``at``, just
  before the commit) to the last of its table's five streams receiving it, p50/p99
  (goal: p99 under 100 ms with 50 tables); actions committed while one of the table's
  streams was reconnecting are left out of it (they count below);
- lost and duplicated events: each stream's versions, once every stream has caught up,
  against every version recorded after it opened (goal: 0 and 0);
- the processor time the servers and the two load processes used, as a share of one
  core, and the servers' per action.

The largest number of tables whose round trip and fan-out p99 both stay under
``--p99-ms`` is printed last. Each run uses a fresh SQLite file and a fresh PostgreSQL
schema.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
import httpx  # noqa: E402
import msgspec  # noqa: E402

from ledger import Ledger  # noqa: E402
from ledger.deciding.commands import Note, Roll  # noqa: E402

PG = os.environ.get("LEDGER_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
PLAYERS = ("Ana", "Bo", "Cyr", "Dee", "Eli")
NOTATIONS = ("1d20+5", "2d6", "4d6kh3", "3d6>=5")
TICKS = os.sysconf("SC_CLK_TCK")
NO_TLS = ssl.create_default_context()
"""One TLS context for every stream's client (the servers speak plain HTTP): httpx
builds one per client otherwise, which for a thousand clients takes longer than a step."""


@dataclass
class Seat:
    character: str
    secret: str
    server: int


@dataclass
class Table:
    name: str
    seats: list[Seat]


@dataclass
class Stream:
    """What one seat's stream received: versions in order, when each arrived."""

    table: Table
    seat: Seat
    after: int
    versions: list[int] = field(default_factory=list)
    arrived: dict[int, float] = field(default_factory=dict)
    sealed: dict[int, float] = field(default_factory=dict)
    away: list[tuple[float, float]] = field(default_factory=list)
    """(dropped, back) wall-clock times of each reconnection."""
    dropped: int = 0
    """Unplanned drops of the connection (each resumed with the last event id)."""
    connected: Any = None
    """Set once the stream is open (an ``asyncio.Event`` of the followers' process)."""

    @property
    def last(self) -> int:
        return self.versions[-1] if self.versions else self.after

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "connected"}


@dataclass
class Step:
    tables: int
    round_trips: list[float]
    lone: list[float]
    """The round trips of actions sent alone (not in a burst)."""
    served: list[float]
    """The server's own time for each action (its ``Server-Timing``)."""
    fan_outs: list[float]
    baseline: list[float]
    """The in-process appends, each timed from its moment's start (a burst's five in turn)."""
    baseline_lone: list[float]
    """The in-process appends of the moments with one action."""
    lost: int
    duplicated: int
    refused: int
    seconds: float
    server_cpu: float
    load_cpu: float
    dropped: int = 0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def sealed_at(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


# --- the ledger, its tables and seats -----------------------------------------------------


def add_tables(target: str, first: int, count: int, servers: int) -> list[Table]:
    """``count`` more freeform tables of five characters, each with a player's seat."""
    from ledger.trust.seats import seats_of

    made = []
    with Ledger(target) as book:
        seats = seats_of(book)
        for i in range(first, first + count):
            name = f"table-{i:04d}"
            book.new_campaign("freeform", name)
            for who in PLAYERS:
                book.add_character(who, name)
            camp = book.campaign(name)
            sat = []
            for j, who in enumerate(PLAYERS):
                _, secret = seats.invite(camp.id, "player", who, f"t{i:04d}-{who}")
                sat.append(Seat(who, secret, (i + j) % servers))
            made.append(Table(name, sat))
    return made


def heads(target: str, tables: list[Table]) -> dict[str, int]:
    with Ledger(target) as book:
        return {t.name: book.head(book.campaign(t.name)) for t in tables}


def an_action(rng: random.Random) -> tuple[str, dict[str, str]]:
    if rng.random() < 0.1:
        return "core.Note", {"text": "the torch gutters"}
    return "core.Roll", {"notation": rng.choice(NOTATIONS), "label": "attack"}


def in_process(
    target: str, name: str, seconds: float, gap: float, burst: float, seed: int, go: Any, out: Any
) -> None:
    """The library's own append of the same actions in the same moments, in a process of
    its own beside the load: a moment every ``gap`` seconds on average for ``seconds``,
    ``burst`` of them five actions at once (appended in turn, as one ``Ledger`` records
    them: each timed from the moment's start, as a client times its request), the others
    one. Each append's time, and whether its moment had one action."""
    rng = random.Random(seed)
    times: list[tuple[float, bool]] = []
    with Ledger(target) as book:
        book.tip(book.campaign(name))  # the head in memory, as a server keeps it
        go.wait(120)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(min(rng.expovariate(1 / gap), max(0.0, end - time.monotonic())))
            players = PLAYERS if rng.random() < burst else (rng.choice(PLAYERS),)
            start = time.perf_counter()
            for who in players:
                command, args = an_action(rng)
                made = Note(**args) if command == "core.Note" else Roll(**args)
                book.execute(made, name, actor=who)
                times.append((time.perf_counter() - start, len(players) == 1))
    out.put(times)


def baseline_campaign(target: str, name: str) -> None:
    with Ledger(target) as book:
        book.new_campaign("freeform", name)
        for who in PLAYERS:
            book.add_character(who, name)


# --- the servers ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(target: str, count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    exe = shutil.which("ledger", path=str(Path(sys.executable).parent)) or "ledger"
    procs = []
    try:
        for _ in range(count):
            port = free_port()
            proc = subprocess.Popen(
                [exe, "serve", "--db", target, "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            proc.port = port  # type: ignore[attr-defined]
            procs.append(proc)
        for proc in procs:
            wait_ready(proc)
        yield procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_ready(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    url = f"http://127.0.0.1:{proc.port}/api/schema"  # type: ignore[attr-defined]
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"ledger serve ended: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"ledger serve did not answer within {timeout:g} s")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- the load ------------------------------------------------------------------------------


async def follow(base: str, s: Stream, stop: asyncio.Event, drop_at: float | None) -> None:
    """Keep the seat's stream open until ``stop``; drop it once at ``drop_at`` and resume.

    Each stream has a client of its own, as each device does: one client pooling hundreds
    of open streams spends its time walking its pool on every request (httpcore's pool is
    searched in full each time), which made the load process, not the server, the limit."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, read=None), verify=NO_TLS) as client:
        await following(client, base, s, stop, drop_at)


async def following(
    client: httpx.AsyncClient, base: str, s: Stream, stop: asyncio.Event, drop_at: float | None
) -> None:
    decode = msgspec.json.decode
    while not stop.is_set():
        headers = {"Authorization": f"Bearer {s.seat.secret}", "Last-Event-ID": str(s.last)}
        try:
            async with client.stream("GET", f"{base}/api/c/{s.table.name}/stream", headers=headers) as resp:
                if resp.status_code != 200:
                    raise RuntimeError(f"stream of {s.table.name} answered {resp.status_code}")
                if s.away and s.away[-1][1] == 0.0:
                    s.away[-1] = (s.away[-1][0], time.time())
                s.connected.set()
                data = b""
                async for line in resp.aiter_lines():
                    if line.startswith("data: "):
                        data = line[6:].encode()
                    elif not line and data:
                        got = time.time()
                        item = decode(data)
                        data = b""
                        v = item["version"]
                        s.versions.append(v)
                        s.arrived.setdefault(v, got)
                        s.sealed[v] = sealed_at(item["at"])
                    if stop.is_set():
                        return
                    if drop_at is not None and time.monotonic() >= drop_at:
                        drop_at = None
                        s.away.append((time.time(), 0.0))
                        break
        except httpx.TransportError:
            # The connection dropped under the client (a kept-alive one the server had
            # closed): resumed like a planned drop, with the last event id.
            if stop.is_set():
                return
            s.dropped += 1
            if not s.away or s.away[-1][1] != 0.0:
                s.away.append((time.time(), 0.0))
            await asyncio.sleep(0.05)
        except asyncio.CancelledError:
            if stop.is_set():
                return
            raise


class Played:
    """What the players' actions measured: each round trip, those of the actions sent
    alone, the server's own time for each (its ``Server-Timing``), and the refusals."""

    def __init__(self) -> None:
        self.round_trips: list[float] = []
        self.lone: list[float] = []
        self.served: list[float] = []
        self.refused: list[int] = []


async def play(
    clients: list[aiohttp.ClientSession],
    bases: list[str],
    table: Table,
    end: float,
    pace: float,
    burst: float,
    rng: random.Random,
    out: Played,
) -> None:
    async def act(seat: Seat, alone: bool) -> None:
        command, args = an_action(rng)
        start = time.perf_counter()
        try:
            async with clients[seat.server].post(
                f"{bases[seat.server]}/api/c/{table.name}/actions",
                json={"command": command, "args": args},
                headers={"Authorization": f"Bearer {seat.secret}"},
            ) as resp:
                await resp.read()
        except aiohttp.ClientConnectionError:  # a kept-alive connection the server closed as it was reused
            out.refused.append(0)
            return
        took = time.perf_counter() - start
        if resp.status == 200:
            out.round_trips.append(took)
            out.served.append(float(resp.headers["server-timing"].partition("dur=")[2]) / 1000)
            if alone:
                out.lone.append(took)
        else:
            out.refused.append(resp.status)

    await asyncio.sleep(min(rng.uniform(0, pace), max(0.0, end - time.monotonic())))
    while time.monotonic() < end:
        if rng.random() < burst:
            await asyncio.gather(*(act(s, False) for s in table.seats))
        else:
            await act(rng.choice(table.seats), True)
        await asyncio.sleep(min(rng.expovariate(1 / pace), max(0.0, end - time.monotonic())))


@dataclass
class Following:
    """What the streams' process is given: the servers, the streams to open, the step's
    length and share of streams that reconnect, a seed, and the events it talks through."""

    bases: list[str]
    streams: list[Stream]
    seconds: float
    reconnect: float
    seed: int
    ready: Any
    finals: Any


def followers(plan: Following, out: Any) -> None:
    """Every seat's stream, in a process of its own beside the players' (each device is a
    machine of its own, so a page's messages never wait behind another seat's request):
    open them all, say so on ``ready``, follow until the final heads arrive on ``finals``
    and every stream has caught up with them (15 s at most), then hand back what each
    received and this process's processor time."""
    cpu0 = own_cpu()
    got = asyncio.run(_following(plan))
    out.put((got, own_cpu() - cpu0))


async def _following(plan: Following) -> list[Stream]:
    bases, streams, seconds, reconnect = plan.bases, plan.streams, plan.seconds, plan.reconnect
    ready, finals, seed = plan.ready, plan.finals, plan.seed
    rng = random.Random(seed)
    stop = asyncio.Event()
    for s in streams:
        s.connected = asyncio.Event()
    start = time.monotonic()
    tasks = [
        asyncio.create_task(
            follow(
                bases[s.seat.server],
                s,
                stop,
                start + rng.uniform(0.2, 0.8) * seconds if rng.random() < reconnect else None,
            )
        )
        for s in streams
    ]
    try:
        await asyncio.wait_for(asyncio.gather(*(s.connected.wait() for s in streams)), 60)
        ready.set()
        final: dict[str, int] = await asyncio.to_thread(finals.get)
        settle = time.monotonic() + 15
        while time.monotonic() < settle and not all(s.last >= final[s.table.name] for s in streams):
            if any(t.done() for t in tasks):
                break
            await asyncio.sleep(0.05)
        return streams
    finally:
        stop.set()
        for t in tasks:
            t.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, Exception) and not isinstance(r, asyncio.CancelledError):
                raise r


async def players(
    tables: list[Table], bases: list[str], args: argparse.Namespace, seed: int
) -> tuple[Played, float]:
    """Play every table for the step: what its actions measured, and how long it took.
    The actions go through aiohttp, the client most chat bots are built on; the streams
    through httpx (:func:`follow`)."""
    rng = random.Random(seed)
    clients = [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=30)
        )
        for _ in bases
    ]
    played = Played()
    try:
        begin = time.monotonic()
        end = begin + args.seconds
        await asyncio.gather(
            *(
                play(
                    clients,
                    bases,
                    t,
                    end,
                    args.pace,
                    args.burst,
                    random.Random(rng.random()),
                    played,
                )
                for t in tables
            )
        )
        return played, time.monotonic() - begin
    finally:
        for c in clients:
            await c.close()


def tally(streams: list[Stream], final: dict[str, int]) -> tuple[int, int, list[float]]:
    """Lost and duplicated events over every stream, and each action's fan-out."""
    lost = dup = 0
    by_table: dict[str, list[Stream]] = {}
    for s in streams:
        expected = set(range(s.after + 1, final[s.table.name] + 1))
        got = set(s.versions)
        lost += len(expected - got)
        dup += len(s.versions) - len(got) + len(got - expected)
        by_table.setdefault(s.table.name, []).append(s)
    fan_outs = []
    for name, group in by_table.items():
        away = [span for s in group for span in s.away]
        for v in range(group[0].after + 1, final[name] + 1):
            if not all(v in s.arrived for s in group):
                continue
            sealed = group[0].sealed[v]
            if any(lo <= sealed <= (hi or float("inf")) for lo, hi in away):
                continue
            fan_outs.append(max(s.arrived[v] for s in group) - sealed)
    return lost, dup, fan_outs


def run_step(
    target: str,
    procs: list[subprocess.Popen[bytes]],
    tables: list[Table],
    args: argparse.Namespace,
    seed: int,
) -> Step:
    name = f"baseline-{seed}"
    baseline_campaign(target, name)
    after = heads(target, tables)
    bases = [f"http://127.0.0.1:{p.port}" for p in procs]  # type: ignore[attr-defined]
    ctx = mp.get_context("fork")
    go, out = ctx.Event(), ctx.Queue()
    beside = ctx.Process(
        target=in_process,
        args=(target, name, args.seconds, args.baseline_gap, args.burst, seed, go, out),
        daemon=True,
    )
    beside.start()
    ready, finals, received = ctx.Event(), ctx.Queue(), ctx.Queue()
    streams = [Stream(t, s, after[t.name]) for t in tables for s in t.seats]
    watching = ctx.Process(
        target=followers,
        args=(Following(bases, streams, args.seconds, args.reconnect, seed, ready, finals), received),
        daemon=True,
    )
    watching.start()
    try:
        if not ready.wait(60):
            raise TimeoutError
        cpu0 = sum(cpu_seconds(p.pid) for p in procs)
        own0 = own_cpu()
        go.set()  # the in-process appends beside the load start with it
        played, took = asyncio.run(players(tables, bases, args, seed))
        server_cpu = (sum(cpu_seconds(p.pid) for p in procs) - cpu0) / took
        load_cpu = (own_cpu() - own0) / took
        final = heads(target, tables)
        finals.put(final)
        streams, follow_cpu = received.get(timeout=60)
    finally:
        watching.join(5)
        if watching.is_alive():
            watching.kill()
    moments = out.get(timeout=args.seconds + 60)
    beside.join()
    lost, dup, fan_outs = tally(streams, final)
    return Step(
        len(tables),
        played.round_trips,
        played.lone,
        played.served,
        fan_outs,
        [t for t, _ in moments],
        [t for t, alone in moments if alone],
        lost,
        dup,
        len(played.refused),
        took,
        server_cpu,
        load_cpu + follow_cpu / took,
        sum(s.dropped for s in streams),
    )


def show(step: Step, p99_ms: float) -> bool:
    rt50, rt99 = pct(step.round_trips, 0.5) * 1000, pct(step.round_trips, 0.99) * 1000
    b50, b99 = pct(step.baseline, 0.5) * 1000, pct(step.baseline, 0.99) * 1000
    l50, l99 = pct(step.lone, 0.5) * 1000, pct(step.lone, 0.99) * 1000
    bl50, bl99 = pct(step.baseline_lone, 0.5) * 1000, pct(step.baseline_lone, 0.99) * 1000
    f50, f99 = pct(step.fan_outs, 0.5) * 1000, pct(step.fan_outs, 0.99) * 1000
    s50, s99 = pct(step.served, 0.5) * 1000, pct(step.served, 0.99) * 1000
    held = rt99 <= p99_ms and f99 <= p99_ms and not step.refused
    print(
        f"  {step.tables:>4} tables  {len(step.round_trips):>5} actions in {step.seconds:4.1f} s"
        f"  ({len(step.round_trips) / step.seconds:6.1f}/s, {step.refused} refused or cut off)\n"
        f"        round trip  p50 {rt50:7.1f} ms  p99 {rt99:7.1f} ms"
        f"   in-process append p50 {b50:6.1f} ms  p99 {b99:6.1f} ms"
        f"   p99 {rt99 / b99:5.2f}x (goal 3), p50 {rt50 / b50:5.2f}x   (every action, bursts too)\n"
        f"          alone     p50 {l50:7.1f} ms  p99 {l99:7.1f} ms"
        f"   in-process append p50 {bl50:6.1f} ms  p99 {bl99:6.1f} ms"
        f"   p99 {l99 / bl99:5.2f}x (goal 3), p50 {l50 / bl50:5.2f}x   ({len(step.lone)} actions sent alone)\n"
        f"          in server p50 {s50:7.1f} ms  p99 {s99:7.1f} ms"
        f"   p99 {s99 / b99:5.2f}x, p50 {s50 / b50:5.2f}x the in-process append"
        f"   (arrival to answer, every action: the rest is the network and the client)\n"
        f"        fan-out     p50 {f50:7.1f} ms  p99 {f99:7.1f} ms   ({len(step.fan_outs)} actions to all 5 streams;"
        f" goal p99 100 ms at 50 tables)\n"
        f"        lost {step.lost}  duplicated {step.duplicated}   (goal 0 and 0;"
        f" {step.dropped} unplanned drops resumed)"
        f"   cpu: servers {step.server_cpu:4.0%} of a core"
        f" ({step.server_cpu * step.seconds / max(1, len(step.round_trips)) * 1000:.1f} ms an action),"
        f" load processes {step.load_cpu:4.0%}"
        f"   {'holds' if held else 'falls behind'} (p99 <= {p99_ms:g} ms)",
        flush=True,
    )
    return held


def bench(label: str, target: str, servers: int, args: argparse.Namespace) -> list[Step]:
    print(f"\n== {label}: {servers} ledger serve process{'es' if servers > 1 else ''} ==", flush=True)
    steps = []
    tables: list[Table] = []
    held = 0
    with Ledger(target):  # the store's tables, before a server opens it
        pass
    with serving(target, servers) as procs:
        for i, n in enumerate(int(x) for x in args.tables.split(",")):
            if n > len(tables):
                tables += add_tables(target, len(tables), n - len(tables), servers)
            try:
                step = run_step(target, procs, tables[:n], args, seed=i + 1)
            except TimeoutError:
                print(f"  {n:>4} tables  falls behind: the {5 * n} streams did not all open within 60 s")
                break
            steps.append(step)
            if show(step, args.p99_ms):
                held = n
            elif not args.all_steps:
                break
    print(f"  held: {held} tables with round trip and fan-out p99 <= {args.p99_ms:g} ms", flush=True)
    return steps


@contextmanager
def pg_schema() -> Iterator[str]:
    from bench.bench_postgres import schema

    with schema() as name:
        yield f"{PG}?schema={name}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tables", default="10,25,50,100,200,400,800", help="comma-separated table counts, one step each"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each step")
    parser.add_argument("--pace", type=float, default=12.0, help="mean seconds between a table's actions")
    parser.add_argument(
        "--burst", type=float, default=0.2, help="share of those moments when all five act at once"
    )
    parser.add_argument(
        "--reconnect", type=float, default=0.2, help="share of the streams that drop and resume"
    )
    parser.add_argument(
        "--baseline-gap",
        type=float,
        default=0.3,
        help="mean seconds between the in-process appends beside the load",
    )
    parser.add_argument("--p99-ms", type=float, default=250.0, help="the p99 a step must hold")
    parser.add_argument("--all-steps", action="store_true", help="run every step, past one that falls behind")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2 tables, 3 s, fast pace")
    args = parser.parse_args(argv)
    # A stopped run still stops its servers and drops its schema.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.quick:
        args.tables, args.seconds, args.pace, args.reconnect = "2", 3.0, 0.3, 0.5
        args.all_steps = True
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(
        f"5 seats a table, an action every {args.pace:g} s a table ({args.burst:.0%} of them bursts of 5), "
        f"{args.reconnect:.0%} of the streams reconnect, {args.seconds:g} s a step"
    )
    bad = 0
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as tmp:
            steps = bench("sqlite", str(Path(tmp) / "load.ledger"), 1, args)
            bad += sum(s.lost + s.duplicated for s in steps)
    if not args.no_postgres:
        with pg_schema() as url:
            steps = bench("postgresql", url, 2, args)
            bad += sum(s.lost + s.duplicated for s in steps)
    print(f"(load average at the end {os.getloadavg()[0]:.1f})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
