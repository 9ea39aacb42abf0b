-- 001_init.sql — sessions, their append-only event history, and stored
-- solves. Times are Unix milliseconds. States are facelets strings.

CREATE TABLE sessions (
	id          TEXT PRIMARY KEY,
	size        INTEGER NOT NULL CHECK (size BETWEEN 1 AND 1024),
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
	state       TEXT NOT NULL,           -- facelets at `version`
	initial     TEXT NOT NULL,           -- facelets at version 0 (reset target)
	token_hash  BLOB NOT NULL,           -- SHA-256 of the owner's write token
	title       TEXT,
	visibility  TEXT NOT NULL DEFAULT 'public'
	            CHECK (visibility IN ('public', 'private')),
	undo_top    INTEGER NOT NULL DEFAULT 0,  -- event undo would revert, 0 = none
	redo_top    INTEGER NOT NULL DEFAULT 0   -- undo event redo would re-apply
) STRICT;

-- One row per version. `moves` is what replay applies to go from
-- version-1 to version (an undo stores the inverse of what it undoes);
-- `reset` rows carry the state in `snapshot` instead. `ref` is the event an
-- undo/redo refers to; `link` chains the undo and redo stacks. Every K-th
-- version (and version 0 and resets) keeps a snapshot so reading any version
-- replays at most K-1 events.
CREATE TABLE events (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL CHECK (version >= 0),
	type        TEXT NOT NULL
	            CHECK (type IN ('create', 'moves', 'undo', 'redo', 'reset')),
	moves       TEXT NOT NULL DEFAULT '',
	actor       TEXT,
	created_at  INTEGER NOT NULL,
	ref         INTEGER NOT NULL DEFAULT 0,
	link        INTEGER NOT NULL DEFAULT 0,
	snapshot    TEXT,
	PRIMARY KEY (session_id, version)
) STRICT, WITHOUT ROWID;

CREATE TABLE solves (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL,
	method      TEXT NOT NULL,
	solution    TEXT NOT NULL,
	length      INTEGER NOT NULL,
	elapsed_ms  REAL NOT NULL,
	created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX solves_by_session ON solves (session_id, id);
