/* static.h — the web page's files (web/, built into build/web), read into
 * memory once at start-up and served from there: `/` is index.html,
 * `/assets/<name>` the bundled scripts, styles and images.
 *
 * Every reply carries a strong ETag (a SHA-256 of the bytes sent) and
 * answers If-None-Match with 304; index.html is `no-cache` (revalidated on
 * every load, so a new build shows at once) and carries the page's strict
 * Content-Security-Policy; content-hashed asset names are cached for a year
 * as `immutable`. A file with a `.gz` sibling is sent compressed to clients
 * that accept gzip. */
#ifndef CUBED_STATIC_H
#define CUBED_STATIC_H

#include <stddef.h>

#include "api_reply.h"

/* Bounds on what a web root may hold: a runaway directory is refused at
 * start-up rather than read into memory. */
#define WEB_MAX_FILES 256
#define WEB_MAX_BYTES ((size_t)32 << 20)
#define WEB_NAME_MAX 128

/* The Content-Security-Policy of the page: scripts, styles and requests
 * only from the server itself; nothing inline, no eval, no framing. */
#define WEB_PAGE_CSP                                                           \
	"default-src 'self'; script-src 'self'; style-src 'self'; "            \
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; "        \
	"base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

struct web_root;

/* Read dir/index.html and every file in dir/assets/ (not recursive; dot
 * files are skipped; `x.gz` is the compressed form of `x`). Returns the
 * loaded root, or NULL with a sentence in err: the directory or its
 * index.html is missing (*missing set to 1), or a file is unreadable, of a
 * type the server does not know, badly named, or past the bounds above
 * (*missing set to 0). The caller owns the result (web_root_free). */
struct web_root *web_root_load(const char *dir, int *missing, char *err,
			       size_t errlen);
void web_root_free(struct web_root *w);

/* Files and bytes loaded (both encodings counted), for the start-up log. */
size_t web_root_files(const struct web_root *w);
size_t web_root_bytes(const struct web_root *w);

/* Answer a GET or HEAD of "/" or "/assets/<name>" from w (NULL: the page
 * was not built, a 404 problem that says so). Reads If-None-Match and
 * Accept-Encoding through rq->header. The body points into w, which must
 * outlive the reply. */
void web_serve(const struct web_root *w, const struct api_request *rq,
	       struct api_reply *rp);

#endif
