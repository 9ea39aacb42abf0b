/* dataset_stream.h — datasets over HTTP (GET /v1/dataset and a dataset
 * job's files): one column's .npy made while it is sent, from any byte on
 * (Range), in blocks the reader pulls; NDJSON for small requests; the
 * per-client and total caps on open streams; the counters /metrics shows.
 *
 * A stream makes rows only inside its read, one block at a time (the
 * API hands it to the HTTP layer as a body source, api_reply.h): nothing is made ahead of the reader, and a client that
 * hangs up stops the making at once (libmicrohttpd stops reading and
 * releases the source). Thread-safe. */
#ifndef CUBED_DATASET_STREAM_H
#define CUBED_DATASET_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "client_limits.h"
#include "dataset_params.h"

struct dataset_service_config {
	unsigned max_streams;        /* open at once in all */
	unsigned max_client_streams; /* open at once per client address */
	struct dsp_caps caps;        /* count (rows a request), size, depth */
	uint64_t max_job_rows;       /* rows of a job (its labels are kept) */
	uint64_t max_ndjson_rows;    /* rows of an NDJSON answer */
	size_t block;                /* bytes a stream makes per read */
};

struct dataset_service;

/* NULL if memory ran out. */
struct dataset_service *dataset_service_new(const struct dataset_service_config *c);
/* Every stream must have been released first. */
void dataset_service_free(struct dataset_service *s);
const struct dataset_service_config *dataset_service_config(const struct dataset_service *s);

/* The 2×2 distance table (dataset2_table_init), made on first use (a
 * fraction of a second, once per server) and kept; NULL if memory ran
 * out. */
const void *dataset_service_dist2(struct dataset_service *s);

enum dataset_open {
	DSO_OK = 0,
	DSO_CLIENT_BUSY, /* the address has max_client_streams open: 429 */
	DSO_BUSY,        /* max_streams open: 503 */
	DSO_NOMEM,
};

struct dataset_source;

/* A source of bytes [from, to) of column col's .npy file of p (to <=
 * dsp_file_bytes). labels, when not NULL, holds the column's rows (a
 * job's solver labels, p->rows bytes, copied); otherwise the rows are made
 * from (seed, i), which needs no solver table (dist2 for 2×2 optimal
 * labels). On DSO_OK *out is the source, counted as open for client
 * until its last bytes are made (or dataset_source_done), at the latest
 * until it is released. */
int dataset_stream_open(struct dataset_service *s, const struct dsp *p,
			int col, const void *dist2, const unsigned char *labels,
			const struct limits_key *client, uint64_t from,
			uint64_t to, struct dataset_source **out);
/* Bytes from pos (0 = from) into buf, up to max: the count, or -1. */
long dataset_source_read(struct dataset_source *src, uint64_t pos,
			 char *buf, size_t max);
/* Done with it (sent or not). */
void dataset_source_release(struct dataset_source *src);
/* The client's stream counted out now (its last bytes are made, or a
 * HEAD sends none), before the source is released; at most once. */
void dataset_source_done(struct dataset_source *src);

/* The request's rows as NDJSON, one object a line: {"i": sample, then
 * each column and label by name} (index as a decimal string, labels as
 * numbers, missing as null). malloc'd text into *out. 0, or -1 out of
 * memory. */
int dataset_ndjson(const struct dsp *p, const void *dist2, char **out,
		   size_t *len);

struct dataset_stats {
	uint64_t streams_open;  /* gauge */
	uint64_t streams_total; /* opened */
	uint64_t streams_cut;   /* released before their last byte */
	uint64_t chunks;        /* blocks of rows made */
	uint64_t samples;       /* rows made */
	uint64_t bytes;         /* bytes handed out */
	uint64_t refused;       /* opens refused by a cap */
};
void dataset_service_stats(struct dataset_service *s, struct dataset_stats *out);

#endif
