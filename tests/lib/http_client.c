/* http_client.c — the black-box tests' HTTP/1.1 client (see http_client.h).
 * It is deliberately simple and strict: it reads exactly what the framing
 * headers promise, so a server that sends a wrong Content-Length or breaks
 * chunking shows up as a test failure rather than being papered over. */
#include "http_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int fail(http_response *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
	return -1;
}

int http_connect(int port, int timeout_ms)
{
	return http_connect_from(port, NULL, timeout_ms);
}

int http_connect_from(int port, const char *from, int timeout_ms)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (from) {
		struct sockaddr_in src;
		memset(&src, 0, sizeof src);
		src.sin_family = AF_INET;
		if (inet_pton(AF_INET, from, &src.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&src, sizeof src) < 0) {
			int e = errno;
			close(fd);
			errno = e ? e : EINVAL;
			return -1;
		}
	}
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((unsigned short)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A growable receive buffer with a read cursor. */
typedef struct rbuf {
	char *d;
	size_t len, cap, pos;
	int eof;
} rbuf;

static int rb_fill(int fd, rbuf *b, http_response *r)
{
	if (b->eof)
		return 0;
	if (b->cap - b->len < 65536) {
		size_t cap = b->cap ? b->cap * 2 : 131072;
		char *d = realloc(b->d, cap);
		if (!d)
			return fail(r, "out of memory");
		b->d = d;
		b->cap = cap;
	}
	ssize_t k;
	do
		k = recv(fd, b->d + b->len, b->cap - b->len - 1, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return fail(r, "recv: %s", strerror(errno));
	if (k == 0)
		b->eof = 1;
	b->len += (size_t)k;
	b->d[b->len] = '\0';
	return (int)k;
}

/* Make sure n bytes past the cursor are buffered; -1 if the connection
 * ends first. */
static int rb_need(int fd, rbuf *b, size_t n, http_response *r)
{
	while (b->len - b->pos < n) {
		int k = rb_fill(fd, b, r);
		if (k < 0)
			return -1;
		if (k == 0)
			return fail(r, "connection closed after %zu of %zu "
				       "bytes",
				    b->len - b->pos, n);
	}
	return 0;
}

/* A line ending in CRLF starting at the cursor; returns its length
 * (without CRLF) and advances past it. */
static long rb_line(int fd, rbuf *b, http_response *r)
{
	for (;;) {
		char *start = b->d ? b->d + b->pos : NULL;
		char *nl = start ? memchr(start, '\n', b->len - b->pos) : NULL;
		if (nl) {
			long k = (long)(nl - start);
			if (k == 0 || nl[-1] != '\r')
				return fail(r, "header line not ended by CRLF");
			b->pos += (size_t)k + 1;
			return k - 1;
		}
		int got = rb_fill(fd, b, r);
		if (got < 0)
			return -1;
		if (got == 0)
			return fail(r, "connection closed inside the headers");
	}
}

static char *dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static int read_response(int fd, const char *method, http_response *r)
{
	rbuf b = {0};
	int rc = -1;
	char *body = NULL;
	size_t body_len = 0;
	long k = rb_line(fd, &b, r);
	if (k < 0)
		goto out;
	const char *line = b.d + b.pos - (size_t)k - 2;
	int minor;
	if (sscanf(line, "HTTP/1.%d %3d", &minor, &r->status) != 2) {
		fail(r, "bad status line: %.60s", line);
		goto out;
	}
	for (;;) {
		k = rb_line(fd, &b, r);
		if (k < 0)
			goto out;
		if (k == 0)
			break;
		line = b.d + b.pos - (size_t)k - 2;
		const char *colon = memchr(line, ':', (size_t)k);
		if (!colon) {
			fail(r, "header without a colon: %.60s", line);
			goto out;
		}
		if (r->nheaders == HTTP_MAX_HEADERS) {
			fail(r, "more than %d headers", HTTP_MAX_HEADERS);
			goto out;
		}
		const char *v = colon + 1, *end = line + k;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		r->names[r->nheaders] = dup_range(line, (size_t)(colon - line));
		r->values[r->nheaders] = dup_range(v, (size_t)(end - v));
		r->nheaders++;
	}

	const char *cl = http_header(r, "Content-Length");
	const char *te = http_header(r, "Transfer-Encoding");
	const char *conn = http_header(r, "Connection");
	int no_body = strcmp(method, "HEAD") == 0 || r->status == 204 ||
		      r->status == 304 || r->status / 100 == 1;
	if (no_body) {
		body = dup_range("", 0);
	} else if (te && strcasecmp(te, "chunked") == 0) {
		size_t cap = 0;
		for (;;) {
			k = rb_line(fd, &b, r);
			if (k < 0)
				goto out;
			char *endp;
			unsigned long long sz = strtoull(
				b.d + b.pos - (size_t)k - 2, &endp, 16);
			if (sz == 0)
				break;
			if (rb_need(fd, &b, sz + 2, r) < 0)
				goto out;
			if (body_len + sz + 1 > cap) {
				cap = (body_len + sz + 1) * 2;
				char *nb = realloc(body, cap);
				if (!nb) {
					fail(r, "out of memory");
					goto out;
				}
				body = nb;
			}
			memcpy(body + body_len, b.d + b.pos, sz);
			body_len += sz;
			b.pos += sz + 2;
		}
		/* trailers until the empty line */
		do
			k = rb_line(fd, &b, r);
		while (k > 0);
		if (k < 0)
			goto out;
		if (!body)
			body = dup_range("", 0);
		else
			body[body_len] = '\0';
	} else if (cl) {
		char *endp;
		unsigned long long n = strtoull(cl, &endp, 10);
		if (*cl == '\0' || *endp) {
			fail(r, "bad Content-Length: %s", cl);
			goto out;
		}
		if (rb_need(fd, &b, n, r) < 0)
			goto out;
		body_len = n;
		body = dup_range(b.d + b.pos, n);
		b.pos += n;
	} else {
		/* no framing: the body runs until the server closes */
		while (!b.eof)
			if (rb_fill(fd, &b, r) < 0)
				goto out;
		body_len = b.len - b.pos;
		body = dup_range(b.d ? b.d + b.pos : "", body_len);
		r->closed = 1;
	}
	if (!body) {
		fail(r, "out of memory");
		goto out;
	}
	r->body = body;
	r->body_len = body_len;
	if (b.len > b.pos) {
		fail(r, "%zu unexpected bytes after the response",
		     b.len - b.pos);
		goto out;
	}
	if (conn && strcasecmp(conn, "close") == 0)
		r->closed = 1;
	rc = 0;
out:
	if (rc < 0 && body && body != r->body)
		free(body);
	free(b.d);
	return rc;
}

/* Send everything, but stop early (without failing) if the server has
 * already answered or closed: the caller then reads that answer. */
static int send_all(int fd, const char *p, size_t n, http_response *r)
{
	while (n > 0) {
		struct pollfd pfd = {fd, POLLOUT | POLLIN, 0};
		if (poll(&pfd, 1, 10000) <= 0)
			return fail(r, "send timed out");
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
			return 1;
		size_t chunk = n < 16384 ? n : 16384;
		ssize_t k = send(fd, p, chunk, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return 1;
			return fail(r, "send: %s", strerror(errno));
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int http_send(int fd, int port, const char *method, const char *path,
	      const char *const *headers, const char *body, size_t body_len,
	      int close_conn, http_response *out)
{
	memset(out, 0, sizeof *out);
	size_t cap = 512 + strlen(method) + strlen(path);
	for (const char *const *h = headers; h && *h; h++)
		cap += strlen(*h) + 2;
	char *head = malloc(cap);
	if (!head)
		return fail(out, "out of memory");
	int len = snprintf(head, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n",
			   method, path, port);
	for (const char *const *h = headers; h && *h; h++)
		len += snprintf(head + len, cap - (size_t)len, "%s\r\n", *h);
	if (body)
		len += snprintf(head + len, cap - (size_t)len,
				"Content-Length: %zu\r\n", body_len);
	if (close_conn)
		len += snprintf(head + len, cap - (size_t)len,
				"Connection: close\r\n");
	len += snprintf(head + len, cap - (size_t)len, "\r\n");
	int s = send_all(fd, head, (size_t)len, out);
	free(head);
	if (s < 0)
		return -1;
	if (s == 0 && body && send_all(fd, body, body_len, out) < 0)
		return -1;
	return read_response(fd, method, out);
}

int http_request(int port, const char *method, const char *path,
		 const char *const *headers, const char *body,
		 size_t body_len, http_response *out)
{
	int fd = http_connect(port, 15000);
	if (fd < 0) {
		memset(out, 0, sizeof *out);
		return fail(out, "connect to 127.0.0.1:%d: %s", port,
			    strerror(errno));
	}
	int rc = http_send(fd, port, method, path, headers, body, body_len, 1,
			   out);
	close(fd);
	return rc;
}

int http_read_response(int fd, const char *method, http_response *out)
{
	memset(out, 0, sizeof *out);
	return read_response(fd, method, out);
}

const char *http_header(const http_response *r, const char *name)
{
	for (int i = 0; i < r->nheaders; i++)
		if (r->names[i] && strcasecmp(r->names[i], name) == 0)
			return r->values[i];
	return NULL;
}

int http_header_count(const http_response *r, const char *name)
{
	int k = 0;
	for (int i = 0; i < r->nheaders; i++)
		if (r->names[i] && strcasecmp(r->names[i], name) == 0)
			k++;
	return k;
}

void http_response_free(http_response *r)
{
	for (int i = 0; i < r->nheaders; i++) {
		free(r->names[i]);
		free(r->values[i]);
	}
	free(r->body);
	memset(r, 0, sizeof *r);
}

double http_metric(const char *body, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = body; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, name, n) == 0 && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return -1;
}
