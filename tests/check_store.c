/* check_store.c — the SQLite store below the session rules: the pending
 * events a session keeps in its own row (server/evlog.h, schema/004), and
 * reads that see every appended event while the writer moves them. */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evlog.h"
#include "store.h"
#include "suites.h"

static char dir[256];
static struct store *st;

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/cubed-store-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[300], err[256];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	const char *schema = getenv("CUBED_SCHEMA");
	struct store_config cfg = {
		.path = path, .schema_dir = schema && *schema ? schema : "schema",
	};
	int rc = store_open(&cfg, &st, err, sizeof err);
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

/* ---------------------------------------------------------------- evlog */

static void same_event(const struct store_event *a, const struct store_event *b)
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

/* Every field survives, whatever bytes its text holds. */
START_TEST(evlog_round_trip)
{
	static const struct store_event evs[] = {
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
	struct store_event e;
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(evlog_next(&p, end, &e), 1);
		same_event(&evs[i], &e);
		ck_assert_ptr_null(e.snapshot);
		store_event_free(&e);
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
		struct store_event e;
		ck_assert_msg(evlog_next(&p, end, &e) == -1, "case %zu", i);
		ck_assert_ptr_eq(p, bad[i]);
		ck_assert_ptr_null(e.moves);
		ck_assert_ptr_null(e.actor);
	}
	/* a NUL inside a field (the length says where the text ends) */
	static const char nul[] = "1\x1fmo\0es\x1fR\x1f-\x1f" "5\x1f" "0\x1f"
				  "0\x1e";
	const char *p = nul;
	struct store_event e;
	ck_assert_int_eq(evlog_next(&p, nul + sizeof nul - 1, &e), -1);
	static const char nul2[] = "12\0" "3\x1fmoves\x1fR\x1f-\x1f" "5\x1f"
				   "0\x1f" "0\x1e";
	p = nul2;
	ck_assert_int_eq(evlog_next(&p, nul2 + sizeof nul2 - 1, &e), -1);
}
END_TEST

/* ------------------------------------------------------ pending events */

static const char STATE[] = "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

static void new_session(const char *id)
{
	struct store_session s = {.size = 3, .created_at = 1000,
				  .state = (char *)STATE,
				  .initial = (char *)STATE};
	snprintf(s.id, sizeof s.id, "%s", id);
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_create_session(st, &s, "owner"), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
}

/* Append version v (a snapshot on every 32nd, as the session rules do);
 * moves of the given length. */
static void append(const char *id, int64_t v, size_t moves_len)
{
	char *moves = malloc(moves_len + 1);
	for (size_t i = 0; i < moves_len; i++)
		moves[i] = "RUF "[(i + (size_t)v) % 4];
	moves[moves_len] = '\0';
	struct store_event e = {
		.version = v, .type = "moves", .moves = moves,
		.actor = v % 3 ? "player-1" : NULL, .created_at = 1000 + v,
		.link = v - 1,
		.snapshot = v % 32 == 0 ? (char *)STATE : NULL,
	};
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_append_event(st, id, &e, STATE, v, 0), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	free(moves);
}

/* Rows in events and event_blocks for the session, and the length of its
 * pending text (-1 for none). */
struct where {
	int rows, blocks, pending_len;
};

static struct where count_rows(const char *id)
{
	char path[300];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *s;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
		"SELECT (SELECT count(*) FROM events WHERE session_id = ?1), "
		"(SELECT count(*) FROM event_blocks WHERE session_id = ?1), "
		"(SELECT coalesce(length(pending), -1) FROM sessions "
		"WHERE id = ?1)", -1, &s, NULL), SQLITE_OK);
	sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	struct where w = {sqlite3_column_int(s, 0), sqlite3_column_int(s, 1),
			  sqlite3_column_int(s, 2)};
	sqlite3_finalize(s);
	sqlite3_close(db);
	return w;
}

static void check_history(const char *id, int64_t last)
{
	struct store_event ev[128];
	/* every page size and starting point */
	for (int cap = 1; cap <= 40; cap += 13)
		for (int64_t after = -1; after <= last; after += 5) {
			int k = store_history(st, id, after, ev, cap);
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
		ck_assert_int_eq(e.snapshot != NULL, v % 32 == 0);
		store_event_free(&e);
	}
	struct store_event e;
	ck_assert_int_eq(store_get_event(st, id, last + 1, &e),
			 STORE_NOT_FOUND);
}

/* Writes land in the session's own row until a snapshot moves them, as
 * one block, out of it; an event too big for the row does the same and
 * is a row itself. Every read sees every version wherever it is. */
START_TEST(pending_then_blocks)
{
	const char *id = "pendingSession01";
	new_session(id);
	struct where w = count_rows(id);
	ck_assert_int_eq(w.rows, 1);
	ck_assert_int_eq(w.blocks, 0);
	ck_assert_int_eq(w.pending_len, -1);
	for (int64_t v = 1; v <= 31; v++)
		append(id, v, 5);
	w = count_rows(id);
	ck_assert_int_eq(w.rows, 1); /* the create event only */
	ck_assert_int_eq(w.blocks, 0);
	ck_assert_int_gt(w.pending_len, 31 * 20);
	check_history(id, 31);
	append(id, 32, 5); /* a snapshot: 1..31 become a block */
	w = count_rows(id);
	ck_assert_int_eq(w.rows, 2);
	ck_assert_int_eq(w.blocks, 1);
	ck_assert_int_eq(w.pending_len, -1);
	check_history(id, 32);
	for (int64_t v = 33; v <= 40; v++)
		append(id, v, 5);
	append(id, 41, 2000); /* too big: 33..40 a block, 41 a row */
	w = count_rows(id);
	ck_assert_int_eq(w.rows, 3);
	ck_assert_int_eq(w.blocks, 2);
	ck_assert_int_eq(w.pending_len, -1);
	append(id, 42, 5);
	append(id, 43, 2000); /* a block of one */
	append(id, 44, 2000); /* nothing pending: no block */
	for (int64_t v = 45; v <= 70; v++)
		append(id, v, 5);
	w = count_rows(id);
	ck_assert_int_eq(w.rows, 6); /* 0, 32, 41, 43, 44, 64 */
	ck_assert_int_eq(w.blocks, 4); /* 1..31, 33..40, 42, 45..63 */
	ck_assert_int_gt(w.pending_len, 0); /* 65..70 */
	check_history(id, 70);
	struct store_event e;
	ck_assert_int_eq(store_get_event(st, id, 41, &e), STORE_OK);
	ck_assert_uint_eq(strlen(e.moves), 2000);
	store_event_free(&e);
	/* a version that is not next is refused and changes nothing */
	struct store_event skip = {.version = 72, .type = "moves",
				   .moves = "R", .created_at = 1072};
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_append_event(st, id, &skip, STATE, 0, 0),
			 STORE_CONFLICT);
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	struct store_event snap = {.version = 96, .type = "moves",
				   .moves = "R", .created_at = 1096,
				   .snapshot = (char *)STATE};
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_append_event(st, id, &snap, STATE, 0, 0),
			 STORE_CONFLICT);
	ck_assert_int_eq(store_rollback(st), STORE_OK);
	check_history(id, 70);
	/* the session's delete takes its blocks and pending events along */
	ck_assert_int_eq(store_begin(st), STORE_OK);
	ck_assert_int_eq(store_delete_session(st, id), STORE_OK);
	ck_assert_int_eq(store_commit(st), STORE_OK);
	w = count_rows(id);
	ck_assert_int_eq(w.rows + w.blocks, 0);
	ck_assert_int_eq(store_get_event(st, id, 42, &e), STORE_NOT_FOUND);
	ck_assert_int_eq(store_history(st, id, -1, &e, 1), 0);
}
END_TEST

/* A reader on another connection keeps reading the whole history while
 * the writer appends and, every 32 versions, moves the pending events
 * into rows: each read is gap-free from version 0 and never goes back.
 * The writer waits for a fresh read every 8 versions, so the reads
 * interleave with the moves however the threads are scheduled (CI once
 * saw the writer finish before the reader's first read). */
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
		int k = store_history(st, r->id, -1, ev, 400);
		if (k < 0) {
			snprintf(r->why, sizeof r->why, "store_history: %d", k);
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

START_TEST(reads_during_moves)
{
	const char *id = "pendingSession02";
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
	}
	atomic_store(&r.stop, 1);
	pthread_join(t, NULL);
	ck_assert_msg(r.errors == 0, "%s", r.why);
	ck_assert_int_ge(atomic_load(&r.reads), 80);
	check_history(id, 320);
}
END_TEST

Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, evlog_round_trip);
	tcase_add_test(tc, evlog_malformed);
	tcase_add_test(tc, pending_then_blocks);
	tcase_add_test(tc, reads_during_moves);
	suite_add_tcase(s, tc);
	return s;
}
