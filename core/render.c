/* render.c — render and animation data (see render.h). A cubie's rotation
 * is found among the 24 proper rotations of the cube as the one that takes
 * each of its stickers' home normals to the sides they show on; the 24 are
 * the signed permutation matrices of determinant +1, generated on the fly
 * (no tables to keep in step). */
#include "render.h"

#include <string.h>

const int8_t render_face_normal[6][3] = {
	{0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, -1},
};

size_t render_cubie_count(int n)
{
	if (n < 1)
		return 0;
	if (n == 1)
		return 1;
	size_t a = (size_t)n, b = (size_t)(n - 2);
	return a * a * a - b * b * b;
}

/* The k-th (0..23) proper rotation: a permutation of the axes with signs,
 * keeping only determinant +1. */
static void rotation(int k, int8_t m[9])
{
	static const int8_t perms[6][3] = {
		{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0},
	};
	static const int8_t perm_sign[6] = {1, -1, -1, 1, 1, -1};
	/* Among the 8 sign patterns of each permutation, 4 have the product of
	 * signs equal to the permutation's sign (determinant +1). */
	int p = k / 4, want = perm_sign[p], seen = 0;
	for (int s = 0; s < 8; s++) {
		int sx = s & 1 ? -1 : 1, sy = s & 2 ? -1 : 1, sz = s & 4 ? -1 : 1;
		if (sx * sy * sz != want)
			continue;
		if (seen++ != k % 4)
			continue;
		int sg[3] = {sx, sy, sz};
		memset(m, 0, 9);
		for (int r = 0; r < 3; r++)
			m[r * 3 + perms[p][r]] = (int8_t)sg[r];
		return;
	}
}

static void apply(const int8_t m[9], const int8_t v[3], int8_t out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = (int8_t)(m[r * 3] * v[0] + m[r * 3 + 1] * v[1] +
				  m[r * 3 + 2] * v[2]);
}

static int face_of_letter(char c)
{
	const char *p = memchr(cube_face_letters, c, 6);
	return p && c ? (int)(p - cube_face_letters) : -1;
}

/* Choose the rotation for a cubie from its stickers. */
static void cubie_rotation(render_cubie *rc)
{
	int best = -1, best_hits = -1, nst = 0, only = -1;
	for (int s = 0; s < 6; s++)
		if (rc->sticker[s]) {
			nst++;
			only = s;
		}
	if (nst == 1) {
		/* One sticker: the smallest rotation from home to here. */
		const int8_t *to = render_face_normal[only];
		int home = face_of_letter(rc->sticker[only]);
		const int8_t *from = render_face_normal[home < 0 ? only : home];
		int bestcost = 99;
		for (int k = 0; k < 24; k++) {
			int8_t m[9], v[3];
			rotation(k, m);
			apply(m, from, v);
			if (memcmp(v, to, 3) != 0)
				continue;
			/* cost: the rotation angle, by the trace (3 = identity,
			 * 1 = 90°, -1 = 180°); ties go to the first found. */
			int cost = 3 - (m[0] + m[4] + m[8]);
			if (cost < bestcost) {
				bestcost = cost;
				best = k;
			}
		}
		rotation(best, rc->rot);
		return;
	}
	for (int k = 0; k < 24; k++) {
		int8_t m[9];
		int hits = 0;
		rotation(k, m);
		for (int s = 0; s < 6; s++) {
			int home = rc->sticker[s] ? face_of_letter(rc->sticker[s])
						  : -1;
			if (home < 0)
				continue;
			int8_t v[3];
			apply(m, render_face_normal[home], v);
			hits += memcmp(v, render_face_normal[s], 3) == 0;
		}
		if (hits > best_hits) {
			best_hits = hits;
			best = k;
		}
	}
	rotation(best, rc->rot);
}

int64_t render_cubies(const cube_t *c, render_cubie *out, size_t cap)
{
	int n = c->n, m = n - 1;
	size_t need = render_cubie_count(n);
	if (cap < need)
		return CUBE_ESPACE;
	size_t k = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int z = 0; z < n; z++) {
				int inside = i > 0 && i < m && j > 0 && j < m;
				if (inside && z > 0 && z < m)
					z = m; /* skip the hidden core */
				render_cubie *rc = &out[k++];
				memset(rc, 0, sizeof *rc);
				rc->pos[0] = (int16_t)i;
				rc->pos[1] = (int16_t)j;
				rc->pos[2] = (int16_t)z;
				char *st = rc->sticker;
				const char *L = cube_face_letters;
				if (j == m)
					st[CUBE_U] = L[cube_get(c, CUBE_U, z, i)];
				if (i == m)
					st[CUBE_R] = L[cube_get(c, CUBE_R, m - j, m - z)];
				if (z == m)
					st[CUBE_F] = L[cube_get(c, CUBE_F, m - j, i)];
				if (j == 0)
					st[CUBE_D] = L[cube_get(c, CUBE_D, m - z, i)];
				if (i == 0)
					st[CUBE_L] = L[cube_get(c, CUBE_L, m - j, z)];
				if (z == 0)
					st[CUBE_B] = L[cube_get(c, CUBE_B, m - j, m - i)];
				cubie_rotation(rc);
			}
	return (int64_t)k;
}

void render_turn_of(const cube_move *mv, int n, render_turn *out)
{
	int qt = mv->qt & 3;
	memset(out, 0, sizeof *out);
	out->axis = mv->axis;
	out->from = (int16_t)(n - 1 - mv->hi);
	out->to = (int16_t)(n - 1 - mv->lo);
	out->angle = (int16_t)(qt == 1 ? -90 : qt == 2 ? 180 : qt == 3 ? 90 : 0);
	/* Rotation by angle about the axis: on the other two axes (u, v) in
	 * cyclic order, a clockwise quarter turn seen from +axis maps
	 * (u, v) → (v, -u). */
	int u = (mv->axis + 1) % 3, v = (mv->axis + 2) % 3;
	int8_t *r = out->rot;
	r[mv->axis * 3 + mv->axis] = 1;
	switch (qt) {
	case 0:
		r[u * 3 + u] = r[v * 3 + v] = 1;
		break;
	case 1: /* u' = v, v' = -u */
		r[u * 3 + v] = 1, r[v * 3 + u] = -1;
		break;
	case 2:
		r[u * 3 + u] = r[v * 3 + v] = -1;
		break;
	default:
		r[u * 3 + v] = -1, r[v * 3 + u] = 1;
		break;
	}
}
