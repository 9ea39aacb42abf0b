/* dataset_cli.h — `cubed dataset`: labelled states in bulk to NumPy
 * files (docs/dataset.md). */
#ifndef CUBED_DATASET_CLI_H
#define CUBED_DATASET_CLI_H

#include <stdio.h>

/* Run the subcommand; argv[0] is "dataset". Messages go to err (usage to
 * out for --help). Returns the exit status: 0 done, 1 the work failed
 * (a table, a write, a full disk, interrupted), 2 a bad flag (the
 * message names it; nothing is written). */
int dataset_cli_main(int argc, char **argv, FILE *out, FILE *err);

#endif
