/* solver.c — builds or loads the solver tables in a background thread
 * (see solver.h). A cache file is written to a temporary name and renamed,
 * so a crash mid-write never leaves a truncated table under the real name;
 * every loaded file is checked (size and checksum) before use. The optimal
 * solver's tables (hundreds of MB to GB) are only made when first asked
 * for, or at start with --optimal-preload, by their own thread and as
 * many builder threads as --solve-workers: most servers never solve
 * optimally, and the tests start many servers. The big cubes' tables
 * (30 MB), the 4×4 three-phase tables (140 MB), the 5×5 five-phase ones
 * (440 MB) and the near tables (the optimal solver's level 0, 80 MB, for
 * a 3×3 near solved) are loaded or built by the main thread after the
 * others: all of them at start, at a low priority, when the server is
 * warm (solver_options.warm, --solver-warm), else each once a solve asks
 * for it. Each start and end is a log line. */
#include "solver.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "beginner.h"
#include "log.h"
#include "optimal.h"
#include "reduce.h"
#include "solve.h"

struct table {
	const char *file;
	size_t (*size)(void);
	/* built by init, or (NULL) by build with a work buffer of work()
	 * bytes */
	int (*init)(void *, size_t, solve_poll_fn, void *);
	size_t (*work)(void);
	int (*build)(void *, size_t, void *, size_t, const reduce_limits *);
	int (*check)(const void *, size_t);
	void *buf;
	_Atomic int state; /* 0 loading, 1 building, 2 ready, 3 failed,
			    * 4 absent (not asked for yet) */
	_Atomic int percent;
	_Atomic int64_t build_started_ms; /* monotonic, for Retry-After */
	char reason[160];
};

enum { LAZY_STAGE, LAZY_NEAR, LAZY_FOUR, LAZY_FIVE, LAZY_N };

/* What the log calls each table. */
static const char *const lazy_name[LAZY_N] = {
	"big cubes' (staged centers, bars)", "near (3×3 optimal, level 0)",
	"4×4 three-phase", "5×5 five-phase"};

struct solver {
	char dir[1024];
	pthread_t thread;
	int started;
	_Atomic int stop;
	struct table t[SOLVER_NTABLES];
	void *beginner; /* built by solver_start, read-only after */
	/* the tables a solve of some size asks for (most servers never
	 * need them): the big cubes' (reduce_stage_tables_build), the 4×4
	 * three-phase ones (about 140 MB, a minute to build) and the 5×5
	 * five-phase ones (about 440 MB, a minute): loaded or built by the
	 * thread after the others once a solve has asked for them; state 4
	 * until then */
	struct table lazy[LAZY_N];
	_Atomic int wanted[LAZY_N];
	pthread_mutex_t mu; /* with cv: the thread waits for wanted[]
			     * or stop */
	pthread_cond_t cv;
	/* the optimal tables: state as struct table's, plus 4 = not asked
	 * for yet; opt_cv (with mu) wakes those waiting for them */
	struct solver_options opts;
	struct table opt;
	pthread_t opt_thread;
	int opt_started;
	size_t opt_alloc; /* bytes mapped for opt.buf (munmap) */
	pthread_cond_t opt_cv;
};

struct build {
	struct table *t;
	struct solver *s;
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int poll_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct table *t = ((struct build *)ctx)->t;
	struct solver *s = ((struct build *)ctx)->s;
	if (total)
		atomic_store(&t->percent, (int)(done * 100 / total));
	return atomic_load(&s->stop);
}

static int read_all(const char *path, void *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size != size) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t k = read(fd, (char *)buf + got, size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			return -1;
		}
		got += (size_t)k;
	}
	close(fd);
	return 0;
}

static int write_all(const char *path, const void *buf, size_t size)
{
	char tmp[1200];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t put = 0;
	while (put < size) {
		ssize_t k = write(fd, (const char *)buf + put, size - put);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			close(fd);
			unlink(tmp);
			return -1;
		}
		put += (size_t)k;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* An init's "no memory for its work" (no solver error says it). */
#define INIT_ENOMEM (-1000)

/* The tables a reduction builds with a work buffer of its own (the big
 * cubes', 4×4's, 5×5's) as a table's init. */
static int reduce_init(const struct table *t, void *buf, size_t size,
		       solve_poll_fn poll, void *ctx)
{
	size_t ws = t->work();
	void *work = malloc(ws);
	if (!work)
		return INIT_ENOMEM;
	reduce_limits lim = {.poll = poll, .ctx = ctx};
	int rc = t->build(buf, size, work, ws, &lim);
	free(work);
	return rc == SOLVE_ENOTFOUND ? SOLVE_ECANCELLED : rc;
}

/* A table's memory: on 2 MB boundaries and in 2 MB pages where the
 * kernel offers them (transparent huge pages on madvise), since the
 * searches read the big tables at random (the 5×5's phases 4–5 spend
 * most of their time waiting on those reads). Freed by free(). */
static void *table_alloc(size_t size)
{
	size_t huge = (size_t)2 << 20;
	void *p = NULL;
	if (size < huge)
		return malloc(size);
	if (posix_memalign(&p, huge, size) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, size / huge * huge, MADV_HUGEPAGE);
#endif
	return p;
}

/* Table t from its file in the tables directory when the file holds
 * what this build makes (size, checksum), else built and written there
 * for the next start (a warning if it cannot be). */
static void load_or_build(struct solver *s, struct table *t, const char *name)
{
	size_t size = t->size();
	int64_t t0 = mono_ms();
	t->buf = table_alloc(size);
	if (!t->buf) {
		snprintf(t->reason, sizeof t->reason, "out of memory");
		atomic_store(&t->state, 3);
		return;
	}
	atomic_store(&t->state, 0);
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", s->dir, t->file);
	if (read_all(path, t->buf, size) == 0 && t->check(t->buf, size) == 0) {
		atomic_store(&t->state, 2);
		if (name)
			log_msg(LOG_INFO, "solver tables: the %s loaded (%s, "
				"%zu MB, %lld ms)", name, t->file, size >> 20,
				(long long)(mono_ms() - t0));
		return;
	}
	atomic_store(&t->build_started_ms, mono_ms());
	atomic_store(&t->state, 1);
	if (name)
		log_msg(LOG_INFO, "solver tables: building the %s (%s, %zu MB); "
			"/readyz shows its progress", name, t->file, size >> 20);
	struct build ctx = {t, s};
	int rc = t->init ? t->init(t->buf, size, poll_cb, &ctx)
			 : reduce_init(t, t->buf, size, poll_cb, &ctx);
	if (rc < 0) {
		snprintf(t->reason, sizeof t->reason, "%s",
			 rc == SOLVE_ECANCELLED ? "cancelled"
			 : rc == INIT_ENOMEM    ? "out of memory"
						: solve_strerror(rc));
		atomic_store(&t->state, 3);
		if (name && rc != SOLVE_ECANCELLED)
			log_msg(LOG_WARN, "solver tables: the %s failed: %s",
				name, t->reason);
		return;
	}
	atomic_store(&t->state, 2);
	if (name)
		log_msg(LOG_INFO, "solver tables: the %s built in %lld ms",
			name, (long long)(mono_ms() - t0));
	if (write_all(path, t->buf, size) < 0)
		fprintf(stderr,
			"cubed: warning: cannot cache solver tables in %s: %s "
			"(they will be rebuilt next start)\n",
			path, strerror(errno));
}

static void *main_loop(void *arg)
{
	struct solver *s = arg;
	/* the small 2×2 table first: it is ready in a fraction of a second */
	static const enum solver_table order[] = {SOLVER_2X2, SOLVER_3X3};
	for (int i = 0; i < SOLVER_NTABLES && !atomic_load(&s->stop); i++)
		load_or_build(s, &s->t[order[i]], NULL);
	/* the rest is for better answers, not for any answer: at a low
	 * priority (this thread only), so that requests come first on a
	 * busy machine */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	if (s->opts.warm)
		for (int i = 0; i < LAZY_N; i++)
			if (!(i == LAZY_FOUR && s->opts.no_four) &&
			    !(i == LAZY_FIVE && s->opts.no_five))
				atomic_store(&s->wanted[i], 1);
	/* the tables a solve asked for, each once, in lazy[]'s order */
	for (;;) {
		int next = -1;
		pthread_mutex_lock(&s->mu);
		while (!atomic_load(&s->stop)) {
			for (int i = 0; i < LAZY_N && next < 0; i++)
				if (atomic_load(&s->wanted[i]) &&
				    atomic_load(&s->lazy[i].state) == 4)
					next = i;
			if (next >= 0)
				break;
			pthread_cond_wait(&s->cv, &s->mu);
		}
		pthread_mutex_unlock(&s->mu);
		if (atomic_load(&s->stop))
			break;
		load_or_build(s, &s->lazy[next], lazy_name[next]);
	}
	return NULL;
}

/* The near tables: the optimal solver's level 0. */
static size_t near_size(void) { return optimal_table_size(0); }

static int near_init(void *buf, size_t size, solve_poll_fn poll, void *ctx)
{
	return optimal_table_init(buf, size, 0, poll, ctx);
}

static int near_check(const void *buf, size_t size)
{
	return optimal_table_check(buf, size, 0);
}

struct solver *solver_start(const char *dir)
{
	struct solver_options o = {.optimal_level = 2, .optimal_threads = 1};
	return solver_start_opts(dir, &o);
}

struct solver *solver_start_opts(const char *dir, const struct solver_options *o)
{
	struct solver *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->opts = *o;
	if (s->opts.optimal_threads < 1)
		s->opts.optimal_threads = 1;
	s->opt.state = 4;
	snprintf(s->dir, sizeof s->dir, "%s", dir);
	mkdir(dir, 0755);
	s->beginner = malloc(beginner_table_size());
	if (s->beginner &&
	    beginner_table_init(s->beginner, beginner_table_size()) < 0) {
		free(s->beginner);
		s->beginner = NULL;
	}
	s->t[SOLVER_3X3] = (struct table){
		.file = "cubed-tables-3x3.bin", .size = twophase_table_size,
		.init = twophase_table_init, .check = twophase_table_check};
	s->t[SOLVER_2X2] = (struct table){
		.file = "cubed-tables-2x2.bin", .size = solve2_table_size,
		.init = solve2_table_init, .check = solve2_table_check};
	s->lazy[LAZY_STAGE] = (struct table){
		.file = "cubed-tables-nxn.bin", .size = reduce_stage_tables_size,
		.work = reduce_stage_tables_work_size,
		.build = reduce_stage_tables_build,
		.check = reduce_stage_tables_check, .state = 4};
	s->lazy[LAZY_NEAR] = (struct table){
		.file = "cubed-optimal-0.bin", .size = near_size,
		.init = near_init, .check = near_check, .state = 4};
	s->lazy[LAZY_FOUR] = (struct table){
		.file = "cubed-tables-4x4.bin", .size = reduce_four_tables_size,
		.work = reduce_four_tables_work_size,
		.build = reduce_four_tables_build,
		.check = reduce_four_tables_check, .state = 4};
	s->lazy[LAZY_FIVE] = (struct table){
		.file = "cubed-tables-5x5.bin", .size = reduce_five_tables_size,
		.work = reduce_five_tables_work_size,
		.build = reduce_five_tables_build,
		.check = reduce_five_tables_check, .state = 4};
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->opt_cv, NULL);
	if (pthread_create(&s->thread, NULL, main_loop, s) != 0) {
		pthread_cond_destroy(&s->opt_cv);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s->beginner);
		free(s);
		return NULL;
	}
	s->started = 1;
	if (s->opts.optimal_preload)
		solver_optimal(s);
	return s;
}

void solver_stop(struct solver *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	atomic_store(&s->stop, 1);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (s->started)
		pthread_join(s->thread, NULL);
	if (s->opt_started)
		pthread_join(s->opt_thread, NULL);
	if (s->opt.buf)
		munmap(s->opt.buf, s->opt_alloc);
	pthread_cond_destroy(&s->opt_cv);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	for (int i = 0; i < SOLVER_NTABLES; i++)
		free(s->t[i].buf);
	for (int i = 0; i < LAZY_N; i++)
		free(s->lazy[i].buf);
	free(s->beginner);
	free(s);
}

const void *solver_table(struct solver *s, enum solver_table t)
{
	if (!s || atomic_load(&s->t[t].state) != 2)
		return NULL;
	return s->t[t].buf;
}

/* Table i of lazy[] if ready, else NULL, asking the thread for it the
 * first time. */
static const void *lazy_get(struct solver *s, int i)
{
	if (atomic_load(&s->lazy[i].state) == 2)
		return s->lazy[i].buf;
	if (!atomic_exchange(&s->wanted[i], 1)) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

const void *solver_stage_tables(struct solver *s)
{
	return s ? lazy_get(s, LAZY_STAGE) : NULL;
}

const void *solver_four_tables(struct solver *s)
{
	return s && !s->opts.no_four ? lazy_get(s, LAZY_FOUR) : NULL;
}

const void *solver_near(struct solver *s)
{
	if (!s)
		return NULL;
	/* the optimal solver's own tables once they are in memory: the
	 * near search proves most states farther than 12 moves in fewer
	 * nodes the higher their level (a random state's median: 8 nodes,
	 * 0.03 ms, on level 2's 2.5 GB; 21, 0.08 ms, on level 1's 1 GB;
	 * 206, 0.28 ms, on level 0's 80 MB: `bench --near`). Immutable once
	 * ready, freed only at stop. */
	if (atomic_load(&s->opt.state) == 2)
		return s->opt.buf;
	/* never asked for by a solve: made at start when the server is
	 * warm, else not at all (a solve does well without them) */
	if (atomic_load(&s->lazy[LAZY_NEAR].state) != 2)
		return NULL;
	return s->lazy[LAZY_NEAR].buf;
}

const void *solver_five_tables(struct solver *s)
{
	return s && !s->opts.no_five ? lazy_get(s, LAZY_FIVE) : NULL;
}

const void *solver_beginner(struct solver *s)
{
	return s ? s->beginner : NULL;
}

/* A table's state by name ("absent": not asked for yet), its build's
 * percent, and why it failed. */
static void table_status(const struct table *t, const char **state,
			 int *percent, const char **reason)
{
	static const char *const names[] = {"loading", "building", "ready",
					    "failed", "absent"};
	int st = atomic_load(&t->state);
	*state = names[st];
	*percent = atomic_load(&t->percent);
	*reason = st == 3 ? t->reason : NULL;
}

void solver_status(struct solver *s, enum solver_table t, const char **state,
		   int *percent, const char **reason)
{
	if (!s) {
		*state = "failed";
		*percent = 0;
		*reason = NULL;
		return;
	}
	table_status(&s->t[t], state, percent, reason);
}

void solver_stage_status(struct solver *s, const char **state,
			 int *percent, const char **reason)
{
	table_status(&s->lazy[LAZY_STAGE], state, percent, reason);
}

void solver_four_status(struct solver *s, const char **state, int *percent,
			const char **reason)
{
	table_status(&s->lazy[LAZY_FOUR], state, percent, reason);
	if (s->opts.no_four)
		*state = "off";
}

void solver_five_status(struct solver *s, const char **state, int *percent,
			const char **reason)
{
	table_status(&s->lazy[LAZY_FIVE], state, percent, reason);
	if (s->opts.no_five)
		*state = "off";
}

void solver_near_status(struct solver *s, const char **state, int *percent,
			const char **reason)
{
	table_status(&s->lazy[LAZY_NEAR], state, percent, reason);
}

/* ---- the optimal tables ------------------------------------------------ */

struct opt_round {
	struct solver *s;
	int worker;
	int rc;
};

static int opt_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct solver *s = ctx;
	/* every worker reports its own share: worker 0's is the estimate */
	if (total)
		atomic_store(&s->opt.percent, (int)(done * 100 / total));
	return atomic_load(&s->stop);
}

static void *opt_worker(void *arg)
{
	struct opt_round *r = arg;
	r->rc = optimal_table_work(r->s->opt.buf, r->s->opt.size(), r->worker,
				   r->s->opts.optimal_threads, opt_poll, r->s);
	return NULL;
}

/* Build the tables in rounds, each run by optimal_threads threads (this
 * one among them). */
static int opt_build(struct solver *s)
{
	int n = s->opts.optimal_threads;
	size_t size = s->opt.size();
	int rc = optimal_table_begin(s->opt.buf, size, s->opts.optimal_level);
	while (rc == CUBE_OK || rc == 1) {
		struct opt_round r[64];
		pthread_t th[64];
		int started = 0;
		if (n > 64)
			n = 64;
		for (int w = 0; w < n; w++)
			r[w] = (struct opt_round){s, w, CUBE_OK};
		for (int w = 1; w < n; w++) {
			if (pthread_create(&th[w], NULL, opt_worker, &r[w]) != 0)
				break;
			started = w;
		}
		if (started != n - 1) {
			/* too few threads: this round cannot be split as begun */
			for (int w = 1; w <= started; w++)
				pthread_join(th[w], NULL);
			return SOLVE_ECANCELLED;
		}
		opt_worker(&r[0]);
		for (int w = 1; w < n; w++)
			pthread_join(th[w], NULL);
		for (int w = 0; w < n; w++)
			if (r[w].rc < 0)
				return r[w].rc;
		rc = optimal_table_next(s->opt.buf, size);
		if (rc == 0)
			return CUBE_OK;
	}
	return rc;
}

static void opt_finish(struct solver *s, int state, const char *reason)
{
	pthread_mutex_lock(&s->mu);
	if (reason)
		snprintf(s->opt.reason, sizeof s->opt.reason, "%s", reason);
	atomic_store(&s->opt.state, state);
	pthread_cond_broadcast(&s->opt_cv);
	pthread_mutex_unlock(&s->mu);
}

static void *opt_loop(void *arg)
{
	struct solver *s = arg;
	struct table *t = &s->opt;
	size_t size = t->size();
	/* 2 MB pages where the kernel offers them: the search reads the
	 * table at random, and a TLB miss per read costs as much as the
	 * read itself */
	size_t huge = (size_t)2 << 20;
	s->opt_alloc = (size + huge - 1) / huge * huge;
	void *buf = mmap(NULL, s->opt_alloc, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		opt_finish(s, 3, "out of memory");
		return NULL;
	}
#ifdef MADV_HUGEPAGE
	madvise(buf, s->opt_alloc, MADV_HUGEPAGE);
#endif
	t->buf = buf;
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", s->dir, t->file);
	if (read_all(path, buf, size) == 0 &&
	    optimal_table_check(buf, size, s->opts.optimal_level) == 0) {
		opt_finish(s, 2, NULL);
		return NULL;
	}
	atomic_store(&t->state, 1);
	int rc = opt_build(s);
	if (rc < 0) {
		opt_finish(s, 3, rc == SOLVE_ECANCELLED ? "cancelled"
							 : solve_strerror(rc));
		return NULL;
	}
	atomic_store(&t->percent, 100);
	opt_finish(s, 2, NULL);
	if (write_all(path, buf, size) < 0)
		fprintf(stderr,
			"cubed: warning: cannot cache the optimal solver's "
			"tables in %s: %s (they will be rebuilt next time)\n",
			path, strerror(errno));
	return NULL;
}

static size_t opt_size0(void) { return optimal_table_size(0); }
static size_t opt_size1(void) { return optimal_table_size(1); }
static size_t opt_size2(void) { return optimal_table_size(2); }

const void *solver_optimal(struct solver *s)
{
	if (!s)
		return NULL;
	int st = atomic_load(&s->opt.state);
	if (st == 2)
		return s->opt.buf;
	if (st != 4)
		return NULL;
	pthread_mutex_lock(&s->mu);
	if (atomic_load(&s->opt.state) == 4 && !atomic_load(&s->stop)) {
		static size_t (*const sizes[OPTIMAL_LEVELS])(void) = {
			opt_size0, opt_size1, opt_size2};
		static char files[OPTIMAL_LEVELS][32];
		int l = s->opts.optimal_level;
		if (l < 0 || l >= OPTIMAL_LEVELS)
			l = 1;
		s->opts.optimal_level = l;
		snprintf(files[l], sizeof files[l], "cubed-optimal-%d.bin", l);
		s->opt.file = files[l];
		s->opt.size = sizes[l];
		atomic_store(&s->opt.state, 0);
		if (pthread_create(&s->opt_thread, NULL, opt_loop, s) == 0) {
			s->opt_started = 1;
		} else {
			snprintf(s->opt.reason, sizeof s->opt.reason,
				 "cannot start a thread");
			atomic_store(&s->opt.state, 3);
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

const void *solver_optimal_wait(struct solver *s, int (*stop)(void *ctx),
				void *ctx)
{
	if (!s)
		return NULL;
	solver_optimal(s);
	pthread_mutex_lock(&s->mu);
	for (;;) {
		int st = atomic_load(&s->opt.state);
		if (st == 2 || st == 3 || atomic_load(&s->stop) ||
		    (stop && stop(ctx)))
			break;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		/* a deadline, not a sleep: stop is checked every 100 ms */
		pthread_cond_timedwait(&s->opt_cv, &s->mu, &ts);
	}
	pthread_mutex_unlock(&s->mu);
	return atomic_load(&s->opt.state) == 2 ? s->opt.buf : NULL;
}

void solver_optimal_status(struct solver *s, struct solver_optimal_info *out)
{
	static const char *const names[] = {"loading", "building", "ready",
					    "failed", "absent"};
	memset(out, 0, sizeof *out);
	if (!s) {
		out->state = "off";
		return;
	}
	int st = atomic_load(&s->opt.state);
	out->state = names[st];
	out->percent = atomic_load(&s->opt.percent);
	out->level = s->opts.optimal_level;
	out->bytes = optimal_table_size(s->opts.optimal_level);
	if (st == 3) {
		pthread_mutex_lock(&s->mu);
		snprintf(out->reason, sizeof out->reason, "%s", s->opt.reason);
		pthread_mutex_unlock(&s->mu);
	}
}

unsigned solver_retry_after(struct solver *s, enum solver_table t)
{
	if (s == NULL)
		return 0; /* no solver: waiting will not help */
	int st = atomic_load(&s->t[t].state);
	if (st == 0)
		return 1; /* loading a file: well under a second */
	if (st != 1)
		return 0; /* ready, or failed until a restart */
	int p = atomic_load(&s->t[t].percent);
	int64_t elapsed = mono_ms() - atomic_load(&s->t[t].build_started_ms);
	/* the rest at the pace so far; before 5 % the pace says little */
	int64_t left = p >= 5 ? elapsed * (100 - p) / p : 5000;
	int64_t secs = (left + 999) / 1000;
	return secs < 1 ? 1 : secs > 60 ? 60 : (unsigned)secs;
}
