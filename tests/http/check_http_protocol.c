/* check_http_protocol.c — issue 27 through a spawned server: compressed
 * replies decode to exactly the identity bytes (streamed, one-shot and
 * cached bodies, gzip and br), small replies stay identity, entity tags
 * per coding and conditional requests across codings, deterministic
 * replies cached, a request id on every reply (and in problem bodies),
 * the CORS preflight with tracing headers, tokens and tickets in event
 * stream URLs, JSON log lines that parse with their fields, --quiet, and
 * the /version and process metrics. */
#include <check.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <brotli/decode.h>
#include <microhttpd.h>
#include <zlib.h>

#include "session_helpers.h"
#include "suites.h"

static server srv;

static void fixture_setup(void)
{
	static const char *const extra[] = {"--solver", "0", "--rate-limit",
					    "0", NULL};
	start_or_abort(&srv, NULL, extra);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

static void req(http_response *r, int port, const char *method,
		const char *path, const char *const *headers, const char *body)
{
	int rc = http_request(port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

static const char *hdr_or(const http_response *r, const char *name)
{
	const char *v = http_header(r, name);
	return v ? v : "(none)";
}

/* The body decoded by the coding its Content-Encoding names. */
static char *decode(const http_response *r, size_t *len)
{
	const char *ce = http_header(r, "Content-Encoding");
	size_t cap = 64u << 20;
	char *out = malloc(cap);
	ck_assert(out != NULL);
	if (ce && strcmp(ce, "gzip") == 0) {
		z_stream s;
		memset(&s, 0, sizeof s);
		ck_assert(inflateInit2(&s, 15 + 16) == Z_OK);
		s.next_in = (Bytef *)r->body;
		s.avail_in = (uInt)r->body_len;
		s.next_out = (Bytef *)out;
		s.avail_out = (uInt)cap;
		ck_assert_int_eq(inflate(&s, Z_FINISH), Z_STREAM_END);
		ck_assert_uint_eq(s.avail_in, 0); /* nothing after the trailer */
		*len = s.total_out;
		inflateEnd(&s);
	} else if (ce && strcmp(ce, "br") == 0) {
		*len = cap;
		ck_assert(BrotliDecoderDecompress(r->body_len,
						  (const uint8_t *)r->body, len,
						  (uint8_t *)out) ==
			  BROTLI_DECODER_RESULT_SUCCESS);
	} else {
		ck_assert_msg(ce == NULL, "Content-Encoding %s", ce);
		memcpy(out, r->body, r->body_len);
		*len = r->body_len;
	}
	return out;
}

/* ---- compression -------------------------------------------------------- */

struct big {
	const char *method, *path, *body;
	int streamed; /* past the one-shot size: sent chunked */
};

static const struct big bigs[] = {
	/* 6.3 MB: the 1024³ apply of the issue */
	{"POST", "/v1/apply", "{\"size\": 1024, \"moves\": \"R U F\"}", 1},
	/* 1.8 MB of render data */
	{"POST", "/v1/apply",
	 "{\"size\": 64, \"moves\": \"R U F 3Rw 5U2\", \"include\": [\"render\"]}", 1},
	/* 70 KB: compressed in one go */
	{"GET", "/v1/scramble?size=100&seed=3", NULL, 0},
	/* the contract: compressed once, kept */
	{"GET", "/openapi.yaml", NULL, 0},
};

START_TEST(compressed_equals_identity)
{
	const struct big *b = &bigs[_i];
	static const char *const ct[] = {"Content-Type: application/json", NULL};
	http_response plain;
	req(&plain, srv.port, b->method, b->path, b->body ? ct : NULL, b->body);
	ck_assert_int_eq(plain.status, 200);
	ck_assert_msg(http_header(&plain, "Content-Encoding") == NULL,
		      "%s: coded without Accept-Encoding", b->path);
	ck_assert_str_eq(hdr_or(&plain, "Vary"), "Accept-Encoding");
	static const char *const codings[] = {"gzip", "br"};
	for (int c = 0; c < 2; c++) {
		char ae[64];
		snprintf(ae, sizeof ae, "Accept-Encoding: %s", codings[c]);
		const char *h[] = {ae, b->body ? ct[0] : NULL, NULL};
		http_response z;
		req(&z, srv.port, b->method, b->path, h, b->body);
		ck_assert_int_eq(z.status, 200);
		ck_assert_str_eq(hdr_or(&z, "Content-Encoding"), codings[c]);
		ck_assert_str_eq(hdr_or(&z, "Vary"), "Accept-Encoding");
		ck_assert_msg(z.body_len < plain.body_len / 2,
			      "%s %s: %zu bytes for %zu", b->path, codings[c],
			      z.body_len, plain.body_len);
		/* streamed bodies are chunked, the others say their length */
		if (b->streamed)
			ck_assert_str_eq(hdr_or(&z, "Transfer-Encoding"), "chunked");
		else
			ck_assert_uint_eq(strtoull(hdr_or(&z, "Content-Length"),
						   NULL, 10),
					  z.body_len);
		size_t len;
		char *d = decode(&z, &len);
		ck_assert_msg(len == plain.body_len &&
				      memcmp(d, plain.body, len) == 0,
			      "%s %s: decoded %zu bytes, identity %zu", b->path,
			      codings[c], len, plain.body_len);
		free(d);
		http_response_free(&z);
	}
	http_response_free(&plain);
}
END_TEST

/* Below --compress-min (1 KiB) a reply is not worth a coder: identity,
 * unless the client refuses identity outright. */
START_TEST(small_replies_identity)
{
	static const char body[] = "{\"size\": 3, \"moves\": \"R U\"}";
	const char *h[] = {"Content-Type: application/json",
			   "Accept-Encoding: gzip, br", NULL};
	http_response r;
	req(&r, srv.port, "POST", "/v1/apply", h, body);
	ck_assert_int_eq(r.status, 200);
	ck_assert(r.body_len < 1024);
	ck_assert_msg(http_header(&r, "Content-Encoding") == NULL,
		      "a %zu-byte reply was coded %s", r.body_len,
		      hdr_or(&r, "Content-Encoding"));
	ck_assert_str_eq(hdr_or(&r, "Vary"), "Accept-Encoding");
	char *plain = strdup(r.body);
	http_response_free(&r);
	const char *refuse[] = {"Content-Type: application/json",
				"Accept-Encoding: gzip, identity;q=0", NULL};
	req(&r, srv.port, "POST", "/v1/apply", refuse, body);
	ck_assert_str_eq(hdr_or(&r, "Content-Encoding"), "gzip");
	size_t len;
	char *d = decode(&r, &len);
	ck_assert(len == strlen(plain) && memcmp(d, plain, len) == 0);
	free(d);
	free(plain);
	http_response_free(&r);
	/* event streams never: each event must leave at once */
	json_t *s = expect_json(srv.port, "POST", "/v1/sessions", NULL, NULL,
				"{\"size\": 3}", 201, NULL);
	char path[128];
	snprintf(path, sizeof path, "/v1/sessions/%s/events", sget(s, "id"));
	const char *gz[] = {"Accept-Encoding: gzip, br", NULL};
	req(&r, srv.port, "HEAD", path, gz, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert(http_header(&r, "Content-Encoding") == NULL);
	http_response_free(&r);
	json_decref(s);
}
END_TEST

/* The same negotiation on the wire, and the server's own choice of
 * codings (--compress) and threshold (--compress-min). */
START_TEST(negotiation_and_options)
{
	static const struct {
		const char *ae, *want;
	} v[] = {
		{"gzip", "gzip"},
		{"br", "br"},
		{"gzip, deflate, br, zstd", "br"},
		{"br;q=0.5, gzip", "gzip"},
		{"identity", NULL},
		{"*", "br"},
		{"br;q=0, gzip;q=0", NULL},
		{"deflate", NULL},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char ae[96];
		snprintf(ae, sizeof ae, "Accept-Encoding: %s", v[i].ae);
		const char *h[] = {ae, NULL};
		http_response r;
		req(&r, srv.port, "GET", "/v1/scramble?size=100&seed=3", h, NULL);
		const char *ce = http_header(&r, "Content-Encoding");
		ck_assert_msg((ce == NULL && v[i].want == NULL) ||
				      (ce && v[i].want && strcmp(ce, v[i].want) == 0),
			      "Accept-Encoding %s: Content-Encoding %s", v[i].ae,
			      ce ? ce : "(none)");
		http_response_free(&r);
	}
	server o;
	const char *const off[] = {"--solver", "0", "--compress", "off", NULL};
	start_or_abort(&o, NULL, off);
	const char *h[] = {"Accept-Encoding: gzip, br", NULL};
	http_response r;
	req(&r, o.port, "GET", "/v1/scramble?size=100&seed=3", h, NULL);
	ck_assert(http_header(&r, "Content-Encoding") == NULL);
	ck_assert(http_header(&r, "Vary") == NULL);
	http_response_free(&r);
	server_stop(&o, 1);
	const char *const gz[] = {"--solver", "0", "--compress", "gzip",
				  "--compress-min", "0", NULL};
	start_or_abort(&o, NULL, gz);
	const char *brh[] = {"Accept-Encoding: br", NULL};
	req(&r, o.port, "GET", "/v1/scramble?size=100&seed=3", brh, NULL);
	ck_assert(http_header(&r, "Content-Encoding") == NULL);
	http_response_free(&r);
	/* threshold 0: even /healthz's few bytes */
	req(&r, o.port, "GET", "/healthz", h, NULL);
	ck_assert_str_eq(hdr_or(&r, "Content-Encoding"), "gzip");
	size_t len;
	char *d = decode(&r, &len);
	ck_assert(len == 15 && memcmp(d, "{\"status\":\"ok\"}", 15) == 0);
	free(d);
	http_response_free(&r);
	server_stop(&o, 1);
}
END_TEST

/* HEAD says what GET would send: the same coding and length, no body. */
START_TEST(head_like_get)
{
	const char *h[] = {"Accept-Encoding: br", NULL};
	http_response g, hd;
	req(&g, srv.port, "GET", "/openapi.yaml", h, NULL);
	req(&hd, srv.port, "HEAD", "/openapi.yaml", h, NULL);
	ck_assert_str_eq(hdr_or(&hd, "Content-Encoding"), "br");
	ck_assert_str_eq(hdr_or(&hd, "Content-Length"),
			 hdr_or(&g, "Content-Length"));
	ck_assert_str_eq(hdr_or(&hd, "ETag"), hdr_or(&g, "ETag"));
	ck_assert_uint_eq(hd.body_len, 0);
	http_response_free(&g);
	http_response_free(&hd);
}
END_TEST

/* ---- entity tags and caching ------------------------------------------------ */

START_TEST(etags_per_coding)
{
	/* the contract: one tag per coding, each revalidates */
	http_response r;
	req(&r, srv.port, "GET", "/openapi.yaml", NULL, NULL);
	char tag[64];
	snprintf(tag, sizeof tag, "%s", hdr_or(&r, "ETag"));
	ck_assert_uint_eq(strlen(tag), 34); /* "<32 hex>" */
	ck_assert_str_eq(hdr_or(&r, "Cache-Control"), "public, max-age=300");
	http_response_free(&r);
	static const char *const codings[] = {"gzip", "br"};
	for (int c = 0; c < 2; c++) {
		char ae[48], want[80], inm[128];
		snprintf(ae, sizeof ae, "Accept-Encoding: %s", codings[c]);
		snprintf(want, sizeof want, "%.33s-%s\"", tag, codings[c]);
		const char *h[] = {ae, NULL};
		req(&r, srv.port, "GET", "/openapi.yaml", h, NULL);
		ck_assert_str_eq(hdr_or(&r, "ETag"), want);
		http_response_free(&r);
		snprintf(inm, sizeof inm, "If-None-Match: %s", want);
		const char *h2[] = {ae, inm, NULL};
		req(&r, srv.port, "GET", "/openapi.yaml", h2, NULL);
		ck_assert_int_eq(r.status, 304);
		ck_assert_str_eq(hdr_or(&r, "ETag"), want);
		ck_assert_uint_eq(r.body_len, 0);
		http_response_free(&r);
	}
	char inm[96];
	snprintf(inm, sizeof inm, "If-None-Match: W/%s", tag);
	const char *h[] = {inm, NULL};
	req(&r, srv.port, "GET", "/openapi.yaml", h, NULL);
	ck_assert_int_eq(r.status, 304);
	ck_assert_str_eq(hdr_or(&r, "ETag"), tag);
	http_response_free(&r);

	/* a session big enough to be compressed: its "v<N>" tags too, and
	 * If-Match with the suffixed tag is the same version */
	ses s;
	json_decref(create(srv.port, "{\"size\": 16}", &s));
	const char *gz[] = {"Accept-Encoding: gzip", NULL};
	req(&r, srv.port, "GET", s.path, gz, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hdr_or(&r, "Content-Encoding"), "gzip");
	ck_assert_str_eq(hdr_or(&r, "ETag"), "\"v0-gzip\"");
	http_response_free(&r);
	const char *cond[] = {"Accept-Encoding: gzip",
			      "If-None-Match: \"v0-gzip\"", NULL};
	req(&r, srv.port, "GET", s.path, cond, NULL);
	ck_assert_int_eq(r.status, 304);
	ck_assert_str_eq(hdr_or(&r, "ETag"), "\"v0-gzip\"");
	http_response_free(&r);
	json_decref(expect_json(srv.port, "POST",
				strcat(strcpy((char[128]){0}, s.path), "/moves"),
				s.token, "If-Match: \"v0-gzip\"",
				"{\"moves\": \"R\"}", 200, NULL));
	json_t *p = expect_problem(srv.port, "POST",
				   strcat(strcpy((char[128]){0}, s.path), "/moves"),
				   s.token, "If-Match: \"v0-gzip\"",
				   "{\"moves\": \"R\"}", 412, "precondition_failed",
				   "stale_version", NULL, NULL);
	json_decref(p);
	/* the old tag no longer matches: a full reply */
	req(&r, srv.port, "GET", s.path, cond, NULL);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(hdr_or(&r, "ETag"), "\"v1-gzip\"");
	http_response_free(&r);
}
END_TEST

START_TEST(deterministic_caching)
{
	http_response a, b;
	const char *path = "/v1/scramble?size=5&seed=42";
	req(&a, srv.port, "GET", path, NULL, NULL);
	req(&b, srv.port, "GET", path, NULL, NULL);
	ck_assert_int_eq(a.status, 200);
	ck_assert_str_eq(hdr_or(&a, "Cache-Control"), "public, max-age=86400");
	ck_assert_str_eq(hdr_or(&a, "ETag"), hdr_or(&b, "ETag"));
	ck_assert(a.body_len == b.body_len &&
		  memcmp(a.body, b.body, a.body_len) == 0);
	char inm[96];
	snprintf(inm, sizeof inm, "If-None-Match: \"x\", %s", hdr_or(&a, "ETag"));
	const char *h[] = {inm, NULL};
	http_response c;
	req(&c, srv.port, "GET", path, h, NULL);
	ck_assert_int_eq(c.status, 304);
	ck_assert_str_eq(hdr_or(&c, "Cache-Control"), "public, max-age=86400");
	ck_assert_uint_eq(c.body_len, 0);
	http_response_free(&c);
	/* another seed, another tag */
	req(&c, srv.port, "GET", "/v1/scramble?size=5&seed=43", NULL, NULL);
	ck_assert_str_ne(hdr_or(&c, "ETag"), hdr_or(&a, "ETag"));
	http_response_free(&c);
	/* no seed: random, never kept */
	req(&c, srv.port, "GET", "/v1/scramble?size=5", NULL, NULL);
	ck_assert_int_eq(c.status, 200);
	ck_assert_str_eq(hdr_or(&c, "Cache-Control"), "no-store");
	ck_assert(http_header(&c, "ETag") == NULL);
	http_response_free(&c);
	http_response_free(&a);
	http_response_free(&b);
}
END_TEST

/* ---- request ids ------------------------------------------------------------ */

static int is_generated_id(const char *s)
{
	return s && strlen(s) == 32 && strspn(s, "0123456789abcdef") == 32;
}

/* Headers and body of a raw exchange (for requests the client helper
 * cannot make): the bytes up to the end of the head. */
static void raw_head(int port, const char *request, char *out, size_t cap)
{
	int fd = http_connect(port, 5000);
	ck_assert(fd >= 0);
	ck_assert(write(fd, request, strlen(request)) == (ssize_t)strlen(request));
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t k = read(fd, out + n, cap - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
		out[n] = '\0';
		if (strstr(out, "\r\n\r\n"))
			break;
	}
	out[n] = '\0';
	close(fd);
}

START_TEST(request_id_everywhere)
{
	char big[20000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	char bighdr[20100];
	snprintf(bighdr, sizeof bighdr, "X-Filler: %s", big);
	char *large = malloc(2u << 20);
	memset(large, ' ', 2u << 20);
	large[(2u << 20) - 1] = '\0';
	const struct {
		const char *method, *path, *hdr, *body;
		int status;
	} v[] = {
		{"GET", "/healthz", NULL, NULL, 200},
		{"GET", "/nowhere", NULL, NULL, 404},
		{"DELETE", "/v1/apply", NULL, NULL, 405},
		{"OPTIONS", "/v1/apply", NULL, NULL, 204},
		{"POST", "/v1/apply", "Content-Type: application/json", "{", 400},
		{"POST", "/v1/apply", "Content-Type: application/json",
		 "{\"size\": 3, \"moves\": \"Q\"}", 422},
		{"POST", "/v1/apply", "Content-Type: text/plain", "x", 415},
		{"POST", "/v1/apply", "Content-Type: application/json", large, 413},
		{"GET", "/healthz", bighdr, NULL, 431},
		{"GET", "/metrics", NULL, NULL, 200},
		{"GET", "/v1/scramble?size=3", NULL, NULL, 503},
	};
	char seen[sizeof v / sizeof v[0]][40];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const char *h[] = {v[i].hdr, NULL};
		http_response r;
		req(&r, srv.port, v[i].method, v[i].path, v[i].hdr ? h : NULL,
		    v[i].body);
		ck_assert_msg(r.status == v[i].status, "%s %s: %d", v[i].method,
			      v[i].path, r.status);
		const char *id = http_header(&r, "X-Request-Id");
		ck_assert_msg(is_generated_id(id), "%s %s (%d): X-Request-Id %s",
			      v[i].method, v[i].path, r.status, id ? id : "(none)");
		ck_assert_int_eq(http_header_count(&r, "X-Request-Id"), 1);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(seen[j], id);
		snprintf(seen[i], sizeof seen[i], "%s", id);
		if (r.status >= 400) {
			json_t *p = parse(&r, "problem");
			ck_assert_str_eq(sget(p, "request_id"), id);
			json_decref(p);
		}
		http_response_free(&r);
	}
	free(large);
	/* the live stream's head too */
	json_t *s = expect_json(srv.port, "POST", "/v1/sessions", NULL, NULL,
				"{\"size\": 3}", 201, NULL);
	char rq[256], head[4096];
	snprintf(rq, sizeof rq,
		 "GET /v1/sessions/%s/events HTTP/1.1\r\nHost: x\r\n"
		 "X-Request-Id: stream-1\r\n\r\n",
		 sget(s, "id"));
	raw_head(srv.port, rq, head, sizeof head);
	ck_assert_msg(strstr(head, "HTTP/1.1 200") &&
			      strstr(head, "\r\nX-Request-Id: stream-1\r\n"),
		      "stream head: %s", head);
	json_decref(s);
}
END_TEST

START_TEST(client_request_ids)
{
	static const char *const kept[] = {
		"f47ac10b-58cc-4372-a567-0e02b2c3d479", "req:a+b/c=d@e_f.g", "7"};
	for (size_t i = 0; i < 3; i++) {
		char h[200];
		snprintf(h, sizeof h, "X-Request-Id: %s", kept[i]);
		http_response r;
		const char *hs[] = {h, NULL};
		req(&r, srv.port, "GET", "/nowhere", hs, NULL);
		ck_assert_str_eq(hdr_or(&r, "X-Request-Id"), kept[i]);
		json_t *p = parse(&r, "problem");
		ck_assert_str_eq(sget(p, "request_id"), kept[i]);
		json_decref(p);
		http_response_free(&r);
	}
	char toolong[200] = "X-Request-Id: ";
	memset(toolong + 14, 'a', 129);
	toolong[14 + 129] = '\0';
	const char *const replaced[] = {toolong, "X-Request-Id: a b",
					"X-Request-Id: \"quoted\"",
					"X-Request-Id: a,b", "X-Request-Id: caf\xc3\xa9"};
	for (size_t i = 0; i < 5; i++) {
		http_response r;
		const char *hs[] = {replaced[i], NULL};
		req(&r, srv.port, "GET", "/healthz", hs, NULL);
		ck_assert_int_eq(r.status, 200);
		ck_assert_msg(is_generated_id(http_header(&r, "X-Request-Id")),
			      "%s: kept as %s", replaced[i],
			      hdr_or(&r, "X-Request-Id"));
		http_response_free(&r);
	}
}
END_TEST

/* ---- CORS --------------------------------------------------------------------- */

START_TEST(preflight_tracing_headers)
{
	const char *h[] = {"Origin: https://app.example",
			   "Access-Control-Request-Method: POST",
			   "Access-Control-Request-Headers: content-type, "
			   "traceparent, tracestate, x-request-id",
			   NULL};
	http_response r;
	req(&r, srv.port, "OPTIONS", "/v1/sessions", h, NULL);
	ck_assert_int_eq(r.status, 204);
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Allow-Origin"), "*");
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Allow-Headers"),
			 "Content-Type, Authorization, If-Match, If-None-Match, "
			 "Idempotency-Key, Last-Event-ID, traceparent, "
			 "tracestate, X-Request-Id");
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Allow-Methods"),
			 "POST, OPTIONS");
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Expose-Headers"),
			 "ETag, Location, Retry-After, Idempotent-Replayed, "
			 "X-Request-Id, WWW-Authenticate, Allow");
	http_response_free(&r);
	/* the list is the operator's to change */
	server o;
	const char *const extra[] = {"--solver", "0", "--cors-allow-headers",
				     "X-Trace-Token, Baggage", NULL};
	start_or_abort(&o, NULL, extra);
	req(&r, o.port, "OPTIONS", "/v1/apply", h, NULL);
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Allow-Headers"),
			 "Content-Type, Authorization, If-Match, If-None-Match, "
			 "Idempotency-Key, Last-Event-ID, X-Trace-Token, Baggage");
	http_response_free(&r);
	server_stop(&o, 1);
	const char *const none[] = {"--solver", "0", "--cors-allow-headers",
				    "-", NULL};
	start_or_abort(&o, NULL, none);
	req(&r, o.port, "OPTIONS", "/v1/apply", h, NULL);
	ck_assert_str_eq(hdr_or(&r, "Access-Control-Allow-Headers"),
			 "Content-Type, Authorization, If-Match, If-None-Match, "
			 "Idempotency-Key, Last-Event-ID");
	http_response_free(&r);
	server_stop(&o, 1);
}
END_TEST

/* ---- tokens and tickets in stream URLs ----------------------------------------- */

static void events_path(char *out, size_t cap, const ses *s, const char *q)
{
	snprintf(out, cap, "%s/events?%s", s->path, q);
}

/* A stream that opens: 200 with the current state as its first event. */
static void stream_opens(const char *path, const char *what)
{
	http_response r;
	const char *h[] = {NULL};
	req(&r, srv.port, "HEAD", path, h, NULL);
	ck_assert_msg(r.status == 200, "%s: %d %s", what, r.status,
		      r.body ? r.body : "");
	ck_assert_str_eq(hdr_or(&r, "Content-Type"), "text/event-stream");
	http_response_free(&r);
}

START_TEST(tokens_in_urls)
{
	ses s;
	json_t *c = create(srv.port, "{\"size\": 3, \"visibility\": \"private\"}",
			   &s);
	char rtok[64];
	snprintf(rtok, sizeof rtok, "%s", sget(c, "read_token"));
	json_decref(c);
	char tpath[160], path[256], q[96];
	snprintf(tpath, sizeof tpath, "%s/tokens", s.path);
	json_t *w = expect_json(srv.port, "POST", tpath, s.token, NULL,
				"{\"role\": \"write\", \"name\": \"bob\"}", 201,
				NULL);
	/* the owner's and a co-player's token: refused in the URL */
	const char *writers[] = {s.token, sget(w, "token")};
	for (int i = 0; i < 2; i++) {
		snprintf(q, sizeof q, "token=%s", writers[i]);
		events_path(path, sizeof path, &s, q);
		json_t *p = expect_problem(srv.port, "GET", path, NULL, NULL,
					   NULL, 403, "forbidden",
					   "token_in_url", "token", NULL);
		ck_assert_str_eq(sget(p, "detail"),
				 i == 0 ? "the owner's token may not travel in a "
					  "URL, where logs and history keep it; "
					  "send it as Authorization: Bearer, or "
					  "mint a stream ticket with POST "
					  "/v1/sessions/{id}/tickets and use "
					  "?ticket="
					: "a write token may not travel in a URL, "
					  "where logs and history keep it; send "
					  "it as Authorization: Bearer, or mint a "
					  "stream ticket with POST "
					  "/v1/sessions/{id}/tickets and use "
					  "?ticket=");
		json_decref(p);
	}
	json_decref(w);
	/* a read token is fine there */
	snprintf(q, sizeof q, "token=%s", rtok);
	events_path(path, sizeof path, &s, q);
	stream_opens(path, "a read token in the URL");
	/* and the owner's token in the header still is */
	http_response hr;
	snprintf(path, sizeof path, "%s/events", s.path);
	call(&hr, srv.port, "HEAD", path, s.token, NULL, NULL);
	ck_assert_int_eq(hr.status, 200);
	http_response_free(&hr);
	/* a public session: the same rule, whatever the visibility */
	ses pub;
	json_decref(create(srv.port, "{\"size\": 3}", &pub));
	snprintf(q, sizeof q, "token=%s", pub.token);
	events_path(path, sizeof path, &pub, q);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 403,
				   "forbidden", "token_in_url", "token", NULL));

	/* tickets: minted with any token of the session, in the header */
	snprintf(tpath, sizeof tpath, "%s/tickets", s.path);
	json_t *t = expect_json(srv.port, "POST", tpath, rtok, NULL, NULL, 201,
				NULL);
	const char *ticket = sget(t, "ticket");
	ck_assert_uint_eq(strlen(ticket), 35);
	ck_assert(strncmp(ticket, "st_", 3) == 0);
	ck_assert_int_eq(iget(t, "expires_in"), 60);
	ck_assert_uint_eq(strlen(sget(t, "expires_at")), 24);
	snprintf(q, sizeof q, "ticket=%s", ticket);
	events_path(path, sizeof path, &s, q);
	ck_assert_str_eq(sget(t, "events"), path);
	stream_opens(path, "a ticket");
	stream_opens(path, "the same ticket again (EventSource reconnects)");
	/* not for another session; not a made-up one */
	events_path(path, sizeof path, &pub, q);
	stream_opens(path, "a public session ignores tickets");
	ses other;
	json_decref(create(srv.port, "{\"size\": 2, \"visibility\": \"private\"}",
			   &other));
	events_path(path, sizeof path, &other, q);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	events_path(path, sizeof path, &s,
		    "ticket=st_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	json_decref(t);
	/* minting needs a token of this session: without one, a private
	 * session is not there (issue 24) */
	json_decref(expect_problem(srv.port, "POST", tpath, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	json_decref(expect_problem(srv.port, "POST", tpath, other.token, NULL,
				   NULL, 404, "not_found", "no_such_session",
				   NULL, NULL));
	http_response r;
	call(&r, srv.port, "POST", tpath, s.token, NULL, NULL);
	ck_assert_int_eq(r.status, 201);
	ck_assert_str_eq(hdr_or(&r, "Cache-Control"), "no-store");
	http_response_free(&r);
}
END_TEST

START_TEST(ticket_expires)
{
	server o;
	const char *const extra[] = {"--solver", "0", "--ticket-ttl", "1", NULL};
	start_or_abort(&o, NULL, extra);
	ses s;
	json_decref(create(o.port, "{\"size\": 3, \"visibility\": \"private\"}",
			   &s));
	char tpath[160];
	snprintf(tpath, sizeof tpath, "%s/tickets", s.path);
	json_t *t = expect_json(o.port, "POST", tpath, s.token, NULL, NULL, 201,
				NULL);
	ck_assert_int_eq(iget(t, "expires_in"), 1);
	char path[256];
	snprintf(path, sizeof path, "%s/events?ticket=%s", s.path,
		 sget(t, "ticket"));
	json_decref(t);
	/* poll (with a deadline) until the second has passed */
	double until = now_s() + 10;
	http_response r;
	for (;;) {
		call(&r, o.port, "HEAD", path, NULL, NULL, NULL);
		if (r.status != 200 || now_s() > until)
			break;
		http_response_free(&r);
		struct timespec ts = {0, 100000000L};
		nanosleep(&ts, NULL);
	}
	ck_assert_int_eq(r.status, 401);
	ck_assert_str_eq(hdr_or(&r, "WWW-Authenticate"),
			 "Bearer realm=\"cubed\", error=\"invalid_token\"");
	http_response_free(&r);
	json_decref(expect_problem(o.port, "GET", path, NULL, NULL, NULL, 401,
				   "unauthorized", "ticket_expired", "ticket",
				   NULL));
	server_stop(&o, 1);
}
END_TEST

/* ---- logs ---------------------------------------------------------------------- */

/* The log's lines, once the one naming want has been written (each line
 * is written when MHD is done with its request, just after the client
 * has the reply): polled with a deadline. */
static char *log_with(const server *s, const char *want)
{
	double until = now_s() + 10;
	for (;;) {
		FILE *f = fopen(s->log, "r");
		ck_assert(f != NULL);
		static char buf[1 << 20];
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		if (strstr(buf, want))
			return buf;
		ck_assert_msg(now_s() < until, "no log line with %s in:\n%s",
			      want, buf);
		struct timespec ts = {0, 20000000L};
		nanosleep(&ts, NULL);
	}
}

/* The JSON object on the line containing want (asserted to parse). */
static json_t *json_line(char *log, const char *want)
{
	char *at = strstr(log, want);
	ck_assert(at != NULL);
	char *start = at;
	while (start > log && start[-1] != '\n')
		start--;
	char *end = strchr(at, '\n');
	ck_assert(end != NULL);
	json_error_t e;
	json_t *j = json_loadb(start, (size_t)(end - start), 0, &e);
	ck_assert_msg(json_is_object(j), "not a JSON object (%s): %.*s", e.text,
		      (int)(end - start), start);
	return j;
}

START_TEST(json_log_lines)
{
	server o;
	const char *const extra[] = {"--solver", "0", "--log-format", "json",
				     NULL};
	start_or_abort(&o, NULL, extra);
	static const char body[] = "{\"size\": 3, \"moves\": \"R U\"}";
	const char *h[] = {"Content-Type: application/json",
			   "X-Request-Id: eco-json-1",
			   "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-"
			   "00f067aa0ba902b7-01",
			   NULL};
	http_response r;
	req(&r, o.port, "POST", "/v1/apply", h, body);
	ck_assert_int_eq(r.status, 200);
	size_t sent = r.body_len;
	http_response_free(&r);
	const char *h2[] = {"X-Request-Id: eco-json-2", NULL};
	req(&r, o.port, "GET", "/v1/%22odd%0Apath%5C", h2, NULL);
	ck_assert_int_eq(r.status, 404);
	http_response_free(&r);
	ses s;
	json_decref(create(o.port, "{\"size\": 3}", &s));
	char p[160];
	snprintf(p, sizeof p, "%s/history", s.path);
	const char *h3[] = {"X-Request-Id: eco-json-3", NULL};
	req(&r, o.port, "GET", p, h3, NULL);
	http_response_free(&r);
	/* a request line libmicrohttpd refuses itself (no colon) */
	char head[2048];
	raw_head(o.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n",
		 head, sizeof head);
	ck_assert_msg(strncmp(head, "HTTP/1.1 400", 12) == 0, "%s", head);

	/* each line is written by the thread that served its request, so
	 * a later request's line may come first: wait for every one (the
	 * file only grows, so the last read holds them all) */
	log_with(&o, "\"eco-json-1\"");
	log_with(&o, "\"eco-json-2\"");
	char *log = log_with(&o, "\"eco-json-3\"");
	json_t *j = json_line(log, "\"eco-json-1\"");
	ck_assert_str_eq(sget(j, "level"), "info");
	ck_assert_str_eq(sget(j, "msg"), "request");
	ck_assert_str_eq(sget(j, "method"), "POST");
	ck_assert_str_eq(sget(j, "path"), "/v1/apply");
	ck_assert_str_eq(sget(j, "route"), "/v1/apply");
	ck_assert_int_eq(iget(j, "status"), 200);
	ck_assert_int_eq(iget(j, "bytes"), (long long)sent);
	ck_assert(json_is_number(json_object_get(j, "duration_ms")) &&
		  json_number_value(json_object_get(j, "duration_ms")) >= 0);
	ck_assert_str_eq(sget(j, "client"), "127.0.0.1");
	ck_assert_str_eq(sget(j, "trace_id"), "4bf92f3577b34da6a3ce929d0e0e4736");
	const char *t = sget(j, "time");
	ck_assert(strlen(t) == 24 && t[10] == 'T' && t[23] == 'Z');
	json_decref(j);
	j = json_line(log, "\"eco-json-2\"");
	ck_assert_str_eq(sget(j, "path"), "/v1/\"odd\npath\\");
	ck_assert(json_is_null(json_object_get(j, "route")));
	ck_assert_int_eq(iget(j, "status"), 404);
	json_decref(j);
	j = json_line(log, "\"eco-json-3\"");
	ck_assert_str_eq(sget(j, "route"), "/v1/sessions/{id}/history");
	json_decref(j);
	/* every line is one JSON object with time, level, msg */
	int lines = 0, mhd = 0;
	for (char *line = log, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		json_t *o2 = json_loadb(line, (size_t)(nl - line), 0, NULL);
		ck_assert_msg(json_is_object(o2), "not JSON: %.*s",
			      (int)(nl - line), line);
		ck_assert(json_is_string(json_object_get(o2, "time")) &&
			  json_is_string(json_object_get(o2, "msg")));
		const char *lv = sget(o2, "level");
		ck_assert(!strcmp(lv, "debug") || !strcmp(lv, "info") ||
			  !strcmp(lv, "warn") || !strcmp(lv, "error"));
		if (json_object_get(o2, "status") &&
		    json_object_get(o2, "source"))
			mhd += iget(o2, "status") == 400;
		lines++;
		json_decref(o2);
	}
	ck_assert_int_ge(lines, 6);
	/* the listening line, for supervisors */
	j = json_line(log, "\"listening on ");
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%d", o.port);
	ck_assert_str_eq(sget(j, "url"), url);
	json_decref(j);
	(void)mhd;
	/* libmicrohttpd's own 400 has a line too, with the status its
	 * message named */
	log = log_with(&o, "\"status\":400");
	j = json_line(log, "\"status\":400");
	ck_assert_str_eq(sget(j, "source"), "libmicrohttpd");
	ck_assert_str_eq(sget(j, "path"), "/healthz");
	ck_assert(is_generated_id(sget(j, "request_id")));
	json_decref(j);
	server_stop(&o, 1);
}
END_TEST

START_TEST(quiet_logs_errors_only)
{
	static const char *const modes[][2] = {{"--quiet", NULL},
					       {"--log-level", "error"},
					       {"--log-level", "warn"}};
	for (int m = 0; m < 3; m++) {
		server o;
		const char *extra[] = {"--solver", "0", modes[m][0], modes[m][1],
				       NULL};
		start_or_abort(&o, NULL, extra);
		http_response r;
		const char *h[] = {"X-Request-Id: eco-quiet", NULL};
		req(&r, o.port, "GET", "/healthz", h, NULL);
		http_response_free(&r);
		req(&r, o.port, "GET", "/nowhere", h, NULL);
		http_response_free(&r);
		/* a broken request: libmicrohttpd's message is a warning */
		char head[1024];
		raw_head(o.port, "GET / HTTP/1.1\r\nHost: x\r\nbroken\r\n\r\n",
			 head, sizeof head);
		server_stop(&o, 0);
		char buf[8192];
		test_server_log_tail(&o, buf, sizeof buf);
		ck_assert_msg(strstr(buf, "listening on http://127.0.0.1:"),
			      "%s: no listening line: %s", modes[m][0], buf);
		ck_assert_msg(strstr(buf, "eco-quiet") == NULL &&
				      strstr(buf, "/healthz") == NULL,
			      "%s %s: request lines: %s", modes[m][0],
			      modes[m][1] ? modes[m][1] : "", buf);
		ck_assert_msg(strstr(buf, "libmicrohttpd") == NULL ||
				      m == 2,
			      "%s: libmicrohttpd's messages: %s", modes[m][0],
			      buf);
		test_server_remove(&o);
	}
}
END_TEST

/* ---- operations --------------------------------------------------------------------- */

static double metric(const char *text, const char *name)
{
	double v = http_metric(text, name);
	ck_assert_msg(v >= 0, "no %s in /metrics", name);
	return v;
}

START_TEST(version_and_process_metrics)
{
	json_t *v = expect_json(srv.port, "GET", "/version", NULL, NULL, NULL,
				200, NULL);
	ck_assert_str_eq(sget(v, "name"), "cubed");
	ck_assert_str_eq(sget(v, "version"), "0.1.0");
	ck_assert(strlen(sget(v, "commit")) > 0);
	json_t *lib = json_object_get(v, "libraries");
	ck_assert_str_eq(sget(lib, "libmicrohttpd"), MHD_get_version());
	ck_assert_str_eq(sget(lib, "zlib"), zlibVersion());
	http_response r;
	req(&r, srv.port, "GET", "/metrics", NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	char info[512];
	snprintf(info, sizeof info, "cubed_build_info{version=\"0.1.0\",commit=\"%s\",libmicrohttpd=\"%s\",",
		 sget(v, "commit"), MHD_get_version());
	ck_assert_msg(strstr(r.body, info) != NULL, "no %s", info);
	json_decref(v);
	ck_assert(metric(r.body, "process_cpu_seconds_total") >= 0);
	double rss = metric(r.body, "process_resident_memory_bytes");
	double vm = metric(r.body, "process_virtual_memory_bytes");
	ck_assert(rss > 1e6 && vm >= rss);
	double fds = metric(r.body, "process_open_fds");
	double max = metric(r.body, "process_max_fds");
	ck_assert(fds >= 4 && max >= fds);
	double start = metric(r.body, "process_start_time_seconds");
	double now = (double)time(NULL);
	ck_assert_msg(start <= now + 1 && start > now - 600,
		      "started at %.0f, now %.0f", start, now);
	/* the latency histogram reaches a minute, for the slowest solves */
	ck_assert(strstr(r.body, "cubed_http_request_duration_seconds_bucket{"
				 "route=\"/healthz\",le=\"60\"}") ||
		  strstr(r.body, ",le=\"60\"}"));
	ck_assert(strstr(r.body, "# TYPE process_open_fds gauge\n"));
	/* the connection that asks is open while its reply is made; others
	 * of the tests before may not be closed yet (sigterm_with_open_
	 * connections in check_http.c holds the exact count) */
	ck_assert(strstr(r.body, "# TYPE cubed_http_connections gauge\n"));
	ck_assert(metric(r.body, "cubed_http_connections") >= 1);
	http_response_free(&r);
}
END_TEST

Suite *http_protocol_suite(void)
{
	Suite *s = suite_create("http_protocol");
	TCase *c = tcase_create("eco");
	tcase_add_unchecked_fixture(c, fixture_setup, fixture_teardown);
	tcase_set_timeout(c, 120);
	tcase_add_loop_test(c, compressed_equals_identity, 0,
			    (int)(sizeof bigs / sizeof bigs[0]));
	tcase_add_test(c, small_replies_identity);
	tcase_add_test(c, negotiation_and_options);
	tcase_add_test(c, head_like_get);
	tcase_add_test(c, etags_per_coding);
	tcase_add_test(c, deterministic_caching);
	tcase_add_test(c, request_id_everywhere);
	tcase_add_test(c, client_request_ids);
	tcase_add_test(c, preflight_tracing_headers);
	tcase_add_test(c, tokens_in_urls);
	tcase_add_test(c, ticket_expires);
	tcase_add_test(c, json_log_lines);
	tcase_add_test(c, quiet_logs_errors_only);
	tcase_add_test(c, version_and_process_metrics);
	suite_add_tcase(s, c);
	return s;
}
