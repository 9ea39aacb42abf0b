/* bench.c — micro-benchmarks of the core library: 3×3 turns against a plain
 * sticker-permutation loop, n×n×n face and slice turns for n = 10…1000
 * against a plain line-copy loop, and parse + apply of long 3×3 algorithms
 * (the workload bench/cubing.mjs runs through cubing.js); the 3×3 index,
 * cubie and pattern figures (bench_cube3.c); the solvers: two-phase table set-up and load, 3×3 solve time and length
 * over random states (the same states bench/cubejs.cjs gives cubejs), the
 * beginner method and solving to a cross / first layer on those states,
 * and optimal 2×2 solves.
 *
 *   build/bench/bench [ALGS_FILE]
 *   build/bench/bench --solve [STATES_FILE]    (the solver figures only)
 *   build/bench/bench --reduce [COUNT [SIZE]]  (big cubes by reduction only)
 *   build/bench/bench --optimal LEVEL [N [THREADS [STATES_OUT]]]
 *   build/bench/bench --twenty [N [STATES_OUT]]  (bench_optimal.c)
 *   build/bench/bench --near LEVELS [N]          (bench_optimal.c)
 *   build/bench/bench --superflip LEVEL          (bench_optimal.c)
 *
 * With ALGS_FILE, the generated algorithms are written there (one a line)
 * and cubed's move count and final state for each to ALGS_FILE.expect, so
 * the cubing.js side can time the same work and check it agrees; and the
 * random 3×3 states solved here to ALGS_FILE.cubes3 (facelets, one a line).
 * CUBED_BENCH_SOLVE_N sets how many states (default 500).
 *
 * The machine is shared and noisy, so absolute times drift between runs;
 * every figure is printed beside the reference it should be read against,
 * measured in the same run. Each figure is the median of RUNS timed runs of
 * at least TARGET_NS each (iterations calibrated first). Inputs are drawn
 * from arrays filled before timing with a fixed-seed generator, and results
 * feed a checksum printed at the end, so no work can be optimised away.
 *
 * Output: one "name: value unit" line per figure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alg.h"
#include "bench.h"
#include "beginner.h"
#include "cube.h"
#include "cubie.h"
#include "optimal_tables.h"
#include "reduce.h"
#include "solve.h"

/* ---- 3×3 turns ---------------------------------------------------------- */

#define NMOVES 4096 /* pre-generated moves, cycled (power of two) */

struct tmove {
	cube_move m;
	int perm; /* index into perm3[] for the reference loop */
};

/* perm3[(axis·3 + layer)·3 + qt-1][i]: after the move, sticker i holds what
 * sticker perm[i] held. */
static unsigned char perm3[27][54];

/* Learn each single-layer 3×3 move's sticker permutation from the core's
 * public API alone: stickers hold only 6 colours, so write position i's
 * base-6 digits into three probe cubes, turn them, and read back where each
 * sticker came from. */
static void learn_perms(void)
{
	cube_t *probe = new_cube(3);
	char in[54], out[3][54];
	for (int a = 0; a < 3; a++)
		for (int l = 0; l < 3; l++)
			for (int q = 1; q <= 3; q++) {
				unsigned char *p = perm3[(a * 3 + l) * 3 + q - 1];
				for (int d = 0, base = 1; d < 3; d++, base *= 6) {
					for (int i = 0; i < 54; i++)
						in[i] = cube_face_letters[(i / base) % 6];
					int rc = cube_from_facelets(probe, 3, in, 54, NULL);
					if (rc < 0)
						die("cube_from_facelets (probe)", rc);
					rc = cube_turn(probe, a, l, l, q);
					if (rc < 0)
						die("cube_turn (probe)", rc);
					cube_to_facelets(probe, out[d]);
				}
				int seen[54] = {0};
				for (int i = 0; i < 54; i++) {
					int src = 0;
					for (int d = 2; d >= 0; d--) {
						const char *k = strchr(cube_face_letters, out[d][i]);
						if (!k || !*k) {
							fprintf(stderr, "bench: bad letter from cube_to_facelets\n");
							exit(1);
						}
						src = src * 6 + (int)(k - cube_face_letters);
					}
					if (src >= 54 || seen[src]++) {
						fprintf(stderr, "bench: move %d/%d/%d is not a sticker permutation\n",
							a, l, q);
						exit(1);
					}
					p[i] = (unsigned char)src;
				}
			}
	free(probe);
}

struct turn3_ctx {
	cube_t *c;
	const struct tmove *mv;
	unsigned char buf[2][54];
};

/* iters turns of c, cycling through NMOVES moves that stand stride bytes
 * apart from first (a cube_move array, or the .m of a struct tmove
 * array, read in place as the loop written out in each body did). */
static ALWAYS_INLINE uint64_t time_turns(cube_t *c, const cube_move *first,
					 size_t stride, uint64_t iters)
{
	const unsigned char *base = (const unsigned char *)first;
	int acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		const cube_move *m = (const cube_move *)(const void *)(
			base + (i & (NMOVES - 1)) * stride);
		acc += cube_turn(c, m->axis, m->lo, m->hi, m->qt);
	}
	uint64_t t = now_ns() - t0;
	sink += (uint64_t)acc + (uint64_t)cube_get(c, 0, 0, 0);
	return t;
}

static NOINLINE uint64_t body_turn3(void *arg, uint64_t iters)
{
	struct turn3_ctx *x = arg;
	return time_turns(x->c, &x->mv[0].m, sizeof *x->mv, iters);
}

/* The reference: the same moves as 54-entry permutations, one plain loop
 * per move. */
static void perm_step(unsigned char *restrict dst, const unsigned char *restrict src,
		      const unsigned char *restrict p)
{
	for (int i = 0; i < 54; i++)
		dst[i] = src[p[i]];
}

static NOINLINE uint64_t body_loop3(void *arg, uint64_t iters)
{
	struct turn3_ctx *x = arg;
	const struct tmove *mv = x->mv;
	unsigned char *a = x->buf[0], *b = x->buf[1];
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		perm_step(b, a, perm3[mv[i & (NMOVES - 1)].perm]);
		unsigned char *t = a;
		a = b;
		b = t;
	}
	uint64_t t = now_ns() - t0;
	if (a != x->buf[0])
		memcpy(x->buf[0], a, 54);
	sink += x->buf[0][0] + x->buf[0][53];
	return t;
}

static void gen_moves3(struct tmove *mv, int faces_only)
{
	for (int i = 0; i < NMOVES; i++) {
		int a = rnd(3), q = 1 + rnd(3);
		int l = faces_only ? 2 * rnd(2) : rnd(3);
		mv[i].m = (cube_move){.axis = (uint8_t)a, .qt = (uint8_t)q,
				      .lo = (uint16_t)l, .hi = (uint16_t)l};
		mv[i].perm = (a * 3 + l) * 3 + q - 1;
	}
}

/* The reference must do the same thing as the core: run all NMOVES moves
 * through both from one scrambled state and compare. */
static void check_loop3(const struct tmove *mv)
{
	cube_t *c = new_cube(3);
	scramble(c, 50);
	char f[54], g[54];
	unsigned char a[54], b[54];
	cube_to_facelets(c, f);
	memcpy(a, f, 54);
	for (int i = 0; i < NMOVES; i++) {
		int rc = cube_turn(c, mv[i].m.axis, mv[i].m.lo, mv[i].m.hi, mv[i].m.qt);
		if (rc < 0)
			die("cube_turn", rc);
		perm_step(b, a, perm3[mv[i].perm]);
		memcpy(a, b, 54);
	}
	cube_to_facelets(c, g);
	if (memcmp(a, g, 54)) {
		fprintf(stderr, "bench: the permutation loop disagrees with cube_turn\n");
		exit(1);
	}
	free(c);
}

static void bench_turn3(void)
{
	static struct tmove mv[NMOVES], fmv[NMOVES];
	learn_perms();
	gen_moves3(mv, 0);
	gen_moves3(fmv, 1);
	check_loop3(mv);

	struct turn3_ctx x = {.c = new_cube(3), .mv = mv};
	scramble(x.c, 50);
	cube_to_facelets(x.c, (char *)x.buf[0]);
	pair_figures("turn3", "loop", body_turn3, body_loop3, &x);
	x.mv = fmv;
	pair_figures("turn3.face", "loop", body_turn3, body_loop3, &x);
	x.mv = mv;
	sink += checksum(x.c);
	free(x.c);
}

/* ---- n×n×n face and slice turns ----------------------------------------- */

struct turnn_ctx {
	cube_t *c;
	cube_move *mv;
	/* reference: a plain 6·n² sticker array in the facelets net layout */
	unsigned char *net, *tmp;
	int n;
};

static NOINLINE uint64_t body_turnn(void *arg, uint64_t iters)
{
	struct turnn_ctx *x = arg;
	return time_turns(x->c, x->mv, sizeof *x->mv, iters);
}

/* A line of n stickers in the net: start and step (1 along a row, n down a
 * column). */
struct line {
	size_t start, step;
};

/* The 4 lines a turn of layer k about axis cycles, as a plain facelets
 * array holds them: x (R/M/L) takes columns of U F D B, y (U/E/D) rows of
 * F R B L, z (F/S/B) rows of U and D and columns of R and L. Directions and
 * reversals are ignored: this reference only moves the same number of
 * stickers with the same strides. */
static void turn_lines(int n, int axis, int k, struct line l[4])
{
	size_t nn = (size_t)n * (size_t)n, kk = (size_t)k;
	static const int faces[3][4] = {
		{CUBE_U, CUBE_F, CUBE_D, CUBE_B},
		{CUBE_F, CUBE_R, CUBE_B, CUBE_L},
		{CUBE_U, CUBE_R, CUBE_D, CUBE_L},
	};
	for (int i = 0; i < 4; i++) {
		size_t base = (size_t)faces[axis][i] * nn;
		int column = axis == 0 || (axis == 2 && (i & 1));
		if (column)
			l[i] = (struct line){base + kk, (size_t)n};
		else
			l[i] = (struct line){base + kk * (size_t)n, 1};
	}
}

static void line_copy(unsigned char *dst, struct line d, const unsigned char *src,
		      struct line s, int n)
{
	for (int i = 0; i < n; i++)
		dst[d.start + (size_t)i * d.step] = src[s.start + (size_t)i * s.step];
}

static NOINLINE uint64_t body_loopn(void *arg, uint64_t iters)
{
	struct turnn_ctx *x = arg;
	const cube_move *mv = x->mv;
	unsigned char *net = x->net, *tmp = x->tmp;
	int n = x->n;
	struct line l[4], t = {0, 1};
	uint64_t t0 = now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		const cube_move *m = &mv[i & (NMOVES - 1)];
		turn_lines(n, m->axis, m->lo, l);
		if (m->qt == 2) {
			for (int j = 0; j < 2; j++) {
				line_copy(tmp, t, net, l[j], n);
				line_copy(net, l[j], net, l[j + 2], n);
				line_copy(net, l[j + 2], tmp, t, n);
			}
		} else {
			int d = m->qt == 1 ? 1 : 3;
			line_copy(tmp, t, net, l[0], n);
			for (int j = 0; j < 3; j++)
				line_copy(net, l[(j * d) & 3], net, l[((j + 1) * d) & 3], n);
			line_copy(net, l[(3 * d) & 3], tmp, t, n);
		}
	}
	uint64_t t1 = now_ns() - t0;
	sink += net[0] + net[(size_t)6 * n * n - 1];
	return t1;
}

static void gen_movesn(cube_move *mv, int n, int kind, int axis)
{
	/* kind 0: outer layers (face turns), 1: inner single layers */
	for (int i = 0; i < NMOVES; i++) {
		int l = kind == 0 ? (rnd(2) ? n - 1 : 0) : 1 + rnd(n - 2);
		mv[i] = (cube_move){.axis = (uint8_t)(axis >= 0 ? axis : rnd(3)),
				    .qt = (uint8_t)(1 + rnd(3)),
				    .lo = (uint16_t)l, .hi = (uint16_t)l};
	}
}

static void bench_turnn(void)
{
	static const int sizes[] = {10, 100, 300, 1000};
	static const char *const kinds[] = {"face", "slice"};
	static const char axes[] = "xyz";
	cube_move *mv = xmalloc(NMOVES * sizeof *mv);
	char name[64];
	double at100[2] = {0, 0};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		int n = sizes[s];
		struct turnn_ctx x = {.c = new_cube(n), .mv = mv, .n = n};
		size_t stickers = (size_t)6 * n * n;
		x.net = xmalloc(stickers);
		x.tmp = xmalloc((size_t)n);
		for (size_t i = 0; i < stickers; i++)
			x.net[i] = (unsigned char)rnd(6);
		scramble(x.c, 200);
		for (int kind = 0; kind < 2; kind++) {
			gen_movesn(mv, n, kind, -1);
			snprintf(name, sizeof name, "%s%d", kinds[kind], n);
			double t = pair_figures(name, "loop", body_turnn, body_loopn, &x);
			if (n == 100)
				at100[kind] = t;
			if (n >= 100) {
				snprintf(name, sizeof name, "%s%d.per_n.ns", kinds[kind], n);
				fig(name, t / n, "ns");
			}
			if (n == 1000 && at100[kind] > 0) {
				/* 10 if the cost grows linearly from n = 100 */
				snprintf(name, sizeof name, "%s1000.vs100", kinds[kind]);
				fig(name, t / at100[kind], "x");
			}
		}
		if (n == 1000) {
			/* Per axis, on a solved cube (every face's lazy rotation
			 * 0, so the same turns always touch the same rows and
			 * columns): which turns walk column-strided stickers.
			 * On a scrambled cube this depends on the faces' lazy
			 * rotations, which the mixed figures above average.
			 * Face turns change their own faces' rotations, which
			 * the next axis' rings cross: start each axis afresh. */
			for (int kind = 0; kind < 2; kind++)
				for (int a = 0; a < 3; a++) {
					cube_init(x.c, n);
					gen_movesn(mv, n, kind, a);
					double t, ref;
					measure_pair(body_turnn, body_loopn, &x, &t, &ref);
					snprintf(name, sizeof name, "%s1000.%c.ns", kinds[kind], axes[a]);
					fig(name, t, "ns");
					snprintf(name, sizeof name, "%s1000.%c.ns.loop", kinds[kind], axes[a]);
					fig(name, ref, "ns");
				}
		}
		sink += checksum(x.c);
		free(x.c);
		free(x.net);
		free(x.tmp);
	}
	free(mv);
}

/* ---- 3×3 algorithms: parse, apply, expand, simplify, print -------------- */

#define NALGS 200
#define ALG_MOVES 1000 /* expanded moves per algorithm, at least */

struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_put(struct sbuf *b, const char *s)
{
	size_t k = strlen(s);
	if (b->len + k + 1 > b->cap) {
		b->cap = (b->len + k + 1) * 2;
		char *p = realloc(b->s, b->cap);
		if (!p) {
			fprintf(stderr, "bench: out of memory\n");
			exit(1);
		}
		b->s = p;
	}
	memcpy(b->s + b->len, s, k + 1);
	b->len += k;
}

/* One plain move in the notation both cubed and cubing.js read on a 3×3;
 * returns 1 (its expanded length). */
static int gen_move(struct sbuf *b)
{
	static const char *const faces[] = {"R", "U", "F", "D", "L", "B"};
	static const char *const wide[] = {"Rw", "Uw", "Fw", "Dw", "Lw", "Bw",
					   "r",  "u",  "f",  "d",  "l",  "b"};
	static const char *const slices[] = {"M", "E", "S"};
	static const char *const rots[] = {"x", "y", "z"};
	static const char *const amounts[] = {"", "'", "2", "", "'", "2", "2'", "3"};
	int p = rnd(100);
	if (p < 72)
		sb_put(b, faces[rnd(6)]);
	else if (p < 84)
		sb_put(b, wide[rnd(12)]);
	else if (p < 94)
		sb_put(b, slices[rnd(3)]);
	else
		sb_put(b, rots[rnd(3)]);
	sb_put(b, amounts[rnd(8)]);
	return 1;
}

static int gen_moves_seq(struct sbuf *b, int k)
{
	for (int i = 0; i < k; i++) {
		if (i)
			sb_put(b, " ");
		gen_move(b);
	}
	return k;
}

/* An algorithm of at least ALG_MOVES expanded moves: mostly plain moves,
 * with groupings "(R U R' U')3", commutators "[A, B]" and conjugates
 * "[A: B]" now and then. Returns the expanded length. */
static int gen_alg(struct sbuf *b)
{
	int len = 0;
	char num[16];
	while (len < ALG_MOVES) {
		if (len)
			sb_put(b, " ");
		int p = rnd(100);
		if (p < 3) {
			int k = 2 + rnd(4), rep = 2 + rnd(3);
			sb_put(b, "(");
			gen_moves_seq(b, k);
			snprintf(num, sizeof num, ")%d%s", rep, rnd(4) ? "" : "'");
			sb_put(b, num);
			len += k * rep;
		} else if (p < 4) {
			int ka = 1 + rnd(3), kb = 1 + rnd(3);
			sb_put(b, "[");
			gen_moves_seq(b, ka);
			sb_put(b, ", ");
			gen_moves_seq(b, kb);
			sb_put(b, "]");
			len += 2 * (ka + kb);
		} else if (p < 5) {
			int ka = 1 + rnd(3), kb = 1 + rnd(3);
			sb_put(b, "[");
			gen_moves_seq(b, ka);
			sb_put(b, ": ");
			gen_moves_seq(b, kb);
			sb_put(b, "]");
			len += 2 * ka + kb;
		} else {
			len += gen_move(b);
		}
	}
	return len;
}

struct algs_ctx {
	int count; /* algorithms, <= NALGS */
	char *text[NALGS];
	size_t len[NALGS];
	uint64_t moves; /* expanded moves over all algorithms */
	alg_node *nodes;
	size_t cap;
	alg_limits lim;
	alg_t parsed[NALGS]; /* for the apply / expand / print bodies */
	alg_node *pnodes[NALGS];
	cube_move *mv;
	size_t mvcap;
	char *out;
	size_t outcap;
	uint64_t bytes; /* printed by the last call of body_print */
	cube_t *c;
};

static void parse_or_die(struct algs_ctx *x, int i, alg_t *a, alg_node *nodes)
{
	alg_error err;
	int rc = alg_parse(a, nodes, x->cap, 3, x->text[i], x->len[i], &x->lim, &err);
	if (rc < 0) {
		fprintf(stderr, "bench: alg %d rejected at offset %zu: %s\n", i + 1,
			err.offset, cube_strerror(rc));
		exit(1);
	}
}

static NOINLINE uint64_t body_parse_apply(void *arg, uint64_t iters)
{
	struct algs_ctx *x = arg;
	alg_t a;
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t it = 0; it < iters; it++)
		for (int i = 0; i < x->count; i++) {
			cube_init(x->c, 3);
			int rc = alg_parse(&a, x->nodes, x->cap, 3, x->text[i], x->len[i],
					   &x->lim, NULL);
			rc += alg_apply(&a, x->c, 0);
			acc += (uint64_t)rc + (uint64_t)cube_get(x->c, 2, 1, 0);
		}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_parse(void *arg, uint64_t iters)
{
	struct algs_ctx *x = arg;
	alg_t a;
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t it = 0; it < iters; it++)
		for (int i = 0; i < x->count; i++) {
			int rc = alg_parse(&a, x->nodes, x->cap, 3, x->text[i], x->len[i],
					   &x->lim, NULL);
			acc += (uint64_t)rc + a.length;
		}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_apply(void *arg, uint64_t iters)
{
	struct algs_ctx *x = arg;
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t it = 0; it < iters; it++)
		for (int i = 0; i < x->count; i++) {
			cube_init(x->c, 3);
			acc += (uint64_t)alg_apply(&x->parsed[i], x->c, 0) +
			       (uint64_t)cube_get(x->c, 2, 1, 0);
		}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_simplify(void *arg, uint64_t iters)
{
	struct algs_ctx *x = arg;
	uint64_t acc = 0;
	uint64_t t0 = now_ns();
	for (uint64_t it = 0; it < iters; it++)
		for (int i = 0; i < x->count; i++) {
			int64_t k = alg_expand(&x->parsed[i], 0, x->mv, x->mvcap);
			acc += moves_simplify(x->mv, (size_t)k) + x->mv[0].qt;
		}
	uint64_t t = now_ns() - t0;
	sink += acc;
	return t;
}

static NOINLINE uint64_t body_print(void *arg, uint64_t iters)
{
	struct algs_ctx *x = arg;
	uint64_t acc = 0, bytes = 0;
	uint64_t t0 = now_ns();
	for (uint64_t it = 0; it < iters; it++)
		for (int i = 0; i < x->count; i++) {
			size_t k = alg_print_canonical(&x->parsed[i], x->out, x->outcap);
			bytes += k;
			acc += (unsigned char)x->out[k / 2];
		}
	uint64_t t = now_ns() - t0;
	x->bytes = bytes;
	sink += acc;
	return t;
}

static void write_algs(const struct algs_ctx *x, const char *path)
{
	size_t plen = strlen(path);
	char *epath = xmalloc(plen + 8);
	memcpy(epath, path, plen);
	memcpy(epath + plen, ".expect", 8);
	FILE *f = fopen(path, "w"), *e = fopen(epath, "w");
	if (!f || !e) {
		fprintf(stderr, "bench: cannot write %s\n", f ? epath : path);
		exit(1);
	}
	cube_t *c = new_cube(3);
	char state[55] = {0};
	for (int i = 0; i < x->count; i++) {
		fwrite(x->text[i], 1, x->len[i], f);
		fputc('\n', f);
		cube_init(c, 3);
		int rc = alg_apply(&x->parsed[i], c, 0);
		if (rc < 0)
			die("alg_apply", rc);
		cube_to_facelets(c, state);
		fprintf(e, "%llu %s\n", (unsigned long long)x->parsed[i].length, state);
	}
	if (fclose(f) || fclose(e)) {
		fprintf(stderr, "bench: cannot write %s\n", path);
		exit(1);
	}
	free(c);
	free(epath);
}

/* Read up to NALGS algorithms, one a line, from path into x. */
static void read_algs(struct algs_ctx *x, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench: cannot read %s\n", path);
		exit(1);
	}
	struct sbuf b = {0};
	int c;
	while (x->count < NALGS && (c = fgetc(f)) != EOF) {
		if (c != '\n') {
			char one[2] = {(char)c, 0};
			sb_put(&b, one);
			continue;
		}
		if (b.len) {
			x->text[x->count] = b.s;
			x->len[x->count++] = b.len;
			b = (struct sbuf){0};
		}
	}
	if (b.len && x->count < NALGS) {
		x->text[x->count] = b.s;
		x->len[x->count++] = b.len;
	} else {
		free(b.s);
	}
	fclose(f);
}

/* Generate the algorithms and time everything; with write_path, write them
 * (and cubed's results) there. With read_path instead, time only parse +
 * apply of the algorithms in that file: run.sh alternates this with the
 * cubing.js side so that both see the same load on the machine. */
static void bench_algs(const char *write_path, const char *read_path)
{
	static struct algs_ctx x;
	size_t maxlen = 0;
	uint64_t want = 0;
	if (read_path) {
		read_algs(&x, read_path);
		if (x.count == 0) {
			fprintf(stderr, "bench: no algorithms in %s\n", read_path);
			exit(1);
		}
	} else {
		for (x.count = 0; x.count < NALGS; x.count++) {
			struct sbuf b = {0};
			want += (uint64_t)gen_alg(&b);
			x.text[x.count] = b.s;
			x.len[x.count] = b.len;
		}
	}
	for (int i = 0; i < x.count; i++)
		if (x.len[i] > maxlen)
			maxlen = x.len[i];
	alg_limits_default(&x.lim);
	x.lim.max_moves = 1u << 20;
	x.cap = alg_nodes_needed(maxlen);
	x.nodes = xmalloc(x.cap * sizeof *x.nodes);
	x.c = new_cube(3);
	uint64_t maxmoves = 0;
	for (int i = 0; i < x.count; i++) {
		/* keep each tree, in a buffer of its own size */
		parse_or_die(&x, i, &x.parsed[i], x.nodes);
		size_t used = (size_t)x.parsed[i].count * sizeof *x.nodes;
		x.pnodes[i] = xmalloc(used);
		memcpy(x.pnodes[i], x.nodes, used);
		x.parsed[i].nodes = x.pnodes[i];
		x.parsed[i].cap = x.parsed[i].count;
		x.moves += x.parsed[i].length;
		if (x.parsed[i].length > maxmoves)
			maxmoves = x.parsed[i].length;
	}
	if (!read_path && x.moves != want) {
		fprintf(stderr, "bench: the generator counted %llu moves, alg_parse %llu\n",
			(unsigned long long)want, (unsigned long long)x.moves);
		exit(1);
	}
	x.mvcap = (size_t)maxmoves;
	x.mv = xmalloc(x.mvcap * sizeof *x.mv);
	x.outcap = maxlen * 2 + 64;
	x.out = xmalloc(x.outcap);
	if (write_path)
		write_algs(&x, write_path);

	double total = (double)x.moves;
	if (read_path) {
		double pa = measure(body_parse_apply, &x);
		fig("parse_apply3.mps", total / pa * 1000, "Mmoves/s");
		goto done;
	}
	size_t chars = 0;
	for (int i = 0; i < x.count; i++)
		chars += x.len[i];
	figi("parse_apply3.algs", (uint64_t)x.count, "algs");
	figi("parse_apply3.moves", x.moves, "moves");
	figi("parse_apply3.bytes", chars, "bytes");
	/* ns per pass → millions of moves per second = moves / ns · 1000 */
	double pa = measure(body_parse_apply, &x);
	fig("parse_apply3.mps", total / pa * 1000, "Mmoves/s");
	double p = measure(body_parse, &x);
	fig("parse3.mps", total / p * 1000, "Mmoves/s");
	double ap = measure(body_apply, &x);
	fig("apply3.mps", total / ap * 1000, "Mmoves/s");
	double si = measure(body_simplify, &x);
	fig("simplify3.mps", total / si * 1000, "Mmoves/s");
	double pr = measure(body_print, &x);
	body_print(&x, 1); /* bytes of one pass */
	fig("print3.mbps", (double)x.bytes / pr * 1000, "MB/s");
done:
	for (int i = 0; i < x.count; i++) {
		free(x.text[i]);
		free(x.pnodes[i]);
	}
	free(x.nodes);
	free(x.mv);
	free(x.out);
	free(x.c);
}

/* ------------------------------------------------------------- solvers */

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* cube_move → the cubie face turn it is (solutions are face turns only). */
static int apply_face_move(cubie3 *c, cube_move m)
{
	static const int face[3][2] = {{1, 4}, {0, 3}, {2, 5}}; /* x y z */
	cubie3 t;
	if (m.axis > 2 || m.lo != m.hi || (m.lo != 0 && m.lo != 2))
		return -1;
	int far = m.lo == 2;
	cubie3_face_turn(face[m.axis][far], far ? 4 - m.qt : m.qt, &t);
	cubie3_compose(c, &t, c);
	return 0;
}

/* The k moves m must solve state i, st: composed onto it as face turns
 * they give the solved cube. who names the solver. */
static void check_solution(const char *who, int i, const cubie3 *st,
			   const cube_move *m, int k)
{
	cubie3 c = *st, id;
	for (int j = 0; j < k; j++)
		if (apply_face_move(&c, m[j]) < 0) {
			fprintf(stderr, "bench: %s: not a face turn\n", who);
			exit(1);
		}
	cubie3_solved(&id);
	if (!cubie3_equal(&c, &id)) {
		fprintf(stderr, "bench: a %s solution of state %d does not solve "
				"it\n", who, i);
		exit(1);
	}
}

/* Median, mean, 99th percentile and maximum of n solve times (ms, sorted
 * in place) and lengths. */
static void solve_figures(const char *name, double *ms, int *moves, int n)
{
	char k[64];
	double sum = 0, msum = 0;
	for (int i = 0; i < n; i++)
		sum += ms[i], msum += moves[i];
	qsort(ms, (size_t)n, sizeof *ms, cmp_double);
	qsort(moves, (size_t)n, sizeof *moves, cmp_int);
	snprintf(k, sizeof k, "%s.ms", name);
	fig(k, ms[n / 2], "ms");
	snprintf(k, sizeof k, "%s.ms.mean", name);
	fig(k, sum / n, "ms");
	snprintf(k, sizeof k, "%s.ms.p99", name);
	fig(k, ms[n * 99 / 100], "ms");
	snprintf(k, sizeof k, "%s.ms.max", name);
	fig(k, ms[n - 1], "ms");
	snprintf(k, sizeof k, "%s.moves", name);
	figi(k, (uint64_t)moves[n / 2], "moves");
	snprintf(k, sizeof k, "%s.moves.mean", name);
	fig(k, msum / n, "moves");
	snprintf(k, sizeof k, "%s.moves.max", name);
	figi(k, (uint64_t)moves[n - 1], "moves");
}

/* Solve every state with the given target; each solution is checked by
 * composing its moves onto the state. */
static void solve_run(const void *tables, const cubie3 *st, int n, int target,
		      const char *name)
{
	double *ms = xmalloc((size_t)n * sizeof *ms);
	int *moves = xmalloc((size_t)n * sizeof *moves);
	solve_limits lim = {0, target, NULL, NULL, 0, 0};
	for (int i = 0; i < n; i++) {
		cube_move m[32];
		uint64_t t0 = now_ns();
		int k = twophase_solve(tables, &st[i], &lim, m, 32);
		ms[i] = (double)(now_ns() - t0) / 1e6;
		if (k < 0)
			die("twophase_solve", k);
		check_solution("twophase_solve", i, &st[i], m, k);
		moves[i] = k;
		sink += (uint64_t)k;
	}
	solve_figures(name, ms, moves, n);
	free(ms);
	free(moves);
}

/* The beginner method on the same states (every answer checked), and
 * solving to the cross (every state) and the first layer (the first 50:
 * tens of ms each) with no budget, so each answer is a proven shortest. */
static void bench_beginner(const cubie3 *st, int n)
{
	size_t size = beginner_table_size();
	unsigned char *t = xmalloc(size);
	uint64_t t0 = now_ns();
	int rc = beginner_table_init(t, size);
	if (rc < 0)
		die("beginner_table_init", rc);
	fig("tables_beginner.ms", (double)(now_ns() - t0) / 1e6, "ms");
	double *ms = xmalloc((size_t)n * sizeof *ms);
	int *moves = xmalloc((size_t)n * sizeof *moves);
	cube_move m[BEGINNER_MAX_MOVES];
	for (int i = 0; i < n; i++) {
		beginner_stage stages[BEGINNER_STAGES];
		t0 = now_ns();
		int k = beginner_solve(t, &st[i], m, BEGINNER_MAX_MOVES, stages);
		ms[i] = (double)(now_ns() - t0) / 1e6;
		if (k < 0)
			die("beginner_solve", k);
		check_solution("beginner_solve", i, &st[i], m, k);
		moves[i] = k;
		sink += (uint64_t)k;
	}
	solve_figures("beginner", ms, moves, n);
	static const struct {
		const char *name;
		int count;
	} targets[] = {{"cross", 1 << 30}, {"first_layer", 50}};
	for (int w = 0; w < 2; w++) {
		int cnt = n < targets[w].count ? n : targets[w].count;
		for (int i = 0; i < cnt; i++) {
			target_spec ts = {.name = targets[w].name};
			target_limits lim = {.max_nodes = (uint64_t)1 << 40};
			target_result res;
			t0 = now_ns();
			int k = target_solve(t, &ts, &st[i], &lim, m,
					     BEGINNER_MAX_MOVES, &res);
			ms[i] = (double)(now_ns() - t0) / 1e6;
			if (k < 0 || !res.optimal)
				die("target_solve", k < 0 ? k : SOLVE_ENOTFOUND);
			moves[i] = k;
			sink += (uint64_t)k;
		}
		char name[32];
		snprintf(name, sizeof name, "target_%s", targets[w].name);
		solve_figures(name, ms, moves, cnt);
	}
	free(ms);
	free(moves);
	free(t);
}

static void bench_solve(const char *states_path)
{
	const char *env = getenv("CUBED_BENCH_SOLVE_N");
	int n = env && atoi(env) > 0 ? atoi(env) : 500;

	size_t size = twophase_table_size();
	unsigned char *t = xmalloc(size), *u = xmalloc(size);
	uint64_t t0 = now_ns();
	int rc = twophase_table_init(t, size, NULL, NULL);
	if (rc < 0)
		die("twophase_table_init", rc);
	fig("tables3.s", (double)(now_ns() - t0) / 1e9, "s");
	fig("tables3.mb", (double)size / 1e6, "MB");
	/* what a restart pays: read the cached file back, check it */
	FILE *f = tmpfile();
	if (!f || fwrite(t, 1, size, f) != size || fflush(f) != 0) {
		fprintf(stderr, "bench: cannot write the tables to a temporary file\n");
		exit(1);
	}
	rewind(f);
	t0 = now_ns();
	if (fread(u, 1, size, f) != size)
		die("reading the tables back", CUBE_EINVAL);
	rc = twophase_table_check(u, size);
	if (rc < 0)
		die("twophase_table_check", rc);
	fig("tables3.load.ms", (double)(now_ns() - t0) / 1e6, "ms");
	fclose(f);
	free(u);

	cube_rng r;
	cube_rng_seed(&r, 20240501);
	cubie3 *st = xmalloc((size_t)n * sizeof *st);
	FILE *out = states_path ? fopen(states_path, "w") : NULL;
	if (states_path && !out) {
		fprintf(stderr, "bench: cannot write %s\n", states_path);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		char fl[54];
		cubie3_random(&r, &st[i]);
		cube3_to_facelets(&st[i], fl);
		if (out)
			fprintf(out, "%.54s\n", fl);
	}
	if (out && fclose(out) != 0) {
		fprintf(stderr, "bench: cannot write %s\n", states_path);
		exit(1);
	}
	figi("solve3.states", (uint64_t)n, "states");
	solve_run(t, st, n, 20, "solve3");     /* the default target */
	solve_run(t, st, n, 21, "solve3.t21"); /* min2phase's setting */
	bench_beginner(st, n);
	free(st);
	free(t);

	size = solve2_table_size();
	t = xmalloc(size);
	t0 = now_ns();
	rc = solve2_table_init(t, size, NULL, NULL);
	if (rc < 0)
		die("solve2_table_init", rc);
	fig("tables2.s", (double)(now_ns() - t0) / 1e9, "s");
	enum { N2 = 10000 };
	cubie2 *s2 = xmalloc(N2 * sizeof *s2);
	double *us = xmalloc(N2 * sizeof *us);
	for (int i = 0; i < N2; i++)
		cubie2_random(&r, &s2[i]);
	for (int i = 0; i < N2; i++) {
		cube_move m[16];
		t0 = now_ns();
		int k = solve2_optimal(t, &s2[i], m, 16);
		us[i] = (double)(now_ns() - t0) / 1e3;
		if (k < 0)
			die("solve2_optimal", k);
		sink += (uint64_t)k;
	}
	qsort(us, N2, sizeof *us, cmp_double);
	fig("solve2.us", us[N2 / 2], "us");
	fig("solve2.us.max", us[N2 - 1], "us");
	free(us);
	free(s2);
	free(t);
}

/* ---- big cubes by reduction --------------------------------------------- */


/* $CUBED_TABLES/name into path (empty when unset); 1 if that file holds
 * size bytes that check accepts, read into t. */
static int cached_tables(const char *name, char *path, size_t pathlen,
			 void *t, size_t size,
			 int (*check)(const void *, size_t))
{
	const char *dir = getenv("CUBED_TABLES");
	path[0] = '\0';
	if (!dir || !*dir)
		return 0;
	snprintf(path, pathlen, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t got = fread(t, 1, size, f);
	fclose(f);
	return got == size && check(t, size) == 0;
}

/* The two-phase tables: $CUBED_TABLES/cubed-tables-3x3.bin when a server
 * cached them there, else built. */
static void *reduce_tables(void)
{
	size_t size = twophase_table_size();
	unsigned char *t = xmalloc(size);
	char path[4096];
	if (cached_tables("cubed-tables-3x3.bin", path, sizeof path, t, size,
			  twophase_table_check))
		return t;
	int rc = twophase_table_init(t, size, NULL, NULL);
	if (rc < 0)
		die("twophase_table_init", rc);
	return t;
}

#if defined(REDUCE_HAVE_FOUR) || defined(REDUCE_HAVE_FIVE)
/* A reduction's phase tables (4×4, 5×5) read from $CUBED_TABLES/file or
 * built (and written there), the build's time printed as name.build_ms. */
typedef int (*tables_build_fn)(void *, size_t, void *, size_t,
			       const reduce_limits *);
static void *phase_tables(const char *file, const char *name, size_t size,
			  size_t ws, tables_build_fn build,
			  int (*check)(const void *, size_t))
{
	unsigned char *t = xmalloc_table(size);
	char path[4096];
	if (cached_tables(file, path, sizeof path, t, size, check))
		return t;
	void *work = xmalloc(ws);
	uint64_t t0 = now_ns();
	int rc = build(t, size, work, ws, NULL);
	if (rc < 0)
		die(name, rc);
	printf("%s.build_ms: %.1f ms\n", name, (double)(now_ns() - t0) / 1e6);
	free(work);
	if (*path) {
		FILE *f = fopen(path, "wb");
		if (f) {
			fwrite(t, 1, size, f);
			fclose(f);
		}
	}
	return t;
}
#endif

/* Random-move states (two WCA-length scrambles from seeded generators)
 * of n = 4 to 10 and 17 (or the one SIZE asked for, any n from 4)
 * solved by reduce_solve: every answer checked
 * by applying it; median moves in STM (moves_metrics: any turn of a block
 * of adjacent layers, "3Rw" or "2-3Lw'", counts 1, a whole-cube rotation
 * 0; reduce_solve emits none), the metric the published figures use;
 * beside it the median counted in layer turns (a block of k layers counts
 * k: the count before block turns were merged), median and largest time
 * per solve (wall and CPU), mean and largest length, and the published
 * averages of the open NxNxN solver with figures for 4×4 to 10×10
 * (dwalton76's) and, where another solver publishes fewer, the best
 * public figure (TPR-4x4x4, cube555). count states per size (17×17: half as
 * many). The staged center search's tables are built first, once (its
 * time printed), and shared by every solve as the server shares them;
 * CUBED_BENCH_OWN_TABLES=1 makes each solve build its own instead, and
 * CUBED_BENCH_EFFORT=2 or 3 solves at that effort (reduce_limits). */
static void bench_reduce(int count, int only)
{
	static const int listed[] = {4, 5, 6, 7, 8, 9, 10, 17};
	static const int pub[] = {72, 99, 156, 214, 326, 389, 543, 0};
	static const double best_pub[] = {44.6, 72, 0, 0, 0, 0, 0, 0};
	int sizes[8], published[8], nsizes = 0;
	double best[8];
	for (size_t si = 0; si < sizeof listed / sizeof *listed; si++) {
		if (only && listed[si] != only)
			continue;
		sizes[nsizes] = listed[si];
		best[nsizes] = best_pub[si];
		published[nsizes++] = pub[si];
	}
	if (!nsizes) { /* any other size asked for */
		sizes[0] = only;
		best[0] = 0;
		published[nsizes++] = 0;
	}
	if (only < 0 || only == 1 || only == 2 || only == 3 ||
	    only > REDUCE_MAX_N)
		die("reduce size", CUBE_ESIZE);
	void *tables = reduce_tables();
	/* the staged-center tables built once and shared by every solve,
	 * as the server does (CUBED_BENCH_OWN_TABLES=1: each solve builds
	 * its own, as before) */
	reduce_limits lim = {.poll = NULL};
#ifdef REDUCE_MAX_EFFORT /* (builds before the effort have none) */
	const char *eff = getenv("CUBED_BENCH_EFFORT");
	lim.effort = eff ? atoi(eff) : 0;
#endif
	/* CUBED_BENCH_FIRST=i starts at the i-th state (bench/reduce_cmp.sh
	 * runs two builds state by state) */
	const char *fst = getenv("CUBED_BENCH_FIRST");
	unsigned first = fst ? (unsigned)atoi(fst) : 0;
	const char *own = getenv("CUBED_BENCH_OWN_TABLES");
	void *stage = NULL;
	if (!own || strcmp(own, "1") != 0) {
		size_t sws = reduce_stage_tables_work_size();
		void *swork = xmalloc(sws);
		stage = xmalloc(reduce_stage_tables_size());
		uint64_t t0 = now_ns();
		int rc = reduce_stage_tables_build(
			stage, reduce_stage_tables_size(), swork, sws, NULL);
		if (rc < 0)
			die("reduce_stage_tables_build", rc);
		printf("reduce_stage_tables.build_ms: %.1f ms\n",
		       (double)(now_ns() - t0) / 1e6);
		free(swork);
		lim.stage_tables = stage;
	}
#ifdef REDUCE_HAVE_FOUR
	/* CUBED_BENCH_FOUR=1: 4×4 by three phases, the tables read from
	 * $CUBED_TABLES/cubed-tables-4x4.bin or built (and written there) */
	const char *fo = getenv("CUBED_BENCH_FOUR");
	void *four = NULL;
	if (fo && strcmp(fo, "1") == 0)
		four = phase_tables("cubed-tables-4x4.bin", "reduce_four_tables",
				    reduce_four_tables_size(),
				    reduce_four_tables_work_size(),
				    reduce_four_tables_build,
				    reduce_four_tables_check);
	lim.four_tables = four;
#endif
#ifdef REDUCE_HAVE_FIVE
	/* CUBED_BENCH_FIVE=1: 5×5 by five phases, likewise
	 * (cubed-tables-5x5.bin) */
	const char *fv = getenv("CUBED_BENCH_FIVE");
	void *five = NULL;
	if (fv && strcmp(fv, "1") == 0)
		five = phase_tables("cubed-tables-5x5.bin", "reduce_five_tables",
				    reduce_five_tables_size(),
				    reduce_five_tables_work_size(),
				    reduce_five_tables_build,
				    reduce_five_tables_check);
	lim.five_tables = five;
#endif
	for (int si = 0; si < nsizes; si++) {
		int n = sizes[si], k = n >= 17 ? (count + 1) / 2 : count;
		double split[REDUCE_STAGES] = {0}, csplit[4] = {0};
		size_t ws = reduce_work_size(n), cap = reduce_max_moves(n);
		void *work = xmalloc(ws);
		cube_move *out = xmalloc(cap * sizeof *out);
		int len = scramble_length(n), solved = 0;
		cube_move *sc = xmalloc((size_t)len * sizeof *sc);
		cube_t *c = new_cube(n), *d = new_cube(n);
		int *moves = xmalloc((size_t)k * sizeof *moves);
		int *layers = xmalloc((size_t)k * sizeof *layers);
		double *ms = xmalloc((size_t)k * sizeof *ms), worst = 0;
		double *cpu = xmalloc((size_t)k * sizeof *cpu), msum = 0;
		int mmax = 0;
		for (int i = 0; i < k; i++) {
			cube_rng r;
			cube_rng_seed(&r, 9100u * (unsigned)n + (unsigned)i +
					      first);
			cube_init(c, n);
			for (int rep = 0; rep < 2; rep++) {
				if (scramble_moves(&r, n, sc, len) != len)
					die("scramble_moves", CUBE_EINVAL);
				cube_apply_moves(c, sc, (size_t)len);
			}
			reduce_result res;
			uint64_t t0 = now_ns(), c0 = cpu_ns();
			int m = reduce_solve(tables, c, &lim, work, ws, out, cap,
					     &res);
			ms[i] = (double)(now_ns() - t0) / 1e6;
			cpu[i] = (double)(cpu_ns() - c0) / 1e6;
			if (ms[i] > worst)
				worst = ms[i];
			moves[i] = layers[i] = m;
			if (m < 0)
				continue;
			alg_metrics am;
			moves_metrics(out, (size_t)m, n, &am);
			moves[i] = (int)am.stm;
			msum += (double)am.stm / k;
			if (moves[i] > mmax)
				mmax = moves[i];
			for (int st = 0; st < REDUCE_STAGES; st++) {
				moves_metrics(out + res.stage[st].start,
					      (size_t)res.stage[st].count, n, &am);
				split[st] += (double)am.stm / k;
			}
			for (int st = 0; st < 4; st++)
				csplit[st] += (double)res.center_steps[st] / k;
			layers[i] = 0;
			for (int j = 0; j < m; j++)
				layers[i] += out[j].hi - out[j].lo + 1;
			cube_copy(d, c);
			cube_apply_moves(d, out, (size_t)m);
			int ok = 1;
			for (int f = 0; f < 6 && ok; f++)
				for (int row = 0; row < n && ok; row++)
					for (int col = 0; col < n && ok; col++)
						ok = cube_get(d, f, row, col) ==
						     cube_get(d, f, 0, 0);
			solved += ok;
			sink += (uint64_t)m;
		}
		qsort(moves, (size_t)k, sizeof *moves, cmp_int);
		qsort(layers, (size_t)k, sizeof *layers, cmp_int);
		char name[64];
		snprintf(name, sizeof name, "reduce_%dx%d_solved", n, n);
		printf("%s: %d/%d states\n", name, solved, k);
		snprintf(name, sizeof name, "reduce_%dx%d_moves_median", n, n);
		figi(name, (uint64_t)(moves[k / 2] < 0 ? 0 : moves[k / 2]),
		     "moves");
		snprintf(name, sizeof name, "reduce_%dx%d_layer_turns_median", n,
			 n);
		figi(name, (uint64_t)(layers[k / 2] < 0 ? 0 : layers[k / 2]),
		     "moves");
		if (published[si]) {
			snprintf(name, sizeof name,
				 "reduce_%dx%d_moves_published", n, n);
			figi(name, (uint64_t)published[si], "moves");
		}
		if (best[si] > 0) {
			snprintf(name, sizeof name,
				 "reduce_%dx%d_moves_best_public", n, n);
			fig(name, best[si], "moves");
		}
		/* one figure per line, as everywhere: the mean STM moves of
		 * each stage, and of the staged center search's four steps */
		for (int st = 0; st < REDUCE_STAGES; st++) {
			snprintf(name, sizeof name, "reduce_%dx%d_mean.%s", n,
				 n, reduce_stage_name(st));
			fig(name, split[st], "moves");
		}
		/* (only the sizes whose centers the staged search solves) */
		for (int st = 0; st < 4; st++) {
			if (csplit[0] + csplit[1] + csplit[2] + csplit[3] == 0)
				break;
			snprintf(name, sizeof name,
				 "reduce_%dx%d_mean.centers_step%d", n, n,
				 st + 1);
			fig(name, csplit[st], "moves");
		}
		snprintf(name, sizeof name, "reduce_%dx%d_ms_median", n, n);
		fig(name, median(ms, k), "ms");
		snprintf(name, sizeof name, "reduce_%dx%d_ms_max", n, n);
		fig(name, worst, "ms");
		snprintf(name, sizeof name, "reduce_%dx%d_cpu_ms_median", n, n);
		fig(name, median(cpu, k), "ms");
		snprintf(name, sizeof name, "reduce_%dx%d_moves_mean", n, n);
		fig(name, msum, "moves");
		snprintf(name, sizeof name, "reduce_%dx%d_moves_max", n, n);
		figi(name, (uint64_t)mmax, "moves");
		free(ms);
		free(cpu);
		free(moves);
		free(layers);
		free(d);
		free(c);
		free(sc);
		free(out);
		free(work);
	}
	free(stage);
	free(tables);
}


int main(int argc, char **argv)
{
	int orc = bench_optimal_main(argc, argv);
	if (orc == 2)
		fprintf(stderr, "%s: %s: a level from 0 to %d, and counts and "
				"threads of at least 1\n",
			argv[0], argv[1], OPTIMAL_LEVELS - 1);
	if (orc >= 0)
		return orc;
	if (argc == 3 && strcmp(argv[1], "--parse-apply") == 0) {
		bench_algs(NULL, argv[2]);
		return 0;
	}
	if (argc <= 3 && argc >= 2 && strcmp(argv[1], "--solve") == 0) {
		bench_solve(argc == 3 ? argv[2] : NULL);
		return 0;
	}
	if (argc <= 4 && argc >= 2 && strcmp(argv[1], "--reduce") == 0) {
		bench_reduce(argc >= 3 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 20,
			     argc == 4 ? atoi(argv[3]) : 0);
		return 0;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [ALGS_FILE]\n"
				"       %s --parse-apply ALGS_FILE\n"
				"       %s --solve [STATES_FILE]\n"
				"       %s --reduce [COUNT [SIZE]]\n"
				"       %s --optimal LEVEL [N [THREADS [STATES_OUT]]]\n"
				"       %s --twenty [N [STATES_OUT]]\n"
				"       %s --near LEVELS [N]\n"
				"       %s --superflip LEVEL\n",
			argv[0], argv[0], argv[0], argv[0], argv[0], argv[0],
			argv[0], argv[0]);
		return 2;
	}
	bench_turn3();
	bench_turnn();
	bench_index3();
	bench_match3();
	bench_algs(argc > 1 ? argv[1] : NULL, NULL);
	char states[4096];
	if (argc > 1)
		snprintf(states, sizeof states, "%s.cubes3", argv[1]);
	bench_solve(argc > 1 ? states : NULL);
	printf("checksum: %llu hash\n", (unsigned long long)(sink & 0xffff));
	return 0;
}
