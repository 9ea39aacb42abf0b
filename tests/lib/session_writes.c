/* session_writes.c — see session_writes.h. */
#include "session_writes.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "alg.h"

int session_moves_write(struct sessions *on, int n, const char *id,
			const char *token, const char *moves, int64_t if_match,
			const char *key, struct session_view *out)
{
	struct ses_idem k = {0};
	if (key) {
		snprintf((char *)k.scope, sizeof k.scope, "scope %s", key);
		snprintf((char *)k.print, sizeof k.print, "print %s", moves);
	}
	struct session_write w = {
		.kind = SES_MOVES, .id = id, .token = token,
		.if_match = if_match, .idem = key ? &k : NULL,
	};
	alg_error err;
	memset(out, 0, sizeof *out);
	ck_assert_int_eq(sessions_parse(on, n, moves, strlen(moves), &w, &err),
			 SES_OK);
	return sessions_write(on, &w, out, NULL);
}
