/* pg_cluster.c — the tests' private PostgreSQL cluster (pg_cluster.h):
 * the binaries run as child processes (as the postgres user when we are
 * root), each waited for; the postmaster is pg_ctl's child and is stopped
 * through pg_ctl, or by the pid in its postmaster.pid if that fails. */
#include "pg_cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The directory of initdb and pg_ctl: $CUBED_PG_BIN, else Debian's. */
static int bindir(char *out, size_t cap)
{
	const char *env = getenv("CUBED_PG_BIN");
	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return 0;
	}
	glob_t g;
	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) != 0)
		return -1;
	/* the newest version sorts last */
	snprintf(out, cap, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	char *slash = strrchr(out, '/');
	if (slash)
		*slash = '\0';
	return 0;
}

/* Run argv (as postgres when root), output appended to log; the exit
 * status, or -1. */
static int run(char *const argv[], const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* the user first: the log is then the cluster user's, and
		 * pg_ctl -l appends to it */
		if (getuid() == 0) {
			struct passwd *pw = getpwnam("postgres");
			if (!pw || setgid(pw->pw_gid) != 0 ||
			    setuid(pw->pw_uid) != 0)
				_exit(126);
		}
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int nul = open("/dev/null", O_RDONLY);
		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int port = -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

static void log_tail(const struct pg_cluster *c, char *err, size_t errlen)
{
	char path[128], buf[600] = "";
	snprintf(path, sizeof path, "%s/pg.log", c->dir);
	FILE *f = fopen(path, "r");
	if (f) {
		fseek(f, 0, SEEK_END);
		long end = ftell(f);
		fseek(f, end > 500 ? end - 500 : 0, SEEK_SET);
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	size_t used = strlen(err);
	snprintf(err + used, errlen - used, "; log: %s", buf);
}

static int start(struct pg_cluster *c, char *err, size_t errlen)
{
	char bin[256], pg_ctl[300], data[96], log[96], opts[256];
	if (bindir(bin, sizeof bin) < 0) {
		snprintf(err, errlen, "no PostgreSQL binaries (install the "
				      "postgresql package)");
		return -1;
	}
	snprintf(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", bin);
	snprintf(data, sizeof data, "%s/data", c->dir);
	snprintf(log, sizeof log, "%s/pg.log", c->dir);
	snprintf(opts, sizeof opts,
		 "-p %d -k %s -c listen_addresses=127.0.0.1 "
		 "-c max_connections=300",
		 c->port, c->dir);
	char *const argv[] = {pg_ctl, "-D", data, "-l", log, "-w", "-t", "60",
			      "-o", opts, "start", NULL};
	if (run(argv, log) != 0) {
		snprintf(err, errlen, "pg_ctl start failed");
		log_tail(c, err, errlen);
		return -1;
	}
	c->running = 1;
	return 0;
}

int pg_cluster_start(struct pg_cluster *c, int durable, char *err,
		     size_t errlen)
{
	memset(c, 0, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "/tmp/cubed-pg-XXXXXX");
	if (!mkdtemp(c->dir)) {
		snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	if (getuid() == 0) {
		struct passwd *pw = getpwnam("postgres");
		if (!pw || chown(c->dir, pw->pw_uid, pw->pw_gid) != 0) {
			snprintf(err, errlen, "no postgres user to run the "
					      "cluster as (root may not)");
			pg_cluster_destroy(c);
			return -1;
		}
	}
	char bin[256], initdb[300], data[96], log[96];
	if (bindir(bin, sizeof bin) < 0) {
		snprintf(err, errlen, "no PostgreSQL binaries (install the "
				      "postgresql package)");
		pg_cluster_destroy(c);
		return -1;
	}
	snprintf(initdb, sizeof initdb, "%s/initdb", bin);
	snprintf(data, sizeof data, "%s/data", c->dir);
	snprintf(log, sizeof log, "%s/pg.log", c->dir);
	char *const argv[] = {initdb, "-D", data, "-U", "cubed", "-A", "trust",
			      "-E", "UTF8", "--locale=C", "--no-sync", NULL};
	if (run(argv, log) != 0) {
		snprintf(err, errlen, "initdb failed");
		log_tail(c, err, errlen);
		pg_cluster_destroy(c);
		return -1;
	}
	if (!durable) {
		char conf[128];
		snprintf(conf, sizeof conf, "%s/postgresql.auto.conf", data);
		FILE *f = fopen(conf, "a");
		if (f) {
			fputs("fsync = off\nsynchronous_commit = on\n"
			      "full_page_writes = off\n", f);
			fclose(f);
		}
	}
	for (int attempt = 0; attempt < 5; attempt++) {
		c->port = free_port();
		if (c->port > 0 && start(c, err, errlen) == 0) {
			snprintf(c->url, sizeof c->url,
				 "postgresql://cubed@127.0.0.1:%d/", c->port);
			return 0;
		}
	}
	pg_cluster_destroy(c);
	return -1;
}

int pg_cluster_halt(struct pg_cluster *c)
{
	if (!c->running)
		return 0;
	char bin[256], pg_ctl[300], data[96], log[96];
	if (bindir(bin, sizeof bin) < 0)
		return -1;
	snprintf(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", bin);
	snprintf(data, sizeof data, "%s/data", c->dir);
	snprintf(log, sizeof log, "%s/pg.log", c->dir);
	char *const argv[] = {pg_ctl, "-D", data, "-m", "fast", "-w", "-t",
			      "60", "stop", NULL};
	if (run(argv, log) == 0) {
		c->running = 0;
		return 0;
	}
	/* pg_ctl failed: the postmaster's pid is the first line of its
	 * pid file; SIGQUIT is the immediate shutdown */
	char pidfile[128];
	snprintf(pidfile, sizeof pidfile, "%s/postmaster.pid", data);
	FILE *f = fopen(pidfile, "r");
	long pid = 0;
	if (f) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid > 0)
		kill((pid_t)pid, SIGQUIT);
	c->running = 0;
	return -1;
}

int pg_cluster_resume(struct pg_cluster *c, char *err, size_t errlen)
{
	return c->running ? 0 : start(c, err, errlen);
}

void pg_cluster_destroy(struct pg_cluster *c)
{
	if (!c->dir[0])
		return;
	pg_cluster_halt(c);
	if (!getenv("CUBED_KEEP_TMP")) {
		char *const argv[] = {"/bin/rm", "-rf", c->dir, NULL};
		pid_t pid = fork();
		if (pid == 0) {
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	c->dir[0] = '\0';
}

int pg_exec(const char *url, const char *sql, char *err, size_t errlen)
{
	PGconn *pq = PQconnectdb(url);
	int rc = -1;
	if (PQstatus(pq) != CONNECTION_OK) {
		snprintf(err, errlen, "%s", PQerrorMessage(pq));
	} else {
		PGresult *r = PQexec(pq, sql);
		ExecStatusType s = PQresultStatus(r);
		if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
			rc = 0;
		else
			snprintf(err, errlen, "%s", PQresultErrorMessage(r));
		PQclear(r);
	}
	PQfinish(pq);
	return rc;
}

long long pg_query_int(const char *url, const char *sql)
{
	PGconn *pq = PQconnectdb(url);
	long long v = -1;
	if (PQstatus(pq) == CONNECTION_OK) {
		PGresult *r = PQexec(pq, sql);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 &&
		    !PQgetisnull(r, 0, 0))
			v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
	}
	PQfinish(pq);
	return v;
}

int pg_cluster_createdb(const char *base_url, const char *name, char *url,
			size_t urllen, char *err, size_t errlen)
{
	char admin[256], sql[160];
	snprintf(admin, sizeof admin, "%spostgres", base_url);
	snprintf(sql, sizeof sql, "CREATE DATABASE \"%s\"", name);
	char why[512] = "";
	if (pg_exec(admin, sql, why, sizeof why) != 0 &&
	    !strstr(why, "already exists")) {
		snprintf(err, errlen, "CREATE DATABASE %s: %s", name, why);
		return -1;
	}
	snprintf(url, urllen, "%s%s", base_url, name);
	return 0;
}
