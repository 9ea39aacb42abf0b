/* api_reply.c — building an API reply (api_reply.h): status, headers,
 * JSON or raw bodies, and letting go of one, a pending session write or
 * a live stream included. */
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "errors.h"

/* ---- replies ---------------------------------------------------------- */

void api_reply_init(struct api_reply *rp)
{
	/* every member but the header values, which only count up to
	 * nheaders (4 KiB of zeroes per request otherwise) */
	memset(rp, 0, offsetof(struct api_reply, headers));
	rp->route = NULL;
	rp->stream = NULL;
	rp->stream_close = NULL;
	rp->pending = NULL;
	rp->source = NULL;
	rp->stored = 0;
	rp->idem = 0;
	rp->status = 500;
}

void api_reply_free(struct api_reply *rp)
{
	json_decref(rp->json);
	rp->json = NULL;
	free(rp->owned);
	rp->owned = NULL;
	if (rp->stream && rp->stream_close)
		rp->stream_close(rp->stream);
	rp->stream = NULL;
	rp->stream_close = NULL;
	/* a pending write nobody will answer: wait is not possible here, so
	 * the caller must only free replies whose done was called */
	api_pending_free(rp->pending);
	rp->pending = NULL;
	if (rp->source) {
		if (rp->source->release)
			rp->source->release(rp->source->ctx);
		free(rp->source);
		rp->source = NULL;
	}
}

int api_reply_header(struct api_reply *rp, const char *name, const char *fmt,
		     ...)
{
	if (rp->nheaders >= API_MAX_HEADERS)
		return -1;
	struct api_header *h = &rp->headers[rp->nheaders++];
	h->name = name;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->value, sizeof h->value, fmt, ap);
	va_end(ap);
	return 0;
}

/* No body and 503: the HTTP layer answers it with the fixed out_of_memory
 * problem (problem.h), which needs no memory to build. */
static void out_of_memory(struct api_reply *rp)
{
	json_decref(rp->json);
	rp->json = NULL;
	rp->raw = NULL;
	rp->raw_len = 0;
	rp->content_type = NULL;
	rp->status = problem_status(PROBLEM_OUT_OF_MEMORY);
	api_reply_header(rp, "Retry-After", "1");
}

void api_reply_json(struct api_reply *rp, int status, json_t *body)
{
	if (body == NULL) {
		out_of_memory(rp);
		return;
	}
	json_decref(rp->json);
	rp->json = body;
	rp->raw = NULL;
	rp->raw_len = 0;
	rp->status = status;
	rp->content_type = "application/json";
}

void api_reply_json_text(struct api_reply *rp, int status, char *text,
			 size_t len)
{
	if (text == NULL) {
		out_of_memory(rp);
		return;
	}
	json_decref(rp->json);
	rp->json = NULL;
	free(rp->owned);
	rp->owned = text;
	rp->raw = text;
	rp->raw_len = len;
	rp->status = status;
	rp->content_type = "application/json";
}

json_int_t api__clamp_int(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v;
}


void api_pending_free(struct api_pending *p)
{
	if (!p)
		return;
	if (p->abandon)
		p->abandon(p);
	if (p->unkept) /* nobody got an answer: a retry may run */
		p->unkept(p->unkept_ctx, p->scope);
	free(p);
}

