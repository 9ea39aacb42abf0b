/* jsonout.h — compact JSON text of a jansson object or array: the bytes
 * json_dumps(v, JSON_COMPACT) gives, in about a third of its time (jansson
 * writes through a callback per piece and escapes per code point; every
 * reply body goes through here).
 */
#ifndef CUBED_JSONOUT_H
#define CUBED_JSONOUT_H

#include <jansson.h>
#include <stddef.h>

/* The text (malloc'd, NUL-terminated; its length in *len if len is not
 * NULL), or NULL: out of memory, v NULL or not an object or array (as
 * json_dumps without JSON_ENCODE_ANY), or nested deeper than 2048. */
char *jsonout_dump(const json_t *v, size_t *len);

/* Writing compact JSON text directly, for the hot replies that would
 * otherwise build a json_t only to dump it. Containers nest up to
 * JSONW_MAX_DEPTH; commas are placed by the writer. In an object, call
 * jsonw_key before each value. Any failure (memory, nesting) makes
 * jsonw_finish return NULL; the other calls then do nothing. */
#define JSONW_MAX_DEPTH 16

typedef struct jsonw {
	char *buf;
	size_t len, cap;
	int failed;
	unsigned depth;
	unsigned char first[JSONW_MAX_DEPTH]; /* no member written yet */
	unsigned char array[JSONW_MAX_DEPTH]; /* the container is an array */
} jsonw;

void jsonw_init(jsonw *w);
void jsonw_object(jsonw *w);   /* '{' */
void jsonw_array(jsonw *w);    /* '[' */
void jsonw_end(jsonw *w);      /* '}' or ']', whichever is open */
void jsonw_key(jsonw *w, const char *key);
void jsonw_string(jsonw *w, const char *s); /* NULL writes null */
void jsonw_stringn(jsonw *w, const char *s, size_t n);
void jsonw_int(jsonw *w, long long v);
void jsonw_bool(jsonw *w, int v);
void jsonw_null(jsonw *w);
/* The text (malloc'd, NUL-terminated, length in *len), or NULL on a
 * failure or with a container still open; w is spent either way. */
char *jsonw_finish(jsonw *w, size_t *len);

#endif
