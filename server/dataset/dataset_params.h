/* dataset_params.h — the parameters of a dataset (core/dataset.h) as
 * `cubed dataset` and GET /v1/dataset both spell them: parsed one at a
 * time from text (a flag's value, a query argument), checked as a whole
 * against caps, and described back as meta.json. The CLI and the HTTP
 * handler share this so a flag and a query parameter can never mean two
 * things. */
#ifndef CUBED_DATASET_PARAMS_H
#define CUBED_DATASET_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "dataset.h"

/* Defaults a request starts from. */
#define DSP_DEFAULT_TWOPHASE_NODES 1400
#define DSP_DEFAULT_OPTIMAL_MAX 12

struct dsp {
	dataset_spec spec;
	int have_count, have_depth, have_columns, have_labels;
	unsigned columns; /* asked for by name, columns and labels alike */
	uint64_t shard_k, shard_n; /* 1-based shard k of n (1/1 = all) */
	uint64_t first, rows;      /* the samples this shard holds */
	int optimal_level;         /* the optimal tables' level (meta only) */
};

/* The caps one front end allows (the CLI's are the core's; the
 * server's are lower: a request past one gets 422 naming it). */
struct dsp_caps {
	uint64_t max_count; /* samples in a request (rows of the shard) */
	int max_size;
	int max_depth;
};

/* A request with every default. */
void dsp_init(struct dsp *p);

/* Set parameter name (the query's spelling: size, count, depth, metric,
 * seed, columns, labels, shard, all, twophase_nodes, optimal_max; the
 * CLI's --twophase-nodes is the same with '-') from text. 0, or -1 with
 * a sentence in err naming the parameter; 1 if the name is not one of
 * these (the caller may know it). */
int dsp_set(struct dsp *p, const char *name, const char *value, char *err,
	    size_t errlen);

/* Fill the defaults that depend on others, check the whole against the
 * core's rules and caps, and work out the shard's rows. 0, or -1 with
 * err; *param (if not NULL) names the parameter at fault, and *limit (if
 * not NULL) is the cap it passed (0 when it broke a rule, not a cap). */
int dsp_finish(struct dsp *p, const struct dsp_caps *caps, char *err,
	       size_t errlen, const char **param, uint64_t *limit);

/* The NumPy .npy (version 1.0) header of column col over rows samples
 * into out (cap bytes, 128 is enough up to four dimensions): magic,
 * version, the header length, the dict, padded with spaces and a newline
 * to a multiple of 64 bytes. Returns its length, 0 if it does not fit. */
size_t npy_header(const dataset_spec *s, int col, uint64_t rows, char *out,
		  size_t cap);

/* Bytes of column col's whole file for this shard (header + rows). */
uint64_t dsp_file_bytes(const struct dsp *p, int col);

/* meta.json for a request: size, metric, states, depth, seed, count,
 * shard, columns, labels, the missing value, budgets, version, and each
 * file's dtype and shape. A new reference; NULL when out of memory. */
json_t *dsp_meta(const struct dsp *p);

#endif
