/* dataset_params.c — a dataset's parameters from text, checked as a
 * whole, and told back as .npy headers and meta.json (dataset_params.h).
 * Shared by `cubed dataset` (dataset_cli.c) and GET /v1/dataset. */
#include "dataset_params.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "version.h"

void dsp_init(struct dsp *p)
{
	memset(p, 0, sizeof *p);
	p->spec.n = 3;
	p->spec.metric = DATASET_HTM;
	p->spec.states = DATASET_UNIFORM;
	p->spec.twophase_nodes = DSP_DEFAULT_TWOPHASE_NODES;
	p->spec.optimal_max = DSP_DEFAULT_OPTIMAL_MAX;
	p->shard_k = p->shard_n = 1;
}

static int say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal digits only (no sign, no spaces), at most max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* A comma list of names into bits; labels 1 for --labels (labels only),
 * 0 for --columns (columns only). "none" or "" is the empty list. */
static int parse_list(const char *name, const char *v, int labels,
		      unsigned *out, char *err, size_t len)
{
	unsigned bits = 0;
	if (strcmp(v, "none") == 0 || !*v) {
		*out = 0;
		return 0;
	}
	const char *s = v;
	for (;;) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		int c = dataset_column_find(s, n);
		if (c < 0 || (c >= DATASET_FIRST_LABEL) != labels)
			return say(err, len,
				   "%s: unknown %s '%.*s' (%s)", name,
				   labels ? "label" : "column", (int)n, s,
				   labels ? "depth, twophase, optimal"
					  : "stickers, features, features_packed, index");
		bits |= 1u << c;
		if (!e)
			break;
		s = e + 1;
	}
	*out = bits;
	return 0;
}

int dsp_set(struct dsp *p, const char *name, const char *value, char *err,
	    size_t len)
{
	char key[32];
	size_t k = 0;
	for (; name[k] && k + 1 < sizeof key; k++)
		key[k] = name[k] == '-' ? '_' : name[k];
	key[k] = 0;
	const char *v = value ? value : "";
	uint64_t x;
	if (strcmp(key, "size") == 0) {
		if (parse_u64(v, DATASET_MAX_N, &x) < 0 || x < DATASET_MIN_N)
			return say(err, len, "size: must be a whole number from 2 to 1024, not '%s'", v);
		p->spec.n = (int)x;
	} else if (strcmp(key, "count") == 0) {
		if (parse_u64(v, UINT64_C(1) << 40, &x) < 0 || x < 1)
			return say(err, len, "count: must be a whole number from 1 to 2^40, not '%s'", v);
		p->spec.count = x;
		p->have_count = 1;
	} else if (strcmp(key, "depth") == 0) {
		char a[24] = "", b[24] = "";
		const char *dash = strchr(v, '-');
		size_t la = dash ? (size_t)(dash - v) : strlen(v);
		uint64_t lo, hi;
		if (la >= sizeof a || (dash && strlen(dash + 1) >= sizeof b))
			return say(err, len, "depth: must be MIN-MAX or D, not '%s'", v);
		memcpy(a, v, la);
		snprintf(b, sizeof b, "%s", dash ? dash + 1 : a);
		if (parse_u64(a, 100000, &lo) < 0 || parse_u64(b, 100000, &hi) < 0)
			return say(err, len, "depth: must be MIN-MAX or D (whole numbers), not '%s'", v);
		if (lo > hi)
			return say(err, len, "depth: MIN %" PRIu64 " is above MAX %" PRIu64, lo, hi);
		p->spec.depth_min = (int)lo;
		p->spec.depth_max = (int)hi;
		p->have_depth = 1;
	} else if (strcmp(key, "metric") == 0) {
		if (strcmp(v, "htm") == 0)
			p->spec.metric = DATASET_HTM;
		else if (strcmp(v, "qtm") == 0)
			p->spec.metric = DATASET_QTM;
		else
			return say(err, len, "metric: must be htm or qtm, not '%s'", v);
	} else if (strcmp(key, "seed") == 0) {
		if (parse_u64(v, INT64_MAX, &x) < 0)
			return say(err, len, "seed: must be a whole number from 0 to 2^63-1, not '%s'", v);
		p->spec.seed = x;
	} else if (strcmp(key, "columns") == 0) {
		unsigned bits;
		if (parse_list("columns", v, 0, &bits, err, len) < 0)
			return -1;
		p->columns = (p->columns & ~((1u << DATASET_FIRST_LABEL) - 1)) | bits;
		p->have_columns = 1;
	} else if (strcmp(key, "labels") == 0) {
		unsigned bits;
		if (parse_list("labels", v, 1, &bits, err, len) < 0)
			return -1;
		p->columns = (p->columns & ((1u << DATASET_FIRST_LABEL) - 1)) | bits;
		p->have_labels = 1;
	} else if (strcmp(key, "shard") == 0) {
		char a[24] = "";
		const char *sl = strchr(v, '/');
		uint64_t kk, nn;
		if (!sl || (size_t)(sl - v) >= sizeof a)
			return say(err, len, "shard: must be K/N (shard K of N, from 1), not '%s'", v);
		memcpy(a, v, (size_t)(sl - v));
		if (parse_u64(a, 1000000, &kk) < 0 || parse_u64(sl + 1, 1000000, &nn) < 0 ||
		    kk < 1 || nn < 1 || kk > nn)
			return say(err, len, "shard: must be K/N with 1 <= K <= N <= 1000000, not '%s'", v);
		p->shard_k = kk;
		p->shard_n = nn;
	} else if (strcmp(key, "all") == 0) {
		if (!*v || strcmp(v, "1") == 0 || strcmp(v, "true") == 0)
			p->spec.states = DATASET_ALL;
		else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
			p->spec.states = p->spec.states == DATASET_ALL ? DATASET_UNIFORM
								      : p->spec.states;
		else
			return say(err, len, "all: must be true or false, not '%s'", v);
	} else if (strcmp(key, "twophase_nodes") == 0) {
		if (parse_u64(v, UINT64_C(1) << 40, &x) < 0 || x < 1)
			return say(err, len, "twophase_nodes: must be a whole number from 1 to 2^40, not '%s'", v);
		p->spec.twophase_nodes = x;
	} else if (strcmp(key, "optimal_max") == 0) {
		if (parse_u64(v, DATASET_MAX_OPTIMAL, &x) < 0 || x < 1)
			return say(err, len, "optimal_max: must be a whole number from 1 to 20, not '%s'", v);
		p->spec.optimal_max = (int)x;
	} else {
		return 1;
	}
	return 0;
}

int dsp_finish(struct dsp *p, const struct dsp_caps *caps, char *err,
	       size_t len, const char **param, uint64_t *limit)
{
	dataset_spec *s = &p->spec;
	const char *bad = NULL;
	uint64_t cap = 0;
	int all = s->states == DATASET_ALL;
	if (all && p->have_depth) {
		bad = "all";
		say(err, len, "all: every 2x2 state is listed once, with no walk: leave out depth");
		goto fail;
	}
	if (!all)
		s->states = p->have_depth ? DATASET_WALK : DATASET_UNIFORM;
	if (all) {
		if (p->have_count && s->count != CUBE2_STATES) {
			bad = "count";
			say(err, len, "count: all lists the 3674160 states of the 2x2: leave out count");
			goto fail;
		}
		s->count = CUBE2_STATES;
	} else if (!p->have_count) {
		bad = "count";
		say(err, len, "count: how many samples? (count is required unless all is set)");
		goto fail;
	}
	unsigned cols = p->columns;
	if (!p->have_columns)
		cols |= 1u << (s->n <= 3 ? DATASET_FEATURES : DATASET_STICKERS);
	if (!p->have_labels) {
		if (s->states == DATASET_WALK)
			cols |= 1u << DATASET_DEPTH;
		else if (all)
			cols |= 1u << DATASET_OPTIMAL;
	}
	s->columns = cols;
	if (caps) {
		if (s->n > caps->max_size) {
			bad = "size";
			cap = (uint64_t)caps->max_size;
			say(err, len, "size: at most %d here", caps->max_size);
			goto fail;
		}
		if (s->states == DATASET_WALK && s->depth_max > caps->max_depth) {
			bad = "depth";
			cap = (uint64_t)caps->max_depth;
			say(err, len, "depth: walks are at most %d turns here", caps->max_depth);
			goto fail;
		}
	}
	dataset_problem pr;
	if (dataset_check(s, &pr) < 0) {
		bad = pr.param;
		say(err, len, "%s: %s", pr.param, pr.why);
		goto fail;
	}
	if (p->shard_n > s->count) {
		bad = "shard";
		say(err, len, "shard: %" PRIu64 " shards of %" PRIu64 " samples would leave some empty",
		    p->shard_n, s->count);
		goto fail;
	}
	/* shard k of n holds [floor((k-1)·count/n), floor(k·count/n)):
	 * count <= 2^40 and n <= 10^6, so the products fit */
	p->first = (p->shard_k - 1) * s->count / p->shard_n;
	p->rows = p->shard_k * s->count / p->shard_n - p->first;
	if (caps && p->rows > caps->max_count) {
		bad = "count";
		cap = caps->max_count;
		say(err, len, "count: at most %" PRIu64 " samples a request here", caps->max_count);
		goto fail;
	}
	if (param)
		*param = NULL;
	if (limit)
		*limit = 0;
	return 0;
fail:
	if (param)
		*param = bad;
	if (limit)
		*limit = cap;
	return -1;
}

size_t npy_header(const dataset_spec *s, int col, uint64_t rows, char *out,
		  size_t cap)
{
	int ndim;
	uint64_t dims[3];
	const char *descr;
	if (dataset_shape(s, col, &ndim, dims, &descr) < 0)
		return 0;
	char shape[96];
	int n = snprintf(shape, sizeof shape, "(%" PRIu64 ",", rows);
	for (int d = 0; d < ndim; d++)
		n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%" PRIu64,
			      d ? ", " : " ", dims[d]);
	snprintf(shape + n, sizeof shape - (size_t)n, ")");
	char dict[160];
	int dl = snprintf(dict, sizeof dict,
			  "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
			  descr, shape);
	if (dl < 0 || (size_t)dl >= sizeof dict)
		return 0;
	/* 10 bytes of preamble, the dict, spaces, '\n': a multiple of 64 */
	size_t total = (10 + (size_t)dl + 1 + 63) / 64 * 64;
	if (total > cap)
		return 0;
	memcpy(out, "\x93NUMPY\x01\x00", 8);
	size_t hl = total - 10;
	out[8] = (char)(hl & 0xff);
	out[9] = (char)(hl >> 8);
	memcpy(out + 10, dict, (size_t)dl);
	memset(out + 10 + dl, ' ', total - 10 - (size_t)dl - 1);
	out[total - 1] = '\n';
	return total;
}

uint64_t dsp_file_bytes(const struct dsp *p, int col)
{
	char h[256];
	size_t hl = npy_header(&p->spec, col, p->rows, h, sizeof h);
	return hl + p->rows * dataset_row_bytes(&p->spec, col);
}

json_t *dsp_meta(const struct dsp *p)
{
	const dataset_spec *s = &p->spec;
	static const char *const states[] = {"uniform", "walk", "all"};
	struct version_info vi;
	version_get(&vi);
	json_t *cols = json_array(), *labels = json_array(), *files = json_object();
	json_t *m = json_object();
	if (!cols || !labels || !files || !m)
		goto oom;
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		if (!(s->columns & (1u << c)))
			continue;
		json_array_append_new(c < DATASET_FIRST_LABEL ? cols : labels,
				      json_string(dataset_column_name(c)));
		int ndim;
		uint64_t dims[3];
		const char *descr;
		dataset_shape(s, c, &ndim, dims, &descr);
		json_t *shape = json_array();
		json_array_append_new(shape, json_integer((json_int_t)p->rows));
		for (int d = 0; d < ndim; d++)
			json_array_append_new(shape, json_integer((json_int_t)dims[d]));
		char fname[40];
		snprintf(fname, sizeof fname, "%s.npy", dataset_column_name(c));
		json_object_set_new(files, dataset_column_name(c),
				    json_pack("{s:s, s:s, s:o, s:I}", "file", fname,
					      "dtype", descr[2] == '8' ? "uint64" : "uint8",
					      "shape", shape, "bytes",
					      (json_int_t)dsp_file_bytes(p, c)));
	}
	json_object_set_new(m, "format", json_string("cubed-dataset"));
	json_object_set_new(m, "cubed_version", json_string(vi.version));
	json_object_set_new(m, "cubed_commit", json_string(vi.commit));
	json_object_set_new(m, "size", json_integer(s->n));
	json_object_set_new(m, "metric", json_string(s->metric == DATASET_QTM ? "qtm" : "htm"));
	json_object_set_new(m, "states", json_string(states[s->states]));
	json_object_set_new(m, "depth", s->states == DATASET_WALK
						? json_pack("[i, i]", s->depth_min, s->depth_max)
						: json_null());
	json_object_set_new(m, "seed", json_integer((json_int_t)s->seed));
	json_object_set_new(m, "count", json_integer((json_int_t)s->count));
	json_object_set_new(m, "shard",
			    json_pack("{s:I, s:I, s:I, s:I}", "k", (json_int_t)p->shard_k,
				      "n", (json_int_t)p->shard_n, "first",
				      (json_int_t)p->first, "rows", (json_int_t)p->rows));
	json_object_set_new(m, "columns", cols);
	json_object_set_new(m, "labels", labels);
	json_object_set_new(m, "missing", json_integer(DATASET_MISSING));
	if (s->columns & (1u << DATASET_TWOPHASE))
		json_object_set_new(m, "twophase_nodes", json_integer((json_int_t)s->twophase_nodes));
	if ((s->columns & (1u << DATASET_OPTIMAL)) && s->n == 3) {
		json_object_set_new(m, "optimal_max", json_integer(s->optimal_max));
		json_object_set_new(m, "optimal_level", json_integer(p->optimal_level));
	}
	json_object_set_new(m, "files", files);
	return m;
oom:
	json_decref(cols);
	json_decref(labels);
	json_decref(files);
	json_decref(m);
	return NULL;
}
