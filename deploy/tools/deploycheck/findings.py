"""A finding is one thing wrong with one file; every check returns a list of them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    check: str
    """Which check produced it (e.g. "hadolint", "kustomize", "policy")."""
    where: str
    """The file (repo-relative) and, when known, the resource or line inside it."""
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.where}: {self.message}"
