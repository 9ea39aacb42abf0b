/* compress.h — content coding of replies (gzip through zlib, br through
 * libbrotli) as one step of the reply path that any reply can take:
 * negotiation by Accept-Encoding, which media types are worth it, a
 * streaming compressor for big bodies, a one-shot one for the rest, a
 * cache for bodies that live as long as the server (the contract, static
 * files), and the entity-tag rule that keeps validators apart per coding.
 *
 * Memory per compressed reply: the uncompressed body the handler built
 * (which exists anyway) plus the coder's state, never a second full copy
 * of a big body. A body of up to COMPRESS_ONESHOT_MAX bytes is compressed
 * in one go into a buffer of its compressed size (the reply then has a
 * Content-Length); a larger one is compressed while libmicrohttpd sends
 * it, COMPRESS_BLOCK bytes at a time (chunked). The coder's state, counted
 * by the allocators compress_stream_peak reports (tests/unit/check_codec.c holds
 * them to it), is 261 KiB for gzip at any level (window 2^15, memLevel 8)
 * and, for br with a window of at most 2^18, 0.65 MiB at quality 0, about
 * 2 MiB at 1 to 3 (the default is 2), 3.5 to 6.5 MiB at 4 to 6 — which is
 * why --brotli-quality stops at 6 (quality 9 would hold 38 MiB). The HTTP
 * layer keeps at most COMPRESS_MAX_STREAMS streams open at once (a slow
 * reader keeps its stream): past that a big reply goes out identity. */
#ifndef CUBED_COMPRESS_H
#define CUBED_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum compress_coding {
	COMPRESS_IDENTITY = 0,
	COMPRESS_GZIP = 1,
	COMPRESS_BR = 2,
};
#define COMPRESS_BIT(c) (1u << (c))

#define COMPRESS_ONESHOT_MAX (256u * 1024u)
#define COMPRESS_BLOCK (32u * 1024u)
#define COMPRESS_MAX_STREAMS 64
/* The cache's br quality: once per body, so better than per reply, yet
 * not 11 (seconds for a big file on the first request) nor 9 (38 MiB). */
#define COMPRESS_CACHE_BR_QUALITY 6

struct compress_config {
	unsigned codings;     /* COMPRESS_BIT mask of the codings offered */
	size_t min_size;      /* bodies below this stay identity */
	int gzip_level;       /* 1..9 */
	int br_quality;       /* 0..11 */
};

/* "gzip" / "br" (the Content-Encoding value), NULL for identity. */
const char *compress_name(enum compress_coding c);

/* "br,gzip", "gzip", "br", "off" (or "none"): the mask, or -1. */
int compress_parse_list(const char *s, unsigned *mask);

/* What a client's Accept-Encoding (NULL when absent) lets us send, among
 * the codings in offered: RFC 9110 section 12.5.3, q-values (0 to 1, up
 * to three decimals), "*" for any coding not named, "x-gzip" for gzip,
 * case-insensitive. The highest q wins; on a tie the server prefers br,
 * then gzip, then identity. Identity, when not named, is acceptable (at
 * the lowest preference) unless "identity;q=0", or "*;q=0" without an
 * identity entry, refuses it: *identity_ok is then 0. A malformed entry
 * is skipped (as if absent), never an error. */
enum compress_coding compress_negotiate(const char *accept_encoding,
					unsigned offered, int *identity_ok);

/* Is a reply of this media type (a Content-Type value, parameters
 * allowed) worth compressing? JSON, problem+json, YAML, text/ types except
 * event streams (a stream would need a flush per event), JavaScript, SVG,
 * XML, wasm; not images, fonts or archives that are compressed already. */
int compress_type_ok(const char *content_type);

/* Compress src[0..len) in one go: *out (malloc'd) and *out_len. Returns 0,
 * or -1 when memory ran out or the coder failed (nothing to free then). */
int compress_oneshot(enum compress_coding c, int level, const void *src,
		     size_t len, char **out, size_t *out_len);

/* A compressor that reads src[0..len) (borrowed: it must live until
 * compress_stream_free) and hands out compressed bytes as asked. */
struct compress_stream;
struct compress_stream *compress_stream_new(enum compress_coding c,
					    int level, const void *src,
					    size_t len);
/* Up to max (> 0) compressed bytes into buf: the count (> 0), 0 at the
 * end, -1 if the coder failed. */
ssize_t compress_stream_read(struct compress_stream *s, char *buf,
			     size_t max);
/* Bytes handed out so far, and the most the coder's state held at once. */
uint64_t compress_stream_out(const struct compress_stream *s);
size_t compress_stream_peak(const struct compress_stream *s);
void compress_stream_free(struct compress_stream *s);

/* Compressed copies of bodies that live as long as the server (the
 * contract text, static files), made once per (body, coding) at gzip
 * level 9 or br quality COMPRESS_CACHE_BR_QUALITY, and kept: at most COMPRESS_CACHE_ENTRIES bodies
 * and COMPRESS_CACHE_BYTES compressed bytes in all; past that a body is
 * compressed per reply like any other. */
#define COMPRESS_CACHE_ENTRIES 64
#define COMPRESS_CACHE_BYTES (16u * 1024u * 1024u)
struct compress_cache;
struct compress_cache *compress_cache_new(void);
void compress_cache_free(struct compress_cache *cc);
/* The compressed bytes of src in coding c (borrowed from the cache, valid
 * until compress_cache_free), or NULL when it does not fit or memory ran
 * out. Safe from many threads. */
const char *compress_cache_get(struct compress_cache *cc,
			       enum compress_coding c, const void *src,
			       size_t len, size_t *out_len);

/* ---- entity tags --------------------------------------------------------
 * A strong entity tag names one representation's bytes, so a compressed
 * reply's tag must differ from the identity reply's: "v7" becomes
 * "v7-gzip" or "v7-br" (a weak W/"x" becomes W/"x-gzip"). Requests carry
 * the tags back in If-None-Match and If-Match, where the handlers, which
 * only know their own tags, see them with the suffix removed. */

/* The tag etag (a header value) with c's suffix put inside its closing
 * quote, into out. Returns 0, or -1 if it does not fit or is not a quoted
 * tag (out is then a copy of etag). */
int compress_etag_with(const char *etag, enum compress_coding c, char *out,
		       size_t cap);

/* A list of tags (If-None-Match, If-Match) with every "-gzip" and "-br"
 * suffix removed, into out. Returns 1 if anything was removed, 0 if not
 * (out is then a copy), -1 if it did not fit. */
int compress_etag_strip(const char *list, char *out, size_t cap);

/* Does the list hold etag with a coding suffix? Returns that coding (so a
 * 304 can name the tag the client has), or COMPRESS_IDENTITY. */
enum compress_coding compress_etag_suffix_in(const char *list,
					     const char *etag);

#endif
