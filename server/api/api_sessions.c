/* api_sessions.c — the /v1/sessions routes: create, read (at any version),
 * write (moves, undo, redo, reset), delete, fork, history. Handlers parse
 * the request, call the session layer (sessions.h), map its result to a
 * reply. Every session reply carries ETag "v<version>"; writes need the
 * session's write token (Authorization: Bearer …) and honour If-Match. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api_internal.h"
#include "events.h"
#include "jsonout.h"
#include "timefmt.h"
#include "problem.h"
#include "sessions.h"
#include "solve.h"
#include "token.h"

#define HISTORY_DEFAULT 100
#define HISTORY_MAX 1000

/* ---- request pieces --------------------------------------------------- */

static const char *header(const struct api_request *rq, const char *name)
{
	return rq->header ? rq->header(rq->header_cls, name) : NULL;
}

/* An entity-tag list ("v3", W/"v3", "v3", "v4" or *) against a version:
 * returns 1 if one of them names it. any is set for "*". */
static int etag_matches(const char *list, int64_t version, int *any)
{
	*any = 0;
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '*') {
			*any = 1;
			return 1;
		}
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		if (*p == '"' && p[1] == 'v') {
			char *end;
			long long v = strtoll(p + 2, &end, 10);
			if (end != p + 2 && *end == '"' && v == version)
				return 1;
		}
		while (*p && *p != ',')
			p++;
	}
	return 0;
}

/* The version an If-Match names, or -1 for none / "*". A value that names
 * no version of this form can never match: -2. */
static int64_t if_match_version(const struct api_request *rq)
{
	const char *h = header(rq, "If-Match");
	if (!h)
		return -1;
	while (*h == ' ')
		h++;
	if (strcmp(h, "*") == 0)
		return -1;
	if (h[0] == 'W' && h[1] == '/')
		h += 2;
	if (h[0] != '"' || h[1] != 'v')
		return -2;
	char *end;
	long long v = strtoll(h + 2, &end, 10);
	if (end == h + 2 || *end != '"' || v < 0)
		return -2;
	return v;
}

/* ---- replies ---------------------------------------------------------- */


static void set_etag(struct api_reply *rp, int64_t version)
{
	api_reply_header(rp, "ETag", "\"v%" PRId64 "\"", version);
}

/* The session as JSON, its state in the representations asked for. */
json_t *api__session_json(const struct api_config *cfg,
			  const struct session_view *v, unsigned want,
			  const char *field, struct api_reply *rp)
{
	json_t *o = json_pack("{s:s, s:i, s:I, s:o, s:o, s:o, s:s, s:b, s:b, "
			      "s:i}",
			      "id", v->id, "size", v->size, "version",
			      (json_int_t)v->version, "title",
			      v->title ? json_string(v->title) : json_null(),
			      "created_at", timefmt_json(v->created_at),
			      "updated_at", timefmt_json(v->updated_at),
			      "visibility", v->is_private ? "private" : "public",
			      "can_undo", v->can_undo, "can_redo", v->can_redo,
			      "watchers",
			      cfg->events ? events_watchers(cfg->events, v->id)
					  : 0);
	if (!o) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return NULL;
	}
	if (want == REPR_BIT(REPR_FACELETS)) {
		json_object_set_new(o, "facelets", json_string(v->facelets));
		return o;
	}
	cube_t *c = malloc(cube_sizeof(v->size));
	if (!c || cube_from_facelets(c, v->size, v->facelets,
				     strlen(v->facelets), NULL) < 0) {
		free(c);
		json_decref(o);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "a stored state could not be read");
		return NULL;
	}
	int rc = api__set_reprs(o, want, c, NULL, NULL, field, rp);
	free(c);
	if (rc < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The default session reply (facelets only) written as text straight
 * away: the same members, in the same order, as session_json gives for
 * REPR_FACELETS. Leaves the object open for the caller's extra members. */
static void session_text(jsonw *w, const struct api_config *cfg,
			 const struct session_view *v)
{
	char created[TIMEFMT_LEN + 1], updated[TIMEFMT_LEN + 1];
	timefmt_iso_ms(v->created_at, created);
	timefmt_iso_ms(v->updated_at, updated);
	jsonw_object(w);
	jsonw_key(w, "id");
	jsonw_string(w, v->id);
	jsonw_key(w, "size");
	jsonw_int(w, v->size);
	jsonw_key(w, "version");
	jsonw_int(w, v->version);
	jsonw_key(w, "title");
	jsonw_string(w, v->title);
	jsonw_key(w, "created_at");
	jsonw_stringn(w, created, TIMEFMT_LEN);
	jsonw_key(w, "updated_at");
	jsonw_stringn(w, updated, TIMEFMT_LEN);
	jsonw_key(w, "visibility");
	jsonw_string(w, v->is_private ? "private" : "public");
	jsonw_key(w, "can_undo");
	jsonw_bool(w, v->can_undo);
	jsonw_key(w, "can_redo");
	jsonw_bool(w, v->can_redo);
	jsonw_key(w, "watchers");
	jsonw_int(w, cfg->events ? events_watchers(cfg->events, v->id) : 0);
	jsonw_key(w, "facelets");
	jsonw_string(w, v->facelets);
}

char *api__session_text(const struct api_config *cfg,
			const struct session_view *v, size_t *len)
{
	jsonw w;
	jsonw_init(&w);
	session_text(&w, cfg, v);
	jsonw_end(&w);
	return jsonw_finish(&w, len);
}

/* A private session is read with one of its tokens (the owner's, a
 * write token or a read token); to anyone else it does not exist. token
 * is the one the request presents. Returns 0 if this request may read a
 * session that is_private says is (or is not) private, else -1 with rp
 * the 404. */
/* format (a representation name) and include (comma list) for GETs. */
static int query_reprs(const struct api__query *q, int n, unsigned *want,
		       struct api_reply *rp)
{
	static const unsigned formats = REPR_BIT(REPR_FACELETS) |
					REPR_BIT(REPR_FACES) |
					REPR_BIT(REPR_CUBIE) |
					REPR_BIT(REPR_INDEX);
	static const unsigned includes =
		REPR_BIT(REPR_FACELETS) | REPR_BIT(REPR_FACES) |
		REPR_BIT(REPR_CUBIE) | REPR_BIT(REPR_INDEX) |
		REPR_BIT(REPR_ORIENTATION) | REPR_BIT(REPR_FEATURES) |
		REPR_BIT(REPR_RENDER);
	*want = 0;
	const char *f = api__query_get(q, "format");
	enum repr r = REPR_FACELETS;
	if (f) {
		int found = 0;
		for (int i = 0; i < REPR_COUNT; i++)
			if ((formats & REPR_BIT(i)) && strcmp(repr_name(i), f) == 0) {
				r = (enum repr)i;
				found = 1;
			}
		if (!found) {
			api__bad_field(rp, PROBLEM_BAD_FORMAT, "format",
				       "format must be facelets, faces, cubie "
				       "or index");
			return -1;
		}
	}
	if (api__repr_check(r, n, "format", rp) < 0)
		return -1;
	*want |= REPR_BIT(r);
	const char *inc = api__query_get(q, "include");
	if (inc && *inc) {
		json_t *arr = json_array();
		const char *p = inc;
		while (*p) {
			const char *comma = strchr(p, ',');
			size_t len = comma ? (size_t)(comma - p) : strlen(p);
			json_array_append_new(arr, json_stringn(p, len));
			p = comma ? comma + 1 : p + len;
		}
		unsigned extra = 0;
		int rc = api__include_arg(arr, includes, &extra, rp);
		json_decref(arr);
		if (rc < 0)
			return -1;
		for (int i = 0; i < REPR_COUNT; i++)
			if ((extra & REPR_BIT(i)) &&
			    api__repr_check((enum repr)i, n, "include", rp) < 0)
				return -1;
		*want |= extra;
	}
	return 0;
}

/* ---- handlers --------------------------------------------------------- */

void api__session_create(const struct api_config *cfg,
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"size", FIELD_INT, 0},       {"facelets", FIELD_STRING, 0},
		{"scramble", FIELD_STRING_OR_TRUE, 0}, {"seed", FIELD_INT, 0},
		{"title", FIELD_STRING, 0},   {"visibility", FIELD_STRING, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 6, rp) < 0)
		return;
	const json_t *jsize = json_object_get(a->body, "size");
	const json_t *jf = json_object_get(a->body, "facelets");
	const json_t *js = json_object_get(a->body, "scramble");
	const json_t *jseed = json_object_get(a->body, "seed");
	const json_t *jtitle = json_object_get(a->body, "title");
	const json_t *jvis = json_object_get(a->body, "visibility");
	int n = 0;
	if (!jsize && !jf) {
		api__bad_field(rp, PROBLEM_MISSING_FIELD, "size",
			       "give \"size\", \"facelets\" (a start state), "
			       "or both");
		return;
	}
	if (jsize && api__size_arg(jsize, &n, rp) < 0)
		return;
	cube_t *start = api__start_state(n, jf, rp);
	if (!start)
		return;
	n = start->n;
	char *scramble = NULL;
	size_t scramble_len = 0;
	uint64_t seed = 0;
	struct session_view v;
	memset(&v, 0, sizeof v);
	if (n > cfg->max_session_size) {
		json_t *p = api__bad_field(
			rp, PROBLEM_SIZE_OUT_OF_RANGE, jsize ? "size" : "facelets",
			"sessions hold cubes up to %d×%d (--max-session-size)",
			cfg->max_session_size, cfg->max_session_size);
		if (p)
			json_object_set_new(p, "limit",
					    json_integer(cfg->max_session_size));
		goto out;
	}
	if (jseed && !json_is_true(js)) {
		api__bad_field(rp, PROBLEM_SEED_WITHOUT_SCRAMBLE, "seed",
			       "seed is for \"scramble\": true");
		goto out;
	}
	if (jseed && json_integer_value(jseed) < 0) {
		api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, "seed",
			       "seed must be a whole number from 0");
		goto out;
	}
	int is_private = 0;
	if (jvis) {
		const char *v = json_string_value(jvis);
		if (strcmp(v, "private") == 0)
			is_private = 1;
		else if (strcmp(v, "public") != 0) {
			api__bad_field(rp, PROBLEM_BAD_VISIBILITY, "visibility",
				       "visibility must be public or private");
			goto out;
		}
	}
	if (jtitle && json_string_length(jtitle) > 200) {
		api__bad_field(rp, PROBLEM_TOO_LONG, "title",
			       "title is at most 200 bytes");
		goto out;
	}

	/* A random scramble: random moves of the WCA length for the size,
	 * from a seed the reply returns so it can be replayed. Either kind
	 * is applied to the start state here: version 0 is the result. */
	if (js && json_is_true(js)) {
		if (jseed) {
			seed = (uint64_t)json_integer_value(jseed);
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			char raw[23];
			if (token_new_id(raw) == 0)
				seed = (uint64_t)ts.tv_nsec ^
				       ((uint64_t)raw[0] << 56) ^
				       ((uint64_t)raw[5] << 40) ^
				       ((uint64_t)raw[9] << 24) ^
				       ((uint64_t)raw[13] << 8);
			seed &= ((uint64_t)1 << 53) - 1; /* exact in JSON */
		}
		cube_rng r;
		cube_rng_seed(&r, seed);
		int len = n >= 2 ? scramble_length(n) : 0;
		cube_move *m = malloc((size_t)(len > 0 ? len : 1) * sizeof *m);
		int count = n >= 2 && m ? scramble_moves(&r, n, m, len) : 0;
		if (count < 0)
			count = 0;
		size_t need = moves_print(m, (size_t)count, n, NULL, 0);
		scramble = malloc(need + 1);
		if (scramble)
			moves_print(m, (size_t)count, n, scramble, need + 1);
		scramble_len = need;
		if (count > 0)
			cube_apply_moves(start, m, (size_t)count);
		free(m);
	} else if (js) {
		/* notation errors answered here with their offsets */
		alg_limits lim;
		api__limits(cfg, &lim);
		struct api__parsed pa;
		if (api__parse_moves(json_string_value(js), json_string_length(js),
				     n, &lim, &pa, rp) < 0) {
			/* the parser names "moves"; here they are the scramble */
			if (rp->json && json_object_get(rp->json, "field"))
				json_object_set_new(rp->json, "field",
						    json_string("scramble"));
			goto out;
		}
		alg_apply(&pa.a, start, 0);
		free(pa.nodes);
		scramble = strndup(json_string_value(js), json_string_length(js));
		scramble_len = json_string_length(js);
	}

	struct session_create c = {
		.size = n,
		.start = start,
		.title = jtitle ? json_string_value(jtitle) : NULL,
		.scramble_text = scramble,
		.is_private = is_private,
		.actor = "owner",
		.idem = a->idem,
	};
	if (a->idem)
		a->idem->extra = (int64_t)seed;
	char token[36], read_token[36] = "";
	int rc = sessions_create(cfg->sessions, &c, &v, token, read_token);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		goto out;
	}
	if (v.replayed) {
		/* the first request's session: its scramble and seed */
		seed = (uint64_t)a->idem->extra;
		free(scramble);
		scramble = v.scramble ? strdup(v.scramble) : NULL;
		scramble_len = scramble ? strlen(scramble) : 0;
	}
	json_t *o = api__session_json(cfg, &v, REPR_BIT(REPR_FACELETS), "facelets", rp);
	if (o) {
		json_object_set_new(o, "write_token", json_string(token));
		if (read_token[0])
			json_object_set_new(o, "read_token",
					    json_string(read_token));
		if (scramble)
			json_object_set_new(o, "scramble",
					    json_stringn(scramble, scramble_len));
		if (js && json_is_true(js))
			json_object_set_new(o, "seed", json_integer((json_int_t)seed));
		api_reply_json(rp, 201, o);
		set_etag(rp, v.version);
		api_reply_header(rp, "Location", "/v1/sessions/%s", v.id);
		rp->stored = v.stored;
		api__idem_mark(a, rp);
	}
out:
	free(start);
	free(scramble);
	session_view_free(&v);
}

void api__session_get(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	static const char *const allowed[] = {"version", "format", "include",
					      NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t version = -1;
	if (api__query_int(&q, "version", &version, rp) < 0)
		return;
	struct session_view v;
	if (api__session_read(cfg, a->id, version, a->token, &v, rp) < 0)
		return;
	unsigned want;
	if (query_reprs(&q, v.size, &want, rp) < 0) {
		session_view_free(&v);
		return;
	}
	const char *inm = header(rq, "If-None-Match");
	int any;
	if (inm && etag_matches(inm, v.version, &any)) {
		rp->status = 304;
		set_etag(rp, v.version);
		session_view_free(&v);
		return;
	}
	/* a read (not a write's reply) also says how version 0 was made */
	if (want == REPR_BIT(REPR_FACELETS)) {
		/* the common case, without a json_t */
		size_t len = 0;
		jsonw w;
		jsonw_init(&w);
		session_text(&w, cfg, &v);
		if (v.scramble) {
			jsonw_key(&w, "scramble");
			jsonw_string(&w, v.scramble);
		}
		jsonw_end(&w);
		char *text = jsonw_finish(&w, &len);
		api_reply_json_text(rp, 200, text, len);
		if (text)
			set_etag(rp, v.version);
		session_view_free(&v);
		return;
	}
	json_t *o = api__session_json(cfg, &v, want, "facelets", rp);
	if (o && v.scramble)
		json_object_set_new(o, "scramble", json_string(v.scramble));
	if (o) {
		api_reply_json(rp, 200, o);
		set_etag(rp, v.version);
	}
	session_view_free(&v);
}

void api__session_delete(const struct api_config *cfg,
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	(void)rq;
	const char *token = a->token;
	int rc = sessions_delete(cfg->sessions, a->id, token);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	rp->status = 204;
}

static void written_reply(const struct api_config *cfg,
			  enum ses_write_kind kind, int rc,
			  struct session_view *v, char *text,
			  struct api_reply *rp);
static void write_finish(const struct api_config *cfg, struct api_pending *p,
			 struct api_reply *rp);
static void write_abandon(struct api_pending *p);

/* moves / undo / redo / reset */
static void session_write(const struct api_config *cfg,
			  const struct api_request *rq,
			  const struct api_args *a, enum ses_write_kind kind,
			  struct api_reply *rp)
{
	const char *id = a->id;
	const json_t *body = a->body;
	const char *moves = NULL;
	size_t moves_len = 0;
	if (kind == SES_MOVES) {
		static const struct api__field fields[] = {
			{"moves", FIELD_STRING, 1},
		};
		if (api__check_fields(body, NULL, fields, 1, rp) < 0)
			return;
		const json_t *jm = json_object_get(body, "moves");
		moves = json_string_value(jm);
		moves_len = json_string_length(jm);
	} else if (body && json_object_size(body) != 0) {
		static const struct api__field none[] = {{"", FIELD_INT, 0}};
		if (api__check_fields(body, NULL, none, 0, rp) < 0)
			return;
	}
	const char *token = a->token;
	int64_t if_match = if_match_version(rq);

	/* the size, to parse the moves for; not the state (nor, with other
	 * nodes, a read of the session row: a size never changes) */
	int size = 0;
	int rc = sessions_size(cfg->sessions, id, &size);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	/* An entity tag of another form can never match, and notation
	 * errors are answered here, with their offsets, before the write
	 * queues; but only to a caller with the token (401 and 403 come
	 * first, as the writer would answer them), so that no one else
	 * learns the session's version or size this way. The token is
	 * checked only on these error paths: the writer checks it anyway.
	 * The moves are parsed once, here: the writer applies this parse. */
	struct session_write w = {
		.kind = kind, .id = id, .token = token, .if_match = if_match,
		.idem = a->idem,
	};
	int refuse = if_match == -2;
	if (!refuse && kind == SES_MOVES) {
		alg_limits lim;
		api__limits(cfg, &lim);
		struct api__parsed pa;
		refuse = api__parse_moves(moves, moves_len, size, &lim,
					  &pa, rp) < 0;
		w.alg = pa.a;
		w.nodes = pa.nodes;
	}
	if (refuse) {
		enum ses_role role;
		rc = sessions_auth(cfg->sessions, id, token, &role, NULL);
		if (rc == SES_OK && role == SES_ROLE_READ)
			rc = SES_READ_ONLY;
		struct session_meta cur;
		if (rc == SES_OK && if_match == -2)
			rc = sessions_meta(cfg->sessions, id, &cur);
		if (rc != SES_OK) {
			api__session_problem(rp, rc, NULL);
		} else if (if_match == -2) {
			struct session_view stale = {.version = cur.version};
			api__session_problem(rp, SES_STALE, &stale);
		}
		/* else rp is the notation problem */
		free(w.nodes);
		return;
	}
	if (rq->done) {
		/* answered when the writer is done (api_finish) */
		struct api_pending *p = calloc(1, sizeof *p);
		if (p)
			p->work = sessions_write_begin(cfg->sessions, &w,
						       rq->done, rq->done_ctx);
		free(w.nodes);
		if (!p || !p->work) {
			free(p);
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
				      "out of memory");
			return;
		}
		p->kind = kind;
		p->finish = write_finish;
		p->abandon = write_abandon;
		rp->pending = p;
		return;
	}
	struct session_view v;
	memset(&v, 0, sizeof v);
	char *text = NULL;
	rc = sessions_write(cfg->sessions, &w, &v, &text);
	int replayed = v.replayed;
	written_reply(cfg, kind, rc, &v, text, rp);
	if (rc == SES_OK && a->idem)
		rp->idem = replayed ? IDEM_STORED_REPLAY : IDEM_STORED;
}

/* The reply of a pending write the writer has finished (api_finish). */
static void write_finish(const struct api_config *cfg, struct api_pending *p,
			 struct api_reply *rp)
{
	struct session_view v;
	memset(&v, 0, sizeof v);
	char *text = NULL;
	int rc = sessions_write_end(p->work, &v, &text);
	p->work = NULL;
	int replayed = v.replayed;
	written_reply(cfg, (enum ses_write_kind)p->kind, rc, &v, text, rp);
	/* keyed (the router set unkept): the store keeps the result */
	if (rc == SES_OK && p->unkept)
		rp->idem = replayed ? IDEM_STORED_REPLAY : IDEM_STORED;
}

/* A pending write whose answer nobody will take (api_pending_free). */
static void write_abandon(struct api_pending *p)
{
	if (p->work)
		sessions_write_abandon(p->work);
	p->work = NULL;
}

/* The reply to a write that ended with rc (v and text are released). */
static void written_reply(const struct api_config *cfg,
			  enum ses_write_kind kind, int rc,
			  struct session_view *v, char *text,
			  struct api_reply *rp)
{
	if (rc != SES_OK) {
		api__session_problem(rp, rc, v);
		session_view_free(v);
		free(text);
		return;
	}
	static const char *const names[] = {"moves", "undo", "redo", "reset"};
	char at[TIMEFMT_LEN + 1];
	timefmt_iso_ms(v->updated_at, at);
	jsonw w;
	jsonw_init(&w);
	session_text(&w, cfg, v);
	jsonw_key(&w, "event");
	jsonw_object(&w);
	jsonw_key(&w, "version");
	jsonw_int(&w, v->version);
	jsonw_key(&w, "type");
	jsonw_string(&w, names[kind]);
	jsonw_key(&w, "moves");
	jsonw_string(&w, text ? text : "");
	jsonw_key(&w, "actor");
	jsonw_string(&w, v->actor);
	jsonw_key(&w, "created_at");
	jsonw_stringn(&w, at, TIMEFMT_LEN);
	jsonw_end(&w);
	jsonw_end(&w);
	size_t len = 0;
	char *body = jsonw_finish(&w, &len);
	api_reply_json_text(rp, 200, body, len);
	if (body)
		set_etag(rp, v->version);
	rp->stored = v->stored;
	free(text);
	session_view_free(v);
}

void api__session_moves(const struct api_config *cfg,
			const struct api_request *rq, const struct api_args *a,
			struct api_reply *rp)
{
	session_write(cfg, rq, a, SES_MOVES, rp);
}

void api__session_undo(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	session_write(cfg, rq, a, SES_UNDO, rp);
}

void api__session_redo(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	session_write(cfg, rq, a, SES_REDO, rp);
}

void api__session_reset(const struct api_config *cfg,
			const struct api_request *rq, const struct api_args *a,
			struct api_reply *rp)
{
	session_write(cfg, rq, a, SES_RESET, rp);
}

void api__session_fork(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	(void)rq;
	int64_t version = -1;
	if (a->body) {
		static const struct api__field fields[] = {
			{"version", FIELD_INT, 0},
		};
		if (api__check_fields(a->body, NULL, fields, 1, rp) < 0)
			return;
		const json_t *jv = json_object_get(a->body, "version");
		if (jv) {
			version = json_integer_value(jv);
			if (version < 0) {
				api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, "version",
					       "version must be from 0");
				return;
			}
		}
	}
	/* forking reads the source: a private one needs its token */
	struct session_meta src;
	int rc = sessions_meta(cfg->sessions, a->id, &src);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	if (api__may_read(cfg, a->id, src.is_private, a->token, rp) < 0)
		return;
	/* no version: the one read now, so the reply can name it */
	if (version < 0)
		version = src.version;
	struct session_view v;
	char token[36];
	if (a->idem)
		a->idem->extra = version;
	rc = sessions_fork(cfg->sessions, a->id, version, "owner", &v, token,
			   a->idem);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	if (v.replayed)
		version = a->idem->extra; /* the version the first one forked */
	json_t *o = api__session_json(cfg, &v, REPR_BIT(REPR_FACELETS), "facelets", rp);
	if (o) {
		json_object_set_new(o, "write_token", json_string(token));
		json_object_set_new(o, "forked_from",
				    json_pack("{s:s, s:I}", "id", a->id, "version",
					      (json_int_t)version));
		api_reply_json(rp, 201, o);
		set_etag(rp, v.version);
		api_reply_header(rp, "Location", "/v1/sessions/%s", v.id);
		rp->stored = v.stored;
		api__idem_mark(a, rp);
	}
	session_view_free(&v);
}

void api__session_history(const struct api_config *cfg,
			  const struct api_request *rq,
			  const struct api_args *a, struct api_reply *rp)
{
	static const char *const allowed[] = {"after", "limit", NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t after = -1, limit = HISTORY_DEFAULT;
	int has_after = api__query_int(&q, "after", &after, rp);
	if (has_after < 0 || api__query_int(&q, "limit", &limit, rp) < 0)
		return;
	if (!has_after)
		after = -1;
	if (limit < 1 || limit > HISTORY_MAX) {
		json_t *p = api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, "limit",
					   "limit is from 1 to %d", HISTORY_MAX);
		if (p)
			json_object_set_new(p, "limit", json_integer(HISTORY_MAX));
		return;
	}
	struct session_meta cur;
	int rc = sessions_meta(cfg->sessions, a->id, &cur);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	if (api__may_read(cfg, a->id, cur.is_private, a->token, rp) < 0)
		return;
	int64_t version = cur.version;
	/* one more than asked, to know whether there is a next page */
	struct store_event *ev = malloc((size_t)(limit + 1) * sizeof *ev);
	if (!ev) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	int k = sessions_history(cfg->sessions, a->id, after, ev, (int)limit + 1);
	if (k < 0) {
		free(ev);
		api__session_problem(rp, k, NULL);
		return;
	}
	json_t *arr = json_array();
	int shown = k > limit ? (int)limit : k;
	for (int i = 0; i < shown; i++) {
		json_array_append_new(
			arr, json_pack("{s:I, s:s, s:s, s:o, s:o}", "version",
				       (json_int_t)ev[i].version, "type",
				       ev[i].kind, "moves", ev[i].moves,
				       "actor",
				       ev[i].actor ? json_string(ev[i].actor)
						   : json_null(),
				       "created_at", timefmt_json(ev[i].created_at)));
	}
	json_t *next = k > limit ? json_integer(ev[shown - 1].version)
				 : json_null();
	/* the session's version as of this read (a write that landed between
	 * the two reads shows in the page) */
	if (k > 0 && ev[k - 1].version > version)
		version = ev[k - 1].version;
	for (int i = 0; i < k; i++)
		store_event_free(&ev[i]);
	free(ev);
	api_reply_json(rp, 200, json_pack("{s:o, s:o}", "events", arr, "next",
					  next));
	if (rp->status == 200)
		set_etag(rp, version);
}

/* GET /v1/sessions/{id}/events: a Server-Sent Events stream. The version
 * to replay after is Last-Event-ID (what a reconnecting browser sends) or
 * ?after=; without either the stream starts with the current state.
 * Browsers' EventSource cannot send headers, so a private session's token
 * may also come as ?token=. */
void api__session_events(const struct api_config *cfg,
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	if (!cfg->events) {
		problem_reply(rp, PROBLEM_NO_EVENTS,
			      "live events are off on this server");
		return;
	}
	static const char *const allowed[] = {"after", "token", "ticket",
					      NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t after = -1;
	int has_after = api__query_int(&q, "after", &after, rp);
	if (has_after < 0)
		return;
	const char *field = "after";
	const char *lei = header(rq, "Last-Event-ID");
	if (lei) {
		/* the browser's own bookmark wins over the URL's */
		size_t digits = strspn(lei, "0123456789");
		if (digits == 0 || digits > 18 || lei[digits] != '\0') {
			api__bad_field(rp, PROBLEM_WRONG_TYPE, "Last-Event-ID",
				       "Last-Event-ID must be a version (a "
				       "whole number from 0)");
			return;
		}
		after = strtoll(lei, NULL, 10);
		has_after = 1;
		field = "Last-Event-ID";
	}
	if (!has_after)
		after = -1;
	struct session_meta v;
	int rc = sessions_meta(cfg->sessions, a->id, &v);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	/* EventSource cannot send headers: a read token or a stream ticket
	 * may come in the URL instead, never a write token (api_tickets.c) */
	int granted;
	const char *token = a->token;
	if (api__url_credential(cfg, a->id, v.is_private,
				api__query_get(&q, "token"),
				api__query_get(&q, "ticket"), &token, &granted,
				rp) < 0 ||
	    (!granted && api__may_read(cfg, a->id, v.is_private, token, rp) < 0))
		return;
	int64_t version = v.version;
	int n = v.size;
	if (after > version) {
		json_t *p = api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, field,
					   "%s is %" PRId64 ", past the "
					   "session's version %" PRId64,
					   field, after, version);
		if (p)
			json_object_set_new(p, "current_version",
					    json_integer(version));
		return;
	}
	rp->status = 200;
	rp->content_type = "text/event-stream";
	api_reply_header(rp, "Cache-Control", "no-store");
	api_reply_header(rp, "X-Accel-Buffering", "no");
	set_etag(rp, version);
	if (strcmp(rq->method, "HEAD") == 0)
		return;
	struct watcher *w;
	rc = events_subscribe(cfg->events, cfg->sessions, a->id, n, after, &w);
	if (rc == EVENTS_OK) {
		rp->stream = w;
		rp->stream_close = events_detach;
		return;
	}
	rp->status = 500;
	rp->content_type = NULL;
	rp->nheaders = 0;
	if (rc == EVENTS_FULL) {
		problem_reply(rp, PROBLEM_TOO_MANY_WATCHERS,
			      "the server has as many live streams open as it "
			      "may (--max-watchers); try again later");
		api_reply_header(rp, "Retry-After", "5");
	} else if (rc == EVENTS_CLOSING) {
		api__session_problem(rp, SES_SHUTDOWN, NULL);
	} else if (rc == EVENTS_GONE) {
		api__session_problem(rp, SES_NOT_FOUND, NULL);
	} else {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
	}
}

/* ---- tokens ----------------------------------------------------------- */

static json_t *token_json(const struct store_token *t)
{
	return json_pack("{s:I, s:s, s:s, s:o, s:o}", "id", (json_int_t)t->id,
			 "role", t->role, "name", t->name, "created_at",
			 timefmt_json(t->created_at), "revoked_at",
			 t->revoked_at ? timefmt_json(t->revoked_at) : json_null());
}

/* A token name: 1 to 40 of letters, digits, '-', '_', '.', not "owner". */
static int name_ok(const char *s, size_t len)
{
	if (len == 0 || len > 40 || strcmp(s, "owner") == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		      c == '.'))
			return 0;
	}
	return 1;
}

/* POST /v1/sessions/{id}/tokens {"role": "write"|"read", "name"?}: the
 * owner mints a token for a co-player (write) or a watcher (read). */
void api__session_token_add(const struct api_config *cfg,
			    const struct api_request *rq,
			    const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"role", FIELD_STRING, 1},
		{"name", FIELD_STRING, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 2, rp) < 0)
		return;
	const char *r = json_string_value(json_object_get(a->body, "role"));
	enum ses_role role;
	if (strcmp(r, "write") == 0)
		role = SES_ROLE_WRITE;
	else if (strcmp(r, "read") == 0)
		role = SES_ROLE_READ;
	else {
		api__bad_field(rp, PROBLEM_BAD_ROLE, "role",
			       "role must be \"write\" or \"read\"");
		return;
	}
	const json_t *jn = json_object_get(a->body, "name");
	if (jn && !name_ok(json_string_value(jn), json_string_length(jn))) {
		api__bad_field(rp, PROBLEM_BAD_NAME, "name",
			       "name is 1 to 40 letters, digits, '-', '_' or "
			       "'.', and not \"owner\"");
		return;
	}
	const char *token = a->token;
	struct store_token t;
	char secret[36];
	int rc = sessions_add_token(cfg->sessions, a->id, token, role,
				    jn ? json_string_value(jn) : NULL, &t,
				    secret, a->idem);
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	json_t *o = token_json(&t);
	if (o)
		json_object_set_new(o, "token", json_string(secret));
	api_reply_json(rp, 201, o);
	if (rp->status == 201) {
		api_reply_header(rp, "Location", "/v1/sessions/%s/tokens/%" PRId64,
				 a->id, t.id);
		api__idem_mark(a, rp);
	}
}

#define TOKENS_MAX 1000

/* GET /v1/sessions/{id}/tokens: the owner's list (never the secrets). */
void api__session_tokens(const struct api_config *cfg,
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	struct api__query q;
	static const char *const none[] = {NULL};
	if (api__query_parse(rq->query, none, &q, rp) < 0)
		return;
	struct store_token *t = malloc(TOKENS_MAX * sizeof *t);
	if (!t) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	int k = sessions_list_tokens(cfg->sessions, a->id, a->token, t,
				     TOKENS_MAX);
	if (k < 0) {
		free(t);
		api__session_problem(rp, k, NULL);
		return;
	}
	json_t *arr = json_array();
	for (int i = 0; i < k; i++)
		json_array_append_new(arr, token_json(&t[i]));
	free(t);
	api_reply_json(rp, 200, json_pack("{s:o}", "tokens", arr));
}

/* DELETE /v1/sessions/{id}/tokens/{tid}: the owner revokes a token; its
 * next request is refused (403), its past writes keep its name. */
void api__session_token_revoke(const struct api_config *cfg,
			       const struct api_request *rq,
			       const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	int64_t tid = a->tid;
	int rc = sessions_revoke_token(cfg->sessions, a->id, a->token, tid);
	if (rc == SES_NO_SUCH_TOKEN) {
		problem_reply(rp, PROBLEM_NO_SUCH_TOKEN,
			      "this session has no live token %" PRId64, tid);
		return;
	}
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	rp->status = 204;
}
