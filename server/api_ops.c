/* api_ops.c — the operational routes: /healthz (the process answers),
 * /readyz (the database answers, the solver tables' state), /version,
 * /openapi.yaml and the web page's files. /metrics is metrics.c's. */
#include <stdio.h>
#include <string.h>

#include "api_internal.h"
#include "problem.h"
#include "sessions.h"
#include "solver.h"
#include "static.h"
#include "store.h"
#include "version.h"

void api__get_healthz(const struct api_config *cfg,
		     const struct api_request *rq, struct api_reply *rp)
{
	(void)cfg;
	(void)rq;
	api_reply_json(rp, 200, json_pack("{s:s}", "status", "ok"));
}

/* GET /version: which build answers, for bug reports and rollouts. */
void api__get_version(const struct api_config *cfg,
		     const struct api_request *rq, struct api_reply *rp)
{
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
		     const struct api_request *rq, struct api_reply *rp)
{
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
void api__get_page(const struct api_config *cfg,
		     const struct api_request *rq, struct api_reply *rp)
{
	web_serve(cfg->web, rq, rp);
}

/* The solver tables' state, for /readyz. */
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
	return o;
}

/* Ready = the database answers. The solver's tables are reported but do
 * not gate readiness: only solving waits for them (503 + Retry-After). */
void api__get_readyz(const struct api_config *cfg,
		       const struct api_request *rq, struct api_reply *rp)
{
	(void)rq;
	if (!cfg->store) {
		api_reply_json(rp, 200,
			       json_pack("{s:s, s:s, s:o}", "status", "ready",
					 "database", "none", "solver",
					 solver_json(cfg)));
		return;
	}
	if (store_ping(cfg->store) != STORE_OK) {
		json_t *p = problem_reply(rp, PROBLEM_DATABASE_DOWN,
					  "the database does not answer: %s",
					  store_last_error(cfg->store));
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

