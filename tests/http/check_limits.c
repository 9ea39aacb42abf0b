/* check_limits.c — black-box tests of the limits the HTTP layer enforces
 * before a request reaches a handler, and of the headers on every reply:
 *
 *   - the per-address rate limit: 429 too_many_requests with Retry-After,
 *     the ops routes never counted, the bucket refilling;
 *   - connections per address and in total: 503 too_many_connections on
 *     the extra connection, then closed; room again once one closes;
 *   - the request head: exactly --max-header bytes pass, one more is 431
 *     headers_too_large; a head past MHD's buffer gets MHD's own 431;
 *   - the defaults hold 1100 concurrent keep-alive connections from one
 *     address (room for 1000 live-event watchers);
 *   - the open-file limit is raised to its hard value at start-up;
 *   - X-Content-Type-Options, Content-Security-Policy, Referrer-Policy and
 *     Cache-Control on every kind of reply (200, 201, 204, 304, 4xx, 5xx,
 *     YAML, Prometheus text, HEAD);
 *   - no token in the request log; --bind defaults to loopback.
 *
 * Each case starts its own server (no solver tables, so it starts in
 * milliseconds) with the options it tests. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "http_client.h"
#include "suites.h"
#include "test_server.h"

static test_server srv;

static void start(const char *const *extra)
{
	char err[2048];
	const char *argv[24];
	int k = 0;
	argv[k++] = "--solver";
	argv[k++] = "0";
	argv[k++] = "--quiet";
	for (const char *const *e = extra; e && *e && k < 23; e++)
		argv[k++] = *e;
	argv[k] = NULL;
	if (test_server_start(&srv, NULL, argv, err, sizeof err) < 0)
		ck_abort_msg("cannot start the server: %s", err);
}

static void teardown(void)
{
	test_server_stop(&srv, 1);
}

static const char *const JSON_CT[] = {"Content-Type: application/json",
				      NULL};

/* One request on a fresh connection; the exchange must complete. */
static void req(http_response *r, const char *method, const char *path,
		const char *const *headers, const char *body)
{
	int rc = http_request(srv.port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

/* r must be a problem of this status, kind and code, with this limit
 * (-1: not checked). */
static void check_problem(const http_response *r, const char *what,
			  int status, const char *kind, const char *code,
			  long long limit)
{
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.300s",
		      what, r->status, status, r->body);
	const char *ct = http_header(r, "Content-Type");
	ck_assert_msg(ct && strcmp(ct, "application/problem+json") == 0,
		      "%s: Content-Type %s", what, ct ? ct : "(none)");
	json_error_t e;
	json_t *j = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES,
			       &e);
	ck_assert_msg(j != NULL, "%s: not JSON: %.300s", what, r->body);
	char type[96];
	snprintf(type, sizeof type, "urn:cubed:problem:%s", kind);
	const char *t = json_string_value(json_object_get(j, "type"));
	const char *c = json_string_value(json_object_get(j, "code"));
	ck_assert_msg(t && strcmp(t, type) == 0, "%s: type %s, expected %s",
		      what, t, type);
	ck_assert_msg(c && strcmp(c, code) == 0, "%s: code %s, expected %s",
		      what, c, code);
	ck_assert_msg(json_integer_value(json_object_get(j, "status")) ==
			      status,
		      "%s: status member: %s", what, r->body);
	if (limit >= 0)
		ck_assert_msg(json_integer_value(json_object_get(j, "limit")) ==
				      limit,
			      "%s: limit, expected %lld: %s", what, limit,
			      r->body);
	json_decref(j);
}

/* Retry-After must be a whole number of seconds in [lo, hi]. */
static long check_retry_after(const http_response *r, const char *what,
			      long lo, long hi)
{
	const char *ra = http_header(r, "Retry-After");
	ck_assert_msg(ra != NULL, "%s: no Retry-After", what);
	char *end;
	long v = strtol(ra, &end, 10);
	ck_assert_msg(*ra >= '0' && *ra <= '9' && *end == '\0' && v >= lo &&
			      v <= hi,
		      "%s: Retry-After \"%s\", expected %ld to %ld", what, ra,
		      lo, hi);
	return v;
}

/* ------------------------------------------------------------------ */

/* --trusted-proxy: a trusted peer's X-Forwarded-For names the client
 * whose bucket counts (so two clients behind one proxy are limited apart);
 * without it, or from a peer outside the list, the header is ignored (so a
 * client cannot pick a fresh bucket by writing the header itself). */
static int burst_of(const char *xff, int tries)
{
	char h[96];
	snprintf(h, sizeof h, "X-Forwarded-For: %s", xff);
	const char *headers[] = {h, NULL};
	for (int i = 0; i < tries; i++) {
		http_response r;
		req(&r, "GET", "/v1/patterns?size=3", headers, NULL);
		int st = r.status;
		http_response_free(&r);
		if (st == 429)
			return i;
		ck_assert_int_eq(st, 200);
	}
	return tries;
}

START_TEST(trusted_proxy)
{
	/* the tests talk from 127.0.0.1: that is the proxy */
	static const char *const extra[] = {"--rate-limit", "1",
					    "--rate-burst", "3",
					    "--trusted-proxy",
					    "10.0.0.0/8,127.0.0.1", NULL};
	start(extra);
	/* each client behind the proxy has its own bucket of 3 (4 if a
	 * slow machine took over a second: the bucket refills at 1/s) */
	int n = burst_of("198.51.100.1", 6);
	ck_assert_msg(n >= 3 && n <= 4, "first client: %d", n);
	n = burst_of("198.51.100.2", 6);
	ck_assert_msg(n >= 3 && n <= 4, "second client: %d", n);
	/* forged entries left of the proxy's own do not escape the bucket */
	n = burst_of("203.0.113.1, 198.51.100.2", 2);
	ck_assert_msg(n <= 1, "forged entries gave %d more", n);
	/* a chain of trusted proxies is skipped */
	n = burst_of("198.51.100.3, 10.1.2.3", 6);
	ck_assert_msg(n >= 3 && n <= 4, "client behind two proxies: %d", n);
}
END_TEST

START_TEST(untrusted_forwarded_for)
{
	/* no --trusted-proxy: the header is ignored, the peer counts */
	static const char *const extra[] = {"--rate-limit", "1",
					    "--rate-burst", "3", NULL};
	start(extra);
	int n = burst_of("198.51.100.1", 6);
	ck_assert_msg(n >= 3 && n <= 4, "first: %d", n);
	n = burst_of("198.51.100.2", 2);
	ck_assert_msg(n <= 1, "another X-Forwarded-For gave %d more", n);
	test_server_stop(&srv, 1);
	/* a list that does not hold the peer: the same */
	static const char *const other[] = {"--rate-limit", "1",
					    "--rate-burst", "3",
					    "--trusted-proxy", "10.0.0.0/8",
					    NULL};
	start(other);
	n = burst_of("198.51.100.1", 6);
	ck_assert_msg(n >= 3 && n <= 4, "first: %d", n);
	n = burst_of("198.51.100.2", 2);
	ck_assert_msg(n <= 1, "another X-Forwarded-For gave %d more", n);
}
END_TEST

START_TEST(rate_limit)
{
	static const char *const extra[] = {"--rate-limit", "2",
					    "--rate-burst", "5", NULL};
	start(extra);
	http_response r;
	/* the burst: five requests at once, of any route and method */
	static const char *const paths[] = {"/v1/patterns?size=3",
					    "/v1/patterns?size=2", "/nope",
					    "/v1/patterns?size=3",
					    "/openapi.yaml"};
	static const int want[] = {200, 200, 404, 200, 200};
	/* the bucket holds at most 5 and gains 2 a second: whatever the
	 * burst takes, a sixth request is allowed 0.5 s after it began at
	 * the earliest */
	double began = test_now();
	for (int i = 0; i < 5; i++) {
		req(&r, "GET", paths[i], NULL, NULL);
		ck_assert_msg(r.status == want[i],
			      "request %d of the burst (GET %s): status %d, "
			      "expected %d",
			      i + 1, paths[i], r.status, want[i]);
		http_response_free(&r);
	}
	/* the sixth, within milliseconds: refused, whatever it is */
	req(&r, "GET", "/v1/patterns?size=3", NULL, NULL);
	check_problem(&r, "6th request at 2/s burst 5", 429,
		      "too_many_requests", "too_many_requests", 2);
	check_retry_after(&r, "6th request", 1, 1);
	http_response_free(&r);
	/* a refused POST: its body is read and dropped, the connection
	 * stays usable */
	int fd = http_connect(srv.port, 5000);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(http_send(fd, srv.port, "POST", "/v1/apply", JSON_CT,
				   "{\"size\": 3, \"moves\": \"R\"}", 25, 0,
				   &r),
			 0);
	check_problem(&r, "POST past the rate", 429, "too_many_requests",
		      "too_many_requests", 2);
	ck_assert_msg(!r.closed, "a 429 closed the connection");
	http_response_free(&r);
	ck_assert_int_eq(http_send(fd, srv.port, "GET", "/v1/patterns?size=3",
				   NULL, NULL, 0, 0, &r),
			 0);
	check_problem(&r, "the next request on that connection", 429,
		      "too_many_requests", "too_many_requests", 2);
	http_response_free(&r);
	close(fd);
	/* monitoring is never throttled */
	static const char *const ops[] = {"/healthz", "/readyz", "/metrics"};
	for (int i = 0; i < 3; i++) {
		req(&r, "GET", ops[i], NULL, NULL);
		ck_assert_msg(r.status == 200, "GET %s past the rate: %d",
			      ops[i], r.status);
		http_response_free(&r);
	}
	/* at 2/s one request is back after half a second: polled (refusals
	 * take nothing from the bucket) until allowed, within 5 s, and
	 * never before its time */
	double allowed = 0;
	for (;;) {
		req(&r, "GET", "/v1/patterns?size=3", NULL, NULL);
		int st = r.status;
		ck_assert_msg(st == 200 || (st == 429 && test_now() < began + 5),
			      "%.2f s after the burst at 2/s: status %d: %s",
			      test_now() - began, st, r.body);
		http_response_free(&r);
		if (st == 200) {
			allowed = test_now() - began;
			break;
		}
		test_sleep_ms(20); /* polling the bucket, with a deadline */
	}
	ck_assert_msg(allowed >= 0.45,
		      "allowed again %.3f s after the burst at 2/s", allowed);
	req(&r, "GET", "/v1/patterns?size=3", NULL, NULL);
	ck_assert_int_eq(r.status, 429);
	http_response_free(&r);
	/* the refusals are counted */
	req(&r, "GET", "/metrics", NULL, NULL);
	ck_assert_msg(strstr(r.body, "status=\"429\"") != NULL,
		      "no 429 in /metrics");
	http_response_free(&r);
}
END_TEST

/* n keep-alive connections, each having had one 200 from /healthz. */
static void open_kept(int *fds, int n)
{
	for (int i = 0; i < n; i++) {
		http_response r;
		fds[i] = http_connect(srv.port, 10000);
		ck_assert_msg(fds[i] >= 0, "connection %d: %s", i + 1,
			      strerror(errno));
		ck_assert_msg(http_send(fds[i], srv.port, "GET", "/healthz",
					NULL, NULL, 0, 0, &r) == 0,
			      "connection %d: %s", i + 1, r.error);
		ck_assert_msg(r.status == 200 && !r.closed,
			      "connection %d: status %d closed %d", i + 1,
			      r.status, r.closed);
		http_response_free(&r);
	}
}

/* One more connection must be refused with a 503 and closed. */
static void check_refused_connection(const char *what, int limit)
{
	http_response r;
	int fd = http_connect(srv.port, 10000);
	ck_assert_int_ge(fd, 0);
	ck_assert_msg(http_send(fd, srv.port, "GET", "/healthz", NULL, NULL,
				0, 0, &r) == 0,
		      "%s: %s", what, r.error);
	check_problem(&r, what, 503, "unavailable", "too_many_connections",
		      limit);
	check_retry_after(&r, what, 1, 1);
	ck_assert_msg(r.closed, "%s: the connection was not closed", what);
	http_response_free(&r);
	char c;
	ck_assert_msg(recv(fd, &c, 1, 0) == 0, "%s: more after the 503", what);
	close(fd);
}

/* Wait until a fresh connection gets a 200 again (the server notices a
 * closed connection within its poll loop). */
static void check_room_again(const char *what)
{
	double until = test_now() + 5;
	int status = 0;
	while (test_now() < until) {
		http_response r;
		req(&r, "GET", "/healthz", NULL, NULL);
		status = r.status;
		http_response_free(&r);
		if (status == 200)
			return;
		test_sleep_ms(20);
	}
	ck_abort_msg("%s: still %d after 5 s", what, status);
}

START_TEST(connections_per_ip)
{
	static const char *const extra[] = {"--max-connections-per-ip", "3",
					    NULL};
	start(extra);
	int fds[3];
	open_kept(fds, 3);
	check_refused_connection("4th connection at 3 per address", 3);
	close(fds[0]);
	check_room_again("after closing one of 3");
	close(fds[1]);
	close(fds[2]);
}
END_TEST

START_TEST(connections_total)
{
	static const char *const extra[] = {"--max-connections", "3",
					    "--max-connections-per-ip", "0",
					    NULL};
	start(extra);
	int fds[3];
	open_kept(fds, 3);
	check_refused_connection("4th connection at 3 in total", 3);
	close(fds[2]);
	check_room_again("after closing one of 3");
	close(fds[0]);
	close(fds[1]);
}
END_TEST

/* The default limits hold more than 1000 live connections from one
 * address (live-event watchers keep theirs open). */
START_TEST(default_connections_fit_1000_watchers)
{
	start(NULL);
	enum { N = 1100 };
	static int fds[N];
	open_kept(fds, N);
	/* all still open and answering */
	for (int i = 0; i < N; i += 100) {
		http_response r;
		ck_assert_int_eq(http_send(fds[i], srv.port, "GET", "/healthz",
					   NULL, NULL, 0, 0, &r),
				 0);
		ck_assert_int_eq(r.status, 200);
		http_response_free(&r);
	}
	for (int i = 0; i < N; i++)
		close(fds[i]);
}
END_TEST

/* Send "GET /healthz" with an X-Pad header sized so that the request
 * head is exactly total bytes; returns the response. */
static void head_of_size(http_response *r, size_t total)
{
	char host[64];
	snprintf(host, sizeof host, "Host: 127.0.0.1:%d\r\n", srv.port);
	size_t fixed = strlen("GET /healthz HTTP/1.1\r\n") + strlen(host) +
		       strlen("X-Pad: \r\n") + strlen("Connection: close\r\n") +
		       2;
	ck_assert(total > fixed);
	size_t pad = total - fixed;
	char *line = malloc(pad + 8);
	memcpy(line, "X-Pad: ", 7);
	memset(line + 7, 'p', pad);
	line[7 + pad] = '\0';
	const char *headers[] = {line, NULL};
	int rc = http_request(srv.port, "GET", "/healthz", headers, NULL, 0,
			      r);
	free(line);
	ck_assert_msg(rc == 0, "head of %zu bytes: %s", total, r->error);
}

START_TEST(header_limit)
{
	static const char *const extra[] = {"--max-header", "2048", NULL};
	start(extra);
	http_response r;
	head_of_size(&r, 2048);
	ck_assert_msg(r.status == 200, "a 2048-byte head: %d %s", r.status,
		      r.body);
	http_response_free(&r);
	head_of_size(&r, 2049);
	check_problem(&r, "a 2049-byte head, --max-header 2048", 431,
		      "headers_too_large", "headers_too_large", 2048);
	http_response_free(&r);
	/* a long URI counts too */
	char path[2100];
	snprintf(path, sizeof path, "/v1/patterns?size=3&x=");
	size_t k = strlen(path);
	memset(path + k, 'a', sizeof path - k - 1);
	path[sizeof path - 1] = '\0';
	req(&r, "GET", path, NULL, NULL);
	check_problem(&r, "a 2 KB URI, --max-header 2048", 431,
		      "headers_too_large", "headers_too_large", 2048);
	http_response_free(&r);
	/* past MHD's own buffer (32 KiB here) MHD answers by itself: still
	 * 431, a bare page, the connection closed */
	head_of_size(&r, 100000);
	ck_assert_msg(r.status == 431 && r.closed,
		      "a 100 KB head: status %d, closed %d", r.status,
		      r.closed);
	http_response_free(&r);
	req(&r, "GET", "/healthz", NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
}
END_TEST

START_TEST(open_file_limit_raised)
{
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= 256)
		return; /* nothing to raise to */
	/* the server inherits a low soft limit from this process */
	struct rlimit low = {256, rl.rlim_max};
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
	start(NULL);
	setrlimit(RLIMIT_NOFILE, &rl);
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/limits", (int)srv.pid);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	char soft[32] = "", hard[32] = "";
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "Max open files", 14) == 0)
			sscanf(line + 14, "%31s %31s", soft, hard);
	fclose(f);
	ck_assert_msg(soft[0] && strcmp(soft, hard) == 0,
		      "open files: soft %s, hard %s", soft, hard);
	/* and it warns when even that is below what the limits need */
	char buf[2048];
	ck_assert_msg(strstr(test_server_log_tail(&srv, buf, sizeof buf),
			     "open-file limit") == NULL,
		      "an unexpected warning: %s", buf);
}
END_TEST

/* The headers every reply carries. */
static void check_security_headers(const http_response *r, const char *what)
{
	const char *v = http_header(r, "X-Content-Type-Options");
	ck_assert_msg(v && strcmp(v, "nosniff") == 0,
		      "%s (%d): X-Content-Type-Options %s", what, r->status,
		      v ? v : "(none)");
	v = http_header(r, "Content-Security-Policy");
	ck_assert_msg(v && strcmp(v, "default-src 'none'; "
				     "frame-ancestors 'none'") == 0,
		      "%s (%d): Content-Security-Policy %s", what, r->status,
		      v ? v : "(none)");
	v = http_header(r, "Referrer-Policy");
	ck_assert_msg(v && strcmp(v, "no-referrer") == 0,
		      "%s (%d): Referrer-Policy %s", what, r->status,
		      v ? v : "(none)");
	v = http_header(r, "Cache-Control");
	/* the contract is the same bytes until a restart: kept 5 minutes */
	const char *want = r->status >= 400 ? "no-store"
			   : strstr(what, "/openapi.yaml") ? "public, max-age=300"
							  : "no-cache";
	ck_assert_msg(v && strcmp(v, want) == 0,
		      "%s (%d): Cache-Control %s, expected %s", what,
		      r->status, v ? v : "(none)", want);
	ck_assert_msg(http_header_count(r, "X-Content-Type-Options") == 1 &&
			      http_header_count(r, "Cache-Control") == 1,
		      "%s: a security header twice", what);
}

START_TEST(security_headers_everywhere)
{
	static const char *const extra[] = {
		"--max-body", "1000",    "--max-header", "2048",
		"--rate-limit", "1", "--rate-burst", "40", NULL};
	start(extra);
	struct {
		const char *method, *path, *hdr, *body;
		int status;
	} cases[] = {
		{"GET", "/healthz", NULL, NULL, 200},
		{"HEAD", "/healthz", NULL, NULL, 200},
		{"GET", "/openapi.yaml", NULL, NULL, 200},
		{"GET", "/metrics", NULL, NULL, 200},
		{"OPTIONS", "/v1/apply", NULL, NULL, 204},
		{"POST", "/v1/apply", NULL, "{\"size\": 3, \"moves\": \"R\"}",
		 200},
		{"POST", "/v1/sessions", NULL, "{\"size\": 3}", 201},
		{"POST", "/v1/apply", NULL, "{\"size\": 3,", 400},
		{"GET", "/nope", NULL, NULL, 404},
		{"DELETE", "/v1/apply", NULL, NULL, 405},
		{"POST", "/v1/apply", "Content-Type: text/plain", "{}", 415},
		{"POST", "/v1/apply", NULL, "{\"size\": 3, \"moves\": \"Q\"}",
		 422},
		{"POST", "/v1/solve", NULL,
		 "{\"facelets\": \"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBB"
		 "BBBBBBB\"}",
		 503},
	};
	char id[64] = "";
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *headers[3];
		int k = 0;
		headers[k++] = cases[i].hdr ? cases[i].hdr
					    : "Content-Type: application/json";
		headers[k] = NULL;
		http_response r;
		req(&r, cases[i].method, cases[i].path, headers, cases[i].body);
		char what[128];
		snprintf(what, sizeof what, "%s %s", cases[i].method,
			 cases[i].path);
		ck_assert_msg(r.status == cases[i].status,
			      "%s: status %d, expected %d: %.200s", what,
			      r.status, cases[i].status, r.body);
		check_security_headers(&r, what);
		if (r.status == 201) {
			json_t *j = json_loads(r.body, 0, NULL);
			snprintf(id, sizeof id, "%s",
				 json_string_value(json_object_get(j, "id")));
			json_decref(j);
		}
		http_response_free(&r);
	}
	/* 304 */
	char path[128];
	snprintf(path, sizeof path, "/v1/sessions/%s", id);
	const char *inm[] = {"If-None-Match: \"v0\"", NULL};
	http_response r;
	req(&r, "GET", path, inm, NULL);
	ck_assert_int_eq(r.status, 304);
	check_security_headers(&r, "GET session If-None-Match");
	http_response_free(&r);
	/* 401 */
	snprintf(path, sizeof path, "/v1/sessions/%s/moves", id);
	req(&r, "POST", path, JSON_CT, "{\"moves\": \"R\"}");
	ck_assert_int_eq(r.status, 401);
	check_security_headers(&r, "POST moves without a token");
	http_response_free(&r);
	/* 413 */
	char big[1200];
	memset(big, ' ', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	big[0] = '{';
	big[sizeof big - 2] = '}';
	req(&r, "POST", "/v1/apply", JSON_CT, big);
	ck_assert_int_eq(r.status, 413);
	check_security_headers(&r, "POST /v1/apply 1.2 KB");
	http_response_free(&r);
	/* 431 */
	char pad[2100] = "X-Pad: ";
	memset(pad + 7, 'p', sizeof pad - 8);
	pad[sizeof pad - 1] = '\0';
	const char *padh[] = {pad, NULL};
	req(&r, "GET", "/healthz", padh, NULL);
	ck_assert_int_eq(r.status, 431);
	check_security_headers(&r, "GET /healthz with a 2 KB header");
	http_response_free(&r);
	/* 429: use up the burst */
	for (int i = 0; i < 60; i++) {
		req(&r, "GET", "/v1/patterns?size=3", NULL, NULL);
		if (r.status == 429)
			break;
		http_response_free(&r);
	}
	ck_assert_int_eq(r.status, 429);
	check_security_headers(&r, "GET past the rate");
	http_response_free(&r);
}
END_TEST

START_TEST(connection_refusal_headers)
{
	static const char *const extra[] = {"--max-connections-per-ip", "1",
					    NULL};
	start(extra);
	int fd;
	open_kept(&fd, 1);
	http_response r;
	req(&r, "GET", "/healthz", NULL, NULL);
	ck_assert_int_eq(r.status, 503);
	check_security_headers(&r, "a connection past the limit");
	http_response_free(&r);
	close(fd);
}
END_TEST

/* Secrets stay out of the log: a server that logs every request sees a
 * session created, written with its token (also in a query string, as a
 * careless client might send it) and refused a wrong one; no "ct_" token
 * text reaches its log. And the default address is loopback. */
START_TEST(no_secret_in_logs)
{
	char err[2048];
	static const char *const extra[] = {"--solver", "0", NULL};
	ck_assert_msg(test_server_start(&srv, NULL, extra, err, sizeof err) == 0,
		      "%s", err);
	http_response r;
	req(&r, "POST", "/v1/sessions", JSON_CT, "{\"size\": 3}");
	ck_assert_int_eq(r.status, 201);
	json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
	char id[64], tok[64], auth[128], path[256];
	snprintf(id, sizeof id, "%.40s",
		 json_string_value(json_object_get(j, "id")));
	snprintf(tok, sizeof tok, "%.60s",
		 json_string_value(json_object_get(j, "write_token")));
	json_decref(j);
	http_response_free(&r);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok);
	const char *h[] = {"Content-Type: application/json", auth, NULL};
	snprintf(path, sizeof path, "/v1/sessions/%s/moves?token=%s", id, tok);
	req(&r, "POST", path, h, "{\"moves\": \"R\"}");
	http_response_free(&r);
	snprintf(path, sizeof path, "/v1/sessions/%s/moves", id);
	req(&r, "POST", path, h, "{\"moves\": \"R\"}");
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
	const char *bad[] = {"Content-Type: application/json",
			     "Authorization: Bearer ct_notthetoken", NULL};
	req(&r, "POST", path, bad, "{\"moves\": \"R\"}");
	ck_assert_int_eq(r.status, 403);
	http_response_free(&r);
	char buf[16384];
	test_server_log_tail(&srv, buf, sizeof buf);
	ck_assert_msg(strstr(buf, "/moves") != NULL, "no request lines: %s",
		      buf);
	ck_assert_msg(strstr(buf, "ct_") == NULL && strstr(buf, tok + 3) == NULL,
		      "a token in the log:\n%s", buf);

	FILE *p = popen("${CUBED_BIN:-build/cubed} --help", "r");
	ck_assert(p != NULL);
	char line[256];
	int loopback = 0, in_bind = 0;
	while (fgets(line, sizeof line, p)) {
		if (strstr(line, "--bind"))
			in_bind = 1;
		else if (in_bind && strstr(line, "default 127.0.0.1"))
			loopback = 1, in_bind = 0;
		else
			in_bind = 0;
	}
	pclose(p);
	ck_assert_msg(loopback, "--bind does not default to 127.0.0.1");
}
END_TEST

Suite *limits_suite(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, rate_limit);
	tcase_add_test(tc, trusted_proxy);
	tcase_add_test(tc, untrusted_forwarded_for);
	tcase_add_test(tc, connections_per_ip);
	tcase_add_test(tc, connections_total);
	tcase_add_test(tc, default_connections_fit_1000_watchers);
	tcase_add_test(tc, header_limit);
	tcase_add_test(tc, open_file_limit_raised);
	tcase_add_test(tc, security_headers_everywhere);
	tcase_add_test(tc, connection_refusal_headers);
	tcase_add_test(tc, no_secret_in_logs);
	suite_add_tcase(s, tc);
	return s;
}
