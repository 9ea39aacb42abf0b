/* reduce.h — solving any n×n×n cube, 4 <= n <= REDUCE_MAX_N, by reduction
 * to a 3×3: the centers, then the edges paired, then the 3×3 two-phase
 * solver (solve.h), with the parities of big cubes found and fixed on the
 * way. docs/solvers.md says how each stage works (core/reduce/ holds
 * them, a file each) and what the settings rest on.
 *
 * The stages, in the order they run and the answer lists them:
 *   - oll_parity: a wing orbit whose permutation is odd cannot be solved
 *     by 3-cycles; one inner slice quarter turn of that orbit's layer,
 *     made before the centers (which then absorb it), makes it even. On
 *     even n this is OLL parity (a lone flipped dedge), on odd n the
 *     "last two edges" parity;
 *   - centers: every center orbit to the frame's colours (odd n: the fixed
 *     middle centers; even n: one of the 24 whole-cube orientations with
 *     many center stickers right already), by a staged search with
 *     pruning tables ring by ring, greedy free turns, commutator macros
 *     for the obliques, and pure 3-cycles (commutators such as
 *     [3R 2U 3R', U]) that finish any orbit;
 *   - edges: every wing paired with its edge (the midge on odd n; on even
 *     n a legal 3×3 edge set chosen from the wings' own votes), by a beam
 *     search over slice–turn–slice sequences that keep the centers (up to
 *     12×12) and wing 3-cycles ([2R, U R U']);
 *   - pll_parity (even n): when that edge set's permutation parity differs
 *     from the corners', two dedges are swapped by the six block turns
 *     r2 U2 r2 Uw2 r2 Uw2 (r the inner layers of the R half, Uw the U
 *     half);
 *   - 3x3: the corners and paired edges read as a 3×3 and solved by
 *     twophase_solve with face turns (which keep centers and pairs),
 *     searching on for a shorter answer within a fixed node budget.
 * Small sizes run the stages several times (reduce_variants) and keep the
 * shortest answer. Everything runs in a caller-owned work buffer
 * (reduce_work_size), and nothing allocates. Budgets inside are counted
 * in nodes, not time, so an answer is the same on every machine; the
 * poll callback can stop a solve (a time budget, a cancelled request).
 *
 * Same error contract as cube.h and solve.h.
 */
#ifndef CUBED_REDUCE_H
#define CUBED_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"
#include "solve.h"

#define REDUCE_MIN_N 4
/* Largest size the work buffer and move bound are defined for. */
#define REDUCE_MAX_N 128

enum reduce_stage_id {
	REDUCE_OLL_PARITY, /* "oll_parity": inner slice turns, one per odd
			    * wing orbit */
	REDUCE_CENTERS,    /* "centers" */
	REDUCE_EDGES,      /* "edges": wings paired */
	REDUCE_PLL_PARITY, /* "pll_parity": two dedges swapped (even n) */
	REDUCE_3X3,        /* "3x3": two-phase on the reduced cube */
	REDUCE_STAGES
};

/* Stage k's name as above, NULL past the end. */
const char *reduce_stage_name(int k);

typedef struct reduce_stage {
	const char *name;
	int start, count; /* its moves: out[start .. start + count) */
} reduce_stage;

typedef struct reduce_result {
	int count;                          /* moves written */
	reduce_stage stage[REDUCE_STAGES];  /* in the order they run */
	int oll_parity;   /* wing orbits whose permutation was odd */
	int pll_parity;   /* 1 if two dedges had to be swapped (even n) */
	int center_steps[4]; /* 4×4, 5×5, staged centers: the moves of its
			      * four steps (U/D colours onto U and D, L/R
			      * onto L and R, U and D each onto its face,
			      * the rest), the centers stage's moves in
			      * that order; all 0 when the greedy phases
			      * solved the centers */
	int bar_steps_short; /* inside out: bar steps whose beam stopped
			      * short of pairing every oblique, or whose
			      * model read a broken bar as done; the
			      * 3-cycles finished what they left */
	int bar_twin_macros; /* inside out from 11×11: the bar steps'
			      * macros made with their twins' layers
			      * too, to pair the next step's obliques
			      * (docs/solvers.md, "The twins") */
	int wing_orbits_shared; /* from 9×9: wing orbits whose last 3-cycles
				 * were made together with a lower
				 * orbit's, both needing the same ones
				 * (docs/solvers.md, Edges) */
	cube_orientation orient; /* the frame solved to: the colours that end
				  * on U and F, and the rotation that turns
				  * the solved result to standard */
} reduce_result;

typedef struct reduce_limits {
	solve_poll_fn poll; /* called often (every orbit, every few
			     * thousand candidates; a 4×4's phase searches
			     * every 65,536 nodes, with done the phase's
			     * nodes and total its budget, else 0 and 0);
			     * non-zero stops: with SOLVE_ENOTFOUND during
			     * the first variant, later (n <= 7) with the
			     * best answer so far */
	void *ctx;
	/* the staged center search's tables, built once by
	 * reduce_stage_tables_build and shared by any number of solves
	 * (read only); NULL: each solve builds the ones it needs (about a
	 * quarter of a second of its time) */
	const void *stage_tables;
	/* how hard to look for a short answer: 0 or 1 the default, 2 and
	 * 3 (REDUCE_MAX_EFFORT) spend about two and four times the time
	 * for shorter answers (more variants, wider beams, a longer 3×3
	 * search); the answer stays the same for the same effort */
	int effort;
	/* 4×4 only: the three-phase tables (reduce_four_tables_build),
	 * or NULL for the stage-by-stage reduction. With them a 4×4 runs
	 * 1 frame at the default effort (2, 4 at effort 2, 3) in place of
	 * reduce_variants' 20, so a poll that stops the first gets
	 * SOLVE_ENOTFOUND */
	const void *four_tables;
	/* 5×5 only: the five-phase tables (reduce_five_tables_build), or
	 * NULL for the stage-by-stage reduction. With them a 5×5 runs the
	 * five phases once and the 3×3 stage on its 2 shortest reductions
	 * in place of reduce_variants' 5; at effort 2 and 3 the default's
	 * phases, then larger sets', the 3×3 stage on up to 6 of them */
	const void *five_tables;
	/* optional (NULL: never): non-zero once the caller would rather have
	 * a quicker answer than a shorter one, called with ctx as often as
	 * poll until it says yes; the phase solvers read it, so a slow or
	 * busy machine gets a longer answer where it would have got
	 * SOLVE_ENOTFOUND. A 4×4 gives up the frame at hand: the best frame
	 * so far answers, else the stage-by-stage reduction in the time
	 * left. A 5×5's phases stop and keep the reductions phase 5 has
	 * found (at effort 2 and 3, past the default's pass, that pass's),
	 * or, with none, leave the time left to the stage-by-stage
	 * reduction. At effort 2 and 3 from REDUCE_EASE_MIN_N to
	 * REDUCE_EASE_MAX_N (one pass whose wider searches take about twice
	 * the default's time) it is asked between the stages and between
	 * the centers' steps until a pass has given an answer: once it
	 * says yes that pass goes on at the default effort and no other
	 * starts, so a slow or busy machine gets an answer where the wide
	 * pass alone would outrun the budget. The server says yes in the
	 * last sixth of the time it gives, at least 500 ms of it; for
	 * those sizes and efforts, at half of it. */
	int (*hurry)(void *ctx);
	/* the time the caller gives the solve in milliseconds (the
	 * deadline poll enforces), 0 if none. At effort 3 past 72×72 it
	 * decides whether a third pass solves the centers inside out
	 * (about 7·n² moves where the block commutators give about
	 * 10.5·n², in about n² milliseconds: 128×128 16 s): when it is at
	 * least REDUCE_INSIDE_MS_N2 · n² / 1000 or 0. That pass comes after
	 * the two that give an answer, so a poll that stops it keeps
	 * theirs. */
	unsigned budget_ms;
	/* optional (NULL: poll alone decides): non-zero when the solve must
	 * end at once, answer or not (a cancelled request, a server that
	 * stops); called as often as poll, with ctx. With it the solve is
	 * anytime: poll is not asked until the solve holds an answer (its
	 * first variant's, or the stage-by-stage reduction's where the 4×4
	 * or 5×5 phases give none), so poll only bounds the search for a
	 * shorter one, and a slow or busy machine gets a longer answer,
	 * never SOLVE_ENOTFOUND; only stop ends the solve before it has one
	 * (SOLVE_ENOTFOUND). hurry is still asked: it makes that first
	 * answer come sooner. */
	int (*stop)(void *ctx);
} reduce_limits;

/* Milliseconds per thousand n² a caller's budget must hold for effort
 * 3's inside-out pass past 72×72 (1.5 times what it takes here: 80×80
 * 9.6 s, 96×96 13.8 s, 128×128 24.6 s) */
#define REDUCE_INSIDE_MS_N2 1500

#define REDUCE_MAX_EFFORT 3

/* The sizes whose effort 2 and 3 ask reduce_limits.hurry to ease off */
#define REDUCE_EASE_MIN_N 8
#define REDUCE_EASE_MAX_N 33

/* Bytes of work buffer a size-n solve needs (any alignment malloc
 * gives); 0 if n is outside [REDUCE_MIN_N, REDUCE_MAX_N]. */
size_t reduce_work_size(int n);

/* Moves out[] may need for size n: a bound no answer exceeds (answers
 * are far shorter: about a tenth of it). 0 outside the sizes. */
size_t reduce_max_moves(int n);

/* How many variants a size-n solve runs at the default effort, keeping
 * the shortest (20 for 4×4, 5 for 5×5, 3 for 6×6 and 7×7, else 1; each
 * effort above 1 doubles them, and gives 8×8 to 33×33 two and four);
 * 0 outside the sizes. With
 * more than one, a poll that stops the solve after the first variant
 * still gets an answer; with one, a poll that stops it before its 3×3
 * stage leaves no answer. */
int reduce_variants(int n);

/* Solve c (any legal state, 4 <= n <= REDUCE_MAX_N) with the two-phase
 * tables (solve.h). Writes layer and block turns to out (adjacent
 * parallel layers turned alike merged into one block, moves_merge_blocks;
 * never a whole-cube rotation; cap moves, reduce_max_moves(n) is always
 * enough) and fills *res; returns the count.
 * The moves applied to c give a cube whose every face shows one colour
 * (in the frame res->orient names; on odd n that is c's own centers).
 * Errors: CUBE_ESIZE (n out of range), CUBE_EINVAL (a NULL, or work too
 * small), CUBE_EINVALID (c is not a legal cube: cube_validate says why),
 * SOLVE_ETABLES (bad tables), CUBE_ESPACE (cap too small),
 * SOLVE_ENOTFOUND (poll stopped it), SOLVE_ESTAGE (an internal failure:
 * a stage did not reach its goal; never for a legal cube). */
int reduce_solve(const void *twophase_tables, const cube_t *c,
		 const reduce_limits *lim, void *work, size_t work_size,
		 cube_move *out, size_t cap, reduce_result *res);

/* The staged center search's tables for every size (and the 7×7 bars'
 * macros), to keep and pass as reduce_limits.stage_tables:
 * reduce_stage_tables_size() bytes of tables (any alignment malloc
 * gives; about 30 MB), built using reduce_stage_tables_work_size() bytes
 * of work, in well under a second (docs/solvers.md); lim's
 * poll may stop it (SOLVE_ENOTFOUND). The same tables every solve would
 * build, so answers are the same with them or without. Errors:
 * CUBE_EINVAL (a NULL or a buffer too small). A solve given tables not
 * made here gets SOLVE_ETABLES. */
size_t reduce_stage_tables_size(void);
size_t reduce_stage_tables_work_size(void);
int reduce_stage_tables_build(void *tables, size_t size, void *work,
			      size_t work_size, const reduce_limits *lim);

/* Whether tables of size bytes (read back from a file, say) are exactly
 * what reduce_stage_tables_build makes in this build: magic, format
 * version, byte order, size and checksum, as twophase_table_check does
 * for the two-phase tables. A file a build with other tables wrote
 * fails. CUBE_OK or SOLVE_ETABLES. */
int reduce_stage_tables_check(const void *tables, size_t size);

/* The 4×4 three-phase tables (docs/solvers.md, "4×4 in three phases"),
 * to keep and pass as reduce_limits.four_tables: reduce_four_tables_size()
 * bytes (about 127 MB), built using reduce_four_tables_work_size() bytes
 * of work in about a minute; lim's poll may stop it (SOLVE_ENOTFOUND)
 * and is told the pairing table's levels done. With them a 4×4 solve
 * reduces in about 25 moves where the stage-by-stage path takes 35.
 * Errors: CUBE_EINVAL (a NULL or a buffer too small), SOLVE_ESTAGE. */
#define REDUCE_HAVE_FOUR 1
size_t reduce_four_tables_size(void);
size_t reduce_four_tables_work_size(void);
int reduce_four_tables_build(void *tables, size_t size, void *work,
			     size_t work_size, const reduce_limits *lim);
/* Size, header and checksum, as reduce_stage_tables_check. */
int reduce_four_tables_check(const void *tables, size_t size);

/* The 5×5 five-phase tables (docs/solvers.md, "5×5 in five phases"), to
 * keep and pass as reduce_limits.five_tables: reduce_five_tables_size()
 * bytes (about 440 MB; any alignment malloc gives), built using
 * reduce_five_tables_work_size() bytes of work in about 35 s; lim's
 * poll may stop it (SOLVE_ENOTFOUND). With them a 5×5 solve reduces in
 * about 55 moves where the stage-by-stage path takes 70. Errors:
 * CUBE_EINVAL (a NULL or a buffer too small), SOLVE_ESTAGE. */
#define REDUCE_HAVE_FIVE 1
size_t reduce_five_tables_size(void);
size_t reduce_five_tables_work_size(void);
int reduce_five_tables_build(void *tables, size_t size, void *work,
			     size_t work_size, const reduce_limits *lim);
/* Size, header and checksum, as reduce_stage_tables_check. */
int reduce_five_tables_check(const void *tables, size_t size);

#endif
