/* run_tests.c — the one test runner: every Check suite, one closing
 * summary line. Check's own CK_RUN_SUITE=name / CK_RUN_CASE=name select a
 * part; each test runs in its own process (Check's fork mode) so a crash
 * fails one test, not the run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_cluster.h"
#include "suites.h"

static struct pg_cluster cluster;
static pid_t runner;

/* At exit of the runner only: Check forks every test, and the test
 * processes exit too. */
static void stop_cluster(void)
{
	if (getpid() == runner)
		pg_cluster_destroy(&cluster);
}

/* CUBED_TEST_DB=pg (make test-pg): a private PostgreSQL cluster for this
 * run, and the suites that talk to a store through the server run again
 * on it (each server gets a database of its own), with the two-node
 * suite. */
static int run_pg(void)
{
	char err[1024];
	if (pg_cluster_start(&cluster, 0, err, sizeof err) != 0) {
		fprintf(stderr, "cannot start a PostgreSQL cluster: %s\n", err);
		return EXIT_FAILURE;
	}
	runner = getpid();
	atexit(stop_cluster);
	setenv("CUBED_TEST_PG", cluster.url, 1);
	setenv("CUBED_TEST_PG_DIR", cluster.dir, 1);
	SRunner *sr = srunner_create(pg_store_suite());
	srunner_add_suite(sr, http_sessions_suite());
	srunner_add_suite(sr, http_live_suite());
	srunner_add_suite(sr, barrage_suite());
	srunner_add_suite(sr, crash_suite());
	srunner_add_suite(sr, pg_nodes_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(void)
{
	const char *db = getenv("CUBED_TEST_DB");
	if (db && strcmp(db, "pg") == 0)
		return run_pg();
	SRunner *sr = srunner_create(cube_suite());
	srunner_add_suite(sr, alg_suite());
	srunner_add_suite(sr, model_suite());
	srunner_add_suite(sr, render_suite());
	srunner_add_suite(sr, index_suite());
	srunner_add_suite(sr, cubie_suite());
	srunner_add_suite(sr, validate_suite());
	srunner_add_suite(sr, store_suite());
	srunner_add_suite(sr, sessions_suite());
	srunner_add_suite(sr, upgrade_suite());
	srunner_add_suite(sr, pattern_suite());
	srunner_add_suite(sr, solve_suite());
	srunner_add_suite(sr, optimal_suite());
	if (getenv("CUBED_SLOW")) /* make test-slow */
		srunner_add_suite(sr, optimal_slow_suite());
	srunner_add_suite(sr, beginner_suite());
	srunner_add_suite(sr, reduce_suite());
	srunner_add_suite(sr, api_suite());
	srunner_add_suite(sr, static_suite());
	srunner_add_suite(sr, http_suite());
	srunner_add_suite(sr, http_sessions_suite());
	srunner_add_suite(sr, http_solve_suite());
	srunner_add_suite(sr, http_jobs_suite());
	srunner_add_suite(sr, solve_pool_suite());
	srunner_add_suite(sr, http_fair_suite());
	srunner_add_suite(sr, http_beginner_suite());
	srunner_add_suite(sr, http_live_suite());
	srunner_add_suite(sr, client_limits_suite());
	srunner_add_suite(sr, limits_suite());
	srunner_add_suite(sr, eco_suite());
	srunner_add_suite(sr, http_eco_suite());
	srunner_add_suite(sr, barrage_suite());
	srunner_add_suite(sr, crash_suite());
	srunner_add_suite(sr, hostile_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
