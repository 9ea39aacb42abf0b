/* validate.h — validation of a facelets string of any size, with every
 * reason it is not a legal cube (validate.c): the reasons' X-macro table,
 * the problems found, what could not be checked, and the orientation a
 * legal cube is in. cubie.h includes it, so cubie.h's users see it too;
 * validate.c needs nothing of the cubie model but the piece tables
 * (pieces.h).
 *
 * Same contract as cube.h: no I/O, no allocation, no mutable globals.
 */
#ifndef CUBED_VALIDATE_H
#define CUBED_VALIDATE_H

#include <stddef.h>

#include "cube.h"

/* Reasons a facelets string is not a legal cube: X(enum, code, sentence). */
#define CUBE_VALIDATION(X)                                                     \
	X(CV_LENGTH, "facelets_length",                                        \
	  "the string does not have 6·n² letters for any n from 1 to 1024")    \
	X(CV_LETTER, "facelets_letter",                                        \
	  "a character is not one of U R F D L B")                             \
	X(CV_COLOR_COUNT, "color_count",                                       \
	  "a colour does not appear exactly n² times")                         \
	X(CV_CENTERS, "centers",                                               \
	  "the centers are not six distinct colours in a real arrangement")    \
	X(CV_NO_SUCH_CORNER, "no_such_corner",                                 \
	  "three stickers at a corner form no real corner piece")              \
	X(CV_DUPLICATE_CORNER, "duplicate_corner",                             \
	  "a corner piece appears more than once")                             \
	X(CV_NO_SUCH_EDGE, "no_such_edge",                                     \
	  "two stickers at an edge form no real edge piece")                   \
	X(CV_DUPLICATE_EDGE, "duplicate_edge",                                 \
	  "an edge piece appears more than once")                              \
	X(CV_TWIST, "twist", "a corner is twisted: the twists do not sum to a "  \
			     "multiple of 3")                                  \
	X(CV_FLIP, "flip", "an edge is flipped: the flips do not sum to an "   \
			   "even number")                                      \
	X(CV_PARITY, "parity",                                                 \
	  "two pieces are swapped: corner and edge permutation parities differ") \
	X(CV_CENTER_ORBIT, "center_orbit",                                     \
	  "a ring of center pieces does not hold four stickers of each colour")

enum cube_validation {
#define CV_ENUM(name, code, sentence) name,
	CUBE_VALIDATION(CV_ENUM)
#undef CV_ENUM
	CV_COUNT
};

const char *cube_validation_code(int reason);     /* "twist" */
const char *cube_validation_sentence(int reason); /* the sentence above */

/* One problem found: the reason, and where (a facelet offset, a corner or
 * edge position 0..7 / 0..11, a colour's face index, or -1), and a short
 * detail such as the letters seen ("UUF"), NUL-terminated. */
typedef struct cube_problem {
	int reason;
	int where;
	char detail[16];
} cube_problem;

/* What validation of a size-n cube could not check (n >= 4), as bit flags:
 * e.g. edge permutation parity, which reduction solvers discover later. */
#define CV_UNCHECKED_EDGE_PAIRING 1u  /* wings may not pair into edges:
					* no longer set (wings are read) */
#define CV_UNCHECKED_PARITY 2u        /* permutation parity of wings/centers */
#define CV_UNCHECKED_CENTER_PLACEMENT 4u /* which orbit positions hold what;
					  * never set: four of each colour per
					  * orbit is the whole condition */

typedef struct cube_validation_result {
	int n;                  /* size from the length, 0 if none */
	int count;              /* problems found (all of them) */
	unsigned unchecked;     /* CV_UNCHECKED_* flags */
	cube_orientation orient; /* when count == 0: from the centers (odd n)
				  * or the DBL corner (even n); else zero */
} cube_validation_result;

/* Validate a facelets string of any size. Writes up to cap problems to
 * out[] (all reasons found, several at once, in the order of the list
 * above) and fills *res; returns res->count (0 = valid). */
int cube_validate(const char *s, size_t len, cube_problem *out, size_t cap,
		  cube_validation_result *res);

#endif
