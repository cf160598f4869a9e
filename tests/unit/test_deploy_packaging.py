"""The wheels the images install contain every file of the source tree and the console scripts.

(`make deploy-check` runs the same check on the repository's five packages.)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy" / "tools"))

from deploycheck import packaging

PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "citeproof-demo"
version = "0.1.0"

[project.scripts]
citeproof-other = "citeproof.demo:main"

[tool.setuptools.packages.find]
where = ["src"]
namespaces = true

[tool.setuptools.package-data]
"citeproof.demo" = ["static/*"]
"""


def test_files_outside_package_data_and_missing_scripts_are_reported(tmp_path: Path) -> None:
    package = tmp_path / "demo"
    files = {
        "pyproject.toml": PYPROJECT,
        "src/citeproof/demo/__init__.py": "def main():\n    pass\n",
        "src/citeproof/demo/static/app.js": "//",
        # static/* does not reach into subfolders: this file would be missing in the image.
        "src/citeproof/demo/static/icons/logo.svg": "<svg/>",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)

    messages = [f.message for f in packaging.check_package("api", package)]
    assert messages == [
        "citeproof/demo/static/icons/logo.svg is missing from the wheel (package-data?)",
        "console script citeproof-api is not declared",
    ]
    # The build ran on a copy: the source tree stays clean.
    assert not (package / "build").exists()
    assert not list((package / "src").glob("*.egg-info"))
