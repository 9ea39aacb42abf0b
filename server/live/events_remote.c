/* events_remote.c — other nodes' versions (see events.h,
 * events_internal.h): events_remote takes a node's notification, whole
 * (its event in the payload) or as an id and a version that the channel
 * then reads from the store (events.c's fill). Locks as events.c says. */
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

/* ---------------------------------------------------------- other nodes */

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
	struct channel *c = ev__find(ev, id);
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
		if (!facelets || !next || ev__apply_stored(next, e->moves) != 0) {
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
	buf = ev__sse_format(e->version, e->kind, ev__event_json(ev, &se), &len);
	if (buf) {
		ev__append_locked(ev, c, e->version, buf, len);
		ev__settle_locked(ev, c, 0);
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

/* Another node's versioned notification, where it is handled: its
 * event appended when the channel holds the version before it, else the
 * versions up to it read from the store. */
static void remote_version(struct events *ev, const char *id, int64_t version,
			   const struct store_event *e)
{
	if (!e || e->version != version || !remote_event(ev, id, e))
		ev__fill(ev, id, version);
}

void ev__remote_apply(struct events *ev, struct pub *p)
{
	if (!p->has_event) {
		remote_version(ev, p->id, p->remote_version, NULL);
		return;
	}
	if (strcmp(p->type, "solve") == 0 || strcmp(p->type, "timed") == 0) {
		ev__deliver(ev, p);
		return;
	}
	struct store_event e = {.version = p->e.version,
				.moves = p->moves, .actor = p->actor,
				.created_at = p->e.created_at};
	snprintf(e.kind, sizeof e.kind, "%.*s", (int)sizeof e.kind - 1,
		 p->type);
	remote_version(ev, p->id, p->remote_version, &e);
}

/* Another node's notification for session id (a version, or a solve or
 * timed solve, which have none): handled by the fan-out thread in its
 * place in the queue, behind what this node's writer queued before it.
 * Handled here on the listener's thread instead, the notification of a
 * commit of this node (the listener hears those too) could overtake the
 * side events its writer queued before that commit (a solve stored,
 * then a move: the move first on this node's streams). */
static void remote_queued(struct events *ev, const char *id, int64_t version,
			  const struct store_event *e)
{
	pthread_mutex_lock(&ev->lock);
	int watched = ev__find(ev, id) != NULL;
	pthread_mutex_unlock(&ev->lock);
	if (!watched)
		return;
	struct pub *p;
	if (e) {
		struct session_event se = {
			.id = id, .type = e->kind, .version = e->version,
			.moves = e->moves ? e->moves : "", .actor = e->actor,
			.created_at = e->created_at,
			.method = e->method[0] ? e->method : NULL,
		};
		p = ev__pub_new(ev, &se);
	} else {
		p = calloc(1, sizeof *p);
		if (p)
			snprintf(p->id, sizeof p->id, "%s", id);
	}
	if (!p) {
		/* out of memory: handled here and now, as before */
		if (e && (strcmp(e->kind, "solve") == 0 ||
			  strcmp(e->kind, "timed") == 0))
			return;
		remote_version(ev, id, version, e);
		return;
	}
	p->remote = 1;
	p->has_event = e != NULL;
	p->remote_version = version;
	ev__queue_push(ev, p);
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
	if (id) {
		/* a version, or another node's solve or timed solve (no
		 * version of the session, so no id: its watchers there had
		 * it from their writer, these get it here) */
		remote_queued(ev, id, version, e);
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
		ev__fill(ev, ids[i], INT64_MAX);
	free(ids);
}
