/* optimal_tables_internal.h — how the optimal solver's tables lie in
 * the caller's buffer (opt__ names): the levels, the header's magic and
 * version, where each table starts, the pointers into a buffer that the
 * builder (optimal_tables.c) and the search (optimal.c) both read
 * through, and the main table's index. Not part of the public API. */
#ifndef CUBED_OPTIMAL_TABLES_INTERNAL_H
#define CUBED_OPTIMAL_TABLES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "optimal_coord.h"
#include "optimal_tables.h"

/* The level descriptions. */
typedef struct opt__level {
	int orbits;      /* 0: corners by cocsep alone; 1: cocsep · the
			  * square group's orbit of the tetrads' orders */
	int kind;        /* the sub-orbits' group (optimal_coord.h) */
	uint32_t nfp;    /* 1 or 4 flip-parity values */
	uint32_t nsub;   /* 1, 2 or 6 sub-orbits */
	int base;        /* entries at or under base read as their line's
			  * least value */
	uint32_t ncraw;  /* corner values: 153,090 or 918,540 */
	uint32_t nclass; /* their symmetry classes */
	uint32_t nraw;   /* entries per class: esep · nfp · nsub */
} opt__level;

extern const opt__level opt__levels[OPTIMAL_LEVELS];

/* The header's magic and format version (solve_internal.h). */
#define OPT__MAGIC "cubedopt"
#define OPT__VERSION 4u

/* The main table: 2 bits per entry, 252 entries in the first 63 bytes
 * of each 64-byte line; the line's last byte holds the least depth of
 * its entries (the bound an entry at or under base falls back to). */
#define OPT__LINE 252u

static inline uint64_t opt__lines(const opt__level *lv)
{
	uint64_t n = (uint64_t)lv->nclass * lv->nraw;
	return (n + OPT__LINE - 1) / OPT__LINE;
}

static inline uint64_t opt__byte(uint64_t i)
{
	return (i >> 2) + i / OPT__LINE;
}

static inline int opt__get2(const uint8_t *p, uint64_t i)
{
	return p[opt__byte(i)] >> ((i & 3) << 1) & 3;
}

static inline int opt__linemin(const uint8_t *p, uint64_t i)
{
	return p[i / OPT__LINE * 64 + 63];
}

/* Where everything is, for one level. */
typedef struct opt__layout {
	uint64_t info, syms, ranks, csym, crep, cstab, emove, econj, prun,
		state, total;
} opt__layout;

int opt__layout_of(int level, opt__layout *out);

/* What the info block (covered by the checksum) records. */
typedef struct opt__info {
	uint32_t level;
	uint32_t base;
	uint32_t nclass;
	uint32_t pad;
	uint64_t at_depth[24]; /* entries per depth (exact: the tables are
				* built breadth first) */
} opt__info;

/* Pointers into a buffer. */
typedef struct opt__tables {
	const opt__level *lv;
	int level;
	opt__info *info;
	opt__syms *syms;
	opt__ranks *ranks;
	uint32_t *csym;   /* [ncraw]: class << 6 | symmetry to the rep */
	uint32_t *crep;   /* [nclass]: the rep's corner value */
	uint64_t *cstab;  /* [nclass]: symmetries that fix the rep */
	uint32_t *emove;  /* [esep · nfp][NMOVE]: the edge value moved */
	uint32_t *econj;  /* [esep · nfp][NSYM]: conjugated */
	uint8_t *prun;    /* the main table */
} opt__tables;

/* Bind pointers for the level the layout says. */
void opt__bind(opt__tables *t, int level, unsigned char *buf);

/* The corner value of x for a level. */
static inline uint32_t opt__craw(const opt__tables *t, const opt__cube *x)
{
	uint32_t v = opt__cocsep(t->ranks, x);
	if (!t->lv->orbits)
		return v;
	return v * 6 + t->ranks->orb[opt__ab(t->ranks, x)];
}

#endif
