/* check_http.c — black-box tests of the real server binary over HTTP.
 *
 * An unchecked fixture spawns $CUBED_BIN (default build/cubed) through
 * test_server.c (127.0.0.1, port 0, a database in a fresh temporary
 * directory), and at teardown sends SIGTERM and records how the server
 * exited; the "shutdown" case then asserts that
 * exit status was 0 (Check cannot fail a test from an unchecked teardown
 * without killing the whole runner).
 *
 * Cases are tables of (request → exact status, problem type, code, offset
 * or field, or exact JSON values), so a reply that drifts from the
 * contract in any field fails with the request that shows it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cube.h"
#include "golden.h"
#include "http_client.h"
#include "pattern.h"
#include "session_helpers.h"
#include "suites.h"
#include "test_server.h"

/* ------------------------------------------------------------------ */
/* Spawning and stopping the server: test_server.c.                    */

/* Stop as test_server_stop does; the end of the server's log goes to
 * logbuf (if not NULL) before its directory is removed. */
static int stop_keeping_log(server *s, char *logbuf, size_t logcap)
{
	int status = test_server_stop(s, 0);
	if (logbuf)
		test_server_log_tail(s, logbuf, logcap);
	test_server_remove(s);
	return status;
}

static const char *describe_status(int st, char *buf, size_t cap)
{
	if (st == -1)
		snprintf(buf, cap, "did not exit within 10 s of SIGTERM");
	else if (WIFEXITED(st))
		snprintf(buf, cap, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, cap, "wait status 0x%x", st);
	return buf;
}

/* The server of the current test case (inherited by the forked tests),
 * and how the last fixture server exited: -2 = none stopped yet. */
static server srv;
static int last_exit = -2;
static char last_exit_log[1536];

static void fixture_default_setup(void)
{
	start_or_abort(&srv, NULL, NULL);
}

static void fixture_limits_setup(void)
{
	static const char *const extra[] = {
		"--max-body", "1000", "--max-moves", "10", "--max-work",
		"1000",       NULL,
	};
	start_or_abort(&srv, NULL, extra);
}

/* Keeps the first bad exit (of either fixture server), else 0. */
static void fixture_teardown(void)
{
	char log[sizeof last_exit_log];
	int st = stop_keeping_log(&srv, log, sizeof log);
	if (last_exit == -2 || last_exit == 0) {
		last_exit = st;
		memcpy(last_exit_log, log, sizeof log);
	}
}

/* ------------------------------------------------------------------ */
/* Requests and checks.                                                */

static const char *const JSON_CT[] = {"Content-Type: application/json",
				      NULL};

static void req(http_response *r, const char *method, const char *path,
		const char *const *headers, const char *body)
{
	int rc = http_request(srv.port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

static void post_json(http_response *r, const char *path, const char *body)
{
	req(r, "POST", path, JSON_CT, body);
}

static int contains_nocase(const char *hay, const char *needle)
{
	for (size_t k = strlen(needle); *hay; hay++)
		if (strncasecmp(hay, needle, k) == 0)
			return 1;
	return 0;
}

static void check_cors(const http_response *r, const char *what)
{
	const char *o = http_header(r, "Access-Control-Allow-Origin");
	ck_assert_msg(o && strcmp(o, "*") == 0,
		      "%s: Access-Control-Allow-Origin is %s, expected *", what,
		      o ? o : "(missing)");
	const char *e = http_header(r, "Access-Control-Expose-Headers");
	ck_assert_msg(e && strcmp(e, "ETag, Location, Retry-After, Idempotent-Replayed, "
				    "X-Request-Id, WWW-Authenticate, Allow") == 0,
		      "%s: Access-Control-Expose-Headers is %s", what,
		      e ? e : "(missing)");
}

/* Every member of want must be in got with an equal value; objects are
 * compared the same way, member by member (so a reply may carry more
 * members than the test names, but never different values). */
static int json_subset(const json_t *want, const json_t *got, char *path,
		       size_t cap)
{
	if (json_is_object(want)) {
		if (!json_is_object(got))
			return 0;
		const char *k;
		json_t *v;
		size_t len = strlen(path);
		json_object_foreach((json_t *)want, k, v)
		{
			snprintf(path + len, cap - len, ".%s", k);
			if (!json_subset(v, json_object_get(got, k), path, cap))
				return 0;
		}
		path[len] = '\0';
		return 1;
	}
	return got && json_equal((json_t *)want, (json_t *)got);
}

static void check_json_reply(const http_response *r, const char *what,
			     int status, const char *expect)
{
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.400s",
		      what, r->status, status, r->body);
	ck_assert_msg(media_type_is(http_header(r, "Content-Type"),
				    "application/json"),
		      "%s: Content-Type %s", what,
		      http_header(r, "Content-Type"));
	check_cors(r, what);
	json_t *got = parse(r, what);
	json_error_t e;
	json_t *want = json_loads(expect, JSON_REJECT_DUPLICATES, &e);
	ck_assert_msg(want != NULL, "test table: bad JSON %s (%s)", expect,
		      e.text);
	char path[256] = "$";
	if (!json_subset(want, got, path, sizeof path)) {
		char *gs = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
		ck_abort_msg("%s: at %s the reply differs\n  expected: %s\n  "
			     "got:      %.2000s",
			     what, path, expect, gs);
	}
	json_decref(want);
	json_decref(got);
}

/* An RFC 9457 problem reply of the given kind. code / field may be NULL
 * (not checked, but present as a string), offset / limit may be -1 (not
 * checked). */
static void check_problem(const http_response *r, const char *what,
			  int status, const char *kind, const char *code,
			  long offset, const char *field, long limit)
{
	ck_assert_msg(r->status == status, "%s: status %d, expected %d: %.400s",
		      what, r->status, status, r->body);
	ck_assert_msg(media_type_is(http_header(r, "Content-Type"),
				    "application/problem+json"),
		      "%s: Content-Type %s, expected application/problem+json",
		      what, http_header(r, "Content-Type"));
	check_cors(r, what);
	json_t *j = parse(r, what);
	char type[128];
	snprintf(type, sizeof type, "urn:cubed:problem:%s", kind);
	const char *t = json_string_value(json_object_get(j, "type"));
	ck_assert_msg(t && strcmp(t, type) == 0, "%s: type %s, expected %s: %s",
		      what, t, type, r->body);
	json_t *st = json_object_get(j, "status");
	ck_assert_msg(json_is_integer(st) && json_integer_value(st) == status,
		      "%s: problem status member is not %d: %s", what, status,
		      r->body);
	const char *title = json_string_value(json_object_get(j, "title"));
	ck_assert_msg(title && *title, "%s: no title: %s", what, r->body);
	ck_assert_msg(json_is_string(json_object_get(j, "detail")),
		      "%s: no detail: %s", what, r->body);
	const char *c = json_string_value(json_object_get(j, "code"));
	ck_assert_msg(c && *c, "%s: no code: %s", what, r->body);
	if (code)
		ck_assert_msg(strcmp(c, code) == 0,
			      "%s: code %s, expected %s: %s", what, c, code,
			      r->body);
	if (offset >= 0) {
		json_t *o = json_object_get(j, "offset");
		ck_assert_msg(json_is_integer(o) &&
				      json_integer_value(o) == offset,
			      "%s: offset should be %ld: %s", what, offset,
			      r->body);
	}
	if (field) {
		const char *f = json_string_value(json_object_get(j, "field"));
		ck_assert_msg(f && strcmp(f, field) == 0,
			      "%s: field %s, expected %s: %s", what, f, field,
			      r->body);
	}
	if (limit >= 0) {
		json_t *l = json_object_get(j, "limit");
		ck_assert_msg(json_is_integer(l) &&
				      json_integer_value(l) == limit,
			      "%s: limit should be %ld: %s", what, limit,
			      r->body);
	}
	json_decref(j);
}

/* ------------------------------------------------------------------ */
/* Success cases: exact values.                                        */

#define SOLVED3 "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define AFTER_R "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB"
#define AFTER_SEXY "UULUUFUUFRRUBRRURRFFDFFUFFFDDRDDDDDDBLLLLLLLLBRRBBBBBB"
#define AFTER_M2 "UDUUDUUDURRRRRRRRRFBFFBFFBFDUDDUDDUDLLLLLLLLLBFBBFBBFB"
#define AFTER_X "FFFFFFFFFRRRRRRRRRDDDDDDDDDBBBBBBBBBLLLLLLLLLUUUUUUUUU"
#define SOLVED2 "UUUURRRRFFFFDDDDLLLLBBBB"
#define AFTER_R2X2 "UFUFRRRRFDFDDBDBLLLLUBUB"
/* AFTER_R turned by x y: the same state, held with F up and R in front */
#define AFTER_R_XY "FFFFFFDDDFUUFUUFUURRRRRRRRRUUUBBBBBBDDBDDBDDBLLLLLLLLL"
#define AFTER_R_UI "FFFUUUUUUFFDRRRRRRLLLFFDFFDDDBDDBDDBUBBLLLLLLRRRUBBUBB"
/* URF twisted clockwise in place (tests/golden/broken_cubes.txt) */
#define TWISTED3 "UUUUUUUUFURRRRRRRRFFRFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"

/* Cubies, in JSON: the identity and R (Kociemba's R table). */
#define ID_CP "[0, 1, 2, 3, 4, 5, 6, 7]"
#define ZERO8 "[0, 0, 0, 0, 0, 0, 0, 0]"
#define ID_EP "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]"
#define ZERO12 "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"
#define CUBIE_ID                                                               \
	"{\"cp\": " ID_CP ", \"co\": " ZERO8 ", \"ep\": " ID_EP               \
	", \"eo\": " ZERO12 "}"
#define CUBIE2_ID "{\"cp\": " ID_CP ", \"co\": " ZERO8 "}"
#define CUBIE_R                                                                \
	"{\"cp\": [4, 1, 2, 0, 7, 5, 6, 3], \"co\": [2, 0, 0, 1, 1, 0, 0, 2], " \
	"\"ep\": [8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0], \"eo\": " ZERO12 "}"
/* A size-3 cubie body with the four arrays given */
#define CUBIE3_WITH(cp, co, ep, eo)                                            \
	"{\"size\": 3, \"cubie\": {\"cp\": " cp ", \"co\": " co                \
	", \"ep\": " ep ", \"eo\": " eo "}}"
#define INDEX_R "5771278630723606528"
#define STANDARD "{\"up\": \"U\", \"front\": \"F\", \"moves\": \"\"}"
#define LAST3 "43252003274489855999"
/* Seed 000's 2×2 first layer (A = U; A.up = B, A.right = R, A.left = L,
 * A.down = F: each side's strip next to U is its top row). */
#define SEED2 "1111" "33**" "55**" "****" "44**" "22**"
/* 3×3 patterns: U's center the U colour and L one colour (not U's);
 * U and D each one colour (different); R and L each one colour */
#define PAT_UL "****U****" "*********" "*********" "*********" "111111111" \
	       "*********"
#define PAT_UD "111111111" "*********" "*********" "222222222" "*********" \
	       "*********"
#define PAT_RL "*********" "111111111" "*********" "*********" "222222222" \
	       "*********"
/* Orientations as /v1/match lists them (pattern.h's order and moves). */
#define O_U0 "{\"face\": \"U\", \"rotation\": 0, \"moves\": \"\"}"
#define O_U180 "{\"face\": \"U\", \"rotation\": 180, \"moves\": \"y2\"}"
#define O_L_ALL                                                                \
	"{\"face\": \"L\", \"rotation\": 0, \"moves\": \"z\"}, "              \
	"{\"face\": \"L\", \"rotation\": 90, \"moves\": \"y' x\"}, "          \
	"{\"face\": \"L\", \"rotation\": 180, \"moves\": \"z' x2\"}, "        \
	"{\"face\": \"L\", \"rotation\": 270, \"moves\": \"y x'\"}"
#define O_R_ALL                                                                \
	"{\"face\": \"R\", \"rotation\": 0, \"moves\": \"z'\"}, "             \
	"{\"face\": \"R\", \"rotation\": 90, \"moves\": \"y' x'\"}, "         \
	"{\"face\": \"R\", \"rotation\": 180, \"moves\": \"z x2\"}, "         \
	"{\"face\": \"R\", \"rotation\": 270, \"moves\": \"y x\"}"
/* One piece, as /v1/pieces answers it. */
#define PIECE(name, pos, ori, placed, oriented)                                \
	"{\"piece\": \"" name "\", \"position\": \"" pos                      \
	"\", \"orientation\": " #ori ", \"placed\": " #placed                  \
	", \"oriented\": " #oriented "}"

typedef struct ok_case {
	const char *path;
	const char *body;
	const char *expect; /* JSON: members the reply must have, exactly */
} ok_case;

static const ok_case ok_cases[] = {
	/* apply */
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\", \"moves\": "
	 "{\"canonical\": \"R\", \"length\": 1, \"htm\": 1, \"qtm\": 1, "
	 "\"stm\": 1, \"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R U R' U'\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_SEXY "\", \"moves\": "
	 "{\"canonical\": \"R U R' U'\", \"length\": 4, \"htm\": 4, "
	 "\"qtm\": 4, \"stm\": 4, \"etm\": 4}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"M2\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_M2 "\", \"moves\": "
	 "{\"canonical\": \"M2\", \"length\": 1, \"htm\": 2, \"qtm\": 4, "
	 "\"stm\": 1, \"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"x\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_X "\", \"moves\": "
	 "{\"canonical\": \"x\", \"length\": 1, \"htm\": 0, \"qtm\": 0, "
	 "\"stm\": 0, \"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"Rv\"}",
	 "{\"facelets\": \"" AFTER_X "\", \"moves\": {\"canonical\": \"x\"}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R2\"}",
	 "{\"moves\": {\"length\": 1, \"htm\": 1, \"qtm\": 2, \"stm\": 1, "
	 "\"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 4, \"moves\": \"2R\"}",
	 "{\"size\": 4, \"moves\": {\"canonical\": \"2R\", \"length\": 1, "
	 "\"htm\": 2, \"qtm\": 2, \"stm\": 1, \"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 4, \"moves\": \"r\"}",
	 "{\"size\": 4, \"moves\": {\"canonical\": \"Rw\", \"length\": 1, "
	 "\"htm\": 1, \"qtm\": 1, \"stm\": 1, \"etm\": 1}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"(R U R' U')6\"}",
	 "{\"facelets\": \"" SOLVED3 "\", \"moves\": {\"length\": 24}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R // comment\\n. U\"}",
	 "{\"moves\": {\"length\": 2, \"htm\": 2}}"},
	{"/v1/apply", "{\"size\": 3}",
	 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\"}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"\"}",
	 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\", \"moves\": "
	 "{\"canonical\": \"\", \"length\": 0, \"htm\": 0, \"qtm\": 0, "
	 "\"stm\": 0, \"etm\": 0}}"},
	/* start facelets + moves, size from the facelets' length */
	{"/v1/apply", "{\"facelets\": \"" AFTER_R "\", \"moves\": \"R'\"}",
	 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\"}"},
	{"/v1/apply", "{\"facelets\": \"" AFTER_R "\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\"}"},
	{"/v1/apply",
	 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\", \"moves\": \"R\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\"}"},
	{"/v1/apply", "{\"facelets\": \"" SOLVED2 "\", \"moves\": \"R\"}",
	 "{\"size\": 2, \"facelets\": \"" AFTER_R2X2 "\"}"},
	{"/v1/apply", "{\"size\": 2, \"moves\": \"R\"}",
	 "{\"size\": 2, \"facelets\": \"" AFTER_R2X2 "\"}"},
	/* n = 1: every move is a whole-cube rotation */
	{"/v1/apply", "{\"size\": 1, \"moves\": \"R\"}",
	 "{\"size\": 1, \"facelets\": \"FRDBLU\"}"},
	{"/v1/apply", "{\"size\": 1}",
	 "{\"size\": 1, \"facelets\": \"URFDLB\"}"},
	{"/v1/apply", "{\"facelets\": \"FRDBLU\", \"moves\": \"x'\"}",
	 "{\"size\": 1, \"facelets\": \"URFDLB\"}"},
	/* the default limit, exactly reached */
	{"/v1/apply", "{\"size\": 3, \"moves\": \"(R)100000\"}",
	 "{\"facelets\": \"" SOLVED3 "\", \"moves\": {\"length\": 100000}}"},

	/* alg */
	{"/v1/alg", "{\"moves\": \"R U R' U'\"}",
	 "{\"size\": 3, \"canonical\": \"R U R' U'\", \"inverse\": "
	 "\"U R U' R'\", \"expanded\": \"R U R' U'\", \"simplified\": "
	 "\"R U R' U'\", \"length\": 4, \"htm\": 4, \"qtm\": 4, \"stm\": 4, "
	 "\"etm\": 4, \"simplified_metrics\": {\"length\": 4, \"htm\": 4, "
	 "\"qtm\": 4, \"stm\": 4, \"etm\": 4}}"},
	{"/v1/alg", "{\"moves\": \"R R\", \"size\": 3}",
	 "{\"size\": 3, \"canonical\": \"R R\", \"inverse\": \"R' R'\", "
	 "\"expanded\": \"R R\", \"simplified\": \"R2\", \"length\": 2, "
	 "\"htm\": 2, \"qtm\": 2, \"stm\": 2, \"etm\": 2, "
	 "\"simplified_metrics\": {\"length\": 1, \"htm\": 1, \"qtm\": 2, "
	 "\"stm\": 1, \"etm\": 1}}"},
	{"/v1/alg", "{\"moves\": \"R R'\"}",
	 "{\"simplified\": \"\", \"length\": 2, \"simplified_metrics\": "
	 "{\"length\": 0, \"htm\": 0, \"qtm\": 0, \"stm\": 0, \"etm\": 0}}"},
	{"/v1/alg", "{\"moves\": \"R L R'\"}",
	 "{\"simplified\": \"L\", \"simplified_metrics\": {\"length\": 1}}"},
	{"/v1/alg", "{\"moves\": \"[R, U]\"}",
	 "{\"canonical\": \"[R, U]\", \"inverse\": \"[U, R]\", \"expanded\": "
	 "\"R U R' U'\", \"length\": 4}"},
	{"/v1/alg", "{\"moves\": \"[R: U]\"}",
	 "{\"canonical\": \"[R: U]\", \"inverse\": \"[R: U']\", \"expanded\": "
	 "\"R U R'\", \"length\": 3, \"simplified\": \"R U R'\"}"},
	{"/v1/alg", "{\"moves\": \"(R U)2'\"}",
	 "{\"canonical\": \"(R U)2'\", \"inverse\": \"(R U)2\", \"expanded\": "
	 "\"U' R' U' R'\", \"length\": 4}"},
	{"/v1/alg", "{\"moves\": \"r  3r\\t2-4Rw 1R Rv // x\", \"size\": 5}",
	 "{\"size\": 5, \"canonical\": \"Rw 3Rw 2-4Rw R x\"}"},
	{"/v1/alg", "{\"moves\": \"M2\"}",
	 "{\"length\": 1, \"htm\": 2, \"qtm\": 4, \"stm\": 1, \"etm\": 1}"},
	{"/v1/alg", "{\"moves\": \"x y z\"}",
	 "{\"length\": 3, \"htm\": 0, \"qtm\": 0, \"stm\": 0, \"etm\": 3}"},
	{"/v1/alg", "{\"moves\": \"M\", \"size\": 5}",
	 "{\"size\": 5, \"canonical\": \"M\", \"htm\": 2, \"stm\": 1}"},
	{"/v1/alg", "{\"moves\": \"\"}",
	 "{\"canonical\": \"\", \"inverse\": \"\", \"expanded\": \"\", "
	 "\"simplified\": \"\", \"length\": 0}"},

	/* convert: facelets in */
	{"/v1/convert", "{\"facelets\": \"" SOLVED3 "\"}",
	 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\", \"cubie\": " CUBIE_ID
	 ", \"index\": \"0\", \"orientation\": " STANDARD "}"},
	{"/v1/convert", "{\"facelets\": \"" AFTER_R "\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\", \"cubie\": " CUBIE_R
	 ", \"index\": \"" INDEX_R "\", \"orientation\": " STANDARD "}"},
	/* held another way: facelets echoed, cubies of the standard hold */
	{"/v1/convert", "{\"facelets\": \"" AFTER_R_XY "\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R_XY "\", \"cubie\": " CUBIE_R
	 ", \"index\": \"" INDEX_R "\", \"orientation\": {\"up\": \"F\", "
	 "\"front\": \"R\", \"moves\": \"y' x'\"}}"},
	{"/v1/convert", "{\"facelets\": \"" AFTER_X "\"}",
	 "{\"cubie\": " CUBIE_ID ", \"index\": \"0\", \"orientation\": "
	 "{\"up\": \"F\", \"front\": \"D\", \"moves\": \"x'\"}}"},
	{"/v1/convert", "{\"facelets\": \"" AFTER_R "\", \"size\": 3}",
	 "{\"size\": 3, \"index\": \"" INDEX_R "\"}"},
	{"/v1/convert", "{\"facelets\": \"" SOLVED2 "\"}",
	 "{\"size\": 2, \"facelets\": \"" SOLVED2 "\", \"cubie\": " CUBIE2_ID
	 ", \"index\": \"0\", \"orientation\": " STANDARD "}"},
	/* R on a 2×2 keeps DBL home: the 3×3's corners */
	{"/v1/convert", "{\"facelets\": \"" AFTER_R2X2 "\"}",
	 "{\"size\": 2, \"cubie\": {\"cp\": [4, 1, 2, 0, 7, 5, 6, 3], "
	 "\"co\": [2, 0, 0, 1, 1, 0, 0, 2]}}"},
	/* other sizes: facelets only */
	{"/v1/convert", "{\"facelets\": \"FRDBLU\"}",
	 "{\"size\": 1, \"facelets\": \"FRDBLU\"}"},
	/* convert: cubie in */
	{"/v1/convert", "{\"size\": 3, \"cubie\": " CUBIE_R "}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\", \"cubie\": " CUBIE_R
	 ", \"index\": \"" INDEX_R "\", \"orientation\": " STANDARD "}"},
	{"/v1/convert", "{\"size\": 3, \"cubie\": " CUBIE_ID "}",
	 "{\"facelets\": \"" SOLVED3 "\", \"index\": \"0\"}"},
	{"/v1/convert", "{\"size\": 2, \"cubie\": " CUBIE2_ID "}",
	 "{\"size\": 2, \"facelets\": \"" SOLVED2 "\", \"index\": \"0\"}"},
	/* convert: index in */
	{"/v1/convert", "{\"size\": 3, \"index\": \"0\"}",
	 "{\"facelets\": \"" SOLVED3 "\", \"cubie\": " CUBIE_ID "}"},
	{"/v1/convert", "{\"size\": 3, \"index\": \"" INDEX_R "\"}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\", \"cubie\": " CUBIE_R
	 ", \"index\": \"" INDEX_R "\", \"orientation\": " STANDARD "}"},
	{"/v1/convert", "{\"size\": 3, \"index\": \"" LAST3 "\"}",
	 "{\"size\": 3, \"index\": \"" LAST3 "\"}"},
	{"/v1/convert", "{\"size\": 2, \"index\": \"3674159\"}",
	 "{\"size\": 2, \"index\": \"3674159\"}"},
	{"/v1/convert", "{\"size\": 2, \"index\": \"0\"}",
	 "{\"facelets\": \"" SOLVED2 "\", \"cubie\": " CUBIE2_ID "}"},
	/* include */
	{"/v1/convert",
	 "{\"facelets\": \"" SOLVED2 "\", \"include\": [\"faces\"]}",
	 "{\"faces\": {\"U\": [[\"U\", \"U\"], [\"U\", \"U\"]], "
	 "\"R\": [[\"R\", \"R\"], [\"R\", \"R\"]], "
	 "\"F\": [[\"F\", \"F\"], [\"F\", \"F\"]], "
	 "\"D\": [[\"D\", \"D\"], [\"D\", \"D\"]], "
	 "\"L\": [[\"L\", \"L\"], [\"L\", \"L\"]], "
	 "\"B\": [[\"B\", \"B\"], [\"B\", \"B\"]]}}"},
	/* faces rows as in the net: after R, U's right column shows F */
	{"/v1/convert",
	 "{\"facelets\": \"" AFTER_R "\", \"include\": [\"faces\"]}",
	 "{\"faces\": {\"U\": [[\"U\", \"U\", \"F\"], [\"U\", \"U\", \"F\"], "
	 "[\"U\", \"U\", \"F\"]], \"B\": [[\"U\", \"B\", \"B\"], "
	 "[\"U\", \"B\", \"B\"], [\"U\", \"B\", \"B\"]]}}"},
	{"/v1/convert",
	 "{\"facelets\": \"URFDLB\", \"include\": [\"render\", \"faces\"]}",
	 "{\"faces\": {\"U\": [[\"U\"]], \"B\": [[\"B\"]]}, \"render\": "
	 "{\"size\": 1, \"axes\": {\"U\": [0, 1, 0], \"R\": [1, 0, 0], "
	 "\"F\": [0, 0, 1], \"D\": [0, -1, 0], \"L\": [-1, 0, 0], "
	 "\"B\": [0, 0, -1]}, \"cubies\": [{\"position\": [0, 0, 0], "
	 "\"rotation\": [1, 0, 0, 0, 1, 0, 0, 0, 1], \"stickers\": {\"U\": "
	 "\"U\", \"R\": \"R\", \"F\": \"F\", \"D\": \"D\", \"L\": \"L\", "
	 "\"B\": \"B\"}}]}}"},

	/* validate */
	{"/v1/validate", "{\"facelets\": \"" SOLVED3 "\"}",
	 "{\"valid\": true, \"size\": 3, \"errors\": [], \"error_count\": 0, "
	 "\"orientation\": " STANDARD "}"},
	{"/v1/validate", "{\"facelets\": \"" AFTER_R_XY "\"}",
	 "{\"valid\": true, \"orientation\": {\"up\": \"F\", \"front\": "
	 "\"R\", \"moves\": \"y' x'\"}}"},
	{"/v1/validate", "{\"facelets\": \"UUUUU\"}",
	 "{\"valid\": false, \"size\": null, \"error_count\": 1}"},
	{"/v1/validate", "{\"facelets\": \"\"}",
	 "{\"valid\": false, \"size\": null}"},
	{"/v1/validate", "{\"facelets\": \"" TWISTED3 "\"}",
	 "{\"valid\": false, \"size\": 3, \"error_count\": 1, \"errors\": "
	 "[{\"code\": \"twist\", \"detail\": \"a corner is twisted: the "
	 "twists do not sum to a multiple of 3 (the sum is 1 mod 3)\"}]}"},
	{"/v1/validate",
	 "{\"facelets\": \"UUUUUUUUURRXRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\"}",
	 "{\"valid\": false, \"size\": 3, \"errors\": [{\"code\": "
	 "\"facelets_letter\", \"detail\": \"a character is not one of U R F "
	 "D L B: \\\"X\\\" at offset 11\", \"where\": 11}]}"},
	{"/v1/validate", "{\"facelets\": \"" SOLVED2 "\"}",
	 "{\"valid\": true, \"size\": 2, \"orientation\": " STANDARD "}"},

	/* apply: format and include */
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R\", \"format\": \"index\"}",
	 "{\"size\": 3, \"index\": \"" INDEX_R "\", \"moves\": "
	 "{\"canonical\": \"R\", \"length\": 1}}"},
	{"/v1/apply", "{\"size\": 3, \"moves\": \"R\", \"format\": \"cubie\"}",
	 "{\"size\": 3, \"cubie\": " CUBIE_R "}"},
	{"/v1/apply",
	 "{\"size\": 3, \"moves\": \"R\", \"format\": \"facelets\", "
	 "\"include\": [\"cubie\", \"index\", \"orientation\"]}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R "\", \"cubie\": " CUBIE_R
	 ", \"index\": \"" INDEX_R "\", \"orientation\": " STANDARD "}"},
	/* rotations turn the cube, not the cubies */
	{"/v1/apply",
	 "{\"facelets\": \"" AFTER_R "\", \"moves\": \"x y\", \"format\": "
	 "\"cubie\", \"include\": [\"facelets\", \"orientation\"]}",
	 "{\"cubie\": " CUBIE_R ", \"facelets\": \"" AFTER_R_XY "\", "
	 "\"orientation\": {\"up\": \"F\", \"front\": \"R\", \"moves\": "
	 "\"y' x'\"}}"},
	{"/v1/apply", "{\"size\": 2, \"format\": \"index\"}",
	 "{\"size\": 2, \"index\": \"0\"}"},
	{"/v1/apply",
	 "{\"size\": 1, \"moves\": \"R\", \"format\": \"faces\"}",
	 "{\"size\": 1, \"faces\": {\"U\": [[\"F\"]], \"R\": [[\"R\"]], "
	 "\"F\": [[\"D\"]], \"D\": [[\"B\"]], \"L\": [[\"L\"]], "
	 "\"B\": [[\"U\"]]}}"},
	{"/v1/apply",
	 "{\"size\": 3, \"moves\": \"R U'\", \"include\": [\"animation\"]}",
	 "{\"size\": 3, \"facelets\": \"" AFTER_R_UI "\", \"animation\": "
	 "[{\"move\": \"R\", \"axis\": \"x\", \"layers\": [2, 2], "
	 "\"angle\": -90}, {\"move\": \"U'\", \"axis\": \"y\", "
	 "\"layers\": [2, 2], \"angle\": 90}]}"},
	{"/v1/apply",
	 "{\"size\": 5, \"moves\": \"2-3Lw2 M x' R0 // c\\n.\", "
	 "\"include\": [\"animation\"]}",
	 "{\"animation\": [{\"move\": \"2-3Lw2\", \"axis\": \"x\", "
	 "\"layers\": [1, 2], \"angle\": 180}, {\"move\": \"M\", \"axis\": "
	 "\"x\", \"layers\": [2, 2], \"angle\": 90}, {\"move\": \"x'\", "
	 "\"axis\": \"x\", \"layers\": [0, 4], \"angle\": 90}, {\"move\": "
	 "\"R0\", \"axis\": \"x\", \"layers\": [4, 4], \"angle\": 0}]}"},
	{"/v1/apply", "{\"size\": 3, \"include\": [\"animation\"]}",
	 "{\"animation\": []}"},

	/* match: named patterns, texts with letters and digits, first */
	{"/v1/match",
	 "{\"facelets\": \"" SOLVED3 "\", \"name\": \"solved\", "
	 "\"first\": true}",
	 "{\"matched\": true, \"orientations\": [" O_U0 "]}"},
	{"/v1/match",
	 "{\"facelets\": \"" SOLVED3 "\", \"name\": \"cross\", "
	 "\"first\": false}",
	 "{\"matched\": true}"},
	/* R leaves the L face alone: its cross, on L in four rotations */
	{"/v1/match", "{\"facelets\": \"" AFTER_R "\", \"name\": \"cross\"}",
	 "{\"matched\": true, \"orientations\": [" O_L_ALL "]}"},
	{"/v1/match",
	 "{\"facelets\": \"" AFTER_R "\", \"name\": \"first_layer\"}",
	 "{\"matched\": true, \"orientations\": [" O_L_ALL "]}"},
	/* and L's two layers, with R one colour: L's F2L and OLL */
	{"/v1/match", "{\"facelets\": \"" AFTER_R "\", \"name\": \"oll\"}",
	 "{\"matched\": true, \"orientations\": [" O_L_ALL "]}"},
	{"/v1/match", "{\"facelets\": \"" AFTER_R "\", \"name\": \"pll\"}",
	 "{\"matched\": false, \"orientations\": []}"},
	{"/v1/match",
	 "{\"facelets\": \"" AFTER_R "\", \"name\": \"solved\", "
	 "\"first\": true}",
	 "{\"matched\": false, \"orientations\": []}"},
	/* U center U, L one colour: only U up, L on L (0) or on R (180) */
	{"/v1/match", "{\"facelets\": \"" AFTER_R "\", \"pattern\": \"" PAT_UL
	 "\"}",
	 "{\"matched\": true, \"orientations\": [" O_U0 ", " O_U180 "]}"},
	/* two opposite faces one colour each: after R, R and L */
	{"/v1/match", "{\"facelets\": \"" AFTER_R "\", \"pattern\": \"" PAT_UD
	 "\"}",
	 "{\"matched\": true, \"orientations\": [" O_R_ALL ", " O_L_ALL "]}"},
	{"/v1/match",
	 "{\"facelets\": \"" AFTER_R "\", \"pattern\": \"" PAT_RL
	 "\", \"first\": true}",
	 "{\"matched\": true, \"orientations\": [" O_U0 "]}"},
	/* a digit's colour differs from every lettered colour */
	{"/v1/match",
	 "{\"facelets\": \"" SOLVED3 "\", \"pattern\": \""
	 "U1*******" "*********" "*********" "*********" "*********" "*********"
	 "\"}",
	 "{\"matched\": false, \"orientations\": []}"},
	{"/v1/match",
	 "{\"facelets\": \"" SOLVED3 "\", \"pattern\": \""
	 "U*******U" "*********" "*********" "*********" "*********" "*********"
	 "\", \"first\": true}",
	 "{\"matched\": true, \"orientations\": [" O_U0 "]}"},
	/* n = 1: six generic colours fit all 24 ways; a letter fixes one */
	{"/v1/match", "{\"facelets\": \"URFDLB\", \"pattern\": \"U*****\"}",
	 "{\"matched\": true, \"orientations\": [" O_U0 ", "
	 "{\"face\": \"U\", \"rotation\": 90, \"moves\": \"y'\"}, " O_U180 ", "
	 "{\"face\": \"U\", \"rotation\": 270, \"moves\": \"y\"}]}"},
	/* a pattern query does not need a legal cube */
	{"/v1/match",
	 "{\"facelets\": \"" TWISTED3 "\", \"name\": \"cross\", "
	 "\"first\": true}",
	 "{\"matched\": true, \"orientations\": [" O_U0 "]}"},
	{"/v1/match",
	 "{\"facelets\": \"UUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUU\", "
	 "\"pattern\": \"" PAT_UL "\", \"first\": true}",
	 "{\"matched\": false}"},
	/* seed 000's 2×2 example on the solved 2×2 */
	{"/v1/match",
	 "{\"facelets\": \"" SOLVED2 "\", \"pattern\": \"" SEED2 "\", "
	 "\"first\": true}",
	 "{\"matched\": true, \"orientations\": [" O_U0 "]}"},

	/* pieces: R's cubies (cp [4,1,2,0,7,5,6,3], co [2,0,0,1,1,0,0,2],
	 * ep [8,1,2,3,11,5,6,7,4,9,10,0]) */
	{"/v1/pieces", "{\"facelets\": \"" AFTER_R "\", \"piece\": \"URF\"}",
	 "{\"piece\": " PIECE("URF", "UBR", 1, false, false) "}"},
	{"/v1/pieces", "{\"facelets\": \"" AFTER_R "\", \"piece\": \"FUR\"}",
	 "{\"piece\": " PIECE("URF", "UBR", 1, false, false) "}"},
	{"/v1/pieces", "{\"facelets\": \"" AFTER_R "\", \"piece\": \"UR\"}",
	 "{\"piece\": " PIECE("UR", "BR", 0, false, true) "}"},
	{"/v1/pieces", "{\"facelets\": \"" AFTER_R "\", \"piece\": \"LU\"}",
	 "{\"piece\": " PIECE("UL", "UL", 0, true, true) "}"},
	{"/v1/pieces", "{\"facelets\": \"" AFTER_R "\", \"piece\": \"DRB\"}",
	 "{\"piece\": " PIECE("DRB", "DFR", 1, false, false) "}"},
	/* held another way: the same cubies (positions named by centers) */
	{"/v1/pieces",
	 "{\"facelets\": \"" AFTER_R_XY "\", \"piece\": \"URF\"}",
	 "{\"piece\": " PIECE("URF", "UBR", 1, false, false) "}"},
	{"/v1/pieces",
	 "{\"facelets\": \"" AFTER_R2X2 "\", \"piece\": \"UBR\"}",
	 "{\"piece\": " PIECE("UBR", "DRB", 2, false, false) "}"},
	{"/v1/pieces", "{\"facelets\": \"" SOLVED2 "\"}",
	 "{\"pieces\": [" PIECE("URF", "URF", 0, true, true) ", "
	 PIECE("UFL", "UFL", 0, true, true) ", "
	 PIECE("ULB", "ULB", 0, true, true) ", "
	 PIECE("UBR", "UBR", 0, true, true) ", "
	 PIECE("DFR", "DFR", 0, true, true) ", "
	 PIECE("DLF", "DLF", 0, true, true) ", "
	 PIECE("DBL", "DBL", 0, true, true) ", "
	 PIECE("DRB", "DRB", 0, true, true) "]}"},
};

START_TEST(success_cases)
{
	const ok_case *c = &ok_cases[_i];
	char what[512];
	snprintf(what, sizeof what, "POST %s %s", c->path, c->body);
	http_response r;
	post_json(&r, c->path, c->body);
	check_json_reply(&r, what, 200, c->expect);
	http_response_free(&r);
}
END_TEST

START_TEST(healthz)
{
	http_response r;
	req(&r, "GET", "/healthz", NULL, NULL);
	check_json_reply(&r, "GET /healthz", 200, "{\"status\": \"ok\"}");
	json_t *j = parse(&r, "GET /healthz");
	ck_assert_uint_eq(json_object_size(j), 1);
	json_decref(j);
	http_response_free(&r);
}
END_TEST

/* HEAD answers the GET's headers without a body; OPTIONS on a GET route
 * is the GET preflight. */
START_TEST(healthz_head_and_options)
{
	http_response r;
	req(&r, "HEAD", "/healthz", NULL, NULL);
	ck_assert_msg(r.status == 200, "HEAD /healthz: status %d", r.status);
	ck_assert_uint_eq(r.body_len, 0);
	ck_assert_msg(media_type_is(http_header(&r, "Content-Type"),
				    "application/json"),
		      "HEAD /healthz: Content-Type %s",
		      http_header(&r, "Content-Type"));
	check_cors(&r, "HEAD /healthz");
	http_response_free(&r);

	req(&r, "OPTIONS", "/healthz", NULL, NULL);
	ck_assert_msg(r.status == 204, "OPTIONS /healthz: status %d",
		      r.status);
	const char *m = http_header(&r, "Access-Control-Allow-Methods");
	ck_assert_msg(m && strcmp(m, "GET, HEAD, OPTIONS") == 0,
		      "OPTIONS /healthz: Access-Control-Allow-Methods %s", m);
	check_cors(&r, "OPTIONS /healthz");
	http_response_free(&r);
}
END_TEST

/* The server serves the contract it was started with, byte for byte. */
START_TEST(openapi_document)
{
	const char *path = getenv("CUBED_OPENAPI");
	if (!path || !*path)
		path = "openapi.yaml";
	FILE *f = fopen(path, "rb");
	if (!f)
		return; /* started without --openapi: nothing to compare */
	static char want[1 << 20];
	size_t n = fread(want, 1, sizeof want, f);
	fclose(f);
	http_response r;
	req(&r, "GET", "/openapi.yaml", NULL, NULL);
	ck_assert_msg(r.status == 200, "GET /openapi.yaml: status %d",
		      r.status);
	ck_assert_msg(media_type_is(http_header(&r, "Content-Type"),
				    "application/yaml"),
		      "GET /openapi.yaml: Content-Type %s",
		      http_header(&r, "Content-Type"));
	check_cors(&r, "GET /openapi.yaml");
	ck_assert_msg(r.body_len == n && memcmp(r.body, want, n) == 0,
		      "GET /openapi.yaml: %zu bytes differ from %s (%zu bytes)",
		      r.body_len, path, n);
	http_response_free(&r);
}
END_TEST

/* Expected facelets after R on a solved n-cube, by DESIGN.md's rule
 * (the R column of U shows F, of F shows D, of D shows B, B's left
 * column shows U). */
static char *after_r(int n)
{
	size_t nn = (size_t)n * n;
	char *f = malloc(6 * nn + 1);
	ck_assert_ptr_nonnull(f);
	for (int face = 0; face < 6; face++)
		for (int r = 0; r < n; r++)
			for (int c = 0; c < n; c++) {
				char v = "URFDLB"[face];
				if (face == 0 && c == n - 1)
					v = 'F';
				else if (face == 2 && c == n - 1)
					v = 'D';
				else if (face == 3 && c == n - 1)
					v = 'B';
				else if (face == 5 && c == 0)
					v = 'U';
				f[face * nn + (size_t)r * n + c] = v;
			}
	f[6 * nn] = '\0';
	return f;
}

/* The largest cube, solved and after R. */
START_TEST(apply_size_1024)
{
	static const char *bodies[] = {"{\"size\": 1024}",
				       "{\"size\": 1024, \"moves\": \"R\"}"};
	for (int i = 0; i < 2; i++) {
		http_response r;
		post_json(&r, "/v1/apply", bodies[i]);
		ck_assert_msg(r.status == 200, "%s: status %d: %.300s",
			      bodies[i], r.status, r.body);
		json_t *j = parse(&r, bodies[i]);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 1024);
		const char *f =
			json_string_value(json_object_get(j, "facelets"));
		ck_assert_ptr_nonnull(f);
		ck_assert_uint_eq(strlen(f), 6u * 1024 * 1024);
		char *want = after_r(1024);
		if (i == 0)
			for (size_t k = 0; k < 6u * 1024 * 1024; k++)
				want[k] = "URFDLB"[k / (1024 * 1024)];
		if (strcmp(f, want) != 0) {
			size_t k = 0;
			while (f[k] == want[k])
				k++;
			ck_abort_msg("%s: facelets differ first at %zu: %c, "
				     "expected %c",
				     bodies[i], k, f[k], want[k]);
		}
		free(want);
		json_decref(j);
		http_response_free(&r);
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Representations: /v1/convert, /v1/validate, format and include.     */

/* POST body (a JSON value, borrowed) to path; the reply, which must be
 * 200, parsed. */
static json_t *post_value(const char *path, const json_t *body, int status,
			  http_response *r)
{
	char *text = json_dumps(body, JSON_COMPACT);
	ck_assert_ptr_nonnull(text);
	int rc = http_request(srv.port, "POST", path, JSON_CT, text,
			      strlen(text), r);
	ck_assert_msg(rc == 0, "POST %s: %s", path, r->error);
	ck_assert_msg(r->status == status, "POST %s %.300s: status %d, expected "
					   "%d: %.600s",
		      path, text, r->status, status, r->body);
	free(text);
	return parse(r, path);
}

/* post_value for a 200 reply, without the response. */
static json_t *post_ok(const char *path, json_t *body)
{
	http_response r;
	json_t *j = post_value(path, body, 200, &r);
	http_response_free(&r);
	json_decref(body);
	return j;
}

static const char *str_member(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	ck_assert_msg(s != NULL, "reply has no string \"%s\"", key);
	return s;
}

/* n for a facelets string of len letters (6·n², n = 1…1024), else 0. */
static int cube_size_or_zero(size_t len)
{
	for (size_t n = 1; n <= 1024; n++)
		if (6 * n * n == len)
			return (int)n;
	return 0;
}

/* The "code" members of an array of errors, comma-separated ("-" for
 * none), and their "where" members (-1 when absent). */
static void codes_and_where(const json_t *errors, char *codes, char *where,
			    size_t cap)
{
	size_t cl = 0, wl = 0;
	size_t i;
	json_t *e;
	snprintf(codes, cap, "-");
	where[0] = '\0';
	json_array_foreach(errors, i, e) {
		json_t *w = json_object_get(e, "where");
		cl += (size_t)snprintf(codes + cl, cap - cl, "%s%s",
				       i ? "," : "",
				       json_string_value(
					       json_object_get(e, "code")));
		wl += (size_t)snprintf(where + wl, cap - wl, "%s%lld",
				       i ? "," : "",
				       w ? (long long)json_integer_value(w)
					 : -1LL);
		ck_assert_msg(json_is_string(json_object_get(e, "detail")),
			      "an error without a detail");
	}
}

/* Every broken cube of tests/golden/broken_cubes.txt through /v1/validate:
 * the same codes in the same order, and the same places, as core's
 * cube_validate gives (its suite checks those against the file); and
 * through /v1/convert: a 2×2 or 3×3 with any problem past its letters is
 * 422 invalid_cube with the same errors, a legal one converts. */
START_TEST(validate_broken_cubes_golden)
{
	struct golden_case *gc;
	int count = golden_load("broken_cubes.txt", &gc);
	ck_assert_int_ge(count, 60);
	for (int k = 0; k < count; k++) {
		const char *s = gc[k].field[0], *want = gc[k].field[1];
		size_t len = strlen(s);
		char codes[512], where[512];
		http_response r;
		json_t *body = json_pack("{s:s}", "facelets", s);
		json_t *j = post_value("/v1/validate", body, 200, &r);
		http_response_free(&r);
		json_decref(body);
		codes_and_where(json_object_get(j, "errors"), codes, where,
				sizeof codes);
		ck_assert_msg(strcmp(codes, want) == 0,
			      "line %d: /v1/validate codes %s, want %s",
			      gc[k].line, codes, want);
		if (gc[k].nfields >= 3)
			ck_assert_msg(strcmp(where, gc[k].field[2]) == 0,
				      "line %d: where %s, want %s", gc[k].line,
				      where, gc[k].field[2]);
		int valid = strcmp(want, "-") == 0;
		ck_assert_msg(json_is_boolean(json_object_get(j, "valid")) &&
				      json_is_true(json_object_get(j, "valid")) ==
					      valid,
			      "line %d: valid is not %d", gc[k].line, valid);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
				 (json_int_t)json_array_size(
					 json_object_get(j, "errors")));
		int n = cube_size_or_zero(len);
		json_t *size = json_object_get(j, "size");
		ck_assert_msg(n ? json_integer_value(size) == n
				: json_is_null(size),
			      "line %d: size should be %d", gc[k].line, n);
		ck_assert_msg((json_object_get(j, "orientation") != NULL) ==
				      (valid && (n == 2 || n == 3)),
			      "line %d: orientation present iff a valid 2×2 "
			      "or 3×3",
			      gc[k].line);
		ck_assert_msg((json_object_get(j, "unchecked") != NULL) ==
				      (n >= 4),
			      "line %d: unchecked present iff n >= 4",
			      gc[k].line);

		/* and through /v1/convert */
		int letters_ok = n > 0 && !strstr(want, "facelets_");
		body = json_pack("{s:s}", "facelets", s);
		if (!letters_ok) {
			json_decref(j);
			json_decref(body);
			continue;
		}
		int illegal = !valid && (n == 2 || n == 3);
		json_t *c = post_value("/v1/convert", body, illegal ? 422 : 200,
				       &r);
		json_decref(body);
		if (illegal) {
			check_problem(&r, "convert of a broken cube", 422,
				      "invalid_cube", "invalid_cube", -1,
				      "facelets", -1);
			ck_assert_msg(json_equal(json_object_get(c, "errors"),
						 json_object_get(j, "errors")),
				      "line %d: invalid_cube errors differ from "
				      "/v1/validate's: %s",
				      gc[k].line, r.body);
		} else {
			ck_assert_str_eq(str_member(c, "facelets"), s);
			ck_assert_msg((json_object_get(c, "cubie") != NULL) ==
					      (n == 2 || n == 3),
				      "line %d: cubie present iff n is 2 or 3",
				      gc[k].line);
		}
		http_response_free(&r);
		json_decref(c);
		json_decref(j);
	}
	golden_free(gc, count);
}
END_TEST

/* facelets → cubie → index → cubie → facelets through the API. The
 * facelets come back as the cube held the standard way: equal to the
 * scramble's, or (a 2×2 turned with D, L or B moves its DBL corner, which
 * fixes its orientation) to them turned by the orientation's moves. */
START_TEST(convert_round_trips)
{
	static const struct {
		int n;
		const char *moves;
	} scrambles[] = {
		{3, ""},
		{3, "R"},
		{3, "R U F' D2 L B' U2 R' F"},
		{3, "D' R2 U' B2 D F2 U2 L2 D2 L' F' U' R2 B L' D2 U R F2"},
		{3, "(R U R' U')3 [F, R2] D' L2 [B: U]"},
		{3, "R2 U2"},
		{2, "R U2 F' D L' B"},
		{2, "R U R' U' F2"},
		{2, ""},
	};
	for (size_t i = 0; i < sizeof scrambles / sizeof *scrambles; i++) {
		int n = scrambles[i].n;
		json_t *a = post_ok("/v1/apply",
				    json_pack("{s:i, s:s}", "size", n, "moves",
					      scrambles[i].moves));
		const char *f = str_member(a, "facelets");
		json_t *c1 = post_ok("/v1/convert",
				     json_pack("{s:s}", "facelets", f));
		json_t *cubie = json_object_get(c1, "cubie");
		const char *ix = str_member(c1, "index");
		json_t *c2 = post_ok("/v1/convert",
				     json_pack("{s:i, s:O}", "size", n, "cubie",
					       cubie));
		json_t *c3 = post_ok("/v1/convert",
				     json_pack("{s:i, s:s}", "size", n, "index",
					       ix));
		const char *what = scrambles[i].moves;
		ck_assert_msg(strcmp(str_member(c2, "index"), ix) == 0,
			      "%d: %s: cubie → index %s, facelets → index %s",
			      n, what, str_member(c2, "index"), ix);
		ck_assert_msg(json_equal(json_object_get(c3, "cubie"), cubie),
			      "%d: %s: index → cubie differs", n, what);
		const char *turn =
			str_member(json_object_get(c1, "orientation"), "moves");
		json_t *held = post_ok("/v1/apply",
				       json_pack("{s:s, s:s}", "facelets", f,
						 "moves", turn));
		const char *fs = str_member(held, "facelets");
		ck_assert_msg((n == 2 && strpbrk(what, "DLB")) || *turn == '\0',
			      "%d: %s: held as %s", n, what, turn);
		ck_assert_msg(strcmp(str_member(c2, "facelets"), fs) == 0 &&
				      strcmp(str_member(c3, "facelets"), fs) == 0,
			      "%d: %s: facelets do not come back: %s (%s)", n,
			      what, fs, turn);
		json_decref(held);
		/* and /v1/apply answers the same index and cubies */
		json_t *a2 = post_ok("/v1/apply",
				     json_pack("{s:i, s:s, s:s, s:[s]}", "size",
					       n, "moves", scrambles[i].moves,
					       "format", "index", "include",
					       "cubie"));
		ck_assert_str_eq(str_member(a2, "index"), ix);
		ck_assert(json_equal(json_object_get(a2, "cubie"), cubie));
		json_decref(a2);
		json_decref(c3);
		json_decref(c2);
		json_decref(c1);
		json_decref(a);
	}
}
END_TEST

/* The same state held another way (computed here: x y applied to the
 * facelets after R) has the same cubies, and says how it is held. */
START_TEST(convert_rotated_cube)
{
	json_t *a = post_ok("/v1/apply",
			    json_pack("{s:s, s:s}", "facelets", AFTER_R,
				      "moves", "x y"));
	const char *f = str_member(a, "facelets");
	ck_assert_str_ne(f, AFTER_R);
	json_t *c = post_ok("/v1/convert", json_pack("{s:s}", "facelets", f));
	json_t *want = json_loads("{\"cubie\": " CUBIE_R ", \"index\": \""
				  INDEX_R "\", \"orientation\": {\"up\": \"F\", "
				  "\"front\": \"R\", \"moves\": \"y' x'\"}}",
				  0, NULL);
	ck_assert_ptr_nonnull(want);
	const char *k;
	json_t *v;
	json_object_foreach(want, k, v)
		ck_assert_msg(json_equal(v, json_object_get(c, k)),
			      "rotated R: %s differs", k);
	ck_assert_str_eq(str_member(c, "facelets"), f);
	/* applying the orientation's moves gives the standard hold back */
	json_t *o = json_object_get(c, "orientation");
	json_t *back = post_ok("/v1/apply",
			       json_pack("{s:s, s:s}", "facelets", f, "moves",
					 str_member(o, "moves")));
	ck_assert_str_eq(str_member(back, "facelets"), AFTER_R);
	json_decref(back);
	json_decref(want);
	json_decref(c);
	json_decref(a);
}
END_TEST

/* Every reason a cubie input is not a reachable state, as data. */
START_TEST(convert_invalid_cubies)
{
	static const struct {
		const char *body, *codes, *fields;
	} cases[] = {
		{CUBIE3_WITH("[1, 0, 2, 3, 4, 5, 6, 7]", ZERO8, ID_EP, ZERO12),
		 "parity", "cubie.cp"},
		{CUBIE3_WITH(ID_CP, "[2, 0, 0, 0, 0, 0, 0, 0]", ID_EP, ZERO12),
		 "twist", "cubie.co"},
		{CUBIE3_WITH(ID_CP, ZERO8, ID_EP,
			     "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]"),
		 "flip", "cubie.eo"},
		{CUBIE3_WITH("[0, 0, 2, 3, 4, 5, 6, 7]", ZERO8, ID_EP, ZERO12),
		 "not_a_permutation", "cubie.cp"},
		{CUBIE3_WITH(ID_CP, "[1, 1, 0, 0, 0, 0, 0, 0]",
			     "[1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]",
			     "[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"),
		 "twist,not_a_permutation,flip", "cubie.co,cubie.ep,cubie.eo"},
		{"{\"size\": 2, \"cubie\": {\"cp\": " ID_CP ", \"co\": "
		 "[0, 0, 0, 0, 0, 0, 1, 2]}}",
		 "not_normalized", "cubie.co"},
		{"{\"size\": 2, \"cubie\": {\"cp\": [0, 1, 2, 3, 4, 5, 7, 6], "
		 "\"co\": " ZERO8 "}}",
		 "not_normalized", "cubie.cp"},
		{"{\"size\": 2, \"cubie\": {\"cp\": [0, 1, 2, 3, 4, 4, 6, 7], "
		 "\"co\": [1, 0, 0, 0, 0, 0, 0, 0]}}",
		 "not_a_permutation,twist", "cubie.cp,cubie.co"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		http_response r;
		post_json(&r, "/v1/convert", cases[i].body);
		check_problem(&r, cases[i].body, 422, "invalid_cube",
			      "invalid_cube", -1, "cubie", -1);
		json_t *j = parse(&r, cases[i].body);
		char codes[256], fields[256];
		size_t cl = 0, fl = 0, k;
		json_t *e;
		json_array_foreach(json_object_get(j, "errors"), k, e) {
			cl += (size_t)snprintf(codes + cl, sizeof codes - cl,
					       "%s%s", k ? "," : "",
					       str_member(e, "code"));
			fl += (size_t)snprintf(fields + fl, sizeof fields - fl,
					       "%s%s", k ? "," : "",
					       str_member(e, "field"));
			str_member(e, "detail");
		}
		ck_assert_msg(cl && strcmp(codes, cases[i].codes) == 0 &&
				      strcmp(fields, cases[i].fields) == 0,
			      "%s: errors %s (%s), want %s (%s)", cases[i].body,
			      cl ? codes : "none", fl ? fields : "", cases[i].codes,
			      cases[i].fields);
		json_decref(j);
		http_response_free(&r);
	}
}
END_TEST

/* Solved n×n facelets. */
static char *solved(int n)
{
	size_t nn = (size_t)n * n;
	char *f = malloc(6 * nn + 1);
	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < 6 * nn; k++)
		f[k] = "URFDLB"[k / nn];
	f[6 * nn] = '\0';
	return f;
}

/* n >= 4: what validation cannot check; 2×2 and 3×3 never list it. */
START_TEST(validate_unchecked)
{
	for (int n = 1; n <= 7; n++) {
		char *f = solved(n);
		json_t *j = post_ok("/v1/validate",
				    json_pack("{s:s}", "facelets", f));
		json_t *u = json_object_get(j, "unchecked");
		if (n >= 4) {
			json_t *want = json_pack("[s]", "parity");
			ck_assert_msg(json_equal(u, want),
				      "n=%d: unchecked is not [parity]", n);
			json_decref(want);
		} else {
			ck_assert_msg(u == NULL, "n=%d: unchecked listed", n);
		}
		ck_assert(json_is_true(json_object_get(j, "valid")));
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 n);
		json_decref(j);
		free(f);
	}
}
END_TEST

/* All problems are counted; at most 1000 are listed. */
START_TEST(validate_many_problems)
{
	char *f = solved(16);
	size_t len = strlen(f);
	for (size_t k = 0; k < 1500; k++)
		f[k] = 'x';
	json_t *j = post_ok("/v1/validate", json_pack("{s:s}", "facelets", f));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
			 1500);
	json_t *errors = json_object_get(j, "errors");
	ck_assert_uint_eq(json_array_size(errors), 1000);
	json_t *last = json_array_get(errors, 999);
	ck_assert_str_eq(str_member(last, "code"), "facelets_letter");
	ck_assert_int_eq(json_integer_value(json_object_get(last, "where")), 999);
	json_decref(j);
	/* a few: all listed */
	free(f);
	f = solved(16);
	f[0] = f[len - 1] = '?';
	j = post_ok("/v1/validate", json_pack("{s:s}", "facelets", f));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "error_count")),
			 2);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "errors")), 2);
	json_decref(j);
	free(f);
}
END_TEST

/* render: every visible cubie, in order, with rotations that say where
 * each sticker went. */
START_TEST(render_cubies)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:[s]}", "size", 3, "include",
				      "render"));
	json_t *render = json_object_get(j, "render");
	json_t *cubies = json_object_get(render, "cubies");
	ck_assert_uint_eq(json_array_size(cubies), 26);
	ck_assert_int_eq(json_integer_value(json_object_get(render, "size")), 3);
	/* solved: identity everywhere, each side shows its own colour, and
	 * the positions run through i, then j, then k, skipping the core */
	size_t i;
	json_t *c;
	int want[3] = {0, 0, 0};
	json_array_foreach(cubies, i, c) {
		json_t *pos = json_object_get(c, "position");
		for (int a = 0; a < 3; a++)
			ck_assert_int_eq(
				json_integer_value(json_array_get(pos, a)),
				want[a]);
		json_t *id = json_pack("[i,i,i,i,i,i,i,i,i]", 1, 0, 0, 0, 1, 0,
				       0, 0, 1);
		ck_assert(json_equal(json_object_get(c, "rotation"), id));
		json_decref(id);
		const char *side;
		json_t *v;
		int visible = 0;
		json_object_foreach(json_object_get(c, "stickers"), side, v) {
			ck_assert_str_eq(side, json_string_value(v));
			visible++;
		}
		int outer = (want[0] == 0 || want[0] == 2) +
			    (want[1] == 0 || want[1] == 2) +
			    (want[2] == 0 || want[2] == 2);
		ck_assert_int_eq(visible, outer);
		do {
			if (++want[2] == 3) {
				want[2] = 0;
				if (++want[1] == 3) {
					want[1] = 0;
					want[0]++;
				}
			}
		} while (want[0] == 1 && want[1] == 1 && want[2] == 1);
	}
	json_decref(j);

	/* after R: URF holds DFR, turned -90° about x */
	j = post_ok("/v1/apply", json_pack("{s:i, s:s, s:s, s:[s]}", "size", 3,
					   "moves", "R", "format", "cubie",
					   "include", "render"));
	cubies = json_object_get(json_object_get(j, "render"), "cubies");
	json_t *urf = json_loads("{\"position\": [2, 2, 2], \"rotation\": [1, 0, "
				 "0, 0, 0, 1, 0, -1, 0], \"stickers\": {\"U\": "
				 "\"F\", \"R\": \"R\", \"F\": \"D\"}}",
				 0, NULL);
	ck_assert_ptr_nonnull(urf);
	ck_assert_msg(json_equal(json_array_get(cubies, 25), urf),
		      "the URF cubie after R differs");
	json_decref(urf);
	json_decref(j);
}
END_TEST

/* The size limits of faces and render, on both sides of the line. */
START_TEST(representation_size_limits)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:[s]}", "size", 64, "include",
				      "render"));
	json_t *cubies = json_object_get(json_object_get(j, "render"), "cubies");
	ck_assert_uint_eq(json_array_size(cubies), 64u * 64 * 64 - 62u * 62 * 62);
	json_decref(j);

	j = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 256, "format",
					   "faces"));
	json_t *faces = json_object_get(j, "faces");
	ck_assert_uint_eq(json_object_size(faces), 6);
	json_t *d = json_object_get(faces, "D");
	ck_assert_uint_eq(json_array_size(d), 256);
	ck_assert_uint_eq(json_array_size(json_array_get(d, 255)), 256);
	ck_assert_str_eq(json_string_value(
				 json_array_get(json_array_get(d, 255), 255)),
			 "D");
	ck_assert_ptr_null(json_object_get(j, "facelets"));
	json_decref(j);

	/* through /v1/convert, with the state given as 65×65 facelets */
	char *f = solved(65);
	http_response r;
	json_t *body = json_pack("{s:s, s:[s]}", "facelets", f, "include",
				 "render");
	json_decref(post_value("/v1/convert", body, 422, &r));
	check_problem(&r, "convert n=65 with render", 422, "limit_exceeded",
		      "too_large_for_representation", -1, "include", 64);
	http_response_free(&r);
	json_decref(body);
	free(f);
}
END_TEST

/* 364 features, zeros and ones: 54 + 20 + 20 ones solved; after R, 54
 * stickers, 12 pieces home and 16 oriented, exactly where. */
START_TEST(features_vector)
{
	static const char *const facelets[] = {SOLVED3, AFTER_R};
	for (int t = 0; t < 2; t++) {
		json_t *j = post_ok("/v1/convert",
				    json_pack("{s:s, s:[s]}", "facelets",
					      facelets[t], "include",
					      "features"));
		json_t *f = json_object_get(j, "features");
		ck_assert_uint_eq(json_array_size(f), 364);
		int ones = 0;
		char tail[41];
		for (size_t i = 0; i < 364; i++) {
			json_t *v = json_array_get(f, i);
			ck_assert_msg(json_is_integer(v) &&
					      (json_integer_value(v) == 0 ||
					       json_integer_value(v) == 1),
				      "features[%zu] is not 0 or 1", i);
			ones += (int)json_integer_value(v);
			if (i < 324)
				ck_assert_int_eq(
					json_integer_value(v),
					facelets[t][i / 6] == "URFDLB"[i % 6]);
			else
				tail[i - 324] =
					(char)('0' + json_integer_value(v));
		}
		tail[40] = '\0';
		/* home: corners URF…DRB, edges UR…BR; then oriented */
		const char *want =
			t == 0 ? "1111111111111111111111111111111111111111"
			       : "0110011001110111011001100110111111111111";
		ck_assert_msg(strcmp(tail, want) == 0,
			      "features[324…363] %s, want %s", tail, want);
		ck_assert_int_eq(ones, t == 0 ? 54 + 40 : 54 + 12 + 16);
		json_decref(j);
	}
}
END_TEST

/* format replaces "facelets"; the default reply keeps its three keys. */
START_TEST(apply_format_keys)
{
	static const struct {
		const char *format;
		const char *keys; /* the reply's keys, in order */
	} cases[] = {
		{NULL, "size facelets moves"},
		{"facelets", "size facelets moves"},
		{"index", "size index moves"},
		{"cubie", "size cubie moves"},
		{"faces", "size faces moves"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *body = json_pack("{s:i, s:s}", "size", 3, "moves", "R");
		if (cases[i].format)
			json_object_set_new(body, "format",
					    json_string(cases[i].format));
		json_t *j = post_ok("/v1/apply", body);
		char keys[128];
		size_t kl = 0;
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v)
			kl += (size_t)snprintf(keys + kl, sizeof keys - kl,
					       "%s%s", kl ? " " : "", k);
		ck_assert_msg(strcmp(keys, cases[i].keys) == 0,
			      "format %s: keys %s, want %s",
			      cases[i].format ? cases[i].format : "(none)", keys,
			      cases[i].keys);
		json_decref(j);
	}
}
END_TEST

/* The animation limit is 10000 moves, inclusive. */
START_TEST(animation_limit)
{
	json_t *j = post_ok("/v1/apply",
			    json_pack("{s:i, s:s, s:[s]}", "size", 3, "moves",
				      "(R U)5000", "include", "animation"));
	json_t *an = json_object_get(j, "animation");
	ck_assert_uint_eq(json_array_size(an), 10000);
	ck_assert_str_eq(str_member(json_array_get(an, 9999), "move"), "U");
	ck_assert_str_eq(str_member(json_array_get(an, 9998), "move"), "R");
	json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Patterns: /v1/match, /v1/patterns, /v1/pieces.                      */

/* GET path; the reply, which must be 200, parsed. */
static json_t *get_ok(const char *path)
{
	http_response r;
	req(&r, "GET", path, NULL, NULL);
	check_json_reply(&r, path, 200, "{}");
	json_t *j = parse(&r, path);
	http_response_free(&r);
	return j;
}

/* Core's answer for the patterns texts[0..np) on facelets (pattern.h):
 * the orientations pattern_match finds, listed as /v1/match lists them;
 * *mask (if not NULL) gets its mask. */
static json_t *core_orientations(const char *const *texts, int np,
				 const char *facelets, int first,
				 uint32_t *mask_out)
{
	size_t len = strlen(facelets);
	int n = cube_size_from_length(len);
	ck_assert_int_gt(n, 0);
	cube_t *c = malloc(cube_sizeof(n));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cube_from_facelets(c, n, facelets, len, NULL),
			 CUBE_OK);
	pattern_t *p[16];
	ck_assert_int_le(np, 16);
	for (int i = 0; i < np; i++) {
		size_t tl = strlen(texts[i]);
		p[i] = malloc(pattern_sizeof(n, texts[i], tl));
		ck_assert_ptr_nonnull(p[i]);
		pattern_error e;
		ck_assert_int_eq(pattern_compile(p[i], n, texts[i], tl, &e),
				 CUBE_OK);
	}
	uint32_t mask = 0;
	int count = pattern_match((const pattern_t *const *)p, (size_t)np, c,
				  first, &mask);
	ck_assert_int_ge(count, 0);
	json_t *list = json_array();
	for (int k = 0; k < 24; k++) {
		if (!(mask >> k & 1))
			continue;
		pattern_orientation o;
		pattern_orientation_of(k, &o);
		char face[2] = {o.face, '\0'};
		json_array_append_new(list, json_pack("{s:s, s:i, s:s}", "face",
						      face, "rotation",
						      (int)o.rotation, "moves",
						      o.moves));
	}
	ck_assert_uint_eq(json_array_size(list), (size_t)count);
	for (int i = 0; i < np; i++)
		free(p[i]);
	free(c);
	if (mask_out)
		*mask_out = mask;
	return list;
}

/* Core's texts of the named pattern (NUL-terminated; the caller frees
 * each). Returns the number of parts. */
static int core_named_texts(int n, const char *name, char **texts)
{
	const pattern_named *pn = pattern_named_find(n, name);
	ck_assert_msg(pn != NULL, "core has no %s for size %d", name, n);
	ck_assert_int_le(pn->nparts, 16);
	size_t places = 6 * (size_t)n * (size_t)n;
	for (int i = 0; i < pn->nparts; i++) {
		texts[i] = malloc(places + 1);
		ck_assert_ptr_nonnull(texts[i]);
		ck_assert_int_eq(pattern_named_text(pn, n, i, texts[i]),
				 CUBE_OK);
		texts[i][places] = '\0';
	}
	return pn->nparts;
}

static void free_texts(char **texts, int np)
{
	for (int i = 0; i < np; i++)
		free(texts[i]);
}

/* /v1/match of a named pattern: its orientations, checked against
 * core's, with and without first. */
static json_t *match_named(const char *facelets, const char *name)
{
	int n = cube_size_from_length(strlen(facelets));
	char *texts[16];
	int np = core_named_texts(n, name, texts);
	json_t *want = core_orientations((const char *const *)texts, np,
					 facelets, 0, NULL);
	json_t *m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets",
						   facelets, "name", name));
	json_t *got = json_object_get(m, "orientations");
	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_COMPACT);
		char *w = json_dumps(want, JSON_COMPACT);
		ck_abort_msg("%s on %s: /v1/match says %s, core %s", name,
			     facelets, g, w);
	}
	ck_assert(json_is_boolean(json_object_get(m, "matched")));
	ck_assert_int_eq(json_is_true(json_object_get(m, "matched")),
			 json_array_size(want) > 0);
	/* first: the first of them, or none */
	json_t *m1 = post_ok("/v1/match",
			     json_pack("{s:s, s:s, s:b}", "facelets", facelets,
				       "name", name, "first", 1));
	json_t *o1 = json_object_get(m1, "orientations");
	ck_assert_uint_eq(json_array_size(o1), json_array_size(want) ? 1 : 0);
	if (json_array_size(want))
		ck_assert(json_equal(json_array_get(o1, 0),
				     json_array_get(want, 0)));
	json_decref(m1);
	json_decref(want);
	free_texts(texts, np);
	json_t *out = json_incref(got);
	json_decref(m);
	return out;
}

/* The solved cube fits "solved" in all 24 orientations, listed in
 * pattern_orientation_of's order: face U R F D L B, rotation 0…270. */
START_TEST(match_solved_every_orientation)
{
	json_t *o = match_named(SOLVED3, "solved");
	ck_assert_uint_eq(json_array_size(o), 24);
	for (int k = 0; k < 24; k++) {
		pattern_orientation po;
		pattern_orientation_of(k, &po);
		json_t *e = json_array_get(o, (size_t)k);
		ck_assert_int_eq(str_member(e, "face")[0], "URFDLB"[k / 4]);
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (k % 4));
		ck_assert_str_eq(str_member(e, "moves"), po.moves);
		ck_assert_uint_eq(json_object_size(e), 3);
	}
	json_decref(o);
}
END_TEST

/* R U R' keeps the D cross and no other: exactly the four orientations
 * on D. Each orientation's moves turn the state so that the pattern fits
 * as written (the cross then on U, rotation 0 first). */
START_TEST(match_cross_after_r_u_ri)
{
	json_t *a = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 3,
						   "moves", "R U R'"));
	const char *f = str_member(a, "facelets");
	char *texts[16];
	int np = core_named_texts(3, "cross", texts);
	uint32_t mask = 0;
	json_decref(core_orientations((const char *const *)texts, np, f, 0,
				      &mask));
	free_texts(texts, np);
	ck_assert_uint_eq(mask, 0xfu << 12); /* face D, 0 90 180 270 */
	json_t *o = match_named(f, "cross");
	ck_assert_uint_eq(json_array_size(o), 4);
	size_t i;
	json_t *e;
	json_array_foreach(o, i, e) {
		ck_assert_str_eq(str_member(e, "face"), "D");
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (int)i);
		json_t *t = post_ok("/v1/apply",
				    json_pack("{s:s, s:s}", "facelets", f,
					      "moves", str_member(e, "moves")));
		json_t *back = match_named(str_member(t, "facelets"), "cross");
		json_t *first = json_array_get(back, 0);
		ck_assert_msg(first &&
				      strcmp(str_member(first, "face"), "U") == 0 &&
				      json_integer_value(json_object_get(
					      first, "rotation")) == 0,
			      "after \"%s\" the cross is not on U",
			      str_member(e, "moves"));
		json_decref(back);
		json_decref(t);
	}
	json_decref(o);
	json_decref(a);
}
END_TEST

/* Seed 000's 2×2 example: Sune keeps the D layer, x2 brings it up. The
 * text, the name first_layer and /v1/patterns all agree with core. */
START_TEST(match_seed_2x2)
{
	json_t *a = post_ok("/v1/apply",
			    json_pack("{s:i, s:s}", "size", 2, "moves",
				      "R U R' U R U2 R' x2"));
	const char *f = str_member(a, "facelets");
	json_t *m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets", f,
						   "pattern", SEED2));
	const char *const seed[] = {SEED2};
	json_t *want = core_orientations(seed, 1, f, 0, NULL);
	ck_assert(json_equal(json_object_get(m, "orientations"), want));
	ck_assert_uint_eq(json_array_size(want), 4);
	size_t i;
	json_t *e;
	json_array_foreach(want, i, e) {
		ck_assert_str_eq(str_member(e, "face"), "U");
		ck_assert_int_eq(json_integer_value(json_object_get(e, "rotation")),
				 90 * (int)i);
	}
	json_t *named = match_named(f, "first_layer");
	ck_assert(json_equal(named, want));
	json_decref(named);
	json_decref(want);
	json_decref(m);
	json_decref(a);

	json_t *list = get_ok("/v1/patterns?size=2");
	json_t *fl = json_array_get(json_object_get(list, "patterns"), 0);
	ck_assert_str_eq(str_member(fl, "name"), "first_layer");
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(fl, "parts"), 0)),
			 SEED2);
	json_decref(list);

	/* a scramble has no first layer anywhere */
	a = post_ok("/v1/apply", json_pack("{s:i, s:s}", "size", 2, "moves",
					   "R U F' R2 U' F R' U2 F2 U' R"));
	m = post_ok("/v1/match", json_pack("{s:s, s:s}", "facelets",
					   str_member(a, "facelets"),
					   "pattern", SEED2));
	ck_assert(json_is_false(json_object_get(m, "matched")));
	ck_assert_uint_eq(json_array_size(json_object_get(m, "orientations")),
			  0);
	json_decref(m);
	json_decref(a);
}
END_TEST

/* Every named pattern of sizes 1 to 5 on several states: the same
 * orientations as core, in order, with and without first. */
START_TEST(match_named_against_core)
{
	static const char *const scrambles[] = {
		"", "R", "R U R'", "x2 R U R' U'", "(R U R' U')3 F2",
		"R U F' D2 L B' U2 R' F", "Rw U2 Fw' 3Dw L2",
	};
	for (int n = 1; n <= 5; n++)
		for (size_t s = 0; s < sizeof scrambles / sizeof *scrambles;
		     s++) {
			if (n < 3 && strchr(scrambles[s], 'w'))
				continue; /* 3Dw needs three layers */
			json_t *a = post_ok("/v1/apply",
					    json_pack("{s:i, s:s}", "size", n,
						      "moves", scrambles[s]));
			const char *f = str_member(a, "facelets");
			for (int k = 0; k < pattern_named_count(n); k++)
				json_decref(match_named(
					f, pattern_named_at(n, k)->name));
			json_decref(a);
		}
}
END_TEST

/* GET /v1/patterns: core's library, names in order, every part's text. */
START_TEST(patterns_list)
{
	static const int sizes[] = {1, 2, 3, 4, 5, 64};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		int n = sizes[s];
		char path[64];
		snprintf(path, sizeof path, "/v1/patterns?size=%d", n);
		json_t *j = get_ok(path);
		ck_assert_uint_eq(json_object_size(j), 2);
		ck_assert_int_eq(json_integer_value(json_object_get(j, "size")),
				 n);
		json_t *list = json_object_get(j, "patterns");
		ck_assert_uint_eq(json_array_size(list),
				  (size_t)pattern_named_count(n));
		size_t k;
		json_t *e;
		json_array_foreach(list, k, e) {
			const pattern_named *pn = pattern_named_at(n, (int)k);
			ck_assert_uint_eq(json_object_size(e), 3);
			ck_assert_str_eq(str_member(e, "name"), pn->name);
			ck_assert_str_eq(str_member(e, "description"),
					 pn->description);
			char *texts[16];
			int np = core_named_texts(n, pn->name, texts);
			json_t *parts = json_object_get(e, "parts");
			ck_assert_uint_eq(json_array_size(parts), (size_t)np);
			for (int i = 0; i < np; i++)
				ck_assert_msg(
					strcmp(json_string_value(json_array_get(
						       parts, (size_t)i)),
					       texts[i]) == 0,
					"size %d %s part %d differs", n,
					pn->name, i);
			free_texts(texts, np);
		}
		json_decref(j);
	}

	/* 3×3 names in order, and the cross text as seed 000 numbers it */
	json_t *j = get_ok("/v1/patterns?size=3");
	static const char *const names[] = {"solved", "cross", "first_layer",
					    "f2l", "eo", "oll", "pll"};
	json_t *list = json_object_get(j, "patterns");
	ck_assert_uint_eq(json_array_size(list), 7);
	for (size_t k = 0; k < 7; k++)
		ck_assert_str_eq(str_member(json_array_get(list, k), "name"),
				 names[k]);
	ck_assert_str_eq(json_string_value(json_array_get(
				 json_object_get(json_array_get(list, 1), "parts"),
				 0)),
			 "*1*111*1*" "*3**3****" "*5**5****" "*********"
			 "*4**4****" "*2**2****");
	json_decref(j);
	/* 4×4: parts per pattern */
	j = get_ok("/v1/patterns?size=4&");
	static const int parts4[] = {1, 12, 13, 1};
	list = json_object_get(j, "patterns");
	for (size_t k = 0; k < 4; k++)
		ck_assert_uint_eq(json_array_size(json_object_get(
					  json_array_get(list, k), "parts")),
				  (size_t)parts4[k]);
	json_decref(j);
	/* percent-encoded digits are digits */
	j = get_ok("/v1/patterns?size=%32");
	ck_assert_int_eq(json_integer_value(json_object_get(j, "size")), 2);
	json_decref(j);

	/* HEAD: the GET's headers, no body; OPTIONS: the GET preflight */
	http_response r;
	req(&r, "HEAD", "/v1/patterns?size=3", NULL, NULL);
	ck_assert_msg(r.status == 200, "HEAD /v1/patterns: status %d",
		      r.status);
	ck_assert_uint_eq(r.body_len, 0);
	check_cors(&r, "HEAD /v1/patterns");
	http_response_free(&r);
	req(&r, "OPTIONS", "/v1/patterns", NULL, NULL);
	ck_assert_msg(r.status == 204, "OPTIONS /v1/patterns: status %d",
		      r.status);
	const char *m = http_header(&r, "Access-Control-Allow-Methods");
	ck_assert_msg(m && strcmp(m, "GET, HEAD, OPTIONS") == 0,
		      "OPTIONS /v1/patterns: Access-Control-Allow-Methods %s",
		      m);
	http_response_free(&r);
}
END_TEST

/* Every piece after R, from Kociemba's R: cp[i] is the corner at
 * position i, co[i] its twist; ep likewise (no flips). One piece asked
 * for alone is the same object. */
START_TEST(pieces_after_r)
{
	static const int cp[8] = {4, 1, 2, 0, 7, 5, 6, 3};
	static const int co[8] = {2, 0, 0, 1, 1, 0, 0, 2};
	static const int ep[12] = {8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0};
	static const char *const corners[8] = {"URF", "UFL", "ULB", "UBR",
					       "DFR", "DLF", "DBL", "DRB"};
	static const char *const edges[12] = {"UR", "UF", "UL", "UB",
					      "DR", "DF", "DL", "DB",
					      "FR", "FL", "BL", "BR"};
	static const char *const states[] = {AFTER_R, AFTER_R2X2};
	for (int s = 0; s < 2; s++) {
		int n = s ? 2 : 3;
		json_t *j = post_ok("/v1/pieces",
				    json_pack("{s:s}", "facelets", states[s]));
		ck_assert_uint_eq(json_object_size(j), 1);
		json_t *list = json_object_get(j, "pieces");
		ck_assert_uint_eq(json_array_size(list), n == 3 ? 20 : 8);
		for (int p = 0; p < (n == 3 ? 20 : 8); p++) {
			int edge = p >= 8, id = edge ? p - 8 : p, at = 0;
			const int *perm = edge ? ep : cp;
			while (perm[at] != id)
				at++;
			int ori = edge ? 0 : co[at];
			const char *const *names = edge ? edges : corners;
			json_t *want = json_pack(
				"{s:s, s:s, s:i, s:b, s:b}", "piece", names[id],
				"position", names[at], "orientation", ori,
				"placed", at == id, "oriented", ori == 0);
			json_t *got = json_array_get(list, (size_t)p);
			ck_assert_msg(json_equal(got, want),
				      "%d×%d after R: piece %s differs", n, n,
				      names[id]);
			json_t *one = post_ok("/v1/pieces",
					      json_pack("{s:s, s:s}",
							"facelets", states[s],
							"piece", names[id]));
			ck_assert(json_equal(json_object_get(one, "piece"),
					     want));
			json_decref(one);
			json_decref(want);
		}
		json_decref(j);
	}
}
END_TEST

/* The same request body twice on one connection (keep-alive). */
START_TEST(keep_alive)
{
	int fd = http_connect(srv.port, 15000);
	ck_assert_msg(fd >= 0, "connect: %s", strerror(errno));
	http_response r;
	ck_assert_msg(http_send(fd, srv.port, "GET", "/healthz", NULL, NULL, 0,
				0, &r) == 0,
		      "first request: %s", r.error);
	ck_assert_int_eq(r.status, 200);
	ck_assert_msg(!r.closed, "the server closed a keep-alive connection "
				 "after GET /healthz");
	http_response_free(&r);
	const char *body = "{\"size\": 3, \"moves\": \"R\"}";
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(http_send(fd, srv.port, "POST", "/v1/apply",
					JSON_CT, body, strlen(body), i == 2,
					&r) == 0,
			      "request %d on the same connection: %s", i + 2,
			      r.error);
		check_json_reply(&r, "keep-alive POST /v1/apply", 200,
				 "{\"facelets\": \"" AFTER_R "\"}");
		if (i < 2)
			ck_assert_msg(!r.closed,
				      "the server closed a keep-alive "
				      "connection after POST /v1/apply");
		http_response_free(&r);
	}
	close(fd);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Error cases.                                                        */

#define NO_CT ""

typedef struct err_case {
	const char *method, *path;
	const char *ctype; /* NULL: application/json; NO_CT: none */
	const char *body;  /* NULL: no body */
	int status;
	const char *kind;
	const char *code;  /* exact */
	long offset;       /* -1: not checked */
	const char *field; /* NULL: not checked */
	long limit;        /* -1: not checked */
	const char *token; /* NULL: not checked */
} err_case;

#define APPLY "POST", "/v1/apply", NULL
#define ALG "POST", "/v1/alg", NULL
/* The plain kinds, whose code is the kind's name. */
#define MALFORMED(route, body)                                                 \
	{route, body, 400, "malformed_json", "malformed_json", -1, NULL, -1,  \
	 NULL}
#define REQ(body, code, field)                                                 \
	{APPLY, body, 422, "invalid_request", code, -1, field, -1, NULL}
#define FACELETS(body, code, off)                                              \
	{APPLY, body, 422, "invalid_facelets", code, off, "facelets", -1, NULL}
#define NOTATION(body, code, off, token)                                       \
	{ALG, body, 422, "invalid_notation", code, off, "moves", -1, token}
#define ROUTE(method, path, ct, body, status, kind)                            \
	{method, path, ct, body, status, kind, kind, -1, NULL, -1, NULL}
#define CONVERT "POST", "/v1/convert", NULL
#define VALIDATE "POST", "/v1/validate", NULL
#define CREQ(body, code, field)                                                \
	{CONVERT, body, 422, "invalid_request", code, -1, field, -1, NULL}
#define TOO_LARGE(route, body, field, limit)                                   \
	{route, body, 422, "limit_exceeded", "too_large_for_representation",   \
	 -1, field, limit, NULL}

#define MATCH "POST", "/v1/match", NULL
#define PIECES "POST", "/v1/pieces", NULL
#define MREQ(body, code, field)                                                \
	{MATCH, body, 422, "invalid_request", code, -1, field, -1, NULL}
#define PREQ(body, code, field)                                                \
	{PIECES, body, 422, "invalid_request", code, -1, field, -1, NULL}
#define BAD_PATTERN(pattern, code, off)                                        \
	{MATCH, "{\"facelets\": \"" SOLVED3 "\", \"pattern\": \"" pattern "\"}", \
	 422, "invalid_pattern", code, off, "pattern", -1, NULL}
#define PATTERNS_Q(query, code, field)                                         \
	{"GET", "/v1/patterns" query, NO_CT, NULL, 422, "invalid_request",     \
	 code, -1, field, -1, NULL}
#define WITH_F3(rest) "{\"facelets\": \"" SOLVED3 "\", " rest "}"

#define F_U "UUUUUUUUU"
#define F_FDLB "FFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
#define F_REST "RRRRRRRRR" F_FDLB

static const err_case err_cases[] = {
	/* malformed JSON: syntax, empty, duplicate keys, trailing data,
	 * invalid UTF-8 */
	MALFORMED(APPLY, "not json"),
	MALFORMED(APPLY, ""),
	MALFORMED(APPLY, "{\"moves\": \"R\""),
	MALFORMED(APPLY, "{\"size\": 3, \"moves\": \"R\", \"moves\": \"U\"}"),
	MALFORMED(APPLY, "{\"size\": 3} x"),
	MALFORMED(APPLY, "{\"size\": 3}{}"),
	MALFORMED(APPLY, "{\"size\": 3, \"moves\": \"\xff\xfe\"}"),
	MALFORMED(ALG, "{\"moves\": 'R'}"),
	MALFORMED(ALG, ""),
	MALFORMED(ALG, "{\"moves\": \"R\",}"),
	/* media type */
	ROUTE("POST", "/v1/apply", "Content-Type: text/plain",
	      "{\"size\": 3, \"moves\": \"R\"}", 415, "unsupported_media_type"),
	ROUTE("POST", "/v1/alg",
	      "Content-Type: application/x-www-form-urlencoded", "moves=R",
	      415, "unsupported_media_type"),
	ROUTE("POST", "/v1/alg", "Content-Type: text/json",
	      "{\"moves\": \"R\"}", 415, "unsupported_media_type"),
	/* invalid requests: checked in the order fields (unknown, type,
	 * presence), size range, facelets length, agreement, letters */
	REQ("[1, 2]", "not_an_object", NULL),
	REQ("\"R\"", "not_an_object", NULL),
	REQ("null", "not_an_object", NULL),
	{ALG, "42", 422, "invalid_request", "not_an_object", -1, NULL, -1,
	 NULL},
	REQ("{}", "missing_field", "size"),
	REQ("{\"moves\": \"R\"}", "missing_field", "size"),
	REQ("{\"size\": \"3\"}", "wrong_type", "size"),
	REQ("{\"size\": true}", "wrong_type", "size"),
	REQ("{\"size\": 3, \"moves\": 3}", "wrong_type", "moves"),
	REQ("{\"size\": 3, \"moves\": [\"R\"]}", "wrong_type", "moves"),
	REQ("{\"facelets\": 5}", "wrong_type", "facelets"),
	REQ("{\"size\": 0}", "size_out_of_range", "size"),
	REQ("{\"size\": -1}", "size_out_of_range", "size"),
	REQ("{\"size\": 1025}", "size_out_of_range", "size"),
	REQ("{\"size\": 3, \"bogus\": 1}", "unknown_field", "bogus"),
	REQ("{\"size\": 3, \"Moves\": \"R\"}", "unknown_field", "Moves"),
	REQ("{\"size\": 2, \"facelets\": \"" F_U F_REST "\"}", "size_mismatch",
	    "facelets"),
	{ALG, "{}", 422, "invalid_request", "missing_field", -1, "moves", -1,
	 NULL},
	{ALG, "{\"size\": 3}", 422, "invalid_request", "missing_field", -1,
	 "moves", -1, NULL},
	{ALG, "{\"moves\": \"R\", \"size\": 0}", 422, "invalid_request",
	 "size_out_of_range", -1, "size", -1, NULL},
	{ALG, "{\"moves\": \"R\", \"size\": \"4\"}", 422, "invalid_request",
	 "wrong_type", -1, "size", -1, NULL},
	{ALG, "{\"moves\": \"R\", \"facelets\": \"" F_U F_REST "\"}", 422,
	 "invalid_request", "unknown_field", -1, "facelets", -1, NULL},
	/* facelets */
	{APPLY, "{\"facelets\": \"UUUUU\"}", 422, "invalid_facelets",
	 "facelets_length", -1, "facelets", -1, NULL},
	{APPLY, "{\"facelets\": \"\"}", 422, "invalid_facelets",
	 "facelets_length", -1, "facelets", -1, NULL},
	FACELETS("{\"facelets\": \"" F_U "RRXRRRRRR" F_FDLB "\"}",
		 "facelets_letter", 11),
	FACELETS("{\"facelets\": \"uUUUUUUUU" F_REST "\"}", "facelets_letter",
		 0),
	/* letters are checked before the notation */
	FACELETS("{\"facelets\": \"uUUUUUUUU" F_REST "\", \"size\": 3, "
		 "\"moves\": \"Q\"}",
		 "facelets_letter", 0),
	/* notation: offsets are 0-based character indexes */
	NOTATION("{\"moves\": \"R U Q\"}", "unknown_token", 4, "Q"),
	NOTATION("{\"moves\": \"4R\"}", "layer_out_of_range", 0, "4R"),
	NOTATION("{\"moves\": \"R 2-1R\"}", "layer_out_of_range", 2, NULL),
	NOTATION("{\"moves\": \"M\", \"size\": 4}", "slice_on_even_cube", 0,
		 "M"),
	NOTATION("{\"moves\": \"R S\", \"size\": 6}", "slice_on_even_cube", 2,
		 "S"),
	NOTATION("{\"moves\": \"(R U\"}", "unbalanced_bracket", 0, NULL),
	NOTATION("{\"moves\": \"R U)\"}", "unbalanced_bracket", 3, ")"),
	NOTATION("{\"moves\": \"[R, U\"}", "unbalanced_bracket", 0, NULL),
	NOTATION("{\"moves\": \"R'U\"}", "missing_space", 2, "U"),
	NOTATION("{\"moves\": \"R U R1000001\"}", "amount_too_large", 5,
		 "1000001"),
	NOTATION("{\"moves\": \"R U ,\"}", "syntax", 4, ","),
	NOTATION("{\"moves\": \"R U // \\u00fc\\nQ\"}", "unknown_token", 9,
		 "Q"),
	NOTATION("{\"moves\": \"R \\u00e9\"}", "unknown_token", 2,
		 "\xc3\xa9"),
	{APPLY, "{\"size\": 3, \"moves\": \"R U Q\"}", 422, "invalid_notation",
	 "unknown_token", 4, "moves", -1, "Q"},
	{APPLY, "{\"size\": 3, \"moves\": \"4R\"}", 422, "invalid_notation",
	 "layer_out_of_range", 0, "moves", -1, NULL},
	{APPLY, "{\"size\": 4, \"moves\": \"M\"}", 422, "invalid_notation",
	 "slice_on_even_cube", 0, "moves", -1, NULL},
	{APPLY, "{\"size\": 3, \"moves\": \"R'U\"}", 422, "invalid_notation",
	 "missing_space", 2, "moves", -1, NULL},
	/* limits */
	{APPLY, "{\"size\": 3, \"moves\": \"((R)1000)1000\"}", 422,
	 "limit_exceeded", "too_many_moves", -1, "moves", 100000, NULL},
	{APPLY, "{\"size\": 3, \"moves\": \"(R)100001\"}", 422,
	 "limit_exceeded", "too_many_moves", -1, "moves", 100000, NULL},
	{ALG, "{\"moves\": \"((R)1000)1000\"}", 422, "limit_exceeded",
	 "too_many_moves", -1, "moves", 100000, NULL},
	/* apply: format and include */
	REQ("{\"size\": 3, \"format\": \"render\"}", "bad_format", "format"),
	REQ("{\"size\": 3, \"format\": \"Facelets\"}", "bad_format",
	    "format"),
	REQ("{\"size\": 3, \"format\": 1}", "wrong_type", "format"),
	REQ("{\"size\": 3, \"include\": \"render\"}", "wrong_type",
	    "include"),
	REQ("{\"size\": 3, \"include\": [1]}", "wrong_type", "include"),
	REQ("{\"size\": 3, \"include\": [\"colours\"]}", "bad_include",
	    "include"),
	REQ("{\"size\": 3, \"include\": [\"render\", \"render\"]}",
	    "bad_include", "include"),
	REQ("{\"size\": 4, \"format\": \"cubie\"}", "not_applicable",
	    "format"),
	REQ("{\"size\": 1, \"format\": \"index\"}", "not_applicable",
	    "format"),
	REQ("{\"size\": 2, \"include\": [\"features\"]}", "not_applicable",
	    "include"),
	REQ("{\"size\": 5, \"include\": [\"faces\", \"orientation\"]}",
	    "not_applicable", "include"),
	/* the format is checked before the include list */
	REQ("{\"size\": 4, \"format\": \"index\", \"include\": "
	    "[\"cubie\"]}",
	    "not_applicable", "format"),
	TOO_LARGE(APPLY, "{\"size\": 65, \"include\": [\"render\"]}",
		  "include", 64),
	TOO_LARGE(APPLY, "{\"size\": 257, \"format\": \"faces\"}", "format",
		  256),
	TOO_LARGE(APPLY, "{\"size\": 257, \"include\": [\"faces\"]}",
		  "include", 256),
	{APPLY, "{\"size\": 3, \"moves\": \"(R)10001\", \"include\": "
		"[\"animation\"]}",
	 422, "limit_exceeded", "too_many_moves_to_animate", -1, "include",
	 10000, NULL},
	{APPLY, "{\"size\": 3, \"moves\": \"[(R U)2500, F]\", \"include\": "
		"[\"animation\"]}",
	 422, "limit_exceeded", "too_many_moves_to_animate", -1, "include",
	 10000, NULL},
	/* an illegal start state has no cubies */
	{APPLY, "{\"facelets\": \"" TWISTED3 "\", \"format\": \"index\"}",
	 422, "invalid_cube", "invalid_cube", -1, "facelets", -1, NULL},
	{APPLY, "{\"facelets\": \"" TWISTED3 "\", \"include\": "
		"[\"orientation\"]}",
	 422, "invalid_cube", "invalid_cube", -1, "facelets", -1, NULL},
	/* convert: sources */
	CREQ("{}", "one_source", NULL),
	CREQ("{\"size\": 3}", "one_source", NULL),
	CREQ("{\"include\": [\"faces\"]}", "one_source", NULL),
	CREQ("{\"facelets\": \"" SOLVED3 "\", \"size\": 3, \"index\": "
	     "\"0\"}",
	     "one_source", NULL),
	CREQ("{\"size\": 3, \"index\": \"0\", \"cubie\": " CUBIE_ID "}",
	     "one_source", NULL),
	CREQ("{\"index\": \"0\"}", "missing_field", "size"),
	CREQ("{\"cubie\": " CUBIE_ID "}", "missing_field", "size"),
	CREQ("{\"size\": 4, \"index\": \"0\"}", "not_applicable", "size"),
	CREQ("{\"size\": 1, \"cubie\": " CUBIE2_ID "}", "not_applicable",
	     "size"),
	CREQ("{\"size\": 0, \"index\": \"0\"}", "size_out_of_range", "size"),
	CREQ("{\"facelets\": 54}", "wrong_type", "facelets"),
	CREQ("{\"size\": 3, \"index\": 0}", "wrong_type", "index"),
	CREQ("{\"size\": 3, \"cubie\": [1]}", "wrong_type", "cubie"),
	CREQ("{\"facelets\": \"" SOLVED3 "\", \"moves\": \"R\"}",
	     "unknown_field", "moves"),
	CREQ("{\"facelets\": \"" SOLVED2 "\", \"size\": 3}", "size_mismatch",
	     "facelets"),
	/* convert: include */
	CREQ("{\"facelets\": \"" SOLVED3 "\", \"include\": [\"cubie\"]}",
	     "bad_include", "include"),
	CREQ("{\"facelets\": \"" SOLVED3 "\", \"include\": "
	     "[\"animation\"]}",
	     "bad_include", "include"),
	CREQ("{\"facelets\": \"" SOLVED3 "\", \"include\": [\"faces\", "
	     "\"features\", \"faces\"]}",
	     "bad_include", "include"),
	CREQ("{\"facelets\": \"" SOLVED2 "\", \"include\": "
	     "[\"features\"]}",
	     "not_applicable", "include"),
	CREQ("{\"size\": 2, \"index\": \"0\", \"include\": "
	     "[\"features\"]}",
	     "not_applicable", "include"),
	/* convert: index text */
	CREQ("{\"size\": 3, \"index\": \"43252003274489856000\"}",
	     "index_out_of_range", "index"),
	CREQ("{\"size\": 3, \"index\": \"99999999999999999999999999\"}",
	     "index_out_of_range", "index"),
	CREQ("{\"size\": 2, \"index\": \"3674160\"}", "index_out_of_range",
	     "index"),
	CREQ("{\"size\": 3, \"index\": \"0123\"}", "bad_index", "index"),
	CREQ("{\"size\": 3, \"index\": \"\"}", "bad_index", "index"),
	CREQ("{\"size\": 3, \"index\": \"-1\"}", "bad_index", "index"),
	CREQ("{\"size\": 3, \"index\": \" 1\"}", "bad_index", "index"),
	CREQ("{\"size\": 3, \"index\": \"1e3\"}", "bad_index", "index"),
	/* convert: cubie arrays */
	CREQ(CUBIE3_WITH("[0, 1, 2, 3, 4, 5, 6]", ZERO8, ID_EP, ZERO12),
	     "wrong_length", "cubie.cp"),
	CREQ(CUBIE3_WITH(ID_CP, ZERO8, ID_EP, "[0]"), "wrong_length",
	     "cubie.eo"),
	CREQ(CUBIE3_WITH(ID_CP, "[0, 0, 0, 3, 0, 0, 0, 0]", ID_EP, ZERO12),
	     "value_out_of_range", "cubie.co"),
	CREQ(CUBIE3_WITH("[0, 1, 2, 3, 4, 5, 6, 8]", ZERO8, ID_EP, ZERO12),
	     "value_out_of_range", "cubie.cp"),
	CREQ(CUBIE3_WITH(ID_CP, ZERO8, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]",
			 ZERO12),
	     "value_out_of_range", "cubie.ep"),
	CREQ(CUBIE3_WITH(ID_CP, ZERO8, ID_EP,
			 "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]"),
	     "value_out_of_range", "cubie.eo"),
	CREQ(CUBIE3_WITH(ID_CP, ZERO8, ID_EP,
			 "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0]"),
	     "wrong_type", "cubie.eo"),
	CREQ(CUBIE3_WITH(ID_CP, ZERO8, ID_EP, "{}"), "wrong_type", "cubie.eo"),
	CREQ("{\"size\": 3, \"cubie\": {\"cp\": " ID_CP ", \"co\": " ZERO8
	     ", \"ep\": " ID_EP "}}",
	     "missing_field", "cubie.eo"),
	CREQ("{\"size\": 2, \"cubie\": " CUBIE_ID "}", "unknown_field",
	     "cubie.ep"),
	CREQ("{\"size\": 3, \"cubie\": {\"cp\": " ID_CP ", \"co\": " ZERO8
	     ", \"ep\": " ID_EP ", \"eo\": " ZERO12 ", \"xo\": 1}}",
	     "unknown_field", "cubie.xo"),
	/* convert: facelets are checked like /v1/apply's, then legality */
	{CONVERT, "{\"facelets\": \"UUUUU\"}", 422, "invalid_facelets",
	 "facelets_length", -1, "facelets", -1, NULL},
	{CONVERT, "{\"facelets\": \"" F_U "RRXRRRRRR" F_FDLB "\"}", 422,
	 "invalid_facelets", "facelets_letter", 11, "facelets", -1, NULL},
	{CONVERT, "{\"facelets\": \"" TWISTED3 "\"}", 422, "invalid_cube",
	 "invalid_cube", -1, "facelets", -1, NULL},
	{CONVERT, "{\"facelets\": \"UUUFURRRFRFFDDDDLLLLBBBB\"}", 422,
	 "invalid_cube", "invalid_cube", -1, "facelets", -1, NULL},
	{CONVERT, CUBIE3_WITH(ID_CP, "[1, 0, 0, 0, 0, 0, 0, 0]", ID_EP, ZERO12),
	 422, "invalid_cube", "invalid_cube", -1, "cubie", -1, NULL},
	/* validate: malformed requests are still problems */
	{VALIDATE, "{}", 422, "invalid_request", "missing_field", -1,
	 "facelets", -1, NULL},
	{VALIDATE, "{\"facelets\": 54}", 422, "invalid_request", "wrong_type",
	 -1, "facelets", -1, NULL},
	{VALIDATE, "{\"facelets\": null}", 422, "invalid_request",
	 "wrong_type", -1, "facelets", -1, NULL},
	{VALIDATE, "{\"facelets\": \"" SOLVED3 "\", \"size\": 3}", 422,
	 "invalid_request", "unknown_field", -1, "size", -1, NULL},
	{VALIDATE, "[\"" SOLVED3 "\"]", 422, "invalid_request",
	 "not_an_object", -1, NULL, -1, NULL},
	MALFORMED(VALIDATE, "{\"facelets\": \"" SOLVED3 "\""),
	MALFORMED(CONVERT, ""),
	ROUTE("GET", "/v1/convert", NO_CT, NULL, 405, "method_not_allowed"),
	ROUTE("PUT", "/v1/validate", NULL, "{}", 405, "method_not_allowed"),
	/* routes and methods */
	ROUTE("GET", "/nope", NO_CT, NULL, 404, "not_found"),
	ROUTE("GET", "/v1/apply/extra", NO_CT, NULL, 404, "not_found"),
	ROUTE("POST", "/v1/nope", NULL, "{}", 404, "not_found"),
	ROUTE("GET", "/v1/apply", NO_CT, NULL, 405, "method_not_allowed"),
	ROUTE("PUT", "/v1/alg", NULL, "{\"moves\": \"R\"}", 405,
	      "method_not_allowed"),
	ROUTE("DELETE", "/v1/apply", NO_CT, NULL, 405, "method_not_allowed"),
	ROUTE("POST", "/healthz", NULL, "{}", 405, "method_not_allowed"),

	/* match: the pattern's first bad place */
	BAD_PATTERN("UUUUUUUUURRRRRRRRRFFxFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		    "bad_pattern_char", 20),
	BAD_PATTERN("?UUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		    "bad_pattern_char", 0),
	BAD_PATTERN("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBB\u00e9",
		    "bad_pattern_char", 53),
	BAD_PATTERN("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBB7",
		    "bad_pattern_digit", 53),
	BAD_PATTERN("12345601*RRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB",
		    "bad_pattern_digit", 6),
	BAD_PATTERN("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBB",
		    "facelets_length", 53),
	BAD_PATTERN("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB*",
		    "facelets_length", 54),
	BAD_PATTERN("", "facelets_length", 0),
	/* a bad character before the length is the first bad place */
	BAD_PATTERN("UUUx", "bad_pattern_char", 3),
	BAD_PATTERN("UUU8", "bad_pattern_digit", 3),
	/* a pattern of another size */
	MREQ(WITH_F3("\"pattern\": \"" SOLVED2 "\""), "size_mismatch",
	     "pattern"),
	MREQ(WITH_F3("\"pattern\": \"URFDLB\""), "size_mismatch", "pattern"),
	/* names: for the size, exact spelling */
	MREQ(WITH_F3("\"name\": \"crosss\""), "unknown_pattern", "name"),
	MREQ(WITH_F3("\"name\": \"Cross\""), "unknown_pattern", "name"),
	MREQ(WITH_F3("\"name\": \"centers_solved\""), "unknown_pattern", "name"),
	MREQ("{\"facelets\": \"" SOLVED2 "\", \"name\": \"cross\"}",
	     "unknown_pattern", "name"),
	MREQ(WITH_F3("\"name\": \"\""), "unknown_pattern", "name"),
	/* exactly one of pattern and name; strict fields */
	MREQ(WITH_F3("\"name\": \"cross\", \"pattern\": \"" SOLVED3 "\""),
	     "one_source", NULL),
	MREQ("{\"facelets\": \"" SOLVED3 "\"}", "one_source", NULL),
	MREQ("{\"name\": \"cross\"}", "missing_field", "facelets"),
	MREQ(WITH_F3("\"name\": \"cross\", \"first\": 1"), "wrong_type",
	     "first"),
	MREQ(WITH_F3("\"name\": \"cross\", \"first\": \"yes\""), "wrong_type",
	     "first"),
	MREQ(WITH_F3("\"name\": 3"), "wrong_type", "name"),
	MREQ(WITH_F3("\"pattern\": null"), "wrong_type", "pattern"),
	MREQ(WITH_F3("\"name\": \"cross\", \"size\": 3"), "unknown_field",
	     "size"),
	MREQ("[]", "not_an_object", NULL),
	/* facelets: length and letters only */
	{MATCH, "{\"facelets\": \"UUUUUUUUURRXRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\", "
		"\"name\": \"cross\"}",
	 422, "invalid_facelets", "facelets_letter", 11, "facelets", -1, NULL},
	{MATCH, "{\"facelets\": \"UUUUU\", \"name\": \"cross\"}", 422,
	 "invalid_facelets", "facelets_length", -1, "facelets", -1, NULL},
	MALFORMED(MATCH, ""),
	ROUTE("GET", "/v1/match", NO_CT, NULL, 405, "method_not_allowed"),

	/* patterns: size, strictly */
	{"GET", "/v1/patterns?size=65", NO_CT, NULL, 422, "limit_exceeded",
	 "too_large_for_representation", -1, "size", 64, NULL},
	{"GET", "/v1/patterns?size=1024", NO_CT, NULL, 422, "limit_exceeded",
	 "too_large_for_representation", -1, "size", 64, NULL},
	PATTERNS_Q("", "missing_parameter", "size"),
	PATTERNS_Q("?", "missing_parameter", "size"),
	PATTERNS_Q("?size=0", "size_out_of_range", "size"),
	PATTERNS_Q("?size=1025", "size_out_of_range", "size"),
	PATTERNS_Q("?size=99999999999999999999", "size_out_of_range", "size"),
	PATTERNS_Q("?size=", "wrong_type", "size"),
	PATTERNS_Q("?size", "wrong_type", "size"),
	PATTERNS_Q("?size=3x", "wrong_type", "size"),
	PATTERNS_Q("?size=-3", "wrong_type", "size"),
	PATTERNS_Q("?size=%2B3", "wrong_type", "size"),
	PATTERNS_Q("?size=3&n=3", "unknown_parameter", "n"),
	PATTERNS_Q("?Size=3", "unknown_parameter", "Size"),
	PATTERNS_Q("?size=3&size=3", "duplicate_parameter", "size"),
	PATTERNS_Q("?size=3%00", "bad_parameter", "size"),
	ROUTE("POST", "/v1/patterns", NULL, "{}", 405, "method_not_allowed"),
	ROUTE("DELETE", "/v1/patterns?size=3", NO_CT, NULL, 405,
	      "method_not_allowed"),

	/* pieces */
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": \"UD\"}",
	     "unknown_piece", "piece"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": \"URFD\"}",
	     "unknown_piece", "piece"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": \"UUR\"}",
	     "unknown_piece", "piece"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": \"urf\"}",
	     "unknown_piece", "piece"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": \"\"}",
	     "unknown_piece", "piece"),
	PREQ("{\"facelets\": \"" AFTER_R2X2 "\", \"piece\": \"UR\"}",
	     "not_applicable", "piece"),
	PREQ("{\"facelets\": \"URFDLB\"}", "not_applicable", "facelets"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"piece\": 0}", "wrong_type",
	     "piece"),
	PREQ("{\"piece\": \"URF\"}", "missing_field", "facelets"),
	PREQ("{\"facelets\": \"" AFTER_R "\", \"name\": \"URF\"}",
	     "unknown_field", "name"),
	{PIECES, "{\"facelets\": \"" TWISTED3 "\", \"piece\": \"URF\"}", 422,
	 "invalid_cube", "invalid_cube", -1, "facelets", -1, NULL},
	{PIECES, "{\"facelets\": \"" TWISTED3 "\"}", 422, "invalid_cube",
	 "invalid_cube", -1, "facelets", -1, NULL},
	{PIECES, "{\"facelets\": \"UUUURRRRFFFFDDDDLLLLBBBX\"}", 422,
	 "invalid_facelets", "facelets_letter", 23, "facelets", -1, NULL},
	ROUTE("GET", "/v1/pieces", NO_CT, NULL, 405, "method_not_allowed"),
};

static void run_err_case(const err_case *c)
{
	char what[600];
	snprintf(what, sizeof what, "%s %s [%s] %.400s", c->method, c->path,
		 c->ctype ? c->ctype : "application/json",
		 c->body ? c->body : "(no body)");
	const char *hdr[2] = {NULL, NULL};
	if (!c->ctype)
		hdr[0] = "Content-Type: application/json";
	else if (*c->ctype)
		hdr[0] = c->ctype;
	http_response r;
	req(&r, c->method, c->path, hdr, c->body);
	check_problem(&r, what, c->status, c->kind, c->code, c->offset,
		      c->field, c->limit);
	if (c->token) {
		json_t *j = parse(&r, what);
		const char *t = json_string_value(json_object_get(j, "token"));
		ck_assert_msg(t && strcmp(t, c->token) == 0,
			      "%s: token %s, expected %s: %s", what, t,
			      c->token, r.body);
		json_decref(j);
	}
	if (c->status == 405) {
		const char *allow = http_header(&r, "Allow");
		const char *want = strcmp(c->path, "/healthz") == 0 ||
						   strncmp(c->path, "/v1/patterns",
							   12) == 0
					   ? "GET, HEAD, OPTIONS"
					   : "POST, OPTIONS";
		ck_assert_msg(allow && strcmp(allow, want) == 0,
			      "%s: Allow is %s, expected %s", what, allow,
			      want);
	}
	http_response_free(&r);
}

START_TEST(error_cases)
{
	run_err_case(&err_cases[_i]);
}
END_TEST

/* Brackets nest up to 64 deep; the 65th opening bracket is refused
 * where it stands. */
START_TEST(nesting_depth)
{
	char moves[200], body[300];
	for (int depth = 64; depth <= 65; depth++) {
		int k = 0;
		for (int i = 0; i < depth; i++)
			moves[k++] = '(';
		moves[k++] = 'R';
		for (int i = 0; i < depth; i++)
			moves[k++] = ')';
		moves[k] = '\0';
		snprintf(body, sizeof body, "{\"moves\": \"%s\"}", moves);
		http_response r;
		post_json(&r, "/v1/alg", body);
		if (depth == 64)
			check_json_reply(&r, "64 nested groups", 200,
					 "{\"length\": 1, \"expanded\": \"R\"}");
		else
			check_problem(&r, "65 nested groups", 422,
				      "invalid_notation", "nesting_too_deep",
				      64, NULL, -1);
		http_response_free(&r);
	}
}
END_TEST

/* A body just over the 1 MiB default is refused; one of exactly 1 MiB
 * (valid JSON padded with spaces) is served. */
START_TEST(body_size_limit)
{
	size_t max = 1048576;
	char *big = malloc(max + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', max + 1);
	memcpy(big, "{\"size\": 3}", 11);
	big[max + 1] = '\0';

	http_response r;
	ck_assert_msg(http_request(srv.port, "POST", "/v1/apply", JSON_CT, big,
				   max + 1, &r) == 0,
		      "1 MiB + 1: %s", r.error);
	check_problem(&r, "POST /v1/apply with 1 MiB + 1 bytes", 413,
		      "body_too_large", "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);

	ck_assert_msg(http_request(srv.port, "POST", "/v1/apply", JSON_CT, big,
				   max, &r) == 0,
		      "1 MiB: %s", r.error);
	check_json_reply(&r, "POST /v1/apply with exactly 1 MiB", 200,
			 "{\"size\": 3, \"facelets\": \"" SOLVED3 "\"}");
	http_response_free(&r);

	/* far over: the server may answer before reading it all */
	size_t huge = 8 * max;
	char *h = malloc(huge);
	ck_assert_ptr_nonnull(h);
	memset(h, ' ', huge);
	h[0] = '{';
	h[huge - 1] = '}';
	ck_assert_msg(http_request(srv.port, "POST", "/v1/alg", JSON_CT, h,
				   huge, &r) == 0,
		      "8 MiB: %s", r.error);
	check_problem(&r, "POST /v1/alg with 8 MiB", 413, "body_too_large",
		      "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);
	free(h);
	free(big);
}
END_TEST

/* Expect: 100-continue: a too-large Content-Length is refused before
 * the upload; an acceptable one gets "100 Continue", then the answer. */
START_TEST(expect_100_continue)
{
	int fd = http_connect(srv.port, 15000);
	ck_assert_int_ge(fd, 0);
	const char *big = "POST /v1/apply HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			  "Content-Type: application/json\r\n"
			  "Content-Length: 2097152\r\n"
			  "Expect: 100-continue\r\n\r\n";
	ck_assert_int_eq(send(fd, big, strlen(big), MSG_NOSIGNAL),
			 (ssize_t)strlen(big));
	http_response r;
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect with 2 MiB: %s", r.error);
	check_problem(&r, "Expect: 100-continue with 2 MiB announced", 413,
		      "body_too_large", "body_too_large", -1, NULL, 1048576);
	http_response_free(&r);
	close(fd);

	fd = http_connect(srv.port, 15000);
	ck_assert_int_ge(fd, 0);
	const char *body = "{\"size\": 3, \"moves\": \"R\"}";
	char head[256];
	snprintf(head, sizeof head,
		 "POST /v1/apply HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Content-Type: application/json\r\nContent-Length: %zu\r\n"
		 "Expect: 100-continue\r\nConnection: close\r\n\r\n",
		 strlen(body));
	ck_assert_int_eq(send(fd, head, strlen(head), MSG_NOSIGNAL),
			 (ssize_t)strlen(head));
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect with a small body: %s", r.error);
	ck_assert_msg(r.status == 100, "Expect with a small body: status %d "
				       "before the body was sent",
		      r.status);
	http_response_free(&r);
	ck_assert_int_eq(send(fd, body, strlen(body), MSG_NOSIGNAL),
			 (ssize_t)strlen(body));
	ck_assert_msg(http_read_response(fd, "POST", &r) == 0,
		      "Expect, final answer: %s", r.error);
	check_json_reply(&r, "Expect: 100-continue, small body", 200,
			 "{\"facelets\": \"" AFTER_R "\"}");
	http_response_free(&r);
	close(fd);
}
END_TEST

/* A missing Content-Type is accepted as JSON. */
START_TEST(content_type_missing_is_json)
{
	http_response r;
	req(&r, "POST", "/v1/apply", NULL, "{\"size\": 3, \"moves\": \"R\"}");
	check_json_reply(&r, "POST /v1/apply without Content-Type", 200,
			 "{\"facelets\": \"" AFTER_R "\"}");
	http_response_free(&r);
	req(&r, "POST", "/v1/alg", NULL, "{\"moves\": \"R\"}");
	check_json_reply(&r, "POST /v1/alg without Content-Type", 200,
			 "{\"canonical\": \"R\"}");
	http_response_free(&r);
}
END_TEST

/* application/json with parameters, in any case, is still JSON (RFC 9110:
 * media types are case-insensitive, parameters follow a ';'). */
START_TEST(content_type_with_parameters)
{
	static const char *cts[] = {
		"Content-Type: application/json; charset=utf-8",
		"Content-Type: application/json;charset=UTF-8",
		"Content-Type: Application/JSON",
	};
	for (size_t i = 0; i < sizeof cts / sizeof *cts; i++) {
		const char *hdr[] = {cts[i], NULL};
		http_response r;
		req(&r, "POST", "/v1/apply", hdr,
		    "{\"size\": 3, \"moves\": \"R\"}");
		check_json_reply(&r, cts[i], 200,
				 "{\"facelets\": \"" AFTER_R "\"}");
		http_response_free(&r);
	}
}
END_TEST

/* openapi.yaml's PreflightPost. */
#define ALLOW_HEADERS                                                          \
	"Content-Type, Authorization, If-Match, If-None-Match, "               \
	"Idempotency-Key, Last-Event-ID, traceparent, tracestate, "            \
	"X-Request-Id"

START_TEST(cors_preflight)
{
	static const char *const pre[] = {
		"Origin: http://example.test",
		"Access-Control-Request-Method: POST",
		"Access-Control-Request-Headers: content-type", NULL};
	static const char *paths[] = {"/v1/apply",    "/v1/alg",
				      "/v1/convert",  "/v1/validate",
				      "/v1/match",    "/v1/pieces"};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		http_response r;
		req(&r, "OPTIONS", paths[i], pre, NULL);
		ck_assert_msg(r.status == 204, "OPTIONS %s: status %d",
			      paths[i], r.status);
		check_cors(&r, "OPTIONS preflight");
		const char *m =
			http_header(&r, "Access-Control-Allow-Methods");
		ck_assert_msg(m && strcmp(m, "POST, OPTIONS") == 0,
			      "OPTIONS %s: Access-Control-Allow-Methods %s",
			      paths[i], m);
		const char *h =
			http_header(&r, "Access-Control-Allow-Headers");
		ck_assert_msg(h && contains_nocase(h, "content-type") &&
				      strcmp(h, ALLOW_HEADERS) == 0,
			      "OPTIONS %s: Access-Control-Allow-Headers %s",
			      paths[i], h);
		const char *age = http_header(&r, "Access-Control-Max-Age");
		ck_assert_msg(age && strcmp(age, "86400") == 0,
			      "OPTIONS %s: Access-Control-Max-Age %s", paths[i],
			      age);
		ck_assert_uint_eq(r.body_len, 0);
		http_response_free(&r);
	}
	http_response r;
	req(&r, "OPTIONS", "/nope", pre, NULL);
	check_problem(&r, "OPTIONS /nope", 404, "not_found", "not_found", -1,
		      NULL, -1);
	http_response_free(&r);
}
END_TEST

/* Every kind of reply carries the CORS origin header, once. */
START_TEST(cors_on_every_reply)
{
	static const struct {
		const char *method, *path, *body;
	} cases[] = {
		{"GET", "/healthz", NULL},
		{"POST", "/v1/apply", "{\"moves\": \"R\"}"},
		{"POST", "/v1/alg", "{\"moves\": \"R\"}"},
		{"POST", "/v1/apply", "{\"moves\": \"Q\"}"},
		{"POST", "/v1/apply", "nope"},
		{"GET", "/nope", NULL},
		{"GET", "/v1/apply", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		http_response r;
		req(&r, cases[i].method, cases[i].path,
		    cases[i].body ? JSON_CT : NULL, cases[i].body);
		char what[128];
		snprintf(what, sizeof what, "%s %s", cases[i].method,
			 cases[i].path);
		check_cors(&r, what);
		ck_assert_msg(http_header_count(&r,
						"Access-Control-Allow-Origin") ==
				      1,
			      "%s: Access-Control-Allow-Origin sent %d times",
			      what,
			      http_header_count(&r,
						"Access-Control-Allow-Origin"));
		http_response_free(&r);
	}
}
END_TEST

/* Bad input never takes the server down: after everything above (tests
 * run in order), it still answers. */
START_TEST(still_healthy)
{
	http_response r;
	req(&r, "GET", "/healthz", NULL, NULL);
	check_json_reply(&r, "GET /healthz at the end", 200,
			 "{\"status\": \"ok\"}");
	http_response_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Limits set on the command line (the "limits" server).               */

START_TEST(configured_limits)
{
	http_response r;
	/* --max-body 1000 */
	char body[1002];
	memset(body, ' ', 1001);
	memcpy(body, "{\"size\": 3}", 11);
	body[1001] = '\0';
	ck_assert_int_eq(http_request(srv.port, "POST", "/v1/apply", JSON_CT,
				      body, 1000, &r),
			 0);
	check_json_reply(&r, "1000-byte body, --max-body 1000", 200,
			 "{\"size\": 3}");
	http_response_free(&r);
	ck_assert_int_eq(http_request(srv.port, "POST", "/v1/apply", JSON_CT,
				      body, 1001, &r),
			 0);
	check_problem(&r, "1001-byte body, --max-body 1000", 413,
		      "body_too_large", "body_too_large", -1, NULL, 1000);
	http_response_free(&r);

	/* --max-moves 10 */
	post_json(&r, "/v1/apply", "{\"size\": 3, \"moves\": \"(R)10\"}");
	check_json_reply(&r, "(R)10 with --max-moves 10", 200,
			 "{\"moves\": {\"length\": 10}}");
	http_response_free(&r);
	post_json(&r, "/v1/apply", "{\"size\": 3, \"moves\": \"(R)11\"}");
	check_problem(&r, "(R)11 with --max-moves 10", 422, "limit_exceeded",
		      "too_many_moves", -1, "moves", 10);
	http_response_free(&r);
	post_json(&r, "/v1/alg", "{\"moves\": \"[R, U]3\"}");
	check_problem(&r, "[R, U]3 with --max-moves 10", 422, "limit_exceeded",
		      "too_many_moves", -1, "moves", 10);
	http_response_free(&r);

	/* --max-work 1000: a whole-cube turn of a 100-cube moves 60000
	 * stickers */
	post_json(&r, "/v1/apply", "{\"size\": 100, \"moves\": \"x\"}");
	check_problem(&r, "x on n=100 with --max-work 1000", 422,
		      "limit_exceeded", "too_much_work", -1, "moves", 1000);
	http_response_free(&r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Clean shutdown.                                                     */

/* The fixture servers were stopped with SIGTERM by the teardowns that
 * ran before this case; they must have exited with status 0. Run alone
 * (CK_RUN_CASE=shutdown), it starts and stops a server of its own. */
START_TEST(fixture_server_exited_cleanly)
{
	char why[128];
	if (last_exit == -2) {
		server s;
		start_or_abort(&s, NULL, NULL);
		http_response r;
		ck_assert_int_eq(http_request(s.port, "GET", "/healthz", NULL,
					      NULL, 0, &r),
				 0);
		http_response_free(&r);
		last_exit = stop_keeping_log(&s, last_exit_log, sizeof last_exit_log);
	}
	ck_assert_msg(last_exit == 0,
		      "after SIGTERM the server %s; the end of its log:\n%s",
		      describe_status(last_exit, why, sizeof why),
		      last_exit_log);
}
END_TEST

/* SIGTERM while a client holds an idle keep-alive connection and another
 * is half-way through sending a request: still a prompt exit 0. */
START_TEST(sigterm_with_open_connections)
{
	server s;
	char why[128];
	/* no solver: the exit bound is about the connections, not about
	 * stopping a table load that a loaded machine makes slow */
	const char *const extra[] = {"--solver", "0", NULL};
	start_or_abort(&s, NULL, extra);
	int idle = http_connect(s.port, 15000);
	ck_assert_int_ge(idle, 0);
	http_response r;
	ck_assert_int_eq(http_send(idle, s.port, "GET", "/healthz", NULL, NULL,
				   0, 0, &r),
			 0);
	ck_assert_int_eq(r.status, 200);
	http_response_free(&r);
	int half = http_connect(s.port, 15000);
	ck_assert_int_ge(half, 0);
	const char *partial = "POST /v1/apply HTTP/1.1\r\nHost: x\r\n"
			      "Content-Length: 100\r\n\r\n{\"mo";
	ck_assert_int_gt(send(half, partial, strlen(partial), MSG_NOSIGNAL),
			 0);
	test_sleep_ms(100);
	double t0 = test_now();
	int st = stop_keeping_log(&s, NULL, 0);
	double took = test_now() - t0;
	close(idle);
	close(half);
	ck_assert_msg(st == 0, "after SIGTERM with open connections the "
			       "server %s",
		      describe_status(st, why, sizeof why));
	ck_assert_msg(took < 5.0, "shutdown took %.1f s", took);
}
END_TEST

Suite *http_suite(void)
{
	Suite *s = suite_create("http");
	TCase *tc;

	tc = tcase_create("api");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, fixture_default_setup,
				    fixture_teardown);
	tcase_add_test(tc, healthz);
	tcase_add_test(tc, healthz_head_and_options);
	tcase_add_test(tc, openapi_document);
	tcase_add_loop_test(tc, success_cases, 0,
			    (int)(sizeof ok_cases / sizeof *ok_cases));
	tcase_add_loop_test(tc, error_cases, 0,
			    (int)(sizeof err_cases / sizeof *err_cases));
	tcase_add_test(tc, nesting_depth);
	tcase_add_test(tc, validate_broken_cubes_golden);
	tcase_add_test(tc, convert_round_trips);
	tcase_add_test(tc, convert_rotated_cube);
	tcase_add_test(tc, convert_invalid_cubies);
	tcase_add_test(tc, validate_unchecked);
	tcase_add_test(tc, validate_many_problems);
	tcase_add_test(tc, render_cubies);
	tcase_add_test(tc, representation_size_limits);
	tcase_add_test(tc, features_vector);
	tcase_add_test(tc, apply_format_keys);
	tcase_add_test(tc, animation_limit);
	tcase_add_test(tc, apply_size_1024);
	tcase_add_test(tc, match_solved_every_orientation);
	tcase_add_test(tc, match_cross_after_r_u_ri);
	tcase_add_test(tc, match_seed_2x2);
	tcase_add_test(tc, match_named_against_core);
	tcase_add_test(tc, patterns_list);
	tcase_add_test(tc, pieces_after_r);
	tcase_add_test(tc, keep_alive);
	tcase_add_test(tc, body_size_limit);
	tcase_add_test(tc, expect_100_continue);
	tcase_add_test(tc, content_type_missing_is_json);
	tcase_add_test(tc, content_type_with_parameters);
	tcase_add_test(tc, cors_preflight);
	tcase_add_test(tc, cors_on_every_reply);
	tcase_add_test(tc, still_healthy);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, fixture_limits_setup,
				    fixture_teardown);
	tcase_add_test(tc, configured_limits);
	suite_add_tcase(s, tc);

	tc = tcase_create("shutdown");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fixture_server_exited_cleanly);
	tcase_add_test(tc, sigterm_with_open_connections);
	suite_add_tcase(s, tc);

	return s;
}
