/* store_pg_migrate.c — the PostgreSQL engine's migrations: the files
 * schema/pg/NNN_name.sql, applied in order at open. Each file runs in its
 * own transaction together with the row that records it in schema_version
 * (one row per applied file), so a crash leaves the database at a whole
 * version. A session-level advisory lock serialises nodes that start at
 * the same time: the second waits, then finds nothing left to do. A
 * database whose schema_version is higher than the newest file is refused
 * with a sentence saying so: this binary would not know its tables. */
#include "store_pg_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_files.h"
#include "store.h"

/* pg_advisory_lock key: "cubed" in ASCII */
#define MIGRATE_LOCK "109117098101100"

static int exec(PGconn *pq, const char *sql, char *err, size_t errlen)
{
	PGresult *r = PQexec(pq, sql);
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
	PQclear(r);
	return ok ? STORE_OK : STORE_ERROR;
}

/* The newest version recorded, 0 for a new database, -1 on error. */
static int db_version(PGconn *pq, char *err, size_t errlen)
{
	PGresult *r = PQexec(pq, "SELECT coalesce(max(version), 0) "
				 "FROM schema_version");
	int v = -1;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		v = atoi(PQgetvalue(r, 0, 0));
	else
		snprintf(err, errlen, "%s", PQresultErrorMessage(r));
	PQclear(r);
	return v;
}

int pg_migrate(PGconn *pq, const char *schema_dir, int *version, char *err,
	       size_t errlen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/pg", schema_dir);
	struct schema_files f;
	if (schema_files_list(dir, &f, err, errlen) != 0)
		return STORE_ERROR;
	int newest = f.count;
	int rc = exec(pq, "SELECT pg_advisory_lock(" MIGRATE_LOCK ")", err,
		      errlen);
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
			  err, errlen);
	int have = rc == STORE_OK ? db_version(pq, err, errlen) : -1;
	if (rc == STORE_OK && have < 0)
		rc = STORE_ERROR;
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
		rc = exec(pq, "BEGIN", err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, sql, err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, record, err, errlen);
		if (rc == STORE_OK)
			rc = exec(pq, "COMMIT", err, errlen);
		free(sql);
		if (rc != STORE_OK) {
			char why[512];
			snprintf(why, sizeof why, "%s", err);
			snprintf(err, errlen, "migration %s: %s", name, why);
			PQclear(PQexec(pq, "ROLLBACK"));
		}
	}
	if (rc == STORE_OK)
		*version = newest;
	if (locked)
		PQclear(PQexec(pq, "SELECT pg_advisory_unlock(" MIGRATE_LOCK
				   ")"));
	schema_files_free(&f);
	return rc;
}
