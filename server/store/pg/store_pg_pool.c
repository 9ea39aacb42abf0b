/* store_pg_pool.c — the PostgreSQL engine's connections and round trips:
 * the pool, one statement by a deadline, what a failure means, and the
 * call/exec/query helpers the engine's operations are written with
 * (store_pg_shared.h says who owns what).
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
 * A write transaction's connection is in libpq's pipeline mode from
 * store_begin to its end (pg__group): each round trip carries several
 * commands (the transaction's BEGIN, not sent until its first statement;
 * a statement's PQsendPrepare before its first use on the connection;
 * the flush and COMMIT) and a sync, and its answers are read by the same
 * deadline. PostgreSQL skips the commands behind a failed one up to the
 * sync, so the first failure is the one told. A round trip that carried
 * BEGIN but no COMMIT and met a dead connection is sent again, once, on
 * a new connection in the transaction's slot: nothing of it committed.
 * Outside a transaction a connection is out of pipeline mode.
 *
 * Before a statement on a transaction's connection the pool calls
 * st->before_run (store_pg_write.c's flush of the deferred appends): it
 * knows nothing of them itself. */
#include "store_pg_shared.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

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

struct tls *pg__tls(struct pg *st)
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

void pg__set_error(struct tls *t, int unavailable, const char *fmt,
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
	c->piped = 0;
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

/* A new connection in the empty slot c by deadline: 1, or 0 with the
 * error set. */
static int connect_slot(struct pg *st, struct tls *t, struct pconn *c,
			int64_t deadline)
{
	char why[300];
	int temporary = 0;
	c->gen = atomic_load(&st->gen);
	c->ro_gen = atomic_load(&st->ro_gen);
	c->pq = pg__connect(st, deadline, 1, st->app, why, sizeof why,
			    &temporary);
	c->prepared = 0;
	c->piped = 0;
	if (!c->pq)
		pg__set_error(t, 1, "%s", why);
	return c->pq != NULL;
}

/* A usable connection for this call (the thread's transaction's, or one
 * from the pool), or NULL with the error set, by deadline: the wait for
 * a free connection, the check of an idle one and a new connection all
 * count against it. */
struct pconn *pg__acquire(struct pg *st, struct tls *t, int64_t deadline)
{
	if (t->txn)
		return t->txn;
	if (!atomic_load(&st->ready)) {
		char why[300];
		if (pg__make_ready(st, why, sizeof why) != STORE_OK) {
			pg__set_error(t, 1, "%s", why);
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
		pg__set_error(t, 1,
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
			pg__set_error(t, 0, "out of memory%s", "");
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
	if (!c->pq && !connect_slot(st, t, c, deadline)) {
		/* the slot goes back empty: the next use connects */
		c->next = NULL;
		pthread_mutex_lock(&st->lock);
		c->next = st->idle;
		st->idle = c;
		pthread_cond_signal(&st->freed);
		pthread_mutex_unlock(&st->lock);
		return NULL;
	}
	return c;
}

void pg__unpipe(struct pg *st, struct pconn *c)
{
	if (c->pq && c->piped && !PQexitPipelineMode(c->pq))
		drop(st, c); /* answers left unread: not reusable */
	c->piped = 0;
}

void pg__release(struct pg *st, struct tls *t, struct pconn *c)
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
	pg__set_error(t, gone || slow, "%s", why);
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
		pg__set_error(t, 1, "PostgreSQL did not answer within %s ms: the "
				"connection was dropped",
			  I64(ms, st->timeout_ms + st->timeout_ms / 4));
	} else {
		char why[sizeof t->error];
		pg__one_line(why, sizeof why,
			     "the connection to PostgreSQL was lost: ",
			     c->pq ? PQerrorMessage(c->pq) : "gone");
		pg__set_error(t, 1, "%s", why);
		t->dead = 1;
	}
	drop(st, c);
	return STORE_UNAVAILABLE;
}

/* Send sql with params (a prepared statement's name when prepared) and
 * take its answer by deadline. */
int pg__trip(struct pg *st, struct tls *t, struct pconn *c, int prepare,
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
	atomic_fetch_add(&st->n_trips, 1);
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

/* What one round trip in pipeline mode sent, in order, to read back: a
 * PQsendPrepare's answer (for command cmd, statement id), or command
 * cmd's (-1: BEGIN or the lease). */
struct sent {
	int cmd, prepare_id;
	const char *expect;
};

#define GROUP_MAX 8

/* One attempt of pg__group. */
/* Queue statement id (params) on c's pipeline, prepared first if c has
 * not yet (nor earlier in this round trip: *preparing), and note what to
 * read back in sent (cmd: the command's index, -1 for BEGIN and the
 * lease). 0 when libpq could not queue it. */
static int send_one(struct pconn *c, uint64_t *preparing, struct sent *sent,
		    int *k, int cmd, int id, const char *const *params,
		    const char *expect)
{
	char name[16];
	snprintf(name, sizeof name, "s%d", id);
	uint64_t bit = UINT64_C(1) << id;
	if (!((c->prepared | *preparing) & bit)) {
		sent[(*k)++] = (struct sent){cmd, id, NULL};
		*preparing |= bit;
		if (!PQsendPrepare(c->pq, name, stmt_sql[id], stmt_nparams[id],
				   NULL))
			return 0;
	}
	sent[(*k)++] = (struct sent){cmd, -1, expect};
	return PQsendQueryPrepared(c->pq, name, stmt_nparams[id], params, NULL,
				   NULL, 0);
}

/* One attempt of pg__group. BEGIN, the lease, COMMIT and ROLLBACK are
 * prepared statements too: each costs the server a bind and an execute,
 * not a parse as well. */
static int group_once(struct pg *st, struct tls *t, struct pconn *c,
		      const struct pg_cmd *cmd, int n, int64_t deadline,
		      PGresult **out, int *failed_at)
{
	struct sent sent[2 * GROUP_MAX + 4];
	int k = 0;
	if (!c->pq)
		return lost(st, t, c, -1);
	PGconn *pq = c->pq;
	int ok = 1;
	uint64_t preparing = 0;
	if (t->begin_pending) {
		t->begin_pending = 0;
		ok = send_one(c, &preparing, sent, &k, -1, S_BEGIN, NULL,
			      "BEGIN");
		const char *lease[] = {st->lease_ms};
		if (ok && st->lease_ms[0])
			ok = send_one(c, &preparing, sent, &k, -1, S_LEASE,
				      lease, NULL);
	}
	for (int i = 0; i < n && ok; i++) {
		int id = cmd[i].id;
		if (id < 0)
			id = strcmp(cmd[i].sql, "COMMIT") == 0 ? S_COMMIT
							       : S_ROLLBACK;
		ok = send_one(c, &preparing, sent, &k, i, id, cmd[i].params,
			      cmd[i].expect);
	}
	if (!ok || !PQpipelineSync(pq))
		return lost(st, t, c, -1);
	atomic_fetch_add(&st->n_trips, 1);
	/* each command's answer, then NULL; the sync's last. The first
	 * failure is the one to tell: PostgreSQL skips what follows it
	 * (PGRES_PIPELINE_ABORTED) up to the sync. */
	PGresult *res[2 * GROUP_MAX + 2] = {0}, *bad = NULL;
	int bad_at = -1, j = 0, got = 0, rc = STORE_OK, cut = 0;
	for (;;) {
		int why = pg__await(pq, deadline);
		if (why != 0) {
			rc = lost(st, t, c, why);
			cut = 1;
			break;
		}
		PGresult *r = PQgetResult(pq);
		if (!r) {
			if (got) {
				j++;
				got = 0;
			}
			continue;
		}
		ExecStatusType s = PQresultStatus(r);
		if (s == PGRES_PIPELINE_SYNC) {
			PQclear(r);
			if (j < k) { /* the protocol lost its place */
				pg__set_error(t, 0, "PostgreSQL answered "
					      "fewer commands than were sent%s",
					      "");
				rc = STORE_ERROR;
			}
			break;
		}
		if (got || j >= k) {
			PQclear(r); /* a command answers once */
			continue;
		}
		got = 1;
		if (s == PGRES_PIPELINE_ABORTED) {
			PQclear(r);
			continue;
		}
		if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
			if (!bad) {
				bad = r;
				bad_at = sent[j].cmd;
			} else {
				PQclear(r);
			}
			continue;
		}
		if (sent[j].prepare_id >= 0)
			c->prepared |= UINT64_C(1) << sent[j].prepare_id;
		if (sent[j].expect && !bad &&
		    strcmp(PQcmdStatus(r), sent[j].expect) != 0) {
			/* COMMIT of a transaction that failed answers
			 * ROLLBACK */
			pg__set_error(t, 0,
				      "the transaction was rolled back (%s)",
				      PQcmdStatus(r));
			rc = STORE_ERROR;
			bad_at = sent[j].cmd;
		}
		res[j] = r;
	}
	if (rc == STORE_OK && bad)
		rc = failure(st, t, c, bad);
	else
		PQclear(bad);
	if (failed_at)
		*failed_at = rc == STORE_OK || cut ? -1 : bad_at;
	for (int i = 0; i < k; i++) {
		int mine = rc == STORE_OK && out && sent[i].cmd >= 0 &&
			   sent[i].prepare_id < 0;
		if (mine)
			out[sent[i].cmd] = res[i];
		else
			PQclear(res[i]);
	}
	return rc;
}

int pg__group(struct pg *st, struct tls *t, struct pconn *c,
	      const struct pg_cmd *cmd, int n, int64_t deadline,
	      PGresult **out, int *failed_at)
{
	if (n < 1 || n > GROUP_MAX) {
		pg__set_error(t, 0, "a round trip of too many commands%s", "");
		return STORE_ERROR;
	}
	int commits = 0;
	for (int i = 0; i < n; i++)
		commits |= cmd[i].id < 0 && strcmp(cmd[i].sql, "COMMIT") == 0;
	for (int attempt = 0;; attempt++) {
		int begins = t->begin_pending;
		t->dead = 0;
		int rc = group_once(st, t, c, cmd, n, deadline, out, failed_at);
		/* BEGIN and what followed it on a connection that turned out
		 * dead committed nothing: once more, on a new connection in
		 * the same slot (the transaction's) */
		if (rc == STORE_UNAVAILABLE && t->dead && begins && !commits &&
		    attempt == 0 && !c->pq && connect_slot(st, t, c, deadline)) {
			if (PQenterPipelineMode(c->pq)) {
				c->piped = 1;
				t->begin_pending = 1;
				continue;
			}
			drop(st, c);
		}
		return rc;
	}
}

/* Run statement id with n text parameters (NULL = SQL NULL). STORE_OK
 * with *out the result (rows or a command), or an error. */
int pg__run_now(struct pg *st, struct tls *t, struct pconn *c,
		   enum stmt_id id, const char *const *params, int64_t deadline,
		   PGresult **out)
{
	if (c->piped) {
		struct pg_cmd one = {.id = (int)id, .params = params};
		return pg__group(st, t, c, &one, 1, deadline, out, NULL);
	}
	char name[8];
	snprintf(name, sizeof name, "s%d", (int)id);
	if (!(c->prepared & (UINT64_C(1) << id))) {
		PGresult *p;
		int rc = pg__trip(st, t, c, 1, name, stmt_sql[id],
			      stmt_nparams[id], NULL, deadline, &p);
		if (rc != STORE_OK)
			return rc;
		PQclear(p);
		c->prepared |= UINT64_C(1) << id;
	}
	return pg__trip(st, t, c, 0, name, NULL, stmt_nparams[id], params,
		    deadline, out);
}

/* BEGIN / COMMIT / ROLLBACK on the transaction's connection. */
int pg__simple(struct pg *st, struct tls *t, struct pconn *c,
		  const char *sql, const char *expect)
{
	PGresult *r;
	int rc;
	if (c->piped) {
		struct pg_cmd one = {.id = -1, .sql = sql, .expect = expect};
		return pg__group(st, t, c, &one, 1, pg__deadline(st), NULL,
				 NULL);
	}
	rc = pg__trip(st, t, c, 0, NULL, sql, 0, NULL, pg__deadline(st), &r);
	if (rc != STORE_OK)
		return rc;
	/* COMMIT of a transaction that failed answers ROLLBACK */
	if (strcmp(PQcmdStatus(r), expect) != 0) {
		pg__set_error(t, 0, "the transaction was rolled back (%s)",
			  PQcmdStatus(r));
		PQclear(r);
		return STORE_ERROR;
	}
	PQclear(r);
	return STORE_OK;
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

/* run_now, after what the layer above must send first on the
 * transaction's connection (st->before_run: the deferred appends, when
 * the statement may see them, store_pg_write.c). */
static int run(struct pg *st, struct tls *t, struct pconn *c,
	       enum stmt_id id, const char *const *params, int64_t deadline,
	       PGresult **out)
{
	if (t->txn == c && st->before_run) {
		int rc = st->before_run(st, t, c, (int)id, params, deadline);
		if (rc != STORE_OK)
			return rc;
	}
	return pg__run_now(st, t, c, id, params, deadline, out);
}

/* The usual call: a connection, the statement, the connection back. The
 * caller reads *out (when rc is STORE_OK) and PQclears it. */
int pg__call(struct pg *st, enum stmt_id id, const char *const *params,
		PGresult **out)
{
	struct tls *t = pg__tls(st);
	if (!t)
		return STORE_ERROR;
	int64_t deadline = pg__deadline(st);
	for (int attempt = 0;; attempt++) {
		struct pconn *c = pg__acquire(st, t, deadline);
		if (!c)
			return t->unavailable ? STORE_UNAVAILABLE : STORE_ERROR;
		int in_txn = t->txn == c;
		t->dead = 0;
		int rc = run(st, t, c, id, params, deadline, out);
		pg__release(st, t, c);
		if (rc == STORE_UNAVAILABLE && t->dead && !in_txn &&
		    attempt == 0 && reads_only(id))
			continue;
		if (rc == STORE_UNWRITABLE && t->denied && reads_only(id)) {
			/* a read refused (SELECT revoked): not a write fault,
			 * and nothing a client can mend; the reason is the
			 * operator's, said in the log once */
			char why[sizeof t->error];
			snprintf(why, sizeof why, "%s", t->error);
			pg__set_error(t, 1, "the role may not read cubed's "
					    "tables (%s)",
				      why);
			if (atomic_exchange(&st->read_denied_said, 1) == 0)
				log_msg(LOG_ERROR, "database: %s: reads answer "
						   "503 until it is granted",
					t->error);
			return STORE_UNAVAILABLE;
		}
		return rc;
	}
}

int64_t pg__col_i64(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col)
		       ? 0
		       : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

char *pg__col_dup(const PGresult *r, int row, int col)
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
int pg__exec(struct pg *st, enum stmt_id id, const char *const *p)
{
	PGresult *r;
	int rc = pg__call(st, id, p, &r);
	if (rc == STORE_OK)
		PQclear(r);
	return rc;
}

int pg__exec_one(struct pg *st, enum stmt_id id, const char *const *p)
{
	PGresult *r;
	int rc = pg__call(st, id, p, &r);
	if (rc != STORE_OK)
		return rc;
	int n = changed(r);
	PQclear(r);
	return n == 1 ? STORE_OK : STORE_NOT_FOUND;
}

int pg__query_one(struct pg *st, enum stmt_id id, const char *const *p,
		     PGresult **r)
{
	int rc = pg__call(st, id, p, r);
	if (rc == STORE_OK && PQntuples(*r) < 1) {
		PQclear(*r);
		*r = NULL;
		rc = STORE_NOT_FOUND;
	}
	return rc;
}

int pg__query_rows(struct pg *st, enum stmt_id id, const char *const *p,
		      int cap, PGresult **r)
{
	int rc = pg__call(st, id, p, r);
	if (rc != STORE_OK)
		return rc;
	int k = PQntuples(*r);
	return k > cap ? cap : k;
}

int pg__nomem(struct pg *st)
{
	struct tls *t = pg__tls(st);
	if (t)
		pg__set_error(t, 0, "out of memory%s", "");
	return STORE_ERROR;
}
