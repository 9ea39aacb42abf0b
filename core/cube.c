/* cube.c — the n×n×n cube state and its one turn primitive.
 *
 * A state is six n×n sticker grids. Turning layer i of an axis cycles four
 * strips of n stickers on the faces around that axis; turning an outer
 * layer also rotates that face's whole grid. Rotating a grid would cost
 * O(n²), so each face carries a lazy quarter-turn offset (rot): the grid is
 * stored as it was and read through the rotation, which makes a face turn
 * O(n). Strips are rows or columns in storage whatever the offset, so each
 * strip is walked as (start, stride) with no per-sticker arithmetic.
 *
 * n == 3 skips all that. On CPUs with AVX-512 VBMI every 3×3 turn (any
 * layer range, any amount) is one 64-byte byte permutation (vpermb) from
 * turn3_perm.h, about a nanosecond; elsewhere single-layer turns run as
 * precomputed sticker 4-cycles (turn3_cycles). Both tables are checked
 * against the generic code by the test suite. The CPU check reads the
 * compiler runtime's CPU model, which is set before main and never changes.
 */
#include "cube.h"
#include "cube_internal.h"

#include <string.h>

#include "turn3_perm.h"

/* turn3_perm's range index for layers [lo, hi] of a 3×3. */
static const signed char turn3_range[3][3] = {
	{0, 3, 5}, {-1, 1, 4}, {-1, -1, 2}};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CUBE_HAVE_VBMI 1
/* cube_sizeof() leaves slack after the stickers, so a full 64-byte load
 * and store are in bounds; padding bytes map to themselves. (Masked
 * stores would defeat store-to-load forwarding between turns.) */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
turn3_vbmi(unsigned char *s, const unsigned char *perm)
{
	__m512i v = _mm512_loadu_si512((const void *)s);
	__m512i p = _mm512_loadu_si512((const void *)perm);
	_mm512_storeu_si512((void *)s, _mm512_permutexvar_epi8(p, v));
}

/* A run of 3×3 moves with the state held in a register throughout. */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void
turn3_vbmi_many(unsigned char *s, const cube_move *m, size_t count)
{
	__m512i v = _mm512_loadu_si512((const void *)s);
	for (size_t k = 0; k < count; k++) {
		int qt = m[k].qt & 3;
		if (qt == 0)
			continue;
		const unsigned char *perm =
			turn3_perm[m[k].axis][turn3_range[m[k].lo][m[k].hi]]
				  [qt - 1];
		v = _mm512_permutexvar_epi8(
			_mm512_loadu_si512((const void *)perm), v);
	}
	_mm512_storeu_si512((void *)s, v);
}

static int have_vbmi(void)
{
	return __builtin_cpu_supports("avx512vbmi") &&
	       __builtin_cpu_supports("avx512bw");
}
#endif


const char cube_face_letters[7] = "URFDLB";

/* Bytes after the stickers that wide loads may touch. */
#define CUBE_SLACK 64

/* Letter → face index + 1 (0 = not a face letter). */
static const unsigned char letter_face[256] = {
	['U'] = 1, ['R'] = 2, ['F'] = 3, ['D'] = 4, ['L'] = 5, ['B'] = 6,
};

/* Storage layout. A face is row-major, except on big cubes whose size is
 * a multiple of 8 (n = 1000, 1024, …): there a face is stored in 8×8 tiles
 * of 64 bytes, one cache line each, so that a column strip touches n/8
 * lines instead of n (x-axis rings are four columns). Every strip of a ring
 * then starts on a tile boundary and crosses into the next tile at the same
 * step, which keeps the ring loop as simple as the row-major one. */
#define TILE_MIN_N 64

static inline int is_tiled(int n)
{
	return n >= TILE_MIN_N && n % 8 == 0;
}

static inline size_t face_bytes(int n)
{
	return (size_t)n * (size_t)n;
}

size_t cube_sizeof(int n)
{
	if (n < CUBE_MIN_N || n > CUBE_MAX_N)
		return 0;
	return sizeof(cube_t) + 6u * face_bytes(n) + CUBE_SLACK;
}

int cube_init(cube_t *c, int n)
{
	if (!c || n < CUBE_MIN_N || n > CUBE_MAX_N)
		return n < CUBE_MIN_N || n > CUBE_MAX_N ? CUBE_ESIZE : CUBE_EINVAL;
	size_t fb = face_bytes(n);
	c->n = n;
	memset(c->rot, 0, sizeof c->rot);
	memset(c->pad, 0, sizeof c->pad);
	for (int f = 0; f < 6; f++)
		memset(c->st + (size_t)f * fb, f, fb);
	memset(c->st + 6 * fb, 0, CUBE_SLACK);
	return CUBE_OK;
}

void cube_copy(cube_t *dst, const cube_t *src)
{
	memcpy(dst, src, cube_sizeof(src->n));
}

/* Byte offset within a face of stored row pr, column pc. */
static inline size_t store(int n, int pr, int pc)
{
	if (!is_tiled(n))
		return (size_t)pr * (size_t)n + (size_t)pc;
	size_t tiles = (size_t)n >> 3;
	return ((((size_t)pr >> 3) * tiles + ((size_t)pc >> 3)) << 6) |
	       (((size_t)pr & 7) << 3) | ((size_t)pc & 7);
}

/* Stored row and column of logical (r, c) under q quarter turns. After one
 * clockwise turn the sticker shown at (r, c) is the one that was shown at
 * (m-c, r); so logical (r, c) of a grid turned q times is stored at
 * g^q(r, c) with g(r, c) = (m-c, r). */
static inline void rotate_rc(int n, int q, int r, int c, int *pr, int *pc)
{
	int m = n - 1;
	switch (q & 3) {
	case 0:
		*pr = r, *pc = c;
		break;
	case 1:
		*pr = m - c, *pc = r;
		break;
	case 2:
		*pr = m - r, *pc = m - c;
		break;
	default:
		*pr = c, *pc = m - r;
		break;
	}
}

/* Byte offset within a face of logical (r, c) under q quarter turns. */
static inline size_t cell(int n, int q, int r, int c)
{
	int pr, pc;
	rotate_rc(n, q, r, c, &pr, &pc);
	return store(n, pr, pc);
}

int cube_get(const cube_t *c, int f, int r, int col)
{
	return c->st[(size_t)f * face_bytes(c->n) + cell(c->n, c->rot[f], r, col)];
}

void cube__set(cube_t *c, int f, int r, int col, int v)
{
	c->st[(size_t)f * face_bytes(c->n) + cell(c->n, c->rot[f], r, col)] =
		(unsigned char)v;
}

/* A strip's row and column as affine functions of t (position along the
 * strip), layer i and m = n-1: value = t·ct + i·ci + m·cm. */
struct lin {
	signed char ct, ci, cm;
};
struct strip {
	unsigned char face;
	struct lin row, col;
};

#define T_ {1, 0, 0}
#define MT {-1, 0, 1}
#define I_ {0, 1, 0}
#define MI {0, -1, 1}

/* The four strips of each axis' ring, in the order a positive quarter turn
 * carries stickers: strip 0 → 1 → 2 → 3 → 0. Derived from the net: e.g.
 * R (axis x, i = 0) lifts F's right column onto U's, U's onto B's left
 * column (upside down), B's onto D's, D's onto F's. */
static const struct strip rings[3][4] = {
	[CUBE_X] = {{CUBE_F, T_, MI}, {CUBE_U, T_, MI},
		    {CUBE_B, MT, I_}, {CUBE_D, T_, MI}},
	[CUBE_Y] = {{CUBE_F, I_, T_}, {CUBE_L, I_, T_},
		    {CUBE_B, I_, T_}, {CUBE_R, I_, T_}},
	[CUBE_Z] = {{CUBE_U, MI, T_}, {CUBE_R, T_, I_},
		    {CUBE_D, I_, MT}, {CUBE_L, MT, MI}},
};
static const unsigned char pos_face[3] = {CUBE_R, CUBE_U, CUBE_F};
static const unsigned char neg_face[3] = {CUBE_L, CUBE_D, CUBE_B};

static inline int lin_eval(struct lin l, int t, int i, int m)
{
	return l.ct * t + l.ci * i + l.cm * m;
}

/* Move the stickers at p0..p3 one step of a qt quarter-turn cycle
 * (strip 0 → 1 → 2 → 3 → 0), then step every pointer. */
#define RING_LOOP(count, qt, p0, p1, p2, p3, s0, s1, s2, s3)                 \
	do {                                                                   \
		int n_ = (count);                                              \
		switch (qt) {                                                  \
		case 1:                                                        \
			for (int t_ = 0; t_ < n_; t_++) {                      \
				unsigned char a_ = *p0, b_ = *p1, c_ = *p2,    \
					      d_ = *p3;                        \
				*p0 = d_, *p1 = a_, *p2 = b_, *p3 = c_;        \
				p0 += s0, p1 += s1, p2 += s2, p3 += s3;        \
			}                                                      \
			break;                                                 \
		case 2:                                                        \
			for (int t_ = 0; t_ < n_; t_++) {                      \
				unsigned char a_ = *p0, b_ = *p1, c_ = *p2,    \
					      d_ = *p3;                        \
				*p0 = c_, *p1 = d_, *p2 = a_, *p3 = b_;        \
				p0 += s0, p1 += s1, p2 += s2, p3 += s3;        \
			}                                                      \
			break;                                                 \
		default:                                                       \
			for (int t_ = 0; t_ < n_; t_++) {                      \
				unsigned char a_ = *p0, b_ = *p1, c_ = *p2,    \
					      d_ = *p3;                        \
				*p0 = b_, *p1 = c_, *p2 = d_, *p3 = a_;        \
				p0 += s0, p1 += s1, p2 += s2, p3 += s3;        \
			}                                                      \
			break;                                                 \
		}                                                              \
	} while (0)

#define PREFETCH_AHEAD 16

/* Row-major big cubes: column strips touch a cache line per sticker, so
 * ask for lines a few steps ahead (prefetches never fault). */
static void ring_turn_prefetch(unsigned char *p[4], const ptrdiff_t st[4],
			       int n, int qt)
{
	unsigned char *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3];
	ptrdiff_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
	for (int t = 0; t < n; t += 8) {
		int len = n - t < 8 ? n - t : 8;
		if (t + PREFETCH_AHEAD < n) {
			for (int k = 0; k < 8; k++) {
				__builtin_prefetch(p0 + (PREFETCH_AHEAD + k) * s0, 1);
				__builtin_prefetch(p1 + (PREFETCH_AHEAD + k) * s1, 1);
				__builtin_prefetch(p2 + (PREFETCH_AHEAD + k) * s2, 1);
				__builtin_prefetch(p3 + (PREFETCH_AHEAD + k) * s3, 1);
			}
		}
		RING_LOOP(len, qt, p0, p1, p2, p3, s0, s1, s2, s3);
	}
}

/* Cycle the ring of layer i of axis a by qt (1..3) quarter turns. */
static void ring_turn(cube_t *c, int a, int i, int qt)
{
	int n = c->n, m = n - 1;
	size_t fb = face_bytes(n);
	int pr[4], pc[4], dr[4], dc[4];

	for (int k = 0; k < 4; k++) {
		const struct strip *s = &rings[a][k];
		int q = c->rot[s->face];
		int r1, c1;
		rotate_rc(n, q, lin_eval(s->row, 0, i, m),
			  lin_eval(s->col, 0, i, m), &pr[k], &pc[k]);
		rotate_rc(n, q, lin_eval(s->row, 1, i, m),
			  lin_eval(s->col, 1, i, m), &r1, &c1);
		dr[k] = n > 1 ? r1 - pr[k] : 0;
		dc[k] = n > 1 ? c1 - pc[k] : 0;
	}

	unsigned char *pp[4];
	ptrdiff_t st[4];
	if (!is_tiled(n)) {
		for (int k = 0; k < 4; k++) {
			pp[k] = c->st + rings[a][k].face * fb +
				store(n, pr[k], pc[k]);
			st[k] = (ptrdiff_t)dr[k] * n + dc[k];
		}
		if (n >= 256) {
			ring_turn_prefetch(pp, st, n, qt);
			return;
		}
		/* scalars, not array reads: the byte stores below could
		 * alias an array, forcing a reload each step */
		unsigned char *p0 = pp[0], *p1 = pp[1], *p2 = pp[2], *p3 = pp[3];
		ptrdiff_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
		RING_LOOP(n, qt, p0, p1, p2, p3, s0, s1, s2, s3);
		return;
	}

	/* Tiled (n a multiple of 8): every strip starts at a tile's first
	 * or last row/column and leaves it after 8 stickers. Inside a tile a
	 * strip moves ±1 (along a row) or ±8 (along a column); to the next
	 * tile it moves ±57 (+64, then back 7 columns) or ±(tile row - 56). */
	ptrdiff_t cross[4];
	ptrdiff_t tile_row = (ptrdiff_t)(n >> 3) * 64;
	for (int k = 0; k < 4; k++) {
		pp[k] = c->st + rings[a][k].face * fb + store(n, pr[k], pc[k]);
		st[k] = dc[k] ? dc[k] : dr[k] * 8;
		ptrdiff_t jump = dc[k] ? dc[k] * 57 : dr[k] * (tile_row - 56);
		cross[k] = jump - st[k];
	}
	unsigned char *p0 = pp[0], *p1 = pp[1], *p2 = pp[2], *p3 = pp[3];
	ptrdiff_t s0 = st[0], s1 = st[1], s2 = st[2], s3 = st[3];
	ptrdiff_t c0 = cross[0], c1 = cross[1], c2 = cross[2], c3 = cross[3];
	for (int t = 0; t < n; t += 8) {
		RING_LOOP(8, qt, p0, p1, p2, p3, s0, s1, s2, s3);
		p0 += c0, p1 += c1, p2 += c2, p3 += c3;
	}
}

void cube__turn_generic(cube_t *c, int axis, int lo, int hi, int qt)
{
	int m = c->n - 1;
	for (int i = lo; i <= hi; i++)
		ring_turn(c, axis, i, qt);
	if (lo == 0)
		c->rot[pos_face[axis]] = (c->rot[pos_face[axis]] + qt) & 3;
	if (hi == m)
		c->rot[neg_face[axis]] =
			(c->rot[neg_face[axis]] + 4 - qt) & 3;
}

/* Sticker 4-cycles of each single-layer quarter turn on 3×3, in the
 * direction stickers travel (a → b → c → d → a): [axis][layer][cycle].
 * Outer layers have five cycles (corner stickers, edge stickers, three ring
 * strips), the middle layer three. Generated once from
 * cube__turn_generic and pinned by the "turn3 tables" test. */
static const unsigned char turn3_cycles[3][3][5][4] = {
	{
		{{2, 51, 29, 20}, {5, 48, 32, 23}, {8, 45, 35, 26}, {9, 11, 17, 15}, {10, 14, 16, 12}},
		{{1, 52, 28, 19}, {4, 49, 31, 22}, {7, 46, 34, 25}},
		{{0, 53, 27, 18}, {3, 50, 30, 21}, {6, 47, 33, 24}, {36, 42, 44, 38}, {37, 39, 43, 41}},
	},
	{
		{{0, 2, 8, 6}, {1, 5, 7, 3}, {9, 18, 36, 45}, {10, 19, 37, 46}, {11, 20, 38, 47}},
		{{12, 21, 39, 48}, {13, 22, 40, 49}, {14, 23, 41, 50}},
		{{15, 24, 42, 51}, {16, 25, 43, 52}, {17, 26, 44, 53}, {27, 33, 35, 29}, {28, 30, 34, 32}},
	},
	{
		{{6, 9, 29, 44}, {7, 12, 28, 41}, {8, 15, 27, 38}, {18, 20, 26, 24}, {19, 23, 25, 21}},
		{{3, 10, 32, 43}, {4, 13, 31, 40}, {5, 16, 30, 37}},
		{{0, 11, 35, 42}, {1, 14, 34, 39}, {2, 17, 33, 36}, {45, 51, 53, 47}, {46, 48, 52, 50}},
	},
};

const unsigned char (*cube__turn3_cycles(void))[3][5][4]
{
	return turn3_cycles;
}

const unsigned char *cube__turn3_perm(int axis, int lo, int hi, int qt)
{
	return turn3_perm[axis][turn3_range[lo][hi]][qt - 1];
}

static inline void turn3_layer(unsigned char *s, int axis, int layer, int qt)
{
	const unsigned char(*cy)[4] = turn3_cycles[axis][layer];
	int count = layer == 1 ? 3 : 5;
	switch (qt) {
	case 1:
		for (int k = 0; k < count; k++) {
			unsigned char t = s[cy[k][3]];
			s[cy[k][3]] = s[cy[k][2]];
			s[cy[k][2]] = s[cy[k][1]];
			s[cy[k][1]] = s[cy[k][0]];
			s[cy[k][0]] = t;
		}
		break;
	case 2:
		for (int k = 0; k < count; k++) {
			unsigned char t = s[cy[k][0]];
			s[cy[k][0]] = s[cy[k][2]];
			s[cy[k][2]] = t;
			t = s[cy[k][1]];
			s[cy[k][1]] = s[cy[k][3]];
			s[cy[k][3]] = t;
		}
		break;
	case 3:
		for (int k = 0; k < count; k++) {
			unsigned char t = s[cy[k][0]];
			s[cy[k][0]] = s[cy[k][1]];
			s[cy[k][1]] = s[cy[k][2]];
			s[cy[k][2]] = s[cy[k][3]];
			s[cy[k][3]] = t;
		}
		break;
	}
}

int cube_turn(cube_t *c, int axis, int lo, int hi, int qt)
{
	if (!c || axis < 0 || axis > 2 || lo < 0 || lo > hi || hi >= c->n)
		return CUBE_EINVAL;
	qt &= 3;
	if (qt == 0)
		return CUBE_OK;
	if (c->n == 3) {
#ifdef CUBE_HAVE_VBMI
		if (have_vbmi()) {
			turn3_vbmi(c->st,
				   turn3_perm[axis][turn3_range[lo][hi]][qt - 1]);
			return CUBE_OK;
		}
#endif
		for (int i = lo; i <= hi; i++)
			turn3_layer(c->st, axis, i, qt);
		return CUBE_OK;
	}
	cube__turn_generic(c, axis, lo, hi, qt);
	return CUBE_OK;
}

void cube__apply_trusted(cube_t *c, const cube_move *m, size_t count)
{
#ifdef CUBE_HAVE_VBMI
	if (c->n == 3 && have_vbmi()) {
		turn3_vbmi_many(c->st, m, count);
		return;
	}
#endif
	for (size_t k = 0; k < count; k++)
		cube_turn(c, m[k].axis, m[k].lo, m[k].hi, m[k].qt);
}

int cube_apply_moves(cube_t *c, const cube_move *m, size_t count)
{
	if (!c || (!m && count))
		return CUBE_EINVAL;
	for (size_t k = 0; k < count; k++)
		if (m[k].axis > 2 || m[k].lo > m[k].hi || m[k].hi >= c->n)
			return CUBE_EINVAL;
#ifdef CUBE_HAVE_VBMI
	if (c->n == 3 && have_vbmi()) {
		turn3_vbmi_many(c->st, m, count);
		return CUBE_OK;
	}
#endif
	for (size_t k = 0; k < count; k++)
		cube_turn(c, m[k].axis, m[k].lo, m[k].hi, m[k].qt);
	return CUBE_OK;
}

int cube_equal(const cube_t *a, const cube_t *b)
{
	if (a->n != b->n)
		return 0;
	int n = a->n;
	size_t fb = face_bytes(n);
	for (int f = 0; f < 6; f++) {
		const unsigned char *fa = a->st + f * fb, *fbb = b->st + f * fb;
		if (a->rot[f] == b->rot[f]) {
			if (memcmp(fa, fbb, fb) != 0)
				return 0;
			continue;
		}
		for (int r = 0; r < n; r++)
			for (int col = 0; col < n; col++)
				if (fa[cell(n, a->rot[f], r, col)] !=
				    fbb[cell(n, b->rot[f], r, col)])
					return 0;
	}
	return 1;
}

int cube_is_solved(const cube_t *c)
{
	size_t fb = face_bytes(c->n);
	for (int f = 0; f < 6; f++) {
		const unsigned char *p = c->st + f * fb;
		for (size_t k = 0; k < fb; k++)
			if (p[k] != f)
				return 0;
	}
	return 1;
}

void cube_to_facelets(const cube_t *c, char *out)
{
	int n = c->n;
	size_t nn = (size_t)n * n, fb = face_bytes(n);
	for (int f = 0; f < 6; f++) {
		const unsigned char *p = c->st + f * fb;
		char *o = out + f * nn;
		int q = c->rot[f];
		if (q == 0 && !is_tiled(n)) {
			for (size_t k = 0; k < nn; k++)
				o[k] = cube_face_letters[p[k]];
			continue;
		}
		for (int r = 0; r < n; r++)
			for (int col = 0; col < n; col++)
				*o++ = cube_face_letters[p[cell(n, q, r, col)]];
	}
}

int cube_size_from_length(size_t len)
{
	if (len == 0 || len % 6 != 0)
		return CUBE_ELENGTH;
	size_t nn = len / 6;
	size_t n = 1;
	while (n * n < nn && n <= CUBE_MAX_N)
		n++;
	if (n * n != nn || n > CUBE_MAX_N)
		return CUBE_ELENGTH;
	return (int)n;
}

int cube_from_facelets(cube_t *c, int n, const char *s, size_t len,
		       size_t *bad)
{
	if (!c || (!s && len))
		return CUBE_EINVAL;
	if (n != 0 && (n < CUBE_MIN_N || n > CUBE_MAX_N))
		return CUBE_ESIZE;
	int got = cube_size_from_length(len);
	if (got < 0 || (n != 0 && got != n)) {
		if (bad)
			*bad = len;
		return CUBE_ELENGTH;
	}
	for (size_t k = 0; k < len; k++) {
		if (!letter_face[(unsigned char)s[k]]) {
			if (bad)
				*bad = k;
			return CUBE_ELETTER;
		}
	}
	c->n = got;
	memset(c->rot, 0, sizeof c->rot);
	memset(c->pad, 0, sizeof c->pad);
	size_t nn = (size_t)got * (size_t)got, fb = face_bytes(got);
	for (int f = 0; f < 6; f++) {
		unsigned char *p = c->st + f * fb;
		const char *in = s + f * nn;
		if (!is_tiled(got)) {
			for (size_t k = 0; k < nn; k++)
				p[k] = (unsigned char)(letter_face[(unsigned char)in[k]] - 1);
			continue;
		}
		for (int r = 0; r < got; r++)
			for (int col = 0; col < got; col++)
				p[store(got, r, col)] = (unsigned char)(
					letter_face[(unsigned char)in[(size_t)r * got + col]] - 1);
	}
	memset(c->st + 6 * fb, 0, CUBE_SLACK);
	return CUBE_OK;
}
