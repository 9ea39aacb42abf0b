/* bench_optimal.c — the optimal 3×3 solver over held-fixed random states
 * (`build/bench/bench --optimal`), and the two-phase solver with a
 * maximum of 20 moves over many (`--twenty`), each state's answer applied
 * back and checked.
 *
 *   build/bench/bench --optimal LEVEL [N [THREADS [STATES_OUT]]]
 *   build/bench/bench --twenty [N [STATES_OUT]]
 *
 * --optimal loads $CUBED_TABLES/cubed-optimal-<LEVEL>.bin (the file a
 * server with --tables $CUBED_TABLES uses) or builds it with THREADS
 * threads and writes it there, then solves the first N (100) random
 * states of a fixed seed, THREADS (2) at a time, one search per thread.
 * Per state it prints a line to stderr as it finishes (a run takes
 * hours on a small table), then the figures: the distribution of optimal
 * lengths, wall and CPU time per state (median, p90, max; the CPU time
 * of the solving thread is the steadier figure on a shared machine),
 * nodes, and the table's size and build or load time.
 *
 * --twenty solves N (1000) random states of another fixed seed with
 * twophase_solve at max_length 20, min2phase's setting for "20 moves",
 * and prints median, mean, p99 and max time and the moves. STATES_OUT,
 * when given, gets the states as facelets, one a line, for a reference
 * solver to run on the same ones. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cube.h"
#include "cubie.h"
#include "optimal.h"
#include "solve.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fail(const char *what, int rc)
{
	fprintf(stderr, "bench: %s: %s\n", what, solve_strerror(rc));
	exit(1);
}

/* The k face turns m solve c. */
static int solves(const cubie3 *c, const cube_move *m, int k)
{
	static const int face[3][2] = {{1, 4}, {0, 3}, {2, 5}};
	cubie3 x = *c, t, id;
	for (int i = 0; i < k; i++) {
		int far = m[i].lo == 2;
		cubie3_face_turn(face[m[i].axis][far], far ? 4 - m[i].qt : m[i].qt,
				 &t);
		cubie3_compose(&x, &t, &x);
	}
	cubie3_solved(&id);
	return cubie3_equal(&x, &id);
}

static void write_states(const char *path, const cubie3 *st, int n)
{
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	for (int i = 0; i < n; i++) {
		char s[55];
		cube3_to_facelets(&st[i], s);
		s[54] = '\n';
		fwrite(s, 1, 55, f);
	}
	fclose(f);
}

/* Quantiles of v (sorted here): median, mean, p90, p99, max. */
static void quantiles(const char *name, double *v, int n, const char *unit)
{
	char k[96];
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	snprintf(k, sizeof k, "%s", name);
	fig(k, v[n / 2], unit);
	snprintf(k, sizeof k, "%s.mean", name);
	fig(k, sum / n, unit);
	snprintf(k, sizeof k, "%s.p90", name);
	fig(k, v[n * 9 / 10], unit);
	snprintf(k, sizeof k, "%s.p99", name);
	fig(k, v[n * 99 / 100], unit);
	snprintf(k, sizeof k, "%s.max", name);
	fig(k, v[n - 1], unit);
}

/* ---- optimal -------------------------------------------------------- */

struct ojob {
	const void *tables;
	const cubie3 *st;
	int n, next;
	pthread_mutex_t mu;
	double *wall, *cpu;
	int *len;
	uint64_t *nodes;
};

static void *solver_thread(void *arg)
{
	struct ojob *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		int i = j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n)
			return NULL;
		optimal_progress pr = {0, 0};
		optimal_limits lim = {0, NULL, NULL, &pr};
		cube_move m[32];
		double w0 = clock_s(CLOCK_MONOTONIC);
		double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		int k = optimal_solve(j->tables, &j->st[i], &lim, m, 32);
		j->cpu[i] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
		j->wall[i] = clock_s(CLOCK_MONOTONIC) - w0;
		if (k < 0)
			fail("optimal_solve", k);
		if (!solves(&j->st[i], m, k)) {
			fprintf(stderr, "bench: the optimal solution of state %d "
					"does not solve it\n", i);
			exit(1);
		}
		j->len[i] = k;
		j->nodes[i] = pr.nodes;
		fprintf(stderr, "optimal %d: %d moves, %.2f s (cpu %.2f s), "
				"%llu nodes\n",
			i, k, j->wall[i], j->cpu[i], (unsigned long long)pr.nodes);
	}
}

struct bworker {
	void *buf;
	size_t size;
	int id, n, rc;
};

static void *build_thread(void *arg)
{
	struct bworker *w = arg;
	w->rc = optimal_table_work(w->buf, w->size, w->id, w->n, NULL, NULL);
	return NULL;
}

/* The tables of level, from the cache file or built (and cached). */
static void *optimal_tables(int level, int threads, size_t *size)
{
	*size = optimal_table_size(level);
	size_t huge = (size_t)2 << 20, alloc = (*size + huge - 1) / huge * huge;
	void *buf = mmap(NULL, alloc, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "bench: no memory for %zu bytes of tables\n",
			*size);
		exit(1);
	}
#ifdef MADV_HUGEPAGE
	madvise(buf, alloc, MADV_HUGEPAGE);
#endif
	const char *dir = getenv("CUBED_TABLES");
	char path[1024] = "";
	if (dir && *dir)
		snprintf(path, sizeof path, "%s/cubed-optimal-%d.bin", dir, level);
	double t0 = clock_s(CLOCK_MONOTONIC);
	FILE *f = path[0] ? fopen(path, "rb") : NULL;
	size_t got = f ? fread(buf, 1, *size, f) : 0;
	if (f)
		fclose(f);
	if (got == *size && optimal_table_check(buf, *size, level) == CUBE_OK) {
		fig("optimal.tables.load.s", clock_s(CLOCK_MONOTONIC) - t0, "s");
		return buf;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = optimal_table_begin(buf, *size, level);
	while (rc == CUBE_OK || rc == 1) {
		pthread_t th[64];
		struct bworker w[64];
		for (int i = 0; i < threads; i++) {
			w[i] = (struct bworker){buf, *size, i, threads, 0};
			pthread_create(&th[i], NULL, build_thread, &w[i]);
		}
		for (int i = 0; i < threads; i++) {
			pthread_join(th[i], NULL);
			if (w[i].rc < 0)
				fail("optimal_table_work", w[i].rc);
		}
		rc = optimal_table_next(buf, *size);
		if (rc == 0)
			break;
	}
	if (rc < 0)
		fail("optimal_table_next", rc);
	fig("optimal.tables.build.s", clock_s(CLOCK_MONOTONIC) - t0, "s");
	fig("optimal.tables.build.cpu.s", clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0,
	    "s");
	if (path[0]) {
		char tmp[1100];
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
		FILE *o = fopen(tmp, "wb");
		if (o && fwrite(buf, 1, *size, o) == *size && fclose(o) == 0)
			rename(tmp, path);
		else if (o)
			fclose(o);
	}
	return buf;
}

static void bench_optimal(int level, int n, int threads, const char *out)
{
	size_t size;
	void *tables = optimal_tables(level, threads, &size);
	printf("optimal.level: %d\n", level);
	fig("optimal.tables.mb", (double)size / 1e6, "MB");
	cubie3 *st = malloc((size_t)n * sizeof *st);
	cube_rng r;
	cube_rng_seed(&r, 20251123);
	for (int i = 0; i < n; i++)
		cubie3_random(&r, &st[i]);
	write_states(out, st, n);
	struct ojob j = {tables, st, n, 0, PTHREAD_MUTEX_INITIALIZER,
			 malloc((size_t)n * sizeof(double)),
			 malloc((size_t)n * sizeof(double)),
			 malloc((size_t)n * sizeof(int)),
			 malloc((size_t)n * sizeof(uint64_t))};
	pthread_t th[64];
	double w0 = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, solver_thread, &j);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	double total = clock_s(CLOCK_MONOTONIC) - w0;
	int count[21] = {0};
	double lsum = 0, nsum = 0;
	for (int i = 0; i < n; i++) {
		count[j.len[i]]++;
		lsum += j.len[i];
		nsum += (double)j.nodes[i];
	}
	printf("optimal.states: %d states\n", n);
	fig("optimal.moves.mean", lsum / n, "moves");
	for (int k = 0; k <= 20; k++)
		if (count[k])
			printf("optimal.moves.%d: %d states\n", k, count[k]);
	quantiles("optimal.s", j.wall, n, "s");
	quantiles("optimal.cpu.s", j.cpu, n, "s");
	fig("optimal.nodes.mean", nsum / n, "nodes");
	fig("optimal.run.s", total, "s");
	printf("optimal.threads: %d threads\n", threads);
}

/* ---- at most 20 moves ------------------------------------------------ */

static void bench_twenty(int n, const char *out)
{
	size_t size = twophase_table_size();
	void *t = malloc(size);
	if (!t)
		fail("malloc", CUBE_EINVAL);
	int rc = twophase_table_init(t, size, NULL, NULL);
	if (rc < 0)
		fail("twophase_table_init", rc);
	cubie3 *st = malloc((size_t)n * sizeof *st);
	double *ms = malloc((size_t)n * sizeof *ms);
	double *mv = malloc((size_t)n * sizeof *mv);
	cube_rng r;
	cube_rng_seed(&r, 20251124);
	for (int i = 0; i < n; i++)
		cubie3_random(&r, &st[i]);
	write_states(out, st, n);
	for (int i = 0; i < n; i++) {
		cube_move m[32];
		solve_limits lim = {20, 20, NULL, NULL, 0};
		double t0 = clock_s(CLOCK_MONOTONIC);
		int k = twophase_solve(t, &st[i], &lim, m, 32);
		ms[i] = (clock_s(CLOCK_MONOTONIC) - t0) * 1e3;
		if (k < 0 || k > 20 || !solves(&st[i], m, k))
			fail("twophase_solve at 20", k < 0 ? k : SOLVE_ENOTFOUND);
		mv[i] = k;
	}
	printf("twenty.states: %d states\n", n);
	quantiles("twenty.ms", ms, n, "ms");
	quantiles("twenty.moves", mv, n, "moves");
	free(t);
}

int bench_optimal_main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--optimal") == 0) {
		int level = atoi(argv[2]);
		int n = argc > 3 ? atoi(argv[3]) : 100;
		int threads = argc > 4 ? atoi(argv[4]) : 2;
		if (level < 0 || level >= OPTIMAL_LEVELS || n < 1 || threads < 1 ||
		    threads > 64)
			return 2;
		bench_optimal(level, n, threads, argc > 5 ? argv[5] : NULL);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--twenty") == 0) {
		int n = argc > 2 ? atoi(argv[2]) : 1000;
		if (n < 1)
			return 2;
		bench_twenty(n, argc > 3 ? argv[3] : NULL);
		return 0;
	}
	return -1;
}
