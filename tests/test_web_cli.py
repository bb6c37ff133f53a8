"""`ledger serve` and `ledger table` on the command line: a refusal is one line and
nothing starts; the help imports no web framework; any address but the loopback is
told, on one line, to put TLS in front; --certfile serves HTTPS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from ledger.cli.serve import is_loopback
from tests.conftest import Session
from tests.helpers_web import free_port, seat_table, serving

PROBE = """
import json, sys
from ledger.cli.main import cli
code = cli.main(sys.argv[1:], prog_name="ledger", standalone_mode=False)
print()
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("starlette", "uvicorn", "anyio", "httpx"))))
"""


@pytest.mark.parametrize("args", [["--help"], ["table", "--help"], ["serve", "--help"], ["table", "seats"]])
def test_the_help_and_the_seats_import_no_web_framework(tmp_path: Path, args: list[str]) -> None:
    seat_table(str(tmp_path / "t.ledger"))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env={**os.environ, "LEDGER_DB": str(tmp_path / "t.ledger")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.rstrip("\n").rpartition("\n")[2]) == []


def test_the_root_help_lists_serve_and_table(ledger_cli: Session) -> None:
    shown = ledger_cli("--help").output
    assert "  serve " in shown and "Serve the live table" in shown
    assert "  table " in shown and "Seats at the live table" in shown


def test_serve_refuses_a_missing_ledger_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ledger.cli.main",
            "--db",
            str(tmp_path / "none.ledger"),
            "serve",
            "--port",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3
    assert done.stderr.startswith(f"error: no ledger at {tmp_path / 'none.ledger'}")
    assert len(done.stderr.splitlines()) == 1 and not (tmp_path / "none.ledger").exists()


def test_serve_wants_both_halves_of_a_certificate(ledger_cli: Session, tmp_path: Path) -> None:
    ledger_cli("new", "freeform", "Friday")
    (tmp_path / "cert.pem").write_text("x")
    refused = ledger_cli("serve", "--certfile", str(tmp_path / "cert.pem"), ok=False)
    assert refused.exit_code == 2 and "give --certfile and --keyfile together" in refused.output


def test_loopback_addresses() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "192.168.1.5", "::", "table.example"))


def test_another_address_is_told_to_put_tls_in_front(tmp_path: Path) -> None:
    seated = seat_table(str(tmp_path / "t.ledger"))
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ledger.cli.main",
            "--db",
            seated.db,
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/schema", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert err.splitlines()[0] == (
        "warning: 0.0.0.0 is reachable from other machines: put TLS in front of it "
        "(a reverse proxy with HTTPS), or give --certfile and --keyfile"
    )
    assert out.splitlines()[0] == f"serving ledger file {seated.db} at http://0.0.0.0:{port}/ (Ctrl-C stops)"


def test_the_loopback_is_served_without_a_warning(tmp_path: Path) -> None:
    seated = seat_table(str(tmp_path / "t.ledger"))
    with serving(seated.db) as base:
        assert httpx.get(f"{base}/t/Friday").status_code == 200


def test_certfile_and_keyfile_serve_https(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    seated = seat_table(str(tmp_path / "t.ledger"))
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ledger.cli.main",
            "--db",
            seated.db,
            "serve",
            "--port",
            str(port),
            "--certfile",
            str(tmp_path / "cert.pem"),
            "--keyfile",
            str(tmp_path / "key.pem"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        answer = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                answer = httpx.post(  # the confirm page's form
                    f"https://127.0.0.1:{port}/join/{seated.ana}",
                    headers={"Origin": f"https://127.0.0.1:{port}"},
                    verify=False,
                    timeout=1,
                    follow_redirects=False,
                )
                break
            except httpx.TransportError:
                time.sleep(0.1)
    finally:
        proc.terminate()
        out, _err = proc.communicate(timeout=10)
    assert answer is not None and answer.status_code == 303
    assert "Secure" in answer.headers["set-cookie"]
    assert out.startswith(f"serving ledger file {seated.db} at https://127.0.0.1:{port}/")
