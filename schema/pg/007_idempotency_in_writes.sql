-- schema/pg/007_idempotency_in_writes.sql — Idempotency-Key results kept
-- with their writes (issue 61): the key's claim, the change and the
-- result commit in the writer's one transaction, so a commit whose answer
-- was lost replays instead of writing twice, and no claim can outlive a
-- node (an open claim dies with its transaction). result is the session
-- layer's short text (ids, version, tokens: never a state). The answer
-- columns of 002 go: a replay is made again from the result.
DELETE FROM idempotency;
ALTER TABLE idempotency DROP COLUMN status, DROP COLUMN content_type,
	DROP COLUMN headers, DROP COLUMN body, ADD COLUMN result text;

