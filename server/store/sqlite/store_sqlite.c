/* store_sqlite.c — the SQLite engine behind store.h (store_engine.h).
 *
 * Every thread gets its own connection on first use (a pthread key), with
 * WAL, synchronous=NORMAL (FULL with --durability full), busy_timeout and
 * foreign keys on, and its statements prepared once and reused. Migrations
 * run at open (store_sqlite_migrate.c). All values go through bound
 * parameters.
 *
 * A write is two statements: the session row moves on from version v-1
 * to v only if it is still at v-1 (`WHERE version = v - 1`: the check is
 * in the database, so another process writing the same file is caught),
 * then the event row goes in. store_begin is BEGIN IMMEDIATE, which takes
 * the file's write lock: within a transaction nobody else commits. With
 * cfg->shared the engine reports STORE_CAP_SHARED, so the session layer
 * validates its cache against other processes' writes.
 */
#include "store_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_sqlite_migrate.h"

/* Every statement, prepared once per connection. */
#define STORE_STATEMENTS(X)                                                    \
	X(S_BEGIN, "BEGIN IMMEDIATE")                                          \
	X(S_COMMIT, "COMMIT")                                                  \
	X(S_ROLLBACK, "ROLLBACK")                                              \
	X(S_PING, "SELECT 1")                                                  \
	X(S_INSERT_SESSION,                                                    \
	  "INSERT INTO sessions (id, size, created_at, updated_at, version, "  \
	  "token_hash, title, visibility, scramble) "                          \
	  "VALUES (?1, ?2, ?3, ?3, 0, ?4, ?5, ?6, ?7)")                        \
	X(S_INSERT_EVENT,                                                      \
	  "INSERT INTO events (session_id, version, kind, moves, actor, "      \
	  "created_at, ref, link) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")    \
	X(S_GET_SESSION,                                                       \
	  "SELECT size, created_at, updated_at, version, undo_top, redo_top, " \
	  "token_hash, title, visibility, scramble FROM sessions "             \
	  "WHERE id = ?1")                                                     \
	X(S_SESSION_VERSION, "SELECT version FROM sessions WHERE id = ?1")     \
	X(S_ADVANCE,                                                           \
	  "UPDATE sessions SET version = ?2, undo_top = ?3, redo_top = ?4, "   \
	  "updated_at = ?5 WHERE id = ?1 AND version = ?2 - 1")                \
	X(S_INSERT_SNAPSHOT,                                                   \
	  "INSERT INTO snapshots (session_id, version, state) "                \
	  "VALUES (?1, ?2, ?3)")                                               \
	X(S_SNAPSHOT_AT,                                                       \
	  "SELECT version, state FROM snapshots WHERE session_id = ?1 AND "    \
	  "version <= ?2 ORDER BY version DESC LIMIT 1")                       \
	X(S_LAST_RESET,                                                        \
	  "SELECT max(version) FROM events WHERE session_id = ?1 AND "         \
	  "version <= ?2 AND kind = 'reset'")                                  \
	X(S_GET_EVENT,                                                         \
	  "SELECT version, kind, moves, actor, created_at, ref, link "         \
	  "FROM events WHERE session_id = ?1 AND version = ?2")                \
	X(S_EVENTS_AFTER,                                                      \
	  "SELECT version, kind, moves, actor, created_at, ref, link "         \
	  "FROM events WHERE session_id = ?1 AND version > ?2 "                \
	  "ORDER BY version LIMIT ?3")                                         \
	X(S_DELETE_SESSION, "DELETE FROM sessions WHERE id = ?1")              \
	X(S_COUNT_SESSIONS, "SELECT count(*) FROM sessions")                   \
	X(S_USED_BYTES,                                                        \
	  "SELECT (p.page_count - f.freelist_count) * s.page_size FROM "       \
	  "pragma_page_count() p, pragma_freelist_count() f, "                 \
	  "pragma_page_size() s")                                              \
	X(S_INSERT_SOLVE,                                                      \
	  "INSERT INTO solves (session_id, version, method, solution, length, " \
	  "elapsed_ms, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")       \
	X(S_LIST_SOLVES,                                                       \
	  "SELECT id, version, method, solution, length, elapsed_ms, "         \
	  "created_at FROM solves WHERE session_id = ?1 AND id > ?2 "          \
	  "ORDER BY id LIMIT ?3")                                             \
	X(S_RACE_ADD,                                                          \
	  "INSERT INTO races (id, size, title, token_hash, created_at) "       \
	  "VALUES (?1, ?2, ?3, ?4, ?5)")                                       \
	X(S_RACE_GET,                                                          \
	  "SELECT size, title, token_hash, created_at, scramble, go_at "       \
	  "FROM races WHERE id = ?1")                                          \
	X(S_RACE_PLAYERS,                                                      \
	  "SELECT seat, name, session_id, joined_at FROM race_players "        \
	  "WHERE race_id = ?1 ORDER BY seat LIMIT ?2")                         \
	X(S_RACE_JOIN,                                                         \
	  "INSERT INTO race_players (race_id, seat, name, session_id, "        \
	  "joined_at) SELECT ?1, coalesce(max(seat), 0) + 1, ?2, ?3, ?4 "      \
	  "FROM race_players WHERE race_id = ?1 RETURNING seat")               \
	X(S_RACE_START,                                                        \
	  "UPDATE races SET scramble = ?2, go_at = ?3 WHERE id = ?1 AND "      \
	  "go_at IS NULL")                                                     \
	X(S_INSERT_TIMED,                                                      \
	  "INSERT INTO timed_solves (session_id, version, actor, scramble, "   \
	  "inspect_at) VALUES (?1, ?2, ?3, ?4, ?5)")                           \
	X(S_LIST_TIMED,                                                        \
	  "SELECT id, version, actor, scramble, inspect_at FROM timed_solves " \
	  "WHERE session_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3")            \
	X(S_LIST_TIMED_NEWEST,                                                 \
	  "SELECT * FROM (SELECT id, version, actor, scramble, inspect_at "    \
	  "FROM timed_solves WHERE session_id = ?1 ORDER BY id DESC LIMIT ?3)" \
	  " WHERE ?2 < 0 ORDER BY id")                                         \
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
	  "id = ?2 AND revoked_at IS NULL")                                    \
	X(S_IDEM_TAKE,                                                         \
	  "INSERT INTO idempotency (scope, print, created_at) "                \
	  "VALUES (?1, ?2, ?3) ON CONFLICT (scope) DO UPDATE SET "             \
	  "print = excluded.print, created_at = excluded.created_at, "         \
	  "result = NULL WHERE idempotency.created_at < ?4 OR "                \
	  "idempotency.result IS NULL")                                        \
	X(S_IDEM_GET,                                                          \
	  "SELECT print, result, created_at FROM idempotency WHERE scope = ?1") \
	X(S_IDEM_KEEP, "UPDATE idempotency SET result = ?2 WHERE scope = ?1")  \
	X(S_IDEM_DROP,                                                         \
	  "DELETE FROM idempotency WHERE scope = ?1 AND result IS NULL")       \
	X(S_IDEM_EXPIRE, "DELETE FROM idempotency WHERE created_at < ?1")     \
	X(S_TICKET_KEY_PUT,                                                    \
	  "INSERT OR IGNORE INTO ticket_key (id, key) VALUES (1, ?1)")         \
	X(S_TICKET_KEY_GET, "SELECT key FROM ticket_key WHERE id = 1")

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

struct sq {
	char *path;
	int durability_full;
	int busy_timeout_ms;
	int schema_version;
	pthread_key_t key;
	pthread_mutex_t lock; /* guards conns */
	struct conn *conns;
	char open_error[256]; /* for threads whose connection failed */
	/* the checkpointer: its own thread and connection (see wal_hook) */
	pthread_t ckpt;
	pthread_mutex_t ck_lock;
	pthread_cond_t ck_wake;
	int ck_due, ck_stop, ck_started;
	uint64_t checkpoints;
};

/* WAL pages after which a checkpoint is due (40 MB), and after which the
 * committing connection does one itself (the checkpointer fell behind) */
#define CHECKPOINT_PAGES 10000
#define CHECKPOINT_INLINE_PAGES (4 * CHECKPOINT_PAGES)

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

/* After each commit: the WAL has pages frames. A checkpoint (copying
 * them into the database file, with an fdatasync) used to run right there,
 * on the writer, inside a write's round trip: SQLite's autocheckpoint. It
 * is handed to the checkpointer thread instead, and done here only if that
 * thread fell far behind, so the WAL stays bounded. 10,000 pages: writes
 * spread over many sessions rewrite the same pages batch after batch, and
 * a checkpoint copies each page once however often it changed (at 1,000,
 * POST moves over 32 sessions ran ~8% slower). */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct sq *st = arg;
	if (pages >= CHECKPOINT_INLINE_PAGES) {
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
	} else if (pages >= CHECKPOINT_PAGES) {
		pthread_mutex_lock(&st->ck_lock);
		st->ck_due = 1;
		pthread_cond_signal(&st->ck_wake);
		pthread_mutex_unlock(&st->ck_lock);
	}
	return SQLITE_OK;
}

/* A configured connection, or NULL with err set. */
static sqlite3 *connect(struct sq *st, char *err, size_t errlen)
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
	/* busy_timeout first: journal_mode=WAL takes a lock, and without a
	 * busy handler a connection opened while another thread's connection
	 * held one (the checkpointer's, a writer's) failed at once with
	 * "database is locked" */
	char pragmas[256];
	snprintf(pragmas, sizeof pragmas,
		 "PRAGMA busy_timeout=%d; PRAGMA journal_mode=WAL; "
		 "PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;",
		 st->busy_timeout_ms, st->durability_full ? "FULL" : "NORMAL");
	if (exec(db, pragmas, err, errlen) != STORE_OK) {
		sqlite3_close_v2(db);
		return NULL;
	}
	sqlite3_wal_hook(db, wal_hook, st);
	return db;
}

/* This thread's connection, created on first use; NULL if that failed
 * (the reason is in open_error). */
static struct conn *conn_get(struct sq *st)
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

/* The store.h fault an SQLite result code is, or STORE_ERROR. */
static int fault_of(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return STORE_FULL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return STORE_BUSY;
	case SQLITE_READONLY:
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		/* SQLITE_IOERR_NOMEM is memory, not storage */
		return rc == SQLITE_IOERR_NOMEM ? STORE_ERROR
						: STORE_UNWRITABLE;
	}
	return STORE_ERROR;
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
	return fault_of(rc);
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


#define CONN_OR_FAIL(c, impl)                                                  \
	struct conn *c = conn_get(impl);                                       \
	if (!c)                                                                \
		return STORE_ERROR

static void nomem(struct conn *c)
{
	snprintf(c->error, sizeof c->error, "out of memory");
}

/* ----------------------------------------------------------- open/close */

static int sq_accepts(const char *path)
{
	return strstr(path, "://") == NULL;
}

static void *checkpointer(void *arg)
{
	struct sq *st = arg;
	char err[256];
	sqlite3 *db = connect(st, err, sizeof err);
	pthread_mutex_lock(&st->ck_lock);
	while (!st->ck_stop) {
		if (!st->ck_due) {
			pthread_cond_wait(&st->ck_wake, &st->ck_lock);
			continue;
		}
		st->ck_due = 0;
		pthread_mutex_unlock(&st->ck_lock);
		/* PASSIVE: never waits for readers or the writer; what it
		 * cannot copy yet, the next one will */
		if (db)
			sqlite3_wal_checkpoint_v2(db, NULL,
						  SQLITE_CHECKPOINT_PASSIVE,
						  NULL, NULL);
		pthread_mutex_lock(&st->ck_lock);
		st->checkpoints++;
	}
	pthread_mutex_unlock(&st->ck_lock);
	sqlite3_close_v2(db);
	return NULL;
}

static void sq_free(struct sq *st)
{
	if (st->ck_started) {
		pthread_mutex_lock(&st->ck_lock);
		st->ck_stop = 1;
		pthread_cond_signal(&st->ck_wake);
		pthread_mutex_unlock(&st->ck_lock);
		pthread_join(st->ckpt, NULL);
	}
	pthread_mutex_destroy(&st->ck_lock);
	pthread_cond_destroy(&st->ck_wake);
	pthread_key_delete(st->key);
	pthread_mutex_destroy(&st->lock);
	free(st->path);
	free(st);
}

static int sq_open(const struct store_config *cfg, void **impl,
		   unsigned *caps, char *err, size_t errlen)
{
	struct sq *st = calloc(1, sizeof *st);
	if (!st || !(st->path = strdup(cfg->path))) {
		free(st);
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->durability_full = cfg->durability_full;
	st->busy_timeout_ms = cfg->busy_timeout_ms > 0 ? cfg->busy_timeout_ms
						       : 5000;
	pthread_mutex_init(&st->lock, NULL);
	pthread_mutex_init(&st->ck_lock, NULL);
	pthread_cond_init(&st->ck_wake, NULL);
	if (pthread_key_create(&st->key, NULL) != 0) {
		snprintf(err, errlen, "cannot create a thread key");
		pthread_mutex_destroy(&st->lock);
		pthread_mutex_destroy(&st->ck_lock);
		pthread_cond_destroy(&st->ck_wake);
		free(st->path);
		free(st);
		return STORE_ERROR;
	}
	int rc = STORE_ERROR;
	sqlite3 *db = connect(st, err, errlen);
	if (db) {
		rc = sqlite_migrate(db, st->path, cfg->schema_dir,
				    &st->schema_version, err, errlen);
		sqlite3_close_v2(db);
	}
	if (rc == STORE_OK &&
	    pthread_create(&st->ckpt, NULL, checkpointer, st) != 0) {
		snprintf(err, errlen, "cannot start the checkpointer thread");
		rc = STORE_ERROR;
	} else if (rc == STORE_OK) {
		st->ck_started = 1;
	}
	if (rc != STORE_OK) {
		sq_free(st);
		return rc;
	}
	*caps = (cfg->shared ? STORE_CAP_SHARED : 0) | STORE_CAP_IDEM;
	*impl = st;
	return STORE_OK;
}

static void sq_close(void *impl)
{
	struct sq *st = impl;
	struct conn *c = st->conns;
	while (c) {
		struct conn *next = c->next;
		conn_close(c);
		c = next;
	}
	sq_free(st);
}

static const char *sq_last_error(void *impl)
{
	struct sq *st = impl;
	struct conn *c = pthread_getspecific(st->key);
	return c ? c->error : st->open_error;
}

static int sq_schema_version(void *impl)
{
	return ((struct sq *)impl)->schema_version;
}

static int simple(void *impl, enum stmt_id id)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, id);
	if (!s)
		return STORE_ERROR;
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(c, s);
	sqlite3_reset(s);
	return STORE_OK;
}

static int sq_ping(void *impl) { return simple(impl, S_PING); }
static int sq_begin(void *impl) { return simple(impl, S_BEGIN); }
static int sq_commit(void *impl) { return simple(impl, S_COMMIT); }
static int sq_rollback(void *impl) { return simple(impl, S_ROLLBACK); }

static int sq_used_bytes(void *impl, int64_t *bytes)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_USED_BYTES);
	if (!s)
		return STORE_ERROR;
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	*bytes = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return STORE_OK;
}

/* Bytes the write probe puts on the database's file system: a write that
 * fits is likely to fit in the database too (a commit of a few pages). */
#define PROBE_BYTES (256 * 1024)

/* Can a write go through now? The file must be writable (access() sees
 * an immutable file even for root), the write lock free, and the file
 * system must take PROBE_BYTES in a file beside the database, removed at
 * once. No row changes. */
static int sq_probe_write(void *impl)
{
	struct sq *st = impl;
	CONN_OR_FAIL(c, impl);
	if (access(st->path, W_OK) != 0) {
		snprintf(c->error, sizeof c->error, "%s is not writable: %s",
			 st->path, strerror(errno));
		return STORE_UNWRITABLE;
	}
	/* a probe asks, it does not queue for the lock */
	sqlite3_busy_timeout(c->db, 0);
	int rc = simple(impl, S_BEGIN);
	if (rc == STORE_OK)
		simple(impl, S_ROLLBACK);
	sqlite3_busy_timeout(c->db, st->busy_timeout_ms);
	if (rc != STORE_OK)
		return rc;
	size_t n = strlen(st->path) + sizeof "-probe";
	char *probe = malloc(n);
	char *buf = calloc(1, PROBE_BYTES);
	rc = STORE_ERROR;
	if (probe == NULL || buf == NULL) {
		nomem(c);
		goto out;
	}
	snprintf(probe, n, "%s-probe", st->path);
	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t w = fd < 0 ? -1 : write(fd, buf, PROBE_BYTES);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		unlink(probe);
	}
	if (w == PROBE_BYTES) {
		rc = STORE_OK;
	} else {
		if (w >= 0)
			e = ENOSPC; /* a short write: the disk ran out */
		snprintf(c->error, sizeof c->error,
			 "cannot write beside %s: %s", st->path, strerror(e));
		rc = e == ENOSPC || e == EDQUOT ? STORE_FULL : STORE_UNWRITABLE;
	}
out:
	free(probe);
	free(buf);
	return rc;
}

/* -------------------------------------------------------------- sessions */

/* The engine's primitives for sessions and their history (store.c
 * composes the operations of store.h from them): a session row, an
 * event row, a snapshot row, the conditional advance of a session's
 * version, the latest reset and the latest snapshot at or before a
 * version. */
static int sq_insert_event(void *impl, const char *id,
			   const struct store_event *e)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_INSERT_EVENT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, e->version);
	sqlite3_bind_text(s, 3, e->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, e->moves ? e->moves : "", -1, SQLITE_STATIC);
	if (e->actor)
		sqlite3_bind_text(s, 5, e->actor, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_int64(s, 6, e->created_at);
	sqlite3_bind_int64(s, 7, e->ref);
	sqlite3_bind_int64(s, 8, e->link);
	return run(c, s);
}

static int sq_add_snapshot(void *impl, const char *id, int64_t version,
			   const char *state, size_t len)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_INSERT_SNAPSHOT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, version);
	sqlite3_bind_text(s, 3, state, (int)len, SQLITE_STATIC);
	return run(c, s);
}

static int sq_insert_session(void *impl, const struct store_session *ss)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_INSERT_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, ss->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, ss->size);
	sqlite3_bind_int64(s, 3, ss->created_at);
	sqlite3_bind_blob(s, 4, ss->token_hash, STORE_HASH_LEN, SQLITE_STATIC);
	if (ss->title)
		sqlite3_bind_text(s, 5, ss->title, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_text(s, 6, ss->is_private ? "private" : "public", -1,
			  SQLITE_STATIC);
	if (ss->scramble)
		sqlite3_bind_text(s, 7, ss->scramble, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 7);
	return run(c, s);
}

static int sq_get_session(void *impl, const char *id,
			  struct store_session *out)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_GET_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
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
	const void *h = sqlite3_column_blob(s, 6);
	if (h && sqlite3_column_bytes(s, 6) == STORE_HASH_LEN)
		memcpy(out->token_hash, h, STORE_HASH_LEN);
	int untitled = sqlite3_column_type(s, 7) == SQLITE_NULL;
	out->title = dup_text(s, 7);
	const unsigned char *vis = sqlite3_column_text(s, 8);
	out->is_private = vis && strcmp((const char *)vis, "private") == 0;
	int unscrambled = sqlite3_column_type(s, 9) == SQLITE_NULL;
	out->scramble = dup_text(s, 9);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if ((!untitled && !out->title) || (!unscrambled && !out->scramble)) {
		store_session_free(out);
		nomem(c);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int sq_session_version(void *impl, const char *id, int64_t *version)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_SESSION_VERSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	*version = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

static int sq_advance(void *impl, const char *id,
		      const struct store_event *e, int64_t undo_top,
		      int64_t redo_top)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_ADVANCE);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, e->version);
	sqlite3_bind_int64(s, 3, undo_top);
	sqlite3_bind_int64(s, 4, redo_top);
	sqlite3_bind_int64(s, 5, e->created_at);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		rc = STORE_NOT_FOUND;
	return rc;
}

static int sq_snapshot_at(void *impl, const char *id, int64_t at,
			  int64_t *version, char **state, size_t *len)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_SNAPSHOT_AT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, at);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	*version = sqlite3_column_int64(s, 0);
	*state = dup_text(s, 1);
	*len = (size_t)sqlite3_column_bytes(s, 1);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (!*state) {
		nomem(c);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int sq_last_reset(void *impl, const char *id, int64_t at,
			 int64_t *reset)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_LAST_RESET);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, at);
	int rc = step_row(c, s);
	if (rc != STORE_OK) /* an aggregate: always one row */
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	*reset = sqlite3_column_type(s, 0) == SQLITE_NULL
			 ? -1
			 : sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

/* Columns version, kind, moves, actor, created_at, ref, link. */
static int read_event(sqlite3_stmt *s, struct store_event *e)
{
	memset(e, 0, sizeof *e);
	e->version = sqlite3_column_int64(s, 0);
	const unsigned char *t = sqlite3_column_text(s, 1);
	snprintf(e->kind, sizeof e->kind, "%s", t ? (const char *)t : "");
	e->moves = dup_text(s, 2);
	e->actor = dup_text(s, 3);
	e->created_at = sqlite3_column_int64(s, 4);
	e->ref = sqlite3_column_int64(s, 5);
	e->link = sqlite3_column_int64(s, 6);
	if (!e->moves ||
	    (sqlite3_column_type(s, 3) != SQLITE_NULL && !e->actor)) {
		store_event_free(e);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int sq_get_event(void *impl, const char *id, int64_t version,
			struct store_event *out)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_GET_EVENT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, version);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	rc = read_event(s, out);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != STORE_OK)
		nomem(c);
	return rc;
}

static int sq_events_after(void *impl, const char *id, int64_t after,
			   struct store_event *out, int cap)
{
	CONN_OR_FAIL(c, impl);
	if (cap <= 0)
		return 0;
	sqlite3_stmt *s = stmt(c, S_EVENTS_AFTER);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int(s, 3, cap);
	int k = 0, rc;
	while (k < cap && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (read_event(s, &out[k]) != STORE_OK) {
			rc = SQLITE_NOMEM;
			break;
		}
		k++;
	}
	if (k < cap && rc != SQLITE_DONE) {
		for (int i = 0; i < k; i++)
			store_event_free(&out[i]);
		if (rc == SQLITE_NOMEM) {
			sqlite3_reset(s);
			sqlite3_clear_bindings(s);
			nomem(c);
			return STORE_ERROR;
		}
		return fail(c, s);
	}
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return k;
}

static int sq_delete_session(void *impl, const char *id)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_DELETE_SESSION);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		return STORE_NOT_FOUND;
	return rc;
}

static int sq_count_sessions(void *impl, int64_t *count)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_COUNT_SESSIONS);
	if (!s)
		return STORE_ERROR;
	if (sqlite3_step(s) != SQLITE_ROW)
		return fail(c, s);
	*count = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return STORE_OK;
}

/* ---------------------------------------------------------------- solves */

static int sq_add_solve(void *impl, const char *session_id,
		    const struct store_solve *sv, int64_t *out_id)
{
	CONN_OR_FAIL(c, impl);
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

static int sq_list_solves(void *impl, const char *session_id, int64_t after,
		      struct store_solve *out, int cap)
{
	CONN_OR_FAIL(c, impl);
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

/* ----------------------------------------------------------------- races */

static int sq_race_add(void *impl, const struct store_race *r)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_RACE_ADD);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, r->size);
	if (r->title)
		sqlite3_bind_text(s, 3, r->title, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 3);
	sqlite3_bind_blob(s, 4, r->token_hash, STORE_HASH_LEN, SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, r->created_at);
	return run(c, s);
}

static int sq_race_get(void *impl, const char *id, struct store_race *out)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_RACE_GET);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = sqlite3_column_int(s, 0);
	int untitled = sqlite3_column_type(s, 1) == SQLITE_NULL;
	out->title = dup_text(s, 1);
	const void *h = sqlite3_column_blob(s, 2);
	if (h && sqlite3_column_bytes(s, 2) == STORE_HASH_LEN)
		memcpy(out->token_hash, h, STORE_HASH_LEN);
	out->created_at = sqlite3_column_int64(s, 3);
	int unstarted = sqlite3_column_type(s, 4) == SQLITE_NULL;
	out->scramble = dup_text(s, 4);
	out->go_at = sqlite3_column_int64(s, 5);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if ((!untitled && !out->title) || (!unstarted && !out->scramble)) {
		store_race_free(out);
		nomem(c);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int sq_race_players(void *impl, const char *id,
			   struct store_race_player *out, int cap)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_RACE_PLAYERS);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, cap);
	int k = 0, rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && k < cap) {
		struct store_race_player *p = &out[k++];
		memset(p, 0, sizeof *p);
		p->seat = sqlite3_column_int(s, 0);
		const unsigned char *t = sqlite3_column_text(s, 1);
		snprintf(p->name, sizeof p->name, "%s", t ? (const char *)t : "");
		t = sqlite3_column_text(s, 2);
		snprintf(p->session_id, sizeof p->session_id, "%s",
			 t ? (const char *)t : "");
		p->joined_at = sqlite3_column_int64(s, 3);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(c, s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return k;
}

static int sq_race_join(void *impl, const char *id,
			struct store_race_player *p)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_RACE_JOIN);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, p->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, p->session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, p->joined_at);
	int rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	p->seat = sqlite3_column_int(s, 0);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return STORE_OK;
}

static int sq_race_start(void *impl, const char *id, const char *scramble,
			 int64_t go_at)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_RACE_START);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, scramble, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, go_at);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		return STORE_CONFLICT;
	return rc;
}

/* ---------------------------------------------------------- timed solves */

static int sq_add_timed(void *impl, const char *session_id,
			const struct store_timed *t, int64_t *out_id)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_INSERT_TIMED);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, t->version);
	sqlite3_bind_text(s, 3, t->actor, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, t->scramble ? t->scramble : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(s, 5, t->inspect_at);
	int rc = run(c, s);
	if (rc == STORE_OK && out_id)
		*out_id = sqlite3_last_insert_rowid(c->db);
	return rc;
}

static int sq_list_timed(void *impl, const char *session_id, int64_t after,
			 struct store_timed *out, int cap)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, after < 0 ? S_LIST_TIMED_NEWEST : S_LIST_TIMED);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, session_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, after);
	sqlite3_bind_int(s, 3, cap);
	int k = 0, rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && k < cap) {
		struct store_timed *v = &out[k];
		memset(v, 0, sizeof *v);
		v->id = sqlite3_column_int64(s, 0);
		v->version = sqlite3_column_int64(s, 1);
		const unsigned char *a = sqlite3_column_text(s, 2);
		snprintf(v->actor, sizeof v->actor, "%s",
			 a ? (const char *)a : "");
		v->scramble = dup_text(s, 3);
		v->inspect_at = sqlite3_column_int64(s, 4);
		if (!v->scramble) {
			rc = SQLITE_NOMEM;
			break;
		}
		k++;
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		for (int i = 0; i < k; i++)
			store_timed_free(&out[i]);
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

static int sq_add_token(void *impl, const char *session_id,
		    struct store_token *t, const unsigned char *hash)
{
	CONN_OR_FAIL(c, impl);
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

static int sq_find_token(void *impl, const char *session_id,
		     const unsigned char *hash, struct store_token *out)
{
	CONN_OR_FAIL(c, impl);
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

static int sq_list_tokens(void *impl, const char *session_id,
		      struct store_token *out, int cap)
{
	CONN_OR_FAIL(c, impl);
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

static int sq_revoke_token(void *impl, const char *session_id, int64_t id,
		       int64_t when)
{
	CONN_OR_FAIL(c, impl);
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

/* ------------------------------------------------------- idempotency */

static int sq_idem_take(void *impl, const unsigned char *scope,
			const unsigned char *print, int64_t now,
			int64_t ttl_ms, struct store_idem *out)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_IDEM_TAKE);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_blob(s, 1, scope, 32, SQLITE_STATIC);
	sqlite3_bind_blob(s, 2, print, 32, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, now);
	sqlite3_bind_int64(s, 4, now - ttl_ms);
	int rc = run(c, s);
	if (rc != STORE_OK)
		return rc;
	if (sqlite3_changes(c->db) == 1)
		return STORE_OK;
	s = stmt(c, S_IDEM_GET);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_blob(s, 1, scope, 32, SQLITE_STATIC);
	rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	const void *p = sqlite3_column_blob(s, 0);
	if (p && sqlite3_column_bytes(s, 0) == 32)
		memcpy(out->print, p, 32);
	out->result = dup_text(s, 1);
	out->created_at = sqlite3_column_int64(s, 2);
	int missing = sqlite3_column_type(s, 1) != SQLITE_NULL && !out->result;
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (missing) {
		nomem(c);
		return STORE_ERROR;
	}
	return STORE_CONFLICT;
}

static int sq_idem_keep(void *impl, const unsigned char *scope,
			const char *result)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_IDEM_KEEP);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_blob(s, 1, scope, 32, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, result, -1, SQLITE_STATIC);
	int rc = run(c, s);
	if (rc == STORE_OK && sqlite3_changes(c->db) != 1)
		return STORE_NOT_FOUND;
	return rc;
}

static int sq_idem_drop(void *impl, const unsigned char *scope)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_IDEM_DROP);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_blob(s, 1, scope, 32, SQLITE_STATIC);
	return run(c, s);
}

static int sq_idem_expire(void *impl, int64_t before)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_IDEM_EXPIRE);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, before);
	return run(c, s);
}

static int sq_ticket_key(void *impl, const unsigned char *candidate,
			 unsigned char *key)
{
	CONN_OR_FAIL(c, impl);
	sqlite3_stmt *s = stmt(c, S_TICKET_KEY_PUT);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_blob(s, 1, candidate, STORE_TICKET_KEY_LEN,
			  SQLITE_STATIC);
	int rc = run(c, s);
	if (rc != STORE_OK)
		return rc;
	s = stmt(c, S_TICKET_KEY_GET);
	if (!s)
		return STORE_ERROR;
	rc = step_row(c, s);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	const void *p = sqlite3_column_blob(s, 0);
	int ok = p && sqlite3_column_bytes(s, 0) == STORE_TICKET_KEY_LEN;
	if (ok)
		memcpy(key, p, STORE_TICKET_KEY_LEN);
	sqlite3_reset(s);
	return ok ? STORE_OK : STORE_ERROR;
}

const struct store_engine store_sqlite_engine = {
	.name = "sqlite",
	.accepts = sq_accepts,
	.open = sq_open,
	.close = sq_close,
	.last_error = sq_last_error,
	.schema_version = sq_schema_version,
	.ping = sq_ping,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.insert_session = sq_insert_session,
	.insert_event = sq_insert_event,
	.get_session = sq_get_session,
	.session_version = sq_session_version,
	.advance = sq_advance,
	.add_snapshot = sq_add_snapshot,
	.last_reset = sq_last_reset,
	.snapshot_at = sq_snapshot_at,
	.get_event = sq_get_event,
	.events_after = sq_events_after,
	.delete_session = sq_delete_session,
	.count_sessions = sq_count_sessions,
	.add_solve = sq_add_solve,
	.list_solves = sq_list_solves,
	.race_add = sq_race_add,
	.race_get = sq_race_get,
	.race_players = sq_race_players,
	.race_join = sq_race_join,
	.race_start = sq_race_start,
	.add_timed = sq_add_timed,
	.list_timed = sq_list_timed,
	.add_token = sq_add_token,
	.find_token = sq_find_token,
	.list_tokens = sq_list_tokens,
	.revoke_token = sq_revoke_token,
	.probe_write = sq_probe_write,
	.used_bytes = sq_used_bytes,
	.idem_take = sq_idem_take,
	.idem_keep = sq_idem_keep,
	.idem_drop = sq_idem_drop,
	.idem_expire = sq_idem_expire,
	.ticket_key = sq_ticket_key,
};
