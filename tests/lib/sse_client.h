/* sse_client.h — a Server-Sent Events reader for the black-box tests: one
 * GET on its own socket, the chunked body decoded as it arrives, split
 * into events (id, event, data) and comments. Nothing prints or exits. */
#ifndef CUBED_TEST_SSE_CLIENT_H
#define CUBED_TEST_SSE_CLIENT_H

#include <stddef.h>

typedef struct sse_event {
	char id[32];      /* "" when the event had no id line */
	char type[32];    /* "message" when it had no event line */
	char *data;       /* malloc'd, "" when none */
	int comment;      /* a ": ..." comment line (data holds its text) */
} sse_event;

typedef struct sse_client {
	int fd;
	int status;            /* of the response */
	char content_type[64];
	char *raw;             /* decoded body bytes not yet parsed */
	size_t raw_len, raw_cap;
	char *in;              /* socket bytes not yet de-chunked */
	size_t in_len, in_cap;
	long chunk_left;       /* bytes left in the current chunk, -1 = size line next */
	int ended;             /* the last chunk arrived or the socket closed */
	char error[256];
} sse_client;

/* Connect and send GET path with extra header lines (NULL-terminated, may
 * be NULL); read the status and headers within timeout_ms. Returns 0 (then
 * check c->status), or -1 with c->error. rcvbuf > 0 sets SO_RCVBUF first
 * (a small one makes a client that does not read fill up quickly). */
int sse_open(sse_client *c, int port, const char *path,
	     const char *const *headers, int timeout_ms, int rcvbuf);

/* The next event or comment within timeout_ms: 1, 0 when the stream
 * ended cleanly, -1 on a timeout or error (c->error). */
int sse_next(sse_client *c, sse_event *ev, int timeout_ms);

/* The next event that is neither a comment nor "presence" (the viewer
 * counts a stream sends whenever a watcher comes or goes), within
 * timeout_ms in all: 1, 0 when the stream ended cleanly, -1 on a timeout
 * or error (c->error). What it skips is freed. */
int sse_next_event(sse_client *c, sse_event *ev, int timeout_ms);

/* The same for the next event with an id (a version of the session:
 * state, moves, undo, ...), skipping comments and every event without
 * one (presence, solve, timed). */
int sse_next_with_id(sse_client *c, sse_event *ev, int timeout_ms);

void sse_event_free(sse_event *ev);
void sse_close(sse_client *c);

#endif
