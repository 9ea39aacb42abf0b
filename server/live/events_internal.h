/* events_internal.h — what the files of the live events share
 * (server/live/): events.c the channels, their rings, the fan-out thread,
 * gaps, and a channel's versions read from the store (fill);
 * events_watch.c a watcher from subscribe to read, its replay from the
 * store; events_remote.c other nodes' notifications; events_ticker.c the
 * ticker and the hub's lifecycle. Every arrow runs to events.c's
 * functions (events_ticker.c also starts the threads): events.c calls
 * none of the others. Not for other rooms: events.h is the interface. */
#ifndef CUBED_EVENTS_INTERNAL_H
#define CUBED_EVENTS_INTERNAL_H

#include "events.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "cube.h"


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
	/* TEST SEAMS (events.c, ev__test_hold): the files named by
	 * CUBED_TEST_HOLD_SUBSCRIBE and CUBED_TEST_HOLD_FANOUT, or NULL
	 * (every real run) */
	const char *hold_file, *hold_fanout;
	/* what the fan-out thread does with another node's notification
	 * (events_remote.c's, set by events_open: events.c calls it only
	 * through here, so its arrows still run one way) */
	void (*remote_apply)(struct events *ev, struct pub *p);
};

/* A session_event as the writer handed it over, owned; or (repair) the
 * ticker's request to read a channel's owed versions again. */
struct pub {
	struct session_event e;
	int repair;
	/* another node's notification (events_remote), handled by the
	 * fan-out thread in its place in the queue: remote_version its
	 * version, e its event when the notification carried one */
	int remote, has_event;
	int64_t remote_version;
	char id[STORE_ID_MAX];
	char type[16];
	char method[16];
	char *moves, *actor, *facelets;
	struct pub *next;
};

static inline int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ev__append_locked(struct events *ev, struct channel *c,
			  int64_t version, char *buf, size_t len);
struct channel **ev__bucket(struct events *ev, const char *id);
void ev__deliver(struct events *ev, struct pub *p);
json_t *ev__event_json(const struct events *ev, const struct session_event *e);
struct channel *ev__find(struct events *ev, const char *id);
void ev__gap_cut_locked(struct events *ev, struct channel *c, int64_t now);
void ev__keep_cube_locked(struct channel *c, const cube_t *src,
			     int64_t at);
void ev__owe_locked(struct events *ev, struct channel *c, int64_t upto,
		       const char *why);
void ev__pub_free(struct pub *p);
struct pub *ev__pub_new(const struct events *ev,
			   const struct session_event *e);
void ev__repair_request(struct events *ev, const char *id);
void ev__settle_locked(struct events *ev, struct channel *c, int all_read);
char *ev__sse_format(int64_t version, const char *type, json_t *data,
			size_t *len);
void ev__wake_locked(struct watcher *w);
int ev__apply_stored(cube_t *c, const char *moves);
int ev__fill(struct events *ev, const char *id, int64_t upto);
void *ev__ticker_main(void *arg);
void *ev__fanout_main(void *arg);
/* Another node's notification p, in the fan-out thread (events_remote.c). */
void ev__remote_apply(struct events *ev, struct pub *p);
/* A test seam's wait (events.c): nothing when file is NULL. */
void ev__test_hold(const char *file);
/* Append p to the fan-out queue (events.c). */
void ev__queue_push(struct events *ev, struct pub *p);

#endif
