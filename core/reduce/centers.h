/* centers.h — the centers stage (centers.c): every center orbit solved to
 * the frame's colours by the methods the pass's plan picks
 * (centers_methods.h), the 3-cycles finishing each orbit. Returns 0 or an
 * error. Not part of the API. */
#ifndef CUBED_REDUCE_CENTERS_H
#define CUBED_REDUCE_CENTERS_H

#include "internal.h"

int reduce__stage_centers(struct ctx *x);

#endif
