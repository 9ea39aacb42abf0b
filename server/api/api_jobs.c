/* api_jobs.c — GET /v1/jobs/{id} and DELETE /v1/jobs/{id} (the job JSON
 * and submitting a job are api_work.c's, which the solve and dataset
 * routes share).
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

void api__job_get(const struct api_config *cfg, const struct api_request *rq,
		  const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	if (api__jobs_or_503(cfg, rp) < 0)
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
	if (api__jobs_or_503(cfg, rp) < 0)
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
