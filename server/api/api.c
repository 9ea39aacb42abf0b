/* api.c — the router of cubed's HTTP API on plain structs (no
 * libmicrohttpd here), so everything a client can observe except the
 * socket is testable without a server: the route table with each route's
 * policies as data (body rule, auth, Idempotency-Key, the session
 * database), path matching that captures the path's parameters once,
 * Allow made from the table, and the hand-off to the route's handler.
 * Every handler has one shape (api__handler, api_internal.h) and lives
 * with its resource in api_<resource>.c; what they share is api_input.c
 * (request checks), api_repr.c (representations) and api_access.c (who
 * may do what). */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "api_internal.h"
#include "client_limits.h"
#include "idempotency.h"
#include "problem.h"
#include "sessions.h"
#include "store.h"
#include "token.h"

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

/* Every route: a path pattern ("{id}" a session id, "{jid}" a job id,
 * "{tid}" a token id, "{file}" one segment of the page's files), a method,
 * its handler, and its policies as data:
 *   body  — no body (BODY_NONE: ignored), an optional JSON object, or a
 *           required one (415, 400 malformed_json, 422 not_an_object);
 *   auth  — what the route's security is in openapi.yaml: none, a token
 *           that may be sent (a private session's read, a fork), or one
 *           that must be (writes, deletes, tokens). The router hands the
 *           bearer token to the handler; whether it grants the role is the
 *           session layer's rule (sessions_rules.c), checked with the
 *           write it guards;
 *   flags — R_IDEM: Idempotency-Key is honoured (an answer kept and
 *           replayed); R_SESSIONS: the route needs the session database
 *           (503 no_database without one) and its {id} the shape of an id
 *           (404 otherwise); R_STORES: a success stores rows, counted
 *           against the client's --storage-quota (api_reply.stored: the
 *           request's body and 256 here, the state the session layer
 *           stored added by the handler).
 * GET routes also answer HEAD; every path answers OPTIONS (CORS
 * preflight); Allow is made from the rows of a pattern (api_allow). The
 * contract check compares body, auth and R_IDEM with openapi.yaml
 * (`cubed routes`, api_route_row). */
enum { R_IDEM = 1, R_SESSIONS = 2, R_STORES = 4 };

static const struct route {
	const char *pattern;
	const char *method;
	api__handler *handler;
	enum api_body_rule body;
	enum api_auth auth;
	unsigned flags;
} routes[] = {
	{"/", "GET", api__get_page, BODY_NONE, AUTH_NONE, 0},
	{"/assets/{file}", "GET", api__get_page, BODY_NONE, AUTH_NONE, 0},
	{"/healthz", "GET", api__get_healthz, BODY_NONE, AUTH_NONE, 0},
	{"/readyz", "GET", api__get_readyz, BODY_NONE, AUTH_NONE, 0},
	{"/metrics", "GET", api__get_metrics, BODY_NONE, AUTH_NONE, 0},
	{"/version", "GET", api__get_version, BODY_NONE, AUTH_NONE, 0},
	{"/openapi.yaml", "GET", api__get_openapi, BODY_NONE, AUTH_NONE, 0},
	{"/v1/apply", "POST", api__post_apply, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/alg", "POST", api__post_alg, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/convert", "POST", api__post_convert, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/validate", "POST", api__post_validate, BODY_REQUIRED, AUTH_NONE,
	 0},
	{"/v1/match", "POST", api__post_match, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/patterns", "GET", api__get_patterns, BODY_NONE, AUTH_NONE, 0},
	{"/v1/pieces", "POST", api__post_pieces, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/sessions", "POST", api__session_create, BODY_REQUIRED, AUTH_NONE,
	 R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}", "GET", api__session_get, BODY_NONE,
	 AUTH_OPTIONAL, R_SESSIONS},
	{"/v1/sessions/{id}", "DELETE", api__session_delete, BODY_NONE,
	 AUTH_REQUIRED, R_SESSIONS},
	{"/v1/sessions/{id}/moves", "POST", api__session_moves, BODY_REQUIRED,
	 AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/undo", "POST", api__session_undo, BODY_OPTIONAL,
	 AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/redo", "POST", api__session_redo, BODY_OPTIONAL,
	 AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/reset", "POST", api__session_reset, BODY_OPTIONAL,
	 AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/fork", "POST", api__session_fork, BODY_OPTIONAL,
	 AUTH_OPTIONAL, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/solve", "POST", api__post_solve, BODY_REQUIRED, AUTH_NONE, 0},
	{"/v1/jobs/{jid}", "GET", api__job_get, BODY_NONE, AUTH_NONE, 0},
	{"/v1/jobs/{jid}", "DELETE", api__job_delete, BODY_NONE, AUTH_NONE, 0},
	{"/v1/jobs/{jid}/files/{file}", "GET", api__job_file, BODY_NONE,
	 AUTH_NONE, 0},
	{"/v1/dataset", "GET", api__get_dataset, BODY_NONE, AUTH_NONE, 0},
	{"/v1/dataset", "POST", api__post_dataset, BODY_NONE, AUTH_NONE, 0},
	{"/v1/scramble", "GET", api__get_scramble, BODY_NONE, AUTH_NONE, 0},
	{"/v1/sessions/{id}/solve", "POST", api__session_solve, BODY_OPTIONAL,
	 AUTH_OPTIONAL, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/solves", "GET", api__session_solves, BODY_NONE,
	 AUTH_OPTIONAL, R_SESSIONS},
	{"/v1/sessions/{id}/history", "GET", api__session_history, BODY_NONE,
	 AUTH_OPTIONAL, R_SESSIONS},
	{"/v1/sessions/{id}/events", "GET", api__session_events, BODY_NONE,
	 AUTH_OPTIONAL, R_SESSIONS},
	{"/v1/sessions/{id}/tokens", "POST", api__session_token_add,
	 BODY_REQUIRED, AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/tokens", "GET", api__session_tokens, BODY_NONE,
	 AUTH_REQUIRED, R_SESSIONS},
	{"/v1/sessions/{id}/tokens/{tid}", "DELETE", api__session_token_revoke,
	 BODY_NONE, AUTH_REQUIRED, R_SESSIONS},
	{"/v1/sessions/{id}/timed", "POST", api__session_timed_start,
	 BODY_OPTIONAL, AUTH_REQUIRED, R_IDEM | R_SESSIONS | R_STORES},
	{"/v1/sessions/{id}/timed", "GET", api__session_timed, BODY_NONE,
	 AUTH_OPTIONAL, R_SESSIONS},
	/* races: the room's {id} is a race's (api_races.c checks its shape
	 * and answers no_such_race), so not R_SESSIONS */
	{"/v1/races", "POST", api__race_create, BODY_OPTIONAL, AUTH_NONE,
	 R_STORES},
	{"/v1/races/{id}", "GET", api__race_get, BODY_NONE, AUTH_NONE, 0},
	{"/v1/races/{id}/players", "POST", api__race_join, BODY_REQUIRED,
	 AUTH_NONE, R_STORES},
	{"/v1/races/{id}/start", "POST", api__race_start, BODY_OPTIONAL,
	 AUTH_REQUIRED, 0},
	/* a ticket is a fresh credential each time: never kept, so never
	 * replayed to anyone */
	{"/v1/sessions/{id}/tickets", "POST", api__session_ticket, BODY_NONE,
	 AUTH_REQUIRED, R_SESSIONS},
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

int api_route_row(int i, struct api_route_info *out)
{
	if (i < 0 || i >= NROUTES)
		return -1;
	out->pattern = routes[i].pattern;
	out->method = routes[i].method;
	out->body = routes[i].body;
	out->auth = routes[i].auth;
	out->idempotent = (routes[i].flags & R_IDEM) != 0;
	return 0;
}

/* The path's parameters, captured once by match(). */
struct captured {
	char id[STORE_ID_MAX]; /* {id} or {jid} */
	int64_t tid;           /* {tid}, or -1 */
};

/* Does path fit pattern? "{id}" takes one non-empty segment (copied to
 * c->id, which holds STORE_ID_MAX bytes; longer segments do not fit),
 * "{jid}" a job id's letters, "{tid}" 1 to 18 digits (its value to
 * c->tid) and "{file}" one segment of up to 128 bytes (static.c reads the
 * path). */
static int match(const char *pattern, const char *path, struct captured *c)
{
	c->id[0] = '\0';
	c->tid = -1;
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
			c->tid = strtoll(path, NULL, 10);
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
			memcpy(c->id, path, len);
			c->id[len] = '\0';
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
			memcpy(c->id, path, len);
			c->id[len] = '\0';
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
static const struct route *find_path(const char *path, struct captured *c)
{
	for (int i = 0; i < NROUTES; i++)
		if (match(routes[i].pattern, path, c))
			return &routes[i];
	return NULL;
}

/* The Allow value of each row's pattern, made once from the table: GET
 * and HEAD first when the pattern has a GET, then its other methods in
 * the table's order, then OPTIONS. */
static char allow_of[NROUTES][48];
static pthread_once_t allow_once = PTHREAD_ONCE_INIT;

static void allow_build(void)
{
	for (int i = 0; i < NROUTES; i++) {
		char *out = allow_of[i];
		size_t cap = sizeof allow_of[i], len = 0;
		int has_get = 0;
		for (int j = 0; j < NROUTES; j++)
			if (strcmp(routes[j].pattern, routes[i].pattern) == 0 &&
			    strcmp(routes[j].method, "GET") == 0)
				has_get = 1;
		out[0] = '\0';
		if (has_get)
			len += (size_t)snprintf(out + len, cap - len,
						"GET, HEAD, ");
		for (int j = 0; j < NROUTES; j++)
			if (strcmp(routes[j].pattern, routes[i].pattern) == 0 &&
			    strcmp(routes[j].method, "GET") != 0)
				len += (size_t)snprintf(out + len, cap - len,
							"%s, ",
							routes[j].method);
		snprintf(out + len, cap - len, "OPTIONS");
	}
}

static const char *allow_for(const struct route *r)
{
	pthread_once(&allow_once, allow_build);
	return allow_of[r - routes];
}

const char *api_allow(const char *path)
{
	struct captured c;
	const struct route *r = path ? find_path(path, &c) : NULL;
	return r ? allow_for(r) : NULL;
}

/* The JSON object body: required, optional (NULL when empty) or ignored.
 * Returns 0 with *out set (or NULL), -1 with rp set. */
static int json_body(const struct api_request *rq, enum api_body_rule rule,
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

/* The answer to a keyed request: kept by the store with its change
 * (nothing to keep here; a replay says so), else kept here if it is final
 * (a retry may fix a 5xx, a 409 or a 429). */
static void idem_keep(const struct api_config *cfg, const uint8_t scope[32],
		      struct api_reply *rp)
{
	if (rp->idem) {
		idem_release(cfg->idem, scope);
		if (rp->idem == IDEM_STORED_REPLAY)
			api_reply_header(rp, "Idempotent-Replayed", "true");
	} else if (rp->status < 500 && rp->status != 409 && rp->status != 429) {
		idem_record(cfg->idem, scope, rp);
	} else {
		idem_release(cfg->idem, scope);
	}
}

void api__idem_mark(const struct api_args *a, struct api_reply *rp)
{
	if (a->idem)
		rp->idem = a->idem->replayed ? IDEM_STORED_REPLAY : IDEM_STORED;
}

/* A pending request's answer that will never come: a retry may run. */
static void idem_unkept(void *im, const unsigned char scope[32])
{
	idem_release(im, scope);
}

/* Who a key belongs to: the bearer token, or without one the client's
 * address (rq->client: the forwarded one behind --trusted-proxy), so that
 * the same key from someone else is another key. */
static void requester(const struct api_request *rq, char *out, size_t cap)
{
	const char *auth = rq->header ? rq->header(rq->header_cls,
						   "Authorization")
				      : NULL;
	if (auth) {
		snprintf(out, cap, "token %s", auth);
		return;
	}
	const struct limits_key *k = rq->client;
	size_t n = (size_t)snprintf(out, cap, "address %u ", k ? k->family : 0);
	for (int i = 0; k && i < 16 && n + 3 < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%02x", k->addr[i]);
}

/* Idempotency-Key on a POST that changes state: 0 when there is none (or
 * keys are off), 1 when the request is to run and its answer be kept
 * under key->scope, -1 when rp is already the answer (a replay, or why
 * not). */
static int idem_start(const struct api_config *cfg,
		      const struct api_request *rq, const char *pattern,
		      struct ses_idem *key, struct api_reply *rp)
{
	const char *hk = rq->header ? rq->header(rq->header_cls,
						 "Idempotency-Key")
				    : NULL;
	if (!hk || !cfg->idem)
		return 0;
	size_t len = strlen(hk);
	int ok = len >= 1 && len <= 255;
	for (size_t i = 0; ok && i < len; i++)
		ok = hk[i] >= 0x21 && hk[i] <= 0x7e;
	if (!ok) {
		api__bad_field(rp, PROBLEM_BAD_IDEMPOTENCY_KEY, "Idempotency-Key",
			       "Idempotency-Key is 1 to 255 visible ASCII "
			       "characters");
		return -1;
	}
	char who[1100];
	requester(rq, who, sizeof who);
	const char *sp[] = {pattern, rq->path, who, hk};
	memset(key, 0, sizeof *key);
	hash_parts(key->scope, sp, 4, NULL, 0);
	const char *pp[] = {rq->method, rq->path, rq->query};
	hash_parts(key->print, pp, 3, rq->body, rq->body_len);
	switch (idem_begin(cfg->idem, key->scope, key->print, rq->client, rp)) {
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
	case IDEM_BUDGET: {
		json_t *p = problem_reply(rp, PROBLEM_IDEMPOTENCY_BUDGET,
			      "this client has as many keyed requests running "
			      "as its share of kept answers holds "
			      "(--idempotency-client-bytes); retry when one "
			      "has finished");
		if (p)
			json_object_set_new(
				p, "limit",
				json_integer((json_int_t)idem_client_budget(
					cfg->idem)));
		api_reply_header(rp, "Retry-After", "1");
		return -1;
	}
	case IDEM_NOMEM:
		break;
	}
	problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
	return -1;
}

void api_handle(const struct api_config *cfg, const struct api_request *rq,
		struct api_reply *rp)
{
	struct captured c;
	const struct route *r = find_path(rq->path, &c);
	if (r == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND,
			      "there is no resource at %.200s", rq->path);
		return;
	}
	rp->route = r->pattern;
	const char *allow = allow_for(r);
	if (strcmp(rq->method, "OPTIONS") == 0) {
		rp->status = 204;
		api_reply_header(rp, "Allow", "%s", allow);
		api_reply_header(rp, "Access-Control-Allow-Methods", "%s",
				 allow);
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
			      rq->method, r->pattern, allow);
		api_reply_header(rp, "Allow", "%s", allow);
		return;
	}
	struct api_args a = {
		.id = c.id[0] ? c.id : NULL, .tid = c.tid,
	};
	if (m->auth != AUTH_NONE) {
		int bad;
		a.token = api__bearer(rq, &bad);
	}
	if (m->flags & R_SESSIONS) {
		if (a.id && !token_id_ok(a.id)) {
			/* not the shape of an id: no such session */
			problem_reply(rp, PROBLEM_NO_SUCH_SESSION,
				      "there is no such session");
			return;
		}
	}
	json_t *body;
	if (json_body(rq, m->body, &body, rp) < 0)
		return;
	if ((m->flags & R_SESSIONS) && !cfg->sessions) {
		json_decref(body);
		problem_reply(rp, PROBLEM_NO_DATABASE,
			      "this server runs without a session database");
		return;
	}
	a.body = body;
	struct ses_idem key;
	int idem = (m->flags & R_IDEM) ?
			   idem_start(cfg, rq, m->pattern, &key, rp) : 0;
	if (idem < 0) {
		json_decref(body);
		return;
	}
	a.idem = idem > 0 ? &key : NULL;
	m->handler(cfg, rq, &a, rp);
	json_decref(body);
	uint64_t stored = (m->flags & R_STORES) ? (uint64_t)rq->body_len + 256
						: 0;
	if (rp->pending) {
		/* answered by api_finish, which keeps the answer then */
		rp->pending->stored_base = stored;
		if (idem) {
			rp->pending->unkept = idem_unkept;
			rp->pending->unkept_ctx = cfg->idem;
			memcpy(rp->pending->scope, key.scope, sizeof key.scope);
		}
		return;
	}
	if ((rp->status == 200 || rp->status == 201) &&
	    rp->idem != IDEM_STORED_REPLAY)
		rp->stored += stored;
	if (idem)
		idem_keep(cfg, key.scope, rp);
}

void api_finish(const struct api_config *cfg, struct api_reply *rp)
{
	struct api_pending *p = rp->pending;
	rp->pending = NULL;
	if (!p)
		return;
	p->finish(cfg, p, rp);
	if ((rp->status == 200 || rp->status == 201) &&
	    rp->idem != IDEM_STORED_REPLAY)
		rp->stored += p->stored_base;
	if (p->unkept)
		idem_keep(cfg, p->scope, rp);
	free(p);
}
