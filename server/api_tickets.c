/* api_tickets.c — stream tickets over HTTP (ticket.h says why they
 * exist): POST /v1/sessions/{id}/tickets mints one for a holder of any of
 * the session's tokens, and the event stream's URL credentials are judged
 * here — a read token or a ticket may ride in the URL, a write or owner
 * token may not. */
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "problem.h"
#include "sessions.h"
#include "ticket.h"
#include "timefmt.h"

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void api__session_ticket(const struct api_config *cfg,
			 const struct api_request *rq, const char *id,
			 const json_t *body, struct api_reply *rp)
{
	(void)body;
	if (!cfg->sessions) {
		problem_reply(rp, PROBLEM_UNAVAILABLE, "no_database",
			      "this server runs without a session database");
		return;
	}
	if (!cfg->tickets) {
		/* only when the OS had no randomness at start-up */
		problem_reply(rp, PROBLEM_UNAVAILABLE, "no_tickets",
			      "this server could not make a ticket key; use a "
			      "read token in the stream's URL instead");
		return;
	}
	int bad;
	const char *token = api__bearer(rq, &bad);
	enum ses_role role;
	int rc = sessions_auth(cfg->sessions, id, token, &role, NULL);
	if (rc == SES_OK && role == SES_ROLE_NONE)
		rc = SES_FORBIDDEN;
	if (rc != SES_OK) {
		api__session_problem(rp, rc);
		return;
	}
	char t[TICKET_LEN + 1];
	int64_t exp;
	tickets_mint(cfg->tickets, id, now_ms(), t, &exp);
	char events[160];
	snprintf(events, sizeof events, "/v1/sessions/%s/events?ticket=%s", id,
		 t);
	api_reply_json(rp, 201,
		       json_pack("{s:s, s:o, s:I, s:s}", "ticket", t,
				 "expires_at", timefmt_json(exp), "expires_in",
				 (json_int_t)(tickets_ttl_ms(cfg->tickets) / 1000),
				 "events", events));
	/* a credential: no cache may keep it */
	api_reply_header(rp, "Cache-Control", "no-store");
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
				rp, PROBLEM_FORBIDDEN, "token_in_url",
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
		} else if (c == TICKET_EXPIRED) {
			json_t *p = problem_reply(
				rp, PROBLEM_UNAUTHORIZED, "ticket_expired",
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
