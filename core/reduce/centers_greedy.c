/* centers_greedy.c — the free-move center phase: turns and short
 * sequences of turns chosen greedily while they put center stickers on
 * their faces faster than 3-cycles would.
 *
 * Free moves first. While centers are far from solved, plain turns fix
 * them far more cheaply than 3-cycles: for n <= FREE_MAX_N the centers
 * stage starts greedily, on an array of the center places with every
 * layer or block turn as a list of place pairs, taking whichever
 * sequence (one turn, two turns, a conjugate A B A', a commutator
 * A B A' B') puts the most center stickers on their face per move, while
 * that beats 1/3 of a sticker per move (on 4×4 each of the six best
 * first steps is judged together with the best step after it).
 * Edges may go anywhere meanwhile (they are paired later), but each wing
 * orbit's slices get an even number of quarter turns in all (one more at
 * the end where not), so the wing parity the oll_parity stage set holds.
 * The 3-cycles then finish each orbit.
 */
#include "centers_methods.h"
#include "turns.h"

/* Center stickers a turn puts on their face, less those it takes off. */
static int free_gain(const struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	const uint16_t(*pr)[2] = F->pr + G->first;
	int d = 0;
	for (uint32_t k = 0; k < G->count; k++) {
		int to = pr[k][0], from = pr[k][1];
		d += (F->cur[from] == F->tgt[to]) - (F->cur[to] == F->tgt[to]);
	}
	return d;
}

/* free_gain and free_apply in one pass over the pairs. */
static int free_gain_apply(struct freec *F, int g)
{
	const struct fgen *G = &F->gen[g];
	uint16_t(*pr)[2] = F->pr + G->first;
	int d = 0;
	for (uint32_t k = 0; k < G->count; k++) {
		int to = pr[k][0], from = pr[k][1];
		uint8_t v = F->cur[from];
		d += (v == F->tgt[to]) - (F->cur[to] == F->tgt[to]);
		F->tmp[k] = v;
	}
	for (uint32_t k = 0; k < G->count; k++)
		F->cur[pr[k][0]] = F->tmp[k];
	return d;
}

/* The free center phase goes on while a sequence puts at least
 * x->c_num / x->c_den center stickers on their face per move (the
 * 3-cycles that follow cost about a sticker per 3.5 to 4 moves). 1/3
 * gave the shortest answers alone (docs/solvers.md); the other variants
 * try others. */

struct fbest {
	int gain, len, seq[4];
};

/* The best sequences seen, best first: top[0..k), k <= FREE_LOOK. Where
 * the plan says (free_look) the FREE_LOOK best first steps are each
 * judged with the best step after them. */
#define FREE_LOOK 6

struct ftop {
	int k, want;
	struct fbest top[FREE_LOOK];
};

static int fbetter(int g1, int l1, int g2, int l2)
{
	return g1 * l2 > g2 * l1 || (g1 * l2 == g2 * l1 && g1 > g2);
}

static void free_consider(struct ftop *t, int gain, int len, int g1, int g2,
			  int g3, int g4)
{
	if (gain <= 0)
		return;
	if (t->k == t->want &&
	    !fbetter(gain, len, t->top[t->k - 1].gain, t->top[t->k - 1].len))
		return;
	int i = t->k < t->want ? t->k++ : t->k - 1;
	while (i > 0 && fbetter(gain, len, t->top[i - 1].gain,
				t->top[i - 1].len)) {
		t->top[i] = t->top[i - 1];
		i--;
	}
	struct fbest b = {gain, len, {g1, g2, g3, g4}};
	t->top[i] = b;
}

/* Greedy over sequences of one turn, two turns, conjugates A B A' and
 * (where the plan says, free_comms) commutators A B A' B':
 * the one that puts the most center stickers on their face per move,
 * while that beats the 3-cycles. Each wing orbit's slices are turned an
 * even number of quarter turns in all (one more at the end where not),
 * which keeps the parity the oll_parity stage set. */
/* One greedy step's candidates: the t->want best sequences of one or
 * two turns, conjugates and commutators, by stickers placed per move. */
static void free_step(struct ctx *x, struct ftop *t)
{
	struct freec *F = &x->w->fc;
	t->k = 0;
	for (int g1 = 0; g1 < F->ngen; g1++) {
		const struct fgen *G1 = &F->gen[g1];
		if (!G1->centers)
			continue;
		int a = free_gain_apply(F, g1);
		free_consider(t, a, 1, g1, -1, -1, -1);
		for (int g2 = 0; g2 < F->ngen; g2++) {
			const struct fgen *G2 = &F->gen[g2];
			if (!G2->centers)
				continue;
			if (G2->axis == G1->axis && G2->lo == G1->lo &&
			    G2->hi == G1->hi)
				continue;
			/* turns of one axis commute: each pair once */
			if (G2->axis == G1->axis && g2 < g1)
				continue;
			if (G2->axis == G1->axis) {
				free_consider(t, a + free_gain(F, g2), 2, g1,
					      g2, -1, -1);
				continue;
			}
			int i1 = reduce__free_inv(F, g1),
			    i2 = reduce__free_inv(F, g2);
			int c2 = free_gain_apply(F, g2);
			free_consider(t, a + c2, 2, g1, g2, -1, -1);
			if (!x->plan.free_comms) {
				free_consider(t, a + c2 + free_gain(F, i1), 3,
					      g1, g2, i1, -1);
				reduce__free_apply(F, i2);
				continue;
			}
			int c3 = free_gain_apply(F, i1);
			free_consider(t, a + c2 + c3, 3, g1, g2, i1, -1);
			int c4 = free_gain(F, i2);
			free_consider(t, a + c2 + c3 + c4, 4, g1, g2, i1,
				      i2);
			reduce__free_apply(F, g1);
			reduce__free_apply(F, i2);
		}
		reduce__free_apply(F, reduce__free_inv(F, g1));
	}
}

/* A candidate first step judged with the best step after it: the two
 * steps' stickers per move. */
static void free_lookahead(struct ctx *x, struct ftop *t, struct fbest *b)
{
	struct freec *F = &x->w->fc;
	int bg = 0, bl = 1;
	*b = t->top[0];
	for (int i = 0; i < t->k; i++) {
		const struct fbest *c = &t->top[i];
		for (int j = 0; j < c->len; j++)
			reduce__free_apply(F, c->seq[j]);
		struct ftop next;
		next.want = 1;
		free_step(x, &next);
		int g = c->gain, l = c->len;
		if (next.k && next.top[0].gain * x->c_den >=
				      next.top[0].len * x->c_num)
			g += next.top[0].gain, l += next.top[0].len;
		for (int j = c->len; j-- > 0;)
			reduce__free_apply(F, reduce__free_inv(F, c->seq[j]));
		if (fbetter(g, l, bg, bl)) {
			bg = g, bl = l;
			*b = *c;
		}
	}
}

int reduce__free_centers(struct ctx *x)
{
	struct freec *F = &x->w->fc;
	int rc = reduce__free_ready(x);
	if (rc < 0)
		return rc;
	/* (free moves run up to FREE_MAX_N, plan.h: 5 wing orbits at
	 * most) */
	unsigned par = (unsigned)x->cpar;
	for (;;) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		struct ftop t;
		t.want = x->plan.free_look ? FREE_LOOK : 1;
		free_step(x, &t);
		if (t.k == 0)
			break;
		struct fbest b = t.top[0];
		if (t.want > 1 && b.gain * x->c_den >= b.len * x->c_num)
			free_lookahead(x, &t, &b);
		if (b.gain * x->c_den < b.len * x->c_num ||
		    b.gain == 0)
			break;
		for (int k = 0; k < b.len; k++)
			if ((rc = reduce__free_emit(x, b.seq[k], &par)) < 0)
				return rc;
	}
	/* wing orbits left odd: one quarter turn of one of their slices,
	 * the best for the centers */
	for (int k = 1; k <= wing_orbits(x->n); k++) {
		if (!(par >> k & 1))
			continue;
		int bg = -1, best = -1;
		for (int g = 0; g < F->ngen; g++) {
			if (F->gen[g].wing != 1u << k || !F->gen[g].centers)
				continue;
			int a = free_gain(F, g);
			if (best < 0 || a > bg)
				bg = a, best = g;
		}
		if (best < 0)
			return SOLVE_ESTAGE;
		if ((rc = reduce__free_emit(x, best, &par)) < 0)
			return rc;
	}
	return par ? SOLVE_ESTAGE : 0;
}
