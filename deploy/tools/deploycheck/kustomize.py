"""A small kustomize resolver: builds a kustomization into the list of resources it produces.

No kustomize binary ships through PyPI or npm, so this implements the subset our manifests use
and refuses everything else loudly (UnsupportedField) instead of resolving it wrongly:
resources (files and directories), namespace, labels (metadata only), images, and patches
(strategic-merge files or inline, and JSON 6902 operation lists with a target).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .paths import rel
from .yamlio import load_documents

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
SUPPORTED_FIELDS = {"apiVersion", "kind", "resources", "namespace", "labels", "images", "patches"}
# Cluster-scoped kinds keep no namespace.
CLUSTER_SCOPED = {
    "Namespace",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "PriorityClass",
    "StorageClass",
    "PersistentVolume",
    "ClusterTriggerAuthentication",
}
# Lists that strategic merge combines item by item, keyed by this field (as in the Kubernetes
# API's patchMergeKey); every other list is replaced whole.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "env": "name",
    "envFrom": None,
    "volumes": "name",
    "volumeMounts": "mountPath",
    "imagePullSecrets": "name",
    "ports": "containerPort",
}
POD_TEMPLATE_PATHS = {
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


class KustomizeError(Exception):
    """The kustomization cannot be built (missing file, unmatched patch, duplicate resource)."""


class UnsupportedField(KustomizeError):
    """The kustomization uses a feature this resolver does not implement."""


@dataclass(frozen=True, slots=True)
class ResourceId:
    group: str
    kind: str
    namespace: str | None
    name: str

    @classmethod
    def of(cls, resource: dict[str, Any]) -> ResourceId:
        api_version = resource.get("apiVersion", "")
        group = api_version.split("/")[0] if "/" in api_version else ""
        metadata = resource.get("metadata", {})
        return cls(
            group, resource.get("kind", ""), metadata.get("namespace"), metadata.get("name", "")
        )

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind}/{self.name}"


def find_kustomization(directory: Path) -> Path:
    for name in KUSTOMIZATION_NAMES:
        candidate = directory / name
        if candidate.exists():
            return candidate
    raise KustomizeError(f"{rel(directory)}: no kustomization file")


def build(directory: Path) -> list[dict[str, Any]]:
    """The resources the kustomization in `directory` produces, in order."""
    return _build(directory.resolve(), stack=())


def referenced_files(directory: Path) -> set[Path]:
    """Every file the kustomization tree names (kustomization files included)."""
    files: set[Path] = set()
    _collect_files(directory.resolve(), files)
    return files


def _collect_files(directory: Path, files: set[Path]) -> None:
    kustomization_path = find_kustomization(directory)
    files.add(kustomization_path)
    spec = _load_kustomization(kustomization_path)
    for entry in spec.get("resources", []):
        target = (directory / entry).resolve()
        if target.is_dir():
            _collect_files(target, files)
        else:
            files.add(target)
    for patch in spec.get("patches", []):
        if "path" in patch:
            files.add((directory / patch["path"]).resolve())


def _load_kustomization(path: Path) -> dict[str, Any]:
    documents = load_documents(path)
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise KustomizeError(f"{rel(path)}: must hold exactly one mapping")
    spec = documents[0]
    unsupported = set(spec) - SUPPORTED_FIELDS
    if unsupported:
        raise UnsupportedField(f"{rel(path)}: unsupported fields {sorted(unsupported)}")
    if spec.get("kind", "Kustomization") != "Kustomization":
        raise UnsupportedField(f"{rel(path)}: kind {spec.get('kind')} (components unsupported)")
    return spec


def _build(directory: Path, stack: tuple[Path, ...]) -> list[dict[str, Any]]:
    if directory in stack:
        raise KustomizeError(f"{rel(directory)}: kustomization cycle")
    kustomization_path = find_kustomization(directory)
    spec = _load_kustomization(kustomization_path)
    where = rel(kustomization_path)

    resources: list[dict[str, Any]] = []
    for entry in spec.get("resources", []):
        target = (directory / entry).resolve()
        if target.is_dir():
            resources += _build(target, (*stack, directory))
        elif target.is_file():
            resources += [copy.deepcopy(doc) for doc in load_documents(target)]
        else:
            raise KustomizeError(f"{where}: resource {entry} does not exist")

    seen: dict[ResourceId, None] = {}
    for resource in resources:
        rid = ResourceId.of(resource)
        if rid in seen:
            raise KustomizeError(f"{where}: duplicate resource {rid}")
        seen[rid] = None

    for patch in spec.get("patches", []):
        _apply_patch(directory, where, patch, resources)
    for image in spec.get("images", []):
        _apply_image(where, image, resources)
    for label_set in spec.get("labels", []):
        _apply_labels(where, label_set, resources)
    if "namespace" in spec:
        for resource in resources:
            if resource.get("kind") not in CLUSTER_SCOPED:
                resource.setdefault("metadata", {})["namespace"] = spec["namespace"]
    return resources


# --- patches ---------------------------------------------------------------------------------


def _apply_patch(
    directory: Path, where: str, patch: dict[str, Any], resources: list[dict[str, Any]]
) -> None:
    unknown = set(patch) - {"path", "patch", "target"}
    if unknown:
        raise UnsupportedField(f"{where}: patch fields {sorted(unknown)}")
    if "path" in patch:
        patch_path = (directory / patch["path"]).resolve()
        if not patch_path.is_file():
            raise KustomizeError(f"{where}: patch {patch['path']} does not exist")
        body = patch_path.read_text(encoding="utf-8")
    elif "patch" in patch:
        body = patch["patch"]
    else:
        raise KustomizeError(f"{where}: a patch needs path or patch")
    content = yaml.safe_load(body)
    target = patch.get("target")

    if isinstance(content, list):
        if target is None:
            raise KustomizeError(f"{where}: a JSON 6902 patch needs a target")
        matched = [r for r in resources if _matches(r, target)]
        if not matched:
            raise KustomizeError(f"{where}: patch target {target} matches nothing")
        for resource in matched:
            for operation in content:
                _json6902(where, resource, operation)
        return

    if not isinstance(content, dict):
        raise KustomizeError(f"{where}: patch is neither a mapping nor an operation list")
    if target is None:
        target = {
            "kind": content.get("kind"),
            "name": content.get("metadata", {}).get("name"),
        }
    matched = [r for r in resources if _matches(r, target)]
    if not matched:
        raise KustomizeError(f"{where}: patch for {target} matches no resource")
    for resource in matched:
        merged = strategic_merge(resource, content)
        resource.clear()
        resource.update(merged)


def _matches(resource: dict[str, Any], target: dict[str, Any]) -> bool:
    api_version = resource.get("apiVersion", "")
    group, _, version = api_version.rpartition("/")
    if "/" not in api_version:
        group, version = "", api_version
    checks = {
        "group": group,
        "version": version,
        "kind": resource.get("kind"),
        "name": resource.get("metadata", {}).get("name"),
        "namespace": resource.get("metadata", {}).get("namespace"),
    }
    unknown = set(target) - set(checks)
    if unknown:
        raise UnsupportedField(f"patch target selectors {sorted(unknown)}")
    return all(checks[key] == value for key, value in target.items() if value is not None)


def strategic_merge(base: Any, patch: Any, field: str | None = None) -> Any:
    """Kubernetes strategic merge for the cases our manifests use."""
    if isinstance(base, dict) and isinstance(patch, dict):
        if any(key.startswith("$") for key in patch):
            raise UnsupportedField(f"strategic-merge directives {sorted(patch)}")
        merged = dict(base)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            elif key in merged:
                merged[key] = strategic_merge(merged[key], value, key)
            else:
                merged[key] = copy.deepcopy(value)
        return merged
    if isinstance(base, list) and isinstance(patch, list):
        merge_key = MERGE_KEYS.get(field or "")
        if merge_key is None:
            return copy.deepcopy(patch)
        merged_list = [copy.deepcopy(item) for item in base]
        for item in patch:
            key = item.get(merge_key) if isinstance(item, dict) else None
            index = next(
                (i for i, existing in enumerate(merged_list) if existing.get(merge_key) == key),
                None,
            )
            if key is None or index is None:
                merged_list.append(copy.deepcopy(item))
            else:
                merged_list[index] = strategic_merge(merged_list[index], item)
        return merged_list
    return copy.deepcopy(patch)


def _json6902(where: str, resource: dict[str, Any], operation: dict[str, Any]) -> None:
    op = operation.get("op")
    path = operation.get("path", "")
    if op not in {"add", "replace", "remove", "test"}:
        raise UnsupportedField(f"{where}: JSON 6902 op {op!r}")
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in path.split("/")[1:]]
    if not tokens:
        raise KustomizeError(f"{where}: JSON 6902 path {path!r}")
    parent: Any = resource
    for token in tokens[:-1]:
        parent = _step(where, parent, token, path)
    last = tokens[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if op == "add":
            parent.insert(index, copy.deepcopy(operation["value"]))
        elif index >= len(parent):
            raise KustomizeError(f"{where}: JSON 6902 path {path} does not exist")
        elif op == "replace":
            parent[index] = copy.deepcopy(operation["value"])
        elif op == "remove":
            del parent[index]
        elif parent[index] != operation["value"]:
            raise KustomizeError(f"{where}: JSON 6902 test failed at {path}")
        return
    if op in {"replace", "remove", "test"} and last not in parent:
        raise KustomizeError(f"{where}: JSON 6902 path {path} does not exist")
    if op in {"add", "replace"}:
        parent[last] = copy.deepcopy(operation["value"])
    elif op == "remove":
        del parent[last]
    elif parent[last] != operation["value"]:
        raise KustomizeError(f"{where}: JSON 6902 test failed at {path}")


def _step(where: str, node: Any, token: str, path: str) -> Any:
    try:
        return node[int(token)] if isinstance(node, list) else node[token]
    except (KeyError, IndexError, ValueError) as error:
        raise KustomizeError(f"{where}: JSON 6902 path {path} does not exist") from error


# --- images and labels -----------------------------------------------------------------------


def pod_spec(resource: dict[str, Any]) -> dict[str, Any] | None:
    path = POD_TEMPLATE_PATHS.get(resource.get("kind", ""))
    node: Any = resource
    for key in path or ():
        node = node.get(key) if isinstance(node, dict) else None
    return node if path and isinstance(node, dict) else None


def containers(resource: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod_spec(resource) or {}
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def image_name(image: str) -> str:
    """The image reference without its tag or digest."""
    without_digest = image.split("@", 1)[0]
    last_slash = without_digest.rfind("/")
    colon = without_digest.rfind(":")
    return without_digest[:colon] if colon > last_slash else without_digest


def _apply_image(where: str, image: dict[str, Any], resources: list[dict[str, Any]]) -> None:
    unknown = set(image) - {"name", "newName", "newTag", "digest"}
    if unknown:
        raise UnsupportedField(f"{where}: image fields {sorted(unknown)}")
    matched = False
    for resource in resources:
        for container in containers(resource):
            current = container.get("image", "")
            if image_name(current) != image["name"]:
                continue
            matched = True
            name = image.get("newName", image["name"])
            tag_or_digest = current[len(image_name(current)) :]
            if "digest" in image:
                tag_or_digest = f"@{image['digest']}"
            elif "newTag" in image:
                tag_or_digest = f":{image['newTag']}"
            container["image"] = f"{name}{tag_or_digest}"
    if not matched:
        raise KustomizeError(f"{where}: image {image['name']} is used by no container")


def _apply_labels(where: str, label_set: dict[str, Any], resources: list[dict[str, Any]]) -> None:
    unknown = set(label_set) - {"pairs", "includeSelectors", "includeTemplates"}
    if unknown or label_set.get("includeSelectors") or label_set.get("includeTemplates"):
        raise UnsupportedField(f"{where}: labels support only pairs on metadata")
    for resource in resources:
        labels = resource.setdefault("metadata", {}).setdefault("labels", {})
        labels.update(label_set.get("pairs", {}))


def find_kustomizations(root: Path) -> list[Path]:
    """Every directory under root that holds a kustomization file."""
    found = {p.parent for name in KUSTOMIZATION_NAMES for p in root.rglob(name)}
    return sorted(found)
