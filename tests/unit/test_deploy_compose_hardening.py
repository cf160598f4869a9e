"""Every citeproof container in deploy/compose.yaml runs locked down: a read-only root
filesystem (writable /tmp only), no Linux capabilities, no privilege gain through setuid
binaries. A code-execution bug in a parser library then cannot persist a change to the image's
files, bind privileged ports or escalate."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"
# PostgreSQL's official image starts as root to fix ownership of its volume, then drops to the
# postgres user: it is not ours to lock down this way.
NOT_OURS = {"postgres"}


def _services() -> dict[str, dict]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]


def test_every_citeproof_service_is_hardened() -> None:
    services = {name: s for name, s in _services().items() if name not in NOT_OURS}
    assert {"api", "parser", "retriever", "judge", "migrate"} <= set(services)
    for name, service in services.items():
        assert service.get("read_only") is True, name
        assert service.get("cap_drop") == ["ALL"], name
        assert "no-new-privileges:true" in service.get("security_opt", []), name
        assert not service.get("cap_add"), name
        assert not service.get("privileged"), name


def test_the_writable_scratch_space_is_a_bounded_tmpfs() -> None:
    for name, service in _services().items():
        if name in NOT_OURS:
            continue
        tmpfs = service.get("tmpfs", [])
        assert any(entry.startswith("/tmp:") and "size=" in entry for entry in tmpfs), name
