-- 004_pending_events.sql — a session's newest events kept in its own row,
-- and older ones in blocks.
--
-- A write appends its event to the session's `pending` text (one record
-- of text per event: server/evlog.h) instead of inserting an events row,
-- so it changes one row, not two, and a commit of writes to many sessions
-- no longer dirties one events page per session. The next event that
-- keeps a snapshot (every 32nd version, a reset, or an event too big for
-- the row) first moves the pending text, as it is, into one event_blocks
-- row keyed by its last version, and is itself an events row. So every
-- version of a session is in exactly one of: an events row (version 0,
-- snapshots, big events, and every event written before this migration),
-- an event_blocks row, or its pending text (the versions after the last
-- events or event_blocks row). Snapshots are only ever in events rows.
ALTER TABLE sessions ADD COLUMN pending TEXT;

CREATE TABLE event_blocks (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	last        INTEGER NOT NULL CHECK (last >= 1), -- its newest version
	events      TEXT NOT NULL,                      -- evlog records, in order
	PRIMARY KEY (session_id, last)
) STRICT, WITHOUT ROWID;
