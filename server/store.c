/* store.c — the store interface's front (store.h): picks the engine at
 * open from the database address, then forwards each call to it. Also the
 * *_free functions, which are the same for every engine. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_engine.h"

struct store {
	const struct store_engine *eng;
	void *impl;
	unsigned caps;
};

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
		return rc;
	}
	*out = st;
	return STORE_OK;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	st->eng->close(st->impl);
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

int store_lock_sessions(struct store *st, const char *const *ids, int n)
{
	if (!st->eng->lock_sessions || n <= 0)
		return STORE_OK;
	return st->eng->lock_sessions(st->impl, ids, n);
}

int store_idem_claim(struct store *st, const unsigned char *scope,
		     const unsigned char *print, int64_t now, int64_t ttl_ms,
		     struct store_idem *out)
{
	if (!st->eng->idem_claim)
		return STORE_NO_ENGINE;
	return st->eng->idem_claim(st->impl, scope, print, now, ttl_ms, out);
}

int store_idem_finish(struct store *st, const unsigned char *scope,
		      const struct store_idem *answer)
{
	if (!st->eng->idem_finish)
		return STORE_NO_ENGINE;
	return st->eng->idem_finish(st->impl, scope, answer);
}

int store_idem_abort(struct store *st, const unsigned char *scope)
{
	if (!st->eng->idem_abort)
		return STORE_NO_ENGINE;
	return st->eng->idem_abort(st->impl, scope);
}

void store_idem_free(struct store_idem *r)
{
	free(r->content_type);
	free(r->headers);
	free(r->body);
	r->content_type = r->headers = r->body = NULL;
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

int store_ping(struct store *st) { return st->eng->ping(st->impl); }
int store_begin(struct store *st) { return st->eng->begin(st->impl); }
int store_commit(struct store *st) { return st->eng->commit(st->impl); }
int store_rollback(struct store *st) { return st->eng->rollback(st->impl); }

int store_create_session(struct store *st, const struct store_session *s,
			 const struct store_event *ev0, const char *state,
			 size_t len)
{
	return st->eng->create_session(st->impl, s, ev0, state, len);
}

int store_get_session(struct store *st, const char *id,
		      struct store_session *out)
{
	return st->eng->get_session(st->impl, id, out);
}

int store_session_version(struct store *st, const char *id, int64_t *version)
{
	return st->eng->session_version(st->impl, id, version);
}

int store_append_event(struct store *st, const char *id,
		       const struct store_event *e, int64_t undo_top,
		       int64_t redo_top)
{
	return st->eng->append_event(st->impl, id, e, undo_top, redo_top);
}

int store_add_snapshot(struct store *st, const char *id, int64_t version,
		       const char *state, size_t len)
{
	return st->eng->add_snapshot(st->impl, id, version, state, len);
}

int store_replay_base(struct store *st, const char *id, int64_t at,
		      int64_t *base, char **state, size_t *len)
{
	return st->eng->replay_base(st->impl, id, at, base, state, len);
}

int store_get_event(struct store *st, const char *id, int64_t version,
		    struct store_event *out)
{
	return st->eng->get_event(st->impl, id, version, out);
}

int store_events_after(struct store *st, const char *id, int64_t after,
		       struct store_event *out, int cap)
{
	return st->eng->events_after(st->impl, id, after, out, cap);
}

int store_delete_session(struct store *st, const char *id)
{
	return st->eng->delete_session(st->impl, id);
}

int store_count_sessions(struct store *st, int64_t *count)
{
	return st->eng->count_sessions(st->impl, count);
}

int store_add_solve(struct store *st, const char *session_id,
		    const struct store_solve *s, int64_t *out_id)
{
	return st->eng->add_solve(st->impl, session_id, s, out_id);
}

int store_list_solves(struct store *st, const char *session_id, int64_t after,
		      struct store_solve *out, int cap)
{
	return st->eng->list_solves(st->impl, session_id, after, out, cap);
}

int store_add_token(struct store *st, const char *session_id,
		    struct store_token *t, const unsigned char *hash)
{
	return st->eng->add_token(st->impl, session_id, t, hash);
}

int store_find_token(struct store *st, const char *session_id,
		     const unsigned char *hash, struct store_token *out)
{
	return st->eng->find_token(st->impl, session_id, hash, out);
}

int store_list_tokens(struct store *st, const char *session_id,
		      struct store_token *out, int cap)
{
	return st->eng->list_tokens(st->impl, session_id, out, cap);
}

int store_revoke_token(struct store *st, const char *session_id, int64_t id,
		       int64_t when)
{
	return st->eng->revoke_token(st->impl, session_id, id, when);
}

void store_session_free(struct store_session *s)
{
	free(s->title);
	s->title = NULL;
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
