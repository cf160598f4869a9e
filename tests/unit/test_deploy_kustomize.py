"""The kustomize resolver behind `make deploy-check`, on small trees and on the real overlay."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import kustomize
from deploycheck.paths import K8S_BASE, K8S_OVERLAYS

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "web",
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    },
                    {"name": "sidecar", "image": "registry.example.com/side:1.0"},
                ]
            },
        },
    },
}


def write_tree(root: Path, files: dict[str, object]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else yaml.safe_dump(content))


def by_kind(resources: list[dict], kind: str, name: str) -> dict:
    return next(r for r in resources if r["kind"] == kind and r["metadata"]["name"] == name)


def test_overlay_patches_images_labels_and_namespace(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "base/kustomization.yaml": {"resources": ["deployment.yaml"]},
            "base/deployment.yaml": DEPLOYMENT,
            "prod/kustomization.yaml": {
                "namespace": "prod",
                "resources": ["../base"],
                "labels": [{"pairs": {"team": "qa"}}],
                "images": [{"name": "web", "newName": "registry.example.com/web", "newTag": "2.1"}],
                "patches": [
                    {"path": "more-env.yaml"},
                    {
                        "target": {"kind": "Deployment", "name": "web"},
                        "patch": "- op: add\n  path: /spec/replicas\n  value: 4\n",
                    },
                ],
            },
            "prod/more-env.yaml": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web"},
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "web",
                                    "env": [
                                        {"name": "B", "value": "3"},
                                        {"name": "C", "value": "4"},
                                    ],
                                }
                            ]
                        }
                    }
                },
            },
        },
    )
    (deployment,) = kustomize.build(tmp_path / "prod")
    containers = deployment["spec"]["template"]["spec"]["containers"]
    # Strategic merge: containers and env merge by name; untouched items stay.
    assert [c["name"] for c in containers] == ["web", "sidecar"]
    assert containers[0]["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "3"},
        {"name": "C", "value": "4"},
    ]
    assert containers[0]["image"] == "registry.example.com/web:2.1"
    assert containers[1]["image"] == "registry.example.com/side:1.0"
    assert deployment["spec"]["replicas"] == 4
    assert deployment["metadata"]["namespace"] == "prod"
    assert deployment["metadata"]["labels"] == {"team": "qa"}
    # labels without includeSelectors leave selectors and pod templates alone.
    assert deployment["spec"]["selector"]["matchLabels"] == {"app": "web"}


@pytest.mark.parametrize(
    ("kustomization", "extra_files", "message"),
    [
        ({"resources": ["missing.yaml"]}, {}, "missing.yaml does not exist"),
        (
            {"resources": ["d.yaml"], "patches": [{"path": "p.yaml"}]},
            {
                "p.yaml": {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "other"},
                }
            },
            "matches no resource",
        ),
        (
            {
                "resources": ["d.yaml"],
                "patches": [{"patch": "- op: replace\n  path: /spec/x\n  value: 1\n"}],
            },
            {},
            "needs a target",
        ),
        (
            {
                "resources": ["d.yaml"],
                "patches": [
                    {
                        "target": {"kind": "Deployment"},
                        "patch": "- op: replace\n  path: /spec/nothing\n  value: 1\n",
                    }
                ],
            },
            {},
            "/spec/nothing does not exist",
        ),
        ({"resources": ["d.yaml", "d.yaml"]}, {}, "duplicate resource Deployment.apps/web"),
        (
            {"resources": ["d.yaml"], "images": [{"name": "nothing-uses-me", "newTag": "1"}]},
            {},
            "used by no",
        ),
    ],
)
def test_broken_kustomizations_are_reported(
    tmp_path: Path, kustomization: dict, extra_files: dict, message: str
) -> None:
    write_tree(tmp_path, {"kustomization.yaml": kustomization, "d.yaml": DEPLOYMENT, **extra_files})
    with pytest.raises(kustomize.KustomizeError, match=message):
        kustomize.build(tmp_path)


def test_unsupported_features_are_refused_not_guessed(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "kustomization.yaml": {
                "resources": ["d.yaml"],
                "configMapGenerator": [{"name": "x", "literals": ["A=1"]}],
            },
            "d.yaml": DEPLOYMENT,
        },
    )
    with pytest.raises(kustomize.UnsupportedField, match="configMapGenerator"):
        kustomize.build(tmp_path)


def test_production_overlay_renders_its_patches() -> None:
    resources = kustomize.build(K8S_OVERLAYS / "production")
    api = by_kind(resources, "Deployment", "citeproof-api")
    parser = by_kind(resources, "Deployment", "citeproof-parser")
    assert api["spec"]["replicas"] == 3
    assert api["spec"]["template"]["spec"]["topologySpreadConstraints"]
    parser_container = parser["spec"]["template"]["spec"]["containers"][0]
    assert parser_container["resources"]["limits"]["memory"] == "4Gi"
    # The patch touched resources only; the security context from the base survives the merge.
    assert parser_container["securityContext"]["readOnlyRootFilesystem"] is True
    assert by_kind(resources, "ScaledObject", "citeproof-parser")["spec"]["maxReplicaCount"] == 12
    assert by_kind(resources, "ScaledObject", "citeproof-judge")["spec"]["maxReplicaCount"] == 16
    namespaced = [r for r in resources if r["kind"] != "Namespace"]
    assert {r["metadata"]["namespace"] for r in namespaced} == {"citeproof"}
    images = {c["image"] for r in resources for c in kustomize.containers(r)}
    assert all(image.startswith("registry.example.com/citeproof/") for image in images)


def test_every_manifest_file_is_named_by_a_kustomization() -> None:
    named = set()
    for directory in kustomize.find_kustomizations(K8S_BASE.parent):
        named |= kustomize.referenced_files(directory)
    manifests = {p.resolve() for p in K8S_BASE.parent.rglob("*.yaml")}
    assert manifests - named == {(K8S_BASE.parent / "secret.template.yaml").resolve()}
