/* fuzz.h — what the libFuzzer targets in tests/fuzz/ share: the entry
 * point's declaration and LAW(), which stops the run (abort, so libFuzzer
 * saves the input as a crash) when a property that must always hold does
 * not. A target asserts laws, not only "no crash": round trips are
 * lossless, an algorithm followed by its inverse is the identity, two
 * ways of computing one thing agree. */
#ifndef CUBED_FUZZ_H
#define CUBED_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LAW(cond, ...)                                                         \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: law broken: %s: ", __FILE__,   \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

#endif
