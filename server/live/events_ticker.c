/* events_ticker.c — the ticker thread and the hub's lifecycle (see
 * events.h, events_internal.h): presence and heartbeats, hung-up peers
 * noticed at once, gaps not repaired in time cut; events_open starts the
 * fan-out thread (events.c) and the ticker, events_shutdown and
 * events_close stop them. Locks as events.c says. */
#include "events.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "alg.h"
#include "cube.h"
#include "jsonout.h"
#include "log.h"
#include "timefmt.h"

#include "events_internal.h"

/* ---------------------------------------------------------------- ticker */

/* A watcher whose peer went away: it no longer watches, and its stream
 * is woken to end. The caller holds its channel's lock. */
static void peer_gone(struct channel *c, struct watcher *w)
{
	w->cut = 1;
	if (w->counted) {
		w->counted = 0;
		c->nwatchers--;
	}
	ev__wake_locked(w);
}

/* The parked watchers of c whose socket is known, polled at once (one
 * poll(2) for the channel, not a peek per watcher): a socket readable or
 * hung up is asked alive(), and a closed one's watcher is let go. So a
 * client that hangs up frees its watcher slot and, once its stream ends,
 * its connection within a tick, not at the next heartbeat. The ticker's
 * thread only; the caller holds c's lock. */
static void hangups(struct events *ev, struct channel *c)
{
	size_t n = 0;
	for (struct watcher *w = c->watchers; w; w = w->next) {
		if (!w->alive || w->peer_fd < 0 || w->cut || !w->parked)
			continue;
		if (n == ev->pfd_cap) {
			size_t cap = ev->pfd_cap ? 2 * ev->pfd_cap : 64;
			struct pollfd *p = realloc(ev->pfd, cap * sizeof *p);
			if (p == NULL)
				break;
			ev->pfd = p;
			struct watcher **q =
				realloc(ev->pfd_w, cap * sizeof *q);
			if (q == NULL)
				break;
			ev->pfd_w = q;
			ev->pfd_cap = cap;
		}
		ev->pfd[n] = (struct pollfd){.fd = w->peer_fd, .events = POLLIN};
		ev->pfd_w[n++] = w;
	}
	if (n == 0 || poll(ev->pfd, (nfds_t)n, 0) <= 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (ev->pfd[i].revents &&
		    ((ev->pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL)) ||
		     !ev->pfd_w[i]->alive(ev->pfd_w[i]->ctx)))
			peer_gone(c, ev->pfd_w[i]);
}

/* Presence changes (coalesced), heartbeats and gaps (their repairs asked
 * of the fan-out thread, or their streams cut), a few times a second. */
void *ev__ticker_main(void *arg)
{
	struct events *ev = arg;
	/* channels whose gap is due a repair this tick */
	char (*due)[STORE_ID_MAX] = NULL;
	size_t ndue = 0, due_cap = 0;
	pthread_mutex_lock(&ev->lock);
	while (!ev->stop) {
		if (ndue) {
			/* the queue's lock is taken alone */
			pthread_mutex_unlock(&ev->lock);
			for (size_t i = 0; i < ndue; i++)
				ev__repair_request(ev, due[i]);
			ndue = 0;
			pthread_mutex_lock(&ev->lock);
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += PRESENCE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&ev->tick, &ev->lock, &ts);
		if (ev->stop)
			break;
		int64_t now = mono_ms();
		for (int bi = 0; bi < CHANNEL_BUCKETS; bi++)
		for (struct channel *c = ev->channels[bi]; c; c = c->next) {
			pthread_mutex_lock(&c->lock);
			if (c->owed >= 0 && now - c->gap_ms >= GAP_MAX_MS) {
				ev__gap_cut_locked(ev, c, now);
			} else if (c->owed >= 0 && !c->repair_queued &&
				   now >= c->retry_ms) {
				if (ndue == due_cap) {
					size_t nc = due_cap ? 2 * due_cap : 16;
					void *q = realloc(due, nc * sizeof *due);
					if (q) {
						due = q;
						due_cap = nc;
					}
				}
				if (ndue < due_cap) {
					c->repair_queued = 1;
					memcpy(due[ndue++], c->id,
					       STORE_ID_MAX);
				}
			}
			if (c->nwatchers != c->presence_sent) {
				size_t len;
				char *buf = ev__sse_format(
					-1, "presence",
					json_pack("{s:s, s:i}", "type",
						  "presence", "watchers",
						  c->nwatchers),
					&len);
				if (buf) {
					c->presence_sent = c->nwatchers;
					ev__append_locked(ev, c, -1, buf, len);
				}
			}
			hangups(ev, c);
			for (struct watcher *w = c->watchers; w; w = w->next) {
				/* a peer that closed its end no longer
				 * watches: count it out now, and wake its
				 * stream so the connection ends (those
				 * with a socket were polled just now) */
				if (w->alive && w->peer_fd < 0 && !w->cut &&
				    w->parked &&
				    now - w->peer_ms >= PEER_CHECK_MS) {
					w->peer_ms = now;
					if (!w->alive(w->ctx)) {
						peer_gone(c, w);
						continue;
					}
				}
				if (now - w->last_io_ms >=
				    (int64_t)ev->cfg.heartbeat_ms) {
					w->ping_due = 1;
					w->last_io_ms = now;
					ev__wake_locked(w);
				}
			}
			pthread_mutex_unlock(&c->lock);
		}
	}
	pthread_mutex_unlock(&ev->lock);
	free(due);
	return NULL;
}

/* ------------------------------------------------------------- lifecycle */

int events_open(const struct events_config *cfg, struct events **out)
{
	struct events *ev = calloc(1, sizeof *ev);
	if (!ev)
		return EVENTS_NOMEM;
	ev->cfg = *cfg;
	ev->remote_apply = ev__remote_apply;
	const char *hold = getenv("CUBED_TEST_HOLD_SUBSCRIBE");
	ev->hold_file = hold && *hold ? hold : NULL;
	const char *held = getenv("CUBED_TEST_HOLD_FANOUT");
	ev->hold_fanout = held && *held ? held : NULL;
	if (!ev->cfg.max_watchers)
		ev->cfg.max_watchers = 4096;
	if (!ev->cfg.watcher_buffer)
		ev->cfg.watcher_buffer = (size_t)1 << 20;
	if (!ev->cfg.heartbeat_ms)
		ev->cfg.heartbeat_ms = 20000;
	if (!ev->cfg.memory)
		ev->cfg.memory = (size_t)256 << 20;
	if (!ev->cfg.facelets_max_n)
		ev->cfg.facelets_max_n = 16;
	pthread_mutex_init(&ev->lock, NULL);
	pthread_cond_init(&ev->tick, NULL);
	pthread_mutex_init(&ev->qlock, NULL);
	pthread_cond_init(&ev->qwake, NULL);
	pthread_mutex_init(&ev->fill_lock, NULL);
	if (pthread_create(&ev->ticker, NULL, ev__ticker_main, ev) != 0)
		goto fail;
	if (pthread_create(&ev->fanout, NULL, ev__fanout_main, ev) != 0) {
		pthread_mutex_lock(&ev->lock);
		ev->stop = 1;
		pthread_cond_signal(&ev->tick);
		pthread_mutex_unlock(&ev->lock);
		pthread_join(ev->ticker, NULL);
		goto fail;
	}
	*out = ev;
	return EVENTS_OK;
fail:
	pthread_mutex_destroy(&ev->lock);
	pthread_cond_destroy(&ev->tick);
	pthread_mutex_destroy(&ev->qlock);
	pthread_cond_destroy(&ev->qwake);
	pthread_mutex_destroy(&ev->fill_lock);
	free(ev);
	return EVENTS_NOMEM;
}

void events_shutdown(struct events *ev, unsigned wait_ms)
{
	pthread_mutex_lock(&ev->lock);
	ev->closing = 1;
	for (int bi = 0; bi < CHANNEL_BUCKETS; bi++)
	for (struct channel *c = ev->channels[bi]; c; c = c->next) {
		pthread_mutex_lock(&c->lock);
		for (struct watcher *w = c->watchers; w; w = w->next)
			ev__wake_locked(w);
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&ev->lock);
	int64_t until = mono_ms() + wait_ms;
	for (;;) {
		pthread_mutex_lock(&ev->lock);
		size_t left = ev->nwatchers;
		pthread_mutex_unlock(&ev->lock);
		if (left == 0 || mono_ms() >= until)
			break;
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

void events_close(struct events *ev)
{
	if (!ev)
		return;
	pthread_mutex_lock(&ev->lock);
	ev->stop = 1;
	pthread_cond_signal(&ev->tick);
	pthread_mutex_unlock(&ev->lock);
	pthread_join(ev->ticker, NULL);
	/* the writer has stopped: deliver what it queued, then stop */
	pthread_mutex_lock(&ev->qlock);
	ev->qstop = 1;
	pthread_cond_signal(&ev->qwake);
	pthread_mutex_unlock(&ev->qlock);
	pthread_join(ev->fanout, NULL);
	/* streams still attached belong to connections the HTTP server has
	 * closed by now; their watchers were detached with them */
	for (int bi = 0; bi < CHANNEL_BUCKETS; bi++)
	while (ev->channels[bi]) {
		struct channel *c = ev->channels[bi];
		ev->channels[bi] = c->next;
		while (c->watchers) {
			struct watcher *w = c->watchers;
			c->watchers = w->next;
			free(w->pend);
			free(w->cube);
			free(w);
		}
		for (uint64_t s = c->tail; s < c->head; s++)
			free(c->ring[s % RING].buf);
		pthread_mutex_destroy(&c->lock);
		free(c->cube);
		free(c);
	}
	pthread_mutex_destroy(&ev->lock);
	pthread_cond_destroy(&ev->tick);
	pthread_mutex_destroy(&ev->qlock);
	pthread_cond_destroy(&ev->qwake);
	pthread_mutex_destroy(&ev->fill_lock);
	free(ev->pfd);
	free(ev->pfd_w);
	free(ev);
}

void events_stats(struct events *ev, struct events_stats *out)
{
	pthread_mutex_lock(&ev->lock);
	*out = ev->stats;
	pthread_mutex_unlock(&ev->lock);
	out->gaps = atomic_load(&ev->gaps);
	out->gaps_repaired = atomic_load(&ev->gaps_repaired);
	out->gaps_cut = atomic_load(&ev->gaps_cut);
}
