/* store_pg_write.c — the PostgreSQL engine's write transaction, beyond
 * its statements: the session rows it locked and their versions, what
 * it read ahead for catching up on other nodes' writes (store_prefetch:
 * one statement for a batch's sessions, where each cost two round
 * trips), and the appends it defers to send as one statement
 * (store_pg_shared.h says who owns what).
 *
 * Round trips: the writer's batch (sessions_writer.c) locks its sessions
 * in one statement, which also returns their versions (struct locked:
 * while the transaction holds a row, its version is known here without
 * asking). Its appends are deferred (store_defer): each is checked
 * against the locked version at once (a stale one is a conflict with no
 * round trip) and kept; all of them then go as one statement (flush)
 * before the transaction's next statement that could see them, or with
 * its COMMIT. The transaction's connection is in libpq's pipeline mode
 * (store_pg_pool.c, pg__group): store_begin sends nothing, BEGIN goes
 * in the round trip of the transaction's first statement (the lock),
 * and the flush and COMMIT go in one round trip. So a batch of moves
 * costs two round trips whatever its size (it cost four with BEGIN and
 * COMMIT alone, and before deferral three a write: version check,
 * advance, event). A snapshot row that follows a kept append to its
 * session is kept too and goes in the same statement (it cost a third
 * round trip in about half the batches). Since PostgreSQL runs the
 * COMMIT queued behind the flush unless the flush fails, the flush statement fails itself when
 * its counts differ (S_FLUSH: not every session moved or not every
 * event was added); then PostgreSQL skips the COMMIT, the whole batch is
 * rolled back and deferred_failed tells the writer to run it again with
 * each write alone. A failed COMMIT ended the transaction; a lost
 * connection leaves its outcome unknown (STORE_UNKNOWN). Outside
 * deferral an append is still one statement (S_APPEND: advance and
 * event together).
 *
 * Uses the pool (store_pg_pool.c) for its one statement; the pool calls
 * back only through st->before_run (pg__before_run, set by pg_open). */
#include "store_pg_shared.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_locked_id(const void *a, const void *b)
{
	return strcmp(((const struct locked *)a)->id,
		      ((const struct locked *)b)->id);
}

/* The open transaction's lock on session id, or NULL (not locked, or no
 * transaction). */
struct locked *pg__locked_find(struct tls *t, const char *id)
{
	if (!t || !t->txn || t->nlocked == 0)
		return NULL;
	struct locked key;
	if (snprintf(key.id, sizeof key.id, "%s", id) >= (int)sizeof key.id)
		return NULL;
	return bsearch(&key, t->locked, (size_t)t->nlocked, sizeof key,
		       by_locked_id);
}

/* The rows store_lock_sessions' statement returned (id, version), kept
 * as the open transaction's locks, sorted for pg__locked_find. Nothing
 * is kept outside a transaction, or when there is no memory for it (the
 * versions are then asked for again). */
void pg__locked_keep(struct tls *t, const PGresult *r)
{
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
			l->version = pg__col_i64(r, i, 1);
			t->nlocked++;
		}
		qsort(t->locked, (size_t)t->nlocked, sizeof *t->locked,
		      by_locked_id);
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

void pg__pend_clear(struct tls *t)
{
	for (int i = 0; i < t->npend; i++)
		store_event_free(&t->pend[i].e);
	t->npend = 0;
	for (int i = 0; i < t->nsnap; i++)
		free(t->snaps[i].state);
	t->nsnap = 0;
}

/* The deferred appends (store_defer) as one statement, with commit
 * followed by COMMIT in the same round trip: each session row moved from
 * before its first to after its last append of the batch, only if it is
 * still where the lock found it, and the event rows in the order they
 * were appended (their notifications go out in that order at commit),
 * each only if its session moved. Every session must have moved and
 * every event been inserted, else the statement itself fails (S_FLUSH
 * checks its counts: a COMMIT behind it must not commit part of a
 * batch) and the transaction must be rolled back. */
void pg__prefetch_clear(struct tls *t)
{
	PQclear(t->pre_rows);
	t->pre_rows = NULL;
	t->npre = 0;
}

struct pre *pg__pre_find(struct tls *t, const char *id)
{
	if (!t || !t->txn)
		return NULL;
	for (int i = 0; i < t->npre; i++)
		if (strcmp(t->pre[i].id, id) == 0)
			return &t->pre[i];
	return NULL;
}

void pg__pre_forget(struct tls *t, const char *id)
{
	struct pre *pr = pg__pre_find(t, id);
	if (pr)
		pr->row_used = pr->events_used = 1;
}

/* store_prefetch: S_PREFETCH gives a row per event (ordered by session,
 * then version), each with its session's columns; a session with no
 * event after its mark has one row with NULL event columns. Sessions it
 * did not return (gone) are not kept: their calls ask as before. */
int pg__prefetch(void *impl, const char *const *ids, const int64_t *after,
		 int n, int cap)
{
	struct pg *st = impl;
	struct tls *t = pg__tls(st);
	if (!t || !t->txn)
		return STORE_OK; /* nothing to answer from outside one */
	pg__prefetch_clear(t);
	if (n > t->pre_cap) {
		struct pre *m = realloc(t->pre, (size_t)n * sizeof *m);
		if (!m)
			return STORE_OK; /* the calls ask as before */
		t->pre = m;
		t->pre_cap = n;
	}
	struct arr a[2] = {{0}};
	arr_put(&a[0], "{", 1);
	arr_put(&a[1], "{", 1);
	for (int i = 0; i < n; i++) {
		arr_text(&a[0], ids[i]);
		arr_i64(&a[1], after[i]);
	}
	arr_put(&a[0], "}", 1);
	arr_put(&a[1], "}", 1);
	/* without memory for the arrays nothing is read ahead: the calls
	 * ask as before */
	int rc = STORE_OK;
	if (!a[0].nomem && !a[1].nomem) {
		char c[24];
		const char *p[] = {a[0].p, a[1].p, I64(c, cap)};
		PGresult *r;
		rc = pg__call(st, S_PREFETCH, p, &r);
		if (rc == STORE_OK) {
			t->pre_rows = r;
			int rows = PQntuples(r);
			for (int i = 0; i < rows; i++) {
				const char *id = PQgetvalue(r, i, 0);
				struct pre *pr = t->npre ? &t->pre[t->npre - 1]
							 : NULL;
				if (!pr || strcmp(pr->id, id) != 0) {
					if (t->npre == n)
						break; /* one per id asked */
					pr = &t->pre[t->npre];
					if (snprintf(pr->id, sizeof pr->id, "%s",
						     id) >= (int)sizeof pr->id)
						continue;
					t->npre++;
					pr->first = i;
					pr->count = 0;
					pr->row_used = pr->events_used = 0;
					pr->after = -1;
					for (int k = 0; k < n; k++)
						if (strcmp(ids[k], id) == 0)
							pr->after = after[k];
				}
				if (!PQgetisnull(r, i, 11))
					pr->count++;
			}
			t->pre_cap_asked = cap;
		}
	}
	free(a[0].p);
	free(a[1].p);
	return rc;
}

int pg__flush(struct pg *st, struct tls *t, struct pconn *c,
	      int64_t deadline, int commit)
{
	if (t->npend == 0)
		return STORE_OK;
	struct arr a[17] = {{0}};
	for (int i = 0; i < 17; i++)
		arr_put(&a[i], "{", 1);
	/* the snapshot rows: after the events, so after their sessions
	 * moved (a snapshot follows an append to its session) */
	for (int i = 0; i < t->nsnap; i++) {
		arr_text(&a[14], t->snaps[i].id);
		arr_i64(&a[15], t->snaps[i].version);
		arr_text(&a[16], t->snaps[i].state);
	}
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
	int n = t->npend, rc, nomem = 0;
	char counts[2][24];
	snprintf(counts[0], sizeof counts[0], "%d", nsess);
	snprintf(counts[1], sizeof counts[1], "%d", n);
	const char *p[19];
	for (int i = 0; i < 17; i++) {
		arr_put(&a[i], "}", 1);
		nomem |= a[i].nomem;
		p[i < 14 ? i : i + 2] = a[i].p;
	}
	p[14] = counts[0];
	p[15] = counts[1];
	pg__pend_clear(t);
	int failed_at = 0;
	if (nomem) {
		pg__set_error(t, 0, "out of memory%s", "");
		rc = STORE_ERROR;
	} else {
		const struct pg_cmd cmd[2] = {
			{.id = S_FLUSH, .params = p},
			{.id = -1, .sql = "COMMIT", .expect = "COMMIT"}};
		PGresult *r[2] = {NULL, NULL};
		rc = c->piped ? pg__group(st, t, c, cmd, commit ? 2 : 1,
					  deadline, r, &failed_at)
			      : pg__run_now(st, t, c, S_FLUSH, p, deadline,
					    &r[0]);
		if (rc == STORE_OK) {
			long long moved = atoll(PQgetvalue(r[0], 0, 0)),
				  added = atoll(PQgetvalue(r[0], 0, 1));
			PQclear(r[0]);
			PQclear(r[1]);
			/* S_FLUSH fails itself; this only keeps the
			 * promise if the statement ever stops checking */
			if (moved != nsess || added != n) {
				pg__set_error(t, 0,
					  "deferred appends did not apply: %s",
					  "the counts differ");
				rc = STORE_ERROR;
			}
		}
	}
	for (int i = 0; i < 17; i++)
		free(a[i].p);
	/* with COMMIT, only the flush's own failure: COMMIT's ended the
	 * transaction, and a lost connection's outcome is unknown */
	if (rc != STORE_OK && (!commit || failed_at == 0))
		t->deferred_failed = 1;
	return rc;
}

/* Whether an append to session id is kept for the flush. */
static int pending(const struct tls *t, const char *id)
{
	for (int i = 0; i < t->npend; i++)
		if (strcmp(t->pend[i].id, id) == 0)
			return 1;
	return 0;
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
		return pending(t, p[0]);
	default:
		return 1;
	}
}

/* st->before_run (the pool calls it before each statement on the
 * transaction's connection): the deferred appends go first when
 * statement id may see them. */
int pg__before_run(struct pg *st, struct tls *t, struct pconn *c, int id,
		   const char *const *p, int64_t deadline)
{
	if (t->npend == 0 || !flush_first(t, (enum stmt_id)id, p))
		return STORE_OK;
	return pg__flush(st, t, c, deadline, 0);
}

/* store_defer: from now on this thread's appends to locked rows are
 * kept for the flush. */
void pg__defer(void *impl, int on)
{
	struct tls *t = pg__tls(impl);
	if (t)
		t->defer = on;
}

/* Whether the thread's last failure was a flush's (the caller then runs
 * the transaction again with deferral off to learn which write it
 * was). */
int pg__deferred_failed(void *impl)
{
	struct pg *st = impl;
	struct tls *t = pthread_getspecific(st->key);
	return t && t->deferred_failed;
}

int pg__defer_snapshot(struct pg *st, struct tls *t, const char *id,
		       int64_t version, char *state)
{
	if (!pending(t, id))
		return 0;
	if (t->nsnap == t->capsnap) {
		int cap = t->capsnap ? 2 * t->capsnap : 8;
		struct snap *m = realloc(t->snaps, (size_t)cap * sizeof *m);
		if (!m)
			return pg__nomem(st);
		t->snaps = m;
		t->capsnap = cap;
	}
	struct snap *sn = &t->snaps[t->nsnap++];
	snprintf(sn->id, sizeof sn->id, "%s", id);
	sn->version = version;
	sn->state = state;
	return 1;
}

/* An append to session id, whose row the open transaction locked (l) at
 * e->version - 1, kept for the flush (store_defer): l moves to
 * e->version at once, and the session row and the event row are written
 * by the flush. */
int pg__defer_append(struct pg *st, struct tls *t, struct locked *l,
		     const char *id, const struct store_event *e,
		     int64_t undo_top, int64_t redo_top)
{
	if (t->npend == t->cappend) {
		int cap = t->cappend ? 2 * t->cappend : 16;
		struct pend *m = realloc(t->pend,
					 (size_t)cap * sizeof *m);
		if (!m)
			return pg__nomem(st);
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
		return pg__nomem(st);
	}
	snprintf(pd->id, sizeof pd->id, "%s", id);
	pd->undo_top = undo_top;
	pd->redo_top = redo_top;
	t->npend++;
	l->version = e->version;
	return STORE_OK;
}
