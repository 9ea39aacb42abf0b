/* api_input.c — the request checks every route shares: strict JSON body
 * fields, the size argument, query strings, the start state of a request
 * and its moves, each refused with the row of errors.def that says what
 * was wrong. Declared in api_internal.h. */
#include <ctype.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_internal.h"
#include "problem.h"
#include "utf8.h"

/* ---- JSON body validation --------------------------------------------- */

json_t *api__bad_field(struct api_reply *rp, enum problem id,
		       const char *field, const char *detail, ...)
{
	char text[512];
	va_list ap;
	va_start(ap, detail);
	vsnprintf(text, sizeof text, detail, ap);
	va_end(ap);
	json_t *p = problem_reply(rp, id, "%s", text);
	if (p && field)
		json_object_set_new(p, "field", json_string(field));
	return p;
}

int api__int_range(struct api_reply *rp, const json_t *v, const char *field,
		   json_int_t lo, json_int_t hi, json_int_t *out,
		   const char *detail, ...)
{
	if (!v)
		return 0;
	json_int_t x = json_integer_value(v);
	if (x >= lo && x <= hi) {
		*out = x;
		return 0;
	}
	char text[512];
	va_list ap;
	va_start(ap, detail);
	vsnprintf(text, sizeof text, detail, ap);
	va_end(ap);
	json_t *p = api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, field, "%s",
				   text);
	if (p)
		json_object_set_new(p, "limit", json_integer(hi));
	return -1;
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
			api__bad_field(rp, PROBLEM_UNKNOWN_FIELD, name,
				       "unknown field \"%s\"", name);
			return -1;
		}
		if (!field_type_ok(f[i].type, val)) {
			api__bad_field(rp, PROBLEM_WRONG_TYPE, name,
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
			api__bad_field(rp, PROBLEM_MISSING_FIELD, name,
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
		api__bad_field(rp, PROBLEM_SIZE_OUT_OF_RANGE, "size",
			       "size must be between %d and %d, got "
			       "%" JSON_INTEGER_FORMAT,
			       CUBE_MIN_N, CUBE_MAX_N, x);
		return -1;
	}
	*n = (int)x;
	return 0;
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
static void query_problem(struct api_reply *rp, enum problem id,
			  const char *q, size_t klen, const char *before,
			  const char *after)
{
	char name[48];
	utf8_clean(name, sizeof name, q, klen < 40 ? klen : 40);
	json_t *p = problem_reply(rp, id, "%s\"%s\"%s", before, name, after);
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
			query_problem(rp, PROBLEM_UNKNOWN_PARAMETER, q, klen,
				      "unknown query parameter ", "");
			return -1;
		}
		for (int i = 0; i < out->n; i++)
			if (strlen(out->key[i]) == klen &&
			    memcmp(out->key[i], q, klen) == 0) {
				query_problem(rp, PROBLEM_DUPLICATE_PARAMETER, q,
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
				query_problem(rp, PROBLEM_BAD_PARAMETER, q, klen,
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
		api__bad_field(rp, PROBLEM_WRONG_TYPE, key,
			       "query parameter \"%s\" must be a whole number "
			       "from 0",
			       key);
		return -1;
	}
	*out = x;
	return 1;
}


/* ---- states and moves ------------------------------------------------- */

void api__limits(const struct api_config *cfg, alg_limits *lim)
{
	alg_limits_default(lim);
	lim->max_moves = cfg->max_moves;
	lim->max_work = cfg->max_work;
}

/* The most of a bad token a notation problem quotes. */
#define TOKEN_ECHO_MAX 64

/* Turn a parse error into the reply: limits → limit_exceeded with the limit
 * that was hit, anything else → invalid_notation with where and what. */
static void notation_problem(const alg_limits *lim, const char *s, size_t len,
			     int code, const alg_error *e,
			     struct api_reply *rp)
{
	json_t *p;
	if (code == ALG_ELONG) {
		p = problem_reply(rp, PROBLEM_TOO_MANY_MOVES,
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
		p = problem_reply(rp, PROBLEM_TOO_MUCH_WORK,
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
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "the notation parser failed: %s",
			      cube_strerror(code));
		return;
	}

	/* The token is client text: quote it only if it is in range, and in
	 * the sentence only if it is short (TOKEN_ECHO_MAX). */
	const char *tok = NULL;
	size_t tlen = 0;
	if (e->token_len > 0 && e->byte_offset <= len &&
	    e->token_len <= len - e->byte_offset) {
		tok = s + e->byte_offset;
		tlen = e->token_len;
	}
	if (code == ALG_ETOKEN && tok && tlen <= TOKEN_ECHO_MAX)
		p = problem_reply_core(rp, PROBLEM_NOTATION_CORE, code,
				  "unknown token \"%.*s\" at offset %zu",
				  (int)tlen, tok, e->offset);
	else if (tok && tlen <= TOKEN_ECHO_MAX)
		p = problem_reply_core(rp, PROBLEM_NOTATION_CORE, code, "%s: \"%.*s\" at offset %zu",
				  cube_strerror(code), (int)tlen, tok,
				  e->offset);
	else
		p = problem_reply_core(rp, PROBLEM_NOTATION_CORE, code, "%s at offset %zu",
				  cube_strerror(code), e->offset);
	if (p == NULL)
		return;
	json_object_set_new(p, "field", json_string("moves"));
	json_object_set_new(p, "offset", json_integer(api__clamp_int(e->offset)));
	if (tok) {
		/* never echoed whole: a 1 MB token would be a 1 MB reply.
		 * Its first TOKEN_ECHO_MAX bytes (cut between characters),
		 * and then how long it was */
		char clean[TOKEN_ECHO_MAX + 1];
		size_t cl = utf8_clean(clean, sizeof clean, tok, tlen);
		json_object_set_new(p, "token", json_stringn(clean, cl));
		if (tlen > TOKEN_ECHO_MAX)
			json_object_set_new(p, "token_length",
					    json_integer((json_int_t)tlen));
	}
}

int api__parse_moves(const char *s, size_t len, int n, const alg_limits *lim,
		     struct api__parsed *out, struct api_reply *rp)
{
	size_t cap = alg_nodes_needed(len);
	out->nodes = malloc((cap ? cap : 1) * sizeof *out->nodes);
	if (out->nodes == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
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
			problem_reply(rp, PROBLEM_INTERNAL_ERROR,
				      "could not make a cube of size %d", n);
			return NULL;
		}
		return c;
	}

	const char *s = json_string_value(jf);
	size_t len = json_string_length(jf);
	int fn = cube_size_from_length(len);
	if (fn < 0) {
		json_t *p = problem_reply_core(
			rp, PROBLEM_FACELETS_CORE, fn,
			"facelets has %zu characters; it needs 6·n² letters "
			"for a size n from %d to %d (54 for 3×3)",
			len, CUBE_MIN_N, CUBE_MAX_N);
		json_object_set_new(p, "field", json_string("facelets"));
		return NULL;
	}
	if (n != 0 && n != fn) {
		json_t *p = problem_reply(
			rp, PROBLEM_SIZE_MISMATCH,
			"facelets has %zu letters, which is a size %d cube, "
			"but size is %d (6·%d² = %lu letters)",
			len, fn, n, n, 6ul * (unsigned long)n * (unsigned long)n);
		json_object_set_new(p, "field", json_string("facelets"));
		return NULL;
	}
	cube_t *c = malloc(cube_sizeof(fn));
	if (c == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
			      "out of memory for a cube of size %d", fn);
		return NULL;
	}
	size_t bad = 0;
	int rc = cube_from_facelets(c, fn, s, len, &bad);
	if (rc < 0) {
		free(c);
		json_t *p;
		if (rc == CUBE_ELETTER && bad < len)
			p = problem_reply_core(rp, PROBLEM_FACELETS_CORE, rc,
					  "facelets has \"%c\" at offset %zu; "
					  "only the letters U R F D L B are "
					  "allowed",
					  isprint((unsigned char)s[bad]) ? s[bad]
									 : '?',
					  bad);
		else
			p = problem_reply_core(rp, PROBLEM_FACELETS_CORE, rc, "%s",
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

