/* run_tests.c — the one test runner: every Check suite, one closing
 * summary line. Check's own CK_RUN_SUITE=name / CK_RUN_CASE=name select a
 * part, CUBED_SUITES / CUBED_SKIP_SUITES a set of suites (main); each
 * test runs in its own process (Check's fork mode) so a crash
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
 * on it (each server gets a database of its own: http_faults' hostile
 * clients too, its SQLite-only storage cases skipped with a word), with
 * the two-node and the fault suites. */
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
	srunner_add_suite(sr, http_timed_suite());
	srunner_add_suite(sr, http_races_suite());
	srunner_add_suite(sr, http_live_suite());
	srunner_add_suite(sr, barrage_suite());
	srunner_add_suite(sr, crash_suite());
	srunner_add_suite(sr, http_faults_suite());
	srunner_add_suite(sr, pg_nodes_suite());
	srunner_add_suite(sr, pg_drain_suite());
	srunner_add_suite(sr, pg_live_suite());
	srunner_add_suite(sr, pg_faults_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The everyday suites, in the order they run. optimal_slow only with
 * CUBED_SLOW=1 (make test-slow). */
static const struct {
	const char *name; /* as the suite's suite_create names it */
	Suite *(*make)(void);
	int slow_only;
} everyday[] = {
	{"cube", cube_suite, 0},
	{"alg", alg_suite, 0},
	{"model", model_suite, 0},
	{"render", render_suite, 0},
	{"index", index_suite, 0},
	{"cubie", cubie_suite, 0},
	{"validate", validate_suite, 0},
	{"store", store_suite, 0},
	{"sessions", sessions_suite, 0},
	{"upgrade", upgrade_suite, 0},
	{"pattern", pattern_suite, 0},
	{"solve", solve_suite, 0},
	{"optimal", optimal_suite, 0},
	{"optimal_slow", optimal_slow_suite, 1},
	{"dataset", dataset_suite, 0},
	{"beginner", beginner_suite, 0},
	{"reduce", reduce_suite, 0},
	{"api", api_suite, 0},
	{"static", static_suite, 0},
	{"http", http_suite, 0},
	{"http_sessions", http_sessions_suite, 0},
	{"http_timed", http_timed_suite, 0},
	{"http_races", http_races_suite, 0},
	{"http_solve", http_solve_suite, 0},
	{"http_jobs", http_jobs_suite, 0},
	{"http_dataset", http_dataset_suite, 0},
	{"solve_pool", solve_pool_suite, 0},
	{"http_fair", http_fair_suite, 0},
	{"http_beginner", http_beginner_suite, 0},
	{"http_live", http_live_suite, 0},
	{"client_limits", client_limits_suite, 0},
	{"limits", limits_suite, 0},
	{"codec", codec_suite, 0},
	{"http_protocol", http_protocol_suite, 0},
	{"barrage", barrage_suite, 0},
	{"crash", crash_suite, 0},
	{"http_faults", http_faults_suite, 0},
	{"http_edges", http_edges_suite, 0},
	{"drain", drain_suite, 0},
};
#define NEVERYDAY (sizeof everyday / sizeof everyday[0])

/* Is name one of the space-separated words of list? */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t");
		size_t w = strcspn(p, " \t");
		if (w == n && strncmp(p, name, n) == 0)
			return 1;
		p += w;
	}
	return 0;
}

/* Every word of list (an environment variable's value, named var) must be
 * a suite of the table: a misspelt name would otherwise run nothing, or
 * skip nothing, without a word. 0, or -1 after saying which. */
static int check_names(const char *var, const char *list)
{
	int bad = 0;
	for (const char *p = list; *p;) {
		p += strspn(p, " \t");
		size_t w = strcspn(p, " \t");
		if (w == 0)
			break;
		size_t i = 0;
		while (i < NEVERYDAY && !(strlen(everyday[i].name) == w &&
					  strncmp(everyday[i].name, p, w) == 0))
			i++;
		if (i == NEVERYDAY) {
			fprintf(stderr, "%s: no suite named %.*s\n", var, (int)w,
				p);
			bad = 1;
		}
		p += w;
	}
	return bad ? -1 : 0;
}

/* CUBED_SUITES="a b" runs only those suites, CUBED_SKIP_SUITES="a b" all
 * but those (make test runs the suites as two such halves at once, so
 * every suite runs exactly once whatever the lists say). Check's
 * CK_RUN_SUITE and CK_RUN_CASE still narrow further. */
int main(void)
{
	/* the servers the suites start stop at once, as before --drain-s
	 * (5 s by default); a case about the drain passes its own */
	setenv("CUBED_DRAIN_S", "0", 0);
	const char *db = getenv("CUBED_TEST_DB");
	if (db && strcmp(db, "pg") == 0)
		return run_pg();
	const char *only = getenv("CUBED_SUITES");
	const char *skip = getenv("CUBED_SKIP_SUITES");
	if ((only && check_names("CUBED_SUITES", only) < 0) ||
	    (skip && check_names("CUBED_SKIP_SUITES", skip) < 0))
		return 2;
	int slow = getenv("CUBED_SLOW") != NULL;
	SRunner *sr = NULL;
	for (size_t i = 0; i < NEVERYDAY; i++) {
		if ((everyday[i].slow_only && !slow) ||
		    (only && !listed(only, everyday[i].name)) ||
		    (skip && listed(skip, everyday[i].name)))
			continue;
		Suite *su = everyday[i].make();
		if (sr)
			srunner_add_suite(sr, su);
		else
			sr = srunner_create(su);
	}
	if (!sr) {
		/* the test graph's last unit runs whatever suite its list
		 * does not name (CUBED_NONE_OK=1): usually none */
		const char *ok = getenv("CUBED_NONE_OK");
		fprintf(stderr, "no suite left to run\n");
		return ok && *ok == '1' ? 0 : 2;
	}
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
