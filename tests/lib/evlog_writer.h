/* evlog_writer.h — the tests' own writer of schema 4's event text (the
 * server only reads it now, to upgrade: server/store/migrate_evlog.h). The fuzz
 * target and the store suite encode records with it to check that the
 * upgrade's reader gives back exactly what was written. Header-only:
 * tests/fuzz/fuzz_evlog.c is built without the test objects. */
#ifndef CUBED_TEST_EVLOG_WRITER_H
#define CUBED_TEST_EVLOG_WRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "migrate_evlog.h"

static inline char *evlog_put_escaped(char *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			*o++ = '\\';
			*o++ = '\\';
			break;
		case 0x1f:
			*o++ = '\\';
			*o++ = 'U';
			break;
		case 0x1e:
			*o++ = '\\';
			*o++ = 'R';
			break;
		default:
			*o++ = *s;
		}
	}
	return o;
}

/* Decimal, without a leading zero or a "+", never "-0". */
static inline char *evlog_put_int(char *o, int64_t v)
{
	char tmp[20];
	int k = 0;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*o++ = '-';
	while (k)
		*o++ = tmp[--k];
	return o;
}

static inline char *evlog_encode(const struct evlog_record *e,
				  size_t *len)
{
	const char *moves = e->moves ? e->moves : "";
	size_t cap = 2 * (strlen(e->type) + strlen(moves) +
			  (e->actor ? strlen(e->actor) : 0)) +
		     4 * 21 + 8;
	char *buf = malloc(cap), *o = buf;
	if (!buf)
		return NULL;
	o = evlog_put_int(o, e->version);
	*o++ = 0x1f;
	o = evlog_put_escaped(o, e->type);
	*o++ = 0x1f;
	o = evlog_put_escaped(o, moves);
	*o++ = 0x1f;
	if (e->actor) {
		*o++ = '=';
		o = evlog_put_escaped(o, e->actor);
	} else {
		*o++ = '-';
	}
	*o++ = 0x1f;
	o = evlog_put_int(o, e->created_at);
	*o++ = 0x1f;
	o = evlog_put_int(o, e->ref);
	*o++ = 0x1f;
	o = evlog_put_int(o, e->link);
	*o++ = 0x1e;
	*o = '\0';
	*len = (size_t)(o - buf);
	return buf;
}

#endif
