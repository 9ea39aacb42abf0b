/* store_pg.c — the PostgreSQL engine behind store.h (store_engine.h),
 * through libpq, for `--db postgres://…` (or postgresql://…): several cubed
 * nodes sharing one database.
 *
 * This file is the engine table and its operations; the pool and round
 * trips are store_pg_pool.c's, the write transaction's locks and
 * deferred appends store_pg_write.c's (store_pg_shared.h says who owns
 * what, and which way the arrows point).
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
#include "store_pg_shared.h"

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
#include "store_pg_migrate.h"

#define PG_POOL 8             /* connections per node at most */

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
		pg__prefetch_clear(t);
		free(t->pre);
		for (int i = 0; i < t->npend; i++)
			store_event_free(&t->pend[i].e);
		free(t->pend);
		for (int i = 0; i < t->nsnap; i++)
			free(t->snaps[i].state);
		free(t->snaps);
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
	if (cfg->txn_lease_ms > 0)
		snprintf(st->lease_ms, sizeof st->lease_ms, "%d",
			 cfg->txn_lease_ms);
	pthread_mutex_init(&st->lock, NULL);
	pthread_mutex_init(&st->ready_lock, NULL);
	st->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : PG_TIMEOUT_MS;
	st->pool_max = cfg->pool > 0 ? cfg->pool : PG_POOL;
	st->before_run = pg__before_run;
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
	int rc = pg__exec(impl, S_PING, NULL);
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
		struct tls *t = pg__tls(st);
		if (t)
			pg__set_error(t, 1, "the LISTEN connection is down%s "
					"(reconnecting)", "");
		rc = STORE_UNAVAILABLE;
	}
	return rc;
}

/* No round trip: the connection goes into pipeline mode and BEGIN (with
 * the lease) waits to go with the transaction's first statement
 * (pg__group), which tells whether it began. */
static int pg_begin(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pg__tls(st);
	if (!t)
		return STORE_ERROR;
	if (t->txn) {
		pg__set_error(t, 0, "a transaction is already open%s", "");
		return STORE_ERROR;
	}
	struct pconn *c = pg__acquire(st, t, pg__deadline(st));
	if (!c)
		return t->unavailable ? STORE_UNAVAILABLE : STORE_ERROR;
	if (!PQenterPipelineMode(c->pq)) {
		pg__set_error(t, 0, "cannot enter pipeline mode: %s",
			      PQerrorMessage(c->pq));
		pg__release(st, t, c);
		return STORE_ERROR;
	}
	c->piped = 1;
	t->txn = c;
	t->begin_pending = 1;
	t->nlocked = 0;
	pg__pend_clear(t);
	pg__prefetch_clear(t);
	t->deferred_failed = 0;
	return STORE_OK;
}

/* COMMIT or ROLLBACK (sql, answered expect), unless nothing was sent
 * since BEGIN (which then is not sent either); the connection leaves
 * pipeline mode and goes back to the pool. */
static int end_txn(struct pg *st, const char *sql, const char *expect)
{
	struct tls *t = pg__tls(st);
	if (!t || !t->txn)
		return STORE_ERROR;
	struct pconn *c = t->txn;
	pg__pend_clear(t);
	pg__prefetch_clear(t);
	int rc = STORE_OK;
	if (t->begin_pending)
		t->begin_pending = 0;
	else
		rc = pg__simple(st, t, c, sql, expect);
	t->txn = NULL;
	t->nlocked = 0;
	pg__unpipe(st, c);
	pg__release(st, t, c);
	return rc;
}

/* A COMMIT whose answer never came (the connection went after it was
 * sent) may have committed or not: STORE_UNKNOWN, so the caller does not
 * say "nothing was changed" (a retry with its Idempotency-Key learns
 * which). A connection already broken before it was sent committed
 * nothing. The deferred appends go in the same round trip as COMMIT
 * (pg__flush): when they fail, PostgreSQL skips the COMMIT, and the
 * transaction is rolled back here with the flush's error. */
static int pg_commit(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pg__tls(st);
	if (!t || !t->txn)
		return STORE_ERROR;
	int was_up = PQstatus(t->txn->pq) == CONNECTION_OK, rc;
	if (t->npend > 0) {
		rc = pg__flush(st, t, t->txn, pg__deadline(st), 1);
		if (rc != STORE_OK && t->deferred_failed) {
			char why[sizeof t->error];
			int down = t->unavailable;
			snprintf(why, sizeof why, "%s", t->error);
			end_txn(st, "ROLLBACK", "ROLLBACK");
			pg__set_error(t, down, "%s", why);
			return rc;
		}
		/* COMMIT was sent and answered, or its answer was lost */
		struct pconn *c = t->txn;
		t->txn = NULL;
		t->nlocked = 0;
		pg__prefetch_clear(t);
		pg__unpipe(st, c);
		pg__release(st, t, c);
	} else {
		rc = end_txn(st, "COMMIT", "COMMIT");
	}
	if (rc == STORE_UNAVAILABLE && was_up) {
		char why[sizeof t->error];
		snprintf(why, sizeof why, "%s", t->error);
		pg__set_error(t, 1, "the connection to PostgreSQL was lost while "
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
	return pg__exec(impl, S_PROBE_WRITE, NULL);
}

/* Writing no row needs no page, so on a full disk pg_probe_write
 * succeeds and a full episode would end at every /readyz: while one
 * lasts, a new temporary table takes its first page instead (in the
 * database's tablespace; the subtransaction leaves nothing). */
static int pg_probe_space(void *impl)
{
	return pg__exec(impl, S_PROBE_SPACE, NULL);
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
	pg__pre_forget(pg__tls(impl), id);
	char v[24], at[24], ref[24], link[24];
	const char *p[] = {id, I64(v, e->version), e->kind,
			   e->moves ? e->moves : "", e->actor,
			   I64(at, e->created_at), I64(ref, e->ref),
			   I64(link, e->link)};
	return pg__exec(impl, S_INSERT_EVENT, p);
}

/* Text parameters end at a NUL: a state is 6n² facelet letters, which
 * the session layer hands over without one. A snapshot that follows a
 * deferred append to its session goes with the appends' flush (no round
 * trip of its own). */
static int pg_add_snapshot(void *impl, const char *id, int64_t version,
			   const char *state, size_t len)
{
	char *text = malloc(len + 1);
	if (!text)
		return pg__nomem(impl);
	memcpy(text, state, len);
	text[len] = '\0';
	struct tls *t = pg__tls(impl);
	int kept = t && t->txn && t->defer
			   ? pg__defer_snapshot(impl, t, id, version, text)
			   : 0;
	if (kept != 0) {
		if (kept != 1)
			free(text);
		return kept == 1 ? STORE_OK : kept;
	}
	char v[24];
	const char *p[] = {id, I64(v, version), text};
	int rc = pg__exec(impl, S_INSERT_SNAPSHOT, p);
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
	int rc = pg__exec_one(st, S_INSERT_SESSION, p);
	if (rc == STORE_NOT_FOUND) { /* nothing inserted: the id is taken */
		struct tls *t = pg__tls(st);
		if (t)
			pg__set_error(t, 0, "session %s exists", ss->id);
		return STORE_CONFLICT;
	}
	return rc;
}

/* A session row from columns c .. c + 9 of row (S_GET_SESSION's). */
static int read_session(struct pg *st, const PGresult *r, int row, int c,
			const char *id, struct store_session *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = (int)pg__col_i64(r, row, c);
	out->created_at = pg__col_i64(r, row, c + 1);
	out->updated_at = pg__col_i64(r, row, c + 2);
	out->version = pg__col_i64(r, row, c + 3);
	out->undo_top = pg__col_i64(r, row, c + 4);
	out->redo_top = pg__col_i64(r, row, c + 5);
	hex_decode(out->token_hash, PQgetvalue(r, row, c + 6), STORE_HASH_LEN);
	int untitled = PQgetisnull(r, row, c + 7);
	out->title = pg__col_dup(r, row, c + 7);
	out->is_private = strcmp(PQgetvalue(r, row, c + 8), "private") == 0;
	int unscrambled = PQgetisnull(r, row, c + 9);
	out->scramble = pg__col_dup(r, row, c + 9);
	if ((!untitled && !out->title) || (!unscrambled && !out->scramble)) {
		store_session_free(out);
		return pg__nomem(st);
	}
	return STORE_OK;
}

static int pg_get_session(void *impl, const char *id,
			  struct store_session *out)
{
	struct tls *t = pg__tls(impl);
	struct pre *pr = pg__pre_find(t, id);
	if (pr && !pr->row_used) { /* read ahead (store_prefetch) */
		pr->row_used = 1;
		return read_session(impl, t->pre_rows, pr->first, 1, id, out);
	}
	const char *p[] = {id};
	PGresult *r;
	int rc = pg__query_one(impl, S_GET_SESSION, p, &r);
	if (rc != STORE_OK)
		return rc;
	rc = read_session(impl, r, 0, 0, id, out);
	PQclear(r);
	return rc;
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
	struct tls *t = pg__tls(st);
	struct locked *l = pg__locked_find(t, id);
	if (l) {
		if (l->version < 0)
			return STORE_NOT_FOUND;
		*version = l->version;
		return STORE_OK;
	}
	const char *p[] = {id};
	PGresult *r;
	int rc = pg__query_one(impl, t && t->txn ? S_SESSION_VERSION_LOCK
					    : S_SESSION_VERSION,
			   p, &r);
	if (rc != STORE_OK)
		return rc;
	*version = pg__col_i64(r, 0, 0);
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
	out->round_trips = atomic_load(&st->n_trips);
}

/* The database's bytes on disk, every node's rows (and its indexes,
 * free space and TOAST): what --max-db-size caps, for the cluster. */
static int pg_used_bytes(void *impl, int64_t *bytes)
{
	PGresult *r;
	int rc = pg__query_one(impl, S_DB_SIZE, NULL, &r);
	if (rc != STORE_OK)
		return rc;
	*bytes = pg__col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

/* NOT_FOUND when nothing was advanced: not at e->version - 1 (another
 * node wrote), or gone. */
static int pg_advance(void *impl, const char *id, const struct store_event *e,
		      int64_t undo_top, int64_t redo_top)
{
	pg__pre_forget(pg__tls(impl), id);
	struct locked *l = pg__locked_find(pg__tls(impl), id);
	if (l && l->version != e->version - 1)
		return STORE_NOT_FOUND; /* the row is ours: it is not there */
	char v[24], u[24], rd[24], at[24];
	const char *p[] = {id, I64(v, e->version), I64(u, undo_top),
			   I64(rd, redo_top), I64(at, e->created_at)};
	int rc = pg__exec_one(impl, S_ADVANCE, p);
	if (rc == STORE_OK && l)
		l->version = e->version;
	return rc;
}

/* pg_advance and pg_insert_event in one statement (one round trip): the
 * event row is inserted only if the session row moved. */
static int pg_append(void *impl, const char *id, const struct store_event *e,
		     int64_t undo_top, int64_t redo_top)
{
	struct tls *t = pg__tls(impl);
	pg__pre_forget(t, id);
	struct locked *l = pg__locked_find(t, id);
	if (l && l->version != e->version - 1)
		return STORE_NOT_FOUND;
	if (l && t->defer) /* the row is ours and at e->version - 1 */
		return pg__defer_append(impl, t, l, id, e, undo_top, redo_top);
	char v[24], u[24], rd[24], at[24], ref[24], link[24];
	const char *p[] = {id, I64(v, e->version), I64(u, undo_top),
			   I64(rd, redo_top), I64(at, e->created_at), e->kind,
			   e->moves ? e->moves : "", e->actor, I64(ref, e->ref),
			   I64(link, e->link)};
	int rc = pg__exec_one(impl, S_APPEND, p);
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
	int rc = pg__query_one(impl, S_SNAPSHOT_AT, p, &r);
	if (rc != STORE_OK)
		return rc;
	*version = pg__col_i64(r, 0, 0);
	*state = pg__col_dup(r, 0, 1);
	*len = (size_t)PQgetlength(r, 0, 1);
	PQclear(r);
	return *state ? STORE_OK : pg__nomem(impl);
}

static int pg_last_reset(void *impl, const char *id, int64_t at,
			 int64_t *reset)
{
	char a[24];
	const char *p[] = {id, I64(a, at)};
	PGresult *r;
	int rc = pg__call(impl, S_LAST_RESET, p, &r);
	if (rc != STORE_OK)
		return rc;
	*reset = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0) ? pg__col_i64(r, 0, 0)
							    : -1;
	PQclear(r);
	return STORE_OK;
}

/* Columns version, kind, moves, actor, created_at, ref, link. */
/* An event from columns c .. c + 6 of row (version, kind, moves, actor,
 * created_at, ref, link). */
static int read_event(const PGresult *r, int row, int c,
		      struct store_event *e)
{
	memset(e, 0, sizeof *e);
	e->version = pg__col_i64(r, row, c);
	snprintf(e->kind, sizeof e->kind, "%s", PQgetvalue(r, row, c + 1));
	e->moves = pg__col_dup(r, row, c + 2);
	e->actor = pg__col_dup(r, row, c + 3);
	e->created_at = pg__col_i64(r, row, c + 4);
	e->ref = pg__col_i64(r, row, c + 5);
	e->link = pg__col_i64(r, row, c + 6);
	if (!e->moves || (!PQgetisnull(r, row, c + 3) && !e->actor)) {
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
	int rc = pg__query_one(impl, S_GET_EVENT, p, &r);
	if (rc != STORE_OK)
		return rc;
	rc = read_event(r, 0, 0, out);
	PQclear(r);
	return rc == STORE_OK ? rc : pg__nomem(impl);
}

static int pg_events_after(void *impl, const char *id, int64_t after,
			   struct store_event *out, int cap)
{
	if (cap <= 0)
		return 0;
	struct tls *t = pg__tls(impl);
	struct pre *pr = pg__pre_find(t, id);
	/* read ahead (store_prefetch) from the same mark, and all that is
	 * asked for (or all there is) */
	if (pr && !pr->events_used && pr->after == after &&
	    (cap <= pr->count || pr->count < t->pre_cap_asked)) {
		pr->events_used = 1;
		int k = cap < pr->count ? cap : pr->count;
		for (int i = 0; i < k; i++)
			if (read_event(t->pre_rows, pr->first + i, 11,
				       &out[i]) != STORE_OK) {
				while (i-- > 0)
					store_event_free(&out[i]);
				return pg__nomem(impl);
			}
		return k;
	}
	char a[24], c[16];
	const char *p[] = {id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = pg__query_rows(impl, S_EVENTS_AFTER, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++)
		if (read_event(r, i, 0, &out[i]) != STORE_OK) {
			while (i-- > 0)
				store_event_free(&out[i]);
			PQclear(r);
			return pg__nomem(impl);
		}
	PQclear(r);
	return k;
}

static int pg_delete_session(void *impl, const char *id)
{
	pg__pre_forget(pg__tls(impl), id);
	const char *p[] = {id};
	int rc = pg__exec_one(impl, S_DELETE_SESSION, p);
	struct locked *l = pg__locked_find(pg__tls(impl), id);
	if (rc == STORE_OK && l)
		l->version = -1;
	return rc;
}

static int pg_count_sessions(void *impl, int64_t *count)
{
	PGresult *r;
	int rc = pg__call(impl, S_COUNT_SESSIONS, NULL, &r);
	if (rc != STORE_OK)
		return rc;
	*count = pg__col_i64(r, 0, 0);
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
	int rc = pg__call(impl, S_INSERT_SOLVE, p, &r);
	if (rc != STORE_OK)
		return rc;
	if (out_id)
		*out_id = pg__col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_list_solves(void *impl, const char *session_id, int64_t after,
			  struct store_solve *out, int cap)
{
	char a[24], c[16];
	const char *p[] = {session_id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = pg__query_rows(impl, S_LIST_SOLVES, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_solve *v = &out[i];
		memset(v, 0, sizeof *v);
		v->id = pg__col_i64(r, i, 0);
		v->version = pg__col_i64(r, i, 1);
		snprintf(v->method, sizeof v->method, "%s",
			 PQgetvalue(r, i, 2));
		v->solution = pg__col_dup(r, i, 3);
		v->length = (int)pg__col_i64(r, i, 4);
		v->elapsed_ms = strtod(PQgetvalue(r, i, 5), NULL);
		v->created_at = pg__col_i64(r, i, 6);
		if (!v->solution) {
			while (i-- > 0)
				store_solve_free(&out[i]);
			PQclear(r);
			return pg__nomem(impl);
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
	return pg__exec(impl, S_RACE_ADD, p);
}

static int pg_race_get(void *impl, const char *id, struct store_race *out)
{
	const char *p[] = {id};
	PGresult *r;
	int rc = pg__query_one(impl, S_RACE_GET, p, &r);
	if (rc != STORE_OK)
		return rc;
	memset(out, 0, sizeof *out);
	snprintf(out->id, sizeof out->id, "%s", id);
	out->size = (int)pg__col_i64(r, 0, 0);
	int untitled = PQgetisnull(r, 0, 1);
	out->title = pg__col_dup(r, 0, 1);
	hex_decode(out->token_hash, PQgetvalue(r, 0, 2), STORE_HASH_LEN);
	out->created_at = pg__col_i64(r, 0, 3);
	int unstarted = PQgetisnull(r, 0, 4);
	out->scramble = pg__col_dup(r, 0, 4);
	out->go_at = PQgetisnull(r, 0, 5) ? 0 : pg__col_i64(r, 0, 5);
	PQclear(r);
	if ((!untitled && !out->title) || (!unstarted && !out->scramble)) {
		store_race_free(out);
		return pg__nomem(impl);
	}
	return STORE_OK;
}

static int pg_race_players(void *impl, const char *id,
			   struct store_race_player *out, int cap)
{
	char c[16];
	const char *p[] = {id, I64(c, cap)};
	PGresult *r;
	int k = pg__query_rows(impl, S_RACE_PLAYERS, p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_race_player *v = &out[i];
		memset(v, 0, sizeof *v);
		v->seat = (int)pg__col_i64(r, i, 0);
		snprintf(v->name, sizeof v->name, "%s", PQgetvalue(r, i, 1));
		snprintf(v->session_id, sizeof v->session_id, "%s",
			 PQgetvalue(r, i, 2));
		v->joined_at = pg__col_i64(r, i, 3);
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
	int rc = pg__query_one(impl, S_RACE_JOIN, p, &r);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	pl->seat = (int)pg__col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_race_start(void *impl, const char *id, const char *scramble,
			 int64_t go_at)
{
	char at[24];
	const char *p[] = {id, scramble, I64(at, go_at)};
	int rc = pg__exec_one(impl, S_RACE_START, p);
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
	int rc = pg__call(impl, S_INSERT_TIMED, p, &r);
	if (rc != STORE_OK)
		return rc;
	if (out_id)
		*out_id = pg__col_i64(r, 0, 0);
	PQclear(r);
	return STORE_OK;
}

static int pg_list_timed(void *impl, const char *session_id, int64_t after,
			 struct store_timed *out, int cap)
{
	char a[24], c[16];
	const char *p[] = {session_id, I64(a, after), I64(c, cap)};
	PGresult *r;
	int k = pg__query_rows(impl, after < 0 ? S_LIST_TIMED_NEWEST : S_LIST_TIMED,
			   p, cap, &r);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		struct store_timed *v = &out[i];
		memset(v, 0, sizeof *v);
		v->id = pg__col_i64(r, i, 0);
		v->version = pg__col_i64(r, i, 1);
		snprintf(v->actor, sizeof v->actor, "%s", PQgetvalue(r, i, 2));
		v->scramble = pg__col_dup(r, i, 3);
		v->inspect_at = pg__col_i64(r, i, 4);
		if (!v->scramble) {
			while (i-- > 0)
				store_timed_free(&out[i]);
			PQclear(r);
			return pg__nomem(impl);
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
	t->id = pg__col_i64(r, row, 0);
	snprintf(t->role, sizeof t->role, "%s", PQgetvalue(r, row, 1));
	snprintf(t->name, sizeof t->name, "%s", PQgetvalue(r, row, 2));
	t->created_at = pg__col_i64(r, row, 3);
	t->revoked_at = pg__col_i64(r, row, 4);
}

static int pg_add_token(void *impl, const char *session_id,
			struct store_token *t, const unsigned char *hash)
{
	char h[2 * STORE_HASH_LEN + 1], at[24];
	hex_encode(h, hash, STORE_HASH_LEN);
	const char *p[] = {session_id, t->role, t->name[0] ? t->name : NULL, h,
			   I64(at, t->created_at)};
	PGresult *r;
	int rc = pg__query_one(impl, S_INSERT_TOKEN, p, &r);
	if (rc != STORE_OK) /* no row: the name is taken */
		return rc == STORE_NOT_FOUND ? STORE_CONFLICT : rc;
	t->id = pg__col_i64(r, 0, 0);
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
	int rc = pg__query_one(impl, S_FIND_TOKEN, p, &r);
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
	int k = pg__query_rows(impl, S_LIST_TOKENS, p, cap, &r);
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
	return pg__exec_one(impl, S_REVOKE_TOKEN, p);
}

/* The rows are locked as the sorted scan returns them: in id order on
 * every node. Session ids are URL-safe base64, but every element is
 * quoted and escaped anyway. */
static int pg_lock_sessions(void *impl, const char *const *ids, int n)
{
	if (n == 0) { /* nothing to lock: no round trip */
		struct tls *t = pg__tls(impl);
		if (!t)
			return STORE_ERROR;
		t->nlocked = 0;
		return STORE_OK;
	}
	size_t cap = 3;
	for (int i = 0; i < n; i++)
		cap += 2 * strlen(ids[i]) + 3;
	char *arr = malloc(cap);
	if (!arr)
		return pg__nomem(impl);
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
	int rc = pg__call(impl, S_LOCK_SESSIONS, p, &r);
	free(arr);
	if (rc != STORE_OK)
		return rc;
	/* the versions of the rows now held (store_session_version) */
	pg__locked_keep(pg__tls(impl), r);
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
	int rc = pg__call(st, S_IDEM_TAKE, p, &r);
	if (rc != STORE_OK)
		return rc;
	int claimed = PQntuples(r) == 1;
	PQclear(r);
	if (claimed)
		return STORE_OK;
	const char *g[] = {sc};
	rc = pg__query_one(st, S_IDEM_GET, g, &r);
	if (rc != STORE_OK)
		return rc == STORE_NOT_FOUND ? STORE_ERROR : rc;
	hex_decode(out->print, PQgetvalue(r, 0, 0), 32);
	int none = PQgetisnull(r, 0, 1);
	out->result = pg__col_dup(r, 0, 1);
	out->created_at = pg__col_i64(r, 0, 2);
	PQclear(r);
	if (!none && !out->result)
		return pg__nomem(st);
	return STORE_CONFLICT;
}

static int pg_idem_keep(void *impl, const unsigned char *scope,
			const char *result)
{
	char sc[65];
	hex_encode(sc, scope, 32);
	const char *p[] = {sc, result};
	return pg__exec_one(impl, S_IDEM_KEEP, p);
}

static int pg_idem_drop(void *impl, const unsigned char *scope)
{
	char sc[65];
	hex_encode(sc, scope, 32);
	const char *p[] = {sc};
	return pg__exec(impl, S_IDEM_DROP, p);
}

static int pg_idem_expire(void *impl, int64_t before)
{
	char b[24];
	const char *p[] = {I64(b, before)};
	return pg__exec(impl, S_IDEM_EXPIRE, p);
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
	int rc = pg__query_one(st, S_TICKET_KEY_GET, NULL, &r);
	if (rc == STORE_NOT_FOUND) {
		rc = pg__exec(st, S_TICKET_KEY_PUT, p);
		if (rc != STORE_OK)
			return rc;
		rc = pg__query_one(st, S_TICKET_KEY_GET, NULL, &r);
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
	.probe_space = pg_probe_space,
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
	.prefetch = pg__prefetch,
	.defer = pg__defer,
	.deferred_failed = pg__deferred_failed,
	.idem_take = pg_idem_take,
	.idem_keep = pg_idem_keep,
	.idem_drop = pg_idem_drop,
	.idem_expire = pg_idem_expire,
	.used_bytes = pg_used_bytes,
	.pool_stats = pg_pool_stats,
	.ticket_key = pg_ticket_key,
	.listen = pg__listen,
};

