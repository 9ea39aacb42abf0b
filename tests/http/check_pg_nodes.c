/* check_pg_nodes.c — two cubed nodes on one PostgreSQL database (make
 * test-pg): what issue 23 promises of many nodes, checked through HTTP.
 *
 *   read_your_writes      a write acked by one node is what the other
 *                         reads right after, every round, both ways;
 *   if_match_race         both nodes write the same version with If-Match
 *                         at once, hundreds of rounds: exactly one 200
 *                         and one 412 per round, versions dense;
 *   sse_across_nodes      a watcher on B sees A's writes (moves, undo,
 *                         redo, reset) in order, no gap, each with the
 *                         state A stored at that version;
 *   idempotent_retry_across_nodes  a retry with the same Idempotency-Key
 *                         on the other node gets the first answer;
 *   no_lost_update        both nodes write one session without If-Match:
 *                         every write acked, none lost, versions dense;
 *   sigkill_a_node        SIGKILL of one node under load through both:
 *                         every acked write is in the history, the other
 *                         node keeps serving;
 *   postgres_restart      PostgreSQL stopped under load: writes answer 503
 *                         store_unavailable with Retry-After and /readyz
 *                         says not ready; after it starts again the nodes
 *                         write again by themselves and every acked write
 *                         is there;
 *   every_route_when_down every route that needs the store answers 503
 *                         store_unavailable with Retry-After while
 *                         PostgreSQL is stopped, and succeeds on the same
 *                         node once it is back;
 *   start_while_down      a node started while PostgreSQL is stopped is
 *                         not ready, then ready by itself once it is
 *                         back; a missing database refuses to start. */
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

/* POST moves to s through port (If-Match version when >= 0): the status;
 * *version the version of a 200. */
static int post_moves(int port, const ses *s, const char *moves,
		      long long if_match, long long *version, char *body_out,
		      size_t cap)
{
	http_response r;
	int status = send_moves(&r, port, s, moves, NULL, if_match);
	if (body_out)
		snprintf(body_out, cap, "%.300s", status >= 0 ? r.body : r.error);
	if (status == 200 && version) {
		json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
		*version = j ? json_integer_value(json_object_get(j, "version"))
			     : -1;
		json_decref(j);
	}
	http_response_free(&r);
	return status;
}

static const char *const MOVES[] = {"R", "U", "F", "L", "D", "B",
				    "R'", "U'", "F'", "L'", "D'", "B'",
				    "R2", "U2", "F2", "L2", "D2", "B2"};

START_TEST(read_your_writes)
{
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, NULL, &s);
	for (int i = 1; i <= 60; i++) {
		server *w = i % 2 ? &a : &b, *r = i % 2 ? &b : &a;
		long long v = -1;
		char why[320];
		int st = post_moves(w->port, &s, MOVES[i % 18], -1, &v, why,
				    sizeof why);
		ck_assert_msg(st == 200, "write %d: %d %s", i, st, why);
		ck_assert_int_eq(v, i);
		/* the other node, at once: never the version before */
		json_decref(get_session(r->port, s.path, NULL, i));
	}
	pg_nodes_stop(&a, &b);
}
END_TEST

struct racer {
	int port;
	const ses *s;
	pthread_barrier_t *bar;
	int rounds;
	int *status;           /* per round */
	long long *version;    /* per round, of a 200 */
	char error[320];
};

/* Each round: wait for the other racer, read the version on its own
 * node, then write it + 1 with If-Match. */
static void *race(void *arg)
{
	struct racer *r = arg;
	for (int i = 0; i < r->rounds; i++) {
		pthread_barrier_wait(r->bar);
		char path[160];
		snprintf(path, sizeof path, "%s", r->s->path);
		http_response g;
		long long v = -1;
		if (http_request(r->port, "GET", path, NULL, NULL, 0, &g) == 0 &&
		    g.status == 200) {
			json_t *j = json_loadb(g.body, g.body_len, 0, NULL);
			v = json_integer_value(json_object_get(j, "version"));
			json_decref(j);
		}
		http_response_free(&g);
		/* both read before either writes: the same version */
		pthread_barrier_wait(r->bar);
		r->status[i] = post_moves(r->port, r->s, MOVES[i % 18], v,
					  &r->version[i], r->error,
					  sizeof r->error);
	}
	return NULL;
}

START_TEST(if_match_race)
{
	enum { ROUNDS = 300 };
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, NULL, &s);
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 2);
	static int sa[ROUNDS], sb[ROUNDS];
	static long long va[ROUNDS], vb[ROUNDS];
	struct racer ra = {a.port, &s, &bar, ROUNDS, sa, va, ""};
	struct racer rb = {b.port, &s, &bar, ROUNDS, sb, vb, ""};
	pthread_t ta, tb;
	pthread_create(&ta, NULL, race, &ra);
	pthread_create(&tb, NULL, race, &rb);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&bar);
	int wins_a = 0, wins_b = 0;
	for (int i = 0; i < ROUNDS; i++) {
		int one = (sa[i] == 200) + (sb[i] == 200);
		int lost = (sa[i] == 412) + (sb[i] == 412);
		ck_assert_msg(one == 1 && lost == 1,
			      "round %d: statuses %d (A) and %d (B), not one "
			      "200 and one 412: %s %s",
			      i, sa[i], sb[i], ra.error, rb.error);
		long long v = sa[i] == 200 ? va[i] : vb[i];
		ck_assert_msg(v == i + 1, "round %d: the winner wrote version "
					  "%lld",
			      i, v);
		wins_a += sa[i] == 200;
		wins_b += sb[i] == 200;
	}
	/* versions dense: history 1..ROUNDS, each the winner's moves */
	json_t *h = history_all(b.port, &s, NULL, 100);
	ck_assert_int_eq(json_array_size(h), ROUNDS + 1); /* and the create */
	ck_assert_int_eq(iget(json_array_get(h, 0), "version"), 0);
	for (int i = 0; i < ROUNDS; i++) {
		json_t *e = json_array_get(h, (size_t)i + 1);
		ck_assert_int_eq(iget(e, "version"), i + 1);
		ck_assert_str_eq(sget(e, "moves"), MOVES[i % 18]);
	}
	json_decref(h);
	json_decref(get_session(a.port, s.path, NULL, ROUNDS));
	fprintf(stderr, "pg_nodes: %d If-Match rounds, A won %d, B won %d\n",
		ROUNDS, wins_a, wins_b);
	pg_nodes_stop(&a, &b);
}
END_TEST

/* What write i of sse_across_nodes is. */
static const char *write_kind(int i)
{
	switch (i % 10) {
	case 4: return "undo";
	case 5: return "redo";
	case 8: return "reset";
	default: return "moves";
	}
}

START_TEST(sse_across_nodes)
{
	enum { WRITES = 40 };
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, NULL, &s);
	sse_client w;
	watch_session(&w, b.port, &s, 0);
	sse_event e;
	/* moves, with an undo, a redo and a reset now and then: each kind
	 * of event B formats from what the notification carried (or reads
	 * back: a reset) */
	for (int i = 1; i <= WRITES; i++) {
		const char *kind = write_kind(i);
		if (strcmp(kind, "moves") != 0) {
			char p[192];
			snprintf(p, sizeof p, "%s/%s", s.path, kind);
			json_decref(expect_json(a.port, "POST", p, s.token,
						NULL, NULL, 200, NULL));
			continue;
		}
		long long v;
		char why[320];
		ck_assert_msg(post_moves(a.port, &s, MOVES[i % 18], -1, &v, why,
					 sizeof why) == 200,
			      "%s", why);
	}
	for (int i = 1; i <= WRITES; i++) {
		ck_assert_msg(sse_next_event(&w, &e, 10000) == 1, "event %d: %s",
			      i, w.error);
		char want[16];
		snprintf(want, sizeof want, "%d", i);
		ck_assert_str_eq(e.type, write_kind(i));
		ck_assert_msg(strcmp(e.id, want) == 0, "event %d has id %s", i,
			      e.id);
		json_t *d = json_loads(e.data, 0, NULL);
		ck_assert_ptr_nonnull(d);
		if (strcmp(e.type, "moves") == 0)
			ck_assert_str_eq(sget(d, "moves"), MOVES[i % 18]);
		ck_assert_int_eq(iget(d, "version"), i);
		/* the state B streamed is the one A stored at that version */
		char at[192];
		snprintf(at, sizeof at, "%s?version=%d", s.path, i);
		json_t *g = expect_json(a.port, "GET", at, NULL, NULL, NULL,
					200, NULL);
		ck_assert_str_eq(sget(d, "facelets"), sget(g, "facelets"));
		json_decref(g);
		json_decref(d);
		sse_event_free(&e);
	}
	sse_close(&w);

	/* Last-Event-ID replay on the other node */
	char path[160];
	snprintf(path, sizeof path, "%s/events", s.path);
	const char *h[] = {"Last-Event-ID: 35", NULL};
	ck_assert_msg(sse_open(&w, a.port, path, h, 5000, 0) == 0, "%s",
		      w.error);
	for (int i = 36; i <= WRITES; i++) {
		ck_assert_msg(sse_next_with_id(&w, &e, 5000) == 1, "%s",
			      w.error);
		char want[16];
		snprintf(want, sizeof want, "%d", i);
		ck_assert_str_eq(e.id, want);
		sse_event_free(&e);
	}
	sse_close(&w);
	pg_nodes_stop(&a, &b);
}
END_TEST

START_TEST(idempotent_retry_across_nodes)
{
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, NULL, &s);
	http_response first, again, other;
	ck_assert_int_eq(send_moves(&first, a.port, &s, "R U", "retry-1", -1),
			 200);
	ck_assert_ptr_null(http_header(&first, "Idempotent-Replayed"));
	/* the retry lands on B: the first answer, not a second write */
	ck_assert_int_eq(send_moves(&again, b.port, &s, "R U", "retry-1", -1),
			 200);
	ck_assert_str_eq(http_header(&again, "Idempotent-Replayed"), "true");
	ck_assert_str_eq(http_header(&again, "ETag"),
			 http_header(&first, "ETag"));
	json_t *j1 = json_loads(first.body, 0, NULL);
	json_t *j2 = json_loads(again.body, 0, NULL);
	ck_assert_int_eq(iget(j1, "version"), 1);
	ck_assert(json_equal(j1, j2));
	json_decref(j1);
	json_decref(j2);
	json_decref(get_session(b.port, s.path, NULL, 1));
	json_decref(get_session(a.port, s.path, NULL, 1));
	/* the same key for another request, on either node: refused */
	ck_assert_int_eq(send_moves(&other, b.port, &s, "F", "retry-1", -1),
			 422);
	ck_assert_ptr_nonnull(strstr(other.body, "idempotency_key_reused"));
	http_response_free(&first);
	http_response_free(&again);
	http_response_free(&other);
	/* a new key writes again */
	ck_assert_int_eq(send_moves(&other, b.port, &s, "F", "retry-2", -1),
			 200);
	http_response_free(&other);
	json_decref(get_session(a.port, s.path, NULL, 2));
	pg_nodes_stop(&a, &b);
}
END_TEST

/* ---------------------------------------------------- load and faults */

#define NLOAD 4

struct loader {
	int port;
	ses s;
	volatile int *stop;
	long long acked[4096]; /* versions acknowledged, in order */
	char moves[4096][4];
	int n;
	int unavailable;       /* 503 store_unavailable answers */
	int retry_after;       /* of those, with Retry-After */
	int unknown;           /* 503 outcome_unknown (COMMIT's answer lost),
				* each with Retry-After */
	int replayed;          /* retries answered Idempotent-Replayed */
	int pending;           /* the last write is unanswered at the end */
	int dead;              /* the node stopped answering */
	char error[400];
};

/* Writes with an Idempotency-Key, each sent again with the same key and
 * moves until it is answered (the README's retry recipe): so whatever the
 * database does, every write lands exactly once. */
static void *load(void *arg)
{
	struct loader *l = arg;
	unsigned seed = (unsigned)(size_t)l;
	const char *m = NULL;
	int tries = 0;
	while (!*l->stop && l->n < 4096) {
		if (!m) {
			m = MOVES[rand_r(&seed) % 18];
			tries = 0;
		}
		char key[64];
		snprintf(key, sizeof key, "%p-%d", (void *)l, l->n);
		http_response r;
		l->pending = 1;
		tries++;
		if (send_moves(&r, l->port, &l->s, m, key, -1) < 0) {
			l->dead = 1;
			http_response_free(&r);
			break;
		}
		if (r.status == 200) {
			json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
			l->acked[l->n] =
				json_integer_value(json_object_get(j, "version"));
			snprintf(l->moves[l->n], sizeof l->moves[0], "%s", m);
			l->n++;
			l->replayed += http_header(&r, "Idempotent-Replayed") !=
				       NULL;
			l->pending = 0;
			m = NULL;
			json_decref(j);
		} else if (r.status == 503 &&
			   strstr(r.body, "\"store_unavailable\"")) {
			l->unavailable++;
			l->retry_after += http_header(&r, "Retry-After") != NULL;
		} else if (r.status == 503 &&
			   strstr(r.body, "\"outcome_unknown\"") &&
			   http_header(&r, "Retry-After")) {
			l->unknown++;
		} else if (!l->error[0]) {
			snprintf(l->error, sizeof l->error, "POST (try %d): %d "
				 "%.300s", tries, r.status, r.body);
		}
		http_response_free(&r);
	}
	return NULL;
}

/* Every version a loader had acked is in s's history (read through port)
 * with its moves. */
static void check_acked(int port, struct loader *ls, int n)
{
	for (int i = 0; i < n; i++) {
		json_t *h = history_all(port, &ls[i].s, NULL, 500);
		size_t len = json_array_size(h);
		long long last = -1;
		for (size_t k = 0; k < len; k++) { /* 0 (create), 1, 2, … */
			json_t *e = json_array_get(h, k);
			ck_assert_int_eq(iget(e, "version"), (long long)k);
			last = (long long)k;
		}
		for (int k = 0; k < ls[i].n; k++) {
			long long v = ls[i].acked[k];
			ck_assert_msg(v >= 1 && v <= last,
				      "session %s: acked version %lld is not in "
				      "its history (%lld events)",
				      ls[i].s.id, v, last);
			json_t *e = json_array_get(h, (size_t)v);
			ck_assert_str_eq(sget(e, "moves"), ls[i].moves[k]);
		}
		json_decref(h);
	}
}

/* Both nodes write one session as fast as they can, no If-Match: every
 * write is acknowledged (a node that finds the other's version reloads
 * and applies its write on top), none is lost, versions are dense. */
START_TEST(no_lost_update)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	static struct loader ls[2];
	volatile int stop = 0;
	memset(ls, 0, sizeof ls);
	json_decref(create(a.port, "{\"size\": 3}", &ls[0].s));
	ls[1].s = ls[0].s;
	ls[0].port = a.port;
	ls[1].port = b.port;
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		ls[i].stop = &stop;
		pthread_create(&th[i], NULL, load, &ls[i]);
	}
	double deadline = now_s() + 30;
	while ((ls[0].n < 150 || ls[1].n < 150) && now_s() < deadline &&
	       !ls[0].error[0] && !ls[1].error[0])
		test_sleep_ms(5);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2; i++)
		ck_assert_msg(!ls[i].error[0] && !ls[i].dead, "%s", ls[i].error);
	ck_assert_msg(ls[0].n >= 150 && ls[1].n >= 150, "%d and %d writes",
		      ls[0].n, ls[1].n);
	/* every acked version once, with its moves; nothing else */
	json_t *h = history_all(a.port, &ls[0].s, NULL, 500);
	ck_assert_int_eq(json_array_size(h), (size_t)(ls[0].n + ls[1].n) + 1);
	json_decref(h);
	check_acked(b.port, ls, 2);
	fprintf(stderr, "pg_nodes: one session, %d + %d writes through two "
			"nodes, history dense\n",
		ls[0].n, ls[1].n);
	pg_nodes_stop(&a, &b);
}
END_TEST

START_TEST(sigkill_a_node)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	static struct loader ls[NLOAD];
	volatile int stop = 0;
	memset(ls, 0, sizeof ls);
	pthread_t th[NLOAD];
	for (int i = 0; i < NLOAD; i++) {
		json_decref(create(a.port, "{\"size\": 3}", &ls[i].s));
		/* two sessions written through each node, and the two nodes
		 * writing the same sessions */
		ls[i].port = i % 2 ? b.port : a.port;
		ls[i].stop = &stop;
	}
	for (int i = 0; i < NLOAD; i++)
		pthread_create(&th[i], NULL, load, &ls[i]);
	/* wait until both nodes acked writes */
	double deadline = now_s() + 20;
	while ((ls[0].n < 20 || ls[1].n < 20) && now_s() < deadline)
		test_sleep_ms(5);
	ck_assert_msg(ls[0].n >= 20 && ls[1].n >= 20, "no load within 20 s");
	test_server_kill(&b);
	/* A keeps serving: its loaders go on acking */
	int a_before = ls[0].n + ls[2].n;
	deadline = now_s() + 20;
	while (ls[0].n + ls[2].n < a_before + 50 && now_s() < deadline)
		test_sleep_ms(5);
	stop = 1;
	for (int i = 0; i < NLOAD; i++)
		pthread_join(th[i], NULL);
	ck_assert_msg(ls[0].n + ls[2].n >= a_before + 50,
		      "node A stopped serving after B died");
	for (int i = 0; i < NLOAD; i += 2)
		ck_assert_msg(!ls[i].error[0] && !ls[i].dead, "A: %s",
			      ls[i].error);
	check_acked(a.port, ls, NLOAD);
	test_server_remove(&b);
	ck_assert_int_eq(server_stop(&a, 1), 0);
}
END_TEST

START_TEST(postgres_restart)
{
	server a, b;
	pg_nodes_start(&a, &b, NULL);
	static struct loader ls[2];
	volatile int stop = 0;
	memset(ls, 0, sizeof ls);
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		json_decref(create(a.port, "{\"size\": 3}", &ls[i].s));
		ls[i].port = i ? b.port : a.port;
		ls[i].stop = &stop;
		pthread_create(&th[i], NULL, load, &ls[i]);
	}
	double deadline = now_s() + 20;
	while ((ls[0].n < 10 || ls[1].n < 10) && now_s() < deadline)
		test_sleep_ms(5);
	struct pg_cluster c;
	pg_test_cluster(&c);
	ck_assert_int_eq(pg_cluster_halt(&c), 0);
	/* down: every write a 503 store_unavailable with Retry-After */
	deadline = now_s() + 20;
	while ((ls[0].unavailable < 5 || ls[1].unavailable < 5) &&
	       now_s() < deadline)
		test_sleep_ms(5);
	ck_assert_msg(ls[0].unavailable >= 5 && ls[1].unavailable >= 5,
		      "writes did not answer store_unavailable: %s %s",
		      ls[0].error, ls[1].error);
	ck_assert_int_eq(ls[0].retry_after, ls[0].unavailable);
	json_decref(expect_problem(a.port, "GET", "/readyz", NULL, NULL, NULL,
				   503, "unavailable", "database", NULL, NULL));
	int before[2] = {ls[0].n, ls[1].n};
	char err[1024];
	ck_assert_msg(pg_cluster_resume(&c, err, sizeof err) == 0, "%s", err);
	/* back: both nodes write again without being restarted */
	deadline = now_s() + 30;
	while ((ls[0].n < before[0] + 20 || ls[1].n < before[1] + 20) &&
	       now_s() < deadline)
		test_sleep_ms(5);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ck_assert_msg(ls[0].n >= before[0] + 20 && ls[1].n >= before[1] + 20,
		      "the nodes did not recover: %d/%d, %d/%d", ls[0].n,
		      before[0], ls[1].n, before[1]);
	for (int i = 0; i < 2; i++)
		ck_assert_msg(!ls[i].error[0], "%s", ls[i].error);
	check_acked(b.port, ls, 2);
	/* exactly once: every write retried with its key until answered is
	 * in the history once; only a last one still unanswered at the stop
	 * may be there without an answer */
	for (int i = 0; i < 2; i++) {
		json_t *h = history_all(b.port, &ls[i].s, NULL, 500);
		long long made = (long long)json_array_size(h) - 1;
		ck_assert_msg(made == ls[i].n || (ls[i].pending &&
						  made == ls[i].n + 1),
			      "session %s: %lld writes made, %d answered",
			      ls[i].s.id, made, ls[i].n);
		json_decref(h);
		printf("pg_nodes: restart: %d writes, %d store_unavailable, "
		       "%d outcome_unknown, %d replayed\n", ls[i].n,
		       ls[i].unavailable, ls[i].unknown, ls[i].replayed);
	}
	json_decref(expect_json(b.port, "GET", "/readyz", NULL, NULL, NULL, 200,
				NULL));
	pg_nodes_stop(&a, &b);
}
END_TEST

/* Every route that reads or writes the store, as sent to a node that
 * never held the session (so no answer can come from its memory): {path}
 * is the session's path, {tid} a token's id. ok: the status once the
 * database is back (the routes run in this order). */
static const struct down_route {
	const char *method, *path, *body;
	int ok;
} DOWN_ROUTES[] = {
	{"GET", "{path}", NULL, 200},
	{"GET", "{path}/history", NULL, 200},
	{"GET", "{path}/solves", NULL, 200},
	{"GET", "{path}/tokens", NULL, 200},
	{"POST", "{path}/tickets", NULL, 201},
	{"POST", "{path}/moves", "{\"moves\": \"R U\"}", 200},
	{"POST", "{path}/undo", NULL, 200},
	{"POST", "{path}/redo", NULL, 200},
	{"POST", "{path}/reset", NULL, 200},
	{"POST", "{path}/fork", NULL, 201},
	{"POST", "{path}/solve", "{\"method\": \"beginner\"}", 201},
	{"POST", "{path}/tokens", "{\"role\": \"read\"}", 201},
	{"DELETE", "{path}/tokens/{tid}", NULL, 204},
	{"POST", "/v1/sessions", "{\"size\": 3}", 201},
	{"DELETE", "{path}", NULL, 204},
};

static void route_path(const struct down_route *d, const ses *s,
		       long long tid, char *out, size_t cap)
{
	const char *p = d->path;
	if (strncmp(p, "{path}", 6) == 0) {
		int k = snprintf(out, cap, "%s", s->path);
		p += 6;
		if (strcmp(p, "/tokens/{tid}") == 0)
			snprintf(out + k, cap - (size_t)k, "/tokens/%lld", tid);
		else
			snprintf(out + k, cap - (size_t)k, "%s", p);
	} else {
		snprintf(out, cap, "%s", p);
	}
}

/* PostgreSQL stopped: every route that needs the store answers 503
 * store_unavailable with Retry-After: 1 (none a 500), and /readyz says
 * not ready; started again, the same requests succeed on the same node,
 * not restarted. */
START_TEST(every_route_when_down)
{
	server a, b;
	ses s;
	pg_nodes_start_session(&a, &b, NULL, &s);
	/* a token to revoke (on A: B must not hold the session) */
	char tp[160];
	snprintf(tp, sizeof tp, "%s/tokens", s.path);
	json_t *tok = expect_json(a.port, "POST", tp, s.token, NULL,
				  "{\"role\": \"read\"}", 201, NULL);
	long long tid = iget(tok, "id");
	json_decref(tok);

	struct pg_cluster c;
	pg_test_cluster(&c);
	ck_assert_int_eq(pg_cluster_halt(&c), 0);
	size_t n = sizeof DOWN_ROUTES / sizeof DOWN_ROUTES[0];
	char path[192];
	for (size_t i = 0; i < n; i++) {
		const struct down_route *d = &DOWN_ROUTES[i];
		route_path(d, &s, tid, path, sizeof path);
		http_response r;
		json_decref(expect_problem(b.port, d->method, path, s.token,
					   NULL, d->body, 503, "unavailable",
					   "store_unavailable", NULL, &r));
		const char *ra = http_header(&r, "Retry-After");
		ck_assert_msg(ra && strcmp(ra, "1") == 0,
			      "%s %s: Retry-After %s", d->method, path,
			      ra ? ra : "missing");
		http_response_free(&r);
	}
	/* the live stream cannot start either */
	snprintf(path, sizeof path, "%s/events", s.path);
	json_decref(expect_problem(b.port, "GET", path, s.token, NULL, NULL,
				   503, "unavailable", "store_unavailable",
				   NULL, NULL));
	json_decref(expect_problem(b.port, "GET", "/readyz", NULL, NULL, NULL,
				   503, "unavailable", "database", NULL, NULL));

	char err[1024];
	ck_assert_msg(pg_cluster_resume(&c, err, sizeof err) == 0, "%s", err);
	/* back: the node reconnects by itself (a pooled connection is reset
	 * at its next use), so each request succeeds at the first try */
	json_decref(expect_json(b.port, "GET", "/readyz", NULL, NULL, NULL, 200,
				NULL));
	for (size_t i = 0; i < n; i++) {
		const struct down_route *d = &DOWN_ROUTES[i];
		route_path(d, &s, tid, path, sizeof path);
		http_response r;
		call(&r, b.port, d->method, path, s.token, NULL, d->body);
		ck_assert_msg(r.status == d->ok, "%s %s: %d, not %d: %.300s",
			      d->method, path, r.status, d->ok,
			      r.body ? r.body : "");
		http_response_free(&r);
	}
	pg_nodes_stop(&a, &b);
}
END_TEST

/* A node started while PostgreSQL is down starts not ready (/readyz 503,
 * writes 503 store_unavailable) and gets ready by itself once it is back,
 * migrating its new database then; one whose database the server says is
 * not there refuses to start, saying so. */
START_TEST(start_while_down)
{
	struct pg_cluster c;
	pg_test_cluster(&c);
	char base[256], url[256], err[1024];
	snprintf(base, sizeof base, "%s", getenv("CUBED_TEST_PG"));
	char name[64];
	snprintf(name, sizeof name, "late_%d", (int)getpid());
	ck_assert_msg(pg_cluster_createdb(base, name, url, sizeof url, err,
					  sizeof err) == 0,
		      "%s", err);

	/* permanent: no such database */
	server bad;
	char missing[300];
	snprintf(missing, sizeof missing, "%sno_such_%d", base, (int)getpid());
	const char *bad_args[] = {"--db", missing, NULL};
	ck_assert_int_eq(server_start(&bad, NULL, bad_args, err, sizeof err),
			 -1);
	ck_assert_msg(strstr(err, "does not exist"), "%s", err);

	ck_assert_int_eq(pg_cluster_halt(&c), 0);
	/* the fixture would create a database for the node: not now */
	server n;
	ck_assert_msg(pg_node_start_at(&n, url, err, sizeof err) == 0, "%s",
		      err);
	json_t *p = expect_problem(n.port, "GET", "/readyz", NULL, NULL, NULL,
				   503, "unavailable", "database", NULL, NULL);
	ck_assert_str_eq(sget(p, "database"), "down");
	/* the reason (libpq's, naming the host and port) goes to the log,
	 * not to whoever asks /readyz */
	ck_assert_str_eq(sget(p, "detail"),
			 "the database does not answer (the node's log says "
			 "why)");
	json_decref(p);
	char tail[4096];
	const char *log = test_server_log_tail(&n, tail, sizeof tail);
	ck_assert_msg(strstr(log, "database: does not answer") &&
			      strstr(log, "cannot connect to PostgreSQL"),
		      "%s", log);
	http_response r;
	json_decref(expect_problem(n.port, "POST", "/v1/sessions", NULL, NULL,
				   "{\"size\": 3}", 503, "unavailable",
				   "store_unavailable", NULL, &r));
	ck_assert_str_eq(http_header(&r, "Retry-After"), "1");
	http_response_free(&r);

	ck_assert_msg(pg_cluster_resume(&c, err, sizeof err) == 0, "%s", err);
	/* ready by itself, within a few retries */
	ck_assert_int_eq(wait_ready(n.port, 30), 200);
	json_t *ready = expect_json(n.port, "GET", "/readyz", NULL, NULL, NULL,
				    200, NULL);
	ck_assert_int_eq(iget(ready, "schema_version"), 10);
	json_decref(ready);
	ses s;
	json_decref(create(n.port, "{\"size\": 3}", &s));
	ck_assert_int_eq(server_stop(&n, 1), 0);
}
END_TEST

Suite *pg_nodes_suite(void)
{
	Suite *s = suite_create("pg_nodes");
	TCase *tc = tcase_create("two_nodes");
	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, read_your_writes);
	tcase_add_test(tc, if_match_race);
	tcase_add_test(tc, sse_across_nodes);
	tcase_add_test(tc, idempotent_retry_across_nodes);
	tcase_add_test(tc, no_lost_update);
	tcase_add_test(tc, sigkill_a_node);
	tcase_add_test(tc, postgres_restart);
	tcase_add_test(tc, every_route_when_down);
	tcase_add_test(tc, start_while_down);
	suite_add_tcase(s, tc);
	return s;
}
