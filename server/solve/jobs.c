/* jobs.c — the job registry (jobs.h): submission onto the solver pool, the
 * worker's side of a job (waiting for the optimal tables, searching with
 * progress and cancellation through the search's poll, storing a
 * session's solve), look-ups by id, cancellation, and expiry.
 *
 * One mutex guards the registry and every job's fields; the search runs
 * outside it and copies its progress in at each poll (every few thousand
 * nodes). A job is freed only when it is finished and the pool no longer
 * holds it, so the pool's run and drop never see a freed job. */
#include "jobs.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "alg.h"
#include "optimal.h"
#include "repr.h"
#include "sessions.h"
#include "solve_pool.h"
#include "solver.h"
#include "token.h"

struct job {
	struct job *next;        /* the registry's list, newest first */
	struct jobs *owner;
	struct job_view v;       /* what a look-up copies */
	struct limits_key client;
	uint64_t seq, ticket;
	int in_pool;             /* the pool may still run or drop it */
	_Atomic int cancel;
	double t0;               /* monotonic ms when the search began */
	double deadline;         /* monotonic ms when it must stop */
	optimal_progress pr;     /* written by the search (its thread only) */
	unsigned char *labels[DATASET_NCOLUMNS]; /* a dataset job's solver labels */
};

struct jobs {
	struct jobs_config c;
	struct solve_pool *pool;
	struct solver *solver;
	struct sessions *sessions;
	pthread_mutex_t mu;
	struct job *list;
	unsigned count;
	uint32_t epoch;
	uint8_t secret[32];
	uint64_t next_seq;
	uint64_t submitted, done, failed, cancelled;
	_Atomic int stopping;
};

const char *job_state_name(enum job_state s)
{
	static const char *const names[] = {"queued", "running", "done",
					    "failed", "cancelled"};
	return (unsigned)s < 5 ? names[s] : "unknown";
}

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int finished(enum job_state s)
{
	return s == JOB_DONE || s == JOB_FAILED || s == JOB_CANCELLED;
}

/* ---- ids ---------------------------------------------------------------- */

static void mac_of(const struct jobs *j, uint32_t epoch, uint64_t seq,
		   char out[17])
{
	uint8_t buf[32 + 24], h[TOKEN_HASH_LEN];
	memcpy(buf, j->secret, 32);
	int n = snprintf((char *)buf + 32, 24, "%08" PRIx32 "-%" PRIu64, epoch,
			 seq);
	token_sha256(buf, 32 + (size_t)n, h);
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

/* Parse "j<8 hex>-<digits>-<16 hex>"; 0 if it is not that shape. */
static int parse_id(const char *id, uint32_t *epoch, uint64_t *seq,
		    char mac[17])
{
	size_t len = strlen(id);
	if (len < 1 + 8 + 1 + 1 + 1 + 16 || len >= JOB_ID_MAX || id[0] != 'j' ||
	    id[9] != '-')
		return 0;
	uint32_t e = 0;
	for (int i = 1; i <= 8; i++) {
		char c = id[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return 0;
		e = e << 4 | (uint32_t)d;
	}
	const char *p = id + 10;
	uint64_t s = 0;
	int digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits == 15)
			return 0;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (!digits || *p != '-' || strlen(p + 1) != 16)
		return 0;
	for (int i = 0; i < 16; i++) {
		char c = p[1 + i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		mac[i] = c;
	}
	mac[16] = '\0';
	*epoch = e;
	*seq = s;
	return 1;
}

/* ---- the registry ------------------------------------------------------- */

struct jobs *jobs_new(const struct jobs_config *c, struct solve_pool *pool,
		      struct solver *solver, struct sessions *sessions)
{
	struct jobs *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->c = *c;
	if (j->c.max_jobs < 1)
		j->c.max_jobs = 1;
	j->pool = pool;
	j->solver = solver;
	j->sessions = sessions;
	pthread_mutex_init(&j->mu, NULL);
	uint8_t r[36];
	size_t got = 0;
	while (got < sizeof r) {
		ssize_t k = getrandom(r + got, sizeof r - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	if (got < sizeof r) {
		/* no entropy: ids would be guessable */
		pthread_mutex_destroy(&j->mu);
		free(j);
		return NULL;
	}
	memcpy(&j->epoch, r, 4);
	memcpy(j->secret, r + 4, 32);
	return j;
}

static void job_free(struct job *b)
{
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		free(b->labels[c]);
	free(b);
}

/* Forget finished jobs past their TTL; then, while over max (to make room
 * for one more when room is set), the oldest finished ones. Under mu. */
static void sweep(struct jobs *j, int room)
{
	int64_t now = wall_ms();
	struct job **pp = &j->list;
	while (*pp) {
		struct job *b = *pp;
		if (finished(b->v.state) && !b->in_pool &&
		    b->v.finished_at + (int64_t)j->c.ttl_ms <= now) {
			*pp = b->next;
			job_free(b);
			j->count--;
		} else {
			pp = &b->next;
		}
	}
	while (room && j->count >= j->c.max_jobs) {
		struct job **old = NULL;
		for (pp = &j->list; *pp; pp = &(*pp)->next)
			if (finished((*pp)->v.state) && !(*pp)->in_pool)
				old = pp; /* the list is newest first */
		if (!old)
			return;
		struct job *b = *old;
		*old = b->next;
		job_free(b);
		j->count--;
	}
}

static struct job *find(struct jobs *j, const char *id)
{
	for (struct job *b = j->list; b; b = b->next)
		if (strcmp(b->v.id, id) == 0)
			return b;
	return NULL;
}

/* Where an id that is not in the list comes from. Under mu. */
static int missing(struct jobs *j, const char *id)
{
	uint32_t epoch;
	uint64_t seq;
	char mac[17], want[17];
	if (!parse_id(id, &epoch, &seq, mac))
		return JOBS_NOT_FOUND;
	if (epoch != j->epoch)
		return JOBS_LOST;
	mac_of(j, epoch, seq, want);
	if (strcmp(mac, want) != 0 || seq == 0 || seq > j->next_seq)
		return JOBS_NOT_FOUND;
	return JOBS_EXPIRED;
}

/* ---- the worker's side -------------------------------------------------- */

/* End the job in state s (unless it was cancelled meanwhile). Under mu. */
static void finish(struct job *b, enum job_state s, const char *code,
		   const char *detail)
{
	struct jobs *j = b->owner;
	if (finished(b->v.state))
		return;
	b->v.state = s;
	b->v.finished_at = wall_ms();
	if (b->t0 > 0)
		b->v.elapsed_ms = mono_ms() - b->t0;
	if (code) {
		snprintf(b->v.error_code, sizeof b->v.error_code, "%s", code);
		snprintf(b->v.error_detail, sizeof b->v.error_detail, "%s",
			 detail);
	}
	if (s == JOB_DONE)
		j->done++;
	else if (s == JOB_FAILED)
		j->failed++;
	else
		j->cancelled++;
}

static int should_stop(void *ctx)
{
	struct job *b = ctx;
	return atomic_load(&b->cancel) || atomic_load(&b->owner->stopping) ||
	       mono_ms() > b->deadline;
}

static int poll_job(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	struct job *b = ctx;
	pthread_mutex_lock(&b->owner->mu);
	b->v.depth = b->pr.depth;
	b->v.nodes = b->pr.nodes;
	b->v.elapsed_ms = mono_ms() - b->t0;
	pthread_mutex_unlock(&b->owner->mu);
	return should_stop(b);
}

/* Store a session's solution (text in the given frame) with its solves. */
static int store_solve(struct jobs *j, struct job *b, double elapsed)
{
	char text[JOB_MAX_MOVES * 4 + 8];
	moves_print(b->v.moves, (size_t)b->v.count, 3, text, sizeof text);
	struct store_solve sv = {
		.version = b->v.rq.version, .solution = text,
		.length = b->v.count, .elapsed_ms = elapsed,
		.created_at = wall_ms(),
	};
	snprintf(sv.method, sizeof sv.method, "optimal");
	if (sessions_add_solve(j->sessions, b->v.rq.session_id, &sv,
			       b->v.rq.facelets, NULL) != SES_OK)
		return -1;
	b->v.solve_id = sv.id;
	return 0;
}

unsigned jobs_dataset_solver_columns(const dataset_spec *s)
{
	unsigned cols = 0;
	if (s->columns & (1u << DATASET_TWOPHASE))
		cols |= 1u << DATASET_TWOPHASE;
	if (s->n == 3 && (s->columns & (1u << DATASET_OPTIMAL)))
		cols |= 1u << DATASET_OPTIMAL;
	return cols;
}

/* The two-phase tables, waiting while the solver thread loads them;
 * NULL if they failed or the job is to stop. */
static const void *twophase_wait(struct jobs *j, struct job *b)
{
	for (;;) {
		const void *t = solver_table(j->solver, SOLVER_3X3);
		if (t)
			return t;
		const char *state, *reason;
		int pct;
		solver_status(j->solver, SOLVER_3X3, &state, &pct, &reason);
		if (strcmp(state, "failed") == 0 || should_stop(b))
			return NULL;
		/* a deadline, not an order: the thread says nothing when done */
		struct timespec ts = {0, 20000000L};
		nanosleep(&ts, NULL);
	}
}

static int poll_dataset(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	return should_stop(ctx);
}

/* A dataset job: its solver labels, 64 samples at a time (progress and
 * cancellation between them, and inside each search through its poll). */
static void run_dataset(struct job *b)
{
	struct jobs *j = b->owner;
	dataset_spec s = b->v.rq.ds;
	s.columns = jobs_dataset_solver_columns(&b->v.rq.ds);
	unsigned need = dataset_needs(&s);
	pthread_mutex_lock(&j->mu);
	int go = !finished(b->v.state);
	b->v.waiting_for_tables = 1;
	pthread_mutex_unlock(&j->mu);
	dataset_tables t = {NULL, NULL, NULL};
	if (go && (need & DATASET_NEED_TWOPHASE))
		go = (t.twophase = twophase_wait(j, b)) != NULL;
	if (go && (need & DATASET_NEED_OPTIMAL))
		go = (t.optimal = solver_optimal_wait(j->solver, should_stop, b)) != NULL;
	pthread_mutex_lock(&j->mu);
	b->v.waiting_for_tables = 0;
	if (!go && !finished(b->v.state)) {
		if (atomic_load(&j->stopping))
			finish(b, JOB_FAILED, "shutting_down",
			       "the server stopped before the job ran");
		else if (mono_ms() > b->deadline)
			finish(b, JOB_FAILED, "time_limit",
			       "the job's time ran out while the solver's tables "
			       "were being made");
		else if (!atomic_load(&b->cancel))
			finish(b, JOB_FAILED, "tables_failed",
			       "the solver's tables could not be had");
	}
	if (go) {
		b->v.state = JOB_RUNNING;
		b->v.started_at = wall_ms();
		b->t0 = mono_ms();
	}
	pthread_mutex_unlock(&j->mu);
	uint64_t rows = b->v.rq.ds_rows, done = 0;
	int rc = 0;
	while (go && done < rows) {
		uint64_t n = rows - done < 64 ? rows - done : 64;
		unsigned char *out[DATASET_NCOLUMNS] = {0};
		for (int c = 0; c < DATASET_NCOLUMNS; c++)
			if (b->labels[c])
				out[c] = b->labels[c] + done;
		rc = dataset_fill(&s, &t, b->v.rq.ds_first + done, n, out, NULL, 0,
				  poll_dataset, b);
		if (rc < 0)
			break;
		done += n;
		pthread_mutex_lock(&j->mu);
		b->v.ds_done = done;
		b->v.elapsed_ms = mono_ms() - b->t0;
		pthread_mutex_unlock(&j->mu);
	}
	if (!go)
		return;
	pthread_mutex_lock(&j->mu);
	b->v.elapsed_ms = mono_ms() - b->t0;
	if (rc == 0)
		finish(b, JOB_DONE, NULL, NULL);
	else if (atomic_load(&j->stopping))
		finish(b, JOB_FAILED, "shutting_down", "the server stopped while the job ran");
	else if (!atomic_load(&b->cancel) && mono_ms() > b->deadline) {
		char d[200];
		snprintf(d, sizeof d, "the job's time ran out after %" PRIu64
			 " of %" PRIu64 " samples (see --max-job-s)", done, rows);
		finish(b, JOB_FAILED, "time_limit", d);
	} else if (!atomic_load(&b->cancel))
		finish(b, JOB_FAILED, "solver", solve_strerror(rc));
	pthread_mutex_unlock(&j->mu);
}

static void run_job(void *arg)
{
	struct job *b = arg;
	struct jobs *j = b->owner;
	if (b->v.rq.kind == JOB_DATASET) {
		pthread_mutex_lock(&j->mu);
		b->deadline = mono_ms() + (double)j->c.max_job_ms;
		pthread_mutex_unlock(&j->mu);
		run_dataset(b);
		pthread_mutex_lock(&j->mu);
		b->in_pool = 0;
		pthread_mutex_unlock(&j->mu);
		return;
	}
	pthread_mutex_lock(&j->mu);
	b->deadline = mono_ms() + (double)(b->v.rq.time_limit_ms
						   ? b->v.rq.time_limit_ms
						   : j->c.max_job_ms);
	int go = !finished(b->v.state);
	b->v.waiting_for_tables = 1;
	pthread_mutex_unlock(&j->mu);

	const void *tables = go ? solver_optimal_wait(j->solver, should_stop, b)
				: NULL;
	pthread_mutex_lock(&j->mu);
	b->v.waiting_for_tables = 0;
	if (go && !tables) {
		struct solver_optimal_info si;
		solver_optimal_status(j->solver, &si);
		if (atomic_load(&j->stopping))
			finish(b, JOB_FAILED, "shutting_down",
			       "the server stopped before the job ran");
		else if (!atomic_load(&b->cancel) && mono_ms() > b->deadline)
			finish(b, JOB_FAILED, "time_limit",
			       "the job's time ran out while the optimal "
			       "solver's tables were being made");
		else if (!atomic_load(&b->cancel))
			finish(b, JOB_FAILED, "tables_failed",
			       si.reason[0] ? si.reason
					    : "the optimal solver's tables "
					      "could not be had");
		go = 0;
	}
	if (go) {
		b->v.state = JOB_RUNNING;
		b->v.started_at = wall_ms();
		b->t0 = mono_ms();
	}
	pthread_mutex_unlock(&j->mu);
	if (!go)
		goto out;

	optimal_limits lim = {
		.max_length = b->v.rq.max_length, .poll = poll_job, .ctx = b,
		.progress = &b->pr,
	};
	cube_move m[JOB_MAX_MOVES];
	int k;
	if (b->v.rq.max_length == 0) { /* only a solved cube qualifies */
		cubie3 id;
		cubie3_solved(&id);
		k = cubie3_equal(&id, &b->v.rq.cube) ? 0 : SOLVE_ENOTFOUND;
	} else {
		k = optimal_solve(tables, &b->v.rq.cube, &lim, m,
				  JOB_MAX_MOVES);
	}
	double elapsed = mono_ms() - b->t0;
	if (k >= 0)
		repr_moves_to_frame(m, k, 3, &b->v.rq.orient);

	pthread_mutex_lock(&j->mu);
	b->v.depth = b->pr.depth;
	b->v.nodes = b->pr.nodes;
	if (k >= 0 && !finished(b->v.state)) {
		b->v.count = k;
		memcpy(b->v.moves, m, (size_t)k * sizeof m[0]);
		b->v.depth = k - 1;
		if (b->v.rq.session_id[0]) {
			/* the writer commits it: not under the registry's lock */
			pthread_mutex_unlock(&j->mu);
			int rc = store_solve(j, b, elapsed);
			pthread_mutex_lock(&j->mu);
			if (rc < 0)
				finish(b, JOB_FAILED, "not_stored",
				       "the solution was found but could not "
				       "be stored with the session's solves "
				       "(was the session deleted?)");
		}
		finish(b, JOB_DONE, NULL, NULL);
	} else if (k == SOLVE_ENOTFOUND && atomic_load(&j->stopping)) {
		finish(b, JOB_FAILED, "shutting_down",
		       "the server stopped while the job ran");
	} else if (k == SOLVE_ENOTFOUND && !atomic_load(&b->cancel) &&
		   mono_ms() > b->deadline) {
		char d[200];
		snprintf(d, sizeof d,
			 "the job's time ran out after ruling out every "
			 "solution of %d moves or fewer",
			 b->pr.depth);
		finish(b, JOB_FAILED, "time_limit", d);
	} else if (k == SOLVE_ENOTFOUND && !atomic_load(&b->cancel)) {
		char d[200];
		snprintf(d, sizeof d, "no solution of at most %d moves exists",
			 b->v.rq.max_length);
		finish(b, JOB_FAILED, "no_solution_found", d);
	} else if (k < 0 && !atomic_load(&b->cancel)) {
		finish(b, JOB_FAILED, "solver", solve_strerror(k));
	}
	b->v.elapsed_ms = elapsed;
	pthread_mutex_unlock(&j->mu);
out:
	pthread_mutex_lock(&j->mu);
	b->in_pool = 0;
	pthread_mutex_unlock(&j->mu);
}

/* The pool let go of a queued job: cancelled, or the server stops. */
static void drop_job(void *arg)
{
	struct job *b = arg;
	struct jobs *j = b->owner;
	pthread_mutex_lock(&j->mu);
	finish(b, JOB_FAILED, "shutting_down",
	       "the server stopped before the job ran");
	b->in_pool = 0;
	pthread_mutex_unlock(&j->mu);
}

/* ---- the public side ---------------------------------------------------- */

int jobs_submit(struct jobs *j, const struct limits_key *client,
		const struct job_request *rq, struct job_view *out)
{
	if (atomic_load(&j->stopping))
		return JOBS_STOPPED;
	struct job *b = calloc(1, sizeof *b);
	if (!b)
		return JOBS_NOMEM;
	b->owner = j;
	b->client = *client;
	b->v.rq = *rq;
	b->v.state = JOB_QUEUED;
	b->v.depth = -1;
	if (rq->kind == JOB_DATASET) {
		unsigned cols = jobs_dataset_solver_columns(&rq->ds);
		for (int c = 0; c < DATASET_NCOLUMNS; c++)
			if ((cols & (1u << c)) &&
			    !(b->labels[c] = malloc(rq->ds_rows ? rq->ds_rows : 1))) {
				job_free(b);
				return JOBS_NOMEM;
			}
	}
	pthread_mutex_lock(&j->mu);
	sweep(j, 1);
	if (j->count >= j->c.max_jobs) {
		pthread_mutex_unlock(&j->mu);
		job_free(b);
		return JOBS_TOO_MANY;
	}
	b->seq = ++j->next_seq;
	char mac[17];
	mac_of(j, j->epoch, b->seq, mac);
	snprintf(b->v.id, sizeof b->v.id, "j%08" PRIx32 "-%" PRIu64 "-%s",
		 j->epoch, b->seq, mac);
	b->v.created_at = wall_ms();
	b->in_pool = 1;
	b->next = j->list;
	j->list = b;
	j->count++;
	/* queued under the lock, so no look-up sees a job the pool lost */
	int rc = solve_pool_submit(j->pool, client, run_job, drop_job, b,
				   &b->ticket);
	if (rc != POOL_OK) {
		j->list = b->next;
		j->count--;
		pthread_mutex_unlock(&j->mu);
		job_free(b);
		return rc == POOL_CLIENT_BUSY    ? JOBS_CLIENT_BUSY
		       : rc == POOL_CLIENT_SHARE ? JOBS_CLIENT_SHARE
		       : rc == POOL_FULL         ? JOBS_QUEUE_FULL
		       : rc == POOL_STOPPED   ? JOBS_STOPPED
					      : JOBS_NOMEM;
	}
	j->submitted++;
	*out = b->v;
	pthread_mutex_unlock(&j->mu);
	return JOBS_OK;
}

int jobs_get(struct jobs *j, const char *id, struct job_view *out)
{
	pthread_mutex_lock(&j->mu);
	sweep(j, 0);
	struct job *b = find(j, id);
	int rc = b ? JOBS_OK : missing(j, id);
	if (b)
		*out = b->v;
	pthread_mutex_unlock(&j->mu);
	return rc;
}

int jobs_cancel(struct jobs *j, const char *id, struct job_view *out,
		int *was_active)
{
	pthread_mutex_lock(&j->mu);
	sweep(j, 0);
	struct job *b = find(j, id);
	if (!b) {
		int rc = missing(j, id);
		pthread_mutex_unlock(&j->mu);
		return rc;
	}
	*was_active = !finished(b->v.state);
	uint64_t ticket = b->ticket;
	if (*was_active) {
		atomic_store(&b->cancel, 1);
		finish(b, JOB_CANCELLED, NULL, NULL);
	}
	*out = b->v;
	pthread_mutex_unlock(&j->mu);
	/* still queued: out of the queue now (drop leaves it cancelled) */
	if (*was_active)
		solve_pool_cancel(j->pool, ticket);
	return JOBS_OK;
}

int jobs_dataset_labels(struct jobs *j, const char *id, int col,
			unsigned char *out)
{
	pthread_mutex_lock(&j->mu);
	sweep(j, 0);
	struct job *b = find(j, id);
	int rc = b ? JOBS_OK : missing(j, id);
	if (b && (b->v.rq.kind != JOB_DATASET || b->v.state != JOB_DONE ||
		  col < 0 || col >= DATASET_NCOLUMNS || !b->labels[col]))
		rc = JOBS_NOT_FOUND;
	if (rc == JOBS_OK)
		memcpy(out, b->labels[col], b->v.rq.ds_rows);
	pthread_mutex_unlock(&j->mu);
	return rc;
}

void jobs_stats(struct jobs *j, struct jobs_stats *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&j->mu);
	for (struct job *b = j->list; b; b = b->next) {
		out->kept++;
		out->queued += b->v.state == JOB_QUEUED;
		out->running += b->v.state == JOB_RUNNING;
	}
	out->submitted = j->submitted;
	out->done = j->done;
	out->failed = j->failed;
	out->cancelled = j->cancelled;
	pthread_mutex_unlock(&j->mu);
}

void jobs_shutdown(struct jobs *j)
{
	if (j)
		atomic_store(&j->stopping, 1);
}

void jobs_free(struct jobs *j)
{
	if (!j)
		return;
	atomic_store(&j->stopping, 1);
	/* the pool is the caller's: it is stopped (queued jobs dropped,
	 * running ones returned) before the registry is freed */
	pthread_mutex_lock(&j->mu);
	struct job *b = j->list;
	j->list = NULL;
	pthread_mutex_unlock(&j->mu);
	while (b) {
		struct job *n = b->next;
		job_free(b);
		b = n;
	}
	pthread_mutex_destroy(&j->mu);
	free(j);
}
