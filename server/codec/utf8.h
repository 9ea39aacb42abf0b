/* utf8.h — copying untrusted text as valid UTF-8 (utf8.c). */
#ifndef CUBED_UTF8_H
#define CUBED_UTF8_H

#include <stddef.h>

/* Copy s[0..len) into out[0..cap) (NUL-terminated, truncated at a character
 * boundary), replacing bytes that are not valid UTF-8 with '?'. Returns the
 * bytes written, excluding the NUL. */
size_t utf8_clean(char *out, size_t cap, const char *s, size_t len);

#endif
