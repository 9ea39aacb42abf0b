/* fuzz_index.c — libFuzzer target for the unique index (core/index.c):
 * the decimal decoder (big-integer text → index → state) and the round
 * trip state → index → text → index → state.
 *
 * Input: byte 0 picks the size (2 or 3) and a mode:
 *   text:  the rest is the index text as a client would send it;
 *   parts: the next 16 bytes are the two 64-bit parts of an index.
 * Laws, against 128-bit arithmetic done here: the decoder accepts exactly
 * the canonical decimal numbers below the number of states and splits
 * them into corner·E + edge; a decoded index unranks to a valid state
 * that ranks back to it and prints back as the same text; unrank refuses
 * exactly the out-of-range parts; format prints any parts exactly. */
#include <string.h>

#include "cube.h"
#include "cubie.h"
#include "fuzz.h"

__extension__ typedef unsigned __int128 u128;

static u128 states(int n)
{
	return n == 3 ? (u128)CUBE3_CORNER_STATES * CUBE3_EDGE_STATES
		      : (u128)CUBE2_STATES;
}

static uint64_t edge_radix(int n)
{
	return n == 3 ? CUBE3_EDGE_STATES : 1;
}

/* Decimal text of v. */
static size_t u128_text(u128 v, char *out)
{
	char buf[48];
	size_t k = 0;
	do {
		buf[k++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < k; i++)
		out[i] = buf[k - 1 - i];
	out[k] = '\0';
	return k;
}

/* The state of a decoded index, and back. */
static void state_round_trip(const cube_index *ix, int n)
{
	cube_index back;
	if (n == 3) {
		cubie3 c;
		LAW(cubie3_unrank(ix, &c) == CUBE_OK, "unrank");
		LAW(cubie3_is_valid(&c), "unranked an invalid state");
		LAW(cubie3_rank(&c, &back) == CUBE_OK, "rank");
	} else {
		cubie2 c;
		LAW(cubie2_unrank(ix, &c) == CUBE_OK, "unrank");
		LAW(cubie2_is_valid(&c), "unranked an invalid 2×2");
		LAW(cubie2_rank(&c, &back) == CUBE_OK, "rank");
	}
	LAW(back.corner == ix->corner && back.edge == ix->edge,
	    "rank(unrank(%llu, %llu)) = (%llu, %llu)",
	    (unsigned long long)ix->corner, (unsigned long long)ix->edge,
	    (unsigned long long)back.corner, (unsigned long long)back.edge);
}

static void check_text(const char *s, size_t len, int n)
{
	cube_index ix = {777, 777};
	int rc = cube_index_parse(s, len, n, &ix);

	/* what the decoder must answer */
	int digits = len > 0;
	for (size_t i = 0; i < len; i++)
		digits &= s[i] >= '0' && s[i] <= '9';
	int expect;
	u128 v = 0;
	if (!digits || (len > 1 && s[0] == '0')) {
		expect = CUBE_EINVAL;
	} else {
		expect = CUBE_OK;
		for (size_t i = 0; i < len && expect == CUBE_OK; i++) {
			v = v * 10 + (u128)(s[i] - '0');
			if (v >= states(n))
				expect = CUBE_ERANGE;
		}
	}
	LAW(rc == expect, "\"%.60s\" (n=%d): %s, expected %s", s, n,
	    cube_errname(rc), cube_errname(expect));
	if (rc != CUBE_OK) {
		LAW(ix.corner == 777 && ix.edge == 777,
		    "a failed parse wrote its output");
		return;
	}
	LAW(ix.corner == (uint64_t)(v / edge_radix(n)) &&
		    ix.edge == (uint64_t)(v % edge_radix(n)),
	    "\"%.60s\" split wrongly", s);
	char text[64];
	size_t tl = cube_index_format(&ix, n, text, sizeof text);
	LAW(tl == len && memcmp(text, s, len) == 0,
	    "\"%.60s\" prints back as \"%s\"", s, text);
	state_round_trip(&ix, n);
}

static void check_parts(const cube_index *ix, int n, size_t cap)
{
	u128 v = (u128)ix->corner * edge_radix(n) + (n == 3 ? ix->edge : 0);
	char want[48], text[64];
	size_t wl = u128_text(v, want);
	memset(text, 'Z', sizeof text);
	size_t tl = cube_index_format(ix, n, text, cap);
	LAW(tl == wl, "format length %zu, expected %zu (%s)", tl, wl, want);
	if (cap > 0) {
		size_t keep = wl < cap - 1 ? wl : cap - 1;
		LAW(memcmp(text, want, keep) == 0 && text[keep] == '\0',
		    "format with cap %zu: \"%.*s\", expected \"%s\"", cap,
		    (int)keep, text, want);
	}
	int in_range = n == 3 ? ix->corner < CUBE3_CORNER_STATES &&
					ix->edge < CUBE3_EDGE_STATES
			      : ix->corner < CUBE2_STATES && ix->edge == 0;
	cubie3 c3;
	cubie2 c2;
	int rc = n == 3 ? cubie3_unrank(ix, &c3) : cubie2_unrank(ix, &c2);
	LAW((rc == CUBE_OK) == in_range && (in_range || rc == CUBE_ERANGE),
	    "unrank(%llu, %llu) (n=%d): %s", (unsigned long long)ix->corner,
	    (unsigned long long)ix->edge, n, cube_errname(rc));
	if (in_range) {
		state_round_trip(ix, n);
		check_text(want, wl, n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int n = data[0] & 1 ? 3 : 2;
	if (data[0] & 2) {
		check_text((const char *)data + 1, size - 1, n);
		return 0;
	}
	if (size < 17)
		return 0;
	cube_index ix;
	memcpy(&ix.corner, data + 1, 8);
	memcpy(&ix.edge, data + 9, 8);
	/* a small modulus now and then, so that in-range parts are common */
	if (data[0] & 4)
		ix.corner %= n == 3 ? CUBE3_CORNER_STATES : CUBE2_STATES;
	if (data[0] & 8)
		ix.edge = n == 3 ? ix.edge % CUBE3_EDGE_STATES : 0;
	check_parts(&ix, n, (size_t)(data[0] >> 4) * 2);
	return 0;
}
