/* fuzz_cubie.c — libFuzzer target for the cubie model (core/cubie.c,
 * core/index.c, core/pattern.c's piece queries): validity, facelets ⇄
 * cubies, rank/unrank, composition, inversion, 2×2 normalisation,
 * features.
 *
 * Input: byte 0 picks how the next 40 bytes become a 3×3 state and the
 * 16 after them a 2×2 state — raw (any byte values, mostly invalid),
 * reduced (permutations and orientations in range, parity and sums left
 * to chance) or fixed (made legal); the bytes after that are face turns
 * to compose with. Laws: cubie*_is_valid agrees with an independent check
 * written here; a valid state ranks, unranks back to itself, and its
 * index prints and parses back; cubies → facelets → cubies is lossless
 * and validates; a state composed with its inverse (either side) is
 * solved; composing with a face turn is the facelet engine's turn
 * (cube_turn); features and piece queries say what the arrays say. */
#include <string.h>

#include "cube.h"
#include "cubie.h"
#include "fuzz.h"
#include "pattern.h"

/* ---- an independent validity check --------------------------------- */

static int ref_parity(const uint8_t *p, int n)
{
	int seen[12] = {0}, inv = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] >= n || seen[p[i]])
			return -1;
		seen[p[i]] = 1;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			inv += p[i] > p[j];
	return inv & 1;
}

static int ref_valid3(const cubie3 *c)
{
	int pc = ref_parity(c->cp, 8), pe = ref_parity(c->ep, 12);
	int tw = 0, fl = 0;
	for (int i = 0; i < 8; i++) {
		if (c->co[i] > 2)
			return 0;
		tw += c->co[i];
	}
	for (int i = 0; i < 12; i++) {
		if (c->eo[i] > 1)
			return 0;
		fl += c->eo[i];
	}
	return pc >= 0 && pe >= 0 && pc == pe && tw % 3 == 0 && fl % 2 == 0;
}

static int ref_valid2(const cubie2 *c)
{
	int tw = 0;
	for (int i = 0; i < 8; i++) {
		if (c->co[i] > 2)
			return 0;
		tw += c->co[i];
	}
	return ref_parity(c->cp, 8) >= 0 && tw % 3 == 0 && c->cp[6] == 6 &&
	       c->co[6] == 0;
}

/* ---- states from bytes --------------------------------------------- */

/* A permutation of 0..n-1 from bytes (a Fisher-Yates shuffle). */
static void perm_from(const uint8_t *b, int n, uint8_t *p)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)i;
	for (int i = n - 1; i > 0; i--) {
		int j = b[i] % (i + 1);
		uint8_t t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

static void state3_from(const uint8_t *b, int mode, cubie3 *c)
{
	if (mode == 0) {
		memcpy(c->cp, b, 8);
		memcpy(c->co, b + 8, 8);
		memcpy(c->ep, b + 16, 12);
		memcpy(c->eo, b + 28, 12);
		return;
	}
	perm_from(b, 8, c->cp);
	perm_from(b + 16, 12, c->ep);
	int tw = 0, fl = 0;
	for (int i = 0; i < 8; i++)
		tw += c->co[i] = b[8 + i] % 3;
	for (int i = 0; i < 12; i++)
		fl += c->eo[i] = b[28 + i] % 2;
	if (mode == 2) {
		c->co[7] = (uint8_t)((c->co[7] + 3 - tw % 3) % 3);
		c->eo[11] = (uint8_t)((c->eo[11] + fl) % 2);
		if (ref_parity(c->cp, 8) != ref_parity(c->ep, 12)) {
			uint8_t t = c->ep[0];
			c->ep[0] = c->ep[1];
			c->ep[1] = t;
		}
	}
}

static void state2_from(const uint8_t *b, int mode, cubie2 *c)
{
	if (mode == 0) {
		memcpy(c->cp, b, 8);
		memcpy(c->co, b + 8, 8);
		return;
	}
	perm_from(b, 8, c->cp);
	int tw = 0;
	for (int i = 0; i < 8; i++)
		tw += c->co[i] = b[8 + i] % 3;
	if (mode == 2) {
		/* DBL home and untwisted, the sum fixed on another corner */
		for (int i = 0; i < 8; i++)
			if (c->cp[i] == 6) {
				c->cp[i] = c->cp[6];
				c->cp[6] = 6;
			}
		tw -= c->co[6];
		c->co[6] = 0;
		int k = 7;
		c->co[k] = (uint8_t)((c->co[k] + 3 - tw % 3) % 3);
	}
}

/* ---- the laws ------------------------------------------------------- */

/* The facelet engine's form of face turn f (URFDLB), qt clockwise seen
 * from that face, on size n. */
static void engine_turn(cube_t *c, int f, int qt)
{
	static const int axis[6] = {CUBE_Y, CUBE_X, CUBE_Z,
				    CUBE_Y, CUBE_X, CUBE_Z};
	int n = c->n, positive = f < 3;
	int layer = positive ? 0 : n - 1;
	LAW(cube_turn(c, axis[f], layer, layer,
		      positive ? qt : (4 - qt) & 3) == CUBE_OK,
	    "cube_turn");
}

static void index_round_trip(const cube_index *ix, int n)
{
	char text[64];
	size_t len = cube_index_format(ix, n, text, sizeof text);
	LAW(len < sizeof text && strlen(text) == len, "index text %zu", len);
	cube_index back;
	LAW(cube_index_parse(text, len, n, &back) == CUBE_OK &&
		    back.corner == ix->corner && back.edge == ix->edge,
	    "index \"%s\" does not parse back", text);
}

static void check3(const cubie3 *c, const uint8_t *turns, size_t nturns)
{
	int valid = cubie3_is_valid(c);
	LAW(valid == ref_valid3(c), "cubie3_is_valid says %d", valid);
	cube_index ix;
	int rc = cubie3_rank(c, &ix);
	if (!valid) {
		LAW(rc == CUBE_EINVALID, "ranked an invalid state: %s",
		    cube_errname(rc));
		return;
	}
	LAW(rc == CUBE_OK && ix.corner < CUBE3_CORNER_STATES &&
		    ix.edge < CUBE3_EDGE_STATES,
	    "rank %s", cube_errname(rc));
	cubie3 u;
	LAW(cubie3_unrank(&ix, &u) == CUBE_OK && cubie3_equal(&u, c),
	    "unrank(rank(c)) != c");
	index_round_trip(&ix, 3);

	char f[54];
	cube3_to_facelets(c, f);
	cube_validation_result res;
	cube_problem pr[4];
	LAW(cube_validate(f, 54, pr, 4, &res) == 0,
	    "facelets of a valid state do not validate: %s",
	    cube_validation_code(pr[0].reason));
	cubie3 back;
	cube_orientation o;
	LAW(cube3_from_facelets(f, 54, &back, &o) == CUBE_OK &&
		    cubie3_equal(&back, c) && o.moves[0] == '\0',
	    "cubies → facelets → cubies is not lossless");

	cubie3 inv, t, solved;
	cubie3_solved(&solved);
	cubie3_invert(c, &inv);
	cubie3_compose(c, &inv, &t);
	LAW(cubie3_equal(&t, &solved), "c · c⁻¹ != solved");
	cubie3_compose(&inv, c, &t);
	LAW(cubie3_equal(&t, &solved), "c⁻¹ · c != solved");
	cubie3_invert(&inv, &t);
	LAW(cubie3_equal(&t, c), "(c⁻¹)⁻¹ != c");

	/* composition with face turns = the facelet engine's turns */
	cube_t *e = malloc(cube_sizeof(3));
	LAW(cube_from_facelets(e, 3, f, 54, NULL) == CUBE_OK, "read");
	cubie3 cur = *c;
	for (size_t i = 0; i < nturns; i++) {
		int face = turns[i] % 6, qt = turns[i] / 6 % 4;
		cubie3 m;
		LAW(cubie3_face_turn(face, qt, &m) == CUBE_OK, "face turn");
		cubie3_compose(&cur, &m, &cur);
		engine_turn(e, face, qt);
	}
	char g[54];
	cube3_to_facelets(&cur, f);
	cube_to_facelets(e, g);
	LAW(memcmp(f, g, 54) == 0, "cubie turns and cube_turn disagree");
	free(e);

	float feat[CUBE3_FEATURES];
	cubie3_features(c, feat);
	cube3_to_facelets(c, f);
	for (int i = 0; i < 54; i++)
		for (int k = 0; k < 6; k++)
			LAW(feat[6 * i + k] ==
				    (f[i] == cube_face_letters[k] ? 1.0f : 0.0f),
			    "feature %d", 6 * i + k);
	for (int p = 0; p < 20; p++) {
		int corner = p < 8, k = corner ? p : p - 8;
		const uint8_t *perm = corner ? c->cp : c->ep;
		const uint8_t *ori = corner ? c->co : c->eo;
		/* piece k: placed if at home, oriented wherever it is */
		piece_info pi;
		LAW(piece_query3(c, corner ? 0 : 1, k, &pi) == CUBE_OK,
		    "piece query");
		LAW(feat[324 + p] == (perm[k] == k ? 1.0f : 0.0f),
		    "placed feature %d", p);
		LAW(feat[344 + p] == (ori[pi.position] == 0 ? 1.0f : 0.0f),
		    "oriented feature %d", p);
		LAW(perm[pi.position] == k && pi.orientation == ori[pi.position] &&
			    pi.placed == (pi.position == k) &&
			    pi.oriented == (pi.orientation == 0),
		    "piece query of %d", p);
	}
}

static void check2(const cubie2 *c, const uint8_t *turns, size_t nturns)
{
	int valid = cubie2_is_valid(c);
	LAW(valid == ref_valid2(c), "cubie2_is_valid says %d", valid);
	cubie2 nm;
	int nrc = cubie2_normalize(c, &nm);
	int normalizable = ref_parity(c->cp, 8) >= 0;
	for (int i = 0; i < 8; i++)
		normalizable &= c->co[i] <= 2;
	if (normalizable) {
		int tw = 0;
		for (int i = 0; i < 8; i++)
			tw += c->co[i];
		normalizable = tw % 3 == 0;
	}
	LAW((nrc == CUBE_OK) == normalizable, "normalize says %s",
	    cube_errname(nrc));
	if (nrc == CUBE_OK)
		LAW(cubie2_is_valid(&nm), "normalize gave an invalid state");
	if (valid)
		LAW(nrc == CUBE_OK && cubie2_equal(&nm, c),
		    "normalize moved a normalised state");
	cube_index ix;
	int rc = cubie2_rank(c, &ix);
	if (!valid) {
		LAW(rc == CUBE_EINVALID, "ranked an invalid 2×2");
		return;
	}
	LAW(rc == CUBE_OK && ix.corner < CUBE2_STATES && ix.edge == 0,
	    "rank %s", cube_errname(rc));
	cubie2 u;
	LAW(cubie2_unrank(&ix, &u) == CUBE_OK && cubie2_equal(&u, c),
	    "unrank(rank(c)) != c");
	index_round_trip(&ix, 2);

	char f[24];
	cube2_to_facelets(c, f);
	cubie2 back;
	cube_orientation o;
	LAW(cube2_from_facelets(f, 24, &back, &o) == CUBE_OK &&
		    cubie2_equal(&back, c) && o.moves[0] == '\0',
	    "2×2 cubies → facelets → cubies is not lossless");

	cubie2 inv, t, solved;
	cubie2_solved(&solved);
	cubie2_invert(c, &inv);
	cubie2_compose(c, &inv, &t);
	LAW(cubie2_equal(&t, &solved), "c · c⁻¹ != solved (2×2)");

	/* turns composed freely then normalised = the engine's turns read
	 * back (which normalises by reading DBL) */
	cube_t *e = malloc(cube_sizeof(2));
	LAW(cube_from_facelets(e, 2, f, 24, NULL) == CUBE_OK, "read");
	cubie2 cur = *c;
	for (size_t i = 0; i < nturns; i++) {
		int face = turns[i] % 6, qt = turns[i] / 6 % 4;
		cubie2 m;
		LAW(cubie2_face_turn(face, qt, &m) == CUBE_OK, "face turn");
		cubie2_compose(&cur, &m, &cur);
		engine_turn(e, face, qt);
	}
	LAW(cubie2_normalize(&cur, &cur) == CUBE_OK, "normalize after turns");
	char g[24];
	cube_to_facelets(e, g);
	LAW(cube2_from_facelets(g, 24, &back, &o) == CUBE_OK &&
		    cubie2_equal(&back, &cur),
	    "2×2 cubie turns and cube_turn disagree");
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 + 40 + 16)
		return 0;
	int mode = data[0] % 3;
	cubie3 c3;
	cubie2 c2;
	state3_from(data + 1, mode, &c3);
	state2_from(data + 41, mode, &c2);
	const uint8_t *turns = data + 57;
	size_t nturns = size - 57;
	if (nturns > 64)
		nturns = 64;
	check3(&c3, turns, nturns);
	check2(&c2, turns, nturns);
	/* out-of-range arguments are refused, never read past */
	cubie3 m;
	piece_info pi;
	int face = (int)(int8_t)data[0];
	if (face < 0 || face > 5)
		LAW(cubie3_face_turn(face, 1, &m) == CUBE_EINVAL, "face %d", face);
	int kind = data[1] % 3, piece = (int)(int8_t)data[2];
	int prc = piece_query3(&c3, kind, piece, &pi);
	if (kind == 2)
		LAW(prc == CUBE_EINVAL, "kind 2: %s", cube_errname(prc));
	else if (piece < 0 || piece >= (kind ? 12 : 8))
		LAW(prc == CUBE_ERANGE, "piece %d: %s", piece, cube_errname(prc));
	else if (prc == CUBE_OK)
		LAW((kind ? c3.ep : c3.cp)[pi.position] == piece, "piece %d", piece);
	else
		LAW(prc == CUBE_EINVALID, "piece %d: %s", piece, cube_errname(prc));
	return 0;
}
