/* api_patterns.c — the pattern-query routes (seed 000, issue 4): POST
 * /v1/match (does a state fit a pattern, given as text or by name, and in
 * which of the 24 whole-cube orientations), GET /v1/patterns (the named
 * patterns of a size, with their texts) and POST /v1/pieces (where the
 * corners and edges of a 2×2 or 3×3 are, placed or not, oriented or not).
 * The language, the library and the matching are core's (pattern.h); each
 * handler parses → calls core → maps core's error to a problem → replies,
 * and frees what it holds on one path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "pattern.h"
#include "problem.h"
#include "utf8.h"

/* GET /v1/patterns answers sizes up to this: every part is 6·n² bytes of
 * text, and a big cube's library has 27 parts (24 kB each at 64, 660 kB
 * for the list; at 1024 it would be 170 MB). */
#define PATTERNS_MAX_N 64

/* ---- compiled parts --------------------------------------------------- */

/* What one query matches: a pattern text (one part) or every part of a
 * named pattern, each compiled into its own buffer. */
struct parts {
	int np;
	pattern_t **p;
};

static void parts_free(struct parts *pp)
{
	for (int i = 0; pp->p && i < pp->np; i++)
		free(pp->p[i]);
	free(pp->p);
	pp->p = NULL;
	pp->np = 0;
}

static int parts_alloc(struct parts *pp, int np, struct api_reply *rp)
{
	pp->np = np;
	pp->p = calloc((size_t)np, sizeof *pp->p);
	if (pp->p == NULL) {
		pp->np = 0;
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
			      "out of memory for %d pattern parts", np);
		return -1;
	}
	return 0;
}

/* Not a core error: a buffer could not be allocated. */
#define NO_MEMORY (-1000)

/* Compile s[0..len) for size n into a new buffer (*out, the caller frees
 * it). Returns core's result or NO_MEMORY; *e says what and where. */
static int compile_text(int n, const char *s, size_t len, pattern_t **out,
			pattern_error *e)
{
	*out = malloc(pattern_sizeof(n, s, len));
	if (*out == NULL) {
		e->code = NO_MEMORY;
		e->offset = 0;
		return NO_MEMORY;
	}
	return pattern_compile(*out, n, s, len, e);
}

/* A 500 for a failure that is the server's, not the request's. */
static void compile_failed(int code, const char *what, struct api_reply *rp)
{
	if (code == NO_MEMORY)
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
			      "out of memory compiling %s", what);
	else
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, code,
			      "compiling %s failed: %s", what,
			      pattern_strerror(code));
}

/* ---- pattern text ----------------------------------------------------- */

/* The first bad place of a pattern of the wrong length for size n: a bad
 * character among the places it has (found by core, on a copy padded or
 * cut to 6·n² places), else the first missing or extra place. */
static void first_bad_place(int n, const char *s, size_t len,
			    pattern_error *e)
{
	size_t places = 6 * (size_t)n * (size_t)n;
	size_t have = len < places ? len : places;
	e->code = CUBE_ELENGTH;
	e->offset = have;
	char *copy = malloc(places);
	pattern_t *p = NULL;
	if (copy == NULL)
		return;
	memcpy(copy, s, have);
	memset(copy + have, '*', places - have);
	pattern_error inner = {0};
	if (compile_text(n, copy, places, &p, &inner) < 0 &&
	    (inner.code == PATTERN_ECHAR || inner.code == PATTERN_EDIGITS))
		*e = inner;
	free(p);
	free(copy);
}

/* 422 invalid_pattern for core's error e on the pattern s[0..len) of size
 * n. Every byte before e->offset is an ASCII place, so the byte offset is
 * also the character offset. */
static void pattern_problem(const pattern_error *e, int n, const char *s,
			    size_t len, struct api_reply *rp)
{
	size_t places = 6 * (size_t)n * (size_t)n;
	/* the character at the offset (the body is valid UTF-8), quoted */
	unsigned char ch = e->offset < len ? (unsigned char)s[e->offset] : 0;
	size_t clen = ch < 0x80 ? 1 : ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : 2;
	char one[8], shown[24];
	if (ch < 0x20 || ch == 0x7f) {
		snprintf(shown, sizeof shown, "the byte 0x%02x", ch);
	} else {
		if (clen > len - e->offset)
			clen = len - e->offset;
		utf8_clean(one, sizeof one, s + e->offset, clen);
		snprintf(shown, sizeof shown, "\"%s\"", one);
	}
	json_t *p;
	switch (e->code) {
	case PATTERN_ECHAR:
		p = problem_reply_core(rp, PROBLEM_PATTERN_CORE, e->code,
				  "pattern has %s at offset %zu; a place is one "
				  "of U R F D L B, a digit 1 to 6 or *",
				  shown, e->offset);
		break;
	case PATTERN_EDIGITS:
		p = problem_reply_core(rp, PROBLEM_PATTERN_CORE, e->code,
				  "pattern has the digit %s at offset %zu; "
				  "generic colours are the digits 1 to 6",
				  shown, e->offset);
		break;
	case CUBE_ELENGTH:
		p = problem_reply_core(rp, PROBLEM_PATTERN_CORE, e->code,
				  "pattern has %zu places; the facelets are a "
				  "size %d cube, which has 6·%d² = %zu",
				  len, n, n, places);
		break;
	default:
		compile_failed(e->code, "the pattern", rp);
		return;
	}
	if (p == NULL)
		return;
	json_object_set_new(p, "field", json_string("pattern"));
	json_object_set_new(p, "offset", json_integer((json_int_t)e->offset));
}

/* The "pattern" text of a query on a size-n state into pp. */
static int text_parts(int n, const json_t *jp, struct parts *pp,
		      struct api_reply *rp)
{
	const char *s = json_string_value(jp);
	size_t len = json_string_length(jp);
	size_t places = 6 * (size_t)n * (size_t)n;
	int pn = len == places ? n : cube_size_from_length(len);
	if (pn > 0 && pn != n) {
		json_t *p = problem_reply(
			rp, PROBLEM_SIZE_MISMATCH,
			"pattern has %zu places, which is a size %d pattern, "
			"but the facelets are a size %d cube (6·%d² = %zu "
			"places)",
			len, pn, n, n, places);
		json_object_set_new(p, "field", json_string("pattern"));
		return -1;
	}
	if (parts_alloc(pp, 1, rp) < 0)
		return -1;
	pattern_error e = {0};
	if (len != places)
		first_bad_place(n, s, len, &e);
	else if (compile_text(n, s, len, &pp->p[0], &e) == CUBE_OK)
		return 0;
	pattern_problem(&e, n, s, len, rp);
	return -1;
}

/* ---- named patterns --------------------------------------------------- */

/* "a, b and c": the named patterns of size n. */
static void name_list(int n, char *out, size_t cap)
{
	size_t k = 0;
	int count = pattern_named_count(n);
	out[0] = '\0';
	for (int i = 0; i < count && k < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%s",
				      i == 0	       ? ""
				      : i == count - 1 ? " and "
						       : ", ",
				      pattern_named_at(n, i)->name);
}

/* The named pattern jname of size n, every part compiled, into pp. */
static int named_parts(int n, const json_t *jname, struct parts *pp,
		       struct api_reply *rp)
{
	const char *name = json_string_value(jname);
	size_t len = json_string_length(jname);
	/* strlen: a name with a NUL in it names nothing */
	const pattern_named *pn =
		strlen(name) == len ? pattern_named_find(n, name) : NULL;
	if (pn == NULL) {
		char shown[72], names[256];
		utf8_clean(shown, sizeof shown, name, len);
		name_list(n, names, sizeof names);
		api__bad_field(rp, PROBLEM_UNKNOWN_PATTERN, "name",
			       "there is no pattern named \"%s\" for size %d; "
			       "the names for size %d are %s",
			       shown, n, n, names);
		return -1;
	}
	size_t places = 6 * (size_t)n * (size_t)n;
	char *text = malloc(places);
	if (text == NULL || parts_alloc(pp, pn->nparts, rp) < 0) {
		if (text == NULL)
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
				      "out of memory for a size %d pattern", n);
		free(text);
		return -1;
	}
	for (int i = 0; i < pn->nparts; i++) {
		pattern_error e = {0};
		int rc = pattern_named_text(pn, n, i, text);
		if (rc == CUBE_OK)
			rc = compile_text(n, text, places, &pp->p[i], &e);
		if (rc < 0) {
			compile_failed(rc, pn->name, rp);
			free(text);
			return -1;
		}
	}
	free(text);
	return 0;
}

/* ---- POST /v1/match --------------------------------------------------- */

/* {"face", "rotation", "moves"} of orientation k (pattern.h). */
static json_t *orientation_json(int k)
{
	pattern_orientation o;
	pattern_orientation_of(k, &o);
	char face[2] = {o.face, '\0'};
	return json_pack("{s:s, s:i, s:s}", "face", face, "rotation",
			 (int)o.rotation, "moves", o.moves);
}

void api__post_match(const struct api_config *cfg, const struct api_request *rq,
		     const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	(void)cfg;
	static const struct api__field fields[] = {
		{"facelets", FIELD_STRING, 1},
		{"pattern", FIELD_STRING, 0},
		{"name", FIELD_STRING, 0},
		{"first", FIELD_BOOL, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 4, rp) < 0)
		return;
	const json_t *jpattern = json_object_get(a->body, "pattern");
	const json_t *jname = json_object_get(a->body, "name");
	int first = json_is_true(json_object_get(a->body, "first"));
	if ((jpattern != NULL) == (jname != NULL)) {
		api__bad_field(rp, PROBLEM_ONE_SOURCE, NULL,
			       "give exactly one of \"pattern\" (a pattern "
			       "text) and \"name\" (a named pattern); this "
			       "body has %s",
			       jpattern ? "both" : "neither");
		return;
	}

	struct parts pp = {0};
	json_t *out = NULL;
	cube_t *c = api__start_state(0, json_object_get(a->body, "facelets"), rp);
	if (c == NULL)
		return;
	if ((jname ? named_parts(c->n, jname, &pp, rp)
		   : text_parts(c->n, jpattern, &pp, rp)) < 0)
		goto done;
	uint32_t mask = 0;
	int found = pattern_match((const pattern_t *const *)pp.p,
				  (size_t)pp.np, c, first, &mask);
	if (found < 0) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, found,
			      "matching failed: %s", pattern_strerror(found));
		goto done;
	}
	json_t *list = json_array();
	out = json_pack("{s:b, s:o}", "matched", found > 0, "orientations",
			list);
	for (int k = 0; out && k < 24; k++)
		if ((mask & (1u << k)) &&
		    json_array_append_new(list, orientation_json(k)) < 0) {
			json_decref(out);
			out = NULL;
		}
	api_reply_json(rp, 200, out);
	out = NULL;
done:
	json_decref(out);
	parts_free(&pp);
	free(c);
}

/* ---- GET /v1/patterns ------------------------------------------------- */

/* {"name", "description", "parts"} of the named pattern pn of size n;
 * text has room for 6·n² bytes. */
static json_t *named_json(const pattern_named *pn, int n, char *text)
{
	size_t places = 6 * (size_t)n * (size_t)n;
	json_t *parts = json_array();
	json_t *o = json_pack("{s:s, s:s, s:o}", "name", pn->name,
			      "description", pn->description, "parts", parts);
	for (int i = 0; o && i < pn->nparts; i++)
		if (pattern_named_text(pn, n, i, text) < 0 ||
		    json_array_append_new(parts,
					  json_stringn(text, places)) < 0) {
			json_decref(o);
			o = NULL;
		}
	return o;
}

void api__get_patterns(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	(void)a;
	(void)cfg;
	static const char *const allowed[] = {"size", NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t size = 0;
	int has = api__query_int(&q, "size", &size, rp);
	if (has < 0)
		return;
	if (has == 0) {
		api__bad_field(rp, PROBLEM_MISSING_PARAMETER, "size",
			       "query parameter \"size\" is required: "
			       "/v1/patterns?size=3");
		return;
	}
	if (size < CUBE_MIN_N || size > CUBE_MAX_N) {
		api__bad_field(rp, PROBLEM_SIZE_OUT_OF_RANGE, "size",
			       "size must be between %d and %d, got %lld",
			       CUBE_MIN_N, CUBE_MAX_N, (long long)size);
		return;
	}
	int n = (int)size;
	if (n > PATTERNS_MAX_N) {
		json_t *p = problem_reply(rp, PROBLEM_TOO_LARGE_FOR_REPRESENTATION,
					  "pattern texts are listed for sizes up "
					  "to %d, not %d (each is 6·n² places)",
					  PATTERNS_MAX_N, n);
		json_object_set_new(p, "limit", json_integer(PATTERNS_MAX_N));
		json_object_set_new(p, "field", json_string("size"));
		return;
	}
	char *text = malloc(6 * (size_t)n * (size_t)n);
	json_t *list = json_array();
	json_t *out = json_pack("{s:i, s:o}", "size", n, "patterns", list);
	for (int k = 0; out && text && k < pattern_named_count(n); k++)
		if (json_array_append_new(
			    list, named_json(pattern_named_at(n, k), n, text)) <
		    0) {
			json_decref(out);
			out = NULL;
		}
	if (text == NULL) {
		json_decref(out);
		out = NULL;
	}
	free(text);
	api_reply_json(rp, 200, out);
}

/* ---- POST /v1/pieces -------------------------------------------------- */

/* {"piece", "position", "orientation", "placed", "oriented"} of piece i
 * of kind (0 corner, 1 edge) in rc; NULL (with rp the 500) on failure. */
static json_t *piece_json(const struct repr_cubies *rc, int kind, int i,
			  struct api_reply *rp)
{
	piece_info pi;
	int code = rc->n == 3 ? piece_query3(&rc->c3, kind, i, &pi)
			      : piece_query2(&rc->c2, i, &pi);
	if (code < 0) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, code,
			      "the piece query failed: %s",
			      cube_strerror(code));
		return NULL;
	}
	const char *(*name)(int) = kind ? piece_edge_name : piece_corner_name;
	json_t *o = json_pack("{s:s, s:s, s:i, s:b, s:b}", "piece", name(i),
			      "position", name(pi.position), "orientation",
			      pi.orientation, "placed", pi.placed, "oriented",
			      pi.oriented);
	if (o == NULL)
		api_reply_json(rp, 200, NULL); /* the 500 */
	return o;
}

void api__post_pieces(const struct api_config *cfg,
		      const struct api_request *rq, const struct api_args *a,
		      struct api_reply *rp)
{
	(void)rq;
	(void)cfg;
	static const struct api__field fields[] = {
		{"facelets", FIELD_STRING, 1},
		{"piece", FIELD_STRING, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 2, rp) < 0)
		return;
	const json_t *jpiece = json_object_get(a->body, "piece");
	cube_t *c = api__start_state(0, json_object_get(a->body, "facelets"), rp);
	if (c == NULL)
		return;
	json_t *out = NULL;
	int n = c->n;
	if (n != 2 && n != 3) {
		api__bad_field(rp, PROBLEM_NOT_APPLICABLE, "facelets",
			       "pieces are read from 2×2 and 3×3 cubes only, "
			       "not from size %d",
			       n);
		goto done;
	}
	int kind = 0, piece = -1;
	if (jpiece) {
		const char *s = json_string_value(jpiece);
		size_t len = json_string_length(jpiece);
		piece = piece_parse(s, len, &kind);
		if (piece < 0) {
			char shown[72];
			utf8_clean(shown, sizeof shown, s, len);
			api__bad_field(rp, PROBLEM_UNKNOWN_PIECE, "piece",
				       "\"%s\" names no piece: a corner is the "
				       "three faces it touches (URF, UFL, ULB, "
				       "UBR, DFR, DLF, DBL, DRB, letters in any "
				       "order), an edge the two (UR, UF, UL, "
				       "UB, DR, DF, DL, DB, FR, FL, BL, BR)",
				       shown);
			goto done;
		}
		if (kind == 1 && n == 2) {
			api__bad_field(rp, PROBLEM_NOT_APPLICABLE, "piece",
				       "a 2×2 has no edges, so no %s",
				       piece_edge_name(piece));
			goto done;
		}
	}
	struct repr_cubies rc;
	if (api__cubies_of(c, "facelets", &rc, rp) < 0)
		goto done;
	if (jpiece) {
		json_t *one = piece_json(&rc, kind, piece, rp);
		if (one)
			out = json_pack("{s:o}", "piece", one);
	} else {
		json_t *list = json_array();
		out = json_pack("{s:o}", "pieces", list);
		for (int k = 0; k < 2 && out; k++)
			for (int i = 0; i < (k ? 12 : 8) && out; i++) {
				if (k == 1 && n == 2)
					break;
				json_t *one = piece_json(&rc, k, i, rp);
				if (one == NULL ||
				    json_array_append_new(list, one) < 0) {
					json_decref(out);
					out = NULL;
				}
			}
	}
	if (out == NULL && rp->json != NULL)
		goto done; /* piece_json made the problem */
	api_reply_json(rp, 200, out);
	out = NULL;
done:
	json_decref(out);
	free(c);
}
