/* ticket.h — stream tickets: short-lived credentials for a URL.
 *
 * A browser's EventSource cannot send an Authorization header, so the
 * credential of a private session's event stream has to travel in the URL
 * — where proxies, server logs, browser history and Referer headers may
 * keep it. A session's write or owner token there would hand anyone who
 * reads those the power to play or delete the session, for as long as the
 * token lives. So a URL may carry only a read token, or a ticket: minted
 * by POST /v1/sessions/{id}/tickets with any of the session's tokens in
 * the Authorization header, good for reading that one session's event
 * stream, for --ticket-ttl seconds (60 by default). A ticket may open the
 * stream any number of times within its lifetime, so EventSource's own
 * reconnects work; after it, the page mints a new one and reconnects with
 * ?after= the last event id it saw.
 *
 * A ticket is "st_" and 32 base64url characters: its expiry (Unix ms, 8
 * bytes) and 16 bytes of HMAC-SHA256 over the session id and the expiry
 * under a key drawn at start-up. Nothing is stored, so minting can never
 * fill memory; tickets die with the process (a restart is a reconnect
 * with a new ticket) and are not revoked with the token that minted them
 * (they expire within the TTL anyway). */
#ifndef CUBED_TICKET_H
#define CUBED_TICKET_H

#include <stdint.h>

#define TICKET_LEN 35 /* characters, without the NUL */

enum ticket_check {
	TICKET_OK = 0,
	TICKET_EXPIRED, /* ours, for this session, but too old */
	TICKET_BAD,     /* not a ticket of this server for this session */
};

struct tickets;

/* A ticket maker with a fresh random key; ttl_ms is each ticket's life.
 * NULL if the OS had no randomness or memory ran out. */
struct tickets *tickets_new(int64_t ttl_ms);
void tickets_free(struct tickets *t);

/* A ticket for session id, valid from now_ms for the TTL: into out
 * (TICKET_LEN + 1 bytes); its expiry in *expires_ms. */
void tickets_mint(const struct tickets *t, const char *id, int64_t now_ms,
		  char *out, int64_t *expires_ms);

/* What ticket s is worth for session id at now_ms. */
enum ticket_check tickets_check(const struct tickets *t, const char *id,
				const char *s, int64_t now_ms);

int64_t tickets_ttl_ms(const struct tickets *t);

#endif
