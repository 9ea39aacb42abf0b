/* solver.c — builds or loads the solver tables in a background thread
 * (see solver.h). A cache file is written to a temporary name and renamed,
 * so a crash mid-write never leaves a truncated table under the real name;
 * every loaded file is checked (size and checksum) before use. */
#include "solver.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beginner.h"
#include "reduce.h"
#include "solve.h"

struct table {
	const char *file;
	size_t (*size)(void);
	int (*init)(void *, size_t, solve_poll_fn, void *);
	int (*check)(const void *, size_t);
	void *buf;
	_Atomic int state; /* 0 loading, 1 building, 2 ready, 3 failed */
	_Atomic int percent;
	_Atomic int64_t build_started_ms; /* monotonic, for Retry-After */
	char reason[160];
};

struct solver {
	char dir[1024];
	pthread_t thread;
	int started;
	_Atomic int stop;
	struct table t[SOLVER_NTABLES];
	void *beginner; /* built by solver_start, read-only after */
	void *stage;    /* the reduction's staged-center tables: built by
			 * the thread after the others once a solve has
			 * asked for them (not cached: about 0.6 s; most
			 * servers never solve a big cube), read-only once
			 * stage_ready */
	_Atomic int stage_ready, stage_wanted;
	pthread_mutex_t mu; /* with cv: the thread waits for stage_wanted
			     * or stop */
	pthread_cond_t cv;
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

static int stop_cb(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	return atomic_load(&((struct solver *)ctx)->stop);
}

/* Until they are built, each reduction builds the ones it needs. */
static void build_stage_tables(struct solver *s)
{
	size_t ws = reduce_stage_tables_work_size();
	void *work = malloc(ws);
	s->stage = malloc(reduce_stage_tables_size());
	reduce_limits lim = {.poll = stop_cb, .ctx = s};
	if (work && s->stage &&
	    reduce_stage_tables_build(s->stage, reduce_stage_tables_size(),
				      work, ws, &lim) == 0)
		atomic_store(&s->stage_ready, 1);
	free(work);
}

static void *main_loop(void *arg)
{
	struct solver *s = arg;
	/* the small 2×2 table first: it is ready in a fraction of a second */
	static const enum solver_table order[] = {SOLVER_2X2, SOLVER_3X3};
	for (int i = 0; i < SOLVER_NTABLES && !atomic_load(&s->stop); i++) {
		struct table *t = &s->t[order[i]];
		size_t size = t->size();
		t->buf = malloc(size);
		if (!t->buf) {
			snprintf(t->reason, sizeof t->reason, "out of memory");
			atomic_store(&t->state, 3);
			continue;
		}
		char path[1100];
		snprintf(path, sizeof path, "%s/%s", s->dir, t->file);
		if (read_all(path, t->buf, size) == 0 &&
		    t->check(t->buf, size) == 0) {
			atomic_store(&t->state, 2);
			continue;
		}
		atomic_store(&t->build_started_ms, mono_ms());
		atomic_store(&t->state, 1);
		struct build ctx = {t, s};
		int rc = t->init(t->buf, size, poll_cb, &ctx);
		if (rc < 0) {
			snprintf(t->reason, sizeof t->reason, "%s",
				 rc == SOLVE_ECANCELLED ? "cancelled"
							: solve_strerror(rc));
			atomic_store(&t->state, 3);
			continue;
		}
		atomic_store(&t->state, 2);
		if (write_all(path, t->buf, size) < 0)
			fprintf(stderr,
				"cubed: warning: cannot cache solver tables "
				"in %s: %s (they will be rebuilt next start)\n",
				path, strerror(errno));
	}
	pthread_mutex_lock(&s->mu);
	while (!atomic_load(&s->stop) && !atomic_load(&s->stage_wanted))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
	if (!atomic_load(&s->stop))
		build_stage_tables(s);
	return NULL;
}

struct solver *solver_start(const char *dir)
{
	struct solver *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
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
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, main_loop, s) != 0) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s->beginner);
		free(s);
		return NULL;
	}
	s->started = 1;
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
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	for (int i = 0; i < SOLVER_NTABLES; i++)
		free(s->t[i].buf);
	free(s->stage);
	free(s->beginner);
	free(s);
}

const void *solver_table(struct solver *s, enum solver_table t)
{
	if (!s || atomic_load(&s->t[t].state) != 2)
		return NULL;
	return s->t[t].buf;
}

const void *solver_stage_tables(struct solver *s)
{
	if (!s)
		return NULL;
	if (atomic_load(&s->stage_ready))
		return s->stage;
	if (!atomic_exchange(&s->stage_wanted, 1)) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

const void *solver_beginner(struct solver *s)
{
	return s ? s->beginner : NULL;
}

void solver_status(struct solver *s, enum solver_table t, const char **state,
		   int *percent, const char **reason)
{
	static const char *const names[] = {"loading", "building", "ready",
					    "failed"};
	int st = s ? atomic_load(&s->t[t].state) : 3;
	*state = names[st];
	*percent = s ? atomic_load(&s->t[t].percent) : 0;
	*reason = s && st == 3 ? s->t[t].reason : NULL;
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
