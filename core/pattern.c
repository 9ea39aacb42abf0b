/* pattern.c — pattern queries (seed 000): compiling a pattern string,
 * matching it against a state in all 24 whole-cube orientations, the named
 * patterns (generated as pattern text from place rules), and piece queries
 * on cubies.
 *
 * A whole-cube rotation carries every face onto a face and turns its grid
 * by some quarter turns, so where a pattern place lands is a face
 * permutation plus an affine map of (row, column). Those maps are derived
 * here from each face's frame in the net (outward normal, the direction
 * rows grow, the direction columns grow) turned by integer rotation
 * matrices, rather than typed in as 144 entries that would each need
 * checking; the test suite holds them to the facelet engine's x, y, z.
 *
 * Compiling keeps only the constrained places, ordered so that a state
 * that does not fit fails early: letters first, then each digit's places
 * together (its first place binds the colour, every later one must repeat
 * it). For n <= 3 the compiled pattern also holds, for each place, its
 * state index in all 24 orientations, so matching is a walk down a byte
 * table; on CPUs with AVX-512 VBMI it is one byte permutation per place
 * that reads the place in all 24 orientations at once (about 25 ns for the
 * cross on a 3×3, against about 150 ns for the table walk). Bigger cubes
 * map each place arithmetically as it is checked, so a compiled pattern
 * stays proportional to its constrained places at any n.
 */
#include "pattern.h"
#include "pattern_internal.h"
#include "cubie_internal.h"

#include <string.h>

enum { U, R, F, D, L, B };

#define ORIENTS 24
#define SMALL_N 3 /* up to this size, index tables per orientation */

/* --------------------------------------------------------------- geometry */

/* Each face's frame as seen from outside in the net: outward normal, the
 * direction of increasing row, of increasing column (axes x→R, y→U, z→F).
 * U has B at its top edge, D has F at its top edge, the side faces U. */
static const signed char frame[6][3][3] = {
	[U] = {{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
	[R] = {{1, 0, 0}, {0, -1, 0}, {0, 0, -1}},
	[F] = {{0, 0, 1}, {0, -1, 0}, {1, 0, 0}},
	[D] = {{0, -1, 0}, {0, 0, -1}, {1, 0, 0}},
	[L] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}},
	[B] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}},
};

/* One clockwise quarter turn of the contents about an axis, as x, y, z
 * turn the cube: x lifts F onto U, y carries F to L, z carries U to R. */
static void quarter(int axis, int v[3])
{
	int x = v[0], y = v[1], z = v[2];
	switch (axis) {
	case CUBE_X:
		v[0] = x, v[1] = z, v[2] = -y;
		break;
	case CUBE_Y:
		v[0] = -z, v[1] = y, v[2] = x;
		break;
	default:
		v[0] = y, v[1] = -x, v[2] = z;
		break;
	}
}

/* Orientation o = face·4 + k turns the pattern by y^k, then T_face
 * (pattern.h): T_U = "", T_R = z, T_F = x', T_D = x2, T_L = z', T_B = x,
 * as (axis, quarter turns). */
static const unsigned char t_face[6][2] = {
	[U] = {CUBE_Y, 0}, [R] = {CUBE_Z, 1}, [F] = {CUBE_X, 3},
	[D] = {CUBE_X, 2}, [L] = {CUBE_Z, 3}, [B] = {CUBE_X, 1},
};

static void rotate(int o, const signed char in[3], int out[3])
{
	out[0] = in[0], out[1] = in[1], out[2] = in[2];
	for (int k = 0; k < o % 4; k++)
		quarter(CUBE_Y, out);
	for (int k = 0; k < t_face[o / 4][1]; k++)
		quarter(t_face[o / 4][0], out);
}

static int dot(const int a[3], const signed char b[3])
{
	return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static int face_of_normal(const int v[3])
{
	for (int f = 0; f < 6; f++)
		if (dot(v, frame[f][0]) == 1)
			return f;
	return -1; /* not reached: rotations carry normals to normals */
}

/* Where face f's places land under orientation o on size n: face `face`,
 * row rr·r + rc·c + r0, column cr·r + cc·c + c0. */
struct place_map {
	int16_t r0, c0;
	int8_t rr, rc, cr, cc;
	uint8_t face, pad;
};

/* A place at (r, c) sits at n·N + (2c - m)·C + (2r - m)·Rw in doubled
 * coordinates (m = n - 1). After the rotation its column coordinate on the
 * new face is the dot product with that face's C, which is linear in r and
 * c with coefficients ±1 or 0; solving 2c' - m = α(2c - m) + β(2r - m)
 * gives c' = αc + βr + m(1 - α - β)/2, and the same for rows. */
static void derive_map(int o, int f, int n, struct place_map *pm)
{
	int nr[3], rd[3], cd[3], m = n - 1;
	rotate(o, frame[f][0], nr);
	rotate(o, frame[f][1], rd);
	rotate(o, frame[f][2], cd);
	int g = face_of_normal(nr);
	int cc = dot(cd, frame[g][2]), cr = dot(rd, frame[g][2]);
	int rc = dot(cd, frame[g][1]), rr = dot(rd, frame[g][1]);
	pm->face = (uint8_t)g;
	pm->cc = (int8_t)cc, pm->cr = (int8_t)cr;
	pm->rc = (int8_t)rc, pm->rr = (int8_t)rr;
	pm->c0 = (int16_t)(m * (1 - cc - cr) / 2);
	pm->r0 = (int16_t)(m * (1 - rc - rr) / 2);
	pm->pad = 0;
}

static void derive_maps(int n, struct place_map maps[ORIENTS][6])
{
	for (int o = 0; o < ORIENTS; o++)
		for (int f = 0; f < 6; f++)
			derive_map(o, f, n, &maps[o][f]);
}

static inline void map_place(const struct place_map *pm, int r, int c,
			     int *r2, int *c2)
{
	*r2 = pm->rr * r + pm->rc * c + pm->r0;
	*c2 = pm->cr * r + pm->cc * c + pm->c0;
}

void pattern_orientation_of(int k, pattern_orientation *out)
{
	if (k < 0 || k >= ORIENTS || !out)
		return;
	/* The solved cube turned by this orientation shows colour f on the
	 * face f's center lands on; orient.c's row for those centers holds
	 * the shortest moves back, which is the inverse rotation. */
	char centers[6];
	for (int f = 0; f < 6; f++) {
		int nr[3];
		rotate(k, frame[f][0], nr);
		centers[face_of_normal(nr)] = cube_face_letters[f];
	}
	cube_orientation co;
	cubie__orientation(cubie__rotation_of_centers(centers), &co);
	memset(out, 0, sizeof *out);
	out->face = cube_face_letters[k / 4];
	out->rotation = (int16_t)(90 * (k % 4));
	memcpy(out->moves, co.moves, sizeof co.moves);
}

/* ---------------------------------------------------------------- errors */

const char *pattern_errname(int err)
{
	switch (err) {
	case PATTERN_ECHAR:
		return "bad_pattern_char";
	case PATTERN_EDIGITS:
		return "bad_pattern_digit";
	case PATTERN_ENAME:
		return "unknown_pattern";
	}
	return cube_errname(err);
}

const char *pattern_strerror(int err)
{
	switch (err) {
	case PATTERN_ECHAR:
		return "a pattern place is not one of U R F D L B, 1-6 or *";
	case PATTERN_EDIGITS:
		return "pattern digits are 1 to 6: there are only six generic "
		       "colours";
	case PATTERN_ENAME:
		return "no named pattern with that name for this cube size";
	}
	return cube_strerror(err);
}

/* --------------------------------------------------------------- compile */

/* Ops, one per constrained place, read against a 16-entry colour table
 * whose entries 0..5 are the colours themselves (letters) and 8..13 the
 * colours bound to digits 1..6: op < 16 means "the sticker equals
 * table[op]"; op = 16 + 8 + d means "bind digit d+1 to the sticker, which
 * must be a colour no letter and no earlier digit has". */
#define OP_DIGIT 8
#define OP_BIND 16

struct pattern {
	int32_t n;
	uint32_t m;       /* constrained places */
	uint32_t letters; /* bit c: colour c is named by a letter */
	uint32_t pad;
	/* n <= 3: uint8_t idx[m][ROW], the state index of each place in
	 *         orientations 0..23, then zeros (one row per place, so a
	 *         vector unit can fetch a place in all orientations at once);
	 * n > 3:  struct place_map map[24][6], then uint32_t place[m] (face <<
	 *         20 | row << 10 | column);
	 * then uint8_t op[m]. Multi-byte fields are read with memcpy, so the
	 * buffer only needs the alignment of struct pattern. */
	unsigned char data[];
};

#define MAPS_BYTES (ORIENTS * 6 * sizeof(struct place_map))
#define ROW 32

static size_t bytes_for(int n, size_t m)
{
	size_t body = n <= SMALL_N ? (ROW + 1) * m : MAPS_BYTES + 5 * m;
	return (sizeof(struct pattern) + body + 7) & ~(size_t)7;
}

static int place_kind(char ch)
{
	switch (ch) {
	case 'U': case 'R': case 'F': case 'D': case 'L': case 'B':
		return 1;
	case '1': case '2': case '3': case '4': case '5': case '6':
		return 2;
	case '*':
		return 0;
	case '0': case '7': case '8': case '9':
		return -2;
	}
	return -1;
}

static int letter_color(char ch)
{
	return (int)(strchr(cube_face_letters, ch) - cube_face_letters);
}

/* The size a pattern text is for: n itself, or from the length when n is
 * 0; a negative code if n is out of range or the length is wrong. */
static int size_for(int n, size_t len)
{
	if (n == 0)
		return cube_size_from_length(len);
	if (n < CUBE_MIN_N || n > CUBE_MAX_N)
		return CUBE_ESIZE;
	if (len != 6u * (size_t)n * (size_t)n)
		return CUBE_ELENGTH;
	return n;
}

size_t pattern_sizeof(int n, const char *s, size_t len)
{
	if (!s) {
		if (n < CUBE_MIN_N || n > CUBE_MAX_N)
			return 0;
		return bytes_for(n, 6u * (size_t)n * (size_t)n);
	}
	int got = size_for(n, len);
	if (got < 0) /* compile will only report the error: no body */
		return sizeof(struct pattern);
	size_t m = 0;
	for (size_t i = 0; i < len; i++)
		m += s[i] != '*';
	return bytes_for(got, m);
}

int pattern_size(const pattern_t *p)
{
	return p ? p->n : CUBE_EINVAL;
}

static int fail(pattern_error *err, int code, size_t offset)
{
	if (err) {
		err->code = code;
		err->offset = offset;
	}
	return code;
}

/* Compiling state: where the next op and place go. */
struct emitter {
	pattern_t *p;
	int n;
	size_t k;
	unsigned char *op, *idx, *place;
	struct place_map (*maps)[6]; /* [ORIENTS][6] */
};

static void emit(struct emitter *e, size_t i, unsigned char op)
{
	int n = e->n;
	size_t nn = (size_t)n * (size_t)n;
	int f = (int)(i / nn), r = (int)(i % nn / (size_t)n),
	    c = (int)(i % (size_t)n);
	e->op[e->k] = op;
	if (n <= SMALL_N) {
		unsigned char *row = e->idx + e->k * ROW;
		memset(row, 0, ROW);
		for (int o = 0; o < ORIENTS; o++) {
			const struct place_map *pm = &e->maps[o][f];
			int r2, c2;
			map_place(pm, r, c, &r2, &c2);
			row[o] = (unsigned char)((size_t)pm->face * nn +
						 (size_t)r2 * (size_t)n +
						 (size_t)c2);
		}
	} else {
		uint32_t v = (uint32_t)f << 20 | (uint32_t)r << 10 | (uint32_t)c;
		memcpy(e->place + 4 * e->k, &v, 4);
	}
	e->k++;
}

int pattern_compile(pattern_t *p, int n, const char *s, size_t len,
		    pattern_error *err)
{
	if (!s && len)
		return fail(err, CUBE_EINVAL, 0);
	int got = size_for(n, len);
	if (got < 0)
		return fail(err, got, got == CUBE_ELENGTH ? len : 0);
	n = got;
	size_t m = 0;
	uint32_t letters = 0;
	for (size_t i = 0; i < len; i++) {
		int kind = place_kind(s[i]);
		if (kind < 0)
			return fail(err, kind == -2 ? PATTERN_EDIGITS
						    : PATTERN_ECHAR, i);
		m += kind != 0;
		if (kind == 1)
			letters |= 1u << letter_color(s[i]);
	}
	if (!p)
		return fail(err, CUBE_EINVAL, 0);

	p->n = n;
	p->m = (uint32_t)m;
	p->letters = letters;
	p->pad = 0;
	struct place_map maps[ORIENTS][6];
	derive_maps(n, maps);
	struct emitter e = {.p = p, .n = n, .maps = maps};
	if (n <= SMALL_N) {
		e.idx = p->data;
		e.op = p->data + ROW * m;
	} else {
		memcpy(p->data, maps, MAPS_BYTES);
		e.place = p->data + MAPS_BYTES;
		e.op = e.place + 4 * m;
	}
	for (size_t i = 0; i < len; i++)
		if (place_kind(s[i]) == 1)
			emit(&e, i, (unsigned char)letter_color(s[i]));
	for (int d = 0; d < 6; d++) {
		int bound = 0;
		for (size_t i = 0; i < len; i++) {
			if (s[i] != '1' + d)
				continue;
			emit(&e, i, (unsigned char)(bound ? OP_DIGIT + d
							  : OP_BIND + OP_DIGIT + d));
			bound = 1;
		}
	}
	return CUBE_OK;
}

/* ----------------------------------------------------------------- match */

/* Colour table for the ops: entries 0..5 are the letters' colours. */
static void table_init(unsigned char tab[16])
{
	for (int i = 0; i < 16; i++)
		tab[i] = (unsigned char)(i < 6 ? i : 0xff);
}

/* Apply one op to the sticker v; 0 if the place does not fit. */
static inline int step(unsigned char op, unsigned char v, unsigned char *tab,
		       uint32_t *used)
{
	if (op < OP_BIND)
		return v == tab[op];
	int fresh = !(*used >> v & 1);
	*used |= 1u << v;
	tab[op - OP_BIND] = v;
	return fresh;
}

/* Does the small-cube pattern p fit the logical stickers s in orientation
 * o? Most orientations of most states fail within a few places, at a
 * place no branch predictor can guess; so places are taken four at a time
 * with one exit test after each group, which is almost always taken and
 * so almost always predicted. (The op kinds repeat identically in every
 * orientation, so branching on them costs nothing.) */
#define GROUP 4

static inline int fits_small(const pattern_t *p, int o, const unsigned char *s,
			     unsigned char *tab)
{
	size_t m = p->m;
	const unsigned char *ix = p->data + o;
	const unsigned char *op = p->data + ROW * m;
	uint32_t used = p->letters;
	int ok = 1;
	for (size_t i = 0; i < m; i++) {
		ok &= step(op[i], s[ix[i * ROW]], tab, &used);
		if (i % GROUP == GROUP - 1 && !ok)
			return 0;
	}
	return ok;
}

static uint32_t match_small(const pattern_t *const *p, size_t np,
			    const unsigned char *s, int first)
{
	unsigned char tab[16];
	uint32_t got = 0;
	table_init(tab);
	for (int o = 0; o < ORIENTS; o++) {
		size_t i = 0;
		while (i < np && fits_small(p[i], o, s, tab))
			i++;
		if (i < np)
			continue;
		got |= 1u << o;
		if (first)
			break;
	}
	return got;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PATTERN_HAVE_VBMI 1
#define VBMI_TARGET "avx2,avx512f,avx512bw,avx512vl,avx512vbmi"

/* All 24 orientations at once. The state (at most 54 stickers) sits in
 * two 32-byte registers; one two-table byte permutation (vpermi2b) fetches
 * a place's sticker in every orientation from its index row, and each op
 * becomes a compare that clears the orientations it rules out. */
__attribute__((target(VBMI_TARGET))) static uint32_t
fit_mask_vbmi(const pattern_t *p, __m256i lo, __m256i hi, uint32_t mask)
{
	size_t m = p->m;
	const unsigned char *ix = p->data, *op = p->data + ROW * m;
	/* byte c of letters: 0xff if a letter names colour c */
	__m256i letters = _mm256_setzero_si256();
	if (p->letters) {
		unsigned char lt[32] = {0};
		for (int c = 0; c < 6; c++)
			lt[c] = p->letters >> c & 1 ? 0xff : 0;
		letters = _mm256_loadu_si256((const __m256i *)lt);
	}
	__m256i digit[6];
	int bound[6], nb = 0;
	for (size_t i = 0; i < m; i++) {
		__m256i idx = _mm256_loadu_si256((const __m256i *)(ix + i * ROW));
		__m256i v = _mm256_permutex2var_epi8(lo, idx, hi);
		unsigned char o = op[i];
		__mmask32 k;
		if (o < OP_DIGIT) {
			k = _mm256_cmpeq_epi8_mask(v, _mm256_set1_epi8((char)o));
		} else if (o < OP_BIND) {
			k = _mm256_cmpeq_epi8_mask(v, digit[o - OP_DIGIT]);
		} else {
			k = ~(__mmask32)0;
			if (p->letters) {
				__m256i named = _mm256_permutexvar_epi8(v, letters);
				k = ~_mm256_test_epi8_mask(named, named);
			}
			for (int e = 0; e < nb; e++)
				k &= _mm256_cmpneq_epi8_mask(v, digit[bound[e]]);
			digit[o - OP_BIND - OP_DIGIT] = v;
			bound[nb++] = o - OP_BIND - OP_DIGIT;
		}
		mask &= (uint32_t)k;
		if (!mask)
			return 0;
	}
	return mask;
}

__attribute__((target(VBMI_TARGET))) static uint32_t
match_small_vbmi(const pattern_t *const *p, size_t np, const unsigned char *s,
		 size_t len, int first)
{
	/* masked loads: nothing past the stickers is read */
	uint64_t keep = len >= 64 ? ~0ull : (1ull << len) - 1;
	__m256i lo = _mm256_maskz_loadu_epi8((__mmask32)keep, s);
	__m256i hi = _mm256_maskz_loadu_epi8((__mmask32)(keep >> 32), s + 32);
	uint32_t mask = (1u << ORIENTS) - 1;
	for (size_t i = 0; i < np && mask; i++)
		mask = fit_mask_vbmi(p[i], lo, hi, mask);
	return first ? mask & -mask : mask;
}

static int have_vbmi(void)
{
	return __builtin_cpu_supports("avx512vbmi") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl");
}
#endif

static int fits_big(const pattern_t *p, int o, const cube_t *c,
		    unsigned char *tab)
{
	size_t m = p->m;
	struct place_map pm[6];
	memcpy(pm, p->data + (size_t)o * 6 * sizeof pm[0], sizeof pm);
	const unsigned char *place = p->data + MAPS_BYTES;
	const unsigned char *op = place + 4 * m;
	uint32_t used = p->letters;
	for (size_t i = 0; i < m; i++) {
		uint32_t v;
		memcpy(&v, place + 4 * i, 4);
		const struct place_map *q = &pm[v >> 20];
		int r2, c2;
		map_place(q, (int)(v >> 10 & 1023), (int)(v & 1023), &r2, &c2);
		int st = cube_get(c, q->face, r2, c2);
		if (!step(op[i], (unsigned char)st, tab, &used))
			return 0;
	}
	return 1;
}

static uint32_t match_big(const pattern_t *const *p, size_t np,
			  const cube_t *c, int first)
{
	unsigned char tab[16];
	uint32_t got = 0;
	table_init(tab);
	for (int o = 0; o < ORIENTS; o++) {
		size_t i = 0;
		while (i < np && fits_big(p[i], o, c, tab))
			i++;
		if (i < np)
			continue;
		got |= 1u << o;
		if (first)
			break;
	}
	return got;
}

/* pattern_match, with the vector path allowed or not. */
static int match(const pattern_t *const *p, size_t np, const cube_t *c,
		 int first, uint32_t *mask, int simd)
{
	if (!p || np == 0 || !c || !mask)
		return CUBE_EINVAL;
	for (size_t i = 0; i < np; i++)
		if (!p[i] || p[i]->n != c->n)
			return CUBE_EINVAL;
	int n = c->n;
	uint32_t got;
	if (n > SMALL_N) {
		got = match_big(p, np, c, first);
	} else {
		/* The index rows are logical places: read the stored grid
		 * directly only when no face carries a lazy rotation (a 3×3
		 * never does today), else copy the stickers out once. */
		unsigned char buf[64] = {0};
		const unsigned char *s = c->st;
		size_t len = 6u * (size_t)n * (size_t)n;
		if (n != 3 || (c->rot[0] | c->rot[1] | c->rot[2] | c->rot[3] |
			       c->rot[4] | c->rot[5])) {
			unsigned char *b = buf;
			for (int f = 0; f < 6; f++)
				for (int r = 0; r < n; r++)
					for (int col = 0; col < n; col++)
						*b++ = (unsigned char)cube_get(c, f, r, col);
			s = buf;
		}
#ifdef PATTERN_HAVE_VBMI
		if (simd && have_vbmi())
			got = match_small_vbmi(p, np, s, len, first);
		else
#endif
			got = match_small(p, np, s, first);
		(void)len;
		(void)simd;
	}
	*mask = got;
	return __builtin_popcount(got);
}

int pattern_match(const pattern_t *const *p, size_t np, const cube_t *c,
		  int first, uint32_t *mask)
{
	return match(p, np, c, first, mask, 1);
}

int pattern__match_portable(const pattern_t *const *p, size_t np,
			    const cube_t *c, int first, uint32_t *mask)
{
	return match(p, np, c, first, mask, 0);
}

/* -------------------------------------------------------- named patterns */

/* Digits by face, in seed 000's order for its example: the stage face A
 * (our U) is 1, A.up (B, above U in the net) 2, A.right (R) 3, A.left (L)
 * 4, A.down (F) 5, the opposite face (D) 6. Named stages are built on the
 * pattern's U side, so the face a match reports is the face the stage is
 * built on. */
static const char face_digit[6] = {
	[U] = '1', [B] = '2', [R] = '3', [L] = '4', [F] = '5', [D] = '6',
};

enum named_kind {
	NK_SOLVED, NK_CROSS, NK_FIRST_LAYER, NK_F2L, NK_EO, NK_OLL,
	NK_CENTERS, NK_EDGES, NK_REDUCED,
};

struct named {
	pattern_named pub; /* first: pattern_named_text finds its way back */
	enum named_kind kind;
};

static const struct named named1[] = {
	{{"solved", "every face one colour", 1}, NK_SOLVED},
};

static const struct named named2[] = {
	{{"first_layer",
	  "one face one colour and the ring of stickers around it matching "
	  "(seed 000's example); reported on that face", 1},
	 NK_FIRST_LAYER},
	{{"solved", "every face one colour", 1}, NK_SOLVED},
};

static const struct named named3[] = {
	{{"solved", "every face one colour", 1}, NK_SOLVED},
	{{"cross",
	  "a cross on one face: its edges placed and oriented against the "
	  "side centers; reported on the cross face", 1},
	 NK_CROSS},
	{{"first_layer",
	  "the first layer solved: cross face one colour, the side stickers "
	  "next to it matching their centers", 1},
	 NK_FIRST_LAYER},
	{{"f2l", "the first two layers solved; reported on the first face", 1},
	 NK_F2L},
	{{"eo",
	  "F2L solved and the last layer's edges oriented (a cross on the "
	  "last face)", 1},
	 NK_EO},
	{{"oll", "F2L solved and the last face one colour (last layer "
		 "oriented)", 1},
	 NK_OLL},
	{{"pll", "solved (the last layer permuted after OLL)", 1}, NK_SOLVED},
};

static const struct named named_big[] = {
	{{"centers_solved", "each face's inner (n-2)² block one colour", 1},
	 NK_CENTERS},
	{{"edges_paired",
	  "each edge's n-2 inner stickers one colour on each of its faces "
	  "(one part per edge)", 12},
	 NK_EDGES},
	{{"reduced",
	  "centers solved and edges paired: a 3×3 in disguise", 13},
	 NK_REDUCED},
	{{"solved", "every face one colour", 1}, NK_SOLVED},
};

static const struct named *named_table(int n, int *count)
{
	const struct named *t = NULL;
	int k = 0;
	if (n == 1)
		t = named1, k = (int)(sizeof named1 / sizeof named1[0]);
	else if (n == 2)
		t = named2, k = (int)(sizeof named2 / sizeof named2[0]);
	else if (n == 3)
		t = named3, k = (int)(sizeof named3 / sizeof named3[0]);
	else if (n >= 4 && n <= CUBE_MAX_N)
		t = named_big, k = (int)(sizeof named_big / sizeof named_big[0]);
	*count = k;
	return t;
}

int pattern_named_count(int n)
{
	int k;
	named_table(n, &k);
	return k;
}

const pattern_named *pattern_named_at(int n, int k)
{
	int count;
	const struct named *t = named_table(n, &count);
	return k >= 0 && k < count ? &t[k].pub : NULL;
}

const pattern_named *pattern_named_find(int n, const char *name)
{
	int count;
	const struct named *t = named_table(n, &count);
	for (int k = 0; name && k < count; k++)
		if (strcmp(t[k].pub.name, name) == 0)
			return &t[k].pub;
	return NULL;
}

/* Place rules. A text is built on a '*' background; the stage face is U,
 * the last face D, the sides R F L B. */
struct text {
	char *s;
	int n;
};

static void put(struct text *t, int f, int r, int c, char ch)
{
	t->s[((size_t)f * (size_t)t->n + (size_t)r) * (size_t)t->n +
	     (size_t)c] = ch;
}

static int adjacent(int f, int g)
{
	return f != g && f != (g + 3) % 6;
}

/* The place at step t along face f's edge that touches face g (adjacent):
 * the row or column of f whose outward direction is g's normal. */
static void border(int n, int f, int g, int t, int *r, int *c)
{
	const signed char *rd = frame[f][1], *cd = frame[f][2], *ng = frame[g][0];
	int dr = rd[0] * ng[0] + rd[1] * ng[1] + rd[2] * ng[2];
	int dc = cd[0] * ng[0] + cd[1] * ng[1] + cd[2] * ng[2];
	if (dr)
		*r = dr > 0 ? n - 1 : 0, *c = t;
	else
		*c = dc > 0 ? n - 1 : 0, *r = t;
}

static int on_border(int n, int f, int g, int r, int c)
{
	for (int t = 0; t < n; t++) {
		int br, bc;
		border(n, f, g, t, &br, &bc);
		if (br == r && bc == c)
			return 1;
	}
	return 0;
}

static void whole_face(struct text *t, int f)
{
	for (int r = 0; r < t->n; r++)
		for (int c = 0; c < t->n; c++)
			put(t, f, r, c, face_digit[f]);
}

static void center(struct text *t, int f)
{
	if (t->n % 2)
		put(t, f, t->n / 2, t->n / 2, face_digit[f]);
}

/* Face f's center and the middle sticker of each of its edges (odd n):
 * the edges of that layer oriented, wherever they are in it. */
static void plus(struct text *t, int f)
{
	int n = t->n, r, c;
	center(t, f);
	for (int g = 0; g < 6; g++) {
		if (!adjacent(f, g))
			continue;
		border(n, f, g, n / 2, &r, &c);
		put(t, f, r, c, face_digit[f]);
	}
}

/* A cross on face f: the plus, and on each side its center and the middle
 * sticker next to f, so each edge is also in its place. */
static void cross(struct text *t, int f)
{
	int n = t->n, r, c;
	plus(t, f);
	for (int g = 0; g < 6; g++) {
		if (!adjacent(f, g))
			continue;
		border(n, g, f, n / 2, &r, &c);
		put(t, g, r, c, face_digit[g]);
		center(t, g);
	}
}

/* The first layer on U: the face whole, each side's strip next to U and
 * its center (a 2×2 has none). */
static void first_layer(struct text *t)
{
	int r, c;
	whole_face(t, U);
	for (int g = 0; g < 6; g++) {
		if (!adjacent(U, g))
			continue;
		center(t, g);
		for (int k = 0; k < t->n; k++) {
			border(t->n, g, U, k, &r, &c);
			put(t, g, r, c, face_digit[g]);
		}
	}
}

/* The first two layers: U whole and every side place not next to D. */
static void f2l(struct text *t)
{
	whole_face(t, U);
	for (int g = 0; g < 6; g++)
		if (adjacent(U, g))
			for (int r = 0; r < t->n; r++)
				for (int c = 0; c < t->n; c++)
					if (!on_border(t->n, g, D, r, c))
						put(t, g, r, c, face_digit[g]);
}

static void centers(struct text *t)
{
	for (int f = 0; f < 6; f++)
		for (int r = 1; r < t->n - 1; r++)
			for (int c = 1; c < t->n - 1; c++)
				put(t, f, r, c, face_digit[f]);
}

/* Edge e (Kociemba's order UR … BR): its inner stickers on its first face
 * one digit, on its second face another. Each edge is its own part, since
 * twelve edges need more than six digits. */
static void edge(struct text *t, int e)
{
	int a = cubie__edge_color[e][0], b = cubie__edge_color[e][1], r, c;
	for (int k = 1; k < t->n - 1; k++) {
		border(t->n, a, b, k, &r, &c);
		put(t, a, r, c, '1');
		border(t->n, b, a, k, &r, &c);
		put(t, b, r, c, '2');
	}
}

int pattern_named_text(const pattern_named *pn, int n, int part, char *out)
{
	int count;
	const struct named *tab = named_table(n, &count), *nm = NULL;
	for (int k = 0; k < count; k++)
		if (pn == &tab[k].pub)
			nm = &tab[k];
	if (!nm || !out)
		return CUBE_EINVAL;
	if (part < 0 || part >= nm->pub.nparts)
		return CUBE_ERANGE;
	struct text t = {out, n};
	memset(out, '*', 6u * (size_t)n * (size_t)n);
	switch (nm->kind) {
	case NK_SOLVED:
		for (int f = 0; f < 6; f++)
			whole_face(&t, f);
		break;
	case NK_CROSS:
		cross(&t, U);
		break;
	case NK_FIRST_LAYER:
		first_layer(&t);
		break;
	case NK_F2L:
		f2l(&t);
		break;
	case NK_EO:
		f2l(&t);
		plus(&t, D);
		break;
	case NK_OLL:
		f2l(&t);
		whole_face(&t, D);
		break;
	case NK_CENTERS:
		centers(&t);
		break;
	case NK_EDGES:
		edge(&t, part);
		break;
	case NK_REDUCED:
		if (part == 0)
			centers(&t);
		else
			edge(&t, part - 1);
		break;
	}
	return CUBE_OK;
}

/* --------------------------------------------------------- piece queries */

static int piece_find(const uint8_t *perm, const uint8_t *ori, int count,
		      int piece, piece_info *out)
{
	for (int i = 0; i < count; i++) {
		if (perm[i] != piece)
			continue;
		out->position = i;
		out->orientation = ori[i];
		out->placed = i == piece;
		out->oriented = ori[i] == 0;
		return CUBE_OK;
	}
	return CUBE_EINVALID; /* not a permutation */
}

int piece_query3(const cubie3 *c, int kind, int piece, piece_info *out)
{
	if (!c || !out || (kind != 0 && kind != 1))
		return CUBE_EINVAL;
	if (piece < 0 || piece >= (kind ? 12 : 8))
		return CUBE_ERANGE;
	return kind ? piece_find(c->ep, c->eo, 12, piece, out)
		    : piece_find(c->cp, c->co, 8, piece, out);
}

int piece_query2(const cubie2 *c, int piece, piece_info *out)
{
	if (!c || !out)
		return CUBE_EINVAL;
	if (piece < 0 || piece >= 8)
		return CUBE_ERANGE;
	return piece_find(c->cp, c->co, 8, piece, out);
}

const char *piece_corner_name(int i)
{
	return i >= 0 && i < 8 ? cubie__corner_name[i] : NULL;
}

const char *piece_edge_name(int i)
{
	return i >= 0 && i < 12 ? cubie__edge_name[i] : NULL;
}

/* The set of faces a name's letters name, as bits; 0 if a letter is not a
 * face letter or repeats. */
static unsigned face_set(const char *s, size_t len)
{
	unsigned set = 0;
	for (size_t i = 0; i < len; i++) {
		const char *k = s[i] ? strchr(cube_face_letters, s[i]) : NULL;
		if (!k)
			return 0;
		unsigned bit = 1u << (k - cube_face_letters);
		if (set & bit)
			return 0;
		set |= bit;
	}
	return set;
}

int piece_parse(const char *s, size_t len, int *kind)
{
	if (!s || (len != 2 && len != 3))
		return -1;
	unsigned want = face_set(s, len);
	if (!want)
		return -1;
	int k = len == 3 ? 0 : 1, count = k ? 12 : 8;
	for (int i = 0; i < count; i++) {
		const char *name = k ? cubie__edge_name[i] : cubie__corner_name[i];
		if (face_set(name, len) == want) {
			if (kind)
				*kind = k;
			return i;
		}
	}
	return -1;
}
