/* centers_methods.h — the centers' methods (centers_staged.c,
 * centers_bars.c, centers_obliques.c, centers_blocks.c, centers_greedy.c),
 * which the centers stage (centers.c) runs as the plan picks them: their
 * entry points, the bounds reduce_max_moves needs of them, the shared
 * tables' checksum, and what the oblique macros and the bars share. Not
 * part of the API. */
#ifndef CUBED_REDUCE_CENTERS_METHODS_H
#define CUBED_REDUCE_CENTERS_METHODS_H

#include <string.h>

#include "internal.h"

/* Bounds reduce_max_moves needs: the longest oblique macro (with its
 * set-up: OM_LEN + 2), the bars' obliques and their longest macro. */
#define OM_LEN 12
#define BAR_OBL 48 /* obliques, two to a bar */
#define BAR_LEN 10

/* centers_greedy.c */
int reduce__free_centers(struct ctx *x);

/* The checksum of the shared tables as reduce_stage_tables_build makes
 * them (little-endian, 64-bit): their format version is made from it
 * (reduce.c), so set it anew whenever what they hold changes; the test
 * stage_tables_cache says the new value. */
#define REDUCE_STAGE_TABLES_SUM 0xb7018b56dad75f34ull

/* centers_staged.c; the tables a caller shares come in kinds of size,
 * built one by one on the work buffer of the size each kind names
 * (reduce__staged_kind_size: 0 past the last), behind the header
 * reduce.c seals */
int reduce__staged_centers(struct ctx *x);
void reduce__staged_reset(struct ctx *x);
size_t reduce__staged_shared_size(void);
int reduce__staged_kind_size(int k);
int reduce__staged_build_kind(struct ctx *x, void *shared, int k);

/* centers_obliques.c */
void reduce__obliques_reset(struct ctx *x);
int reduce__om_pair(struct ctx *x, int p, int q);

/* centers_bars.c */
void reduce__bars_reset(struct ctx *x);
void reduce__bar_setup(struct ctx *x, int k, int j);
size_t reduce__bar_macs_size(void);
int reduce__bar_build(void *macs, struct ctx *x);
long reduce__bar_macs_bad(const void *macs);
int reduce__bar_pair(struct ctx *x, uint64_t *par, int next);
int reduce__bar_rate(struct ctx *x, const cube_t *c);

/* centers_blocks.c */
int reduce__block_centers(struct ctx *x);

/* ------------------------------ the oblique macros' and the bars' turns */

/* The oblique macros and the bars write a turn in one byte: axis | model
 * layer << 2 | quarter turns << 5, and for the bars' OM_BLOCK: model
 * layers l and l + 1 turned together, one block of the cube's. */
#define OM_BLOCK 0x80

/* The last run of turns of one axis made (model layers: net quarter
 * turns), for what the next macro's first turn merges with. */
struct omtail {
	int axis;
	uint8_t q[7];
};

/* Moves a turn mv saves when made after the run t: 2 if it cancels a
 * turn of t, 1 if it merges into one, else 0 (a block turn: 0, a
 * bound; the moves made are simplified all the same). */
static inline int om_tail_saves(const struct omtail *t, uint8_t mv)
{
	if ((mv & OM_BLOCK) || (mv & 3) != t->axis || !t->q[mv >> 2 & 7])
		return 0;
	return (t->q[mv >> 2 & 7] + (mv >> 5)) % 4 == 0 ? 2 : 1;
}

static inline void om_tail_add(struct omtail *t, uint8_t mv)
{
	if (mv & OM_BLOCK) {
		/* a block ends the run: nothing after it counts as merged */
		memset(t, 0, sizeof *t);
		t->axis = -1;
		return;
	}
	if ((mv & 3) != t->axis) {
		memset(t, 0, sizeof *t);
		t->axis = mv & 3;
	}
	t->q[mv >> 2 & 7] = (uint8_t)((t->q[mv >> 2 & 7] + (mv >> 5)) % 4);
}

/* Candidate i (gain g, cost) into the list top, tg, tc of *nt (at most
 * want), kept best first by gain per move, if it gets in. */
static inline void top_put(int *top, int *tg, int *tc, int *nt, int want,
			   int i, int g, int cost)
{
	if (*nt == want && g * tc[*nt - 1] <= tg[*nt - 1] * cost)
		return;
	int at = *nt < want ? (*nt)++ : *nt - 1;
	for (; at > 0 && g * tc[at - 1] > tg[at - 1] * cost; at--)
		top[at] = top[at - 1], tg[at] = tg[at - 1], tc[at] = tc[at - 1];
	top[at] = i, tg[at] = g, tc[at] = cost;
}

#endif
