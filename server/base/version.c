/* version.c — the build's identity (see version.h). CUBED_COMMIT comes
 * from the Makefile (git describe --always --dirty), which recompiles
 * this file alone when it changes. */
#include "version.h"

#include <stdio.h>

#include <brotli/encode.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sqlite3.h>
#include <zlib.h>

#include "config.h"

#ifndef CUBED_COMMIT
#define CUBED_COMMIT "unknown"
#endif

void version_get(struct version_info *v)
{
	v->version = CUBED_VERSION;
	v->commit = CUBED_COMMIT;
	v->libmicrohttpd = MHD_get_version();
	v->jansson = jansson_version_str();
	v->sqlite = sqlite3_libversion();
	v->zlib = zlibVersion();
	uint32_t b = BrotliEncoderVersion(); /* 0xMMMmmmppp, 12 bits each */
	snprintf(v->brotli, sizeof v->brotli, "%u.%u.%u", (unsigned)(b >> 24),
		 (unsigned)(b >> 12) & 0xfff, (unsigned)b & 0xfff);
}
