/* repr.c — builds each representation of a cube state as JSON for the
 * routes that answer states (/v1/convert, /v1/apply): facelets, faces,
 * cubies, index, orientation, features, render data and per-move
 * animation, and turns cube_validate's findings into sentences.
 *
 * Big arrays repeat a handful of values (six letters, 0 and 1, a few small
 * integers), so those are made once per reply and shared by reference
 * (jansson counts them): a 256³ "faces" is 393,216 references to six
 * strings, not 393,216 strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "repr.h"

static const char *const names[REPR_COUNT] = {
	[REPR_FACELETS] = "facelets",       [REPR_CUBIE] = "cubie",
	[REPR_INDEX] = "index",             [REPR_ORIENTATION] = "orientation",
	[REPR_FACES] = "faces",             [REPR_FEATURES] = "features",
	[REPR_RENDER] = "render",           [REPR_ANIMATION] = "animation",
};

static const char *const corner_names[8] = {"URF", "UFL", "ULB", "UBR",
					    "DFR", "DLF", "DBL", "DRB"};
static const char *const edge_names[12] = {"UR", "UF", "UL", "UB",
					   "DR", "DF", "DL", "DB",
					   "FR", "FL", "BL", "BR"};

const char *repr_name(enum repr r)
{
	return (unsigned)r < REPR_COUNT ? names[r] : NULL;
}

int repr_lookup(const char *s, size_t len)
{
	for (int r = 0; r < REPR_COUNT; r++)
		if (strlen(names[r]) == len && memcmp(names[r], s, len) == 0)
			return r;
	return -1;
}

int repr_applies(enum repr r, int n)
{
	switch (r) {
	case REPR_CUBIE:
	case REPR_INDEX:
	case REPR_ORIENTATION:
		return n == 2 || n == 3;
	case REPR_FEATURES:
		return n == 3;
	default:
		return n >= CUBE_MIN_N && n <= CUBE_MAX_N;
	}
}

int repr_max_n(enum repr r)
{
	return r == REPR_FACES    ? REPR_FACES_MAX_N
	       : r == REPR_RENDER ? REPR_RENDER_MAX_N
				  : 0;
}

/* ---- cubies ------------------------------------------------------------ */

void repr_orientation_standard(cube_orientation *o)
{
	memset(o, 0, sizeof *o);
	o->up = 'U';
	o->front = 'F';
}

int repr_cubies_from_facelets(const char *s, size_t len,
			      struct repr_cubies *out)
{
	struct repr_cubies rc;
	memset(&rc, 0, sizeof rc);
	int rcode;
	if (len == 54) {
		rc.n = 3;
		rcode = cube3_from_facelets(s, len, &rc.c3, &rc.orient);
	} else if (len == 24) {
		rc.n = 2;
		rcode = cube2_from_facelets(s, len, &rc.c2, &rc.orient);
	} else {
		return CUBE_EINVAL;
	}
	if (rcode < 0)
		return rcode;
	*out = rc;
	return CUBE_OK;
}

void repr_cubies_to_facelets(const struct repr_cubies *rc, char *out)
{
	if (rc->n == 3)
		cube3_to_facelets(&rc->c3, out);
	else
		cube2_to_facelets(&rc->c2, out);
}

/* ---- shared scalars ---------------------------------------------------- */

/* json_array_append_new that also releases v when the append fails, so a
 * builder can chain appends and check once. */
static int append_new(json_t *arr, json_t *v)
{
	return v == NULL ? -1 : json_array_append_new(arr, v);
}

static json_t *int_array(const uint8_t *v, size_t count)
{
	json_t *a = json_array();
	int bad = a == NULL;
	for (size_t i = 0; !bad && i < count; i++)
		bad = append_new(a, json_integer(v[i])) < 0;
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* The six face letters as one-letter JSON strings, or -1. */
static int letter_strings(json_t *letter[6])
{
	int bad = 0;
	for (int f = 0; f < 6; f++) {
		letter[f] = json_stringn_nocheck(&cube_face_letters[f], 1);
		bad |= letter[f] == NULL;
	}
	return bad ? -1 : 0;
}

static void release(json_t **v, size_t count)
{
	for (size_t i = 0; i < count; i++)
		json_decref(v[i]);
}

/* ---- states ------------------------------------------------------------ */

json_t *repr_facelets(const cube_t *c)
{
	size_t len = 6 * (size_t)c->n * (size_t)c->n;
	char *buf = malloc(len);
	if (buf == NULL)
		return NULL;
	cube_to_facelets(c, buf);
	json_t *s = json_stringn_nocheck(buf, len);
	free(buf);
	return s;
}

json_t *repr_faces(const cube_t *c)
{
	json_t *letter[6];
	json_t *out = json_object();
	int bad = letter_strings(letter) < 0 || out == NULL;
	for (int f = 0; !bad && f < 6; f++) {
		json_t *rows = json_array();
		bad = rows == NULL ||
		      json_object_setn_new_nocheck(out, &cube_face_letters[f],
						   1, rows) < 0;
		for (int r = 0; !bad && r < c->n; r++) {
			json_t *row = json_array();
			bad = append_new(rows, row) < 0;
			for (int k = 0; !bad && k < c->n; k++)
				bad = json_array_append(
					      row, letter[cube_get(c, f, r, k)]) <
				      0;
		}
	}
	release(letter, 6);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *repr_cubie(const struct repr_cubies *rc)
{
	if (rc->n == 2)
		return json_pack("{s:o, s:o}", "cp", int_array(rc->c2.cp, 8),
				 "co", int_array(rc->c2.co, 8));
	return json_pack("{s:o, s:o, s:o, s:o}", "cp", int_array(rc->c3.cp, 8),
			 "co", int_array(rc->c3.co, 8), "ep",
			 int_array(rc->c3.ep, 12), "eo",
			 int_array(rc->c3.eo, 12));
}

json_t *repr_index(const struct repr_cubies *rc)
{
	cube_index ix;
	int rcode = rc->n == 3 ? cubie3_rank(&rc->c3, &ix)
			       : cubie2_rank(&rc->c2, &ix);
	if (rcode < 0)
		return NULL;
	char text[32];
	size_t len = cube_index_format(&ix, rc->n, text, sizeof text);
	if (len >= sizeof text)
		return NULL;
	return json_stringn_nocheck(text, len);
}

json_t *repr_orientation(const cube_orientation *o)
{
	char up[2] = {o->up, '\0'}, front[2] = {o->front, '\0'};
	char moves[sizeof o->moves + 1];
	memcpy(moves, o->moves, sizeof o->moves);
	moves[sizeof o->moves] = '\0';
	return json_pack("{s:s, s:s, s:s}", "up", up, "front", front, "moves",
			 moves);
}

json_t *repr_features(const cubie3 *c)
{
	float f[CUBE3_FEATURES];
	cubie3_features(c, f);
	json_t *bit[2] = {json_integer(0), json_integer(1)};
	json_t *out = json_array();
	int bad = bit[0] == NULL || bit[1] == NULL || out == NULL;
	for (int i = 0; !bad && i < CUBE3_FEATURES; i++)
		bad = json_array_append(out, bit[f[i] != 0.0f]) < 0;
	release(bit, 2);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---- render and animation --------------------------------------------- */

/* One render_cubie; ints[k] is the JSON integer k - 1 (k = 0 … n). */
static json_t *render_cubie_json(const render_cubie *rc, json_t *const *ints,
				 json_t *const *letter)
{
	json_t *pos = json_array(), *rot = json_array(), *st = json_object();
	json_t *out = json_object();
	int bad = !pos || !rot || !st || !out;
	for (int k = 0; !bad && k < 3; k++)
		bad = json_array_append(pos, ints[rc->pos[k] + 1]) < 0;
	for (int k = 0; !bad && k < 9; k++)
		bad = json_array_append(rot, ints[rc->rot[k] + 1]) < 0;
	for (int s = 0; !bad && s < 6; s++) {
		const char *p = rc->sticker[s]
					? memchr(cube_face_letters, rc->sticker[s], 6)
					: NULL;
		if (p)
			bad = json_object_setn_nocheck(
				      st, &cube_face_letters[s], 1,
				      letter[p - cube_face_letters]) < 0;
	}
	if (!bad)
		bad = json_object_set(out, "position", pos) < 0 ||
		      json_object_set(out, "rotation", rot) < 0 ||
		      json_object_set(out, "stickers", st) < 0;
	json_decref(pos);
	json_decref(rot);
	json_decref(st);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static json_t *axes_json(void)
{
	json_t *axes = json_object();
	for (int f = 0; axes && f < 6; f++) {
		const int8_t *v = render_face_normal[f];
		json_t *a = json_pack("[i, i, i]", v[0], v[1], v[2]);
		if (a == NULL || json_object_setn_new_nocheck(
					 axes, &cube_face_letters[f], 1, a) < 0) {
			json_decref(axes);
			return NULL;
		}
	}
	return axes;
}

json_t *repr_render(const cube_t *c)
{
	int n = c->n;
	size_t count = render_cubie_count(n);
	render_cubie *rc = malloc(count * sizeof *rc);
	/* ints[k] = k - 1: positions 0 … n-1, matrix entries -1 … 1 */
	size_t nints = (size_t)n + 2;
	json_t **ints = calloc(nints, sizeof *ints);
	json_t *letter[6] = {0};
	json_t *cubies = json_array();
	json_t *out = NULL;
	int bad = !rc || !ints || !cubies || letter_strings(letter) < 0 ||
		  render_cubies(c, rc, count) != (int64_t)count;
	for (size_t k = 0; !bad && k < nints; k++)
		bad = (ints[k] = json_integer((json_int_t)k - 1)) == NULL;
	for (size_t i = 0; !bad && i < count; i++)
		bad = append_new(cubies, render_cubie_json(&rc[i], ints,
							   letter)) < 0;
	if (!bad) {
		out = json_pack("{s:i, s:o, s:O}", "size", n, "axes",
				axes_json(), "cubies", cubies);
	}
	json_decref(cubies);
	release(letter, 6);
	if (ints)
		release(ints, nints);
	free(ints);
	free(rc);
	return out;
}

json_t *repr_animation(const alg_t *a)
{
	size_t count = (size_t)a->length;
	cube_move *m = malloc((count ? count : 1) * sizeof *m);
	size_t need = alg_print_expanded(a, 0, NULL, 0);
	char *text = malloc(need + 1);
	json_t *out = json_array();
	int bad = !m || !text || !out ||
		  alg_expand(a, 0, m, count) != (int64_t)count ||
		  alg_print_expanded(a, 0, text, need + 1) != need;
	/* The printed expansion is the moves separated by single spaces. */
	const char *p = text;
	for (size_t i = 0; !bad && i < count; i++) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		render_turn t;
		render_turn_of(&m[i], a->n, &t);
		char axis[2] = {"xyz"[t.axis % 3], '\0'};
		bad = len == 0 ||
		      append_new(out, json_pack("{s:s%, s:s, s:[i, i], s:i}",
						"move", p, len, "axis", axis,
						"layers", t.from, t.to, "angle",
						t.angle)) < 0;
		p += len + (end != NULL);
	}
	if (!bad && *p != '\0')
		bad = 1; /* more printed moves than expanded ones */
	free(text);
	free(m);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---- validation -------------------------------------------------------- */

/* What a problem found, in words, after its reason's sentence. */
static void describe(const cube_problem *p, int n, char *out, size_t cap)
{
	const char *sentence = cube_validation_sentence(p->reason);
	const char *d = p->detail;
	int w = p->where;
	int corner = w >= 0 && w < 8, edge = w >= 0 && w < 12;
	int orbit;
	char c1, c2;
	if ((p->reason == CV_NO_SUCH_EDGE || p->reason == CV_DUPLICATE_EDGE) &&
	    sscanf(d, "wing %d %c%c", &orbit, &c1, &c2) == 3 && n > 0 &&
	    w >= 0) {
		/* a wing of a big cube: where is the facelet of its sticker
		 * on the first of its two faces in U R F D L B order */
		long nn = (long)n * n;
		char face = w / nn < 6 ? cube_face_letters[w / nn] : '?';
		int row = (int)(w % nn / n), col = (int)(w % nn % n);
		if (p->reason == CV_NO_SUCH_EDGE)
			snprintf(out, cap,
				 "%s: the wing of orbit %d at %c row %d, "
				 "column %d shows %c%c",
				 sentence, orbit, face, row, col, c1, c2);
		else
			snprintf(out, cap,
				 "%s: the %c%c wing of orbit %d again (or "
				 "flipped in place), at %c row %d, column %d",
				 sentence, c1, c2, orbit, face, row, col);
		return;
	}
	switch (p->reason) {
	case CV_LENGTH:
		snprintf(out, cap, "%s: it has %s", sentence, d);
		break;
	case CV_LETTER:
		snprintf(out, cap, "%s: \"%s\" at offset %d", sentence, d, w);
		break;
	case CV_COLOR_COUNT:
		snprintf(out, cap, "%s: %c appears %s times, not %ld", sentence,
			 w >= 0 && w < 6 ? cube_face_letters[w] : '?', d,
			 (long)n * n);
		break;
	case CV_CENTERS:
		snprintf(out, cap, "%s: the centers read %s (U R F D L B)",
			 sentence, d);
		break;
	case CV_NO_SUCH_CORNER:
		snprintf(out, cap, "%s: the %s corner shows %s", sentence,
			 corner ? corner_names[w] : "?", d);
		break;
	case CV_DUPLICATE_CORNER:
		snprintf(out, cap, "%s: the %s piece again, at the %s position",
			 sentence, d, corner ? corner_names[w] : "?");
		break;
	case CV_NO_SUCH_EDGE:
		snprintf(out, cap, "%s: the %s edge shows %s", sentence,
			 edge ? edge_names[w] : "?", d);
		break;
	case CV_DUPLICATE_EDGE:
		snprintf(out, cap, "%s: the %s piece again, at the %s position",
			 sentence, d, edge ? edge_names[w] : "?");
		break;
	case CV_TWIST:
		snprintf(out, cap, "%s (the sum is %s mod 3)", sentence, d);
		break;
	case CV_FLIP:
		snprintf(out, cap, "%s (the sum is %s mod 2)", sentence, d);
		break;
	case CV_PARITY:
		snprintf(out, cap, "%s (corners %s, edges %s)", sentence,
			 strstr(d, "c:odd") ? "odd" : "even",
			 strstr(d, "e:odd") ? "odd" : "even");
		break;
	case CV_CENTER_ORBIT: {
		/* "U3R1F5D4L4B4" → "U 3, R 1, …" */
		char counts[64];
		size_t k = 0;
		for (const char *s = d; *s && k + 4 < sizeof counts; s++) {
			if (s != d && *s >= 'A' && *s <= 'Z') {
				counts[k++] = ',';
				counts[k++] = ' ';
			}
			counts[k++] = *s;
			if (*s >= 'A' && *s <= 'Z')
				counts[k++] = ' ';
		}
		counts[k] = '\0';
		snprintf(out, cap,
			 "%s: the ring through the center at row %d, column "
			 "%d holds %s",
			 sentence, n > 0 ? w / n : 0, n > 0 ? w % n : 0, counts);
		break;
	}
	default:
		snprintf(out, cap, "%s%s%s", sentence, *d ? ": " : "", d);
	}
}

json_t *repr_validation_errors(const char *s, size_t len, size_t max,
			       cube_validation_result *res)
{
	cube_problem small[32];
	cube_problem *p = small;
	int count = cube_validate(s, len, small,
				  sizeof small / sizeof *small, res);
	if (count < 0)
		return NULL;
	size_t shown = (size_t)count < max ? (size_t)count : max;
	if (shown > 32) {
		p = malloc(shown * sizeof *p);
		if (p == NULL || cube_validate(s, len, p, shown, res) != count) {
			free(p);
			return NULL;
		}
	}
	json_t *out = json_array();
	int bad = out == NULL;
	for (size_t i = 0; !bad && i < shown; i++) {
		char detail[256];
		describe(&p[i], res->n, detail, sizeof detail);
		json_t *e = json_pack("{s:s, s:s}", "code",
				      cube_validation_code(p[i].reason),
				      "detail", detail);
		if (e && p[i].where >= 0 &&
		    json_object_set_new(e, "where", json_integer(p[i].where)) <
			    0) {
			json_decref(e);
			e = NULL;
		}
		bad = append_new(out, e) < 0;
	}
	if (p != small)
		free(p);
	if (bad) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *repr_unchecked(unsigned flags)
{
	static const struct {
		unsigned flag;
		const char *name;
	} names_of[] = {
		{CV_UNCHECKED_EDGE_PAIRING, "edge_pairing"},
		{CV_UNCHECKED_PARITY, "parity"},
		{CV_UNCHECKED_CENTER_PLACEMENT, "center_placement"},
	};
	json_t *out = json_array();
	for (size_t i = 0; out && i < sizeof names_of / sizeof *names_of; i++)
		if ((flags & names_of[i].flag) &&
		    append_new(out, json_string(names_of[i].name)) < 0) {
			json_decref(out);
			return NULL;
		}
	return out;
}

/* ---- solutions in the frame a cube was given in ---------------------- */

/* Where each face of the standard frame sits on the cube as given: turn a
 * solved cube by the inverse of the orientation's moves and read its
 * centers. */
static void frame_map(const cube_orientation *o, int map[6])
{
	for (int f = 0; f < 6; f++)
		map[f] = f;
	if (!o->moves[0])
		return;
	alg_node nodes[32];
	alg_t a;
	unsigned char buf[256];
	cube_t *c = (cube_t *)buf;
	if (cube_sizeof(3) > sizeof buf ||
	    alg_parse(&a, nodes, 32, 3, o->moves, strlen(o->moves), NULL,
		      NULL) < 0)
		return;
	cube_init(c, 3);
	alg_apply(&a, c, 1);
	for (int g = 0; g < 6; g++)
		map[cube_get(c, g, 1, 1)] = g;
}

static const int face_axis[6] = {CUBE_Y, CUBE_X, CUBE_Z, CUBE_Y, CUBE_X,
				 CUBE_Z};

/* A standard-frame face turn of size n, renamed into the given frame. */
static cube_move rename_move(cube_move m, int n, const int map[6])
{
	int positive = m.lo == 0;
	static const int pos_face[3] = {CUBE_R, CUBE_U, CUBE_F};
	static const int neg_face[3] = {CUBE_L, CUBE_D, CUBE_B};
	int f = positive ? pos_face[m.axis] : neg_face[m.axis];
	int qt_face = positive ? m.qt : (4 - m.qt) & 3; /* seen from f */
	int g = map[f];
	cube_move out;
	out.axis = (uint8_t)face_axis[g];
	int g_positive = g == CUBE_R || g == CUBE_U || g == CUBE_F;
	out.lo = out.hi = (uint16_t)(g_positive ? 0 : n - 1);
	out.qt = (uint8_t)(g_positive ? qt_face : (4 - qt_face) & 3);
	return out;
}

void repr_moves_to_frame(cube_move *m, int count, int n,
			 const cube_orientation *o)
{
	int map[6];
	frame_map(o, map);
	for (int i = 0; i < count; i++)
		m[i] = rename_move(m[i], n, map);
}

int repr_cubies_of_cube(const cube_t *c, struct repr_cubies *out,
			json_t **errors)
{
	char s[54];
	size_t len = 6 * (size_t)c->n * (size_t)c->n;
	*errors = NULL;
	if (c->n != 2 && c->n != 3)
		return CUBE_ESIZE;
	cube_to_facelets(c, s);
	int rc = repr_cubies_from_facelets(s, len, out);
	if (rc != CUBE_EINVALID)
		return rc;
	cube_validation_result res;
	*errors = repr_validation_errors(s, len, REPR_MAX_ERRORS, &res);
	if (*errors && res.count == 0) {
		json_decref(*errors);
		*errors = NULL;
	}
	return rc;
}
