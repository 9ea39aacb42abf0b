/* five_model.h — what five_tables.c (the 5×5 model and its tables) and
 * five.c (the five phases' searches) share: the model's layout, the
 * tables blob's offsets, and the small helpers both read it with.
 * Internal to core/reduce. */
#ifndef CUBED_REDUCE_FIVE_MODEL_H
#define CUBED_REDUCE_FIVE_MODEL_H
#include "solve_internal.h" /* SOLVE__HEADER */

#include "nibbles.h"
#include "phases.h"
#include "five45.h"

/* ---- sizes ------------------------------------------------------------ */

#define V_MOVES 36
#define C8_24 735471u          /* C(24,8): phase 1's masks */
#define C12_24 2704156u        /* C(24,12): phase 3's wing masks */
#define N16 12870u             /* C(16,8) */
#define N70 70u
#define T2_N ((size_t)N16 * N16)
#define C4_N ((size_t)N70 * N70 * N70 * N70)
#define V_UNSEEN 255

enum { G1 = 1, G2 = 2, G3 = 4, G4 = 8, G5 = 16 };

struct vmove {
	uint8_t axis, lo, hi, qt;
	uint8_t ord;  /* same-axis order: axis * 32 + lo * 5 + hi */
	uint8_t sets; /* G1 … G5 */
	uint8_t wpar; /* parity of its wing permutation */
	uint8_t xp[24], tp[24]; /* centre place i goes to xp[i] */
	uint8_t wp[24];         /* wing slot w goes to wp[w] */
	uint8_t mp[12];         /* midge slot p goes to mp[p] */
	uint8_t mf[12];         /* the change of a midge's turn against its
				 * slot's class-A end (0 for G4 and G5) */
};

struct vmodel {
	struct vmove mv[V_MOVES];
	uint8_t xpos[24][3], tpos[24][3]; /* place → face, row, col */
	uint8_t wst[24][2][3];   /* wing slot → its two stickers */
	uint8_t wedge[24];       /* wing slot → edge */
	uint8_t mst[12][2][3];   /* midge slot → its two stickers */
	uint8_t whome[24][6][6]; /* slot, colours → the wing's home, 255 */
	uint8_t cls[24];         /* 1: class A */
	uint8_t mcorr[12];
	uint8_t list[6][V_MOVES]; /* each phase's turns */
	uint8_t cnt[6];
	uint8_t rot[3][V_MOVES]; /* a turn in axis frame a → in the cube's */
	uint8_t nonud_x[16], nonud_t[16];
	uint8_t axx[3][8], axt[3][8]; /* each axis' places, + face first */
	uint8_t rank8[256], sub8[70];
	uint8_t pc8[256];        /* bits set in a byte (no POPCNT assumed) */
	uint32_t udx, udt, amask;
	uint32_t cr[3][17][256]; /* colex rank by bytes: byte b, set bits
				  * below it */
	uint16_t rank16[65536], sub16[N16];
	uint8_t map70[V_MOVES][3][2][70]; /* axis-keeping turns on splits */
	uint32_t pw[V_MOVES][3][256];     /* wing-slot masks by bytes */
	uint32_t px[V_MOVES][3][256], pt[V_MOVES][3][256]; /* centres' */
	uint16_t pm12[V_MOVES][4096];     /* midge error patterns */
	uint16_t mv2x[N16][22], mv2t[N16][22];
	uint8_t t3m[4096];
};

/* Layout of the tables blob. */
#define AL(x) (((size_t)(x) + 63) & ~(size_t)63)
#define OFF_MODEL ((size_t)SOLVE__HEADER)
#define OFF_T1X AL(OFF_MODEL + sizeof(struct vmodel))
#define OFF_T1T AL(OFF_T1X + C8_24)
#define OFF_T2 AL(OFF_T1T + C8_24)
#define OFF_T3W AL(OFF_T2 + T2_N / 2)
#define OFF_T3C AL(OFF_T3W + C12_24)
#define OFF_F45 AL(OFF_T3C + C4_N)
#define FIVE_SIZE (OFF_F45 + AL(reduce__five45_size()))

/* ---- small helpers ------------------------------------------------------ */

static inline int parity_of(const uint8_t *p, int n)
{
	int par = 0;
	uint32_t seen = 0;
	for (int i = 0; i < n; i++) {
		if (seen >> i & 1)
			continue;
		int len = 0;
		for (int j = i; !(seen >> j & 1); j = p[j]) {
			seen |= 1u << j;
			len++;
		}
		par ^= (len + 1) & 1;
	}
	return par;
}

static inline uint32_t by_bytes(const uint32_t (*t)[256], uint32_t m)
{
	return t[0][m & 255] | t[1][m >> 8 & 255] | t[2][m >> 16];
}

/* colex rank of a 24-bit mask among those with as many bits */
static inline uint32_t crank(const struct vmodel *M, uint32_t m)
{
	int p0 = M->pc8[m & 255], p1 = p0 + M->pc8[m >> 8 & 255];
	return M->cr[0][0][m & 255] + M->cr[1][p0][m >> 8 & 255] +
	       M->cr[2][p1][m >> 16];
}

static inline uint32_t c4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	return ((a * N70 + b) * N70 + c) * N70 + d;
}

static inline void axis_turn(cube_t *t, int a)
{
	if (a == 1)
		cube_turn(t, CUBE_Z, 0, 4, 1);
	else if (a == 2)
		cube_turn(t, CUBE_X, 0, 4, 1);
}

#endif
