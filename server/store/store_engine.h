/* store_engine.h — what a store engine implements (store.h is what the
 * rest of the server calls). One table of functions per engine; store.c
 * keeps the list of engines this build has and, at store_open, gives the
 * database address to the first whose `accepts` says it is theirs. Each
 * function has the contract of the store.h call of the same name, with
 * the engine's own state (what open returned) instead of the store.
 *
 * An engine for a database that several processes or nodes write reports
 * STORE_CAP_SHARED from open, and must keep store_append_event's version
 * check in the database (a conditional UPDATE or a row lock), never only
 * in its memory. */
#ifndef CUBED_STORE_ENGINE_H
#define CUBED_STORE_ENGINE_H

#include "store.h"

struct store_engine {
	const char *name;
	/* 1 if this engine opens that address (a path, or scheme://…) */
	int (*accepts)(const char *path);
	int (*open)(const struct store_config *cfg, void **impl,
		    unsigned *caps, char *err, size_t errlen);
	void (*close)(void *impl);
	const char *(*last_error)(void *impl);
	int (*unavailable)(void *impl);      /* NULL: never */
	int (*schema_version)(void *impl);
	int (*ping)(void *impl);
	int (*begin)(void *impl);
	int (*commit)(void *impl);
	int (*rollback)(void *impl);

	/* The primitives store.c composes sessions and their history from
	 * (create, append, replay base), so that each engine writes rows and
	 * the rules of the history are written once. insert_session:
	 * STORE_CONFLICT when the id is taken. advance: the session's
	 * version to e->version and its undo and redo tops, only if it is at
	 * e->version - 1 (STORE_NOT_FOUND: not there, or gone). last_reset:
	 * the latest reset event at or before at, -1 if none. snapshot_at:
	 * the latest snapshot at or before at (state malloc'd). */
	int (*insert_session)(void *impl, const struct store_session *s);
	int (*insert_event)(void *impl, const char *id,
			    const struct store_event *e);
	int (*advance)(void *impl, const char *id, const struct store_event *e,
		       int64_t undo_top, int64_t redo_top);
	/* Optional (NULL: advance, then insert_event): both as one step,
	 * with advance's STORE_NOT_FOUND when nothing was written */
	int (*append)(void *impl, const char *id, const struct store_event *e,
		      int64_t undo_top, int64_t redo_top);
	int (*last_reset)(void *impl, const char *id, int64_t at,
			  int64_t *reset);
	int (*snapshot_at)(void *impl, const char *id, int64_t at,
			   int64_t *version, char **state, size_t *len);
	int (*get_session)(void *impl, const char *id,
			   struct store_session *out);
	int (*session_version)(void *impl, const char *id, int64_t *version);
	int (*add_snapshot)(void *impl, const char *id, int64_t version,
			    const char *state, size_t len);
	int (*get_event)(void *impl, const char *id, int64_t version,
			 struct store_event *out);
	int (*events_after)(void *impl, const char *id, int64_t after,
			    struct store_event *out, int cap);
	int (*delete_session)(void *impl, const char *id);
	int (*count_sessions)(void *impl, int64_t *count);

	int (*add_solve)(void *impl, const char *session_id,
			 const struct store_solve *s, int64_t *out_id);
	int (*list_solves)(void *impl, const char *session_id, int64_t after,
			   struct store_solve *out, int cap);
	int (*race_add)(void *impl, const struct store_race *r);
	int (*race_get)(void *impl, const char *id, struct store_race *out);
	int (*race_players)(void *impl, const char *id,
			    struct store_race_player *out, int cap);
	int (*race_join)(void *impl, const char *id,
			 struct store_race_player *p);
	int (*race_start)(void *impl, const char *id, const char *scramble,
			  int64_t go_at);
	int (*add_timed)(void *impl, const char *session_id,
			 const struct store_timed *t, int64_t *out_id);
	int (*list_timed)(void *impl, const char *session_id, int64_t after,
			  struct store_timed *out, int cap);

	int (*add_token)(void *impl, const char *session_id,
			 struct store_token *t, const unsigned char *hash);
	int (*find_token)(void *impl, const char *session_id,
			  const unsigned char *hash, struct store_token *out);
	int (*list_tokens)(void *impl, const char *session_id,
			   struct store_token *out, int cap);
	/* Optional (NULL: no storage cap can be enforced): store_used_bytes */
	int (*used_bytes)(void *impl, int64_t *bytes);
	/* Optional (NULL: nothing to report): store_pool_stats */
	void (*pool_stats)(void *impl, struct store_pool_stats *out);
	/* Optional (NULL: faults end only at a commit): can a write go
	 * through now? STORE_OK, or STORE_FULL / STORE_BUSY /
	 * STORE_UNWRITABLE with the reason in last_error. Must change no
	 * row. */
	int (*probe_write)(void *impl);
	/* Optional (NULL: probe_write for every fault): while the disk is
	 * full, can the database take a new page? probe_write changes no
	 * row, and where that needs no space it cannot tell. STORE_OK, or
	 * STORE_FULL with the reason in last_error. Must leave nothing. */
	int (*probe_space)(void *impl);
	int (*revoke_token)(void *impl, const char *session_id, int64_t id,
			    int64_t when);
	/* NULL: nothing to do (the transaction excludes other writers) */
	int (*lock_sessions)(void *impl, const char *const *ids, int n);
	/* NULL: nothing to read ahead (store_prefetch) */
	int (*prefetch)(void *impl, const char *const *ids,
			const int64_t *after, int n, int cap);
	/* NULL: appends are never deferred (store_defer) */
	void (*defer)(void *impl, int on);
	int (*deferred_failed)(void *impl);
	/* NULL: Idempotency-Key results are not kept (store.h) */
	int (*idem_take)(void *impl, const unsigned char *scope,
			 const unsigned char *print, int64_t now,
			 int64_t ttl_ms, struct store_idem *out);
	int (*idem_keep)(void *impl, const unsigned char *scope,
			 const char *result);
	int (*idem_drop)(void *impl, const unsigned char *scope);
	int (*idem_expire)(void *impl, int64_t before);
	/* The stream tickets' key (store_ticket_key): candidate inserted if
	 * the database has none, then the stored one into key. NULL: the
	 * engine keeps none (each process draws its own). */
	int (*ticket_key)(void *impl, const unsigned char *candidate,
			  unsigned char *key);
	/* NULL: the engine has no notifications */
	int (*listen)(void *impl, store_notify_fn *fn, void *ctx);
};

/* The engines of this build. */
extern const struct store_engine store_sqlite_engine;
extern const struct store_engine store_pg_engine;

#endif
