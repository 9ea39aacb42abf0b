-- schema/pg/005_timed_solves.sql — as schema/008: a timed solve's start
-- (the version it starts from, who, the scramble, when inspection
-- began); the rest is the session's history after that version.
CREATE TABLE timed_solves (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     bigint NOT NULL CHECK (version >= 0),
	actor       text NOT NULL,
	scramble    text NOT NULL,
	inspect_at  bigint NOT NULL
);
CREATE INDEX timed_solves_by_session ON timed_solves (session_id, id);
