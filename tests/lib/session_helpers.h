/* session_helpers.h — what the black-box suites share (the session
 * suites first): the server fixture (test_server.h under the names these
 * suites use), one-exchange requests whose status, media type and problem
 * details are asserted, small JSON accessors, and session shortcuts. The
 * assertions are Check's: call these from inside tests. */
#ifndef CUBED_TEST_SESSION_HELPERS_H
#define CUBED_TEST_SESSION_HELPERS_H

#include <check.h>
#include <jansson.h>

#include "http_client.h"
#include "sse_client.h"
#include "test_server.h"

/* The server under test (test_server.h). */
typedef test_server server;

/* A session as created: id and token copied out, and its path. */
typedef struct ses {
	char id[48];
	char token[48];
	char path[96];
} ses;

double now_s(void);
int server_start(server *s, const char *dir, const char *const *extra,
		 char *err, size_t errlen);
int server_stop(server *s, int remove);
/* server_start, or abort the test with the reason. */
void start_or_abort(server *s, const char *dir, const char *const *extra);

/* One exchange on a fresh connection. token (may be NULL) becomes
 * "Authorization: Bearer <token>"; hdr (may be NULL) is one more full
 * header line. A body is sent as application/json. */
void call(http_response *r, int port, const char *method, const char *path,
	  const char *token, const char *hdr, const char *body);

/* The reply body as JSON (asserted; duplicate keys are rejected: a
 * server must not send them). */
json_t *parse(const http_response *r, const char *what);
/* Media type of a Content-Type value (may be NULL), without parameters. */
int media_type_is(const char *ct, const char *want);

/* A request whose reply must be status with a JSON body (returned; the
 * response itself kept in *keep when not NULL). */
json_t *expect_json(int port, const char *method, const char *path,
		    const char *token, const char *hdr, const char *body,
		    int status, http_response *keep);

/* A request whose reply must be a problem of this status, kind and code
 * (field NULL: not checked). Returns the problem. */
json_t *expect_problem(int port, const char *method, const char *path,
		       const char *token, const char *hdr, const char *body,
		       int status, const char *kind, const char *code,
		       const char *field, http_response *keep);

/* Members that must be there with this type. */
const char *sget(const json_t *j, const char *key);
long long iget(const json_t *j, const char *key);
int bget(const json_t *j, const char *key);
void expect_etag(const http_response *r, long long version, const char *what);

/* POST /v1/sessions body → 201 (asserted, with Location and ETag "v0"). */
json_t *create(int port, const char *body, ses *out);
/* POST /v1/apply {facelets, moves} → the facelets after (malloc'd). */
char *apply(int port, const char *facelets, const char *moves);
/* The same from facelets or, when facelets is NULL, from the solved cube
 * of size n ({size, moves}). */
char *apply_n(int port, const char *facelets, int n, const char *moves);
/* GET a session (want_version >= 0: asserted, with its ETag). */
json_t *get_session(int port, const char *path, const char *token,
		    long long want_version);
/* Every item of a paged list of session s: GET <s->path>/<what>?limit=
 * (then &after=next), the items in member, each page but the last full,
 * next the key of its last item (asserted), until next is null. Returns
 * them all, in order, as one array. */
json_t *pages_all(int port, const ses *s, const char *what,
		  const char *member, const char *key, const char *token,
		  int limit);
/* The whole history (pages_all of history, events, version). */
json_t *history_all(int port, const ses *s, const char *token, int limit);

/* POST <s->path>/moves {"moves": moves} with s's token, on a fresh
 * connection, with "Idempotency-Key: key" when key is not NULL and
 * "If-Match: \"v<if_match>\"" when if_match >= 0. Returns the status, or
 * -1 when no reply came (r->error says why); *r holds the response
 * either way (release it with http_response_free). It asserts nothing,
 * so a test's threads and forked children may call it. */
int send_moves(http_response *r, int port, const ses *s, const char *moves,
	       const char *key, long long if_match);

/* Open the live stream of session s on port (GET <s->path>/events) and
 * read its first event (comments and presence skipped, within 5 s): 200,
 * then the "state" event with id version and data of that version, all
 * asserted. w stays open (sse_close it). */
void watch_session(sse_client *w, int port, const ses *s, long long version);

/* The next event of w that is neither a comment nor presence
 * (sse_next_event) within timeout_ms in all, asserted: the test fails
 * naming what (the stream, or the event it waited for) and w's error.
 * Free *e with sse_event_free. */
void expect_sse_event(sse_client *w, sse_event *e, int timeout_ms,
		      const char *what);

/* GET /readyz on port until it answers 200 or seconds pass: the last
 * status (0 when none came). */
int wait_ready(int port, double seconds);

/* Wait (at most SOLVER_TABLES_WAIT_S) until the server on port's /readyz says
 * both the 3×3's and the 2×2's solver tables are ready; fail saying what
 * they were. */
#define SOLVER_TABLES_WAIT_S 120.0
void need_tables_on(int port);

#endif
