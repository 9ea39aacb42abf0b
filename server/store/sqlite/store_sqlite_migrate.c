/* store_sqlite_migrate.c — the SQLite engine's migrations: the schema/
 * files NNN_name.sql applied in order in one transaction at open, tracked
 * by PRAGMA user_version, and the steps SQL cannot do, run in C between
 * two files inside that transaction. One such step today: after 005, the
 * schema-4 event text (the pending column, event_blocks: a format only
 * migrate_evlog.c still reads) is expanded into rows of event_rows, which
 * 006 then makes the events table. A database newer than the files is
 * refused. */
#include "store_sqlite_migrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_evlog.h"
#include "schema_files.h"
#include "store.h"

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return STORE_ERROR;
	}
	return STORE_OK;
}

/* ---------------------------------------- after 005: schema-4 text → rows */

/* Insert every record of text [p, end) of session id into event_rows.
 * A record that does not decode, or a version already there, fails the
 * migration: the upgrade never drops or invents an event. */
static int expand_text(sqlite3 *db, sqlite3_stmt *ins, const char *id,
		       const char *p, const char *end, long long *rows,
		       char *err, size_t errlen)
{
	struct evlog_record r;
	int got;
	while ((got = evlog_next(&p, end, &r)) == 1) {
		sqlite3_bind_text(ins, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 2, r.version);
		sqlite3_bind_text(ins, 3, r.type, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, r.moves, -1, SQLITE_STATIC);
		if (r.actor)
			sqlite3_bind_text(ins, 5, r.actor, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 5);
		sqlite3_bind_int64(ins, 6, r.created_at);
		sqlite3_bind_int64(ins, 7, r.ref);
		sqlite3_bind_int64(ins, 8, r.link);
		int rc = sqlite3_step(ins);
		sqlite3_reset(ins);
		sqlite3_clear_bindings(ins);
		if (rc != SQLITE_DONE) {
			snprintf(err, errlen,
				 "session %s, version %lld of its schema-4 "
				 "event text: %s",
				 id, (long long)r.version, sqlite3_errmsg(db));
			evlog_record_free(&r);
			return STORE_ERROR;
		}
		evlog_record_free(&r);
		(*rows)++;
	}
	if (got < 0) {
		snprintf(err, errlen,
			 "session %s: its schema-4 event text is malformed "
			 "(or memory ran out reading it)",
			 id);
		return STORE_ERROR;
	}
	return STORE_OK;
}

static int expand_v4_text(sqlite3 *db, char *err, size_t errlen)
{
	static const char *const sources =
		"SELECT session_id, events FROM event_blocks "
		"UNION ALL SELECT id, pending FROM sessions "
		"WHERE pending IS NOT NULL";
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int rc = STORE_ERROR;
	long long rows = 0;
	if (sqlite3_prepare_v2(db, sources, -1, &sel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "INSERT INTO event_rows (session_id, version, "
			       "kind, moves, actor, created_at, ref, link) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			       -1, &ins, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	int step;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(sel, 0);
		const char *text = (const char *)sqlite3_column_text(sel, 1);
		int len = sqlite3_column_bytes(sel, 1);
		if (!id || !text) {
			snprintf(err, errlen, "an event text without a session");
			goto out;
		}
		if (expand_text(db, ins, id, text, text + len, &rows, err,
				errlen) != STORE_OK)
			goto out;
	}
	if (step != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	rc = STORE_OK;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}

/* Steps in C, each run right after the file of its number. */
static const struct {
	int after;
	int (*run)(sqlite3 *db, char *err, size_t errlen);
} steps[] = {
	{5, expand_v4_text},
};

/* Apply files have+1 .. known (names[have .. known-1]) and their steps. */
static int apply(sqlite3 *db, const struct schema_files *f, int have,
		 int known, char *err, size_t errlen)
{
	char **names = f->names;
	for (int i = have; i < known; i++) {
		char *sql = schema_files_read(f, i + 1, err, errlen);
		if (!sql)
			return STORE_ERROR;
		char e2[200];
		int rc = exec(db, sql, e2, sizeof e2);
		free(sql);
		for (size_t k = 0; rc == STORE_OK &&
				   k < sizeof steps / sizeof steps[0];
		     k++)
			if (steps[k].after == i + 1)
				rc = steps[k].run(db, e2, sizeof e2);
		if (rc != STORE_OK) {
			snprintf(err, errlen, "migration %s failed: %s",
				 names[i], e2);
			return rc;
		}
	}
	char pragma[64];
	snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d", known);
	return exec(db, pragma, err, errlen);
}

int sqlite_migrate(sqlite3 *db, const char *path, const char *dir,
		   int *version, char *err, size_t errlen)
{
	struct schema_files f;
	if (schema_files_list(dir, &f, err, errlen) != 0)
		return STORE_ERROR;
	int rc = STORE_OK, known = f.count;
	sqlite3_stmt *s = NULL;
	int have = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		have = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	*version = have;
	if (have > known) {
		snprintf(err, errlen,
			 "the database %s has schema version %d, newer than "
			 "this cubed knows (%d): refusing to open it; use a "
			 "newer cubed",
			 path, have, known);
		rc = STORE_SCHEMA;
		goto done;
	}
	if (have == known)
		goto done;
	if ((rc = exec(db, "BEGIN IMMEDIATE", err, errlen)) != STORE_OK)
		goto done;
	rc = apply(db, &f, have, known, err, errlen);
	if (rc == STORE_OK)
		rc = exec(db, "COMMIT", err, errlen);
	if (rc != STORE_OK) {
		char ignored[64];
		exec(db, "ROLLBACK", ignored, sizeof ignored);
	} else {
		*version = known;
	}
done:
	schema_files_free(&f);
	return rc;
}
