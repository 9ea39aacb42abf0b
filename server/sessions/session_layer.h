/* session_layer.h — what the session layer's files share and nothing
 * else sees: the cache (sessions_cache.c), the writer (sessions_writer.c),
 * the rules (sessions_rules.c) and the thin public layer (sessions.c).
 *
 * States. struct session_state is one version's state: metadata and a
 * cube, immutable after it is made, reference counted, facelets formatted
 * lazily by whoever first asks (an atomic pointer: two threads may both
 * format, one keeps its copy). Readers hold a reference instead of copying.
 *
 * The cache holds one entry per session in memory, bounded in entries and
 * bytes, least recently used first out: its committed state (`cur`, what
 * readers see) and, for the writer alone, a working cube that the open
 * transaction's ops are applied to (w.cube). A write's result is a new
 * state copied from the working cube (one memcpy: the reply is formatted
 * from it on the HTTP thread); at commit it becomes the entry's `cur`, so
 * readers never see an uncommitted version. After a rollback the working
 * side is dropped and rebuilt from `cur`.
 *
 * With one process the cache is the truth between commits. When the store
 * reports STORE_CAP_SHARED (other processes write too), readers check the
 * store's version of a session (one indexed read) before they trust its
 * entry, and the writer checks it at the first write to a session in each
 * transaction; without that flag, an append that finds another writer's
 * version (STORE_CONFLICT) still makes the writer reload the session and
 * evaluate the op again, once.
 *
 * Snapshots. A write takes a snapshot row when the events since the last
 * snapshot or reset reach max(32, n), or the stickers they moved reach
 * max(6n², 4096). A snapshot costs 6n² (formatting and storing the state),
 * so that rule keeps a write's amortised cost at O(moves × n): by count it
 * adds at most 6n²/max(32, n) ≤ 6n per write, by stickers no more than the
 * moves themselves cost. Reading any version replays at most max(32, n)
 * events moving at most about 6n² stickers: no more than reading the
 * snapshot itself. A sticker count is what a turn really moves: 4n per
 * layer turned (the face itself turns lazily, O(1)). A reset stores no
 * snapshot: replay starts from version 0's state there.
 */
#ifndef CUBED_SESSIONS_INTERNAL_H
#define CUBED_SESSIONS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "sessions.h"

/* ---- states ---------------------------------------------------------- */

struct session_state {
	atomic_int refs;
	_Atomic(char *) facelets;  /* formatted lazily, then kept */
	char id[STORE_ID_MAX];
	int size;
	int64_t version, created_at, updated_at;
	int64_t undo_top, redo_top;
	int is_private, can_undo, can_redo;
	char *title;               /* inside this allocation, or NULL */
	char *scramble;            /* inside this allocation, or NULL */
	cube_t *cube;              /* inside this allocation */
};

/* A state with meta's fields and a copy of cube (NULL: solved), or NULL
 * without memory. */
struct session_state *sstate_new(const struct store_session *meta,
				 const cube_t *cube);
/* Bytes a state of size n holds once its facelets are formatted. */
size_t sstate_bytes(int n);

/* ---- the cache ------------------------------------------------------- */

struct sentry {
	char id[STORE_ID_MAX];
	unsigned char token_hash[STORE_HASH_LEN];
	int size;
	struct session_state *cur; /* the committed state (cache lock) */
	/* snapshot rule, as of cur: events and stickers since its base */
	int64_t since_events;
	uint64_t since_work;
	int pins;                  /* the writer's, under the cache lock */
	int listed;                /* in the table */
	size_t bytes;
	struct sentry *prev, *next, *hnext;
	struct {                   /* the writer's alone */
		cube_t *cube;      /* working cube, cube_sizeof(size) */
		int valid;         /* cube and fields below are cur + the
				    * open transaction's ops */
		int checked;       /* matched the store's version in this
				    * transaction */
		int ops;           /* ops of the open transaction applied */
		int64_t version, undo_top, redo_top, updated_at;
		int64_t since_events;
		uint64_t since_work;
		struct session_state *last; /* the newest op's result */
	} w;
};

#define CACHE_GENS 256

struct cache {
	pthread_mutex_t lock;
	struct sentry **buckets;
	size_t nbuckets, count, max, bytes, max_bytes;
	struct sentry *head, *tail; /* LRU, most recent first */
	/* bumped when the writer commits a change to (or deletes) a session
	 * hashing here: a reader's load that saw another value may be older
	 * than what was committed, and is not kept */
	uint64_t gen[CACHE_GENS];
	uint64_t hits, misses;
};

struct sessions;

int cache_init(struct cache *c, size_t max, size_t max_bytes);
void cache_destroy(struct cache *c);

/* Readers: id's committed state (a reference), loaded from the store on a
 * miss (and kept when no commit to it overtook the load). With validate,
 * a hit is first checked against the store's version. */
int cache_read(struct sessions *s, const char *id, int validate,
	       struct session_state **out, unsigned char *token_hash);
/* id's token hash and state metadata without loading a state: from the
 * entry if there is one, else the session row (no reference taken). */
int cache_size(struct sessions *s, const char *id, int *size);
int cache_peek(struct sessions *s, const char *id, struct session_meta *meta,
	       unsigned char *token_hash);

/* The writer: id's entry pinned (loaded inside the writer's transaction
 * if not cached). cache_unpin lets it go. */
int cache_pin(struct sessions *s, const char *id, struct sentry **out);
void cache_unpin(struct sessions *s, struct sentry *e);
/* Replace e's committed state by st (a new reference) and its snapshot
 * counters, if st is newer; bump e's generation. */
void cache_publish(struct sessions *s, struct sentry *e,
		   struct session_state *st, int64_t since_events,
		   uint64_t since_work);
/* A new session's entry (pinned, not listed until cache_publish). */
struct sentry *cache_new_entry(struct sessions *s, const char *id, int size,
			       const unsigned char *token_hash,
			       struct session_state *st);
/* The session is gone: drop its entry, if cached. */
void cache_forget(struct sessions *s, const char *id);
/* Reload e from the store (the writer, inside its transaction: after
 * another writer's version was found). */
int cache_reload(struct sessions *s, struct sentry *e);
/* Before a batch's ops run (the writer, after it locked their n sessions,
 * ids): read ahead, in one round trip, what cache_reload will need for
 * each cached one another writer moved on by a few events (the row and
 * the events: two round trips each otherwise). SES_OK or a store
 * failure. */
int cache_prefetch(struct sessions *s, const char *const *ids, int n);

/* Rebuild a state from the store: version `at` (< 0: the current one).
 * since_* receive the snapshot counters at it (may be NULL). */
int load_state(struct sessions *s, const char *id, int64_t at,
	       struct session_state **out, unsigned char *token_hash,
	       int64_t *since_events, uint64_t *since_work);

/* The stored form of moves, read by the replay above and by the rules
 * (undo re-reads the event it reverts). Parse stored (trusted) moves
 * text for size n: nodes malloc'd; SES_OK, SES_NOMEM or SES_STORE. */
int moves_parse_stored(int n, const char *text, alg_t *a, alg_node **nodes);
/* Stickers an algorithm moves on size n (4n per layer turned): what the
 * snapshot rule counts. */
uint64_t moves_work(const alg_t *a, int n);

/* ---- the rules (sessions_rules.c) ----------------------------------- */

enum op_kind { OP_CREATE, OP_WRITE, OP_DELETE, OP_SOLVE, OP_TOKEN,
	       OP_REVOKE, OP_TIMED };

/* One change for the writer. Everything it needs is copied in or owned
 * (a pending write outlives its request's buffers). */
struct ses_op {
	enum op_kind kind;
	char id[STORE_ID_MAX];
	unsigned char token_hash[STORE_HASH_LEN]; /* of the token given, */
	int has_token;           /* hashed by the caller, not the writer */
	/* OP_WRITE */
	enum ses_write_kind wkind;
	int64_t if_match;
	alg_t alg;               /* SES_MOVES */
	alg_node *nodes;
	char *canonical;         /* SES_MOVES: the moves printed once */
	/* OP_CREATE: the new session, ready to store */
	struct session_state *start;
	char *start_facelets;
	int64_t created_at;
	const char *actor;       /* borrowed: the caller waits */
	/* OP_SOLVE */
	struct store_solve *solve;
	/* OP_TIMED */
	struct store_timed *timed;
	const char *facelets;    /* borrowed */
	/* OP_TOKEN / OP_REVOKE */
	enum ses_role role;
	const char *name;
	int64_t tid;
	/* results */
	int rc;
	struct session_state *result; /* OP_WRITE, OP_CREATE */
	char actor_out[STORE_NAME_MAX];
	char event_type[STORE_KIND_MAX];
	char *moves_out;         /* the event's moves text */
	unsigned snapshots;      /* snapshot rows this op wrote */
	unsigned conflicts;      /* other writers' versions it met */
	int64_t current;         /* SES_STALE: the session's version */
	char token_out[36];
	char read_token_out[36];
	struct store_token tok;
	/* An Idempotency-Key (has_idem): claimed, and the result kept, in
	 * the op's transaction (rules_run_keyed). replayed: a committed first
	 * request's result was found instead, read into the fields above
	 * (OP_WRITE: r_version, r_undo, r_redo; OP_CREATE: id and tokens;
	 * OP_TOKEN: tok and the secret; OP_TIMED, OP_SOLVE: the row's id) */
	struct ses_idem idem;
	int has_idem, replayed;
	struct sessions *ses;    /* OP_WRITE: for the replay's reads */
	int64_t r_version;
	int r_undo, r_redo;
	/* the writer's bookkeeping */
	struct sentry *entry;    /* pinned while the batch runs */
	void (*done)(void *ctx);
	void *ctx;
	struct ses_op *next;
};

void op_free(struct ses_op *op);

/* Run op inside the writer's open transaction: an SES_* code. */
int rules_run(struct sessions *s, struct ses_op *op);
/* The same for an op with an Idempotency-Key: claim it first, then run
 * the op and keep its result (or drop the claim of a refused op), or
 * replay the committed result another request kept. */
int rules_run_keyed(struct sessions *s, struct ses_op *op);

/* The role of the token whose hash is token_hash (NULL: no token) in a
 * session whose owner's hash is owner. */
int rules_auth(struct sessions *s, const char *id,
	       const unsigned char *owner, const unsigned char *token_hash,
	       enum ses_role *role, char *actor);

/* Is a snapshot due after this many events and stickers? */
int rules_snapshot_due(int n, int64_t events, uint64_t work);

/* ---- the writer (sessions_writer.c) --------------------------------- */

int writer_start(struct sessions *s);
void writer_stop(struct sessions *s);
/* The one way in: queue op; op->done(op->ctx) is called when it is done
 * (at once, from here, with SES_SHUTDOWN if the writer is stopping). */
void writer_submit(struct sessions *s, struct ses_op *op);
/* Submit and wait: the synchronous calls. */
int writer_run(struct sessions *s, struct ses_op *op);

struct sessions {
	struct store *store;
	int shared;              /* STORE_CAP_SHARED */
	alg_limits limits;
	int64_t max_sessions;
	int64_t max_db_bytes;
	int max_batch;
	int64_t idem_ttl_ms;
	int64_t idem_expired_ms; /* the writer's: when it last expired keys */
	int64_t used_bytes, used_at; /* the writer's: the store's size, when */
	struct cache cache;
	/* timed.c's table of closed timed solves' judgements (made at its
	 * first use, under judged_lock; plain memory, freed with s) */
	struct timed_judged *judged;
	pthread_mutex_t judged_lock;
	session_event_fn *on_event;
	void *on_event_ctx;
	int (*fail_alloc)(void *ctx);
	void *fail_alloc_ctx;
	int (*lose_commit)(void *ctx);
	void *lose_commit_ctx;

	pthread_t writer;
	pthread_t answerer;      /* calls the ops' done (sessions_writer.c) */
	pthread_mutex_t lock;    /* queue, stop, stats */
	pthread_cond_t wake;     /* writer: work arrived */
	pthread_cond_t answer;   /* answerer: a batch to answer arrived */
	pthread_cond_t idle;     /* drain: the writer finished a batch */
	struct ses_op *head, *tail;
	/* ops run, published and waiting for their done: batches in the
	 * order they committed */
	struct ses_op *done_head, *done_tail;
	int stop;
	int answer_stop;         /* writer_stop: the writer is gone */
	int closing;             /* sessions_drain: refuse new ops */
	int busy;                /* the writer holds a batch */
	int answering;           /* the answerer holds ops */
	struct sessions_stats stats;
};

/* Wall-clock milliseconds: the times rows record. */
static inline int64_t sessions_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The session error of a failed store call (not STORE_OK): a storage
 * fault keeps its kind, so the client learns it may retry (507 storage
 * full, 503 busy or unwritable); anything else, an absence the caller did
 * not expect included, is SES_STORE. Store errors reach the session layer
 * by return value only. */
static inline int ses_of_store(int rc)
{
	return rc == STORE_FULL		? SES_STORE_FULL
	       : rc == STORE_BUSY	? SES_STORE_BUSY
	       : rc == STORE_UNWRITABLE ? SES_STORE_DOWN
	       : rc == STORE_UNKNOWN	? SES_OUTCOME_UNKNOWN
					: SES_STORE;
}

/* Whether an op's code is a failed store call: its transaction is rolled
 * back. */
static inline int ses_store_failed(int rc)
{
	return rc == SES_STORE || rc == SES_STORE_FULL ||
	       rc == SES_STORE_BUSY || rc == SES_STORE_DOWN;
}

#endif
