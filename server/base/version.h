/* version.h — what this binary is: cubed's version, the commit it was
 * built from and the libraries it runs with, for GET /version, the
 * cubed_build_info metric and --version. */
#ifndef CUBED_VERSION_H
#define CUBED_VERSION_H

struct version_info {
	const char *version;       /* CUBED_VERSION */
	const char *commit;        /* git describe at build time, or "unknown" */
	const char *libmicrohttpd; /* the versions linked at run time */
	const char *jansson;
	const char *sqlite;
	const char *zlib;
	char brotli[16];
};

void version_get(struct version_info *v);

#endif
