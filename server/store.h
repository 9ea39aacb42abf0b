/* store.h — where sessions, their event histories and their solves live.
 *
 * An engine-neutral interface: handlers and the session layer call these
 * functions; store_sqlite.c is the engine behind them (a PostgreSQL one can
 * sit beside it later). The store knows SQL and rows, nothing about cubes:
 * replaying moves onto a snapshot is the session layer's job.
 *
 * Threads: any thread may call any function; each thread gets its own
 * database connection (with its prepared statements) on first use. A write
 * transaction (store_begin … store_commit) belongs to the calling thread.
 * Every write runs inside one: store_begin is BEGIN IMMEDIATE.
 *
 * Results: STORE_OK (0) or a negative store_err. Strings in out-structs are
 * malloc'd and released by the matching *_free function.
 */
#ifndef CUBED_STORE_H
#define CUBED_STORE_H

#include <stddef.h>
#include <stdint.h>

enum store_err {
	STORE_OK = 0,
	STORE_NOT_FOUND = -1,  /* no such session / event */
	STORE_CONFLICT = -2,   /* a row with that key exists */
	STORE_ERROR = -3,      /* the engine failed: store_last_error says why */
	STORE_SCHEMA = -4,     /* the database is newer than this binary */
};

struct store;

struct store_config {
	const char *path;       /* database file; its directory must exist */
	const char *schema_dir; /* NNN_name.sql migrations, applied in order */
	int durability_full;    /* synchronous=FULL (power-loss safe) */
	int busy_timeout_ms;    /* 0 = 5000 */
};

/* Open (creating if needed) and migrate. On failure returns the code and
 * writes a sentence to err. */
int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen);
/* Close every connection. No other call may be running or follow. */
void store_close(struct store *st);

/* The calling thread's last engine error, as a sentence. */
const char *store_last_error(struct store *st);

/* Schema version of the open database (PRAGMA user_version). */
int store_schema_version(struct store *st);

/* Cheap liveness check for /readyz: a query on this thread's connection. */
int store_ping(struct store *st);

/* Write transactions: BEGIN IMMEDIATE / COMMIT / ROLLBACK. */
int store_begin(struct store *st);
int store_commit(struct store *st);
int store_rollback(struct store *st);

#define STORE_ID_MAX 48
#define STORE_HASH_LEN 32

struct store_session {
	char id[STORE_ID_MAX];
	int size;
	int64_t created_at, updated_at; /* Unix ms */
	int64_t version;
	int64_t undo_top, redo_top;
	char *state;     /* facelets at version */
	char *initial;   /* facelets at version 0 (only if asked for) */
	unsigned char token_hash[STORE_HASH_LEN];
	char *title;     /* NULL if none */
	int is_private;
};
void store_session_free(struct store_session *s);

struct store_event {
	int64_t version;
	char type[8];    /* create, moves, undo, redo, reset */
	char *moves;
	char *actor;     /* NULL if none */
	int64_t created_at;
	int64_t ref, link;
	char *snapshot;  /* NULL unless the row keeps one */
};
void store_event_free(struct store_event *e);

/* A new session: its row and the version-0 "create" event (snapshot =
 * initial). s->version must be 0 and s->state == s->initial.
 * STORE_CONFLICT if the id exists. */
int store_create_session(struct store *st, const struct store_session *s,
			 const char *actor);

/* Read a session (with_initial: also the initial state). */
int store_get_session(struct store *st, const char *id, int with_initial,
		      struct store_session *out);

/* Append event e (e->version must be the session's version + 1) and move
 * the session to it: version, state, undo_top, redo_top, updated_at =
 * e->created_at. STORE_CONFLICT if the session is not at e->version - 1.
 * Events are immutable once appended (how the engine keeps them, e.g. the
 * newest few in the session's own row, is its business: every read below
 * sees each appended event). */
int store_append_event(struct store *st, const char *id,
		       const struct store_event *e, const char *state,
		       int64_t undo_top, int64_t redo_top);

/* One event. */
int store_get_event(struct store *st, const char *id, int64_t version,
		    struct store_event *out);

/* Events with after < version, oldest first, at most cap: returns the
 * count (0 .. cap) or an error. Snapshots are not read (snapshot = NULL). */
int store_history(struct store *st, const char *id, int64_t after,
		  struct store_event *out, int cap);

/* The latest snapshot at or before version: its version and text. */
int store_snapshot_at(struct store *st, const char *id, int64_t version,
		      int64_t *snap_version, char **snapshot);

/* Delete a session with its events and solves. */
int store_delete_session(struct store *st, const char *id);

/* Number of sessions. */
int store_count_sessions(struct store *st, int64_t *count);

struct store_solve {
	int64_t id, version;
	char method[16];
	char *solution;
	int length;
	double elapsed_ms;
	int64_t created_at;
};
void store_solve_free(struct store_solve *s);

/* Record a solve (out_id: its id); list a session's solves oldest first
 * with id > after, at most cap (returns the count). */
int store_add_solve(struct store *st, const char *session_id,
		    const struct store_solve *s, int64_t *out_id);
int store_list_solves(struct store *st, const char *session_id, int64_t after,
		      struct store_solve *out, int cap);

/* Tokens the owner hands out (the owner's own is sessions' token_hash). */
#define STORE_NAME_MAX 48
struct store_token {
	int64_t id;                 /* 1, 2, … within the session */
	char role[8];               /* "write" or "read" */
	char name[STORE_NAME_MAX];  /* the actor its writes record */
	int64_t created_at;
	int64_t revoked_at;         /* 0 = live */
};

/* Add a token (t->role, t->created_at, t->name or "" for the default
 * "player-<id>" / "reader-<id>"); fills t->id and t->name. STORE_CONFLICT
 * if the name is taken in this session. */
int store_add_token(struct store *st, const char *session_id,
		    struct store_token *t, const unsigned char *hash);
/* The live (not revoked) token with this hash, or STORE_NOT_FOUND. */
int store_find_token(struct store *st, const char *session_id,
		     const unsigned char *hash, struct store_token *out);
/* A session's tokens, oldest first, at most cap: returns the count. */
int store_list_tokens(struct store *st, const char *session_id,
		      struct store_token *out, int cap);
/* Revoke token id; STORE_NOT_FOUND if there is none live. */
int store_revoke_token(struct store *st, const char *session_id, int64_t id,
		       int64_t when);

#endif
