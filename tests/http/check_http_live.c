/* check_http_live.c — black-box tests of multiplayer sessions: co-player
 * and read tokens, actors in the history, private sessions and their
 * watchers, Idempotency-Key retries, and the live event stream (every
 * event in order to many watchers, replay after Last-Event-ID with no gap
 * and no duplicate, presence, heartbeats, cut-off of a watcher that does
 * not read, the end of every stream at shutdown, a stream ticket that
 * outlives a restart). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "require.h"
#include "sse_client.h"
#include "suites.h"
#include "session_helpers.h"

static server srv;

static void fixture_setup(void)
{
	static const char *const extra[] = {"--heartbeat", "1", "--solver",
					    "0", NULL};
	start_or_abort(&srv, NULL, extra);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

/* A write of moves with token that must give status; the reply. */
static json_t *post_moves(const ses *s, const char *token, const char *moves,
			  const char *hdr, int status, http_response *keep)
{
	char path[160];
	snprintf(path, sizeof path, "%s/moves", s->path);
	size_t cap = strlen(moves) + 32;
	char *body = malloc(cap);
	snprintf(body, cap, "{\"moves\": \"%s\"}", moves);
	json_t *j = expect_json(srv.port, "POST", path, token, hdr, body,
				status, keep);
	free(body);
	return j;
}

/* Mint a token of role (name may be NULL) with the owner's token. */
static json_t *mint(const ses *s, const char *role, const char *name,
		    char *secret)
{
	char path[160], body[160];
	snprintf(path, sizeof path, "%s/tokens", s->path);
	if (name)
		snprintf(body, sizeof body,
			 "{\"role\": \"%s\", \"name\": \"%s\"}", role, name);
	else
		snprintf(body, sizeof body, "{\"role\": \"%s\"}", role);
	json_t *j = expect_json(srv.port, "POST", path, s->token, NULL, body,
				201, NULL);
	ck_assert_str_eq(sget(j, "role"), role);
	ck_assert(json_is_null(json_object_get(j, "revoked_at")));
	snprintf(secret, 48, "%s", sget(j, "token"));
	ck_assert_msg(strncmp(secret, "ct_", 3) == 0 && strlen(secret) == 35,
		      "token %s", secret);
	return j;
}

/* ------------------------------------------------------------------ */
/* Tokens and actors.                                                  */

START_TEST(co_players)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	char alice[48], bob[48], reader[48];
	json_t *a = mint(&s, "write", "alice", alice);
	ck_assert_str_eq(sget(a, "name"), "alice");
	ck_assert_int_eq(iget(a, "id"), 1);
	json_t *b = mint(&s, "write", NULL, bob);
	ck_assert_str_eq(sget(b, "name"), "player-2");
	json_t *r = mint(&s, "read", NULL, reader);
	ck_assert_str_eq(sget(r, "name"), "reader-3");
	json_decref(a);
	json_decref(b);
	json_decref(r);

	/* each write records its token's name */
	json_t *j = post_moves(&s, alice, "R", NULL, 200, NULL);
	ck_assert_str_eq(sget(json_object_get(j, "event"), "actor"), "alice");
	json_decref(j);
	json_decref(post_moves(&s, bob, "U", NULL, 200, NULL));
	json_decref(post_moves(&s, s.token, "F", NULL, 200, NULL));
	json_t *h = history_all(srv.port, &s, NULL, 100);
	ck_assert_int_eq(json_array_size(h), 4);
	ck_assert_str_eq(sget(json_array_get(h, 1), "actor"), "alice");
	ck_assert_str_eq(sget(json_array_get(h, 2), "actor"), "player-2");
	ck_assert_str_eq(sget(json_array_get(h, 3), "actor"), "owner");
	json_decref(h);

	/* a read token cannot write; co-players cannot do owner things */
	char path[160];
	json_decref(expect_problem(srv.port, "POST", "/x", NULL, NULL, NULL,
				   404, "not_found", "not_found", NULL, NULL));
	snprintf(path, sizeof path, "%s/moves", s.path);
	json_decref(expect_problem(srv.port, "POST", path, reader, NULL,
				   "{\"moves\": \"R\"}", 403, "forbidden",
				   "read_only_token", NULL, NULL));
	snprintf(path, sizeof path, "%s/undo", s.path);
	json_decref(expect_problem(srv.port, "POST", path, reader, NULL, NULL,
				   403, "forbidden", "read_only_token", NULL,
				   NULL));
	snprintf(path, sizeof path, "%s/tokens", s.path);
	json_decref(expect_problem(srv.port, "POST", path, alice, NULL,
				   "{\"role\": \"write\"}", 403, "forbidden",
				   "owner_only", NULL, NULL));
	json_decref(expect_problem(srv.port, "GET", path, alice, NULL, NULL,
				   403, "forbidden", "owner_only", NULL, NULL));
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 401,
				   "unauthorized", "token_required", NULL,
				   NULL));
	json_decref(expect_problem(srv.port, "DELETE", s.path, alice, NULL,
				   NULL, 403, "forbidden", "owner_only", NULL,
				   NULL));
	/* names are unique, valid, never "owner"; roles are two */
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"role\": \"write\", \"name\": \"alice\"}",
				   409, "conflict", "name_taken", NULL, NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"role\": \"write\", \"name\": \"owner\"}",
				   422, "invalid_request", "bad_name", "name",
				   NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"role\": \"write\", \"name\": \"a b\"}",
				   422, "invalid_request", "bad_name", "name",
				   NULL));
	json_decref(expect_problem(srv.port, "POST", path, s.token, NULL,
				   "{\"role\": \"admin\"}", 422,
				   "invalid_request", "bad_role", "role", NULL));

	/* the owner's list shows every token, never a secret */
	http_response resp;
	j = expect_json(srv.port, "GET", path, s.token, NULL, NULL, 200, &resp);
	ck_assert_msg(strstr(resp.body, "ct_") == NULL, "secret in %s",
		      resp.body);
	http_response_free(&resp);
	json_t *list = json_object_get(j, "tokens");
	ck_assert_int_eq(json_array_size(list), 3);
	ck_assert_str_eq(sget(json_array_get(list, 0), "name"), "alice");
	ck_assert_str_eq(sget(json_array_get(list, 2), "role"), "read");
	json_decref(j);
	/* after a refused name, an unnamed token gets its default name (a
	 * refused insert once left its name bound for the next one) */
	char carol[48];
	j = mint(&s, "write", NULL, carol);
	ck_assert_str_eq(sget(j, "name"), "player-4");
	json_decref(j);

	/* revoked: refused from its next request on, its past stays */
	snprintf(path, sizeof path, "%s/tokens/1", s.path);
	json_decref(expect_problem(srv.port, "DELETE", path, alice, NULL, NULL,
				   403, "forbidden", "owner_only", NULL, NULL));
	call(&resp, srv.port, "DELETE", path, s.token, NULL, NULL);
	ck_assert_int_eq(resp.status, 204);
	http_response_free(&resp);
	json_decref(expect_problem(srv.port, "DELETE", path, s.token, NULL,
				   NULL, 404, "not_found", "no_such_token",
				   NULL, NULL));
	snprintf(path, sizeof path, "%s/tokens/99", s.path);
	json_decref(expect_problem(srv.port, "DELETE", path, s.token, NULL,
				   NULL, 404, "not_found", "no_such_token",
				   NULL, NULL));
	snprintf(path, sizeof path, "%s/moves", s.path);
	json_decref(expect_problem(srv.port, "POST", path, alice, NULL,
				   "{\"moves\": \"R\"}", 403, "forbidden",
				   "wrong_token", NULL, NULL));
	snprintf(path, sizeof path, "%s/tokens", s.path);
	j = expect_json(srv.port, "GET", path, s.token, NULL, NULL, 200, NULL);
	json_t *t0 = json_array_get(json_object_get(j, "tokens"), 0);
	ck_assert(json_is_string(json_object_get(t0, "revoked_at")));
	json_decref(j);
	json_decref(get_session(srv.port, s.path, NULL, 3));
	json_decref(post_moves(&s, bob, "D", NULL, 200, NULL));
}
END_TEST

START_TEST(private_watchers)
{
	ses s;
	json_t *c = create(srv.port, "{\"size\": 2, \"visibility\": \"private\"}",
			   &s);
	char rtok[48];
	snprintf(rtok, sizeof rtok, "%s", sget(c, "read_token"));
	json_decref(c);
	char path[256], auth[96];
	/* without a token the session does not exist, for reads and streams */
	json_decref(expect_problem(srv.port, "GET", s.path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	snprintf(path, sizeof path, "%s/events", s.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 404,
				   "not_found", "no_such_session", NULL, NULL));
	json_decref(expect_problem(srv.port, "GET", path, "ct_nonsense", NULL,
				   NULL, 404, "not_found", "no_such_session",
				   NULL, NULL));
	json_decref(get_session(srv.port, s.path, rtok, 0));
	/* the read token, as a header or (for EventSource) in the query */
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", rtok);
	const char *h[] = {auth, NULL};
	sse_client w;
	ck_assert_msg(sse_open(&w, srv.port, path, h, 5000, 0) == 0, "%s",
		      w.error);
	ck_assert_int_eq(w.status, 200);
	ck_assert_str_eq(w.content_type, "text/event-stream");
	sse_event e;
	ck_assert_msg(sse_next(&w, &e, 5000) == 1, "%s", w.error);
	ck_assert_str_eq(e.type, "state");
	ck_assert_str_eq(e.id, "0");
	sse_event_free(&e);
	sse_close(&w);
	snprintf(path, sizeof path, "%s/events?token=%s", s.path, rtok);
	ck_assert_msg(sse_open(&w, srv.port, path, NULL, 5000, 0) == 0, "%s",
		      w.error);
	ck_assert_int_eq(w.status, 200);
	sse_close(&w);
	/* the owner re-issues: a new read token; the old one revoked */
	char rtok2[48];
	json_decref(mint(&s, "read", "tv", rtok2));
	snprintf(path, sizeof path, "%s/tokens/1", s.path);
	http_response r;
	call(&r, srv.port, "DELETE", path, s.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	json_decref(expect_problem(srv.port, "GET", s.path, rtok, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	json_decref(get_session(srv.port, s.path, rtok2, 0));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Idempotency-Key.                                                    */

START_TEST(idempotent_retry)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	http_response r1, r2;
	json_t *a = post_moves(&s, s.token, "R U", "Idempotency-Key: k-1", 200,
			       &r1);
	json_t *b = post_moves(&s, s.token, "R U", "Idempotency-Key: k-1", 200,
			       &r2);
	ck_assert_int_eq(iget(a, "version"), 1);
	ck_assert_msg(json_equal(a, b), "retry answered %s, first %s", r2.body,
		      r1.body);
	const char *rep = http_header(&r2, "Idempotent-Replayed");
	ck_assert_msg(rep && strcmp(rep, "true") == 0, "Idempotent-Replayed %s",
		      rep);
	ck_assert(http_header(&r1, "Idempotent-Replayed") == NULL);
	ck_assert_str_eq(http_header(&r2, "ETag"), "\"v1\"");
	http_response_free(&r1);
	http_response_free(&r2);
	json_decref(a);
	json_decref(b);
	/* applied once */
	json_decref(get_session(srv.port, s.path, NULL, 1));
	/* the same key for another request is an error, and changes nothing */
	char path[160];
	snprintf(path, sizeof path, "%s/moves", s.path);
	json_decref(expect_problem(srv.port, "POST", path, s.token,
				   "Idempotency-Key: k-1", "{\"moves\": \"F\"}",
				   422, "invalid_request",
				   "idempotency_key_reused", "Idempotency-Key",
				   NULL));
	json_decref(get_session(srv.port, s.path, NULL, 1));
	/* a new key is a new write */
	json_decref(post_moves(&s, s.token, "R U", "Idempotency-Key: k-2", 200,
			       NULL));
	json_decref(get_session(srv.port, s.path, NULL, 2));
	/* creating a session: the retry returns the same session */
	json_t *c1 = expect_json(srv.port, "POST", "/v1/sessions", NULL,
				 "Idempotency-Key: new-1", "{\"size\": 4}", 201,
				 NULL);
	json_t *c2 = expect_json(srv.port, "POST", "/v1/sessions", NULL,
				 "Idempotency-Key: new-1", "{\"size\": 4}", 201,
				 NULL);
	ck_assert_str_eq(sget(c1, "id"), sget(c2, "id"));
	json_decref(c1);
	json_decref(c2);
	/* keys are per client: another token with the same key writes */
	char bob[48];
	json_decref(mint(&s, "write", "bob", bob));
	json_decref(post_moves(&s, bob, "R U", "Idempotency-Key: k-2", 200,
			       NULL));
	json_decref(get_session(srv.port, s.path, NULL, 3));
	json_decref(expect_problem(srv.port, "POST", path, s.token,
				   "Idempotency-Key: ", "{\"moves\": \"F\"}",
				   422, "invalid_request",
				   "bad_idempotency_key", "Idempotency-Key",
				   NULL));
}
END_TEST

/* One request with an Idempotency-Key from the local address from
 * (another client, as the server sees it), token NULL for none. */
static void keyed_from(const char *from, const char *method, const char *path,
		       const char *token, const char *key, const char *body,
		       http_response *r)
{
	char auth[96], k[300];
	snprintf(k, sizeof k, "Idempotency-Key: %s", key);
	const char *h[4] = {"Content-Type: application/json", k, NULL, NULL};
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		h[2] = auth;
	}
	int fd = http_connect_from(srv.port, from, 10000);
	ck_assert_msg(fd >= 0, "connect from %s", from);
	ck_assert_msg(http_send(fd, srv.port, method, path, h, body,
				body ? strlen(body) : 0, 1, r) == 0,
		      "%s %s from %s: %s", method, path, from, r->error);
	close(fd);
}

/* A key belongs to its requester (issue 60.7): an anonymous create with
 * key K from one address and the same key and body from another address
 * are two sessions, and the second reply never carries the first
 * client's write token; the first client's own retry is replayed. */
START_TEST(idempotent_keys_per_requester)
{
	const char *body = "{\"size\": 3}";
	http_response a, a2, b;
	keyed_from("127.0.0.2", "POST", "/v1/sessions", NULL, "shared-K", body,
		   &a);
	ck_assert_int_eq(a.status, 201);
	ck_assert_ptr_null(http_header(&a, "Idempotent-Replayed"));
	json_t *ja = parse(&a, "first create");
	/* the same client again: the same session, said to be a replay */
	keyed_from("127.0.0.2", "POST", "/v1/sessions", NULL, "shared-K", body,
		   &a2);
	ck_assert_int_eq(a2.status, 201);
	ck_assert_str_eq(http_header(&a2, "Idempotent-Replayed"), "true");
	json_t *ja2 = parse(&a2, "retry");
	ck_assert_str_eq(sget(ja2, "id"), sget(ja, "id"));
	ck_assert_str_eq(sget(ja2, "write_token"), sget(ja, "write_token"));
	/* another address, same key and body: a new session of its own */
	keyed_from("127.0.0.3", "POST", "/v1/sessions", NULL, "shared-K", body,
		   &b);
	ck_assert_int_eq(b.status, 201);
	ck_assert_ptr_null(http_header(&b, "Idempotent-Replayed"));
	json_t *jb = parse(&b, "other client's create");
	ck_assert_str_ne(sget(jb, "id"), sget(ja, "id"));
	ck_assert_msg(strstr(b.body, sget(ja, "write_token")) == NULL,
		      "the first client's token leaked: %s", b.body);
	/* and a fork with one key from two tokens: two forks */
	ses src;
	json_decref(create(srv.port, "{\"size\": 3}", &src));
	char path[160], other[48];
	snprintf(path, sizeof path, "%s/fork", src.path);
	json_decref(mint(&src, "write", "other", other));
	http_response f1, f2;
	keyed_from("127.0.0.2", "POST", path, src.token, "fork-K", NULL, &f1);
	keyed_from("127.0.0.2", "POST", path, other, "fork-K", NULL, &f2);
	ck_assert_int_eq(f1.status, 201);
	ck_assert_int_eq(f2.status, 201);
	ck_assert_ptr_null(http_header(&f2, "Idempotent-Replayed"));
	json_t *j1 = parse(&f1, "fork"), *j2 = parse(&f2, "other fork");
	ck_assert_str_ne(sget(j1, "id"), sget(j2, "id"));
	ck_assert_msg(strstr(f2.body, sget(j1, "write_token")) == NULL,
		      "the first fork's token leaked: %s", f2.body);
	json_decref(j1);
	json_decref(j2);
	http_response_free(&f1);
	http_response_free(&f2);
	/* a minted token's retry: the same secret, replayed, minted once */
	snprintf(path, sizeof path, "%s/tokens", src.path);
	keyed_from("127.0.0.2", "POST", path, src.token, "mint-K",
		   "{\"role\": \"read\"}", &f1);
	keyed_from("127.0.0.2", "POST", path, src.token, "mint-K",
		   "{\"role\": \"read\"}", &f2);
	ck_assert_int_eq(f1.status, 201);
	ck_assert_int_eq(f2.status, 201);
	ck_assert_str_eq(http_header(&f2, "Idempotent-Replayed"), "true");
	j1 = parse(&f1, "mint");
	j2 = parse(&f2, "mint again");
	ck_assert_str_eq(sget(j1, "token"), sget(j2, "token"));
	ck_assert_str_eq(sget(j1, "name"), sget(j2, "name"));
	ck_assert_int_eq(iget(j1, "id"), iget(j2, "id"));
	json_decref(j1);
	json_decref(j2);
	http_response_free(&f1);
	http_response_free(&f2);
	json_decref(ja);
	json_decref(ja2);
	json_decref(jb);
	http_response_free(&a);
	http_response_free(&a2);
	http_response_free(&b);
}
END_TEST

/* Kept answers cost bytes, not whole replies (issue 60.6): a 128×128
 * session's keyed writes (each reply about 99 KB: 484 MiB for 5,000 when
 * answers were kept whole) leave almost nothing in the memory table,
 * since the store keeps a write's short result with the write; resident
 * memory grows by far less than the replies' total; and the first key
 * still replays from the store after all of them. The everyday run sends
 * 600 writes; the slow one (make test-slow) the issue's 5,000. */
static void keyed_writes_bounded(int n)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 128}", &s));
	char path[160];
	snprintf(path, sizeof path, "%s/moves", s.path);
	long rss0 = test_server_rss_kb(&srv);
	ck_assert_int_gt(rss0, 0);
	size_t replies = 0;
	for (int i = 0; i < n; i++) {
		char key[32];
		snprintf(key, sizeof key, "big-%d", i);
		http_response r;
		keyed_from("127.0.0.4", "POST", path, s.token, key,
			   "{\"moves\": \"R\"}", &r);
		ck_assert_msg(r.status == 200, "write %d: %d %s", i, r.status,
			      r.body);
		replies += r.body_len;
		http_response_free(&r);
	}
	ck_assert_uint_gt(replies, (size_t)n * 90000);
	http_response m;
	call(&m, srv.port, "GET", "/metrics", NULL, NULL, NULL);
	ck_assert_int_eq(m.status, 200);
	double held = http_metric(m.body, "cubed_idempotency_bytes");
	ck_assert_msg(held >= 0 && held <= 1048576,
		      "%.0f bytes of answers held in memory", held);
	http_response_free(&m);
	long grown = test_server_rss_kb(&srv) - rss0;
	printf("http_live: %d keyed writes on 128x128, %zu bytes of replies, "
	       "resident +%ld KiB, %.0f bytes of answers held\n",
	       n, replies, grown, held);
	/* (ASan's quarantine holds freed memory: its resident size says
	 * nothing about what the server keeps; the bytes above still do) */
	ck_assert_msg(SANITIZED || grown < 64 * 1024,
		      "resident memory grew by %ld KiB for %d keyed writes "
		      "(%zu bytes of replies)", grown, n, replies);
	/* the first key replays from the store: version 1, once */
	http_response r;
	keyed_from("127.0.0.4", "POST", path, s.token, "big-0",
		   "{\"moves\": \"R\"}", &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_str_eq(http_header(&r, "Idempotent-Replayed"), "true");
	json_t *j = parse(&r, "replay");
	ck_assert_int_eq(iget(j, "version"), 1);
	json_decref(j);
	http_response_free(&r);
	json_decref(get_session(srv.port, s.path, NULL, n));
}

/* A server with small budgets for kept answers (the fixture of the
 * "idempotency_budget" case). */
static server small;

static void small_setup(void)
{
	static const char *const extra[] = {
		"--solver", "0", "--idempotency-client-bytes", "4096",
		"--idempotency-bytes", "65536", NULL};
	start_or_abort(&small, NULL, extra);
}

static void small_teardown(void)
{
	server_stop(&small, 1);
}

/* A keyed write of bad moves (a 422 kept in memory) to port from addr. */
static void keyed_refusal(int port, const char *from, const ses *s,
			  const char *key, http_response *r)
{
	char path[160], auth[96], k[96];
	snprintf(path, sizeof path, "%s/moves", s->path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->token);
	snprintf(k, sizeof k, "Idempotency-Key: %s", key);
	const char *h[] = {"Content-Type: application/json", auth, k, NULL};
	const char *body = "{\"moves\": \"R Q\"}";
	int fd = http_connect_from(port, from, 10000);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(http_send(fd, port, "POST", path, h, body,
				   strlen(body), 1, r),
			 0);
	close(fd);
}

/* Answers kept in memory are bounded per client (issue 60.6): one
 * address sending 300 keyed refusals (each answer kept, a few hundred
 * bytes) keeps at most --idempotency-client-bytes of them, its oldest
 * going first, and another address's kept answer survives the flood. */
START_TEST(idempotency_client_share)
{
	ses s;
	json_decref(create(small.port, "{\"size\": 3}", &s));
	http_response r;
	keyed_refusal(small.port, "127.0.0.6", &s, "theirs", &r);
	ck_assert_int_eq(r.status, 422);
	http_response_free(&r);
	for (int i = 0; i < 300; i++) {
		char key[32];
		snprintf(key, sizeof key, "flood-%d", i);
		keyed_refusal(small.port, "127.0.0.5", &s, key, &r);
		ck_assert_int_eq(r.status, 422);
		ck_assert_ptr_null(http_header(&r, "Idempotent-Replayed"));
		http_response_free(&r);
	}
	http_response m;
	call(&m, small.port, "GET", "/metrics", NULL, NULL, NULL);
	double held = http_metric(m.body, "cubed_idempotency_bytes");
	double evicted = http_metric(m.body, "cubed_idempotency_evicted_total");
	http_response_free(&m);
	ck_assert_msg(held > 0 && held <= 2 * 4096,
		      "%.0f bytes held for two clients of 4096", held);
	ck_assert_msg(evicted >= 250, "%.0f answers evicted", evicted);
	/* the other client's answer is still replayed; the flood's newest
	 * too, its oldest no more */
	keyed_refusal(small.port, "127.0.0.6", &s, "theirs", &r);
	ck_assert_int_eq(r.status, 422);
	ck_assert_str_eq(http_header(&r, "Idempotent-Replayed"), "true");
	http_response_free(&r);
	keyed_refusal(small.port, "127.0.0.5", &s, "flood-299", &r);
	ck_assert_str_eq(http_header(&r, "Idempotent-Replayed"), "true");
	http_response_free(&r);
	keyed_refusal(small.port, "127.0.0.5", &s, "flood-0", &r);
	ck_assert_int_eq(r.status, 422);
	ck_assert_ptr_null(http_header(&r, "Idempotent-Replayed"));
	http_response_free(&r);
	/* with a token the key is the token's: the same token from another
	 * address is the same requester (its budget is the address's) */
	keyed_refusal(small.port, "127.0.0.7", &s, "flood-299", &r);
	ck_assert_str_eq(http_header(&r, "Idempotent-Replayed"), "true");
	http_response_free(&r);
}
END_TEST

START_TEST(keyed_writes_hold_little)
{
	keyed_writes_bounded(600);
}
END_TEST

START_TEST(keyed_writes_hold_little_5000)
{
	keyed_writes_bounded(5000);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Live events.                                                        */

/* Check event e is version v of type with the facelets the session has
 * at v (from time travel). */
static void expect_event(const ses *s, sse_event *e, long long v,
			 const char *type, const char *what)
{
	char id[32];
	snprintf(id, sizeof id, "%lld", v);
	ck_assert_msg(strcmp(e->id, id) == 0 && strcmp(e->type, type) == 0,
		      "%s: got id %s event %s, expected id %s event %s", what,
		      e->id, e->type, id, type);
	json_t *d = json_loads(e->data, 0, NULL);
	ck_assert_msg(d != NULL, "%s: data %s", what, e->data);
	ck_assert_int_eq(iget(d, "version"), v);
	ck_assert_str_eq(sget(d, "type"), type);
	ck_assert(json_is_string(json_object_get(d, "moves")));
	char path[192];
	snprintf(path, sizeof path, "%s?version=%lld", s->path, v);
	json_t *g = get_session(srv.port, path, NULL, v);
	ck_assert_msg(strcmp(sget(d, "facelets"), sget(g, "facelets")) == 0,
		      "%s: event %lld facelets %s, the session at %lld has %s",
		      what, v, sget(d, "facelets"), v, sget(g, "facelets"));
	json_decref(g);
	json_decref(d);
}

enum { WATCHERS = 24, WRITERS = 3, WRITES_EACH = 10 };

struct writer {
	const ses *s;
	const char *token;
	int ok;
	char error[320];
};

static void *writer_main(void *arg)
{
	struct writer *wr = arg;
	static const char *const moves[] = {"R", "U'", "F2", "L", "D", "B'"};
	char path[160], body[64], auth[96];
	snprintf(path, sizeof path, "%s/moves", wr->s->path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", wr->token);
	for (int i = 0; i < WRITES_EACH; i++) {
		snprintf(body, sizeof body, "{\"moves\": \"%s\"}", moves[i % 6]);
		const char *h[] = {"Content-Type: application/json", auth, NULL};
		http_response r;
		if (http_request(srv.port, "POST", path, h, body, strlen(body),
				 &r) < 0 ||
		    r.status != 200) {
			snprintf(wr->error, sizeof wr->error, "status %d %s",
				 r.status, r.error);
			http_response_free(&r);
			return NULL;
		}
		wr->ok++;
		http_response_free(&r);
	}
	return NULL;
}

START_TEST(many_watchers_in_order)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(post_moves(&s, s.token, "R", NULL, 200, NULL));
	char path[192];
	snprintf(path, sizeof path, "%s/events?after=1", s.path);
	static sse_client w[WATCHERS];
	for (int i = 0; i < WATCHERS; i++) {
		ck_assert_msg(sse_open(&w[i], srv.port, path, NULL, 5000, 0) == 0,
			      "watcher %d: %s", i, w[i].error);
		ck_assert_int_eq(w[i].status, 200);
	}
	/* three players at once, each with their own token */
	char tok[WRITERS][48];
	pthread_t t[WRITERS];
	struct writer wr[WRITERS];
	for (int i = 0; i < WRITERS; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		json_decref(mint(&s, "write", name, tok[i]));
		wr[i] = (struct writer){.s = &s, .token = tok[i]};
		ck_assert_int_eq(pthread_create(&t[i], NULL, writer_main, &wr[i]),
				 0);
	}
	for (int i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(wr[i].error[0] == '\0', "writer %d: %s", i,
			      wr[i].error);
	}
	long long last = 1 + WRITERS * WRITES_EACH;
	json_t *h = history_all(srv.port, &s, NULL, 1000);
	ck_assert_int_eq((long long)json_array_size(h), last + 1);
	/* every watcher: versions 2 .. last, in order, no gap, no duplicate,
	 * each with its actor and moves as the history has them */
	for (int i = 0; i < WATCHERS; i++) {
		for (long long v = 2; v <= last; v++) {
			sse_event e;
			char what[64];
			snprintf(what, sizeof what, "watcher %d", i);
			expect_sse_event(&w[i], &e, 5000, what);
			char id[32];
			snprintf(id, sizeof id, "%lld", v);
			ck_assert_msg(strcmp(e.id, id) == 0 &&
					      strcmp(e.type, "moves") == 0,
				      "watcher %d: id %s (%s), expected %s", i,
				      e.id, e.type, id);
			json_t *d = json_loads(e.data, 0, NULL);
			json_t *he = json_array_get(h, (size_t)v);
			ck_assert_str_eq(sget(d, "actor"), sget(he, "actor"));
			ck_assert_str_eq(sget(d, "moves"), sget(he, "moves"));
			json_decref(d);
			if (i == 0)
				expect_event(&s, &e, v, "moves", what);
			sse_event_free(&e);
		}
	}
	json_decref(h);
	/* the session counts its watchers */
	json_t *g = get_session(srv.port, s.path, NULL, last);
	ck_assert_int_eq(iget(g, "watchers"), WATCHERS);
	json_decref(g);
	for (int i = 0; i < WATCHERS; i++)
		sse_close(&w[i]);
}
END_TEST

START_TEST(replay_after_last_event_id)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	static const char *const moves[] = {"R", "U", "F", "L", "D",
					    "B", "R2", "U'", "F'", "L2"};
	for (int i = 0; i < 10; i++)
		json_decref(post_moves(&s, s.token, moves[i], NULL, 200, NULL));
	char undo[160];
	snprintf(undo, sizeof undo, "%s/undo", s.path);
	json_decref(expect_json(srv.port, "POST", undo, s.token, NULL, NULL, 200,
				NULL));
	/* a browser that saw version 4 reconnects: 5..11 from the store,
	 * then live ones, no gap, no duplicate */
	char path[192];
	snprintf(path, sizeof path, "%s/events?after=1", s.path);
	const char *h[] = {"Last-Event-ID: 4", NULL};
	sse_client w;
	ck_assert_msg(sse_open(&w, srv.port, path, h, 5000, 0) == 0, "%s",
		      w.error);
	ck_assert_int_eq(w.status, 200);
	sse_event e;
	for (long long v = 5; v <= 10; v++) {
		expect_sse_event(&w, &e, 5000, "replay");
		expect_event(&s, &e, v, "moves", "replay");
		sse_event_free(&e);
	}
	expect_sse_event(&w, &e, 5000, "replay");
	expect_event(&s, &e, 11, "undo", "replay");
	sse_event_free(&e);
	json_decref(post_moves(&s, s.token, "R U R' U'", NULL, 200, NULL));
	expect_sse_event(&w, &e, 5000, "live");
	expect_event(&s, &e, 12, "moves", "live");
	sse_event_free(&e);
	char reset[160];
	snprintf(reset, sizeof reset, "%s/reset", s.path);
	json_decref(expect_json(srv.port, "POST", reset, s.token, NULL, NULL,
				200, NULL));
	expect_sse_event(&w, &e, 5000, "live");
	expect_event(&s, &e, 13, "reset", "live");
	sse_event_free(&e);
	sse_close(&w);
	/* replay across the reset and snapshots, from the very start */
	snprintf(path, sizeof path, "%s/events?after=0", s.path);
	ck_assert_msg(sse_open(&w, srv.port, path, NULL, 5000, 0) == 0, "%s",
		      w.error);
	for (long long v = 1; v <= 13; v++) {
		expect_sse_event(&w, &e, 5000, "replay from 0");
		ck_assert_int_eq(atoll(e.id), v);
		if (v == 13)
			expect_event(&s, &e, v, "reset", "replay from 0");
		sse_event_free(&e);
	}
	sse_close(&w);
	/* a version from the future, or not a version */
	snprintf(path, sizeof path, "%s/events", s.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL,
				   "Last-Event-ID: 14", NULL, 422,
				   "invalid_request", "value_out_of_range",
				   "Last-Event-ID", NULL));
	json_decref(expect_problem(srv.port, "GET", path, NULL,
				   "Last-Event-ID: x1", NULL, 422,
				   "invalid_request", "wrong_type",
				   "Last-Event-ID", NULL));
	snprintf(path, sizeof path, "%s/events?after=99", s.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 422,
				   "invalid_request", "value_out_of_range",
				   "after", NULL));
	snprintf(path, sizeof path, "%s/events?since=1", s.path);
	json_decref(expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 422,
				   "invalid_request", "unknown_parameter",
				   "since", NULL));
}
END_TEST

START_TEST(state_presence_heartbeat_delete)
{
	ses s;
	json_decref(create(srv.port, "{\"size\": 3}", &s));
	json_decref(post_moves(&s, s.token, "R", NULL, 200, NULL));
	char path[192];
	snprintf(path, sizeof path, "%s/events", s.path);
	sse_client a, b;
	ck_assert_msg(sse_open(&a, srv.port, path, NULL, 5000, 0) == 0, "%s",
		      a.error);
	/* a fresh watcher starts from the current state */
	sse_event e;
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1);
	expect_event(&s, &e, 1, "state", "fresh watcher");
	sse_event_free(&e);
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1);
	ck_assert_str_eq(e.type, "presence");
	ck_assert_str_eq(e.id, "");
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":1}");
	sse_event_free(&e);
	ck_assert_msg(sse_open(&b, srv.port, path, NULL, 5000, 0) == 0, "%s",
		      b.error);
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1);
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":2}");
	sse_event_free(&e);
	sse_close(&b);
	while (sse_next(&a, &e, 5000) == 1 && e.comment)
		sse_event_free(&e); /* heartbeats may come first */
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":1}");
	sse_event_free(&e);
	/* a quiet stream gets heartbeats (--heartbeat 1 here) */
	ck_assert_int_eq(sse_next(&a, &e, 3000), 1);
	ck_assert_msg(e.comment && strcmp(e.data, " ping") == 0, "got %s %s",
		      e.type, e.data);
	sse_event_free(&e);
	http_response r;
	/* deleting the session ends its streams after a delete event */
	call(&r, srv.port, "DELETE", s.path, s.token, NULL, NULL);
	ck_assert_int_eq(r.status, 204);
	http_response_free(&r);
	expect_sse_event(&a, &e, 5000, "delete");
	ck_assert_str_eq(e.type, "delete");
	sse_event_free(&e);
	ck_assert_msg(sse_next(&a, &e, 5000) == 0, "stream not ended: %s",
		      a.error);
	sse_close(&a);
}
END_TEST

/* A watcher that hangs up stops counting within a couple of seconds,
 * not at the next heartbeat it would fail to receive (60 s here): the
 * server notices the closed socket of a parked stream by itself (issue
 * 64: "2 watching" for 20 to 40 s after someone left or reloaded). */
START_TEST(hung_up_watcher_counted_out)
{
	server own;
	static const char *const extra[] = {"--heartbeat", "60", "--solver",
					    "0", NULL};
	start_or_abort(&own, NULL, extra);
	ses s;
	json_decref(create(own.port, "{\"size\": 2}", &s));
	char path[192];
	snprintf(path, sizeof path, "%s/events", s.path);
	sse_client a, b;
	ck_assert_msg(sse_open(&a, own.port, path, NULL, 5000, 0) == 0, "%s",
		      a.error);
	sse_event e;
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1); /* state */
	sse_event_free(&e);
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1);
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":1}");
	sse_event_free(&e);
	ck_assert_msg(sse_open(&b, own.port, path, NULL, 5000, 0) == 0, "%s",
		      b.error);
	ck_assert_int_eq(sse_next(&a, &e, 5000), 1);
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":2}");
	sse_event_free(&e);
	double t0 = now_s();
	sse_close(&b);
	ck_assert_msg(sse_next(&a, &e, 4000) == 1, "no presence within 4 s: %s",
		      a.error);
	ck_assert_str_eq(e.data, "{\"type\":\"presence\",\"watchers\":1}");
	sse_event_free(&e);
	ck_assert_msg(now_s() - t0 < 4.0, "counted out after %.1f s",
		      now_s() - t0);
	json_t *g = get_session(own.port, s.path, NULL, 0);
	ck_assert_int_eq(iget(g, "watchers"), 1);
	json_decref(g);
	sse_close(&a);
	server_stop(&own, 1);
}
END_TEST

/* A stored solve reaches watchers as a "solve" event without an id (it
 * makes no version, so a browser's Last-Event-ID stays), with the method,
 * the solution as moves, and the state solved. */
START_TEST(solve_event)
{
	server own;
	start_or_abort(&own, NULL, NULL);
	int port = srv.port;
	srv.port = own.port;
	/* the 2×2 table: loaded from $CUBED_TABLES, or built (a second) */
	int ready = 0;
	for (int i = 0; i < 1200 && !ready; i++) {
		json_t *j = expect_json(own.port, "GET", "/readyz", NULL, NULL,
					NULL, 200, NULL);
		json_t *t = json_object_get(json_object_get(j, "solver"), "2x2");
		const char *st = json_string_value(json_object_get(t, "tables"));
		ready = st && strcmp(st, "ready") == 0;
		json_decref(j);
		if (!ready)
			test_sleep_ms(100);
	}
	ck_assert_msg(ready, "the 2×2 solver tables never got ready");
	ses s;
	json_decref(create(own.port, "{\"size\": 2, \"scramble\": \"R U\"}",
			   &s));
	char path[192];
	snprintf(path, sizeof path, "%s/events", s.path);
	sse_client w;
	ck_assert_msg(sse_open(&w, own.port, path, NULL, 5000, 0) == 0, "%s",
		      w.error);
	sse_event e;
	expect_sse_event(&w, &e, 5000, "state");
	ck_assert_str_eq(e.type, "state");
	json_t *st = json_loads(e.data, 0, NULL);
	char *before = strdup(sget(st, "facelets"));
	json_decref(st);
	sse_event_free(&e);
	snprintf(path, sizeof path, "%s/solve", s.path);
	json_t *sv = expect_json(own.port, "POST", path, s.token, NULL, NULL,
				 201, NULL);
	expect_sse_event(&w, &e, 5000, "solve");
	ck_assert_str_eq(e.type, "solve");
	ck_assert_str_eq(e.id, "");
	json_t *d = json_loads(e.data, 0, NULL);
	ck_assert_int_eq(iget(d, "version"), 0);
	ck_assert_str_eq(sget(d, "method"), sget(sv, "method"));
	ck_assert_str_eq(sget(d, "moves"), sget(sv, "solution"));
	ck_assert_str_eq(sget(d, "facelets"), before);
	/* and the solution does solve it */
	char *after = apply(own.port, before, sget(d, "moves"));
	ck_assert_str_eq(after, "UUUURRRRFFFFDDDDLLLLBBBB");
	free(after);
	free(before);
	json_decref(d);
	json_decref(sv);
	sse_event_free(&e);
	sse_close(&w);
	srv.port = port;
	server_stop(&own, 1);
}
END_TEST

START_TEST(slow_watcher_cut_off)
{
	server small;
	static const char *const extra[] = {"--watcher-buffer", "65536",
					    "--solver", "0", "--quiet", NULL};
	start_or_abort(&small, NULL, extra);
	int port = srv.port;
	srv.port = small.port;
	ses s;
	json_decref(create(small.port, "{\"size\": 3}", &s));
	char path[192];
	snprintf(path, sizeof path, "%s/events?after=0", s.path);
	sse_client slow, fast;
	ck_assert_msg(sse_open(&slow, small.port, path, NULL, 5000, 4096) == 0,
		      "%s", slow.error);
	ck_assert_msg(sse_open(&fast, small.port, path, NULL, 5000, 0) == 0,
		      "%s", fast.error);
	/* big events (the moves text) until the slow one is cut off; the
	 * fast one keeps up with every one of them */
	char moves[4100];
	moves[0] = '\0';
	for (int i = 0; i < 400; i++)
		strcat(moves, i % 2 ? "U' " : "R2 ");
	long long v = 0, cut = 0;
	while (!cut && v < 3000) {
		json_decref(post_moves(&s, s.token, moves, NULL, 200, NULL));
		v++;
		sse_event e;
		expect_sse_event(&fast, &e, 5000, "fast watcher");
		ck_assert_int_eq(atoll(e.id), v);
		sse_event_free(&e);
		if (v % 50 == 0) {
			http_response r;
			call(&r, small.port, "GET", "/metrics", NULL, NULL, NULL);
			const char *m = strstr(r.body, "\ncubed_watchers_cut_off_total ");
			ck_assert_msg(m != NULL, "no cut-off metric");
			cut = atoll(m + 30);
			http_response_free(&r);
		}
	}
	ck_assert_msg(cut == 1, "the slow watcher was not cut off after %lld "
				"events", v);
	json_t *g = get_session(small.port, s.path, NULL, v);
	ck_assert_int_eq(iget(g, "watchers"), 1);
	json_decref(g);
	sse_close(&slow);
	sse_close(&fast);
	srv.port = port;
	server_stop(&small, 1);
}
END_TEST

START_TEST(shutdown_ends_streams)
{
	server own;
	static const char *const extra[] = {"--solver", "0", NULL};
	start_or_abort(&own, NULL, extra);
	int port = srv.port;
	srv.port = own.port;
	ses s;
	json_decref(create(own.port, "{\"size\": 3}", &s));
	char path[192];
	snprintf(path, sizeof path, "%s/events", s.path);
	sse_client w[3];
	for (int i = 0; i < 3; i++)
		ck_assert_msg(sse_open(&w[i], own.port, path, NULL, 5000, 0) == 0,
			      "%s", w[i].error);
	sse_event e;
	ck_assert_int_eq(sse_next(&w[0], &e, 5000), 1);
	sse_event_free(&e);
	double t0 = now_s();
	kill(own.pid, SIGTERM);
	for (int i = 0; i < 3; i++) {
		int rc;
		while ((rc = sse_next(&w[i], &e, 5000)) == 1)
			sse_event_free(&e);
		ck_assert_msg(rc == 0, "stream %d did not end cleanly: %s", i,
			      w[i].error);
		sse_close(&w[i]);
	}
	int st = server_stop(&own, 1);
	ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "exit status 0x%x", st);
	ck_assert_msg(now_s() - t0 < 5.0, "shutdown took %.1f s",
		      now_s() - t0);
	srv.port = port;
}
END_TEST

/* A stream ticket outlives a restart of the server (its key is kept in
 * the database, ticket.h), on either engine. */
START_TEST(ticket_survives_restart)
{
	/* a server of its own: the suite's is shared */
	server own;
	static const char *const extra[] = {"--heartbeat", "1", "--solver",
					    "0", NULL};
	start_or_abort(&own, NULL, extra);
	ses s;
	json_decref(create(own.port, "{\"size\": 2, \"visibility\": \"private\"}",
			   &s));
	char path[256];
	snprintf(path, sizeof path, "%s/tickets", s.path);
	json_t *r = expect_json(own.port, "POST", path, s.token, NULL, NULL,
				201, NULL);
	char t[64];
	snprintf(t, sizeof t, "%s", sget(r, "ticket"));
	json_decref(r);
	char dir[64];
	snprintf(dir, sizeof dir, "%s", own.dir);
	ck_assert_int_eq(server_stop(&own, 0), 0);
	start_or_abort(&own, dir, extra);
	snprintf(path, sizeof path, "%s/events?ticket=%s", s.path, t);
	sse_client w;
	ck_assert_msg(sse_open(&w, own.port, path, NULL, 5000, 0) == 0, "%s",
		      w.error);
	ck_assert_int_eq(w.status, 200);
	sse_event e;
	ck_assert_msg(sse_next(&w, &e, 5000) == 1, "%s", w.error);
	ck_assert_str_eq(e.type, "state");
	sse_event_free(&e);
	sse_close(&w);
	/* a forged one is still a wrong credential */
	t[8] = t[8] == 'A' ? 'B' : 'A';
	snprintf(path, sizeof path, "%s/events?ticket=%s", s.path, t);
	json_decref(expect_problem(own.port, "GET", path, NULL, NULL, NULL,
				   404, "not_found", "no_such_session", NULL,
				   NULL));
	ck_assert_int_eq(server_stop(&own, 1), 0);
}
END_TEST

Suite *http_live_suite(void)
{
	Suite *s = suite_create("http_live");
	TCase *tc = tcase_create("live");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, co_players);
	tcase_add_test(tc, private_watchers);
	tcase_add_test(tc, idempotent_retry);
	tcase_add_test(tc, idempotent_keys_per_requester);
	tcase_add_test(tc, keyed_writes_hold_little);
	tcase_add_test(tc, many_watchers_in_order);
	tcase_add_test(tc, replay_after_last_event_id);
	tcase_add_test(tc, state_presence_heartbeat_delete);
	tcase_add_test(tc, hung_up_watcher_counted_out);
	tcase_add_test(tc, solve_event);
	tcase_add_test(tc, slow_watcher_cut_off);
	tcase_add_test(tc, shutdown_ends_streams);
	tcase_add_test(tc, ticket_survives_restart);
	suite_add_tcase(s, tc);

	tc = tcase_create("idempotency_budget");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, small_setup, small_teardown);
	tcase_add_test(tc, idempotency_client_share);
	suite_add_tcase(s, tc);

	/* the issue's 5,000 keyed writes on 128×128 (make test-slow) */
	tc = tcase_create("idempotency_5000");
	tcase_set_tags(tc, "slow");
	tcase_set_timeout(tc, 900);
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, keyed_writes_hold_little_5000);
	suite_add_tcase(s, tc);
	return s;
}
