-- schema/pg/006_races.sql — as schema/009: a race's room (the host's
-- token hashed, the scramble and the countdown's end once started) and
-- its players, each with the session made for them.
CREATE TABLE races (
	id          text PRIMARY KEY,
	size        integer NOT NULL CHECK (size BETWEEN 2 AND 7),
	title       text,
	token_hash  bytea NOT NULL,
	created_at  bigint NOT NULL,
	scramble    text,
	go_at       bigint
);
CREATE TABLE race_players (
	race_id     text NOT NULL REFERENCES races(id) ON DELETE CASCADE,
	seat        integer NOT NULL,
	name        text NOT NULL,
	session_id  text NOT NULL,
	joined_at   bigint NOT NULL,
	PRIMARY KEY (race_id, seat),
	UNIQUE (race_id, name)
);
