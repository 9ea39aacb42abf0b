/* solver_tables.c — making the solver tables for the core suites (see
 * solver_tables.h). */
#include "solver_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cube.h"
#include "optimal.h"
#include "reduce.h"
#include "solve.h"

unsigned char *solver_tables_alloc(const char *who, size_t size)
{
	unsigned char *t = malloc(size);
	if (!t) {
		fprintf(stderr, "%s: out of memory for %zu bytes of tables\n",
			who, size);
		exit(1);
	}
	return t;
}

void solver_tables_require(const char *who, const char *what, int rc)
{
	if (rc != CUBE_OK) {
		fprintf(stderr, "%s: %s table init failed: %s\n", who, what,
			solve_errname(rc));
		exit(1);
	}
}

unsigned char *solver_tables3_cached(const char *who)
{
	size_t size = twophase_table_size();
	unsigned char *t = solver_tables_alloc(who, size);
	const char *dir = getenv("CUBED_TABLES");
	if (dir && *dir) {
		char path[1024];
		snprintf(path, sizeof path, "%s/cubed-tables-3x3.bin", dir);
		FILE *f = fopen(path, "rb");
		size_t got = f ? fread(t, 1, size, f) : 0;
		if (f)
			fclose(f);
		if (got == size && twophase_table_check(t, size) == CUBE_OK)
			return t;
	}
	solver_tables_require(who, "two-phase",
			      twophase_table_init(t, size, NULL, NULL));
	return t;
}

/* $CUBED_TABLES/name into path (empty when unset), and the file read
 * into t when it holds size bytes that check accepts. */
static int cache_read(const char *name, char *path, size_t pathlen,
		      unsigned char *t, size_t size,
		      int (*check)(const unsigned char *, size_t, int), int arg)
{
	const char *dir = getenv("CUBED_TABLES");
	path[0] = '\0';
	if (!dir || !*dir)
		return 0;
	snprintf(path, pathlen, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(t, 1, size, f) : 0;
	if (f)
		fclose(f);
	return got == size && check(t, size, arg) == CUBE_OK;
}

/* t written to path (when set) under a temporary name, then renamed. */
static void cache_write(const char *path, const unsigned char *t, size_t size)
{
	if (!path[0])
		return;
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	int ok = f && fwrite(t, 1, size, f) == size;
	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok || rename(tmp, path) != 0)
		remove(tmp);
}

static int check_optimal(const unsigned char *t, size_t size, int level)
{
	return optimal_table_check(t, size, level);
}

static int check_four(const unsigned char *t, size_t size, int unused)
{
	(void)unused;
	return reduce_four_tables_check(t, size);
}

unsigned char *solver_tables_optimal_cached(const char *who, int level)
{
	size_t size = optimal_table_size(level);
	unsigned char *t = solver_tables_alloc(who, size);
	char name[64], path[1024];
	snprintf(name, sizeof name, "cubed-optimal-%d.bin", level);
	if (cache_read(name, path, sizeof path, t, size, check_optimal, level))
		return t;
	solver_tables_require(who, "optimal",
			      optimal_table_init(t, size, level, NULL, NULL));
	cache_write(path, t, size);
	return t;
}

unsigned char *solver_tables_four_cached(const char *who)
{
	size_t size = reduce_four_tables_size();
	unsigned char *t = solver_tables_alloc(who, size);
	char path[1024];
	if (cache_read("cubed-tables-4x4.bin", path, sizeof path, t, size,
		       check_four, 0))
		return t;
	size_t ws = reduce_four_tables_work_size();
	void *work = malloc(ws);
	if (!work)
		solver_tables_require(who, "4x4 work", CUBE_EINVAL);
	solver_tables_require(who, "4x4",
			      reduce_four_tables_build(t, size, work, ws, NULL));
	free(work);
	cache_write(path, t, size);
	return t;
}
