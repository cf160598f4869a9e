"""Each image carries what its code imports: reachability over the citeproof modules an entry
point reaches, and the dependency closure of what the image installs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import imports
from deploycheck.paths import SERVICES


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_reachability_follows_citeproof_imports_only(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            # citeproof/ itself has no __init__.py (namespace package), nor has contracts/.
            "citeproof/svc/__init__.py": "",
            "citeproof/svc/__main__.py": (
                "import json\nfrom citeproof.svc import worker\nfrom . import helpers\n"
                "from citeproof.contracts.types import X\n"
            ),
            "citeproof/svc/worker.py": (
                "import numpy\n"
                "def embed():\n    import heavy_lib\n"
                "try:\n    import optional_speedup\nexcept ImportError:\n    pass\n"
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    import only_for_types\n"
            ),
            "citeproof/svc/helpers.py": "import yaml\n",
            "citeproof/svc/offline_tool.py": "import never_reached\n",
            "citeproof/contracts/types.py": "import msgspec\n",
        },
    )
    found = imports.reachable_imports(["citeproof.svc.__main__"], [tmp_path])
    assert set(found) == {"json", "numpy", "heavy_lib", "yaml", "msgspec", "typing"}
    assert found["heavy_lib"] == {tmp_path / "citeproof/svc/worker.py"}


def test_a_citeproof_module_outside_the_image_is_reported(tmp_path: Path) -> None:
    write(tmp_path, {"citeproof/svc/__main__.py": "from citeproof.other import thing\n"})
    found = imports.reachable_imports(["citeproof.svc.__main__"], [tmp_path])
    assert "citeproof.other" in found


def test_closure_follows_installed_metadata() -> None:
    closure = imports.distribution_closure({"sentence-transformers"})
    assert {"sentence-transformers", "transformers", "torch", "huggingface-hub"} <= closure
    assert "litestar" not in closure


@pytest.mark.parametrize("service", SERVICES)
def test_every_image_carries_what_its_code_imports(service: str) -> None:
    assert imports.check_service(service) == []


def test_the_api_image_roots_exclude_the_heavy_stack() -> None:
    closure = imports.distribution_closure(imports.image_roots("api"))
    assert not closure & {"torch", "unstructured", "sentence-transformers"}
    assert "unstructured" in imports.distribution_closure(imports.image_roots("parser"))
