/* check_store.c — the store (server/store/store.h) below the session rules, on
 * its SQLite engine: the row model read back with plain SQL, the
 * conditional append, replay bases (snapshots and resets), paging, delete,
 * the engine choice, reads on another connection during writes, and the
 * upgrade's reader of schema 4's event text (server/store/migrate_evlog.h) with
 * a damaged old database refused whole. */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evlog_writer.h"
#include "store.h"
#include "suites.h"

static char dir[256];
static struct store *st;

static const char *schema_dir(void)
{
	const char *d = getenv("CUBED_SCHEMA");
	return d && *d ? d : "schema";
}

static void db_path(char *path, size_t cap)
{
	snprintf(path, cap, "%s/cubed.db", dir);
}

static int open_store(struct store **out, char *err, size_t errlen)
{
	char path[300];
	db_path(path, sizeof path);
	struct store_config cfg = {.path = path, .schema_dir = schema_dir()};
	return store_open(&cfg, out, err, errlen);
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/cubed-store-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char err[256];
	int rc = open_store(&st, err, sizeof err);
	ck_assert_msg(rc == STORE_OK, "store_open: %s", err);
}

static void teardown(void)
{
	store_close(st);
	st = NULL;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* One value of a query on a separate connection, as text ("NULL" for
 * none): what anyone with the sqlite3 shell would read. */
static void sql_text(const char *sql, const char *arg, char *out, size_t cap)
{
	char path[300];
	db_path(path, sizeof path);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *s;
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK,
		      "%s: %s", sql, sqlite3_errmsg(db));
	if (arg)
		sqlite3_bind_text(s, 1, arg, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	ck_assert_msg(rc == SQLITE_ROW, "%s: no row", sql);
	const unsigned char *t = sqlite3_column_text(s, 0);
	snprintf(out, cap, "%s", t ? (const char *)t : "NULL");
	sqlite3_finalize(s);
	sqlite3_close(db);
}

static long long sql_int(const char *sql, const char *arg)
{
	char t[64];
	sql_text(sql, arg, t, sizeof t);
	return atoll(t);
}

/* ---------------------------------------------------------------- rows */

static const char STATE[] =
	"UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
static const char OTHER[] =
	"UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB";

static void new_session(const char *id)
{
	struct store_session s = {.size = 3, .created_at = 1000,
				  .title = "t"};
	snprintf(s.id, sizeof s.id, "%s", id);
	s.token_hash[0] = 7;
	struct store_event ev0 = {.kind = "create", .moves = "",
				  .actor = "owner", .created_at = 1000};
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_create_session(st, &s, &ev0, STATE,
					      sizeof STATE - 1),
			 STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
}

/* Append version v of the given kind (moves of the given length). */
static int append_kind(const char *id, int64_t v, const char *kind,
		       size_t moves_len)
{
	char *moves = malloc(moves_len + 1);
	for (size_t i = 0; i < moves_len; i++)
		moves[i] = "RUF "[(i + (size_t)v) % 4];
	moves[moves_len] = '\0';
	struct store_event e = {
		.version = v, .moves = moves,
		.actor = v % 3 ? "player-1" : NULL, .created_at = 1000 + v,
		.link = v - 1,
	};
	snprintf(e.kind, sizeof e.kind, "%s", kind);
	ck_assert_int_eq(store_begin(st), STORE_OK);
	int rc = store_append_event(st, id, &e, v, 0);
	ck_assert_int_eq(rc == STORE_OK ? store_commit(st) : store_rollback(st),
			 STORE_OK);
	free(moves);
	return rc;
}

static void append(const char *id, int64_t v, size_t moves_len)
{
	ck_assert_int_eq(append_kind(id, v, "moves", moves_len), STORE_OK);
}

static void snapshot(const char *id, int64_t v, const char *state)
{
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_add_snapshot(st, id, v, state, strlen(state)),
			 STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
}

static void check_history(const char *id, int64_t last)
{
	struct store_event ev[128];
	/* every page size and starting point */
	for (int cap = 1; cap <= 40; cap += 13)
		for (int64_t after = -1; after <= last; after += 5) {
			int k = store_events_after(st, id, after, ev, cap);
			int want = (int)(last - after) < cap ? (int)(last - after)
							     : cap;
			ck_assert_msg(k == want, "after %lld cap %d: %d events",
				      (long long)after, cap, k);
			for (int i = 0; i < k; i++) {
				ck_assert_int_eq(ev[i].version, after + 1 + i);
				store_event_free(&ev[i]);
			}
		}
	for (int64_t v = 1; v <= last; v++) {
		struct store_event e;
		ck_assert_int_eq(store_get_event(st, id, v, &e), STORE_OK);
		ck_assert_int_eq(e.version, v);
		ck_assert_int_eq(e.created_at, 1000 + v);
		ck_assert_int_eq(e.link, v - 1);
		if (v % 3)
			ck_assert_str_eq(e.actor, "player-1");
		else
			ck_assert_ptr_null(e.actor);
		store_event_free(&e);
	}
	struct store_event e;
	ck_assert_int_eq(store_get_event(st, id, last + 1, &e),
			 STORE_NOT_FOUND);
}

/* Every write is one plain row, the session row holds no state, and the
 * store gives back exactly what went in. */
START_TEST(rows_in_plain_sql)
{
	const char *id = "rowsSession0000001";
	new_session(id);
	for (int64_t v = 1; v <= 40; v++)
		append(id, v, 5);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE "
				 "session_id = ?1", id), 41);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE "
				 "session_id = ?1 AND kind = 'moves'", id), 40);
	char t[128];
	sql_text("SELECT kind || '|' || moves || '|' || actor || '|' || "
		 "created_at || '|' || ref || '|' || link FROM events "
		 "WHERE session_id = ?1 AND version = 7", id, t, sizeof t);
	ck_assert_str_eq(t, "moves| RUF |player-1|1007|0|6");
	sql_text("SELECT kind || '|' || actor FROM events WHERE session_id "
		 "= ?1 AND version = 0", id, t, sizeof t);
	ck_assert_str_eq(t, "create|owner");
	sql_text("SELECT version || '|' || undo_top || '|' || updated_at || "
		 "'|' || title FROM sessions WHERE id = ?1", id, t, sizeof t);
	ck_assert_str_eq(t, "40|40|1040|t");
	/* the state is a snapshot row, not a sessions column */
	ck_assert_int_eq(sql_int("SELECT count(*) FROM pragma_table_info("
				 "'sessions') WHERE name IN ('state', "
				 "'initial', 'pending')", NULL), 0);
	sql_text("SELECT state FROM snapshots WHERE session_id = ?1 AND "
		 "version = 0", id, t, sizeof t);
	ck_assert_str_eq(t, STATE);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM sqlite_master WHERE "
				 "name = 'event_blocks'", NULL), 0);
	check_history(id, 40);
	struct store_session s;
	ck_assert_int_eq(store_get_session(st, id, &s), STORE_OK);
	ck_assert_int_eq(s.version, 40);
	ck_assert_int_eq(s.size, 3);
	ck_assert_int_eq(s.token_hash[0], 7);
	ck_assert_str_eq(s.title, "t");
	store_session_free(&s);
	int64_t v;
	ck_assert_int_eq(store_session_version(st, id, &v), STORE_OK);
	ck_assert_int_eq(v, 40);
	ck_assert_int_eq(store_session_version(st, "nope", &v),
			 STORE_NOT_FOUND);
	ck_assert_int_eq(store_schema_version(st), 11);
	ck_assert_str_eq(store_engine_name(st), "sqlite");
	ck_assert_uint_eq(store_caps(st), STORE_CAP_IDEM);
}
END_TEST

/* An append names the version it makes; the database refuses it unless
 * the session is at the one before, and then writes nothing. */
START_TEST(append_is_conditional)
{
	const char *id = "condSession0000001";
	new_session(id);
	append(id, 1, 3);
	ck_assert_int_eq(append_kind(id, 3, "moves", 3), STORE_CONFLICT);
	ck_assert_int_eq(append_kind(id, 1, "moves", 3), STORE_CONFLICT);
	ck_assert_int_eq(append_kind("missing", 1, "moves", 3),
			 STORE_NOT_FOUND);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM events WHERE "
				 "session_id = ?1", id), 2);
	ck_assert_int_eq(sql_int("SELECT version FROM sessions WHERE id = "
				 "?1", id), 1);
	/* a kind the table does not know is refused by its check */
	ck_assert_int_eq(store_begin(st), STORE_OK);
	struct store_event bad = {.version = 2, .kind = "jump", .moves = "",
				  .created_at = 5};
	ck_assert_int_eq(store_append_event(st, id, &bad, 0, 0), STORE_ERROR);
	ck_assert_ptr_nonnull(strstr(store_last_error(st), "CHECK"));
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	append(id, 2, 3);
	check_history(id, 2);
}
END_TEST

static void expect_base(const char *id, int64_t at, int64_t base,
			const char *state)
{
	int64_t b;
	char *text;
	size_t len;
	ck_assert_int_eq(store_replay_base(st, id, at, &b, &text, &len),
			 STORE_OK);
	ck_assert_msg(b == base, "at %lld: base %lld, expected %lld",
		      (long long)at, (long long)b, (long long)base);
	ck_assert_str_eq(text, state);
	ck_assert_uint_eq(len, strlen(state));
	free(text);
}

/* The replay base of a version is its latest snapshot or reset; a reset
 * stores no state (version 0's is used). */
START_TEST(replay_bases)
{
	const char *id = "baseSession0000001";
	new_session(id);
	for (int64_t v = 1; v <= 30; v++) {
		ck_assert_int_eq(append_kind(id, v, v == 15 ? "reset" : "moves",
					     v == 15 ? 0 : 3),
				 STORE_OK);
		if (v == 10 || v == 25)
			snapshot(id, v, OTHER);
	}
	expect_base(id, 0, 0, STATE);
	expect_base(id, 9, 0, STATE);
	expect_base(id, 10, 10, OTHER);
	expect_base(id, 14, 10, OTHER);
	expect_base(id, 15, 15, STATE);
	expect_base(id, 24, 15, STATE);
	expect_base(id, 25, 25, OTHER);
	expect_base(id, 30, 25, OTHER);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM snapshots WHERE "
				 "session_id = ?1", id), 3);
	int64_t b;
	char *text;
	size_t len;
	ck_assert_int_eq(store_replay_base(st, "missing", 3, &b, &text, &len),
			 STORE_NOT_FOUND);
	/* a second snapshot of one version is refused */
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_add_snapshot(st, id, 10, STATE, 54),
			 STORE_CONFLICT);
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	expect_base(id, 10, 10, OTHER);
	/* the session's delete takes every row along */
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_delete_session(st, id), STORE_OK);
	ck_assert_int_eq(store_delete_session(st, id), STORE_NOT_FOUND);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	ck_assert_int_eq(sql_int("SELECT (SELECT count(*) FROM events WHERE "
				 "session_id = ?1) + (SELECT count(*) FROM "
				 "snapshots WHERE session_id = ?1)", id), 0);
	struct store_event e;
	ck_assert_int_eq(store_events_after(st, id, -1, &e, 1), 0);
}
END_TEST

/* An address no engine of this build knows is a clear error; shared is
 * passed on as the capability the session layer reads. */
START_TEST(engine_choice)
{
	struct store *other = NULL;
	char err[256];
	struct store_config cfg = {
		.path = "mysql://cubed@127.0.0.1/cubed",
		.schema_dir = schema_dir(),
	};
	ck_assert_int_eq(store_open(&cfg, &other, err, sizeof err),
			 STORE_NO_ENGINE);
	ck_assert_ptr_null(other);
	ck_assert_msg(strstr(err, "mysql://") && strstr(err, "SQLite") &&
			      strstr(err, "postgres://"),
		      "%s", err);
	char path[300];
	db_path(path, sizeof path);
	cfg.path = path;
	cfg.shared = 1;
	ck_assert_int_eq(store_open(&cfg, &other, err, sizeof err), STORE_OK);
	ck_assert_uint_eq(store_caps(other), STORE_CAP_SHARED | STORE_CAP_IDEM);
	store_close(other);
}
END_TEST

/* A reader on another connection keeps reading the whole history while
 * the writer appends (and snapshots every 32): each read is gap-free from
 * version 0 and never goes back. The writer waits for a fresh read every 8
 * versions, so the reads interleave with the appends however the threads
 * are scheduled. */
struct reader {
	const char *id;
	atomic_int stop, reads, done;
	int errors;
	int64_t seen;
	char why[160];
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	static struct store_event ev[400];
	while (!atomic_load(&r->stop)) {
		int k = store_events_after(st, r->id, -1, ev, 400);
		if (k < 0) {
			snprintf(r->why, sizeof r->why, "events_after: %d", k);
			r->errors++;
			break;
		}
		for (int i = 0; i < k; i++) {
			if (ev[i].version != i && !r->errors++)
				snprintf(r->why, sizeof r->why,
					 "read %d: version %lld at %d of %d",
					 r->reads, (long long)ev[i].version, i,
					 k);
			store_event_free(&ev[i]);
		}
		if (k - 1 < r->seen && !r->errors++)
			snprintf(r->why, sizeof r->why,
				 "read %d: %d events after %lld had been seen",
				 r->reads, k, (long long)r->seen);
		if (k - 1 > r->seen)
			r->seen = k - 1;
		atomic_fetch_add(&r->reads, 1);
	}
	atomic_store(&r->done, 1);
	return NULL;
}

START_TEST(reads_during_appends)
{
	const char *id = "readSession0000002";
	new_session(id);
	struct reader r = {.id = id, .seen = -1};
	atomic_init(&r.stop, 0);
	atomic_init(&r.reads, 0);
	atomic_init(&r.done, 0);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, reader_main, &r), 0);
	for (int64_t v = 1; v <= 320; v++) {
		if (v % 8 == 1) {
			/* a read that starts after the last append */
			int before = atomic_load(&r.reads);
			while (atomic_load(&r.reads) < before + 2 &&
			       !atomic_load(&r.done))
				sched_yield();
		}
		append(id, v, 40);
		if (v % 32 == 0)
			snapshot(id, v, OTHER);
	}
	atomic_store(&r.stop, 1);
	pthread_join(t, NULL);
	ck_assert_msg(r.errors == 0, "%s", r.why);
	ck_assert_int_ge(atomic_load(&r.reads), 80);
	check_history(id, 320);
}
END_TEST

/* ------------------------------------------- schema 4's text (upgrade) */

static void same_record(const struct evlog_record *a,
			const struct evlog_record *b)
{
	ck_assert_int_eq(a->version, b->version);
	ck_assert_str_eq(a->type, b->type);
	ck_assert_str_eq(a->moves ? a->moves : "", b->moves ? b->moves : "");
	if (a->actor)
		ck_assert_str_eq(a->actor, b->actor);
	else
		ck_assert_ptr_null(b->actor);
	ck_assert_int_eq(a->created_at, b->created_at);
	ck_assert_int_eq(a->ref, b->ref);
	ck_assert_int_eq(a->link, b->link);
}

/* Every field written by the old format is read back, whatever bytes its
 * text holds. */
START_TEST(evlog_round_trip)
{
	static const struct evlog_record evs[] = {
		{.version = 1, .type = "moves", .moves = "R U R' U'",
		 .actor = "owner", .created_at = 1700000000123, .link = 0},
		{.version = 2, .type = "undo", .moves = "B' L'",
		 .actor = NULL, .created_at = -5, .ref = 1, .link = 7},
		{.version = 9223372036854775807, .type = "redo",
		 .moves = "\\U\\R\\\\ \x1f\x1e end\\", .actor = "a\x1f" "b\x1e"
		 "c\\d=-", .created_at = 0, .ref = -9223372036854775807 - 1,
		 .link = 3},
		{.version = 4, .type = "moves", .moves = "", .actor = "",
		 .created_at = 1, .ref = 0, .link = 0},
		{.version = 5, .type = "moves", .moves = "2-3Rw' x2 \xc3\xa9",
		 .actor = "-", .created_at = 2, .ref = 0, .link = 4},
	};
	size_t n = sizeof evs / sizeof evs[0], total = 0;
	char text[2048] = "";
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *r = evlog_encode(&evs[i], &len);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_eq(strlen(r), len);
		ck_assert_int_eq(r[len - 1], '\x1e');
		ck_assert_ptr_null(memchr(r, '\x1e', len - 1));
		memcpy(text + total, r, len);
		total += len;
		free(r);
	}
	const char *p = text, *end = text + total;
	struct evlog_record e;
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(evlog_next(&p, end, &e), 1);
		same_record(&evs[i], &e);
		evlog_record_free(&e);
	}
	ck_assert_int_eq(evlog_next(&p, end, &e), 0);
	ck_assert_ptr_eq(p, end);
}
END_TEST

/* Text that is not a record is refused, never read past its end. */
START_TEST(evlog_malformed)
{
	static const char *const bad[] = {
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0",  /* no RS */
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1e",        /* 6 fields */
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0\x1f" "0\x1e",
		"x\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e",
		"\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e",
		"1\x1fmoves\x1fR\x1f?\x1f" "5\x1f" "0\x1f" "0\x1e", /* actor */
		"1\x1fmoves\x1fR\x1f\x1f" "5\x1f" "0\x1f" "0\x1e",
		"1\x1fmoves\x1fR\\\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e", /* escape */
		"1\x1fmoves\x1fR\\q\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e",
		"1\x1fmovesandmore\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e",
		"1\x1fmoves\x1fR\x1f-\x1f" "5 \x1f" "0\x1f" "0\x1e",
		"1\x1fmoves\x1fR\x1f-\x1f" "99999999999999999999\x1f" "0\x1f"
		"0\x1e",
		"01\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "0\x1f" "0\x1e", /* one */
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "-0\x1f" "0\x1e", /* spelling */
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "+1\x1f" "0\x1e",
		"1\x1fmoves\x1fR\x1f-\x1f" "5\x1f" "-\x1f" "0\x1e",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *p = bad[i], *end = bad[i] + strlen(bad[i]);
		struct evlog_record e;
		ck_assert_msg(evlog_next(&p, end, &e) == -1, "case %zu", i);
		ck_assert_ptr_eq(p, bad[i]);
		ck_assert_ptr_null(e.moves);
		ck_assert_ptr_null(e.actor);
	}
	/* a NUL inside a field (the length says where the text ends) */
	static const char nul[] = "1\x1fmo\0es\x1fR\x1f-\x1f" "5\x1f" "0\x1f"
				  "0\x1e";
	const char *p = nul;
	struct evlog_record e;
	ck_assert_int_eq(evlog_next(&p, nul + sizeof nul - 1, &e), -1);
	static const char nul2[] = "12\0" "3\x1fmoves\x1fR\x1f-\x1f" "5\x1f"
				   "0\x1f" "0\x1e";
	p = nul2;
	ck_assert_int_eq(evlog_next(&p, nul2 + sizeof nul2 - 1, &e), -1);
}
END_TEST

/* A schema-4 database whose event text is damaged is not half upgraded:
 * the migration fails whole, says which session, and leaves the file as
 * it was (still schema 4, every old row there). */
START_TEST(damaged_v4_refused_whole)
{
	store_close(st);
	st = NULL;
	const char *fx = getenv("CUBED_FIXTURES");
	char path[300], cmd[800];
	db_path(path, sizeof path);
	snprintf(cmd, sizeof cmd, "cp '%s/upgrade-v4/cubed-v4.db' '%s'",
		 fx && *fx ? fx : "tests/fixtures", path);
	ck_assert_int_eq(system(cmd), 0);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	char *id = NULL;
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
		"SELECT id FROM sessions WHERE pending IS NOT NULL "
		"ORDER BY id LIMIT 1", -1, &s, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	id = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	ck_assert_int_eq(sqlite3_exec(db,
		"UPDATE sessions SET pending = pending || 'junk' WHERE id = "
		"(SELECT id FROM sessions WHERE pending IS NOT NULL ORDER BY "
		"id LIMIT 1)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	char err[512];
	ck_assert_int_eq(open_store(&st, err, sizeof err), STORE_ERROR);
	ck_assert_ptr_null(st);
	ck_assert_msg(strstr(err, "006") == NULL && strstr(err, "005") &&
			      strstr(err, id) && strstr(err, "malformed"),
		      "%s", err);
	free(id);
	ck_assert_int_eq(sql_int("PRAGMA user_version", NULL), 4);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM sqlite_master WHERE "
				 "name IN ('event_blocks', 'events') OR "
				 "name = 'event_rows'", NULL), 2);
	ck_assert_int_eq(sql_int("SELECT count(*) FROM event_blocks", NULL),
			 8);
	/* setup's teardown closes st: open the fresh database again */
	snprintf(cmd, sizeof cmd, "rm -f '%s'*", path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(open_store(&st, err, sizeof err), STORE_OK);
}
END_TEST

Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, rows_in_plain_sql);
	tcase_add_test(tc, append_is_conditional);
	tcase_add_test(tc, replay_bases);
	tcase_add_test(tc, engine_choice);
	tcase_add_test(tc, reads_during_appends);
	tcase_add_test(tc, evlog_round_trip);
	tcase_add_test(tc, evlog_malformed);
	tcase_add_test(tc, damaged_v4_refused_whole);
	suite_add_tcase(s, tc);
	return s;
}
