/* bench_optimal.c — the optimal 3×3 solver over held-fixed random states
 * (`build/bench/bench --optimal`), the same states side by side with
 * nissy's H48 solver (`--optimal-vs`), and the two-phase solver with a
 * maximum of 20 moves over many (`--twenty`), each state's answer
 * applied back and checked.
 *
 *   build/bench/bench --optimal LEVEL [N [THREADS [STATES_OUT]]]
 *   build/bench/bench --optimal-vs LEVEL [N]
 *   build/bench/bench --twenty [N [STATES_OUT]]
 *   build/bench/bench --near LEVELS [N]     (LEVELS: e.g. 0,1,2)
 *   build/bench/bench --superflip LEVEL
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
 * --optimal-vs solves the same first N (30) states and then the
 * superflip with one thread, and hands each state (as a scramble: the
 * inverse of a two-phase solution) to nissy's H48 solver, one thread,
 * through the driver bench/nissy/nissy_ref.c that bench/optimal_vs.sh
 * builds from nissy's source outside this repository: the command in
 * $CUBED_NISSY (e.g. "/tmp/nissy/nissy_ref h48h3 /work/tables/nissy/h48h3"),
 * or none. The two take turns state by state (cubed first on even
 * states, nissy on odd), every answer of both is checked and their
 * lengths must agree. Figures: per optimal length, the median CPU seconds
 * of each, nissy's over cubed's, and each multiplied by its table's GiB
 * (nissy's benchmarks' measure of time at equal memory).
 *
 * --twenty solves N (1000) random states of another fixed seed with
 * twophase_solve at max_length 20, min2phase's setting for "20 moves",
 * and prints median, mean, p99 and max time and the moves. STATES_OUT,
 * when given, gets the states as facelets, one a line, for a reference
 * solver to run on the same ones. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
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

/* Let go of optimal_tables' buffer. */
static void optimal_tables_free(void *buf, size_t size)
{
	size_t huge = (size_t)2 << 20;
	munmap(buf, (size + huge - 1) / huge * huge);
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

/* ---- side by side with nissy ----------------------------------------- */

/* A face turn as nissy writes it ("U", "R2", "F'"), from a cube_move of
 * a solution (face turns only). */
static int face_turn_of(cube_move m, int *face, int *qt)
{
	static const int face_of[3][2] = {{1, 4}, {0, 3}, {2, 5}};
	if (m.axis > 2 || m.lo != m.hi || (m.lo != 0 && m.lo != 2))
		return -1;
	int far = m.lo == 2;
	*face = face_of[m.axis][far];
	*qt = far ? 4 - m.qt : m.qt;
	return 0;
}

/* The scramble that makes c from solved: a solution, inverted. */
static void scramble_of(const cube_move *m, int k, char *out, size_t cap)
{
	static const char letters[] = "URFDLB";
	size_t n = 0;
	out[0] = 0;
	for (int i = k - 1; i >= 0; i--) {
		int f, q;
		if (face_turn_of(m[i], &f, &q) < 0)
			continue;
		q = 4 - q;
		n += (size_t)snprintf(out + n, cap - n, "%s%c%s", n ? " " : "",
				      letters[f], q == 1 ? "" : q == 2 ? "2" : "'");
	}
}

struct nissy {
	pid_t pid;
	FILE *to, *from;
	double gib;
	char solver[64];
};

/* Start $CUBED_NISSY ("nissy_ref SOLVER TABLEFILE"): 0, or -1 with a
 * note if unset or it fails. */
static int nissy_start(struct nissy *n)
{
	const char *cmd = getenv("CUBED_NISSY");
	if (!cmd || !*cmd) {
		fprintf(stderr, "bench: CUBED_NISSY is not set: cubed only\n");
		return -1;
	}
	int in[2], out[2];
	if (pipe(in) < 0 || pipe(out) < 0)
		return -1;
	n->pid = fork();
	if (n->pid < 0)
		return -1;
	if (n->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	n->to = fdopen(in[1], "w");
	n->from = fdopen(out[0], "r");
	char line[256];
	long long size = 0;
	if (!n->to || !n->from || !fgets(line, sizeof line, n->from) ||
	    sscanf(line, "ready %lld", &size) != 1) {
		fprintf(stderr, "bench: %s did not start\n", cmd);
		return -1;
	}
	n->gib = (double)size / (double)(1u << 30);
	const char *sp = strchr(cmd, ' ');
	snprintf(n->solver, sizeof n->solver, "%.*s",
		 sp ? (int)strcspn(sp + 1, " ") : 0, sp ? sp + 1 : "");
	return 0;
}

/* nissy's answer for a scramble: length (-1 on failure), CPU seconds. */
static int nissy_solve(struct nissy *n, const char *scr, double *cpu,
		       unsigned long long *nodes)
{
	char line[4096];
	fprintf(n->to, "%s\n", scr);
	fflush(n->to);
	if (!fgets(line, sizeof line, n->from))
		return -1;
	int len = -1;
	double wall;
	if (sscanf(line, "%d %lf %lf %llu", &len, cpu, &wall, nodes) != 4)
		return -1;
	return len;
}

struct vs_state {
	int len, nlen;
	double cpu, ncpu;
	uint64_t nodes;
	unsigned long long nnodes;
};

static void vs_figures(const char *name, struct vs_state *v, int n,
		       double cgib, double ngib, int have_nissy)
{
	double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
	char k[96];
	for (int i = 0; i < n; i++) {
		a[i] = v[i].cpu;
		b[i] = v[i].ncpu;
	}
	double ma = median(a, n), mb = have_nissy ? median(b, n) : 0;
	printf("optimal.vs.%s.states: %d states\n", name, n);
	snprintf(k, sizeof k, "optimal.vs.%s.cubed.cpu.s", name);
	fig(k, ma, "s");
	snprintf(k, sizeof k, "optimal.vs.%s.cubed.s_gib", name);
	fig(k, ma * cgib, "s*GiB");
	if (have_nissy) {
		snprintf(k, sizeof k, "optimal.vs.%s.nissy.cpu.s", name);
		fig(k, mb, "s");
		snprintf(k, sizeof k, "optimal.vs.%s.nissy.s_gib", name);
		fig(k, mb * ngib, "s*GiB");
		snprintf(k, sizeof k, "optimal.vs.%s.ratio", name);
		fig(k, ma > 0 ? mb / ma : 0, "x (nissy / cubed, medians)");
		snprintf(k, sizeof k, "optimal.vs.%s.ratio_gib", name);
		fig(k, ma > 0 ? mb * ngib / (ma * cgib) : 0,
		    "x (nissy / cubed, time x table size)");
	}
	free(a);
	free(b);
}

static void bench_vs(int level, int n)
{
	size_t size;
	void *tables = optimal_tables(level, 2, &size);
	double cgib = (double)size / (double)(1u << 30);
	size_t tsize = twophase_table_size();
	void *tp = malloc(tsize);
	if (!tp || twophase_table_init(tp, tsize, NULL, NULL) < 0)
		fail("twophase_table_init", CUBE_EINVAL);
	struct nissy ny;
	int have_nissy = nissy_start(&ny) == 0;
	signal(SIGPIPE, SIG_IGN);
	printf("optimal.vs.level: %d\n", level);
	fig("optimal.vs.cubed.mb", (double)size / 1e6, "MB");
	if (have_nissy) {
		printf("optimal.vs.nissy.solver: %s\n", ny.solver);
		fig("optimal.vs.nissy.mb", ny.gib * (double)(1u << 30) / 1e6, "MB");
	}
	int total = n + 1; /* the random states, then the superflip */
	cubie3 *st = malloc((size_t)total * sizeof *st);
	struct vs_state *v = calloc((size_t)total, sizeof *v);
	cube_rng r;
	cube_rng_seed(&r, 20251123);
	for (int i = 0; i < n; i++)
		cubie3_random(&r, &st[i]);
	cubie3_solved(&st[n]);
	memset(st[n].eo, 1, sizeof st[n].eo);
	for (int i = 0; i < total; i++) {
		cube_move m[32], tm[32];
		char scr[256];
		solve_limits tl = {0, 0, NULL, NULL, 0, 0};
		int tk = twophase_solve(tp, &st[i], &tl, tm, 32);
		if (tk < 0)
			fail("twophase_solve", tk);
		scramble_of(tm, tk, scr, sizeof scr);
		for (int turn = 0; turn < 2; turn++) {
			int nissy_now = (turn == 0) == (i % 2 == 1);
			if (nissy_now && have_nissy) {
				v[i].nlen = nissy_solve(&ny, scr, &v[i].ncpu,
							&v[i].nnodes);
				if (v[i].nlen < 0) {
					fprintf(stderr, "bench: nissy failed on "
							"state %d (%s)\n", i, scr);
					exit(1);
				}
			} else if (!nissy_now) {
				optimal_progress pr = {0, 0};
				optimal_limits lim = {0, NULL, NULL, &pr};
				double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
				int k = optimal_solve(tables, &st[i], &lim, m, 32);
				v[i].cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
				if (k < 0)
					fail("optimal_solve", k);
				if (!solves(&st[i], m, k)) {
					fprintf(stderr, "bench: the optimal solution of "
							"state %d does not solve it\n", i);
					exit(1);
				}
				v[i].len = k;
				v[i].nodes = pr.nodes;
			}
		}
		if (have_nissy && v[i].nlen != v[i].len) {
			fprintf(stderr, "bench: state %d: cubed %d moves, nissy %d\n",
				i, v[i].len, v[i].nlen);
			exit(1);
		}
		fprintf(stderr, "vs %d%s: %d moves, cubed %.2f s (%llu nodes)",
			i, i == n ? " (superflip)" : "", v[i].len, v[i].cpu,
			(unsigned long long)v[i].nodes);
		if (have_nissy)
			fprintf(stderr, ", nissy %.2f s (%llu nodes), ratio %.2f",
				v[i].ncpu, v[i].nnodes,
				v[i].cpu > 0 ? v[i].ncpu / v[i].cpu : 0);
		fprintf(stderr, "\n");
	}
	/* by optimal length, the superflip apart */
	struct vs_state *grp = malloc((size_t)total * sizeof *grp);
	for (int len = 0; len <= 20; len++) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (v[i].len == len)
				grp[k++] = v[i];
		if (k) {
			char name[16];
			snprintf(name, sizeof name, "%d", len);
			vs_figures(name, grp, k, cgib, ny.gib, have_nissy);
		}
	}
	vs_figures("superflip", &v[n], 1, cgib, have_nissy ? ny.gib : 0,
		   have_nissy);
	if (have_nissy) {
		fclose(ny.to);
		fclose(ny.from);
		waitpid(ny.pid, NULL, 0);
	}
	free(grp);
	free(v);
	free(st);
	free(tp);
}

/* ---- the superflip ---------------------------------------------------- */

/* The superflip (every edge flipped in place, 20 moves: the hardest
 * state to prove) at level, one thread: moves, CPU and wall seconds,
 * nodes. Issue 65's target: within 10 minutes at the default level. */
static void bench_superflip(int level)
{
	size_t size;
	void *tables = optimal_tables(level, 2, &size);
	cubie3 c;
	cubie3_solved(&c);
	memset(c.eo, 1, sizeof c.eo);
	optimal_progress pr = {0, 0};
	optimal_limits lim = {0, NULL, NULL, &pr};
	cube_move m[32];
	double w0 = clock_s(CLOCK_MONOTONIC);
	double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	int k = optimal_solve(tables, &c, &lim, m, 32);
	double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	double wall = clock_s(CLOCK_MONOTONIC) - w0;
	if (k < 0)
		fail("optimal_solve", k);
	if (!solves(&c, m, k)) {
		fprintf(stderr, "bench: the superflip's solution does not "
				"solve it\n");
		exit(1);
	}
	printf("optimal.superflip.level: %d\n", level);
	fig("optimal.superflip.moves", k, "moves");
	fig("optimal.superflip.cpu.s", cpu, "s");
	fig("optimal.superflip.s", wall, "s");
	fig("optimal.superflip.nodes", (double)pr.nodes, "nodes");
	optimal_tables_free(tables, size);
}

/* ---- the near search ------------------------------------------------ */

/* What the server's default 3×3 answer adds to the two-phase search
 * (solve_service.c, near_search): an optimal search bounded to 12 moves,
 * which on a random state (17–19 moves away) only proves that nothing
 * within 12 exists. Per level: the CPU time and nodes of that proof on
 * n random states (median, mean, p90, p99, max), and of the same proof
 * bounded to 11 and 10 moves; beside it, in the same run, the two-phase
 * search the server runs first (default limits), the reference the proof
 * is added to. Levels that have no file in $CUBED_TABLES are built
 * (minutes). */
static void bench_near(const char *levels, int n)
{
	int lv[16], nlv = 0;
	for (const char *p = levels; *p && nlv < 16;) {
		char *end;
		long level = strtol(p, &end, 10);
		if (end == p || level < 0 || level >= OPTIMAL_LEVELS ||
		    (*end && *end != ',')) {
			fprintf(stderr, "bench: --near: levels are 0 to %d, "
				"comma-separated\n", OPTIMAL_LEVELS - 1);
			exit(2);
		}
		lv[nlv++] = (int)level;
		p = *end == ',' ? end + 1 : end;
	}
	cubie3 *st = malloc((size_t)n * sizeof *st);
	double *ms = malloc((size_t)n * sizeof *ms);
	double *nodes = malloc((size_t)n * sizeof *nodes);
	size_t tsize = twophase_table_size();
	void *tp = malloc(tsize);
	if (!st || !ms || !nodes || !tp)
		fail("malloc", CUBE_EINVAL);
	int rc = twophase_table_init(tp, tsize, NULL, NULL);
	if (rc < 0)
		fail("twophase_table_init", rc);
	cube_rng r;
	cube_rng_seed(&r, 20261129);
	for (int i = 0; i < n; i++)
		cubie3_random(&r, &st[i]);
	printf("near.states: %d states\n", n);
	for (int i = 0; i < n; i++) {
		cube_move m[32];
		solve_limits lim = {0};
		double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		int k = twophase_solve(tp, &st[i], &lim, m, 32);
		ms[i] = (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e3;
		if (k < 0 || !solves(&st[i], m, k))
			fail("twophase_solve", k < 0 ? k : SOLVE_ENOTFOUND);
	}
	quantiles("near.twophase.ms", ms, n, "ms");
	free(tp);
	for (int li = 0; li < nlv; li++) {
		int level = lv[li];
		size_t size;
		void *t = optimal_tables(level, 2, &size);
		for (int depth = 12; depth >= 10; depth--) {
			for (int i = 0; i < n; i++) {
				cube_move m[32];
				optimal_progress pr = {0};
				optimal_limits lim = {.max_length = depth,
						      .progress = &pr};
				double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
				int k = optimal_solve(t, &st[i], &lim, m, 32);
				ms[i] = (clock_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e3;
				nodes[i] = (double)pr.nodes;
				if (k >= 0 && !solves(&st[i], m, k))
					fail("optimal_solve", SOLVE_ENOTFOUND);
			}
			char k[64];
			snprintf(k, sizeof k, "near.level%d.depth%d.ms", level, depth);
			quantiles(k, ms, n, "ms");
			snprintf(k, sizeof k, "near.level%d.depth%d.nodes", level,
				 depth);
			quantiles(k, nodes, n, "nodes");
		}
		char k[64];
		snprintf(k, sizeof k, "near.level%d.mb", level);
		fig(k, (double)size / 1e6, "MB");
		optimal_tables_free(t, size);
	}
	free(nodes);
	free(ms);
	free(st);
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
		solve_limits lim = {20, 20, NULL, NULL, 0, 0};
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
	if (argc >= 3 && strcmp(argv[1], "--optimal-size") == 0) {
		printf("%zu\n", optimal_table_size(atoi(argv[2])));
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--optimal-vs") == 0) {
		int level = atoi(argv[2]);
		int n = argc > 3 ? atoi(argv[3]) : 30;
		if (level < 0 || level >= OPTIMAL_LEVELS || n < 0)
			return 2;
		bench_vs(level, n);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "--superflip") == 0) {
		int level = atoi(argv[2]);
		if (level < 0 || level >= OPTIMAL_LEVELS)
			return 2;
		bench_superflip(level);
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--near") == 0) {
		int n = argc > 3 ? atoi(argv[3]) : 300;
		if (n < 1)
			return 2;
		bench_near(argv[2], n);
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
