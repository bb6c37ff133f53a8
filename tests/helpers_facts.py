"""Checks a system's SQL facts against its Python facts, event by event.

``assert_same_facts(book, system)`` reads every stored event of the system's
campaigns, runs the Python ``facts`` function on each and every
:class:`~ledger.facts.FactQuery` of ``ReadModel.facts_sql`` over all of them in
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
from ledger.facts import DieFace, Fact, FactQuery, field_defaults
from ledger.log.events import CORE_EVENTS, envelope_decoder
from ledger.projections.warehouse.schema import schema
from ledger.systems import get_system

BY_TABLE = {cls.table: cls for cls in schema().fact_types}
"""Every fact class the warehouse has a table for: the shared ones and the installed systems'."""
_CORE = frozenset(CORE_EVENTS)
EV_COLUMNS = (
    "{'position': 'BIGINT', 'stream': 'VARCHAR', 'version': 'INTEGER', 'day': 'INTEGER', "
    "'actor': 'VARCHAR', 'kind': 'VARCHAR', 'event': 'JSON'}"
)

Row = tuple[Any, ...]


def _fields(cls: type[Fact]) -> tuple[str, ...]:
    return tuple(cls.__struct_fields__)


def without_defaults(struct: msgspec.Struct) -> dict[str, Any]:
    """A Struct as JSON data with every field left at its default left out, in nested
    Structs too: how a Struct with ``omit_defaults`` is stored."""
    out: dict[str, Any] = msgspec.to_builtins(struct)
    defaults = field_defaults(type(struct))
    for f in msgspec.structs.fields(struct):
        value = getattr(struct, f.name)
        if f.name in defaults and value == defaults[f.name]:
            out.pop(f.encode_name, None)
        elif isinstance(value, msgspec.Struct):
            out[f.encode_name] = without_defaults(value)
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
    while page := book.store.states_after(pos, 10_000):
        out.extend(row for row in page if row[1] in streams)
        pos = page[-1][0]
    return out


def python_facts(book: Ledger, system: str) -> dict[str, list[Row]]:
    """Rows of the Python facts function, table by table: (position, n, kind, *fields)."""
    hook = get_system(system).read.facts
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


def sql_facts(book: Ledger, system: str, *, defaults_left_out: bool = False) -> dict[str, list[Row]]:
    """Rows of the system's FactQuery statements, in the same shape as :func:`python_facts`.

    With ``defaults_left_out`` every event reaches the queries without the fields left
    at their default, as a Struct with ``omit_defaults`` would be stored."""
    raw = msgspec.json.Decoder()
    typed = envelope_decoder(system).decode
    lines = []
    for position, stream, state in _stored(book, system):
        env = raw.decode(state)
        event = without_defaults(typed(state).event) if defaults_left_out else env["event"]
        lines.append(
            {
                "position": position,
                "stream": stream,
                "version": env["v"],
                "day": env["day"],
                "actor": env["actor"],
                "kind": env["event"]["kind"],
                "event": event,
            }
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ev.jsonl"
        path.write_bytes(msgspec.json.Encoder().encode_lines(lines))
        con = duckdb.connect()
        con.execute(
            f"CREATE TABLE ev AS SELECT * FROM read_json('{path}', format = 'newline_delimited', "
            f"columns = {EV_COLUMNS})"
        )
        try:
            return sql_rows(con, get_system(system).read.facts_sql)
        finally:
            con.close()


def sql_rows(con: duckdb.DuckDBPyConnection, queries: list[FactQuery]) -> dict[str, list[Row]]:
    """Every query run over the table ``ev`` of ``con``: rows as :func:`python_facts` gives them,
    the fields a query leaves out at their default."""
    kinds = dict(con.execute("SELECT position, kind FROM ev").fetchall())
    seen = set(kinds.values())
    rows: dict[str, list[Row]] = defaultdict(list)
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
        defaults = field_defaults(cls)
        for record in cur.fetchall():
            got = dict(zip(names, record, strict=True))
            values = []
            for f in _fields(cls):
                assert f in got or f in defaults, f"{cls.__name__} query must return {f!r} (no default)"
                values.append(_norm(got[f] if f in got else defaults[f]))
            rows[cls.table].append((got["position"], got["n"], kinds[got["position"]], *values))
    return {t: sorted(r) for t, r in rows.items()}


def assert_same_facts(book: Ledger, system: str, *, defaults_left_out: bool = False) -> int:
    """Asserts the SQL and Python facts agree; returns how many facts were compared."""
    want = python_facts(book, system)
    got = sql_facts(book, system, defaults_left_out=defaults_left_out)
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
    from ledger.play.simulate import simulate_campaign

    root = Path(__file__).resolve().parents[1] / "samples" / system
    for i, sample in enumerate(sorted(root.glob("*.jsonl"))):
        with sample.open("rb") as f:
            book.import_(f, f"{prefix}sample-{i}")
    for i in range(campaigns):
        simulate_campaign(book, system, f"{prefix}sim-{i}", 1000 + i, days)
