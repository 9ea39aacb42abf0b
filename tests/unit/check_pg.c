/* check_pg.c — the PostgreSQL engine through store.h, on the run's private
 * cluster (make test-pg: $CUBED_TEST_PG): migrations and the schema
 * refusal, the version check in the database between two stores (two
 * nodes), a name conflict inside a transaction that must not abort it,
 * an unreachable server (opens not ready), errors that are refused at
 * open, a node that refuses a newer schema, and what
 * the notifications of another store's commits carry. */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alg.h"
#include "pg_cluster.h"
#include "session_writes.h"
#include "sessions.h"
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

/* store_open on url (schema/), which must answer want: the store (NULL
 * when it did not open); the reason, if any, in err. */
static struct store *open_expect(const char *url, int want, char *err,
				 size_t cap)
{
	struct store_config cfg = {.path = url, .schema_dir = "schema"};
	struct store *st = NULL;
	err[0] = '\0';
	int rc = store_open(&cfg, &st, err, cap);
	ck_assert_msg(rc == want, "store_open %s: %d, not %d: %s", url, rc,
		      want, err);
	return st;
}

static struct store *open_store(const char *url)
{
	char err[512];
	struct store *st = open_expect(url, STORE_OK, err, sizeof err);
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

/* A write transaction with deferral on and sessions ids[0], ids[1]
 * locked. */
static void begin_deferred(struct store *st, const char *ids[2])
{
	ck_assert_int_eq(store_begin(st), STORE_OK);
	store_defer(st, 1);
	ck_assert_int_eq(store_lock_sessions(st, ids, 2), STORE_OK);
}

/* One deferred batch of appends on st, as the session writer sends it:
 * BEGIN, the lock of ids[0] and ids[1], count "moves" events taking
 * turns between them (event i is ids[i % 2]'s version base + i / 2 + 1,
 * made at t0 + i), then COMMIT, whose code it returns. Deferral is left
 * on: the caller reads store_deferred_failed, then turns it off. */
static int deferred_batch(struct store *st, const char *ids[2], int count,
			  int64_t base, char *moves, char *actor, int64_t t0)
{
	begin_deferred(st, ids);
	for (int i = 0; i < count; i++) {
		struct store_event e = {.version = base + i / 2 + 1,
					.kind = "moves", .moves = moves,
					.actor = actor, .created_at = t0 + i};
		ck_assert_int_eq(store_append_event(st, ids[i % 2], &e,
						    e.version, 0),
				 STORE_OK);
	}
	return store_commit(st);
}

START_TEST(pg_migrates_and_reopens)
{
	char url[256];
	new_db("mig", url, sizeof url);
	struct store *st = open_store(url);
	ck_assert_int_eq(store_schema_version(st), 10);
	ck_assert_int_eq(store_ping(st), STORE_OK);
	store_close(st);
	/* a second open applies nothing and finds the same version */
	st = open_store(url);
	ck_assert_int_eq(store_schema_version(st), 10);
	store_close(st);
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM "
					   "schema_version"),
			 10);
}
END_TEST

START_TEST(pg_refuses_newer_schema)
{
	char url[256], err[512];
	new_db("newer", url, sizeof url);
	store_close(open_store(url));
	ck_assert_msg(pg_exec(url, "INSERT INTO schema_version (version, name) "
				   "VALUES (11, '011_future.sql')",
			      err, sizeof err) == 0,
		      "%s", err);
	ck_assert_ptr_null(open_expect(url, STORE_SCHEMA, err, sizeof err));
	ck_assert_msg(strstr(err, "the database's schema is version 11, newer "
				  "than this cubed knows (10"),
		      "%s", err);

	/* and a server on it does not start, saying why */
	test_server srv;
	const char *extra[] = {"--db", url, NULL};
	int rc = test_server_start(&srv, NULL, extra, err, sizeof err);
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

/* A database that does not answer does not keep the store from opening:
 * it opens not ready, and every call says the database is unavailable
 * (the node serves /readyz 503 and retries). */
START_TEST(pg_unreachable)
{
	/* nothing listens on port 1 */
	char err[512];
	struct store *st = open_expect(
		"postgresql://cubed@127.0.0.1:1/none?connect_timeout=2",
		STORE_OK, err, sizeof err);
	ck_assert_int_eq(store_ping(st), STORE_UNAVAILABLE);
	ck_assert_int_eq(store_unavailable(st), 1);
	ck_assert_msg(strstr(store_last_error(st),
			     "cannot connect to PostgreSQL"),
		      "%s", store_last_error(st));
	int64_t v;
	ck_assert_int_eq(store_session_version(st, "x", &v),
			 STORE_UNAVAILABLE);
	store_close(st);
}
END_TEST

/* What waiting does not mend is refused at open, with the reason: an
 * address libpq cannot use, a database the server says is not there. */
START_TEST(pg_permanent_errors_refused)
{
	char err[512];
	ck_assert_ptr_null(
		open_expect("postgresql://cubed@127.0.0.1:1/x?frobnicate=1",
			    STORE_ERROR, err, sizeof err));
	ck_assert_msg(strstr(err, "the PostgreSQL address is not valid") &&
			      strstr(err, "frobnicate"),
		      "%s", err);

	const char *base = getenv("CUBED_TEST_PG");
	ck_assert_ptr_nonnull(base);
	char url[512];
	/* base is postgresql://user@host:port/ */
	snprintf(url, sizeof url, "%sno_such_db_%d", base, (int)getpid());
	ck_assert_ptr_null(open_expect(url, STORE_ERROR, err, sizeof err));
	ck_assert_msg(strstr(err, "does not exist"), "%s", err);
}
END_TEST

/* What store_listen handed over, recorded for the test's thread. */
#define HEARD_MAX 64
struct heard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	char id[HEARD_MAX][STORE_ID_MAX];
	int64_t version[HEARD_MAX];
	int with_event[HEARD_MAX];
	char kind[HEARD_MAX][STORE_KIND_MAX], moves[HEARD_MAX][64],
		actor[HEARD_MAX][32];
	int64_t created_at[HEARD_MAX];
};

static void on_notify(void *ctx, const char *id, int64_t version,
		      const struct store_event *e)
{
	struct heard *h = ctx;
	pthread_mutex_lock(&h->lock);
	if (id && h->n < HEARD_MAX) {
		int i = h->n++;
		snprintf(h->id[i], sizeof h->id[i], "%s", id);
		h->version[i] = version;
		h->with_event[i] = e != NULL;
		if (e) {
			ck_assert_int_eq(e->version, version);
			snprintf(h->kind[i], sizeof h->kind[i], "%s", e->kind);
			snprintf(h->moves[i], sizeof h->moves[i], "%s",
				 strlen(e->moves) < 64 ? e->moves : "(long)");
			snprintf(h->actor[i], sizeof h->actor[i], "%s",
				 e->actor ? e->actor : "(null)");
			h->created_at[i] = e->created_at;
		}
		pthread_cond_broadcast(&h->cond);
	}
	pthread_mutex_unlock(&h->lock);
}

/* Wait (30 s at most) until h heard n notifications. */
static void wait_heard(struct heard *h, int n)
{
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 30;
	pthread_mutex_lock(&h->lock);
	while (h->n < n &&
	       pthread_cond_timedwait(&h->cond, &h->lock, &dl) == 0)
		;
	int got = h->n;
	pthread_mutex_unlock(&h->lock);
	ck_assert_int_ge(got, n);
}

/* Commit to session "warm" through a until b's listener (h) hears one:
 * the listener connects in its own thread, and nothing is heard from
 * before its LISTEN. Then h is emptied (warm's stragglers may follow). */
static void listener_warm(struct store *a, struct heard *h)
{
	int64_t v = 0;
	create_one(a, "warm");
	for (;;) {
		ck_assert_int_eq(append(a, "warm", ++v, "R"), STORE_OK);
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_nsec += 100000000L;
		if (dl.tv_nsec >= 1000000000L) {
			dl.tv_sec++;
			dl.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&h->lock);
		if (h->n == 0)
			pthread_cond_timedwait(&h->cond, &h->lock, &dl);
		int n = h->n;
		pthread_mutex_unlock(&h->lock);
		if (n > 0)
			break;
		ck_assert_int_lt(v, 300); /* 30 s */
	}
	pthread_mutex_lock(&h->lock);
	h->n = 0;
	pthread_mutex_unlock(&h->lock);
}

/* Stores a and b on a new database (url, named after name), b listening
 * into h (zeroed here) and a's commits already heard (listener_warm). */
static void listening_pair(const char *name, char *url, size_t cap,
			   struct store **a, struct store **b, struct heard *h)
{
	new_db(name, url, cap);
	*a = open_store(url);
	*b = open_store(url);
	memset(h, 0, sizeof *h);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	ck_assert_int_eq(store_listen(*b, on_notify, h), STORE_OK);
	listener_warm(*a, h);
}

/* The end of listening_pair: b stops listening (no call of on_notify
 * follows), h's lock goes, both stores close. */
static void listening_pair_close(struct store *a, struct store *b,
				 struct heard *h)
{
	store_listen(b, NULL, NULL);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cond);
	store_close(a);
	store_close(b);
}

/* Another store's commits reach a listener in commit order, each with
 * its event (no read of the store needed), except one too big for a
 * notification's payload, which comes as id and version only; a deletion
 * as version -1. */
START_TEST(pg_notifications_carry_events)
{
	char url[256];
	struct store *a, *b;
	struct heard h;
	listening_pair("ntf", url, sizeof url, &a, &b, &h);

	create_one(a, "s1");
	struct store_event e = {.version = 1, .kind = "moves",
				.moves = "R U2 F'", .actor = "ann",
				.created_at = 4242};
	ck_assert_int_eq(store_begin(a), STORE_OK);
	ck_assert_int_eq(store_append_event(a, "s1", &e, 1, 0), STORE_OK);
	struct store_event u = {.version = 2, .kind = "undo",
				.moves = "F U2 R'", .created_at = 4243,
				.ref = 1};
	ck_assert_int_eq(store_append_event(a, "s1", &u, 0, 2), STORE_OK);
	ck_assert_int_eq(store_commit(a), STORE_OK);
	/* 9000 bytes of moves: more than a payload may hold */
	char *big = malloc(9001);
	for (int i = 0; i < 9000; i += 3)
		memcpy(big + i, "R2 ", 3);
	big[8999] = '\0';
	ck_assert_int_eq(append(a, "s1", 3, big), STORE_OK);
	free(big);
	ck_assert_int_eq(store_begin(a), STORE_OK);
	ck_assert_int_eq(store_delete_session(a, "s1"), STORE_OK);
	ck_assert_int_eq(store_commit(a), STORE_OK);

	/* warm's stragglers may come first: skip them */
	wait_heard(&h, 1);
	pthread_mutex_lock(&h.lock);
	int skip = 0;
	while (skip < h.n && strcmp(h.id[skip], "warm") == 0)
		skip++;
	pthread_mutex_unlock(&h.lock);
	wait_heard(&h, skip + 5);
	store_listen(b, NULL, NULL);
	int i = skip;
	ck_assert_str_eq(h.id[i], "s1"); /* the creation: version 0 */
	ck_assert_int_eq(h.version[i], 0);
	ck_assert_int_eq(h.with_event[i], 1);
	ck_assert_str_eq(h.kind[i], "create");
	i++;
	ck_assert_int_eq(h.version[i], 1);
	ck_assert_int_eq(h.with_event[i], 1);
	ck_assert_str_eq(h.kind[i], "moves");
	ck_assert_str_eq(h.moves[i], "R U2 F'");
	ck_assert_str_eq(h.actor[i], "ann");
	ck_assert_int_eq(h.created_at[i], 4242);
	i++;
	ck_assert_int_eq(h.version[i], 2);
	ck_assert_int_eq(h.with_event[i], 1);
	ck_assert_str_eq(h.kind[i], "undo");
	ck_assert_str_eq(h.moves[i], "F U2 R'");
	ck_assert_str_eq(h.actor[i], "(null)");
	i++;
	ck_assert_int_eq(h.version[i], 3);
	ck_assert_int_eq(h.with_event[i], 0); /* too big: read it */
	i++;
	ck_assert_str_eq(h.id[i], "s1");
	ck_assert_int_eq(h.version[i], -1);
	ck_assert_int_eq(h.with_event[i], 0);
	listening_pair_close(a, b, &h);
}
END_TEST

/* A batch's appends (store_defer: one statement) reach another node's
 * listener whole and in the order they were appended, also when they do
 * not fit in one notification's payload (schema/pg/010 sends a
 * statement's events as arrays); a deleted session takes its events
 * with it (010's trigger, where a foreign key's cascade was), so its id
 * can be used again. */
START_TEST(pg_batch_notifies_in_order)
{
	char url[256];
	struct store *a, *b;
	struct heard h;
	listening_pair("bnt", url, sizeof url, &a, &b, &h);
	create_one(a, "s1");
	create_one(a, "s2");
	/* warm's stragglers may come before: wait for s2's creation */
	for (int n = 1;; n++) {
		wait_heard(&h, n);
		pthread_mutex_lock(&h.lock);
		int last = strcmp(h.id[n - 1], "s2") == 0 &&
			   h.version[n - 1] == 0;
		pthread_mutex_unlock(&h.lock);
		if (last)
			break;
		ck_assert_int_lt(n, HEARD_MAX);
	}
	/* 4 short events (one payload), then 40 of about 250 bytes each
	 * (10 kB: several payloads) */
	char big[200];
	for (int i = 0; i + 3 < (int)sizeof big; i += 3)
		memcpy(big + i, "R2 ", 3);
	big[sizeof big - 3] = '\0';
	const char *ids[] = {"s1", "s2"};
	int counts[] = {4, 40}, base = 0;
	for (int round = 0; round < 2; round++) {
		pthread_mutex_lock(&h.lock);
		h.n = 0;
		pthread_mutex_unlock(&h.lock);
		struct store_pool_stats before = {0}, after = {0};
		store_pool_stats(b, &before);
		ck_assert_int_eq(deferred_batch(a, ids, counts[round], base,
						round ? big : "U", "ann", 5000),
				 STORE_OK);
		store_defer(a, 0);
		wait_heard(&h, counts[round]);
		pthread_mutex_lock(&h.lock);
		ck_assert_int_eq(h.n, counts[round]);
		for (int i = 0; i < counts[round]; i++) {
			ck_assert_str_eq(h.id[i], ids[i % 2]);
			ck_assert_int_eq(h.version[i], base + i / 2 + 1);
			ck_assert_int_eq(h.with_event[i], 1);
			ck_assert_str_eq(h.kind[i], "moves");
			ck_assert_str_eq(h.moves[i], round ? "(long)" : "U");
			ck_assert_str_eq(h.actor[i], "ann");
			ck_assert_int_eq(h.created_at[i], 5000 + i);
		}
		pthread_mutex_unlock(&h.lock);
		/* one notification for the short batch; the long one in
		 * arrays of at most 7800 bytes: 10 kB in 2 or 3 */
		store_pool_stats(b, &after);
		uint64_t sent = after.notifications - before.notifications;
		if (round == 0)
			ck_assert_uint_eq(sent, 1);
		else
			ck_assert(sent >= 2 && sent <= 4);
		base += counts[round] / 2;
	}
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM events "
					   "WHERE session_id = 's1'"),
			 1 + 22);
	ck_assert_int_eq(store_begin(a), STORE_OK);
	ck_assert_int_eq(store_delete_session(a, "s1"), STORE_OK);
	ck_assert_int_eq(store_commit(a), STORE_OK);
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM events "
					   "WHERE session_id = 's1'"),
			 0);
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM events "
					   "WHERE session_id = 's2'"),
			 1 + 22);
	create_one(a, "s1"); /* its version 0 is free again */
	listening_pair_close(a, b, &h);
}
END_TEST

/* ------------------------------------------------ a lost COMMIT answer */

/* A relay between a store and the cluster (issue 61.1): it passes bytes
 * both ways, and once armed, passes the next COMMIT (a simple-query
 * message, or the Bind of the prepared COMMIT in a write transaction's
 * pipeline),
 * waits for the server's answer to it (so the commit has happened),
 * drops that answer and cuts both sides: the node sent COMMIT and never
 * heard back, as when a network drops between them. */
#define RELAY_PAIRS 32
struct relay {
	int lfd, port, up_port;
	int cli[RELAY_PAIRS], up[RELAY_PAIRS];
	int armed, cuts, stop; /* under lock */
	pthread_mutex_t lock;
	pthread_t th;
};

static void pair_close(struct relay *r, int i)
{
	close(r->cli[i]);
	close(r->up[i]);
	r->cli[i] = r->up[i] = -1;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Whether buf holds the n bytes of pat. */
static int holds(const char *buf, size_t len, const char *pat, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(buf + i, pat, n) == 0)
			return 1;
	return 0;
}

/* The statement name of a Parse of pat ("\0COMMIT\0\0": the name's
 * end, the text, no parameter types) in buf into name: the bytes back
 * to the Parse's length field. */
static void learn_commit(const char *buf, size_t len, const char *pat,
			 size_t n, char *name, size_t cap)
{
	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(buf + i, pat, n) != 0)
			continue;
		/* 'P' and a 4-byte length before the name */
		for (size_t b = i; b >= 5 && i - b + 1 < cap; b--) {
			if (buf[b - 5] == 'P' && b < i) {
				memcpy(name, buf + b, i - b);
				name[i - b] = '\0';
				return;
			}
			if (b < i && buf[b] == '\0')
				break;
		}
	}
}

/* Whether buf holds a Bind of the prepared statement name to the
 * unnamed portal: 'B', a length, "" and the name. */
static int binds(const char *buf, size_t len, const char *name)
{
	size_t n = strlen(name) + 1;
	for (size_t i = 0; i + 6 + n <= len; i++)
		if (buf[i] == 'B' && buf[i + 5] == '\0' &&
		    memcmp(buf + i + 6, name, n) == 0)
			return 1;
	return 0;
}

static void *relay_main(void *arg)
{
	struct relay *r = arg;
	static const char commit[] = "Q\0\0\0\x0b" "COMMIT";
	/* the engine prepares COMMIT once per connection (a Parse with its
	 * statement's name, always the same) and then binds that name: the
	 * name is learnt from the Parse */
	static const char parse_commit[] = "\0COMMIT\0\0";
	char commit_name[16] = "";
	char buf[65536];
	for (;;) {
		pthread_mutex_lock(&r->lock);
		int stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;
		struct pollfd p[1 + 2 * RELAY_PAIRS];
		int map[1 + 2 * RELAY_PAIRS], n = 0;
		p[n].fd = r->lfd;
		p[n].events = POLLIN;
		map[n++] = -1;
		for (int i = 0; i < RELAY_PAIRS; i++)
			if (r->cli[i] >= 0) {
				p[n].fd = r->cli[i];
				p[n].events = POLLIN;
				map[n++] = i;
				p[n].fd = r->up[i];
				p[n].events = POLLIN;
				map[n++] = i;
			}
		if (poll(p, (nfds_t)n, 100) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int c = accept(r->lfd, NULL, NULL);
			struct sockaddr_in a = {.sin_family = AF_INET,
						.sin_port = htons((uint16_t)r->up_port)};
			a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			int u = socket(AF_INET, SOCK_STREAM, 0);
			int slot = -1;
			for (int i = 0; i < RELAY_PAIRS && slot < 0; i++)
				if (r->cli[i] < 0)
					slot = i;
			if (c < 0 || u < 0 || slot < 0 ||
			    connect(u, (struct sockaddr *)&a, sizeof a) != 0) {
				if (c >= 0)
					close(c);
				if (u >= 0)
					close(u);
			} else {
				r->cli[slot] = c;
				r->up[slot] = u;
			}
		}
		for (int k = 1; k < n; k++) {
			int i = map[k];
			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)) ||
			    r->cli[i] < 0)
				continue;
			int from_cli = p[k].fd == r->cli[i];
			int to = from_cli ? r->up[i] : r->cli[i];
			ssize_t got = read(p[k].fd, buf, sizeof buf);
			if (got <= 0) {
				pair_close(r, i);
				continue;
			}
			if (from_cli && !commit_name[0])
				learn_commit(buf, (size_t)got, parse_commit,
					     sizeof parse_commit, commit_name,
					     sizeof commit_name);
			pthread_mutex_lock(&r->lock);
			int cut = from_cli && r->armed &&
				  (holds(buf, (size_t)got, commit,
					 sizeof commit) ||
				   (commit_name[0] &&
				    binds(buf, (size_t)got, commit_name)));
			if (cut)
				r->armed = 0;
			pthread_mutex_unlock(&r->lock);
			if (write_all(to, buf, (size_t)got) != 0) {
				pair_close(r, i);
				continue;
			}
			if (cut) {
				/* the server's answer to COMMIT: swallowed */
				struct pollfd w = {.fd = r->up[i],
						   .events = POLLIN};
				if (poll(&w, 1, 10000) == 1)
					(void)read(r->up[i], buf, sizeof buf);
				pthread_mutex_lock(&r->lock);
				r->cuts++; /* before the node can hear the cut */
				pthread_mutex_unlock(&r->lock);
				pair_close(r, i);
			}
		}
	}
	for (int i = 0; i < RELAY_PAIRS; i++)
		if (r->cli[i] >= 0)
			pair_close(r, i);
	return NULL;
}

/* Start a relay to url's cluster; rurl receives url through it. */
static void relay_start(struct relay *r, const char *url, char *rurl,
			size_t cap)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < RELAY_PAIRS; i++)
		r->cli[i] = r->up[i] = -1;
	const char *at = strstr(url, "@127.0.0.1:");
	ck_assert_ptr_nonnull(at);
	r->up_port = atoi(at + 11);
	const char *slash = strchr(at + 11, '/');
	ck_assert_ptr_nonnull(slash);
	r->lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	ck_assert_int_eq(bind(r->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(r->lfd, 16), 0);
	ck_assert_int_eq(getsockname(r->lfd, (struct sockaddr *)&a, &len), 0);
	r->port = ntohs(a.sin_port);
	snprintf(rurl, cap, "%.*s@127.0.0.1:%d%s", (int)(at - url), url,
		 r->port, slash);
	pthread_mutex_init(&r->lock, NULL);
	ck_assert_int_eq(pthread_create(&r->th, NULL, relay_main, r), 0);
}

static void relay_arm(struct relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->armed = 1;
	pthread_mutex_unlock(&r->lock);
}

static int relay_cuts(struct relay *r)
{
	pthread_mutex_lock(&r->lock);
	int n = r->cuts;
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void relay_stop(struct relay *r)
{
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->th, NULL);
	close(r->lfd);
	pthread_mutex_destroy(&r->lock);
}

static long long session_version_in(const char *url, const char *id)
{
	char sql[1024];
	snprintf(sql, sizeof sql,
		 "SELECT version FROM sessions WHERE id = '%s'", id);
	return pg_query_int(url, sql);
}

/* Exactly once across a lost commit answer, for real (issue 61.1): the
 * relay passes a keyed write's COMMIT and cuts the connection before its
 * answer. The node answers SES_OUTCOME_UNKNOWN (503 outcome_unknown, not
 * "nothing was changed"); the database holds the write; the retry with
 * the same key, once the engine has reconnected, replays it: version 1,
 * no second event, no 412 against the client's own If-Match. */
START_TEST(pg_lost_commit_replays)
{
	char url[256], rurl[256];
	new_db("lost", url, sizeof url);
	struct relay rl;
	relay_start(&rl, url, rurl, sizeof rurl);
	struct store *st = open_store(rurl);
	struct sessions_config sc = {.store = st, .cache_max = 8};
	alg_limits_default(&sc.limits);
	struct sessions *ses;
	ck_assert_int_eq(sessions_open(&sc, &ses), SES_OK);
	struct session_view v, w;
	char token[36];
	struct session_create c = {.size = 3, .title = "t", .actor = "owner"};
	ck_assert_int_eq(sessions_create(ses, &c, &v, token, NULL), SES_OK);

	relay_arm(&rl);
	int rc = session_moves_write(ses, 3, v.id, token, "R", 0, "lost-1", &w);
	ck_assert_int_eq(relay_cuts(&rl), 1);
	ck_assert_msg(rc == SES_OUTCOME_UNKNOWN, "the write answered %d: %s",
		      rc, sessions_strerror(rc));
	ck_assert_int_eq(session_version_in(url, v.id), 1);
	/* the retry: the engine reconnects (a first try may still find the
	 * database unreachable), then the committed write is replayed */
	for (int i = 0; i < 100; i++) {
		rc = session_moves_write(ses, 3, v.id, token, "R", 0, "lost-1",
					 &w);
		if (rc != SES_UNAVAILABLE)
			break;
		struct timespec ts = {0, 50000000L};
		nanosleep(&ts, NULL);
	}
	ck_assert_msg(rc == SES_OK, "the retry answered %d: %s", rc,
		      sessions_strerror(rc));
	ck_assert_int_eq(w.replayed, 1);
	ck_assert_int_eq(w.version, 1);
	session_view_free(&w);
	ck_assert_int_eq(session_version_in(url, v.id), 1);
	char sql[160];
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM events WHERE session_id = '%s'", v.id);
	ck_assert_int_eq(pg_query_int(url, sql), 2);
	/* the next write with a new key is version 2 */
	ck_assert_int_eq(session_moves_write(ses, 3, v.id, token, "U", 1,
					     "lost-2", &w),
			 SES_OK);
	ck_assert_int_eq(w.replayed, 0);
	ck_assert_int_eq(w.version, 2);
	session_view_free(&w);
	session_view_free(&v);
	sessions_close(ses);
	store_close(st);
	relay_stop(&rl);
}
END_TEST

/* A claim whose node stalled is taken over after the lease (issue 61.2):
 * store A (txn_lease_ms 1 s, as --idempotency-lease sets it) claims a
 * key in a transaction and then does nothing more, as a node stopped or
 * cut off from the database would. Store B's claim of the same key
 * waits, and gets it once PostgreSQL has ended A's idle transaction
 * (not after the TTL, a day); B's result is the one kept, and A's commit
 * fails. Without the lease B would wait for as long as A is stalled. */
START_TEST(pg_stalled_claim_taken_over)
{
	char url[256], err[512];
	new_db("lease", url, sizeof url);
	struct store_config cfg = {.path = url, .schema_dir = "schema",
				   .txn_lease_ms = 1000};
	struct store *a = NULL, *b = open_store(url);
	ck_assert_int_eq(store_open(&cfg, &a, err, sizeof err), STORE_OK);
	unsigned char scope[32] = {1, 2, 3}, print[32] = {4, 5, 6};
	struct store_idem rec;
	ck_assert_int_eq(store_begin(a), STORE_OK);
	ck_assert_int_eq(store_idem_take(a, scope, print, 1000, 86400000, &rec),
			 STORE_OK);
	/* A stalls here, holding its claim */
	double t0 = test_now();
	ck_assert_int_eq(store_begin(b), STORE_OK);
	ck_assert_int_eq(store_idem_take(b, scope, print, 2000, 86400000, &rec),
			 STORE_OK);
	double waited = test_now() - t0;
	ck_assert_int_eq(store_idem_keep(b, scope, "w 1 1 0"), STORE_OK);
	ck_assert_int_eq(store_commit(b), STORE_OK);
	ck_assert_msg(waited < 30, "B waited %.1f s", waited);
	/* A's transaction was ended: its commit does not succeed */
	ck_assert_int_ne(store_commit(a), STORE_OK);
	/* the key holds B's result now */
	ck_assert_int_eq(store_begin(b), STORE_OK);
	ck_assert_int_eq(store_idem_take(b, scope, print, 3000, 86400000, &rec),
			 STORE_CONFLICT);
	ck_assert_str_eq(rec.result, "w 1 1 0");
	store_idem_free(&rec);
	ck_assert_int_eq(store_rollback(b), STORE_OK);
	printf("pg_store: a stalled node's claim taken over after %.2f s "
	       "(lease 1 s)\n", waited);
	store_close(a);
	store_close(b);
}
END_TEST

/* The writer's gate (sessions_config.lose_commit, never losing): while
 * armed, the writer waits after its commit until the test lets it go, so
 * that the writes queued meanwhile are taken as one batch. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int armed, waiting, done;
};

static int gate_pass(void *ctx)
{
	struct gate *g = ctx;
	pthread_mutex_lock(&g->lock);
	if (g->armed) {
		g->waiting = 1;
		pthread_cond_broadcast(&g->cond);
		while (g->armed)
			pthread_cond_wait(&g->cond, &g->lock);
	}
	pthread_mutex_unlock(&g->lock);
	return 0;
}

static void gate_done(void *ctx)
{
	struct gate *g = ctx;
	pthread_mutex_lock(&g->lock);
	g->done++;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Wait (at most 30 s) until pred(g) holds. */
static int gate_wait(struct gate *g, int waiting, int done)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&g->lock);
	int rc = 0;
	while (rc == 0 && (g->waiting < waiting || g->done < done))
		rc = pthread_cond_timedwait(&g->cond, &g->lock, &until);
	pthread_mutex_unlock(&g->lock);
	return rc == 0;
}

static struct session_pending *queue_write(struct sessions *ses,
					   struct gate *g, const char *id,
					   const char *token, const char *moves,
					   int64_t if_match)
{
	struct session_write w = {.kind = SES_MOVES, .id = id, .token = token,
				  .if_match = if_match};
	alg_error err;
	ck_assert_int_eq(sessions_parse(ses, 3, moves, strlen(moves), &w, &err),
			 SES_OK);
	struct session_pending *p = sessions_write_begin(ses, &w, gate_done, g);
	free(w.nodes);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* One batch of the writer, its appends deferred to one statement: the
 * refusals in it stay exact and alone, and a write whose deferred append
 * fails in the database (an event row already at its version, planted
 * here) fails alone, after the batch ran again with each write sent by
 * itself: the others commit, versions stay dense. The writes, queued
 * while the writer waits in its gate after a first commit (s1 v1):
 *   B s1 If-Match 0: stale (412), C s2 If-Match 0: v1, D s1 If-Match 1:
 *   v2, E s2 If-Match 0: stale (C has v1), F s3: fails, G s4: v1. */
START_TEST(pg_batch_refusals_stay_alone)
{
	char url[256], err[512], sql[2048];
	new_db("batch", url, sizeof url);
	struct store *st = open_store(url);
	struct gate g = {.armed = 0};
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.cond, NULL);
	struct sessions_config sc = {.store = st, .cache_max = 64,
				     .lose_commit = gate_pass,
				     .lose_commit_ctx = &g};
	alg_limits_default(&sc.limits);
	struct sessions *ses;
	ck_assert_int_eq(sessions_open(&sc, &ses), SES_OK);
	struct session_view v[4];
	char tok[4][36];
	for (int i = 0; i < 4; i++) {
		struct session_create c = {.size = 3, .actor = "owner"};
		ck_assert_int_eq(sessions_create(ses, &c, &v[i], tok[i], NULL),
				 SES_OK);
	}
	snprintf(sql, sizeof sql,
		 "INSERT INTO events (session_id, version, kind, moves, "
		 "created_at) VALUES ('%s', 1, 'moves', 'L', 1)", v[2].id);
	ck_assert_msg(pg_exec(url, sql, err, sizeof err) == 0, "%s", err);

	pthread_mutex_lock(&g.lock);
	g.armed = 1;
	pthread_mutex_unlock(&g.lock);
	struct session_pending *a = queue_write(ses, &g, v[0].id, tok[0], "R", 0);
	ck_assert(gate_wait(&g, 1, 0));
	struct session_pending *p[6] = {
		queue_write(ses, &g, v[0].id, tok[0], "U", 0),
		queue_write(ses, &g, v[1].id, tok[1], "F", 0),
		queue_write(ses, &g, v[0].id, tok[0], "D", 1),
		queue_write(ses, &g, v[1].id, tok[1], "B", 0),
		queue_write(ses, &g, v[2].id, tok[2], "R", -1),
		queue_write(ses, &g, v[3].id, tok[3], "L2", -1),
	};
	pthread_mutex_lock(&g.lock);
	g.armed = 0;
	pthread_cond_broadcast(&g.cond);
	pthread_mutex_unlock(&g.lock);
	ck_assert(gate_wait(&g, 1, 7));
	struct session_view w;
	ck_assert_int_eq(sessions_write_end(a, &w, NULL), SES_OK);
	ck_assert_int_eq(w.version, 1);
	session_view_free(&w);
	static const int want_rc[6] = {SES_STALE, SES_OK, SES_OK, SES_STALE,
				       SES_STORE, SES_OK};
	static const int64_t want_v[6] = {-1, 1, 2, -1, -1, 1};
	for (int i = 0; i < 6; i++) {
		memset(&w, 0, sizeof w);
		int rc = sessions_write_end(p[i], &w, NULL);
		ck_assert_msg(rc == want_rc[i], "write %c answered %d (%s)",
			      'B' + i, rc, sessions_strerror(rc));
		if (want_v[i] >= 0)
			ck_assert_int_eq(w.version, want_v[i]);
		session_view_free(&w);
	}
	struct sessions_stats stats;
	sessions_stats(ses, &stats);
	ck_assert_uint_ge(stats.batch_max, 5); /* B..E, G: one commit */
	/* the rows: dense versions, the refused and failed wrote nothing */
	static const long long rows_v[4] = {2, 1, 0, 1};
	static const long long rows_ev[4] = {3, 2, 2, 2};
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(session_version_in(url, v[i].id), rows_v[i]);
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM events WHERE session_id = '%s' "
			 "AND version <= (SELECT version FROM sessions WHERE "
			 "id = '%s')", v[i].id, v[i].id);
		ck_assert_int_eq(pg_query_int(url, sql),
				 i == 2 ? 1 : rows_ev[i]);
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM events WHERE session_id = '%s'",
			 v[i].id);
		ck_assert_int_eq(pg_query_int(url, sql), rows_ev[i]);
	}
	/* in the order they were written */
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM events WHERE session_id = '%s' AND "
		 "((version = 1 AND moves = 'R') OR (version = 2 AND "
		 "moves = 'D'))", v[0].id);
	ck_assert_int_eq(pg_query_int(url, sql), 2);
	for (int i = 0; i < 4; i++)
		session_view_free(&v[i]);
	sessions_close(ses);
	store_close(st);
	pthread_cond_destroy(&g.cond);
	pthread_mutex_destroy(&g.lock);
}
END_TEST

/* A writer's batch costs two round trips, whatever its size (libpq's
 * pipeline mode, store_pg_write.c): BEGIN goes with the lock of its
 * sessions, its deferred appends with COMMIT; also the first time, when
 * the connection prepares its statements in the same round trips. Before
 * pipelining the same batch cost four (BEGIN, the lock, the flush,
 * COMMIT). A transaction that sent nothing costs none. */
START_TEST(pg_batch_two_round_trips)
{
	char url[256], sql[256];
	new_db("trips", url, sizeof url);
	struct store *st = open_store(url);
	create_one(st, "s1");
	create_one(st, "s2");
	const char *ids[] = {"s1", "s2"};
	for (int round = 0; round < 2; round++) {
		struct store_pool_stats before = {0}, after = {0};
		store_pool_stats(st, &before);
		ck_assert_int_eq(deferred_batch(st, ids, 6, round * 3, "R",
						NULL, 2000),
				 STORE_OK);
		store_defer(st, 0);
		store_pool_stats(st, &after);
		ck_assert_uint_eq(after.round_trips - before.round_trips, 2);
	}
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(session_version_in(url, ids[i]), 6);
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM events WHERE session_id = '%s' "
			 "AND version BETWEEN 1 AND 6", ids[i]);
		ck_assert_int_eq(pg_query_int(url, sql), 6);
	}
	struct store_pool_stats before = {0}, after = {0};
	store_pool_stats(st, &before);
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	store_pool_stats(st, &after);
	ck_assert_uint_eq(after.round_trips, before.round_trips);
	store_close(st);
}
END_TEST

/* The deferred appends go in the round trip that carries COMMIT, so a
 * flush that does not apply must fail itself, or that COMMIT would keep
 * part of the batch. Here the database skips every update of s2's row (a
 * trigger planted for the test): the flush moves 1 of 2 sessions and
 * adds 2 of 3 events, fails, PostgreSQL skips the COMMIT behind it, and
 * the whole batch is rolled back (s1's appends too), the failure known
 * as the flush's (store_deferred_failed: the writer runs the batch
 * again, each write alone). The connection is usable afterwards. */
START_TEST(pg_pipelined_flush_fails_whole)
{
	char url[256], sql[256], err[512];
	new_db("whole", url, sizeof url);
	struct store *st = open_store(url);
	create_one(st, "s1");
	create_one(st, "s2");
	ck_assert_msg(pg_exec(url,
			      "CREATE FUNCTION skip_s2() RETURNS trigger "
			      "LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 's2' "
			      "THEN RETURN NULL; END IF; RETURN NEW; END $$; "
			      "CREATE TRIGGER skip_s2 BEFORE UPDATE ON sessions "
			      "FOR EACH ROW EXECUTE FUNCTION skip_s2()",
			      err, sizeof err) == 0,
		      "%s", err);
	/* s1 1, s2 1, s1 2 */
	const char *ids[] = {"s1", "s2"};
	ck_assert_int_eq(deferred_batch(st, ids, 3, 0, "F", NULL, 3000),
			 STORE_ERROR);
	ck_assert(store_deferred_failed(st));
	ck_assert_msg(strstr(store_last_error(st),
			     "deferred appends did not apply: 1 of 2 sessions "
			     "moved, 2 of 3 events added"),
		      "%s", store_last_error(st));
	store_defer(st, 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(session_version_in(url, ids[i]), 0);
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM events WHERE session_id = '%s'",
			 ids[i]);
		ck_assert_int_eq(pg_query_int(url, sql), 1); /* create */
	}
	ck_assert_int_eq(append(st, "s1", 1, "U"), STORE_OK);
	ck_assert_int_eq(session_version_in(url, "s1"), 1);
	store_close(st);
}
END_TEST

/* A snapshot row that follows a deferred append to its session rides
 * the same flush: the batch still costs two round trips, the row holds
 * exactly the state given, and a snapshot that cannot be inserted (a
 * row already at that version, planted here) fails the flush and so the
 * whole batch, which is rolled back. A snapshot of a session with no
 * kept append is inserted at once. */
START_TEST(pg_snapshot_rides_the_flush)
{
	char url[256], sql[256], err[512];
	new_db("snap", url, sizeof url);
	struct store *st = open_store(url);
	create_one(st, "s1");
	create_one(st, "s2");
	const char *ids[] = {"s1", "s2"};
	char state[55];
	memset(state, 'U', 54);
	state[53] = 'F';
	state[54] = '\0';
	struct store_pool_stats before = {0}, after = {0};
	store_pool_stats(st, &before);
	begin_deferred(st, ids);
	struct store_event e = {.version = 1, .kind = "moves", .moves = "R",
				.created_at = 1000};
	ck_assert_int_eq(store_append_event(st, "s1", &e, 1, 0), STORE_OK);
	ck_assert_int_eq(store_add_snapshot(st, "s1", 1, state, 54),
			 STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	store_defer(st, 0);
	store_pool_stats(st, &after);
	ck_assert_uint_eq(after.round_trips - before.round_trips, 2);
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM snapshots WHERE session_id = 's1' AND "
		 "version = 1 AND state = '%s'", state);
	ck_assert_int_eq(pg_query_int(url, sql), 1);
	/* a row already at s2's version 1: the flush fails whole */
	ck_assert_msg(pg_exec(url,
			      "INSERT INTO snapshots (session_id, version, "
			      "state) VALUES ('s2', 1, 'x')",
			      err, sizeof err) == 0,
		      "%s", err);
	begin_deferred(st, ids);
	e.version = 2;
	ck_assert_int_eq(store_append_event(st, "s1", &e, 2, 0), STORE_OK);
	e.version = 1;
	ck_assert_int_eq(store_append_event(st, "s2", &e, 1, 0), STORE_OK);
	ck_assert_int_eq(store_add_snapshot(st, "s2", 1, state, 54),
			 STORE_OK); /* kept: the flush finds the row */
	ck_assert_int_eq(store_commit(st), STORE_CONFLICT); /* 23505 */
	ck_assert(store_deferred_failed(st));
	ck_assert_msg(strstr(store_last_error(st), "snapshots_pkey"), "%s",
		      store_last_error(st));
	store_defer(st, 0);
	ck_assert_int_eq(session_version_in(url, "s1"), 1);
	ck_assert_int_eq(session_version_in(url, "s2"), 0);
	ck_assert_int_eq(pg_query_int(url, "SELECT count(*) FROM events "
					   "WHERE version = 2 OR (session_id "
					   "= 's2' AND version = 1)"),
			 0);
	/* no append kept for s1 in this transaction: inserted at once */
	begin_deferred(st, ids);
	ck_assert_int_eq(store_add_snapshot(st, "s1", 1, state, 54),
			 STORE_CONFLICT);
	ck_assert_msg(strstr(store_last_error(st), "snapshots_pkey"), "%s",
		      store_last_error(st));
	ck_assert(!store_deferred_failed(st));
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	store_defer(st, 0);
	store_close(st);
}
END_TEST

/* Round trips st made so far. */
static uint64_t trips(struct store *st)
{
	struct store_pool_stats ps = {0};
	store_pool_stats(st, &ps);
	return ps.round_trips;
}

/* What store_prefetch reads answers each session's next row and events
 * once, in the transaction that read it, with no round trip; anything
 * else (a second call, another mark, a session written since) asks. */
START_TEST(pg_prefetch_answers_once)
{
	char url[256];
	new_db("pre", url, sizeof url);
	struct store *sa = open_store(url), *sb = open_store(url);
	create_one(sa, "s1");
	create_one(sa, "s2");
	/* another node moves s1 on by three events */
	static const char *const mv[] = {"R", "U2", "F'"};
	for (int i = 0; i < 3; i++) {
		struct store_event e = {.version = i + 1, .kind = "moves",
					.moves = (char *)mv[i],
					.actor = "bob",
					.created_at = 2000 + i};
		ck_assert_int_eq(store_begin(sb), STORE_OK);
		ck_assert_int_eq(store_append_event(sb, "s1", &e, i + 1, 0),
				 STORE_OK);
		ck_assert_int_eq(store_commit(sb), STORE_OK);
	}
	const char *ids[] = {"s1", "s2"};
	const int64_t from[] = {0, 0};
	ck_assert_int_eq(store_begin(sa), STORE_OK);
	ck_assert_int_eq(store_lock_sessions(sa, ids, 2), STORE_OK);
	uint64_t t0 = trips(sa);
	ck_assert_int_eq(store_prefetch(sa, ids, from, 2, 32), STORE_OK);
	ck_assert_uint_eq(trips(sa) - t0, 1);
	struct store_session row;
	struct store_event ev[32];
	ck_assert_int_eq(store_get_session(sa, "s1", &row), STORE_OK);
	ck_assert_int_eq(row.version, 3);
	ck_assert_int_eq(row.undo_top, 3);
	ck_assert_int_eq(row.size, 3);
	ck_assert_int_eq(row.updated_at, 2002);
	store_session_free(&row);
	ck_assert_int_eq(store_events_after(sa, "s1", 0, ev, 32), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(ev[i].version, i + 1);
		ck_assert_str_eq(ev[i].kind, "moves");
		ck_assert_str_eq(ev[i].moves, mv[i]);
		ck_assert_str_eq(ev[i].actor, "bob");
		ck_assert_int_eq(ev[i].created_at, 2000 + i);
		store_event_free(&ev[i]);
	}
	/* s2: its row, and no event after 0 */
	ck_assert_int_eq(store_get_session(sa, "s2", &row), STORE_OK);
	ck_assert_int_eq(row.version, 0);
	store_session_free(&row);
	ck_assert_int_eq(store_events_after(sa, "s2", 0, ev, 32), 0);
	ck_assert_uint_eq(trips(sa) - t0, 1); /* all of it read ahead */
	/* once each: the same calls again ask */
	ck_assert_int_eq(store_events_after(sa, "s1", 0, ev, 32), 3);
	for (int i = 0; i < 3; i++)
		store_event_free(&ev[i]);
	ck_assert_int_eq(store_get_session(sa, "s1", &row), STORE_OK);
	store_session_free(&row);
	ck_assert_uint_eq(trips(sa) - t0, 3);
	ck_assert_int_eq(store_rollback(sa), STORE_OK);

	/* another mark, or a session written since the read: asked */
	ck_assert_int_eq(store_begin(sa), STORE_OK);
	ck_assert_int_eq(store_lock_sessions(sa, ids, 2), STORE_OK);
	ck_assert_int_eq(store_prefetch(sa, ids, from, 2, 32), STORE_OK);
	t0 = trips(sa);
	ck_assert_int_eq(store_events_after(sa, "s1", 1, ev, 32), 2);
	ck_assert_str_eq(ev[0].moves, "U2");
	for (int i = 0; i < 2; i++)
		store_event_free(&ev[i]);
	ck_assert_uint_eq(trips(sa) - t0, 1);
	struct store_event e4 = {.version = 4, .kind = "moves", .moves = "D",
				 .created_at = 3000};
	ck_assert_int_eq(store_append_event(sa, "s1", &e4, 4, 0), STORE_OK);
	ck_assert_int_eq(store_get_session(sa, "s1", &row), STORE_OK);
	ck_assert_int_eq(row.version, 4);
	store_session_free(&row);
	ck_assert_int_eq(store_commit(sa), STORE_OK);
	/* a new transaction forgets what the last one read */
	ck_assert_int_eq(store_begin(sa), STORE_OK);
	t0 = trips(sa);
	ck_assert_int_eq(store_get_session(sa, "s2", &row), STORE_OK);
	store_session_free(&row);
	ck_assert_int_eq(store_rollback(sa), STORE_OK);
	ck_assert_uint_ge(trips(sa) - t0, 1);
	store_close(sa);
	store_close(sb);
}
END_TEST

/* A session layer on st (one node's), with a small cache. */
static struct sessions *open_layer(struct store *st)
{
	struct sessions_config cfg = {.store = st, .cache_max = 8};
	alg_limits_default(&cfg.limits);
	struct sessions *ses;
	ck_assert_int_eq(sessions_open(&cfg, &ses), SES_OK);
	return ses;
}

/* One write of kind k (moves when k is SES_MOVES) through ses. */
static int write_kind(struct sessions *ses, const char *id, const char *token,
		      enum ses_write_kind k, const char *moves,
		      struct session_view *out)
{
	if (k == SES_MOVES)
		return session_moves_write(ses, 3, id, token, moves, -1, NULL,
					   out);
	struct session_write w = {.kind = k, .id = id, .token = token,
				  .if_match = -1};
	memset(out, 0, sizeof *out);
	return sessions_write(ses, &w, out, NULL);
}

/* Two nodes (two stores and session layers on one database) take turns
 * on one session, so that each write first finds the other's versions:
 * a node catches up by applying the events after its copy to it (or,
 * past a reset, replays the history). Every write's state must be the
 * one a layer with nothing cached replays from the rows at that version,
 * and both nodes must agree on what can be undone. */
START_TEST(pg_nodes_catch_up_exact)
{
	char url[256];
	new_db("catch", url, sizeof url);
	struct store *sa = open_store(url), *sb = open_store(url),
		     *sr = open_store(url);
	struct sessions *a = open_layer(sa), *b = open_layer(sb);
	struct session_view v;
	char token[36];
	struct session_create c = {.size = 3, .actor = "owner"};
	ck_assert_int_eq(sessions_create(a, &c, &v, token, NULL), SES_OK);
	static const char *const moves[] = {"R U", "F2 L'", "B D'", "U2 R'"};
	/* node per step: a a b a b b b a ...; kinds: moves, undo, redo,
	 * and a reset now and then */
	int64_t version = 0;
	int undone = 0;
	for (int i = 0; i < 60; i++) {
		struct sessions *node = (i * 7 / 3) % 2 ? b : a;
		enum ses_write_kind k = i % 17 == 16 ? SES_RESET
				      : i % 5 == 3   ? SES_UNDO
				      : i % 5 == 4 && undone ? SES_REDO
							     : SES_MOVES;
		struct session_view w;
		int rc = write_kind(node, v.id, token, k, moves[i % 4], &w);
		if (rc == SES_NOTHING_TO_UNDO) {
			ck_assert_int_eq(k, SES_UNDO);
			continue;
		}
		ck_assert_msg(rc == SES_OK, "step %d answered %d (%s)", i, rc,
			      sessions_strerror(rc));
		ck_assert_int_eq(w.version, ++version);
		undone = k == SES_UNDO;
		/* the reference: a layer with nothing cached */
		struct sessions *r = open_layer(sr);
		struct session_view ref;
		ck_assert_int_eq(sessions_get(r, v.id, version, &ref), SES_OK);
		ck_assert_ptr_nonnull(w.facelets);
		ck_assert_ptr_nonnull(ref.facelets);
		ck_assert_msg(strcmp(w.facelets, ref.facelets) == 0,
			      "step %d: %s, replayed %s", i, w.facelets,
			      ref.facelets);
		session_view_free(&ref);
		ck_assert_int_eq(sessions_get(r, v.id, -1, &ref), SES_OK);
		ck_assert_int_eq(ref.can_undo, w.can_undo);
		ck_assert_int_eq(ref.can_redo, w.can_redo);
		session_view_free(&ref);
		sessions_close(r);
		session_view_free(&w);
	}
	session_view_free(&v);
	sessions_close(a);
	sessions_close(b);
	store_close(sa);
	store_close(sb);
	store_close(sr);
}
END_TEST

/* A node whose copy of a session is a few events behind catches up
 * inside its write's batch with one round trip more, whatever the gap:
 * the lock, the read-ahead of the row and the events, the flush with
 * COMMIT (before, two more for each session behind). */
START_TEST(pg_nodes_catch_up_in_one_trip)
{
	char url[256];
	new_db("trip", url, sizeof url);
	struct store *sa = open_store(url), *sb = open_store(url);
	struct sessions *a = open_layer(sa), *b = open_layer(sb);
	struct session_view v, w;
	char token[36];
	struct session_create c = {.size = 3, .actor = "owner"};
	ck_assert_int_eq(sessions_create(a, &c, &v, token, NULL), SES_OK);
	for (int gap = 1; gap <= 5; gap += 2) {
		/* a has the session cached at its last write */
		ck_assert_int_eq(write_kind(a, v.id, token, SES_MOVES, "R",
					    &w),
				 SES_OK);
		int64_t at = w.version;
		session_view_free(&w);
		for (int i = 0; i < gap; i++) {
			ck_assert_int_eq(write_kind(b, v.id, token, SES_MOVES,
						    "U", &w),
					 SES_OK);
			session_view_free(&w);
		}
		uint64_t t0 = trips(sa);
		ck_assert_int_eq(write_kind(a, v.id, token, SES_MOVES, "F",
					    &w),
				 SES_OK);
		ck_assert_int_eq(w.version, at + gap + 1);
		session_view_free(&w);
		ck_assert_msg(trips(sa) - t0 == 3,
			      "%d events behind: %llu round trips, not 3",
			      gap, (unsigned long long)(trips(sa) - t0));
	}
	/* the state a layer with nothing cached replays */
	struct sessions *r = open_layer(sb);
	struct session_view ref, mine;
	ck_assert_int_eq(sessions_get(r, v.id, -1, &ref), SES_OK);
	ck_assert_int_eq(sessions_get(a, v.id, -1, &mine), SES_OK);
	ck_assert_int_eq(mine.version, ref.version);
	ck_assert_str_eq(mine.facelets, ref.facelets);
	session_view_free(&ref);
	session_view_free(&mine);
	sessions_close(r);
	session_view_free(&v);
	sessions_close(a);
	sessions_close(b);
	store_close(sa);
	store_close(sb);
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
	tcase_add_test(tc, pg_permanent_errors_refused);
	tcase_add_test(tc, pg_notifications_carry_events);
	tcase_add_test(tc, pg_batch_notifies_in_order);
	tcase_add_test(tc, pg_lost_commit_replays);
	tcase_add_test(tc, pg_stalled_claim_taken_over);
	tcase_add_test(tc, pg_batch_refusals_stay_alone);
	tcase_add_test(tc, pg_batch_two_round_trips);
	tcase_add_test(tc, pg_pipelined_flush_fails_whole);
	tcase_add_test(tc, pg_snapshot_rides_the_flush);
	tcase_add_test(tc, pg_nodes_catch_up_exact);
	tcase_add_test(tc, pg_prefetch_answers_once);
	tcase_add_test(tc, pg_nodes_catch_up_in_one_trip);
	suite_add_tcase(s, tc);
	return s;
}
