/* check_sessions.c — the store (server/store/sqlite/store_sqlite.c) and the session
 * rules (server/sessions/sessions.c) without HTTP: migrations and the newer-schema
 * guard, persistence across reopen, tokens, If-Match, undo/redo/reset laws,
 * time travel to every version against a local replay, fork, delete, and
 * many threads writing to one session at once (consecutive versions, final
 * state = the history replayed). */
#include <check.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alg.h"
#include "cube.h"
#include "files.h"
#include "session_writes.h"
#include "sessions.h"
#include "store.h"
#include "suites.h"
#include "timefmt.h"
#include "token.h"

static const char SOLVED3[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
static const char AFTER_R[] =
	"UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB";

static char dir[256];
static struct store *st;
static struct sessions *ses;

static const char *schema_dir(void)
{
	const char *d = getenv("CUBED_SCHEMA");
	return d && *d ? d : "schema";
}

/* The store on dir's file (migrated with schema) and a session layer on
 * it, with the test seams of seams (lose_commit, fail_alloc) when it is
 * not NULL. */
static void open_with(const char *schema, const struct sessions_config *seams)
{
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	struct store_config cfg = {.path = path, .schema_dir = schema};
	int rc = store_open(&cfg, &st, err, sizeof err);
	ck_assert_msg(rc == STORE_OK, "store_open: %s", err);
	struct sessions_config sc = seams ? *seams : (struct sessions_config){0};
	sc.store = st;
	sc.cache_max = 8;
	alg_limits_default(&sc.limits);
	ck_assert_int_eq(sessions_open(&sc, &ses), SES_OK);
}

static void open_all(void)
{
	open_with(schema_dir(), NULL);
}

static void close_all(void)
{
	sessions_close(ses);
	store_close(st);
	ses = NULL;
	st = NULL;
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/cubed-sessions-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	open_all();
}

static void teardown(void)
{
	if (ses)
		close_all();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Facelets of size n after moves, computed locally (the reference). */
static char *replay(int n, const char *moves)
{
	size_t len = strlen(moves), cap = alg_nodes_needed(len);
	alg_node *nodes = malloc(cap * sizeof *nodes);
	alg_t a;
	ck_assert_int_eq(alg_parse(&a, nodes, cap, n, moves, len, NULL, NULL),
			 CUBE_OK);
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	alg_apply(&a, c, 0);
	size_t fl = 6u * (size_t)n * (size_t)n;
	char *out = malloc(fl + 1);
	cube_to_facelets(c, out);
	out[fl] = '\0';
	free(c);
	free(nodes);
	return out;
}

/* Wait until the writer has been handed at least submitted ops in all and
 * holds at most queued of them not yet taken into a batch: the ordering a
 * test needs, read from the counters sessions_stats reports. Polled (the
 * writer signals nobody) with a 10 s deadline. */
static void wait_writer(uint64_t submitted, uint64_t queued)
{
	for (int k = 0; k < 10000; k++) {
		struct sessions_stats st;
		sessions_stats(ses, &st);
		if (st.submitted >= submitted && st.queued <= queued)
			return;
		struct timespec ts = {0, 1000000L};
		nanosleep(&ts, NULL);
	}
	ck_abort_msg("the writer never had %llu ops with %llu queued",
		     (unsigned long long)submitted, (unsigned long long)queued);
}

static uint64_t writer_submitted(void)
{
	struct sessions_stats st;
	sessions_stats(ses, &st);
	return st.submitted;
}

static void create3(struct session_view *v, char token[36])
{
	struct session_create c = {.size = 3, .title = "t", .actor = "owner"};
	ck_assert_int_eq(sessions_create(ses, &c, v, token, NULL), SES_OK);
}

static int write_moves(const char *id, const char *token, const char *moves,
		       int64_t if_match, struct session_view *out)
{
	struct session_meta m;
	if (sessions_meta(ses, id, &m) != SES_OK)
		m.size = 3;
	return session_moves_write(ses, m.size, id, token, moves, if_match,
				   NULL, out);
}

static int write_kind_on(struct sessions *on, const char *id,
			 const char *token, enum ses_write_kind kind,
			 int64_t if_match, struct session_view *out)
{
	struct session_write w = {.kind = kind, .id = id, .token = token,
				  .if_match = if_match};
	memset(out, 0, sizeof *out);
	return sessions_write(on, &w, out, NULL);
}

static int write_kind(const char *id, const char *token,
		      enum ses_write_kind kind, struct session_view *out)
{
	return write_kind_on(ses, id, token, kind, -1, out);
}

START_TEST(create_and_read)
{
	struct session_view v, g;
	char token[36];
	create3(&v, token);
	ck_assert_int_eq(v.version, 0);
	ck_assert_str_eq(v.facelets, SOLVED3);
	ck_assert_uint_ge(strlen(v.id), 22);
	ck_assert_str_eq(token, token); /* shown once, 35 chars */
	ck_assert_uint_eq(strlen(token), 35);
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_str_eq(g.facelets, SOLVED3);
	ck_assert_str_eq(g.title, "t");
	session_view_free(&g);
	ck_assert_int_eq(sessions_get(ses, "nope", -1, &g), SES_NOT_FOUND);
	ck_assert_int_eq(sessions_get(ses, v.id, 1, &g), SES_NOT_FOUND);
	session_view_free(&v);
}
END_TEST

START_TEST(tokens_and_if_match)
{
	struct session_view v, w;
	char token[36];
	create3(&v, token);
	ck_assert_int_eq(write_moves(v.id, NULL, "R", -1, &w), SES_UNAUTHORIZED);
	ck_assert_int_eq(write_moves(v.id, "ct_wrong", "R", -1, &w),
			 SES_FORBIDDEN);
	ck_assert_int_eq(write_moves(v.id, token, "R", 0, &w), SES_OK);
	ck_assert_int_eq(w.version, 1);
	ck_assert_str_eq(w.facelets, AFTER_R);
	session_view_free(&w);
	/* stale: the session is at 1 */
	ck_assert_int_eq(write_moves(v.id, token, "U", 0, &w), SES_STALE);
	ck_assert_int_eq(w.version, 1);
	session_view_free(&w);
	/* nothing changed by the refused writes */
	struct session_view g;
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 1);
	ck_assert_str_eq(g.facelets, AFTER_R);
	session_view_free(&g);
	/* bad notation is found by the parse, before any write */
	alg_error err;
	struct session_write bad = {.kind = SES_MOVES, .id = v.id,
				    .token = token, .if_match = -1};
	ck_assert_int_eq(sessions_parse(ses, 3, "R Q", 3, &bad, &err),
			 SES_BAD_MOVES);
	ck_assert_ptr_null(bad.nodes);
	ck_assert_int_eq(err.code, ALG_ETOKEN);
	ck_assert_uint_eq(err.offset, 2);
	ck_assert_int_eq(write_moves(v.id, token, "R'", 1, &w), SES_OK);
	ck_assert_int_eq(w.version, 2);
	ck_assert_str_eq(w.facelets, SOLVED3);
	session_view_free(&w);
	session_view_free(&v);
}
END_TEST

START_TEST(undo_redo_reset)
{
	struct session_view v, w;
	char token[36];
	create3(&v, token);
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w),
			 SES_NOTHING_TO_UNDO);
	ck_assert_int_eq(write_moves(v.id, token, "R U", -1, &w), SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(write_moves(v.id, token, "F2", -1, &w), SES_OK);
	char *ruf2 = replay(3, "R U F2"), *ru = replay(3, "R U");
	ck_assert_str_eq(w.facelets, ruf2);
	session_view_free(&w);
	/* undo F2, undo R U, then nothing */
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w), SES_OK);
	ck_assert_int_eq(w.version, 3);
	ck_assert_str_eq(w.facelets, ru);
	ck_assert_int_eq(w.can_redo, 1);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, SOLVED3);
	ck_assert_int_eq(w.can_undo, 0);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w),
			 SES_NOTHING_TO_UNDO);
	/* redo twice brings R U then F2 back, in that order */
	ck_assert_int_eq(write_kind(v.id, token, SES_REDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, ru);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_REDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, ruf2);
	ck_assert_int_eq(w.version, 6);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_REDO, &w),
			 SES_NOTHING_TO_REDO);
	/* undo a redo, then a new move clears redo */
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, ru);
	session_view_free(&w);
	ck_assert_int_eq(write_moves(v.id, token, "D", -1, &w), SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_REDO, &w),
			 SES_NOTHING_TO_REDO);
	/* reset: initial state, not undoable */
	ck_assert_int_eq(write_kind(v.id, token, SES_RESET, &w), SES_OK);
	ck_assert_str_eq(w.facelets, SOLVED3);
	ck_assert_int_eq(w.version, 9);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w),
			 SES_NOTHING_TO_UNDO);
	/* the history has every event in order */
	struct store_event ev[16];
	int k = sessions_history(ses, v.id, 0, ev, 16);
	ck_assert_int_eq(k, 9);
	static const char *types[] = {"moves", "moves", "undo", "undo", "redo",
				      "redo", "undo", "moves", "reset"};
	for (int i = 0; i < 9; i++) {
		ck_assert_int_eq(ev[i].version, i + 1);
		ck_assert_str_eq(ev[i].kind, types[i]);
	}
	ck_assert_str_eq(ev[0].moves, "R U");
	ck_assert_str_eq(ev[2].moves, "F2'");   /* undo of F2 */
	ck_assert_str_eq(ev[3].moves, "U' R'"); /* undo of R U */
	for (int i = 0; i < k; i++)
		store_event_free(&ev[i]);
	free(ruf2);
	free(ru);
	session_view_free(&v);
}
END_TEST

START_TEST(time_travel_every_version)
{
	/* 100 writes on a 4×4 (crossing several snapshots); every version
	 * reads back equal to replaying the moves up to it. */
	struct session_view v, w;
	char token[36];
	struct session_create c = {.size = 4};
	ck_assert_int_eq(sessions_create(ses, &c, &v, token, NULL), SES_OK);
	static const char *moves[] = {"R", "U'", "Fw2", "3L", "x", "D B'",
				      "2-3Rw", "L2 U"};
	char history[4096] = "";
	char *expect[101];
	expect[0] = replay(4, "");
	for (int i = 1; i <= 100; i++) {
		const char *m = moves[i % 8];
		ck_assert_int_eq(write_moves(v.id, token, m, i - 1, &w), SES_OK);
		ck_assert_int_eq(w.version, i);
		session_view_free(&w);
		strcat(history, " ");
		strcat(history, m);
		expect[i] = replay(4, history);
	}
	for (int i = 0; i <= 100; i++) {
		struct session_view g;
		ck_assert_int_eq(sessions_get(ses, v.id, i, &g), SES_OK);
		ck_assert_int_eq(g.version, i);
		ck_assert_msg(strcmp(g.facelets, expect[i]) == 0, "version %d", i);
		session_view_free(&g);
		free(expect[i]);
	}
	session_view_free(&v);
}
END_TEST

START_TEST(persistence_and_fork_delete)
{
	struct session_view v, w, f;
	char token[36], ftoken[36];
	create3(&v, token);
	ck_assert_int_eq(write_moves(v.id, token, "R", -1, &w), SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(write_moves(v.id, token, "U", -1, &w), SES_OK);
	session_view_free(&w);
	close_all();
	open_all(); /* a restart: same database */
	struct session_view g;
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 2);
	char *ru = replay(3, "R U");
	ck_assert_str_eq(g.facelets, ru);
	session_view_free(&g);
	/* the token survived too (stored hashed) */
	ck_assert_int_eq(write_kind(v.id, token, SES_UNDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, AFTER_R);
	session_view_free(&w);
	/* fork at version 1 */
	ck_assert_int_eq(sessions_fork(ses, v.id, 1, "owner", &f, ftoken, NULL),
			 SES_OK);
	ck_assert_str_ne(f.id, v.id);
	ck_assert_str_ne(ftoken, token);
	ck_assert_int_eq(f.version, 0);
	ck_assert_str_eq(f.facelets, AFTER_R);
	/* the fork's reset goes to its own start */
	ck_assert_int_eq(write_moves(f.id, ftoken, "D", -1, &w), SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(f.id, ftoken, SES_RESET, &w), SES_OK);
	ck_assert_str_eq(w.facelets, AFTER_R);
	session_view_free(&w);
	/* the original's token does not write the fork */
	ck_assert_int_eq(write_moves(f.id, token, "D", -1, &w), SES_FORBIDDEN);
	/* delete needs the token */
	ck_assert_int_eq(sessions_delete(ses, v.id, NULL), SES_UNAUTHORIZED);
	ck_assert_int_eq(sessions_delete(ses, v.id, ftoken), SES_FORBIDDEN);
	ck_assert_int_eq(sessions_delete(ses, v.id, token), SES_OK);
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_NOT_FOUND);
	ck_assert_int_eq(sessions_delete(ses, v.id, token), SES_NOT_FOUND);
	ck_assert_int_eq(sessions_get(ses, f.id, -1, &g), SES_OK);
	session_view_free(&g);
	free(ru);
	session_view_free(&v);
	session_view_free(&f);
}
END_TEST

/* A second connection to the test's database holding its write lock
 * (BEGIN IMMEDIATE): the writer's next transaction waits (busy_timeout)
 * and the writes queued meanwhile form one batch. COMMIT releases it. */
static sqlite3 *hold_write_lock(void)
{
	char path[300];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	sqlite3 *hold;
	ck_assert_int_eq(sqlite3_open(path, &hold), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(hold, "BEGIN IMMEDIATE", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	return hold;
}

static void release_write_lock(sqlite3 *hold)
{
	ck_assert_int_eq(sqlite3_exec(hold, "COMMIT", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(hold);
}

struct racer {
	const char *id, *token;
	int writes, ok;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	static const char *moves[] = {"R", "U", "F'", "D2", "L", "B'"};
	for (int i = 0; i < r->writes; i++) {
		struct session_view w;
		if (write_moves(r->id, r->token, moves[i % 6], -1, &w) == SES_OK)
			r->ok++;
		session_view_free(&w);
	}
	return NULL;
}

START_TEST(concurrent_writers)
{
	struct session_view v;
	char token[36];
	create3(&v, token);
	enum { THREADS = 8, WRITES = 60 };
	pthread_t t[THREADS];
	struct racer r[THREADS];
	/* the racers' first writes queue up while another connection holds
	 * the write lock, so at least one commit groups several of them
	 * however the threads are scheduled (on a loaded machine they could
	 * otherwise each find the writer idle) */
	sqlite3 *hold = hold_write_lock();
	uint64_t base = writer_submitted();
	for (int i = 0; i < THREADS; i++) {
		r[i] = (struct racer){v.id, token, WRITES, 0};
		pthread_create(&t[i], NULL, race, &r[i]);
	}
	/* every racer's first write is with the writer before the lock goes */
	wait_writer(base + THREADS, UINT64_MAX);
	release_write_lock(hold);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(r[i].ok, WRITES);
	/* versions 1..480 consecutive; replaying them gives the state */
	struct store_event *ev = malloc(THREADS * WRITES * sizeof *ev);
	int k = sessions_history(ses, v.id, 0, ev, THREADS * WRITES);
	ck_assert_int_eq(k, THREADS * WRITES);
	size_t cap = 8 * (size_t)k + 1, len = 0;
	char *all = malloc(cap);
	all[0] = '\0';
	for (int i = 0; i < k; i++) {
		ck_assert_int_eq(ev[i].version, i + 1);
		len += (size_t)snprintf(all + len, cap - len, " %s", ev[i].moves);
		store_event_free(&ev[i]);
	}
	char *want = replay(3, all);
	struct session_view g;
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, THREADS * WRITES);
	ck_assert_str_eq(g.facelets, want);
	/* grouping happened: fewer commits than writes */
	struct sessions_stats stats;
	sessions_stats(ses, &stats);
	ck_assert_uint_lt(stats.commits, stats.writes);
	session_view_free(&g);
	free(want);
	free(all);
	free(ev);
	session_view_free(&v);
}
END_TEST

/* A database made by an older cubed (schema 2: every event a row of its
 * own, the state in the sessions row) keeps every session and event
 * through migrations 003 to 006 (the events table rebuilt, then one row
 * per version and snapshots), undo reads an old row, and the rebuilt
 * table still refuses a kind it does not know. The old rows are written here as that cubed wrote
 * them: moves R, U, F2, D', L B, then an undo of the last. */
START_TEST(migration_keeps_history)
{
	close_all();
	char old[300], cmd[700], path[300];
	snprintf(old, sizeof old, "%s/schema2", dir);
	snprintf(cmd, sizeof cmd, "mkdir '%s' && cp '%s'/001_*.sql '%s'/002_*.sql '%s'/",
		 old, schema_dir(), schema_dir(), old);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	unlink(path);
	open_with(old, NULL);
	ck_assert_int_eq(store_schema_version(st), 2);
	close_all();

	const char *id = "oldSessionFromSchema2x";
	const char *token = "ct_theOwnersTokenOfTheOldSession0";
	uint8_t hash[TOKEN_HASH_LEN];
	token_sha256(token, strlen(token), hash);
	char *now = replay(3, "R U F2 D'");
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
		"INSERT INTO sessions (id, size, created_at, updated_at, "
		"version, state, initial, token_hash, undo_top, redo_top) "
		"VALUES (?1, 3, 1000, 1006, 6, ?2, ?3, ?4, 4, 6)", -1, &s,
		NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, SOLVED3, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 4, hash, TOKEN_HASH_LEN, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
	static const struct {
		const char *type, *moves;
		int ref, link;
	} old_ev[] = {
		{"create", "", 0, 0}, {"moves", "R", 0, 0},
		{"moves", "U", 0, 1}, {"moves", "F2", 0, 2},
		{"moves", "D'", 0, 3}, {"moves", "L B", 0, 4},
		{"undo", "B' L'", 5, 0},
	};
	ck_assert_int_eq(sqlite3_prepare_v2(db,
		"INSERT INTO events (session_id, version, type, moves, actor, "
		"created_at, ref, link, snapshot) VALUES (?1, ?2, ?3, ?4, "
		"'owner', 1000 + ?2, ?5, ?6, ?7)", -1, &s, NULL), SQLITE_OK);
	for (int v = 0; v < 7; v++) {
		sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 2, v);
		sqlite3_bind_text(s, 3, old_ev[v].type, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, old_ev[v].moves, -1, SQLITE_STATIC);
		sqlite3_bind_int(s, 5, old_ev[v].ref);
		sqlite3_bind_int(s, 6, old_ev[v].link);
		if (v == 0)
			sqlite3_bind_text(s, 7, SOLVED3, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(s, 7);
		ck_assert_int_eq(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	sqlite3_close(db);

	open_all();
	ck_assert_int_eq(store_schema_version(st), 11);
	struct store_event ev[10];
	int k = sessions_history(ses, id, -1, ev, 10);
	ck_assert_int_eq(k, 7);
	for (int i = 0; i < k; i++) {
		ck_assert_int_eq(ev[i].version, i);
		ck_assert_str_eq(ev[i].kind, old_ev[i].type);
		ck_assert_str_eq(ev[i].moves, old_ev[i].moves);
		store_event_free(&ev[i]);
	}
	struct session_view g, w;
	ck_assert_int_eq(sessions_get(ses, id, -1, &g), SES_OK);
	ck_assert_str_eq(g.facelets, now);
	session_view_free(&g);
	ck_assert_int_eq(sessions_get(ses, id, 3, &g), SES_OK);
	char *want = replay(3, "R U F2");
	ck_assert_str_eq(g.facelets, want);
	session_view_free(&g);
	/* writes go on after the migration: a new one (pending), its undo,
	 * then an undo of an old row's moves */
	ck_assert_int_eq(write_moves(id, token, "R'", 6, &w), SES_OK);
	ck_assert_int_eq(w.version, 7);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(id, token, SES_UNDO, &w), SES_OK);
	ck_assert_str_eq(w.facelets, now);
	session_view_free(&w);
	ck_assert_int_eq(write_kind(id, token, SES_UNDO, &w), SES_OK);
	ck_assert_int_eq(w.version, 9);
	ck_assert_str_eq(w.facelets, want);
	session_view_free(&w);
	k = sessions_history(ses, id, 5, ev, 10);
	ck_assert_int_eq(k, 4);
	static const char *const later[] = {"undo", "moves", "undo", "undo"};
	for (int i = 0; i < k; i++) {
		ck_assert_int_eq(ev[i].version, 6 + i);
		ck_assert_str_eq(ev[i].kind, later[i]);
		store_event_free(&ev[i]);
	}
	free(want);
	free(now);
	close_all();

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO events (session_id, "
				      "version, kind, created_at) SELECT id, "
				      "99, 'jump', 0 FROM sessions",
				      NULL, NULL, &msg),
			 SQLITE_CONSTRAINT);
	ck_assert_ptr_nonnull(strstr(msg, "CHECK"));
	sqlite3_free(msg);
	sqlite_consistent(db);
	sqlite3_close(db);
}
END_TEST

/* A write that fails with a database error after part of it was written
 * (the session's row moved on, then its event row refused by a trigger the
 * test installs) inside a grouped commit: the others of its batch commit,
 * and nothing of it stays. The batch is formed by holding the database's
 * write lock from another connection while the writes queue up; a solve
 * of a missing session (a foreign key error) queues among them too. */
static int done_count;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

static void count_done(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&done_lock);
	done_count++;
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

static int solve_rc;

static void *solve_missing(void *arg)
{
	(void)arg;
	struct store_solve sv = {.version = 0, .length = 1,
				 .created_at = 1};
	snprintf(sv.method, sizeof sv.method, "two-phase");
	sv.solution = "R";
	solve_rc = sessions_add_solve(ses, "no-such-session", &sv, NULL, NULL);
	return NULL;
}

START_TEST(failed_op_leaves_batch)
{
	struct session_view v[3];
	char tok[3][36];
	for (int i = 0; i < 3; i++)
		create3(&v[i], tok[i]);
	sqlite3 *hold = hold_write_lock();
	char trig[300];
	snprintf(trig, sizeof trig,
		 "CREATE TRIGGER refuse BEFORE INSERT ON events "
		 "WHEN NEW.session_id = '%s' BEGIN SELECT RAISE(ABORT, "
		 "'refused'); END",
		 v[1].id);
	ck_assert_int_eq(sqlite3_exec(hold, trig, NULL, NULL, NULL),
			 SQLITE_OK);
	static const char *const moves[] = {"R", "U", "F"};
	struct session_write w[3];
	struct session_pending *p[3];
	done_count = 0;
	pthread_t t;
	uint64_t base = writer_submitted();
	for (int i = 0; i < 3; i++) {
		w[i] = (struct session_write){
			.kind = SES_MOVES, .id = v[i].id, .token = tok[i],
			.if_match = -1,
		};
		alg_error perr;
		ck_assert_int_eq(sessions_parse(ses, 3, moves[i], 1, &w[i],
						&perr),
				 SES_OK);
		p[i] = sessions_write_begin(ses, &w[i], count_done, NULL);
		ck_assert_ptr_nonnull(p[i]);
		/* the first waits alone for the lock (the writer has taken
		 * it: nothing queued); the solve of a missing session (a
		 * foreign key error) queues between the others */
		if (i == 0)
			wait_writer(base + 1, 0);
		if (i == 1) {
			ck_assert_int_eq(pthread_create(&t, NULL, solve_missing,
							NULL),
					 0);
			wait_writer(base + 3, UINT64_MAX);
		}
	}
	release_write_lock(hold);
	pthread_join(t, NULL);
	ck_assert_int_eq(solve_rc, SES_STORE);
	/* the three completions, each signalled, within 10 s */
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&done_lock);
	while (done_count < 3 &&
	       pthread_cond_timedwait(&done_cond, &done_lock, &until) == 0)
		;
	ck_assert_int_eq(done_count, 3);
	pthread_mutex_unlock(&done_lock);
	for (int i = 0; i < 3; i++) {
		struct session_view out;
		char *text = NULL;
		int rc = sessions_write_end(p[i], &out, &text);
		if (i == 1) {
			/* refused, and not half written */
			ck_assert_int_eq(rc, SES_STORE);
			struct store_event ev[4];
			ck_assert_int_eq(sessions_history(ses, v[1].id, -1, ev,
							  4),
					 1);
			store_event_free(&ev[0]);
			struct session_view g;
			ck_assert_int_eq(sessions_get(ses, v[1].id, -1, &g),
					 SES_OK);
			ck_assert_int_eq(g.version, 0);
			ck_assert_str_eq(g.facelets, v[1].facelets);
			session_view_free(&g);
			session_view_free(&v[1]);
			continue;
		}
		ck_assert_int_eq(rc, SES_OK);
		ck_assert_int_eq(out.version, 1);
		char *want = replay(3, moves[i]);
		ck_assert_str_eq(out.facelets, want);
		session_view_free(&out);
		free(text);
		/* committed: the store has it, once */
		struct store_event ev[4];
		ck_assert_int_eq(sessions_history(ses, v[i].id, -1, ev, 4), 2);
		ck_assert_str_eq(ev[1].moves, moves[i]);
		store_event_free(&ev[0]);
		store_event_free(&ev[1]);
		struct session_view g;
		ck_assert_int_eq(sessions_get(ses, v[i].id, -1, &g), SES_OK);
		ck_assert_str_eq(g.facelets, want);
		session_view_free(&g);
		free(want);
		session_view_free(&v[i]);
	}
	/* one commit held the batch of the later ops: 3 creates, then the
	 * first write alone (it waited for the lock) and the rest together,
	 * or, on a machine too slow to take the first write within 60 ms,
	 * all three writes and the solve in one batch */
	struct sessions_stats st1;
	sessions_stats(ses, &st1);
	ck_assert_msg(st1.commits == 3 + 2 || st1.commits == 3 + 1,
		      "%llu commits: the writes did not share a transaction",
		      (unsigned long long)st1.commits);
}
END_TEST

/* ------------------------------------------------------- several nodes */

/* A second "node": its own store and session layer on the test's file,
 * as another process would have. */
struct node {
	struct store *st;
	struct sessions *ses;
};

static void open_node(struct node *n, int shared, size_t cache_max,
		      size_t cache_bytes)
{
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	struct store_config cfg = {.path = path, .schema_dir = schema_dir(),
				   .shared = shared};
	ck_assert_msg(store_open(&cfg, &n->st, err, sizeof err) == STORE_OK,
		      "store_open: %s", err);
	struct sessions_config sc = {.store = n->st, .cache_max = cache_max,
				     .cache_bytes = cache_bytes};
	alg_limits_default(&sc.limits);
	ck_assert_int_eq(sessions_open(&sc, &n->ses), SES_OK);
}

static void close_node(struct node *n)
{
	sessions_close(n->ses);
	store_close(n->st);
}

/* The session's whole history replayed locally (resets to start). */
static char *replay_history(struct sessions *on, const char *id, int n,
			    int64_t upto, const char *start)
{
	struct store_event *ev = malloc((size_t)(upto + 1) * sizeof *ev);
	int k = sessions_history(on, id, -1, ev, (int)upto + 1);
	ck_assert_int_eq(k, upto + 1);
	size_t fl = 6u * (size_t)n * (size_t)n;
	cube_t *c = malloc(cube_sizeof(n));
	ck_assert_int_eq(cube_from_facelets(c, n, start, fl, NULL), CUBE_OK);
	for (int i = 0; i < k; i++) {
		ck_assert_int_eq(ev[i].version, i);
		if (strcmp(ev[i].kind, "reset") == 0) {
			cube_from_facelets(c, n, start, fl, NULL);
		} else if (i > 0) {
			size_t len = strlen(ev[i].moves);
			size_t cap = alg_nodes_needed(len);
			alg_node *nodes = malloc((cap ? cap : 1) * sizeof *nodes);
			alg_t a;
			ck_assert_int_eq(alg_parse(&a, nodes, cap, n, ev[i].moves,
						   len, NULL, NULL),
					 CUBE_OK);
			alg_apply(&a, c, 0);
			free(nodes);
		}
		store_event_free(&ev[i]);
	}
	char *out = malloc(fl + 1);
	cube_to_facelets(c, out);
	out[fl] = '\0';
	free(c);
	free(ev);
	return out;
}

struct node_writer {
	struct node *n;
	const char *id, *token;
	int writes, ok;
};

static void *node_writes(void *arg)
{
	struct node_writer *w = arg;
	static const char *moves[] = {"R", "U", "F'", "D2", "L", "B'", "x"};
	for (int i = 0; i < w->writes; i++) {
		struct session_view v;
		if (session_moves_write(w->n->ses, 3, w->id, w->token,
					moves[i % 7], -1, NULL, &v) == SES_OK)
			w->ok++;
		session_view_free(&v);
	}
	return NULL;
}

/* Two nodes on one SQLite file that know other writers exist (shared):
 * interleaved writes from both land densely, none lost; each node reads
 * the other's writes at once; an If-Match against a version the other
 * node overtook is refused with the fresh version; undo reverts the
 * other node's write. */
START_TEST(two_nodes_one_file)
{
	close_all();
	struct node a, b;
	open_node(&a, 1, 8, 0);
	open_node(&b, 1, 8, 0);
	struct session_view v, g;
	char token[36];
	struct session_create c = {.size = 3, .actor = "owner"};
	ck_assert_int_eq(sessions_create(a.ses, &c, &v, token, NULL), SES_OK);
	/* both nodes cache it before the race */
	ck_assert_int_eq(sessions_get(b.ses, v.id, -1, &g), SES_OK);
	session_view_free(&g);
	enum { WRITES = 60 };
	struct node_writer wa = {&a, v.id, token, WRITES, 0};
	struct node_writer wb = {&b, v.id, token, WRITES, 0};
	pthread_t ta, tb;
	ck_assert_int_eq(pthread_create(&ta, NULL, node_writes, &wa), 0);
	ck_assert_int_eq(pthread_create(&tb, NULL, node_writes, &wb), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ck_assert_int_eq(wa.ok, WRITES);
	ck_assert_int_eq(wb.ok, WRITES);
	char *want = replay_history(a.ses, v.id, 3, 2 * WRITES, SOLVED3);
	struct node *both[2] = {&a, &b};
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(sessions_get(both[i]->ses, v.id, -1, &g),
				 SES_OK);
		ck_assert_int_eq(g.version, 2 * WRITES);
		ck_assert_str_eq(g.facelets, want);
		session_view_free(&g);
	}
	free(want);
	/* B writes; A's If-Match on the version before is stale, and says
	 * the version B made */
	struct session_view w;
	ck_assert_int_eq(session_moves_write(b.ses, 3, v.id, token, "R",
					     2 * WRITES, NULL, &w),
			 SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(session_moves_write(a.ses, 3, v.id, token, "U",
					     2 * WRITES, NULL, &w),
			 SES_STALE);
	ck_assert_int_eq(w.version, 2 * WRITES + 1);
	/* A reads B's write, then undoes it */
	ck_assert_int_eq(sessions_get(a.ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 2 * WRITES + 1);
	session_view_free(&g);
	ck_assert_int_eq(write_kind_on(a.ses, v.id, token, SES_UNDO,
				       2 * WRITES + 1, &w),
			 SES_OK);
	char *before = NULL;
	ck_assert_int_eq(sessions_get(b.ses, v.id, 2 * WRITES, &g), SES_OK);
	before = strdup(g.facelets);
	session_view_free(&g);
	ck_assert_str_eq(w.facelets, before);
	session_view_free(&w);
	ck_assert_int_eq(sessions_get(b.ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 2 * WRITES + 2);
	ck_assert_str_eq(g.facelets, before);
	session_view_free(&g);
	free(before);
	want = replay_history(b.ses, v.id, 3, 2 * WRITES + 2, SOLVED3);
	ck_assert_int_eq(sessions_get(b.ses, v.id, -1, &g), SES_OK);
	ck_assert_str_eq(g.facelets, want);
	session_view_free(&g);
	free(want);
	session_view_free(&v);
	close_node(&a);
	close_node(&b);
}
END_TEST

/* Nodes that do not know of each other (not shared) still never lose or
 * misplace a write: the append is conditional in the database, and a
 * writer whose copy is stale reloads the session and evaluates the op
 * again. A plain write then lands on top; an If-Match of the copy's stale
 * version is refused with the fresh one, and one of the fresh version is
 * accepted; "nothing to undo" from a stale copy is checked first. */
START_TEST(conflict_reload)
{
	close_all();
	struct node a, b;
	open_node(&a, 0, 8, 0);
	open_node(&b, 0, 8, 0);
	struct session_view v, w, g;
	char token[36];
	struct session_create c = {.size = 3, .actor = "owner"};
	ck_assert_int_eq(sessions_create(a.ses, &c, &v, token, NULL), SES_OK);
	ck_assert_int_eq(sessions_get(b.ses, v.id, -1, &g), SES_OK); /* v0 */
	session_view_free(&g);
	ck_assert_int_eq(session_moves_write(a.ses, 3, v.id, token, "R", -1,
					     NULL, &w),
			 SES_OK);
	session_view_free(&w);
	/* B believes v0: nothing to undo; the store says otherwise */
	ck_assert_int_eq(write_kind_on(b.ses, v.id, token, SES_UNDO, -1, &w),
			 SES_OK);
	ck_assert_int_eq(w.version, 2);
	ck_assert_str_eq(w.facelets, SOLVED3);
	session_view_free(&w);
	/* A (at v1) writes on top of B's undo */
	ck_assert_int_eq(session_moves_write(a.ses, 3, v.id, token, "U", -1,
					     NULL, &w),
			 SES_OK);
	ck_assert_int_eq(w.version, 3);
	session_view_free(&w);
	/* B (at v2) writes on top of A's v3 */
	ck_assert_int_eq(session_moves_write(b.ses, 3, v.id, token, "F", -1,
					     NULL, &w),
			 SES_OK);
	ck_assert_int_eq(w.version, 4);
	char *uf = replay(3, "U F");
	ck_assert_str_eq(w.facelets, uf);
	free(uf);
	session_view_free(&w);
	/* A (at v3) with If-Match 3: stale, the fresh version is 4 */
	ck_assert_int_eq(session_moves_write(a.ses, 3, v.id, token, "D", 3,
					     NULL, &w),
			 SES_STALE);
	ck_assert_int_eq(w.version, 4);
	/* B writes v5; A, told 5 by someone, writes with If-Match 5 */
	ck_assert_int_eq(session_moves_write(b.ses, 3, v.id, token, "L", 4,
					     NULL, &w),
			 SES_OK);
	session_view_free(&w);
	ck_assert_int_eq(session_moves_write(a.ses, 3, v.id, token, "B", 5,
					     NULL, &w),
			 SES_OK);
	ck_assert_int_eq(w.version, 6);
	session_view_free(&w);
	char *want = replay_history(a.ses, v.id, 3, 6, SOLVED3);
	char *direct = replay(3, "U F L B");
	ck_assert_str_eq(want, direct);
	free(direct);
	ck_assert_int_eq(sessions_get(a.ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 6);
	ck_assert_str_eq(g.facelets, want);
	session_view_free(&g);
	free(want);
	struct sessions_stats sa, sb;
	sessions_stats(a.ses, &sa);
	sessions_stats(b.ses, &sb);
	ck_assert_uint_eq(sa.conflicts, 3); /* U, D, B */
	ck_assert_uint_eq(sb.conflicts, 2); /* undo, F */
	session_view_free(&v);
	close_node(&a);
	close_node(&b);
}
END_TEST

/* Snapshot rows in the database (plain SQL). */
static int count_snapshots(const char *id)
{
	char path[300];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM "
					    "snapshots WHERE session_id = ?1",
					    -1, &s, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	int k = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return k;
}

static void make_session(int n, struct session_view *v, char token[36])
{
	struct session_create c = {.size = n, .actor = "owner"};
	ck_assert_int_eq(sessions_create(ses, &c, v, token, NULL), SES_OK);
}

/* The rule of session_layer.h: a snapshot when the events since the
 * last one (or a reset) reach max(32, n), or the stickers they moved
 * reach max(6n², 4096); a reset stores none. Every version still reads
 * back as the history replayed. */
START_TEST(snapshot_rule)
{
	struct session_view v, w, g;
	char token[36];
	/* 3×3: by count, at 32 and 64 */
	make_session(3, &v, token);
	for (int i = 1; i <= 70; i++) {
		ck_assert_int_eq(write_moves(v.id, token, i % 2 ? "R" : "U'",
					     -1, &w),
				 SES_OK);
		session_view_free(&w);
	}
	ck_assert_int_eq(count_snapshots(v.id), 3);
	session_view_free(&v);
	/* 64×64: x moves 4·64² = 16,384 stickers, the bound is 6·64²:
	 * a snapshot every second x */
	make_session(64, &v, token);
	for (int i = 1; i <= 5; i++) {
		ck_assert_int_eq(write_moves(v.id, token, "x", -1, &w), SES_OK);
		session_view_free(&w);
	}
	ck_assert_int_eq(count_snapshots(v.id), 3);
	session_view_free(&v);
	/* a reset is a replay base without a row */
	make_session(3, &v, token);
	static const char *const hist[] = {"R", "U", "F", NULL, "D", "L2"};
	for (int i = 0; i < 6; i++) {
		int rc = hist[i] ? write_moves(v.id, token, hist[i], -1, &w)
				 : write_kind(v.id, token, SES_RESET, &w);
		ck_assert_int_eq(rc, SES_OK);
		session_view_free(&w);
	}
	ck_assert_int_eq(count_snapshots(v.id), 1);
	static const char *const at[] = {"", "R", "R U", "R U F", "", "D",
					 "D L2"};
	for (int i = 0; i <= 6; i++) {
		char *want = replay(3, at[i]);
		ck_assert_int_eq(sessions_get(ses, v.id, i, &g), SES_OK);
		ck_assert_msg(strcmp(g.facelets, want) == 0, "version %d", i);
		session_view_free(&g);
		free(want);
	}
	session_view_free(&v);
	/* 128×128: by count at n = 128 (face turns move 4n stickers each,
	 * far from 6n²) */
	make_session(128, &v, token);
	for (int i = 1; i <= 130; i++) {
		ck_assert_int_eq(write_moves(v.id, token, i % 2 ? "R" : "U",
					     -1, &w),
				 SES_OK);
		session_view_free(&w);
	}
	ck_assert_int_eq(count_snapshots(v.id), 2);
	char *want = replay_history(ses, v.id, 128, 130, v.facelets);
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_str_eq(g.facelets, want);
	session_view_free(&g);
	free(want);
	want = replay_history(ses, v.id, 128, 127, v.facelets);
	ck_assert_int_eq(sessions_get(ses, v.id, 127, &g), SES_OK);
	ck_assert_str_eq(g.facelets, want);
	session_view_free(&g);
	free(want);
	struct sessions_stats st1;
	sessions_stats(ses, &st1);
	ck_assert_uint_eq(st1.snapshots, 2 + 2 + 0 + 1);
	session_view_free(&v);
}
END_TEST

/* The cache stays within its entries and bytes whatever is read and
 * written, and what it dropped reads back right from the store. */
START_TEST(cache_bounds)
{
	close_all();
	struct node a;
	size_t limit = 300 * 1024;
	open_node(&a, 0, 100, limit);
	struct session_view v[8], w, g;
	char token[8][36];
	for (int i = 0; i < 8; i++) {
		struct session_create c = {.size = 64, .actor = "owner"};
		ck_assert_int_eq(sessions_create(a.ses, &c, &v[i], token[i],
						 NULL),
				 SES_OK);
	}
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 8; i++) {
			ck_assert_int_eq(session_moves_write(a.ses, 64, v[i].id,
							     token[i], "R 3Uw'",
							     -1, NULL, &w),
					 SES_OK);
			ck_assert_int_eq(w.version, round + 1);
			session_view_free(&w);
			struct sessions_stats st1;
			sessions_stats(a.ses, &st1);
			ck_assert_msg(st1.cache_bytes <= limit &&
					      st1.cache_entries < 8,
				      "%llu bytes in %llu entries",
				      (unsigned long long)st1.cache_bytes,
				      (unsigned long long)st1.cache_entries);
		}
	char *want = replay(64, "R 3Uw' R 3Uw'");
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(sessions_get(a.ses, v[i].id, -1, &g), SES_OK);
		ck_assert_int_eq(g.version, 2);
		ck_assert_str_eq(g.facelets, want);
		session_view_free(&g);
		session_view_free(&v[i]);
	}
	free(want);
	close_node(&a);
	/* by count: 8 entries at most (the suite's sessions) */
	open_all();
	for (int i = 0; i < 20; i++) {
		make_session(3, &v[0], token[0]);
		session_view_free(&v[0]);
	}
	struct sessions_stats st2;
	sessions_stats(ses, &st2);
	ck_assert_uint_le(st2.cache_entries, 8);
}
END_TEST

START_TEST(newer_schema_refused)
{
	close_all();
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version=99", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	struct store_config cfg = {.path = path, .schema_dir = schema_dir()};
	struct store *s2 = NULL;
	ck_assert_int_eq(store_open(&cfg, &s2, err, sizeof err), STORE_SCHEMA);
	ck_assert_ptr_nonnull(strstr(err, "newer"));
	/* a missing schema directory is a clear error too */
	cfg.schema_dir = "/nonexistent";
	ck_assert_int_eq(store_open(&cfg, &s2, err, sizeof err), STORE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "schema directory"));
}
END_TEST

/* The session replies' timestamps agree with gmtime_r + strftime on dates
 * across four centuries (leap days, century years, the end of 9999). */
START_TEST(timestamps)
{
	static const int64_t fixed[] = {0, 951782400000LL, 951868799999LL,
					4107542400000LL, 1700000000123LL,
					253402300799999LL};
	int64_t step = 86399937LL * 7, end = 253402300799999LL;
	int n = 6 + (int)(end / step);
	for (int i = 0; i < n; i++) {
		int64_t t = i < 6 ? fixed[i] : (int64_t)(i - 6) * step;
		char got[TIMEFMT_LEN + 1], want[40];
		timefmt_iso_ms(t, got);
		time_t secs = (time_t)(t / 1000);
		struct tm tm;
		gmtime_r(&secs, &tm);
		size_t k = strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want + k, sizeof want - k, ".%03dZ", (int)(t % 1000));
		ck_assert_msg(strcmp(got, want) == 0, "%lld ms: %s, expected %s",
			      (long long)t, got, want);
	}
}
END_TEST

/* Exactly once across a lost commit answer (issue 61.1): with the seam
 * sessions_config.lose_commit armed, a keyed write and a keyed create
 * commit but their caller hears SES_OUTCOME_UNKNOWN (as when PostgreSQL's
 * connection drops after COMMIT; check_pg.c does that with a relay). The
 * retry with the same key replays the committed change (replayed set,
 * the first version, the first tokens): never a second application, and
 * never a 412 against the client's own write. Without a key the same
 * If-Match retry is refused, as the issue saw. */
static int lose_armed;
static int lose_when_armed(void *ctx)
{
	(void)ctx;
	if (!lose_armed)
		return 0;
	lose_armed = 0;
	return 1;
}

START_TEST(lost_commit_replays)
{
	close_all();
	const struct sessions_config seams = {.lose_commit = lose_when_armed};
	open_with(schema_dir(), &seams);

	struct session_view v, w, g;
	char token[36];
	create3(&v, token);
	lose_armed = 1;
	ck_assert_int_eq(session_moves_write(ses, 3, v.id, token, "R", 0, "k1",
					     &w),
			 SES_OUTCOME_UNKNOWN);
	ck_assert_int_eq(lose_armed, 0);
	/* it did commit */
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 1);
	session_view_free(&g);
	/* the retry replays it: version 1, the state after R, once */
	ck_assert_int_eq(session_moves_write(ses, 3, v.id, token, "R", 0, "k1",
					     &w), SES_OK);
	ck_assert_int_eq(w.replayed, 1);
	ck_assert_int_eq(w.version, 1);
	ck_assert_str_eq(w.facelets, AFTER_R);
	session_view_free(&w);
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 1);
	ck_assert_str_eq(g.facelets, AFTER_R);
	session_view_free(&g);
	/* the key with another request: refused, nothing written */
	ck_assert_int_eq(session_moves_write(ses, 3, v.id, token, "U", 1, "k1",
					     &w),
			 SES_IDEM_REUSED);
	/* without a key, the same lost commit and If-Match retry: 412 */
	lose_armed = 1;
	ck_assert_int_eq(write_moves(v.id, token, "U", 1, &w),
			 SES_OUTCOME_UNKNOWN);
	ck_assert_int_eq(write_moves(v.id, token, "U", 1, &w), SES_STALE);
	session_view_free(&w);

	/* a create: the retry gets the first session and its token */
	struct ses_idem k = {0};
	memcpy(k.scope, "create scope", 12);
	memcpy(k.print, "create print", 12);
	struct session_create c = {.size = 3, .title = "t", .actor = "owner",
				   .idem = &k};
	char t1[36], t2[36];
	int64_t before = -1, after = -1;
	ck_assert_int_eq(store_count_sessions(st, &before), STORE_OK);
	lose_armed = 1;
	ck_assert_int_eq(sessions_create(ses, &c, &w, t1, NULL),
			 SES_OUTCOME_UNKNOWN);
	ck_assert_int_eq(store_count_sessions(st, &after), STORE_OK);
	ck_assert_int_eq(after, before + 1);
	k.replayed = 0;
	ck_assert_int_eq(sessions_create(ses, &c, &w, t2, NULL), SES_OK);
	ck_assert_int_eq(k.replayed, 1);
	ck_assert_int_eq(w.replayed, 1);
	ck_assert_int_eq(store_count_sessions(st, &after), STORE_OK);
	ck_assert_int_eq(after, before + 1);
	/* its token is the first one's: it writes the session made once */
	char made[STORE_ID_MAX];
	snprintf(made, sizeof made, "%s", w.id);
	session_view_free(&w);
	ck_assert_int_eq(write_moves(made, t2, "F", 0, &w), SES_OK);
	ck_assert_int_eq(w.version, 1);
	session_view_free(&w);
	session_view_free(&v);
}
END_TEST

/* Out of memory is its own error, never a database failure: with the
 * allocation seam (sessions_config.fail_alloc) armed, a create, a write, a
 * token and a delete answer SES_NOMEM (which the HTTP layer reports as 503
 * out_of_memory, suite "api"), and nothing of them is written. */
static int oom_armed;
static int fail_when_armed(void *ctx)
{
	(void)ctx;
	return oom_armed;
}

START_TEST(out_of_memory)
{
	close_all();
	const struct sessions_config seams = {.fail_alloc = fail_when_armed};
	open_with(schema_dir(), &seams);

	struct session_view v, w, g;
	char token[36], tok2[36];
	create3(&v, token);
	oom_armed = 1;
	struct session_create c = {.size = 3, .title = "t", .actor = "owner"};
	ck_assert_int_eq(sessions_create(ses, &c, &w, tok2, NULL), SES_NOMEM);
	ck_assert_int_eq(write_moves(v.id, token, "R", -1, &w), SES_NOMEM);
	ck_assert_int_eq(sessions_delete(ses, v.id, token), SES_NOMEM);
	oom_armed = 0;
	/* nothing was written: one session, still at version 0 */
	int64_t count = -1;
	ck_assert_int_eq(store_count_sessions(st, &count), STORE_OK);
	ck_assert_int_eq(count, 1);
	ck_assert_int_eq(sessions_get(ses, v.id, -1, &g), SES_OK);
	ck_assert_int_eq(g.version, 0);
	ck_assert_str_eq(g.facelets, SOLVED3);
	session_view_free(&g);
	/* and the next write, with memory back, is version 1 */
	ck_assert_int_eq(write_moves(v.id, token, "R", -1, &w), SES_OK);
	ck_assert_int_eq(w.version, 1);
	ck_assert_str_eq(w.facelets, AFTER_R);
	session_view_free(&w);
	session_view_free(&v);
	ck_assert_str_eq(sessions_strerror(SES_NOMEM),
			 "the server ran out of memory");
}
END_TEST

Suite *sessions_suite(void)
{
	Suite *s = suite_create("sessions");
	TCase *tc = tcase_create("sessions");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, create_and_read);
	tcase_add_test(tc, tokens_and_if_match);
	tcase_add_test(tc, undo_redo_reset);
	tcase_add_test(tc, time_travel_every_version);
	tcase_add_test(tc, persistence_and_fork_delete);
	tcase_add_test(tc, concurrent_writers);
	tcase_add_test(tc, newer_schema_refused);
	tcase_add_test(tc, migration_keeps_history);
	tcase_add_test(tc, failed_op_leaves_batch);
	tcase_add_test(tc, timestamps);
	tcase_add_test(tc, two_nodes_one_file);
	tcase_add_test(tc, conflict_reload);
	tcase_add_test(tc, snapshot_rule);
	tcase_add_test(tc, cache_bounds);
	tcase_add_test(tc, out_of_memory);
	tcase_add_test(tc, lost_commit_replays);
	suite_add_tcase(s, tc);
	return s;
}
