/* suites.h — every Check suite of the test runner, one per module. */
#ifndef CUBED_TEST_SUITES_H
#define CUBED_TEST_SUITES_H

#include <check.h>

Suite *cube_suite(void);   /* tests/unit/check_cube.c: the n×n×n engine */
Suite *alg_suite(void);    /* tests/unit/check_alg.c: notation, goldens */
Suite *model_suite(void);  /* tests/unit/check_model.c: engine vs an independent 3D sticker model */
Suite *render_suite(void); /* tests/unit/check_render.c: render and animation data */
Suite *index_suite(void);  /* tests/unit/check_index.c: unique index, features */
Suite *cubie_suite(void);  /* tests/unit/check_cubie.c: cubie model, conversions, orientations */
Suite *validate_suite(void); /* tests/unit/check_validate.c: validation, broken-cube goldens */
Suite *store_suite(void);  /* tests/unit/check_store.c: the row model, appends, replay bases */
Suite *sessions_suite(void); /* tests/unit/check_sessions.c: store and session rules, two nodes */
Suite *upgrade_suite(void); /* tests/unit/check_upgrade.c: a schema-4 database answers as before */
Suite *pattern_suite(void); /* tests/unit/check_pattern.c: pattern queries vs a brute-force matcher */
Suite *solve_suite(void);  /* tests/unit/check_solve.c: solvers, tables, scrambles */
Suite *optimal_suite(void); /* tests/unit/check_optimal.c: optimal 3×3 solver, brute-force proofs */
Suite *optimal_slow_suite(void); /* tests/unit/check_optimal.c: superflip (CUBED_SLOW=1, make test-slow) */
Suite *dataset_suite(void); /* tests/unit/check_dataset.c: labelled states in bulk, cubed dataset, NumPy */
Suite *beginner_suite(void); /* tests/unit/check_beginner.c: beginner stages, solving to a pattern */
Suite *reduce_suite(void); /* tests/unit/check_reduce.c: big cubes by reduction, parities */
Suite *api_suite(void);    /* tests/unit/check_api.c: api_handle through structs */
Suite *http_suite(void);   /* tests/http/check_http.c (with check_http_cube.c, check_http_transport.c): black-box HTTP against build/cubed */
Suite *http_sessions_suite(void); /* tests/http/check_http_sessions.c: session routes, restarts */
Suite *http_timed_suite(void); /* tests/http/check_http_timed.c: timed solves, players' averages */
Suite *http_races_suite(void); /* tests/http/check_http_races.c: races, results from the players' histories */
Suite *http_beginner_suite(void); /* tests/http/check_http_beginner.c: /v1/solve's beginner method and target */
Suite *http_live_suite(void); /* tests/http/check_http_live.c: tokens, idempotency, live events */
Suite *http_solve_suite(void); /* tests/http/check_http_solve.c: solve, scramble, session solves, 503 while tables load */
Suite *solve_pool_suite(void); /* tests/unit/check_solve_pool.c: round-robin order, caps, cancel, stop */
Suite *http_fair_suite(void); /* tests/http/check_http_fair.c: solves on the pool, fair between clients, caps, hang-ups */
Suite *http_dataset_suite(void); /* tests/http/check_http_dataset.c: GET /v1/dataset, Range, hang-ups, caps, dataset jobs */
Suite *http_jobs_suite(void); /* tests/http/check_http_jobs.c: optimal solves as jobs, caps, cancel, lost jobs */
Suite *client_limits_suite(void); /* tests/unit/check_client_limits.c: rate buckets and connection counts */
Suite *limits_suite(void); /* tests/http/check_limits.c: rate, connection and header limits, security headers */
Suite *crash_suite(void);  /* tests/http/check_crash.c: acknowledged writes survive SIGKILL */
Suite *codec_suite(void);  /* tests/unit/check_codec.c: hashes, codings, ids, tickets (known answers) */
Suite *http_protocol_suite(void); /* tests/http/check_http_protocol.c: compression, request ids, logs, CORS, tickets, metrics */
Suite *static_suite(void); /* tests/unit/check_static.c: the web page's files and their headers */
Suite *pg_store_suite(void); /* tests/unit/check_pg.c: the PostgreSQL engine (make test-pg) */
Suite *pg_nodes_suite(void); /* tests/http/check_pg_nodes.c: two nodes on one PostgreSQL (make test-pg) */
Suite *drain_suite(void); /* tests/http/check_drain.c: a stopping node drains: not ready, still serving, then refused */
Suite *pg_drain_suite(void); /* tests/http/check_drain.c: a rolling restart of two nodes behind nginx (make test-pg) */
Suite *pg_live_suite(void); /* tests/http/check_pg_live.c: live streams across two PostgreSQL nodes under failures (make test-pg) */
Suite *pg_faults_suite(void); /* tests/http/check_pg_faults.c: a frozen, restarted or refusing PostgreSQL (make test-pg) */
Suite *barrage_suite(void); /* tests/http/check_barrage.c: malformed requests to every route change nothing */

Suite *http_edges_suite(void); /* tests/http/check_http_edges.c: header lines, queries, tokens and log lines cubed answers itself */
Suite *http_faults_suite(void); /* tests/http/check_http_faults.c: slow and hostile clients, storage faults, private sessions, shutdown */

#endif
