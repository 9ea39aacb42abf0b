/* check_http_edges.c — the edges of HTTP that cubed itself must answer
 * (issue 60): header lines libmicrohttpd 0.9.75 lets through (white space
 * before a colon, NUL or a bare CR in a value, an HTTP/1.1 request without
 * Host), a query of a thousand parameters (which made libmicrohttpd close
 * the connection without a word), a megabyte notation token (echoed
 * whole in the 422), job ids in the access log, and JSON log lines that a
 * long client path cut mid-escape. Each test sends the exact bytes and
 * asserts the exact status and problem code; every log line must parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "http_client.h"
#include "session_helpers.h"
#include "suites.h"

/* Send request (len bytes) on a fresh connection and read one reply. */
static void raw(int port, const char *request, size_t len, http_response *r)
{
	int fd = http_connect(port, 5000);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, request, len), (ssize_t)len);
	int rc = http_read_response(fd, "GET", r);
	close(fd);
	ck_assert_msg(rc == 0, "no reply to %.60s…: %s", request, r->error);
}

/* The reply is a problem of this status and code, and closes. */
static void problem_is(const http_response *r, const char *what, int status,
		       const char *type, const char *code)
{
	ck_assert_msg(r->status == status, "%s: status %d, not %d: %s", what,
		      r->status, status, r->body);
	json_t *j = parse(r, what);
	char urn[96];
	snprintf(urn, sizeof urn, "urn:cubed:problem:%s", type);
	ck_assert_str_eq(sget(j, "type"), urn);
	ck_assert_str_eq(sget(j, "code"), code);
	ck_assert(json_is_string(json_object_get(j, "request_id")));
	json_decref(j);
}

#define R(s) s, sizeof s - 1

/* A header name with white space before its colon, a NUL or a bare CR in
 * a value, no Host or two: 400 malformed_request (bad_header, bad_host),
 * the connection closed, and nothing done. Before the guard, every one of
 * them was answered 200 (the first framed by Content-Length, a smuggling
 * shape). */
START_TEST(header_lines)
{
	server s;
	const char *extra[] = {"--solver", "0", NULL};
	start_or_abort(&s, NULL, extra);
	ses a;
	json_decref(create(s.port, "{\"size\":3}", &a));
	char req[512];
	int n = snprintf(req, sizeof req,
			 "POST %s/moves HTTP/1.1\r\nHost: x\r\n"
			 "Authorization: Bearer %s\r\n"
			 "Content-Type: application/json\r\n"
			 "Transfer-Encoding : chunked\r\n"
			 "Content-Length: 13\r\n\r\n{\"moves\":\"R\"}",
			 a.path, a.token);
	http_response r;
	raw(s.port, req, (size_t)n, &r);
	problem_is(&r, "space before colon", 400, "malformed_request",
		   "bad_header");
	ck_assert(r.closed || (http_header(&r, "Connection") &&
			       !strcmp(http_header(&r, "Connection"), "close")));
	http_response_free(&r);
	json_decref(get_session(s.port, a.path, NULL, 0));

	static const struct {
		const char *what, *req;
		size_t len;
		int status;
		const char *code;
	} cases[] = {
		{"NUL in a value",
		 R("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n"),
		 400, "bad_header"},
		{"bare CR in a value",
		 R("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"),
		 400, "bad_header"},
		{"tab before colon",
		 R("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A\t: b\r\n\r\n"),
		 400, "bad_header"},
		{"no Host", R("GET /healthz HTTP/1.1\r\n\r\n"), 400,
		 "bad_host"},
		{"two Hosts",
		 R("GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"), 400,
		 "bad_host"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		raw(s.port, cases[i].req, cases[i].len, &r);
		problem_is(&r, cases[i].what, cases[i].status,
			   "malformed_request", cases[i].code);
		http_response_free(&r);
	}
	/* what stays allowed: HTTP/1.0 without Host, empty and spaced values */
	raw(s.port, R("GET /healthz HTTP/1.0\r\n\r\n"), &r);
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
	raw(s.port,
	    R("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n"
	      "X-Spaced:  a b  \r\nConnection: close\r\n\r\n"),
	    &r);
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
	server_stop(&s, 1);
}
END_TEST

/* A query of 1000 parameters (6.9 KB, well under --max-header) got no
 * reply at all: libmicrohttpd ran out of its connection's memory parsing
 * it and closed. Now 431 too_many_parameters with the limit (64); 64
 * parameters still reach the route (which names the unknown one). */
START_TEST(many_parameters)
{
	server s;
	const char *extra[] = {"--solver", "0", NULL};
	start_or_abort(&s, NULL, extra);
	static char req[16384];
	for (int count = 1000; count >= 64; count = count == 1000 ? 65 : 64) {
		int n = snprintf(req, sizeof req, "GET /v1/scramble?");
		for (int i = 0; i < count; i++)
			n += snprintf(req + n, sizeof req - (size_t)n, "%sa%d=1",
				      i ? "&" : "", i);
		n += snprintf(req + n, sizeof req - (size_t)n,
			      " HTTP/1.1\r\nHost: x\r\n\r\n");
		http_response r;
		raw(s.port, req, (size_t)n, &r);
		if (count > 64) {
			problem_is(&r, "many parameters", 431,
				   "headers_too_large", "too_many_parameters");
			json_t *j = parse(&r, "431");
			ck_assert_int_eq(iget(j, "limit"), 64);
			json_decref(j);
		} else {
			problem_is(&r, "64 parameters", 422, "invalid_request",
				   "unknown_parameter");
		}
		http_response_free(&r);
		if (count == 64)
			break;
	}
	server_stop(&s, 1);
}
END_TEST

/* A bad notation token of a megabyte was echoed whole (a 1 MB problem):
 * now its first 64 bytes and its length. */
START_TEST(long_token_not_echoed)
{
	server s;
	const char *extra[] = {"--solver", "0", NULL};
	start_or_abort(&s, NULL, extra);
	size_t tl = 1000000;
	char *body = malloc(tl + 64);
	ck_assert_ptr_nonnull(body);
	int k = sprintf(body, "{\"size\":3,\"moves\":\"R ");
	memset(body + k, 'Q', tl);
	strcpy(body + k + tl, "\"}");
	http_response r;
	call(&r, s.port, "POST", "/v1/apply", NULL, NULL, body);
	free(body);
	problem_is(&r, "long token", 422, "invalid_notation", "unknown_token");
	ck_assert_msg(r.body_len < 2048, "a %zu byte problem", r.body_len);
	json_t *j = parse(&r, "422");
	ck_assert_int_eq(strlen(sget(j, "token")), 64);
	ck_assert_int_eq(iget(j, "token_length"), (long long)tl);
	ck_assert_int_eq(iget(j, "offset"), 2);
	json_decref(j);
	http_response_free(&r);
	/* a short one is quoted whole, without a length */
	call(&r, s.port, "POST", "/v1/apply", NULL, NULL,
	     "{\"size\":3,\"moves\":\"R Qx\"}");
	j = parse(&r, "422");
	ck_assert_str_eq(sget(j, "token"), "Qx");
	ck_assert_ptr_null(json_object_get(j, "token_length"));
	json_decref(j);
	http_response_free(&r);
	server_stop(&s, 1);
}
END_TEST

/* The whole log of s (read after the server stopped). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char buf[4 << 20];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Paths that escape to far more than a log line's 4 KiB: 1000 × %01 (six
 * bytes each in JSON: the line used to stop mid-escape, invalid, without
 * status, client or request_id), 2000 two-byte characters, 3000 quotes.
 * Every line of the log parses as a JSON object; each request line has
 * status, client and request_id, a path cut between two characters that
 * ends in "…", and "truncated": true. A job's path names no job id. */
START_TEST(json_log_lines_whole)
{
	server s;
	const char *extra[] = {"--solver", "0", "--log-format", "json", NULL};
	start_or_abort(&s, NULL, extra);
	static const char *const units[] = {"%01", "%C3%A9", "%22"};
	static const int counts[] = {1000, 2000, 3000};
	for (int u = 0; u < 3; u++) {
		static char path[16384];
		int n = snprintf(path, sizeof path, "/v1/");
		for (int i = 0; i < counts[u]; i++)
			n += snprintf(path + n, sizeof path - (size_t)n, "%s",
				      units[u]);
		char rid[64];
		snprintf(rid, sizeof rid, "X-Request-Id: long-path-%d", u);
		http_response r;
		call(&r, s.port, "GET", path, NULL, rid, NULL);
		ck_assert_int_eq(r.status, 404);
		http_response_free(&r);
	}
	http_response r;
	call(&r, s.port, "GET", "/v1/jobs/0123456789abcdef0123456789abcdef",
	     NULL, "X-Request-Id: job-path", NULL);
	ck_assert_int_gt(r.status, 0); /* 503 no_jobs without a solver */
	http_response_free(&r);
	ck_assert_int_eq(server_stop(&s, 0), 0);
	char *log = slurp(s.log);
	int lines = 0, cut = 0, job = 0;
	for (char *line = log, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		json_error_t e;
		json_t *j = json_loadb(line, (size_t)(nl - line), 0, &e);
		ck_assert_msg(json_is_object(j), "not JSON (%s): %.200s", e.text,
			      line);
		ck_assert(json_is_string(json_object_get(j, "time")));
		ck_assert(json_is_string(json_object_get(j, "msg")));
		lines++;
		ck_assert_msg(nl - line < 4096, "a line of %ld bytes",
			      (long)(nl - line));
		const char *rid = json_string_value(json_object_get(j,
								    "request_id"));
		if (rid && strncmp(rid, "long-path-", 10) == 0) {
			ck_assert_int_eq(iget(j, "status"), 404);
			ck_assert_str_eq(sget(j, "client"), "127.0.0.1");
			ck_assert_int_eq(bget(j, "truncated"), 1);
			const char *p = sget(j, "path");
			size_t pl = strlen(p);
			ck_assert_msg(pl > 200 && !strcmp(p + pl - 3, "\xe2\x80\xa6"),
				      "path %s", p);
			cut++;
		}
		if (rid && strcmp(rid, "job-path") == 0) {
			ck_assert_str_eq(sget(j, "path"), "/v1/jobs/{id}");
			job++;
		}
		json_decref(j);
	}
	ck_assert_int_eq(cut, 3);
	ck_assert_int_eq(job, 1);
	ck_assert_msg(strstr(log, "0123456789abcdef0123456789abcdef") == NULL,
		      "the job id is in the log");
	ck_assert_int_ge(lines, 6);
	test_server_remove(&s);
}
END_TEST

Suite *http_edges_suite(void)
{
	Suite *su = suite_create("http_edges");
	TCase *tc = tcase_create("edges");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, header_lines);
	tcase_add_test(tc, many_parameters);
	tcase_add_test(tc, long_token_not_echoed);
	tcase_add_test(tc, json_log_lines_whole);
	suite_add_tcase(su, tc);
	return su;
}
