-- 009_races.sql — races (issue 64): a room where several players solve
-- the same scramble, each on a cube (a session) of their own. The room is
-- a row (its host's token hashed; the scramble and the moment the
-- countdown ends once the host starts it), each player a row naming the
-- session made for them. Results are not stored: each player's timed
-- solve is read back from their session's history (timed.c), as
-- everywhere else. Times are Unix milliseconds.
CREATE TABLE races (
	id          TEXT PRIMARY KEY,
	size        INTEGER NOT NULL CHECK (size BETWEEN 2 AND 7),
	title       TEXT,
	token_hash  BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	scramble    TEXT,
	go_at       INTEGER
);
CREATE TABLE race_players (
	race_id     TEXT NOT NULL REFERENCES races(id) ON DELETE CASCADE,
	seat        INTEGER NOT NULL,
	name        TEXT NOT NULL,
	session_id  TEXT NOT NULL,
	joined_at   INTEGER NOT NULL,
	PRIMARY KEY (race_id, seat),
	UNIQUE (race_id, name)
);
