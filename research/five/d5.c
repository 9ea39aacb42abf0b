/* d5.c — driver for the five-phase 5×5 prototype (research). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "p123.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 4242;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % n;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 5;
	static struct m5 M;
	if (m5_build(&M) != 0)
		return 1;
	double t0 = now();
	struct p123 *T = p123_init(&M);
	fprintf(stderr, "tables %.1f s\n", now() - t0);
	cube_t *c = malloc(cube_sizeof(5));
	double sum[4] = {0};
	for (int i = 0; i < count; i++) {
		cube_init(c, 5);
		for (int j = 0; j < 100; j++)
			m5_apply(&M, c, (int)rnd(M5_MOVES));
		int lens[4];
		double tp[4];
		for (int ph = 1; ph <= 3; ph++) {
			uint8_t out[1][P_MAXLEN];
			int len = -1;
			double t1 = now();
			int n = p123_phase(T, ph, c, 20, 1, out, &len, 200000000L);
			tp[ph] = now() - t1;
			if (n != 1) {
				printf("state %d phase %d: none (%d)\n", i, ph, n);
				return 1;
			}
			for (int j = 0; j < len; j++)
				m5_apply(&M, c, out[0][j]);
			if (!p123_goal(T, ph, c)) {
				printf("state %d phase %d: goal not met\n", i, ph);
				return 1;
			}
			lens[ph] = len;
			sum[ph] += len;
		}
		printf("state %d: %d %d %d  (%.2f %.2f %.2f s)\n", i, lens[1],
		       lens[2], lens[3], tp[1], tp[2], tp[3]);
		fflush(stdout);
	}
	printf("mean %.2f %.2f %.2f\n", sum[1] / count, sum[2] / count,
	       sum[3] / count);
	return 0;
}
