/* fuzz_facelets.c — libFuzzer target for facelets decoding
 * (cube_from_facelets), validation of any size (cube_validate) and the
 * 2×2 / 3×3 facelets → cubies readers (cube2/3_from_facelets).
 *
 * Input: byte 0 picks a mode, the rest is
 *   mode raw:      the facelets string itself (any bytes, any length);
 *   mode letters:  bytes mapped to letters U R F D L B, 6·n² of them;
 *   mode scramble: moves (3 bytes each) applied to a solved cube of size
 *                  n, then a few stickers overwritten (0 to 3, from byte
 *                  0): a reachable state when none are.
 * Laws: decoding then encoding gives the input back; a decoding error
 * points at the right byte; validation finds the same problems whatever
 * the capacity it is given, lists them in the order of its table, and a
 * state reached by moves has none; for 2×2 and 3×3 validation and the
 * cubie readers agree (valid ⇔ readable, same orientation), and the
 * cubies printed back are the input turned to the standard
 * orientation. */
#include <string.h>

#include "alg.h"
#include "cube.h"
#include "cubie.h"
#include "fuzz.h"

#define MAX_N 40

static int is_letter(char c)
{
	return c && strchr("URFDLB", c) != NULL;
}

/* The input turned by the rotation moves of o (facelets, n = 2 or 3). */
static void turned(const char *s, size_t len, int n,
		   const cube_orientation *o, char *out)
{
	cube_t *c = malloc(cube_sizeof(n));
	LAW(cube_from_facelets(c, n, s, len, NULL) == CUBE_OK, "re-read");
	alg_node nodes[32];
	alg_t a;
	LAW(alg_parse(&a, nodes, 32, n, o->moves, strlen(o->moves), NULL,
		      NULL) == CUBE_OK,
	    "orientation moves \"%s\" do not parse", o->moves);
	alg_apply(&a, c, 0);
	cube_to_facelets(c, out);
	free(c);
}

static void check_cubies(const char *s, size_t len, int n, int valid,
			 const cube_validation_result *res)
{
	cube_orientation o;
	char back[54], want[54];
	int rc;
	memset(&o, 0, sizeof o);
	if (n == 3) {
		cubie3 c;
		rc = cube3_from_facelets(s, len, &c, &o);
		if (rc == CUBE_OK) {
			LAW(cubie3_is_valid(&c), "read an invalid 3×3");
			cube3_to_facelets(&c, back);
		}
	} else {
		cubie2 c;
		rc = cube2_from_facelets(s, len, &c, &o);
		if (rc == CUBE_OK) {
			LAW(cubie2_is_valid(&c), "read an invalid 2×2");
			cube2_to_facelets(&c, back);
		}
	}
	LAW((rc == CUBE_OK) == valid,
	    "%d×%d: cubie reader says %s, validation found %d problems", n, n,
	    cube_errname(rc), res->count);
	if (rc != CUBE_OK) {
		LAW(rc == CUBE_EINVALID, "cubie reader failed with %s",
		    cube_errname(rc));
		return;
	}
	LAW(o.up == res->orient.up && o.front == res->orient.front &&
		    strcmp(o.moves, res->orient.moves) == 0,
	    "orientations differ: %c%c \"%s\" vs %c%c \"%s\"", o.up, o.front,
	    o.moves, res->orient.up, res->orient.front, res->orient.moves);
	turned(s, len, n, &o, want);
	LAW(memcmp(back, want, len) == 0,
	    "cubies print another state than the input turned by \"%s\"",
	    o.moves);
}

static void check(const char *s, size_t len, int reachable)
{
	/* decoding */
	int n = cube_size_from_length(len);
	cube_t *c = malloc(n > 0 ? cube_sizeof(n) : sizeof(cube_t));
	size_t bad = 12345;
	int rc = cube_from_facelets(c, 0, s, len, &bad);
	if (n < 0) {
		LAW(rc == CUBE_ELENGTH && bad == len, "length %zu: %s at %zu",
		    len, cube_errname(rc), bad);
	} else if (rc == CUBE_OK) {
		char *back = malloc(len);
		cube_to_facelets(c, back);
		LAW(memcmp(back, s, len) == 0, "facelets do not round-trip");
		free(back);
	} else {
		LAW(rc == CUBE_ELETTER && bad < len && !is_letter(s[bad]),
		    "%s at %zu", cube_errname(rc), bad);
		for (size_t i = 0; i < bad; i++)
			LAW(is_letter(s[i]), "bad letter before %zu", bad);
	}
	free(c);

	/* validation: the count does not depend on the capacity */
	cube_problem big[64], small[2];
	cube_validation_result res, res2;
	int count = cube_validate(s, len, big, 64, &res);
	int count2 = cube_validate(s, len, small, 2, &res2);
	LAW(count >= 0 && count == res.count && count == count2,
	    "counts %d, %d, %d", count, res.count, count2);
	LAW(res.n == (n > 0 ? n : 0), "validation size %d, length says %d",
	    res.n, n);
	for (int i = 0; i < count && i < 2; i++)
		LAW(big[i].reason == small[i].reason &&
			    big[i].where == small[i].where &&
			    strcmp(big[i].detail, small[i].detail) == 0,
		    "problem %d differs with a smaller capacity", i);
	for (int i = 0; i < count && i < 64; i++) {
		LAW(big[i].reason >= 0 && big[i].reason < CV_COUNT,
		    "reason %d", big[i].reason);
		LAW(memchr(big[i].detail, '\0', sizeof big[i].detail) != NULL,
		    "detail not terminated");
		if (i > 0)
			LAW(big[i].reason >= big[i - 1].reason,
			    "problems out of order");
	}
	if (count == 0)
		LAW(rc == CUBE_OK, "valid but not decodable");
	if (reachable)
		LAW(count == 0, "a state reached by moves has %d problems, "
				"first %s at %d (%s)",
		    count, cube_validation_code(big[0].reason), big[0].where,
		    big[0].detail);
	if (n == 2 || n == 3)
		check_cubies(s, len, n, count == 0, &res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *p = data + 1;
	size_t rest = size - 1;
	int mode = data[0] % 3;
	if (mode == 0) {
		check((const char *)p, rest, 0);
		return 0;
	}
	int n = 1 + (data[0] / 3) % MAX_N;
	size_t len = 6 * (size_t)n * (size_t)n;
	char *s = malloc(len);
	if (mode == 1) {
		for (size_t i = 0; i < len; i++)
			s[i] = cube_face_letters[rest ? p[i % rest] % 6 : 0];
		check(s, len, 0);
		free(s);
		return 0;
	}
	cube_t *c = malloc(cube_sizeof(n));
	cube_init(c, n);
	int edits = data[0] >> 6; /* 0..3 */
	size_t moves_end = rest >= 3 * (size_t)edits ? rest - 3 * (size_t)edits
						     : 0;
	for (size_t i = 0; i + 3 <= moves_end; i += 3) {
		int lo = p[i + 1] % n, hi = lo + p[i + 2] / 4 % (n - lo);
		cube_turn(c, p[i] % 3, lo, hi, p[i + 2] % 4);
	}
	cube_to_facelets(c, s);
	free(c);
	int changed = 0;
	for (size_t i = moves_end; i + 3 <= rest; i += 3) {
		size_t at = ((size_t)p[i] << 8 | p[i + 1]) % len;
		char letter = cube_face_letters[p[i + 2] % 6];
		changed |= s[at] != letter;
		s[at] = letter;
	}
	check(s, len, !changed);
	free(s);
	return 0;
}
