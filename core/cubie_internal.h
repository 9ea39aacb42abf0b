/* cubie_internal.h — internals shared by cubie.c and the test suite
 * (cubie__ names): both versions of composition, with the orientations
 * (orient.h) and the piece tables (pieces.h). Not part of the public
 * API. */
#ifndef CUBED_CUBIE_INTERNAL_H
#define CUBED_CUBIE_INTERNAL_H

#include <stddef.h>

#include "cubie.h"
#include "orient.h"
#include "pieces.h"

/* ----------------------------------------------------------- composition */

/* The plain loops, always available, and the SSSE3 byte-shuffle version,
 * which returns 0 without touching out when the CPU (or the compiler) has
 * no SSSE3. Tests check they agree. */
void cubie__compose3_scalar(const cubie3 *a, const cubie3 *b, cubie3 *out);
void cubie__compose2_scalar(const cubie2 *a, const cubie2 *b, cubie2 *out);
int cubie__compose3_simd(const cubie3 *a, const cubie3 *b, cubie3 *out);
int cubie__compose2_simd(const cubie2 *a, const cubie2 *b, cubie2 *out);

#endif
