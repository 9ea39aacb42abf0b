/* check_http_dataset.c — black-box tests of datasets over HTTP against the
 * real server binary (docs/dataset.md):
 *
 *   - GET /v1/dataset sends the very bytes `cubed dataset` writes for the
 *     same parameters (every column, 2×2 and 3×3, HEAD's Content-Length);
 *   - exported states' features and index equal /v1/convert's;
 *   - Range: any tail or slice is 206 with the right bytes (so an
 *     interrupted download resumes), past the end 416 with Content-Range;
 *   - bad parameters 422 naming them (limits with "limit"), and nothing
 *     is made for them (the stream and sample counters do not move);
 *   - back-pressure and hang-ups, measured by the server's counter of
 *     made chunks: a client that stops reading stops the making (the
 *     server runs ahead by no more than the socket buffers), and one that
 *     hangs up gets no further chunk made at all;
 *   - per-client caps (429 too_many_streams, another address unaffected);
 *   - solver labels as a job: 202, progress, files identical to the CLI's
 *     with the same tables, 409 while not done, cancel; NumPy loads the
 *     downloaded files (tests/lib/dataset_check.py).
 *
 * The server uses the level-0 optimal tables from $CUBED_TABLES (the
 * "optimal" suite writes them there). Waits poll with a deadline. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "files.h"
#include "cli.h"
#include "session_helpers.h"
#include "suites.h"

static const char *const args[] = {"--optimal-level", "0", "--rate-limit", "0",
				   "--dataset-client-streams", "2", NULL};
static server srv;

static void fixture_setup(void)
{
	start_or_abort(&srv, NULL, args);
}

static void fixture_teardown(void)
{
	server_stop(&srv, 1);
}

/* ---------------------------------------------------------- helpers */

static const char *tables(void)
{
	const char *t = getenv("CUBED_TABLES");
	return t && *t ? t : "build/tables";
}

static void spit(const char *path, const char *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	fclose(f);
}

static void rm_dir(const char *d)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	ck_assert_int_eq(system(cmd), 0);
}

/* GET path → 200 (or want) with the body in *r. */
static void get(http_response *r, const char *path, const char *hdr, int want)
{
	call(r, srv.port, "GET", path, NULL, hdr, NULL);
	ck_assert_msg(r->status == want, "GET %s: %d, not %d: %.300s", path,
		      r->status, want, r->body ? r->body : "");
}

static double metric(const char *name)
{
	http_response r;
	get(&r, "/metrics", NULL, 200);
	double v = http_metric(r.body, name);
	http_response_free(&r);
	ck_assert_msg(v >= 0, "no metric %s", name);
	return v;
}

/* ------------------------------------------------------- same bytes */

/* The CLI's files and GET's bodies for the same query are the same
 * bytes, column by column; HEAD announces the length. */
START_TEST(same_bytes_as_cli)
{
	static const struct {
		const char *query;        /* for GET, without column= */
		const char *cli[16];      /* the same as flags */
		const char *cols[6];
	} cases[] = {
		{"count=2001&depth=0-25&seed=11&columns=stickers,features,features_packed,index",
		 {"--count", "2001", "--depth", "0-25", "--seed", "11", "--columns",
		  "stickers,features,features_packed,index"},
		 {"stickers", "features", "features_packed", "index", "depth"}},
		{"count=777&seed=3&columns=features,index&shard=2/3",
		 {"--count", "777", "--seed", "3", "--columns", "features,index", "--shard",
		  "2/3"},
		 {"features", "index"}},
		{"size=2&count=1500&depth=0-14&metric=qtm&labels=depth,optimal&columns=stickers,features",
		 {"--size", "2", "--count", "1500", "--depth", "0-14", "--metric", "qtm",
		  "--labels", "depth,optimal", "--columns", "stickers,features"},
		 {"stickers", "features", "depth", "optimal"}},
		{"size=5&count=40&depth=10-30&columns=stickers",
		 {"--size", "5", "--count", "40", "--depth", "10-30", "--columns", "stickers"},
		 {"stickers", "depth"}},
	};
	char dir[] = "/tmp/cubed-hds-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char out[128], msg[2048];
		snprintf(out, sizeof out, "%s/c%zu", dir, k);
		const char *argv[24] = {cubed_bin(), "dataset", "--out", out, "--quiet"};
		int n = 5;
		for (int j = 0; cases[k].cli[j]; j++)
			argv[n++] = cases[k].cli[j];
		argv[n] = NULL;
		ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
		for (int c = 0; c < 6 && cases[k].cols[c]; c++) {
			char path[512], file[256];
			snprintf(path, sizeof path, "/v1/dataset?%s&column=%s", cases[k].query,
				 cases[k].cols[c]);
			snprintf(file, sizeof file, "%s/%s.npy", out, cases[k].cols[c]);
			size_t len;
			unsigned char *want = read_whole(file, &len);
			http_response r;
			get(&r, path, NULL, 200);
			ck_assert_str_eq(http_header(&r, "Content-Type"), "application/octet-stream");
			ck_assert_str_eq(http_header(&r, "Accept-Ranges"), "bytes");
			ck_assert_msg(r.body_len == len && memcmp(r.body, want, len) == 0,
				      "case %zu column %s: %zu bytes, the CLI's %zu", k,
				      cases[k].cols[c], r.body_len, len);
			http_response_free(&r);
			call(&r, srv.port, "HEAD", path, NULL, NULL, NULL);
			ck_assert_int_eq(r.status, 200);
			char l[32];
			snprintf(l, sizeof l, "%zu", len);
			ck_assert_str_eq(http_header(&r, "Content-Length"), l);
			ck_assert_uint_eq(r.body_len, 0);
			http_response_free(&r);
			free(want);
		}
		/* meta.json: the CLI's, but for the build's commit line */
		char path[512];
		snprintf(path, sizeof path, "/v1/dataset?%s&column=meta", cases[k].query);
		http_response r;
		get(&r, path, NULL, 200);
		json_t *m = parse(&r, "meta");
		char file[256];
		snprintf(file, sizeof file, "%s/meta.json", out);
		json_t *cm = json_load_file(file, 0, NULL);
		ck_assert_ptr_nonnull(cm);
		ck_assert(json_equal(json_object_get(m, "files"), json_object_get(cm, "files")));
		ck_assert(json_equal(json_object_get(m, "shard"), json_object_get(cm, "shard")));
		ck_assert_int_eq(json_integer_value(json_object_get(m, "seed")),
				 json_integer_value(json_object_get(cm, "seed")));
		json_decref(m);
		json_decref(cm);
		http_response_free(&r);
	}
	rm_dir(dir);
}
END_TEST

/* Exported states through /v1/convert: the same 364 features and index. */
START_TEST(features_match_convert)
{
	http_response r;
	get(&r, "/v1/dataset?count=40&depth=0-30&seed=8&format=ndjson&"
		"columns=stickers,features,index",
	    NULL, 200);
	ck_assert(media_type_is(http_header(&r, "Content-Type"), "application/x-ndjson"));
	char *line = r.body;
	int rows = 0;
	while (line && *line) {
		char *nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		*nl = 0;
		json_error_t e;
		json_t *row = json_loads(line, 0, &e);
		ck_assert_msg(row != NULL, "%s", e.text);
		ck_assert_int_eq(json_integer_value(json_object_get(row, "i")), rows);
		json_t *st = json_object_get(row, "stickers");
		ck_assert_uint_eq(json_array_size(st), 54);
		char fl[55];
		for (int k = 0; k < 54; k++)
			fl[k] = "URFDLB"[json_integer_value(json_array_get(st, (size_t)k))];
		fl[54] = 0;
		json_t *b = json_pack("{s:s, s:[s]}", "facelets", fl, "include", "features");
		char *body = json_dumps(b, JSON_COMPACT);
		json_t *cv = expect_json(srv.port, "POST", "/v1/convert", NULL, NULL, body,
					 200, NULL);
		ck_assert(json_equal(json_object_get(cv, "features"),
				     json_object_get(row, "features")));
		ck_assert_str_eq(sget(cv, "index"), sget(row, "index"));
		ck_assert(json_is_integer(json_object_get(row, "depth")));
		json_decref(cv);
		json_decref(b);
		free(body);
		json_decref(row);
		rows++;
		line = nl + 1;
	}
	ck_assert_int_eq(rows, 40);
	http_response_free(&r);
}
END_TEST

/* ------------------------------------------------------------ ranges */

START_TEST(ranges_resume)
{
	const char *path = "/v1/dataset?count=3000&depth=1-20&seed=4&column=features";
	http_response whole;
	get(&whole, path, NULL, 200);
	size_t len = whole.body_len;
	ck_assert_uint_eq(len, 128 + 3000 * 364);
	/* tails from inside the header, a row boundary, mid-row, the last byte */
	size_t starts[] = {0, 7, 128, 128 + 364, 128 + 364 * 1000 + 17, len - 1};
	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
		char h[64], cr[96];
		snprintf(h, sizeof h, "Range: bytes=%zu-", starts[k]);
		http_response r;
		get(&r, path, h, 206);
		snprintf(cr, sizeof cr, "bytes %zu-%zu/%zu", starts[k], len - 1, len);
		ck_assert_str_eq(http_header(&r, "Content-Range"), cr);
		ck_assert_uint_eq(r.body_len, len - starts[k]);
		ck_assert(memcmp(r.body, whole.body + starts[k], r.body_len) == 0);
		http_response_free(&r);
	}
	/* slices, a suffix, and an end past the file (clamped) */
	static const struct {
		const char *range;
		size_t from, to;
	} sl[] = {
		{"bytes=0-9", 0, 10},
		{"bytes=500-100000", 500, 100001},
		{"bytes=-100", 0, 0},
		{"bytes=1000000-99999999", 1000000, 0},
	};
	for (size_t k = 0; k < sizeof sl / sizeof sl[0]; k++) {
		size_t from = sl[k].from, to = sl[k].to;
		if (k == 2)
			from = len - 100, to = len;
		if (k == 3)
			to = len;
		char h[64];
		snprintf(h, sizeof h, "Range: %s", sl[k].range);
		http_response r;
		get(&r, path, h, 206);
		ck_assert_uint_eq(r.body_len, to - from);
		ck_assert(memcmp(r.body, whole.body + from, r.body_len) == 0);
		http_response_free(&r);
	}
	/* past the end: 416 naming the length */
	char h[64], cr[64];
	snprintf(h, sizeof h, "Range: bytes=%zu-", len);
	snprintf(cr, sizeof cr, "bytes */%zu", len);
	http_response r;
	json_t *p = expect_problem(srv.port, "GET", path, NULL, h, NULL, 416,
				   "range_not_satisfiable", "range_not_satisfiable", NULL, &r);
	ck_assert_str_eq(http_header(&r, "Content-Range"), cr);
	json_decref(p);
	http_response_free(&r);
	/* what is not one byte range is ignored: the whole file */
	get(&r, path, "Range: bytes=0-9,20-29", 200);
	ck_assert_uint_eq(r.body_len, len);
	http_response_free(&r);
	get(&r, path, "Range: lines=1-2", 200);
	ck_assert_uint_eq(r.body_len, len);
	http_response_free(&r);
	http_response_free(&whole);
}
END_TEST

/* ------------------------------------------------------ bad requests */

START_TEST(bad_parameters)
{
	static const struct {
		const char *query;
		int status;
		const char *code, *field;
		long long limit; /* > 0: the problem's "limit" */
	} bad[] = {
		{"count=0&column=features", 422, "bad_parameter", "count", 0},
		{"count=ten&column=features", 422, "bad_parameter", "count", 0},
		{"count=10&depth=9-3&column=features", 422, "bad_parameter", "depth", 0},
		{"count=10&depth=1-101&column=features", 422, "limit_exceeded", "depth", 100},
		{"count=100000001&column=depth&depth=3", 422, "limit_exceeded", "count", 100000000},
		{"count=10&size=34&depth=3&column=stickers", 422, "limit_exceeded", "size", 33},
		{"count=10&size=1&column=stickers", 422, "bad_parameter", "size", 0},
		{"count=10&size=4&column=stickers", 422, "bad_parameter", "depth", 0},
		{"count=10&size=4&depth=2&column=features", 422, "bad_parameter", "columns", 0},
		{"count=10&metric=stm&column=features", 422, "bad_parameter", "metric", 0},
		{"count=10&columns=feature&column=index", 422, "bad_parameter", "columns", 0},
		{"count=10&column=colour", 422, "bad_parameter", "column", 0},
		{"count=10&column=depth", 422, "bad_parameter", "labels", 0},
		{"count=10&shard=3/2&column=features", 422, "bad_parameter", "shard", 0},
		{"count=10&seed=-4&column=features", 422, "bad_parameter", "seed", 0},
		{"count=10", 422, "missing_parameter", "column", 0},
		{"column=features", 422, "bad_parameter", "count", 0},
		{"count=10&nope=1&column=features", 422, "unknown_parameter", "nope", 0},
		{"count=10&format=csv", 422, "bad_parameter", "format", 0},
		{"count=1001&format=ndjson", 422, "limit_exceeded", "count", 1000},
		{"count=10&depth=1-5&labels=twophase&column=twophase", 422, "dataset_needs_job", "labels", 0},
		{"count=10&depth=1-5&labels=optimal&column=optimal", 422, "dataset_needs_job", "labels", 0},
		{"count=10&all=1&size=2&column=index", 422, "bad_parameter", "count", 0},
		{"all=1&column=index", 422, "bad_parameter", "all", 0},
	};
	double before = metric("cubed_dataset_streams_total");
	double samples = metric("cubed_dataset_samples_total");
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		char path[300];
		snprintf(path, sizeof path, "/v1/dataset?%s", bad[k].query);
		http_response r;
		const char *kind = strcmp(bad[k].code, "limit_exceeded") == 0
					   ? "limit_exceeded" : "invalid_request";
		json_t *p = expect_problem(srv.port, "GET", path, NULL, NULL, NULL,
					   bad[k].status, kind, bad[k].code, bad[k].field, &r);
		if (bad[k].limit)
			ck_assert_int_eq(iget(p, "limit"), bad[k].limit);
		json_decref(p);
		http_response_free(&r);
	}
	/* the same for a job: rows past --dataset-job-rows */
	json_t *p = expect_problem(srv.port, "POST",
				   "/v1/dataset?count=1000001&depth=1-5&labels=twophase",
				   NULL, NULL, NULL, 422, "limit_exceeded", "limit_exceeded", "count",
				   NULL);
	ck_assert_int_eq(iget(p, "limit"), 1000000);
	json_decref(p);
	p = expect_problem(srv.port, "POST", "/v1/dataset?count=10&depth=0-4&column=depth",
			   NULL, NULL, NULL, 422, "invalid_request", "unknown_parameter",
			   "column", NULL);
	json_decref(p);
	/* nothing was made for any of them */
	ck_assert(metric("cubed_dataset_streams_total") == before);
	ck_assert(metric("cubed_dataset_samples_total") == samples);
}
END_TEST

/* ------------------------------------------- back-pressure, hang-ups */

/* A raw connection with a small receive buffer, its request sent. */
static int open_stream(const char *path, const char *from)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	int small = 16384;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	if (from) {
		inet_pton(AF_INET, from, &a.sin_addr);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	}
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	a.sin_port = htons((uint16_t)srv.port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	char req[512];
	int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	ck_assert_int_eq(write(fd, req, (size_t)n), n);
	return fd;
}

/* Read n bytes (with a deadline); returns what the status line said. */
static int read_some(int fd, size_t n, int *status)
{
	char buf[65536];
	size_t got = 0;
	double t0 = now_s();
	while (got < n) {
		struct pollfd p = {fd, POLLIN, 0};
		ck_assert_msg(now_s() - t0 < 30, "the stream stalled");
		if (poll(&p, 1, 1000) <= 0)
			continue;
		size_t want = n - got < sizeof buf ? n - got : sizeof buf;
		ssize_t k = read(fd, buf, want);
		ck_assert_int_gt(k, 0);
		if (status && got == 0)
			*status = atoi(buf + 9);
		got += (size_t)k;
	}
	return (int)got;
}

START_TEST(backpressure_and_hangup)
{
	/* 100 million samples of features: 36 GB, far more than any test reads */
	const char *path = "/v1/dataset?count=100000000&depth=1-20&column=features";
	double c0 = metric("cubed_dataset_chunks_total");
	double b0 = metric("cubed_dataset_bytes_total");
	double cut0 = metric("cubed_dataset_streams_cut_total");
	int fd = open_stream(path, NULL);
	int status = 0;
	size_t got = (size_t)read_some(fd, 4 << 20, &status);
	ck_assert_int_eq(status, 200);
	/* the reader stops: whatever the server makes now is bounded by
	 * the sockets' buffers (loopback autotunes up to a few MB), however
	 * long it is given; ask it several times over a second */
	double t0 = now_s(), made = 0;
	while (now_s() - t0 < 1.0) {
		made = metric("cubed_dataset_bytes_total") - b0;
		ck_assert_msg(made <= (double)got + 16e6,
			      "the server ran %.0f bytes ahead of a reader that stopped",
			      made - (double)got);
	}
	ck_assert_int_eq((int)metric("cubed_dataset_streams"), 1);
	/* hang up: from here on no chunk may be made */
	double at_close = metric("cubed_dataset_chunks_total");
	close(fd);
	double t1 = now_s();
	while (metric("cubed_dataset_streams") != 0)
		ck_assert_msg(now_s() - t1 < 5, "the stream was not let go");
	double gone_ms = (now_s() - t1) * 1e3;
	double after = metric("cubed_dataset_chunks_total");
	ck_assert_msg(after - at_close <= 1,
		      "%.0f chunks were made after the client hung up", after - at_close);
	ck_assert(metric("cubed_dataset_streams_cut_total") == cut0 + 1);
	ck_assert(after > c0);
	fprintf(stderr, "backpressure_and_hangup: %.0f chunks made after the hang-up, "
			"stream let go %.1f ms after it (as /metrics saw)\n",
		after - at_close, gone_ms);
}
END_TEST

/* Two open downloads per address (--dataset-client-streams 2): the third
 * is 429 with Retry-After, another address is served. */
START_TEST(client_caps)
{
	const char *path = "/v1/dataset?count=100000000&depth=1-20&column=features";
	int a = open_stream(path, NULL), b = open_stream(path, NULL);
	int st = 0;
	read_some(a, 1000, &st);
	ck_assert_int_eq(st, 200);
	read_some(b, 1000, &st);
	ck_assert_int_eq(st, 200);
	http_response r;
	json_t *p = expect_problem(srv.port, "GET", path, NULL, NULL, NULL, 429,
				   "too_many_requests", "too_many_streams", NULL, &r);
	ck_assert_ptr_nonnull(http_header(&r, "Retry-After"));
	json_decref(p);
	http_response_free(&r);
	int c = open_stream(path, "127.0.0.2");
	read_some(c, 1000, &st);
	ck_assert_int_eq(st, 200);
	close(a);
	close(b);
	close(c);
	double t0 = now_s();
	while (metric("cubed_dataset_streams") != 0)
		ck_assert_msg(now_s() - t0 < 5, "streams were not let go");
	/* the cap is per open stream: free again */
	get(&r, "/v1/dataset?count=10&depth=1-2&column=depth", NULL, 200);
	http_response_free(&r);
}
END_TEST

/* Downloads one after another never find the last one still counted:
 * a stream is counted out when its last bytes are made (not when the
 * server has finished sending them, which the client may see after its
 * next request arrives), and a HEAD, which sends none, is not counted.
 * With a cap of one download a client, any overlap is a 429; before,
 * back-to-back downloads got 429 too_many_streams now and then (one in
 * six runs of same_bytes_as_cli at the cap of 2). */
START_TEST(downloads_back_to_back)
{
	server one;
	const char *const one_args[] = {"--rate-limit", "0",
					"--dataset-client-streams", "1", NULL};
	start_or_abort(&one, NULL, one_args);
	const char *path = "/v1/dataset?count=3000&depth=1-20&column=features";
	for (int i = 0; i < 200; i++) {
		http_response r;
		call(&r, one.port, "GET", path, NULL, NULL, NULL);
		ck_assert_msg(r.status == 200, "GET %d: %d %s", i, r.status,
			      r.body ? r.body : "");
		http_response_free(&r);
		call(&r, one.port, "HEAD", path, NULL, NULL, NULL);
		ck_assert_msg(r.status == 200, "HEAD %d: %d", i, r.status);
		http_response_free(&r);
	}
	ck_assert_int_eq(server_stop(&one, 1), 0);
}
END_TEST

/* -------------------------------------------------------------- jobs */

static json_t *wait_job(const char *loc, const char *state)
{
	double t0 = now_s();
	for (;;) {
		json_t *j = expect_json(srv.port, "GET", loc, NULL, NULL, NULL, 200, NULL);
		if (strcmp(sget(j, "state"), state) == 0)
			return j;
		ck_assert_msg(strcmp(sget(j, "state"), "failed") != 0, "job failed: %s",
			      json_dumps(j, 0));
		json_decref(j);
		ck_assert_msg(now_s() - t0 < 240, "job never became %s", state);
		test_sleep_ms(20);
	}
}

/* Solver labels as a job: 202, progress, every file the CLI's bytes
 * (same tables), Range on a file, NumPy loads them, laws hold. */
START_TEST(job_files)
{
	const char *q = "count=500&depth=1-12&seed=21&labels=depth,twophase,optimal&"
			"columns=stickers,index";
	char path[300];
	snprintf(path, sizeof path, "/v1/dataset?%s", q);
	http_response r;
	json_t *j = expect_json(srv.port, "POST", path, NULL, NULL, NULL, 202, &r);
	ck_assert_str_eq(sget(j, "kind"), "dataset");
	char loc[160];
	snprintf(loc, sizeof loc, "%s", http_header(&r, "Location"));
	ck_assert_int_eq(strncmp(loc, "/v1/jobs/", 9), 0);
	json_decref(j);
	http_response_free(&r);
	j = wait_job(loc, "done");
	json_t *pr = json_object_get(j, "progress");
	ck_assert_int_eq(iget(pr, "done"), 500);
	ck_assert_int_eq(iget(pr, "total"), 500);
	json_t *files = json_object_get(j, "files");
	ck_assert_uint_eq(json_array_size(files), 6); /* 5 columns + meta.json */

	char dir[] = "/tmp/cubed-hdj-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char cli[128], got[128], msg[2048];
	snprintf(cli, sizeof cli, "%s/cli", dir);
	snprintf(got, sizeof got, "%s/http", dir);
	mkdir(got, 0755);
	const char *argv[] = {cubed_bin(), "dataset", "--count", "500", "--depth", "1-12",
			      "--seed", "21", "--labels", "depth,twophase,optimal",
			      "--columns", "stickers,index", "--optimal-level", "0",
			      "--tables", tables(), "--out", cli, "--quiet", NULL};
	ck_assert_msg(cli_run(argv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	size_t i;
	json_t *f;
	json_array_foreach(files, i, f) {
		const char *name = sget(f, "name");
		get(&r, sget(f, "href"), NULL, 200);
		char file[300];
		snprintf(file, sizeof file, "%s/%s", got, name);
		spit(file, r.body, r.body_len);
		if (strcmp(name, "meta.json") != 0) {
			ck_assert_int_eq(iget(f, "bytes"), (long long)r.body_len);
			snprintf(file, sizeof file, "%s/%s", cli, name);
			size_t len;
			unsigned char *want = read_whole(file, &len);
			ck_assert_msg(len == r.body_len && memcmp(want, r.body, len) == 0,
				      "%s differs from the CLI's", name);
			free(want);
			/* and resumable */
			http_response t;
			get(&t, sget(f, "href"), "Range: bytes=100-", 206);
			ck_assert(memcmp(t.body, r.body + 100, r.body_len - 100) == 0);
			http_response_free(&t);
		}
		http_response_free(&r);
	}
	char py[600];
	snprintf(py, sizeof py, "%s", got);
	const char *pargv[] = {"/usr/bin/python3", "tests/lib/dataset_check.py", py, "--laws", NULL};
	ck_assert_msg(cli_run(pargv, msg, sizeof msg, 0, NULL) == 0, "%s", msg);
	rm_dir(dir);
	json_decref(j);
	/* a file the job does not have */
	char bad[200];
	snprintf(bad, sizeof bad, "%s/files/features.npy", loc);
	json_decref(expect_problem(srv.port, "GET", bad, NULL, NULL, NULL, 404, "not_found",
				   "no_such_file", NULL, NULL));
}
END_TEST

/* A long job: its files are 409 until done; DELETE cancels it. */
START_TEST(job_cancel)
{
	http_response r;
	json_t *j = expect_json(srv.port, "POST",
				"/v1/dataset?count=1000000&labels=twophase&twophase_nodes=1000000",
				NULL, NULL, NULL, 202, &r);
	char loc[160], file[200];
	snprintf(loc, sizeof loc, "%s", http_header(&r, "Location"));
	json_decref(j);
	http_response_free(&r);
	snprintf(file, sizeof file, "%s/files/twophase.npy", loc);
	json_t *p = expect_problem(srv.port, "GET", file, NULL, NULL, NULL, 409, "conflict",
				   "job_not_done", NULL, NULL);
	json_decref(p);
	j = expect_json(srv.port, "DELETE", loc, NULL, NULL, NULL, 200, NULL);
	ck_assert_str_eq(sget(j, "state"), "cancelled");
	json_decref(j);
	p = expect_problem(srv.port, "GET", file, NULL, NULL, NULL, 409, "conflict",
			   "job_not_done", NULL, NULL);
	ck_assert_str_eq(sget(p, "state"), "cancelled");
	json_decref(p);
}
END_TEST

Suite *http_dataset_suite(void)
{
	Suite *s = suite_create("http_dataset");
	TCase *tc = tcase_create("dataset");
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, same_bytes_as_cli);
	tcase_add_test(tc, features_match_convert);
	tcase_add_test(tc, ranges_resume);
	tcase_add_test(tc, bad_parameters);
	tcase_add_test(tc, backpressure_and_hangup);
	tcase_add_test(tc, client_caps);
	tcase_add_test(tc, downloads_back_to_back);
	tcase_add_test(tc, job_files);
	tcase_add_test(tc, job_cancel);
	suite_add_tcase(s, tc);
	return s;
}
