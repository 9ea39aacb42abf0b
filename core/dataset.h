/* dataset.h — labelled cube states in bulk, for training networks that
 * estimate how far a cube is from solved (cost-to-go functions): which
 * states (uniformly random, random walks of a depth range, or every 2×2
 * state), their columns (stickers, the 364 features, the features packed
 * to bits, the unique index) and their labels (walk depth, two-phase
 * length, proven optimal length, the 2×2's exact distance).
 *
 * Determinism: sample i depends only on (seed, i). Its random numbers are
 * SplitMix64's sequence started at a hash of (seed, i), so any range of
 * samples can be made on its own: threads, shards and resumed downloads
 * produce the same bytes as one pass. Budgets are counted in search
 * nodes, never in time, for the same reason.
 *
 * Walks never turn the same face twice in a row, and a turn of D, L or B
 * is never followed by one of U, R or F respectively (opposite faces
 * commute, so each such pair appears in one order only: U D, never D U).
 * Each next turn is uniform over the turns those rules allow. They do not
 * exclude longer cancellations (R U R' U' six times is the identity), so
 * a walk's depth is an upper bound on its distance, not the distance.
 * Turns, by size: 2×2 the nine turns of R, U, F (the DBL corner stays
 * home, as cubie.h keeps it); 3×3 the 18 face turns; n >= 4 blocks of
 * outer layers (R, Rw, 3Rw, … from each face, up to (n-1)/2 layers; on
 * even n also the half-cube block, from R, U and F only), as
 * scramble_moves turns them. In the half-turn metric (HTM) every turn
 * counts 1; in the quarter-turn metric (QTM) a half turn counts 2 and a
 * walk's depth is the sum.
 *
 * Nothing here allocates or does I/O: the caller owns every buffer and
 * table. Same error contract as cube.h.
 */
#ifndef CUBED_DATASET_H
#define CUBED_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"
#include "solve.h"

/* The one value of a label that is missing: a walk-less state's depth,
 * a two-phase search that found nothing in its budget, an optimal length
 * beyond optimal_max. Every label is a uint8. */
#define DATASET_MISSING 255

#define DATASET_MAX_DEPTH 254   /* longest walk (the labels are uint8) */
#define DATASET_MIN_N 2
#define DATASET_MAX_N 1024
#define DATASET_MAX_OPTIMAL 20  /* deepest optimal_max (God's number) */
#define CUBE2_FEATURES 160      /* 2×2: 24·6 one-hot + 8 + 8 */

/* Columns, then labels, in one list: X(enum, name). The names are the
 * files (<name>.npy), the CLI's --columns / --labels words and the
 * query's column= values. */
#define DATASET_COLUMNS(X)                                                     \
	X(DATASET_STICKERS, "stickers")                                        \
	X(DATASET_FEATURES, "features")                                        \
	X(DATASET_FEATURES_PACKED, "features_packed")                          \
	X(DATASET_INDEX, "index")                                              \
	X(DATASET_DEPTH, "depth")                                              \
	X(DATASET_TWOPHASE, "twophase")                                        \
	X(DATASET_OPTIMAL, "optimal")

enum dataset_column {
#define DATASET_COL_ENUM(e, name) e,
	DATASET_COLUMNS(DATASET_COL_ENUM)
#undef DATASET_COL_ENUM
	DATASET_NCOLUMNS
};
#define DATASET_FIRST_LABEL DATASET_DEPTH

/* "stickers" … "optimal"; NULL past the list. */
const char *dataset_column_name(int col);
/* The column named by the len bytes at s, or -1. */
int dataset_column_find(const char *s, size_t len);

enum dataset_states {
	DATASET_UNIFORM, /* uniformly random reachable states (n 2 and 3) */
	DATASET_WALK,    /* random walks from solved, depth in a range */
	DATASET_ALL,     /* every 2×2 state: sample i has index i */
};

enum dataset_metric { DATASET_HTM, DATASET_QTM };

typedef struct dataset_spec {
	int n;             /* cube size, DATASET_MIN_N..DATASET_MAX_N */
	int metric;        /* enum dataset_metric: walk depth and labels */
	int states;        /* enum dataset_states */
	int depth_min;     /* walks: depth uniform in [depth_min, depth_max] */
	int depth_max;
	uint64_t seed;
	uint64_t count;    /* samples in the whole dataset (ALL: CUBE2_STATES) */
	unsigned columns;  /* bit 1 << enum dataset_column for each wanted */
	uint64_t twophase_nodes; /* budget of a two-phase label: search
				  * nodes and steps of walks down the
				  * pruning tables (solve_limits.label) */
	int optimal_max;   /* 3×3 optimal labels are proven up to this many
			    * moves; longer ones are DATASET_MISSING */
} dataset_spec;

/* What is wrong with a spec: the parameter's name as the CLI and the
 * query spell it ("size", "depth", "labels", …) and a sentence. */
typedef struct dataset_problem {
	const char *param;
	const char *why;
} dataset_problem;

/* CUBE_OK, or CUBE_EINVAL with *p (if not NULL) naming the parameter. The
 * rules: n 2 and 3 any states (ALL: n 2, count CUBE2_STATES); n >= 4 walks
 * only; at least one column; features, features_packed and index for n 2
 * and 3; depth needs walks; twophase needs n 3 in HTM; optimal needs n 2
 * (exact, either metric) or n 3 in HTM with optimal_max 1..20; depths
 * 0 <= min <= max <= DATASET_MAX_DEPTH. Caps on count or size are the
 * caller's (the server's are lower than the CLI's). */
int dataset_check(const dataset_spec *s, dataset_problem *p);

/* Bytes one sample takes in a column (0 if the column does not apply to
 * n), and the column's NumPy shape past the sample axis: *ndim (0..3)
 * dims written to dims, and its element type as a NumPy descr ("|u1" or
 * "<u8"). Shapes: stickers (6, n, n); features (364) for 3×3, (160) for
 * 2×2; features_packed (46) / (20); index (2) of "<u8"; labels (). */
size_t dataset_row_bytes(const dataset_spec *s, int col);
int dataset_shape(const dataset_spec *s, int col, int *ndim,
		  uint64_t dims[3], const char **descr);

/* The tables labels need (any may be NULL when not needed). */
typedef struct dataset_tables {
	const void *twophase; /* twophase_table_init's, for 3×3 twophase */
	const void *optimal;  /* optimal_table_init's, for 3×3 optimal */
	const void *dist2;    /* dataset2_table_init's, for 2×2 optimal */
} dataset_tables;

enum {
	DATASET_NEED_TWOPHASE = 1,
	DATASET_NEED_OPTIMAL = 2,
	DATASET_NEED_DIST2 = 4,
};
/* Which tables a (checked) spec needs: DATASET_NEED_* bits. */
unsigned dataset_needs(const dataset_spec *s);

/* Bytes of scratch dataset_fill needs for this spec (n >= 4: a cube and
 * its facelets; 0 for n 2 and 3). */
size_t dataset_scratch_size(const dataset_spec *s);

/* Make samples first .. first+count-1 of s (first+count <= s->count).
 * out[col] is NULL or, for every column in s->columns, a buffer of
 * count·dataset_row_bytes bytes: sample first+k's row goes at k·row.
 * Columns not in s->columns are ignored. poll (may be NULL) is called
 * inside long label searches and between samples that need one; non-zero
 * stops the fill (SOLVE_ECANCELLED; the rows are then partial). Other
 * errors: CUBE_EINVAL for a bad spec or range, SOLVE_ETABLES for a
 * missing or unsound table. Allocates nothing. */
int dataset_fill(const dataset_spec *s, const dataset_tables *t,
		 uint64_t first, uint64_t count, unsigned char *const out[],
		 void *scratch, size_t scratch_size, solve_poll_fn poll,
		 void *ctx);

/* The 364 features of cubie.h's cubie3_features as bytes 0/1 (the same
 * definition, one byte a feature), and the 2×2's 160: [6·i + c] facelet
 * i (0..23) shows colour c; [144 + p] corner p is at home; [152 + p]
 * corner p is untwisted where it is. */
void dataset_features3(const cubie3 *c, unsigned char out[CUBE3_FEATURES]);
void dataset_features2(const cubie2 *c, unsigned char out[CUBE2_FEATURES]);

/* Pack nbits bytes of 0/1 into (nbits + 7) / 8 bytes as numpy.packbits
 * does by default: bit 7 (the high bit) of byte k is in[8k]. */
void dataset_pack_bits(const unsigned char *in, size_t nbits,
		       unsigned char *out);

/* Sample i's state and walk depth (DATASET_MISSING when not a walk) on
 * its own, for n 2 and 3: c3 is written for n 3, c2 for n 2 (the other
 * may be NULL). The same state dataset_fill writes. */
int dataset_state(const dataset_spec *s, uint64_t i, cubie3 *c3, cubie2 *c2,
		  int *depth);

/* The moves of sample i's walk (n 2 and 3, walks only), up to cap: the
 * count, or CUBE_ESPACE. Applied to the solved cube they give its state;
 * for checking and worked examples. */
int dataset_walk_moves(const dataset_spec *s, uint64_t i, cube_move *out,
		       int cap);

/* ------------------------------------------------------- 2×2 distances */

/* The exact distance of every 2×2 state in both metrics, one byte each
 * by cubie2_rank, found breadth first from solved over the nine turns of
 * R, U, F (six in QTM): 7.4 MB with the move tables, a fraction of a
 * second to fill. Caller-owned like every table. */
size_t dataset2_table_size(void);
int dataset2_table_init(void *buf, size_t size, solve_poll_fn poll,
			void *ctx);
/* Distance of the state of index ix (< CUBE2_STATES) in metric, or
 * CUBE_ERANGE. */
int dataset2_distance(const void *table, int metric, uint64_t ix);
/* States at each distance 0..15 of metric; returns the largest distance.
 * HTM: 1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748,
 * 623800, 2644. QTM: 1, 6, 27, 120, 534, 2256, 8969, 33058, 114149,
 * 360508, 930588, 1350852, 782536, 90280, 276. */
int dataset2_histogram(const void *table, int metric, uint64_t counts[16]);

#endif
