"""Every worker service is put together one way (`citeproof.worker_service`), and a stage's own
default settings are declared with the stage, not hidden in a process's environment."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from citeproof.judge.service import JudgeService
from citeproof.parser.service import ParseService
from citeproof.parser.settings import ParserSettings
from citeproof.pipeline import PARSE_STAGE, STAGES
from citeproof.queue.worker import stage_settings
from citeproof.retriever.service import RetrieverService
from citeproof.worker_service import StageDefaults, WorkerService

ROOT = Path(__file__).resolve().parents[2]
SERVICES = (ParseService, RetrieverService, JudgeService)


def test_the_parse_stage_defaults_apply_unless_its_own_variable_is_set() -> None:
    stage = ParseService(ParserSettings()).parse_stage
    got = stage_settings(stage, {})
    assert (got.concurrency, got.batch_size) == (2, 1)
    # A general value chosen for the other stages does not reach the parse stage ...
    env = {"CITEPROOF_CONCURRENCY": "8"}
    assert stage_settings(stage, env).concurrency == 2
    # ... the stage's own variable does.
    assert stage_settings(stage, {"CITEPROOF_PARSE_CONCURRENCY": "3"}).concurrency == 3
    # ... and reading them changes nobody's environment.
    assert env == {"CITEPROOF_CONCURRENCY": "8"}


def test_every_declared_stage_default_reaches_its_stage() -> None:
    """What `citeproof config` prints is what the runtime uses: the declaration and the
    Stage's defaults are one."""
    for service in SERVICES:
        built = service() if service is not ParseService else ParseService(ParserSettings())
        try:
            by_name = {stage.name: stage for stage in built.stages()}
            for declared in service.stage_defaults:
                got = stage_settings(by_name[declared.stage], {})
                for field, value in declared.values.items():
                    assert getattr(got, field) == value, (service.name, field)
        finally:
            built.close()


def test_a_stage_default_names_a_queue_setting() -> None:
    with pytest.raises(ValueError, match="concurency"):
        StageDefaults(PARSE_STAGE, {"concurency": 2}, "a typo")


def test_every_worker_service_has_the_same_shape_and_the_services_cover_every_stage() -> None:
    declared = []
    for service in SERVICES:
        assert issubclass(service, WorkerService)
        assert service.name and service.capabilities
        for defaults in service.stage_defaults:
            assert defaults.stage in STAGES
        declared += [
            name.removesuffix("_stage") for name in vars(service) if name.endswith("_stage")
        ]
    assert sorted(declared) == sorted(STAGES)


def test_no_service_sets_citeproof_variables_in_its_environment() -> None:
    """A default set with os.environ.setdefault is one `citeproof config` cannot show."""
    offenders = []
    for path in sorted(ROOT.glob("services/*/src/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) in {"setdefault", "__setitem__"}
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("CITEPROOF_")
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders


def test_every_worker_service_builds_from_the_environment_alone() -> None:
    """What `run_service` does at boot: no argument, settings from the environment."""
    judge = JudgeService()
    assert [stage.name for stage in judge.stages()] == ["judge"]
    assert judge.on_terminal is not None
    retriever = RetrieverService()
    assert [stage.name for stage in retriever.stages()] == ["plan", "retrieve", "verify"]
    parser = ParseService()
    try:
        assert [stage.name for stage in parser.stages()] == ["parse"]
        assert [job.name for job in parser.periodic()] == ["staged_bytes_ttl"]
    finally:
        parser.close()
