/* check_alg.c — move notation (core/alg.c): golden files for printing,
 * metrics and errors with offsets; laws that tie the printers to the
 * engine (reparsing canonical, inverse, expanded and simplified text gives
 * the same or the inverse state); limits and buffer sizes. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "golden.h"
#include "suites.h"

/* A parsed algorithm with its own node buffer. */
struct parsed {
	alg_t a;
	alg_node *nodes;
	alg_error err;
	int rc;
};

static void parse(struct parsed *p, int n, const char *s,
		  const alg_limits *lim)
{
	size_t len = strlen(s), cap = alg_nodes_needed(len);
	p->nodes = malloc(cap * sizeof *p->nodes);
	ck_assert_ptr_nonnull(p->nodes);
	p->rc = alg_parse(&p->a, p->nodes, cap, n, s, len, lim, &p->err);
}

static void parse_ok(struct parsed *p, int n, const char *s)
{
	parse(p, n, s, NULL);
	ck_assert_msg(p->rc == CUBE_OK, "n=%d \"%s\": %s at %zu", n, s,
		      cube_errname(p->rc), p->err.offset);
}

static char *print_with(size_t (*fn)(const alg_t *, char *, size_t),
			const alg_t *a)
{
	size_t need = fn(a, NULL, 0);
	char *s = malloc(need + 1);
	ck_assert_uint_eq(fn(a, s, need + 1), need);
	ck_assert_uint_eq(strlen(s), need);
	return s;
}

static char *expanded(const alg_t *a, int inverse)
{
	size_t need = alg_print_expanded(a, inverse, NULL, 0);
	char *s = malloc(need + 1);
	alg_print_expanded(a, inverse, s, need + 1);
	return s;
}

static char *simplified(const alg_t *a)
{
	cube_move *m = malloc((a->length + 1) * sizeof *m);
	int64_t k = alg_expand(a, 0, m, a->length);
	ck_assert_int_eq(k, (int64_t)a->length);
	size_t c = moves_simplify(m, (size_t)k);
	size_t need = moves_print(m, c, a->n, NULL, 0);
	char *s = malloc(need + 1);
	moves_print(m, c, a->n, s, need + 1);
	free(m);
	return s;
}

static cube_t *state_of(int n, const char *moves, int inverse)
{
	struct parsed p;
	parse_ok(&p, n, moves);
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	ck_assert_int_eq(alg_apply(&p.a, c, inverse), CUBE_OK);
	free(p.nodes);
	return c;
}

START_TEST(notation_goldens)
{
	struct golden_case *gc;
	int count = golden_load("notation.txt", &gc);
	ck_assert_int_ge(count, 30);
	for (int k = 0; k < count; k++) {
		ck_assert_int_eq(gc[k].nfields, 6);
		int n = atoi(gc[k].field[0]);
		const char *in = gc[k].field[1];
		struct parsed p;
		parse_ok(&p, n, in);
		char *can = print_with(alg_print_canonical, &p.a);
		char *inv = print_with(alg_print_inverse, &p.a);
		char *simp = simplified(&p.a);
		alg_metrics m;
		alg_metrics_of(&p.a, &m);
		char met[128];
		snprintf(met, sizeof met, "%llu %llu %llu %llu %llu",
			 (unsigned long long)m.moves, (unsigned long long)m.htm,
			 (unsigned long long)m.qtm, (unsigned long long)m.stm,
			 (unsigned long long)m.etm);
		ck_assert_msg(strcmp(can, gc[k].field[2]) == 0,
			      "line %d canonical: got \"%s\"", gc[k].line, can);
		ck_assert_msg(strcmp(inv, gc[k].field[3]) == 0,
			      "line %d inverse: got \"%s\"", gc[k].line, inv);
		ck_assert_msg(strcmp(simp, gc[k].field[4]) == 0,
			      "line %d simplified: got \"%s\"", gc[k].line, simp);
		ck_assert_msg(strcmp(met, gc[k].field[5]) == 0,
			      "line %d metrics: got \"%s\"", gc[k].line, met);
		/* The metrics of the tree equal those of the expansion. */
		cube_move *mv = malloc((p.a.length + 1) * sizeof *mv);
		alg_expand(&p.a, 0, mv, p.a.length);
		alg_metrics m2;
		moves_metrics(mv, p.a.length, n, &m2);
		ck_assert(memcmp(&m, &m2, sizeof m) == 0);
		free(mv);
		free(can);
		free(inv);
		free(simp);
		free(p.nodes);
	}
	golden_free(gc, count);
}
END_TEST

START_TEST(error_goldens)
{
	struct golden_case *gc;
	int count = golden_load("notation_errors.txt", &gc);
	ck_assert_int_ge(count, 40);
	for (int k = 0; k < count; k++) {
		ck_assert_int_eq(gc[k].nfields, 4);
		int n = atoi(gc[k].field[0]);
		struct parsed p;
		parse(&p, n, gc[k].field[1], NULL);
		ck_assert_msg(p.rc < 0, "line %d: \"%s\" parsed", gc[k].line,
			      gc[k].field[1]);
		ck_assert_msg(strcmp(cube_errname(p.rc), gc[k].field[2]) == 0 &&
				      p.err.offset ==
					      (size_t)atol(gc[k].field[3]),
			      "line %d: \"%s\" gave %s at %zu, want %s at %s",
			      gc[k].line, gc[k].field[1], cube_errname(p.rc),
			      p.err.offset, gc[k].field[2], gc[k].field[3]);
		ck_assert_int_eq(p.err.code, p.rc);
		free(p.nodes);
	}
	golden_free(gc, count);
}
END_TEST

/* Every golden input: reparsing what the printers wrote gives the same
 * state (canonical, expanded, simplified) or the inverse state (inverse),
 * and canonical printing is a fixed point. */
static void check_printer_laws(int n, const char *in)
{
	struct parsed p;
	parse_ok(&p, n, in);
	cube_t *want = state_of(n, in, 0);
	cube_t *want_inv = state_of(n, in, 1);
	char *can = print_with(alg_print_canonical, &p.a);
	char *inv = print_with(alg_print_inverse, &p.a);
	char *exp = expanded(&p.a, 0);
	char *simp = simplified(&p.a);

	cube_t *c = state_of(n, can, 0);
	ck_assert_msg(cube_equal(c, want), "canonical of \"%s\"", in);
	free(c);
	c = state_of(n, exp, 0);
	ck_assert_msg(cube_equal(c, want), "expanded of \"%s\"", in);
	free(c);
	c = state_of(n, simp, 0);
	ck_assert_msg(cube_equal(c, want), "simplified of \"%s\"", in);
	free(c);
	c = state_of(n, inv, 0);
	ck_assert_msg(cube_equal(c, want_inv), "inverse of \"%s\"", in);
	free(c);

	struct parsed q;
	parse_ok(&q, n, can);
	char *can2 = print_with(alg_print_canonical, &q.a);
	ck_assert_str_eq(can, can2);
	ck_assert_uint_eq(q.a.length, p.a.length);
	free(q.nodes);
	parse_ok(&q, n, exp);
	ck_assert_uint_eq(q.a.length, p.a.length);
	free(q.nodes);

	/* The expansion of the inverse is the reversed, inverted expansion. */
	cube_move *f = malloc((p.a.length + 1) * sizeof *f);
	cube_move *b = malloc((p.a.length + 1) * sizeof *b);
	alg_expand(&p.a, 0, f, p.a.length);
	alg_expand(&p.a, 1, b, p.a.length);
	for (uint64_t k = 0; k < p.a.length; k++) {
		cube_move x = f[k], y = b[p.a.length - 1 - k];
		ck_assert_int_eq(x.axis, y.axis);
		ck_assert_int_eq(x.lo, y.lo);
		ck_assert_int_eq(x.hi, y.hi);
		ck_assert_int_eq((x.qt + y.qt) & 3, 0);
	}
	free(f);
	free(b);
	free(can2);
	free(can);
	free(inv);
	free(exp);
	free(simp);
	free(want);
	free(want_inv);
	free(p.nodes);
}

START_TEST(printer_laws)
{
	struct golden_case *gc;
	int count = golden_load("notation.txt", &gc);
	for (int k = 0; k < count; k++)
		check_printer_laws(atoi(gc[k].field[0]), gc[k].field[1]);
	golden_free(gc, count);
	count = golden_load("facelets3_cubejs.txt", &gc);
	for (int k = 0; k < count; k++)
		check_printer_laws(3, gc[k].field[0]);
	golden_free(gc, count);
}
END_TEST

START_TEST(nesting_limit)
{
	char buf[400];
	size_t k = 0;
	for (int d = 0; d < ALG_MAX_DEPTH; d++)
		buf[k++] = '(';
	buf[k++] = 'R';
	for (int d = 0; d < ALG_MAX_DEPTH; d++)
		buf[k++] = ')';
	buf[k] = '\0';
	struct parsed p;
	parse_ok(&p, 3, buf); /* exactly the limit */
	ck_assert_uint_eq(p.a.length, 1);
	free(p.nodes);

	memmove(buf + 1, buf, k + 1);
	buf[0] = '[';
	strcat(buf, ", U]");
	parse(&p, 3, buf, NULL);
	ck_assert_int_eq(p.rc, ALG_EDEEP);
	ck_assert_uint_eq(p.err.offset, ALG_MAX_DEPTH);
	free(p.nodes);

	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_depth = 2;
	parse(&p, 3, "((R))", &lim);
	ck_assert_int_eq(p.rc, CUBE_OK);
	free(p.nodes);
	parse(&p, 3, "(([R, U]))", &lim);
	ck_assert_int_eq(p.rc, ALG_EDEEP);
	ck_assert_uint_eq(p.err.offset, 2);
	free(p.nodes);
}
END_TEST

START_TEST(move_and_work_limits)
{
	alg_limits lim;
	alg_limits_default(&lim);
	ck_assert_uint_eq(lim.max_moves, 100000);
	lim.max_moves = 10;
	struct parsed p;
	parse(&p, 3, "R U R U R U R U R U", &lim);
	ck_assert_int_eq(p.rc, CUBE_OK);
	free(p.nodes);
	parse(&p, 3, "R U R U R U R U R U R", &lim);
	ck_assert_int_eq(p.rc, ALG_ELONG);
	ck_assert_uint_eq(p.err.offset, 0);
	free(p.nodes);
	/* pauses are free */
	parse(&p, 3, "R . . . . . . . . . . U", &lim);
	ck_assert_int_eq(p.rc, CUBE_OK);
	free(p.nodes);

	/* Work: a 3×3 face turn moves 12 stickers; a 4×4 x moves 4 layers·16. */
	alg_limits_default(&lim);
	lim.max_work = 24;
	parse(&p, 3, "R U", &lim);
	ck_assert_int_eq(p.rc, CUBE_OK);
	ck_assert_uint_eq(p.a.work, 24);
	free(p.nodes);
	parse(&p, 3, "R U F", &lim);
	ck_assert_int_eq(p.rc, ALG_EWORK);
	free(p.nodes);
	lim.max_work = 0;
	parse(&p, 4, "x", &lim);
	ck_assert_uint_eq(p.a.work, 64);
	free(p.nodes);

	/* A huge product saturates rather than wrapping. */
	alg_limits_default(&lim);
	parse(&p, 3, "((((R)1000000)1000000)1000000)1000000", &lim);
	ck_assert_int_eq(p.rc, ALG_ELONG);
	free(p.nodes);
}
END_TEST

START_TEST(buffers)
{
	alg_node nodes[3];
	alg_t a;
	alg_error e;
	/* root + 2 nodes fit, a third does not */
	ck_assert_int_eq(alg_parse(&a, nodes, 3, 3, "R U", 3, NULL, &e),
			 CUBE_OK);
	ck_assert_int_eq(alg_parse(&a, nodes, 3, 3, "R U F", 5, NULL, &e),
			 CUBE_ESPACE);
	ck_assert_int_eq(alg_parse(&a, nodes, 3, 0, "R", 1, NULL, &e),
			 CUBE_ESIZE);
	ck_assert_int_eq(alg_parse(&a, nodes, 3, 1025, "R", 1, NULL, &e),
			 CUBE_ESIZE);

	struct parsed p;
	parse_ok(&p, 3, "R U R'");
	char out[4];
	ck_assert_uint_eq(alg_print_canonical(&p.a, out, sizeof out), 6);
	ck_assert_str_eq(out, "R U");
	cube_move m[2];
	ck_assert_int_eq(alg_expand(&p.a, 0, m, 2), CUBE_ESPACE);
	cube_t *c = malloc(cube_sizeof(4));
	cube_init(c, 4);
	ck_assert_int_eq(alg_apply(&p.a, c, 0), CUBE_EINVAL); /* wrong n */
	ck_assert_int_eq(cube_is_solved(c), 1);
	free(c);
	free(p.nodes);
}
END_TEST

START_TEST(token_reports)
{
	struct parsed p;
	parse(&p, 3, "R U Qx F", NULL);
	ck_assert_int_eq(p.rc, ALG_ETOKEN);
	ck_assert_uint_eq(p.err.byte_offset, 4);
	ck_assert_uint_eq(p.err.token_len, 2);
	free(p.nodes);
	parse(&p, 3, "R 4Rw2 U", NULL);
	ck_assert_int_eq(p.rc, ALG_ELAYER);
	ck_assert_uint_eq(p.err.offset, 2);
	ck_assert_uint_eq(p.err.token_len, 4);
	free(p.nodes);
}
END_TEST

/* Found by fuzz_alg: a layer prefix ending the input ("2", "R 3") made
 * the family lookup read one byte past it. The text sits in a buffer of
 * exactly its length so that ASan can see such a read; gcc happens to
 * move the load below the length check, so the clang build of `make
 * fuzz` (which replays tests/fuzz/regress/alg) is the one that caught
 * it. */
START_TEST(prefix_at_end)
{
	static const struct {
		const char *s;
		size_t offset, token_len;
	} cases[] = {
		{"2", 0, 1}, {"R 3", 2, 1}, {"2-4", 0, 3}, {"R2 3-", 3, 2},
		{"x 12", 2, 2},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		size_t len = strlen(cases[k].s);
		char *exact = malloc(len);
		ck_assert_ptr_nonnull(exact);
		memcpy(exact, cases[k].s, len);
		alg_node nodes[8];
		alg_t a;
		alg_error e;
		ck_assert_int_eq(alg_parse(&a, nodes, 8, 5, exact, len, NULL, &e),
				 ALG_ETOKEN);
		ck_assert_uint_eq(e.offset, cases[k].offset);
		ck_assert_uint_eq(e.token_len, cases[k].token_len);
		free(exact);
	}
}
END_TEST

/* Found by fuzz_alg (a timeout): brackets without moves, repeated, were
 * accepted (no moves to count against the limit) and then walked
 * repetition by repetition — "((()1000000)1000000)" ran for hours in
 * alg_apply. The walk is now bounded like the moves; real algorithms,
 * however deeply nested, are not affected. */
START_TEST(empty_brackets_repeated)
{
	static const char *const refused[] = {
		"((()1000000)1000000)",
		"((.)1000000)1000000",
		"[[., .]1000000: ()]1000000",
		"R ((. .)1000000)1000000 U",
	};
	for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
		struct parsed p;
		parse(&p, 3, refused[k], NULL);
		ck_assert_msg(p.rc == ALG_ELONG, "%s: %s", refused[k],
			      cube_errname(p.rc));
		free(p.nodes);
	}
	static const char *const accepted[] = {
		"(()1000000)",
		"((((((((((R))))))))))100000",
		"(R . . . . . . . . . . . . . . . . . . . .)100000",
		"[R, U]25000",
	};
	for (size_t k = 0; k < sizeof accepted / sizeof accepted[0]; k++) {
		struct parsed p;
		parse_ok(&p, 3, accepted[k]);
		cube_t *c = malloc(cube_sizeof(3));
		cube_init(c, 3);
		ck_assert_int_eq(alg_apply(&p.a, c, 0), CUBE_OK);
		free(c);
		free(p.nodes);
	}
	/* Found by fuzz_alg too: each repetition of a commutator walks its
	 * four parts, a conjugate's its three, and the steps count them.
	 * With 20,000 moves allowed at depth 64 a walk may take 1,300,000
	 * steps (plus one per byte): "[,]1000000" takes 4,000,001 (counted
	 * as 1,000,001 before, and walked for seconds), "[:]400000"
	 * 1,200,001, "[,]300000" 1,200,001, "()1000000" 1,000,001. */
	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_moves = 20000;
	static const struct {
		const char *s;
		int rc;
	} walk[] = {{"[,]1000000", ALG_ELONG}, {"[:]1000000", ALG_ELONG},
		    {"[,]300000", CUBE_OK},    {"[:]400000", CUBE_OK},
		    {"()1000000", CUBE_OK}};
	for (size_t k = 0; k < sizeof walk / sizeof walk[0]; k++) {
		struct parsed p;
		parse(&p, 3, walk[k].s, &lim);
		ck_assert_msg(p.rc == walk[k].rc, "%s: %s", walk[k].s,
			      cube_errname(p.rc));
		free(p.nodes);
	}
}
END_TEST

START_TEST(group_laws)
{
	const char *identities[][2] = {
		{"3", "(R U)105"},
		{"3", "(R U R' U')6"},
		{"4", "(R U R' U')6"},
		{"5", "(x y)3"}, {"6", "(3Rw 3Uw)105"},
		{"3", "[R, U] [U, R]"},
		{"3", "[R U: F2] [R U: F2']"},
	};
	for (size_t k = 0; k < sizeof identities / sizeof identities[0];
	     k++) {
		int n = atoi(identities[k][0]);
		cube_t *c = state_of(n, identities[k][1], 0);
		ck_assert_msg(cube_is_solved(c), "%s on %d", identities[k][1],
			      n);
		free(c);
	}
	/* (R U)k is not solved for any k < 105 */
	cube_t *c = malloc(cube_sizeof(3));
	cube_init(c, 3);
	for (int k = 1; k < 105; k++) {
		cube_turn(c, CUBE_X, 0, 0, 1);
		cube_turn(c, CUBE_Y, 0, 0, 1);
		ck_assert(!cube_is_solved(c));
	}
	free(c);
}
END_TEST

/* alg_apply reads runs of sibling moves as arrays (alg_node.run); walking
 * the tree move by move (alg_expand) must give the same state, forward and
 * inverted. */
static void apply_agrees_with_expand(const struct parsed *p, int n)
{
	cube_t *c = malloc(cube_sizeof(n)), *d = malloc(cube_sizeof(n));
	cube_move *m = malloc((p->a.length + 1) * sizeof *m);
	for (int inv = 0; inv < 2; inv++) {
		cube_init(c, n);
		cube_init(d, n);
		ck_assert_int_eq(alg_apply(&p->a, c, inv), CUBE_OK);
		int64_t k = alg_expand(&p->a, inv, m, p->a.length);
		ck_assert_int_eq(k, (int64_t)p->a.length);
		ck_assert_int_eq(cube_apply_moves(d, m, (size_t)k), CUBE_OK);
		ck_assert_msg(cube_equal(c, d), "n=%d inverse=%d: alg_apply "
			      "and alg_expand disagree", n, inv);
	}
	free(m);
	free(d);
	free(c);
}

/* Runs longer than a uint16 are split; both ends of each piece hold its
 * length, and bracketed units between moves end a run. */
START_TEST(long_runs)
{
	static const char *const tok[] = {"R", "U'", "F2", "Lw", "D3", "x",
					  "B'", "M2'"};
	enum { MOVES = 140000 };
	char *s = malloc(MOVES * 4 + 64);
	size_t len = 0;
	uint32_t r = 12345;
	for (int i = 0; i < MOVES; i++) {
		r = r * 1103515245u + 12345u;
		len += (size_t)sprintf(s + len, "%s ", tok[(r >> 16) % 8]);
		if (i == 70000)
			len += (size_t)sprintf(s + len, "(R U)2 ");
	}
	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_moves = 1u << 20;
	struct parsed p;
	parse(&p, 3, s, &lim);
	ck_assert_int_eq(p.rc, CUBE_OK);
	ck_assert_uint_eq(p.a.length, MOVES + 4);
	/* the top level: ids 1 .. 70001 are moves, 70002..70003 the group's
	 * body, 70004 the group, then moves again */
	const alg_node *nd = p.a.nodes;
	ck_assert_int_eq(nd[1].run, UINT16_MAX);
	ck_assert_int_eq(nd[UINT16_MAX].run, UINT16_MAX);
	ck_assert_int_eq(nd[2].run, 0);
	ck_assert_int_eq(nd[UINT16_MAX + 1].run, 70001 - UINT16_MAX);
	ck_assert_int_eq(nd[70001].run, 70001 - UINT16_MAX);
	ck_assert_int_eq(nd[70002].run, 2);
	ck_assert_int_eq(nd[70003].run, 2);
	ck_assert_int_eq(nd[70004].kind, ALG_GROUP);
	ck_assert_int_eq(nd[70005].run, UINT16_MAX);
	apply_agrees_with_expand(&p, 3);
	free(p.nodes);
	free(s);
}
END_TEST

/* Plain moves far from the end take the parser's fast path, the last few
 * bytes and anything after tabs, newlines or comments the general one:
 * every token reads the same either way, and every separator is honoured. */
START_TEST(fast_path_agrees)
{
	static const char *const tok[] = {
		"R", "U2", "F'", "D2'", "L3", "B9'", "Rw", "Uw2", "Fw'", "r",
		"l2'", "M", "E'", "S2", "x", "y'", "z2", "Rv", "Dv'", "R0",
	};
	for (size_t t = 0; t < sizeof tok / sizeof *tok; t++) {
		char alone[16], padded[64];
		snprintf(alone, sizeof alone, "%s", tok[t]);
		snprintf(padded, sizeof padded, "%s                ", tok[t]);
		struct parsed a, b;
		parse_ok(&a, 5, alone);
		parse_ok(&b, 5, padded);
		ck_assert_int_eq(a.a.count, 2);
		ck_assert_int_eq(b.a.count, 2);
		const alg_node *x = &a.a.nodes[1], *y = &b.a.nodes[1];
		ck_assert_msg(x->family == y->family && x->axis == y->axis &&
			      x->qt == y->qt && x->lo == y->lo &&
			      x->hi == y->hi && x->amount == y->amount &&
			      x->offset == y->offset && x->run == 1 &&
			      y->run == 1 && x->next == -1 && y->next == -1,
			      "\"%s\" parses differently", tok[t]);
		free(a.nodes);
		free(b.nodes);
	}
	/* separators of every kind, tight brackets and comments */
	const char *mixed = "R U\tF\nD2 // note\n  L' [R U, F'] [R: U2]2 "
			    "(R U R' U')3' . R2' Uw  B  (F)2 x y";
	struct parsed p;
	parse_ok(&p, 3, mixed);
	ck_assert_uint_eq(p.a.length, 4 + 1 + 6 + 6 + 12 + 3 + 2 + 2);
	apply_agrees_with_expand(&p, 3);
	cube_t *c = state_of(3, mixed, 0), *d = state_of(3,
		"R U F D2 L' R U F' U' R' F R U2 R' R U2 R' "
		"U R U' R' U R U' R' U R U' R' R2' Uw B F F x y", 0);
	ck_assert(cube_equal(c, d));
	free(c);
	free(d);
	free(p.nodes);
	/* what the fast path must leave to the general one, with the
	 * general one's error and offset */
	static const struct {
		const char *s;
		int code;
		size_t offset;
	} bad[] = {
		{"R U F R22 U F D L B R U F D L B", CUBE_OK, 0},
		{"R U F RU F D L B R U F D L B", ALG_ETOKEN, 6},
		{"R U F R(U) F D L B R U F D L B", ALG_ESPACE, 7},
		{"R U F Mw F D L B R U F D L B", ALG_ETOKEN, 6},
		{"R U F 3R F D L B R U F D L B", CUBE_OK, 0},
		{"R U F R'2 F D L B R U F D L B", ALG_ESPACE, 8},
		{"R U F R2'' F D L B R U F D L B", ALG_ESPACE, 9},
		{"R U F R# F D L B R U F D L B", ALG_ESPACE, 7},
		{"R U F R/ F D L B R U F D L B", ALG_ESPACE, 7},
	};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		struct parsed q;
		parse(&q, 3, bad[k].s, NULL);
		ck_assert_msg(q.rc == bad[k].code, "\"%s\": %s, want %s",
			      bad[k].s, cube_errname(q.rc),
			      cube_errname(bad[k].code));
		if (bad[k].code)
			ck_assert_msg(q.err.offset == bad[k].offset,
				      "\"%s\": offset %zu, want %zu",
				      bad[k].s, q.err.offset, bad[k].offset);
		free(q.nodes);
	}
	/* trailing spaces to the very end of a buffer of its own (no NUL:
	 * under ASan a read past it fails) */
	static const char tail[] = " R2           ";
	char *exact = malloc(sizeof tail - 1);
	memcpy(exact, tail, sizeof tail - 1);
	alg_node nodes[16];
	alg_t t;
	ck_assert_int_eq(alg_parse(&t, nodes, 16, 3, exact, sizeof tail - 1,
				   NULL, NULL),
			 CUBE_OK);
	ck_assert_uint_eq(t.length, 1);
	free(exact);
	/* M on an even cube, and amounts past a low limit: refused where
	 * they stand */
	struct parsed q;
	parse(&q, 4, "R U F R U F M R U F R U F R U F", NULL);
	ck_assert_int_eq(q.rc, ALG_EEVEN);
	ck_assert_uint_eq(q.err.offset, 12);
	free(q.nodes);
	alg_limits lim;
	alg_limits_default(&lim);
	lim.max_amount = 2;
	parse(&q, 3, "R U F R2 U F R3 U F R U F R U F", &lim);
	ck_assert_int_eq(q.rc, ALG_EREPEAT);
	ck_assert_uint_eq(q.err.offset, 14);
	free(q.nodes);
}
END_TEST

/* Parallel turns merged into blocks: the exact text for known lists (the
 * list simplified first, as the solvers do), and for random lists of few
 * axes the merged list is never longer and gives the same state. */
static char *merged(int n, const char *in, size_t *count, size_t *before)
{
	struct parsed p;
	parse_ok(&p, n, in);
	cube_move *m = malloc((p.a.length + 1) * sizeof *m);
	ck_assert_int_eq(alg_expand(&p.a, 0, m, p.a.length),
			 (int64_t)p.a.length);
	*before = moves_simplify(m, (size_t)p.a.length);
	*count = moves_merge_blocks(m, *before, n);
	size_t need = moves_print(m, *count, n, NULL, 0);
	char *s = malloc(need + 1);
	moves_print(m, *count, n, s, need + 1);
	free(m);
	free(p.nodes);
	return s;
}

/* The fewest block turns of one axis with the net amounts of m's moves
 * on every layer (every move in m on one axis), by trying every split of
 * the points where the amount changes into parts that sum to 0: a part
 * of s points takes s - 1 blocks. Or count when the moves themselves are
 * fewer; (size_t)-1 where that is not the answer's count: a part {0, n}
 * is a whole-cube rotation, which the merge makes only when m held one
 * (else two blocks). */
static size_t fewest_blocks(const cube_move *m, size_t count, int n)
{
	int dq[CUBE_MAX_N + 1] = {0}, had_rotation = 0;
	for (size_t k = 0; k < count; k++) {
		had_rotation |= m[k].lo == 0 && m[k].hi == n - 1;
		dq[m[k].lo] = (dq[m[k].lo] + m[k].qt) & 3;
		dq[m[k].hi + 1] = (dq[m[k].hi + 1] + 4 - (m[k].qt & 3)) & 3;
	}
	int d[2 * 40], k = 0, whole = dq[0] && dq[n];
	for (int p = 0; p <= n; p++)
		if (dq[p])
			d[k++] = dq[p];
	if (k > 16 || (whole && !had_rotation))
		return (size_t)-1;
	if (count == 1) /* a lone move is left as it is, even a 0 turn */
		return 1;
	/* most[mask]: the most parts summing to 0 that mask's points split
	 * into, counting a last part that does not (the usual trick: each
	 * ordering's prefixes that sum to 0) */
	static signed char most[1 << 16];
	most[0] = 0;
	for (int mask = 1; mask < 1 << k; mask++) {
		int sum = 0, best = 0;
		for (int i = 0; i < k; i++)
			if (mask >> i & 1) {
				sum += d[i];
				if (most[mask ^ 1 << i] > best)
					best = most[mask ^ 1 << i];
			}
		most[mask] = (signed char)(best + ((sum & 3) == 0));
	}
	size_t fewest = (size_t)(k - most[(1 << k) - 1]);
	return fewest < count ? fewest : count;
}

START_TEST(merge_blocks)
{
	static const struct {
		int n;
		const char *in, *want;
	} cases[] = {
		{4, "R 2R", "Rw"},
		{5, "2R 3R", "2-3Rw"},
		{5, "3R 2R", "2-3Rw"},
		{4, "R 2R'", "R 2R'"},
		{4, "R U 2R", "R U 2R"},
		{4, "Rw 2R'", "R"},
		{6, "R 2R 3R2", "Rw 3R2"},
		{7, "2L 3L 2R 3R", "2-3Rw 2-3Lw"},
		{7, "R 2R 3R 3R'", "Rw"},
		{5, "U 2U D", "Uw D"},
		/* all four layers: a rotation, which it must not invent */
		{4, "R 2R 3R L'", "3Rw L'"},
		/* a rotation given stays what it was when nothing is gained */
		{4, "x 2R'", "x 2R'"},
		{4, "F' 2F' 3F' B", "3Fw' B"},
		{4, "R2 2R2 U 3U 2U", "Rw2 3Uw"},
		/* two overlapping blocks where the stretches of one amount
		 * take three */
		{5, "U 3U 2U2", "Uw 2-3Uw"},
		{6, "R 2R 3R 4R2 5R", "4Rw 2-3Lw'"},
		{6, "R 3R'", "R 3R'"},
		{5, "U 3U D 2U", "3Uw D"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t count, before;
		char *s = merged(cases[i].n, cases[i].in, &count, &before);
		ck_assert_msg(strcmp(s, cases[i].want) == 0,
			      "%d \"%s\": got \"%s\", want \"%s\"",
			      cases[i].n, cases[i].in, s, cases[i].want);
		ck_assert_uint_le(count, before);
		cube_t *a = state_of(cases[i].n, cases[i].in, 0);
		cube_t *b = state_of(cases[i].n, s, 0);
		ck_assert_msg(cube_equal(a, b), "\"%s\" moved", cases[i].in);
		free(a);
		free(b);
		free(s);
	}

	uint64_t x = 88172645463325252ull;
	for (int t = 0; t < 2000; t++) {
		int n = 2 + t % 9, len = 1 + t % 40;
		cube_move m[40], orig[40];
		for (int k = 0; k < len; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int lo = (int)(x % (uint64_t)n),
			    hi = lo + (int)((x >> 8) % (uint64_t)(n - lo));
			if ((x >> 16) % 3)
				hi = lo;
			cube_move mv = {(uint8_t)((x >> 20) % (t % 3 + 1)),
					(uint8_t)((x >> 24) % 4), (uint16_t)lo,
					(uint16_t)hi};
			m[k] = orig[k] = mv;
		}
		size_t c = moves_merge_blocks(m, (size_t)len, n);
		ck_assert_uint_le(c, (size_t)len);
		size_t fewest = t % 3 == 0 /* one axis: a single run */
					? fewest_blocks(orig, (size_t)len, n)
					: (size_t)-1;
		ck_assert_msg(fewest == (size_t)-1 || c == fewest,
			      "random list %d: %zu moves, %zu would do", t, c,
			      fewest);
		cube_t *a = malloc(cube_sizeof(n)), *b = malloc(cube_sizeof(n));
		cube_init(a, n);
		cube_init(b, n);
		ck_assert_int_eq(cube_apply_moves(a, orig, (size_t)len), CUBE_OK);
		ck_assert_int_eq(cube_apply_moves(b, m, c), CUBE_OK);
		ck_assert_msg(cube_equal(a, b), "random list %d moved", t);
		free(a);
		free(b);
	}
}
END_TEST

Suite *alg_suite(void)
{
	Suite *s = suite_create("alg");
	TCase *tc = tcase_create("notation");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, notation_goldens);
	tcase_add_test(tc, error_goldens);
	tcase_add_test(tc, printer_laws);
	tcase_add_test(tc, nesting_limit);
	tcase_add_test(tc, move_and_work_limits);
	tcase_add_test(tc, buffers);
	tcase_add_test(tc, token_reports);
	tcase_add_test(tc, group_laws);
	tcase_add_test(tc, prefix_at_end);
	tcase_add_test(tc, empty_brackets_repeated);
	tcase_add_test(tc, long_runs);
	tcase_add_test(tc, fast_path_agrees);
	tcase_add_test(tc, merge_blocks);
	suite_add_tcase(s, tc);
	return s;
}
