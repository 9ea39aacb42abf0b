/* problem.h — every HTTP error cubed can answer, as one table, and the one
 * function that turns a kind into an RFC 9457 application/problem+json
 * reply. */
#ifndef CUBED_PROBLEM_H
#define CUBED_PROBLEM_H

#include <jansson.h>

#include "api.h"

/* X(enum name, kind, HTTP status, title). The kind is the stable part of
 * the type URI ("urn:cubed:problem:<kind>") and the default "code". */
#define PROBLEM_KINDS(X)                                                       \
	X(PROBLEM_MALFORMED_JSON, "malformed_json", 400, "Malformed JSON")     \
	X(PROBLEM_MALFORMED_REQUEST, "malformed_request", 400, "Bad Request")  \
	X(PROBLEM_UNAUTHORIZED, "unauthorized", 401, "Unauthorized")           \
	X(PROBLEM_FORBIDDEN, "forbidden", 403, "Forbidden")                    \
	X(PROBLEM_NOT_FOUND, "not_found", 404, "Not Found")                    \
	X(PROBLEM_METHOD_NOT_ALLOWED, "method_not_allowed", 405,               \
	  "Method Not Allowed")                                                \
	X(PROBLEM_CONFLICT, "conflict", 409, "Conflict")                       \
	X(PROBLEM_PRECONDITION_FAILED, "precondition_failed", 412,             \
	  "Precondition Failed")                                               \
	X(PROBLEM_BODY_TOO_LARGE, "body_too_large", 413, "Content Too Large")  \
	X(PROBLEM_UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", 415,       \
	  "Unsupported Media Type")                                            \
	X(PROBLEM_INVALID_REQUEST, "invalid_request", 422, "Invalid Request")  \
	X(PROBLEM_INVALID_FACELETS, "invalid_facelets", 422,                   \
	  "Invalid Facelets")                                                  \
	X(PROBLEM_INVALID_NOTATION, "invalid_notation", 422,                   \
	  "Invalid Notation")                                                  \
	X(PROBLEM_INVALID_CUBE, "invalid_cube", 422, "Invalid Cube")           \
	X(PROBLEM_INVALID_PATTERN, "invalid_pattern", 422, "Invalid Pattern")  \
	X(PROBLEM_LIMIT_EXCEEDED, "limit_exceeded", 422, "Limit Exceeded")     \
	X(PROBLEM_TOO_MANY_REQUESTS, "too_many_requests", 429,                 \
	  "Too Many Requests")                                                 \
	X(PROBLEM_QUOTA_EXCEEDED, "quota_exceeded", 429, "Too Many Requests")  \
	X(PROBLEM_HEADERS_TOO_LARGE, "headers_too_large", 431,                 \
	  "Request Header Fields Too Large")                                   \
	X(PROBLEM_INTERNAL_ERROR, "internal_error", 500,                       \
	  "Internal Server Error")                                             \
	X(PROBLEM_UNAVAILABLE, "unavailable", 503, "Service Unavailable")     \
	X(PROBLEM_DATABASE_BUSY, "database_busy", 503, "Service Unavailable") \
	X(PROBLEM_STORAGE_UNAVAILABLE, "storage_unavailable", 503,             \
	  "Service Unavailable")                                               \
	X(PROBLEM_STORAGE_FULL, "storage_full", 507, "Insufficient Storage")

enum problem_kind {
#define PROBLEM_ENUM(name, kind, status, title) name,
	PROBLEM_KINDS(PROBLEM_ENUM)
#undef PROBLEM_ENUM
	PROBLEM_COUNT
};

#define PROBLEM_TYPE_PREFIX "urn:cubed:problem:"
#define PROBLEM_CONTENT_TYPE "application/problem+json"

/* The kind name ("malformed_json") and HTTP status of a kind. */
const char *problem_kind_name(enum problem_kind kind);
int problem_status(enum problem_kind kind);

/* Make rp an error reply of this kind: status, content type and a body
 * {type, title, status, detail, code}. code NULL means the kind name.
 * detail is a printf format; the text is made valid UTF-8 (bad bytes become
 * '?') so that client input quoted in it can never break the reply. Any
 * body rp already held is released. Returns the body (borrowed: rp owns it)
 * so the caller can add extensions, or NULL if memory ran out, in which case
 * rp is a bare 500 that the HTTP layer answers with a fixed body. */
json_t *problem_reply(struct api_reply *rp, enum problem_kind kind,
		      const char *code, const char *detail, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* The fixed body used when building a problem failed. */
extern const char problem_internal_fallback[];

/* Copy s[0..len) into out[0..cap) (NUL-terminated, truncated at a character
 * boundary), replacing bytes that are not valid UTF-8 with '?'. Returns the
 * bytes written, excluding the NUL. */
size_t problem_utf8_clean(char *out, size_t cap, const char *s, size_t len);

#endif
