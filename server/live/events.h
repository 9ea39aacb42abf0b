/* events.h — live session events for Server-Sent Events watchers.
 *
 * The session writer calls events_publish after every commit, in commit
 * order, with a small record (id, type, version, moves, actor, time, and
 * the state for sessions small enough that events carry facelets); if the
 * session has watchers the record is queued, and a fan-out thread formats
 * it (JSON, facelets) and appends it to the session's channel in the same
 * order: the writer never formats an event. Each session with watchers has
 * a channel: a ring of the latest
 * formatted events (shared by every watcher of the session, so a watcher
 * costs a small struct, not a copy of the stream) and the list of its
 * watchers, each with a cursor into the ring.
 *
 * A watcher that subscribes with a version to start after (Last-Event-ID)
 * first replays the events after it from the store, page by page, then
 * joins the ring where the replay ended: it registers before it reads the
 * store, and a version it already sent is skipped, so there is no gap and
 * no duplicate (the fan-out thread finds the channel when it delivers, so
 * a record queued before a watcher registered still reaches it, and one
 * the store already gave it is skipped). A watcher whose unread bytes
 * pass the buffer limit (one that does not read) is cut off; the others
 * never wait for it.
 *
 * The HTTP layer drives a watcher with events_read from libmicrohttpd's
 * content callback: when nothing is ready it gets 0 after events_read has
 * called park (suspend the connection) under the channel's lock, and wake
 * (resume it) is called exactly once when something is. A background
 * thread sends heartbeats and coalesced presence events. */
#ifndef CUBED_EVENTS_H
#define CUBED_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sessions.h"

struct events_config {
	size_t max_watchers;       /* streams in total, 0 = 4096 */
	size_t watcher_buffer;     /* unread bytes before a cut-off, 0 = 1 MiB */
	unsigned heartbeat_ms;     /* ": ping" after this much silence, 0 = 20000 */
	int facelets_max_n;        /* events carry facelets up to this n, 0 = 16 */
	size_t memory;             /* event bytes all channels keep together,
				    * 0 = 256 MiB: past it a channel drops
				    * its oldest (cutting off the watchers
				    * that still needed them) */
};

struct events;
struct watcher;

int events_open(const struct events_config *cfg, struct events **out);
/* Free everything; call after the HTTP server and the writer stopped. */
void events_close(struct events *ev);

/* End every stream (each gets a clean end of stream) and refuse new
 * ones; waits up to wait_ms for the streams to be let go. */
void events_shutdown(struct events *ev, unsigned wait_ms);

/* session_event_fn for sessions_config.on_event (ctx is the events). */
void events_publish(void *ctx, const struct session_event *e);

/* store_notify_fn for store_listen (ctx is the events): another node
 * committed session id at version. With the event itself (e, when the
 * notification carried it) and the version before it at hand, it is
 * formatted and appended at once; otherwise what the watchers here have
 * not had is fetched from the store, in order (id NULL: catch every
 * watched session up). */
void events_remote(void *ctx, const char *id, int64_t version,
		   const struct store_event *e);

/* Watchers of session id now. */
int events_watchers(struct events *ev, const char *id);

enum {
	EVENTS_OK = 0,
	EVENTS_FULL = -1,    /* --max-watchers streams are open */
	EVENTS_CLOSING = -2, /* the server is shutting down */
	EVENTS_NOMEM = -3,
	EVENTS_GONE = -4,    /* the session went away */
};

/* Watch session id (of size n) of s: replay every event after version
 * `after` (-1: start with a "state" event of the current version
 * instead). */
int events_subscribe(struct events *ev, struct sessions *s, const char *id,
		     int n, int64_t after, struct watcher **out);

typedef void events_park_fn(void *ctx);
void events_attach(struct watcher *w, events_park_fn *park,
		   events_park_fn *wake, void *ctx);

/* How the ticker learns that a watcher's peer went away while its
 * connection is parked (a parked connection is not polled, so without
 * this it would count as watching until its next heartbeat failed, 20 s
 * or more). fd is the peer's socket: at every tick (PRESENCE_MS, 200 ms)
 * the ticker polls the sockets of a channel's parked watchers at once,
 * and asks alive(ctx) (the ctx of events_attach) of those readable or
 * hung up; alive answers 0 when the peer has closed, and the watcher then
 * stops counting and is woken to end its stream. With fd -1, alive is
 * asked of each parked watcher about once a second instead. */
typedef int events_alive_fn(void *ctx);
void events_watch_peer(struct watcher *w, events_alive_fn *alive, int fd);

/* Up to max bytes of the stream into buf: the count, 0 if nothing is
 * ready (park was called), -1 at the end of the stream. */
ssize_t events_read(struct watcher *w, char *buf, size_t max);

/* The stream is over (the connection went away): forget w. */
void events_detach(struct watcher *w);

/* gaps: times a channel could not read versions it had to stream (a
 * store read failed) and held later ones back; gaps_repaired: those it
 * read later; gaps_cut: those not read within 10 s, whose streams were
 * ended so their clients replay from the store (events.c). */
struct events_stats {
	uint64_t watchers, published, cut_off, replayed;
	uint64_t gaps, gaps_repaired, gaps_cut;
};
void events_stats(struct events *ev, struct events_stats *out);

#endif
