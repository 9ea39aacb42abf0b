/* reqid.h — request ids (X-Request-Id): a client's own id is kept when it
 * is sane, otherwise the server makes one, so every reply and log line
 * names its request. */
#ifndef CUBED_REQID_H
#define CUBED_REQID_H

#include <stddef.h>

/* Longest id kept, in characters. */
#define REQID_MAX 128

/* Is s an id we keep? 1 to REQID_MAX characters, each a letter, a digit
 * or one of - _ . : + / = @ (UUIDs, ULIDs, base64 and the usual
 * "prefix:value" forms fit; spaces, quotes, commas and control bytes do
 * not, so an id is always safe in a header, a JSON string and a log). */
int reqid_valid(const char *s);

/* A new id: 32 lowercase hex digits (128 bits from a per-thread generator
 * seeded from the OS), NUL-terminated in out (at least 33 bytes). */
void reqid_new(char *out);

/* The trace id (32 lowercase hex digits) of a W3C traceparent header
 * ("00-<trace-id>-<parent-id>-<flags>"), into out (33 bytes); 0, or -1
 * if the header is not one (then out is empty). */
int reqid_trace_id(const char *traceparent, char *out);

#endif
