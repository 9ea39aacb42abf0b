/* run_tests.c — the one test runner: every Check suite, one closing
 * summary line. Check's own CK_RUN_SUITE=name / CK_RUN_CASE=name select a
 * part; each test runs in its own process (Check's fork mode) so a crash
 * fails one test, not the run. */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
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
