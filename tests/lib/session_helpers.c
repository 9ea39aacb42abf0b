/* session_helpers.c — see session_helpers.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "session_helpers.h"

/* ------------------------------------------------------------------ */
/* Servers: test_server.c's fixture.                                   */

double now_s(void)
{
	return test_now();
}

int server_start(server *s, const char *dir, const char *const *extra,
		 char *err, size_t errlen)
{
	return test_server_start(s, dir, extra, err, errlen);
}

int server_stop(server *s, int remove)
{
	return test_server_stop(s, remove);
}

void start_or_abort(server *s, const char *dir, const char *const *extra)
{
	char err[2048]; /* Check's messages hold a few KiB */
	if (server_start(s, dir, extra, err, sizeof err) < 0)
		ck_abort_msg("cannot start the server: %s", err);
}

/* ------------------------------------------------------------------ */
/* Requests.                                                           */

/* One exchange on a fresh connection. token (may be NULL) becomes
 * "Authorization: Bearer <token>"; hdr (may be NULL) is one more full
 * header line. A body is sent as application/json. */
void call(http_response *r, int port, const char *method,
		 const char *path, const char *token, const char *hdr,
		 const char *body)
{
	char auth[128];
	const char *headers[4];
	int k = 0;
	if (body)
		headers[k++] = "Content-Type: application/json";
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		headers[k++] = auth;
	}
	if (hdr)
		headers[k++] = hdr;
	headers[k] = NULL;
	int rc = http_request(port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

json_t *parse(const http_response *r, const char *what)
{
	json_error_t e;
	json_t *j = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES,
			       &e);
	ck_assert_msg(j != NULL, "%s: reply is not JSON (%s): %.300s", what,
		      e.text, r->body);
	return j;
}

int media_type_is(const char *ct, const char *want)
{
	if (!ct)
		return 0;
	size_t k = strlen(want);
	return strncasecmp(ct, want, k) == 0 &&
	       (ct[k] == '\0' || ct[k] == ';' || ct[k] == ' ');
}

/* One exchange whose reply must be status with a body of media type
 * media, parsed (asserted) and returned; the request described in what
 * (cap bytes) for the caller's messages. */
static json_t *expect_reply(http_response *r, int port, const char *method,
			    const char *path, const char *token,
			    const char *hdr, const char *body, int status,
			    const char *media, char *what, size_t cap)
{
	call(r, port, method, path, token, hdr, body);
	snprintf(what, cap, "%s %s %.100s%s%s", method, path, body ? body : "",
		 hdr ? " " : "", hdr ? hdr : "");
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.500s",
		      what, r->status, status, r->body);
	ck_assert_msg(media_type_is(http_header(r, "Content-Type"), media),
		      "%s: Content-Type %s", what,
		      http_header(r, "Content-Type"));
	return parse(r, what);
}

/* The response kept in *keep (when not NULL) or released. */
static void keep_or_free(http_response *r, http_response *keep)
{
	if (keep)
		*keep = *r;
	else
		http_response_free(r);
}

/* A request whose reply must be status with a JSON body (returned). */
json_t *expect_json(int port, const char *method, const char *path,
		    const char *token, const char *hdr, const char *body,
		    int status, http_response *keep)
{
	http_response r;
	char what[256];
	json_t *j = expect_reply(&r, port, method, path, token, hdr, body,
				 status, "application/json", what,
				 sizeof what);
	keep_or_free(&r, keep);
	return j;
}

/* A request whose reply must be a problem of this status, kind and code
 * (field NULL: not checked). Returns the problem (for more checks). */
json_t *expect_problem(int port, const char *method, const char *path,
		       const char *token, const char *hdr, const char *body,
		       int status, const char *kind, const char *code,
		       const char *field, http_response *keep)
{
	http_response r;
	char what[256];
	json_t *j = expect_reply(&r, port, method, path, token, hdr, body,
				 status, "application/problem+json", what,
				 sizeof what);
	char type[96];
	snprintf(type, sizeof type, "urn:cubed:problem:%s", kind);
	const char *t = json_string_value(json_object_get(j, "type"));
	ck_assert_msg(t && strcmp(t, type) == 0, "%s: type %s, expected %s: %s",
		      what, t, type, r.body);
	ck_assert_msg(json_integer_value(json_object_get(j, "status")) ==
			      status,
		      "%s: status member: %s", what, r.body);
	const char *c = json_string_value(json_object_get(j, "code"));
	ck_assert_msg(c && strcmp(c, code) == 0, "%s: code %s, expected %s: %s",
		      what, c, code, r.body);
	ck_assert_msg(json_is_string(json_object_get(j, "detail")) &&
			      json_is_string(json_object_get(j, "title")),
		      "%s: no detail or title: %s", what, r.body);
	if (field) {
		const char *f = json_string_value(json_object_get(j, "field"));
		ck_assert_msg(f && strcmp(f, field) == 0,
			      "%s: field %s, expected %s: %s", what, f, field,
			      r.body);
	}
	keep_or_free(&r, keep);
	return j;
}

const char *sget(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	ck_assert_msg(s != NULL, "member %s is not a string in %s", key,
		      json_dumps(j, JSON_COMPACT));
	return s;
}

long long iget(const json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	ck_assert_msg(json_is_integer(v), "member %s is not an integer in %s",
		      key, json_dumps(j, JSON_COMPACT));
	return json_integer_value(v);
}

int bget(const json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	ck_assert_msg(json_is_boolean(v), "member %s is not a boolean in %s",
		      key, json_dumps(j, JSON_COMPACT));
	return json_is_true(v);
}

void expect_etag(const http_response *r, long long version,
			const char *what)
{
	char want[32];
	snprintf(want, sizeof want, "\"v%lld\"", version);
	const char *e = http_header(r, "ETag");
	ck_assert_msg(e && strcmp(e, want) == 0, "%s: ETag %s, expected %s",
		      what, e ? e : "(missing)", want);
}

/* A session as created: id and token copied out. */

json_t *create(int port, const char *body, ses *out)
{
	http_response r;
	json_t *j = expect_json(port, "POST", "/v1/sessions", NULL, NULL, body,
				201, &r);
	snprintf(out->id, sizeof out->id, "%s", sget(j, "id"));
	snprintf(out->token, sizeof out->token, "%s", sget(j, "write_token"));
	snprintf(out->path, sizeof out->path, "/v1/sessions/%s", out->id);
	const char *loc = http_header(&r, "Location");
	ck_assert_msg(loc && strcmp(loc, out->path) == 0,
		      "create %s: Location %s, expected %s", body, loc,
		      out->path);
	expect_etag(&r, 0, body);
	http_response_free(&r);
	return j;
}

/* POST /v1/apply {facelets, moves} → the facelets after (malloc'd). */
char *apply(int port, const char *facelets, const char *moves)
{
	return apply_n(port, facelets, 0, moves);
}

char *apply_n(int port, const char *facelets, int n, const char *moves)
{
	json_t *b = facelets ? json_pack("{s:s, s:s}", "facelets", facelets,
					 "moves", moves)
			     : json_pack("{s:i, s:s}", "size", n, "moves", moves);
	char *body = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	json_t *j = expect_json(port, "POST", "/v1/apply", NULL, NULL, body,
				200, NULL);
	free(body);
	char *f = strdup(sget(j, "facelets"));
	json_decref(j);
	return f;
}


json_t *get_session(int port, const char *path, const char *token,
			   long long want_version)
{
	http_response r;
	json_t *j = expect_json(port, "GET", path, token, NULL, NULL, 200, &r);
	if (want_version >= 0) {
		ck_assert_msg(iget(j, "version") == want_version,
			      "GET %s: version %lld, expected %lld", path,
			      iget(j, "version"), want_version);
		expect_etag(&r, want_version, path);
	}
	http_response_free(&r);
	return j;
}

/* Every item of a paged list of a session, page by page (see
 * session_helpers.h). */
json_t *pages_all(int port, const ses *s, const char *what,
		  const char *member, const char *key, const char *token,
		  int limit)
{
	json_t *all = json_array();
	long long after = -1;
	for (int pages = 0; pages < 10000; pages++) {
		char path[192];
		if (after < 0)
			snprintf(path, sizeof path, "%s/%s?limit=%d", s->path,
				 what, limit);
		else
			snprintf(path, sizeof path, "%s/%s?after=%lld&limit=%d",
				 s->path, what, after, limit);
		json_t *j = expect_json(port, "GET", path, token, NULL, NULL,
					200, NULL);
		json_t *items = json_object_get(j, member);
		ck_assert_msg(json_is_array(items) &&
				      json_array_size(items) <= (size_t)limit,
			      "GET %s: %s: %s", path, member,
			      json_dumps(j, JSON_COMPACT));
		json_array_extend(all, items);
		json_t *next = json_object_get(j, "next");
		if (json_is_null(next)) {
			json_decref(j);
			return all;
		}
		ck_assert_msg(json_is_integer(next) &&
				      json_array_size(items) == (size_t)limit,
			      "GET %s: next %s with %zu %s", path,
			      json_dumps(next, JSON_ENCODE_ANY),
			      json_array_size(items), member);
		long long n = json_integer_value(next);
		ck_assert_msg(n == iget(json_array_get(items,
						       json_array_size(items) - 1),
					key),
			      "GET %s: next is not the last %s shown: %s", path,
			      key, json_dumps(j, JSON_COMPACT));
		after = n;
		json_decref(j);
	}
	ck_abort_msg("%s of %s: too many pages", what, s->path);
	return NULL;
}

json_t *history_all(int port, const ses *s, const char *token, int limit)
{
	return pages_all(port, s, "history", "events", "version", token,
			 limit);
}

int send_moves(http_response *r, int port, const ses *s, const char *moves,
	       const char *key, long long if_match)
{
	char path[160], auth[128], idem[192], im[48];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->token);
	const char *h[5] = {"Content-Type: application/json", auth};
	int k = 2;
	if (key) {
		snprintf(idem, sizeof idem, "Idempotency-Key: %s", key);
		h[k++] = idem;
	}
	if (if_match >= 0) {
		snprintf(im, sizeof im, "If-Match: \"v%lld\"", if_match);
		h[k++] = im;
	}
	h[k] = NULL;
	/* jansson quotes the moves, however long (a test's may not fit a
	 * buffer) */
	json_t *b = json_pack("{s:s}", "moves", moves);
	char *body = b ? json_dumps(b, JSON_COMPACT) : NULL;
	json_decref(b);
	if (!body) {
		memset(r, 0, sizeof *r);
		snprintf(r->error, sizeof r->error, "no memory for the body");
		return -1;
	}
	int rc = http_request(port, "POST", path, h, body, strlen(body), r);
	free(body);
	return rc == 0 ? r->status : -1;
}

void watch_session(sse_client *w, int port, const ses *s, long long version)
{
	char path[160];
	snprintf(path, sizeof path, "%s/events", s->path);
	ck_assert_msg(sse_open(w, port, path, NULL, 5000, 0) == 0, "GET %s: %s",
		      path, w->error);
	ck_assert_msg(w->status == 200, "GET %s: status %d", path, w->status);
	sse_event e;
	ck_assert_msg(sse_next_event(w, &e, 5000) == 1, "GET %s: no state: %s",
		      path, w->error);
	char id[32];
	snprintf(id, sizeof id, "%lld", version);
	ck_assert_msg(strcmp(e.type, "state") == 0 && strcmp(e.id, id) == 0,
		      "GET %s: first event %s id %s, expected state id %s", path,
		      e.type, e.id, id);
	json_t *d = json_loads(e.data, 0, NULL);
	ck_assert_msg(d != NULL, "GET %s: the state is not JSON", path);
	ck_assert_int_eq(iget(d, "version"), version);
	json_decref(d);
	sse_event_free(&e);
}

void expect_sse_event(sse_client *w, sse_event *e, int timeout_ms,
		      const char *what)
{
	int rc = sse_next_event(w, e, timeout_ms);
	ck_assert_msg(rc == 1, "%s: no event within %d ms (%s): %s", what,
		      timeout_ms, rc == 0 ? "the stream ended" : "none came",
		      w->error);
}

int wait_ready(int port, double seconds)
{
	double deadline = now_s() + seconds;
	int status = 0;
	for (;;) {
		http_response r;
		status = http_request(port, "GET", "/readyz", NULL, NULL, 0,
				      &r) == 0
				 ? r.status
				 : 0;
		http_response_free(&r);
		if (status == 200 || now_s() >= deadline)
			return status;
		test_sleep_ms(20);
	}
}

/* Wait (at most SOLVER_TABLES_WAIT_S) until the server on port's /readyz says
 * both sizes' tables are ready; fail saying what they were. */
void need_tables_on(int port)
{
	double deadline = now_s() + SOLVER_TABLES_WAIT_S;
	char last[512] = "(no reply)";
	for (;;) {
		http_response r;
		if (http_request(port, "GET", "/readyz", NULL, NULL, 0,
				 &r) == 0 &&
		    r.status == 200) {
			json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
			json_t *sv = json_object_get(j, "solver");
			const char *t3 = json_string_value(json_object_get(
				json_object_get(sv, "3x3"), "tables"));
			const char *t2 = json_string_value(json_object_get(
				json_object_get(sv, "2x2"), "tables"));
			char *s = sv ? json_dumps(sv, JSON_COMPACT) : NULL;
			snprintf(last, sizeof last, "%s",
				 s ? s : "(no solver member)");
			free(s);
			int ready = t3 && t2 && strcmp(t3, "ready") == 0 &&
				    strcmp(t2, "ready") == 0;
			int failed = (t3 && (strcmp(t3, "failed") == 0 ||
					     strcmp(t3, "off") == 0)) ||
				     (t2 && (strcmp(t2, "failed") == 0 ||
					     strcmp(t2, "off") == 0));
			json_decref(j);
			http_response_free(&r);
			if (ready)
				return;
			ck_assert_msg(!failed,
				      "the solver tables will not be ready: "
				      "/readyz solver %s",
				      last);
		} else {
			snprintf(last, sizeof last, "status %d %s", r.status,
				 r.error);
			http_response_free(&r);
		}
		ck_assert_msg(now_s() < deadline,
			      "the solver tables were not ready within %.0f s "
			      "(CUBED_TABLES=%s): /readyz solver %s",
			      SOLVER_TABLES_WAIT_S,
			      getenv("CUBED_TABLES") ? getenv("CUBED_TABLES")
						     : "(unset)",
			      last);
		test_sleep_ms(100);
	}
}
