/* alg.h — move notation: parse, print, invert, expand, simplify, count and
 * apply algorithms for an n×n×n cube.
 *
 * The grammar is WCA/SiGN as cubing.js reads it (docs/conventions.md):
 *   move      = [layers] family [amount] ["'"]
 *   layers    = N | N "-" M               (1-based, N < M for a range)
 *   family    = R U F D L B | Rw Uw Fw Dw Lw Bw | r u f d l b
 *             | M E S (odd n) | m e s (all inner layers) | x y z
 *             | Rv Uv Fv Dv Lv Bv (rotations)
 *   unit      = move | "." | "(" alg ")" [amount] ["'"]
 *             | "[" alg "," alg "]" [amount] ["'"]   commutator A B A' B'
 *             | "[" alg ":" alg "]" [amount] ["'"]   conjugate  A B A'
 *   alg       = units separated by whitespace; "//" starts a comment that
 *               runs to the end of the line.
 * Layer prefixes apply to the face families only: "3R" is the third layer
 * alone, "3Rw" / "3r" the three outer layers, "2-4Rw" / "2-4R" / "2-4r"
 * layers 2 to 4.
 *
 * Parsing builds a tree in a caller-owned node array; everything else reads
 * that tree. Nothing here allocates.
 */
#ifndef CUBED_ALG_H
#define CUBED_ALG_H

#include "cube.h"

enum alg_kind { ALG_MOVE, ALG_PAUSE, ALG_GROUP, ALG_COMM, ALG_CONJ };

/* Deepest bracket nesting the parser and iterator support. */
#define ALG_MAX_DEPTH 64

typedef struct alg_node {
	uint8_t kind;      /* enum alg_kind */
	uint8_t family;    /* moves: index into the family table (alg.c) */
	uint8_t axis;      /* moves: enum cube_axis */
	uint8_t qt;        /* moves: net quarter turns clockwise about +axis */
	uint16_t lo, hi;   /* moves: layers, 0-based from the + face */
	uint16_t outer;    /* moves: "a-b" prefix → a, else 0 */
	uint16_t inner;    /* moves: "a-b" → b, "a" → a, no prefix → 0 */
	int32_t amount;    /* as written, signed: R2' = -2, (…)3' = -3 */
	uint32_t offset;   /* byte offset of the unit's first character */
	int32_t next, prev;       /* siblings in the enclosing sequence, -1 */
	int32_t a_first, a_last;  /* group body / first operand, -1 if empty */
	int32_t b_first, b_last;  /* second operand of [A, B] and [A: B] */
	/* moves: sibling moves stored side by side (ids i, i+1, …, each the
	 * next of the one before) form a run. The first and the last move of
	 * a run hold its length (at most UINT16_MAX, longer runs are split),
	 * the moves between hold 0. A walk enters a run at one of its ends
	 * and can then read the run as an array. */
	uint16_t run;
	uint16_t pad;
} alg_node;

/* max_moves also bounds the walk over the expansion, which visits every
 * pause and bracket of every repetition, and each part of each (a
 * commutator has four, a conjugate three): more than (max_depth + 1)
 * steps per allowed move, plus one per byte of text, is ALG_ELONG too.
 * Only pauses or brackets without moves, repeated, come near that
 * ("((.)1000000)1000000" has no moves and 10¹² steps). */
typedef struct alg_limits {
	uint64_t max_moves;  /* expanded moves allowed (pauses not counted) */
	uint64_t max_work;   /* stickers moved when applied, 0 = no limit */
	uint32_t max_amount; /* largest amount or repetition literal */
	uint32_t max_depth;  /* bracket nesting, <= ALG_MAX_DEPTH */
} alg_limits;

/* Defaults: 100,000 moves, no work limit, amounts up to 1,000,000, depth
 * ALG_MAX_DEPTH. */
void alg_limits_default(alg_limits *lim);

typedef struct alg {
	alg_node *nodes;   /* caller's buffer */
	int32_t cap;       /* its capacity in nodes */
	int32_t count;     /* nodes used */
	int32_t root;      /* an ALG_GROUP with amount 1 holding the top level */
	int n;             /* cube size the algorithm was checked against */
	uint64_t length;   /* expanded moves, pauses excluded */
	uint64_t work;     /* stickers moved when applied (saturating) */
} alg_t;

typedef struct alg_error {
	int code;            /* a cube_err, CUBE_OK if none */
	size_t offset;       /* character (code point) offset of the problem */
	size_t byte_offset;  /* the same in bytes */
	size_t token_len;    /* bytes of the offending token (0 if none) */
} alg_error;

/* Node capacity that is always enough to parse len bytes. */
size_t alg_nodes_needed(size_t len);

/* Parse s[0..len) for a cube of size n into a, using nodes[0..cap). The
 * tree is checked against n (layers, M on even n) and the limits (NULL =
 * defaults). On error returns the code, fills *err (if not NULL) and a is
 * unusable. */
int alg_parse(alg_t *a, alg_node *nodes, size_t cap, int n, const char *s,
	      size_t len, const alg_limits *lim, alg_error *err);

/* Printing. Each function writes at most cap bytes including a NUL and
 * returns the length the full text needs (excluding the NUL), like
 * snprintf: if the result >= cap the output was truncated.
 *
 * alg_print_canonical: the tree in one standard spelling: single spaces,
 * comments dropped, "r"→"Rw", "3r"→"3Rw", "2Rw"→"Rw", "1R"/"1Rw"→"R",
 * "2-4R"→"2-4Rw", "Rv"→"x", "R1"→"R"; structure kept.
 * alg_print_inverse: the inverse, structure kept as cubing.js does: a
 * sequence reversed with each unit inverted, a move or group's amount
 * negated, [A, B] → [B, A], [A: B] → [A: B'].
 * alg_print_expanded: every move of the expansion in canonical spelling
 * (pauses dropped); inverse != 0 expands the inverse. */
size_t alg_print_canonical(const alg_t *a, char *out, size_t cap);
size_t alg_print_inverse(const alg_t *a, char *out, size_t cap);
size_t alg_print_expanded(const alg_t *a, int inverse, char *out, size_t cap);

/* Walk the expanded moves one at a time, without a buffer. */
typedef struct alg_iter {
	const alg_t *a;
	int depth;
	struct alg_frame {
		int32_t node;  /* container node */
		int32_t cur;   /* current child, -1 = start of part */
		int32_t reps;  /* repetitions left, including this one */
		uint8_t part;  /* index into the container's parts */
		uint8_t inv;   /* this container is walked inverted */
		uint8_t pinv;  /* the current part is walked inverted */
		uint8_t pad;
	} stack[ALG_MAX_DEPTH + 2];
} alg_iter;

void alg_iter_init(alg_iter *it, const alg_t *a, int inverse);
/* Next move: 1 with *node (its index) and *inverted set, 0 at the end.
 * Pauses are skipped. */
int alg_iter_next(alg_iter *it, int32_t *node, int *inverted);

/* The move a node stands for, inverted or not. */
cube_move alg_node_move(const alg_node *nd, int inverted);

/* Apply the expansion (or its inverse) to c; c->n must equal a->n. */
int alg_apply(const alg_t *a, cube_t *c, int inverse);

/* Write the expansion as plain moves into out[0..cap); returns the count
 * (a->length), or CUBE_ESPACE if cap is too small. */
int64_t alg_expand(const alg_t *a, int inverse, cube_move *out, size_t cap);

/* Metrics of a move list. A move of qt 0 counts nothing. HTM: an outer
 * block (touching a face) 1, an inner block 2, a rotation 0; QTM: the same
 * times 2 for a half turn; STM: any block 1, rotation 0; ETM: every move 1.
 */
typedef struct alg_metrics {
	uint64_t moves;  /* moves in the list (pauses never included) */
	uint64_t htm, qtm, stm, etm;
} alg_metrics;

void moves_metrics(const cube_move *m, size_t count, int n,
		   alg_metrics *out);
/* The same for an algorithm's expansion, computed from the tree in
 * O(nodes) (saturating at UINT64_MAX). */
void alg_metrics_of(const alg_t *a, alg_metrics *out);

/* Simplify a move list in place: merge moves on the same layers, across
 * moves of the same axis (which commute), drop what cancels. Returns the
 * new count. Amounts come out as 1, 2 or 3 quarter turns. The search for a
 * partner looks back at most ALG_SIMPLIFY_WINDOW moves of one axis, which
 * keeps the cost linear on adversarial input (no real algorithm has such
 * runs). */
#define ALG_SIMPLIFY_WINDOW 256
size_t moves_simplify(cube_move *m, size_t count);

/* Merge, in place, parallel turns into block turns: within each run of
 * consecutive moves of one axis (they commute), adjacent layers turned by
 * the same net amount become one block ("R 2R" → "Rw", "2R 3R" → "2-3Rw",
 * "R 2R'" stays). A run is rewritten only when that makes it shorter, in
 * order of layer; it never becomes a whole-cube rotation unless it held
 * one. The moves applied give the same state as before. Runs longer than
 * ALG_MERGE_RUN moves are taken in pieces of that many. Returns the new
 * count (never more than count). n is the cube size. */
#define ALG_MERGE_RUN 64
size_t moves_merge_blocks(cube_move *m, size_t count, int n);

/* Print a move list in standard notation for size n, choosing for each move
 * the plainest name: R/L, Rw/Lw, 3Rw, M/E/S, x/y/z, 3R/2L (the nearer
 * face), 2-3Rw; amounts as "", "2", "'". Returns the length as snprintf. */
size_t moves_print(const cube_move *m, size_t count, int n, char *out,
		   size_t cap);

/* Stickers moved by one move on size n (the work limit's unit). */
uint64_t move_work(const cube_move *m, int n);

#endif
