/* pattern_internal.h — pattern internals shared with the test suite and
 * the benchmarks (pattern__ names): not part of the public API. */
#ifndef CUBED_PATTERN_INTERNAL_H
#define CUBED_PATTERN_INTERNAL_H

#include "pattern.h"

/* pattern_match without the vector path (AVX-512 VBMI on 2×2 and 3×3),
 * so tests can hold both to the same answers on a machine that has it. */
int pattern__match_portable(const pattern_t *const *p, size_t np,
			    const cube_t *c, int first, uint32_t *mask);

#endif
