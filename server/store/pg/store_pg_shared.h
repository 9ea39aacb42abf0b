/* store_pg_shared.h — what the PostgreSQL engine's own files share, and
 * no other file: the statements (by id), a pooled connection, a thread's
 * state (its transaction, its locks, its deferred appends, its last
 * error), and the functions each file offers the one above it.
 *
 * Who owns what, from the top:
 *   store_pg.c        the engine table (store_engine.h) and its
 *                     operations: sessions, events, snapshots, solves,
 *                     races, timed solves, tokens, Idempotency-Key
 *                     records, the tickets' key; open/close, begin,
 *                     commit, rollback;
 *   store_pg_write.c  the write transaction's bookkeeping: the rows it
 *                     locked and their versions, the deferred appends
 *                     (store_defer) and their flush, one statement per
 *                     batch;
 *   store_pg_pool.c   the pool, connections by a deadline, one round
 *                     trip, retries of reads, errors (set, failed, lost),
 *                     and the call/exec/query helpers;
 *   store_pg_ready.c  (store_pg_ready.h) the engine's state, connecting,
 *                     awaiting answers, getting ready.
 * The arrows point down: store_pg.c → store_pg_write.c → store_pg_pool.c
 * → store_pg_ready.c. The pool never calls the write file by name: before
 * a statement on a transaction's connection it calls st->before_run,
 * which pg_open sets to pg__before_run (the flush when the statement may
 * see the deferred appends). store_pg_listen.c and store_pg_migrate.c
 * use store_pg_ready.h only. */
#ifndef CUBED_STORE_PG_SHARED_H
#define CUBED_STORE_PG_SHARED_H

#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>

#include "store_engine.h"
#include "store_pg_ready.h"

/* Every statement the engine runs: its id, its number of parameters and
 * its SQL. Each connection prepares one the first time it runs it. */
#define PG_STATEMENTS(X)                                                       \
	X(S_PING, 0, "SELECT 1")                                               \
	X(S_BEGIN, 0, "BEGIN")                                                 \
	X(S_LEASE, 1,                                                          \
	  "SELECT set_config('idle_in_transaction_session_timeout', $1, "      \
	  "true)")                                                             \
	X(S_COMMIT, 0, "COMMIT")                                               \
	X(S_ROLLBACK, 0, "ROLLBACK")                                           \
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
	X(S_PREFETCH, 3,                                                       \
	  "SELECT w.id, s.size, s.created_at, s.updated_at, s.version, "       \
	  "s.undo_top, s.redo_top, encode(s.token_hash, 'hex'), s.title, "     \
	  "s.visibility, s.scramble, e.version, e.kind, e.moves, e.actor, "    \
	  "e.created_at, e.ref, e.link FROM unnest($1::text[], $2::bigint[]) " \
	  "AS w(id, after) JOIN sessions s ON s.id = w.id LEFT JOIN LATERAL "  \
	  "(SELECT version, kind, moves, actor, created_at, ref, link FROM "   \
	  "events v WHERE v.session_id = w.id AND v.version > w.after ORDER "  \
	  "BY v.version LIMIT $3::bigint) e ON true ORDER BY w.id, e.version") \
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
	X(S_FLUSH, 19,                                                         \
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
	  "WHERE e.sid IN (SELECT id FROM a) ORDER BY e.n RETURNING 1), "      \
	  "p AS (INSERT INTO snapshots (session_id, version, state) "          \
	  "SELECT * FROM unnest($17::text[], $18::bigint[], $19::text[])) "    \
	  "SELECT CASE WHEN m = $15::bigint AND n = $16::bigint THEN m "       \
	  "ELSE ('deferred appends did not apply: ' || m || ' of ' || "        \
	  "$15::bigint || ' sessions moved, ' || n || ' of ' || $16::bigint "  \
	  "|| ' events added')::bigint END, n FROM (SELECT (SELECT count(*) "  \
	  "FROM a) AS m, (SELECT count(*) FROM i) AS n) AS c")                 \
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
	  "INSERT INTO events SELECT * FROM events WHERE false")             \
	/* a table's first page, in a subtransaction undone at once: 53100  \
	 * while the tablespace has no room for it (pg_probe_space) */       \
	X(S_PROBE_SPACE, 0,                                                    \
	  "DO $$BEGIN BEGIN "                                                  \
	  "CREATE TEMP TABLE cubed_space_probe (n int); "                     \
	  "INSERT INTO cubed_space_probe VALUES (1); "                        \
	  "RAISE SQLSTATE 'CBD01'; "                                           \
	  "EXCEPTION WHEN SQLSTATE 'CBD01' THEN NULL; END; END$$")

enum stmt_id {
#define STMT_ENUM(name, n, sql) name,
	PG_STATEMENTS(STMT_ENUM)
#undef STMT_ENUM
	S_COUNT
};

_Static_assert(S_COUNT <= 64, "prepared statements are tracked in 64 bits");

struct pconn {
	PGconn *pq;
	uint64_t prepared; /* bit i: statement i is prepared on pq */
	unsigned gen;      /* st->gen when last known to work */
	unsigned ro_gen;   /* st->ro_gen when it connected */
	int piped;         /* in pipeline mode: a write transaction's */
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

/* One session store_prefetch read ahead: its rows in the kept result
 * (first, and count events after it; a session with none has one row
 * whose event columns are NULL), and whether its row and its events were
 * handed out already (each goes once). */
struct pre {
	char id[STORE_ID_MAX];
	int64_t after;
	int first, count;
	int row_used, events_used;
};

/* An append kept for the flush (store_defer): the event, and the session
 * row's tops after it. */
struct pend {
	struct store_event e; /* moves and actor malloc'd */
	char id[STORE_ID_MAX];
	int64_t undo_top, redo_top;
};

/* A snapshot row kept for the flush (store_defer): it follows an append
 * to the same session in the same transaction, so it goes in the
 * flush's statement, not a round trip of its own. */
struct snap {
	char id[STORE_ID_MAX];
	int64_t version;
	char *state; /* malloc'd, 6n² facelet letters and a NUL */
};

/* What one thread keeps: its open transaction's connection and its last
 * error. */
struct tls {
	struct pconn *txn;
	/* the transaction's BEGIN is not sent yet: it goes in the same
	 * round trip as the transaction's first statement (pg__group) */
	int begin_pending;
	struct locked *locked; /* sorted by strcmp of id */
	int nlocked, caplocked;
	int defer;             /* store_defer */
	struct pend *pend;     /* deferred appends, in order */
	int npend, cappend;
	struct snap *snaps;    /* deferred snapshot rows, in order */
	int nsnap, capsnap;
	/* store_prefetch's result and sessions, until the transaction ends */
	PGresult *pre_rows;
	struct pre *pre;
	int npre, pre_cap;
	int pre_cap_asked; /* the events asked for a session at most */
	int deferred_failed;   /* the last failure was a flush's */
	char error[256];
	int unavailable; /* the last failure: the database is unreachable */
	int dead;        /* the last call's connection turned out dead */
	int denied;      /* the last failure: a privilege missing (42501) */
	struct tls *next;
};

#define I64(buf, v) (snprintf(buf, sizeof buf, "%lld", (long long)(v)), buf)

/* ---------------------------------------------------- store_pg_pool.c */

/* The calling thread's state (made on its first call), or NULL without
 * memory. */
struct tls *pg__tls(struct pg *st);
/* The thread's error: fmt with msg (one %s), libpq's newline trimmed;
 * unavailable: the database is unreachable (store_unavailable). */
void pg__set_error(struct tls *t, int unavailable, const char *fmt,
		   const char *msg);
/* "out of memory" into the thread's error: STORE_ERROR. */
int pg__nomem(struct pg *st);
/* A usable connection for this call (the thread's transaction's, or one
 * from the pool), or NULL with the error set, by deadline; release gives
 * back one that is not the transaction's. */
struct pconn *pg__acquire(struct pg *st, struct tls *t, int64_t deadline);
void pg__release(struct pg *st, struct tls *t, struct pconn *c);
/* c out of pipeline mode (its transaction ended), or dropped when it
 * cannot leave it (answers unread). */
void pg__unpipe(struct pg *st, struct pconn *c);
/* One round trip: sql (or, with name, the prepared statement name; with
 * prepare, prepare sql under name) and its answer by deadline. STORE_OK
 * with *out to PQclear, or the error set (a connection that broke or
 * did not answer is dropped). */
int pg__trip(struct pg *st, struct tls *t, struct pconn *c, int prepare,
	     const char *name, const char *sql, int n,
	     const char *const *params, int64_t deadline, PGresult **out);
/* One command of a round trip in pipeline mode (pg__group): statement
 * id with its parameters, or, with id < 0, sql, "COMMIT" or "ROLLBACK"
 * (S_COMMIT, S_ROLLBACK), whose command tag must be expect. */
struct pg_cmd {
	int id;
	const char *sql, *expect;
	const char *const *params;
};
/* The n commands in one round trip on c, a write transaction's
 * connection (in pipeline mode), after the transaction's BEGIN when it
 * is not sent yet (t->begin_pending), each prepared first where c has not
 * yet: STORE_OK with out[i] each command's result (to PQclear; out may be
 * NULL), or the first failure's error (nothing in out), *failed_at its
 * command's index (-1: the connection, or BEGIN). PostgreSQL skips the
 * commands after a failed one, and a failed statement leaves the
 * transaction to be rolled back. A group that carried BEGIN and no
 * COMMIT, and met a dead connection, runs once more on a new one: it
 * committed nothing. */
int pg__group(struct pg *st, struct tls *t, struct pconn *c,
	      const struct pg_cmd *cmd, int n, int64_t deadline,
	      PGresult **out, int *failed_at);
/* Statement id on c (prepared first if c has not yet), nothing before
 * it (on a write transaction's connection: a group of one). */
int pg__run_now(struct pg *st, struct tls *t, struct pconn *c,
		enum stmt_id id, const char *const *params, int64_t deadline,
		PGresult **out);
/* sql (BEGIN, COMMIT, ROLLBACK) on c, whose command tag must be
 * expect. */
int pg__simple(struct pg *st, struct tls *t, struct pconn *c,
	       const char *sql, const char *expect);
/* The usual call: a connection, st->before_run, the statement, the
 * connection back; a read that met a dead connection runs once more on
 * another. The caller reads *out (when STORE_OK) and PQclears it. */
int pg__call(struct pg *st, enum stmt_id id, const char *const *params,
	     PGresult **out);
/* The shapes of call that recur. exec: the result is not read. exec_one:
 * a statement that changes at most one row, STORE_NOT_FOUND when it
 * changed none. query_one: *r holds the first row (the caller clears
 * it), STORE_NOT_FOUND (nothing to clear) when there is none.
 * query_rows: the number of rows up to cap, *r to clear, or an error. */
int pg__exec(struct pg *st, enum stmt_id id, const char *const *p);
int pg__exec_one(struct pg *st, enum stmt_id id, const char *const *p);
int pg__query_one(struct pg *st, enum stmt_id id, const char *const *p,
		  PGresult **r);
int pg__query_rows(struct pg *st, enum stmt_id id, const char *const *p,
		   int cap, PGresult **r);
/* A column as a number (NULL: 0), or a malloc'd copy (NULL: NULL, or no
 * memory). */
int64_t pg__col_i64(const PGresult *r, int row, int col);
char *pg__col_dup(const PGresult *r, int row, int col);

/* --------------------------------------------------- store_pg_write.c */

/* The open transaction's lock on session id, or NULL (not locked, or no
 * transaction). */
struct locked *pg__locked_find(struct tls *t, const char *id);
/* store_prefetch (store_pg_write.c); what it read about session id in
 * the open transaction, or NULL; and forgetting it all (the transaction
 * ends). */
int pg__prefetch(void *impl, const char *const *ids, const int64_t *after,
		 int n, int cap);
struct pre *pg__pre_find(struct tls *t, const char *id);
/* The transaction writes session id: what was read ahead of it is stale. */
void pg__pre_forget(struct tls *t, const char *id);
void pg__prefetch_clear(struct tls *t);
/* The rows of S_LOCK_SESSIONS (id, version) as the transaction's
 * locks. */
void pg__locked_keep(struct tls *t, const PGresult *r);
/* An append kept for the flush (l: its session's lock, at
 * e->version - 1). */
int pg__defer_append(struct pg *st, struct tls *t, struct locked *l,
		     const char *id, const struct store_event *e,
		     int64_t undo_top, int64_t redo_top);
/* A snapshot row of session id kept for the flush (state: 6n² letters
 * and a NUL, now the flush's): only while an append to id is kept,
 * else 0 and nothing is kept (the caller inserts it at once). 1 when
 * kept, or STORE_ERROR without memory. */
int pg__defer_snapshot(struct pg *st, struct tls *t, const char *id,
		       int64_t version, char *state);
/* The deferred appends and snapshots forgotten (a transaction begins or
 * ends). */
void pg__pend_clear(struct tls *t);
/* The deferred appends as one statement on c, with commit the
 * transaction's COMMIT in the same round trip: STORE_OK when every
 * session moved and every event was inserted (and it committed); a
 * failure of the flush (deferred_failed set: the transaction must be
 * rolled back, and COMMIT was skipped), or COMMIT's (the transaction
 * ended), or the connection's. */
int pg__flush(struct pg *st, struct tls *t, struct pconn *c,
	      int64_t deadline, int commit);
/* st->before_run: the flush, when statement id (parameters p) may see
 * the deferred appends. */
int pg__before_run(struct pg *st, struct tls *t, struct pconn *c, int id,
		   const char *const *p, int64_t deadline);
/* The engine's store_defer and deferred_failed. */
void pg__defer(void *impl, int on);
int pg__deferred_failed(void *impl);

#endif
