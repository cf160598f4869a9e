"""The one-box image passes the same Dockerfile invariants as the four service images, with
every service package and `citeproof serve` as its command."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "deploy" / "tools"))

from deploycheck import dockerfiles  # noqa: E402
from deploycheck.paths import SERVICES  # noqa: E402

ALL_IN_ONE = dockerfiles.dockerfile_for(dockerfiles.ALL_IN_ONE)


def _check(path: Path) -> list[str]:
    return [
        f.message
        for f in dockerfiles.check_invariants(
            path,
            dockerfiles.ALL_IN_ONE,
            packages=SERVICES,
            command=dockerfiles.ALL_IN_ONE_COMMAND,
        )
    ]


def test_the_all_in_one_image_keeps_every_invariant() -> None:
    assert _check(ALL_IN_ONE) == []
    assert dockerfiles.run_hadolint(ALL_IN_ONE) == []


def test_a_one_box_image_missing_a_service_or_the_supervisor_is_refused(tmp_path: Path) -> None:
    text = ALL_IN_ONE.read_text()
    broken = tmp_path / "all-in-one.Dockerfile"
    broken.write_text(
        text.replace("COPY services/judge/ services/judge/\n", "").replace(
            'CMD ["citeproof", "serve"]', 'CMD ["citeproof-api"]'
        )
    )
    messages = _check(broken)
    assert any("must copy exactly" in m for m in messages)
    assert 'CMD must be ["citeproof", "serve"]' in messages
