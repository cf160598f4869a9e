"""Duration strings as Docker Compose ("1m30s") and Prometheus ("5m", "1h30m") write them."""

from __future__ import annotations

import re

_UNIT_SECONDS = {
    "ms": 0.001,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
    "w": 604800.0,
    "y": 31536000.0,
}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)")


def parse_duration(text: str | int | float) -> float:
    """Seconds in a duration; a bare number counts as seconds. ValueError when malformed."""
    if isinstance(text, int | float):
        return float(text)
    value = text.strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", value):
        return float(value)
    position = 0
    total = 0.0
    for match in _PART.finditer(value):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    if position != len(value) or not value:
        raise ValueError(f"not a duration: {text!r}")
    return total
