/* test_server.c — spawning and stopping the server under test (see
 * test_server.h). */
#include "test_server.h"

#include "pg_cluster.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char marker[] = "listening on http://127.0.0.1:";

double test_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void test_sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

const char *test_server_log_tail(const test_server *s, char *buf, size_t cap)
{
	buf[0] = '\0';
	FILE *f = fopen(s->log, "r");
	if (!f)
		return buf;
	fseek(f, 0, SEEK_END);
	long end = ftell(f);
	long start = end > (long)cap - 1 ? end - (long)cap + 1 : 0;
	fseek(f, start, SEEK_SET);
	size_t k = fread(buf, 1, cap - 1, f);
	buf[k] = '\0';
	fclose(f);
	return buf;
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char p[512];
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				remove_tree(p);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

void test_server_remove(test_server *s)
{
	if (s->dir[0] && !getenv("CUBED_KEEP_TMP"))
		remove_tree(s->dir);
}

/* Lines of the log with the listening marker and a complete port; the
 * last port goes to *port. */
static int listening_lines(const char *path, int *port)
{
	FILE *f = fopen(path, "r");
	int seen = 0;
	if (!f)
		return 0;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *m = strstr(line, marker);
		if (m && strchr(line, '\n')) {
			seen++;
			*port = atoi(m + sizeof marker - 1);
		}
	}
	fclose(f);
	return seen;
}

int test_server_start(test_server *s, const char *dir,
		      const char *const *extra, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	const char *bin = getenv("CUBED_BIN");
	if (!bin || !*bin)
		bin = "build/cubed";
	if (access(bin, X_OK) != 0) {
		snprintf(err, errlen, "server binary %s: %s", bin,
			 strerror(errno));
		return -1;
	}
	int made = 0;
	if (dir) {
		snprintf(s->dir, sizeof s->dir, "%s", dir);
	} else {
		snprintf(s->dir, sizeof s->dir, "/tmp/cubed-test-XXXXXX");
		if (!mkdtemp(s->dir)) {
			snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
			return -1;
		}
		made = 1;
	}
	snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
	snprintf(s->db, sizeof s->db, "%s/cubed.db", s->dir);
	const char *pg = getenv("CUBED_TEST_PG");
	if (pg && *pg) {
		/* one database per directory: a restart on the same dir
		 * finds its sessions, another dir starts empty */
		char name[80];
		const char *base = strrchr(s->dir, '/');
		snprintf(name, sizeof name, "t_%s", base ? base + 1 : s->dir);
		if (pg_cluster_createdb(pg, name, s->db, sizeof s->db, err,
					errlen) != 0) {
			if (made)
				test_server_remove(s);
			return -1;
		}
	}

	const char *argv[48];
	int argc = 0;
	argv[argc++] = bin;
	argv[argc++] = "--port";
	argv[argc++] = "0";
	argv[argc++] = "--bind";
	argv[argc++] = "127.0.0.1";
	argv[argc++] = "--db";
	argv[argc++] = s->db;
	const char *openapi = getenv("CUBED_OPENAPI");
	if (!openapi || !*openapi)
		openapi = "openapi.yaml";
	if (access(openapi, R_OK) == 0) {
		argv[argc++] = "--openapi";
		argv[argc++] = openapi;
	}
	const char *tables = getenv("CUBED_TABLES");
	if (tables && *tables) {
		argv[argc++] = "--tables";
		argv[argc++] = tables;
	}
	/* 4×4 and 5×5 stage by stage, and no table made at start that a
	 * test did not ask for: the phase tables would cost every server
	 * that solves one a minute of a core and 140 MB (440 MB); the tests
	 * of those paths pass --solver-4x4 1, --solver-5x5 1 or
	 * --solver-warm 1 (the last one given counts) */
	argv[argc++] = "--solver-4x4";
	argv[argc++] = "0";
	argv[argc++] = "--solver-5x5";
	argv[argc++] = "0";
	argv[argc++] = "--solver-warm";
	argv[argc++] = "0";
	for (const char *const *e = extra; e && *e && argc < 47; e++)
		argv[argc++] = *e;
	argv[argc] = NULL;

	int port = 0;
	int before = listening_lines(s->log, &port);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		if (made)
			test_server_remove(s);
		return -1;
	}
	if (pid == 0) {
		/* never outlive the test runner */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int fd = open(s->log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int nul = open("/dev/null", O_RDONLY);
		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	s->pid = pid;
	double deadline = test_now() + 10.0;
	char buf[1536];
	while (test_now() < deadline) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			s->pid = 0;
			snprintf(err, errlen,
				 "server exited before listening (status "
				 "0x%x); its log:\n%s",
				 st, test_server_log_tail(s, buf, sizeof buf));
			if (made)
				test_server_remove(s);
			return -1;
		}
		if (listening_lines(s->log, &port) > before) {
			s->port = port;
			return 0;
		}
		test_sleep_ms(10);
	}
	snprintf(err, errlen, "server did not listen within 10 s; its log:\n%s",
		 test_server_log_tail(s, buf, sizeof buf));
	test_server_kill(s);
	if (made)
		test_server_remove(s);
	return -1;
}

int test_server_stop(test_server *s, int remove)
{
	int status = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		double deadline = test_now() + 10.0;
		int done = 0;
		while (test_now() < deadline) {
			if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
				done = 1;
				break;
			}
			test_sleep_ms(5);
		}
		if (!done) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			status = -1;
		}
		s->pid = 0;
	}
	if (remove)
		test_server_remove(s);
	return status;
}

void test_server_kill(test_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

long test_server_rss_kb(const test_server *s)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long kb = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	fclose(f);
	return kb;
}
