/* cube_helpers.h — what the core engine suites (check_cube, check_cubie,
 * check_validate, check_pattern) share: a tiny deterministic generator so
 * that failures reproduce, and cubes and their facelets with the
 * allocation asserted. The assertions are Check's: call these from inside
 * tests. */
#ifndef CUBED_TEST_CUBE_HELPERS_H
#define CUBED_TEST_CUBE_HELPERS_H

#include <stdint.h>

#include "cube.h"

/* Start the generator over from seed. Its state is the process's: every
 * test runs in a process of its own (or, under CK_FORK=no, one suite to
 * a process), and starts from 0 unless it seeds. */
void rnd_seed(uint64_t seed);
/* The next value, uniform enough in [0, k). */
uint32_t rnd(uint32_t k);

/* A solved n×n×n cube (malloc'd). */
cube_t *new_cube(int n);
/* Its facelets as a NUL-terminated string (malloc'd). */
char *facelets(const cube_t *c);

#endif
