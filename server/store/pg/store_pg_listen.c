/* store_pg_listen.c — other nodes' commits for the PostgreSQL engine
 * (store_listen): a thread with a connection of its own LISTENs on
 * cubed_events, waits on its socket with poll, and hands each
 * notification to the callback: the event itself when the payload
 * carried it (schema/pg/003: JSON), or its session and version to read.
 * After every (re)connection it makes one catch-up call, since
 * notifications sent while it was away are lost; and a node that started
 * while the database was down gets ready here (pg__make_ready), with no
 * request needed. */
#include "store_pg_listen.h"

#include "store_pg_ready.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* One notification: '<id>:<version>' (a deletion, or an event too big
 * for a payload), or the event as JSON {"id", "v", "k", "m", "a", "t",
 * "r", "l"} (schema/pg/003), which spares the listener a read of the
 * store. */
static void notify_one(struct pg *st, const char *extra)
{
	if (extra[0] == '{') {
		json_t *j = json_loads(extra, 0, NULL);
		const char *id = json_string_value(json_object_get(j, "id"));
		const char *kind = json_string_value(json_object_get(j, "k"));
		const char *moves = json_string_value(json_object_get(j, "m"));
		json_t *v = json_object_get(j, "v");
		if (id && strlen(id) < STORE_ID_MAX && json_is_integer(v)) {
			struct store_event e = {
				.version = json_integer_value(v),
				.moves = (char *)moves,
				.actor = (char *)json_string_value(
					json_object_get(j, "a")),
				.created_at = json_integer_value(
					json_object_get(j, "t")),
				.ref = json_integer_value(
					json_object_get(j, "r")),
				.link = json_integer_value(
					json_object_get(j, "l")),
			};
			int whole = kind && moves &&
				    strlen(kind) < sizeof e.kind;
			if (whole)
				snprintf(e.kind, sizeof e.kind, "%s", kind);
			st->notify(st->notify_ctx, id, e.version,
				   whole ? &e : NULL);
		}
		json_decref(j);
		return;
	}
	const char *colon = strrchr(extra, ':');
	if (colon && colon - extra < STORE_ID_MAX) {
		char id[STORE_ID_MAX];
		memcpy(id, extra, (size_t)(colon - extra));
		id[colon - extra] = '\0';
		st->notify(st->notify_ctx, id, strtoll(colon + 1, NULL, 10),
			   NULL);
	}
}

/* Hand every pending notification to the callback. */
static void drain(struct pg *st, PGconn *pq)
{
	PGnotify *n;
	while ((n = PQnotifies(pq)) != NULL) {
		notify_one(st, n->extra);
		PQfreemem(n);
	}
}

static void *listener_main(void *arg)
{
	struct pg *st = arg;
	prctl(PR_SET_NAME, "cubed-listen", 0, 0, 0);
	PGconn *pq = NULL;
	while (!atomic_load(&st->stop)) {
		if (!pq || PQstatus(pq) != CONNECTION_OK) {
			PQfinish(pq);
			pq = NULL;
			/* a node started while the database was down gets
			 * ready here, with no request needed */
			char why[300];
			if (pg__make_ready(st, why, sizeof why) != STORE_OK) {
				struct pollfd w = {st->wake[0], POLLIN, 0};
				poll(&w, 1, LISTEN_RETRY_MS);
				continue;
			}
			pq = pg__connect(st->conninfo);
			PGresult *r = PQstatus(pq) == CONNECTION_OK
					      ? PQexec(pq, "LISTEN cubed_events")
					      : NULL;
			int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
			PQclear(r);
			if (!ok) {
				/* wait, unless close() wakes us */
				struct pollfd w = {st->wake[0], POLLIN, 0};
				poll(&w, 1, LISTEN_RETRY_MS);
				continue;
			}
			/* notifications sent while we were away are lost:
			 * every watched session catches up from the rows */
			st->notify(st->notify_ctx, NULL, -1, NULL);
		}
		struct pollfd fds[2] = {{PQsocket(pq), POLLIN, 0},
					{st->wake[0], POLLIN, 0}};
		int n = poll(fds, 2, -1);
		if (n < 0 && errno != EINTR)
			sleep_ms(10);
		if (fds[1].revents)
			break;
		if (fds[0].revents) {
			if (!PQconsumeInput(pq))
				continue; /* broken: reconnect above */
			drain(st, pq);
		}
	}
	PQfinish(pq);
	return NULL;
}

void pg__unlisten(struct pg *st)
{
	if (!st->listening)
		return;
	atomic_store(&st->stop, 1);
	close(st->wake[1]);
	pthread_join(st->listener, NULL);
	close(st->wake[0]);
	st->listening = 0;
}

int pg__listen(void *impl, store_notify_fn *fn, void *ctx)
{
	struct pg *st = impl;
	if (!fn) {
		pg__unlisten(st);
		return STORE_OK;
	}
	if (st->listening)
		return STORE_ERROR;
	atomic_store(&st->stop, 0);
	if (pipe(st->wake) != 0)
		return STORE_ERROR;
	st->notify = fn;
	st->notify_ctx = ctx;
	if (pthread_create(&st->listener, NULL, listener_main, st) != 0) {
		close(st->wake[0]);
		close(st->wake[1]);
		return STORE_ERROR;
	}
	st->listening = 1;
	return STORE_OK;
}
