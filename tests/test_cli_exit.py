"""The ``ledger`` program leaves without the interpreter's tear-down of every module, yet
as the interpreter would: its whole output out, its exit code kept, the exit handlers run,
and another thread still running let finish (then the usual way out is taken)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ledger import Ledger


def program(code: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` and then the ``ledger`` program (``ledger.cli.main.main``) with ``args``
    on a ledger in ``tmp_path``, in a process of its own."""
    script = f"import sys\n{code}\nfrom ledger.cli.main import main\nsys.argv = ['ledger', *sys.argv[1:]]\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", script, "--db", str(tmp_path / "t.ledger"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_long_output_reaches_its_reader_whole(tmp_path: Path) -> None:
    with Ledger(str(tmp_path / "t.ledger")) as book:
        book.new_campaign("freeform", "Long")
        for i in range(400):
            book.roll("1d20", "Long", label=f"roll {i}")
        stored = len(book.log("Long", show_all=True))
    result = program("", tmp_path, "-c", "Long", "log")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == stored == 401
    assert lines[-1].startswith("v401") and "roll 399" in lines[-1]


def test_the_exit_code_of_a_refusal_is_kept(tmp_path: Path) -> None:
    program("", tmp_path, "new", "freeform", "Table")
    result = program("", tmp_path, "-c", "Table", "roll", "3q")
    assert result.returncode == 1
    assert result.stderr.startswith("error: bad dice notation '3q'")
    assert program("", tmp_path, "rol").returncode == 2  # a usage error


def test_the_exit_handlers_run_and_what_they_print_is_out(tmp_path: Path) -> None:
    code = "import atexit\natexit.register(lambda: print('handler ran', flush=False))"
    result = program(code, tmp_path, "new", "freeform", "Table")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip().endswith("handler ran")


def test_a_thread_still_running_is_let_finish(tmp_path: Path) -> None:
    done = tmp_path / "done"
    code = (
        "import threading, time\n"
        f"def work():\n    time.sleep(0.5)\n    open({str(done)!r}, 'w').write('finished')\n"
        "threading.Thread(target=work).start()"
    )
    result = program(code, tmp_path, "new", "freeform", "Table")
    assert result.returncode == 0, result.stderr
    assert done.read_text() == "finished"
