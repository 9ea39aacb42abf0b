/* events_watch.c — one watcher of a session's live events (see events.h,
 * events_internal.h): subscribe, attach and detach; its replay from the
 * store, page by page, until it can join the channel's ring; and reading
 * its stream. Locks as events.c says. */
#include "events.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "alg.h"
#include "cube.h"
#include "jsonout.h"
#include "log.h"
#include "timefmt.h"

#include "events_internal.h"

/* ------------------------------------------------------------- watchers */


/* Append bytes to w's private buffer. */
static int pend_add(struct watcher *w, const char *s, size_t len)
{
	char *p = realloc(w->pend, w->pend_len + len);
	if (!p)
		return -1;
	memcpy(p + w->pend_len, s, len);
	w->pend = p;
	w->pend_len += len;
	return 0;
}

int events_subscribe(struct events *ev, struct sessions *s, const char *id,
		     int n, int64_t after, struct watcher **out)
{
	struct watcher *w = calloc(1, sizeof *w);
	if (!w)
		return EVENTS_NOMEM;
	w->hub = ev;
	w->ses = s;
	snprintf(w->id, sizeof w->id, "%s", id);
	w->size = n;
	w->mode = W_REPLAY;
	w->peer_fd = -1;
	w->last_io_ms = mono_ms();
	/* the reconnection delay browsers use, and bytes to send at once so
	 * the headers go out before the first event */
	static const char hello[] = "retry: 2000\n\n";
	if (pend_add(w, hello, sizeof hello - 1) < 0) {
		free(w);
		return EVENTS_NOMEM;
	}

	pthread_mutex_lock(&ev->lock);
	if (ev->closing || ev->nwatchers >= ev->cfg.max_watchers) {
		int rc = ev->closing ? EVENTS_CLOSING : EVENTS_FULL;
		pthread_mutex_unlock(&ev->lock);
		free(w->pend);
		free(w);
		return rc;
	}
	ev->ses = s;
	struct channel *c = ev__find(ev, id);
	if (!c) {
		c = calloc(1, sizeof *c);
		if (!c) {
			pthread_mutex_unlock(&ev->lock);
			free(w->pend);
			free(w);
			return EVENTS_NOMEM;
		}
		snprintf(c->id, sizeof c->id, "%s", id);
		pthread_mutex_init(&c->lock, NULL);
		c->last_version = -1;
		c->size = n;
		c->cube_at = -1;
		c->owed = -1;
		c->announced = -1;
		struct channel **b = ev__bucket(ev, id);
		c->next = *b;
		*b = c;
	}
	pthread_mutex_lock(&c->lock);
	w->ch = c;
	w->next = c->watchers;
	if (c->watchers)
		c->watchers->prev = w;
	c->watchers = w;
	c->nwatchers++;
	w->counted = 1;
	ev->nwatchers++;
	ev->stats.watchers = ev->nwatchers;
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&ev->lock);

	/* Registered: everything committed from now on reaches the ring.
	 * Read the store only now, so nothing falls between the two: every
	 * version up to the one read is in the store, every later one will
	 * be published to the ring. */
	struct session_view v;
	if (sessions_get(w->ses, id, -1, &v) != SES_OK) {
		events_detach(w);
		return EVENTS_GONE;
	}
	w->target = v.version;
	ev__test_hold(ev->hold_file);
	if (after < 0) {
		struct session_event e = {
			.id = id, .type = "state", .version = v.version,
			.size = v.size, .moves = "", .facelets = v.facelets,
			.created_at = v.updated_at,
		};
		json_t *data = ev__event_json(ev, &e);
		if (data)
			json_object_set_new(data, "watchers",
					    json_integer(events_watchers(ev, id)));
		size_t len;
		char *buf = ev__sse_format(v.version, "state", data, &len);
		w->last_sent = v.version;
		/* the state at last_sent: the first watcher to go live
		 * hands it to the channel, which then formats other nodes'
		 * events from it without reading the store (none: read) */
		if (v.size <= ev->cfg.facelets_max_n && v.state) {
			const cube_t *sc = session_state_cube(v.state);
			w->cube = malloc(cube_sizeof(sc->n));
			if (w->cube)
				cube_copy(w->cube, sc);
		}
		session_view_free(&v);
		if (!buf || pend_add(w, buf, len) < 0) {
			free(buf);
			events_detach(w);
			return EVENTS_NOMEM;
		}
		free(buf);
	} else {
		session_view_free(&v);
		w->last_sent = after;
	}
	*out = w;
	return EVENTS_OK;
}

void events_attach(struct watcher *w, events_park_fn *park,
		   events_park_fn *wake, void *ctx)
{
	pthread_mutex_lock(&w->ch->lock);
	w->park = park;
	w->wake = wake;
	w->ctx = ctx;
	pthread_mutex_unlock(&w->ch->lock);
}

void events_watch_peer(struct watcher *w, events_alive_fn *alive, int fd)
{
	pthread_mutex_lock(&w->ch->lock);
	w->alive = alive;
	w->peer_fd = fd;
	w->peer_ms = mono_ms();
	pthread_mutex_unlock(&w->ch->lock);
}

void events_detach(struct watcher *w)
{
	if (!w)
		return;
	struct events *ev = w->hub;
	struct channel *c = w->ch, *dead = NULL;
	pthread_mutex_lock(&ev->lock);
	pthread_mutex_lock(&c->lock);
	if (w->prev)
		w->prev->next = w->next;
	else
		c->watchers = w->next;
	if (w->next)
		w->next->prev = w->prev;
	if (w->counted)
		c->nwatchers--;
	ev->nwatchers--;
	ev->stats.watchers = ev->nwatchers;
	if (c->watchers == NULL) {
		struct channel **p = ev__bucket(ev, c->id);
		while (*p != c)
			p = &(*p)->next;
		*p = c->next;
		dead = c;
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&ev->lock);
	if (dead) {
		for (uint64_t s = dead->tail; s < dead->head; s++)
			free(dead->ring[s % RING].buf);
		atomic_fetch_sub(&ev->kept, dead->kept);
		pthread_mutex_destroy(&dead->lock);
		free(dead->cube);
		free(dead);
	}
	free(w->pend);
	free(w->cube);
	free(w);
}

/* ---------------------------------------------------------------- replay */

/* w->cube := the session's state at version (a copy). */
static int replay_state(struct watcher *w, int64_t version)
{
	struct session_view v;
	if (sessions_get(w->ses, w->id, version, &v) != SES_OK)
		return -1;
	const cube_t *c = session_state_cube(v.state);
	if (!w->cube)
		w->cube = malloc(cube_sizeof(c->n));
	if (w->cube)
		cube_copy(w->cube, c);
	session_view_free(&v);
	return w->cube ? 0 : -1;
}

/* Try to join the ring: the store's part (up to target) must be sent, and
 * the ring must hold every version after last_sent (or none was
 * published). Channel locked. */
static int try_live_locked(struct watcher *w)
{
	struct channel *c = w->ch;
	if (w->last_sent < w->target)
		return 0;
	uint64_t start = c->tail;
	for (uint64_t s = c->tail; s < c->head; s++) {
		int64_t v = c->ring[s % RING].version;
		if (v >= 0 && v <= w->last_sent)
			start = s + 1;
	}
	for (uint64_t s = start; s < c->head; s++) {
		int64_t v = c->ring[s % RING].version;
		if (v >= 0) {
			if (v != w->last_sent + 1)
				return 0;
			goto live;
		}
	}
	if (c->last_version > w->last_sent)
		return 0;
	/* nobody live yet, and another node committed a version this
	 * watcher's replay has not read: read on */
	if (c->last_version < 0 && c->announced > w->last_sent)
		return 0;
live:
	/* the first live watcher: the channel holds every version up to
	 * here from now on (a later one is fetched from there: ev__fill). Not
	 * moved by later watchers: the ones already live may still wait
	 * for versions the fan-out thread is bringing. */
	if (c->last_version < 0) {
		c->last_version = w->last_sent;
		/* its replay state is the channel's: the next remote event
		 * needs no store read */
		if (w->cube) {
			free(c->cube);
			c->cube = w->cube;
			c->cube_at = w->last_sent;
			w->cube = NULL;
		}
	}
	w->mode = W_LIVE;
	w->next_seq = start;
	w->off = 0;
	free(w->cube);
	w->cube = NULL;
	return 1;
}

/* Read the next page of the store into pend (no lock held). Returns the
 * number of events, 0 if the store has none after last_sent, -1 when the
 * stream must end. */
static int replay_page(struct watcher *w)
{
	struct events *ev = w->hub;
	int want_facelets = w->size <= ev->cfg.facelets_max_n;
	if (want_facelets && !w->cube && replay_state(w, w->last_sent) < 0)
		return -1;
	size_t flen = 6u * (size_t)w->size * (size_t)w->size;
	char *facelets = want_facelets ? malloc(flen + 1) : NULL;
	if (want_facelets && !facelets)
		return -1;
	struct store_event page[REPLAY_PAGE];
	int k = sessions_history(w->ses, w->id, w->last_sent, page,
				 REPLAY_PAGE);
	int rc = k;
	for (int i = 0; i < k && rc >= 0; i++) {
		struct store_event *e = &page[i];
		if (want_facelets) {
			if (strcmp(e->kind, "reset") == 0
				    ? replay_state(w, 0) < 0
				    : ev__apply_stored(w->cube, e->moves) < 0) {
				rc = -1;
				break;
			}
			cube_to_facelets(w->cube, facelets);
			facelets[flen] = '\0';
		}
		struct session_event se = {
			.id = w->id, .type = e->kind, .version = e->version,
			.size = w->size, .moves = e->moves, .actor = e->actor,
			.facelets = facelets, .created_at = e->created_at,
		};
		size_t len;
		char *buf = ev__sse_format(e->version, e->kind, ev__event_json(ev, &se),
				       &len);
		if (!buf || pend_add(w, buf, len) < 0)
			rc = -1;
		free(buf);
		w->last_sent = e->version;
	}
	for (int i = 0; i < k; i++)
		store_event_free(&page[i]);
	free(facelets);
	if (rc > 0) {
		pthread_mutex_lock(&ev->lock);
		ev->stats.replayed += (uint64_t)rc;
		pthread_mutex_unlock(&ev->lock);
	}
	return rc < 0 ? -1 : rc;
}

/* --------------------------------------------------------------- reading */

static size_t take(char *dst, size_t max, const char *src, size_t len,
		   size_t *off)
{
	size_t n = len - *off < max ? len - *off : max;
	memcpy(dst, src + *off, n);
	*off += n;
	return n;
}

ssize_t events_read(struct watcher *w, char *buf, size_t max)
{
	struct channel *c = w->ch;
	struct events *ev = w->hub;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		if (w->pend_off < w->pend_len) {
			size_t n = take(buf, max, w->pend, w->pend_len,
					&w->pend_off);
			if (w->pend_off == w->pend_len) {
				free(w->pend);
				w->pend = NULL;
				w->pend_len = w->pend_off = 0;
			}
			w->last_io_ms = mono_ms();
			pthread_mutex_unlock(&c->lock);
			return (ssize_t)n;
		}
		if (w->cut || ev->closing) {
			pthread_mutex_unlock(&c->lock);
			return -1;
		}
		if (w->mode == W_REPLAY) {
			if (try_live_locked(w))
				continue;
			pthread_mutex_unlock(&c->lock);
			int k = replay_page(w);
			pthread_mutex_lock(&c->lock);
			if (k < 0)
				w->cut = 1;
			continue;
		}
		/* live: the ring from next_seq */
		if (w->next_seq < c->tail) {
			w->cut = 1;
			continue;
		}
		if (w->next_seq < c->head) {
			struct entry *e = &c->ring[w->next_seq % RING];
			if (w->off == 0 && e->version >= 0 &&
			    e->version <= w->last_sent) {
				w->next_seq++;
				continue;
			}
			size_t n = take(buf, max, e->buf, e->len, &w->off);
			if (w->off == e->len) {
				w->next_seq++;
				w->off = 0;
				if (e->version > w->last_sent)
					w->last_sent = e->version;
			}
			w->last_io_ms = mono_ms();
			pthread_mutex_unlock(&c->lock);
			return (ssize_t)n;
		}
		if (c->deleted) {
			pthread_mutex_unlock(&c->lock);
			return -1;
		}
		if (w->ping_due) {
			w->ping_due = 0;
			static const char ping[] = ": ping\n\n";
			if (pend_add(w, ping, sizeof ping - 1) == 0)
				continue;
		}
		w->parked = 1;
		if (w->park)
			w->park(w->ctx);
		pthread_mutex_unlock(&c->lock);
		return 0;
	}
}

