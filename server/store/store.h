/* store.h — where sessions, their histories and their solves live: an
 * engine-neutral interface in one row model, so that SQLite (store_sqlite.c,
 * the embedded default) and a PostgreSQL engine (issue 23) can sit behind
 * the same calls. store_engine.h is what an engine implements; store.c picks
 * the engine at open from the database address and forwards every call.
 *
 * The row model (schema/005, schema/006), readable with plain SQL:
 *   sessions   one row per session: size, times, version, undo_top,
 *              redo_top, the owner token's hash, title, visibility, the
 *              scramble it was created with (schema/007). No
 *              state: a write changes a few small columns.
 *   events     one row per version: kind (create, moves, undo, redo,
 *              reset), moves (the canonical text that takes version-1 to
 *              version; an undo stores the inverse of what it undoes),
 *              actor, created_at, and ref/link for the undo and redo stacks.
 *   snapshots  (session, version, state): version 0 and then now and then
 *              (the session layer decides when: session_layer.h). A
 *              reset stores no state: its version's state is version 0's.
 *   solves, tokens  as before.
 *   timed_solves  a timed solve's start (schema/008): the version it
 *              starts from, who, the scramble, when inspection began.
 *   races, race_players  a race's room and seats (schema/009); its
 *              results are the players' sessions' timed solves.
 * The state at a version v is rebuilt from its replay base (the latest
 * snapshot or reset at or before v) by applying the events after it.
 * Rows at or before a session's committed version never change, so a
 * reader that learnt the version first can read them in separate
 * statements without a transaction.
 *
 * Version checks live in the database: store_append_event appends only if
 * the session is still at the version before (a conditional UPDATE), so two
 * writers (two processes on one SQLite file today, two nodes on PostgreSQL
 * tomorrow) can never both write one version. An engine whose database
 * other writers can change reports STORE_CAP_SHARED: then a cache in front
 * of it must validate what it holds (store_session_version).
 *
 * Threads: any thread may call any function. A write transaction
 * (store_begin … store_commit) belongs to the calling thread, and every
 * write runs inside one.
 *
 * Results: STORE_OK (0), a count where said, or a negative store_err.
 * Strings in out-structs are malloc'd and released by the *_free functions.
 */
#ifndef CUBED_STORE_H
#define CUBED_STORE_H

#include <stddef.h>
#include <stdint.h>

enum store_err {
	STORE_OK = 0,
	STORE_NOT_FOUND = -1,  /* no such session / event / snapshot */
	STORE_CONFLICT = -2,   /* a row with that key exists, or the session
				* is not at the version the append expects */
	STORE_ERROR = -3,      /* the engine failed: store_last_error says why */
	STORE_SCHEMA = -4,     /* the database is newer than this binary */
	STORE_NO_ENGINE = -5,  /* no engine of this build opens that address */
	/* storage faults (store_fault): the call changed nothing */
	STORE_FULL = -6,       /* the disk (or the database) is full */
	STORE_BUSY = -7,       /* another connection held the write lock past
				* the busy timeout */
	STORE_UNWRITABLE = -8, /* read-only now, or an I/O error */
	STORE_UNAVAILABLE = -9, /* the database cannot be reached now (down,
				 * network): the engine reconnects by itself,
				 * so a later call may succeed */
	STORE_UNKNOWN = -10,   /* store_commit only: the connection went
				* after COMMIT was sent, so the transaction
				* may or may not have committed */
};

struct store;

struct store_config {
	const char *path;       /* SQLite file (its directory must exist); an
				 * address with a scheme (postgres://…) picks
				 * the engine that knows it */
	const char *schema_dir; /* NNN_name.sql migrations, applied in order */
	int durability_full;    /* SQLite: synchronous=FULL (power-loss safe) */
	int busy_timeout_ms;    /* SQLite: 0 = 5000 */
	int shared;             /* other processes write this database too:
				 * the engine then reports STORE_CAP_SHARED */
	int txn_lease_ms;       /* PostgreSQL: a write transaction left idle this
				 * long is ended by the server, releasing the
				 * Idempotency-Key claims (and locks) of a node
				 * that stalled or lost its network; 0 = none */
	int timeout_ms;         /* PostgreSQL: a statement's statement_timeout,
				 * and a round trip, a new connection or the
				 * wait for a free one with no answer within
				 * it and a quarter more fails (the connection
				 * dropped): STORE_UNAVAILABLE; 0 = 5000 */
	int pool;               /* PostgreSQL: connections for requests at
				 * most (one more listens); 0 = 8 */
};

/* What an open store can tell its users. */
#define STORE_CAP_SHARED 1u /* rows may change behind this process's back */
#define STORE_CAP_IDEM 2u   /* keeps Idempotency-Key results (store_idem_*) */

/* Open (creating if needed) and migrate. On failure returns the code and
 * writes a sentence to err. */
int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen);
/* Close every connection. No other call may be running or follow. */
void store_close(struct store *st);

const char *store_engine_name(const struct store *st);
unsigned store_caps(const struct store *st);

/* The calling thread's last engine error, as a sentence. */
const char *store_last_error(struct store *st);

/* 1 if the calling thread's last failure was STORE_UNAVAILABLE (the
 * database could not be reached), 0 otherwise. */
int store_unavailable(struct store *st);

/* Schema version of the open database. */
int store_schema_version(struct store *st);

/* Cheap liveness check for /readyz. */
int store_ping(struct store *st);

/* Storage faults. A call failing with STORE_FULL, STORE_BUSY or
 * STORE_UNWRITABLE starts a fault episode (logged once, with what failed);
 * the next commit that succeeds ends it (logged once). store_fault: the
 * episode's fault (0: none; msg gets the engine's sentence), probing the
 * database first, at most once a second, so that an episode ends by
 * itself once the fault clears even when nobody writes (the disk has room
 * again, the lock is free, the file is writable). The call that failed
 * says which fault by its return value. */
int store_fault(struct store *st, char *msg, size_t cap);

/* Write transactions. Every write runs inside one; store_begin takes the
 * database's write lock (SQLite: BEGIN IMMEDIATE), so what a transaction
 * reads stays true until it commits. */
int store_begin(struct store *st);
int store_commit(struct store *st);
int store_rollback(struct store *st);

#define STORE_ID_MAX 48
#define STORE_HASH_LEN 32

struct store_session {
	char id[STORE_ID_MAX];
	int size;
	int64_t created_at, updated_at; /* Unix ms */
	int64_t version;
	int64_t undo_top, redo_top;     /* 0 = nothing to undo / redo */
	unsigned char token_hash[STORE_HASH_LEN];
	char *title;                    /* NULL if none */
	char *scramble;                 /* the moves that made version 0
					 * from its start, NULL if none */
	int is_private;
};
void store_session_free(struct store_session *s);

#define STORE_KIND_MAX 8
struct store_event {
	int64_t version;
	char kind[STORE_KIND_MAX]; /* create, moves, undo, redo, reset */
	char *moves;               /* "" if none */
	char *actor;               /* NULL if none */
	int64_t created_at;
	int64_t ref, link;
	/* a notification's solve (store_listen, kind "solve"): its method;
	 * "" for every row of the events table */
	char method[16];
};
void store_event_free(struct store_event *e);

/* A new session: its row (s->version must be 0), its version-0 "create"
 * event ev0, and the version-0 snapshot state (len bytes of facelets).
 * STORE_CONFLICT if the id exists. */
int store_create_session(struct store *st, const struct store_session *s,
			 const struct store_event *ev0, const char *state,
			 size_t len);

/* A session's row. */
int store_get_session(struct store *st, const char *id,
		      struct store_session *out);

/* Only its version: what a cache checks its copy against. Inside a write
 * transaction it also keeps other writers off the session until the
 * transaction ends (SQLite: BEGIN IMMEDIATE holds the file already;
 * PostgreSQL: the row is locked), so what it said stays true. */
int store_session_version(struct store *st, const char *id, int64_t *version);

/* Inside a write transaction: keep other writers off these sessions (n
 * ids, sorted by strcmp, no duplicates) until it ends. Taking a batch's
 * sessions at its start, in one order every node follows, means two
 * nodes' transactions never wait for each other in a circle (a
 * deadlock). SQLite's BEGIN IMMEDIATE already excludes every other
 * writer: there it does nothing. */
int store_lock_sessions(struct store *st, const char *const *ids, int n);

/* Inside a write transaction, after store_lock_sessions: what catching
 * up on sessions another node moved needs, read in one round trip for n
 * of them: each session's row and its events after after[i], at most
 * cap. The transaction's next store_get_session of each, and its next
 * store_events_after from after[i] with at most cap, are then answered
 * from it (once each) instead of by a round trip of their own. Engines
 * with one writer (SQLite) have nothing to catch up: STORE_OK, nothing
 * read. */
int store_prefetch(struct store *st, const char *const *ids,
		   const int64_t *after, int n, int cap);

/* Deferred appends, for this thread's next transactions (on = 1) or not
 * (0, the default): an append to a session the transaction locked
 * (store_lock_sessions), at the version the lock found, cannot meet
 * another writer, so the engine may keep it and send it with the others
 * in one statement before the transaction's next statement or its commit
 * (PostgreSQL: one round trip for a batch's appends instead of one
 * each). The price: an append that fails (a database error) fails a
 * later call, which then did not fail itself: store_deferred_failed says
 * so (1) after such a failure, and the caller runs the transaction again
 * with deferral off to learn which write it was. Engines without it
 * (SQLite) ignore both. */
void store_defer(struct store *st, int on);
int store_deferred_failed(struct store *st);

/* Append event e and move the session to it (version = e->version,
 * undo_top, redo_top, updated_at = e->created_at), only if the session is
 * at e->version - 1: else STORE_CONFLICT and nothing is written (another
 * writer got there first). STORE_NOT_FOUND if there is no such session. */
int store_append_event(struct store *st, const char *id,
		       const struct store_event *e, int64_t undo_top,
		       int64_t redo_top);

/* Keep the state at version (len bytes of facelets). */
int store_add_snapshot(struct store *st, const char *id, int64_t version,
		       const char *state, size_t len);

/* Where the state at version `at` can be rebuilt from: the latest snapshot
 * or reset at or before it. *base is its version; *state (malloc'd, *len
 * bytes, NUL-terminated) the state there (for a reset, version 0's
 * snapshot). The events after *base up to `at` then give the state at
 * `at`. STORE_NOT_FOUND if the session has no snapshot at or before it. */
int store_replay_base(struct store *st, const char *id, int64_t at,
		      int64_t *base, char **state, size_t *len);

/* One event. */
int store_get_event(struct store *st, const char *id, int64_t version,
		    struct store_event *out);

/* Events with version > after, oldest first, at most cap: the count
 * (0 .. cap) or an error. */
int store_events_after(struct store *st, const char *id, int64_t after,
		       struct store_event *out, int cap);

/* Delete a session with its events, snapshots, tokens and solves. */
int store_delete_session(struct store *st, const char *id);

/* Number of sessions. */
int store_count_sessions(struct store *st, int64_t *count);

/* Bytes the database's rows take (SQLite: pages in use, free pages not
 * counted, so deleting frees quota). STORE_ERROR if the engine cannot
 * tell. */
int store_used_bytes(struct store *st, int64_t *bytes);

/* A connection pool's figures (PostgreSQL; /metrics): 0 = the engine has
 * no pool (SQLite). */
struct store_pool_stats {
	int has_pool;
	uint64_t open, idle, max;   /* connections now, of them idle; the cap */
	uint64_t waits;             /* requests that waited for a free one */
	uint64_t timeouts;          /* round trips, connects or waits past
				     * their deadline (the connection dropped) */
	uint64_t dropped;           /* connections found dead or dropped */
	int listener_up;            /* the LISTEN connection is there */
	uint64_t listener_reconnects, notifications;
	uint64_t round_trips;       /* statements' round trips to the
				     * database (a write batch: 2) */
};
void store_pool_stats(struct store *st, struct store_pool_stats *out);

struct store_solve {
	int64_t id, version;
	char method[16];
	char *solution;
	int length;
	double elapsed_ms;
	int64_t created_at;
};
void store_solve_free(struct store_solve *s);

/* Record a solve (out_id: its id); list a session's solves oldest first
 * with id > after, at most cap (returns the count). */
int store_add_solve(struct store *st, const char *session_id,
		    const struct store_solve *s, int64_t *out_id);
int store_list_solves(struct store *st, const char *session_id, int64_t after,
		      struct store_solve *out, int cap);

#define STORE_NAME_MAX 48

/* A timed solve's start (schema/008): from version (the scrambled state,
 * inspection beginning at inspect_at), by actor. Its end and its moves
 * are the session's events after version. */
struct store_timed {
	int64_t id;                 /* unique on the server, increasing */
	int64_t version;
	int64_t inspect_at;         /* Unix ms */
	char actor[STORE_NAME_MAX];
	char *scramble;             /* "" if none */
};
void store_timed_free(struct store_timed *t);

/* Record a timed solve's start (out_id: its id); list a session's with
 * id > after, oldest first, at most cap (returns the count); after < 0:
 * the newest cap, oldest first. */
int store_add_timed(struct store *st, const char *session_id,
		    const struct store_timed *t, int64_t *out_id);
int store_list_timed(struct store *st, const char *session_id, int64_t after,
		     struct store_timed *out, int cap);

/* A race (schema/009): its room and its players. */
#define STORE_RACE_PLAYERS_MAX 8
struct store_race {
	char id[STORE_ID_MAX];
	int size;
	char *title;                /* NULL if none */
	unsigned char token_hash[STORE_HASH_LEN]; /* the host's */
	int64_t created_at;
	char *scramble;             /* NULL until started */
	int64_t go_at;              /* 0 until started */
};
struct store_race_player {
	int seat;                   /* 1, 2, … */
	char name[STORE_NAME_MAX];
	char session_id[STORE_ID_MAX];
	int64_t joined_at;
};
void store_race_free(struct store_race *r);
/* A new race (STORE_CONFLICT if the id exists); a race; its players
 * by seat, at most cap (the count); a player joins (p->seat receives the
 * next seat; STORE_CONFLICT if the name is taken); the start (scramble
 * and go_at), only once (STORE_CONFLICT if it had started). */
int store_race_add(struct store *st, const struct store_race *r);
int store_race_get(struct store *st, const char *id, struct store_race *out);
int store_race_players(struct store *st, const char *id,
		       struct store_race_player *out, int cap);
int store_race_join(struct store *st, const char *id,
		    struct store_race_player *p);
int store_race_start(struct store *st, const char *id, const char *scramble,
		     int64_t go_at);

/* Tokens the owner hands out (the owner's own is the session's
 * token_hash). */
struct store_token {
	int64_t id;                 /* 1, 2, … within the session */
	char role[8];               /* "write" or "read" */
	char name[STORE_NAME_MAX];  /* the actor its writes record */
	int64_t created_at;
	int64_t revoked_at;         /* 0 = live */
};

/* Add a token (t->role, t->created_at, t->name or "" for the default
 * "player-<id>" / "reader-<id>"); fills t->id and t->name. STORE_CONFLICT
 * if the name is taken in this session. */
int store_add_token(struct store *st, const char *session_id,
		    struct store_token *t, const unsigned char *hash);
/* The live (not revoked) token with this hash, or STORE_NOT_FOUND. */
int store_find_token(struct store *st, const char *session_id,
		     const unsigned char *hash, struct store_token *out);
/* A session's tokens, oldest first, at most cap: returns the count. */
int store_list_tokens(struct store *st, const char *session_id,
		      struct store_token *out, int cap);
/* Revoke token id; STORE_NOT_FOUND if there is none live. */
int store_revoke_token(struct store *st, const char *session_id, int64_t id,
		       int64_t when);

/* Idempotency-Key results, kept with the change they are the result of:
 * inside the write transaction the change runs in, the key is claimed
 * (store_idem_take), the change made, and its result kept
 * (store_idem_keep) or the claim dropped (store_idem_drop, a refused
 * change), all before the one commit. So a retry finds either no record
 * (the change never committed: it runs) or the result (it replays), and
 * an open claim never outlives its transaction (a node that dies takes
 * its claims with it). scope and print are 32-byte hashes; result is the
 * session layer's text (at most STORE_IDEM_RESULT_MAX bytes). */
#define STORE_IDEM_RESULT_MAX 512
struct store_idem {
	unsigned char print[32];
	char *result;               /* NULL: claimed, no result */
	int64_t created_at;         /* Unix ms */
};
void store_idem_free(struct store_idem *r);
/* In a write transaction: claim scope for the request print at now (Unix
 * ms). STORE_OK: this transaction holds it (a record older than ttl_ms,
 * or one without a result, is replaced). STORE_CONFLICT: *out is the
 * committed record that holds it (another node's transaction that holds
 * it is waited for). */
int store_idem_take(struct store *st, const unsigned char *scope,
		     const unsigned char *print, int64_t now, int64_t ttl_ms,
		     struct store_idem *out);
/* In the same transaction: keep the claimed key's result, or let it go. */
int store_idem_keep(struct store *st, const unsigned char *scope,
		    const char *result);
int store_idem_drop(struct store *st, const unsigned char *scope);
/* Delete the records made before `before` (Unix ms). */
int store_idem_expire(struct store *st, int64_t before);

/* The key stream tickets are signed with (server/live/ticket.h), shared
 * by every process on this database: candidate (STORE_TICKET_KEY_LEN
 * random bytes the caller drew) is stored if there is none yet, and the
 * stored key goes into key — so every node gets the same one, and a
 * restarted process the one it had. An engine that keeps none hands the
 * candidate back. Outside a write transaction. */
#define STORE_TICKET_KEY_LEN 32
int store_ticket_key(struct store *st, const unsigned char *candidate,
		     unsigned char *key);

/* Changes other nodes commit. fn(ctx, id, version, e) after a commit moved
 * session id to version (-1: it was deleted), from a thread of the
 * engine's own, in commit order; e is that version's event when the
 * notification carried it (small ones do: it lives for the call), NULL
 * when the caller must read it from the store. fn(ctx, NULL, -1, NULL)
 * after the engine (re)connected, when notifications may have been
 * lost: every session the caller follows may have moved. Engines without
 * notifications answer STORE_NO_ENGINE and never call fn. fn NULL stops
 * listening: no call runs or follows once it returns. */
typedef void store_notify_fn(void *ctx, const char *id, int64_t version,
			     const struct store_event *e);
int store_listen(struct store *st, store_notify_fn *fn, void *ctx);

#endif
