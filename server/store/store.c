/* store.c — the store interface's front (store.h): picks the engine at
 * open from the database address, then forwards each call to it, watching
 * the results for storage faults (a full disk, a held lock, a file that
 * cannot be written): the first failure of a kind starts an episode that
 * is logged once and reported by store_fault until a commit succeeds or a
 * probe finds the fault gone. Also the *_free functions, which are the
 * same for every engine. */
#include "store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "store_engine.h"

struct store {
	const struct store_engine *eng;
	void *impl;
	unsigned caps;
	pthread_mutex_t fault_lock; /* guards the episode below */
	_Atomic int fault;          /* the episode's fault, 0: none */
	char fault_msg[256];        /* what failed, as the engine said */
	struct timespec probed;     /* the latest probe */
	_Atomic int down;           /* the latest ping failed */
	/* the test seam (read_fault): NULL in a server run normally */
	const char *fault_file;
	pthread_mutex_t seam_lock;
};

/* Does the calling thread have a write transaction open? (The test seam
 * fails only reads outside one.) */
static _Thread_local int in_txn;

/* TEST SEAM, for tests/http/check_pg_live.c only: with the environment
 * variable CUBED_TEST_READ_FAULTS naming a file that holds a number N > 0,
 * the next history read (store_events_after) made outside a write
 * transaction fails with STORE_UNAVAILABLE and the file is rewritten to
 * N - 1. So a test fails exactly the reads a node's live events make
 * (reading other nodes' versions for its watchers) while its writer,
 * which reads inside its transaction, keeps working: the failure that an
 * exhausted connection limit causes at random, at a time the test
 * chooses. Without the variable (every real run) this costs a NULL test. */
static int read_fault(struct store *st)
{
	if (!st->fault_file || in_txn)
		return 0;
	int fail = 0;
	pthread_mutex_lock(&st->seam_lock);
	FILE *f = fopen(st->fault_file, "r+");
	long n = 0;
	if (f && fscanf(f, "%ld", &n) == 1 && n > 0) {
		rewind(f);
		fprintf(f, "%ld\n", n - 1);
		fflush(f);
		fail = 1;
	}
	if (f)
		fclose(f);
	pthread_mutex_unlock(&st->seam_lock);
	return fail;
}

static int is_fault(int rc)
{
	return rc == STORE_FULL || rc == STORE_BUSY || rc == STORE_UNWRITABLE;
}

static const char *fault_what(int rc)
{
	return rc == STORE_FULL   ? "the disk or the database is full"
	       : rc == STORE_BUSY ? "the database is locked by another "
				    "connection"
				  : "the database cannot be written";
}

/* Start (or change the kind of) a fault episode: logged once. */
static void fault_begin(struct store *st, int rc, const char *msg)
{
	pthread_mutex_lock(&st->fault_lock);
	if (atomic_load(&st->fault) != rc) {
		snprintf(st->fault_msg, sizeof st->fault_msg, "%s", msg);
		atomic_store(&st->fault, rc);
		log_msg(LOG_ERROR,
			"storage: %s (%s): writes are refused until it clears",
			fault_what(rc), msg);
	}
	pthread_mutex_unlock(&st->fault_lock);
}

static void fault_end(struct store *st)
{
	if (atomic_load(&st->fault) == 0)
		return;
	pthread_mutex_lock(&st->fault_lock);
	int f = atomic_load(&st->fault);
	if (f) {
		atomic_store(&st->fault, 0);
		log_msg(LOG_WARN, "storage: writes work again (after: %s)",
			fault_what(f));
	}
	pthread_mutex_unlock(&st->fault_lock);
}

/* Watch one call's result. */
static int note(struct store *st, int rc)
{
	if (rc >= 0 || rc == STORE_NOT_FOUND || rc == STORE_CONFLICT)
		return rc;
	if (is_fault(rc))
		fault_begin(st, rc, store_last_error(st));
	return rc;
}

int store_fault(struct store *st, char *msg, size_t cap)
{
	if (atomic_load(&st->fault) && st->eng->probe_write) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		pthread_mutex_lock(&st->fault_lock);
		int due = now.tv_sec - st->probed.tv_sec >= 1;
		if (due)
			st->probed = now;
		pthread_mutex_unlock(&st->fault_lock);
		if (due) {
			int rc = atomic_load(&st->fault) == STORE_FULL &&
						 st->eng->probe_space
					 ? st->eng->probe_space(st->impl)
					 : st->eng->probe_write(st->impl);
			if (rc == STORE_OK)
				fault_end(st);
			else if (is_fault(rc))
				fault_begin(st, rc, store_last_error(st));
		}
	}
	pthread_mutex_lock(&st->fault_lock);
	int f = atomic_load(&st->fault);
	if (msg && cap)
		snprintf(msg, cap, "%s", f ? st->fault_msg : "");
	pthread_mutex_unlock(&st->fault_lock);
	return f;
}

static const struct store_engine *const engines[] = {
	&store_sqlite_engine,
	&store_pg_engine,
};

int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen)
{
	const struct store_engine *eng = NULL;
	for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
		if (engines[i]->accepts(cfg->path)) {
			eng = engines[i];
			break;
		}
	if (!eng) {
		const char *colon = strstr(cfg->path, "://");
		snprintf(err, errlen,
			 "no database engine of this cubed opens %.*s… "
			 "addresses (this build has: SQLite files, postgres://)",
			 colon ? (int)(colon - cfg->path) + 3 : 16, cfg->path);
		return STORE_NO_ENGINE;
	}
	struct store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->eng = eng;
	int rc = eng->open(cfg, &st->impl, &st->caps, err, errlen);
	if (rc != STORE_OK) {
		free(st);
		if (is_fault(rc) || strstr(err, "readonly") ||
		    strstr(err, "unable to open")) {
			/* say what to do, not only what SQLite said */
			size_t n = strlen(err);
			snprintf(err + n, errlen - n,
				 " (cubed needs to write %s and its "
				 "directory: check the permissions, that the "
				 "file system is mounted read-write and has "
				 "room)", cfg->path);
		}
		return rc;
	}
	pthread_mutex_init(&st->fault_lock, NULL);
	pthread_mutex_init(&st->seam_lock, NULL);
	const char *seam = getenv("CUBED_TEST_READ_FAULTS");
	st->fault_file = seam && *seam ? seam : NULL;
	/* a database others write may have been made read-only (or full)
	 * behind this node's back: the episode starts now, not at the
	 * first refused write, so /readyz says so from the start */
	if ((st->caps & STORE_CAP_SHARED) && eng->probe_write) {
		int p = eng->probe_write(st->impl);
		if (is_fault(p))
			fault_begin(st, p, store_last_error(st));
	}
	*out = st;
	return STORE_OK;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	st->eng->close(st->impl);
	pthread_mutex_destroy(&st->fault_lock);
	pthread_mutex_destroy(&st->seam_lock);
	free(st);
}

const char *store_engine_name(const struct store *st)
{
	return st->eng->name;
}

unsigned store_caps(const struct store *st)
{
	return st->caps;
}

const char *store_last_error(struct store *st)
{
	return st->eng->last_error(st->impl);
}

int store_unavailable(struct store *st)
{
	return st->eng->unavailable ? st->eng->unavailable(st->impl) : 0;
}

void store_defer(struct store *st, int on)
{
	if (st->eng->defer)
		st->eng->defer(st->impl, on);
}

int store_deferred_failed(struct store *st)
{
	return st->eng->deferred_failed && st->eng->deferred_failed(st->impl);
}

int store_lock_sessions(struct store *st, const char *const *ids, int n)
{
	if (!st->eng->lock_sessions || n <= 0)
		return STORE_OK;
	return note(st, st->eng->lock_sessions(st->impl, ids, n));
}

int store_prefetch(struct store *st, const char *const *ids,
		   const int64_t *after, int n, int cap)
{
	if (!st->eng->prefetch || n <= 0 || cap <= 0)
		return STORE_OK;
	return note(st, st->eng->prefetch(st->impl, ids, after, n, cap));
}

int store_idem_take(struct store *st, const unsigned char *scope,
		    const unsigned char *print, int64_t now, int64_t ttl_ms,
		    struct store_idem *out)
{
	memset(out, 0, sizeof *out);
	if (!st->eng->idem_take)
		return STORE_NO_ENGINE;
	return note(st, st->eng->idem_take(st->impl, scope, print, now,
					   ttl_ms, out));
}

int store_idem_keep(struct store *st, const unsigned char *scope,
		    const char *result)
{
	if (!st->eng->idem_keep)
		return STORE_NO_ENGINE;
	return note(st, st->eng->idem_keep(st->impl, scope, result));
}

int store_idem_drop(struct store *st, const unsigned char *scope)
{
	if (!st->eng->idem_drop)
		return STORE_NO_ENGINE;
	return note(st, st->eng->idem_drop(st->impl, scope));
}

int store_ticket_key(struct store *st, const unsigned char *candidate,
		     unsigned char *key)
{
	if (!st->eng->ticket_key) {
		memcpy(key, candidate, STORE_TICKET_KEY_LEN);
		return STORE_OK;
	}
	return note(st, st->eng->ticket_key(st->impl, candidate, key));
}

int store_idem_expire(struct store *st, int64_t before)
{
	if (!st->eng->idem_expire)
		return STORE_NO_ENGINE;
	return note(st, st->eng->idem_expire(st->impl, before));
}

void store_idem_free(struct store_idem *r)
{
	free(r->result);
	r->result = NULL;
}

int store_listen(struct store *st, store_notify_fn *fn, void *ctx)
{
	if (!st->eng->listen)
		return STORE_NO_ENGINE;
	return st->eng->listen(st->impl, fn, ctx);
}

int store_schema_version(struct store *st)
{
	return st->eng->schema_version(st->impl);
}

/* A ping; the database going away and coming back are logged once each,
 * with the engine's reason (which may name hosts: the log, not /readyz,
 * is where an operator reads it). */
int store_ping(struct store *st)
{
	int rc = st->eng->ping(st->impl);
	if (rc != STORE_OK && atomic_exchange(&st->down, 1) == 0)
		log_msg(LOG_ERROR,
			"database: does not answer (%s); /readyz says down "
			"until it does",
			store_last_error(st));
	else if (rc == STORE_OK && atomic_exchange(&st->down, 0) == 1)
		log_msg(LOG_WARN, "database: answers again");
	return rc;
}

int store_begin(struct store *st)
{
	int rc = note(st, st->eng->begin(st->impl));
	in_txn = rc == STORE_OK;
	return rc;
}

int store_commit(struct store *st)
{
	int rc = note(st, st->eng->commit(st->impl));
	in_txn = 0;
	if (rc == STORE_OK)
		fault_end(st);
	return rc;
}

int store_rollback(struct store *st)
{
	in_txn = 0;
	return st->eng->rollback(st->impl);
}

/* ---- sessions and their history, composed from the engine's rows ---- */

int store_create_session(struct store *st, const struct store_session *s,
			 const struct store_event *ev0, const char *state,
			 size_t len)
{
	const struct store_engine *e = st->eng;
	int rc = e->insert_session(st->impl, s);
	if (rc == STORE_OK)
		rc = e->insert_event(st->impl, s->id, ev0);
	if (rc == STORE_OK)
		rc = e->add_snapshot(st->impl, s->id, 0, state, len);
	return note(st, rc);
}

int store_get_session(struct store *st, const char *id,
		      struct store_session *out)
{
	return note(st, st->eng->get_session(st->impl, id, out));
}

int store_session_version(struct store *st, const char *id, int64_t *version)
{
	return note(st, st->eng->session_version(st->impl, id, version));
}

int store_append_event(struct store *st, const char *id,
		       const struct store_event *e, int64_t undo_top,
		       int64_t redo_top)
{
	const struct store_engine *eng = st->eng;
	int rc = eng->append ? eng->append(st->impl, id, e, undo_top, redo_top)
			     : eng->advance(st->impl, id, e, undo_top, redo_top);
	if (rc == STORE_NOT_FOUND) {
		/* not at e->version - 1 (another writer moved it): a
		 * conflict, unless the session is gone */
		int64_t now;
		rc = st->eng->session_version(st->impl, id, &now);
		return note(st, rc == STORE_OK ? STORE_CONFLICT : rc);
	}
	if (rc == STORE_OK && !eng->append)
		rc = eng->insert_event(st->impl, id, e);
	return note(st, rc);
}

int store_add_snapshot(struct store *st, const char *id, int64_t version,
		       const char *state, size_t len)
{
	return note(st, st->eng->add_snapshot(st->impl, id, version, state, len));
}

int store_replay_base(struct store *st, const char *id, int64_t at,
		      int64_t *base, char **state, size_t *len)
{
	const struct store_engine *e = st->eng;
	int64_t reset;
	*state = NULL;
	int rc = e->last_reset(st->impl, id, at, &reset);
	if (rc == STORE_OK)
		rc = e->snapshot_at(st->impl, id, at, base, state, len);
	if (rc != STORE_OK || reset <= *base)
		return note(st, rc);
	/* a reset after the latest snapshot: version 0's state there */
	free(*state);
	*state = NULL;
	int64_t zero;
	rc = e->snapshot_at(st->impl, id, 0, &zero, state, len);
	*base = reset;
	return note(st, rc);
}

int store_get_event(struct store *st, const char *id, int64_t version,
		    struct store_event *out)
{
	return note(st, st->eng->get_event(st->impl, id, version, out));
}

int store_events_after(struct store *st, const char *id, int64_t after,
		       struct store_event *out, int cap)
{
	if (read_fault(st))
		return STORE_UNAVAILABLE;
	return note(st, st->eng->events_after(st->impl, id, after, out, cap));
}

int store_delete_session(struct store *st, const char *id)
{
	return note(st, st->eng->delete_session(st->impl, id));
}

int store_count_sessions(struct store *st, int64_t *count)
{
	return note(st, st->eng->count_sessions(st->impl, count));
}

void store_pool_stats(struct store *st, struct store_pool_stats *out)
{
	memset(out, 0, sizeof *out);
	if (st->eng->pool_stats)
		st->eng->pool_stats(st->impl, out);
}

int store_used_bytes(struct store *st, int64_t *bytes)
{
	if (!st->eng->used_bytes)
		return STORE_ERROR;
	return note(st, st->eng->used_bytes(st->impl, bytes));
}

int store_add_solve(struct store *st, const char *session_id,
		    const struct store_solve *s, int64_t *out_id)
{
	return note(st, st->eng->add_solve(st->impl, session_id, s, out_id));
}

int store_race_add(struct store *st, const struct store_race *r)
{
	return note(st, st->eng->race_add(st->impl, r));
}

int store_race_get(struct store *st, const char *id, struct store_race *out)
{
	return note(st, st->eng->race_get(st->impl, id, out));
}

int store_race_players(struct store *st, const char *id,
		       struct store_race_player *out, int cap)
{
	return note(st, st->eng->race_players(st->impl, id, out, cap));
}

int store_race_join(struct store *st, const char *id,
		    struct store_race_player *p)
{
	return note(st, st->eng->race_join(st->impl, id, p));
}

int store_race_start(struct store *st, const char *id, const char *scramble,
		     int64_t go_at)
{
	return note(st, st->eng->race_start(st->impl, id, scramble, go_at));
}

void store_race_free(struct store_race *r)
{
	free(r->title);
	free(r->scramble);
	r->title = r->scramble = NULL;
}

int store_add_timed(struct store *st, const char *session_id,
		    const struct store_timed *t, int64_t *out_id)
{
	return note(st, st->eng->add_timed(st->impl, session_id, t, out_id));
}

int store_list_timed(struct store *st, const char *session_id, int64_t after,
		     struct store_timed *out, int cap)
{
	return note(st, st->eng->list_timed(st->impl, session_id, after, out, cap));
}

void store_timed_free(struct store_timed *t)
{
	free(t->scramble);
	t->scramble = NULL;
}

int store_list_solves(struct store *st, const char *session_id, int64_t after,
		      struct store_solve *out, int cap)
{
	return note(st, st->eng->list_solves(st->impl, session_id, after, out, cap));
}

int store_add_token(struct store *st, const char *session_id,
		    struct store_token *t, const unsigned char *hash)
{
	return note(st, st->eng->add_token(st->impl, session_id, t, hash));
}

int store_find_token(struct store *st, const char *session_id,
		     const unsigned char *hash, struct store_token *out)
{
	return note(st, st->eng->find_token(st->impl, session_id, hash, out));
}

int store_list_tokens(struct store *st, const char *session_id,
		      struct store_token *out, int cap)
{
	return note(st, st->eng->list_tokens(st->impl, session_id, out, cap));
}

int store_revoke_token(struct store *st, const char *session_id, int64_t id,
		       int64_t when)
{
	return note(st, st->eng->revoke_token(st->impl, session_id, id, when));
}

void store_session_free(struct store_session *s)
{
	free(s->title);
	s->title = NULL;
	free(s->scramble);
	s->scramble = NULL;
}

void store_event_free(struct store_event *e)
{
	free(e->moves);
	free(e->actor);
	e->moves = e->actor = NULL;
}

void store_solve_free(struct store_solve *s)
{
	free(s->solution);
	s->solution = NULL;
}
