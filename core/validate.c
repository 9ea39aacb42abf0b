/* validate.c — why a facelets string of any size is not a legal cube.
 *
 * Checks run from the cheapest to the most specific and each reports every
 * place it finds wrong, so one answer lists all that is broken. Length and
 * alphabet come first and end the check (nothing after them means anything
 * on a malformed string); then, on the letters:
 *   - every colour n² times;
 *   - odd n: the middle centers are six colours in a real arrangement (one
 *     of the 24 orientations, so no repeats, the right opposite pairs, not
 *     a mirror image);
 *   - n >= 2: the 8 corners, which on any n move exactly like a 2×2's; on
 *     odd n the corners, the middle edges (midges) and the middle centers
 *     move exactly like a 3×3 (every layer turn restricted to them is a
 *     3×3 turn or nothing), so they get the whole 3×3 check: real pieces,
 *     no duplicates, twist sum, flip sum, and corner parity = edge parity;
 *   - n >= 4: each orbit of 24 center stickers (the places one sticker can
 *     reach) holds four of each colour;
 *   - n >= 4: each orbit of 24 wings (the pieces at distance j and n-1-j
 *     from the corners along the twelve edges) holds each of its 24 pieces
 *     once: two stickers of a wing must be an edge's two colours, and a
 *     wing cannot be flipped in place, so its colours, the faces showing
 *     them and the end of the edge it sits at name the piece
 *     (no_such_edge, duplicate_edge with detail "wing <j> <letters>").
 * Twist and flip sums do not depend on the orientation the cube is held in,
 * but the parity test does (a whole-cube quarter turn is an odd permutation
 * of the edges and an even one of the corners), so it runs on the facelets
 * turned to the orientation the centers give; when the centers are broken
 * the orientation is unknown, half the 24 candidates would flip the
 * answer, and parity is not checked. An even cube's orientation (reported
 * when it is legal) is the one that puts the DBL corner home.
 *
 * What n >= 4 leaves unchecked (res->unchecked):
 *   - CV_UNCHECKED_PARITY: no permutation-parity constraint involving
 *     wings or centers is checked. (CV_UNCHECKED_EDGE_PAIRING, set before
 *     wings were read, is no longer: every wing orbit with each piece once
 *     pairs up.)
 * CV_UNCHECKED_CENTER_PLACEMENT is never set: within an orbit the four
 * centers of a colour are interchangeable, so any arrangement with four of
 * each can be reached (an odd permutation becomes even by swapping two
 * same-coloured centers), and the orbit counts are the whole condition.
 */
#include "validate.h"

#include "orient.h"
#include "pieces.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const codes[CV_COUNT] = {
#define CV_CODE(name, code, sentence) code,
	CUBE_VALIDATION(CV_CODE)
#undef CV_CODE
};

static const char *const sentences[CV_COUNT] = {
#define CV_SENTENCE(name, code, sentence) sentence,
	CUBE_VALIDATION(CV_SENTENCE)
#undef CV_SENTENCE
};

const char *cube_validation_code(int reason)
{
	return reason >= 0 && reason < CV_COUNT ? codes[reason] : "unknown";
}

const char *cube_validation_sentence(int reason)
{
	return reason >= 0 && reason < CV_COUNT ? sentences[reason]
						 : "unknown reason";
}

/* Letter → face index + 1 (0 = not a face letter). */
static const unsigned char letter_face[256] = {
	['U'] = 1, ['R'] = 2, ['F'] = 3, ['D'] = 4, ['L'] = 5, ['B'] = 6,
};

static int face_of(char c)
{
	return letter_face[(unsigned char)c] - 1;
}

struct report {
	cube_problem *out;
	size_t cap;
	int count;
};

/* Record a problem. out[] stays in the order of the reasons (and of
 * discovery within one reason) whatever order the checks run in: the
 * wings are read after the small cube's twist and parity, but their
 * edge problems come before those. A full out[] keeps the first cap in
 * that order. */
static void add(struct report *r, int reason, int where, const char *detail)
{
	size_t held = (size_t)r->count < r->cap ? (size_t)r->count : r->cap;
	size_t at = held;
	while (at > 0 && r->out[at - 1].reason > reason)
		at--;
	r->count++;
	if (at >= r->cap)
		return;
	size_t last = held < r->cap ? held : r->cap - 1;
	for (size_t i = last; i > at; i--)
		r->out[i] = r->out[i - 1];
	cube_problem *p = &r->out[at];
	p->reason = reason;
	p->where = where;
	size_t k = 0;
	for (; k + 1 < sizeof p->detail && detail[k]; k++)
		p->detail[k] = detail[k];
	p->detail[k] = '\0';
}

/* ---------------------------------------------------------------- pieces */

/* The small cube inside a size-n one: for odd n the 3×3 of corners,
 * midges and middle centers (54 letters), for even n the 2×2 of corners
 * (24). */
static int small_cube(const char *s, int n, char *sub)
{
	int m = n % 2 ? 3 : 2;
	for (int i3 = 0; i3 < 54; i3++) {
		int r = i3 % 9 / 3, c = i3 % 3;
		if (m == 3)
			sub[i3] = s[cubie__facelet_n(n, i3)];
		else if (r != 1 && c != 1)
			sub[cubie__facelet_n(2, i3)] = s[cubie__facelet_n(n, i3)];
	}
	return m;
}

static int corner_at(const char *sub, int m, int i)
{
	const unsigned char *f = cubie__corner_facelet[i];
	return cubie__corner_of(face_of(sub[cubie__facelet_n(m, f[0])]),
				face_of(sub[cubie__facelet_n(m, f[1])]),
				face_of(sub[cubie__facelet_n(m, f[2])]));
}

static int edge_at(const char *sub, int i)
{
	return cubie__edge_of(face_of(sub[cubie__edge_facelet[i][0]]),
			      face_of(sub[cubie__edge_facelet[i][1]]));
}

/* Parity of a permutation known to be one. */
static int parity(const int *p, int n)
{
	int odd = 0;
	unsigned seen = 0;
	for (int i = 0; i < n; i++) {
		if (seen & 1u << i)
			continue;
		for (int j = p[i]; j != i; j = p[j]) {
			seen |= 1u << j;
			odd ^= 1;
		}
		seen |= 1u << i;
	}
	return odd;
}

/* Check the pieces of the small cube sub (size m, 2 or 3); rot is the
 * orientation the centers gave (m = 3), or -1. Returns the orientation:
 * rot for m = 3, the DBL corner's for m = 2, or -1 if it cannot be told. */
static int check_pieces(const char *sub, int m, int rot, struct report *rep)
{
	int corner[8], edge[12], nedge = m == 3 ? 12 : 0;
	int corners_ok = 1, edges_ok = 1, dbl_at = -1, dbl_count = 0;
	char d[16];
	unsigned seen = 0;

	for (int i = 0; i < 8; i++) {
		corner[i] = corner_at(sub, m, i);
		if (corner[i] >= 0)
			continue;
		for (int k = 0; k < 3; k++)
			d[k] = sub[cubie__facelet_n(m, cubie__corner_facelet[i][k])];
		d[3] = '\0';
		add(rep, CV_NO_SUCH_CORNER, i, d);
		corners_ok = 0;
	}
	for (int i = 0; i < 8; i++) {
		if (corner[i] < 0)
			continue;
		int p = corner[i] / 3;
		if (p == 6) {
			dbl_at = i;
			dbl_count++;
		}
		if (seen & 1u << p) {
			add(rep, CV_DUPLICATE_CORNER, i, cubie__corner_name[p]);
			corners_ok = 0;
		}
		seen |= 1u << p;
	}
	seen = 0;
	for (int i = 0; i < nedge; i++) {
		edge[i] = edge_at(sub, i);
		if (edge[i] >= 0)
			continue;
		d[0] = sub[cubie__edge_facelet[i][0]];
		d[1] = sub[cubie__edge_facelet[i][1]];
		d[2] = '\0';
		add(rep, CV_NO_SUCH_EDGE, i, d);
		edges_ok = 0;
	}
	for (int i = 0; i < nedge; i++) {
		if (edge[i] < 0)
			continue;
		int p = edge[i] / 2;
		if (seen & 1u << p) {
			add(rep, CV_DUPLICATE_EDGE, i, cubie__edge_name[p]);
			edges_ok = 0;
		}
		seen |= 1u << p;
	}

	/* Without centers, the DBL corner says how the cube is held: the
	 * faces its D, L, B stickers lie on are those colours' sides. */
	if (m == 2 && dbl_count == 1) {
		int t = corner[dbl_at] % 3;
		const unsigned char *f = cubie__corner_facelet[dbl_at];
		/* DBL's colours clockwise are D, B, L */
		rot = cubie__rotation_of_dbl(f[t] / 9, f[(t + 2) % 3] / 9,
					     f[(t + 1) % 3] / 9);
	}

	/* The sums (the same in any orientation) and the parity, read in
	 * the orientation found, if any. */
	char std[54];
	const char *fr = sub;
	if (rot > 0 && cubie__rotate(m, sub, rot, std) == CUBE_OK)
		fr = std;
	if (corners_ok) {
		int sum = 0;
		for (int i = 0; i < 8; i++) {
			corner[i] = corner_at(fr, m, i);
			sum += corner[i] % 3;
		}
		if (sum % 3) {
			snprintf(d, sizeof d, "%d", sum % 3);
			add(rep, CV_TWIST, -1, d);
		}
	}
	if (nedge && edges_ok) {
		int sum = 0;
		for (int i = 0; i < 12; i++) {
			edge[i] = edge_at(fr, i);
			sum += edge[i] % 2;
		}
		if (sum % 2)
			add(rep, CV_FLIP, -1, "1");
	}
	if (nedge && corners_ok && edges_ok && rot >= 0) {
		int cp[8], ep[12];
		for (int i = 0; i < 8; i++)
			cp[i] = corner[i] / 3;
		for (int i = 0; i < 12; i++)
			ep[i] = edge[i] / 2;
		int pc = parity(cp, 8), pe = parity(ep, 12);
		if (pc != pe) {
			snprintf(d, sizeof d, "c:%s e:%s", pc ? "odd" : "even",
				 pe ? "odd" : "even");
			add(rep, CV_PARITY, -1, d);
		}
	}
	return rot;
}

/* --------------------------------------------------------------- centers */

/* Each orbit is the same four places (one place and its quarter-turn
 * images) on every face. Ring r of a face (the cells r steps in from its
 * edge) is covered once by the quarter-turn images of the top of the ring
 * without its last cell, (r, r) … (r, m-r-1), and each of those is the
 * lowest place of its orbit, so the orbits are visited in the order of
 * their lowest place on U, each once. */
static void check_orbits(const char *s, int n, struct report *rep)
{
	size_t nn = (size_t)n * n;
	int m = n - 1;
	for (int r = 1; r < m - r; r++) {
		for (int c = r; c < m - r; c++) {
			size_t pos[4] = {(size_t)r * n + c, (size_t)c * n + (m - r),
					 (size_t)(m - r) * n + (m - c),
					 (size_t)(m - c) * n + r};
			int count[6] = {0};
			for (int f = 0; f < 6; f++)
				for (int k = 0; k < 4; k++)
					count[face_of(s[f * nn + pos[k]])]++;
			int bad = 0;
			for (int f = 0; f < 6; f++)
				bad |= count[f] != 4;
			if (!bad)
				continue;
			char d[16];
			snprintf(d, sizeof d, "U%dR%dF%dD%dL%dB%d", count[0],
				 count[1], count[2], count[3], count[4],
				 count[5]);
			add(rep, CV_CENTER_ORBIT, (int)pos[0], d);
		}
	}
}

/* ----------------------------------------------------------------- wings */

/* Where the sticker at row r, column c of face f of a size-n cube sits in
 * space: the cubie (x, y, z), each 0..n-1, x from L to R, y from D to U,
 * z from B to F, for the facelet order of cube.h (U with B at its top
 * edge, D with F at its top edge, the side faces with U at their top). */
static void cubie_xyz(int f, int r, int c, int n, int p[3])
{
	int m = n - 1;
	switch (f) {
	case 0: p[0] = c; p[1] = m; p[2] = r; break;          /* U */
	case 1: p[0] = m; p[1] = m - r; p[2] = m - c; break;  /* R */
	case 2: p[0] = c; p[1] = m - r; p[2] = m; break;      /* F */
	case 3: p[0] = c; p[1] = 0; p[2] = m - r; break;      /* D */
	case 4: p[0] = 0; p[1] = m - r; p[2] = c; break;      /* L */
	default: p[0] = m - c; p[1] = m - r; p[2] = 0; break; /* B */
	}
}

/* The inverse on face f: the facelet of cubie p there. */
static size_t facelet_xyz(int f, const int p[3], int n)
{
	int m = n - 1, r, c;
	switch (f) {
	case 0: r = p[2]; c = p[0]; break;
	case 1: r = m - p[1]; c = m - p[2]; break;
	case 2: r = m - p[1]; c = p[0]; break;
	case 3: r = m - p[2]; c = p[0]; break;
	case 4: r = m - p[1]; c = p[2]; break;
	default: r = m - p[1]; c = m - p[0]; break;
	}
	return (size_t)f * n * n + (size_t)r * n + c;
}

/* Outward normals of U R F D L B as (axis, sign). */
static const signed char normal_axis[6] = {1, 0, 2, 1, 0, 2};
static const signed char normal_sign[6] = {1, 1, 1, -1, -1, -1};

/* The face other than f whose boundary cubie p touches, or -1. */
static int other_face(int f, const int p[3], int n)
{
	static const int low[3] = {4, 3, 5}, high[3] = {1, 0, 2};
	for (int a = 0; a < 3; a++) {
		if (a == normal_axis[f])
			continue;
		if (p[a] == 0)
			return low[a];
		if (p[a] == n - 1)
			return high[a];
	}
	return -1;
}

/* Sign of det(u, v, w) for unit axis vectors given as (axis, sign). */
static int det_sign(int au, int su, int av, int sv, int aw, int sw)
{
	/* a permutation of the axes: even (cyclic) +1, odd -1 */
	int perm = ((au + 1) % 3 == av && (av + 1) % 3 == aw) ? 1 : -1;
	return perm * su * sv * sw;
}

#define WING_ORBITS_MAX (CUBE_MAX_N / 2)

static void check_wings(const char *s, int n, struct report *rep)
{
	unsigned char count[WING_ORBITS_MAX][24];
	int orbits = (n - 2) / 2;
	memset(count, 0, (size_t)orbits * sizeof count[0]);
	char d[16];
	for (int f1 = 0; f1 < 6; f1++) {
		for (int i = 0; i < 4 * (n - 2); i++) {
			/* the border cells of f1 without its corners */
			int side = i / (n - 2), t = 1 + i % (n - 2);
			int r = side == 0 ? 0 : side == 1 ? n - 1 : t;
			int c = side == 0 || side == 1 ? t : side == 2 ? 0
								   : n - 1;
			int p[3];
			cubie_xyz(f1, r, c, n, p);
			int f2 = other_face(f1, p, n);
			if (f2 < 0 || f2 < f1)
				continue; /* each wing once, from its lower face */
			int axis = 3 - normal_axis[f1] - normal_axis[f2];
			int along = p[axis];
			if (2 * along == n - 1)
				continue; /* a midge: checked with the small cube */
			int j = along < n - 1 - along ? along : n - 1 - along;
			size_t k1 = (size_t)f1 * n * n + (size_t)r * n + c;
			size_t k2 = facelet_xyz(f2, p, n);
			int a = face_of(s[k1]), b = face_of(s[k2]);
			int e = cubie__edge_of(a, b);
			if (e < 0) {
				snprintf(d, sizeof d, "wing %d %c%c", j, s[k1],
					 s[k2]);
				add(rep, CV_NO_SUCH_EDGE, (int)k1, d);
				continue;
			}
			/* the piece: its colours in order, the faces showing
			 * them, and which end of the edge it is at */
			int fa = a < b ? f1 : f2, fb = a < b ? f2 : f1;
			int chi = det_sign(normal_axis[fa], normal_sign[fa],
					   normal_axis[fb], normal_sign[fb], axis,
					   2 * along < n - 1 ? -1 : 1);
			int piece = (e / 2) * 2 + (chi > 0);
			if (count[j - 1][piece]++ == 1) {
				snprintf(d, sizeof d, "wing %d %c%c", j, s[k1],
					 s[k2]);
				add(rep, CV_DUPLICATE_EDGE, (int)k1, d);
			}
		}
	}
}

int cube_validate(const char *s, size_t len, cube_problem *out, size_t cap,
		  cube_validation_result *res)
{
	if ((!s && len) || (!out && cap))
		return CUBE_EINVAL;
	struct report rep = {out, cap, 0};
	cube_validation_result r;
	memset(&r, 0, sizeof r);
	char d[24];
	int rot = -1;

	int n = cube_size_from_length(len);
	if (n < 0) {
		snprintf(d, sizeof d, "%zu", len);
		add(&rep, CV_LENGTH, -1, d);
		goto done;
	}
	r.n = n;
	/* One pass counts the letters. On big cubes it counts every byte
	 * value in four interleaved tables, so that runs of one letter do not
	 * wait on one counter. Only a string with bad bytes is read again, to
	 * say where they are. */
	size_t nn = (size_t)n * n, count[6] = {0}, bad = 0, k = 0;
	if (len < 4096) {
		for (; k < len; k++) {
			int f = letter_face[(unsigned char)s[k]];
			if (f)
				count[f - 1]++;
			else
				bad++;
		}
	} else {
		uint32_t hist[4][256];
		memset(hist, 0, sizeof hist);
		for (; k + 4 <= len; k += 4)
			for (int j = 0; j < 4; j++)
				hist[j][(unsigned char)s[k + j]]++;
		for (; k < len; k++)
			hist[0][(unsigned char)s[k]]++;
		for (int c = 0; c < 256; c++) {
			size_t t = (size_t)hist[0][c] + hist[1][c] + hist[2][c] +
				   hist[3][c];
			if (letter_face[c])
				count[letter_face[c] - 1] = t;
			else
				bad += t;
		}
	}
	for (k = 0; bad && k < len; k++) {
		unsigned char c = (unsigned char)s[k];
		if (letter_face[c])
			continue;
		if (c > 0x20 && c < 0x7f)
			snprintf(d, sizeof d, "%c", c);
		else
			snprintf(d, sizeof d, "\\x%02X", c);
		add(&rep, CV_LETTER, (int)k, d);
	}
	if (rep.count)
		goto done;

	for (int f = 0; f < 6; f++) {
		if (count[f] == nn)
			continue;
		snprintf(d, sizeof d, "%zu", count[f]);
		add(&rep, CV_COLOR_COUNT, f, d);
	}

	if (n % 2) {
		char centers[7];
		for (int f = 0; f < 6; f++)
			centers[f] = s[f * nn + nn / 2];
		centers[6] = '\0';
		rot = cubie__rotation_of_centers(centers);
		if (rot < 0)
			add(&rep, CV_CENTERS, -1, centers);
	}
	if (n >= 2) {
		char sub[54];
		int m = small_cube(s, n, sub);
		rot = check_pieces(sub, m, rot, &rep);
	}
	if (n >= 4) {
		check_orbits(s, n, &rep);
		check_wings(s, n, &rep);
		r.unchecked = CV_UNCHECKED_PARITY;
	}
	if (rep.count == 0 && rot >= 0)
		cubie__orientation(rot, &r.orient);
done:
	r.count = rep.count;
	if (res)
		*res = r;
	return rep.count;
}
