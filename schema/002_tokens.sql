-- 002_tokens.sql — extra tokens a session's owner hands out: write tokens
-- for co-players and read tokens for watchers of a private session. The
-- owner's own token stays in sessions.token_hash. Tokens are kept only as
-- SHA-256 hashes; a revoked token keeps its row (revoked_at set) so the
-- history's actors still name a known token.
CREATE TABLE tokens (
	session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	id          INTEGER NOT NULL CHECK (id >= 1),   -- per session: 1, 2, …
	role        TEXT NOT NULL CHECK (role IN ('write', 'read')),
	name        TEXT NOT NULL,                      -- the actor in the history
	token_hash  BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	revoked_at  INTEGER,
	PRIMARY KEY (session_id, id),
	UNIQUE (session_id, name)
) STRICT, WITHOUT ROWID;

CREATE INDEX tokens_by_hash ON tokens (session_id, token_hash);
