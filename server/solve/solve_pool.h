/* solve_pool.h — a fixed set of worker threads that run expensive work
 * (solves) off the HTTP threads, from one bounded queue, fairly between
 * clients.
 *
 * Each task belongs to a client (the address the rate limiter keys on).
 * A client has at most client_running tasks running and client_queued
 * waiting (one cap on the sum: a task not yet taken by a free worker
 * counts against the running share); the queue holds at most queue_max
 * in all, and a client with n tasks waiting may queue another only while
 * more than n × (queue_max / 8, at least 1) places are free (its share of
 * the room left: as the queue
 * fills, the clients with the most waiting are refused first, and one
 * with none waiting gets in until it is full). When a worker is
 * free it takes the oldest task of the client with the fewest running
 * and, of those, the one served longest ago (round-robin), skipping
 * clients at their running cap, so one client's many slow tasks cannot
 * hold every worker while another client waits.
 *
 * A task is run(arg) on a worker, or drop(arg) — exactly one of the two,
 * exactly once — if it is cancelled while queued or the pool stops first.
 * Long tasks watch their own cancel flag (and solve_pool_stopping) and
 * return promptly. Thread-safe. */
#ifndef CUBED_SOLVE_POOL_H
#define CUBED_SOLVE_POOL_H

#include <stdint.h>

#include "client_limits.h"

struct solve_pool_config {
	unsigned workers;        /* threads, >= 1 */
	unsigned queue_max;      /* tasks waiting, in all */
	unsigned client_running; /* tasks one client may have running */
	unsigned client_queued;  /* tasks one client may have waiting */
};

enum solve_pool_result {
	POOL_OK = 0,
	POOL_CLIENT_BUSY = 1, /* running + queued at its caps' sum: 429 */
	POOL_FULL = 2,        /* the queue is full: 503 */
	POOL_STOPPED = 3,     /* shutting down: 503 */
	POOL_NOMEM = 4,
	POOL_CLIENT_SHARE = 5, /* its share of the queue's room: 429 */
};

typedef void (*solve_pool_fn)(void *arg);

struct solve_pool;

/* NULL if threads or memory could not be had. */
struct solve_pool *solve_pool_new(const struct solve_pool_config *c);

/* Queue run(arg) for client. On POOL_OK *ticket names the task for
 * solve_pool_cancel; otherwise nothing was queued and neither run nor
 * drop will be called. */
int solve_pool_submit(struct solve_pool *p, const struct limits_key *client,
		      solve_pool_fn run, solve_pool_fn drop, void *arg,
		      uint64_t *ticket);

/* Take a task out of the queue: 1 if it was waiting (drop(arg) has been
 * called, before this returns), 0 if it is running, done or unknown. */
int solve_pool_cancel(struct solve_pool *p, uint64_t ticket);

struct solve_pool_stats {
	unsigned workers, queued, running;
	uint64_t run_total, refused_client, refused_full;
	uint64_t refused_share; /* of refused_client: POOL_CLIENT_SHARE */
	uint64_t cancelled; /* taken out while queued, or stopped running */
};
void solve_pool_stats(struct solve_pool *p, struct solve_pool_stats *out);

/* Count a running task that stopped early because nobody wanted its
 * answer any more (its client went away). */
void solve_pool_count_cancelled(struct solve_pool *p);

/* 1 once solve_pool_free has begun: running tasks should return. */
int solve_pool_stopping(struct solve_pool *p);

/* Stop: drop every waiting task, wait for the running ones to return,
 * join the workers; later submits get POOL_STOPPED. Idempotent. */
void solve_pool_stop(struct solve_pool *p);

/* Stop, then free p. */
void solve_pool_free(struct solve_pool *p);

#endif
