/* sessions_rules.c — what each change to a session means, run by the
 * writer inside its transaction: moves, undo, redo and reset on the
 * session's cube in memory and the event row each one appends; create,
 * delete, solves and tokens; who may do what; and the snapshot rule
 * (session_layer.h says it and why).
 *
 * Undo and redo are stacks threaded through the event rows: the session
 * row's undo_top is the event an undo would revert (each event's `link` is
 * the one below it), redo_top the undo a redo would re-apply. A moves event
 * pushes itself and clears redo; an undo stores the inverse of the event it
 * reverts, pops it and pushes itself on redo; a redo stores the undone
 * event's moves again and pushes itself on undo; a reset clears both. */
#include "session_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

/* rules_run's "evaluate the op again" (a positive, internal code). */
#define RETRY 1

int rules_snapshot_due(int n, int64_t events, uint64_t work)
{
	int64_t most_events = n > 32 ? n : 32;
	uint64_t most_work = 6u * (uint64_t)n * (uint64_t)n;
	if (most_work < 4096)
		most_work = 4096;
	return events >= most_events || work >= most_work;
}

static char *print_alg(const alg_t *a, int inverse)
{
	size_t need = inverse ? alg_print_inverse(a, NULL, 0)
			      : alg_print_canonical(a, NULL, 0);
	char *t = malloc(need + 1);
	if (t) {
		if (inverse)
			alg_print_inverse(a, t, need + 1);
		else
			alg_print_canonical(a, t, need + 1);
	}
	return t;
}

/* A private session does not exist for a client without one of its live
 * tokens: its refusal (no token, a wrong one) is the 404 of a session that
 * is not there, so that nobody can probe which private ids exist. */
static int hidden(struct sessions *s, const char *id, int rc)
{
	struct session_meta m;
	if (cache_peek(s, id, &m, NULL) == SES_OK && m.is_private)
		return SES_NOT_FOUND;
	return rc;
}

int rules_auth(struct sessions *s, const char *id,
	       const unsigned char *owner, const unsigned char *h,
	       enum ses_role *role, char *actor)
{
	*role = SES_ROLE_NONE;
	if (!h)
		return hidden(s, id, SES_UNAUTHORIZED);
	if (token_hash_equal(h, owner)) {
		*role = SES_ROLE_OWNER;
		if (actor)
			snprintf(actor, STORE_NAME_MAX, "owner");
		return SES_OK;
	}
	struct store_token t;
	int rc = store_find_token(s->store, id, h, &t);
	if (rc == STORE_NOT_FOUND)
		return hidden(s, id, SES_FORBIDDEN);
	if (rc != STORE_OK)
		return ses_of_store(rc);
	*role = strcmp(t.role, "write") == 0 ? SES_ROLE_WRITE : SES_ROLE_READ;
	if (actor)
		snprintf(actor, STORE_NAME_MAX, "%s", t.name);
	return SES_OK;
}

/* ------------------------------------------------------------------ writes */

/* Make e's working side valid for this transaction: from its committed
 * state at the first write to it, after checking the store's version
 * first when other processes write too. */
static int working(struct sessions *s, struct sentry *e)
{
	if (s->shared && !e->w.checked && e->w.ops == 0) {
		int64_t v;
		int rc = store_session_version(s->store, e->id, &v);
		if (rc != STORE_OK)
			return rc == STORE_NOT_FOUND ? SES_NOT_FOUND
						     : ses_of_store(rc);
		e->w.checked = 1;
		pthread_mutex_lock(&s->cache.lock);
		int64_t have = e->w.valid ? e->w.version : e->cur->version;
		pthread_mutex_unlock(&s->cache.lock);
		if (v != have && (rc = cache_reload(s, e)) != SES_OK)
			return rc;
	}
	if (e->w.valid)
		return SES_OK;
	size_t cb = cube_sizeof(e->size);
	if (!e->w.cube && !(e->w.cube = malloc(cb)))
		return SES_NOMEM;
	pthread_mutex_lock(&s->cache.lock);
	struct session_state *st = session_state_retain(e->cur);
	e->w.since_events = e->since_events;
	e->w.since_work = e->since_work;
	pthread_mutex_unlock(&s->cache.lock);
	memcpy(e->w.cube, st->cube, cb);
	e->w.version = st->version;
	e->w.undo_top = st->undo_top;
	e->w.redo_top = st->redo_top;
	e->w.updated_at = st->updated_at;
	session_state_release(e->w.last);
	e->w.last = st;
	e->w.valid = 1;
	return SES_OK;
}

/* A refusal that rests on what the entry says (a stale If-Match, nothing
 * to undo or redo): RETRY instead if the store knows a newer version
 * (another process wrote; checked once a transaction). */
static int refuse(struct sessions *s, struct sentry *e, int rc)
{
	if (e->w.checked || e->w.ops > 0)
		return rc;
	e->w.checked = 1;
	int64_t v;
	int got = store_session_version(s->store, e->id, &v);
	if (got != STORE_OK)
		return got == STORE_NOT_FOUND ? SES_NOT_FOUND : ses_of_store(got);
	return v == e->w.version ? rc : RETRY;
}

/* What an undo or redo applies: the stored moves of the event it
 * reverts or repeats, parsed (nodes malloc'd). */
static int stored_moves(struct sessions *s, struct sentry *e, int64_t version,
			alg_t *a, alg_node **nodes)
{
	struct store_event ev;
	int rc = store_get_event(s->store, e->id, version, &ev);
	if (rc != STORE_OK)
		return ses_of_store(rc);
	rc = moves_parse_stored(e->size, ev.moves, a, nodes);
	store_event_free(&ev);
	return rc;
}

/* The state of version 0 into the working cube (a reset). */
static int initial_state(struct sessions *s, struct sentry *e)
{
	int64_t base;
	char *text;
	size_t len;
	int rc = store_replay_base(s->store, e->id, 0, &base, &text, &len);
	if (rc != STORE_OK)
		return ses_of_store(rc);
	rc = base == 0 && cube_from_facelets(e->w.cube, e->size, text, len,
					     NULL) >= 0
		     ? SES_OK
		     : SES_STORE;
	free(text);
	return rc;
}

/* The op on e's working side, once: SES_OK, a refusal, or RETRY. */
static int write_once(struct sessions *s, struct ses_op *op, struct sentry *e)
{
	enum ses_role role;
	int rc = rules_auth(s, e->id, e->token_hash,
			    op->has_token ? op->token_hash : NULL, &role,
			    op->actor_out);
	if (rc == SES_OK && role == SES_ROLE_READ)
		rc = SES_READ_ONLY;
	if (rc != SES_OK)
		return rc;
	if (op->if_match >= 0 && op->if_match != e->w.version) {
		op->current = e->w.version;
		return refuse(s, e, SES_STALE);
	}
	struct store_event ev = {
		.version = e->w.version + 1,
		.created_at = sessions_now_ms(),
		.actor = op->actor_out,
	};
	int64_t undo_top = e->w.undo_top, redo_top = e->w.redo_top;
	alg_t stored, *a = NULL;
	alg_node *nodes = NULL;
	char *text = NULL;
	int inverse = 0;
	switch (op->wkind) {
	case SES_MOVES:
		a = &op->alg;
		text = strdup(op->canonical);
		snprintf(ev.kind, sizeof ev.kind, "moves");
		ev.link = undo_top;
		undo_top = ev.version;
		redo_top = 0;
		break;
	case SES_UNDO:
		if (undo_top == 0)
			return refuse(s, e, SES_NOTHING_TO_UNDO);
		{
			struct store_event top;
			int grc = store_get_event(s->store, e->id, undo_top,
						  &top);
			if (grc != STORE_OK)
				return ses_of_store(grc);
			rc = moves_parse_stored(e->size, top.moves, &stored,
						&nodes);
			ev.link = redo_top;
			ev.ref = undo_top;
			undo_top = top.link;
			store_event_free(&top);
		}
		if (rc != SES_OK)
			return rc;
		a = &stored;
		inverse = 1;
		text = print_alg(a, 1);
		snprintf(ev.kind, sizeof ev.kind, "undo");
		redo_top = ev.version;
		break;
	case SES_REDO:
		if (redo_top == 0)
			return refuse(s, e, SES_NOTHING_TO_REDO);
		{
			struct store_event top;
			int grc = store_get_event(s->store, e->id, redo_top,
						  &top);
			if (grc != STORE_OK)
				return ses_of_store(grc);
			rc = stored_moves(s, e, top.ref, &stored, &nodes);
			ev.ref = top.ref;
			redo_top = top.link;
			store_event_free(&top);
		}
		if (rc != SES_OK)
			return rc;
		a = &stored;
		text = print_alg(a, 0);
		snprintf(ev.kind, sizeof ev.kind, "redo");
		ev.link = undo_top;
		undo_top = ev.version;
		break;
	case SES_RESET:
		text = strdup("");
		snprintf(ev.kind, sizeof ev.kind, "reset");
		undo_top = redo_top = 0;
		break;
	}
	if (!text) {
		free(nodes);
		return SES_NOMEM;
	}
	/* from here the working cube changes: any failure below leaves it to
	 * be rebuilt (RETRY reloads it, SES_STORE rolls the batch back) */
	e->w.valid = 0;
	uint64_t work = 0;
	if (a) {
		alg_apply(a, e->w.cube, inverse);
		work = moves_work(a, e->size);
	} else {
		rc = initial_state(s, e);
	}
	free(nodes);
	ev.moves = text;
	if (rc == SES_OK) {
		rc = store_append_event(s->store, e->id, &ev, undo_top,
					redo_top);
		if (rc == STORE_CONFLICT)
			rc = RETRY;
		else if (rc == STORE_NOT_FOUND)
			rc = SES_NOT_FOUND;
		else if (rc != STORE_OK)
			rc = ses_of_store(rc);
	}
	if (rc != SES_OK) {
		free(text);
		return rc;
	}
	e->w.version = ev.version;
	e->w.undo_top = undo_top;
	e->w.redo_top = redo_top;
	e->w.updated_at = ev.created_at;
	e->w.ops++;
	if (op->wkind == SES_RESET) {
		e->w.since_events = 0;
		e->w.since_work = 0;
	} else {
		e->w.since_events++;
		e->w.since_work += work;
	}
	if (op->wkind != SES_RESET &&
	    rules_snapshot_due(e->size, e->w.since_events, e->w.since_work)) {
		/* O(n²), once per max(32, n) events or 6n² stickers */
		size_t len = 6u * (size_t)e->size * (size_t)e->size;
		char *state = malloc(len);
		if (state)
			cube_to_facelets(e->w.cube, state);
		rc = state ? store_add_snapshot(s->store, e->id, ev.version,
						state, len)
			   : STORE_ERROR;
		free(state);
		if (rc != STORE_OK) {
			free(text);
			return ses_of_store(rc);
		}
		e->w.since_events = 0;
		e->w.since_work = 0;
		op->snapshots++;
	}
	/* the reply's state: the one copy of the cube a write makes */
	struct store_session meta = {
		.size = e->size,
		.created_at = e->w.last->created_at,
		.updated_at = ev.created_at,
		.version = ev.version,
		.undo_top = undo_top,
		.redo_top = redo_top,
		.title = e->w.last->title,
		.scramble = e->w.last->scramble,
		.is_private = e->w.last->is_private,
	};
	snprintf(meta.id, sizeof meta.id, "%s", e->id);
	struct session_state *st = sstate_new(&meta, e->w.cube);
	if (!st) {
		free(text);
		return SES_NOMEM;
	}
	session_state_release(e->w.last);
	e->w.last = st;
	e->w.valid = 1;
	op->result = session_state_retain(st);
	op->moves_out = text;
	memcpy(op->event_type, ev.kind, sizeof op->event_type);
	return SES_OK;
}

static int do_write(struct sessions *s, struct ses_op *op)
{
	int rc;
	if (!op->entry && (rc = cache_pin(s, op->id, &op->entry)) != SES_OK)
		return rc;
	struct sentry *e = op->entry;
	for (int attempt = 0;; attempt++) {
		if ((rc = working(s, e)) != SES_OK)
			return rc;
		rc = write_once(s, op, e);
		if (rc != RETRY)
			return rc;
		/* another writer's version: only possible before this
		 * transaction wrote to the session (it then holds the row).
		 * With other nodes writing the same session, each reload may
		 * meet yet another commit: a few more tries before giving up */
		if (attempt >= (s->shared ? 8 : 1) || e->w.ops > 0)
			return SES_STORE;
		op->conflicts++;
		if ((rc = cache_reload(s, e)) != SES_OK)
			return rc;
		e->w.checked = 1;
	}
}

/* -------------------------------------------------------------- the rest */

static int do_create(struct sessions *s, struct ses_op *op)
{
	if (s->max_sessions > 0) {
		int64_t count;
		int crc = store_count_sessions(s->store, &count);
		if (crc != STORE_OK)
			return ses_of_store(crc);
		if (count >= s->max_sessions)
			return SES_LIMIT;
	}
	struct session_state *st = op->start;
	struct store_session row = {
		.size = st->size,
		.created_at = st->created_at,
		.updated_at = st->created_at,
		.title = st->title,
		.scramble = st->scramble,
		.is_private = st->is_private,
	};
	if (token_new_secret(op->token_out) < 0)
		return SES_STORE;
	token_sha256(op->token_out, strlen(op->token_out), row.token_hash);
	struct store_event ev0 = {
		.kind = "create", .moves = "", .actor = (char *)op->actor,
		.created_at = st->created_at,
	};
	size_t len = 6u * (size_t)st->size * (size_t)st->size;
	int rc = STORE_ERROR;
	/* a collision of 128 random bits will not happen; retry once anyway
	 * rather than reason about it */
	for (int attempt = 0; attempt < 2; attempt++) {
		char id[23];
		if (token_new_id(id) < 0)
			return SES_STORE;
		snprintf(row.id, sizeof row.id, "%s", id);
		rc = store_create_session(s->store, &row, &ev0,
					  op->start_facelets, len);
		if (rc != STORE_CONFLICT)
			break;
	}
	if (rc != STORE_OK)
		return ses_of_store(rc);
	if (st->is_private) {
		struct store_token t = {.created_at = row.created_at};
		snprintf(t.role, sizeof t.role, "read");
		uint8_t h[TOKEN_HASH_LEN];
		if (token_new_secret(op->read_token_out) < 0)
			return SES_STORE;
		token_sha256(op->read_token_out, strlen(op->read_token_out), h);
		rc = store_add_token(s->store, row.id, &t, h);
		if (rc != STORE_OK)
			return ses_of_store(rc);
	}
	/* not shared with anyone yet: it takes its id now */
	snprintf(st->id, sizeof st->id, "%s", row.id);
	snprintf(op->id, sizeof op->id, "%s", row.id);
	op->entry = cache_new_entry(s, row.id, st->size, row.token_hash, st);
	if (!op->entry)
		return SES_NOMEM;
	op->result = session_state_retain(st);
	snprintf(op->actor_out, sizeof op->actor_out, "%s",
		 op->actor ? op->actor : "");
	return SES_OK;
}

/* SES_OK if op->token is the owner's token of session op->id. */
static int check_owner(struct sessions *s, struct ses_op *op)
{
	unsigned char owner[STORE_HASH_LEN];
	int rc = cache_peek(s, op->id, NULL, owner);
	if (rc != SES_OK)
		return rc;
	enum ses_role role;
	rc = rules_auth(s, op->id, owner, op->has_token ? op->token_hash : NULL,
			&role, NULL);
	if (rc == SES_OK && role != SES_ROLE_OWNER)
		rc = SES_NOT_OWNER;
	return rc;
}

static int do_delete(struct sessions *s, struct ses_op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	rc = store_delete_session(s->store, op->id);
	return rc == STORE_OK ? SES_OK
			      : rc == STORE_NOT_FOUND ? SES_NOT_FOUND
						      : ses_of_store(rc);
}

static int do_token(struct sessions *s, struct ses_op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	memset(&op->tok, 0, sizeof op->tok);
	snprintf(op->tok.role, sizeof op->tok.role, "%s",
		 op->role == SES_ROLE_WRITE ? "write" : "read");
	if (op->name)
		snprintf(op->tok.name, sizeof op->tok.name, "%s", op->name);
	op->tok.created_at = sessions_now_ms();
	if (token_new_secret(op->token_out) < 0)
		return SES_STORE;
	uint8_t h[TOKEN_HASH_LEN];
	token_sha256(op->token_out, strlen(op->token_out), h);
	rc = store_add_token(s->store, op->id, &op->tok, h);
	if (rc == STORE_CONFLICT)
		return SES_NAME_TAKEN;
	return rc == STORE_OK ? SES_OK : ses_of_store(rc);
}

static int do_revoke(struct sessions *s, struct ses_op *op)
{
	int rc = check_owner(s, op);
	if (rc != SES_OK)
		return rc;
	rc = store_revoke_token(s->store, op->id, op->tid, sessions_now_ms());
	if (rc == STORE_NOT_FOUND)
		return SES_NO_SUCH_TOKEN;
	return rc == STORE_OK ? SES_OK : ses_of_store(rc);
}

/* ------------------------------------------------- Idempotency-Key */

/* What a replay of op needs, as text (store.h: store_idem_keep): never a
 * state (a replay reads it back at its version), only what cannot be
 * read back: the new session's id and tokens, a minted token's secret,
 * the version a write made, the id of a solve or timed start. */
static void result_text(const struct ses_op *op, char *out, size_t cap)
{
	switch (op->kind) {
	case OP_WRITE:
		snprintf(out, cap, "w %lld %d %d",
			 (long long)op->result->version, op->result->can_undo,
			 op->result->can_redo);
		return;
	case OP_CREATE:
		snprintf(out, cap, "c %s %s %s %lld", op->id, op->token_out,
			 op->read_token_out[0] ? op->read_token_out : "-",
			 (long long)op->idem.extra);
		return;
	case OP_TOKEN:
		snprintf(out, cap, "t %lld %lld %s %s %s", (long long)op->tok.id,
			 (long long)op->tok.created_at, op->tok.role,
			 op->token_out, op->tok.name);
		return;
	case OP_TIMED:
		snprintf(out, cap, "m %lld", (long long)op->timed->id);
		return;
	case OP_SOLVE:
		snprintf(out, cap, "s %lld", (long long)op->solve->id);
		return;
	default:
		snprintf(out, cap, "-");
	}
}

/* op's fields from a kept result: SES_OK, or SES_STORE for text this
 * kind of op never keeps. */
static int replay_of(struct ses_op *op, const char *text)
{
	long long a = 0, b = 0, x = 0;
	int u = 0, r = 0, ok = 0;
	char id[STORE_ID_MAX], t1[36], t2[36], role[8], name[STORE_NAME_MAX];
	switch (op->kind) {
	case OP_WRITE:
		ok = sscanf(text, "w %lld %d %d", &a, &u, &r) == 3;
		op->r_version = a;
		op->r_undo = u;
		op->r_redo = r;
		break;
	case OP_CREATE:
		ok = sscanf(text, "c %47s %35s %35s %lld", id, t1, t2, &x) == 4;
		if (ok) {
			snprintf(op->id, sizeof op->id, "%s", id);
			snprintf(op->token_out, sizeof op->token_out, "%s", t1);
			snprintf(op->read_token_out, sizeof op->read_token_out,
				 "%s", strcmp(t2, "-") == 0 ? "" : t2);
			op->idem.extra = x;
		}
		break;
	case OP_TOKEN:
		ok = sscanf(text, "t %lld %lld %7s %35s %47s", &a, &b, role, t1,
			    name) == 5;
		if (ok) {
			memset(&op->tok, 0, sizeof op->tok);
			op->tok.id = a;
			op->tok.created_at = b;
			snprintf(op->tok.role, sizeof op->tok.role, "%s", role);
			snprintf(op->tok.name, sizeof op->tok.name, "%s", name);
			snprintf(op->token_out, sizeof op->token_out, "%s", t1);
		}
		break;
	case OP_TIMED:
		ok = sscanf(text, "m %lld", &a) == 1;
		op->timed->id = a;
		break;
	case OP_SOLVE:
		ok = sscanf(text, "s %lld", &a) == 1;
		op->solve->id = a;
		break;
	default:
		break;
	}
	return ok ? SES_OK : SES_STORE;
}

int rules_run_keyed(struct sessions *s, struct ses_op *op)
{
	op->replayed = 0;
	struct store_idem rec;
	int rc = store_idem_take(s->store, op->idem.scope, op->idem.print,
				 sessions_now_ms(), s->idem_ttl_ms, &rec);
	if (rc == STORE_CONFLICT) {
		/* a committed first request holds the key */
		if (memcmp(rec.print, op->idem.print, 32) != 0)
			rc = SES_IDEM_REUSED;
		else if (!rec.result || replay_of(op, rec.result) != SES_OK)
			rc = SES_STORE;
		else
			rc = SES_OK;
		op->replayed = rc == SES_OK;
		store_idem_free(&rec);
		return rc;
	}
	if (rc != STORE_OK)
		return ses_of_store(rc);
	rc = rules_run(s, op);
	if (rc == SES_OK) {
		char text[STORE_IDEM_RESULT_MAX];
		result_text(op, text, sizeof text);
		int k = store_idem_keep(s->store, op->idem.scope, text);
		return k == STORE_OK ? SES_OK
				     : k == STORE_NOT_FOUND ? SES_STORE
							    : ses_of_store(k);
	}
	if (!ses_store_failed(rc) && rc != SES_NOMEM) {
		/* refused: nothing was written, and the key is free again */
		int d = store_idem_drop(s->store, op->idem.scope);
		if (d != STORE_OK)
			return ses_of_store(d);
	}
	return rc;
}

int rules_run(struct sessions *s, struct ses_op *op)
{
	switch (op->kind) {
	case OP_CREATE:
		return do_create(s, op);
	case OP_WRITE:
		return do_write(s, op);
	case OP_DELETE:
		return do_delete(s, op);
	case OP_SOLVE: {
		int rc = store_add_solve(s->store, op->id, op->solve,
					 &op->solve->id);
		return rc == STORE_OK ? SES_OK : ses_of_store(rc);
	}
	case OP_TIMED: {
		int rc = store_add_timed(s->store, op->id, op->timed,
					 &op->timed->id);
		return rc == STORE_OK ? SES_OK : ses_of_store(rc);
	}
	case OP_TOKEN:
		return do_token(s, op);
	case OP_REVOKE:
		return do_revoke(s, op);
	}
	return SES_STORE;
}
