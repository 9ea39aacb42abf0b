/* api.c — the router of cubed's HTTP API on plain structs (no
 * libmicrohttpd here), so everything a client can observe except the
 * socket is testable without a server: the route table, path matching,
 * the body rule of each route, Idempotency-Key, and the hand-off to the
 * handler. The handlers live by resource in api_moves.c (/v1/apply,
 * /v1/alg), api_convert.c (/v1/convert, /v1/validate), api_patterns.c
 * (/v1/match, /v1/patterns, /v1/pieces), api_solve.c, api_sessions.c,
 * api_tickets.c, api_ops.c (/healthz, /readyz, /version, /openapi.yaml,
 * the page) and metrics.c (/metrics); what they share is api_input.c
 * (request checks) and api_output.c (replies, representations). */
#include <ctype.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "api_internal.h"
#include "events.h"
#include "idempotency.h"
#include "metrics.h"
#include "problem.h"
#include "jobs.h"
#include "sessions.h"
#include "solve_pool.h"
#include "solver.h"
#include "static.h"
#include "store.h"
#include "token.h"
#include "version.h"

/* ---- routing ---------------------------------------------------------- */



/* Content-Type must be absent or application/json, optionally with a
 * charset=utf-8 parameter (case-insensitive, quoted or not). */
static int json_media_type_ok(const char *ct)
{
	static const char mt[] = "application/json";
	if (ct == NULL)
		return 1;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	if (strncasecmp(ct, mt, sizeof mt - 1) != 0)
		return 0;
	ct += sizeof mt - 1;
	for (;;) {
		while (*ct == ' ' || *ct == '\t')
			ct++;
		if (*ct == '\0')
			return 1;
		if (*ct++ != ';')
			return 0;
		while (*ct == ' ' || *ct == '\t')
			ct++;
		if (strncasecmp(ct, "charset=", 8) != 0)
			return 0;
		ct += 8;
		int quoted = *ct == '"';
		ct += quoted;
		if (strncasecmp(ct, "utf-8", 5) != 0)
			return 0;
		ct += 5;
		if (quoted && *ct++ != '"')
			return 0;
	}
}

/* How a route takes its body. */
enum body_rule { BODY_NONE, BODY_OPTIONAL, BODY_REQUIRED };

/* Every route: a path pattern ("{id}" stands for one path segment, a
 * session id), a method, its handler. GET routes also answer HEAD; every
 * path answers OPTIONS (CORS preflight). allow lists every method of the
 * pattern. */
static const struct route {
	const char *pattern;
	const char *method;
	const char *allow;
	api__get_handler *get;
	api__post_handler *post;
	api__session_handler *ses;
	enum body_rule body;
	api__req_handler *postrq; /* a POST handler that takes rq */
	api__job_handler *job;
} routes[] = {
	{"/", "GET", "GET, HEAD, OPTIONS", api__get_page, NULL, NULL, 0, NULL, NULL},
	{"/assets/{file}", "GET", "GET, HEAD, OPTIONS", api__get_page, NULL, NULL,
	 0, NULL, NULL},
	{"/healthz", "GET", "GET, HEAD, OPTIONS", api__get_healthz, NULL, NULL, 0, NULL, NULL},
	{"/readyz", "GET", "GET, HEAD, OPTIONS", api__get_readyz, NULL, NULL, 0, NULL, NULL},
	{"/metrics", "GET", "GET, HEAD, OPTIONS", api__get_metrics, NULL, NULL, 0, NULL, NULL},
	{"/version", "GET", "GET, HEAD, OPTIONS", api__get_version, NULL, NULL, 0, NULL, NULL},
	{"/openapi.yaml", "GET", "GET, HEAD, OPTIONS", api__get_openapi, NULL, NULL,
	 0, NULL, NULL},
	{"/v1/apply", "POST", "POST, OPTIONS", NULL, api__post_apply, NULL, 0, NULL, NULL},
	{"/v1/alg", "POST", "POST, OPTIONS", NULL, api__post_alg, NULL, 0, NULL, NULL},
	{"/v1/convert", "POST", "POST, OPTIONS", NULL, api__post_convert, NULL,
	 0, NULL, NULL},
	{"/v1/validate", "POST", "POST, OPTIONS", NULL, api__post_validate,
	 NULL, 0, NULL, NULL},
	{"/v1/match", "POST", "POST, OPTIONS", NULL, api__post_match, NULL, 0, NULL, NULL},
	{"/v1/patterns", "GET", "GET, HEAD, OPTIONS", api__get_patterns, NULL,
	 NULL, 0, NULL, NULL},
	{"/v1/pieces", "POST", "POST, OPTIONS", NULL, api__post_pieces, NULL,
	 0, NULL, NULL},
	{"/v1/sessions", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_create, BODY_REQUIRED, NULL, NULL},
	{"/v1/sessions/{id}", "GET", "GET, HEAD, DELETE, OPTIONS", NULL, NULL,
	 api__session_get, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}", "DELETE", "GET, HEAD, DELETE, OPTIONS", NULL,
	 NULL, api__session_delete, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/moves", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_moves, BODY_REQUIRED, NULL, NULL},
	{"/v1/sessions/{id}/undo", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_undo, BODY_OPTIONAL, NULL, NULL},
	{"/v1/sessions/{id}/redo", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_redo, BODY_OPTIONAL, NULL, NULL},
	{"/v1/sessions/{id}/reset", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_reset, BODY_OPTIONAL, NULL, NULL},
	{"/v1/sessions/{id}/fork", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_fork, BODY_OPTIONAL, NULL, NULL},
	{"/v1/solve", "POST", "POST, OPTIONS", NULL, NULL, NULL, BODY_REQUIRED,
	 api__post_solve, NULL},
	{"/v1/jobs/{jid}", "GET", "GET, HEAD, DELETE, OPTIONS", NULL, NULL,
	 NULL, BODY_NONE, NULL, api__job_get},
	{"/v1/jobs/{jid}", "DELETE", "GET, HEAD, DELETE, OPTIONS", NULL, NULL,
	 NULL, BODY_NONE, NULL, api__job_delete},
	{"/v1/scramble", "GET", "GET, HEAD, OPTIONS", api__get_scramble, NULL,
	 NULL, 0, NULL, NULL},
	{"/v1/sessions/{id}/solve", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_solve, BODY_OPTIONAL, NULL, NULL},
	{"/v1/sessions/{id}/solves", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_solves, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/history", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_history, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/events", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_events, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/tokens", "POST", "GET, HEAD, POST, OPTIONS", NULL,
	 NULL, api__session_token_add, BODY_REQUIRED, NULL, NULL},
	{"/v1/sessions/{id}/tokens", "GET", "GET, HEAD, POST, OPTIONS", NULL,
	 NULL, api__session_tokens, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/tokens/{tid}", "DELETE", "DELETE, OPTIONS", NULL,
	 NULL, api__session_token_revoke, BODY_NONE, NULL, NULL},
	{"/v1/sessions/{id}/tickets", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_ticket, BODY_NONE, NULL, NULL},
};

#define NROUTES (int)(sizeof routes / sizeof routes[0])

int api_route_patterns(const char **out, int cap)
{
	int k = 0;
	for (int i = 0; i < NROUTES && k < cap; i++) {
		int seen = 0;
		for (int j = 0; j < k; j++)
			if (strcmp(out[j], routes[i].pattern) == 0)
				seen = 1;
		if (!seen)
			out[k++] = routes[i].pattern;
	}
	return k;
}

/* Does path fit pattern? "{id}" takes one non-empty segment (copied to id,
 * which holds STORE_ID_MAX bytes; longer segments do not fit); "{tid}"
 * takes 1 to 18 digits and "{file}" one segment of up to 128 bytes (the
 * handlers read them from the path). */
static int match(const char *pattern, const char *path, char *id)
{
	while (*pattern) {
		if (*pattern != '{') {
			if (*pattern != *path)
				return 0;
			pattern++;
			path++;
			continue;
		}
		if (strncmp(pattern, "{tid}", 5) == 0) {
			size_t len = strspn(path, "0123456789");
			if (len == 0 || len > 18)
				return 0;
			path += len;
			pattern += 5;
			continue;
		}
		if (strncmp(pattern, "{jid}", 5) == 0) {
			/* a job id's letters; the handler says whether it is
			 * one (unknown, lost or expired) */
			size_t len = strspn(path, "abcdefghijklmnopqrstuvwxyz"
						  "0123456789-");
			if (len == 0 || len >= STORE_ID_MAX)
				return 0;
			memcpy(id, path, len);
			id[len] = '\0';
			path += len;
			pattern += 5;
			continue;
		}
		if (strncmp(pattern, "{file}", 6) == 0) {
			size_t len = strcspn(path, "/");
			if (len == 0 || len > 128)
				return 0;
			path += len;
			pattern += 6;
			continue;
		}
		if (strncmp(pattern, "{id}", 4) == 0) {
			size_t len = strcspn(path, "/");
			if (len == 0 || len >= STORE_ID_MAX)
				return 0;
			memcpy(id, path, len);
			id[len] = '\0';
			path += len;
			pattern += 4;
			continue;
		}
		if (*pattern != *path)
			return 0;
		pattern++;
		path++;
	}
	return *path == '\0';
}

/* The first route whose pattern fits path (any method), or NULL. */
static const struct route *find_path(const char *path, char *id)
{
	for (int i = 0; i < NROUTES; i++)
		if (match(routes[i].pattern, path, id))
			return &routes[i];
	return NULL;
}

const char *api_allow(const char *path)
{
	char id[STORE_ID_MAX];
	const struct route *r = path ? find_path(path, id) : NULL;
	return r ? r->allow : NULL;
}

/* The JSON object body: required, optional (NULL when empty) or ignored.
 * Returns 0 with *out set (or NULL), -1 with rp set. */
static int json_body(const struct api_request *rq, enum body_rule rule,
		     json_t **out, struct api_reply *rp)
{
	*out = NULL;
	if (rule == BODY_NONE || (rule == BODY_OPTIONAL && rq->body_len == 0))
		return 0;
	if (!json_media_type_ok(rq->content_type)) {
		problem_reply(rp, PROBLEM_UNSUPPORTED_MEDIA_TYPE,
			      "send the body as application/json, not "
			      "\"%.100s\"",
			      rq->content_type);
		return -1;
	}
	if (rq->body_len == 0) {
		problem_reply(rp, PROBLEM_MALFORMED_JSON,
			      "the request body is empty; send a JSON object");
		return -1;
	}
	json_error_t err;
	json_t *body = json_loadb(rq->body, rq->body_len,
				  JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
				  &err);
	if (body == NULL) {
		problem_reply(rp, PROBLEM_MALFORMED_JSON,
			      "the body is not valid JSON: %s (line %d, "
			      "column %d)",
			      err.text, err.line, err.column);
		return -1;
	}
	if (!json_is_object(body)) {
		json_decref(body);
		problem_reply(rp, PROBLEM_NOT_AN_OBJECT,
			      "the request body must be a JSON object");
		return -1;
	}
	*out = body;
	return 0;
}

/* SHA-256 over the parts, each followed by a NUL (so no two lists of parts
 * give the same bytes). */
static void hash_parts(uint8_t out[32], const char *const *parts, int n,
		       const char *body, size_t body_len)
{
	size_t len = body_len + 1;
	for (int i = 0; i < n; i++)
		len += (parts[i] ? strlen(parts[i]) : 0) + 1;
	char *buf = malloc(len), *p = buf;
	if (!buf) {
		memset(out, 0, 32);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t k = parts[i] ? strlen(parts[i]) : 0;
		memcpy(p, parts[i] ? parts[i] : "", k);
		p[k] = '\0';
		p += k + 1;
	}
	if (body_len)
		memcpy(p, body, body_len);
	p[body_len] = '\0';
	token_sha256(buf, len, out);
	free(buf);
}

/* Keep rp as the answer under scope if it is final; a retry may fix a
 * 5xx, a 409 or a 429. */
static void idem_keep(const struct api_config *cfg, const uint8_t scope[32],
		      const struct api_reply *rp)
{
	if (rp->status < 500 && rp->status != 409 && rp->status != 429)
		idem_record(cfg->idem, scope, rp);
	else
		idem_release(cfg->idem, scope);
}

/* A pending request's answer that will never come: a retry may run. */
static void idem_unkept(void *im, const unsigned char scope[32])
{
	idem_release(im, scope);
}

/* Idempotency-Key on a POST that changes state: 0 when there is none (or
 * keys are off), 1 when the request is to run and its answer be kept
 * under scope, -1 when rp is already the answer (a replay, or why not). */
static int idem_start(const struct api_config *cfg,
		      const struct api_request *rq, const char *pattern,
		      uint8_t scope[32], struct api_reply *rp)
{
	const char *key = rq->header ? rq->header(rq->header_cls,
						  "Idempotency-Key")
				     : NULL;
	if (!key || !cfg->idem)
		return 0;
	size_t len = strlen(key);
	int ok = len >= 1 && len <= 255;
	for (size_t i = 0; ok && i < len; i++)
		ok = key[i] >= 0x21 && key[i] <= 0x7e;
	if (!ok) {
		api__bad_field(rp, PROBLEM_BAD_IDEMPOTENCY_KEY, "Idempotency-Key",
			       "Idempotency-Key is 1 to 255 visible ASCII "
			       "characters");
		return -1;
	}
	const char *auth = rq->header(rq->header_cls, "Authorization");
	const char *sp[] = {pattern, rq->path, auth, key};
	hash_parts(scope, sp, 4, NULL, 0);
	const char *pp[] = {rq->method, rq->path, rq->query};
	uint8_t print[32];
	hash_parts(print, pp, 3, rq->body, rq->body_len);
	switch (idem_begin(cfg->idem, scope, print, rp)) {
	case IDEM_NEW:
		return 1;
	case IDEM_REPLAY:
		api_reply_header(rp, "Idempotent-Replayed", "true");
		return -1;
	case IDEM_MISMATCH:
		api__bad_field(rp, PROBLEM_IDEMPOTENCY_KEY_REUSED, "Idempotency-Key",
			       "this Idempotency-Key was used for a different "
			       "request; use a new key for a new request");
		return -1;
	case IDEM_IN_FLIGHT:
		problem_reply(rp, PROBLEM_IDEMPOTENCY_IN_FLIGHT,
			      "a request with this Idempotency-Key is still "
			      "running; retry when it has finished");
		api_reply_header(rp, "Retry-After", "1");
		return -1;
	case IDEM_NOMEM:
		break;
	}
	problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
	return -1;
}

void api_handle(const struct api_config *cfg, const struct api_request *rq,
		struct api_reply *rp)
{
	char id[STORE_ID_MAX] = "";
	const struct route *r = find_path(rq->path, id);
	if (r == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND,
			      "there is no resource at %.200s", rq->path);
		return;
	}
	rp->route = r->pattern;
	if (strcmp(rq->method, "OPTIONS") == 0) {
		rp->status = 204;
		api_reply_header(rp, "Allow", "%s", r->allow);
		api_reply_header(rp, "Access-Control-Allow-Methods", "%s",
				 r->allow);
		api_reply_header(rp, "Access-Control-Allow-Headers", "%s",
				 cfg->cors_allow_headers
					 ? cfg->cors_allow_headers
					 : API_CORS_ALLOW_HEADERS);
		api_reply_header(rp, "Access-Control-Max-Age", "%s",
				 API_CORS_MAX_AGE);
		return;
	}
	/* the route of this pattern with this method (HEAD serves GET) */
	const char *want = strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method;
	const struct route *m = NULL;
	for (int i = 0; i < NROUTES && !m; i++)
		if (strcmp(routes[i].pattern, r->pattern) == 0 &&
		    strcmp(routes[i].method, want) == 0)
			m = &routes[i];
	if (m == NULL) {
		problem_reply(rp, PROBLEM_METHOD_NOT_ALLOWED,
			      "%.32s is not allowed on %s; allowed: %s",
			      rq->method, r->pattern, r->allow);
		api_reply_header(rp, "Allow", "%s", r->allow);
		return;
	}
	if (m->get) {
		m->get(cfg, rq, rp);
		return;
	}
	if (m->job) {
		m->job(cfg, rq, id, rp);
		return;
	}
	if (m->ses && strstr(m->pattern, "{id}") && !token_id_ok(id)) {
		/* not the shape of an id: no such session */
		problem_reply(rp, PROBLEM_NO_SUCH_SESSION,
			      "there is no such session");
		return;
	}
	json_t *body;
	if (json_body(rq, m->post ? BODY_REQUIRED : m->body, &body, rp) < 0)
		return;
	if (m->postrq) {
		m->postrq(cfg, rq, body, rp);
		json_decref(body);
		return;
	}
	uint8_t scope[32];
	int idem = m->ses && strcmp(m->method, "POST") == 0 ?
			   idem_start(cfg, rq, m->pattern, scope, rp) : 0;
	if (idem < 0) {
		json_decref(body);
		return;
	}
	if (m->post)
		m->post(cfg, body, rp);
	else
		m->ses(cfg, rq, strstr(m->pattern, "{id}") ? id : NULL, body,
		       rp);
	json_decref(body);
	if (rp->pending) {
		/* answered by api_finish, which keeps the answer then */
		if (idem) {
			rp->pending->unkept = idem_unkept;
			rp->pending->unkept_ctx = cfg->idem;
			memcpy(rp->pending->scope, scope, sizeof scope);
		}
		return;
	}
	if (idem)
		idem_keep(cfg, scope, rp);
}

void api_finish(const struct api_config *cfg, struct api_reply *rp)
{
	struct api_pending *p = rp->pending;
	rp->pending = NULL;
	if (!p)
		return;
	p->finish(cfg, p, rp);
	if (p->unkept)
		idem_keep(cfg, p->scope, rp);
	free(p);
}
