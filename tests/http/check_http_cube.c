/* check_http_cube.c — part of the http suite (check_http.c runs it, on
 * its default server): what the stateless routes say about one cube
 * state, checked against core and the golden files. Representations:
 * /v1/convert round trips, /v1/validate on every broken cube of the
 * goldens, invalid cubies, render, features, the format and include of
 * /v1/apply and their size limits; patterns: /v1/match against core's
 * pattern_match in every orientation, /v1/patterns, /v1/pieces. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cube.h"
#include "golden.h"
#include "http_helpers.h"
#include "pattern.h"

/* ------------------------------------------------------------------ */
/* Representations: /v1/convert, /v1/validate, format and include.     */

/* POST body (a JSON value, borrowed) to path; the reply, which must be
 * 200, parsed. */
static json_t *post_value(const char *path, const json_t *body, int status,
			  http_response *r)
{
	char *text = json_dumps(body, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	int rc = http_request(srv.port, "POST", path, JSON_CT, text,
			      strlen(text), r);
	ck_assert_msg(rc == 0, "POST %s: %s", path, r->error);
	ck_assert_msg(r->status == status, "POST %s %.300s: status %d, expected "
					   "%d: %.600s",
		      path, text, r->status, status, r->body);
	free(text);
	return parse(r, path);
}

/* post_value for a 200 reply, without the response. */
static json_t *post_ok(const char *path, json_t *body)
{
	http_response r;
	json_t *j = post_value(path, body, 200, &r);
	http_response_free(&r);
	json_decref(body);
	return j;
}

static const char *str_member(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	ck_assert_msg(s != NULL, "reply has no string \"%s\"", key);
	return s;
}

/* n for a facelets string of len letters (6·n², n = 1…1024), else 0. */
static int cube_size_or_zero(size_t len)
{
	for (size_t n = 1; n <= 1024; n++)
		if (6 * n * n == len)
			return (int)n;
	return 0;
}

/* The "code" members of an array of errors, comma-separated ("-" for
 * none), and their "where" members (-1 when absent). */
static void codes_and_where(const json_t *errors, char *codes, char *where,
			    size_t cap)
{
	size_t cl = 0, wl = 0;
	size_t i;
	json_t *e;
	snprintf(codes, cap, "-");
	where[0] = '\0';
	json_array_foreach(errors, i, e) {
		json_t *w = json_object_get(e, "where");
		cl += (size_t)snprintf(codes + cl, cap - cl, "%s%s",
				       i ? "," : "",
				       json_string_value(
					       json_object_get(e, "code")));
		wl += (size_t)snprintf(where + wl, cap - wl, "%s%lld",
				       i ? "," : "",
				       w ? (long long)json_integer_value(w)
					 : -1LL);
		ck_assert_msg(json_is_string(json_object_get(e, "detail")),
			      "an error without a detail");
	}
}

/* Every broken cube of tests/golden/broken_cubes.txt through /v1/validate:
 * the same codes in the same order, and the same places, as core's
 * cube_validate gives (its suite checks those against the file); and
 * through /v1/convert: a 2×2 or 3×3 with any problem past its letters is
 * 422 invalid_cube with the same errors, a legal one converts. */
START_TEST(validate_broken_cubes_golden)
{
	struct golden_case *gc;
	int count = golden_load("broken_cubes.txt", &gc);
	ck_assert_int_ge(count, 60);
	for (int k = 0; k < count; k++) {
		const char *s = gc[k].field[0], *want = gc[k].field[1];
		size_t len = strlen(s);
		char codes[512], where[512];
		http_response r;
		json_t *body = json_pack("{s:s}", "facelets", s);
		json_t *j = post_value("/v1/validate", body, 200, &r);
		http_response_free(&r);
		json_decref(body);
		codes_and_where(json_object_get(j, "errors"), codes, where,
				sizeof codes);
		ck_assert_msg(strcmp(codes, want) == 0,
			      "line %d: /v1/validate codes %s, want %s",
			      gc[k].line, codes, want);
		if (gc[k].nfields >= 3)
			ck_assert_msg(strcmp(where, gc[k].field[2]) == 0,
				      "line %d: where %s, want %s", gc[k].line,
				      where, gc[k].field[2]);
		int valid = strcmp(want, "-") == 0;
		ck_assert_msg(json_is_boolean(json_object_get(j, "valid")) &&
				      json_is_true(json_object_get(j, "valid")) ==
					      valid,
			      "line %d: valid is not %d", gc[k].line, valid);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
				 (json_int_t)json_array_size(
					 json_object_get(j, "errors")));
		int n = cube_size_or_zero(len);
		json_t *size = json_object_get(j, "size");
		ck_assert_msg(n ? json_integer_value(size) == n
				: json_is_null(size),
			      "line %d: size should be %d", gc[k].line, n);
		ck_assert_msg((json_object_get(j, "orientation") != NULL) ==
				      (valid && (n == 2 || n == 3)),
			      "line %d: orientation present iff a valid 2×2 "
			      "or 3×3",
			      gc[k].line);
		ck_assert_msg((json_object_get(j, "unchecked") != NULL) ==
				      (n >= 4),
			      "line %d: unchecked present iff n >= 4",
			      gc[k].line);

		/* and through /v1/convert */
		int letters_ok = n > 0 && !strstr(want, "facelets_");
		body = json_pack("{s:s}", "facelets", s);
		if (!letters_ok) {
			json_decref(j);
			json_decref(body);
			continue;
		}
		int illegal = !valid && (n == 2 || n == 3);
		json_t *c = post_value("/v1/convert", body, illegal ? 422 : 200,
				       &r);
		json_decref(body);
		if (illegal) {
			check_problem(&r, "convert of a broken cube", 422,
				      "invalid_cube", "invalid_cube", -1,
				      "facelets", -1);
			ck_assert_msg(json_equal(json_object_get(c, "errors"),
						 json_object_get(j, "errors")),
				      "line %d: invalid_cube errors differ from "
				      "/v1/validate's: %s",
				      gc[k].line, r.body);
		} else {
			ck_assert_str_eq(str_member(c, "facelets"), s);
			ck_assert_msg((json_object_get(c, "cubie") != NULL) ==
					      (n == 2 || n == 3),
				      "line %d: cubie present iff n is 2 or 3",
				      gc[k].line);
		}
		http_response_free(&r);
		json_decref(c);
		json_decref(j);
	}
	golden_free(gc, count);
}
END_TEST

/* facelets → cubie → index → cubie → facelets through the API. The
 * facelets come back as the cube held the standard way: equal to the
 * scramble's, or (a 2×2 turned with D, L or B moves its DBL corner, which
 * fixes its orientation) to them turned by the orientation's moves. */
START_TEST(convert_round_trips)
{
	static const struct {
		int n;
		const char *moves;
	} scrambles[] = {
		{3, ""},
		{3, "R"},
		{3, "R U F' D2 L B' U2 R' F"},
		{3, "D' R2 U' B2 D F2 U2 L2 D2 L' F' U' R2 B L' D2 U R F2"},
		{3, "(R U R' U')3 [F, R2] D' L2 [B: U]"},
		{3, "R2 U2"},
		{2, "R U2 F' D L' B"},
		{2, "R U R' U' F2"},
		{2, ""},
	};
	for (size_t i = 0; i < sizeof scrambles / sizeof *scrambles; i++) {
		int n = scrambles[i].n;
		json_t *a = post_ok("/v1/apply",
				    json_pack("{s:i, s:s}", "size", n, "moves",
					      scrambles[i].moves));
		const char *f = str_member(a, "facelets");
		json_t *c1 = post_ok("/v1/convert",
				     json_pack("{s:s}", "facelets", f));
		json_t *cubie = json_object_get(c1, "cubie");
		const char *ix = str_member(c1, "index");
		json_t *c2 = post_ok("/v1/convert",
				     json_pack("{s:i, s:O}", "size", n, "cubie",
					       cubie));
		json_t *c3 = post_ok("/v1/convert",
				     json_pack("{s:i, s:s}", "size", n, "index",
					       ix));
		const char *what = scrambles[i].moves;
		ck_assert_msg(strcmp(str_member(c2, "index"), ix) == 0,
			      "%d: %s: cubie → index %s, facelets → index %s",
			      n, what, str_member(c2, "index"), ix);
		ck_assert_msg(json_equal(json_object_get(c3, "cubie"), cubie),
			      "%d: %s: index → cubie differs", n, what);
		const char *turn =
			str_member(json_object_get(c1, "orientation"), "moves");
		json_t *held = post_ok("/v1/apply",
				       json_pack("{s:s, s:s}", "facelets", f,
						 "moves", turn));
		const char *fs = str_member(held, "facelets");
		ck_assert_msg((n == 2 && strpbrk(what, "DLB")) || *turn == '\0',
			      "%d: %s: held as %s", n, what, turn);
		ck_assert_msg(strcmp(str_member(c2, "facelets"), fs) == 0 &&
				      strcmp(str_member(c3, "facelets"), fs) == 0,
			      "%d: %s: facelets do not come back: %s (%s)", n,
			      what, fs, turn);
		json_decref(held);
		/* and /v1/apply answers the same index and cubies */
		json_t *a2 = post_ok("/v1/apply",
				     json_pack("{s:i, s:s, s:s, s:[s]}", "size",
					       n, "moves", scrambles[i].moves,
					       "format", "index", "include",
					       "cubie"));
		ck_assert_str_eq(str_member(a2, "index"), ix);
		ck_assert(json_equal(json_object_get(a2, "cubie"), cubie));
		json_decref(a2);
		json_decref(c3);
		json_decref(c2);
		json_decref(c1);
		json_decref(a);
	}
}
END_TEST

/* The same state held another way (computed here: x y applied to the
 * facelets after R) has the same cubies, and says how it is held. */
START_TEST(convert_rotated_cube)
{
	json_t *a = post_ok("/v1/apply",
			    json_pack("{s:s, s:s}", "facelets", AFTER_R,
				      "moves", "x y"));
	const char *f = str_member(a, "facelets");
	ck_assert_str_ne(f, AFTER_R);
	json_t *c = post_ok("/v1/convert", json_pack("{s:s}", "facelets", f));
	json_t *want = json_loads("{\"cubie\": " CUBIE_R ", \"index\": \""
				  INDEX_R "\", \"orientation\": {\"up\": \"F\", "
				  "\"front\": \"R\", \"moves\": \"y' x'\"}}",
				  0, NULL);
	ck_assert_ptr_nonnull(want);
	const char *k;
	json_t *v;
	json_object_foreach(want, k, v)
		ck_assert_msg(json_equal(v, json_object_get(c, k)),
			      "rotated R: %s differs", k);
	ck_assert_str_eq(str_member(c, "facelets"), f);
	/* applying the orientation's moves gives the standard hold back */
	json_t *o = json_object_get(c, "orientation");
	json_t *back = post_ok("/v1/apply",
			       json_pack("{s:s, s:s}", "facelets", f, "moves",
					 str_member(o, "moves")));
	ck_assert_str_eq(str_member(back, "facelets"), AFTER_R);
	json_decref(back);
	json_decref(want);
	json_decref(c);
	json_decref(a);
}
END_TEST

/* Every reason a cubie input is not a reachable state, as data. */
START_TEST(convert_invalid_cubies)
{
	static const struct {
		const char *body, *codes, *fields;
	} cases[] = {
		{CUBIE3_WITH("[1, 0, 2, 3, 4, 5, 6, 7]", ZERO8, ID_EP, ZERO12),
		 "parity", "cubie.cp"},
		{CUBIE3_WITH(ID_CP, "[2, 0, 0, 0, 0, 0, 0, 0]", ID_EP, ZERO12),
		 "twist", "cubie.co"},
		{CUBIE3_WITH(ID_CP, ZERO8, ID_EP,
			     "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]"),
		 "flip", "cubie.eo"},
		{CUBIE3_WITH("[0, 0, 2, 3, 4, 5, 6, 7]", ZERO8, ID_EP, ZERO12),
		 "not_a_permutation", "cubie.cp"},
		{CUBIE3_WITH(ID_CP, "[1, 1, 0, 0, 0, 0, 0, 0]",
			     "[1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]",
			     "[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"),
		 "twist,not_a_permutation,flip", "cubie.co,cubie.ep,cubie.eo"},
		{"{\"size\": 2, \"cubie\": {\"cp\": " ID_CP ", \"co\": "
		 "[0, 0, 0, 0, 0, 0, 1, 2]}}",
		 "not_normalized", "cubie.co"},
		{"{\"size\": 2, \"cubie\": {\"cp\": [0, 1, 2, 3, 4, 5, 7, 6], "
		 "\"co\": " ZERO8 "}}",
		 "not_normalized", "cubie.cp"},
		{"{\"size\": 2, \"cubie\": {\"cp\": [0, 1, 2, 3, 4, 4, 6, 7], "
		 "\"co\": [1, 0, 0, 0, 0, 0, 0, 0]}}",
		 "not_a_permutation,twist", "cubie.cp,cubie.co"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		http_response r;
		post_json(&r, "/v1/convert", cases[i].body);
		check_problem(&r, cases[i].body, 422, "invalid_cube",
			      "invalid_cube", -1, "cubie", -1);
		json_t *j = parse(&r, cases[i].body);
		char codes[256], fields[256];
		size_t cl = 0, fl = 0, k;
		json_t *e;
		json_array_foreach(json_object_get(j, "errors"), k, e) {
			cl += (size_t)snprintf(codes + cl, sizeof codes - cl,
					       "%s%s", k ? "," : "",
					       str_member(e, "code"));
			fl += (size_t)snprintf(fields + fl, sizeof fields - fl,
					       "%s%s", k ? "," : "",
					       str_member(e, "field"));
			str_member(e, "detail");
		}
		ck_assert_msg(cl && strcmp(codes, cases[i].codes) == 0 &&
				      strcmp(fields, cases[i].fields) == 0,
			      "%s: errors %s (%s), want %s (%s)", cases[i].body,
			      cl ? codes : "none", fl ? fields : "", cases[i].codes,
			      cases[i].fields);
		json_decref(j);
		http_response_free(&r);
	}
}
END_TEST

/* Solved n×n facelets. */
static char *solved(int n)
{
	size_t nn = (size_t)n * n;
	char *f = malloc(6 * nn + 1);
	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < 6 * nn; k++)
		f[k] = "URFDLB"[k / nn];
	f[6 * nn] = '\0';
	return f;
}

/* n >= 4: what validation cannot check; 2×2 and 3×3 never list it. */
START_TEST(validate_unchecked)
{
	for (int n = 1; n <= 7; n++) {
		char *f = solved(n);
		json_t *j = post_ok("/v1/validate",
				    json_pack("{s:s}", "facelets", f));
		json_t *u = json_object_get(j, "unchecked");
		if (n >= 4) {
			json_t *want = json_pack("[s]", "parity");
			ck_assert_msg(json_equal(u, want),
				      "n=%d: unchecked is not [parity]", n);
			json_decref(want);
		} else {
			ck_assert_msg(u == NULL, "n=%d: unchecked listed", n);
		}
		ck_assert(json_is_true(json_object_get(j, "valid")));
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 n);
		json_decref(j);
		free(f);
	}
}
END_TEST

/* All problems are counted; at most 1000 are listed. */
START_TEST(validate_many_problems)
{
	char *f = solved(16);
	size_t len = strlen(f);
	for (size_t k = 0; k < 1500; k++)
		f[k] = 'x';
	json_t *j = post_ok("/v1/validate", json_pack("{s:s}", "facelets", f));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
			 1500);
	json_t *errors = json_object_get(j, "errors");
	ck_assert_uint_eq(json_array_size(errors), 1000);
	json_t *last = json_array_get(errors, 999);
	ck_assert_str_eq(str_member(last, "code"), "facelets_letter");
	ck_assert_int_eq(json_integer_value(json_object_get(last, "where")), 999);
	json_decref(j);
	/* a few: all listed */
	free(f);
	f = solved(16);
	f[0] = f[len - 1] = '?';
	j = post_ok("/v1/validate", json_pack("{s:s}", "facelets", f));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
			 2);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "errors")), 2);
	json_decref(j);
	free(f);
}
END_TEST

/* render: every visible cubie, in order, with rotations that say where
 * each sticker went. */
START_TEST(render_cubies)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:[s]}", "size", 3, "include",
				      "render"));
	json_t *render = json_object_get(j, "render");
	json_t *cubies = json_object_get(render, "cubies");
	ck_assert_uint_eq(json_array_size(cubies), 26);
	ck_assert_int_eq(json_integer_value(json_object_get(render, "size")), 3);
	/* solved: identity everywhere, each side shows its own colour, and
	 * the positions run through i, then j, then k, skipping the core */
	size_t i;
	json_t *c;
	int want[3] = {0, 0, 0};
	json_array_foreach(cubies, i, c) {
		json_t *pos = json_object_get(c, "position");
		for (int a = 0; a < 3; a++)
			ck_assert_int_eq(
				json_integer_value(json_array_get(pos, a)),
				want[a]);
		json_t *id = json_pack("[i,i,i,i,i,i,i,i,i]", 1, 0, 0, 0, 1, 0,
				       0, 0, 1);
		ck_assert(json_equal(json_object_get(c, "rotation"), id));
		json_decref(id);
		const char *side;
		json_t *v;
		int visible = 0;
		json_object_foreach(json_object_get(c, "stickers"), side, v) {
			ck_assert_str_eq(side, json_string_value(v));
			visible++;
		}
		int outer = (want[0] == 0 || want[0] == 2) +
			    (want[1] == 0 || want[1] == 2) +
			    (want[2] == 0 || want[2] == 2);
		ck_assert_int_eq(visible, outer);
		do {
			if (++want[2] == 3) {
				want[2] = 0;
				if (++want[1] == 3) {
					want[1] = 0;
					want[0]++;
				}
			}
		} while (want[0] == 1 && want[1] == 1 && want[2] == 1);
	}
	json_decref(j);

	/* after R: URF holds DFR, turned -90° about x */
	j = post_ok("/v1/apply", json_pack("{s:i, s:s, s:s, s:[s]}", "size", 3,
					   "moves", "R", "format", "cubie",
					   "include", "render"));
	cubies = json_object_get(json_object_get(j, "render"), "cubies");
	json_t *urf = json_loads("{\"position\": [2, 2, 2], \"rotation\": [1, 0, "
				 "0, 0, 0, 1, 0, -1, 0], \"stickers\": {\"U\": "
				 "\"F\", \"R\": \"R\", \"F\": \"D\"}}",
				 0, NULL);
	ck_assert_ptr_nonnull(urf);
	ck_assert_msg(json_equal(json_array_get(cubies, 25), urf),
		      "the URF cubie after R differs");
	json_decref(urf);
	json_decref(j);
}
END_TEST

/* The size limits of faces and render, on both sides of the line. */
START_TEST(representation_size_limits)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:[s]}", "size", 64, "include",
				      "render"));
	json_t *cubies = json_object_get(json_object_get(j, "render"), "cubies");
	ck_assert_uint_eq(json_array_size(cubies), 64u * 64 * 64 - 62u * 62 * 62);
	json_decref(j);

	j = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 256, "format",
					   "faces"));
	json_t *faces = json_object_get(j, "faces");
	ck_assert_uint_eq(json_object_size(faces), 6);
	json_t *d = json_object_get(faces, "D");
	ck_assert_uint_eq(json_array_size(d), 256);
	ck_assert_uint_eq(json_array_size(json_array_get(d, 255)), 256);
	ck_assert_str_eq(json_string_value(
				 json_array_get(json_array_get(d, 255), 255)),
			 "D");
	ck_assert_ptr_null(json_object_get(j, "facelets"));
	json_decref(j);

	/* through /v1/convert, with the state given as 65×65 facelets */
	char *f = solved(65);
	http_response r;
	json_t *body = json_pack("{s:s, s:[s]}", "facelets", f, "include",
				 "render");
	json_decref(post_value("/v1/convert", body, 422, &r));
	check_problem(&r, "convert n=65 with render", 422, "limit_exceeded",
		      "too_large_for_representation", -1, "include", 64);
	http_response_free(&r);
	json_decref(body);
	free(f);
}
END_TEST

/* 364 features, zeros and ones: 54 + 20 + 20 ones solved; after R, 54
 * stickers, 12 pieces home and 16 oriented, exactly where. */
START_TEST(features_vector)
{
	static const char *const facelets[] = {SOLVED3, AFTER_R};
	for (int t = 0; t < 2; t++) {
		json_t *j = post_ok("/v1/convert",
				    json_pack("{s:s, s:[s]}", "facelets",
					      facelets[t], "include",
					      "features"));
		json_t *f = json_object_get(j, "features");
		ck_assert_uint_eq(json_array_size(f), 364);
		int ones = 0;
		char tail[41];
		for (size_t i = 0; i < 364; i++) {
			json_t *v = json_array_get(f, i);
			ck_assert_msg(json_is_integer(v) &&
					      (json_integer_value(v) == 0 ||
					       json_integer_value(v) == 1),
				      "features[%zu] is not 0 or 1", i);
			ones += (int)json_integer_value(v);
			if (i < 324)
				ck_assert_int_eq(
					json_integer_value(v),
					facelets[t][i / 6] == "URFDLB"[i % 6]);
			else
				tail[i - 324] =
					(char)('0' + json_integer_value(v));
		}
		tail[40] = '\0';
		/* home: corners URF…DRB, edges UR…BR; then oriented */
		const char *want =
			t == 0 ? "1111111111111111111111111111111111111111"
			       : "0110011001110111011001100110111111111111";
		ck_assert_msg(strcmp(tail, want) == 0,
			      "features[324…363] %s, want %s", tail, want);
		ck_assert_int_eq(ones, t == 0 ? 54 + 40 : 54 + 12 + 16);
		json_decref(j);
	}
}
END_TEST

/* format replaces "facelets"; the default reply keeps its three keys. */
START_TEST(apply_format_keys)
{
	static const struct {
		const char *format;
		const char *keys; /* the reply's keys, in order */
	} cases[] = {
		{NULL, "size facelets moves"},
		{"facelets", "size facelets moves"},
		{"index", "size index moves"},
		{"cubie", "size cubie moves"},
		{"faces", "size faces moves"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *body = json_pack("{s:i, s:s}", "size", 3, "moves", "R");
		if (cases[i].format)
			json_object_set_new(body, "format",
					    json_string(cases[i].format));
		json_t *j = post_ok("/v1/apply", body);
		char keys[128];
		size_t kl = 0;
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v)
			kl += (size_t)snprintf(keys + kl, sizeof keys - kl,
					       "%s%s", kl ? " " : "", k);
		ck_assert_msg(strcmp(keys, cases[i].keys) == 0,
			      "format %s: keys %s, want %s",
			      cases[i].format ? cases[i].format : "(none)", keys,
			      cases[i].keys);
		json_decref(j);
	}
}
END_TEST

/* The animation limit is 10000 moves, inclusive. */
START_TEST(animation_limit)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:s, s:[s]}", "size", 3, "moves",
				      "(R U)5000", "include", "animation"));
	json_t *an = json_object_get(j, "animation");
	ck_assert_uint_eq(json_array_size(an), 10000);
	ck_assert_str_eq(str_member(json_array_get(an, 9999), "move"), "U");
	ck_assert_str_eq(str_member(json_array_get(an, 9998), "move"), "R");
	json_decref(j);
}
END_TEST

/* Expected facelets after R on a solved n-cube, by docs/conventions.md's rule
 * (the R column of U shows F, of F shows D, of D shows B, B's left
 * column shows U). */
static char *after_r(int n)
{
	size_t nn = (size_t)n * n;
	char *f = malloc(6 * nn + 1);
	ck_assert_ptr_nonnull(f);
	for (int face = 0; face < 6; face++)
		for (int r = 0; r < n; r++)
			for (int c = 0; c < n; c++) {
				char v = "URFDLB"[face];
				if (face == 0 && c == n - 1)
					v = 'F';
				else if (face == 2 && c == n - 1)
					v = 'D';
				else if (face == 3 && c == n - 1)
					v = 'B';
				else if (face == 5 && c == 0)
					v = 'U';
				f[face * nn + (size_t)r * n + c] = v;
			}
	f[6 * nn] = '\0';
	return f;
}

/* The largest cube, solved and after R. */
START_TEST(apply_size_1024)
{
	static const char *bodies[] = {"{\"size\": 1024}",
				       "{\"size\": 1024, \"moves\": \"R\"}"};
	for (int i = 0; i < 2; i++) {
		http_response r;
		post_json(&r, "/v1/apply", bodies[i]);
		ck_assert_msg(r.status == 200, "%s: status %d: %.300s",
			      bodies[i], r.status, r.body);
		json_t *j = parse(&r, bodies[i]);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 1024);
		const char *f =
			json_string_value(json_object_get(j, "facelets"));
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(strlen(f), 6u * 1024 * 1024);
		char *want = after_r(1024);
		if (i == 0)
			for (size_t k = 0; k < 6u * 1024 * 1024; k++)
				want[k] = "URFDLB"[k / (1024 * 1024)];
		if (strcmp(f, want) != 0) {
			size_t k = 0;
			while (f[k] == want[k])
				k++;
			ck_abort_msg("%s: facelets differ first at %zu: %c, "
				     "expected %c",
				     bodies[i], k, f[k], want[k]);
		}
		free(want);
		json_decref(j);
		http_response_free(&r);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Patterns: /v1/match, /v1/patterns, /v1/pieces.                      */

/* GET path; the reply, which must be 200, parsed. */
static json_t *get_ok(const char *path)
{
	http_response r;
	req(&r, "GET", path, NULL, NULL);
	check_json_reply(&r, path, 200, "{}");
	json_t *j = parse(&r, path);
	http_response_free(&r);
	return j;
}

/* Core's answer for the patterns texts[0..np) on facelets (pattern.h):
 * the orientations pattern_match finds, listed as /v1/match lists them;
 * *mask (if not NULL) gets its mask. */
static json_t *core_orientations(const char *const *texts, int np,
				 const char *facelets, int first,
				 uint32_t *mask_out)
{
	size_t len = strlen(facelets);
	int n = cube_size_from_length(len);
	ck_assert_int_gt(n, 0);
	cube_t *c = malloc(cube_sizeof(n));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cube_from_facelets(c, n, facelets, len, NULL),
			 CUBE_OK);
	pattern_t *p[16];
	ck_assert_int_le(np, 16);
	for (int i = 0; i < np; i++) {
		size_t tl = strlen(texts[i]);
		p[i] = malloc(pattern_sizeof(n, texts[i], tl));
		ck_assert_ptr_nonnull(p[i]);
		pattern_error e;
		ck_assert_int_eq(pattern_compile(p[i], n, texts[i], tl, &e),
				 CUBE_OK);
	}
	uint32_t mask = 0;
	int count = pattern_match((const pattern_t *const *)p, (size_t)np, c,
				  first, &mask);
	ck_assert_int_ge(count, 0);
	json_t *list = json_array();
	for (int k = 0; k < 24; k++) {
		if (!(mask >> k & 1))
			continue;
		pattern_orientation o;
		pattern_orientation_of(k, &o);
		char face[2] = {o.face, '\0'};
		json_array_append_new(list, json_pack("{s:s, s:i, s:s}", "face",
						      face, "rotation",
						      (int)o.rotation, "moves",
						      o.moves));
	}
	ck_assert_uint_eq(json_array_size(list), (size_t)count);
	for (int i = 0; i < np; i++)
		free(p[i]);
	free(c);
	if (mask_out)
		*mask_out = mask;
	return list;
}

/* Core's texts of the named pattern (NUL-terminated; the caller frees
 * each). Returns the number of parts. */
static int core_named_texts(int n, const char *name, char **texts)
{
	const pattern_named *pn = pattern_named_find(n, name);
	ck_assert_msg(pn != NULL, "core has no %s for size %d", name, n);
	ck_assert_int_le(pn->nparts, 16);
	size_t places = 6 * (size_t)n * (size_t)n;
	for (int i = 0; i < pn->nparts; i++) {
		texts[i] = malloc(places + 1);
		ck_assert_ptr_nonnull(texts[i]);
		ck_assert_int_eq(pattern_named_text(pn, n, i, texts[i]),
				 CUBE_OK);
		texts[i][places] = '\0';
	}
	return pn->nparts;
}

static void free_texts(char **texts, int np)
{
	for (int i = 0; i < np; i++)
		free(texts[i]);
}

/* /v1/match of a named pattern: its orientations, checked against
 * core's, with and without first. */
static json_t *match_named(const char *facelets, const char *name)
{
	int n = cube_size_from_length(strlen(facelets));
	char *texts[16];
	int np = core_named_texts(n, name, texts);
	json_t *want = core_orientations((const char *const *)texts, np,
					 facelets, 0, NULL);
	json_t *m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets",
						   facelets, "name", name));
	json_t *got = json_object_get(m, "orientations");
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_COMPACT);
		char *w = json_dumps(want, JSON_COMPACT);
		ck_abort_msg("%s on %s: /v1/match says %s, core %s", name,
			     facelets, g, w);
	}
	ck_assert(json_is_boolean(json_object_get(m, "matched")));
	ck_assert_int_eq(json_is_true(json_object_get(m, "matched")),
			 json_array_size(want) > 0);
	/* first: the first of them, or none */
	json_t *m1 = post_ok("/v1/match",
			     json_pack("{s:s, s:s, s:b}", "facelets", facelets,
				       "name", name, "first", 1));
	json_t *o1 = json_object_get(m1, "orientations");
	ck_assert_uint_eq(json_array_size(o1), json_array_size(want) ? 1 : 0);
	if (json_array_size(want))
		ck_assert(json_equal(json_array_get(o1, 0),
				     json_array_get(want, 0)));
	json_decref(m1);
	json_decref(want);
	free_texts(texts, np);
	json_t *out = json_incref(got);
	json_decref(m);
	return out;
}

/* The solved cube fits "solved" in all 24 orientations, listed in
 * pattern_orientation_of's order: face U R F D L B, rotation 0…270. */
START_TEST(match_solved_every_orientation)
{
	json_t *o = match_named(SOLVED3, "solved");
	ck_assert_uint_eq(json_array_size(o), 24);
	for (int k = 0; k < 24; k++) {
		pattern_orientation po;
		pattern_orientation_of(k, &po);
		json_t *e = json_array_get(o, (size_t)k);
		ck_assert_int_eq(str_member(e, "face")[0], "URFDLB"[k / 4]);
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (k % 4));
		ck_assert_str_eq(str_member(e, "moves"), po.moves);
		ck_assert_uint_eq(json_object_size(e), 3);
	}
	json_decref(o);
}
END_TEST

/* R U R' keeps the D cross and no other: exactly the four orientations
 * on D. Each orientation's moves turn the state so that the pattern fits
 * as written (the cross then on U, rotation 0 first). */
START_TEST(match_cross_after_r_u_ri)
{
	json_t *a = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 3,
						   "moves", "R U R'"));
	const char *f = str_member(a, "facelets");
	char *texts[16];
	int np = core_named_texts(3, "cross", texts);
	uint32_t mask = 0;
	json_decref(core_orientations((const char *const *)texts, np, f, 0,
				      &mask));
	free_texts(texts, np);
	ck_assert_uint_eq(mask, 0xfu << 12); /* face D, 0 90 180 270 */
	json_t *o = match_named(f, "cross");
	ck_assert_uint_eq(json_array_size(o), 4);
	size_t i;
	json_t *e;
	json_array_foreach(o, i, e) {
		ck_assert_str_eq(str_member(e, "face"), "D");
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (int)i);
		json_t *t = post_ok("/v1/apply",
				    json_pack("{s:s, s:s}", "facelets", f,
					      "moves", str_member(e, "moves")));
		json_t *back = match_named(str_member(t, "facelets"), "cross");
		json_t *first = json_array_get(back, 0);
		ck_assert_msg(first &&
				      strcmp(str_member(first, "face"), "U") == 0 &&
				      json_integer_value(json_object_get(
					      first, "rotation")) == 0,
			      "after \"%s\" the cross is not on U",
			      str_member(e, "moves"));
		json_decref(back);
		json_decref(t);
	}
	json_decref(o);
	json_decref(a);
}
END_TEST

/* Seed 000's 2×2 example: Sune keeps the D layer, x2 brings it up. The
 * text, the name first_layer and /v1/patterns all agree with core. */
START_TEST(match_seed_2x2)
{
	json_t *a = post_ok("/v1/apply",
			    json_pack("{s:i, s:s}", "size", 2, "moves",
				      "R U R' U R U2 R' x2"));
	const char *f = str_member(a, "facelets");
	json_t *m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets", f,
						   "pattern", SEED2));
	const char *const seed[] = {SEED2};
	json_t *want = core_orientations(seed, 1, f, 0, NULL);
	ck_assert(json_equal(json_object_get(m, "orientations"), want));
	ck_assert_uint_eq(json_array_size(want), 4);
	size_t i;
	json_t *e;
	json_array_foreach(want, i, e) {
		ck_assert_str_eq(str_member(e, "face"), "U");
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (int)i);
	}
	json_t *named = match_named(f, "first_layer");
	ck_assert(json_equal(named, want));
	json_decref(named);
	json_decref(want);
	json_decref(m);
	json_decref(a);

	json_t *list = get_ok("/v1/patterns?size=2");
	json_t *fl = json_array_get(json_object_get(list, "patterns"), 0);
	ck_assert_str_eq(str_member(fl, "name"), "first_layer");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(fl, "parts"), 0)),
			 SEED2);
	json_decref(list);

	/* a scramble has no first layer anywhere */
	a = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 2, "moves",
					   "R U F' R2 U' F R' U2 F2 U' R"));
	m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets",
					   str_member(a, "facelets"),
					   "pattern", SEED2));
	ck_assert(json_is_false(json_object_get(m, "matched")));
	ck_assert_uint_eq(json_array_size(json_object_get(m, "orientations")),
			  0);
	json_decref(m);
	json_decref(a);
}
END_TEST

/* Every named pattern of sizes 1 to 5 on several states: the same
 * orientations as core, in order, with and without first. */
START_TEST(match_named_against_core)
{
	static const char *const scrambles[] = {
		"", "R", "R U R'", "x2 R U R' U'", "(R U R' U')3 F2",
		"R U F' D2 L B' U2 R' F", "Rw U2 Fw' 3Dw L2",
	};
	for (int n = 1; n <= 5; n++)
		for (size_t s = 0; s < sizeof scrambles / sizeof *scrambles;
		     s++) {
			if (n < 3 && strchr(scrambles[s], 'w'))
				continue; /* 3Dw needs three layers */
			json_t *a = post_ok("/v1/apply",
					    json_pack("{s:i, s:s}", "size", n,
						      "moves", scrambles[s]));
			const char *f = str_member(a, "facelets");
			for (int k = 0; k < pattern_named_count(n); k++)
				json_decref(match_named(
					f, pattern_named_at(n, k)->name));
			json_decref(a);
		}
}
END_TEST

/* GET /v1/patterns: core's library, names in order, every part's text. */
START_TEST(patterns_list)
{
	static const int sizes[] = {1, 2, 3, 4, 5, 64};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s];
		char path[64];
		snprintf(path, sizeof path, "/v1/patterns?size=%d", n);
		json_t *j = get_ok(path);
		ck_assert_uint_eq(json_object_size(j), 2);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 n);
		json_t *list = json_object_get(j, "patterns");
		ck_assert_uint_eq(json_array_size(list),
				  (size_t)pattern_named_count(n));
		size_t k;
		json_t *e;
		json_array_foreach(list, k, e) {
			const pattern_named *pn = pattern_named_at(n, (int)k);
			ck_assert_uint_eq(json_object_size(e), 3);
			ck_assert_str_eq(str_member(e, "name"), pn->name);
			ck_assert_str_eq(str_member(e, "description"),
					 pn->description);
			char *texts[16];
			int np = core_named_texts(n, pn->name, texts);
			json_t *parts = json_object_get(e, "parts");
			ck_assert_uint_eq(json_array_size(parts), (size_t)np);
			for (int i = 0; i < np; i++)
				ck_assert_msg(
					strcmp(json_string_value(json_array_get(
						       parts, (size_t)i)),
					       texts[i]) == 0,
					"size %d %s part %d differs", n,
					pn->name, i);
			free_texts(texts, np);
		}
		json_decref(j);
	}

	/* 3×3 names in order, and the cross text as seed 000 numbers it */
	json_t *j = get_ok("/v1/patterns?size=3");
	static const char *const names[] = {"solved", "cross", "first_layer",
					    "f2l", "eo", "oll", "pll"};
	json_t *list = json_object_get(j, "patterns");
	ck_assert_uint_eq(json_array_size(list), 7);
	for (size_t k = 0; k < 7; k++)
		ck_assert_str_eq(str_member(json_array_get(list, k), "name"),
				 names[k]);
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_array_get(list, 1), "parts"),
				 0)),
			 "*1*111*1*" "*3**3****" "*5**5****" "*********"
			 "*4**4****" "*2**2****");
	json_decref(j);
	/* 4×4: parts per pattern */
	j = get_ok("/v1/patterns?size=4&");
	static const int parts4[] = {1, 12, 13, 1};
	list = json_object_get(j, "patterns");
	for (size_t k = 0; k < 4; k++)
		ck_assert_uint_eq(json_array_size(json_object_get(
					  json_array_get(list, k), "parts")),
				  (size_t)parts4[k]);
	json_decref(j);
	/* percent-encoded digits are digits */
	j = get_ok("/v1/patterns?size=%32");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "size")), 2);
	json_decref(j);

	/* HEAD: the GET's headers, no body; OPTIONS: the GET preflight */
	http_response r;
	req(&r, "HEAD", "/v1/patterns?size=3", NULL, NULL);
	ck_assert_msg(r.status == 200, "HEAD /v1/patterns: status %d",
		      r.status);
	ck_assert_uint_eq(r.body_len, 0);
	check_cors(&r, "HEAD /v1/patterns");
	http_response_free(&r);
	req(&r, "OPTIONS", "/v1/patterns", NULL, NULL);
	ck_assert_msg(r.status == 204, "OPTIONS /v1/patterns: status %d",
		      r.status);
	const char *m = http_header(&r, "Access-Control-Allow-Methods");
	ck_assert_msg(m && strcmp(m, "GET, HEAD, OPTIONS") == 0,
		      "OPTIONS /v1/patterns: Access-Control-Allow-Methods %s",
		      m);
	http_response_free(&r);
}
END_TEST

/* Every piece after R, from Kociemba's R: cp[i] is the corner at
 * position i, co[i] its twist; ep likewise (no flips). One piece asked
 * for alone is the same object. */
START_TEST(pieces_after_r)
{
	static const int cp[8] = {4, 1, 2, 0, 7, 5, 6, 3};
	static const int co[8] = {2, 0, 0, 1, 1, 0, 0, 2};
	static const int ep[12] = {8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0};
	static const char *const corners[8] = {"URF", "UFL", "ULB", "UBR",
					       "DFR", "DLF", "DBL", "DRB"};
	static const char *const edges[12] = {"UR", "UF", "UL", "UB",
					      "DR", "DF", "DL", "DB",
					      "FR", "FL", "BL", "BR"};
	static const char *const states[] = {AFTER_R, AFTER_R2X2};
	for (int s = 0; s < 2; s++) {
		int n = s ? 2 : 3;
		json_t *j = post_ok("/v1/pieces",
				    json_pack("{s:s}", "facelets", states[s]));
		ck_assert_uint_eq(json_object_size(j), 1);
		json_t *list = json_object_get(j, "pieces");
		ck_assert_uint_eq(json_array_size(list), n == 3 ? 20 : 8);
		for (int p = 0; p < (n == 3 ? 20 : 8); p++) {
			int edge = p >= 8, id = edge ? p - 8 : p, at = 0;
			const int *perm = edge ? ep : cp;
			while (perm[at] != id)
				at++;
			int ori = edge ? 0 : co[at];
			const char *const *names = edge ? edges : corners;
			json_t *want = json_pack(
				"{s:s, s:s, s:i, s:b, s:b}", "piece", names[id],
				"position", names[at], "orientation", ori,
				"placed", at == id, "oriented", ori == 0);
			json_t *got = json_array_get(list, (size_t)p);
			ck_assert_msg(json_equal(got, want),
				      "%d×%d after R: piece %s differs", n, n,
				      names[id]);
			json_t *one = post_ok("/v1/pieces",
					      json_pack("{s:s, s:s}",
							"facelets", states[s],
							"piece", names[id]));
			ck_assert(json_equal(json_object_get(one, "piece"),
					     want));
			json_decref(one);
			json_decref(want);
		}
		json_decref(j);
	}
}
END_TEST

void http_cube_tests(TCase *tc)
{
	tcase_add_test(tc, validate_broken_cubes_golden);
	tcase_add_test(tc, convert_round_trips);
	tcase_add_test(tc, convert_rotated_cube);
	tcase_add_test(tc, convert_invalid_cubies);
	tcase_add_test(tc, validate_unchecked);
	tcase_add_test(tc, validate_many_problems);
	tcase_add_test(tc, render_cubies);
	tcase_add_test(tc, representation_size_limits);
	tcase_add_test(tc, features_vector);
	tcase_add_test(tc, apply_format_keys);
	tcase_add_test(tc, animation_limit);
	tcase_add_test(tc, apply_size_1024);
	tcase_add_test(tc, match_solved_every_orientation);
	tcase_add_test(tc, match_cross_after_r_u_ri);
	tcase_add_test(tc, match_seed_2x2);
	tcase_add_test(tc, match_named_against_core);
	tcase_add_test(tc, patterns_list);
	tcase_add_test(tc, pieces_after_r);
}
