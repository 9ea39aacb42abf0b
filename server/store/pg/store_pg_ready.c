/* store_pg_ready.c — how the PostgreSQL engine gets to a working
 * database: a new connection with the engine's options, and the one
 * connect-and-migrate step (pg__make_ready) that a node which started
 * while PostgreSQL was down repeats, at most every LISTEN_RETRY_MS, from
 * requests (store_pg.c) and from the listener (store_pg_listen.c). */
#include "store_pg_ready.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "store_pg_migrate.h"

PGconn *pg__connect(const char *conninfo)
{
	/* connect_timeout first: a value in the address overrides it */
	const char *const keys[] = {"connect_timeout", "application_name",
				    "dbname", NULL};
	const char *const vals[] = {"5", "cubed", conninfo, NULL};
	return PQconnectdbParams(keys, vals, 1);
}

static int64_t mono_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Connect and migrate (pg_migrate) once: STORE_OK (st->ready), else
 * STORE_UNAVAILABLE while the database cannot be reached, STORE_SCHEMA
 * or STORE_ERROR for what waiting does not mend; why in err. Attempts
 * are one at a time and, after a failure, at most every LISTEN_RETRY_MS
 * (the callers in between get the last reason): requests arriving while
 * the database is down must not each open a connection. */
int pg__make_ready(struct pg *st, char *err, size_t errlen)
{
	if (atomic_load(&st->ready))
		return STORE_OK;
	pthread_mutex_lock(&st->ready_lock);
	int rc = STORE_UNAVAILABLE;
	if (atomic_load(&st->ready)) {
		rc = STORE_OK;
	} else if (mono_now_ms() < st->next_try_ms) {
		snprintf(err, errlen, "%s", st->down);
	} else {
		PGconn *pq = pg__connect(st->conninfo);
		if (PQstatus(pq) != CONNECTION_OK) {
			/* the server's answer (a wrong password, no such
			 * database) or an address libpq cannot use will not
			 * mend by itself; no answer, or "starting up", may */
			PGPing ping = PQping(st->conninfo);
			rc = ping == PQPING_NO_RESPONSE || ping == PQPING_REJECT
				     ? STORE_UNAVAILABLE
				     : STORE_ERROR;
			snprintf(err, errlen, "cannot connect to PostgreSQL: %s",
				 PQerrorMessage(pq));
			size_t n = strlen(err);
			while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
				err[--n] = '\0';
		} else {
			rc = pg_migrate(pq, st->schema_dir, &st->schema_version,
					err, errlen);
		}
		PQfinish(pq);
		if (rc == STORE_OK) {
			atomic_store(&st->ready, 1);
		} else {
			snprintf(st->down, sizeof st->down, "%s", err);
			st->next_try_ms = mono_now_ms() + LISTEN_RETRY_MS;
		}
	}
	pthread_mutex_unlock(&st->ready_lock);
	return rc;
}

