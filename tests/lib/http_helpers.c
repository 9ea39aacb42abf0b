/* http_helpers.c — the requests and reply checks the http suite's files
 * share (see http_helpers.h). */
#include "http_helpers.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

const char *const JSON_CT[] = {"Content-Type: application/json", NULL};

void req(http_response *r, const char *method, const char *path,
	 const char *const *headers, const char *body)
{
	int rc = http_request(srv.port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

void post_json(http_response *r, const char *path, const char *body)
{
	req(r, "POST", path, JSON_CT, body);
}

void check_cors(const http_response *r, const char *what)
{
	const char *o = http_header(r, "Access-Control-Allow-Origin");
	ck_assert_msg(o && strcmp(o, "*") == 0,
		      "%s: Access-Control-Allow-Origin is %s, expected *", what,
		      o ? o : "(missing)");
	const char *e = http_header(r, "Access-Control-Expose-Headers");
	ck_assert_msg(e && strcmp(e, "ETag, Location, Retry-After, Idempotent-Replayed, "
				    "X-Request-Id, WWW-Authenticate, Allow") == 0,
		      "%s: Access-Control-Expose-Headers is %s", what,
		      e ? e : "(missing)");
}

/* Every member of want must be in got with an equal value; objects are
 * compared the same way, member by member (so a reply may carry more
 * members than the test names, but never different values). */
static int json_subset(const json_t *want, const json_t *got, char *path,
		       size_t cap)
{
	if (json_is_object(want)) {
		if (!json_is_object(got))
			return 0;
		const char *k;
		json_t *v;
		size_t len = strlen(path);
		json_object_foreach((json_t *)want, k, v)
		{
			snprintf(path + len, cap - len, ".%s", k);
			if (!json_subset(v, json_object_get(got, k), path, cap))
				return 0;
		}
		path[len] = '\0';
		return 1;
	}
	return got && json_equal((json_t *)want, (json_t *)got);
}

void check_json_reply(const http_response *r, const char *what,
		      int status, const char *expect)
{
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.400s",
		      what, r->status, status, r->body);
	ck_assert_msg(media_type_is(http_header(r, "Content-Type"),
				    "application/json"),
		      "%s: Content-Type %s", what,
		      http_header(r, "Content-Type"));
	check_cors(r, what);
	json_t *got = parse(r, what);
	json_error_t e;
	json_t *want = json_loads(expect, JSON_REJECT_DUPLICATES, &e);
	ck_assert_msg(want != NULL, "test table: bad JSON %s (%s)", expect,
		      e.text);
	char path[256] = "$";
	if (!json_subset(want, got, path, sizeof path)) {
		char *gs = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
		ck_abort_msg("%s: at %s the reply differs\n  expected: %s\n  "
			     "got:      %.2000s",
			     what, path, expect, gs);
	}
	json_decref(want);
	json_decref(got);
}

/* An RFC 9457 problem reply of the given kind. code / field may be NULL
 * (not checked, but present as a string), offset / limit may be -1 (not
 * checked). */
void check_problem(const http_response *r, const char *what, int status,
		   const char *kind, const char *code, long offset,
		   const char *field, long limit)
{
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.400s",
		      what, r->status, status, r->body);
	ck_assert_msg(media_type_is(http_header(r, "Content-Type"),
				    "application/problem+json"),
		      "%s: Content-Type %s, expected application/problem+json",
		      what, http_header(r, "Content-Type"));
	check_cors(r, what);
	json_t *j = parse(r, what);
	char type[128];
	snprintf(type, sizeof type, "urn:cubed:problem:%s", kind);
	const char *t = json_string_value(json_object_get(j, "type"));
	ck_assert_msg(t && strcmp(t, type) == 0, "%s: type %s, expected %s: %s",
		      what, t, type, r->body);
	json_t *st = json_object_get(j, "status");
	ck_assert_msg(json_is_integer(st) && json_integer_value(st) == status,
		      "%s: problem status member is not %d: %s", what, status,
		      r->body);
	const char *title = json_string_value(json_object_get(j, "title"));
	ck_assert_msg(title && *title, "%s: no title: %s", what, r->body);
	ck_assert_msg(json_is_string(json_object_get(j, "detail")),
		      "%s: no detail: %s", what, r->body);
	const char *c = json_string_value(json_object_get(j, "code"));
	ck_assert_msg(c && *c, "%s: no code: %s", what, r->body);
	if (code)
		ck_assert_msg(strcmp(c, code) == 0,
			      "%s: code %s, expected %s: %s", what, c, code,
			      r->body);
	if (offset >= 0) {
		json_t *o = json_object_get(j, "offset");
		ck_assert_msg(json_is_integer(o) &&
				      json_integer_value(o) == offset,
			      "%s: offset should be %ld: %s", what, offset,
			      r->body);
	}
	if (field) {
		const char *f = json_string_value(json_object_get(j, "field"));
		ck_assert_msg(f && strcmp(f, field) == 0,
			      "%s: field %s, expected %s: %s", what, f, field,
			      r->body);
	}
	if (limit >= 0) {
		json_t *l = json_object_get(j, "limit");
		ck_assert_msg(json_is_integer(l) &&
				      json_integer_value(l) == limit,
			      "%s: limit should be %ld: %s", what, limit,
			      r->body);
	}
	json_decref(j);
}
