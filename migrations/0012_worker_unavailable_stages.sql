-- A worker lists here the stages it cannot serve because a backend they need is unreachable
-- (its circuit breaker is open): {"judge": {"dependency": "judge backend", "detail": "...",
-- "since": "<ISO time>"}}. Such a stage is left out of `capabilities` meanwhile; readiness and
-- a run's "waiting for" report the outage from here.
ALTER TABLE worker_heartbeats ADD COLUMN unavailable jsonb NOT NULL DEFAULT '{}'::jsonb;
