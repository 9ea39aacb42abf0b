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

#endif
