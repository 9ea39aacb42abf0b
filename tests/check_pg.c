/* check_pg.c — the PostgreSQL engine through store.h, on the run's private
 * cluster (make test-pg: $CUBED_TEST_PG): migrations and the schema
 * refusal, the version check in the database between two stores (two
 * nodes), a name conflict inside a transaction that must not abort it,
 * an unreachable server, and a node that refuses a newer schema. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_cluster.h"
#include "store.h"
#include "suites.h"
#include "test_server.h"

/* A new database of the run's cluster: its address in url. */
static void new_db(const char *name, char *url, size_t cap)
{
	const char *base = getenv("CUBED_TEST_PG");
	ck_assert_msg(base && *base, "CUBED_TEST_PG is not set");
	char err[512];
	char full[64];
	snprintf(full, sizeof full, "%s_%d", name, (int)getpid());
	ck_assert_msg(pg_cluster_createdb(base, full, url, cap, err,
					  sizeof err) == 0,
		      "%s", err);
}

static struct store *open_store(const char *url)
{
	struct store_config cfg = {.path = url, .schema_dir = "schema"};
	struct store *st = NULL;
	char err[512];
	int rc = store_open(&cfg, &st, err, sizeof err);
	ck_assert_msg(rc == STORE_OK, "store_open: %d %s", rc, err);
	ck_assert_str_eq(store_engine_name(st), "postgresql");
	ck_assert_uint_eq(store_caps(st) & STORE_CAP_SHARED, STORE_CAP_SHARED);
	return st;
}

static void create_one(struct store *st, const char *id)
{
	struct store_session s = {.size = 3, .created_at = 1000,
				  .updated_at = 1000};
	snprintf(s.id, sizeof s.id, "%s", id);
	memset(s.token_hash, 0xab, sizeof s.token_hash);
	struct store_event ev0 = {.version = 0, .kind = "create",
				  .moves = "", .created_at = 1000};
	char state[55];
	memset(state, 'U', 54);
	state[54] = '\0';
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_create_session(st, &s, &ev0, state, 54),
			 STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
}

static int append(struct store *st, const char *id, int64_t v,
		  const char *moves)
{
	struct store_event e = {.version = v, .kind = "moves",
				.moves = (char *)moves, .created_at = 1000 + v};
	int rc = store_begin(st);
	ck_assert_int_eq(rc, STORE_OK);
	rc = store_append_event(st, id, &e, v, 0);
	if (rc == STORE_OK)
		ck_assert_int_eq(store_commit(st), STORE_OK);
	else
		ck_assert_int_eq(store_rollback(st), STORE_OK);
	return rc;
}

START_TEST(pg_migrates_and_reopens)
{
	char url[256];
	new_db("mig", url, sizeof url);
	struct store *st = open_store(url);
	ck_assert_int_eq(store_schema_version(st), 2);
	ck_assert_int_eq(store_ping(st), STORE_OK);
	store_close(st);
	/* a second open applies nothing and finds the same version */
	st = open_store(url);
	ck_assert_int_eq(store_schema_version(st), 2);
	store_close(st);
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM "
					   "schema_version"),
			 2);
}
END_TEST

START_TEST(pg_refuses_newer_schema)
{
	char url[256], err[512];
	new_db("newer", url, sizeof url);
	store_close(open_store(url));
	ck_assert_msg(pg_exec(url, "INSERT INTO schema_version (version, name) "
				   "VALUES (3, '003_future.sql')",
			      err, sizeof err) == 0,
		      "%s", err);
	struct store_config cfg = {.path = url, .schema_dir = "schema"};
	struct store *st = NULL;
	int rc = store_open(&cfg, &st, err, sizeof err);
	ck_assert_int_eq(rc, STORE_SCHEMA);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, "the database's schema is version 3, newer "
				  "than this cubed knows (2"),
		      "%s", err);

	/* and a server on it does not start, saying why */
	test_server srv;
	const char *extra[] = {"--db", url, NULL};
	rc = test_server_start(&srv, NULL, extra, err, sizeof err);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "newer than this cubed knows"), "%s", err);
}
END_TEST

START_TEST(pg_version_check_between_stores)
{
	char url[256];
	new_db("ver", url, sizeof url);
	struct store *a = open_store(url), *b = open_store(url);
	create_one(a, "s1");
	ck_assert_int_eq(append(a, "s1", 1, "R"), STORE_OK);
	/* b still thinks version 0: its v1 must lose, with nothing written */
	ck_assert_int_eq(append(b, "s1", 1, "U"), STORE_CONFLICT);
	ck_assert_int_eq(append(b, "s1", 2, "U"), STORE_OK);
	ck_assert_int_eq(append(a, "s1", 2, "F"), STORE_CONFLICT);
	int64_t v = -1;
	ck_assert_int_eq(store_session_version(a, "s1", &v), STORE_OK);
	ck_assert_int_eq(v, 2);
	struct store_event ev[4];
	int k = store_events_after(a, "s1", -1, ev, 4);
	ck_assert_int_eq(k, 3);
	ck_assert_int_eq(ev[1].version, 1);
	ck_assert_str_eq(ev[1].moves, "R");
	ck_assert_int_eq(ev[2].version, 2);
	ck_assert_str_eq(ev[2].moves, "U");
	for (int i = 0; i < k; i++)
		store_event_free(&ev[i]);
	/* a missing session: not found, not a conflict */
	ck_assert_int_eq(store_session_version(a, "nope", &v),
			 STORE_NOT_FOUND);
	store_close(a);
	store_close(b);
}
END_TEST

/* In PostgreSQL a failed statement aborts its transaction: a refusal in
 * the middle of the writer's batch (a token name taken, an id taken) must
 * not take the batch's other writes with it. */
START_TEST(pg_conflicts_keep_the_transaction)
{
	char url[256];
	new_db("txn", url, sizeof url);
	struct store *st = open_store(url);
	create_one(st, "s1");
	unsigned char h1[STORE_HASH_LEN], h2[STORE_HASH_LEN];
	memset(h1, 1, sizeof h1);
	memset(h2, 2, sizeof h2);
	ck_assert_int_eq(store_begin(st), STORE_OK);
	struct store_token t = {.role = "write", .name = "bob",
				.created_at = 5};
	ck_assert_int_eq(store_add_token(st, "s1", &t, h1), STORE_OK);
	ck_assert_int_eq(t.id, 1);
	struct store_token t2 = {.role = "read", .name = "bob",
				 .created_at = 6};
	ck_assert_int_eq(store_add_token(st, "s1", &t2, h2), STORE_CONFLICT);
	struct store_session dup = {.size = 3, .created_at = 1};
	snprintf(dup.id, sizeof dup.id, "s1");
	struct store_event ev0 = {.kind = "create", .moves = ""};
	ck_assert_int_eq(store_create_session(st, &dup, &ev0, "x", 1),
			 STORE_CONFLICT);
	struct store_event e = {.version = 1, .kind = "moves", .moves = "R",
				.created_at = 7};
	ck_assert_int_eq(store_append_event(st, "s1", &e, 1, 0), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	struct store_token found;
	ck_assert_int_eq(store_find_token(st, "s1", h1, &found), STORE_OK);
	ck_assert_str_eq(found.name, "bob");
	ck_assert_str_eq(found.role, "write");
	ck_assert_int_eq(store_find_token(st, "s1", h2, &found),
			 STORE_NOT_FOUND);
	int64_t v;
	ck_assert_int_eq(store_session_version(st, "s1", &v), STORE_OK);
	ck_assert_int_eq(v, 1);
	/* a default name counts from the session's tokens */
	struct store_token t3 = {.role = "read", .created_at = 8};
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_add_token(st, "s1", &t3, h2), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	ck_assert_int_eq(t3.id, 2);
	ck_assert_str_eq(t3.name, "reader-2");
	store_close(st);
}
END_TEST

START_TEST(pg_unreachable)
{
	/* nothing listens on port 1 */
	struct store_config cfg = {
		.path = "postgresql://cubed@127.0.0.1:1/none?connect_timeout=2",
		.schema_dir = "schema"};
	struct store *st = NULL;
	char err[512];
	ck_assert_int_eq(store_open(&cfg, &st, err, sizeof err),
			 STORE_UNAVAILABLE);
	ck_assert_msg(strstr(err, "cannot connect to PostgreSQL"), "%s", err);
}
END_TEST

Suite *pg_store_suite(void)
{
	Suite *s = suite_create("pg_store");
	TCase *tc = tcase_create("engine");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pg_migrates_and_reopens);
	tcase_add_test(tc, pg_refuses_newer_schema);
	tcase_add_test(tc, pg_version_check_between_stores);
	tcase_add_test(tc, pg_conflicts_keep_the_transaction);
	tcase_add_test(tc, pg_unreachable);
	suite_add_tcase(s, tc);
	return s;
}
