/* optimal_tables_internal.h — how the optimal solver's tables lie in
 * the caller's buffer (opt__ names): the levels, the header's magic and
 * version, where each table starts, and the pointers into a buffer that
 * the builder (optimal_tables.c) and the search (optimal.c) both read
 * through. Not part of the public API. */
#ifndef CUBED_OPTIMAL_TABLES_INTERNAL_H
#define CUBED_OPTIMAL_TABLES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "optimal_coord.h"
#include "optimal_tables.h"

/* ------------------------------------------------------------ the buffer */

/* The level descriptions. */
typedef struct opt__level {
	int sorted;      /* classes of flip·sorted slice (else flip·slice) */
	int csep;        /* raw part is twist · csep (else twist) */
	int base;        /* 2-bit main table's base depth (0: level 0) */
	uint32_t nclass; /* classes of the main table */
	uint32_t nraw;   /* raw entries per class */
} opt__level;

extern const opt__level opt__levels[OPTIMAL_LEVELS];

/* The header's magic and format version (solve_internal.h). */
#define OPT__MAGIC "cubedopt"
#define OPT__VERSION 3u

/* Where everything is, for one level. */
typedef struct opt__layout {
	uint64_t info, twist_move, twist_conj, csep_move, csep_conj,
		flip_move, slice_move, sorted_move, slice_rank, order_rank,
		csep_rank, fs_sym, fs_rep, fs_stab, fss_sym, fss_rep, fss_stab,
		cp_move, cp_sym, cp_rep, cp_stab, prunc, prun0, prun, state,
		total;
} opt__layout;

int opt__layout_of(int level, opt__layout *out);

/* What the info block (covered by the checksum) records. */
typedef struct opt__info {
	uint32_t level;
	uint32_t base;
	uint64_t at_depthc[16]; /* corner table: entries per depth */
	uint64_t at_depth0[16]; /* level-0 table: entries per depth */
	uint64_t at_depth[24];  /* the main table (levels 1–2): entries per
				 * depth up to base + 2, then "deeper" */
} opt__info;

/* Pointers into a buffer. */
typedef struct opt__tables {
	const opt__level *lv;
	int level;
	uint16_t *twist_move;  /* [NTWIST][NMOVE] */
	uint16_t *twist_conj;  /* [NTWIST][NSYM] */
	uint8_t *csep_move;    /* [NCSEP][NMOVE] */
	uint8_t *csep_conj;    /* [NCSEP][NSYM] */
	uint16_t *flip_move;   /* [NFLIP][NMOVE] */
	uint16_t *slice_move;  /* [NSLICE][NMOVE] */
	uint16_t *sorted_move; /* [NSORTED][NMOVE] */
	uint16_t *slice_rank;  /* [4096]: slice mask → 0..494 */
	uint8_t *order_rank;   /* [256]: slice order → 0..23 */
	uint8_t *csep_rank;    /* [256]: csep mask → 0..69 */
	uint32_t *fs_sym;      /* [NFS]: class << 4 | sym to the rep */
	uint32_t *fs_rep;      /* [NCLS_FS] */
	uint16_t *fs_stab;     /* [NCLS_FS] */
	uint32_t *fss_sym;     /* [NFSS] (level 1) */
	uint32_t *fss_rep;     /* [NCLS_FSS] */
	uint16_t *fss_stab;    /* [NCLS_FSS] */
	uint16_t *cp_move;     /* [NCP][NMOVE] */
	uint32_t *cp_sym;      /* [NCP]: class << 4 | sym to the rep */
	uint32_t *cp_rep;      /* [NCLS_CP] */
	uint16_t *cp_stab;     /* [NCLS_CP] */
	uint8_t *prunc;        /* corners: 4 bits per (cp class, twist), the
				* exact corner distance */
	uint8_t *prun0;        /* level 0: 4 bits per (fs class, twist) */
	uint8_t *prun;         /* levels 1–2: 2 bits per (class, raw) */
	opt__info *info;
} opt__tables;

/* Bind pointers for the level the layout says. */
void opt__bind(opt__tables *t, int level, unsigned char *buf);

static inline int opt__get4(const uint8_t *p, uint64_t i)
{
	return p[i >> 1] >> ((i & 1) << 2) & 15;
}

static inline int opt__get2(const uint8_t *p, uint64_t i)
{
	return p[i >> 2] >> ((i & 3) << 1) & 3;
}

#endif
