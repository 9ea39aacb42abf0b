/* sse_client.c — see sse_client.h. */
#define _GNU_SOURCE /* memmem */
#include "sse_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 4096;
	while (n < need)
		n *= 2;
	char *b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

/* Read what the socket has (waiting up to ms): 1 got bytes, 0 closed,
 * -1 timeout/error. */
static int fill(sse_client *c, int ms)
{
	struct pollfd p = {c->fd, POLLIN, 0};
	int r = poll(&p, 1, ms < 0 ? 0 : ms);
	if (r == 0) {
		snprintf(c->error, sizeof c->error, "timed out");
		return -1;
	}
	if (r < 0 || grow(&c->in, &c->in_cap, c->in_len + 65536) < 0) {
		snprintf(c->error, sizeof c->error, "poll: %s", strerror(errno));
		return -1;
	}
	ssize_t n = recv(c->fd, c->in + c->in_len, 65536, 0);
	if (n < 0) {
		snprintf(c->error, sizeof c->error, "recv: %s", strerror(errno));
		return -1;
	}
	if (n == 0)
		return 0;
	c->in_len += (size_t)n;
	return 1;
}

int sse_open(sse_client *c, int port, const char *path,
	     const char *const *headers, int timeout_ms, int rcvbuf)
{
	memset(c, 0, sizeof *c);
	c->chunk_left = -1;
	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (c->fd < 0) {
		snprintf(c->error, sizeof c->error, "socket: %s", strerror(errno));
		return -1;
	}
	if (rcvbuf > 0)
		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&a, sizeof a) < 0) {
		snprintf(c->error, sizeof c->error, "connect: %s",
			 strerror(errno));
		return -1;
	}
	char req[2048];
	int k = snprintf(req, sizeof req,
			 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
			 "Accept: text/event-stream\r\n",
			 path, port);
	for (const char *const *h = headers; h && *h; h++)
		k += snprintf(req + k, sizeof req - (size_t)k, "%s\r\n", *h);
	k += snprintf(req + k, sizeof req - (size_t)k, "\r\n");
	if (send(c->fd, req, (size_t)k, MSG_NOSIGNAL) != k) {
		snprintf(c->error, sizeof c->error, "send: %s", strerror(errno));
		return -1;
	}
	long long deadline = now_ms() + timeout_ms;
	char *end;
	while (!(end = c->in ? memmem(c->in, c->in_len, "\r\n\r\n", 4) : NULL)) {
		int r = fill(c, (int)(deadline - now_ms()));
		if (r <= 0) {
			if (r == 0)
				snprintf(c->error, sizeof c->error,
					 "closed before the headers");
			return -1;
		}
	}
	*end = '\0';
	if (sscanf(c->in, "HTTP/1.1 %d", &c->status) != 1) {
		snprintf(c->error, sizeof c->error, "bad status line");
		return -1;
	}
	int chunked = 0;
	for (char *line = strstr(c->in, "\r\n"); line; line = strstr(line, "\r\n")) {
		line += 2;
		if (strncasecmp(line, "Content-Type:", 13) == 0) {
			const char *v = line + 13;
			while (*v == ' ')
				v++;
			size_t n = strcspn(v, "\r");
			snprintf(c->content_type, sizeof c->content_type, "%.*s",
				 (int)n, v);
		}
		if (strncasecmp(line, "Transfer-Encoding:", 18) == 0 &&
		    strstr(line, "chunked"))
			chunked = 1;
	}
	size_t used = (size_t)(end + 4 - c->in);
	memmove(c->in, c->in + used, c->in_len - used);
	c->in_len -= used;
	if (c->status == 200 && !chunked) {
		snprintf(c->error, sizeof c->error, "a 200 stream not chunked");
		return -1;
	}
	if (c->status != 200) {
		/* the whole (small) body is raw */
		c->ended = 1;
	}
	return 0;
}

/* Move de-chunked bytes from in to raw. */
static void dechunk(sse_client *c)
{
	for (;;) {
		if (c->chunk_left == -2) {
			if (c->in_len < 2)
				return;
			memmove(c->in, c->in + 2, c->in_len - 2);
			c->in_len -= 2;
			c->chunk_left = -1;
		}
		if (c->chunk_left < 0) {
			char *nl = c->in ? memmem(c->in, c->in_len, "\r\n", 2) : NULL;
			if (!nl)
				return;
			long n = strtol(c->in, NULL, 16);
			size_t used = (size_t)(nl + 2 - c->in);
			memmove(c->in, c->in + used, c->in_len - used);
			c->in_len -= used;
			if (n == 0) {
				c->ended = 1;
				return;
			}
			c->chunk_left = n;
		}
		size_t take = c->in_len < (size_t)c->chunk_left ? c->in_len
							   : (size_t)c->chunk_left;
		if (take == 0)
			return;
		if (grow(&c->raw, &c->raw_cap, c->raw_len + take + 1) < 0)
			return;
		memcpy(c->raw + c->raw_len, c->in, take);
		c->raw_len += take;
		memmove(c->in, c->in + take, c->in_len - take);
		c->in_len -= take;
		c->chunk_left -= (long)take;
		if (c->chunk_left == 0)
			c->chunk_left = -2; /* the CRLF after the chunk */
	}
}

/* One event from raw (a block ending in a blank line), or 0. */
static int parse_one(sse_client *c, sse_event *ev)
{
	char *end = c->raw ? memmem(c->raw, c->raw_len, "\n\n", 2) : NULL;
	if (!end)
		return 0;
	memset(ev, 0, sizeof *ev);
	snprintf(ev->type, sizeof ev->type, "message");
	size_t blen = (size_t)(end - c->raw);
	char *block = strndup(c->raw, blen);
	size_t used = blen + 2;
	memmove(c->raw, c->raw + used, c->raw_len - used);
	c->raw_len -= used;
	ev->data = strdup("");
	for (char *line = strtok(block, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == ':') {
			ev->comment = 1;
			free(ev->data);
			ev->data = strdup(line + 1);
		} else if (strncmp(line, "id: ", 4) == 0) {
			snprintf(ev->id, sizeof ev->id, "%s", line + 4);
		} else if (strncmp(line, "event: ", 7) == 0) {
			snprintf(ev->type, sizeof ev->type, "%s", line + 7);
		} else if (strncmp(line, "data: ", 6) == 0) {
			free(ev->data);
			ev->data = strdup(line + 6);
		} else if (strncmp(line, "retry: ", 7) == 0) {
			ev->comment = 1; /* a field with no event: skip */
		}
	}
	free(block);
	return 1;
}

int sse_next(sse_client *c, sse_event *ev, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		dechunk(c);
		while (parse_one(c, ev)) {
			if (!(ev->comment && strncmp(ev->data, " ping", 5) != 0))
				return 1;
			sse_event_free(ev); /* "retry:" blocks */
		}
		if (c->ended)
			return 0;
		int r = fill(c, (int)(deadline - now_ms()));
		if (r == 0) {
			c->ended = 1;
			snprintf(c->error, sizeof c->error,
				 "the server closed the connection mid-stream");
			return -1;
		}
		if (r < 0)
			return -1;
	}
}

/* The next event that skip(ev) is 0 for, within timeout_ms in all. */
static int next_kept(sse_client *c, sse_event *ev, int timeout_ms,
		     int (*skip)(const sse_event *))
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			snprintf(c->error, sizeof c->error,
				 "no event within %d ms", timeout_ms);
			return -1;
		}
		int rc = sse_next(c, ev, (int)left);
		if (rc != 1 || !skip(ev))
			return rc;
		sse_event_free(ev);
	}
}

static int comment_or_presence(const sse_event *ev)
{
	return ev->comment || strcmp(ev->type, "presence") == 0;
}

static int without_id(const sse_event *ev)
{
	return ev->comment || !ev->id[0];
}

int sse_next_event(sse_client *c, sse_event *ev, int timeout_ms)
{
	return next_kept(c, ev, timeout_ms, comment_or_presence);
}

int sse_next_with_id(sse_client *c, sse_event *ev, int timeout_ms)
{
	return next_kept(c, ev, timeout_ms, without_id);
}

void sse_event_free(sse_event *ev)
{
	free(ev->data);
	ev->data = NULL;
}

void sse_close(sse_client *c)
{
	if (c->fd > 0)
		close(c->fd);
	free(c->in);
	free(c->raw);
	c->fd = -1;
	c->in = c->raw = NULL;
}
