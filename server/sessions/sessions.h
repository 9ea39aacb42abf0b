/* sessions.h — cube sessions: a cube of size n with an append-only history
 * of events (moves, undo, redo, reset), read at any version, forked,
 * solved. Rows live in the store (store.h); this layer keeps the rules,
 * one writer thread and one cache.
 *
 * Writes are serialised by one writer thread that commits them in groups:
 * every write request that arrives while a commit is running joins the next
 * transaction (one that fails with a database error is left out and the
 * rest run again, so it cannot leave half a write behind), and a caller is
 * answered only after the transaction holding its write has committed.
 * Versions of a session are therefore consecutive, and a reply never
 * acknowledges a write that a crash could lose (beyond what
 * synchronous=NORMAL allows: see --durability). Moves come parsed: the
 * caller parses them once (that is where notation errors and their offsets
 * come from) and the writer applies the parsed form to the session's cube
 * in memory, O(moves × n) for a write (faces turn lazily), stores one event
 * row and updates the small session row.
 *
 * Undo reverts the latest write still in effect (all moves of one request),
 * redo re-applies the latest undone one; both are events. A reset returns
 * to the initial state and clears undo and redo (it cannot be undone).
 *
 * Reads go through one bounded cache of sessions (metadata and the cube at
 * the current version); the database is the truth. Reading an old version
 * starts from its latest snapshot or reset and replays the events after it
 * (session_layer.h has the snapshot rule).
 *
 * A state at a version is a struct session_state: immutable, shared by
 * reference count, its facelets formatted once, on the first thread that
 * asks for them (never the writer's).
 */
#ifndef CUBED_SESSIONS_H
#define CUBED_SESSIONS_H

#include <stddef.h>
#include <stdint.h>

#include "alg.h"
#include "cube.h"
#include "session_types.h"
#include "store.h"

/* A session's state at one version: immutable once made, freed with its
 * last reference. */
struct session_state;
struct session_state *session_state_retain(struct session_state *st);
void session_state_release(struct session_state *st);
const cube_t *session_state_cube(const struct session_state *st);
/* Its 6n² facelets (NUL-terminated), formatted on the first call and kept;
 * NULL if memory ran out. */
const char *session_state_facelets(struct session_state *st);

struct sessions_config {
	struct store *store;
	size_t cache_max;        /* sessions kept in memory, 0 = 1024 */
	size_t cache_bytes;      /* and their states' bytes, 0 = 64 MiB */
	alg_limits limits;       /* for moves in writes */
	int64_t max_sessions;    /* 0 = no limit */
	int64_t max_db_bytes;    /* past it only deletes and revokes are
				  * taken; 0 = no limit */
	int max_batch;           /* writes per transaction, 0 = 256 */
	int64_t idem_ttl_ms;     /* Idempotency-Key results kept, 0 = 24 h */
	/* Called by the writer after each commit, once per committed change,
	 * in commit order (so in version order per session). It must not
	 * format anything big: it runs on the writer. May be NULL. */
	session_event_fn *on_event;
	void *on_event_ctx;
	/* A test seam, NULL in the server: when it returns nonzero, the
	 * allocation that starts a change (create, write, delete, token)
	 * fails as if memory had run out, so a test can see SES_NOMEM (503
	 * out_of_memory) and that nothing was written. */
	int (*fail_alloc)(void *ctx);
	void *fail_alloc_ctx;
	/* A test seam, NULL in the server: called after a batch's commit
	 * succeeded; when it returns nonzero the writer acts as if the
	 * commit's answer had been lost (the connection went after COMMIT
	 * was sent: store.h, STORE_UNKNOWN), so a test can see what a client
	 * sees then (SES_OUTCOME_UNKNOWN) on any engine and that a retry with
	 * the same Idempotency-Key replays the committed change. */
	int (*lose_commit)(void *ctx);
	void *lose_commit_ctx;
};

struct sessions;

int sessions_open(const struct sessions_config *cfg, struct sessions **out);
/* Refuse new work (every call that would queue a change answers
 * SES_SHUTDOWN from now on) and wait until the writer has finished
 * everything already queued, each queued write's completion callback
 * included. The HTTP server calls this before it stops: a connection
 * suspended for a queued write has then been resumed (libmicrohttpd
 * aborts the process when it is stopped with a connection still
 * suspended). Reads still work; sessions_close still follows. */
void sessions_drain(struct sessions *s);
/* Stop the writer (pending writes finish first) and free everything. */
void sessions_close(struct sessions *s);

/* A session as readers see it. facelets points into state (both released
 * by session_view_free); title is malloc'd. */
struct session_view {
	char id[STORE_ID_MAX];
	int size;
	int64_t version, created_at, updated_at;
	int is_private;
	char *title;
	char *scramble;    /* what made version 0 from its start, or NULL */
	const char *facelets;
	struct session_state *state;
	int can_undo, can_redo;
	char actor[STORE_NAME_MAX]; /* who made a write (sessions_write) */
	/* bytes of state the call stored, the measure of --storage-quota:
	 * a new session's (create, fork) 6n², a write's share of the
	 * snapshot rows, 6n² / max(32, n) (session_layer.h: a snapshot
	 * every max(32, n) events); 0 for a read */
	uint64_t stored;
	/* a change sent with an Idempotency-Key whose first request had
	 * committed: this view is that change's result, read back (nothing
	 * was changed now) */
	int replayed;
};
void session_view_free(struct session_view *v);

/* What a session is, without its state (session_types.h). */
int sessions_meta(struct sessions *s, const char *id, struct session_meta *out);
/* Only its size (what a write's moves are parsed for): from this node's
 * cache when it holds the session, since a size never changes, else as
 * sessions_meta. With other nodes, a session one of them deleted may
 * still be cached: the writer finds it gone (SES_NOT_FOUND) anyway. */
int sessions_size(struct sessions *s, const char *id, int *size);

/* Create a session of size n: solved, or start (a cube of size n, copied),
 * then the scramble (parsed for n, or NULL) applied, as version 0. token
 * receives the owner's write token (shown once); a private session also
 * gets a read token in read_token (when read_token is not NULL; "" for a
 * public one). */
struct session_create {
	int size;
	const cube_t *start;   /* or NULL */
	const alg_t *scramble; /* or NULL */
	const char *scramble_text; /* kept with the session, or NULL */
	const char *title;     /* or NULL */
	int is_private;
	const char *actor;     /* recorded on the create event, or NULL */
	/* An Idempotency-Key (NULL: none): at a replay, out is the session
	 * the first request made (at version 0) with its tokens */
	struct ses_idem *idem;
};
int sessions_create(struct sessions *s, const struct session_create *c,
		    struct session_view *out, char token[36], char *read_token);

/* Read a session at its current version (version < 0) or any earlier one
 * (time travel; SES_NOT_FOUND past the current version). */
int sessions_get(struct sessions *s, const char *id, int64_t version,
		 struct session_view *out);

enum ses_write_kind { SES_MOVES, SES_UNDO, SES_REDO, SES_RESET };

/* A write. SES_MOVES carries its moves parsed for the session's size
 * (sessions_parse, or alg_parse into a malloc'd node buffer): the write
 * takes nodes, whatever it returns. */
struct session_write {
	enum ses_write_kind kind;
	const char *id;
	const char *token;       /* NULL = none given */
	int64_t if_match;        /* < 0 = no precondition */
	alg_t alg;               /* SES_MOVES */
	alg_node *nodes;         /* SES_MOVES: malloc'd, alg's node buffer */
	const struct ses_idem *idem; /* an Idempotency-Key, or NULL: a
				      * replay sets out->replayed */
};

/* Parse moves text for a session of size n under the session layer's
 * limits into w->alg and w->nodes (malloc'd): SES_OK, or SES_BAD_MOVES
 * with *err saying where (nothing left to free). */
int sessions_parse(struct sessions *s, int n, const char *text, size_t len,
		   struct session_write *w, alg_error *err);

/* Apply a write through the writer; returns after it committed. The
 * owner's token and co-players' write tokens may write; out->actor names
 * who did (SES_READ_ONLY for a read token). On SES_STALE, out->version
 * holds the current version. The new event's moves text (canonical) is in
 * out_moves (malloc'd, may be NULL). */
int sessions_write(struct sessions *s, struct session_write *w,
		   struct session_view *out, char **out_moves);

/* The same write without waiting: returns at once (NULL if memory ran
 * out; w's strings are copied, its nodes taken) and done(ctx) is called,
 * from the writer thread, when it has committed or failed (at once, from
 * this call, if the writer is stopping). Only then sessions_write_end
 * gives what sessions_write would have, and frees p;
 * sessions_write_abandon frees a finished p whose result nobody wants. */
struct session_pending;
struct session_pending *sessions_write_begin(struct sessions *s,
					     struct session_write *w,
					     void (*done)(void *ctx), void *ctx);
int sessions_write_end(struct session_pending *p, struct session_view *out,
		       char **out_moves);
void sessions_write_abandon(struct session_pending *p);

/* Delete (the owner's token required: SES_NOT_OWNER for another). */
int sessions_delete(struct sessions *s, const char *id, const char *token);

/* Fork: a new session whose initial state is id's state at version (< 0 =
 * current).
 *
 * Idempotency-Key (idem, NULL: none) on every change a client may send
 * again: the key is claimed, the change made and what a replay needs
 * kept in the change's own transaction (never a state: ids, the version,
 * tokens). A request whose key's change had committed changes nothing:
 * it returns SES_OK with idem->replayed set and out filled from the
 * first result (the state read back at its version; a session deleted
 * since is SES_NOT_FOUND); one with another request's key is
 * SES_IDEM_REUSED. idem->extra travels with the result (the caller's
 * number: a create's scramble seed, a fork's version). A timed start's
 * or a solve's replay replaces t->scramble or sv->solution with the
 * stored one (malloc'd: the caller frees whatever the field holds). */
int sessions_fork(struct sessions *s, const char *id, int64_t version,
		  const char *actor, struct session_view *out,
		  char token[36], struct ses_idem *idem);

/* History after version `after`, at most cap events (store_event_free
 * each). Returns the count. SES_NOT_FOUND for an unknown session. */
int sessions_history(struct sessions *s, const char *id, int64_t after,
		     struct store_event *out, int cap);

/* The session's solves after solve id `after`, at most cap
 * (store_solve_free each). Returns the count, or a session error (the
 * database unreachable, a storage fault). */
int sessions_solves(struct sessions *s, const char *id, int64_t after,
		    struct store_solve *out, int cap);

/* Apply the moves of a stored event (store_event.moves, the history's
 * form: written by this server, so read without today's limits) to c:
 * SES_OK, SES_NOMEM, or SES_STORE for text that is not stored moves. */
int sessions_apply_stored(cube_t *c, const char *moves);

/* Record a solve of session id (through the writer, like every write);
 * sv->id receives its id. facelets (the state solved, or NULL) goes to
 * live watchers with the solve. */
int sessions_add_solve(struct sessions *s, const char *id,
		       struct store_solve *sv, const char *facelets,
		       struct ses_idem *idem);

/* Timed solves (timed.c). A timed solve is kept as its start (the version
 * it starts from, who, the scramble, when inspection began: a store row,
 * recorded through the writer like every write) and read back with the
 * session's history after that version: the first turn starts the clock
 * (15 s of inspection at most: +2 s past 15, DNF past 17, as the WCA
 * rules), the move that leaves every face one colour stops it, the moves
 * between count (HTM, QTM, STM); a reset, or the next timed solve
 * starting, before that abandons it. */
int sessions_add_timed(struct sessions *s, const char *id,
		       struct store_timed *t, struct ses_idem *idem);

enum timed_status { TIMED_INSPECTING, TIMED_RUNNING, TIMED_SOLVED,
		    TIMED_DNF, TIMED_ABANDONED };
const char *timed_status_name(enum timed_status st);

struct timed_result {
	struct store_timed t;       /* the row (its scramble is owned) */
	enum timed_status status;
	int64_t started_at;         /* the first turn (Unix ms), 0: none */
	int64_t ended_at;           /* the solving move, 0: none */
	int64_t end_version;        /* its version, -1: none */
	int64_t penalty_ms;         /* 2000 when inspection passed 15 s */
	int64_t ms;                 /* solved: the time with the penalty */
	uint64_t htm, qtm, stm;     /* moves made since the start */
};

/* Session id's newest cap timed solves, oldest first (results freed with
 * timed_results_free), judged at now (Unix ms: an inspection that ran
 * past 17 s without a turn is a DNF; a solve that a later one closed is
 * judged when that one began). Returns the count or a ses_err. */
int sessions_timed(struct sessions *s, const char *id, int64_t now,
		   struct timed_result *out, int cap);
void timed_results_free(struct timed_result *r, int k);

/* One player's statistics of results r[0..k) (oldest first), counting
 * only those of actor (NULL: everyone's) that are over (solved or DNF),
 * as the WCA defines them: best single and mean of the solved ones (-1:
 * none); ao5 and ao12 of the latest 5 and 12, the best and the worst
 * dropped, a DNF the worst, two DNFs or more a DNF (TIMED_AVG_DNF), -1
 * with fewer results than that. */
#define TIMED_AVG_DNF (-2)
struct timed_stats {
	int count, solved, dnf;
	int64_t best, mean, ao5, ao12;
};
void timed_stats_of(const struct timed_result *r, int k, const char *actor,
		    struct timed_stats *out);

/* What token may do in session id: SES_OK with *role (and the actor its
 * writes record in actor, STORE_NAME_MAX bytes, when not NULL), else
 * SES_UNAUTHORIZED (no token), SES_FORBIDDEN (not a live token of this
 * session) or SES_NOT_FOUND. */
int sessions_auth(struct sessions *s, const char *id, const char *token,
		  enum ses_role *role, char *actor);

/* Tokens the owner hands out. Mint one of role SES_ROLE_WRITE or
 * SES_ROLE_READ (name: its actor name, or NULL for "player-<n>" /
 * "reader-<n>"): *out describes it, secret receives it (shown once). */
int sessions_add_token(struct sessions *s, const char *id,
		       const char *owner_token, enum ses_role role,
		       const char *name, struct store_token *out,
		       char secret[36], struct ses_idem *idem);
/* Revoke token tid (owner only); SES_NO_SUCH_TOKEN if none is live. */
int sessions_revoke_token(struct sessions *s, const char *id,
			  const char *owner_token, int64_t tid);
/* List tokens (owner only): the count, or an error. */
int sessions_list_tokens(struct sessions *s, const char *id,
			 const char *owner_token, struct store_token *out,
			 int cap);

/* Counters for /metrics (session_types.h). */
void sessions_stats(struct sessions *s, struct sessions_stats *out);

const char *sessions_strerror(int err);

#endif
