/* check_pattern.c — pattern queries (core/pattern.c): the compiled matcher
 * against an independent brute-force matcher on random states and random
 * patterns for n = 1…7 and a tiled big cube, seed 000's 2×2 example, the
 * named stages on known states with exact orientation masks, errors with
 * their offsets, and piece queries.
 *
 * The brute force shares nothing with the matcher but the engine: for each
 * orientation it writes the inverse rotation from pattern.h's definition
 * ("T_face' y^-k") as notation, turns a copy of the state with alg_parse +
 * alg_apply, and compares the facelets place by place, checking the digit
 * rule after the fact. Masks (which orientations fit) must agree exactly. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cubie.h"
#include "pattern.h"
#include "pattern_internal.h"
#include "cube_helpers.h"
#include "require.h"
#include "suites.h"

static size_t places(int n)
{
	return 6u * (size_t)n * (size_t)n;
}

static cube_t *clone(const cube_t *c)
{
	cube_t *d = malloc(cube_sizeof(c->n));
	ck_assert_ptr_nonnull(d);
	cube_copy(d, c);
	return d;
}

static void apply_alg(cube_t *c, const char *s)
{
	size_t len = strlen(s), cap = alg_nodes_needed(len);
	alg_node *nodes = malloc(cap * sizeof *nodes);
	alg_t a;
	alg_error e;
	ck_assert_ptr_nonnull(nodes);
	ck_assert_msg(alg_parse(&a, nodes, cap, c->n, s, len, NULL, &e) ==
			      CUBE_OK,
		      "\"%s\": %s at %zu", s, cube_errname(e.code), e.offset);
	ck_assert_int_eq(alg_apply(&a, c, 0), CUBE_OK);
	free(nodes);
}

static cube_t *cube_after(int n, const char *moves)
{
	cube_t *c = new_cube(n);
	apply_alg(c, moves);
	return c;
}

static pattern_t *compile(int n, const char *s)
{
	size_t len = strlen(s);
	pattern_t *p = malloc(pattern_sizeof(n, s, len));
	pattern_error err = {0, 0};
	ck_assert_ptr_nonnull(p);
	ck_assert_msg(pattern_compile(p, n, s, len, &err) == CUBE_OK,
		      "%s at %zu in %s", pattern_errname(err.code), err.offset, s);
	return p;
}

/* The mask pattern_match finds, which the portable path must find too
 * (the vector path is the one pattern_match takes where the CPU has it). */
static uint32_t match_mask(const pattern_t *const *p, size_t np,
			   const cube_t *c)
{
	uint32_t mask = 0xdeadbeef, portable = 0xdeadbeef;
	int count = pattern_match(p, np, c, 0, &mask);
	ck_assert_int_ge(count, 0);
	ck_assert_int_eq(count, __builtin_popcount(mask));
	ck_assert_uint_eq(mask >> 24, 0);
	ck_assert_int_eq(pattern__match_portable(p, np, c, 0, &portable), count);
	ck_assert_uint_eq(portable, mask);
	return mask;
}

static uint32_t match1(const pattern_t *p, const cube_t *c)
{
	return match_mask(&p, 1, c);
}

/* ------------------------------------------------------------ brute force */

/* Orientation k's inverse rotation, straight from pattern.h: T_face' then
 * y' k times. */
static void inverse_moves(int k, char *out)
{
	static const char *const t_inv[6] = {"", "z'", "x", "x2", "z", "x'"};
	strcpy(out, t_inv[k / 4]);
	for (int i = 0; i < k % 4; i++)
		strcat(out, *out ? " y'" : "y'");
}

/* Does pattern pat fit the facelets s as written? Places first, the digit
 * rule afterwards: digits distinct from each other and from every letter
 * in the pattern. */
static int brute_fits(const char *pat, const char *s, size_t len)
{
	char color[7] = {0};
	int letters[256] = {0};
	for (size_t i = 0; i < len; i++) {
		char p = pat[i];
		if (p == '*')
			continue;
		if (p >= '1' && p <= '6') {
			if (!color[p - '0'])
				color[p - '0'] = s[i];
			else if (color[p - '0'] != s[i])
				return 0;
			continue;
		}
		letters[(unsigned char)p] = 1;
		if (s[i] != p)
			return 0;
	}
	for (int d = 1; d <= 6; d++) {
		if (!color[d])
			continue;
		if (letters[(unsigned char)color[d]])
			return 0;
		for (int e = 1; e < d; e++)
			if (color[e] == color[d])
				return 0;
	}
	return 1;
}

/* The mask of orientations in which every pattern of pats[0..np) fits. */
static uint32_t brute_mask(const char *const *pats, size_t np,
			   const cube_t *c)
{
	uint32_t mask = 0;
	size_t len = places(c->n);
	for (int k = 0; k < 24; k++) {
		char moves[32];
		inverse_moves(k, moves);
		cube_t *t = clone(c);
		apply_alg(t, moves);
		char *s = facelets(t);
		size_t i = 0;
		while (i < np && brute_fits(pats[i], s, len))
			i++;
		if (i == np)
			mask |= 1u << k;
		free(s);
		free(t);
	}
	return mask;
}

static void random_state(cube_t *c, int moves)
{
	int n = c->n;
	for (int i = 0; i < moves; i++) {
		int lo = (int)rnd((uint32_t)n);
		int hi = lo + (int)rnd((uint32_t)(n - lo));
		ck_assert_int_eq(cube_turn(c, (int)rnd(3), lo, hi,
					   1 + (int)rnd(3)),
				 CUBE_OK);
	}
}

/* A pattern that often fits c: its facelets in orientation k's frame, most
 * places blanked, some colours replaced by digits throughout, sometimes a
 * place or two changed at random. */
static void derived_pattern(const cube_t *c, int k, char *out)
{
	static const char any[] = "URFDLB123456*";
	size_t len = places(c->n);
	char moves[32];
	inverse_moves(k, moves);
	cube_t *t = clone(c);
	apply_alg(t, moves);
	cube_to_facelets(t, out);
	out[len] = '\0';
	free(t);
	char digit[6] = {0};
	int used = 0;
	for (int col = 0; col < 6; col++)
		if (rnd(2)) {
			int d;
			do
				d = (int)rnd(6);
			while (used >> d & 1);
			used |= 1 << d;
			digit[col] = (char)('1' + d);
		}
	static const int keep_pct[] = {2, 5, 10, 30, 70, 100};
	int keep = keep_pct[rnd(6)];
	for (size_t i = 0; i < len; i++) {
		if ((int)rnd(100) >= keep) {
			out[i] = '*';
			continue;
		}
		int col = (int)(strchr(cube_face_letters, out[i]) -
				cube_face_letters);
		if (digit[col])
			out[i] = digit[col];
	}
	for (int m = (int)rnd(4) - 1; m > 0; m--)
		out[rnd((uint32_t)len)] = any[rnd(13)];
}

static void random_pattern(int n, char *out)
{
	static const char any[] = "URFDLB123456";
	size_t len = places(n);
	int keep = 1 + (int)rnd(n <= 3 ? 12 : 4);
	for (size_t i = 0; i < len; i++)
		out[i] = (int)rnd(100) < keep ? any[rnd(12)] : '*';
	out[len] = '\0';
}

/* trials random (state, pattern) pairs for size n: one pattern, two
 * patterns at once, and first = 1, each against the brute force. */
static void compare_random(int n, int trials, int derived_pct)
{
	size_t len = places(n);
	char *pa = malloc(len + 1), *pb = malloc(len + 1);
	int matched = 0;
	ck_assert_ptr_nonnull(pa);
	ck_assert_ptr_nonnull(pb);
	for (int t = 0; t < trials; t++) {
		cube_t *c = new_cube(n);
		random_state(c, (int)rnd(40));
		int k = (int)rnd(24);
		int derived = (int)rnd(100) < derived_pct;
		if (derived)
			derived_pattern(c, k, pa);
		else
			random_pattern(n, pa);
		if (rnd(2))
			derived_pattern(c, (int)rnd(24), pb);
		else
			random_pattern(n, pb);

		pattern_t *p[2] = {compile(n, pa), compile(n, pb)};
		const char *text[2] = {pa, pb};
		uint32_t want = brute_mask(text, 1, c), got = match1(p[0], c);
		ck_assert_msg(got == want,
			      "n=%d trial %d: mask %06x, brute force %06x\n"
			      "pattern %s\nstate   %s",
			      n, t, got, want, pa, facelets(c));
		matched += want != 0;
		uint32_t both = brute_mask(text, 2, c);
		ck_assert_uint_eq(both, want & brute_mask(text + 1, 1, c));
		ck_assert_uint_eq(match_mask((const pattern_t *const *)p, 2, c),
				  both);

		uint32_t first = 0xffffffff;
		int count = pattern_match((const pattern_t *const *)p, 1, c, 1,
					  &first);
		ck_assert_int_eq(count, want != 0);
		ck_assert_uint_eq(first, want & -want); /* the lowest fit */
		first = 0xffffffff;
		count = pattern__match_portable((const pattern_t *const *)p, 1, c,
						1, &first);
		ck_assert_int_eq(count, want != 0);
		ck_assert_uint_eq(first, want & -want);
		free(p[0]);
		free(p[1]);
		free(c);
	}
	/* the comparison means little if nothing ever fits (the plain
	 * build's guard: with SANITIZED's fewer trials, and so other random
	 * draws for the later sizes, the share is another sample) */
	ck_assert_msg(SANITIZED || matched * 3 >= trials,
		      "n=%d: only %d of %d fit", n, matched, trials);
	free(pa);
	free(pb);
}

/* Under the sanitizers and memcheck (SANITIZED) a fifth of the trials:
 * they look for memory errors, which any trial shows; the agreement with
 * the brute force is the plain build's to check in full. */
#define TRIALS(k) (SANITIZED ? ((k) + 4) / 5 : (k))

START_TEST(brute_force_small)
{
	rnd_seed(11);
	compare_random(1, TRIALS(200), 50);
	compare_random(2, TRIALS(2000), 60);
	compare_random(3, TRIALS(2000), 60);
}
END_TEST

START_TEST(brute_force_big)
{
	rnd_seed(12);
	compare_random(4, TRIALS(600), 60);
	compare_random(5, TRIALS(400), 60);
	compare_random(6, TRIALS(100), 60);
	compare_random(7, TRIALS(100), 60);
	/* tiled storage (n a multiple of 8, >= 64) and a big odd cube */
	compare_random(64, 12, 75);
	compare_random(101, 9, 100);
}
END_TEST

/* The brute force must be able to say no: a scrambled cube's facelets
 * as written fit in the identity only, and one place changed to another
 * letter fits nowhere. */
START_TEST(brute_force_can_fail)
{
	rnd_seed(13);
	cube_t *c = new_cube(3);
	random_state(c, 30);
	char *pat = facelets(c);
	const char *text[1] = {pat};
	pattern_t *p = compile(3, pat);
	ck_assert_uint_eq(match1(p, c), 1);
	ck_assert_uint_eq(brute_mask(text, 1, c), 1);
	free(p);
	pat[0] = pat[0] == 'U' ? 'D' : 'U';
	p = compile(3, pat);
	ck_assert_uint_eq(match1(p, c), 0);
	ck_assert_uint_eq(brute_mask(text, 1, c), 0);
	free(p);
	free(pat);
	free(c);
}
END_TEST

/* ------------------------------------------------------------ orientation */

static const char SOLVED3[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* Orientation k: the solved cube turned by "y^k T_face" fits the solved
 * letter pattern in orientation k only, and the orientation's moves turn
 * it back. */
START_TEST(orientation_semantics)
{
	static const char *const t_face[6] = {"", "z", "x'", "x2", "z'", "x"};
	pattern_t *p = compile(3, SOLVED3);
	for (int k = 0; k < 24; k++) {
		char turn[32] = "";
		for (int i = 0; i < k % 4; i++)
			strcat(turn, "y ");
		strcat(turn, t_face[k / 4]);
		cube_t *c = cube_after(3, turn);
		ck_assert_uint_eq(match1(p, c), 1u << k);

		pattern_orientation o;
		memset(&o, 'x', sizeof o);
		pattern_orientation_of(k, &o);
		ck_assert_int_eq(o.face, "URFDLB"[k / 4]);
		ck_assert_int_eq(o.rotation, 90 * (k % 4));
		ck_assert_uint_lt(strlen(o.moves), sizeof o.moves);
		apply_alg(c, o.moves);
		ck_assert_msg(cube_is_solved(c), "k=%d moves \"%s\"", k, o.moves);

		/* shortest: one move where one suffices, none only for k=0 */
		size_t words = 0;
		for (const char *s = o.moves; *s; s++)
			words += (s == o.moves || s[-1] == ' ') && *s != ' ';
		ck_assert_uint_le(words, 2);
		ck_assert_int_eq(words == 0, k == 0);
		if (k == 12 + 2) /* x2 y2 is one turn */
			ck_assert_str_eq(o.moves, "z2");
		free(c);
	}
	pattern_orientation o = {0};
	pattern_orientation_of(1, &o);
	ck_assert_str_eq(o.moves, "y'");
	pattern_orientation_of(3, &o);
	ck_assert_str_eq(o.moves, "y");
	pattern_orientation_of(8, &o);
	ck_assert_str_eq(o.moves, "x");
	pattern_orientation_of(12, &o);
	ck_assert_str_eq(o.moves, "x2");
	memset(&o, 'q', sizeof o);
	pattern_orientation_of(24, &o); /* out of range: untouched */
	ck_assert_int_eq(o.face, 'q');
	free(p);
}
END_TEST

/* A few orientations by hand, independent of the loop above. */
START_TEST(orientation_examples)
{
	static const struct {
		const char *state;
		uint32_t mask;
	} cases[] = {
		{"", 1u << 0},
		{"y", 1u << 1},       /* U side, 90° */
		{"y2", 1u << 2},
		{"z", 1u << 4},       /* U went to R */
		{"x'", 1u << 8},      /* U went to F */
		{"y x'", 1u << 9},    /* F, 90° */
		{"x2", 1u << 12},     /* D */
		{"z2", 1u << 14},     /* D, 180° */
		{"z'", 1u << 16},     /* L */
		{"x", 1u << 20},      /* B */
	};
	pattern_t *p = compile(3, SOLVED3);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cube_t *c = cube_after(3, cases[i].state);
		ck_assert_msg(match1(p, c) == cases[i].mask, "after \"%s\": %06x",
			      cases[i].state, match1(p, c));
		free(c);
	}
	free(p);
}
END_TEST

/* ---------------------------------------------------------------- seed 000 */

/* Seed 000's pattern: [1,1,1,1] A, [*,*,2,2] A.up, [3,*,3,*] A.right,
 * [*,4,*,4] A.left, [5,5,*,*] A.down, [*,*,*,*] A.down.down. In our net
 * with A = U: A.up is B, A.right R, A.left L, A.down F, A.down.down D, and
 * each side's strip next to U is its top row. */
static const char SEED2[] = "1111" "33**" "55**" "****" "44**" "22**";

START_TEST(seed_2x2_first_layer)
{
	static const char *const t_face[6] = {"", "z", "x'", "x2", "z'", "x"};
	const pattern_named *fl = pattern_named_find(2, "first_layer");
	ck_assert_ptr_nonnull(fl);
	char text[25] = {0};
	ck_assert_int_eq(pattern_named_text(fl, 2, 0, text), CUBE_OK);
	ck_assert_str_eq(text, SEED2);
	pattern_t *p = compile(2, SEED2);
	const char *pats[1] = {SEED2};

	/* Sune keeps the D layer and scrambles U; then x2 puts the solved
	 * layer on U, and each orientation's turn carries it to that face. */
	static const char *const last_layer[] = {
		"R U R' U R U2 R'", "R U R' U R U2 R' U", "(R U R' U R U2 R')2 U2",
		"R U2 R' U' R U' R'",
	};
	for (size_t a = 0; a < sizeof last_layer / sizeof last_layer[0]; a++)
		for (int k = 0; k < 24; k++) {
			char alg[128];
			snprintf(alg, sizeof alg, "%s x2", last_layer[a]);
			for (int i = 0; i < k % 4; i++)
				strcat(alg, " y");
			strcat(alg, " ");
			strcat(alg, t_face[k / 4]);
			cube_t *c = cube_after(2, alg);
			uint32_t want = 0xfu << (k / 4 * 4);
			ck_assert_msg(match1(p, c) == want, "%s: %06x", alg,
				      match1(p, c));
			ck_assert_uint_eq(brute_mask(pats, 1, c), want);
			free(c);
		}
	/* the solved 2×2 has a first layer on every face */
	cube_t *c = new_cube(2);
	ck_assert_uint_eq(match1(p, c), 0xffffff);
	free(c);
	/* a scramble has none */
	c = cube_after(2, "R U F' R2 U' F R' U2 F2 U' R");
	ck_assert_uint_eq(match1(p, c), 0);
	ck_assert_uint_eq(brute_mask(pats, 1, c), 0);
	free(c);
	free(p);
}
END_TEST

/* ------------------------------------------------------------ named stages */

struct named_compiled {
	int np;
	pattern_t *p[16];
	char *text[16];
};

static void named_compile(int n, const char *name, struct named_compiled *nc)
{
	const pattern_named *pn = pattern_named_find(n, name);
	ck_assert_msg(pn != NULL, "no %s for n=%d", name, n);
	ck_assert_int_le(pn->nparts, 16);
	nc->np = pn->nparts;
	for (int i = 0; i < pn->nparts; i++) {
		nc->text[i] = malloc(places(n) + 1);
		ck_assert_ptr_nonnull(nc->text[i]);
		ck_assert_int_eq(pattern_named_text(pn, n, i, nc->text[i]),
				 CUBE_OK);
		nc->text[i][places(n)] = '\0';
		nc->p[i] = compile(n, nc->text[i]);
	}
}

static void named_free(struct named_compiled *nc)
{
	for (int i = 0; i < nc->np; i++) {
		free(nc->p[i]);
		free(nc->text[i]);
	}
}

/* The named pattern's mask after moves, checked against the brute force
 * over all its parts. */
static uint32_t named_mask(int n, const char *name, const char *moves)
{
	struct named_compiled nc;
	named_compile(n, name, &nc);
	cube_t *c = cube_after(n, moves);
	uint32_t got = match_mask((const pattern_t *const *)nc.p,
				  (size_t)nc.np, c);
	uint32_t want = brute_mask((const char *const *)nc.text,
				   (size_t)nc.np, c);
	ck_assert_msg(got == want, "%s after \"%s\" on n=%d: %06x, brute %06x",
		      name, moves, n, got, want);
	free(c);
	named_free(&nc);
	return got;
}

#define FACE_MASK(f) (0xfu << (4 * (f)))
#define ALL 0xffffffu

START_TEST(named_lists)
{
	static const char *const order3[] = {"solved", "cross", "first_layer",
					     "f2l", "eo", "oll", "pll"};
	ck_assert_int_eq(pattern_named_count(3), 7);
	for (int k = 0; k < 7; k++)
		ck_assert_str_eq(pattern_named_at(3, k)->name, order3[k]);
	ck_assert_ptr_null(pattern_named_at(3, 7));
	ck_assert_ptr_null(pattern_named_at(3, -1));
	ck_assert_int_eq(pattern_named_count(2), 2);
	ck_assert_str_eq(pattern_named_at(2, 0)->name, "first_layer");
	ck_assert_str_eq(pattern_named_at(2, 1)->name, "solved");
	ck_assert_int_eq(pattern_named_count(1), 1);
	ck_assert_int_eq(pattern_named_count(0), 0);
	ck_assert_int_eq(pattern_named_count(1025), 0);
	static const char *const order4[] = {"centers_solved", "edges_paired",
					     "reduced", "solved"};
	static const int parts4[] = {1, 12, 13, 1};
	for (int n = 4; n <= 1024; n += 1020)
		for (int k = 0; k < 4; k++) {
			const pattern_named *pn = pattern_named_at(n, k);
			ck_assert_str_eq(pn->name, order4[k]);
			ck_assert_int_eq(pn->nparts, parts4[k]);
			ck_assert_ptr_eq(pattern_named_find(n, order4[k]), pn);
		}
	ck_assert_ptr_null(pattern_named_find(3, "centers_solved"));
	ck_assert_ptr_null(pattern_named_find(4, "cross"));
	ck_assert_ptr_null(pattern_named_find(3, "Cross"));
	ck_assert_ptr_null(pattern_named_find(3, NULL));
	for (int n = 1; n <= 6; n++)
		for (int k = 0; k < pattern_named_count(n); k++)
			ck_assert_uint_gt(strlen(pattern_named_at(n, k)->description), 10);

	/* a pattern of one size is not one of another's */
	char buf[150];
	const pattern_named *cross = pattern_named_find(3, "cross");
	ck_assert_int_eq(pattern_named_text(cross, 4, 0, buf), CUBE_EINVAL);
	ck_assert_int_eq(pattern_named_text(cross, 3, 1, buf), CUBE_ERANGE);
	ck_assert_int_eq(pattern_named_text(cross, 3, -1, buf), CUBE_ERANGE);
	ck_assert_int_eq(pattern_named_text(NULL, 3, 0, buf), CUBE_EINVAL);
	const pattern_named *ep = pattern_named_find(4, "edges_paired");
	ck_assert_int_eq(pattern_named_text(ep, 4, 12, buf), CUBE_ERANGE);
	ck_assert_int_eq(pattern_named_text(ep, 4, 11, buf), CUBE_OK);
}
END_TEST

/* The texts the place rules produce, pinned for 3×3 (digits in seed 000's
 * order: stage face 1, the face above it in the net 2, right 3, left 4,
 * below 5, opposite 6). */
START_TEST(named_texts_3x3)
{
	static const struct {
		const char *name, *text;
	} want[] = {
		{"solved", "111111111" "333333333" "555555555" "666666666"
			   "444444444" "222222222"},
		{"cross", "*1*111*1*" "*3**3****" "*5**5****" "*********"
			  "*4**4****" "*2**2****"},
		{"first_layer", "111111111" "333*3****" "555*5****" "*********"
				"444*4****" "222*2****"},
		{"f2l", "111111111" "333333***" "555555***" "*********"
			"444444***" "222222***"},
		{"eo", "111111111" "333333***" "555555***" "*6*666*6*"
		       "444444***" "222222***"},
		{"oll", "111111111" "333333***" "555555***" "666666666"
			"444444***" "222222***"},
		{"pll", "111111111" "333333333" "555555555" "666666666"
			"444444444" "222222222"},
	};
	char buf[55] = {0};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const pattern_named *pn = pattern_named_find(3, want[i].name);
		ck_assert_int_eq(pattern_named_text(pn, 3, 0, buf), CUBE_OK);
		ck_assert_str_eq(buf, want[i].text);
	}
	/* 4×4: centers, and the UR edge's part (U's right column, R's top
	 * row, inner stickers only) */
	char big[97] = {0};
	const pattern_named *cs = pattern_named_find(4, "centers_solved");
	ck_assert_int_eq(pattern_named_text(cs, 4, 0, big), CUBE_OK);
	ck_assert_str_eq(big, "*****11**11*****" "*****33**33*****"
			      "*****55**55*****" "*****66**66*****"
			      "*****44**44*****" "*****22**22*****");
	const pattern_named *ep = pattern_named_find(4, "edges_paired");
	ck_assert_int_eq(pattern_named_text(ep, 4, 0, big), CUBE_OK);
	ck_assert_str_eq(big, "*******1***1****" "*22*************"
			      "****************" "****************"
			      "****************" "****************");
	const pattern_named *red = pattern_named_find(4, "reduced");
	char part[97] = {0};
	for (int i = 0; i < 13; i++) {
		ck_assert_int_eq(pattern_named_text(red, 4, i, part), CUBE_OK);
		ck_assert_int_eq(pattern_named_text(i ? ep : cs, 4, i ? i - 1 : 0,
						    big),
				 CUBE_OK);
		ck_assert_str_eq(part, big);
	}
}
END_TEST

START_TEST(named_3x3_stages)
{
	static const char *const stages[] = {"solved", "cross", "first_layer",
					     "f2l", "eo", "oll", "pll"};
	for (size_t i = 0; i < 7; i++)
		ck_assert_uint_eq(named_mask(3, stages[i], ""), ALL);

	/* R U R': the D cross survives (DR comes home), the DFR corner does
	 * not; no other face keeps a cross */
	ck_assert_uint_eq(named_mask(3, "cross", "R U R'"), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "first_layer", "R U R'"), 0);
	ck_assert_uint_eq(named_mask(3, "f2l", "R U R'"), 0);
	/* the same upside down: the cross is reported on U */
	ck_assert_uint_eq(named_mask(3, "cross", "R D R'"), FACE_MASK(CUBE_U));
	ck_assert_uint_eq(named_mask(3, "cross", "R U R' x2"),
			  FACE_MASK(CUBE_U));

	/* R U R' U': crosses on D (DR returns) and L (untouched by R, and U
	 * U' return its top edge); L's first layer too, since R and U leave
	 * its corners UFL, ULB, DLF, DBL home; nothing more */
	ck_assert_uint_eq(named_mask(3, "cross", "R U R' U'"),
			  FACE_MASK(CUBE_D) | FACE_MASK(CUBE_L));
	for (size_t i = 3; i < 7; i++)
		ck_assert_uint_eq(named_mask(3, stages[i], "R U R' U'"), 0);
	ck_assert_uint_eq(named_mask(3, "solved", "R U R' U'"), 0);

	/* the last layer turned: F2L on D holds, OLL too (U is still one
	 * colour), PLL not */
	ck_assert_uint_eq(named_mask(3, "f2l", "U"), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "oll", "U"), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "eo", "U"), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "pll", "U"), 0);
	/* a T-perm keeps the last face one colour: OLL, not PLL */
	const char *tperm = "R U R' U' R' F R2 U' R' U' R U R' F'";
	ck_assert_uint_eq(named_mask(3, "oll", tperm), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "pll", tperm), 0);
	/* Sune twists the last layer's corners but keeps its edges
	 * oriented: EO, not OLL */
	const char *sune = "R U R' U R U2 R'";
	ck_assert_uint_eq(named_mask(3, "eo", sune), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "oll", sune), 0);
	/* F R U R' U' F' flips two last-layer edges: F2L, not EO */
	const char *flip = "F R U R' U' F'";
	ck_assert_uint_eq(named_mask(3, "f2l", flip), FACE_MASK(CUBE_D));
	ck_assert_uint_eq(named_mask(3, "eo", flip), 0);

	/* whole-cube rotations and a recoloured cube change nothing: the
	 * stages use digits only */
	ck_assert_uint_eq(named_mask(3, "f2l", "x y2 D"), FACE_MASK(CUBE_U));
	struct named_compiled nc;
	named_compile(3, "solved", &nc);
	cube_t *c = new_cube(3);
	ck_assert_int_eq(cube_from_facelets(c, 3,
		"BBBBBBBBBLLLLLLLLLUUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDD", 54,
		NULL), CUBE_OK);
	ck_assert_uint_eq(match_mask((const pattern_t *const *)nc.p, 1, c), ALL);
	free(c);
	named_free(&nc);
}
END_TEST

START_TEST(named_big_stages)
{
	for (int n = 4; n <= 7; n++) {
		char slice[32], inner[32];
		snprintf(slice, sizeof slice, "2R U 2R'");
		snprintf(inner, sizeof inner, "R U 2-%dR", n - 1);
		static const char *const names[] = {"centers_solved",
						    "edges_paired", "reduced",
						    "solved"};
		for (int k = 0; k < 4; k++)
			ck_assert_uint_eq(named_mask(n, names[k], ""), ALL);
		/* Rw drags an inner slice: centers and edges broken */
		ck_assert_uint_eq(named_mask(n, "centers_solved", "Rw"), 0);
		ck_assert_uint_eq(named_mask(n, "edges_paired", "Rw"), 0);
		ck_assert_uint_eq(named_mask(n, "reduced", "Rw"), 0);
		/* an inner slice out and back around U: both broken */
		ck_assert_uint_eq(named_mask(n, "edges_paired", slice), 0);
		ck_assert_uint_eq(named_mask(n, "centers_solved", slice), 0);
		/* the edge-pairing trick: centers restored, edges split */
		ck_assert_uint_eq(named_mask(n, "centers_solved",
					     "Uw R U R' Uw'"), ALL);
		ck_assert_uint_eq(named_mask(n, "edges_paired", "Uw R U R' Uw'"),
				  0);
		ck_assert_uint_eq(named_mask(n, "reduced", "Uw R U R' Uw'"), 0);
		/* 3×3-like moves (outer layers, or all inner layers at once)
		 * keep the reduction */
		ck_assert_uint_eq(named_mask(n, "reduced", "R U"), ALL);
		ck_assert_uint_eq(named_mask(n, "solved", "R U"), 0);
		ck_assert_uint_eq(named_mask(n, "reduced", inner), ALL);
		ck_assert_uint_eq(named_mask(n, "centers_solved", inner), ALL);
	}
	/* every named pattern of every size fits the solved cube 24 times */
	for (int n = 1; n <= 9; n++)
		for (int k = 0; k < pattern_named_count(n); k++)
			ck_assert_uint_eq(named_mask(n, pattern_named_at(n, k)->name,
						     ""), ALL);
}
END_TEST

/* ------------------------------------------------------------------ errors */

START_TEST(compile_errors)
{
	static const struct {
		int n;
		const char *text;
		int code;
		size_t offset;
	} cases[] = {
		{0, "UUUU", CUBE_ELENGTH, 4},
		{3, "UUUURRRRFFFFDDDDLLLLBBBB", CUBE_ELENGTH, 24},
		{2, "UUUURRRRFFFFDDDDLLLLBBB", CUBE_ELENGTH, 23},
		{0, "", CUBE_ELENGTH, 0},
		{0, "UUUURRRRFFFFDDDDLLLLBBBX", PATTERN_ECHAR, 23},
		{0, "UUUuRRRRFFFFDDDDLLLLBBBB", PATTERN_ECHAR, 3},
		{0, "U U RRRRFFFFDDDDLLLLBBBB", PATTERN_ECHAR, 1},
		{0, "1234RRRR5670DDDDLLLLBBBB", PATTERN_EDIGITS, 10},
		{0, "12*4RRRR56*9DDDDLLLLBBBx", PATTERN_EDIGITS, 11},
		{0, "12*4RRRR56*xDDDDLLLLBBB9", PATTERN_ECHAR, 11},
		{0, "0***********************", PATTERN_EDIGITS, 0},
		{1025, "******", CUBE_ESIZE, 0},
		{-1, "******", CUBE_ESIZE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = strlen(cases[i].text);
		size_t size = pattern_sizeof(cases[i].n, cases[i].text, len);
		ck_assert_uint_gt(size, 0);
		pattern_t *p = malloc(size);
		pattern_error err = {99, 99};
		ck_assert_int_eq(pattern_compile(p, cases[i].n, cases[i].text,
						 len, &err),
				 cases[i].code);
		ck_assert_int_eq(err.code, cases[i].code);
		ck_assert_msg(err.offset == cases[i].offset,
			      "case %zu: offset %zu", i, err.offset);
		free(p);
	}
	/* a NUL inside the text is a bad character like any other */
	char text[25];
	memcpy(text, SEED2, 24);
	text[7] = '\0';
	pattern_t *p = malloc(pattern_sizeof(2, NULL, 0));
	pattern_error err;
	ck_assert_int_eq(pattern_compile(p, 2, text, 24, &err), PATTERN_ECHAR);
	ck_assert_uint_eq(err.offset, 7);
	ck_assert_int_eq(pattern_compile(NULL, 2, SEED2, 24, &err), CUBE_EINVAL);
	ck_assert_int_eq(pattern_compile(p, 2, SEED2, 24, NULL), CUBE_OK);
	ck_assert_int_eq(pattern_size(p), 2);
	free(p);

	ck_assert_str_eq(pattern_errname(PATTERN_ECHAR), "bad_pattern_char");
	ck_assert_str_eq(pattern_errname(PATTERN_EDIGITS), "bad_pattern_digit");
	ck_assert_str_eq(pattern_errname(PATTERN_ENAME), "unknown_pattern");
	ck_assert_str_eq(pattern_errname(CUBE_ELENGTH), "facelets_length");
	ck_assert_uint_gt(strlen(pattern_strerror(PATTERN_ECHAR)), 10);
	ck_assert_uint_gt(strlen(pattern_strerror(PATTERN_EDIGITS)), 10);
	ck_assert_uint_gt(strlen(pattern_strerror(PATTERN_ENAME)), 10);
	ck_assert_str_eq(pattern_strerror(CUBE_ELENGTH),
			 cube_strerror(CUBE_ELENGTH));
}
END_TEST

START_TEST(match_arguments_and_sizes)
{
	pattern_t *p3 = compile(3, SOLVED3), *p2 = compile(2, SEED2);
	cube_t *c = new_cube(3);
	uint32_t mask = 7;
	const pattern_t *both[2] = {p3, p2};
	ck_assert_int_eq(pattern_match(both, 2, c, 0, &mask), CUBE_EINVAL);
	ck_assert_uint_eq(mask, 7);
	ck_assert_int_eq(pattern_match(both, 0, c, 0, &mask), CUBE_EINVAL);
	ck_assert_int_eq(pattern_match(both, 1, NULL, 0, &mask), CUBE_EINVAL);
	ck_assert_int_eq(pattern_match(both, 1, c, 0, NULL), CUBE_EINVAL);
	ck_assert_int_eq(pattern_match(NULL, 1, c, 0, &mask), CUBE_EINVAL);
	ck_assert_int_eq(pattern_match(both, 1, c, 0, &mask), 1);
	ck_assert_uint_eq(mask, 1);

	/* memory grows with the constrained places, not with n² */
	char *sparse = malloc(places(1024) + 1);
	memset(sparse, '*', places(1024));
	sparse[places(1024)] = '\0';
	sparse[5] = '1';
	sparse[places(1024) - 1] = 'B';
	size_t small = pattern_sizeof(1024, sparse, places(1024));
	ck_assert_uint_lt(small, 4096);
	ck_assert_uint_ge(pattern_sizeof(1024, NULL, 0), 6u * 1024 * 1024);
	ck_assert_uint_eq(pattern_sizeof(0, sparse, places(1024)), small);
	ck_assert_uint_eq(pattern_sizeof(0, NULL, 0), 0);
	ck_assert_uint_lt(pattern_sizeof(3, "*****************************"
					    "*************************", 54),
			  pattern_sizeof(3, SOLVED3, 54));
	free(sparse);
	free(c);
	free(p3);
	free(p2);
}
END_TEST

/* A sparse pattern on the largest cube, against the brute force. */
START_TEST(largest_cube)
{
	int n = 1024;
	size_t len = places(n);
	char *pat = malloc(len + 1);
	memset(pat, '*', len);
	pat[len] = '\0';
	cube_t *c = new_cube(n);
	cube_turn(c, CUBE_X, 0, 0, 1);
	cube_turn(c, CUBE_Y, 3, 700, 1);
	cube_turn(c, CUBE_Z, 1023, 1023, 3);
	/* U's corners and a few other stickers taken from the state as it
	 * is, each colour as its own digit, so the identity fits and other
	 * orientations may */
	static const size_t at[] = {0, 1023, 1024 * 1023, 1024 * 1024 - 1,
				    1024 * 1024 + 5000, 3u * 1024 * 1024 + 77,
				    5u * 1024 * 1024 + 1024 * 512 + 3};
	char *s = facelets(c);
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
		pat[at[i]] = (char)('1' + (strchr(cube_face_letters, s[at[i]]) -
					   cube_face_letters));
	pattern_t *p = compile(0, pat);
	const char *pats[1] = {pat};
	uint32_t mask = match1(p, c);
	ck_assert_uint_eq(mask & 1, 1);
	ck_assert_uint_eq(mask, brute_mask(pats, 1, c));
	free(s);
	free(p);
	free(c);
	free(pat);
}
END_TEST

/* ------------------------------------------------------------------ pieces */

START_TEST(pieces_after_r)
{
	/* Kociemba's R: cp = [4,1,2,0,7,5,6,3], co = [2,0,0,1,1,0,0,2],
	 * ep = [8,1,2,3,11,5,6,7,4,9,10,0], eo = 0 */
	cubie3 c;
	piece_info pi;
	ck_assert_int_eq(cubie3_face_turn(CUBE_R, 1, &c), CUBE_OK);
	ck_assert_int_eq(piece_query3(&c, 0, 0, &pi), CUBE_OK); /* URF */
	ck_assert_int_eq(pi.position, 3);                      /* at UBR */
	ck_assert_int_eq(pi.orientation, 1);
	ck_assert_int_eq(pi.placed, 0);
	ck_assert_int_eq(pi.oriented, 0);
	ck_assert_int_eq(piece_query3(&c, 0, 4, &pi), CUBE_OK); /* DFR */
	ck_assert_int_eq(pi.position, 0);                      /* at URF */
	ck_assert_int_eq(pi.orientation, 2);
	ck_assert_int_eq(piece_query3(&c, 0, 1, &pi), CUBE_OK); /* UFL */
	ck_assert_int_eq(pi.position, 1);
	ck_assert_int_eq(pi.placed, 1);
	ck_assert_int_eq(pi.oriented, 1);
	ck_assert_int_eq(piece_query3(&c, 1, 0, &pi), CUBE_OK); /* UR */
	ck_assert_int_eq(pi.position, 11);                     /* at BR */
	ck_assert_int_eq(pi.orientation, 0);
	ck_assert_int_eq(pi.oriented, 1);
	ck_assert_int_eq(pi.placed, 0);
	ck_assert_int_eq(piece_query3(&c, 1, 8, &pi), CUBE_OK); /* FR */
	ck_assert_int_eq(pi.position, 0);                      /* at UR */
	/* F flips edges */
	ck_assert_int_eq(cubie3_face_turn(CUBE_F, 1, &c), CUBE_OK);
	ck_assert_int_eq(piece_query3(&c, 1, 1, &pi), CUBE_OK); /* UF */
	ck_assert_int_eq(pi.position, 8);                      /* at FR */
	ck_assert_int_eq(pi.orientation, 1);
	ck_assert_int_eq(pi.oriented, 0);

	cubie2 c2;
	ck_assert_int_eq(cubie2_face_turn(CUBE_R, 1, &c2), CUBE_OK);
	ck_assert_int_eq(piece_query2(&c2, 0, &pi), CUBE_OK);
	ck_assert_int_eq(pi.position, 3);
	ck_assert_int_eq(pi.orientation, 1);
	ck_assert_int_eq(piece_query2(&c2, 8, &pi), CUBE_ERANGE);
	ck_assert_int_eq(piece_query2(NULL, 0, &pi), CUBE_EINVAL);

	ck_assert_int_eq(piece_query3(&c, 0, 8, &pi), CUBE_ERANGE);
	ck_assert_int_eq(piece_query3(&c, 1, 12, &pi), CUBE_ERANGE);
	ck_assert_int_eq(piece_query3(&c, 1, -1, &pi), CUBE_ERANGE);
	ck_assert_int_eq(piece_query3(&c, 2, 0, &pi), CUBE_EINVAL);
	ck_assert_int_eq(piece_query3(&c, 0, 0, NULL), CUBE_EINVAL);
	c.cp[4] = 1; /* not a permutation: piece 0 is nowhere */
	ck_assert_int_eq(piece_query3(&c, 0, 0, &pi), CUBE_EINVALID);
}
END_TEST

START_TEST(piece_names)
{
	static const struct {
		const char *s;
		int index, kind;
	} cases[] = {
		{"URF", 0, 0}, {"FUR", 0, 0}, {"RFU", 0, 0}, {"UFL", 1, 0},
		{"BLU", 2, 0}, {"DBL", 6, 0}, {"LBD", 6, 0}, {"DRB", 7, 0},
		{"UR", 0, 1},  {"RU", 0, 1},  {"FR", 8, 1},  {"RF", 8, 1},
		{"BR", 11, 1}, {"LB", 10, 1}, {"DB", 7, 1},
		{"UD", -1, 0}, {"UUR", -1, 0}, {"urf", -1, 0}, {"URD", -1, 0},
		{"U", -1, 0},  {"URFD", -1, 0}, {"", -1, 0},  {"UX", -1, 0},
		{"RL", -1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int kind = 42;
		int got = piece_parse(cases[i].s, strlen(cases[i].s), &kind);
		ck_assert_msg(got == cases[i].index, "\"%s\": %d", cases[i].s, got);
		ck_assert_int_eq(kind, got < 0 ? 42 : cases[i].kind);
	}
	ck_assert_int_eq(piece_parse("UF", 2, NULL), 1);
	ck_assert_int_eq(piece_parse("U\0F", 3, NULL), -1);
	for (int i = 0; i < 8; i++) {
		int kind;
		ck_assert_int_eq(piece_parse(piece_corner_name(i), 3, &kind), i);
		ck_assert_int_eq(kind, 0);
	}
	for (int i = 0; i < 12; i++) {
		int kind;
		ck_assert_int_eq(piece_parse(piece_edge_name(i), 2, &kind), i);
		ck_assert_int_eq(kind, 1);
	}
	ck_assert_str_eq(piece_corner_name(4), "DFR");
	ck_assert_str_eq(piece_edge_name(9), "FL");
	ck_assert_ptr_null(piece_corner_name(8));
	ck_assert_ptr_null(piece_edge_name(-1));
}
END_TEST

Suite *pattern_suite(void)
{
	Suite *s = suite_create("pattern");
	TCase *tc = tcase_create("match");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, brute_force_small);
	tcase_add_test(tc, brute_force_big);
	tcase_add_test(tc, brute_force_can_fail);
	tcase_add_test(tc, orientation_semantics);
	tcase_add_test(tc, orientation_examples);
	tcase_add_test(tc, seed_2x2_first_layer);
	tcase_add_test(tc, compile_errors);
	tcase_add_test(tc, match_arguments_and_sizes);
	tcase_add_test(tc, largest_cube);
	suite_add_tcase(s, tc);
	tc = tcase_create("named");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, named_lists);
	tcase_add_test(tc, named_texts_3x3);
	tcase_add_test(tc, named_3x3_stages);
	tcase_add_test(tc, named_big_stages);
	suite_add_tcase(s, tc);
	tc = tcase_create("pieces");
	tcase_add_test(tc, pieces_after_r);
	tcase_add_test(tc, piece_names);
	suite_add_tcase(s, tc);
	return s;
}
