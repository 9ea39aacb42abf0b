/* store_pg_migrate.c — the PostgreSQL engine's migrations: the files
 * schema/pg/NNN_name.sql, applied in order at open. Each file runs in its
 * own transaction together with the row that records it in schema_version
 * (one row per applied file), so a crash leaves the database at a whole
 * version. A session-level advisory lock serialises nodes that start at
 * the same time: the second waits, then finds nothing left to do. A
 * database whose schema_version is higher than the newest file is refused
 * with a sentence saying so: this binary would not know its tables. */
#include "store_pg_migrate.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

/* pg_advisory_lock key: "cubed" in ASCII */
#define MIGRATE_LOCK "109117098101100"
#define MAX_FILES 999

static int exec(PGconn *pq, const char *sql, char *err, size_t errlen)
{
	PGresult *r = PQexec(pq, sql);
	ExecStatusType s = PQresultStatus(r);
	int ok = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
	if (!ok) {
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

static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* names[NNN] = the file of version NNN (malloc'd), *newest the highest. */
static int list_files(const char *dir, char **names, int *newest, char *err,
		      size_t errlen)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "cannot open the migrations in %s: %s",
			 dir, strerror(errno));
		return STORE_ERROR;
	}
	struct dirent *de;
	*newest = 0;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (len < 9 || n[0] < '0' || n[0] > '9' || n[1] < '0' ||
		    n[1] > '9' || n[2] < '0' || n[2] > '9' || n[3] != '_' ||
		    strcmp(n + len - 4, ".sql") != 0)
			continue;
		int safe = 1; /* the name goes into SQL text */
		for (const char *c = n; *c; c++)
			if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') &&
			    *c != '_' && *c != '.')
				safe = 0;
		int v = atoi(n);
		if (!safe)
			continue;
		if (v < 1 || v > MAX_FILES || names[v])
			continue;
		names[v] = strdup(n);
		if (v > *newest)
			*newest = v;
	}
	closedir(d);
	for (int v = 1; v <= *newest; v++)
		if (!names[v]) {
			snprintf(err, errlen,
				 "migration %03d is missing from %s", v, dir);
			return STORE_ERROR;
		}
	return STORE_OK;
}

int pg_migrate(PGconn *pq, const char *schema_dir, int *version, char *err,
	       size_t errlen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/pg", schema_dir);
	char **names = calloc(MAX_FILES + 1, sizeof *names);
	if (!names) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	int newest = 0, locked = 0;
	int rc = list_files(dir, names, &newest, err, errlen);
	if (rc == STORE_OK)
		rc = exec(pq, "SELECT pg_advisory_lock(" MIGRATE_LOCK ")", err,
			  errlen);
	locked = rc == STORE_OK;
	if (rc == STORE_OK)
		rc = exec(pq,
			  "SET client_min_messages = warning; "
			  "CREATE TABLE IF NOT EXISTS schema_version ("
			  "version integer PRIMARY KEY, name text NOT NULL, "
			  "applied_at timestamptz NOT NULL DEFAULT now())",
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
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[v]);
		char *sql = slurp(path, err, errlen);
		if (!sql) {
			rc = STORE_ERROR;
			break;
		}
		char record[512];
		snprintf(record, sizeof record,
			 "INSERT INTO schema_version (version, name) "
			 "VALUES (%d, '%s')",
			 v, names[v]);
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
			snprintf(err, errlen, "migration %s: %s", names[v], why);
			PQclear(PQexec(pq, "ROLLBACK"));
		}
	}
	if (rc == STORE_OK)
		*version = newest;
	if (locked)
		PQclear(PQexec(pq, "SELECT pg_advisory_unlock(" MIGRATE_LOCK
				   ")"));
	for (int v = 0; v <= MAX_FILES; v++)
		free(names[v]);
	free(names);
	return rc;
}
