/* check_codec.c — the helpers behind the HTTP layer's ecosystem features,
 * without a server: known-answer tests for SHA-256 (FIPS 180-4 / NIST
 * examples), HMAC-SHA256 (RFC 4231), base64url (RFC 4648) and the time
 * format (against gmtime_r over many instants); Accept-Encoding
 * negotiation, the entity-tag suffix rules, the compressors (round trips
 * through zlib's and brotli's own decoders, and the memory a stream holds);
 * request ids and trace ids; stream tickets. tests/http/check_http_protocol.c
 * checks the same features through a spawned server. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <brotli/decode.h>
#include <zlib.h>

#include "compress.h"
#include "require.h"
#include "reqid.h"
#include "suites.h"
#include "ticket.h"
#include "timefmt.h"
#include "token.h"

static void hex(const uint8_t *h, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
}

/* ---- SHA-256, HMAC, base64url -------------------------------------------- */

START_TEST(sha256_nist)
{
	static const struct {
		const char *msg;
		const char *digest;
	} v[] = {
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
		{"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		uint8_t h[32];
		char got[65];
		token_sha256(v[i].msg, strlen(v[i].msg), h);
		hex(h, 32, got);
		ck_assert_msg(strcmp(got, v[i].digest) == 0, "SHA-256(\"%s\") = %s",
			      v[i].msg, got);
	}
	/* a million 'a's, fed in pieces of awkward sizes */
	char *a = malloc(1000000);
	ck_assert(a != NULL);
	memset(a, 'a', 1000000);
	token_sha256_ctx c;
	token_sha256_init(&c);
	size_t off = 0, step = 1;
	while (off < 1000000) {
		size_t k = step < 1000000 - off ? step : 1000000 - off;
		token_sha256_update(&c, a + off, k);
		off += k;
		step = step * 7 % 131 + 1;
	}
	uint8_t h[32];
	char got[65];
	token_sha256_final(&c, h);
	hex(h, 32, got);
	ck_assert_str_eq(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}
END_TEST

/* Every split of a message into two updates gives the one-shot digest
 * (lengths around the 55/56/64-byte padding edges included). */
START_TEST(sha256_pieces)
{
	unsigned char msg[200];
	for (int i = 0; i < 200; i++)
		msg[i] = (unsigned char)(i * 37 + 11);
	for (size_t len = 0; len <= 200; len++) {
		uint8_t want[32];
		token_sha256(msg, len, want);
		for (size_t cut = 0; cut <= len; cut += 1 + len / 17) {
			token_sha256_ctx c;
			uint8_t got[32];
			token_sha256_init(&c);
			token_sha256_update(&c, msg, cut);
			token_sha256_update(&c, msg + cut, len - cut);
			token_sha256_final(&c, got);
			ck_assert_msg(memcmp(got, want, 32) == 0,
				      "length %zu cut at %zu", len, cut);
		}
	}
}
END_TEST

START_TEST(hmac_rfc4231)
{
	unsigned char k3[20], d3[50], k4[25], d4[50], k6[131];
	memset(k3, 0xaa, sizeof k3);
	memset(d3, 0xdd, sizeof d3);
	for (int i = 0; i < 25; i++)
		k4[i] = (unsigned char)(i + 1);
	memset(d4, 0xcd, sizeof d4);
	memset(k6, 0xaa, sizeof k6);
	unsigned char k1[20];
	memset(k1, 0x0b, sizeof k1);
	static const char m6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	static const char m7[] =
		"This is a test using a larger than block-size key and a larger "
		"than block-size data. The key needs to be hashed before being "
		"used by the HMAC algorithm.";
	const struct {
		const void *key;
		size_t klen;
		const void *msg;
		size_t mlen;
		const char *mac;
	} v[] = {
		{k1, 20, "Hi There", 8,
		 "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
		{"Jefe", 4, "what do ya want for nothing?", 28,
		 "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		{k3, 20, d3, 50,
		 "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
		{k4, 25, d4, 50,
		 "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
		{k6, 131, m6, sizeof m6 - 1,
		 "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
		{k6, 131, m7, sizeof m7 - 1,
		 "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		uint8_t mac[32];
		char got[65];
		token_hmac_sha256(v[i].key, v[i].klen, v[i].msg, v[i].mlen, mac);
		hex(mac, 32, got);
		ck_assert_msg(strcmp(got, v[i].mac) == 0, "RFC 4231 case %zu: %s",
			      i, got);
	}
}
END_TEST

START_TEST(base64url_rfc4648)
{
	/* RFC 4648 section 10, without padding (section 5's alphabet) */
	static const char *const plain[] = {"", "f", "fo", "foo", "foob",
					    "fooba", "foobar"};
	static const char *const coded[] = {"", "Zg", "Zm8", "Zm9v", "Zm9vYg",
					    "Zm9vYmE", "Zm9vYmFy"};
	for (int i = 0; i < 7; i++) {
		char out[16];
		unsigned char back[16];
		token_base64url(plain[i], strlen(plain[i]), out);
		ck_assert_str_eq(out, coded[i]);
		int n = token_base64url_decode(coded[i], strlen(coded[i]), back,
					       sizeof back);
		ck_assert_int_eq(n, (int)strlen(plain[i]));
		ck_assert(memcmp(back, plain[i], (size_t)n) == 0);
	}
	/* the URL-safe letters, where standard base64 has + and / */
	unsigned char b[3] = {0xfb, 0xff, 0xbf};
	char out[8];
	token_base64url(b, 3, out);
	ck_assert_str_eq(out, "-_-_");
	unsigned char back[8];
	ck_assert_int_eq(token_base64url_decode("+/+/", 4, back, 8), -1);
	ck_assert_int_eq(token_base64url_decode("Zh", 2, back, 8), -1); /* stray bits */
	ck_assert_int_eq(token_base64url_decode("Zm9vY", 5, back, 8), -1);
	ck_assert_int_eq(token_base64url_decode("Zm9vYmFy", 8, back, 5), -1);
	ck_assert_int_eq(token_base64url_decode("Zm=v", 4, back, 8), -1);
}
END_TEST

/* ---- time format ---------------------------------------------------------- */

START_TEST(timefmt_known)
{
	static const struct {
		int64_t ms;
		const char *text;
	} v[] = {
		{0, "1970-01-01T00:00:00.000Z"},
		{951868799999, "2000-02-29T23:59:59.999Z"}, /* 2000 is leap */
		{946684799999, "1999-12-31T23:59:59.999Z"},
		{4107587696789, "2100-03-01T12:34:56.789Z"}, /* 2100 is not */
		{1709164800001, "2024-02-29T00:00:00.001Z"},
		{1795249830984, "2026-11-21T08:30:30.984Z"},
		{253402300799999, "9999-12-31T23:59:59.999Z"},
		{-5, "1970-01-01T00:00:00.000Z"}, /* clamped */
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char out[TIMEFMT_LEN + 1];
		timefmt_iso_ms(v[i].ms, out);
		ck_assert_msg(strcmp(out, v[i].text) == 0, "%lld: %s",
			      (long long)v[i].ms, out);
	}
}
END_TEST

/* The same text as gmtime_r + strftime, at random instants up to 9999
 * (fewer under the sanitizers, where gmtime_r is slow). */
START_TEST(timefmt_vs_gmtime)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < (SANITIZED ? 20000 : 200000); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int64_t ms = (int64_t)(x % 253402300800000ull);
		time_t t = (time_t)(ms / 1000);
		struct tm tm;
		char want[40], got[TIMEFMT_LEN + 1];
		gmtime_r(&t, &tm);
		size_t n = strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(want + n, sizeof want - n, ".%03dZ", (int)(ms % 1000));
		timefmt_iso_ms(ms, got);
		ck_assert_msg(strcmp(got, want) == 0, "%lld: %s, gmtime %s",
			      (long long)ms, got, want);
	}
}
END_TEST

/* ---- Accept-Encoding -------------------------------------------------------- */

START_TEST(negotiate_table)
{
	const unsigned both = COMPRESS_BIT(COMPRESS_GZIP) |
			      COMPRESS_BIT(COMPRESS_BR);
	static const struct {
		const char *ae;
		const char *want; /* NULL: identity */
		int identity_ok;
	} v[] = {
		{NULL, NULL, 1},
		{"", NULL, 1},
		{"gzip", "gzip", 1},
		{"br", "br", 1},
		{"gzip, deflate, br, zstd", "br", 1}, /* what browsers send */
		{"gzip, br", "br", 1},                /* a tie goes to br */
		{"br;q=0.5, gzip;q=0.5", "br", 1},
		{"gzip;q=1, br;q=0.5", "gzip", 1},
		{"GZIP", "gzip", 1},
		{"x-gzip", "gzip", 1},
		{"gzip;q=0", NULL, 1},
		{"gzip;q=0.000", NULL, 1},
		{"gzip;q=0.001", "gzip", 1},
		{"gzip; q=1.0", "gzip", 1},
		{"gzip;q=abc", NULL, 1},  /* malformed: skipped */
		{"gzip;q=1.5", NULL, 1},
		{"gzip;q=0.5, identity", NULL, 1}, /* identity preferred */
		{"gzip, identity", "gzip", 1},
		{"*", "br", 1},
		{"*;q=0.5, gzip", "gzip", 1},
		{"*;q=0", NULL, 0},
		{"*;q=0, identity", NULL, 1},
		{"identity;q=0", NULL, 0},
		{"identity;q=0, gzip", "gzip", 0},
		{"compress, deflate", NULL, 1},
		{" gzip ;q=0.8 , br;q=0.9 ", "br", 1},
		{",,gzip,,", "gzip", 1},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		int ok = -1;
		enum compress_coding c = compress_negotiate(v[i].ae, both, &ok);
		const char *got = compress_name(c);
		ck_assert_msg((got == NULL && v[i].want == NULL) ||
				      (got && v[i].want &&
				       strcmp(got, v[i].want) == 0),
			      "Accept-Encoding \"%s\": %s, expected %s",
			      v[i].ae ? v[i].ae : "(none)", got ? got : "identity",
			      v[i].want ? v[i].want : "identity");
		ck_assert_msg(ok == v[i].identity_ok, "\"%s\": identity_ok %d",
			      v[i].ae ? v[i].ae : "(none)", ok);
	}
	/* only what the server offers */
	int ok;
	ck_assert_int_eq(compress_negotiate("br", COMPRESS_BIT(COMPRESS_GZIP), &ok),
			 COMPRESS_IDENTITY);
	ck_assert_int_eq(compress_negotiate("br, gzip;q=0.1",
					    COMPRESS_BIT(COMPRESS_GZIP), &ok),
			 COMPRESS_GZIP);
	ck_assert_int_eq(compress_negotiate("br, gzip", 0, &ok),
			 COMPRESS_IDENTITY);
	unsigned m;
	ck_assert_int_eq(compress_parse_list("br,gzip", &m), 0);
	ck_assert_uint_eq(m, 6);
	ck_assert_int_eq(compress_parse_list("off", &m), 0);
	ck_assert_uint_eq(m, 0);
	ck_assert_int_eq(compress_parse_list("gzip,zstd", &m), -1);
	ck_assert_int_eq(compress_parse_list("", &m), -1);
}
END_TEST

START_TEST(media_types)
{
	ck_assert(compress_type_ok("application/json"));
	ck_assert(compress_type_ok("application/problem+json"));
	ck_assert(compress_type_ok("application/yaml"));
	ck_assert(compress_type_ok("text/html; charset=utf-8"));
	ck_assert(compress_type_ok("text/plain; version=0.0.4; charset=utf-8"));
	ck_assert(compress_type_ok("application/javascript"));
	ck_assert(compress_type_ok("image/svg+xml"));
	ck_assert(!compress_type_ok("text/event-stream"));
	ck_assert(!compress_type_ok("image/png"));
	ck_assert(!compress_type_ok("font/woff2"));
	ck_assert(!compress_type_ok(NULL));
}
END_TEST

START_TEST(etag_suffixes)
{
	char out[64];
	ck_assert_int_eq(compress_etag_with("\"v7\"", COMPRESS_GZIP, out, sizeof out), 0);
	ck_assert_str_eq(out, "\"v7-gzip\"");
	ck_assert_int_eq(compress_etag_with("W/\"abc\"", COMPRESS_BR, out, sizeof out), 0);
	ck_assert_str_eq(out, "W/\"abc-br\"");
	ck_assert_int_eq(compress_etag_with("v7", COMPRESS_GZIP, out, sizeof out), -1);
	ck_assert_str_eq(out, "v7");
	ck_assert_int_eq(compress_etag_strip("\"v7-gzip\", W/\"v8-br\", \"v9\"",
					     out, sizeof out), 1);
	ck_assert_str_eq(out, "\"v7\", W/\"v8\", \"v9\"");
	ck_assert_int_eq(compress_etag_strip("\"v7\"", out, sizeof out), 0);
	ck_assert_str_eq(out, "\"v7\"");
	ck_assert_int_eq(compress_etag_strip("*", out, sizeof out), 0);
	ck_assert_int_eq(compress_etag_strip("\"a-gzip\"", out, 4), -1);
	ck_assert_int_eq(compress_etag_suffix_in("\"v3\", \"v7-br\"", "\"v7\""),
			 COMPRESS_BR);
	ck_assert_int_eq(compress_etag_suffix_in("\"v7\"", "\"v7\""),
			 COMPRESS_IDENTITY);
	ck_assert_int_eq(compress_etag_suffix_in("W/\"v7-gzip\"", "\"v7\""),
			 COMPRESS_GZIP);
}
END_TEST

/* ---- the coders ------------------------------------------------------------- */

static char *gunzip(const char *z, size_t n, size_t expect, size_t *len)
{
	char *out = malloc(expect + 1);
	z_stream s;
	memset(&s, 0, sizeof s);
	ck_assert(inflateInit2(&s, 15 + 16) == Z_OK);
	s.next_in = (Bytef *)z;
	s.avail_in = (uInt)n;
	s.next_out = (Bytef *)out;
	s.avail_out = (uInt)expect + 1;
	int rc = inflate(&s, Z_FINISH);
	ck_assert_msg(rc == Z_STREAM_END, "inflate: %d", rc);
	*len = s.total_out;
	inflateEnd(&s);
	return out;
}

static char *unbrotli(const char *z, size_t n, size_t expect, size_t *len)
{
	char *out = malloc(expect + 1);
	*len = expect + 1;
	ck_assert(BrotliDecoderDecompress(n, (const uint8_t *)z, len,
					  (uint8_t *)out) ==
		  BROTLI_DECODER_RESULT_SUCCESS);
	return out;
}

/* A JSON-like body of n bytes: a 3×3's facelets over and over, with a
 * counter so it is not all one pattern. */
static char *sample(size_t n)
{
	char *s = malloc(n);
	static const char f[] = "{\"facelets\":\"UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB\",\"v\":";
	for (size_t i = 0; i < n; i++)
		s[i] = i % 997 < sizeof f - 1 ? f[i % 997] : (char)('0' + (i / 997) % 10);
	return s;
}

static void roundtrip(enum compress_coding c, size_t n, int level)
{
	char *src = sample(n);
	/* streamed, in MHD-sized blocks */
	struct compress_stream *s = compress_stream_new(c, level, src, n);
	ck_assert(s != NULL);
	size_t cap = n + 1024, got = 0;
	char *z = malloc(cap);
	for (;;) {
		ssize_t k = compress_stream_read(s, z + got,
						 cap - got < COMPRESS_BLOCK
							 ? cap - got
							 : COMPRESS_BLOCK);
		ck_assert(k >= 0);
		if (k == 0)
			break;
		got += (size_t)k;
		ck_assert(got < cap);
	}
	ck_assert_uint_eq(compress_stream_out(s), got);
	size_t peak = compress_stream_peak(s);
	/* the bounds compress.h promises: 261 KiB for gzip; for br about
	 * 2 MiB up to quality 3, 6.5 MiB up to 6 (the option's top) */
	size_t bound = c == COMPRESS_GZIP ? 270u * 1024
		       : level <= 3	 ? 2100u * 1024
		       : level <= 6	 ? 6800u * 1024
					 : SIZE_MAX;
	ck_assert_msg(peak <= bound, "%s level %d on %zu bytes held %zu bytes",
		      compress_name(c), level, n, peak);
	compress_stream_free(s);
	size_t len;
	char *back = c == COMPRESS_GZIP ? gunzip(z, got, n, &len)
					: unbrotli(z, got, n, &len);
	ck_assert_uint_eq(len, n);
	ck_assert(memcmp(back, src, n) == 0);
	free(back);
	/* in one go: the same bytes */
	char *one;
	size_t onelen;
	ck_assert_int_eq(compress_oneshot(c, level, src, n, &one, &onelen), 0);
	ck_assert_uint_eq(onelen, got);
	ck_assert(memcmp(one, z, got) == 0);
	free(one);
	free(z);
	free(src);
}

START_TEST(coders_roundtrip)
{
	static const size_t sizes[] = {0, 1, 100, 4096, 70000, 300000, 6291556};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		roundtrip(COMPRESS_GZIP, sizes[i], 1);
		roundtrip(COMPRESS_GZIP, sizes[i], 9);
		roundtrip(COMPRESS_BR, sizes[i], 0);
		roundtrip(COMPRESS_BR, sizes[i], 2);
		roundtrip(COMPRESS_BR, sizes[i], 6);
		if (sizes[i] <= 70000)
			roundtrip(COMPRESS_BR, sizes[i], 11);
	}
}
END_TEST

START_TEST(cache_once)
{
	struct compress_cache *cc = compress_cache_new();
	char *src = sample(100000);
	size_t n1, n2;
	const char *a = compress_cache_get(cc, COMPRESS_GZIP, src, 100000, &n1);
	const char *b = compress_cache_get(cc, COMPRESS_GZIP, src, 100000, &n2);
	ck_assert(a != NULL && a == b && n1 == n2);
	const char *c = compress_cache_get(cc, COMPRESS_BR, src, 100000, &n2);
	ck_assert(c != NULL && c != a);
	size_t len;
	char *back = gunzip(a, n1, 100000, &len);
	ck_assert(len == 100000 && memcmp(back, src, len) == 0);
	free(back);
	compress_cache_free(cc);
	free(src);
}
END_TEST

/* ---- request ids, trace ids, tickets ------------------------------------------ */

START_TEST(request_ids)
{
	ck_assert(reqid_valid("abc"));
	ck_assert(reqid_valid("f47ac10b-58cc-4372-a567-0e02b2c3d479"));
	ck_assert(reqid_valid("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
	ck_assert(reqid_valid("req:a+b/c=d@e_f.g"));
	ck_assert(!reqid_valid(""));
	ck_assert(!reqid_valid(NULL));
	ck_assert(!reqid_valid("a b"));
	ck_assert(!reqid_valid("a\"b"));
	ck_assert(!reqid_valid("a,b"));
	ck_assert(!reqid_valid("a\nb"));
	ck_assert(!reqid_valid("caf\xc3\xa9"));
	char long_id[REQID_MAX + 2];
	memset(long_id, 'a', sizeof long_id);
	long_id[REQID_MAX] = '\0';
	ck_assert(reqid_valid(long_id));
	long_id[REQID_MAX] = 'a';
	long_id[REQID_MAX + 1] = '\0';
	ck_assert(!reqid_valid(long_id));
	char a[33], b[33];
	reqid_new(a);
	reqid_new(b);
	ck_assert_uint_eq(strlen(a), 32);
	ck_assert_uint_eq(strspn(a, "0123456789abcdef"), 32);
	ck_assert_str_ne(a, b);
	ck_assert(reqid_valid(a));
}
END_TEST

START_TEST(trace_ids)
{
	char t[33];
	/* W3C Trace Context's own example */
	ck_assert_int_eq(reqid_trace_id("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", t), 0);
	ck_assert_str_eq(t, "4bf92f3577b34da6a3ce929d0e0e4736");
	/* a later version may add fields */
	ck_assert_int_eq(reqid_trace_id("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xyz", t), 0);
	static const char *const bad[] = {
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
		"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
		"", NULL,
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(reqid_trace_id(bad[i], t) == -1, "%s", bad[i]);
		ck_assert_str_eq(t, "");
	}
}
END_TEST

START_TEST(tickets)
{
	struct tickets *t = tickets_new(60000, NULL, NULL),
		       *other = tickets_new(60000, NULL, NULL);
	ck_assert(t && other);
	char s[TICKET_LEN + 1];
	int64_t exp;
	ck_assert_int_eq(tickets_mint(t, "sessionA", 1000, s, &exp), 0);
	ck_assert_int_eq(exp, 61000);
	ck_assert_uint_eq(strlen(s), TICKET_LEN);
	ck_assert(strncmp(s, "st_", 3) == 0);
	ck_assert_int_eq(tickets_check(t, "sessionA", s, 1000), TICKET_OK);
	ck_assert_int_eq(tickets_check(t, "sessionA", s, 60999), TICKET_OK);
	ck_assert_int_eq(tickets_check(t, "sessionA", s, 61000), TICKET_EXPIRED);
	ck_assert_int_eq(tickets_check(t, "sessionB", s, 1000), TICKET_BAD);
	ck_assert_int_eq(tickets_check(other, "sessionA", s, 1000), TICKET_BAD);
	/* any one character changed */
	for (int i = 3; i < TICKET_LEN; i++) {
		char m[TICKET_LEN + 1];
		memcpy(m, s, sizeof m);
		m[i] = m[i] == 'A' ? 'B' : 'A';
		ck_assert_msg(tickets_check(t, "sessionA", m, 1000) == TICKET_BAD,
			      "changed at %d", i);
	}
	ck_assert_int_eq(tickets_check(t, "sessionA", "ct_abc", 1000), TICKET_BAD);
	ck_assert_int_eq(tickets_check(t, "sessionA", NULL, 1000), TICKET_BAD);
	tickets_free(t);
	tickets_free(other);
}
END_TEST

/* A database's key as key_fn sees it: none until `up`, then the first
 * candidate offered is kept and every caller gets it. */
struct fake_db {
	int up, asked;
	int have;
	unsigned char key[TICKET_KEY_LEN];
};

static int fake_key(void *ctx, const unsigned char *candidate,
		    unsigned char *key)
{
	struct fake_db *db = ctx;
	db->asked++;
	if (!db->up)
		return -1;
	if (!db->have) {
		memcpy(db->key, candidate, TICKET_KEY_LEN);
		db->have = 1;
	}
	memcpy(key, db->key, TICKET_KEY_LEN);
	return 0;
}

START_TEST(tickets_shared_key)
{
	struct fake_db db = {0};
	/* two nodes of one database, started while it does not answer */
	struct tickets *a = tickets_new(60000, fake_key, &db),
		       *b = tickets_new(60000, fake_key, &db),
		       *alone = tickets_new(60000, NULL, NULL);
	ck_assert(a && b && alone);
	ck_assert_int_eq(db.asked, 2);
	char s[TICKET_LEN + 1];
	int64_t exp;
	ck_assert_int_eq(tickets_mint(a, "sessionA", 1000, s, &exp), -1);
	ck_assert_int_eq(tickets_mint(alone, "sessionA", 1000, s, &exp), 0);
	ck_assert_int_eq(tickets_check(b, "sessionA", s, 1000), TICKET_NO_KEY);
	/* the database answers: both get its one key, asked once more each */
	db.up = 1;
	ck_assert_int_eq(tickets_mint(a, "sessionA", 1000, s, &exp), 0);
	ck_assert_int_eq(tickets_check(b, "sessionA", s, 1000), TICKET_OK);
	ck_assert_int_eq(tickets_check(a, "sessionA", s, 1000), TICKET_OK);
	ck_assert_int_eq(tickets_check(b, "sessionA", s, 61000), TICKET_EXPIRED);
	ck_assert_int_eq(tickets_check(b, "sessionB", s, 1000), TICKET_BAD);
	ck_assert_int_eq(tickets_check(alone, "sessionA", s, 1000), TICKET_BAD);
	int asked = db.asked;
	ck_assert_int_eq(tickets_check(b, "sessionA", s, 1000), TICKET_OK);
	ck_assert_int_eq(db.asked, asked); /* kept, not asked again */
	tickets_free(a);
	tickets_free(b);
	tickets_free(alone);
}
END_TEST

Suite *codec_suite(void)
{
	Suite *s = suite_create("codec");
	TCase *k = tcase_create("known_answers");
	tcase_set_timeout(k, 60);
	tcase_add_test(k, sha256_nist);
	tcase_add_test(k, sha256_pieces);
	tcase_add_test(k, hmac_rfc4231);
	tcase_add_test(k, base64url_rfc4648);
	tcase_add_test(k, timefmt_known);
	tcase_add_test(k, timefmt_vs_gmtime);
	suite_add_tcase(s, k);
	TCase *c = tcase_create("compress");
	tcase_set_timeout(c, 120);
	tcase_add_test(c, negotiate_table);
	tcase_add_test(c, media_types);
	tcase_add_test(c, etag_suffixes);
	tcase_add_test(c, coders_roundtrip);
	tcase_add_test(c, cache_once);
	suite_add_tcase(s, c);
	TCase *r = tcase_create("ids");
	tcase_add_test(r, request_ids);
	tcase_add_test(r, trace_ids);
	tcase_add_test(r, tickets);
	tcase_add_test(r, tickets_shared_key);
	suite_add_tcase(s, r);
	return s;
}
