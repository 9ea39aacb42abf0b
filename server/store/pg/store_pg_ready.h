/* store_pg_ready.h — the PostgreSQL engine's state and its way to a
 * working database, shared by the engine's files (store_pg.c: the pool,
 * statements, rows; store_pg_listen.c: other nodes' notifications), which
 * both depend on this and not on each other's internals. Not for the rest
 * of the server: store.h is. */
#ifndef CUBED_STORE_PG_READY_H
#define CUBED_STORE_PG_READY_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "store_engine.h"

#define LISTEN_RETRY_MS 500   /* between reconnection attempts */

struct pconn;
struct tls;

struct pg {
	char *conninfo;
	/* what opens a transaction: BEGIN, and with a transaction lease
	 * (store_config.txn_lease_ms) the lease for it, in one round trip
	 * (SET LOCAL: no session state, so a pooler in transaction mode
	 * passes it); begin_expect is the command tag of its last statement */
	char begin_sql[96];
	const char *begin_expect;
	char *schema_dir;
	int schema_version;
	/* 0 until the schema was checked (migrated) on a first connection:
	 * a node may start while PostgreSQL is down, and until then every
	 * call answers STORE_UNAVAILABLE with why in down */
	atomic_int ready;
	pthread_mutex_t ready_lock; /* one attempt at a time; guards down */
	int64_t next_try_ms;        /* no attempt before (monotonic) */
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

/* A new connection (connect_timeout 5 s unless the address says). */
PGconn *pg__connect(const char *conninfo);
/* Connect and migrate once, at most every LISTEN_RETRY_MS after a
 * failure: STORE_OK once ready; STORE_UNAVAILABLE while the database
 * cannot be reached; STORE_SCHEMA or STORE_ERROR for what waiting does
 * not mend; why in err. */
int pg__make_ready(struct pg *st, char *err, size_t errlen);

#endif
