/* pg_nodes.h — what the PostgreSQL black-box suites share (make test-pg:
 * check_pg_nodes.c, check_pg_live.c, check_pg_faults.c, and
 * check_http_faults.c's pg_storage cases): this run's cluster, for the
 * tests that halt, restart or freeze it, and its superuser's statements
 * and roles; cubed nodes
 * started on one database (none rate-limited: the load and fault tests
 * send more than the default allows); and a node started on a database
 * named outright, which the fixture must not create. The assertions are
 * Check's: call these from inside tests. */
#ifndef CUBED_TEST_PG_NODES_H
#define CUBED_TEST_PG_NODES_H

#include "pg_cluster.h"
#include "session_helpers.h"

/* This run's cluster, rebuilt from the environment run_tests set
 * (CUBED_TEST_PG, CUBED_TEST_PG_DIR; asserted there). */
void pg_test_cluster(struct pg_cluster *c);

/* The cluster's maintenance database ("postgres" on $CUBED_TEST_PG),
 * where a test changes another database or makes roles. */
void pg_admin_url(char *url, size_t cap);

/* Run sql on the database at url as the cluster's superuser; the test
 * fails saying sql and the error. */
void pg_do(const char *url, const char *sql);

/* Database dbname made read-only for new transactions (on), or set back
 * (ALTER DATABASE … SET / RESET default_transaction_read_only), as the
 * cluster's superuser. */
void pg_read_only(const char *dbname, int on);

/* A login role tag_<pid> of its own (not a superuser: its privileges can
 * be taken), options added to its CREATE ROLE ("" or, say, "CONNECTION
 * LIMIT 1"), owning a new database of the same name: the name in role,
 * that database's address as the role in url. */
void pg_role_db(const char *tag, const char *options, char *role,
		size_t rcap, char *url, size_t ucap);

/* Start n with --rate-limit 0 and extra (NULL-terminated, may be NULL,
 * at most PG_NODE_EXTRA options and values), on the database of peer
 * when peer is not NULL, else on a new one of its own; abort the test
 * with the reason if it does not start. */
#define PG_NODE_EXTRA 16
void pg_node_start(server *n, const server *peer, const char *const *extra);

/* Node A on a new database and node B on the same one, both started by
 * pg_node_start with extra. */
void pg_nodes_start(server *a, server *b, const char *const *extra);

/* pg_node_start(n, NULL, extra), and a session s of size 3 made through
 * it (create: 201, asserted). */
void pg_node_start_session(server *n, const char *const *extra, ses *s);

/* pg_nodes_start(a, b, extra), and a session s of size 3 made through A
 * (create: 201, asserted). */
void pg_nodes_start_session(server *a, server *b, const char *const *extra,
			    ses *s);

/* Stop B, then A: each must exit 0; their directories are removed. */
void pg_nodes_stop(server *a, server *b);

/* Start n with extra (NULL-terminated, may be NULL, at most
 * PG_NODE_EXTRA options and values) on exactly the database at url, with
 * $CUBED_TEST_PG put aside meanwhile so that the fixture creates no
 * database (the cluster may be down, or url's role may not create one).
 * server_start's answer: 0, or -1 with the reason in err. */
int pg_server_start_at(server *n, const char *url, const char *const *extra,
		       char *err, size_t errlen);

/* pg_server_start_at with --rate-limit 0. */
int pg_node_start_at(server *n, const char *url, char *err, size_t errlen);

/* A server started by pg_server_start_at(url, extra) must refuse: exit
 * status 2 (wait status 0x200) within 5 s, never listening, the reason
 * want on its log's "database: " line, and want2 (when not NULL) after
 * it. That line goes to stderr after label. */
void pg_server_refused(const char *label, const char *url,
		       const char *const *extra, const char *want,
		       const char *want2);

#endif
