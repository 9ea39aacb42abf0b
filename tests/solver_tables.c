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

/* The reductions' phase tables (4×4, 5×5): their check, size, work and
 * build by which (4 or 5). */
static int check_phases(const unsigned char *t, size_t size, int which)
{
	return which == 4 ? reduce_four_tables_check(t, size)
			  : reduce_five_tables_check(t, size);
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

static unsigned char *phases_cached(const char *who, int which)
{
	size_t size = which == 4 ? reduce_four_tables_size()
				 : reduce_five_tables_size();
	size_t ws = which == 4 ? reduce_four_tables_work_size()
			       : reduce_five_tables_work_size();
	const char *file = which == 4 ? "cubed-tables-4x4.bin"
				      : "cubed-tables-5x5.bin";
	unsigned char *t = solver_tables_alloc(who, size);
	char path[1024];
	if (cache_read(file, path, sizeof path, t, size, check_phases, which))
		return t;
	void *work = malloc(ws);
	if (!work)
		solver_tables_require(who, "phase tables' work", CUBE_EINVAL);
	int rc = which == 4 ? reduce_four_tables_build(t, size, work, ws, NULL)
			    : reduce_five_tables_build(t, size, work, ws, NULL);
	solver_tables_require(who, which == 4 ? "4x4" : "5x5", rc);
	free(work);
	cache_write(path, t, size);
	return t;
}

unsigned char *solver_tables_four_cached(const char *who)
{
	return phases_cached(who, 4);
}

unsigned char *solver_tables_five_cached(const char *who)
{
	return phases_cached(who, 5);
}
