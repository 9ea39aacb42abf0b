/* alg_print.c — algorithms as text (alg.h): canonical, inverse and
 * expanded printing of a parsed algorithm, and plain move lists (the
 * solvers' output): printed, measured and simplified. The parser, sizes
 * and the iterator are alg.c; what both share is alg_internal.h. */
#include "alg.h"
#include "alg_internal.h"
#include "cube_internal.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

/* -------------------------------------------------------------- printing */

struct writer {
	char *out;
	size_t cap, len;
};

static void put(struct writer *w, const char *s, size_t k)
{
	if (w->len < w->cap) {
		size_t room = w->cap - w->len;
		memcpy(w->out + w->len, s, k < room ? k : room);
	}
	w->len += k;
}

static void puts_(struct writer *w, const char *s)
{
	put(w, s, strlen(s));
}

static void putc_(struct writer *w, char c)
{
	put(w, &c, 1);
}

static void put_uint(struct writer *w, uint64_t v)
{
	char buf[24];
	int k = 0;
	do {
		buf[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		putc_(w, buf[--k]);
}

static size_t finish(struct writer *w)
{
	if (w->cap) {
		size_t end = w->len < w->cap ? w->len : w->cap - 1;
		w->out[end] = '\0';
	}
	return w->len;
}

/* "", "'", "2", "2'", "0". */
static void put_amount(struct writer *w, int64_t v)
{
	if (v == 1)
		return;
	if (v == -1) {
		putc_(w, '\'');
		return;
	}
	put_uint(w, (uint64_t)(v < 0 ? -v : v));
	if (v < 0)
		putc_(w, '\'');
}

/* Layer prefix and family in canonical spelling; returns the sign to apply
 * to the amount (-1 for Lv/Dv/Bv, printed as x'/y'/z'). */
static int put_move_name(struct writer *w, const alg_node *nd)
{
	const struct family *fam = &alg__families[nd->family];
	unsigned a = nd->outer, b = nd->inner;
	switch (fam->kind) {
	case FAM_FACE:
		if (nd->outer) { /* range a-b */
			goto range;
		}
		if (b > 1)
			put_uint(w, b);
		putc_(w, fam->letter);
		return 1;
	case FAM_WIDE:
		if (nd->outer)
			goto range;
		if (b == 1) {
			putc_(w, fam->letter);
			return 1;
		}
		if (b > 2)
			put_uint(w, b);
		putc_(w, fam->letter);
		putc_(w, 'w');
		return 1;
	case FAM_ROT:
		putc_(w, alg__rot_names[fam->axis]);
		return fam->dir;
	default:
		puts_(w, fam->name);
		return 1;
	}
range:
	if (a == 1) {
		if (b > 2)
			put_uint(w, b);
	} else {
		put_uint(w, a);
		putc_(w, '-');
		put_uint(w, b);
	}
	putc_(w, fam->letter);
	putc_(w, 'w');
	return 1;
}

static void put_move(struct writer *w, const alg_node *nd, int inverted)
{
	int sign = put_move_name(w, nd);
	int64_t v = (int64_t)nd->amount * sign * (inverted ? -1 : 1);
	put_amount(w, v);
}

static void print_seq(struct writer *w, const alg_t *a, int32_t first,
		      int invert);

/* One unit, inverted or not, structure kept. */
static void print_unit(struct writer *w, const alg_t *a, int32_t id,
		       int invert)
{
	const alg_node *nd = &a->nodes[id];
	int64_t amount = nd->amount;
	switch (nd->kind) {
	case ALG_PAUSE:
		putc_(w, '.');
		return;
	case ALG_MOVE:
		put_move(w, nd, invert);
		return;
	case ALG_GROUP:
		putc_(w, '(');
		print_seq(w, a, nd->a_first, 0);
		putc_(w, ')');
		put_amount(w, invert ? -amount : amount);
		return;
	default:
		break;
	}
	/* Commutator or conjugate. Inverting one with amount 1 rewrites it:
	 * [A, B]' = [B, A] and [A: B]' = [A: B']; otherwise the amount flips. */
	int rewrite = invert && amount == 1;
	putc_(w, '[');
	if (nd->kind == ALG_COMM) {
		print_seq(w, a, rewrite ? nd->b_first : nd->a_first, 0);
		puts_(w, ", ");
		print_seq(w, a, rewrite ? nd->a_first : nd->b_first, 0);
	} else {
		print_seq(w, a, nd->a_first, 0);
		puts_(w, ": ");
		if (rewrite)
			print_seq(w, a, nd->b_last, 1);
		else
			print_seq(w, a, nd->b_first, 0);
	}
	putc_(w, ']');
	if (!rewrite)
		put_amount(w, invert ? -amount : amount);
}

/* A sequence from first (forward) or, when invert, from the given last
 * node backwards with each unit inverted. */
static void print_seq(struct writer *w, const alg_t *a, int32_t from,
		      int invert)
{
	int sep = 0;
	for (int32_t id = from; id >= 0;
	     id = invert ? a->nodes[id].prev : a->nodes[id].next) {
		if (sep)
			putc_(w, ' ');
		print_unit(w, a, id, invert);
		sep = 1;
	}
}

size_t alg_print_canonical(const alg_t *a, char *out, size_t cap)
{
	struct writer w = {out, cap, 0};
	print_seq(&w, a, a->nodes[a->root].a_first, 0);
	return finish(&w);
}

size_t alg_print_inverse(const alg_t *a, char *out, size_t cap)
{
	struct writer w = {out, cap, 0};
	print_seq(&w, a, a->nodes[a->root].a_last, 1);
	return finish(&w);
}

size_t alg_print_expanded(const alg_t *a, int inverse, char *out, size_t cap)
{
	struct writer w = {out, cap, 0};
	alg_iter it;
	int32_t id;
	int inv, sep = 0;
	alg_iter_init(&it, a, inverse);
	while (alg_iter_next(&it, &id, &inv)) {
		if (sep)
			putc_(&w, ' ');
		put_move(&w, &a->nodes[id], inv);
		sep = 1;
	}
	return finish(&w);
}

/* ------------------------------------------------------ plain move lists */

void moves_metrics(const cube_move *m, size_t count, int n, alg_metrics *out)
{
	memset(out, 0, sizeof *out);
	for (size_t k = 0; k < count; k++) {
		alg_metrics one;
		alg__move_metrics(&m[k], n, &one);
		alg__metrics_add(out, &one, 1);
	}
}

size_t moves_simplify(cube_move *m, size_t count)
{
	size_t out = 0;
	for (size_t k = 0; k < count; k++) {
		cube_move mv = m[k];
		mv.qt &= 3;
		if (mv.qt == 0)
			continue;
		int merged = 0;
		size_t seen = 0;
		for (size_t j = out; j-- > 0 && seen < ALG_SIMPLIFY_WINDOW;
		     seen++) {
			if (m[j].axis != mv.axis)
				break;
			if (m[j].lo != mv.lo || m[j].hi != mv.hi)
				continue;
			int q = (m[j].qt + mv.qt) & 3;
			if (q == 0) {
				memmove(&m[j], &m[j + 1],
					(out - j - 1) * sizeof *m);
				out--;
			} else {
				m[j].qt = (uint8_t)q;
			}
			merged = 1;
			break;
		}
		if (!merged)
			m[out++] = mv;
	}
	return out;
}

static size_t put_block(cube_move *out, size_t w, int axis, int qt, int lo,
			int hi, int n, int had_rotation)
{
	cube_move mv = {(uint8_t)axis, (uint8_t)qt, (uint16_t)lo,
			(uint16_t)hi};
	if (lo == 0 && hi == n - 1 && n > 1 && !had_rotation) {
		mv.hi = (uint16_t)(hi - 1);
		out[w++] = mv;
		mv.lo = mv.hi = (uint16_t)hi;
	}
	out[w++] = mv;
	return w;
}

/* One run of count same-axis moves (they commute) rewritten as the
 * fewest block turns with the same net amount on every layer. A block
 * lo..hi by q adds q to the amount's change at lo and takes it off at
 * hi + 1: so the run is the points where the net amount changes (0..n,
 * each with its change d, nonzero mod 4, the changes summing to 0), and
 * a set of blocks gives it exactly when, joining each block's two
 * points, every part of the graph sums to 0. A part of s points needs s
 * - 1 blocks at least and a chain in order of place takes that many
 * (the block from each point to the next turns by the changes so far,
 * never 0 in a part that holds no smaller one summing to 0). So the
 * fewest blocks are the points less the most parts they split into:
 * {1, 3} and {2, 2} first, then {1, 1, 2} or {3, 3, 2}, then four of a
 * kind (no other split has more parts; tests/unit/check_alg.c tries every
 * split of small runs). A block over every layer (a whole-cube
 * rotation) is kept apart from its last layer unless the run already
 * held one, so merging never turns layer turns into a rotation that the
 * metrics would count as nothing; a pair {0, n} takes another pair's
 * partner first where it can. Writes to out (room for 2·count) and
 * returns the moves written. */
static size_t merge_run(const cube_move *m, size_t count, int n,
			cube_move *out)
{
	/* the changes, in order of place (count <= ALG_MERGE_RUN,
	 * insertion sort is enough) */
	struct point {
		int at, dq;
	} pt[2 * ALG_MERGE_RUN];
	size_t np = 0;
	int had_rotation = 0;
	for (size_t k = 0; k < count; k++) {
		had_rotation |= m[k].lo == 0 && m[k].hi == n - 1;
		struct point a = {m[k].lo, m[k].qt & 3},
			     b = {m[k].hi + 1, (4 - (m[k].qt & 3)) & 3};
		struct point two[2] = {a, b};
		for (int t = 0; t < 2; t++) {
			size_t j = np++;
			while (j > 0 && pt[j - 1].at > two[t].at) {
				pt[j] = pt[j - 1];
				j--;
			}
			pt[j] = two[t];
		}
	}
	/* one point per place, the nonzero ones, by change */
	int at[2 * ALG_MERGE_RUN], d[2 * ALG_MERGE_RUN];
	size_t k = 0;
	for (size_t i = 0; i < np;) {
		int p = pt[i].at, dq = 0;
		while (i < np && pt[i].at == p)
			dq = (dq + pt[i++].dq) & 3;
		if (dq)
			at[k] = p, d[k++] = dq;
	}
	/* the parts: part[i] the part point i is in */
	int part[2 * ALG_MERGE_RUN], nparts = 0;
	for (size_t i = 0; i < k; i++)
		part[i] = -1;
	/* pairs {1, 3}, then {2, 2}: each point with the first free one it
	 * sums to 0 with, not across every layer if another will do */
	for (int want = 1; want <= 2; want++)
		for (size_t i = 0; i < k; i++) {
			if (part[i] >= 0 || d[i] != want)
				continue;
			size_t with = k, rot = k;
			for (size_t j = 0; j < k && with == k; j++) {
				if (j == i || part[j] >= 0 || d[j] != 4 - want)
					continue;
				if (!had_rotation && at[i] + at[j] == n &&
				    (at[i] == 0 || at[j] == 0))
					rot = j;
				else
					with = j;
			}
			if (with == k)
				with = rot;
			if (with < k)
				part[i] = part[with] = nparts++;
		}
	/* what is left is 1s or 3s (one kind) and at most one 2: two of
	 * them with the 2, then fours */
	for (int v = 1; v <= 3; v += 2) {
		size_t got = 0, take[4];
		for (size_t i = 0; got < 1 && i < k; i++)
			if (part[i] < 0 && d[i] == 2)
				take[got++] = i;
		for (size_t j = 0; got == 1 && j < k; j++)
			if (part[j] < 0 && d[j] == v)
				take[got++] = j;
		if (got == 3) {
			for (int t = 0; t < 3; t++)
				part[take[t]] = nparts;
			nparts++;
		}
		got = 0;
		for (size_t j = 0; j < k; j++) {
			if (part[j] >= 0 || d[j] != v)
				continue;
			take[got++] = j;
			if (got == 4) {
				for (int t = 0; t < 4; t++)
					part[take[t]] = nparts;
				nparts++;
				got = 0;
			}
		}
	}
	/* anything left (none when the changes sum to 0, as a run's do)
	 * one part more, which keeps the answer exact */
	int rest = -1;
	for (size_t i = 0; i < k; i++)
		if (part[i] < 0) {
			if (rest < 0)
				rest = nparts++;
			part[i] = rest;
		}
	/* each part a chain in order of place: the block from each point
	 * to the next turns by the changes so far */
	size_t w = 0;
	for (int g = 0; g < nparts; g++) {
		int sum = 0, prev = -1;
		for (size_t i = 0; i < k; i++) {
			if (part[i] != g)
				continue;
			if (sum)
				w = put_block(out, w, m[0].axis, sum, prev,
					      at[i] - 1, n, had_rotation);
			sum = (sum + d[i]) & 3;
			prev = at[i];
		}
	}
	/* in order of layer, as a person would write them */
	for (size_t i = 1; i < w; i++) {
		cube_move t = out[i];
		size_t j = i;
		while (j > 0 && (out[j - 1].lo > t.lo ||
				 (out[j - 1].lo == t.lo && out[j - 1].hi > t.hi))) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = t;
	}
	return w;
}

size_t moves_merge_blocks(cube_move *m, size_t count, int n)
{
	size_t out = 0;
	for (size_t k = 0; k < count;) {
		size_t len = 1;
		while (k + len < count && len < ALG_MERGE_RUN &&
		       m[k + len].axis == m[k].axis)
			len++;
		cube_move merged[2 * ALG_MERGE_RUN];
		size_t w = len > 1 ? merge_run(&m[k], len, n, merged) : len;
		if (len > 1 && w < len) {
			memcpy(&m[out], merged, w * sizeof *m);
			out += w;
		} else {
			memmove(&m[out], &m[k], len * sizeof *m);
			out += len;
		}
		k += len;
	}
	return out;
}

static const char pos_letter[3] = {'R', 'U', 'F'};
static const char neg_letter[3] = {'L', 'D', 'B'};
static const char mid_letter[3] = {'M', 'E', 'S'};
/* M turns like L, E like D (against +axis), S like F (with it). */
static const int mid_sign[3] = {-1, -1, 1};

static void put_qt(struct writer *w, int qt)
{
	if (qt == 2)
		putc_(w, '2');
	else if (qt == 3)
		putc_(w, '\'');
}

static void put_plain_move(struct writer *w, const cube_move *mv, int n)
{
	int m = n - 1, lo = mv->lo, hi = mv->hi, ax = mv->axis;
	int qt = mv->qt & 3;
	int neg = (4 - qt) & 3;
	if (lo == 0 && hi == m) {
		putc_(w, alg__rot_names[ax]);
		put_qt(w, qt);
	} else if (lo == 0) {
		if (hi > 1)
			put_uint(w, (uint64_t)hi + 1);
		putc_(w, pos_letter[ax]);
		if (hi > 0)
			putc_(w, 'w');
		put_qt(w, qt);
	} else if (hi == m) {
		int k = n - lo;
		if (k > 2)
			put_uint(w, (uint64_t)k);
		putc_(w, neg_letter[ax]);
		if (k > 1)
			putc_(w, 'w');
		put_qt(w, neg);
	} else if (lo == hi && n % 2 == 1 && lo == m / 2) {
		putc_(w, mid_letter[ax]);
		put_qt(w, mid_sign[ax] > 0 ? qt : neg);
	} else if (lo == hi) {
		if (lo <= m - lo) {
			put_uint(w, (uint64_t)lo + 1);
			putc_(w, pos_letter[ax]);
			put_qt(w, qt);
		} else {
			put_uint(w, (uint64_t)(n - lo));
			putc_(w, neg_letter[ax]);
			put_qt(w, neg);
		}
	} else if (lo <= m - hi) {
		put_uint(w, (uint64_t)lo + 1);
		putc_(w, '-');
		put_uint(w, (uint64_t)hi + 1);
		putc_(w, pos_letter[ax]);
		putc_(w, 'w');
		put_qt(w, qt);
	} else {
		put_uint(w, (uint64_t)(n - hi));
		putc_(w, '-');
		put_uint(w, (uint64_t)(n - lo));
		putc_(w, neg_letter[ax]);
		putc_(w, 'w');
		put_qt(w, neg);
	}
}

size_t moves_print(const cube_move *m, size_t count, int n, char *out,
		   size_t cap)
{
	struct writer w = {out, cap, 0};
	int sep = 0;
	for (size_t k = 0; k < count; k++) {
		if ((m[k].qt & 3) == 0)
			continue;
		if (sep)
			putc_(&w, ' ');
		put_plain_move(&w, &m[k], n);
		sep = 1;
	}
	return finish(&w);
}
