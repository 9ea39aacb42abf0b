/* solve_tables.c — the header and checksum of the solvers' table buffers
 * (solve_internal.h), shared so that the two-phase and 2×2 tables are
 * sealed and checked the same way.
 *
 * The checksum is a 64-bit hash with four independent lanes, each
 * (h ^ word) · odd constant — a bijection of h for a given word, so
 * changing any one word changes its lane and therefore the result: a
 * flipped byte is always detected. Four lanes keep ~3 GB/s, so checking
 * the 72 MB two-phase tables costs ~25 ms of a restart.
 */
#include "solve.h"
#include "solve_internal.h"

#include <string.h>

#define BOM 0x01020304u
#define H_VERSION 8
#define H_BOM 12
#define H_SIZE 16
#define H_SUM 24

static uint64_t checksum(const unsigned char *p, uint64_t n)
{
	const uint64_t K = 0x9e3779b97f4a7c15u;
	uint64_t h[4] = {1, 2, 3, 4};
	uint64_t i = 0;
	for (; i + 32 <= n; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, p + i + 8 * k, 8);
			h[k] = (h[k] ^ w) * K;
		}
	for (; i < n; i++)
		h[0] = (h[0] ^ p[i]) * K;
	uint64_t s = n;
	for (int k = 0; k < 4; k++)
		s = (s ^ h[k]) * 0xbf58476d1ce4e5b9u, s ^= s >> 31;
	return s + h[0] + 3 * h[1] + 5 * h[2] + 7 * h[3];
}

void solve__seal(unsigned char *buf, uint64_t size, const char magic[8],
		 uint32_t version)
{
	uint32_t bom = BOM;
	memcpy(buf, magic, 8);
	memcpy(buf + H_VERSION, &version, 4);
	memcpy(buf + H_BOM, &bom, 4);
	memcpy(buf + H_SIZE, &size, 8);
	uint64_t sum = checksum(buf + SOLVE__HEADER, size - SOLVE__HEADER);
	memcpy(buf + H_SUM, &sum, 8);
}

int solve__header_ok(const unsigned char *buf, uint64_t size,
		     const char magic[8], uint32_t version)
{
	uint32_t v, bom;
	uint64_t total;
	memcpy(&v, buf + H_VERSION, 4);
	memcpy(&bom, buf + H_BOM, 4);
	memcpy(&total, buf + H_SIZE, 8);
	return memcmp(buf, magic, 8) == 0 && v == version && bom == BOM &&
	       total == size;
}

uint64_t solve__sum(const void *buf)
{
	uint64_t sum;
	memcpy(&sum, (const unsigned char *)buf + H_SUM, 8);
	return sum;
}

int solve__check(const void *buf, size_t size, uint64_t want,
		 const char magic[8], uint32_t version)
{
	const unsigned char *b = buf;
	if (!b || size != want || !solve__header_ok(b, want, magic, version))
		return SOLVE_ETABLES;
	uint64_t sum;
	memcpy(&sum, b + H_SUM, 8);
	return checksum(b + SOLVE__HEADER, want - SOLVE__HEADER) == sum
		       ? CUBE_OK
		       : SOLVE_ETABLES;
}
