/* store_pg_migrate.c — the PostgreSQL engine's migrations: the files
 * schema/pg/NNN_name.sql, applied in order at open. Each file runs in its
 * own transaction together with the row that records it in schema_version
 * (one row per applied file), so a crash leaves the database at a whole
 * version. A session-level advisory lock serialises nodes that start at
 * the same time: the second waits, then finds nothing left to do. A
 * database whose schema_version is higher than the newest file is refused
 * with a sentence saying so: this binary would not know its tables.
 *
 * Every wait is bounded (store_pg_ready.c says why deadlines are ours):
 * each statement by the engine's deadline, a migration file's by
 * MIGRATE_FILE_MS (its DDL may rewrite a big table), and the advisory
 * lock is tried, not waited for, until the engine's deadline: a node
 * whose peer holds it (migrating, or frozen while migrating) starts not
 * ready, says so, and tries again with pg__make_ready's back-off. */
#include "store_pg_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema_files.h"
#include "store.h"
#include "store_pg_wire.h"

/* pg_advisory_lock key: "cubed" in ASCII */
#define MIGRATE_LOCK "109117098101100"

/* A migration file's deadline: ten minutes, as an operator would give
 * an upgrade's DDL on a big table before calling it stuck. */
#define MIGRATE_FILE_MS (10 * 60 * 1000)
/* Between two tries of the advisory lock. */
#define LOCK_RETRY_MS 50

/* Run sql (one statement or several) by deadline: STORE_OK; STORE_ERROR
 * with the server's reason; STORE_UNAVAILABLE when it did not answer in
 * time or the connection broke (waiting may mend those). */
static int exec_by(PGconn *pq, const char *sql, int64_t deadline,
		   PGresult **out, char *err, size_t errlen)
{
	int why = 0;
	PGresult *r = PQsendQuery(pq, sql) ? pg__results(pq, deadline, &why)
					   : NULL;
	if (!r) {
		/* past the deadline the statement may still run: the caller
		 * closes the connection, which ends it */
		if (why == -2)
			snprintf(err, errlen, "PostgreSQL did not answer in "
					      "time while migrating");
		else
			pg__one_line(err, errlen, "", PQerrorMessage(pq));
		return STORE_UNAVAILABLE;
	}
	ExecStatusType s = PQresultStatus(r);
	int ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
	const char *state = ok ? NULL : PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *primary =
		ok ? NULL : PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	if (state && primary && strcmp(state, "42501") == 0) {
		/* a privilege: the fix is the operator's, say which */
		snprintf(err, errlen,
			 "the role may not create or change cubed's tables "
			 "(%s): make it the database's owner (docs/scaling.md, "
			 "Roles)",
			 primary);
	} else if (!ok) {
		snprintf(err, errlen, "%s", PQresultErrorMessage(r));
		size_t n = strlen(err);
		while (n > 0 && err[n - 1] == '\n')
			err[--n] = '\0';
	}
	if (ok && out)
		*out = r;
	else
		PQclear(r);
	return ok ? STORE_OK : STORE_ERROR;
}

static int exec(PGconn *pq, const char *sql, int timeout_ms, char *err,
		size_t errlen)
{
	return exec_by(pq, sql, pg__now_ms() + timeout_ms, NULL, err, errlen);
}

/* The newest version recorded, 0 for a new database; < 0 on error (the
 * STORE_ code). */
static int db_version(PGconn *pq, int timeout_ms, char *err, size_t errlen)
{
	PGresult *r = NULL;
	int rc = exec_by(pq,
			 "SELECT coalesce(max(version), 0) FROM schema_version",
			 pg__now_ms() + timeout_ms, &r, err, errlen);
	if (rc != STORE_OK)
		return rc;
	int v = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
	if (v < 0)
		snprintf(err, errlen, "schema_version: no version");
	PQclear(r);
	return v < 0 ? STORE_ERROR : v;
}

/* The advisory lock, tried every LOCK_RETRY_MS until timeout_ms has
 * passed: STORE_OK once held, STORE_UNAVAILABLE while another session
 * holds it, or the statement's own failure. */
static int lock_by(PGconn *pq, int timeout_ms, char *err, size_t errlen)
{
	int64_t until = pg__now_ms() + timeout_ms;
	for (;;) {
		PGresult *r = NULL;
		int rc = exec_by(pq,
				 "SELECT pg_try_advisory_lock(" MIGRATE_LOCK ")",
				 pg__now_ms() + timeout_ms, &r, err, errlen);
		if (rc != STORE_OK)
			return rc;
		int got = PQntuples(r) == 1 && PQgetvalue(r, 0, 0)[0] == 't';
		PQclear(r);
		if (got)
			return STORE_OK;
		if (pg__now_ms() + LOCK_RETRY_MS > until) {
			snprintf(err, errlen,
				 "another node holds the schema migration "
				 "lock (it is migrating, or stopped while "
				 "migrating)");
			return STORE_UNAVAILABLE;
		}
		struct timespec ts = {0, LOCK_RETRY_MS * 1000000L};
		nanosleep(&ts, NULL);
	}
}

int pg_migrate(PGconn *pq, const char *schema_dir, int timeout_ms,
	       int *version, char *err, size_t errlen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/pg", schema_dir);
	struct schema_files f;
	if (schema_files_list(dir, &f, err, errlen) != 0)
		return STORE_ERROR;
	int newest = f.count;
	int rc = lock_by(pq, timeout_ms, err, errlen);
	int locked = rc == STORE_OK;
	if (rc == STORE_OK)
		/* created only where it is missing: a database that is
		 * migrated already may be read-only now, or its role one
		 * that may not create tables (CREATE TABLE IF NOT EXISTS
		 * would be refused even so); the write probe after the
		 * migration says what then */
		rc = exec(pq,
			  "SET client_min_messages = warning; "
			  "DO $$BEGIN IF to_regclass('schema_version') IS NULL "
			  "THEN CREATE TABLE schema_version ("
			  "version integer PRIMARY KEY, name text NOT NULL, "
			  "applied_at timestamptz NOT NULL DEFAULT now()); "
			  "END IF; END$$",
			  timeout_ms, err, errlen);
	int have = rc == STORE_OK ? db_version(pq, timeout_ms, err, errlen) : 0;
	if (rc == STORE_OK && have < 0)
		rc = have;
	if (rc == STORE_OK && have > newest) {
		snprintf(err, errlen,
			 "the database's schema is version %d, newer than "
			 "this cubed knows (%d, in %s): run a newer cubed, or "
			 "point --db at another database",
			 have, newest, dir);
		rc = STORE_SCHEMA;
	}
	for (int v = have + 1; rc == STORE_OK && v <= newest; v++) {
		const char *name = f.names[v - 1];
		char *sql = schema_files_read(&f, v, err, errlen);
		if (!sql) {
			rc = STORE_ERROR;
			break;
		}
		char record[512];
		snprintf(record, sizeof record,
			 "INSERT INTO schema_version (version, name) "
			 "VALUES (%d, '%s')",
			 v, name);
		rc = exec(pq, "BEGIN", timeout_ms, err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, sql, MIGRATE_FILE_MS, err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, record, timeout_ms, err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, "COMMIT", timeout_ms, err, errlen);
		free(sql);
		if (rc != STORE_OK) {
			char why[512];
			snprintf(why, sizeof why, "%s", err);
			snprintf(err, errlen, "migration %s: %s", name, why);
			/* (a connection that timed out is closed by the
			 * caller, which rolls back) */
			if (rc == STORE_ERROR)
				exec(pq, "ROLLBACK", timeout_ms, why,
				     sizeof why);
		}
	}
	if (rc == STORE_OK)
		*version = newest;
	if (locked && rc != STORE_UNAVAILABLE) {
		char why[300];
		exec(pq, "SELECT pg_advisory_unlock(" MIGRATE_LOCK ")",
		     timeout_ms, why, sizeof why);
	}
	schema_files_free(&f);
	return rc;
}
