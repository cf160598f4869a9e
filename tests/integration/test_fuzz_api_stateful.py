"""Schemathesis beyond one request: every operation that requires the bearer token refuses
the same request without it and with a wrong one (`ignored_auth`), and a short stateful run
follows the OpenAPI links (ours and the ones schemathesis infers) from created sessions,
uploads and runs to the operations that use their ids, checking that what was created can be
read (`ensure_resource_availability`), what was deleted is gone (`use_after_free`), and every
response as documented. `make test-hostile` runs the stateful part longer
(tests/hostile/test_fuzz_stateful.py).
"""

from __future__ import annotations

import copy
import os

import hypothesis
import schemathesis
from hypothesis import HealthCheck, Phase
from schemathesis.core.failures import FailureGroup
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    ensure_resource_availability,
    ignored_auth,
    use_after_free,
)

from tests.integration import test_fuzz_api as fuzz

served_api = fuzz.served_api
world = fuzz.world

STATEFUL_CHECKS = [
    *fuzz.CONFORMANCE_CHECKS,
    ignored_auth,
    use_after_free,
    ensure_resource_availability,
]
# Scenarios of a few linked calls each; `make test-hostile` sets CITEPROOF_FUZZ_STATEFUL_EXAMPLES.
STATEFUL_EXAMPLES = int(os.environ.get("CITEPROOF_FUZZ_STATEFUL_EXAMPLES", "15"))
STEPS_PER_SCENARIO = 6


def fresh_schema():
    """A schema object of its own: building a state machine injects inferred links into it."""
    return schemathesis.openapi.from_dict(copy.deepcopy(fuzz.SCHEMA.raw_schema))


def _successful_requests(world) -> dict[str, tuple[dict[str, str], dict | None]]:
    """Requests random bodies rarely get right, made to succeed so that their refusal
    without the token means something: a run of the real thesis, an override of a real
    reference, the deletion of a document no run uses."""
    with world.http() as http:
        session_id = http.post("/v1/sessions", json={"name": "auth probe"}).json()["id"]
        uploaded = http.post(
            f"/v1/sessions/{session_id}/documents",
            data={"kind": "source"},
            files=[("files", ("spare.txt", os.urandom(16).hex().encode(), "text/plain"))],
        )
        assert uploaded.status_code == 202, uploaded.text
        spare = uploaded.json()["documents"][0]["id"]
    ids = world.ids
    return {
        "POST /v1/sessions/{session_id}/runs": (
            {"session_id": ids["session_id"]},
            {"thesis_document_id": ids["thesis_document_id"]},
        ),
        "PUT /v1/sessions/{session_id}/reference-overrides": (
            {"session_id": ids["session_id"]},
            {
                "thesis_document_id": ids["thesis_document_id"],
                "label": "1",
                "document_id": ids["document_id"],
            },
        ),
        "DELETE /v1/documents/{document_id}": ({"document_id": spare}, None),
    }


def test_every_operation_that_requires_a_token_refuses_a_missing_or_wrong_one(world) -> None:
    """`ignored_auth` re-sends each request that succeeded with the token without it and with
    a made-up one; either must be refused. Operations documented as public (probes, metrics,
    labels: `security: []`) are exempt; every other one must have been probed."""
    schema = fresh_schema()
    probed: set[str] = set()

    def counted_ignored_auth(ctx, response, case):
        result = ignored_auth(ctx, response, case)
        if 200 <= response.status_code < 300:
            probed.add(f"{case.operation.method.upper()} {case.operation.path}")
        return result

    findings: list[fuzz.Finding] = []
    private = []
    explicit = _successful_requests(world)
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.definition.raw.get("security") == []:
            continue
        label = f"{operation.method.upper()} {operation.path}"
        private.append(label)
        fuzz._fuzz_mode(operation, world, [counted_ignored_auth], findings, fuzz.MODES[1])
        if label in explicit:
            path_parameters, body = explicit[label]
            case = operation.Case(
                path_parameters=path_parameters, body=body, media_type="application/json"
            )
            response = case.call(base_url=world.base_url, headers=world.headers, timeout=15)
            assert 200 <= response.status_code < 300, (label, response.text)
            try:
                case.validate_response(
                    response, checks=[counted_ignored_auth], headers=world.headers
                )
            except FailureGroup as group:
                findings.append(f"{label}: {[f.title for f in group.exceptions]}")
    assert not findings, "\n".join(str(f) for f in findings)
    # Every private operation answered 2xx at least once with the token, so was probed.
    assert len(private) >= 19 and sorted(probed) == sorted(private), set(private) - probed


def run_stateful(
    world, examples: int, *, derandomize: bool = fuzz.DERANDOMIZE
) -> tuple[list[str], int]:
    schema = fresh_schema()
    # Valid requests carrying the fuzzing user's token: scenarios reach the resources they
    # create (the stateless test covers invalid data and missing tokens).
    schema.config.generation.update(modes=[GenerationMode.POSITIVE], with_security_parameters=False)
    findings: list[str] = []
    calls = {"n": 0}

    class Machine(schema.as_state_machine()):
        def get_call_kwargs(self, case):
            return {"base_url": world.base_url, "headers": world.headers, "timeout": 15}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            calls["n"] += 1
            try:
                case.validate_response(
                    response, checks=STATEFUL_CHECKS, headers=world.headers, transport_kwargs=kwargs
                )
            except FailureGroup as group:
                operation = f"{case.operation.method.upper()} {case.operation.path}"
                for failure in group.exceptions:
                    line = (
                        f"{operation} {failure.title}: {response.status_code} {response.text[:200]}"
                    )
                    if line not in findings:
                        findings.append(line)

    Machine.run(
        settings=hypothesis.settings(
            max_examples=examples,
            stateful_step_count=STEPS_PER_SCENARIO,
            deadline=None,
            database=None,
            derandomize=derandomize,
            # Generation only: the server's state moves between examples, so replaying or
            # shrinking a scenario would draw from different responses (Hypothesis calls that
            # flaky). A finding is reported with its request instead.
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
    )
    return findings, calls["n"]


def test_a_stateful_run_follows_links_and_finds_nothing(world) -> None:
    findings, calls = run_stateful(world, STATEFUL_EXAMPLES)
    assert calls >= STATEFUL_EXAMPLES, calls
    assert not findings, "\n".join(findings)
