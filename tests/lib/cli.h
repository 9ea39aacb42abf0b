/* cli.h — cubed's command line run by a test (the dataset subcommand,
 * for one): which binary, and one run with its output captured. The
 * assertions are Check's: call these from inside tests. */
#ifndef CUBED_TEST_CLI_H
#define CUBED_TEST_CLI_H

#include <stddef.h>
#include <sys/types.h>

/* $CUBED_BIN, or build/cubed. */
const char *cubed_bin(void);

/* Run argv (argv[0] the program, NULL-terminated) with stdout and stderr
 * into msg (up to cap bytes, NUL-terminated; msg may be NULL with cap 0);
 * fsize > 0 caps the files it may write (RLIMIT_FSIZE). Returns the exit
 * status, 128 + the signal if it was killed. With pid_out, returns 0 at
 * once with the child's pid there (msg unused; the caller reaps it). */
int cli_run(const char *const argv[], char *msg, size_t cap, long fsize,
	    pid_t *pid_out);

#endif
