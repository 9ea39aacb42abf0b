/* check_pg_live.c — live event streams across two cubed nodes on one
 * PostgreSQL database (make test-pg), under the failures of issue 61:
 *
 *   gap_repaired          node B cannot read the store while A writes a
 *                         version (its notification too big to carry the
 *                         event, so B must read it) and while B publishes
 *                         its own next write: B's watcher still gets
 *                         every version exactly once and in order, and
 *                         B's /metrics counts the gap as opened and
 *                         repaired;
 *   gap_cut_after_bound   B cannot read for longer than the bound: the
 *                         stream ends (never a silent stall or skip), the
 *                         gap is counted as cut, and a reconnect with
 *                         Last-Event-ID replays the missing versions;
 *   side_events_every_node  a solve stored and a timed solve begun on
 *                         one node reach the watchers of both, once each
 *                         and in commit order;
 *   ticket_any_node       a stream ticket minted on one node opens the
 *                         private session's stream on the other (200 and
 *                         events), both ways; a forged one, or one of
 *                         another session, is 404 on both;
 *   ticket_expired_everywhere  an expired ticket is 401 ticket_expired on
 *                         every node;
 *   ticket_survives_restart  a ticket minted before a node restarted still
 *                         opens the stream after (the key is the
 *                         database's);
 *   ticket_key_after_start_while_down  a node started while PostgreSQL
 *                         is stopped mints no ticket (503) and, once the
 *                         database answers, signs with its key.
 *
 * B's store reads fail through the store's test seam
 * (CUBED_TEST_READ_FAULTS, server/store/store.c): a file holding how many
 * history reads outside a write transaction must fail next. That is the
 * failure an exhausted connection limit causes at random (the fan-out's
 * read fails while the writer's transaction works), made to happen when
 * the test says; everything else is the real server on a real database. */
#include <check.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_nodes.h"
#include "sse_client.h"
#include "suites.h"

/* The seam's file for node B, in A's directory (removed with it). */
static void faults_path(const server *a, char *out, size_t cap)
{
	snprintf(out, cap, "%s/read-faults", a->dir);
}

static void faults_set(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fprintf(f, "%ld\n", n);
	ck_assert_int_eq(fclose(f), 0);
}

static long faults_left(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = -1;
	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Node A on a new database; node B on the same one, its history reads
 * failing on demand through the file at faults. */
static void start_two_with_seam(server *a, server *b, char *faults,
				size_t cap)
{
	pg_node_start(a, NULL, NULL);
	faults_path(a, faults, cap);
	faults_set(faults, 0);
	setenv("CUBED_TEST_READ_FAULTS", faults, 1);
	pg_node_start(b, a, NULL);
	unsetenv("CUBED_TEST_READ_FAULTS");
}

/* POST moves to s on port: asserts 200 and the version it made. */
static void write_moves(int port, const ses *s, const char *moves,
			long long want_version)
{
	char path[160];
	snprintf(path, sizeof path, "%s/moves", s->path);
	json_t *body = json_pack("{s:s}", "moves", moves);
	char *text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	json_t *r = expect_json(port, "POST", path, s->token, NULL, text, 200,
				NULL);
	free(text);
	ck_assert_int_eq(iget(r, "version"), want_version);
	json_decref(r);
}

/* Moves whose event is too big for a notification's payload (schema/pg/
 * 003: over 7900 bytes), so other nodes must read it from the table. */
static char *long_moves(void)
{
	static const char unit[] = "R U' ";
	size_t reps = 1800, len = reps * (sizeof unit - 1);
	char *m = malloc(len + 1);
	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < reps; i++)
		memcpy(m + i * (sizeof unit - 1), unit, sizeof unit - 1);
	m[len - 1] = '\0'; /* no trailing space */
	return m;
}

/* The next event with an id (comments, presence skipped) within
 * timeout_ms: its version; -2 when the stream ended, -1 on a timeout. */
static long long next_version(sse_client *w, int timeout_ms, char *type,
			      size_t cap)
{
	sse_event e;
	int k = sse_next_with_id(w, &e, timeout_ms);
	if (k == 0)
		return -2;
	if (k < 0)
		return -1;
	long long v = atoll(e.id);
	if (type)
		snprintf(type, cap, "%s", e.type);
	/* the data's version is the id's */
	json_t *d = json_loads(e.data, 0, NULL);
	ck_assert_msg(d != NULL, "event %s: data is not JSON", e.id);
	ck_assert_int_eq(iget(d, "version"), v);
	json_decref(d);
	sse_event_free(&e);
	return v;
}

/* One counter of node port's /metrics. */
static long long metric(int port, const char *name)
{
	http_response r;
	call(&r, port, "GET", "/metrics", NULL, NULL, NULL);
	ck_assert_int_eq(r.status, 200);
	char key[96];
	snprintf(key, sizeof key, "\n%s ", name);
	const char *p = strstr(r.body, key);
	ck_assert_msg(p != NULL, "/metrics has no %s", name);
	long long v = atoll(p + strlen(key));
	http_response_free(&r);
	return v;
}

/* A watcher on B of a new session of A's, live at version 2 (one write
 * of B's, so B's writer knows the session, and one of A's). */
static void live_watcher(server *a, server *b, ses *s, sse_client *w)
{
	json_decref(create(a->port, "{\"size\": 3}", s));
	watch_session(w, b->port, s, 0);
	write_moves(b->port, s, "R", 1);
	ck_assert_int_eq(next_version(w, 5000, NULL, 0), 1);
	write_moves(a->port, s, "U", 2);
	ck_assert_int_eq(next_version(w, 5000, NULL, 0), 2);
}

/* Wait up to 5 s for the seam's count to fall to at most n. */
static void wait_faults(const char *faults, long n)
{
	double until = now_s() + 5;
	while (faults_left(faults) > n && now_s() < until)
		test_sleep_ms(5);
	ck_assert_msg(faults_left(faults) <= n,
		      "node B made no history read (%ld left)",
		      faults_left(faults));
}

START_TEST(gap_repaired)
{
	server a, b;
	char faults[160];
	start_two_with_seam(&a, &b, faults, sizeof faults);
	ses s;
	sse_client w;
	live_watcher(&a, &b, &s, &w);
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_total"), 0);

	/* B cannot read the store: A's version 3 (its event too big to
	 * ride in the notification) is not read when its notification
	 * comes */
	faults_set(faults, 1000000);
	char *big = long_moves();
	write_moves(a.port, &s, big, 3);
	free(big);
	wait_faults(faults, 999999);
	/* B's own version 4 (its writer reads version 3 in its transaction,
	 * which the seam spares): B publishes it while 3 is still missing,
	 * and reads again twice (the notification of 4, the fill before
	 * 4) and fails both */
	long before = faults_left(faults);
	write_moves(b.port, &s, "F", 4);
	wait_faults(faults, before - 2);
	/* B's reads work again */
	faults_set(faults, 0);
	/* every version, once, in order: 3 is never skipped, 4 never comes
	 * first */
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 3);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 4);
	write_moves(a.port, &s, "L", 5);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 5);
	write_moves(b.port, &s, "D", 6);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 6);

	long long gaps = metric(b.port, "cubed_event_gaps_total");
	ck_assert_msg(gaps >= 1, "no gap counted");
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_repaired_total"),
			 gaps);
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_cut_total"), 0);
	/* and said in the log */
	char tail[16384];
	test_server_log_tail(&b, tail, sizeof tail);
	ck_assert_msg(strstr(tail, "event gap:") != NULL, "%s", tail);
	ck_assert_msg(strstr(tail, "event gap repaired") != NULL, "%s", tail);
	sse_close(&w);
	pg_nodes_stop(&a, &b);
}
END_TEST

START_TEST(gap_cut_after_bound)
{
	server a, b;
	char faults[160];
	start_two_with_seam(&a, &b, faults, sizeof faults);
	ses s;
	sse_client w;
	live_watcher(&a, &b, &s, &w);

	/* B cannot read until the test says so */
	faults_set(faults, 1000000);
	char *big = long_moves();
	write_moves(a.port, &s, big, 3);
	free(big);
	wait_faults(faults, 999999);
	/* the stream ends within the bound (events.c GAP_MAX_MS, 10 s)
	 * rather than stall or skip 3 */
	double t0 = now_s();
	ck_assert_int_eq(next_version(&w, 20000, NULL, 0), -2);
	ck_assert_msg(now_s() - t0 < 15, "ended after %.1f s", now_s() - t0);
	sse_close(&w);
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_total"), 1);
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_cut_total"), 1);
	ck_assert_int_eq(metric(b.port, "cubed_event_gaps_repaired_total"), 0);

	/* reads work again: the client reconnects with Last-Event-ID and
	 * gets what it missed, then goes on live */
	faults_set(faults, 0);
	char path[160];
	snprintf(path, sizeof path, "%s/events", s.path);
	const char *h[] = {"Last-Event-ID: 2", NULL};
	ck_assert_msg(sse_open(&w, b.port, path, h, 5000, 0) == 0, "%s",
		      w.error);
	ck_assert_int_eq(w.status, 200);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 3);
	write_moves(b.port, &s, "F", 4);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 4);
	write_moves(a.port, &s, "B", 5);
	ck_assert_int_eq(next_version(&w, 10000, NULL, 0), 5);
	sse_close(&w);
	pg_nodes_stop(&a, &b);
}
END_TEST

/* A private session made through port: its stream opens with a ticket
 * (or its token) only. */
static void create_private(int port, ses *s)
{
	json_decref(create(port, "{\"size\": 3, \"visibility\": \"private\"}",
			   s));
}

/* POST <s>/tickets on port with s's owner token: the ticket (201). */
static void mint(int port, const ses *s, char *out, size_t cap)
{
	char path[160];
	snprintf(path, sizeof path, "%s/tickets", s->path);
	json_t *r = expect_json(port, "POST", path, s->token, NULL, NULL, 201,
				NULL);
	snprintf(out, cap, "%s", sget(r, "ticket"));
	json_decref(r);
}

/* A private session made through port, and a ticket to its stream
 * minted there. */
static void private_with_ticket(int port, ses *s, char *t, size_t cap)
{
	create_private(port, s);
	mint(port, s, t, cap);
}

/* GET <s>/events?ticket=t on port: the status; on 200, w is open and
 * its first event (the state) was read at version want. */
static int open_with_ticket(int port, const ses *s, const char *t,
			    sse_client *w, long long want)
{
	char path[256];
	snprintf(path, sizeof path, "%s/events?ticket=%s", s->path, t);
	ck_assert_msg(sse_open(w, port, path, NULL, 5000, 0) == 0, "%s",
		      w->error);
	int st = w->status;
	if (st == 200) {
		char type[32];
		ck_assert_int_eq(next_version(w, 5000, type, sizeof type),
				 want);
		ck_assert_str_eq(type, "state");
	} else {
		sse_close(w);
	}
	return st;
}

/* A ticket refused on port with this problem. */
static void expect_refused(int port, const ses *s, const char *t,
			   int status, const char *kind, const char *code)
{
	char path[256];
	snprintf(path, sizeof path, "%s/events?ticket=%s", s->path, t);
	json_decref(expect_problem(port, "GET", path, NULL, NULL, NULL, status,
				   kind, code, NULL, NULL));
}

START_TEST(ticket_any_node)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	/* minted on A, opened on B (the stream of a private session): 200,
	 * and A's writes arrive */
	ses s;
	char t[64];
	private_with_ticket(a.port, &s, t, sizeof t);
	sse_client w;
	ck_assert_int_eq(open_with_ticket(b.port, &s, t, &w, 0), 200);
	write_moves(a.port, &s, "R", 1);
	ck_assert_int_eq(next_version(&w, 5000, NULL, 0), 1);
	sse_close(&w);
	/* and the other way round */
	mint(b.port, &s, t, sizeof t);
	ck_assert_int_eq(open_with_ticket(a.port, &s, t, &w, 1), 200);
	write_moves(b.port, &s, "U", 2);
	ck_assert_int_eq(next_version(&w, 5000, NULL, 0), 2);
	sse_close(&w);
	/* a forged one (any character changed) is refused on both, like
	 * a wrong token: the session stays hidden */
	char f[64];
	snprintf(f, sizeof f, "%s", t);
	f[10] = f[10] == 'A' ? 'B' : 'A';
	expect_refused(a.port, &s, f, 404, "not_found", "no_such_session");
	expect_refused(b.port, &s, f, 404, "not_found", "no_such_session");
	/* one of another session of the same database too */
	ses other;
	create_private(a.port, &other);
	char t2[64];
	mint(b.port, &other, t2, sizeof t2);
	expect_refused(a.port, &s, t2, 404, "not_found", "no_such_session");
	expect_refused(b.port, &s, t2, 404, "not_found", "no_such_session");
	pg_nodes_stop(&a, &b);
}
END_TEST

START_TEST(ticket_expired_everywhere)
{
	server a, b, c;
	pg_nodes_start(&a, &b, NULL);
	/* a third node of the database whose tickets live one second */
	const char *ttl[] = {"--ticket-ttl", "1", NULL};
	pg_node_start(&c, &a, ttl);
	ses s;
	create_private(a.port, &s);
	char t[64];
	mint(c.port, &s, t, sizeof t);
	sse_client w;
	ck_assert_int_eq(open_with_ticket(a.port, &s, t, &w, 0), 200);
	sse_close(&w);
	/* past its expiry (in the ticket, signed): 401 ticket_expired on
	 * every node */
	test_sleep_ms(1100);
	expect_refused(a.port, &s, t, 401, "unauthorized", "ticket_expired");
	expect_refused(b.port, &s, t, 401, "unauthorized", "ticket_expired");
	expect_refused(c.port, &s, t, 401, "unauthorized", "ticket_expired");
	ck_assert_int_eq(server_stop(&c, 1), 0);
	pg_nodes_stop(&a, &b);
}
END_TEST

START_TEST(ticket_survives_restart)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	ses s;
	char t[64];
	private_with_ticket(a.port, &s, t, sizeof t);
	/* both nodes restarted (a rolling upgrade): the key is the
	 * database's, so the page's ticket still works */
	ck_assert_int_eq(server_stop(&b, 1), 0);
	char dir[64];
	snprintf(dir, sizeof dir, "%s", a.dir);
	ck_assert_int_eq(server_stop(&a, 0), 0);
	const char *first[] = {"--rate-limit", "0", NULL};
	start_or_abort(&a, dir, first);
	sse_client w;
	ck_assert_int_eq(open_with_ticket(a.port, &s, t, &w, 0), 200);
	sse_close(&w);
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

START_TEST(ticket_key_after_start_while_down)
{
	server a;
	pg_node_start(&a, NULL, NULL);
	ses s;
	char t[64];
	private_with_ticket(a.port, &s, t, sizeof t);

	/* a node that starts while the database is stopped cannot read the
	 * key: it must not sign with one of its own */
	struct pg_cluster c;
	pg_test_cluster(&c);
	char err[1024];
	ck_assert_int_eq(pg_cluster_halt(&c), 0);
	server n;
	ck_assert_msg(pg_node_start_at(&n, a.db, err, sizeof err) == 0, "%s",
		      err);
	char path[256];
	snprintf(path, sizeof path, "%s/tickets", s.path);
	json_decref(expect_problem(n.port, "POST", path, s.token, NULL, NULL,
				   503, "unavailable", "store_unavailable",
				   NULL, NULL));
	ck_assert_msg(pg_cluster_resume(&c, err, sizeof err) == 0, "%s", err);
	/* once it answers, A's ticket opens the stream on the new node, and
	 * the new node's tickets open it on A */
	ck_assert_int_eq(wait_ready(n.port, 30), 200);
	sse_client w;
	ck_assert_int_eq(open_with_ticket(n.port, &s, t, &w, 0), 200);
	sse_close(&w);
	mint(n.port, &s, t, sizeof t);
	/* A's pooled connections died with the database: each may fail
	 * once (a 503 store_unavailable, issue 61's item 7) before A reads
	 * again; the ticket itself is never refused */
	int st = 0;
	for (int i = 0; i < 20; i++) {
		st = open_with_ticket(a.port, &s, t, &w, 0);
		if (st != 503)
			break;
	}
	ck_assert_int_eq(st, 200);
	sse_close(&w);
	ck_assert_int_eq(server_stop(&n, 1), 0);
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

/* Stream tickets need no write: where the key is there it is read, not
 * made (store_pg.c, pg_ticket_key). On a database made read-only, a node
 * that starts then refuses writes (503 storage_unavailable) but opens
 * the stream with a ticket minted before, mints tickets itself, and
 * those open the stream on the node that ran before too. */
START_TEST(ticket_read_only_database)
{
	server a;
	pg_node_start(&a, NULL, NULL);
	ses s;
	char t[64];
	private_with_ticket(a.port, &s, t, sizeof t);
	const char *dbname = strrchr(a.db, '/') + 1;
	pg_read_only(dbname, 1);
	server n;
	char err[2048];
	ck_assert_msg(pg_node_start_at(&n, a.db, err, sizeof err) == 0, "%s",
		      err);
	json_decref(expect_problem(n.port, "POST", "/v1/sessions", NULL, NULL,
				   "{\"size\": 3}", 503, "storage_unavailable",
				   "storage_unavailable", NULL, NULL));
	sse_client w;
	ck_assert_int_eq(open_with_ticket(n.port, &s, t, &w, 0), 200);
	sse_close(&w);
	char t2[64];
	mint(n.port, &s, t2, sizeof t2);
	ck_assert_int_eq(open_with_ticket(n.port, &s, t2, &w, 0), 200);
	sse_close(&w);
	ck_assert_int_eq(open_with_ticket(a.port, &s, t2, &w, 0), 200);
	sse_close(&w);
	pg_read_only(dbname, 0);
	ck_assert_int_eq(server_stop(&n, 1), 0);
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

/* The watcher of replay_held: opened on port in a thread of its own
 * (its subscription is held by the seam inside the request), the
 * versions of its first two events. */
struct held_watch {
	int port;
	char path[160];
	long long v[2];
	char error[256];
};

static void *held_watch_run(void *arg)
{
	struct held_watch *h = arg;
	sse_client w;
	h->v[0] = h->v[1] = -1;
	if (sse_open(&w, h->port, h->path, NULL, 15000, 0) != 0) {
		snprintf(h->error, sizeof h->error, "%s", w.error);
		return NULL;
	}
	if (w.status == 200) {
		h->v[0] = next_version(&w, 5000, NULL, 0);
		h->v[1] = next_version(&w, 3000, NULL, 0);
	} else {
		snprintf(h->error, sizeof h->error, "status %d", w.status);
	}
	sse_close(&w);
	return NULL;
}

/* The race 78fafc8 fixed, held open by a seam (CUBED_TEST_HOLD_SUBSCRIBE,
 * server/live/events_watch.c): node B's first watcher of a session has
 * read it from the store (version 0) and is held before it may go live;
 * node A commits version 1, and B hears of it while nobody there is live,
 * so nothing is appended. Released, the watcher must deliver version 1
 * (it reads the store again) rather than go live at 0 and wait for it
 * until some later event. */
START_TEST(announced_while_replaying)
{
	server a, b;
	pg_node_start(&a, NULL, NULL);
	char hold[128], reached[160];
	snprintf(hold, sizeof hold, "%s/hold", a.dir);
	snprintf(reached, sizeof reached, "%s.reached", hold);
	FILE *f = fopen(hold, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("CUBED_TEST_HOLD_SUBSCRIBE", hold, 1);
	pg_node_start(&b, &a, NULL);
	unsetenv("CUBED_TEST_HOLD_SUBSCRIBE");
	ses s;
	json_decref(create(a.port, "{\"size\": 3}", &s));

	struct held_watch h = {.port = b.port};
	snprintf(h.path, sizeof h.path, "%s/events", s.path);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, held_watch_run, &h), 0);
	double end = now_s() + 10;
	while (access(reached, F_OK) != 0 && now_s() < end)
		test_sleep_ms(10);
	int held = access(reached, F_OK) == 0;
	long long before = -1, after = -1;
	if (held) {
		http_response r;
		call(&r, b.port, "GET", "/metrics", NULL, NULL, NULL);
		ck_assert_int_eq(r.status, 200);
		before = (long long)http_metric(r.body,
					       "cubed_db_notifications_total");
		http_response_free(&r);
		write_moves(a.port, &s, "R", 1);
		/* B has heard of version 1 (nobody live there yet) */
		end = now_s() + 10;
		do {
			call(&r, b.port, "GET", "/metrics", NULL, NULL, NULL);
			ck_assert_int_eq(r.status, 200);
			after = (long long)http_metric(
				r.body, "cubed_db_notifications_total");
			http_response_free(&r);
			if (after > before)
				break;
			test_sleep_ms(10);
		} while (now_s() < end);
	}
	unlink(hold);
	pthread_join(t, NULL);
	ck_assert_msg(held, "the watcher never reached the seam");
	ck_assert_msg(after > before, "node B heard no notification");
	ck_assert_msg(h.v[0] == 0, "first event %lld (%s)", h.v[0], h.error);
	ck_assert_msg(h.v[1] == 1, "version 1 not delivered: %lld", h.v[1]);
	unlink(reached);
	pg_nodes_stop(&a, &b);
}
END_TEST

/* A node's listener hears its own commits too. With the fan-out thread
 * held by a seam (CUBED_TEST_HOLD_FANOUT, server/live/events.c) on the
 * batch that holds a stored solve, the node commits a move; its own
 * notification of that version must not overtake the solve on its
 * streams (it is handled in its place in the fan-out queue). Before, the
 * listener appended it at once: the move first, then the solve
 * (side_events_every_node failed so now and then under load). */
START_TEST(own_notification_keeps_order)
{
	char hold[128], reached[160];
	snprintf(hold, sizeof hold, "/tmp/cubed-fanout-%d", (int)getpid());
	snprintf(reached, sizeof reached, "%s.reached", hold);
	unlink(hold);
	unlink(reached);
	setenv("CUBED_TEST_HOLD_FANOUT", hold, 1);
	server a;
	pg_node_start(&a, NULL, NULL);
	unsetenv("CUBED_TEST_HOLD_FANOUT");
	need_tables_on(a.port);
	ses s;
	json_decref(create(a.port, "{\"size\": 2}", &s));
	sse_client w;
	watch_session(&w, a.port, &s, 0);
	write_moves(a.port, &s, "R", 1);
	sse_event e;
	expect_sse_event(&w, &e, 5000, "node A");
	ck_assert_str_eq(e.type, "moves");
	sse_event_free(&e);

	FILE *f = fopen(hold, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	char p[192];
	snprintf(p, sizeof p, "%s/solve", s.path);
	json_decref(expect_json(a.port, "POST", p, NULL, NULL, NULL, 201, NULL));
	double end = now_s() + 10;
	while (access(reached, F_OK) != 0 && now_s() < end)
		test_sleep_ms(10);
	int held = access(reached, F_OK) == 0;
	http_response r;
	call(&r, a.port, "GET", "/metrics", NULL, NULL, NULL);
	long long before = (long long)http_metric(r.body,
						  "cubed_db_notifications_total");
	http_response_free(&r);
	long long after = before;
	if (held) {
		write_moves(a.port, &s, "U", 2);
		/* the listener has heard of version 2 */
		end = now_s() + 10;
		while (after <= before && now_s() < end) {
			call(&r, a.port, "GET", "/metrics", NULL, NULL, NULL);
			after = (long long)http_metric(
				r.body, "cubed_db_notifications_total");
			http_response_free(&r);
			if (after <= before)
				test_sleep_ms(10);
		}
	}
	unlink(hold);
	ck_assert_msg(held, "the fan-out thread never reached the seam");
	ck_assert_msg(after > before, "no notification of version 2");
	static const char *const want[] = {"solve", "moves"};
	for (int k = 0; k < 2; k++) {
		expect_sse_event(&w, &e, 5000, "node A");
		ck_assert_msg(strcmp(e.type, want[k]) == 0, "event %d: %s, not %s",
			      k, e.type, want[k]);
		sse_event_free(&e);
	}
	sse_close(&w);
	unlink(reached);
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

/* A solve stored and a timed solve begun on node A reach the watchers
 * of both nodes, each exactly once and in commit order (issue 64:
 * before, only A's watchers heard of them; schema/pg/009 announces them,
 * and A skips its own). */
START_TEST(side_events_every_node)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	need_tables_on(a.port);
	ses s;
	json_decref(create(a.port, "{\"size\": 2}", &s));
	sse_client w[2];
	const int ports[2] = {a.port, b.port};
	for (int i = 0; i < 2; i++)
		watch_session(&w[i], ports[i], &s, 0);
	/* both streams live (a watcher still replaying from the store
	 * meets events without an id where they come, not among the
	 * versions it is reading) */
	write_moves(a.port, &s, "R", 1);
	for (int i = 0; i < 2; i++) {
		sse_event e;
		expect_sse_event(&w[i], &e, 5000, i ? "node B" : "node A");
		ck_assert_str_eq(e.type, "moves");
		ck_assert_str_eq(e.id, "1");
		sse_event_free(&e);
	}
	char p[192];
	snprintf(p, sizeof p, "%s/solve", s.path);
	json_decref(expect_json(a.port, "POST", p, NULL, NULL, NULL, 201, NULL));
	snprintf(p, sizeof p, "%s/timed", s.path);
	json_decref(expect_json(a.port, "POST", p, s.token, NULL, "{}", 201,
				NULL));
	write_moves(a.port, &s, "U", 2);
	static const char *const want[] = {"solve", "timed", "moves"};
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < 3; k++) {
			sse_event e;
			expect_sse_event(&w[i], &e, 5000,
					 i ? "node B" : "node A");
			ck_assert_msg(strcmp(e.type, want[k]) == 0,
				      "node %c, event %zu: %s, not %s", "AB"[i],
				      k, e.type, want[k]);
			json_t *d = json_loads(e.data, 0, NULL);
			ck_assert_ptr_nonnull(d);
			if (k == 0) {
				ck_assert_str_eq(sget(d, "method"), "optimal");
				ck_assert_str_eq(sget(d, "moves"), "R'");
				ck_assert_int_eq(iget(d, "version"), 1);
			} else if (k == 1) {
				ck_assert_str_eq(sget(d, "actor"), "owner");
				ck_assert_int_eq(iget(d, "version"), 1);
			}
			json_decref(d);
			sse_event_free(&e);
		}
		sse_close(&w[i]);
	}
	pg_nodes_stop(&a, &b);
}
END_TEST

Suite *pg_live_suite(void)
{
	Suite *s = suite_create("pg_live");
	TCase *tc = tcase_create("gaps");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, gap_repaired);
	tcase_add_test(tc, gap_cut_after_bound);
	tcase_add_test(tc, announced_while_replaying);
	suite_add_tcase(s, tc);
	TCase *side = tcase_create("side_events");
	tcase_set_timeout(side, 180);
	tcase_add_test(side, side_events_every_node);
	tcase_add_test(side, own_notification_keeps_order);
	suite_add_tcase(s, side);
	TCase *tk = tcase_create("tickets");
	tcase_set_timeout(tk, 60);
	tcase_add_test(tk, ticket_any_node);
	tcase_add_test(tk, ticket_expired_everywhere);
	tcase_add_test(tk, ticket_survives_restart);
	tcase_add_test(tk, ticket_key_after_start_while_down);
	tcase_add_test(tk, ticket_read_only_database);
	suite_add_tcase(s, tk);
	return s;
}
