"""Where ``ledger stats`` spends its time right after one new action.

    python bench/stats_profile.py                      # 300 simulated crawl campaigns
    python bench/stats_profile.py --campaigns 1000 --db /tmp/big.ledger --keep

Simulates the campaigns (or reuses ``--db``), builds the warehouse, records
one note, then runs ``stats --report luck`` in this process under cProfile
and prints the time of each step of the command, largest first, beside the
whole command's time. The import of the command's modules is timed apart
(``import time``), as the first thing the process does.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The steps of a warm `stats` call, by the function that runs each (file suffix, function name).
STEPS = [
    ("cli/stats.py", "_open_caught_up", "catch-up, in all (DuckDB opened and closed once)"),
    ("projections/warehouse/loading.py", "_connect", "  DuckDB opened for writing (and its marker checked)"),
    ("ledger/systems/__init__.py", "system_names", "    of which: the installed systems named"),
    ("projections/warehouse/loading.py", "position", "  the applied position read"),
    ("projections/warehouse/loading.py", "_load_streams", "  the campaigns' streams loaded (every campaign)"),
    ("threading.py", "start", "  the page reader's thread started"),
    ("projections/warehouse/loading.py", "_read_page", "  the new page read from the store"),
    ("projections/warehouse/loading.py", "_apply", "  the new page applied"),
    ("projections/warehouse/loading.py", "_check_system", "    of which: its systems loaded and checked"),
    ("projections/warehouse/loading.py", "close", "  DuckDB closed (its log folded only once large)"),
    ("projections/stats/reports.py", "report", "the report's queries"),
    ("ledger/log/store.py", "check_sqlite_file", "the ledger file checked and opened"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, default=300)
    parser.add_argument("--db", default=None, help="a ledger to reuse (simulated into when new)")
    parser.add_argument("--keep", action="store_true", help="keep the simulated ledger")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="stats-profile-")
    db = args.db or str(Path(folder) / "stats.ledger")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(LEDGER_DB=db, LEDGER_WAREHOUSE=db + ".duckdb")
    os.environ.update(LEDGER_DB=db, LEDGER_WAREHOUSE=db + ".duckdb")
    exe = str(Path(sys.executable).with_name("ledger"))
    if not Path(db).exists():
        subprocess.run(
            [exe, "simulate", "crawl", "--campaigns", str(args.campaigns), "--seed", "1"],
            env=env,
            check=True,
            capture_output=True,
        )
    subprocess.run([exe, "stats"], env=env, check=True, capture_output=True)  # the warehouse, built
    start = time.perf_counter()
    from ledger.cli.main import cli

    imported = time.perf_counter() - start
    for _ in range(2):  # warm: DuckDB's extensions and the page cache, as a second call finds them
        subprocess.run(
            [exe, "-c", "sim-crawl-1-00001", "note", "warm"], env=env, check=True, capture_output=True
        )
        with redirect_stdout(io.StringIO()):
            cli.main(["stats", "--simulated", "--report", "luck"], standalone_mode=False)
    subprocess.run([exe, "-c", "sim-crawl-1-00001", "note", "between two rolls"], env=env, check=True)
    prof = cProfile.Profile()
    start = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        prof.runcall(cli.main, ["stats", "--simulated", "--report", "luck"], standalone_mode=False)
    whole = time.perf_counter() - start
    stats = pstats.Stats(prof)
    found: dict[str, float] = {}
    for (file, _line, func), (_cc, _nc, _tt, cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        for suffix, name, label in STEPS:
            if func == name and file.endswith(suffix):
                found[label] = found.get(label, 0.0) + cum
    print(f"ledger at {db}")
    print(f"  importing the command's modules          {imported * 1000:7.1f} ms (not profiled)")
    print(f"  stats --report luck after one action     {whole * 1000:7.1f} ms under the profiler:")
    for _suffix, _name, label in STEPS:
        if label in found:
            print(f"    {label:<52}{found[label] * 1000:7.1f} ms")
    if not args.keep and not args.db:
        for p in Path(folder).iterdir():
            p.unlink()
        Path(folder).rmdir()


if __name__ == "__main__":
    main()
