"""How a worker service is put together and started: one shape for the parser, the retriever
and the judge.

A service is a `WorkerService` subclass. Its class declares the process name, the
capabilities it registers and the stages' own default settings (`StageDefaults`), so that
`citeproof config` can print them without starting anything; an instance holds what is worth
keeping between tasks and hands the runtime its stages (one `<stage>_stage` property per stage,
listed by `stages()`), its periodic jobs and its warm-up. `run_service` is the one boot path of
a worker process; the database step inside it (`citeproof.db.boot.migrate_at_boot`) is the
API's and the CLI's as well.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import asyncpg
import msgspec

from citeproof.queue import PeriodicJob, QueueSettings, Stage, run_worker
from citeproof.settings import env_name


@dataclass(frozen=True)
class StageDefaults:
    """Queue settings a stage needs other than the general defaults, and why.

    They rank below the stage's own variable (`CITEPROOF_<STAGE>_<FIELD>`) and above the
    general one (`CITEPROOF_<FIELD>`): they describe the stage's work, which a general value
    chosen for the other stages does not.
    """

    stage: str
    values: Mapping[str, int | float | bool]
    reason: str

    def __post_init__(self) -> None:
        known = {field.name for field in msgspec.structs.fields(QueueSettings)}
        unknown = sorted(set(self.values) - known)
        if unknown:
            raise ValueError(f"stage {self.stage!r}: no queue setting named {unknown}")

    def variables(self) -> dict[str, str]:
        """The stage's variables these defaults stand for, with their values."""
        prefix = f"CITEPROOF_{self.stage.upper()}_"
        return {
            env_name(QueueSettings, field, prefix): str(value)
            for field, value in self.values.items()
        }

    def as_stage_defaults(self) -> tuple[tuple[str, int | float | bool], ...]:
        """The form `Stage.defaults` takes (the runtime reads them from the stage)."""
        return tuple(sorted(self.values.items()))


class WorkerService:
    """Base of every worker service; subclasses set the class variables and `stages()`."""

    # The process's name in logs, metrics and the worker registry.
    name: ClassVar[str]
    # What the process registers in `worker_heartbeats` (the API's readiness reads them).
    capabilities: ClassVar[tuple[str, ...]]
    stage_defaults: ClassVar[tuple[StageDefaults, ...]] = ()

    def stages(self) -> list[Stage]:
        raise NotImplementedError

    @classmethod
    def defaults_for(cls, stage: str) -> tuple[tuple[str, int | float | bool], ...]:
        """What a `<stage>_stage` property passes as `Stage(defaults=...)`."""
        return tuple(
            pair for d in cls.stage_defaults if d.stage == stage for pair in d.as_stage_defaults()
        )

    def periodic(self) -> list[PeriodicJob]:
        return []

    async def warm_up(self, pool: asyncpg.Pool) -> None:
        """Runs once before the first claim (load models, start children)."""

    def close(self) -> None:
        """Releases what the service holds after the worker drained."""


def run_service(service_class: type[WorkerService]) -> None:
    """Console-script entry point of a worker service: build the service (its stages carry
    their declared defaults), run the worker until a SIGTERM drain, close the service."""
    service = service_class()
    try:
        run_worker(
            service=service.name,
            stages=service.stages(),
            capabilities=service.capabilities,
            periodic=service.periodic(),
            on_start=service.warm_up,
        )
    finally:
        service.close()
