"""Kubernetes manifests: every kustomization builds, every resource validates offline, and the
rendered resources keep citeproof's operational invariants (policy checks below).

Core kinds are validated by kubernetes-validate in strict mode (unknown fields rejected) against
the oldest and the newest Kubernetes version we support; KEDA and Prometheus-operator kinds by
the npm validators (crds.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import kubernetes_validate

from . import crds, kustomize
from .findings import Finding
from .paths import K8S_DIR, K8S_OVERLAYS, SECRET_TEMPLATE, rel
from .yamlio import load_documents

K8S_VERSIONS = ("1.30.0", "1.37.0")
CONFIG_MAP = "citeproof-config"
DEFAULT_DRAIN_GRACE_S = 60
DRAIN_MARGIN_S = 10
WORKER_COMPONENT = "worker"
# Documented metadata of KEDA's postgresql scaler: anything else is a typo KEDA would ignore.
POSTGRES_SCALER_KEYS = {
    "query",
    "targetQueryValue",
    "activationTargetQueryValue",
    "connectionFromEnv",
    "host",
    "port",
    "userName",
    "dbName",
    "sslmode",
    "passwordFromEnv",
}
POSTGRES_AUTH_PARAMETERS = {
    "connection",
    "password",
    "host",
    "port",
    "userName",
    "dbName",
    "sslmode",
}


# --- validation --------------------------------------------------------------------------------


def validate_core(resource: dict[str, Any]) -> list[str]:
    errors = []
    for version in K8S_VERSIONS:
        try:
            kubernetes_validate.validate(resource, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = "/".join(map(str, error.path)) if hasattr(error, "path") else ""
            errors.append(f"Kubernetes {version}: {path}: {error.message}")
        except kubernetes_validate.SchemaNotFoundError:
            errors.append(f"no schema for {resource.get('apiVersion')} {resource.get('kind')}")
    return errors


def validate_resources(where: str, resources: list[dict[str, Any]]) -> list[Finding]:
    findings: list[Finding] = []
    custom = [r for r in resources if crds.is_custom(r)]
    for resource in resources:
        if crds.is_custom(resource):
            continue
        for error in validate_core(resource):
            findings.append(Finding("kubernetes-validate", f"{where}:{_id(resource)}", error))
    try:
        results = crds.validate(custom)
    except crds.ValidatorUnavailable as error:
        return [*findings, Finding("crd-validate", where, str(error))]
    for resource, error in zip(custom, results, strict=True):
        if error is not None:
            findings.append(Finding("crd-validate", f"{where}:{_id(resource)}", error))
    return findings


def _id(resource: dict[str, Any]) -> str:
    return str(kustomize.ResourceId.of(resource))


# --- policy ---------------------------------------------------------------------------------------


def _selects(selector: dict[str, str] | None, labels: dict[str, str] | None) -> bool:
    return bool(selector) and all((labels or {}).get(k) == v for k, v in selector.items())


def _pod_labels(resource: dict[str, Any]) -> dict[str, str]:
    return resource.get("spec", {}).get("template", {}).get("metadata", {}).get("labels", {})


def _container_ports(resource: dict[str, Any]) -> dict[str, int]:
    ports: dict[str, int] = {}
    for container in kustomize.containers(resource):
        for port in container.get("ports", []):
            ports[port.get("name", str(port["containerPort"]))] = port["containerPort"]
    return ports


def _port_exists(port: Any, ports: dict[str, int]) -> bool:
    return port in ports if isinstance(port, str) else port in ports.values()


def secret_keys() -> dict[str, set[str]]:
    """Secret name -> keys, from the Secret template operators fill in."""
    keys: dict[str, set[str]] = {}
    for secret in load_documents(SECRET_TEMPLATE):
        data = {**secret.get("data", {}), **secret.get("stringData", {})}
        keys[secret["metadata"]["name"]] = set(data)
    return keys


class PolicyCheck:
    """Cross-resource invariants of one rendered kustomization."""

    def __init__(self, where: str, resources: list[dict[str, Any]]) -> None:
        self.where = where
        self.resources = resources
        self.findings: list[Finding] = []
        self.secrets = secret_keys()
        for secret in self.of_kind("Secret"):
            data = {**secret.get("data", {}), **secret.get("stringData", {})}
            self.secrets[secret["metadata"]["name"]] = set(data)
        self.config_maps = {
            c["metadata"]["name"]: c.get("data", {}) for c in self.of_kind("ConfigMap")
        }

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.resources if r.get("kind") == kind]

    def fail(self, resource: dict[str, Any] | None, message: str) -> None:
        where = f"{self.where}:{_id(resource)}" if resource else self.where
        self.findings.append(Finding("policy", where, message))

    def run(self) -> list[Finding]:
        for resource in self.resources:
            if kustomize.pod_spec(resource) is not None:
                self.check_pod(resource)
        for deployment in self.of_kind("Deployment"):
            self.check_deployment(deployment)
        self.check_scaled_objects()
        self.check_trigger_authentications()
        self.check_selectors()
        return self.findings

    def drain_grace_s(self) -> int:
        config = self.config_maps.get(CONFIG_MAP, {})
        return int(config.get("CITEPROOF_DRAIN_GRACE_S", DEFAULT_DRAIN_GRACE_S))

    def check_pod(self, workload: dict[str, Any]) -> None:
        spec = kustomize.pod_spec(workload) or {}
        if spec.get("securityContext", {}).get("runAsNonRoot") is not True:
            self.fail(workload, "pod securityContext.runAsNonRoot must be true")
        if spec.get("automountServiceAccountToken") is not False:
            self.fail(workload, "automountServiceAccountToken must be false (no API access needed)")
        empty_dirs = {v["name"] for v in spec.get("volumes", []) if "emptyDir" in v}
        for container in kustomize.containers(workload):
            name = container.get("name")
            security = container.get("securityContext", {})
            if security.get("readOnlyRootFilesystem") is not True:
                self.fail(workload, f"container {name}: readOnlyRootFilesystem must be true")
            if security.get("allowPrivilegeEscalation") is not False:
                self.fail(workload, f"container {name}: allowPrivilegeEscalation must be false")
            if "ALL" not in security.get("capabilities", {}).get("drop", []):
                self.fail(workload, f"container {name}: capabilities must drop ALL")
            resources = container.get("resources", {})
            if not {"cpu", "memory"} <= set(resources.get("requests", {})):
                self.fail(workload, f"container {name}: needs cpu and memory requests")
            if "memory" not in resources.get("limits", {}):
                self.fail(workload, f"container {name}: needs a memory limit")
            tmp = [m for m in container.get("volumeMounts", []) if m.get("mountPath") == "/tmp"]
            if not tmp or tmp[0].get("name") not in empty_dirs:
                self.fail(workload, f"container {name}: /tmp must be an emptyDir (read-only root)")
            self.check_references(workload, container)

    def check_references(self, workload: dict[str, Any], container: dict[str, Any]) -> None:
        for source in container.get("envFrom", []):
            ref = source.get("configMapRef", {}).get("name")
            if ref and ref not in self.config_maps:
                self.fail(workload, f"envFrom ConfigMap {ref} is not part of this build")
        for variable in container.get("env", []):
            value_from = variable.get("valueFrom", {})
            secret_ref = value_from.get("secretKeyRef")
            if secret_ref:
                keys = self.secrets.get(secret_ref["name"])
                if keys is None:
                    self.fail(
                        workload, f"env {variable['name']}: unknown Secret {secret_ref['name']}"
                    )
                elif secret_ref["key"] not in keys:
                    self.fail(
                        workload,
                        f"env {variable['name']}: key {secret_ref['key']} is not in the "
                        f"{secret_ref['name']} template ({rel(SECRET_TEMPLATE)})",
                    )
            config_ref = value_from.get("configMapKeyRef")
            if config_ref and config_ref["name"] not in self.config_maps:
                self.fail(
                    workload, f"env {variable['name']}: unknown ConfigMap {config_ref['name']}"
                )

    def check_deployment(self, deployment: dict[str, Any]) -> None:
        spec = deployment.get("spec", {})
        if not _selects(spec.get("selector", {}).get("matchLabels"), _pod_labels(deployment)):
            self.fail(deployment, "selector.matchLabels must match the pod template labels")
        ports = _container_ports(deployment)
        for container in kustomize.containers(deployment):
            for probe in ("livenessProbe", "readinessProbe"):
                body = container.get(probe)
                if body is None:
                    self.fail(deployment, f"container {container.get('name')}: needs a {probe}")
                    continue
                port = body.get("httpGet", {}).get("port")
                if port is not None and not _port_exists(port, ports):
                    self.fail(deployment, f"{probe} port {port!r} is not a container port")
        labels = deployment.get("metadata", {}).get("labels", {})
        if labels.get("app.kubernetes.io/component") == WORKER_COMPONENT:
            grace = (kustomize.pod_spec(deployment) or {}).get("terminationGracePeriodSeconds", 30)
            needed = self.drain_grace_s() + DRAIN_MARGIN_S
            if isinstance(grace, int) and grace < needed:
                self.fail(
                    deployment,
                    f"terminationGracePeriodSeconds {grace} must be at least the drain grace "
                    f"plus margin ({needed})",
                )

    def check_scaled_objects(self) -> None:
        deployments = {d["metadata"]["name"]: d for d in self.of_kind("Deployment")}
        auths = {a["metadata"]["name"] for a in self.of_kind("TriggerAuthentication")}
        scaled: dict[str, str] = {}
        for scaled_object in self.of_kind("ScaledObject"):
            spec = scaled_object.get("spec", {})
            target = spec.get("scaleTargetRef", {})
            name = target.get("name")
            if target.get("kind", "Deployment") != "Deployment" or name not in deployments:
                self.fail(scaled_object, f"scaleTargetRef {name} is not a Deployment in this build")
            else:
                if name in scaled:
                    self.fail(scaled_object, f"{name} is already scaled by {scaled[name]}")
                scaled[name] = scaled_object["metadata"]["name"]
                if "replicas" in deployments[name].get("spec", {}):
                    self.fail(
                        deployments[name],
                        "scaled by KEDA: set no spec.replicas (each apply would reset it)",
                    )
            # Types are the schema validator's business; these checks only judge integers.
            minimum = spec.get("minReplicaCount", 0)
            maximum = spec.get("maxReplicaCount", 100)
            if isinstance(minimum, int) and minimum < 1:
                self.fail(
                    scaled_object, "minReplicaCount must be >= 1: workers run the stall sweeper"
                )
            if isinstance(minimum, int) and isinstance(maximum, int) and maximum < minimum:
                self.fail(scaled_object, "maxReplicaCount is below minReplicaCount")
            for trigger in spec.get("triggers", []):
                metadata = trigger.get("metadata", {})
                label = f"trigger {trigger.get('name', trigger.get('type'))}"
                if trigger.get("type") != "postgresql":
                    self.fail(scaled_object, f"{label}: expected the postgresql scaler")
                    continue
                unknown = set(metadata) - POSTGRES_SCALER_KEYS
                if unknown:
                    self.fail(
                        scaled_object, f"{label}: unknown postgresql metadata {sorted(unknown)}"
                    )
                for key in ("query", "targetQueryValue"):
                    if not metadata.get(key):
                        self.fail(scaled_object, f"{label}: needs {key}")
                auth = trigger.get("authenticationRef", {}).get("name")
                if auth not in auths and "connectionFromEnv" not in metadata:
                    self.fail(
                        scaled_object, f"{label}: TriggerAuthentication {auth} not in this build"
                    )
        for name, deployment in deployments.items():
            labels = deployment.get("metadata", {}).get("labels", {})
            if labels.get("app.kubernetes.io/component") == WORKER_COMPONENT and name not in scaled:
                self.fail(deployment, "worker Deployment has no KEDA ScaledObject")

    def check_trigger_authentications(self) -> None:
        for auth in self.of_kind("TriggerAuthentication"):
            for ref in auth.get("spec", {}).get("secretTargetRef", []):
                if ref.get("parameter") not in POSTGRES_AUTH_PARAMETERS:
                    self.fail(auth, f"unknown postgresql auth parameter {ref.get('parameter')}")
                if ref.get("key") not in self.secrets.get(ref.get("name"), set()):
                    self.fail(
                        auth,
                        f"Secret {ref.get('name')} has no key {ref.get('key')} in its template",
                    )

    def check_selectors(self) -> None:
        workloads = self.of_kind("Deployment")
        services = self.of_kind("Service")
        for budget in self.of_kind("PodDisruptionBudget"):
            selector = budget.get("spec", {}).get("selector", {}).get("matchLabels")
            if not any(_selects(selector, _pod_labels(w)) for w in workloads):
                self.fail(budget, "selector matches no Deployment's pods")
        for workload in workloads:
            if not any(
                _selects(
                    b.get("spec", {}).get("selector", {}).get("matchLabels"), _pod_labels(workload)
                )
                for b in self.of_kind("PodDisruptionBudget")
            ):
                self.fail(workload, "no PodDisruptionBudget covers this Deployment")
        for service in services:
            selector = service.get("spec", {}).get("selector")
            matched = [w for w in workloads if _selects(selector, _pod_labels(w))]
            if not matched:
                self.fail(service, "selector matches no Deployment's pods")
            for port in service.get("spec", {}).get("ports", []):
                target = port.get("targetPort", port.get("port"))
                if matched and not all(_port_exists(target, _container_ports(w)) for w in matched):
                    self.fail(service, f"targetPort {target!r} is not a port of the selected pods")
        for monitor in self.of_kind("ServiceMonitor"):
            selector = monitor.get("spec", {}).get("selector", {}).get("matchLabels")
            matched = [
                s for s in services if _selects(selector, s.get("metadata", {}).get("labels"))
            ]
            if not matched:
                self.fail(monitor, "selector matches no Service")
            for endpoint in monitor.get("spec", {}).get("endpoints", []):
                names = {p.get("name") for s in matched for p in s["spec"].get("ports", [])}
                if matched and endpoint.get("port") not in names:
                    self.fail(
                        monitor,
                        f"endpoint port {endpoint.get('port')!r} is not a Service port name",
                    )
        for policy in self.of_kind("NetworkPolicy"):
            spec = policy.get("spec", {})
            selector = spec.get("podSelector", {}).get("matchLabels")
            if not selector:
                continue  # {} selects every pod of the namespace
            matched = [w for w in workloads if _selects(selector, _pod_labels(w))]
            if not matched:
                self.fail(policy, "podSelector matches no Deployment's pods")
            for rule in spec.get("ingress", []):
                for port in rule.get("ports", []):
                    if not all(
                        _port_exists(port.get("port"), _container_ports(w)) for w in matched
                    ):
                        self.fail(
                            policy, f"port {port.get('port')!r} is not a port of the selected pods"
                        )
        for monitor in self.of_kind("PodMonitor"):
            selector = monitor.get("spec", {}).get("selector", {}).get("matchLabels")
            matched = [w for w in workloads if _selects(selector, _pod_labels(w))]
            if not matched:
                self.fail(monitor, "selector matches no Deployment's pods")
            for endpoint in monitor.get("spec", {}).get("podMetricsEndpoints", []):
                if not all(endpoint.get("port") in _container_ports(w) for w in matched):
                    self.fail(
                        monitor, f"port {endpoint.get('port')!r} is not a named container port"
                    )


def check_overlay_images(where: str, resources: list[dict[str, Any]]) -> list[Finding]:
    """Overlays deploy pinned images from a registry, never the bare local names of the base."""
    findings = []
    for resource in resources:
        for container in kustomize.containers(resource):
            image = container.get("image", "")
            name = kustomize.image_name(image)
            tag = image[len(name) :].lstrip(":@")
            if "/" not in name or not tag or tag == "latest":
                findings.append(
                    Finding(
                        "policy",
                        f"{where}:{_id(resource)}",
                        f"image {image!r} is not pinned to a registry tag",
                    )
                )
    return findings


# --- entry point ----------------------------------------------------------------------------------


def _unreferenced_files(directories: Iterable[Path]) -> list[Finding]:
    referenced: set[Path] = {SECRET_TEMPLATE.resolve()}
    for directory in directories:
        referenced |= kustomize.referenced_files(directory)
    return [
        Finding("kustomize", rel(path), "not named by any kustomization (dead file?)")
        for path in sorted(K8S_DIR.rglob("*.y*ml"))
        if path.resolve() not in referenced
    ]


def check_all() -> list[Finding]:
    findings: list[Finding] = []
    directories = kustomize.find_kustomizations(K8S_DIR)
    if not directories:
        return [Finding("kustomize", rel(K8S_DIR), "no kustomization found")]
    try:
        findings += _unreferenced_files(directories)
    except kustomize.KustomizeError as error:
        findings.append(Finding("kustomize", rel(K8S_DIR), str(error)))

    validated: set[str] = set()
    secret_template = load_documents(SECRET_TEMPLATE)
    findings += validate_resources(rel(SECRET_TEMPLATE), secret_template)
    for directory in directories:
        where = rel(directory)
        try:
            resources = kustomize.build(directory)
        except kustomize.KustomizeError as error:
            findings.append(Finding("kustomize", where, str(error)))
            continue
        # Each distinct rendered resource is validated once, whichever build it came from.
        fresh = []
        for resource in resources:
            key = json.dumps(resource, sort_keys=True)
            if key not in validated:
                validated.add(key)
                fresh.append(resource)
        findings += validate_resources(where, fresh)
        if any(r.get("kind") == "Deployment" for r in resources):
            findings += PolicyCheck(where, resources).run()
        if directory.resolve().is_relative_to(K8S_OVERLAYS.resolve()):
            findings += check_overlay_images(where, resources)
    return findings
