/* solver_tables.h — the solver tables the core suites need, made once in
 * an unchecked fixture in the runner's own process, so that every forked
 * test inherits them copy-on-write and the seconds of set-up are paid
 * once.
 *
 * An unchecked fixture cannot fail a test: when a table cannot be had
 * (out of memory, an init that fails) these print why to stderr, naming
 * the suite who, and exit the runner. Every buffer is malloc'd and kept
 * for the runner's life. */
#ifndef CUBED_TEST_SOLVER_TABLES_H
#define CUBED_TEST_SOLVER_TABLES_H

#include <stddef.h>

/* size bytes for a table. */
unsigned char *solver_tables_alloc(const char *who, size_t size);

/* rc, what a *_table_init returned for the tables named what, must be
 * CUBE_OK. */
void solver_tables_require(const char *who, const char *what, int rc);

/* The two-phase tables (twophase_table_size() bytes): read from
 * $CUBED_TABLES/cubed-tables-3x3.bin, the cache the servers of `make
 * test` share, when that file is there and checks, else built (seconds). */
unsigned char *solver_tables3_cached(const char *who);

/* The optimal solver's tables of level (optimal_table_size bytes): read
 * from $CUBED_TABLES/cubed-optimal-<level>.bin — the file servers with
 * --tables $CUBED_TABLES load — when it is there and checks, else built
 * and written there (to a temporary name, then renamed), so that the
 * servers of the HTTP suites find them. */
unsigned char *solver_tables_optimal_cached(const char *who, int level);

/* The 4×4 three-phase tables (reduce_four_tables_size() bytes, about
 * 140 MB): read from $CUBED_TABLES/cubed-tables-4x4.bin — the file a
 * server with --tables $CUBED_TABLES loads — when it is there and
 * checks, else built (about a minute) and written there. */
unsigned char *solver_tables_four_cached(const char *who);

/* The 5×5 five-phase tables (reduce_five_tables_size() bytes, about
 * 440 MB), likewise from $CUBED_TABLES/cubed-tables-5x5.bin (about 35 s
 * to build). */
unsigned char *solver_tables_five_cached(const char *who);

#endif
