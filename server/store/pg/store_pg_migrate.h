/* store_pg_migrate.h — the PostgreSQL engine's migrations (store_pg.c). */
#ifndef CUBED_STORE_PG_MIGRATE_H
#define CUBED_STORE_PG_MIGRATE_H

#include <libpq-fe.h>
#include <stddef.h>

/* Apply the pg/NNN_name.sql files of schema_dir newer than the database,
 * each in its own transaction, under an advisory lock (two nodes starting
 * at once migrate once). *version: the schema version after. STORE_SCHEMA (and a
 * sentence in err) when the database is newer than the files;
 * STORE_UNAVAILABLE (and why) when PostgreSQL did not answer within
 * timeout_ms (a migration file: within ten minutes) or another node
 * held the migration lock that long: the caller closes the connection
 * and tries again later. */
int pg_migrate(PGconn *pq, const char *schema_dir, int timeout_ms,
	       int *version, char *err, size_t errlen);

#endif
