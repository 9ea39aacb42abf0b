/* compress.c — gzip (zlib) and br (libbrotli) content coding for replies:
 * Accept-Encoding negotiation, the media types worth it, one-shot and
 * streaming coders with counted memory, the cache for bodies that live as
 * long as the server, and the entity-tag suffix rule (see compress.h). */
#include "compress.h"

#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <brotli/encode.h>
#include <zlib.h>

const char *compress_name(enum compress_coding c)
{
	switch (c) {
	case COMPRESS_GZIP:
		return "gzip";
	case COMPRESS_BR:
		return "br";
	case COMPRESS_IDENTITY:
		break;
	}
	return NULL;
}

int compress_parse_list(const char *s, unsigned *mask)
{
	*mask = 0;
	if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0)
		return 0;
	const char *p = s;
	while (*p) {
		size_t n = strcspn(p, ",");
		const char *q = p;
		while (n && *q == ' ')
			q++, n--;
		while (n && q[n - 1] == ' ')
			n--;
		if (n == 4 && strncmp(q, "gzip", 4) == 0)
			*mask |= COMPRESS_BIT(COMPRESS_GZIP);
		else if (n == 2 && strncmp(q, "br", 2) == 0)
			*mask |= COMPRESS_BIT(COMPRESS_BR);
		else
			return -1;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	return *mask ? 0 : -1;
}

/* ---- Accept-Encoding ----------------------------------------------------- */

/* A q-value (RFC 9110: "0" or "1", then optionally "." and up to three
 * digits, all zeros after a 1): thousandths, or -1 if malformed. */
static int parse_q(const char *s, size_t n)
{
	if (n == 0 || (s[0] != '0' && s[0] != '1') || n > 5 ||
	    (n > 1 && s[1] != '.'))
		return -1;
	int v = s[0] == '1' ? 1000 : 0, scale = 100;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (!isdigit((unsigned char)s[i]) || (s[0] == '1' && s[i] != '0'))
			return -1;
		v += (s[i] - '0') * scale;
	}
	return v;
}

enum compress_coding compress_negotiate(const char *ae, unsigned offered,
					int *identity_ok)
{
	/* q in thousandths per coding; -1 = not named */
	int q[3] = {-1, -1, -1}, star = -1;
	*identity_ok = 1;
	if (ae == NULL)
		return COMPRESS_IDENTITY;
	const char *p = ae;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *e = p, *end = p + len;
		while (e < end && (*e == ' ' || *e == '\t'))
			e++;
		size_t tlen = 0;
		while (e + tlen < end && e[tlen] != ';' && e[tlen] != ' ' &&
		       e[tlen] != '\t')
			tlen++;
		int qv = 1000;
		const char *par = e + tlen;
		while (par < end) {
			while (par < end && (*par == ' ' || *par == '\t' ||
					     *par == ';'))
				par++;
			size_t plen = 0;
			while (par + plen < end && par[plen] != ';')
				plen++;
			size_t vlen = plen;
			while (vlen && (par[vlen - 1] == ' ' ||
					par[vlen - 1] == '\t'))
				vlen--;
			if (vlen >= 2 && (par[0] == 'q' || par[0] == 'Q') &&
			    par[1] == '=')
				qv = parse_q(par + 2, vlen - 2);
			par += plen;
		}
		int which = -2;
		if (tlen == 4 && strncasecmp(e, "gzip", 4) == 0)
			which = COMPRESS_GZIP;
		else if (tlen == 6 && strncasecmp(e, "x-gzip", 6) == 0)
			which = COMPRESS_GZIP;
		else if (tlen == 2 && strncasecmp(e, "br", 2) == 0)
			which = COMPRESS_BR;
		else if (tlen == 8 && strncasecmp(e, "identity", 8) == 0)
			which = COMPRESS_IDENTITY;
		else if (tlen == 1 && e[0] == '*')
			which = -1;
		if (qv >= 0) {
			if (which == -1)
				star = qv;
			else if (which >= 0 && qv > q[which])
				q[which] = qv; /* named twice: the kinder */
		}
		p += len;
		if (*p == ',')
			p++;
	}
	for (int c = 0; c < 3; c++)
		if (q[c] < 0 && star >= 0)
			q[c] = star;
	if (q[COMPRESS_IDENTITY] == 0)
		*identity_ok = 0;
	/* unnamed identity: acceptable, least preferred */
	int qid = q[COMPRESS_IDENTITY] < 0 ? 0 : q[COMPRESS_IDENTITY];
	enum compress_coding best = COMPRESS_IDENTITY;
	int bestq = qid;
	/* gzip first, then br: a tie goes to the later one, and any tie
	 * with identity to the coding */
	static const enum compress_coding order[] = {COMPRESS_GZIP, COMPRESS_BR};
	for (int i = 0; i < 2; i++) {
		enum compress_coding c = order[i];
		if ((offered & COMPRESS_BIT(c)) && q[c] > 0 && q[c] >= bestq)
			best = c, bestq = q[c];
	}
	return best;
}

int compress_type_ok(const char *ct)
{
	if (ct == NULL)
		return 0;
	size_t n = strcspn(ct, "; ");
	static const char *const types[] = {
		"application/json", "application/problem+json",
		"application/yaml", "application/javascript",
		"application/xml", "application/wasm",
		"application/manifest+json", "image/svg+xml",
		"application/openapi+yaml",
	};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strlen(types[i]) == n && strncasecmp(ct, types[i], n) == 0)
			return 1;
	if (n > 5 && strncasecmp(ct, "text/", 5) == 0)
		return !(n == 17 && strncasecmp(ct, "text/event-stream", 17) == 0);
	return 0;
}

/* ---- coders ---------------------------------------------------------------- */

struct compress_stream {
	enum compress_coding c;
	const unsigned char *src;
	size_t len, pos;   /* bytes of src handed to the coder */
	int done, failed;
	uint64_t out;
	size_t held, peak; /* the coder's heap bytes now and at most */
	z_stream z;
	BrotliEncoderState *br;
};

/* Counting allocators: every block carries its size in front. */
struct hdr {
	size_t size;
	max_align_t pad[];
};

static void *count_alloc(struct compress_stream *s, size_t size)
{
	struct hdr *h = malloc(sizeof *h + size);
	if (h == NULL)
		return NULL;
	h->size = size;
	s->held += size;
	if (s->held > s->peak)
		s->peak = s->held;
	return h->pad;
}

static void count_free(struct compress_stream *s, void *p)
{
	if (p == NULL)
		return;
	struct hdr *h = (struct hdr *)((char *)p - offsetof(struct hdr, pad));
	s->held -= h->size;
	free(h);
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	if (size && items > SIZE_MAX / size)
		return NULL;
	return count_alloc(opaque, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
	count_free(opaque, p);
}

static void *br_alloc(void *opaque, size_t size)
{
	return count_alloc(opaque, size);
}

static void br_free(void *opaque, void *p)
{
	count_free(opaque, p);
}

/* Window bits for a body of len bytes: no bigger than the body needs, at
 * most 2^18 (256 KiB), which bounds br's state. */
static int br_window(size_t len)
{
	int bits = BROTLI_MIN_WINDOW_BITS;
	while (bits < 18 && ((size_t)1 << bits) < len)
		bits++;
	return bits;
}

struct compress_stream *compress_stream_new(enum compress_coding c,
					    int level, const void *src,
					    size_t len)
{
	struct compress_stream *s = calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	s->c = c;
	s->src = src;
	s->len = len;
	if (c == COMPRESS_GZIP) {
		s->z.zalloc = z_alloc;
		s->z.zfree = z_free;
		s->z.opaque = s;
		/* 15 + 16: a gzip wrapper, not zlib's */
		if (deflateInit2(&s->z, level, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			free(s);
			return NULL;
		}
		return s;
	}
	if (c == COMPRESS_BR) {
		s->br = BrotliEncoderCreateInstance(br_alloc, br_free, s);
		if (s->br == NULL) {
			free(s);
			return NULL;
		}
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_QUALITY,
					  (uint32_t)level);
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_LGWIN,
					  (uint32_t)br_window(len));
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_MODE,
					  BROTLI_MODE_TEXT);
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_SIZE_HINT,
					  len > UINT32_MAX ? UINT32_MAX
							   : (uint32_t)len);
		return s;
	}
	free(s);
	return NULL;
}

static ssize_t gzip_read(struct compress_stream *s, char *buf, size_t max)
{
	if (max > UINT_MAX)
		max = UINT_MAX;
	s->z.next_out = (Bytef *)buf;
	s->z.avail_out = (uInt)max;
	while (s->z.avail_out > 0 && !s->done) {
		if (s->z.avail_in == 0 && s->pos < s->len) {
			size_t k = s->len - s->pos;
			if (k > (1u << 30))
				k = 1u << 30;
			s->z.next_in = (Bytef *)(s->src + s->pos);
			s->z.avail_in = (uInt)k;
			s->pos += k;
		}
		int flush = s->pos == s->len ? Z_FINISH : Z_NO_FLUSH;
		int rc = deflate(&s->z, flush);
		if (rc == Z_STREAM_END)
			s->done = 1;
		else if (rc != Z_OK && rc != Z_BUF_ERROR)
			return -1;
		else if (rc == Z_BUF_ERROR && s->z.avail_in == 0 &&
			 s->pos == s->len && s->z.avail_out == max)
			return -1; /* no progress possible: a coder bug */
	}
	return (ssize_t)(max - s->z.avail_out);
}

static ssize_t br_read(struct compress_stream *s, char *buf, size_t max)
{
	size_t avail_out = max;
	uint8_t *next_out = (uint8_t *)buf;
	while (avail_out > 0 && !s->done) {
		size_t avail_in = s->len - s->pos;
		const uint8_t *next_in = s->src + s->pos;
		if (!BrotliEncoderCompressStream(s->br, BROTLI_OPERATION_FINISH,
						 &avail_in, &next_in,
						 &avail_out, &next_out, NULL))
			return -1;
		s->pos = s->len - avail_in;
		if (BrotliEncoderIsFinished(s->br))
			s->done = 1;
	}
	return (ssize_t)(max - avail_out);
}

ssize_t compress_stream_read(struct compress_stream *s, char *buf, size_t max)
{
	if (s->failed)
		return -1;
	if (s->done || max == 0)
		return 0;
	ssize_t n = s->c == COMPRESS_GZIP ? gzip_read(s, buf, max)
					  : br_read(s, buf, max);
	if (n < 0) {
		s->failed = 1;
		return -1;
	}
	s->out += (uint64_t)n;
	return n;
}

uint64_t compress_stream_out(const struct compress_stream *s)
{
	return s->out;
}

size_t compress_stream_peak(const struct compress_stream *s)
{
	return s->peak;
}

void compress_stream_free(struct compress_stream *s)
{
	if (s == NULL)
		return;
	if (s->c == COMPRESS_GZIP)
		deflateEnd(&s->z);
	else if (s->br)
		BrotliEncoderDestroyInstance(s->br);
	free(s);
}

int compress_oneshot(enum compress_coding c, int level, const void *src,
		     size_t len, char **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	size_t cap = c == COMPRESS_GZIP ? compressBound((uLong)len) + 32
					: BrotliEncoderMaxCompressedSize(len);
	if (cap == 0 || cap < len)
		return -1;
	char *buf = malloc(cap);
	struct compress_stream *s = compress_stream_new(c, level, src, len);
	int rc = -1;
	if (buf == NULL || s == NULL)
		goto done;
	size_t n = 0;
	for (;;) {
		ssize_t k = compress_stream_read(s, buf + n, cap - n);
		if (k < 0)
			goto done;
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap && !s->done)
			goto done; /* past the coder's own bound: a bug */
	}
	/* give back the slack of the bound */
	char *fit = realloc(buf, n ? n : 1);
	if (fit)
		buf = fit;
	*out = buf;
	*out_len = n;
	buf = NULL;
	rc = 0;
done:
	compress_stream_free(s);
	free(buf);
	return rc;
}

/* ---- the cache --------------------------------------------------------------- */

struct cache_entry {
	const void *src;
	size_t len;
	enum compress_coding c;
	char *data;
	size_t dlen;
};

struct compress_cache {
	pthread_mutex_t lock;
	int n;
	size_t bytes;
	struct cache_entry e[COMPRESS_CACHE_ENTRIES];
};

struct compress_cache *compress_cache_new(void)
{
	struct compress_cache *cc = calloc(1, sizeof *cc);
	if (cc)
		pthread_mutex_init(&cc->lock, NULL);
	return cc;
}

void compress_cache_free(struct compress_cache *cc)
{
	if (cc == NULL)
		return;
	for (int i = 0; i < cc->n; i++)
		free(cc->e[i].data);
	pthread_mutex_destroy(&cc->lock);
	free(cc);
}

static const char *cache_find(struct compress_cache *cc,
			      enum compress_coding c, const void *src,
			      size_t len, size_t *out_len)
{
	for (int i = 0; i < cc->n; i++)
		if (cc->e[i].src == src && cc->e[i].len == len &&
		    cc->e[i].c == c) {
			*out_len = cc->e[i].dlen;
			return cc->e[i].data;
		}
	return NULL;
}

const char *compress_cache_get(struct compress_cache *cc,
			       enum compress_coding c, const void *src,
			       size_t len, size_t *out_len)
{
	if (cc == NULL)
		return NULL;
	pthread_mutex_lock(&cc->lock);
	const char *hit = cache_find(cc, c, src, len, out_len);
	int full = cc->n == COMPRESS_CACHE_ENTRIES ||
		   cc->bytes >= COMPRESS_CACHE_BYTES;
	pthread_mutex_unlock(&cc->lock);
	if (hit || full)
		return hit;
	/* compress outside the lock (tens of milliseconds for a big file at
	 * the best setting); two threads may both do it once, the second
	 * keeps the first's */
	char *data;
	size_t dlen;
	if (compress_oneshot(c, c == COMPRESS_GZIP ? 9 : COMPRESS_CACHE_BR_QUALITY,
			     src, len, &data, &dlen) < 0)
		return NULL;
	pthread_mutex_lock(&cc->lock);
	hit = cache_find(cc, c, src, len, out_len);
	if (hit == NULL && cc->n < COMPRESS_CACHE_ENTRIES &&
	    cc->bytes + dlen <= COMPRESS_CACHE_BYTES) {
		cc->e[cc->n++] = (struct cache_entry){src, len, c, data, dlen};
		cc->bytes += dlen;
		*out_len = dlen;
		hit = data;
		data = NULL;
	}
	pthread_mutex_unlock(&cc->lock);
	free(data);
	return hit;
}

/* ---- entity tags ----------------------------------------------------------- */

int compress_etag_with(const char *etag, enum compress_coding c, char *out,
		       size_t cap)
{
	const char *suffix = compress_name(c);
	size_t n = strlen(etag);
	const char *open = strchr(etag, '"');
	if (suffix == NULL || n < 2 || etag[n - 1] != '"' || open == NULL ||
	    open == etag + n - 1 || n + strlen(suffix) + 2 > cap) {
		if (cap) {
			size_t k = n < cap - 1 ? n : cap - 1;
			memcpy(out, etag, k);
			out[k] = '\0';
		}
		return -1;
	}
	memcpy(out, etag, n - 1);
	out[n - 1] = '-';
	strcpy(out + n, suffix);
	strcat(out, "\"");
	return 0;
}

int compress_etag_strip(const char *list, char *out, size_t cap)
{
	size_t o = 0;
	int inside = 0, changed = 0;
	for (const char *p = list; *p; p++) {
		if (o + 1 >= cap)
			return -1;
		if (*p == '"' && inside) {
			if (o >= 5 && memcmp(out + o - 5, "-gzip", 5) == 0)
				o -= 5, changed = 1;
			else if (o >= 3 && memcmp(out + o - 3, "-br", 3) == 0)
				o -= 3, changed = 1;
		}
		if (*p == '"')
			inside = !inside;
		out[o++] = *p;
	}
	out[o] = '\0';
	return changed;
}

enum compress_coding compress_etag_suffix_in(const char *list,
					     const char *etag)
{
	char tag[300];
	static const enum compress_coding cs[] = {COMPRESS_GZIP, COMPRESS_BR};
	if (list == NULL || etag == NULL)
		return COMPRESS_IDENTITY;
	/* the quoted part only: W/ does not matter to a weak comparison */
	const char *q = strchr(etag, '"');
	for (int i = 0; q && i < 2; i++)
		if (compress_etag_with(q, cs[i], tag, sizeof tag) == 0 &&
		    strstr(list, tag))
			return cs[i];
	return COMPRESS_IDENTITY;
}
