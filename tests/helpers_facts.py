"""Checks a system's SQL facts against its Python facts, event by event.

``assert_same_facts(book, system)`` reads every stored event of the system's
campaigns, runs the Python ``facts`` function on each and every
:class:`~ledger.facts.FactQuery` of ``extra["facts_sql"]`` over all of them in
DuckDB, and asserts both give the same rows: same event, same index, same
fields, same dice. Probabilities may differ in the last bits (1e-12).
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import msgspec

from ledger import Ledger
from ledger.events import CORE_EVENTS, envelope_decoder
from ledger.facts import FACT_TYPES, DieFace, Fact, FactQuery
from ledger.systems import get_system

BY_TABLE = {cls.table: cls for cls in FACT_TYPES}
_CORE = frozenset(CORE_EVENTS)
EV_COLUMNS = (
    "{'position': 'BIGINT', 'stream': 'VARCHAR', 'version': 'INTEGER', 'day': 'INTEGER', "
    "'actor': 'VARCHAR', 'kind': 'VARCHAR', 'event': 'JSON'}"
)

Row = tuple[Any, ...]


def _fields(cls: type[Fact]) -> tuple[str, ...]:
    return tuple(cls.__struct_fields__)


def _defaults(cls: type[Fact]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    fields = cls.__struct_fields__
    defaults = cls.__struct_defaults__
    for name, value in zip(fields[len(fields) - len(defaults) :], defaults, strict=True):
        out[name] = value
    return out


def _norm(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, DieFace):
        return (value.size, value.face, value.kept, value.reroll_of)
    if isinstance(value, dict) and "size" in value:  # a die from DuckDB
        kept = True if value["kept"] is None else value["kept"]
        return (value["size"], value["face"], kept, value["reroll_of"])
    if isinstance(value, list | tuple):
        return tuple(_norm(v) for v in value)
    return value


def _stored(book: Ledger, system: str) -> list[tuple[int, str, bytes]]:
    streams = {c.id for c in book.campaigns() if c.system == system}
    out, pos = [], 0
    while True:
        page = book.store.notifications(pos + 1, 10_000)
        if not page:
            return out
        out.extend(
            (n.id, str(n.originator_id), bytes(n.state)) for n in page if str(n.originator_id) in streams
        )
        pos = page[-1].id


def python_facts(book: Ledger, system: str) -> dict[str, list[Row]]:
    """Rows of the Python facts function, table by table: (position, n, kind, *fields)."""
    hook = get_system(system).extra["facts"]
    decode = envelope_decoder(system).decode
    rows: dict[str, list[Row]] = defaultdict(list)
    for position, _, state in _stored(book, system):
        env = decode(state)
        if type(env.event) in _CORE:
            continue
        for n, fact in enumerate(hook(env)):
            base = BY_TABLE[fact.table]
            values = tuple(_norm(getattr(fact, f)) for f in _fields(base))
            rows[fact.table].append((position, n, env.event.kind, *values))
    return {t: sorted(r) for t, r in rows.items()}


def sql_facts(book: Ledger, system: str) -> dict[str, list[Row]]:
    """Rows of the system's FactQuery statements, in the same shape as :func:`python_facts`."""
    queries: list[FactQuery] = get_system(system).extra["facts_sql"]
    stored = _stored(book, system)
    raw = msgspec.json.Decoder()
    lines = []
    for position, stream, state in stored:
        env = raw.decode(state)
        lines.append(
            {
                "position": position,
                "stream": stream,
                "version": env["v"],
                "day": env["day"],
                "actor": env["actor"],
                "kind": env["event"]["kind"],
                "event": env["event"],
            }
        )
    rows: dict[str, list[Row]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ev.jsonl"
        path.write_bytes(msgspec.json.Encoder().encode_lines(lines))
        con = duckdb.connect()
        con.execute(
            f"CREATE TABLE ev AS SELECT * FROM read_json('{path}', format = 'newline_delimited', "
            f"columns = {EV_COLUMNS})"
        )
        kinds = dict(con.execute("SELECT position, kind FROM ev").fetchall())
        seen = {k for (k,) in con.execute("SELECT DISTINCT kind FROM ev").fetchall()}
        for query in queries:
            assert seen.intersection(query.kinds), (
                f"{query.fact.__name__} query over {query.kinds}: the log has none of them; "
                "play more (or record one by hand) so every query is exercised"
            )
            cls = query.fact
            cur = con.execute(query.sql)
            names = [d[0] for d in cur.description]
            missing = {"position", "n"} - set(names)
            assert not missing, f"{cls.__name__} query returns no {missing}"
            unknown = set(names) - {"position", "n", *_fields(cls)}
            assert not unknown, f"{cls.__name__} query returns columns the fact lacks: {unknown}"
            defaults = _defaults(cls)
            for record in cur.fetchall():
                got = dict(zip(names, record, strict=True))
                values = []
                for f in _fields(cls):
                    assert f in got or f in defaults, f"{cls.__name__} query must return {f!r} (no default)"
                    values.append(_norm(got[f] if f in got else defaults[f]))
                rows[cls.table].append((got["position"], got["n"], kinds[got["position"]], *values))
        con.close()
    return {t: sorted(r) for t, r in rows.items()}


def assert_same_facts(book: Ledger, system: str) -> int:
    """Asserts the SQL and Python facts agree; returns how many facts were compared."""
    want = python_facts(book, system)
    got = sql_facts(book, system)
    assert set(got) == set(want), f"tables differ: SQL {sorted(got)}, Python {sorted(want)}"
    for table, rows in want.items():
        if got[table] != rows:
            theirs, ours = set(got[table]), set(rows)
            only_py = sorted(ours - theirs)[:3]
            only_sql = sorted(theirs - ours)[:3]
            raise AssertionError(
                f"{table}: {len(rows)} Python rows, {len(got[table])} SQL rows; "
                f"only in Python: {only_py}; only in SQL: {only_sql}"
            )
    return sum(len(r) for r in want.values())


def play(book: Ledger, system: str, campaigns: int = 20, days: int = 40, prefix: str = "") -> None:
    """The system's samples plus ``campaigns`` autoplayed ones (seeded), for a comparison."""
    from ledger.stats import simulate_campaign

    root = Path(__file__).resolve().parents[1] / "samples" / system
    for i, sample in enumerate(sorted(root.glob("*.jsonl"))):
        with sample.open("rb") as f:
            book.import_(f, f"{prefix}sample-{i}")
    for i in range(campaigns):
        simulate_campaign(book, system, f"{prefix}sim-{i}", 1000 + i, days)
