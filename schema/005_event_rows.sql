-- 005_event_rows.sql — one history model, step 1 of 2 (006 finishes it).
--
-- Every version becomes a row of event_rows (renamed to events by 006):
-- what takes version-1 to version (kind, canonical moves text; an undo
-- stores the inverse of what it undoes), who and when, and ref/link for
-- the undo and redo stacks. States move to their own table, snapshots:
-- version 0's and then now and then (the session layer's rule, in
-- server/sessions_internal.h: when the events since the last one reach
-- max(32, n), or the stickers they moved reach max(6n², 4096)). A reset
-- keeps no state: its version's state is version 0's.
--
-- Schema 4 kept a version in one of three places: an events row (version
-- 0, every 32nd version and resets with their snapshot, events over 512
-- bytes, and events written before 004), an event_blocks row, or the
-- session row's pending text. The rows are copied here; the blocks and
-- the pending text are records of server/migrate_evlog.h's format, which
-- SQL cannot take apart, so cubed expands them into event_rows in C right
-- after this file, inside the same migration transaction
-- (server/store_sqlite_migrate.c). The state of each session's current
-- version becomes a snapshot too, so loading a session replays nothing.
CREATE TABLE event_rows (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL CHECK (version >= 0),
	kind        TEXT NOT NULL
	            CHECK (kind = 'create' OR kind = 'moves' OR kind = 'undo'
	                   OR kind = 'redo' OR kind = 'reset'),
	moves       TEXT NOT NULL DEFAULT '',
	actor       TEXT,
	created_at  INTEGER NOT NULL,
	ref         INTEGER NOT NULL DEFAULT 0,  -- undo/redo: the event it undoes
	link        INTEGER NOT NULL DEFAULT 0,  -- the stack entry below this one
	PRIMARY KEY (session_id, version)
) STRICT, WITHOUT ROWID;

-- A rowid table (with its unique index for lookups): a state is 6n²
-- bytes, up to 98 KB for a 128×128, too big a row for a WITHOUT ROWID
-- b-tree.
CREATE TABLE snapshots (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL CHECK (version >= 0),
	state       TEXT NOT NULL,              -- facelets at version
	UNIQUE (session_id, version)
) STRICT;

INSERT INTO event_rows (session_id, version, kind, moves, actor, created_at,
			ref, link)
	SELECT session_id, version, type, moves, actor, created_at, ref, link
	FROM events;

INSERT INTO snapshots (session_id, version, state)
	SELECT session_id, version, snapshot FROM events
	WHERE snapshot IS NOT NULL;

INSERT OR IGNORE INTO snapshots (session_id, version, state)
	SELECT id, version, state FROM sessions;
