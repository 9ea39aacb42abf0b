/* cube_helpers.c — see cube_helpers.h. */
#include "cube_helpers.h"

#include <check.h>
#include <stdlib.h>

static uint64_t rng_state;

void rnd_seed(uint64_t seed)
{
	rng_state = seed;
}

uint32_t rnd(uint32_t k)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng_state >> 33) % k;
}

cube_t *new_cube(int n)
{
	cube_t *c = malloc(cube_sizeof(n));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cube_init(c, n), CUBE_OK);
	return c;
}

char *facelets(const cube_t *c)
{
	size_t len = 6u * (size_t)c->n * (size_t)c->n;
	char *s = malloc(len + 1);
	ck_assert_ptr_nonnull(s);
	cube_to_facelets(c, s);
	s[len] = '\0';
	return s;
}
