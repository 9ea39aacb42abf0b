/* session_writes.h — writes through the session layer
 * (server/sessions/sessions.h) as the HTTP layer makes them, for the
 * suites that test that layer directly (check_sessions on SQLite,
 * check_pg on PostgreSQL). The assertions are Check's: call these from
 * inside tests. */
#ifndef CUBED_TEST_SESSION_WRITES_H
#define CUBED_TEST_SESSION_WRITES_H

#include <stdint.h>

#include "sessions.h"

/* A moves write to session id of size n through on: moves parsed first
 * (asserted: SES_OK), then handed to the writer with token, if_match (-1:
 * none) and, when key is not NULL, an idempotency record ("scope <key>",
 * "print <moves>"). *out is zeroed first. sessions_write's answer. */
int session_moves_write(struct sessions *on, int n, const char *id,
			const char *token, const char *moves, int64_t if_match,
			const char *key, struct session_view *out);

#endif
