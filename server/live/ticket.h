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
 * under the tickets' key. Nothing is stored per ticket, so minting can
 * never fill memory, and tickets are not revoked with the token that
 * minted them (they expire within the TTL anyway).
 *
 * The key's scope is the database: it is kept in it (store_ticket_key,
 * the ticket_key table of schema/011 and schema/pg/008), drawn once by
 * the first process that needs it. So with PostgreSQL a ticket minted on
 * one node opens the stream on every node of that database (no session
 * affinity), and with SQLite tickets survive a restart. A server without
 * a database draws a key of its own at start-up, which dies with the
 * process. The key is read at start-up, or, if the database does not
 * answer then, at the first ticket minted or checked after it does
 * (until then minting answers 503). It is never rotated by cubed;
 * deleting the row (docs/scaling.md) draws a new one at the next start,
 * which ends every ticket out there. */
#ifndef CUBED_TICKET_H
#define CUBED_TICKET_H

#include <stdint.h>

#define TICKET_LEN 35 /* characters, without the NUL */

#define TICKET_KEY_LEN 32

enum ticket_check {
	TICKET_OK = 0,
	TICKET_EXPIRED,  /* ours, for this session, but too old */
	TICKET_BAD,      /* not a ticket of this server for this session */
	TICKET_NO_KEY,   /* the key could not be read (the database did not
			  * answer): try again later */
};

struct tickets;

/* Where the key comes from: candidate is TICKET_KEY_LEN random bytes
 * drawn here; the function puts the key to use in key (the stored one,
 * or candidate when there is none yet, which it stores) and answers 0,
 * or -1 when it cannot now (asked again at the next use). */
typedef int tickets_key_fn(void *ctx, const unsigned char *candidate,
			   unsigned char *key);

/* A ticket maker; ttl_ms is each ticket's life. With key_fn NULL the key
 * is the random one drawn now (this process's alone); else key_fn gives
 * it, asked at once and, until it answers, at each use. NULL if the OS
 * had no randomness or memory ran out. */
struct tickets *tickets_new(int64_t ttl_ms, tickets_key_fn *key_fn,
			    void *ctx);
void tickets_free(struct tickets *t);

/* A ticket for session id, valid from now_ms for the TTL: into out
 * (TICKET_LEN + 1 bytes); its expiry in *expires_ms. 0, or -1 when there
 * is no key yet (TICKET_NO_KEY). */
int tickets_mint(struct tickets *t, const char *id, int64_t now_ms,
		 char *out, int64_t *expires_ms);

/* What ticket s is worth for session id at now_ms. */
enum ticket_check tickets_check(struct tickets *t, const char *id,
				const char *s, int64_t now_ms);

int64_t tickets_ttl_ms(const struct tickets *t);

#endif
