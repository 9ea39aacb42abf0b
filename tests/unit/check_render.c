/* check_render.c — render and animation data (core/render.c): solved
 * cubes, exact values after R, and the law that animating a move's turn on
 * the render data of a state gives the render data of the next state. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "render.h"
#include "suites.h"

static const int8_t IDENTITY[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

static render_cubie *render(const cube_t *c, int64_t *count)
{
	size_t cap = render_cubie_count(c->n);
	render_cubie *rc = malloc(cap * sizeof *rc);
	*count = render_cubies(c, rc, cap);
	ck_assert_int_eq(*count, (int64_t)cap);
	return rc;
}

static cube_t *cube_after(int n, const char *moves)
{
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	alg_node nodes[256];
	alg_t a;
	ck_assert_int_eq(alg_parse(&a, nodes, 256, n, moves, strlen(moves),
				   NULL, NULL),
			 CUBE_OK);
	alg_apply(&a, c, 0);
	return c;
}

static void mul(const int8_t a[9], const int8_t b[9], int8_t out[9])
{
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			out[r * 3 + k] = (int8_t)(a[r * 3] * b[k] +
						  a[r * 3 + 1] * b[3 + k] +
						  a[r * 3 + 2] * b[6 + k]);
}

static int nstickers(const render_cubie *rc)
{
	int k = 0;
	for (int s = 0; s < 6; s++)
		k += rc->sticker[s] != 0;
	return k;
}

START_TEST(counts)
{
	ck_assert_uint_eq(render_cubie_count(1), 1);
	ck_assert_uint_eq(render_cubie_count(2), 8);
	ck_assert_uint_eq(render_cubie_count(3), 26);
	ck_assert_uint_eq(render_cubie_count(4), 56);
	ck_assert_uint_eq(render_cubie_count(5), 98);
	cube_t *c = cube_after(3, "");
	render_cubie rc[25];
	ck_assert_int_eq(render_cubies(c, rc, 25), CUBE_ESPACE);
	free(c);
}
END_TEST

START_TEST(solved)
{
	for (int n = 1; n <= 5; n++) {
		cube_t *c = cube_after(n, "");
		int64_t count;
		render_cubie *rc = render(c, &count);
		int prev = -1;
		for (int64_t k = 0; k < count; k++) {
			const int16_t *p = rc[k].pos;
			int key = (p[0] * n + p[1]) * n + p[2];
			ck_assert_int_gt(key, prev); /* ordered, no repeats */
			prev = key;
			ck_assert(memcmp(rc[k].rot, IDENTITY, 9) == 0);
			/* the U side shows U exactly when j = n-1, etc. */
			ck_assert_int_eq(rc[k].sticker[CUBE_U], p[1] == n - 1 ? 'U' : 0);
			ck_assert_int_eq(rc[k].sticker[CUBE_D], p[1] == 0 ? 'D' : 0);
			ck_assert_int_eq(rc[k].sticker[CUBE_R], p[0] == n - 1 ? 'R' : 0);
			ck_assert_int_eq(rc[k].sticker[CUBE_L], p[0] == 0 ? 'L' : 0);
			ck_assert_int_eq(rc[k].sticker[CUBE_F], p[2] == n - 1 ? 'F' : 0);
			ck_assert_int_eq(rc[k].sticker[CUBE_B], p[2] == 0 ? 'B' : 0);
		}
		free(rc);
		free(c);
	}
}
END_TEST

START_TEST(after_r)
{
	/* R: the x = 2 layer turned -90° about +x: y' = z, z' = -y. */
	static const int8_t RX[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0};
	cube_t *c = cube_after(3, "R");
	int64_t count;
	render_cubie *rc = render(c, &count);
	for (int64_t k = 0; k < count; k++) {
		const render_cubie *q = &rc[k];
		int turned = q->pos[0] == 2 && nstickers(q) > 1;
		ck_assert_msg(memcmp(q->rot, turned ? RX : IDENTITY, 9) == 0,
			      "cubie (%d,%d,%d)", q->pos[0], q->pos[1],
			      q->pos[2]);
		/* UFR corner (2,2,2) now holds the DFR piece: F on U, R on
		 * R, D on F. */
		if (q->pos[0] == 2 && q->pos[1] == 2 && q->pos[2] == 2) {
			ck_assert_int_eq(q->sticker[CUBE_U], 'F');
			ck_assert_int_eq(q->sticker[CUBE_R], 'R');
			ck_assert_int_eq(q->sticker[CUBE_F], 'D');
		}
	}
	free(rc);
	free(c);
}
END_TEST

START_TEST(turns)
{
	render_turn t;
	cube_move m = {CUBE_X, 1, 0, 0};
	render_turn_of(&m, 3, &t);
	ck_assert_int_eq(t.axis, 0);
	ck_assert_int_eq(t.from, 2);
	ck_assert_int_eq(t.to, 2);
	ck_assert_int_eq(t.angle, -90);
	static const int8_t RX[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0};
	ck_assert(memcmp(t.rot, RX, 9) == 0);
	cube_move l = {CUBE_X, 3, 4, 4}; /* L on 5×5: layer 4 from R, qt 3 */
	render_turn_of(&l, 5, &t);
	ck_assert_int_eq(t.from, 0);
	ck_assert_int_eq(t.to, 0);
	ck_assert_int_eq(t.angle, 90);
	cube_move y2 = {CUBE_Y, 2, 0, 3};
	render_turn_of(&y2, 4, &t);
	ck_assert_int_eq(t.from, 0);
	ck_assert_int_eq(t.to, 3);
	ck_assert_int_eq(t.angle, 180);
	static const int8_t Y2[9] = {-1, 0, 0, 0, 1, 0, 0, 0, -1};
	ck_assert(memcmp(t.rot, Y2, 9) == 0);
}
END_TEST

/* Animate: move every cubie in the turn's range, rotating its position
 * about the centre and its stickers' sides, and compare with the render of
 * the state after the move. Corners and edges (2+ stickers) must also have
 * rot = turn · old rot. */
static void check_animation(int n, const char *before, const cube_move *m)
{
	cube_t *c = cube_after(n, before);
	int64_t count;
	render_cubie *old = render(c, &count);
	cube_turn(c, m->axis, m->lo, m->hi, m->qt);
	render_cubie *now = render(c, &count);
	render_turn t;
	render_turn_of(m, n, &t);
	for (int64_t k = 0; k < count; k++) {
		const render_cubie *q = &old[k];
		int a = q->pos[t.axis];
		int moves = a >= t.from && a <= t.to;
		/* new position: rot · (2·pos - (n-1)) in doubled coordinates */
		int dp[3], np[3];
		for (int r = 0; r < 3; r++)
			dp[r] = 2 * q->pos[r] - (n - 1);
		for (int r = 0; r < 3; r++) {
			int v = moves ? t.rot[r * 3] * dp[0] + t.rot[r * 3 + 1] * dp[1] +
						t.rot[r * 3 + 2] * dp[2]
				      : dp[r];
			np[r] = (v + (n - 1)) / 2;
		}
		const render_cubie *w = NULL;
		for (int64_t j = 0; j < count; j++)
			if (now[j].pos[0] == np[0] && now[j].pos[1] == np[1] &&
			    now[j].pos[2] == np[2])
				w = &now[j];
		ck_assert_ptr_nonnull(w);
		for (int s = 0; s < 6; s++) {
			if (!q->sticker[s])
				continue;
			int8_t v[3];
			const int8_t *nv = render_face_normal[s];
			for (int r = 0; r < 3; r++)
				v[r] = moves ? (int8_t)(t.rot[r * 3] * nv[0] +
							t.rot[r * 3 + 1] * nv[1] +
							t.rot[r * 3 + 2] * nv[2])
					     : nv[r];
			int side = -1;
			for (int f = 0; f < 6; f++)
				if (memcmp(render_face_normal[f], v, 3) == 0)
					side = f;
			ck_assert_int_eq(w->sticker[side], q->sticker[s]);
		}
		if (nstickers(q) > 1) {
			int8_t want[9];
			if (moves)
				mul(t.rot, q->rot, want);
			else
				memcpy(want, q->rot, 9);
			ck_assert(memcmp(w->rot, want, 9) == 0);
		}
	}
	free(old);
	free(now);
	free(c);
}

START_TEST(animation_law)
{
	static const char *scrambles[] = {
		"", "R U F' L2 D B'", "Rw U2 x' F D' 3R", "M' E2 S y",
	};
	for (int n = 2; n <= 5; n++)
		for (size_t s = 0; s < sizeof scrambles / sizeof scrambles[0]; s++) {
			if (n % 2 == 0 && strchr(scrambles[s], 'M'))
				continue;
			if (n < 3 && (strstr(scrambles[s], "3R") ||
				      strstr(scrambles[s], "Rw")))
				continue;
			for (int axis = 0; axis < 3; axis++)
				for (int lo = 0; lo < n; lo++)
					for (int hi = lo; hi < n; hi++)
						for (int qt = 0; qt < 4; qt++) {
							cube_move m = {
								(uint8_t)axis, (uint8_t)qt,
								(uint16_t)lo, (uint16_t)hi};
							check_animation(n, scrambles[s], &m);
						}
		}
}
END_TEST

START_TEST(rotation_fits_stickers)
{
	/* On legal states every corner and edge's rotation fits all of its
	 * stickers. */
	cube_t *c = cube_after(4, "Rw U 2F' L2 D 3B' x R' 2U2 Lw F");
	int64_t count;
	render_cubie *rc = render(c, &count);
	for (int64_t k = 0; k < count; k++) {
		if (nstickers(&rc[k]) < 2)
			continue;
		for (int s = 0; s < 6; s++) {
			if (!rc[k].sticker[s])
				continue;
			int home = (int)(strchr("URFDLB", rc[k].sticker[s]) - "URFDLB");
			int8_t v[3];
			const int8_t *h = render_face_normal[home];
			for (int r = 0; r < 3; r++)
				v[r] = (int8_t)(rc[k].rot[r * 3] * h[0] +
						rc[k].rot[r * 3 + 1] * h[1] +
						rc[k].rot[r * 3 + 2] * h[2]);
			ck_assert(memcmp(v, render_face_normal[s], 3) == 0);
		}
	}
	free(rc);
	free(c);
}
END_TEST

Suite *render_suite(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("render");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, counts);
	tcase_add_test(tc, solved);
	tcase_add_test(tc, after_r);
	tcase_add_test(tc, turns);
	tcase_add_test(tc, animation_law);
	tcase_add_test(tc, rotation_fits_stickers);
	suite_add_tcase(s, tc);
	return s;
}
