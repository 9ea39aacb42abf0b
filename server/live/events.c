/* events.c — live session events (see events.h): the channels and their
 * rings, the fan-out thread that formats what the writer publishes, the
 * replay from the store, gaps and their repair, and the ticker (presence,
 * heartbeats). Locks: fill_lock before the hub's lock; the hub's lock
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

#include <jansson.h>

#include "alg.h"
#include "cube.h"
#include "jsonout.h"
#include "log.h"
#include "timefmt.h"

#define RING 256                   /* events a channel keeps */
#define RING_BYTES ((size_t)8 << 20) /* and at most this many bytes */
#define REPLAY_PAGE 64             /* events read from the store at once */
#define PRESENCE_MS 200            /* presence changes are sent this often */
#define PEER_CHECK_MS 1000         /* a parked watcher's peer is asked this often */
#define CHANNEL_BUCKETS 1024       /* hash buckets of the channel table */
#define GAP_RETRY_MS 200           /* a gap's first repair after this long */
#define GAP_RETRY_MAX_MS 2000      /* the back-off between repairs, at most */
#define GAP_MAX_MS 10000           /* a gap not repaired by then cuts the
				    * channel's streams (they reconnect and
				    * replay from the store) */

struct entry {
	int64_t version;   /* -1: an event without an id (presence, solve) */
	char *buf;
	size_t len;
	uint64_t start;    /* channel bytes before this entry */
};

struct channel {
	char id[STORE_ID_MAX];
	pthread_mutex_t lock;
	struct entry ring[RING];
	uint64_t head, tail;      /* next seq to write; oldest kept */
	uint64_t bytes;           /* total bytes ever appended */
	size_t kept;              /* bytes in the ring now */
	int64_t last_version;     /* newest version published, -1 = none */
	int nwatchers, presence_sent;
	int deleted;              /* the session is gone: end after draining */
	int size;                 /* the session's n */
	/* the state at cube_at (sessions of at most facelets_max_n): another
	 * node's next event is formatted from it without reading the store */
	cube_t *cube;
	int64_t cube_at;          /* -1: none */
	/* the newest version another node announced while nobody here was
	 * live (last_version -1): nothing is appended then (the replaying
	 * watchers read the store), so the first to go live must have read
	 * it first, or it would wait for it until the next event; -1: none */
	int64_t announced;
	/* a gap: every version up to owed is in the store but not yet in
	 * the ring (a store read failed), and nothing after last_version is
	 * appended until the versions between are. -1: none; INT64_MAX:
	 * whatever the store has (a catch-up after the listener lost its
	 * connection failed). */
	int64_t owed;
	int64_t gap_ms;           /* when the gap opened (mono_ms) */
	int64_t retry_ms;         /* the next repair not before (mono_ms) */
	int64_t backoff_ms;       /* the wait after the next failed repair */
	int repair_queued;        /* a repair request is in the fan-out queue */
	struct watcher *watchers;
	struct channel *next;     /* hash chain */
};

enum wmode { W_REPLAY, W_LIVE };

struct watcher {
	struct events *hub;
	struct sessions *ses;
	struct channel *ch;
	struct watcher *prev, *next;
	char id[STORE_ID_MAX];
	int size;
	enum wmode mode;
	int64_t last_sent;        /* newest version sent (or skipped as known) */
	int64_t target;           /* the session's version when it subscribed:
				   * replay reaches it before going live */
	uint64_t next_seq;        /* W_LIVE: next ring entry */
	size_t off;               /* bytes of it already sent */
	char *pend;               /* private bytes sent before the ring */
	size_t pend_len, pend_off;
	int parked, cut, ping_due;
	int counted;              /* in the channel's watcher count */
	int64_t last_io_ms;
	events_park_fn *park, *wake;
	events_alive_fn *alive;   /* NULL: the peer is not checked */
	int peer_fd;              /* its socket, polled each tick; -1: none */
	int64_t peer_ms;          /* when alive() was last asked */
	void *ctx;
	cube_t *cube;             /* W_REPLAY: the state at last_sent, or NULL */
};

struct events {
	struct events_config cfg;
	pthread_mutex_t lock;
	/* channels by session id: every write and every session reply looks
	 * its session up here */
	struct channel *channels[CHANNEL_BUCKETS];
	size_t nwatchers;
	int closing, stop;
	pthread_t ticker;
	pthread_cond_t tick;
	/* the ticker's own: parked watchers' sockets polled at each tick */
	struct pollfd *pfd;
	struct watcher **pfd_w;
	size_t pfd_cap;
	struct events_stats stats;
	_Atomic size_t kept;      /* bytes in every channel's ring */
	/* committed changes on their way from the writer to the channels:
	 * the fan-out thread formats them (the writer only copies a few
	 * strings) and appends them in the order they came */
	pthread_mutex_t qlock;
	pthread_cond_t qwake;
	struct pub *qhead, *qtail;
	int qstop;
	pthread_t fanout;
	/* other nodes' commits (events_remote): the session layer the rows
	 * are read through (the one watchers subscribe with), and one filler
	 * at a time (the listener's thread or the fan-out thread) */
	struct sessions *ses;
	pthread_mutex_t fill_lock;
	/* gaps opened, repaired, and ended by cutting the streams (counted
	 * under a channel's lock, so not in stats) */
	_Atomic uint64_t gaps, gaps_repaired, gaps_cut;
};

/* A session_event as the writer handed it over, owned; or (repair) the
 * ticker's request to read a channel's owed versions again. */
struct pub {
	struct session_event e;
	int repair;
	char id[STORE_ID_MAX];
	char type[16];
	char method[16];
	char *moves, *actor, *facelets;
	struct pub *next;
};

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


/* "id: V\nevent: type\ndata: {json}\n\n" (no id line when version < 0);
 * malloc'd, *len its length, NULL if memory ran out. */
static char *sse_format(int64_t version, const char *type, json_t *data,
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
static json_t *event_json(const struct events *ev, const struct session_event *e)
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

static struct channel **bucket(struct events *ev, const char *id)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (const char *p = id; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return &ev->channels[h % CHANNEL_BUCKETS];
}

static struct channel *find(struct events *ev, const char *id)
{
	for (struct channel *c = *bucket(ev, id); c; c = c->next)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

static void wake_locked(struct watcher *w)
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
static void append_locked(struct events *ev, struct channel *c,
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
		wake_locked(w);
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
		wake_locked(w);
	}
}

/* c->cube := src, the state at version at (channel locked). Without
 * memory the channel just has none: remote events are then read from the
 * store. */
static void keep_cube_locked(struct channel *c, const cube_t *src,
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
static void owe_locked(struct events *ev, struct channel *c, int64_t upto,
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
static void settle_locked(struct events *ev, struct channel *c, int all_read)
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
static void gap_cut_locked(struct events *ev, struct channel *c, int64_t now)
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

static int fill(struct events *ev, const char *id, int64_t upto);

/* Format one change and append it to its channel (fan-out thread). */
static void deliver(struct events *ev, struct pub *p)
{
	const struct session_event *e = &p->e;
	size_t len = 0;
	char *buf = NULL;
	int no_id = strcmp(e->type, "solve") == 0 ||
		    strcmp(e->type, "timed") == 0 ||
		    strcmp(e->type, "delete") == 0;
	if (strcmp(e->type, "delete") == 0) {
		buf = sse_format(-1, "delete",
				 json_pack("{s:s, s:o}", "type", "delete",
					   "created_at", timefmt_json(e->created_at)),
				 &len);
	} else {
		/* a solve changes no version: no id, so Last-Event-ID stays */
		struct session_event f = *e;
		if (!f.facelets && f.state && f.size <= ev->cfg.facelets_max_n)
			f.facelets = session_state_facelets(f.state);
		if (f.facelets || !f.state || f.size > ev->cfg.facelets_max_n)
			buf = sse_format(no_id ? -1 : e->version, e->type,
					 event_json(ev, &f), &len);
	}
	/* with other nodes writing too, versions before this one may still
	 * be on their way (a notification): fetch them first, so the ring
	 * stays in order without a gap */
	if (!no_id && buf)
		fill(ev, e->id, e->version - 1);
	pthread_mutex_lock(&ev->lock);
	struct channel *c = find(ev, e->id);
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
			owe_locked(ev, c, e->version,
				   "an earlier version could not be read");
		} else if (buf) {
			append_locked(ev, c, no_id ? -1 : e->version, buf, len);
			if (!no_id && e->state && c->last_version == e->version)
				keep_cube_locked(c, session_state_cube(e->state),
						 e->version);
			settle_locked(ev, c, 0);
		} else if (!no_id && c->last_version >= 0) {
			/* out of memory: read it again from the store */
			owe_locked(ev, c, e->version, "out of memory");
		} else /* out of memory: end the streams rather than skip */
			cut_all_locked(c);
		buf = NULL;
		pthread_mutex_unlock(&c->lock);
	} else {
		pthread_mutex_unlock(&ev->lock);
	}
	free(buf);
}

static void pub_free(struct pub *p)
{
	session_state_release(p->e.state);
	free(p->moves);
	free(p->actor);
	free(p->facelets);
	free(p);
}

/* A copy of e that outlives the call, or NULL without memory. */
static struct pub *pub_new(const struct events *ev,
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
		pub_free(p);
		return NULL;
	}
	return p;
}

/* Append p to the fan-out queue and wake the fan-out thread (qlock
 * alone: the writer and the ticker call this holding no other lock). */
static void queue_push(struct events *ev, struct pub *p)
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
	int watched = find(ev, e->id) != NULL;
	pthread_mutex_unlock(&ev->lock);
	if (!watched)
		return;
	struct pub *p = pub_new(ev, e);
	if (!p) {
		pthread_mutex_lock(&ev->lock);
		struct channel *c = find(ev, e->id);
		if (c) {
			pthread_mutex_lock(&c->lock);
			cut_all_locked(c);
			pthread_mutex_unlock(&c->lock);
		}
		pthread_mutex_unlock(&ev->lock);
		return;
	}
	queue_push(ev, p);
}

/* The ticker's request (fan-out thread): read what channel id owes. */
static void repair(struct events *ev, const char *id)
{
	int64_t upto = -1;
	pthread_mutex_lock(&ev->lock);
	struct channel *c = find(ev, id);
	if (c) {
		pthread_mutex_lock(&c->lock);
		c->repair_queued = 0;
		upto = c->owed;
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_unlock(&ev->lock);
	if (upto >= 0)
		fill(ev, id, upto);
}

/* Queue a repair of channel id for the fan-out thread (qlock alone). */
static void repair_request(struct events *ev, const char *id)
{
	struct pub *p = calloc(1, sizeof *p);
	if (!p) { /* the ticker asks again at a later tick */
		pthread_mutex_lock(&ev->lock);
		struct channel *c = find(ev, id);
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
	queue_push(ev, p);
}

/* The fan-out thread: deliver what the writer queued, in order; at stop,
 * what is still queued first. */
static void *fanout_main(void *arg)
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
		while (p) {
			struct pub *next = p->next;
			if (p->repair)
				repair(ev, p->id);
			else
				deliver(ev, p);
			pub_free(p);
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
	struct channel *c = find(ev, id);
	int n = c ? c->nwatchers : 0;
	pthread_mutex_unlock(&ev->lock);
	return n;
}

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
	struct channel *c = find(ev, id);
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
		struct channel **b = bucket(ev, id);
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
	if (after < 0) {
		struct session_event e = {
			.id = id, .type = "state", .version = v.version,
			.size = v.size, .moves = "", .facelets = v.facelets,
			.created_at = v.updated_at,
		};
		json_t *data = event_json(ev, &e);
		if (data)
			json_object_set_new(data, "watchers",
					    json_integer(events_watchers(ev, id)));
		size_t len;
		char *buf = sse_format(v.version, "state", data, &len);
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
		struct channel **p = bucket(ev, c->id);
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

/* The moves of a stored event applied to c: 0, or -1. */
static int apply_stored(cube_t *c, const char *moves)
{
	return sessions_apply_stored(c, moves) == SES_OK ? 0 : -1;
}

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
	 * here from now on (a later one is fetched from there: fill). Not
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
				    : apply_stored(w->cube, e->moves) < 0) {
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
		char *buf = sse_format(e->version, e->kind, event_json(ev, &se),
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

/* ---------------------------------------------------------- other nodes */

/* Append id's versions after the channel's newest, up to `upto`, read
 * from the store (other nodes wrote them: their notification, or a gap
 * before one of ours; or a gap's repair). Each is formatted as the fan-out
 * thread would, with facelets from a cube carried along the events. One
 * filler at a time; a version the fan-out thread appended meanwhile is
 * skipped. 0 when the channel has them all (or nothing to do: no live
 * watcher); -1 when a read failed: the channel then owes them (a gap,
 * repaired later). */
static int fill(struct events *ev, const char *id, int64_t upto)
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
		struct channel *c = find(ev, id);
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
					ok = apply_stored(cube, e->moves) == 0;
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
			char *buf = ok ? sse_format(e->version, e->kind,
						    event_json(ev, &se), &len)
				       : NULL;
			if (!buf) {
				/* never skip one: the channel owes it */
				failed = 1;
				why = "an event's state could not be read";
				break;
			}
			pthread_mutex_lock(&ev->lock);
			c = find(ev, id);
			if (c) {
				pthread_mutex_lock(&c->lock);
				pthread_mutex_unlock(&ev->lock);
				if (c->last_version >= 0 &&
				    e->version == c->last_version + 1) {
					append_locked(ev, c, e->version, buf,
						      len);
					if (with && cube && cube_at == e->version)
						keep_cube_locked(c, cube,
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
	struct channel *c = find(ev, id);
	if (c) {
		pthread_mutex_lock(&c->lock);
		pthread_mutex_unlock(&ev->lock);
		if (failed)
			owe_locked(ev, c, upto, why);
		else
			settle_locked(ev, c, all_read);
		pthread_mutex_unlock(&c->lock);
	} else {
		pthread_mutex_unlock(&ev->lock);
	}
	pthread_mutex_unlock(&ev->fill_lock);
	return failed ? -1 : 0;
}

/* The common case of another node's commit: the notification carried the
 * event e, and the channel holds the version before it (and, for facelets,
 * the state there): format it and append it without reading the store.
 * 1 when done (or there was nothing to do: no live watcher, or the
 * version is there already), 0 when the caller must fill from the store
 * (a gap, a reset, no state at hand). */
static int remote_event(struct events *ev, const char *id,
			const struct store_event *e)
{
	if (strcmp(e->kind, "moves") != 0 && strcmp(e->kind, "undo") != 0 &&
	    strcmp(e->kind, "redo") != 0)
		return 0; /* a reset's state is not its moves applied */
	pthread_mutex_lock(&ev->fill_lock);
	pthread_mutex_lock(&ev->lock);
	struct channel *c = find(ev, id);
	if (!c) {
		pthread_mutex_unlock(&ev->lock);
		pthread_mutex_unlock(&ev->fill_lock);
		return 1;
	}
	pthread_mutex_lock(&c->lock);
	pthread_mutex_unlock(&ev->lock);
	int done = 1;
	int with = c->size <= ev->cfg.facelets_max_n;
	char *facelets = NULL, *buf = NULL;
	size_t len = 0;
	if (!c->deleted && c->last_version < 0 && e->version > c->announced)
		c->announced = e->version; /* the replays must read it */
	if (c->deleted || c->last_version < 0 ||
	    c->last_version >= e->version)
		goto out; /* nobody live (replays read the store), or known */
	done = 0;
	if (c->last_version != e->version - 1 ||
	    (with && (!c->cube || c->cube_at != c->last_version)))
		goto out;
	if (with) {
		facelets = malloc(6u * (size_t)c->size * (size_t)c->size + 1);
		cube_t *next = malloc(cube_sizeof(c->cube->n));
		if (next)
			cube_copy(next, c->cube);
		if (!facelets || !next || apply_stored(next, e->moves) != 0) {
			free(next);
			goto out;
		}
		cube_to_facelets(next, facelets);
		facelets[6 * c->size * c->size] = '\0';
		free(c->cube);
		c->cube = next;
		c->cube_at = e->version;
	}
	struct session_event se = {
		.id = id, .type = e->kind, .version = e->version,
		.size = c->size, .moves = e->moves, .actor = e->actor,
		.facelets = facelets, .created_at = e->created_at,
	};
	buf = sse_format(e->version, e->kind, event_json(ev, &se), &len);
	if (buf) {
		append_locked(ev, c, e->version, buf, len);
		settle_locked(ev, c, 0);
		done = 1;
	} else if (with) {
		c->cube_at = -1; /* not appended: the cube is ahead */
	}
out:
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&ev->fill_lock);
	free(facelets);
	return done;
}

void events_remote(void *ctx, const char *id, int64_t version,
		   const struct store_event *e)
{
	struct events *ev = ctx;
	if (id && version < 0) {
		/* deleted on another node (or here: then it is a duplicate,
		 * which deliver drops) */
		struct session_event e = {.id = id, .type = "delete",
					  .moves = "", .version = -1,
					  .created_at = wall_ms()};
		events_publish(ev, &e);
		return;
	}
	if (id && e && (strcmp(e->kind, "solve") == 0 ||
			strcmp(e->kind, "timed") == 0)) {
		/* another node stored a solve or began a timed solve: no
		 * version of the session, so no id; its watchers there had
		 * it from their writer, these get it here. Appended on this
		 * (the listener's) thread, as remote versions are, so it
		 * keeps its place among them */
		struct session_event se = {
			.id = id, .type = e->kind, .version = e->version,
			.moves = e->moves ? e->moves : "", .actor = e->actor,
			.created_at = e->created_at,
			.method = e->method[0] ? e->method : NULL,
		};
		pthread_mutex_lock(&ev->lock);
		int watched = find(ev, id) != NULL;
		pthread_mutex_unlock(&ev->lock);
		struct pub *p = watched ? pub_new(ev, &se) : NULL;
		if (p) {
			deliver(ev, p);
			pub_free(p);
		}
		return;
	}
	if (id) {
		if (!e || e->version != version || !remote_event(ev, id, e))
			fill(ev, id, version);
		return;
	}
	/* reconnected: notifications may have been lost, so every watched
	 * session catches up with the store */
	pthread_mutex_lock(&ev->lock);
	size_t n = 0, cap = 0;
	char (*ids)[STORE_ID_MAX] = NULL;
	for (int bi = 0; bi < CHANNEL_BUCKETS; bi++)
		for (struct channel *c = ev->channels[bi]; c; c = c->next) {
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				void *p = realloc(ids, nc * sizeof *ids);
				if (!p)
					break;
				ids = p;
				cap = nc;
			}
			memcpy(ids[n++], c->id, STORE_ID_MAX);
		}
	pthread_mutex_unlock(&ev->lock);
	for (size_t i = 0; i < n; i++)
		fill(ev, ids[i], INT64_MAX);
	free(ids);
}

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
	wake_locked(w);
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
static void *ticker_main(void *arg)
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
				repair_request(ev, due[i]);
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
				gap_cut_locked(ev, c, now);
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
				char *buf = sse_format(
					-1, "presence",
					json_pack("{s:s, s:i}", "type",
						  "presence", "watchers",
						  c->nwatchers),
					&len);
				if (buf) {
					c->presence_sent = c->nwatchers;
					append_locked(ev, c, -1, buf, len);
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
					wake_locked(w);
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
	if (pthread_create(&ev->ticker, NULL, ticker_main, ev) != 0)
		goto fail;
	if (pthread_create(&ev->fanout, NULL, fanout_main, ev) != 0) {
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
			wake_locked(w);
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
