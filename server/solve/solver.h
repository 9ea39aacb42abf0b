/* solver.h — the solver tables of a running server: built (or loaded from
 * a cache file beside the database) by a background thread at start-up,
 * so no request ever waits on seconds of set-up or sees a half-built
 * table. Until a table is ready, requests that need it get 503 with
 * Retry-After. */
#ifndef CUBED_SOLVER_H
#define CUBED_SOLVER_H

#include <stddef.h>

struct solver;

enum solver_table { SOLVER_3X3, SOLVER_2X2, SOLVER_NTABLES };

/* How the optimal solver's tables are had: their level (optimal.h), how
 * many threads build them, and whether to start at once rather than at
 * the first solver_optimal call. */
struct solver_options {
	int optimal_level;
	int optimal_threads;
	int optimal_preload;
	int no_four; /* 1: never the 4×4 three-phase tables (--solver-4x4 0) */
	int no_five; /* 1: never the 5×5 five-phase tables (--solver-5x5 0) */
	int warm;    /* 1: the big cubes', near, 4×4 and 5×5 tables loaded or
		      * built at start, at a low priority (--solver-warm),
		      * not when a solve first asks for them */
};

/* Start the background thread. Tables are cached as files in dir (created
 * if missing); a file that fails its checksum is rebuilt. solver_start
 * takes the defaults (level 2, one builder thread, not preloaded). */
struct solver *solver_start(const char *dir);
struct solver *solver_start_opts(const char *dir, const struct solver_options *o);
/* Cancel a build in progress, wait for the thread, free the tables. */
void solver_stop(struct solver *s);

/* The table, or NULL while it is not ready (or failed). */
const void *solver_table(struct solver *s, enum solver_table t);

/* The big cubes' tables (reduce_stage_tables_build: the staged center
 * search's and the bars' macros), or NULL until the thread has them:
 * the first call asks it to load them from dir (cubed-tables-nxn.bin)
 * or build them there, after the two tables above (most servers never
 * solve a big cube, so none pays 30 MB and 0.6 s of CPU unasked).
 * reduce_solve builds what it needs per call meanwhile, and gives the
 * same answers either way. */
const void *solver_stage_tables(struct solver *s);

/* Their state as solver_status says it, and "absent" until a solve has
 * asked for them (s not NULL). */
void solver_stage_status(struct solver *s, const char **state,
			 int *percent, const char **reason);

/* The 4×4 three-phase tables (reduce_four_tables_build), or NULL until
 * the thread has them: the first call asks it to load them from dir
 * (cubed-tables-4x4.bin) or build them there (about a minute of one
 * core). Until then a 4×4 is solved stage by stage (about 53 moves
 * where the three phases take about 43). */
const void *solver_four_tables(struct solver *s);
void solver_four_status(struct solver *s, const char **state, int *percent,
			const char **reason);

/* The 5×5 five-phase tables (reduce_five_tables_build), likewise
 * (cubed-tables-5x5.bin, about 440 MB and a minute of one core). Until
 * then a 5×5 is solved stage by stage (about 89 moves where the five
 * phases take about 74). */
const void *solver_five_tables(struct solver *s);
void solver_five_status(struct solver *s, const char **state, int *percent,
			const char **reason);

/* The near tables (the optimal solver's level 0, optimal.h: 80 MB, about
 * 20 s of one core to build; cubed-optimal-0.bin), or NULL: loaded or
 * built at start when the server is warm (solver_options.warm), never at
 * a solve's asking. With them a 3×3's default answer is optimal when the
 * state is near solved (solve_service.h). */
const void *solver_near(struct solver *s);
void solver_near_status(struct solver *s, const char **state, int *percent,
			const char **reason);

/* The beginner method's tables (beginner.h): small and built in tens of
 * milliseconds, so solver_start builds them before it returns and they
 * are never in a loading state; NULL only if that failed. */
const void *solver_beginner(struct solver *s);

/* "ready", "loading", "building", "failed" (and a percentage while
 * building; a reason when failed), for /readyz. */
void solver_status(struct solver *s, enum solver_table t, const char **state,
		   int *percent, const char **reason);

/* The optimal solver's tables, or NULL until they are ready: the first
 * call starts loading them from dir (cubed-optimal-<level>.bin) or
 * building them. */
const void *solver_optimal(struct solver *s);

/* The same, waiting until they are ready (the tables), failed or the
 * solver stops (NULL), or stop(ctx) says so (NULL; polled every 100 ms,
 * may be NULL). */
const void *solver_optimal_wait(struct solver *s, int (*stop)(void *ctx),
				void *ctx);

struct solver_optimal_info {
	const char *state; /* "absent" (not asked for yet), "loading",
			    * "building", "ready", "failed", "off" (no
			    * solver) */
	int percent;       /* while building */
	int level;
	size_t bytes;
	char reason[160];  /* when failed */
};
void solver_optimal_status(struct solver *s, struct solver_optimal_info *out);

/* The Retry-After (seconds) for a request that needs table t now: the
 * build's remaining time at its pace so far (1 to 60), 1 while loading,
 * and 0 — no Retry-After — when waiting will not help: no solver (s
 * NULL, --solver 0), the table ready, or its build failed. */
unsigned solver_retry_after(struct solver *s, enum solver_table t);

#endif
