/* static.c — serving the web page (see static.h). The built page is a
 * handful of files that never change while the server runs, so they are
 * read once at start-up, hashed once for their ETags, and answered from
 * memory: no file system access per request, no path ever built from a
 * request (a name is looked up in the table, never opened), and a bound on
 * what can be loaded at all. The build writes each asset's compressed
 * twins beside it (<name>.br, <name>.gz): a browser gets the smallest its
 * Accept-Encoding allows, at the highest q-value it names. */
#include "static.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "problem.h"
#include "token.h"

/* One encoding of a file: its bytes and their ETag. */
struct web_body {
	char *data;
	size_t len;
	char etag[40]; /* "\"" + 32 hex + "\"" */
};

struct web_file {
	char name[WEB_NAME_MAX + 1]; /* "index.html", or an asset's name */
	const char *type;            /* Content-Type */
	int immutable;               /* content-hashed name: cache for good */
	struct web_body plain;
	struct web_body gz;          /* data NULL when there is no .gz */
	struct web_body br;          /* data NULL when there is no .br */
};

struct web_root {
	struct web_file *files; /* files[0] is index.html */
	size_t n;
	size_t bytes;
};

static const struct {
	const char *ext;
	const char *type;
} types[] = {
	{".html", "text/html; charset=utf-8"},
	{".js", "text/javascript; charset=utf-8"},
	{".mjs", "text/javascript; charset=utf-8"},
	{".css", "text/css; charset=utf-8"},
	{".svg", "image/svg+xml"},
	{".png", "image/png"},
	{".webp", "image/webp"},
	{".ico", "image/x-icon"},
	{".json", "application/json"},
	{".map", "application/json"},
	{".txt", "text/plain; charset=utf-8"},
	{".woff2", "font/woff2"},
};

static const char *type_of(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		size_t el = strlen(types[i].ext);
		if (len > el && strncasecmp(name + len - el, types[i].ext, el) == 0)
			return types[i].type;
	}
	return NULL;
}

/* Names the table may hold and a request may ask for: letters, digits,
 * '.', '-', '_', not starting with a dot. */
static int name_ok(const char *s, size_t len)
{
	if (len == 0 || len > WEB_NAME_MAX || s[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '-' ||
		      c == '_'))
			return 0;
	}
	return 1;
}

/* The bundler names assets "<name>-<HASH>.<ext>" with a hash of at least
 * eight letters or digits taken from their content: such a name never
 * holds other bytes, so browsers may keep it for good. */
static int content_hashed(const char *name)
{
	const char *dash = strrchr(name, '-');
	if (dash == NULL)
		return 0;
	size_t k = strspn(dash + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
	return k >= 8 && dash[1 + k] == '.';
}

static void etag_of(struct web_body *b)
{
	uint8_t h[TOKEN_HASH_LEN];
	token_sha256(b->data, b->len, h);
	static const char hex[] = "0123456789abcdef";
	char *o = b->etag;
	*o++ = '"';
	for (int i = 0; i < 16; i++) {
		*o++ = hex[h[i] >> 4];
		*o++ = hex[h[i] & 15];
	}
	*o++ = '"';
	*o = '\0';
}

/* Read path whole into b, adding its size to *total under the bounds.
 * Returns 0, or -1 with err set. */
static int read_body(const char *path, struct web_body *b, size_t *total,
		     char *err, size_t errlen)
{
	int rc = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > WEB_MAX_BYTES - *total) {
		snprintf(err, errlen,
			 "the web root holds more than %zu bytes (at %s); "
			 "is it the page's build output?",
			 WEB_MAX_BYTES, path);
		goto out;
	}
	size_t len = (size_t)st.st_size;
	b->data = malloc(len ? len : 1);
	if (b->data == NULL) {
		snprintf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t k = read(fd, b->data + got, len - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "cannot read %s: %s", path,
				 k < 0 ? strerror(errno) : "it shrank");
			goto out;
		}
		got += (size_t)k;
	}
	b->len = len;
	*total += len;
	etag_of(b);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0) {
		free(b->data);
		b->data = NULL;
	}
	return rc;
}

void web_root_free(struct web_root *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->files[i].plain.data);
		free(w->files[i].gz.data);
		free(w->files[i].br.data);
	}
	free(w->files);
	free(w);
}

static struct web_file *find(const struct web_root *w, const char *name,
			     size_t len)
{
	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->files[i].name) == len &&
		    memcmp(w->files[i].name, name, len) == 0)
			return &w->files[i];
	return NULL;
}

/* Add the plain file dir/name (an asset when assets is set). */
static int add_file(struct web_root *w, const char *dir, const char *name,
		    int assets, char *err, size_t errlen)
{
	size_t len = strlen(name);
	const char *type = type_of(name, len);
	if (!name_ok(name, len) || type == NULL) {
		snprintf(err, errlen,
			 "%s/%s%s: %s", dir, assets ? "assets/" : "", name,
			 type ? "a name the server does not serve (letters, "
				"digits, '.', '-', '_' only)"
			      : "a type the server does not serve");
		return -1;
	}
	if (w->n == WEB_MAX_FILES) {
		snprintf(err, errlen, "the web root holds more than %d files",
			 WEB_MAX_FILES);
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/%s%s", dir, assets ? "assets/" : "",
		 name);
	struct web_file *f = &w->files[w->n];
	memset(f, 0, sizeof *f);
	memcpy(f->name, name, len + 1);
	f->type = type;
	f->immutable = assets && content_hashed(name);
	if (read_body(path, &f->plain, &w->bytes, err, errlen) < 0)
		return -1;
	w->n++;
	return 0;
}

/* A compressed twin's suffix: 1 for .gz, 2 for .br, 0 for neither. */
static int twin_kind(const char *name)
{
	size_t len = strlen(name);
	if (len > 3 && strcmp(name + len - 3, ".gz") == 0)
		return 1;
	if (len > 3 && strcmp(name + len - 3, ".br") == 0)
		return 2;
	return 0;
}

/* Attach dir/assets/<name> (ending in .gz or .br) to the plain file it
 * compresses. */
static int add_twin(struct web_root *w, const char *dir, const char *name,
		    char *err, size_t errlen)
{
	size_t len = strlen(name) - 3;
	struct web_file *f = find(w, name, len);
	if (f == NULL) {
		snprintf(err, errlen, "%s/assets/%s compresses no file", dir,
			 name);
		return -1;
	}
	struct web_body *b = twin_kind(name) == 2 ? &f->br : &f->gz;
	if (b->data) {
		snprintf(err, errlen, "%s/assets/%s: twice", dir, name);
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/assets/%s", dir, name);
	return read_body(path, b, &w->bytes, err, errlen);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (dot files left out), sorted. Returns the count, or -1
 * with err set. */
static int list_dir(const char *dir, char ***out, char *err, size_t errlen)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (d == NULL) {
		snprintf(err, errlen, "cannot read %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	char **names = NULL;
	int n = 0, rc = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == 3 * WEB_MAX_FILES) {
			snprintf(err, errlen,
				 "%s holds more than %d files", dir,
				 3 * WEB_MAX_FILES);
			goto out;
		}
		char **more = realloc(names, (size_t)(n + 1) * sizeof *names);
		if (more == NULL || (more[n] = strdup(e->d_name)) == NULL) {
			if (more)
				names = more;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		names = more;
		n++;
	}
	qsort(names, (size_t)n, sizeof *names, by_name);
	*out = names;
	names = NULL;
	rc = n;
out:
	closedir(d);
	if (names) {
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	return rc;
}

struct web_root *web_root_load(const char *dir, int *missing, char *err,
			       size_t errlen)
{
	*missing = 0;
	struct web_root *w = calloc(1, sizeof *w);
	char **names = NULL;
	int n = 0, ok = 0;
	if (w == NULL ||
	    (w->files = calloc(WEB_MAX_FILES, sizeof *w->files)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	char index[4096];
	snprintf(index, sizeof index, "%s/index.html", dir);
	if (access(index, F_OK) != 0) {
		*missing = 1;
		snprintf(err, errlen, "%s: %s", index, strerror(errno));
		goto out;
	}
	if (add_file(w, dir, "index.html", 0, err, errlen) < 0)
		goto out;
	char assets[4096];
	snprintf(assets, sizeof assets, "%s/assets", dir);
	if (access(assets, F_OK) == 0) {
		n = list_dir(assets, &names, err, errlen);
		if (n < 0)
			goto out;
		/* the plain files first, then their twins */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < n; i++) {
				int twin = twin_kind(names[i]) != 0;
				if (twin != pass)
					continue;
				if ((twin ? add_twin(w, dir, names[i], err,
						     errlen)
					  : add_file(w, dir, names[i], 1, err,
						     errlen)) < 0)
					goto out;
			}
	}
	ok = 1;
out:
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (!ok) {
		web_root_free(w);
		return NULL;
	}
	return w;
}

size_t web_root_files(const struct web_root *w)
{
	size_t k = 0;
	for (size_t i = 0; w && i < w->n; i++)
		k += 1 + (w->files[i].gz.data != NULL) +
		     (w->files[i].br.data != NULL);
	return k;
}

size_t web_root_bytes(const struct web_root *w)
{
	return w ? w->bytes : 0;
}

/* The next comma-separated element of a header list: *s advances past
 * it; the element (spaces trimmed) is [*start, *start + *len). Returns 0
 * at the end of the list. */
static int next_elem(const char **s, const char **start, size_t *len)
{
	const char *p = *s;
	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	if (*p == '\0')
		return 0;
	const char *e = strchr(p, ',');
	if (e == NULL)
		e = p + strlen(p);
	*s = e;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*start = p;
	*len = (size_t)(e - p);
	return 1;
}

/* If-None-Match names etag (weak comparison, RFC 9110 13.1.2), or is *. */
static int none_match(const char *header, const char *etag)
{
	const char *p;
	size_t len;
	size_t el = strlen(etag);
	while (header && next_elem(&header, &p, &len)) {
		if (len == 1 && *p == '*')
			return 1;
		if (len > 2 && p[0] == 'W' && p[1] == '/') {
			p += 2;
			len -= 2;
		}
		if (len == el && memcmp(p, etag, el) == 0)
			return 1;
	}
	return 0;
}

/* The q-value Accept-Encoding gives a coding: "gzip" (also "x-gzip") or
 * "br" by name, else "*"; 0 when neither is there (or no header). */
static double coding_q(const char *header, const char *coding)
{
	const char *p;
	size_t len;
	double named = -1, star = -1;
	int gzip = strcmp(coding, "gzip") == 0;
	size_t cl = strlen(coding);
	while (header && next_elem(&header, &p, &len)) {
		size_t nl = 0;
		while (nl < len && p[nl] != ';' && p[nl] != ' ' && p[nl] != '\t')
			nl++;
		double q = 1;
		const char *qs = p + nl;
		const char *end = p + len;
		for (; qs < end; qs++)
			if ((qs[0] == 'q' || qs[0] == 'Q') && qs + 1 < end &&
			    qs[1] == '=') {
				q = strtod(qs + 2, NULL);
				break;
			}
		if ((nl == cl && strncasecmp(p, coding, cl) == 0) ||
		    (gzip && nl == 6 && strncasecmp(p, "x-gzip", 6) == 0))
			named = q;
		else if (nl == 1 && *p == '*')
			star = q;
	}
	return named >= 0 ? named : star > 0 ? star : 0;
}

void web_serve(const struct web_root *w, const struct api_request *rq,
	       struct api_reply *rp)
{
	if (w == NULL) {
		problem_reply(rp, PROBLEM_PAGE_NOT_BUILT,
			      "the web page was not built, so this server has "
			      "none to show: run `make` with node and npm "
			      "installed, or start cubed with --web-root "
			      "pointing at a built page (the API works "
			      "without it)");
		return;
	}
	static const char prefix[] = "/assets/";
	const struct web_file *f = NULL;
	if (strcmp(rq->path, "/") == 0) {
		f = &w->files[0];
	} else if (strncmp(rq->path, prefix, sizeof prefix - 1) == 0) {
		const char *name = rq->path + sizeof prefix - 1;
		size_t len = strlen(name);
		if (name_ok(name, len))
			f = find(w, name, len);
	}
	if (f == NULL) {
		problem_reply(rp, PROBLEM_NOT_FOUND,
			      "the page has no file %.200s (a page from an "
			      "older build asks for it: reload the page)",
			      rq->path);
		return;
	}
	const char *(*hdr)(void *, const char *) = rq->header;
	const char *inm = hdr ? hdr(rq->header_cls, "If-None-Match") : NULL;
	const char *ae = hdr ? hdr(rq->header_cls, "Accept-Encoding") : NULL;
	/* the coding the browser rates highest; Brotli on a tie (smaller) */
	double qbr = f->br.data ? coding_q(ae, "br") : 0;
	double qgz = f->gz.data ? coding_q(ae, "gzip") : 0;
	int br = qbr > 0 && qbr >= qgz;
	int gz = !br && qgz > 0;
	const struct web_body *b = br ? &f->br : gz ? &f->gz : &f->plain;
	int page = f == &w->files[0];

	rp->nheaders = 0;
	api_reply_header(rp, "ETag", "%s", b->etag);
	api_reply_header(rp, "Cache-Control", "%s",
			 f->immutable ? "public, max-age=31536000, immutable"
				      : "no-cache");
	if (f->gz.data || f->br.data)
		api_reply_header(rp, "Vary", "Accept-Encoding");
	if (br || gz)
		api_reply_header(rp, "Content-Encoding", br ? "br" : "gzip");
	if (page) {
		api_reply_header(rp, "Content-Security-Policy", "%s",
				 WEB_PAGE_CSP);
		api_reply_header(rp, "Cross-Origin-Opener-Policy",
				 "same-origin");
	}
	if (none_match(inm, b->etag)) {
		rp->status = 304;
		rp->content_type = NULL;
		return;
	}
	rp->status = 200;
	rp->content_type = f->type;
	rp->raw = b->data;
	rp->raw_len = b->len;
}
