/* nibbles.h — tables of 4-bit entries, two a byte, low nibble first: the
 * distance tables of the 4×4's and 5×5's phases (four.c, five_tables.c,
 * five.c, five45.c). Not part of the API. */
#ifndef CUBED_REDUCE_NIBBLES_H
#define CUBED_REDUCE_NIBBLES_H

#include <stddef.h>
#include <stdint.h>

/* Entry i of t. */
static inline int nib_get(const uint8_t *t, size_t i)
{
	return t[i >> 1] >> ((i & 1) * 4) & 15;
}

/* Entry i of t set to v (0 to 15). */
static inline void nib_set(uint8_t *t, size_t i, int v)
{
	uint8_t *b = &t[i >> 1];
	int s = (int)(i & 1) * 4;
	*b = (uint8_t)((*b & ~(15 << s)) | v << s);
}

#endif
