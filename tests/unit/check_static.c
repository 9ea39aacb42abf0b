/* check_static.c — serving the web page (server/api/static.c) without a
 * server or a browser: what a web root may hold (and the clear refusals of
 * what it may not), which bytes and headers each request gets (ETag and
 * If-None-Match, Cache-Control, the page's CSP, gzip by Accept-Encoding),
 * and the routes through api_handle. The browser suites (tests/web) load
 * the real build; these pin the rules one by one, under the sanitizers
 * too. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "static.h"
#include "suites.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	FILE *f = fopen(p, "wb");
	ck_assert_ptr_nonnull(f);
	fwrite(text, 1, strlen(text), f);
	fclose(f);
}

static void del(const char *rel)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	ck_assert_int_eq(unlink(p), 0);
}

static void rm_rf(const char *dir)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A fresh web root: index.html, a hashed script with a gzip twin, a
 * hashed style sheet with gzip and Brotli twins, a plain text file. */
static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/cubed-static-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char p[128];
	snprintf(p, sizeof p, "%s/assets", root);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	put("index.html", "<!doctype html><title>t</title>");
	put("assets/main-ABCD2345.js", "console.log(1)");
	put("assets/main-ABCD2345.js.gz", "GZ-BYTES");
	put("assets/notes.txt", "hello");
	put("assets/app-ABCD2345.css", "body{margin:0}");
	put("assets/app-ABCD2345.css.gz", "GZ-CSS");
	put("assets/app-ABCD2345.css.br", "BR-CSS");
}

static void teardown(void)
{
	rm_rf(root);
}

struct hdrs {
	const char *inm, *ae;
};

static const char *hdr(void *cls, const char *name)
{
	const struct hdrs *h = cls;
	if (strcasecmp(name, "If-None-Match") == 0)
		return h->inm;
	if (strcasecmp(name, "Accept-Encoding") == 0)
		return h->ae;
	return NULL;
}

static const char *reply_header(const struct api_reply *rp, const char *name)
{
	for (int i = 0; i < rp->nheaders; i++)
		if (strcasecmp(rp->headers[i].name, name) == 0)
			return rp->headers[i].value;
	return NULL;
}

static void serve(const struct web_root *w, const char *path, const char *inm,
		  const char *ae, struct api_reply *rp)
{
	struct hdrs h = {inm, ae};
	struct api_request rq = {
		.method = "GET", .path = path, .header = hdr, .header_cls = &h,
	};
	api_reply_init(rp);
	web_serve(w, &rq, rp);
}

static struct web_root *load_ok(void)
{
	int missing = -1;
	char err[512] = "";
	struct web_root *w = web_root_load(root, &missing, err, sizeof err);
	ck_assert_msg(w != NULL, "load: %s", err);
	ck_assert_int_eq(missing, 0);
	return w;
}

START_TEST(page_headers_and_304)
{
	struct web_root *w = load_ok();
	ck_assert_uint_eq(web_root_files(w), 7);
	struct api_reply rp;
	serve(w, "/", NULL, NULL, &rp);
	ck_assert_int_eq(rp.status, 200);
	ck_assert_str_eq(rp.content_type, "text/html; charset=utf-8");
	ck_assert_uint_eq(rp.raw_len, strlen("<!doctype html><title>t</title>"));
	ck_assert_str_eq(reply_header(&rp, "Cache-Control"), "no-cache");
	ck_assert_str_eq(reply_header(&rp, "Content-Security-Policy"),
			 WEB_PAGE_CSP);
	ck_assert_ptr_null(strstr(WEB_PAGE_CSP, "unsafe"));
	char etag[64];
	snprintf(etag, sizeof etag, "%s", reply_header(&rp, "ETag"));
	ck_assert_uint_eq(strlen(etag), 34);
	ck_assert_int_eq(etag[0], '"');
	api_reply_free(&rp);

	const char *hits[] = {etag, "*", "\"x\", W/", " \"y\" ,"};
	char list[128];
	for (size_t i = 0; i < 4; i++) {
		snprintf(list, sizeof list, "%s%s", hits[i], i >= 2 ? etag : "");
		serve(w, "/", list, NULL, &rp);
		ck_assert_msg(rp.status == 304, "If-None-Match: %s", list);
		ck_assert_ptr_null(rp.raw);
		ck_assert_ptr_null(rp.content_type);
		ck_assert_str_eq(reply_header(&rp, "ETag"), etag);
		api_reply_free(&rp);
	}
	serve(w, "/", "\"0123\"", NULL, &rp);
	ck_assert_int_eq(rp.status, 200);
	api_reply_free(&rp);
	web_root_free(w);
}
END_TEST

START_TEST(assets_cache_and_gzip)
{
	struct web_root *w = load_ok();
	struct api_reply rp;
	serve(w, "/assets/main-ABCD2345.js", NULL, NULL, &rp);
	ck_assert_int_eq(rp.status, 200);
	ck_assert_str_eq(rp.content_type, "text/javascript; charset=utf-8");
	ck_assert_str_eq(reply_header(&rp, "Cache-Control"),
			 "public, max-age=31536000, immutable");
	ck_assert_str_eq(reply_header(&rp, "Vary"), "Accept-Encoding");
	ck_assert_ptr_null(reply_header(&rp, "Content-Encoding"));
	ck_assert_ptr_null(reply_header(&rp, "Content-Security-Policy"));
	ck_assert_int_eq(memcmp(rp.raw, "console.log(1)", rp.raw_len), 0);
	char plain[64];
	snprintf(plain, sizeof plain, "%s", reply_header(&rp, "ETag"));
	api_reply_free(&rp);

	/* Accept-Encoding → which bytes */
	static const struct {
		const char *ae;
		int gz;
	} cases[] = {
		{"gzip", 1}, {"gzip, deflate, br", 1}, {"br;q=1.0, gzip;q=0.8", 1},
		{"x-gzip", 1}, {"*", 1}, {"GZIP", 1}, {"gzip;q=0", 0},
		{"gzip; q=0.000", 0}, {"*;q=0", 0}, {"*;q=0, gzip", 1},
		{"gzip;q=0, *", 0}, {"identity", 0}, {"br", 0}, {"", 0},
		{"gzipx", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		serve(w, "/assets/main-ABCD2345.js", NULL, cases[i].ae, &rp);
		const char *ce = reply_header(&rp, "Content-Encoding");
		ck_assert_msg((ce != NULL) == cases[i].gz,
			      "Accept-Encoding: %s", cases[i].ae);
		if (cases[i].gz) {
			ck_assert_str_eq(ce, "gzip");
			ck_assert_int_eq(memcmp(rp.raw, "GZ-BYTES", rp.raw_len), 0);
			ck_assert_str_ne(reply_header(&rp, "ETag"), plain);
		}
		api_reply_free(&rp);
	}
	/* a name without a content hash is revalidated, never kept */
	serve(w, "/assets/notes.txt", NULL, "gzip", &rp);
	ck_assert_str_eq(rp.content_type, "text/plain; charset=utf-8");
	ck_assert_str_eq(reply_header(&rp, "Cache-Control"), "no-cache");
	ck_assert_ptr_null(reply_header(&rp, "Content-Encoding"));
	ck_assert_ptr_null(reply_header(&rp, "Vary"));
	api_reply_free(&rp);
	web_root_free(w);
}
END_TEST

/* Brotli twins: the coding the browser rates highest, Brotli on a tie;
 * a file without a .br twin is never sent as br. */
START_TEST(assets_brotli)
{
	struct web_root *w = load_ok();
	static const struct {
		const char *ae;
		const char *ce; /* NULL: plain */
	} cases[] = {
		{"br", "br"}, {"gzip, deflate, br", "br"},
		{"br;q=1.0, gzip;q=0.8", "br"}, {"gzip, br;q=0.5", "gzip"},
		{"gzip;q=0.5, br;q=0.5", "br"}, {"*", "br"}, {"BR", "br"},
		{"br;q=0, gzip", "gzip"}, {"br;q=0, *", "gzip"},
		{"br;q=0, gzip;q=0", NULL}, {"identity", NULL}, {"", NULL},
		{"brotli", NULL},
	};
	struct api_reply rp;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		serve(w, "/assets/app-ABCD2345.css", NULL, cases[i].ae, &rp);
		ck_assert_int_eq(rp.status, 200);
		const char *ce = reply_header(&rp, "Content-Encoding");
		const char *want = !cases[i].ce ? "body{margin:0}"
				   : strcmp(cases[i].ce, "br") == 0 ? "BR-CSS"
								    : "GZ-CSS";
		if (cases[i].ce == NULL)
			ck_assert_msg(ce == NULL, "Accept-Encoding: %s",
				      cases[i].ae);
		else
			ck_assert_msg(ce && strcmp(ce, cases[i].ce) == 0,
				      "Accept-Encoding: %s gave %s", cases[i].ae,
				      ce ? ce : "plain");
		ck_assert_uint_eq(rp.raw_len, strlen(want));
		ck_assert_int_eq(memcmp(rp.raw, want, rp.raw_len), 0);
		ck_assert_str_eq(reply_header(&rp, "Vary"), "Accept-Encoding");
		api_reply_free(&rp);
	}
	/* three different bodies, three different ETags, each 304 alone */
	char tags[3][64];
	const char *aes[3] = {"identity", "gzip", "br"};
	for (int i = 0; i < 3; i++) {
		serve(w, "/assets/app-ABCD2345.css", NULL, aes[i], &rp);
		snprintf(tags[i], sizeof tags[i], "%s", reply_header(&rp, "ETag"));
		api_reply_free(&rp);
	}
	ck_assert_str_ne(tags[0], tags[1]);
	ck_assert_str_ne(tags[1], tags[2]);
	ck_assert_str_ne(tags[0], tags[2]);
	serve(w, "/assets/app-ABCD2345.css", tags[2], "br", &rp);
	ck_assert_int_eq(rp.status, 304);
	api_reply_free(&rp);
	/* only a gzip twin: br is not on offer */
	serve(w, "/assets/main-ABCD2345.js", NULL, "br", &rp);
	ck_assert_ptr_null(reply_header(&rp, "Content-Encoding"));
	api_reply_free(&rp);
	ck_assert_uint_eq(web_root_files(w), 7);
	web_root_free(w);
}
END_TEST

START_TEST(unknown_files_are_404)
{
	struct web_root *w = load_ok();
	static const char *const paths[] = {
		"/assets/nope.js", "/assets/../index.html", "/assets/",
		"/assets/.hidden", "/assets/main-ABCD2345.js.gz", "/index.html",
		"/assets/a/b",
	};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		struct api_reply rp;
		serve(w, paths[i], NULL, NULL, &rp);
		ck_assert_msg(rp.status == 404, "%s: %d", paths[i], rp.status);
		ck_assert_str_eq(json_string_value(json_object_get(rp.json, "code")),
				 "not_found");
		api_reply_free(&rp);
	}
	web_root_free(w);
}
END_TEST

START_TEST(no_page_is_a_clear_404)
{
	struct api_reply rp;
	serve(NULL, "/", NULL, NULL, &rp);
	ck_assert_int_eq(rp.status, 404);
	ck_assert_str_eq(json_string_value(json_object_get(rp.json, "code")),
			 "page_not_built");
	ck_assert_ptr_nonnull(strstr(
		json_string_value(json_object_get(rp.json, "detail")),
		"was not built"));
	api_reply_free(&rp);

	int missing = 0;
	char err[512];
	char p[128];
	snprintf(p, sizeof p, "%s/none", root);
	ck_assert_ptr_null(web_root_load(p, &missing, err, sizeof err));
	ck_assert_int_eq(missing, 1);
	ck_assert_ptr_nonnull(strstr(err, "index.html"));
}
END_TEST

/* Each bad web root is refused with a sentence naming the problem. */
static void refused(const char *what)
{
	int missing = 1;
	char err[512] = "";
	struct web_root *w = web_root_load(root, &missing, err, sizeof err);
	ck_assert_msg(w == NULL, "loaded a root with %s", what);
	ck_assert_int_eq(missing, 0);
	ck_assert_msg(strstr(err, what) != NULL, "\"%s\" not in \"%s\"", what,
		      err);
}

START_TEST(bad_roots_are_refused)
{
	put("assets/run.exe", "MZ");
	refused("a type the server does not serve");
	del("assets/run.exe");
	put("assets/a b.js", "x");
	refused("a name the server does not serve");
	del("assets/a b.js");
	put("assets/orphan.css.gz", "x");
	refused("compresses no file");
	del("assets/orphan.css.gz");
	put("assets/orphan.css.br", "x");
	refused("compresses no file");
	del("assets/orphan.css.br");
	/* more bytes than the bound: a sparse file costs no disk */
	char p[128];
	snprintf(p, sizeof p, "%s/assets/big.js", root);
	int fd = open(p, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)WEB_MAX_BYTES + 1), 0);
	close(fd);
	refused("more than");
	unlink(p);
	/* more files than the bound */
	for (int i = 0; i < WEB_MAX_FILES; i++) {
		char rel[64];
		snprintf(rel, sizeof rel, "assets/f%03d.txt", i);
		put(rel, "x");
	}
	refused("more than 256 files");
}
END_TEST

START_TEST(routes_through_api_handle)
{
	struct web_root *w = load_ok();
	struct api_config cfg = {.max_moves = 1000, .web = w};
	static const struct {
		const char *method, *path;
		int status;
	} cases[] = {
		{"GET", "/", 200}, {"HEAD", "/", 200},
		{"GET", "/assets/main-ABCD2345.js", 200},
		{"POST", "/", 405}, {"DELETE", "/assets/notes.txt", 405},
		{"OPTIONS", "/", 204}, {"GET", "/assets", 404},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct api_request rq = {.method = cases[i].method,
					 .path = cases[i].path};
		struct api_reply rp;
		api_reply_init(&rp);
		api_handle(&cfg, &rq, &rp);
		ck_assert_msg(rp.status == cases[i].status, "%s %s: %d",
			      cases[i].method, cases[i].path, rp.status);
		api_reply_free(&rp);
	}
	web_root_free(w);
}
END_TEST

Suite *static_suite(void)
{
	Suite *s = suite_create("static");
	TCase *tc = tcase_create("web_root");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, page_headers_and_304);
	tcase_add_test(tc, assets_cache_and_gzip);
	tcase_add_test(tc, assets_brotli);
	tcase_add_test(tc, unknown_files_are_404);
	tcase_add_test(tc, no_page_is_a_clear_404);
	tcase_add_test(tc, bad_roots_are_refused);
	tcase_add_test(tc, routes_through_api_handle);
	suite_add_tcase(s, tc);
	return s;
}
