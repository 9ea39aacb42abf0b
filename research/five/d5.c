/* d5.c — driver for the five-phase 5×5 prototype (research): random
 * 5×5s through every phase with answer sets between phases, the 3×3 by
 * core's two-phase on the best reductions, every result checked on the
 * cube.
 *
 *   d5 COUNT [Q1 Q2 Q3 Q4 Q5]   (quotas; 1 1 1 1 1 is one answer a phase)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cube_internal.h"
#include "cubie.h"
#include "p123.h"
#include "p45.h"
#include "solve.h"
#include "tp.h"

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

#define CSZ 256
#define PMAX 120
#define SETMAX 4096
struct el {
	unsigned char cb[CSZ];
	cube_move path[PMAX];
	int len;
	uint8_t sp[6]; /* each phase's length */
	uint64_t hash;
};

static struct m5 M;
static struct p123 *T3;
static struct p45 *T45;
static long cap_after = 3000000L; /* nodes a search may take once the
				     * set holds an answer */

static cube_t *cub(struct el *e)
{
	return (cube_t *)(void *)e->cb;
}

static uint64_t chash(const cube_t *c)
{
	uint64_t h = 1469598103934665603ull;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int k = 0; k < 5; k++)
				h = (h ^ (uint64_t)cube_get(c, f, r, k)) *
				    1099511628211ull;
	return h;
}

static int has(const struct el *s, int n, uint64_t h)
{
	for (int i = 0; i < n; i++)
		if (s[i].hash == h)
			return 1;
	return 0;
}

static int add(struct el *out, int *nout, const struct el *from, int phase,
	       const cube_move *mv, int len)
{
	static struct el e;
	memcpy(&e, from, sizeof e);
	if (e.len + len > PMAX)
		return 0;
	for (int j = 0; j < len; j++) {
		cube_turn(cub(&e), mv[j].axis, mv[j].lo, mv[j].hi, mv[j].qt);
		e.path[e.len++] = mv[j];
	}
	e.sp[phase] = (uint8_t)len;
	e.hash = chash(cub(&e));
	if (has(out, *nout, e.hash))
		return 0;
	memcpy(&out[(*nout)++], &e, sizeof e);
	return 1;
}

/* phase 3's answers must leave phase 4 four whole edges in the U/D layers */
static int four_edges(void *ctx, const cube_t *c, const uint8_t *mv, int len)
{
	(void)ctx;
	static unsigned char cb[CSZ];
	cube_t *t = (cube_t *)(void *)cb;
	cube_copy(t, c);
	for (int j = 0; j < len; j++)
		m5_apply(&M, t, mv[j]);
	return p45_ud_edges(T45, t) >= 4;
}

static int hval(int phase, const cube_t *c)
{
	if (phase <= 3)
		return p123_h(T3, phase, c);
	static cube_move ans[1][32];
	int len = 99;
	int n = p4_answers(T45, c, 20, 1, ans, &len);
	return n == 1 ? len : 99;
}

/* One phase over the set in[] into out[]: by total length, each state
 * with len + h <= t searched for answers of exactly t - len moves, until
 * out holds quota. */
static int step(int phase, struct el *in, int nin, int quota, struct el *out)
{
	int nout = 0, h[SETMAX], tmin = 999;
	for (int i = 0; i < nin; i++) {
		h[i] = hval(phase, cub(&in[i]));
		if (in[i].len + h[i] < tmin)
			tmin = in[i].len + h[i];
	}
	for (int t = tmin; nout < quota && t < tmin + 8; t++)
		for (int i = 0; i < nin && nout < quota; i++) {
			int b = t - in[i].len;
			if (b < h[i])
				continue;
			long cap = nout ? cap_after : 400000000L;
			if (phase <= 3) {
				static uint8_t ans[64][P_MAXLEN];
				int lens[64];
				int want = quota - nout < 64 ? quota - nout : 64;
				int n = p123_phase_if(T3, phase, cub(&in[i]), b, b,
						      want, ans, lens, cap,
						      phase == 3 ? four_edges : NULL,
						      NULL);
				for (int a = 0; a < n; a++) {
					cube_move mv[P_MAXLEN];
					for (int j = 0; j < lens[a]; j++) {
						const struct m5move *g = &M.mv[ans[a][j]];
						mv[j].axis = g->axis;
						mv[j].lo = g->lo;
						mv[j].hi = g->hi;
						mv[j].qt = g->qt;
					}
					add(out, &nout, &in[i], phase, mv, lens[a]);
				}
			} else if (phase == 4) {
				static cube_move ans[64][32];
				int lens[64];
				int want = quota - nout < 64 ? quota - nout : 64;
				int n = p4_answers(T45, cub(&in[i]), b, want, ans, lens);
				if (getenv("DEBUG"))
					fprintf(stderr, "p4 b=%d ok3=%d ud=%d n=%d\n", b,
						p45_phase3_ok(T45, cub(&in[i])),
						p45_ud_edges(T45, cub(&in[i])), n);
				for (int a = 0; a < n; a++)
					if (lens[a] == b)
						add(out, &nout, &in[i], phase, ans[a],
						    lens[a]);
			}
		}
	return nout;
}

static int by_len(const void *a, const void *b)
{
	return ((const struct el *)a)->len - ((const struct el *)b)->len;
}

static char letter(int col)
{
	return "URFDLB"[col];
}

/* the 3×3 the reduced 5×5 shows, solved by two-phase: its length */
static int solve3(const void *tp, const cube_t *c, int target)
{
	char s[54];
	static const int big[3] = {0, 2, 4};
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++)
				s[f * 9 + r * 3 + k] =
					letter(cube_get(c, f, big[r], big[k]));
	cubie3 cc;
	cube_orientation o;
	if (cube3_from_facelets(s, 54, &cc, &o) < 0)
		return -1;
	solve_limits lim = {.max_length = 24, .target_length = target};
	cube_move mv[32];
	return twophase_solve(tp, &cc, &lim, mv, 32);
}

static int reduced(const cube_t *c)
{
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < 4; r++)
			for (int k = 1; k < 4; k++)
				if (cube_get(c, f, r, k) != f)
					return 0;
	/* edges: every edge's 3 stickers on each side alike */
	for (int e = 0; e < 12; e++)
		for (int s = 0; s < 2; s++) {
			int f = M.mst[e][s][0], r = M.mst[e][s][1], k = M.mst[e][s][2];
			int v = cube_get(c, f, r, k);
			for (int w = 0; w < 24; w++)
				if (M.wedge[w] == e &&
				    cube_get(c, M.wst[w][s][0], M.wst[w][s][1],
					     M.wst[w][s][2]) != v)
					return 0;
		}
	return 1;
}

/* the cube turned so that axis a is U/D, recoloured by its centres */
static void axis_frame(cube_t *c, int a)
{
	if (a == 1)
		cube_turn(c, CUBE_Z, 0, 4, 1);
	if (a == 2)
		cube_turn(c, CUBE_X, 0, 4, 1);
	int map[6];
	for (int f = 0; f < 6; f++)
		map[cube_get(c, f, 2, 2)] = f;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < 5; r++)
			for (int k = 0; k < 5; k++)
				cube__set(c, f, r, k, map[cube_get(c, f, r, k)]);
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 5;
	int q[6] = {0, 10, 10, 10, 5, 3};
	for (int k = 1; k <= 5 && argc > 1 + k; k++)
		q[k] = atoi(argv[1 + k]);
	int axes = getenv("AXES") ? atoi(getenv("AXES")) : 3;
	int target3 = getenv("T3") ? atoi(getenv("T3")) : 18;
	if (getenv("CAP"))
		cap_after = atol(getenv("CAP"));
	if (m5_build(&M) != 0)
		return 1;
	double t0 = now();
	T3 = p123_init(&M);
	double t1 = now();
	T45 = p45_init();
	const void *tp = tp_tables();
	if (!T3 || !T45 || !tp)
		return 1;
	fprintf(stderr, "tables: phases 1-3 %.1f s, 4-5 %.1f s\n", t1 - t0,
		now() - t1);
	static struct el A[SETMAX], B[SETMAX];
	double sum = 0, sumr = 0, sp[6] = {0}, times[1000];
	int worst = 0;
	for (int i = 0; i < count; i++) {
		static unsigned char cb[CSZ];
		cube_t *c = (cube_t *)(void *)cb;
		cube_init(c, 5);
		for (int j = 0; j < 100; j++)
			m5_apply(&M, c, (int)rnd(M5_MOVES));
		double ts = now();
		int n = 0;
		for (int a = 0; a < axes; a++) {
			memset(&A[n], 0, sizeof A[n]);
			cube_copy(cub(&A[n]), c);
			axis_frame(cub(&A[n]), a);
			A[n].hash = chash(cub(&A[n]));
			n++;
		}
		struct el *in = A, *out = B;
		for (int ph = 1; ph <= 4; ph++) {
			double tq = now();
			n = step(ph, in, n, q[ph], out);
			if (getenv("TIMES"))
				fprintf(stderr, "  phase %d: %d in %.2f s\n", ph, n,
					now() - tq);
			if (n == 0) {
				printf("state %d: phase %d found nothing\n", i, ph);
				return 1;
			}
			qsort(out, (size_t)n, sizeof *out, by_len);
			struct el *t = in;
			in = out;
			out = t;
		}
		/* phase 5 on the shortest q5, the 3×3 on each: the best whole */
		int best = 999, bestr = 0, bi = -1;
		int n5 = n < q[5] ? n : q[5];
		for (int k = 0; k < n5; k++) {
			cube_move mv[40];
			memcpy(&out[k], &in[k], sizeof out[k]);
			int l5 = p5_solve(T45, cub(&out[k]), mv, 40, 400000000L);
			if (l5 < 0) {
				printf("state %d: phase 5 failed\n", i);
				return 1;
			}
			out[k].sp[5] = (uint8_t)l5;
			out[k].len += l5;
			if (!reduced(cub(&out[k]))) {
				printf("state %d: not reduced\n", i);
				return 1;
			}
			int l3 = solve3(tp, cub(&out[k]), target3);
			if (l3 < 0) {
				printf("state %d: 3x3 failed %d\n", i, l3);
				return 1;
			}
			if (out[k].len + l3 < best) {
				best = out[k].len + l3;
				bestr = out[k].len;
				bi = k;
			}
		}
		times[i] = now() - ts;
		sum += best;
		sumr += bestr;
		if (best > worst)
			worst = best;
		for (int k = 1; k <= 5; k++)
			sp[k] += out[bi].sp[k];
		printf("state %d: %d moves (reduction %d: %d %d %d %d %d) %.2f s\n",
		       i, best, bestr, out[bi].sp[1], out[bi].sp[2], out[bi].sp[3],
		       out[bi].sp[4], out[bi].sp[5], times[i]);
		fflush(stdout);
	}
	qsort(times, (size_t)count, sizeof times[0], cmpd);
	printf("quotas %d/%d/%d/%d/%d: mean %.2f (reduction %.2f: %.2f %.2f "
	       "%.2f %.2f %.2f) max %d, median %.2f s over %d\n",
	       q[1], q[2], q[3], q[4], q[5], sum / count, sumr / count,
	       sp[1] / count, sp[2] / count, sp[3] / count, sp[4] / count,
	       sp[5] / count, worst, times[count / 2], count);
	return 0;
}
