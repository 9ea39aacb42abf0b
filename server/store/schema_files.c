/* schema_files.c — the walk over a schema directory that both store
 * engines' migration runners share (schema_files.h): which files there
 * are, that their numbers run 001, 002, … without a gap, and reading one.
 * What to do with them (one transaction or one per file, where the
 * version is kept) stays with each engine. */
#include "schema_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 999 /* NNN */

/* NNN_[a-z0-9_.]*.sql */
static int migration_name(const char *n)
{
	size_t len = strlen(n);
	if (len < 8 || n[3] != '_' || strcmp(n + len - 4, ".sql") != 0)
		return 0;
	for (int i = 0; i < 3; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	for (const char *c = n; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= '0' && *c <= '9') &&
		    *c != '_' && *c != '.')
			return 0;
	return 1;
}

void schema_files_free(struct schema_files *f)
{
	for (int i = 0; f->names && i < MAX_FILES; i++)
		free(f->names[i]);
	free(f->names);
	free(f->dir);
	memset(f, 0, sizeof *f);
}

int schema_files_list(const char *dir, struct schema_files *out, char *err,
		      size_t errlen)
{
	memset(out, 0, sizeof *out);
	out->names = calloc(MAX_FILES, sizeof *out->names);
	out->dir = strdup(dir);
	if (!out->names || !out->dir) {
		snprintf(err, errlen, "out of memory");
		schema_files_free(out);
		return -1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, errlen, "cannot read the schema directory %s: %s",
			 dir, strerror(errno));
		schema_files_free(out);
		return -1;
	}
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (!migration_name(n))
			continue;
		int v = atoi(n);
		if (v < 1) {
			snprintf(err, errlen, "%s/%s: migrations count from 001",
				 dir, n);
			rc = -1;
		} else if (out->names[v - 1]) {
			snprintf(err, errlen, "%s: two migrations numbered "
					      "%03d (%s, %s)",
				 dir, v, out->names[v - 1], n);
			rc = -1;
		} else if (!(out->names[v - 1] = strdup(n))) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		} else if (v > out->count) {
			out->count = v;
		}
	}
	closedir(d);
	for (int v = 1; rc == 0 && v <= out->count; v++)
		if (!out->names[v - 1]) {
			snprintf(err, errlen,
				 "migration %03d is missing from %s (the "
				 "files must be numbered 001, 002, … without "
				 "a gap)",
				 v, dir);
			rc = -1;
		}
	if (rc != 0)
		schema_files_free(out);
	return rc;
}

char *schema_files_read(const struct schema_files *f, int v, char *err,
			size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", f->dir, f->names[v - 1]);
	FILE *in = fopen(path, "rb");
	if (!in) {
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
				fclose(in);
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, 4096, in);
		len += got;
		if (got < 4096)
			break;
	}
	int bad = ferror(in);
	fclose(in);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "cannot read %s", path);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}
