/* api_internal.h — what the route files (api_*.c) share with api.c and with
 * nothing else: strict body-field checking, the common arguments (size,
 * start state, moves, include / format lists) and the problems they answer,
 * and printed algorithms as JSON. Public callers use api.h only.
 *
 * Every function that takes an api_reply either succeeds (returns 0 or a
 * non-NULL result) or has already made rp the problem reply and returns -1
 * or NULL: a handler only has to return. */
#ifndef CUBED_API_INTERNAL_H
#define CUBED_API_INTERNAL_H

#include <jansson.h>

#include "alg.h"
#include "api_reply.h"
#include "cube.h"
#include "cubie.h"
#include "errors.h"
#include "repr.h"

/* ---- handlers (one route each, routed by api.c) ----------------------- */

struct ses_idem;

/* What the router hands every handler besides the request: the path's
 * parameters, captured once, the bearer token, and the JSON body. */
struct api_args {
	const char *id;     /* {id} (a session) or {jid} (a job); NULL when
			     * the pattern has neither */
	int64_t tid;        /* {tid} (a token's number); -1 when none */
	const char *token;  /* the bearer token, on routes whose auth is not
			     * AUTH_NONE; NULL when none was sent */
	const json_t *body; /* the JSON object body; NULL when the route
			     * takes none or an optional one was not sent */
	/* The request's Idempotency-Key (R_IDEM routes; NULL: none): a
	 * handler hands it to the session call that makes the change, which
	 * keeps the result with the change; it then marks the reply
	 * (api__idem_mark) */
	struct ses_idem *idem;
};

/* After a session call given a->idem answered SES_OK: the answer is kept
 * by the store with its change (the router keeps nothing), and a replay
 * says so (Idempotent-Replayed). */
void api__idem_mark(const struct api_args *a, struct api_reply *rp);

/* Every handler: answer rq into rp. The query string is rq->query (see
 * api__query_parse). */
typedef void api__handler(const struct api_config *cfg,
			  const struct api_request *rq,
			  const struct api_args *a, struct api_reply *rp);

api__handler api__post_apply;    /* api_moves.c */
api__handler api__post_alg;
api__handler api__post_convert;  /* api_convert.c */
api__handler api__post_validate;
api__handler api__post_match;    /* api_patterns.c */
api__handler api__post_pieces;
api__handler api__get_patterns;
api__handler api__get_scramble;  /* api_scramble.c */
api__handler api__post_solve;    /* api_solve.c */
api__handler api__session_solve;
api__handler api__session_solves;
api__handler api__job_get;       /* api_jobs.c */
api__handler api__job_delete;
api__handler api__session_create; /* api_sessions.c */
api__handler api__session_get;
api__handler api__session_delete;
api__handler api__session_moves;
api__handler api__session_undo;
api__handler api__session_redo;
api__handler api__session_reset;
api__handler api__session_fork;
api__handler api__session_history;
api__handler api__session_events;
api__handler api__session_token_add;
api__handler api__session_tokens;
api__handler api__session_token_revoke;
api__handler api__session_ticket; /* api_tickets.c */
api__handler api__session_timed_start; /* api_timed.c */
api__handler api__session_timed;
api__handler api__race_create;     /* api_races.c */
api__handler api__race_get;
api__handler api__race_join;
api__handler api__race_start;
api__handler api__get_healthz;    /* api_ops.c */
api__handler api__get_readyz;
api__handler api__get_version;
api__handler api__get_openapi;
api__handler api__get_page;
api__handler api__get_metrics;    /* metrics.c */
api__handler api__get_dataset;    /* api_dataset.c */
api__handler api__post_dataset;
api__handler api__job_file;

struct job_request;
struct job_view;
/* Submit a job: rp becomes the 202 with its JSON and Location, or the
 * 429 / 503 (with Retry-After) of a full queue or cap. */
void api__job_submit(const struct api_config *cfg,
		     const struct api_request *rq, const struct job_request *jr,
		     struct api_reply *rp);
/* A job as its JSON reply body (NULL if memory ran out). */
json_t *api__job_json(const struct api_config *cfg, const struct job_view *v);
/* The problem for a job that is not there (jobs.h's code rc). */
void api__job_missing(int rc, const char *id, struct api_reply *rp);

struct dsp;
/* A dataset job's dataset as its parameters (api_dataset.c), and its
 * files as the job's JSON lists them. */
void api__dataset_of_job(const struct job_view *v, struct dsp *p);
json_t *api__dataset_job_files(const struct job_view *v);


/* A request answered later (api.h: rq->done): work that runs elsewhere
 * (a session write in the writer's queue, a solve on the solver pool),
 * and the Idempotency-Key scope its answer is kept under. The handler
 * that made it says how to build its reply and how to let the work go;
 * the router says how to keep the answer or let a retry run. So the
 * reply's own code (api_reply.c) names none of them. */
struct api_pending {
	/* Set by the handler. finish builds the reply once done was
	 * called; abandon lets the work go when nobody will take it. Each
	 * runs at most once, and only one of them. */
	void (*finish)(const struct api_config *cfg, struct api_pending *p,
		       struct api_reply *rp);
	void (*abandon)(struct api_pending *p);
	void *work;        /* the handler's: what finish and abandon take */
	int kind;          /* the handler's: which kind of work it is */
	/* Set by the router when the answer is to be kept under scope:
	 * unkept(unkept_ctx, scope) says there will be none (a retry may
	 * run). NULL: no Idempotency-Key. */
	void (*unkept)(void *ctx, const unsigned char scope[32]);
	void *unkept_ctx;
	unsigned char scope[32];
	/* Set by the router on a route that stores: its share of the bytes
	 * stored (api_reply.stored), added once the answer is a success */
	uint64_t stored_base;
};

struct session_view;

/* ---- access (api_access.c) -------------------------------------------- */

/* The bearer token of rq (NULL if none; *bad set for another scheme). */
const char *api__bearer(const struct api_request *rq, int *bad);
/* The problem of a session-layer error code; v (may be NULL) is the
 * session a stale If-Match is answered with. */
/* 0 if a client with token may read session id (public, or one of its
 * tokens); else -1 with the same 404 as for a session that does not exist
 * (api_access.c). */
int api__may_read(const struct api_config *cfg, const char *id, int is_private,
		  const char *token, struct api_reply *rp);
/* The session at version (-1: now) into *v if token may read it; else -1
 * with the problem replied and nothing to free. */
struct session_view;
int api__session_read(const struct api_config *cfg, const char *id,
		      int64_t version, const char *token,
		      struct session_view *v, struct api_reply *rp);
void api__session_problem(struct api_reply *rp, int rc,
			  const struct session_view *v);

/* The event stream's credentials in its URL: ?token= may
 * be a read token only (a write or owner token: 403 token_in_url), and
 * ?ticket= a live stream ticket of this session (expired: 401
 * ticket_expired). *token is the Authorization header's token (or NULL),
 * replaced by the URL's token when it has none; *granted is set when a
 * ticket alone lets the request read a private session. Returns 0, or -1
 * with rp the problem. */
int api__url_credential(const struct api_config *cfg, const char *id,
			int is_private, const char *qtoken,
			const char *qticket, const char **token, int *granted,
			struct api_reply *rp);

/* ---- work on the solver pool, tables, jobs (api_work.c) ------------- */

/* CPU-bound work (a solve, a scramble) runs on the solver pool while its
 * connection waits: the same per-client caps (429 too_many_solves), 503
 * queue_full, cancellation when the client goes away. fn(cfg, arg, w,
 * rp) builds the reply on a pool worker; api__work_stopped(w) says
 * whether it should stop (cancelled, the pool stopping, the client gone;
 * w NULL: never). api__offload returns 1 when rp is pending or the
 * refusal, arg then taken over (free_arg lets it go); 0 when this request
 * cannot wait (no pool, no done callback, no memory): the caller runs
 * fn(cfg, arg, NULL, rp) itself and keeps arg. */
struct api_work;
typedef void api__work_fn(const struct api_config *cfg, void *arg,
			  struct api_work *w, struct api_reply *rp);
int api__offload(const struct api_config *cfg, const struct api_request *rq,
		 api__work_fn *fn, void *arg, void (*free_arg)(void *arg),
		 struct api_reply *rp);
int api__work_stopped(struct api_work *w);

/* 503 no_jobs when this server runs none (-1), else 0. */
int api__jobs_or_503(const struct api_config *cfg, struct api_reply *rp);

/* ---- body fields ------------------------------------------------------ */

enum api__field_type {
	FIELD_INT,
	FIELD_STRING,
	FIELD_ARRAY,
	FIELD_OBJECT,
	FIELD_STRING_OR_TRUE,
	FIELD_BOOL,
};

struct api__field {
	const char *name;
	enum api__field_type type;
	int required;
};

/* Strict: every key of obj must be listed, required ones present, types
 * exact. prefix names obj inside the body in problems ("cubie" makes a
 * bad key "cubie.cp"), NULL at the top level. */
int api__check_fields(const json_t *obj, const char *prefix,
		      const struct api__field *f, size_t nf,
		      struct api_reply *rp);

/* Make rp the problem id (an invalid_request row of errors.def) about
 * field. Returns the problem body (borrowed) for more members, or NULL. */
json_t *api__bad_field(struct api_reply *rp, enum problem id,
		       const char *field, const char *detail, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* An integer field v (already checked to be an integer) from lo to hi
 * into *out, left alone when v is NULL: 0; else -1 with rp the 422
 * value_out_of_range of field, its detail printf-style and its "limit"
 * hi. */
int api__int_range(struct api_reply *rp, const json_t *v, const char *field,
		   json_int_t lo, json_int_t hi, json_int_t *out,
		   const char *detail, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 7, 8)))
#endif
	;

/* The cube size in a "size" field, checked against core's range. */
int api__size_arg(const json_t *v, int *n, struct api_reply *rp);

/* ---- query strings ---------------------------------------------------- */

#define API_QUERY_MAX 16         /* parameters per request */
#define API_QUERY_VALUE_MAX 256  /* bytes per decoded value, with its NUL */

/* A query string's parameters, percent-decoded. */
struct api__query {
	int n;
	char key[API_QUERY_MAX][16];
	char val[API_QUERY_MAX][API_QUERY_VALUE_MAX];
};

/* Parse q (the raw query, NULL for none) strictly: every name must be in
 * allowed (NULL-terminated) and given at most once (422 invalid_request
 * unknown_parameter / duplicate_parameter, field = the name); values are
 * percent-decoded ('+' is a space) and must fit without a NUL (else
 * bad_parameter). */
int api__query_parse(const char *q, const char *const *allowed,
		     struct api__query *out, struct api_reply *rp);

/* The value of key, or NULL if it was not given. */
const char *api__query_get(const struct api__query *q, const char *key);

/* key's value as a whole number from 0: 1 with *out set, 0 if absent, -1
 * with rp the 422 wrong_type. */
int api__query_int(const struct api__query *q, const char *key, int64_t *out,
		   struct api_reply *rp);

/* ---- representations -------------------------------------------------- */

/* An "include" array: strings naming representations from allowed (a
 * REPR_BIT mask), each at most once. Adds their bits to *want. */
int api__include_arg(const json_t *v, unsigned allowed, unsigned *want,
		     struct api_reply *rp);

/* Whether representation r exists for size n and is within its size
 * limit; field names the request field that asked for it ("include",
 * "format"). */
int api__repr_check(enum repr r, int n, const char *field,
		    struct api_reply *rp);

/* The cubie form of c (a 2×2 or 3×3), or 422 invalid_cube with every
 * problem cube_validate finds; field names the state in the request. */
/* The solver's table t into *out, or -1 with rp a 503 tables_not_ready
 * (with Retry-After while they load or build) (api_work.c). */
int api__tables_or_503(const struct api_config *cfg, int t,
		       const void **out, struct api_reply *rp);

int api__cubies_of(const cube_t *c, const char *field, struct repr_cubies *out,
		   struct api_reply *rp);

/* 422 invalid_cube for field, whose "errors" member is errors (stolen,
 * an array of objects with a "code"): the detail is lead, a colon and
 * those codes ("the facelets are not a legal cube: twist, parity"); lead
 * NULL says "the <field> is (are) not a legal cube". */
void api__invalid_cube(struct api_reply *rp, const char *field,
		       json_t *errors, const char *lead);

/* Set the representations in want (REPR_BIT mask) of state c into obj, in
 * enum repr order. rc is c's cubie form if the caller has it, else NULL
 * (then it is computed when a representation needs it; field names the
 * state for invalid_cube). a is the applied algorithm (REPR_ANIMATION),
 * or NULL. Checks were done (api__repr_check); this only builds. */
int api__set_reprs(json_t *obj, unsigned want, const cube_t *c,
		   const struct repr_cubies *rc, const alg_t *a,
		   const char *field, struct api_reply *rp);

/* ---- states and moves ------------------------------------------------- */

/* The start state: solved of size n (jf NULL), or the facelets jf (a JSON
 * string) whose length must agree with n unless n is 0. Length and
 * letters only: legality is not checked. Returns the cube (the caller
 * frees it) or NULL. */
cube_t *api__start_state(int n, const json_t *jf, struct api_reply *rp);

/* A parsed "moves" string: the tree and the node buffer it lives in. */
struct api__parsed {
	alg_t a;
	alg_node *nodes; /* the caller frees it */
};

/* Parse moves for size n under lim; on error out->nodes is NULL. */
int api__parse_moves(const char *s, size_t len, int n, const alg_limits *lim,
		     struct api__parsed *out, struct api_reply *rp);

/* The alg_limits for this server's configuration. */
void api__limits(const struct api_config *cfg, alg_limits *lim);

/* ---- replies ---------------------------------------------------------- */

json_int_t api__clamp_int(uint64_t v);

enum api__text_kind { TEXT_CANONICAL, TEXT_INVERSE, TEXT_EXPANDED, TEXT_MOVES };

struct api__text_src {
	const alg_t *a;     /* for the alg_print_* kinds */
	const cube_move *m; /* for TEXT_MOVES */
	size_t count;
	int n;
};

/* A printed algorithm as a JSON string, or NULL if memory ran out. */
json_t *api__text_json(enum api__text_kind k, const struct api__text_src *src);

struct session_view;

/* A session as its JSON reply object with the representations in want
 * (REPR_BIT mask; field names the one facelets go under), or NULL with rp
 * a problem. */
json_t *api__session_json(const struct api_config *cfg,
			  const struct session_view *v, unsigned want,
			  const char *field, struct api_reply *rp);
/* The same for want = facelets alone, written straight as text (malloc'd,
 * length in *len; NULL if memory ran out): the bytes jsonout_dump gives
 * for api__session_json. */
char *api__session_text(const struct api_config *cfg,
			const struct session_view *v, size_t *len);

#endif
