/* edges_beam.h — what the edge beam (edges_beam.c) shares with the
 * half-edge pairing moves (edges_halves.c), which build their macros as
 * the beam's cores in its region: the beam's sizes, its macros and
 * states, and the pair counts both weigh them by. */
#ifndef CUBED_REDUCE_EDGES_BEAM_H
#define CUBED_REDUCE_EDGES_BEAM_H

#include "edges.h"
#include "parity.h" /* REDUCE_PLL_MOVES */

/* The edge beam (plan.edge_beam; edges_beam.c's head and reduce__beam_edges
 * say how it works): its macros, and each cost level's best states. */
#define EB_NE (24 * (EB_MAX_N - 2))
#define EB_ADJ (12 * (EB_MAX_N - 3))
/* an edge place, as the macros' maps and joins hold it (past 12×12
 * more than 256) */
typedef uint16_t eb_pl;
_Static_assert(EB_NE <= 65536 && EB_ADJ <= 65535, "the beam's maps and pair counts");
/* S: 3 axes, up to 6 (n - 2) - 15 layer sets (12×12: 10 slices, 9
 * blocks of two, 8 of three … 5 of six: FREE_MAX_W; 17×17: 75), 3
 * amounts; A: none or 8; B: 6 */
#define EB_CORES (3 * (6 * (EB_MAX_N - 2) - 15) * 3 * 9 * 6)
_Static_assert(FREE_MAX_W <= 6, "EB_CORES holds blocks of up to six");

/* A set of neighbours along the edges, bit 12·(j-1) + e for indices j,
 * j+1 on edge e. */
#define EB_MW ((EB_ADJ + 63) / 64)
/* the words past the first two, kept apart from each macro's record */
#define EB_HW (EB_MW > 2 ? EB_MW - 2 : 1)
struct ebmask {
	uint64_t w[EB_MW];
};
/* Neighbours a macro puts together, at most: S moves 4 pieces a layer,
 * each with at most two neighbours, and X only carries whole edges. */
#define EB_JOINS_PER (8 * FREE_MAX_W)
/* States a level: the plan's eb_width (eb_width_first in the first
 * round; plan.c says why by size and effort), at most EB_WMAX. */
#define EB_WMAX PLAN_EB_WIDTH_MAX
#ifndef EB_FINISH
#define EB_FINISH 5
#endif
/* How near the last level a round's best state must lie for another
 * round (EB_ROUNDS at most) */
#define EB_ROUND_END 16
/* The last round's endings (states with every edge paired) at most
 * EB_END_SLACK moves past the best, EB_ENDS of them, each tried with the
 * 3×3 after it (reduce.c: best_ending); 2 and 3 gave the same lengths
 * on 6×6, 8×8 and 9×9 for 5-15 % more time */
#define EB_ENDS REDUCE_ENDS
#ifndef EB_END_SLACK
#define EB_END_SLACK 1
#endif
/* Even n: what a state with every edge paired costs more when its edges
 * stand an odd permutation from the corners' (the pll_parity stage's six
 * moves, parity.c) */
#ifndef EB_PLL
#define EB_PLL REDUCE_PLL_MOVES
#endif

/* A macro S X S' (the neighbours it puts together and its parted bits
 * past 127 kept apart, in struct ebeam, so that a search step reads
 * little). */
struct ecore {
	/* the neighbours along an edge it parts: bit 12·(j-1) + e for
	 * indices j, j+1 on edge e */
	uint64_t brk[2]; /* bits 0-127; past them ebeam's brk_hi */
	uint32_t join;   /* the first of those it puts together in ebeam */
	uint16_t S;      /* the slice */
	uint16_t njoin;
	uint16_t x[3];
	uint8_t xlen;    /* X: 1 (B) or 3 (A B A') moves */
	uint8_t cq;      /* X's quarter turns of faces, mod 2 (B's) */
};
_Static_assert(sizeof(struct ecore) == 32, "a macro's record, 32 bytes");

/* How a state was reached: a face turn, a slice opened with its first
 * X, one more X under the open slice. */
enum { EB_FACE, EB_NEW, EB_MORE };

struct enode {
	uint8_t v[EB_NE]; /* the edges as they are once the slice closes */
	uint16_t pairs;
	uint8_t kind;
	uint8_t plev;     /* the parent's level */
	uint8_t cq;       /* quarter turns of faces since the round began,
			   * mod 2: the corners' parity against then */
	uint16_t open;    /* the open slice, or EB_CLOSED */
	uint32_t move;    /* the face turn, or the macro */
	uint16_t parent;  /* the parent's index in its level */
	uint32_t hash;
};
#define EB_CLOSED 0xffff

#define HV_X 7
#define HV_CORES 6144
#ifndef HV_SETUP2
#define HV_SETUP2 1
#endif
#ifndef HV_PASSES
#define HV_PASSES 8
#endif
struct ebeam {
	int ncore, njoin;
	struct ecore core[EB_CORES];
	/* each core's parted bits past 127, EB_HW words; nw: the words a
	 * mask of this n has */
	uint64_t brk_hi[EB_CORES][EB_HW];
	int nw;
	/* past this struct in its region, sized for the cube's own n
	 * (reduce__edge_beam_size; reduce__eb_layout sets it): the
	 * neighbours macros put together, the places their stickers come
	 * from (one's first, the other's first, one's second, the other's
	 * second). A macro's map on the edge places is not kept (17×17's
	 * took 26 MB, 33×33's would take 123): a child is made from its
	 * turns (eb_apply), once it has earned its level. */
	eb_pl (*join)[4];
	int maxcore;
	long maxjoin;
	int k[EB_LEVELS];
	/* the pairs a child needs above to enter level c: its last state's
	 * once the level is full, else -1 (kept apart from lev, whose
	 * states lie far apart, for eb_round's inner loop) */
	int bar[EB_LEVELS];
	int w; /* states a level (plan.eb_width) */
	/* even n (eb_pll_odd): the corners' parity when the round began,
	 * and the edge whose home colours are a and b, home[a][b] (-1: no
	 * edge) */
	int pll, cpar0;
	int8_t home[6][6];
	/* the last round: where it began (moves, wing parities; the cube
	 * in x->scratch) and its endings, best first */
	size_t c0;
	unsigned par0;
	int bs; /* its best score */
	int nends;
	struct {
		uint8_t lev, score;
		uint16_t i;
	} ends[EB_ENDS];
	struct enode lev[EB_LEVELS][EB_WMAX];
	/* reduce__edge_halves: its macros' generators (S, X, S') */
	uint16_t hv[HV_CORES][2 + HV_X];
};

static inline struct ebeam *ebeam_of(struct ctx *x)
{
	return (struct ebeam *)x->region[REDUCE_R_EDGE_BEAM];
}

static inline int is_face_gen(const struct freec *F, int g, int m)
{
	return F->gen[g].lo == F->gen[g].hi &&
	       (F->gen[g].lo == 0 || F->gen[g].lo == m);
}

/* Which neighbours along the edges of v are pairs (bits as brk). */
static inline struct ebmask eb_adj(const struct freec *F, const uint8_t *v, int n)
{
	struct ebmask bits = {{0}};
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < n - 2; j++) {
			const uint16_t *a = F->slot[e][j], *b = F->slot[e][j + 1];
			int k = 12 * (j - 1) + e;
			if (v[a[0]] == v[b[0]] && v[a[1]] == v[b[1]])
				bits.w[k >> 6] |= 1ull << (k & 63);
		}
	return bits;
}

static inline int popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((v * 0x0101010101010101ull) >> 56);
}

static inline int eb_popcount(struct ebmask m)
{
	int c = 0;
	for (int i = 0; i < EB_MW; i++)
		c += popcount64(m.w[i]);
	return c;
}

/* The beam's inner loop (eb_round) weighs every macro on every state,
 * and counting the pairs a macro parts is most of that: where GCC can,
 * it is built twice, once with the POPCNT instruction and once without,
 * and the loader picks the one the processor runs (an ifunc). 20 states
 * of 9×9, alternating runs: 11-15 % less time for the whole solve, the
 * same answers. */
#define EB_CLONES REDUCE_CLONES("popcnt")
#if REDUCE_HAVE_CLONES
#define EB_POPCOUNT(v) __builtin_popcountll(v)
#else
#define EB_POPCOUNT(v) popcount64(v)
#endif

/* The pairs of adj that macro C parts (hi: its bits past 127, nw - 2
 * words, read only where masks have them: past 13×13; a third word in
 * struct ecore itself made 10×10 5-7 % slower, the cores' scan reading a
 * quarter more). */
static inline int eb_parted(const struct ebmask *adj, const struct ecore *C,
			    const uint64_t *hi, int nw)
{
	int c = EB_POPCOUNT(adj->w[0] & C->brk[0]) +
		EB_POPCOUNT(adj->w[1] & C->brk[1]);
	for (int i = 2; i < nw; i++)
		c += EB_POPCOUNT(adj->w[i] & hi[i - 2]);
	return c;
}

/* Pairs among the neighbours q[0..k) of v. (Both tests made and AND-ed:
 * with && each pair cost a branch the data leaves unpredictable; 9×9
 * takes 10 % less time, bench/RESULTS.md.) */
static inline int eb_count(const uint8_t *v, eb_pl (*q)[4], int k)
{
	int sc = 0;
	for (int i = 0; i < k; i++)
		sc += (v[q[i][0]] == v[q[i][1]]) & (v[q[i][2]] == v[q[i][3]]);
	return sc;
}

/* edges_beam.c: the maps' and joins' places in the region for x->n
 * (every macro before emptied) */
void reduce__eb_layout(struct ctx *x);
/* edges_beam.c: each edge place's (edge, index along it, side), and
 * macro k's pairs parted and neighbours joined, from its map src (the
 * sticker that lands on p comes from src[p]; at: those places) */
void reduce__eb_places(const struct freec *F, int m, uint8_t (*at)[3]);
void reduce__eb_compares(const struct freec *F, struct ebeam *E, int k,
			 int n, uint8_t (*at)[3], const eb_pl *src);
/* edges_beam.c: the map of the turns seq[0..len) on the edge places
 * (the sticker that lands on p comes from src[p]), and those turns made
 * on the edges v (out[p] = v[src[p]]; out and v apart) */
void reduce__eb_map(const struct freec *F, const uint16_t *seq, int len,
		    eb_pl *src);
void reduce__eb_apply(const struct freec *F, const uint16_t *seq, int len,
		      const uint8_t *v, uint8_t *out);

#endif
