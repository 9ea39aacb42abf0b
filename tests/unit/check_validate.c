/* check_validate.c — cube_validate (core/validate.c): the golden file of
 * hand-broken cubes (tests/golden/broken_cubes.txt, one or more per
 * reason), legal cubes of every size scrambled with any layers and held any
 * way, random 3×3 / 5×5 / 2×2 states broken in one known way at random
 * places, problem details, the output cap and argument checks. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cubie.h"
#include "golden.h"
#include "cube_helpers.h"
#include "suites.h"

static const char SOLVED3[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* Any layers, any axis: slices, wide turns and whole-cube rotations. */
static void scramble(cube_t *c, int moves)
{
	for (int k = 0; k < moves; k++) {
		int lo = (int)rnd((uint32_t)c->n), hi = (int)rnd((uint32_t)c->n);
		if (lo > hi) {
			int t = lo;
			lo = hi;
			hi = t;
		}
		cube_turn(c, (int)rnd(3), lo, hi, (int)rnd(4));
	}
}

static void apply_alg(cube_t *c, const char *s)
{
	static alg_node nodes[256];
	alg_t a;
	ck_assert_int_eq(alg_parse(&a, nodes, 256, c->n, s, strlen(s), NULL, NULL),
			 CUBE_OK);
	alg_apply(&a, c, 0);
}

/* The codes of the problems found, comma-separated, "-" for none. */
static void codes_of(const cube_problem *p, int count, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (int k = 0; k < count; k++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", k ? "," : "",
					cube_validation_code(p[k].reason));
	if (count == 0)
		snprintf(out, cap, "-");
}

/* ------------------------------------------------------------ goldens */

START_TEST(broken_cubes_golden)
{
	struct golden_case *gc;
	int count = golden_load("broken_cubes.txt", &gc);
	ck_assert_int_ge(count, 60);
	int seen[CV_COUNT] = {0};
	for (int k = 0; k < count; k++) {
		const char *s = gc[k].field[0];
		size_t len = strlen(s);
		cube_problem p[32];
		cube_validation_result res;
		char got[512], where[256];
		ck_assert_int_ge(gc[k].nfields, 2);
		int n = cube_validate(s, len, p, 32, &res);
		ck_assert_int_le(n, 32);
		ck_assert_int_eq(res.count, n);
		codes_of(p, n, got, sizeof got);
		ck_assert_msg(strcmp(got, gc[k].field[1]) == 0,
			      "line %d: got %s, want %s", gc[k].line, got,
			      gc[k].field[1]);
		if (gc[k].nfields >= 3) {
			size_t wl = 0;
			for (int j = 0; j < n; j++)
				wl += (size_t)snprintf(where + wl, sizeof where - wl,
						       "%s%d", j ? "," : "", p[j].where);
			ck_assert_msg(strcmp(where, gc[k].field[2]) == 0,
				      "line %d: where %s, want %s", gc[k].line,
				      where, gc[k].field[2]);
		}
		for (int j = 0; j < n; j++)
			seen[p[j].reason]++;
		/* the cubie readers agree on legality */
		if (res.n == 3 || len == 54) {
			cubie3 c;
			ck_assert_int_eq(cube3_from_facelets(s, len, &c, NULL),
					 n ? CUBE_EINVALID : CUBE_OK);
		}
		if (res.n == 2 || len == 24) {
			cubie2 c;
			ck_assert_int_eq(cube2_from_facelets(s, len, &c, NULL),
					 n ? CUBE_EINVALID : CUBE_OK);
		}
		/* legal cubes report how they are held */
		if (n == 0)
			ck_assert_int_ne(res.orient.up, 0);
		else
			ck_assert_int_eq(res.orient.up, 0);
	}
	for (int r = 0; r < CV_COUNT; r++)
		ck_assert_msg(seen[r] > 0, "no golden case for %s",
			      cube_validation_code(r));
	golden_free(gc, count);
}
END_TEST

/* ------------------------------------------------------- legal cubes */

START_TEST(legal_cubes_every_size)
{
	rnd_seed(21);
	for (int n = 1; n <= 9; n++) {
		cube_t *c = new_cube(n);
		for (int k = 0; k < (n <= 3 ? 300 : 60); k++) {
			cube_init(c, n);
			scramble(c, k == 0 ? 0 : 1 + (int)rnd(40));
			char *s = facelets(c);
			size_t len = strlen(s);
			cube_problem p[8];
			cube_validation_result res;
			int got = cube_validate(s, len, p, 8, &res);
			ck_assert_msg(got == 0, "n=%d: %d problems, first %s at %d",
				      n, got, cube_validation_code(p[0].reason),
				      p[0].where);
			ck_assert_int_eq(res.n, n);
			ck_assert_int_eq(res.count, 0);
			ck_assert_uint_eq(res.unchecked,
					  n >= 4 ? CV_UNCHECKED_PARITY
						 : 0u);
			/* the orientation reported: odd n by the centers; any n,
			 * its moves bring the cube to standard orientation (centers
			 * home on odd n, DBL home on even n) */
			size_t nn = (size_t)n * n;
			if (n % 2) {
				ck_assert_int_eq(res.orient.up, s[nn / 2]);
				ck_assert_int_eq(res.orient.front, s[2 * nn + nn / 2]);
			}
			apply_alg(c, res.orient.moves);
			free(s);
			s = facelets(c);
			if (n % 2) {
				for (int f = 0; f < 6; f++)
					ck_assert_int_eq(s[f * nn + nn / 2], "URFDLB"[f]);
			} else {
				ck_assert_int_eq(s[3 * nn + (nn - n)], 'D');
				ck_assert_int_eq(s[4 * nn + (nn - n)], 'L');
				ck_assert_int_eq(s[5 * nn + (nn - 1)], 'B');
			}
			ck_assert_int_eq(cube_validate(s, len, NULL, 0, &res), 0);
			ck_assert_str_eq(res.orient.moves, "");
			free(s);
		}
		free(c);
	}
}
END_TEST

/* ------------------------------------------- random breakage, 3×3 etc. */

static void twist_corner(char *s, int n, int i, int k)
{
	static const int cf[8][3] = {{8, 9, 20},   {6, 18, 38},  {0, 36, 47},
				     {2, 45, 11},  {29, 26, 15}, {27, 44, 24},
				     {33, 53, 42}, {35, 17, 51}};
	size_t at[3];
	char v[3];
	for (int j = 0; j < 3; j++) {
		int f = cf[i][j] / 9, r = cf[i][j] % 9 / 3, c = cf[i][j] % 3;
		at[j] = (size_t)f * n * n + (size_t)(r ? n - 1 : 0) * n +
			(size_t)(c ? n - 1 : 0);
		v[j] = s[at[j]];
	}
	for (int j = 0; j < 3; j++)
		s[at[(j + k) % 3]] = v[j];
}

static void edge_at(int n, int i, size_t at[2])
{
	static const int ef[12][2] = {{5, 10},  {7, 19},  {3, 37},  {1, 46},
				      {32, 16}, {28, 25}, {30, 43}, {34, 52},
				      {23, 12}, {21, 41}, {50, 39}, {48, 14}};
	for (int j = 0; j < 2; j++) {
		int f = ef[i][j] / 9, r = ef[i][j] % 9 / 3, c = ef[i][j] % 3;
		int rr = r == 0 ? 0 : r == 1 ? n / 2 : n - 1;
		int cc = c == 0 ? 0 : c == 1 ? n / 2 : n - 1;
		at[j] = (size_t)f * n * n + (size_t)rr * n + cc;
	}
}

static void swap_edges(char *s, int n, int i, int j)
{
	size_t a[2], b[2];
	edge_at(n, i, a);
	edge_at(n, j, b);
	for (int k = 0; k < 2; k++) {
		char t = s[a[k]];
		s[a[k]] = s[b[k]];
		s[b[k]] = t;
	}
}

static void flip_edge(char *s, int n, int i)
{
	size_t a[2];
	edge_at(n, i, a);
	char t = s[a[0]];
	s[a[0]] = s[a[1]];
	s[a[1]] = t;
}

/* Each damage is done on a random legal state, then the cube is held a
 * random way: the codes must not depend on either. */
START_TEST(random_breakage)
{
	rnd_seed(22);
	static const int sizes[3] = {2, 3, 5};
	for (int k = 0; k < 3000; k++) {
		int n = sizes[k % 3];
		cube_t *c = new_cube(n);
		scramble(c, 30);
		char *s = facelets(c);
		int twist = (int)rnd(3), flip = n > 2 ? (int)rnd(2) : 0;
		int swaps = n > 2 ? (int)rnd(2) : 0;
		if (twist)
			twist_corner(s, n, (int)rnd(8), twist);
		if (flip)
			flip_edge(s, n, (int)rnd(12));
		if (swaps) {
			int i = (int)rnd(12), j = (int)rnd(11);
			swap_edges(s, n, i, j >= i ? j + 1 : j);
		}
		/* held another way */
		cube_from_facelets(c, n, s, strlen(s), NULL);
		cube_turn(c, (int)rnd(3), 0, n - 1, (int)rnd(4));
		cube_turn(c, (int)rnd(3), 0, n - 1, (int)rnd(4));
		free(s);
		s = facelets(c);

		char want[64] = "", got[512];
		size_t wl = 0;
		if (twist)
			wl += (size_t)sprintf(want + wl, "%stwist", wl ? "," : "");
		if (flip)
			wl += (size_t)sprintf(want + wl, "%sflip", wl ? "," : "");
		if (swaps)
			wl += (size_t)sprintf(want + wl, "%sparity", wl ? "," : "");
		if (!wl)
			strcpy(want, "-");
		cube_problem p[16];
		cube_validation_result res;
		int count = cube_validate(s, strlen(s), p, 16, &res);
		codes_of(p, count, got, sizeof got);
		ck_assert_msg(strcmp(got, want) == 0, "n=%d: got %s, want %s", n,
			      got, want);
		ck_assert_uint_eq(res.unchecked,
				  n >= 4 ? CV_UNCHECKED_PARITY
					 : 0u);
		free(s);
		free(c);
	}
}
END_TEST

/* ------------------------------------------------------------ details */

START_TEST(problem_details)
{
	cube_problem p[16];
	cube_validation_result res;
	char s[64];

	ck_assert_int_eq(cube_validate(SOLVED3, 53, p, 16, &res), 1);
	ck_assert_int_eq(p[0].reason, CV_LENGTH);
	ck_assert_int_eq(p[0].where, -1);
	ck_assert_str_eq(p[0].detail, "53");
	ck_assert_int_eq(res.n, 0);

	strcpy(s, SOLVED3);
	s[3] = '\x01', s[7] = 'u';
	ck_assert_int_eq(cube_validate(s, 54, p, 16, &res), 2);
	ck_assert_int_eq(p[0].where, 3);
	ck_assert_str_eq(p[0].detail, "\\x01");
	ck_assert_int_eq(p[1].where, 7);
	ck_assert_str_eq(p[1].detail, "u");
	ck_assert_int_eq(res.n, 3);

	strcpy(s, SOLVED3);
	s[8] = 'R', s[10] = 'U'; /* URF shows R R F; UR shows U U */
	s[4] = 'L', s[40] = 'U'; /* U and L centers swapped */
	ck_assert_int_eq(cube_validate(s, 54, p, 16, &res), 3);
	ck_assert_int_eq(p[0].reason, CV_CENTERS);
	ck_assert_str_eq(p[0].detail, "LRFDUB");
	ck_assert_int_eq(p[1].reason, CV_NO_SUCH_CORNER);
	ck_assert_int_eq(p[1].where, 0);
	ck_assert_str_eq(p[1].detail, "RRF");
	ck_assert_int_eq(p[2].reason, CV_NO_SUCH_EDGE);
	ck_assert_str_eq(p[2].detail, "UU");

	strcpy(s, SOLVED3);
	s[19] = 'R';             /* UF shows U R: a second UR, one F too few */
	ck_assert_int_eq(cube_validate(s, 54, p, 16, &res), 3);
	ck_assert_int_eq(p[0].reason, CV_COLOR_COUNT);
	ck_assert_int_eq(p[0].where, CUBE_R);
	ck_assert_str_eq(p[0].detail, "10");
	ck_assert_int_eq(p[1].where, CUBE_F);
	ck_assert_str_eq(p[1].detail, "8");
	ck_assert_int_eq(p[2].reason, CV_DUPLICATE_EDGE);
	ck_assert_int_eq(p[2].where, 1);
	ck_assert_str_eq(p[2].detail, "UR");

	strcpy(s, SOLVED3);
	s[8] = 'R', s[9] = 'F', s[20] = 'U'; /* URF twisted */
	s[5] = 'R', s[10] = 'U';             /* UR flipped */
	ck_assert_int_eq(cube_validate(s, 54, p, 16, &res), 2);
	ck_assert_str_eq(p[0].detail, "2");
	ck_assert_str_eq(p[1].detail, "1");
	ck_assert_int_eq(res.orient.up, 0);

	strcpy(s, SOLVED3);
	s[10] = 'F', s[19] = 'R'; /* UR and UF swapped */
	ck_assert_int_eq(cube_validate(s, 54, p, 16, &res), 1);
	ck_assert_int_eq(p[0].reason, CV_PARITY);
	ck_assert_str_eq(p[0].detail, "c:even e:odd");

	/* a 4×4 center orbit */
	cube_t *c = new_cube(4);
	char *f = facelets(c);
	f[5] = 'F', f[2 * 16 + 1] = 'U'; /* U center ⇄ F's wing */
	ck_assert_int_eq(cube_validate(f, 96, p, 16, &res), 2);
	/* the UF wing now shows U twice: named by its U sticker; listed
	 * first, in the order of the reasons */
	ck_assert_int_eq(p[0].reason, CV_NO_SUCH_EDGE);
	ck_assert_int_eq(p[0].where, 13);
	ck_assert_str_eq(p[0].detail, "wing 1 UU");
	ck_assert_int_eq(p[1].reason, CV_CENTER_ORBIT);
	ck_assert_int_eq(p[1].where, 5);
	ck_assert_str_eq(p[1].detail, "U3R4F5D4L4B4");
	free(f);
	free(c);
}
END_TEST

START_TEST(codes_and_sentences)
{
	ck_assert_str_eq(cube_validation_code(CV_LENGTH), "facelets_length");
	ck_assert_str_eq(cube_validation_code(CV_TWIST), "twist");
	ck_assert_str_eq(cube_validation_code(CV_CENTER_ORBIT), "center_orbit");
	ck_assert_str_eq(cube_validation_code(CV_COUNT), "unknown");
	ck_assert_str_eq(cube_validation_code(-1), "unknown");
	ck_assert_str_eq(cube_validation_sentence(CV_PARITY),
			 "two pieces are swapped: corner and edge permutation "
			 "parities differ");
	ck_assert_str_eq(cube_validation_sentence(99), "unknown reason");
	for (int r = 0; r < CV_COUNT; r++) {
		ck_assert_uint_gt(strlen(cube_validation_code(r)), 0);
		ck_assert_uint_gt(strlen(cube_validation_sentence(r)), 10);
		for (int q = 0; q < r; q++)
			ck_assert_str_ne(cube_validation_code(r),
					 cube_validation_code(q));
	}
}
END_TEST

/* All problems are counted; only cap are written. */
START_TEST(cap_and_arguments)
{
	cube_problem p[4];
	cube_validation_result res;
	char s[64];
	strcpy(s, SOLVED3);
	s[0] = 'x', s[1] = 'y', s[2] = 'z';
	memset(p, 0x77, sizeof p);
	ck_assert_int_eq(cube_validate(s, 54, p, 2, &res), 3);
	ck_assert_int_eq(res.count, 3);
	ck_assert_int_eq(p[1].where, 1);
	ck_assert_int_eq(p[2].where, 0x77777777); /* untouched */
	ck_assert_int_eq(cube_validate(s, 54, NULL, 0, NULL), 3);
	ck_assert_int_eq(cube_validate(SOLVED3, 54, NULL, 0, NULL), 0);
	ck_assert_int_eq(cube_validate(NULL, 54, p, 4, &res), CUBE_EINVAL);
	ck_assert_int_eq(cube_validate(SOLVED3, 54, NULL, 4, &res), CUBE_EINVAL);
	ck_assert_int_eq(cube_validate(NULL, 0, NULL, 0, &res), 1);
	ck_assert_int_eq(p[0].reason, CV_LETTER);
}
END_TEST

/* The biggest cube: a solved one is clean and one broken orbit is found,
 * in time linear in the stickers. */
/* A wing cannot be flipped in place: swapping the two stickers of any wing
 * of the UF edge (U's bottom row, F's top row) of any legal cube is found,
 * as one duplicate_edge, on every n with wings; a midge flip is a flip. */
START_TEST(wing_flipped_in_place)
{
	rnd_seed(77);
	for (int n = 4; n <= 12; n++) {
		cube_t *c = new_cube(n);
		size_t nn = (size_t)n * n;
		for (int k = 0; k < 6; k++) {
			cube_init(c, n);
			scramble(c, k == 0 ? 0 : 40);
			char *s = facelets(c);
			cube_problem p[8];
			cube_validation_result res;
			ck_assert_int_eq(cube_validate(s, 6 * nn, p, 8, &res), 0);
			int t = 1 + (int)rnd((uint32_t)(n - 2));
			size_t u = (size_t)(n - 1) * n + t, f = 2 * nn + t;
			char x = s[u];
			s[u] = s[f];
			s[f] = x;
			int got = cube_validate(s, 6 * nn, p, 8, &res);
			int midge = n % 2 && 2 * t == n - 1;
			ck_assert_msg(got == 1 && p[0].reason == (midge ? CV_FLIP
									: CV_DUPLICATE_EDGE),
				      "n=%d scramble %d, wing %d flipped: %d "
				      "problems, first %s",
				      n, k, t, got,
				      got ? cube_validation_code(p[0].reason)
					  : "-");
			free(s);
		}
		free(c);
	}
}
END_TEST

START_TEST(largest_cube)
{
	int n = CUBE_MAX_N;
	cube_t *c = new_cube(n);
	char *s = facelets(c);
	size_t len = strlen(s), nn = (size_t)n * n;
	cube_problem p[4];
	cube_validation_result res;
	ck_assert_int_eq(cube_validate(s, len, p, 4, &res), 0);
	ck_assert_int_eq(res.n, n);
	ck_assert_str_eq(res.orient.moves, "");
	s[(size_t)300 * n + 7] = 'F';
	s[2 * nn + (size_t)500 * n + 9] = 'U';
	ck_assert_int_eq(cube_validate(s, len, p, 4, &res), 2);
	ck_assert_int_eq(p[0].reason, CV_CENTER_ORBIT);
	ck_assert_int_eq(p[1].reason, CV_CENTER_ORBIT);
	free(s);
	free(c);
}
END_TEST

Suite *validate_suite(void)
{
	Suite *s = suite_create("validate");
	TCase *tc = tcase_create("validate");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, broken_cubes_golden);
	tcase_add_test(tc, legal_cubes_every_size);
	tcase_add_test(tc, random_breakage);
	tcase_add_test(tc, problem_details);
	tcase_add_test(tc, codes_and_sentences);
	tcase_add_test(tc, cap_and_arguments);
	tcase_add_test(tc, wing_flipped_in_place);
	tcase_add_test(tc, largest_cube);
	suite_add_tcase(s, tc);
	return s;
}
