/* alg.c — move notation for n×n×n cubes: a recursive-descent parser that
 * builds a tree in a caller-owned node array, and the readers of that tree
 * that do not print: sizes, limits and metrics, an iterator over the
 * expansion, apply. Printing and plain move lists are alg_print.c.
 *
 * The grammar follows cubing.js (see alg.h): every unit must be followed by
 * whitespace, a closing bracket, ',' or ':', a comment, or the end. Errors
 * carry the offset of the offending token so clients can point at it.
 */
#include "alg.h"
#include "alg_internal.h"
#include "cube_internal.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

/* Every family the parser knows. Order is irrelevant: lookup is by exact
 * token. */
const struct family alg__families[] = {
	{"R", FAM_FACE, CUBE_X, 1, 'R'},   {"U", FAM_FACE, CUBE_Y, 1, 'U'},
	{"F", FAM_FACE, CUBE_Z, 1, 'F'},   {"D", FAM_FACE, CUBE_Y, -1, 'D'},
	{"L", FAM_FACE, CUBE_X, -1, 'L'},  {"B", FAM_FACE, CUBE_Z, -1, 'B'},
	{"Rw", FAM_WIDE, CUBE_X, 1, 'R'},  {"Uw", FAM_WIDE, CUBE_Y, 1, 'U'},
	{"Fw", FAM_WIDE, CUBE_Z, 1, 'F'},  {"Dw", FAM_WIDE, CUBE_Y, -1, 'D'},
	{"Lw", FAM_WIDE, CUBE_X, -1, 'L'}, {"Bw", FAM_WIDE, CUBE_Z, -1, 'B'},
	{"r", FAM_WIDE, CUBE_X, 1, 'R'},   {"u", FAM_WIDE, CUBE_Y, 1, 'U'},
	{"f", FAM_WIDE, CUBE_Z, 1, 'F'},   {"d", FAM_WIDE, CUBE_Y, -1, 'D'},
	{"l", FAM_WIDE, CUBE_X, -1, 'L'},  {"b", FAM_WIDE, CUBE_Z, -1, 'B'},
	{"M", FAM_SLICE, CUBE_X, -1, 0},   {"E", FAM_SLICE, CUBE_Y, -1, 0},
	{"S", FAM_SLICE, CUBE_Z, 1, 0},    {"m", FAM_WSLICE, CUBE_X, -1, 0},
	{"e", FAM_WSLICE, CUBE_Y, -1, 0},  {"s", FAM_WSLICE, CUBE_Z, 1, 0},
	{"x", FAM_ROT, CUBE_X, 1, 0},      {"y", FAM_ROT, CUBE_Y, 1, 0},
	{"z", FAM_ROT, CUBE_Z, 1, 0},      {"Rv", FAM_ROT, CUBE_X, 1, 0},
	{"Uv", FAM_ROT, CUBE_Y, 1, 0},     {"Fv", FAM_ROT, CUBE_Z, 1, 0},
	{"Dv", FAM_ROT, CUBE_Y, -1, 0},    {"Lv", FAM_ROT, CUBE_X, -1, 0},
	{"Bv", FAM_ROT, CUBE_Z, -1, 0},
};
#define NFAMILIES (int)(sizeof alg__families / sizeof alg__families[0])
#define NFAMILIES_MAX 33

const char alg__rot_names[3] = {'x', 'y', 'z'};

void alg_limits_default(alg_limits *lim)
{
	lim->max_moves = 100000;
	lim->max_work = 0;
	lim->max_amount = 1000000;
	lim->max_depth = ALG_MAX_DEPTH;
}

size_t alg_nodes_needed(size_t len)
{
	/* Every node but the root consumes at least one byte of input. */
	return len + 2;
}

/* ---------------------------------------------------------------- parser */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a == 0 || b == 0)
		return 0;
	return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t abs_amount(int32_t v)
{
	return v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v;
}

/* Expanded length and stickers moved, accumulated while parsing so the
 * limits are checked as each bracket closes. */
/* What a unit costs: moves and stickers moved in its expansion, and the
 * steps walking that expansion takes (alg_iter visits every move, pause
 * and bracket of every repetition, so "((.)1000000)1000000" has no moves
 * but 10¹² steps). */
struct size {
	uint64_t moves, work, steps;
};

/* Layers of a family written without a prefix, for the parser's n:
 * [lo, hi] from the + face, or the error it is on this n. */
struct plain_layers {
	uint16_t lo, hi;
	int16_t err;
	int8_t qt_sign;
	uint8_t axis;
	uint32_t width; /* hi - lo + 1 */
};

struct parser {
	const char *s;
	size_t len;
	size_t pos;
	int n;
	struct plain_layers plain[NFAMILIES_MAX];
	alg_limits lim;
	alg_node *nodes;
	int32_t cap, count;
	alg_error *err;
	unsigned depth;
};

/* Character classes, one table lookup per byte. */
/* C_AFTER: may end a unit (what check_separated accepts, "//" aside). */
enum { C_SPACE = 1, C_DIGIT = 2, C_ALPHA = 4, C_DELIM = 8, C_AFTER = 16 };
static const unsigned char cclass[256] = {
	[' '] = C_SPACE | C_DELIM | C_AFTER,
	['\t'] = C_SPACE | C_DELIM | C_AFTER,
	['\n'] = C_SPACE | C_DELIM | C_AFTER,
	['\r'] = C_SPACE | C_DELIM | C_AFTER,
	['('] = C_DELIM, [')'] = C_DELIM | C_AFTER, ['['] = C_DELIM,
	[']'] = C_DELIM | C_AFTER, [','] = C_DELIM | C_AFTER,
	[':'] = C_DELIM | C_AFTER,
	['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT,
	['4'] = C_DIGIT, ['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT,
	['8'] = C_DIGIT, ['9'] = C_DIGIT,
	['_'] = C_ALPHA,
	['A'] = C_ALPHA, ['B'] = C_ALPHA, ['C'] = C_ALPHA, ['D'] = C_ALPHA,
	['E'] = C_ALPHA, ['F'] = C_ALPHA, ['G'] = C_ALPHA, ['H'] = C_ALPHA,
	['I'] = C_ALPHA, ['J'] = C_ALPHA, ['K'] = C_ALPHA, ['L'] = C_ALPHA,
	['M'] = C_ALPHA, ['N'] = C_ALPHA, ['O'] = C_ALPHA, ['P'] = C_ALPHA,
	['Q'] = C_ALPHA, ['R'] = C_ALPHA, ['S'] = C_ALPHA, ['T'] = C_ALPHA,
	['U'] = C_ALPHA, ['V'] = C_ALPHA, ['W'] = C_ALPHA, ['X'] = C_ALPHA,
	['Y'] = C_ALPHA, ['Z'] = C_ALPHA,
	['a'] = C_ALPHA, ['b'] = C_ALPHA, ['c'] = C_ALPHA, ['d'] = C_ALPHA,
	['e'] = C_ALPHA, ['f'] = C_ALPHA, ['g'] = C_ALPHA, ['h'] = C_ALPHA,
	['i'] = C_ALPHA, ['j'] = C_ALPHA, ['k'] = C_ALPHA, ['l'] = C_ALPHA,
	['m'] = C_ALPHA, ['n'] = C_ALPHA, ['o'] = C_ALPHA, ['p'] = C_ALPHA,
	['q'] = C_ALPHA, ['r'] = C_ALPHA, ['s'] = C_ALPHA, ['t'] = C_ALPHA,
	['u'] = C_ALPHA, ['v'] = C_ALPHA, ['w'] = C_ALPHA, ['x'] = C_ALPHA,
	['y'] = C_ALPHA, ['z'] = C_ALPHA,
};

static inline int is_class(char c, int cls)
{
	return cclass[(unsigned char)c] & cls;
}

/* The byte at i, or NUL past the end (callers that must tell a real NUL
 * from the end compare i with len). */
static inline char at(const struct parser *p, size_t i)
{
	return i < p->len ? p->s[i] : '\0';
}

static int fail(struct parser *p, int code, size_t where, size_t toklen)
{
	if (p->err) {
		size_t cp = 0;
		for (size_t k = 0; k < where && k < p->len; k++)
			if (((unsigned char)p->s[k] & 0xC0) != 0x80)
				cp++;
		p->err->code = code;
		p->err->byte_offset = where;
		p->err->offset = cp;
		p->err->token_len = toklen;
	}
	return code;
}

/* Skip whitespace and // comments. */
static void skip_blank(struct parser *p)
{
	const char *s = p->s;
	size_t pos = p->pos, len = p->len;
	while (pos < len) {
		char c = s[pos];
		if (is_class(c, C_SPACE)) {
			pos++;
		} else if (c == '/' && pos + 1 < len && s[pos + 1] == '/') {
			while (pos < len && s[pos] != '\n')
				pos++;
		} else {
			break;
		}
	}
	p->pos = pos;
}

/* Length of the token starting at where, for error reports. */
static size_t token_len(const struct parser *p, size_t where)
{
	size_t k = where;
	if (k < p->len && is_class(p->s[k], C_DELIM))
		return 1;
	while (k < p->len && !is_class(p->s[k], C_DELIM))
		k++;
	return k - where;
}

/* Read a decimal number at *pos, saturating at cap + 1. */
static uint32_t read_number(const struct parser *p, size_t *pos, uint32_t cap)
{
	uint64_t v = 0;
	size_t k = *pos;
	while (k < p->len && is_class(p->s[k], C_DIGIT)) {
		v = v * 10 + (uint64_t)(p->s[k] - '0');
		if (v > (uint64_t)cap)
			v = (uint64_t)cap + 1;
		k++;
	}
	*pos = k;
	return (uint32_t)v;
}

/* A node with no children and no siblings yet. */
static alg_node blank_node(int kind, size_t offset)
{
	alg_node nd = {
		.kind = (uint8_t)kind, .family = 0, .axis = 0, .qt = 0,
		.lo = 0, .hi = 0, .outer = 0, .inner = 0, .amount = 1,
		.offset = (uint32_t)offset, .next = -1, .prev = -1,
		.a_first = -1, .a_last = -1, .b_first = -1, .b_last = -1,
		.run = 0, .pad = 0,
	};
	return nd;
}

/* Store a finished node; -1 if the buffer is full. Nodes are written whole
 * (never byte by byte) so the compiler need not assume that they alias the
 * parser's state. */
static int32_t add_node(struct parser *p, const alg_node *nd)
{
	if (p->count >= p->cap)
		return -1;
	p->nodes[p->count] = *nd;
	return p->count++;
}

static void append_child(struct parser *p, int32_t *first, int32_t *last,
			 int32_t id)
{
	p->nodes[id].prev = *last;
	if (*last >= 0)
		p->nodes[*last].next = id;
	else
		*first = id;
	*last = id;
}

/* Optional amount and prime after a unit: "2", "2'", "'", "". Whether a
 * digit and whether a prime follow are coin flips in real algorithms, so
 * the one-digit case is done without branches; longer numbers take the
 * slow path. */
static int parse_suffix(struct parser *p, int32_t *amount)
{
	size_t pos = p->pos;
	unsigned d = (unsigned char)at(p, pos) - (unsigned)'0';
	int isd = (d < 10) & (pos < p->len);
	int32_t v = isd ? (int32_t)d : 1;
	pos += (size_t)isd;
	if (isd && pos < p->len && is_class(p->s[pos], C_DIGIT)) {
		size_t start = pos - 1;
		pos = start;
		uint32_t num = read_number(p, &pos, p->lim.max_amount);
		if (num > p->lim.max_amount)
			return fail(p, ALG_EREPEAT, start, pos - start);
		v = (int32_t)num;
	} else if (isd && (uint32_t)v > p->lim.max_amount) {
		return fail(p, ALG_EREPEAT, pos - 1, 1);
	}
	int isp = (at(p, pos) == '\'') & (pos < p->len);
	v = isp ? -v : v;
	pos += (size_t)isp;
	p->pos = pos;
	*amount = v;
	return CUBE_OK;
}

/* After a unit: whitespace, a closer, ',' / ':', a comment or the end. */
static int check_separated(struct parser *p)
{
	size_t pos = p->pos;
	if (pos >= p->len)
		return CUBE_OK;
	char c = p->s[pos];
	if (is_class(c, C_SPACE) || c == ')' || c == ']' || c == ',' ||
	    c == ':')
		return CUBE_OK;
	if (c == '/' && at(p, pos + 1) == '/')
		return CUBE_OK;
	return fail(p, ALG_ESPACE, pos, token_len(p, pos));
}

/* Family index by token: one letter, or a letter followed by 'w' or 'v'.
 * Entries hold index + 1 so that 0 means "no such family". */
static const unsigned char family_one[128] = {
	['R'] = 1, ['U'] = 2, ['F'] = 3, ['D'] = 4, ['L'] = 5, ['B'] = 6,
	['r'] = 13, ['u'] = 14, ['f'] = 15, ['d'] = 16, ['l'] = 17, ['b'] = 18,
	['M'] = 19, ['E'] = 20, ['S'] = 21, ['m'] = 22, ['e'] = 23, ['s'] = 24,
	['x'] = 25, ['y'] = 26, ['z'] = 27,
};
static const unsigned char family_w[128] = {
	['R'] = 7, ['U'] = 8, ['F'] = 9, ['D'] = 10, ['L'] = 11, ['B'] = 12,
};
static const unsigned char family_v[128] = {
	['R'] = 28, ['U'] = 29, ['F'] = 30, ['D'] = 31, ['L'] = 32, ['B'] = 33,
};

static int lookup_family(const char *s, size_t len)
{
	if (len == 0 || len > 2 || (unsigned char)s[0] >= 128)
		return -1;
	unsigned char c0 = (unsigned char)s[0];
	if (len == 1)
		return family_one[c0] - 1;
	if (s[1] == 'w')
		return family_w[c0] - 1;
	if (s[1] == 'v')
		return family_v[c0] - 1;
	return -1;
}

static int parse_move(struct parser *p, int32_t *out, struct size *sz)
{
	size_t start = p->pos, pos = start;
	uint32_t outer = 0, inner = 0;
	int has_prefix = 0, has_range = 0;
	const uint32_t layer_cap = 65535;

	if (is_class(at(p, pos), C_DIGIT) && pos < p->len) {
		has_prefix = 1;
		inner = read_number(p, &pos, layer_cap);
		if (at(p, pos) == '-' && is_class(at(p, pos + 1), C_DIGIT) &&
		    pos + 1 < p->len) {
			pos++;
			has_range = 1;
			outer = inner;
			inner = read_number(p, &pos, layer_cap);
		}
	}
	size_t fam_at = pos;
	while (pos < p->len && is_class(p->s[pos], C_ALPHA))
		pos++;
	int fi = lookup_family(p->s + fam_at, pos - fam_at);
	if (fi < 0) /* report the whole token: "Q", "RW", "3#" */
		return fail(p, ALG_ETOKEN, start, token_len(p, start));
	const struct family *fam = &alg__families[fi];
	if (has_prefix && fam->kind != FAM_FACE && fam->kind != FAM_WIDE)
		return fail(p, ALG_ETOKEN, start, pos - start);

	p->pos = pos;
	int32_t amount;
	int rc = parse_suffix(p, &amount);
	if (rc < 0)
		return rc;
	pos = p->pos;

	/* Layers, 1-based from the family's own face: [a, b]. */
	int n = p->n;
	uint32_t a, b;
	if (!has_prefix) {
		const struct plain_layers *pl = &p->plain[fi];
		if (pl->err)
			return fail(p, pl->err, start, pos - start);
		/* back from [lo, hi] to 1-based layers of the family's face */
		if (fam->dir > 0)
			a = pl->lo + 1u, b = pl->hi + 1u;
		else
			a = (uint32_t)n - pl->hi, b = (uint32_t)n - pl->lo;
	} else if (has_range) {
		a = outer;
		b = inner;
		if (a < 1 || a >= b || b > (uint32_t)n)
			return fail(p, ALG_ELAYER, start, pos - start);
	} else {
		if (inner < 1 || inner > (uint32_t)n)
			return fail(p, ALG_ELAYER, start, pos - start);
		a = fam->kind == FAM_FACE ? inner : 1;
		b = inner;
	}

	alg_node nd = blank_node(ALG_MOVE, start);
	nd.family = (uint8_t)fi;
	nd.axis = fam->axis;
	nd.outer = (uint16_t)outer;
	nd.inner = (uint16_t)inner;
	nd.amount = amount;
	if (fam->dir > 0) {
		nd.lo = (uint16_t)(a - 1);
		nd.hi = (uint16_t)(b - 1);
	} else {
		nd.lo = (uint16_t)((uint32_t)n - b);
		nd.hi = (uint16_t)((uint32_t)n - a);
	}
	int q = (int)(amount % 4);
	q = (q * fam->dir) % 4;
	nd.qt = (uint8_t)((q + 4) % 4);
	int32_t id = add_node(p, &nd);
	if (id < 0)
		return fail(p, CUBE_ESPACE, start, 0);
	sz->moves = 1;
	sz->steps = 1;
	sz->work = nd.qt ? (uint64_t)(b - a + 1) * 4u * (uint64_t)n : 0;
	*out = id;
	return CUBE_OK;
}

/* Fill the no-prefix layers of every family for size n. */
static void plain_layers_init(struct plain_layers *pl, int n)
{
	for (int k = 0; k < NFAMILIES; k++) {
		const struct family *fam = &alg__families[k];
		uint32_t a = 1, b = 1;
		int err = 0;
		switch (fam->kind) {
		case FAM_FACE:
			break;
		case FAM_WIDE:
			b = 2;
			if (n < 2)
				err = ALG_ELAYER;
			break;
		case FAM_SLICE:
			a = b = (uint32_t)(n + 1) / 2;
			if (n % 2 == 0)
				err = ALG_EEVEN;
			break;
		case FAM_WSLICE:
			a = 2;
			b = (uint32_t)n - 1;
			if (n < 3)
				err = ALG_ELAYER;
			break;
		default:
			b = (uint32_t)n;
			break;
		}
		pl[k].err = (int16_t)err;
		pl[k].qt_sign = fam->dir;
		pl[k].axis = fam->axis;
		pl[k].width = 1;
		if (err) {
			pl[k].lo = pl[k].hi = 0;
		} else if (fam->dir > 0) {
			pl[k].lo = (uint16_t)(a - 1);
			pl[k].hi = (uint16_t)(b - 1);
			pl[k].width = b - a + 1;
		} else {
			pl[k].lo = (uint16_t)((uint32_t)n - b);
			pl[k].hi = (uint16_t)((uint32_t)n - a);
			pl[k].width = b - a + 1;
		}
	}
}

/* Which character ends the sequence being parsed. */
enum closer { CLOSE_EOF, CLOSE_PAREN, CLOSE_SEP, CLOSE_BRACKET };

static int parse_seq(struct parser *p, int32_t *first, int32_t *last,
		     enum closer until, size_t open_at, struct size *sz);

/* The parts a repetition of each container kind walks (alg_iter), which
 * the walk's steps count too. */
static const unsigned char part_count[] = {
	[ALG_GROUP] = 1, [ALG_COMM] = 4, [ALG_CONJ] = 3,
};

/* Steps a walk may take: linear in the text, plus (max_depth + 1) per
 * allowed move — every repetition of a bracket that holds a move yields
 * one, and a move is at most max_depth brackets deep, so only pauses and
 * brackets without moves, repeated, can need more. (A repetition takes
 * a step per part: 4 for a commutator, which yields at least 2 moves if
 * it yields any, 3 for a conjugate, which may yield just 1 when its
 * setup is empty: so an algorithm near the move limit with such
 * conjugates nested tens deep could need more too. None a person
 * writes.) */
static uint64_t max_steps(const struct parser *p)
{
	return sat_add(sat_mul(p->lim.max_moves, (uint64_t)p->lim.max_depth + 1),
		       p->len);
}

/* A bracketed unit's size from its operands', checked against the move
 * limit (and the walk's, reported the same way): the innermost unit to
 * pass the limit is the one reported. */
static int bracket_size(struct parser *p, const alg_node *nd, struct size sa,
			struct size sb, struct size *sz)
{
	uint64_t wa = 1, wb = 0;
	if (nd->kind == ALG_COMM)
		wa = 2, wb = 2;
	else if (nd->kind == ALG_CONJ)
		wa = 2, wb = 1;
	uint64_t times = abs_amount(nd->amount);
	sz->moves = sat_mul(sat_add(sat_mul(sa.moves, wa),
				    sat_mul(sb.moves, wb)),
			    times);
	sz->work = sat_mul(sat_add(sat_mul(sa.work, wa), sat_mul(sb.work, wb)),
			   times);
	uint64_t parts = part_count[nd->kind];
	sz->steps = sat_add(sat_mul(sat_add(sat_add(sat_mul(sa.steps, wa),
						     sat_mul(sb.steps, wb)),
					    parts),
				    times),
			    1);
	if (sz->moves > p->lim.max_moves || sz->steps > max_steps(p))
		return fail(p, ALG_ELONG, nd->offset, 0);
	return CUBE_OK;
}

static int parse_unit(struct parser *p, int32_t *out, struct size *sz)
{
	size_t start = p->pos;
	char c = p->s[start];
	int rc;

	if (c == '.') {
		p->pos++;
		alg_node nd = blank_node(ALG_PAUSE, start);
		int32_t id = add_node(p, &nd);
		if (id < 0)
			return fail(p, CUBE_ESPACE, start, 0);
		sz->moves = sz->work = 0;
		sz->steps = 1;
		*out = id;
		return CUBE_OK;
	}
	if (c != '(' && c != '[')
		return parse_move(p, out, sz);

	if (p->depth >= p->lim.max_depth)
		return fail(p, ALG_EDEEP, start, 1);
	alg_node nd = blank_node(c == '(' ? ALG_GROUP : ALG_COMM, start);
	struct size sa = {0, 0, 0}, sb = {0, 0, 0};
	p->pos++;
	p->depth++;
	if (c == '(') {
		rc = parse_seq(p, &nd.a_first, &nd.a_last, CLOSE_PAREN, start,
			       &sa);
		if (rc < 0)
			return rc;
	} else {
		rc = parse_seq(p, &nd.a_first, &nd.a_last, CLOSE_SEP, start,
			       &sa);
		if (rc < 0)
			return rc;
		nd.kind = p->s[p->pos] == ',' ? ALG_COMM : ALG_CONJ;
		p->pos++; /* ',' or ':' */
		rc = parse_seq(p, &nd.b_first, &nd.b_last, CLOSE_BRACKET, start,
			       &sb);
		if (rc < 0)
			return rc;
	}
	p->pos++; /* the closer */
	p->depth--;
	rc = parse_suffix(p, &nd.amount);
	if (rc < 0)
		return rc;
	rc = bracket_size(p, &nd, sa, sb, sz);
	if (rc < 0)
		return rc;
	int32_t id = add_node(p, &nd);
	if (id < 0)
		return fail(p, CUBE_ESPACE, start, 0);
	*out = id;
	return CUBE_OK;
}

/* A run of sibling moves being built (see alg_node.run). */
struct run {
	int32_t first, len;
};

static void run_close(struct parser *p, struct run *r)
{
	if (r->len) {
		p->nodes[r->first].run = (uint16_t)r->len;
		p->nodes[r->first + r->len - 1].run = (uint16_t)r->len;
	}
	r->len = 0;
}

/* Sibling id was just appended: extend the run or start another. */
static void run_add(struct parser *p, struct run *r, int32_t id)
{
	if (p->nodes[id].kind != ALG_MOVE) {
		run_close(p, r);
		return;
	}
	if (r->len && (id != r->first + r->len || r->len == UINT16_MAX))
		run_close(p, r);
	if (!r->len)
		r->first = id;
	r->len++;
}

/* Bytes the fast loop reads from a move's first byte: a token of at most
 * four ("Rw2'"), its separator, the second '/' of a comment, and the rest
 * of one 8-byte load. */
#define FAST_SLACK 8

/* Eight bytes from s, the first in the low byte (one load on common
 * compilers, whatever the byte order). */
static inline uint64_t load8(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	return (uint64_t)u[0] | (uint64_t)u[1] << 8 | (uint64_t)u[2] << 16 |
	       (uint64_t)u[3] << 24 | (uint64_t)u[4] << 32 |
	       (uint64_t)u[5] << 40 | (uint64_t)u[6] << 48 |
	       (uint64_t)u[7] << 56;
}

/* The common case in bulk: plain moves (no prefix, no amount past 9)
 * separated by spaces, at least FAST_SLACK bytes from the end. Parses as
 * many as it can, appending them to the sequence and the run, and stops
 * before anything else (or anything wrong), which the general path then
 * reads: it never reports an error itself. Each move is read from one
 * 8-byte load with shifts, and written whole, linked to its neighbours by
 * position (the ends are mended after the loop), so that little but the
 * position carries from one move to the next. */
static void parse_fast(struct parser *p, int32_t *first, int32_t *last,
		       struct run *r, struct size *total)
{
	const char *s = p->s;
	size_t pos = p->pos, len = p->len;
	alg_node *nodes = p->nodes;
	const struct plain_layers *plain = p->plain;
	int32_t count0 = p->count, count = count0, cap = p->cap;
	uint64_t layers = 0; /* layers turned by moves that turn */
	if (p->lim.max_amount < 9)
		return; /* amounts need checking: the general path's job */
	while (pos < len && s[pos] == ' ')
		pos++;
	while (pos + FAST_SLACK <= len && count < cap) {
		uint64_t w = load8(s + pos);
		unsigned c0 = (unsigned)(w & 0xff), c1 = (unsigned)(w >> 8 & 0xff);
		if (c0 >= 128)
			break;
		int fi;
		unsigned k = 1;
		if (c1 == 'w' && family_w[c0]) {
			fi = family_w[c0] - 1;
			k = 2;
		} else if (c1 == 'v' && family_v[c0]) {
			fi = family_v[c0] - 1;
			k = 2;
		} else {
			fi = family_one[c0] - 1;
		}
		if (fi < 0)
			break;
		const struct plain_layers *pl = &plain[fi];
		/* amount: one digit or none, then maybe a prime, no branches */
		uint64_t rest = w >> (8 * k);
		unsigned d = (unsigned)(rest & 0xff) - (unsigned)'0';
		unsigned isd = d < 10;
		rest >>= 8 * isd;
		int32_t v = (int32_t)(isd * d + (1 - isd));
		unsigned isp = (rest & 0xff) == '\'';
		rest >>= 8 * isp;
		unsigned c = (unsigned)(rest & 0xff);
		/* a separator must follow: blank, closer, ',' ':' or "//" */
		if (pl->err || !(is_class((char)c, C_AFTER) ||
				(c == '/' && (rest >> 8 & 0xff) == '/')))
			break;
		v = v * (1 - 2 * (int32_t)isp);
		alg_node nd = blank_node(ALG_MOVE, pos);
		nd.family = (uint8_t)fi;
		nd.axis = pl->axis;
		nd.amount = v;
		nd.lo = pl->lo;
		nd.hi = pl->hi;
		nd.qt = (uint8_t)((v * pl->qt_sign) & 3);
		nd.prev = count - 1;
		nd.next = count + 1;
		nodes[count++] = nd;
		layers += pl->width & -(uint32_t)(nd.qt != 0);
		/* past the token, and its separator if that is a space */
		pos += k + isd + isp + (c == ' ');
		while (pos < len && s[pos] == ' ')
			pos++;
	}
	p->pos = pos;
	p->count = count;
	int32_t got = count - count0;
	if (!got)
		return;
	/* mend the ends: the first links back to the sequence, the last
	 * ends it */
	nodes[count0].prev = *last;
	if (*last >= 0)
		nodes[*last].next = count0;
	else
		*first = count0;
	nodes[count - 1].next = -1;
	*last = count - 1;
	/* the run: these moves continue the open one if it ends right
	 * before them (a move parsed by the general path), in pieces of at
	 * most UINT16_MAX */
	if (r->len && r->first + r->len != count0)
		run_close(p, r);
	int32_t from = count0;
	if (r->len) {
		from = r->first;
		r->len = 0;
	}
	while (count - from > UINT16_MAX) {
		nodes[from].run = nodes[from + UINT16_MAX - 1].run = UINT16_MAX;
		from += UINT16_MAX;
	}
	r->first = from;
	r->len = count - from;
	total->moves = sat_add(total->moves, (uint64_t)got);
	total->steps = sat_add(total->steps, (uint64_t)got);
	total->work = sat_add(total->work, layers * 4u * (uint64_t)p->n);
}

static int parse_seq(struct parser *p, int32_t *first, int32_t *last,
		     enum closer until, size_t open_at, struct size *sz)
{
	struct size total = {0, 0, 0};
	struct run r = {-1, 0};
	int rc;
	for (;;) {
		parse_fast(p, first, last, &r, &total);
		skip_blank(p);
		if (p->pos >= p->len) {
			if (until != CLOSE_EOF)
				return fail(p, ALG_EBRACKET, open_at, 1);
			break;
		}
		char c = p->s[p->pos];
		if (c == ')' || c == ']') {
			if ((c == ')' && until == CLOSE_PAREN) ||
			    (c == ']' && until == CLOSE_BRACKET))
				break;
			if (c == ']' && until == CLOSE_SEP)
				return fail(p, ALG_ESYNTAX, p->pos, 1);
			return fail(p, ALG_EBRACKET, p->pos, 1);
		}
		if (c == ',' || c == ':') {
			if (until == CLOSE_SEP)
				break;
			return fail(p, ALG_ESYNTAX, p->pos, 1);
		}
		int32_t id = -1;
		struct size u = {0, 0, 0};
		rc = parse_unit(p, &id, &u);
		if (rc < 0)
			return rc;
		append_child(p, first, last, id);
		run_add(p, &r, id);
		total.moves = sat_add(total.moves, u.moves);
		total.work = sat_add(total.work, u.work);
		total.steps = sat_add(total.steps, u.steps);
		rc = check_separated(p);
		if (rc < 0)
			return rc;
	}
	run_close(p, &r);
	*sz = total;
	return CUBE_OK;
}

/* ------------------------------------------------------ sizes and limits */

uint64_t move_work(const cube_move *m, int n)
{
	if ((m->qt & 3) == 0)
		return 0;
	return (uint64_t)(m->hi - m->lo + 1) * 4u * (uint64_t)n;
}

void alg__metrics_add(alg_metrics *to, const alg_metrics *x, uint64_t times)
{
	to->moves = sat_add(to->moves, sat_mul(x->moves, times));
	to->htm = sat_add(to->htm, sat_mul(x->htm, times));
	to->qtm = sat_add(to->qtm, sat_mul(x->qtm, times));
	to->stm = sat_add(to->stm, sat_mul(x->stm, times));
	to->etm = sat_add(to->etm, sat_mul(x->etm, times));
}

void alg__move_metrics(const cube_move *m, int n, alg_metrics *out)
{
	memset(out, 0, sizeof *out);
	out->moves = 1;
	int q = m->qt & 3;
	if (q == 0)
		return;
	uint64_t quarters = q == 2 ? 2 : 1;
	out->etm = 1;
	if (m->lo == 0 && m->hi == n - 1)
		return; /* a rotation */
	out->stm = 1;
	if (m->lo == 0 || m->hi == n - 1) {
		out->htm = 1;
		out->qtm = quarters;
	} else {
		out->htm = 2;
		out->qtm = 2 * quarters;
	}
}

cube_move alg_node_move(const alg_node *nd, int inverted)
{
	cube_move m = {nd->axis, (uint8_t)(inverted ? (4 - nd->qt) & 3 : nd->qt),
		       nd->lo, nd->hi};
	return m;
}

/* Totals of a sequence and of one unit, by the expansion rules. The
 * recursion depth is bounded by the nesting limit. */
struct totals {
	alg_metrics m;
	uint64_t work;
};

static void seq_totals(const alg_t *a, int32_t first, struct totals *t);

static void unit_totals(const alg_t *a, int32_t id, struct totals *t)
{
	const alg_node *nd = &a->nodes[id];
	memset(t, 0, sizeof *t);
	if (nd->kind == ALG_PAUSE)
		return;
	if (nd->kind == ALG_MOVE) {
		cube_move m = alg_node_move(nd, 0);
		alg__move_metrics(&m, a->n, &t->m);
		t->work = move_work(&m, a->n);
		return;
	}
	struct totals ta, tb;
	seq_totals(a, nd->a_first, &ta);
	uint64_t times = abs_amount(nd->amount);
	uint64_t wa = 1, wb = 0;
	if (nd->kind == ALG_COMM) {
		wa = 2;
		wb = 2;
	} else if (nd->kind == ALG_CONJ) {
		wa = 2;
		wb = 1;
	}
	if (wb)
		seq_totals(a, nd->b_first, &tb);
	else
		memset(&tb, 0, sizeof tb);
	struct totals once;
	memset(&once, 0, sizeof once);
	alg__metrics_add(&once.m, &ta.m, wa);
	alg__metrics_add(&once.m, &tb.m, wb);
	once.work = sat_add(sat_mul(ta.work, wa), sat_mul(tb.work, wb));
	alg__metrics_add(&t->m, &once.m, times);
	t->work = sat_mul(once.work, times);
}

static void seq_totals(const alg_t *a, int32_t first, struct totals *t)
{
	memset(t, 0, sizeof *t);
	for (int32_t id = first; id >= 0; id = a->nodes[id].next) {
		struct totals u;
		unit_totals(a, id, &u);
		alg__metrics_add(&t->m, &u.m, 1);
		t->work = sat_add(t->work, u.work);
	}
}

int alg_parse(alg_t *a, alg_node *nodes, size_t cap, int n, const char *s,
	      size_t len, const alg_limits *lim, alg_error *err)
{
	struct parser p;
	memset(&p, 0, sizeof p);
	if (err)
		memset(err, 0, sizeof *err);
	if (!a || !nodes || (!s && len))
		return CUBE_EINVAL;
	if (n < CUBE_MIN_N || n > CUBE_MAX_N)
		return CUBE_ESIZE;
	if (cap > INT32_MAX)
		cap = INT32_MAX;
	if (len > UINT32_MAX)
		return CUBE_EINVAL;
	p.s = s;
	p.len = len;
	p.n = n;
	p.nodes = nodes;
	p.cap = (int32_t)cap;
	p.err = err;
	if (lim)
		p.lim = *lim;
	else
		alg_limits_default(&p.lim);
	if (p.lim.max_depth > ALG_MAX_DEPTH)
		p.lim.max_depth = ALG_MAX_DEPTH;
	plain_layers_init(p.plain, n);

	a->nodes = nodes;
	a->cap = (int32_t)cap;
	a->count = 0;
	a->n = n;
	a->length = a->work = 0;
	alg_node root = blank_node(ALG_GROUP, 0);
	int32_t rid = add_node(&p, &root);
	if (rid < 0)
		return fail(&p, CUBE_ESPACE, 0, 0);

	/* A stray closer at top level is an unbalanced bracket. */
	int32_t f = -1, l = -1;
	struct size t;
	int rc = parse_seq(&p, &f, &l, CLOSE_EOF, 0, &t);
	a->count = p.count;
	if (rc < 0)
		return rc;
	a->root = rid;
	nodes[rid].a_first = f;
	nodes[rid].a_last = l;
	a->length = t.moves;
	a->work = t.work;
	if (a->length > p.lim.max_moves || t.steps > max_steps(&p))
		return fail(&p, ALG_ELONG, 0, 0);
	if (p.lim.max_work && a->work > p.lim.max_work)
		return fail(&p, ALG_EWORK, 0, 0);
	return CUBE_OK;
}

void alg_metrics_of(const alg_t *a, alg_metrics *out)
{
	struct totals t;
	unit_totals(a, a->root, &t);
	*out = t.m;
}

/* -------------------------------------------------------------- iterator */

/* The parts of each container kind, in order: which operand (0 = A,
 * 1 = B) and whether it is walked inverted. */
static const unsigned char part_seq[][4] = {
	[ALG_GROUP] = {0}, [ALG_COMM] = {0, 1, 0, 1}, [ALG_CONJ] = {0, 1, 0},
};
static const unsigned char part_inv[][4] = {
	[ALG_GROUP] = {0}, [ALG_COMM] = {0, 0, 1, 1}, [ALG_CONJ] = {0, 0, 1},
};

static void start_part(const alg_t *a, struct alg_frame *fr)
{
	const alg_node *nd = &a->nodes[fr->node];
	int np = part_count[nd->kind];
	int pi = fr->inv ? np - 1 - fr->part : fr->part;
	int seq = part_seq[nd->kind][pi];
	fr->pinv = (uint8_t)(part_inv[nd->kind][pi] ^ fr->inv);
	if (seq == 0)
		fr->cur = fr->pinv ? nd->a_last : nd->a_first;
	else
		fr->cur = fr->pinv ? nd->b_last : nd->b_first;
}

/* Enter a container; one repeated zero times is not entered at all. */
static inline void push_frame(alg_iter *it, int32_t node, int inv)
{
	const alg_node *nd = &it->a->nodes[node];
	uint64_t reps = abs_amount(nd->amount);
	if (reps == 0)
		return;
	struct alg_frame *fr = &it->stack[++it->depth];
	fr->node = node;
	fr->inv = (uint8_t)(inv ^ (nd->amount < 0));
	fr->reps = reps > INT32_MAX ? INT32_MAX : (int32_t)reps;
	fr->part = 0;
	fr->pad = 0;
	start_part(it->a, fr);
}

void alg_iter_init(alg_iter *it, const alg_t *a, int inverse)
{
	it->a = a;
	it->depth = -1;
	push_frame(it, a->root, inverse ? 1 : 0);
}

/* Walk on until the current child of the top frame is a move, without
 * taking it: 1, or 0 at the end of the walk. alg_apply takes the run of
 * moves found there whole, so it always reaches a run at one of its ends
 * (the first going forward, the last going back); alg_iter_next takes
 * one move at a time. */
static inline int iter_to_move(alg_iter *it)
{
	const alg_node *nodes = it->a->nodes;
	while (it->depth >= 0) {
		struct alg_frame *fr = &it->stack[it->depth];
		int32_t id = fr->cur;
		if (id >= 0) {
			const alg_node *cn = &nodes[id];
			if (cn->kind == ALG_MOVE)
				return 1;
			fr->cur = fr->pinv ? cn->prev : cn->next;
			if (cn->kind != ALG_PAUSE)
				push_frame(it, id, fr->pinv);
			continue;
		}
		/* end of a part: the next part, the next repetition, or up */
		if (++fr->part >= part_count[nodes[fr->node].kind]) {
			fr->part = 0;
			if (--fr->reps <= 0) {
				it->depth--;
				continue;
			}
		}
		start_part(it->a, fr);
	}
	return 0;
}

int alg_iter_next(alg_iter *it, int32_t *node, int *inverted)
{
	if (!iter_to_move(it))
		return 0;
	struct alg_frame *fr = &it->stack[it->depth];
	const alg_node *cn = &it->a->nodes[fr->cur];
	*node = fr->cur;
	*inverted = fr->pinv;
	fr->cur = fr->pinv ? cn->prev : cn->next;
	return 1;
}

_Static_assert(offsetof(alg_node, qt) == offsetof(alg_node, axis) + 1 &&
		       offsetof(alg_node, lo) == offsetof(alg_node, axis) + 2 &&
		       offsetof(alg_node, hi) == offsetof(alg_node, axis) + 4 &&
		       offsetof(cube_move, qt) == 1 &&
		       offsetof(cube_move, lo) == 2 &&
		       offsetof(cube_move, hi) == 4 && sizeof(cube_move) == 6,
	       "alg_node's move fields are laid out as a cube_move");

int alg_apply(const alg_t *a, cube_t *c, int inverse)
{
	if (!a || !c || c->n != a->n)
		return CUBE_EINVAL;
	/* Moves go to the cube in batches so the 3×3 fast path can keep the
	 * state in a register across a batch. The parser checked every move
	 * against n, so the batch skips cube_apply_moves' checks. A run of
	 * sibling moves is read as an array: no chase from node to node. */
	enum { BATCH = 256 };
	cube_move batch[BATCH];
	size_t k = 0;
	alg_iter it;
	alg_iter_init(&it, a, inverse);
	const alg_node *nodes = a->nodes;
	while (iter_to_move(&it)) {
		struct alg_frame *fr = &it.stack[it.depth];
		int32_t cur = fr->cur, len = nodes[cur].run;
		if (!fr->pinv) {
			const alg_node *nd = &nodes[cur];
			for (int32_t i = 0; i < len; i++) {
				/* the node holds a cube_move's fields in
				 * its order (checked below) */
				memcpy(&batch[k], &nd[i].axis, sizeof *batch);
				if (++k == BATCH) {
					cube__apply_trusted(c, batch, k);
					k = 0;
				}
			}
			fr->cur = nd[len - 1].next;
		} else {
			const alg_node *nd = &nodes[cur];
			for (int32_t i = 0; i < len; i++) {
				batch[k].axis = nd[-i].axis;
				batch[k].qt = (uint8_t)((4 - nd[-i].qt) & 3);
				batch[k].lo = nd[-i].lo;
				batch[k].hi = nd[-i].hi;
				if (++k == BATCH) {
					cube__apply_trusted(c, batch, k);
					k = 0;
				}
			}
			fr->cur = nd[1 - len].prev;
		}
	}
	if (k)
		cube__apply_trusted(c, batch, k);
	return CUBE_OK;
}

int64_t alg_expand(const alg_t *a, int inverse, cube_move *out, size_t cap)
{
	if (a->length > cap || a->length > INT64_MAX)
		return CUBE_ESPACE;
	alg_iter it;
	int32_t id;
	int inv;
	size_t k = 0;
	alg_iter_init(&it, a, inverse);
	while (alg_iter_next(&it, &id, &inv))
		out[k++] = alg_node_move(&a->nodes[id], inv);
	return (int64_t)k;
}
