"""Queue settings refuse combinations that would lose leases or hide a misconfiguration."""

from __future__ import annotations

import pytest

from citeproof.queue import QueueSettings, Stage
from citeproof.queue.worker import stage_settings
from citeproof.settings import SettingsError


async def _noop(_ctx) -> None:
    return None


JUDGE = Stage(name="judge", table="judge_tasks", channel="unused", handler=_noop)


def test_a_stage_lease_shorter_than_two_beats_is_refused_naming_the_stage_variables() -> None:
    # The judge's lease is shortened but its heartbeat falls back to the general 30 s.
    with pytest.raises(SettingsError) as refused:
        stage_settings(JUDGE, {"CITEPROOF_JUDGE_LEASE_S": "20"})
    message = str(refused.value)
    assert "CITEPROOF_JUDGE_HEARTBEAT_S" in message
    assert "CITEPROOF_JUDGE_LEASE_S" in message


def test_a_consistent_stage_pair_is_accepted() -> None:
    got = stage_settings(
        JUDGE, {"CITEPROOF_JUDGE_LEASE_S": "20", "CITEPROOF_JUDGE_HEARTBEAT_S": "5"}
    )
    assert (got.lease_s, got.heartbeat_s) == (20.0, 5.0)


def test_batch_size_above_concurrency_is_refused_not_clamped() -> None:
    with pytest.raises(SettingsError, match="CITEPROOF_JUDGE_BATCH_SIZE"):
        stage_settings(
            JUDGE, {"CITEPROOF_JUDGE_CONCURRENCY": "2", "CITEPROOF_JUDGE_BATCH_SIZE": "8"}
        )


def test_a_stage_that_only_lowers_its_concurrency_claims_that_many_per_statement() -> None:
    got = stage_settings(JUDGE, {"CITEPROOF_JUDGE_CONCURRENCY": "1"})
    assert (got.concurrency, got.batch_size) == (1, 1)


def test_a_heartbeat_that_would_let_the_registry_call_a_live_worker_gone_is_refused() -> None:
    # Workers touch the registry once per heartbeat; readiness counts one unseen for
    # CITEPROOF_WORKER_STALE_S as gone.
    with pytest.raises(SettingsError, match="CITEPROOF_WORKER_STALE_S"):
        QueueSettings(lease_s=600, heartbeat_s=60, worker_stale_s=90).validate()


async def test_a_worker_pool_has_a_connection_for_every_slot_of_every_stage(monkeypatch) -> None:
    from citeproof.queue import worker as worker_module

    sized: list[int] = []

    class _Stop(Exception):
        pass

    async def record_size(_db, *, max_size: int) -> None:
        sized.append(max_size)
        raise _Stop  # nothing past the pool is needed here

    async def no_migrations(_target: object) -> None:
        return None

    monkeypatch.setattr(worker_module, "create_pool", record_size)
    # Whichever boot step the worker uses, it must not touch a database here.
    for boot_step in ("apply_migrations", "migrate_at_boot"):
        monkeypatch.setattr(worker_module, boot_step, no_migrations, raising=False)
    for resolver in ("resolve_database_url", "resolve_listen_url"):
        monkeypatch.setattr(worker_module, resolver, lambda _db: "postgresql://x/y", raising=False)
    monkeypatch.setenv("CITEPROOF_PLAN_CONCURRENCY", "8")
    monkeypatch.setenv("CITEPROOF_RETRIEVE_CONCURRENCY", "8")
    plan = Stage(name="plan", table="runs", channel="unused", handler=_noop)
    retrieve = Stage(name="retrieve", table="retrieve_tasks", channel="unused", handler=_noop)
    with pytest.raises(_Stop):
        await worker_module.serve(service="retriever", stages=[plan, retrieve])
    # Both stages' tasks may complete at once, each on a connection of its own.
    assert sized and sized[0] >= 8 + 8
