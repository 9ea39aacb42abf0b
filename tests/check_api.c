/* check_api.c — api_handle (server/api*.c) through plain structs, no
 * server: properties too wide for the black-box table (every size against
 * every representation, every whole-cube orientation of several states),
 * cheap enough here to run in full under the sanitizers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
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

START_TEST(routes_allow)
{
	ck_assert_str_eq(api_allow("/v1/convert"), "POST, OPTIONS");
	ck_assert_str_eq(api_allow("/v1/validate"), "POST, OPTIONS");
	ck_assert_ptr_null(api_allow("/v1/convert/"));
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

Suite *api_suite(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, routes_allow);
	tcase_add_test(tc, include_matrix);
	tcase_add_test(tc, every_orientation);
	tcase_add_test(tc, invalid_cube_problem);
	suite_add_tcase(s, tc);
	return s;
}
