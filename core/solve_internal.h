/* solve_internal.h — internals shared by the solvers (solve__ names): the
 * header every table buffer starts with, and its checksum. Not part of the
 * public API. */
#ifndef CUBED_SOLVE_INTERNAL_H
#define CUBED_SOLVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the header; the tables follow it. */
#define SOLVE__HEADER 64

/* Write the header of a filled buffer of size bytes: magic (8 letters, no
 * NUL), format version, a byte-order mark (the tables hold native 16- and
 * 32-bit integers, so a file is only good on machines of the byte order
 * that wrote it), the size, and the checksum of bytes [SOLVE__HEADER,
 * size). The rest of the header must already be zero. */
void solve__seal(unsigned char *buf, uint64_t size, const char magic[8],
		 uint32_t version);

/* 1 if buf starts with the header solve__seal writes for these values
 * (the checksum is not recomputed: cheap enough for every solve). */
int solve__header_ok(const unsigned char *buf, uint64_t size,
		     const char magic[8], uint32_t version);

/* The checksum a sealed header holds. */
uint64_t solve__sum(const void *buf);

/* The whole check: size, header and checksum. CUBE_OK or SOLVE_ETABLES. */
int solve__check(const void *buf, size_t size, uint64_t want,
		 const char magic[8], uint32_t version);

#endif
