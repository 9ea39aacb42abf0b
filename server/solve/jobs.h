/* jobs.h — long solves (optimal 3×3) and solver-labelled datasets
 * (core/dataset.h) as jobs: submitted, run on the solver pool
 * (solve_pool.h), watched and cancelled by id, and kept in memory a while
 * after they finish. A dataset job keeps only the labels a solver makes
 * (one byte a sample each); every other column is made again from (seed,
 * i) when it is downloaded.
 *
 * A job id is "j<epoch>-<seq>-<mac>": epoch is random per start of the
 * server, seq counts jobs, mac is a keyed hash (a secret drawn at start)
 * of the rest. So an id is unguessable, an id from an earlier run of the
 * server is recognised as lost (its epoch is not this run's), and one of
 * this run that is no longer kept (past its TTL, or evicted to bound the
 * count) as expired rather than unknown.
 *
 * A job whose cube belongs to a session stores its solution with the
 * session's solves (sessions_add_solve) when it is done. Thread-safe. */
#ifndef CUBED_JOBS_H
#define CUBED_JOBS_H

#include <stdint.h>

#include "client_limits.h"
#include "cube.h"
#include "cubie.h"
#include "dataset.h"
#include "store.h"

struct solve_pool;
struct solver;
struct sessions;

struct jobs_config {
	unsigned max_jobs;   /* kept in memory at once, in any state */
	uint64_t ttl_ms;     /* a finished job is kept this long */
	uint64_t max_job_ms; /* the longest a job may run (and its default) */
};

enum job_state {
	JOB_QUEUED,
	JOB_RUNNING,
	JOB_DONE,
	JOB_FAILED,
	JOB_CANCELLED,
};
const char *job_state_name(enum job_state s);

#define JOB_ID_MAX 48
#define JOB_MAX_MOVES 20

enum job_kind { JOB_SOLVE = 0, JOB_DATASET = 1 };

/* What to solve. */
struct job_request {
	int kind;                    /* enum job_kind */
	cubie3 cube;                 /* in the standard orientation */
	cube_orientation orient;     /* as given: the answer names faces so */
	int max_length;              /* 0 = 20 */
	uint64_t time_limit_ms;      /* 0 = max_job_ms */
	char session_id[STORE_ID_MAX]; /* "" = not a session's */
	int64_t version;             /* the session version solved */
	char facelets[55];           /* the session state (for watchers) */
	/* JOB_DATASET: the dataset (checked), rows [first, first + rows)
	 * of it (shard k of n), and the optimal tables' level it names */
	dataset_spec ds;
	uint64_t ds_first, ds_rows, ds_shard_k, ds_shard_n;
	int ds_optimal_level;
};

/* A job as it is now (a copy: nothing in it changes after the call). */
struct job_view {
	char id[JOB_ID_MAX];
	enum job_state state;
	struct job_request rq;
	int64_t created_at, started_at, finished_at; /* Unix ms, 0 = not yet */
	double elapsed_ms;       /* searching so far, or in all */
	int depth;               /* solutions this short ruled out, -1 none */
	uint64_t nodes;
	int waiting_for_tables;  /* queued behind the tables being made */
	int count;               /* done: the solution, in the given frame */
	cube_move moves[JOB_MAX_MOVES];
	char error_code[32];     /* failed: why */
	char error_detail[200];
	int64_t solve_id;        /* a session's job: the stored solve, or 0 */
	uint64_t ds_done;        /* a dataset job: samples labelled so far */
};

struct jobs;

/* NULL if memory ran out. pool, solver and sessions (NULL: no session
 * jobs) must outlive the registry. */
struct jobs *jobs_new(const struct jobs_config *c, struct solve_pool *pool,
		      struct solver *solver, struct sessions *sessions);
/* Shutting down: running jobs stop at their next poll, waiting ones give
 * up, new ones are refused. Then stop the pool (solve_pool_free), then
 * jobs_free. */
void jobs_shutdown(struct jobs *j);
void jobs_free(struct jobs *j);

enum jobs_result {
	JOBS_OK = 0,
	JOBS_CLIENT_BUSY,  /* the client's queue cap: 429 */
	JOBS_CLIENT_SHARE, /* its share of the queue's room left: 429 */
	JOBS_QUEUE_FULL,   /* the pool's queue is full: 503 */
	JOBS_TOO_MANY,     /* max_jobs kept and none may go: 503 */
	JOBS_STOPPED,      /* shutting down: 503 */
	JOBS_NOMEM,
	JOBS_NOT_FOUND,    /* no such job (or not an id at all) */
	JOBS_LOST,         /* from an earlier run of the server */
	JOBS_EXPIRED,      /* of this run, but no longer kept */
};

/* Submit: JOBS_OK with *out the new job, or why not. */
int jobs_submit(struct jobs *j, const struct limits_key *client,
		const struct job_request *rq, struct job_view *out);

/* Look up: JOBS_OK with *out, or JOBS_NOT_FOUND / JOBS_LOST /
 * JOBS_EXPIRED. */
int jobs_get(struct jobs *j, const char *id, struct job_view *out);

/* Cancel a queued or running job (it is cancelled from now on; a running
 * search stops within milliseconds). JOBS_OK with *out as after the call
 * and *was_active 0 if it had already finished (then it is unchanged). */
int jobs_cancel(struct jobs *j, const char *id, struct job_view *out,
		int *was_active);

/* The rows of label col (DATASET_TWOPHASE or DATASET_OPTIMAL) a done
 * dataset job made, copied into out (ds_rows bytes): JOBS_OK, a missing
 * job's code, or JOBS_NOT_FOUND when the job has no such label or is not
 * done. */
int jobs_dataset_labels(struct jobs *j, const char *id, int col,
			unsigned char *out);

/* The labels of a dataset job that a solver makes (DATASET_NEED_* of
 * core/dataset.h as column bits): what the job computes and keeps. */
unsigned jobs_dataset_solver_columns(const dataset_spec *s);

struct jobs_stats {
	unsigned kept, queued, running;
	uint64_t submitted, done, failed, cancelled;
};
void jobs_stats(struct jobs *j, struct jobs_stats *out);

#endif
