/* api_work.c — what the routes that hand work on share, so that no
 * handler calls another handler's file: work run on the solver pool while
 * its connection waits (api__offload: a solve, a scramble; the pool's
 * per-client caps, cancellation when the client goes away, the replies
 * of a full queue or a stopping server), the 503 of solver tables not
 * ready yet, and jobs (api__job_submit: the 202 of an optimal solve or a
 * solver-labelled dataset, with the job JSON every job route answers).
 * Declared in api_internal.h. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "dataset_params.h"
#include "jobs.h"
#include "problem.h"
#include "repr.h"
#include "solve_pool.h"
#include "solver.h"
#include "timefmt.h"

/* ---- work on the solver pool ----------------------------------------- */

/* Work run by a pool worker while its connection waits (api.h:
 * rq->done), so the HTTP threads never search. */
struct api_work {
	const struct api_config *cfg;
	api__work_fn *fn;
	void *arg;               /* fn's (owned: free_arg lets it go) */
	void (*free_arg)(void *arg);
	struct api_reply rp;     /* the answer, built by the worker */
	uint64_t ticket;
	_Atomic int cancel;      /* nobody waits for the answer any more */
	int (*gone)(void *ctx);  /* has the client gone away? */
	void *gone_ctx;
	double next_gone;        /* when to ask gone next */
	void (*done)(void *ctx);
	void *done_ctx;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int api__work_stopped(struct api_work *w)
{
	if (!w)
		return 0;
	if (atomic_load(&w->cancel) || solve_pool_stopping(w->cfg->pool))
		return 1;
	if (w->gone) {
		/* asked every 20 ms: a system call */
		double now = now_ms();
		if (now >= w->next_gone) {
			w->next_gone = now + 20;
			if (w->gone(w->gone_ctx)) {
				atomic_store(&w->cancel, 1);
				return 1;
			}
		}
	}
	return 0;
}

static void work_free(struct api_work *w)
{
	if (!w)
		return;
	if (w->free_arg)
		w->free_arg(w->arg);
	api_reply_free(&w->rp);
	free(w);
}

static void work_run(void *arg)
{
	struct api_work *w = arg;
	if (!api__work_stopped(w))
		w->fn(w->cfg, w->arg, w, &w->rp);
	int ok = w->rp.status >= 200 && w->rp.status < 300;
	if (!ok && solve_pool_stopping(w->cfg->pool)) {
		/* the work was cut short, not answered: say why (a solve
		 * stored already keeps its 201) */
		problem_reply(&w->rp, PROBLEM_SHUTTING_DOWN,
			      "the server is shutting down");
		api_reply_header(&w->rp, "Retry-After", "5");
	} else if (atomic_load(&w->cancel)) {
		solve_pool_count_cancelled(w->cfg->pool);
		/* nobody reads it; the log line shows what happened */
		if (!ok)
			problem_reply(&w->rp, PROBLEM_CANCELLED,
				      "the solve was stopped: its client went "
				      "away");
	}
	/* w may be freed as soon as done is called */
	w->done(w->done_ctx);
}

/* Taken out of the queue: the pool stops, or nobody waits any more. */
static void work_drop(void *arg)
{
	struct api_work *w = arg;
	problem_reply(&w->rp, PROBLEM_SHUTTING_DOWN,
		      "the server is shutting down");
	api_reply_header(&w->rp, "Retry-After", "5");
	w->done(w->done_ctx);
}

/* The reply of finished work into rp, and the work freed (api_finish). */
static void pooled_finish(const struct api_config *cfg, struct api_pending *p,
			  struct api_reply *rp)
{
	(void)cfg;
	struct api_work *w = p->work;
	const char *route = rp->route;
	api_reply_free(rp);
	*rp = w->rp;
	rp->route = route;
	api_reply_init(&w->rp);
	work_free(w);
	p->work = NULL;
}

/* Queued or running work whose answer nobody will take. */
static void pooled_abandon(struct api_pending *p)
{
	work_free(p->work);
	p->work = NULL;
}

int api__offload(const struct api_config *cfg, const struct api_request *rq,
		 api__work_fn *fn, void *arg, void (*free_arg)(void *arg),
		 struct api_reply *rp)
{
	struct api_work *w = cfg->pool && rq->done ? calloc(1, sizeof *w)
						   : NULL;
	if (!w)
		return 0;
	w->cfg = cfg;
	w->fn = fn;
	w->arg = arg;
	w->free_arg = free_arg;
	api_reply_init(&w->rp);
	w->gone = rq->gone;
	w->gone_ctx = rq->gone_ctx;
	w->done = rq->done;
	w->done_ctx = rq->done_ctx;
	static const struct limits_key nobody = {0, {0}};
	struct api_pending *p = calloc(1, sizeof *p);
	int rc = p ? solve_pool_submit(cfg->pool,
				       rq->client ? rq->client : &nobody,
				       work_run, work_drop, w, &w->ticket)
		   : POOL_NOMEM;
	if (rc == POOL_OK) {
		p->work = w;
		p->finish = pooled_finish;
		p->abandon = pooled_abandon;
		rp->pending = p;
		return 1;
	}
	free(p);
	work_free(w);
	switch (rc) {
	case POOL_CLIENT_BUSY:
		problem_reply(rp, PROBLEM_TOO_MANY_SOLVES,
			      "this client already has as many solves running "
			      "and waiting as it may (--solve-client-running, "
			      "--solve-client-queued); retry when one has "
			      "finished");
		api_reply_header(rp, "Retry-After", "1");
		return 1;
	case POOL_CLIENT_SHARE:
		problem_reply(rp, PROBLEM_TOO_MANY_SOLVES,
			      "the solver queue is nearly full and this client "
			      "already has as many solves waiting as its share "
			      "of the places left; retry when one has "
			      "finished");
		api_reply_header(rp, "Retry-After", "1");
		return 1;
	case POOL_FULL:
		problem_reply(rp, PROBLEM_QUEUE_FULL,
			      "the solver queue is full (--solve-queue); try "
			      "again shortly");
		api_reply_header(rp, "Retry-After", "1");
		return 1;
	case POOL_STOPPED:
		problem_reply(rp, PROBLEM_SHUTTING_DOWN,
			      "the server is shutting down");
		api_reply_header(rp, "Retry-After", "5");
		return 1;
	}
	problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
	return 1;
}

/* ---- solver tables ------------------------------------------------------ */

int api__tables_or_503(const struct api_config *cfg, int t,
		       const void **out, struct api_reply *rp)
{
	*out = solver_table(cfg->solver, t);
	if (*out)
		return 0;
	const char *state, *reason;
	int percent;
	solver_status(cfg->solver, t, &state, &percent, &reason);
	json_t *p;
	if (!cfg->solver) {
		/* the name /readyz gives this state */
		state = "off";
		p = problem_reply(rp, PROBLEM_TABLES_NOT_READY,
				  "this server runs without solver tables "
				  "(--solver 0)");
	} else {
		p = problem_reply(rp, PROBLEM_TABLES_NOT_READY,
				  "the %s solver tables are %s%s; try again "
				  "shortly",
				  t == SOLVER_3X3 ? "3×3" : "2×2", state,
				  reason ? " (the build failed)" : "");
	}
	if (p) {
		json_object_set_new(p, "tables", json_string(state));
		json_object_set_new(p, "percent", json_integer(percent));
	}
	/* a real estimate, and none when waiting will not help */
	unsigned wait = solver_retry_after(cfg->solver, t);
	if (wait)
		api_reply_header(rp, "Retry-After", "%u", wait);
	return -1;
}

/* ---- jobs -------------------------------------------------------------- */

static json_t *time_or_null(int64_t ms)
{
	return ms ? timefmt_json(ms) : json_null();
}

static json_t *moves_json(const cube_move *m, int count)
{
	char text[JOB_MAX_MOVES * 4 + 8];
	size_t n = moves_print(m, (size_t)count, 3, text, sizeof text);
	return json_stringn(text, n);
}

/* A dataset job's dataset as its parameters, and its files as the job's
 * JSON lists them (api_dataset.c serves them). */
void api__dataset_of_job(const struct job_view *v, struct dsp *p)
{
	dsp_init(p);
	p->spec = v->rq.ds;
	p->first = v->rq.ds_first;
	p->rows = v->rq.ds_rows;
	p->shard_k = v->rq.ds_shard_k;
	p->shard_n = v->rq.ds_shard_n;
	p->optimal_level = v->rq.ds_optimal_level;
	p->have_count = p->have_columns = p->have_labels = 1;
	p->have_depth = v->rq.ds.states == DATASET_WALK;
}

json_t *api__dataset_job_files(const struct job_view *v)
{
	struct dsp p;
	api__dataset_of_job(v, &p);
	json_t *files = json_array();
	if (!files)
		return NULL;
	for (int c = 0; c <= DATASET_NCOLUMNS; c++) {
		if (c < DATASET_NCOLUMNS && !(p.spec.columns & (1u << c)))
			continue;
		char name[48], href[160];
		if (c < DATASET_NCOLUMNS)
			snprintf(name, sizeof name, "%s.npy", dataset_column_name(c));
		else
			snprintf(name, sizeof name, "meta.json");
		snprintf(href, sizeof href, "/v1/jobs/%s/files/%s", v->id, name);
		json_t *f = json_pack("{s:s, s:s}", "name", name, "href", href);
		if (f && c < DATASET_NCOLUMNS)
			json_object_set_new(f, "bytes",
					    json_integer((json_int_t)dsp_file_bytes(&p, c)));
		json_array_append_new(files, f);
	}
	return files;
}

/* A dataset job: what it makes, how far it is, and its files once done. */
static json_t *dataset_job_json(const struct api_config *cfg,
			       const struct job_view *v)
{
	struct dsp p;
	api__dataset_of_job(v, &p);
	json_t *meta = dsp_meta(&p);
	json_t *o = json_pack(
		"{s:s, s:s, s:s, s:o, s:o, s:o, s:{s:I, s:I, s:f}}", "id", v->id,
		"kind", "dataset", "state", job_state_name(v->state), "created_at",
		time_or_null(v->created_at), "started_at", time_or_null(v->started_at),
		"finished_at", time_or_null(v->finished_at), "progress", "done",
		(json_int_t)v->ds_done, "total", (json_int_t)v->rq.ds_rows,
		"elapsed_ms", v->elapsed_ms);
	if (!o || !meta) {
		json_decref(o);
		json_decref(meta);
		return NULL;
	}
	json_object_del(meta, "files");
	json_object_set_new(o, "dataset", meta);
	if (v->waiting_for_tables && v->state == JOB_QUEUED) {
		/* two-phase tables load at start; the optimal ones are the slow
		 * ones to wait for, so they are what is shown */
		struct solver_optimal_info si;
		solver_optimal_status(cfg->solver, &si);
		json_object_set_new(o, "tables",
				    json_pack("{s:s, s:i}", "state", si.state,
					      "percent", si.percent));
	}
	if (v->state == JOB_DONE)
		json_object_set_new(o, "files", api__dataset_job_files(v));
	if (v->state == JOB_FAILED)
		json_object_set_new(o, "error",
				    json_pack("{s:s, s:s}", "code", v->error_code,
					      "detail", v->error_detail));
	return o;
}

json_t *api__job_json(const struct api_config *cfg, const struct job_view *v)
{
	if (v->rq.kind == JOB_DATASET)
		return dataset_job_json(cfg, v);
	json_t *o = json_pack(
		"{s:s, s:s, s:s, s:s, s:i, s:o, s:o, s:o, s:{s:i, s:I, s:f}}",
		"id", v->id, "kind", "solve", "state", job_state_name(v->state),
		"method", "optimal",
		"size", 3, "created_at", time_or_null(v->created_at),
		"started_at", time_or_null(v->started_at), "finished_at",
		time_or_null(v->finished_at), "progress", "depth", v->depth,
		"nodes", (json_int_t)v->nodes, "elapsed_ms", v->elapsed_ms);
	if (!o)
		return NULL;
	if (v->waiting_for_tables && v->state == JOB_QUEUED) {
		struct solver_optimal_info si;
		solver_optimal_status(cfg->solver, &si);
		json_object_set_new(o, "tables",
				    json_pack("{s:s, s:i}", "state", si.state,
					      "percent", si.percent));
	}
	if (v->state == JOB_DONE)
		json_object_set_new(
			o, "result",
			json_pack("{s:i, s:s, s:o, s:i, s:s, s:b, s:f, s:o}",
				  "size", 3, "method", "optimal", "solution",
				  moves_json(v->moves, v->count), "length",
				  v->count, "metric", "htm", "optimal", 1,
				  "elapsed_ms", v->elapsed_ms, "orientation",
				  repr_orientation(&v->rq.orient)));
	if (v->state == JOB_FAILED)
		json_object_set_new(o, "error",
				    json_pack("{s:s, s:s}", "code", v->error_code,
					      "detail", v->error_detail));
	if (v->rq.session_id[0]) {
		json_object_set_new(o, "session_id",
				    json_string(v->rq.session_id));
		json_object_set_new(o, "version", json_integer(v->rq.version));
		json_object_set_new(o, "solve_id",
				    v->solve_id ? json_integer(v->solve_id)
						: json_null());
	}
	return o;
}

void api__job_missing(int rc, const char *id, struct api_reply *rp)
{
	json_t *p;
	if (rc == JOBS_LOST) {
		p = problem_reply(rp, PROBLEM_JOB_LOST,
				  "job %s was made by an earlier run of this "
				  "server, which has restarted since: it was "
				  "lost; submit the solve again",
				  id);
		if (p)
			json_object_set_new(p, "state", json_string("lost"));
	} else if (rc == JOBS_EXPIRED) {
		p = problem_reply(rp, PROBLEM_JOB_EXPIRED,
				  "job %s has finished and is no longer kept "
				  "(see --job-ttl and --max-jobs)",
				  id);
		if (p)
			json_object_set_new(p, "state", json_string("expired"));
	} else {
		problem_reply(rp, PROBLEM_NO_SUCH_JOB,
			      "there is no job %.60s", id);
	}
}

int api__jobs_or_503(const struct api_config *cfg, struct api_reply *rp)
{
	if (cfg->jobs)
		return 0;
	problem_reply(rp, PROBLEM_NO_JOBS,
		      "this server runs without solver tables (--solver 0): "
		      "it runs no jobs");
	return -1;
}

void api__job_submit(const struct api_config *cfg,
		     const struct api_request *rq, const struct job_request *jr,
		     struct api_reply *rp)
{
	if (api__jobs_or_503(cfg, rp) < 0)
		return;
	static const struct limits_key nobody = {0, {0}};
	struct job_view v;
	int rc = jobs_submit(cfg->jobs, rq->client ? rq->client : &nobody, jr,
			     &v);
	switch (rc) {
	case JOBS_OK:
		api_reply_json(rp, 202, api__job_json(cfg, &v));
		api_reply_header(rp, "Location", "/v1/jobs/%s", v.id);
		api_reply_header(rp, "Retry-After", "1");
		return;
	case JOBS_CLIENT_BUSY:
		problem_reply(rp, PROBLEM_TOO_MANY_JOBS,
			      "this client already has as many jobs waiting "
			      "as it may (--solve-client-queued); wait for one "
			      "to finish or cancel one");
		api_reply_header(rp, "Retry-After", "%d", 5);
		return;
	case JOBS_CLIENT_SHARE:
		problem_reply(rp, PROBLEM_TOO_MANY_JOBS,
			      "the job queue is nearly full and this client "
			      "already has as many jobs waiting as its share of "
			      "the places left; wait for one to finish or "
			      "cancel one");
		api_reply_header(rp, "Retry-After", "%d", 5);
		return;
	case JOBS_QUEUE_FULL:
		problem_reply(rp, PROBLEM_QUEUE_FULL,
			      "the solver queue is full (--solve-queue); try "
			      "again shortly");
		api_reply_header(rp, "Retry-After", "%d", 5);
		return;
	case JOBS_TOO_MANY:
		problem_reply(rp, PROBLEM_TOO_MANY_JOBS_KEPT,
			      "the server keeps as many jobs as it may "
			      "(--max-jobs) and none has finished; try again "
			      "shortly");
		api_reply_header(rp, "Retry-After", "%d", 10);
		return;
	case JOBS_STOPPED:
		problem_reply(rp, PROBLEM_SHUTTING_DOWN,
			      "the server is shutting down");
		api_reply_header(rp, "Retry-After", "%d", 5);
		return;
	}
	problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
}
