/* jsonout.c — compact JSON text of a jansson value, and a writer of
 * such text without one (jsonout.h).
 *
 * One buffer, grown by doubling; strings copied in runs between the bytes
 * that need escaping (found with a table), integers written by hand. The
 * escapes are jansson's with JSON_COMPACT and no other flag: \" \\ \b \f
 * \n \r \t, every other byte below 0x20 as \u00XX (upper-case hex), the
 * rest (UTF-8 included) as it is. Objects in the order jansson keeps
 * (insertion). Reals are rare in our replies and their exact spelling is
 * jansson's business: they are formatted by json_dumps itself.
 */
#include "jsonout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Deeper than any reply we build; json_dumps has a limit too. */
#define JSONOUT_MAX_DEPTH 2048


static int reserve(jsonw *o, size_t more)
{
	if (o->failed)
		return -1;
	if (more <= o->cap - o->len)
		return 0;
	size_t cap = o->cap ? o->cap : 512;
	while (cap - o->len < more) {
		if (cap > SIZE_MAX / 2) {
			o->failed = 1;
			return -1;
		}
		cap *= 2;
	}
	char *b = realloc(o->buf, cap);
	if (!b) {
		o->failed = 1;
		return -1;
	}
	o->buf = b;
	o->cap = cap;
	return 0;
}

static void put(jsonw *o, const char *s, size_t n)
{
	if (reserve(o, n) == 0) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
	}
}

static void putc1(jsonw *o, char c)
{
	if (reserve(o, 1) == 0)
		o->buf[o->len++] = c;
}

/* Escape for each byte: 0 as it is, 'u' as \u00XX, else the letter after
 * the backslash. */
static const char escape[256] = {
	['\0'] = 'u', [1] = 'u', [2] = 'u', [3] = 'u', [4] = 'u', [5] = 'u',
	[6] = 'u', [7] = 'u', ['\b'] = 'b', ['\t'] = 't', ['\n'] = 'n',
	[11] = 'u', ['\f'] = 'f', ['\r'] = 'r', [14] = 'u', [15] = 'u',
	[16] = 'u', [17] = 'u', [18] = 'u', [19] = 'u', [20] = 'u', [21] = 'u',
	[22] = 'u', [23] = 'u', [24] = 'u', [25] = 'u', [26] = 'u', [27] = 'u',
	[28] = 'u', [29] = 'u', [30] = 'u', [31] = 'u', ['"'] = '"',
	['\\'] = '\\',
};

static void put_string(jsonw *o, const char *s, size_t n)
{
	/* at most 6 bytes out per byte in, and the quotes */
	if (n > (SIZE_MAX - 2) / 6 || reserve(o, 6 * n + 2) < 0) {
		o->failed = 1;
		return;
	}
	char *w = o->buf + o->len;
	*w++ = '"';
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && !escape[(unsigned char)s[run]])
			run++;
		memcpy(w, s + i, run - i);
		w += run - i;
		if (run == n)
			break;
		unsigned char c = (unsigned char)s[run];
		*w++ = '\\';
		if (escape[c] == 'u') {
			static const char hex[] = "0123456789ABCDEF";
			w[0] = 'u';
			w[1] = '0';
			w[2] = '0';
			w[3] = hex[c >> 4];
			w[4] = hex[c & 15];
			w += 5;
		} else {
			*w++ = escape[c];
		}
		i = run + 1;
	}
	*w++ = '"';
	o->len = (size_t)(w - o->buf);
}

static void put_integer(jsonw *o, long long v)
{
	char tmp[24];
	size_t k = sizeof tmp;
	/* the magnitude as unsigned, so the most negative value works */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
				     : (unsigned long long)v;
	do {
		tmp[--k] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--k] = '-';
	put(o, tmp + k, sizeof tmp - k);
}

static void put_value(jsonw *o, const json_t *v, int depth)
{
	if (o->failed)
		return;
	if (depth > JSONOUT_MAX_DEPTH) {
		o->failed = 1;
		return;
	}
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *val;
		int first = 1;
		putc1(o, '{');
		/* json_object_foreach wants a non-const object; it does not
		 * change it */
		json_t *obj = (json_t *)v;
		json_object_foreach(obj, key, val) {
			if (!first)
				putc1(o, ',');
			first = 0;
			put_string(o, key, strlen(key));
			putc1(o, ':');
			put_value(o, val, depth + 1);
		}
		putc1(o, '}');
		break;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		putc1(o, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				putc1(o, ',');
			put_value(o, json_array_get(v, i), depth + 1);
		}
		putc1(o, ']');
		break;
	}
	case JSON_STRING:
		put_string(o, json_string_value(v), json_string_length(v));
		break;
	case JSON_INTEGER:
		put_integer(o, json_integer_value(v));
		break;
	case JSON_REAL: {
		char *r = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (!r) {
			o->failed = 1;
			return;
		}
		put(o, r, strlen(r));
		free(r);
		break;
	}
	case JSON_TRUE:
		put(o, "true", 4);
		break;
	case JSON_FALSE:
		put(o, "false", 5);
		break;
	case JSON_NULL:
		put(o, "null", 4);
		break;
	}
}

char *jsonout_dump(const json_t *v, size_t *len)
{
	if (!v || !(json_is_object(v) || json_is_array(v)))
		return NULL;
	jsonw o;
	jsonw_init(&o);
	put_value(&o, v, 0);
	putc1(&o, '\0');
	if (o.failed) {
		free(o.buf);
		return NULL;
	}
	if (len)
		*len = o.len - 1;
	return o.buf;
}

/* ------------------------------------------------------------ jsonw */

void jsonw_init(jsonw *w)
{
	memset(w, 0, sizeof *w);
}

/* Before a value: the comma between array members. */
static void before_value(jsonw *w)
{
	if (w->depth && w->array[w->depth - 1]) {
		if (!w->first[w->depth - 1])
			putc1(w, ',');
		w->first[w->depth - 1] = 0;
	}
}

static void open_container(jsonw *w, char c, int array)
{
	before_value(w);
	if (w->depth >= JSONW_MAX_DEPTH) {
		w->failed = 1;
		return;
	}
	putc1(w, c);
	w->first[w->depth] = 1;
	w->array[w->depth] = (unsigned char)array;
	w->depth++;
}

void jsonw_object(jsonw *w)
{
	open_container(w, '{', 0);
}

void jsonw_array(jsonw *w)
{
	open_container(w, '[', 1);
}

void jsonw_end(jsonw *w)
{
	if (!w->depth) {
		w->failed = 1;
		return;
	}
	w->depth--;
	putc1(w, w->array[w->depth] ? ']' : '}');
}

void jsonw_key(jsonw *w, const char *key)
{
	if (!w->depth || w->array[w->depth - 1]) {
		w->failed = 1;
		return;
	}
	if (!w->first[w->depth - 1])
		putc1(w, ',');
	w->first[w->depth - 1] = 0;
	put_string(w, key, strlen(key));
	putc1(w, ':');
}

void jsonw_stringn(jsonw *w, const char *s, size_t n)
{
	before_value(w);
	put_string(w, s, n);
}

void jsonw_string(jsonw *w, const char *s)
{
	if (s)
		jsonw_stringn(w, s, strlen(s));
	else
		jsonw_null(w);
}

void jsonw_int(jsonw *w, long long v)
{
	before_value(w);
	put_integer(w, v);
}

void jsonw_bool(jsonw *w, int v)
{
	before_value(w);
	if (v)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void jsonw_null(jsonw *w)
{
	before_value(w);
	put(w, "null", 4);
}

char *jsonw_finish(jsonw *w, size_t *len)
{
	if (w->depth)
		w->failed = 1;
	putc1(w, '\0');
	if (w->failed) {
		free(w->buf);
		jsonw_init(w);
		return NULL;
	}
	char *text = w->buf;
	if (len)
		*len = w->len - 1;
	jsonw_init(w);
	return text;
}
