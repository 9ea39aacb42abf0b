-- 010_idempotency.sql — Idempotency-Key results kept with their writes
-- (issue 61): a change sent with a key claims the key, makes the change
-- and keeps what a replay needs in one transaction (the writer's batch),
-- so a retry after any failure finds either nothing (the change did not
-- commit: it runs) or the result (it replays). scope is a SHA-256 of the
-- route, path, requester (bearer token or client address) and key; print
-- a SHA-256 of the request, so the same key with another request is
-- refused. result is the session layer's short text (ids, version,
-- tokens: never a state); NULL while a claim is open inside its
-- transaction. Rows older than --idempotency-ttl are replaced when their
-- key comes again and deleted now and then.
CREATE TABLE idempotency (
	scope       BLOB PRIMARY KEY,
	print       BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	result      TEXT
) WITHOUT ROWID;
CREATE INDEX idempotency_by_age ON idempotency (created_at);

