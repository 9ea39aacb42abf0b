/* http.h — the libmicrohttpd daemon that carries the API: start, the bound
 * port, stop. */
#ifndef CUBED_HTTP_H
#define CUBED_HTTP_H

#include <stddef.h>

#include "api.h"
#include "config.h"

struct http_server;

/* Start listening on cfg->bind:cfg->port and serving api. cfg and api must
 * outlive the server. Returns NULL after writing a reason into err. */
struct http_server *http_start(const struct config *cfg,
			       const struct api_config *api, char *err,
			       size_t errlen);

/* The port actually bound (useful with port 0). */
unsigned http_port(const struct http_server *srv);

/* The node is draining (main.c: a stop signal came): everything is still
 * served, but every reply from now says Connection: close, so that a
 * client or balancer opens its next connection afresh (and finds another
 * node once this one's listener is closed) instead of reusing one this
 * node is about to close. */
void http_draining(struct http_server *srv);
/* Stop accepting connections (those open go on): the connections the
 * kernel has queued are taken, then the listener is shut, so a connect
 * from here on is refused (never left hanging in a queue). */
void http_quiesce(struct http_server *srv);
/* After http_quiesce: wait up to wait_ms until every request that
 * arrived whole has been completed (its reply sent, or its client gone),
 * so that stopping the daemon cuts no reply short. With arriving, wait
 * also until every connection taken has begun a request or closed and
 * every request begun has arrived: only connections idle between
 * requests are left, so a request a client has sent is not dropped (one
 * sent on an idle kept-alive connection as it closes is the race HTTP/1.1
 * leaves: a balancer closes its idle connections first, docs/scaling.md).
 * Returns how many requests (with arriving: busy connections) were left
 * (0: none). */
int http_drain(struct http_server *srv, unsigned wait_ms, int arriving);
/* Finish or close every connection, free srv. */
void http_stop(struct http_server *srv);

#endif
