/* problem.h — the one function that turns a row of the error table
 * (errors.def) into an RFC 9457 application/problem+json reply. */
#ifndef CUBED_PROBLEM_H
#define CUBED_PROBLEM_H

#include <jansson.h>

#include "api_reply.h"

#include "errors.h"

#define PROBLEM_CONTENT_TYPE "application/problem+json"

/* Make rp the error reply of row id (errors.def): status, content type
 * and a body {type, title, status, detail, code}; out_of_memory also gets
 * Retry-After: 1. detail is a printf format; the text is made valid UTF-8
 * (bad bytes become '?') so that client input quoted in it can never break
 * the reply. Any body rp already held is released. Returns the body
 * (borrowed: rp owns it) so the caller can add extensions, or NULL if
 * memory ran out, in which case rp is a bare 503 that the HTTP layer
 * answers with the fixed out_of_memory body. */
json_t *problem_reply(struct api_reply *rp, enum problem id,
		      const char *detail, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* The same for core error err reported as a row of family's type
 * (problem_core): its row's code, or the core error's own name. */
json_t *problem_reply_core(struct api_reply *rp, enum problem family, int err,
			   const char *detail, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* The fixed body used when building a problem failed. */
extern const char problem_internal_fallback[];

#endif
