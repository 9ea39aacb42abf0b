/* solve2.c — optimal 2×2 solutions from a full distance table (solve.h).
 *
 * A 2×2 has 3,674,160 states once the DBL corner is held home (cubie.h),
 * few enough to store every state's distance from solved: 4 bits each,
 * 1.8 MB, filled breadth first with the nine turns of R, U and F (the
 * faces that leave DBL alone; D, L and B are those turns followed by a
 * whole-cube rotation, so nothing shorter exists with them). Solving then
 * needs no search: from the state, take any turn to a neighbour one closer,
 * at most 11 times.
 *
 * States are numbered by cubie2_rank (index.c): corner permutation rank ·
 * 729 + twist. A turn moves the permutation part as a function of the
 * permutation alone and the twist part as a function of the twist alone,
 * so two small move tables drive everything.
 */
#include "solve.h"
#include "solve_internal.h"

#include <string.h>

enum {
	NCP = 5040,     /* 7! permutations of the corners other than DBL */
	NTW = 729,      /* 3^6 twists */
	NMOVE = 9,      /* U U2 U' R R2 R' F F2 F' */
	MAXDEPTH = 11,
};

#define NSTATES CUBE2_STATES

/* Layout: header, move tables, then two entries a byte (low nibble even). */
#define SZ_HEADER SOLVE__HEADER
#define OFF_CP_MOVE SZ_HEADER
#define OFF_TW_MOVE (OFF_CP_MOVE + NCP * NMOVE * 2)
#define OFF_DIST (OFF_TW_MOVE + NTW * NMOVE * 2)
#define SZ_TOTAL (OFF_DIST + (NSTATES + 1) / 2)

/* The header's magic and format version (solve_internal.h): any change
 * to what the tables hold must bump VERSION, or old cache files would
 * still pass the check. */
static const char MAGIC[8] = "cubed2x2";
#define VERSION 1u

/* faces 0 1 2 = U R F, the same numbers as cube.h's faces */
static const uint8_t axis_of[3] = {CUBE_Y, CUBE_X, CUBE_Z};

struct tables {
	uint16_t *cp_move, *tw_move;
	uint8_t *dist;
};

static void bind(struct tables *t, unsigned char *b)
{
	t->cp_move = (uint16_t *)(void *)(b + OFF_CP_MOVE);
	t->tw_move = (uint16_t *)(void *)(b + OFF_TW_MOVE);
	t->dist = b + OFF_DIST;
}

static inline int dist_get(const uint8_t *d, uint32_t i)
{
	return d[i >> 1] >> ((i & 1) << 2) & 15;
}

static inline void dist_set(uint8_t *d, uint32_t i, int v)
{
	int sh = (int)(i & 1) << 2;
	d[i >> 1] = (uint8_t)((d[i >> 1] & ~(15 << sh)) | v << sh);
}

static inline uint32_t move(const struct tables *t, uint32_t i, int m)
{
	return (uint32_t)t->cp_move[i / NTW * NMOVE + m] * NTW +
	       t->tw_move[i % NTW * NMOVE + m];
}

size_t solve2_table_size(void)
{
	return (size_t)SZ_TOTAL;
}

/* The move tables go through cubie2_unrank / compose / cubie2_rank once
 * per (part, turn), so they number states exactly as index.c does. */
static int init_moves(const struct tables *t)
{
	cubie2 turn[NMOVE], c, d;
	for (int m = 0; m < NMOVE; m++)
		cubie2_face_turn(m / 3, m % 3 + 1, &turn[m]);
	for (uint32_t p = 0; p < NCP; p++)
		for (int m = 0; m < NMOVE; m++) {
			cube_index ix = {(uint64_t)p * NTW, 0}, r;
			if (cubie2_unrank(&ix, &c) < 0)
				return -1;
			cubie2_compose(&c, &turn[m], &d);
			if (cubie2_rank(&d, &r) < 0)
				return -1;
			t->cp_move[p * NMOVE + m] = (uint16_t)(r.corner / NTW);
		}
	for (uint32_t w = 0; w < NTW; w++)
		for (int m = 0; m < NMOVE; m++) {
			cube_index ix = {w, 0}, r;
			if (cubie2_unrank(&ix, &c) < 0)
				return -1;
			cubie2_compose(&c, &turn[m], &d);
			if (cubie2_rank(&d, &r) < 0)
				return -1;
			t->tw_move[w * NMOVE + m] = (uint16_t)(r.corner % NTW);
		}
	return 0;
}

int solve2_table_init(void *buf, size_t size, solve_poll_fn poll, void *ctx)
{
	if (!buf || size != SZ_TOTAL)
		return CUBE_EINVAL;
	unsigned char *b = buf;
	struct tables t;
	if (poll && poll(ctx, 0, NSTATES))
		return SOLVE_ECANCELLED;
	memset(b, 0, SZ_TOTAL);
	bind(&t, b);
	if (init_moves(&t) < 0)
		return SOLVE_ETABLES; /* a bug, not bad input */
	memset(t.dist, 0xff, (NSTATES + 1) / 2);
	dist_set(t.dist, 0, 0);
	uint64_t done = 1;
	for (int d = 0; d < MAXDEPTH; d++) {
		if (poll && poll(ctx, done, NSTATES))
			return SOLVE_ECANCELLED;
		for (uint32_t i = 0; i < NSTATES; i++) {
			if (dist_get(t.dist, i) != d)
				continue;
			for (int m = 0; m < NMOVE; m++) {
				uint32_t j = move(&t, i, m);
				if (dist_get(t.dist, j) == 15) {
					dist_set(t.dist, j, d + 1);
					done++;
				}
			}
		}
	}
	if (done != NSTATES)
		return SOLVE_ETABLES;
	solve__seal(b, SZ_TOTAL, MAGIC, VERSION);
	if (poll)
		poll(ctx, done, NSTATES);
	return CUBE_OK;
}

static int header_ok(const void *b)
{
	return solve__header_ok(b, SZ_TOTAL, MAGIC, VERSION);
}

int solve2_table_check(const void *buf, size_t size)
{
	return solve__check(buf, size, SZ_TOTAL, MAGIC, VERSION);
}

int solve2_table_histogram(const void *tables, uint64_t counts[12])
{
	if (!tables || !counts)
		return CUBE_EINVAL;
	if (!header_ok(tables))
		return SOLVE_ETABLES;
	struct tables t;
	bind(&t, (unsigned char *)(uintptr_t)tables);
	memset(counts, 0, 12 * sizeof counts[0]);
	int max = 0;
	for (uint32_t i = 0; i < NSTATES; i++) {
		int d = dist_get(t.dist, i);
		if (d > MAXDEPTH)
			return SOLVE_ETABLES;
		counts[d]++;
		if (d > max)
			max = d;
	}
	return max;
}

int solve2_optimal(const void *tables, const cubie2 *c, cube_move *out,
		   int cap)
{
	if (!tables || !c || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	if (!header_ok(tables))
		return SOLVE_ETABLES;
	cube_index ix;
	if (cubie2_rank(c, &ix) < 0)
		return CUBE_EINVALID;
	struct tables t;
	bind(&t, (unsigned char *)(uintptr_t)tables);
	uint32_t i = (uint32_t)ix.corner;
	int d = dist_get(t.dist, i);
	if (d > MAXDEPTH)
		return SOLVE_ETABLES;
	if (d > cap)
		return CUBE_ESPACE;
	for (int k = 0; k < d; k++) {
		int m;
		for (m = 0; m < NMOVE; m++) {
			uint32_t j = move(&t, i, m);
			if (dist_get(t.dist, j) == d - k - 1) {
				i = j;
				break;
			}
		}
		if (m == NMOVE)
			return SOLVE_ETABLES;
		out[k].axis = axis_of[m / 3];
		out[k].lo = out[k].hi = 0;
		out[k].qt = (uint8_t)(m % 3 + 1);
	}
	return d;
}
