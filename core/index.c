/* index.c — one integer per reachable 3×3 or 2×2 state, its decimal text,
 * and the 364-float feature vector of a 3×3 (cubie.h, seed 002).
 *
 * Permutations are ranked with Myrvold & Ruskey's linear-time rank1/unrank1
 * ("Ranking and unranking permutations in linear time", IPL 79, 2001):
 * step i (from n down to 2) records s_i = π[i-1] and swaps value i-1 into
 * place using the inverse, so the rank is the mixed-radix number with digit
 * s_i of weight n!/i!. Their identity ranks Σ (i-1)·n!/i!, not 0, so each
 * digit is relabelled d_i = (i-1) - s_i: d_i is 0 exactly when step i swaps
 * nothing, the identity ranks 0, and the permutation's parity is the number
 * of nonzero digits mod 2. The last digit d_2 (weight n!/2) is therefore
 * fixed by the parity and the other digits: the 12 edges drop it, ranking
 * into [0, 12!/2), because their parity must equal the corners'.
 *
 * Parts are kept small (cube_index: corner < 2²⁷, edge < 2³⁹) so rank and
 * unrank need no wide arithmetic; only the decimal text combines them into
 * the 66-bit value, with base-10⁹ limbs (format) and digit-by-digit long
 * division (parse), since C11 has no standard integer that wide.
 */
#include "cubie.h"

#include <string.h>

#define NC 8  /* corners */
#define NE 12 /* edges */
#define EDGE_HALF (CUBE3_EDGE_STATES >> 11) /* 12!/2 edge permutations */

/* n is a constant at each call of the permutation helpers: inline them
 * so that loops unroll and divisions become multiplications. */
#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 12")
#else
#define INLINE static inline
#define UNROLL
#endif

/* ------------------------------------------------------------ permutations */

/* Rank the permutation p of 0..n-1 into *r < n!, d_2 the top digit, and
 * its parity into *odd. Returns 0, or -1 if p is not a permutation. */
INLINE int perm_rank(const uint8_t *p, int n, uint32_t *r, int *odd)
{
	uint8_t pi[NE], inv[NE];
	unsigned seen = 0;
	UNROLL
	for (int i = 0; i < n; i++) {
		if (p[i] >= n)
			return -1;
		seen |= 1u << p[i];
		pi[i] = p[i];
		inv[p[i]] = (uint8_t)i;
	}
	if (seen != (1u << n) - 1)
		return -1;
	uint32_t rank = 0, w = 1;
	int par = 0;
	UNROLL
	for (int i = n; i >= 2; i--) {
		int s = pi[i - 1], j = inv[i - 1];
		uint32_t d = (uint32_t)(i - 1 - s);
		/* the swap: value i-1 goes home (that slot is never read
		 * again), s moves to where i-1 was */
		pi[j] = (uint8_t)s;
		inv[s] = (uint8_t)j;
		par ^= d != 0;
		rank += d * w;
		w *= (uint32_t)i;
	}
	*r = rank;
	*odd = par;
	return 0;
}

/* The inverse of perm_rank: digits d_n..d_3 from r, whatever is left of r
 * then being d_2; but if parity >= 0, d_2 is instead the digit that gives
 * the permutation that parity (r < n!/2 then). Returns the parity. */
INLINE int perm_unrank(uint32_t r, int n, int parity, uint8_t *p)
{
	/* each digit straight from r, d_i = r / (n!/i!) mod i, rather than
	 * dividing r step by step: the divisions are then independent of
	 * each other instead of one long chain */
	uint8_t d[NE + 1];
	uint32_t w = 1;
	int odd = 0;
	UNROLL
	for (int i = n; i >= 3; i--) {
		d[i] = (uint8_t)(r / w % (uint32_t)i);
		odd ^= d[i] != 0;
		w *= (uint32_t)i;
	}
	d[2] = (uint8_t)(parity >= 0 ? odd ^ parity : (int)(r / w));
	UNROLL
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)i;
	UNROLL
	for (int i = n; i >= 2; i--) {
		int s = (i - 1) - d[i];
		uint8_t t = p[i - 1];
		p[i - 1] = p[s];
		p[s] = t;
	}
	return odd ^ d[2];
}

/* n bytes at p, p[0] lowest (compilers turn this into one load). */
INLINE uint64_t load_bytes(const uint8_t *p, int n)
{
	uint64_t x = 0;
	UNROLL
	for (int i = 0; i < n; i++)
		x |= (uint64_t)p[i] << 8 * i;
	return x;
}

/* Twists and flips are handled 8 bytes at a time (SWAR): checking,
 * summing and packing them byte by byte cost as much as the permutation
 * ranks. ONES has 1 in each byte: x · ONES sums x's bytes into the top
 * byte (no byte sum here reaches 256). */
#define ONES 0x0101010101010101u
#define HIGHS 0x8080808080808080u

/* The twist index Σ_{i<k} co[i]·3^i of twists x (byte i = co[i], each
 * < 3), k < 8, by pairing neighbours: bytes → 16-bit lanes → 32-bit →
 * one. */
INLINE unsigned twist_index(uint64_t x, int k)
{
	x &= ((uint64_t)1 << 8 * k) - 1;
	x = (x & 0x00ff00ff00ff00ffu) + (x >> 8 & 0x00ff00ff00ff00ffu) * 3;
	x = (x & 0x0000ffff0000ffffu) + (x >> 16 & 0x0000ffff0000ffffu) * 9;
	return (unsigned)((x & 0xffffffffu) + (x >> 32) * 81);
}

/* The k twists of index x into co[0..k-1], each digit divided out
 * directly so they do not wait on each other; returns the twist that
 * makes the sum a multiple of 3. */
INLINE unsigned untwist(unsigned x, int k, uint8_t *co)
{
	unsigned sum = 0, w = 1;
	UNROLL
	for (int i = 0; i < k; i++) {
		co[i] = (uint8_t)(x / w % 3);
		sum += co[i];
		w *= 3;
	}
	return (3 - sum % 3) % 3;
}

/* The bits of bytes x (each 0 or 1), byte i → bit i: the multiplier
 * puts a copy of byte i's bit at bit 56 + i and nothing else lands or
 * carries into the top byte. */
INLINE unsigned gather_bits(uint64_t x)
{
	return (unsigned)(x * 0x0102040810204080u >> 56);
}

/* ------------------------------------------------------------------- 3×3 */

int cubie3_rank(const cubie3 *c, cube_index *out)
{
	if (!c || !out)
		return CUBE_EINVAL;
	uint32_t cr = 0, er = 0;
	int cpar = 0, epar = 0, bad;

	bad = perm_rank(c->cp, NC, &cr, &cpar);
	bad |= perm_rank(c->ep, NE, &er, &epar);

	/* twists: base 3, position 0 the lowest digit; the 8th is implied.
	 * A byte b < 128 is < 3 iff b + 125 < 128. */
	uint64_t co = load_bytes(c->co, NC);
	bad |= ((co | (co + 0x7d7d7d7d7d7d7d7du)) & HIGHS) != 0;
	unsigned sum = (unsigned)(co * ONES >> 56);
	/* flips: base 2, the 12th implied */
	uint64_t eo = load_bytes(c->eo, 8), eo8 = load_bytes(c->eo + 8, 4);
	bad |= ((eo | eo8) & ~ONES) != 0;
	unsigned flips = (unsigned)((eo + eo8) * ONES >> 56);
	if (bad || cpar != epar || sum % 3 || flips & 1)
		return CUBE_EINVALID;

	/* d_2 is the top digit of er (weight 12!/2): the corners' parity
	 * restores it, so drop it */
	out->corner = (uint64_t)cr * 2187 + twist_index(co, NC - 1);
	out->edge = (uint64_t)(er % EDGE_HALF) << 11 | gather_bits(eo) |
		    gather_bits(eo8 & 0xffffff) << 8;
	return CUBE_OK;
}

int cubie3_unrank(const cube_index *ix, cubie3 *out)
{
	if (!ix || !out)
		return CUBE_EINVAL;
	if (ix->corner >= CUBE3_CORNER_STATES || ix->edge >= CUBE3_EDGE_STATES)
		return CUBE_ERANGE;
	uint32_t corner = (uint32_t)ix->corner;
	int parity = perm_unrank(corner / 2187, NC, -1, out->cp);
	unsigned co = corner % 2187;
	out->co[NC - 1] = (uint8_t)untwist(co, NC - 1, out->co);

	perm_unrank((uint32_t)(ix->edge >> 11), NE, parity, out->ep);
	unsigned eo = (unsigned)(ix->edge & 2047), flips = 0;
	UNROLL
	for (int i = 0; i < NE - 1; i++) {
		out->eo[i] = (uint8_t)(eo >> i & 1);
		flips += eo >> i & 1;
	}
	out->eo[NE - 1] = (uint8_t)(flips & 1);
	return CUBE_OK;
}

/* ------------------------------------------------------------------- 2×2 */

/* The 7 corners other than DBL (6) are ranked relabelled 0..6: position or
 * piece 7 (DRB) becomes 6. Twists of positions 0..5 are free, DRB's is
 * implied, DBL's is 0. A 2×2 has no edges, so every corner permutation is
 * reachable and the full 7! ranks are used. */
#define DBL 6

int cubie2_rank(const cubie2 *c, cube_index *out)
{
	if (!c || !out)
		return CUBE_EINVAL;
	uint8_t p[NC - 1];
	for (int i = 0, k = 0; i < NC; i++) {
		uint8_t v = c->cp[i];
		/* DBL away from home maps to 0xff, which perm_rank rejects */
		if (i != DBL)
			p[k++] = v == 7 ? DBL : v == DBL ? 0xff : v;
	}
	uint32_t r = 0;
	int odd = 0;
	int bad = perm_rank(p, NC - 1, &r, &odd);
	bad |= c->cp[DBL] != DBL || c->co[DBL] != 0;
	uint64_t co = load_bytes(c->co, NC);
	bad |= ((co | (co + 0x7d7d7d7d7d7d7d7du)) & HIGHS) != 0;
	unsigned sum = (unsigned)(co * ONES >> 56);
	if (bad || sum % 3)
		return CUBE_EINVALID;
	out->corner = (uint64_t)r * 729 + twist_index(co, DBL);
	out->edge = 0;
	return CUBE_OK;
}

int cubie2_unrank(const cube_index *ix, cubie2 *out)
{
	if (!ix || !out)
		return CUBE_EINVAL;
	if (ix->corner >= CUBE2_STATES || ix->edge != 0)
		return CUBE_ERANGE;
	uint32_t corner = (uint32_t)ix->corner;
	uint8_t p[NC - 1];
	perm_unrank(corner / 729, NC - 1, -1, p);
	for (int i = 0; i < DBL; i++)
		out->cp[i] = p[i] == DBL ? 7 : p[i];
	out->cp[DBL] = DBL;
	out->cp[7] = p[DBL] == DBL ? 7 : p[DBL];
	out->co[7] = (uint8_t)untwist(corner % 729, DBL, out->co);
	out->co[DBL] = 0;
	return CUBE_OK;
}

/* ------------------------------------------------------------ decimal text */

#define BILLION 1000000000u

size_t cube_index_format(const cube_index *ix, int n, char *out, size_t cap)
{
	/* value = corner·E + edge (3×3) or corner (2×2) in base-10⁹ limbs,
	 * exact for any 64-bit parts, so an out-of-range index still prints
	 * what it holds; every limb product is < 10¹⁸ and fits. */
	uint64_t v[4] = {0, 0, 0, 0};
	char text[48];
	size_t len = 0;
	if (ix && (n == 2 || n == 3)) {
		uint64_t c[3] = {ix->corner % BILLION,
				 ix->corner / BILLION % BILLION,
				 ix->corner / BILLION / BILLION};
		if (n == 3) {
			uint64_t e[2] = {CUBE3_EDGE_STATES % BILLION,
					 CUBE3_EDGE_STATES / BILLION};
			v[0] = ix->edge % BILLION;
			v[1] = ix->edge / BILLION % BILLION;
			v[2] = ix->edge / BILLION / BILLION;
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 2; j++)
					v[i + j] += c[i] * e[j];
		} else {
			memcpy(v, c, sizeof c);
		}
		for (int i = 0; i < 3; i++) {
			v[i + 1] += v[i] / BILLION;
			v[i] %= BILLION;
		}
		/* limbs, most significant first; the top one unpadded */
		char *t = text;
		int top = 3;
		while (top > 0 && v[top] == 0)
			top--;
		for (int i = top; i >= 0; i--) {
			uint64_t x = v[i];
			char d[9];
			int k = 0;
			do {
				d[k++] = (char)('0' + x % 10);
				x /= 10;
			} while (x && k < 9);
			if (i != top)
				while (k < 9)
					d[k++] = '0';
			while (k)
				*t++ = d[--k];
		}
		len = (size_t)(t - text);
	}
	if (out && cap) {
		size_t k = len < cap - 1 ? len : cap - 1;
		memcpy(out, text, k);
		out[k] = '\0';
	}
	return len;
}

int cube_index_parse(const char *s, size_t len, int n, cube_index *out)
{
	if (!s || !out || (n != 2 && n != 3) || len == 0)
		return CUBE_EINVAL;
	if (s[0] == '0' && len > 1)
		return CUBE_EINVAL;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return CUBE_EINVAL;

	/* Long division by the edge count, one digit at a time: the
	 * remainder stays below E (·10 + 9 fits easily) and the quotient
	 * never shrinks, so it can stop as soon as it is out of range,
	 * whatever the length. */
	uint64_t q = 0, rem = 0;
	uint64_t div = n == 3 ? CUBE3_EDGE_STATES : 1;
	uint64_t qmax = n == 3 ? CUBE3_CORNER_STATES : CUBE2_STATES;
	for (size_t i = 0; i < len; i++) {
		rem = rem * 10 + (uint64_t)(s[i] - '0');
		q = q * 10 + rem / div;
		rem %= div;
		if (q >= qmax)
			return CUBE_ERANGE;
	}
	out->corner = q;
	out->edge = rem;
	return CUBE_OK;
}

/* --------------------------------------------------------------- features */

/* Face index + 1 of a facelet letter. */
static const uint8_t letter_face[256] = {
	['U'] = 1, ['R'] = 2, ['F'] = 3, ['D'] = 4, ['L'] = 5, ['B'] = 6,
};

void cubie3_features(const cubie3 *c, float out[CUBE3_FEATURES])
{
	/* the stickers come from cubie.c's one cubie → facelets mapping,
	 * which also keeps a malformed state's pieces inside its tables */
	char s[54];
	cube3_to_facelets(c, s);
	for (int i = 0; i < CUBE3_FEATURES; i++)
		out[i] = 0.0f;
	for (int i = 0; i < 54; i++)
		out[6 * i + letter_face[(unsigned char)s[i]] - 1] = 1.0f;
	/* flags are per piece: the piece at position i is p */
	for (int i = 0; i < NC; i++) {
		int p = c->cp[i] % NC;
		if (p == i)
			out[324 + p] = 1.0f;
		if (c->co[i] == 0)
			out[344 + p] = 1.0f;
	}
	for (int i = 0; i < NE; i++) {
		int p = c->ep[i] % NE;
		if (p == i)
			out[324 + NC + p] = 1.0f;
		if (c->eo[i] == 0)
			out[344 + NC + p] = 1.0f;
	}
}
