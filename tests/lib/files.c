/* files.c — see files.h. */
#include "files.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

void *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	ck_assert_msg(n >= 0, "cannot size %s", path);
	char *b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b[n] = '\0';
	if (len)
		*len = (size_t)n;
	return b;
}

void sqlite_consistent(sqlite3 *db)
{
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
					    &s, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "ok");
	sqlite3_finalize(s);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1,
					    &s, NULL),
			 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
}
