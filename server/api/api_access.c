/* api_access.c — who may do what to a session, as the session routes
 * (api_sessions.c, api_tickets.c, api_solve.c, api_timed.c) ask it: the
 * bearer token of a request, who may read a session (a private one is 404
 * without one of its tokens), the credentials an event stream may carry in
 * its URL (a read token or a stream ticket, never a write or owner token),
 * and the reply for a session-layer refusal (its enum ses_err value is the
 * negated row of errors.def, so no mapping is kept here: only the members a
 * row cannot hold). */
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api_internal.h"
#include "problem.h"
#include "sessions.h"
#include "ticket.h"

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The bearer token, NULL if there is no Authorization header. A header
 * with another scheme makes *bad 1. */
const char *api__bearer(const struct api_request *rq, int *bad)
{
	const char *h = rq->header ? rq->header(rq->header_cls, "Authorization") : NULL;
	*bad = 0;
	if (!h)
		return NULL;
	while (*h == ' ')
		h++;
	if (strncasecmp(h, "Bearer ", 7) != 0) {
		*bad = 1;
		return NULL;
	}
	h += 7;
	while (*h == ' ')
		h++;
	if (!*h) {
		*bad = 1;
		return NULL;
	}
	return h;
}

/* The problem for a session-layer error: its value is the negated row
 * (sessions.h); only the members a row cannot hold are added here. */
void api__session_problem(struct api_reply *rp, int rc,
			  const struct session_view *v)
{
	enum problem id = rc < 0 && -rc < PROBLEM_COUNT ? (enum problem)-rc
						       : PROBLEM_DATABASE;
	json_t *p;
	switch (rc) {
	case SES_UNAUTHORIZED:
		problem_reply(rp, id, "this request needs the session's write "
				      "token as Authorization: Bearer <token>");
		api_reply_header(rp, "WWW-Authenticate", "Bearer realm=\"cubed\"");
		return;
	case SES_STALE:
		p = problem_reply(rp, id,
				  "the session is at version %" PRId64
				  ", not the one named in If-Match",
				  v->version);
		json_object_set_new(p, "current_version",
				    json_integer(v->version));
		api_reply_header(rp, "ETag", "\"v%" PRId64 "\"", v->version);
		return;
	case SES_BAD_STATE:
		p = problem_reply(rp, id,
				  "the facelets are not a state of this size");
		json_object_set_new(p, "field", json_string("facelets"));
		return;
	case SES_STORE:
		problem_reply(rp, id, "the database failed: %s",
			      sessions_strerror(rc));
		return;
	case SES_STORE_BUSY:
		/* the lock is usually let go within the busy timeout */
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		api_reply_header(rp, "Retry-After", "1");
		return;
	case SES_STORE_DOWN:
		/* the server checks the database again at most once a second;
		 * an operator has to act first */
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		api_reply_header(rp, "Retry-After", "5");
		return;
	case SES_UNAVAILABLE:
		/* nothing was written: the same request may simply be sent
		 * again once the database answers */
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		api_reply_header(rp, "Retry-After", "1");
		return;
	case SES_OUTCOME_UNKNOWN:
		/* a retry with the same Idempotency-Key replays the write if
		 * it committed, or makes it once */
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		api_reply_header(rp, "Retry-After", "1");
		return;
	case SES_SHUTDOWN:
		/* the node is stopping: nothing was written, and another
		 * node (or this one once restarted) takes the same request */
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		api_reply_header(rp, "Retry-After", "1");
		return;
	case SES_IDEM_REUSED:
		p = problem_reply(rp, id, "%s", sessions_strerror(rc));
		if (p)
			json_object_set_new(p, "field",
					    json_string("Idempotency-Key"));
		return;
	default:
		problem_reply(rp, id, "%s", sessions_strerror(rc));
		return;
	}
}

int api__url_credential(const struct api_config *cfg, const char *id,
			int is_private, const char *qtoken,
			const char *qticket, const char **token, int *granted,
			struct api_reply *rp)
{
	*granted = 0;
	if (qtoken) {
		enum ses_role role;
		if (sessions_auth(cfg->sessions, id, qtoken, &role, NULL) ==
			    SES_OK &&
		    (role == SES_ROLE_WRITE || role == SES_ROLE_OWNER)) {
			json_t *p = problem_reply(
				rp, PROBLEM_TOKEN_IN_URL,
				"%s token may not travel in a URL, where "
				"logs and history keep it; send it as "
				"Authorization: Bearer, or mint a stream "
				"ticket with POST /v1/sessions/{id}/tickets "
				"and use ?ticket=",
				role == SES_ROLE_OWNER ? "the owner's"
							: "a write");
			if (p)
				json_object_set_new(p, "field",
						    json_string("token"));
			return -1;
		}
		if (*token == NULL)
			*token = qtoken;
	}
	if (qticket && is_private && *token == NULL) {
		enum ticket_check c =
			cfg->tickets ? tickets_check(cfg->tickets, id, qticket,
						     now_ms())
				     : TICKET_BAD;
		if (c == TICKET_OK) {
			*granted = 1;
		} else if (c == TICKET_NO_KEY) {
			/* the key is kept in the database, which did not
			 * answer: neither yes nor no yet */
			api__session_problem(rp, SES_UNAVAILABLE, NULL);
			return -1;
		} else if (c == TICKET_EXPIRED) {
			json_t *p = problem_reply(
				rp, PROBLEM_TICKET_EXPIRED,
				"the stream ticket has expired; mint a new one "
				"(POST /v1/sessions/{id}/tickets) and "
				"reconnect with ?after= the last event id");
			if (p)
				json_object_set_new(p, "field",
						    json_string("ticket"));
			api_reply_header(rp, "WWW-Authenticate",
					 "Bearer realm=\"cubed\", "
					 "error=\"invalid_token\"");
			return -1;
		}
		/* TICKET_BAD: like a wrong token, the session stays hidden */
	}
	return 0;
}

int api__may_read(const struct api_config *cfg, const char *id, int is_private,
		  const char *token, struct api_reply *rp)
{
	if (!is_private)
		return 0;
	enum ses_role role;
	if (sessions_auth(cfg->sessions, id, token, &role, NULL) == SES_OK &&
	    role != SES_ROLE_NONE)
		return 0;
	api__session_problem(rp, SES_NOT_FOUND, NULL);
	return -1;
}

int api__session_read(const struct api_config *cfg, const char *id,
		      int64_t version, const char *token,
		      struct session_view *v, struct api_reply *rp)
{
	int rc = sessions_get(cfg->sessions, id, version, v);
	if (rc != SES_OK) {
		/* the session layer's problems (503 with Retry-After when
		 * the database cannot be reached) */
		api__session_problem(rp, rc, NULL);
		return -1;
	}
	if (api__may_read(cfg, id, v->is_private, token, rp) < 0) {
		session_view_free(v);
		return -1;
	}
	return 0;
}
