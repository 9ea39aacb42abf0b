/* api.c — routing, replies and the request checks every route shares, for
 * cubed's HTTP API on plain structs (no libmicrohttpd here), so everything
 * a client can observe except the socket is testable without a server.
 * The routes' handlers live in api_moves.c (/v1/apply, /v1/alg),
 * api_convert.c (/v1/convert, /v1/validate), api_patterns.c (/v1/match,
 * /v1/patterns, /v1/pieces) and api_sessions.c; what they share — strict
 * body fields, query strings, size, start state, moves, include lists,
 * representations and the problems each answers — is here, declared in
 * api_internal.h. */
#include <ctype.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_internal.h"
#include "events.h"
#include "idempotency.h"
#include "metrics.h"
#include "problem.h"
#include "sessions.h"
#include "solver.h"
#include "static.h"
#include "store.h"
#include "token.h"
#include "version.h"

/* ---- replies ---------------------------------------------------------- */

void api_reply_init(struct api_reply *rp)
{
	/* every member but the header values, which only count up to
	 * nheaders (4 KiB of zeroes per request otherwise) */
	memset(rp, 0, offsetof(struct api_reply, headers));
	rp->route = NULL;
	rp->stream = NULL;
	rp->pending = NULL;
	rp->status = 500;
}

void api_reply_free(struct api_reply *rp)
{
	json_decref(rp->json);
	rp->json = NULL;
	free(rp->owned);
	rp->owned = NULL;
	events_detach(rp->stream);
	rp->stream = NULL;
	/* a pending write nobody will answer: wait is not possible here, so
	 * the caller must only free replies whose done was called */
	api_pending_free(rp->pending);
	rp->pending = NULL;
}

int api_reply_header(struct api_reply *rp, const char *name, const char *fmt,
		     ...)
{
	if (rp->nheaders >= API_MAX_HEADERS)
		return -1;
	struct api_header *h = &rp->headers[rp->nheaders++];
	h->name = name;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->value, sizeof h->value, fmt, ap);
	va_end(ap);
	return 0;
}

void api_reply_json(struct api_reply *rp, int status, json_t *body)
{
	if (body == NULL) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "the server ran out of memory building the reply");
		return;
	}
	json_decref(rp->json);
	rp->json = body;
	rp->raw = NULL;
	rp->raw_len = 0;
	rp->status = status;
	rp->content_type = "application/json";
}

void api_reply_json_text(struct api_reply *rp, int status, char *text,
			 size_t len)
{
	if (text == NULL) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "the server ran out of memory building the reply");
		return;
	}
	json_decref(rp->json);
	rp->json = NULL;
	free(rp->owned);
	rp->owned = text;
	rp->raw = text;
	rp->raw_len = len;
	rp->status = status;
	rp->content_type = "application/json";
}

json_int_t api__clamp_int(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v;
}

/* ---- JSON body validation --------------------------------------------- */

json_t *api__bad_field(struct api_reply *rp, const char *code,
		       const char *field, const char *detail, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, detail);
	vsnprintf(text, sizeof text, detail, ap);
	va_end(ap);
	json_t *p = problem_reply(rp, PROBLEM_INVALID_REQUEST, code, "%s", text);
	if (p && field)
		json_object_set_new(p, "field", json_string(field));
	return p;
}

static const char *field_type_name(enum api__field_type t)
{
	switch (t) {
	case FIELD_INT:
		return "an integer";
	case FIELD_STRING:
		return "a string";
	case FIELD_ARRAY:
		return "an array";
	case FIELD_OBJECT:
		return "an object";
	case FIELD_STRING_OR_TRUE:
		return "a string or true";
	case FIELD_BOOL:
		return "true or false";
	}
	return "?";
}

static int field_type_ok(enum api__field_type t, const json_t *v)
{
	switch (t) {
	case FIELD_INT:
		return json_is_integer(v);
	case FIELD_STRING:
		return json_is_string(v);
	case FIELD_ARRAY:
		return json_is_array(v);
	case FIELD_OBJECT:
		return json_is_object(v);
	case FIELD_STRING_OR_TRUE:
		return json_is_string(v) || json_is_true(v);
	case FIELD_BOOL:
		return json_is_boolean(v);
	}
	return 0;
}

int api__check_fields(const json_t *obj, const char *prefix,
		      const struct api__field *f, size_t nf,
		      struct api_reply *rp)
{
	char name[160];
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)obj, key, val) {
		size_t i = 0;
		while (i < nf && strcmp(f[i].name, key) != 0)
			i++;
		snprintf(name, sizeof name, "%s%s%.100s", prefix ? prefix : "",
			 prefix ? "." : "", key);
		if (i == nf) {
			api__bad_field(rp, "unknown_field", name,
				       "unknown field \"%s\"", name);
			return -1;
		}
		if (!field_type_ok(f[i].type, val)) {
			api__bad_field(rp, "wrong_type", name,
				       "field \"%s\" must be %s", name,
				       field_type_name(f[i].type));
			return -1;
		}
	}
	for (size_t i = 0; i < nf; i++) {
		if (f[i].required && json_object_get(obj, f[i].name) == NULL) {
			snprintf(name, sizeof name, "%s%s%s",
				 prefix ? prefix : "", prefix ? "." : "",
				 f[i].name);
			api__bad_field(rp, "missing_field", name,
				       "field \"%s\" is required", name);
			return -1;
		}
	}
	return 0;
}

int api__size_arg(const json_t *v, int *n, struct api_reply *rp)
{
	json_int_t x = json_integer_value(v);
	if (x < CUBE_MIN_N || x > CUBE_MAX_N) {
		api__bad_field(rp, "size_out_of_range", "size",
			       "size must be between %d and %d, got "
			       "%" JSON_INTEGER_FORMAT,
			       CUBE_MIN_N, CUBE_MAX_N, x);
		return -1;
	}
	*n = (int)x;
	return 0;
}

/* Content-Type must be absent or application/json, optionally with a
 * charset=utf-8 parameter (case-insensitive, quoted or not). */
static int json_media_type_ok(const char *ct)
{
	static const char mt[] = "application/json";
	if (ct == NULL)
		return 1;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	if (strncasecmp(ct, mt, sizeof mt - 1) != 0)
		return 0;
	ct += sizeof mt - 1;
	for (;;) {
		while (*ct == ' ' || *ct == '\t')
			ct++;
		if (*ct == '\0')
			return 1;
		if (*ct++ != ';')
			return 0;
		while (*ct == ' ' || *ct == '\t')
			ct++;
		if (strncasecmp(ct, "charset=", 8) != 0)
			return 0;
		ct += 8;
		int quoted = *ct == '"';
		ct += quoted;
		if (strncasecmp(ct, "utf-8", 5) != 0)
			return 0;
		ct += 5;
		if (quoted && *ct++ != '"')
			return 0;
	}
}

/* ---- query strings ---------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A 422 about the query parameter q[0..klen) (shown up to 40 bytes):
 * "<before> "name"<after>". */
static void query_problem(struct api_reply *rp, const char *code,
			  const char *q, size_t klen, const char *before,
			  const char *after)
{
	char name[48];
	problem_utf8_clean(name, sizeof name, q, klen < 40 ? klen : 40);
	json_t *p = problem_reply(rp, PROBLEM_INVALID_REQUEST, code,
				  "%s\"%s\"%s", before, name, after);
	if (p)
		json_object_set_new(p, "field", json_string(name));
}

int api__query_parse(const char *q, const char *const *allowed,
		     struct api__query *out, struct api_reply *rp)
{
	out->n = 0;
	while (q && *q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', len);
		size_t klen = eq ? (size_t)(eq - q) : len;
		if (len == 0) {
			q = amp ? amp + 1 : q + len;
			continue;
		}
		int known = 0;
		for (int i = 0; allowed[i]; i++)
			if (strlen(allowed[i]) == klen &&
			    klen < sizeof out->key[0] &&
			    memcmp(allowed[i], q, klen) == 0)
				known = 1;
		if (!known || out->n == API_QUERY_MAX) {
			query_problem(rp, "unknown_parameter", q, klen,
				      "unknown query parameter ", "");
			return -1;
		}
		for (int i = 0; i < out->n; i++)
			if (strlen(out->key[i]) == klen &&
			    memcmp(out->key[i], q, klen) == 0) {
				query_problem(rp, "duplicate_parameter", q,
					      klen, "query parameter ",
					      " is given more than once");
				return -1;
			}
		memcpy(out->key[out->n], q, klen);
		out->key[out->n][klen] = '\0';
		size_t o = 0;
		for (size_t i = eq ? klen + 1 : len; i < len; i++) {
			char c = q[i];
			if (c == '+')
				c = ' ';
			else if (c == '%' && i + 2 < len &&
				 hexval(q[i + 1]) >= 0 && hexval(q[i + 2]) >= 0) {
				c = (char)(hexval(q[i + 1]) * 16 + hexval(q[i + 2]));
				i += 2;
			}
			/* a NUL would cut the value short; a long value would
			 * be truncated: refuse both rather than read less */
			if (c == '\0' || o == API_QUERY_VALUE_MAX - 1) {
				query_problem(rp, "bad_parameter", q, klen,
					      "query parameter ",
					      c ? " is too long"
						: " contains a NUL byte");
				return -1;
			}
			out->val[out->n][o++] = c;
		}
		out->val[out->n][o] = '\0';
		out->n++;
		q = amp ? amp + 1 : q + len;
	}
	return 0;
}

const char *api__query_get(const struct api__query *q, const char *key)
{
	for (int i = 0; i < q->n; i++)
		if (strcmp(q->key[i], key) == 0)
			return q->val[i];
	return NULL;
}

int api__query_int(const struct api__query *q, const char *key, int64_t *out,
		   struct api_reply *rp)
{
	const char *v = api__query_get(q, key);
	if (!v)
		return 0;
	/* digits only: strtoll alone would take " 3" and "+3" */
	size_t digits = strspn(v, "0123456789");
	long long x = strtoll(v, NULL, 10); /* past INT64_MAX: INT64_MAX */
	if (digits == 0 || v[digits] != '\0') {
		api__bad_field(rp, "wrong_type", key,
			       "query parameter \"%s\" must be a whole number "
			       "from 0",
			       key);
		return -1;
	}
	*out = x;
	return 1;
}

/* ---- representations -------------------------------------------------- */

/* "a", "a or b", "a, b or c" of the representations in mask. */
static void repr_list(unsigned mask, char *out, size_t cap)
{
	size_t len = 0;
	int total = 0, seen = 0;
	out[0] = '\0';
	for (int r = 0; r < REPR_COUNT; r++)
		total += (mask & REPR_BIT(r)) != 0;
	for (int r = 0; r < REPR_COUNT && len < cap; r++) {
		if (!(mask & REPR_BIT(r)))
			continue;
		seen++;
		const char *sep = seen == 1 ? "" : seen == total ? " or " : ", ";
		len += (size_t)snprintf(out + len, cap - len, "%s\"%s\"", sep,
					repr_name(r));
	}
}

int api__include_arg(const json_t *v, unsigned allowed, unsigned *want,
		     struct api_reply *rp)
{
	char names[160];
	unsigned seen = 0;
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e)) {
			api__bad_field(rp, "wrong_type", "include",
				       "include[%zu] must be a string", i);
			return -1;
		}
		int r = repr_lookup(json_string_value(e), json_string_length(e));
		if (r < 0 || !(allowed & REPR_BIT(r))) {
			repr_list(allowed, names, sizeof names);
			char shown[64];
			problem_utf8_clean(shown, sizeof shown,
					   json_string_value(e),
					   json_string_length(e));
			api__bad_field(rp, "bad_include", "include",
				       "include[%zu] is \"%s\"; the values "
				       "allowed here are %s",
				       i, shown, names);
			return -1;
		}
		if (seen & REPR_BIT(r)) {
			api__bad_field(rp, "bad_include", "include",
				       "include lists \"%s\" twice",
				       repr_name(r));
			return -1;
		}
		seen |= REPR_BIT(r);
	}
	*want |= seen;
	return 0;
}

int api__repr_check(enum repr r, int n, const char *field,
		    struct api_reply *rp)
{
	if (!repr_applies(r, n)) {
		api__bad_field(rp, "not_applicable", field,
			       "\"%s\" exists for %s cubes only, not for size "
			       "%d",
			       repr_name(r),
			       r == REPR_FEATURES ? "3×3" : "2×2 and 3×3", n);
		return -1;
	}
	int max = repr_max_n(r);
	if (max && n > max) {
		json_t *p = problem_reply(rp, PROBLEM_LIMIT_EXCEEDED,
					  "too_large_for_representation",
					  "\"%s\" is built for cubes up to size "
					  "%d, not %d",
					  repr_name(r), max, n);
		json_object_set_new(p, "limit", json_integer(max));
		json_object_set_new(p, "field", json_string(field));
		return -1;
	}
	return 0;
}

void api__invalid_cube(struct api_reply *rp, const char *field,
		       json_t *errors, const char *detail)
{
	json_t *p = problem_reply(rp, PROBLEM_INVALID_CUBE, NULL, "%s", detail);
	if (p == NULL) {
		json_decref(errors);
		return;
	}
	json_object_set_new(p, "field", json_string(field));
	json_object_set_new(p, "errors", errors);
}

int api__cubies_of(const cube_t *c, const char *field, struct repr_cubies *out,
		   struct api_reply *rp)
{
	char s[54];
	size_t len = 6 * (size_t)c->n * (size_t)c->n;
	if (c->n != 2 && c->n != 3) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "a size %d cube has no cubie form", c->n);
		return -1;
	}
	cube_to_facelets(c, s);
	int rcode = repr_cubies_from_facelets(s, len, out);
	if (rcode == CUBE_OK)
		return 0;
	cube_validation_result res;
	json_t *errors = rcode == CUBE_EINVALID
				 ? repr_validation_errors(s, len, REPR_MAX_ERRORS,
							 &res)
				 : NULL;
	if (errors == NULL || res.count == 0) {
		json_decref(errors);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, cube_errname(rcode),
			      "reading the cubies of a %d×%d failed (%s), but "
			      "validation finds nothing wrong",
			      c->n, c->n, cube_strerror(rcode));
		return -1;
	}
	/* "the facelets are not a legal cube: twist, parity" */
	char detail[256];
	size_t k = (size_t)snprintf(detail, sizeof detail,
				    "the %s %s not a legal cube:", field,
				    strcmp(field, "facelets") == 0 ? "are" : "is");
	size_t i;
	json_t *e;
	json_array_foreach(errors, i, e) {
		if (k < sizeof detail)
			k += (size_t)snprintf(
				detail + k, sizeof detail - k, "%s %s",
				i ? "," : "",
				json_string_value(json_object_get(e, "code")));
	}
	api__invalid_cube(rp, field, errors, detail);
	return -1;
}

/* One representation of c (rc: its cubies when the representation needs
 * them). */
static json_t *build_repr(enum repr r, const cube_t *c,
			  const struct repr_cubies *rc, const alg_t *a)
{
	switch (r) {
	case REPR_FACELETS:
		return repr_facelets(c);
	case REPR_CUBIE:
		return repr_cubie(rc);
	case REPR_INDEX:
		return repr_index(rc);
	case REPR_ORIENTATION:
		return repr_orientation(&rc->orient);
	case REPR_FACES:
		return repr_faces(c);
	case REPR_FEATURES:
		return rc->n == 3 ? repr_features(&rc->c3) : NULL;
	case REPR_RENDER:
		return repr_render(c);
	case REPR_ANIMATION:
		return a ? repr_animation(a) : NULL;
	case REPR_COUNT:
		break;
	}
	return NULL;
}

int api__set_reprs(json_t *obj, unsigned want, const cube_t *c,
		   const struct repr_cubies *rc, const alg_t *a,
		   const char *field, struct api_reply *rp)
{
	struct repr_cubies own;
	if ((want & REPR_NEEDS_CUBIES) && rc == NULL) {
		if (api__cubies_of(c, field, &own, rp) < 0)
			return -1;
		rc = &own;
	}
	for (int r = 0; r < REPR_COUNT; r++) {
		if (!(want & REPR_BIT(r)))
			continue;
		json_t *v = build_repr(r, c, rc, a);
		if (v == NULL || json_object_set_new(obj, repr_name(r), v) < 0) {
			problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
				      "building \"%s\" failed (out of memory)",
				      repr_name(r));
			return -1;
		}
	}
	return 0;
}

/* ---- states and moves ------------------------------------------------- */

void api__limits(const struct api_config *cfg, alg_limits *lim)
{
	alg_limits_default(lim);
	lim->max_moves = cfg->max_moves;
	lim->max_work = cfg->max_work;
}

/* Turn a parse error into the reply: limits → limit_exceeded with the limit
 * that was hit, anything else → invalid_notation with where and what. */
static void notation_problem(const alg_limits *lim, const char *s, size_t len,
			     int code, const alg_error *e,
			     struct api_reply *rp)
{
	json_t *p;
	if (code == ALG_ELONG) {
		p = problem_reply(rp, PROBLEM_LIMIT_EXCEEDED, cube_errname(code),
				  "the moves expand to more than %" PRIu64
				  " moves, the server's limit per request (or "
				  "repeat pauses or empty brackets past the walk "
				  "that limit allows)",
				  lim->max_moves);
		json_object_set_new(p, "limit",
				    json_integer(api__clamp_int(lim->max_moves)));
		json_object_set_new(p, "field", json_string("moves"));
		return;
	}
	if (code == ALG_EWORK) {
		p = problem_reply(rp, PROBLEM_LIMIT_EXCEEDED, cube_errname(code),
				  "applying the moves would move more than "
				  "%" PRIu64 " stickers, the server's limit "
				  "per request",
				  lim->max_work);
		json_object_set_new(p, "limit",
				    json_integer(api__clamp_int(lim->max_work)));
		json_object_set_new(p, "field", json_string("moves"));
		return;
	}
	if (code == CUBE_EINVAL || code == CUBE_ESPACE || code >= 0) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "the notation parser failed: %s",
			      cube_strerror(code));
		return;
	}

	/* The token is client text: quote it only if it is in range, and in
	 * the sentence only if it is short. */
	const char *tok = NULL;
	size_t tlen = 0;
	if (e->token_len > 0 && e->byte_offset <= len &&
	    e->token_len <= len - e->byte_offset) {
		tok = s + e->byte_offset;
		tlen = e->token_len;
	}
	if (code == ALG_ETOKEN && tok && tlen <= 64)
		p = problem_reply(rp, PROBLEM_INVALID_NOTATION,
				  cube_errname(code),
				  "unknown token \"%.*s\" at offset %zu",
				  (int)tlen, tok, e->offset);
	else if (tok && tlen <= 64)
		p = problem_reply(rp, PROBLEM_INVALID_NOTATION,
				  cube_errname(code), "%s: \"%.*s\" at offset %zu",
				  cube_strerror(code), (int)tlen, tok,
				  e->offset);
	else
		p = problem_reply(rp, PROBLEM_INVALID_NOTATION,
				  cube_errname(code), "%s at offset %zu",
				  cube_strerror(code), e->offset);
	if (p == NULL)
		return;
	json_object_set_new(p, "field", json_string("moves"));
	json_object_set_new(p, "offset", json_integer(api__clamp_int(e->offset)));
	if (tok) {
		char *clean = malloc(tlen + 1);
		if (clean) {
			size_t cl = problem_utf8_clean(clean, tlen + 1, tok,
						       tlen);
			json_object_set_new(p, "token",
					    json_stringn(clean, cl));
			free(clean);
		}
	}
}

int api__parse_moves(const char *s, size_t len, int n, const alg_limits *lim,
		     struct api__parsed *out, struct api_reply *rp)
{
	size_t cap = alg_nodes_needed(len);
	out->nodes = malloc((cap ? cap : 1) * sizeof *out->nodes);
	if (out->nodes == NULL) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "out of memory parsing %zu bytes of moves", len);
		return -1;
	}
	alg_error e = {0};
	int rc = alg_parse(&out->a, out->nodes, cap, n, s, len, lim, &e);
	if (rc < 0) {
		notation_problem(lim, s, len, rc, &e, rp);
		free(out->nodes);
		out->nodes = NULL;
		return -1;
	}
	return 0;
}

/* Length, then size agreement, then letters: the order the contract gives. */
cube_t *api__start_state(int n, const json_t *jf, struct api_reply *rp)
{
	if (jf == NULL) {
		cube_t *c = malloc(cube_sizeof(n));
		if (c == NULL || cube_init(c, n) < 0) {
			free(c);
			problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
				      "could not make a cube of size %d", n);
			return NULL;
		}
		return c;
	}

	const char *s = json_string_value(jf);
	size_t len = json_string_length(jf);
	int fn = cube_size_from_length(len);
	if (fn < 0) {
		json_t *p = problem_reply(
			rp, PROBLEM_INVALID_FACELETS, cube_errname(fn),
			"facelets has %zu characters; it needs 6·n² letters "
			"for a size n from %d to %d (54 for 3×3)",
			len, CUBE_MIN_N, CUBE_MAX_N);
		json_object_set_new(p, "field", json_string("facelets"));
		return NULL;
	}
	if (n != 0 && n != fn) {
		json_t *p = problem_reply(
			rp, PROBLEM_INVALID_REQUEST, "size_mismatch",
			"facelets has %zu letters, which is a size %d cube, "
			"but size is %d (6·%d² = %lu letters)",
			len, fn, n, n, 6ul * (unsigned long)n * (unsigned long)n);
		json_object_set_new(p, "field", json_string("facelets"));
		return NULL;
	}
	cube_t *c = malloc(cube_sizeof(fn));
	if (c == NULL) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "out of memory for a cube of size %d", fn);
		return NULL;
	}
	size_t bad = 0;
	int rc = cube_from_facelets(c, fn, s, len, &bad);
	if (rc < 0) {
		free(c);
		json_t *p;
		if (rc == CUBE_ELETTER && bad < len)
			p = problem_reply(rp, PROBLEM_INVALID_FACELETS,
					  cube_errname(rc),
					  "facelets has \"%c\" at offset %zu; "
					  "only the letters U R F D L B are "
					  "allowed",
					  isprint((unsigned char)s[bad]) ? s[bad]
									 : '?',
					  bad);
		else
			p = problem_reply(rp, PROBLEM_INVALID_FACELETS,
					  cube_errname(rc), "%s",
					  cube_strerror(rc));
		if (p == NULL)
			return NULL;
		json_object_set_new(p, "field", json_string("facelets"));
		/* Every byte before the bad one is an ASCII letter, so the byte
		 * offset is also the character offset. */
		if (rc == CUBE_ELETTER)
			json_object_set_new(p, "offset",
					    json_integer((json_int_t)bad));
		return NULL;
	}
	return c;
}

/* ---- printed algorithms ----------------------------------------------- */

static size_t print_text(enum api__text_kind k,
			 const struct api__text_src *src, char *out, size_t cap)
{
	switch (k) {
	case TEXT_CANONICAL:
		return alg_print_canonical(src->a, out, cap);
	case TEXT_INVERSE:
		return alg_print_inverse(src->a, out, cap);
	case TEXT_EXPANDED:
		return alg_print_expanded(src->a, 0, out, cap);
	case TEXT_MOVES:
		return moves_print(src->m, src->count, src->n, out, cap);
	}
	return 0;
}

/* A printed algorithm as a JSON string, or NULL if memory ran out. Short
 * texts (the common case) never touch the heap. */
json_t *api__text_json(enum api__text_kind k, const struct api__text_src *src)
{
	char small[256];
	size_t need = print_text(k, src, small, sizeof small);
	if (need < sizeof small)
		return json_stringn(small, need);
	char *big = malloc(need + 1);
	if (big == NULL)
		return NULL;
	print_text(k, src, big, need + 1);
	json_t *s = json_stringn(big, need);
	free(big);
	return s;
}

/* ---- routing ---------------------------------------------------------- */

typedef void get_handler(const struct api_config *cfg,
			 const struct api_request *rq, struct api_reply *rp);

static void get_healthz(const struct api_config *cfg,
			const struct api_request *rq, struct api_reply *rp)
{
	(void)cfg;
	(void)rq;
	api_reply_json(rp, 200, json_pack("{s:s}", "status", "ok"));
}

/* GET /version: which build answers, for bug reports and rollouts. */
static void get_version(const struct api_config *cfg,
			const struct api_request *rq, struct api_reply *rp)
{
	(void)cfg;
	(void)rq;
	struct version_info v;
	version_get(&v);
	api_reply_json(rp, 200,
		       json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:s}}",
				 "name", "cubed", "version", v.version, "commit",
				 v.commit, "libraries", "libmicrohttpd",
				 v.libmicrohttpd, "jansson", v.jansson,
				 "sqlite", v.sqlite, "zlib", v.zlib, "brotli",
				 v.brotli));
}

static void get_openapi(const struct api_config *cfg,
			const struct api_request *rq, struct api_reply *rp)
{
	(void)rq;
	if (cfg->openapi == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND, NULL,
			      "this server was started without its "
			      "openapi.yaml (see --openapi)");
		return;
	}
	rp->status = 200;
	rp->content_type = "application/yaml";
	rp->raw = cfg->openapi;
	rp->raw_len = cfg->openapi_len;
	/* the same bytes until the server restarts with another contract:
	 * kept five minutes, then checked again by its ETag */
	rp->cache_max_age = 300;
}

/* The web page: "/" and "/assets/{file}" (static.c). */
static void get_page(const struct api_config *cfg,
		     const struct api_request *rq, struct api_reply *rp)
{
	web_serve(cfg->web, rq, rp);
}

/* The solver tables' state, for /readyz. */
static json_t *solver_json(const struct api_config *cfg)
{
	json_t *o = json_object();
	static const char *const names[] = {"3x3", "2x2"};
	for (int t = 0; t < SOLVER_NTABLES; t++) {
		const char *state, *reason;
		int percent;
		solver_status(cfg->solver, (enum solver_table)t, &state,
			      &percent, &reason);
		if (!cfg->solver)
			state = "off";
		json_t *e = json_pack("{s:s}", "tables", state);
		if (strcmp(state, "building") == 0)
			json_object_set_new(e, "percent", json_integer(percent));
		if (reason && cfg->solver)
			json_object_set_new(e, "reason", json_string(reason));
		json_object_set_new(o, names[t], e);
	}
	return o;
}

/* Ready = the database answers. The solver's tables are reported but do
 * not gate readiness: only solving waits for them (503 + Retry-After). */
static void get_readyz(const struct api_config *cfg,
		       const struct api_request *rq, struct api_reply *rp)
{
	(void)rq;
	if (!cfg->store) {
		api_reply_json(rp, 200,
			       json_pack("{s:s, s:s, s:o}", "status", "ready",
					 "database", "none", "solver",
					 solver_json(cfg)));
		return;
	}
	if (store_ping(cfg->store) != STORE_OK) {
		json_t *p = problem_reply(rp, PROBLEM_UNAVAILABLE, "database",
					  "the database does not answer: %s",
					  store_last_error(cfg->store));
		if (p)
			json_object_set_new(p, "database", json_string("down"));
		api_reply_header(rp, "Retry-After", "1");
		return;
	}
	api_reply_json(rp, 200,
		       json_pack("{s:s, s:s, s:i, s:s, s:o}", "status", "ready",
				 "database", "ok", "schema_version",
				 store_schema_version(cfg->store), "engine",
				 store_engine_name(cfg->store), "solver",
				 solver_json(cfg)));
}

static void get_metrics(const struct api_config *cfg,
			const struct api_request *rq, struct api_reply *rp)
{
	(void)rq;
	if (!cfg->metrics) {
		problem_reply(rp, PROBLEM_UNAVAILABLE, "no_metrics",
			      "metrics are off on this server");
		return;
	}
	struct metrics_buf b = {0};
	metrics_render(cfg->metrics, &b);
	metrics_render_build(&b);
	metrics_render_process(&b);
	if (cfg->sessions) {
		struct sessions_stats st;
		sessions_stats(cfg->sessions, &st);
		int64_t count = -1;
		if (cfg->store)
			store_count_sessions(cfg->store, &count);
		metrics_printf(&b,
			       "# HELP cubed_sessions Sessions in the database.\n"
			       "# TYPE cubed_sessions gauge\n"
			       "cubed_sessions %lld\n"
			       "# HELP cubed_events_appended_total Events "
			       "committed to session histories.\n"
			       "# TYPE cubed_events_appended_total counter\n"
			       "cubed_events_appended_total %llu\n"
			       "# HELP cubed_commits_total Write transactions "
			       "committed.\n"
			       "# TYPE cubed_commits_total counter\n"
			       "cubed_commits_total %llu\n"
			       "# HELP cubed_writes_total Writes taken by the "
			       "writer (committed or refused).\n"
			       "# TYPE cubed_writes_total counter\n"
			       "cubed_writes_total %llu\n"
			       "# HELP cubed_commit_batch_size Writes per "
			       "transaction.\n"
			       "# TYPE cubed_commit_batch_size histogram\n",
			       (long long)count,
			       (unsigned long long)st.events_appended,
			       (unsigned long long)st.commits,
			       (unsigned long long)st.writes);
		static const char *const le[] = {"1", "3", "7", "15", "63",
						 "+Inf"};
		uint64_t cum = 0;
		for (int i = 0; i < 6; i++) {
			cum += st.batch_hist[i];
			metrics_printf(&b,
				       "cubed_commit_batch_size_bucket{le=\"%s\"} %llu\n",
				       le[i], (unsigned long long)cum);
		}
		metrics_printf(&b,
			       "cubed_commit_batch_size_sum %llu\n"
			       "cubed_commit_batch_size_count %llu\n"
			       "# HELP cubed_session_cache_hits_total Reads "
			       "served from the session cache.\n"
			       "# TYPE cubed_session_cache_hits_total counter\n"
			       "cubed_session_cache_hits_total %llu\n"
			       "# HELP cubed_session_cache_misses_total Reads "
			       "that went to the database.\n"
			       "# TYPE cubed_session_cache_misses_total counter\n"
			       "cubed_session_cache_misses_total %llu\n",
			       (unsigned long long)st.writes,
			       (unsigned long long)cum,
			       (unsigned long long)st.cache_hits,
			       (unsigned long long)st.cache_misses);
		metrics_printf(&b,
			       "# HELP cubed_session_cache_entries Sessions "
			       "held in memory.\n"
			       "# TYPE cubed_session_cache_entries gauge\n"
			       "cubed_session_cache_entries %llu\n"
			       "# HELP cubed_session_cache_bytes Bytes they "
			       "hold (states, working cubes).\n"
			       "# TYPE cubed_session_cache_bytes gauge\n"
			       "cubed_session_cache_bytes %llu\n"
			       "# HELP cubed_snapshots_total Snapshot rows "
			       "written.\n"
			       "# TYPE cubed_snapshots_total counter\n"
			       "cubed_snapshots_total %llu\n"
			       "# HELP cubed_write_conflicts_total Writes that "
			       "found another writer's version and were "
			       "evaluated again.\n"
			       "# TYPE cubed_write_conflicts_total counter\n"
			       "cubed_write_conflicts_total %llu\n"
			       "# HELP cubed_writer_cpu_seconds_total CPU "
			       "time of the session writer thread.\n"
			       "# TYPE cubed_writer_cpu_seconds_total counter\n"
			       "cubed_writer_cpu_seconds_total %.6f\n",
			       (unsigned long long)st.cache_entries,
			       (unsigned long long)st.cache_bytes,
			       (unsigned long long)st.snapshots,
			       (unsigned long long)st.conflicts,
			       (double)st.writer_cpu_ns / 1e9);
	}
	if (cfg->events) {
		struct events_stats es;
		events_stats(cfg->events, &es);
		metrics_printf(&b,
			       "# HELP cubed_watchers Live event streams open.\n"
			       "# TYPE cubed_watchers gauge\n"
			       "cubed_watchers %llu\n"
			       "# HELP cubed_events_published_total Events "
			       "sent to sessions with watchers.\n"
			       "# TYPE cubed_events_published_total counter\n"
			       "cubed_events_published_total %llu\n"
			       "# HELP cubed_events_replayed_total Events "
			       "replayed from the store after Last-Event-ID.\n"
			       "# TYPE cubed_events_replayed_total counter\n"
			       "cubed_events_replayed_total %llu\n"
			       "# HELP cubed_watchers_cut_off_total Streams "
			       "ended because their watcher fell too far "
			       "behind.\n"
			       "# TYPE cubed_watchers_cut_off_total counter\n"
			       "cubed_watchers_cut_off_total %llu\n",
			       (unsigned long long)es.watchers,
			       (unsigned long long)es.published,
			       (unsigned long long)es.replayed,
			       (unsigned long long)es.cut_off);
	}
	if (cfg->idem)
		metrics_printf(&b,
			       "# HELP cubed_idempotency_keys Idempotency-Key "
			       "answers kept.\n"
			       "# TYPE cubed_idempotency_keys gauge\n"
			       "cubed_idempotency_keys %zu\n",
			       idem_count(cfg->idem));
	if (b.failed || !b.data) {
		free(b.data);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL, "out of memory");
		return;
	}
	rp->status = 200;
	rp->content_type = "text/plain; version=0.0.4; charset=utf-8";
	rp->owned = b.data;
	rp->raw = b.data;
	rp->raw_len = b.len;
}

/* How a route takes its body. */
enum body_rule { BODY_NONE, BODY_OPTIONAL, BODY_REQUIRED };

/* Every route: a path pattern ("{id}" stands for one path segment, a
 * session id), a method, its handler. GET routes also answer HEAD; every
 * path answers OPTIONS (CORS preflight). allow lists every method of the
 * pattern. */
static const struct route {
	const char *pattern;
	const char *method;
	const char *allow;
	get_handler *get;
	api__post_handler *post;
	api__session_handler *ses;
	enum body_rule body;
} routes[] = {
	{"/", "GET", "GET, HEAD, OPTIONS", get_page, NULL, NULL, 0},
	{"/assets/{file}", "GET", "GET, HEAD, OPTIONS", get_page, NULL, NULL,
	 0},
	{"/healthz", "GET", "GET, HEAD, OPTIONS", get_healthz, NULL, NULL, 0},
	{"/readyz", "GET", "GET, HEAD, OPTIONS", get_readyz, NULL, NULL, 0},
	{"/metrics", "GET", "GET, HEAD, OPTIONS", get_metrics, NULL, NULL, 0},
	{"/version", "GET", "GET, HEAD, OPTIONS", get_version, NULL, NULL, 0},
	{"/openapi.yaml", "GET", "GET, HEAD, OPTIONS", get_openapi, NULL, NULL,
	 0},
	{"/v1/apply", "POST", "POST, OPTIONS", NULL, api__post_apply, NULL, 0},
	{"/v1/alg", "POST", "POST, OPTIONS", NULL, api__post_alg, NULL, 0},
	{"/v1/convert", "POST", "POST, OPTIONS", NULL, api__post_convert, NULL,
	 0},
	{"/v1/validate", "POST", "POST, OPTIONS", NULL, api__post_validate,
	 NULL, 0},
	{"/v1/match", "POST", "POST, OPTIONS", NULL, api__post_match, NULL, 0},
	{"/v1/patterns", "GET", "GET, HEAD, OPTIONS", api__get_patterns, NULL,
	 NULL, 0},
	{"/v1/pieces", "POST", "POST, OPTIONS", NULL, api__post_pieces, NULL,
	 0},
	{"/v1/sessions", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_create, BODY_REQUIRED},
	{"/v1/sessions/{id}", "GET", "GET, HEAD, DELETE, OPTIONS", NULL, NULL,
	 api__session_get, BODY_NONE},
	{"/v1/sessions/{id}", "DELETE", "GET, HEAD, DELETE, OPTIONS", NULL,
	 NULL, api__session_delete, BODY_NONE},
	{"/v1/sessions/{id}/moves", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_moves, BODY_REQUIRED},
	{"/v1/sessions/{id}/undo", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_undo, BODY_OPTIONAL},
	{"/v1/sessions/{id}/redo", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_redo, BODY_OPTIONAL},
	{"/v1/sessions/{id}/reset", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_reset, BODY_OPTIONAL},
	{"/v1/sessions/{id}/fork", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_fork, BODY_OPTIONAL},
	{"/v1/solve", "POST", "POST, OPTIONS", NULL, api__post_solve, NULL, 0},
	{"/v1/scramble", "GET", "GET, HEAD, OPTIONS", api__get_scramble, NULL,
	 NULL, 0},
	{"/v1/sessions/{id}/solve", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_solve, BODY_OPTIONAL},
	{"/v1/sessions/{id}/solves", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_solves, BODY_NONE},
	{"/v1/sessions/{id}/history", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_history, BODY_NONE},
	{"/v1/sessions/{id}/events", "GET", "GET, HEAD, OPTIONS", NULL, NULL,
	 api__session_events, BODY_NONE},
	{"/v1/sessions/{id}/tokens", "POST", "GET, HEAD, POST, OPTIONS", NULL,
	 NULL, api__session_token_add, BODY_REQUIRED},
	{"/v1/sessions/{id}/tokens", "GET", "GET, HEAD, POST, OPTIONS", NULL,
	 NULL, api__session_tokens, BODY_NONE},
	{"/v1/sessions/{id}/tokens/{tid}", "DELETE", "DELETE, OPTIONS", NULL,
	 NULL, api__session_token_revoke, BODY_NONE},
	{"/v1/sessions/{id}/tickets", "POST", "POST, OPTIONS", NULL, NULL,
	 api__session_ticket, BODY_NONE},
};

#define NROUTES (int)(sizeof routes / sizeof routes[0])

int api_route_patterns(const char **out, int cap)
{
	int k = 0;
	for (int i = 0; i < NROUTES && k < cap; i++) {
		int seen = 0;
		for (int j = 0; j < k; j++)
			if (strcmp(out[j], routes[i].pattern) == 0)
				seen = 1;
		if (!seen)
			out[k++] = routes[i].pattern;
	}
	return k;
}

/* Does path fit pattern? "{id}" takes one non-empty segment (copied to id,
 * which holds STORE_ID_MAX bytes; longer segments do not fit); "{tid}"
 * takes 1 to 18 digits and "{file}" one segment of up to 128 bytes (the
 * handlers read them from the path). */
static int match(const char *pattern, const char *path, char *id)
{
	while (*pattern) {
		if (*pattern != '{') {
			if (*pattern != *path)
				return 0;
			pattern++;
			path++;
			continue;
		}
		if (strncmp(pattern, "{tid}", 5) == 0) {
			size_t len = strspn(path, "0123456789");
			if (len == 0 || len > 18)
				return 0;
			path += len;
			pattern += 5;
			continue;
		}
		if (strncmp(pattern, "{file}", 6) == 0) {
			size_t len = strcspn(path, "/");
			if (len == 0 || len > 128)
				return 0;
			path += len;
			pattern += 6;
			continue;
		}
		if (strncmp(pattern, "{id}", 4) == 0) {
			size_t len = strcspn(path, "/");
			if (len == 0 || len >= STORE_ID_MAX)
				return 0;
			memcpy(id, path, len);
			id[len] = '\0';
			path += len;
			pattern += 4;
			continue;
		}
		if (*pattern != *path)
			return 0;
		pattern++;
		path++;
	}
	return *path == '\0';
}

/* The first route whose pattern fits path (any method), or NULL. */
static const struct route *find_path(const char *path, char *id)
{
	for (int i = 0; i < NROUTES; i++)
		if (match(routes[i].pattern, path, id))
			return &routes[i];
	return NULL;
}

const char *api_allow(const char *path)
{
	char id[STORE_ID_MAX];
	const struct route *r = path ? find_path(path, id) : NULL;
	return r ? r->allow : NULL;
}

/* The JSON object body: required, optional (NULL when empty) or ignored.
 * Returns 0 with *out set (or NULL), -1 with rp set. */
static int json_body(const struct api_request *rq, enum body_rule rule,
		     json_t **out, struct api_reply *rp)
{
	*out = NULL;
	if (rule == BODY_NONE || (rule == BODY_OPTIONAL && rq->body_len == 0))
		return 0;
	if (!json_media_type_ok(rq->content_type)) {
		problem_reply(rp, PROBLEM_UNSUPPORTED_MEDIA_TYPE, NULL,
			      "send the body as application/json, not "
			      "\"%.100s\"",
			      rq->content_type);
		return -1;
	}
	if (rq->body_len == 0) {
		problem_reply(rp, PROBLEM_MALFORMED_JSON, NULL,
			      "the request body is empty; send a JSON object");
		return -1;
	}
	json_error_t err;
	json_t *body = json_loadb(rq->body, rq->body_len,
				  JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
				  &err);
	if (body == NULL) {
		problem_reply(rp, PROBLEM_MALFORMED_JSON, NULL,
			      "the body is not valid JSON: %s (line %d, "
			      "column %d)",
			      err.text, err.line, err.column);
		return -1;
	}
	if (!json_is_object(body)) {
		json_decref(body);
		problem_reply(rp, PROBLEM_INVALID_REQUEST, "not_an_object",
			      "the request body must be a JSON object");
		return -1;
	}
	*out = body;
	return 0;
}

/* SHA-256 over the parts, each followed by a NUL (so no two lists of parts
 * give the same bytes). */
static void hash_parts(uint8_t out[32], const char *const *parts, int n,
		       const char *body, size_t body_len)
{
	size_t len = body_len + 1;
	for (int i = 0; i < n; i++)
		len += (parts[i] ? strlen(parts[i]) : 0) + 1;
	char *buf = malloc(len), *p = buf;
	if (!buf) {
		memset(out, 0, 32);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t k = parts[i] ? strlen(parts[i]) : 0;
		memcpy(p, parts[i] ? parts[i] : "", k);
		p[k] = '\0';
		p += k + 1;
	}
	if (body_len)
		memcpy(p, body, body_len);
	p[body_len] = '\0';
	token_sha256(buf, len, out);
	free(buf);
}

/* Keep rp as the answer under scope if it is final; a retry may fix a
 * 5xx, a 409 or a 429. */
static void idem_keep(const struct api_config *cfg, const uint8_t scope[32],
		      const struct api_reply *rp)
{
	if (rp->status < 500 && rp->status != 409 && rp->status != 429)
		idem_finish(cfg->idem, scope, rp);
	else
		idem_abort(cfg->idem, scope);
}

/* Idempotency-Key on a POST that changes state: 0 when there is none (or
 * keys are off), 1 when the request is to run and its answer be kept
 * under scope, -1 when rp is already the answer (a replay, or why not). */
static int idem_start(const struct api_config *cfg,
		      const struct api_request *rq, const char *pattern,
		      uint8_t scope[32], struct api_reply *rp)
{
	const char *key = rq->header ? rq->header(rq->header_cls,
						  "Idempotency-Key")
				     : NULL;
	if (!key || !cfg->idem)
		return 0;
	size_t len = strlen(key);
	int ok = len >= 1 && len <= 255;
	for (size_t i = 0; ok && i < len; i++)
		ok = key[i] >= 0x21 && key[i] <= 0x7e;
	if (!ok) {
		api__bad_field(rp, "bad_idempotency_key", "Idempotency-Key",
			       "Idempotency-Key is 1 to 255 visible ASCII "
			       "characters");
		return -1;
	}
	const char *auth = rq->header(rq->header_cls, "Authorization");
	const char *sp[] = {pattern, rq->path, auth, key};
	hash_parts(scope, sp, 4, NULL, 0);
	const char *pp[] = {rq->method, rq->path, rq->query};
	uint8_t print[32];
	hash_parts(print, pp, 3, rq->body, rq->body_len);
	switch (idem_begin(cfg->idem, scope, print, rp)) {
	case IDEM_NEW:
		return 1;
	case IDEM_REPLAY:
		api_reply_header(rp, "Idempotent-Replayed", "true");
		return -1;
	case IDEM_MISMATCH:
		api__bad_field(rp, "idempotency_key_reused", "Idempotency-Key",
			       "this Idempotency-Key was used for a different "
			       "request; use a new key for a new request");
		return -1;
	case IDEM_IN_FLIGHT:
		problem_reply(rp, PROBLEM_CONFLICT, "idempotency_in_flight",
			      "a request with this Idempotency-Key is still "
			      "running; retry when it has finished");
		api_reply_header(rp, "Retry-After", "1");
		return -1;
	case IDEM_NOMEM:
		break;
	}
	problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL, "out of memory");
	return -1;
}

void api_handle(const struct api_config *cfg, const struct api_request *rq,
		struct api_reply *rp)
{
	char id[STORE_ID_MAX] = "";
	const struct route *r = find_path(rq->path, id);
	if (r == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND, NULL,
			      "there is no resource at %.200s", rq->path);
		return;
	}
	rp->route = r->pattern;
	if (strcmp(rq->method, "OPTIONS") == 0) {
		rp->status = 204;
		api_reply_header(rp, "Allow", "%s", r->allow);
		api_reply_header(rp, "Access-Control-Allow-Methods", "%s",
				 r->allow);
		api_reply_header(rp, "Access-Control-Allow-Headers", "%s",
				 cfg->cors_allow_headers
					 ? cfg->cors_allow_headers
					 : API_CORS_ALLOW_HEADERS);
		api_reply_header(rp, "Access-Control-Max-Age", "%s",
				 API_CORS_MAX_AGE);
		return;
	}
	/* the route of this pattern with this method (HEAD serves GET) */
	const char *want = strcmp(rq->method, "HEAD") == 0 ? "GET" : rq->method;
	const struct route *m = NULL;
	for (int i = 0; i < NROUTES && !m; i++)
		if (strcmp(routes[i].pattern, r->pattern) == 0 &&
		    strcmp(routes[i].method, want) == 0)
			m = &routes[i];
	if (m == NULL) {
		problem_reply(rp, PROBLEM_METHOD_NOT_ALLOWED, NULL,
			      "%.32s is not allowed on %s; allowed: %s",
			      rq->method, r->pattern, r->allow);
		api_reply_header(rp, "Allow", "%s", r->allow);
		return;
	}
	if (m->get) {
		m->get(cfg, rq, rp);
		return;
	}
	if (m->ses && strstr(m->pattern, "{id}") && !token_id_ok(id)) {
		/* not the shape of an id: no such session */
		problem_reply(rp, PROBLEM_NOT_FOUND, "no_such_session",
			      "there is no such session");
		return;
	}
	json_t *body;
	if (json_body(rq, m->post ? BODY_REQUIRED : m->body, &body, rp) < 0)
		return;
	uint8_t scope[32];
	int idem = m->ses && strcmp(m->method, "POST") == 0 ?
			   idem_start(cfg, rq, m->pattern, scope, rp) : 0;
	if (idem < 0) {
		json_decref(body);
		return;
	}
	if (m->post)
		m->post(cfg, body, rp);
	else
		m->ses(cfg, rq, strstr(m->pattern, "{id}") ? id : NULL, body,
		       rp);
	json_decref(body);
	if (rp->pending) {
		/* answered by api_finish, which keeps the answer then */
		rp->pending->idem = idem;
		rp->pending->im = cfg->idem;
		memcpy(rp->pending->scope, scope, sizeof scope);
		return;
	}
	if (idem)
		idem_keep(cfg, scope, rp);
}

void api_finish(const struct api_config *cfg, struct api_reply *rp)
{
	struct api_pending *p = rp->pending;
	rp->pending = NULL;
	if (!p)
		return;
	api__session_write_finish(cfg, p, rp);
	if (p->idem)
		idem_keep(cfg, p->scope, rp);
	free(p);
}

void api_pending_free(struct api_pending *p)
{
	if (!p)
		return;
	if (p->sp)
		sessions_write_abandon(p->sp);
	if (p->idem && p->im) /* nobody got an answer: a retry may run */
		idem_abort(p->im, p->scope);
	free(p);
}
