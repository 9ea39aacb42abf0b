/* require.h — what the core suites whose loops run thousands of cases
 * share: REQUIRE, an assertion that costs nothing until it fails, and
 * SANITIZED, true when the runner is built with AddressSanitizer or runs
 * under another slow tool (CUBED_SLOW_TOOL=1 in the environment, as `make
 * memcheck` sets for valgrind), for smaller loop counts where each case
 * runs ten or more times slower. */
#ifndef CUBED_TEST_REQUIRE_H
#define CUBED_TEST_REQUIRE_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* ck_assert records a checkpoint through a pipe on every call, which can
 * cost more than what a loop checks: loops over thousands of states check
 * with this instead. */
#define REQUIRE(expr)                                                          \
	do {                                                                   \
		if (!(expr))                                                   \
			ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #expr);  \
	} while (0)

#if defined(__SANITIZE_ADDRESS__)
#define CUBED_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUBED_ASAN 1
#endif
#endif
#ifndef CUBED_ASAN
#define CUBED_ASAN 0
#endif

static inline int test_sanitized(void)
{
	const char *e = getenv("CUBED_SLOW_TOOL");
	return CUBED_ASAN || (e && *e && *e != '0');
}
#define SANITIZED test_sanitized()

/* CUBED_PART="k/N" (the Makefile's test graph runs a long suite as N
 * units): whether the suite's case number i is in part k. Cases are dealt
 * out by number, i mod N, so each is in exactly one part whatever cases
 * are added. Without CUBED_PART every case is in. */
static inline int test_in_part(int i)
{
	const char *e = getenv("CUBED_PART");
	int k, n;
	if (!e || !*e)
		return 1;
	if (sscanf(e, "%d/%d", &k, &n) != 2 || n < 1 || k < 0 || k >= n) {
		fprintf(stderr, "CUBED_PART=%s: not k/N with 0 <= k < N\n", e);
		exit(2);
	}
	return i % n == k;
}

/* 1 under `make test-slow` (CUBED_SLOW=1 in the environment): the suites'
 * full sweeps (10,000-state solves, 33×33 reductions, many crash rounds).
 * `make test` runs a short version of each, so every law is still checked
 * every day; CI runs both. */
static inline int test_slow(void)
{
	const char *e = getenv("CUBED_SLOW");
	return e && *e && *e != '0';
}

#endif
