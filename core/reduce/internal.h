/* internal.h — the context every file of the reduction solver works in
 * (the public surface is core/reduce.h): the solve's context and work
 * buffer, with what it holds (the pass's plan, plan.h; the orbit models;
 * the turns' maps), and small helpers every stage uses. Each family's
 * calls are in its own header: orbits.h, turns.h, centers.h and
 * centers_methods.h, edges.h (edges_beam.h within the beam), parity.h,
 * reduced3x3.h, phases.h (4×4 and 5×5). Not part of the API. */
#ifndef CUBED_REDUCE_INTERNAL_H
#define CUBED_REDUCE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cube_internal.h"
#include "reduce.h"

#include "plan.h"

/* ------------------------------------------------------- the orbit models */

/* orbits.c builds them, orbits.h says how to use them: the 24 places of
 * a center or wing orbit seen as a small cube's, its turns as
 * permutations of them, the set-ups to every ordered triple. */
#define NPOS 24
#define NTRI (NPOS * NPOS * NPOS)
#define MAX_GEN 54
#define MAX_BASE 1536
#define BASE_LEN 8
/* Longest set-up the search keeps; deeper triples would be left unused
 * (the greedy step always has a shallow choice). As built, every ordered
 * triple of an orbit is reached within 3 set-up moves (X-centers and
 * wings) or 2 (+-centers and obliques), so the cap never bites. */
#define MAX_SETUP 4
#define STEP_MOVES (BASE_LEN + 2 * MAX_SETUP)
#define UNSEEN 255

/* Symbolic layers and coordinates of a model. */
enum { K_0, K_P, K_Q, K_MQ, K_MP, K_M, K_NONE = 255 };

struct smove {
	uint8_t axis, kind, qt;
};

enum { M_X, M_PLUS, M_OBL, M_WING, M_COUNT };

struct model {
	int nm;             /* model size */
	int wing;           /* positions are wings (two stickers) */
	uint8_t kind_of[8]; /* model layer / coordinate → kind */
	uint8_t st[NPOS][2][3]; /* each place's (face, row, col); for wings
				 * [0] is its first sticker: every move
				 * carries first stickers to first stickers */
	int ngen;
	struct smove gen[MAX_GEN];
	int8_t gen_at[3][8][4]; /* axis, model layer, qt → generator, or -1 */
	uint8_t perm[MAX_GEN][NPOS]; /* place p goes to perm[g][p] */
	uint8_t inv[MAX_GEN];
	int nbase;
	struct smove base[MAX_BASE][BASE_LEN];
	uint8_t dist[NTRI];     /* set-up length, UNSEEN */
	uint8_t how[NTRI];      /* dist > 0: the set-up's first generator */
	uint16_t base_of[NTRI]; /* dist == 0: the base */
	int max_dist;
};

struct orbit {
	const struct model *M;
	int p, q;
	/* the model's layer p turns the cube's p..p_hi (and m-p the mirror
	 * block m-p_hi..m-p): a wing orbit solved with the orbits p+1 ..
	 * p_hi that need the same cycles (edges_wings.c); p_hi = p else */
	int p_hi;
	uint16_t st[NPOS][2][3]; /* actual (face, row, col) */
};

/* Labels of tracked stickers start here (untracked ones show 0..5): the
 * models and macro libraries find a turn's map by turning a cube whose
 * stickers carry labels. */
#define LABEL0 16


/* ------------------------------------------------------- the turns' maps */

/* turns.c builds them (turns.h): every layer turn as maps of center and
 * edge places, for the free-turn center phase, the edge beam and the 3×3
 * stage's free turns. */
/* The free-move center phase (n <= FREE_MAX_N, plan.h): the center
 * places of the cube as one array, every layer turn as its list of (to,
 * from) pairs of center places. */
/* the turns' maps are sized for the larger of that and the edge beam's
 * largest cube (the beam reads them too: reduce__free_build) */
#define FREE_DIM_N (EB_MAX_N > FREE_MAX_N ? EB_MAX_N : FREE_MAX_N)
#define FREE_S (FREE_DIM_N - 2)
#define FREE_NC (6 * FREE_S * FREE_S)
/* Turns: single layers and blocks up to FREE_MAX_W layers wide (the
 * edge beam's slices S: turns.c); the free center phase takes blocks of
 * up to the plan's free_width. */
#define FREE_MAX_W 6
#define FREE_GEN (9 * FREE_MAX_W * FREE_DIM_N)
/* (center places' pairs only up to FREE_MAX_N: past it the maps are
 * built for the edge places alone) */
#define FREE_CS (FREE_MAX_N - 2)
#define FREE_PAIRS (FREE_GEN * (FREE_CS * FREE_CS + 4 * FREE_CS * FREE_MAX_W))
/* Labels for center places when finding the pairs: 6 .. 255. */
#define FREE_BATCH 250

#define FREE_NE (24 * FREE_S)
#define FREE_EPAIRS (FREE_GEN * (8 * FREE_S + 8 * FREE_MAX_W))

struct fgen {
	uint8_t axis, qt, inv_off;
	uint8_t centers; /* the free center phase may use it (else the edge
			  * beam alone) */
	uint16_t lo, hi; /* its layers */
	uint32_t wing;   /* the wing orbits whose parity it flips (bits) */
	uint32_t first, count;   /* its pairs of center places */
	uint32_t efirst, ecount; /* its pairs of edge places */
};

struct freec {
	int nc, ne, ngen, nall; /* turns: ngen, then the edge beam's */
	struct fgen gen[FREE_GEN];
	uint16_t pr[FREE_PAIRS][2];
	uint16_t epr[FREE_EPAIRS][2];
	uint16_t epos[FREE_NE][3]; /* edge place → (face, row, col) */
	/* the edge places along each of the 12 edges, index 1..n-2 along
	 * it: [0] on the edge's first face, [1] on its second */
	uint16_t slot[12][FREE_DIM_N][2];
	/* each turn as a map on the edge places: the sticker that lands on
	 * p comes from esrc[g][p]; and the edges (bits) it touches */
	uint16_t esrc[FREE_GEN][FREE_NE];
	uint16_t eslots[FREE_GEN];
	uint8_t cur[FREE_NC], tgt[FREE_NC], ecur[FREE_NE];
	uint8_t tmp[FREE_NC];
};


struct rwork {
	struct model model[M_COUNT];
	uint16_t queue[NTRI];
	struct freec fc;
	_Alignas(64) unsigned char sim[8192]; /* a model cube (n <= 7), or
					       * the cube for the turns'
					       * maps (n <= FREE_DIM_N) */
};

/* ------------------------------------------------ the work buffer's parts */

/* The parts of the work buffer a stage owns, each only for the sizes
 * that run it (their size 0 otherwise), in this order after the cube
 * and the other variants' moves: reduce.c lays them out and puts where
 * each starts in the context (ctx.region), so a stage never asks. */
enum reduce_region {
	REDUCE_R_STAGED,    /* centers_staged.c: struct stagew */
	REDUCE_R_EDGE_BEAM, /* edges_beam.c: struct ebeam, where the plan
			     * runs no edge beam struct mwork (the wing
			     * commutators, edges_wings.c) */
	REDUCE_R_OBLIQUES,  /* centers_obliques.c: the macros, candidates */
	REDUCE_R_BARS,      /* centers_bars.c: struct barlib */
	REDUCE_R_BLOCKS,    /* centers_blocks.c: struct blkw */
	REDUCE_R_FOUR,      /* four.c: struct fourw (4×4 only) */
	REDUCE_R_FIVE,      /* five.c: struct fivew (5×5 only) */
	REDUCE_REGIONS
};

/* Each region's bytes for size n (0 if the size does not run it). */
size_t reduce__staged_size(int n);
size_t reduce__edge_beam_size(int n);
size_t reduce__obliques_size(int n);
size_t reduce__bars_size(int n);
size_t reduce__blocks_size(int n);
size_t reduce__four_size(int n);
size_t reduce__five_size(int n);

struct ctx {
	struct rwork *w;
	cube_t *scratch; /* a cube of size n to try moves on */
	void *region[REDUCE_REGIONS]; /* each at a 64-byte boundary */
	const void *shared_bars; /* the bars' macros in the caller's shared
				  * tables (reduce_stage_tables_build), or
				  * NULL */
	cube_t *c;
	int n, m;
	cube_move *out;
	size_t cap, count;
	const reduce_limits *lim;
	int tcol[6];   /* colour each face ends with */
	int face_of[6]; /* inverse: colour → face */
	uint64_t ticks;
	/* the pass's plan (plan.h): its size and effort's choices, read
	 * by every stage; reduce__ease may turn it to the default's */
	struct reduce_plan plan;
	/* the variant: free phases' thresholds (stickers per move), and
	 * on even n which frame (0 the best) */
	int c_num, c_den, frame;
	/* the variant's settings the driver takes from its plan, kept when
	 * reduce__ease turns the plan to the default's */
	long polls; /* the 3×3 search's budget */
	int ends;   /* the edge beam's endings to try (reduce.c) */
	int free3;  /* the 3×3 stage tries the free turns (reduced3x3.c) */
	int hurried; /* the caller's hurry ended the 4×4's phases (four.c) */
	int eased;   /* the caller's hurry turned this variant's effort down
		      * to the default's (reduce__ease) */
	int answered; /* an earlier variant gave an answer: the hurry is
		       * asked no more (a later one cut short keeps it) */
	/* 4×4: the frame classes whose phases ran out of their budget, a
	 * bit each (solve_four, four_class) */
	uint64_t four_failed;
	int four_p1x; /* 1: the 4×4's phase 1 one move past its shortest */
	int rot;    /* the cube is solved turned by whole-cube rotation rot
		     * (0 none), the moves turned back */
	int split[4]; /* its steps' moves, all 0 unless all four ran */
	uint64_t cpar; /* wing parities the center stage made so far (bit
			* k: wing orbit k; up to 63, 128×128's) */
	long st_nodes; /* nodes the staged searches visited */
	long om_evals; /* macros the oblique greedy weighed */
	int erate;     /* the free phase's places are built: the centers'
			* last step may rate its answers by the edges */
	int blk_most; /* the block commutators' most sweeps (effort 3's
		       * second pass: the plan's blk_thr_most) */
	int bars_broken; /* bar steps of this solve that left obliques
			  * unpaired (reduce__bar_pair; reduce_result's
			  * bar_steps_short) */
	int bar_twins; /* macros made with the twins' layers
			* (centers_bars.c; bar_twin_macros) */
	int wing_shared; /* wing orbits whose 3-cycles the last pairing
			  * made with a lower orbit's (edges_wings.c;
			  * wing_orbits_shared) */
};

/* A hot function built twice where GCC targets x86-64: once for an
 * instruction set extension (isa), once for any processor; the loader
 * picks the clone the processor runs (an ifunc). Elsewhere, once. Used
 * for the edge beam (POPCNT, edges_beam.h) and the bars' scan (AVX2,
 * centers_bars.c). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define REDUCE_HAVE_CLONES 1
#define REDUCE_CLONES(isa) __attribute__((target_clones(isa, "default")))
#else
#define REDUCE_HAVE_CLONES 0
#define REDUCE_CLONES(isa)
#endif

/* Not instrumented by the sanitizers (in the sanitized build only, the
 * one that defines __SANITIZE_ADDRESS__): for the bars' scan, whose
 * byte-wide loops over the lanes no longer vectorize with
 * UndefinedBehaviorSanitizer's bounds checks and AddressSanitizer's
 * shadow reads: 20 times slower, 80 % of the sanitized reduce suite's
 * time (630 CPU-s of CI's 2,900; 196 without). What it indexes is
 * bounded where it is made (bar_hot: tri < ntri <= BAR_NTRI, ns <=
 * BAR_HOTN, brk < BAR_NB; a shared file's bytes checksummed on load; the
 * lanes <= BAR_LANES, fixed-size arrays), and the reduce suite checks
 * those bounds on the shared tables (reduce__bar_macs_bad). */
#if defined(__SANITIZE_ADDRESS__)
#define REDUCE_UNSANITIZED __attribute__((no_sanitize("address", "undefined")))
#else
#define REDUCE_UNSANITIZED
#endif

static inline int poll_now(struct ctx *x)
{
	return x->lim && x->lim->poll && x->lim->poll(x->lim->ctx, 0, 0);
}

/* Effort 2 and 3 where the plan says it eases (plan.eases: from
 * REDUCE_EASE_MIN_N to STAGED_MAX_N, plan.c says why) are asked between
 * the stages and between the centers' bar steps and rings until a
 * variant has given an answer: once the caller's hurry
 * (reduce_limits.hurry) says yes, the rest of the variant runs on the
 * default effort's plan and no other variant starts (reduce.c). A later
 * variant is never eased: the deadline that cuts it short keeps the
 * answer in hand. */
static inline void reduce__ease(struct ctx *x)
{
	if (!x->plan.eases || x->answered || !x->lim || !x->lim->hurry ||
	    !x->lim->hurry(x->lim->ctx))
		return;
	/* every choice by effort from here on (the beams' widths, the
	 * trials) reads the plan; where a pass eases both efforts take the
	 * same stages, so none is left half done. The variant's settings
	 * (x->polls, ends, free3, blk_most) stay. */
	x->plan = reduce__plan(x->n, 1);
	x->eased = 1;
}

static inline int emit_block(struct ctx *x, int axis, int lo, int hi, int qt)
{
	if (x->count >= x->cap)
		return CUBE_ESPACE;
	cube_move mv = {(uint8_t)axis, (uint8_t)(qt & 3), (uint16_t)lo,
			(uint16_t)hi};
	x->out[x->count++] = mv;
	cube__turn_generic(x->c, axis, lo, hi, qt & 3);
	return 0;
}

static inline int emit(struct ctx *x, int axis, int layer, int qt)
{
	return emit_block(x, axis, layer, layer, qt);
}

/* Orbits of each kind: wing orbits 1 .. wing_orbits(n), one per pair of
 * inner layers k and m-k. */
static inline int wing_orbits(int n)
{
	return (n - 2) / 2;
}

/* Center orbits (r, c), 1 <= r <= c < m - r: X-, +-centers, obliques. */
static inline int center_orbits(int n)
{
	int m = n - 1, k = 0;
	for (int r = 1; r < m - r; r++)
		k += m - 2 * r;
	return k;
}

/* The wing orbits whose parity turning layers lo..hi qt quarter turns
 * flips (bit k: orbit k): each inner layer off the middle, on odd qt. */
static inline uint64_t turn_par(int m, int lo, int hi, int qt)
{
	uint64_t p = 0;
	for (int l = lo; l <= hi && qt % 2; l++)
		if (l > 0 && l < m && 2 * l != m)
			p ^= 1ull << (l < m - l ? l : m - l);
	return p;
}

#endif
