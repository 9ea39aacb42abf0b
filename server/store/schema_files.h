/* schema_files.h — the migration files both store engines apply
 * (store_sqlite_migrate.c: schema/, store_pg_migrate.c: schema/pg/):
 * NNN_name.sql in one directory, numbered 001, 002, … without a gap. */
#ifndef CUBED_SCHEMA_FILES_H
#define CUBED_SCHEMA_FILES_H

#include <stddef.h>

struct schema_files {
	char *dir;
	int count;    /* the newest version: names[v - 1] is version v's */
	char **names;
};

/* The files of dir: 0, or -1 with the reason in err (the directory
 * cannot be read, a number is missing or taken twice, no memory). Names
 * other than NNN_[a-z0-9_.]*.sql are not migrations and are skipped (a
 * name goes into SQL text). */
int schema_files_list(const char *dir, struct schema_files *out, char *err,
		      size_t errlen);
void schema_files_free(struct schema_files *f);

/* The text of version v's file (malloc'd, NUL-terminated), or NULL with
 * the reason in err. */
char *schema_files_read(const struct schema_files *f, int v, char *err,
			size_t errlen);

#endif
