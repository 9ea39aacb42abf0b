/* replay.c — a main() for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line
 * (directories are read one level deep), so that `make test` replays the
 * committed corpora and crash regressions with the ordinary compiler,
 * laws included, and fails if any input breaks one — or runs longer than
 * CUBED_REPLAY_TIMEOUT seconds (default 60; libFuzzer's -timeout plays
 * that part under make fuzz), so a regressed hang fails make test
 * instead of stalling it. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static const char *current; /* the input being run, for the alarm */

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "replay: timeout on ";
	if (write(2, msg, sizeof msg - 1) < 0 ||
	    write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
		_exit(2);
	_exit(1);
}

static int run_file(const char *path)
{
	current = path;
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	/* an exact-size copy, so that reads past the input are caught */
	uint8_t *in = malloc(len ? len : 1);
	memcpy(in, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(in, len);
	free(in);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int files = 0, failed = 0;
	const char *t = getenv("CUBED_REPLAY_TIMEOUT");
	unsigned timeout = t && *t ? (unsigned)atoi(t) : 60;
	signal(SIGALRM, on_alarm);
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(sb.st_mode)) {
			alarm(timeout);
			failed |= run_file(argv[i]) < 0;
			files++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			perror(argv[i]);
			return 1;
		}
		char **names = NULL;
		size_t n = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			names = realloc(names, (n + 1) * sizeof *names);
			size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[n] = malloc(len);
			snprintf(names[n], len, "%s/%s", argv[i], e->d_name);
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof *names, cmp);
		for (size_t k = 0; k < n; k++) {
			alarm(timeout);
			failed |= run_file(names[k]) < 0;
			files++;
			free(names[k]);
		}
		free(names);
	}
	alarm(0);
	printf("%s: %d inputs replayed\n", argv[0], files);
	return failed ? 1 : 0;
}
