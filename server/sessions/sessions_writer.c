/* sessions_writer.c — the session layer's one writer thread: every change
 * is an op queued here (writer_submit, the one way in; the synchronous
 * calls wait on top of it), taken in batches of up to max_batch, run in one
 * transaction by the rules (sessions_rules.c), committed, published to the
 * cache and to live watchers, then completed — in that order, so a reply
 * or an event never tells of a write that is not committed, and a reader
 * never sees one either.
 *
 * Completing is the answerer thread's: the writer hands it each published
 * batch and goes on to the next one. An op's done resumes its request's
 * connection, and the HTTP thread it wakes often runs at once on the
 * writer's core: done inline cost the writer about 15 µs an op, 0.24 ms
 * of each 1.9 ms batch on PostgreSQL, time the next batch waited for. */
#include "session_layer.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* How old the database's size may be on a store shared by many nodes
 * (PostgreSQL: asking costs a directory walk on the server). */
#define USED_BYTES_MS 1000

void op_free(struct ses_op *op)
{
	if (!op)
		return;
	free(op->nodes);
	free(op->canonical);
	free(op->moves_out);
	session_state_release(op->result);
	session_state_release(op->start);
	free(op);
}

/* Forget what a run of op produced (its transaction rolled back). */
static void op_reset(struct sessions *s, struct ses_op *op)
{
	session_state_release(op->result);
	op->result = NULL;
	free(op->moves_out);
	op->moves_out = NULL;
	op->snapshots = op->conflicts = 0;
	op->replayed = 0;
	struct sentry *e = op->entry;
	if (!e)
		return;
	/* rebuilt from the committed state at the next write */
	e->w.valid = 0;
	e->w.ops = 0;
	e->w.checked = 0;
	if (op->kind == OP_CREATE) { /* never listed: gone with its pin */
		cache_unpin(s, e);
		op->entry = NULL;
	}
}

static int by_id(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Other nodes write too: take every session the batch touches now, in id
 * order (see store_lock_sessions), so no two nodes' batches wait for each
 * other in a circle. SES_OK, SES_NOMEM or a store failure. */
static int lock_batch(struct sessions *s, struct ses_op *batch, int count)
{
	const char **ids = malloc((size_t)count * sizeof *ids);
	if (!ids)
		return SES_NOMEM;
	int n = 0;
	for (struct ses_op *op = batch; op && n < count; op = op->next)
		if (op->id[0] && op->kind != OP_CREATE)
			ids[n++] = op->id;
	qsort(ids, (size_t)n, sizeof *ids, by_id);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (k == 0 || strcmp(ids[k - 1], ids[i]) != 0)
			ids[k++] = ids[i];
	int rc = store_lock_sessions(s->store, ids, k);
	int prc = rc == STORE_OK ? cache_prefetch(s, ids, k) : SES_OK;
	free(ids);
	return rc != STORE_OK ? ses_of_store(rc) : prc;
}

/* An op that may have written part of itself: a database error, or an
 * allocation that failed on the way. */
static int op_failed(int rc)
{
	return ses_store_failed(rc) || rc == SES_NOMEM;
}

/* The ops of a batch in one transaction: SES_OK if it committed (each
 * op's rc says whether it is in it), else the session error of the store
 * call that failed (every op's result is dropped and the caller turns
 * each SES_OK into it). *events counts the events appended.
 *
 * No savepoint per op (a savepoint copies every page an op first touches
 * into the statement journal, and costs two more statements per op).
 * Every refusal an op can give (a wrong token, a stale If-Match, a name
 * taken, ...) is found before it writes anything, or is a single statement
 * that failed (SQLite undoes a failed statement by itself). Only
 * a store failure (a database error) or SES_NOMEM can come after part of an op
 * was written: then the whole transaction is rolled back and the batch
 * runs again without that op, which keeps its error.
 *
 * Appends are deferred (store_defer: on PostgreSQL the batch's appends go
 * in one statement, not one round trip each). A deferred append that
 * failed fails a later call instead, so such a failure blames no op: the
 * batch runs again with deferral off, where each write fails itself. */
static int run_batch(struct sessions *s, struct ses_op *batch,
		     uint64_t *events)
{
	int count = 0;
	for (struct ses_op *op = batch; op; op = op->next)
		count++;
	for (struct ses_op *op = batch; op; op = op->next)
		op->rc = SES_OK;
	/* past the storage cap only what frees space (or withdraws a
	 * token) is taken; once per batch: two page counts (SQLite), or
	 * the database's size on disk at most once a second (PostgreSQL:
	 * every node's rows, so the cap is the cluster's, reached up to a
	 * second late) */
	int over = 0;
	if (s->max_db_bytes > 0) {
		int64_t now = sessions_now_ms();
		int64_t used = s->used_bytes;
		if (!s->shared || now - s->used_at >= USED_BYTES_MS ||
		    now < s->used_at) {
			if (store_used_bytes(s->store, &used) == STORE_OK) {
				s->used_bytes = used;
				s->used_at = now;
			} else {
				used = 0; /* unknown: the write decides */
			}
		}
		over = used >= s->max_db_bytes;
	}
	int defer = 1;
	store_defer(s->store, defer);
	for (;;) {
		*events = 0;
		int brc = store_begin(s->store);
		if (brc != STORE_OK) {
			for (struct ses_op *op = batch; op; op = op->next)
				op->rc = ses_of_store(brc);
			return ses_of_store(brc);
		}
		int lrc = s->shared ? lock_batch(s, batch, count) : SES_OK;
		if (lrc != SES_OK) {
			store_rollback(s->store);
			for (struct ses_op *op = batch; op; op = op->next)
				op->rc = lrc;
			return lrc;
		}
		struct ses_op *failed = NULL;
		int ran = 0;
		for (struct ses_op *op = batch; op && !failed; op = op->next) {
			if (op_failed(op->rc))
				continue; /* left out after a failed run */
			ran++;
			op->rc = over && op->kind != OP_DELETE &&
					 op->kind != OP_REVOKE
					 ? SES_STORAGE_CAP
				 : op->has_idem ? rules_run_keyed(s, op)
						: rules_run(s, op);
			if (op_failed(op->rc))
				failed = op;
			else if (op->rc == SES_OK && !op->replayed)
				*events += op->kind == OP_CREATE ||
					   op->kind == OP_WRITE;
		}
		if (!ran) {
			/* every op failed in an earlier run: nothing to
			 * commit, and an empty commit's success would end a
			 * storage fault episode (store_fault) that the
			 * failures are still in */
			store_rollback(s->store);
			return SES_OK;
		}
		int crc = failed ? STORE_OK : store_commit(s->store);
		if (!failed && crc == STORE_OK && s->lose_commit &&
		    s->lose_commit(s->lose_commit_ctx))
			crc = STORE_UNKNOWN;
		if (!failed && crc == STORE_OK)
			return SES_OK;
		if (crc == STORE_UNKNOWN) {
			/* the batch may have committed: what this node caches
			 * of its sessions may be behind the rows now, so it is
			 * read again from them; no op is run again (a keyed
			 * retry finds its committed result and replays it) */
			log_msg(LOG_WARN, "a write batch's commit went "
				"unanswered: %s", store_last_error(s->store));
			for (struct ses_op *op = batch; op; op = op->next) {
				op_reset(s, op);
				if (op->id[0])
					cache_forget(s, op->id);
				if (op->rc == SES_OK)
					op->rc = SES_OUTCOME_UNKNOWN;
			}
			return SES_OUTCOME_UNKNOWN;
		}
		/* the operator's clue: the client gets 500 or 503 */
		log_msg(LOG_WARN, "a write batch was rolled back: %s",
			store_last_error(s->store));
		int deferred = defer && store_deferred_failed(s->store);
		store_rollback(s->store);
		for (struct ses_op *op = batch; op; op = op->next)
			op_reset(s, op);
		if (deferred) {
			/* whose write failed is not known: again, each
			 * write sent by itself */
			store_defer(s->store, defer = 0);
			for (struct ses_op *op = batch; op; op = op->next)
				if (op == failed || !op_failed(op->rc))
					op->rc = SES_OK;
			continue;
		}
		if (!failed)
			return ses_of_store(crc);
		/* run again without it, from a clean slate */
		for (struct ses_op *op = batch; op; op = op->next)
			if (op != failed && !op_failed(op->rc))
				op->rc = SES_OK;
	}
}

/* Tell the watchers of one committed op (writer thread, after commit). */
static void publish(struct sessions *s, const struct ses_op *op)
{
	struct session_event e = {0};
	switch (op->kind) {
	case OP_WRITE:
		e.id = op->id;
		e.type = op->event_type;
		e.version = op->result->version;
		e.size = op->result->size;
		e.moves = op->moves_out ? op->moves_out : "";
		e.actor = op->actor_out;
		e.state = op->result;
		e.created_at = op->result->updated_at;
		break;
	case OP_DELETE:
		e.id = op->id;
		e.type = "delete";
		e.moves = "";
		e.version = -1;
		e.created_at = sessions_now_ms();
		break;
	case OP_SOLVE:
		e.id = op->id;
		e.type = "solve";
		e.version = op->solve->version;
		e.moves = op->solve->solution ? op->solve->solution : "";
		e.facelets = op->facelets;
		e.created_at = op->solve->created_at;
		e.method = op->solve->method;
		break;
	case OP_TIMED:
		/* a timed solve began: watchers start its clock */
		e.id = op->id;
		e.type = "timed";
		e.version = op->timed->version;
		e.moves = op->timed->scramble ? op->timed->scramble : "";
		e.actor = op->timed->actor;
		e.created_at = op->timed->inspect_at;
		break;
	default:
		return;
	}
	s->on_event(s->on_event_ctx, &e);
}

static void stats_batch(struct sessions_stats *st, uint64_t n)
{
	static const uint64_t edges[] = {1, 3, 7, 15, 63};
	int b = 5;
	for (int i = 0; i < 5; i++)
		if (n <= edges[i]) {
			b = i;
			break;
		}
	st->batch_hist[b]++;
	if (n > st->batch_max)
		st->batch_max = n;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* After the batch ran (brc: run_batch's SES_OK, or why it did not
 * commit): publish what committed, let go of the entries. */
static void finish_batch(struct sessions *s, struct ses_op *batch, int brc,
			 uint64_t *snapshots, uint64_t *conflicts)
{
	/* a storage fault keeps its kind (ses_of_store): the client can do
	 * something about it (retry later); so does a database that cannot
	 * be reached (PostgreSQL down), whatever the call said */
	int down = store_unavailable(s->store);
	for (struct ses_op *op = batch; op; op = op->next) {
		if (brc != SES_OK && op->rc == SES_OK)
			op->rc = brc;
		if (down && ses_store_failed(op->rc))
			op->rc = SES_UNAVAILABLE;
		*snapshots += op->snapshots;
		*conflicts += op->conflicts;
		if (op->rc != SES_OK || op->replayed)
			continue;
		struct sentry *e = op->entry;
		if (op->kind == OP_WRITE || op->kind == OP_CREATE)
			cache_publish(s, e, op->result,
				      op->kind == OP_WRITE ? e->w.since_events
							   : 0,
				      op->kind == OP_WRITE ? e->w.since_work : 0);
		else if (op->kind == OP_DELETE)
			cache_forget(s, op->id);
	}
	for (struct ses_op *op = batch; op; op = op->next) {
		if (op->entry) {
			op->entry->w.ops = 0;
			op->entry->w.checked = 0;
		}
	}
	if (s->on_event)
		for (struct ses_op *op = batch; op; op = op->next)
			if (op->rc == SES_OK && !op->replayed)
				publish(s, op);
	for (struct ses_op *op = batch; op; op = op->next)
		if (op->entry) {
			cache_unpin(s, op->entry);
			op->entry = NULL;
		}
}

/* Idempotency-Key results past their TTL go about once a minute, in a
 * transaction of their own (a failure only means they wait for the next
 * try; an expired key is replaced when it comes again anyway). */
static void expire_keys(struct sessions *s)
{
	int64_t now = sessions_now_ms();
	if (now - s->idem_expired_ms < 60000)
		return;
	s->idem_expired_ms = now;
	if (store_begin(s->store) != STORE_OK)
		return;
	if (store_idem_expire(s->store, now - s->idem_ttl_ms) == STORE_OK)
		store_commit(s->store);
	else
		store_rollback(s->store);
}

static void *writer_main(void *arg)
{
	struct sessions *s = arg;
	prctl(PR_SET_NAME, "cubed-writer", 0, 0, 0);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->stop)
			pthread_cond_wait(&s->wake, &s->lock);
		if (!s->head && s->stop)
			break;
		/* take up to max_batch ops */
		struct ses_op *batch = s->head, *last = s->head;
		int count = 1;
		while (last->next && count < s->max_batch) {
			last = last->next;
			count++;
		}
		s->head = last->next;
		s->stats.queued -= (uint64_t)count;
		if (!s->head)
			s->tail = NULL;
		last->next = NULL;
		s->busy = 1;
		pthread_mutex_unlock(&s->lock);

		uint64_t t0 = thread_cpu_ns(), events = 0, snapshots = 0,
			 conflicts = 0, kept = 0, replayed = 0;
		int brc = run_batch(s, batch, &events);
		int ok = brc == SES_OK;
		finish_batch(s, batch, brc, &snapshots, &conflicts);
		for (struct ses_op *op = batch; op; op = op->next)
			if (op->has_idem && op->rc == SES_OK) {
				kept += !op->replayed;
				replayed += op->replayed;
			}
		expire_keys(s);
		uint64_t spent = thread_cpu_ns() - t0;

		pthread_mutex_lock(&s->lock);
		if (ok) {
			s->stats.commits++;
			s->stats.events_appended += events;
			stats_batch(&s->stats, (uint64_t)count);
		}
		s->stats.writes += (uint64_t)count;
		s->stats.snapshots += snapshots;
		s->stats.conflicts += conflicts;
		s->stats.writer_cpu_ns += spent;
		s->stats.idem_kept += kept;
		s->stats.idem_replayed += replayed;
		/* to the answerer, after the batches before it */
		if (s->done_tail)
			s->done_tail->next = batch;
		else
			s->done_head = batch;
		s->done_tail = last;
		pthread_cond_signal(&s->answer);
		s->busy = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The answerer: calls done for every op the writer hands it, in order. */
static void *answerer_main(void *arg)
{
	struct sessions *s = arg;
	prctl(PR_SET_NAME, "cubed-answer", 0, 0, 0);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->done_head && !s->answer_stop)
			pthread_cond_wait(&s->answer, &s->lock);
		if (!s->done_head)
			break; /* answer_stop, and nothing left */
		struct ses_op *ops = s->done_head;
		s->done_head = s->done_tail = NULL;
		s->answering = 1;
		pthread_mutex_unlock(&s->lock);
		/* a callback may free its op (or return from a waiting call):
		 * read next first, touch nothing after */
		for (struct ses_op *op = ops, *next; op; op = next) {
			next = op->next;
			op->done(op->ctx);
		}
		pthread_mutex_lock(&s->lock);
		s->answering = 0;
		if (s->closing && !s->head && !s->busy && !s->done_head)
			pthread_cond_broadcast(&s->idle);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

void writer_submit(struct sessions *s, struct ses_op *op)
{
	op->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->stop || s->closing) {
		pthread_mutex_unlock(&s->lock);
		op->rc = SES_SHUTDOWN;
		op->done(op->ctx);
		return;
	}
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	s->stats.submitted++;
	s->stats.queued++;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
};

static void wake_waiter(void *ctx)
{
	struct waiter *w = ctx;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

int writer_run(struct sessions *s, struct ses_op *op)
{
	struct waiter w = {.done = 0};
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	op->done = wake_waiter;
	op->ctx = &w;
	writer_submit(s, op);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return op->rc;
}

static void writer_sync_free(struct sessions *s)
{
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->answer);
	pthread_cond_destroy(&s->idle);
}

/* The answerer goes once every op handed to it is answered. */
static void answerer_stop(struct sessions *s)
{
	pthread_mutex_lock(&s->lock);
	s->answer_stop = 1;
	pthread_cond_signal(&s->answer);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->answerer, NULL);
}

int writer_start(struct sessions *s)
{
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->answer, NULL);
	pthread_cond_init(&s->idle, NULL);
	if (pthread_create(&s->answerer, NULL, answerer_main, s) != 0) {
		writer_sync_free(s);
		return -1;
	}
	if (pthread_create(&s->writer, NULL, writer_main, s) != 0) {
		answerer_stop(s);
		writer_sync_free(s);
		return -1;
	}
	return 0;
}

void writer_stop(struct sessions *s)
{
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->writer, NULL);
	/* after the writer: it hands over no more */
	answerer_stop(s);
	writer_sync_free(s);
}
