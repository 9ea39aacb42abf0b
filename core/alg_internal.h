/* alg_internal.h — what the notation module's two files share: the move
 * families the parser knows (alg.c) and the printer names (alg_print.c),
 * and the per-move metrics both add up. Not for other modules. */
#ifndef CUBED_ALG_INTERNAL_H
#define CUBED_ALG_INTERNAL_H

#include <stdint.h>

#include "alg.h"

enum fam_kind { FAM_FACE, FAM_WIDE, FAM_SLICE, FAM_WSLICE, FAM_ROT };

struct family {
	char name[3];
	unsigned char kind;  /* enum fam_kind */
	unsigned char axis;  /* enum cube_axis */
	signed char dir;     /* +1 turns like R/U/F, -1 like L/D/B */
	char letter;         /* face letter for printing face and wide moves */
};

extern const struct family alg__families[];
extern const char alg__rot_names[3];

/* to += x · times, saturating. */
void alg__metrics_add(alg_metrics *to, const alg_metrics *x, uint64_t times);
/* The metrics of one move on a size-n cube. */
void alg__move_metrics(const cube_move *m, int n, alg_metrics *out);

#endif
