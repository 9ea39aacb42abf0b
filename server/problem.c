/* problem.c — builds every error reply of the server from the one table in
 * problem.h, as RFC 9457 problem details. Handlers only name a kind, an
 * optional specific code and a sentence; type URI, title and status come
 * from the table so they cannot drift apart. */
#include <stdarg.h>
#include <stdio.h>

#include "problem.h"

static const struct {
	const char *kind;
	int status;
	const char *title;
} kinds[PROBLEM_COUNT] = {
#define PROBLEM_ROW(name, kind, status, title) [name] = {kind, status, title},
	PROBLEM_KINDS(PROBLEM_ROW)
#undef PROBLEM_ROW
};

const char problem_internal_fallback[] =
	"{\"type\":\"" PROBLEM_TYPE_PREFIX "internal_error\","
	"\"title\":\"Internal Server Error\",\"status\":500,"
	"\"detail\":\"the server ran out of memory building the reply\","
	"\"code\":\"internal_error\"}";

const char *problem_kind_name(enum problem_kind kind)
{
	return (unsigned)kind < PROBLEM_COUNT ? kinds[kind].kind
					      : "internal_error";
}

int problem_status(enum problem_kind kind)
{
	return (unsigned)kind < PROBLEM_COUNT ? kinds[kind].status : 500;
}

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

size_t problem_utf8_clean(char *out, size_t cap, const char *s, size_t len)
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

json_t *problem_reply(struct api_reply *rp, enum problem_kind kind,
		      const char *code, const char *detail, ...)
{
	char raw[1024], clean[1024], type[96];
	va_list ap;
	va_start(ap, detail);
	int n = vsnprintf(raw, sizeof raw, detail, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof raw)
		n = sizeof raw - 1;
	problem_utf8_clean(clean, sizeof clean, raw, (size_t)n);

	const char *name = problem_kind_name(kind);
	snprintf(type, sizeof type, "%s%s", PROBLEM_TYPE_PREFIX, name);
	json_t *body = json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", type,
				 "title", kinds[kind].title, "status",
				 problem_status(kind), "detail", clean, "code",
				 code ? code : name);

	json_decref(rp->json);
	rp->json = body;
	rp->raw = NULL;
	rp->raw_len = 0;
	rp->content_type = PROBLEM_CONTENT_TYPE;
	rp->status = body ? problem_status(kind) : 500;
	return body;
}
