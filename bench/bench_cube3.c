/* bench_cube3.c — the 3×3 representation benchmarks of `bench` (bench.c
 * runs them): index rank and unrank against a textbook O(n²) Lehmer-code
 * rank, cubie composition against plain loops, and a compiled pattern
 * tried in all 24 orientations against the brute force (turn the state,
 * compare stickers), each checked against its reference before timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cube.h"
#include "cubie.h"
#include "pattern.h"
#include "pattern_internal.h"

/* ---- 3×3 index and cubies ---------------------------------------------- */

#define NSTATES 4096 /* pre-generated random states, cycled (power of two) */

struct index_ctx {
	cubie3 st[NSTATES];
	cube_index ix[NSTATES];
};

/* The reference: a textbook Lehmer code, O(n²): digit i counts the later
 * entries smaller than p[i], weight (n-1-i)!. Its sum is the inversion
 * count, so the last digit (weight 1, radix 2) is fixed by the parity,
 * and the edges drop it by halving. Unranking picks each entry from a
 * shrinking list. It checks the state as fully as cubie3_rank does. */
static int lehmer_rank(const uint8_t *p, int n, uint32_t *r)
{
	unsigned seen = 0, inversions = 0;
	uint32_t rank = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] >= n)
			return -1;
		seen |= 1u << p[i];
		unsigned c = 0;
		for (int j = i + 1; j < n; j++)
			c += p[j] < p[i];
		rank = rank * (uint32_t)(n - i) + c;
		inversions += c;
	}
	*r = rank;
	return seen == (1u << n) - 1 ? (int)(inversions & 1) : -1;
}

static void lehmer_unrank(uint32_t r, int n, uint8_t *p)
{
	uint8_t c[12], left[12];
	for (int i = n - 1; i >= 0; i--) {
		c[i] = (uint8_t)(r % (uint32_t)(n - i));
		r /= (uint32_t)(n - i);
	}
	for (int i = 0; i < n; i++)
		left[i] = (uint8_t)i;
	for (int i = 0; i < n; i++) {
		p[i] = left[c[i]];
		for (int k = c[i]; k < n - 1 - i; k++)
			left[k] = left[k + 1];
	}
}

static int ref_rank3(const cubie3 *c, cube_index *out)
{
	uint32_t cr = 0, er = 0;
	int cpar = lehmer_rank(c->cp, 8, &cr), epar = lehmer_rank(c->ep, 12, &er);
	unsigned co = 0, eo = 0, sum = c->co[7], flips = c->eo[11], bad = c->co[7] > 2;
	for (int i = 6; i >= 0; i--) {
		co = co * 3 + c->co[i];
		sum += c->co[i];
		bad |= c->co[i] > 2;
	}
	for (int i = 10; i >= 0; i--) {
		eo = eo * 2 + c->eo[i];
		flips += c->eo[i];
		bad |= c->eo[i] > 1;
	}
	bad |= c->eo[11] > 1;
	if (cpar < 0 || epar != cpar || bad || sum % 3 || flips % 2)
		return CUBE_EINVALID;
	out->corner = (uint64_t)cr * 2187 + co;
	out->edge = (uint64_t)(er / 2) * 2048 + eo;
	return CUBE_OK;
}

static int ref_unrank3(const cube_index *ix, cubie3 *out)
{
	if (ix->corner >= CUBE3_CORNER_STATES || ix->edge >= CUBE3_EDGE_STATES)
		return CUBE_ERANGE;
	uint32_t cr = (uint32_t)(ix->corner / 2187);
	unsigned co = (unsigned)(ix->corner % 2187), sum = 0;
	lehmer_unrank(cr, 8, out->cp);
	for (int i = 0; i < 7; i++) {
		out->co[i] = (uint8_t)(co % 3);
		sum += co % 3;
		co /= 3;
	}
	out->co[7] = (uint8_t)((3 - sum % 3) % 3);
	/* the dropped last digit: whichever gives the corners' parity */
	uint32_t tmp;
	int cpar = lehmer_rank(out->cp, 8, &tmp);
	uint32_t half = (uint32_t)(ix->edge / 2048);
	lehmer_unrank(half * 2, 12, out->ep);
	if (lehmer_rank(out->ep, 12, &tmp) != cpar)
		lehmer_unrank(half * 2 + 1, 12, out->ep);
	unsigned eo = (unsigned)(ix->edge % 2048), flips = 0;
	for (int i = 0; i < 11; i++) {
		out->eo[i] = (uint8_t)(eo >> i & 1);
		flips += eo >> i & 1;
	}
	out->eo[11] = (uint8_t)(flips & 1);
	return CUBE_OK;
}

/* iters ranks (rank: cubie3_rank or the reference) of the states. */
static ALWAYS_INLINE uint64_t time_rank3(
	const struct index_ctx *x, uint64_t iters,
	int (*rank)(const cubie3 *, cube_index *))
{
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		cube_index ix;
		acc += (uint64_t)rank(&x->st[i & (NSTATES - 1)], &ix);
		acc += ix.corner ^ ix.edge;
	}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_rank3(void *arg, uint64_t iters)
{
	return time_rank3(arg, iters, cubie3_rank);
}

static NOINLINE uint64_t body_rank3_ref(void *arg, uint64_t iters)
{
	return time_rank3(arg, iters, ref_rank3);
}

/* iters unranks (unrank: cubie3_unrank or the reference) of the indices. */
static ALWAYS_INLINE uint64_t time_unrank3(
	const struct index_ctx *x, uint64_t iters,
	int (*unrank)(const cube_index *, cubie3 *))
{
	uint64_t acc = 0;
	cubie3 c;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		acc += (uint64_t)unrank(&x->ix[i & (NSTATES - 1)], &c);
		acc += c.cp[i & 7] + c.ep[i % 12] + c.eo[11];
	}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_unrank3(void *arg, uint64_t iters)
{
	return time_unrank3(arg, iters, cubie3_unrank);
}

static NOINLINE uint64_t body_unrank3_ref(void *arg, uint64_t iters)
{
	return time_unrank3(arg, iters, ref_unrank3);
}

/* Composition, chained as a solver or a scrambler applies moves: each
 * step waits for the last. The reference is the plain loop of Kociemba's
 * cubie multiplication. */
static void ref_compose3(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
	cubie3 r;
	for (int i = 0; i < 8; i++) {
		r.cp[i] = a->cp[b->cp[i]];
		r.co[i] = (uint8_t)((a->co[b->cp[i]] + b->co[i]) % 3);
	}
	for (int i = 0; i < 12; i++) {
		r.ep[i] = a->ep[b->ep[i]];
		r.eo[i] = (uint8_t)((a->eo[b->ep[i]] + b->eo[i]) & 1);
	}
	*out = r;
}

/* iters chained compositions (compose: cubie3_compose or the
 * reference). */
static ALWAYS_INLINE uint64_t time_compose3(
	const struct index_ctx *x, uint64_t iters,
	void (*compose)(const cubie3 *, const cubie3 *, cubie3 *))
{
	cubie3 c = x->st[0];
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		compose(&c, &x->st[i & (NSTATES - 1)], &c);
	uint64_t t = now_ns() - t0;
	sink += c.cp[0] + c.ep[11] + c.co[3] + c.eo[5];
	return t;
}

static NOINLINE uint64_t body_compose3(void *arg, uint64_t iters)
{
	return time_compose3(arg, iters, cubie3_compose);
}

static NOINLINE uint64_t body_compose3_ref(void *arg, uint64_t iters)
{
	return time_compose3(arg, iters, ref_compose3);
}

/* The references must be right, or the comparison means nothing: each
 * must round-trip every state, and compose like the core. (They rank
 * into a different order, so only round trips are compared.) */
static void check_index_refs(const struct index_ctx *x)
{
	for (int i = 0; i < NSTATES; i++) {
		cube_index ix;
		cubie3 c, d;
		int rc = ref_rank3(&x->st[i], &ix);
		if (rc < 0)
			die("reference rank", rc);
		rc = ref_unrank3(&ix, &c);
		if (rc < 0)
			die("reference unrank", rc);
		if (!cubie3_equal(&c, &x->st[i])) {
			fprintf(stderr, "bench: the Lehmer reference does not round-trip state %d\n", i);
			exit(1);
		}
		cubie3_compose(&x->st[i], &x->st[(i + 1) & (NSTATES - 1)], &c);
		ref_compose3(&x->st[i], &x->st[(i + 1) & (NSTATES - 1)], &d);
		if (!cubie3_equal(&c, &d)) {
			fprintf(stderr, "bench: the reference composition disagrees with cubie3_compose\n");
			exit(1);
		}
	}
}

void bench_index3(void)
{
	static struct index_ctx x;
	for (int i = 0; i < NSTATES; i++) {
		/* uniform over all states: each part drawn uniformly */
		x.ix[i].corner = rng() % CUBE3_CORNER_STATES;
		x.ix[i].edge = rng() % CUBE3_EDGE_STATES;
		int rc = cubie3_unrank(&x.ix[i], &x.st[i]);
		if (rc < 0)
			die("cubie3_unrank", rc);
	}
	check_index_refs(&x);
	pair_figures("rank3", "lehmer", body_rank3, body_rank3_ref, &x);
	pair_figures("unrank3", "lehmer", body_unrank3, body_unrank3_ref, &x);
	pair_figures("compose3", "loop", body_compose3, body_compose3_ref, &x);
}

/* ---- 3×3 pattern match -------------------------------------------------- */

struct match_ctx {
	cube_t *st[NSTATES];
	const pattern_t *p;
	char text[54];           /* the pattern as written, for the brute force */
	cube_move rot[24][2];    /* each orientation's inverse rotation */
	cube_t *tmp;
};

/* The brute force: for each orientation turn a copy of the state with its
 * inverse rotation (pattern.h: T_face' then y^-k), write out the facelets
 * and compare them with the pattern place by place, binding digits as it
 * goes and checking the digit rule at the end. */
static int brute_fits(const char *pat, const char *s)
{
	char color[7] = {0};
	unsigned letters = 0;
	for (int i = 0; i < 54; i++) {
		char p = pat[i];
		if (p == '*')
			continue;
		if (p >= '1' && p <= '6') {
			if (!color[p - '0'])
				color[p - '0'] = s[i];
			else if (color[p - '0'] != s[i])
				return 0;
		} else {
			if (s[i] != p)
				return 0;
			letters |= 1u << (p & 31);
		}
	}
	for (int d = 1; d <= 6; d++) {
		if (!color[d])
			continue;
		if (letters >> (color[d] & 31) & 1)
			return 0;
		for (int e = 1; e < d; e++)
			if (color[e] == color[d])
				return 0;
	}
	return 1;
}

static uint32_t brute_match(struct match_ctx *x, const cube_t *c)
{
	char s[54];
	uint32_t mask = 0;
	for (int k = 0; k < 24; k++) {
		cube_copy(x->tmp, c);
		cube_apply_moves(x->tmp, x->rot[k], 2);
		cube_to_facelets(x->tmp, s);
		if (brute_fits(x->text, s))
			mask |= 1u << k;
	}
	return mask;
}

/* iters matches (match: pattern_match or its portable path) of the
 * pattern against the states. */
static ALWAYS_INLINE uint64_t time_match3(
	const struct match_ctx *x, uint64_t iters,
	int (*match)(const pattern_t *const *, size_t, const cube_t *, int,
		     uint32_t *))
{
	uint64_t acc = 0;
	uint32_t mask;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		acc += (uint64_t)match(&x->p, 1, x->st[i & (NSTATES - 1)], 0,
				       &mask) + mask;
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_match3(void *arg, uint64_t iters)
{
	return time_match3(arg, iters, pattern_match);
}

static NOINLINE uint64_t body_match3_portable(void *arg, uint64_t iters)
{
	return time_match3(arg, iters, pattern__match_portable);
}

static NOINLINE uint64_t body_match3_brute(void *arg, uint64_t iters)
{
	struct match_ctx *x = arg;
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++)
		acc += brute_match(x, x->st[i & (NSTATES - 1)]);
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

/* The cross (the named pattern) on random states, where most orientations
 * fail within a few stickers; then on solved cubes, where all 24 fit and
 * every place is read. */
void bench_match3(void)
{
	static struct match_ctx x;
	static const cube_move t_inv[6] = {
		{CUBE_Y, 0, 0, 2}, {CUBE_Z, 3, 0, 2}, {CUBE_X, 1, 0, 2},
		{CUBE_X, 2, 0, 2}, {CUBE_Z, 1, 0, 2}, {CUBE_X, 3, 0, 2},
	};
	for (int k = 0; k < 24; k++) {
		x.rot[k][0] = t_inv[k / 4];
		x.rot[k][1] = (cube_move){CUBE_Y, (uint8_t)((4 - k % 4) & 3), 0, 2};
	}
	const pattern_named *cross = pattern_named_find(3, "cross");
	int rc = cross ? pattern_named_text(cross, 3, 0, x.text) : CUBE_EINVAL;
	if (rc < 0)
		die("pattern_named_text", rc);
	pattern_t *p = xmalloc(pattern_sizeof(3, x.text, 54));
	rc = pattern_compile(p, 3, x.text, 54, NULL);
	if (rc < 0)
		die("pattern_compile", rc);
	x.p = p;
	x.tmp = new_cube(3);
	for (int i = 0; i < NSTATES; i++) {
		x.st[i] = new_cube(3);
		scramble(x.st[i], 25);
	}
	/* The reference must agree with the core on every state. */
	for (int i = 0; i < NSTATES; i++) {
		uint32_t mask;
		pattern_match(&x.p, 1, x.st[i], 0, &mask);
		if (mask != brute_match(&x, x.st[i])) {
			fprintf(stderr, "bench: the brute-force matcher disagrees with pattern_match\n");
			exit(1);
		}
	}
	pair_figures("match3", "brute", body_match3, body_match3_brute, &x);
	fig("match3.ns.portable", measure(body_match3_portable, &x), "ns");
	for (int i = 0; i < NSTATES; i++)
		cube_init(x.st[i], 3);
	fig("match3.solved.ns", measure(body_match3, &x), "ns");
	for (int i = 0; i < NSTATES; i++)
		free(x.st[i]);
	free(x.tmp);
	free(p);
}
