/* m5.h — a 5×5 piece model for the five-phase reduction prototype
 * (research, not in core): the 36 face and wide turns, and how each moves
 * the x-centres, +-centres, wings and midges. Built from core's own
 * cube_turn, so it agrees with the cube by construction. */
#ifndef M5_H
#define M5_H
#include <stdint.h>
#include "cube.h"

#define M5_MOVES 36

enum { G1 = 1, G2 = 2, G3 = 4, G4 = 8, G5 = 16 };

struct m5move {
	uint8_t axis, lo, hi, qt;
	uint8_t face;  /* U R F D L B */
	uint8_t wide;
	uint8_t ord;   /* same-axis order: axis * 32 + lo * 5 + hi */
	uint8_t sets;  /* G1 … G5 it belongs to */
	uint8_t wpar;  /* parity of its wing permutation */
	uint8_t xp[24], tp[24]; /* centre place i goes to xp[i] */
	uint8_t wp[24];         /* wing slot w goes to wp[w] */
	uint8_t mp[12], mo[12]; /* midge slot p goes to mp[p], flipped mo[p] */
};

struct m5 {
	struct m5move mv[M5_MOVES];
	uint8_t xpos[24][3], tpos[24][3]; /* place → face, row, col */
	uint8_t wst[24][2][3];  /* wing slot → its two stickers */
	uint8_t wedge[24];      /* wing slot → edge */
	uint8_t mst[12][2][3];  /* midge slot → its two stickers */
	uint8_t whome[24][6][6]; /* slot, colours on its stickers → the wing
				  * (its home slot), 255 none */
	uint8_t cls[24];        /* wing slot's class under G4 ∪ G5: 1 = A */
	uint32_t amask;         /* the class-A slots */
	uint8_t aslot[12], bslot[12];
	uint8_t mcorr[12];      /* midge slot's correction: o ^ mcorr[p] ^
				 * mcorr[e] is kept by G4 ∪ G5 */
	uint8_t mf[M5_MOVES][12]; /* what a move does to that quantity */
	uint8_t list[6][M5_MOVES]; /* the moves of set k (1 … 5) */
	int cnt[6];
};

int m5_build(struct m5 *M);
int m5_parity(const uint8_t *p, int n);
void m5_name(const struct m5 *M, int k, char *out); /* "Uw2" */
/* apply move k to a cube */
void m5_apply(const struct m5 *M, cube_t *c, int k);

#endif
