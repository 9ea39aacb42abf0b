/* log.h — cubed's log: one line per event on stderr, as text for people or
 * as JSON objects for log shippers (--log-format), filtered by level
 * (--log-level; --quiet is --log-level error).
 *
 * Every line is formatted in a local buffer and written with one write(2),
 * so lines from the HTTP threads, the session writer and the solver never
 * interleave. Client text (method, path, request id) is escaped: in text
 * lines bytes outside printable ASCII become \xNN, in JSON lines the
 * string is made valid UTF-8 and JSON-escaped, so no request can forge or
 * break a line.
 *
 * The settings are process-wide (stderr is): log_configure once at start,
 * before any thread logs; until then lines are text at level info. */
#ifndef CUBED_LOG_H
#define CUBED_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };
enum log_format { LOG_TEXT, LOG_JSON };

/* "debug", "info", "warn", "error" → the level (-1 if none); "text",
 * "json" → the format (-1 if none). */
int log_level_parse(const char *s);
int log_format_parse(const char *s);
const char *log_level_name(enum log_level l);

void log_configure(enum log_format f, enum log_level min);
/* Would a line of this level be written? */
int log_enabled(enum log_level l);

/* A daemon message: "<time> cubed: <level>: <text>" (info lines keep the
 * plain "cubed: <text>" shape), or {"time", "level", "msg"} in JSON. */
void log_msg(enum log_level l, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* The same with one extra string field (JSON: "key": value; text: appended
 * as key=value). */
void log_msg_kv(enum log_level l, const char *key, const char *value,
		const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* A line written whatever the level (at level info): the one saying where
 * the server listens, which supervisors and tests wait for. */
void log_always(const char *key, const char *value, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* One finished request. Strings may be NULL ("-"). */
struct log_request {
	const char *method;
	const char *path;       /* without the query (tokens stay out) */
	const char *route;      /* the route template, NULL if none matched */
	int status;
	uint64_t bytes;         /* body bytes sent (after compression) */
	double seconds;         /* arrival to the last byte handed to the socket */
	const char *client;     /* address */
	const char *request_id;
	const char *trace_id;   /* from traceparent, or NULL */
	const char *encoding;   /* content coding sent, NULL for identity */
	int aborted;            /* the connection ended before the reply did */
	int mhd;                /* answered by libmicrohttpd itself */
};

/* The request's line: level error for a 5xx, info otherwise. */
void log_request(const struct log_request *r);

/* MHD_OPTION_EXTERNAL_LOGGER: libmicrohttpd's own messages, at level warn
 * (error for those about the daemon failing to start or run). */
void log_mhd(void *cls, const char *fmt, va_list ap);

/* The status of libmicrohttpd's own error reply last reported on this
 * thread (0 if none), cleared by the call: the request line of a request
 * MHD refused itself can then say what it answered. Best effort: MHD tells
 * it only in its message text. */
int log_mhd_status(void);

/* Escape s for a text line into out (cap bytes, NUL-terminated): bytes
 * outside printable ASCII, and '\\', become \xNN. */
void log_escape_text(char *out, size_t cap, const char *s);

#endif
