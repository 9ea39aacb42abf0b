/* check_index.c — the unique index and the feature vector (core/index.c):
 * solved is 0, the last index round-trips, rank and unrank invert each
 * other on random states and random indices, every 2×2 index (all
 * 3,674,160) unranks to a valid state and back, one-move states get
 * distinct nonzero indices, the permutation rank is Myrvold & Ruskey's
 * relabelled, the decimal text is strict, and the features of solved, R
 * and random states are exact. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cube.h"
#include "cubie.h"
#include "require.h"
#include "suites.h"

static const char LAST3[] = "43252003274489855999";
static const char COUNT3[] = "43252003274489856000";

/* Tiny deterministic generator so failures reproduce. */
static uint64_t rng_state = 42;
static uint64_t rnd64(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t hi = rng_state >> 32;
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return hi << 32 | rng_state >> 32;
}
static unsigned rnd(unsigned k)
{
	return (unsigned)(rnd64() % k);
}

/* Parity by counting cycles, independent of the ranking's digits. */
static int parity(const uint8_t *p, int n)
{
	int seen[12] = {0}, odd = 0;
	for (int i = 0; i < n; i++) {
		if (seen[i])
			continue;
		int len = 0;
		for (int j = i; !seen[j]; j = p[j], len++)
			seen[j] = 1;
		odd ^= (len - 1) & 1;
	}
	return odd;
}

static void shuffle(uint8_t *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rnd((unsigned)i + 1);
		uint8_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

/* A uniformly random reachable 3×3, built directly (not by moves), so
 * every corner of the state space is as likely as any other. */
static void random_cubie3(cubie3 *c)
{
	shuffle(c->cp, 8);
	shuffle(c->ep, 12);
	if (parity(c->cp, 8) != parity(c->ep, 12)) {
		uint8_t t = c->ep[10];
		c->ep[10] = c->ep[11];
		c->ep[11] = t;
	}
	unsigned sum = 0, flips = 0;
	for (int i = 0; i < 7; i++)
		sum += c->co[i] = (uint8_t)rnd(3);
	c->co[7] = (uint8_t)((3 - sum % 3) % 3);
	for (int i = 0; i < 11; i++)
		flips += c->eo[i] = (uint8_t)rnd(2);
	c->eo[11] = (uint8_t)(flips & 1);
}

/* A random state reached by face turns, through cubie.c's composition. */
static void scrambled_cubie3(cubie3 *c, int moves)
{
	cubie3_solved(c);
	for (int i = 0; i < moves; i++) {
		cubie3 m;
		REQUIRE(cubie3_face_turn((int)rnd(6), 1 + (int)rnd(3), &m) ==
			CUBE_OK);
		cubie3_compose(c, &m, c);
	}
}

static cube_index random_index3(void)
{
	return (cube_index){rnd64() % CUBE3_CORNER_STATES,
			    rnd64() % CUBE3_EDGE_STATES};
}

/* R in Kociemba's tables, written out so the features test does not lean
 * on cubie.c: URF←DFR(2), UBR←URF(1), DFR←DRB(1), DRB←UBR(2). */
static const cubie3 R_MOVE = {
	.cp = {4, 1, 2, 0, 7, 5, 6, 3},
	.co = {2, 0, 0, 1, 1, 0, 0, 2},
	.ep = {8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0},
	.eo = {0},
};

START_TEST(solved_is_zero)
{
	cubie3 c3, u3;
	cubie2 c2, u2;
	cube_index ix = {7, 7};
	char text[32];
	cubie3_solved(&c3);
	ck_assert_int_eq(cubie3_rank(&c3, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, 0);
	ck_assert_uint_eq(ix.edge, 0);
	ck_assert_uint_eq(cube_index_format(&ix, 3, text, sizeof text), 1);
	ck_assert_str_eq(text, "0");
	ck_assert_int_eq(cubie3_unrank(&ix, &u3), CUBE_OK);
	ck_assert_int_eq(cubie3_equal(&u3, &c3), 1);

	cubie2_solved(&c2);
	ix = (cube_index){7, 7};
	ck_assert_int_eq(cubie2_rank(&c2, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, 0);
	ck_assert_uint_eq(ix.edge, 0);
	ck_assert_uint_eq(cube_index_format(&ix, 2, text, sizeof text), 1);
	ck_assert_str_eq(text, "0");
	ck_assert_int_eq(cubie2_unrank(&ix, &u2), CUBE_OK);
	ck_assert_int_eq(cubie2_equal(&u2, &c2), 1);
}
END_TEST

START_TEST(last_index)
{
	cube_index ix, back;
	cubie3 c3;
	cubie2 c2;
	char text[32];

	ck_assert_int_eq(cube_index_parse(LAST3, strlen(LAST3), 3, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, CUBE3_CORNER_STATES - 1);
	ck_assert_uint_eq(ix.edge, CUBE3_EDGE_STATES - 1);
	ck_assert_int_eq(cubie3_unrank(&ix, &c3), CUBE_OK);
	ck_assert_int_eq(cubie3_is_valid(&c3), 1);
	ck_assert_int_eq(cubie3_rank(&c3, &back), CUBE_OK);
	ck_assert_uint_eq(back.corner, ix.corner);
	ck_assert_uint_eq(back.edge, ix.edge);
	ck_assert_uint_eq(cube_index_format(&back, 3, text, sizeof text), 20);
	ck_assert_str_eq(text, LAST3);

	ck_assert_int_eq(cube_index_parse("3674159", 7, 2, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, CUBE2_STATES - 1);
	ck_assert_uint_eq(ix.edge, 0);
	ck_assert_int_eq(cubie2_unrank(&ix, &c2), CUBE_OK);
	ck_assert_int_eq(cubie2_is_valid(&c2), 1);
	ck_assert_int_eq(cubie2_rank(&c2, &back), CUBE_OK);
	ck_assert_uint_eq(back.corner, ix.corner);
	ck_assert_uint_eq(back.edge, 0);
	ck_assert_uint_eq(cube_index_format(&back, 2, text, sizeof text), 7);
	ck_assert_str_eq(text, "3674159");
}
END_TEST

START_TEST(round_trip_states3)
{
	cubie3 c, u;
	cube_index ix;
	for (int k = 0; k < 20000; k++) {
		if (k & 1)
			random_cubie3(&c);
		else
			scrambled_cubie3(&c, (int)rnd(25));
		REQUIRE(cubie3_rank(&c, &ix) == CUBE_OK);
		REQUIRE(ix.corner < CUBE3_CORNER_STATES);
		REQUIRE(ix.edge < CUBE3_EDGE_STATES);
		REQUIRE(cubie3_unrank(&ix, &u) == CUBE_OK);
		REQUIRE(cubie3_equal(&u, &c) == 1);
	}
}
END_TEST

START_TEST(round_trip_indices3)
{
	cubie3 c;
	cube_index ix, back;
	for (int k = 0; k < 20000; k++) {
		ix = random_index3();
		REQUIRE(cubie3_unrank(&ix, &c) == CUBE_OK);
		REQUIRE(cubie3_is_valid(&c) == 1);
		REQUIRE(cubie3_rank(&c, &back) == CUBE_OK);
		REQUIRE(back.corner == ix.corner);
		REQUIRE(back.edge == ix.edge);
	}
	/* the corners of each part's range */
	static const uint64_t cs[] = {0, 1, 2186, 2187, CUBE3_CORNER_STATES - 1};
	static const uint64_t es[] = {0, 1, 2047, 2048, CUBE3_EDGE_STATES / 2,
				      CUBE3_EDGE_STATES - 1};
	for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
		for (size_t j = 0; j < sizeof es / sizeof es[0]; j++) {
			ix = (cube_index){cs[i], es[j]};
			REQUIRE(cubie3_unrank(&ix, &c) == CUBE_OK);
			REQUIRE(cubie3_is_valid(&c) == 1);
			REQUIRE(cubie3_rank(&c, &back) == CUBE_OK);
			REQUIRE(back.corner == ix.corner);
			REQUIRE(back.edge == ix.edge);
		}
}
END_TEST

/* All of the 2×2 space: unrank is onto the valid states and rank inverts
 * it, so the index is a bijection. */
START_TEST(every_index2)
{
	cubie2 c;
	cube_index ix = {0, 0}, back;
	for (uint64_t i = 0; i < CUBE2_STATES; i++) {
		ix.corner = i;
		REQUIRE(cubie2_unrank(&ix, &c) == CUBE_OK);
		if (!cubie2_is_valid(&c))
			ck_abort_msg("index %llu unranks to an invalid 2x2",
				     (unsigned long long)i);
		REQUIRE(cubie2_rank(&c, &back) == CUBE_OK);
		if (back.corner != i || back.edge != 0)
			ck_abort_msg("index %llu ranks back as %llu",
				     (unsigned long long)i,
				     (unsigned long long)back.corner);
	}
}
END_TEST

static int cmp_index(const void *a, const void *b)
{
	const cube_index *x = a, *y = b;
	if (x->corner != y->corner)
		return x->corner < y->corner ? -1 : 1;
	return (x->edge > y->edge) - (x->edge < y->edge);
}

START_TEST(one_move_states)
{
	cube_index ix[18];
	for (int f = 0; f < 6; f++)
		for (int q = 1; q <= 3; q++) {
			cubie3 m;
			ck_assert_int_eq(cubie3_face_turn(f, q, &m), CUBE_OK);
			cube_index *x = &ix[f * 3 + q - 1];
			ck_assert_int_eq(cubie3_rank(&m, x), CUBE_OK);
			ck_assert(x->corner != 0 || x->edge != 0);
		}
	qsort(ix, 18, sizeof ix[0], cmp_index);
	for (int i = 1; i < 18; i++)
		ck_assert_int_ne(cmp_index(&ix[i - 1], &ix[i]), 0);

	/* 2×2: U R F keep DBL home; D L B move it, and after normalisation
	 * the 18 turns give 9 states */
	cube_index ix2[9];
	for (int f = 0; f < 3; f++)
		for (int q = 1; q <= 3; q++) {
			cubie2 m;
			static const int face[3] = {CUBE_U, CUBE_R, CUBE_F};
			ck_assert_int_eq(cubie2_face_turn(face[f], q, &m), CUBE_OK);
			cube_index *x = &ix2[f * 3 + q - 1];
			ck_assert_int_eq(cubie2_rank(&m, x), CUBE_OK);
			ck_assert_uint_ne(x->corner, 0);
			ck_assert_uint_eq(x->edge, 0);
		}
	qsort(ix2, 9, sizeof ix2[0], cmp_index);
	for (int i = 1; i < 9; i++)
		ck_assert_int_ne(cmp_index(&ix2[i - 1], &ix2[i]), 0);
	cube_t *c = malloc(cube_sizeof(2));
	ck_assert_ptr_nonnull(c);
	for (int axis = 0; axis < 3; axis++)
		for (int q = 1; q <= 3; q++) {
			/* D L B move DBL; normalised, D is U and so on: turning
			 * the bottom layer is turning the whole cube that way
			 * and then the top layer back, which is a U turn */
			static const int face[3] = {CUBE_L, CUBE_D, CUBE_B};
			static const int opposite[3] = {CUBE_R, CUBE_U, CUBE_F};
			cubie2 m, f;
			cube_index x, y, z;
			ck_assert_int_eq(cubie2_face_turn(face[axis], q, &m), CUBE_OK);
			ck_assert_int_eq(cubie2_rank(&m, &x), CUBE_EINVALID);
			ck_assert_int_eq(cubie2_normalize(&m, &m), CUBE_OK);
			ck_assert_int_eq(cubie2_rank(&m, &x), CUBE_OK);
			ck_assert_ptr_nonnull(bsearch(&x, ix2, 9, sizeof ix2[0],
						      cmp_index));
			ck_assert_int_eq(cubie2_face_turn(opposite[axis], q, &f),
					 CUBE_OK);
			ck_assert_int_eq(cubie2_rank(&f, &z), CUBE_OK);
			ck_assert_uint_eq(z.corner, x.corner);
			/* and the same state read from stickers: layer 1 of
			 * axis x, y, z is L, D, B (counted from R, U, F) */
			char s[24];
			cube_orientation o;
			ck_assert_int_eq(cube_init(c, 2), CUBE_OK);
			ck_assert_int_eq(cube_turn(c, axis, 1, 1, 4 - q), CUBE_OK);
			cube_to_facelets(c, s);
			ck_assert_int_eq(cube2_from_facelets(s, 24, &f, &o), CUBE_OK);
			ck_assert_int_eq(cubie2_rank(&f, &y), CUBE_OK);
			ck_assert_uint_eq(y.corner, x.corner);
		}
	free(c);
}
END_TEST

/* The paper's rank1, recursively, with its digits s_i relabelled
 * (i-1) - s_i: the corner part of the index must be this rank·3⁷ + twists,
 * the same algorithm the index claims to use. */
static uint64_t mr_rank(int n, uint8_t *pi, uint8_t *inv)
{
	if (n == 1)
		return 0;
	int s = pi[n - 1];
	uint8_t t = pi[n - 1];
	pi[n - 1] = pi[inv[n - 1]];
	pi[inv[n - 1]] = t;
	t = inv[s];
	inv[s] = inv[n - 1];
	inv[n - 1] = t;
	return (uint64_t)((n - 1) - s) + (uint64_t)n * mr_rank(n - 1, pi, inv);
}

START_TEST(myrvold_ruskey)
{
	cubie3 c;
	cube_index ix;
	for (int k = 0; k < 2000; k++) {
		random_cubie3(&c);
		uint8_t pi[8], inv[8];
		memcpy(pi, c.cp, 8);
		for (int i = 0; i < 8; i++)
			inv[pi[i]] = (uint8_t)i;
		uint64_t want = mr_rank(8, pi, inv);
		unsigned co = 0;
		for (int i = 6; i >= 0; i--)
			co = co * 3 + c.co[i];
		REQUIRE(cubie3_rank(&c, &ix) == CUBE_OK);
		REQUIRE(ix.corner == want * 2187 + co);

		/* edges: the same rank without its top digit (weight 12!/2) */
		uint8_t pe[12], ie[12];
		memcpy(pe, c.ep, 12);
		for (int i = 0; i < 12; i++)
			ie[pe[i]] = (uint8_t)i;
		unsigned eo = 0;
		for (int i = 10; i >= 0; i--)
			eo = eo << 1 | c.eo[i];
		REQUIRE(ix.edge == (mr_rank(12, pe, ie) % 239500800) * 2048 + eo);
	}
}
END_TEST

START_TEST(rank_rejects_invalid)
{
	cubie3 c, good;
	cube_index ix = {5, 6};
	random_cubie3(&good);

	c = good;
	c.co[0] = (uint8_t)((c.co[0] + 1) % 3); /* twist sum off */
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	c = good;
	c.eo[3] ^= 1; /* flip sum odd */
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	c = good;
	uint8_t t = c.ep[0]; /* one swap: parities differ */
	c.ep[0] = c.ep[1];
	c.ep[1] = t;
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	c = good;
	c.cp[0] = c.cp[1]; /* not a permutation */
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	c = good;
	c.ep[4] = 12;
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	cubie3_solved(&c);
	c.co[0] = 3; /* sum ≡ 0, but 3 is not a twist */
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	cubie3_solved(&c);
	c.eo[0] = 2; /* sum even, but 2 is not a flip */
	ck_assert_int_eq(cubie3_rank(&c, &ix), CUBE_EINVALID);
	ck_assert_uint_eq(ix.corner, 5); /* failures leave out alone */
	ck_assert_uint_eq(ix.edge, 6);
	ck_assert_int_eq(cubie3_rank(NULL, &ix), CUBE_EINVAL);
	ck_assert_int_eq(cubie3_rank(&good, NULL), CUBE_EINVAL);

	cubie2 d;
	cubie2_solved(&d);
	d.co[0] = 1; /* twist sum off */
	ck_assert_int_eq(cubie2_rank(&d, &ix), CUBE_EINVALID);
	cubie2_solved(&d);
	d.co[6] = 1; /* DBL twisted in place (sum still fine) */
	d.co[7] = 2;
	ck_assert_int_eq(cubie2_rank(&d, &ix), CUBE_EINVALID);
	cubie2_solved(&d);
	d.cp[6] = 7; /* DBL away from home */
	d.cp[7] = 6;
	ck_assert_int_eq(cubie2_rank(&d, &ix), CUBE_EINVALID);
	cubie2_solved(&d);
	d.cp[0] = 1; /* not a permutation */
	ck_assert_int_eq(cubie2_rank(&d, &ix), CUBE_EINVALID);
	cubie2_solved(&d);
	d.cp[0] = 1; /* one swap is fine: a 2×2 has no edge parity */
	d.cp[1] = 0;
	ck_assert_int_eq(cubie2_rank(&d, &ix), CUBE_OK);
	ck_assert_int_eq(cubie2_rank(NULL, &ix), CUBE_EINVAL);
}
END_TEST

START_TEST(unrank_rejects_out_of_range)
{
	cubie3 c;
	cubie2 d;
	cube_index ix = {CUBE3_CORNER_STATES, 0};
	ck_assert_int_eq(cubie3_unrank(&ix, &c), CUBE_ERANGE);
	ix = (cube_index){0, CUBE3_EDGE_STATES};
	ck_assert_int_eq(cubie3_unrank(&ix, &c), CUBE_ERANGE);
	ix = (cube_index){UINT64_MAX, UINT64_MAX};
	ck_assert_int_eq(cubie3_unrank(&ix, &c), CUBE_ERANGE);
	ix = (cube_index){CUBE2_STATES, 0};
	ck_assert_int_eq(cubie2_unrank(&ix, &d), CUBE_ERANGE);
	ix = (cube_index){0, 1};
	ck_assert_int_eq(cubie2_unrank(&ix, &d), CUBE_ERANGE);
	ck_assert_int_eq(cubie3_unrank(NULL, &c), CUBE_EINVAL);
	ck_assert_int_eq(cubie2_unrank(&ix, NULL), CUBE_EINVAL);
}
END_TEST

/* Decimal text of an index by plain repeated doubling in a digit array: a
 * reference that shares nothing with the limb arithmetic under test. */
static void slow_decimal(cube_index ix, char *out)
{
	int d[40] = {0};
	/* value = corner·E + edge, computed bit by bit */
	uint64_t parts[2] = {ix.corner, ix.edge};
	for (int part = 0; part < 2; part++) {
		if (part == 0) {
			for (int b = 63; b >= 0; b--) {
				int carry = 0;
				for (int k = 0; k < 40; k++) {
					int v = d[k] * 2 + carry;
					d[k] = v % 10;
					carry = v / 10;
				}
				d[0] += (int)(parts[0] >> b & 1);
			}
			/* multiply by E */
			int e[40] = {0};
			uint64_t E = CUBE3_EDGE_STATES;
			int m[40] = {0}, ne = 0;
			while (E) {
				e[ne++] = (int)(E % 10);
				E /= 10;
			}
			for (int i = 0; i < 40; i++)
				for (int j = 0; j < ne && i + j < 40; j++)
					m[i + j] += d[i] * e[j];
			for (int k = 0; k < 39; k++) {
				m[k + 1] += m[k] / 10;
				m[k] %= 10;
			}
			memcpy(d, m, sizeof d);
		} else {
			uint64_t v = parts[1];
			for (int k = 0; v; k++) {
				d[k] += (int)(v % 10);
				v /= 10;
			}
			for (int k = 0; k < 39; k++) {
				d[k + 1] += d[k] / 10;
				d[k] %= 10;
			}
		}
	}
	int top = 39;
	while (top > 0 && d[top] == 0)
		top--;
	for (int k = top; k >= 0; k--)
		*out++ = (char)('0' + d[k]);
	*out = '\0';
}

START_TEST(text_round_trip)
{
	char text[64], want[64];
	cube_index ix, back;
	for (int k = 0; k < 5000; k++) {
		ix = random_index3();
		if (k < 100) /* small and mid-sized values too */
			ix = (cube_index){rnd((unsigned)k + 1), rnd64() % (k * 1000u + 1)};
		size_t len = cube_index_format(&ix, 3, text, sizeof text);
		slow_decimal(ix, want);
		REQUIRE(strcmp(text, want) == 0);
		REQUIRE(len == strlen(want));
		REQUIRE(cube_index_parse(text, len, 3, &back) == CUBE_OK);
		REQUIRE(back.corner == ix.corner);
		REQUIRE(back.edge == ix.edge);

		ix = (cube_index){rnd64() % CUBE2_STATES, 0};
		len = cube_index_format(&ix, 2, text, sizeof text);
		snprintf(want, sizeof want, "%llu", (unsigned long long)ix.corner);
		REQUIRE(strcmp(text, want) == 0);
		REQUIRE(cube_index_parse(text, len, 2, &back) == CUBE_OK);
		REQUIRE(back.corner == ix.corner);
		REQUIRE(back.edge == 0);
	}
	/* snprintf's contract: the full length, a truncated NUL-ended copy */
	ix = (cube_index){CUBE3_CORNER_STATES - 1, CUBE3_EDGE_STATES - 1};
	REQUIRE(cube_index_format(&ix, 3, NULL, 0) == 20);
	memset(text, 'x', sizeof text);
	REQUIRE(cube_index_format(&ix, 3, text, 5) == 20);
	REQUIRE(strcmp(text, "4325") == 0);
	REQUIRE(cube_index_format(&ix, 3, text, 21) == 20);
	REQUIRE(strcmp(text, LAST3) == 0);
	/* an out-of-range pair still prints exactly what it holds */
	ix = (cube_index){UINT64_MAX, UINT64_MAX};
	cube_index_format(&ix, 3, text, sizeof text);
	slow_decimal(ix, want);
	REQUIRE(strcmp(text, want) == 0);
	/* sizes other than 2 and 3 have no index */
	REQUIRE(cube_index_format(&ix, 4, text, sizeof text) == 0);
	REQUIRE(strcmp(text, "") == 0);
}
END_TEST

static int parse3(const char *s)
{
	cube_index ix = {11, 12};
	int rc = cube_index_parse(s, strlen(s), 3, &ix);
	if (rc < 0)
		ck_assert(ix.corner == 11 && ix.edge == 12);
	return rc;
}

START_TEST(strict_parse)
{
	cube_index ix;
	ck_assert_int_eq(parse3("0"), CUBE_OK);
	ck_assert_int_eq(parse3(LAST3), CUBE_OK);
	ck_assert_int_eq(parse3(""), CUBE_EINVAL);
	ck_assert_int_eq(parse3("00"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("012"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("+12"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("-12"), CUBE_EINVAL);
	ck_assert_int_eq(parse3(" 12"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("12 "), CUBE_EINVAL);
	ck_assert_int_eq(parse3("1 2"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("12a"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("0x1f"), CUBE_EINVAL);
	ck_assert_int_eq(parse3("1e9"), CUBE_EINVAL);
	/* a well-formed number past the last state is out of range, however
	 * long; malformed text is invalid, however long */
	ck_assert_int_eq(parse3(COUNT3), CUBE_ERANGE);
	ck_assert_int_eq(parse3("99999999999999999999"), CUBE_ERANGE);
	ck_assert_int_eq(parse3("100000000000000000000000"), CUBE_ERANGE);
	ck_assert_int_eq(parse3("1000000000000000000000000000000000000000000"),
			 CUBE_ERANGE);
	ck_assert_int_eq(parse3("100000000000000000000000x"), CUBE_EINVAL);
	/* the length is the caller's: no NUL needed, none read */
	ck_assert_int_eq(cube_index_parse("123456", 3, 3, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, 0);
	ck_assert_uint_eq(ix.edge, 123);
	ck_assert_int_eq(cube_index_parse("1\0", 2, 3, &ix), CUBE_EINVAL);
	/* the edge part's boundary */
	ck_assert_int_eq(cube_index_parse("490497638400", 12, 3, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, 1);
	ck_assert_uint_eq(ix.edge, 0);
	ck_assert_int_eq(cube_index_parse("490497638399", 12, 3, &ix), CUBE_OK);
	ck_assert_uint_eq(ix.corner, 0);
	ck_assert_uint_eq(ix.edge, CUBE3_EDGE_STATES - 1);

	ck_assert_int_eq(cube_index_parse("3674160", 7, 2, &ix), CUBE_ERANGE);
	ck_assert_int_eq(cube_index_parse("07", 2, 2, &ix), CUBE_EINVAL);
	ck_assert_int_eq(cube_index_parse("1", 1, 4, &ix), CUBE_EINVAL);
	ck_assert_int_eq(cube_index_parse(NULL, 1, 3, &ix), CUBE_EINVAL);
	ck_assert_int_eq(cube_index_parse("1", 1, 3, NULL), CUBE_EINVAL);
}
END_TEST

/* The 364 features of c, checked against the facelets s: exactly one
 * colour per facelet, the right one. */
static void check_stickers(const float *v, const char *s)
{
	for (int i = 0; i < 54; i++)
		for (int col = 0; col < 6; col++)
			REQUIRE(v[6 * i + col] ==
				(s[i] == "URFDLB"[col] ? 1.0f : 0.0f));
}

START_TEST(features_solved)
{
	static const char solved[] =
		"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
	float v[CUBE3_FEATURES];
	cubie3 c;
	cubie3_solved(&c);
	memset(v, 0xff, sizeof v); /* every entry is written */
	cubie3_features(&c, v);
	for (int i = 0; i < 54; i++)
		for (int col = 0; col < 6; col++)
			ck_assert_float_eq(v[6 * i + col], i / 9 == col ? 1.0f : 0.0f);
	check_stickers(v, solved);
	for (int p = 324; p < CUBE3_FEATURES; p++)
		ck_assert_float_eq(v[p], 1.0f);
}
END_TEST

START_TEST(features_after_r)
{
	/* docs/conventions.md's facelets after R */
	static const char after_r[] =
		"UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB";
	float v[CUBE3_FEATURES];
	cubie3_features(&R_MOVE, v);
	check_stickers(v, after_r);
	/* R moves corners URF UBR DFR DRB (0 3 4 7) and edges UR DR FR BR
	 * (0 4 8 11): the other 4 corners and 8 edges are home, 12 flags */
	static const float pos[20] = {0, 1, 1, 0, 0, 1, 1, 0,
				      0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0};
	/* it twists each corner it moves (Kociemba twists 1 and 2) and flips
	 * no edge: 4 + 12 orientation flags */
	static const float ori[20] = {0, 1, 1, 0, 0, 1, 1, 0,
				      1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	float npos = 0, nori = 0;
	for (int p = 0; p < 20; p++) {
		ck_assert_float_eq(v[324 + p], pos[p]);
		ck_assert_float_eq(v[344 + p], ori[p]);
		npos += v[324 + p];
		nori += v[344 + p];
	}
	ck_assert_float_eq(npos, 12.0f);
	ck_assert_float_eq(nori, 16.0f);

	/* and cubie.c's R is the same transformation */
	cubie3 r;
	ck_assert_int_eq(cubie3_face_turn(CUBE_R, 1, &r), CUBE_OK);
	ck_assert_int_eq(cubie3_equal(&r, &R_MOVE), 1);
}
END_TEST

START_TEST(features_random)
{
	float v[CUBE3_FEATURES];
	cubie3 c;
	char s[54];
	for (int k = 0; k < 2000; k++) {
		random_cubie3(&c);
		cubie3_features(&c, v);
		float ones = 0;
		for (int i = 0; i < 324; i++) {
			REQUIRE(v[i] == 0.0f || v[i] == 1.0f);
			ones += v[i];
		}
		REQUIRE(ones == 54.0f);
		cube3_to_facelets(&c, s);
		check_stickers(v, s);
		/* flags per piece, wherever it is */
		for (int i = 0; i < 8; i++) {
			REQUIRE(v[324 + c.cp[i]] == (c.cp[i] == i ? 1.0f : 0.0f));
			REQUIRE(v[344 + c.cp[i]] == (c.co[i] == 0 ? 1.0f : 0.0f));
		}
		for (int i = 0; i < 12; i++) {
			REQUIRE(v[332 + c.ep[i]] == (c.ep[i] == i ? 1.0f : 0.0f));
			REQUIRE(v[352 + c.ep[i]] == (c.eo[i] == 0 ? 1.0f : 0.0f));
		}
	}
}
END_TEST

Suite *index_suite(void)
{
	Suite *s = suite_create("index");
	TCase *tc = tcase_create("index");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, solved_is_zero);
	tcase_add_test(tc, last_index);
	tcase_add_test(tc, round_trip_states3);
	tcase_add_test(tc, round_trip_indices3);
	tcase_add_test(tc, every_index2);
	tcase_add_test(tc, one_move_states);
	tcase_add_test(tc, myrvold_ruskey);
	tcase_add_test(tc, rank_rejects_invalid);
	tcase_add_test(tc, unrank_rejects_out_of_range);
	tcase_add_test(tc, text_round_trip);
	tcase_add_test(tc, strict_parse);
	suite_add_tcase(s, tc);
	TCase *tf = tcase_create("features");
	tcase_add_test(tf, features_solved);
	tcase_add_test(tf, features_after_r);
	tcase_add_test(tf, features_random);
	suite_add_tcase(s, tf);
	return s;
}
