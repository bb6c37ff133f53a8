"""schemathesis walks every operation of the OpenAPI description against the app, with
inputs that fit it and hostile ones that do not: the server never answers 500, every
refusal is the documented error object, every answer has a documented status and shape."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi import checks

from ledger.web.app import create_app
from ledger.web.auth import Guesses
from tests.helpers_web import seat_table

EXAMPLES = 25


# schemathesis builds its tests from the description when this module is collected, so the
# table it fuzzes is made then, in a folder of its own that the last test here removes.
FOLDER = Path(tempfile.mkdtemp(prefix="ledger-fuzz-"))
SEATED = seat_table(str(FOLDER / "fuzz.ledger"))
schema = schemathesis.openapi.from_asgi(
    "/api/openapi.json", create_app(SEATED.db, guesses=Guesses(limit=10**9))
)
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=EXAMPLES, deterministic=True
)

CHECKS = [
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_every_operation_answers_within_its_description(case: schemathesis.Case) -> None:
    if case.path.endswith("/stream"):
        return  # an endless stream: tests/test_web_stream.py reads it through a real server
    if case.path_parameters and "campaign" in case.path_parameters:
        # The seat's own campaign, so the bodies reach the commands (another campaign's
        # name is a 403 before any body is read: tests/test_web_api.py).
        case.path_parameters = {**case.path_parameters, "campaign": "Friday"}
    headers = {**(case.headers or {}), "Authorization": f"Bearer {SEATED.gm}"}  # 401s: test_web_api.py
    response = case.call(headers=headers)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and {"type", "message", "exit_code"} <= set(body["error"]), body
    case.validate_response(response, checks=CHECKS)


def test_the_fuzzed_table_was_real_and_every_operation_was_walked() -> None:
    operations = {f"{op.ok().method.upper()} {op.ok().path}" for op in schema.get_all_operations()}
    assert operations >= {
        "POST /api/c/{campaign}/actions",
        "GET /api/c/{campaign}/events",
        "GET /api/c/{campaign}/sheet",
        "POST /api/c/{campaign}/undo",
        "POST /api/c/{campaign}/fork",
        "POST /api/c/{campaign}/dice/reveal",
        "GET /api/schema",
    }
    shutil.rmtree(FOLDER, ignore_errors=True)
