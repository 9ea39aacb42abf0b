/* http_helpers.h — what the three files of the http suite share
 * (check_http.c, check_http_cube.c, check_http_transport.c): the server of
 * the current test case and one-exchange requests on it, the checks of a
 * reply (status, media type, CORS headers, then exact JSON members or the
 * details of a problem), and the cube states and cubies the tests expect,
 * exactly. The assertions are Check's: call these from inside tests. */
#ifndef CUBED_TEST_HTTP_HELPERS_H
#define CUBED_TEST_HTTP_HELPERS_H

#include <check.h>

#include "http_client.h"
#include "session_helpers.h"

/* The server of the http suite's current test case: check_http.c's
 * unchecked fixtures start and stop it, and the forked tests inherit it. */
extern server srv;

/* A Content-Type: application/json header list. */
extern const char *const JSON_CT[];

/* One request to srv on a fresh connection; the exchange must complete. */
void req(http_response *r, const char *method, const char *path,
	 const char *const *headers, const char *body);
/* req of a JSON body. */
void post_json(http_response *r, const char *path, const char *body);

/* The CORS headers every reply carries. */
void check_cors(const http_response *r, const char *what);
/* A JSON reply of this status (with the CORS headers) that has every
 * member of expect (JSON) with an equal value; it may have more. */
void check_json_reply(const http_response *r, const char *what,
		      int status, const char *expect);
/* An RFC 9457 problem reply of the given kind. code / field may be NULL
 * (not checked, but present as a string), offset / limit may be -1 (not
 * checked). */
void check_problem(const http_response *r, const char *what, int status,
		   const char *kind, const char *code, long offset,
		   const char *field, long limit);

/* The cases of check_http_cube.c and of check_http_transport.c, added to
 * the suite's "api" case (check_http.c) in their place in its order. */
void http_cube_tests(TCase *tc);
void http_transport_tests(TCase *tc);

/* Cube states, as facelets. */
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
/* Seed 000's 2×2 first layer (A = U; A.up = B, A.right = R, A.left = L,
 * A.down = F: each side's strip next to U is its top row). */
#define SEED2 "1111" "33**" "55**" "****" "44**" "22**"

#endif
