/* fuzz_alg.c — libFuzzer target for the notation parser (core/alg.c) and
 * everything that reads its tree.
 *
 * Input: byte 0 picks the cube size, byte 1 a small output capacity for
 * the truncation check, the rest is the notation. Whatever parses must
 * obey, on cubes small enough to apply cheaply:
 *   - printing is snprintf-like: a short buffer gets a NUL-terminated
 *     prefix of the full text;
 *   - the canonical text parses again to the same canonical text, the
 *     same state and the same metrics;
 *   - alg then its inverse (applied inverted, or the inverse text parsed)
 *     is the identity;
 *   - the expansion (alg_expand, alg_iter, the expanded text) applies to
 *     the same state as alg_apply, its metrics equal alg_metrics_of, and
 *     simplifying it (then printing and parsing that) keeps the state. */
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "fuzz.h"

/* Sizes: mostly small (all laws checked), some big (parse and print). */
static const int sizes[16] = {1, 2, 3, 4, 5, 6, 7, 2, 3, 3, 4, 5,
			      9, 16, 100, 1024};
#define APPLY_MAX_N 16

static const alg_limits limits = {
	.max_moves = 20000,
	.max_work = 2000000,
	.max_amount = 1000000,
	.max_depth = ALG_MAX_DEPTH,
};

/* Parse s or abort: used on texts the printers produced. */
static alg_node *parse_or_die(alg_t *a, int n, const char *s, size_t len,
			      const char *what)
{
	size_t cap = alg_nodes_needed(len);
	alg_node *nodes = malloc(cap * sizeof *nodes);
	alg_error e = {0};
	int rc = alg_parse(a, nodes, cap, n, s, len, &limits, &e);
	LAW(rc == CUBE_OK, "%s \"%.200s\" (n=%d) does not parse: %s at %zu",
	    what, s, n, cube_errname(rc), e.offset);
	return nodes;
}

typedef size_t printer(const alg_t *a, char *out, size_t cap);

static size_t print_expanded0(const alg_t *a, char *out, size_t cap)
{
	return alg_print_expanded(a, 0, out, cap);
}

static size_t print_expanded1(const alg_t *a, char *out, size_t cap)
{
	return alg_print_expanded(a, 1, out, cap);
}

/* The full text (malloc'd, NUL-terminated), after checking that a
 * capacity of small bytes gets a terminated prefix of it. */
static char *print_all(printer *pr, const alg_t *a, size_t small, size_t *len)
{
	size_t need = pr(a, NULL, 0);
	char *full = malloc(need + 1);
	size_t again = pr(a, full, need + 1);
	LAW(again == need, "printer length %zu then %zu", need, again);
	LAW(strlen(full) == need, "printed %zu bytes, said %zu", strlen(full),
	    need);
	if (small > 0) {
		char *part = malloc(small);
		memset(part, 'Z', small);
		size_t got = pr(a, part, small);
		size_t keep = need < small - 1 ? need : small - 1;
		LAW(got == need, "truncated print says %zu, full %zu", got,
		    need);
		LAW(part[keep] == '\0' && memcmp(part, full, keep) == 0,
		    "cap %zu: not a terminated prefix", small);
		free(part);
	}
	*len = need;
	return full;
}

static int metrics_equal(const alg_metrics *x, const alg_metrics *y)
{
	return x->moves == y->moves && x->htm == y->htm && x->qtm == y->qtm &&
	       x->stm == y->stm && x->etm == y->etm;
}

static cube_t *new_cube(int n)
{
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	return c;
}

/* The state a text reaches from solved (parsing it must succeed). */
static cube_t *state_of_text(int n, const char *s, size_t len,
			     const char *what)
{
	alg_t a;
	alg_node *nodes = parse_or_die(&a, n, s, len, what);
	cube_t *c = new_cube(n);
	LAW(alg_apply(&a, c, 0) == CUBE_OK, "%s does not apply", what);
	free(nodes);
	return c;
}

static void check_laws(const alg_t *a, int n, size_t small)
{
	size_t clen, ilen, elen, xlen;
	char *canon = print_all(alg_print_canonical, a, small, &clen);
	char *inv = print_all(alg_print_inverse, a, small, &ilen);
	char *exp = print_all(print_expanded0, a, small, &elen);
	char *expi = print_all(print_expanded1, a, 0, &xlen);

	alg_metrics m;
	alg_metrics_of(a, &m);
	LAW(m.moves == a->length, "metrics count %llu moves, length %llu",
	    (unsigned long long)m.moves, (unsigned long long)a->length);

	/* canonical is a fixed point */
	alg_t b;
	alg_node *bn = parse_or_die(&b, n, canon, clen, "canonical");
	size_t c2len;
	char *canon2 = print_all(alg_print_canonical, &b, 0, &c2len);
	LAW(c2len == clen && memcmp(canon, canon2, clen) == 0,
	    "canonical \"%.200s\" reprints as \"%.200s\"", canon, canon2);
	alg_metrics mb;
	alg_metrics_of(&b, &mb);
	LAW(metrics_equal(&m, &mb) && b.length == a->length,
	    "canonical changes the metrics");

	/* the inverse text has the same length and metrics */
	alg_t ia;
	alg_node *in = parse_or_die(&ia, n, inv, ilen, "inverse");
	alg_metrics mi;
	alg_metrics_of(&ia, &mi);
	LAW(metrics_equal(&m, &mi), "inverse changes the metrics");

	/* the expansion, three ways */
	size_t cnt = (size_t)a->length;
	cube_move *mv = malloc((cnt ? cnt : 1) * sizeof *mv);
	int64_t got = alg_expand(a, 0, mv, cnt);
	LAW(got == (int64_t)a->length, "alg_expand gave %lld of %llu",
	    (long long)got, (unsigned long long)a->length);
	if (cnt > 0)
		LAW(alg_expand(a, 0, mv, cnt - 1) == CUBE_ESPACE,
		    "alg_expand ignores its capacity");
	alg_iter it;
	alg_iter_init(&it, a, 0);
	int32_t node;
	int inverted;
	size_t k = 0;
	while (alg_iter_next(&it, &node, &inverted)) {
		LAW(k < cnt, "iterator runs past %zu moves", cnt);
		cube_move x = alg_node_move(&a->nodes[node], inverted);
		LAW(memcmp(&x, &mv[k], sizeof x) == 0,
		    "iterator and alg_expand differ at move %zu", k);
		k++;
	}
	LAW(k == cnt, "iterator gave %zu moves of %zu", k, cnt);
	alg_metrics me;
	moves_metrics(mv, cnt, n, &me);
	LAW(metrics_equal(&m, &me), "metrics of the tree and of the "
				    "expansion differ");

	if (n <= APPLY_MAX_N) {
		cube_t *solved = new_cube(n);
		cube_t *c = new_cube(n);
		LAW(alg_apply(a, c, 0) == CUBE_OK, "alg_apply failed");
		cube_t *d = new_cube(n);
		LAW(cube_apply_moves(d, mv, cnt) == CUBE_OK,
		    "cube_apply_moves failed");
		LAW(cube_equal(c, d), "alg_apply and the expansion differ");

		cube_t *e = state_of_text(n, canon, clen, "canonical");
		LAW(cube_equal(c, e), "canonical reaches another state");
		free(e);
		e = state_of_text(n, exp, elen, "expanded");
		LAW(cube_equal(c, e), "expanded text reaches another state");
		free(e);

		/* alg then inverse = identity, both ways of inverting */
		cube_copy(d, c);
		LAW(alg_apply(a, d, 1) == CUBE_OK, "inverse apply failed");
		LAW(cube_equal(d, solved), "alg then alg inverted is not the "
					   "identity");
		cube_copy(d, c);
		LAW(alg_apply(&ia, d, 0) == CUBE_OK, "inverse text failed");
		LAW(cube_equal(d, solved), "alg then its inverse text is not "
					   "the identity");
		e = state_of_text(n, expi, xlen, "expanded inverse");
		LAW(alg_apply(a, e, 0) == CUBE_OK && cube_equal(e, solved),
		    "expanded inverse then alg is not the identity");
		free(e);

		/* simplification keeps the state, and its print parses */
		size_t sc = moves_simplify(mv, cnt);
		LAW(sc <= cnt, "simplify grew %zu to %zu", cnt, sc);
		cube_init(d, n);
		LAW(cube_apply_moves(d, mv, sc) == CUBE_OK,
		    "simplified moves do not apply");
		LAW(cube_equal(c, d), "simplify changed the state");
		size_t plen = moves_print(mv, sc, n, NULL, 0);
		char *pt = malloc(plen + 1);
		LAW(moves_print(mv, sc, n, pt, plen + 1) == plen,
		    "moves_print length changed");
		e = state_of_text(n, pt, plen, "printed simplification");
		LAW(cube_equal(c, e), "printed simplification \"%.200s\" "
				      "reaches another state", pt);
		free(e);
		free(pt);
		free(d);
		free(c);
		free(solved);
	}
	free(mv);
	free(in);
	free(canon2);
	free(bn);
	free(canon);
	free(inv);
	free(exp);
	free(expi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int n = sizes[data[0] & 15];
	size_t small = data[1] & 31;
	const char *s = (const char *)data + 2;
	size_t len = size - 2;

	size_t cap = alg_nodes_needed(len);
	alg_node *nodes = malloc(cap * sizeof *nodes);
	alg_t a;
	alg_error e = {0};
	int rc = alg_parse(&a, nodes, cap, n, s, len, &limits, &e);
	if (rc == CUBE_OK) {
		LAW(a.n == n && a.count <= (int32_t)cap,
		    "parsed tree: n %d, %d nodes of %zu", a.n, a.count, cap);
		check_laws(&a, n, small);
	} else {
		LAW(rc < 0 && e.code == rc, "error %d, err.code %d", rc,
		    e.code);
		LAW(e.byte_offset <= len && e.offset <= e.byte_offset &&
			    e.byte_offset + e.token_len <= len,
		    "error at byte %zu (+%zu) of %zu, offset %zu",
		    e.byte_offset, e.token_len, len, e.offset);
		LAW(strcmp(cube_errname(rc), "unknown_error") != 0,
		    "error %d has no name", rc);
	}
	free(nodes);
	return 0;
}
