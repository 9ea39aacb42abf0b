/* store_pg_wire.h — one connection's round trip by a deadline, and
 * libpq's messages on one line (store_pg_wire.c): the PostgreSQL
 * engine's lowest layer, below store_pg_ready.h and the migrations. */
#ifndef CUBED_STORE_PG_WIRE_H
#define CUBED_STORE_PG_WIRE_H

#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

/* Monotonic milliseconds. */
int64_t pg__now_ms(void);

/* Wait for ev (poll's POLLIN, POLLOUT) on fd until deadline: 1 ready,
 * 0 the deadline passed, -1 the socket failed. */
int pg__wait_fd(int fd, short ev, int64_t deadline);

/* Send what is queued and wait until the whole answer is in (PQisBusy
 * is 0): 0; -1 the connection broke; -2 the deadline passed first (the
 * caller must drop the connection: it is in an unknown state). */
int pg__await(PGconn *pq, int64_t deadline);
/* After a PQsend*: every result of it by deadline. The first failed one,
 * else the last; NULL (with *why -1 or -2 as pg__await) when the
 * connection broke or the deadline passed. */
PGresult *pg__results(PGconn *pq, int64_t deadline, int *why);

/* prefix and libpq's message msg on one line into out: LOCATION lines
 * dropped, continued lines (a tab after the newline) joined with a
 * space, the others with "; ". */
void pg__one_line(char *out, size_t cap, const char *prefix,
		  const char *msg);

#endif
