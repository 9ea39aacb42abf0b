/* check_barrage.c — bad input never changes state, never takes the server
 * down, and always gets the right answer.
 *
 * One server, one session with a history (and a solve). Its state, history
 * and solves are read first; then a barrage of malformed requests goes to
 * every route of the routing table: invalid JSON, duplicate keys, wrong
 * types, huge numbers, invalid UTF-8, NUL bytes (raw and escaped), deeply
 * nested JSON, deeply nested brackets and giant repetitions in notation,
 * path traversal and injection-shaped ids, unknown methods, oversized
 * headers and bodies, wrong tokens, and raw garbage on the socket. Every
 * row names its exact status and, where HTTP was parsed, the exact
 * problem type and code. At the end the session's state, history and
 * solves are byte-identical, the database holds no extra session, and
 * /healthz answers 200.
 *
 * Rows are generated in two parts: the generic malformations, sent to
 * every JSON route (with the write token on the session writes, so that
 * only the input is at fault), and a table of route-specific ones.
 * CUBED_BARRAGE_SURVEY=1 lists every answer instead of checking it (to
 * write new rows). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "http_client.h"
#include "suites.h"
#include "test_server.h"

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define MAX_BODY 65536
#define MAX_HEADER 8192

static test_server srv;
static char ses_path[96], token[64];

/* One malformed request. path: "{S}" stands for the session's path.
 * auth: 0 none, 1 the session's write token, 2 a wrong token. body_len 0
 * means strlen(body). kind NULL: the reply is not a problem (status
 * only). */
typedef struct row {
	const char *method;
	const char *path;
	int auth;
	const char *hdr;
	const char *body;
	size_t body_len;
	int status;
	const char *kind;
	const char *code;
} row;

static int rows_sent;

static void expand(char *out, size_t cap, const char *path)
{
	const char *s = strstr(path, "{S}");
	if (s)
		snprintf(out, cap, "%.*s%s%s", (int)(s - path), path, ses_path,
			 s + 3);
	else
		snprintf(out, cap, "%s", path);
}

static void send_row(const row *w, const char *what)
{
	char path[MAX_HEADER * 2], auth[128];
	expand(path, sizeof path, w->path);
	const char *headers[4];
	int k = 0;
	if (w->body && !(w->hdr && strncmp(w->hdr, "Content-Type", 12) == 0))
		headers[k++] = "Content-Type: application/json";
	if (w->auth) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s",
			 w->auth == 1 ? token
				      : "ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
		headers[k++] = auth;
	}
	if (w->hdr)
		headers[k++] = w->hdr;
	headers[k] = NULL;
	size_t len = w->body ? (w->body_len ? w->body_len : strlen(w->body))
			     : 0;
	http_response r;
	int rc = http_request(srv.port, w->method, path, headers, w->body, len,
			      &r);
	rows_sent++;
	if (getenv("CUBED_BARRAGE_SURVEY")) { /* list every answer */
		fprintf(stderr, "%s: %s %.60s -> %d %.200s\n", what, w->method,
			path, r.status, r.body);
		http_response_free(&r);
		return;
	}
	ck_assert_msg(rc == 0, "%s: %s %.80s: %s", what, w->method, path,
		      r.error);
	ck_assert_msg(r.status == w->status,
		      "%s: %s %.80s: status %d, expected %d: %.300s", what,
		      w->method, path, r.status, w->status, r.body);
	const char *ct = http_header(&r, "Content-Type");
	if (w->kind) {
		ck_assert_msg(ct && strcmp(ct, "application/problem+json") == 0,
			      "%s: %s %.80s: Content-Type %s", what, w->method,
			      path, ct ? ct : "(none)");
		json_t *j = json_loadb(r.body, r.body_len,
				       JSON_REJECT_DUPLICATES, NULL);
		ck_assert_msg(j != NULL, "%s: not JSON: %.200s", what, r.body);
		char type[96];
		snprintf(type, sizeof type, "urn:cubed:problem:%s", w->kind);
		const char *t = json_string_value(json_object_get(j, "type"));
		const char *c = json_string_value(json_object_get(j, "code"));
		ck_assert_msg(t && strcmp(t, type) == 0 && c &&
				      strcmp(c, w->code) == 0,
			      "%s: %s %.80s: type %s code %s, expected %s %s: "
			      "%.300s",
			      what, w->method, path, t, c, type, w->code,
			      r.body);
		ck_assert_msg(json_integer_value(json_object_get(j, "status")) ==
				      w->status,
			      "%s: status member: %s", what, r.body);
		json_decref(j);
	}
	http_response_free(&r);
}

/* ------------------------------------------------------------------ */
/* The generic malformations, for every route that takes a JSON body.  */

static const struct {
	const char *path;
	int auth;
	int body_required;
} json_routes[] = {
	{"/v1/apply", 0, 1},       {"/v1/alg", 0, 1},
	{"/v1/convert", 0, 1},     {"/v1/validate", 0, 1},
	{"/v1/match", 0, 1},       {"/v1/pieces", 0, 1},
	{"/v1/solve", 0, 1},       {"/v1/sessions", 0, 1},
	{"{S}/moves", 1, 1},       {"{S}/undo", 1, 0},
	{"{S}/redo", 1, 0},        {"{S}/reset", 1, 0},
	{"{S}/fork", 0, 0},        {"{S}/solve", 0, 0},
};
#define NJSON (int)(sizeof json_routes / sizeof *json_routes)

static char *deep_json;   /* 3000 nested arrays */
static char *big_body;    /* MAX_BODY + 1 bytes */
static char *big_header;  /* one header line past MAX_HEADER */

static const row generic[] = {
	{"POST", NULL, 0, "Content-Type: text/plain", "{}", 0, 415,
	 "unsupported_media_type", "unsupported_media_type"},
	{"POST", NULL, 0, "Content-Type: application/json; charset=latin1",
	 "{}", 0, 415, "unsupported_media_type", "unsupported_media_type"},
	{"POST", NULL, 0, NULL, "{\"size\": 3,", 0, 400, "malformed_json",
	 "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"moves\": \"R\", \"moves\": \"U\"}", 0,
	 400, "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"moves\": \"R \xff\xfe\"}", 0, 400,
	 "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"moves\": \"R\0U\"}", 16, 400,
	 "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"moves\": \"R\\u0000U\"}", 0, 400,
	 "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"moves\": \"R\"} trailing", 0, 400,
	 "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "{\"size\": 1e999}", 0, 400, "malformed_json",
	 "malformed_json"},
	{"POST", NULL, 0, NULL,
	 "{\"size\": 123456789012345678901234567890}", 0, 400,
	 "malformed_json", "malformed_json"},
	{"POST", NULL, 0, NULL, "[\"R\", \"U\"]", 0, 422, "invalid_request",
	 "not_an_object"},
	{"POST", NULL, 0, NULL, "\"R U\"", 0, 422, "invalid_request",
	 "not_an_object"},
	{"POST", NULL, 0, NULL, "null", 0, 422, "invalid_request",
	 "not_an_object"},
	{"POST", NULL, 0, NULL, "{\"__proto__\": {\"admin\": true}}", 0, 422,
	 "invalid_request", "unknown_field"},
	{"POST", NULL, 0, NULL, "{\"size; DROP TABLE sessions\": 3}", 0, 422,
	 "invalid_request", "unknown_field"},
	{"PUT", NULL, 0, NULL, "{}", 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"PATCH", NULL, 0, NULL, "{}", 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"FOO", NULL, 0, NULL, NULL, 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"post", NULL, 0, NULL, "{}", 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"TRACE", NULL, 0, NULL, NULL, 0, 405, "method_not_allowed",
	 "method_not_allowed"},
};
#define NGENERIC (int)(sizeof generic / sizeof *generic)

static void generic_json_routes(void)
{
	for (int i = 0; i < NJSON; i++) {
		for (int g = 0; g < NGENERIC; g++) {
			row w = generic[g];
			w.path = json_routes[i].path;
			w.auth = json_routes[i].auth;
			char what[64];
			snprintf(what, sizeof what, "generic row %d", g);
			send_row(&w, what);
		}
		row extra[] = {
			/* deeply nested JSON: jansson stops at depth 2048 */
			{"POST", json_routes[i].path, json_routes[i].auth,
			 NULL, deep_json, 0, 400, "malformed_json",
			 "malformed_json"},
			{"POST", json_routes[i].path, json_routes[i].auth,
			 NULL, big_body, 0, 413, "body_too_large",
			 "body_too_large"},
			{"POST", json_routes[i].path, json_routes[i].auth,
			 big_header, "{}", 0, 431, "headers_too_large",
			 "headers_too_large"},
			/* an empty body is a body missing, or no options */
			{"POST", json_routes[i].path, json_routes[i].auth,
			 NULL, "", 0, 400, "malformed_json", "malformed_json"},
		};
		int nextra = 4;
		if (!json_routes[i].body_required)
			nextra = 3; /* "" is a valid (empty) request there */
		for (int k = 0; k < nextra; k++)
			send_row(&extra[k], json_routes[i].path);
	}
}

/* ------------------------------------------------------------------ */
/* Route by route.                                                     */

#define NEST "((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((" \
	     "(R)"                                                             \
	     "))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"
#define NO_SES "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA"

static const row specific[] = {
	/* notation */
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 3, \"moves\": \"" NEST "\"}",
	 0, 422, "invalid_notation", "nesting_too_deep"},
	{"POST", "/v1/alg", 0, NULL,
	 "{\"moves\": \"[R, [U, [F, [D, [L, [B, [R, [U, [F, [D, [L, [B, [R, "
	 "[U, [F, [D, [L, [B, [R, [U, [F, [D, [L, [B, [R, [U, [F, [D, [L, "
	 "[B, [R, [U, [F, [D, [L, [B, [R, [U, [F, [D, [L, [B, [R, [U, [F, "
	 "[D, [L, [B, [R, [U, [F, [D, [L, [B, [R, [U, [F, [D, [L, [B, [R, "
	 "[U, [F, [D, [L, [B, R]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	 "]]]]]]]]]]]]]]]]]]]]]]]]]]]\"}",
	 0, 422, "invalid_notation", "nesting_too_deep"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 3, \"moves\": \"(R)1000001\"}",
	 0, 422, "invalid_notation", "amount_too_large"},
	{"POST", "/v1/apply", 0, NULL,
	 "{\"size\": 3, \"moves\": \"R99999999999999999999999\"}", 0, 422,
	 "invalid_notation", "amount_too_large"},
	{"POST", "/v1/apply", 0, NULL,
	 "{\"size\": 3, \"moves\": \"((R U)1000)1000\"}", 0, 422,
	 "limit_exceeded", "too_many_moves"},
	{"POST", "/v1/alg", 0, NULL,
	 "{\"moves\": \"(((R)1000)1000)1000\"}", 0, 422, "limit_exceeded",
	 "too_many_moves"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 3, \"moves\": \"(R U\"}", 0,
	 422, "invalid_notation", "unbalanced_bracket"},
	{"POST", "/v1/apply", 0, NULL,
	 "{\"size\": 3, \"moves\": \"R U'; DROP TABLE sessions; --\"}", 0, 422,
	 "invalid_notation", "missing_space"},
	{"POST", "/v1/apply", 0, NULL,
	 "{\"size\": 3, \"moves\": \"R \\u202e U\"}", 0, 422,
	 "invalid_notation", "unknown_token"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 3, \"moves\": \"1025R\"}", 0,
	 422, "invalid_notation", "layer_out_of_range"},
	/* numbers and types */
	{"POST", "/v1/apply", 0, NULL, "{\"size\": \"3\"}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 3.0}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": true}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 9223372036854775807}", 0,
	 422, "invalid_request", "size_out_of_range"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": -9223372036854775808}", 0,
	 422, "invalid_request", "size_out_of_range"},
	{"POST", "/v1/apply", 0, NULL, "{\"size\": 1025}", 0, 422,
	 "invalid_request", "size_out_of_range"},
	{"POST", "/v1/alg", 0, NULL, "{\"moves\": 5}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/alg", 0, NULL, "{}", 0, 422, "invalid_request",
	 "missing_field"},
	{"POST", "/v1/convert", 0, NULL, "{\"size\": 3}", 0, 422,
	 "invalid_request", "one_source"},
	{"POST", "/v1/convert", 0, NULL,
	 "{\"size\": 3, \"index\": \"99999999999999999999999999999999\"}", 0,
	 422, "invalid_request", "index_out_of_range"},
	{"POST", "/v1/validate", 0, NULL, "{\"facelets\": [\"U\"]}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/validate", 0, NULL, "{}", 0, 422, "invalid_request",
	 "missing_field"},
	{"POST", "/v1/match", 0, NULL,
	 "{\"facelets\": \"" SOLVED3 "\", \"pattern\": \"UUU\\u0000\"}", 0, 400,
	 "malformed_json", "malformed_json"},
	{"POST", "/v1/match", 0, NULL,
	 "{\"facelets\": \"" SOLVED3 "\", \"name\": \"../../etc/passwd\"}", 0,
	 422, "invalid_request", "unknown_pattern"},
	{"POST", "/v1/pieces", 0, NULL, "{\"facelets\": {}}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/solve", 0, NULL, "{\"facelets\": 3}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "/v1/solve", 0, NULL,
	 "{\"facelets\": \"" SOLVED3 "\", \"timeout_ms\": 99999999999}", 0,
	 422, "invalid_request", "value_out_of_range"},
	{"POST", "/v1/sessions", 0, NULL, "{\"size\": 129}", 0, 422,
	 "invalid_request", "size_out_of_range"},
	{"POST", "/v1/sessions", 0, NULL, "{\"size\": 3, \"visibility\": 5}",
	 0, 422, "invalid_request", "wrong_type"},
	{"POST", "/v1/sessions", 0, NULL,
	 "{\"size\": 3, \"visibility\": \"<script>\"}", 0, 422,
	 "invalid_request", "bad_visibility"},
	/* query strings */
	{"GET", "/v1/patterns?size=abc", 0, NULL, NULL, 0, 422,
	 "invalid_request", "wrong_type"},
	{"GET", "/v1/patterns?size=99999999999999999999999", 0, NULL, NULL, 0,
	 422, "invalid_request", "size_out_of_range"},
	{"GET", "/v1/patterns?size=3&size=3", 0, NULL, NULL, 0, 422,
	 "invalid_request", "duplicate_parameter"},
	{"GET", "/v1/patterns?size=3%00", 0, NULL, NULL, 0, 422,
	 "invalid_request", "bad_parameter"},
	{"GET", "/v1/patterns?size=3&%27%20OR%201=1=1", 0, NULL, NULL, 0, 422,
	 "invalid_request", "unknown_parameter"},
	{"GET", "/v1/scramble?size=0", 0, NULL, NULL, 0, 422,
	 "invalid_request", "size_out_of_range"},
	{"GET", "/v1/scramble?size=3&seed=-1", 0, NULL, NULL, 0, 422,
	 "invalid_request", "wrong_type"},
	{"GET", "{S}?version=abc", 0, NULL, NULL, 0, 422, "invalid_request",
	 "wrong_type"},
	{"GET", "{S}?version=-1", 0, NULL, NULL, 0, 422, "invalid_request",
	 "wrong_type"},
	{"GET", "{S}?version=99999999999999999999", 0, NULL, NULL, 0, 404,
	 "not_found", "no_such_session"},
	{"GET", "{S}?version=3&version=3", 0, NULL, NULL, 0, 422,
	 "invalid_request", "duplicate_parameter"},
	{"GET", "{S}?format=../../etc/passwd", 0, NULL, NULL, 0, 422,
	 "invalid_request", "bad_format"},
	{"GET", "{S}/history?limit=1001", 0, NULL, NULL, 0, 422,
	 "invalid_request", "value_out_of_range"},
	{"GET", "{S}/history?after=-1", 0, NULL, NULL, 0, 422,
	 "invalid_request", "wrong_type"},
	{"GET", "{S}/history?page=2", 0, NULL, NULL, 0, 422, "invalid_request",
	 "unknown_parameter"},
	{"GET", "{S}/solves?limit=0", 0, NULL, NULL, 0, 422, "invalid_request",
	 "value_out_of_range"},
	/* ids: traversal, injection, odd bytes, length */
	{"GET", "/v1/sessions/..%2F..%2Fetc%2Fpasswd", 0, NULL, NULL, 0, 404,
	 "not_found", "not_found"},
	{"GET", "/v1/sessions/%27%20OR%20%271%27=%271", 0, NULL, NULL, 0, 404,
	 "not_found", "no_such_session"},
	{"GET", "/v1/sessions/1;DELETE%20FROM%20events", 0, NULL, NULL, 0, 404,
	 "not_found", "no_such_session"},
	{"DELETE", "/v1/sessions/%2A", 1, NULL, NULL, 0, 404, "not_found",
	 "no_such_session"},
	{"GET", "/v1/sessions/%00", 0, NULL, NULL, 0, 404, "not_found",
	 "not_found"},
	{"GET", "/v1/sessions/%ff%fe", 0, NULL, NULL, 0, 404, "not_found",
	 "no_such_session"},
	{"GET",
	 "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	 0, NULL, NULL, 0, 404, "not_found", "not_found"},
	{"POST", NO_SES "/moves", 1, NULL, "{\"moves\": \"R\"}", 0, 404,
	 "not_found", "no_such_session"},
	{"GET", "/../../etc/passwd", 0, NULL, NULL, 0, 404, "not_found",
	 "not_found"},
	{"GET", "/openapi.yaml/../../../etc/passwd", 0, NULL, NULL, 0, 404,
	 "not_found", "not_found"},
	{"GET", "//healthz", 0, NULL, NULL, 0, 404, "not_found", "not_found"},
	{"GET", "{S}/../../../v1/sessions", 0, NULL, NULL, 0, 404, "not_found",
	 "not_found"},
	/* tokens and preconditions on the session */
	{"POST", "{S}/moves", 0, NULL, "{\"moves\": \"R\"}", 0, 401,
	 "unauthorized", "token_required"},
	{"POST", "{S}/moves", 2, NULL, "{\"moves\": \"R\"}", 0, 403,
	 "forbidden", "wrong_token"},
	{"POST", "{S}/moves", 0, "Authorization: Basic Y3Q6eA==",
	 "{\"moves\": \"R\"}", 0, 401, "unauthorized", "token_required"},
	{"POST", "{S}/moves", 0, "Authorization: Bearer", "{\"moves\": \"R\"}",
	 0, 401, "unauthorized", "token_required"},
	{"POST", "{S}/moves", 0,
	 "Authorization: Bearer ct_' OR '1'='1", "{\"moves\": \"R\"}", 0, 403,
	 "forbidden", "wrong_token"},
	{"POST", "{S}/undo", 2, NULL, NULL, 0, 403, "forbidden",
	 "wrong_token"},
	{"POST", "{S}/reset", 0, NULL, NULL, 0, 401, "unauthorized",
	 "token_required"},
	{"DELETE", "{S}", 0, NULL, NULL, 0, 401, "unauthorized",
	 "token_required"},
	{"DELETE", "{S}", 2, NULL, NULL, 0, 403, "forbidden", "wrong_token"},
	{"POST", "{S}/moves", 1, "If-Match: \"v999\"", "{\"moves\": \"R\"}", 0,
	 412, "precondition_failed", "stale_version"},
	{"POST", "{S}/moves", 1, "If-Match: \"v2\"", "{\"moves\": \"R\"}", 0,
	 412, "precondition_failed", "stale_version"},
	{"POST", "{S}/moves", 1, "If-Match: *garbage*", "{\"moves\": \"R\"}",
	 0, 412, "precondition_failed", "stale_version"},
	{"POST", "{S}/reset", 1, "If-Match: \"v0\"", NULL, 0, 412,
	 "precondition_failed", "stale_version"},
	/* valid shape, invalid content, on the session itself */
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": \"" NEST "\"}", 0, 422,
	 "invalid_notation", "nesting_too_deep"},
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": \"((R U)1000)1000\"}", 0,
	 422, "limit_exceeded", "too_many_moves"},
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": \"R Q\"}", 0, 422,
	 "invalid_notation", "unknown_token"},
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": \"M2 4R\"}", 0, 422,
	 "invalid_notation", "layer_out_of_range"},
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": [\"R\"]}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "{S}/moves", 1, NULL, "{\"moves\": \"R\", \"version\": 1}", 0,
	 422, "invalid_request", "unknown_field"},
	{"POST", "{S}/undo", 1, NULL, "{\"steps\": 99999999}", 0, 422,
	 "invalid_request", "unknown_field"},
	{"POST", "{S}/fork", 0, NULL, "{\"version\": -1}", 0, 422,
	 "invalid_request", "value_out_of_range"},
	{"POST", "{S}/fork", 0, NULL, "{\"version\": \"1\"}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "{S}/fork", 0, NULL, "{\"version\": 9223372036854775807}", 0,
	 404, "not_found", "no_such_session"},
	{"POST", "{S}/solve", 0, NULL, "{\"method\": 1}", 0, 422,
	 "invalid_request", "wrong_type"},
	{"POST", "{S}/solve", 0, NULL, "{\"method\": \"../../bin/sh\"}", 0, 422,
	 "invalid_request", "method_unavailable"},
	/* unknown methods on the read routes */
	{"PUT", "{S}", 1, NULL, "{\"size\": 3}", 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"DELETE", "{S}/history", 1, NULL, NULL, 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"POST", "/healthz", 0, NULL, "{}", 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"DELETE", "/openapi.yaml", 0, NULL, NULL, 0, 405,
	 "method_not_allowed", "method_not_allowed"},
	{"GET", "/v1/apply", 0, NULL, NULL, 0, 405, "method_not_allowed",
	 "method_not_allowed"},
	{"OPTIONS", "/nope", 0, NULL, NULL, 0, 404, "not_found", "not_found"},
};
#define NSPECIFIC (int)(sizeof specific / sizeof *specific)

static void route_specific(void)
{
	for (int i = 0; i < NSPECIFIC; i++) {
		char what[32];
		snprintf(what, sizeof what, "specific row %d", i);
		send_row(&specific[i], what);
	}
}

/* ------------------------------------------------------------------ */
/* Raw bytes on the socket: not always HTTP at all.                    */

/* Send len bytes on a fresh connection and read for up to wait_ms (or
 * until the server closes). Returns the bytes read (NUL-terminated,
 * malloc'd); *n their count. */
static char *raw_exchange(const char *bytes, size_t len, int wait_ms,
			  size_t *n)
{
	int fd = http_connect(srv.port, 5000);
	ck_assert_msg(fd >= 0, "connect: %s", strerror(errno));
	size_t off = 0;
	while (off < len) {
		ssize_t k = send(fd, bytes + off, len - off, MSG_NOSIGNAL);
		if (k <= 0)
			break; /* the server closed: read what it said */
		off += (size_t)k;
	}
	size_t cap = 65536, got = 0;
	char *buf = malloc(cap + 1);
	double until = test_now() + wait_ms / 1000.0;
	for (;;) {
		int left = (int)((until - test_now()) * 1000);
		if (left <= 0)
			break;
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, left) <= 0)
			break;
		ssize_t k = recv(fd, buf + got, cap - got, 0);
		if (k <= 0)
			break;
		got += (size_t)k;
		if (got == cap)
			break;
	}
	close(fd);
	buf[got] = '\0';
	*n = got;
	return buf;
}

typedef struct raw_row {
	const char *name;
	const char *bytes;
	size_t len;       /* 0: strlen(bytes) */
	int status;       /* 0: no reply at all */
	const char *kind; /* NULL: not a problem (MHD's own page) */
	const char *code;
} raw_row;

static void check_raw(const raw_row *w)
{
	size_t n;
	char *got = raw_exchange(w->bytes, w->len ? w->len : strlen(w->bytes),
				 1000, &n);
	if (w->status == 0) {
		ck_assert_msg(n == 0, "%s: expected no reply, got %.200s",
			      w->name, got);
		free(got);
		return;
	}
	int status = 0;
	ck_assert_msg(sscanf(got, "HTTP/1.1 %d", &status) == 1 &&
			      status == w->status,
		      "%s: expected %d, got %.200s", w->name, w->status, got);
	if (w->kind) {
		char *body = strstr(got, "\r\n\r\n");
		ck_assert_msg(body && strstr(got, "Content-Type: "
						  "application/problem+json"),
			      "%s: not a problem: %.300s", w->name, got);
		json_t *j = json_loads(body + 4, JSON_DISABLE_EOF_CHECK, NULL);
		char type[96];
		snprintf(type, sizeof type, "urn:cubed:problem:%s", w->kind);
		const char *t = json_string_value(json_object_get(j, "type"));
		const char *c = json_string_value(json_object_get(j, "code"));
		ck_assert_msg(t && c && strcmp(t, type) == 0 &&
				      strcmp(c, w->code) == 0,
			      "%s: %.300s", w->name, body + 4);
		json_decref(j);
		/* a request whose end is unknown ends its connection */
		ck_assert_msg(strcmp(w->code, "ambiguous_length") != 0 ||
				      strstr(got, "Connection: close") != NULL,
			      "%s: the connection stays open: %.300s",
			      w->name, got);
	} else {
		ck_assert_msg(strstr(got, "application/problem+json") == NULL,
			      "%s: %.300s", w->name, got);
	}
	free(got);
}

static const raw_row raw_rows[] = {
	{"NUL bytes and garbage", "\0\1\2\3garbage\r\n\r\n", 14, 0, NULL,
	 NULL},
	{"a leading space", " GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0,
	 NULL, NULL},
	{"HTTP/0.9", "GET /healthz\r\n\r\n", 0, 400, NULL, NULL},
	{"HTTP/7.0", "GET /healthz HTTP/7.0\r\nHost: x\r\n\r\n", 0, 505, NULL,
	 NULL},
	{"a header without a colon",
	 "GET /healthz HTTP/1.1\r\nHost: x\r\nNo Colon Here\r\n\r\n", 0, 400,
	 NULL, NULL},
	{"a negative Content-Length",
	 "POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 0,
	 400, NULL, NULL},
	{"a Content-Length past 2^64",
	 "POST /v1/apply HTTP/1.1\r\nHost: x\r\n"
	 "Content-Length: 99999999999999999999999\r\n\r\n{}",
	 0, 413, NULL, NULL},
	{"a bad chunk size",
	 "POST /v1/apply HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
	 "\r\nZZZ\r\n\r\n",
	 0, 400, NULL, NULL},
	{"two Content-Lengths",
	 "POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
	 "\r\nContent-Length: 2\r\nContent-Length: 12\r\n\r\n{}{\"size\":3}",
	 0, 400, "malformed_request", "ambiguous_length"},
	{"Content-Length and Transfer-Encoding",
	 "POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
	 "\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
	 "2\r\n{}\r\n0\r\n\r\n",
	 0, 400, "malformed_request", "ambiguous_length"},
	{"CONNECT", "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n", 0, 404,
	 "not_found", "not_found"},
	{"an absolute URI",
	 "GET http://169.254.169.254/latest HTTP/1.1\r\nHost: x\r\n\r\n", 0,
	 404, "not_found", "not_found"},
	{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 0, 404,
	 "not_found", "not_found"},
};
#define NRAW (int)(sizeof raw_rows / sizeof *raw_rows)

static void raw_socket(void)
{
	for (int i = 0; i < NRAW; i++)
		check_raw(&raw_rows[i]);
	/* 4 KB of fixed noise */
	char noise[4096];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof noise; i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (char)(x >> 16);
	}
	memcpy(noise + sizeof noise - 4, "\r\n\r\n", 4); /* end a "head" */
	raw_row w = {"4 KB of noise", noise, sizeof noise, 0, NULL, NULL};
	check_raw(&w);
	/* a write cut off half-way through its body, then the connection
	 * closed: nothing is applied */
	char half[512];
	snprintf(half, sizeof half,
		 "POST %s/moves HTTP/1.1\r\nHost: x\r\n"
		 "Content-Type: application/json\r\n"
		 "Authorization: Bearer %s\r\nContent-Length: 40\r\n\r\n"
		 "{\"moves\": \"R U",
		 ses_path, token);
	raw_row cut = {"a write cut off", half, 0, 0, NULL, NULL};
	check_raw(&cut);
	/* a write whose body is longer than it says: the rest is the start
	 * of a next request, which is garbage */
	snprintf(half, sizeof half,
		 "POST %s/moves HTTP/1.1\r\nHost: x\r\n"
		 "Content-Type: application/json\r\n"
		 "Authorization: Bearer %s\r\nContent-Length: 5\r\n\r\n"
		 "{\"moves\": \"R\"}",
		 ses_path, token);
	raw_row longer = {"a body longer than its length", half, 0, 400,
			  "malformed_json", "malformed_json"};
	size_t n;
	char *got = raw_exchange(longer.bytes, strlen(longer.bytes), 1000, &n);
	ck_assert_msg(strncmp(got, "HTTP/1.1 400", 12) == 0 &&
			      strstr(got, "urn:cubed:problem:malformed_json"),
		      "%s: %.300s", longer.name, got);
	free(got);
}

/* ------------------------------------------------------------------ */
/* The session before and after.                                       */

static char *body_of(const char *path)
{
	http_response r;
	int rc = http_request(srv.port, "GET", path, NULL, NULL, 0, &r);
	ck_assert_msg(rc == 0 && r.status == 200, "GET %s: %d %s", path,
		      r.status, rc ? r.error : r.body);
	char *b = strdup(r.body);
	http_response_free(&r);
	return b;
}

static long long sessions_in_db(void)
{
	char *m = body_of("/metrics");
	char *p = strstr(m, "\ncubed_sessions ");
	ck_assert_msg(p != NULL, "no cubed_sessions in /metrics");
	long long n = atoll(p + 16);
	free(m);
	return n;
}

static void write_ok(const char *kind, const char *body)
{
	char path[160], auth[128];
	snprintf(path, sizeof path, "%s/%s", ses_path, kind);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
	const char *h[] = {"Content-Type: application/json", auth, NULL};
	http_response r;
	int rc = http_request(srv.port, "POST", path, h, body,
			      body ? strlen(body) : 0, &r);
	ck_assert_msg(rc == 0 && (r.status == 200 || r.status == 201),
		      "POST %s: %d %s", path, r.status, rc ? r.error : r.body);
	http_response_free(&r);
}

START_TEST(barrage)
{
	/* tables from $CUBED_TABLES if set; the solve rows are all refused
	 * before a solver is needed */
	static const char *const extra[] = {
		"--quiet", "--solver", "0", "--rate-limit", "0",
		"--max-body", "65536", "--max-header", "8192", NULL};
	char err[2048];
	ck_assert_msg(test_server_start(&srv, NULL, extra, err, sizeof err) == 0,
		      "%s", err);

	http_response r;
	const char *ct[] = {"Content-Type: application/json", NULL};
	ck_assert_int_eq(http_request(srv.port, "POST", "/v1/sessions", ct,
				      "{\"size\": 3}", 11, &r),
			 0);
	ck_assert_int_eq(r.status, 201);
	json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
	snprintf(ses_path, sizeof ses_path, "/v1/sessions/%.40s",
		 json_string_value(json_object_get(j, "id")));
	snprintf(token, sizeof token, "%.60s",
		 json_string_value(json_object_get(j, "write_token")));
	json_decref(j);
	http_response_free(&r);
	write_ok("moves", "{\"moves\": \"R U\"}");
	write_ok("moves", "{\"moves\": \"F'\"}");
	write_ok("undo", NULL); /* version 3, with a redo possible */

	char hist[160], solves[160];
	snprintf(hist, sizeof hist, "%s/history", ses_path);
	snprintf(solves, sizeof solves, "%s/solves", ses_path);
	char *state0 = body_of(ses_path), *hist0 = body_of(hist),
	     *solves0 = body_of(solves);
	long long count0 = sessions_in_db();

	deep_json = malloc(6002);
	memset(deep_json, '[', 3000);
	memset(deep_json + 3000, ']', 3000);
	deep_json[6000] = '\0';
	big_body = malloc(MAX_BODY + 2);
	memset(big_body, ' ', MAX_BODY + 1);
	big_body[0] = '{';
	big_body[MAX_BODY] = '}';
	big_body[MAX_BODY + 1] = '\0';
	big_header = malloc(MAX_HEADER + 16);
	memcpy(big_header, "X-Pad: ", 7);
	memset(big_header + 7, 'p', MAX_HEADER);
	big_header[7 + MAX_HEADER] = '\0';

	generic_json_routes();
	route_specific();
	raw_socket();

	char *state1 = body_of(ses_path), *hist1 = body_of(hist),
	     *solves1 = body_of(solves);
	ck_assert_msg(strcmp(state0, state1) == 0,
		      "the session changed:\n%s\n%s", state0, state1);
	ck_assert_msg(strcmp(hist0, hist1) == 0,
		      "the history changed:\n%.500s\n%.500s", hist0, hist1);
	ck_assert_msg(strcmp(solves0, solves1) == 0,
		      "the solves changed:\n%.500s\n%.500s", solves0, solves1);
	ck_assert_msg(strstr(state1, "\"version\":3") != NULL,
		      "not at version 3: %.300s", state1);
	long long count1 = sessions_in_db();
	ck_assert_msg(count1 == count0, "sessions in the database: %lld, "
					"then %lld",
		      count0, count1);
	ck_assert_int_eq(http_request(srv.port, "GET", "/healthz", NULL, NULL,
				      0, &r),
			 0);
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
	fprintf(stderr, "barrage: %d requests and %d raw exchanges, the "
			"session unchanged\n",
		rows_sent, NRAW + 4);
	free(state0), free(state1), free(hist0), free(hist1);
	free(solves0), free(solves1);
	free(deep_json), free(big_body), free(big_header);
	ck_assert_int_eq(test_server_stop(&srv, 1), 0);
}
END_TEST

Suite *barrage_suite(void)
{
	Suite *s = suite_create("barrage");
	TCase *tc = tcase_create("barrage");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, barrage);
	suite_add_tcase(s, tc);
	return s;
}
