/* check_drain.c — a stopping node drains, and a balancer in front of two
 * nodes turns a rolling restart into no error at all (issue 61, item 8).
 *
 * drain (make test, one node on SQLite):
 *   serves_while_draining  after SIGTERM /readyz answers 503 draining
 *                          (JSON problem, Retry-After, drain_s) while a
 *                          read, a write and /healthz are still served
 *                          (replies say Connection: close); then the
 *                          process exits 0 by itself and the write made
 *                          during the drain is kept;
 *   second_signal_ends_drain  a second SIGTERM during a 600 s drain stops
 *                          the node at once, status 0;
 *   refused_after_drain    once the drain is over a connect is refused
 *                          (not queued unread by the kernel) while a reply
 *                          still in flight is finished, then exit 0;
 *   no_request_dropped_at_stop  clients on four addresses open connection
 *                          after connection, each with one POST, while the
 *                          node stops (three rounds): every connect is
 *                          either refused or gets its whole reply, never
 *                          an end of stream or a reset after the request
 *                          was sent (a balancer cannot resend that POST).
 *
 * pg_drain (make test-pg: two nodes on one PostgreSQL database; the
 * balancers as Debian packages them, run as nobody under root):
 *   rolling_restart_behind_nginx  a real nginx (Debian's nginx-light) run
 *                          unprivileged with the shipped docker/nginx.conf
 *                          (addresses and port replaced) and the very
 *                          docker/cubed-proxy.conf; clients write with
 *                          Idempotency-Key and read through it while each
 *                          node in turn gets SIGTERM and is started again
 *                          once it exited. No 502 or 504, no connection
 *                          error, every other non-2xx a JSON problem with
 *                          Retry-After, every acked write in the history
 *                          exactly once;
 *   rolling_restart_behind_haproxy  the same behind haproxy running the
 *                          shipped docker/haproxy.cfg, whose active check
 *                          takes each node out on its /readyz (a 503,
 *                          "Layer7"), before its listener closes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "session_helpers.h"
#include "suites.h"

/* ---------------------------------------------------------- helpers */

/* Wait up to secs for pid to exit: 1 and its wait status, or 0. */
static int wait_exit(pid_t pid, double secs, int *status)
{
	double deadline = now_s() + secs;
	while (now_s() < deadline) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 1;
		test_sleep_ms(5);
	}
	return 0;
}

/* GET /readyz on port: its status (-1: no answer) and, for a problem, its
 * code into code. */
static int readyz(int port, char *code, size_t cap, http_response *keep)
{
	http_response r;
	int st = http_request(port, "GET", "/readyz", NULL, NULL, 0, &r) == 0
			 ? r.status
			 : -1;
	code[0] = '\0';
	if (st > 0) {
		json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
		const char *c = json_string_value(json_object_get(j, "code"));
		snprintf(code, cap, "%s", c ? c : "");
		json_decref(j);
	}
	if (keep)
		*keep = r;
	else
		http_response_free(&r);
	return st;
}

/* Wait (deadline secs) until port's /readyz says draining; the reply is
 * checked whole: a 503 problem, code draining, Retry-After, drain_s. */
static void wait_draining(int port, long long drain_s, double secs)
{
	double deadline = now_s() + secs;
	char code[64];
	for (;;) {
		http_response r;
		int st = readyz(port, code, sizeof code, &r);
		if (st == 503 && strcmp(code, "draining") == 0) {
			ck_assert(media_type_is(http_header(&r, "Content-Type"),
						"application/problem+json"));
			ck_assert_ptr_nonnull(http_header(&r, "Retry-After"));
			json_t *j = parse(&r, "/readyz while draining");
			ck_assert_str_eq(sget(j, "type"),
					 "urn:cubed:problem:unavailable");
			ck_assert_int_eq(iget(j, "status"), 503);
			ck_assert_int_eq(iget(j, "drain_s"), drain_s);
			json_decref(j);
			http_response_free(&r);
			return;
		}
		http_response_free(&r);
		ck_assert_msg(st == 200 && now_s() < deadline,
			      "/readyz after SIGTERM: %d %s (want 503 draining "
			      "within %.0f s)",
			      st, code, secs);
		test_sleep_ms(5);
	}
}

static const char *const MOVES[] = {"R", "U", "F", "L", "D", "B",
				    "R'", "U'", "F'", "L'", "D'", "B'"};
#define NMOVES (sizeof MOVES / sizeof MOVES[0])

/* ------------------------------------------------------ one node */

START_TEST(serves_while_draining)
{
	server s;
	const char *extra[] = {"--drain-s", "2", NULL};
	start_or_abort(&s, NULL, extra);
	ses se;
	json_decref(create(s.port, "{\"size\": 3}", &se));
	double t0 = now_s();
	ck_assert_int_eq(kill(s.pid, SIGTERM), 0);
	wait_draining(s.port, 2, 5);

	/* a read on a keep-alive connection: served, and told to go */
	int fd = http_connect(s.port, 5000);
	ck_assert_int_ge(fd, 0);
	http_response r;
	ck_assert_int_eq(http_send(fd, s.port, "GET", se.path, NULL, NULL, 0, 0,
				   &r),
			 0);
	close(fd);
	ck_assert_int_eq(r.status, 200);
	const char *conn = http_header(&r, "Connection");
	ck_assert_msg(conn && strcmp(conn, "close") == 0,
		      "a reply while draining: Connection %s (want close)",
		      conn ? conn : "(none)");
	http_response_free(&r);
	/* a write */
	int st = send_moves(&r, s.port, &se, "R U", NULL, -1);
	ck_assert_msg(st == 200, "a write while draining: %d %s", st,
		      st > 0 ? r.body : r.error);
	json_t *j = parse(&r, "the write");
	ck_assert_int_eq(iget(j, "version"), 1);
	json_decref(j);
	http_response_free(&r);
	/* alive, only not ready */
	json_decref(expect_json(s.port, "GET", "/healthz", NULL, NULL, NULL,
				200, NULL));
	ck_assert_msg(now_s() - t0 < 2.0,
		      "the drain's requests took %.1f s: the drain (2 s) may "
		      "have ended before they were sent",
		      now_s() - t0);

	/* then the node stops by itself, cleanly */
	int status = 0;
	ck_assert_msg(wait_exit(s.pid, 15, &status),
		      "still running 15 s after SIGTERM with --drain-s 2");
	s.pid = 0;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "wait status 0x%x after the drain", status);
	/* the write made while draining is kept */
	char dir[sizeof s.dir];
	snprintf(dir, sizeof dir, "%s", s.dir);
	server again;
	start_or_abort(&again, dir, NULL);
	json_decref(get_session(again.port, se.path, NULL, 1));
	ck_assert_int_eq(server_stop(&again, 1), 0);
}
END_TEST

START_TEST(second_signal_ends_drain)
{
	server s;
	const char *extra[] = {"--drain-s", "600", NULL};
	start_or_abort(&s, NULL, extra);
	ck_assert_int_eq(kill(s.pid, SIGTERM), 0);
	wait_draining(s.port, 600, 5);
	ck_assert_int_eq(kill(s.pid, SIGTERM), 0);
	int status = 0;
	ck_assert_msg(wait_exit(s.pid, 15, &status),
		      "a second SIGTERM did not end a 600 s drain within 15 s");
	s.pid = 0;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "wait status 0x%x", status);
	test_server_remove(&s);
}
END_TEST

/* Open a download far larger than any socket buffer and read a little of
 * it: a reply in flight for as long as the client holds it. */
static int open_download(int port)
{
	int fd = http_connect(port, 5000);
	ck_assert_int_ge(fd, 0);
	const char req[] = "GET /v1/dataset?count=100000000&depth=1-20&"
			   "column=features HTTP/1.1\r\nHost: x\r\n\r\n";
	ck_assert_int_eq(write(fd, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	ck_assert_int_gt(n, 12);
	buf[n] = '\0';
	ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0, "download: %.80s",
		      buf);
	return fd;
}

/* connect() to 127.0.0.1:port: 0 connected, else errno. */
static int try_connect(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
	close(fd);
	return rc;
}

START_TEST(refused_after_drain)
{
	server s;
	const char *extra[] = {"--drain-s", "0", NULL};
	start_or_abort(&s, NULL, extra);
	int fd = open_download(s.port);
	ck_assert_int_eq(kill(s.pid, SIGTERM), 0);
	/* the stop waits (up to 5 s) for the download in flight; meanwhile
	 * a new connection must be refused, not accepted into a queue
	 * nobody reads (a balancer retries a refused POST on another node,
	 * never one it has sent) */
	double deadline = now_s() + 4;
	int rc;
	while ((rc = try_connect(s.port)) == 0 && now_s() < deadline)
		test_sleep_ms(2);
	ck_assert_msg(rc == ECONNREFUSED,
		      "a connect after the listener closed: %s (want refused)",
		      rc ? strerror(rc) : "connected");
	int status = 0;
	ck_assert_msg(waitpid(s.pid, &status, WNOHANG) == 0,
		      "the node exited before the reply in flight was done");
	/* the client lets go of its download: the node finishes, status 0 */
	close(fd);
	ck_assert_msg(wait_exit(s.pid, 15, &status),
		      "still running 15 s after SIGTERM");
	s.pid = 0;
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "wait status 0x%x", status);
	test_server_remove(&s);
}
END_TEST

/* no_request_dropped_at_stop's clients: each sends one POST per
 * connection, from its own address, until a connect is refused. */
struct stormer {
	int port;
	char from[16];
	_Atomic long *attempts; /* shared: requests sent so far */
	long replied, refused, dropped;
	char first_drop[256];
};

static void *stormer_main(void *arg)
{
	struct stormer *c = arg;
	/* a body the node refuses (422) without a write: its stop is then
	 * as quick as it gets, which is when a taken connection could be
	 * closed before its request was read */
	const char body[] = "{\"n\":3}";
	const char *hdr[] = {"Content-Type: application/json", NULL};
	for (;;) {
		int fd = http_connect_from(c->port, c->from, 10000);
		if (fd < 0) {
			if (errno == ECONNREFUSED) {
				c->refused++;
				return NULL;
			}
			c->dropped++;
			snprintf(c->first_drop, sizeof c->first_drop,
				 "connect: %s", strerror(errno));
			return NULL;
		}
		/* a client (a balancer on busy cores) sends a little after
		 * its connect: the node has taken the connection by then and
		 * must wait for the request it has not read yet */
		test_sleep_ms(1);
		http_response r;
		int rc = http_send(fd, c->port, "POST", "/v1/sessions", hdr,
				   body, sizeof body - 1, 1, &r);
		close(fd);
		atomic_fetch_add(c->attempts, 1);
		if (rc == 0 && r.status > 0) {
			c->replied++;
		} else {
			if (c->dropped++ == 0)
				snprintf(c->first_drop, sizeof c->first_drop,
					 "%s", r.error);
		}
		http_response_free(&r);
	}
}

START_TEST(no_request_dropped_at_stop)
{
	enum { CLIENTS = 12, ROUNDS = 3 };
	for (int round = 0; round < ROUNDS; round++) {
		server s;
		const char *extra[] = {"--drain-s", "0", NULL};
		start_or_abort(&s, NULL, extra);
		_Atomic long attempts = 0;
		struct stormer c[CLIENTS];
		pthread_t th[CLIENTS];
		for (int i = 0; i < CLIENTS; i++) {
			c[i] = (struct stormer){.port = s.port,
						.attempts = &attempts};
			snprintf(c[i].from, sizeof c[i].from, "127.0.0.%d",
				 2 + i % 4);
			ck_assert_int_eq(pthread_create(&th[i], NULL,
							stormer_main, &c[i]),
					 0);
		}
		/* the clients are under way: then stop the node */
		double deadline = now_s() + 10;
		while (atomic_load(&attempts) < 300 && now_s() < deadline)
			test_sleep_ms(2);
		ck_assert_msg(atomic_load(&attempts) >= 300,
			      "round %d: only %ld requests in 10 s", round,
			      (long)atomic_load(&attempts));
		ck_assert_int_eq(kill(s.pid, SIGTERM), 0);
		int status = 0;
		ck_assert_msg(wait_exit(s.pid, 15, &status),
			      "still running 15 s after SIGTERM");
		s.pid = 0;
		long replied = 0, refused = 0, dropped = 0;
		const char *why = "";
		for (int i = 0; i < CLIENTS; i++) {
			pthread_join(th[i], NULL);
			replied += c[i].replied;
			refused += c[i].refused;
			dropped += c[i].dropped;
			if (c[i].dropped && !*why)
				why = c[i].first_drop;
		}
		ck_assert_msg(dropped == 0,
			      "round %d: %ld of %ld requests sent got no reply "
			      "as the node stopped (first: %s)",
			      round, dropped, replied + dropped, why);
		ck_assert_int_eq(refused, CLIENTS);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "wait status 0x%x", status);
		test_server_remove(&s);
	}
}
END_TEST

Suite *drain_suite(void)
{
	Suite *s = suite_create("drain");
	TCase *tc = tcase_create("one_node");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, serves_while_draining);
	tcase_add_test(tc, second_signal_ends_drain);
	tcase_add_test(tc, refused_after_drain);
	tcase_add_test(tc, no_request_dropped_at_stop);
	suite_add_tcase(s, tc);
	return s;
}

/* ---------------------------------------- two nodes behind nginx */

/* A free loopback port (bound and let go: nothing else here takes it
 * before the server does). */
static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

/* The whole of a file (malloc'd), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	if (b)
		b[n] = '\0';
	fclose(f);
	return b;
}

/* text with the one occurrence of from replaced by to (asserted: the
 * shipped file changed shape if it is missing or twice there). */
static char *replace_once(char *text, const char *from, const char *to)
{
	char *at = strstr(text, from);
	ck_assert_msg(at && !strstr(at + 1, from),
		      "docker/nginx.conf: \"%s\" is not there exactly once",
		      from);
	size_t head = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
	char *out = malloc(strlen(text) - fl + tl + 1);
	memcpy(out, text, head);
	memcpy(out + head, to, tl);
	strcpy(out + head + tl, at + fl);
	free(text);
	return out;
}

/* A balancer in front of the two nodes, run from a directory of its own
 * with the shipped configuration (addresses put in), unprivileged. */
struct balancer {
	const char *name; /* "nginx" or "haproxy" */
	pid_t pid;
	int port;
	char dir[64];
	char log[96]; /* nginx: its access log; haproxy: its own messages */
};

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void balancer_dir(struct balancer *b, const char *name,
			 const char *bin)
{
	ck_assert_msg(access(bin, X_OK) == 0,
		      "%s: %s (install %s: .ci/install-deps --test)", bin,
		      strerror(errno),
		      strcmp(name, "nginx") == 0 ? "nginx-light" : name);
	b->name = name;
	snprintf(b->dir, sizeof b->dir, "/tmp/cubed-%s-XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(b->dir));
	b->port = free_port();
}

/* Run argv (bin first) as nobody when root, its output to out (NULL:
 * /dev/null), and wait until a request through it reaches a node. */
static void balancer_run(struct balancer *b, const char *bin,
			 char *const argv[], const char *out)
{
	struct passwd *pw = getuid() == 0 ? getpwnam("nobody") : NULL;
	if (pw)
		ck_assert_int_eq(chown(b->dir, pw->pw_uid, pw->pw_gid), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int nul = open("/dev/null", O_RDWR);
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_APPEND, 0644)
			     : nul;
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (pw && (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 ||
			   setuid(pw->pw_uid) != 0))
			_exit(126);
		execv(bin, argv);
		_exit(127);
	}
	b->pid = pid;
	double deadline = now_s() + 10;
	for (;;) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			b->pid = 0;
			ck_abort_msg("%s exited (0x%x)", b->name, status);
		}
		http_response r;
		int st = http_request(b->port, "GET", "/healthz", NULL, NULL, 0,
				      &r) == 0
				 ? r.status
				 : -1;
		http_response_free(&r);
		if (st == 200)
			return;
		ck_assert_msg(now_s() < deadline,
			      "%s did not answer within 10 s (last %d)",
			      b->name, st);
		test_sleep_ms(10);
	}
}

/* nginx: docker/nginx.conf with the nodes' and its own address put in,
 * the test's log and temporary paths added, and docker/cubed-proxy.conf
 * as it is. */
static void nginx_start(struct balancer *b, int pa, int pb)
{
	const char *bin = getenv("CUBED_NGINX");
	if (!bin || !*bin)
		bin = "/usr/sbin/nginx";
	balancer_dir(b, "nginx", bin);
	snprintf(b->log, sizeof b->log, "%s/access.log", b->dir);
	char *conf = slurp("docker/nginx.conf");
	char *proxy = slurp("docker/cubed-proxy.conf");
	ck_assert_msg(conf && proxy, "docker/nginx.conf or cubed-proxy.conf "
				     "missing (run from the repository)");
	char a[64], c[64], listen[64], paths[1024];
	snprintf(a, sizeof a, "127.0.0.1:%d", pa);
	snprintf(c, sizeof c, "127.0.0.1:%d", pb);
	snprintf(listen, sizeof listen, "listen 127.0.0.1:%d;", b->port);
	snprintf(paths, sizeof paths,
		 "http {\n"
		 "\tlog_format drain '$status $request_method "
		 "\"$upstream_addr\" \"$upstream_status\" $msec';\n"
		 "\taccess_log %s drain;\n"
		 "\tclient_body_temp_path %s/body;\n"
		 "\tproxy_temp_path %s/proxy;\n"
		 "\tfastcgi_temp_path %s/fastcgi;\n"
		 "\tuwsgi_temp_path %s/uwsgi;\n"
		 "\tscgi_temp_path %s/scgi;\n",
		 b->log, b->dir, b->dir, b->dir, b->dir, b->dir);
	conf = replace_once(conf, "cubed-a:8080", a);
	conf = replace_once(conf, "cubed-b:8080", c);
	conf = replace_once(conf, "listen 8080;", listen);
	conf = replace_once(conf, "http {\n", paths);
	write_file(b->dir, "nginx.conf", conf);
	write_file(b->dir, "cubed-proxy.conf", proxy);
	free(conf);
	free(proxy);
	char conf_path[128], err_path[128], globals[160];
	snprintf(conf_path, sizeof conf_path, "%s/nginx.conf", b->dir);
	snprintf(err_path, sizeof err_path, "%s/error.log", b->dir);
	snprintf(globals, sizeof globals, "daemon off; pid %s/nginx.pid;",
		 b->dir);
	char *const argv[] = {"nginx", "-p", b->dir, "-c", conf_path, "-e",
			      err_path, "-g", globals, NULL};
	balancer_run(b, bin, argv, NULL);
}

/* haproxy: docker/haproxy.cfg with the nodes' and its own address put
 * in; its messages (a server going down, and why) in b->log. */
static void haproxy_start(struct balancer *b, int pa, int pb)
{
	const char *bin = getenv("CUBED_HAPROXY");
	if (!bin || !*bin)
		bin = "/usr/sbin/haproxy";
	balancer_dir(b, "haproxy", bin);
	snprintf(b->log, sizeof b->log, "%s/haproxy.log", b->dir);
	char *conf = slurp("docker/haproxy.cfg");
	ck_assert_msg(conf != NULL, "docker/haproxy.cfg missing (run from "
				    "the repository)");
	char a[64], c[64], bind[64];
	snprintf(a, sizeof a, "127.0.0.1:%d", pa);
	snprintf(c, sizeof c, "127.0.0.1:%d", pb);
	snprintf(bind, sizeof bind, "bind 127.0.0.1:%d", b->port);
	conf = replace_once(conf, "cubed-a:8080", a);
	conf = replace_once(conf, "cubed-b:8080", c);
	conf = replace_once(conf, "bind :8080", bind);
	write_file(b->dir, "haproxy.cfg", conf);
	free(conf);
	char conf_path[128];
	snprintf(conf_path, sizeof conf_path, "%s/haproxy.cfg", b->dir);
	char *const argv[] = {"haproxy", "-db", "-f", conf_path, NULL};
	balancer_run(b, bin, argv, b->log);
}

static void balancer_stop(struct balancer *b)
{
	if (b->pid > 0) {
		kill(b->pid, SIGTERM);
		int status;
		if (!wait_exit(b->pid, 10, &status)) {
			kill(b->pid, SIGKILL);
			waitpid(b->pid, NULL, 0);
		}
		b->pid = 0;
	}
	if (!getenv("CUBED_KEEP_TMP")) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", b->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", b->dir);
	}
}

/* haproxy: wait (deadline secs) for its message that server name is
 * state ("DOWN", "UP"), after byte from of its log; the message
 * (malloc'd). */
static char *wait_state_message(const struct balancer *b, const char *name,
				const char *state, size_t from, double secs)
{
	char want[64];
	snprintf(want, sizeof want, "cubed/%s is %s", name, state);
	double deadline = now_s() + secs;
	for (;;) {
		char *log = slurp(b->log);
		char *at = log && strlen(log) > from ? strstr(log + from, want)
						     : NULL;
		if (at) {
			char *nl = strchr(at, '\n');
			if (nl)
				*nl = '\0';
			char *msg = strdup(at);
			free(log);
			return msg;
		}
		free(log);
		ck_assert_msg(now_s() < deadline,
			      "haproxy did not say %s is %s within %.0f s", name,
			      state, secs);
		test_sleep_ms(10);
	}
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* One client of the balancer: its own session, written one move at a
 * time with a fresh Idempotency-Key per write (a write that gets an
 * error is sent again with the same key until it is acked), and read
 * after each write. */
struct client {
	int port; /* the balancer's */
	int id;
	ses s;
	volatile int *stop;
	long long acked;   /* writes acked; the k-th must be version k */
	long long reads;
	long long non2xx;  /* answers that were not 2xx (each checked) */
	long long gateway; /* 502 or 504: the balancer's own failure */
	char seen[1024];   /* the codes of the first non-2xx answers */
	int failed;        /* first failure, in why */
	char why[512];
};

static void client_fail(struct client *c, const char *fmt, int st,
			const http_response *r)
{
	if (c->failed++)
		return;
	snprintf(c->why, sizeof c->why, fmt, st,
		 st > 0 ? r->body : r->error);
}

/* A non-2xx answer: it must be a JSON problem with Retry-After. */
static void check_non2xx(struct client *c, int st, const http_response *r)
{
	c->non2xx++;
	if (st == 502 || st == 504)
		c->gateway++;
	if (st < 0) {
		client_fail(c, "no answer through the balancer (%d): %s", st,
			    r);
		return;
	}
	json_t *j = json_loadb(r->body, r->body_len, 0, NULL);
	size_t used = strlen(c->seen);
	if (used + 80 < sizeof c->seen)
		snprintf(c->seen + used, sizeof c->seen - used, "%d %s; ", st,
			 json_string_value(json_object_get(j, "code"))
				 ? json_string_value(json_object_get(j, "code"))
				 : "?");
	int ok = media_type_is(http_header(r, "Content-Type"),
			       "application/problem+json") &&
		 http_header(r, "Retry-After") && j &&
		 json_is_string(json_object_get(j, "code")) &&
		 json_integer_value(json_object_get(j, "status")) == st;
	json_decref(j);
	if (!ok)
		client_fail(c, "%d without a JSON problem and Retry-After: %.300s",
			    st, r);
}

static void *client_run(void *arg)
{
	struct client *c = arg;
	while (!*c->stop && !c->failed) {
		char key[64];
		snprintf(key, sizeof key, "drain-%d-%lld", c->id, c->acked + 1);
		const char *mv = MOVES[c->acked % NMOVES];
		for (int attempt = 0;; attempt++) {
			http_response r;
			int st = send_moves(&r, c->port, &c->s, mv, key, -1);
			if (st == 200) {
				json_t *j = json_loadb(r.body, r.body_len, 0,
						       NULL);
				long long v = json_integer_value(
					json_object_get(j, "version"));
				json_decref(j);
				if (v != c->acked + 1 && !c->failed++)
					snprintf(c->why, sizeof c->why,
						 "write %lld acked as version "
						 "%lld",
						 c->acked + 1, v);
				c->acked++;
				http_response_free(&r);
				break;
			}
			check_non2xx(c, st, &r);
			http_response_free(&r);
			if (c->failed || attempt == 100) {
				if (!c->failed++)
					snprintf(c->why, sizeof c->why,
						 "write %s never acked",
						 key);
				return NULL;
			}
			test_sleep_ms(20); /* a client's back-off */
		}
		http_response r;
		int st = http_request(c->port, "GET", c->s.path, NULL, NULL, 0,
				      &r) == 0
				 ? r.status
				 : -1;
		if (st == 200)
			c->reads++;
		else
			check_non2xx(c, st, &r);
		http_response_free(&r);
	}
	return NULL;
}

enum { NCLIENT = 4 };

static long long total_acked(struct client *cl)
{
	long long n = 0;
	for (int i = 0; i < NCLIENT; i++)
		n += cl[i].acked;
	return n;
}

/* Wait until the clients acked more writes than now (and none failed). */
static void wait_progress(struct client *cl, long long more, double secs)
{
	long long want = total_acked(cl) + more;
	double deadline = now_s() + secs;
	while (total_acked(cl) < want) {
		for (int i = 0; i < NCLIENT; i++)
			ck_assert_msg(!cl[i].failed, "client %d: %s", i,
				      cl[i].why);
		ck_assert_msg(now_s() < deadline,
			      "the clients acked no %lld more writes in %.0f s",
			      more, secs);
		test_sleep_ms(10);
	}
}

/* A node's start arguments: fixed port (the balancer's upstream), the
 * shared database, a drain longer than nginx's fail_timeout (2 s). */
struct node {
	server srv;
	char dir[64];
	char db[160];
	char port[16];
};

static void node_start(struct node *n, int first)
{
	const char *extra[] = {"--port", n->port, "--drain-s", "3",
			       "--rate-limit", "0",
			       first ? NULL : "--db", n->db, NULL};
	start_or_abort(&n->srv, n->dir[0] ? n->dir : NULL, extra);
	snprintf(n->dir, sizeof n->dir, "%s", n->srv.dir);
}

/* The rolling restart behind b (started by start): see the head. */
static void rolling_restart(struct balancer *b,
			    void (*start)(struct balancer *, int, int))
{
	static struct node na, nb;
	memset(&na, 0, sizeof na);
	memset(&nb, 0, sizeof nb);
	snprintf(na.port, sizeof na.port, "%d", free_port());
	snprintf(nb.port, sizeof nb.port, "%d", free_port());
	node_start(&na, 1);
	snprintf(na.db, sizeof na.db, "%s", na.srv.db);
	snprintf(nb.db, sizeof nb.db, "%s", na.srv.db);
	node_start(&nb, 0);
	start(b, atoi(na.port), atoi(nb.port));
	int haproxy = strcmp(b->name, "haproxy") == 0;

	static struct client cl[NCLIENT];
	memset(cl, 0, sizeof cl);
	volatile int stop = 0;
	pthread_t th[NCLIENT];
	for (int i = 0; i < NCLIENT; i++) {
		json_decref(create(b->port, "{\"size\": 3}", &cl[i].s));
		cl[i].port = b->port;
		cl[i].id = i;
		cl[i].stop = &stop;
	}
	for (int i = 0; i < NCLIENT; i++)
		pthread_create(&th[i], NULL, client_run, &cl[i]);
	wait_progress(cl, 20, 20);

	double t0 = now_s();
	struct node *order[] = {&na, &nb};
	for (int k = 0; k < 2; k++) {
		struct node *n = order[k];
		int port = atoi(n->port);
		size_t mark = haproxy ? file_size(b->log) : 0;
		ck_assert_int_eq(kill(n->srv.pid, SIGTERM), 0);
		wait_draining(port, 3, 5);
		if (haproxy) {
			/* an active check takes the node out on its /readyz
			 * (a Layer7 503), not when its listener closes (a
			 * Layer4 refusal) */
			char *m = wait_state_message(
				b, n == &na ? "cubed-a" : "cubed-b", "DOWN",
				mark, 10);
			ck_assert_msg(strstr(m, "Layer7 wrong status") &&
					      strstr(m, "503"),
				      "haproxy took node %d out: %s", k, m);
			free(m);
		}
		int status = 0;
		ck_assert_msg(wait_exit(n->srv.pid, 20, &status),
			      "node %d still running 20 s after SIGTERM", k);
		n->srv.pid = 0;
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "node %d: wait status 0x%x", k, status);
		/* the clients went on through the other node meanwhile */
		wait_progress(cl, 5, 20);
		mark = haproxy ? file_size(b->log) : 0;
		node_start(n, n == &na);
		/* ready again (the database answers) before the next stop:
		 * what an operator's script waits for */
		double deadline = now_s() + 20;
		char code[64];
		int st;
		while ((st = readyz(port, code, sizeof code, NULL)) != 200) {
			ck_assert_msg(now_s() < deadline,
				      "restarted node %d not ready: %d %s", k,
				      st, code);
			test_sleep_ms(10);
		}
		/* haproxy: and back in its rotation (rise 2 checks), before
		 * the other node is taken out; nginx has no such state to
		 * wait for: the drain outlasts its fail_timeout */
		if (haproxy)
			free(wait_state_message(
				b, n == &na ? "cubed-a" : "cubed-b", "UP", mark,
				10));
	}
	double took = now_s() - t0;
	wait_progress(cl, 10, 20);
	stop = 1;
	for (int i = 0; i < NCLIENT; i++)
		pthread_join(th[i], NULL);

	long long acked = 0, reads = 0, non2xx = 0, gateway = 0;
	for (int i = 0; i < NCLIENT; i++) {
		ck_assert_msg(!cl[i].failed, "client %d: %s", i, cl[i].why);
		acked += cl[i].acked;
		reads += cl[i].reads;
		non2xx += cl[i].non2xx;
		gateway += cl[i].gateway;
	}
	/* what nginx saw: no 502 or 504 of its own (its log lines for
	 * any: status, method, the nodes tried and their answers, when),
	 * and the requests it sent on to the other node (a refused connect
	 * is an upstream 502 there) */
	long lines = 0, retried = 0, own502 = 0;
	char gw[1024] = "";
	if (!haproxy) {
		char *log = slurp(b->log);
		ck_assert_ptr_nonnull(log);
		for (char *p = log; *p;) {
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			lines++;
			if (strstr(p, ", "))
				retried++;
			int own = strncmp(p, "502 ", 4) == 0 ||
				  strncmp(p, "504 ", 4) == 0;
			own502 += own;
			if (own && strlen(gw) + strlen(p) + 3 < sizeof gw) {
				strcat(gw, p);
				strcat(gw, "; ");
			}
			p = nl ? nl + 1 : p + strlen(p);
		}
		free(log);
	}
	ck_assert_msg(gateway == 0 && own502 == 0,
		      "%lld 502/504 from the balancer, %ld in its log (took "
		      "%.1f s; its lines: %s)",
		      gateway, own502, now_s() - t0, gw[0] ? gw : "none");
	/* every acked write is in the history exactly once: after the
	 * creation (version 0), versions 1..n, each the move the client
	 * sent */
	for (int i = 0; i < NCLIENT; i++) {
		json_t *h = history_all(atoi(na.port), &cl[i].s, NULL, 1000);
		ck_assert_msg((long long)json_array_size(h) == cl[i].acked + 1,
			      "client %d: %zu events in the history for %lld "
			      "acked writes and the creation (non-2xx "
			      "answers: %s)",
			      i, json_array_size(h), cl[i].acked, cl[i].seen);
		for (size_t e = 0; e < json_array_size(h); e++) {
			json_t *ev = json_array_get(h, e);
			ck_assert_int_eq(iget(ev, "version"), (long long)e);
			if (e > 0) {
				ck_assert_str_eq(sget(ev, "type"), "moves");
				ck_assert_str_eq(sget(ev, "moves"),
						 MOVES[(e - 1) % NMOVES]);
			}
		}
		json_decref(h);
		json_decref(get_session(atoi(nb.port), cl[i].s.path, NULL,
					cl[i].acked));
	}
	char seen[4 * sizeof cl[0].seen] = "";
	for (int i = 0; i < NCLIENT; i++)
		strncat(seen, cl[i].seen, sizeof seen - strlen(seen) - 1);
	char what[160] = "";
	if (!haproxy) {
		snprintf(what, sizeof what,
			 "; nginx sent %ld of %ld requests on to the other "
			 "node",
			 retried, lines);
	} else {
		snprintf(what, sizeof what,
			 "; haproxy took each node out on its /readyz");
	}
	fprintf(stderr,
		"rolling_restart_behind_%s: two restarts in %.1f s; %lld "
		"writes acked, %lld reads, %lld non-2xx answers (JSON "
		"problems with Retry-After: %s), none from %s%s\n",
		b->name, took, acked, reads, non2xx, seen[0] ? seen : "none",
		b->name, what);
	balancer_stop(b);
	ck_assert_int_eq(server_stop(&nb.srv, 1), 0);
	ck_assert_int_eq(server_stop(&na.srv, 1), 0);
}

START_TEST(rolling_restart_behind_nginx)
{
	struct balancer b;
	memset(&b, 0, sizeof b);
	rolling_restart(&b, nginx_start);
}
END_TEST

START_TEST(rolling_restart_behind_haproxy)
{
	struct balancer b;
	memset(&b, 0, sizeof b);
	rolling_restart(&b, haproxy_start);
}
END_TEST

Suite *pg_drain_suite(void)
{
	Suite *s = suite_create("pg_drain");
	TCase *tc = tcase_create("behind_balancers");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, rolling_restart_behind_nginx);
	tcase_add_test(tc, rolling_restart_behind_haproxy);
	suite_add_tcase(s, tc);
	return s;
}
