/* solve_pool.c — the bounded solver pool (solve_pool.h): worker threads,
 * one queue, per-client counts. Everything is under one mutex; the queue
 * is short (queue_max), so picking the next task is a scan of it. */
#include "solve_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct task {
	uint64_t ticket;
	unsigned client; /* index into clients */
	solve_pool_fn run, drop;
	void *arg;
};

/* A client with work queued or running; a slot with neither is free. */
struct client {
	struct limits_key key;
	unsigned running, queued;
	uint64_t served; /* when a task of it last started (round-robin) */
};

struct solve_pool {
	struct solve_pool_config c;
	pthread_mutex_t mu;
	pthread_cond_t work; /* a task was queued, a client's count fell, or stop */
	struct task *queue;  /* [queue_max], oldest first */
	unsigned nqueue;
	struct client *clients; /* [queue_max + workers + 1] */
	unsigned nclients;
	pthread_t *threads;
	unsigned nthreads;
	uint64_t next_ticket;
	unsigned running;
	uint64_t run_total, refused_client, refused_full, cancelled;
	uint64_t refused_share; /* of refused_client: past the room's share */
	_Atomic int stop;
};

static int same_key(const struct limits_key *a, const struct limits_key *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

/* The client's slot, made if needed (there is always room: every slot in
 * use has a task queued or running, and there is one slot more than
 * those can fill). */
static unsigned client_of(struct solve_pool *p, const struct limits_key *k)
{
	unsigned free_slot = p->nclients;
	for (unsigned i = 0; i < p->nclients; i++) {
		struct client *c = &p->clients[i];
		if (c->running == 0 && c->queued == 0) {
			if (free_slot == p->nclients)
				free_slot = i;
			continue;
		}
		if (same_key(&c->key, k))
			return i;
	}
	p->clients[free_slot].key = *k;
	p->clients[free_slot].running = p->clients[free_slot].queued = 0;
	p->clients[free_slot].served = 0;
	return free_slot;
}

/* The queue position of the task to run next, or -1: the oldest task of
 * the client with the fewest running and, among those, the one served
 * longest ago (round-robin over clients, not first come first served:
 * a client that queued many tasks early does not go before one that
 * queued one later). */
static int pick(struct solve_pool *p)
{
	int best = -1;
	const struct client *bc = NULL;
	for (unsigned i = 0; i < p->nqueue; i++) {
		const struct client *c = &p->clients[p->queue[i].client];
		if (c->running >= p->c.client_running)
			continue;
		if (best < 0 || c->running < bc->running ||
		    (c->running == bc->running && c->served < bc->served)) {
			best = (int)i;
			bc = c;
		}
	}
	return best;
}

static void remove_at(struct solve_pool *p, unsigned i)
{
	memmove(&p->queue[i], &p->queue[i + 1],
		(p->nqueue - i - 1) * sizeof p->queue[0]);
	p->nqueue--;
}

static void *worker(void *arg)
{
	struct solve_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		int i = -1;
		while (!atomic_load(&p->stop) && (i = pick(p)) < 0)
			pthread_cond_wait(&p->work, &p->mu);
		if (atomic_load(&p->stop))
			break;
		struct task t = p->queue[i];
		remove_at(p, (unsigned)i);
		struct client *c = &p->clients[t.client];
		c->queued--;
		c->running++;
		p->running++;
		p->run_total++;
		c->served = p->run_total;
		pthread_mutex_unlock(&p->mu);
		t.run(t.arg);
		pthread_mutex_lock(&p->mu);
		p->clients[t.client].running--;
		p->running--;
		/* another of this client's tasks may run now */
		pthread_cond_broadcast(&p->work);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct solve_pool *solve_pool_new(const struct solve_pool_config *c)
{
	if (!c || c->workers < 1 || c->queue_max < 1 || c->client_running < 1 ||
	    c->client_queued < 1)
		return NULL;
	struct solve_pool *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->c = *c;
	p->queue = calloc(c->queue_max, sizeof *p->queue);
	/* every client with a task queued or running, and one more: the
	 * one asking, which a full queue then refuses */
	p->nclients = c->queue_max + c->workers + 1;
	p->clients = calloc(p->nclients, sizeof *p->clients);
	p->threads = calloc(c->workers, sizeof *p->threads);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	if (!p->queue || !p->clients || !p->threads) {
		solve_pool_free(p);
		return NULL;
	}
	for (unsigned i = 0; i < c->workers; i++) {
		if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
			solve_pool_free(p);
			return NULL;
		}
		p->nthreads++;
	}
	return p;
}

int solve_pool_submit(struct solve_pool *p, const struct limits_key *client,
		      solve_pool_fn run, solve_pool_fn drop, void *arg,
		      uint64_t *ticket)
{
	int rc = POOL_OK;
	pthread_mutex_lock(&p->mu);
	if (atomic_load(&p->stop)) {
		rc = POOL_STOPPED;
		goto out;
	}
	unsigned ci = client_of(p, client);
	/* The cap is on running and waiting together: a task submitted a
	 * moment before a free worker takes it is not yet running, and
	 * counting it as waiting would refuse a client within its caps
	 * whenever the workers are slow to wake (seen under load in CI). */
	const struct client *cl = &p->clients[ci];
	if (cl->running + cl->queued >=
	    p->c.client_running + p->c.client_queued) {
		p->refused_client++;
		rc = POOL_CLIENT_BUSY;
		goto out;
	}
	if (p->nqueue >= p->c.queue_max) {
		p->refused_full++;
		rc = POOL_FULL;
		goto out;
	}
	/* A share of the room left: a client with n tasks waiting queues
	 * another only while more than n × (queue_max / 8) places are free.
	 * So a few clients at their caps cannot fill the queue: as it
	 * fills, the clients with the most waiting are refused first, and a
	 * client with nothing waiting gets in until the queue is full (13
	 * addresses at the default caps leave 14 of 64 places). */
	unsigned unit = p->c.queue_max / 8 ? p->c.queue_max / 8 : 1;
	/* Not waiting: the client's tasks that an idle worker is about to
	 * take (a worker slow to wake under load leaves them queued for a
	 * moment; counted as waiting, they refused a client within its
	 * share). Other clients' queued tasks are taken to have the idle
	 * workers first. */
	unsigned busy = p->running + (p->nqueue - cl->queued);
	unsigned idle = p->c.workers > busy ? p->c.workers - busy : 0;
	unsigned may_run = p->c.client_running > cl->running
				   ? p->c.client_running - cl->running
				   : 0;
	unsigned starting = cl->queued;
	if (starting > may_run)
		starting = may_run;
	if (starting > idle)
		starting = idle;
	unsigned waiting = cl->queued - starting;
	if (waiting && p->c.queue_max - (p->nqueue - starting) <=
			       (uint64_t)waiting * unit) {
		p->refused_client++;
		p->refused_share++;
		rc = POOL_CLIENT_SHARE;
		goto out;
	}
	struct task *t = &p->queue[p->nqueue++];
	t->ticket = ++p->next_ticket;
	t->client = ci;
	t->run = run;
	t->drop = drop;
	t->arg = arg;
	p->clients[ci].queued++;
	*ticket = t->ticket;
	pthread_cond_broadcast(&p->work);
out:
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int solve_pool_cancel(struct solve_pool *p, uint64_t ticket)
{
	struct task t = {0};
	int found = 0;
	pthread_mutex_lock(&p->mu);
	for (unsigned i = 0; i < p->nqueue; i++)
		if (p->queue[i].ticket == ticket) {
			t = p->queue[i];
			remove_at(p, i);
			p->clients[t.client].queued--;
			p->cancelled++;
			found = 1;
			break;
		}
	pthread_mutex_unlock(&p->mu);
	if (found && t.drop)
		t.drop(t.arg);
	return found;
}

void solve_pool_stats(struct solve_pool *p, struct solve_pool_stats *out)
{
	pthread_mutex_lock(&p->mu);
	out->workers = p->c.workers;
	out->queued = p->nqueue;
	out->running = p->running;
	out->run_total = p->run_total;
	out->refused_client = p->refused_client;
	out->refused_full = p->refused_full;
	out->refused_share = p->refused_share;
	out->cancelled = p->cancelled;
	pthread_mutex_unlock(&p->mu);
}

void solve_pool_count_cancelled(struct solve_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->cancelled++;
	pthread_mutex_unlock(&p->mu);
}

int solve_pool_stopping(struct solve_pool *p)
{
	return atomic_load(&p->stop);
}

void solve_pool_stop(struct solve_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->stop, 1);
	pthread_cond_broadcast(&p->work);
	struct task *left = p->queue;
	unsigned nleft = p->nqueue;
	p->nqueue = 0;
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < nleft; i++)
		if (left[i].drop)
			left[i].drop(left[i].arg);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	p->nthreads = 0; /* a second stop has nothing to join */
}

void solve_pool_free(struct solve_pool *p)
{
	if (!p)
		return;
	solve_pool_stop(p);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p->queue);
	free(p->clients);
	free(p->threads);
	free(p);
}
