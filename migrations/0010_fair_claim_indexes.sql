-- Fair claiming across users (the runtime's CLAIM_FAIR): the users with queued work are found by
-- a loose index scan, and each one's next ready row by one descent, on these indexes - one index
-- step per waiting user instead of one row per queued item.
CREATE INDEX parse_items_user_queued_idx ON parse_items (user_id, priority, run_after)
    WHERE state = 'queued';
CREATE INDEX runs_user_queued_idx ON runs (user_id, priority, run_after)
    WHERE state = 'queued';
CREATE INDEX retrieve_tasks_user_queued_idx ON retrieve_tasks (user_id, priority, run_after)
    WHERE state = 'queued';
CREATE INDEX judge_tasks_user_queued_idx ON judge_tasks (user_id, priority, run_after)
    WHERE state = 'queued';
