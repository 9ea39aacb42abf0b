/* scrambles.c — random-state and random-move scrambles (see scrambles.h). */
#include "scrambles.h"

#include "cubie.h"
#include "solve.h"

/* A 2×2's or 3×3's random-state scramble has at most 21 moves. */
#define SMALL_CAP 32

int scramble_cap(int n)
{
	int len = n >= 2 ? scramble_length(n) : 0;
	return len > SMALL_CAP ? len : SMALL_CAP;
}

int scramble_draw(int n, uint64_t seed, const void *tables, cube_move *out,
		  int cap, const char **kind)
{
	cube_rng r;
	cube_rng_seed(&r, seed);
	if ((n == 2 || n == 3) && tables) {
		*kind = "random-state";
		int count;
		if (n == 3) {
			cubie3 c;
			cubie3_random(&r, &c);
			solve_limits lim = {.max_length = 21,
					    .target_length = 20};
			count = twophase_solve(tables, &c, &lim, out, cap);
		} else {
			cubie2 c;
			cubie2_random(&r, &c);
			count = solve2_optimal(tables, &c, out, cap);
		}
		if (count < 0)
			return count;
		/* invert: reversed, each quarter-turn count negated */
		for (int i = 0; i < count / 2; i++) {
			cube_move t = out[i];
			out[i] = out[count - 1 - i];
			out[count - 1 - i] = t;
		}
		for (int i = 0; i < count; i++)
			out[i].qt = (uint8_t)((4 - out[i].qt) & 3);
		return count;
	}
	*kind = "random-move";
	if (n < 2)
		return 0;
	return scramble_moves(&r, n, out, cap);
}
