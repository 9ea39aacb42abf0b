/* dataset.c — labelled cube states in bulk (dataset.h): the states a
 * sample's (seed, i) stands for, their columns and their labels, and the
 * breadth-first distance table of the whole 2×2.
 *
 * Everything a sample needs is made from its own counter: SplitMix64
 * started at a hash of (seed, i). No state is carried from one sample to
 * the next, so a range can start anywhere (a thread's chunk, a shard, the
 * byte a resumed download asks for) and give the bytes a single pass
 * gives. The 2×2 and 3×3 run on cubies (a turn is one SIMD composition,
 * cubie.c); bigger cubes on stickers with cube_turn.
 */
#include "dataset.h"

#include "cubie_internal.h"
#include "optimal.h"
#include "pieces.h"

#include <string.h>

static const char *const col_names[DATASET_NCOLUMNS] = {
#define DATASET_COL_NAME(e, name) [e] = name,
	DATASET_COLUMNS(DATASET_COL_NAME)
#undef DATASET_COL_NAME
};

const char *dataset_column_name(int col)
{
	return col >= 0 && col < DATASET_NCOLUMNS ? col_names[col] : NULL;
}

int dataset_column_find(const char *s, size_t len)
{
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		if (strlen(col_names[c]) == len && memcmp(col_names[c], s, len) == 0)
			return c;
	return -1;
}

/* ----------------------------------------------------------------- random */

/* SplitMix64's output function (Steele, Lea & Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014; constants of Vigna's
 * reference implementation). */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

struct rng {
	uint64_t x;
	uint32_t spare; /* the low half of the last word, when have */
	int have;
};

/* Sample i's generator: a SplitMix64 sequence from a hash of (seed, i). */
static inline void rng_start(struct rng *r, uint64_t seed, uint64_t i)
{
	r->x = mix64(mix64(seed ^ 0x6a09e667f3bcc908ULL) ^
		     (i * 0xd1b54a32d192ed03ULL));
	r->have = 0;
}

static inline uint64_t rng_next(struct rng *r)
{
	r->x += 0x9e3779b97f4a7c15ULL;
	return mix64(r->x);
}

/* 32 random bits: each word's high half, then its low half. */
HOT_INLINE uint32_t rng_next32(struct rng *r)
{
	if (r->have) {
		r->have = 0;
		return r->spare;
	}
	uint64_t w = rng_next(r);
	r->spare = (uint32_t)w;
	r->have = 1;
	return (uint32_t)(w >> 32);
}

/* Uniform in [0, bound), bound <= 2³², without bias (Lemire's multiply
 * and reject on 32-bit draws). */
HOT_INLINE uint32_t below32(struct rng *r, uint32_t bound)
{
	uint64_t m = (uint64_t)rng_next32(r) * bound;
	if ((uint32_t)m < bound) {
		uint32_t t = (uint32_t)(-bound % bound);
		while ((uint32_t)m < t)
			m = (uint64_t)rng_next32(r) * bound;
	}
	return (uint32_t)(m >> 32);
}

/* Uniform in [0, bound), 1 < bound < 2⁶³: the top bits that can hold
 * bound - 1, drawn again while past it (accepted at least half the time). */
static uint64_t below64(struct rng *r, uint64_t bound)
{
	int bits = 64 - __builtin_clzll(bound - 1);
	uint64_t x;
	do
		x = rng_next(r) >> (64 - bits);
	while (x >= bound);
	return x;
}

/* ------------------------------------------------------------------ walks */

/* The turns a walk may take on an n-cube: from face f (U R F D L B),
 * blocks of 1..blocks[f] outer layers. For n <= 3 (one block a face) the
 * turns that may follow each face are also listed, face·4 + qt, in the
 * order walk_step counts them, so a step is one draw and one read. */
struct turnset {
	int n;
	int blocks[6];
	uint8_t list[7][2][18]; /* [last face + 1][quarter turns only] */
	uint8_t len[7][2];
};

/* May face f follow face last (-1: the walk's first turn)? */
static inline int face_allowed(int last, int f)
{
	return f != last && !(last >= 3 && f == last - 3);
}

/* Amount index 0, 1, 2 → quarter turns 1, 3, 2: the two quarter turns
 * first, so QTM's last step (one quarter turn left) takes indices 0..1. */
static const uint8_t amount_qt[3] = {1, 3, 2};

static void turnset_init(struct turnset *ts, int n)
{
	ts->n = n;
	for (int f = 0; f < 6; f++) {
		int k = (n - 1) / 2;
		if (n % 2 == 0 && f < 3)
			k = n / 2; /* the half-cube block, from U R F only */
		ts->blocks[f] = k;
	}
	if (n > 3)
		return;
	for (int last = -1; last < 6; last++)
		for (int q = 0; q < 2; q++) {
			int amounts = q ? 2 : 3, len = 0;
			for (int f = 0; f < 6; f++)
				if (face_allowed(last, f) && ts->blocks[f] > 0)
					for (int a = 0; a < amounts; a++)
						ts->list[last + 1][q][len++] =
							(uint8_t)(f * 4 + amount_qt[a]);
			ts->len[last + 1][q] = (uint8_t)len;
		}
}

/* One step of a walk with rem of its depth left (rem >= 1): *face, *block
 * (1-based) and *qt (1..3); returns the step's cost in the metric. */
HOT_INLINE int walk_step(struct rng *r, const struct turnset *ts,
			    int metric, int last, int rem, int *face,
			    int *block, int *qt)
{
	int amounts = metric == DATASET_QTM && rem < 2 ? 2 : 3;
	if (ts->n <= 3) {
		const uint8_t *l = ts->list[last + 1][amounts == 2];
		int mv = l[below32(r, ts->len[last + 1][amounts == 2])];
		*face = mv >> 2;
		*block = 1;
		*qt = mv & 3;
		return metric == DATASET_QTM && *qt == 2 ? 2 : 1;
	}
	uint32_t w[6], total = 0;
	for (int f = 0; f < 6; f++) {
		w[f] = face_allowed(last, f) ? (uint32_t)(ts->blocks[f] * amounts) : 0;
		total += w[f];
	}
	uint32_t x = below32(r, total);
	int f = 0;
	while (x >= w[f])
		x -= w[f++];
	*face = f;
	*block = (int)(x / (uint32_t)amounts) + 1;
	*qt = amount_qt[x % (uint32_t)amounts];
	return metric == DATASET_QTM && *qt == 2 ? 2 : 1;
}

/* The walk depth of a sample: uniform in [depth_min, depth_max]; drawn
 * first from the sample's generator. */
static inline int walk_depth(struct rng *r, const dataset_spec *s)
{
	if (s->depth_max == s->depth_min)
		return s->depth_min;
	return s->depth_min + (int)below32(r, (uint32_t)(s->depth_max - s->depth_min + 1));
}

/* The cube_move of a turn from face f: U R F count layers from
 * themselves, D L B from the far side, turned the other way. */
static cube_move face_move(int n, int f, int block, int qt)
{
	static const uint8_t axis_of[6] = {CUBE_Y, CUBE_X, CUBE_Z,
					   CUBE_Y, CUBE_X, CUBE_Z};
	cube_move m;
	m.axis = axis_of[f];
	if (f < 3) {
		m.lo = 0;
		m.hi = (uint16_t)(block - 1);
		m.qt = (uint8_t)qt;
	} else {
		m.lo = (uint16_t)(n - block);
		m.hi = (uint16_t)(n - 1);
		m.qt = (uint8_t)(4 - qt);
	}
	return m;
}

/* ------------------------------------------------------------------- spec */

static int fail(dataset_problem *p, const char *param, const char *why)
{
	if (p) {
		p->param = param;
		p->why = why;
	}
	return CUBE_EINVAL;
}

#define BIT(c) (1u << (c))
#define LABELS (BIT(DATASET_DEPTH) | BIT(DATASET_TWOPHASE) | BIT(DATASET_OPTIMAL))

int dataset_check(const dataset_spec *s, dataset_problem *p)
{
	if (!s)
		return fail(p, "spec", "no dataset");
	if (s->n < DATASET_MIN_N || s->n > DATASET_MAX_N)
		return fail(p, "size", "size must be between 2 and 1024");
	if (s->metric != DATASET_HTM && s->metric != DATASET_QTM)
		return fail(p, "metric", "metric must be htm or qtm");
	switch (s->states) {
	case DATASET_UNIFORM:
		if (s->n > 3)
			return fail(p, "depth",
				    "uniformly random states are made for sizes 2 "
				    "and 3 only: give a depth range for bigger cubes");
		break;
	case DATASET_WALK:
		if (s->depth_min < 0 || s->depth_max < s->depth_min)
			return fail(p, "depth", "depth must be MIN-MAX with 0 <= MIN <= MAX");
		if (s->depth_max > DATASET_MAX_DEPTH)
			return fail(p, "depth", "walks are at most 254 turns deep");
		break;
	case DATASET_ALL:
		if (s->n != 2)
			return fail(p, "all", "every state can be listed for the 2x2 only");
		if (s->count != CUBE2_STATES)
			return fail(p, "count", "every 2x2 state is 3674160 samples");
		break;
	default:
		return fail(p, "states", "unknown kind of states");
	}
	if (s->count == 0)
		return fail(p, "count", "count must be at least 1");
	if ((s->columns & ~((1u << DATASET_NCOLUMNS) - 1)) != 0)
		return fail(p, "columns", "unknown column");
	if (s->columns == 0)
		return fail(p, "columns", "no columns or labels asked for");
	unsigned small = BIT(DATASET_FEATURES) | BIT(DATASET_FEATURES_PACKED) |
			 BIT(DATASET_INDEX);
	if (s->n > 3 && (s->columns & small))
		return fail(p, "columns",
			    "features, features_packed and index are for sizes 2 and 3");
	if ((s->columns & BIT(DATASET_DEPTH)) && s->states != DATASET_WALK)
		return fail(p, "labels", "the depth label needs walks (a depth range)");
	if (s->columns & BIT(DATASET_TWOPHASE)) {
		if (s->n != 3)
			return fail(p, "labels", "twophase labels are for size 3");
		if (s->metric != DATASET_HTM)
			return fail(p, "labels", "twophase labels count HTM moves: use metric htm");
		if (s->twophase_nodes < 1 || s->twophase_nodes > (1ULL << 40))
			return fail(p, "twophase_nodes",
				    "twophase_nodes must be between 1 and 2^40");
	}
	if (s->columns & BIT(DATASET_OPTIMAL)) {
		if (s->n > 3)
			return fail(p, "labels", "optimal labels are for sizes 2 and 3");
		if (s->n == 3 && s->metric != DATASET_HTM)
			return fail(p, "labels",
				    "3x3 optimal labels count HTM moves: use metric htm");
		if (s->n == 3 && (s->optimal_max < 1 || s->optimal_max > DATASET_MAX_OPTIMAL))
			return fail(p, "optimal_max", "optimal_max must be between 1 and 20");
	}
	return CUBE_OK;
}

int dataset_shape(const dataset_spec *s, int col, int *ndim, uint64_t dims[3],
		  const char **descr)
{
	if (!s || !ndim || !dims || !descr || col < 0 || col >= DATASET_NCOLUMNS)
		return CUBE_EINVAL;
	*descr = "|u1";
	*ndim = 0;
	switch (col) {
	case DATASET_STICKERS:
		*ndim = 3;
		dims[0] = 6;
		dims[1] = dims[2] = (uint64_t)s->n;
		return CUBE_OK;
	case DATASET_FEATURES:
	case DATASET_FEATURES_PACKED:
		if (s->n != 2 && s->n != 3)
			return CUBE_EINVAL;
		*ndim = 1;
		dims[0] = s->n == 3 ? CUBE3_FEATURES : CUBE2_FEATURES;
		if (col == DATASET_FEATURES_PACKED)
			dims[0] = (dims[0] + 7) / 8;
		return CUBE_OK;
	case DATASET_INDEX:
		if (s->n != 2 && s->n != 3)
			return CUBE_EINVAL;
		*ndim = 1;
		dims[0] = 2;
		*descr = "<u8";
		return CUBE_OK;
	default:
		return CUBE_OK;
	}
}

size_t dataset_row_bytes(const dataset_spec *s, int col)
{
	int ndim;
	uint64_t dims[3];
	const char *descr;
	if (dataset_shape(s, col, &ndim, dims, &descr) < 0)
		return 0;
	size_t b = descr[2] == '8' ? 8 : 1;
	for (int d = 0; d < ndim; d++)
		b *= (size_t)dims[d];
	return b;
}

unsigned dataset_needs(const dataset_spec *s)
{
	unsigned need = 0;
	if (s->columns & BIT(DATASET_TWOPHASE))
		need |= DATASET_NEED_TWOPHASE;
	if (s->columns & BIT(DATASET_OPTIMAL))
		need |= s->n == 2 ? DATASET_NEED_DIST2 : DATASET_NEED_OPTIMAL;
	return need;
}

size_t dataset_scratch_size(const dataset_spec *s)
{
	if (!s || s->n <= 3 || s->n > DATASET_MAX_N)
		return 0;
	size_t cube = (cube_sizeof(s->n) + 15) & ~(size_t)15;
	return cube + 6 * (size_t)s->n * (size_t)s->n;
}

/* --------------------------------------------------------------- columns */

static const uint8_t rot3[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};

/* The 54 stickers (face indices) of a 3×3, as cube3_to_facelets writes
 * them. */
static void stickers3(const cubie3 *c, unsigned char s[54])
{
	for (int f = 0; f < 6; f++)
		s[9 * f + 4] = (unsigned char)f;
	for (int i = 0; i < 8; i++) {
		int j = c->cp[i] & 7, t = c->co[i] % 3;
		const unsigned char *fc = cubie__corner_facelet[i];
		for (int k = 0; k < 3; k++)
			s[fc[rot3[t][k]]] = cubie__corner_color[j][k];
	}
	for (int i = 0; i < 12; i++) {
		int j = c->ep[i] % 12, t = c->eo[i] & 1;
		const unsigned char *fe = cubie__edge_facelet[i];
		s[fe[t]] = cubie__edge_color[j][0];
		s[fe[t ^ 1]] = cubie__edge_color[j][1];
	}
}

/* The 2×2's 24 facelet places of each corner position, from the 3×3's. */
static inline int facelet2(int i3)
{
	return (int)cubie__facelet_n(2, i3);
}

static void stickers2(const cubie2 *c, unsigned char s[24])
{
	for (int i = 0; i < 8; i++) {
		int j = c->cp[i] & 7, t = c->co[i] % 3;
		const unsigned char *fc = cubie__corner_facelet[i];
		for (int k = 0; k < 3; k++)
			s[facelet2(fc[rot3[t][k]])] = cubie__corner_color[j][k];
	}
}

/* Six bytes a sticker, 1 at its colour: each written as eight bytes
 * whose last two the next sticker overwrites, so no clearing pass; the
 * last sticker's two extra bytes land on the flags, cleared after. */
static const unsigned char onehot8[6][8] = {
	{1}, {0, 1}, {0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 1},
};

static inline void onehot(const unsigned char *st, int n, unsigned char *out)
{
	for (int i = 0; i < n; i++)
		memcpy(out + 6 * i, onehot8[st[i] % 6], 8);
}

static void features3_from(const cubie3 *c, const unsigned char st[54],
			   unsigned char out[CUBE3_FEATURES])
{
	onehot(st, 54, out);
	memset(out + 324, 0, 40);
	for (int i = 0; i < 8; i++) {
		int p = c->cp[i] & 7;
		out[324 + p] |= (unsigned char)(p == i);
		out[344 + p] |= (unsigned char)(c->co[i] == 0);
	}
	for (int i = 0; i < 12; i++) {
		int p = c->ep[i] % 12;
		out[324 + 8 + p] |= (unsigned char)(p == i);
		out[344 + 8 + p] |= (unsigned char)(c->eo[i] == 0);
	}
}

static void features2_from(const cubie2 *c, const unsigned char st[24],
			   unsigned char out[CUBE2_FEATURES])
{
	onehot(st, 24, out);
	memset(out + 144, 0, 16);
	for (int i = 0; i < 8; i++) {
		int p = c->cp[i] & 7;
		out[144 + p] |= (unsigned char)(p == i);
		out[152 + p] |= (unsigned char)(c->co[i] == 0);
	}
}

void dataset_features3(const cubie3 *c, unsigned char out[CUBE3_FEATURES])
{
	unsigned char st[54];
	stickers3(c, st);
	features3_from(c, st, out);
}

void dataset_features2(const cubie2 *c, unsigned char out[CUBE2_FEATURES])
{
	unsigned char st[24];
	stickers2(c, st);
	features2_from(c, st, out);
}

void dataset_pack_bits(const unsigned char *in, size_t nbits,
		       unsigned char *out)
{
	size_t k = 0;
	for (; k + 8 <= nbits; k += 8) {
		const unsigned char *b = in + k;
		out[k / 8] = (unsigned char)(b[0] << 7 | b[1] << 6 | b[2] << 5 |
					     b[3] << 4 | b[4] << 3 | b[5] << 2 |
					     b[6] << 1 | b[7]);
	}
	if (k < nbits) {
		unsigned v = 0;
		for (size_t j = k; j < nbits; j++)
			v |= (unsigned)in[j] << (7 - (j - k));
		out[k / 8] = (unsigned char)v;
	}
}

/* The 66-bit index corner·CUBE3_EDGE_STATES + edge as two little-endian
 * uint64 (high word first), without wide arithmetic: the product's
 * halves by the edge count's 32-bit halves. */
static void put_index(unsigned char *out, uint64_t corner, uint64_t edge)
{
	const uint64_t e_lo = CUBE3_EDGE_STATES & 0xffffffffULL;
	const uint64_t e_hi = CUBE3_EDGE_STATES >> 32;
	uint64_t a = corner * e_lo, b = corner * e_hi; /* < 2⁵⁹, < 2³⁴ */
	uint64_t hi = b >> 32, lo = b << 32;
	uint64_t t = lo + a;
	hi += t < lo;
	lo = t + edge;
	hi += lo < t;
	for (int k = 0; k < 8; k++) {
		out[k] = (unsigned char)(hi >> (8 * k));
		out[8 + k] = (unsigned char)(lo >> (8 * k));
	}
}

/* ------------------------------------------------------------ the states */

/* Everything a fill works from: the turns as cubies, the tables. */
struct fill {
	const dataset_spec *s;
	const dataset_tables *t;
	struct turnset ts;
	cubie3 mv3[6][4]; /* [face][qt] */
	cubie2 mv2[3][4];
	solve_poll_fn poll;
	void *ctx;
	int cancelled;
};

static void fill_init(struct fill *F, const dataset_spec *s,
		      const dataset_tables *t, solve_poll_fn poll, void *ctx)
{
	F->s = s;
	F->t = t;
	turnset_init(&F->ts, s->n);
	for (int f = 0; f < 6; f++)
		for (int q = 1; q < 4; q++) {
			cubie3_face_turn(f, q, &F->mv3[f][q]);
			if (f < 3)
				cubie2_face_turn(f, q, &F->mv2[f][q]);
		}
	F->poll = poll;
	F->ctx = ctx;
	F->cancelled = 0;
}

/* Sample i of a 3×3: its cubies and walk depth (MISSING if none). */
static int state3(const struct fill *F, struct rng *r, cubie3 *c)
{
	const dataset_spec *s = F->s;
	if (s->states == DATASET_UNIFORM) {
		cube_index ix;
		ix.corner = below64(r, CUBE3_CORNER_STATES);
		ix.edge = below64(r, CUBE3_EDGE_STATES);
		cubie3_unrank(&ix, c);
		return DATASET_MISSING;
	}
	int d = walk_depth(r, s), rem = d, last = -1;
	cubie3_solved(c);
	while (rem > 0) {
		int f, k, q;
		rem -= walk_step(r, &F->ts, s->metric, last, rem, &f, &k, &q);
		cubie3_compose(c, &F->mv3[f][q], c);
		last = f;
	}
	return d;
}

static int state2(const struct fill *F, struct rng *r, uint64_t i, cubie2 *c)
{
	const dataset_spec *s = F->s;
	if (s->states != DATASET_WALK) {
		cube_index ix = {s->states == DATASET_ALL ? i : below64(r, CUBE2_STATES), 0};
		cubie2_unrank(&ix, c);
		return DATASET_MISSING;
	}
	int d = walk_depth(r, s), rem = d, last = -1;
	cubie2_solved(c);
	while (rem > 0) {
		int f, k, q;
		rem -= walk_step(r, &F->ts, s->metric, last, rem, &f, &k, &q);
		cubie2_compose(c, &F->mv2[f][q], c);
		last = f;
	}
	return d;
}

/* -------------------------------------------------------------- labels */

/* A label search's poll: the caller's, which may cancel the fill. */
static int label_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct fill *F = ctx;
	(void)done, (void)total;
	if (F->poll && F->poll(F->ctx, 0, 0)) {
		F->cancelled = 1;
		return 1;
	}
	return 0;
}

/* The shortest solution two-phase finds in its node budget: it searches
 * on past its first solution (target 1) until the budget is spent or no
 * shorter one can exist. A walk's own inverse is a solution of depth
 * moves, so nothing longer is worth accepting: max_length is the walk's
 * depth (21, the solver's own, when there is no walk). */
static int label_twophase(struct fill *F, const cubie3 *c, int depth)
{
	solve_limits lim = {depth < 21 ? depth : 0, 1, label_poll, F,
			    F->s->twophase_nodes, 1};
	cube_move mv[32];
	int len = twophase_solve(F->t->twophase, c, &lim, mv, 32);
	if (F->cancelled)
		return SOLVE_ECANCELLED;
	if (len == SOLVE_ENOTFOUND)
		return DATASET_MISSING;
	return len;
}

/* The optimal length if it is at most optimal_max, knowing a solution of
 * ub moves exists (ub = MISSING: none known): a search of ub - 1 moves
 * that finds nothing proves ub. */
static int label_optimal3(struct fill *F, const cubie3 *c, int ub)
{
	cubie3 id;
	cubie3_solved(&id);
	if (cubie3_equal(c, &id))
		return 0;
	if (ub == 1)
		return 1;
	int cap = F->s->optimal_max;
	int search = ub != DATASET_MISSING && ub <= cap ? ub - 1 : cap;
	optimal_limits lim = {search, label_poll, F, NULL};
	cube_move mv[24];
	int len = optimal_solve(F->t->optimal, c, &lim, mv, 24);
	if (F->cancelled)
		return SOLVE_ECANCELLED;
	if (len >= 0)
		return len;
	if (len != SOLVE_ENOTFOUND)
		return len;
	return ub != DATASET_MISSING && ub <= cap ? ub : DATASET_MISSING;
}

/* -------------------------------------------------------------- the fill */

static int fill3(struct fill *F, uint64_t i, unsigned char *const row[])
{
	const dataset_spec *s = F->s;
	struct rng r;
	rng_start(&r, s->seed, i);
	cubie3 c;
	int d = state3(F, &r, &c);
	unsigned cols = s->columns;
	unsigned char st[54];
	if (cols & (BIT(DATASET_STICKERS) | BIT(DATASET_FEATURES) |
		    BIT(DATASET_FEATURES_PACKED))) {
		stickers3(&c, st);
		if (cols & BIT(DATASET_STICKERS))
			memcpy(row[DATASET_STICKERS], st, 54);
		if (cols & (BIT(DATASET_FEATURES) | BIT(DATASET_FEATURES_PACKED))) {
			unsigned char tmp[CUBE3_FEATURES];
			unsigned char *f = cols & BIT(DATASET_FEATURES)
						   ? row[DATASET_FEATURES]
						   : tmp;
			features3_from(&c, st, f);
			if (cols & BIT(DATASET_FEATURES_PACKED))
				dataset_pack_bits(f, CUBE3_FEATURES,
						  row[DATASET_FEATURES_PACKED]);
		}
	}
	if (cols & BIT(DATASET_INDEX)) {
		cube_index ix;
		cubie3_rank(&c, &ix);
		put_index(row[DATASET_INDEX], ix.corner, ix.edge);
	}
	if (cols & BIT(DATASET_DEPTH))
		*row[DATASET_DEPTH] = (unsigned char)d;
	int ub = d;
	if (cols & BIT(DATASET_TWOPHASE)) {
		int tp = label_twophase(F, &c, d);
		if (tp < 0)
			return tp;
		*row[DATASET_TWOPHASE] = (unsigned char)tp;
		if (tp < ub)
			ub = tp;
	}
	if (cols & BIT(DATASET_OPTIMAL)) {
		int op = label_optimal3(F, &c, ub);
		if (op < 0)
			return op;
		*row[DATASET_OPTIMAL] = (unsigned char)op;
	}
	return 0;
}

static int fill2(struct fill *F, uint64_t i, unsigned char *const row[])
{
	const dataset_spec *s = F->s;
	struct rng r;
	rng_start(&r, s->seed, i);
	cubie2 c;
	int d = state2(F, &r, i, &c);
	unsigned cols = s->columns;
	unsigned char st[24];
	if (cols & (BIT(DATASET_STICKERS) | BIT(DATASET_FEATURES) |
		    BIT(DATASET_FEATURES_PACKED))) {
		stickers2(&c, st);
		if (cols & BIT(DATASET_STICKERS))
			memcpy(row[DATASET_STICKERS], st, 24);
		if (cols & (BIT(DATASET_FEATURES) | BIT(DATASET_FEATURES_PACKED))) {
			unsigned char tmp[CUBE2_FEATURES];
			unsigned char *f = cols & BIT(DATASET_FEATURES)
						   ? row[DATASET_FEATURES]
						   : tmp;
			features2_from(&c, st, f);
			if (cols & BIT(DATASET_FEATURES_PACKED))
				dataset_pack_bits(f, CUBE2_FEATURES,
						  row[DATASET_FEATURES_PACKED]);
		}
	}
	cube_index ix = {0, 0};
	if (cols & (BIT(DATASET_INDEX) | BIT(DATASET_OPTIMAL)))
		cubie2_rank(&c, &ix);
	if (cols & BIT(DATASET_INDEX))
		put_index(row[DATASET_INDEX], 0, ix.corner);
	if (cols & BIT(DATASET_DEPTH))
		*row[DATASET_DEPTH] = (unsigned char)d;
	if (cols & BIT(DATASET_OPTIMAL)) {
		int dist = dataset2_distance(F->t->dist2, s->metric, ix.corner);
		if (dist < 0)
			return SOLVE_ETABLES;
		*row[DATASET_OPTIMAL] = (unsigned char)dist;
	}
	return 0;
}

static const unsigned char letter_face[256] = {
	['U'] = 0, ['R'] = 1, ['F'] = 2, ['D'] = 3, ['L'] = 4, ['B'] = 5,
};

static int filln(struct fill *F, uint64_t i, unsigned char *const row[],
		 void *scratch)
{
	const dataset_spec *s = F->s;
	int n = s->n;
	size_t csz = (cube_sizeof(n) + 15) & ~(size_t)15;
	cube_t *cube = scratch;
	char *letters = (char *)scratch + csz;
	struct rng r;
	rng_start(&r, s->seed, i);
	int d = walk_depth(&r, s), rem = d, last = -1;
	cube_init(cube, n);
	while (rem > 0) {
		int f, k, q;
		rem -= walk_step(&r, &F->ts, s->metric, last, rem, &f, &k, &q);
		cube_move m = face_move(n, f, k, q);
		cube_turn(cube, m.axis, m.lo, m.hi, m.qt);
		last = f;
	}
	if (s->columns & BIT(DATASET_STICKERS)) {
		size_t nst = 6 * (size_t)n * (size_t)n;
		cube_to_facelets(cube, letters);
		unsigned char *o = row[DATASET_STICKERS];
		for (size_t k = 0; k < nst; k++)
			o[k] = letter_face[(unsigned char)letters[k]];
	}
	if (s->columns & BIT(DATASET_DEPTH))
		*row[DATASET_DEPTH] = (unsigned char)d;
	return 0;
}

int dataset_fill(const dataset_spec *s, const dataset_tables *t,
		 uint64_t first, uint64_t count, unsigned char *const out[],
		 void *scratch, size_t scratch_size, solve_poll_fn poll,
		 void *ctx)
{
	if (dataset_check(s, NULL) < 0 || !out || first > s->count ||
	    count > s->count - first)
		return CUBE_EINVAL;
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		if ((s->columns & BIT(c)) && !out[c])
			return CUBE_EINVAL;
	if (scratch_size < dataset_scratch_size(s) || (s->n > 3 && !scratch))
		return CUBE_EINVAL;
	unsigned need = dataset_needs(s);
	static const dataset_tables none = {NULL, NULL, NULL};
	if (!t)
		t = &none;
	if (((need & DATASET_NEED_TWOPHASE) && !t->twophase) ||
	    ((need & DATASET_NEED_OPTIMAL) && !t->optimal) ||
	    ((need & DATASET_NEED_DIST2) && !t->dist2))
		return SOLVE_ETABLES;

	struct fill F;
	fill_init(&F, s, t, poll, ctx);
	size_t rb[DATASET_NCOLUMNS];
	unsigned char *row[DATASET_NCOLUMNS];
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		rb[c] = (s->columns & BIT(c)) ? dataset_row_bytes(s, c) : 0;
		row[c] = (s->columns & BIT(c)) ? out[c] : NULL;
	}
	/* samples that search poll between themselves too, so a cancel
	 * is seen even when each search is short */
	int searches = (need & (DATASET_NEED_TWOPHASE | DATASET_NEED_OPTIMAL)) != 0;
	for (uint64_t k = 0; k < count; k++) {
		int rc;
		if (s->n == 3)
			rc = fill3(&F, first + k, row);
		else if (s->n == 2)
			rc = fill2(&F, first + k, row);
		else
			rc = filln(&F, first + k, row, scratch);
		if (rc < 0)
			return rc;
		if (searches && poll && poll(ctx, k + 1, count))
			return SOLVE_ECANCELLED;
		for (int c = 0; c < DATASET_NCOLUMNS; c++)
			if (row[c])
				row[c] += rb[c];
	}
	return CUBE_OK;
}

/* ------------------------------------------------------ one sample alone */

int dataset_state(const dataset_spec *s, uint64_t i, cubie3 *c3, cubie2 *c2,
		  int *depth)
{
	if (dataset_check(s, NULL) < 0 || i >= s->count || s->n > 3 ||
	    (s->n == 3 && !c3) || (s->n == 2 && !c2))
		return CUBE_EINVAL;
	struct fill F;
	fill_init(&F, s, NULL, NULL, NULL);
	struct rng r;
	rng_start(&r, s->seed, i);
	int d = s->n == 3 ? state3(&F, &r, c3) : state2(&F, &r, i, c2);
	if (depth)
		*depth = d;
	return CUBE_OK;
}

int dataset_walk_moves(const dataset_spec *s, uint64_t i, cube_move *out,
		       int cap)
{
	if (dataset_check(s, NULL) < 0 || i >= s->count ||
	    s->states != DATASET_WALK || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	struct turnset ts;
	turnset_init(&ts, s->n);
	struct rng r;
	rng_start(&r, s->seed, i);
	int d = walk_depth(&r, s), rem = d, last = -1, k = 0;
	while (rem > 0) {
		int f, b, q;
		rem -= walk_step(&r, &ts, s->metric, last, rem, &f, &b, &q);
		if (k >= cap)
			return CUBE_ESPACE;
		out[k++] = face_move(s->n, f, b, q);
		last = f;
	}
	return k;
}

/* --------------------------------------------------------- 2×2 distances */

enum {
	NCP2 = 5040, /* 7! permutations of the corners other than DBL */
	NTW2 = 729,  /* 3⁶ twists */
	NMV2 = 9,    /* U U2 U' R R2 R' F F2 F' (face·3 + qt-1) */
	UNSEEN = 0xff,
};

#define D2_CP 0
#define D2_TW (D2_CP + NCP2 * NMV2 * 2)
#define D2_HTM (D2_TW + NTW2 * NMV2 * 2)
#define D2_QTM (D2_HTM + CUBE2_STATES)
#define D2_SIZE (D2_QTM + CUBE2_STATES)

size_t dataset2_table_size(void)
{
	return (size_t)D2_SIZE;
}

/* Breadth first over one metric's turns: level by level, every state at
 * distance d sends its unseen neighbours to d + 1. The index is cp·729 +
 * twist and a turn acts on each part alone, so the scan runs over cp
 * outside and twist inside, with the cp part of every neighbour read
 * once per cp. */
static int bfs2(const uint16_t *cpm, const uint16_t *twm, uint8_t *dist,
		const int *moves, int nmoves, solve_poll_fn poll, void *ctx)
{
	memset(dist, UNSEEN, CUBE2_STATES);
	dist[0] = 0;
	uint64_t seen = 1;
	for (int d = 0; seen < CUBE2_STATES; d++) {
		if (poll && poll(ctx, seen, CUBE2_STATES))
			return SOLVE_ECANCELLED;
		uint64_t before = seen;
		for (uint32_t p = 0; p < NCP2; p++) {
			const uint8_t *row = dist + (size_t)p * NTW2;
			uint32_t to[NMV2];
			for (int m = 0; m < nmoves; m++)
				to[m] = (uint32_t)cpm[p * NMV2 + moves[m]] * NTW2;
			for (uint32_t w = 0; w < NTW2; w++) {
				if (row[w] != d)
					continue;
				const uint16_t *tw = twm + w * NMV2;
				for (int m = 0; m < nmoves; m++) {
					uint32_t j = to[m] + tw[moves[m]];
					if (dist[j] == UNSEEN) {
						dist[j] = (uint8_t)(d + 1);
						seen++;
					}
				}
			}
		}
		if (seen == before)
			return SOLVE_ETABLES; /* a bug, not bad input */
	}
	return CUBE_OK;
}

int dataset2_table_init(void *buf, size_t size, solve_poll_fn poll, void *ctx)
{
	if (!buf || size != D2_SIZE)
		return CUBE_EINVAL;
	unsigned char *b = buf;
	uint16_t *cpm = (uint16_t *)(void *)(b + D2_CP);
	uint16_t *twm = (uint16_t *)(void *)(b + D2_TW);
	cubie2 turn[NMV2], c, d;
	for (int m = 0; m < NMV2; m++)
		cubie2_face_turn(m / 3, m % 3 + 1, &turn[m]);
	/* the move tables go through unrank / compose / rank, so they
	 * number states exactly as index.c does */
	for (uint32_t p = 0; p < NCP2; p++) {
		cube_index ix = {(uint64_t)p * NTW2, 0}, r;
		cubie2_unrank(&ix, &c);
		for (int m = 0; m < NMV2; m++) {
			cubie2_compose(&c, &turn[m], &d);
			if (cubie2_rank(&d, &r) < 0)
				return SOLVE_ETABLES;
			cpm[p * NMV2 + m] = (uint16_t)(r.corner / NTW2);
		}
	}
	for (uint32_t w = 0; w < NTW2; w++) {
		cube_index ix = {w, 0}, r;
		cubie2_unrank(&ix, &c);
		for (int m = 0; m < NMV2; m++) {
			cubie2_compose(&c, &turn[m], &d);
			if (cubie2_rank(&d, &r) < 0)
				return SOLVE_ETABLES;
			twm[w * NMV2 + m] = (uint16_t)(r.corner % NTW2);
		}
	}
	static const int htm[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
	static const int qtm[6] = {0, 2, 3, 5, 6, 8};
	int rc = bfs2(cpm, twm, b + D2_HTM, htm, 9, poll, ctx);
	if (rc == CUBE_OK)
		rc = bfs2(cpm, twm, b + D2_QTM, qtm, 6, poll, ctx);
	return rc;
}

int dataset2_distance(const void *table, int metric, uint64_t ix)
{
	if (!table || ix >= CUBE2_STATES ||
	    (metric != DATASET_HTM && metric != DATASET_QTM))
		return CUBE_ERANGE;
	const unsigned char *b = table;
	return b[(metric == DATASET_HTM ? D2_HTM : D2_QTM) + ix];
}

int dataset2_histogram(const void *table, int metric, uint64_t counts[16])
{
	if (!table || !counts || (metric != DATASET_HTM && metric != DATASET_QTM))
		return CUBE_EINVAL;
	const unsigned char *d = (const unsigned char *)table +
				 (metric == DATASET_HTM ? D2_HTM : D2_QTM);
	memset(counts, 0, 16 * sizeof counts[0]);
	int max = 0;
	for (uint64_t i = 0; i < CUBE2_STATES; i++) {
		if (d[i] > 15)
			return SOLVE_ETABLES;
		counts[d[i]]++;
		if (d[i] > max)
			max = d[i];
	}
	return max;
}
