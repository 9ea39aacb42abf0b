/* utf8.c — text from clients made safe to repeat: a copy of at most a
 * buffer's bytes that is valid UTF-8, invalid bytes shown as '?'. Problem
 * details quote what a client sent (a bad token, a field name) and log
 * lines quote paths and headers; both must stay valid text, whatever the
 * client sent. */
#include "utf8.h"

/* Length of the valid UTF-8 sequence at s[0..len), or 0 if it is not one
 * (overlongs, surrogates and code points past U+10FFFF included). */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

size_t utf8_clean(char *out, size_t cap, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0;
	if (cap == 0)
		return 0;
	while (i < len) {
		size_t n = utf8_seq(p + i, len - i);
		if (n == 0) {
			if (o + 1 >= cap)
				break;
			out[o++] = '?';
			i++;
			continue;
		}
		if (o + n >= cap)
			break;
		for (size_t k = 0; k < n; k++)
			out[o++] = (char)p[i + k];
		i += n;
	}
	out[o] = '\0';
	return o;
}
