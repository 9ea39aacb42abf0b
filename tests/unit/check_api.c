/* check_api.c — api_handle (server/api/) through plain structs, no
 * server: properties too wide for the black-box table (every size against
 * every representation, every whole-cube orientation of several states),
 * cheap enough here to run in full under the sanitizers. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api.h"
#include "api_internal.h"
#include "client_limits.h"
#include "idempotency.h"
#include "jsonout.h"
#include "pattern.h"
#include "problem.h"
#include "sessions.h"
#include "suites.h"

static const struct api_config cfg = {
	.max_moves = 100000,
	.max_work = 1000000000,
};

/* POST body to path; the reply's status and its parsed JSON body (which
 * the caller releases). */
static json_t *post(const char *path, const char *body, int *status)
{
	struct api_request rq = {
		.method = "POST",
		.path = path,
		.body = body,
		.body_len = strlen(body),
		.content_type = "application/json",
	};
	struct api_reply rp;
	api_reply_init(&rp);
	api_handle(&cfg, &rq, &rp);
	*status = rp.status;
	ck_assert_msg(rp.json != NULL, "POST %s %s: no JSON body (status %d)",
		      path, body, rp.status);
	json_t *j = json_incref(rp.json);
	api_reply_free(&rp);
	return j;
}

static json_t *post_ok(const char *path, json_t *body)
{
	char *text = json_dumps(body, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	int status;
	json_t *j = post(path, text, &status);
	if (status != 200) {
		char *got = json_dumps(j, JSON_COMPACT);
		ck_abort_msg("POST %s %.300s: status %d: %.500s", path, text,
			     status, got);
	}
	free(text);
	json_decref(body);
	return j;
}

static const char *str(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	ck_assert_msg(s != NULL, "no string \"%s\"", key);
	return s;
}

/* GET path?query; the reply's status and parsed JSON body. */
static json_t *get(const char *path, const char *query, int *status)
{
	struct api_request rq = {
		.method = "GET",
		.path = path,
		.query = query,
	};
	struct api_reply rp;
	api_reply_init(&rp);
	api_handle(&cfg, &rq, &rp);
	*status = rp.status;
	ck_assert_msg(rp.json != NULL, "GET %s?%s: no JSON body (status %d)",
		      path, query ? query : "", rp.status);
	json_t *j = json_incref(rp.json);
	api_reply_free(&rp);
	return j;
}

START_TEST(routes_allow)
{
	ck_assert_str_eq(api_allow("/v1/convert"), "POST, OPTIONS");
	ck_assert_str_eq(api_allow("/v1/validate"), "POST, OPTIONS");
	ck_assert_str_eq(api_allow("/v1/match"), "POST, OPTIONS");
	ck_assert_str_eq(api_allow("/v1/pieces"), "POST, OPTIONS");
	ck_assert_str_eq(api_allow("/v1/patterns"), "GET, HEAD, OPTIONS");
	ck_assert_ptr_null(api_allow("/v1/convert/"));
	ck_assert_ptr_null(api_allow("/v1/patterns/3"));
}
END_TEST

/* The query string of GET /v1/patterns, strictly: every way a query can
 * be wrong has its code and names its parameter. */
START_TEST(patterns_query)
{
	char long_value[300];
	snprintf(long_value, sizeof long_value, "size=%0280d", 3);
	const struct {
		const char *query;
		int status;
		const char *code, *field; /* for a 422 */
		int size;                 /* for a 200 */
	} cases[] = {
		{"size=3", 200, NULL, NULL, 3},
		{"size=03", 200, NULL, NULL, 3},
		{"&size=2&", 200, NULL, NULL, 2},
		{"size=%36%34", 200, NULL, NULL, 64},
		{"size=1", 200, NULL, NULL, 1},
		{NULL, 422, "missing_parameter", "size", 0},
		{"", 422, "missing_parameter", "size", 0},
		{"&&", 422, "missing_parameter", "size", 0},
		{"size=65", 422, "too_large_for_representation", "size", 0},
		{"size=0", 422, "size_out_of_range", "size", 0},
		{"size=1025", 422, "size_out_of_range", "size", 0},
		{"size=3.0", 422, "wrong_type", "size", 0},
		{"size=+3", 422, "wrong_type", "size", 0},
		{"size= 3", 422, "wrong_type", "size", 0},
		{"size=3&size=4", 422, "duplicate_parameter", "size", 0},
		{"%73ize=3", 422, "unknown_parameter", "%73ize", 0},
		{"size=3&format=facelets", 422, "unknown_parameter", "format", 0},
		{"size=%003", 422, "bad_parameter", "size", 0},
		{long_value, 422, "bad_parameter", "size", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int status;
		json_t *j = get("/v1/patterns", cases[i].query, &status);
		const char *q = cases[i].query ? cases[i].query : "(none)";
		ck_assert_msg(status == cases[i].status, "?%.40s: status %d", q,
			      status);
		if (status == 200) {
			ck_assert_int_eq(
				json_integer_value(json_object_get(j, "size")),
				cases[i].size);
		} else {
			ck_assert_msg(strcmp(str(j, "code"), cases[i].code) == 0,
				      "?%.40s: code %s", q, str(j, "code"));
			ck_assert_str_eq(str(j, "field"), cases[i].field);
		}
		json_decref(j);
	}
}
END_TEST

/* A solved cube fits every named pattern of its size in all 24
 * orientations, up to the sizes a body can carry (n = 64: 24576 letters
 * and a 13-part "reduced"). */
START_TEST(match_named_on_solved)
{
	static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 64};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s];
		int status;
		char q[32];
		snprintf(q, sizeof q, "size=%d", n);
		json_t *list = get("/v1/patterns", q, &status);
		ck_assert_int_eq(status, 200);
		size_t nn = (size_t)n * (size_t)n;
		char *f = malloc(6 * nn + 1);
		ck_assert_ptr_nonnull(f);
		for (size_t k = 0; k < 6 * nn; k++)
			f[k] = "URFDLB"[k / nn];
		f[6 * nn] = '\0';
		size_t k;
		json_t *e;
		json_array_foreach(json_object_get(list, "patterns"), k, e) {
			json_t *m = post_ok("/v1/match",
					    json_pack("{s:s, s:s}", "facelets", f,
						      "name", str(e, "name")));
			ck_assert_msg(json_array_size(json_object_get(
					      m, "orientations")) == 24,
				      "size %d: %s does not fit 24 ways", n,
				      str(e, "name"));
			/* each part alone, as a text, fits too */
			size_t i;
			json_t *part;
			json_array_foreach(json_object_get(e, "parts"), i, part) {
				json_t *mp = post_ok(
					"/v1/match",
					json_pack("{s:s, s:O, s:b}", "facelets",
						  f, "pattern", part, "first",
						  1));
				ck_assert(json_is_true(
					json_object_get(mp, "matched")));
				json_decref(mp);
			}
			json_decref(m);
		}
		free(f);
		json_decref(list);
	}
}
END_TEST

/* Every representation /v1/apply can include, on sizes 1 to 6: present
 * exactly when it applies to the size, else not_applicable naming
 * include. */
START_TEST(include_matrix)
{
	static const char *const names[] = {"facelets", "faces",  "cubie",
					    "index",    "orientation", "features",
					    "render",   "animation"};
	for (int n = 1; n <= 6; n++) {
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			char body[160];
			snprintf(body, sizeof body,
				 "{\"size\": %d, \"moves\": \"R U'\", "
				 "\"include\": [\"%s\"]}",
				 n, names[i]);
			int status;
			json_t *j = post("/v1/apply", body, &status);
			int applies = !strcmp(names[i], "features") ? n == 3
				      : !strcmp(names[i], "cubie") ||
						      !strcmp(names[i], "index") ||
						      !strcmp(names[i], "orientation")
					      ? n == 2 || n == 3
					      : 1;
			if (applies) {
				ck_assert_msg(status == 200 &&
						      json_object_get(j, names[i]),
					      "%s: status %d, no %s", body,
					      status, names[i]);
			} else {
				ck_assert_int_eq(status, 422);
				ck_assert_str_eq(str(j, "code"),
						 "not_applicable");
				ck_assert_str_eq(str(j, "field"), "include");
			}
			json_decref(j);
		}
	}
}
END_TEST

/* Several states, each held in all 24 orientations: /v1/convert gives
 * the same cubies and index every time, the orientation names the colours
 * up and in front, and applying its moves gives the standard hold. */
START_TEST(every_orientation)
{
	/* 6 ways to bring a face up × 4 spins about the vertical */
	static const char *const ups[6] = {"", "x", "x2", "x'", "z", "z'"};
	static const char *const spins[4] = {"", "y", "y2", "y'"};
	char holds[24][16];
	for (int h = 0; h < 24; h++)
		snprintf(holds[h], sizeof holds[h], "%s %s", ups[h / 4],
			 spins[h % 4]);
	static const struct {
		int n;
		const char *moves;
	} states[] = {
		{3, ""},
		{3, "R"},
		{3, "R U F' D2 L B' U2 R' F"},
		{3, "F2 D' B L2 U R2 D' F U2 L' B2"},
		{2, "R U2 F'"},
		{2, "R U R' F2 U'"},
	};
	char seen[24][8];
	for (size_t s = 0; s < sizeof states / sizeof *states; s++) {
		int n = states[s].n;
		json_t *ref = post_ok("/v1/apply",
				      json_pack("{s:i, s:s, s:s, s:[s, s]}",
						"size", n, "moves",
						states[s].moves, "format",
						"cubie", "include", "index",
						"facelets"));
		const char *std = str(ref, "facelets");
		memset(seen, 0, sizeof seen);
		for (int h = 0; h < 24; h++) {
			json_t *held = post_ok("/v1/apply",
					       json_pack("{s:s, s:s}",
							 "facelets", std,
							 "moves", holds[h]));
			const char *f = str(held, "facelets");
			json_t *c = post_ok("/v1/convert",
					    json_pack("{s:s}", "facelets", f));
			ck_assert_msg(json_equal(json_object_get(c, "cubie"),
						 json_object_get(ref, "cubie")),
				      "%s held by %s: other cubies",
				      states[s].moves, holds[h]);
			ck_assert_str_eq(str(c, "index"), str(ref, "index"));
			json_t *o = json_object_get(c, "orientation");
			/* up / front: the colours on U and F of what was
			 * sent (for a 2×2, the hold is that of DBL, which no
			 * turn above moves) */
			size_t nn = (size_t)n * n;
			if (n == 3) {
				ck_assert_int_eq(str(o, "up")[0], f[nn / 2]);
				ck_assert_int_eq(str(o, "front")[0],
						 f[2 * nn + nn / 2]);
			}
			json_t *back = post_ok("/v1/apply",
					       json_pack("{s:s, s:s}",
							 "facelets", f, "moves",
							 str(o, "moves")));
			ck_assert_msg(strcmp(str(back, "facelets"), std) == 0,
				      "%s held by %s: orientation moves \"%s\" "
				      "do not bring it back",
				      states[s].moves, holds[h],
				      str(o, "moves"));
			/* 24 holds, 24 different orientations */
			snprintf(seen[h], sizeof seen[h], "%s%s", str(o, "up"),
				 str(o, "front"));
			for (int k = 0; k < h; k++)
				ck_assert_str_ne(seen[k], seen[h]);
			json_decref(back);
			json_decref(c);
			json_decref(held);
		}
		json_decref(ref);
	}
}
END_TEST

/* invalid_cube carries every reason, each with a code and a sentence. */
START_TEST(invalid_cube_problem)
{
	int status;
	/* URF twisted, UR flipped, FR and FL swapped (broken_cubes.txt) */
	json_t *j = post("/v1/convert",
			 "{\"facelets\": \"RRLUUUFFLFLUDRLUDLUUDBFBRBLULFRDFFRBBBRL"
			 "LRDFBBDDDBFDUR\"}",
			 &status);
	ck_assert_int_eq(status, 422);
	ck_assert_str_eq(str(j, "type"), "urn:cubed:problem:invalid_cube");
	ck_assert_str_eq(str(j, "title"), "Invalid Cube");
	ck_assert_str_eq(str(j, "field"), "facelets");
	ck_assert_str_eq(str(j, "detail"),
			 "the facelets are not a legal cube: twist, flip, "
			 "parity");
	json_t *e = json_object_get(j, "errors");
	ck_assert_uint_eq(json_array_size(e), 3);
	ck_assert_str_eq(str(json_array_get(e, 2), "code"), "parity");
	ck_assert_str_eq(str(json_array_get(e, 2), "detail"),
			 "two pieces are swapped: corner and edge permutation "
			 "parities differ (corners odd, edges even)");
	json_decref(j);
}
END_TEST

/* Idempotency-Key records: a kept answer comes back, a different request
 * with the key is refused, a running one is reported, an aborted one
 * runs again, and the table keeps at most its maximum of answers. */
START_TEST(idempotency_records)
{
	struct idem_config cfg = {.max = 2, .ttl_ms = 3600 * 1000};
	struct idem *im = idem_new(&cfg);
	ck_assert_ptr_nonnull(im);
	uint8_t k1[32] = {1}, k2[32] = {2}, k3[32] = {3}, pa[32] = {7},
		pb[32] = {8};
	struct api_reply rp;
	api_reply_init(&rp);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_NEW);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_IN_FLIGHT);
	api_reply_json(&rp, 201, json_pack("{s:i}", "version", 3));
	api_reply_header(&rp, "ETag", "\"v3\"");
	idem_record(im, k1, &rp);
	api_reply_free(&rp);

	api_reply_init(&rp);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_REPLAY);
	ck_assert_int_eq(rp.status, 201);
	ck_assert_int_eq(rp.nheaders, 1);
	ck_assert_str_eq(rp.headers[0].name, "ETag");
	ck_assert_str_eq(rp.headers[0].value, "\"v3\"");
	ck_assert_int_eq((int)rp.raw_len, 13);
	ck_assert(memcmp(rp.raw, "{\"version\":3}", 13) == 0);
	api_reply_free(&rp);
	api_reply_init(&rp);
	ck_assert_int_eq(idem_begin(im, k1, pb, NULL, &rp), IDEM_MISMATCH);

	ck_assert_int_eq(idem_begin(im, k2, pa, NULL, &rp), IDEM_NEW);
	idem_release(im, k2);
	ck_assert_int_eq(idem_begin(im, k2, pa, NULL, &rp), IDEM_NEW);
	api_reply_json(&rp, 200, json_object());
	idem_record(im, k2, &rp);
	api_reply_free(&rp);
	ck_assert_uint_eq(idem_count(im), 2);
	/* a third answer: the oldest goes */
	api_reply_init(&rp);
	ck_assert_int_eq(idem_begin(im, k3, pa, NULL, &rp), IDEM_NEW);
	ck_assert_uint_eq(idem_count(im), 2);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_NEW);
	idem_free(im);

	/* a request still running after the TTL is forgotten */
	cfg = (struct idem_config){.max = 10, .ttl_ms = 0};
	im = idem_new(&cfg);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_NEW);
	ck_assert_int_eq(idem_begin(im, k1, pa, NULL, &rp), IDEM_NEW);
	idem_free(im);
	api_reply_free(&rp);
}
END_TEST

/* Keep a 1000-byte answer under scope for client c (begun first). */
static enum idem_result keep_big(struct idem *im, const uint8_t *scope,
				 const struct limits_key *c)
{
	static char body[1000];
	static const uint8_t print[32] = {9};
	struct api_reply rp;
	api_reply_init(&rp);
	enum idem_result r = idem_begin(im, scope, print, c, &rp);
	if (r == IDEM_NEW) {
		rp.status = 422;
		rp.content_type = "application/json";
		rp.raw = body;
		rp.raw_len = sizeof body;
		idem_record(im, scope, &rp);
		rp.raw = NULL;
	}
	api_reply_free(&rp);
	return r;
}

/* Budgets by bytes (issue 60): a client that sends many keys loses its
 * own oldest answers and never another client's; the table as a whole
 * stays within its bytes, taking from the heaviest client; a client whose
 * whole share is requests still running is refused (IDEM_BUDGET); a
 * running request holds its key against retries only for the lease. */
START_TEST(idempotency_budgets)
{
	struct idem_config cfg = {
		.max = 100000, .ttl_ms = 3600 * 1000, .lease_ms = 3600 * 1000,
		.max_bytes = 64 * 1024, .client_bytes = 16 * 1024,
	};
	struct idem *im = idem_new(&cfg);
	ck_assert_ptr_nonnull(im);
	const struct limits_key a = {4, {127, 0, 0, 2}},
				b = {4, {127, 0, 0, 3}};
	uint8_t kb[32] = {200, 1};
	ck_assert_int_eq(keep_big(im, kb, &b), IDEM_NEW);
	for (int i = 0; i < 2000; i++) {
		uint8_t k[32] = {(uint8_t)i, (uint8_t)(i >> 8), 2};
		ck_assert_int_eq(keep_big(im, k, &a), IDEM_NEW);
		ck_assert_uint_le(idem_bytes(im), 16 * 1024 + 2048);
	}
	ck_assert_uint_ge(idem_evicted(im), 1980);
	/* B's answer stayed */
	ck_assert_int_eq(keep_big(im, kb, &b), IDEM_REPLAY);
	/* A's newest answers are there, its oldest gone */
	uint8_t newest[32] = {(uint8_t)1999, (uint8_t)(1999 >> 8), 2};
	uint8_t oldest[32] = {0, 0, 2};
	ck_assert_int_eq(keep_big(im, newest, &a), IDEM_REPLAY);
	ck_assert_int_eq(keep_big(im, oldest, &a), IDEM_NEW);

	/* many clients: the whole table stays within max_bytes */
	for (int c = 0; c < 40; c++) {
		struct limits_key k = {4, {10, 0, 0, (uint8_t)c}};
		for (int i = 0; i < 20; i++) {
			uint8_t s[32] = {(uint8_t)i, (uint8_t)c, 3};
			keep_big(im, s, &k);
			ck_assert_uint_le(idem_bytes(im), 64 * 1024);
		}
	}
	idem_free(im);

	/* requests still running fill A's share: refused, not evicted */
	im = idem_new(&cfg);
	struct api_reply rp;
	api_reply_init(&rp);
	const uint8_t print[32] = {9};
	int running = 0;
	enum idem_result r = IDEM_NEW;
	for (int i = 0; i < 1000 && r == IDEM_NEW; i++) {
		uint8_t k[32] = {(uint8_t)i, (uint8_t)(i >> 8), 4};
		r = idem_begin(im, k, print, &a, &rp);
		running += r == IDEM_NEW;
	}
	ck_assert_int_eq(r, IDEM_BUDGET);
	ck_assert_int_gt(running, 10);
	ck_assert_uint_le(idem_bytes(im), 16 * 1024);
	/* B is not affected */
	ck_assert_int_eq(idem_begin(im, kb, print, &b, &rp), IDEM_NEW);
	idem_free(im);

	/* the lease: a running request's key is let go after it */
	cfg.lease_ms = 20;
	im = idem_new(&cfg);
	ck_assert_int_eq(idem_begin(im, kb, print, &b, &rp), IDEM_NEW);
	ck_assert_int_eq(idem_begin(im, kb, print, &b, &rp), IDEM_IN_FLIGHT);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		r = idem_begin(im, kb, print, &b, &rp);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (r == IDEM_IN_FLIGHT && t.tv_sec - t0.tv_sec < 5);
	ck_assert_int_eq(r, IDEM_NEW);
	idem_free(im);
	api_reply_free(&rp);
}
END_TEST

/* jsonout_dump writes what json_dumps(JSON_COMPACT) writes, byte for byte:
 * every byte in strings (escapes, NUL, UTF-8), integers to both ends,
 * reals, nesting, empty containers, key order; random trees too. */
static uint64_t jo_rng = 88172645463325252ull;

static unsigned jo_rand(unsigned n)
{
	jo_rng ^= jo_rng << 13;
	jo_rng ^= jo_rng >> 7;
	jo_rng ^= jo_rng << 17;
	return (unsigned)(jo_rng % n);
}

static json_t *jo_random(int depth)
{
	static const char *const pieces[] = {
		"R U R'", "\"", "\\", "\n\t\r\b\f", "\x01\x1f", "é", "→",
		"😀", "/", "\x7f", "", "key",
	};
	unsigned k = jo_rand(depth > 3 ? 6 : 8);
	switch (k) {
	case 0: {
		char buf[64];
		size_t n = 0;
		for (unsigned i = jo_rand(4); i > 0; i--) {
			const char *p = pieces[jo_rand(12)];
			size_t m = strlen(p);
			memcpy(buf + n, p, m);
			n += m;
		}
		if (jo_rand(5) == 0)
			buf[n++] = '\0';
		return json_stringn(buf, n);
	}
	case 1:
		return json_integer((json_int_t)jo_rand(2000000) - 1000000);
	case 2:
		return json_real((double)jo_rand(100000) / 7.0);
	case 3:
		return json_boolean(jo_rand(2));
	case 4:
		return json_null();
	case 5:
		return json_integer(jo_rand(2) ? INT64_MAX : INT64_MIN);
	case 6: {
		json_t *a = json_array();
		for (unsigned i = jo_rand(5); i > 0; i--)
			json_array_append_new(a, jo_random(depth + 1));
		return a;
	}
	default: {
		json_t *o = json_object();
		for (unsigned i = jo_rand(5); i > 0; i--) {
			char key[16];
			snprintf(key, sizeof key, "%s%u",
				 pieces[jo_rand(12)][0] ? "k\n\"" : "", i);
			json_object_set_new(o, key, jo_random(depth + 1));
		}
		return o;
	}
	}
}

static void jo_same(const json_t *v)
{
	char *want = json_dumps(v, JSON_COMPACT);
	size_t len = 0;
	char *got = jsonout_dump(v, &len);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert_msg(strcmp(got, want) == 0, "jsonout %s\njansson %s", got,
		      want);
	free(got);
	free(want);
}

START_TEST(jsonout_matches_jansson)
{
	/* every byte value 1..255 that makes valid UTF-8 alone (ASCII), and
	 * NUL in the middle */
	char all[130];
	for (int i = 0; i < 128; i++)
		all[i] = (char)i;
	json_t *o = json_pack("{s:s%, s:s, s:I, s:I, s:I, s:f, s:f, s:[], "
			      "s:{}, s:[b, b, n, [[{}]]]}",
			      "bytes", all, (size_t)128, "utf8", "é → 😀",
			      "max", (json_int_t)INT64_MAX, "min",
			      (json_int_t)INT64_MIN, "zero", (json_int_t)0,
			      "real", 1.5, "third", 1.0 / 3.0, "empty_a",
			      "empty_o", "nest", 1, 0);
	ck_assert_ptr_nonnull(o);
	jo_same(o);
	json_decref(o);
	for (int i = 0; i < 2000; i++) {
		json_t *v = json_object();
		json_object_set_new(v, "v", jo_random(0));
		jo_same(v);
		json_decref(v);
	}
	/* not a container, or too deep: NULL, as json_dumps */
	json_t *s = json_string("x");
	ck_assert_ptr_null(jsonout_dump(s, NULL));
	ck_assert_ptr_null(jsonout_dump(NULL, NULL));
	json_decref(s);
	json_t *deep = json_array(), *at = deep;
	for (int i = 0; i < 3000; i++) {
		json_t *next = json_array();
		json_array_append_new(at, next);
		at = next;
	}
	ck_assert_ptr_null(jsonout_dump(deep, NULL));
	json_decref(deep);
}
END_TEST

/* The session reply written as text is the reply built as a json_t and
 * dumped, byte for byte, whatever the view holds. */
START_TEST(session_text_matches_json)
{
	struct api_config cfg;
	memset(&cfg, 0, sizeof cfg);
	static const char *const titles[] = {NULL, "", "Team \"A\"\n→ 😀",
					     "back\\slash\x01"};
	for (int k = 0; k < 8; k++) {
		struct session_view v;
		memset(&v, 0, sizeof v);
		snprintf(v.id, sizeof v.id, "AbC-_%d", k);
		v.size = k % 2 ? 3 : 1;
		v.version = k == 7 ? INT64_MAX : 17 * k;
		v.created_at = 1700000000123LL + k;
		v.updated_at = k == 6 ? 0 : 253402300799999LL;
		v.is_private = k % 3 == 0;
		v.can_undo = k % 2;
		v.can_redo = k / 4;
		v.title = (char *)titles[k % 4];
		v.facelets = v.size == 3 ? "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDD"
					   "LLLLLLLLLBBBBBBBBB"
					 : "URFDLB";
		struct api_reply rp;
		api_reply_init(&rp);
		json_t *o = api__session_json(&cfg, &v, REPR_BIT(REPR_FACELETS),
					      "facelets", &rp);
		ck_assert_ptr_nonnull(o);
		char *want = jsonout_dump(o, NULL);
		size_t len = 0;
		char *got = api__session_text(&cfg, &v, &len);
		ck_assert_ptr_nonnull(got);
		ck_assert_uint_eq(len, strlen(got));
		ck_assert_msg(strcmp(got, want) == 0, "text %s\njson %s", got,
			      want);
		free(got);
		free(want);
		json_decref(o);
		api_reply_free(&rp);
	}
}
END_TEST

/* The text writer places commas and refuses what is not JSON. */
START_TEST(jsonw_writer)
{
	jsonw w;
	jsonw_init(&w);
	jsonw_object(&w);
	jsonw_key(&w, "a");
	jsonw_array(&w);
	jsonw_int(&w, -5);
	jsonw_string(&w, NULL);
	jsonw_array(&w);
	jsonw_end(&w);
	jsonw_object(&w);
	jsonw_end(&w);
	jsonw_bool(&w, 0);
	jsonw_end(&w);
	jsonw_key(&w, "b\"");
	jsonw_stringn(&w, "x\0y", 3);
	jsonw_end(&w);
	size_t len;
	char *t = jsonw_finish(&w, &len);
	ck_assert_str_eq(t, "{\"a\":[-5,null,[],{},false],\"b\\\"\":\"x\\u0000y\"}");
	ck_assert_uint_eq(len, strlen(t));
	free(t);
	/* a key inside an array, a container left open, one closed too
	 * many times, nesting past the limit: no text */
	jsonw_init(&w);
	jsonw_array(&w);
	jsonw_key(&w, "k");
	jsonw_end(&w);
	ck_assert_ptr_null(jsonw_finish(&w, NULL));
	jsonw_init(&w);
	jsonw_object(&w);
	ck_assert_ptr_null(jsonw_finish(&w, NULL));
	jsonw_init(&w);
	jsonw_array(&w);
	jsonw_end(&w);
	jsonw_end(&w);
	ck_assert_ptr_null(jsonw_finish(&w, NULL));
	jsonw_init(&w);
	for (int i = 0; i <= JSONW_MAX_DEPTH; i++)
		jsonw_array(&w);
	for (int i = 0; i <= JSONW_MAX_DEPTH; i++)
		jsonw_end(&w);
	ck_assert_ptr_null(jsonw_finish(&w, NULL));
}
END_TEST

/* The error table (errors.def) is consistent: every row a 4xx or 5xx with
 * a type, a type's rows share status and title, codes are unique within a
 * type, only the *_CORE rows take their code from the core error. */
START_TEST(error_table)
{
	for (int i = 1; i < PROBLEM_COUNT; i++) {
		enum problem a = (enum problem)i;
		ck_assert_int_ge(problem_status(a), 400);
		ck_assert_int_le(problem_status(a), 599);
		ck_assert_uint_gt(strlen(problem_type(a)), 0);
		int core_row = a == PROBLEM_FACELETS_CORE ||
			       a == PROBLEM_NOTATION_CORE ||
			       a == PROBLEM_PATTERN_CORE ||
			       a == PROBLEM_INTERNAL_CORE;
		ck_assert_int_eq(problem_code(a) == NULL, core_row);
		for (int j = 1; j < i; j++) {
			enum problem b = (enum problem)j;
			if (strcmp(problem_type(a), problem_type(b)) != 0)
				continue;
			ck_assert_int_eq(problem_status(a), problem_status(b));
			ck_assert_str_eq(problem_title(a), problem_title(b));
			if (problem_code(a) && problem_code(b))
				ck_assert_msg(strcmp(problem_code(a),
						     problem_code(b)) != 0,
					      "code %s twice in type %s",
					      problem_code(a), problem_type(a));
		}
	}
	/* every notation error the parser gives has its own row, whose code
	 * is the core's name for it */
	for (int e = ALG_ETOKEN; e >= ALG_EWORK; e--) {
		enum problem id = problem_core(PROBLEM_NOTATION_CORE, e);
		if (e == ALG_ELONG || e == ALG_EWORK) {
			ck_assert_int_eq(id, PROBLEM_NOTATION_CORE);
			continue;
		}
		ck_assert_int_ne(id, PROBLEM_NOTATION_CORE);
		ck_assert_str_eq(problem_code(id), cube_errname(e));
		ck_assert_str_eq(problem_type(id), "invalid_notation");
	}
	ck_assert_int_eq(problem_core(PROBLEM_LIMIT_EXCEEDED, ALG_ELONG),
			 PROBLEM_TOO_MANY_MOVES);
	ck_assert_int_eq(problem_core(PROBLEM_FACELETS_CORE, CUBE_ELENGTH),
			 PROBLEM_FACELETS_LENGTH);
	ck_assert_int_eq(problem_core(PROBLEM_PATTERN_CORE, CUBE_ELENGTH),
			 PROBLEM_PATTERN_LENGTH);
	ck_assert_int_eq(problem_core(PROBLEM_PATTERN_CORE, PATTERN_EDIGITS),
			 PROBLEM_PATTERN_DIGIT);
	/* a core error without a row of its own keeps its name */
	struct api_reply rp;
	api_reply_init(&rp);
	json_t *p = problem_reply_core(&rp, PROBLEM_INTERNAL_CORE, CUBE_EINVALID,
				       "x %d", 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(rp.status, 500);
	ck_assert_str_eq(str(p, "code"), "invalid_cube");
	ck_assert_str_eq(str(p, "type"), "urn:cubed:problem:internal_error");
	ck_assert_str_eq(str(p, "detail"), "x 1");
	api_reply_free(&rp);
	/* session errors are rows: the value names the reply */
	api_reply_init(&rp);
	p = problem_reply(&rp, (enum problem)-SES_NOT_FOUND,
			  "gone");
	ck_assert_int_eq(rp.status, 404);
	ck_assert_str_eq(str(p, "code"), "no_such_session");
	api_reply_free(&rp);
}
END_TEST

/* Out of memory is 503 out_of_memory with Retry-After, whichever layer
 * ran out (the session layer's SES_NOMEM included), never a 500. */
START_TEST(out_of_memory_reply)
{
	struct api_reply rp;
	api_reply_init(&rp);
	json_t *p = problem_reply(&rp, (enum problem)-SES_NOMEM, "%s",
				  sessions_strerror(SES_NOMEM));
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(rp.status, 503);
	ck_assert_str_eq(str(p, "code"), "out_of_memory");
	ck_assert_str_eq(str(p, "type"), "urn:cubed:problem:unavailable");
	ck_assert_str_eq(str(p, "title"), "Service Unavailable");
	ck_assert_int_eq(json_integer_value(json_object_get(p, "status")), 503);
	const char *ra = NULL;
	for (int i = 0; i < rp.nheaders; i++)
		if (strcmp(rp.headers[i].name, "Retry-After") == 0)
			ra = rp.headers[i].value;
	ck_assert_ptr_nonnull(ra);
	ck_assert_str_eq(ra, "1");
	api_reply_free(&rp);
	/* the fixed body the HTTP layer falls back on says the same */
	json_t *fb = json_loads(problem_internal_fallback, 0, NULL);
	ck_assert_ptr_nonnull(fb);
	ck_assert_str_eq(str(fb, "code"), "out_of_memory");
	ck_assert_int_eq(json_integer_value(json_object_get(fb, "status")), 503);
	json_decref(fb);
}
END_TEST

Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, routes_allow);
	tcase_add_test(tc, error_table);
	tcase_add_test(tc, out_of_memory_reply);
	tcase_add_test(tc, patterns_query);
	tcase_add_test(tc, match_named_on_solved);
	tcase_add_test(tc, include_matrix);
	tcase_add_test(tc, every_orientation);
	tcase_add_test(tc, invalid_cube_problem);
	tcase_add_test(tc, idempotency_records);
	tcase_add_test(tc, idempotency_budgets);
	tcase_add_test(tc, jsonout_matches_jansson);
	tcase_add_test(tc, session_text_matches_json);
	tcase_add_test(tc, jsonw_writer);
	suite_add_tcase(s, tc);
	return s;
}
