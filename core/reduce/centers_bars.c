/* centers_bars.c — the 7×7 bars: each +-center of ring 1 paired with the
 * two obliques beside it into a 1×3 bar while ring 2 stays solved, so that
 * ring 1's staged search (as on a 5×5) solves the obliques too.
 */
#include <string.h>

#include "alg.h"
#include "centers_methods.h"
#include "turns.h"

/* The bars (reduce__bar_pair; before bar_center, how they work): on 7×7, each
 * +-center of ring 1 with the two obliques beside it, paired into a
 * 1×3 bar while ring 2 stays solved. Turns as in the oblique macros:
 * axis | layer << 2 | qt << 5. */
/* the beam's width (plan.bar_beam), and from BAR_END obliques paired
 * on plan.bar_beam_end: plan.c says which sizes take which */
#ifndef BAR_END
#define BAR_END 20
#endif
#ifndef BAR_LOOK
#define BAR_LOOK 8
#endif
#ifndef BAR_BR
#define BAR_BR 3
#endif
#define BAR_NC 150   /* the center places, as om_center numbers them */
/* states scanned at once: at least the plan's widest beam */
#ifndef BAR_LANES
#define BAR_LANES 64
#endif
#define BAR_NB 24    /* bars */
#define BAR_DEPTH (BAR_OBL + 1)
#define BAR_MOV 16 /* bars a macro may change */
#ifndef BAR_MAX
#define BAR_MAX 131072
#endif
#define BAR_HASH (1 << 18)
/* finished states kept for the trials against the next bar step */
#define BAR_FIN 8
/* the moves of a trial's two steps kept, at most */
#define BAR_KEEP 1024
_Static_assert(PLAN_BAR_BEAM_MAX <= BAR_LANES, "bar lanes");
/* a scan reads its lanes' hits 8 bytes at a time (bar_scan_lanes) */
_Static_assert(BAR_LANES % 8 == 0, "bar lanes in words of 8");

/* A macro: its turns, and the bars it changes, in order, each as the
 * places its three stickers come from (bar b's place j gets the sticker
 * at src[j]); ring 1's corner centers are no bar's and left out. */
struct barent {
	uint8_t b, src[3];
};

struct barcand {
	uint8_t nb, len;
	uint8_t ub; /* the most it may gain: 2 per bar it breaks up */
	uint8_t ns;             /* bars it breaks up: e[0..ns) made of parts
				 * of others, whose bars are brk[0..ns) */
	uint8_t brk[BAR_MOV];
	uint8_t mv[BAR_LEN];
	struct barent e[BAR_MOV];
};

/* a node's macro turns the twins' layers (bar_twin_child) */
#define BAR_TWIN_CAND (1 << 30)
#define BAR_CAND(c) ((c) & (BAR_TWIN_CAND - 1))

struct barnode {
	uint8_t col[BAR_NC];
	/* the twins (bar_twin): the colour at twin i of oblique place
	 * W->obl[i], and how many match their bar's +-center */
	uint8_t tw[BAR_OBL];
	int16_t twins;
	struct omtail tail; /* the turns before it, for what merges */
	int16_t cost, paired, parent;
	int32_t cand;
};

/* What a scan reads of macro c[i], packed (as built, no macro breaks up
 * more than 6 bars): its bound, length, first turn, the bars it breaks
 * up as in struct barcand, and for each bar it makes of parts the three
 * places it takes them from as a triple of the model's (struct barmacs
 * tri: a model's 300,000 bars made of parts come from under 8,000
 * triples, so a scan weighs each triple once per state and a macro
 * reads one byte per bar it makes). */
#define BAR_HOTN 6
#define BAR_NTRI 16384
struct barhot {
	uint8_t ub, len, mv0, ns;
	uint16_t tri[BAR_HOTN];
	uint8_t brk[BAR_HOTN];
};

/* The macros of one model (a 7×7, or for the middle cells of an even
 * cube's edges of centers a 6×6), made once (in the shared tables, or
 * per solve): its size nm, its centers' side s = nm - 2, places nc. */
struct barmacs {
	int nm, s, nc;
	int count;
	struct barhot hot[BAR_MAX];
	uint8_t perm[3][7][4][BAR_NC]; /* place t goes to perm[..][t] */
	int8_t barof[BAR_NC];          /* the bar place t is in, or -1 */
	uint8_t bar[BAR_NB][3];        /* oblique, +-center, oblique */
	int ntri;
	uint8_t tri[BAR_NTRI][3];      /* the places of struct barhot's tri */
	struct barcand c[BAR_MAX];
};

struct barlib {
	int built[2];
	int model; /* the model set up: 0 the 7×7, 1 the 6×6 */
	/* the cube's layers the model's layer l stands for (lo[l]..hi[l]),
	 * and the coordinate its row or column l is read at (reduce__bar_set
	 * up) */
	int lo[7], hi[7], at[7];
	int k, j; /* the ring and cell set up */
	/* the twins (bar_twin): whether this step steers them, and the
	 * layers (lo_t, hi_t) and coordinates (at_t) the model's stand for
	 * when a macro moves them too */
	int twin;
	int lo_t[7], hi_t[7], at_t[7];
	uint8_t obl[BAR_OBL]; /* bar b's obliques: obl[2b], obl[2b + 1] */
	int8_t obi[BAR_NC];   /* the index in obl of place t, or -1 */
	/* the trials' best (reduce__bar_pair): its moves, wing parities */
	cube_move keep[BAR_KEEP];
	size_t nkeep, kfirst; /* (the first step's: kfirst) */
	uint64_t kpar;
	int kall; /* its second step paired every oblique */
	int ktwins; /* its macros with the twins' layers */
	const struct barmacs *B[2]; /* own, or the shared tables' */
	struct barmacs own[2];
	int32_t slot[BAR_HASH];  /* building: the maps seen */
	/* a step's scan, its states side by side (lanes): their stickers
	 * and pairs per bar, and per lane the best macros so far */
	_Alignas(64) uint8_t colT[BAR_NC][BAR_LANES];
	/* per triple and lane, the pairs the bar made of it would hold: a
	 * scan of L lanes keeps triple t's at triT[t·L] (L bytes a triple, so
	 * a narrow scan's rows share cache lines: 3 % less time on 32×32) */
	_Alignas(64) uint8_t triT[BAR_NTRI * BAR_LANES];
	_Alignas(64) uint8_t opT[BAR_NB][BAR_LANES];
	_Alignas(64) int16_t tgw[BAR_LANES], tcw[BAR_LANES];
	/* thr[k][l]: the least gain that beats lane l's worst at a cost
	 * of k moves (g·tcw > tgw·k), so that a scan weighs a macro on
	 * every lane with one comparison of bytes */
	_Alignas(64) int8_t thr[BAR_LEN + 1][BAR_LANES];
	int nt[BAR_LANES];
	int top[BAR_LANES][BAR_LOOK], tg[BAR_LANES][BAR_LOOK],
	    tc[BAR_LANES][BAR_LOOK];
	int nlev[BAR_DEPTH];
	struct barnode lev[BAR_DEPTH][PLAN_BAR_BEAM_MAX];
	struct barnode kids[PLAN_BAR_BEAM_MAX * BAR_LOOK];
};

/* On 7×7 the rings' staged search and the oblique macros left the
 * centers far longer than a 5×5's. The bars take the centers another
 * way, as a reduction to 5×5: ring 2 first (its staged steps alone),
 * then each +-center of ring 1 paired with the two obliques beside it
 * into a bar, then ring 1 (its staged steps alone). Ring 1's turns
 * (faces, layers 1 and m-1 and the blocks of both) keep bars whole and
 * ring 2 solved, and turn the bars as a 5×5's turns turn its +-centers,
 * so its search solves the obliques too. While ring 2 is searched, layer
 * 1 is free; so each ring is a 5×5's center search, outer blocks
 * included, on 5×5's tables. Pairing minds nothing but ring 2: ring 1's
 * corners and where the bars are are free. The macros keep ring 2 (and
 * the middle centers) in place:
 *  - [Y] S X S' [Y']: S one inner slice (layer 2, 3 or 4) or a block
 *    of two of them (layers 2-3 or 3-4: on the cube one turn, cell j
 *    with the bar's middle or the middle with cell m-j), X a turn of
 *    ring 1's group across it, Y an optional set-up from that group
 *    (3 to 5 moves);
 *  - [Y] [P Q P', F]: P and Q slices on two axes (P also either block
 *    of two), F a face turn or a slice of ring 1 on Q's axis, Y an
 *    optional turn of ring 1's group first, not undone: it only moves
 *    bars (8 or 9 moves).
 * The blocks (2026-11-27) added about 38,000 maps to the 7×7 model's
 * 79,000: a block moves half a bar, an oblique with the middle, onto
 * another bar's other oblique. 8 states, 17×17 1,709.6 → 1,643.9 moves
 * (the blocks in S alone 1,676.9; Q's blocks too 1,639.0 for 5 % more
 * time; ring 1's blocks 0-1 and 5-6 as X, Y or F nothing; S as layers
 * 2 and 4 together, 5 moves, 1,718: the beam takes them for the pairs
 * they make at once and pays later).
 * One macro per map of the bars' places (the cheapest), made once with
 * the stage tables. A bar moved whole takes its pairs along, so what a
 * macro gains is what the bars it makes of parts pair less what the bars
 * it breaks up did (as many): the macros are sorted by twice that many
 * per move, an upper bound, and a scan stops where it cannot beat the
 * best it holds; it reads them packed (struct barhot) and weighs each on
 * all of a step's states at once, side by side in lanes that the
 * compiler vectorizes (bar_scan). A macro whose first turn merges with
 * the turns before it costs that much less. A beam as the oblique
 * macros' (the plan's bar_beam states a step, bar_beam_end once BAR_END
 * obliques are paired, since the last obliques cost the most and gain the most from
 * a wider search; each grown by its BAR_LOOK best macros by obliques
 * paired per move, ranked by moves plus BAR_BR per oblique unpaired)
 * runs until every oblique is paired; the shortest such state is made.
 * Ring 2's last step picks, of its answers, the one that leaves the most
 * obliques paired (centers_staged.c, st_ida); on 6×6 to 9×9 its two best so rated are
 * each tried against the bar step itself (centers_staged.c, st_try;
 * plan.c, btrials); on 9×9 a bar step's cheapest answers are
 * tried against the ring's next bar step (reduce__bar_pair;
 * plan.c, bartrials). docs/solvers.md has the measurements
 * behind these settings and the variants tried and left out. */

/* Place t: face t / s², row t % s² / s + 1, column t % s + 1. */
static int bar_center(const struct barmacs *L, int f, int r, int c)
{
	return (f * L->s + r - 1) * L->s + c - 1;
}

static int bar_row(const struct barmacs *L, int t)
{
	return t % (L->s * L->s) / L->s + 1;
}

static int bar_col(const struct barmacs *L, int t)
{
	return t % L->s + 1;
}

/* Whether place t is in the model's ring 2 (what the macros keep). */
static int bar_inner(const struct barmacs *L, int t)
{
	int r = bar_row(L, t), c = bar_col(L, t);
	return r >= 2 && r <= L->nm - 3 && c >= 2 && c <= L->nm - 3;
}

/* The map of turns mv[0..len) on the places (t goes to map[t]), after
 * map pre (NULL: none). */
static void bar_compose(const struct barmacs *L, uint8_t *map,
			const uint8_t *pre, const uint8_t *mv, int len)
{
	for (int t = 0; t < L->nc; t++) {
		int p = pre ? pre[t] : t;
		for (int k = 0; k < len; k++) {
			int a = mv[k] & 3, l = mv[k] >> 2 & 7, q = mv[k] >> 5 & 3;
			p = L->perm[a][l][q][p];
			if (mv[k] & OM_BLOCK)
				p = L->perm[a][l + 1][q][p];
		}
		map[t] = (uint8_t)p;
	}
}

static uint8_t bar_mv(int axis, int layer, int qt)
{
	return (uint8_t)(axis | layer << 2 | qt << 5);
}

/* Model layers l and l + 1 turned together (OM_BLOCK): on the 7×7
 * model, layers 2 and 3 or 3 and 4, the cube's j..m-j-1 or j+1..m-j. */
static uint8_t bar_mvb(int axis, int layer, int qt)
{
	return (uint8_t)(bar_mv(axis, layer, qt) | OM_BLOCK);
}

/* Turn mv undone. */
static uint8_t bar_inv(uint8_t mv)
{
	return (uint8_t)((mv & (OM_BLOCK | 31)) | (4 - (mv >> 5 & 3)) << 5);
}

/* Keep macro mv[0..len) of map (t goes to map[t]) if it keeps ring 2
 * and no macro of its map is as short. */
static void bar_add(struct barmacs *L, int32_t *slot, const uint8_t *map,
		    const uint8_t *mv, int len)
{
	uint8_t inv[BAR_NC];
	for (int t = 0; t < L->nc; t++) {
		if (map[t] != t && bar_inner(L, t))
			return;
		inv[map[t]] = (uint8_t)t;
	}
	/* every byte set (the unused entries, the padding): the shared
	 * tables hold these, and their checksum must not depend on what
	 * the stack held */
	struct barcand a;
	memset(&a, 0, sizeof a);
	a.len = (uint8_t)len;
	for (int b = 0; b < BAR_NB; b++) {
		const uint8_t *p = L->bar[b];
		if (inv[p[0]] == p[0] && inv[p[1]] == p[1] && inv[p[2]] == p[2])
			continue;
		if (a.nb == BAR_MOV)
			return;
		struct barent *e = &a.e[a.nb++];
		e->b = (uint8_t)b;
		for (int j = 0; j < 3; j++)
			e->src[j] = inv[p[j]];
	}
	if (a.nb == 0)
		return;
	memcpy(a.mv, mv, (size_t)len);
	size_t sz = a.nb * sizeof *a.e;
	uint64_t h = 1469598103934665603ull;
	const unsigned char *k = (const unsigned char *)a.e;
	for (size_t j = 0; j < sz; j++)
		h = (h ^ k[j]) * 1099511628211ull;
	uint32_t i = (uint32_t)(h >> 20) & (BAR_HASH - 1);
	for (; slot[i] >= 0; i = (i + 1) & (BAR_HASH - 1)) {
		struct barcand *o = &L->c[slot[i]];
		if (o->nb == a.nb && memcmp(o->e, a.e, sz) == 0) {
			if (o->len > a.len)
				*o = a;
			return;
		}
	}
	if (L->count >= BAR_MAX)
		return;
	slot[i] = L->count;
	L->c[L->count++] = a;
}

/* The macros [Y] S X S' [Y'] (bar_build), Y and X of ring 1's group
 * (its turns ys[0..ny)), S any of the slices ss[0..ns) (axis 0; turned
 * to each axis here). */
static void bar_conj(struct barmacs *L, int32_t *slot, const uint8_t *ys,
		     int ny, const uint8_t *ss, int ns)
{
	uint8_t map[BAR_NC], pre[BAR_NC], mv[BAR_LEN];
	for (int y = 0; y <= ny; y++) {
		int k0 = y < ny;
		if (k0) {
			mv[0] = ys[y];
			bar_compose(L, pre, NULL, mv, 1);
		}
		for (int sa = 0; sa < 3; sa++)
		for (int si = 0; si < ns; si++)
		for (int sq = 1; sq <= 3; sq++)
		for (int x1 = 0; x1 < ny; x1++) {
			if ((ys[x1] & 3) == sa)
				continue;
			int k = k0;
			mv[k] = (uint8_t)(ss[si] | sa | sq << 5);
			mv[k + 1] = ys[x1];
			mv[k + 2] = bar_inv(mv[k]);
			k += 3;
			bar_compose(L, map, k0 ? pre : NULL, mv + k0, k - k0);
			bar_add(L, slot, map, mv, k);
			if (!k0)
				continue;
			mv[k++] = bar_inv(ys[y]);
			bar_compose(L, map, NULL, mv, k);
			bar_add(L, slot, map, mv, k);
		}
	}
}

/* Macro a's order: by ub per move, most first (2520 = lcm(1..10)). */
static int bar_key(const struct barcand *a)
{
	return a->ub * 2520 / a->len;
}

static void bar_sift(struct barcand *c, int i, int n)
{
	for (;;) {
		int k = 2 * i + 1;
		if (k >= n)
			return;
		if (k + 1 < n && bar_key(&c[k + 1]) < bar_key(&c[k]))
			k++;
		if (bar_key(&c[i]) <= bar_key(&c[k]))
			return;
		struct barcand t = c[i];
		c[i] = c[k];
		c[k] = t;
		i = k;
	}
}

/* The id of the triple of places src in L->tri, added if new (slot: a
 * hash of ids + 1, cleared by the caller); -1 when the table is full. */
static int bar_tri(struct barmacs *L, int32_t *slot, const uint8_t *src)
{
	uint32_t key = ((uint32_t)src[0] * BAR_NC + src[1]) * BAR_NC + src[2],
		 h = key * 2654435761u >> 14 & (BAR_HASH - 1);
	for (; slot[h]; h = (h + 1) & (BAR_HASH - 1))
		if (!memcmp(L->tri[slot[h] - 1], src, 3))
			return slot[h] - 1;
	if (L->ntri >= BAR_NTRI)
		return -1;
	memcpy(L->tri[L->ntri], src, 3);
	slot[h] = ++L->ntri;
	return L->ntri - 1;
}

/* Each macro's ub, and the macros sorted by ub per move, most first
 * (a heap sort: no allocation), so that a scan may stop where no macro
 * left can make its best; then their packed summaries (struct barhot),
 * each bar made of parts as its triple's id. SOLVE_ESTAGE if the
 * triples outgrow BAR_NTRI (under 8,000 as built). */
static int bar_order(struct barmacs *L, int32_t *slot)
{
	for (int i = 0; i < L->count; i++) {
		struct barcand *a = &L->c[i];
		/* a bar moved whole takes its pairs along; the pairs a macro
		 * gains are those of the bars it makes of parts, less those
		 * of the bars it breaks up: as many, the rest being moved
		 * whole or left */
		uint32_t kept = (1u << BAR_NB) - 1;
		for (int j = 0; j < a->nb; j++)
			kept &= ~(1u << a->e[j].b);
		a->ns = 0;
		for (int j = 0; j < a->nb; j++) {
			/* whole: its cells all from one bar (cells keep
			 * their kind, and a 6×6 bar's first cell is also
			 * its third) */
			const uint8_t *src = a->e[j].src;
			int wb = L->barof[src[1]];
			if (L->barof[src[0]] == wb && L->barof[src[2]] == wb) {
				kept |= 1u << wb;
				continue;
			}
			struct barent t = a->e[a->ns];
			a->e[a->ns++] = a->e[j];
			a->e[j] = t;
		}
		int nbrk = 0;
		for (int b = 0; b < BAR_NB; b++)
			if (!(kept >> b & 1))
				a->brk[nbrk++] = (uint8_t)b;
		a->ub = (uint8_t)(2 * a->ns);
		if (nbrk != a->ns) {
			/* cannot be (a permutation of the places); if it were,
			 * weigh every bar it changes */
			a->ns = a->nb;
			for (int j = 0; j < a->nb; j++)
				a->brk[j] = a->e[j].b;
			a->ub = (uint8_t)(2 * a->nb);
		}
	}
	int n = L->count;
	for (int i = n / 2 - 1; i >= 0; i--)
		bar_sift(L->c, i, n);
	for (int k = n - 1; k > 0; k--) {
		struct barcand t = L->c[0];
		L->c[0] = L->c[k];
		L->c[k] = t;
		bar_sift(L->c, 0, k);
	}
	memset(slot, 0, BAR_HASH * sizeof *slot);
	L->ntri = 0;
	for (int i = 0; i < n; i++) {
		const struct barcand *a = &L->c[i];
		struct barhot *h = &L->hot[i];
		memset(h, 0, sizeof *h);
		h->len = a->len;
		h->mv0 = a->mv[0];
		if (a->ns > BAR_HOTN)
			continue; /* none as built; never chosen if one were */
		h->ub = a->ub;
		h->ns = a->ns;
		for (int j = 0; j < a->ns; j++) {
			int id = bar_tri(L, slot, a->e[j].src);
			if (id < 0)
				return SOLVE_ESTAGE;
			h->tri[j] = (uint16_t)id;
			h->brk[j] = a->brk[j];
		}
	}
	return 0;
}

/* The macros of the model of size nm (7 or 6). */
static int bar_build(struct barmacs *L, int32_t *slot, cube_t *sim, int nm)
{
	if (cube_sizeof(nm) > 1024)
		return SOLVE_ESTAGE;
	L->nm = nm;
	L->s = nm - 2;
	L->nc = 6 * L->s * L->s;
	int m = nm - 1;
	for (int a = 0; a < 3; a++)
		for (int l = 0; l < nm; l++)
			for (int qt = 1; qt <= 3; qt++) {
				cube_init(sim, nm);
				for (int t = 0; t < L->nc; t++)
					cube__set(sim, t / (L->s * L->s),
						  bar_row(L, t), bar_col(L, t),
						  LABEL0 + t);
				cube_turn(sim, a, l, l, qt);
				for (int t = 0; t < L->nc; t++) {
					int v = cube_get(sim, t / (L->s * L->s),
							 bar_row(L, t),
							 bar_col(L, t)) - LABEL0;
					if (v < 0 || v >= L->nc)
						return SOLVE_ESTAGE;
					L->perm[a][l][qt][v] = (uint8_t)t;
				}
			}
	/* the bars: top, bottom, left, right of each face (on 6×6 two
	 * cells, the first written twice: bar_pairs then counts 2 for a
	 * bar whole, as a 7×7 bar's two obliques on its +-center) */
	static const uint8_t shape7[4][3][2] = {
		{{1, 2}, {1, 3}, {1, 4}}, {{5, 2}, {5, 3}, {5, 4}},
		{{2, 1}, {3, 1}, {4, 1}}, {{2, 5}, {3, 5}, {4, 5}}};
	static const uint8_t shape6[4][3][2] = {
		{{1, 2}, {1, 3}, {1, 2}}, {{4, 2}, {4, 3}, {4, 2}},
		{{2, 1}, {3, 1}, {2, 1}}, {{2, 4}, {3, 4}, {2, 4}}};
	const uint8_t(*shape)[3][2] = nm == 7 ? shape7 : shape6;
	memset(L->barof, -1, sizeof L->barof);
	for (int f = 0, b = 0; f < 6; f++)
		for (int k = 0; k < 4; k++, b++)
			for (int j = 0; j < 3; j++) {
				int t = bar_center(L, f, shape[k][j][0],
						   shape[k][j][1]);
				L->bar[b][j] = (uint8_t)t;
				L->barof[t] = (int8_t)b;
			}
	memset(slot, -1, BAR_HASH * sizeof *slot);
	L->count = 0;
	/* ring 1's group: its turns, and "no set-up" last */
	const uint8_t ring1[4] = {0, 1, (uint8_t)(m - 1), (uint8_t)m};
	uint8_t ys[37];
	int ny = 0;
	for (int a = 0; a < 3; a++)
		for (int i = 0; i < 4; i++)
			for (int qt = 1; qt <= 3; qt++)
				ys[ny++] = bar_mv(a, ring1[i], qt);
	/* S and P: the inner slices, on the 7×7 then also its two blocks
	 * of two (the cube's cell j with the block, or the block with
	 * m-j: one turn each) */
	uint8_t ss[5], ps[7];
	int ns = 0, np = 0;
	for (int l = 1; l < m; l++) {
		if (l >= 2 && l <= nm - 3)
			ss[ns++] = bar_mv(0, l, 0);
		ps[np++] = bar_mv(0, l, 0);
	}
	if (nm == 7)
		for (int l = 2; l <= 3; l++)
			ss[ns++] = ps[np++] = bar_mvb(0, l, 0);
	bar_conj(L, slot, ys, ny, ss, ns);
	uint8_t map[BAR_NC], mv[BAR_LEN];
	/* the commutators, each made once and then after each set-up */
	uint8_t base[BAR_NC];
	/* F: a face, or a slice of ring 1 (it moves bars whole) */
	const uint8_t fl[4] = {0, (uint8_t)m, 1, (uint8_t)(m - 1)};
	for (int A = 0; A < 3; A++)
	for (int B = 0; B < 3; B++) {
		if (A == B)
			continue;
		for (int pi = 0; pi < np; pi++)
		for (int pq = 1; pq <= 3; pq++)
		for (int ql = 1; ql < m; ql++)
		for (int qq = 1; qq <= 3; qq++)
		for (int fi = 0; fi < 4; fi++)
		for (int fq = 1; fq <= 3; fq++) {
			uint8_t P = (uint8_t)(ps[pi] | A | pq << 5),
				Q = bar_mv(B, ql, qq), F = bar_mv(B, fl[fi], fq);
			const uint8_t c8[8] = {P, Q, bar_inv(P), F,
					       P, bar_inv(Q), bar_inv(P),
					       bar_inv(F)};
			bar_compose(L, base, NULL, c8, 8);
			int keeps = 1;
			for (int t = 0; t < L->nc && keeps; t++)
				keeps = base[t] == t || !bar_inner(L, t);
			if (!keeps)
				continue;
			memcpy(mv + 1, c8, 8);
			bar_add(L, slot, base, mv + 1, 8);
			for (int y = 0; y < ny; y++) {
				mv[0] = ys[y];
				const uint8_t *py = L->perm[ys[y] & 3]
							   [ys[y] >> 2 & 7]
							   [ys[y] >> 5 & 3];
				for (int t = 0; t < L->nc; t++)
					map[t] = base[py[t]];
				bar_add(L, slot, map, mv, 9);
			}
		}
	}
	if (L->count == 0)
		return SOLVE_ESTAGE;
	return bar_order(L, slot);
}

static struct barlib *barlib_of(struct ctx *x)
{
	return (struct barlib *)x->region[REDUCE_R_BARS];
}

size_t reduce__bars_size(int n)
{
	return reduce__plan(n, EFFORT_INSIDE).inside
		       ? (sizeof(struct barlib) + 63) & ~(size_t)63
		       : 0;
}

void reduce__bars_reset(struct ctx *x)
{
	struct barlib *W = barlib_of(x);
	W->built[0] = W->built[1] = 0;
}

/* The model's layers 0..6 as the cube's 0, k, j, the block j+1..m-j-1,
 * m-j, m-k, m: ring k's bars grow by its cells j and m-j, the block's
 * cells of ring k being a bar already (on 7×7, k = 1 and j = 2: the
 * model is the cube). The model's ring 2 is then the block j..m-j, the
 * centers inside ring k, all solved; a model layer moves every cell it
 * stands for alike, so the macros keep those and the bars already made,
 * and leave every inner wing orbit's parity as it was. */
void reduce__bar_setup(struct ctx *x, int k, int j)
{
	struct barlib *W = barlib_of(x);
	int m = x->m;
	W->k = k, W->j = j;
	if (j + 1 > m - j - 1) {
		/* an even cube's middle two cells: the 6×6, its layers the
		 * cube's 0, k, j, m-j, m-k, m */
		const int lo[6] = {0, k, j, m - j, m - k, m};
		W->model = 1;
		W->twin = 0;
		for (int l = 0; l < 6; l++)
			W->lo[l] = W->hi[l] = W->at[l] = lo[l];
		return;
	}
	const int lo[7] = {0, k, j, j + 1, m - j, m - k, m},
		  hi[7] = {0, k, j, m - j - 1, m - j, m - k, m};
	W->model = 0;
	for (int l = 0; l < 7; l++) {
		W->lo[l] = lo[l];
		W->hi[l] = hi[l];
		W->at[l] = lo[l];
	}
	W->at[3] = m / 2;
	/* the twins: cell j - 1, while it is still inside ring k */
	W->twin = x->plan.bar_twins && j - 1 > k;
	for (int l = 0; l < 7; l++)
		W->lo_t[l] = W->lo[l], W->hi_t[l] = W->hi[l],
		W->at_t[l] = W->at[l];
	W->lo_t[2] = W->at_t[2] = j - 1;
	W->hi_t[4] = W->at_t[4] = m - j + 1;
}

#define BAR_MACS_AT ((sizeof(struct barmacs) + 63) & ~(size_t)63)

/* Both models' macros, one after the other. */
size_t reduce__bar_macs_size(void)
{
	return 2 * BAR_MACS_AT;
}

/* The macros made into macs (reduce__bar_macs_size() bytes), for the
 * tables a caller shares; x's work buffer (size 7) lends the scratch. */
int reduce__bar_build(void *macs, struct ctx *x)
{
	int rc = bar_build((struct barmacs *)macs, barlib_of(x)->slot,
			   (cube_t *)(void *)x->w->sim, 7);
	if (rc < 0)
		return rc;
	return bar_build((struct barmacs *)(void *)((unsigned char *)macs +
						    BAR_MACS_AT),
			 barlib_of(x)->slot, (cube_t *)(void *)x->w->sim, 6);
}

/* What the scan (bar_scan) indexes in macs (reduce__bar_macs_size()
 * bytes, both models), checked: the count of fields and indices outside
 * the arrays they index, 0 for all bar_build makes. The sanitized build
 * leaves the scan uninstrumented (REDUCE_UNSANITIZED, internal.h), so the
 * reduce suite checks its bounds here. */
long reduce__bar_macs_bad(const void *macs)
{
	long bad = 0;
	for (int k = 0; k < 2; k++) {
		const struct barmacs *L =
			(const struct barmacs *)(const void *)(
				(const unsigned char *)macs + k * BAR_MACS_AT);
		if (L->nc < 1 || L->nc > BAR_NC || L->ntri < 0 ||
		    L->ntri > BAR_NTRI || L->count < 0 || L->count > BAR_MAX) {
			bad++;
			continue;
		}
		for (int t = 0; t < L->ntri; t++)
			for (int j = 0; j < 3; j++)
				bad += L->tri[t][j] >= L->nc;
		for (int b = 0; b < BAR_NB; b++)
			for (int j = 0; j < 3; j++)
				bad += L->bar[b][j] >= L->nc;
		for (int i = 0; i < L->count; i++) {
			const struct barhot *a = &L->hot[i];
			bad += a->len > BAR_LEN;
			if (a->ns > BAR_HOTN) {
				bad++;
				continue;
			}
			for (int j = 0; j < a->ns; j++)
				bad += a->tri[j] >= L->ntri ||
				       a->brk[j] >= BAR_NB;
		}
	}
	return bad;
}

static int bar_pairs(const struct barmacs *L, const uint8_t *col, int b)
{
	int t = col[L->bar[b][1]];
	return (col[L->bar[b][0]] == t) + (col[L->bar[b][2]] == t);
}

static int bar_count(const struct barmacs *L, const uint8_t *col)
{
	int k = 0;
	for (int b = 0; b < BAR_NB; b++)
		k += bar_pairs(L, col, b);
	return k;
}

static void bar_apply(const struct barmacs *L, const struct barcand *a,
		      const uint8_t *col, uint8_t *out)
{
	memcpy(out, col, (size_t)L->nc);
	for (int j = 0; j < a->nb; j++)
		for (int i = 0; i < 3; i++)
			out[L->bar[a->e[j].b][i]] = col[a->e[j].src[i]];
}

static void bar_read(const struct barlib *W, const struct barmacs *L,
		     const cube_t *c, uint8_t *col)
{
	for (int t = 0; t < L->nc; t++)
		col[t] = (uint8_t)cube_get(c, t / (L->s * L->s),
					   W->at[bar_row(L, t)],
					   W->at[bar_col(L, t)]);
}

/* The twins. Ring k's next bar step (cell j - 1) pairs the obliques
 * beside the ones this step pairs, with the same +-centers. A macro's
 * turns of the model's layer 2 may as well turn the cube's block
 * j-1..j (and layer 4's, m-j..m-j+1; the blocks with layer 3 likewise),
 * in as many moves: the model is then the cube's layers 0, k, j-1..j,
 * j+1..m-j-1, m-j..m-j+1, m-k, m, whose ring 2 is as solved as before
 * (ring j - 1's cells there are the model's, moved as the cells beside
 * them are), so such a macro keeps what the macro keeps and pairs this
 * step's obliques as it does. Cell j - 1's obliques, the twins of cell
 * j's, then move exactly as the model's obliques; with the macro as it
 * is, only its turns of layers 0, 1, 5 and 6 move them (the others turn
 * no cell of theirs). Each child of the beam takes the way that leaves
 * more twins paired with their bar's +-center, and the beam ranks a
 * twin paired as a move saved: the next step starts with them paired.
 * Only the whole macro either way: a block on one axis only would read
 * a cell differently once a face turn carries it to another axis. */

/* The model's obliques, two to a bar, and their indexes (W->obl, obi). */
static void bar_twin_places(struct barlib *W, const struct barmacs *L)
{
	memset(W->obi, -1, sizeof W->obi);
	for (int b = 0; b < BAR_NB; b++)
		for (int i = 0; i < 2; i++) {
			W->obl[2 * b + i] = L->bar[b][2 * i];
			W->obi[L->bar[b][2 * i]] = (int8_t)(2 * b + i);
		}
}

/* The twins of cube c (the model set up). */
static void bar_twin_read(const struct barlib *W, const struct barmacs *L,
			  const cube_t *c, uint8_t *tw)
{
	for (int i = 0; i < BAR_OBL; i++) {
		int t = W->obl[i];
		tw[i] = (uint8_t)cube_get(c, t / (L->s * L->s),
					  W->at_t[bar_row(L, t)],
					  W->at_t[bar_col(L, t)]);
	}
}

/* Twins paired with their bar's +-center in col. */
static int bar_twin_count(const struct barmacs *L, const uint8_t *col,
			  const uint8_t *tw)
{
	int k = 0;
	for (int b = 0; b < BAR_NB; b++) {
		int t = col[L->bar[b][1]];
		k += (tw[2 * b] == t) + (tw[2 * b + 1] == t);
	}
	return k;
}

/* Twins tw after macro a into out, the macro as it is (all 0: its
 * turns of layers 0, 1, 5 and 6 alone, at most a few) or with the
 * twins' layers (all 1: as its map of the bars moves their obliques);
 * returns those paired in col (the model's places after a). */
static int bar_twin_move(const struct barlib *W, const struct barmacs *L,
			 const struct barcand *a, const uint8_t *tw,
			 const uint8_t *col, uint8_t *out, int all)
{
	if (all) {
		memcpy(out, tw, BAR_OBL);
		for (int j = 0; j < a->nb; j++) {
			int b = a->e[j].b;
			out[2 * b] = tw[W->obi[a->e[j].src[0]]];
			out[2 * b + 1] = tw[W->obi[a->e[j].src[2]]];
		}
		return bar_twin_count(L, col, out);
	}
	uint8_t mv[BAR_LEN];
	int n = 0;
	for (int i = 0; i < a->len; i++) {
		int l = a->mv[i] >> 2 & 7;
		if (!(a->mv[i] & OM_BLOCK) && (l <= 1 || l >= 5))
			mv[n++] = a->mv[i];
	}
	if (n == 0) {
		memcpy(out, tw, BAR_OBL);
		return bar_twin_count(L, col, out);
	}
	for (int i = 0; i < BAR_OBL; i++) {
		int p = W->obl[i];
		for (int k = 0; k < n; k++)
			p = L->perm[mv[k] & 3][mv[k] >> 2 & 7][mv[k] >> 5 & 3]
				   [p];
		out[W->obi[p]] = tw[i];
	}
	return bar_twin_count(L, col, out);
}

/* Child k of parent pa by macro a (k->col made): its twins, the macro's
 * way that pairs more of them (BAR_TWIN_CAND in k->cand when it turns
 * their layers). */
static void bar_twin_child(const struct barlib *W, const struct barmacs *L,
			   const struct barcand *a, const struct barnode *pa,
			   struct barnode *k)
{
	uint8_t with[BAR_OBL];
	int as = bar_twin_move(W, L, a, pa->tw, k->col, k->tw, 0);
	int al = bar_twin_move(W, L, a, pa->tw, k->col, with, 1);
	if (al > as) {
		memcpy(k->tw, with, sizeof with);
		k->cand |= BAR_TWIN_CAND;
		as = al;
	}
	k->twins = (int16_t)as;
}

/* A state's rank in the beam: moves, BAR_BR per oblique unpaired, one
 * less per twin paired (0 where the step has none). */
static int bar_score(const struct barnode *s)
{
	return s->cost + BAR_BR * (BAR_OBL - s->paired) - s->twins;
}

/* The pairs a bar made of places c0, c1, c2 would hold, lane by lane
 * (restrict parameters: the rows never overlap, so the loop vectorizes
 * without a check for overlap). */
static inline __attribute__((always_inline)) REDUCE_UNSANITIZED void
bar_tri_row(uint8_t *restrict to, const uint8_t *restrict c0,
	    const uint8_t *restrict c1, const uint8_t *restrict c2,
	    const int lanes)
{
	for (int l = 0; l < lanes; l++)
		to[l] = (uint8_t)((c0[l] == c1[l]) + (c2[l] == c1[l]));
}

/* For each state lane[0..nl) of step d, its BAR_LOOK best macros by
 * obliques paired per move among the first cap, best first (W->top, tg,
 * tc; W->nt of them). The states are scanned side by side, each macro
 * weighed on all at once (loops over BAR_LANES lanes, which the
 * compiler vectorizes; the lanes past nl never gain). */
static inline __attribute__((always_inline)) REDUCE_UNSANITIZED void
bar_scan_lanes(const struct barmacs *L, struct barlib *W, int d,
	       const int *lane, int nl, int cap, const int lanes)
{
	for (int l = 0; l < lanes; l++) {
		const uint8_t *col = W->lev[d][lane[l < nl ? l : 0]].col;
		for (int t = 0; t < L->nc; t++)
			W->colT[t][l] = l < nl ? col[t] : 0;
		for (int b = 0; b < BAR_NB; b++)
			W->opT[b][l] = (uint8_t)(l < nl ? bar_pairs(L, col, b)
							: 2);
		W->tgw[l] = 0, W->tcw[l] = 1, W->nt[l] = 0;
		for (int k = 0; k <= BAR_LEN; k++)
			W->thr[k][l] = 1;
	}
	for (int t = 0; t < L->ntri; t++)
		bar_tri_row(W->triT + (size_t)t * lanes,
			    W->colT[L->tri[t][0]], W->colT[L->tri[t][1]],
			    W->colT[L->tri[t][2]], lanes);
	/* once every lane holds BAR_LOOK, the worst of their worsts (mg /
	 * mc, lane ml's) */
	int full = 0, mg = 0, mc = 1, ml = -1, i = 0;
	for (; i < cap; i++) {
		const struct barhot *a = &L->hot[i];
		/* (its first turn may merge: 2 moves less at most) */
		int least = a->len > 3 ? a->len - 2 : 1;
		if (full == nl && a->ub * mc <= mg * least)
			break; /* nor any after it, in any lane */
		int8_t g[BAR_LANES];
		memset(g, 0, (size_t)lanes);
		for (int j = 0; j < a->ns; j++) {
			const uint8_t *p = W->triT + (size_t)a->tri[j] * lanes,
				      *o = W->opT[a->brk[j]];
			for (int l = 0; l < lanes; l++)
				g[l] = (int8_t)(g[l] + p[l] - o[l]);
		}
		/* (bytes compared, then read 8 at a time: the compiler
		 * folded a byte-wise OR in shifts, 7 % of a 32×32's time) */
		const int8_t *thr = W->thr[least];
		uint8_t hit[BAR_LANES];
		for (int l = 0; l < lanes; l++)
			hit[l] = (uint8_t)(g[l] >= thr[l]);
		uint64_t any = 0;
		for (int l = 0; l < lanes; l += 8) {
			uint64_t w;
			memcpy(&w, hit + l, sizeof w);
			any |= w;
		}
		if (!any)
			continue;
		for (int l = 0; l < nl; l++) {
			if (g[l] <= 0 || g[l] * W->tcw[l] <= W->tgw[l] * least)
				continue;
			const struct barnode *s = &W->lev[d][lane[l]];
			int cost = a->len - om_tail_saves(&s->tail, a->mv0);
			top_put(W->top[l], W->tg[l], W->tc[l], &W->nt[l],
				BAR_LOOK, i, g[l], cost < 1 ? 1 : cost);
			if (W->nt[l] < BAR_LOOK)
				continue;
			/* full: its worst is what a macro must beat */
			if (W->tcw[l] == 1 && W->tgw[l] == 0)
				full++;
			W->tgw[l] = (int16_t)W->tg[l][BAR_LOOK - 1];
			W->tcw[l] = (int16_t)W->tc[l][BAR_LOOK - 1];
			for (int k = 0; k <= BAR_LEN; k++) {
				int v = W->tgw[l] * k / W->tcw[l] + 1;
				W->thr[k][l] = (int8_t)(v < 127 ? v : 127);
			}
			/* a lane's worst only gets better: the least of
			 * them moves only when it was lane ml's */
			if (full == nl && (ml < 0 || ml == l)) {
				mg = W->tgw[0], mc = W->tcw[0], ml = 0;
				for (int k = 1; k < nl; k++)
					if (W->tgw[k] * mc < mg * W->tcw[k])
						mg = W->tgw[k], mc = W->tcw[k],
						ml = k;
			}
		}
	}
}

/* A beam of up to 16 states (most steps) scans a quarter of the lanes,
 * one of up to 32 half. Built for AVX2 too (internal.h): twice the
 * lanes a vector. */
REDUCE_CLONES("avx2") REDUCE_UNSANITIZED static void
bar_scan(const struct barmacs *L, struct barlib *W, int d, const int *lane,
	 int nl, int cap)
{
	if (nl <= 16)
		bar_scan_lanes(L, W, d, lane, nl, cap, 16);
	else if (nl <= 32)
		bar_scan_lanes(L, W, d, lane, nl, cap, 32);
	else
		bar_scan_lanes(L, W, d, lane, nl, cap, BAR_LANES);
}

/* The macros: the shared tables', or made now; NULL on error (rc). */
static const struct barmacs *bar_macs(struct ctx *x, int *rc)
{
	struct barlib *W = barlib_of(x);
	int k = W->model;
	if (!W->built[k]) {
		const unsigned char *sh = x->shared_bars;
		W->B[k] = sh ? (const struct barmacs *)(const void *)(
				       sh + (size_t)k * BAR_MACS_AT)
			     : &W->own[k];
		if (!sh && (*rc = bar_build(&W->own[k], W->slot,
					    (cube_t *)(void *)x->w->sim,
					    k ? 6 : 7)) < 0)
			return NULL;
		W->built[k] = 1;
	}
	return W->B[k];
}

/* The obliques c leaves unpaired (c: the cube as a staged search's
 * answer would leave it). */
int reduce__bar_rate(struct ctx *x, const cube_t *c)
{
	int rc;
	const struct barmacs *L = bar_macs(x, &rc);
	if (!L)
		return 0;
	uint8_t col[BAR_NC];
	bar_read(barlib_of(x), L, c, col);
	return BAR_OBL - bar_count(L, col);
}

/* A finished state the beam met (its parent lev[d][parent], the macro
 * cand after it), kept for the trials against the next bar step. */
struct barfin {
	int16_t cost, d, parent;
	int32_t cand;
};

/* Keep f among the BAR_FIN cheapest finished states met so far, F[0..*nf)
 * cheapest first, the first met first among equals. */
static void bar_fin_put(struct barfin *F, int *nf, struct barfin f)
{
	int i = *nf < BAR_FIN ? (*nf)++ : BAR_FIN;
	if (i == BAR_FIN && f.cost >= F[BAR_FIN - 1].cost)
		return;
	if (i == BAR_FIN)
		i = BAR_FIN - 1;
	for (; i > 0 && F[i - 1].cost > f.cost; i--)
		F[i] = F[i - 1];
	F[i] = f;
}

/* The beam from the cube as it is (the model set up): *bd, *bi the
 * cheapest state with every oblique paired (*bd -1: none, 0: the root),
 * F[0..*nf) the cheapest finished states met, for trials. 0, or an
 * error. */
static int bar_beam(struct ctx *x, struct barlib *W, const struct barmacs *L,
		    int *bdp, int *bip, struct barfin *F, int *nf)
{
	struct barnode *root = &W->lev[0][0];
	bar_read(W, L, x->c, root->col);
	memset(&root->tail, 0, sizeof root->tail);
	root->tail.axis = -1;
	root->cost = 0;
	root->paired = (int16_t)bar_count(L, root->col);
	root->twins = 0;
	if (W->twin) {
		bar_twin_places(W, L);
		bar_twin_read(W, L, x->c, root->tw);
		root->twins = (int16_t)bar_twin_count(L, root->col, root->tw);
	}
	root->parent = -1;
	root->cand = -1;
	W->nlev[0] = 1;
	*nf = 0;
	int bd = root->paired == BAR_OBL ? 0 : -1, bi = 0, d = 0;
	for (; d + 1 < BAR_DEPTH && W->nlev[d] > 0; d++) {
		if (poll_now(x))
			return SOLVE_ENOTFOUND;
		int nk = 0, lane[BAR_LANES], nl = 0;
		for (int i = 0; i < W->nlev[d]; i++) {
			const struct barnode *s = &W->lev[d][i];
			if (s->paired < BAR_OBL)
				lane[nl++] = i;
			else if (bd < 0 || s->cost < W->lev[bd][bi].cost)
				bd = d, bi = i;
		}
		if (nl > 0)
			bar_scan(L, W, d, lane, nl,
				 x->plan.bar_cap && L->count > x->plan.bar_cap
					 ? x->plan.bar_cap
					 : L->count);
		for (int l = 0; l < nl; l++) {
			const struct barnode *s = &W->lev[d][lane[l]];
			for (int t = 0; t < W->nt[l]; t++) {
				struct barnode *k = &W->kids[nk++];
				k->cost = (int16_t)(s->cost + W->tc[l][t]);
				k->paired = (int16_t)(s->paired + W->tg[l][t]);
				k->parent = (int16_t)lane[l];
				k->cand = W->top[l][t];
				k->twins = 0;
				if (W->twin) {
					const struct barcand *a = &L->c[k->cand];
					bar_apply(L, a, s->col, k->col);
					bar_twin_child(W, L, a, s, k);
				}
				if (k->paired == BAR_OBL)
					bar_fin_put(F, nf,
						    (struct barfin){
							    k->cost,
							    (int16_t)d,
							    k->parent,
							    k->cand});
			}
		}
		/* the bw best children, each state once, none past a
		 * finished one */
		int nn = 0;
		int most = 0;
		for (int t = 0; t < nk; t++)
			if (W->kids[t].paired > most)
				most = W->kids[t].paired;
		int bw = most >= BAR_END ? x->plan.bar_beam_end
					 : x->plan.bar_beam;
		for (int t = 0; t < nk && nn < bw; t++) {
			int b = t;
			for (int u = t + 1; u < nk; u++)
				if (bar_score(&W->kids[u]) <
				    bar_score(&W->kids[b]))
					b = u;
			struct barnode k = W->kids[b];
			W->kids[b] = W->kids[t];
			if (bd >= 0 && k.cost >= W->lev[bd][bi].cost)
				continue;
			const struct barnode *pa = &W->lev[d][k.parent];
			const struct barcand *a = &L->c[BAR_CAND(k.cand)];
			if (!W->twin)
				bar_apply(L, a, pa->col, k.col);
			int dup = 0;
			for (int u = 0; u < nn && !dup; u++)
				dup = memcmp(W->lev[d + 1][u].col, k.col,
					     (size_t)L->nc) == 0;
			if (dup)
				continue;
			k.tail = pa->tail;
			for (int j = 0; j < a->len; j++)
				om_tail_add(&k.tail, a->mv[j]);
			W->lev[d + 1][nn++] = k;
		}
		W->nlev[d + 1] = nn;
	}
	for (int i = 0; i < W->nlev[d]; i++)
		if (W->lev[d][i].paired == BAR_OBL &&
		    (bd < 0 || W->lev[d][i].cost < W->lev[bd][bi].cost ||
		     (W->lev[d][i].cost == W->lev[bd][bi].cost &&
		      W->lev[d][i].twins > W->lev[bd][bi].twins)))
			bd = d, bi = i;
	*bdp = bd, *bip = bi;
	return 0;
}

/* The macros that lead to lev[d][i], and then cand when cand >= 0 (a
 * finished child, one deeper), read back from the beam's levels into
 * path[1..len]. Returns len. */
static int bar_path(const struct barlib *W, int d, int i, int32_t cand,
		    int32_t *path)
{
	int len = d + (cand >= 0);
	if (cand >= 0)
		path[len] = cand;
	for (int e = d; e > 0; e--) {
		path[e] = W->lev[e][i].cand;
		i = W->lev[e][i].parent;
	}
	return len;
}

/* The macros path[1..len] made on the cube, simplified as a segment. */
static int bar_emit(struct ctx *x, const struct barlib *W,
		    const struct barmacs *L, const int32_t *path, int len,
		    uint64_t *par)
{
	int rc;
	size_t start = x->count;
	for (int e = 1; e <= len; e++) {
		const struct barcand *a = &L->c[BAR_CAND(path[e])];
		/* the twins' layers too (bar_twin) */
		const int *lo = path[e] & BAR_TWIN_CAND ? W->lo_t : W->lo,
			  *hi = path[e] & BAR_TWIN_CAND ? W->hi_t : W->hi;
		x->bar_twins += (path[e] & BAR_TWIN_CAND) != 0;
		for (int k = 0; k < a->len; k++) {
			int axis = a->mv[k] & 3, l = a->mv[k] >> 2 & 7,
			    qt = a->mv[k] >> 5 & 3,
			    h = a->mv[k] & OM_BLOCK ? l + 1 : l;
			if ((rc = emit_block(x, axis, lo[l], hi[h], qt)) < 0)
				return rc;
			*par ^= turn_par(x->m, lo[l], hi[h], qt);
		}
	}
	size_t nk = moves_simplify(x->out + start, x->count - start);
	x->count = start + moves_merge_blocks(x->out + start, nk, x->n);
	return 0;
}

/* Every oblique of the model set up paired on the cube. */
static int bar_done(struct ctx *x, const struct barlib *W,
		    const struct barmacs *L)
{
	uint8_t now[BAR_NC];
	bar_read(W, L, x->c, now);
	return bar_count(L, now) == BAR_OBL;
}

/* The beam died short of every oblique (no macro of the library pairs
 * more from any state it kept: about one step in 150 on 10×10, always
 * with 4 obliques left): the state with the most paired that it met,
 * the cheapest of those, made. Before, such a step made nothing, the
 * ring's further bar steps failed as well (they read the broken bars),
 * and the oblique macros and 3-cycles paired all its obliques: a
 * 10×10's centers took about 505 moves instead of 375 (states 282 and
 * 348 of the bench's). */
static int bar_partial(struct ctx *x, struct barlib *W,
		       const struct barmacs *L, uint64_t *par)
{
	int pd = 0, pi = 0;
	for (int e = 1; e < BAR_DEPTH && W->nlev[e] > 0; e++)
		for (int i = 0; i < W->nlev[e]; i++) {
			const struct barnode *s = &W->lev[e][i],
					     *b = &W->lev[pd][pi];
			if (s->paired > b->paired ||
			    (s->paired == b->paired && s->cost < b->cost))
				pd = e, pi = i;
		}
	if (pd == 0)
		return 0;
	int32_t path[BAR_DEPTH + 1];
	int len = bar_path(W, pd, pi, -1, path);
	return bar_emit(x, W, L, path, len, par);
}

/* Ring 2 solved, pair every oblique with its bar's +-center (*par: the
 * wing parities, kept up). next: the ring's cell whose bar step comes
 * next, or 0. With next and the plan's bartrials > 1, that many cheapest
 * answers the beam met are each made and the next step run after them
 * on trial (plan.c, bartrials), both then taken back; the pair of
 * steps with the fewest moves (1,000 more when the next leaves obliques
 * unpaired) is made again from the moves it ran, and 2 returned: the
 * next step is done. Else returns 1 when all are paired, 0 when the
 * beam could not (its state with the most paired made, bar_partial;
 * also when the trials' pair did not pair the next step's all), or an
 * error. After 0 (x->bars_broken) the models no longer read the cube
 * right: a model layer turns a block of cells as one, and a bar left
 * broken reads as a different cell from one face to the next (a block
 * turn carries column c of one face to column m-c of another). The
 * steps after still run, and still pair most of their obliques (their
 * macros keep every ring inside solved whatever they read), but a step
 * whose model says done may leave obliques unpaired on the cube: then
 * it returns 0 as well, and none tries answers against the next. The
 * oblique macros and 3-cycles finish whatever is left. */
int reduce__bar_pair(struct ctx *x, uint64_t *par, int next)
{
	struct barlib *W = barlib_of(x);
	int rc = 0;
	const struct barmacs *L = bar_macs(x, &rc);
	if (!L)
		return rc;
	int bd, bi, nf;
	struct barfin F[BAR_FIN];
	if ((rc = bar_beam(x, W, L, &bd, &bi, F, &nf)) < 0)
		return rc;
	if (bd < 0)
		return bar_partial(x, W, L, par);
	if (bd == 0)
		return 1;
	int32_t path[BAR_DEPTH + 1];
	int len = bar_path(W, bd, bi, -1, path);
	int tries = next > 0 && !x->bars_broken &&
				    (!x->plan.bartrial_ring ||
				     x->plan.bartrial_ring == W->k)
			    ? x->plan.bartrials
			    : 1;
	if (tries > nf)
		tries = nf;
	if (tries > 1) {
		int32_t tp[BAR_FIN][BAR_DEPTH + 1];
		int tl[BAR_FIN];
		for (int t = 0; t < tries; t++)
			tl[t] = bar_path(W, F[t].d, F[t].parent, F[t].cand,
					 tp[t]);
		int k = W->k, j = W->j, best = -1, tw0 = x->bar_twins;
		size_t c0 = x->count, best_len = SIZE_MAX;
		for (int t = 0; t < tries; t++) {
			uint64_t p = *par;
			x->bar_twins = tw0;
			rc = bar_emit(x, W, L, tp[t], tl[t], &p);
			size_t first = x->count - c0;
			if (rc == 0) {
				reduce__bar_setup(x, k, next);
				rc = reduce__bar_pair(x, &p, 0);
			}
			size_t all = x->count - c0 + (rc == 0 ? 1000 : 0);
			/* the best so far kept, both steps' moves, to be made
			 * again as they are */
			if (rc >= 0 && all < best_len &&
			    x->count - c0 <= BAR_KEEP) {
				best_len = all, best = t;
				W->nkeep = x->count - c0;
				memcpy(W->keep, x->out + c0,
				       W->nkeep * sizeof *W->keep);
				W->kpar = p;
				W->kfirst = first;
				W->kall = rc > 0;
				W->ktwins = x->bar_twins - tw0;
			}
			reduce__unmake(x, c0);
			reduce__bar_setup(x, k, j);
			if (rc < 0 && rc != CUBE_ESPACE)
				return rc;
		}
		x->bar_twins = tw0;
		if (best >= 0) {
			x->bar_twins += W->ktwins;
			for (size_t i = 0; i < W->nkeep; i++) {
				const cube_move *m = &W->keep[i];
				if ((rc = emit_block(x, m->axis, m->lo, m->hi,
						     m->qt)) < 0)
					return rc;
				if (i + 1 == W->kfirst && !bar_done(x, W, L))
					return SOLVE_ESTAGE;
			}
			*par = W->kpar;
			reduce__bar_setup(x, k, next);
			return W->kall ? 2 : 0;
		}
	}
	if ((rc = bar_emit(x, W, L, path, len, par)) < 0)
		return rc;
	if (bar_done(x, W, L))
		return 1;
	return x->bars_broken ? 0 : SOLVE_ESTAGE;
}
