/* api_ops.c — the operational routes: /healthz (the process answers),
 * /readyz (the database answers, the solver tables' state), /version,
 * /openapi.yaml and the web page's files. /metrics is metrics.c's. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "problem.h"
#include "jobs.h"
#include "sessions.h"
#include "optimal.h"
#include "reduce.h"
#include "solver.h"
#include "static.h"
#include "store.h"
#include "version.h"

void api__get_healthz(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)a;
	(void)cfg;
	(void)rq;
	api_reply_json(rp, 200, json_pack("{s:s}", "status", "ok"));
}

/* GET /version: which build answers, for bug reports and rollouts. */
void api__get_version(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)a;
	(void)cfg;
	(void)rq;
	struct version_info v;
	version_get(&v);
	api_reply_json(rp, 200,
		       json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s}}",
				 "name", "cubed", "version", v.version, "commit",
				 v.commit, "libraries", "libmicrohttpd",
				 v.libmicrohttpd, "jansson", v.jansson,
				 "sqlite", v.sqlite, "zlib", v.zlib, "brotli",
				 v.brotli));
}

void api__get_openapi(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)a;
	(void)rq;
	if (cfg->openapi == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND,
			      "this server was started without its "
			      "openapi.yaml (see --openapi)");
		return;
	}
	rp->status = 200;
	rp->content_type = "application/yaml";
	rp->raw = cfg->openapi;
	rp->raw_len = cfg->openapi_len;
	/* the same bytes until the server restarts with another contract:
	 * kept five minutes, then checked again by its ETag */
	rp->cache_max_age = 300;
}

/* The web page: "/" and "/assets/{file}" (static.c). */
void api__get_page(const struct api_config *cfg, const struct api_request *rq,
		   const struct api_args *a, struct api_reply *rp)
{
	(void)a;
	web_serve(cfg->web, rq, rp);
}

/* The optimal solver's tables and jobs, for /readyz. */
static json_t *optimal_json(const struct api_config *cfg)
{
	struct solver_optimal_info si;
	solver_optimal_status(cfg->solver, &si);
	json_t *o = json_pack("{s:s, s:i, s:I}", "tables", si.state, "level",
			      si.level, "bytes", (json_int_t)si.bytes);
	if (o && strcmp(si.state, "building") == 0)
		json_object_set_new(o, "percent", json_integer(si.percent));
	if (o && si.reason[0])
		json_object_set_new(o, "reason", json_string(si.reason));
	if (o && cfg->jobs) {
		struct jobs_stats js;
		jobs_stats(cfg->jobs, &js);
		json_object_set_new(o, "jobs",
				    json_pack("{s:i, s:i, s:i}", "queued",
					      (int)js.queued, "running",
					      (int)js.running, "kept",
					      (int)js.kept));
	}
	return o;
}

/* The solver tables' state, for /readyz. */
/* A table a solve of some size asks for: its state ("off" with no
 * solver), bytes, percent while building, reason when failed. */
typedef void (*lazy_status_fn)(struct solver *, const char **, int *,
			       const char **);
static json_t *lazy_json(const struct api_config *cfg, lazy_status_fn status,
			 size_t bytes)
{
	const char *state = "off", *reason = NULL;
	int percent = 0;
	if (cfg->solver)
		status(cfg->solver, &state, &percent, &reason);
	json_t *e = json_pack("{s:s, s:I}", "tables", state, "bytes",
			      (json_int_t)bytes);
	if (strcmp(state, "building") == 0)
		json_object_set_new(e, "percent", json_integer(percent));
	if (reason)
		json_object_set_new(e, "reason", json_string(reason));
	return e;
}

static json_t *solver_json(const struct api_config *cfg)
{
	json_t *o = json_object();
	static const char *const names[] = {"3x3", "2x2"};
	for (int t = 0; t < SOLVER_NTABLES; t++) {
		const char *state, *reason;
		int percent;
		solver_status(cfg->solver, (enum solver_table)t, &state,
			      &percent, &reason);
		if (!cfg->solver)
			state = "off";
		json_t *e = json_pack("{s:s}", "tables", state);
		if (strcmp(state, "building") == 0)
			json_object_set_new(e, "percent", json_integer(percent));
		if (reason && cfg->solver)
			json_object_set_new(e, "reason", json_string(reason));
		json_object_set_new(o, names[t], e);
	}
	/* the big cubes', 4×4's and 5×5's tables: absent until a cube of
	 * that size is solved */
	json_object_set_new(o, "nxn", lazy_json(cfg, solver_stage_status,
						reduce_stage_tables_size()));
	json_object_set_new(o, "4x4", lazy_json(cfg, solver_four_status,
						reduce_four_tables_size()));
	json_object_set_new(o, "5x5", lazy_json(cfg, solver_five_status,
						reduce_five_tables_size()));
	json_object_set_new(o, "near", lazy_json(cfg, solver_near_status,
						 optimal_table_size(0)));
	json_object_set_new(o, "optimal", optimal_json(cfg));
	return o;
}

/* Ready = the database answers. The solver's tables are reported but do
 * not gate readiness: only solving waits for them (503 + Retry-After). */
void api__get_readyz(const struct api_config *cfg, const struct api_request *rq,
		     const struct api_args *a, struct api_reply *rp)
{
	(void)a;
	(void)rq;
	if (atomic_load(&cfg->draining)) {
		/* the node still serves everything else until its listener
		 * closes: a balancer that asks here moves away first */
		json_t *p = problem_reply(
			rp, PROBLEM_DRAINING,
			"the node is stopping: it serves requests for up to %u "
			"s more (--drain-s), then closes its listener",
			cfg->drain_s);
		if (p)
			json_object_set_new(p, "drain_s",
					    json_integer(cfg->drain_s));
		api_reply_header(rp, "Retry-After", "1");
		return;
	}
	if (!cfg->store) {
		api_reply_json(rp, 200,
			       json_pack("{s:s, s:s, s:o}", "status", "ready",
					 "database", "none", "solver",
					 solver_json(cfg)));
		return;
	}
	char why[256];
	int fault = store_fault(cfg->store, why, sizeof why);
	if (fault && store_ping(cfg->store) == STORE_OK) {
		/* reads work: say so, and what keeps writes out */
		json_t *p = problem_reply(
			rp,
			fault == STORE_BUSY   ? PROBLEM_DATABASE_BUSY
			: fault == STORE_FULL ? PROBLEM_WRITES_FULL
					      : PROBLEM_STORAGE_UNAVAILABLE,
			"writes are unavailable: %s; reads still work", why);
		if (p) {
			json_object_set_new(p, "database",
					    json_string("read-only"));
			json_object_set_new(p, "writes",
					    json_string("unavailable"));
			json_object_set_new(p, "reads", json_string("ok"));
		}
		api_reply_header(rp, "Retry-After", "1");
		return;
	}
	if (store_ping(cfg->store) != STORE_OK) {
		/* libpq's reason names hosts and ports: the node's log
		 * has it (store_ping), not the public reply */
		json_t *p = problem_reply(rp, PROBLEM_DATABASE_DOWN,
					  "the database does not answer (the "
					  "node's log says why)");
		if (p)
			json_object_set_new(p, "database", json_string("down"));
		api_reply_header(rp, "Retry-After", "1");
		return;
	}
	api_reply_json(rp, 200,
		       json_pack("{s:s, s:s, s:i, s:s, s:o}", "status", "ready",
				 "database", "ok", "schema_version",
				 store_schema_version(cfg->store), "engine",
				 store_engine_name(cfg->store), "solver",
				 solver_json(cfg)));
}

