/* store_sqlite_migrate.h — the SQLite engine's migrations (store_sqlite.c
 * calls this once at open). */
#ifndef CUBED_STORE_SQLITE_MIGRATE_H
#define CUBED_STORE_SQLITE_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

/* Bring the database behind db (a file called path, for messages) to the
 * newest schema in dir: every NNN_name.sql after PRAGMA user_version in
 * order, and the steps in C that some need, in one transaction.
 * *version receives the schema version it is at. Returns STORE_OK,
 * STORE_SCHEMA (the database is newer than dir knows) or STORE_ERROR,
 * with a sentence in err. */
int sqlite_migrate(sqlite3 *db, const char *path, const char *dir,
		   int *version, char *err, size_t errlen);

#endif
