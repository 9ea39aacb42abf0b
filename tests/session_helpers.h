/* session_helpers.h — what the black-box session suites share: spawning
 * build/cubed on a free loopback port with a database in a temporary
 * directory (and stopping it), one-exchange requests whose status, media
 * type and problem details are asserted, and small JSON accessors. The
 * assertions are Check's: call these from inside tests. */
#ifndef CUBED_TEST_SESSION_HELPERS_H
#define CUBED_TEST_SESSION_HELPERS_H

#include <sys/types.h>

#include <check.h>
#include <jansson.h>

#include "http_client.h"

typedef struct server {
	pid_t pid;
	int port;
	char dir[64];
	char log[96];
} server;


typedef struct ses {
	char id[48];
	char token[48];
	char path[96];
} ses;

void sleep_ms(int ms);

double now_s(void);

const char *log_tail(const server *s, char *buf, size_t cap);

void remove_dir(const char *dir);

int listening_lines(const char *path, const char *marker, int *port);

int server_start(server *s, const char *dir, const char *const *extra,
			char *err, size_t errlen);

int server_stop(server *s, int remove);

void call(http_response *r, int port, const char *method,
		 const char *path, const char *token, const char *hdr,
		 const char *body);

json_t *parse(const http_response *r, const char *what);

int media_type_is(const char *ct, const char *want);

json_t *expect_json(int port, const char *method, const char *path,
			   const char *token, const char *hdr,
			   const char *body, int status, http_response *keep);

json_t *expect_problem(int port, const char *method, const char *path,
			      const char *token, const char *hdr,
			      const char *body, int status, const char *kind,
			      const char *code, const char *field,
			      http_response *keep);

const char *sget(const json_t *j, const char *key);

long long iget(const json_t *j, const char *key);

int bget(const json_t *j, const char *key);

void expect_etag(const http_response *r, long long version,
			const char *what);

json_t *create(int port, const char *body, ses *out);

char *apply(int port, const char *facelets, const char *moves);

json_t *get_session(int port, const char *path, const char *token,
			   long long want_version);

json_t *history_all(int port, const ses *s, const char *token,
			   int limit);

#endif
