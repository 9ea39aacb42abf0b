/* cube.h — the public surface of cubed's core: errors, the n×n×n state and
 * its one turn primitive.
 *
 * Contract for every function in core/:
 *   - an int result >= 0 is success (or a count); < 0 is a cube_err code,
 *     named by cube_errname() and explained by cube_strerror();
 *   - arguments are checked before any state is touched: a failing call
 *     leaves its outputs unchanged unless its comment says otherwise;
 *   - core does no I/O, keeps no mutable globals, never prints, never exits
 *     and never allocates: callers own every buffer (ask the *_sizeof /
 *     *_needed functions how big).
 *
 * Conventions (docs/conventions.md): faces U R F D L B (indices 0..5); axes x→R, y→U,
 * z→F. A turn is an axis, a range of layers [lo, hi] counted 0-based from
 * the axis' positive face (R, U, F), and a number of quarter turns clockwise
 * as seen from that positive face. The facelets string has 6·n² letters,
 * face by face in URFDLB order, each face row by row as seen from outside in
 * the usual net (U with B at its top edge, D with F at its top edge, F R B L
 * with U at their top edge).
 */
#ifndef CUBED_CUBE_H
#define CUBED_CUBE_H

#include <stddef.h>
#include <stdint.h>

/* One list of every core error: X(enum name, value, code, message). The
 * code is the stable machine-readable name clients see. */
#define CUBE_ERRORS(X)                                                         \
	X(CUBE_EINVAL, -1, "invalid_argument", "invalid argument")             \
	X(CUBE_ESIZE, -2, "size_out_of_range",                                 \
	  "cube size must be between 1 and 1024")                              \
	X(CUBE_ELENGTH, -3, "facelets_length",                                 \
	  "facelets string does not have 6·n² letters for any allowed n")      \
	X(CUBE_ELETTER, -4, "facelets_letter",                                 \
	  "facelets string has a character other than U R F D L B")            \
	X(CUBE_ESPACE, -5, "buffer_too_small", "output buffer is too small")   \
	X(CUBE_EINVALID, -6, "invalid_cube",                                   \
	  "the stickers or cubies are not a legal cube")                       \
	X(CUBE_ERANGE, -7, "out_of_range", "value out of range")               \
	X(ALG_ETOKEN, -10, "unknown_token", "unknown token")                   \
	X(ALG_ESPACE, -11, "missing_space",                                    \
	  "moves must be separated by whitespace")                             \
	X(ALG_ELAYER, -12, "layer_out_of_range",                               \
	  "layer outside the cube, or an empty layer range")                   \
	X(ALG_EEVEN, -13, "slice_on_even_cube",                                \
	  "M, E and S name the middle slice, which exists only on odd cubes")  \
	X(ALG_EBRACKET, -14, "unbalanced_bracket", "unbalanced bracket")       \
	X(ALG_ESYNTAX, -15, "syntax", "malformed notation")                    \
	X(ALG_EREPEAT, -16, "amount_too_large",                                \
	  "amount or repetition count too large")                              \
	X(ALG_ELONG, -17, "too_many_moves",                                    \
	  "expanded algorithm has more moves than the limit")                  \
	X(ALG_EDEEP, -18, "nesting_too_deep", "brackets nested too deeply")    \
	X(ALG_EWORK, -19, "too_much_work",                                     \
	  "applying the algorithm would move more stickers than the limit")

enum cube_err {
	CUBE_OK = 0,
#define CUBE_ERR_ENUM(name, value, code, msg) name = value,
	CUBE_ERRORS(CUBE_ERR_ENUM)
#undef CUBE_ERR_ENUM
};

/* Stable code ("unknown_token") and human sentence for an error; both
 * return a static string, "unknown_error" / "unknown error" for others. */
const char *cube_errname(int err);
const char *cube_strerror(int err);

enum cube_face { CUBE_U, CUBE_R, CUBE_F, CUBE_D, CUBE_L, CUBE_B };
enum cube_axis { CUBE_X, CUBE_Y, CUBE_Z };

#define CUBE_MIN_N 1
#define CUBE_MAX_N 1024

/* A state. Stickers hold face indices 0..5 (the colour of face f is f).
 * For n > 3 each face's stored grid carries a lazy quarter-turn offset
 * (rot) so that a face turn costs O(n), not O(n²); read stickers through
 * cube_get()/cube_to_facelets(), never st[] directly. */
typedef struct cube {
	int n;
	unsigned char rot[6];
	unsigned char pad[2];
	unsigned char st[]; /* 6·n² stickers */
} cube_t;

/* One turn: layers [lo, hi] (0-based from the + face of axis), qt quarter
 * turns clockwise seen from that face (0..3). lo == 0 && hi == n-1 is a
 * whole-cube rotation. */
typedef struct cube_move {
	uint8_t axis;
	uint8_t qt;
	uint16_t lo, hi;
} cube_move;

/* Bytes a cube_t of size n needs (struct plus stickers); 0 if n is out of
 * range. The caller allocates it, suitably aligned (malloc is fine). */
size_t cube_sizeof(int n);

/* Make c the solved cube of size n. */
int cube_init(cube_t *c, int n);

/* Copy src into dst; dst must have room for cube_sizeof(src->n). */
void cube_copy(cube_t *dst, const cube_t *src);

/* 1 if a and b show the same stickers (same n), else 0. */
int cube_equal(const cube_t *a, const cube_t *b);

/* 1 if every face shows one colour, the colours in URFDLB order (solved in
 * the standard orientation), else 0. */
int cube_is_solved(const cube_t *c);

/* Apply one turn. Checks axis < 3, lo <= hi < n, and qt is reduced mod 4.
 * Costs O(n·(hi-lo+1)); a face layer adds O(1) (lazy), and n == 3 uses
 * precomputed sticker cycles. */
int cube_turn(cube_t *c, int axis, int lo, int hi, int qt);

/* Apply count moves in order (each checked first: on error nothing has been
 * applied). */
int cube_apply_moves(cube_t *c, const cube_move *m, size_t count);

/* Sticker of face f at row r, column c as seen in the net. No checks. */
int cube_get(const cube_t *c, int f, int r, int col);

/* The 6·n² facelet letters of c into out (no NUL is written). out must
 * hold 6·n² bytes. */
void cube_to_facelets(const cube_t *c, char *out);

/* Size n for a facelets string of len letters (len = 6·n²), or
 * CUBE_ELENGTH. */
int cube_size_from_length(size_t len);

/* Read a facelets string into c (which must have room for cube_sizeof(n)).
 * n is the expected size, or 0 to take it from the length. Letters must be
 * from URFDLB. On error *bad (if not NULL) is the byte offset of the first
 * bad letter (or len for a length error) and c is unchanged. This checks the
 * alphabet and length only; legality is validation's job. */
int cube_from_facelets(cube_t *c, int n, const char *s, size_t len,
		       size_t *bad);

/* Letters for face indices, "URFDLB". */
extern const char cube_face_letters[7];

/* A whole-cube orientation: one of the 24 rotations. up and front are the
 * face letters ('U'…'B') of the colours seen on the U and F sides;
 * moves is the shortest rotation sequence ("", "x", "y2 z'", …) that takes
 * the cube as given to the standard orientation. */
typedef struct cube_orientation {
	char up, front;
	char moves[8];
} cube_orientation;

#endif
