/* optimal_tables.c — building and checking the optimal solver's tables
 * (optimal_tables.h): the symmetry and rank tables, the symmetry classes
 * of the corner coordinate, the edge coordinate's move and conjugation
 * tables, and the main table filled breadth first from the solved cube.
 *
 * The main table is indexed class · raw + raw-coordinate: the class of
 * the corner value under the 48 symmetries, and the raw part (edges and,
 * on levels 2–3, the corners' sub-orbit) of the cube conjugated by the
 * symmetry that takes its corners to their class's representative. A
 * move takes every raw entry of one class into the block of one other
 * class, so a breadth-first pass works class by class with a few blocks
 * in cache. Early layers go forward (each new entry's neighbours), late
 * ones backward (each unreached entry looks for a neighbour in the last
 * layer), whichever touches fewer entries.
 *
 * Each coordinate's move and conjugation tables are made from two unlike
 * cubes of every value and must agree: the proof, at every build, that
 * the coordinates are those of cosets of subgroups the symmetries keep.
 *
 * Work is split into rounds (optimal_tables.h): within a round, workers
 * take interleaved runs of classes and write with atomic AND, since a
 * move can land in any class. Each round's entries are the same whoever
 * wrote them, so the bytes do not depend on the number of workers.
 *
 * While it is built the main table keeps 0 = an earlier layer, 1 = the
 * last layer, 2 = the layer being found, 3 = not reached; after each
 * layer one sweep renames 1 → 0 and 2 → 1. At the end it holds 0 = at
 * most base, 1 = base + 1, 2 = base + 2, 3 = deeper. A line's last byte
 * gets the depth of the first entry claimed in it: the least, since
 * layers come in order.
 */
#include "optimal_tables.h"
#include "optimal_tables_internal.h"
#include "solve_internal.h"

#include <string.h>

/* Levels: the corner coordinate (cocsep, or cocsep and the square
 * group's orbit), the sub-orbit kind, flip parities, sub-orbits, base,
 * corner values, classes (counted at every build), entries per class.
 * Changing one changes the tables: bump OPT__VERSION. */
const opt__level opt__levels[OPTIMAL_LEVELS] = {
	{0, 0, 1, 1, 8, OPT__NCOCSEP, 3393, OPT__NESEP},
	{1, 0, 4, 1, 9, OPT__NCOCSEP * 6, 19926, OPT__NESEP * 4},
	{1, 1, 4, 2, 9, OPT__NCOCSEP * 6, 19926, OPT__NESEP * 4 * 2},
	{1, 2, 4, 6, 10, OPT__NCOCSEP * 6, 19926, OPT__NESEP * 4 * 6},
};

/* ------------------------------------------------------------ the buffer */

#define AL(x) (((uint64_t)(x) + 63) & ~(uint64_t)63)

/* The build's own state, in the buffer (zeroed before sealing). */
struct build {
	uint32_t level, phase, depth, backward;
	uint32_t fc, nc;      /* frontier and next codes */
	uint32_t sweep_map;   /* code → code, 2 bits each, for a sweep */
	uint32_t pad;
	uint64_t reached;     /* entries reached */
	uint64_t done, total; /* progress */
	uint64_t found[OPT__MAXWORKERS];
};

enum phase {
	PH_BFS,   /* main-table layers */
	PH_SWEEP, /* renaming between layers */
	PH_DONE,
};

int opt__layout_of(int level, opt__layout *o)
{
	if (level < 0 || level >= OPTIMAL_LEVELS)
		return -1;
	const opt__level *lv = &opt__levels[level];
	uint64_t p = SOLVE__HEADER, nedge = (uint64_t)OPT__NESEP * lv->nfp;
	memset(o, 0, sizeof *o);
#define PUT(field, bytes) (o->field = p, p += AL(bytes))
	PUT(info, sizeof(opt__info));
	PUT(syms, sizeof(opt__syms));
	PUT(ranks, sizeof(opt__ranks));
	PUT(csym, (uint64_t)lv->ncraw * 4);
	PUT(crep, (uint64_t)lv->nclass * 4);
	PUT(cstab, (uint64_t)lv->nclass * 8);
	PUT(emove, nedge * OPT__NMOVE * 4);
	PUT(econj, nedge * OPT__NSYM * 4);
	PUT(prun, opt__lines(lv) * 64);
	PUT(state, sizeof(struct build));
#undef PUT
	o->total = p;
	return 0;
}

void opt__bind(opt__tables *t, int level, unsigned char *b)
{
	opt__layout o;
	memset(t, 0, sizeof *t);
	if (opt__layout_of(level, &o) < 0)
		return;
	t->level = level;
	t->lv = &opt__levels[level];
	t->info = (opt__info *)(void *)(b + o.info);
	t->syms = (opt__syms *)(void *)(b + o.syms);
	t->ranks = (opt__ranks *)(void *)(b + o.ranks);
	t->csym = (uint32_t *)(void *)(b + o.csym);
	t->crep = (uint32_t *)(void *)(b + o.crep);
	t->cstab = (uint64_t *)(void *)(b + o.cstab);
	t->emove = (uint32_t *)(void *)(b + o.emove);
	t->econj = (uint32_t *)(void *)(b + o.econj);
	t->prun = b + o.prun;
}

size_t optimal_table_size(int level)
{
	opt__layout o;
	if (opt__layout_of(level, &o) < 0 || o.total > SIZE_MAX)
		return 0;
	return (size_t)o.total;
}

static struct build *state_of(unsigned char *b, int level)
{
	opt__layout o;
	opt__layout_of(level, &o);
	return (struct build *)(void *)(b + o.state);
}

/* ------------------------------------------------------- cubes of values */

static void set_twist(opt__cube *x, int tw)
{
	int sum = 0;
	for (int i = 6; i >= 0; i--) {
		x->c[i] = (uint8_t)((x->c[i] & 7) | (tw % 3) << 3);
		sum += tw % 3;
		tw /= 3;
	}
	x->c[7] = (uint8_t)((x->c[7] & 7) | ((3 - sum % 3) % 3) << 3);
}

/* The mask of rank r among the masks of 4 bits below 1 << n. */
static unsigned unrank4(int n, int r)
{
	for (unsigned m = 0; m < 1u << n; m++)
		if (__builtin_popcount(m) == 4 && r-- == 0)
			return m;
	return 0;
}

/* The base-4 code of the permutation of rank r. */
static unsigned perm4_code(const opt__ranks *rk, int r)
{
	for (unsigned o = 0; o < 256; o++)
		if (rk->perm4[o] == r)
			return o;
	return 0;
}

static const uint8_t tet_a[4] = {0, 2, 5, 7}, tet_b[4] = {1, 3, 4, 6};

/* Corners of cocsep value v with the tetrads' orders ab (edges solved). */
static void corner_cube(const opt__ranks *rk, uint32_t v, unsigned ab,
			opt__cube *x)
{
	opt__solved(x);
	unsigned mask = unrank4(8, (int)(v % OPT__NSEP));
	unsigned ca = perm4_code(rk, (int)(ab / 24)),
		 cb = perm4_code(rk, (int)(ab % 24));
	int na = 3, nb = 3;
	for (int i = 0; i < 8; i++) {
		if (mask >> i & 1u)
			x->c[i] = tet_a[ca >> (2 * na--) & 3];
		else
			x->c[i] = tet_b[cb >> (2 * nb--) & 3];
	}
	set_twist(x, (int)(v / OPT__NSEP));
}

/* The corners of corner value v (of level lv) as cube, the
 * representative ab chosen by which (0 or 1) and sub-orbit j. */
static void craw_cube(const opt__level *lv, const opt__ranks *rk, uint32_t v,
		      int which, int j, opt__cube *x)
{
	unsigned ab;
	if (!lv->orbits) {
		ab = which ? 575 : 0;
		corner_cube(rk, v, ab, x);
		return;
	}
	int o = (int)(v % 6);
	if (which)
		ab = rk->ab_of[2][o][5]; /* another ab of the same orbit */
	else
		ab = rk->ab_of[lv->kind][o][j];
	corner_cube(rk, v / 6, ab, x);
}

/* Edges of esep · 4 + fp value e; which = 0 or 1 for two unlike cubes
 * (other orders within the slices, other flips of the same parities). */
static void edge_cube(uint32_t e, int which, opt__cube *x)
{
	static const uint8_t sl[2][3][4] = {
		{{8, 9, 10, 11}, {1, 3, 5, 7}, {0, 2, 4, 6}},
		{{11, 9, 8, 10}, {7, 1, 5, 3}, {4, 6, 2, 0}}};
	uint32_t fp = e % 4, esep = e / 4;
	unsigned me = unrank4(12, (int)(esep / OPT__NSEP));
	unsigned mm = unrank4(8, (int)(esep % OPT__NSEP));
	int pm = (int)(fp & 1), ps = (int)(fp >> 1);
	uint8_t fl[3][4] = {{0, 0, 0, (uint8_t)(pm ^ ps)},
			    {0, 0, 0, (uint8_t)pm},
			    {0, 0, 0, (uint8_t)ps}};
	if (which) {
		static const uint8_t more[3][4] = {
			{1, 1, 0, 0}, {1, 1, 1, 1}, {0, 1, 1, 0}};
		for (int s = 0; s < 3; s++)
			for (int k = 0; k < 4; k++)
				fl[s][k] ^= more[s][k];
	}
	int n[3] = {0, 0, 0}, k = 0;
	for (int i = 0; i < 12; i++) {
		int s;
		if (me >> i & 1u)
			s = 0;
		else
			s = mm >> k++ & 1u ? 1 : 2;
		x->e[i] = (uint8_t)(sl[which][s][n[s]] | fl[s][n[s]] << 4);
		n[s]++;
	}
}

/* The edge value of a level: esep · nfp + fp. */
static uint32_t edge_value(const opt__level *lv, const opt__ranks *rk,
			   const opt__cube *x)
{
	uint32_t e = opt__edges(rk, x);
	return lv->nfp == 1 ? e / 4 : e;
}

/* ------------------------------------------------------------ the set-up */

/* Symmetry classes of the corner values: 0, or -1 if a conjugate
 * depends on more than the value (a bug) or the count is not the
 * level's. */
static int make_classes(const opt__tables *t)
{
	const opt__level *lv = t->lv;
	const opt__ranks *rk = t->ranks;
	uint32_t n = 0;
	memset(t->csym, 0xff, (size_t)lv->ncraw * 4);
	for (uint32_t v = 0; v < lv->ncraw; v++) {
		if (t->csym[v] != 0xffffffffu)
			continue;
		if (n >= lv->nclass)
			return -1;
		opt__cube x[2], y;
		craw_cube(lv, rk, v, 0, 0, &x[0]);
		craw_cube(lv, rk, v, 1, 0, &x[1]);
		if (opt__craw(t, &x[0]) != v || opt__craw(t, &x[1]) != v)
			return -1;
		uint64_t stab = 0;
		for (int s = 0; s < OPT__NSYM; s++) {
			opt__conj(t->syms, s, &x[0], &y);
			uint32_t w = opt__craw(t, &y);
			opt__conj(t->syms, s, &x[1], &y);
			if (opt__craw(t, &y) != w)
				return -1;
			if (w == v)
				stab |= (uint64_t)1 << s;
			if (t->csym[w] == 0xffffffffu)
				t->csym[w] = n << 6 | t->syms->inv[s];
		}
		t->crep[n] = v;
		t->cstab[n] = stab;
		n++;
	}
	return n == lv->nclass ? 0 : -1;
}

/* The edge value's move and conjugation tables, from two unlike cubes
 * of each value: 0, or -1 if they disagree. */
static int make_edges(const opt__tables *t)
{
	const opt__level *lv = t->lv;
	uint32_t nedge = OPT__NESEP * lv->nfp;
	opt__cube mv[OPT__NMOVE];
	for (int m = 0; m < OPT__NMOVE; m++)
		opt__move_cube(m, &mv[m]);
	for (uint32_t v = 0; v < nedge; v++) {
		uint32_t e = lv->nfp == 1 ? v * 4 : v;
		opt__cube x[2], y;
		for (int w = 0; w < 2; w++) {
			opt__solved(&x[w]);
			edge_cube(e, w, &x[w]);
			if (edge_value(lv, t->ranks, &x[w]) != v)
				return -1;
		}
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x[0], &mv[m], &y);
			uint32_t a = edge_value(lv, t->ranks, &y);
			opt__mul(&x[1], &mv[m], &y);
			if (edge_value(lv, t->ranks, &y) != a)
				return -1;
			t->emove[v * OPT__NMOVE + (uint32_t)m] = a;
		}
		for (int s = 0; s < OPT__NSYM; s++) {
			opt__conj(t->syms, s, &x[0], &y);
			uint32_t a = edge_value(lv, t->ranks, &y);
			opt__conj(t->syms, s, &x[1], &y);
			if (edge_value(lv, t->ranks, &y) != a)
				return -1;
			t->econj[v * OPT__NSYM + (uint32_t)s] = a;
		}
	}
	return 0;
}

/* The sub-orbit of x's corners (0 on levels without). */
static uint32_t sub_of(const opt__tables *t, const opt__cube *x)
{
	if (t->lv->nsub == 1)
		return 0;
	return t->ranks->sub[t->lv->kind][opt__ab(t->ranks, x)];
}

/* ------------------------------------------------------- the main table */

/* The 2-bit entry i (atomically: other workers write the same byte). */
static inline int load2(const uint8_t *tab, uint64_t i)
{
	uint8_t b = __atomic_load_n(&tab[opt__byte(i)], __ATOMIC_RELAXED);
	return b >> ((i & 3) << 1) & 3;
}

/* Entry i from 3 (not reached) to v: 1 if this call changed it, and
 * then its line's least depth is depth unless already set. */
static inline int claim2(uint8_t *tab, uint64_t i, int v, int depth)
{
	int sh = (int)(i & 3) << 1;
	uint8_t mask = (uint8_t)~((3 ^ v) << sh);
	uint8_t old = __atomic_fetch_and(&tab[opt__byte(i)], mask,
					 __ATOMIC_RELAXED);
	if ((old >> sh & 3) != 3)
		return 0;
	uint8_t *lm = &tab[i / OPT__LINE * 64 + 63], want = 0xff;
	__atomic_compare_exchange_n(lm, &want, (uint8_t)depth, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 1;
}

/* What the moves do to class c: the classes reached, the symmetries
 * to their representatives and the sub-orbits' images. */
struct cmoves {
	uint32_t cls[OPT__NMOVE];
	uint8_t sym[OPT__NMOVE];
	uint8_t sub[OPT__NMOVE][6];
};

static void class_moves(const opt__tables *t, const opt__cube *mv, uint32_t c,
			struct cmoves *cm)
{
	const opt__level *lv = t->lv;
	for (uint32_t j = 0; j < lv->nsub; j++) {
		opt__cube r, y, z;
		craw_cube(lv, t->ranks, t->crep[c], 0, (int)j, &r);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&r, &mv[m], &y);
			uint32_t k = t->csym[opt__craw(t, &y)];
			cm->cls[m] = k >> 6;
			cm->sym[m] = (uint8_t)(k & 63);
			opt__conj(t->syms, (int)(k & 63), &y, &z);
			cm->sub[m][j] = (uint8_t)sub_of(t, &z);
		}
	}
}

/* Raw entry r of class c (rep corners) conjugated by s in c's
 * stabilizer. */
static uint32_t raw_conj(const opt__tables *t, uint32_t c, uint32_t r, int s)
{
	const opt__level *lv = t->lv;
	uint32_t e = r / lv->nsub, j = r % lv->nsub, j2 = 0;
	if (lv->nsub > 1) {
		opt__cube x, y;
		craw_cube(lv, t->ranks, t->crep[c], 0, (int)j, &x);
		opt__conj(t->syms, s, &x, &y);
		j2 = sub_of(t, &y);
	}
	return t->econj[e * OPT__NSYM + (uint32_t)s] * lv->nsub + j2;
}

/* Claim entry (c, r) and its symmetric twins for v: how many. */
static uint64_t claim_twins(const opt__tables *t, uint32_t c, uint32_t r,
			    int v, int depth)
{
	uint64_t base = (uint64_t)c * t->lv->nraw, n = 0;
	n += (uint64_t)claim2(t->prun, base + r, v, depth);
	for (uint64_t st = t->cstab[c] & ~(uint64_t)1; st; st &= st - 1)
		n += (uint64_t)claim2(t->prun,
				      base + raw_conj(t, c, r,
						      __builtin_ctzll(st)),
				      v, depth);
	return n;
}

/* The entries of [lo, hi) whose code is v, as offsets from lo, into
 * out (room for hi - lo); returns how many. */
static uint32_t gather(const uint8_t *tab, uint64_t lo, uint64_t hi, int v,
		       uint32_t *out)
{
	uint64_t pat = 0x5555555555555555u * (uint64_t)v;
	uint32_t n = 0;
	for (uint64_t line = lo / OPT__LINE; line * OPT__LINE < hi; line++) {
		const uint8_t *p = tab + line * 64;
		uint64_t first = line * OPT__LINE;
		for (int w = 0; w < 8; w++) {
			uint64_t x;
			memcpy(&x, p + 8 * w, 8);
			x ^= pat;
			/* a field matches when both its bits are 0 */
			uint64_t z = ~(x | x >> 1) & 0x5555555555555555u;
			if (w == 7)
				z &= 0x0055555555555555u; /* not the last byte */
			for (; z; z &= z - 1) {
				uint64_t i = first + (uint64_t)w * 32 +
					     (uint64_t)__builtin_ctzll(z) / 2;
				if (i >= lo && i < hi)
					out[n++] = (uint32_t)(i - lo);
			}
		}
	}
	return n;
}

#define CHUNK 4096u /* entries gathered at a time */

/* One worker's share of one layer: from entries of code fv, entries not
 * reached get nv (depth: theirs). */
static int layer_pass(const opt__tables *t, int backward, int fv, int nv,
		      int depth, int worker, int nworkers, struct build *bs,
		      solve_poll_fn poll, void *ctx, uint32_t *list)
{
	const opt__level *lv = t->lv;
	opt__cube mv[OPT__NMOVE];
	for (int m = 0; m < OPT__NMOVE; m++)
		opt__move_cube(m, &mv[m]);
	uint32_t run = 16;
	uint64_t found = 0;
	for (uint32_t c0 = (uint32_t)worker * run; c0 < lv->nclass;
	     c0 += (uint32_t)nworkers * run) {
		uint32_t c1 = lv->nclass - c0 < run ? lv->nclass : c0 + run;
		for (uint32_t c = c0; c < c1; c++) {
			uint64_t base = (uint64_t)c * lv->nraw;
			struct cmoves cm;
			int have_cm = 0;
			for (uint32_t r0 = 0; r0 < lv->nraw; r0 += CHUNK) {
			uint32_t r1 = lv->nraw - r0 < CHUNK ? lv->nraw : r0 + CHUNK;
			uint32_t n = gather(t->prun, base + r0, base + r1,
					    backward ? 3 : fv, list);
			if (n && !have_cm) {
				class_moves(t, mv, c, &cm);
				have_cm = 1;
			}
			for (uint32_t k = 0; k < n; k++) {
				uint32_t r = r0 + list[k], e = r / lv->nsub,
					 j = r % lv->nsub;
				for (int m = 0; m < OPT__NMOVE; m++) {
					uint32_t e2 = t->emove[e * OPT__NMOVE + (uint32_t)m];
					e2 = t->econj[e2 * OPT__NSYM + cm.sym[m]];
					uint32_t r2 = e2 * lv->nsub + cm.sub[m][j];
					uint64_t i2 = (uint64_t)cm.cls[m] * lv->nraw + r2;
					if (backward) {
						if (load2(t->prun, i2) != fv)
							continue;
						found += (uint64_t)claim2(t->prun, base + r,
									  nv, depth);
						break;
					}
					if (load2(t->prun, i2) == 3)
						found += claim_twins(t, cm.cls[m], r2, nv,
								     depth);
				}
			}
			}
		}
		if (poll && poll(ctx, bs->done + found, bs->total))
			return SOLVE_ECANCELLED;
	}
	bs->found[worker] = found;
	return CUBE_OK;
}

/* Rename codes by a map (2 bits per code) over a worker's share of the
 * lines; the last sweep (last = 1) also gives lines whose entries are
 * all deeper than base + 2 their least depth, base + 3. */
static void sweep_pass(uint8_t *tab, uint64_t lines, uint32_t map, int last,
		       int base, int worker, int nworkers)
{
	uint8_t lut[256];
	for (int b = 0; b < 256; b++) {
		int o = 0;
		for (int k = 0; k < 4; k++)
			o |= (int)(map >> (2 * (b >> (2 * k) & 3)) & 3) << (2 * k);
		lut[b] = (uint8_t)o;
	}
	uint64_t lo = lines * (uint64_t)worker / (uint64_t)nworkers;
	uint64_t hi = lines * (uint64_t)(worker + 1) / (uint64_t)nworkers;
	for (uint64_t l = lo; l < hi; l++) {
		uint8_t *p = tab + l * 64;
		for (int i = 0; i < 63; i++)
			p[i] = lut[p[i]];
		if (last && p[63] == 0xff)
			p[63] = (uint8_t)(base + 3);
	}
}

/* ------------------------------------------------------------ the rounds */

static uint64_t entries_of(const opt__level *lv)
{
	return (uint64_t)lv->nclass * lv->nraw;
}

/* The index of cube x's entry (the search's, in optimal.c, is this). */
static uint64_t index_of(const opt__tables *t, const opt__cube *x)
{
	uint32_t k = t->csym[opt__craw(t, x)];
	opt__cube y;
	opt__conj(t->syms, (int)(k & 63), x, &y);
	return ((uint64_t)(k >> 6) * OPT__NESEP * t->lv->nfp +
		edge_value(t->lv, t->ranks, &y)) * t->lv->nsub +
	       sub_of(t, &y);
}

int optimal_table_begin(void *buf, size_t size, int level)
{
	if (!buf || level < 0 || level >= OPTIMAL_LEVELS ||
	    size != optimal_table_size(level))
		return CUBE_EINVAL;
	unsigned char *b = buf;
	opt__tables t;
	opt__layout o;
	opt__layout_of(level, &o);
	memset(b, 0, (size_t)o.prun);
	opt__bind(&t, level, b);
	const opt__level *lv = t.lv;
	t.info->level = (uint32_t)level;
	t.info->base = (uint32_t)lv->base;
	t.info->nclass = lv->nclass;
	/* set-up failures are bugs, not bad input */
	if (opt__make_syms(t.syms) < 0 || opt__make_ranks(t.ranks) < 0 ||
	    make_classes(&t) < 0 || make_edges(&t) < 0)
		return SOLVE_ETABLES;
	memset(t.prun, 0xff, (size_t)(opt__lines(lv) * 64));
	struct build *bs = state_of(b, level);
	memset(bs, 0, sizeof *bs);
	bs->level = (uint32_t)level;
	bs->total = entries_of(lv);
	opt__cube x;
	opt__solved(&x);
	uint64_t i = index_of(&t, &x);
	uint32_t c = (uint32_t)(i / lv->nraw);
	bs->reached = claim_twins(&t, c, (uint32_t)(i % lv->nraw), 1, 0);
	bs->phase = PH_BFS;
	bs->depth = 0;
	bs->fc = 1;
	bs->nc = 2;
	t.info->at_depth[0] = bs->reached;
	return CUBE_OK;
}

static int level_of(const void *buf, size_t size)
{
	for (int l = 0; l < OPTIMAL_LEVELS; l++)
		if (size == optimal_table_size(l))
			return l;
	(void)buf;
	return -1;
}

int optimal_table_work(void *buf, size_t size, int worker, int nworkers,
		       solve_poll_fn poll, void *ctx)
{
	int level = level_of(buf, size);
	if (!buf || level < 0 || nworkers < 1 || nworkers > OPT__MAXWORKERS ||
	    worker < 0 || worker >= nworkers)
		return CUBE_EINVAL;
	unsigned char *b = buf;
	opt__tables t;
	opt__bind(&t, level, b);
	struct build *bs = state_of(b, level);
	if (poll && poll(ctx, bs->done, bs->total))
		return SOLVE_ECANCELLED;
	switch (bs->phase) {
	case PH_BFS: {
		uint32_t list[CHUNK + OPT__LINE];
		return layer_pass(&t, (int)bs->backward, (int)bs->fc,
				  (int)bs->nc, (int)bs->depth + 1, worker,
				  nworkers, bs, poll, ctx, list);
	}
	case PH_SWEEP:
		sweep_pass(t.prun, opt__lines(t.lv), bs->sweep_map,
			   bs->depth == 99, t.lv->base, worker, nworkers);
		return CUBE_OK;
	}
	return CUBE_OK; /* PH_DONE: nothing to do */
}

/* The code maps of sweeps: map[code] at bits 2·code. */
#define MAP(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 2 | \
			 (uint32_t)(c) << 4 | (uint32_t)(d) << 6)

static void seal(unsigned char *b, size_t size, struct build *bs)
{
	memset(bs, 0, sizeof *bs);
	bs->phase = PH_DONE; /* a sealed buffer says so */
	solve__seal(b, size, OPT__MAGIC, OPT__VERSION);
}

int optimal_table_next(void *buf, size_t size)
{
	int level = level_of(buf, size);
	if (!buf || level < 0)
		return CUBE_EINVAL;
	unsigned char *b = buf;
	opt__tables t;
	opt__bind(&t, level, b);
	struct build *bs = state_of(b, level);
	uint64_t found = 0;
	for (int w = 0; w < OPT__MAXWORKERS; w++) {
		found += bs->found[w];
		bs->found[w] = 0;
	}
	uint32_t base = (uint32_t)t.lv->base;
	switch (bs->phase) {
	case PH_BFS: {
		uint32_t lastdepth = base + 2;
		bs->depth++;
		bs->reached += found;
		bs->done += found;
		t.info->at_depth[bs->depth < 23 ? bs->depth : 23] = found;
		uint64_t left = entries_of(t.lv) - bs->reached;
		if (bs->depth == lastdepth || !found) {
			/* codes now: 0 ≤ base, fc = base + 1, nc = base + 2,
			 * 3 deeper: rename to 0, 1, 2, 3 */
			t.info->at_depth[bs->depth + 1 < 23 ? bs->depth + 1 : 23] =
				left;
			if (bs->fc == 2) /* base + 2 was found: swap 1 and 2 */
				bs->sweep_map = MAP(0, 2, 1, 3);
			else if (bs->depth <= lastdepth - 1) /* ended early */
				bs->sweep_map = bs->depth <= base + 1
						? MAP(0, 0, 0, 3) : MAP(0, 0, 1, 3);
			else
				bs->sweep_map = MAP(0, 1, 2, 3);
			bs->phase = PH_SWEEP;
			bs->depth = 99; /* the last sweep */
			return 1;
		}
		bs->backward = left < 3 * found;
		/* before the next layer: the last layer joins the old ones;
		 * the new one becomes the last. Once the base is passed, the
		 * codes stay put and the next layer takes the free code. */
		if (bs->depth <= base) {
			bs->sweep_map = MAP(0, 0, 1, 3);
		} else {
			bs->sweep_map = MAP(0, 0, 2, 3);
			bs->fc = 2;
			bs->nc = 1;
		}
		bs->phase = PH_SWEEP;
		return 1;
	}
	case PH_SWEEP:
		if (bs->depth == 99) {
			bs->done = bs->total;
			seal(b, size, bs);
			return 0;
		}
		bs->phase = PH_BFS;
		return 1;
	}
	return 0;
}

int optimal_table_init(void *buf, size_t size, int level, solve_poll_fn poll,
		       void *ctx)
{
	int rc = optimal_table_begin(buf, size, level);
	if (rc < 0)
		return rc;
	do {
		rc = optimal_table_work(buf, size, 0, 1, poll, ctx);
		if (rc < 0)
			return rc;
	} while ((rc = optimal_table_next(buf, size)) == 1);
	return rc;
}

int optimal_table_check(const void *buf, size_t size, int level)
{
	if (level < 0 || level >= OPTIMAL_LEVELS)
		return SOLVE_ETABLES;
	return solve__check(buf, size, optimal_table_size(level), OPT__MAGIC,
			    OPT__VERSION);
}

int optimal_table_describe(const void *tables, optimal_table_info *out)
{
	if (!tables || !out)
		return CUBE_EINVAL;
	const unsigned char *b = tables;
	int level = -1;
	for (int l = 0; l < OPTIMAL_LEVELS; l++)
		if (solve__header_ok(b, optimal_table_size(l), OPT__MAGIC,
				     OPT__VERSION))
			level = l;
	if (level < 0)
		return SOLVE_ETABLES;
	opt__tables t;
	opt__bind(&t, level, (unsigned char *)(uintptr_t)tables);
	memset(out, 0, sizeof *out);
	out->level = level;
	out->base = (int)t.info->base;
	out->entries = entries_of(t.lv);
	for (int d = 0; d < 24; d++) {
		out->at_depth[d] = t.info->at_depth[d];
		if (t.info->at_depth[d])
			out->max_depth = d;
	}
	return CUBE_OK;
}
