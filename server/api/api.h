/* api.h — cubed's HTTP API as plain C: a request struct in, a reply struct
 * out (api_reply.h), no libmicrohttpd anywhere, so routes can be
 * unit-tested and fuzzed by filling a struct. The HTTP layer (http.c) turns
 * MHD calls into an api_request and an api_reply into an MHD_Response.
 * This is the router's interface (api.c). */
#ifndef CUBED_API_H
#define CUBED_API_H

#include "api_reply.h"

/* Route rq and answer it into rp (which must be initialised). Never fails:
 * every error becomes a problem reply. Safe to call from many threads. */
void api_handle(const struct api_config *cfg, const struct api_request *rq,
		struct api_reply *rp);

/* Build the reply of rp->pending (after its done call) into rp. */
void api_finish(const struct api_config *cfg, struct api_reply *rp);

/* The distinct route patterns ("/v1/sessions/{id}"), for metrics labels:
 * fills out (up to cap) and returns the count. */
int api_route_patterns(const char **out, int cap);

/* A route's policies, as the router's table states them (api.c): the
 * body it takes, whether a bearer token may or must come (openapi.yaml's
 * security), and whether Idempotency-Key is honoured. */
enum api_body_rule { BODY_NONE, BODY_OPTIONAL, BODY_REQUIRED };
enum api_auth { AUTH_NONE, AUTH_OPTIONAL, AUTH_REQUIRED };

struct api_route_info {
	const char *pattern;
	const char *method;
	enum api_body_rule body;
	enum api_auth auth;
	int idempotent;
};

/* Row i of the route table into out: 0, or -1 past the last row. */
int api_route_row(int i, struct api_route_info *out);

/* The methods a path answers, as an Allow header value ("GET, HEAD,
 * OPTIONS"), or NULL for an unknown path. */
const char *api_allow(const char *path);

/* CORS preflight values, the same for every route. */
#define API_CORS_ALLOW_HEADERS                                                 \
	"Content-Type, Authorization, If-Match, If-None-Match, "               \
	"Idempotency-Key, Last-Event-ID"
#define API_CORS_EXPOSE_HEADERS                                                \
	"ETag, Location, Retry-After, Idempotent-Replayed, X-Request-Id, "     \
	"WWW-Authenticate, Allow"
#define API_CORS_MAX_AGE "86400"

#endif
