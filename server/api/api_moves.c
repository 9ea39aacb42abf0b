/* api_moves.c — the routes that take moves: POST /v1/apply (a state after
 * moves, in the representation asked for, with others and the animation of
 * each move on request) and POST /v1/alg (an algorithm analysed: spellings, inverse,
 * expansion, simplification, metrics). Each handler parses → calls core →
 * maps the core error → replies, and frees what it holds on one path. */
#include <inttypes.h>
#include <stdlib.h>

#include "api_internal.h"
#include "problem.h"

/* Set length/htm/qtm/stm/etm of m into obj. Returns 0 or -1 (no memory). */
static int set_metrics(json_t *obj, const alg_metrics *m)
{
	int rc = 0;
	rc |= json_object_set_new(obj, "length",
				  json_integer(api__clamp_int(m->moves)));
	rc |= json_object_set_new(obj, "htm",
				  json_integer(api__clamp_int(m->htm)));
	rc |= json_object_set_new(obj, "qtm",
				  json_integer(api__clamp_int(m->qtm)));
	rc |= json_object_set_new(obj, "stm",
				  json_integer(api__clamp_int(m->stm)));
	rc |= json_object_set_new(obj, "etm",
				  json_integer(api__clamp_int(m->etm)));
	return rc ? -1 : 0;
}

/* {"canonical", "length", "htm", …} of the applied algorithm. */
static json_t *moves_json(const alg_t *a)
{
	alg_metrics met;
	alg_metrics_of(a, &met);
	struct api__text_src src = {.a = a};
	json_t *moves = json_pack("{s:o}", "canonical",
				  api__text_json(TEXT_CANONICAL, &src));
	if (moves && set_metrics(moves, &met) < 0) {
		json_decref(moves);
		moves = NULL;
	}
	return moves;
}

/* What "format" may name, and what "include" may list. */
#define APPLY_FORMATS                                                          \
	(REPR_BIT(REPR_FACELETS) | REPR_BIT(REPR_FACES) |                      \
	 REPR_BIT(REPR_CUBIE) | REPR_BIT(REPR_INDEX))
#define APPLY_INCLUDES ((REPR_BIT(REPR_COUNT) - 1))

static int format_arg(const json_t *v, enum repr *out, struct api_reply *rp)
{
	int r = repr_lookup(json_string_value(v), json_string_length(v));
	if (r < 0 || !(APPLY_FORMATS & REPR_BIT(r))) {
		api__bad_field(rp, PROBLEM_BAD_FORMAT, "format",
			       "format must be \"facelets\", \"faces\", "
			       "\"cubie\" or \"index\"");
		return -1;
	}
	*out = (enum repr)r;
	return 0;
}

/* Every representation asked for exists for size n and fits its limit. */
static int reprs_check(enum repr format, unsigned include, int n,
		       struct api_reply *rp)
{
	if (api__repr_check(format, n, "format", rp) < 0)
		return -1;
	for (int r = 0; r < REPR_COUNT; r++)
		if ((include & REPR_BIT(r)) &&
		    api__repr_check(r, n, "include", rp) < 0)
			return -1;
	return 0;
}

void api__post_apply(const struct api_config *cfg, const struct api_request *rq,
		     const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"size", FIELD_INT, 0},      {"moves", FIELD_STRING, 0},
		{"facelets", FIELD_STRING, 0}, {"format", FIELD_STRING, 0},
		{"include", FIELD_ARRAY, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 5, rp) < 0)
		return;
	const json_t *jsize = json_object_get(a->body, "size");
	const json_t *jmoves = json_object_get(a->body, "moves");
	const json_t *jfacelets = json_object_get(a->body, "facelets");
	const json_t *jformat = json_object_get(a->body, "format");
	const json_t *jinclude = json_object_get(a->body, "include");
	if (jsize == NULL && jfacelets == NULL) {
		api__bad_field(rp, PROBLEM_MISSING_FIELD, "size",
			       "give \"size\", \"facelets\" (a start state), "
			       "or both");
		return;
	}
	int n = 0;
	if (jsize && api__size_arg(jsize, &n, rp) < 0)
		return;
	enum repr format = REPR_FACELETS;
	unsigned include = 0;
	if (jformat && format_arg(jformat, &format, rp) < 0)
		return;
	if (jinclude &&
	    api__include_arg(jinclude, APPLY_INCLUDES, &include, rp) < 0)
		return;

	struct api__parsed alg = {0};
	json_t *out = NULL;
	cube_t *c = api__start_state(n, jfacelets, rp);
	if (c == NULL)
		goto done;
	n = c->n;
	if (reprs_check(format, include, n, rp) < 0)
		goto done;

	alg_limits lim;
	api__limits(cfg, &lim);
	const char *ms = jmoves ? json_string_value(jmoves) : "";
	size_t ml = jmoves ? json_string_length(jmoves) : 0;
	if (api__parse_moves(ms, ml, n, &lim, &alg, rp) < 0)
		goto done;
	if ((include & REPR_BIT(REPR_ANIMATION)) &&
	    alg.a.length > REPR_ANIMATION_MAX_MOVES) {
		json_t *p = problem_reply(
			rp, PROBLEM_TOO_MANY_MOVES_TO_ANIMATE,
			"the moves expand to %" PRIu64 " moves; \"animation\" "
			"is built for at most %d",
			alg.a.length, REPR_ANIMATION_MAX_MOVES);
		json_object_set_new(p, "limit",
				    json_integer(REPR_ANIMATION_MAX_MOVES));
		json_object_set_new(p, "field", json_string("include"));
		goto done;
	}
	int rc = alg_apply(&alg.a, c, 0);
	if (rc < 0) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, rc,
			      "applying the moves failed: %s",
			      cube_strerror(rc));
		goto done;
	}

	/* The cubie form once, for every representation that reads it. */
	struct repr_cubies cubies, *cp = NULL;
	if (((REPR_BIT(format) | include) & REPR_NEEDS_CUBIES)) {
		if (api__cubies_of(c, "facelets", &cubies, rp) < 0)
			goto done;
		cp = &cubies;
	}
	out = json_pack("{s:i}", "size", n);
	if (out == NULL) {
		api_reply_json(rp, 200, NULL);
		goto done;
	}
	if (api__set_reprs(out, REPR_BIT(format), c, cp, NULL, "facelets",
			   rp) < 0)
		goto done;
	if (json_object_set_new(out, "moves", moves_json(&alg.a)) < 0) {
		api_reply_json(rp, 200, NULL);
		goto done;
	}
	if (api__set_reprs(out, include & ~REPR_BIT(format), c, cp, &alg.a,
			   "facelets", rp) < 0)
		goto done;
	api_reply_json(rp, 200, out);
	out = NULL;
done:
	json_decref(out);
	free(alg.nodes);
	free(c);
}

void api__post_alg(const struct api_config *cfg, const struct api_request *rq,
		   const struct api_args *a, struct api_reply *rp)
{
	(void)rq;
	static const struct api__field fields[] = {
		{"moves", FIELD_STRING, 1},
		{"size", FIELD_INT, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 2, rp) < 0)
		return;
	const json_t *jsize = json_object_get(a->body, "size");
	const json_t *jmoves = json_object_get(a->body, "moves");
	int n = 3;
	if (jsize && api__size_arg(jsize, &n, rp) < 0)
		return;

	/* Nothing is applied here, so only the move count is limited. */
	alg_limits lim;
	api__limits(cfg, &lim);
	lim.max_work = 0;
	struct api__parsed alg = {0};
	cube_move *list = NULL;
	if (api__parse_moves(json_string_value(jmoves),
			     json_string_length(jmoves), n, &lim, &alg, rp) < 0)
		goto done;

	size_t cap = (size_t)alg.a.length;
	list = malloc((cap ? cap : 1) * sizeof *list);
	if (list == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
			      "out of memory expanding %zu moves", cap);
		goto done;
	}
	int64_t count = alg_expand(&alg.a, 0, list, cap);
	if (count < 0) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, (int)count,
			      "expanding the moves failed: %s",
			      cube_strerror((int)count));
		goto done;
	}
	size_t simple = moves_simplify(list, (size_t)count);

	alg_metrics met, smet;
	alg_metrics_of(&alg.a, &met);
	moves_metrics(list, simple, n, &smet);
	struct api__text_src src = {.a = &alg.a};
	struct api__text_src ssrc = {.m = list, .count = simple, .n = n};
	json_t *sm = json_object();
	if (sm && set_metrics(sm, &smet) < 0) {
		json_decref(sm);
		sm = NULL;
	}
	json_t *out = json_pack(
		"{s:i, s:o, s:o, s:o, s:o, s:o}", "size", n, "canonical",
		api__text_json(TEXT_CANONICAL, &src), "inverse",
		api__text_json(TEXT_INVERSE, &src), "expanded",
		api__text_json(TEXT_EXPANDED, &src), "simplified",
		api__text_json(TEXT_MOVES, &ssrc), "simplified_metrics", sm);
	if (out && set_metrics(out, &met) < 0) {
		json_decref(out);
		out = NULL;
	}
	api_reply_json(rp, 200, out);
done:
	free(list);
	free(alg.nodes);
}
