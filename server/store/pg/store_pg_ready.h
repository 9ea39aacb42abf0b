/* store_pg_ready.h — the PostgreSQL engine's state and its way to a
 * working database, shared by the engine's files (store_pg.c,
 * store_pg_write.c and store_pg_pool.c: the operations, the write
 * transaction, the pool and round trips, which share
 * store_pg_shared.h besides; store_pg_listen.c: other nodes'
 * notifications), which all depend on this and the listener not on the
 * others' internals. Not for the rest of the server: store.h is. */
#ifndef CUBED_STORE_PG_READY_H
#define CUBED_STORE_PG_READY_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "store_engine.h"
#include "store_pg_wire.h"

#define LISTEN_RETRY_MS 500   /* between reconnection attempts */
#define READY_RETRY_MAX_MS 2000 /* the longest back-off of pg__make_ready */
#define PG_TIMEOUT_MS 5000    /* store_config.timeout_ms when 0 */

struct pconn;
struct tls;

struct pg {
	char *conninfo;
	/* this node's name on its pooled connections (application_name,
	 * "cubed-" and 12 random hex digits): the notifications of solves
	 * and timed solves carry it (schema/pg/009), so the listener skips
	 * the node's own, which its watchers already had */
	char app[24];
	/* with a transaction lease (store_config.txn_lease_ms), its
	 * milliseconds, set after BEGIN in the same round trip (S_LEASE:
	 * set_config local to the transaction, no session state, so a
	 * pooler in transaction mode passes it); else "" */
	char lease_ms[16];
	char *schema_dir;
	int schema_version;
	/* --db-timeout: the server's statement_timeout on every pooled
	 * connection; a round trip (or a new connection, or the wait for a
	 * free one) with no answer by pg__deadline is given up and its
	 * connection dropped, since a frozen server cannot enforce its own
	 * timeout */
	int timeout_ms;
	int pool_max;      /* --db-pool: connections for requests at most */
	/* what must go before a statement (id, parameters p) on a write
	 * transaction's connection c: set by pg_open to store_pg_write.c's
	 * pg__before_run (the deferred appends), so the pool below calls
	 * the write file without naming it */
	int (*before_run)(struct pg *st, struct tls *t, struct pconn *c,
			  int id, const char *const *p, int64_t deadline);
	/* figures for /metrics (store_pool_stats) */
	atomic_ullong n_waits, n_timeouts, n_dropped, n_listen_up,
		n_notifications, n_trips;
	/* bumped whenever a connection turns out dead: a pooled connection
	 * of an older generation is checked (one empty round trip) before
	 * its next use, so a database restart costs no request a 503 */
	atomic_uint gen;
	/* bumped when a write is refused as read-only (25006): a pooled
	 * connection made before is replaced before its next use, since a
	 * session keeps the read-only default it began with */
	atomic_uint ro_gen;
	atomic_int read_denied_said; /* the log said a read was refused */
	/* the listener has lost its connection and not got it back: the
	 * node's watchers hear nothing from other nodes, so not ready */
	atomic_int listen_down;
	/* 0 until the schema was checked (migrated) on a first connection:
	 * a node may start while PostgreSQL is down, and until then every
	 * call answers STORE_UNAVAILABLE with why in down */
	atomic_int ready;
	pthread_mutex_t ready_lock; /* one attempt at a time; guards down */
	int64_t next_try_ms;        /* no attempt before (monotonic) */
	int retry_ms;               /* the back-off: doubles to READY_RETRY_MAX_MS */
	char down[300];
	pthread_mutex_t lock; /* guards idle, nconns, all */
	pthread_cond_t freed;
	struct pconn *idle;
	int nconns;
	pthread_key_t key;
	struct tls *all;      /* every thread's tls, freed at close */
	char open_error[256];
	/* the listener */
	pthread_t listener;
	int listening;
	atomic_int stop;
	store_notify_fn *notify;
	void *notify_ctx;
	int wake[2];          /* a pipe: close() wakes the listener's poll */
};

/* The deadline of a call started now (pg__now_ms: store_pg_wire.h):
 * timeout_ms and a quarter more, so that a server that is merely slow
 * cancels the statement itself (statement_timeout) first and keeps the
 * connection, and only one that does not answer at all is cut off. */
int64_t pg__deadline(const struct pg *st);

/* A new connection by deadline (asynchronous: PQconnectPoll, so no
 * libpq wait of its own), with TCP keepalives, application_name app
 * (cubed, or cubed-listen for the listener: pg_stat_activity tells them
 * apart),
 * nonblocking sends, and, when settings, the session's statement_timeout
 * (timeout_ms). NULL on failure with a one-line reason in err (no
 * password: libpq never prints it) and *temporary set when waiting may
 * mend it (no answer, refused, starting up, too many connections) or
 * clear when it will not (authentication, no such database, TLS
 * required but not offered, a bad option). */
PGconn *pg__connect(const struct pg *st, int64_t deadline, int settings,
		    const char *app, char *err, size_t errlen, int *temporary);

/* Connect and migrate once, at most every retry_ms after a failure
 * (250 ms, doubling to READY_RETRY_MAX_MS): STORE_OK once ready;
 * STORE_UNAVAILABLE while waiting may mend it (each new reason logged
 * once), and at once while another thread's attempt is under way;
 * STORE_SCHEMA or STORE_ERROR for what waiting does not mend; why in
 * err. */
int pg__make_ready(struct pg *st, char *err, size_t errlen);

/* Ask the listener (store_pg_listen.c) to reconnect now rather than at
 * its next retry; nothing when it is not running. */
void pg__kick(struct pg *st);

#endif
