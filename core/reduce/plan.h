/* plan.h — the reduction's plan: for a size n and an effort, which method
 * each stage takes and how widely it searches. reduce__plan (plan.c) fills
 * one struct reduce_plan from (n, effort), and plan.c says why each number
 * is what it is; the driver (reduce.c) keeps the plan of the pass it runs
 * in its context (x->plan), and the stages read their choices from it
 * rather than deciding by size or effort themselves. Not part of the API.
 */
#ifndef CUBED_REDUCE_PLAN_H
#define CUBED_REDUCE_PLAN_H

#include "reduce.h"

/* ---------------------------------------- bounds the plan never passes */

/* The default effort solves the centers inside out up to STAGED_MAX_N,
 * effort 2 and 3 up to STAGED_MORE_MAX_N (plan.c says why). */
#define STAGED_MAX_N 33
#define STAGED_MORE_MAX_N 72
/* Effort 3's inside-out pass past STAGED_MORE_MAX_N (reduce_limits
 * .budget_ms) runs as this effort: every size inside out, as effort 2
 * up to STAGED_MORE_MAX_N. The work buffer has room for what it runs. */
#define EFFORT_INSIDE (REDUCE_MAX_EFFORT + 1)
/* The free-turn center phase runs up to FREE_MAX_N, the edge beam up to
 * EB_MAX_N: the turns' place maps are sized for them (internal.h). */
#define FREE_MAX_N 12
#define EB_MAX_N 33
/* The widest the plan makes the edge beam (states a level) and the bars'
 * beam (states a step): their arrays hold that many. */
#define PLAN_EB_WIDTH_MAX 44
#define PLAN_BAR_BEAM_MAX 64
/* A staged step's widest beam and largest IDA* budget in nodes: a step
 * that the plan's narrower search leaves unsolved tries these
 * (centers_staged.c). */
#define ST_BEAM 1024
#define ST_BUDGET 400000L
/* Endings of the edge beam tried with the 3×3 after them (reduce.c,
 * best_ending): up to REDUCE_ENDS, but REDUCE_ENDS_MANY where more than
 * three variants run. */
#define REDUCE_ENDS 16
#define REDUCE_ENDS_MANY 4
/* The two-phase search's budget in polls (one per 4096 nodes) for each
 * unit of effort (reduced3x3.c). */
#define TWOPHASE_POLLS 25

/* --------------------------------------------------------------- the plan */

struct reduce_plan {
	int n, effort; /* what it was made for (effort 0 reads as 1) */

	/* the solve's passes (reduce.c) */
	int variants;      /* variants run, the shortest kept */
	int default_first; /* a first pass at the default effort, its
			    * answer kept if the next pass is cut short */
	int inside_pass;   /* one more pass inside out when the caller's
			    * budget holds it (reduce_limits.budget_ms) */
	int four_frames;   /* 4×4 by its three phases: frames tried */
	int eases;         /* reduce_limits.hurry may turn a pass to the
			    * default effort (reduce__ease) */
	int ends;          /* the edge beam's endings tried (best_ending),
			    * and the PLL parity's versions (best_pll) */
	int polls;         /* the 3×3's budget when it is searched on alone
			    * (TWOPHASE_POLLS per unit of effort) */
	int free3;         /* the 3×3 may try the free turns (reduced3x3.c)
			    * where few variants run */

	/* the centers (centers.c) */
	int staged;    /* the staged search, ring by ring
			* (centers_staged.c) */
	int inside;    /* ... from the innermost ring out, each ring's
			* edges of centers first made bars (centers_bars.c) */
	int free_phase; /* the free-turn phase (centers_greedy.c); the
			 * turns' place maps are built either way */
	int free_look;  /* ... judging its best first steps by the step
			 * after them */
	int free_comms; /* ... with commutators A B A' B' */
	int free_width; /* ... its block turns' widest */
	int edge_rate;  /* the centers' last step rates its answers by the
			 * edges they leave */
	int obliques;   /* the oblique macros (centers_obliques.c) */
	int om_beam;    /* ... as a beam (else one state, one candidate) */
	int blocks;     /* the slice phase and the block commutators
			 * (centers_blocks.c) */
	int blk_rows;   /* ... a block's most rows */
	const int *blk_thr;      /* ... its sweeps' thresholds, 0-ended */
	const int *blk_thr_most; /* ... those of effort 3's second pass
				  * (x->blk_most), or NULL */

	/* the staged search (centers_staged.c) */
	long st_budget; /* IDA*'s nodes before a step hands over to the
			 * beam */
	long st_pick;   /* nodes past its first answer looking for one
			 * that leaves the next step less to do */
	long st_beam;   /* the beam's width */

	/* the bars (centers_bars.c) */
	int bar_beam;     /* states a step */
	int bar_beam_end; /* ... once BAR_END obliques are paired */
	int bar_cap;      /* macros a scan weighs, at most (0: all) */
	int bar_twins;    /* a bar step steers the next one's obliques */

	/* trials: answers of one step tried against the step after it */
	int ctrials;       /* the centers' last step against the edge beam */
	int btrials;       /* an inner ring's last step against the bar
			    * step after it */
	int bartrials;     /* a bar step against the ring's next bar step */
	int bartrial_ring; /* ... in this ring only (0: every ring) */

	/* the edges */
	int edge_beam;   /* the edge beam (edges_beam.c) */
	int eb_width;    /* ... states a level */
	int eb_width_first; /* ... in its first round */
	int edge_halves; /* the half-edge pairing moves after it
			  * (edges_halves.c) */
	int wing_comms;  /* the multi-orbit wing commutators before the
			  * 3-cycles (edges_wings.c) */
	int edges_alt;   /* even n: the edge set that needs no PLL parity
			  * paired on trial (reduce.c, pair_or_alt) */
};

/* The plan of a size-n solve at effort (0 to EFFORT_INSIDE; 0 is 1). */
struct reduce_plan reduce__plan(int n, int effort);

/* Variant v of a solve (reduce.c runs several on small n, the shortest
 * kept): the free phases' threshold in stickers per move (num / den), the
 * frame's rank on even n (0 the best) and the whole-cube rotation (0 to
 * 23) the cube is solved turned by. */
struct reduce_variant {
	int c_num, c_den, frame, rot;
};
struct reduce_variant reduce__variant(int v);

#endif
