/* store_sqlite.c — the SQLite engine behind store.h.
 *
 * Every thread gets its own connection on first use (a pthread key), with
 * WAL, synchronous=NORMAL (FULL with --durability full), busy_timeout and
 * foreign keys on, and its statements prepared once and reused. Migrations
 * (schema/NNN_name.sql) are applied in one transaction at open, tracked by
 * PRAGMA user_version; a database newer than the files we know is refused.
 * All values go through bound parameters.
 */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evlog.h"

/* Every statement, prepared once per connection. */
#define STORE_STATEMENTS(X)                                                    \
	X(S_BEGIN, "BEGIN IMMEDIATE")                                          \
	X(S_COMMIT, "COMMIT")                                                  \
	X(S_ROLLBACK, "ROLLBACK")                                              \
	X(S_PING, "SELECT 1")                                                  \
	X(S_INSERT_SESSION,                                                    \
	  "INSERT INTO sessions (id, size, created_at, updated_at, version, "  \
	  "state, initial, token_hash, title, visibility) "                    \
	  "VALUES (?1, ?2, ?3, ?3, 0, ?4, ?4, ?5, ?6, ?7)")                    \
	X(S_INSERT_EVENT,                                                      \
	  "INSERT INTO events (session_id, version, type, moves, actor, "      \
	  "created_at, ref, link, snapshot) "                                  \
	  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")                       \
	X(S_GET_SESSION,                                                       \
	  "SELECT size, created_at, updated_at, version, undo_top, redo_top, " \
	  "state, token_hash, title, visibility, "                             \
	  "CASE WHEN ?2 THEN initial END FROM sessions WHERE id = ?1")         \
	X(S_UPDATE_SESSION,                                                    \
	  "UPDATE sessions SET version = ?2, state = ?3, undo_top = ?4, "      \
	  "redo_top = ?5, updated_at = ?6, pending = CASE WHEN ?7 IS NULL "    \
	  "THEN NULL ELSE coalesce(pending, '') || ?7 END "                    \
	  "WHERE id = ?1 AND version = ?2 - 1")                                \
	X(S_GET_PENDING, "SELECT pending FROM sessions WHERE id = ?1")         \
	X(S_FLUSH_PENDING,                                                     \
	  "INSERT INTO event_blocks (session_id, last, events) "               \
	  "SELECT id, version, pending FROM sessions WHERE id = ?1 AND "       \
	  "version = ?2 AND pending IS NOT NULL")                              \
	X(S_BLOCKS_AFTER,                                                      \
	  "SELECT events FROM event_blocks WHERE session_id = ?1 AND "         \
	  "last > ?2 ORDER BY last LIMIT ?3")                                  \
	X(S_BEGIN_READ, "BEGIN")                                               \
	X(S_GET_EVENT,                                                         \
	  "SELECT version, type, moves, actor, created_at, ref, link, "        \
	  "snapshot FROM events WHERE session_id = ?1 AND version = ?2")       \
	X(S_HISTORY,                                                           \
	  "SELECT version, type, moves, actor, created_at, ref, link "         \
	  "FROM events WHERE session_id = ?1 AND version > ?2 "                \
	  "ORDER BY version LIMIT ?3")                                         \
	X(S_SNAPSHOT,                                                          \
	  "SELECT version, snapshot FROM events WHERE session_id = ?1 AND "    \
	  "version <= ?2 AND snapshot IS NOT NULL "                            \
	  "ORDER BY version DESC LIMIT 1")                                     \
	X(S_DELETE_SESSION, "DELETE FROM sessions WHERE id = ?1")              \
	X(S_COUNT_SESSIONS, "SELECT count(*) FROM sessions")                   \
	X(S_INSERT_SOLVE,                                                      \
	  "INSERT INTO solves (session_id, version, method, solution, length, " \
	  "elapsed_ms, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")       \
	X(S_LIST_SOLVES,                                                       \
	  "SELECT id, version, method, solution, length, elapsed_ms, "         \
	  "created_at FROM solves WHERE session_id = ?1 AND id > ?2 "          \
	  "ORDER BY id LIMIT ?3")                                             \
	X(S_INSERT_TOKEN,                                                      \
	  "INSERT INTO tokens (session_id, id, role, name, token_hash, "       \
	  "created_at) SELECT ?1, coalesce(max(id), 0) + 1, ?2, "              \
	  "coalesce(?3, CASE ?2 WHEN 'write' THEN 'player-' "                  \
	  "ELSE 'reader-' END || (coalesce(max(id), 0) + 1)), ?4, ?5 "         \
	  "FROM tokens WHERE session_id = ?1 RETURNING id, name")              \
	X(S_FIND_TOKEN,                                                        \
	  "SELECT id, role, name, created_at, revoked_at FROM tokens "         \
	  "WHERE session_id = ?1 AND token_hash = ?2 AND revoked_at IS NULL")  \
	X(S_LIST_TOKENS,                                                       \
	  "SELECT id, role, name, created_at, revoked_at FROM tokens "         \
	  "WHERE session_id = ?1 ORDER BY id LIMIT ?2")                        \
	X(S_REVOKE_TOKEN,                                                      \
	  "UPDATE tokens SET revoked_at = ?3 WHERE session_id = ?1 AND "       \
	  "id = ?2 AND revoked_at IS NULL")

enum stmt_id {
#define STMT_ENUM(name, sql) name,
	STORE_STATEMENTS(STMT_ENUM)
#undef STMT_ENUM
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
#define STMT_SQL(name, sql) sql,
	STORE_STATEMENTS(STMT_SQL)
#undef STMT_SQL
};

struct conn {
	sqlite3 *db;
	sqlite3_stmt *stmt[S_COUNT];
	char error[256];
	struct conn *next; /* every connection, for store_close */
};

struct store {
	char *path;
	int durability_full;
	int busy_timeout_ms;
	int schema_version;
	pthread_key_t key;
	pthread_mutex_t lock; /* guards conns */
	struct conn *conns;
	char open_error[256]; /* for threads whose connection failed */
};

static void conn_close(struct conn *c)
{
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(c->stmt[i]);
	sqlite3_close_v2(c->db);
	free(c);
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return STORE_ERROR;
	}
	return STORE_OK;
}

/* A configured connection, or NULL with err set. */
static sqlite3 *connect(struct store *st, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(st->path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s: %s", st->path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close_v2(db);
		return NULL;
	}
	/* wal_autocheckpoint 10000 pages (40 MB of WAL at most): writes
	 * spread over many sessions rewrite the same pages batch after batch,
	 * and a checkpoint copies each page once however often it changed;
	 * at the default 1000, POST moves over 32 sessions ran ~8% slower */
	char pragmas[256];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; "
		 "PRAGMA foreign_keys=ON; PRAGMA busy_timeout=%d; "
		 "PRAGMA wal_autocheckpoint=10000;",
		 st->durability_full ? "FULL" : "NORMAL", st->busy_timeout_ms);
	if (exec(db, pragmas, err, errlen) != STORE_OK) {
		sqlite3_close_v2(db);
		return NULL;
	}
	return db;
}

/* This thread's connection, created on first use; NULL if that failed
 * (the reason is in open_error). */
static struct conn *conn_get(struct store *st)
{
	struct conn *c = pthread_getspecific(st->key);
	if (c)
		return c;
	c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->db = connect(st, c->error, sizeof c->error);
	if (!c->db) {
		pthread_mutex_lock(&st->lock);
		snprintf(st->open_error, sizeof st->open_error, "%s", c->error);
		pthread_mutex_unlock(&st->lock);
		free(c);
		return NULL;
	}
	pthread_mutex_lock(&st->lock);
	c->next = st->conns;
	st->conns = c;
	pthread_mutex_unlock(&st->lock);
	pthread_setspecific(st->key, c);
	return c;
}

/* The statement, prepared on first use and reset for reuse. */
static sqlite3_stmt *stmt(struct conn *c, enum stmt_id id)
{
	if (!c->stmt[id]) {
		if (sqlite3_prepare_v3(c->db, stmt_sql[id], -1,
				       SQLITE_PREPARE_PERSISTENT, &c->stmt[id],
				       NULL) != SQLITE_OK) {
			snprintf(c->error, sizeof c->error, "%s",
				 sqlite3_errmsg(c->db));
			return NULL;
		}
	}
	return c->stmt[id];
}

static int fail(struct conn *c, sqlite3_stmt *s)
{
	int rc = sqlite3_extended_errcode(c->db);
	snprintf(c->error, sizeof c->error, "%s", sqlite3_errmsg(c->db));
	if (s) {
		/* bindings left behind would point at the failed call's
		 * (SQLITE_STATIC) data when a later call leaves a parameter
		 * unbound */
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		return STORE_CONFLICT;
	return STORE_ERROR;
}

/* Run a statement with no result rows. */
static int run(struct conn *c, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE)
		return fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

/* Step a statement that reads one row: STORE_OK with the row there,
 * STORE_NOT_FOUND (statement reset) if none, or the error. */
static int step_row(struct conn *c, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		return STORE_OK;
	if (rc != SQLITE_DONE)
		return fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_NOT_FOUND;
}

static char *dup_text(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);
	if (!t)
		return NULL;
	int len = sqlite3_column_bytes(s, col);
	char *out = malloc((size_t)len + 1);
	if (out) {
		memcpy(out, t, (size_t)len);
		out[len] = '\0';
	}
	return out;
}

/* ------------------------------------------------------------ migrations */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Migration files NNN_name.sql in dir, sorted; returns the count (≤ cap)
 * or -1. Names are malloc'd. */
static int list_migrations(const char *dir, char **names, int cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int k = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && k < cap) {
		const char *n = e->d_name;
		size_t len = strlen(n);
		if (len < 8 || n[0] < '0' || n[0] > '9' || n[1] < '0' ||
		    n[1] > '9' || n[2] < '0' || n[2] > '9' || n[3] != '_' ||
		    strcmp(n + len - 4, ".sql") != 0)
			continue;
		names[k++] = strdup(n);
	}
	closedir(d);
	qsort(names, (size_t)k, sizeof *names, cmp_str);
	return k;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static int migrate(struct store *st, sqlite3 *db, const char *dir, char *err,
		   size_t errlen)
{
	char *names[256];
	int count = list_migrations(dir, names, 256);
	if (count < 0) {
		snprintf(err, errlen, "cannot read the schema directory %s: %s",
			 dir, strerror(errno));
		return STORE_ERROR;
	}
	int rc = STORE_OK, known = 0;
	for (int i = 0; i < count; i++) {
		int num = atoi(names[i]);
		if (num != i + 1) {
			snprintf(err, errlen,
				 "schema files must be numbered 001, 002, … "
				 "without gaps; found %s",
				 names[i]);
			rc = STORE_ERROR;
			goto done;
		}
		known = num;
	}
	sqlite3_stmt *s = NULL;
	int have = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		have = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (have > known) {
		snprintf(err, errlen,
			 "the database %s has schema version %d, newer than "
			 "this cubed knows (%d): refusing to open it; use a "
			 "newer cubed",
			 st->path, have, known);
		rc = STORE_SCHEMA;
		goto done;
	}
	st->schema_version = have;
	if (have == known)
		goto done;
	if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)) != STORE_OK)
		goto done;
	for (int i = have; i < known; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		char *sql = read_file(path);
		if (!sql) {
			snprintf(err, errlen, "cannot read %s", path);
			rc = STORE_ERROR;
			break;
		}
		char e2[200];
		rc = exec(db, sql, e2, sizeof e2);
		free(sql);
		if (rc != STORE_OK) {
			snprintf(err, errlen, "migration %s failed: %s",
				 names[i], e2);
			break;
		}
	}
	if (rc == STORE_OK) {
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", known);
		rc = exec(db, pragma, err, errlen);
	}
	if (rc == STORE_OK)
		rc = exec(db, "COMMIT", err, errlen);
	if (rc != STORE_OK) {
		char ignored[64];
		exec(db, "ROLLBACK", ignored, sizeof ignored);
	} else {
		st->schema_version = known;
	}
done:
	for (int i = 0; i < count; i++)
		free(names[i]);
	return rc;
}

/* ----------------------------------------------------------- open/close */

int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen)
{
	struct store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->path = strdup(cfg->path);
	st->durability_full = cfg->durability_full;
	st->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms
						       : 5000;
	pthread_mutex_init(&st->lock, NULL);
	if (pthread_key_create(&st->key, NULL) != 0) {
		snprintf(err, errlen, "cannot create a thread key");
		pthread_mutex_destroy(&st->lock);
		free(st->path);
		free(st);
		return STORE_ERROR;
	}
	int rc = STORE_ERROR;
	sqlite3 *db = connect(st, err, errlen);
	if (db) {
		rc = migrate(st, db, cfg->schema_dir, err, errlen);
		sqlite3_close_v2(db);
	}
	if (rc != STORE_OK) {
		pthread_key_delete(st->key);
		pthread_mutex_destroy(&st->lock);
		free(st->path);
		free(st);
		return rc;
	}
	*out = st;
	return STORE_OK;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	struct conn *c = st->conns;
	while (c) {
		struct conn *next = c->next;
		conn_close(c);
		c = next;
	}
	pthread_key_delete(st->key);
	pthread_mutex_destroy(&st->lock);
	free(st->path);
	free(st);
}

const char *store_last_error(struct store *st)
{
	struct conn *c = pthread_getspecific(st->key);
	return c ? c->error : st->open_error;
}

int store_schema_version(struct store *st)
{
	return st->schema_version;
}

#define CONN_OR_FAIL(c, st)                                                    \
	struct conn *c = conn_get(st);                                         \
	if (!c)                                                                \
		return STORE_ERROR

static int simple(struct store *st, enum stmt_id id)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, id);
	if (!s)
		return STORE_ERROR;
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(c, s);
	sqlite3_reset(s);
	return STORE_OK;
}

int store_ping(struct store *st)
{
	return simple(st, S_PING);
}

int store_begin(struct store *st)
{
	return simple(st, S_BEGIN);
}

int store_commit(struct store *st)
{
	return simple(st, S_COMMIT);
}

int store_rollback(struct store *st)
{
	return simple(st, S_ROLLBACK);
}

/* -------------------------------------------------------------- sessions */

void store_session_free(struct store_session *s)
{
	free(s->state);
	free(s->initial);
	free(s->title);
	s->state = s->initial = s->title = NULL;
}

void store_event_free(struct store_event *e)
{
	free(e->moves);
	free(e->actor);
	free(e->snapshot);
	e->moves = e->actor = e->snapshot = NULL;
}

void store_solve_free(struct store_solve *s)
{
	free(s->solution);
	s->solution = NULL;
}

static int insert_event(struct conn *c, const char *id,
			const struct store_event *e)
{
	sqlite3_stmt *s = stmt(c, S_INSERT_EVENT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, e->version);
	sqlite3_bind_text(s, 3, e->type, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, e->moves ? e->moves : "", -1, SQLITE_STATIC);
	if (e->actor)
		sqlite3_bind_text(s, 5, e->actor, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_int64(s, 6, e->created_at);
	sqlite3_bind_int64(s, 7, e->ref);
	sqlite3_bind_int64(s, 8, e->link);
	if (e->snapshot)
		sqlite3_bind_text(s, 9, e->snapshot, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 9);
	return run(c, s);
}

int store_create_session(struct store *st, const struct store_session *ss,
			 const char *actor)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_INSERT_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, ss->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, ss->size);
	sqlite3_bind_int64(s, 3, ss->created_at);
	sqlite3_bind_text(s, 4, ss->state, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 5, ss->token_hash, STORE_HASH_LEN, SQLITE_STATIC);
	if (ss->title)
		sqlite3_bind_text(s, 6, ss->title, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 6);
	sqlite3_bind_text(s, 7, ss->is_private ? "private" : "public", -1,
			  SQLITE_STATIC);
	int rc = run(c, s);
	if (rc != STORE_OK)
		return rc;
	struct store_event e = {
		.version = 0, .type = "create", .moves = "",
		.actor = (char *)actor, .created_at = ss->created_at,
		.snapshot = ss->state,
	};
	return insert_event(c, ss->id, &e);
}

int store_get_session(struct store *st, const char *id, int with_initial,
		      struct store_session *out)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_GET_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, with_initial ? 1 : 0);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = sqlite3_column_int(s, 0);
	out->created_at = sqlite3_column_int64(s, 1);
	out->updated_at = sqlite3_column_int64(s, 2);
	out->version = sqlite3_column_int64(s, 3);
	out->undo_top = sqlite3_column_int64(s, 4);
	out->redo_top = sqlite3_column_int64(s, 5);
	out->state = dup_text(s, 6);
	const void *h = sqlite3_column_blob(s, 7);
	if (h && sqlite3_column_bytes(s, 7) == STORE_HASH_LEN)
		memcpy(out->token_hash, h, STORE_HASH_LEN);
	out->title = dup_text(s, 8);
	const unsigned char *vis = sqlite3_column_text(s, 9);
	out->is_private = vis && strcmp((const char *)vis, "private") == 0;
	out->initial = with_initial ? dup_text(s, 10) : NULL;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (!out->state || (with_initial && !out->initial)) {
		store_session_free(out);
		snprintf(c->error, sizeof c->error, "out of memory");
		return STORE_ERROR;
	}
	return STORE_OK;
}

/* A write's event goes into its session's pending text (evlog.h) rather
 * than an events row: the write then changes one row, which it rewrites
 * anyway, instead of two, and a commit over many sessions no longer
 * dirties one events leaf per session. An event that keeps a snapshot
 * (every SESSIONS_SNAPSHOT_EVERY-th version, resets) first moves the
 * pending text as it is into an event_blocks row (one statement, nothing
 * parsed) and is itself an events row; so is an event too big for the
 * pending text. Every version is then in exactly one of an events row, a
 * block, or the pending text (schema/004 says which), and snapshots are
 * only ever in rows. Measured on POST moves over 32 sessions: server CPU
 * per write 36-43 µs before, 30-32 µs after. */
#define PENDING_EVENT_MAX 512

/* The session's pending text (NULL if none), malloc'd; *len its length. */
static int get_pending(struct conn *c, const char *id, char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	sqlite3_stmt *s = stmt(c, S_GET_PENDING);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	if (sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*out = dup_text(s, 0);
		*len = (size_t)sqlite3_column_bytes(s, 0);
		if (!*out) {
			snprintf(c->error, sizeof c->error, "out of memory");
			rc = STORE_ERROR;
		}
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc;
}

/* Move the session's pending text (versions up to `last`, the session's
 * version) into an event_blocks row; the caller then clears it. */
static int flush_pending(struct conn *c, const char *id, int64_t last)
{
	sqlite3_stmt *s = stmt(c, S_FLUSH_PENDING);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, last);
	return run(c, s);
}

int store_append_event(struct store *st, const char *id,
		       const struct store_event *e, const char *state,
		       int64_t undo_top, int64_t redo_top)
{
	CONN_OR_FAIL(c, st);
	size_t len = 0;
	char *rec = NULL;
	int rc = STORE_OK;
	if (!e->snapshot) {
		rec = evlog_encode(e, &len);
		if (!rec) {
			snprintf(c->error, sizeof c->error, "out of memory");
			return STORE_ERROR;
		}
	}
	if (!rec || len > PENDING_EVENT_MAX) {
		free(rec);
		rec = NULL;
		if ((rc = flush_pending(c, id, e->version - 1)) != STORE_OK ||
		    (rc = insert_event(c, id, e)) != STORE_OK)
			return rc;
	}
	sqlite3_stmt *s = stmt(c, S_UPDATE_SESSION);
	if (!s) {
		free(rec);
		return STORE_ERROR;
	}
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, e->version);
	sqlite3_bind_text(s, 3, state, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, undo_top);
	sqlite3_bind_int64(s, 5, redo_top);
	sqlite3_bind_int64(s, 6, e->created_at);
	if (rec)
		sqlite3_bind_text(s, 7, rec, (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 7);
	rc = run(c, s);
	free(rec);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1) {
		snprintf(c->error, sizeof c->error,
			 "session %s is not at version %lld", id,
			 (long long)(e->version - 1));
		return STORE_CONFLICT;
	}
	return rc;
}

/* Reads that look at both a session's events rows and its pending text
 * run in one read transaction (unless the caller's write transaction is
 * open), so a commit that moves pending events into rows between the two
 * reads cannot hide them. */
static int read_begin(struct conn *c, int *began)
{
	*began = 0;
	if (!sqlite3_get_autocommit(c->db))
		return STORE_OK;
	sqlite3_stmt *s = stmt(c, S_BEGIN_READ);
	if (!s)
		return STORE_ERROR;
	int rc = run(c, s);
	*began = rc == STORE_OK;
	return rc;
}

static void read_end(struct conn *c, int began)
{
	if (!began)
		return;
	sqlite3_stmt *s = stmt(c, S_COMMIT);
	if (s && run(c, s) != STORE_OK && (s = stmt(c, S_ROLLBACK)))
		run(c, s);
}

/* Columns version, type, moves, actor, created_at, ref, link[, snapshot]. */
static int read_event(sqlite3_stmt *s, struct store_event *e, int with_snap)
{
	memset(e, 0, sizeof *e);
	e->version = sqlite3_column_int64(s, 0);
	const unsigned char *t = sqlite3_column_text(s, 1);
	snprintf(e->type, sizeof e->type, "%s", t ? (const char *)t : "");
	e->moves = dup_text(s, 2);
	e->actor = dup_text(s, 3);
	e->created_at = sqlite3_column_int64(s, 4);
	e->ref = sqlite3_column_int64(s, 5);
	e->link = sqlite3_column_int64(s, 6);
	if (with_snap)
		e->snapshot = dup_text(s, 7);
	return e->moves ? STORE_OK : STORE_ERROR;
}

/* The events of an evlog text with version > after, appended to out[*k]
 * while *k < cap. */
static int take_events(struct conn *c, const char *id, const char *text,
		       size_t len, int64_t after, struct store_event *out,
		       int *k, int cap)
{
	const char *p = text, *end = text + len;
	int got = 1;
	while (*k < cap && (got = evlog_next(&p, end, &out[*k])) == 1) {
		if (out[*k].version > after)
			(*k)++;
		else
			store_event_free(&out[*k]);
	}
	if (got >= 0)
		return STORE_OK;
	snprintf(c->error, sizeof c->error,
		 "the stored events of session %s are malformed (or memory "
		 "ran out reading them)",
		 id);
	return STORE_ERROR;
}

/* Events with version > after from the session's blocks and then its
 * pending text (the order of their versions), at most cap: the count, or
 * an error (nothing left in out). */
static int text_events_after(struct conn *c, const char *id, int64_t after,
			     struct store_event *out, int cap)
{
	int k = 0, rc = STORE_OK;
	sqlite3_stmt *s = stmt(c, S_BLOCKS_AFTER);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int(s, 3, cap);
	int step = SQLITE_DONE;
	while (rc == STORE_OK && k < cap &&
	       (step = sqlite3_step(s)) == SQLITE_ROW)
		rc = take_events(c, id,
				 (const char *)sqlite3_column_text(s, 0),
				 (size_t)sqlite3_column_bytes(s, 0), after, out,
				 &k, cap);
	if (rc == STORE_OK && k < cap && step != SQLITE_DONE)
		rc = fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc == STORE_OK && k < cap) {
		char *text;
		size_t len;
		rc = get_pending(c, id, &text, &len);
		if (rc == STORE_NOT_FOUND)
			rc = STORE_OK;
		if (rc == STORE_OK && text)
			rc = take_events(c, id, text, len, after, out, &k, cap);
		free(text);
	}
	if (rc != STORE_OK) {
		for (int i = 0; i < k; i++)
			store_event_free(&out[i]);
		return rc;
	}
	return k;
}

static int get_event_row(struct conn *c, const char *id, int64_t version,
			 struct store_event *out)
{
	sqlite3_stmt *s = stmt(c, S_GET_EVENT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, version);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	rc = read_event(s, out, 1);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != STORE_OK)
		store_event_free(out);
	return rc;
}

int store_get_event(struct store *st, const char *id, int64_t version,
		    struct store_event *out)
{
	CONN_OR_FAIL(c, st);
	int began, rc = read_begin(c, &began);
	if (rc != STORE_OK)
		return rc;
	rc = get_event_row(c, id, version, out);
	if (rc == STORE_NOT_FOUND && version > 0) {
		/* the first event after version - 1 outside the rows */
		int k = text_events_after(c, id, version - 1, out, 1);
		if (k < 0)
			rc = k;
		else if (k == 1 && out->version == version)
			rc = STORE_OK;
		else if (k == 1)
			store_event_free(out);
	}
	read_end(c, began);
	return rc;
}

static int by_version(const void *a, const void *b)
{
	const struct store_event *x = a, *y = b;
	return (x->version > y->version) - (x->version < y->version);
}

int store_history(struct store *st, const char *id, int64_t after,
		  struct store_event *out, int cap)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_HISTORY);
	if (!s || cap <= 0)
		return s ? 0 : STORE_ERROR;
	/* the first cap events of each kind of place, then the first cap of
	 * them all: rows and blocks interleave (a snapshot row after each
	 * block) */
	struct store_event *more = malloc((size_t)cap * sizeof *more);
	if (!more) {
		snprintf(c->error, sizeof c->error, "out of memory");
		return STORE_ERROR;
	}
	int began, rc = read_begin(c, &began);
	if (rc != STORE_OK) {
		free(more);
		return rc;
	}
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int(s, 3, cap);
	int k = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && k < cap) {
		if (read_event(s, &out[k], 0) != STORE_OK) {
			store_event_free(&out[k]);
			rc = SQLITE_NOMEM;
			break;
		}
		k++;
	}
	int m = 0;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		m = fail(c, s);
	} else {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		m = text_events_after(c, id, after, more, cap);
	}
	read_end(c, began);
	if (m < 0) {
		for (int i = 0; i < k; i++)
			store_event_free(&out[i]);
		free(more);
		return m;
	}
	/* both are in version order; keep the first cap of the two */
	int total = k + m;
	struct store_event *all = malloc((size_t)(total ? total : 1) *
					 sizeof *all);
	if (!all) {
		for (int i = 0; i < k; i++)
			store_event_free(&out[i]);
		for (int i = 0; i < m; i++)
			store_event_free(&more[i]);
		free(more);
		snprintf(c->error, sizeof c->error, "out of memory");
		return STORE_ERROR;
	}
	memcpy(all, out, (size_t)k * sizeof *all);
	memcpy(all + k, more, (size_t)m * sizeof *all);
	free(more);
	qsort(all, (size_t)total, sizeof *all, by_version);
	int n = total < cap ? total : cap;
	memcpy(out, all, (size_t)n * sizeof *all);
	for (int i = n; i < total; i++)
		store_event_free(&all[i]);
	free(all);
	return n;
}

int store_snapshot_at(struct store *st, const char *id, int64_t version,
		      int64_t *snap_version, char **snapshot)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_SNAPSHOT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, version);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	*snap_version = sqlite3_column_int64(s, 0);
	*snapshot = dup_text(s, 1);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return *snapshot ? STORE_OK : STORE_ERROR;
}

int store_delete_session(struct store *st, const char *id)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_DELETE_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		return STORE_NOT_FOUND;
	return rc;
}

int store_count_sessions(struct store *st, int64_t *count)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_COUNT_SESSIONS);
	if (!s)
		return STORE_ERROR;
	if (sqlite3_step(s) != SQLITE_ROW)
		return fail(c, s);
	*count = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return STORE_OK;
}

int store_add_solve(struct store *st, const char *session_id,
		    const struct store_solve *sv, int64_t *out_id)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_INSERT_SOLVE);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, sv->version);
	sqlite3_bind_text(s, 3, sv->method, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, sv->solution, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 5, sv->length);
	sqlite3_bind_double(s, 6, sv->elapsed_ms);
	sqlite3_bind_int64(s, 7, sv->created_at);
	int rc = run(c, s);
	if (rc == STORE_OK && out_id)
		*out_id = sqlite3_last_insert_rowid(c->db);
	return rc;
}

int store_list_solves(struct store *st, const char *session_id, int64_t after,
		      struct store_solve *out, int cap)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_LIST_SOLVES);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int(s, 3, cap);
	int k = 0, rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && k < cap) {
		struct store_solve *v = &out[k];
		memset(v, 0, sizeof *v);
		v->id = sqlite3_column_int64(s, 0);
		v->version = sqlite3_column_int64(s, 1);
		const unsigned char *m = sqlite3_column_text(s, 2);
		snprintf(v->method, sizeof v->method, "%s",
			 m ? (const char *)m : "");
		v->solution = dup_text(s, 3);
		v->length = sqlite3_column_int(s, 4);
		v->elapsed_ms = sqlite3_column_double(s, 5);
		v->created_at = sqlite3_column_int64(s, 6);
		if (!v->solution) {
			rc = SQLITE_NOMEM;
			break;
		}
		k++;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		for (int i = 0; i < k; i++)
			store_solve_free(&out[i]);
		return fail(c, s);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return k;
}

/* ----------------------------------------------------------------- tokens */

/* Columns id, role, name, created_at, revoked_at. */
static void read_token(sqlite3_stmt *s, struct store_token *t)
{
	memset(t, 0, sizeof *t);
	t->id = sqlite3_column_int64(s, 0);
	const unsigned char *role = sqlite3_column_text(s, 1);
	const unsigned char *name = sqlite3_column_text(s, 2);
	snprintf(t->role, sizeof t->role, "%s", role ? (const char *)role : "");
	snprintf(t->name, sizeof t->name, "%s", name ? (const char *)name : "");
	t->created_at = sqlite3_column_int64(s, 3);
	t->revoked_at = sqlite3_column_int64(s, 4);
}

int store_add_token(struct store *st, const char *session_id,
		    struct store_token *t, const unsigned char *hash)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_INSERT_TOKEN);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, t->role, -1, SQLITE_STATIC);
	if (t->name[0])
		sqlite3_bind_text(s, 3, t->name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 3);
	sqlite3_bind_blob(s, 4, hash, STORE_HASH_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, t->created_at);
	if (sqlite3_step(s) != SQLITE_ROW)
		return fail(c, s);
	t->id = sqlite3_column_int64(s, 0);
	const unsigned char *name = sqlite3_column_text(s, 1);
	snprintf(t->name, sizeof t->name, "%s", name ? (const char *)name : "");
	if (sqlite3_step(s) != SQLITE_DONE)
		return fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

int store_find_token(struct store *st, const char *session_id,
		     const unsigned char *hash, struct store_token *out)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_FIND_TOKEN);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 2, hash, STORE_HASH_LEN, SQLITE_STATIC);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	read_token(s, out);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

int store_list_tokens(struct store *st, const char *session_id,
		      struct store_token *out, int cap)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_LIST_TOKENS);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, cap);
	int k = 0, rc;
	while (k < cap && (rc = sqlite3_step(s)) == SQLITE_ROW)
		read_token(s, &out[k++]);
	if (k < cap && rc != SQLITE_DONE)
		return fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return k;
}

int store_revoke_token(struct store *st, const char *session_id, int64_t id,
		       int64_t when)
{
	CONN_OR_FAIL(c, st);
	sqlite3_stmt *s = stmt(c, S_REVOKE_TOKEN);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, id);
	sqlite3_bind_int64(s, 3, when);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		return STORE_NOT_FOUND;
	return rc;
}
