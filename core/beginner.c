/* beginner.c — the beginner layer-by-layer method and solving to a pattern
 * (beginner.h).
 *
 * Both work on cubies (a node is one composition or a few table lookups)
 * and check what they reach with the pattern queries of pattern.h: every
 * beginner stage ends with its pattern matched on the facelets, and a
 * pattern target is reached only when pattern_match says so.
 *
 * Tables (one caller-owned buffer): the face turns as cubies; where a
 * turn sends one edge or corner (24 states each: position·2 + flip,
 * position·3 + twist); three distance tables over the states of four
 * pieces (24⁴ bytes each, filled breadth first): the D edges (the cross),
 * the D corners and the middle edges; the beginner algorithms as move
 * lists and cubies; and the compiled stage patterns.
 *
 * Stage searches compose whole algorithms ("macros"), not single turns:
 * the fewest macros that put one more piece home and keep the others, the
 * fewest moves among those. A macro search never goes deeper than a few
 * macros, since the algorithms each do one job (a corner or an edge into
 * any slot from above it, out of a slot, the last-layer steps), which is
 * also what makes each stage finish: the macro sets are complete for their
 * goals, and the depth bounds are checked against thousands of random
 * states in tests/unit/check_beginner.c.
 */
#include "beginner.h"
#include "alg.h"
#include "cubie_internal.h"
#include "solve_internal.h"
#include "solve3.h"

#include <stddef.h>
#include <string.h>

enum { U, R, F, D, L, B };

enum {
	NMOVE = 18,      /* face·3 + quarter turns - 1 */
	NPIECE = 24,     /* states of one piece */
	NIDX = NPIECE * NPIECE * NPIECE * NPIECE,
	UNSEEN = 0xff,
	MACRO_MAX = 15,  /* moves of the longest algorithm */
	MDEPTH = 8,      /* deepest macro search */
	PAT_BYTES = 2048, /* >= pattern_sizeof(3, NULL, 0) */
	POLL_NODES = 4096,
};

static const char MAGIC[8] = "cubedbeg";
/* Any change to what the tables hold must bump VERSION. */
#define VERSION 1u

/* ---------------------------------------------------------- patterns */

enum pat_id {
	PAT_SOLVED, PAT_CROSS, PAT_FIRST_LAYER, PAT_F2L, PAT_EO, PAT_OLL,
	PAT_LL_EDGES,     /* solved but for the U corners */
	PAT_LL_CORNER0,   /* + 4: URF UFL ULB UBR each in its place */
	NPAT = PAT_LL_CORNER0 + 4,
};

/* The named patterns compiled into the tables, in enum pat_id order. */
static const char *const named_ids[PAT_LL_EDGES] = {
	"solved", "cross", "first_layer", "f2l", "eo", "oll",
};

/* ------------------------------------------------------------ macros */

/* Algorithms for the DFR corner / FR edge slot; the other slots' are the
 * same with the side faces renamed (slot_face). */
static const char *const corner_algs[3] = {
	"R U R'", "F' U' F", "R U2 R' U' R U R'",
};
static const char *const edge_algs[2] = {
	"U R U' R' U' F' U F", "U' F' U F U R U' R'",
};
static const char *const ll_algs[3][2] = {
	{"F R U R' U' F'", "F U R U' R' F'"},           /* edge orientation */
	{"R U R' U R U2 R'", "R U2 R' U' R U' R'"},     /* edge permutation */
	{"U R U' L' U R' U' L", "L' U R U' L U R' U'"}, /* corner permutation */
};
static const char *const twist_algs[2] = {"R' D' R D", "D' R' D R"};

enum macro_id {
	M_U = 0,                  /* U U2 U' */
	M_CORNER = 3,             /* + slot·3 + alg */
	M_EDGE = M_CORNER + 12,   /* + slot·2 + alg */
	M_EO = M_EDGE + 8,        /* + alg (2) */
	M_EP = M_EO + 2,
	M_CP = M_EP + 2,
	M_TWIST = M_CP + 2,       /* + alg (2) */
	NMACRO = M_TWIST + 2,
};

struct macro {
	uint8_t len;
	uint8_t mv[MACRO_MAX];
	cubie3 t;
};

/* Slots 0..3 = DFR/FR, DLF/FL, DBL/BL, DRB/BR: slot s sees the cube turned
 * by y' s times, so its "R" is the face after R in R F L B. */
static int slot_face(int s, int f)
{
	static const int ring[4] = {R, F, L, B};
	for (int k = 0; k < 4; k++)
		if (ring[k] == f)
			return ring[(k + s) % 4];
	return f;
}

/* A 3×3 cube_t on the stack (cube_sizeof(3), checked by table init). */
#define CUBE3_BYTES 160
typedef struct cube3_buf {
	_Alignas(max_align_t) unsigned char b[CUBE3_BYTES];
} cube3_buf;
#define AS_CUBE(x) ((cube_t *)(void *)(x).b)

/* ------------------------------------------------------------ tables */

struct btables {
	unsigned char header[SOLVE__HEADER];
	cubie3 turn[NMOVE];
	uint8_t emove[NPIECE][NMOVE]; /* edge state after a turn */
	uint8_t cmove[NPIECE][NMOVE];
	struct macro macro[NMACRO];
	uint8_t cross[NIDX];   /* edges DR DF DL DB home */
	uint8_t corners[NIDX]; /* corners DFR DLF DBL DRB home */
	uint8_t middle[NIDX];  /* edges FR FL BL BR home */
	_Alignas(8) unsigned char pat[NPAT][PAT_BYTES];
};

size_t beginner_table_size(void)
{
	return sizeof(struct btables);
}

static const pattern_t *pat(const struct btables *t, int id)
{
	return (const pattern_t *)(const void *)t->pat[id];
}

/* "R U2 R'" → move indices; the length, or -1. */
static int parse_moves(const char *s, int slot, uint8_t *mv, int cap)
{
	int k = 0;
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		const char *p = strchr(cube_face_letters, *s);
		if (!p || !*p || k == cap)
			return -1;
		int f = slot_face(slot, (int)(p - cube_face_letters)), q = 1;
		s++;
		if (*s == '2')
			q = 2, s++;
		else if (*s == '\'')
			q = 3, s++;
		mv[k++] = (uint8_t)(f * 3 + q - 1);
	}
	return k;
}

static int set_macro(struct btables *t, int id, const char *text, int slot)
{
	struct macro *m = &t->macro[id];
	int k = parse_moves(text, slot, m->mv, MACRO_MAX);
	if (k < 0)
		return CUBE_EINVAL;
	m->len = (uint8_t)k;
	cubie3_solved(&m->t);
	for (int i = 0; i < k; i++)
		cubie3_compose(&m->t, &t->turn[m->mv[i]], &m->t);
	return CUBE_OK;
}

static uint32_t idx4(const uint8_t s[4])
{
	return ((uint32_t)(s[0] * NPIECE + s[1]) * NPIECE + s[2]) * NPIECE +
	       s[3];
}

/* Distances of four pieces from home (home[k] = 24-state of piece k at
 * home), breadth first, one pass over the table per depth. A turn moves
 * each piece on its own, so the index of a neighbour is a sum of four
 * per-piece terms (part[k][m][s] = where turn m sends state s, scaled to
 * piece k's digit). */
static void fill_dist(uint8_t *dist, const uint8_t (*mv)[NMOVE],
		      const uint8_t home[4])
{
	uint32_t part[4][NMOVE][NPIECE];
	for (int k = 0; k < 4; k++)
		for (int m = 0; m < NMOVE; m++)
			for (int x = 0; x < NPIECE; x++) {
				uint32_t v = mv[x][m];
				for (int j = k; j < 3; j++)
					v *= NPIECE;
				part[k][m][x] = v;
			}
	memset(dist, UNSEEN, NIDX);
	dist[idx4(home)] = 0;
	for (int d = 0, more = 1; more; d++) {
		more = 0;
		uint32_t i = 0;
		for (int a = 0; a < NPIECE; a++)
			for (int b = 0; b < NPIECE; b++)
				for (int c = 0; c < NPIECE; c++)
					for (int e = 0; e < NPIECE; e++, i++) {
						if (dist[i] != d)
							continue;
						for (int m = 0; m < NMOVE; m++) {
							uint32_t j = part[0][m][a] +
								     part[1][m][b] +
								     part[2][m][c] +
								     part[3][m][e];
							if (dist[j] == UNSEEN) {
								dist[j] = (uint8_t)(d + 1);
								more = 1;
							}
						}
					}
	}
}

/* The stage patterns of the last layer, in the pattern language: the
 * solved cube with the U corners left free; and for each U corner, its
 * three stickers three distinct digits and the centers of the three faces
 * it does not touch their letters — since a digit's colour differs from
 * every letter's, the stickers are then the corner's own three colours in
 * some twist: the piece is in its place. */
static void ll_edges_text(char out[54])
{
	for (int i = 0; i < 54; i++)
		out[i] = cube_face_letters[i / 9];
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 3; k++)
			out[cubie__corner_facelet[c][k]] = '*';
}

static void ll_corner_text(int c, char out[54])
{
	memset(out, '*', 54);
	for (int f = 0; f < 6; f++) {
		int touches = 0;
		for (int k = 0; k < 3; k++)
			touches |= cubie__corner_color[c][k] == f;
		if (!touches)
			out[f * 9 + 4] = cube_face_letters[f];
	}
	for (int k = 0; k < 3; k++)
		out[cubie__corner_facelet[c][k]] = (char)('1' + k);
}

static int compile_into(struct btables *t, int id, const char *text)
{
	if (pattern_sizeof(3, text, 54) > PAT_BYTES)
		return CUBE_ESPACE;
	return pattern_compile((pattern_t *)(void *)t->pat[id], 3, text, 54,
			       NULL);
}

int beginner_table_init(void *buf, size_t size)
{
	if (!buf || size != sizeof(struct btables))
		return CUBE_EINVAL;
	if (cube_sizeof(3) > CUBE3_BYTES)
		return CUBE_ESPACE;
	struct btables *t = buf;
	memset(t, 0, sizeof *t);
	for (int m = 0; m < NMOVE; m++)
		cubie3_face_turn(m / 3, m % 3 + 1, &t->turn[m]);
	/* composition puts the piece at b.ep[i] at i, flip + b.eo[i] */
	for (int m = 0; m < NMOVE; m++) {
		const cubie3 *b = &t->turn[m];
		for (int i = 0; i < 12; i++)
			for (int o = 0; o < 2; o++)
				t->emove[b->ep[i] * 2 + o][m] =
					(uint8_t)(i * 2 + ((o + b->eo[i]) & 1));
		for (int i = 0; i < 8; i++)
			for (int o = 0; o < 3; o++)
				t->cmove[b->cp[i] * 3 + o][m] =
					(uint8_t)(i * 3 + (o + b->co[i]) % 3);
	}
	static const uint8_t cross_home[4] = {8, 10, 12, 14}; /* DR DF DL DB */
	static const uint8_t corner_home[4] = {12, 15, 18, 21};
	static const uint8_t middle_home[4] = {16, 18, 20, 22};
	fill_dist(t->cross, (const uint8_t(*)[NMOVE])t->emove, cross_home);
	fill_dist(t->corners, (const uint8_t(*)[NMOVE])t->cmove, corner_home);
	fill_dist(t->middle, (const uint8_t(*)[NMOVE])t->emove, middle_home);

	int rc = CUBE_OK;
	for (int a = 0; a < 3 && rc == CUBE_OK; a++)
		rc = set_macro(t, M_U + a, a == 0 ? "U" : a == 1 ? "U2" : "U'",
			       0);
	for (int s = 0; s < 4 && rc == CUBE_OK; s++) {
		for (int a = 0; a < 3 && rc == CUBE_OK; a++)
			rc = set_macro(t, M_CORNER + s * 3 + a, corner_algs[a],
				       s);
		for (int a = 0; a < 2 && rc == CUBE_OK; a++)
			rc = set_macro(t, M_EDGE + s * 2 + a, edge_algs[a], s);
	}
	for (int k = 0; k < 3 && rc == CUBE_OK; k++)
		for (int a = 0; a < 2 && rc == CUBE_OK; a++)
			rc = set_macro(t, M_EO + 2 * k + a, ll_algs[k][a], 0);
	for (int a = 0; a < 2 && rc == CUBE_OK; a++)
		rc = set_macro(t, M_TWIST + a, twist_algs[a], 0);

	char text[54];
	for (int id = 0; id < PAT_LL_EDGES && rc == CUBE_OK; id++) {
		const pattern_named *pn = pattern_named_find(3, named_ids[id]);
		rc = pn ? pattern_named_text(pn, 3, 0, text) : PATTERN_ENAME;
		if (rc == CUBE_OK)
			rc = compile_into(t, id, text);
	}
	if (rc == CUBE_OK) {
		ll_edges_text(text);
		rc = compile_into(t, PAT_LL_EDGES, text);
	}
	for (int c = 0; c < 4 && rc == CUBE_OK; c++) {
		ll_corner_text(c, text);
		rc = compile_into(t, PAT_LL_CORNER0 + c, text);
	}
	if (rc < 0)
		return rc;
	solve__seal(buf, sizeof *t, MAGIC, VERSION);
	return CUBE_OK;
}

int beginner_table_check(const void *buf, size_t size)
{
	return solve__check(buf, size, sizeof(struct btables), MAGIC, VERSION);
}

static int header_ok(const void *tables)
{
	return solve__header_ok(tables, sizeof(struct btables), MAGIC,
				VERSION);
}

/* ------------------------------------------------------ small helpers */


static void cube_of(const cubie3 *c, cube_t *k)
{
	char f[54];
	cube3_to_facelets(c, f);
	cube_from_facelets(k, 3, f, sizeof f, NULL);
}

/* Where piece p is, as a 24-state. */
static uint8_t edge_state(const cubie3 *c, int p)
{
	for (int i = 0; i < 12; i++)
		if (c->ep[i] == p)
			return (uint8_t)(i * 2 + c->eo[i]);
	return 0;
}

static uint8_t corner_state(const cubie3 *c, int p)
{
	for (int i = 0; i < 8; i++)
		if (c->cp[i] == p)
			return (uint8_t)(i * 3 + c->co[i]);
	return 0;
}

static int matches(const pattern_t *const *p, size_t np, const cubie3 *c,
		   uint32_t *mask)
{
	cube3_buf kb;
	cube_of(c, AS_CUBE(kb));
	uint32_t m = 0;
	int k = pattern_match(p, np, AS_CUBE(kb), mask == NULL, &m);
	if (mask)
		*mask = m;
	return k > 0;
}

/* ------------------------------------------------------------ stages */

static const struct {
	const char *name, *goal;
} stage_info[BEGINNER_STAGES] = {
	{"cross", "the D edges home: the pattern cross, on D"},
	{"first_layer_corners",
	 "the D layer solved: the pattern first_layer, on D"},
	{"second_layer", "the first two layers solved: the pattern f2l, on D"},
	{"last_layer_edge_orientation",
	 "f2l and a cross of U stickers on U: the pattern eo, on D"},
	{"last_layer_edge_permutation",
	 "everything solved but the U corners"},
	{"last_layer_corner_permutation",
	 "everything solved but the twists of the U corners"},
	{"last_layer_corner_orientation", "solved"},
};

const char *beginner_stage_name(int k)
{
	return k >= 0 && k < BEGINNER_STAGES ? stage_info[k].name : NULL;
}

const char *beginner_stage_goal(int k)
{
	return k >= 0 && k < BEGINNER_STAGES ? stage_info[k].goal : NULL;
}

/* Whether stage k's pattern holds for c (the stage is done). The named
 * patterns are built on their U side: on D they fit in the orientations
 * whose pattern-U lies on D, numbers 12..15 (pattern.h). */
static int stage_holds(const struct btables *t, int k, const cubie3 *c)
{
	static const int named[4] = {PAT_CROSS, PAT_FIRST_LAYER, PAT_F2L,
				     PAT_EO};
	uint32_t mask;
	if (k < 4) {
		const pattern_t *p = pat(t, named[k]);
		return matches(&p, 1, c, &mask) && (mask & 0xf000u);
	}
	const pattern_t *p[5] = {pat(t, PAT_LL_EDGES),
				 pat(t, PAT_LL_CORNER0),
				 pat(t, PAT_LL_CORNER0 + 1),
				 pat(t, PAT_LL_CORNER0 + 2),
				 pat(t, PAT_LL_CORNER0 + 3)};
	if (k == 4)
		return matches(p, 1, c, NULL);
	if (k == 5)
		return matches(p, 5, c, NULL);
	p[0] = pat(t, PAT_SOLVED);
	return matches(p, 1, c, NULL);
}

/* A macro search's goal, by position: corners / edges that must be home
 * (placed and untwisted / unflipped), corners that must be placed, edges
 * that must be unflipped; and "any": at least one of these must be home.
 */
struct goal {
	unsigned c_home, c_placed, c_any;
	unsigned e_home, e_flip, e_any;
};

static unsigned corners_home(const cubie3 *c)
{
	unsigned m = 0;
	for (int i = 0; i < 8; i++)
		m |= (unsigned)(c->cp[i] == i && c->co[i] == 0) << i;
	return m;
}

static unsigned edges_home(const cubie3 *c)
{
	unsigned m = 0;
	for (int i = 0; i < 12; i++)
		m |= (unsigned)(c->ep[i] == i && c->eo[i] == 0) << i;
	return m;
}

static int goal_met(const cubie3 *c, const struct goal *g)
{
	unsigned ch = corners_home(c), eh = edges_home(c);
	if ((ch & g->c_home) != g->c_home || (eh & g->e_home) != g->e_home)
		return 0;
	if ((g->c_any || g->e_any) && !(ch & g->c_any) && !(eh & g->e_any))
		return 0;
	for (int i = 0; i < 8; i++)
		if ((g->c_placed >> i & 1) && c->cp[i] != i)
			return 0;
	for (int i = 0; i < 12; i++)
		if ((g->e_flip >> i & 1) && c->eo[i])
			return 0;
	return 1;
}

struct msearch {
	const struct btables *t;
	const uint8_t *set;
	int nset;
	struct goal g;
	int depth;
	uint8_t path[MDEPTH], best[MDEPTH];
	int best_cost;
	cubie3 st[MDEPTH + 1];
};

/* Moves a macro adds after prev: a turn of the same face as prev's last
 * merges with it (one move fewer) or cancels (two). */
static int macro_cost(const struct btables *t, int prev, int m)
{
	const struct macro *a = &t->macro[m];
	if (prev < 0)
		return a->len;
	const struct macro *p = &t->macro[prev];
	int x = p->mv[p->len - 1], y = a->mv[0];
	if (x / 3 != y / 3)
		return a->len;
	return (x % 3 + y % 3 + 2) % 4 == 0 ? a->len - 2 : a->len - 1;
}

static int is_u_macro(int m)
{
	return m < M_U + 3;
}

static void mdfs(struct msearch *s, int k, int cost, int prev)
{
	if (k == s->depth) {
		if (cost < s->best_cost && goal_met(&s->st[k], &s->g)) {
			s->best_cost = cost;
			memcpy(s->best, s->path, (size_t)k);
		}
		return;
	}
	for (int i = 0; i < s->nset; i++) {
		int m = s->set[i];
		if (prev >= 0 && is_u_macro(m) && is_u_macro(prev))
			continue;
		int c = cost + macro_cost(s->t, prev, m);
		if (c >= s->best_cost)
			continue;
		s->path[k] = (uint8_t)m;
		cubie3_compose(&s->st[k], &s->t->macro[m].t, &s->st[k + 1]);
		mdfs(s, k + 1, c, m);
	}
}

/* The beginner answer being built. */
struct build {
	const struct btables *t;
	cubie3 cur;
	uint8_t mv[BEGINNER_MAX_MOVES];
	int n;
};

static int push_move(struct build *b, int m)
{
	if (b->n == BEGINNER_MAX_MOVES)
		return SOLVE_ESTAGE;
	b->mv[b->n++] = (uint8_t)m;
	cubie3_compose(&b->cur, &b->t->turn[m], &b->cur);
	return CUBE_OK;
}

static int push_macro(struct build *b, int id)
{
	const struct macro *m = &b->t->macro[id];
	for (int i = 0; i < m->len; i++)
		if (push_move(b, m->mv[i]) < 0)
			return SOLVE_ESTAGE;
	return CUBE_OK;
}

/* The fewest macros of set (then the fewest moves) from b->cur to goal,
 * appended to b. */
static int macro_step(struct build *b, const uint8_t *set, int nset,
		      const struct goal *g, int max_depth)
{
	struct msearch s;
	s.t = b->t;
	s.set = set;
	s.nset = nset;
	s.g = *g;
	s.st[0] = b->cur;
	for (int d = 0; d <= max_depth && d <= MDEPTH; d++) {
		s.depth = d;
		s.best_cost = BEGINNER_MAX_MOVES;
		mdfs(&s, 0, 0, -1);
		if (s.best_cost < BEGINNER_MAX_MOVES) {
			for (int i = 0; i < d; i++)
				if (push_macro(b, s.best[i]) < 0)
					return SOLVE_ESTAGE;
			return CUBE_OK;
		}
	}
	return SOLVE_ESTAGE;
}

/* Stage 1: an optimal cross, straight down the distance table. */
static int stage_cross(struct build *b)
{
	uint8_t s[4];
	for (int k = 0; k < 4; k++)
		s[k] = edge_state(&b->cur, 4 + k);
	int d = b->t->cross[idx4(s)];
	while (d > 0) {
		int next = -1;
		for (int m = 0; m < NMOVE && next < 0; m++) {
			uint8_t n[4];
			for (int k = 0; k < 4; k++)
				n[k] = b->t->emove[s[k]][m];
			if (b->t->cross[idx4(n)] == d - 1) {
				next = m;
				memcpy(s, n, 4);
			}
		}
		if (next < 0 || push_move(b, next) < 0)
			return SOLVE_ESTAGE;
		d--;
	}
	return CUBE_OK;
}

/* Stages 2 and 3: one more D corner (middle edge) home per search, the
 * ones home kept, until all four are; any slot's algorithms may be used.
 */
static int stage_pieces(struct build *b, int corners)
{
	uint8_t set[3 + 12];
	int nset = 0;
	for (int a = 0; a < 3; a++)
		set[nset++] = (uint8_t)(M_U + a);
	int first = corners ? M_CORNER : M_EDGE, count = corners ? 12 : 8;
	for (int a = 0; a < count; a++)
		set[nset++] = (uint8_t)(first + a);
	for (int step = 0; step < 4; step++) {
		struct goal g = {0};
		g.e_home = 0xf0; /* the cross */
		if (corners) {
			g.c_home = corners_home(&b->cur) & 0xf0;
			g.c_any = 0xf0 & ~g.c_home;
			if (!g.c_any)
				return CUBE_OK;
		} else {
			g.c_home = 0xf0;
			g.e_home |= edges_home(&b->cur) & 0xf00;
			g.e_any = 0xf00 & ~g.e_home;
			if (!g.e_any)
				return CUBE_OK;
		}
		if (macro_step(b, set, nset, &g, 5) < 0)
			return SOLVE_ESTAGE;
	}
	return corners ? ((corners_home(&b->cur) & 0xf0) == 0xf0 ? CUBE_OK
								 : SOLVE_ESTAGE)
		       : ((edges_home(&b->cur) & 0xff0) == 0xff0 ? CUBE_OK
								 : SOLVE_ESTAGE);
}

/* Stages 4 to 6: the last-layer algorithm pair k with U turns. */
static int stage_last_layer(struct build *b, int k)
{
	uint8_t set[5] = {M_U, M_U + 1, M_U + 2, (uint8_t)(M_EO + 2 * k),
			  (uint8_t)(M_EO + 2 * k + 1)};
	struct goal g = {0};
	g.c_home = 0xf0;
	g.e_home = 0xff0;
	if (k == 0)
		g.e_flip = 0x00f;
	if (k >= 1)
		g.e_home = 0xfff;
	if (k == 2)
		g.c_placed = 0x0f;
	return macro_step(b, set, 5, &g, 7);
}

/* Stage 7: R' D' R D on the corner at URF until it is untwisted (D is
 * scrambled in between and restored by the last one, since the twists add
 * up to a whole number of turns), U turns to bring each twisted corner
 * there, and a last U turn to line the layer up. */
static int stage_twist(struct build *b)
{
	for (int step = 0; step < 4; step++) {
		int a = -1;
		static const int order[4] = {0, 1, 3, 2}; /* "", U, U', U2 */
		for (int k = 0; k < 4 && a < 0; k++) {
			cubie3 x = b->cur;
			if (order[k])
				cubie3_compose(&x, &b->t->turn[U * 3 + order[k] - 1],
					       &x);
			if (x.co[0])
				a = order[k];
		}
		if (a < 0)
			break;
		if (a && push_move(b, U * 3 + a - 1) < 0)
			return SOLVE_ESTAGE;
		/* twice: the corner back at URF, twisted one way, or the
		 * other way with the mirror D' R' D R */
		cubie3 x;
		cubie3_compose(&b->cur, &b->t->macro[M_TWIST].t, &x);
		cubie3_compose(&x, &b->t->macro[M_TWIST].t, &x);
		int id = x.co[0] ? M_TWIST + 1 : M_TWIST;
		if (push_macro(b, id) < 0 || push_macro(b, id) < 0)
			return SOLVE_ESTAGE;
		if (b->cur.co[0])
			return SOLVE_ESTAGE;
	}
	for (int q = 0; q < 4; q++) {
		cubie3 x = b->cur, id;
		if (q)
			cubie3_compose(&x, &b->t->turn[U * 3 + q - 1], &x);
		cubie3_solved(&id);
		if (cubie3_equal(&x, &id))
			return q ? push_move(b, U * 3 + q - 1) : CUBE_OK;
	}
	return SOLVE_ESTAGE;
}

static int run_stage(struct build *b, int k)
{
	switch (k) {
	case 0:
		return stage_cross(b);
	case 1:
		return stage_pieces(b, 1);
	case 2:
		return stage_pieces(b, 0);
	case 3:
	case 4:
	case 5:
		return stage_last_layer(b, k - 3);
	default:
		return stage_twist(b);
	}
}

int beginner_solve(const void *tables, const cubie3 *c, cube_move *out,
		   int cap, beginner_stage stages[BEGINNER_STAGES])
{
	if (!tables || !c || !stages || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	if (!header_ok(tables))
		return SOLVE_ETABLES;
	if (!cubie3_is_valid(c))
		return CUBE_EINVALID;
	struct build b;
	b.t = tables;
	b.cur = *c;
	b.n = 0;
	beginner_stage st[BEGINNER_STAGES];
	cube_move moves[BEGINNER_MAX_MOVES];
	int total = 0;
	for (int k = 0; k < BEGINNER_STAGES; k++) {
		int from = b.n;
		int rc = run_stage(&b, k);
		if (rc < 0 || !stage_holds(b.t, k, &b.cur))
			return SOLVE_ESTAGE;
		/* merge what the algorithms' seams left (U U' …) */
		size_t cnt = (size_t)(b.n - from);
		for (size_t i = 0; i < cnt; i++)
			moves[total + (int)i] = solve3__face_move(b.mv[from + (int)i]);
		cnt = moves_simplify(moves + total, cnt);
		st[k].name = stage_info[k].name;
		st[k].goal = stage_info[k].goal;
		st[k].start = total;
		st[k].count = (int)cnt;
		st[k].after = b.cur;
		total += (int)cnt;
	}
	if (total > cap)
		return CUBE_ESPACE;
	if (total)
		memcpy(out, moves, (size_t)total * sizeof *out);
	memcpy(stages, st, sizeof st);
	return total;
}

/* --------------------------------------------------- solve to a pattern */

enum { USE_CROSS = 1, USE_CORNERS = 2, USE_MIDDLE = 4 };

/* The named targets and the tables that bound them: each implies a
 * solved cross (and first layer, f2l) on some face. */
static const struct {
	const char *name;
	int pat, use;
} target_named[] = {
	{"cross", PAT_CROSS, USE_CROSS},
	{"first_layer", PAT_FIRST_LAYER, USE_CROSS | USE_CORNERS},
	{"f2l", PAT_F2L, USE_CROSS | USE_CORNERS | USE_MIDDLE},
	{"eo", PAT_EO, USE_CROSS | USE_CORNERS | USE_MIDDLE},
	{"oll", PAT_OLL, USE_CROSS | USE_CORNERS | USE_MIDDLE},
	{"pll", PAT_SOLVED, USE_CROSS | USE_CORNERS | USE_MIDDLE},
	{"solved", PAT_SOLVED, USE_CROSS | USE_CORNERS | USE_MIDDLE},
};
#define NTARGET_NAMED ((int)(sizeof target_named / sizeof target_named[0]))

const char *target_name_of_text(const char *s, size_t len)
{
	if (!s || len != 54)
		return NULL;
	char text[54];
	for (int k = 0; k < pattern_named_count(3); k++) {
		const pattern_named *pn = pattern_named_at(3, k);
		if (pn->nparts == 1 &&
		    pattern_named_text(pn, 3, 0, text) == CUBE_OK &&
		    memcmp(text, s, sizeof text) == 0)
			return pn->name;
	}
	return NULL;
}

/* The whole-cube rotation that brings face f to D. */
static const struct {
	uint8_t axis, qt;
} to_d[6] = {
	[U] = {CUBE_X, 2}, [R] = {CUBE_Z, 1}, [F] = {CUBE_X, 3},
	[D] = {CUBE_X, 0}, [L] = {CUBE_Z, 3}, [B] = {CUBE_X, 1},
};

/* Frame f: c turned to put face f on D and recoloured so its centers read
 * as standard, so that face f's cross, corners and middle edges are those
 * the tables know (the D ones); rename[m] is turn m in that frame (the
 * same layer, turned the same way seen from its face). */
static int frame_of(const cubie3 *c, int f, cubie3 *out,
		    uint8_t rename[NMOVE])
{
	cube3_buf kb;
	cube_t *k = AS_CUBE(kb);
	cube_of(c, k);
	if (to_d[f].qt)
		cube_turn(k, to_d[f].axis, 0, 2, to_d[f].qt);
	int map[6];
	for (int h = 0; h < 6; h++)
		map[cube_get(k, h, 1, 1)] = h;
	if (map[f] != D)
		return CUBE_EINVAL;
	char s[54];
	cube_to_facelets(k, s);
	for (size_t i = 0; i < sizeof s; i++) {
		const char *p = strchr(cube_face_letters, s[i]);
		s[i] = cube_face_letters[map[p - cube_face_letters]];
	}
	for (int m = 0; m < NMOVE; m++)
		rename[m] = (uint8_t)(map[m / 3] * 3 + m % 3);
	cube_orientation o;
	return cube3_from_facelets(s, sizeof s, out, &o);
}

struct tsearch {
	const struct btables *t;
	const pattern_t *const *p;
	size_t np;
	int use; /* USE_* tables; 0 = a plain search on the facelets */
	uint8_t rename[6][NMOVE];
	/* per depth and frame: the D edges then the middle edges; D corners */
	uint8_t es[TARGET_MAX_DEPTH + 1][6][8];
	uint8_t cs[TARGET_MAX_DEPTH + 1][6][4];
	cubie3 cub[TARGET_MAX_DEPTH + 1];
	cube3_buf cube[TARGET_MAX_DEPTH + 1];
	uint8_t path[TARGET_MAX_DEPTH];
	uint64_t nodes, next_poll, max_nodes;
	solve_poll_fn poll;
	void *ctx;
	int stop;
};

static int tick(struct tsearch *s)
{
	if (++s->nodes < s->next_poll)
		return s->stop;
	s->next_poll = s->nodes + POLL_NODES;
	if (s->nodes >= s->max_nodes || (s->poll && s->poll(s->ctx, 0, 0)))
		s->stop = 1;
	return s->stop;
}

/* A lower bound of the moves to the target: in the best frame, the
 * largest distance of its cross, corners, middle edges. */
static int bound_of(const struct tsearch *s, int k)
{
	int best = UNSEEN;
	for (int fr = 0; fr < 6; fr++) {
		int h = s->t->cross[idx4(s->es[k][fr])];
		if (s->use & USE_CORNERS) {
			int x = s->t->corners[idx4(s->cs[k][fr])];
			h = x > h ? x : h;
		}
		if (s->use & USE_MIDDLE) {
			int x = s->t->middle[idx4(s->es[k][fr] + 4)];
			h = x > h ? x : h;
		}
		best = h < best ? h : best;
	}
	return best;
}

/* No turn of the face just turned; of two opposite faces, which commute,
 * only one order. */
static int skip_face(int f, int prev)
{
	return prev >= 0 && (f == prev || f + 3 == prev);
}

/* IDA* with the tables: 1 when path[0..bound) reaches the target. */
static int tdfs(struct tsearch *s, int k, int bound, int prev)
{
	int h = bound_of(s, k);
	if (k + h > bound)
		return 0;
	if (h == 0 && k == bound && matches(s->p, s->np, &s->cub[k], NULL))
		return 1;
	if (k == bound || tick(s))
		return 0;
	int ne = s->use & USE_MIDDLE ? 8 : 4;
	for (int f = 0; f < 6; f++) {
		if (skip_face(f, prev))
			continue;
		for (int q = 0; q < 3; q++) {
			int m = f * 3 + q;
			for (int fr = 0; fr < 6; fr++) {
				int mf = s->rename[fr][m];
				for (int i = 0; i < ne; i++)
					s->es[k + 1][fr][i] =
						s->t->emove[s->es[k][fr][i]][mf];
				if (s->use & USE_CORNERS)
					for (int i = 0; i < 4; i++)
						s->cs[k + 1][fr][i] =
							s->t->cmove[s->cs[k][fr][i]]
								   [mf];
			}
			cubie3_compose(&s->cub[k], &s->t->turn[m],
				       &s->cub[k + 1]);
			s->path[k] = (uint8_t)m;
			if (tdfs(s, k + 1, bound, f))
				return 1;
			if (s->stop)
				return 0;
		}
	}
	return 0;
}

/* Plain iterative deepening: every sequence of bound turns, the pattern
 * tried at its end. */
static int pdfs(struct tsearch *s, int k, int bound, int prev)
{
	if (tick(s))
		return 0;
	if (k == bound) {
		uint32_t mask;
		return pattern_match(s->p, s->np, AS_CUBE(s->cube[k]), 1,
				     &mask) > 0;
	}
	for (int f = 0; f < 6; f++) {
		if (skip_face(f, prev))
			continue;
		for (int q = 0; q < 3; q++) {
			int m = f * 3 + q;
			cube_move mv = solve3__face_move(m);
			cube_t *next = AS_CUBE(s->cube[k + 1]);
			cube_copy(next, AS_CUBE(s->cube[k]));
			cube_turn(next, mv.axis, mv.lo, mv.hi, mv.qt);
			s->path[k] = (uint8_t)m;
			if (pdfs(s, k + 1, bound, f))
				return 1;
			if (s->stop)
				return 0;
		}
	}
	return 0;
}

/* The face turn (face·3 + qt-1) a 3×3 outer-layer cube_move is. */
static int face_move_of(cube_move mv)
{
	static const int pos[3] = {R, U, F}, neg[3] = {L, D, B};
	int f = mv.lo == 0 ? pos[mv.axis] : neg[mv.axis];
	int q = mv.lo == 0 ? mv.qt : 4 - mv.qt;
	return f * 3 + q - 1;
}

int target_solve(const void *tables, const target_spec *t, const cubie3 *c,
		 const target_limits *lim, cube_move *out, int cap,
		 target_result *res)
{
	if (!tables || !t || !c || !res || cap < 0 || (cap > 0 && !out))
		return CUBE_EINVAL;
	if (!header_ok(tables))
		return SOLVE_ETABLES;
	if (!cubie3_is_valid(c))
		return CUBE_EINVALID;
	const struct btables *tb = tables;
	const pattern_t *named = NULL;
	const pattern_t *const *p;
	size_t np;
	int use = 0;
	if (t->name) {
		int k = 0;
		while (k < NTARGET_NAMED && strcmp(target_named[k].name, t->name))
			k++;
		if (k == NTARGET_NAMED)
			return PATTERN_ENAME;
		named = pat(tb, target_named[k].pat);
		p = &named;
		np = 1;
		use = target_named[k].use;
	} else {
		p = t->parts;
		np = t->nparts;
		if (!p || np == 0)
			return CUBE_EINVAL;
		for (size_t i = 0; i < np; i++)
			if (!p[i] || pattern_size(p[i]) != 3)
				return CUBE_EINVAL;
	}
	int max_len = lim && lim->max_length > 0 ? lim->max_length : cap;
	if (max_len > cap)
		max_len = cap;
	memset(res, 0, sizeof *res);
	if (matches(p, np, c, NULL)) {
		res->optimal = 1;
		return 0;
	}
	res->searched = 1;

	if (!(lim && lim->beginner_only)) {
		struct tsearch s;
		s.t = tb;
		s.p = p;
		s.np = np;
		s.use = use;
		s.nodes = 0;
		s.next_poll = POLL_NODES;
		s.max_nodes = lim && lim->max_nodes ? lim->max_nodes
						    : (uint64_t)1 << 26;
		s.poll = lim ? lim->poll : NULL;
		s.ctx = lim ? lim->ctx : NULL;
		s.stop = 0;
		s.cub[0] = *c;
		cube_of(c, AS_CUBE(s.cube[0]));
		for (int fr = 0; use && fr < 6; fr++) {
			cubie3 x;
			if (frame_of(c, fr, &x, s.rename[fr]) < 0)
				return CUBE_EINVAL;
			for (int i = 0; i < 8; i++)
				s.es[0][fr][i] = edge_state(&x, 4 + i);
			for (int i = 0; i < 4; i++)
				s.cs[0][fr][i] = corner_state(&x, 4 + i);
		}
		int depth = max_len < TARGET_MAX_DEPTH ? max_len
						       : TARGET_MAX_DEPTH;
		for (int bound = 1; bound <= depth && !s.stop; bound++) {
			int found = use ? tdfs(&s, 0, bound, -1)
					: pdfs(&s, 0, bound, -1);
			res->nodes = s.nodes;
			if (found) {
				for (int i = 0; i < bound; i++)
					out[i] = solve3__face_move(s.path[i]);
				res->optimal = 1;
				res->searched = bound;
				return bound;
			}
			if (!s.stop)
				res->searched = bound + 1;
		}
	}

	/* the fallbacks: beginner stages, a two-phase prefix */
	beginner_stage st[BEGINNER_STAGES];
	cube_move bm[BEGINNER_MAX_MOVES];
	int rc = beginner_solve(tables, c, bm, BEGINNER_MAX_MOVES, st);
	if (rc < 0)
		return rc;
	int bstages = 0, blen = -1;
	for (int k = 0; k < BEGINNER_STAGES && blen < 0; k++)
		if (matches(p, np, &st[k].after, NULL)) {
			bstages = k + 1;
			blen = st[k].start + st[k].count;
		}
	cube_move tm[32];
	int tlen = -1;
	if (lim && lim->twophase && !lim->beginner_only) {
		solve_limits sl = {.max_length = 21, .target_length = 21};
		int n = twophase_solve(lim->twophase, c, &sl, tm,
				       (int)(sizeof tm / sizeof *tm));
		cubie3 x = *c;
		for (int j = 0; j < n && tlen < 0; j++) {
			cubie3_compose(&x, &tb->turn[face_move_of(tm[j])], &x);
			if (matches(p, np, &x, NULL))
				tlen = j + 1;
		}
	}
	int len;
	const cube_move *src;
	if (tlen > 0 && (blen < 0 || tlen < blen)) {
		len = tlen;
		src = tm;
		res->via = TARGET_VIA_TWOPHASE;
	} else if (blen >= 0) {
		len = blen;
		src = bm;
		res->via = TARGET_VIA_BEGINNER;
		res->stages = bstages;
		memcpy(res->stage, st, (size_t)bstages * sizeof st[0]);
	} else {
		return SOLVE_ENOTFOUND;
	}
	if (len > max_len)
		return len > cap && !(lim && lim->max_length > 0) ? CUBE_ESPACE
								   : SOLVE_ENOTFOUND;
	memcpy(out, src, (size_t)len * sizeof *out);
	res->optimal = len <= res->searched;
	return len;
}
