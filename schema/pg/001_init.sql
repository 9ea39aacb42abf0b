-- schema/pg/001_init.sql — the PostgreSQL store's tables: the same row
-- model as the SQLite files reach at 006 (server/store.h), in
-- PostgreSQL's types. Times are Unix milliseconds (bigint). States are
-- facelets strings. cubed applies this file and the ones after it in
-- order, each in its own transaction, and records each in schema_version
-- (server/store_pg_migrate.c).

CREATE TABLE sessions (
	id          text PRIMARY KEY,
	size        integer NOT NULL CHECK (size BETWEEN 1 AND 1024),
	created_at  bigint NOT NULL,
	updated_at  bigint NOT NULL,
	version     bigint NOT NULL DEFAULT 0 CHECK (version >= 0),
	undo_top    bigint NOT NULL DEFAULT 0,  -- event undo would revert, 0 = none
	redo_top    bigint NOT NULL DEFAULT 0,  -- undo event redo would re-apply
	token_hash  bytea NOT NULL,             -- SHA-256 of the owner's token
	title       text,
	visibility  text NOT NULL DEFAULT 'public'
	            CHECK (visibility IN ('public', 'private'))
);

-- One row per version: what takes version-1 to version.
CREATE TABLE events (
	session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     bigint NOT NULL CHECK (version >= 0),
	kind        text NOT NULL
	            CHECK (kind IN ('create', 'moves', 'undo', 'redo', 'reset')),
	moves       text NOT NULL DEFAULT '',
	actor       text,
	created_at  bigint NOT NULL,
	ref         bigint NOT NULL DEFAULT 0,
	link        bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, version)
);

CREATE INDEX events_resets ON events (session_id, version)
	WHERE kind = 'reset';

CREATE TABLE snapshots (
	session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     bigint NOT NULL CHECK (version >= 0),
	state       text NOT NULL,
	PRIMARY KEY (session_id, version)
);

CREATE TABLE solves (
	id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     bigint NOT NULL,
	method      text NOT NULL,
	solution    text NOT NULL,
	length      integer NOT NULL,
	elapsed_ms  double precision NOT NULL,
	created_at  bigint NOT NULL
);

CREATE INDEX solves_by_session ON solves (session_id, id);

CREATE TABLE tokens (
	session_id  text NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	id          bigint NOT NULL CHECK (id >= 1),
	role        text NOT NULL CHECK (role IN ('write', 'read')),
	name        text NOT NULL,
	token_hash  bytea NOT NULL,
	created_at  bigint NOT NULL,
	revoked_at  bigint,
	PRIMARY KEY (session_id, id),
	UNIQUE (session_id, name)
);

CREATE INDEX tokens_by_hash ON tokens (session_id, token_hash);

-- Live events across nodes: every committed version change of a session
-- (and its deletion) is announced on channel cubed_events as
-- '<session id>:<version>' ('<session id>:-1' when it is deleted). The
-- trigger runs in the writing transaction, so PostgreSQL sends the
-- notification only when that transaction commits, in commit order;
-- every node LISTENs and fetches the rows from the tables.
CREATE FUNCTION cubed_notify_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM pg_notify('cubed_events', OLD.id || ':-1');
		RETURN OLD;
	END IF;
	IF NEW.version <> OLD.version THEN
		PERFORM pg_notify('cubed_events',
				  NEW.id || ':' || NEW.version);
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER sessions_notify_update AFTER UPDATE OF version ON sessions
	FOR EACH ROW EXECUTE FUNCTION cubed_notify_version();
CREATE TRIGGER sessions_notify_delete AFTER DELETE ON sessions
	FOR EACH ROW EXECUTE FUNCTION cubed_notify_version();
