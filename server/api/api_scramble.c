/* api_scramble.c — GET /v1/scramble: a random state of the given size
 * (uniform over the legal states of a 2×2 or 3×3, from a seed the
 * client gives or the server draws) and the moves that reach it, found by
 * solving the state and inverting the solution; bigger cubes get random
 * moves. Split from api_solve.c, whose solves it shares the tables of.
 *
 * Making a scramble is a solve (a 3×3's takes milliseconds of search) or,
 * for a big cube, applying its moves: CPU work, so it runs on the solver
 * pool like every solve (api__offload), never on an HTTP thread, under
 * the same per-client caps (429 too_many_solves, 503 queue_full). The
 * HTTP thread only checks the query and that the tables are ready. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "problem.h"
#include "scrambles.h"
#include "solve.h"
#include "solver.h"
#include "token.h"

/* What a scramble needs once its query was checked. */
struct scramble {
	int64_t n, seed;
	int has_seed;
};

static void make_scramble(const struct api_config *cfg, void *arg,
			  struct api_work *w, struct api_reply *rp);

void api__get_scramble(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	(void)a;
	static const char *const allowed[] = {"size", "seed", NULL};
	struct api__query q;
	if (api__query_parse(rq->query, allowed, &q, rp) < 0)
		return;
	int64_t n = 0, seed = 0;
	int has_n = api__query_int(&q, "size", &n, rp);
	if (has_n < 0)
		return;
	int has_seed = api__query_int(&q, "seed", &seed, rp);
	if (has_seed < 0)
		return;
	if (!has_n) {
		api__bad_field(rp, PROBLEM_MISSING_PARAMETER, "size",
			       "query parameter \"size\" is required: "
			       "/v1/scramble?size=3");
		return;
	}
	if (n < 2 || n > CUBE_MAX_N) {
		json_t *p = api__bad_field(rp, PROBLEM_SIZE_OUT_OF_RANGE, "size",
					   "size must be from 2 to %d",
					   CUBE_MAX_N);
		(void)p;
		return;
	}
	if (has_seed && seed > ((int64_t)1 << 53) - 1) {
		api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, "seed",
			       "seed is from 0 to 2^53-1");
		return;
	}
	if (!has_seed) {
		uint8_t h[TOKEN_HASH_LEN];
		char raw[23];
		token_new_id(raw);
		token_sha256(raw, strlen(raw), h);
		memcpy(&seed, h, sizeof seed);
		seed &= ((int64_t)1 << 53) - 1;
	}
	if (n == 2 || n == 3) {
		/* not ready: 503 at once, without a turn in the queue */
		const void *tables;
		if (api__tables_or_503(cfg, n == 3 ? SOLVER_3X3 : SOLVER_2X2,
				       &tables, rp) < 0)
			return;
	}
	struct scramble *sc = malloc(sizeof *sc);
	if (sc == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	sc->n = n;
	sc->seed = seed;
	sc->has_seed = has_seed;
	if (api__offload(cfg, rq, make_scramble, sc, free, rp))
		return;
	make_scramble(cfg, sc, NULL, rp); /* a caller that cannot wait */
	free(sc);
}

/* The scramble sc asks for into rp (on a pool worker). */
static void make_scramble(const struct api_config *cfg, void *arg,
			  struct api_work *w, struct api_reply *rp)
{
	(void)w;
	const struct scramble *sc = arg;
	int64_t n = sc->n, seed = sc->seed;
	int has_seed = sc->has_seed;
	const void *tables = NULL;
	if ((n == 2 || n == 3) &&
	    api__tables_or_503(cfg, n == 3 ? SOLVER_3X3 : SOLVER_2X2, &tables,
			       rp) < 0)
		return;
	int cap = scramble_cap((int)n);
	cube_move *m = malloc((size_t)cap * sizeof *m);
	if (m == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	const char *kind;
	int count = scramble_draw((int)n, (uint64_t)seed, tables, m, cap,
				  &kind);
	if (count < 0) {
		free(m);
		problem_reply(rp, PROBLEM_SOLVER, "the solver failed: %s",
			      solve_strerror(count));
		return;
	}
	if (n > 3) {
		/* Applying a big cube's scramble to get its facelets costs
		 * like any other request's moves: the same work limit. */
		uint64_t work = 0;
		for (int i = 0; i < count; i++)
			work += move_work(&m[i], (int)n);
		if (cfg->max_work && work > cfg->max_work) {
			free(m);
			json_t *p = problem_reply(
				rp, PROBLEM_TOO_MUCH_WORK,
				"a %" PRId64 "×%" PRId64 " scramble moves %" PRIu64
				" stickers, more than the server's limit of "
				"%" PRIu64 " per request (--max-work)",
				n, n, work, cfg->max_work);
			if (p) {
				json_object_set_new(
					p, "limit",
					json_integer((json_int_t)cfg->max_work));
				json_object_set_new(p, "field",
						    json_string("size"));
			}
			return;
		}
	}
	size_t need = moves_print(m, (size_t)count, (int)n, NULL, 0);
	char *text = malloc(need + 1);
	cube_t *c = malloc(cube_sizeof((int)n));
	if (!text || !c) {
		free(text);
		free(c);
		free(m);
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	moves_print(m, (size_t)count, (int)n, text, need + 1);
	cube_init(c, (int)n);
	cube_apply_moves(c, m, (size_t)count);
	json_t *o = json_pack("{s:I, s:s, s:I, s:s#, s:i, s:o}", "size",
			      (json_int_t)n, "kind", kind, "seed",
			      (json_int_t)seed, "moves", text, (int)need,
			      "length", count, "facelets", repr_facelets(c));
	free(text);
	free(c);
	free(m);
	api_reply_json(rp, 200, o);
	/* a seed always gives the same scramble: anyone may keep it for a
	 * day (the HTTP layer adds its ETag); a random one never repeats */
	if (has_seed)
		rp->cache_max_age = 86400;
	else
		api_reply_header(rp, "Cache-Control", "no-store");
}

