/* check_cube.c — the n×n×n engine (core/cube.c): solved states, the
 * facelets reader and writer, argument checks, the 3×3 fast-path tables
 * against the generic code, lazy face rotation against eager reference
 * turns, group laws per turn, and 3×3 states against cubejs goldens. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cube_internal.h"
#include "golden.h"
#include "cube_helpers.h"
#include "suites.h"

static const char SOLVED3[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

static void random_move(int n, cube_move *m)
{
	int lo = (int)rnd((uint32_t)n), hi = (int)rnd((uint32_t)n);
	if (lo > hi) {
		int t = lo;
		lo = hi;
		hi = t;
	}
	m->axis = (uint8_t)rnd(3);
	m->lo = (uint16_t)lo;
	m->hi = (uint16_t)hi;
	m->qt = (uint8_t)rnd(4);
}

START_TEST(solved_facelets)
{
	cube_t *c = new_cube(3);
	char *s = facelets(c);
	ck_assert_str_eq(s, SOLVED3);
	ck_assert_int_eq(cube_is_solved(c), 1);
	free(s);
	free(c);

	for (int n = 1; n <= 6; n++) {
		c = new_cube(n);
		s = facelets(c);
		size_t nn = (size_t)n * n;
		for (size_t k = 0; k < 6 * nn; k++)
			ck_assert_int_eq(s[k], "URFDLB"[k / nn]);
		free(s);
		free(c);
	}
}
END_TEST

START_TEST(sizes)
{
	ck_assert_uint_eq(cube_sizeof(0), 0);
	ck_assert_uint_eq(cube_sizeof(1025), 0);
	ck_assert_uint_ge(cube_sizeof(3), sizeof(cube_t) + 54);
	ck_assert_int_eq(cube_size_from_length(6), 1);
	ck_assert_int_eq(cube_size_from_length(24), 2);
	ck_assert_int_eq(cube_size_from_length(54), 3);
	ck_assert_int_eq(cube_size_from_length(6u * 1024 * 1024), 1024);
	ck_assert_int_eq(cube_size_from_length(6u * 1025 * 1025), CUBE_ELENGTH);
	ck_assert_int_eq(cube_size_from_length(0), CUBE_ELENGTH);
	ck_assert_int_eq(cube_size_from_length(53), CUBE_ELENGTH);
	ck_assert_int_eq(cube_size_from_length(60), CUBE_ELENGTH);
	cube_t c;
	ck_assert_int_eq(cube_init(&c, 0), CUBE_ESIZE);
	ck_assert_int_eq(cube_init(&c, 1025), CUBE_ESIZE);
}
END_TEST

START_TEST(facelets_reader)
{
	cube_t *c = new_cube(3);
	size_t bad = 99;
	char s[64];

	/* Wrong length: *bad is the length, c untouched. */
	ck_assert_int_eq(cube_from_facelets(c, 0, SOLVED3, 53, &bad),
			 CUBE_ELENGTH);
	ck_assert_uint_eq(bad, 53);
	/* Right length for n = 2 but n = 3 demanded. */
	ck_assert_int_eq(cube_from_facelets(c, 3, SOLVED3, 24, &bad),
			 CUBE_ELENGTH);
	/* A bad letter: its offset. */
	memcpy(s, SOLVED3, 55);
	s[17] = 'X';
	ck_assert_int_eq(cube_from_facelets(c, 0, s, 54, &bad), CUBE_ELETTER);
	ck_assert_uint_eq(bad, 17);
	s[17] = 'r'; /* lowercase is not a face letter */
	ck_assert_int_eq(cube_from_facelets(c, 3, s, 54, &bad), CUBE_ELETTER);
	ck_assert_uint_eq(bad, 17);
	s[17] = '\0';
	ck_assert_int_eq(cube_from_facelets(c, 3, s, 54, &bad), CUBE_ELETTER);
	ck_assert_int_eq(cube_is_solved(c), 1); /* unchanged by failures */
	ck_assert_int_eq(cube_from_facelets(c, 0, SOLVED3, 54, NULL), CUBE_OK);
	ck_assert_int_eq(c->n, 3);
	free(c);
}
END_TEST

START_TEST(facelets_round_trip)
{
	rnd_seed(7);
	for (int n = 1; n <= 9; n++) {
		cube_t *c = new_cube(n), *d = new_cube(n);
		for (int k = 0; k < 200; k++) {
			cube_move m;
			random_move(n, &m);
			cube_turn(c, m.axis, m.lo, m.hi, m.qt);
		}
		char *s = facelets(c);
		ck_assert_int_eq(cube_from_facelets(d, n, s, strlen(s), NULL),
				 CUBE_OK);
		ck_assert_int_eq(cube_equal(c, d), 1);
		char *t = facelets(d);
		ck_assert_str_eq(s, t);
		free(s);
		free(t);
		free(c);
		free(d);
	}
}
END_TEST

START_TEST(turn_argument_checks)
{
	cube_t *c = new_cube(4);
	ck_assert_int_eq(cube_turn(c, 3, 0, 0, 1), CUBE_EINVAL);
	ck_assert_int_eq(cube_turn(c, -1, 0, 0, 1), CUBE_EINVAL);
	ck_assert_int_eq(cube_turn(c, 0, 2, 1, 1), CUBE_EINVAL);
	ck_assert_int_eq(cube_turn(c, 0, 0, 4, 1), CUBE_EINVAL);
	ck_assert_int_eq(cube_turn(c, 0, -1, 0, 1), CUBE_EINVAL);
	ck_assert_int_eq(cube_is_solved(c), 1);
	/* qt is taken mod 4: 5 is one quarter turn, -1 three. */
	cube_t *d = new_cube(4);
	ck_assert_int_eq(cube_turn(c, 0, 0, 0, 5), CUBE_OK);
	ck_assert_int_eq(cube_turn(d, 0, 0, 0, 1), CUBE_OK);
	ck_assert_int_eq(cube_equal(c, d), 1);
	ck_assert_int_eq(cube_turn(c, 0, 0, 0, -1), CUBE_OK);
	ck_assert_int_eq(cube_is_solved(c), 1);
	/* A batch with one bad move applies nothing. */
	cube_move ms[2] = {{0, 1, 0, 0}, {1, 1, 0, 4}};
	ck_assert_int_eq(cube_apply_moves(c, ms, 2), CUBE_EINVAL);
	ck_assert_int_eq(cube_is_solved(c), 1);
	free(c);
	free(d);
}
END_TEST

/* A 3×3 whose stickers are labelled 0..53, to see permutations. */
static void label3(cube_t *c)
{
	cube_init(c, 3);
	for (int k = 0; k < 54; k++)
		c->st[k] = (unsigned char)k;
}

static void logical3(const cube_t *c, unsigned char out[54])
{
	for (int k = 0; k < 54; k++)
		out[k] = (unsigned char)cube_get(c, k / 9, (k % 9) / 3, k % 3);
}

START_TEST(turn3_tables)
{
	cube_t *fast = new_cube(3), *slow = new_cube(3);
	unsigned char a[54], b[54];
	for (int axis = 0; axis < 3; axis++)
		for (int lo = 0; lo < 3; lo++)
			for (int hi = lo; hi < 3; hi++)
				for (int qt = 1; qt < 4; qt++) {
					label3(fast);
					label3(slow);
					cube_turn(fast, axis, lo, hi, qt);
					cube__turn_generic(slow, axis, lo, hi,
							   qt);
					logical3(fast, a);
					logical3(slow, b);
					ck_assert_msg(memcmp(a, b, 54) == 0,
						      "axis %d [%d,%d] qt %d",
						      axis, lo, hi, qt);
					/* The gather table itself. */
					const unsigned char *p =
						cube__turn3_perm(axis, lo, hi,
								 qt);
					for (int k = 0; k < 54; k++)
						ck_assert_int_eq(p[k], b[k]);
					for (int k = 54; k < 64; k++)
						ck_assert_int_eq(p[k], k);
				}
	/* The portable path: 4-cycles per single layer, travelling a→b. */
	const unsigned char(*cy)[3][5][4] = cube__turn3_cycles();
	for (int axis = 0; axis < 3; axis++)
		for (int layer = 0; layer < 3; layer++) {
			label3(slow);
			cube__turn_generic(slow, axis, layer, layer, 1);
			logical3(slow, b);
			unsigned char s[54];
			for (int k = 0; k < 54; k++)
				s[k] = (unsigned char)k;
			int count = layer == 1 ? 3 : 5;
			for (int k = 0; k < count; k++) {
				const unsigned char *q = cy[axis][layer][k];
				unsigned char t = s[q[3]];
				s[q[3]] = s[q[2]];
				s[q[2]] = s[q[1]];
				s[q[1]] = s[q[0]];
				s[q[0]] = t;
			}
			ck_assert_msg(memcmp(s, b, 54) == 0, "cycles axis %d layer %d",
				      axis, layer);
		}
	free(fast);
	free(slow);
}
END_TEST

/* Reference: an eager turn that really rotates face grids (O(n²)), built
 * on logical reads, to check the lazy offsets on every n. */
static void eager_turn(int n, unsigned char *g, int axis, int lo, int hi,
		       int qt)
{
	/* g holds logical stickers [face][r][c]; apply one quarter turn qt
	 * times by moving each sticker's 3D position. Positions use
	 * doubled centred coordinates. */
	int m = n - 1;
	size_t nn = (size_t)n * n, total = 6 * nn;
	unsigned char *t = malloc(total);
	for (int q = 0; q < (qt & 3); q++) {
		memcpy(t, g, total);
		for (int f = 0; f < 6; f++)
			for (int r = 0; r < n; r++)
				for (int c = 0; c < n; c++) {
					/* position and normal of (f, r, c) */
					int p[3], nv[3];
					int a = 2 * c - m, b = m - 2 * r;
					switch (f) {
					case 0: p[0] = a, p[1] = n, p[2] = 2 * r - m, nv[0] = 0, nv[1] = 1, nv[2] = 0; break;
					case 1: p[0] = n, p[1] = b, p[2] = m - 2 * c, nv[0] = 1, nv[1] = 0, nv[2] = 0; break;
					case 2: p[0] = a, p[1] = b, p[2] = n, nv[0] = 0, nv[1] = 0, nv[2] = 1; break;
					case 3: p[0] = a, p[1] = -n, p[2] = m - 2 * r, nv[0] = 0, nv[1] = -1, nv[2] = 0; break;
					case 4: p[0] = -n, p[1] = b, p[2] = 2 * c - m, nv[0] = -1, nv[1] = 0, nv[2] = 0; break;
					default: p[0] = m - 2 * c, p[1] = b, p[2] = -n, nv[0] = 0, nv[1] = 0, nv[2] = -1; break;
					}
					/* layer index from the + face along axis */
					int coord = p[axis];
					if (coord == n || coord == -n)
						coord = coord > 0 ? m : -m;
					int layer = (m - coord) / 2;
					if (layer < lo || layer > hi)
						continue;
					/* clockwise about +axis: (u, v) → (v, -u)
					 * on the two other axes in cyclic order */
					int u = (axis + 1) % 3, v = (axis + 2) % 3;
					int np[3] = {p[0], p[1], p[2]};
					int nn2[3] = {nv[0], nv[1], nv[2]};
					np[u] = p[v], np[v] = -p[u];
					nn2[u] = nv[v], nn2[v] = -nv[u];
					/* find the slot with that position/normal */
					int df, dr, dc;
					if (nn2[1] == 1) df = 0, dc = (np[0] + m) / 2, dr = (np[2] + m) / 2;
					else if (nn2[0] == 1) df = 1, dr = (m - np[1]) / 2, dc = (m - np[2]) / 2;
					else if (nn2[2] == 1) df = 2, dr = (m - np[1]) / 2, dc = (np[0] + m) / 2;
					else if (nn2[1] == -1) df = 3, dc = (np[0] + m) / 2, dr = (m - np[2]) / 2;
					else if (nn2[0] == -1) df = 4, dr = (m - np[1]) / 2, dc = (np[2] + m) / 2;
					else df = 5, dr = (m - np[1]) / 2, dc = (m - np[0]) / 2;
					g[df * nn + (size_t)dr * n + dc] =
						t[f * nn + (size_t)r * n + c];
				}
	}
	free(t);
}

/* Lazy face offsets (and, from n = 64 on multiples of 8, tiled storage)
 * against the eager reference, reading every sticker after every move. */
static void lazy_vs_eager(int n, int moves)
{
	size_t nn = (size_t)n * n;
	cube_t *c = new_cube(n);
	unsigned char *g = malloc(6 * nn);
	/* distinct-ish labels so misplacements show */
	for (size_t k = 0; k < 6 * nn; k++) {
		g[k] = (unsigned char)(k % 251);
		cube__set(c, (int)(k / nn), (int)(k % nn) / n, (int)(k % n), g[k]);
	}
	for (int k = 0; k < moves; k++) {
		cube_move mv;
		random_move(n, &mv);
		cube_turn(c, mv.axis, mv.lo, mv.hi, mv.qt);
		eager_turn(n, g, mv.axis, mv.lo, mv.hi, mv.qt);
		for (int f = 0; f < 6; f++)
			for (int r = 0; r < n; r++)
				for (int col = 0; col < n; col++)
					if (cube_get(c, f, r, col) != g[f * nn + r * n + col])
						ck_abort_msg("n=%d move %d (axis %d [%d,%d] qt %d) face %d (%d,%d)",
							     n, k, mv.axis, mv.lo, mv.hi,
							     mv.qt, f, r, col);
	}
	free(g);
	free(c);
}

START_TEST(lazy_rotation_matches_eager)
{
	rnd_seed(11);
	for (int n = 1; n <= 8; n++)
		lazy_vs_eager(n, 300);
	/* tiled storage (n = 64, 72) and row-major just past it (65) */
	lazy_vs_eager(64, 60);
	lazy_vs_eager(65, 40);
	lazy_vs_eager(72, 40);
}
END_TEST

START_TEST(big_cube_layouts)
{
	/* Facelets in and out, equality and solved checks agree across the
	 * tiled (1000, 1024) and row-major (999) layouts. */
	static const int sizes[] = {999, 1000, 1024};
	for (size_t i = 0; i < 3; i++) {
		int n = sizes[i];
		cube_t *c = new_cube(n), *d = new_cube(n);
		cube_turn(c, CUBE_X, 0, 0, 1);
		cube_turn(c, CUBE_Y, 3, 7, 1);
		cube_turn(c, CUBE_Z, n - 1, n - 1, 3);
		cube_turn(c, CUBE_X, 1, n - 2, 2);
		char *s = facelets(c);
		ck_assert_int_eq(cube_from_facelets(d, n, s, strlen(s), NULL),
				 CUBE_OK);
		ck_assert(cube_equal(c, d));
		char *t = facelets(d);
		ck_assert(strcmp(s, t) == 0);
		/* undo on the copy read from text: solved again */
		cube_turn(d, CUBE_X, 1, n - 2, 2);
		cube_turn(d, CUBE_Z, n - 1, n - 1, 1);
		cube_turn(d, CUBE_Y, 3, 7, 3);
		cube_turn(d, CUBE_X, 0, 0, 3);
		ck_assert(cube_is_solved(d));
		ck_assert(!cube_equal(c, d));
		free(s);
		free(t);
		free(c);
		free(d);
	}
}
END_TEST

START_TEST(group_laws_per_turn)
{
	/* Every turn on every n up to 6: four quarter turns are the identity,
	 * qt 3 undoes qt 1, qt 2 twice is the identity. */
	for (int n = 1; n <= 6; n++) {
		cube_t *c = new_cube(n), *d = new_cube(n);
		for (int axis = 0; axis < 3; axis++)
			for (int lo = 0; lo < n; lo++)
				for (int hi = lo; hi < n; hi++) {
					/* start from a scrambled state */
					for (int k = 0; k < 4; k++)
						cube_turn(c, k % 3, 0, k % n, 1);
					cube_copy(d, c);
					for (int k = 0; k < 4; k++)
						cube_turn(c, axis, lo, hi, 1);
					ck_assert(cube_equal(c, d));
					cube_turn(c, axis, lo, hi, 1);
					cube_turn(c, axis, lo, hi, 3);
					ck_assert(cube_equal(c, d));
					cube_turn(c, axis, lo, hi, 2);
					cube_turn(c, axis, lo, hi, 2);
					ck_assert(cube_equal(c, d));
				}
		free(c);
		free(d);
	}
}
END_TEST

START_TEST(batch_equals_single_turns)
{
	rnd_seed(5);
	for (int n = 2; n <= 5; n++) {
		cube_t *c = new_cube(n), *d = new_cube(n);
		cube_move ms[500];
		for (int k = 0; k < 500; k++)
			random_move(n, &ms[k]);
		ck_assert_int_eq(cube_apply_moves(c, ms, 500), CUBE_OK);
		for (int k = 0; k < 500; k++)
			cube_turn(d, ms[k].axis, ms[k].lo, ms[k].hi, ms[k].qt);
		ck_assert(cube_equal(c, d));
		free(c);
		free(d);
	}
}
END_TEST

START_TEST(cubejs_goldens)
{
	struct golden_case *gc;
	int count = golden_load("facelets3_cubejs.txt", &gc);
	ck_assert_int_ge(count, 200);
	cube_t *c = new_cube(3);
	alg_node nodes[1024];
	for (int k = 0; k < count; k++) {
		const char *moves = gc[k].field[0], *want = gc[k].field[1];
		alg_t a;
		alg_error e;
		ck_assert_uint_lt(alg_nodes_needed(strlen(moves)), 1024);
		ck_assert_int_eq(alg_parse(&a, nodes, 1024, 3, moves,
					   strlen(moves), NULL, &e),
				 CUBE_OK);
		cube_init(c, 3);
		alg_apply(&a, c, 0);
		char *got = facelets(c);
		ck_assert_msg(strcmp(got, want) == 0,
			      "line %d: %s\n got  %s\n want %s", gc[k].line,
			      moves, got, want);
		free(got);
	}
	free(c);
	golden_free(gc, count);
}
END_TEST

START_TEST(big_cube)
{
	cube_t *c = new_cube(1024);
	cube_turn(c, CUBE_X, 0, 0, 1);
	cube_turn(c, CUBE_Y, 500, 500, 1);
	cube_turn(c, CUBE_Z, 1023, 1023, 2);
	cube_turn(c, CUBE_Z, 1023, 1023, 2);
	cube_turn(c, CUBE_Y, 500, 500, 3);
	cube_turn(c, CUBE_X, 0, 0, 3);
	ck_assert_int_eq(cube_is_solved(c), 1);
	cube_turn(c, CUBE_X, 0, 1023, 1);
	ck_assert_int_eq(cube_get(c, CUBE_U, 0, 0), CUBE_F);
	ck_assert_int_eq(cube_get(c, CUBE_F, 1023, 1023), CUBE_D);
	free(c);
}
END_TEST

START_TEST(error_names)
{
	static const int codes[] = {
#define CODE(name, value, code, msg) name,
		CUBE_ERRORS(CODE)
#undef CODE
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		ck_assert_int_lt(codes[i], 0);
		ck_assert_str_ne(cube_errname(codes[i]), "unknown_error");
		ck_assert_uint_gt(strlen(cube_strerror(codes[i])), 5);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(cube_errname(codes[i]),
					 cube_errname(codes[j]));
	}
	ck_assert_str_eq(cube_errname(ALG_ETOKEN), "unknown_token");
	ck_assert_str_eq(cube_errname(CUBE_OK), "ok");
	ck_assert_str_eq(cube_errname(-999), "unknown_error");
}
END_TEST

Suite *cube_suite(void)
{
	Suite *s = suite_create("cube");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, solved_facelets);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, facelets_reader);
	tcase_add_test(tc, facelets_round_trip);
	tcase_add_test(tc, turn_argument_checks);
	tcase_add_test(tc, turn3_tables);
	tcase_add_test(tc, lazy_rotation_matches_eager);
	tcase_add_test(tc, group_laws_per_turn);
	tcase_add_test(tc, batch_equals_single_turns);
	tcase_add_test(tc, cubejs_goldens);
	tcase_add_test(tc, big_cube);
	tcase_add_test(tc, big_cube_layouts);
	tcase_add_test(tc, error_names);
	suite_add_tcase(s, tc);
	return s;
}
