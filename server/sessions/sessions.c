/* sessions.c — the session layer's public face (sessions.h): opening and
 * closing, turning each call into an op for the writer (sessions_writer.c)
 * or a read through the cache (sessions_cache.c), and the views handed to
 * callers. The rules are in sessions_rules.c. */
#include "session_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "token.h"

int sessions_open(const struct sessions_config *cfg, struct sessions **out)
{
	struct sessions *s = calloc(1, sizeof *s);
	if (!s)
		return SES_NOMEM;
	s->store = cfg->store;
	s->shared = (store_caps(cfg->store) & STORE_CAP_SHARED) != 0;
	s->limits = cfg->limits;
	s->max_sessions = cfg->max_sessions;
	s->max_db_bytes = cfg->max_db_bytes;
	s->max_batch = cfg->max_batch > 0 ? cfg->max_batch : 256;
	s->idem_ttl_ms = cfg->idem_ttl_ms > 0 ? cfg->idem_ttl_ms
					      : (int64_t)86400 * 1000;
	s->on_event = cfg->on_event;
	s->on_event_ctx = cfg->on_event_ctx;
	s->fail_alloc = cfg->fail_alloc;
	s->fail_alloc_ctx = cfg->fail_alloc_ctx;
	s->lose_commit = cfg->lose_commit;
	s->lose_commit_ctx = cfg->lose_commit_ctx;
	if (cache_init(&s->cache, cfg->cache_max ? cfg->cache_max : 1024,
		       cfg->cache_bytes ? cfg->cache_bytes
					: (size_t)64 << 20) < 0) {
		free(s);
		return SES_NOMEM;
	}
	pthread_mutex_init(&s->judged_lock, NULL);
	if (writer_start(s) < 0) {
		pthread_mutex_destroy(&s->judged_lock);
		cache_destroy(&s->cache);
		free(s);
		return SES_STORE;
	}
	*out = s;
	return SES_OK;
}

void sessions_drain(struct sessions *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = 1;
	while (s->head || s->busy || s->done_head || s->answering)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

void sessions_close(struct sessions *s)
{
	if (!s)
		return;
	writer_stop(s);
	cache_destroy(&s->cache);
	free(s->judged);
	pthread_mutex_destroy(&s->judged_lock);
	free(s);
}

void session_view_free(struct session_view *v)
{
	session_state_release(v->state);
	free(v->title);
	free(v->scramble);
	v->state = NULL;
	v->title = NULL;
	v->scramble = NULL;
	v->facelets = NULL;
}

/* A view of st (the caller's reference, which the view takes). */
static int view_of(struct session_view *v, struct session_state *st)
{
	memset(v, 0, sizeof *v);
	snprintf(v->id, sizeof v->id, "%s", st->id);
	v->size = st->size;
	v->version = st->version;
	v->created_at = st->created_at;
	v->updated_at = st->updated_at;
	v->is_private = st->is_private;
	v->can_undo = st->can_undo;
	v->can_redo = st->can_redo;
	v->state = st;
	v->facelets = session_state_facelets(st);
	v->title = st->title ? strdup(st->title) : NULL;
	v->scramble = st->scramble ? strdup(st->scramble) : NULL;
	if (!v->facelets || (st->title && !v->title) ||
	    (st->scramble && !v->scramble)) {
		session_view_free(v);
		return SES_NOMEM;
	}
	return SES_OK;
}

/* SES_STORE becomes SES_UNAVAILABLE when this thread's store call failed
 * because the database could not be reached (the client may retry). */
static int reach(struct sessions *s, int rc)
{
	return rc == SES_STORE && store_unavailable(s->store) ? SES_UNAVAILABLE
							      : rc;
}

int sessions_meta(struct sessions *s, const char *id, struct session_meta *out)
{
	return reach(s, cache_peek(s, id, out, NULL));
}

int sessions_size(struct sessions *s, const char *id, int *size)
{
	return reach(s, cache_size(s, id, size));
}

static struct ses_op *op_new(struct sessions *s, enum op_kind kind,
			     const char *id, const char *token)
{
	/* the test seam (sessions.h): an allocation that fails on demand */
	if (s->fail_alloc && s->fail_alloc(s->fail_alloc_ctx))
		return NULL;
	struct ses_op *op = calloc(1, sizeof *op);
	if (!op)
		return NULL;
	op->kind = kind;
	if (id)
		snprintf(op->id, sizeof op->id, "%s", id);
	if (token) {
		/* hashed here, on the caller's thread: one thing less for
		 * the writer */
		token_sha256(token, strlen(token), op->token_hash);
		op->has_token = 1;
	}
	return op;
}

/* The op carries the key (a copy: a pending write outlives its
 * request). */
static void op_key(struct ses_op *op, const struct ses_idem *idem)
{
	if (!idem)
		return;
	op->idem = *idem;
	op->idem.replayed = 0;
	op->has_idem = 1;
}

int sessions_create(struct sessions *s, const struct session_create *c,
		    struct session_view *out, char token[36], char *read_token)
{
	if (c->start && c->start->n != c->size)
		return SES_BAD_STATE;
	struct ses_op *op = op_new(s, OP_CREATE, NULL, NULL);
	if (!op)
		return SES_NOMEM;
	int64_t now = sessions_now_ms();
	struct store_session meta = {
		.size = c->size, .created_at = now, .updated_at = now,
		.title = (char *)c->title, .is_private = c->is_private,
		.scramble = (char *)c->scramble_text,
	};
	/* the start state, made here (not on the writer): the scramble
	 * applied, the facelets for the version-0 snapshot and the reply
	 * formatted once */
	op->start = sstate_new(&meta, c->start);
	if (op->start && c->scramble)
		alg_apply(c->scramble, op->start->cube, 0);
	op->start_facelets = op->start ? (char *)session_state_facelets(
						 op->start)
				       : NULL;
	op->actor = c->actor;
	op_key(op, c->idem);
	int rc = SES_STORE;
	if (op->start_facelets)
		rc = writer_run(s, op);
	if (rc == SES_OK && op->replayed) {
		/* the session the first request made, as it was made */
		c->idem->replayed = 1;
		c->idem->extra = op->idem.extra;
		rc = sessions_get(s, op->id, 0, out);
		if (rc == SES_OK) {
			snprintf(out->actor, sizeof out->actor, "%s",
				 c->actor ? c->actor : "");
			out->replayed = 1;
			memcpy(token, op->token_out, 36);
			if (read_token)
				memcpy(read_token, op->read_token_out, 36);
		}
	} else if (rc == SES_OK && (rc = view_of(out, op->result)) == SES_OK) {
		op->result = NULL;
		snprintf(out->actor, sizeof out->actor, "%s", op->actor_out);
		out->stored = 6u * (uint64_t)out->size * (uint64_t)out->size;
		memcpy(token, op->token_out, 36);
		if (read_token)
			memcpy(read_token, op->read_token_out, 36);
	}
	op_free(op);
	return rc;
}

int sessions_get(struct sessions *s, const char *id, int64_t version,
		 struct session_view *out)
{
	struct session_state *st;
	int rc = cache_read(s, id, s->shared, &st, NULL);
	if (rc != SES_OK)
		return reach(s, rc);
	if (version >= 0 && version != st->version) {
		int64_t now = st->version;
		session_state_release(st);
		if (version > now)
			return SES_NOT_FOUND;
		/* time travel: rebuilt from the store, not kept */
		rc = load_state(s, id, version, &st, NULL, NULL, NULL);
		if (rc != SES_OK)
			return reach(s, rc);
	}
	return view_of(out, st);
}

int sessions_parse(struct sessions *s, int n, const char *text, size_t len,
		   struct session_write *w, alg_error *err)
{
	size_t cap = alg_nodes_needed(len);
	w->nodes = malloc((cap ? cap : 1) * sizeof *w->nodes);
	if (!w->nodes)
		return SES_NOMEM;
	if (alg_parse(&w->alg, w->nodes, cap, n, text, len, &s->limits,
		      err) < 0) {
		free(w->nodes);
		w->nodes = NULL;
		return SES_BAD_MOVES;
	}
	return SES_OK;
}

/* The op for a write (w's strings copied, its nodes taken). */
static struct ses_op *write_op(struct sessions *s, struct session_write *w)
{
	struct ses_op *op = op_new(s, OP_WRITE, w->id, w->token);
	if (op) {
		op->ses = s;
		op_key(op, w->idem);
		op->wkind = w->kind;
		op->if_match = w->if_match;
		if (w->kind == SES_MOVES) {
			op->alg = w->alg;
			op->nodes = w->nodes;
			w->nodes = NULL;
			/* the canonical text, printed once: the event's moves
			 * and the reply's */
			size_t need = alg_print_canonical(&op->alg, NULL, 0);
			op->canonical = malloc(need + 1);
			if (!op->canonical) {
				op_free(op);
				return NULL;
			}
			alg_print_canonical(&op->alg, op->canonical, need + 1);
		}
	}
	free(w->nodes);
	w->nodes = NULL;
	return op;
}

/* A replayed write's view and moves: the state at the version it made,
 * its event's moves and actor. */
static int replayed_write(struct ses_op *op, struct session_view *out,
			  char **out_moves)
{
	if (out_moves)
		*out_moves = NULL;
	int rc = sessions_get(op->ses, op->id, op->r_version, out);
	if (rc != SES_OK)
		return rc;
	out->can_undo = op->r_undo;
	out->can_redo = op->r_redo;
	out->replayed = 1;
	struct store_event e;
	int k = store_get_event(op->ses->store, op->id, op->r_version, &e);
	if (k != STORE_OK) {
		session_view_free(out);
		return reach(op->ses, ses_of_store(k));
	}
	out->updated_at = e.created_at;
	snprintf(out->actor, sizeof out->actor, "%s", e.actor ? e.actor : "");
	if (out_moves) {
		*out_moves = e.moves;
		e.moves = NULL;
	}
	store_event_free(&e);
	return SES_OK;
}

/* What a finished write gives its caller (op freed). */
static int write_result(struct ses_op *op, struct session_view *out,
			char **out_moves)
{
	int rc = op->rc;
	memset(out, 0, sizeof *out);
	if (rc == SES_OK && op->replayed) {
		/* the first request's write, read back at its version */
		rc = replayed_write(op, out, out_moves);
		op_free(op);
		return rc;
	}
	if (rc == SES_OK) {
		rc = view_of(out, op->result);
		op->result = NULL;
		snprintf(out->actor, sizeof out->actor, "%s", op->actor_out);
		uint64_t n = (uint64_t)out->size;
		out->stored = 6u * n * n / (n > 32 ? n : 32);
	} else if (rc == SES_STALE) {
		snprintf(out->id, sizeof out->id, "%s", op->id);
		out->version = op->current;
	}
	if (out_moves && rc == SES_OK) {
		*out_moves = op->moves_out;
		op->moves_out = NULL;
	} else if (out_moves) {
		*out_moves = NULL;
	}
	op_free(op);
	return rc;
}

int sessions_write(struct sessions *s, struct session_write *w,
		   struct session_view *out, char **out_moves)
{
	struct ses_op *op = write_op(s, w);
	if (!op)
		return SES_NOMEM;
	writer_run(s, op);
	return write_result(op, out, out_moves);
}

struct session_pending *sessions_write_begin(struct sessions *s,
					     struct session_write *w,
					     void (*done)(void *ctx), void *ctx)
{
	struct ses_op *op = write_op(s, w);
	if (!op)
		return NULL;
	op->done = done;
	op->ctx = ctx;
	writer_submit(s, op);
	return (struct session_pending *)op;
}

int sessions_write_end(struct session_pending *p, struct session_view *out,
		       char **out_moves)
{
	return write_result((struct ses_op *)p, out, out_moves);
}

void sessions_write_abandon(struct session_pending *p)
{
	op_free((struct ses_op *)p);
}

int sessions_delete(struct sessions *s, const char *id, const char *token)
{
	struct ses_op *op = op_new(s, OP_DELETE, id, token);
	if (!op)
		return SES_NOMEM;
	int rc = writer_run(s, op);
	op_free(op);
	return rc;
}

int sessions_fork(struct sessions *s, const char *id, int64_t version,
		  const char *actor, struct session_view *out, char token[36],
		  struct ses_idem *idem)
{
	struct session_view src;
	int rc = sessions_get(s, id, version, &src);
	if (rc != SES_OK)
		return rc;
	struct session_create c = {
		.size = src.size,
		.start = session_state_cube(src.state),
		.title = src.title,
		.is_private = src.is_private,
		.actor = actor,
		.idem = idem,
	};
	rc = sessions_create(s, &c, out, token, NULL);
	session_view_free(&src);
	return rc;
}

int sessions_history(struct sessions *s, const char *id, int64_t after,
		     struct store_event *out, int cap)
{
	int rc = cache_peek(s, id, NULL, NULL);
	if (rc != SES_OK)
		return reach(s, rc);
	rc = store_events_after(s->store, id, after, out, cap);
	return rc < 0 ? reach(s, ses_of_store(rc)) : rc;
}

int sessions_solves(struct sessions *s, const char *id, int64_t after,
		    struct store_solve *out, int cap)
{
	int rc = store_list_solves(s->store, id, after, out, cap);
	return rc < 0 ? reach(s, ses_of_store(rc)) : rc;
}

int sessions_add_solve(struct sessions *s, const char *id,
		       struct store_solve *sv, const char *facelets,
		       struct ses_idem *idem)
{
	struct ses_op *op = op_new(s, OP_SOLVE, id, NULL);
	if (!op)
		return SES_NOMEM;
	op->solve = sv;
	op->facelets = facelets;
	op_key(op, idem);
	int rc = writer_run(s, op);
	if (rc == SES_OK && op->replayed) {
		/* the solve the first request stored, read back */
		idem->replayed = 1;
		struct store_solve row;
		int k = store_list_solves(s->store, id, sv->id - 1, &row, 1);
		if (k == 1 && row.id == sv->id) {
			free(sv->solution);
			*sv = row;
		} else {
			if (k == 1)
				store_solve_free(&row);
			rc = k < 0 ? reach(s, ses_of_store(k)) : SES_NOT_FOUND;
		}
	}
	op_free(op);
	return rc;
}

int sessions_add_timed(struct sessions *s, const char *id,
		       struct store_timed *t, struct ses_idem *idem)
{
	struct ses_op *op = op_new(s, OP_TIMED, id, NULL);
	if (!op)
		return SES_NOMEM;
	op->timed = t;
	op_key(op, idem);
	int rc = writer_run(s, op);
	if (rc == SES_OK && op->replayed) {
		/* the start the first request stored, read back */
		idem->replayed = 1;
		struct store_timed row;
		int k = store_list_timed(s->store, id, t->id - 1, &row, 1);
		if (k == 1 && row.id == t->id) {
			free(t->scramble);
			*t = row;
		} else {
			if (k == 1)
				store_timed_free(&row);
			rc = k < 0 ? reach(s, ses_of_store(k)) : SES_NOT_FOUND;
		}
	}
	op_free(op);
	return rc;
}

int sessions_auth(struct sessions *s, const char *id, const char *token,
		  enum ses_role *role, char *actor)
{
	*role = SES_ROLE_NONE;
	unsigned char owner[STORE_HASH_LEN], h[STORE_HASH_LEN];
	int rc = cache_peek(s, id, NULL, owner);
	if (rc != SES_OK)
		return reach(s, rc);
	if (token)
		token_sha256(token, strlen(token), h);
	return reach(s,
		     rules_auth(s, id, owner, token ? h : NULL, role, actor));
}

int sessions_add_token(struct sessions *s, const char *id,
		       const char *owner_token, enum ses_role role,
		       const char *name, struct store_token *out,
		       char secret[36], struct ses_idem *idem)
{
	struct ses_op *op = op_new(s, OP_TOKEN, id, owner_token);
	if (!op)
		return SES_NOMEM;
	op->role = role;
	op->name = name;
	op_key(op, idem);
	int rc = writer_run(s, op);
	if (rc == SES_OK && op->replayed)
		idem->replayed = 1;
	if (rc == SES_OK) {
		*out = op->tok;
		memcpy(secret, op->token_out, 36);
	}
	op_free(op);
	return rc;
}

int sessions_revoke_token(struct sessions *s, const char *id,
			  const char *owner_token, int64_t tid)
{
	struct ses_op *op = op_new(s, OP_REVOKE, id, owner_token);
	if (!op)
		return SES_NOMEM;
	op->tid = tid;
	int rc = writer_run(s, op);
	op_free(op);
	return rc;
}

int sessions_list_tokens(struct sessions *s, const char *id,
			 const char *owner_token, struct store_token *out,
			 int cap)
{
	enum ses_role role;
	int rc = sessions_auth(s, id, owner_token, &role, NULL);
	if (rc != SES_OK)
		return rc;
	if (role != SES_ROLE_OWNER)
		return SES_NOT_OWNER;
	rc = store_list_tokens(s->store, id, out, cap);
	return rc < 0 ? reach(s, SES_STORE) : rc;
}

void sessions_stats(struct sessions *s, struct sessions_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->stats;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_lock(&s->cache.lock);
	out->cache_hits = s->cache.hits;
	out->cache_misses = s->cache.misses;
	out->cache_entries = s->cache.count;
	out->cache_bytes = s->cache.bytes;
	pthread_mutex_unlock(&s->cache.lock);
}

const char *sessions_strerror(int err)
{
	switch (err) {
	case SES_OK: return "ok";
	case SES_NOT_FOUND: return "there is no such session (or version)";
	case SES_UNAUTHORIZED: return "this write needs the session's write token";
	case SES_FORBIDDEN: return "the token is not a live token of this session (wrong, or revoked)";
	case SES_STALE: return "the session has moved on since the version in If-Match";
	case SES_NOTHING_TO_UNDO: return "there is no write to undo";
	case SES_NOTHING_TO_REDO: return "there is no undone write to redo";
	case SES_BAD_MOVES: return "the moves are not valid notation";
	case SES_BAD_STATE: return "the start state is not a cube of this size";
	case SES_LIMIT: return "the server holds as many sessions as it may; delete some or raise --max-sessions";
	case SES_STORE: return "the database failed";
	case SES_SHUTDOWN: return "the server is shutting down";
	case SES_READ_ONLY: return "a read token cannot change the session; writes need a write token";
	case SES_NOT_OWNER: return "only the session owner's token may do this";
	case SES_NAME_TAKEN: return "another token of this session has that name";
	case SES_UNAVAILABLE: return "the database cannot be reached; nothing was changed, retry later";
	case SES_NO_SUCH_TOKEN: return "the session has no live token with that id";
	case SES_NOMEM: return "the server ran out of memory";
	case SES_STORE_FULL: return "the disk holding the database is full: nothing of this request was written";
	case SES_STORE_BUSY: return "the database is locked by another connection: nothing of this request was written; try again";
	case SES_STORE_DOWN: return "the database cannot be written just now (read-only or an I/O error): nothing of this request was written; try again";
	case SES_OUTCOME_UNKNOWN: return "the connection to the database was lost while this write committed: it may or may not have been made; send the same request again with the same Idempotency-Key (it replays the write if it was made, or makes it once), or without a key read the session first";
	case SES_IDEM_REUSED: return "this Idempotency-Key was used for a different request; use a new key for a new request";
	case SES_STORAGE_CAP: return "the database holds as many bytes as this server allows (--max-db-size): nothing was written; deleting sessions makes room";
	}
	return "unknown error";
}
