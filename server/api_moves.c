/* api_moves.c — the routes that take moves: POST /v1/apply (a state after
 * moves) and POST /v1/alg (an algorithm analysed: spellings, inverse,
 * expansion, simplification, metrics). Each handler parses → calls core →
 * maps the core error → replies, and frees what it holds on one path. */
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

void api__post_apply(const struct api_config *cfg, const json_t *body,
		     struct api_reply *rp)
{
	static const struct api__field fields[] = {
		{"size", FIELD_INT, 0},
		{"moves", FIELD_STRING, 0},
		{"facelets", FIELD_STRING, 0},
	};
	if (api__check_fields(body, NULL, fields, 3, rp) < 0)
		return;
	const json_t *jsize = json_object_get(body, "size");
	const json_t *jmoves = json_object_get(body, "moves");
	const json_t *jfacelets = json_object_get(body, "facelets");
	if (jsize == NULL && jfacelets == NULL) {
		api__bad_field(rp, "missing_field", "size",
			       "give \"size\", \"facelets\" (a start state), "
			       "or both");
		return;
	}
	int n = 0;
	if (jsize && api__size_arg(jsize, &n, rp) < 0)
		return;

	struct api__parsed alg = {0};
	cube_t *c = api__start_state(n, jfacelets, rp);
	if (c == NULL)
		goto done;
	n = c->n;

	alg_limits lim;
	api__limits(cfg, &lim);
	const char *ms = jmoves ? json_string_value(jmoves) : "";
	size_t ml = jmoves ? json_string_length(jmoves) : 0;
	if (api__parse_moves(ms, ml, n, &lim, &alg, rp) < 0)
		goto done;
	int rc = alg_apply(&alg.a, c, 0);
	if (rc < 0) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, cube_errname(rc),
			      "applying the moves failed: %s",
			      cube_strerror(rc));
		goto done;
	}
	api_reply_json(rp, 200,
		       json_pack("{s:i, s:o, s:o}", "size", n, "facelets",
				 api__facelets_json(c), "moves",
				 moves_json(&alg.a)));
done:
	free(alg.nodes);
	free(c);
}

void api__post_alg(const struct api_config *cfg, const json_t *body,
		   struct api_reply *rp)
{
	static const struct api__field fields[] = {
		{"moves", FIELD_STRING, 1},
		{"size", FIELD_INT, 0},
	};
	if (api__check_fields(body, NULL, fields, 2, rp) < 0)
		return;
	const json_t *jsize = json_object_get(body, "size");
	const json_t *jmoves = json_object_get(body, "moves");
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
		problem_reply(rp, PROBLEM_INTERNAL_ERROR, NULL,
			      "out of memory expanding %zu moves", cap);
		goto done;
	}
	int64_t count = alg_expand(&alg.a, 0, list, cap);
	if (count < 0) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      cube_errname((int)count),
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
