/* problem.c — every error reply of the server, built from a row of the
 * error table (errors.def, read through errors.h) as RFC 9457 problem
 * details. Handlers only name a row and a sentence; type URI, title,
 * status and code come from the row so they cannot drift apart. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pattern.h"
#include "problem.h"
#include "solve.h"
#include "utf8.h"

const char problem_internal_fallback[] =
	"{\"type\":\"" PROBLEM_TYPE_PREFIX "unavailable\","
	"\"title\":\"Service Unavailable\",\"status\":503,"
	"\"detail\":\"the server ran out of memory building the reply\","
	"\"code\":\"out_of_memory\"}";

/* The name of any core error: each core header keeps its own range. */
static const char *core_name(int err)
{
	if (err <= SOLVE_ENOTFOUND)
		return solve_errname(err);
	return pattern_errname(err);
}

static json_t *reply_v(struct api_reply *rp, enum problem id,
		       const char *code, const char *detail, va_list ap)
{
	char raw[1024], clean[1024], type[96];
	int n = vsnprintf(raw, sizeof raw, detail, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof raw)
		n = sizeof raw - 1;
	utf8_clean(clean, sizeof clean, raw, (size_t)n);

	snprintf(type, sizeof type, "%s%s", PROBLEM_TYPE_PREFIX,
		 problem_type(id));
	json_t *body = json_pack("{s:s, s:s, s:i, s:s, s:s}", "type", type,
				 "title", problem_title(id), "status",
				 problem_status(id), "detail", clean, "code",
				 code);

	json_decref(rp->json);
	rp->json = body;
	rp->raw = NULL;
	rp->raw_len = 0;
	rp->content_type = PROBLEM_CONTENT_TYPE;
	/* a reply that could not be built is the fixed out_of_memory one */
	rp->status = problem_status(body ? id : PROBLEM_OUT_OF_MEMORY);
	if (id == PROBLEM_OUT_OF_MEMORY || body == NULL)
		api_reply_header(rp, "Retry-After", "1");
	return body;
}

json_t *problem_reply(struct api_reply *rp, enum problem id,
		      const char *detail, ...)
{
	const char *code = problem_code(id);
	va_list ap;
	va_start(ap, detail);
	json_t *body = reply_v(rp, id, code ? code : "internal_error", detail,
			       ap);
	va_end(ap);
	return body;
}

json_t *problem_reply_core(struct api_reply *rp, enum problem family, int err,
			   const char *detail, ...)
{
	enum problem id = problem_core(family, err);
	const char *code = problem_code(id);
	va_list ap;
	va_start(ap, detail);
	json_t *body = reply_v(rp, id, code ? code : core_name(err), detail,
			       ap);
	va_end(ap);
	return body;
}
