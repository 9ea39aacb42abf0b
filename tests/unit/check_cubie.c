/* check_cubie.c — the cubie model (core/cubie.c, core/orient.c): face
 * turns against the facelet engine, facelets ⇄ cubies round trips, the
 * group laws of composition and inversion over thousands of random states,
 * the SIMD composition against the plain loops, the same states held in
 * all 24 orientations, and the checks of cubie*_is_valid. Random states
 * come from the facelet engine (cube_turn, alg_parse + alg_apply), so the
 * cubie code is held to the engine, not to itself. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cubie.h"
#include "cubie_internal.h"
#include "cube_helpers.h"
#include "suites.h"

static const char SOLVED3[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
static const char SOLVED2[] = "UUUURRRRFFFFDDDDLLLLBBBB";

/* Face f (U R F D L B), qt quarter turns clockwise seen from that face, on
 * the engine: D, L, B are the far layers of y, x, z, turned the other way. */
static void engine_face_turn(cube_t *c, int face, int qt)
{
	static const int axis[6] = {CUBE_Y, CUBE_X, CUBE_Z,
				    CUBE_Y, CUBE_X, CUBE_Z};
	int layer = face >= 3 ? c->n - 1 : 0;
	ck_assert_int_eq(cube_turn(c, axis[face], layer, layer,
				   face >= 3 ? 4 - qt : qt),
			 CUBE_OK);
}

static void apply_alg(cube_t *c, const char *s, int inverse)
{
	static alg_node nodes[512];
	alg_t a;
	alg_error e;
	size_t len = strlen(s);
	ck_assert_uint_lt(alg_nodes_needed(len), 512);
	ck_assert_msg(alg_parse(&a, nodes, 512, c->n, s, len, NULL, &e) ==
			      CUBE_OK,
		      "\"%s\": %s", s, cube_errname(e.code));
	ck_assert_int_eq(alg_apply(&a, c, inverse), CUBE_OK);
}

/* A random face-turn sequence as text (for alg_parse) and as cubies; the
 * 2×2 cubies as composed, not normalised. */
static void random_alg(int moves, char *text, cubie3 *c3, cubie2 *c2)
{
	static const char *const amount[3] = {"", "2", "'"};
	char *p = text;
	if (c3)
		cubie3_solved(c3);
	if (c2)
		cubie2_solved(c2);
	for (int k = 0; k < moves; k++) {
		int f = (int)rnd(6), a = (int)rnd(3), qt = a + 1;
		p += sprintf(p, "%s%c%s", k ? " " : "", "URFDLB"[f], amount[a]);
		if (c3) {
			cubie3 t;
			ck_assert_int_eq(cubie3_face_turn(f, qt, &t), CUBE_OK);
			cubie3_compose(c3, &t, c3);
		}
		if (c2) {
			cubie2 t;
			ck_assert_int_eq(cubie2_face_turn(f, qt, &t), CUBE_OK);
			cubie2_compose(c2, &t, c2);
		}
	}
	*p = '\0';
}

static void facelets_of(const cube_t *c, char *out)
{
	size_t len = 6u * (size_t)c->n * (size_t)c->n;
	cube_to_facelets(c, out);
	out[len] = '\0';
}

static void random_cubie3(cubie3 *c)
{
	char text[512];
	random_alg(10 + (int)rnd(30), text, c, NULL);
}

/* -------------------------------------------------------------- basics */

START_TEST(solved_is_identity)
{
	cubie3 s, t, u;
	char f[55] = {0};
	cubie3_solved(&s);
	cube3_to_facelets(&s, f);
	ck_assert_str_eq(f, SOLVED3);
	ck_assert_int_eq(cubie3_is_valid(&s), 1);
	cube_orientation o;
	memset(&o, 'x', sizeof o);
	ck_assert_int_eq(cube3_from_facelets(SOLVED3, 54, &t, &o), CUBE_OK);
	ck_assert(cubie3_equal(&s, &t));
	ck_assert_int_eq(o.up, 'U');
	ck_assert_int_eq(o.front, 'F');
	ck_assert_str_eq(o.moves, "");
	/* solved ∘ x = x ∘ solved = x */
	rnd_seed(1);
	random_cubie3(&t);
	cubie3_compose(&s, &t, &u);
	ck_assert(cubie3_equal(&u, &t));
	cubie3_compose(&t, &s, &u);
	ck_assert(cubie3_equal(&u, &t));
	/* orient may be NULL */
	ck_assert_int_eq(cube3_from_facelets(SOLVED3, 54, &t, NULL), CUBE_OK);

	cubie2 s2, t2;
	char f2[25] = {0};
	cubie2_solved(&s2);
	cube2_to_facelets(&s2, f2);
	ck_assert_str_eq(f2, SOLVED2);
	ck_assert_int_eq(cubie2_is_valid(&s2), 1);
	ck_assert_int_eq(cube2_from_facelets(SOLVED2, 24, &t2, &o), CUBE_OK);
	ck_assert(cubie2_equal(&s2, &t2));
	ck_assert_int_eq(o.up, 'U');
	ck_assert_int_eq(o.front, 'F');
	ck_assert_str_eq(o.moves, "");
	ck_assert_uint_eq(sizeof(cubie3), 40);
	ck_assert_uint_eq(sizeof(cubie2), 16);
}
END_TEST

/* The sticker readers against the piece tables, for every colour triple
 * and pair: a corner is read with its twist wherever its U/D colour is. */
START_TEST(piece_readers)
{
	int corners = 0, edges = 0;
	for (int a = -1; a < 7; a++) {
		for (int b = -1; b < 7; b++) {
			int want = -1;
			for (int j = 0; j < 12; j++)
				for (int f = 0; f < 2; f++)
					if (cubie__edge_color[j][f] == a &&
					    cubie__edge_color[j][1 - f] == b)
						want = j * 2 + f;
			ck_assert_int_eq(cubie__edge_of(a, b), want);
			edges += want >= 0;
			for (int c = -1; c < 7; c++) {
				const int col[3] = {a, b, c};
				want = -1;
				for (int j = 0; j < 8; j++)
					for (int t = 0; t < 3; t++)
						if (cubie__corner_color[j][0] == col[t] &&
						    cubie__corner_color[j][1] == col[(t + 1) % 3] &&
						    cubie__corner_color[j][2] == col[(t + 2) % 3])
							want = j * 3 + t;
				ck_assert_int_eq(cubie__corner_of(a, b, c), want);
				corners += want >= 0;
			}
		}
	}
	ck_assert_int_eq(corners, 24);
	ck_assert_int_eq(edges, 24);
}
END_TEST

/* Seed 001's example: compose reads a's entry at b's position. */
START_TEST(compose_convention)
{
	cubie3 a, b, out;
	cubie3_solved(&a);
	cubie3_solved(&b);
	a.ep[0] = 1, a.ep[1] = 0;              /* edges 0 and 1 swapped */
	b.ep[0] = 2, b.ep[2] = 0;              /* edges 0 and 2 swapped */
	a.cp[0] = 1, a.cp[1] = 0, a.co[0] = 1, a.co[1] = 2;
	b.cp[0] = 1, b.cp[1] = 0, b.co[0] = 2, b.co[1] = 1;
	cubie3_compose(&a, &b, &out);
	ck_assert_int_eq(out.ep[0], 2);        /* a.ep[b.ep[0]] = a.ep[2] */
	ck_assert_int_eq(out.ep[1], 0);
	ck_assert_int_eq(out.ep[2], 1);
	ck_assert_int_eq(out.cp[0], 0);        /* a.cp[1] */
	ck_assert_int_eq(out.co[0], (2 + 2) % 3); /* a.co[b.cp[0]] + b.co[0] */
	ck_assert_int_eq(out.co[1], (1 + 1) % 3);
}
END_TEST

START_TEST(face_turns_match_engine)
{
	for (int n = 2; n <= 3; n++) {
		cube_t *c = new_cube(n);
		for (int f = 0; f < 6; f++) {
			for (int qt = 1; qt <= 3; qt++) {
				char s[55], back[55] = {0};
				cube_init(c, n);
				engine_face_turn(c, f, qt);
				facelets_of(c, s);
				if (n == 3) {
					cubie3 want, got;
					ck_assert_int_eq(cubie3_face_turn(f, qt, &want), CUBE_OK);
					ck_assert_int_eq(cube3_from_facelets(s, 54, &got, NULL),
							 CUBE_OK);
					ck_assert_msg(cubie3_equal(&want, &got), "%c%d",
						      "URFDLB"[f], qt);
					cube3_to_facelets(&want, back);
					ck_assert_str_eq(back, s);
					ck_assert_int_eq(cubie3_is_valid(&want), 1);
				} else {
					cubie2 want, got;
					ck_assert_int_eq(cubie2_face_turn(f, qt, &want), CUBE_OK);
					cube2_to_facelets(&want, back);
					back[24] = '\0';
					ck_assert_str_eq(back, s);
					/* D, L, B move DBL: compare in normal form */
					ck_assert_int_eq(cubie2_is_valid(&want), f < 3);
					ck_assert_int_eq(cubie2_normalize(&want, &want), CUBE_OK);
					ck_assert_int_eq(cube2_from_facelets(s, 24, &got, NULL),
							 CUBE_OK);
					ck_assert_msg(cubie2_equal(&want, &got), "%c%d",
						      "URFDLB"[f], qt);
					ck_assert_int_eq(cubie2_is_valid(&want), 1);
				}
			}
		}
		free(c);
	}
}
END_TEST

START_TEST(face_turn_arguments)
{
	cubie3 a, b;
	cubie2 a2;
	ck_assert_int_eq(cubie3_face_turn(-1, 1, &a), CUBE_EINVAL);
	ck_assert_int_eq(cubie3_face_turn(6, 1, &a), CUBE_EINVAL);
	ck_assert_int_eq(cubie3_face_turn(0, 1, NULL), CUBE_EINVAL);
	ck_assert_int_eq(cubie2_face_turn(6, 1, &a2), CUBE_EINVAL);
	ck_assert_int_eq(cubie2_face_turn(0, 1, NULL), CUBE_EINVAL);
	/* amounts reduce mod 4, as cube_turn's do */
	ck_assert_int_eq(cubie3_face_turn(1, 4, &a), CUBE_OK);
	cubie3_solved(&b);
	ck_assert(cubie3_equal(&a, &b));
	ck_assert_int_eq(cubie3_face_turn(1, -1, &a), CUBE_OK);
	cubie3_face_turn(1, 3, &b);
	ck_assert(cubie3_equal(&a, &b));
	/* R⁴ = solved, and R R R = R' */
	cubie3 r, t;
	cubie3_face_turn(1, 1, &r);
	cubie3_solved(&t);
	for (int k = 0; k < 3; k++)
		cubie3_compose(&t, &r, &t);
	ck_assert(cubie3_equal(&t, &b));
	cubie3_compose(&t, &r, &t);
	cubie3_solved(&b);
	ck_assert(cubie3_equal(&t, &b));
}
END_TEST

/* ------------------------------------------------- properties: 3×3, 2×2 */

/* facelets after random moves (parsed and applied by the engine) →
 * cubies equal to composing the face-turn cubies, and back to the same
 * facelets. */
START_TEST(random_states_3x3)
{
	rnd_seed(3);
	cube_t *c = new_cube(3);
	for (int k = 0; k < 3000; k++) {
		char text[512], s[55], back[55] = {0};
		cubie3 want, got;
		random_alg((int)rnd(40), text, &want, NULL);
		cube_init(c, 3);
		apply_alg(c, text, 0);
		facelets_of(c, s);
		ck_assert_int_eq(cube3_from_facelets(s, 54, &got, NULL), CUBE_OK);
		ck_assert_msg(cubie3_equal(&want, &got), "%s", text);
		ck_assert_int_eq(cubie3_is_valid(&got), 1);
		cube3_to_facelets(&got, back);
		ck_assert_str_eq(back, s);
	}
	free(c);
}
END_TEST

/* The same for 2×2, where D, L, B turns move DBL: the facelets are those
 * of the composed cubies, and cube2_from_facelets gives them normalised
 * (the cube turned back to DBL home, which the orientation's moves do). */
START_TEST(random_states_2x2)
{
	rnd_seed(4);
	cube_t *c = new_cube(2);
	for (int k = 0; k < 3000; k++) {
		char text[512], s[25], back[25] = {0};
		cubie2 want, got, again;
		cube_orientation o;
		random_alg((int)rnd(30), text, NULL, &want);
		cube_init(c, 2);
		apply_alg(c, text, 0);
		facelets_of(c, s);
		cube2_to_facelets(&want, back);
		ck_assert_str_eq(back, s);
		ck_assert_int_eq(cubie2_normalize(&want, &want), CUBE_OK);
		ck_assert_int_eq(cube2_from_facelets(s, 24, &got, &o), CUBE_OK);
		ck_assert_msg(cubie2_equal(&want, &got), "%s", text);
		ck_assert_int_eq(cubie2_is_valid(&got), 1);
		cube2_to_facelets(&got, back);
		apply_alg(c, o.moves, 0);
		facelets_of(c, s);
		ck_assert_msg(strcmp(back, s) == 0, "%s / %s", text, o.moves);
		ck_assert_int_eq(cube2_from_facelets(back, 24, &again, &o), CUBE_OK);
		ck_assert(cubie2_equal(&again, &got));
		ck_assert_str_eq(o.moves, "");
	}
	free(c);
}
END_TEST

/* compose(a, b) is a's moves then b's, read from the engine both ways;
 * associativity; aliasing. */
START_TEST(compose_is_sequencing)
{
	rnd_seed(5);
	cube_t *c = new_cube(3);
	cube_t *c2 = new_cube(2);
	for (int k = 0; k < 2000; k++) {
		char ta[512], tb[512], s[55], back[55] = {0};
		cubie3 a, b, d, ab, got, x, y;
		cubie2 a2, b2, ab2, got2;
		random_alg((int)rnd(25), ta, &a, &a2);
		random_alg((int)rnd(25), tb, &b, &b2);
		cube_init(c, 3);
		apply_alg(c, ta, 0);
		apply_alg(c, tb, 0);
		facelets_of(c, s);
		cubie3_compose(&a, &b, &ab);
		ck_assert_int_eq(cube3_from_facelets(s, 54, &got, NULL), CUBE_OK);
		ck_assert_msg(cubie3_equal(&ab, &got), "%s | %s", ta, tb);
		cube3_to_facelets(&ab, back);
		ck_assert_str_eq(back, s);

		cube_init(c2, 2);
		apply_alg(c2, ta, 0);
		apply_alg(c2, tb, 0);
		facelets_of(c2, s);
		cubie2_compose(&a2, &b2, &ab2);
		ck_assert_int_eq(cubie2_normalize(&ab2, &ab2), CUBE_OK);
		ck_assert_int_eq(cube2_from_facelets(s, 24, &got2, NULL), CUBE_OK);
		ck_assert_msg(cubie2_equal(&ab2, &got2), "%s | %s", ta, tb);

		/* (a b) d = a (b d) */
		random_cubie3(&d);
		cubie3_compose(&ab, &d, &x);
		cubie3_compose(&b, &d, &y);
		cubie3_compose(&a, &y, &y);
		ck_assert(cubie3_equal(&x, &y));
		/* out aliasing a, then b */
		x = a;
		cubie3_compose(&x, &b, &x);
		ck_assert(cubie3_equal(&x, &ab));
		x = b;
		cubie3_compose(&a, &x, &x);
		ck_assert(cubie3_equal(&x, &ab));
		/* a state composed with itself */
		cubie3_compose(&a, &a, &x);
		y = a;
		cubie3_compose(&y, &y, &y);
		ck_assert(cubie3_equal(&x, &y));
	}
	free(c);
	free(c2);
}
END_TEST

START_TEST(invert_laws)
{
	rnd_seed(6);
	cube_t *c = new_cube(3);
	cubie3 id;
	cubie2 id2;
	cubie3_solved(&id);
	cubie2_solved(&id2);
	for (int k = 0; k < 2000; k++) {
		char text[512], s[55];
		cubie3 a, inv, t, got;
		cubie2 a2, inv2, t2;
		random_alg((int)rnd(30), text, &a, &a2);
		cubie3_invert(&a, &inv);
		cubie3_compose(&a, &inv, &t);
		ck_assert(cubie3_equal(&t, &id));
		cubie3_compose(&inv, &a, &t);
		ck_assert(cubie3_equal(&t, &id));
		ck_assert_int_eq(cubie3_is_valid(&inv), 1);
		cubie3_invert(&inv, &t);
		ck_assert(cubie3_equal(&t, &a));
		/* the inverse is the algorithm run backwards on the engine */
		cube_init(c, 3);
		apply_alg(c, text, 1);
		facelets_of(c, s);
		ck_assert_int_eq(cube3_from_facelets(s, 54, &got, NULL), CUBE_OK);
		ck_assert(cubie3_equal(&got, &inv));
		/* in place */
		t = a;
		cubie3_invert(&t, &t);
		ck_assert(cubie3_equal(&t, &inv));

		ck_assert_int_eq(cubie2_normalize(&a2, &a2), CUBE_OK);
		cubie2_invert(&a2, &inv2);
		cubie2_compose(&a2, &inv2, &t2);
		ck_assert(cubie2_equal(&t2, &id2));
		cubie2_compose(&inv2, &a2, &t2);
		ck_assert(cubie2_equal(&t2, &id2));
		ck_assert_int_eq(cubie2_is_valid(&inv2), 1);
		t2 = a2;
		cubie2_invert(&t2, &t2);
		ck_assert(cubie2_equal(&t2, &inv2));
	}
	free(c);
}
END_TEST

/* The shuffle version against the loops, on valid states and on any
 * bytes within range (all permutations are not reachable states, but the
 * formula is the same). */
START_TEST(simd_matches_scalar)
{
	rnd_seed(7);
	cubie3 a, b, x, y;
	cubie2 a2, b2, x2, y2;
	cubie3_solved(&a);
	if (!cubie__compose3_simd(&a, &a, &x))
		return; /* no SSSE3 here: nothing to compare */
	for (int k = 0; k < 20000; k++) {
		if (k % 2) {
			random_cubie3(&a);
			random_cubie3(&b);
		} else {
			for (int i = 0; i < 8; i++) {
				a.cp[i] = (uint8_t)rnd(8), b.cp[i] = (uint8_t)rnd(8);
				a.co[i] = (uint8_t)rnd(3), b.co[i] = (uint8_t)rnd(3);
			}
			for (int i = 0; i < 12; i++) {
				a.ep[i] = (uint8_t)rnd(12), b.ep[i] = (uint8_t)rnd(12);
				a.eo[i] = (uint8_t)rnd(2), b.eo[i] = (uint8_t)rnd(2);
			}
		}
		memcpy(a2.cp, a.cp, 8), memcpy(a2.co, a.co, 8);
		memcpy(b2.cp, b.cp, 8), memcpy(b2.co, b.co, 8);
		cubie__compose3_scalar(&a, &b, &x);
		ck_assert_int_eq(cubie__compose3_simd(&a, &b, &y), 1);
		ck_assert(cubie3_equal(&x, &y));
		cubie__compose2_scalar(&a2, &b2, &x2);
		ck_assert_int_eq(cubie__compose2_simd(&a2, &b2, &y2), 1);
		ck_assert(cubie2_equal(&x2, &y2));
		/* aliasing in the SIMD version */
		y = a;
		cubie__compose3_simd(&y, &b, &y);
		ck_assert(cubie3_equal(&x, &y));
		y = b;
		cubie__compose3_simd(&a, &y, &y);
		ck_assert(cubie3_equal(&x, &y));
	}
}
END_TEST

/* ---------------------------------------------------------- orientations */

/* The 24 orientations built without orient.c's table: each face on top
 * (none, x, x2, x', z, z'), then each turn about the vertical. */
static void orientation_alg(int k, char *out)
{
	static const char *const up[6] = {"", "x", "x2", "x'", "z", "z'"};
	static const char *const turn[4] = {"", "y", "y2", "y'"};
	sprintf(out, "%s %s", up[k / 4], turn[k % 4]);
}

static int tokens(const char *s)
{
	int count = 0;
	for (const char *p = s; *p; p++)
		if (*p != ' ' && (p == s || p[-1] == ' '))
			count++;
	return count;
}

START_TEST(all_orientations_3x3)
{
	rnd_seed(8);
	cube_t *c = new_cube(3);
	char seen[24][3];
	for (int k = 0; k < 400; k++) {
		char text[512], std[55], given[55], rot[32];
		cubie3 want, got;
		random_alg((int)rnd(30), text, &want, NULL);
		cube_init(c, 3);
		apply_alg(c, text, 0);
		facelets_of(c, std);
		for (int r = 0; r < 24; r++) {
			cube_orientation o;
			orientation_alg(r, rot);
			apply_alg(c, rot, 0);
			facelets_of(c, given);
			ck_assert_int_eq(cube3_from_facelets(given, 54, &got, &o),
					 CUBE_OK);
			ck_assert_msg(cubie3_equal(&got, &want), "%s / %s", text, rot);
			ck_assert_int_eq(o.up, given[4]);
			ck_assert_int_eq(o.front, given[22]);
			apply_alg(c, o.moves, 0);
			facelets_of(c, given);
			ck_assert_msg(strcmp(given, std) == 0, "%s / %s: %s", text,
				      rot, o.moves);
			ck_assert_int_le(tokens(o.moves), 2);
			if (k == 0) {
				seen[r][0] = o.up, seen[r][1] = o.front;
				seen[r][2] = 0;
			}
		}
	}
	/* 24 different (up, front) pairs */
	for (int i = 0; i < 24; i++)
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(seen[i], seen[j]);
	free(c);
}
END_TEST

/* The moves are a shortest sequence: one rotation (or none) wherever one
 * suffices, and none only for the standard orientation. */
START_TEST(orientation_moves_are_shortest)
{
	static const char *const single[9] = {"x", "x2", "x'", "y", "y2",
					      "y'", "z", "z2", "z'"};
	cube_t *c = new_cube(3);
	char rot[32], given[55], f[55];
	int by_length[3] = {0};
	for (int r = 0; r < 24; r++) {
		cube_orientation o;
		cubie3 got;
		cube_init(c, 3);
		orientation_alg(r, rot);
		apply_alg(c, rot, 0);
		facelets_of(c, given);
		ck_assert_int_eq(cube3_from_facelets(given, 54, &got, &o), CUBE_OK);
		int one = 0;
		for (int k = 0; k < 9; k++) {
			cube_from_facelets(c, 3, given, 54, NULL);
			apply_alg(c, single[k], 0);
			facelets_of(c, f);
			one |= strcmp(f, SOLVED3) == 0;
		}
		int len = tokens(o.moves);
		by_length[len]++;
		ck_assert_int_eq(len == 0, strcmp(given, SOLVED3) == 0);
		if (one)
			ck_assert_int_le(len, 1);
	}
	ck_assert_int_eq(by_length[0], 1);
	ck_assert_int_eq(by_length[1], 9);
	ck_assert_int_eq(by_length[2], 14);
	free(c);
}
END_TEST

/* A 2×2 has no centers: its orientation is the one that brings DBL home,
 * and up/front are the colours a solved cube held that way shows. */
START_TEST(all_orientations_2x2)
{
	rnd_seed(9);
	cube_t *c = new_cube(2);
	cube_t *solved = new_cube(2);
	for (int k = 0; k < 400; k++) {
		char text[512], std[25], given[25], rot[32], sf[25];
		cubie2 want, got;
		random_alg((int)rnd(30), text, NULL, &want);
		ck_assert_int_eq(cubie2_normalize(&want, &want), CUBE_OK);
		cube2_to_facelets(&want, std);
		std[24] = '\0';
		for (int r = 0; r < 24; r++) {
			cube_orientation o;
			orientation_alg(r, rot);
			cube_from_facelets(c, 2, std, 24, NULL);
			apply_alg(c, rot, 0);
			facelets_of(c, given);
			cube_init(solved, 2);
			apply_alg(solved, rot, 0);
			facelets_of(solved, sf);
			ck_assert_int_eq(cube2_from_facelets(given, 24, &got, &o),
					 CUBE_OK);
			ck_assert_msg(cubie2_equal(&got, &want), "%s / %s", text, rot);
			ck_assert_int_eq(o.up, sf[0]);
			ck_assert_int_eq(o.front, sf[8]);
			apply_alg(c, o.moves, 0);
			facelets_of(c, given);
			ck_assert_str_eq(given, std);
		}
	}
	free(c);
	free(solved);
}
END_TEST

/* Normalising is turning the whole cube: it fixes normal forms, gives the
 * same state for the cube held any way, and cannot be done per turn
 * (D then R is U then F once turned back, not U then R). */
START_TEST(normalize_2x2)
{
	rnd_seed(10);
	cube_t *c = new_cube(2);
	cubie2 a, n, m, d, r;
	char s[25], rot[32];
	for (int k = 0; k < 500; k++) {
		char text[512];
		random_alg((int)rnd(30), text, NULL, &a);
		ck_assert_int_eq(cubie2_normalize(&a, &n), CUBE_OK);
		ck_assert_int_eq(cubie2_is_valid(&n), 1);
		ck_assert_int_eq(cubie2_normalize(&n, &m), CUBE_OK);
		ck_assert(cubie2_equal(&n, &m));
		for (int r24 = 0; r24 < 24; r24 += 5) {
			orientation_alg(r24, rot);
			cube_init(c, 2);
			apply_alg(c, text, 0);
			apply_alg(c, rot, 0);
			facelets_of(c, s);
			ck_assert_int_eq(cube2_from_facelets(s, 24, &m, NULL), CUBE_OK);
			ck_assert(cubie2_equal(&n, &m));
		}
		m = a; /* in place */
		ck_assert_int_eq(cubie2_normalize(&m, &m), CUBE_OK);
		ck_assert(cubie2_equal(&n, &m));
	}
	cubie2_face_turn(CUBE_D, 1, &d);
	cubie2_face_turn(CUBE_R, 1, &r);
	cubie2_compose(&d, &r, &a);
	cubie2_normalize(&a, &n);
	cubie2_face_turn(CUBE_U, 1, &d);
	cubie2_face_turn(CUBE_F, 1, &r);
	cubie2_compose(&d, &r, &m);
	ck_assert(cubie2_equal(&n, &m));

	memset(&a, 0, sizeof a); /* not a permutation */
	n = m;
	ck_assert_int_eq(cubie2_normalize(&a, &n), CUBE_EINVALID);
	ck_assert(cubie2_equal(&n, &m));
	cubie2_solved(&a);
	a.co[0] = 1;
	ck_assert_int_eq(cubie2_normalize(&a, &n), CUBE_EINVALID);
	ck_assert_int_eq(cubie2_normalize(NULL, &n), CUBE_EINVAL);
	free(c);
}
END_TEST

/* ---------------------------------------------------------- is_valid */

START_TEST(is_valid_rejects)
{
	cubie3 s, t;
	cubie3_solved(&s);
	t = s, t.co[3] = 1;                   /* one corner twisted */
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t.co[5] = 2;                           /* and twisted back */
	ck_assert_int_eq(cubie3_is_valid(&t), 1);
	t = s, t.eo[7] = 1;                   /* one edge flipped */
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t.eo[2] = 1;
	ck_assert_int_eq(cubie3_is_valid(&t), 1);
	t = s, t.ep[0] = 1, t.ep[1] = 0;      /* two edges swapped */
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t.cp[0] = 1, t.cp[1] = 0;              /* and two corners */
	ck_assert_int_eq(cubie3_is_valid(&t), 1);
	t = s, t.cp[0] = 1;                   /* not a permutation */
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t = s, t.ep[11] = 12;
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t = s, t.co[0] = 3, t.co[1] = 0;      /* twist out of range */
	ck_assert_int_eq(cubie3_is_valid(&t), 0);
	t = s, t.eo[0] = 2;
	ck_assert_int_eq(cubie3_is_valid(&t), 0);

	cubie2 s2, t2;
	cubie2_solved(&s2);
	t2 = s2, t2.cp[0] = 1, t2.cp[1] = 0; /* any corner parity is fine */
	ck_assert_int_eq(cubie2_is_valid(&t2), 1);
	t2 = s2, t2.co[0] = 1;
	ck_assert_int_eq(cubie2_is_valid(&t2), 0);
	t2 = s2, t2.cp[6] = 7, t2.cp[7] = 6;  /* DBL away from home */
	ck_assert_int_eq(cubie2_is_valid(&t2), 0);
	t2 = s2, t2.co[6] = 1, t2.co[0] = 2;  /* DBL twisted at home */
	ck_assert_int_eq(cubie2_is_valid(&t2), 0);
	t2 = s2, t2.cp[2] = 9;
	ck_assert_int_eq(cubie2_is_valid(&t2), 0);
}
END_TEST

/* Illegal facelets fail with CUBE_EINVALID (cube_validate says why) and
 * leave the outputs alone. */
START_TEST(from_facelets_rejects)
{
	cubie3 out, before;
	cubie2 out2;
	cube_orientation o, obefore;
	char s[64];
	memset(&out, 0x55, sizeof out);
	memset(&o, 0x55, sizeof o);
	before = out;
	obefore = o;
	ck_assert_int_eq(cube3_from_facelets(SOLVED3, 53, &out, &o), CUBE_EINVALID);
	ck_assert_int_eq(cube3_from_facelets(SOLVED2, 24, &out, &o), CUBE_EINVALID);
	ck_assert_int_eq(cube3_from_facelets("", 0, &out, &o), CUBE_EINVALID);
	strcpy(s, SOLVED3);
	s[10] = 'x';
	ck_assert_int_eq(cube3_from_facelets(s, 54, &out, &o), CUBE_EINVALID);
	strcpy(s, SOLVED3);
	s[8] = 'R', s[9] = 'F', s[20] = 'U'; /* URF twisted in place */
	ck_assert_int_eq(cube3_from_facelets(s, 54, &out, &o), CUBE_EINVALID);
	strcpy(s, SOLVED3);
	s[4] = 'F', s[22] = 'U';             /* two centers swapped */
	ck_assert_int_eq(cube3_from_facelets(s, 54, &out, &o), CUBE_EINVALID);
	ck_assert(memcmp(&out, &before, sizeof out) == 0);
	ck_assert(memcmp(&o, &obefore, sizeof o) == 0);
	ck_assert_int_eq(cube3_from_facelets(NULL, 54, &out, &o), CUBE_EINVAL);
	ck_assert_int_eq(cube3_from_facelets(SOLVED3, 54, NULL, &o), CUBE_EINVAL);

	ck_assert_int_eq(cube2_from_facelets(SOLVED3, 54, &out2, &o), CUBE_EINVALID);
	strcpy(s, SOLVED2);
	s[3] = 'F', s[4] = 'U', s[9] = 'R';  /* URF (3, 4, 9) twisted in place */
	ck_assert_int_eq(cube2_from_facelets(s, 24, &out2, &o), CUBE_EINVALID);
	ck_assert_int_eq(cube2_from_facelets(NULL, 0, &out2, &o), CUBE_EINVALID);
	ck_assert_int_eq(cube2_from_facelets(SOLVED2, 24, NULL, &o), CUBE_EINVAL);
	ck_assert(memcmp(&o, &obefore, sizeof o) == 0);
}
END_TEST

Suite *cubie_suite(void)
{
	Suite *s = suite_create("cubie");
	TCase *tc = tcase_create("basics");
	tcase_add_test(tc, solved_is_identity);
	tcase_add_test(tc, piece_readers);
	tcase_add_test(tc, compose_convention);
	tcase_add_test(tc, face_turns_match_engine);
	tcase_add_test(tc, face_turn_arguments);
	tcase_add_test(tc, is_valid_rejects);
	tcase_add_test(tc, from_facelets_rejects);
	suite_add_tcase(s, tc);

	tc = tcase_create("properties");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, random_states_3x3);
	tcase_add_test(tc, random_states_2x2);
	tcase_add_test(tc, compose_is_sequencing);
	tcase_add_test(tc, invert_laws);
	tcase_add_test(tc, simd_matches_scalar);
	suite_add_tcase(s, tc);

	tc = tcase_create("orientations");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, all_orientations_3x3);
	tcase_add_test(tc, orientation_moves_are_shortest);
	tcase_add_test(tc, all_orientations_2x2);
	tcase_add_test(tc, normalize_2x2);
	suite_add_tcase(s, tc);
	return s;
}
