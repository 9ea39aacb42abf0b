/* bench_util.c — the helpers every part of `bench` shares (bench.h):
 * clocks, the fixed-seed generator, figure lines, timing a body (calibrated
 * runs, medians, a body against its reference in alternating runs), and a
 * few cube helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>

#include "bench.h"

volatile uint64_t sink;

/* CPU time of this process: what a solve costs when other processes
 * share the machine (wall time then counts their turns too). */
uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: fixed seed, so every run times the same inputs. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

int rnd(int k) /* uniform in [0, k) */
{
	return (int)(rng() % (uint64_t)k);
}

void die(const char *what, int err)
{
	fprintf(stderr, "bench: %s: %s (%s)\n", what, cube_strerror(err),
		cube_errname(err));
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p) {
		fprintf(stderr, "bench: out of memory (%zu bytes)\n", size);
		exit(1);
	}
	return p;
}

/* Memory for a table the searches read at random: as the server gives
 * it (server/solve/solver.c, table_alloc), on 2 MB boundaries and in 2 MB
 * pages where the kernel offers them, so that the bench measures what
 * the server runs. */
void *xmalloc_table(size_t size)
{
	size_t huge = (size_t)2 << 20;
	void *p = NULL;
	if (size < huge)
		return xmalloc(size);
	if (posix_memalign(&p, huge, size) != 0) {
		fprintf(stderr, "bench: out of memory (%zu bytes)\n", size);
		exit(1);
	}
#ifdef MADV_HUGEPAGE
	madvise(p, size / huge * huge, MADV_HUGEPAGE);
#endif
	return p;
}

void fig(const char *name, double value, const char *unit)
{
	printf("%s: %.*f %s\n", name, value < 10 ? 3 : value < 1000 ? 2 : 1,
	       value, unit);
	fflush(stdout);
}

void figi(const char *name, uint64_t value, const char *unit)
{
	printf("%s: %llu %s\n", name, (unsigned long long)value, unit);
	fflush(stdout);
}


int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Iterations that make one run of body last about TARGET_NS. */
static uint64_t calibrate(body_fn body, void *ctx)
{
	uint64_t iters = 1, t;
	for (;;) {
		t = body(ctx, iters);
		if (t >= TARGET_NS / 20 || iters >= (1ull << 40))
			break;
		iters *= 2;
	}
	double scale = TARGET_NS / (double)(t ? t : 1);
	return scale > 1 ? (uint64_t)((double)iters * scale) + 1 : iters;
}

double median(double *v, int k)
{
	qsort(v, (size_t)k, sizeof v[0], cmp_double);
	return v[k / 2];
}

/* Median nanoseconds per iteration of body over RUNS runs. */
double measure(body_fn body, void *ctx)
{
	uint64_t iters = calibrate(body, ctx);
	double per[RUNS];
	for (int r = 0; r < RUNS; r++)
		per[r] = (double)body(ctx, iters) / (double)iters;
	return median(per, RUNS);
}

/* A figure and its reference, timed in alternating runs so that a burst of
 * noise from the other tenants hits both: medians of each in *a and *ref,
 * and the median of the per-pair ratios ref / a as the result. */
double measure_pair(body_fn body, body_fn refbody, void *ctx, double *a,
			   double *ref)
{
	uint64_t ia = calibrate(body, ctx), ir = calibrate(refbody, ctx);
	double pa[RUNS], pr[RUNS], ratio[RUNS];
	for (int r = 0; r < RUNS; r++) {
		pa[r] = (double)body(ctx, ia) / (double)ia;
		pr[r] = (double)refbody(ctx, ir) / (double)ir;
		ratio[r] = pr[r] / pa[r];
	}
	*a = median(pa, RUNS);
	*ref = median(pr, RUNS);
	return median(ratio, RUNS);
}

/* measure_pair's three figures: name.ns, name.ns.refname (the reference)
 * and name.speedup. Returns body's ns. */
double pair_figures(const char *name, const char *refname, body_fn body,
			   body_fn refbody, void *ctx)
{
	char k[64];
	double t, ref, speedup = measure_pair(body, refbody, ctx, &t, &ref);
	snprintf(k, sizeof k, "%s.ns", name);
	fig(k, t, "ns");
	snprintf(k, sizeof k, "%s.ns.%s", name, refname);
	fig(k, ref, "ns");
	snprintf(k, sizeof k, "%s.speedup", name);
	fig(k, speedup, "x");
	return t;
}

cube_t *new_cube(int n)
{
	size_t size = cube_sizeof(n);
	if (!size)
		die("cube_sizeof", CUBE_ESIZE);
	cube_t *c = xmalloc(size);
	int rc = cube_init(c, n);
	if (rc < 0)
		die("cube_init", rc);
	return c;
}

void scramble(cube_t *c, int moves)
{
	int n = c->n;
	for (int i = 0; i < moves; i++) {
		int lo = rnd(n), hi = lo + rnd(n - lo);
		int rc = cube_turn(c, rnd(3), lo, hi, 1 + rnd(3));
		if (rc < 0)
			die("cube_turn (scramble)", rc);
	}
}

uint64_t checksum(const cube_t *c)
{
	int n = c->n;
	uint64_t h = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < n; r += (n > 16 ? n / 7 : 1))
			for (int k = 0; k < n; k += (n > 16 ? n / 5 : 1))
				h = h * 31 + (uint64_t)cube_get(c, f, r, k);
	return h;
}
