/* migrate_evlog.c — migration code: schema 4's event text read back (see
 * migrate_evlog.h). Strict: a record has exactly one spelling, so a
 * damaged value fails the upgrade instead of turning into wrong events. */
#include "migrate_evlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define US '\x1f'
#define RS '\x1e'

void evlog_record_free(struct evlog_record *r)
{
	free(r->moves);
	free(r->actor);
	r->moves = r->actor = NULL;
}

/* The field [s, f): unescaped into a new string, or NULL if malformed or
 * out of memory. */
static char *take_text(const char *s, const char *f)
{
	char *out = malloc((size_t)(f - s) + 1), *o = out;
	if (!out)
		return NULL;
	while (s < f) {
		char ch = *s++;
		if (ch == '\\') {
			if (s == f)
				goto bad;
			ch = *s++;
			if (ch == 'U')
				ch = US;
			else if (ch == 'R')
				ch = RS;
			else if (ch != '\\')
				goto bad;
		} else if (ch == '\0') {
			goto bad;
		}
		*o++ = ch;
	}
	*o = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

/* A number as the writer spelt it: an optional '-', then digits without a
 * leading zero (one spelling per value, so a record re-encodes to the
 * same bytes); -0 is not one. */
static int take_int(const char *s, const char *f, int64_t *v)
{
	char tmp[24];
	size_t n = (size_t)(f - s);
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	const char *d = tmp[0] == '-' ? tmp + 1 : tmp;
	if (*d < '0' || *d > '9' || (d[0] == '0' && (d[1] != '\0' || d > tmp)))
		return -1;
	char *end;
	errno = 0;
	long long x = strtoll(tmp, &end, 10);
	if (end != tmp + n || errno != 0) /* also a NUL inside the field */
		return -1;
	*v = x;
	return 0;
}

int evlog_next(const char **p, const char *end, struct evlog_record *out)
{
	memset(out, 0, sizeof *out);
	const char *s = *p;
	if (s >= end)
		return 0;
	const char *rec_end = memchr(s, RS, (size_t)(end - s));
	if (!rec_end)
		return -1;
	const char *f[8]; /* field starts; f[7] = rec_end + 1 */
	int k = 0;
	f[k++] = s;
	for (const char *q = s; q < rec_end; q++)
		if (*q == US) {
			if (k == 7)
				return -1;
			f[k++] = q + 1;
		}
	if (k != 7)
		return -1;
	f[7] = rec_end + 1;
#define FIELD_END(i) (f[(i) + 1] - 1)
	char *type = NULL;
	if (take_int(f[0], FIELD_END(0), &out->version) < 0 ||
	    take_int(f[4], FIELD_END(4), &out->created_at) < 0 ||
	    take_int(f[5], FIELD_END(5), &out->ref) < 0 ||
	    take_int(f[6], FIELD_END(6), &out->link) < 0)
		return -1;
	type = take_text(f[1], FIELD_END(1));
	if (!type || strlen(type) >= sizeof out->type)
		goto bad;
	memcpy(out->type, type, strlen(type) + 1);
	free(type);
	type = NULL;
	out->moves = take_text(f[2], FIELD_END(2));
	if (!out->moves)
		goto bad;
	if (FIELD_END(3) > f[3] && f[3][0] == '=') {
		out->actor = take_text(f[3] + 1, FIELD_END(3));
		if (!out->actor)
			goto bad;
	} else if (!(FIELD_END(3) == f[3] + 1 && f[3][0] == '-')) {
		goto bad;
	}
#undef FIELD_END
	*p = rec_end + 1;
	return 1;
bad:
	free(type);
	evlog_record_free(out);
	memset(out, 0, sizeof *out);
	return -1;
}
