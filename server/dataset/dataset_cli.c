/* dataset_cli.c — `cubed dataset`: a dataset (core/dataset.h) written as
 * one NumPy .npy file per column and label plus meta.json, by several
 * threads at once.
 *
 * Each file's size is known before the first sample is made (header +
 * rows × row bytes), so a disk too small is reported before any work
 * (statvfs), the files are created under temporary names, then every
 * thread takes the next chunk of samples, makes it into buffers of its
 * own and pwrites each column at the chunk's offset. Nothing orders the threads, and nothing
 * needs to: a chunk's bytes depend only on (seed, sample), so the files
 * are the same for any thread count. Memory is threads × chunk, whatever
 * the count. When every chunk is written the files are renamed into
 * place, meta.json last; a failure or an interrupt removes them instead,
 * so DIR never holds a partial file under a final name.
 */
#include "dataset_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "dataset.h"
#include "dataset_params.h"
#include "optimal.h"
#include "solver.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct run {
	struct dsp *p;
	dataset_tables tables;
	const char *dir;
	int fd[DATASET_NCOLUMNS];
	char tmp[DATASET_NCOLUMNS][1100];
	uint64_t hdr[DATASET_NCOLUMNS];
	size_t rb[DATASET_NCOLUMNS];
	uint64_t chunk, nchunks;
	atomic_uint_fast64_t next, done;
	atomic_int failed;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int running;
	/* the first failure */
	int err_errno, err_col, err_core;
};

static void fail_once(struct run *r, int col, int eno, int core)
{
	pthread_mutex_lock(&r->mu);
	if (!atomic_load(&r->failed)) {
		r->err_col = col;
		r->err_errno = eno;
		r->err_core = core;
		atomic_store(&r->failed, 1);
	}
	pthread_mutex_unlock(&r->mu);
}

static int stop_poll(void *ctx, uint64_t done, uint64_t total)
{
	struct run *r = ctx;
	(void)done, (void)total;
	return interrupted || atomic_load(&r->failed);
}

static int pwrite_all(int fd, const unsigned char *b, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, b, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = ENOSPC;
			return -1;
		}
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct run *r = arg;
	const dataset_spec *s = &r->p->spec;
	unsigned char *buf[DATASET_NCOLUMNS] = {0};
	size_t ss = dataset_scratch_size(s);
	void *scratch = ss ? malloc(ss) : NULL;
	int ok = !ss || scratch;
	for (int c = 0; c < DATASET_NCOLUMNS && ok; c++)
		if (r->rb[c] && !(buf[c] = malloc(r->chunk * r->rb[c])))
			ok = 0;
	if (!ok)
		fail_once(r, -1, ENOMEM, 0);
	while (ok && !atomic_load(&r->failed) && !interrupted) {
		uint64_t k = atomic_fetch_add(&r->next, 1);
		if (k >= r->nchunks)
			break;
		uint64_t first = k * r->chunk;
		uint64_t n = r->p->rows - first < r->chunk ? r->p->rows - first : r->chunk;
		int rc = dataset_fill(s, &r->tables, r->p->first + first, n, buf,
				      scratch, ss, stop_poll, r);
		if (rc < 0) {
			if (rc != SOLVE_ECANCELLED)
				fail_once(r, -1, 0, rc);
			break;
		}
		for (int c = 0; c < DATASET_NCOLUMNS; c++) {
			if (!r->rb[c])
				continue;
			if (pwrite_all(r->fd[c], buf[c], n * r->rb[c],
				       r->hdr[c] + first * r->rb[c]) < 0) {
				fail_once(r, c, errno, 0);
				break;
			}
		}
		atomic_fetch_add(&r->done, n);
	}
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		free(buf[c]);
	free(scratch);
	pthread_mutex_lock(&r->mu);
	r->running--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cubed dataset --count N --out DIR [options]\n"
		"       cubed dataset --size 2 --all --out DIR [options]\n"
		"\n"
		"Labelled cube states as NumPy files: DIR/<column>.npy for each column\n"
		"and label, and DIR/meta.json. Sample i depends only on (seed, i).\n"
		"\n"
		"  --size N           cube size, 2..1024 (default 3)\n"
		"  --count N          samples (required unless --all)\n"
		"  --depth MIN-MAX    random walks of MIN to MAX turns (or one depth D);\n"
		"                     omitted: uniformly random states (sizes 2 and 3)\n"
		"  --metric htm|qtm   what a turn counts (default htm)\n"
		"  --seed S           0..2^63-1 (default 0)\n"
		"  --columns LIST     stickers,features,features_packed,index\n"
		"                     (default features; stickers past size 3)\n"
		"  --labels LIST      depth,twophase,optimal or none (default depth for\n"
		"                     walks, optimal with --all, else none)\n"
		"  --all              every 2x2 state, sample i = index i (--size 2)\n"
		"  --shard K/N        the K-th of N equal parts (K from 1); shards\n"
		"                     concatenated are the whole dataset\n"
		"  --threads T        worker threads (default: the CPUs online)\n"
		"  --out DIR          where the files go (created if missing)\n"
		"  --twophase-nodes N budget of a twophase label: search nodes and steps\n"
		"                     of walks down the solver's tables (default %d)\n"
		"  --optimal-max D    3x3 optimal labels proven up to D moves (default %d);\n"
		"                     longer ones are 255\n"
		"  --optimal-level L  the optimal solver's tables: 0 = 80 MB (default),\n"
		"                     1 = 1.0 GB, 2 = 2.5 GB (faster for deep labels)\n"
		"  --tables DIR       where solver tables are cached (default $CUBED_TABLES,\n"
		"                     else ./data)\n"
		"  --sync             fsync every file before it is renamed into place\n"
		"  --quiet            no progress or summary on stderr\n"
		"\n"
		"A missing label is 255. docs/dataset.md has every column's meaning.\n",
		DSP_DEFAULT_TWOPHASE_NODES, DSP_DEFAULT_OPTIMAL_MAX);
}

/* A message "twophase_nodes: …" names the flag --twophase-nodes: the
 * query's '_' before the colon become '-'. */
static void flag_spelling(char *msg)
{
	for (char *q = msg; *q && *q != ':'; q++)
		if (*q == '_')
			*q = '-';
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[1024];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *q = buf + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*q = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	struct stat st;
	if (stat(buf, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static void human_bytes(uint64_t b, char *out, size_t cap)
{
	if (b >= (UINT64_C(1) << 30))
		snprintf(out, cap, "%.2f GB", (double)b / 1e9);
	else if (b >= (UINT64_C(1) << 20))
		snprintf(out, cap, "%.1f MB", (double)b / 1e6);
	else
		snprintf(out, cap, "%" PRIu64 " bytes", b);
}

/* A table the solver thread loads or builds: wait for it. */
static const void *wait_table(struct solver *sv, enum solver_table t, FILE *err)
{
	for (;;) {
		const void *tb = solver_table(sv, t);
		if (tb)
			return tb;
		const char *state, *reason;
		int pct;
		solver_status(sv, t, &state, &pct, &reason);
		if (strcmp(state, "failed") == 0) {
			fprintf(err, "cubed dataset: the two-phase tables failed: %s\n",
				reason ? reason : "?");
			return NULL;
		}
		if (interrupted)
			return NULL;
		struct timespec ts = {0, 20000000L};
		nanosleep(&ts, NULL);
	}
}

static int stop_wait(void *ctx)
{
	(void)ctx;
	return interrupted;
}

static int write_meta(const struct run *r, int sync, FILE *err)
{
	char path[1100], tmp[1200];
	snprintf(path, sizeof path, "%s/meta.json", r->dir);
	snprintf(tmp, sizeof tmp, "%s/.meta.json.tmp.%ld", r->dir, (long)getpid());
	json_t *m = dsp_meta(r->p);
	char *text = m ? json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(m);
	if (!text) {
		fprintf(err, "cubed dataset: out of memory\n");
		return -1;
	}
	size_t len = strlen(text);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -1 : 0;
	if (rc == 0)
		rc = pwrite_all(fd, (const unsigned char *)text, len, 0);
	if (rc == 0)
		rc = pwrite_all(fd, (const unsigned char *)"\n", 1, len);
	if (rc == 0 && sync)
		rc = fsync(fd);
	int eno = errno;
	if (fd >= 0 && close(fd) < 0 && rc == 0) {
		rc = -1;
		eno = errno;
	}
	if (rc == 0 && rename(tmp, path) < 0) {
		rc = -1;
		eno = errno;
	}
	free(text);
	if (rc < 0) {
		unlink(tmp);
		fprintf(err, "cubed dataset: writing %s: %s%s\n", path, strerror(eno),
			eno == ENOSPC || eno == EDQUOT ? " (the disk is full)" : "");
	}
	return rc;
}

int dataset_cli_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct dsp p;
	dsp_init(&p);
	const char *dir = NULL, *tables = getenv("CUBED_TABLES");
	int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), quiet = 0, sync = 0;
	if (threads < 1)
		threads = 1;
	p.optimal_level = 0;
	char msg[300];

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(out);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(err, "cubed dataset: unexpected argument '%s' (see --help)\n", a);
			return 2;
		}
		char name[40];
		const char *eq = strchr(a, '=');
		size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (nl >= sizeof name) {
			fprintf(err, "cubed dataset: unknown flag %s (see --help)\n", a);
			return 2;
		}
		memcpy(name, a + 2, nl);
		name[nl] = 0;
		/* flags without a value */
		if (strcmp(name, "all") == 0 || strcmp(name, "quiet") == 0 ||
		    strcmp(name, "sync") == 0) {
			if (eq) {
				fprintf(err, "cubed dataset: --%s takes no value\n", name);
				return 2;
			}
			if (strcmp(name, "all") == 0)
				dsp_set(&p, "all", "1", msg, sizeof msg);
			else if (strcmp(name, "quiet") == 0)
				quiet = 1;
			else
				sync = 1;
			continue;
		}
		const char *v = eq ? eq + 1 : NULL;
		if (!v) {
			if (i + 1 >= argc) {
				fprintf(err, "cubed dataset: --%s needs a value (see --help)\n", name);
				return 2;
			}
			v = argv[++i];
		}
		if (strcmp(name, "out") == 0) {
			if (!*v) {
				fprintf(err, "cubed dataset: --out: needs a directory\n");
				return 2;
			}
			dir = v;
		} else if (strcmp(name, "tables") == 0) {
			tables = v;
		} else if (strcmp(name, "threads") == 0) {
			char *end;
			long t = strtol(v, &end, 10);
			if (*end || end == v || t < 1 || t > 256) {
				fprintf(err, "cubed dataset: --threads: must be a whole number from 1 to 256, not '%s'\n", v);
				return 2;
			}
			threads = (int)t;
		} else if (strcmp(name, "optimal-level") == 0) {
			if (strlen(v) != 1 || v[0] < '0' || v[0] > '2') {
				fprintf(err, "cubed dataset: --optimal-level: must be 0, 1 or 2, not '%s'\n", v);
				return 2;
			}
			p.optimal_level = v[0] - '0';
		} else {
			if (strchr(name, '_')) { /* the query's spelling is not a flag */
				fprintf(err, "cubed dataset: unknown flag --%s (see --help)\n", name);
				return 2;
			}
			int rc = dsp_set(&p, name, v, msg, sizeof msg);
			if (rc == 1) {
				fprintf(err, "cubed dataset: unknown flag --%s (see --help)\n", name);
				return 2;
			}
			if (rc < 0) {
				flag_spelling(msg);
				fprintf(err, "cubed dataset: --%s\n", msg);
				return 2;
			}
		}
	}
	const struct dsp_caps caps = {UINT64_C(1) << 40, DATASET_MAX_N, DATASET_MAX_DEPTH};
	const char *param;
	if (dsp_finish(&p, &caps, msg, sizeof msg, &param, NULL) < 0) {
		/* the core's parameter names are the flags' with '-' */
		char flag[40];
		snprintf(flag, sizeof flag, "%s", param ? param : "?");
		for (char *q = flag; *q; q++)
			if (*q == '_')
				*q = '-';
		const char *colon = strchr(msg, ':');
		fprintf(err, "cubed dataset: --%s%s\n", flag, colon ? colon : msg);
		return 2;
	}
	if (!dir) {
		fprintf(err, "cubed dataset: --out: where should the files go? (--out DIR)\n");
		return 2;
	}

	struct sigaction sa, old_int, old_term;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigset_t unblock;
	sigemptyset(&unblock);
	sigaddset(&unblock, SIGINT);
	sigaddset(&unblock, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
	interrupted = 0;

	int status = 1;
	struct solver *sv = NULL;
	void *dist2 = NULL;
	struct run r;
	memset(&r, 0, sizeof r);
	r.p = &p;
	r.dir = dir;
	for (int c = 0; c < DATASET_NCOLUMNS; c++)
		r.fd[c] = -1;
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	double t0 = now_s();

	if (make_dirs(dir) < 0) {
		fprintf(err, "cubed dataset: --out: cannot make directory %s: %s\n", dir,
			strerror(errno));
		goto done;
	}

	/* tables first: a build can take a while, and fails before any file */
	unsigned need = dataset_needs(&p.spec);
	if (need & (DATASET_NEED_TWOPHASE | DATASET_NEED_OPTIMAL)) {
		struct solver_options o = {.optimal_level = p.optimal_level,
					   .optimal_threads = threads,
					   .no_four = 1, .no_five = 1};
		const char *tdir = tables && *tables ? tables : "./data";
		if (make_dirs(tdir) < 0) {
			fprintf(err, "cubed dataset: --tables: cannot make directory %s: %s\n",
				tdir, strerror(errno));
			goto done;
		}
		sv = solver_start_opts(tdir, &o);
		if (!sv) {
			fprintf(err, "cubed dataset: cannot start the solver tables' thread\n");
			goto done;
		}
		if (!quiet)
			fprintf(err, "cubed dataset: loading (or building) solver tables in %s\n", tdir);
		if ((need & DATASET_NEED_TWOPHASE) &&
		    !(r.tables.twophase = wait_table(sv, SOLVER_3X3, err)))
			goto done;
		if (need & DATASET_NEED_OPTIMAL) {
			r.tables.optimal = solver_optimal_wait(sv, stop_wait, NULL);
			if (!r.tables.optimal) {
				struct solver_optimal_info oi;
				solver_optimal_status(sv, &oi);
				if (!interrupted)
					fprintf(err, "cubed dataset: the optimal tables (level %d) failed: %s\n",
						p.optimal_level, oi.reason);
				goto done;
			}
		}
	}
	if (need & DATASET_NEED_DIST2) {
		dist2 = malloc(dataset2_table_size());
		if (!dist2 || dataset2_table_init(dist2, dataset2_table_size(),
						  NULL, NULL) < 0) {
			fprintf(err, "cubed dataset: cannot make the 2x2 distance table (out of memory)\n");
			goto done;
		}
		r.tables.dist2 = dist2;
	}

	/* the files, at full size */
	uint64_t total_bytes = 0;
	size_t row_total = 0;
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		if (!(p.spec.columns & (1u << c)))
			continue;
		r.rb[c] = dataset_row_bytes(&p.spec, c);
		row_total += r.rb[c];
		char hdr[256];
		size_t hl = npy_header(&p.spec, c, p.rows, hdr, sizeof hdr);
		r.hdr[c] = hl;
		uint64_t size = hl + p.rows * r.rb[c];
		total_bytes += size;
		snprintf(r.tmp[c], sizeof r.tmp[c], "%s/.%s.npy.tmp.%ld", dir,
			 dataset_column_name(c), (long)getpid());
		r.fd[c] = open(r.tmp[c], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (r.fd[c] < 0) {
			fprintf(err, "cubed dataset: cannot create %s: %s\n", r.tmp[c], strerror(errno));
			goto done;
		}
		if (pwrite_all(r.fd[c], (const unsigned char *)hdr, hl, 0) < 0) {
			fprintf(err, "cubed dataset: writing %s: %s%s\n", r.tmp[c], strerror(errno),
				errno == ENOSPC ? " (the disk is full)" : "");
			goto done;
		}
	}

	/* a disk that cannot hold the files is said before any work (a
	 * disk that fills meanwhile is said by the write that fails) */
	struct statvfs vf;
	if (total_bytes > 0 && statvfs(dir, &vf) == 0 &&
	    (uint64_t)vf.f_bavail * vf.f_frsize < total_bytes) {
		char need_s[32], free_s[32];
		human_bytes(total_bytes, need_s, sizeof need_s);
		human_bytes((uint64_t)vf.f_bavail * vf.f_frsize, free_s, sizeof free_s);
		fprintf(err, "cubed dataset: the disk is full: %s needs %s, %s is free "
			"there; nothing was written\n", dir, need_s, free_s);
		goto done;
	}

	/* about a megabyte of rows a chunk; searches in small chunks, so
	 * threads share them evenly and an interrupt is seen soon */
	uint64_t chunk = (1u << 20) / (row_total ? row_total : 1);
	if (chunk > 16384)
		chunk = 16384;
	if (need & (DATASET_NEED_TWOPHASE | DATASET_NEED_OPTIMAL))
		chunk = chunk > 64 ? 64 : chunk;
	if (chunk < 1)
		chunk = 1;
	r.chunk = chunk;
	r.nchunks = (p.rows + chunk - 1) / chunk;
	if ((uint64_t)threads > r.nchunks)
		threads = (int)r.nchunks;

	double t1 = now_s();
	pthread_t tid[256];
	int started = 0;
	for (int t = 0; t < threads; t++) {
		pthread_mutex_lock(&r.mu);
		r.running++;
		pthread_mutex_unlock(&r.mu);
		if (pthread_create(&tid[t], NULL, worker, &r) != 0) {
			pthread_mutex_lock(&r.mu);
			r.running--;
			pthread_mutex_unlock(&r.mu);
			if (t == 0) {
				fprintf(err, "cubed dataset: cannot start a thread\n");
				goto done;
			}
			break;
		}
		started++;
	}
	int tty = !quiet && isatty(fileno(err));
	pthread_mutex_lock(&r.mu);
	while (r.running > 0) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		/* a deadline, so progress is shown and a signal is seen */
		pthread_cond_timedwait(&r.cv, &r.mu, &ts);
		if (tty) {
			uint64_t d = atomic_load(&r.done);
			double el = now_s() - t1;
			fprintf(err, "\r%5.1f %%  %" PRIu64 " of %" PRIu64 " samples  %.0f/s ",
				100.0 * (double)d / (double)p.rows, d, p.rows,
				el > 0 ? (double)d / el : 0.0);
		}
	}
	pthread_mutex_unlock(&r.mu);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (tty)
		fprintf(err, "\n");
	if (interrupted) {
		fprintf(err, "cubed dataset: interrupted; nothing was written\n");
		goto done;
	}
	if (atomic_load(&r.failed)) {
		if (r.err_core)
			fprintf(err, "cubed dataset: %s\n", r.err_core == SOLVE_ETABLES
								     ? "the solver tables are unsound"
								     : cube_strerror(r.err_core));
		else if (r.err_col >= 0)
			fprintf(err, "cubed dataset: writing %s/%s.npy: %s%s\n", dir,
				dataset_column_name(r.err_col), strerror(r.err_errno),
				r.err_errno == ENOSPC || r.err_errno == EDQUOT
					? " (the disk is full)" : "");
		else
			fprintf(err, "cubed dataset: %s\n", strerror(r.err_errno));
		goto done;
	}
	double t2 = now_s();

	/* into place: every column, then meta.json, which says it is whole */
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		if (r.fd[c] < 0)
			continue;
		char path[1100];
		snprintf(path, sizeof path, "%s/%s.npy", dir, dataset_column_name(c));
		if ((sync && fsync(r.fd[c]) < 0) || close(r.fd[c]) < 0) {
			r.fd[c] = -1;
			fprintf(err, "cubed dataset: writing %s: %s\n", path, strerror(errno));
			goto done;
		}
		r.fd[c] = -1;
		if (rename(r.tmp[c], path) < 0) {
			fprintf(err, "cubed dataset: cannot rename %s to %s: %s\n", r.tmp[c],
				path, strerror(errno));
			goto done;
		}
		r.tmp[c][0] = 0;
	}
	if (write_meta(&r, sync, err) < 0)
		goto done;
	if (!quiet) {
		char bytes[32];
		human_bytes(total_bytes, bytes, sizeof bytes);
		fprintf(err,
			"cubed dataset: %" PRIu64 " samples (%s) in %s: %.2f s, "
			"%.0f samples/s (%.2f s with tables and files)\n",
			p.rows, bytes, dir, t2 - t1,
			t2 > t1 ? (double)p.rows / (t2 - t1) : 0.0, now_s() - t0);
	}
	status = 0;
done:
	for (int c = 0; c < DATASET_NCOLUMNS; c++) {
		if (r.fd[c] >= 0)
			close(r.fd[c]);
		if (r.tmp[c][0])
			unlink(r.tmp[c]);
	}
	free(dist2);
	solver_stop(sv);
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (interrupted && status != 0)
		status = 130;
	return status;
}
