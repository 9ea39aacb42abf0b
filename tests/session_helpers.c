/* session_helpers.c — see session_helpers.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session_helpers.h"

/* ------------------------------------------------------------------ */
/* Spawning and stopping servers.                                      */


void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *log_tail(const server *s, char *buf, size_t cap)
{
	buf[0] = '\0';
	FILE *f = fopen(s->log, "r");
	if (!f)
		return buf;
	fseek(f, 0, SEEK_END);
	long end = ftell(f);
	long start = end > (long)cap - 1 ? end - (long)cap + 1 : 0;
	fseek(f, start, SEEK_SET);
	size_t k = fread(buf, 1, cap - 1, f);
	buf[k] = '\0';
	fclose(f);
	return buf;
}

/* Remove the server's directory: the database, its log, and whatever
 * else the server keeps next to its database. */
void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char p[400];
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* How many lines of the log at path contain marker followed by a port
 * (the last port goes to *port if not NULL). */
int listening_lines(const char *path, const char *marker, int *port)
{
	FILE *f = fopen(path, "r");
	int seen = 0;
	if (!f)
		return 0;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *m = strstr(line, marker);
		if (m && strchr(line, '\n')) {
			seen++;
			if (port)
				*port = atoi(m + strlen(marker));
		}
	}
	fclose(f);
	return seen;
}

/* Start a server on the database in dir (a new temporary directory when
 * dir is NULL), with extra arguments (NULL-terminated, may be NULL).
 * Returns 0, or -1 with a reason in err. */
int server_start(server *s, const char *dir, const char *const *extra,
			char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	const char *bin = getenv("CUBED_BIN");
	if (!bin || !*bin)
		bin = "build/cubed";
	if (access(bin, X_OK) != 0) {
		snprintf(err, errlen, "server binary %s: %s", bin,
			 strerror(errno));
		return -1;
	}
	if (dir) {
		snprintf(s->dir, sizeof s->dir, "%s", dir);
	} else {
		snprintf(s->dir, sizeof s->dir, "/tmp/cubed-ses-XXXXXX");
		if (!mkdtemp(s->dir)) {
			snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
			return -1;
		}
	}
	snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
	char db[96];
	snprintf(db, sizeof db, "%s/cubed.db", s->dir);
	const char *argv[32];
	int argc = 0;
	argv[argc++] = bin;
	argv[argc++] = "--port";
	argv[argc++] = "0";
	argv[argc++] = "--bind";
	argv[argc++] = "127.0.0.1";
	argv[argc++] = "--db";
	argv[argc++] = db;
	for (const char *const *e = extra; e && *e && argc < 31; e++)
		argv[argc++] = *e;
	argv[argc] = NULL;

	/* The log is appended to across restarts on one directory: count the
	 * listening lines already there, then wait for one more. */
	static const char marker[] = "cubed: listening on http://127.0.0.1:";
	int before = listening_lines(s->log, marker, NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int nul = open("/dev/null", O_RDONLY);
		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	s->pid = pid;
	double deadline = now_s() + 10.0;
	char buf[1536];
	while (now_s() < deadline) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			s->pid = 0;
			snprintf(err, errlen,
				 "server exited before listening (status "
				 "0x%x); its log:\n%s",
				 st, log_tail(s, buf, sizeof buf));
			return -1;
		}
		int port = 0;
		if (listening_lines(s->log, marker, &port) > before) {
			s->port = port;
			return 0;
		}
		sleep_ms(20);
	}
	snprintf(err, errlen, "server did not listen within 10 s; its log:\n%s",
		 log_tail(s, buf, sizeof buf));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	s->pid = 0;
	return -1;
}

/* SIGTERM and wait up to 10 s: the wait status, or -1 if it had to be
 * killed. The directory (and database) stay unless remove is set. */
int server_stop(server *s, int remove)
{
	int status = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		double deadline = now_s() + 10.0;
		int done = 0;
		while (now_s() < deadline) {
			if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
				done = 1;
				break;
			}
			sleep_ms(10);
		}
		if (!done) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			status = -1;
		}
		s->pid = 0;
	}
	if (remove && s->dir[0] && !getenv("CUBED_KEEP_TMP"))
		remove_dir(s->dir);
	return status;
}





/* ------------------------------------------------------------------ */
/* Requests.                                                           */

/* One exchange on a fresh connection. token (may be NULL) becomes
 * "Authorization: Bearer <token>"; hdr (may be NULL) is one more full
 * header line. A body is sent as application/json. */
void call(http_response *r, int port, const char *method,
		 const char *path, const char *token, const char *hdr,
		 const char *body)
{
	char auth[128];
	const char *headers[4];
	int k = 0;
	if (body)
		headers[k++] = "Content-Type: application/json";
	if (token) {
		snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
		headers[k++] = auth;
	}
	if (hdr)
		headers[k++] = hdr;
	headers[k] = NULL;
	int rc = http_request(port, method, path, headers, body,
			      body ? strlen(body) : 0, r);
	ck_assert_msg(rc == 0, "%s %s: %s", method, path, r->error);
}

json_t *parse(const http_response *r, const char *what)
{
	json_error_t e;
	json_t *j = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES,
			       &e);
	ck_assert_msg(j != NULL, "%s: reply is not JSON (%s): %.300s", what,
		      e.text, r->body);
	return j;
}

int media_type_is(const char *ct, const char *want)
{
	if (!ct)
		return 0;
	size_t k = strlen(want);
	return strncasecmp(ct, want, k) == 0 &&
	       (ct[k] == '\0' || ct[k] == ';' || ct[k] == ' ');
}

/* A request whose reply must be status with a JSON body (returned). */
json_t *expect_json(int port, const char *method, const char *path,
			   const char *token, const char *hdr,
			   const char *body, int status, http_response *keep)
{
	http_response r;
	call(&r, port, method, path, token, hdr, body);
	char what[256];
	snprintf(what, sizeof what, "%s %s %.100s", method, path,
		 body ? body : "");
	ck_assert_msg(r.status == status, "%s: status %d, expected %d: %.500s",
		      what, r.status, status, r.body);
	ck_assert_msg(media_type_is(http_header(&r, "Content-Type"),
				    "application/json"),
		      "%s: Content-Type %s", what,
		      http_header(&r, "Content-Type"));
	json_t *j = parse(&r, what);
	if (keep)
		*keep = r;
	else
		http_response_free(&r);
	return j;
}

/* A request whose reply must be a problem of this status, kind and code
 * (field NULL: not checked). Returns the problem (for more checks). */
json_t *expect_problem(int port, const char *method, const char *path,
			      const char *token, const char *hdr,
			      const char *body, int status, const char *kind,
			      const char *code, const char *field,
			      http_response *keep)
{
	http_response r;
	call(&r, port, method, path, token, hdr, body);
	char what[256];
	snprintf(what, sizeof what, "%s %s %.100s%s%s", method, path,
		 body ? body : "", hdr ? " " : "", hdr ? hdr : "");
	ck_assert_msg(r.status == status, "%s: status %d, expected %d: %.500s",
		      what, r.status, status, r.body);
	ck_assert_msg(media_type_is(http_header(&r, "Content-Type"),
				    "application/problem+json"),
		      "%s: Content-Type %s", what,
		      http_header(&r, "Content-Type"));
	json_t *j = parse(&r, what);
	char type[96];
	snprintf(type, sizeof type, "urn:cubed:problem:%s", kind);
	const char *t = json_string_value(json_object_get(j, "type"));
	ck_assert_msg(t && strcmp(t, type) == 0, "%s: type %s, expected %s",
		      what, t, type);
	ck_assert_msg(json_integer_value(json_object_get(j, "status")) ==
			      status,
		      "%s: status member: %s", what, r.body);
	const char *c = json_string_value(json_object_get(j, "code"));
	ck_assert_msg(c && strcmp(c, code) == 0, "%s: code %s, expected %s: %s",
		      what, c, code, r.body);
	ck_assert_msg(json_is_string(json_object_get(j, "detail")) &&
			      json_is_string(json_object_get(j, "title")),
		      "%s: no detail or title: %s", what, r.body);
	if (field) {
		const char *f = json_string_value(json_object_get(j, "field"));
		ck_assert_msg(f && strcmp(f, field) == 0,
			      "%s: field %s, expected %s", what, f, field);
	}
	if (keep)
		*keep = r;
	else
		http_response_free(&r);
	return j;
}

const char *sget(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	ck_assert_msg(s != NULL, "member %s is not a string in %s", key,
		      json_dumps(j, JSON_COMPACT));
	return s;
}

long long iget(const json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	ck_assert_msg(json_is_integer(v), "member %s is not an integer in %s",
		      key, json_dumps(j, JSON_COMPACT));
	return json_integer_value(v);
}

int bget(const json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	ck_assert_msg(json_is_boolean(v), "member %s is not a boolean in %s",
		      key, json_dumps(j, JSON_COMPACT));
	return json_is_true(v);
}

void expect_etag(const http_response *r, long long version,
			const char *what)
{
	char want[32];
	snprintf(want, sizeof want, "\"v%lld\"", version);
	const char *e = http_header(r, "ETag");
	ck_assert_msg(e && strcmp(e, want) == 0, "%s: ETag %s, expected %s",
		      what, e ? e : "(missing)", want);
}

/* A session as created: id and token copied out. */

json_t *create(int port, const char *body, ses *out)
{
	http_response r;
	json_t *j = expect_json(port, "POST", "/v1/sessions", NULL, NULL, body,
				201, &r);
	snprintf(out->id, sizeof out->id, "%s", sget(j, "id"));
	snprintf(out->token, sizeof out->token, "%s", sget(j, "write_token"));
	snprintf(out->path, sizeof out->path, "/v1/sessions/%s", out->id);
	const char *loc = http_header(&r, "Location");
	ck_assert_msg(loc && strcmp(loc, out->path) == 0,
		      "create %s: Location %s, expected %s", body, loc,
		      out->path);
	expect_etag(&r, 0, body);
	http_response_free(&r);
	return j;
}

/* POST /v1/apply {facelets, moves} → the facelets after (malloc'd). */
char *apply(int port, const char *facelets, const char *moves)
{
	json_t *b = json_pack("{s:s, s:s}", "facelets", facelets, "moves",
			      moves);
	char *body = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	json_t *j = expect_json(port, "POST", "/v1/apply", NULL, NULL, body,
				200, NULL);
	free(body);
	char *f = strdup(sget(j, "facelets"));
	json_decref(j);
	return f;
}


json_t *get_session(int port, const char *path, const char *token,
			   long long want_version)
{
	http_response r;
	json_t *j = expect_json(port, "GET", path, token, NULL, NULL, 200, &r);
	if (want_version >= 0) {
		ck_assert_msg(iget(j, "version") == want_version,
			      "GET %s: version %lld, expected %lld", path,
			      iget(j, "version"), want_version);
		expect_etag(&r, want_version, path);
	}
	http_response_free(&r);
	return j;
}

/* The whole history, page by page (limit per page). */
json_t *history_all(int port, const ses *s, const char *token,
			   int limit)
{
	json_t *all = json_array();
	long long after = -1;
	for (int pages = 0; pages < 10000; pages++) {
		char path[192];
		if (after < 0)
			snprintf(path, sizeof path, "%s/history?limit=%d",
				 s->path, limit);
		else
			snprintf(path, sizeof path,
				 "%s/history?after=%lld&limit=%d", s->path,
				 after, limit);
		json_t *j = expect_json(port, "GET", path, token, NULL, NULL,
					200, NULL);
		json_t *ev = json_object_get(j, "events");
		ck_assert_msg(json_is_array(ev) &&
				      json_array_size(ev) <= (size_t)limit,
			      "GET %s: events", path);
		json_array_extend(all, ev);
		json_t *next = json_object_get(j, "next");
		if (json_is_null(next)) {
			json_decref(j);
			return all;
		}
		ck_assert_msg(json_is_integer(next) &&
				      json_array_size(ev) == (size_t)limit,
			      "GET %s: next %s with %zu events", path,
			      json_dumps(next, JSON_ENCODE_ANY),
			      json_array_size(ev));
		long long n = json_integer_value(next);
		ck_assert_msg(n == iget(json_array_get(ev, json_array_size(ev) - 1),
					"version"),
			      "GET %s: next is not the last version shown",
			      path);
		after = n;
		json_decref(j);
	}
	ck_abort_msg("history never ended");
	return NULL;
}

