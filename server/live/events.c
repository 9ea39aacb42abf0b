/* events.c — live session events (see events.h): the channels and their
 * rings, the fan-out thread that formats what the writer publishes, gaps
 * and their repair, and a channel's versions read from the store (fill).
 * A watcher and its replay are events_watch.c's, other nodes'
 * notifications events_remote.c's, the ticker (presence, heartbeats) and
 * the lifecycle events_ticker.c's; they call in here, never the other
 * way (events_internal.h). Locks: fill_lock before the hub's lock; the hub's lock
 * (channel table, totals) before a channel's lock, never after; the
 * fan-out queue's lock is taken alone.
 *
 * Gaps: once a watcher is live on a channel (last_version >= 0), the ring
 * only ever grows by last_version + 1. A version the channel cannot get
 * yet (the store read that brings other nodes' versions failed: the
 * database is out of connections, say) is owed: the channel remembers the
 * newest version it knows exists (`owed`), holds back any later one of
 * its own (it is in the store; the repair reads it from there), and the
 * ticker, which never touches the store, asks the fan-out thread to read
 * the rows again (a repair request in its queue), with a back-off. A gap
 * that is not repaired within GAP_MAX_MS ends the channel's streams, so
 * their clients reconnect with Last-Event-ID and replay from the store
 * rather than wait for ever. Each gap is a log line when it opens and when
 * it is repaired or cut, and a counter (events_stats, /metrics). */
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

/* "id: V\nevent: type\ndata: {json}\n\n" (no id line when version < 0);
 * malloc'd, *len its length, NULL if memory ran out. */
char *ev__sse_format(int64_t version, const char *type, json_t *data,
			size_t *len)
{
	size_t jl = 0;
	char *json = data ? jsonout_dump(data, &jl) : NULL;
	json_decref(data);
	if (!json)
		return NULL;
	size_t cap = jl + 96;
	char *out = malloc(cap);
	if (out) {
		int k = version >= 0
				? snprintf(out, cap, "id: %lld\nevent: %s\ndata: ",
					   (long long)version, type)
				: snprintf(out, cap, "event: %s\ndata: ", type);
		memcpy(out + k, json, jl);
		memcpy(out + k + jl, "\n\n", 3);
		*len = (size_t)k + jl + 2;
	}
	free(json);
	return out;
}

/* The data object of a session event. */
json_t *ev__event_json(const struct events *ev, const struct session_event *e)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:o, s:o}", "version",
			      (json_int_t)e->version, "type", e->type, "moves",
			      e->moves ? e->moves : "", "actor",
			      e->actor && e->actor[0] ? json_string(e->actor)
						      : json_null(),
			      "created_at", timefmt_json(e->created_at));
	if (o && e->facelets && e->size <= ev->cfg.facelets_max_n)
		json_object_set_new(o, "facelets", json_string(e->facelets));
	if (o && e->method)
		json_object_set_new(o, "method", json_string(e->method));
	return o;
}

/* ------------------------------------------------------------- channels */

struct channel **ev__bucket(struct events *ev, const char *id)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return &ev->channels[h % CHANNEL_BUCKETS];
}

struct channel *ev__find(struct events *ev, const char *id)
{
	for (struct channel *c = *ev__bucket(ev, id); c; c = c->next)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

void ev__wake_locked(struct watcher *w)
{
	if (w->parked && w->wake) {
		w->parked = 0;
		w->wake(w->ctx);
	}
}

static uint64_t watcher_pos(const struct channel *c, const struct watcher *w)
{
	if (w->next_seq >= c->head)
		return c->bytes;
	return c->ring[w->next_seq % RING].start + w->off;
}

/* Append an entry (buf stolen) and wake the watchers; cut off those that
 * fell too far behind. Channel locked. */
void ev__append_locked(struct events *ev, struct channel *c,
			  int64_t version, char *buf, size_t len)
{
	/* room: at most RING entries and RING_BYTES per channel, and the
	 * channels together within cfg.memory (a channel can only drop its
	 * own entries: the total stays within memory plus the newest entry
	 * of each channel) */
	while (c->head > c->tail &&
	       (c->head - c->tail == RING || c->kept + len > RING_BYTES ||
		atomic_load(&ev->kept) + len > ev->cfg.memory)) {
		struct entry *old = &c->ring[c->tail % RING];
		c->kept -= old->len;
		atomic_fetch_sub(&ev->kept, old->len);
		free(old->buf);
		old->buf = NULL;
		c->tail++;
	}
	struct entry *e = &c->ring[c->head % RING];
	e->version = version;
	e->buf = buf;
	e->len = len;
	e->start = c->bytes;
	c->bytes += len;
	c->kept += len;
	atomic_fetch_add(&ev->kept, len);
	c->head++;
	if (version > c->last_version)
		c->last_version = version;
	for (struct watcher *w = c->watchers; w; w = w->next) {
		if (w->mode == W_LIVE && !w->cut &&
		    (w->next_seq < c->tail ||
		     c->bytes - watcher_pos(c, w) > ev->cfg.watcher_buffer)) {
			/* its connection ends when it reads again or idles
			 * out (--timeout); it no longer counts as watching */
			w->cut = 1;
			w->counted = 0;
			c->nwatchers--;
			ev->stats.cut_off++;
		}
		ev__wake_locked(w);
	}
}

/* End every stream of session id (locked hub): memory ran out for one of
 * its events, and a stream must not skip one. */
static void cut_all_locked(struct channel *c)
{
	for (struct watcher *w = c->watchers; w; w = w->next) {
		if (w->counted) {
			w->counted = 0;
			c->nwatchers--;
		}
		w->cut = 1;
		ev__wake_locked(w);
	}
}

/* c->cube := src, the state at version at (channel locked). Without
 * memory the channel just has none: remote events are then read from the
 * store. */
void ev__keep_cube_locked(struct channel *c, const cube_t *src,
			     int64_t at)
{
	if (c->cube && c->cube->n != src->n) {
		free(c->cube);
		c->cube = NULL;
	}
	if (!c->cube)
		c->cube = malloc(cube_sizeof(src->n));
	c->cube_at = c->cube ? at : -1;
	if (c->cube)
		cube_copy(c->cube, src);
}

/* "12", or "every one the store has" for INT64_MAX. */
static const char *owed_text(int64_t owed, char *buf, size_t cap)
{
	if (owed == INT64_MAX)
		return "every one the store has";
	snprintf(buf, cap, "%lld", (long long)owed);
	return buf;
}

/* Versions up to upto exist but could not be appended (why): the
 * channel owes them. Opens a gap (counted, logged) or widens the open one,
 * and sets the next repair's time. Nothing is owed without a live base
 * (watchers replaying read the store themselves). Channel locked. */
void ev__owe_locked(struct events *ev, struct channel *c, int64_t upto,
		       const char *why)
{
	if (c->deleted || c->last_version < 0 || upto <= c->last_version)
		return;
	int64_t now = mono_ms();
	char a[24];
	if (c->owed < 0) {
		c->gap_ms = now;
		c->backoff_ms = GAP_RETRY_MS;
		atomic_fetch_add(&ev->gaps, 1);
		log_msg_kv(LOG_WARN, "session", c->id,
			   "event gap: the stream has version %lld, versions "
			   "up to %s are not read yet (%s); later ones wait "
			   "for them",
			   (long long)c->last_version,
			   owed_text(upto, a, sizeof a), why);
	}
	if (upto > c->owed)
		c->owed = upto;
	c->retry_ms = now + c->backoff_ms;
	c->backoff_ms = c->backoff_ms * 2 > GAP_RETRY_MAX_MS
				? GAP_RETRY_MAX_MS
				: c->backoff_ms * 2;
}

/* The gap closes once the ring holds every owed version (or, all_read,
 * the store had none after the ring's newest). Channel locked. */
void ev__settle_locked(struct events *ev, struct channel *c, int all_read)
{
	if (c->owed < 0 ||
	    (c->last_version < c->owed && !all_read && !c->deleted))
		return; /* (a deleted session owes nothing) */
	atomic_fetch_add(&ev->gaps_repaired, 1);
	if (c->deleted)
		log_msg_kv(LOG_INFO, "session", c->id,
			   "event gap closed: the session was deleted, "
			   "%lld ms after the gap opened",
			   (long long)(mono_ms() - c->gap_ms));
	else
		log_msg_kv(LOG_INFO, "session", c->id,
			   "event gap repaired: the stream has every version "
			   "up to %lld, %lld ms after the gap opened",
			   (long long)c->last_version,
			   (long long)(mono_ms() - c->gap_ms));
	c->owed = -1;
}

/* A gap older than GAP_MAX_MS: end every stream of the channel (they
 * reconnect with Last-Event-ID and replay from the store) and drop its
 * live base, so the next live watcher starts a new one. Hub and channel
 * locked (the ticker). */
void ev__gap_cut_locked(struct events *ev, struct channel *c, int64_t now)
{
	char a[24];
	atomic_fetch_add(&ev->gaps_cut, 1);
	log_msg_kv(LOG_WARN, "session", c->id,
		   "event gap not repaired in %lld ms (version %lld, owed %s): "
		   "ending the session's %d streams, which replay from the "
		   "store when they reconnect",
		   (long long)(now - c->gap_ms), (long long)c->last_version,
		   owed_text(c->owed, a, sizeof a), c->nwatchers);
	cut_all_locked(c);
	/* every watcher is cut and reads no entry again */
	for (uint64_t s = c->tail; s < c->head; s++) {
		struct entry *old = &c->ring[s % RING];
		atomic_fetch_sub(&ev->kept, old->len);
		free(old->buf);
		old->buf = NULL;
	}
	c->tail = c->head;
	c->kept = 0;
	c->last_version = -1;
	c->cube_at = -1;
	c->owed = -1;
	c->repair_queued = 0;
}


/* Format one change and append it to its channel (fan-out thread). */
void ev__deliver(struct events *ev, struct pub *p)
{
	const struct session_event *e = &p->e;
	size_t len = 0;
	char *buf = NULL;
	int no_id = strcmp(e->type, "solve") == 0 ||
		    strcmp(e->type, "timed") == 0 ||
		    strcmp(e->type, "delete") == 0;
	if (strcmp(e->type, "delete") == 0) {
		buf = ev__sse_format(-1, "delete",
				 json_pack("{s:s, s:o}", "type", "delete",
					   "created_at", timefmt_json(e->created_at)),
				 &len);
	} else {
		/* a solve changes no version: no id, so Last-Event-ID stays */
		struct session_event f = *e;
		if (!f.facelets && f.state && f.size <= ev->cfg.facelets_max_n)
			f.facelets = session_state_facelets(f.state);
		if (f.facelets || !f.state || f.size > ev->cfg.facelets_max_n)
			buf = ev__sse_format(no_id ? -1 : e->version, e->type,
					 ev__event_json(ev, &f), &len);
	}
	/* with other nodes writing too, versions before this one may still
	 * be on their way (a notification): fetch them first, so the ring
	 * stays in order without a gap */
	if (!no_id && buf)
		ev__fill(ev, e->id, e->version - 1);
	pthread_mutex_lock(&ev->lock);
	struct channel *c = ev__find(ev, e->id);
	if (c) {
		pthread_mutex_lock(&c->lock);
		ev->stats.published++;
		pthread_mutex_unlock(&ev->lock);
		int dup = (!no_id && c->last_version >= 0 &&
			   e->version <= c->last_version) ||
			  (c->deleted && strcmp(e->type, "delete") == 0);
		if (strcmp(e->type, "delete") == 0)
			c->deleted = 1;
		if (dup) {
			free(buf); /* a filler from the store was first */
		} else if (!no_id && c->last_version >= 0 &&
			   e->version != c->last_version + 1) {
			/* versions before it could not be read: never skip
			 * them. It is in the store; the gap's repair reads
			 * it from there after them. */
			free(buf);
			ev__owe_locked(ev, c, e->version,
				   "an earlier version could not be read");
		} else if (buf) {
			ev__append_locked(ev, c, no_id ? -1 : e->version, buf, len);
			if (!no_id && e->state && c->last_version == e->version)
				ev__keep_cube_locked(c, session_state_cube(e->state),
						 e->version);
			ev__settle_locked(ev, c, 0);
		} else if (!no_id && c->last_version >= 0) {
			/* out of memory: read it again from the store */
			ev__owe_locked(ev, c, e->version, "out of memory");
		} else /* out of memory: end the streams rather than skip */
			cut_all_locked(c);
		buf = NULL;
		pthread_mutex_unlock(&c->lock);
	} else {
		pthread_mutex_unlock(&ev->lock);
	}
	free(buf);
}

void ev__pub_free(struct pub *p)
{
	session_state_release(p->e.state);
	free(p->moves);
	free(p->actor);
	free(p->facelets);
	free(p);
}

/* A copy of e that outlives the call, or NULL without memory. */
struct pub *ev__pub_new(const struct events *ev,
			   const struct session_event *e)
{
	struct pub *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->e = *e;
	snprintf(p->id, sizeof p->id, "%s", e->id);
	snprintf(p->type, sizeof p->type, "%s", e->type);
	p->e.id = p->id;
	p->e.type = p->type;
	p->moves = strdup(e->moves ? e->moves : "");
	p->e.moves = p->moves;
	if (e->actor)
		p->actor = strdup(e->actor);
	p->e.actor = p->actor;
	if (e->method) {
		snprintf(p->method, sizeof p->method, "%s", e->method);
		p->e.method = p->method;
	}
	if (e->facelets && e->size <= ev->cfg.facelets_max_n)
		p->facelets = strdup(e->facelets);
	p->e.facelets = p->facelets;
	/* the state only where events carry facelets: a reference, the
	 * fan-out thread formats them */
	p->e.state = e->state && e->size <= ev->cfg.facelets_max_n
			     ? session_state_retain(e->state)
			     : NULL;
	if (!p->moves || (e->actor && !p->actor) ||
	    (e->facelets && e->size <= ev->cfg.facelets_max_n &&
	     !p->facelets)) {
		ev__pub_free(p);
		return NULL;
	}
	return p;
}

/* Append p to the fan-out queue and wake the fan-out thread (qlock
 * alone: the writer and the ticker call this holding no other lock). */
void ev__queue_push(struct events *ev, struct pub *p)
{
	pthread_mutex_lock(&ev->qlock);
	if (ev->qtail)
		ev->qtail->next = p;
	else
		ev->qhead = p;
	ev->qtail = p;
	pthread_cond_signal(&ev->qwake);
	pthread_mutex_unlock(&ev->qlock);
}

/* The writer, after each commit: a copy of the change into the fan-out
 * queue if anyone watches the session (if nobody does, a watcher that
 * subscribes later reads this change from the store). Nothing is
 * formatted here. */
void events_publish(void *ctx, const struct session_event *e)
{
	struct events *ev = ctx;
	pthread_mutex_lock(&ev->lock);
	int watched = ev__find(ev, e->id) != NULL;
	pthread_mutex_unlock(&ev->lock);
	if (!watched)
		return;
	struct pub *p = ev__pub_new(ev, e);
	if (!p) {
		pthread_mutex_lock(&ev->lock);
		struct channel *c = ev__find(ev, e->id);
		if (c) {
			pthread_mutex_lock(&c->lock);
			cut_all_locked(c);
			pthread_mutex_unlock(&c->lock);
		}
		pthread_mutex_unlock(&ev->lock);
		return;
	}
	ev__queue_push(ev, p);
}

/* The ticker's request (fan-out thread): read what channel id owes. */
static void repair(struct events *ev, const char *id)
{
	int64_t upto = -1;
	pthread_mutex_lock(&ev->lock);
	struct channel *c = ev__find(ev, id);
	if (c) {
		pthread_mutex_lock(&c->lock);
		c->repair_queued = 0;
		upto = c->owed;
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&ev->lock);
	if (upto >= 0)
		ev__fill(ev, id, upto);
}

/* Queue a repair of channel id for the fan-out thread (qlock alone). */
void ev__repair_request(struct events *ev, const char *id)
{
	struct pub *p = calloc(1, sizeof *p);
	if (!p) { /* the ticker asks again at a later tick */
		pthread_mutex_lock(&ev->lock);
		struct channel *c = ev__find(ev, id);
		if (c) {
			pthread_mutex_lock(&c->lock);
			c->repair_queued = 0;
			pthread_mutex_unlock(&c->lock);
		}
		pthread_mutex_unlock(&ev->lock);
		return;
	}
	p->repair = 1;
	snprintf(p->id, sizeof p->id, "%s", id);
	ev__queue_push(ev, p);
}

/* TEST SEAMS, for tests/http/check_pg_live.c only (docs/testing.md): with
 * CUBED_TEST_HOLD_SUBSCRIBE naming a file, a new watcher that has read its
 * session from the store waits before it may go live (events_watch.c);
 * with CUBED_TEST_HOLD_FANOUT, the fan-out thread waits before each batch
 * it took. Each creates <file>.reached, then waits while the file exists
 * (10 s at most), so a test can commit, here or on another node, in that
 * window. Without the variables (every real run) this costs a NULL
 * test. */
void ev__test_hold(const char *file)
{
	if (!file)
		return;
	char reached[512];
	snprintf(reached, sizeof reached, "%s.reached", file);
	FILE *f = fopen(reached, "w");
	if (f)
		fclose(f);
	for (int i = 0; i < 1000 && access(file, F_OK) == 0; i++) {
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* The fan-out thread: deliver what the writer queued, in order; at stop,
 * what is still queued first. */
void *ev__fanout_main(void *arg)
{
	struct events *ev = arg;
	pthread_mutex_lock(&ev->qlock);
	for (;;) {
		while (!ev->qhead && !ev->qstop)
			pthread_cond_wait(&ev->qwake, &ev->qlock);
		struct pub *p = ev->qhead;
		if (!p)
			break;
		ev->qhead = NULL;
		ev->qtail = NULL;
		pthread_mutex_unlock(&ev->qlock);
		if (ev->hold_fanout && access(ev->hold_fanout, F_OK) == 0)
			ev__test_hold(ev->hold_fanout);
		while (p) {
			struct pub *next = p->next;
			if (p->repair)
				repair(ev, p->id);
			else if (p->remote)
				ev->remote_apply(ev, p);
			else
				ev__deliver(ev, p);
			ev__pub_free(p);
			p = next;
		}
		pthread_mutex_lock(&ev->qlock);
	}
	pthread_mutex_unlock(&ev->qlock);
	return NULL;
}

int events_watchers(struct events *ev, const char *id)
{
	pthread_mutex_lock(&ev->lock);
	struct channel *c = ev__find(ev, id);
	int n = c ? c->nwatchers : 0;
	pthread_mutex_unlock(&ev->lock);
	return n;
}

/* ------------------------------------------------ versions from the store */

/* The moves of a stored event applied to c: 0, or -1. */
int ev__apply_stored(cube_t *c, const char *moves)
{
	return sessions_apply_stored(c, moves) == SES_OK ? 0 : -1;
}

/* Append id's versions after the channel's newest, up to `upto`, read
 * from the store (other nodes wrote them: their notification, or a gap
 * before one of ours; or a gap's repair). Each is formatted as the fan-out
 * thread would, with facelets from a cube carried along the events. One
 * filler at a time; a version the fan-out thread appended meanwhile is
 * skipped. 0 when the channel has them all (or nothing to do: no live
 * watcher); -1 when a read failed: the channel then owes them (a gap,
 * repaired later). */
int ev__fill(struct events *ev, const char *id, int64_t upto)
{
	pthread_mutex_lock(&ev->fill_lock);
	struct store_event page[REPLAY_PAGE];
	cube_t *cube = NULL;
	int64_t cube_at = -1;
	char *facelets = NULL;
	int n = -1; /* the session's size, once known */
	int failed = 0, all_read = 0;
	const char *why = NULL;
	for (;;) {
		pthread_mutex_lock(&ev->lock);
		struct channel *c = ev__find(ev, id);
		int64_t base = -1;
		if (c) {
			pthread_mutex_lock(&c->lock);
			base = c->deleted ? -1 : c->last_version;
			/* nobody live: the replays must read up to upto */
			if (base < 0 && !c->deleted && upto != INT64_MAX &&
			    upto > c->announced)
				c->announced = upto;
			pthread_mutex_unlock(&c->lock);
		}
		struct sessions *ses = ev->ses;
		pthread_mutex_unlock(&ev->lock);
		/* no channel, or nobody live yet (watchers replaying read the
		 * store themselves) */
		if (base < 0 || base >= upto || !ses)
			break;
		int k = sessions_history(ses, id, base, page, REPLAY_PAGE);
		if (k < 0) {
			failed = 1;
			why = "the store's history could not be read";
			break;
		}
		if (k == 0) {
			all_read = 1;
			break;
		}
		for (int i = 0; i < k && !failed; i++) {
			struct store_event *e = &page[i];
			struct session_view v;
			if (n < 0) {
				struct session_meta m;
				if (sessions_meta(ses, id, &m) != SES_OK) {
					failed = 1;
					why = "the session could not be read";
					break;
				}
				n = m.size;
			}
			int with = n > 0 && n <= ev->cfg.facelets_max_n;
			if (with && cube_at != e->version - 1) {
				free(cube);
				cube = NULL;
				if (sessions_get(ses, id, e->version - 1, &v) ==
				    SES_OK) {
					const cube_t *sc = session_state_cube(v.state);
					cube = malloc(cube_sizeof(sc->n));
					if (cube)
						cube_copy(cube, sc);
					session_view_free(&v);
				}
			}
			if (with && cube && !facelets)
				facelets = malloc(6u * (size_t)n * (size_t)n + 1);
			int ok = !with || (cube && facelets);
			if (ok && with) {
				if (strcmp(e->kind, "reset") == 0) {
					ok = sessions_get(ses, id, 0, &v) == SES_OK;
					if (ok) {
						cube_copy(cube, session_state_cube(v.state));
						session_view_free(&v);
					}
				} else {
					ok = ev__apply_stored(cube, e->moves) == 0;
				}
				cube_at = ok ? e->version : -1;
				if (ok) {
					cube_to_facelets(cube, facelets);
					facelets[6 * n * n] = '\0';
				}
			}
			struct session_event se = {
				.id = id, .type = e->kind, .version = e->version,
				.size = n, .moves = e->moves, .actor = e->actor,
				.facelets = with ? facelets : NULL,
				.created_at = e->created_at,
			};
			size_t len = 0;
			char *buf = ok ? ev__sse_format(e->version, e->kind,
						    ev__event_json(ev, &se), &len)
				       : NULL;
			if (!buf) {
				/* never skip one: the channel owes it */
				failed = 1;
				why = "an event's state could not be read";
				break;
			}
			pthread_mutex_lock(&ev->lock);
			c = ev__find(ev, id);
			if (c) {
				pthread_mutex_lock(&c->lock);
				pthread_mutex_unlock(&ev->lock);
				if (c->last_version >= 0 &&
				    e->version == c->last_version + 1) {
					ev__append_locked(ev, c, e->version, buf,
						      len);
					if (with && cube && cube_at == e->version)
						ev__keep_cube_locked(c, cube,
								 e->version);
					buf = NULL;
				}
				pthread_mutex_unlock(&c->lock);
			} else {
				pthread_mutex_unlock(&ev->lock);
			}
			free(buf);
		}
		for (int i = 0; i < k; i++)
			store_event_free(&page[i]);
		if (failed)
			break;
	}
	free(cube);
	free(facelets);
	/* the gap this leaves, or the one this closed */
	pthread_mutex_lock(&ev->lock);
	struct channel *c = ev__find(ev, id);
	if (c) {
		pthread_mutex_lock(&c->lock);
		pthread_mutex_unlock(&ev->lock);
		if (failed)
			ev__owe_locked(ev, c, upto, why);
		else
			ev__settle_locked(ev, c, all_read);
		pthread_mutex_unlock(&c->lock);
	} else {
		pthread_mutex_unlock(&ev->lock);
	}
	pthread_mutex_unlock(&ev->fill_lock);
	return failed ? -1 : 0;
}
