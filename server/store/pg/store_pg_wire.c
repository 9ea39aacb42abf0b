/* store_pg_wire.c — the PostgreSQL engine's lowest layer: one
 * connection's round trip by a deadline (store_pg_ready.c says why the
 * deadlines are ours), and libpq's messages on one line. Used by the
 * connections' way to a working database (store_pg_ready.c), the
 * migrations (store_pg_migrate.c) and the pool; it uses none of them. */
#include "store_pg_wire.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int64_t pg__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for ev on fd until deadline: 1 ready, 0 the deadline passed, -1
 * the socket failed. */
int pg__wait_fd(int fd, short ev, int64_t deadline)
{
	if (fd < 0)
		return -1;
	for (;;) {
		int64_t left = deadline - pg__now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {fd, ev, 0};
		int n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

int pg__await(PGconn *pq, int64_t deadline)
{
	for (;;) {
		int f = PQflush(pq); /* 0 all sent, 1 more to send, -1 broke */
		if (f < 0)
			return -1;
		if (f == 0 && !PQisBusy(pq))
			return 0;
		int w = pg__wait_fd(PQsocket(pq), POLLIN | (f ? POLLOUT : 0),
				deadline);
		if (w == 0)
			return -2;
		if (w < 0 || !PQconsumeInput(pq))
			return -1;
		if (PQstatus(pq) != CONNECTION_OK)
			return -1;
	}
}

static int failed(const PGresult *r)
{
	ExecStatusType s = PQresultStatus(r);
	return s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK &&
	       s != PGRES_EMPTY_QUERY;
}

PGresult *pg__results(PGconn *pq, int64_t deadline, int *why)
{
	PGresult *keep = NULL;
	for (;;) {
		int w = pg__await(pq, deadline);
		if (w != 0) {
			PQclear(keep);
			*why = w;
			return NULL;
		}
		PGresult *r = PQgetResult(pq);
		if (!r)
			break;
		if (keep && failed(keep)) {
			PQclear(r); /* the first failure is the one to tell */
			continue;
		}
		PQclear(keep);
		keep = r;
	}
	if (!keep)
		*why = -1;
	return keep;
}

void pg__one_line(char *out, size_t cap, const char *prefix,
		  const char *msg)
{
	size_t k = (size_t)snprintf(out, cap, "%s", prefix);
	if (k >= cap)
		return;
	int skip = 0, sep = 0;
	for (const char *p = msg; *p && k + 3 < cap; p++) {
		if (p == msg || p[-1] == '\n')
			skip = strncmp(p, "LOCATION:", 9) == 0;
		if (skip)
			continue;
		if (*p == '\n' || *p == '\t' || *p == '\r') {
			/* a line libpq continued (a tab after the newline) is
			 * the same sentence */
			if (*p == '\n' && sep < 2)
				sep = p[1] == '\t' ? 1 : 2;
			else if (!sep)
				sep = 1;
			continue;
		}
		if (sep && k > strlen(prefix)) {
			if (sep == 2)
				out[k++] = ';';
			out[k++] = ' ';
		}
		sep = 0;
		out[k++] = *p;
	}
	while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == ';'))
		k--;
	out[k] = '\0';
}
