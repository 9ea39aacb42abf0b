/* session_types.h — the words of the session layer (sessions.h, which
 * includes this header): its error codes, the roles of tokens, what a
 * session is without its state, a committed change as watchers hear of
 * it, and the counters /metrics reads. Plain types only: the layer's own
 * files (the writer, the rules, the cache) use them too, so they live
 * apart from the calls in sessions.h that run through those files. */
#ifndef CUBED_SESSION_TYPES_H
#define CUBED_SESSION_TYPES_H

#include <stdint.h>

#include "errors.h"

/* A session-layer error is the negated row of the error table (errors.def)
 * that a client receives for it: the HTTP layer answers -rc, and no
 * mapping between the two can drift. */
enum ses_err {
	SES_OK = 0,
	SES_NOT_FOUND = -PROBLEM_NO_SUCH_SESSION,  /* no such session (or version) */
	SES_UNAUTHORIZED = -PROBLEM_TOKEN_REQUIRED, /* a write without a token */
	SES_FORBIDDEN = -PROBLEM_WRONG_TOKEN,       /* a write with a wrong token */
	SES_STALE = -PROBLEM_STALE_VERSION,         /* If-Match names another version */
	SES_NOTHING_TO_UNDO = -PROBLEM_NOTHING_TO_UNDO,
	SES_NOTHING_TO_REDO = -PROBLEM_NOTHING_TO_REDO,
	SES_BAD_MOVES = -PROBLEM_NOTATION_CORE,    /* notation error: see the alg_error */
	SES_BAD_STATE = -PROBLEM_FACELETS_LETTER,  /* a start state of another size */
	SES_LIMIT = -PROBLEM_TOO_MANY_SESSIONS,    /* too many sessions */
	SES_STORE = -PROBLEM_DATABASE,             /* the database failed */
	SES_SHUTDOWN = -PROBLEM_SHUTTING_DOWN,     /* the writer is stopping */
	SES_READ_ONLY = -PROBLEM_READ_ONLY_TOKEN,  /* a write with a read token */
	SES_NOT_OWNER = -PROBLEM_OWNER_ONLY,       /* an owner-only request with another token */
	SES_NAME_TAKEN = -PROBLEM_NAME_TAKEN,      /* a token name already used in the session */
	SES_NO_SUCH_TOKEN = -PROBLEM_NO_SUCH_TOKEN, /* revoking a token that is not live */
	SES_NOMEM = -PROBLEM_OUT_OF_MEMORY,        /* an allocation failed: try again */
	/* a write the database refused for a storage fault (store.h):
	 * nothing of it was written */
	SES_STORE_FULL = -PROBLEM_STORAGE_FULL,         /* STORE_FULL */
	SES_STORE_BUSY = -PROBLEM_DATABASE_BUSY,        /* STORE_BUSY */
	SES_STORE_DOWN = -PROBLEM_STORAGE_UNAVAILABLE,  /* STORE_UNWRITABLE */
	SES_STORAGE_CAP = -PROBLEM_STORAGE_CAP,         /* the database holds max_db_bytes already */
	SES_UNAVAILABLE = -PROBLEM_STORE_UNAVAILABLE, /* the database cannot be reached now */
	/* the connection went after COMMIT was sent: the change may or may
	 * not have been made (a retry with its Idempotency-Key learns) */
	SES_OUTCOME_UNKNOWN = -PROBLEM_OUTCOME_UNKNOWN,
	/* the Idempotency-Key's change committed for another request */
	SES_IDEM_REUSED = -PROBLEM_IDEMPOTENCY_KEY_REUSED,
};

/* An Idempotency-Key on a change (sessions.h): the key's claim, the
 * change and what a replay needs commit in one transaction (store.h:
 * store_idem_take), so a retry after any failure either replays the
 * committed result or runs once. */
struct ses_idem {
	unsigned char scope[32]; /* route, path, requester and key (api.c) */
	unsigned char print[32]; /* the request: another one is refused */
	int64_t extra;   /* in: a number of the caller's kept with the result
			  * (a create's scramble seed, a fork's version);
			  * out, at a replay: the first request's */
	int replayed;    /* out: the change had committed already; nothing
			  * changed now, the result is the first request's */
};

/* What a token may do in a session. */
enum ses_role { SES_ROLE_NONE, SES_ROLE_READ, SES_ROLE_WRITE, SES_ROLE_OWNER };

struct session_state;

/* One committed change, as live watchers hear of it (events.h). Strings
 * and state are borrowed for the duration of the call. */
struct session_event {
	const char *id;
	const char *type;     /* moves, undo, redo, reset, solve, delete */
	int64_t version;      /* the session's version after it */
	int size;
	const char *moves;    /* moves text ("" if none); the solution for solve */
	const char *actor;    /* NULL if none */
	struct session_state *state; /* moves…reset: the state at version */
	const char *facelets; /* solve: the state solved, or NULL */
	int64_t created_at;
	const char *method;   /* solve only */
};
typedef void session_event_fn(void *ctx, const struct session_event *e);

/* What a session is, without its state. */
struct session_meta {
	int size;
	int64_t version;
	int is_private;
};

/* Counters for /metrics. */
struct sessions_stats {
	uint64_t commits, writes, events_appended, batch_max;
	uint64_t batch_hist[6]; /* batches of 1, 2-3, 4-7, 8-15, 16-63, 64+ */
	uint64_t cache_hits, cache_misses;
	uint64_t snapshots, conflicts; /* snapshot rows written; appends that
					* found another writer's version */
	uint64_t writer_cpu_ns;        /* the writer thread's CPU time */
	uint64_t cache_entries, cache_bytes;
	/* ops ever handed to the writer, and those waiting in its queue now
	 * (not yet taken into a batch): what tests wait on to know a change
	 * is queued, or taken */
	uint64_t submitted, queued;
	/* changes sent with an Idempotency-Key that ran, and those answered
	 * from the result a committed first request kept */
	uint64_t idem_kept, idem_replayed;
};

#endif
