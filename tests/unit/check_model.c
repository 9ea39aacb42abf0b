/* check_model.c — the engine and the notation parser checked against an
 * independent reference model.
 *
 * The model is written from docs/conventions.md's prose alone, the way seed 003 does
 * it: an n×n×n cube is 6·n² stickers, each with an integer 3D position and
 * an outward normal (doubled, centred coordinates: index i ↦ 2i − (n−1), so
 * every position is an integer), and a turn rotates the position and the
 * normal of every sticker whose coordinate along the axis lies in the turned
 * layers by an integer 3×3 rotation matrix. Facelets are read back by
 * mapping each (face, row, col) slot of the net to the 3D position + normal
 * it stands for and looking up the sticker found there.
 *
 * A random generator writes algorithms in the full grammar and, by its own
 * semantics, the turns each one stands for; a small parser of its own reads
 * the hand-written identities. Neither shares code or tables with core/, so
 * a disagreement is a bug in one of the two, and the failure message says
 * which algorithm on which n shows it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "suites.h"

/* ------------------------------------------------------------------ */
/* Small helpers: a growable string and a growable list of turns.      */

typedef struct sbuf {
	char *s;
	size_t len, cap;
} sbuf;

static void sb_reserve(sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->s = realloc(b->s, cap);
	ck_assert_ptr_nonnull(b->s);
	b->cap = cap;
}

static void sb_puts(sbuf *b, const char *t)
{
	size_t k = strlen(t);
	sb_reserve(b, k);
	memcpy(b->s + b->len, t, k + 1);
	b->len += k;
}

static void sb_printf(sbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	sb_puts(b, tmp);
}

static void sb_clear(sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* An algorithm with newlines and tabs is printed with them escaped, so a
 * failure message shows exactly the bytes that were parsed. */
static const char *escaped(const char *s, sbuf *out)
{
	sb_clear(out);
	sb_puts(out, "");
	for (; *s; s++) {
		if (*s == '\n')
			sb_puts(out, "\\n");
		else if (*s == '\t')
			sb_puts(out, "\\t");
		else {
			char c[2] = {*s, 0};
			sb_puts(out, c);
		}
	}
	return out->s;
}

/* One turn in cube_turn's terms: axis, layers [lo, hi] 0-based from the
 * axis' positive face, and quarter turns clockwise seen from that face (any
 * integer; reduced mod 4 where it is used). */
typedef struct mturn {
	int axis, lo, hi;
	long qt;
} mturn;

typedef struct tlist {
	mturn *v;
	size_t len, cap;
} tlist;

static void tl_push(tlist *t, mturn m)
{
	if (t->len == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 32;
		t->v = realloc(t->v, t->cap * sizeof *t->v);
		ck_assert_ptr_nonnull(t->v);
	}
	t->v[t->len++] = m;
}

/* Append src to dst, inverted (reversed, each turn negated) if inv. */
static void tl_append(tlist *dst, const tlist *src, int inv)
{
	for (size_t i = 0; i < src->len; i++) {
		mturn m = src->v[inv ? src->len - 1 - i : i];
		if (inv)
			m.qt = -m.qt;
		tl_push(dst, m);
	}
}

/* Append src repeated |k| times, inverted if k < 0. */
static void tl_append_repeat(tlist *dst, const tlist *src, long k)
{
	for (long i = 0; i < (k < 0 ? -k : k); i++)
		tl_append(dst, src, k < 0);
}

static void tl_free(tlist *t)
{
	free(t->v);
	t->v = NULL;
	t->len = t->cap = 0;
}

static int mod4(long q)
{
	return (int)(((q % 4) + 4) % 4);
}

/* ------------------------------------------------------------------ */
/* The model.                                                          */

enum { FU, FR, FF, FD, FL, FB };
static const char face_letter[] = "URFDLB";

typedef struct sticker {
	int pos[3];
	int nrm[3];
	char colour;
} sticker;

typedef struct model {
	int n;
	int count;
	sticker *s;
} model;

/* Where the slot (face f, row r, column c) of the net sits in 3D. Each face
 * is seen from outside: U with B at its top edge (rows run from B to F,
 * columns from L to R), D with F at its top edge (rows from F to B, columns
 * from L to R), F R B L with U at their top edge (rows from U down to D,
 * columns left to right as seen from outside that face). */
static void slot_geometry(int n, int f, int r, int c, int pos[3], int nrm[3])
{
	int m = n - 1;
	int pr = 2 * r - m, pc = 2 * c - m;
	int p[6][3] = {
		[FU] = {pc, m, pr},   [FR] = {m, -pr, -pc}, [FF] = {pc, -pr, m},
		[FD] = {pc, -m, -pr}, [FL] = {-m, -pr, pc}, [FB] = {-pc, -pr, -m},
	};
	int q[6][3] = {
		[FU] = {0, 1, 0},  [FR] = {1, 0, 0},  [FF] = {0, 0, 1},
		[FD] = {0, -1, 0}, [FL] = {-1, 0, 0}, [FB] = {0, 0, -1},
	};
	memcpy(pos, p[f], sizeof p[f]);
	memcpy(nrm, q[f], sizeof q[f]);
}

/* A quarter turn clockwise as seen from the positive end of each axis: a
 * rotation by −90° (right-handed axes x→R, y→U, z→F). Under the x matrix
 * F (0,0,1) goes to U (0,1,0); under y, F goes to L; under z, U goes to R —
 * what R, U and F do to a real cube. */
static const int quarter[3][3][3] = {
	{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}},
	{{0, 0, -1}, {0, 1, 0}, {1, 0, 0}},
	{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}},
};

static void rotate(const int m[3][3], int v[3])
{
	int w[3];
	for (int i = 0; i < 3; i++)
		w[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
	memcpy(v, w, sizeof w);
}

static void model_init(model *md, int n)
{
	md->n = n;
	md->count = 6 * n * n;
	md->s = malloc((size_t)md->count * sizeof *md->s);
	ck_assert_ptr_nonnull(md->s);
	int k = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < n; r++)
			for (int c = 0; c < n; c++, k++) {
				slot_geometry(n, f, r, c, md->s[k].pos,
					      md->s[k].nrm);
				md->s[k].colour = face_letter[f];
			}
}

static void model_free(model *md)
{
	free(md->s);
	md->s = NULL;
}

/* Turn layers [lo, hi] (0-based from the positive face of axis) by qt
 * quarter turns clockwise seen from that face. Layer l from the positive
 * face is the stickers whose coordinate along the axis is (n−1) − 2l. */
static void model_turn(model *md, int axis, int lo, int hi, long qt)
{
	int q = mod4(qt), m = md->n - 1;
	for (int k = 0; k < md->count; k++) {
		sticker *s = &md->s[k];
		int layer = (m - s->pos[axis]) / 2;
		if (layer < lo || layer > hi)
			continue;
		for (int i = 0; i < q; i++) {
			rotate(quarter[axis], s->pos);
			rotate(quarter[axis], s->nrm);
		}
	}
}

static void model_apply(model *md, const tlist *t)
{
	for (size_t i = 0; i < t->len; i++)
		model_turn(md, t->v[i].axis, t->v[i].lo, t->v[i].hi,
			   t->v[i].qt);
}

static int normal_index(const int v[3])
{
	for (int a = 0; a < 3; a++) {
		if (v[a] == 1)
			return 2 * a;
		if (v[a] == -1)
			return 2 * a + 1;
	}
	return -1;
}

/* Read the facelets back: every slot of the net looks up the sticker that
 * now sits at its position with its normal. out gets 6n² letters and a
 * NUL. Every slot must be covered exactly once. */
static void model_facelets(const model *md, char *out)
{
	int n = md->n, w = 2 * n - 1;
	size_t cells = (size_t)6 * w * w * w;
	char *at = calloc(cells, 1);
	ck_assert_ptr_nonnull(at);
#define KEY(p, v)                                                              \
	((((size_t)normal_index(v) * w + (size_t)((p)[0] + n - 1)) * w +     \
	  (size_t)((p)[1] + n - 1)) * w +                                     \
	 (size_t)((p)[2] + n - 1))
	for (int k = 0; k < md->count; k++) {
		size_t key = KEY(md->s[k].pos, md->s[k].nrm);
		ck_assert_msg(at[key] == 0, "model: two stickers in one place");
		at[key] = md->s[k].colour;
	}
	int k = 0;
	for (int f = 0; f < 6; f++)
		for (int r = 0; r < n; r++)
			for (int c = 0; c < n; c++, k++) {
				int pos[3], nrm[3];
				slot_geometry(n, f, r, c, pos, nrm);
				out[k] = at[KEY(pos, nrm)];
				ck_assert_msg(out[k] != 0, "model: empty slot");
			}
#undef KEY
	out[k] = '\0';
	free(at);
}

/* Facelets of the model after the turns t, from solved. */
static char *model_run(int n, const tlist *t)
{
	model md;
	model_init(&md, n);
	model_apply(&md, t);
	char *out = malloc((size_t)6 * n * n + 1);
	ck_assert_ptr_nonnull(out);
	model_facelets(&md, out);
	model_free(&md);
	return out;
}

/* ------------------------------------------------------------------ */
/* The notation's meaning, shared by the generator and the model's     */
/* own parser: a face and 1-based layers a..b counted from it, turned   */
/* q quarter turns clockwise as seen from that face.                   */

static const int face_axis[6] = {[FU] = 1, [FR] = 0, [FF] = 2,
				 [FD] = 1, [FL] = 0, [FB] = 2};
static const int face_positive[6] = {[FU] = 1, [FR] = 1, [FF] = 1,
				     [FD] = 0, [FL] = 0, [FB] = 0};

static mturn face_turn(int n, int face, int a, int b, long q)
{
	mturn m;
	m.axis = face_axis[face];
	if (face_positive[face]) {
		m.lo = a - 1;
		m.hi = b - 1;
		m.qt = q;
	} else {
		m.lo = n - b;
		m.hi = n - a;
		m.qt = -q;
	}
	return m;
}

static int face_of(char c)
{
	const char *p = strchr(face_letter, c);
	return c && p ? (int)(p - face_letter) : -1;
}

/* ------------------------------------------------------------------ */
/* The model's own notation reader, for hand-written algorithms. It     */
/* accepts valid input only (returns -1 on anything it does not know). */

typedef struct mparser {
	const char *s;
	size_t i;
	int n;
} mparser;

static void mp_skip(mparser *p)
{
	for (;;) {
		char c = p->s[p->i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			p->i++;
		else if (c == '/' && p->s[p->i + 1] == '/')
			while (p->s[p->i] && p->s[p->i] != '\n')
				p->i++;
		else
			return;
	}
}

static long mp_number(mparser *p, int *present)
{
	long v = 0;
	*present = 0;
	while (p->s[p->i] >= '0' && p->s[p->i] <= '9') {
		v = v * 10 + (p->s[p->i++] - '0');
		*present = 1;
	}
	return v;
}

/* [digits]['] after a move or a bracket: the signed amount. */
static long mp_amount(mparser *p)
{
	int present;
	long k = mp_number(p, &present);
	if (!present)
		k = 1;
	if (p->s[p->i] == '\'') {
		p->i++;
		k = -k;
	}
	return k;
}

static int mp_seq(mparser *p, tlist *out, const char *stop);

static int mp_move(mparser *p, tlist *out)
{
	int n = p->n, has_a, has_b = 0;
	long a = mp_number(p, &has_a), b = 0;
	if (has_a && p->s[p->i] == '-') {
		p->i++;
		b = mp_number(p, &has_b);
		if (!has_b)
			return -1;
	}
	char c = p->s[p->i++];
	int face, lo, hi;
	char lower = (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : 0;
	if (face_of(c) >= 0 && p->s[p->i] == 'v') { /* Rv … Bv */
		p->i++;
		if (has_a)
			return -1;
		face = face_of(c), lo = 1, hi = n;
	} else if (face_of(c) >= 0 || (lower && face_of(lower) >= 0)) {
		int wide = lower != 0;
		if (!lower && p->s[p->i] == 'w') {
			p->i++;
			wide = 1;
		}
		face = face_of(lower ? lower : c);
		if (has_b)
			lo = (int)a, hi = (int)b;
		else if (wide)
			lo = 1, hi = has_a ? (int)a : 2;
		else
			lo = hi = has_a ? (int)a : 1;
	} else if (c == 'M' || c == 'E' || c == 'S') {
		if (has_a || n % 2 == 0)
			return -1;
		face = c == 'M' ? FL : c == 'E' ? FD : FF;
		lo = hi = (n + 1) / 2;
	} else if (c == 'm' || c == 'e' || c == 's') {
		if (has_a)
			return -1;
		face = c == 'm' ? FL : c == 'e' ? FD : FF;
		lo = 2, hi = n - 1;
	} else if (c == 'x' || c == 'y' || c == 'z') {
		if (has_a)
			return -1;
		face = c == 'x' ? FR : c == 'y' ? FU : FF;
		lo = 1, hi = n;
	} else {
		return -1;
	}
	if (lo < 1 || hi > n || lo > hi)
		return -1;
	tl_push(out, face_turn(n, face, lo, hi, mp_amount(p)));
	return 0;
}

static int mp_unit(mparser *p, tlist *out)
{
	char c = p->s[p->i];
	tlist a = {0}, b = {0}, body = {0};
	int rc = -1;
	if (c == '.') {
		p->i++;
		return 0;
	}
	if (c == '(') {
		p->i++;
		if (mp_seq(p, &body, ")") < 0 || p->s[p->i] != ')')
			goto done;
		p->i++;
	} else if (c == '[') {
		p->i++;
		if (mp_seq(p, &a, ",:") < 0)
			goto done;
		char sep = p->s[p->i];
		if (sep != ',' && sep != ':')
			goto done;
		p->i++;
		if (mp_seq(p, &b, "]") < 0 || p->s[p->i] != ']')
			goto done;
		p->i++;
		tl_append(&body, &a, 0);
		tl_append(&body, &b, 0);
		tl_append(&body, &a, 1);
		if (sep == ',')
			tl_append(&body, &b, 1);
	} else {
		return mp_move(p, out);
	}
	tl_append_repeat(out, &body, mp_amount(p));
	rc = 0;
done:
	tl_free(&a);
	tl_free(&b);
	tl_free(&body);
	return rc;
}

static int mp_seq(mparser *p, tlist *out, const char *stop)
{
	for (;;) {
		mp_skip(p);
		char c = p->s[p->i];
		if (c == '\0' || (stop && strchr(stop, c)))
			return 0;
		if (mp_unit(p, out) < 0)
			return -1;
		c = p->s[p->i];
		if (c && !strchr(" \t\n\r/", c) && !(stop && strchr(stop, c)))
			return -1; /* units need whitespace between them */
	}
}

/* The turns of a hand-written algorithm, by the model's reading. */
static void model_parse(int n, const char *s, tlist *out)
{
	mparser p = {s, 0, n};
	int rc = mp_seq(&p, out, NULL);
	ck_assert_msg(rc == 0 && s[p.i] == '\0',
		      "model cannot read \"%s\" on n=%d (stopped at %zu)", s,
		      n, p.i);
}

static char *model_facelets_of(int n, const char *alg)
{
	tlist t = {0};
	model_parse(n, alg, &t);
	char *f = model_run(n, &t);
	tl_free(&t);
	return f;
}

/* ------------------------------------------------------------------ */
/* The engine under test.                                              */

typedef struct parsed {
	alg_t a;
	alg_node *nodes;
	int rc;
	alg_error err;
} parsed;

static void core_parse(parsed *p, int n, const char *s)
{
	size_t len = strlen(s);
	size_t cap = alg_nodes_needed(len);
	alg_limits lim;
	alg_limits_default(&lim);
	p->nodes = malloc((cap ? cap : 1) * sizeof *p->nodes);
	ck_assert_ptr_nonnull(p->nodes);
	memset(&p->err, 0, sizeof p->err);
	p->rc = alg_parse(&p->a, p->nodes, cap, n, s, len, &lim, &p->err);
}

static cube_t *cube_new(int n)
{
	size_t sz = cube_sizeof(n);
	ck_assert_uint_gt(sz, 0);
	cube_t *c = malloc(sz);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cube_init(c, n), 0);
	return c;
}

static char *facelets_of(const cube_t *c)
{
	size_t k = (size_t)6 * c->n * c->n;
	char *f = malloc(k + 1);
	ck_assert_ptr_nonnull(f);
	cube_to_facelets(c, f);
	f[k] = '\0';
	return f;
}

/* Facelets after the core parses and applies alg to a solved n-cube. */
static char *core_facelets_of(int n, const char *alg)
{
	parsed p;
	sbuf e = {0};
	core_parse(&p, n, alg);
	ck_assert_msg(p.rc >= 0, "core refuses \"%s\" on n=%d: %s at %zu",
		      escaped(alg, &e), n, cube_errname(p.rc), p.err.offset);
	cube_t *c = cube_new(n);
	int rc = alg_apply(&p.a, c, 0);
	ck_assert_msg(rc >= 0, "alg_apply(\"%s\") on n=%d: %s", alg, n,
		      cube_errname(rc));
	char *f = facelets_of(c);
	free(c);
	free(p.nodes);
	free(e.s);
	return f;
}

static char *solved_facelets(int n)
{
	char *f = malloc((size_t)6 * n * n + 1);
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 6 * n * n; i++)
		f[i] = face_letter[i / (n * n)];
	f[6 * n * n] = '\0';
	return f;
}

/* ------------------------------------------------------------------ */
/* The model against docs/conventions.md, and the literal 3×3 strings. */

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
/* From docs/conventions.md. */
#define AFTER_R "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
/* Derived by hand from the net: U clockwise takes F's top row to L, L's to
 * B, B's to R and R's to F; U's own stickers stay U. */
#define AFTER_U "UUUUUUUUUBBBRRRRRRRRRFFFFFFDDDDDDDDDFFFLLLLLLLLLBBBBBB"
/* F clockwise: U's bottom row (row 2) comes from L's right column, R's left
 * column from U's bottom row, D's top row from R's left column, L's right
 * column from D's top row. */
#define AFTER_F "UUUUUULLLURRURRURRFFFFFFFFFRRRDDDDDDLLDLLDLLDBBBBBBBBB"

static const struct {
	const char *alg, *facelets;
} literal3[] = {
	{"", SOLVED3},
	{"R", AFTER_R},
	{"U", AFTER_U},
	{"F", AFTER_F},
	{"R'", "UUBUUBUUBRRRRRRRRRFFUFFUFFUDDFDDFDDFLLLLLLLLLDBBDBBDBB"},
	{"R U R' U'", "UULUUFUUFRRUBRRURRFFDFFUFFFDDRDDDDDDBLLLLLLLLBRRBBBBBB"},
	{"M2", "UDUUDUUDURRRRRRRRRFBFFBFFBFDUDDUDDUDLLLLLLLLLBFBBFBBFB"},
};

START_TEST(model_reproduces_design_strings)
{
	/* The model itself must agree with docs/conventions.md before anything is
	 * checked against it. */
	for (size_t i = 0; i < sizeof literal3 / sizeof *literal3; i++) {
		char *m = model_facelets_of(3, literal3[i].alg);
		ck_assert_msg(strcmp(m, literal3[i].facelets) == 0,
			      "model after \"%s\": %s, expected %s",
			      literal3[i].alg, m, literal3[i].facelets);
		free(m);
	}
}
END_TEST

START_TEST(core_matches_design_strings)
{
	for (size_t i = 0; i < sizeof literal3 / sizeof *literal3; i++) {
		char *c = core_facelets_of(3, literal3[i].alg);
		ck_assert_msg(strcmp(c, literal3[i].facelets) == 0,
			      "core after \"%s\": %s, expected %s",
			      literal3[i].alg, c, literal3[i].facelets);
		free(c);
	}
}
END_TEST

/* cube_turn in its own terms, without the parser: R is x layer 0 one
 * quarter turn, U is y layer 0, F is z layer 0; L' is x layer 2. */
START_TEST(core_turn_matches_design_strings)
{
	static const struct {
		int axis, lo, hi, qt;
		const char *facelets;
	} cases[] = {
		{CUBE_X, 0, 0, 1, AFTER_R}, {CUBE_Y, 0, 0, 1, AFTER_U},
		{CUBE_Z, 0, 0, 1, AFTER_F}, {CUBE_X, 0, 0, 4, SOLVED3},
		{CUBE_X, 0, 0, 0, SOLVED3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		cube_t *c = cube_new(3);
		ck_assert_int_ge(cube_turn(c, cases[i].axis, cases[i].lo,
					   cases[i].hi, cases[i].qt),
				 0);
		char *f = facelets_of(c);
		ck_assert_msg(strcmp(f, cases[i].facelets) == 0,
			      "cube_turn(%d,%d,%d,%d): %s, expected %s",
			      cases[i].axis, cases[i].lo, cases[i].hi,
			      cases[i].qt, f, cases[i].facelets);
		free(f);
		free(c);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* The random algorithm generator.                                     */

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
	/* splitmix64 */
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int rnd(rng *r, int k) /* 0..k-1 */
{
	return (int)(rng_next(r) % (uint64_t)k);
}

static int chance(rng *r, int percent)
{
	return rnd(r, 100) < percent;
}

typedef struct gen {
	rng r;
	int n;
	int max_depth;
	int tight_brackets; /* "[A,B]", "[A:B]", "(R U)" without spaces */
	sbuf s;
} gen;

/* A move's amount suffix; returns the signed amount it means. */
static long gen_amount(gen *g)
{
	static const long big[] = {0, 3, 4, 5, 6, 7, 8, 9, 10, 13, 21, 100,
				   999999, 1000000};
	int pick = rnd(&g->r, 100);
	if (pick < 45)
		return 1;
	if (pick < 60) {
		sb_puts(&g->s, "'");
		return -1;
	}
	if (pick < 75) {
		sb_puts(&g->s, "2");
		return 2;
	}
	if (pick < 82) {
		sb_puts(&g->s, "2'");
		return -2;
	}
	if (pick < 85) {
		sb_puts(&g->s, "1");
		return 1;
	}
	long k = big[rnd(&g->r, sizeof big / sizeof *big)];
	sb_printf(&g->s, "%ld", k);
	if (chance(&g->r, 40)) {
		sb_puts(&g->s, "'");
		return -k;
	}
	return k;
}

/* One move, any family valid on n, with its turn appended to out. */
static void gen_move(gen *g, tlist *out)
{
	int n = g->n;
	for (;;) {
		int fam = rnd(&g->r, 100);
		int face = rnd(&g->r, 6);
		char F = face_letter[face], f = (char)(F - 'A' + 'a');
		int lo, hi;
		if (fam < 40) { /* R */
			sb_printf(&g->s, "%c", F);
			lo = hi = 1;
		} else if (fam < 50) { /* kR, 1 <= k <= n */
			int k = 1 + rnd(&g->r, n);
			sb_printf(&g->s, "%d%c", k, F);
			lo = hi = k;
		} else if (fam < 58) { /* Rw, r: two layers */
			if (n < 2)
				continue;
			if (chance(&g->r, 50))
				sb_printf(&g->s, "%cw", F);
			else
				sb_printf(&g->s, "%c", f);
			lo = 1, hi = 2;
		} else if (fam < 66) { /* kRw, kr: k outer layers */
			int k = 1 + rnd(&g->r, n);
			if (chance(&g->r, 50))
				sb_printf(&g->s, "%d%cw", k, F);
			else
				sb_printf(&g->s, "%d%c", k, f);
			lo = 1, hi = k;
		} else if (fam < 74) { /* a-bRw, a-bR, a-br */
			if (n < 2)
				continue;
			int a = 1 + rnd(&g->r, n - 1);
			int b = a + 1 + rnd(&g->r, n - a);
			const char *suffix[] = {"%d-%d%cw", "%d-%d%c"};
			int form = rnd(&g->r, 3);
			sb_printf(&g->s, suffix[form == 0 ? 0 : 1], a, b,
				  form == 2 ? f : F);
			lo = a, hi = b;
		} else if (fam < 79) { /* M E S: layer (n+1)/2, so n=1 too */
			if (n % 2 == 0)
				continue;
			int k = rnd(&g->r, 3);
			sb_printf(&g->s, "%c", "MES"[k]);
			face = k == 0 ? FL : k == 1 ? FD : FF;
			lo = hi = (n + 1) / 2;
		} else if (fam < 84) { /* m e s */
			if (n < 3)
				continue;
			int k = rnd(&g->r, 3);
			sb_printf(&g->s, "%c", "mes"[k]);
			face = k == 0 ? FL : k == 1 ? FD : FF;
			lo = 2, hi = n - 1;
		} else if (fam < 92) { /* x y z */
			int k = rnd(&g->r, 3);
			sb_printf(&g->s, "%c", "xyz"[k]);
			face = k == 0 ? FR : k == 1 ? FU : FF;
			lo = 1, hi = n;
		} else { /* Rv … Bv */
			sb_printf(&g->s, "%cv", F);
			lo = 1, hi = n;
		}
		tl_push(out, face_turn(n, face, lo, hi, gen_amount(g)));
		return;
	}
}

/* Whitespace (maybe with a comment) between two units. */
static void gen_sep(gen *g)
{
	static const char *seps[] = {
		" ", " ", " ", " ", " ", "  ", "\n", "\t", " \t", "\n\n",
		" \n  ", " // a comment (R U] x' 3-2Q\n", "// R\n", " //\n",
	};
	sb_puts(&g->s, seps[rnd(&g->r, sizeof seps / sizeof *seps)]);
}

/* Optional whitespace just inside a bracket. */
static void gen_inner_space(gen *g)
{
	if (!g->tight_brackets && chance(&g->r, 15))
		sb_puts(&g->s, chance(&g->r, 70) ? " " : "\n");
}

static void gen_seq(gen *g, int depth, long budget, tlist *out);

/* Repetition count for a body of len turns that keeps |k|·len within
 * budget; writes the suffix. */
static long gen_repeat(gen *g, size_t len, long budget)
{
	static const long ks[] = {1, 1, 1, 2, 2, 3, 0, 4, 5, 6};
	long k = ks[rnd(&g->r, sizeof ks / sizeof *ks)];
	if (len && k * (long)len > budget)
		k = 1;
	int prime = chance(&g->r, 30);
	if (k != 1 || chance(&g->r, 10))
		sb_printf(&g->s, "%ld", k);
	if (prime)
		sb_puts(&g->s, "'");
	return prime ? -k : k;
}

static void gen_unit(gen *g, int depth, long budget, tlist *out)
{
	int pick = rnd(&g->r, 100);
	if (depth < g->max_depth && budget >= 4 && pick < 24) {
		tlist body = {0}, a = {0}, b = {0};
		int kind = rnd(&g->r, 3);
		if (kind == 0) {
			sb_puts(&g->s, "(");
			gen_inner_space(g);
			gen_seq(g, depth + 1, budget, &body);
			gen_inner_space(g);
			sb_puts(&g->s, ")");
		} else {
			static const char *comma[] = {", ", ", ", " , ",
						      ",\n", ",  "};
			static const char *colon[] = {": ", ": ", " : ",
						      ":\n", ":  "};
			sb_puts(&g->s, "[");
			gen_inner_space(g);
			gen_seq(g, depth + 1, budget / 4, &a);
			if (g->tight_brackets)
				sb_puts(&g->s, kind == 1 ? "," : ":");
			else
				sb_puts(&g->s, (kind == 1 ? comma : colon)[rnd(
						       &g->r, 5)]);
			gen_seq(g, depth + 1, budget / 4, &b);
			gen_inner_space(g);
			sb_puts(&g->s, "]");
			tl_append(&body, &a, 0);
			tl_append(&body, &b, 0);
			tl_append(&body, &a, 1);
			if (kind == 1)
				tl_append(&body, &b, 1);
		}
		tl_append_repeat(out, &body,
				 gen_repeat(g, body.len, budget));
		tl_free(&body);
		tl_free(&a);
		tl_free(&b);
	} else if (pick < 31) {
		sb_puts(&g->s, ".");
	} else {
		gen_move(g, out);
	}
}

/* One to six units separated by whitespace, each held to its share of
 * the budget so that nesting never blows the expansion up. */
static void gen_seq(gen *g, int depth, long budget, tlist *out)
{
	int units = 1 + rnd(&g->r, depth == 0 ? 8 : 4);
	long share = budget / units > 0 ? budget / units : 1;
	for (int u = 0; u < units; u++) {
		if (u)
			gen_sep(g);
		gen_unit(g, depth, share, out);
	}
}

/* A whole algorithm: maybe leading whitespace, units, maybe a trailing
 * comment without a newline. */
static void gen_alg(gen *g, long budget, tlist *out)
{
	sb_clear(&g->s);
	sb_puts(&g->s, "");
	if (chance(&g->r, 10))
		sb_puts(&g->s, chance(&g->r, 50) ? "  " : "\n");
	if (chance(&g->r, 5))
		sb_puts(&g->s, "// leading comment\n");
	gen_seq(g, 0, budget, out);
	int tail = rnd(&g->r, 100);
	if (tail < 8)
		sb_puts(&g->s, " ");
	else if (tail < 12)
		sb_puts(&g->s, "\n");
	else if (tail < 16)
		sb_puts(&g->s, " // trailing comment");
}

/* ------------------------------------------------------------------ */
/* Core against model on random algorithms.                            */

static void check_one(int n, const char *alg, const tlist *expect,
		      unsigned iter)
{
	sbuf e = {0};
	parsed p;
	core_parse(&p, n, alg);
	ck_assert_msg(p.rc >= 0,
		      "n=%d #%u: core refuses \"%s\": %s at offset %zu", n,
		      iter, escaped(alg, &e), cube_errname(p.rc),
		      p.err.offset);
	ck_assert_msg(p.a.n == n, "n=%d: alg_t.n = %d", n, p.a.n);
	ck_assert_msg(p.a.length == expect->len,
		      "n=%d #%u: \"%s\" expands to %llu moves, model says %zu",
		      n, iter, escaped(alg, &e),
		      (unsigned long long)p.a.length, expect->len);

	char *want = model_run(n, expect);
	cube_t *c = cube_new(n);
	ck_assert_int_ge(alg_apply(&p.a, c, 0), 0);
	char *got = facelets_of(c);
	ck_assert_msg(strcmp(got, want) == 0,
		      "n=%d #%u: \"%s\"\n  core:  %s\n  model: %s", n, iter,
		      escaped(alg, &e), got, want);

	/* The inverse undoes it. */
	ck_assert_int_ge(alg_apply(&p.a, c, 1), 0);
	char *back = facelets_of(c);
	char *solved = solved_facelets(n);
	ck_assert_msg(strcmp(back, solved) == 0 && cube_is_solved(c),
		      "n=%d #%u: \"%s\" then its inverse: %s", n, iter,
		      escaped(alg, &e), back);

	/* The model's turn list through cube_turn gives the same state. */
	cube_t *d = cube_new(n);
	for (size_t i = 0; i < expect->len; i++) {
		const mturn *m = &expect->v[i];
		int rc = cube_turn(d, m->axis, m->lo, m->hi, mod4(m->qt));
		ck_assert_msg(rc >= 0, "cube_turn(%d, %d, %d, %d) on n=%d: %s",
			      m->axis, m->lo, m->hi, mod4(m->qt), n,
			      cube_errname(rc));
	}
	char *turned = facelets_of(d);
	ck_assert_msg(strcmp(turned, want) == 0,
		      "n=%d #%u: turns of \"%s\" via cube_turn\n  core:  %s\n"
		      "  model: %s",
		      n, iter, escaped(alg, &e), turned, want);

	free(turned);
	free(d);
	free(solved);
	free(back);
	free(got);
	free(c);
	free(want);
	free(p.nodes);
	free(e.s);
}

enum { RANDOM_PER_N = 700 };

static unsigned iterations(void)
{
	const char *s = getenv("CUBED_MODEL_ITERS");
	long k = s ? strtol(s, NULL, 10) : 0;
	return k > 0 ? (unsigned)k : RANDOM_PER_N;
}

/* _i is n (1..7). Seeds are fixed so a failure reproduces. */
START_TEST(random_algorithms_match_model)
{
	int n = _i;
	gen g = {.r = {0xC0BEDull * 1000003u + (uint64_t)n},
		 .n = n,
		 .max_depth = 3};
	unsigned iters = iterations();
	for (unsigned it = 0; it < iters; it++) {
		tlist t = {0};
		gen_alg(&g, n <= 3 ? 120 : 60, &t);
		check_one(n, g.s.s, &t, it);
		tl_free(&t);
	}
	free(g.s.s);
}
END_TEST

/* The same with brackets written tight: "[R,U]", "[R:U]". */
START_TEST(random_tight_brackets_match_model)
{
	int n = _i;
	gen g = {.r = {0x7161ull * 7919u + (uint64_t)n},
		 .n = n,
		 .max_depth = 3,
		 .tight_brackets = 1};
	for (unsigned it = 0; it < 100; it++) {
		tlist t = {0};
		gen_alg(&g, 60, &t);
		check_one(n, g.s.s, &t, it);
		tl_free(&t);
	}
	free(g.s.s);
}
END_TEST

/* The test's own two readings of notation must agree: the generator's
 * turns and the model parser's turns for the same string. */
START_TEST(model_parser_agrees_with_generator)
{
	int n = _i;
	gen g = {.r = {0xABCDEFull + (uint64_t)n}, .n = n, .max_depth = 3};
	for (unsigned it = 0; it < 300; it++) {
		tlist t = {0}, u = {0};
		gen_alg(&g, 60, &t);
		model_parse(n, g.s.s, &u);
		ck_assert_uint_eq(t.len, u.len);
		for (size_t i = 0; i < t.len; i++)
			ck_assert_msg(t.v[i].axis == u.v[i].axis &&
					      t.v[i].lo == u.v[i].lo &&
					      t.v[i].hi == u.v[i].hi &&
					      mod4(t.v[i].qt) ==
						      mod4(u.v[i].qt),
				      "n=%d: \"%s\" move %zu", n, g.s.s, i);
		tl_free(&t);
		tl_free(&u);
	}
	free(g.s.s);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Identities, checked through the core parser and apply, each side     */
/* also checked against the model.                                     */

typedef struct ident {
	int n;
	const char *a, *b;
} ident;

static const ident wca[] = {
	{4, "Rw", "R 2R"},
	{4, "r", "Rw"},
	{4, "x", "R 2R 3R 4R"},
	{4, "4Rw", "x"},
	{5, "3Rw", "R 2R 3R"},
	{5, "3r", "3Rw"},
	{5, "M", "3L"},
	{5, "E", "3D"},
	{5, "S", "3F"},
	{5, "M", "3R'"},
	{5, "m", "2-4Lw"},
	{5, "m", "2L 3L 4L"},
	{5, "e", "2-4Dw"},
	{5, "s", "2-4F"},
	{5, "2-4Rw", "2R 3R 4R"},
	{5, "2-4R", "2-4Rw"},
	{5, "2-4r", "2-4Rw"},
	{5, "1R", "R"},
	{5, "1Rw", "R"},
	{5, "5Rw", "x"},
	{5, "5r", "x"},
	{5, "5Lw", "x'"},
	{5, "2-5Rw", "R' x"},
	{5, "2-5Rw", "4Lw'"},
	{5, "1-5Uw", "y"},
	{3, "M", "L' R x'"},
	{3, "M", "2L"},
	{3, "M", "2R'"},
	{3, "E", "U D' y'"},
	{3, "S", "F' B z"},
	{3, "m", "M"},
	{3, "e", "E"},
	{3, "s", "S"},
	{3, "y", "U 2U 3U"},
	{3, "z", "F S B'"},
	{3, "x", "R M' L'"},
	{3, "Rw", "R M'"},
	{3, "Lw", "L M"},
	{3, "Uw", "U E'"},
	{3, "Dw", "D E"},
	{3, "Fw", "F S"},
	{3, "Bw", "B S'"},
	{3, "Rv", "x"},
	{3, "Lv", "x'"},
	{3, "Uv", "y"},
	{3, "Dv", "y'"},
	{3, "Fv", "z"},
	{3, "Bv", "z'"},
	{3, "x y x'", "z"},
	{4, "x y x'", "z"},
	{3, "x2 y2", "z2"},
	{6, "3Rw", "R 2R 3R"},
	{6, "m", "2-5Lw"},
	{6, "2-3Rw", "2R 3R"},
	{7, "M", "4L"},
	{7, "m", "2-6Lw"},
	{7, "3Bw", "B 2B 3B"},
	{3, "R2'", "R2"},
	{3, "R3", "R'"},
	{3, "R5", "R"},
	{3, "R0", ""},
	{3, "R4", ""},
	{3, "R1000000", ""},
	{3, "R999999", "R'"},
	{3, "(R U)'", "U' R'"},
	{3, "(R U)2'", "U' R' U' R'"},
	{3, "(R U)0", ""},
	{3, "[R, U]", "R U R' U'"},
	{3, "[R: U]", "R U R'"},
	{3, "[R, U]'", "U R U' R'"},
	{3, "[R: U]'", "R U' R'"},
	{3, "[R, U]2", "R U R' U' R U R' U'"},
	{3, "[R: U]2", "R U2 R'"},
	{3, "[R: [U, F]]", "R U F U' F' R'"},
	{3, "[[R, U]: F]", "R U R' U' F U R U' R'"},
	{3, "R . U", "R U"},
	{3, ". . .", ""},
	{3, "R // U\nF", "R F"},
	{3, "// only a comment", ""},
	{3, "R\tU", "R U"},
	{3, "  R   U  ", "R U"},
	{3, "R\nU\n", "R U"},
	{2, "Rw", "x"},
	{2, "r", "x"},
	{1, "R", "x"},
	{1, "L", "x'"},
	{1, "U", "y"},
	{1, "1Rw", "x"},
	/* on 1×1 the middle slice is the only layer */
	{1, "M", "x'"},
	{1, "E", "y'"},
	{1, "S", "z"},
};

static void check_identity(const ident *c)
{
	/* The model must agree the identity holds, or the table is wrong. */
	char *ma = model_facelets_of(c->n, c->a);
	char *mb = model_facelets_of(c->n, c->b);
	ck_assert_msg(strcmp(ma, mb) == 0,
		      "table error: model says \"%s\" != \"%s\" on n=%d", c->a,
		      c->b, c->n);
	char *a = core_facelets_of(c->n, c->a);
	char *b = core_facelets_of(c->n, c->b);
	ck_assert_msg(strcmp(a, ma) == 0,
		      "n=%d \"%s\"\n  core:  %s\n  model: %s", c->n, c->a, a,
		      ma);
	ck_assert_msg(strcmp(b, mb) == 0,
		      "n=%d \"%s\"\n  core:  %s\n  model: %s", c->n, c->b, b,
		      mb);
	ck_assert_msg(strcmp(a, b) == 0,
		      "n=%d: \"%s\" gives %s but \"%s\" gives %s", c->n, c->a,
		      a, c->b, b);
	free(a);
	free(b);
	free(ma);
	free(mb);
}

START_TEST(wca_identities)
{
	check_identity(&wca[_i]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Group laws.                                                         */

static void check_is_identity(int n, const char *alg)
{
	char *solved = solved_facelets(n);
	char *m = model_facelets_of(n, alg);
	ck_assert_msg(strcmp(m, solved) == 0,
		      "table error: model says \"%s\" is not the identity on "
		      "n=%d",
		      alg, n);
	char *c = core_facelets_of(n, alg);
	ck_assert_msg(strcmp(c, solved) == 0,
		      "n=%d: \"%s\" should be the identity, core gives %s", n,
		      alg, c);
	free(c);
	free(m);
	free(solved);
}

static void check_not_identity(int n, const char *alg)
{
	char *solved = solved_facelets(n);
	char *m = model_facelets_of(n, alg);
	ck_assert_msg(strcmp(m, solved) != 0,
		      "table error: model says \"%s\" is the identity on n=%d",
		      alg, n);
	char *c = core_facelets_of(n, alg);
	ck_assert_msg(strcmp(c, m) == 0, "n=%d \"%s\"\n  core:  %s\n  model: %s",
		      n, alg, c, m);
	free(c);
	free(m);
	free(solved);
}

START_TEST(sexy_move_has_order_six)
{
	/* _i is n; (R U R' U') has order 6 on every n >= 2, and no smaller
	 * power is the identity. */
	int n = _i;
	check_is_identity(n, "(R U R' U')6");
	check_not_identity(n, "(R U R' U')3");
	check_not_identity(n, "(R U R' U')2");
	check_is_identity(n, "[R, U]6");
}
END_TEST

START_TEST(r_u_has_order_105_on_3x3)
{
	check_is_identity(3, "(R U)105");
	check_not_identity(3, "(R U)35");
	check_not_identity(3, "(R U)21");
	check_not_identity(3, "(R U)15");
}
END_TEST

START_TEST(whole_cube_rotations)
{
	/* _i is n. Each rotation's fourth power is the identity, a quarter
	 * moves every sticker to another face, and rotations compose as
	 * the rotation group does. */
	int n = _i;
	static const char *id[] = {
		"x4",       "y4",       "z4",      "x2 y2 z2",
		"x y x' z'", "y z y' x'", "z x z' y'", "x' y' x z'",
		"(x y)3",   "x2 z2 y2", "Rv Lv",   "Uv Dv",
		"Fv Bv",    "x z' x' y'",
	};
	for (size_t i = 0; i < sizeof id / sizeof *id; i++)
		check_is_identity(n, id[i]);

	static const char *faces[] = {"x", "y", "z", "x'", "y2", "z'"};
	for (size_t i = 0; i < sizeof faces / sizeof *faces; i++) {
		char *c = core_facelets_of(n, faces[i]);
		char *m = model_facelets_of(n, faces[i]);
		ck_assert_msg(strcmp(c, m) == 0,
			      "n=%d \"%s\"\n  core:  %s\n  model: %s", n,
			      faces[i], c, m);
		/* every face shows one colour, and not its own */
		for (int f = 0; f < 6; f++) {
			char first = c[f * n * n];
			for (int k = 0; k < n * n; k++)
				ck_assert_int_eq(c[f * n * n + k], first);
			if (!(faces[i][0] == 'x' && (f == FR || f == FL)) &&
			    !(faces[i][0] == 'y' && (f == FU || f == FD)) &&
			    !(faces[i][0] == 'z' && (f == FF || f == FB)))
				ck_assert_msg(first != face_letter[f],
					      "n=%d %s: face %c kept its colour",
					      n, faces[i], face_letter[f]);
		}
		free(c);
		free(m);
	}
}
END_TEST

START_TEST(rotation_literals_3x3)
{
	static const struct {
		const char *alg, *facelets;
	} cases[] = {
		{"x", "FFFFFFFFFRRRRRRRRRDDDDDDDDDBBBBBBBBBLLLLLLLLLUUUUUUUUU"},
		{"y", "UUUUUUUUUBBBBBBBBBRRRRRRRRRDDDDDDDDDFFFFFFFFFLLLLLLLLL"},
		{"z", "LLLLLLLLLUUUUUUUUUFFFFFFFFFRRRRRRRRRDDDDDDDDDBBBBBBBBB"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *m = model_facelets_of(3, cases[i].alg);
		ck_assert_str_eq(m, cases[i].facelets);
		char *c = core_facelets_of(3, cases[i].alg);
		ck_assert_msg(strcmp(c, cases[i].facelets) == 0,
			      "\"%s\": %s, expected %s", cases[i].alg, c,
			      cases[i].facelets);
		free(c);
		free(m);
	}
}
END_TEST

/* [A, B] = A B A' B' and [A: B] = A B A' for random A and B: the core's
 * bracket against the core applying A, B and their inverses in turn. */
START_TEST(commutators_and_conjugates_random)
{
	int n = _i;
	gen g = {.r = {0x5EEDull * 31u + (uint64_t)n}, .n = n, .max_depth = 2};
	sbuf A = {0}, B = {0}, whole = {0};
	for (unsigned it = 0; it < 150; it++) {
		tlist ta = {0}, tb = {0}, tw = {0};
		gen_alg(&g, 20, &ta);
		sb_clear(&A);
		sb_puts(&A, g.s.s);
		gen_alg(&g, 20, &tb);
		sb_clear(&B);
		sb_puts(&B, g.s.s);
		int conj = it % 2;
		/* a trailing comment would swallow the bracket: end each
		 * operand with a newline */
		sb_clear(&whole);
		sb_printf(&whole, "%s", "[");
		sb_puts(&whole, A.s);
		sb_puts(&whole, conj ? "\n: " : "\n, ");
		sb_puts(&whole, B.s);
		sb_puts(&whole, "\n]");

		parsed pw, pa, pb;
		core_parse(&pw, n, whole.s);
		core_parse(&pa, n, A.s);
		core_parse(&pb, n, B.s);
		sbuf e = {0};
		ck_assert_msg(pw.rc >= 0 && pa.rc >= 0 && pb.rc >= 0,
			      "n=%d: core refuses \"%s\"", n,
			      escaped(whole.s, &e));
		cube_t *c1 = cube_new(n), *c2 = cube_new(n);
		ck_assert_int_ge(alg_apply(&pw.a, c1, 0), 0);
		ck_assert_int_ge(alg_apply(&pa.a, c2, 0), 0);
		ck_assert_int_ge(alg_apply(&pb.a, c2, 0), 0);
		ck_assert_int_ge(alg_apply(&pa.a, c2, 1), 0);
		if (!conj)
			ck_assert_int_ge(alg_apply(&pb.a, c2, 1), 0);
		char *f1 = facelets_of(c1), *f2 = facelets_of(c2);
		ck_assert_msg(strcmp(f1, f2) == 0,
			      "n=%d: \"%s\"\n  bracket:  %s\n  in turn: %s", n,
			      escaped(whole.s, &e), f1, f2);

		tl_append(&tw, &ta, 0);
		tl_append(&tw, &tb, 0);
		tl_append(&tw, &ta, 1);
		if (!conj)
			tl_append(&tw, &tb, 1);
		char *m = model_run(n, &tw);
		ck_assert_msg(strcmp(f1, m) == 0,
			      "n=%d: \"%s\"\n  core:  %s\n  model: %s", n,
			      escaped(whole.s, &e), f1, m);
		free(m);
		free(f1);
		free(f2);
		free(c1);
		free(c2);
		free(pw.nodes);
		free(pa.nodes);
		free(pb.nodes);
		free(e.s);
		tl_free(&ta);
		tl_free(&tb);
		tl_free(&tw);
	}
	free(A.s);
	free(B.s);
	free(whole.s);
	free(g.s.s);
}
END_TEST

Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc;

	tc = tcase_create("design");
	tcase_add_test(tc, model_reproduces_design_strings);
	tcase_add_test(tc, core_matches_design_strings);
	tcase_add_test(tc, core_turn_matches_design_strings);
	tcase_add_test(tc, rotation_literals_3x3);
	suite_add_tcase(s, tc);

	tc = tcase_create("random");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, model_parser_agrees_with_generator, 1, 8);
	tcase_add_loop_test(tc, random_algorithms_match_model, 1, 8);
	tcase_add_loop_test(tc, random_tight_brackets_match_model, 1, 8);
	suite_add_tcase(s, tc);

	tc = tcase_create("identities");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, wca_identities, 0,
			    (int)(sizeof wca / sizeof *wca));
	suite_add_tcase(s, tc);

	tc = tcase_create("group");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, sexy_move_has_order_six, 2, 8);
	tcase_add_test(tc, r_u_has_order_105_on_3x3);
	tcase_add_loop_test(tc, whole_cube_rotations, 1, 8);
	tcase_add_loop_test(tc, commutators_and_conjugates_random, 1, 8);
	suite_add_tcase(s, tc);

	return s;
}
