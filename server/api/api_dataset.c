/* api_dataset.c — labelled states in bulk over HTTP (docs/dataset.md):
 *
 *   GET  /v1/dataset?…&column=NAME   one column's .npy, made while it is
 *                                    sent (Content-Length up front, Range
 *                                    honoured: 206, 416), or column=meta
 *                                    for meta.json, or format=ndjson for a
 *                                    small request's rows as JSON lines
 *   POST /v1/dataset?…               a job for labels a solver makes
 *                                    (two-phase, 3×3 optimal): 202
 *   GET  /v1/jobs/{jid}/files/{file} a done dataset job's files
 *
 * The parameters are `cubed dataset`'s (dataset_params.c): a bad one is
 * 422 bad_parameter naming it, one past a server cap 422 limit_exceeded
 * with the limit. Streams are capped per client address and in all
 * (dataset_stream.c) like solves are: 429 too_many_streams, 503
 * streams_full. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api_internal.h"
#include "dataset_params.h"
#include "dataset_stream.h"
#include "jobs.h"
#include "problem.h"

static const char *const params[] = {
	"size",    "count", "depth",  "metric",         "seed",
	"columns", "labels", "shard", "all",            "twophase_nodes",
	"optimal_max", "column", "format", NULL,
};

static int no_service(const struct api_config *cfg, struct api_reply *rp)
{
	if (cfg->datasets)
		return 0;
	problem_reply(rp, PROBLEM_OUT_OF_MEMORY,
		      "datasets are unavailable on this server (it ran out of "
		      "memory at start)");
	api_reply_header(rp, "Retry-After", "60");
	return -1;
}

/* The query into p (every parameter but column and format), checked
 * against caps; *column is column=, *format format= (NULL if absent).
 * 0, or -1 with rp the problem. */
static int parse(const struct api_config *cfg, const struct api_request *rq,
		 const struct dsp_caps *caps, struct dsp *p, int *column,
		 const char **format, struct api__query *q, struct api_reply *rp)
{
	if (api__query_parse(rq->query, params, q, rp) < 0)
		return -1;
	dsp_init(p);
	p->optimal_level = (int)cfg->dataset_optimal_level;
	char msg[300];
	for (int i = 0; i < q->n; i++) {
		if (!strcmp(q->key[i], "column") || !strcmp(q->key[i], "format"))
			continue;
		if (dsp_set(p, q->key[i], q->val[i], msg, sizeof msg) != 0) {
			api__bad_field(rp, PROBLEM_BAD_PARAMETER, q->key[i], "%s", msg);
			return -1;
		}
	}
	*format = api__query_get(q, "format");
	const char *col = api__query_get(q, "column");
	*column = -1;
	if (col && strcmp(col, "meta") != 0) {
		*column = dataset_column_find(col, strlen(col));
		if (*column < 0) {
			api__bad_field(rp, PROBLEM_BAD_PARAMETER, "column",
				       "column: no column '%.40s' (stickers, features, "
				       "features_packed, index, depth, twophase, optimal, "
				       "or meta for meta.json)", col);
			return -1;
		}
		/* the column asked for is one of the dataset's */
		p->columns |= 1u << *column;
		if (*column >= DATASET_FIRST_LABEL)
			p->have_labels = 1;
		else
			p->have_columns = 1;
	} else if (col) {
		*column = DATASET_NCOLUMNS; /* meta */
	}
	const char *param;
	uint64_t limit;
	if (dsp_finish(p, caps, msg, sizeof msg, &param, &limit) < 0) {
		json_t *pb = api__bad_field(rp, limit ? PROBLEM_LIMIT_EXCEEDED
						       : PROBLEM_BAD_PARAMETER,
					    param ? param : "query", "%s", msg);
		if (pb && limit)
			json_object_set_new(pb, "limit", json_integer((json_int_t)limit));
		return -1;
	}
	return 0;
}

/* Range: bytes=a-b, a-, -n (one range; anything else is ignored, as RFC
 * 9110 allows). 1 with [*from, *to) when it is one that fits, 0 when
 * there is none to honour, -1 when it starts past the end (416). */
static int range_of(const struct api_request *rq, uint64_t len, uint64_t *from,
		    uint64_t *to)
{
	const char *h = rq->header ? rq->header(rq->header_cls, "Range") : NULL;
	if (!h || strncasecmp(h, "bytes=", 6) != 0 || strchr(h, ','))
		return 0;
	const char *s = h + 6;
	char *end;
	if (*s == '-') {
		if (s[1] < '0' || s[1] > '9')
			return 0;
		unsigned long long n = strtoull(s + 1, &end, 10);
		if (*end)
			return 0;
		if (n == 0)
			return -1;
		*from = n >= len ? 0 : len - n;
		*to = len;
		return 1;
	}
	if (*s < '0' || *s > '9')
		return 0;
	unsigned long long a = strtoull(s, &end, 10), b = len ? len - 1 : 0;
	if (*end != '-')
		return 0;
	if (end[1]) {
		if (end[1] < '0' || end[1] > '9')
			return 0;
		char *e2;
		b = strtoull(end + 1, &e2, 10);
		if (*e2 || b < a)
			return 0;
	}
	if (a >= len)
		return -1;
	if (b >= len)
		b = len - 1;
	*from = a;
	*to = b + 1;
	return 1;
}

static long source_read(void *ctx, uint64_t pos, char *buf, size_t max)
{
	return dataset_source_read(ctx, pos, buf, max);
}

static void source_release(void *ctx)
{
	dataset_source_release(ctx);
}

/* Column col of p as a .npy body (labels: a job's rows, or NULL). */
static void serve_column(const struct api_config *cfg,
			 const struct api_request *rq, const struct dsp *p,
			 int col, const unsigned char *labels,
			 struct api_reply *rp)
{
	static const struct limits_key nobody = {0, {0}};
	uint64_t len = dsp_file_bytes(p, col), from = 0, to = len;
	int r = range_of(rq, len, &from, &to);
	if (r < 0) {
		problem_reply(rp, PROBLEM_RANGE_NOT_SATISFIABLE,
			      "the range starts past the file's %" PRIu64 " bytes",
			      len);
		api_reply_header(rp, "Content-Range", "bytes */%" PRIu64, len);
		return;
	}
	const void *dist2 = NULL;
	if (col == DATASET_OPTIMAL && p->spec.n == 2 && !labels &&
	    !(dist2 = dataset_service_dist2(cfg->datasets))) {
		problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		return;
	}
	struct api_body_source *bs = malloc(sizeof *bs);
	struct dataset_source *src = NULL;
	int rc = bs ? dataset_stream_open(cfg->datasets, p, col, dist2, labels,
					  rq->client ? rq->client : &nobody, from,
					  to, &src)
		    : DSO_NOMEM;
	if (rc != DSO_OK) {
		free(bs);
		if (rc == DSO_CLIENT_BUSY) {
			problem_reply(rp, PROBLEM_TOO_MANY_STREAMS,
				      "this client has as many dataset downloads "
				      "open as it may (--dataset-client-streams %u)",
				      dataset_service_config(cfg->datasets)->max_client_streams);
			api_reply_header(rp, "Retry-After", "1");
		} else if (rc == DSO_BUSY) {
			problem_reply(rp, PROBLEM_STREAMS_FULL,
				      "the server has as many dataset downloads "
				      "open as it may (--dataset-streams); try again "
				      "shortly");
			api_reply_header(rp, "Retry-After", "1");
		} else {
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
		}
		return;
	}
	/* a HEAD sends no body: its stream is not counted against the
	 * client's next download */
	if (rq->method && strcmp(rq->method, "HEAD") == 0)
		dataset_source_done(src);
	bs->length = to - from;
	bs->block = dataset_service_config(cfg->datasets)->block;
	bs->read = source_read;
	bs->release = source_release;
	bs->ctx = src;
	rp->source = bs;
	rp->status = r ? 206 : 200;
	rp->content_type = "application/octet-stream";
	api_reply_header(rp, "Accept-Ranges", "bytes");
	api_reply_header(rp, "Content-Disposition", "attachment; filename=\"%s.npy\"",
			 dataset_column_name(col));
	if (r)
		api_reply_header(rp, "Content-Range",
				 "bytes %" PRIu64 "-%" PRIu64 "/%" PRIu64, from, to - 1,
				 len);
}

static void serve_meta(const struct dsp *p, struct api_reply *rp)
{
	api_reply_json(rp, 200, dsp_meta(p));
}

void api__get_dataset(const struct api_config *cfg, const struct api_request *rq,
		      const struct api_args *a, struct api_reply *rp)
{
	(void)a;
	if (no_service(cfg, rp) < 0)
		return;
	const struct dataset_service_config *dc = dataset_service_config(cfg->datasets);
	struct api__query q;
	struct dsp p;
	int col;
	const char *format;
	if (parse(cfg, rq, &dc->caps, &p, &col, &format, &q, rp) < 0)
		return;
	unsigned solver = jobs_dataset_solver_columns(&p.spec);
	if (solver) {
		api__bad_field(rp, PROBLEM_DATASET_NEEDS_JOB, "labels",
			       "labels: %s labels are made by a solver: POST "
			       "/v1/dataset with the same query makes them as a job, "
			       "whose files are downloaded from /v1/jobs/{id}/files/",
			       (solver & (1u << DATASET_TWOPHASE)) ? "twophase" : "optimal");
		return;
	}
	if (format && strcmp(format, "npy") != 0 && strcmp(format, "ndjson") != 0) {
		api__bad_field(rp, PROBLEM_BAD_PARAMETER, "format",
			       "format: npy (one column's .npy, the default) or "
			       "ndjson (every column, a JSON object a line)");
		return;
	}
	if (format && strcmp(format, "ndjson") == 0) {
		if (p.rows > dc->max_ndjson_rows) {
			json_t *pb = api__bad_field(
				rp, PROBLEM_LIMIT_EXCEEDED, "count",
				"count: NDJSON is for small requests, at most %" PRIu64
				" samples; ask for .npy columns (format=npy) for more",
				dc->max_ndjson_rows);
			if (pb)
				json_object_set_new(pb, "limit",
						    json_integer((json_int_t)dc->max_ndjson_rows));
			return;
		}
		const void *dist2 = NULL;
		if ((p.spec.columns & (1u << DATASET_OPTIMAL)) && p.spec.n == 2 &&
		    !(dist2 = dataset_service_dist2(cfg->datasets))) {
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
			return;
		}
		char *text;
		size_t len;
		if (dataset_ndjson(&p, dist2, &text, &len) < 0) {
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
			return;
		}
		rp->status = 200;
		rp->content_type = "application/x-ndjson";
		rp->owned = text;
		rp->raw = text;
		rp->raw_len = len;
		return;
	}
	if (col < 0) {
		api__bad_field(rp, PROBLEM_MISSING_PARAMETER, "column",
			       "column: which file? one .npy is sent a request "
			       "(column=features, …), or column=meta for meta.json");
		return;
	}
	if (col == DATASET_NCOLUMNS) {
		serve_meta(&p, rp);
		return;
	}
	serve_column(cfg, rq, &p, col, NULL, rp);
}

void api__post_dataset(const struct api_config *cfg,
		       const struct api_request *rq, const struct api_args *a,
		       struct api_reply *rp)
{
	(void)a;
	if (no_service(cfg, rp) < 0)
		return;
	const struct dataset_service_config *dc = dataset_service_config(cfg->datasets);
	struct dsp_caps caps = dc->caps;
	if (caps.max_count > dc->max_job_rows)
		caps.max_count = dc->max_job_rows;
	struct api__query q;
	struct dsp p;
	int col;
	const char *format;
	if (parse(cfg, rq, &caps, &p, &col, &format, &q, rp) < 0)
		return;
	if (col >= 0 || format) {
		api__bad_field(rp, PROBLEM_UNKNOWN_PARAMETER, col >= 0 ? "column" : "format",
			       "a job makes every file of the dataset: column and "
			       "format are for GET /v1/dataset and the job's files");
		return;
	}
	struct job_request jr;
	memset(&jr, 0, sizeof jr);
	jr.kind = JOB_DATASET;
	jr.ds = p.spec;
	jr.ds_first = p.first;
	jr.ds_rows = p.rows;
	jr.ds_shard_k = p.shard_k;
	jr.ds_shard_n = p.shard_n;
	jr.ds_optimal_level = p.optimal_level;
	api__job_submit(cfg, rq, &jr, rp);
}


void api__job_file(const struct api_config *cfg, const struct api_request *rq,
		   const struct api_args *a, struct api_reply *rp)
{
	if (no_service(cfg, rp) < 0)
		return;
	if (!cfg->jobs) {
		problem_reply(rp, PROBLEM_NO_JOBS, "this server runs no jobs");
		return;
	}
	struct job_view v;
	int rc = jobs_get(cfg->jobs, a->id, &v);
	if (rc != JOBS_OK) {
		api__job_missing(rc, a->id, rp);
		return;
	}
	const char *file = strrchr(rq->path, '/');
	file = file ? file + 1 : "";
	if (v.rq.kind != JOB_DATASET) {
		problem_reply(rp, PROBLEM_NO_SUCH_FILE,
			      "job %s is a solve: it has no files", v.id);
		return;
	}
	struct dsp p;
	api__dataset_of_job(&v, &p);
	int col = -1;
	size_t fl = strlen(file);
	if (strcmp(file, "meta.json") != 0) {
		if (fl > 4 && strcmp(file + fl - 4, ".npy") == 0)
			col = dataset_column_find(file, fl - 4);
		if (col < 0 || !(p.spec.columns & (1u << col))) {
			problem_reply(rp, PROBLEM_NO_SUCH_FILE,
				      "job %s has no file %.60s (see its files)", v.id,
				      file);
			return;
		}
	}
	if (v.state != JOB_DONE) {
		json_t *pb = problem_reply(rp, PROBLEM_JOB_NOT_DONE,
					   "job %s is %s: its files are ready when it "
					   "is done",
					   v.id, job_state_name(v.state));
		if (pb)
			json_object_set_new(pb, "state", json_string(job_state_name(v.state)));
		if (v.state == JOB_QUEUED || v.state == JOB_RUNNING)
			api_reply_header(rp, "Retry-After", "1");
		return;
	}
	if (col < 0) {
		serve_meta(&p, rp);
		return;
	}
	unsigned char *labels = NULL;
	if (jobs_dataset_solver_columns(&p.spec) & (1u << col)) {
		labels = malloc(p.rows ? p.rows : 1);
		if (!labels) {
			problem_reply(rp, PROBLEM_OUT_OF_MEMORY, "out of memory");
			return;
		}
		rc = jobs_dataset_labels(cfg->jobs, v.id, col, labels);
		if (rc != JOBS_OK) {
			free(labels);
			api__job_missing(rc, v.id, rp);
			return;
		}
	}
	serve_column(cfg, rq, &p, col, labels, rp);
	free(labels);
}
