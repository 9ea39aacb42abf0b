/* api_repr.c — what the routes that answer states share: the
 * representations a client can ask for in "include" (checked, then built)
 * and printed algorithms as JSON. Declared in api_internal.h. */
#include <ctype.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_internal.h"
#include "events.h"
#include "idempotency.h"
#include "problem.h"
#include "utf8.h"
#include "sessions.h"

/* ---- representations -------------------------------------------------- */

/* "a", "a or b", "a, b or c" of the representations in mask. */
static void repr_list(unsigned mask, char *out, size_t cap)
{
	size_t len = 0;
	int total = 0, seen = 0;
	out[0] = '\0';
	for (int r = 0; r < REPR_COUNT; r++)
		total += (mask & REPR_BIT(r)) != 0;
	for (int r = 0; r < REPR_COUNT && len < cap; r++) {
		if (!(mask & REPR_BIT(r)))
			continue;
		seen++;
		const char *sep = seen == 1 ? "" : seen == total ? " or " : ", ";
		len += (size_t)snprintf(out + len, cap - len, "%s\"%s\"", sep,
					repr_name(r));
	}
}

int api__include_arg(const json_t *v, unsigned allowed, unsigned *want,
		     struct api_reply *rp)
{
	char names[160];
	unsigned seen = 0;
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e)) {
			api__bad_field(rp, PROBLEM_WRONG_TYPE, "include",
				       "include[%zu] must be a string", i);
			return -1;
		}
		int r = repr_lookup(json_string_value(e), json_string_length(e));
		if (r < 0 || !(allowed & REPR_BIT(r))) {
			repr_list(allowed, names, sizeof names);
			char shown[64];
			utf8_clean(shown, sizeof shown,
					   json_string_value(e),
					   json_string_length(e));
			api__bad_field(rp, PROBLEM_BAD_INCLUDE, "include",
				       "include[%zu] is \"%s\"; the values "
				       "allowed here are %s",
				       i, shown, names);
			return -1;
		}
		if (seen & REPR_BIT(r)) {
			api__bad_field(rp, PROBLEM_BAD_INCLUDE, "include",
				       "include lists \"%s\" twice",
				       repr_name(r));
			return -1;
		}
		seen |= REPR_BIT(r);
	}
	*want |= seen;
	return 0;
}

int api__repr_check(enum repr r, int n, const char *field,
		    struct api_reply *rp)
{
	if (!repr_applies(r, n)) {
		api__bad_field(rp, PROBLEM_NOT_APPLICABLE, field,
			       "\"%s\" exists for %s cubes only, not for size "
			       "%d",
			       repr_name(r),
			       r == REPR_FEATURES ? "3×3" : "2×2 and 3×3", n);
		return -1;
	}
	int max = repr_max_n(r);
	if (max && n > max) {
		json_t *p = problem_reply(rp, PROBLEM_TOO_LARGE_FOR_REPRESENTATION,
					  "\"%s\" is built for cubes up to size "
					  "%d, not %d",
					  repr_name(r), max, n);
		json_object_set_new(p, "limit", json_integer(max));
		json_object_set_new(p, "field", json_string(field));
		return -1;
	}
	return 0;
}

void api__invalid_cube(struct api_reply *rp, const char *field,
		       json_t *errors, const char *lead)
{
	/* "the facelets are not a legal cube: twist, parity" */
	char detail[256];
	size_t k = lead ? (size_t)snprintf(detail, sizeof detail, "%s:", lead)
			: (size_t)snprintf(detail, sizeof detail,
					   "the %s %s not a legal cube:", field,
					   strcmp(field, "facelets") == 0
						   ? "are" : "is");
	size_t i;
	json_t *e;
	json_array_foreach(errors, i, e) {
		if (k < sizeof detail)
			k += (size_t)snprintf(
				detail + k, sizeof detail - k, "%s %s",
				i ? "," : "",
				json_string_value(json_object_get(e, "code")));
	}
	json_t *p = problem_reply(rp, PROBLEM_INVALID_CUBE, "%s", detail);
	if (p == NULL) {
		json_decref(errors);
		return;
	}
	json_object_set_new(p, "field", json_string(field));
	json_object_set_new(p, "errors", errors);
}

int api__cubies_of(const cube_t *c, const char *field, struct repr_cubies *out,
		   struct api_reply *rp)
{
	if (c->n != 2 && c->n != 3) {
		problem_reply(rp, PROBLEM_INTERNAL_ERROR,
			      "a size %d cube has no cubie form", c->n);
		return -1;
	}
	json_t *errors;
	int rcode = repr_cubies_of_cube(c, out, &errors);
	if (rcode == CUBE_OK)
		return 0;
	if (errors == NULL) {
		problem_reply_core(rp, PROBLEM_INTERNAL_CORE, rcode,
			      "reading the cubies of a %d×%d failed (%s), but "
			      "validation finds nothing wrong",
			      c->n, c->n, cube_strerror(rcode));
		return -1;
	}
	api__invalid_cube(rp, field, errors, NULL);
	return -1;
}

/* One representation of c (rc: its cubies when the representation needs
 * them). */
static json_t *build_repr(enum repr r, const cube_t *c,
			  const struct repr_cubies *rc, const alg_t *a)
{
	switch (r) {
	case REPR_FACELETS:
		return repr_facelets(c);
	case REPR_CUBIE:
		return repr_cubie(rc);
	case REPR_INDEX:
		return repr_index(rc);
	case REPR_ORIENTATION:
		return repr_orientation(&rc->orient);
	case REPR_FACES:
		return repr_faces(c);
	case REPR_FEATURES:
		return rc->n == 3 ? repr_features(&rc->c3) : NULL;
	case REPR_RENDER:
		return repr_render(c);
	case REPR_ANIMATION:
		return a ? repr_animation(a) : NULL;
	case REPR_COUNT:
		break;
	}
	return NULL;
}

int api__set_reprs(json_t *obj, unsigned want, const cube_t *c,
		   const struct repr_cubies *rc, const alg_t *a,
		   const char *field, struct api_reply *rp)
{
	struct repr_cubies own;
	if ((want & REPR_NEEDS_CUBIES) && rc == NULL) {
		if (api__cubies_of(c, field, &own, rp) < 0)
			return -1;
		rc = &own;
	}
	for (int r = 0; r < REPR_COUNT; r++) {
		if (!(want & REPR_BIT(r)))
			continue;
		json_t *v = build_repr(r, c, rc, a);
		if (v == NULL || json_object_set_new(obj, repr_name(r), v) < 0) {
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
				      "building \"%s\" failed (out of memory)",
				      repr_name(r));
			return -1;
		}
	}
	return 0;
}


/* ---- printed algorithms ----------------------------------------------- */

static size_t print_text(enum api__text_kind k,
			 const struct api__text_src *src, char *out, size_t cap)
{
	switch (k) {
	case TEXT_CANONICAL:
		return alg_print_canonical(src->a, out, cap);
	case TEXT_INVERSE:
		return alg_print_inverse(src->a, out, cap);
	case TEXT_EXPANDED:
		return alg_print_expanded(src->a, 0, out, cap);
	case TEXT_MOVES:
		return moves_print(src->m, src->count, src->n, out, cap);
	}
	return 0;
}

/* A printed algorithm as a JSON string, or NULL if memory ran out. Short
 * texts (the common case) never touch the heap. */
json_t *api__text_json(enum api__text_kind k, const struct api__text_src *src)
{
	char small[256];
	size_t need = print_text(k, src, small, sizeof small);
	if (need < sizeof small)
		return json_stringn(small, need);
	char *big = malloc(need + 1);
	if (big == NULL)
		return NULL;
	print_text(k, src, big, need + 1);
	json_t *s = json_stringn(big, need);
	free(big);
	return s;
}
