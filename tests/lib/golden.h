/* golden.h — reading the data-driven test files under tests/golden/: one
 * case per line, fields separated by TABs, '#' lines and blank lines
 * skipped, "\n" and "\t" and "\\" unescaped inside fields. */
#ifndef CUBED_TEST_GOLDEN_H
#define CUBED_TEST_GOLDEN_H

#include <stddef.h>

#define GOLDEN_MAX_FIELDS 12

struct golden_case {
	int line;                         /* 1-based line in the file */
	int nfields;
	char *field[GOLDEN_MAX_FIELDS];   /* unescaped, NUL-terminated */
};

/* Load every case of tests/golden/<name> (directory from $CUBED_GOLDEN,
 * default "tests/golden"). Returns the count; *cases is malloc'd, release
 * with golden_free. Aborts the test (ck_abort) if the file is missing. */
int golden_load(const char *name, struct golden_case **cases);
void golden_free(struct golden_case *cases, int count);

#endif
