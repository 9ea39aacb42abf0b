/* store_pg_ready.c — how the PostgreSQL engine gets to a working
 * database: a new connection by a deadline with the engine's options
 * (the round trip by a deadline that every statement uses is
 * store_pg_wire.c's), and the one connect-and-migrate step (pg__make_ready) that a node which started
 * while PostgreSQL was down repeats, with a back-off, from requests
 * (store_pg.c) and from the listener (store_pg_listen.c).
 *
 * Why deadlines on our side: statement_timeout is enforced by the
 * server, so a server that is frozen (stopped, swapped out, a network
 * that drops packets without a reset) never enforces it, and libpq's
 * blocking calls would wait as long as the freeze lasts. Every wait here
 * is a poll on the connection's socket with a deadline. */
#include "store_pg_ready.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store_pg_migrate.h"

int64_t pg__deadline(const struct pg *st)
{
	return pg__now_ms() + st->timeout_ms + st->timeout_ms / 4;
}

/* The SQLSTATE in a verbose libpq message ("FATAL:  53300: sorry, …"),
 * or NULL. */
static const char *sqlstate_of(const char *msg, char code[6])
{
	static const char *const sev[] = {"FATAL:  ", "ERROR:  ", "PANIC:  "};
	for (size_t i = 0; i < sizeof sev / sizeof *sev; i++) {
		const char *p = strstr(msg, sev[i]);
		if (!p)
			continue;
		p += strlen(sev[i]);
		int ok = 1;
		for (int k = 0; k < 5; k++)
			if (!isalnum((unsigned char)p[k]))
				ok = 0;
		if (ok && p[5] == ':') {
			memcpy(code, p, 5);
			code[5] = '\0';
			return code;
		}
	}
	return NULL;
}

/* Whether waiting may mend a failed connection. The server's refusals
 * by SQLSTATE: 57P03 (starting up, shutting down, in recovery), class 53
 * (too many connections, out of memory or disk), 57P01/57P02 (a
 * shutdown), class 08 but a protocol violation — temporary; any other
 * (28xxx authentication, 3D000 no such database, 42704 a bad option,
 * 42501 no CONNECT privilege) is permanent. Without one it is libpq's own
 * failure: no answer at all (refused, no socket, unreachable, a timeout,
 * a name that does not resolve, cut off mid-way) is temporary; the rest
 * (TLS required but not offered, a certificate, an option libpq rejects,
 * no password given) is permanent. libpq's own messages are in English:
 * cubed never calls setlocale. */
static int is_temporary(const char *msg)
{
	char code[6];
	if (sqlstate_of(msg, code))
		return strcmp(code, "57P03") == 0 || strncmp(code, "53", 2) == 0 ||
		       strcmp(code, "57P01") == 0 || strcmp(code, "57P02") == 0 ||
		       (strncmp(code, "08", 2) == 0 && strcmp(code, "08P01") != 0);
	static const char *const gone[] = {
		"Connection refused", "No such file or directory",
		"timeout expired", "did not answer within",
		"could not translate host name", "Network is unreachable",
		"No route to host", "Connection reset",
		"server closed the connection unexpectedly",
		"Connection timed out", "Resource temporarily unavailable",
		"the database system is", "too many clients",
	};
	for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
		if (strstr(msg, gone[i]))
			return 1;
	return 0;
}

PGconn *pg__connect(const struct pg *st, int64_t deadline, int settings,
		    const char *app, char *err, size_t errlen, int *temporary)
{
	/* keep-alives notice a peer that went away without a word (a
	 * network cut, a host gone): idle for about the timeout, then three
	 * probes; tcp_user_timeout does the same for data sent and never
	 * acknowledged. Both are TCP's: a Unix socket needs neither. Values
	 * in the address win over these (they come later). */
	char idle[16], gap[16], user[16];
	int t = st->timeout_ms;
	snprintf(idle, sizeof idle, "%d", t / 1000 > 1 ? t / 1000 : 1);
	snprintf(gap, sizeof gap, "%d", t / 3000 > 1 ? t / 3000 : 1);
	snprintf(user, sizeof user, "%d", t + t / 4);
	const char *const keys[] = {"application_name", "keepalives",
				    "keepalives_idle", "keepalives_interval",
				    "keepalives_count", "tcp_user_timeout",
				    "dbname", NULL};
	const char *const vals[] = {app, "1", idle, gap, "3", user,
				    st->conninfo, NULL};
	*temporary = 0;
	PGconn *pq = PQconnectStartParams(keys, vals, 1);
	if (!pq) {
		snprintf(err, errlen, "cannot connect to PostgreSQL: out of "
				      "memory");
		*temporary = 1;
		return NULL;
	}
	/* the SQLSTATE in the server's refusal tells temporary from not */
	PQsetErrorVerbosity(pq, PQERRORS_VERBOSE);
	PostgresPollingStatusType ps = PQstatus(pq) == CONNECTION_BAD
					       ? PGRES_POLLING_FAILED
					       : PGRES_POLLING_WRITING;
	int timed_out = 0;
	while (ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
		int w = pg__wait_fd(PQsocket(pq),
				ps == PGRES_POLLING_READING ? POLLIN : POLLOUT,
				deadline);
		if (w == 0) {
			timed_out = 1;
			break;
		}
		ps = PQconnectPoll(pq);
	}
	if (ps == PGRES_POLLING_OK) {
		PQsetErrorVerbosity(pq, PQERRORS_DEFAULT);
		PQsetnonblocking(pq, 1);
		if (!settings)
			return pq;
		char sql[64];
		snprintf(sql, sizeof sql, "SET statement_timeout = %d",
			 st->timeout_ms);
		int why = 0;
		PGresult *r = PQsendQuery(pq, sql) ? pg__results(pq, deadline,
								  &why)
						   : NULL;
		int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!ok) {
			timed_out = why == -2;
			pg__one_line(err, errlen,
				     "cannot connect to PostgreSQL: ",
				     r ? PQresultErrorMessage(r)
				       : PQerrorMessage(pq));
			*temporary = timed_out || !r;
		}
		PQclear(r);
		if (ok)
			return pq;
	} else {
		pg__one_line(err, errlen, "cannot connect to PostgreSQL: ",
			     PQerrorMessage(pq));
		*temporary = is_temporary(PQerrorMessage(pq));
	}
	if (timed_out) {
		snprintf(err, errlen,
			 "cannot connect to PostgreSQL: the server did not "
			 "answer within %d ms",
			 st->timeout_ms + st->timeout_ms / 4);
		*temporary = 1;
	}
	PQfinish(pq);
	return NULL;
}

/* Connect and migrate (pg_migrate) once: STORE_OK (st->ready), else
 * STORE_UNAVAILABLE while waiting may mend it, STORE_SCHEMA or
 * STORE_ERROR for what it will not; why in err. Attempts are one at a
 * time (a caller that finds one under way gets STORE_UNAVAILABLE at
 * once) and, after a failure, at most every retry_ms (the callers in
 * between get the last reason): requests arriving while the database is
 * down must not each open a connection. */
int pg__make_ready(struct pg *st, char *err, size_t errlen)
{
	if (atomic_load(&st->ready))
		return STORE_OK;
	/* one attempt at a time, and nobody waits for it: a migration may
	 * take minutes (store_pg_migrate.c), a request must not */
	if (pthread_mutex_trylock(&st->ready_lock) != 0) {
		snprintf(err, errlen, "the database is not ready yet "
				      "(connecting or migrating)");
		return STORE_UNAVAILABLE;
	}
	int rc = STORE_UNAVAILABLE;
	if (atomic_load(&st->ready)) {
		rc = STORE_OK;
	} else if (pg__now_ms() < st->next_try_ms) {
		snprintf(err, errlen, "%s", st->down);
	} else {
		int temporary = 0;
		PGconn *pq = pg__connect(st, pg__deadline(st), 0, "cubed", err, errlen,
					 &temporary);
		if (!pq)
			rc = temporary ? STORE_UNAVAILABLE : STORE_ERROR;
		else
			rc = pg_migrate(pq, st->schema_dir, st->timeout_ms,
					&st->schema_version, err, errlen);
		PQfinish(pq);
		if (rc == STORE_OK) {
			atomic_store(&st->ready, 1);
			if (st->down[0])
				log_msg(LOG_WARN, "database: ready");
			st->down[0] = '\0';
		} else {
			/* a new reason is logged once; the same one again is
			 * not (a node may wait long for its database) */
			if (strcmp(st->down, err) != 0 &&
			    rc == STORE_UNAVAILABLE)
				log_msg(LOG_WARN,
					"database: %s; not ready, retrying "
					"(every %d ms at most)",
					err, READY_RETRY_MAX_MS);
			snprintf(st->down, sizeof st->down, "%s", err);
			st->retry_ms = st->retry_ms <= 0 ? 250
				       : st->retry_ms * 2 > READY_RETRY_MAX_MS
					       ? READY_RETRY_MAX_MS
					       : st->retry_ms * 2;
			st->next_try_ms = pg__now_ms() + st->retry_ms;
		}
	}
	pthread_mutex_unlock(&st->ready_lock);
	return rc;
}
