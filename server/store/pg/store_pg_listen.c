/* store_pg_listen.c — other nodes' commits for the PostgreSQL engine
 * (store_listen): a thread with a connection of its own LISTENs on
 * cubed_events, waits on its socket with poll, and hands each
 * event of a notification to the callback: the event itself when the
 * payload carried it (schema/pg/003: JSON; since 010 a write batch's
 * events as one JSON array), or its session and version to read.
 * After every (re)connection it makes one catch-up call, since
 * notifications sent while it was away are lost; and a node that started
 * while the database was down gets ready here (pg__make_ready), with no
 * request needed. */
#include "store_pg_listen.h"

#include "store_pg_ready.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
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

/* One event of a notification's JSON: {"id", "v", "k", "m", "a", "t",
 * "r", "l"} (schema/pg/003), which spares the listener a read of the
 * store, or only {"id", "v"} (an event too big to carry: read it); or a
 * solve's or a timed solve's (kind "solve" or "timed", with "mt" a
 * solve's method and "o" the node that wrote it: schema/pg/009),
 * skipped when that node is this one. */
static void notify_json(struct pg *st, json_t *j)
{
	const char *id = json_string_value(json_object_get(j, "id"));
	const char *kind = json_string_value(json_object_get(j, "k"));
	const char *moves = json_string_value(json_object_get(j, "m"));
	json_t *v = json_object_get(j, "v");
	const char *origin = json_string_value(json_object_get(j, "o"));
	if (origin && strcmp(origin, st->app) == 0)
		return; /* a solve or a timed solve of this node's: its
			 * watchers had it from the writer */
	if (!id || strlen(id) >= STORE_ID_MAX || !json_is_integer(v))
		return;
	struct store_event e = {
		.version = json_integer_value(v),
		.moves = (char *)moves,
		.actor = (char *)json_string_value(json_object_get(j, "a")),
		.created_at = json_integer_value(json_object_get(j, "t")),
		.ref = json_integer_value(json_object_get(j, "r")),
		.link = json_integer_value(json_object_get(j, "l")),
	};
	int whole = kind && moves && strlen(kind) < sizeof e.kind;
	if (whole)
		snprintf(e.kind, sizeof e.kind, "%s", kind);
	const char *mt = json_string_value(json_object_get(j, "mt"));
	if (mt)
		snprintf(e.method, sizeof e.method, "%s", mt);
	st->notify(st->notify_ctx, id, e.version, whole ? &e : NULL);
}

/* One notification: '<id>:<version>' (a deletion as '<id>:-1', or an
 * event too big for a payload before schema/pg/010), one event as a JSON
 * object (003, 009), or a statement's events as a JSON array of them, in
 * the order they were inserted (010). */
static void notify_one(struct pg *st, const char *extra)
{
	if (extra[0] == '{' || extra[0] == '[') {
		json_t *j = json_loads(extra, 0, NULL);
		if (json_is_array(j)) {
			size_t i;
			json_t *one;
			json_array_foreach(j, i, one)
				notify_json(st, one);
		} else if (json_is_object(j)) {
			notify_json(st, j);
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
		atomic_fetch_add(&st->n_notifications, 1);
		notify_one(st, n->extra);
		PQfreemem(n);
	}
}

/* The wake pipe has something: 1 when it is closed (stop), 0 for a kick
 * (pg__kick: try to reconnect now). */
static int woken(struct pg *st)
{
	char b[16];
	ssize_t n = read(st->wake[0], b, sizeof b);
	return n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
}

/* Wait up to ms unless close() wakes us (1) or a kick ends the wait. */
static int nap(struct pg *st, int ms)
{
	struct pollfd w = {st->wake[0], POLLIN, 0};
	return poll(&w, 1, ms) > 0 && woken(st);
}

void pg__kick(struct pg *st)
{
	if (st->listening) {
		char b = 1;
		ssize_t n = write(st->wake[1], &b, 1);
		(void)n; /* a full pipe has kicks enough */
	}
}

/* A connection that LISTENs, by the deadline; NULL with why when there
 * is none. */
static PGconn *listen_connect(struct pg *st, char *why, size_t cap)
{
	int64_t deadline = pg__deadline(st);
	int temporary = 0;
	PGconn *pq = pg__connect(st, deadline, 0, "cubed-listen", why, cap,
				 &temporary);
	if (!pq)
		return NULL;
	int w = 0;
	PGresult *r = PQsendQuery(pq, "LISTEN cubed_events")
			      ? pg__results(pq, deadline, &w)
			      : NULL;
	int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		snprintf(why, cap, "LISTEN failed: %s",
			 w == -2 ? "no answer in time" : PQerrorMessage(pq));
	PQclear(r);
	if (!ok) {
		PQfinish(pq);
		return NULL;
	}
	return pq;
}

/* The loop: connect and LISTEN; then wait on the socket, and every
 * timeout_ms send a health query (SELECT 1) that must be answered within
 * its deadline. TCP keep-alives (pg__connect) notice a peer gone from
 * the network; the health query also a server that is frozen or a
 * connection that is half open, which keep-alives alone may not (the
 * kernel answers them for a stopped process). A connection that fails
 * either is dropped, and the next one is followed by a catch-up. */
static void *listener_main(void *arg)
{
	struct pg *st = arg;
	prctl(PR_SET_NAME, "cubed-listen", 0, 0, 0);
	PGconn *pq = NULL;
	int64_t probe_at = 0, probe_due = 0; /* probe_due: 0 = none out */
	int had = 0; /* had a connection: losing it makes the node unready */
	char last[300] = ""; /* the last reason logged for no connection */
	while (!atomic_load(&st->stop)) {
		if (!pq) {
			/* a node started while the database was down gets
			 * ready here, with no request needed */
			char why[300];
			if (pg__make_ready(st, why, sizeof why) != STORE_OK) {
				if (nap(st, LISTEN_RETRY_MS))
					break;
				continue;
			}
			pq = listen_connect(st, why, sizeof why);
			if (!pq && strcmp(why, last) != 0) {
				/* each new reason once: it may last */
				log_msg(LOG_WARN,
					"database: no LISTEN connection (%s); "
					"retrying every %d ms",
					why, LISTEN_RETRY_MS);
				snprintf(last, sizeof last, "%s", why);
			}
			if (!pq) {
				if (nap(st, LISTEN_RETRY_MS))
					break;
				continue;
			}
			last[0] = '\0';
			if (had)
				log_msg(LOG_WARN,
					"database: the LISTEN connection is "
					"back; catching up");
			had = 1;
			atomic_store(&st->listen_down, 0);
			atomic_fetch_add(&st->n_listen_up, 1);
			/* notifications sent while we were away are lost:
			 * every watched session catches up from the rows */
			st->notify(st->notify_ctx, NULL, -1, NULL);
			probe_at = pg__now_ms() + st->timeout_ms;
			probe_due = 0;
		}
		int64_t now = pg__now_ms();
		int64_t next = probe_due ? probe_due : probe_at;
		int wait = next > now ? (int)(next - now) : 0;
		struct pollfd fds[2] = {{PQsocket(pq), POLLIN, 0},
					{st->wake[0], POLLIN, 0}};
		int n = poll(fds, 2, wait);
		if (n < 0 && errno != EINTR)
			sleep_ms(10);
		if (fds[1].revents && woken(st))
			break;
		const char *lost = NULL;
		if (fds[0].revents) {
			if (!PQconsumeInput(pq) ||
			    PQstatus(pq) != CONNECTION_OK) {
				lost = "the connection broke";
			} else {
				drain(st, pq);
				/* the health query's answer, once whole */
				while (probe_due && !lost && !PQisBusy(pq)) {
					PGresult *r = PQgetResult(pq);
					if (!r) {
						probe_due = 0;
						probe_at = pg__now_ms() +
							   st->timeout_ms;
						break;
					}
					if (PQresultStatus(r) !=
					    PGRES_TUPLES_OK)
						lost = "the health query failed";
					PQclear(r);
				}
			}
		}
		now = pg__now_ms();
		if (!lost && probe_due && now >= probe_due) {
			lost = "the health query got no answer in time";
		} else if (!lost && !probe_due && now >= probe_at) {
			if (!PQsendQuery(pq, "SELECT 1") || PQflush(pq) < 0)
				lost = "the health query could not be sent";
			else
				probe_due = now + st->timeout_ms +
					    st->timeout_ms / 4;
		}
		if (lost) {
			log_msg(LOG_WARN,
				"database: the LISTEN connection is lost (%s); "
				"reconnecting",
				lost);
			atomic_store(&st->listen_down, 1);
			PQfinish(pq);
			pq = NULL;
			probe_due = 0;
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
	/* kicks never block the caller */
	fcntl(st->wake[1], F_SETFL, O_NONBLOCK);
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
