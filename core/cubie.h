/* cubie.h — the cubie model of 3×3 and 2×2 cubes (seeds 001, 002): a state
 * and a transformation are the same structure, composition applies one to
 * the other, the solved cube is the identity. Also the conversions between
 * cubies and facelets (in any whole-cube orientation), validation with
 * reasons (declared in validate.h, included here), the unique index (Myrvold–Ruskey ranks) and the 364-feature
 * vector.
 *
 * Numbering (Kociemba's, so facelet strings interoperate with Kociemba-style
 * solvers): corner positions and pieces 0..7 = URF UFL ULB UBR DFR DLF DBL
 * DRB; edges 0..11 = UR UF UL UB DR DF DL DB FR FL BL BR. cp[i] is the piece
 * at position i and co[i] its twist there (0..2: which of the position's
 * three facelets, read clockwise starting from its U/D facelet, holds the
 * piece's U/D colour); ep[i], eo[i] likewise (flip 0..1). On a 2×2 the
 * corners are the same, and the state is taken with the DBL corner (6) at
 * home, since a 2×2 has no centers to fix its orientation.
 *
 * Same contract as cube.h: >= 0 success, < 0 a cube_err; no I/O, no
 * allocation, no mutable globals.
 */
#ifndef CUBED_CUBIE_H
#define CUBED_CUBIE_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"
#include "validate.h"

typedef struct cubie3 {
	uint8_t cp[8], co[8];
	uint8_t ep[12], eo[12];
} cubie3;

typedef struct cubie2 {
	uint8_t cp[8], co[8];
} cubie2;

/* The solved state (= identity). */
void cubie3_solved(cubie3 *c);
void cubie2_solved(cubie2 *c);

/* out = a then b: the state reached by applying transformation b to state
 * a. out may alias a or b. Costs a few nanoseconds. */
void cubie3_compose(const cubie3 *a, const cubie3 *b, cubie3 *out);
void cubie2_compose(const cubie2 *a, const cubie2 *b, cubie2 *out);

/* out = a⁻¹ (compose(a, a⁻¹) = solved). out may alias a. */
void cubie3_invert(const cubie3 *a, cubie3 *out);
void cubie2_invert(const cubie2 *a, cubie2 *out);

/* 1 if equal. */
int cubie3_equal(const cubie3 *a, const cubie3 *b);
int cubie2_equal(const cubie2 *a, const cubie2 *b);

/* The transformation of one face turn (face 0..5 = U R F D L B, qt 1..3
 * clockwise quarter turns seen from that face; other qt are reduced mod 4
 * as cube_turn does). Whole-cube rotations and slice turns move centers
 * and have no cubie form: apply them to facelets. On a 2×2, D, L and B
 * move the DBL corner: compose them freely, then cubie2_normalize the
 * result (normalising after each turn would change what later turns mean,
 * since it turns the whole cube). */
int cubie3_face_turn(int face, int qt, cubie3 *out);
int cubie2_face_turn(int face, int qt, cubie2 *out);

/* out = c turned as a whole so that DBL is home and untwisted (on a 2×2 a
 * whole-cube rotation is a corner transformation like any other). out may
 * alias c. CUBE_EINVALID (out unchanged) if c's corners are not a
 * permutation with twist sum ≡ 0 mod 3. */
int cubie2_normalize(const cubie2 *c, cubie2 *out);

/* Facelets ⇄ cubies. cube3_from_facelets reads a 3×3 whose centers may be
 * in any of the 24 orientations: it reports the orientation and returns the
 * cubies of the cube turned to standard orientation. cube2_from_facelets
 * does the same for a 2×2, the orientation being the one that puts the DBL
 * corner (the piece with colours D, L, B) home. Both fail with
 * CUBE_EINVALID if the stickers are not a legal cube (cube_validate says
 * why). The *_to_facelets functions write 54 / 24 letters (no NUL) in the
 * standard orientation. */
int cube3_from_facelets(const char *s, size_t len, cubie3 *out,
			cube_orientation *orient);
int cube2_from_facelets(const char *s, size_t len, cubie2 *out,
			cube_orientation *orient);
void cube3_to_facelets(const cubie3 *c, char out[54]);
void cube2_to_facelets(const cubie2 *c, char out[24]);

/* 1 if the cubies are a reachable state (permutations, twist sum ≡ 0 mod 3,
 * flip sum even, corner and edge parity equal), else 0. A 2×2 state must
 * also be normalised (DBL home, twist 0). */
int cubie3_is_valid(const cubie3 *c);
int cubie2_is_valid(const cubie2 *c);

/* ----------------------------------------------------------------- index */

/* The unique index of a state, as two mixed-radix parts whose value is
 * corner·CUBE3_EDGE_STATES + edge (3×3) or just corner (2×2, edge = 0):
 *   3×3 corner = cp_rank·3⁷ + co, cp_rank < 8!, co < 3⁷ → < 88,179,840
 *   3×3 edge   = ep_rank·2¹¹ + eo, ep_rank < 12!/2 (parity follows the
 *                corners), eo < 2¹¹ → < 490,497,638,400
 *   2×2 corner = cp_rank·3⁶ + co over the 7 corners other than DBL
 *                → < 3,674,160
 * Permutation ranks are Myrvold–Ruskey (linear time), with digits
 * relabelled so the identity ranks 0: solved = index 0. */
#define CUBE3_CORNER_STATES 88179840ULL
#define CUBE3_EDGE_STATES 490497638400ULL
#define CUBE2_STATES 3674160ULL

typedef struct cube_index {
	uint64_t corner, edge;
} cube_index;

/* Rank a valid state (CUBE_EINVALID if not cubie*_is_valid). */
int cubie3_rank(const cubie3 *c, cube_index *out);
int cubie2_rank(const cubie2 *c, cube_index *out);
/* Unrank (CUBE_ERANGE if the index is out of range). */
int cubie3_unrank(const cube_index *ix, cubie3 *out);
int cubie2_unrank(const cube_index *ix, cubie2 *out);

/* Decimal text of a 3×3 index (up to 23 digits) or a 2×2 index; writes at
 * most cap bytes including the NUL, returns the length as snprintf. */
size_t cube_index_format(const cube_index *ix, int n, char *out, size_t cap);
/* Parse decimal digits (no sign, no spaces, no leading zeros except "0")
 * into an index for size n (2 or 3); CUBE_ERANGE past the last state,
 * CUBE_EINVAL for anything that is not such a number. */
int cube_index_parse(const char *s, size_t len, int n, cube_index *out);

/* -------------------------------------------------------------- features */

#define CUBE3_FEATURES 364

/* The 364-float feature vector of a 3×3 (seed 002), in this order:
 *   [6·i + c]       i = facelet 0..53 (URFDLB order), c = colour 0..5
 *                   (U R F D L B): 1.0 if facelet i shows colour c;
 *   [324 + p]       p = piece 0..19 (corners URF…DRB then edges UR…BR):
 *                   1.0 if the piece is at its home position;
 *   [344 + p]       1.0 if the piece is oriented (twist / flip 0) where it
 *                   is.
 * Everything else is 0.0. */
void cubie3_features(const cubie3 *c, float out[CUBE3_FEATURES]);

#endif
