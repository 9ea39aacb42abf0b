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
			 const struct api_request *rq, const struct api_args *a,
			 struct api_reply *rp)
{
	(void)rq;
	if (!cfg->tickets) {
		/* only when the OS had no randomness at start-up */
		problem_reply(rp, PROBLEM_NO_TICKETS,
			      "this server could not make a ticket key; use a "
			      "read token in the stream's URL instead");
		return;
	}
	const char *token = a->token;
	enum ses_role role;
	int rc = sessions_auth(cfg->sessions, a->id, token, &role, NULL);
	if (rc == SES_OK && role == SES_ROLE_NONE)
		rc = SES_FORBIDDEN;
	if (rc != SES_OK) {
		api__session_problem(rp, rc, NULL);
		return;
	}
	char t[TICKET_LEN + 1];
	int64_t exp;
	if (tickets_mint(cfg->tickets, a->id, now_ms(), t, &exp) != 0) {
		/* the key is kept in the database, which did not answer */
		api__session_problem(rp, SES_UNAVAILABLE, NULL);
		return;
	}
	char events[160];
	snprintf(events, sizeof events, "/v1/sessions/%s/events?ticket=%s", a->id,
		 t);
	api_reply_json(rp, 201,
		       json_pack("{s:s, s:o, s:I, s:s}", "ticket", t,
				 "expires_at", timefmt_json(exp), "expires_in",
				 (json_int_t)(tickets_ttl_ms(cfg->tickets) / 1000),
				 "events", events));
	/* a credential: no cache may keep it */
	api_reply_header(rp, "Cache-Control", "no-store");
}
