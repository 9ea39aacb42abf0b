/* check_http_transport.c — part of the http suite (check_http.c runs it,
 * on its default server): HTTP/1.1 itself on the stateless routes.
 * Keep-alive, the body size limit (1 MiB) on both sides of the line,
 * Expect: 100-continue, a missing or parameterised Content-Type, and
 * CORS: the preflight of every POST route and the origin header on every
 * kind of reply, once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "http_helpers.h"

static int contains_nocase(const char *hay, const char *needle)
{
	for (size_t k = strlen(needle); *hay; hay++)
		if (strncasecmp(hay, needle, k) == 0)
			return 1;
	return 0;
}

/* The same request body twice on one connection (keep-alive). */
START_TEST(keep_alive)
{
	int fd = http_connect(srv.port, 15000);
	ck_assert_msg(fd >= 0, "connect: %s", strerror(errno));
	http_response r;
	ck_assert_msg(http_send(fd, srv.port, "GET", "/healthz", NULL, NULL, 0,
				0, &r) == 0,
		      "first request: %s", r.error);
	ck_assert_int_eq(r.status, 200);
	ck_assert_msg(!r.closed, "the server closed a keep-alive connection "
				 "after GET /healthz");
	http_response_free(&r);
	const char *body = "{\"size\": 3, \"moves\": \"R\"}";
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(http_send(fd, srv.port, "POST", "/v1/apply",
					JSON_CT, body, strlen(body), i == 2,
					&r) == 0,
			      "request %d on the same connection: %s", i + 2,
			      r.error);
		check_json_reply(&r, "keep-alive POST /v1/apply", 200,
				 "{\"facelets\": \"" AFTER_R "\"}");
		if (i < 2)
			ck_assert_msg(!r.closed,
				      "the server closed a keep-alive "
				      "connection after POST /v1/apply");
		http_response_free(&r);
	}
	close(fd);
}
END_TEST

/* A body just over the 1 MiB default is refused; one of exactly 1 MiB
 * (valid JSON padded with spaces) is served. */
START_TEST(body_size_limit)
{
	size_t max = 1048576;
	char *big = malloc(max + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', max + 1);
	memcpy(big, "{\"size\": 3}", 11);
	big[max + 1] = '\0';

	http_response r;
	ck_assert_msg(http_request(srv.port, "POST", "/v1/apply", JSON_CT, big,
				   max + 1, &r) == 0,
		      "1 MiB + 1: %s", r.error);
	check_problem(&r, "POST /v1/apply with 1 MiB + 1 bytes", 413,
		      "body_too_large", "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);

	ck_assert_msg(http_request(srv.port, "POST", "/v1/apply", JSON_CT, big,
				   max, &r) == 0,
		      "1 MiB: %s", r.error);
	check_json_reply(&r, "POST /v1/apply with exactly 1 MiB", 200,
			 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\"}");
	http_response_free(&r);

	/* far over: the server may answer before reading it all */
	size_t huge = 8 * max;
	char *h = malloc(huge);
	ck_assert_ptr_nonnull(h);
	memset(h, ' ', huge);
	h[0] = '{';
	h[huge - 1] = '}';
	ck_assert_msg(http_request(srv.port, "POST", "/v1/alg", JSON_CT, h,
				   huge, &r) == 0,
		      "8 MiB: %s", r.error);
	check_problem(&r, "POST /v1/alg with 8 MiB", 413, "body_too_large",
		      "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);
	free(h);
	free(big);
}
END_TEST

/* Expect: 100-continue: a too-large Content-Length is refused before
 * the upload; an acceptable one gets "100 Continue", then the answer. */
START_TEST(expect_100_continue)
{
	int fd = http_connect(srv.port, 15000);
	ck_assert_int_ge(fd, 0);
	const char *big = "POST /v1/apply HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			  "Content-Type: application/json\r\n"
			  "Content-Length: 2097152\r\n"
			  "Expect: 100-continue\r\n\r\n";
	ck_assert_int_eq(send(fd, big, strlen(big), MSG_NOSIGNAL),
			 (ssize_t)strlen(big));
	http_response r;
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect with 2 MiB: %s", r.error);
	check_problem(&r, "Expect: 100-continue with 2 MiB announced", 413,
		      "body_too_large", "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);
	close(fd);

	fd = http_connect(srv.port, 15000);
	ck_assert_int_ge(fd, 0);
	const char *body = "{\"size\": 3, \"moves\": \"R\"}";
	char head[256];
	snprintf(head, sizeof head,
		 "POST /v1/apply HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Content-Type: application/json\r\nContent-Length: %zu\r\n"
		 "Expect: 100-continue\r\nConnection: close\r\n\r\n",
		 strlen(body));
	ck_assert_int_eq(send(fd, head, strlen(head), MSG_NOSIGNAL),
			 (ssize_t)strlen(head));
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect with a small body: %s", r.error);
	ck_assert_msg(r.status == 100, "Expect with a small body: status %d "
				       "before the body was sent",
		      r.status);
	http_response_free(&r);
	ck_assert_int_eq(send(fd, body, strlen(body), MSG_NOSIGNAL),
			 (ssize_t)strlen(body));
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect, final answer: %s", r.error);
	check_json_reply(&r, "Expect: 100-continue, small body", 200,
			 "{\"facelets\": \"" AFTER_R "\"}");
	http_response_free(&r);
	close(fd);
}
END_TEST

/* A missing Content-Type is accepted as JSON. */
START_TEST(content_type_missing_is_json)
{
	http_response r;
	req(&r, "POST", "/v1/apply", NULL, "{\"size\": 3, \"moves\": \"R\"}");
	check_json_reply(&r, "POST /v1/apply without Content-Type", 200,
			 "{\"facelets\": \"" AFTER_R "\"}");
	http_response_free(&r);
	req(&r, "POST", "/v1/alg", NULL, "{\"moves\": \"R\"}");
	check_json_reply(&r, "POST /v1/alg without Content-Type", 200,
			 "{\"canonical\": \"R\"}");
	http_response_free(&r);
}
END_TEST

/* application/json with parameters, in any case, is still JSON (RFC 9110:
 * media types are case-insensitive, parameters follow a ';'). */
START_TEST(content_type_with_parameters)
{
	static const char *cts[] = {
		"Content-Type: application/json; charset=utf-8",
		"Content-Type: application/json;charset=UTF-8",
		"Content-Type: Application/JSON",
	};
	for (size_t i = 0; i < sizeof cts / sizeof *cts; i++) {
		const char *hdr[] = {cts[i], NULL};
		http_response r;
		req(&r, "POST", "/v1/apply", hdr,
		    "{\"size\": 3, \"moves\": \"R\"}");
		check_json_reply(&r, cts[i], 200,
				 "{\"facelets\": \"" AFTER_R "\"}");
		http_response_free(&r);
	}
}
END_TEST

/* openapi.yaml's PreflightPost. */
#define ALLOW_HEADERS                                                          \
	"Content-Type, Authorization, If-Match, If-None-Match, "               \
	"Idempotency-Key, Last-Event-ID, traceparent, tracestate, "            \
	"X-Request-Id"

START_TEST(cors_preflight)
{
	static const char *const pre[] = {
		"Origin: http://example.test",
		"Access-Control-Request-Method: POST",
		"Access-Control-Request-Headers: content-type", NULL};
	static const char *paths[] = {"/v1/apply",    "/v1/alg",
				      "/v1/convert",  "/v1/validate",
				      "/v1/match",    "/v1/pieces"};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		http_response r;
		req(&r, "OPTIONS", paths[i], pre, NULL);
		ck_assert_msg(r.status == 204, "OPTIONS %s: status %d",
			      paths[i], r.status);
		check_cors(&r, "OPTIONS preflight");
		const char *m =
			http_header(&r, "Access-Control-Allow-Methods");
		ck_assert_msg(m && strcmp(m, "POST, OPTIONS") == 0,
			      "OPTIONS %s: Access-Control-Allow-Methods %s",
			      paths[i], m);
		const char *h =
			http_header(&r, "Access-Control-Allow-Headers");
		ck_assert_msg(h && contains_nocase(h, "content-type") &&
				      strcmp(h, ALLOW_HEADERS) == 0,
			      "OPTIONS %s: Access-Control-Allow-Headers %s",
			      paths[i], h);
		const char *age = http_header(&r, "Access-Control-Max-Age");
		ck_assert_msg(age && strcmp(age, "86400") == 0,
			      "OPTIONS %s: Access-Control-Max-Age %s", paths[i],
			      age);
		ck_assert_uint_eq(r.body_len, 0);
		http_response_free(&r);
	}
	http_response r;
	req(&r, "OPTIONS", "/nope", pre, NULL);
	check_problem(&r, "OPTIONS /nope", 404, "not_found", "not_found", -1,
		      NULL, -1);
	http_response_free(&r);
}
END_TEST

/* Every kind of reply carries the CORS origin header, once. */
START_TEST(cors_on_every_reply)
{
	static const struct {
		const char *method, *path, *body;
	} cases[] = {
		{"GET", "/healthz", NULL},
		{"POST", "/v1/apply", "{\"moves\": \"R\"}"},
		{"POST", "/v1/alg", "{\"moves\": \"R\"}"},
		{"POST", "/v1/apply", "{\"moves\": \"Q\"}"},
		{"POST", "/v1/apply", "nope"},
		{"GET", "/nope", NULL},
		{"GET", "/v1/apply", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		http_response r;
		req(&r, cases[i].method, cases[i].path,
		    cases[i].body ? JSON_CT : NULL, cases[i].body);
		char what[128];
		snprintf(what, sizeof what, "%s %s", cases[i].method,
			 cases[i].path);
		check_cors(&r, what);
		ck_assert_msg(http_header_count(&r,
						"Access-Control-Allow-Origin") ==
				      1,
			      "%s: Access-Control-Allow-Origin sent %d times",
			      what,
			      http_header_count(&r,
						"Access-Control-Allow-Origin"));
		http_response_free(&r);
	}
}
END_TEST

void http_transport_tests(TCase *tc)
{
	tcase_add_test(tc, keep_alive);
	tcase_add_test(tc, body_size_limit);
	tcase_add_test(tc, expect_100_continue);
	tcase_add_test(tc, content_type_missing_is_json);
	tcase_add_test(tc, content_type_with_parameters);
	tcase_add_test(tc, cors_preflight);
	tcase_add_test(tc, cors_on_every_reply);
}
