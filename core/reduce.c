/* reduce.c — the reduction solver for n×n×n cubes, 4 <= n <= REDUCE_MAX_N
 * (reduce.h gives the stages).
 *
 * Orbits. A center sticker at (r, c) of a face can only ever reach the
 * places (r, c), (c, m-r), (m-r, m-c), (m-c, r) of the six faces (m =
 * n-1): 24 places, an orbit. A wing (an edge piece off the middle) at
 * index k along an edge reaches index k and m-k of the twelve edges: 24
 * places too. Every orbit of one kind behaves alike, whatever n: which
 * layers move which of its places depends only on which of its
 * coordinates are equal or complementary. So each kind of orbit is worked
 * out once, on a small model cube, with symbolic layers: the X-centers
 * (r = c) on a 4×4, the +-centers (c the middle) on a 5×5, the obliques
 * on a 7×7, the wings on a 4×4. Model layer L stands for one of 0, p, q,
 * m-q, m-p, m, with p and q the orbit's own coordinates.
 *
 * 3-cycles. A commutator [X, Y] = X Y X' Y' whose two arguments move
 * exactly one piece in common is a 3-cycle of pieces and touches nothing
 * else. Centers: X = iR jU iR' (a ring of slice j with one sticker lifted
 * onto U and one onto D) and Y = a U face turn: their supports share one
 * U center. Wings: X = the slice iR and Y = U R U' (the R layer with its
 * UR edge swung onto UB): they share one wing. Every such commutator on
 * the model (all axes, layers, amounts, both orders) that cycles three
 * places of the orbit becomes a "base"; a breadth-first search over the
 * 24·24·24 ordered triples then finds, for every triple, the shortest
 * set-up S (any moves: S C S' restores whatever S disturbs) that carries
 * it onto a base's triple. An orbit is solved greedily: each step applies
 * the 3-cycle with the most stickers fixed per move, until every place
 * holds its target. Identical center colours make any arrangement
 * reachable this way; wings are all different, so a wing orbit must be an
 * even permutation of its target, which the parity stage ensures.
 *
 * Staged centers. Up to STAGED_MAX_N a search with pruning tables
 * solves the X-centers and +-centers in four steps (U/D colours onto U
 * and D, L/R onto L and R, then each onto its own face), ring by ring,
 * in about half the moves of what follows; the section before
 * stage_centers says how. The obliques (past 5×5), and any ring a search
 * gives up on, are the greedy phases' below.
 *
 * Free moves first. While centers are far from solved, plain turns fix
 * them far more cheaply than 3-cycles: for n <= FREE_MAX_N the centers
 * stage starts greedily, on an array of the center places with every
 * layer or block turn as a list of place pairs, taking whichever
 * sequence (one turn, two turns, a conjugate A B A', a commutator
 * A B A' B') puts the most center stickers on their face per move, while
 * that beats 1/3 of a sticker per move (on 4×4 each of the six best
 * first steps is judged together with the best step after it).
 * Edges may go anywhere meanwhile (they are paired later), but each wing
 * orbit's slices get an even number of quarter turns in all (one more at
 * the end where not), so the wing parity the oll_parity stage set holds.
 * The 3-cycles then finish each orbit.
 *
 * Edge beam. With the centers solved, S X S' keeps them for S any
 * inner slice or block of them (the middle slice of odd n too: it comes
 * back, so the frame holds) and X any sequence that turns each face S
 * displaced a whole number of turns: here X is made of face turns of
 * S's axis (those faces' centers S leaves alone) and conjugates A B A'
 * (A a face across S's axis, B one of S's axis). For n <= EB_MAX_N the
 * edges stage searches these by a beam over cost levels: level c holds
 * the EB_W states (EB_W7 on 7×7) with the most neighbouring pieces
 * along the edges paired in c moves (an open slice's closing move
 * counted); from a state, a face turn (a set-up), a slice opened with
 * its first X, or one more X while the slice stays open. The state with
 * the fewest moves plus EB_FINISH per pair still missing wins: in
 * practice the first with every edge paired (on 5×5 in about 41 moves,
 * where the greedy slice–turn–slice before it took 54), the wing
 * 3-cycles there to finish any edge it left. A macro carries most pairs
 * whole to another edge, so a child is judged by the pairs it parts (a bit mask) and puts together
 * (a few place pairs), never made unless it enters its level. S comes
 * and goes, so no wing orbit's parity changes.
 *
 * Variants. The stages make different choices for different center
 * thresholds, frames (even n) and for the cube turned as a whole (the
 * moves found for the turned cube are turned back: ρ m ρ⁻¹ is a turn of
 * the same layers about another axis); the answer's length varies by 10%
 * and more between them. Up to VARIANT_MAX_N several variants run in
 * turn (the cube copied afresh for each, the 3×3 searched briefly) and
 * the shortest is kept, its 3×3 then searched on: 20 variants for 4×4,
 * 5 for 5×5, 3 for 6×6 and 7×7 (measured on 20 4×4 states: 6 variants
 * 78.2 moves on average, 12 72.6, 16 72.0, 20 70.8; the winners are
 * spread evenly over the variants, a best of N draws; 5×5 with the
 * staged centers, 12 states: 6 variants 105.6, 8 104.9, 16 103.2, each
 * variant about 0.1 s there, for the time; with the edge beam, 20
 * states: 4 variants 94.6, 5 94.0, 6 93.5, each about 0.12 s, and 5
 * keep the slowest solve under 1.6 s of CPU). The caller's poll
 * stopping a later variant keeps the answer in hand.
 *
 * Wing parity. An outer face quarter turn moves two 4-cycles of each wing
 * orbit (even); an inner slice quarter turn of layer k or m-k one (odd);
 * 3-cycles are even. Pairing a wing orbit with a legal 3×3 edge set (the
 * midges on odd n) is an odd permutation exactly when the orbit is odd
 * against the solved cube (legal edge sets differ by face turns, which
 * carry wings and targets alike, or by an even number of flips, each one
 * swap of two targets). So the parity stage looks at each orbit against
 * the solved cube, once, and turns slice k where it is odd.
 *
 * Pure C11, no allocation, no globals but const tables.
 */
#include "reduce.h"

#include <string.h>

#include "alg.h"
#include "cube_internal.h"
#include "cubie_internal.h"

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

static const char *const stage_names[REDUCE_STAGES] = {
	"oll_parity", "centers", "edges", "pll_parity", "3x3",
};

const char *reduce_stage_name(int k)
{
	return k >= 0 && k < REDUCE_STAGES ? stage_names[k] : NULL;
}

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
	uint8_t perm[MAX_GEN][NPOS]; /* place p goes to perm[g][p] */
	uint8_t inv[MAX_GEN];
	int nbase;
	struct smove base[MAX_BASE][BASE_LEN];
	uint8_t dist[NTRI];     /* set-up length, UNSEEN */
	uint8_t how[NTRI];      /* dist > 0: the set-up's first generator */
	uint16_t base_of[NTRI]; /* dist == 0: the base */
	int max_dist;
};

/* The free-move center phase (n <= FREE_MAX_N): the center places of
 * the cube as one array, every layer turn as its list of (to, from)
 * pairs of center places. */
#define FREE_MAX_N 12
#define FREE_S (FREE_MAX_N - 2)
#define FREE_NC (6 * FREE_S * FREE_S)
/* Turns: single layers and blocks up to FREE_MAX_W layers wide; blocks
 * and commutators [A, B] searched up to FREE_COMM_MAX_N (past it they
 * cost more time than they save moves). */
#define FREE_MAX_W 3
#define FREE_COMM_MAX_N 9
#define FREE_GEN (9 * FREE_MAX_W * FREE_MAX_N)
#define FREE_PAIRS (FREE_GEN * (FREE_S * FREE_S + 4 * FREE_S * FREE_MAX_W))
/* Labels for center places when finding the pairs: 6 .. 255. */
#define FREE_BATCH 250

#define FREE_NE (24 * FREE_S)
#define FREE_EPAIRS (FREE_GEN * (8 * FREE_S + 8 * FREE_MAX_W))

struct fgen {
	uint8_t axis, qt, inv_off;
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
	uint16_t slot[12][FREE_MAX_N][2];
	/* each turn as a map on the edge places: the sticker that lands on
	 * p comes from esrc[g][p]; and the edges (bits) it touches */
	uint16_t esrc[FREE_GEN][FREE_NE];
	uint16_t eslots[FREE_GEN];
	uint8_t cur[FREE_NC], tgt[FREE_NC], ecur[FREE_NE];
	uint8_t tmp[FREE_NC];
};

/* The edge beam (n <= EB_MAX_N; before beam_edges, how it works):
 * its macros' place maps, and each cost level's best states. */
#define EB_MAX_N 8
#define EB_BEAM(n) ((n) <= EB_MAX_N)
#define EB_NE (24 * (EB_MAX_N - 2))
#define EB_ADJ (12 * (EB_MAX_N - 3))
_Static_assert(EB_ADJ <= 64 && EB_NE <= 256, "the beam's masks and maps");
/* S: 3 axes, up to 12 layer sets (7×7), 3 amounts; A: none or 8; B: 6 */
#define EB_CORES (3 * 12 * 3 * 9 * 6)
#define EB_LEVELS 128 /* the most moves a path may take */
/* Neighbours macros put together, all told: S moves 4 pieces a layer,
 * each with at most two neighbours, and X only carries whole edges. */
#define EB_JOINS (EB_CORES * 8 * FREE_MAX_W)
/* Measured on 20 5×5 states, edges stage: 8 states a level 42.7
 * moves, 16 40.8, 32 41.0, 64 40.4 (for twice the time); with the
 * middle slice as S 41.9 where without it 46.2 (12 a level). */
#ifndef EB_W
#define EB_W 16
#endif
/* On 7×7 (12 states, edges stage): 16 states a level 80.4 moves, 32
 * 77.2, 48 76.9, 64 77.4; the time 0.78 s -> 0.95 s (32). On 6×6 32 gave
 * no fewer. */
#ifndef EB_W7
#define EB_W7 32
#endif
#define EB_WMAX (EB_W > EB_W7 ? EB_W : EB_W7)
#define EB_WIDTH(n) ((n) == 7 ? EB_W7 : EB_W)
#ifndef EB_FINISH
#define EB_FINISH 5
#endif

/* A macro S X S' (its place map and the neighbours it puts together
 * kept apart, in struct ebeam, so that a search step reads little). */
struct ecore {
	/* the neighbours along an edge it parts: bit 12·(j-1) + e for
	 * indices j, j+1 on edge e */
	uint64_t brk;
	uint32_t join;   /* the first of those it puts together in ebeam */
	uint16_t S;      /* the slice */
	uint8_t xlen;    /* X: 1 (B) or 3 (A B A') moves */
	uint8_t njoin;
	uint16_t x[3];
};

/* How a state was reached: a face turn, a slice opened with its first
 * X, one more X under the open slice. */
enum { EB_FACE, EB_NEW, EB_MORE };

struct enode {
	uint8_t v[EB_NE]; /* the edges as they are once the slice closes */
	uint8_t pairs;
	uint8_t kind;
	uint8_t plev;     /* the parent's level */
	uint16_t open;    /* the open slice, or EB_CLOSED */
	uint16_t move;    /* the face turn, or the macro */
	uint16_t parent;  /* the parent's index in its level */
	uint32_t hash;
};
#define EB_CLOSED 0xffff

struct ebeam {
	int ncore, njoin;
	struct ecore core[EB_CORES];
	/* each macro's map: the sticker that lands on p comes from
	 * src[k][p] */
	uint8_t src[EB_CORES][EB_NE];
	/* the neighbours macros put together: the places their stickers
	 * come from (one's first, the other's first, one's second, the
	 * other's second) */
	uint8_t join[EB_JOINS][4];
	int k[EB_LEVELS];
	int w; /* states a level (EB_WIDTH) */
	struct enode lev[EB_LEVELS][EB_WMAX];
};

/* The oblique macros (om_pair; before it, how they work): commutators
 * made on a 7×7 model whose layers 0, 1, 2, 4, 5, 6 stand for 0, p, q,
 * m-q, m-p, m, each as its turns and the places of the model's two
 * oblique orbits it moves. */
#ifndef OM_MIN_N
#define OM_MIN_N 6
#endif
#ifndef OM_MAX_N
#define OM_MAX_N 33
#endif
#ifndef OM_BUDGET
#define OM_BUDGET 40000000L
#endif
/* up to OM_LOOK_MAX_N the greedy is a beam: OM_BW states per step, each
 * grown by its OM_LOOK best candidates, ranked by moves made plus OM_BR
 * moves per sticker still wrong (past it one state, one candidate) */
#ifndef OM_LOOK_MAX_N
#define OM_LOOK_MAX_N 7
#endif
#ifndef OM_LOOK
#define OM_LOOK 8
#endif
#ifndef OM_BW
#define OM_BW 8
#endif
#ifndef OM_BR
#define OM_BR 3
#endif
#define OM_DEPTH 48
/* 3-cycles take about 4 moves per sticker */
#define OM_FIN 4
#define OM_ON(n) ((n) >= OM_MIN_N && (n) <= OM_MAX_N)
#define OM_NPOS 48
#define OM_NC 150 /* the model's center places */
#define OM_LEN 12
#define OM_MOV 6
#define OM_MAX 16384
#define OM_HASH (1 << 15)
/* the macros: 3-cycles (8 moves), two 3-cycles, one in each orbit, or
 * two 2-cycles (10), and the same from two slices in the set-up (12) */
/* a map of the places: the sticker at u goes to v, as u · OM_NPOS + v
 * in the order of u (om_canon), one form per map */
struct ommap {
	uint16_t pv[OM_MOV];
	uint8_t nm;
};

struct omac {
	struct ommap m; /* first: om_find reads it */
	uint8_t len;
	uint8_t mv[OM_LEN]; /* axis | model layer << 2 | qt << 5 */
};

struct omlib {
	int built, count;
	uint8_t gmv[MAX_GEN], ginv[MAX_GEN];
	uint8_t gperm[MAX_GEN][OM_NPOS]; /* place p goes to gperm[g][p] */
	uint8_t place[OM_NPOS][3];       /* model (face, row, col) */
	uint8_t cperm[MAX_GEN][OM_NC];   /* the same on every center */
	int32_t slot[OM_HASH];           /* building: the macros seen */
	_Alignas(64) unsigned char sim[512]; /* the model cube */
	struct omac mac[OM_MAX];
};

/* The macros conjugated by at most one turn, one of each map of the
 * places (the cheapest), with the places they move as they are before
 * the set-up: what a greedy step weighs. */
#define OM_CMAX (1 << 18)
#define OM_CHASH (1 << 19)
struct omcand {
	struct ommap m; /* first: om_find reads it */
	uint8_t cost;   /* less what the set-up merges */
	uint8_t first;  /* its first turn */
	int8_t s;            /* the set-up turn, or -1 */
	uint16_t k;          /* the macro */
};

/* The last run of turns of one axis made (model layers: net quarter
 * turns), for what the next macro's first turn merges with. */
struct omtail {
	int axis;
	uint8_t q[7];
};

/* A state of the beam: the stickers, the turns before it, and how it
 * was reached (the candidate from state parent of the step before). */
struct omnode {
	uint8_t cur[OM_NPOS];
	struct omtail tail;
	int16_t cost, wrong, parent;
	int32_t cand;
};

struct omcands {
	int count;
	int32_t slot[OM_CHASH];
	struct omcand c[OM_CMAX];
	int nlev[OM_DEPTH];
	struct omnode lev[OM_DEPTH][OM_BW];
	struct omnode kids[OM_BW * OM_LOOK];
};

/* The bars (bar_pair; before it, how they work): on 7×7, each
 * +-center of ring 1 with the two obliques beside it, paired into a
 * 1×3 bar while ring 2 stays solved. Turns as in the oblique macros:
 * axis | layer << 2 | qt << 5. */
#ifndef BAR_ON
#define BAR_ON(n) ((n) == 7)
#endif
#ifndef BAR_BW
#define BAR_BW 16
#endif
/* from BAR_END obliques paired on, BAR_BWE states a step */
#ifndef BAR_BWE
#define BAR_BWE 64
#endif
#ifndef BAR_END
#define BAR_END 20
#endif
#ifndef EDGE_RATE
#define EDGE_RATE 1
#endif
#define EDGE_RATE_ON(n) (EDGE_RATE && ((n) <= 5 || BAR_ON(n)))
#ifndef BAR_RATE
#define BAR_RATE 1
#endif
#ifndef BAR_LOOK
#define BAR_LOOK 8
#endif
#ifndef BAR_BR
#define BAR_BR 3
#endif
#define BAR_NC 150   /* the center places, as om_center numbers them */
/* states scanned at once: at least BAR_BWE */
#ifndef BAR_LANES
#define BAR_LANES 64
#endif
#define BAR_NB 24    /* bars */
#define BAR_OBL 48   /* obliques, two to a bar */
#define BAR_DEPTH (BAR_OBL + 1)
#define BAR_LEN 10
#define BAR_MOV 16 /* bars a macro may change */
#ifndef BAR_MAX
#define BAR_MAX 98304
#endif
#define BAR_HASH (1 << 18)

/* A macro: its turns, and the bars it changes, in order, each as the
 * places its three stickers come from (bar b's place j gets the sticker
 * at src[j]); ring 1's corner centers are no bar's and left out. */
struct barent {
	uint8_t b, src[3];
};

struct barcand {
	uint8_t nb, len;
	uint8_t ub; /* the most it may gain: 2 per bar it breaks up */
	uint8_t ns;             /* bars it breaks up: e[0..ns) made of parts
				 * of others, whose bars are brk[0..ns) */
	uint8_t brk[BAR_MOV];
	uint8_t mv[BAR_LEN];
	struct barent e[BAR_MOV];
};

struct barnode {
	uint8_t col[BAR_NC];
	struct omtail tail; /* the turns before it, for what merges */
	int16_t cost, paired, parent;
	int32_t cand;
};

/* What a scan reads of macro c[i], packed (the macros break up at most
 * 6 bars: 3, 4 or 6 measured): its bound, length, first turn, the bars
 * it breaks up as in struct barcand. */
#define BAR_HOTN 6
struct barhot {
	uint8_t ub, len, mv0, ns;
	uint8_t src[BAR_HOTN][3];
	uint8_t brk[BAR_HOTN];
};

/* The macros, made once (in the shared tables, or per solve). */
struct barmacs {
	int count;
	struct barhot hot[BAR_MAX];
	uint8_t perm[3][7][4][BAR_NC]; /* place t goes to perm[..][t] */
	int8_t barof[BAR_NC];          /* the bar place t is in, or -1 */
	uint8_t bar[BAR_NB][3];        /* oblique, +-center, oblique */
	struct barcand c[BAR_MAX];
};

struct barlib {
	int built;
	const struct barmacs *B; /* own, or the shared tables' */
	struct barmacs own;
	int32_t slot[BAR_HASH];  /* building: the maps seen */
	/* a step's scan, its states side by side (lanes): their stickers
	 * and pairs per bar, and per lane the best macros so far */
	_Alignas(64) uint8_t colT[BAR_NC][BAR_LANES];
	_Alignas(64) uint8_t opT[BAR_NB][BAR_LANES];
	_Alignas(64) int16_t tgw[BAR_LANES], tcw[BAR_LANES];
	int nt[BAR_LANES];
	int top[BAR_LANES][BAR_LOOK], tg[BAR_LANES][BAR_LOOK],
	    tc[BAR_LANES][BAR_LOOK];
	int nlev[BAR_DEPTH];
	struct barnode lev[BAR_DEPTH][BAR_BWE];
	struct barnode kids[BAR_BWE * BAR_LOOK];
};

struct rwork {
	struct model model[M_COUNT];
	struct omlib om;
	uint16_t queue[NTRI];
	struct freec fc;
	_Alignas(64) unsigned char sim[1024]; /* a model cube (n <= 7), or
					       * the cube for the free
					       * phase (n <= FREE_MAX_N) */
};

/* The staged center search (STAGED(n); below, before
 * stage_centers, says how it works). */
/* Up to 33×33 (the sizes promised) every ring is staged: each ring
 * costs about 0.1 s past 5×5 (33×33, 15 rings: 1.1 s, against 0.06 s
 * for the 3-cycles alone), for 9% to 17% fewer moves on odd n and 1% to
 * 17% on even (6×6 and 8×8 the most). */
#define STAGED_MAX_N 33
#define STAGED(n) ((n) >= 4 && (n) <= STAGED_MAX_N)
#define ST_ORB 2
#define ST_NA 735471
#define ST_NB (2 * 65536)
#define ST_NP (70 * 70)
#define ST_MOVES (3 * 7 * 3)
/* The searches turn the orbits of up to two rings at once (st_group):
 * up to four orbits, and per axis up to 12 layer sets */
#define ST_JORB 4
#define ST_JMOVES (3 * 12 * 3)
#define ST_DEPTH 24
#define ST_UNSEEN 255
/* nodes one IDA* search may visit before it hands over to the beam
 * (deterministic: counted, not timed), and how many more it visits past
 * its first answer looking for one that leaves the next step less to do */
#ifndef ST_BUDGET
#define ST_BUDGET 400000L
#endif
#ifndef ST_PICK
#define ST_PICK 20000L
#endif
/* beam width, the deepest a beam may go, and the hash set's slots */
#ifndef ST_BEAM
#define ST_BEAM 1024
#endif
#define ST_BEAM_DEPTH 30
#define ST_HASH (1 << 17)
/* the steps searched by beam (bits): A only. B by beam got stuck on
 * plateaus of its tables (wing parity among them); by IDA* it takes a
 * few thousand to a hundred thousand nodes */
#define ST_BEAM_STEPS (1 << ST_A)
#ifndef ST_JBEAM_STEPS
#define ST_JBEAM_STEPS (1 << ST_A | 1 << ST_C2)
#endif
#ifndef ST_JBEAM_W
#define ST_JBEAM_W 256
#endif
/* up to this size rings 1 and 2 are staged together (st_group) */
#ifndef ST_JOINT_MAX_N
#define ST_JOINT_MAX_N 7
#endif

/* The steps; a mask set: v[0] U/D colours, v[1] L/R, v[2] U, L, F. */
enum { ST_A, ST_B, ST_C1, ST_C2, ST_STEPS };

struct stmove {
	uint8_t axis, qt, lo, hi, ls; /* ls: the layer set's index on its
				       * axis, for the search's order */
	uint8_t cls;                  /* steps it may serve (bits) */
	uint32_t wing;                /* wing orbits whose parity it flips
				       * (the model's; in a group's moves,
				       * bit j: the group's ring j) */
};

/* The search's state: each orbit's masks (v[0] U/D colours, v[1] L/R,
 * v[2] U, L, F) and the wing orbits' parities (made so far in the
 * centers stage). */
struct ststate {
	uint32_t v[3][ST_JORB];
	unsigned par; /* bit j: the wing parity of the group's ring j */
};

struct stnode {
	uint32_t v[3][ST_JORB];
	uint8_t par, move;
	uint16_t parent;
};

/* The pruning tables of one kind of size (st_kind: 4×4, 5×5, even past
 * them, odd past them), and all four as a caller may keep them across
 * calls (reduce_stage_tables_build). */
struct st_tables {
	uint8_t tA[ST_ORB][ST_NA];
	uint8_t tB[ST_ORB][ST_NB];
	uint8_t tJ0[ST_NP];         /* C1: U-D pair, both orbits */
	uint8_t tC2[ST_ORB][ST_NP]; /* C2: an orbit's L-R and F-B pairs */
	uint8_t tJ2[2][ST_NP];      /* C2: L-R, F-B pair, both orbits */
};

#define ST_KINDS 4
#define ST_MAGIC 0x3273656c62617473ull /* "stables2" */

struct st_shared {
	uint64_t magic, size;
	struct st_tables kind[ST_KINDS];
	struct barmacs bars;
};

static int st_kind(int n)
{
	return n == 4 ? 0 : n == 5 || BAR_ON(n) ? 1 : n % 2 ? 3 : 2;
}

struct stagew {
	int built, n, norb, nmov;
	const struct st_tables *t; /* own, or the caller's */
	int nm; /* the model's size (n up to 5: n itself) */
	struct stmove mv[ST_MOVES]; /* the model's turns (for the tables) */
	uint32_t pm[ST_ORB][ST_MOVES][3][256];
	/* the group searched now (st_group): its rings, their orbits
	 * (nring · norb, ring j's from j · norb), places on the cube and the
	 * turns on the cube's layers with their maps of each orbit's masks */
	int nring, rk[2], nto, cnmov;
	uint16_t place[ST_JORB][NPOS][3];
	struct stmove cmv[ST_JMOVES];
	uint32_t cpm[ST_JORB][ST_JMOVES][3][256];
	uint32_t rank[3][256][9];
	uint8_t pop[256], r70[256];
	uint8_t u70[70];
	struct st_tables own; /* built here when the caller has none */
	/* the beam search: each level's states, and a hash set of the
	 * states kept */
	struct stnode beam[ST_BEAM_DEPTH + 1][ST_BEAM];
	uint32_t cand[ST_BEAM * ST_JMOVES]; /* a level's children: score,
					     * parent, turn */
	uint64_t seen[ST_HASH];
};

/* Bytes from the start of the work buffer to the cube and the facelets. */
static size_t cube_offset(void)
{
	return (sizeof(struct rwork) + 63) & ~(size_t)63;
}

/* Several variants of the greedy phases are run for n <= this many
 * layers, and the shortest answer kept (variants(n) says how many). */
#define VARIANT_MAX_N 7
#define VARIANTS 24

static int variants(int n)
{
	return n == 4 ? 20 : n == 5 ? 5 : n <= VARIANT_MAX_N ? 3 : 1;
}

/* Bytes from the start of the work buffer to the other variants' move
 * buffer (after the cube and the facelets). */
static size_t alt_offset(int n)
{
	return cube_offset() + ((cube_sizeof(n) + 63) & ~(size_t)63) +
	       ((6u * (size_t)n * (size_t)n + 63) & ~(size_t)63);
}

/* Bytes from the start of the work buffer to the staged search's tables
 * (STAGED(n)), after the other variants' moves. */
static size_t stage_offset(int n)
{
	size_t alt = variants(n) > 1 ? reduce_max_moves(n) * sizeof(cube_move)
				     : 0;
	return (alt_offset(n) + alt + 63) & ~(size_t)63;
}

static size_t stage_size(int n)
{
	return STAGED(n) ? ((sizeof(struct stagew) + 63) & ~(size_t)63) + 64
			 : 0;
}

/* The edge beam's macros and levels (EB_BEAM(n)), after the staged
 * search's tables. */
static size_t beam_offset(int n)
{
	return stage_offset(n) + stage_size(n);
}

static size_t beam_size(int n)
{
	return EB_BEAM(n) ? (sizeof(struct ebeam) + 63) & ~(size_t)63 : 0;
}

/* The oblique macros' candidates (OM_ON(n)), after the beam's. */
static size_t om_offset(int n)
{
	return beam_offset(n) + beam_size(n);
}

static size_t om_size(int n)
{
	return OM_ON(n) ? (sizeof(struct omcands) + 63) & ~(size_t)63 : 0;
}

/* The bars' macros and beam (BAR_ON(n)), after the oblique macros'. */
static size_t bar_offset(int n)
{
	return om_offset(n) + om_size(n);
}

static size_t bar_size(int n)
{
	return BAR_ON(n) ? (sizeof(struct barlib) + 63) & ~(size_t)63 : 0;
}

size_t reduce_work_size(int n)
{
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return 0;
	return bar_offset(n) + bar_size(n) + 64;
}

static int center_orbits(int n)
{
	int m = n - 1, k = 0;
	for (int r = 1; r < m - r; r++)
		k += m - 2 * r;
	return k;
}

static int wing_orbits(int n)
{
	return (n - 2) / 2;
}

int reduce_variants(int n)
{
	return n < REDUCE_MIN_N || n > REDUCE_MAX_N ? 0 : variants(n);
}

/* Each greedy 3-cycle step fixes at least one of 24 places; each step
 * of the free center phase (at most four turns) puts at least one more
 * center sticker right; the edge beam's path is shorter than its
 * levels; then one slice per wing orbit for its parity, six turns for
 * PLL parity, and the 3×3. */
size_t reduce_max_moves(int n)
{
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return 0;
	size_t per_orbit = (size_t)NPOS * STEP_MOVES;
	size_t s = (size_t)n - 2, free = 0;
	if (n <= FREE_MAX_N)
		free += 4 * 6 * s * s + (size_t)wing_orbits(n);
	if (EB_BEAM(n))
		free += EB_LEVELS + 1;
	/* each step of the oblique macros puts one more of a pair of
	 * orbits' 48 stickers right, with at most a macro and a set-up */
	size_t om = OM_ON(n) ? (size_t)NPOS * (OM_LEN + 2) : 0;
	/* each step of the bars pairs one more oblique, with one macro */
	size_t bar = BAR_ON(n) ? (size_t)BAR_OBL * BAR_LEN : 0;
	return (size_t)wing_orbits(n) * (1 + 2 * per_orbit) +
	       (size_t)center_orbits(n) * (per_orbit + om) + free + bar + 64;
}

/* --------------------------------------------------------------- models */

/* Where sticker (f, r, c) of a size-n cube sits: x from L to R, y from D
 * to U, z from B to F (the net of DESIGN.md). */
static void where3d(int n, int f, int r, int c, int xyz[3])
{
	int m = n - 1;
	switch (f) {
	case CUBE_U: xyz[0] = c, xyz[1] = m, xyz[2] = r; break;
	case CUBE_R: xyz[0] = m, xyz[1] = m - r, xyz[2] = m - c; break;
	case CUBE_F: xyz[0] = c, xyz[1] = m - r, xyz[2] = m; break;
	case CUBE_D: xyz[0] = c, xyz[1] = 0, xyz[2] = m - r; break;
	case CUBE_L: xyz[0] = 0, xyz[1] = m - r, xyz[2] = c; break;
	default:     xyz[0] = m - c, xyz[1] = m - r, xyz[2] = 0; break;
	}
}

/* Labels of tracked stickers start here (untracked ones show 0..5). */
#define LABEL0 16

/* Sticker permutation of moves on the model: tracked sticker t (of nt,
 * coordinates tr[t]) goes to slot sp[t]. Returns 0, or -1 if a tracked
 * sticker left the tracked set (a model error). */
static int simulate(const struct model *M, cube_t *sim, uint8_t tr[][3],
		    int nt, const struct smove *mv, int count, uint8_t *sp)
{
	cube_init(sim, M->nm);
	for (int t = 0; t < nt; t++)
		cube__set(sim, tr[t][0], tr[t][1], tr[t][2], LABEL0 + t);
	for (int k = 0; k < count; k++)
		cube_turn(sim, mv[k].axis, mv[k].kind, mv[k].kind, mv[k].qt);
	for (int t = 0; t < nt; t++) {
		int v = cube_get(sim, tr[t][0], tr[t][1], tr[t][2]) - LABEL0;
		if (v < 0 || v >= nt)
			return -1;
		sp[v] = (uint8_t)t;
	}
	return 0;
}

/* Model moves carry model layers in .kind while simulating. */
static struct smove mk(int axis, int layer, int qt)
{
	struct smove s = {(uint8_t)axis, (uint8_t)layer, (uint8_t)(qt & 3)};
	return s;
}

static int tri(int a, int b, int c)
{
	return (a * NPOS + b) * NPOS + c;
}

/* Positions of a model permutation given by sticker slots. */
static void place_perm(const struct model *M, const uint8_t *sp,
		       const int *pos_of_slot, uint8_t *perm)
{
	for (int p = 0; p < NPOS; p++)
		perm[p] = (uint8_t)pos_of_slot[sp[M->wing ? 2 * p : p]];
}

/* Add a base if its permutation of the places is a 3-cycle not seen yet
 * (marks live in dist[], cleared before the search). */
static void try_base(struct model *M, cube_t *sim, uint8_t tr[][3],
		     int nt, const int *pos_of_slot, const struct smove *seq)
{
	if (M->nbase >= MAX_BASE)
		return;
	uint8_t sp[2 * NPOS], perm[NPOS];
	if (simulate(M, sim, tr, nt, seq, BASE_LEN, sp) < 0)
		return;
	place_perm(M, sp, pos_of_slot, perm);
	int moved[NPOS], k = 0;
	for (int p = 0; p < NPOS; p++)
		if (perm[p] != p) {
			if (k == 3)
				return;
			moved[k++] = p;
		}
	if (k != 3)
		return;
	int a = moved[0], b = perm[a], c = perm[b];
	if (perm[c] != a)
		return;
	int t = tri(a, b, c);
	if (M->dist[t] == 0)
		return;
	M->dist[t] = 0;
	M->dist[tri(b, c, a)] = 0;
	M->dist[tri(c, a, b)] = 0;
	memcpy(M->base[M->nbase++], seq, sizeof(struct smove) * BASE_LEN);
}

static void build_bases(struct model *M, cube_t *sim, uint8_t tr[][3],
			int nt, const int *pos_of_slot)
{
	int inner[4], ni = 0, nm = M->nm;
	for (int L = 1; L < nm - 1; L++)
		if (M->kind_of[L] != K_NONE)
			inner[ni++] = L;
	struct smove s[BASE_LEN];
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		for (int ii = 0; ii < ni; ii++)
		for (int xa = 1; xa <= 3; xa += M->wing ? 1 : 2)
		for (int fb = 0; fb < nm; fb += nm - 1)
		for (int b1 = 1; b1 <= 3; b1++)
		for (int form = 0; form < 2; form++) {
			int i = inner[ii];
			if (M->wing) {
				for (int fa = 0; fa < nm; fa += nm - 1)
				for (int a2 = 1; a2 <= 3; a2++) {
					/* X = slice, Y = B A B' */
					struct smove X[1] = {mk(A, i, xa)};
					struct smove Y[3] = {mk(B, fb, b1),
							     mk(A, fa, a2),
							     mk(B, fb, 4 - b1)};
					struct smove Xi[1] = {mk(A, i, 4 - xa)};
					struct smove Yi[3] = {mk(B, fb, b1),
							      mk(A, fa, 4 - a2),
							      mk(B, fb, 4 - b1)};
					int k = 0;
					const struct smove *p1 = form ? Y : X,
							   *p2 = form ? X : Y,
							   *p3 = form ? Yi : Xi,
							   *p4 = form ? Xi : Yi;
					int l1 = form ? 3 : 1, l2 = form ? 1 : 3;
					for (int q = 0; q < l1; q++)
						s[k++] = p1[q];
					for (int q = 0; q < l2; q++)
						s[k++] = p2[q];
					for (int q = 0; q < l1; q++)
						s[k++] = p3[q];
					for (int q = 0; q < l2; q++)
						s[k++] = p4[q];
					try_base(M, sim, tr, nt, pos_of_slot, s);
				}
				continue;
			}
			for (int jj = 0; jj < ni; jj++) {
				int j = inner[jj];
				/* X = iA jB iA', Y = the B face fb */
				for (int a1 = 1; a1 <= 3; a1++) {
					struct smove X[3] = {mk(A, i, xa),
							     mk(B, j, a1),
							     mk(A, i, 4 - xa)};
					struct smove Xi[3] = {mk(A, i, xa),
							      mk(B, j, 4 - a1),
							      mk(A, i, 4 - xa)};
					struct smove Y[1] = {mk(B, fb, b1)};
					struct smove Yi[1] = {mk(B, fb, 4 - b1)};
					int k = 0;
					const struct smove *p1 = form ? Y : X,
							   *p2 = form ? X : Y,
							   *p3 = form ? Yi : Xi,
							   *p4 = form ? Xi : Yi;
					int l1 = form ? 1 : 3, l2 = form ? 3 : 1;
					for (int q = 0; q < l1; q++)
						s[k++] = p1[q];
					for (int q = 0; q < l2; q++)
						s[k++] = p2[q];
					for (int q = 0; q < l1; q++)
						s[k++] = p3[q];
					for (int q = 0; q < l2; q++)
						s[k++] = p4[q];
					try_base(M, sim, tr, nt, pos_of_slot, s);
				}
			}
		}
	}
}

/* Breadth-first over ordered triples from the bases' triples. */
static void search_setups(struct model *M, uint16_t *queue)
{
	int head = 0, tail = 0;
	for (int a = 0; a < NPOS; a++)
	for (int b = 0; b < NPOS; b++)
	for (int c = 0; c < NPOS; c++) {
		int t = tri(a, b, c);
		if (M->dist[t] == 0)
			queue[tail++] = (uint16_t)t;
	}
	M->max_dist = 0;
	while (head < tail) {
		int t = queue[head++];
		int d = M->dist[t];
		if (d >= MAX_SETUP)
			continue;
		int a = t / (NPOS * NPOS), b = t / NPOS % NPOS, c = t % NPOS;
		for (int g = 0; g < M->ngen; g++) {
			const uint8_t *pi = M->perm[M->inv[g]];
			int v = tri(pi[a], pi[b], pi[c]);
			if (M->dist[v] != UNSEEN)
				continue;
			M->dist[v] = (uint8_t)(d + 1);
			M->how[v] = (uint8_t)g;
			if (d + 1 > M->max_dist)
				M->max_dist = d + 1;
			queue[tail++] = (uint16_t)v;
		}
	}
}

/* Which base each depth-0 triple is: found again by simulating (cheap:
 * bases are few). */
static int index_bases(struct model *M, cube_t *sim, uint8_t tr[][3],
		       int nt, const int *pos_of_slot)
{
	for (int k = 0; k < M->nbase; k++) {
		uint8_t sp[2 * NPOS], perm[NPOS];
		if (simulate(M, sim, tr, nt, M->base[k], BASE_LEN, sp) < 0)
			return -1;
		place_perm(M, sp, pos_of_slot, perm);
		int a = 0;
		while (perm[a] == a)
			a++;
		int b = perm[a], c = perm[b];
		M->base_of[tri(a, b, c)] = (uint16_t)k;
		M->base_of[tri(b, c, a)] = (uint16_t)k;
		M->base_of[tri(c, a, b)] = (uint16_t)k;
	}
	return 0;
}

static int build_model(struct model *M, int id, cube_t *sim, uint16_t *queue)
{
	static const uint8_t kinds[M_COUNT][8] = {
		[M_X] = {K_0, K_P, K_MP, K_M},
		[M_PLUS] = {K_0, K_P, K_Q, K_MP, K_M},
		[M_OBL] = {K_0, K_P, K_Q, K_NONE, K_MQ, K_MP, K_M},
		[M_WING] = {K_0, K_P, K_MP, K_M},
	};
	static const int sizes[M_COUNT] = {4, 5, 7, 4};
	memset(M, 0, offsetof(struct model, base));
	M->nm = sizes[id];
	M->wing = id == M_WING;
	memcpy(M->kind_of, kinds[id], 8);
	int nm = M->nm, m = nm - 1;

	/* tracked stickers: slot t; for wings slots 2p and 2p+1 */
	uint8_t tr[2 * NPOS][3];
	int nt = 0, pos_of_slot[2 * NPOS], partner[48];
	if (!M->wing) {
		int r = 1, c = id == M_X ? 1 : 2;
		for (int f = 0; f < 6; f++) {
			int rr = r, cc = c;
			for (int k = 0; k < 4; k++) {
				tr[nt][0] = (uint8_t)f;
				tr[nt][1] = (uint8_t)rr;
				tr[nt][2] = (uint8_t)cc;
				pos_of_slot[nt] = nt;
				nt++;
				int t = rr;
				rr = cc;
				cc = m - t;
			}
		}
	} else {
		/* the 48 border stickers off the corners, paired by where
		 * they sit */
		uint8_t all[48][3];
		int na = 0;
		for (int f = 0; f < 6; f++)
			for (int r = 0; r < nm; r++)
				for (int c = 0; c < nm; c++) {
					int border = r == 0 || r == m || c == 0 ||
						     c == m;
					int corner = (r == 0 || r == m) &&
						     (c == 0 || c == m);
					if (!border || corner)
						continue;
					all[na][0] = (uint8_t)f;
					all[na][1] = (uint8_t)r;
					all[na][2] = (uint8_t)c;
					na++;
				}
		for (int i = 0; i < na; i++) {
			int a[3], b[3];
			partner[i] = -1;
			where3d(nm, all[i][0], all[i][1], all[i][2], a);
			for (int j = 0; j < na; j++) {
				where3d(nm, all[j][0], all[j][1], all[j][2], b);
				if (j != i && a[0] == b[0] && a[1] == b[1] &&
				    a[2] == b[2])
					partner[i] = j;
			}
			if (partner[i] < 0)
				return -1;
		}
		/* generators' permutations of the 48, to orient the places */
		for (int t = 0; t < na; t++)
			memcpy(tr[t], all[t], 3);
		nt = na;
	}

	/* generators */
	for (int axis = 0; axis < 3; axis++)
		for (int L = 0; L < nm; L++) {
			if (M->kind_of[L] == K_NONE)
				continue;
			for (int qt = 1; qt <= 3; qt++) {
				M->gen[M->ngen] = mk(axis, L, qt);
				M->inv[M->ngen] = (uint8_t)(M->ngen + 4 - 2 * qt);
				M->ngen++;
			}
		}

	if (M->wing) {
		/* first stickers: spread from sticker 0 along every
		 * generator; a wing cannot flip in place, so this never
		 * contradicts itself */
		uint8_t gsp[MAX_GEN][48];
		for (int g = 0; g < M->ngen; g++)
			if (simulate(M, sim, tr, nt, &M->gen[g], 1, gsp[g]) < 0)
				return -1;
		int first[48], stack[48], sp = 0, npos = 0;
		for (int t = 0; t < 48; t++)
			first[t] = -1; /* 1 first, 0 second, -1 unknown */
		first[0] = 1;
		first[partner[0]] = 0;
		stack[sp++] = 0;
		while (sp) {
			int s = stack[--sp];
			for (int g = 0; g < M->ngen; g++) {
				int u = gsp[g][s];
				if (first[u] == 0)
					return -1;
				if (first[u] == 1)
					continue;
				first[u] = 1;
				first[partner[u]] = 0;
				stack[sp++] = u;
			}
		}
		uint8_t ord[48][3];
		for (int t = 0; t < 48; t++) {
			if (first[t] < 0)
				return -1;
			if (first[t] != 1)
				continue;
			memcpy(M->st[npos][0], tr[t], 3);
			memcpy(M->st[npos][1], tr[partner[t]], 3);
			memcpy(ord[2 * npos], tr[t], 3);
			memcpy(ord[2 * npos + 1], tr[partner[t]], 3);
			npos++;
		}
		if (npos != NPOS)
			return -1;
		memcpy(tr, ord, sizeof ord);
		for (int t = 0; t < 48; t++)
			pos_of_slot[t] = t / 2;
	} else {
		for (int p = 0; p < NPOS; p++)
			memcpy(M->st[p][0], tr[p], 3);
	}
	for (int g = 0; g < M->ngen; g++) {
		uint8_t sp[2 * NPOS];
		if (simulate(M, sim, tr, nt, &M->gen[g], 1, sp) < 0)
			return -1;
		place_perm(M, sp, pos_of_slot, M->perm[g]);
		if (M->wing)
			for (int p = 0; p < NPOS; p++)
				if (sp[2 * p + 1] != 2 * M->perm[g][p] + 1)
					return -1;
	}

	memset(M->dist, UNSEEN, sizeof M->dist);
	M->nbase = 0;
	build_bases(M, sim, tr, nt, pos_of_slot);
	if (M->nbase == 0 || index_bases(M, sim, tr, nt, pos_of_slot) < 0)
		return -1;
	search_setups(M, queue);
	return 0;
}

/* ---------------------------------------------------------------- solve */

struct orbit {
	const struct model *M;
	int p, q;
	uint16_t st[NPOS][2][3]; /* actual (face, row, col) */
};

struct ctx {
	struct rwork *w;
	cube_t *c;
	int n, m;
	cube_move *out;
	size_t cap, count;
	const reduce_limits *lim;
	int tcol[6];   /* colour each face ends with */
	int face_of[6]; /* inverse: colour → face */
	uint64_t ticks;
	/* the variant: free phases' thresholds (stickers per move), and
	 * on even n which frame (0 the best) */
	int c_num, c_den, frame;
	long polls; /* the 3×3 search's budget */
	int rot;    /* the cube is solved turned by whole-cube rotation rot
		     * (0 none), the moves turned back */
	int staged;   /* the staged center search runs (STAGED(n)) */
	int split[4]; /* its steps' moves, all 0 unless all four ran */
	unsigned cpar; /* wing parities the center stage made so far */
	long st_nodes; /* nodes the staged searches visited */
	long om_evals; /* macros the oblique greedy weighed */
	int erate;     /* the free phase's places are built: the centers'
			* last step may rate its answers by the edges */
};

static int kind_val(int kind, int p, int q, int m)
{
	switch (kind) {
	case K_0: return 0;
	case K_P: return p;
	case K_Q: return q;
	case K_MQ: return m - q;
	case K_MP: return m - p;
	default: return m;
	}
}

static void orbit_init(struct orbit *o, const struct model *M, int p, int q,
		       int m)
{
	o->M = M;
	o->p = p;
	o->q = q;
	for (int i = 0; i < NPOS; i++)
		for (int s = 0; s < 1 + M->wing; s++) {
			o->st[i][s][0] = M->st[i][s][0];
			o->st[i][s][1] = (uint16_t)kind_val(
				M->kind_of[M->st[i][s][1]], p, q, m);
			o->st[i][s][2] = (uint16_t)kind_val(
				M->kind_of[M->st[i][s][2]], p, q, m);
		}
}

static int poll_now(struct ctx *x)
{
	return x->lim && x->lim->poll && x->lim->poll(x->lim->ctx, 0, 0);
}

static int emit_block(struct ctx *x, int axis, int lo, int hi, int qt)
{
	if (x->count >= x->cap)
		return CUBE_ESPACE;
	cube_move mv = {(uint8_t)axis, (uint8_t)(qt & 3), (uint16_t)lo,
			(uint16_t)hi};
	x->out[x->count++] = mv;
	cube__turn_generic(x->c, axis, lo, hi, qt & 3);
	return 0;
}

static int emit(struct ctx *x, int axis, int layer, int qt)
{
	return emit_block(x, axis, layer, layer, qt);
}

static int emit_s(struct ctx *x, const struct orbit *o, struct smove s,
		  int inverse)
{
	return emit(x, s.axis,
		    kind_val(o->M->kind_of[s.kind], o->p, o->q, x->m),
		    inverse ? 4 - s.qt : s.qt);
}

/* A place's token: its colour, or for wings first·6 + second. */
static void read_orbit(const struct ctx *x, const struct orbit *o,
		       uint8_t *cur)
{
	for (int i = 0; i < NPOS; i++) {
		const uint16_t *a = o->st[i][0];
		int v = cube_get(x->c, a[0], a[1], a[2]);
		if (o->M->wing) {
			const uint16_t *b = o->st[i][1];
			v = v * 6 + cube_get(x->c, b[0], b[1], b[2]);
		}
		cur[i] = (uint8_t)v;
	}
}

/* Apply the 3-cycle a → b → c (the piece at a goes to b …) as set-up,
 * base, set-up undone. */
static int apply_cycle(struct ctx *x, const struct orbit *o, int a, int b,
		       int c)
{
	const struct model *M = o->M;
	int t = tri(a, b, c), setup[MAX_SETUP], ns = 0, rc;
	while (M->dist[t] > 0 && M->dist[t] != UNSEEN) {
		int g = M->how[t];
		setup[ns++] = g;
		if ((rc = emit_s(x, o, M->gen[g], 0)) < 0)
			return rc;
		a = M->perm[g][a], b = M->perm[g][b], c = M->perm[g][c];
		t = tri(a, b, c);
	}
	const struct smove *bs = M->base[M->base_of[t]];
	for (int k = 0; k < BASE_LEN; k++)
		if ((rc = emit_s(x, o, bs[k], 0)) < 0)
			return rc;
	while (ns > 0)
		if ((rc = emit_s(x, o, M->gen[setup[--ns]], 1)) < 0)
			return rc;
	return 0;
}

/* Greedy: the 3-cycle with the best places-fixed per move, until cur is
 * tgt, each made on the cube. Returns the moves, or an error. */
static long solve_orbit(struct ctx *x, const struct orbit *o, uint8_t *cur,
			const uint8_t *tgt)
{
	const struct model *M = o->M;
	long moves = 0;
	for (int step = 0; step <= NPOS; step++) {
		int wrong = 0;
		for (int i = 0; i < NPOS; i++)
			wrong += cur[i] != tgt[i];
		if (!wrong)
			return moves;
		int bg = 0, bc = 1, ba = -1, bb = -1, bz = -1;
		for (int y = 0; y < NPOS; y++) {
			if (cur[y] == tgt[y])
				continue;
			for (int a = 0; a < NPOS; a++) {
				if (a == y || cur[a] != tgt[y])
					continue;
				int base_gain = 1 - (cur[a] == tgt[a]);
				for (int z = 0; z < NPOS; z++) {
					if (z == a || z == y)
						continue;
					int d = M->dist[tri(a, y, z)];
					if (d == UNSEEN)
						continue;
					int g = base_gain + (cur[y] == tgt[z]) +
						(cur[z] == tgt[a]) -
						(cur[z] == tgt[z]);
					int cost = BASE_LEN + 2 * d;
					if (g > 0 && g * bc > bg * cost) {
						bg = g, bc = cost;
						ba = a, bb = y, bz = z;
					}
				}
			}
		}
		if (ba < 0)
			return SOLVE_ESTAGE;
		uint8_t t = cur[bz];
		cur[bz] = cur[bb];
		cur[bb] = cur[ba];
		cur[ba] = t;
		moves += bc;
		int rc = apply_cycle(x, o, ba, bb, bz);
		if (rc < 0)
			return rc;
		uint8_t now[NPOS];
		read_orbit(x, o, now);
		if (memcmp(now, cur, NPOS) != 0)
			return SOLVE_ESTAGE;
	}
	return SOLVE_ESTAGE;
}

/* ------------------------------------------------------------ the 3×3 */

/* 3×3 facelet index of a border sticker of the big cube. */
static int idx3(int m, int f, int r, int c)
{
	int r3 = r == 0 ? 0 : r == m ? 2 : 1, c3 = c == 0 ? 0 : c == m ? 2 : 1;
	return f * 9 + r3 * 3 + c3;
}

/* 3×3 coordinate 0..2 → the big cube's (1 → the middle on odd n, else 1:
 * any wing does once edges are paired). */
static int big_of3(int n, int v)
{
	return v == 0 ? 0 : v == 2 ? n - 1 : n % 2 ? n / 2 : 1;
}

/* The reduced cube as 54 letters in the frame: corners read from the
 * cube, edges from ecol[e][side] (colours on edge e's two facelets). */
static void reduced3(const struct ctx *x, uint8_t ecol[12][2],
		     char s[54])
{
	for (int i = 0; i < 54; i++) {
		int f = i / 9, r = i % 9 / 3, c = i % 3;
		int col = cube_get(x->c, f, big_of3(x->n, r), big_of3(x->n, c));
		if (r == 1 && c == 1)
			col = x->tcol[f];
		s[i] = cube_face_letters[x->face_of[col]];
	}
	for (int e = 0; e < 12; e++)
		for (int k = 0; k < 2; k++)
			s[cubie__edge_facelet[e][k]] =
				cube_face_letters[x->face_of[ecol[e][k]]];
}

static int face_index(char l)
{
	return (int)(strchr(cube_face_letters, l) - cube_face_letters);
}

static int perm_parity(const int *p, int k)
{
	int odd = 0;
	unsigned seen = 0;
	for (int i = 0; i < k; i++) {
		if (seen & 1u << i)
			continue;
		for (int j = p[i]; j != i; j = p[j]) {
			seen |= 1u << j;
			odd ^= 1;
		}
		seen |= 1u << i;
	}
	return odd;
}

/* Corner and edge permutation parities and the flip sum of a 3×3 in
 * standard orientation; -1 if a piece is not real or repeats. */
static int parities3(const char s[54], int *cpar, int *epar, int *flip)
{
	int cp[8], ep[12];
	unsigned seen = 0;
	*flip = 0;
	for (int i = 0; i < 8; i++) {
		const unsigned char *f = cubie__corner_facelet[i];
		int v = cubie__corner_of(face_index(s[f[0]]), face_index(s[f[1]]),
					 face_index(s[f[2]]));
		if (v < 0 || seen & 1u << (v / 3))
			return -1;
		seen |= 1u << (v / 3);
		cp[i] = v / 3;
	}
	seen = 0;
	for (int e = 0; e < 12; e++) {
		const unsigned char *f = cubie__edge_facelet[e];
		int v = cubie__edge_of(face_index(s[f[0]]), face_index(s[f[1]]));
		if (v < 0 || seen & 1u << (v / 2))
			return -1;
		seen |= 1u << (v / 2);
		ep[e] = v / 2;
		*flip ^= v & 1;
	}
	*cpar = perm_parity(cp, 8);
	*epar = perm_parity(ep, 12);
	return 0;
}

/* ----------------------------------------------------------- the stages */

static void wing_orbit(struct ctx *x, struct orbit *o, int k)
{
	orbit_init(o, &x->w->model[M_WING], k, 0, x->m);
}

/* Targets of a wing orbit for the edge colours ecol. */
static void wing_targets(const struct ctx *x, const struct orbit *o,
			 const int8_t *e_of3, uint8_t ecol[12][2],
			 uint8_t *tgt)
{
	for (int i = 0; i < NPOS; i++) {
		int v = 0;
		for (int s = 0; s < 2; s++) {
			const uint16_t *a = o->st[i][s];
			int es = e_of3[idx3(x->m, a[0], a[1], a[2])];
			v = v * 6 + ecol[es / 2][es % 2];
		}
		tgt[i] = (uint8_t)v;
	}
}

/* Parity of the permutation taking cur to tgt (tokens all different). */
static int orbit_parity(const uint8_t *cur, const uint8_t *tgt)
{
	int where[36], dest[NPOS];
	for (int i = 0; i < 36; i++)
		where[i] = -1;
	for (int i = 0; i < NPOS; i++)
		where[tgt[i]] = i;
	for (int i = 0; i < NPOS; i++)
		dest[i] = where[cur[i]];
	return perm_parity(dest, NPOS);
}

/* Every wing of every orbit a real piece, each once. */
static int wings_legal(struct ctx *x)
{
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS];
		wing_orbit(x, &o, k);
		read_orbit(x, &o, cur);
		uint64_t seen = 0;
		for (int i = 0; i < NPOS; i++) {
			int a = cur[i] / 6, b = cur[i] % 6;
			if (a == b || a == (b + 3) % 6 || seen >> cur[i] & 1)
				return 0;
			seen |= 1ull << cur[i];
		}
	}
	return 1;
}

static void stage_begin(struct ctx *x, reduce_result *res, int k)
{
	res->stage[k].name = stage_names[k];
	res->stage[k].start = (int)x->count;
	res->stage[k].count = 0;
}

static void stage_end(struct ctx *x, reduce_result *res, int k)
{
	size_t start = (size_t)res->stage[k].start;
	size_t len = moves_simplify(x->out + start, x->count - start);
	x->count = start + moves_merge_blocks(x->out + start, len, x->n);
	res->stage[k].count = (int)(x->count - start);
}

/* The frame on even n: of the 24 orientations, the one with most center
 * stickers already on their face (x->frame > 0: the one that many places
 * down that order, ties in a fixed order). */
static void choose_frame(struct ctx *x)
{
	int n = x->n, m = x->m;
	if (n % 2) {
		for (int f = 0; f < 6; f++)
			x->tcol[f] = cube_get(x->c, f, n / 2, n / 2);
	} else {
		long count[6][6] = {{0}};
		for (int f = 0; f < 6; f++)
			for (int r = 1; r < m; r++)
				for (int c = 1; c < m; c++)
					count[f][cube_get(x->c, f, r, c)]++;
		/* the 24 colour maps: the centers of a 3×3 with each face
		 * brought up (x, x2, x', z, z'), then turned by y */
		static const int pre[6][2] = {{0, 0}, {0, 1}, {0, 2},
					      {0, 3}, {2, 1}, {2, 3}};
		_Alignas(64) unsigned char buf[512];
		cube_t *t = (cube_t *)(void *)buf;
		long score[24];
		int col[24][6];
		for (int a = 0; a < 6; a++) {
			cube_init(t, 3);
			cube_turn(t, pre[a][0], 0, 2, pre[a][1]);
			for (int b = 0; b < 4; b++) {
				long sc = 0;
				for (int f = 0; f < 6; f++) {
					col[4 * a + b][f] = cube_get(t, f, 1, 1);
					sc += count[f][col[4 * a + b][f]];
				}
				score[4 * a + b] = sc;
				cube_turn(t, 1, 0, 2, 1);
			}
		}
		/* the frame-th best: pick the best, strike it, again */
		int pick = 0;
		for (int k = 0; k <= x->frame && k < 24; k++) {
			pick = 0;
			for (int i = 1; i < 24; i++)
				if (score[i] > score[pick])
					pick = i;
			if (k < x->frame)
				score[pick] = -1;
		}
		for (int f = 0; f < 6; f++)
			x->tcol[f] = col[pick][f];
	}
	for (int f = 0; f < 6; f++)
		x->face_of[x->tcol[f]] = f;
}

static int stage_oll(struct ctx *x, const int8_t *e_of3, reduce_result *res)
{
	uint8_t home[12][2];
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++)
			home[e][s] = (uint8_t)x->tcol[cubie__edge_facelet[e][s] / 9];
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS], tgt[NPOS];
		wing_orbit(x, &o, k);
		read_orbit(x, &o, cur);
		wing_targets(x, &o, e_of3, home, tgt);
		if (!orbit_parity(cur, tgt))
			continue;
		res->oll_parity++;
		int rc = emit(x, CUBE_X, k, 1);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------- free-move center phase */

static int free_place(int s, int f, int r, int c)
{
	return (f * s + r - 1) * s + c - 1;
}

static int is_edge_place(int m, int r, int c)
{
	int br = r == 0 || r == m, bc = c == 0 || c == m;
	return br != bc;
}

/* The stickers of the free phases, read from the cube. */
static void free_read(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int m = x->m, s = x->n - 2;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < m; r++)
			for (int c = 1; c < m; c++) {
				int p = free_place(s, f, r, c);
				F->cur[p] = (uint8_t)cube_get(x->c, f, r, c);
				F->tgt[p] = (uint8_t)x->tcol[f];
			}
	for (int e = 0; e < F->ne; e++)
		F->ecur[e] = (uint8_t)cube_get(x->c, F->epos[e][0],
					       F->epos[e][1], F->epos[e][2]);
}

/* Label of place p (centers first, then edges) for free_build. */
static void free_where(const struct freec *F, int s, int p, int *f, int *r,
		       int *c)
{
	if (p < F->nc) {
		*f = p / (s * s);
		*r = p / s % s + 1;
		*c = p % s + 1;
	} else {
		*f = F->epos[p - F->nc][0];
		*r = F->epos[p - F->nc][1];
		*c = F->epos[p - F->nc][2];
	}
}

/* Every layer turn's pairs of center places and of edge places, found
 * by turning a cube whose stickers carry labels; the edges' slots. */
static int free_build(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int n = x->n, m = x->m, s = n - 2;
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	uint32_t np = 0, nep = 0;
	F->nc = 6 * s * s;
	F->ne = 0;
	F->ngen = F->nall = 0;
	int nslot = 0, slot_of[6][6];
	memset(slot_of, -1, sizeof slot_of);
	for (int f = 0; f < 6; f++)
		for (int r = 0; r <= m; r++)
			for (int c = 0; c <= m; c++) {
				if (!is_edge_place(m, r, c))
					continue;
				int e = F->ne++;
				F->epos[e][0] = (uint16_t)f;
				F->epos[e][1] = (uint16_t)r;
				F->epos[e][2] = (uint16_t)c;
				/* the other sticker of its piece: same place
				 * in space, another face */
				int a[3], other = -1;
				where3d(n, f, r, c, a);
				for (int g = 0; g < 6 && other < 0; g++)
					for (int rr = 0; rr <= m && other < 0; rr++)
						for (int cc = 0; cc <= m; cc++) {
							int b[3];
							if (g == f || !is_edge_place(m, rr, cc))
								continue;
							where3d(n, g, rr, cc, b);
							if (a[0] == b[0] && a[1] == b[1] &&
							    a[2] == b[2]) {
								other = g;
								break;
							}
						}
				if (other < 0)
					return SOLVE_ESTAGE;
				int lo = f < other ? f : other;
				int hi = f ^ other ^ lo;
				if (slot_of[lo][hi] < 0)
					slot_of[lo][hi] = nslot++;
				/* along the edge: the coordinate not on a face */
				int j = 0;
				for (int k = 0; k < 3; k++)
					if (a[k] != 0 && a[k] != m)
						j = a[k];
				F->slot[slot_of[lo][hi]][j][f == hi] = (uint16_t)e;
			}
	if (nslot != 12 || F->ne != 24 * s)
		return SOLVE_ESTAGE;
	int total = F->nc + F->ne;
	/* blocks widen the search a lot: measured, they pay up to 9×9; on
	 * 4×4 a block of three is a rotation and a layer, and leaving
	 * those out gave the same lengths in two thirds of the time */
	int width = n == 4 ? 2 : n <= 7 ? FREE_MAX_W
			   : n <= FREE_COMM_MAX_N ? 2 : 1;
	/* the middle slice of odd n holds the frame: turns of it come
	 * last, after F->ngen, for the edge beam alone (it turns them
	 * back) */
	int mids = n % 2 && EB_BEAM(n);
	for (int pass = 0; pass < 1 + mids; pass++)
	for (int axis = 0; axis < 3; axis++)
		for (int lo = 0; lo <= m; lo++)
		for (int hi = lo; hi <= m && hi - lo < width; hi++) {
			if ((n % 2 && 2 * lo <= m && 2 * hi >= m) != pass)
				continue;
			if (lo == 0 && hi == m)
				continue;
			uint32_t wing = 0;
			for (int l = lo; l <= hi; l++)
				if (l > 0 && l < m)
					wing ^= 1u << (l < m - l ? l : m - l);
			for (int qt = 1; qt <= 3; qt++) {
				struct fgen *G = &F->gen[F->nall++];
				G->axis = (uint8_t)axis;
				G->qt = (uint8_t)qt;
				G->lo = (uint16_t)lo;
				G->hi = (uint16_t)hi;
				G->inv_off = (uint8_t)(4 - 2 * qt + 2);
				G->wing = qt % 2 ? wing : 0;
				G->first = np;
				G->efirst = nep;
				for (int b = 0; b < total; b += FREE_BATCH) {
					int f, r, c;
					cube_init(sim, n);
					for (int p = b; p < total && p < b + FREE_BATCH; p++) {
						free_where(F, s, p, &f, &r, &c);
						cube__set(sim, f, r, c, 6 + p - b);
					}
					cube_turn(sim, axis, lo, hi, qt);
					for (int p = 0; p < total; p++) {
						free_where(F, s, p, &f, &r, &c);
						int v = cube_get(sim, f, r, c);
						if (v < 6 || b + v - 6 == p)
							continue;
						int from = b + v - 6;
						if ((p < F->nc) != (from < F->nc))
							return SOLVE_ESTAGE;
						if (p < F->nc) {
							if (np >= FREE_PAIRS)
								return SOLVE_ESTAGE;
							F->pr[np][0] = (uint16_t)p;
							F->pr[np][1] = (uint16_t)from;
							np++;
						} else {
							if (nep >= FREE_EPAIRS)
								return SOLVE_ESTAGE;
							F->epr[nep][0] = (uint16_t)(p - F->nc);
							F->epr[nep][1] = (uint16_t)(from - F->nc);
							nep++;
						}
					}
				}
				G->count = np - G->first;
				G->ecount = nep - G->efirst;
				int g = F->nall - 1;
				if (!pass)
					F->ngen = F->nall;
				for (int e = 0; e < F->ne; e++)
					F->esrc[g][e] = (uint16_t)e;
				for (uint32_t k = G->efirst; k < nep; k++)
					F->esrc[g][F->epr[k][0]] = F->epr[k][1];
				F->eslots[g] = 0;
				for (int e = 0; e < 12; e++)
					for (int j = 1; j < m; j++)
						for (int t = 0; t < 2; t++) {
							int q = F->slot[e][j][t];
							if (F->esrc[g][q] != q)
								F->eslots[g] |= (uint16_t)(1u << e);
						}
			}
		}
	free_read(x);
	return 0;
}

static int free_inv(const struct freec *F, int g)
{
	return g + F->gen[g].inv_off - 2;
}

/* Center stickers a turn puts on their face, less those it takes off. */
static int free_gain(const struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	const uint16_t(*pr)[2] = F->pr + G->first;
	int d = 0;
	for (uint32_t k = 0; k < G->count; k++) {
		int to = pr[k][0], from = pr[k][1];
		d += (F->cur[from] == F->tgt[to]) - (F->cur[to] == F->tgt[to]);
	}
	return d;
}

/* Move cur[from] to cur[to] for each (to, from) of n pairs, all at once. */
static void permute(uint8_t *cur, uint8_t *tmp, uint16_t (*pr)[2],
		    uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		tmp[k] = cur[pr[k][1]];
	for (uint32_t k = 0; k < n; k++)
		cur[pr[k][0]] = tmp[k];
}

/* The turn on the center places only (enough while searching centers). */
static void free_apply(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	permute(F->cur, F->tmp, F->pr + G->first, G->count);
}

/* free_gain and free_apply in one pass over the pairs. */
static int free_gain_apply(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	uint16_t(*pr)[2] = F->pr + G->first;
	int d = 0;
	for (uint32_t k = 0; k < G->count; k++) {
		int to = pr[k][0], from = pr[k][1];
		uint8_t v = F->cur[from];
		d += (v == F->tgt[to]) - (F->cur[to] == F->tgt[to]);
		F->tmp[k] = v;
	}
	for (uint32_t k = 0; k < G->count; k++)
		F->cur[pr[k][0]] = F->tmp[k];
	return d;
}

/* The turn on the edge places only. */
static void free_apply_e(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	permute(F->ecur, F->tmp, F->epr + G->efirst, G->ecount);
}

/* The free center phase goes on while a sequence puts at least
 * x->c_num / x->c_den center stickers on their face per move (the
 * 3-cycles that follow cost about a sticker per 3.5 to 4 moves).
 * Measured alone, 1/3 gave the shortest answers for n = 4..7 (1/2 and
 * 2/3 longer by 3-10%, 1/4 the same); the other variants try others. */

struct fbest {
	int gain, len, seq[4];
};

/* The best sequences seen, best first: top[0..k), k <= FREE_LOOK. Up to
 * FREE_LOOK_MAX_N the FREE_LOOK best first steps are each judged with
 * the best step after them (it multiplies the work by FREE_LOOK + 1).
 * Measured over 20 states: 4×4 76.4 -> 72.6 moves; 5×5 no better, 6×6
 * and 7×7 3-5% shorter for three times the time. */
#define FREE_LOOK 6
#define FREE_LOOK_MAX_N 4

struct ftop {
	int k, want;
	struct fbest top[FREE_LOOK];
};

static int fbetter(int g1, int l1, int g2, int l2)
{
	return g1 * l2 > g2 * l1 || (g1 * l2 == g2 * l1 && g1 > g2);
}

static void free_consider(struct ftop *t, int gain, int len, int g1, int g2,
			  int g3, int g4)
{
	if (gain <= 0)
		return;
	if (t->k == t->want &&
	    !fbetter(gain, len, t->top[t->k - 1].gain, t->top[t->k - 1].len))
		return;
	int i = t->k < t->want ? t->k++ : t->k - 1;
	while (i > 0 && fbetter(gain, len, t->top[i - 1].gain,
				t->top[i - 1].len)) {
		t->top[i] = t->top[i - 1];
		i--;
	}
	struct fbest b = {gain, len, {g1, g2, g3, g4}};
	t->top[i] = b;
}

static int free_emit(struct ctx *x, int g, unsigned *par)
{
	struct freec *F = &x->w->fc;
	const struct fgen *G = &F->gen[g];
	free_apply(F, g);
	free_apply_e(F, g);
	*par ^= G->wing;
	return emit_block(x, G->axis, G->lo, G->hi, G->qt);
}

/* Greedy over sequences of one turn, two turns, conjugates A B A' and
 * (up to FREE_COMM_MAX_N) commutators A B A' B':
 * the one that puts the most center stickers on their face per move,
 * while that beats the 3-cycles. Each wing orbit's slices are turned an
 * even number of quarter turns in all (one more at the end where not),
 * which keeps the parity the oll_parity stage set. */
/* One greedy step's candidates: the t->want best sequences of one or
 * two turns, conjugates and commutators, by stickers placed per move. */
static void free_step(struct ctx *x, struct ftop *t)
{
	struct freec *F = &x->w->fc;
	t->k = 0;
	for (int g1 = 0; g1 < F->ngen; g1++) {
		const struct fgen *G1 = &F->gen[g1];
		int a = free_gain_apply(F, g1);
		free_consider(t, a, 1, g1, -1, -1, -1);
		for (int g2 = 0; g2 < F->ngen; g2++) {
			const struct fgen *G2 = &F->gen[g2];
			if (G2->axis == G1->axis && G2->lo == G1->lo &&
			    G2->hi == G1->hi)
				continue;
			/* turns of one axis commute: each pair once */
			if (G2->axis == G1->axis && g2 < g1)
				continue;
			if (G2->axis == G1->axis) {
				free_consider(t, a + free_gain(F, g2), 2, g1,
					      g2, -1, -1);
				continue;
			}
			int i1 = free_inv(F, g1), i2 = free_inv(F, g2);
			int c2 = free_gain_apply(F, g2);
			free_consider(t, a + c2, 2, g1, g2, -1, -1);
			if (x->n > FREE_COMM_MAX_N) {
				free_consider(t, a + c2 + free_gain(F, i1), 3,
					      g1, g2, i1, -1);
				free_apply(F, i2);
				continue;
			}
			int c3 = free_gain_apply(F, i1);
			free_consider(t, a + c2 + c3, 3, g1, g2, i1, -1);
			int c4 = free_gain(F, i2);
			free_consider(t, a + c2 + c3 + c4, 4, g1, g2, i1,
				      i2);
			free_apply(F, g1);
			free_apply(F, i2);
		}
		free_apply(F, free_inv(F, g1));
	}
}

/* A candidate first step judged with the best step after it: the two
 * steps' stickers per move. */
static void free_lookahead(struct ctx *x, struct ftop *t, struct fbest *b)
{
	struct freec *F = &x->w->fc;
	int bg = 0, bl = 1;
	*b = t->top[0];
	for (int i = 0; i < t->k; i++) {
		const struct fbest *c = &t->top[i];
		for (int j = 0; j < c->len; j++)
			free_apply(F, c->seq[j]);
		struct ftop next;
		next.want = 1;
		free_step(x, &next);
		int g = c->gain, l = c->len;
		if (next.k && next.top[0].gain * x->c_den >=
				      next.top[0].len * x->c_num)
			g += next.top[0].gain, l += next.top[0].len;
		for (int j = c->len; j-- > 0;)
			free_apply(F, free_inv(F, c->seq[j]));
		if (fbetter(g, l, bg, bl)) {
			bg = g, bl = l;
			*b = *c;
		}
	}
}

/* The free phase's maps, built unless the centers' last step had them
 * built already (x->erate: they do not depend on the state), and the
 * stickers read. */
static int free_ready(struct ctx *x)
{
	if (!x->erate)
		return free_build(x);
	free_read(x);
	return 0;
}

static int free_centers(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int rc = free_ready(x);
	if (rc < 0)
		return rc;
	unsigned par = x->cpar;
	for (;;) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		struct ftop t;
		t.want = x->n <= FREE_LOOK_MAX_N ? FREE_LOOK : 1;
		free_step(x, &t);
		if (t.k == 0)
			break;
		struct fbest b = t.top[0];
		if (t.want > 1 && b.gain * x->c_den >= b.len * x->c_num)
			free_lookahead(x, &t, &b);
		if (b.gain * x->c_den < b.len * x->c_num ||
		    b.gain == 0)
			break;
		for (int k = 0; k < b.len; k++)
			if ((rc = free_emit(x, b.seq[k], &par)) < 0)
				return rc;
	}
	/* wing orbits left odd: one quarter turn of one of their slices,
	 * the best for the centers */
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		if (!(par >> k & 1))
			continue;
		int bg = -1, best = -1;
		for (int g = 0; g < F->ngen; g++) {
			if (F->gen[g].wing != 1u << k)
				continue;
			int a = free_gain(F, g);
			if (best < 0 || a > bg)
				bg = a, best = g;
		}
		if (best < 0)
			return SOLVE_ESTAGE;
		if ((rc = free_emit(x, best, &par)) < 0)
			return rc;
	}
	return par ? SOLVE_ESTAGE : 0;
}

/* ------------------------------------------- staged center search */

/* On 4×4 (the X-centers) and 5×5 (the X- and +-centers, every center
 * the cube has) the centers are solved in four steps instead of the
 * greedy phases. Past 5×5 the same four steps solve the rings one after
 * the other: ring k is the X-centers (k, k) and on odd n the +-centers
 * (k, middle), turned by layers 0, k, m-k and m alone, which leave the
 * other rings be. Relabelling layers k and m-k as 1 and m-1 turns ring
 * k into ring 1 place for place and turn for turn (the relabelling
 * commutes with the quarter turns, x -> m-x), so one set of turn maps,
 * made on a model (a 4×4 for even n, a 5×5 for odd: ring 1 with single
 * layers), and one set of tables serve every ring; the turns found are
 * made on layers k and m-k. The oblique macros and 3-cycles finish the
 * obliques. On 7×7 (BAR_ON) ring 2 comes first, then the bars, then
 * ring 1, each ring alone with the outer blocks 0-k and m-k-m too (5×5's
 * turns and tables: see the bars). On 6×6 (ST_JOINT_MAX_N; 7×7 before
 * the bars) rings 1 and 2 take steps
 * A and B one after the other but C1 and C2 together (st_group): the
 * turns are then the single layers 0, 1, 2, m-2, m-1, m and the blocks
 * 0-1, 0-2, 1-2 and their mirrors, and a block acts on each ring as
 * the model's turns of the layers it holds, so its maps are theirs
 * composed and the rings' tables rate the pair (the largest distance of
 * either). Ring 2's turns then serve ring 1 too (a block 1-2 turns
 * both rings' slices at once). Measured, 20 states, centers means:
 * 7×7 159.9 -> 153.2 (263 -> 255 moves, median), 6×6 119 -> 113 (40
 * states: 117.3 -> 112.8, 204 -> 200), for about 0.2 s; past 7×7
 * nothing (9×9 -1, 10×10 +7 moves, 8 states). A and B together were no
 * shorter: B took 21 moves by beam (IDA* ran out of nodes) where one by
 * one it takes 19; C2 together (its IDA* always ran out) is searched by
 * a beam of ST_JBEAM_W (256: as short as 1024, in a quarter the
 * time). Measured (make bench, and bench --reduce 5 N):
 * 7×7 412 -> 354 moves with its outer ring staged, 294 with both; 6×6
 * 257 -> 214 (centers 172 -> 131) at the same time; 8×8 572 -> 529,
 * 9×9 916 -> 756, 13×13 2578 -> 2154, 17×17 4655 -> 4011, 33×33 18622
 * -> 16960 (1.1 s against 0.06 s); 10×10 and 12×12 1% fewer. The
 * steps:
 *   A   every U- and D-coloured center sticker onto U or D, any turn;
 *   B   every L- and R-coloured one onto L or R, with the turns that keep
 *       A (face turns, any turn of the U-D axis, half turns of the
 *       others), and each wing orbit's inner quarter turns even in all
 *       (the parity the oll_parity stage set);
 *   C1  every U and D sticker onto its own face, with the turns that
 *       keep A and B (face turns, half turns of the rest);
 *   C2  every other sticker onto its own face, with the turns that keep
 *       C1 too (face turns, half turns of the U-D axis).
 * The middle slices of 5×5 are left out (they would move the frame's
 * fixed centers). A place of an orbit is one bit of a 24-bit mask
 * (faces in the order U D L R F B, four places each) and a turn maps a
 * mask through three 256-entry tables, one per byte. Pruning tables
 * (distances to the step's goal, breadth-first from it):
 *   A   per orbit, which 8 of 24 places hold U/D colours: C(24,8) =
 *       735,471 states, indexed by the colex rank;
 *   B   per orbit, which 8 of the 16 side places hold L/R colours (the
 *       16-bit mask itself) and the wing parity;
 *   C1  which 4 of the 8 U-D places hold U colours, both orbits at
 *       once: 70 × 70 (exact: C1's turns keep those places among
 *       themselves);
 *   C2  per orbit which 4 of the L-R places hold L and which 4 of the
 *       F-B places F (70 × 70), and each pair for both orbits (70 × 70).
 * A, where h (the largest of the orbits' tables) is weakest against the
 * depth (about 10 where the tables say 6 or 7: IDA* took up to half a
 * second), uses a beam search (st_beam) that keeps the 1024 best states
 * per level; B, C1 and C2 an IDA* search (depth first, deepening), so
 * optimal for their goal. A, B and C1 choose, of the answers of their
 * least depth they find, the one that leaves the next step the least to
 * do by its tables. Measured on 5×5 (10 states): A 10.0 moves, B 8.7,
 * C1 4.3, C2 10.4 (33.4 in all, where the greedy phases took 78).
 * One search of C1 and C2 together (70^3 states per orbit) took
 * millions of nodes to reach its 12 to 15 moves, and a beam got stuck
 * on plateaus of its tables; split in two it is about as long (13.3)
 * and a thousand times cheaper.
 * The tables depend only on the kind of size (st_kind: 4×4, 5×5, even
 * or odd past them). A caller may build all four kinds once
 * (reduce_stage_tables_build, about 0.6 s, 7 MB) and pass them in
 * reduce_limits.stage_tables, as the server and the bench do; without
 * them a solve builds its kind into the work buffer (S->own), shared by
 * its variants and rings: 1.8 MB of tables (4.4 MB with the beam's
 * levels and hash set) and, measured, 0.25 s of a 5×5 solve's 0.7–1 s
 * (A's tables nearly all of it). An IDA* search that runs past its
 * budget hands its step to the beam (st_beam); when that finds nothing
 * within ST_BEAM_DEPTH the step gives up, and the greedy phases and 3-cycles finish from where it
 * stopped: on 4×4 and 5×5 all the centers, past them that ring (its wing
 * orbit made even again at once, as past FREE_MAX_N nothing else would)
 * while the next rings are staged as before. */

static struct stagew *stagew_of(struct ctx *x)
{
	return (struct stagew *)(void *)((unsigned char *)x->w +
					 stage_offset(x->n));
}

static inline uint32_t st_map(const uint32_t (*p)[256], uint32_t v)
{
	return p[0][v & 255] | p[1][v >> 8 & 255] | p[2][v >> 16 & 255];
}

/* An orbit's mask after the model's turn g. */
static inline uint32_t st_apply(const struct stagew *S, int o, int g,
				uint32_t v)
{
	return st_map(S->pm[o][g], v);
}

/* The same for turn g of the group searched now. */
static inline uint32_t st_capply(const struct stagew *S, int o, int g,
				 uint32_t v)
{
	return st_map(S->cpm[o][g], v);
}

static inline uint32_t st_rankA(const struct stagew *S, uint32_t v)
{
	uint32_t b0 = v & 255, b1 = v >> 8 & 255, b2 = v >> 16 & 255;
	int k1 = S->pop[b0], k2 = k1 + S->pop[b1];
	if (k2 > 8)
		k2 = 8;
	return S->rank[0][b0][0] + S->rank[1][b1][k1] + S->rank[2][b2][k2];
}

static inline int st_pair(const struct stagew *S, uint32_t a, uint32_t b,
			  int pb)
{
	return S->r70[a >> 8 * pb & 255] * 70 + S->r70[b >> 8 * pb & 255];
}

/* The mask each step looks at. */
static int st_mask(int kind)
{
	return kind < ST_C1 ? kind : 2;
}

/* Which step's tables rate a state, in the state s: the largest
 * distance (*sum: all of them added). */
static int st_h(const struct stagew *S, int kind, const struct ststate *s,
		int *sum)
{
	int h = 0, t = 0, o1 = S->norb - 1;
	for (int j = 0; j < S->nring; j++) {
		const uint32_t *v = s->v[st_mask(kind)] + j * S->norb;
		unsigned par = s->par >> j & 1;
		for (int o = 0; o < S->norb; o++) {
			int d;
			switch (kind) {
			case ST_A: d = S->t->tA[o][st_rankA(S, v[o])]; break;
			case ST_B:
				d = S->t->tB[o][(v[o] >> 8 & 0xffff) |
					     (par ? 0x10000u : 0)];
				break;
			case ST_C1:
				d = o ? 0
				      : S->t->tJ0[st_pair(S, v[0], v[o1], 0)];
				break;
			default:
				d = S->t->tC2[o][S->r70[v[o] >> 8 & 255] * 70 +
					      S->r70[v[o] >> 16 & 255]];
			}
			h = d > h ? d : h;
			t += d;
		}
		if (kind == ST_C2)
			for (int pb = 1; pb <= 2; pb++) {
				int d = S->t->tJ2[pb - 1]
						 [st_pair(S, v[0], v[o1], pb)];
				h = d > h ? d : h;
			}
	}
	if (sum)
		*sum = t;
	return h;
}

/* A step's goal (read from the cube afterwards). */
static int st_goal(const struct stagew *S, int kind, const struct ststate *s)
{
	for (int o = 0; o < S->nto; o++) {
		uint32_t v = s->v[st_mask(kind)][o];
		switch (kind) {
		case ST_A: if (v != 0xff) return 0; break;
		case ST_B: if (v != 0xff00 || s->par) return 0; break;
		case ST_C1: if ((v & 0xff) != 0x0f) return 0; break;
		default: if (v != 0x0f0f0f) return 0;
		}
	}
	return 1;
}

/* A pruning table's state space (st_unrank and st_rank map its indices
 * to mask sets and back). */
struct st_space {
	int kind, orb, pb; /* which table: see st_unrank */
};

/* The tables' state spaces: A an orbit's 24-bit masks of 8 by colex
 * rank (st_bfs walks them in order), B an orbit's side
 * mask and parity, C1 and C2's pair tables two bytes (sp->pb, and with
 * sp->orb < 0 the two orbits' bytes, else one orbit's bytes 1 and 2). */
static void st_unrank(const struct stagew *S, const struct st_space *sp,
		      long i, uint32_t *v, unsigned *par)
{
	*par = 0;
	v[0] = v[1] = 0;
	switch (sp->kind) {
	case ST_B:
		if (S->pop[i & 255] + S->pop[i >> 8 & 255] != 8)
			return;
		v[0] = (uint32_t)(i & 0xffff) << 8;
		*par = (unsigned)(i >> 16);
		break;
	default:
		if (sp->orb < 0) {
			v[0] = (uint32_t)S->u70[i / 70] << 8 * sp->pb;
			v[1] = (uint32_t)S->u70[i % 70] << 8 * sp->pb;
		} else {
			v[0] = (uint32_t)S->u70[i / 70] << 8 |
			       (uint32_t)S->u70[i % 70] << 16 | 0x0f;
		}
	}
}

static long st_rank(const struct stagew *S, const struct st_space *sp,
		    const uint32_t *v, unsigned par)
{
	switch (sp->kind) {
	case ST_A: return st_rankA(S, v[0]);
	case ST_B: return (long)(v[0] >> 8 & 0xffff) | (par ? 0x10000L : 0);
	default:
		if (sp->orb < 0)
			return st_pair(S, v[0], v[1], sp->pb);
		return S->r70[v[0] >> 8 & 255] * 70 + S->r70[v[0] >> 16 & 255];
	}
}

/* Breadth-first over a table's states (index → mask set → index
 * through the step's turns, bit): t[i] the distance from the goal
 * (index goal). */
static void st_bfs(struct stagew *S, uint8_t *t, long size, long total,
		   long goal, int bit, const struct st_space *sp)
{
	memset(t, ST_UNSEEN, (size_t)size);
	t[goal] = 0;
	long seen = 1, frontier = 1;
	for (int d = 0; d < ST_UNSEEN - 1 && seen < total; d++) {
		/* forward from the frontier while it is small (under a
		 * quarter of the unseen states), then back from each unseen
		 * state: one neighbour at d is enough (5×5's A tables 0.43
		 * -> 0.25 s against switching at a half) */
		int back = 4 * frontier > total - seen;
		long added = 0;
		uint32_t comb = 0xff; /* A: the mask of rank i, walked along */
		for (long i = 0; i < size; i++) {
			if (sp->kind == ST_A && i > 0) {
				/* the next larger number with as many bits:
				 * colex order is numeric order */
				uint32_t low = comb & (0u - comb), r = comb + low;
				comb = (((r ^ comb) >> 2) / low) | r;
			}
			if (back ? t[i] != ST_UNSEEN : t[i] != d)
				continue;
			uint32_t v[ST_ORB], w[ST_ORB];
			unsigned par = 0;
			if (sp->kind == ST_A)
				v[0] = comb, v[1] = 0;
			else
				st_unrank(S, sp, i, v, &par);
			if (!v[0])
				continue;
			for (int g = 0; g < S->nmov; g++) {
				if (!(S->mv[g].cls & bit))
					continue;
				if (sp->orb >= 0) {
					w[0] = st_apply(S, sp->orb, g, v[0]);
				} else {
					w[0] = st_apply(S, 0, g, v[0]);
					w[1] = st_apply(S, S->norb - 1, g, v[1]);
				}
				long j = sp->kind == ST_A
					 ? (long)st_rankA(S, w[0])
					 : st_rank(S, sp, w,
						   par ^ (S->mv[g].wing != 0));
				if (!back && t[j] == ST_UNSEEN) {
					t[j] = (uint8_t)(d + 1), added++;
				} else if (back && t[j] == d) {
					t[i] = (uint8_t)(d + 1), added++;
					break;
				}
			}
		}
		if (!added)
			break;
		seen += added;
		frontier = added;
	}
}

static const int st_face[6] = {CUBE_U, CUBE_D, CUBE_L, CUBE_R, CUBE_F,
			       CUBE_B};

/* The moves, their maps on each orbit's masks, the rank tables and the
 * pruning tables. */
/* The places of ring k (its X-centers, and on odd n its +-centers), on
 * the cube. */
static void st_places(uint16_t (*place)[NPOS][3], int norb, int k, int m)
{
	for (int o = 0; o < norb; o++) {
		int p = k, q = o == 0 ? p : m / 2;
		for (int i = 0; i < 6; i++) {
			const int rc[4][2] = {{p, q}, {q, m - p},
					      {m - p, m - q}, {m - q, p}};
			for (int j = 0; j < 4; j++) {
				place[o][4 * i + j][0] = (uint16_t)st_face[i];
				place[o][4 * i + j][1] = (uint16_t)rc[j][0];
				place[o][4 * i + j][2] = (uint16_t)rc[j][1];
			}
		}
	}
}

/* The steps turn M may serve, from its map of an orbit's places (to[i]:
 * where the sticker at i goes): B keeps the U-D places a set, C1 each
 * face pair, C2 also U's places. */
static void st_classes(struct stmove *M, const uint8_t *to)
{
	int keep_ud = 1, keep_pairs = 1, keep_u = 1;
	for (int i = 0; i < NPOS; i++) {
		if ((i < 8) != (to[i] < 8))
			keep_ud = 0;
		if (i / 8 != to[i] / 8)
			keep_pairs = 0;
		if ((i < 4) != (to[i] < 4))
			keep_u = 0;
	}
	if (!keep_ud)
		M->cls &= (uint8_t)~(1 << ST_B);
	if (!keep_pairs)
		M->cls &= (uint8_t)~(1 << ST_C1 | 1 << ST_C2);
	if (!keep_u)
		M->cls &= (uint8_t)~(1 << ST_C2);
}

/* The layer sets turned on each axis, for size n (m = n - 1 on the
 * cube, or the model's): the single layers 0, k, m-k, m of each ring
 * (k1 alone, or k1 < k2), then blocks: on 4×4 and 5×5 the outer blocks
 * of two, and on 7×7 (BAR_ON) ring k's 0-k and m-k-m (not past them:
 * on ring k they would turn the layers of ring k-1, and without them
 * ring 1's tables serve every ring; on 7×7 before the bars, 8 states,
 * 306.8 moves with them, 304.0 without, 10% less time; with the bars
 * ring k-1 is free while ring k is searched, or kept whole) and on
 * 4×4 the inner one; for rings 1 and 2 together the blocks 0-1, 0-2,
 * 1-2 and their mirrors (no block reaches a ring the group does not
 * hold); never a middle slice. Returns how many. */
static int st_sets(int n, int m, int nring, int k1, int k2, int (*sets)[2])
{
	int ns = 0;
	const int one[4] = {0, k1, m - k1, m},
		  two[6] = {0, k1, k2, m - k2, m - k1, m};
	for (int k = 0; k < (nring == 2 ? 6 : 4); k++)
		sets[ns][0] = sets[ns][1] = nring == 2 ? two[k] : one[k], ns++;
	if (n <= 5 || (BAR_ON(n) && nring == 1)) {
		sets[ns][0] = 0, sets[ns][1] = k1, ns++;
		sets[ns][0] = m - k1, sets[ns][1] = m, ns++;
	}
	if (n == 4)
		sets[ns][0] = 1, sets[ns][1] = 2, ns++;
	if (nring == 2 && k1 == 1 && k2 == 2) {
		const int b[6][2] = {{0, 1}, {0, 2}, {1, 2}, {m - 2, m - 1},
				     {m - 2, m}, {m - 1, m}};
		for (int k = 0; k < 6; k++)
			sets[ns][0] = b[k][0], sets[ns][1] = b[k][1], ns++;
	}
	return ns;
}

/* Turn g: quarter turns qt of layer set s (lo..hi) on axis; serving
 * every step until its maps say otherwise. */
static struct stmove st_turn(int axis, int s, const int *set, int qt)
{
	struct stmove M = {(uint8_t)axis, (uint8_t)qt, (uint8_t)set[0],
			   (uint8_t)set[1], (uint8_t)s,
			   (uint8_t)((1 << ST_STEPS) - 1), 0};
	return M;
}

/* The turns (on the model: a 4×4 for even n, a 5×5 for odd), their
 * maps on each orbit's masks, the rank tables and the pruning tables. */
static int st_build(struct ctx *x)
{
	struct stagew *S = stagew_of(x);
	int n = x->n;
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	int nm = n <= 5 ? n : n % 2 ? 5 : 4, m = nm - 1;
	S->n = n;
	S->nm = nm;
	S->norb = n % 2 ? 2 : 1;
	uint16_t place[ST_ORB][NPOS][3];
	st_places(place, S->norb, 1, m);
	int sets[12][2], ns = st_sets(BAR_ON(n) ? 5 : n, m, 1, 1, 0, sets);
	S->nmov = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int s = 0; s < ns; s++)
			for (int qt = 1; qt <= 3; qt++) {
				int g = S->nmov++;
				struct stmove *M = &S->mv[g];
				*M = st_turn(axis, s, sets[s], qt);
				for (int l = M->lo; l <= M->hi; l++)
					if (qt % 2 && l > 0 && l < m)
						M->wing ^= 1u << (l < m - l ? l : m - l);
				for (int o = 0; o < S->norb; o++) {
					uint8_t to[NPOS];
					cube_init(sim, nm);
					for (int i = 0; i < NPOS; i++)
						cube__set(sim, place[o][i][0],
							  place[o][i][1],
							  place[o][i][2], 6 + i);
					cube_turn(sim, axis, M->lo, M->hi, qt);
					for (int i = 0; i < NPOS; i++) {
						int v = cube_get(sim, place[o][i][0],
								 place[o][i][1],
								 place[o][i][2]) - 6;
						if (v < 0 || v >= NPOS)
							return SOLVE_ESTAGE;
						to[v] = (uint8_t)i;
					}
					for (int b = 0; b < 3; b++)
						for (int byte = 0; byte < 256; byte++) {
							uint32_t r = 0;
							for (int j = 0; j < 8; j++)
								if (byte >> j & 1)
									r |= 1u << to[8 * b + j];
							S->pm[o][g][b][byte] = r;
						}
					st_classes(M, to);
				}
			}
	/* colex ranks: the k-th set bit (from 1) at place p counts C(p, k) */
	uint32_t binom[25][10];
	for (int a = 0; a <= 24; a++)
		for (int k = 0; k <= 9; k++)
			binom[a][k] = k == 0 ? 1 : a == 0 ? 0
				      : binom[a - 1][k - 1] + binom[a - 1][k];
	for (int byte = 0; byte < 256; byte++) {
		int c = 0;
		for (int j = 0; j < 8; j++)
			c += byte >> j & 1;
		S->pop[byte] = (uint8_t)c;
	}
	for (int b = 0; b < 3; b++)
		for (int byte = 0; byte < 256; byte++)
			for (int k = 0; k <= 8; k++) {
				uint32_t r = 0;
				int i = k;
				for (int j = 0; j < 8; j++)
					if (byte >> j & 1) {
						i++;
						if (i <= 9)
							r += binom[8 * b + j][i];
					}
				S->rank[b][byte][k] = r;
			}
	int k70 = 0;
	memset(S->r70, 0, sizeof S->r70);
	for (int byte = 0; byte < 256; byte++)
		if (S->pop[byte] == 4) {
			S->r70[byte] = (uint8_t)k70;
			S->u70[k70++] = (uint8_t)byte;
		}
	S->built = 1;
	const struct st_shared *sh = x->lim ? x->lim->stage_tables : NULL;
	if (sh) {
		if (sh->magic != ST_MAGIC || sh->size != sizeof *sh)
			return SOLVE_ETABLES;
		S->t = &sh->kind[st_kind(n)];
		return 0;
	}
	struct st_tables *T = &S->own;
	int g0f = S->r70[0x0f] * 70 + S->r70[0x0f];
	for (int o = 0; o < S->norb; o++) {
		struct st_space a = {ST_A, o, 0}, b = {ST_B, o, 0},
				c = {ST_C2, o, 0};
		st_bfs(S, T->tA[o], ST_NA, ST_NA, 0, 1 << ST_A, &a);
		st_bfs(S, T->tB[o], ST_NB, 2 * 12870, 0xff, 1 << ST_B, &b);
		st_bfs(S, T->tC2[o], ST_NP, ST_NP, g0f, 1 << ST_C2, &c);
	}
	struct st_space j0 = {ST_C1, -1, 0}, j1 = {ST_C2, -1, 1},
			j2 = {ST_C2, -1, 2};
	st_bfs(S, T->tJ0, ST_NP, ST_NP, g0f, 1 << ST_C1, &j0);
	st_bfs(S, T->tJ2[0], ST_NP, ST_NP, g0f, 1 << ST_C2, &j1);
	st_bfs(S, T->tJ2[1], ST_NP, ST_NP, g0f, 1 << ST_C2, &j2);
	S->t = T;
	return 0;
}

_Static_assert(BAR_BWE <= BAR_LANES && BAR_BW <= BAR_LANES, "bar lanes");
_Static_assert(ST_BEAM <= 1024 && ST_JMOVES <= 128, "st_beam's cand");

/* The model's single-layer turn (axis, model layer, quarter turns). */
static int st_model_turn(const struct stagew *S, int axis, int layer, int qt)
{
	for (int g = 0; g < S->nmov; g++) {
		const struct stmove *M = &S->mv[g];
		if (M->axis == axis && M->lo == layer && M->hi == layer &&
		    M->qt == qt)
			return g;
	}
	return -1;
}

/* Turn g of the group on ring j (its j-th): the model's turns of the
 * layers it holds of 0, k, m-k, m (relabelled 0, 1, mm-1, mm), their
 * maps composed (they commute: one axis), its wing flip and the steps
 * it may serve. */
static int st_compose(struct stagew *S, int g, int j, int m)
{
	struct stmove *M = &S->cmv[g];
	int k = S->rk[j], mm = S->nm - 1, mg[4], nl = 0;
	const int real[4] = {0, k, m - k, m}, model[4] = {0, 1, mm - 1, mm};
	for (int i = 0; i < 4; i++) {
		if (real[i] < M->lo || real[i] > M->hi)
			continue;
		if ((mg[nl] = st_model_turn(S, M->axis, model[i], M->qt)) < 0)
			return SOLVE_ESTAGE;
		if (S->mv[mg[nl++]].wing)
			M->wing ^= 1u << j;
	}
	for (int o = 0; o < S->norb; o++) {
		int jo = j * S->norb + o;
		uint8_t to[NPOS];
		for (int b = 0; b < 3; b++)
			for (int byte = 0; byte < 256; byte++) {
				uint32_t v = (uint32_t)byte << 8 * b;
				for (int i = 0; i < nl; i++)
					v = st_apply(S, o, mg[i], v);
				S->cpm[jo][g][b][byte] = v;
			}
		for (int i = 0; i < NPOS; i++) {
			uint32_t v = st_capply(S, jo, g, 1u << i);
			to[i] = 0;
			while (!(v >> to[i] & 1))
				to[i]++;
		}
		st_classes(M, to);
	}
	return 0;
}

/* Set up the group searched from now on: ring k1 alone (nring 1), or
 * rings k1 < k2 together. Their orbits' places on the cube, and the
 * turns on the layer sets of st_sets. A ring alone has the model's
 * turns in the model's order, so its searches are the same as on the
 * model. */
static int st_group(struct ctx *x, int nring, int k1, int k2)
{
	struct stagew *S = stagew_of(x);
	int m = x->m, n = x->n, rc;
	S->nring = nring;
	S->rk[0] = k1;
	S->rk[1] = k2;
	S->nto = nring * S->norb;
	for (int j = 0; j < nring; j++)
		st_places(S->place + j * S->norb, S->norb, S->rk[j], m);
	int sets[12][2], ns = st_sets(n, m, nring, k1, k2, sets);
	S->cnmov = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int s = 0; s < ns; s++)
			for (int qt = 1; qt <= 3; qt++) {
				int g = S->cnmov++;
				S->cmv[g] = st_turn(axis, s, sets[s], qt);
				for (int j = 0; j < nring; j++)
					if ((rc = st_compose(S, g, j, m)) < 0)
						return rc;
			}
	return 0;
}

static void st_read(struct ctx *x, const struct stagew *S, struct ststate *s)
{
	int cU = x->tcol[CUBE_U], cD = x->tcol[CUBE_D], cL = x->tcol[CUBE_L],
	    cR = x->tcol[CUBE_R], cF = x->tcol[CUBE_F];
	s->par = 0;
	for (int o = 0; o < S->nto; o++) {
		s->v[0][o] = s->v[1][o] = s->v[2][o] = 0;
		for (int i = 0; i < NPOS; i++) {
			const uint16_t *p = S->place[o][i];
			int col = cube_get(x->c, p[0], p[1], p[2]);
			s->v[0][o] |= (uint32_t)(col == cU || col == cD) << i;
			s->v[1][o] |= (uint32_t)(col == cL || col == cR) << i;
			s->v[2][o] |= (uint32_t)(col == cU || col == cL ||
						 col == cF) << i;
		}
	}
}

/* Turn g on the masks step kind looks at, and with next those the next
 * step looks at. */
static void st_move(const struct stagew *S, int kind, int next, int g,
		    const struct ststate *s, struct ststate *c)
{
	int k0 = st_mask(kind),
	    k1 = st_mask(next && kind + 1 < ST_STEPS ? kind + 1 : kind);
	*c = *s;
	for (int o = 0; o < S->nto; o++) {
		c->v[k0][o] = st_capply(S, o, g, s->v[k0][o]);
		if (k1 != k0)
			c->v[k1][o] = st_capply(S, o, g, s->v[k1][o]);
	}
	c->par = s->par ^ S->cmv[g].wing;
}

/* How an answer of a step leaves the next: the next step's largest
 * table distance, then their sum (0 after the last step). */
static int st_rate(const struct stagew *S, int kind, const struct ststate *s)
{
	if (kind + 1 >= ST_STEPS)
		return 0;
	int sum, h = st_h(S, kind + 1, s, &sum);
	return 32 * h + sum;
}

/* The order turns are tried in: turns of one axis commute, so they come
 * in increasing layer-set order. */
static int st_skip(const struct stagew *S, int kind, int prev, int g)
{
	const struct stmove *M = &S->cmv[g];
	return !(M->cls & 1 << kind) ||
	       (prev >= 0 && M->axis == S->cmv[prev].axis &&
		M->ls <= S->cmv[prev].ls);
}

struct stsearch {
	struct ctx *x;
	const struct stagew *S;
	int kind;
	long nodes, budget;
	int stopped; /* 1 budget, 2 the caller's poll */
	struct ststate root;
	int path[ST_DEPTH + 1];
	int best_len, best_rate;
	int best[ST_DEPTH + 1];
	int bars;  /* rate answers by the obliques they leave unpaired */
	int edges; /* or by the edge pieces */
};

static int bar_rate(struct ctx *x, const int *path, int len);
static int edge_rate(struct ctx *x, const int *path, int len);

/* The cube as the group's turns path[0..len) would leave it (in the
 * scratch cube), for rating an answer by what the next stage sees. */
static const cube_t *st_after(struct ctx *x, const int *path, int len)
{
	const struct stagew *S = stagew_of(x);
	cube_t *sim = (cube_t *)(void *)x->w->sim;
	cube_copy(sim, x->c);
	for (int d = 0; d < len; d++) {
		const struct stmove *M = &S->cmv[path[d]];
		cube__turn_generic(sim, M->axis, M->lo, M->hi, M->qt);
	}
	return sim;
}

/* IDA*'s depth-first pass to bound. Every answer found is rated; once
 * one is, the pass goes on for at most ST_PICK more nodes. 0, or -1
 * stopped (by the budget: answers found stand). */
static int st_dfs(struct stsearch *z, const struct ststate *s, int depth,
		  int bound, int prev)
{
	const struct stagew *S = z->S;
	int h = st_h(S, z->kind, s, NULL);
	if (h > bound - depth)
		return 0;
	if (h == 0 && st_goal(S, z->kind, s)) {
		int r;
		if (z->bars) {
			r = bar_rate(z->x, z->path, depth);
		} else if (z->edges) {
			r = edge_rate(z->x, z->path, depth);
		} else {
			/* the next step's masks: the answer made again from
			 * the root (the search itself only turns this
			 * step's) */
			struct ststate e = z->root, f;
			for (int d = 0; d < depth; d++) {
				st_move(S, z->kind, 1, z->path[d], &e, &f);
				e = f;
			}
			r = st_rate(S, z->kind, &e);
		}
		if (z->best_len < 0 && z->nodes + ST_PICK < z->budget)
			z->budget = z->nodes + ST_PICK;
		if (z->best_len < 0 || r < z->best_rate) {
			z->best_len = depth;
			z->best_rate = r;
			memcpy(z->best, z->path, sizeof z->best);
			z->best[depth] = -1;
		}
		return r == 0 ? -1 : 0;
	}
	if (depth == bound)
		return 0;
	if (++z->nodes > z->budget) {
		z->stopped = 1;
		return -1;
	}
	if ((z->nodes & 0xffff) == 0 && poll_now(z->x)) {
		z->stopped = 2;
		return -1;
	}
	for (int g = 0; g < S->cnmov; g++) {
		if (st_skip(S, z->kind, prev, g))
			continue;
		struct ststate c;
		st_move(S, z->kind, 0, g, s, &c);
		z->path[depth] = g;
		if (st_dfs(z, &c, depth + 1, bound, g) < 0)
			return -1;
	}
	return 0;
}

/* A beam node's path walked back to the root: path[0 .. depth) then -1. */
static void st_beam_path(const struct stagew *S, int depth, int i, int g,
			 int *path)
{
	path[depth + 1] = -1;
	path[depth] = g;
	for (int d = depth; d > 0; d--) {
		path[d - 1] = S->beam[d][i].move;
		i = S->beam[d][i].parent;
	}
}

static uint64_t st_key(const struct stagew *S, const struct ststate *c,
		       int mk)
{
	uint64_t key = 1;
	for (int o = 0; o < S->nto; o++)
		key = key * 0x9e3779b97f4a7c15ull ^ c->v[mk][o];
	/* the parities above bit 0, which marks a slot taken */
	return (key * 0x9e3779b97f4a7c15ull ^ (uint64_t)c->par << 1) | 1;
}

/* Whether key is in the hash set; *slot: where it is or would go. */
static int st_seen(const struct stagew *S, uint64_t key, uint32_t *slot)
{
	uint32_t hs = (uint32_t)(key >> 40) & (ST_HASH - 1);
	while (S->seen[hs]) {
		if (S->seen[hs] == key) {
			*slot = hs;
			return 1;
		}
		hs = (hs + 1) & (ST_HASH - 1);
	}
	*slot = hs;
	return 0;
}

/* Beam search: level by level, every child of the kept states (in the
 * search's turn order, each state once over all levels, so the beam
 * moves on off a plateau of its tables) scored by the step's tables (the
 * largest distance, then the sum), the ST_BEAM best kept. The first
 * level that reaches the goal ends it: of the states there that do, the
 * one that st_rate likes best (the next step's masks made again along
 * its path; the beam turns only this step's). Writes the turns to path
 * (ending -1); 1 found, 0 not within ST_BEAM_DEPTH, -1 the caller's
 * poll. */
static int st_beam(struct ctx *x, int kind, const struct ststate *root,
		   int *path)
{
	struct stagew *S = stagew_of(x);
	int nb = 1, mk = st_mask(kind);
	long width = S->nring == 2 ? ST_JBEAM_W : ST_BEAM;
	if (st_goal(S, kind, root)) {
		path[0] = -1;
		return 1;
	}
	struct stnode *b0 = &S->beam[0][0];
	memcpy(b0->v, root->v, sizeof b0->v);
	b0->par = (uint8_t)root->par;
	b0->move = 255;
	b0->parent = 0;
	memset(S->seen, 0, sizeof S->seen);
	for (int depth = 0; depth < ST_BEAM_DEPTH; depth++) {
		long hist[1024];
		memset(hist, 0, sizeof hist);
		int best_rate = -1, nc = 0;
		/* every child once: scored, and rated if a goal */
		for (int i = 0; i < nb; i++) {
			const struct stnode *p = &S->beam[depth][i];
			int prev = p->move == 255 ? -1 : p->move;
			struct ststate ps, c;
			memcpy(ps.v, p->v, sizeof ps.v);
			ps.par = p->par;
			for (int g = 0; g < S->cnmov; g++) {
				if (st_skip(S, kind, prev, g))
					continue;
				st_move(S, kind, 0, g, &ps, &c);
				uint32_t slot;
				if (st_seen(S, st_key(S, &c, mk), &slot))
					continue;
				int sum, h = st_h(S, kind, &c, &sum);
				int sc = 32 * h + sum;
				sc = sc > 1023 ? 1023 : sc;
				hist[sc]++;
				S->cand[nc++] = (uint32_t)sc << 17 |
						(uint32_t)i << 7 | (uint32_t)g;
				if (h || !st_goal(S, kind, &c))
					continue;
				int tp[ST_BEAM_DEPTH + 2];
				st_beam_path(S, depth, i, g, tp);
				struct ststate e = *root, f;
				for (int d = 0; tp[d] >= 0; d++) {
					st_move(S, kind, 1, tp[d], &e, &f);
					e = f;
				}
				int r = st_rate(S, kind, &e);
				if (best_rate < 0 || r < best_rate) {
					best_rate = r;
					memcpy(path, tp, (size_t)(depth + 2) *
							 sizeof *path);
				}
			}
		}
		if (best_rate >= 0)
			return 1;
		/* the best ST_BEAM: all below the threshold score, and at it
		 * as many as there is room for */
		long acc = 0;
		int threshold = 0;
		for (; threshold < 1023; threshold++) {
			if (acc + hist[threshold] >= width)
				break;
			acc += hist[threshold];
		}
		int limit = (int)(width - acc), kept = 0;
		for (int k = 0; k < nc; k++) {
			int sc = (int)(S->cand[k] >> 17),
			    i = (int)(S->cand[k] >> 7 & 1023),
			    g = (int)(S->cand[k] & 127);
			if (sc > threshold || (sc == threshold && limit <= 0))
				continue;
			const struct stnode *p = &S->beam[depth][i];
			struct ststate ps, c;
			memcpy(ps.v, p->v, sizeof ps.v);
			ps.par = p->par;
			st_move(S, kind, 0, g, &ps, &c);
			uint32_t slot;
			if (st_seen(S, st_key(S, &c, mk), &slot))
				continue; /* twice among this level's */
			S->seen[slot] = st_key(S, &c, mk);
			if (sc == threshold)
				limit--;
			struct stnode *q = &S->beam[depth + 1][kept++];
			memcpy(q->v, c.v, sizeof q->v);
			q->par = (uint8_t)c.par;
			q->move = (uint8_t)g;
			q->parent = (uint16_t)i;
		}
		nb = kept;
		if (nb == 0)
			return 0;
		if (poll_now(x))
			return -1;
	}
	return 0;
}

/* The group's wing parities (bit j: ring j's) of the cube's (bit k:
 * wing orbit k's). */
/* The wing orbits whose parity turning layers lo..hi qt quarter turns
 * flips (bit k: orbit k): each inner layer off the middle, on odd qt. */
static unsigned turn_par(int m, int lo, int hi, int qt)
{
	unsigned p = 0;
	for (int l = lo; l <= hi && qt % 2; l++)
		if (l > 0 && l < m && 2 * l != m)
			p ^= 1u << (l < m - l ? l : m - l);
	return p;
}

static unsigned st_par(const struct stagew *S, unsigned par)
{
	unsigned p = 0;
	for (int j = 0; j < S->nring; j++)
		p |= (par >> S->rk[j] & 1) << j;
	return p;
}

/* One step searched and made on the cube, simplified as a segment, its
 * goal checked on the cube. Returns 1 done, 0 gave up (budget), or an
 * error. */
static int st_step(struct ctx *x, int kind, unsigned *par, int *len)
{
	struct stagew *S = stagew_of(x);
	struct ststate s;
	st_read(x, S, &s);
	s.par = st_par(S, *par);
	int path[ST_BEAM_DEPTH + 1], found = 0;
	if ((S->nring == 2 ? ST_JBEAM_STEPS : ST_BEAM_STEPS) >> kind & 1) {
		found = st_beam(x, kind, &s, path);
		if (found < 0)
			return SOLVE_ENOTFOUND;
	} else {
		struct stsearch z;
		memset(&z, 0, sizeof z);
		z.x = x;
		z.S = S;
		z.kind = kind;
		z.budget = ST_BUDGET;
		z.best_len = -1;
		/* ring 2's last step on 7×7: of its answers, the one that
		 * leaves the bars the most paired */
		z.bars = BAR_ON(x->n) && BAR_RATE && S->nring == 1 &&
			 S->rk[0] == 2 && kind == ST_C2;
		/* the centers' last step, up to 5×5 and on 7×7: the answer
		 * that leaves the edges the most paired */
		z.edges = x->erate && S->nring == 1 && S->rk[0] == 1 &&
			  kind == ST_C2;
		z.root = s;
		for (int bound = st_h(S, kind, &s, NULL);
		     bound <= ST_DEPTH && z.best_len < 0; bound++) {
			st_dfs(&z, &s, 0, bound, -1);
			if (z.stopped == 2)
				return SOLVE_ENOTFOUND;
			if (z.stopped && z.best_len < 0)
				break;
		}
		x->st_nodes += z.nodes;
		if (z.best_len >= 0) {
			memcpy(path, z.best, sizeof z.best);
			found = 1;
		} else {
			/* out of nodes: the beam instead */
			found = st_beam(x, kind, &s, path);
			if (found < 0)
				return SOLVE_ENOTFOUND;
		}
	}
	if (!found)
		return 0;
	size_t start = x->count;
	for (int d = 0; path[d] >= 0; d++) {
		const struct stmove *M = &S->cmv[path[d]];
		int rc = emit_block(x, M->axis, M->lo, M->hi, M->qt);
		if (rc < 0)
			return rc;
		*par ^= turn_par(x->m, M->lo, M->hi, M->qt);
	}
	size_t nk = moves_simplify(x->out + start, x->count - start);
	x->count = start + moves_merge_blocks(x->out + start, nk, x->n);
	*len = (int)(x->count - start);
	st_read(x, S, &s);
	s.par = st_par(S, *par);
	return st_goal(S, kind, &s) ? 1 : SOLVE_ESTAGE;
}

/* Ring k's four steps alone. Returns 1 when done, 0 when a step gave
 * up (past 5×5 with the ring's wing orbit made even again: the 3-cycles
 * finish the ring, and past FREE_MAX_N nothing else would), or an
 * error. */
static int st_ring(struct ctx *x, int k, unsigned *par)
{
	int rc;
	if ((rc = st_group(x, 1, k, 0)) < 0)
		return rc;
	for (int kind = ST_A; kind < ST_STEPS; kind++) {
		rc = st_step(x, kind, par, &x->split[kind]);
		if (rc != 0)
			continue;
		if (x->n > 5 && *par >> k & 1) {
			if ((rc = emit(x, 0, k, 1)) < 0)
				return rc;
			*par ^= 1u << k;
		}
		return 0;
	}
	return 1;
}

static int bar_pair(struct ctx *x, unsigned *par);

/* The four steps. Returns 1 when every center is solved, 0 when a step
 * gave up (the greedy phases go on from there, x->cpar holding the wing
 * parities so far), or an error. */
static int staged_centers(struct ctx *x)
{
	int rc;
	unsigned par = 0;
	struct stagew *S = stagew_of(x);
	/* the tables take a quarter of a second: ask first */
	if (!S->built && poll_now(x))
		return SOLVE_ENOTFOUND;
	if (!S->built && (rc = st_build(x)) < 0)
		return rc;
	int rings = x->n <= 5 ? 1 : wing_orbits(x->n), k = 1;
	if (rings >= 2 && x->n <= ST_JOINT_MAX_N && !BAR_ON(x->n)) {
		/* rings 1 and 2: steps A and B one ring after the other,
		 * C1 and C2 both together; if a step gives up, ring by ring
		 * from where it stopped */
		int kind = ST_C1, len;
		for (int j = 1; j <= 2 && kind == ST_C1; j++) {
			if ((rc = st_group(x, 1, j, 0)) < 0)
				return rc;
			for (kind = ST_A; kind < ST_C1; kind++) {
				if ((rc = st_step(x, kind, &par, &len)) < 0)
					return rc;
				if (rc == 0)
					break;
			}
		}
		if (kind == ST_C1 && (rc = st_group(x, 2, 1, 2)) < 0)
			return rc;
		for (; kind == ST_C1 || kind == ST_C2; kind++) {
			if ((rc = st_step(x, kind, &par, &len)) < 0)
				return rc;
			if (rc == 0)
				break;
		}
		if (kind == ST_STEPS)
			k = 3;
	}
	if (BAR_ON(x->n)) {
		/* ring 2 (if it gives up, the 3-cycles finish it and the
		 * bars wait for them), the bars, ring 1 */
		if ((rc = st_ring(x, 2, &par)) < 0)
			return rc;
		if (rc == 1 && (rc = bar_pair(x, &par)) < 0)
			return rc;
		rings = 1;
	}
	for (; k <= rings; k++) {
		rc = st_ring(x, k, &par);
		if (rc < 0 || (rc == 0 && x->n <= 5)) {
			x->cpar = par;
			memset(x->split, 0, sizeof x->split);
			return rc;
		}
	}
	if (x->n > 5) {
		/* the obliques are the greedy phases' */
		x->cpar = par;
		memset(x->split, 0, sizeof x->split);
		return 0;
	}
	return 1;
}

/* ------------------------------------------------- the oblique macros */

/* The obliques (center orbits (p, q), p < q, q off the middle) are the
 * last centers solved: every other orbit is solved by then, so a turn
 * may only serve them inside a commutator that puts the rest back. One
 * at a time, the 3-cycles of solve_orbit take about 8 moves for 2 to 3
 * stickers. The orbits (p, q) and (p, m-q) are turned by the same four
 * inner layers p, q, m-q, m-p, and so are solved together here with
 * commutators [P Q P', Y] where P is one slice or two parallel ones, Q
 * one or two slices across them (not both two) and Y a face turn on
 * Q's axis: one slice each gives a 3-cycle (8 moves), two give two
 * 3-cycles at once (10 or 12 moves), up to six stickers. The macros are
 * found on a 7×7 model (layers 0, 1, 2, 4, 5, 6 standing for 0, p, q,
 * m-q, m-p, m; the relabelling keeps x -> m-x, so turns and places
 * correspond one for one) by composing their turns' maps of the 150
 * center places and keeping those that move obliques alone: 8,460
 * maps, in about 10 ms. Conjugated by at most one turn they are 465,000
 * candidates, 131,000 maps once the same map is kept once (the
 * cheapest), set up once per solve. A greedy step takes the candidate
 * that puts the most stickers right per move (less the turns that merge
 * with the previous step's), while one does; up to 7×7 a beam keeps the
 * OM_BW best states of each step (moves made plus OM_BR per sticker
 * still wrong), each grown by its OM_LOOK best candidates, and the
 * answer is the state past which nothing gains with the fewest moves
 * (4 per sticker left counted for the 3-cycles). solve_orbit's 3-cycles
 * finish. A step weighs every candidate, so a solve stops weighing past
 * OM_BUDGET (deterministic, unlike a clock) and leaves the rest to the
 * 3-cycles: 17×17 and 33×33 then keep to about a second and two.
 * Measured (bench --reduce): 6×6 220 -> 205 moves (6×6 has one such
 * pair, (1, 2) and (1, 3)), 7×7 279 -> 263, 10×10 1188 -> 1064,
 * 17×17 4011 -> 3206, 33×33 17094 -> 16256; on random oblique states of
 * 7×7 (a simulation of the first greedy) the macros took 117 moves
 * where 3-cycles alone with the same set-ups took 148. Tried and left
 * out: Y an inner slice too, Q a face too (no change), set-ups of face
 * turns alone (173 center moves on 7×7 against 163), the 16 best with
 * lookahead (no shorter, slower). The beam against one step of
 * lookahead over the 8 best (12 states): 7×7 centers 154.2 -> 152.6,
 * 6×6 112.8 -> 110.6, at about the same time; OM_BR 2 was worse (154.6),
 * 4 or 5, 16 states a step or 16 candidates each no better. */

static const uint8_t om_layers[6] = {0, 1, 2, 4, 5, 6};

static int om_is_obl(int r, int c)
{
	int ro = r == 1 || r == 5, ri = r == 2 || r == 4;
	int co = c == 1 || c == 5, ci = c == 2 || c == 4;
	return (ro && ci) || (ri && co);
}

static int om_center(int f, int r, int c)
{
	return f * 25 + (r - 1) * 5 + c - 1;
}

/* The model's generators as maps of its center places. */
static int om_gens(struct omlib *L)
{
	cube_t *sim = (cube_t *)(void *)L->sim;
	if (cube_sizeof(7) > sizeof L->sim)
		return -1;
	int g = 0;
	for (int axis = 0; axis < 3; axis++)
		for (int i = 0; i < 6; i++)
			for (int qt = 1; qt <= 3; qt++, g++) {
				int lay = om_layers[i];
				L->gmv[g] = (uint8_t)(axis | lay << 2 | qt << 5);
				L->ginv[g] = (uint8_t)(g + 4 - 2 * qt);
				cube_init(sim, 7);
				for (int f = 0; f < 6; f++)
					for (int r = 1; r <= 5; r++)
						for (int c = 1; c <= 5; c++)
							cube__set(sim, f, r, c,
								  LABEL0 +
								  om_center(f, r, c));
				cube_turn(sim, axis, lay, lay, qt);
				for (int f = 0; f < 6; f++)
					for (int r = 1; r <= 5; r++)
						for (int c = 1; c <= 5; c++) {
							int v = cube_get(sim, f, r, c) -
								LABEL0;
							if (v < 0 || v >= OM_NC)
								return -1;
							L->cperm[g][v] = (uint8_t)
								om_center(f, r, c);
						}
			}
	/* the oblique places, numbered; the generators on them */
	int id[OM_NC], k = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 1; r <= 5; r++)
			for (int c = 1; c <= 5; c++) {
				int t = om_center(f, r, c);
				id[t] = -1;
				if (!om_is_obl(r, c))
					continue;
				L->place[k][0] = (uint8_t)f;
				L->place[k][1] = (uint8_t)r;
				L->place[k][2] = (uint8_t)c;
				id[t] = k++;
			}
	if (k != OM_NPOS)
		return -1;
	for (g = 0; g < MAX_GEN; g++)
		for (int p = 0; p < OM_NPOS; p++) {
			int to = id[L->cperm[g][om_center(L->place[p][0],
							  L->place[p][1],
							  L->place[p][2])]];
			if (to < 0)
				return -1;
			L->gperm[g][p] = (uint8_t)to;
		}
	return 0;
}

static int om_gen_of(int axis, int lay, int qt)
{
	int i = lay < 3 ? lay : lay - 1;
	return (axis * 6 + i) * 3 + qt - 1;
}

/* Pair (u, v) added to map m, u and v renamed by si if given (a
 * conjugation); om_canon once all are in. */
static void om_put(struct ommap *m, int u, int v, const uint8_t *si)
{
	if (si)
		u = si[u], v = si[v];
	m->pv[m->nm++] = (uint16_t)(u * OM_NPOS + v);
}

static void om_canon(struct ommap *m)
{
	for (int j = 1; j < m->nm; j++)
		for (int i = j; i > 0 && m->pv[i - 1] > m->pv[i]; i--) {
			uint16_t t = m->pv[i];
			m->pv[i] = m->pv[i - 1];
			m->pv[i - 1] = t;
		}
}

/* The slot of map m in an open-addressed set of nslot (a power of two)
 * slots over items of stride bytes, each starting with its map: the
 * slot that holds m, or the empty one where it goes. */
static uint32_t om_find(const int32_t *slot, uint32_t nslot,
			const struct ommap *m, const void *items, size_t stride)
{
	uint64_t h = 1469598103934665603ull;
	for (int j = 0; j < m->nm; j++)
		h = (h ^ m->pv[j]) * 1099511628211ull;
	uint32_t i = (uint32_t)(h >> 20) & (nslot - 1);
	for (;; i = (i + 1) & (nslot - 1)) {
		if (slot[i] < 0)
			return i;
		const struct ommap *o = (const struct ommap *)(const void *)(
			(const unsigned char *)items + (size_t)slot[i] * stride);
		if (o->nm == m->nm &&
		    memcmp(o->pv, m->pv, m->nm * sizeof *m->pv) == 0)
			return i;
	}
}

/* Keep macro a unless a macro of the same map, as short, is kept. */
static void om_add(struct omlib *L, const struct omac *a)
{
	uint32_t i = om_find(L->slot, OM_HASH, &a->m, L->mac, sizeof *L->mac);
	if (L->slot[i] >= 0) {
		if (L->mac[L->slot[i]].len > a->len)
			L->mac[L->slot[i]] = *a;
		return;
	}
	if (L->count >= OM_MAX)
		return;
	L->slot[i] = L->count;
	L->mac[L->count++] = *a;
}

static void om_compose(const struct omlib *L, uint8_t *map, const uint8_t *mv,
		       int len)
{
	for (int t = 0; t < OM_NC; t++) {
		int p = t;
		for (int k = 0; k < len; k++)
			p = L->cperm[om_gen_of(mv[k] & 3, mv[k] >> 2 & 7,
					       mv[k] >> 5)][p];
		map[t] = (uint8_t)p;
	}
}

static int om_build(struct omlib *L)
{
	if (om_gens(L) < 0)
		return SOLVE_ESTAGE;
	int id[OM_NC];
	for (int t = 0; t < OM_NC; t++)
		id[t] = -1;
	for (int p = 0; p < OM_NPOS; p++)
		id[om_center(L->place[p][0], L->place[p][1], L->place[p][2])] =
			p;
	memset(L->slot, -1, sizeof L->slot);
	L->count = 0;
	static const uint8_t inner[4] = {1, 2, 4, 5};
	static const uint8_t two[6][2] = {{0, 1}, {0, 2}, {0, 3},
					  {1, 2}, {1, 3}, {2, 3}};
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		/* P: nP slices on axis A; Q: nQ on axis B */
		for (int shape = 0; shape < 3; shape++) {
			int nP = shape == 1 ? 2 : 1, nQ = shape == 2 ? 2 : 1;
			int sets_p = nP == 1 ? 4 : 6, sets_q = nQ == 1 ? 4 : 6;
			int qts_p = nP == 1 ? 3 : 9, qts_q = nQ == 1 ? 3 : 9;
			for (int sp = 0; sp < sets_p; sp++)
			for (int sq = 0; sq < sets_q; sq++)
			for (int tp = 0; tp < qts_p; tp++)
			for (int tq = 0; tq < qts_q; tq++) {
				uint8_t P[2], Q[2], X[6], Xi[6];
				for (int k = 0; k < nP; k++) {
					int lay = inner[nP == 1 ? sp : two[sp][k]];
					int qt = (k ? tp / 3 : tp % 3) + 1;
					P[k] = (uint8_t)(A | lay << 2 | qt << 5);
				}
				for (int k = 0; k < nQ; k++) {
					int lay = inner[nQ == 1 ? sq : two[sq][k]];
					int qt = (k ? tq / 3 : tq % 3) + 1;
					Q[k] = (uint8_t)(B | lay << 2 | qt << 5);
				}
				int xn = 0;
				for (int k = 0; k < nP; k++)
					X[xn] = Xi[xn] = P[k], xn++;
				for (int k = 0; k < nQ; k++) {
					X[xn] = Q[k];
					Xi[xn++] = (uint8_t)((Q[k] & 31) |
							     (4 - (Q[k] >> 5)) << 5);
				}
				for (int k = 0; k < nP; k++, xn++)
					X[xn] = Xi[xn] = (uint8_t)((P[k] & 31) |
						(4 - (P[k] >> 5)) << 5);
				uint8_t xmap[OM_NC], ximap[OM_NC];
				om_compose(L, xmap, X, xn);
				om_compose(L, ximap, Xi, xn);
				for (int fb = 0; fb <= 6; fb += 6)
				for (int b1 = 1; b1 <= 3; b1++) {
					const uint8_t *y = L->cperm[om_gen_of(B, fb, b1)],
						      *yi = L->cperm[om_gen_of(B, fb, 4 - b1)];
					for (int form = 0; form < 2; form++) {
						/* form 0: X Y X' Y'; 1: Y X Y' X' */
						const uint8_t *m1 = form ? y : xmap,
							      *m2 = form ? xmap : y,
							      *m3 = form ? yi : ximap,
							      *m4 = form ? ximap : yi;
						struct omac a;
						int ok = 1;
						a.m.nm = 0;
						for (int t = 0; t < OM_NC && ok; t++) {
							int d = m4[m3[m2[m1[t]]]];
							if (d == t)
								continue;
							if (id[t] < 0 || a.m.nm == OM_MOV)
								ok = 0;
							else
								om_put(&a.m, id[t], id[d],
								       NULL);
						}
						if (!ok || a.m.nm == 0)
							continue;
						om_canon(&a.m);
						uint8_t Y = (uint8_t)(B | fb << 2 | b1 << 5),
							Yi = (uint8_t)(B | fb << 2 |
								       (4 - b1) << 5);
						a.len = 0;
						if (form)
							a.mv[a.len++] = Y;
						for (int k = 0; k < xn; k++)
							a.mv[a.len++] = X[k];
						a.mv[a.len++] = form ? Yi : Y;
						for (int k = 0; k < xn; k++)
							a.mv[a.len++] = Xi[k];
						if (!form)
							a.mv[a.len++] = Yi;
						om_add(L, &a);
					}
				}
			}
		}
	}
	L->built = 1;
	return L->count > 0 ? 0 : SOLVE_ESTAGE;
}

/* Model layer or coordinate (0, 1, 2, 4, 5, 6) on the cube. */
static int om_real(int v, int p, int q, int m)
{
	switch (v) {
	case 0: return 0;
	case 1: return p;
	case 2: return q;
	case 4: return m - q;
	case 5: return m - p;
	default: return m;
	}
}

static int om_emit(struct ctx *x, uint8_t mv, int p, int q, int inverse)
{
	int qt = mv >> 5;
	return emit(x, mv & 3, om_real(mv >> 2 & 7, p, q, x->m),
		    inverse ? 4 - qt : qt);
}

static void om_read(const struct ctx *x, const struct omlib *L, int p, int q,
		    uint8_t *cur)
{
	for (int i = 0; i < OM_NPOS; i++)
		cur[i] = (uint8_t)cube_get(x->c, L->place[i][0],
					   om_real(L->place[i][1], p, q, x->m),
					   om_real(L->place[i][2], p, q, x->m));
}

/* Moves turn a and then b save when merged: 2 if they cancel, 1 if they
 * make one turn, else 0. */
static int om_merge(uint8_t a, uint8_t b)
{
	if ((a & 31) != (b & 31))
		return 0;
	return ((a >> 5) + (b >> 5)) % 4 == 0 ? 2 : 1;
}

static int om_tail_saves(const struct omtail *t, uint8_t mv)
{
	if ((mv & 3) != t->axis || !t->q[mv >> 2 & 7])
		return 0;
	return (t->q[mv >> 2 & 7] + (mv >> 5)) % 4 == 0 ? 2 : 1;
}

static void om_tail_add(struct omtail *t, uint8_t mv)
{
	if ((mv & 3) != t->axis) {
		memset(t, 0, sizeof *t);
		t->axis = mv & 3;
	}
	t->q[mv >> 2 & 7] = (uint8_t)((t->q[mv >> 2 & 7] + (mv >> 5)) % 4);
}

static uint8_t om_inv(uint8_t mv)
{
	return (uint8_t)((mv & 31) | (4 - (mv >> 5)) << 5);
}

static struct omcands *om_cands_of(struct ctx *x)
{
	return (struct omcands *)(void *)((unsigned char *)x->w +
					  om_offset(x->n));
}

/* Every macro with no set-up and with each turn as its set-up, one
 * candidate per map of the places (of the same map, the cheapest, the
 * first found): about 131,000 of 465,000. */
static void om_cands(const struct omlib *L, struct omcands *C)
{
	memset(C->slot, -1, sizeof C->slot);
	C->count = 0;
	for (int s = -1; s < MAX_GEN; s++) {
		const uint8_t *si = s < 0 ? NULL : L->gperm[L->ginv[s]];
		for (int k = 0; k < L->count; k++) {
			const struct omac *a = &L->mac[k];
			struct omcand c;
			c.m.nm = 0;
			for (int j = 0; j < a->m.nm; j++)
				om_put(&c.m, a->m.pv[j] / OM_NPOS,
				       a->m.pv[j] % OM_NPOS, si);
			om_canon(&c.m);
			int cost = a->len;
			if (s >= 0)
				cost += 2 - om_merge(L->gmv[s], a->mv[0]) -
					om_merge(a->mv[a->len - 1],
						 om_inv(L->gmv[s]));
			c.cost = (uint8_t)(cost < 1 ? 1 : cost);
			c.first = s < 0 ? a->mv[0] : L->gmv[s];
			c.s = (int8_t)s;
			c.k = (uint16_t)k;
			uint32_t i = om_find(C->slot, OM_CHASH, &c.m, C->c,
					     sizeof *C->c);
			if (C->slot[i] >= 0) {
				if (c.cost < C->c[C->slot[i]].cost)
					C->c[C->slot[i]] = c;
			} else if (C->count < OM_CMAX) {
				C->slot[i] = C->count;
				C->c[C->count++] = c;
			}
		}
	}
}

/* w[u·48 + v]: what moving the sticker at u to v gains, the stickers
 * as in cur. */
static void om_weights(const uint8_t *cur, const uint8_t *tgt, int8_t *w)
{
	for (int u = 0; u < OM_NPOS; u++)
		for (int v = 0; v < OM_NPOS; v++)
			w[u * OM_NPOS + v] =
				(int8_t)((cur[u] == tgt[v]) - (cur[v] == tgt[v]));
}

static int om_gain(const struct ommap *m, const int8_t *w)
{
	int g = 0;
	for (int j = 0; j < m->nm; j++)
		g += w[m->pv[j]];
	return g;
}

/* The stickers after map m. */
static void om_apply(const struct ommap *m, const uint8_t *cur, uint8_t *out)
{
	memcpy(out, cur, OM_NPOS);
	for (int j = 0; j < m->nm; j++)
		out[m->pv[j] % OM_NPOS] = cur[m->pv[j] / OM_NPOS];
}

/* Candidate i (gain g, cost) into the list top, tg, tc of *nt (at most
 * want), kept best first by gain per move, if it gets in. */
static void top_put(int *top, int *tg, int *tc, int *nt, int want, int i,
		    int g, int cost)
{
	if (*nt == want && g * tc[*nt - 1] <= tg[*nt - 1] * cost)
		return;
	int at = *nt < want ? (*nt)++ : *nt - 1;
	for (; at > 0 && g * tc[at - 1] > tg[at - 1] * cost; at--)
		top[at] = top[at - 1], tg[at] = tg[at - 1], tc[at] = tc[at - 1];
	top[at] = i, tg[at] = g, tc[at] = cost;
}

/* The want best candidates from state cur (the turns before it tail) by
 * stickers put right per move, best first, into top, tg (their gains)
 * and tc (their costs); how many. */
static int om_top(struct ctx *x, const struct omcands *C, const uint8_t *cur,
		  const uint8_t *tgt, const struct omtail *tail, int want,
		  int *top, int *tg, int *tc)
{
	int8_t w[OM_NPOS * OM_NPOS];
	int nt = 0;
	om_weights(cur, tgt, w);
	x->om_evals += C->count;
	for (int i = 0; i < C->count; i++) {
		const struct omcand *c = &C->c[i];
		int g = om_gain(&c->m, w);
		if (g <= 0)
			continue;
		/* less what merges with the turns before it */
		int cost = c->cost - om_tail_saves(tail, c->first);
		top_put(top, tg, tc, &nt, want, i, g, cost < 1 ? 1 : cost);
	}
	return nt;
}

/* The turns of candidate c after tail, emitted if x is given. */
static int om_play(struct ctx *x, const struct omlib *L,
		   const struct omcand *c, struct omtail *tail, int p, int q)
{
	const struct omac *a = &L->mac[c->k];
	int rc;
	if (c->s >= 0) {
		if (x && (rc = om_emit(x, L->gmv[c->s], p, q, 0)) < 0)
			return rc;
		om_tail_add(tail, L->gmv[c->s]);
	}
	for (int k = 0; k < a->len; k++) {
		if (x && (rc = om_emit(x, a->mv[k], p, q, 0)) < 0)
			return rc;
		om_tail_add(tail, a->mv[k]);
	}
	if (c->s >= 0) {
		if (x && (rc = om_emit(x, L->gmv[c->s], p, q, 1)) < 0)
			return rc;
		om_tail_add(tail, om_inv(L->gmv[c->s]));
	}
	return 0;
}

static int om_wrong(const uint8_t *cur, const uint8_t *tgt)
{
	int k = 0;
	for (int i = 0; i < OM_NPOS; i++)
		k += cur[i] != tgt[i];
	return k;
}

/* What state s is worth: moves made and those the rest may take. */
static int om_score(const struct omnode *s)
{
	return s->cost + OM_BR * s->wrong;
}

/* The beam over the macros for the orbits (p, q) and (p, m-q): up to
 * OM_DEPTH steps at a time, then the path to the best state emitted
 * and checked; until no candidate puts a sticker right. */
static int om_pair(struct ctx *x, int p, int q)
{
	struct omlib *L = &x->w->om;
	struct omcands *C = om_cands_of(x);
	int rc;
	if (!L->built) {
		if ((rc = om_build(L)) < 0)
			return rc;
		om_cands(L, C);
	}
	int bw = x->n <= OM_LOOK_MAX_N ? OM_BW : 1;
	int want = x->n <= OM_LOOK_MAX_N ? OM_LOOK : 1;
	uint8_t tgt[OM_NPOS], now[OM_NPOS];
	for (int i = 0; i < OM_NPOS; i++)
		tgt[i] = (uint8_t)x->tcol[L->place[i][0]];
	struct omnode *root = &C->lev[0][0];
	memset(root, 0, sizeof *root);
	root->tail.axis = -1;
	root->parent = -1;
	root->cand = -1;
	om_read(x, L, p, q, root->cur);
	for (;;) {
		root->cost = 0;
		root->wrong = (int16_t)om_wrong(root->cur, tgt);
		C->nlev[0] = 1;
		/* the best state: of those past which no candidate puts a
		 * sticker right, the one whose moves and 3-cycles for the
		 * rest are fewest; if cut short, the last step's best */
		int bd = -1, bi = 0, bs = 0, d = 0, more = 0;
		for (; d + 1 < OM_DEPTH && C->nlev[d] > 0; d++) {
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			/* past the budget the 3-cycles finish, as they do
			 * the rest */
			if (x->om_evals >= OM_BUDGET)
				break;
			int nk = 0;
			for (int i = 0; i < C->nlev[d]; i++) {
				const struct omnode *s = &C->lev[d][i];
				int top[OM_LOOK], tg[OM_LOOK], tc[OM_LOOK];
				int nt = om_top(x, C, s->cur, tgt, &s->tail,
						want, top, tg, tc);
				int fin = s->cost + OM_FIN * s->wrong;
				if (nt == 0 && (bd < 0 || fin < bs))
					bd = d, bi = i, bs = fin;
				for (int t = 0; t < nt; t++) {
					struct omnode *k = &C->kids[nk++];
					k->cost = (int16_t)(s->cost + tc[t]);
					k->wrong = (int16_t)(s->wrong - tg[t]);
					k->parent = (int16_t)i;
					k->cand = top[t];
				}
			}
			/* the bw best children, each state once */
			int nn = 0;
			for (int t = 0; t < nk && nn < bw; t++) {
				int b = t;
				for (int u = t + 1; u < nk; u++)
					if (om_score(&C->kids[u]) <
					    om_score(&C->kids[b]))
						b = u;
				struct omnode k = C->kids[b];
				C->kids[b] = C->kids[t];
				const struct omnode *s = &C->lev[d][k.parent];
				const struct omcand *c = &C->c[k.cand];
				om_apply(&c->m, s->cur, k.cur);
				int dup = 0;
				for (int u = 0; u < nn && !dup; u++)
					dup = memcmp(C->lev[d + 1][u].cur, k.cur,
						     OM_NPOS) == 0;
				if (dup)
					continue;
				k.tail = s->tail;
				om_play(NULL, L, c, &k.tail, p, q);
				C->lev[d + 1][nn++] = k;
			}
			C->nlev[d + 1] = nn;
		}
		if (d + 1 >= OM_DEPTH || x->om_evals >= OM_BUDGET) {
			/* cut short: the last step's states are weighed
			 * too, and past the depth the beam goes on from
			 * the best */
			for (int i = 0; i < C->nlev[d]; i++) {
				const struct omnode *s = &C->lev[d][i];
				int fin = s->cost + OM_FIN * s->wrong;
				if (bd < 0 || fin < bs)
					bd = d, bi = i, bs = fin;
			}
			more = bd == d && d + 1 >= OM_DEPTH &&
			       x->om_evals < OM_BUDGET;
		}
		if (bd <= 0)
			return 0;
		/* the path to it, from the root */
		int path[OM_DEPTH];
		for (int e = bd, i = bi; e > 0; e--) {
			path[e] = C->lev[e][i].cand;
			i = C->lev[e][i].parent;
		}
		struct omtail tail = root->tail;
		for (int e = 1; e <= bd; e++)
			if ((rc = om_play(x, L, &C->c[path[e]], &tail, p, q)) < 0)
				return rc;
		om_read(x, L, p, q, now);
		if (memcmp(now, C->lev[bd][bi].cur, OM_NPOS) != 0)
			return SOLVE_ESTAGE;
		if (!more)
			return 0;
		memcpy(root->cur, now, OM_NPOS);
		root->tail = tail;
	}
}

/* ----------------------------------------------------------- the bars */

/* On 7×7 the rings' staged search and the oblique macros took about 71
 * and 82 moves. The bars take the centers another way, as a reduction
 * to 5×5: ring 2 first (its staged steps alone), then each +-center of
 * ring 1 paired with the two obliques beside it into a bar, then ring 1
 * (its staged steps alone). Ring 1's turns (faces, layers 1 and m-1 and
 * the blocks of both) keep bars whole and ring 2 solved, and turn the
 * bars as a 5×5's turns turn its +-centers, so its search solves the
 * obliques too. While ring 2 is searched, layer 1 is free; so each ring
 * is a 5×5's center search, outer blocks included, on 5×5's tables.
 * Pairing minds nothing but ring 2: ring 1's corners and where the bars
 * are are free. The macros keep ring 2 (and the middle centers) in
 * place:
 *  - [Y] S X S' [Y']: S one inner slice (layer 2, 3 or 4), X a turn
 *    of ring 1's group across it, Y an optional set-up from that group
 *    (3 to 5 moves);
 *  - [Y] [P Q P', F]: P and Q slices on two axes, F a face turn or a
 *    slice of ring 1 on Q's axis, Y an optional turn of ring 1's group
 *    first, not undone: it only moves bars (8 or 9 moves).
 * One macro per map of the bars' places (the cheapest): about 79,000,
 * made once with the stage tables (about 100 ms). A bar moved whole
 * takes its pairs along, so what a macro gains is what the bars it
 * makes of parts pair less what the bars it breaks up did (as many):
 * the macros are sorted by twice that many per move, an upper bound,
 * and a scan stops where it cannot beat the best it holds; it reads
 * them packed (struct barhot, 28 bytes: 7% less time in all) and weighs
 * each on all of a step's states at once, side by side in lanes that
 * the compiler vectorizes (bar_scan: the bars' share of a 7×7 solve
 * 28% -> about 10%, the same answers). A macro
 * whose first turn merges with the turns before it costs that much
 * less (20 states: centers 121.2 -> 120.55). A beam as
 * the oblique macros' (BAR_BW states a step, BAR_BWE once BAR_END
 * obliques are paired, each grown by its BAR_LOOK best macros by
 * obliques paired per move, ranked by moves plus BAR_BR per oblique
 * unpaired) runs until every oblique is paired; the shortest such state
 * is made. Ring 2's last step picks, of its answers, the one that
 * leaves the most obliques paired (BAR_RATE). Measured (bench --reduce
 * 20): 7×7 centers 152.9 -> 127.7, 252 -> 226 moves (median); per
 * variant ring 2 about 34 moves, the bars 61, ring 1 34; the bars' first
 * steps pair about one oblique a move, the last ten take 25 to 30 moves
 * in commutators. Then (20 states, centers): the beam 32 wide from 30
 * paired 127.05 -> 123.35 (64 from 24: 120.85 at 1.4 times the time),
 * F a slice too 125.7, both 121.85, BAR_RATE 121.0 (226 -> 219 moves).
 * With the lanes (40 states, centers, moves median, ms median): 32 from
 * 30 and 8 before 120.67, 217, 887; 64 from 24 118.5, 213, 979; 64 from
 * 20 and 16 before 117.9, 213, 952 (kept); 128 from 20 116.85, 213,
 * 1136. Left out: a tie-break or a bonus for bars on the
 * axis their colour ends on (ring 1's first steps), no gain; one of
 * each multiset of bars kept (states that differ by ring 1's turns
 * alone) 121.9, worse; later variants stopped once as long as the best,
 * no time saved; and (8 states, centers 124.9) S a block of two or
 * three inner layers too (133.4), X one or two turns (131.3 before the
 * rings' blocks, at twice the time), P or Q two slices (125.1, 1.5
 * times the time), BAR_BR 2, 4 or 5, BAR_LOOK 4 or 16, BAR_BW 16
 * (within a move, 12 states); 4 or 6 variants (no shorter median); the
 * commutators' inverses F X' F' X too (20 states: 127.05 -> 126.6). */

static int bar_center(int f, int r, int c)
{
	return f * 25 + (r - 1) * 5 + c - 1;
}

static int bar_inner(int t)
{
	int r = t % 25 / 5 + 1, c = t % 5 + 1;
	return r >= 2 && r <= 4 && c >= 2 && c <= 4;
}

/* The map of turns mv[0..len) on the places (t goes to map[t]), after
 * map pre (NULL: none). */
static void bar_compose(const struct barmacs *L, uint8_t *map,
			const uint8_t *pre, const uint8_t *mv, int len)
{
	for (int t = 0; t < BAR_NC; t++) {
		int p = pre ? pre[t] : t;
		for (int k = 0; k < len; k++)
			p = L->perm[mv[k] & 3][mv[k] >> 2 & 7][mv[k] >> 5][p];
		map[t] = (uint8_t)p;
	}
}

static uint8_t bar_mv(int axis, int layer, int qt)
{
	return (uint8_t)(axis | layer << 2 | qt << 5);
}

/* Keep macro mv[0..len) of map (t goes to map[t]) if it keeps ring 2
 * and no macro of its map is as short. */
static void bar_add(struct barmacs *L, int32_t *slot, const uint8_t *map,
		    const uint8_t *mv, int len)
{
	uint8_t inv[BAR_NC];
	for (int t = 0; t < BAR_NC; t++) {
		if (map[t] != t && bar_inner(t))
			return;
		inv[map[t]] = (uint8_t)t;
	}
	struct barcand a;
	a.nb = 0;
	a.len = (uint8_t)len;
	for (int b = 0; b < BAR_NB; b++) {
		const uint8_t *p = L->bar[b];
		if (inv[p[0]] == p[0] && inv[p[1]] == p[1] && inv[p[2]] == p[2])
			continue;
		if (a.nb == BAR_MOV)
			return;
		struct barent *e = &a.e[a.nb++];
		e->b = (uint8_t)b;
		for (int j = 0; j < 3; j++)
			e->src[j] = inv[p[j]];
	}
	if (a.nb == 0)
		return;
	memcpy(a.mv, mv, (size_t)len);
	size_t sz = a.nb * sizeof *a.e;
	uint64_t h = 1469598103934665603ull;
	const unsigned char *k = (const unsigned char *)a.e;
	for (size_t j = 0; j < sz; j++)
		h = (h ^ k[j]) * 1099511628211ull;
	uint32_t i = (uint32_t)(h >> 20) & (BAR_HASH - 1);
	for (; slot[i] >= 0; i = (i + 1) & (BAR_HASH - 1)) {
		struct barcand *o = &L->c[slot[i]];
		if (o->nb == a.nb && memcmp(o->e, a.e, sz) == 0) {
			if (o->len > a.len)
				*o = a;
			return;
		}
	}
	if (L->count >= BAR_MAX)
		return;
	slot[i] = L->count;
	L->c[L->count++] = a;
}

/* The macros [Y] S X S' [Y'] (bar_build), Y and X of ring 1's group
 * (its turns ys[0..ny)). */
static void bar_conj(struct barmacs *L, int32_t *slot, const uint8_t *ys,
		     int ny)
{
	uint8_t map[BAR_NC], pre[BAR_NC], mv[BAR_LEN];
	for (int y = 0; y <= ny; y++) {
		int k0 = y < ny;
		if (k0) {
			mv[0] = ys[y];
			bar_compose(L, pre, NULL, mv, 1);
		}
		for (int sa = 0; sa < 3; sa++)
		for (int sl = 2; sl <= 4; sl++)
		for (int sq = 1; sq <= 3; sq++)
		for (int x1 = 0; x1 < ny; x1++) {
			if ((ys[x1] & 3) == sa)
				continue;
			int k = k0;
			mv[k++] = bar_mv(sa, sl, sq);
			mv[k++] = ys[x1];
			mv[k++] = bar_mv(sa, sl, 4 - sq);
			bar_compose(L, map, k0 ? pre : NULL, mv + k0, k - k0);
			bar_add(L, slot, map, mv, k);
			if (!k0)
				continue;
			mv[k++] = bar_mv(ys[y] & 3, ys[y] >> 2 & 7,
					 4 - (ys[y] >> 5));
			bar_compose(L, map, NULL, mv, k);
			bar_add(L, slot, map, mv, k);
		}
	}
}

/* Macro a's order: by ub per move, most first (2520 = lcm(1..10)). */
static int bar_key(const struct barcand *a)
{
	return a->ub * 2520 / a->len;
}

static void bar_sift(struct barcand *c, int i, int n)
{
	for (;;) {
		int k = 2 * i + 1;
		if (k >= n)
			return;
		if (k + 1 < n && bar_key(&c[k + 1]) < bar_key(&c[k]))
			k++;
		if (bar_key(&c[i]) <= bar_key(&c[k]))
			return;
		struct barcand t = c[i];
		c[i] = c[k];
		c[k] = t;
		i = k;
	}
}

/* Each macro's ub, and the macros sorted by ub per move, most first
 * (a heap sort: no allocation), so that a scan may stop where no macro
 * left can make its best. */
static void bar_order(struct barmacs *L)
{
	for (int i = 0; i < L->count; i++) {
		struct barcand *a = &L->c[i];
		/* a bar moved whole takes its pairs along; the pairs a macro
		 * gains are those of the bars it makes of parts, less those
		 * of the bars it breaks up: as many, the rest being moved
		 * whole or left */
		uint32_t kept = (1u << BAR_NB) - 1;
		for (int j = 0; j < a->nb; j++)
			kept &= ~(1u << a->e[j].b);
		a->ns = 0;
		for (int j = 0; j < a->nb; j++) {
			const uint8_t *src = a->e[j].src;
			int wb = L->barof[src[1]];
			const uint8_t *w = L->bar[wb];
			if ((src[0] == w[0] && src[2] == w[2]) ||
			    (src[0] == w[2] && src[2] == w[0])) {
				kept |= 1u << wb;
				continue;
			}
			struct barent t = a->e[a->ns];
			a->e[a->ns++] = a->e[j];
			a->e[j] = t;
		}
		int nbrk = 0;
		for (int b = 0; b < BAR_NB; b++)
			if (!(kept >> b & 1))
				a->brk[nbrk++] = (uint8_t)b;
		a->ub = (uint8_t)(2 * a->ns);
		if (nbrk != a->ns) {
			/* cannot be (a permutation of the places); if it were,
			 * weigh every bar it changes */
			a->ns = a->nb;
			for (int j = 0; j < a->nb; j++)
				a->brk[j] = a->e[j].b;
			a->ub = (uint8_t)(2 * a->nb);
		}
	}
	int n = L->count;
	for (int i = n / 2 - 1; i >= 0; i--)
		bar_sift(L->c, i, n);
	for (int k = n - 1; k > 0; k--) {
		struct barcand t = L->c[0];
		L->c[0] = L->c[k];
		L->c[k] = t;
		bar_sift(L->c, 0, k);
	}
	for (int i = 0; i < n; i++) {
		const struct barcand *a = &L->c[i];
		struct barhot *h = &L->hot[i];
		memset(h, 0, sizeof *h);
		h->len = a->len;
		h->mv0 = a->mv[0];
		if (a->ns > BAR_HOTN)
			continue; /* none measured; never chosen if one were */
		h->ub = a->ub;
		h->ns = a->ns;
		for (int j = 0; j < a->ns; j++) {
			memcpy(h->src[j], a->e[j].src, 3);
			h->brk[j] = a->brk[j];
		}
	}
}

static int bar_build(struct barmacs *L, int32_t *slot, cube_t *sim)
{
	if (cube_sizeof(7) > 1024)
		return SOLVE_ESTAGE;
	for (int a = 0; a < 3; a++)
		for (int l = 0; l < 7; l++)
			for (int qt = 1; qt <= 3; qt++) {
				cube_init(sim, 7);
				for (int t = 0; t < BAR_NC; t++)
					cube__set(sim, t / 25, t % 25 / 5 + 1,
						  t % 5 + 1, LABEL0 + t);
				cube_turn(sim, a, l, l, qt);
				for (int t = 0; t < BAR_NC; t++) {
					int v = cube_get(sim, t / 25,
							 t % 25 / 5 + 1,
							 t % 5 + 1) - LABEL0;
					if (v < 0 || v >= BAR_NC)
						return SOLVE_ESTAGE;
					L->perm[a][l][qt][v] = (uint8_t)t;
				}
			}
	/* the bars: top, bottom, left, right of each face */
	static const uint8_t shape[4][3][2] = {
		{{1, 2}, {1, 3}, {1, 4}}, {{5, 2}, {5, 3}, {5, 4}},
		{{2, 1}, {3, 1}, {4, 1}}, {{2, 5}, {3, 5}, {4, 5}}};
	memset(L->barof, -1, sizeof L->barof);
	for (int f = 0, b = 0; f < 6; f++)
		for (int k = 0; k < 4; k++, b++)
			for (int j = 0; j < 3; j++) {
				int t = bar_center(f, shape[k][j][0],
						   shape[k][j][1]);
				L->bar[b][j] = (uint8_t)t;
				L->barof[t] = (int8_t)b;
			}
	memset(slot, -1, BAR_HASH * sizeof *slot);
	L->count = 0;
	/* ring 1's group: its turns, and "no set-up" last */
	static const uint8_t ring1[4] = {0, 1, 5, 6};
	uint8_t ys[37];
	int ny = 0;
	for (int a = 0; a < 3; a++)
		for (int i = 0; i < 4; i++)
			for (int qt = 1; qt <= 3; qt++)
				ys[ny++] = bar_mv(a, ring1[i], qt);
	bar_conj(L, slot, ys, ny);
	uint8_t map[BAR_NC], mv[BAR_LEN];
	/* the commutators, each made once and then after each set-up */
	uint8_t base[BAR_NC];
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		for (int pl = 1; pl <= 5; pl++)
		for (int pq = 1; pq <= 3; pq++)
		for (int ql = 1; ql <= 5; ql++)
		for (int qq = 1; qq <= 3; qq++)
		for (int fi = 0; fi < 4; fi++)
		for (int fq = 1; fq <= 3; fq++) {
			/* F: a face, or a slice of ring 1 (it moves bars whole) */
			static const uint8_t fl[4] = {0, 6, 1, 5};
			const uint8_t c8[8] = {
				bar_mv(A, pl, pq), bar_mv(B, ql, qq),
				bar_mv(A, pl, 4 - pq), bar_mv(B, fl[fi], fq),
				bar_mv(A, pl, pq), bar_mv(B, ql, 4 - qq),
				bar_mv(A, pl, 4 - pq), bar_mv(B, fl[fi], 4 - fq)};
			bar_compose(L, base, NULL, c8, 8);
			int keeps = 1;
			for (int t = 0; t < BAR_NC && keeps; t++)
				keeps = base[t] == t || !bar_inner(t);
			if (!keeps)
				continue;
			memcpy(mv + 1, c8, 8);
			bar_add(L, slot, base, mv + 1, 8);
			for (int y = 0; y < ny; y++) {
				mv[0] = ys[y];
				const uint8_t *py = L->perm[ys[y] & 3]
							   [ys[y] >> 2 & 7]
							   [ys[y] >> 5];
				for (int t = 0; t < BAR_NC; t++)
					map[t] = base[py[t]];
				bar_add(L, slot, map, mv, 9);
			}
		}
	}
	if (L->count == 0)
		return SOLVE_ESTAGE;
	bar_order(L);
	return 0;
}

static struct barlib *barlib_of(struct ctx *x)
{
	return (struct barlib *)(void *)((unsigned char *)x->w +
					 bar_offset(x->n));
}

static int bar_pairs(const struct barmacs *L, const uint8_t *col, int b)
{
	int t = col[L->bar[b][1]];
	return (col[L->bar[b][0]] == t) + (col[L->bar[b][2]] == t);
}

static int bar_count(const struct barmacs *L, const uint8_t *col)
{
	int k = 0;
	for (int b = 0; b < BAR_NB; b++)
		k += bar_pairs(L, col, b);
	return k;
}

static void bar_apply(const struct barmacs *L, const struct barcand *a,
		      const uint8_t *col, uint8_t *out)
{
	memcpy(out, col, BAR_NC);
	for (int j = 0; j < a->nb; j++)
		for (int i = 0; i < 3; i++)
			out[L->bar[a->e[j].b][i]] = col[a->e[j].src[i]];
}

static void bar_read(const cube_t *c, uint8_t *col)
{
	for (int t = 0; t < BAR_NC; t++)
		col[t] = (uint8_t)cube_get(c, t / 25, t % 25 / 5 + 1, t % 5 + 1);
}

static int bar_score(const struct barnode *s)
{
	return s->cost + BAR_BR * (BAR_OBL - s->paired);
}

/* For each state lane[0..nl) of step d, its BAR_LOOK best macros by
 * obliques paired per move, best first (W->top, tg, tc; W->nt of
 * them). The states are scanned side by side, each macro weighed on all
 * at once (loops over BAR_LANES lanes, which the compiler vectorizes;
 * the lanes past nl never gain). */
static void bar_scan(const struct barmacs *L, struct barlib *W, int d,
		     const int *lane, int nl)
{
	for (int l = 0; l < BAR_LANES; l++) {
		const uint8_t *col = W->lev[d][lane[l < nl ? l : 0]].col;
		for (int t = 0; t < BAR_NC; t++)
			W->colT[t][l] = l < nl ? col[t] : 0;
		for (int b = 0; b < BAR_NB; b++)
			W->opT[b][l] = (uint8_t)(l < nl ? bar_pairs(L, col, b)
							: 2);
		W->tgw[l] = 0, W->tcw[l] = 1, W->nt[l] = 0;
	}
	/* once every lane holds BAR_LOOK, the worst of their worsts */
	int full = 0, mg = 0, mc = 1, i = 0;
	for (; i < L->count; i++) {
		const struct barhot *a = &L->hot[i];
		/* (its first turn may merge: 2 moves less at most) */
		int least = a->len > 3 ? a->len - 2 : 1;
		if (full == nl && a->ub * mc <= mg * least)
			break; /* nor any after it, in any lane */
		int8_t g[BAR_LANES];
		memset(g, 0, sizeof g);
		for (int j = 0; j < a->ns; j++) {
			const uint8_t *c0 = W->colT[a->src[j][0]],
				      *c1 = W->colT[a->src[j][1]],
				      *c2 = W->colT[a->src[j][2]],
				      *o = W->opT[a->brk[j]];
			for (int l = 0; l < BAR_LANES; l++)
				g[l] = (int8_t)(g[l] + (c0[l] == c1[l]) +
						(c2[l] == c1[l]) - o[l]);
		}
		int any = 0;
		for (int l = 0; l < BAR_LANES; l++)
			any |= g[l] * W->tcw[l] > W->tgw[l] * least;
		if (!any)
			continue;
		for (int l = 0; l < nl; l++) {
			if (g[l] <= 0 || g[l] * W->tcw[l] <= W->tgw[l] * least)
				continue;
			const struct barnode *s = &W->lev[d][lane[l]];
			int cost = a->len - om_tail_saves(&s->tail, a->mv0);
			top_put(W->top[l], W->tg[l], W->tc[l], &W->nt[l],
				BAR_LOOK, i, g[l], cost < 1 ? 1 : cost);
			if (W->nt[l] < BAR_LOOK)
				continue;
			/* full: its worst is what a macro must beat */
			if (W->tcw[l] == 1 && W->tgw[l] == 0)
				full++;
			W->tgw[l] = (int16_t)W->tg[l][BAR_LOOK - 1];
			W->tcw[l] = (int16_t)W->tc[l][BAR_LOOK - 1];
			if (full == nl) {
				mg = W->tgw[0], mc = W->tcw[0];
				for (int k = 1; k < nl; k++)
					if (W->tgw[k] * mc < mg * W->tcw[k])
						mg = W->tgw[k], mc = W->tcw[k];
			}
		}
	}
}

/* The macros: the shared tables', or made now; NULL on error (rc). */
static const struct barmacs *bar_macs(struct ctx *x, int *rc)
{
	struct barlib *W = barlib_of(x);
	if (!W->built) {
		const struct st_shared *sh = x->lim ? x->lim->stage_tables
						    : NULL;
		W->B = sh ? &sh->bars : &W->own;
		if (!sh && (*rc = bar_build(&W->own, W->slot,
					    (cube_t *)(void *)x->w->sim)) < 0)
			return NULL;
		W->built = 1;
	}
	return W->B;
}

/* The obliques left unpaired if the staged search's turns path[0..len)
 * were made now. */
static int bar_rate(struct ctx *x, const int *path, int len)
{
	int rc;
	const struct barmacs *L = bar_macs(x, &rc);
	if (!L)
		return 0;
	uint8_t col[BAR_NC];
	bar_read(st_after(x, path, len), col);
	return BAR_OBL - bar_count(L, col);
}

/* Ring 2 solved, pair every oblique with its bar's +-center (*par: the
 * wing parities, kept up). Returns 1 when all are paired, 0 when the
 * beam could not (the oblique macros then finish), or an error. */
static int bar_pair(struct ctx *x, unsigned *par)
{
	struct barlib *W = barlib_of(x);
	int rc = 0;
	const struct barmacs *L = bar_macs(x, &rc);
	if (!L)
		return rc;
	struct barnode *root = &W->lev[0][0];
	bar_read(x->c, root->col);
	memset(&root->tail, 0, sizeof root->tail);
	root->tail.axis = -1;
	root->cost = 0;
	root->paired = (int16_t)bar_count(L, root->col);
	root->parent = -1;
	root->cand = -1;
	W->nlev[0] = 1;
	int bd = root->paired == BAR_OBL ? 0 : -1, bi = 0, d = 0;
	for (; d + 1 < BAR_DEPTH && W->nlev[d] > 0; d++) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		int nk = 0, lane[BAR_LANES], nl = 0;
		for (int i = 0; i < W->nlev[d]; i++) {
			const struct barnode *s = &W->lev[d][i];
			if (s->paired < BAR_OBL)
				lane[nl++] = i;
			else if (bd < 0 || s->cost < W->lev[bd][bi].cost)
				bd = d, bi = i;
		}
		if (nl > 0)
			bar_scan(L, W, d, lane, nl);
		for (int l = 0; l < nl; l++) {
			const struct barnode *s = &W->lev[d][lane[l]];
			for (int t = 0; t < W->nt[l]; t++) {
				struct barnode *k = &W->kids[nk++];
				k->cost = (int16_t)(s->cost + W->tc[l][t]);
				k->paired = (int16_t)(s->paired + W->tg[l][t]);
				k->parent = (int16_t)lane[l];
				k->cand = W->top[l][t];
			}
		}
		/* the BAR_BW best children, each state once, none past a
		 * finished one */
		int nn = 0;
		int most = 0;
		for (int t = 0; t < nk; t++)
			if (W->kids[t].paired > most)
				most = W->kids[t].paired;
		int bw = most >= BAR_END ? BAR_BWE : BAR_BW;
		for (int t = 0; t < nk && nn < bw; t++) {
			int b = t;
			for (int u = t + 1; u < nk; u++)
				if (bar_score(&W->kids[u]) <
				    bar_score(&W->kids[b]))
					b = u;
			struct barnode k = W->kids[b];
			W->kids[b] = W->kids[t];
			if (bd >= 0 && k.cost >= W->lev[bd][bi].cost)
				continue;
			const struct barnode *pa = &W->lev[d][k.parent];
			const struct barcand *a = &L->c[k.cand];
			bar_apply(L, a, pa->col, k.col);
			int dup = 0;
			for (int u = 0; u < nn && !dup; u++)
				dup = memcmp(W->lev[d + 1][u].col, k.col,
					     BAR_NC) == 0;
			if (dup)
				continue;
			k.tail = pa->tail;
			for (int j = 0; j < a->len; j++)
				om_tail_add(&k.tail, a->mv[j]);
			W->lev[d + 1][nn++] = k;
		}
		W->nlev[d + 1] = nn;
	}
	for (int i = 0; i < W->nlev[d]; i++)
		if (W->lev[d][i].paired == BAR_OBL &&
		    (bd < 0 || W->lev[d][i].cost < W->lev[bd][bi].cost))
			bd = d, bi = i;
	if (bd <= 0)
		return bd == 0;
	int path[BAR_DEPTH];
	for (int e = bd, i = bi; e > 0; e--) {
		path[e] = W->lev[e][i].cand;
		i = W->lev[e][i].parent;
	}
	size_t start = x->count;
	for (int e = 1; e <= bd; e++) {
		const struct barcand *a = &L->c[path[e]];
		for (int k = 0; k < a->len; k++) {
			int axis = a->mv[k] & 3, l = a->mv[k] >> 2 & 7,
			    qt = a->mv[k] >> 5;
			if ((rc = emit(x, axis, l, qt)) < 0)
				return rc;
			*par ^= turn_par(x->m, l, l, qt);
		}
	}
	size_t nk = moves_simplify(x->out + start, x->count - start);
	x->count = start + moves_merge_blocks(x->out + start, nk, x->n);
	uint8_t now[BAR_NC];
	bar_read(x->c, now);
	return bar_count(L, now) == BAR_OBL ? 1 : SOLVE_ESTAGE;
}

/* Whether center orbit (r, c) of the cube is solved. */
static int orbit_solved(struct ctx *x, int r, int c)
{
	int m = x->m, id = c == r ? M_X : 2 * c == m ? M_PLUS : M_OBL;
	struct orbit o;
	uint8_t cur[NPOS];
	orbit_init(&o, &x->w->model[id], r, c, m);
	read_orbit(x, &o, cur);
	for (int i = 0; i < NPOS; i++)
		if (cur[i] != x->tcol[o.st[i][0][0]])
			return 0;
	return 1;
}

static int stage_centers(struct ctx *x)
{
	int m = x->m, staged = 0;
	x->cpar = 0;
	memset(x->split, 0, sizeof x->split);
	x->erate = 0;
	if (STAGED(x->n) && x->staged) {
		if (EDGE_RATE_ON(x->n)) {
			int rc = free_build(x);
			if (rc < 0)
				return rc;
			x->erate = 1;
		}
		staged = staged_centers(x);
		if (staged < 0)
			return staged;
	}
	if (x->n <= FREE_MAX_N) {
		/* the edge phase needs the turns' place maps either way */
		int rc = staged ? free_ready(x) : free_centers(x);
		if (rc < 0)
			return rc;
	}
	for (int r = 1; r < m - r; r++)
		for (int c = r; c < m - r; c++) {
			int id = c == r ? M_X : 2 * c == m ? M_PLUS : M_OBL;
			struct orbit o;
			uint8_t cur[NPOS], tgt[NPOS];
			orbit_init(&o, &x->w->model[id], r, c, m);
			for (int i = 0; i < NPOS; i++)
				tgt[i] = (uint8_t)x->tcol[o.st[i][0][0]];
			if (id == M_OBL && 2 * c < m && OM_ON(x->n) &&
			    !(orbit_solved(x, r, c) && orbit_solved(x, r, m - c))) {
				int rc = om_pair(x, r, c);
				if (rc < 0)
					return rc;
			}
			read_orbit(x, &o, cur);
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			long rc = solve_orbit(x, &o, cur, tgt);
			if (rc < 0)
				return (int)rc;
		}
	return 0;
}

/* ------------------------------------------------------ the edge beam */

static struct ebeam *ebeam_of(struct ctx *x)
{
	return (struct ebeam *)(void *)((unsigned char *)x->w +
					beam_offset(x->n));
}

static int is_face_gen(const struct freec *F, int g, int m)
{
	return F->gen[g].lo == F->gen[g].hi &&
	       (F->gen[g].lo == 0 || F->gen[g].lo == m);
}

static uint32_t eb_hash(const uint8_t *v, int ne)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < ne; i++)
		h = (h ^ v[i]) * 16777619u;
	return h;
}

/* Neighbours along an edge that a macro carries whole to another
 * place keep their pair or its absence: only those it parts and those
 * it puts together decide its gain. */
static void eb_compares(const struct freec *F, struct ebeam *E, int k,
			int n, uint8_t (*at)[3])
{
	int whole[EB_ADJ] = {0};
	struct ecore *C = &E->core[k];
	const uint8_t *src = E->src[k];
	C->brk = 0;
	C->njoin = 0;
	C->join = (uint32_t)E->njoin;
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < n - 2; j++) {
			const uint16_t *a = F->slot[e][j], *b = F->slot[e][j + 1];
			int a0 = src[a[0]], b0 = src[b[0]], kept = -1;
			/* from neighbours on one edge, the same sides? */
			const uint8_t *pa = at[a0], *pb = at[b0];
			if (pa[0] == pb[0] && pa[2] == pb[2] &&
			    (pa[1] == pb[1] + 1 || pb[1] == pa[1] + 1))
				kept = 12 * ((pa[1] < pb[1] ? pa[1] : pb[1]) - 1) +
				       pa[0];
			if (kept >= 0) {
				whole[kept] = 1;
				continue;
			}
			uint8_t *q = E->join[E->njoin++];
			C->njoin++;
			q[0] = (uint8_t)a0, q[1] = (uint8_t)b0;
			q[2] = src[a[1]], q[3] = src[b[1]];
		}
	for (int k = 0; k < 12 * (n - 3); k++)
		if (!whole[k])
			C->brk |= 1ull << k;
}

/* Which neighbours along the edges of v are pairs (bits as brk). */
static uint64_t eb_adj(const struct freec *F, const uint8_t *v, int n)
{
	uint64_t bits = 0;
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < n - 2; j++) {
			const uint16_t *a = F->slot[e][j], *b = F->slot[e][j + 1];
			if (v[a[0]] == v[b[0]] && v[a[1]] == v[b[1]])
				bits |= 1ull << (12 * (j - 1) + e);
		}
	return bits;
}

static int popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ull);
	v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((v * 0x0101010101010101ull) >> 56);
}

/* The edge pieces left unpaired with a neighbour if the staged
 * search's turns path[0..len) were made now. */
static int edge_rate(struct ctx *x, const int *path, int len)
{
	const struct freec *F = &x->w->fc;
	const cube_t *sim = st_after(x, path, len);
	uint8_t v[EB_NE];
	for (int e = 0; e < F->ne; e++)
		v[e] = (uint8_t)cube_get(sim, F->epos[e][0], F->epos[e][1],
					 F->epos[e][2]);
	return 12 * (x->n - 3) - popcount64(eb_adj(F, v, x->n));
}

/* Pairs among the neighbours q[0..k) of v. */
static int eb_count(const uint8_t *v, uint8_t (*q)[4], int k)
{
	int sc = 0;
	for (int i = 0; i < k; i++)
		sc += v[q[i][0]] == v[q[i][1]] && v[q[i][2]] == v[q[i][3]];
	return sc;
}

/* The macros S X S' (S an inner slice or block, X a face turn B of S's
 * axis or A B A'), each with its map on the edge places and the
 * neighbours it parts and joins. */
static void eb_cores(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int m = x->m;
	uint8_t at[EB_NE][3]; /* each edge place's (edge, index, side) */
	for (int e = 0; e < 12; e++)
		for (int j = 1; j < m; j++)
			for (int t = 0; t < 2; t++) {
				uint8_t *q = at[F->slot[e][j][t]];
				q[0] = (uint8_t)e, q[1] = (uint8_t)j, q[2] = (uint8_t)t;
			}
	E->ncore = E->njoin = 0;
	for (int S = 0; S < F->nall; S++) {
		if (F->gen[S].lo == 0 || F->gen[S].hi == m)
			continue;
		int ax = F->gen[S].axis;
		for (int A = -1; A < F->ngen; A++) {
			if (A >= 0 && (!is_face_gen(F, A, m) || F->gen[A].axis == ax))
				continue;
			/* A2 B A2 made nothing shorter, measured */
			if (A >= 0 && F->gen[A].qt == 2)
				continue;
			for (int B = 0; B < F->ngen; B++) {
				if (!is_face_gen(F, B, m) || F->gen[B].axis != ax ||
				    E->ncore >= EB_CORES ||
				    E->njoin + EB_ADJ > EB_JOINS)
					continue;
				int id = E->ncore++;
				struct ecore *C = &E->core[id];
				uint16_t seq[5];
				int k = 0;
				seq[k++] = (uint16_t)S;
				if (A >= 0)
					seq[k++] = (uint16_t)A;
				seq[k++] = (uint16_t)B;
				if (A >= 0)
					seq[k++] = (uint16_t)free_inv(F, A);
				seq[k++] = (uint16_t)free_inv(F, S);
				C->S = (uint16_t)S;
				C->xlen = (uint8_t)(k - 2);
				memcpy(C->x, seq + 1, sizeof C->x);
				for (int p = 0; p < F->ne; p++) {
					int q = p;
					for (int i = k - 1; i >= 0; i--)
						q = F->esrc[seq[i]][q];
					E->src[id][p] = (uint8_t)q;
				}
				eb_compares(F, E, id, x->n, at);
			}
		}
	}
}

/* A child into level c (its E->w best by pairs, each state once). */
static void eb_offer(struct ebeam *E, int c, const uint8_t *v, int ne,
		     int pairs, const struct enode *how)
{
	int k = E->k[c];
	struct enode *L = E->lev[c];
	if (k == E->w && pairs <= L[k - 1].pairs)
		return;
	uint32_t h = eb_hash(v, ne) ^ how->open;
	for (int i = 0; i < k; i++)
		if (L[i].hash == h && L[i].open == how->open &&
		    memcmp(L[i].v, v, (size_t)ne) == 0)
			return;
	int i = k < E->w ? k++ : k - 1;
	while (i > 0 && pairs > L[i - 1].pairs) {
		L[i] = L[i - 1];
		i--;
	}
	L[i] = *how;
	memcpy(L[i].v, v, (size_t)ne);
	L[i].pairs = (uint8_t)pairs;
	L[i].hash = h;
	E->k[c] = k;
}

/* Beam search over slice–flip–slice with the slice held open, by cost
 * levels: level c holds the E->w states with the most pairs made in c
 * moves (an open slice's closing move counted, the state kept as it
 * will be once closed). From a state: a face turn (closing the open
 * slice first; not two in a row), a slice S opened with X (closing
 * the open one first), or, while S is open, X more: X a face turn of
 * S's axis or A B A' (A a face across it). Every X keeps each face
 * whose centers S displaced turned by a whole number of turns, so the
 * centers come back when S closes; S comes and goes, so every wing
 * orbit keeps its parity. The answer is the state with the fewest
 * moves plus EB_FINISH per pair still missing (about what the
 * 3-cycles cost per pair); its moves are made, the 3-cycles finish. */
static int beam_edges(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	struct ebeam *E = ebeam_of(x);
	int n = x->n, ne = F->ne, full = 12 * (n - 3), rc;
	uint8_t tmp[EB_NE];
	free_read(x);
	eb_cores(x);
	memset(E->k, 0, sizeof E->k);
	E->w = EB_WIDTH(n);
	struct enode how = {.kind = EB_FACE, .open = EB_CLOSED};
	eb_offer(E, 0, F->ecur, ne, popcount64(eb_adj(F, F->ecur, n)), &how);
	int bc = 0, bi = 0, bs = 1 << 30;
	/* a child of level c has a score above c: none beats bs past it */
	for (int c = 0; c < EB_LEVELS && c + 1 < bs; c++) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		for (int i = 0; i < E->k[c]; i++) {
			const struct enode *N = &E->lev[c][i];
			int score = c + EB_FINISH * (full - N->pairs);
			if (score < bs)
				bs = score, bc = c, bi = i;
			if (N->pairs == full)
				continue;
			how.plev = (uint8_t)c;
			how.parent = (uint16_t)i;
			uint64_t adj = eb_adj(F, N->v, n);
			for (int k = 0; k < E->ncore; k++) {
				const struct ecore *C = &E->core[k];
				int more = N->open == C->S;
				/* (the turns of a layer set come in threes) */
				if (!more && (C->xlen == 1 ||
					      (N->open != EB_CLOSED &&
					       N->open / 3 == C->S / 3)))
					continue;
				int to = c + C->xlen + (more ? 0 : 2);
				if (to >= EB_LEVELS)
					continue;
				int pairs = N->pairs - popcount64(adj & C->brk);
				if (E->k[to] == E->w &&
				    pairs + C->njoin <= E->lev[to][E->w - 1].pairs)
					continue;
				pairs += eb_count(N->v, E->join + C->join, C->njoin);
				if (E->k[to] == E->w &&
				    pairs <= E->lev[to][E->w - 1].pairs)
					continue;
				for (int p = 0; p < ne; p++)
					tmp[p] = N->v[E->src[k][p]];
				how.kind = (uint8_t)(more ? EB_MORE : EB_NEW);
				how.open = C->S;
				how.move = (uint16_t)k;
				eb_offer(E, to, tmp, ne, pairs, &how);
			}
			if (N->kind == EB_FACE || c + 1 >= EB_LEVELS)
				continue;
			for (int y = 0; y < F->ngen; y++) {
				if (!is_face_gen(F, y, x->m))
					continue;
				for (int p = 0; p < ne; p++)
					tmp[p] = N->v[F->esrc[y][p]];
				how.kind = EB_FACE;
				how.open = EB_CLOSED;
				how.move = (uint16_t)y;
				eb_offer(E, c + 1, tmp, ne, N->pairs, &how);
			}
		}
	}
	/* the path back from the best, then its moves in order */
	struct enode path[EB_LEVELS];
	int np = 0;
	for (int c = bc, i = bi; c > 0;) {
		const struct enode *N = &E->lev[c][i];
		path[np++] = *N;
		c = N->plev;
		i = N->parent;
	}
	unsigned par = 0;
	int open = -1;
	while (np-- > 0) {
		const struct enode *N = &path[np];
		if (N->kind != EB_MORE && open >= 0) {
			if ((rc = free_emit(x, free_inv(F, open), &par)) < 0)
				return rc;
			open = -1;
		}
		if (N->kind == EB_FACE) {
			if ((rc = free_emit(x, N->move, &par)) < 0)
				return rc;
			continue;
		}
		const struct ecore *C = &E->core[N->move];
		if (N->kind == EB_NEW) {
			open = C->S;
			if ((rc = free_emit(x, open, &par)) < 0)
				return rc;
		}
		for (int k = 0; k < C->xlen; k++)
			if ((rc = free_emit(x, C->x[k], &par)) < 0)
				return rc;
	}
	if (open >= 0 && (rc = free_emit(x, free_inv(F, open), &par)) < 0)
		return rc;
	for (int p = 0; p < F->nc; p++)
		if (F->cur[p] != F->tgt[p])
			return SOLVE_ESTAGE;
	return par ? SOLVE_ESTAGE : 0;
}

/* Even n: the edge set the wings vote for (each wing votes for the
 * colours it shows on its edge), made legal (an even flip sum). */
static void choose_edges(struct ctx *x, const int8_t *e_of3,
			 uint8_t ecol[12][2])
{
	int score[12][6][6];
	memset(score, 0, sizeof score);
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		wing_orbit(x, &o, k);
		for (int i = 0; i < NPOS; i++) {
			int col[2] = {0, 0}, e = 0;
			for (int s = 0; s < 2; s++) {
				const uint16_t *a = o.st[i][s];
				int es = e_of3[idx3(x->m, a[0], a[1], a[2])];
				e = es / 2;
				col[es % 2] = cube_get(x->c, a[0], a[1], a[2]);
			}
			score[e][col[0]][col[1]]++;
		}
	}
	int used_e = 0;
	uint64_t used_pair = 0; /* bit 6·min + max */
	for (int round = 0; round < 12; round++) {
		int be = -1, b0 = 0, b1 = 0, bs = -1;
		for (int e = 0; e < 12; e++) {
			if (used_e >> e & 1)
				continue;
			for (int a = 0; a < 6; a++)
				for (int b = 0; b < 6; b++) {
					int lo = a < b ? a : b, hi = a ^ b ^ lo;
					if (a == b || a == (b + 3) % 6 ||
					    used_pair >> (6 * lo + hi) & 1)
						continue;
					if (score[e][a][b] > bs) {
						bs = score[e][a][b];
						be = e, b0 = a, b1 = b;
					}
				}
		}
		int lo = b0 < b1 ? b0 : b1, hi = b0 ^ b1 ^ lo;
		used_e |= 1 << be;
		used_pair |= 1ull << (6 * lo + hi);
		ecol[be][0] = (uint8_t)b0;
		ecol[be][1] = (uint8_t)b1;
	}
	char s[54];
	int cpar, epar, flip;
	reduced3(x, ecol, s);
	if (parities3(s, &cpar, &epar, &flip) == 0 && flip) {
		int be = 0, bl = 1 << 30;
		for (int e = 0; e < 12; e++) {
			int l = score[e][ecol[e][0]][ecol[e][1]] -
				score[e][ecol[e][1]][ecol[e][0]];
			if (l < bl)
				bl = l, be = e;
		}
		uint8_t t = ecol[be][0];
		ecol[be][0] = ecol[be][1];
		ecol[be][1] = t;
	}
}

static int pair_all(struct ctx *x, const int8_t *e_of3,
		    uint8_t ecol[12][2])
{
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		struct orbit o;
		uint8_t cur[NPOS], tgt[NPOS];
		wing_orbit(x, &o, k);
		read_orbit(x, &o, cur);
		wing_targets(x, &o, e_of3, ecol, tgt);
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		long rc = solve_orbit(x, &o, cur, tgt);
		if (rc < 0)
			return (int)rc;
	}
	return 0;
}

/* PLL parity: with every edge paired, r2 U2 r2 Uw2 r2 Uw2 (r the inner
 * layers of the R half, Uw the U half: 2R and Uw on 4×4, 2-3Rw and 3Uw
 * on 6×6) turns the U layer by U2 and swaps the UF and UB dedges back
 * whole: corners even, edges odd, centers and pairs kept. Six moves, where
 * re-pairing a wing orbit against a swapped edge set took 20 to 60. */
static int stage_pll(struct ctx *x)
{
	int h = x->n / 2, rc = 0;
	for (int k = 0; k < 6 && rc == 0; k++) {
		if (k % 2 == 0)
			rc = emit_block(x, CUBE_X, 1, h - 1, 2);
		else
			rc = emit_block(x, CUBE_Y, 0, k == 1 ? 0 : h - 1, 2);
	}
	return rc;
}

/* The two-phase search keeps shortening its answer until it reaches the
 * target or a budget of polls (one per 4096 nodes) runs out: counted in
 * nodes, not time, so the answer is the same from run to run; the
 * caller's poll can still stop it. Measured: 25 polls (about 20 ms)
 * take the 3×3 stage from 20.7 to 19.0 moves on average; 400 polls only
 * to 18.6. */
#define TWOPHASE_POLLS 25
#define TWOPHASE_TARGET 18

struct budget {
	const reduce_limits *lim;
	long left;
	int stopped; /* the caller's poll said stop */
};

static int budget_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct budget *b = ctx;
	if (b->lim && b->lim->poll && b->lim->poll(b->lim->ctx, done, total))
		return b->stopped = 1;
	return b->left >= 0 && --b->left <= 0;
}

static int stage_3x3(struct ctx *x, const void *tables)
{
	uint8_t ecol[12][2];
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++) {
			int i = cubie__edge_facelet[e][s];
			ecol[e][s] = (uint8_t)cube_get(x->c, i / 9,
						       big_of3(x->n, i % 9 / 3),
						       big_of3(x->n, i % 3));
		}
	char s[54];
	reduced3(x, ecol, s);
	cubie3 cc;
	cube_orientation or3;
	if (cube3_from_facelets(s, 54, &cc, &or3) < 0 || or3.moves[0])
		return SOLVE_ESTAGE;
	struct budget bg = {x->lim, x->polls, 0};
	solve_limits lim = {.max_length = 24, .target_length = TWOPHASE_TARGET,
			    .poll = budget_poll, .ctx = &bg};
	cube_move mv[32];
	int k = twophase_solve(tables, &cc, &lim, mv, 32);
	if (k == SOLVE_ENOTFOUND && !bg.stopped) {
		/* nothing within the budget: search as long as it takes
		 * (only the caller's poll stops it), for any 21 or less */
		bg.left = -1;
		lim.target_length = 21;
		k = twophase_solve(tables, &cc, &lim, mv, 32);
	}
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		int rc = emit(x, mv[i].axis, mv[i].lo == 0 ? 0 : x->m, mv[i].qt);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int all_solved(const struct ctx *x)
{
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < x->n; r++)
			for (int c = 0; c < x->n; c++)
				if (cube_get(x->c, f, r, c) != x->tcol[f])
					return 0;
	return 1;
}

/* Whole-cube rotation k of 24 (0 none): a face brought up by x, x2, x',
 * z or z', then y^(k%4); inverse != 0 undoes it. */
static void rotate(cube_t *c, int k, int inverse)
{
	static const int pre[6][2] = {{0, 0}, {0, 1}, {0, 2},
				      {0, 3}, {2, 1}, {2, 3}};
	int m = c->n - 1, a = k / 4, b = k % 4;
	if (!inverse) {
		cube_turn(c, pre[a][0], 0, m, pre[a][1]);
		cube_turn(c, CUBE_Y, 0, m, b);
	} else {
		cube_turn(c, CUBE_Y, 0, m, (4 - b) & 3);
		cube_turn(c, pre[a][0], 0, m, (4 - pre[a][1]) & 3);
	}
}

/* The moves found for the rotated cube, turned into moves for c itself:
 * with c' = c ρ solved by M', c is solved by ρ M' ρ⁻¹ = the moves ρ m' ρ⁻¹
 * one by one, each a turn of the same layers about another axis, seen
 * from one end or the other (found on a 3×3). The answer is checked on
 * c, and the frame read from where it ends. */
static int unrotate(struct ctx *x, const cube_t *c, reduce_result *r)
{
	_Alignas(64) unsigned char b1[512], b2[512];
	cube_t *t = (cube_t *)(void *)b1, *u = (cube_t *)(void *)b2;
	int to_axis[3], mirror[3], q1[3], m = x->m;
	for (int a = 0; a < 3; a++) {
		cube_init(t, 3);
		rotate(t, x->rot, 0);
		cube_turn(t, a, 0, 0, 1);
		rotate(t, x->rot, 1);
		to_axis[a] = -1;
		for (int b = 0; b < 3 && to_axis[a] < 0; b++)
			for (int l = 0; l <= 2; l += 2)
				for (int q = 1; q <= 3; q += 2) {
					cube_init(u, 3);
					cube_turn(u, b, l, l, q);
					if (cube_equal(t, u)) {
						to_axis[a] = b;
						mirror[a] = l == 2;
						q1[a] = q;
					}
				}
		if (to_axis[a] < 0)
			return SOLVE_ESTAGE;
	}
	for (size_t i = 0; i < x->count; i++) {
		cube_move *mv = &x->out[i];
		int a = mv->axis, lo = mv->lo, hi = mv->hi;
		mv->axis = (uint8_t)to_axis[a];
		mv->qt = (uint8_t)(mv->qt * q1[a] & 3);
		if (mirror[a]) {
			mv->lo = (uint16_t)(m - hi);
			mv->hi = (uint16_t)(m - lo);
		}
	}
	cube_copy(x->c, c);
	cube__apply_trusted(x->c, x->out, x->count);
	char centers[6];
	for (int f = 0; f < 6; f++) {
		x->tcol[f] = cube_get(x->c, f, 0, 0);
		x->face_of[x->tcol[f]] = f;
		centers[f] = cube_face_letters[x->tcol[f]];
	}
	if (!all_solved(x))
		return SOLVE_ESTAGE;
	int rot = cubie__rotation_of_centers(centers);
	if (rot < 0)
		return SOLVE_ESTAGE;
	cubie__orientation(rot, &r->orient);
	return 0;
}

/* One run of the stages on a fresh copy of c, into x->out. Returns the
 * count or an error. */
static int solve_variant(struct ctx *x, const cube_t *c, const void *tables,
			 const int8_t *e_of3, reduce_result *r)
{
	int n = x->n;
	cube_copy(x->c, c);
	x->count = 0;
	memset(r, 0, sizeof *r);
	rotate(x->c, x->rot, 0);
	choose_frame(x);
	char centers[6];
	for (int f = 0; f < 6; f++)
		centers[f] = cube_face_letters[x->tcol[f]];
	int rot = cubie__rotation_of_centers(centers);
	if (rot < 0)
		return SOLVE_ESTAGE;
	cubie__orientation(rot, &r->orient);

	int rc;
	stage_begin(x, r, REDUCE_OLL_PARITY);
	if ((rc = stage_oll(x, e_of3, r)) < 0)
		return rc;
	stage_end(x, r, REDUCE_OLL_PARITY);

	stage_begin(x, r, REDUCE_CENTERS);
	if ((rc = stage_centers(x)) < 0)
		return rc;
	if (x->split[0] + x->split[1] + x->split[2] + x->split[3] > 0) {
		/* staged: each step already simplified on its own, and kept
		 * apart so that center_steps says where each ends */
		r->stage[REDUCE_CENTERS].count =
			(int)x->count - r->stage[REDUCE_CENTERS].start;
		memcpy(r->center_steps, x->split, sizeof x->split);
	} else {
		stage_end(x, r, REDUCE_CENTERS);
	}

	stage_begin(x, r, REDUCE_EDGES);
	if (EB_BEAM(n) && (rc = beam_edges(x)) < 0)
		return rc;
	uint8_t ecol[12][2];
	if (n % 2) {
		for (int e = 0; e < 12; e++)
			for (int s = 0; s < 2; s++) {
				int i = cubie__edge_facelet[e][s];
				ecol[e][s] = (uint8_t)cube_get(
					x->c, i / 9, big_of3(n, i % 9 / 3),
					big_of3(n, i % 3));
			}
	} else {
		choose_edges(x, e_of3, ecol);
	}
	if ((rc = pair_all(x, e_of3, ecol)) < 0)
		return rc;
	stage_end(x, r, REDUCE_EDGES);

	stage_begin(x, r, REDUCE_PLL_PARITY);
	char s3[54];
	int cpar, epar, flip;
	reduced3(x, ecol, s3);
	if (parities3(s3, &cpar, &epar, &flip) < 0 || flip)
		return SOLVE_ESTAGE;
	if (cpar != epar) {
		r->pll_parity = 1;
		if ((rc = stage_pll(x)) < 0)
			return rc;
	}
	stage_end(x, r, REDUCE_PLL_PARITY);

	stage_begin(x, r, REDUCE_3X3);
	if ((rc = stage_3x3(x, tables)) < 0)
		return rc;
	stage_end(x, r, REDUCE_3X3);

	if (!all_solved(x))
		return SOLVE_ESTAGE;
	if (x->rot && (rc = unrotate(x, c, r)) < 0)
		return rc;
	r->count = (int)x->count;
	return r->count;
}

int reduce_solve(const void *tables, const cube_t *c, const reduce_limits *lim,
		 void *work, size_t work_size, cube_move *out, size_t cap,
		 reduce_result *res)
{
	if (!tables || !c || !work || !out || !res)
		return CUBE_EINVAL;
	int n = c->n;
	if (n < REDUCE_MIN_N || n > REDUCE_MAX_N)
		return CUBE_ESIZE;
	if (work_size < reduce_work_size(n))
		return CUBE_EINVAL;

	struct ctx x;
	memset(&x, 0, sizeof x);
	x.w = (struct rwork *)work;
	x.c = (cube_t *)(void *)((unsigned char *)work + cube_offset());
	char *fl = (char *)x.c + ((cube_sizeof(n) + 63) & ~(size_t)63);
	x.n = n;
	x.m = n - 1;
	x.out = out;
	x.cap = cap;
	x.lim = lim;

	/* legal? the cube's own checks, then the wings */
	size_t len = 6u * (size_t)n * (size_t)n;
	cube_to_facelets(c, fl);
	cube_problem pr[1];
	cube_validation_result vr;
	if (cube_validate(fl, len, pr, 1, &vr) != 0)
		return CUBE_EINVALID;
	cube_copy(x.c, c);
	if (STAGED(n))
		stagew_of(&x)->built = 0;
	x.w->om.built = 0;
	if (BAR_ON(n))
		barlib_of(&x)->built = 0;
	for (int id = 0; id < M_COUNT; id++) {
		if (build_model(&x.w->model[id], id,
				(cube_t *)(void *)x.w->sim, x.w->queue) < 0)
			return SOLVE_ESTAGE;
	}
	if (!wings_legal(&x))
		return CUBE_EINVALID;

	int8_t e_of3[54];
	memset(e_of3, -1, sizeof e_of3);
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++)
			e_of3[cubie__edge_facelet[e][s]] = (int8_t)(2 * e + s);

	/* the variants: threshold of the free center phase (stickers per
	 * move), the frame's rank on even n, the whole-cube rotation; the
	 * first is the one measured best alone */
	static const int var[VARIANTS][4] = {
		{1, 3, 0, 0}, {1, 2, 1, 5}, {2, 7, 2, 10}, {2, 5, 3, 15},
		{1, 3, 0, 7}, {1, 3, 1, 2}, {1, 3, 2, 13}, {1, 3, 3, 20},
		{1, 3, 4, 0}, {1, 2, 0, 9}, {1, 3, 5, 18}, {2, 7, 1, 22},
		{1, 3, 0, 4}, {1, 2, 1, 11}, {2, 7, 0, 17}, {1, 3, 2, 3},
		{2, 5, 1, 21}, {1, 3, 0, 14}, {1, 2, 3, 8}, {1, 3, 6, 1},
		{2, 7, 0, 19}, {1, 3, 4, 12}, {1, 2, 2, 23}, {1, 3, 1, 6},
	};
	reduce_result r, best;
	cube_move *alt = (cube_move *)(void *)((unsigned char *)work +
					       alt_offset(n));
	size_t alt_cap = reduce_max_moves(n) < cap ? reduce_max_moves(n) : cap;
	int nbest = -1, best_tcol[6];
	for (int v = 0; v < variants(n); v++) {
		x.c_num = var[v][0], x.c_den = var[v][1];
		x.frame = var[v][2];
		x.rot = var[v][3];
		x.staged = STAGED(n);
		x.om_evals = 0;
		x.polls = variants(n) > 1 ? 1 : TWOPHASE_POLLS;
		x.out = v == 0 ? out : alt;
		x.cap = v == 0 ? cap : alt_cap;
		int k = solve_variant(&x, c, tables, e_of3, &r);
		if (k == CUBE_ESPACE && v > 0)
			continue; /* longer than the answer in hand */
		if (k == SOLVE_ENOTFOUND && v > 0)
			break; /* the caller's poll: keep what is in hand */
		if (k < 0)
			return k;
		if (nbest < 0 || k < nbest) {
			if (v > 0)
				memcpy(out, alt, (size_t)k * sizeof *out);
			nbest = k;
			best = r;
			memcpy(best_tcol, x.tcol, sizeof best_tcol);
		}
	}
	if (variants(n) > 1) {
		/* the winner's 3×3 searched on with the full budget: the
		 * same search continued, so never longer */
		int start = best.stage[REDUCE_3X3].start;
		cube_copy(x.c, c);
		cube__apply_trusted(x.c, out, (size_t)start);
		x.out = out;
		x.cap = cap;
		x.count = (size_t)start;
		x.polls = TWOPHASE_POLLS;
		for (int f = 0; f < 6; f++) {
			x.tcol[f] = best_tcol[f];
			x.face_of[best_tcol[f]] = f;
		}
		int rc = stage_3x3(&x, tables);
		if (rc == SOLVE_ENOTFOUND) {
			/* stopped by the caller's poll before it found
			 * anything: out still holds the short search's
			 * answer */
			*res = best;
			return nbest;
		}
		if (rc < 0)
			return rc;
		stage_end(&x, &best, REDUCE_3X3);
		if (!all_solved(&x))
			return SOLVE_ESTAGE;
		best.count = (int)x.count;
		nbest = best.count;
	}
	*res = best;
	return nbest;
}

size_t reduce_stage_tables_size(void)
{
	return sizeof(struct st_shared);
}

size_t reduce_stage_tables_work_size(void)
{
	size_t w = 0;
	for (int n = 4; n <= 7; n++)
		if (reduce_work_size(n) > w)
			w = reduce_work_size(n);
	return w;
}

int reduce_stage_tables_build(void *tables, size_t size, void *work,
			      size_t work_size, const reduce_limits *lim)
{
	if (!tables || !work || size < reduce_stage_tables_size() ||
	    work_size < reduce_stage_tables_work_size())
		return CUBE_EINVAL;
	struct st_shared *sh = (struct st_shared *)tables;
	sh->magic = 0;
	sh->size = sizeof *sh;
	/* one size of each kind, built as a solve of it would */
	static const int rep[ST_KINDS] = {4, 5, 6, 9};
	reduce_limits own = {lim ? lim->poll : NULL, lim ? lim->ctx : NULL,
			     NULL};
	for (int k = 0; k < ST_KINDS; k++) {
		struct ctx x;
		memset(&x, 0, sizeof x);
		x.w = (struct rwork *)work;
		x.n = rep[k];
		x.m = rep[k] - 1;
		x.lim = &own;
		if (poll_now(&x))
			return SOLVE_ENOTFOUND;
		struct stagew *S = stagew_of(&x);
		S->built = 0;
		int rc = st_build(&x);
		if (rc < 0)
			return rc;
		memcpy(&sh->kind[k], &S->own, sizeof S->own);
	}
	struct ctx x;
	memset(&x, 0, sizeof x);
	x.w = (struct rwork *)work;
	x.n = 7;
	x.m = 6;
	int rc = bar_build(&sh->bars, barlib_of(&x)->slot,
			   (cube_t *)(void *)x.w->sim);
	if (rc < 0)
		return rc;
	sh->magic = ST_MAGIC;
	return 0;
}
