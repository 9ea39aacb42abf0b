/* fuzz_pattern.c — libFuzzer target for pattern compilation and matching
 * (core/pattern.c), held to a brute-force matcher written here from
 * pattern.h's definition.
 *
 * Input: byte 0 picks the size n (1..6: the table path up to 3, the
 * general path above) and a mode:
 *   raw:     the rest is the pattern text (any bytes), matched against a
 *            solved cube;
 *   derived: the state is a solved cube turned by moves from the input;
 *            the pattern is read off that state turned by one of the 24
 *            orientations, each colour written as its letter or as a
 *            digit, places kept or made '*' by input bits, then a few
 *            places overwritten — so matches are common and near misses
 *            too.
 * Laws: compilation accepts exactly the texts of 6·n² places from
 * URFDLB, 1-6 and '*' (an error points at the first bad place);
 * pattern_match, its portable path and the brute-force matcher give the
 * same orientation mask; first != 0 reports one fit of that mask; the
 * named patterns of n agree with the brute force too. */
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "fuzz.h"
#include "pattern.h"
#include "pattern_internal.h"

#define MAX_N 6

static const char *const place_chars = "URFDLB123456*";

/* Apply a moves text to c. */
static void apply_text(cube_t *c, const char *moves)
{
	alg_node nodes[32];
	alg_t a;
	LAW(alg_parse(&a, nodes, 32, c->n, moves, strlen(moves), NULL,
		      NULL) == CUBE_OK,
	    "orientation moves \"%s\"", moves);
	alg_apply(&a, c, 0);
}

/* Does the state (facelets f) fit pattern t as written? */
static int fits(const char *t, const char *f, size_t len)
{
	int digit_colour[6] = {-1, -1, -1, -1, -1, -1};
	unsigned letters = 0;
	for (size_t i = 0; i < len; i++)
		if (strchr("URFDLB", t[i]))
			letters |= 1u << (strchr(cube_face_letters, t[i]) -
					  cube_face_letters);
	for (size_t i = 0; i < len; i++) {
		int colour = (int)(strchr(cube_face_letters, f[i]) -
				   cube_face_letters);
		if (t[i] == '*')
			continue;
		if (t[i] >= '1' && t[i] <= '6') {
			int d = t[i] - '1';
			if (letters & 1u << colour)
				return 0;
			if (digit_colour[d] < 0) {
				for (int e = 0; e < 6; e++)
					if (digit_colour[e] == colour)
						return 0;
				digit_colour[d] = colour;
			} else if (digit_colour[d] != colour) {
				return 0;
			}
		} else if (t[i] != f[i]) {
			return 0;
		}
	}
	return 1;
}

/* Brute-force mask of the orientations where all parts fit c. */
static uint32_t brute_mask(char *const *parts, int np, const cube_t *c)
{
	int n = c->n;
	size_t len = 6 * (size_t)n * (size_t)n;
	cube_t *k = malloc(cube_sizeof(n));
	char *f = malloc(len);
	uint32_t mask = 0;
	for (int o = 0; o < 24; o++) {
		pattern_orientation po;
		pattern_orientation_of(o, &po);
		cube_copy(k, c);
		apply_text(k, po.moves);
		cube_to_facelets(k, f);
		int all = 1;
		for (int p = 0; p < np && all; p++)
			all = fits(parts[p], f, len);
		if (all)
			mask |= 1u << o;
	}
	free(f);
	free(k);
	return mask;
}

/* Compile parts, match them every way, hold the answers to brute force. */
static void check_match(char *const *parts, int np, const cube_t *c)
{
	int n = c->n;
	size_t len = 6 * (size_t)n * (size_t)n;
	pattern_t *cp[16];
	for (int p = 0; p < np; p++) {
		cp[p] = malloc(pattern_sizeof(n, parts[p], len));
		pattern_error e;
		int rc = pattern_compile(cp[p], n, parts[p], len, &e);
		LAW(rc == CUBE_OK, "part %d does not compile: %s at %zu", p,
		    pattern_errname(rc), e.offset);
		LAW(pattern_size(cp[p]) == n, "compiled size");
	}
	const pattern_t *const *pp = (const pattern_t *const *)cp;
	uint32_t mask = 0, pmask = 0, fmask = 0;
	int count = pattern_match(pp, (size_t)np, c, 0, &mask);
	int pcount = pattern__match_portable(pp, (size_t)np, c, 0, &pmask);
	int fcount = pattern_match(pp, (size_t)np, c, 1, &fmask);
	uint32_t want = brute_mask(parts, np, c);
	LAW(mask == want && count == __builtin_popcount(want),
	    "n=%d: mask %06x (%d), brute force %06x; pattern %.*s", n, mask,
	    count, want, (int)len, parts[0]);
	LAW(pmask == want && pcount == count, "portable mask %06x", pmask);
	LAW((want == 0 && fcount == 0 && fmask == 0) ||
		    (fcount == 1 && __builtin_popcount(fmask) == 1 &&
		     (fmask & want)),
	    "first: %d, %06x of %06x", fcount, fmask, want);
	for (int p = 0; p < np; p++)
		free(cp[p]);
}

static void check_named(const cube_t *c)
{
	int n = c->n;
	size_t len = 6 * (size_t)n * (size_t)n;
	int count = pattern_named_count(n);
	for (int k = 0; k < count; k++) {
		const pattern_named *pn = pattern_named_at(n, k);
		LAW(pn && pattern_named_find(n, pn->name) == pn,
		    "named pattern %d", k);
		LAW(pn->nparts >= 1 && pn->nparts <= 16, "%d parts",
		    pn->nparts);
		char *parts[16];
		for (int p = 0; p < pn->nparts; p++) {
			parts[p] = malloc(len);
			LAW(pattern_named_text(pn, n, p, parts[p]) == CUBE_OK,
			    "text of %s", pn->name);
		}
		check_match(parts, pn->nparts, c);
		for (int p = 0; p < pn->nparts; p++)
			free(parts[p]);
	}
	LAW(pattern_named_at(n, count) == NULL, "named past the end");
}

static void check_raw(int n, const char *s, size_t len)
{
	pattern_error e = {0, 12345};
	size_t sz = pattern_sizeof(0, s, len);
	pattern_t *p = malloc(sz > 0 ? sz : 1);
	int rc = pattern_compile(p, 0, s, len, &e);
	int m = cube_size_from_length(len);
	if (m < 0) {
		LAW(rc == CUBE_ELENGTH && e.code == rc, "length %zu: %s", len,
		    pattern_errname(rc));
	} else {
		size_t bad = 0;
		while (bad < len && s[bad] && strchr(place_chars, s[bad]))
			bad++;
		if (bad == len) {
			LAW(rc == CUBE_OK, "\"%.*s\": %s at %zu", (int)len, s,
			    pattern_errname(rc), e.offset);
		} else {
			int digit = s[bad] == '0' ||
				    (s[bad] >= '7' && s[bad] <= '9');
			LAW(rc == (digit ? PATTERN_EDIGITS : PATTERN_ECHAR) &&
				    e.offset == bad && e.code == rc,
			    "bad place at %zu: %s at %zu", bad,
			    pattern_errname(rc), e.offset);
		}
	}
	free(p);
	if (rc == CUBE_OK && m <= MAX_N) {
		cube_t *c = malloc(cube_sizeof(m));
		cube_init(c, m);
		char *t = malloc(len);
		memcpy(t, s, len);
		check_match(&t, 1, c);
		free(t);
		free(c);
	}
	(void)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int n = 1 + data[0] % MAX_N;
	if (data[0] / MAX_N % 2 == 0) {
		check_raw(n, (const char *)data + 1, size - 1);
		return 0;
	}
	if (size < 6)
		return 0;
	int orient = data[1] % 24;
	unsigned as_digit = data[2];   /* colour f written as a digit? */
	int shift = data[3];           /* digit of colour f: (f + shift) % 6 */
	int edits = data[4] % 4;
	const uint8_t *p = data + 5;
	size_t rest = size - 5;
	size_t len = 6 * (size_t)n * (size_t)n;

	/* the state: moves of 3 bytes while they last, keeping 2 bytes per
	 * edit and the rest for the place bits */
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	size_t nmoves = rest / 3 < 16 ? rest / 3 : 16;
	for (size_t i = 0; i < nmoves; i++) {
		const uint8_t *m = p + 3 * i;
		int lo = m[1] % n, hi = lo + m[2] / 4 % (n - lo);
		cube_turn(c, m[0] % 3, lo, hi, m[2] % 4);
	}
	p += 3 * nmoves;
	rest -= 3 * nmoves;

	/* the pattern: the state as seen in orientation `orient` */
	pattern_orientation po;
	pattern_orientation_of(orient, &po);
	cube_t *k = malloc(cube_sizeof(n));
	cube_copy(k, c);
	apply_text(k, po.moves);
	char *t = malloc(len);
	cube_to_facelets(k, t);
	free(k);
	size_t ebytes = 2 * (size_t)edits < rest ? 2 * (size_t)edits : rest;
	const uint8_t *bits = p + ebytes;
	size_t nbits = 8 * (rest - ebytes);
	for (size_t i = 0; i < len; i++) {
		int f = (int)(strchr(cube_face_letters, t[i]) - cube_face_letters);
		if (nbits && !(bits[i % nbits / 8] >> (i % nbits % 8) & 1))
			t[i] = '*';
		else if (as_digit >> f & 1)
			t[i] = (char)('1' + (f + shift) % 6);
	}
	for (size_t e = 0; e + 2 <= ebytes; e += 2)
		t[p[e] % len] = place_chars[p[e + 1] % 13];
	check_match(&t, 1, c);
	free(t);
	if (data[0] & 0x80)
		check_named(c);
	free(c);
	return 0;
}
