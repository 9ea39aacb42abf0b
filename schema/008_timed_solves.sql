-- 008_timed_solves.sql — timed solves (issue 64): a player declares that
-- a timed solve starts at a version of the session (the scrambled state:
-- inspection begins then). Only the start is a row: the first turn, the
-- move that solves the cube and the moves between are the session's own
-- history after that version, read back with it, so one record cannot
-- disagree with the other. Times are Unix milliseconds.
CREATE TABLE timed_solves (
	id          INTEGER PRIMARY KEY,
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL CHECK (version >= 0),
	actor       TEXT NOT NULL,
	scramble    TEXT NOT NULL,
	inspect_at  INTEGER NOT NULL
);
CREATE INDEX timed_solves_by_session ON timed_solves (session_id, id);
