/* fuzz_api.c — libFuzzer target for the HTTP API's request decoding: every
 * route, through api_handle (server/api/api.c), the entry http.c calls with
 * each request — the body parser (json_body), strict field checks, query
 * strings, and the handlers behind them — on plain structs, no socket.
 *
 * Session routes run against a real store: a SQLite database in a
 * temporary directory, with the session writer thread, and one session
 * created up front whose id the {id} routes use (its write token is sent
 * when the input asks). The database is thrown away and made again every
 * RESET_EVERY inputs so that it stays small. There are no solver tables:
 * solving answers 503 after its arguments are checked.
 *
 * Input: byte 0 picks the route, byte 1 flags (a right Authorization,
 * If-Match with the current version, a well-formed id of no session, no
 * Content-Type, HEAD for GET, If-None-Match); the rest is the body of a
 * POST, or the query string of a GET (up to its first NUL).
 * Laws: no reply is a 500 (bad input is always the client's error); every
 * reply is JSON that serialises (or a documented raw body / none); a
 * problem says its own status; a session write that fails leaves the
 * session's version and state as they were. */
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api.h"
#include "fuzz.h"
#include "events.h"
#include "metrics.h"
#include "sessions.h"
#include "store.h"

#define RESET_EVERY 20000

static const struct {
	const char *method;
	const char *path; /* "{id}" is replaced by the session's id */
} routes[] = {
	{"POST", "/v1/apply"},
	{"POST", "/v1/alg"},
	{"POST", "/v1/convert"},
	{"POST", "/v1/validate"},
	{"POST", "/v1/match"},
	{"POST", "/v1/pieces"},
	{"POST", "/v1/solve"},
	{"GET", "/v1/patterns"},
	{"GET", "/v1/scramble"},
	{"POST", "/v1/sessions"},
	{"GET", "/v1/sessions/{id}"},
	{"DELETE", "/v1/sessions/{id}"},
	{"POST", "/v1/sessions/{id}/moves"},
	{"POST", "/v1/sessions/{id}/undo"},
	{"POST", "/v1/sessions/{id}/redo"},
	{"POST", "/v1/sessions/{id}/reset"},
	{"POST", "/v1/sessions/{id}/fork"},
	{"POST", "/v1/sessions/{id}/solve"},
	{"GET", "/v1/sessions/{id}/solves"},
	{"GET", "/v1/sessions/{id}/history"},
	{"GET", "/v1/sessions/{id}/events"},
	{"POST", "/v1/sessions/{id}/tokens"},
	{"GET", "/v1/sessions/{id}/tokens"},
	{"DELETE", "/v1/sessions/{id}/tokens/1"},
	{"GET", "/readyz"},
	{"GET", "/metrics"},
	{"OPTIONS", "/v1/apply"},
};
#define NROUTES (sizeof routes / sizeof routes[0])

enum {
	F_AUTH = 1,         /* Authorization: Bearer <the write token> */
	F_IF_MATCH = 2,     /* If-Match: "v<current version>" */
	F_OTHER_ID = 4,     /* a well-formed id of no session */
	F_NO_CTYPE = 8,     /* no Content-Type header */
	F_HEAD = 16,        /* HEAD instead of GET */
	F_IF_NONE = 32,     /* If-None-Match: "v<current version>" */
	F_BAD_AUTH = 64,    /* Authorization with a wrong token */
};

static char dir[64];
static struct store *st;
static struct sessions *ses;
static struct metrics *met;
static struct api_config cfg;
static char sid[STORE_ID_MAX];
static char token[37];
static unsigned long runs;

/* The database's files (SQLite in WAL mode), then the directory. */
static void remove_dir(void)
{
	static const char *const files[] = {"cubed.db", "cubed.db-wal",
					    "cubed.db-shm", "cubed.db-journal"};
	char path[128];
	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void new_session(void)
{
	struct session_create c = {.size = 3};
	struct session_view v;
	char tok[36];
	int rc = sessions_create(ses, &c, &v, tok, NULL);
	LAW(rc == SES_OK, "cannot create the fuzzing session: %s",
	    sessions_strerror(rc));
	snprintf(sid, sizeof sid, "%s", v.id);
	memcpy(token, tok, 36);
	token[36] = '\0';
	session_view_free(&v);
}

static void open_store(void)
{
	char path[128], err[256];
	snprintf(path, sizeof path, "%s/cubed.db", dir);
	const char *schema = getenv("CUBED_SCHEMA");
	struct store_config sc = {
		.path = path,
		.schema_dir = schema && *schema ? schema : "schema",
	};
	int rc = store_open(&sc, &st, err, sizeof err);
	LAW(rc == STORE_OK, "store_open %s: %s (run from the repository "
			    "root, or set CUBED_SCHEMA)", path, err);
	struct sessions_config sesc = {
		.store = st, .cache_max = 64, .max_sessions = 2000,
	};
	alg_limits_default(&sesc.limits);
	sesc.limits.max_moves = cfg.max_moves;
	sesc.limits.max_work = cfg.max_work;
	LAW(sessions_open(&sesc, &ses) == SES_OK, "sessions_open");
	cfg.store = st;
	cfg.sessions = ses;
	if (!cfg.events) {
		struct events_config ec = {.max_watchers = 64};
		LAW(events_open(&ec, &cfg.events) == EVENTS_OK, "events_open");
	}
	new_session();
}

static void close_store(void)
{
	sessions_close(ses);
	store_close(st);
	ses = NULL;
	st = NULL;
	remove_dir();
	LAW(mkdir(dir, 0700) == 0 || errno == EEXIST, "mkdir %s", dir);
}

static void cleanup(void)
{
	if (ses)
		sessions_close(ses);
	if (st)
		store_close(st);
	metrics_free(met);
	remove_dir();
}

static void init(void)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/cubed-fuzz-XXXXXX", tmp);
	LAW(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
	cfg.max_moves = 10000;
	cfg.max_work = 10000000;
	cfg.max_session_size = 16;
	cfg.max_solve_ms = 10;
	const char *pat[64];
	int np = api_route_patterns(pat, 64);
	met = metrics_new(pat, np);
	cfg.metrics = met;
	open_store();
	atexit(cleanup);
}

struct headers {
	int flags;
	char etag[32];
	char bearer[64];
};

static const char *header(void *cls, const char *name)
{
	const struct headers *h = cls;
	if (strcasecmp(name, "Authorization") == 0 &&
	    (h->flags & (F_AUTH | F_BAD_AUTH)))
		return h->bearer;
	if (strcasecmp(name, "If-Match") == 0 && (h->flags & F_IF_MATCH))
		return h->etag;
	if (strcasecmp(name, "If-None-Match") == 0 && (h->flags & F_IF_NONE))
		return h->etag;
	return NULL;
}

/* The fuzzing session's version and state, or -1 if it is gone. */
static int64_t session_state(char **facelets)
{
	struct session_view v;
	*facelets = NULL;
	if (sessions_get(ses, sid, -1, &v) != SES_OK)
		return -1;
	int64_t version = v.version;
	*facelets = strdup(v.facelets);
	session_view_free(&v);
	return version;
}

static void check_reply(const struct api_reply *rp, const char *method,
			const char *path)
{
	LAW(rp->status >= 200 && rp->status <= 599, "%s %s: status %d",
	    method, path, rp->status);
	LAW(rp->status != 500, "%s %s: 500 %s", method, path,
	    rp->json ? json_string_value(json_object_get(rp->json, "detail"))
		     : "(no body)");
	if (rp->json) {
		char *text = json_dumps(rp->json, JSON_COMPACT);
		LAW(text != NULL, "%s %s: the reply does not serialise", method,
		    path);
		free(text);
		LAW(rp->content_type != NULL, "%s %s: JSON without a type",
		    method, path);
	}
	if (rp->status >= 400) {
		LAW(rp->json && rp->content_type &&
			    strcmp(rp->content_type,
				   "application/problem+json") == 0,
		    "%s %s: %d is not a problem", method, path, rp->status);
		json_int_t s =
			json_integer_value(json_object_get(rp->json, "status"));
		LAW(s == rp->status, "%s %s: problem says %lld, reply %d",
		    method, path, (long long)s, rp->status);
		LAW(json_is_string(json_object_get(rp->json, "type")) &&
			    json_is_string(json_object_get(rp->json, "title")),
		    "%s %s: problem without type or title", method, path);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!st)
		init();
	if (size < 2)
		return 0;
	if (++runs % RESET_EVERY == 0) {
		close_store();
		open_store();
	}
	int r = data[0] % NROUTES;
	int flags = data[1];
	const char *body = (const char *)data + 2;
	size_t body_len = size - 2;

	/* the path, with the id */
	char path[160];
	const char *id = flags & F_OTHER_ID ? "AAAAAAAAAAAAAAAAAAAAAA" : sid;
	const char *brace = strstr(routes[r].path, "{id}");
	if (brace)
		snprintf(path, sizeof path, "%.*s%s%s",
			 (int)(brace - routes[r].path), routes[r].path, id,
			 brace + 4);
	else
		snprintf(path, sizeof path, "%s", routes[r].path);
	const char *method = routes[r].method;
	int get = strcmp(method, "GET") == 0;
	if (get && (flags & F_HEAD))
		method = "HEAD";

	char *before_state;
	int64_t before = session_state(&before_state);
	struct headers h = {.flags = flags};
	snprintf(h.etag, sizeof h.etag, "\"v%lld\"", (long long)before);
	snprintf(h.bearer, sizeof h.bearer, "Bearer %s",
		 flags & F_AUTH ? token : "ct_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");

	char *query = NULL;
	struct api_request rq = {
		.method = method,
		.path = path,
		.content_type = flags & F_NO_CTYPE ? NULL : "application/json",
		.header = header,
		.header_cls = &h,
	};
	if (get) {
		query = malloc(body_len + 1);
		memcpy(query, body, body_len);
		query[body_len] = '\0';
		rq.query = query;
	} else {
		rq.body = body_len ? body : NULL;
		rq.body_len = body_len;
	}
	struct api_reply rp;
	api_reply_init(&rp);
	api_handle(&cfg, &rq, &rp);
	check_reply(&rp, method, path);

	char *after_state;
	int64_t after = session_state(&after_state);
	if (rp.status >= 400 || get)
		LAW(after == before &&
			    (after < 0 || strcmp(before_state, after_state) == 0),
		    "%s %s answered %d but the session moved from v%lld to "
		    "v%lld",
		    method, path, rp.status, (long long)before,
		    (long long)after);
	free(before_state);
	free(after_state);
	api_reply_free(&rp);
	free(query);
	if (after < 0) /* deleted: the next input gets a new one */
		new_session();
	return 0;
}
