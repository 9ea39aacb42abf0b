/* api_convert.c — the routes about one state without moves: POST
 * /v1/convert (a state given as facelets, cubies or an index, answered in
 * every representation that applies) and POST /v1/validate (whether
 * facelets are a legal cube, and every reason they are not). Each handler
 * parses → calls core → maps the core error → replies, and frees what it
 * holds on one path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "problem.h"

/* What /v1/convert's "include" may list; facelets, cubie, index and
 * orientation are always in the reply when they apply. */
#define CONVERT_INCLUDES                                                       \
	(REPR_BIT(REPR_FACES) | REPR_BIT(REPR_FEATURES) | REPR_BIT(REPR_RENDER))

/* ---- cubie input ------------------------------------------------------- */

/* cubie.<name>: an array of exactly len integers in 0..max, into out. */
static int cubie_array(const json_t *obj, const char *name, size_t len,
		       int max, uint8_t *out, struct api_reply *rp)
{
	char field[32];
	snprintf(field, sizeof field, "cubie.%s", name);
	const json_t *a = json_object_get(obj, name);
	if (json_array_size(a) != len) {
		api__bad_field(rp, PROBLEM_WRONG_LENGTH, field,
			       "%s must have %zu entries, not %zu", field, len,
			       json_array_size(a));
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		const json_t *v = json_array_get(a, i);
		if (!json_is_integer(v)) {
			api__bad_field(rp, PROBLEM_WRONG_TYPE, field,
				       "%s[%zu] must be an integer", field, i);
			return -1;
		}
		json_int_t x = json_integer_value(v);
		if (x < 0 || x > max) {
			api__bad_field(rp, PROBLEM_VALUE_OUT_OF_RANGE, field,
				       "%s[%zu] is %" JSON_INTEGER_FORMAT
				       "; it must be from 0 to %d",
				       field, i, x, max);
			return -1;
		}
		out[i] = (uint8_t)x;
	}
	return 0;
}

/* Parity of p (0 even, 1 odd), or -1 with *dup the first value seen twice
 * (entries are known to be < len). */
static int perm_parity(const uint8_t *p, int len, int *dup)
{
	unsigned seen = 0;
	for (int i = 0; i < len; i++) {
		if (seen & 1u << p[i]) {
			*dup = p[i];
			return -1;
		}
		seen |= 1u << p[i];
	}
	int cycles = 0;
	seen = 0;
	for (int i = 0; i < len; i++) {
		if (seen & 1u << i)
			continue;
		cycles++;
		for (int j = i; !(seen & 1u << j); j = p[j])
			seen |= 1u << j;
	}
	return (len - cycles) & 1;
}

static int sum(const uint8_t *v, int len)
{
	int s = 0;
	for (int i = 0; i < len; i++)
		s += v[i];
	return s;
}

/* Append {"code", "detail", "field"} to errors. */
static void cubie_error(json_t *errors, const char *code, const char *field,
			const char *detail)
{
	json_array_append_new(errors,
			      json_pack("{s:s, s:s, s:s}", "code", code,
					"detail", detail, "field", field));
}

/* Every reason the cubies of size n are not a reachable state, as
 * invalid_cube errors (an empty array: none). The codes are those of
 * cube_validate where they mean the same (twist, flip, parity). */
static json_t *cubie_errors(const struct repr_cubies *rc)
{
	const uint8_t *cp = rc->n == 3 ? rc->c3.cp : rc->c2.cp;
	const uint8_t *co = rc->n == 3 ? rc->c3.co : rc->c2.co;
	json_t *errors = json_array();
	if (errors == NULL)
		return NULL;
	char d[256];
	int dup = 0;
	int pc = perm_parity(cp, 8, &dup), pe = 0;
	if (pc < 0) {
		snprintf(d, sizeof d, "cp is not a permutation of 0…7: %d "
				      "appears more than once", dup);
		cubie_error(errors, "not_a_permutation", "cubie.cp", d);
	}
	if (sum(co, 8) % 3) {
		snprintf(d, sizeof d, "%s (co sums to %d, %d mod 3)",
			 cube_validation_sentence(CV_TWIST), sum(co, 8),
			 sum(co, 8) % 3);
		cubie_error(errors, "twist", "cubie.co", d);
	}
	if (rc->n == 3) {
		pe = perm_parity(rc->c3.ep, 12, &dup);
		if (pe < 0) {
			snprintf(d, sizeof d, "ep is not a permutation of "
					      "0…11: %d appears more than once",
				 dup);
			cubie_error(errors, "not_a_permutation", "cubie.ep", d);
		}
		if (sum(rc->c3.eo, 12) % 2) {
			snprintf(d, sizeof d, "%s (eo sums to %d)",
				 cube_validation_sentence(CV_FLIP),
				 sum(rc->c3.eo, 12));
			cubie_error(errors, "flip", "cubie.eo", d);
		}
		if (pc >= 0 && pe >= 0 && pc != pe) {
			snprintf(d, sizeof d, "%s (cp is %s, ep is %s)",
				 cube_validation_sentence(CV_PARITY),
				 pc ? "odd" : "even", pe ? "odd" : "even");
			cubie_error(errors, "parity", "cubie.cp", d);
		}
	} else if (cp[6] != 6 || co[6] != 0) {
		snprintf(d, sizeof d,
			 "a 2×2 state is taken with the DBL corner home and "
			 "untwisted: cp[6] must be 6 and co[6] 0, not %d and %d",
			 cp[6], co[6]);
		cubie_error(errors, "not_normalized",
			    cp[6] != 6 ? "cubie.cp" : "cubie.co", d);
	}
	return errors;
}

/* The "cubie" object of a size-n request into out (standard orientation). */
static int cubie_arg(const json_t *v, int n, struct repr_cubies *out,
		     struct api_reply *rp)
{
	static const struct api__field fields3[] = {
		{"cp", FIELD_ARRAY, 1},
		{"co", FIELD_ARRAY, 1},
		{"ep", FIELD_ARRAY, 1},
		{"eo", FIELD_ARRAY, 1},
	};
	memset(out, 0, sizeof *out);
	out->n = n;
	repr_orientation_standard(&out->orient);
	if (api__check_fields(v, "cubie", fields3, n == 3 ? 4 : 2, rp) < 0)
		return -1;
	uint8_t *cp = n == 3 ? out->c3.cp : out->c2.cp;
	uint8_t *co = n == 3 ? out->c3.co : out->c2.co;
	if (cubie_array(v, "cp", 8, 7, cp, rp) < 0 ||
	    cubie_array(v, "co", 8, 2, co, rp) < 0)
		return -1;
	if (n == 3 && (cubie_array(v, "ep", 12, 11, out->c3.ep, rp) < 0 ||
		       cubie_array(v, "eo", 12, 1, out->c3.eo, rp) < 0))
		return -1;

	json_t *errors = cubie_errors(out);
	if (errors == NULL) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
			      "out of memory checking the cubies");
		return -1;
	}
	int valid = n == 3 ? cubie3_is_valid(&out->c3)
			   : cubie2_is_valid(&out->c2);
	if (valid != (json_array_size(errors) == 0)) {
		/* cubie*_is_valid and the reasons above must agree. */
		json_decref(errors);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "cubie%d_is_valid says %s, the server's own "
			      "checks say otherwise",
			      n, valid ? "valid" : "invalid");
		return -1;
	}
	if (!valid) {
		api__invalid_cube(rp, "cubie", errors,
				  "the cubies are not a reachable state");
		return -1;
	}
	json_decref(errors);
	return 0;
}

/* The "index" text of a size-n request into out. */
static int index_arg(const json_t *v, int n, struct repr_cubies *out,
		     struct api_reply *rp)
{
	cube_index ix;
	int rc = cube_index_parse(json_string_value(v), json_string_length(v),
				  n, &ix);
	if (rc == CUBE_EINVAL) {
		api__bad_field(rp, PROBLEM_BAD_INDEX, "index",
			       "index must be a decimal number: digits only, "
			       "no sign, spaces or leading zeros");
		return -1;
	}
	if (rc == CUBE_ERANGE) {
		api__bad_field(rp, PROBLEM_INDEX_OUT_OF_RANGE, "index",
			       "a %d×%d index is less than %s", n, n,
			       n == 3 ? "43252003274489856000" : "3674160");
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->n = n;
	repr_orientation_standard(&out->orient);
	if (rc == CUBE_OK)
		rc = n == 3 ? cubie3_unrank(&ix, &out->c3)
			    : cubie2_unrank(&ix, &out->c2);
	if (rc < 0) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, rc,
			      "reading the index failed: %s",
			      cube_strerror(rc));
		return -1;
	}
	return 0;
}

/* The cube of cubies rc, through its standard-orientation facelets. */
static cube_t *cube_of_cubies(const struct repr_cubies *rc,
			      struct api_reply *rp)
{
	char s[54];
	size_t len = 6 * (size_t)rc->n * (size_t)rc->n;
	cube_t *c = malloc(cube_sizeof(rc->n));
	repr_cubies_to_facelets(rc, s);
	int code = c ? cube_from_facelets(c, rc->n, s, len, NULL) : CUBE_OK;
	if (c == NULL || code < 0) {
		free(c);
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "could not make a %d×%d from its cubies",
			      rc->n, rc->n);
		return NULL;
	}
	return c;
}

/* ---- routes ------------------------------------------------------------ */

void api__post_convert(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	(void)rq;
	(void)cfg;
	static const struct api__field fields[] = {
		{"facelets", FIELD_STRING, 0}, {"size", FIELD_INT, 0},
		{"cubie", FIELD_OBJECT, 0},    {"index", FIELD_STRING, 0},
		{"include", FIELD_ARRAY, 0},
	};
	if (api__check_fields(a->body, NULL, fields, 5, rp) < 0)
		return;
	const json_t *jfacelets = json_object_get(a->body, "facelets");
	const json_t *jsize = json_object_get(a->body, "size");
	const json_t *jcubie = json_object_get(a->body, "cubie");
	const json_t *jindex = json_object_get(a->body, "index");
	const json_t *jinclude = json_object_get(a->body, "include");
	int sources = (jfacelets != NULL) + (jcubie != NULL) + (jindex != NULL);
	if (sources != 1) {
		api__bad_field(rp, PROBLEM_ONE_SOURCE, NULL,
			       "give exactly one of \"facelets\", \"cubie\" "
			       "(with \"size\") and \"index\" (with \"size\"); "
			       "this body has %d",
			       sources);
		return;
	}
	int n = 0;
	if (jsize && api__size_arg(jsize, &n, rp) < 0)
		return;
	if (jfacelets == NULL && jsize == NULL) {
		api__bad_field(rp, PROBLEM_MISSING_FIELD, "size",
			       "\"%s\" needs \"size\": 2 or 3",
			       jcubie ? "cubie" : "index");
		return;
	}
	if (jfacelets == NULL && n != 2 && n != 3) {
		api__bad_field(rp, PROBLEM_NOT_APPLICABLE, "size",
			       "\"%s\" exists for 2×2 and 3×3 cubes only, not "
			       "for size %d",
			       jcubie ? "cubie" : "index", n);
		return;
	}
	unsigned include = 0;
	if (jinclude &&
	    api__include_arg(jinclude, CONVERT_INCLUDES, &include, rp) < 0)
		return;

	struct repr_cubies cubies, *rcp = NULL;
	json_t *out = NULL;
	cube_t *c = NULL;
	if (jfacelets) {
		c = api__start_state(n, jfacelets, rp);
		if (c == NULL)
			goto done;
		n = c->n;
	}
	for (int r = 0; r < REPR_COUNT; r++)
		if ((include & REPR_BIT(r)) &&
		    api__repr_check(r, n, "include", rp) < 0)
			goto done;
	if (jfacelets && (n == 2 || n == 3)) {
		if (api__cubies_of(c, "facelets", &cubies, rp) < 0)
			goto done;
		rcp = &cubies;
	} else if (jcubie || jindex) {
		if ((jcubie ? cubie_arg(jcubie, n, &cubies, rp)
			    : index_arg(jindex, n, &cubies, rp)) < 0)
			goto done;
		rcp = &cubies;
		if ((c = cube_of_cubies(rcp, rp)) == NULL)
			goto done;
	}

	/* Facelets input is echoed as given; the others are standard. */
	out = json_pack("{s:i}", "size", n);
	if (out == NULL ||
	    (jfacelets && json_object_set(out, "facelets",
					  (json_t *)jfacelets) < 0)) {
		api_reply_json(rp, 200, NULL);
		goto done;
	}
	unsigned want = include;
	if (!jfacelets)
		want |= REPR_BIT(REPR_FACELETS);
	if (rcp)
		want |= REPR_BIT(REPR_CUBIE) | REPR_BIT(REPR_INDEX) |
			REPR_BIT(REPR_ORIENTATION);
	if (api__set_reprs(out, want, c, rcp, NULL, "facelets", rp) < 0)
		goto done;
	api_reply_json(rp, 200, out);
	out = NULL;
done:
	json_decref(out);
	free(c);
}

void api__post_validate(const struct api_config *cfg,
			const struct api_request *rq, const struct api_args *a,
			struct api_reply *rp)
{
	(void)rq;
	(void)cfg;
	static const struct api__field fields[] = {
		{"facelets", FIELD_STRING, 1},
	};
	if (api__check_fields(a->body, NULL, fields, 1, rp) < 0)
		return;
	const json_t *jf = json_object_get(a->body, "facelets");
	cube_validation_result res;
	memset(&res, 0, sizeof res);
	json_t *errors =
		repr_validation_errors(json_string_value(jf),
				       json_string_length(jf), REPR_MAX_ERRORS,
				       &res);
	json_t *out = json_pack("{s:b, s:o, s:o, s:i}", "valid",
				res.count == 0, "size",
				res.n > 0 ? json_integer(res.n) : json_null(),
				"errors", errors, "error_count", res.count);
	if (out && res.count == 0 && (res.n == 2 || res.n == 3) &&
	    json_object_set_new(out, "orientation",
				repr_orientation(&res.orient)) < 0) {
		json_decref(out);
		out = NULL;
	}
	if (out && res.n >= 4 &&
	    json_object_set_new(out, "unchecked",
				repr_unchecked(res.unchecked)) < 0) {
		json_decref(out);
		out = NULL;
	}
	api_reply_json(rp, 200, out);
}
