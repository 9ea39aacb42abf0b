/* optimal_coord.c — the whole-cube form of the optimal solver
 * (optimal_coord.h): converting to and from the cubie model, the face
 * turns, and the URF rotation that lets the search read a table with
 * another axis vertical. The coordinates themselves are inline in the
 * header, since the search reads them at every node; what is here runs
 * once per table build or per solve.
 */
#include "optimal_coord.h"

void opt__from_cubie(const cubie3 *c, opt__cube *out)
{
	for (int i = 0; i < 8; i++)
		out->c[i] = (uint8_t)(c->cp[i] | c->co[i] << 3);
	for (int i = 0; i < 12; i++)
		out->e[i] = (uint8_t)(c->ep[i] | c->eo[i] << 4);
}

void opt__to_cubie(const opt__cube *c, cubie3 *out)
{
	for (int i = 0; i < 8; i++) {
		out->cp[i] = c->c[i] & 7;
		out->co[i] = c->c[i] >> 3;
	}
	for (int i = 0; i < 12; i++) {
		out->ep[i] = c->e[i] & 15;
		out->eo[i] = c->e[i] >> 4;
	}
}

void opt__move_cube(int m, opt__cube *out)
{
	cubie3 c;
	cubie3_face_turn(m / 3, m % 3 + 1, &c);
	opt__from_cubie(&c, out);
}

/* The 120° turn about the URF–DBL diagonal (Kociemba's S_URF3). */
static const cubie3 s_urf3 = {{0, 4, 5, 1, 3, 7, 6, 2},
			      {1, 2, 1, 2, 2, 1, 2, 1},
			      {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2},
			      {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};

void opt__urf(opt__cube *s, opt__cube *sinv)
{
	opt__from_cubie(&s_urf3, s);
	opt__inv(s, sinv);
}
