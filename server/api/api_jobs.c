/* api_jobs.c — jobs over HTTP: submitting one (the 202 of an optimal
 * solve, for /v1/solve and a session's solve route), GET /v1/jobs/{id}
 * and DELETE /v1/jobs/{id}, and the job JSON they all answer.
 *
 * A job's answer: id, state (queued, running, done, failed, cancelled),
 * progress (the depth every shorter solution has been ruled out to, the
 * search nodes visited, the milliseconds searched), timestamps, and once
 * done the result shaped like any solve's (solution, length, metric,
 * optimal: true). An id of an earlier run of the server answers 410 with
 * state "lost"; one of this run that is no longer kept 410 "expired". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "dataset_params.h"
#include "jobs.h"
#include "problem.h"
#include "repr.h"
#include "solver.h"
#include "timefmt.h"

static int finished_state(enum job_state s)
{
	return s == JOB_DONE || s == JOB_FAILED || s == JOB_CANCELLED;
}

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

static int jobs_or_503(const struct api_config *cfg, struct api_reply *rp)
{
	if (cfg->jobs)
		return 0;
	problem_reply(rp, PROBLEM_NO_JOBS,
		      "this server runs without solver tables (--solver 0): "
		      "it runs no jobs");
	return -1;
}

void api__job_get(const struct api_config *cfg, const struct api_request *rq,
		  const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	if (jobs_or_503(cfg, rp) < 0)
		return;
	struct job_view v;
	int rc = jobs_get(cfg->jobs, a->id, &v);
	if (rc != JOBS_OK) {
		api__job_missing(rc, a->id, rp);
		return;
	}
	api_reply_json(rp, 200, api__job_json(cfg, &v));
	if (!finished_state(v.state))
		api_reply_header(rp, "Retry-After", "1");
}

void api__job_delete(const struct api_config *cfg, const struct api_request *rq,
		     const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	if (jobs_or_503(cfg, rp) < 0)
		return;
	struct job_view v;
	int active = 0;
	int rc = jobs_cancel(cfg->jobs, a->id, &v, &active);
	if (rc != JOBS_OK) {
		api__job_missing(rc, a->id, rp);
		return;
	}
	if (!active) {
		json_t *p = problem_reply(rp, PROBLEM_JOB_FINISHED,
					  "job %s has already finished (%s): "
					  "there is nothing to cancel",
					  v.id, job_state_name(v.state));
		if (p)
			json_object_set_new(p, "state",
					    json_string(job_state_name(v.state)));
		return;
	}
	api_reply_json(rp, 200, api__job_json(cfg, &v));
}

void api__job_submit(const struct api_config *cfg,
		     const struct api_request *rq, const struct job_request *jr,
		     struct api_reply *rp)
{
	if (jobs_or_503(cfg, rp) < 0)
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
