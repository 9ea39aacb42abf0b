-- 006_retire_text_log.sql — one history model, step 2 of 2 (see 005).
--
-- Every version is now a row of event_rows (005 and the C step after it
-- expanded the blocks and pending text), so schema 4's places go: the old
-- events table, event_blocks, and the sessions row's pending text, state
-- and initial state (a write no longer rewrites the session's state: it
-- changes version, undo_top, redo_top and updated_at; the state lives in
-- snapshots and is rebuilt by replaying events).
DROP TABLE event_blocks;
DROP TABLE events;
ALTER TABLE event_rows RENAME TO events;
ALTER TABLE sessions DROP COLUMN pending;
ALTER TABLE sessions DROP COLUMN state;
ALTER TABLE sessions DROP COLUMN initial;

-- A version's replay base is the latest snapshot or reset before it: the
-- resets, found without scanning a session's events (a partial index
-- costs nothing to the writes of other kinds).
CREATE INDEX events_resets ON events (session_id, version)
	WHERE kind = 'reset';
