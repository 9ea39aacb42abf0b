/* bench.h — what the benchmark program's files share (bench.c,
 * bench_cube3.c, bench_optimal.c; bench_util.c holds the helpers): the
 * clocks, the fixed-seed generator, figures printed as "name: value unit",
 * the timing of a body against its reference, and a few cube helpers. Every figure's inputs come from the fixed-seed generator and
 * every result feeds `sink`, so no work can be optimised away. */
#ifndef CUBED_BENCH_H
#define CUBED_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "cube.h"

#define RUNS 5
#define TARGET_NS 100000000.0 /* 0.1 s per timed run */
#define NOINLINE __attribute__((noinline))
/* For the timed loops shared by two bodies: inlined into each NOINLINE
 * body with its function argument a constant, so each body calls what it
 * times directly, as a loop written out in it would. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

extern volatile uint64_t sink; /* everything measured ends up here */

/* CPU time of this process, and monotonic wall time, in nanoseconds. */
uint64_t cpu_ns(void);
uint64_t now_ns(void);
/* splitmix64 from a fixed seed; rnd(k) is uniform in [0, k). */
uint64_t rng(void);
int rnd(int k);
/* Report a core error (or out of memory) and exit 1. */
void die(const char *what, int err);
void *xmalloc(size_t size);
void *xmalloc_table(size_t size); /* 2 MB pages where offered */
/* One "name: value unit" line. */
void fig(const char *name, double value, const char *unit);
void figi(const char *name, uint64_t value, const char *unit);

/* A timed body: run iters iterations, return the elapsed nanoseconds. */
typedef uint64_t (*body_fn)(void *ctx, uint64_t iters);
int cmp_double(const void *a, const void *b);
/* Sorts v. */
double median(double *v, int k);
/* Median nanoseconds per iteration of body over RUNS runs. */
double measure(body_fn body, void *ctx);
/* A figure and its reference, timed in alternating runs so that a burst of
 * noise from the other tenants hits both: medians of each in *a and *ref,
 * and the median of the per-pair ratios ref / a as the result. */
double measure_pair(body_fn body, body_fn refbody, void *ctx, double *a,
		    double *ref);
/* measure_pair's three figures: name.ns, name.ns.refname (the reference)
 * and name.speedup. Returns body's ns. */
double pair_figures(const char *name, const char *refname, body_fn body,
		    body_fn refbody, void *ctx);

/* A solved n×n×n cube (exits on failure), random turns, and a checksum
 * of a sample of its stickers. */
cube_t *new_cube(int n);
void scramble(cube_t *c, int moves);
uint64_t checksum(const cube_t *c);

/* bench_cube3.c */
void bench_index3(void);
void bench_match3(void);
/* bench_optimal.c: --optimal and --twenty; -1 when argv is neither */
int bench_optimal_main(int argc, char **argv);

#endif
