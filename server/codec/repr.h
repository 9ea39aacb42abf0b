/* repr.h — a cube state in each of the representations the API answers
 * (docs/conventions.md, "Representations"), as jansson values, plus the list of
 * problems cube_validate finds as JSON. Builders only: which
 * representation a request may ask for, and the problems when it may not,
 * are the handlers' business (api_internal.h).
 *
 * Every builder returns a new reference, or NULL if memory ran out. */
#ifndef CUBED_REPR_H
#define CUBED_REPR_H

#include <stddef.h>

#include <jansson.h>

#include "alg.h"
#include "cube.h"
#include "cubie.h"

/* The names, in the order a reply lists them. */
enum repr {
	REPR_FACELETS,    /* "facelets": the 6·n² letters, any n */
	REPR_CUBIE,       /* "cubie": cp co ep eo, n = 2, 3 */
	REPR_INDEX,       /* "index": decimal string, n = 2, 3 */
	REPR_ORIENTATION, /* "orientation": how the cube is held, n = 2, 3 */
	REPR_FACES,       /* "faces": six n×n letter grids, n <= 256 */
	REPR_FEATURES,    /* "features": 364 zeros and ones, n = 3 */
	REPR_RENDER,      /* "render": cubies for 3D, n <= 64 */
	REPR_ANIMATION,   /* "animation": one turn per applied move */
	REPR_COUNT
};

#define REPR_BIT(r) (1u << (r))
/* The representations read off the cubie form (a legal 2×2 or 3×3). */
#define REPR_NEEDS_CUBIES                                                      \
	(REPR_BIT(REPR_CUBIE) | REPR_BIT(REPR_INDEX) |                         \
	 REPR_BIT(REPR_ORIENTATION) | REPR_BIT(REPR_FEATURES))

#define REPR_FACES_MAX_N 256
#define REPR_RENDER_MAX_N 64
#define REPR_ANIMATION_MAX_MOVES 10000

/* "facelets", …; NULL for a value out of range. */
const char *repr_name(enum repr r);
/* The representation called s[0..len), or -1. */
int repr_lookup(const char *s, size_t len);
/* 1 if r exists for size n (cubie, index, orientation: 2 and 3; features:
 * 3; the others: every n), else 0. Size limits are separate. */
int repr_applies(enum repr r, int n);
/* The largest n r is built for (faces 256, render 64), or 0: no limit. */
int repr_max_n(enum repr r);

/* The cubie form of a 2×2 or 3×3 state, and the whole-cube orientation it
 * was held in (the cubies are those of the cube turned to the standard
 * orientation; orient says how). */
struct repr_cubies {
	int n; /* 2 or 3 */
	cubie3 c3;
	cubie2 c2;
	cube_orientation orient;
};

/* Read a 2×2 or 3×3 facelets string (any orientation) into out: a core
 * result, CUBE_EINVALID if the stickers are not a legal cube. */
int repr_cubies_from_facelets(const char *s, size_t len,
			      struct repr_cubies *out);
/* The cubie form of c (a 2×2 or 3×3) into *out: CUBE_OK; else the core's
 * error, with *errors (a new JSON array, as repr_validation_errors) every
 * reason the state is not a legal cube, or NULL when validation finds
 * none (an internal failure then). */
int repr_cubies_of_cube(const cube_t *c, struct repr_cubies *out,
			json_t **errors);
/* The standard-orientation facelets of rc: 6·n² letters, no NUL. */
void repr_cubies_to_facelets(const struct repr_cubies *rc, char *out);
/* The standard orientation: up U, front F, moves "". */
void repr_orientation_standard(cube_orientation *o);

json_t *repr_facelets(const cube_t *c);
/* {"U": [[row 0 letters], …], "R": …}: faces URFDLB, rows as in the net. */
json_t *repr_faces(const cube_t *c);
/* {"cp", "co"[, "ep", "eo"]}: Kociemba numbering (cubie.h). */
json_t *repr_cubie(const struct repr_cubies *rc);
/* The index as a decimal string. */
json_t *repr_index(const struct repr_cubies *rc);
json_t *repr_orientation(const cube_orientation *o);
/* 364 integers 0/1 in cubie3_features' order. */
json_t *repr_features(const cubie3 *c);
/* {"size", "axes", "cubies": [{"position", "rotation", "stickers"}]}. */
json_t *repr_render(const cube_t *c);
/* [{"move", "axis", "layers", "angle"}] for each move of a's expansion;
 * the caller keeps a->length within REPR_ANIMATION_MAX_MOVES. NULL also
 * if the expansion and its printed text disagree (a core bug). */
json_t *repr_animation(const alg_t *a);

/* The problems cube_validate finds in s[0..len) as [{"code", "detail",
 * "where"?}], detail = the reason's sentence and what was found where, in
 * words: all of them, or the first max when there are more (res->count
 * says how many). *res is filled. NULL if memory ran out.
 *
 * Only bad letters (one per character) and center orbits (one per ring,
 * up to 65,280 at n = 1024) can be many; REPR_MAX_ERRORS keeps a reply to
 * a megabyte of garbage from growing to 100 MB of JSON (measured: a
 * 960 kB body of 'x' gave 110 MB, 2.4 s and 800 MB of server memory). */
#define REPR_MAX_ERRORS 1000
json_t *repr_validation_errors(const char *s, size_t len, size_t max,
			       cube_validation_result *res);

/* The CV_UNCHECKED_* flags as ["edge_pairing", "parity",
 * "center_placement"] (those set, in that order). */
json_t *repr_unchecked(unsigned flags);

/* Rename face turns of a solution found for the cube turned to the
 * standard orientation so that they name the faces as the cube was given
 * (orientation o): applied to the given facelets they solve them. */
void repr_moves_to_frame(cube_move *m, int count, int n,
			 const cube_orientation *o);

#endif
