/* log.c — the daemon's log lines, text or JSON, filtered by level (see
 * log.h). Lines are built in a fixed buffer on the caller's stack (a line
 * never allocates, so logging works when memory has run out) and written
 * to stderr with one write(2). */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timefmt.h"
#include "utf8.h"

/* Set once before threads start; atomics keep tools like TSan content. */
static _Atomic int log_fmt = LOG_TEXT;
static _Atomic int log_min = LOG_INFO;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

int log_level_parse(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, level_names[i]) == 0)
			return i;
	return -1;
}

int log_format_parse(const char *s)
{
	if (strcmp(s, "text") == 0)
		return LOG_TEXT;
	if (strcmp(s, "json") == 0)
		return LOG_JSON;
	return -1;
}

const char *log_level_name(enum log_level l)
{
	return (unsigned)l < 4 ? level_names[l] : "info";
}

void log_configure(enum log_format f, enum log_level min)
{
	atomic_store(&log_fmt, (int)f);
	atomic_store(&log_min, (int)min);
}

int log_enabled(enum log_level l)
{
	return (int)l >= atomic_load_explicit(&log_min, memory_order_relaxed);
}

/* ---- a line under construction ----------------------------------------- */

#define LINE_MAX_BYTES 4096
/* Kept free at every point of a JSON line: its end, `,"truncated":true}`
 * and the newline, so a line cut short still closes. */
#define LINE_RESERVE 24
/* The most one string member may take on a line (a path, a message): the
 * members after it always fit. */
#define FIELD_MAX_BYTES 1536

struct line {
	char buf[LINE_MAX_BYTES];
	size_t len;
	int json;
	int fields;    /* JSON members written so far */
	int truncated; /* a member was cut short or left out */
};

/* Room left for members (JSON: LINE_RESERVE kept back). */
static size_t room(const struct line *ln)
{
	size_t keep = ln->json ? LINE_RESERVE : 3;
	return ln->len + keep >= sizeof ln->buf ? 0
						 : sizeof ln->buf - keep - ln->len;
}

/* Append n bytes. A text line is cut where it is full; a JSON line's
 * callers check room() first, so that nothing is ever cut there. */
static void put(struct line *ln, const char *s, size_t n)
{
	size_t r = room(ln);
	if (n > r) {
		n = r;
		ln->truncated = 1;
	}
	memcpy(ln->buf + ln->len, s, n);
	ln->len += n;
}

static void puts_(struct line *ln, const char *s)
{
	put(ln, s, strlen(s));
}

static void putf(struct line *ln, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void putf(struct line *ln, const char *fmt, ...)
{
	char tmp[LINE_MAX_BYTES];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n > 0)
		put(ln, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* s as a JSON string of at most cap bytes (quotes included): valid UTF-8
 * (bad bytes become '?'), escaped. A string too long is cut between two
 * characters, never inside an escape or a UTF-8 sequence, and ends with
 * "…" (the line then says "truncated": true). cap >= 8. */
static void put_json_string(struct line *ln, const char *s, size_t cap)
{
	static const char ellipsis[] = "\xe2\x80\xa6"; /* … */
	char clean[FIELD_MAX_BYTES];
	size_t len = s ? strlen(s) : 0;
	size_t n = utf8_clean(clean, sizeof clean, s ? s : "", len);
	int cut = n < len && len >= sizeof clean - 4;
	size_t start = ln->len, budget = cap - 2 - (sizeof ellipsis - 1);
	ln->buf[ln->len++] = '"';
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)clean[i];
		char unit[8];
		size_t k = 0, used = 1;
		if (c == '"' || c == '\\') {
			unit[0] = '\\';
			unit[1] = (char)c;
			k = 2;
		} else if (c < 0x20 || c == 0x7f) {
			k = (size_t)snprintf(unit, sizeof unit, "\\u%04x", c);
		} else {
			/* a whole UTF-8 character: its lead byte says how long */
			used = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
			if (used > n - i)
				used = n - i;
			memcpy(unit, clean + i, used);
			k = used;
		}
		if (ln->len - start + k > budget) {
			cut = 1;
			break;
		}
		memcpy(ln->buf + ln->len, unit, k);
		ln->len += k;
		i += used;
	}
	if (cut) {
		memcpy(ln->buf + ln->len, ellipsis, sizeof ellipsis - 1);
		ln->len += sizeof ellipsis - 1;
		ln->truncated = 1;
	}
	ln->buf[ln->len++] = '"';
}

/* Begin a member whose value takes at most need bytes: 1, or 0 when the
 * line has no room for it (it is left out whole, and the line says
 * "truncated": true). */
static int json_key(struct line *ln, const char *key, size_t need)
{
	if (strlen(key) + 4 + need > room(ln)) {
		ln->truncated = 1;
		return 0;
	}
	if (ln->fields++)
		ln->buf[ln->len++] = ',';
	ln->buf[ln->len++] = '"';
	size_t k = strlen(key);
	memcpy(ln->buf + ln->len, key, k);
	ln->len += k;
	ln->buf[ln->len++] = '"';
	ln->buf[ln->len++] = ':';
	return 1;
}

/* A string member: the value takes what is left, up to FIELD_MAX_BYTES,
 * and is cut short (put_json_string) rather than left out while 16 bytes
 * are free. */
static void json_str(struct line *ln, const char *key, const char *v)
{
	size_t r = room(ln), k = strlen(key) + 4;
	if (r < k + 16) {
		ln->truncated = 1;
		return;
	}
	size_t cap = r - k;
	if (cap > FIELD_MAX_BYTES)
		cap = FIELD_MAX_BYTES;
	if (json_key(ln, key, cap))
		put_json_string(ln, v, cap);
}

/* A member whose value is JSON text the server made (a number, true,
 * null): whole or not at all. */
static void json_raw(struct line *ln, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void json_raw(struct line *ln, const char *key, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return;
	if (json_key(ln, key, (size_t)n)) {
		memcpy(ln->buf + ln->len, tmp, (size_t)n);
		ln->len += (size_t)n;
	}
}

void log_escape_text(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap == 0)
		return;
	for (; s && *s && o + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x21 && c < 0x7f && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

static void now_text(char out[TIMEFMT_LEN + 1])
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	timefmt_iso_ms((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, out);
}

static void begin(struct line *ln, enum log_level l)
{
	char when[TIMEFMT_LEN + 1];
	now_text(when);
	ln->len = 0;
	ln->fields = 0;
	ln->truncated = 0;
	ln->json = atomic_load_explicit(&log_fmt, memory_order_relaxed) ==
		   LOG_JSON;
	if (ln->json) {
		put(ln, "{", 1);
		json_str(ln, "time", when);
		json_str(ln, "level", log_level_name(l));
	} else {
		puts_(ln, when);
		put(ln, " ", 1);
	}
}

static void finish(struct line *ln)
{
	if (ln->json) {
		/* LINE_RESERVE is free for this */
		static const char cut[] = ",\"truncated\":true";
		if (ln->truncated) {
			memcpy(ln->buf + ln->len, cut, sizeof cut - 1);
			ln->len += sizeof cut - 1;
		}
		ln->buf[ln->len++] = '}';
	}
	ln->buf[ln->len++] = '\n';
	const char *p = ln->buf;
	size_t left = ln->len;
	while (left) {
		ssize_t w = write(STDERR_FILENO, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nowhere to complain to */
		p += w;
		left -= (size_t)w;
	}
}

/* ---- daemon messages ----------------------------------------------------- */

static void vmsg(enum log_level l, int always, const char *key,
		 const char *value, const char *fmt, va_list ap)
{
	if (!always && !log_enabled(l))
		return;
	char text[2048];
	vsnprintf(text, sizeof text, fmt, ap);
	struct line ln;
	begin(&ln, l);
	if (ln.json) {
		json_str(&ln, "msg", text);
		if (key)
			json_str(&ln, key, value);
	} else {
		/* "cubed: <text>" as the daemon always wrote it; a level
		 * other than info is named */
		puts_(&ln, "cubed: ");
		if (l != LOG_INFO) {
			puts_(&ln, log_level_name(l));
			puts_(&ln, ": ");
		}
		/* the text is the server's own, but may quote a path or a
		 * client's value: no line breaks */
		for (char *c = text; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		puts_(&ln, text);
		if (key && !strstr(text, value)) {
			char v[512];
			log_escape_text(v, sizeof v, value);
			putf(&ln, " %s=%s", key, v);
		}
	}
	finish(&ln);
}

void log_msg(enum log_level l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(l, 0, NULL, NULL, fmt, ap);
	va_end(ap);
}

void log_msg_kv(enum log_level l, const char *key, const char *value,
		const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(l, 0, key, value, fmt, ap);
	va_end(ap);
}

void log_always(const char *key, const char *value, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(LOG_INFO, 1, key, value, fmt, ap);
	va_end(ap);
}

/* The status of the last error reply libmicrohttpd sent on this thread
 * (it says so in its message, then closes the connection on the same
 * thread: log_mhd_status picks it up for that request's line). */
static _Thread_local int mhd_status;

int log_mhd_status(void)
{
	int s = mhd_status;
	mhd_status = 0;
	return s;
}

void log_mhd(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char text[1024];
	vsnprintf(text, sizeof text, fmt, ap);
	const char *code = strstr(text, "HTTP response code is ");
	if (code)
		sscanf(code + 22, "%3d", &mhd_status);
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	/* the daemon itself failing is an error; a client's connection
	 * failing (most of what MHD reports) is a warning */
	enum log_level l = LOG_WARN;
	if (strncmp(text, "Failed to create", 16) == 0 ||
	    strncmp(text, "Failed to start", 15) == 0 ||
	    strncmp(text, "Failed to bind", 14) == 0 ||
	    strncmp(text, "Failed to listen", 16) == 0)
		l = LOG_ERROR;
	log_msg_kv(l, "source", "libmicrohttpd", "libmicrohttpd: %s", text);
}

/* ---- request lines ------------------------------------------------------- */

void log_request(const struct log_request *r)
{
	enum log_level l = r->status >= 500 ? LOG_ERROR : LOG_INFO;
	if (!log_enabled(l))
		return;
	struct line ln;
	begin(&ln, l);
	if (ln.json) {
		/* the members that are always there come first and are
		 * bounded; only the client's path can be long, and it is cut
		 * (put_json_string) before anything after it is left out */
		json_str(&ln, "msg", "request");
		json_str(&ln, "method", r->method ? r->method : "-");
		json_raw(&ln, "status", "%d", r->status);
		json_raw(&ln, "bytes", "%llu", (unsigned long long)r->bytes);
		json_raw(&ln, "duration_ms", "%.3f", r->seconds * 1e3);
		json_str(&ln, "client", r->client ? r->client : "-");
		json_str(&ln, "request_id", r->request_id ? r->request_id : "-");
		if (r->route)
			json_str(&ln, "route", r->route);
		else
			json_raw(&ln, "route", "null");
		if (r->trace_id)
			json_str(&ln, "trace_id", r->trace_id);
		if (r->encoding)
			json_str(&ln, "encoding", r->encoding);
		if (r->aborted)
			json_raw(&ln, "aborted", "true");
		if (r->mhd)
			json_str(&ln, "source", "libmicrohttpd");
		json_str(&ln, "path", r->path ? r->path : "-");
	} else {
		char m[48], path[512], rid[160], route[128];
		log_escape_text(m, sizeof m, r->method ? r->method : "-");
		log_escape_text(path, sizeof path, r->path ? r->path : "-");
		log_escape_text(rid, sizeof rid,
				r->request_id ? r->request_id : "-");
		log_escape_text(route, sizeof route, r->route ? r->route : "-");
		putf(&ln, "%s %s %s %d %lluB %lldus route=%s rid=%s",
		     r->client ? r->client : "-", m, path, r->status,
		     (unsigned long long)r->bytes,
		     (long long)(r->seconds * 1e6 + 0.5), route, rid);
		if (r->trace_id)
			putf(&ln, " trace=%s", r->trace_id);
		if (r->encoding)
			putf(&ln, " enc=%s", r->encoding);
		if (r->aborted)
			puts_(&ln, " aborted");
		if (r->mhd)
			puts_(&ln, " by=libmicrohttpd");
	}
	finish(&ln);
}
