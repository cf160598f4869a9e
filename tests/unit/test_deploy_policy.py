"""Policy and schema checks on the rendered Kubernetes manifests: the real ones pass, and each
way of breaking an operational invariant is caught."""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import k8s, kustomize
from deploycheck.paths import K8S_BASE, K8S_OVERLAYS

Resources = list[dict]


@pytest.fixture(scope="module")
def production() -> Resources:
    return kustomize.build(K8S_OVERLAYS / "production")


def find(resources: Resources, kind: str, name: str) -> dict:
    return next(r for r in resources if r["kind"] == kind and r["metadata"]["name"] == name)


def parser_container(resources: Resources) -> dict:
    return find(resources, "Deployment", "citeproof-parser")["spec"]["template"]["spec"][
        "containers"
    ][0]


@pytest.mark.parametrize("build", [K8S_BASE, K8S_OVERLAYS / "production"])
def test_shipped_manifests_keep_every_invariant(build: Path) -> None:
    resources = kustomize.build(build)
    assert k8s.PolicyCheck(str(build), resources).run() == []


def test_core_resources_validate_strictly_against_kubernetes_schemas(production: Resources) -> None:
    core = [r for r in production if not r["apiVersion"].startswith(("keda.sh", "monitoring."))]
    assert {r["kind"] for r in core} >= {
        "Deployment",
        "Service",
        "PodDisruptionBudget",
        "Job",
        "ConfigMap",
        "Namespace",
        "NetworkPolicy",
    }
    assert [error for r in core for error in k8s.validate_core(r)] == []


def test_strict_validation_rejects_unknown_fields(production: Resources) -> None:
    deployment = copy.deepcopy(find(production, "Deployment", "citeproof-judge"))
    deployment["spec"]["template"]["spec"]["containers"][0]["livenesProbe"] = {}
    errors = k8s.validate_core(deployment)
    assert len(errors) == len(k8s.K8S_VERSIONS)
    assert all("livenesProbe" in error for error in errors)


def _writable_root(r: Resources) -> None:
    parser_container(r)["securityContext"]["readOnlyRootFilesystem"] = False


def _short_grace(r: Resources) -> None:
    spec = find(r, "Deployment", "citeproof-judge")["spec"]["template"]["spec"]
    spec["terminationGracePeriodSeconds"] = 30


def _fixed_replicas(r: Resources) -> None:
    find(r, "Deployment", "citeproof-retriever")["spec"]["replicas"] = 2


def _scale_to_zero(r: Resources) -> None:
    find(r, "ScaledObject", "citeproof-parser")["spec"]["minReplicaCount"] = 0


def _typo_in_trigger(r: Resources) -> None:
    trigger = find(r, "ScaledObject", "citeproof-judge")["spec"]["triggers"][0]
    trigger["metadata"]["targetQueryValu"] = trigger["metadata"].pop("targetQueryValue")


def _unknown_secret_key(r: Resources) -> None:
    parser_container(r)["env"][0]["valueFrom"]["secretKeyRef"]["key"] = "DATABASE_URI"


def _probe_on_missing_port(r: Resources) -> None:
    parser_container(r)["livenessProbe"]["httpGet"]["port"] = "health"


def _no_liveness(r: Resources) -> None:
    del parser_container(r)["livenessProbe"]


def _orphan_pdb(r: Resources) -> None:
    selector = find(r, "PodDisruptionBudget", "citeproof-judge")["spec"]["selector"]
    selector["matchLabels"]["app.kubernetes.io/name"] = "citeproof-judges"


def _service_port_name(r: Resources) -> None:
    find(r, "ServiceMonitor", "citeproof-api")["spec"]["endpoints"][0]["port"] = "metrics"


def _tmp_not_empty_dir(r: Resources) -> None:
    parser_container(r)["volumeMounts"] = []


def _policy_on_missing_port(r: Resources) -> None:
    policy = find(r, "NetworkPolicy", "citeproof-workers-metrics")
    policy["spec"]["ingress"][0]["ports"][0]["port"] = "http"


def _runs_as_root(r: Resources) -> None:
    find(r, "Job", "citeproof-migrate")["spec"]["template"]["spec"]["securityContext"][
        "runAsNonRoot"
    ] = False


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (_writable_root, "readOnlyRootFilesystem must be true"),
        (_short_grace, "terminationGracePeriodSeconds 30 must be at least"),
        (_fixed_replicas, "set no spec.replicas"),
        (_scale_to_zero, "minReplicaCount must be >= 1"),
        (_typo_in_trigger, "unknown postgresql metadata ['targetQueryValu']"),
        (_unknown_secret_key, "key DATABASE_URI is not in the citeproof-secrets template"),
        (_probe_on_missing_port, "livenessProbe port 'health' is not a container port"),
        (_no_liveness, "needs a livenessProbe"),
        (_orphan_pdb, "selector matches no Deployment's pods"),
        (_service_port_name, "endpoint port 'metrics' is not a Service port name"),
        (_tmp_not_empty_dir, "/tmp must be an emptyDir"),
        (_runs_as_root, "runAsNonRoot must be true"),
        (_policy_on_missing_port, "port 'http' is not a port of the selected pods"),
    ],
    ids=lambda value: getattr(value, "__name__", None),
)
def test_each_broken_invariant_is_reported(
    production: Resources, mutate: Callable[[Resources], None], expected: str
) -> None:
    broken = copy.deepcopy(production)
    mutate(broken)
    messages = [finding.message for finding in k8s.PolicyCheck("prod", broken).run()]
    assert any(expected in message for message in messages), messages


def test_overlay_images_must_be_pinned(production: Resources) -> None:
    assert k8s.check_overlay_images("prod", production) == []
    broken = copy.deepcopy(production)
    parser_container(broken)["image"] = "citeproof-parser"
    (finding,) = k8s.check_overlay_images("prod", broken)
    assert "not pinned" in finding.message


def test_the_parser_pod_reaches_only_dns_and_postgresql(production: Resources) -> None:
    """Where a parsing child cannot get a network namespace (an unprivileged pod), the
    parser's egress policy is its network boundary."""
    policy = find(production, "NetworkPolicy", "citeproof-parser-egress")
    assert policy["spec"]["podSelector"]["matchLabels"] == {
        "app.kubernetes.io/name": "citeproof-parser"
    }
    assert policy["spec"]["policyTypes"] == ["Egress"]
    allowed = {
        (port["port"], port["protocol"])
        for rule in policy["spec"]["egress"]
        for port in rule["ports"]
    }
    assert allowed == {(53, "UDP"), (53, "TCP"), (5432, "TCP")}
