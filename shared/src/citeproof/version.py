"""The installed version: `citeproof --version`, SARIF tool metadata, citeproof_build_info."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as distribution_version

# The `citeproof` distribution pins the five packages to its own version; a checkout with
# editable installs has only the packages, whose versions are the same.
DISTRIBUTIONS = ("citeproof", "citeproof-shared")
UNKNOWN = "0+unknown"


def version() -> str:
    for name in DISTRIBUTIONS:
        try:
            return distribution_version(name)
        except PackageNotFoundError:
            continue
    return UNKNOWN
