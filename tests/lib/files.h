/* files.h — what the suites read back from disk: a whole file, and a
 * SQLite database's own consistency checks. The assertions are Check's:
 * call these from inside tests. */
#ifndef CUBED_TEST_FILES_H
#define CUBED_TEST_FILES_H

#include <stddef.h>
#include <sqlite3.h>

/* The whole file at path, malloc'd (free it), with a NUL after its
 * bytes; their count in *len when len is not NULL. The test fails when
 * the file cannot be opened or read whole. */
void *read_whole(const char *path, size_t *len);

/* PRAGMA integrity_check of db answers "ok" and PRAGMA
 * foreign_key_check finds no row (asserted). */
void sqlite_consistent(sqlite3 *db);

#endif
