/* cubie.c — the cubie model of 3×3 and 2×2 cubes (seeds 001, 002): which
 * piece sits at each position and how it is turned there. A state and a
 * transformation are the same thing, so composition is the one operation:
 * applying a move is composing with that move's cubies, and the solved
 * cube is the identity. Also the conversions between cubies and facelets.
 *
 * The piece tables are pieces.c's. Composition runs as SSSE3 byte shuffles where the CPU has
 * them (one pshufb gathers all eight corners with their twists), since
 * solvers compose in their inner loop; the plain loops are kept beside it
 * and the tests hold the two to the same answers.
 */
#include "cubie.h"
#include "cubie_internal.h"

#include <string.h>

enum { U, R, F, D, L, B };

/* The six clockwise quarter turns (Kociemba's basic moves). */
static const cubie3 face_turns[6] = {
	[U] = {{3, 0, 1, 2, 4, 5, 6, 7}, {0},
	       {3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11}, {0}},
	[R] = {{4, 1, 2, 0, 7, 5, 6, 3}, {2, 0, 0, 1, 1, 0, 0, 2},
	       {8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0}, {0}},
	[F] = {{1, 5, 2, 3, 0, 4, 6, 7}, {1, 2, 0, 0, 2, 1, 0, 0},
	       {0, 9, 2, 3, 4, 8, 6, 7, 1, 5, 10, 11},
	       {0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0}},
	[D] = {{0, 1, 2, 3, 5, 6, 7, 4}, {0},
	       {0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11}, {0}},
	[L] = {{0, 2, 6, 3, 4, 1, 5, 7}, {0, 1, 2, 0, 0, 2, 1, 0},
	       {0, 1, 10, 3, 4, 5, 9, 7, 8, 2, 6, 11}, {0}},
	[B] = {{0, 1, 3, 7, 4, 5, 2, 6}, {0, 0, 1, 2, 0, 0, 2, 1},
	       {0, 1, 2, 11, 4, 5, 6, 10, 8, 9, 3, 7},
	       {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1}},
};

/* Letter → face index + 1 (0 = not a face letter). */
static const unsigned char letter_face[256] = {
	['U'] = 1, ['R'] = 2, ['F'] = 3, ['D'] = 4, ['L'] = 5, ['B'] = 6,
};

/* ------------------------------------------------------------- identity */

void cubie3_solved(cubie3 *c)
{
	for (int i = 0; i < 8; i++)
		c->cp[i] = (uint8_t)i;
	for (int i = 0; i < 12; i++)
		c->ep[i] = (uint8_t)i;
	memset(c->co, 0, sizeof c->co);
	memset(c->eo, 0, sizeof c->eo);
}

void cubie2_solved(cubie2 *c)
{
	for (int i = 0; i < 8; i++)
		c->cp[i] = (uint8_t)i;
	memset(c->co, 0, sizeof c->co);
}

int cubie3_equal(const cubie3 *a, const cubie3 *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

int cubie2_equal(const cubie2 *a, const cubie2 *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* ---------------------------------------------------------- composition */

/* Indices are masked so that a malformed operand reads garbage, not past
 * the struct; for valid cubies the masks change nothing. */
static void corners_scalar(const uint8_t *acp, const uint8_t *aco,
			   const uint8_t *bcp, const uint8_t *bco,
			   uint8_t *cp, uint8_t *co)
{
	for (int i = 0; i < 8; i++) {
		int j = bcp[i] & 7, t = aco[j] + bco[i];
		cp[i] = acp[j];
		co[i] = (uint8_t)(t >= 3 ? t - 3 : t);
	}
}

void cubie__compose3_scalar(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
	uint8_t aep[16] = {0}, aeo[16] = {0};
	cubie3 t;
	memcpy(aep, a->ep, 12);
	memcpy(aeo, a->eo, 12);
	corners_scalar(a->cp, a->co, b->cp, b->co, t.cp, t.co);
	for (int i = 0; i < 12; i++) {
		int j = b->ep[i] & 15;
		t.ep[i] = aep[j];
		t.eo[i] = (uint8_t)((aeo[j] + b->eo[i]) & 1);
	}
	*out = t;
}

void cubie__compose2_scalar(const cubie2 *a, const cubie2 *b, cubie2 *out)
{
	cubie2 t;
	corners_scalar(a->cp, a->co, b->cp, b->co, t.cp, t.co);
	*out = t;
}

#if (defined(__x86_64__) || defined(__i386__)) &&                              \
	(defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CUBIE_HAVE_SSSE3 1

/* Corners as one vector: cp in bytes 0..7, co in 8..15. Gathering a with
 * the index (b.cp, b.cp + 8) fetches a.cp[b.cp[i]] and a.co[b.cp[i]] in
 * one shuffle; then b.co is added to the twist half and the sum v reduced
 * mod 3 as min(v, v - 3), which wraps to a large byte when v < 3. Both
 * sums are formed from the gather at once, so a chain of compositions
 * waits for three operations per step, not four. */
__attribute__((target("ssse3"))) static inline __m128i
corners_ssse3(__m128i a, __m128i b)
{
	const __m128i hi = _mm_set_epi64x(-1, 0);
	const __m128i eight = _mm_set_epi64x(0x0808080808080808LL, 0);
	const __m128i three = _mm_set_epi64x(0x0303030303030303LL, 0);
	__m128i idx = _mm_add_epi8(_mm_unpacklo_epi64(b, b), eight);
	__m128i g = _mm_shuffle_epi8(a, idx);
	__m128i t = _mm_and_si128(b, hi);
	return _mm_min_epu8(_mm_add_epi8(g, t),
			    _mm_add_epi8(g, _mm_sub_epi8(t, three)));
}

/* A cubie3 is 40 bytes: loads and stores are 16 at 0 (corners), 16 at 16
 * (ep[0..11], eo[0..3]) and 8 at 32 (eo[4..11]), so nothing outside the
 * struct is touched, a store in one composition feeds the same load in
 * the next, and out may alias a or b (all loads come first). The flips
 * are gathered straight into the bytes they are stored from. */
__attribute__((target("ssse3"))) static void
compose3_ssse3(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
	const unsigned char *pa = (const unsigned char *)a;
	const unsigned char *pb = (const unsigned char *)b;
	unsigned char *po = (unsigned char *)out;
	/* 0x80 in a shuffle index gathers 0 */
	const __m128i z12_15 = _mm_set_epi32((int)0x80808080, 0, 0, 0);
	const __m128i z0_11 = _mm_set_epi32(0, (int)0x80808080,
					    (int)0x80808080, (int)0x80808080);
	const __m128i z8_15 = _mm_set_epi64x((long long)0x8080808080808080ULL, 0);
	const __m128i m12_15 = _mm_set_epi32(-1, 0, 0, 0);
	__m128i ac = _mm_loadu_si128((const __m128i *)pa);
	__m128i bc = _mm_loadu_si128((const __m128i *)pb);
	__m128i a1 = _mm_loadu_si128((const __m128i *)(pa + 16));
	__m128i b1 = _mm_loadu_si128((const __m128i *)(pb + 16));
	__m128i a2 = _mm_loadl_epi64((const __m128i *)(pa + 32));
	__m128i b2 = _mm_loadl_epi64((const __m128i *)(pb + 32));
	__m128i aeo = _mm_alignr_epi8(a2, a1, 12); /* a.eo[0..11] */
	/* a.ep[b.ep[i]] in bytes 0..11, then b.eo[0..3] in 12..15 */
	__m128i ep = _mm_xor_si128(_mm_shuffle_epi8(a1, _mm_or_si128(b1, z12_15)),
				   _mm_and_si128(b1, m12_15));
	/* a.eo[b.ep[0..3]] into bytes 12..15, a.eo[b.ep[4..11]] into 0..7 */
	__m128i eo0 = _mm_shuffle_epi8(aeo, _mm_or_si128(_mm_slli_si128(b1, 12), z0_11));
	__m128i eo4 = _mm_shuffle_epi8(aeo, _mm_or_si128(_mm_srli_si128(b1, 4), z8_15));
	_mm_storeu_si128((__m128i *)po, corners_ssse3(ac, bc));
	_mm_storeu_si128((__m128i *)(po + 16), _mm_xor_si128(ep, eo0));
	_mm_storel_epi64((__m128i *)(po + 32), _mm_xor_si128(eo4, b2));
}

__attribute__((target("ssse3"))) static void
compose2_ssse3(const cubie2 *a, const cubie2 *b, cubie2 *out)
{
	__m128i v = corners_ssse3(_mm_loadu_si128((const __m128i *)a),
				  _mm_loadu_si128((const __m128i *)b));
	_mm_storeu_si128((__m128i *)out, v);
}

/* The CPU model is filled in by the compiler runtime before main and never
 * changes; a build for SSSE3 and up needs no check at all. */
static inline int have_ssse3(void)
{
#ifdef __SSSE3__
	return 1;
#else
	return __builtin_cpu_supports("ssse3");
#endif
}
#endif

int cubie__compose3_simd(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
#ifdef CUBIE_HAVE_SSSE3
	if (have_ssse3()) {
		compose3_ssse3(a, b, out);
		return 1;
	}
#endif
	(void)a, (void)b, (void)out;
	return 0;
}

int cubie__compose2_simd(const cubie2 *a, const cubie2 *b, cubie2 *out)
{
#ifdef CUBIE_HAVE_SSSE3
	if (have_ssse3()) {
		compose2_ssse3(a, b, out);
		return 1;
	}
#endif
	(void)a, (void)b, (void)out;
	return 0;
}

void cubie3_compose(const cubie3 *a, const cubie3 *b, cubie3 *out)
{
#ifdef CUBIE_HAVE_SSSE3
	if (have_ssse3()) {
		compose3_ssse3(a, b, out);
		return;
	}
#endif
	cubie__compose3_scalar(a, b, out);
}

void cubie2_compose(const cubie2 *a, const cubie2 *b, cubie2 *out)
{
#ifdef CUBIE_HAVE_SSSE3
	if (have_ssse3()) {
		compose2_ssse3(a, b, out);
		return;
	}
#endif
	cubie__compose2_scalar(a, b, out);
}

/* The inverse sends each piece back: if a puts piece j at i with twist t,
 * a⁻¹ puts piece i at j with twist -t. */
static void corners_invert(const uint8_t *cp, const uint8_t *co, uint8_t *icp,
			   uint8_t *ico)
{
	for (int i = 0; i < 8; i++) {
		int j = cp[i] & 7;
		icp[j] = (uint8_t)i;
		ico[j] = (uint8_t)((3 - co[i] % 3) % 3);
	}
}

void cubie3_invert(const cubie3 *a, cubie3 *out)
{
	cubie3 t;
	memset(&t, 0, sizeof t);
	corners_invert(a->cp, a->co, t.cp, t.co);
	for (int i = 0; i < 12; i++) {
		int j = a->ep[i] % 12;
		t.ep[j] = (uint8_t)i;
		t.eo[j] = a->eo[i] & 1;
	}
	*out = t;
}

void cubie2_invert(const cubie2 *a, cubie2 *out)
{
	cubie2 t;
	memset(&t, 0, sizeof t);
	corners_invert(a->cp, a->co, t.cp, t.co);
	*out = t;
}

/* ------------------------------------------------------------ face turns */

int cubie3_face_turn(int face, int qt, cubie3 *out)
{
	if (face < 0 || face > 5 || !out)
		return CUBE_EINVAL;
	qt &= 3;
	cubie3 t;
	cubie3_solved(&t);
	for (int k = 0; k < qt; k++)
		cubie3_compose(&t, &face_turns[face], &t);
	*out = t;
	return CUBE_OK;
}

int cubie2_face_turn(int face, int qt, cubie2 *out)
{
	cubie3 t;
	int rc = out ? cubie3_face_turn(face, qt, &t) : CUBE_EINVAL;
	if (rc < 0)
		return rc;
	memcpy(out->cp, t.cp, 8);
	memcpy(out->co, t.co, 8);
	return CUBE_OK;
}

/* -------------------------------------------------------------- validity */

/* Parity (0 even, 1 odd) of p as a permutation of 0..n-1, or -1 if it is
 * not one. */
static int perm_parity(const uint8_t *p, int n)
{
	unsigned seen = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] >= n || (seen & 1u << p[i]))
			return -1;
		seen |= 1u << p[i];
	}
	int cycles = 0;
	seen = 0;
	for (int i = 0; i < n; i++) {
		if (seen & 1u << i)
			continue;
		cycles++;
		for (int j = i; !(seen & 1u << j); j = p[j])
			seen |= 1u << j;
	}
	return (n - cycles) & 1;
}

/* Twist sum mod 3, or -1 if a twist is out of range. */
static int twist_sum(const uint8_t *co)
{
	int s = 0;
	for (int i = 0; i < 8; i++) {
		if (co[i] > 2)
			return -1;
		s += co[i];
	}
	return s % 3;
}

int cubie3_is_valid(const cubie3 *c)
{
	int pc = perm_parity(c->cp, 8), pe = perm_parity(c->ep, 12);
	if (pc < 0 || pe < 0 || pc != pe || twist_sum(c->co) != 0)
		return 0;
	int flips = 0;
	for (int i = 0; i < 12; i++) {
		if (c->eo[i] > 1)
			return 0;
		flips += c->eo[i];
	}
	return flips % 2 == 0;
}

/* Any corner permutation is reachable on a 2×2 (no edges to match its
 * parity), but our 2×2 states have DBL home and untwisted. */
int cubie2_is_valid(const cubie2 *c)
{
	return perm_parity(c->cp, 8) >= 0 && twist_sum(c->co) == 0 &&
	       c->cp[6] == 6 && c->co[6] == 0;
}

/* ------------------------------------------------------------- facelets */

void cube3_to_facelets(const cubie3 *c, char out[54])
{
	for (int i = 0; i < 54; i++)
		out[i] = cube_face_letters[i / 9];
	for (int i = 0; i < 8; i++) {
		int j = c->cp[i] & 7, t = c->co[i] % 3;
		for (int k = 0; k < 3; k++)
			out[cubie__corner_facelet[i][(k + t) % 3]] =
				cube_face_letters[cubie__corner_color[j][k]];
	}
	for (int i = 0; i < 12; i++) {
		int j = c->ep[i] % 12, t = c->eo[i] & 1;
		for (int k = 0; k < 2; k++)
			out[cubie__edge_facelet[i][(k + t) & 1]] =
				cube_face_letters[cubie__edge_color[j][k]];
	}
}

void cube2_to_facelets(const cubie2 *c, char out[24])
{
	for (int i = 0; i < 8; i++) {
		int j = c->cp[i] & 7, t = c->co[i] % 3;
		for (int k = 0; k < 3; k++)
			out[cubie__facelet_n(2, cubie__corner_facelet[i][(k + t) % 3])] =
				cube_face_letters[cubie__corner_color[j][k]];
	}
}

/* Read the corners of a standard-oriented 2×2 or 3×3 (n) whose letters
 * are known to be URFDLB; -1 if a corner is not a real one. */
static int read_corners(const char *s, int n, uint8_t *cp, uint8_t *co)
{
	for (int i = 0; i < 8; i++) {
		int col[3];
		for (int k = 0; k < 3; k++)
			col[k] = letter_face[(unsigned char)s[cubie__facelet_n(
					 n, cubie__corner_facelet[i][k])]] - 1;
		int x = cubie__corner_of(col[0], col[1], col[2]);
		if (x < 0)
			return -1;
		cp[i] = (uint8_t)(x / 3);
		co[i] = (uint8_t)(x % 3);
	}
	return 0;
}

/* Both readers let cube_validate decide legality (it also says which
 * orientation the cube is in), then turn the facelets to the standard
 * orientation and read the pieces off. */
int cube3_from_facelets(const char *s, size_t len, cubie3 *out,
			cube_orientation *orient)
{
	if (!out || (!s && len))
		return CUBE_EINVAL;
	cube_validation_result res;
	if (cube_validate(s, len, NULL, 0, &res) != 0 || res.n != 3)
		return CUBE_EINVALID;
	int rot = cubie__rotation_of_letters(res.orient.up, res.orient.front);
	char std[54];
	if (rot < 0 || cubie__rotate(3, s, rot, std) < 0)
		return CUBE_EINVALID;
	cubie3 c;
	if (read_corners(std, 3, c.cp, c.co) < 0)
		return CUBE_EINVALID;
	for (int i = 0; i < 12; i++) {
		int x = cubie__edge_of(
			letter_face[(unsigned char)std[cubie__edge_facelet[i][0]]] - 1,
			letter_face[(unsigned char)std[cubie__edge_facelet[i][1]]] - 1);
		if (x < 0)
			return CUBE_EINVALID;
		c.ep[i] = (uint8_t)(x / 2);
		c.eo[i] = (uint8_t)(x % 2);
	}
	*out = c;
	if (orient)
		*orient = res.orient;
	return CUBE_OK;
}

int cube2_from_facelets(const char *s, size_t len, cubie2 *out,
			cube_orientation *orient)
{
	if (!out || (!s && len))
		return CUBE_EINVAL;
	cube_validation_result res;
	if (cube_validate(s, len, NULL, 0, &res) != 0 || res.n != 2)
		return CUBE_EINVALID;
	int rot = cubie__rotation_of_letters(res.orient.up, res.orient.front);
	char std[24];
	if (rot < 0 || cubie__rotate(2, s, rot, std) < 0)
		return CUBE_EINVALID;
	cubie2 c;
	if (read_corners(std, 2, c.cp, c.co) < 0)
		return CUBE_EINVALID;
	*out = c;
	if (orient)
		*orient = res.orient;
	return CUBE_OK;
}

/* The whole-cube turn that brings DBL home is found from the faces DBL's
 * stickers lie on, as cube2_from_facelets finds it, and applied to the
 * facelets; a 2×2 is small enough that this costs little. */
int cubie2_normalize(const cubie2 *c, cubie2 *out)
{
	if (!c || !out)
		return CUBE_EINVAL;
	if (perm_parity(c->cp, 8) < 0 || twist_sum(c->co) != 0)
		return CUBE_EINVALID;
	int p = 0;
	while (c->cp[p] != 6)
		p++;
	const unsigned char *f = cubie__corner_facelet[p];
	int t = c->co[p];
	/* DBL's colours clockwise are D, B, L */
	int rot = cubie__rotation_of_dbl(f[t] / 9, f[(t + 2) % 3] / 9,
					 f[(t + 1) % 3] / 9);
	char s[24];
	cubie2 n;
	cube2_to_facelets(c, s);
	if (rot < 0 || cubie__rotate(2, s, rot, s) < 0 ||
	    read_corners(s, 2, n.cp, n.co) < 0)
		return CUBE_EINVALID;
	*out = n;
	return CUBE_OK;
}
