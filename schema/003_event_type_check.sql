-- 003_event_type_check.sql — the same events table, its type check spelt
-- as comparisons. SQLite 3.40 compiles `type IN ('create', …)` with five
-- values into a temporary b-tree built anew for every inserted row (an
-- OpenEphemeral and five inserts per event: a tenth of the writer's time
-- under load); `type = 'create' OR …` compiles to five comparisons. The
-- rows, keys and foreign key are unchanged. Nothing references events, so
-- it can be rebuilt and renamed inside the migration transaction.
CREATE TABLE events_new (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	version     INTEGER NOT NULL CHECK (version >= 0),
	type        TEXT NOT NULL
	            CHECK (type = 'create' OR type = 'moves' OR type = 'undo'
	                   OR type = 'redo' OR type = 'reset'),
	moves       TEXT NOT NULL DEFAULT '',
	actor       TEXT,
	created_at  INTEGER NOT NULL,
	ref         INTEGER NOT NULL DEFAULT 0,
	link        INTEGER NOT NULL DEFAULT 0,
	snapshot    TEXT,
	PRIMARY KEY (session_id, version)
) STRICT, WITHOUT ROWID;

INSERT INTO events_new (session_id, version, type, moves, actor, created_at,
			ref, link, snapshot)
	SELECT session_id, version, type, moves, actor, created_at, ref, link,
	       snapshot
	FROM events;

DROP TABLE events;

ALTER TABLE events_new RENAME TO events;
