/* store_pg.c — the PostgreSQL engine behind store.h (store_engine.h),
 * through libpq, for `--db postgres://…` (or postgresql://…): several cubed
 * nodes sharing one database.
 *
 * Connections: a pool of at most --db-pool connections (PG_POOL, 8, by
 * default), opened on demand.
 * A call takes an idle one for the length of the call and gives it back;
 * a write transaction (store_begin … store_commit/rollback) keeps its
 * connection in the calling thread (a pthread key) until it ends, so the
 * writer's statements all run in its transaction while readers use the
 * others. A caller that finds every connection busy waits for one. Each
 * connection prepares a statement the first time it runs it (PQprepare),
 * then only executes it; all values are bound parameters.
 *
 * Versions: store_append_event moves the session row from v-1 to v with
 * `UPDATE … WHERE version = v - 1`. Under READ COMMITTED an UPDATE that
 * meets a row another node's open transaction changed waits for it, then
 * re-reads the row: 0 rows means another node wrote v first
 * (STORE_CONFLICT, nothing written), and once the update succeeded this
 * transaction holds the row until it commits. So two nodes never both
 * write one version and versions stay dense. Inserts that may meet an
 * existing key (a session id, a token name) use ON CONFLICT DO NOTHING: in
 * PostgreSQL a failed statement would abort the whole transaction (the
 * writer's batch), where SQLite undoes just that statement.
 *
 * Round trips: the writer's batch (sessions_writer.c) locks its sessions
 * in one statement, which also returns their versions (struct locked:
 * while the transaction holds a row, its version is known here without
 * asking). Its appends are deferred (store_defer): each is checked
 * against the locked version at once (a stale one is a conflict with no
 * round trip) and kept; all of them then go as one statement (flush)
 * before the transaction's next statement that could see them or its
 * COMMIT. So a batch of moves costs BEGIN, the lock, the flush and the
 * COMMIT, whatever its size, where it cost three round trips a write
 * (version check, advance, event). Outside deferral an append is still
 * one statement (S_APPEND: advance and event together).
 *
 * Faults: every wait has a deadline of ours (pg__deadline: --db-timeout
 * and a quarter): statements go out with PQsend* and their answers are
 * awaited with poll (store_pg_ready.c), so a frozen server costs a call
 * that long, never the length of the freeze. A connection that breaks or
 * does not answer in time fails the call with STORE_UNAVAILABLE and is
 * dropped; its slot connects anew at its next use. Each such loss bumps
 * the pool's generation, and an idle connection of an older generation
 * is checked (an empty query) before use, as is, for free, any idle
 * connection with bytes waiting (a restart's goodbye): a database
 * restart costs no request a 503. A read that met a dead connection runs
 * once more on another; a write never does. A commit whose answer was
 * lost is STORE_UNKNOWN: it may have committed (a retry with the key
 * finds out).
 *
 * Start: a database that does not answer, is starting up or has no
 * connection slot free does not stop the node (it opens not ready and
 * gets ready on a later call or the listener's retry: pg__make_ready,
 * store_pg_ready.c); one that refuses us (authentication, no such
 * database, TLS required but not offered, a bad option) or has a newer
 * schema does.
 *
 * Live events: schema/pg's triggers NOTIFY cubed_events with each event
 * row as JSON (or '<id>:<version>' when it is too big for a payload, and
 * '<id>:-1' for a deletion), sent at commit; store_pg_listen.c hands them
 * to store_listen's callback. The engine always reports
 * STORE_CAP_SHARED. */
#include "store_engine.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "store_pg_listen.h"
#include "store_pg_ready.h"
#include "store_pg_migrate.h"

#define PG_POOL 8             /* connections per node at most */

#define PG_STATEMENTS(X)                                                       \
	X(S_PING, 0, "SELECT 1")                                               \
	X(S_DB_SIZE, 0, "SELECT pg_database_size(current_database())")        \
	X(S_INSERT_SESSION, 7,                                                 \
	  "INSERT INTO sessions (id, size, created_at, updated_at, version, "  \
	  "token_hash, title, visibility, scramble) VALUES ($1, $2::integer, " \
	  "$3::bigint, $3::bigint, 0, decode($4, 'hex'), $5, $6, $7) "         \
	  "ON CONFLICT (id) DO NOTHING")                                       \
	X(S_INSERT_EVENT, 8,                                                   \
	  "INSERT INTO events (session_id, version, kind, moves, actor, "      \
	  "created_at, ref, link) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")    \
	X(S_GET_SESSION, 1,                                                    \
	  "SELECT size, created_at, updated_at, version, undo_top, redo_top, " \
	  "encode(token_hash, 'hex'), title, visibility, scramble "            \
	  "FROM sessions WHERE id = $1")                                       \
	X(S_SESSION_VERSION, 1, "SELECT version FROM sessions WHERE id = $1")  \
	X(S_LOCK_SESSIONS, 1,                                                  \
	  "SELECT id, version FROM sessions WHERE id = ANY($1::text[]) "       \
	  "ORDER BY id FOR UPDATE")                                            \
	X(S_SESSION_VERSION_LOCK, 1,                                           \
	  "SELECT version FROM sessions WHERE id = $1 FOR UPDATE")             \
	X(S_ADVANCE, 5,                                                        \
	  "UPDATE sessions SET version = $2::bigint, undo_top = $3, "          \
	  "redo_top = $4, updated_at = $5 WHERE id = $1 AND "                  \
	  "version = $2::bigint - 1")                                          \
	X(S_APPEND, 10,                                                        \
	  "WITH a AS (UPDATE sessions SET version = $2::bigint, "              \
	  "undo_top = $3::bigint, redo_top = $4::bigint, "                     \
	  "updated_at = $5::bigint WHERE id = $1 AND "                         \
	  "version = $2::bigint - 1 RETURNING id) "                            \
	  "INSERT INTO events (session_id, version, kind, moves, actor, "      \
	  "created_at, ref, link) SELECT a.id, $2::bigint, $6::text, "         \
	  "$7::text, $8::text, $5::bigint, $9::bigint, $10::bigint FROM a")    \
	X(S_FLUSH, 14,                                                         \
	  "WITH s AS (SELECT * FROM unnest($1::text[], $2::bigint[], "         \
	  "$3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) AS "        \
	  "s(id, from_v, to_v, undo_top, redo_top, updated_at)), "             \
	  "a AS (UPDATE sessions t SET version = s.to_v, "                     \
	  "undo_top = s.undo_top, redo_top = s.redo_top, "                     \
	  "updated_at = s.updated_at FROM s WHERE t.id = s.id AND "            \
	  "t.version = s.from_v RETURNING t.id), "                             \
	  "i AS (INSERT INTO events (session_id, version, kind, moves, actor, " \
	  "created_at, ref, link) SELECT e.sid, e.v, e.k, e.m, e.a, e.t, "     \
	  "e.r, e.l FROM unnest($7::text[], $8::bigint[], $9::text[], "        \
	  "$10::text[], $11::text[], $12::bigint[], $13::bigint[], "           \
	  "$14::bigint[]) WITH ORDINALITY AS e(sid, v, k, m, a, t, r, l, n) "  \
	  "WHERE e.sid IN (SELECT id FROM a) ORDER BY e.n RETURNING 1) "       \
	  "SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM i)")         \
	X(S_INSERT_SNAPSHOT, 3,                                                \
	  "INSERT INTO snapshots (session_id, version, state) "                \
	  "VALUES ($1, $2, $3)")                                               \
	X(S_SNAPSHOT_AT, 2,                                                    \
	  "SELECT version, state FROM snapshots WHERE session_id = $1 AND "    \
	  "version <= $2 ORDER BY version DESC LIMIT 1")                       \
	X(S_LAST_RESET, 2,                                                     \
	  "SELECT max(version) FROM events WHERE session_id = $1 AND "         \
	  "version <= $2 AND kind = 'reset'")                                  \
	X(S_GET_EVENT, 2,                                                      \
	  "SELECT version, kind, moves, actor, created_at, ref, link "         \
	  "FROM events WHERE session_id = $1 AND version = $2")                \
	X(S_EVENTS_AFTER, 3,                                                   \
	  "SELECT version, kind, moves, actor, created_at, ref, link "         \
	  "FROM events WHERE session_id = $1 AND version > $2 "                \
	  "ORDER BY version LIMIT $3")                                         \
	X(S_DELETE_SESSION, 1, "DELETE FROM sessions WHERE id = $1")           \
	X(S_COUNT_SESSIONS, 0, "SELECT count(*) FROM sessions")                \
	X(S_INSERT_SOLVE, 7,                                                   \
	  "INSERT INTO solves (session_id, version, method, solution, length, " \
	  "elapsed_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) "       \
	  "RETURNING id")                                                      \
	X(S_LIST_SOLVES, 3,                                                    \
	  "SELECT id, version, method, solution, length, elapsed_ms, "         \
	  "created_at FROM solves WHERE session_id = $1 AND id > $2 "          \
	  "ORDER BY id LIMIT $3")                                              \
	X(S_RACE_ADD, 5,                                                       \
	  "INSERT INTO races (id, size, title, token_hash, created_at) "       \
	  "VALUES ($1, $2::integer, $3, decode($4, 'hex'), $5::bigint)")      \
	X(S_RACE_GET, 1,                                                       \
	  "SELECT size, title, encode(token_hash, 'hex'), created_at, "        \
	  "scramble, go_at FROM races WHERE id = $1")                          \
	X(S_RACE_PLAYERS, 2,                                                   \
	  "SELECT seat, name, session_id, joined_at FROM race_players "        \
	  "WHERE race_id = $1 ORDER BY seat LIMIT $2")                         \
	X(S_RACE_JOIN, 4,                                                      \
	  "INSERT INTO race_players (race_id, seat, name, session_id, "        \
	  "joined_at) SELECT $1, coalesce(max(seat), 0) + 1, $2, $3, "         \
	  "$4::bigint FROM race_players WHERE race_id = $1 RETURNING seat")    \
	X(S_RACE_START, 3,                                                     \
	  "UPDATE races SET scramble = $2, go_at = $3::bigint WHERE id = $1 "  \
	  "AND go_at IS NULL")                                                 \
	X(S_INSERT_TIMED, 5,                                                   \
	  "INSERT INTO timed_solves (session_id, version, actor, scramble, "   \
	  "inspect_at) VALUES ($1, $2, $3, $4, $5) RETURNING id")              \
	X(S_LIST_TIMED, 3,                                                     \
	  "SELECT id, version, actor, scramble, inspect_at FROM timed_solves " \
	  "WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT $3")            \
	X(S_LIST_TIMED_NEWEST, 3,                                              \
	  "SELECT * FROM (SELECT id, version, actor, scramble, inspect_at "    \
	  "FROM timed_solves WHERE session_id = $1 ORDER BY id DESC LIMIT $3)" \
	  " AS t WHERE $2::bigint < 0 ORDER BY id")                            \
	X(S_INSERT_TOKEN, 5,                                                   \
	  "INSERT INTO tokens (session_id, id, role, name, token_hash, "       \
	  "created_at) SELECT $1, coalesce(max(id), 0) + 1, $2::text, "        \
	  "coalesce($3::text, CASE $2::text WHEN 'write' THEN 'player-' "      \
	  "ELSE 'reader-' END || (coalesce(max(id), 0) + 1)), "                \
	  "decode($4, 'hex'), $5::bigint FROM tokens WHERE session_id = $1 "   \
	  "ON CONFLICT DO NOTHING RETURNING id, name")                         \
	X(S_FIND_TOKEN, 2,                                                     \
	  "SELECT id, role, name, created_at, coalesce(revoked_at, 0) "        \
	  "FROM tokens WHERE session_id = $1 AND "                             \
	  "token_hash = decode($2, 'hex') AND revoked_at IS NULL")             \
	X(S_LIST_TOKENS, 2,                                                    \
	  "SELECT id, role, name, created_at, coalesce(revoked_at, 0) "        \
	  "FROM tokens WHERE session_id = $1 ORDER BY id LIMIT $2")            \
	X(S_REVOKE_TOKEN, 3,                                                   \
	  "UPDATE tokens SET revoked_at = $3 WHERE session_id = $1 AND "       \
	  "id = $2 AND revoked_at IS NULL")                                    \
	X(S_IDEM_TAKE, 4,                                                      \
	  "INSERT INTO idempotency (scope, print, created_at) VALUES "         \
	  "(decode($1, 'hex'), decode($2, 'hex'), $3::bigint) "                \
	  "ON CONFLICT (scope) DO UPDATE SET print = EXCLUDED.print, "         \
	  "created_at = EXCLUDED.created_at, result = NULL "                   \
	  "WHERE idempotency.created_at < $4::bigint OR "                      \
	  "idempotency.result IS NULL RETURNING 1")                            \
	X(S_IDEM_GET, 1,                                                       \
	  "SELECT encode(print, 'hex'), result, created_at FROM idempotency "  \
	  "WHERE scope = decode($1, 'hex')")                                   \
	X(S_IDEM_KEEP, 2,                                                      \
	  "UPDATE idempotency SET result = $2 WHERE scope = decode($1, 'hex')") \
	X(S_IDEM_DROP, 1,                                                      \
	  "DELETE FROM idempotency WHERE scope = decode($1, 'hex') AND "       \
	  "result IS NULL")                                                    \
	X(S_IDEM_EXPIRE, 1, "DELETE FROM idempotency WHERE created_at < $1") \
	X(S_TICKET_KEY_PUT, 1,                                                 \
	  "INSERT INTO ticket_key (id, key) VALUES (1, decode($1, 'hex')) "    \
	  "ON CONFLICT (id) DO NOTHING")                                       \
	X(S_TICKET_KEY_GET, 0,                                                 \
	  "SELECT encode(key, 'hex') FROM ticket_key WHERE id = 1")            \
	X(S_PROBE_WRITE, 0,                                                    \
	  "WITH u AS (UPDATE sessions SET version = version WHERE false), "    \
	  "n AS (INSERT INTO snapshots SELECT * FROM snapshots WHERE false) "  \
	  "INSERT INTO events SELECT * FROM events WHERE false")

enum stmt_id {
#define STMT_ENUM(name, n, sql) name,
	PG_STATEMENTS(STMT_ENUM)
#undef STMT_ENUM
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
#define STMT_SQL(name, n, sql) sql,
	PG_STATEMENTS(STMT_SQL)
#undef STMT_SQL
};

static const int stmt_nparams[S_COUNT] = {
#define STMT_N(name, n, sql) n,
	PG_STATEMENTS(STMT_N)
#undef STMT_N
};

_Static_assert(S_COUNT <= 64, "prepared statements are tracked in 64 bits");

struct pconn {
	PGconn *pq;
	uint64_t prepared; /* bit i: statement i is prepared on pq */
	unsigned gen;      /* st->gen when last known to work */
	unsigned ro_gen;   /* st->ro_gen when it connected */
	struct pconn *next;
};

/* A session row the open transaction locked (store_lock_sessions) and
 * its version since: no other transaction can change the row until this
 * one ends, and this one changes it only through pg_append, pg_advance
 * and pg_delete_session, which keep the version here. So the version of
 * a locked row is known without asking (and an advance from another
 * version is known to fail). */
struct locked {
	char id[STORE_ID_MAX];
	int64_t version; /* -1: deleted by this transaction */
};

/* An append kept for the flush (store_defer): the event, and the session
 * row's tops after it. */
struct pend {
	struct store_event e; /* moves and actor malloc'd */
	char id[STORE_ID_MAX];
	int64_t undo_top, redo_top;
};

/* What one thread keeps: its open transaction's connection and its last
 * error. */
struct tls {
	struct pconn *txn;
	struct locked *locked; /* sorted by strcmp of id */
	int nlocked, caplocked;
	int defer;             /* store_defer */
	struct pend *pend;     /* deferred appends, in order */
	int npend, cappend;
	int deferred_failed;   /* the last failure was a flush's */
	char error[256];
	int unavailable; /* the last failure: the database is unreachable */
	int dead;        /* the last call's connection turned out dead */
	int denied;      /* the last failure: a privilege missing (42501) */
	struct tls *next;
};

/* ------------------------------------------------------------ plumbing */

#define I64(buf, v) (snprintf(buf, sizeof buf, "%lld", (long long)(v)), buf)

static struct tls *tls_get(struct pg *st)
{
	struct tls *t = pthread_getspecific(st->key);
	if (t)
		return t;
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	pthread_mutex_lock(&st->lock);
	t->next = st->all;
	st->all = t;
	pthread_mutex_unlock(&st->lock);
	pthread_setspecific(st->key, t);
	return t;
}

static void set_error(struct tls *t, int unavailable, const char *fmt,
		      const char *msg)
{
	snprintf(t->error, sizeof t->error, fmt, msg ? msg : "");
	/* libpq's messages end with a newline */
	size_t n = strlen(t->error);
	while (n > 0 && (t->error[n - 1] == '\n' || t->error[n - 1] == ' '))
		t->error[--n] = '\0';
	t->unavailable = unavailable;
}

/* Drop c's connection (it broke, or did not answer by its deadline and
 * is in an unknown state): the slot stays, and its next use connects
 * anew. Every other pooled connection is suspect from now on (gen). */
static void drop(struct pg *st, struct pconn *c)
{
	PQfinish(c->pq); /* nonblocking: never waits on a frozen peer */
	c->pq = NULL;
	c->prepared = 0;
	atomic_fetch_add(&st->gen, 1);
	atomic_fetch_add(&st->n_dropped, 1);
}

/* Whether an idle pooled connection still works. Free: anything waiting
 * on an idle connection's socket is the server's goodbye (a restart's
 * FATAL, a closed socket), read now. After a connection turned out
 * dead (gen moved), one empty round trip by the deadline as well, since
 * a peer gone without a word leaves nothing to read. */
static int alive(struct pg *st, struct pconn *c, int64_t deadline)
{
	if (!c->pq || PQstatus(c->pq) != CONNECTION_OK)
		return 0;
	/* a goodbye is a message and then the end of the stream: libpq
	 * sees the end at the read after the message's */
	for (int i = 0; i < 4; i++) {
		struct pollfd p = {PQsocket(c->pq), POLLIN, 0};
		if (poll(&p, 1, 0) <= 0)
			break;
		if (!PQconsumeInput(c->pq) || PQstatus(c->pq) != CONNECTION_OK)
			return 0;
	}
	unsigned gen = atomic_load(&st->gen);
	if (c->gen == gen)
		return 1;
	int why = 0;
	PGresult *r = PQsendQuery(c->pq, "") ? pg__results(c->pq, deadline,
							   &why)
					     : NULL;
	int ok = r && PQresultStatus(r) == PGRES_EMPTY_QUERY;
	PQclear(r);
	if (ok)
		c->gen = gen;
	return ok;
}

static int by_locked_id(const void *a, const void *b)
{
	return strcmp(((const struct locked *)a)->id,
		      ((const struct locked *)b)->id);
}

/* The open transaction's lock on session id, or NULL (not locked, or no
 * transaction). */
static struct locked *locked_find(struct tls *t, const char *id)
{
	if (!t || !t->txn || t->nlocked == 0)
		return NULL;
	struct locked key;
	if (snprintf(key.id, sizeof key.id, "%s", id) >= (int)sizeof key.id)
		return NULL;
	return bsearch(&key, t->locked, (size_t)t->nlocked, sizeof key,
		       by_locked_id);
}

/* A usable connection for this call (the thread's transaction's, or one
 * from the pool), or NULL with the error set, by deadline: the wait for
 * a free connection, the check of an idle one and a new connection all
 * count against it. */
static struct pconn *acquire(struct pg *st, struct tls *t, int64_t deadline)
{
	if (t->txn)
		return t->txn;
	if (!atomic_load(&st->ready)) {
		char why[300];
		if (pg__make_ready(st, why, sizeof why) != STORE_OK) {
			set_error(t, 1, "%s", why);
			return NULL;
		}
	}
	struct timespec until = {(time_t)(deadline / 1000),
				 (long)(deadline % 1000) * 1000000L};
	pthread_mutex_lock(&st->lock);
	int waited_out = 0;
	if (!st->idle && st->nconns >= st->pool_max)
		atomic_fetch_add(&st->n_waits, 1);
	while (!st->idle && st->nconns >= st->pool_max && !waited_out)
		waited_out = pthread_cond_timedwait(&st->freed, &st->lock,
						    &until) != 0 &&
			     pg__now_ms() >= deadline;
	if (!st->idle && st->nconns >= st->pool_max) {
		pthread_mutex_unlock(&st->lock);
		atomic_fetch_add(&st->n_timeouts, 1);
		char ms[24];
		set_error(t, 1,
			  "every connection to PostgreSQL stayed busy for %s ms",
			  I64(ms, st->timeout_ms + st->timeout_ms / 4));
		return NULL;
	}
	struct pconn *c = st->idle;
	if (c)
		st->idle = c->next;
	else
		st->nconns++;
	pthread_mutex_unlock(&st->lock);
	if (!c) {
		c = calloc(1, sizeof *c);
		if (!c) {
			set_error(t, 0, "out of memory%s", "");
			pthread_mutex_lock(&st->lock);
			st->nconns--;
			pthread_cond_signal(&st->freed);
			pthread_mutex_unlock(&st->lock);
			return NULL;
		}
	} else if (c->ro_gen != atomic_load(&st->ro_gen)) {
		/* connected before a write was refused as read-only: a
		 * session keeps the default_transaction_read_only it began
		 * with, so a new one learns whether writes are back (and
		 * finds the primary again after a failover, with
		 * target_session_attrs=read-write in the address) */
		PQfinish(c->pq);
		c->pq = NULL;
		c->prepared = 0;
	} else if (!alive(st, c, deadline)) {
		drop(st, c); /* the database went away: connect again */
	}
	if (!c->pq) {
		char why[300];
		int temporary = 0;
		c->gen = atomic_load(&st->gen);
		c->ro_gen = atomic_load(&st->ro_gen);
		c->pq = pg__connect(st, deadline, 1, st->app, why, sizeof why,
				    &temporary);
		c->prepared = 0;
		if (!c->pq) {
			set_error(t, 1, "%s", why);
			/* the slot goes back empty: the next use connects */
			c->next = NULL;
			pthread_mutex_lock(&st->lock);
			c->next = st->idle;
			st->idle = c;
			pthread_cond_signal(&st->freed);
			pthread_mutex_unlock(&st->lock);
			return NULL;
		}
	}
	return c;
}

static void release(struct pg *st, struct tls *t, struct pconn *c)
{
	if (!c || t->txn == c)
		return;
	pthread_mutex_lock(&st->lock);
	c->next = st->idle;
	st->idle = c;
	pthread_cond_signal(&st->freed);
	pthread_mutex_unlock(&st->lock);
}

/* A failed result into the thread's error: STORE_CONFLICT for a unique
 * violation, STORE_UNAVAILABLE when the connection is gone, the server
 * is shutting down or cancelled the statement at statement_timeout;
 * the storage faults of store.h: STORE_UNWRITABLE for a write refused
 * as read-only (25006: default_transaction_read_only, a hot standby) or
 * not permitted (42501: a privilege revoked), STORE_FULL for a full disk
 * (53100); else STORE_ERROR. A connection that is gone is dropped
 * (t->dead); after a write refused as read-only every pooled
 * connection is replaced at its next use (ro_gen). Clears res. */
static int failure(struct pg *st, struct tls *t, struct pconn *c,
		   PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
				: NULL;
	const char *msg = res ? PQresultErrorMessage(res) : "";
	if (!msg || !*msg)
		msg = PQerrorMessage(c->pq);
	int gone = PQstatus(c->pq) != CONNECTION_OK ||
		   (state && (strncmp(state, "08", 2) == 0 ||
			      strncmp(state, "57P", 3) == 0));
	int slow = state && strcmp(state, "57014") == 0;
	int read_only = state && strcmp(state, "25006") == 0;
	int rc = STORE_ERROR;
	if (gone || slow)
		rc = STORE_UNAVAILABLE;
	else if (state && strcmp(state, "23505") == 0)
		rc = STORE_CONFLICT;
	else if (read_only || (state && strcmp(state, "42501") == 0))
		rc = STORE_UNWRITABLE;
	else if (state && strcmp(state, "53100") == 0)
		rc = STORE_FULL;
	if (read_only)
		atomic_fetch_add(&st->ro_gen, 1);
	t->denied = state && strcmp(state, "42501") == 0;
	char why[sizeof t->error];
	pg__one_line(why, sizeof why, "", msg);
	set_error(t, gone || slow, "%s", why);
	PQclear(res);
	if (gone) {
		t->dead = 1;
		drop(st, c);
	}
	return rc;
}

/* A round trip that did not finish (why: -1 broke, -2 deadline): the
 * connection is dropped; STORE_UNAVAILABLE. */
static int lost(struct pg *st, struct tls *t, struct pconn *c, int why)
{
	if (why == -2) {
		atomic_fetch_add(&st->n_timeouts, 1);
		char ms[24];
		set_error(t, 1, "PostgreSQL did not answer within %s ms: the "
				"connection was dropped",
			  I64(ms, st->timeout_ms + st->timeout_ms / 4));
	} else {
		char why[sizeof t->error];
		pg__one_line(why, sizeof why,
			     "the connection to PostgreSQL was lost: ",
			     c->pq ? PQerrorMessage(c->pq) : "gone");
		set_error(t, 1, "%s", why);
		t->dead = 1;
	}
	drop(st, c);
	return STORE_UNAVAILABLE;
}

/* Send sql with params (a prepared statement's name when prepared) and
 * take its answer by deadline. */
static int trip(struct pg *st, struct tls *t, struct pconn *c, int prepare,
		const char *name, const char *sql, int n,
		const char *const *params, int64_t deadline, PGresult **out)
{
	if (!c->pq)
		return lost(st, t, c, -1);
	int sent = prepare ? PQsendPrepare(c->pq, name, sql, n, NULL)
		   : name  ? PQsendQueryPrepared(c->pq, name, n, params, NULL,
						NULL, 0)
			   : PQsendQuery(c->pq, sql);
	if (!sent)
		return lost(st, t, c, -1);
	int why = 0;
	PGresult *r = pg__results(c->pq, deadline, &why);
	if (!r)
		return lost(st, t, c, why);
	ExecStatusType s = PQresultStatus(r);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
		return failure(st, t, c, r);
	*out = r;
	return STORE_OK;
}

/* Run statement id with n text parameters (NULL = SQL NULL). STORE_OK
 * with *out the result (rows or a command), or an error. */
static int run_now(struct pg *st, struct tls *t, struct pconn *c,
		   enum stmt_id id, const char *const *params, int64_t deadline,
		   PGresult **out)
{
	char name[8];
	snprintf(name, sizeof name, "s%d", (int)id);
	if (!(c->prepared & (UINT64_C(1) << id))) {
		PGresult *p;
		int rc = trip(st, t, c, 1, name, stmt_sql[id],
			      stmt_nparams[id], NULL, deadline, &p);
		if (rc != STORE_OK)
			return rc;
		PQclear(p);
		c->prepared |= UINT64_C(1) << id;
	}
	return trip(st, t, c, 0, name, NULL, stmt_nparams[id], params,
		    deadline, out);
}

/* The statements that only read: one that failed on a connection that
 * turned out dead (not one that ran out of time) runs again, once, on
 * another. A write is never sent twice: it may have happened. */
static int reads_only(enum stmt_id id)
{
	switch (id) {
	case S_PING:
	case S_GET_SESSION:
	case S_SESSION_VERSION:
	case S_SNAPSHOT_AT:
	case S_LAST_RESET:
	case S_GET_EVENT:
	case S_EVENTS_AFTER:
	case S_COUNT_SESSIONS:
	case S_LIST_SOLVES:
	case S_RACE_GET:
	case S_RACE_PLAYERS:
	case S_LIST_TIMED:
	case S_FIND_TOKEN:
	case S_LIST_TOKENS:
	case S_IDEM_GET:
	case S_DB_SIZE:
	case S_LIST_TIMED_NEWEST:
	case S_TICKET_KEY_GET:
		return 1;
	default:
		return 0;
	}
}

/* A text[] or bigint[] literal under construction. */
struct arr {
	char *p;
	size_t n, cap;
	int nomem;
};

static void arr_put(struct arr *a, const char *s, size_t len)
{
	if (a->nomem)
		return;
	if (a->n + len + 2 > a->cap) {
		size_t cap = a->cap ? a->cap : 256;
		while (a->n + len + 2 > cap)
			cap *= 2;
		char *p = realloc(a->p, cap);
		if (!p) {
			a->nomem = 1;
			return;
		}
		a->p = p;
		a->cap = cap;
	}
	memcpy(a->p + a->n, s, len);
	a->n += len;
	a->p[a->n] = '\0';
}

/* The next element: a separator, then the value (NULL: SQL NULL), quoted
 * with " and \ escaped. */
static void arr_text(struct arr *a, const char *v)
{
	arr_put(a, a->n == 1 ? "" : ",", a->n == 1 ? 0 : 1);
	if (!v) {
		arr_put(a, "NULL", 4);
		return;
	}
	arr_put(a, "\"", 1);
	for (const char *c = v; *c; c++) {
		size_t run = strcspn(c, "\"\\");
		arr_put(a, c, run);
		c += run;
		if (!*c)
			break;
		arr_put(a, "\\", 1);
		arr_put(a, c, 1);
	}
	arr_put(a, "\"", 1);
}

static void arr_i64(struct arr *a, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof b, "%s%lld", a->n == 1 ? "" : ",",
			 (long long)v);
	arr_put(a, b, (size_t)n);
}

static void pend_clear(struct tls *t)
{
	for (int i = 0; i < t->npend; i++)
		store_event_free(&t->pend[i].e);
	t->npend = 0;
}

/* The deferred appends (store_defer) as one statement: each session row
 * moved from before its first to after its last append of the batch, only
 * if it is still where the lock found it, and the event rows in the order
 * they were appended (their notifications go out in that order at
 * commit), each only if its session moved. Every session must have moved
 * and every event been inserted, else the call fails (and the transaction
 * must be rolled back). */
static int flush(struct pg *st, struct tls *t, struct pconn *c,
		 int64_t deadline)
{
	if (t->npend == 0)
		return STORE_OK;
	struct arr a[14] = {{0}};
	for (int i = 0; i < 14; i++)
		arr_put(&a[i], "{", 1);
	int nsess = 0;
	for (int i = 0; i < t->npend; i++) {
		const struct pend *pd = &t->pend[i];
		const struct store_event *e = &pd->e;
		arr_text(&a[6], pd->id);
		arr_i64(&a[7], e->version);
		arr_text(&a[8], e->kind);
		arr_text(&a[9], e->moves ? e->moves : "");
		arr_text(&a[10], e->actor);
		arr_i64(&a[11], e->created_at);
		arr_i64(&a[12], e->ref);
		arr_i64(&a[13], e->link);
		/* the session row: once, from its first append of the
		 * batch to its last */
		int first = 1;
		for (int j = 0; j < i && first; j++)
			first = strcmp(t->pend[j].id, pd->id) != 0;
		if (!first)
			continue;
		const struct pend *end = pd;
		for (int j = i + 1; j < t->npend; j++)
			if (strcmp(t->pend[j].id, pd->id) == 0)
				end = &t->pend[j];
		arr_text(&a[0], pd->id);
		arr_i64(&a[1], e->version - 1);
		arr_i64(&a[2], end->e.version);
		arr_i64(&a[3], end->undo_top);
		arr_i64(&a[4], end->redo_top);
		arr_i64(&a[5], end->e.created_at);
		nsess++;
	}
	int nomem = 0;
	const char *p[14];
	for (int i = 0; i < 14; i++) {
		arr_put(&a[i], "}", 1);
		nomem |= a[i].nomem;
		p[i] = a[i].p;
	}
	int n = t->npend, rc;
	pend_clear(t);
	if (nomem) {
		set_error(t, 0, "out of memory%s", "");
		rc = STORE_ERROR;
	} else {
		PGresult *r;
		rc = run_now(st, t, c, S_FLUSH, p, deadline, &r);
		if (rc == STORE_OK) {
			long long moved = atoll(PQgetvalue(r, 0, 0)),
				  added = atoll(PQgetvalue(r, 0, 1));
			PQclear(r);
			if (moved != nsess || added != n) {
				char why[96];
				snprintf(why, sizeof why,
					 "%lld of %d sessions moved, %lld of "
					 "%d events added",
					 moved, nsess, added, n);
				set_error(t, 0,
					  "deferred appends did not apply: %s",
					  why);
				rc = STORE_ERROR;
			}
		}
	}
	for (int i = 0; i < 14; i++)
		free(a[i].p);
	if (rc != STORE_OK)
		t->deferred_failed = 1;
	return rc;
}

/* Must the deferred appends go before statement id (its parameters p)?
 * Not for statements that neither read nor write sessions or events
 * (tokens looked up, Idempotency-Key records, snapshot rows: a snapshot
 * depends on nothing but its session's row, which exists and is
 * locked; the count of sessions, which appends do not change); not for
 * a statement about one session (its first parameter) that has none of
 * them; else yes. */
static int flush_first(const struct tls *t, enum stmt_id id,
		       const char *const *p)
{
	switch (id) {
	case S_FIND_TOKEN:
	case S_IDEM_TAKE:
	case S_IDEM_GET:
	case S_IDEM_KEEP:
	case S_IDEM_DROP:
	case S_INSERT_SNAPSHOT:
	case S_COUNT_SESSIONS:
		return 0;
	case S_INSERT_SESSION:
	case S_INSERT_EVENT:
	case S_GET_SESSION:
	case S_SESSION_VERSION:
	case S_SESSION_VERSION_LOCK:
	case S_SNAPSHOT_AT:
	case S_LAST_RESET:
	case S_GET_EVENT:
	case S_EVENTS_AFTER:
	case S_INSERT_SOLVE:
	case S_LIST_SOLVES:
	case S_INSERT_TIMED:
	case S_LIST_TIMED:
	case S_INSERT_TOKEN:
	case S_LIST_TOKENS:
	case S_REVOKE_TOKEN:
		for (int i = 0; i < t->npend; i++)
			if (strcmp(t->pend[i].id, p[0]) == 0)
				return 1;
		return 0;
	default:
		return 1;
	}
}

/* run_now, after the transaction's deferred appends when the statement
 * may see them. */
static int run(struct pg *st, struct tls *t, struct pconn *c,
	       enum stmt_id id, const char *const *params, int64_t deadline,
	       PGresult **out)
{
	if (t->npend > 0 && t->txn == c && flush_first(t, id, params)) {
		int rc = flush(st, t, c, deadline);
		if (rc != STORE_OK)
			return rc;
	}
	return run_now(st, t, c, id, params, deadline, out);
}

/* The usual call: a connection, the statement, the connection back. The
 * caller reads *out (when rc is STORE_OK) and PQclears it. */
static int call(struct pg *st, enum stmt_id id, const char *const *params,
		PGresult **out)
{
	struct tls *t = tls_get(st);
	if (!t)
		return STORE_ERROR;
	int64_t deadline = pg__deadline(st);
	for (int attempt = 0;; attempt++) {
		struct pconn *c = acquire(st, t, deadline);
		if (!c)
			return t->unavailable ? STORE_UNAVAILABLE : STORE_ERROR;
		int in_txn = t->txn == c;
		t->dead = 0;
		int rc = run(st, t, c, id, params, deadline, out);
		release(st, t, c);
		if (rc == STORE_UNAVAILABLE && t->dead && !in_txn &&
		    attempt == 0 && reads_only(id))
			continue;
		return rc;
	}
}

static int64_t col_i64(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col)
		       ? 0
		       : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static char *col_dup(const PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return NULL;
	return strdup(PQgetvalue(r, row, col));
}

static int changed(const PGresult *r)
{
	return atoi(PQcmdTuples((PGresult *)r));
}


/* The shapes of call that recur. exec: the result is not read. exec_one:
 * a statement that changes at most one row, STORE_NOT_FOUND when it
 * changed none. query_one: *r holds the first row (the caller clears
 * it), STORE_NOT_FOUND (nothing to clear) when there is none.
 * query_rows: the number of rows up to cap, *r to clear, or an error. */
static int exec(struct pg *st, enum stmt_id id, const char *const *p)
{
	PGresult *r;
	int rc = call(st, id, p, &r);
	if (rc == STORE_OK)
		PQclear(r);
	return rc;
}

static int exec_one(struct pg *st, enum stmt_id id, const char *const *p)
{
	PGresult *r;
	int rc = call(st, id, p, &r);
	if (rc != STORE_OK)
		return rc;
	int n = changed(r);
	PQclear(r);
	return n == 1 ? STORE_OK : STORE_NOT_FOUND;
}

static int query_one(struct pg *st, enum stmt_id id, const char *const *p,
		     PGresult **r)
{
	int rc = call(st, id, p, r);
	if (rc == STORE_OK && PQntuples(*r) < 1) {
		PQclear(*r);
		*r = NULL;
		rc = STORE_NOT_FOUND;
	}
	return rc;
}

static int query_rows(struct pg *st, enum stmt_id id, const char *const *p,
		      int cap, PGresult **r)
{
	int rc = call(st, id, p, r);
	if (rc != STORE_OK)
		return rc;
	int k = PQntuples(*r);
	return k > cap ? cap : k;
}

static void hex_encode(char *out, const unsigned char *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static void hex_decode(unsigned char *out, const char *in, size_t n)
{
	for (size_t i = 0; i < n && in[2 * i] && in[2 * i + 1]; i++) {
		unsigned v = 0;
		sscanf(in + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
}

static int nomem(struct pg *st)
{
	struct tls *t = tls_get(st);
	if (t)
		set_error(t, 0, "out of memory%s", "");
	return STORE_ERROR;
}

/* ----------------------------------------------------------- open/close */

static int pg_accepts(const char *path)
{
	return strncmp(path, "postgres://", 11) == 0 ||
	       strncmp(path, "postgresql://", 13) == 0;
}

static void pg_free(struct pg *st)
{
	while (st->idle) {
		struct pconn *c = st->idle;
		st->idle = c->next;
		PQfinish(c->pq);
		free(c);
	}
	while (st->all) {
		struct tls *t = st->all;
		st->all = t->next;
		if (t->txn) {
			PQfinish(t->txn->pq);
			free(t->txn);
		}
		free(t->locked);
		for (int i = 0; i < t->npend; i++)
			store_event_free(&t->pend[i].e);
		free(t->pend);
		free(t);
	}
	pthread_key_delete(st->key);
	pthread_mutex_destroy(&st->lock);
	pthread_mutex_destroy(&st->ready_lock);
	pthread_cond_destroy(&st->freed);
	free(st->conninfo);
	free(st->schema_dir);
	free(st);
}

static int pg_probe_write(void *impl);

/* At start, once migrated: a role that may not write cubed's tables (a
 * privilege revoked, tables another role made) never will by waiting,
 * so the node refuses to start and says so. A database that is read-only
 * now (default_transaction_read_only, a standby) may be writable later:
 * the node starts, and store_open reports the fault. */
static int may_write(struct pg *st, char *err, size_t errlen)
{
	int rc = pg_probe_write(st);
	struct tls *t = pthread_getspecific(st->key);
	if (rc == STORE_UNWRITABLE && t && t->denied) {
		const char *why = t->error;
		if (strncmp(why, "ERROR:  ", 8) == 0)
			why += 8;
		snprintf(err, errlen,
			 "the role may not write cubed's tables (%s): it needs "
			 "INSERT, UPDATE and DELETE on them; make it their "
			 "owner (docs/scaling.md, Roles)",
			 why);
		return STORE_ERROR;
	}
	/* down since the migration: started not ready, as for a database
	 * down at start */
	if (rc == STORE_UNAVAILABLE)
		snprintf(err, errlen, "%s", t ? t->error : "unavailable");
	return rc == STORE_UNAVAILABLE ? rc : STORE_OK;
}

/* A database that is merely down (no answer, starting up, no slot
 * free) does not keep the node from starting: it opens not ready, every
 * call answers STORE_UNAVAILABLE, and the first call (or the listener's
 * retry) after the database is back migrates and goes on. An address
 * libpq cannot use, a server that refuses us (authentication, no such
 * database, TLS, an option) or a schema newer than ours is refused here,
 * with the reason (pg__connect tells them apart). */
static int pg_open(const struct store_config *cfg, void **impl,
		   unsigned *caps, char *err, size_t errlen)
{
	struct pg *st = calloc(1, sizeof *st);
	if (!st || !(st->conninfo = strdup(cfg->path)) ||
	    !(st->schema_dir = strdup(cfg->schema_dir ? cfg->schema_dir
							: "schema"))) {
		if (st)
			free(st->conninfo);
		free(st);
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->wake[0] = st->wake[1] = -1;
	unsigned char rnd[6] = {0};
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		/* no randomness: the clock and the pid still tell nodes apart */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
			     (uint64_t)ts.tv_sec;
		memcpy(rnd, &x, sizeof rnd);
	}
	snprintf(st->app, sizeof st->app, "cubed-%02x%02x%02x%02x%02x%02x",
		 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	/* a transaction left idle this long (its node stopped, or cut off
	 * from the database) is ended by PostgreSQL: the Idempotency-Key
	 * claims it holds go with it, and a retry on another node that
	 * waits on one of them runs */
	snprintf(st->begin_sql, sizeof st->begin_sql, "BEGIN");
	st->begin_expect = "BEGIN";
	if (cfg->txn_lease_ms > 0) {
		snprintf(st->begin_sql, sizeof st->begin_sql,
			 "BEGIN; SET LOCAL idle_in_transaction_session_timeout "
			 "= %d",
			 cfg->txn_lease_ms);
		st->begin_expect = "SET";
	}
	pthread_mutex_init(&st->lock, NULL);
	pthread_mutex_init(&st->ready_lock, NULL);
	st->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : PG_TIMEOUT_MS;
	st->pool_max = cfg->pool > 0 ? cfg->pool : PG_POOL;
	/* the wait for a free connection has a deadline on the monotonic
	 * clock, as every other wait of the engine */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->freed, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_key_create(&st->key, NULL) != 0) {
		pthread_mutex_destroy(&st->lock);
		pthread_mutex_destroy(&st->ready_lock);
		pthread_cond_destroy(&st->freed);
		free(st->conninfo);
		free(st->schema_dir);
		free(st);
		snprintf(err, errlen, "cannot create a thread key");
		return STORE_ERROR;
	}
	char *opts_err = NULL;
	PQconninfoOption *opts = PQconninfoParse(st->conninfo, &opts_err);
	PQconninfoFree(opts);
	int rc = STORE_ERROR;
	if (!opts) {
		snprintf(err, errlen, "the PostgreSQL address is not valid: %s",
			 opts_err ? opts_err : "out of memory");
		size_t n = strlen(err);
		while (n > 0 && err[n - 1] == '\n')
			err[--n] = '\0';
		PQfreemem(opts_err);
	} else {
		rc = pg__make_ready(st, err, errlen);
		if (rc == STORE_OK)
			rc = may_write(st, err, errlen);
		if (rc == STORE_UNAVAILABLE) {
			/* down: start anyway (open_error says why until a
			 * thread has an error of its own) */
			snprintf(st->open_error, sizeof st->open_error, "%s",
				 err);
			rc = STORE_OK;
		}
	}
	if (rc != STORE_OK) {
		pg_free(st);
		return rc;
	}
	*caps = STORE_CAP_SHARED | STORE_CAP_IDEM;
	*impl = st;
	return STORE_OK;
}

static void pg_close(void *impl)
{
	struct pg *st = impl;
	pg__unlisten(st);
	pg_free(st);
}

static const char *pg_last_error(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pthread_getspecific(st->key);
	return t ? t->error : st->open_error;
}

static int pg_unavailable(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pthread_getspecific(st->key);
	return t && t->unavailable;
}

static int pg_schema_version(void *impl)
{
	return ((struct pg *)impl)->schema_version;
}

/* The database answers, and (once it has had one) the listener has its
 * connection: without it this node's watchers would miss other nodes'
 * writes, so the node is not ready. */
static int pg_ping(void *impl)
{
	struct pg *st = impl;
	int64_t deadline = pg__deadline(st);
	int rc = exec(impl, S_PING, NULL);
	if (rc == STORE_OK && atomic_load(&st->listen_down)) {
		/* the database answers: the listener may just not have
		 * tried yet (it retries every LISTEN_RETRY_MS) */
		pg__kick(st);
		while (atomic_load(&st->listen_down) &&
		       pg__now_ms() < deadline) {
			struct timespec ts = {0, 5000000L};
			nanosleep(&ts, NULL);
		}
	}
	if (rc == STORE_OK && atomic_load(&st->listen_down)) {
		struct tls *t = tls_get(st);
		if (t)
			set_error(t, 1, "the LISTEN connection is down%s "
					"(reconnecting)", "");
		rc = STORE_UNAVAILABLE;
	}
	return rc;
}

/* BEGIN / COMMIT / ROLLBACK on the transaction's connection. */
static int simple(struct pg *st, struct tls *t, struct pconn *c,
		  const char *sql, const char *expect)
{
	PGresult *r;
	int rc = trip(st, t, c, 0, NULL, sql, 0, NULL, pg__deadline(st), &r);
	if (rc != STORE_OK)
		return rc;
	/* COMMIT of a transaction that failed answers ROLLBACK */
	if (strcmp(PQcmdStatus(r), expect) != 0) {
		set_error(t, 0, "the transaction was rolled back (%s)",
			  PQcmdStatus(r));
		PQclear(r);
		return STORE_ERROR;
	}
	PQclear(r);
	return STORE_OK;
}

static int pg_begin(void *impl)
{
	struct pg *st = impl;
	struct tls *t = tls_get(st);
	if (!t)
		return STORE_ERROR;
	if (t->txn) {
		set_error(t, 0, "a transaction is already open%s", "");
		return STORE_ERROR;
	}
	/* BEGIN changes nothing: on a connection that turned out dead it
	 * is sent again, once, on another */
	int64_t deadline = pg__deadline(st);
	for (int attempt = 0;; attempt++) {
		struct pconn *c = acquire(st, t, deadline);
		if (!c)
			return t->unavailable ? STORE_UNAVAILABLE : STORE_ERROR;
		t->dead = 0;
		int rc = simple(st, t, c, st->begin_sql, st->begin_expect);
		if (rc == STORE_OK) {
			t->txn = c;
			t->nlocked = 0;
			pend_clear(t);
			t->deferred_failed = 0;
			return rc;
		}
		release(st, t, c);
		if (!(rc == STORE_UNAVAILABLE && t->dead && attempt == 0))
			return rc;
	}
}

static int end_txn(struct pg *st, const char *sql, const char *expect)
{
	struct tls *t = tls_get(st);
	if (!t || !t->txn)
		return STORE_ERROR;
	struct pconn *c = t->txn;
	pend_clear(t);
	int rc = simple(st, t, c, sql, expect);
	t->txn = NULL;
	t->nlocked = 0;
	release(st, t, c);
	return rc;
}

/* A COMMIT whose answer never came (the connection went after it was
 * sent) may have committed or not: STORE_UNKNOWN, so the caller does not
 * say "nothing was changed" (a retry with its Idempotency-Key learns
 * which). A connection already broken before it was sent committed
 * nothing. */
static int pg_commit(void *impl)
{
	struct pg *st = impl;
	struct tls *t = tls_get(st);
	if (t && t->txn && t->npend > 0) {
		/* nothing was sent to commit: the deferred appends failed,
		 * and the transaction goes (its error is the flush's) */
		int frc = flush(st, t, t->txn, pg__deadline(st));
		if (frc != STORE_OK) {
			char why[sizeof t->error];
			int down = t->unavailable;
			snprintf(why, sizeof why, "%s", t->error);
			end_txn(st, "ROLLBACK", "ROLLBACK");
			set_error(t, down, "%s", why);
			return frc;
		}
	}
	int was_up = t && t->txn && PQstatus(t->txn->pq) == CONNECTION_OK;
	int rc = end_txn(st, "COMMIT", "COMMIT");
	if (rc == STORE_UNAVAILABLE && was_up && t) {
		char why[sizeof t->error];
		snprintf(why, sizeof why, "%s", t->error);
		set_error(t, 1, "the connection to PostgreSQL was lost while "
				"committing (%s): the outcome is unknown",
			  why);
		rc = STORE_UNKNOWN;
	}
	return rc;
}

static int pg_rollback(void *impl)
{
	return end_txn(impl, "ROLLBACK", "ROLLBACK");
}

/* Can a write go through now (store_fault's probe)? One statement that
 * would write the history's three tables and changes no row: refused as
 * read-only or for want of a privilege like any write (failure), and on
 * a new connection after a read-only refusal, so the database's setting
 * now is what answers. */
static int pg_probe_write(void *impl)
{
	return exec(impl, S_PROBE_WRITE, NULL);
}

/* -------------------------------------------------------------- sessions */

/* The engine's primitives for sessions and their history (store.c
 * composes the operations of store.h from them): a session row, an
 * event row, a snapshot row, the conditional advance of a session's
 * version, the latest reset and the latest snapshot at or before a
 * version. */
static int pg_insert_event(void *impl, const char *id,
			   const struct store_event *e)
{
	char v[24], at[24], ref[24], link[24];
	const char *p[] = {id, I64(v, e->version), e->kind,
			   e->moves ? e->moves : "", e->actor,
			   I64(at, e->created_at), I64(ref, e->ref),
			   I64(link, e->link)};
	return exec(impl, S_INSERT_EVENT, p);
}

/* Text parameters end at a NUL: a state is 6n² facelet letters, which
 * the session layer hands over without one. */
static int pg_add_snapshot(void *impl, const char *id, int64_t version,
			   const char *state, size_t len)
{
	char *text = malloc(len + 1);
	if (!text)
		return nomem(impl);
	memcpy(text, state, len);
	text[len] = '\0';
	char v[24];
	const char *p[] = {id, I64(v, version), text};
	int rc = exec(impl, S_INSERT_SNAPSHOT, p);
	free(text);
	return rc;
}

static int pg_insert_session(void *impl, const struct store_session *ss)
{
	struct pg *st = impl;
	char size[16], at[24], hash[2 * STORE_HASH_LEN + 1];
	hex_encode(hash, ss->token_hash, STORE_HASH_LEN);
	const char *p[] = {ss->id, I64(size, ss->size), I64(at, ss->created_at),
			   hash, ss->title,
			   ss->is_private ? "private" : "public", ss->scramble};
	int rc = exec_one(st, S_INSERT_SESSION, p);
	if (rc == STORE_NOT_FOUND) { /* nothing inserted: the id is taken */
		struct tls *t = tls_get(st);
		if (t)
			set_error(t, 0, "session %s exists", ss->id);
		return STORE_CONFLICT;
	}
	return rc;
}

static int pg_get_session(void *impl, const char *id,
			  struct store_session *out)
{
	const char *p[] = {id};
	PGresult *r;
	int rc = query_one(impl, S_GET_SESSION, p, &r);
	if (rc != STORE_OK)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = (int)col_i64(r, 0, 0);
	out->created_at = col_i64(r, 0, 1);
	out->updated_at = col_i64(r, 0, 2);
	out->version = col_i64(r, 0, 3);
	out->undo_top = col_i64(r, 0, 4);
	out->redo_top = col_i64(r, 0, 5);
	hex_decode(out->token_hash, PQgetvalue(r, 0, 6), STORE_HASH_LEN);
	int untitled = PQgetisnull(r, 0, 7);
	out->title = col_dup(r, 0, 7);
	out->is_private = strcmp(PQgetvalue(r, 0, 8), "private") == 0;
	int unscrambled = PQgetisnull(r, 0, 9);
	out->scramble = col_dup(r, 0, 9);
	PQclear(r);
	if ((!untitled && !out->title) || (!unscrambled && !out->scramble)) {
		store_session_free(out);
		return nomem(impl);
	}
	return STORE_OK;
}

/* Inside a write transaction the row is locked too (FOR UPDATE) until
 * the transaction ends: the writer checks a session's version before it
 * writes, and with the lock no other node can move the session between
 * that check and the write. Without it, a node writing one session
 * without pause re-takes the row lock before the other node's reload is
 * done, and the other node's appends keep losing (a convoy). */
static int pg_session_version(void *impl, const char *id, int64_t *version)
{
	struct pg *st = impl;
	struct tls *t = tls_get(st);
	struct locked *l = locked_find(t, id);
	if (l) {
		if (l->version < 0)
			return STORE_NOT_FOUND;
		*version = l->version;
		return STORE_OK;
	}
	const char *p[] = {id};
	PGresult *r;
	int rc = query_one(impl, t && t->txn ? S_SESSION_VERSION_LOCK
					    : S_SESSION_VERSION,
			   p, &r);
	if (rc != STORE_OK)
		return rc;
	*version = col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

/* The pool's and the listener's figures (/metrics). */
static void pg_pool_stats(void *impl, struct store_pool_stats *out)
{
	struct pg *st = impl;
	out->has_pool = 1;
	pthread_mutex_lock(&st->lock);
	out->open = (uint64_t)st->nconns;
	for (const struct pconn *c = st->idle; c; c = c->next)
		out->idle++;
	pthread_mutex_unlock(&st->lock);
	out->max = (uint64_t)st->pool_max;
	out->waits = atomic_load(&st->n_waits);
	out->timeouts = atomic_load(&st->n_timeouts);
	out->dropped = atomic_load(&st->n_dropped);
	out->listener_up = st->listening && !atomic_load(&st->listen_down);
	out->listener_reconnects = atomic_load(&st->n_listen_up);
	out->notifications = atomic_load(&st->n_notifications);
}

/* The database's bytes on disk, every node's rows (and its indexes,
 * free space and TOAST): what --max-db-size caps, for the cluster. */
static int pg_used_bytes(void *impl, int64_t *bytes)
{
	PGresult *r;
	int rc = query_one(impl, S_DB_SIZE, NULL, &r);
	if (rc != STORE_OK)
		return rc;
	*bytes = col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

/* NOT_FOUND when nothing was advanced: not at e->version - 1 (another
 * node wrote), or gone. */
static int pg_advance(void *impl, const char *id, const struct store_event *e,
		      int64_t undo_top, int64_t redo_top)
{
	struct locked *l = locked_find(tls_get(impl), id);
	if (l && l->version != e->version - 1)
		return STORE_NOT_FOUND; /* the row is ours: it is not there */
	char v[24], u[24], rd[24], at[24];
	const char *p[] = {id, I64(v, e->version), I64(u, undo_top),
			   I64(rd, redo_top), I64(at, e->created_at)};
	int rc = exec_one(impl, S_ADVANCE, p);
	if (rc == STORE_OK && l)
		l->version = e->version;
	return rc;
}

/* pg_advance and pg_insert_event in one statement (one round trip): the
 * event row is inserted only if the session row moved. */
static int pg_append(void *impl, const char *id, const struct store_event *e,
		     int64_t undo_top, int64_t redo_top)
{
	struct tls *t = tls_get(impl);
	struct locked *l = locked_find(t, id);
	if (l && l->version != e->version - 1)
		return STORE_NOT_FOUND;
	if (l && t->defer) {
		/* the row is ours and at e->version - 1: kept for the
		 * flush (store_defer) */
		if (t->npend == t->cappend) {
			int cap = t->cappend ? 2 * t->cappend : 16;
			struct pend *m = realloc(t->pend,
						 (size_t)cap * sizeof *m);
			if (!m)
				return nomem(impl);
			t->pend = m;
			t->cappend = cap;
		}
		struct pend *pd = &t->pend[t->npend];
		pd->e = *e;
		pd->e.moves = strdup(e->moves ? e->moves : "");
		pd->e.actor = e->actor ? strdup(e->actor) : NULL;
		if (!pd->e.moves || (e->actor && !pd->e.actor)) {
			free(pd->e.moves);
			free(pd->e.actor);
			return nomem(impl);
		}
		snprintf(pd->id, sizeof pd->id, "%s", id);
		pd->undo_top = undo_top;
		pd->redo_top = redo_top;
		t->npend++;
		l->version = e->version;
		return STORE_OK;
	}
	char v[24], u[24], rd[24], at[24], ref[24], link[24];
	const char *p[] = {id, I64(v, e->version), I64(u, undo_top),
			   I64(rd, redo_top), I64(at, e->created_at), e->kind,
			   e->moves ? e->moves : "", e->actor, I64(ref, e->ref),
			   I64(link, e->link)};
	int rc = exec_one(impl, S_APPEND, p);
	if (rc == STORE_OK && l)
		l->version = e->version;
	return rc;
}

static int pg_snapshot_at(void *impl, const char *id, int64_t at,
			  int64_t *version, char **state, size_t *len)
{
	char a[24];
	const char *p[] = {id, I64(a, at)};
	PGresult *r;
	int rc = query_one(impl, S_SNAPSHOT_AT, p, &r);
	if (rc != STORE_OK)
		return rc;
	*version = col_i64(r, 0, 0);
	*state = col_dup(r, 0, 1);
	*len = (size_t)PQgetlength(r, 0, 1);
	PQclear(r);
	return *state ? STORE_OK : nomem(impl);
}

static int pg_last_reset(void *impl, const char *id, int64_t at,
			 int64_t *reset)
{
	char a[24];
	const char *p[] = {id, I64(a, at)};
	PGresult *r;
	int rc = call(impl, S_LAST_RESET, p, &r);
	if (rc != STORE_OK)
		return rc;
	*reset = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) ? col_i64(r, 0, 0)
							    : -1;
	PQclear(r);
	return STORE_OK;
}

/* Columns version, kind, moves, actor, created_at, ref, link. */
static int read_event(const PGresult *r, int row, struct store_event *e)
{
	memset(e, 0, sizeof *e);
	e->version = col_i64(r, row, 0);
	snprintf(e->kind, sizeof e->kind, "%s", PQgetvalue(r, row, 1));
	e->moves = col_dup(r, row, 2);
	e->actor = col_dup(r, row, 3);
	e->created_at = col_i64(r, row, 4);
	e->ref = col_i64(r, row, 5);
	e->link = col_i64(r, row, 6);
	if (!e->moves || (!PQgetisnull(r, row, 3) && !e->actor)) {
		store_event_free(e);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int pg_get_event(void *impl, const char *id, int64_t version,
			struct store_event *out)
{
	char v[24];
	const char *p[] = {id, I64(v, version)};
	PGresult *r;
	int rc = query_one(impl, S_GET_EVENT, p, &r);
	if (rc != STORE_OK)
		return rc;
	rc = read_event(r, 0, out);
	PQclear(r);
	return rc == STORE_OK ? rc : nomem(impl);
}

static int pg_events_after(void *impl, const char *id, int64_t after,
			   struct store_event *out, int cap)
{
	if (cap <= 0)
		return 0;
	char a[24], c[16];
	const char *p[] = {id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = query_rows(impl, S_EVENTS_AFTER, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++)
		if (read_event(r, i, &out[i]) != STORE_OK) {
			while (i-- > 0)
				store_event_free(&out[i]);
			PQclear(r);
			return nomem(impl);
		}
	PQclear(r);
	return k;
}

static void pg_defer(void *impl, int on)
{
	struct tls *t = tls_get(impl);
	if (t)
		t->defer = on;
}

static int pg_deferred_failed(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pthread_getspecific(st->key);
	return t && t->deferred_failed;
}

static int pg_delete_session(void *impl, const char *id)
{
	const char *p[] = {id};
	int rc = exec_one(impl, S_DELETE_SESSION, p);
	struct locked *l = locked_find(tls_get(impl), id);
	if (rc == STORE_OK && l)
		l->version = -1;
	return rc;
}

static int pg_count_sessions(void *impl, int64_t *count)
{
	PGresult *r;
	int rc = call(impl, S_COUNT_SESSIONS, NULL, &r);
	if (rc != STORE_OK)
		return rc;
	*count = col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

/* ---------------------------------------------------------------- solves */

static int pg_add_solve(void *impl, const char *session_id,
			const struct store_solve *sv, int64_t *out_id)
{
	char v[24], len[16], ms[32], at[24];
	snprintf(ms, sizeof ms, "%.17g", sv->elapsed_ms);
	const char *p[] = {session_id, I64(v, sv->version), sv->method,
			   sv->solution ? sv->solution : "", I64(len, sv->length),
			   ms, I64(at, sv->created_at)};
	PGresult *r;
	int rc = call(impl, S_INSERT_SOLVE, p, &r);
	if (rc != STORE_OK)
		return rc;
	if (out_id)
		*out_id = col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_list_solves(void *impl, const char *session_id, int64_t after,
			  struct store_solve *out, int cap)
{
	char a[24], c[16];
	const char *p[] = {session_id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = query_rows(impl, S_LIST_SOLVES, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_solve *v = &out[i];
		memset(v, 0, sizeof *v);
		v->id = col_i64(r, i, 0);
		v->version = col_i64(r, i, 1);
		snprintf(v->method, sizeof v->method, "%s",
			 PQgetvalue(r, i, 2));
		v->solution = col_dup(r, i, 3);
		v->length = (int)col_i64(r, i, 4);
		v->elapsed_ms = strtod(PQgetvalue(r, i, 5), NULL);
		v->created_at = col_i64(r, i, 6);
		if (!v->solution) {
			while (i-- > 0)
				store_solve_free(&out[i]);
			PQclear(r);
			return nomem(impl);
		}
	}
	PQclear(r);
	return k;
}

/* ----------------------------------------------------------------- races */

static int pg_race_add(void *impl, const struct store_race *r)
{
	char size[16], at[24], hash[2 * STORE_HASH_LEN + 1];
	hex_encode(hash, r->token_hash, STORE_HASH_LEN);
	const char *p[] = {r->id, I64(size, r->size), r->title, hash,
			   I64(at, r->created_at)};
	return exec(impl, S_RACE_ADD, p);
}

static int pg_race_get(void *impl, const char *id, struct store_race *out)
{
	const char *p[] = {id};
	PGresult *r;
	int rc = query_one(impl, S_RACE_GET, p, &r);
	if (rc != STORE_OK)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = (int)col_i64(r, 0, 0);
	int untitled = PQgetisnull(r, 0, 1);
	out->title = col_dup(r, 0, 1);
	hex_decode(out->token_hash, PQgetvalue(r, 0, 2), STORE_HASH_LEN);
	out->created_at = col_i64(r, 0, 3);
	int unstarted = PQgetisnull(r, 0, 4);
	out->scramble = col_dup(r, 0, 4);
	out->go_at = PQgetisnull(r, 0, 5) ? 0 : col_i64(r, 0, 5);
	PQclear(r);
	if ((!untitled && !out->title) || (!unstarted && !out->scramble)) {
		store_race_free(out);
		return nomem(impl);
	}
	return STORE_OK;
}

static int pg_race_players(void *impl, const char *id,
			   struct store_race_player *out, int cap)
{
	char c[16];
	const char *p[] = {id, I64(c, cap)};
	PGresult *r;
	int k = query_rows(impl, S_RACE_PLAYERS, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_race_player *v = &out[i];
		memset(v, 0, sizeof *v);
		v->seat = (int)col_i64(r, i, 0);
		snprintf(v->name, sizeof v->name, "%s", PQgetvalue(r, i, 1));
		snprintf(v->session_id, sizeof v->session_id, "%s",
			 PQgetvalue(r, i, 2));
		v->joined_at = col_i64(r, i, 3);
	}
	PQclear(r);
	return k;
}

static int pg_race_join(void *impl, const char *id,
			struct store_race_player *pl)
{
	char at[24];
	const char *p[] = {id, pl->name, pl->session_id,
			   I64(at, pl->joined_at)};
	PGresult *r;
	int rc = query_one(impl, S_RACE_JOIN, p, &r);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	pl->seat = (int)col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_race_start(void *impl, const char *id, const char *scramble,
			 int64_t go_at)
{
	char at[24];
	const char *p[] = {id, scramble, I64(at, go_at)};
	int rc = exec_one(impl, S_RACE_START, p);
	return rc == STORE_NOT_FOUND ? STORE_CONFLICT : rc;
}

/* ---------------------------------------------------------- timed solves */

static int pg_add_timed(void *impl, const char *session_id,
			const struct store_timed *t, int64_t *out_id)
{
	char v[24], at[24];
	const char *p[] = {session_id, I64(v, t->version), t->actor,
			   t->scramble ? t->scramble : "", I64(at, t->inspect_at)};
	PGresult *r;
	int rc = call(impl, S_INSERT_TIMED, p, &r);
	if (rc != STORE_OK)
		return rc;
	if (out_id)
		*out_id = col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_list_timed(void *impl, const char *session_id, int64_t after,
			 struct store_timed *out, int cap)
{
	char a[24], c[16];
	const char *p[] = {session_id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = query_rows(impl, after < 0 ? S_LIST_TIMED_NEWEST : S_LIST_TIMED,
			   p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_timed *v = &out[i];
		memset(v, 0, sizeof *v);
		v->id = col_i64(r, i, 0);
		v->version = col_i64(r, i, 1);
		snprintf(v->actor, sizeof v->actor, "%s", PQgetvalue(r, i, 2));
		v->scramble = col_dup(r, i, 3);
		v->inspect_at = col_i64(r, i, 4);
		if (!v->scramble) {
			while (i-- > 0)
				store_timed_free(&out[i]);
			PQclear(r);
			return nomem(impl);
		}
	}
	PQclear(r);
	return k;
}

/* ----------------------------------------------------------------- tokens */

/* Columns id, role, name, created_at, revoked_at (0 = live). */
static void read_token(const PGresult *r, int row, struct store_token *t)
{
	memset(t, 0, sizeof *t);
	t->id = col_i64(r, row, 0);
	snprintf(t->role, sizeof t->role, "%s", PQgetvalue(r, row, 1));
	snprintf(t->name, sizeof t->name, "%s", PQgetvalue(r, row, 2));
	t->created_at = col_i64(r, row, 3);
	t->revoked_at = col_i64(r, row, 4);
}

static int pg_add_token(void *impl, const char *session_id,
			struct store_token *t, const unsigned char *hash)
{
	char h[2 * STORE_HASH_LEN + 1], at[24];
	hex_encode(h, hash, STORE_HASH_LEN);
	const char *p[] = {session_id, t->role, t->name[0] ? t->name : NULL, h,
			   I64(at, t->created_at)};
	PGresult *r;
	int rc = query_one(impl, S_INSERT_TOKEN, p, &r);
	if (rc != STORE_OK) /* no row: the name is taken */
		return rc == STORE_NOT_FOUND ? STORE_CONFLICT : rc;
	t->id = col_i64(r, 0, 0);
	snprintf(t->name, sizeof t->name, "%s", PQgetvalue(r, 0, 1));
	PQclear(r);
	return STORE_OK;
}

static int pg_find_token(void *impl, const char *session_id,
			 const unsigned char *hash, struct store_token *out)
{
	char h[2 * STORE_HASH_LEN + 1];
	hex_encode(h, hash, STORE_HASH_LEN);
	const char *p[] = {session_id, h};
	PGresult *r;
	int rc = query_one(impl, S_FIND_TOKEN, p, &r);
	if (rc != STORE_OK)
		return rc;
	read_token(r, 0, out);
	PQclear(r);
	return STORE_OK;
}

static int pg_list_tokens(void *impl, const char *session_id,
			  struct store_token *out, int cap)
{
	char c[16];
	const char *p[] = {session_id, I64(c, cap)};
	PGresult *r;
	int k = query_rows(impl, S_LIST_TOKENS, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++)
		read_token(r, i, &out[i]);
	PQclear(r);
	return k;
}

static int pg_revoke_token(void *impl, const char *session_id, int64_t id,
			   int64_t when)
{
	char i[24], w[24];
	const char *p[] = {session_id, I64(i, id), I64(w, when)};
	return exec_one(impl, S_REVOKE_TOKEN, p);
}

/* The rows are locked as the sorted scan returns them: in id order on
 * every node. Session ids are URL-safe base64, but every element is
 * quoted and escaped anyway. */
static int pg_lock_sessions(void *impl, const char *const *ids, int n)
{
	size_t cap = 3;
	for (int i = 0; i < n; i++)
		cap += 2 * strlen(ids[i]) + 3;
	char *arr = malloc(cap);
	if (!arr)
		return nomem(impl);
	size_t k = 0;
	arr[k++] = '{';
	for (int i = 0; i < n; i++) {
		if (i)
			arr[k++] = ',';
		arr[k++] = '"';
		for (const char *c = ids[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				arr[k++] = '\\';
			arr[k++] = *c;
		}
		arr[k++] = '"';
	}
	arr[k++] = '}';
	arr[k] = '\0';
	const char *p[] = {arr};
	PGresult *r;
	int rc = call(impl, S_LOCK_SESSIONS, p, &r);
	free(arr);
	if (rc != STORE_OK)
		return rc;
	/* the versions of the rows now held (store_session_version) */
	struct tls *t = tls_get(impl);
	int rows = PQntuples(r);
	if (t && t->txn && rows > t->caplocked) {
		struct locked *m = realloc(t->locked, (size_t)rows * sizeof *m);
		if (m) {
			t->locked = m;
			t->caplocked = rows;
		}
	}
	if (t && t->txn && rows <= t->caplocked) {
		t->nlocked = 0;
		for (int i = 0; i < rows; i++) {
			struct locked *l = &t->locked[t->nlocked];
			if (snprintf(l->id, sizeof l->id, "%s",
				     PQgetvalue(r, i, 0)) >= (int)sizeof l->id)
				continue;
			l->version = col_i64(r, i, 1);
			t->nlocked++;
		}
		qsort(t->locked, (size_t)t->nlocked, sizeof *t->locked,
		      by_locked_id);
	}
	PQclear(r);
	return STORE_OK;
}

/* ----------------------------------------------------------- idempotency */

/* In the writer's transaction: under READ COMMITTED the INSERT waits for
 * another node's open transaction that holds the key, then either finds
 * its committed record (no row returned: read it) or, if it rolled back,
 * inserts. */
static int pg_idem_take(void *impl, const unsigned char *scope,
			const unsigned char *print, int64_t now,
			int64_t ttl_ms, struct store_idem *out)
{
	struct pg *st = impl;
	char sc[65], pr[65], at[24], old[24];
	hex_encode(sc, scope, 32);
	hex_encode(pr, print, 32);
	const char *p[] = {sc, pr, I64(at, now), I64(old, now - ttl_ms)};
	PGresult *r;
	int rc = call(st, S_IDEM_TAKE, p, &r);
	if (rc != STORE_OK)
		return rc;
	int claimed = PQntuples(r) == 1;
	PQclear(r);
	if (claimed)
		return STORE_OK;
	const char *g[] = {sc};
	rc = query_one(st, S_IDEM_GET, g, &r);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	hex_decode(out->print, PQgetvalue(r, 0, 0), 32);
	int none = PQgetisnull(r, 0, 1);
	out->result = col_dup(r, 0, 1);
	out->created_at = col_i64(r, 0, 2);
	PQclear(r);
	if (!none && !out->result)
		return nomem(st);
	return STORE_CONFLICT;
}

static int pg_idem_keep(void *impl, const unsigned char *scope,
			const char *result)
{
	char sc[65];
	hex_encode(sc, scope, 32);
	const char *p[] = {sc, result};
	return exec_one(impl, S_IDEM_KEEP, p);
}

static int pg_idem_drop(void *impl, const unsigned char *scope)
{
	char sc[65];
	hex_encode(sc, scope, 32);
	const char *p[] = {sc};
	return exec(impl, S_IDEM_DROP, p);
}

static int pg_idem_expire(void *impl, int64_t before)
{
	char b[24];
	const char *p[] = {I64(b, before)};
	return exec(impl, S_IDEM_EXPIRE, p);
}

/* Two statements, not one: the read must see a key another node
 * committed while the insert waited for it (a statement's snapshot would
 * not). */
static int pg_ticket_key(void *impl, const unsigned char *candidate,
			 unsigned char *key)
{
	struct pg *st = impl;
	char hex[2 * STORE_TICKET_KEY_LEN + 1];
	hex_encode(hex, candidate, STORE_TICKET_KEY_LEN);
	const char *p[] = {hex};
	/* read first: a key that is there needs no write, so a node on a
	 * database that is read-only just now still has stream tickets */
	PGresult *r;
	int rc = query_one(st, S_TICKET_KEY_GET, NULL, &r);
	if (rc == STORE_NOT_FOUND) {
		rc = exec(st, S_TICKET_KEY_PUT, p);
		if (rc != STORE_OK)
			return rc;
		rc = query_one(st, S_TICKET_KEY_GET, NULL, &r);
	}
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	const char *v = PQgetvalue(r, 0, 0);
	int ok = v && strlen(v) == 2 * STORE_TICKET_KEY_LEN;
	if (ok)
		hex_decode(key, v, STORE_TICKET_KEY_LEN);
	PQclear(r);
	return ok ? STORE_OK : STORE_ERROR;
}

const struct store_engine store_pg_engine = {
	.name = "postgresql",
	.accepts = pg_accepts,
	.open = pg_open,
	.close = pg_close,
	.last_error = pg_last_error,
	.unavailable = pg_unavailable,
	.schema_version = pg_schema_version,
	.ping = pg_ping,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.probe_write = pg_probe_write,
	.insert_session = pg_insert_session,
	.insert_event = pg_insert_event,
	.get_session = pg_get_session,
	.session_version = pg_session_version,
	.advance = pg_advance,
	.append = pg_append,
	.add_snapshot = pg_add_snapshot,
	.last_reset = pg_last_reset,
	.snapshot_at = pg_snapshot_at,
	.get_event = pg_get_event,
	.events_after = pg_events_after,
	.delete_session = pg_delete_session,
	.count_sessions = pg_count_sessions,
	.add_solve = pg_add_solve,
	.list_solves = pg_list_solves,
	.race_add = pg_race_add,
	.race_get = pg_race_get,
	.race_players = pg_race_players,
	.race_join = pg_race_join,
	.race_start = pg_race_start,
	.add_timed = pg_add_timed,
	.list_timed = pg_list_timed,
	.add_token = pg_add_token,
	.find_token = pg_find_token,
	.list_tokens = pg_list_tokens,
	.revoke_token = pg_revoke_token,
	.lock_sessions = pg_lock_sessions,
	.defer = pg_defer,
	.deferred_failed = pg_deferred_failed,
	.idem_take = pg_idem_take,
	.idem_keep = pg_idem_keep,
	.idem_drop = pg_idem_drop,
	.idem_expire = pg_idem_expire,
	.used_bytes = pg_used_bytes,
	.pool_stats = pg_pool_stats,
	.ticket_key = pg_ticket_key,
	.listen = pg__listen,
};
