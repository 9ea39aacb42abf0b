/* centers.c — the centers stage: the methods a size's plan picks
 * (plan.c: the staged search, the greedy free turns, the oblique macros,
 * the block commutators), in order, and the 3-cycles that finish every
 * orbit.
 *
 * Staged centers. Up to STAGED_MAX_N a search with pruning tables
 * solves the X-centers and +-centers in four steps (U/D colours onto U
 * and D, L/R onto L and R, then each onto its own face), ring by ring,
 * in about half the moves of what follows; centers_staged.c says how.
 * The obliques (past 5×5), and any ring a search gives up on, are the
 * greedy phases'.
 *
 * Free moves first. While centers are far from solved, plain turns fix
 * them far more cheaply than 3-cycles (centers_greedy.c), up to
 * FREE_MAX_N. The obliques from 6×6 to 33×33 get the oblique macros
 * (centers_obliques.c), and the 3-cycles (orbits.c) then finish each
 * orbit.
 *
 * Past them (plan.blocks) greedy slices and then block commutators,
 * each acting on a whole rectangle of oblique orbits, come before the
 * 3-cycles (centers_blocks.c).
 */
#include <string.h>

#include "centers.h"
#include "centers_methods.h"
#include "orbits.h"
#include "turns.h"

/* Whether center orbit (r, c) of the cube is solved. */
static int orbit_solved(struct ctx *x, int r, int c)
{
	int m = x->m, id = c == r ? M_X : 2 * c == m ? M_PLUS : M_OBL;
	struct orbit o;
	uint8_t cur[NPOS];
	reduce__orbit_init(&o, &x->w->model[id], r, c, m);
	reduce__read_orbit(x, &o, cur);
	for (int i = 0; i < NPOS; i++)
		if (cur[i] != x->tcol[o.st[i][0][0]])
			return 0;
	return 1;
}

int reduce__stage_centers(struct ctx *x)
{
	int m = x->m, staged = 0;
	x->cpar = 0;
	memset(x->split, 0, sizeof x->split);
	x->erate = 0;
	if (x->plan.staged) {
		if (x->plan.edge_rate) {
			int rc = reduce__free_build(x);
			if (rc < 0)
				return rc;
			x->erate = 1;
		}
		staged = reduce__staged_centers(x);
		if (staged < 0)
			return staged;
	}
	if (x->plan.free_phase) {
		/* the edge phase needs the turns' place maps either way */
		int rc = staged ? reduce__free_ready(x)
				 : reduce__free_centers(x);
		if (rc < 0)
			return rc;
	}
	if (x->plan.blocks) {
		int rc = reduce__block_centers(x);
		if (rc < 0)
			return rc;
	}
	for (int r = 1; r < m - r; r++)
		for (int c = r; c < m - r; c++) {
			int id = c == r ? M_X : 2 * c == m ? M_PLUS : M_OBL;
			struct orbit o;
			uint8_t cur[NPOS], tgt[NPOS];
			reduce__orbit_init(&o, &x->w->model[id], r, c, m);
			for (int i = 0; i < NPOS; i++)
				tgt[i] = (uint8_t)x->tcol[o.st[i][0][0]];
			if (id == M_OBL && 2 * c < m && x->plan.obliques &&
			    !(orbit_solved(x, r, c) && orbit_solved(x, r, m - c))) {
				int rc = reduce__om_pair(x, r, c);
				if (rc < 0)
					return rc;
			}
			reduce__read_orbit(x, &o, cur);
			if (poll_now(x))
				return SOLVE_ENOTFOUND;
			long rc = reduce__solve_orbit(x, &o, cur, tgt);
			if (rc < 0)
				return (int)rc;
		}
	return 0;
}
