/* require.h — what the core suites whose loops run thousands of cases
 * share: REQUIRE, an assertion that costs nothing until it fails, and
 * SANITIZED, 1 when the runner is built with AddressSanitizer (or with
 * -DSANITIZED=1, as `make memcheck` does), for smaller loop counts where
 * each case runs about ten times slower. */
#ifndef CUBED_TEST_REQUIRE_H
#define CUBED_TEST_REQUIRE_H

#include <check.h>
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
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

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
