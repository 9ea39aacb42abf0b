/* optimal_tables.c — building and checking the optimal solver's tables
 * (optimal.h): the coordinate move tables, the symmetry classes, and the
 * pruning tables filled breadth first from the solved cube.
 *
 * Every pruning table is indexed class · raw + raw-coordinate: the class
 * of the edge coordinate (flip and slice places, with the slice order on
 * level 1) under the 16 U–D symmetries, and the raw corner coordinate
 * (twist, with the U-layer corners' places on level 2) conjugated by the
 * symmetry that takes the edges to their class's representative. A move
 * takes every raw entry of one class into the block of one other class,
 * so a breadth-first pass works class by class with a few blocks in
 * cache. Early layers go forward (each new entry's neighbours), late ones
 * backward (each unreached entry looks for a neighbour in the last
 * layer), whichever touches fewer entries.
 *
 * Work is split into rounds (optimal.h): within a round, workers take
 * interleaved runs of classes and write with atomic AND, since a move can
 * land in any class; a byte shared by two classes' blocks is then safe
 * too. Each round's entries are the same whoever wrote them, so the bytes
 * do not depend on the number of workers.
 *
 * The 2-bit main tables (levels 1–2) keep, while they are built, 0 = an
 * earlier layer, 1 = the last layer, 2 = the layer being found, 3 = not
 * reached; after each layer one sweep renames 1 → 0 and 2 → 1. At the end
 * they hold 0 = at most base, 1 = base + 1, 2 = base + 2, 3 = deeper.
 */
#include "optimal_tables.h"
#include "optimal_tables_internal.h"
#include "solve3.h"
#include "solve_internal.h"

#include <string.h>

/* base: entries at or under it say "look at level 0", a second read at
 * random that a search near its leaves (few moves left, small bounds)
 * would make often; codes 1, 2, 3 say base + 1, base + 2 and at least
 * base + 3. So base is two under the most common depth: level 1's
 * depths are 9 (8.9 % of entries), 10 (49 %), 11 (41 %), 12 (0.3 %),
 * level 2's 10 (28 %), 11 (62 %), 12 (5.3 %), 13 (0.0001 %), and only
 * 1 % and 3.5 % of their entries fall back, where base one under the
 * mode sent 10 % and 32 % back (bench/RESULTS.md). Changing it changes
 * the tables: bump OPT__VERSION. */
const opt__level opt__levels[OPTIMAL_LEVELS] = {
	{0, 0, 0, OPT__NCLS_FS, OPT__NTWIST},
	{1, 0, 8, OPT__NCLS_FSS, OPT__NTWIST},
	{0, 1, 9, OPT__NCLS_FS, OPT__NTWIST * OPT__NCSEP},
};

/* ------------------------------------------------------------ the buffer */

#define AL(x) (((uint64_t)(x) + 63) & ~(uint64_t)63)

/* The build's own state, in the buffer (zeroed before sealing). */
struct build {
	uint32_t level, phase, depth, backward;
	uint32_t fc, nc;      /* frontier and next codes of the main table */
	uint32_t sweep_map;   /* code → code, 2 bits each, for a sweep */
	uint32_t failed;
	uint64_t reached;     /* entries of the current table reached */
	uint64_t layer;       /* entries found by the last layer */
	uint64_t done, total; /* progress */
	uint64_t found[OPT__MAXWORKERS];
};

enum phase {
	PH_CLASSES,  /* level 1: each flip·sorted value's class (parallel) */
	PH_BFSC,     /* corner-table layers */
	PH_BFS0,     /* level-0 layers */
	PH_BFS,      /* main-table layers */
	PH_SWEEP,    /* main-table renaming between layers */
	PH_DONE,
};

int opt__layout_of(int level, opt__layout *o)
{
	if (level < 0 || level >= OPTIMAL_LEVELS)
		return -1;
	const opt__level *lv = &opt__levels[level];
	uint64_t p = SOLVE__HEADER;
	memset(o, 0, sizeof *o);
#define PUT(field, bytes) (o->field = p, p += AL(bytes))
	PUT(info, sizeof(opt__info));
	PUT(twist_move, OPT__NTWIST * OPT__NMOVE * 2);
	PUT(twist_conj, OPT__NTWIST * OPT__NSYM * 2);
	PUT(csep_move, OPT__NCSEP * OPT__NMOVE);
	PUT(csep_conj, OPT__NCSEP * OPT__NSYM);
	PUT(flip_move, OPT__NFLIP * OPT__NMOVE * 2);
	PUT(slice_move, OPT__NSLICE * OPT__NMOVE * 2);
	PUT(sorted_move, OPT__NSORTED * OPT__NMOVE * 2);
	PUT(slice_rank, 4096 * 2);
	PUT(order_rank, 256);
	PUT(csep_rank, 256);
	PUT(fs_sym, (uint64_t)OPT__NFS * 4);
	PUT(fs_rep, OPT__NCLS_FS * 4);
	PUT(fs_stab, OPT__NCLS_FS * 2);
	if (lv->sorted) {
		PUT(fss_sym, (uint64_t)OPT__NFSS * 4);
		PUT(fss_rep, (uint64_t)OPT__NCLS_FSS * 4);
		PUT(fss_stab, (uint64_t)OPT__NCLS_FSS * 2);
	}
	PUT(cp_move, OPT__NCP * OPT__NMOVE * 2);
	PUT(cp_sym, OPT__NCP * 4);
	PUT(cp_rep, OPT__NCLS_CP * 4);
	PUT(cp_stab, OPT__NCLS_CP * 2);
	PUT(prunc, ((uint64_t)OPT__NCLS_CP * OPT__NTWIST + 1) / 2);
	PUT(prun0, ((uint64_t)OPT__NCLS_FS * OPT__NTWIST + 1) / 2);
	if (level > 0)
		PUT(prun, ((uint64_t)lv->nclass * lv->nraw + 3) / 4);
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
	t->twist_move = (uint16_t *)(void *)(b + o.twist_move);
	t->twist_conj = (uint16_t *)(void *)(b + o.twist_conj);
	t->csep_move = b + o.csep_move;
	t->csep_conj = b + o.csep_conj;
	t->flip_move = (uint16_t *)(void *)(b + o.flip_move);
	t->slice_move = (uint16_t *)(void *)(b + o.slice_move);
	t->sorted_move = (uint16_t *)(void *)(b + o.sorted_move);
	t->slice_rank = (uint16_t *)(void *)(b + o.slice_rank);
	t->order_rank = b + o.order_rank;
	t->csep_rank = b + o.csep_rank;
	t->fs_sym = (uint32_t *)(void *)(b + o.fs_sym);
	t->fs_rep = (uint32_t *)(void *)(b + o.fs_rep);
	t->fs_stab = (uint16_t *)(void *)(b + o.fs_stab);
	if (o.fss_sym) {
		t->fss_sym = (uint32_t *)(void *)(b + o.fss_sym);
		t->fss_rep = (uint32_t *)(void *)(b + o.fss_rep);
		t->fss_stab = (uint16_t *)(void *)(b + o.fss_stab);
	}
	t->cp_move = (uint16_t *)(void *)(b + o.cp_move);
	t->cp_sym = (uint32_t *)(void *)(b + o.cp_sym);
	t->cp_rep = (uint32_t *)(void *)(b + o.cp_rep);
	t->cp_stab = (uint16_t *)(void *)(b + o.cp_stab);
	t->prunc = b + o.prunc;
	t->prun0 = b + o.prun0;
	t->prun = o.prun ? b + o.prun : NULL;
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

/* ------------------------------------------------------------ symmetries */

/* The 16 symmetries s = 8·f2 + 2·u4 + lr2 and their inverses
 * (solve3.h). */
_Static_assert(OPT__NSYM == SOLVE3_UD_SYMS, "the 16 U–D symmetries");
struct syms {
	cubie3 s[OPT__NSYM];
	uint8_t inv[OPT__NSYM];
	opt__cube se[OPT__NSYM], sinve[OPT__NSYM]; /* edges only */
};

static void make_syms(struct syms *y)
{
	solve3__ud_syms(y->s, y->inv);
	for (int i = 0; i < OPT__NSYM; i++) {
		/* corners are not used from these: zero them */
		memset(&y->se[i], 0, sizeof y->se[i]);
		memset(&y->sinve[i], 0, sizeof y->sinve[i]);
		for (int e = 0; e < 12; e++) {
			const cubie3 *a = &y->s[i], *b = &y->s[y->inv[i]];
			y->se[i].e[e] = (uint8_t)(a->ep[e] | a->eo[e] << 4);
			y->sinve[i].e[e] = (uint8_t)(b->ep[e] | b->eo[e] << 4);
		}
		for (int c8 = 0; c8 < 8; c8++)
			y->se[i].c[c8] = y->sinve[i].c[c8] = (uint8_t)c8;
	}
}

/* S_s x S_s⁻¹ */
static void sym_conj(const struct syms *y, const cubie3 *x, int s, cubie3 *out)
{
	solve3__conj(y->s, y->inv, x, s, out);
}

/* ------------------------------------------------------------ coordinates */

static int popcount(unsigned x)
{
	return __builtin_popcount(x);
}

static void init_ranks(const opt__tables *t)
{
	int k = 0;
	for (int m = 0; m < 4096; m++)
		t->slice_rank[m] = popcount((unsigned)m) == 4 ? (uint16_t)k++
							       : 0xffff;
	memset(t->order_rank, 0xff, 256);
	k = 0;
	for (int o = 0; o < 256; o++) {
		int seen = 0;
		for (int d = 0; d < 4; d++)
			seen |= 1 << (o >> (2 * d) & 3);
		if (seen == 15)
			t->order_rank[o] = (uint8_t)k++;
	}
	k = 0;
	for (int m = 0; m < 256; m++)
		t->csep_rank[m] = popcount((unsigned)m) == 4 ? (uint8_t)k++ : 0xff;
}

/* Ranks back to their values: slice masks, orders, corner masks. */
struct unrank {
	uint16_t slice[OPT__NSLICE];
	uint8_t order[24];
	uint8_t csep[OPT__NCSEP];
};

static void make_unrank(const opt__tables *t, struct unrank *u)
{
	for (int m = 0; m < 4096; m++)
		if (t->slice_rank[m] != 0xffff)
			u->slice[t->slice_rank[m]] = (uint16_t)m;
	for (int o = 0; o < 256; o++)
		if (t->order_rank[o] != 0xff)
			u->order[t->order_rank[o]] = (uint8_t)o;
	for (int m = 0; m < 256; m++)
		if (t->csep_rank[m] != 0xff)
			u->csep[t->csep_rank[m]] = (uint8_t)m;
}

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

static void set_flip(opt__cube *x, int f)
{
	int sum = 0;
	for (int i = 10; i >= 0; i--) {
		x->e[i] = (uint8_t)((x->e[i] & 15) | (f & 1) << 4);
		sum += f & 1;
		f >>= 1;
	}
	x->e[11] = (uint8_t)((x->e[11] & 15) | (sum & 1) << 4);
}

/* Slice edges at the places of slice rank r, in order k (base-4 digits,
 * first place first); the other edges 0..7 in order. Flips kept by
 * place. */
static void set_slice(const struct unrank *u, opt__cube *x, int r, int k)
{
	int mask = u->slice[r], o = u->order[k], d = 3, n = 0;
	for (int i = 0; i < 12; i++) {
		int piece;
		if (mask >> i & 1) {
			piece = 8 + (o >> (2 * d) & 3);
			d--;
		} else {
			piece = n++;
		}
		x->e[i] = (uint8_t)((x->e[i] & 16) | piece);
	}
}

static void set_csep(const struct unrank *un, opt__cube *x, int r)
{
	int mask = un->csep[r], u = 0, d = 4;
	for (int i = 0; i < 8; i++)
		x->c[i] = (uint8_t)((x->c[i] & 0x18) |
				    (mask >> i & 1 ? u++ : d++));
}

/* Corners in the permutation of Lehmer rank r (twists kept). */
static void set_cperm(opt__cube *x, int r)
{
	int k[8];
	for (int i = 7; i >= 0; i--) {
		k[i] = r % (8 - i);
		r /= 8 - i;
	}
	unsigned used = 0;
	for (int i = 0; i < 8; i++)
		for (int v = 0, c = k[i]; v < 8; v++)
			if (!(used >> v & 1) && c-- == 0) {
				x->c[i] = (uint8_t)((x->c[i] & 0x18) | v);
				used |= 1u << v;
				break;
			}
}

static void solved(opt__cube *x)
{
	for (int i = 0; i < 8; i++)
		x->c[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		x->e[i] = (uint8_t)i;
}

static int get_slice(const opt__tables *t, const opt__cube *x)
{
	return t->slice_rank[opt__slice_mask(x)];
}

static int get_sorted(const opt__tables *t, const opt__cube *x)
{
	return get_slice(t, x) * 24 + t->order_rank[opt__slice_order(x)];
}

static int get_csep(const opt__tables *t, const opt__cube *x)
{
	return t->csep_rank[opt__csep_mask(x)];
}

static void init_moves(const opt__tables *t, const struct unrank *u)
{
	opt__cube mv[OPT__NMOVE], x, y;
	for (int m = 0; m < OPT__NMOVE; m++)
		opt__move_cube(m, &mv[m]);
	solved(&x);
	for (int i = 0; i < OPT__NTWIST; i++) {
		set_twist(&x, i);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x, &mv[m], &y);
			t->twist_move[i * OPT__NMOVE + m] = (uint16_t)opt__twist(&y);
		}
	}
	solved(&x);
	for (int i = 0; i < OPT__NFLIP; i++) {
		set_flip(&x, i);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x, &mv[m], &y);
			t->flip_move[i * OPT__NMOVE + m] = (uint16_t)opt__flip(&y);
		}
	}
	solved(&x);
	for (int i = 0; i < OPT__NSORTED; i++) {
		set_slice(u, &x, i / 24, i % 24);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x, &mv[m], &y);
			t->sorted_move[i * OPT__NMOVE + m] = (uint16_t)get_sorted(t, &y);
			if (i % 24 == 0)
				t->slice_move[i / 24 * OPT__NMOVE + m] =
					(uint16_t)get_slice(t, &y);
		}
	}
	solved(&x);
	for (int i = 0; i < OPT__NCSEP; i++) {
		set_csep(u, &x, i);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x, &mv[m], &y);
			t->csep_move[i * OPT__NMOVE + m] = (uint8_t)get_csep(t, &y);
		}
	}
	solved(&x);
	for (int i = 0; i < OPT__NCP; i++) {
		set_cperm(&x, i);
		for (int m = 0; m < OPT__NMOVE; m++) {
			opt__mul(&x, &mv[m], &y);
			t->cp_move[i * OPT__NMOVE + m] = (uint16_t)opt__cperm(&y);
		}
	}
}

/* Conjugates of the corner coordinates, through cubie3 (mirrors). */
static void init_conj(const opt__tables *t, const struct syms *y,
		      const struct unrank *u)
{
	opt__cube x;
	cubie3 c, d;
	for (int i = 0; i < OPT__NTWIST; i++) {
		solved(&x);
		set_twist(&x, i);
		opt__to_cubie(&x, &c);
		for (int s = 0; s < OPT__NSYM; s++) {
			sym_conj(y, &c, s, &d);
			opt__from_cubie(&d, &x);
			t->twist_conj[i * OPT__NSYM + s] = (uint16_t)opt__twist(&x);
		}
	}
	for (int i = 0; i < OPT__NCSEP; i++) {
		solved(&x);
		set_csep(u, &x, i);
		opt__to_cubie(&x, &c);
		for (int s = 0; s < OPT__NSYM; s++) {
			sym_conj(y, &c, s, &d);
			opt__from_cubie(&d, &x);
			t->csep_conj[i * OPT__NSYM + s] = (uint8_t)get_csep(t, &x);
		}
	}
}

/* The edges of S_s x S_s⁻¹ (its corners are left alone). */
static void edge_conj(const struct syms *y, const opt__cube *x, int s,
		      opt__cube *out)
{
	const opt__cube *a = &y->se[s], *c = &y->sinve[s];
	uint8_t u[12]; /* S·x, then (S·x)·S⁻¹ */
	for (int i = 0; i < 12; i++)
		u[i] = (uint8_t)(a->e[x->e[i] & 15] ^ (x->e[i] & 16));
	for (int i = 0; i < 12; i++)
		out->e[i] = (uint8_t)(u[c->e[i] & 15] ^ (c->e[i] & 16));
}

/* The edge coordinate raw (slice or sorted · NFLIP + flip) as a cube. */
static void edges_of(const struct unrank *u, int sorted, uint32_t raw,
		     opt__cube *x)
{
	uint32_t sl = raw / OPT__NFLIP;
	solved(x);
	if (sorted)
		set_slice(u, x, (int)(sl / 24), (int)(sl % 24));
	else
		set_slice(u, x, (int)sl, 0);
	set_flip(x, (int)(raw % OPT__NFLIP));
}

static uint32_t edge_raw(const opt__tables *t, int sorted, const opt__cube *x)
{
	uint32_t sl = (uint32_t)(sorted ? get_sorted(t, x) : get_slice(t, x));
	return sl * OPT__NFLIP + (uint32_t)opt__flip(x);
}

/* For raws [lo, hi): the smallest conjugate (the class representative)
 * and the first symmetry reaching it, as rep << 4 | sym. */
static void min_conj(const opt__tables *t, const struct syms *y,
		     const struct unrank *u, int sorted, uint32_t *out,
		     uint32_t lo, uint32_t hi)
{
	opt__cube x, b;
	for (uint32_t r = lo; r < hi; r++) {
		edges_of(u, sorted, r, &x);
		uint32_t best = r, bs = 0;
		for (int s = 1; s < OPT__NSYM; s++) {
			edge_conj(y, &x, s, &b);
			uint32_t v = edge_raw(t, sorted, &b);
			if (v < best)
				best = v, bs = (uint32_t)s;
		}
		out[r] = best << 4 | bs;
	}
}

/* Number the classes in increasing order of representative (every raw's
 * representative is no larger than it, so it is numbered already), fill
 * rep and stab. Returns the class count. */
static uint32_t number_classes(const opt__tables *t, const struct syms *y,
			       const struct unrank *u, int sorted,
			       uint32_t *sym, uint32_t nraw, uint32_t *rep,
			       uint16_t *stab, uint32_t cap)
{
	uint32_t n = 0;
	opt__cube x, b;
	for (uint32_t r = 0; r < nraw; r++) {
		uint32_t rp = sym[r] >> 4, s = sym[r] & 15;
		if (rp == r) {
			if (n == cap)
				return cap + 1;
			edges_of(u, sorted, r, &x);
			uint16_t st = 0;
			for (int k = 0; k < OPT__NSYM; k++) {
				edge_conj(y, &x, k, &b);
				if (edge_raw(t, sorted, &b) == r)
					st = (uint16_t)(st | 1u << k);
			}
			rep[n] = r;
			stab[n] = st;
			sym[r] = n++ << 4 | s;
		} else {
			sym[r] = (sym[rp] >> 4) << 4 | s;
		}
	}
	return n;
}

/* The corner permutations' classes: the smallest conjugate represents
 * each (the mirrors only turn corners the other way: their places are
 * what counts here). */
static void cp_classes(const opt__tables *t, const struct syms *y)
{
	opt__cube x;
	cubie3 c, d;
	uint32_t n = 0;
	for (uint32_t r = 0; r < OPT__NCP; r++) {
		solved(&x);
		set_cperm(&x, (int)r);
		opt__to_cubie(&x, &c);
		uint32_t best = r, bs = 0;
		uint16_t st = 0;
		for (int s = 0; s < OPT__NSYM; s++) {
			sym_conj(y, &c, s, &d);
			for (int i = 0; i < 8; i++)
				x.c[i] = d.cp[i];
			uint32_t v = (uint32_t)opt__cperm(&x);
			if (v < best)
				best = v, bs = (uint32_t)s;
			if (v == r)
				st = (uint16_t)(st | 1u << s);
		}
		if (best == r) {
			t->cp_rep[n] = r;
			t->cp_stab[n] = st;
			t->cp_sym[r] = n++ << 4 | bs;
		} else {
			t->cp_sym[r] = (t->cp_sym[best] >> 4) << 4 | bs;
		}
	}
}

/* ------------------------------------------------------------ BFS helpers */

static inline int load4(const uint8_t *p, uint64_t i)
{
	return __atomic_load_n(&p[i >> 1], __ATOMIC_RELAXED) >> ((i & 1) << 2) & 15;
}

static inline int load2(const uint8_t *p, uint64_t i)
{
	return __atomic_load_n(&p[i >> 2], __ATOMIC_RELAXED) >> ((i & 3) << 1) & 3;
}

/* Set entry i from "not reached" (all ones) to v: 1 if this call did. */
static inline int claim4(uint8_t *p, uint64_t i, int v)
{
	int sh = (int)(i & 1) << 2;
	if (load4(p, i) != 15)
		return 0;
	uint8_t old = __atomic_fetch_and(&p[i >> 1], (uint8_t)~((15 ^ v) << sh),
					 __ATOMIC_RELAXED);
	return (old >> sh & 15) == 15;
}

static inline int claim2(uint8_t *p, uint64_t i, int v)
{
	int sh = (int)(i & 3) << 1;
	if (load2(p, i) != 3)
		return 0;
	uint8_t old = __atomic_fetch_and(&p[i >> 2], (uint8_t)~((3 ^ v) << sh),
					 __ATOMIC_RELAXED);
	return (old >> sh & 3) == 3;
}

/* The entries of [lo, hi) (at most CHUNK) whose value is v, as offsets
 * from lo. Whole aligned 64-bit words at a time: the passes mostly look
 * for rare values. */
#define CHUNK 4096
static uint32_t gather(const uint8_t *tab, int bits, uint64_t lo, uint64_t hi,
		       int v, uint16_t *out)
{
	int per = 64 / bits; /* entries per word */
	uint64_t ones = bits == 2 ? 0x5555555555555555u : 0x1111111111111111u;
	uint64_t vv = ones * (uint64_t)v;
	uint32_t n = 0;
	uint64_t i = lo;
	for (; i < hi && i % (uint64_t)per; i++)
		if ((bits == 2 ? load2(tab, i) : load4(tab, i)) == v)
			out[n++] = (uint16_t)(i - lo);
	for (; i + (uint64_t)per <= hi; i += (uint64_t)per) {
		const uint64_t *wp = (const uint64_t *)(const void *)
				     (tab + i * (uint64_t)bits / 8);
		uint64_t w = __atomic_load_n(wp, __ATOMIC_RELAXED) ^ vv;
		/* matching fields are now all zero */
		uint64_t z = w | w >> 1;
		if (bits == 4)
			z |= z >> 2;
		for (uint64_t m = ~z & ones; m; m &= m - 1)
			out[n++] = (uint16_t)(i - lo +
					      (uint64_t)__builtin_ctzll(m) /
						      (uint64_t)bits);
	}
	for (; i < hi; i++)
		if ((bits == 2 ? load2(tab, i) : load4(tab, i)) == v)
			out[n++] = (uint16_t)(i - lo);
	return n;
}

/* One pruning table: how its classes and raw entries move. */
struct prun {
	uint8_t *tab;
	int bits;
	int corners;           /* classes of corner permutations (else edges) */
	int sorted, csep;
	uint32_t nclass, nraw;
	const uint32_t *sym;   /* the class table of its edge coordinate */
	const uint32_t *rep;
	const uint16_t *stab;
};

enum { PT_CORNERS, PT_LEVEL0, PT_MAIN };

static void prun_of(const opt__tables *t, int which, struct prun *p)
{
	const opt__level *lv = which == PT_MAIN ? t->lv : &opt__levels[0];
	p->corners = which == PT_CORNERS;
	p->tab = which == PT_MAIN ? t->prun : which == PT_LEVEL0 ? t->prun0
								 : t->prunc;
	p->bits = which == PT_MAIN ? 2 : 4;
	p->sorted = lv->sorted;
	p->csep = lv->csep;
	p->nclass = lv->nclass;
	p->nraw = lv->nraw;
	p->sym = lv->sorted ? t->fss_sym : t->fs_sym;
	p->rep = lv->sorted ? t->fss_rep : t->fs_rep;
	p->stab = lv->sorted ? t->fss_stab : t->fs_stab;
	if (p->corners) {
		p->sorted = p->csep = 0;
		p->nclass = OPT__NCLS_CP;
		p->nraw = OPT__NTWIST;
		p->sym = t->cp_sym;
		p->rep = t->cp_rep;
		p->stab = t->cp_stab;
	}
}

/* class << 4 | sym of each move's neighbour of class c. */
static void class_moves(const opt__tables *t, const struct prun *p, uint32_t c,
			uint32_t cm[OPT__NMOVE])
{
	uint32_t r = p->rep[c], sl = r / OPT__NFLIP, fl = r % OPT__NFLIP;
	const uint16_t *slm = p->sorted ? t->sorted_move : t->slice_move;
	if (p->corners) {
		for (int m = 0; m < OPT__NMOVE; m++)
			cm[m] = p->sym[t->cp_move[r * OPT__NMOVE + m]];
		return;
	}
	for (int m = 0; m < OPT__NMOVE; m++)
		cm[m] = p->sym[(uint32_t)slm[sl * OPT__NMOVE + m] * OPT__NFLIP +
			       t->flip_move[fl * OPT__NMOVE + m]];
}

static inline uint32_t raw_step(const opt__tables *t, const struct prun *p,
				uint32_t r, int m, int s)
{
	if (!p->csep)
		return t->twist_conj[t->twist_move[r * OPT__NMOVE + (uint32_t)m] *
				     OPT__NSYM + (uint32_t)s];
	uint32_t tw = r / OPT__NCSEP, cs = r % OPT__NCSEP;
	uint32_t tw2 = t->twist_move[tw * OPT__NMOVE + (uint32_t)m];
	uint32_t cs2 = t->csep_move[cs * OPT__NMOVE + (uint32_t)m];
	return (uint32_t)t->twist_conj[tw2 * OPT__NSYM + (uint32_t)s] * OPT__NCSEP +
	       t->csep_conj[cs2 * OPT__NSYM + (uint32_t)s];
}

static inline uint32_t raw_conj(const opt__tables *t, const struct prun *p,
				uint32_t r, int s)
{
	if (!p->csep)
		return t->twist_conj[r * OPT__NSYM + (uint32_t)s];
	uint32_t tw = r / OPT__NCSEP, cs = r % OPT__NCSEP;
	return (uint32_t)t->twist_conj[tw * OPT__NSYM + (uint32_t)s] * OPT__NCSEP +
	       t->csep_conj[cs * OPT__NSYM + (uint32_t)s];
}

static inline int claim(const struct prun *p, uint64_t i, int v)
{
	return p->bits == 2 ? claim2(p->tab, i, v) : claim4(p->tab, i, v);
}

static inline int load(const struct prun *p, uint64_t i)
{
	return p->bits == 2 ? load2(p->tab, i) : load4(p->tab, i);
}

/* Claim entry (c, r) and its symmetric twins in its class for v; returns
 * how many were claimed. */
static uint64_t claim_twins(const opt__tables *t, const struct prun *p,
			    uint32_t c, uint32_t r, int v)
{
	uint64_t base = (uint64_t)c * p->nraw, n = 0;
	n += (uint64_t)claim(p, base + r, v);
	for (unsigned st = p->stab[c] & ~1u; st; st &= st - 1)
		n += (uint64_t)claim(p, base + raw_conj(t, p, r, __builtin_ctz(st)), v);
	return n;
}

/* One worker's share of one layer: from entries of value fv, entries not
 * reached (all ones) get nv. */
static int layer_pass(const opt__tables *t, const struct prun *p, int backward,
		      int fv, int nv, int worker, int nworkers,
		      struct build *bs, solve_poll_fn poll, void *ctx)
{
	uint16_t list[CHUNK];
	uint32_t run = p->nclass > 1000000 ? 256 : p->nraw > 10000 ? 1 : 64;
	int unreached = p->bits == 2 ? 3 : 15;
	uint64_t found = 0, since = 0;
	for (uint32_t c0 = (uint32_t)worker * run; c0 < p->nclass;
	     c0 += (uint32_t)nworkers * run) {
		uint32_t c1 = p->nclass - c0 < run ? p->nclass : c0 + run;
		for (uint32_t c = c0; c < c1; c++) {
			uint32_t cm[OPT__NMOVE];
			int have_cm = 0;
			uint64_t base = (uint64_t)c * p->nraw;
			for (uint32_t r0 = 0; r0 < p->nraw; r0 += CHUNK) {
				uint32_t r1 = p->nraw - r0 < CHUNK ? p->nraw : r0 + CHUNK;
				uint32_t n = gather(p->tab, p->bits, base + r0, base + r1,
						    backward ? unreached : fv, list);
				if (!n)
					continue;
				if (!have_cm) {
					class_moves(t, p, c, cm);
					have_cm = 1;
				}
				for (uint32_t j = 0; j < n; j++) {
					uint32_t r = r0 + list[j];
					for (int m = 0; m < OPT__NMOVE; m++) {
						uint32_t c2 = cm[m] >> 4;
						uint32_t r2 = raw_step(t, p, r, m, (int)(cm[m] & 15));
						uint64_t i2 = (uint64_t)c2 * p->nraw + r2;
						if (backward) {
							if (load(p, i2) != fv)
								continue;
							found += (uint64_t)claim(p, base + r, nv);
							break;
						}
						if (load(p, i2) == unreached)
							found += claim_twins(t, p, c2, r2, nv);
					}
				}
			}
		}
		since += c1 - c0;
		if (since >= 64 || p->nraw > 10000) {
			since = 0;
			if (poll && poll(ctx, bs->done + found, bs->total))
				return SOLVE_ECANCELLED;
		}
	}
	bs->found[worker] = found;
	return CUBE_OK;
}

/* Rename codes by a map (2 bits per code) over a worker's byte range. */
static void sweep_pass(uint8_t *tab, uint64_t bytes, uint32_t map, int worker,
		       int nworkers)
{
	uint8_t lut[256];
	for (int b = 0; b < 256; b++) {
		int o = 0;
		for (int k = 0; k < 4; k++)
			o |= (int)(map >> (2 * (b >> (2 * k) & 3)) & 3) << (2 * k);
		lut[b] = (uint8_t)o;
	}
	uint64_t lo = bytes * (uint64_t)worker / (uint64_t)nworkers;
	uint64_t hi = bytes * (uint64_t)(worker + 1) / (uint64_t)nworkers;
	for (uint64_t i = lo; i < hi; i++)
		tab[i] = lut[tab[i]];
}

/* ------------------------------------------------------------ the rounds */

static uint64_t entries0(void)
{
	return (uint64_t)OPT__NCLS_FS * OPT__NTWIST;
}

static uint64_t entries_main(const opt__level *lv)
{
	return (uint64_t)lv->nclass * lv->nraw;
}

/* Set the solved entry (and twins) of table p to v. */
static void seed_table(const opt__tables *t, const struct prun *p, int v)
{
	opt__cube x;
	solved(&x);
	uint32_t k = p->sym[p->corners ? (uint32_t)opt__cperm(&x)
				       : edge_raw(t, p->sorted, &x)];
	uint32_t r = (uint32_t)opt__twist(&x);
	if (p->csep)
		r = r * OPT__NCSEP + (uint32_t)get_csep(t, &x);
	claim_twins(t, p, k >> 4, raw_conj(t, p, r, (int)(k & 15)), v);
}

static uint64_t entries_c(void)
{
	return (uint64_t)OPT__NCLS_CP * OPT__NTWIST;
}

/* Start the breadth-first search of a 4-bit table: the corners' or
 * level 0's. */
static void start_4bit(const opt__tables *t, struct build *bs, int phase)
{
	struct prun p;
	prun_of(t, phase == PH_BFSC ? PT_CORNERS : PT_LEVEL0, &p);
	memset(p.tab, 0xff, (size_t)(((uint64_t)p.nclass * p.nraw + 1) / 2));
	seed_table(t, &p, 0);
	bs->phase = (uint32_t)phase;
	bs->depth = 0;
	bs->backward = 0;
	bs->reached = bs->layer = 1;
}

int optimal_table_begin(void *buf, size_t size, int level)
{
	if (!buf || level < 0 || level >= OPTIMAL_LEVELS ||
	    size != optimal_table_size(level))
		return CUBE_EINVAL;
	unsigned char *b = buf;
	opt__tables t;
	struct syms y;
	memset(b, 0, size);
	opt__bind(&t, level, b);
	t.info->level = (uint32_t)level;
	t.info->base = (uint32_t)t.lv->base;
	struct unrank u;
	make_syms(&y);
	init_ranks(&t);
	make_unrank(&t, &u);
	init_moves(&t, &u);
	init_conj(&t, &y, &u);
	min_conj(&t, &y, &u, 0, t.fs_sym, 0, OPT__NFS);
	if (number_classes(&t, &y, &u, 0, t.fs_sym, OPT__NFS, t.fs_rep,
			   t.fs_stab, OPT__NCLS_FS) != OPT__NCLS_FS)
		return SOLVE_ETABLES; /* a bug, not bad input */
	cp_classes(&t, &y);
	struct build *bs = state_of(b, level);
	bs->level = (uint32_t)level;
	bs->total = entries_c() + entries0() +
		    (level ? entries_main(t.lv) : 0) +
		    (t.lv->sorted ? OPT__NFSS : 0);
	if (t.lv->sorted)
		bs->phase = PH_CLASSES;
	else
		start_4bit(&t, bs, PH_BFSC);
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
	struct prun p;
	switch (bs->phase) {
	case PH_CLASSES: {
		struct syms y;
		struct unrank u;
		make_syms(&y);
		make_unrank(&t, &u);
		/* in slices, so poll is called now and then */
		uint64_t lo = (uint64_t)OPT__NFSS * (uint64_t)worker / (uint64_t)nworkers;
		uint64_t hi = (uint64_t)OPT__NFSS * (uint64_t)(worker + 1) / (uint64_t)nworkers;
		for (uint64_t r = lo; r < hi; r += 65536) {
			uint64_t e = hi - r < 65536 ? hi : r + 65536;
			min_conj(&t, &y, &u, 1, t.fss_sym, (uint32_t)r,
				 (uint32_t)e);
			if (poll && poll(ctx, bs->done + (r - lo), bs->total))
				return SOLVE_ECANCELLED;
		}
		return CUBE_OK;
	}
	case PH_BFSC:
	case PH_BFS0:
		prun_of(&t, bs->phase == PH_BFSC ? PT_CORNERS : PT_LEVEL0, &p);
		return layer_pass(&t, &p, (int)bs->backward, (int)bs->depth,
				  (int)bs->depth + 1, worker, nworkers, bs, poll,
				  ctx);
	case PH_BFS:
		prun_of(&t, PT_MAIN, &p);
		return layer_pass(&t, &p, (int)bs->backward, (int)bs->fc,
				  (int)bs->nc, worker, nworkers, bs, poll, ctx);
	case PH_SWEEP:
		sweep_pass(t.prun, (entries_main(t.lv) + 3) / 4, bs->sweep_map,
			   worker, nworkers);
		return CUBE_OK;
	}
	return CUBE_OK; /* PH_DONE: nothing to do */
}

/* The code maps of sweeps: map[code] at bits 2·code. */
#define MAP(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 2 | \
			 (uint32_t)(c) << 4 | (uint32_t)(d) << 6)

/* Start the main table's breadth-first search. */
static void start_main(const opt__tables *t, struct build *bs)
{
	struct prun p;
	prun_of(t, PT_MAIN, &p);
	memset(t->prun, 0xff, (size_t)((entries_main(t->lv) + 3) / 4));
	seed_table(t, &p, 1);
	bs->phase = PH_BFS;
	bs->depth = 0;
	bs->fc = 1;
	bs->nc = 2;
	bs->reached = bs->layer = 1;
	bs->backward = 0;
	t->info->at_depth[0] = 1;
}

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
	switch (bs->phase) {
	case PH_CLASSES: {
		struct syms y;
		struct unrank u;
		make_syms(&y);
		make_unrank(&t, &u);
		if (number_classes(&t, &y, &u, 1, t.fss_sym, OPT__NFSS,
				   t.fss_rep, t.fss_stab,
				   OPT__NCLS_FSS) != OPT__NCLS_FSS)
			return SOLVE_ETABLES;
		bs->done += OPT__NFSS;
		start_4bit(&t, bs, PH_BFSC);
		return 1;
	}
	case PH_BFSC:
	case PH_BFS0: {
		uint64_t *hist = bs->phase == PH_BFSC ? t.info->at_depthc
						      : t.info->at_depth0;
		uint64_t all = bs->phase == PH_BFSC ? entries_c() : entries0();
		if (bs->depth == 0)
			hist[0] = bs->reached;
		bs->depth++;
		if (found && bs->depth < 16)
			hist[bs->depth] = found;
		bs->reached += found;
		bs->done += found;
		if (found && bs->depth < 15) {
			bs->backward = all - bs->reached < 3 * found;
			bs->layer = found;
			return 1;
		}
		if (bs->reached != all)
			return SOLVE_ETABLES; /* some entry was never reached */
		if (bs->phase == PH_BFSC) {
			start_4bit(&t, bs, PH_BFS0);
			return 1;
		}
		if (level == 0) {
			seal(b, size, bs);
			return 0;
		}
		start_main(&t, bs);
		return 1;
	}
	case PH_BFS: {
		uint32_t lastdepth = (uint32_t)t.lv->base + 2;
		bs->depth++;
		bs->reached += found;
		bs->done += found;
		t.info->at_depth[bs->depth < 23 ? bs->depth : 23] = found;
		uint64_t left = entries_main(t.lv) - bs->reached;
		if (bs->depth == lastdepth || !found) {
			/* codes now: 0 ≤ base, fc = base + 1, nc = base + 2,
			 * 3 deeper: rename to 0, 1, 2, 3 */
			t.info->at_depth[bs->depth + 1 < 23 ? bs->depth + 1 : 23] = left;
			if (bs->fc == 2) /* base + 2 was found: swap 1 and 2 */
				bs->sweep_map = MAP(0, 2, 1, 3);
			else if (bs->depth <= lastdepth - 1) /* ended early */
				bs->sweep_map = bs->depth <= (uint32_t)t.lv->base + 1
						? MAP(0, 0, 0, 3) : MAP(0, 0, 1, 3);
			else
				bs->sweep_map = MAP(0, 1, 2, 3);
			bs->phase = PH_SWEEP;
			bs->depth = 99; /* the last sweep */
			return 1;
		}
		bs->backward = left < 3 * found;
		bs->layer = found;
		/* before the next layer: the last layer joins the old ones;
		 * the new one becomes the last. Once the base is passed, the
		 * codes stay put and the next layer takes the free code. */
		if (bs->depth <= (uint32_t)t.lv->base) {
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
	if (level == 0) {
		out->entries = entries0();
		for (int d = 0; d < 16; d++)
			if (t.info->at_depth0[d])
				out->max_depth = d;
		for (int d = 0; d < 16; d++)
			out->at_depth[d] = t.info->at_depth0[d];
	} else {
		out->entries = entries_main(t.lv);
		for (int d = 0; d < 24; d++) {
			out->at_depth[d] = t.info->at_depth[d];
			if (t.info->at_depth[d])
				out->max_depth = d;
		}
	}
	return CUBE_OK;
}
