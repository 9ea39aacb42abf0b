/* scramble.c — randomness for scrambles (solve.h): a seedable generator,
 * uniformly random 3×3 and 2×2 states, random-move scrambles for any size,
 * and the names of the solver errors.
 *
 * The generator is xoshiro256** (Blackman & Vigna) seeded through
 * splitmix64, as its authors recommend: fast, small, and the same numbers
 * on every platform, so a seed names one scramble forever. A random state
 * is a uniform index unranked (index.c numbers exactly the reachable
 * states), which is uniform by construction.
 */
#include "solve.h"

const char *solve_errname(int err)
{
	switch (err) {
	case SOLVE_ENOTFOUND:
		return "no_solution_found";
	case SOLVE_ECANCELLED:
		return "cancelled";
	case SOLVE_ETABLES:
		return "bad_tables";
	case SOLVE_ESTAGE:
		return "stage_failed";
	}
	return cube_errname(err);
}

const char *solve_strerror(int err)
{
	switch (err) {
	case SOLVE_ENOTFOUND:
		return "no solution within the limits was found before the "
		       "search stopped";
	case SOLVE_ECANCELLED:
		return "table generation was cancelled";
	case SOLVE_ETABLES:
		return "the solver tables are missing or corrupt (wrong size "
		       "or checksum)";
	case SOLVE_ESTAGE:
		return "a stage of the beginner method could not be completed";
	}
	return cube_strerror(err);
}

/* ------------------------------------------------------------- generator */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

void cube_rng_seed(cube_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return x << k | x >> (64 - k);
}

uint64_t cube_rng_next(cube_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

uint64_t cube_rng_below(cube_rng *r, uint64_t bound)
{
	if (bound < 2)
		return 0;
	/* 2^64 mod bound values at the bottom would be drawn once too
	 * often: reject them */
	uint64_t skip = (0 - bound) % bound, x;
	do
		x = cube_rng_next(r);
	while (x < skip);
	return x % bound;
}

void cubie3_random(cube_rng *r, cubie3 *out)
{
	cube_index ix;
	ix.corner = cube_rng_below(r, CUBE3_CORNER_STATES);
	ix.edge = cube_rng_below(r, CUBE3_EDGE_STATES);
	cubie3_unrank(&ix, out);
}

void cubie2_random(cube_rng *r, cubie2 *out)
{
	cube_index ix = {cube_rng_below(r, CUBE2_STATES), 0};
	cubie2_unrank(&ix, out);
}

/* ------------------------------------------------------------- scrambles */

int scramble_length(int n)
{
	if (n < 2 || n > CUBE_MAX_N)
		return CUBE_ESIZE;
	/* 2×2 and 3×3 as the WCA's random-move scrambles were, before
	 * random-state ones replaced them */
	return n <= 3 ? 25 : 20 * (n - 2);
}

/* The blocks turned on one axis, by key: depth 1..n/2 from the positive
 * face (keys 0..n/2-1), then depth 1..(n-1)/2 from the negative one. On an
 * even cube the half-cube block is taken from the positive face only:
 * from the other side it is the same turn up to a rotation. */
static cube_move block(int n, int key, int axis, int q)
{
	int half = n / 2;
	cube_move m;
	m.axis = (uint8_t)axis;
	if (key < half) {
		m.lo = 0;
		m.hi = (uint16_t)key;
		m.qt = (uint8_t)q;
	} else {
		int depth = key - half + 1;
		m.lo = (uint16_t)(n - depth);
		m.hi = (uint16_t)(n - 1);
		m.qt = (uint8_t)(4 - q); /* clockwise from the far side */
	}
	return m;
}

int scramble_moves(cube_rng *r, int n, cube_move *out, int cap)
{
	if (!r || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	int len = scramble_length(n);
	if (len < 0)
		return len;
	if (cap < len)
		return CUBE_ESPACE;
	int nb = n / 2 + (n - 1) / 2; /* blocks per axis */
	int last_axis = -1, last_key = -1;
	for (int i = 0; i < len; i++) {
		/* uniform over the turns allowed after the last one: any
		 * block of another axis, or a later block of the same axis */
		int same = last_axis < 0 ? 0 : nb - 1 - last_key;
		int other = last_axis < 0 ? 3 * nb : 2 * nb;
		uint64_t k = cube_rng_below(r, 3 * (uint64_t)(same + other));
		int q = (int)(k % 3) + 1, axis, key;
		k /= 3;
		if ((int)k < same) {
			axis = last_axis;
			key = last_key + 1 + (int)k;
		} else {
			k -= (uint64_t)same;
			axis = (int)(k / (uint64_t)nb);
			if (last_axis >= 0 && axis >= last_axis)
				axis++;
			key = (int)(k % (uint64_t)nb);
		}
		out[i] = block(n, key, axis, q);
		last_axis = axis;
		last_key = key;
	}
	return len;
}
