from __future__ import annotations

from typing import Annotated, Literal

from citeproof.settings import Settings, doc


class ObservabilitySettings(Settings, frozen=True, kw_only=True):
    log_format: Annotated[
        Literal["auto", "json", "console"],
        doc("`json` (one object per line), `console` (coloured), `auto`: console on a TTY."),
    ] = "auto"
    log_level: Annotated[str, doc("Minimum log level (debug, info, warning, error).")] = "info"
