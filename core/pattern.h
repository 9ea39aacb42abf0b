/* pattern.h — pattern queries (seed 000): does a state fit a pattern, and in
 * which whole-cube orientations.
 *
 * A pattern has the shape of a facelets string: 6·n² places in URFDLB
 * order. Each place is
 *   - a face letter U R F D L B: that exact colour;
 *   - a digit 1..6 (generic): places with the same digit share one colour,
 *     places with different digits have different colours, and (as seed
 *     000 says of different match constants) a digit's colour differs from
 *     every colour named by a letter in the same pattern;
 *   - '*': anything.
 *
 * A query tries the pattern in all 24 whole-cube orientations. Orientation
 * (face, rotation) means: the pattern, turned as a whole so that its U side
 * lies on the cube's side `face` and then turned rotation degrees clockwise
 * about that side (seen from outside), fits the state place by place.
 * Precisely, with T_U = "", T_F = "x'", T_B = "x", T_R = "z", T_L = "z'",
 * T_D = "x2": the pattern after the moves "y^k T_face" (k = rotation/90)
 * fits the state; equivalently the state after the moves of `moves`
 * (the inverse rotation, "T_face' y^-k", written as shortly as possible)
 * fits the pattern as written.
 *
 * A named pattern is one or more pattern strings that must all fit in the
 * same orientation (some stages, like edges_paired, need several because a
 * pattern has only six digits).
 *
 * Compiled patterns are caller-owned buffers (pattern_sizeof); matching
 * never allocates. Same error contract as cube.h.
 */
#ifndef CUBED_PATTERN_H
#define CUBED_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "cubie.h"

/* Pattern errors are reported with the offset of the first bad place. */
typedef struct pattern_error {
	int code;       /* CUBE_ELENGTH, PATTERN_ECHAR, PATTERN_EDIGITS, … */
	size_t offset;  /* 0-based place index */
} pattern_error;

/* Extra error codes (values below core's list). */
enum {
	PATTERN_ECHAR = -40,   /* a character other than URFDLB, 1-6, '*' */
	PATTERN_EDIGITS = -41, /* a digit 0 or 7-9 (only six generics) */
	PATTERN_ENAME = -42,   /* no named pattern with that name for n */
};
/* "bad_pattern_char", "bad_pattern_digit", "unknown_pattern" and sentences. */
const char *pattern_errname(int err);
const char *pattern_strerror(int err);

/* An opaque compiled pattern of size n (one pattern string). */
typedef struct pattern pattern_t;

/* Bytes for a compiled pattern of size n with this text (depends on the
 * number of non-'*' places; an upper bound for n is pattern_sizeof(n, NULL,
 * 0)). */
size_t pattern_sizeof(int n, const char *s, size_t len);

/* Compile s (6·n² places) for size n (0 = from the length) into p, which
 * has room for pattern_sizeof(n, s, len) bytes. On error fills *err. */
int pattern_compile(pattern_t *p, int n, const char *s, size_t len,
		    pattern_error *err);

/* The size a compiled pattern is for. */
int pattern_size(const pattern_t *p);

typedef struct pattern_orientation {
	char face;      /* 'U'…'B': the cube side the pattern's U side is on */
	int16_t rotation; /* 0, 90, 180, 270 */
	char moves[12]; /* rotation moves that turn the state to fit, "" = none */
} pattern_orientation;

/* Orientations 0..23 in a fixed order: face U R F D L B, then rotation 0,
 * 90, 180, 270. */
void pattern_orientation_of(int k, pattern_orientation *out);

/* Try the state c (same n) against the patterns p[0..np) (all must fit in
 * the same orientation). Sets bit k of *mask for every orientation k that
 * fits; with first != 0 stops at the first fit. Returns the number of
 * fitting orientations found (0 = no match). A 3×3 query of all 24
 * orientations costs well under a microsecond. */
int pattern_match(const pattern_t *const *p, size_t np, const cube_t *c,
		  int first, uint32_t *mask);

/* --------------------------------------------------------- named patterns */

typedef struct pattern_named {
	const char *name;        /* "cross" */
	const char *description; /* one line */
	int nparts;              /* pattern strings that must all fit */
} pattern_named;

/* The named patterns that exist for size n, in a fixed order: count, and
 * the k-th (NULL past the end). 3×3: solved, cross, first_layer, f2l, eo
 * (F2L solved and the last layer's edges oriented: a cross on the last
 * face), oll (F2L and the last face one colour), pll (= solved); 2×2:
 * first_layer, solved; n >= 4: centers_solved, edges_paired, reduced;
 * every n: solved. */
int pattern_named_count(int n);
const pattern_named *pattern_named_at(int n, int k);
const pattern_named *pattern_named_find(int n, const char *name);

/* Write part `part` (0..nparts-1) of the named pattern's text for size n
 * into out (6·n² bytes, no NUL). */
int pattern_named_text(const pattern_named *pn, int n, int part, char *out);

/* ---------------------------------------------------------- piece queries */

/* Where the piece that belongs at a position is now, for 2×2 / 3×3
 * cubies: kind 0 = corner (0..7, URF…DRB), 1 = edge (0..11, UR…BR). */
typedef struct piece_info {
	int position;  /* where the piece is now */
	int orientation; /* its twist or flip there */
	int placed;    /* position == its home */
	int oriented;  /* orientation == 0 */
} piece_info;

int piece_query3(const cubie3 *c, int kind, int piece, piece_info *out);
int piece_query2(const cubie2 *c, int piece, piece_info *out);

/* Names of positions: "URF", "UFL", … and "UR", "UF", …; parse returns the
 * index or -1 (accepts any letter order naming the same position, e.g.
 * "FUR" = "URF"). */
const char *piece_corner_name(int i);
const char *piece_edge_name(int i);
int piece_parse(const char *s, size_t len, int *kind);

#endif
