/* orbits.h — the orbit models' calls (orbits.c): building a model,
 * reading an orbit off the cube, and the pure 3-cycles that finish one
 * orbit or every orbit at once. The models themselves are in internal.h
 * (the context holds them). Not part of the API. */
#ifndef CUBED_REDUCE_ORBITS_H
#define CUBED_REDUCE_ORBITS_H

#include "internal.h"

void reduce__where3d(int n, int f, int r, int c, int xyz[3]);
int reduce__model_build(struct model *M, int id, cube_t *sim,
			uint16_t *queue);
int reduce__model_gen(const struct model *M, int axis, int layer, int qt);
void reduce__orbit_init(struct orbit *o, const struct model *M, int p,
			int q, int m);
void reduce__read_orbit(const struct ctx *x, const struct orbit *o,
			uint8_t *cur);
long reduce__solve_orbit(struct ctx *x, const struct orbit *o, uint8_t *cur,
			 const uint8_t *tgt);
size_t reduce__cycles_size(int n);
int reduce__cycles_all(struct ctx *x, void *scratch, size_t size);

#endif
