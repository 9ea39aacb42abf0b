/* sessions.c — the session rules (see sessions.h): one writer thread that
 * groups writes into transactions, undo/redo stacks kept in the event rows,
 * snapshots for time travel, and an LRU cache of current states for reads.
 */
#include "sessions.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cube.h"
#include "rowcache.h"
#include "token.h"

/* ------------------------------------------------------------------ cache */

struct centry {
	char id[STORE_ID_MAX];
	struct session_view v;
	struct centry *prev, *next;   /* LRU list, most recent first */
	struct centry *hnext;         /* hash chain */
};

struct cache {
	pthread_mutex_t lock;
	struct centry **buckets;
	size_t nbuckets, count, max;
	struct centry *head, *tail;
	uint64_t hits, misses;
};

static size_t hash_id(const char *s)
{
	size_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int view_copy(struct session_view *dst, const struct session_view *src)
{
	*dst = *src;
	dst->facelets = src->facelets ? strdup(src->facelets) : NULL;
	dst->title = src->title ? strdup(src->title) : NULL;
	if ((src->facelets && !dst->facelets) || (src->title && !dst->title)) {
		session_view_free(dst);
		return -1;
	}
	return 0;
}

void session_view_free(struct session_view *v)
{
	free(v->facelets);
	free(v->title);
	v->facelets = v->title = NULL;
}

static void lru_unlink(struct cache *c, struct centry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_front(struct cache *c, struct centry *e)
{
	e->next = c->head;
	e->prev = NULL;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

static struct centry **cache_slot(struct cache *c, const char *id)
{
	struct centry **p = &c->buckets[hash_id(id) % c->nbuckets];
	while (*p && strcmp((*p)->id, id) != 0)
		p = &(*p)->hnext;
	return p;
}

static void cache_drop_locked(struct cache *c, struct centry **slot)
{
	struct centry *e = *slot;
	*slot = e->hnext;
	lru_unlink(c, e);
	session_view_free(&e->v);
	free(e);
	c->count--;
}

/* Copy out a cached current view; 0 on a hit. */
static int cache_get(struct cache *c, const char *id, struct session_view *out)
{
	int rc = -1;
	pthread_mutex_lock(&c->lock);
	struct centry *e = *cache_slot(c, id);
	if (e) {
		lru_unlink(c, e);
		lru_front(c, e);
		rc = view_copy(out, &e->v);
		c->hits++;
	} else {
		c->misses++;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* Insert or replace, but never move an entry back to an older version (a
 * reader that read the database before a commit must not undo the
 * writer's newer entry). */
static void cache_put(struct cache *c, const struct session_view *v)
{
	struct session_view copy;
	if (view_copy(&copy, v) < 0)
		return;
	pthread_mutex_lock(&c->lock);
	struct centry **slot = cache_slot(c, v->id);
	struct centry *e = *slot;
	if (e) {
		if (e->v.version > v->version) {
			pthread_mutex_unlock(&c->lock);
			session_view_free(&copy);
			return;
		}
		session_view_free(&e->v);
		e->v = copy;
		lru_unlink(c, e);
		lru_front(c, e);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	e = calloc(1, sizeof *e);
	if (!e) {
		pthread_mutex_unlock(&c->lock);
		session_view_free(&copy);
		return;
	}
	snprintf(e->id, sizeof e->id, "%s", v->id);
	e->v = copy;
	e->hnext = NULL;
	*slot = e;
	lru_front(c, e);
	c->count++;
	while (c->count > c->max && c->tail)
		cache_drop_locked(c, cache_slot(c, c->tail->id));
	pthread_mutex_unlock(&c->lock);
}

static void cache_remove(struct cache *c, const char *id)
{
	pthread_mutex_lock(&c->lock);
	struct centry **slot = cache_slot(c, id);
	if (*slot)
		cache_drop_locked(c, slot);
	pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------ the writer */

enum op_kind { OP_CREATE, OP_WRITE, OP_DELETE, OP_SOLVE, OP_TOKEN,
	       OP_REVOKE };

struct op {
	enum op_kind kind;
	/* inputs */
	const struct session_create *create;
	const struct session_write *write;
	const char *id;          /* OP_DELETE, OP_SOLVE, OP_TOKEN, OP_REVOKE */
	const char *token;       /* OP_DELETE, OP_TOKEN, OP_REVOKE: the owner's */
	struct store_solve *solve; /* OP_SOLVE */
	const char *facelets;    /* OP_SOLVE: the state solved, for watchers */
	enum ses_role role;      /* OP_TOKEN */
	const char *name;        /* OP_TOKEN, or NULL */
	int64_t tid;             /* OP_REVOKE */
	/* outputs */
	int rc;
	struct session_view view;
	char token_out[36];
	char read_token_out[36]; /* OP_CREATE of a private session */
	struct store_token tok;  /* OP_TOKEN */
	char event_type[8];      /* OP_WRITE: the event's type */
	/* asynchronous writes (sessions_write_begin): called by the writer
	 * once the op is done, instead of waking a waiting caller */
	void (*done_cb)(void *ctx);
	void *done_ctx;
	struct session_write wcopy; /* the write, its strings in text */
	char *text;
	char *moves_out;
	alg_error err;
	int done;
	struct op *next;
};

struct sessions {
	struct store *store;
	alg_limits limits;
	int64_t max_sessions;
	int max_batch;
	struct cache cache;
	struct rowcache *rows; /* the writer's copies of session rows */
	session_event_fn *on_event;
	void *on_event_ctx;

	pthread_t writer;
	pthread_mutex_t lock;     /* queue, stop, stats */
	pthread_cond_t wake;      /* writer: work arrived */
	pthread_cond_t done;      /* callers: some op finished */
	struct op *head, *tail;
	int stop;
	int closing; /* sessions_drain: refuse new ops */
	int busy;    /* the writer holds a batch (until its callbacks ran) */
	struct sessions_stats stats;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void view_from_row(struct session_view *v, const struct store_session *r)
{
	memset(v, 0, sizeof *v);
	snprintf(v->id, sizeof v->id, "%s", r->id);
	v->size = r->size;
	v->version = r->version;
	v->created_at = r->created_at;
	v->updated_at = r->updated_at;
	v->is_private = r->is_private;
	v->can_undo = r->undo_top != 0;
	v->can_redo = r->redo_top != 0;
}

/* Parse moves for size n under the limits into a (nodes malloc'd, caller
 * frees *nodes). */
static int parse(struct sessions *s, int n, const char *m, size_t len,
		 alg_t *a, alg_node **nodes, alg_error *err)
{
	size_t cap = alg_nodes_needed(len);
	*nodes = malloc(cap * sizeof **nodes);
	if (!*nodes)
		return SES_STORE;
	int rc = alg_parse(a, *nodes, cap, n, m, len, &s->limits, err);
	if (rc < 0) {
		free(*nodes);
		*nodes = NULL;
		return SES_BAD_MOVES;
	}
	return SES_OK;
}

/* Apply moves text to a facelets string of size n, in place; also return
 * the canonical (or, with inverse, the inverse) text if wanted. */
static int apply_text(struct sessions *s, int n, char *facelets,
		      const char *moves, int inverse, char **canonical,
		      alg_error *err)
{
	alg_t a;
	alg_node *nodes;
	int rc = parse(s, n, moves, strlen(moves), &a, &nodes, err);
	if (rc != SES_OK)
		return rc;
	cube_t *c = malloc(cube_sizeof(n));
	if (!c) {
		free(nodes);
		return SES_STORE;
	}
	size_t len = 6u * (size_t)n * (size_t)n;
	if (cube_from_facelets(c, n, facelets, len, NULL) < 0) {
		free(c);
		free(nodes);
		return SES_BAD_STATE;
	}
	alg_apply(&a, c, inverse);
	cube_to_facelets(c, facelets);
	if (canonical) {
		size_t need = inverse ? alg_print_inverse(&a, NULL, 0)
				      : alg_print_canonical(&a, NULL, 0);
		*canonical = malloc(need + 1);
		if (*canonical) {
			if (inverse)
				alg_print_inverse(&a, *canonical, need + 1);
			else
				alg_print_canonical(&a, *canonical, need + 1);
		}
	}
	free(c);
	free(nodes);
	return SES_OK;
}

static int store_rc(int rc)
{
	return rc == STORE_NOT_FOUND ? SES_NOT_FOUND : SES_STORE;
}

/* The role token has in the session whose row is row (the owner's hash is
 * compared in constant time; other tokens are found by their hash). */
static int auth_row(struct sessions *s, const struct store_session *row,
		    const char *token, enum ses_role *role, char *actor)
{
	*role = SES_ROLE_NONE;
	if (!token)
		return SES_UNAUTHORIZED;
	uint8_t h[TOKEN_HASH_LEN];
	token_sha256(token, strlen(token), h);
	if (token_hash_equal(h, row->token_hash)) {
		*role = SES_ROLE_OWNER;
		if (actor)
			snprintf(actor, STORE_NAME_MAX, "owner");
		return SES_OK;
	}
	struct store_token t;
	int rc = store_find_token(s->store, row->id, h, &t);
	if (rc == STORE_NOT_FOUND)
		return SES_FORBIDDEN;
	if (rc != STORE_OK)
		return SES_STORE;
	*role = strcmp(t.role, "write") == 0 ? SES_ROLE_WRITE : SES_ROLE_READ;
	if (actor)
		snprintf(actor, STORE_NAME_MAX, "%s", t.name);
	return SES_OK;
}

/* Session id's row for the writer: its copy if it has one (never with
 * the initial state), else the store's, then kept. */
static int get_row(struct sessions *s, const char *id, int with_initial,
		   struct store_session *row)
{
	if (!with_initial && rowcache_get(s->rows, id, row))
		return STORE_OK;
	int rc = store_get_session(s->store, id, with_initial, row);
	if (rc == STORE_OK)
		rowcache_put(s->rows, row);
	return rc;
}

/* Apply one write inside the writer's transaction. */
static int do_write(struct sessions *s, struct op *op)
{
	const struct session_write *w = op->write;
	struct store_session row;
	int rc = get_row(s, w->id, w->kind == SES_RESET, &row);
	if (rc != STORE_OK)
		return store_rc(rc);
	struct store_event ev;
	memset(&ev, 0, sizeof ev);
	struct store_event ref1, ref2;
	memset(&ref1, 0, sizeof ref1);
	memset(&ref2, 0, sizeof ref2);
	char *moves = NULL;
	int64_t undo_top = row.undo_top, redo_top = row.redo_top;

	enum ses_role role;
	rc = auth_row(s, &row, w->token, &role, op->view.actor);
	if (rc == SES_OK && role == SES_ROLE_READ)
		rc = SES_READ_ONLY;
	if (rc != SES_OK)
		goto out;
	if (w->if_match >= 0 && w->if_match != row.version) {
		view_from_row(&op->view, &row);
		rc = SES_STALE;
		goto out;
	}
	ev.version = row.version + 1;
	ev.created_at = now_ms();
	ev.actor = op->view.actor;

	switch (w->kind) {
	case SES_MOVES: {
		char *text = malloc(w->moves_len + 1);
		if (!text) {
			rc = SES_STORE;
			goto out;
		}
		memcpy(text, w->moves, w->moves_len);
		text[w->moves_len] = '\0';
		rc = apply_text(s, row.size, row.state, text, 0, &moves,
				&op->err);
		free(text);
		if (rc != SES_OK)
			goto out;
		snprintf(ev.type, sizeof ev.type, "moves");
		ev.link = undo_top;
		undo_top = ev.version;
		redo_top = 0;
		break;
	}
	case SES_UNDO:
		if (undo_top == 0) {
			rc = SES_NOTHING_TO_UNDO;
			goto out;
		}
		if ((rc = store_get_event(s->store, w->id, undo_top, &ref1)) !=
		    STORE_OK) {
			rc = SES_STORE;
			goto out;
		}
		rc = apply_text(s, row.size, row.state, ref1.moves, 1, &moves,
				&op->err);
		if (rc != SES_OK)
			goto out;
		snprintf(ev.type, sizeof ev.type, "undo");
		ev.ref = undo_top;
		ev.link = redo_top;
		undo_top = ref1.link;
		redo_top = ev.version;
		break;
	case SES_REDO:
		if (redo_top == 0) {
			rc = SES_NOTHING_TO_REDO;
			goto out;
		}
		if (store_get_event(s->store, w->id, redo_top, &ref1) !=
			    STORE_OK ||
		    store_get_event(s->store, w->id, ref1.ref, &ref2) !=
			    STORE_OK) {
			rc = SES_STORE;
			goto out;
		}
		rc = apply_text(s, row.size, row.state, ref2.moves, 0, &moves,
				&op->err);
		if (rc != SES_OK)
			goto out;
		snprintf(ev.type, sizeof ev.type, "redo");
		ev.ref = ref1.ref;
		ev.link = undo_top;
		undo_top = ev.version;
		redo_top = ref1.link;
		break;
	case SES_RESET:
		free(row.state);
		row.state = strdup(row.initial);
		moves = strdup("");
		if (!row.state || !moves) {
			rc = SES_STORE;
			goto out;
		}
		snprintf(ev.type, sizeof ev.type, "reset");
		ev.snapshot = row.state;
		undo_top = redo_top = 0;
		break;
	}
	ev.moves = moves;
	if (ev.version % SESSIONS_SNAPSHOT_EVERY == 0)
		ev.snapshot = row.state;
	rc = store_append_event(s->store, w->id, &ev, row.state, undo_top,
				redo_top);
	if (rc != STORE_OK) {
		rc = SES_STORE;
		goto out;
	}
	row.version = ev.version;
	row.updated_at = ev.created_at;
	row.undo_top = undo_top;
	row.redo_top = redo_top;
	rowcache_put(s->rows, &row);
	char actor[STORE_NAME_MAX];
	memcpy(actor, op->view.actor, sizeof actor);
	view_from_row(&op->view, &row);
	memcpy(op->view.actor, actor, sizeof actor);
	memcpy(op->event_type, ev.type, sizeof op->event_type);
	op->view.facelets = row.state;
	row.state = NULL;
	op->view.title = row.title;
	row.title = NULL;
	op->moves_out = moves;
	moves = NULL;
	rc = SES_OK;
out:
	free(moves);
	store_event_free(&ref1);
	store_event_free(&ref2);
	store_session_free(&row);
	return rc;
}

static int do_create(struct sessions *s, struct op *op)
{
	const struct session_create *c = op->create;
	int n = c->size;
	size_t len = 6u * (size_t)n * (size_t)n;
	if (s->max_sessions > 0) {
		int64_t count;
		if (store_count_sessions(s->store, &count) != STORE_OK)
			return SES_STORE;
		if (count >= s->max_sessions)
			return SES_LIMIT;
	}
	struct store_session row;
	memset(&row, 0, sizeof row);
	row.size = n;
	row.state = malloc(len + 1);
	if (!row.state)
		return SES_STORE;
	row.state[len] = '\0';
	int rc;
	if (c->initial) {
		cube_t *cb = malloc(cube_sizeof(n));
		if (!cb) {
			rc = SES_STORE;
			goto out;
		}
		int r = cube_from_facelets(cb, n, c->initial, c->initial_len,
					   NULL);
		free(cb);
		if (r < 0) {
			rc = SES_BAD_STATE;
			goto out;
		}
		memcpy(row.state, c->initial, len);
	} else {
		for (size_t i = 0; i < len; i++)
			row.state[i] = cube_face_letters[i / ((size_t)n * n)];
	}
	if (c->scramble && c->scramble_len) {
		char *text = strndup(c->scramble, c->scramble_len);
		if (!text) {
			rc = SES_STORE;
			goto out;
		}
		rc = apply_text(s, n, row.state, text, 0, NULL, &op->err);
		free(text);
		if (rc != SES_OK)
			goto out;
	}
	row.initial = row.state;
	row.created_at = row.updated_at = now_ms();
	row.is_private = c->is_private;
	row.title = (char *)c->title;
	if (token_new_secret(op->token_out) < 0) {
		rc = SES_STORE;
		goto out;
	}
	token_sha256(op->token_out, strlen(op->token_out), row.token_hash);
	/* A collision of 128 random bits will not happen; retry once anyway
	 * rather than reason about it. */
	for (int attempt = 0; attempt < 2; attempt++) {
		char id[23];
		if (token_new_id(id) < 0) {
			rc = SES_STORE;
			goto out;
		}
		snprintf(row.id, sizeof row.id, "%s", id);
		rc = store_create_session(s->store, &row, c->actor);
		if (rc != STORE_CONFLICT)
			break;
	}
	if (rc != STORE_OK) {
		rc = SES_STORE;
		goto out;
	}
	if (c->is_private) {
		struct store_token t = {.created_at = row.created_at};
		snprintf(t.role, sizeof t.role, "read");
		uint8_t h[TOKEN_HASH_LEN];
		if (token_new_secret(op->read_token_out) < 0) {
			rc = SES_STORE;
			goto out;
		}
		token_sha256(op->read_token_out, strlen(op->read_token_out), h);
		if (store_add_token(s->store, row.id, &t, h) != STORE_OK) {
			rc = SES_STORE;
			goto out;
		}
	}
	rowcache_put(s->rows, &row);
	view_from_row(&op->view, &row);
	snprintf(op->view.actor, sizeof op->view.actor, "%s",
		 c->actor ? c->actor : "");
	op->view.facelets = row.state;
	row.state = NULL;
	op->view.title = c->title ? strdup(c->title) : NULL;
	rc = SES_OK;
out:
	free(row.state);
	return rc;
}

/* SES_OK if op->token is the owner's token of session op->id. */
static int check_owner(struct sessions *s, struct op *op)
{
	struct store_session row;
	int rc = get_row(s, op->id, 0, &row);
	if (rc != STORE_OK)
		return store_rc(rc);
	enum ses_role role;
	rc = auth_row(s, &row, op->token, &role, NULL);
	store_session_free(&row);
	if (rc == SES_OK && role != SES_ROLE_OWNER)
		rc = SES_NOT_OWNER;
	return rc;
}

static int do_delete(struct sessions *s, struct op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	rowcache_remove(s->rows, op->id);
	rc = store_delete_session(s->store, op->id);
	return rc == STORE_OK ? SES_OK : store_rc(rc);
}

static int do_token(struct sessions *s, struct op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	memset(&op->tok, 0, sizeof op->tok);
	snprintf(op->tok.role, sizeof op->tok.role, "%s",
		 op->role == SES_ROLE_WRITE ? "write" : "read");
	if (op->name)
		snprintf(op->tok.name, sizeof op->tok.name, "%s", op->name);
	op->tok.created_at = now_ms();
	if (token_new_secret(op->token_out) < 0)
		return SES_STORE;
	uint8_t h[TOKEN_HASH_LEN];
	token_sha256(op->token_out, strlen(op->token_out), h);
	rc = store_add_token(s->store, op->id, &op->tok, h);
	if (rc == STORE_CONFLICT)
		return SES_NAME_TAKEN;
	return rc == STORE_OK ? SES_OK : SES_STORE;
}

static int do_revoke(struct sessions *s, struct op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	rc = store_revoke_token(s->store, op->id, op->tid, now_ms());
	if (rc == STORE_NOT_FOUND)
		return SES_NO_SUCH_TOKEN;
	return rc == STORE_OK ? SES_OK : SES_STORE;
}

/* Tell the watchers of one committed op (writer thread, after commit). */
static void publish(struct sessions *s, const struct op *op)
{
	struct session_event e = {0};
	switch (op->kind) {
	case OP_WRITE:
		e.id = op->write->id;
		e.type = op->event_type;
		e.version = op->view.version;
		e.size = op->view.size;
		e.moves = op->moves_out ? op->moves_out : "";
		e.actor = op->view.actor;
		e.facelets = op->view.facelets;
		e.created_at = op->view.updated_at;
		break;
	case OP_DELETE:
		e.id = op->id;
		e.type = "delete";
		e.moves = "";
		e.version = -1;
		e.created_at = now_ms();
		break;
	case OP_SOLVE:
		e.id = op->id;
		e.type = "solve";
		e.version = op->solve->version;
		e.moves = op->solve->solution ? op->solve->solution : "";
		e.facelets = op->facelets;
		e.created_at = op->solve->created_at;
		e.method = op->solve->method;
		break;
	default:
		return;
	}
	s->on_event(s->on_event_ctx, &e);
}

static void stats_batch(struct sessions_stats *st, uint64_t n)
{
	static const uint64_t edges[] = {1, 3, 7, 15, 63};
	int b = 5;
	for (int i = 0; i < 5; i++)
		if (n <= edges[i]) {
			b = i;
			break;
		}
	st->batch_hist[b]++;
	if (n > st->batch_max)
		st->batch_max = n;
}

/* Run one op inside the writer's transaction. */
static int do_op(struct sessions *s, struct op *op)
{
	switch (op->kind) {
	case OP_CREATE:
		return do_create(s, op);
	case OP_WRITE:
		return do_write(s, op);
	case OP_DELETE:
		return do_delete(s, op);
	case OP_SOLVE:
		return store_add_solve(s->store, op->id, op->solve,
				       &op->solve->id) == STORE_OK
			       ? SES_OK
			       : SES_STORE;
	case OP_TOKEN:
		return do_token(s, op);
	case OP_REVOKE:
		return do_revoke(s, op);
	}
	return SES_STORE;
}

/* Forget what a run of op produced, before it runs again. */
static void op_reset(struct op *op)
{
	session_view_free(&op->view);
	memset(&op->view, 0, sizeof op->view);
	free(op->moves_out);
	op->moves_out = NULL;
	memset(&op->err, 0, sizeof op->err);
}

/* The ops of a batch in one transaction: 1 if it committed (each op's rc
 * says whether it is in it), 0 if not (the caller turns every SES_OK into
 * SES_STORE). *events counts the events appended.
 *
 * No savepoint per op (a savepoint copies every page an op first touches
 * into the statement journal, and costs two more statements per op).
 * Every refusal an op can give (a wrong token, a stale If-Match, bad
 * moves, a name taken, ...) is found before it writes anything, or is a
 * single statement that failed (SQLite undoes a failed statement by
 * itself). Only SES_STORE, a database error, can come after part of an op
 * was written: then the whole transaction is rolled back and the batch
 * runs again without that op, which keeps its SES_STORE. */
static int run_batch(struct sessions *s, struct op *batch, uint64_t *events)
{
	for (struct op *op = batch; op; op = op->next)
		op->rc = SES_OK;
	for (;;) {
		*events = 0;
		if (store_begin(s->store) != STORE_OK) {
			for (struct op *op = batch; op; op = op->next)
				op->rc = SES_STORE;
			return 0;
		}
		struct op *failed = NULL;
		for (struct op *op = batch; op && !failed; op = op->next) {
			if (op->rc == SES_STORE)
				continue; /* left out after a failed run */
			op->rc = do_op(s, op);
			if (op->rc == SES_STORE)
				failed = op;
			else if (op->rc == SES_OK)
				*events += op->kind == OP_CREATE ||
					   op->kind == OP_WRITE;
		}
		if (!failed) {
			if (store_commit(s->store) == STORE_OK) {
				rowcache_commit(s->rows);
				return 1;
			}
			store_rollback(s->store);
			rowcache_rollback(s->rows);
			return 0;
		}
		/* run again without it, from a clean slate */
		store_rollback(s->store);
		rowcache_rollback(s->rows);
		for (struct op *op = batch; op; op = op->next) {
			if (op == failed || op->rc == SES_STORE)
				continue;
			op_reset(op);
			op->rc = SES_OK;
		}
	}
}

static void *writer_main(void *arg)
{
	struct sessions *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->stop)
			pthread_cond_wait(&s->wake, &s->lock);
		if (!s->head && s->stop)
			break;
		/* take up to max_batch ops */
		struct op *batch = s->head, *last = s->head;
		int count = 1;
		while (last->next && count < s->max_batch) {
			last = last->next;
			count++;
		}
		s->head = last->next;
		if (!s->head)
			s->tail = NULL;
		last->next = NULL;
		s->busy = 1;
		pthread_mutex_unlock(&s->lock);

		uint64_t events = 0;
		int ok = run_batch(s, batch, &events);
		for (struct op *op = batch; op; op = op->next) {
			if (!ok && op->rc == SES_OK) {
				op->rc = SES_STORE;
				session_view_free(&op->view);
				free(op->moves_out);
				op->moves_out = NULL;
			}
			if (op->rc == SES_OK && op->kind == OP_DELETE)
				cache_remove(&s->cache, op->id);
			else if (op->rc == SES_OK &&
				 (op->kind == OP_CREATE || op->kind == OP_WRITE))
				cache_put(&s->cache, &op->view);
			if (op->rc == SES_OK && s->on_event)
				publish(s, op);
		}

		pthread_mutex_lock(&s->lock);
		if (ok) {
			s->stats.commits++;
			s->stats.events_appended += events;
			stats_batch(&s->stats, (uint64_t)count);
		}
		s->stats.writes += (uint64_t)count;
		struct op *async = NULL;
		int waiting = 0;
		for (struct op *op = batch, *next; op; op = next) {
			next = op->next;
			if (op->done_cb) {
				op->next = async;
				async = op;
			} else {
				waiting = 1;
				op->done = 1;
			}
		}
		if (waiting)
			pthread_cond_broadcast(&s->done);
		if (async) {
			/* a callback may free its op: read next first */
			pthread_mutex_unlock(&s->lock);
			for (struct op *op = async, *next; op; op = next) {
				next = op->next;
				op->done = 1;
				op->done_cb(op->done_ctx);
			}
			pthread_mutex_lock(&s->lock);
		}
		s->busy = 0;
		if (s->closing && !s->head)
			pthread_cond_broadcast(&s->done);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Queue op and wait until the writer committed (or failed) it. */
static int submit(struct sessions *s, struct op *op)
{
	op->done = 0;
	op->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->stop || s->closing) {
		pthread_mutex_unlock(&s->lock);
		return SES_SHUTDOWN;
	}
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_signal(&s->wake);
	while (!op->done)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return op->rc;
}

/* Queue op without waiting (its done_cb is called when it is done);
 * SES_SHUTDOWN at once if the writer is stopping. */
static int submit_async(struct sessions *s, struct op *op)
{
	op->done = 0;
	op->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->stop || s->closing) {
		pthread_mutex_unlock(&s->lock);
		return SES_SHUTDOWN;
	}
	if (s->tail)
		s->tail->next = op;
	else
		s->head = op;
	s->tail = op;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	return SES_OK;
}

/* ------------------------------------------------------------------ API */

int sessions_open(const struct sessions_config *cfg, struct sessions **out)
{
	struct sessions *s = calloc(1, sizeof *s);
	if (!s)
		return SES_STORE;
	s->store = cfg->store;
	s->limits = cfg->limits;
	s->max_sessions = cfg->max_sessions;
	s->max_batch = cfg->max_batch > 0 ? cfg->max_batch : 256;
	s->on_event = cfg->on_event;
	s->on_event_ctx = cfg->on_event_ctx;
	s->cache.max = cfg->cache_max ? cfg->cache_max : 1024;
	s->cache.nbuckets = s->cache.max * 2 + 1;
	s->cache.buckets = calloc(s->cache.nbuckets, sizeof *s->cache.buckets);
	/* the writer's row copies: a few thousand sessions in play, at most
	 * 32 MiB of states (past that, rows are read from the store) */
	s->rows = rowcache_new(4096, (size_t)32 << 20);
	if (!s->cache.buckets || !s->rows) {
		rowcache_free(s->rows);
		free(s->cache.buckets);
		free(s);
		return SES_STORE;
	}
	pthread_mutex_init(&s->cache.lock, NULL);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->done, NULL);
	if (pthread_create(&s->writer, NULL, writer_main, s) != 0) {
		rowcache_free(s->rows);
		free(s->cache.buckets);
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
	while (s->head || s->busy)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

void sessions_close(struct sessions *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->writer, NULL);
	while (s->cache.head)
		cache_drop_locked(&s->cache, cache_slot(&s->cache, s->cache.head->id));
	free(s->cache.buckets);
	rowcache_free(s->rows);
	pthread_mutex_destroy(&s->cache.lock);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->done);
	free(s);
}

int sessions_create(struct sessions *s, const struct session_create *c,
		    struct session_view *out, char token[36], char *read_token,
		    alg_error *err)
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_CREATE;
	op.create = c;
	int rc = submit(s, &op);
	if (err)
		*err = op.err;
	if (rc == SES_OK) {
		*out = op.view;
		memcpy(token, op.token_out, 36);
		if (read_token)
			memcpy(read_token, op.read_token_out, 36);
	}
	return rc;
}

int sessions_write(struct sessions *s, const struct session_write *w,
		   struct session_view *out, char **out_moves, alg_error *err)
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_WRITE;
	op.write = w;
	int rc = submit(s, &op);
	if (err)
		*err = op.err;
	if (rc == SES_OK || rc == SES_STALE)
		*out = op.view;
	if (out_moves)
		*out_moves = op.moves_out;
	else
		free(op.moves_out);
	return rc;
}

struct session_pending *sessions_write_begin(struct sessions *s,
					     const struct session_write *w,
					     void (*done)(void *ctx), void *ctx)
{
	size_t idl = strlen(w->id) + 1, tl = w->token ? strlen(w->token) + 1 : 0;
	struct op *op = calloc(1, sizeof *op);
	char *text = malloc(idl + tl + w->moves_len + 1);
	if (!op || !text) {
		free(op);
		free(text);
		return NULL;
	}
	op->kind = OP_WRITE;
	op->wcopy = *w;
	op->text = text;
	memcpy(text, w->id, idl);
	op->wcopy.id = text;
	if (w->token) {
		memcpy(text + idl, w->token, tl);
		op->wcopy.token = text + idl;
	}
	if (w->moves) {
		memcpy(text + idl + tl, w->moves, w->moves_len);
		op->wcopy.moves = text + idl + tl;
	}
	text[idl + tl + w->moves_len] = '\0';
	op->write = &op->wcopy;
	op->done_cb = done;
	op->done_ctx = ctx;
	if (submit_async(s, op) != SES_OK) {
		op->rc = SES_SHUTDOWN;
		op->done = 1;
		done(ctx);
	}
	return (struct session_pending *)op;
}

int sessions_write_end(struct session_pending *p, struct session_view *out,
		       char **out_moves, alg_error *err)
{
	struct op *op = (struct op *)p;
	int rc = op->rc;
	if (err)
		*err = op->err;
	if (rc == SES_OK || rc == SES_STALE)
		*out = op->view;
	else
		session_view_free(&op->view);
	if (out_moves)
		*out_moves = op->moves_out;
	else
		free(op->moves_out);
	free(op->text);
	free(op);
	return rc;
}

void sessions_write_abandon(struct session_pending *p)
{
	struct op *op = (struct op *)p;
	session_view_free(&op->view);
	free(op->moves_out);
	free(op->text);
	free(op);
}

int sessions_delete(struct sessions *s, const char *id, const char *token)
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_DELETE;
	op.id = id;
	op.token = token;
	return submit(s, &op);
}

/* The state at an old version: the nearest snapshot, then replay. */
static int state_at(struct sessions *s, const struct store_session *row,
		    int64_t version, char **facelets, int64_t *updated_at)
{
	int64_t snap_v;
	char *state;
	int rc = store_snapshot_at(s->store, row->id, version, &snap_v, &state);
	if (rc != STORE_OK)
		return store_rc(rc);
	*updated_at = row->created_at;
	int64_t want = version - snap_v;
	struct store_event ev[SESSIONS_SNAPSHOT_EVERY];
	int k = 0;
	if (want > 0) {
		/* a reset in between would have a snapshot, so only moves,
		 * undo and redo follow */
		k = store_history(s->store, row->id, snap_v, ev,
				  (int)(want < SESSIONS_SNAPSHOT_EVERY
						? want
						: SESSIONS_SNAPSHOT_EVERY));
		if (k < 0) {
			free(state);
			return SES_STORE;
		}
	}
	rc = SES_OK;
	for (int i = 0; i < k && rc == SES_OK; i++) {
		alg_error err;
		rc = apply_text(s, row->size, state, ev[i].moves, 0, NULL, &err);
		*updated_at = ev[i].created_at;
	}
	if (k == 0 && snap_v > 0) {
		struct store_event e;
		if (store_get_event(s->store, row->id, snap_v, &e) == STORE_OK) {
			*updated_at = e.created_at;
			store_event_free(&e);
		}
	}
	for (int i = 0; i < k; i++)
		store_event_free(&ev[i]);
	if (rc != SES_OK) {
		free(state);
		return rc == SES_BAD_MOVES ? SES_STORE : rc;
	}
	*facelets = state;
	return SES_OK;
}

int sessions_get(struct sessions *s, const char *id, int64_t version,
		 struct session_view *out)
{
	if (version < 0 && cache_get(&s->cache, id, out) == 0)
		return SES_OK;
	struct store_session row;
	int rc = store_get_session(s->store, id, 0, &row);
	if (rc != STORE_OK)
		return store_rc(rc);
	if (version >= 0 && version > row.version) {
		store_session_free(&row);
		return SES_NOT_FOUND;
	}
	view_from_row(out, &row);
	out->title = row.title;
	row.title = NULL;
	if (version < 0 || version == row.version) {
		out->facelets = row.state;
		row.state = NULL;
		if (version < 0)
			cache_put(&s->cache, out);
		store_session_free(&row);
		return SES_OK;
	}
	/* time travel: undo/redo availability is a property of the present */
	out->version = version;
	out->can_undo = out->can_redo = 0;
	rc = state_at(s, &row, version, &out->facelets, &out->updated_at);
	store_session_free(&row);
	if (rc != SES_OK)
		session_view_free(out);
	return rc;
}

int sessions_fork(struct sessions *s, const char *id, int64_t version,
		  const char *actor, struct session_view *out, char token[36])
{
	struct session_view src;
	int rc = sessions_get(s, id, version, &src);
	if (rc != SES_OK)
		return rc;
	struct session_create c = {
		.size = src.size,
		.initial = src.facelets,
		.initial_len = strlen(src.facelets),
		.title = src.title,
		.is_private = src.is_private,
		.actor = actor,
	};
	rc = sessions_create(s, &c, out, token, NULL, NULL);
	session_view_free(&src);
	return rc;
}

int sessions_history(struct sessions *s, const char *id, int64_t after,
		     struct store_event *out, int cap)
{
	struct store_session row;
	int rc = store_get_session(s->store, id, 0, &row);
	if (rc != STORE_OK)
		return store_rc(rc);
	store_session_free(&row);
	rc = store_history(s->store, id, after, out, cap);
	return rc < 0 ? SES_STORE : rc;
}

int sessions_add_solve(struct sessions *s, const char *id,
		       struct store_solve *sv, const char *facelets)
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_SOLVE;
	op.id = id;
	op.solve = sv;
	op.facelets = facelets;
	return submit(s, &op);
}

int sessions_auth(struct sessions *s, const char *id, const char *token,
		  enum ses_role *role, char *actor)
{
	*role = SES_ROLE_NONE;
	struct store_session row;
	int rc = store_get_session(s->store, id, 0, &row);
	if (rc != STORE_OK)
		return store_rc(rc);
	rc = auth_row(s, &row, token, role, actor);
	store_session_free(&row);
	return rc;
}

int sessions_add_token(struct sessions *s, const char *id,
		       const char *owner_token, enum ses_role role,
		       const char *name, struct store_token *out,
		       char secret[36])
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_TOKEN;
	op.id = id;
	op.token = owner_token;
	op.role = role;
	op.name = name;
	int rc = submit(s, &op);
	if (rc == SES_OK) {
		*out = op.tok;
		memcpy(secret, op.token_out, 36);
	}
	return rc;
}

int sessions_revoke_token(struct sessions *s, const char *id,
			  const char *owner_token, int64_t tid)
{
	struct op op;
	memset(&op, 0, sizeof op);
	op.kind = OP_REVOKE;
	op.id = id;
	op.token = owner_token;
	op.tid = tid;
	return submit(s, &op);
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
	return rc < 0 ? SES_STORE : rc;
}

void sessions_stats(struct sessions *s, struct sessions_stats *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->stats;
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_lock(&s->cache.lock);
	out->cache_hits = s->cache.hits;
	out->cache_misses = s->cache.misses;
	pthread_mutex_unlock(&s->cache.lock);
}

const char *sessions_strerror(int err)
{
	switch (err) {
	case SES_OK: return "ok";
	case SES_NOT_FOUND: return "no such session or version";
	case SES_UNAUTHORIZED: return "this write needs the session's write token";
	case SES_FORBIDDEN: return "the token is not a write token of this session";
	case SES_STALE: return "the session has moved on since the version in If-Match";
	case SES_NOTHING_TO_UNDO: return "there is nothing to undo";
	case SES_NOTHING_TO_REDO: return "there is nothing to redo";
	case SES_BAD_MOVES: return "the moves are not valid notation";
	case SES_BAD_STATE: return "the initial state is not a valid facelets string";
	case SES_LIMIT: return "the server holds the maximum number of sessions";
	case SES_STORE: return "the database failed";
	case SES_SHUTDOWN: return "the server is shutting down";
	case SES_READ_ONLY: return "a read token cannot write";
	case SES_NOT_OWNER: return "only the owner's token may do this";
	case SES_NAME_TAKEN: return "a token of this session already has that name";
	case SES_NO_SUCH_TOKEN: return "the session has no live token with that id";
	}
	return "unknown error";
}
