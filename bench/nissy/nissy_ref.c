/* nissy_ref.c — a driver for nissy's H48 optimal solver, the same-run
 * reference of `make bench-optimal` (bench/optimal_vs.sh builds it
 * against a copy of nissy's public source outside this repository; it is
 * never built into cubed or linked with it).
 *
 *   nissy_ref SOLVER TABLEFILE
 *
 * Loads TABLEFILE (nissy's table for SOLVER, e.g. h48h6), or generates
 * it with nissy_gendata and writes it there (a temporary file renamed
 * into place, so a half-written table is never left behind). Then reads
 * scrambles from stdin, one a line (face turns, e.g. "R U2 F'"), and for
 * each finds one optimal solution with one thread and prints
 *
 *   LENGTH CPU_SECONDS WALL_SECONDS NODES SOLUTION
 *
 * after checking that the solution solves the scrambled cube ("-1 ..."
 * and a message on stderr if it does not). Tables live in 2 MB pages
 * where the kernel offers them, as cubed's do. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nissy.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void quiet(const char *s, void *u)
{
	(void)u;
	if (getenv("NISSY_REF_LOG"))
		fputs(s, stderr);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: nissy_ref SOLVER TABLEFILE\n");
		return 2;
	}
	const char *solver = argv[1], *path = argv[2];
	char dataid[NISSY_SIZE_DATAID];
	nissy_setlogger(quiet, NULL);
	long long size = nissy_solverinfo(solver, dataid);
	if (size <= 0) {
		fprintf(stderr, "nissy_ref: unknown solver %s\n", solver);
		return 2;
	}
	size_t huge = (size_t)2 << 20;
	size_t alloc = ((size_t)size + huge - 1) / huge * huge;
	unsigned char *buf = mmap(NULL, alloc, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "nissy_ref: no memory for %lld bytes\n", size);
		return 1;
	}
#ifdef MADV_HUGEPAGE
	madvise(buf, alloc, MADV_HUGEPAGE);
#endif
	FILE *f = fopen(path, "rb");
	size_t got = f ? fread(buf, 1, (size_t)size, f) : 0;
	if (f)
		fclose(f);
	if (got != (size_t)size ||
	    nissy_checkdata(solver, (unsigned long long)size, buf) != NISSY_OK) {
		fprintf(stderr, "nissy_ref: generating %s (%lld bytes) into "
				"%s\n", solver, size, path);
		double t0 = clock_s(CLOCK_MONOTONIC);
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		if (nissy_gendata(solver, (unsigned long long)size, buf) != size) {
			fprintf(stderr, "nissy_ref: gendata failed\n");
			return 1;
		}
		fprintf(stderr, "nissy_ref: generated in %.0f s (cpu %.0f s)\n",
			clock_s(CLOCK_MONOTONIC) - t0,
			clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
		char tmp[4200];
		snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
		FILE *o = fopen(tmp, "wb");
		if (o && fwrite(buf, 1, (size_t)size, o) == (size_t)size &&
		    fclose(o) == 0)
			rename(tmp, path);
		else {
			if (o)
				fclose(o);
			unlink(tmp);
			fprintf(stderr, "nissy_ref: cannot write %s\n", path);
		}
	}
	printf("ready %lld\n", size);
	fflush(stdout);

	static char line[4096], sols[4096];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		char cube[NISSY_SIZE_CUBE], back[NISSY_SIZE_CUBE];
		if (nissy_applymoves(NISSY_SOLVED_CUBE, line, cube) != NISSY_OK) {
			fprintf(stderr, "nissy_ref: bad scramble %s\n", line);
			printf("-1 0 0 0 bad-scramble\n");
			fflush(stdout);
			continue;
		}
		long long stats[NISSY_SIZE_SOLVE_STATS] = {0};
		double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
		double w0 = clock_s(CLOCK_MONOTONIC);
		long long n = nissy_solve(cube, solver, NISSY_NISSFLAG_NORMAL, 0,
					  20, 1, 0, 1, (unsigned long long)size,
					  buf, sizeof sols, sols, stats, NULL,
					  NULL);
		double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		double wall = clock_s(CLOCK_MONOTONIC) - w0;
		sols[strcspn(sols, "\n")] = 0;
		long long len = n >= 1 ? nissy_countmoves(sols) : -1;
		if (len >= 0 && (nissy_applymoves(cube, sols, back) != NISSY_OK ||
				 strcmp(back, NISSY_SOLVED_CUBE) != 0)) {
			fprintf(stderr, "nissy_ref: solution %s does not solve "
					"%s\n", sols, line);
			len = -1;
		}
		printf("%lld %.6f %.6f %lld %s\n", len, cpu, wall, stats[0],
		       len >= 0 ? sols : "none");
		fflush(stdout);
	}
	return 0;
}
