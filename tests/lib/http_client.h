/* http_client.h — a tiny blocking HTTP/1.1 client for the black-box tests:
 * send one request (method, path, extra headers, body) over a TCP socket to
 * 127.0.0.1 and read back the status, the headers and the whole body
 * (Content-Length, chunked, or until the server closes).
 *
 * Every call returns 0 on success or -1 with a reason in the response's
 * error text; nothing here prints or exits, so a test can say what went
 * wrong in its own assertion. */
#ifndef CUBED_TEST_HTTP_CLIENT_H
#define CUBED_TEST_HTTP_CLIENT_H

#include <stddef.h>

#define HTTP_MAX_HEADERS 64

typedef struct http_response {
	int status;                 /* e.g. 200; 0 if none was read */
	int nheaders;
	char *names[HTTP_MAX_HEADERS];  /* as received */
	char *values[HTTP_MAX_HEADERS]; /* leading/trailing blanks trimmed */
	char *body;                 /* NUL-terminated (body_len excludes it) */
	size_t body_len;
	int closed;                 /* the server closed the connection */
	char error[256];            /* why a call returned -1 */
} http_response;

/* Open a connection to 127.0.0.1:port with timeout_ms for connect, send
 * and receive. Returns the socket, or -1 (errno set). */
int http_connect(int port, int timeout_ms);

/* The same from the local address from (an IPv4 literal such as
 * "127.0.0.2": another client, as the server's per-client limits see
 * it), or from any address when from is NULL. */
int http_connect_from(int port, const char *from, int timeout_ms);

/* Send one request on fd and read its response into *out (which the call
 * initialises; release it with http_response_free even after an error).
 * headers is NULL or a NULL-terminated list of full lines without CRLF
 * ("Content-Type: application/json"). A Host header is always sent, and
 * Content-Length whenever body is not NULL. close_conn adds
 * "Connection: close". A server that answers before the whole body is
 * sent (a 413, say) is fine: sending stops and the answer is read. */
int http_send(int fd, int port, const char *method, const char *path,
	      const char *const *headers, const char *body, size_t body_len,
	      int close_conn, http_response *out);

/* Read one response from fd into *out (initialised here), for callers
 * that wrote the request themselves; an interim 1xx answer is returned
 * as such (status 100, no body). */
int http_read_response(int fd, const char *method, http_response *out);

/* One request on a fresh connection with "Connection: close". */
int http_request(int port, const char *method, const char *path,
		 const char *const *headers, const char *body,
		 size_t body_len, http_response *out);

/* The value of the first header called name (case-insensitive), or NULL. */
const char *http_header(const http_response *r, const char *name);

/* How many headers called name the response has. */
int http_header_count(const http_response *r, const char *name);

void http_response_free(http_response *r);

/* The value on the line "name value" of a Prometheus text body (/metrics),
 * or -1 when no line has that name. */
double http_metric(const char *body, const char *name);

#endif
