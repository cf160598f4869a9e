"""Which paths a .dockerignore lets into the build context (Docker's matching rules).

The last pattern that matches a path decides; a pattern also matches everything below a matched
directory; `!` re-includes; `*` and `?` stay within one path segment and `**` spans segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    include: bool


def _compile(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            parts.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            parts.append(".*")
            i += 2
        elif pattern[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            parts.append("[^/]")
            i += 1
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(parts) + r"\Z")


class DockerIgnore:
    def __init__(self, text: str) -> None:
        self._rules: list[_Rule] = []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            include = line.startswith("!")
            pattern = line[1:].strip() if include else line
            pattern = pattern.strip("/")
            if pattern.startswith("./"):
                pattern = pattern[2:]
            self._rules.append(_Rule(_compile(pattern), include))

    @classmethod
    def from_file(cls, path: Path) -> DockerIgnore:
        return cls(path.read_text(encoding="utf-8") if path.exists() else "")

    def is_included(self, relative_path: str) -> bool:
        """True when the build context would contain this repo-relative path."""
        path = relative_path.strip("/")
        segments = path.split("/")
        # The path and each of its parent directories: excluding a directory excludes its content.
        candidates = ["/".join(segments[: n + 1]) for n in range(len(segments))]
        included = True
        for rule in self._rules:
            if any(rule.regex.match(candidate) for candidate in candidates):
                included = rule.include
        return included
