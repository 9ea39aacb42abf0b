-- schema/pg/002_idempotency.sql — Idempotency-Key records shared by every
-- node (server/idempotency.c): a retry sent to another node gets the
-- first answer. scope is a SHA-256 of the route, path, Authorization and
-- key; print a SHA-256 of the request (method, path, query, body), so the
-- same key with another request is refused. status 0: the first request
-- is still running. Records older than --idempotency-ttl are replaced
-- when their key comes again and deleted now and then.
CREATE TABLE idempotency (
	scope        bytea PRIMARY KEY,
	print        bytea NOT NULL,
	created_at   bigint NOT NULL,
	status       integer NOT NULL DEFAULT 0,
	content_type text,
	headers      text,
	body         bytea
);

CREATE INDEX idempotency_by_age ON idempotency (created_at);
