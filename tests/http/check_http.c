/* check_http.c — black-box tests of the real server binary over HTTP:
 * the http suite, its servers, and the stateless API's contract by table
 * (every route's exact success replies and exact problem replies), health
 * and the OpenAPI document, limits set on the command line, and a clean
 * exit on SIGTERM. The suite's other cases are in check_http_cube.c
 * (representations and patterns) and check_http_transport.c (keep-alive,
 * body size, Expect, Content-Type, CORS); what the three share is in
 * http_helpers.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "http_helpers.h"
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

/* The server of the current test case (inherited by the forked tests;
 * http_helpers.h declares it for the suite's other files), and how the
 * last fixture server exited: -2 = none stopped yet. */
server srv;
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
/* Success cases: exact values.                                        */

#define STANDARD "{\"up\": \"U\", \"front\": \"F\", \"moves\": \"\"}"
#define LAST3 "43252003274489855999"
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
 * is half-way through sending a request: still a prompt exit 0. The
 * signal goes once the server has taken both: when its gauge of open
 * connections, asked on the idle one, counts two. */
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
	long long open_now = -1;
	for (double until = test_now() + 5;;) {
		ck_assert_int_eq(http_send(idle, s.port, "GET", "/metrics", NULL,
					   NULL, 0, 0, &r),
				 0);
		ck_assert_int_eq(r.status, 200);
		open_now = (long long)http_metric(r.body,
						  "cubed_http_connections");
		ck_assert_msg(open_now >= 0,
			      "no cubed_http_connections in /metrics");
		http_response_free(&r);
		if (open_now >= 2 || test_now() > until)
			break;
		test_sleep_ms(10); /* polling the gauge, with a deadline */
	}
	ck_assert_msg(open_now == 2,
		      "/metrics counts %lld connections open, not the idle "
		      "one and the half-sent one",
		      open_now);
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
	http_cube_tests(tc);
	http_transport_tests(tc);
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
