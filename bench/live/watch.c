/* watch.c — live-event delivery benchmark: one writer and many watchers of
 * one session on a running cubed (127.0.0.1 only).
 *
 *   watch PORT SERVER_PID [WATCHERS=500] [EVENTS=200] [GAP_MS=20]
 *
 * Creates a 3×3 session, opens WATCHERS event streams on it, then a writer
 * thread posts EVENTS single-move writes (one every GAP_MS, on one
 * keep-alive connection) and notes when each is acknowledged; the main
 * thread reads every stream with poll() and notes when each watcher sees
 * each version's "id:" line. Delivery latency = seen − acknowledged (0
 * when the event came first: the server publishes before it answers).
 * Memory per watcher = the server's RSS growth from opening the streams,
 * divided by their number. Prints "name: value unit" lines; the writer's
 * own acknowledgement time is the reference measured in the same run.
 * With WATCH_WRITE_PORT set, the writer posts to that port (another node
 * on the same PostgreSQL database) while the streams read PORT. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port, write_port;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int dial_port(int p)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {0};
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)p);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("connect");
		exit(1);
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
}

static int dial(void)
{
	return dial_port(port);
}

/* One request on fd, the response body (Content-Length) into body. */
static int exchange(int fd, const char *req, char *body, size_t cap)
{
	size_t len = strlen(req);
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	static __thread char buf[65536];
	size_t have = 0;
	for (;;) {
		ssize_t n = recv(fd, buf + have, sizeof buf - 1 - have, 0);
		if (n <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		char *end = strstr(buf, "\r\n\r\n");
		if (!end)
			continue;
		char *cl = strcasestr(buf, "Content-Length:");
		size_t want = cl ? (size_t)atol(cl + 15) : 0;
		size_t got = have - (size_t)(end + 4 - buf);
		if (got < want)
			continue;
		int status = atoi(buf + 9);
		if (body) {
			size_t k = want < cap - 1 ? want : cap - 1;
			memcpy(body, end + 4, k);
			body[k] = '\0';
		}
		return status;
	}
}

static long rss_kib(int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	long kib = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = atol(line + 6);
	if (f)
		fclose(f);
	return kib;
}

static char sid[64], token[64];
static int nevents, gap_ms;
static double *acked;

static void *writer(void *arg)
{
	(void)arg;
	int fd = dial_port(write_port);
	static const char *const moves[] = {"R", "U", "F'", "L2", "D", "B"};
	char req[512];
	for (int i = 1; i <= nevents; i++) {
		const char *m = moves[i % 6];
		snprintf(req, sizeof req,
			 "POST /v1/sessions/%s/moves HTTP/1.1\r\nHost: x\r\n"
			 "Authorization: Bearer %s\r\n"
			 "Content-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n{\"moves\":\"%s\"}",
			 sid, token, strlen(m) + 12, m);
		double t0 = now_ms();
		if (exchange(fd, req, NULL, 0) != 200) {
			fprintf(stderr, "watch: write %d failed\n", i);
			exit(1);
		}
		acked[i] = now_ms();
		acked[0] += acked[i] - t0; /* total write time */
		struct timespec ts = {0, (long)gap_ms * 1000000L};
		nanosleep(&ts, NULL);
	}
	close(fd);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: watch PORT SERVER_PID [WATCHERS] [EVENTS] [GAP_MS]\n");
		return 2;
	}
	port = atoi(argv[1]);
	/* WATCH_WRITE_PORT: the writes go to another node of the same
	 * database (cross-node delivery, bench/pg.sh) */
	const char *wp = getenv("WATCH_WRITE_PORT");
	write_port = wp && atoi(wp) > 0 ? atoi(wp) : port;
	int pid = atoi(argv[2]);
	int nw = argc > 3 ? atoi(argv[3]) : 500;
	nevents = argc > 4 ? atoi(argv[4]) : 200;
	gap_ms = argc > 5 ? atoi(argv[5]) : 20;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);

	char body[4096];
	int fd = dial();
	int st = exchange(fd,
			  "POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
			  "Content-Type: application/json\r\n"
			  "Content-Length: 10\r\n\r\n{\"size\":3}",
			  body, sizeof body);
	close(fd);
	char *p = strstr(body, "\"id\":\""), *q = strstr(body, "\"write_token\":\"");
	if (st != 201 || !p || !q) {
		fprintf(stderr, "watch: create failed (%d): %s\n", st, body);
		return 1;
	}
	sscanf(p + 6, "%63[^\"]", sid);
	sscanf(q + 15, "%63[^\"]", token);

	struct timespec settle = {0, 300 * 1000000L};
	nanosleep(&settle, NULL);
	long rss0 = rss_kib(pid);
	struct pollfd *pf = calloc((size_t)nw, sizeof *pf);
	char (*part)[64] = calloc((size_t)nw, 64);
	int *plen = calloc((size_t)nw, sizeof *plen);
	int *seen = calloc((size_t)nw, sizeof *seen);
	double *lat = calloc((size_t)nw * (size_t)nevents, sizeof *lat);
	double *recv_at = calloc((size_t)nw * (size_t)(nevents + 1), sizeof *recv_at);
	acked = calloc((size_t)nevents + 1, sizeof *acked);
	char req[256];
	snprintf(req, sizeof req,
		 "GET /v1/sessions/%s/events?after=0 HTTP/1.1\r\nHost: x\r\n"
		 "Accept: text/event-stream\r\n\r\n",
		 sid);
	for (int i = 0; i < nw; i++) {
		pf[i].fd = dial();
		pf[i].events = POLLIN;
		if (send(pf[i].fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
			perror("send");
			return 1;
		}
	}
	/* every stream answered (its headers and "retry:") */
	char buf[65536];
	int ready = 0;
	double until = now_ms() + 20000;
	int *ok = calloc((size_t)nw, sizeof *ok);
	while (ready < nw && now_ms() < until) {
		poll(pf, (nfds_t)nw, 100);
		for (int i = 0; i < nw; i++)
			if (!ok[i] && (pf[i].revents & POLLIN)) {
				ssize_t n = recv(pf[i].fd, buf, sizeof buf - 1, 0);
				if (n <= 0) {
					fprintf(stderr, "watch: stream %d closed\n", i);
					return 1;
				}
				buf[n] = '\0';
				if (strstr(buf, "retry:")) {
					ok[i] = 1;
					ready++;
				}
			}
	}
	if (ready < nw) {
		fprintf(stderr, "watch: only %d of %d streams opened\n", ready, nw);
		return 1;
	}
	nanosleep(&settle, NULL);
	long rss1 = rss_kib(pid);

	pthread_t t;
	pthread_create(&t, NULL, writer, NULL);
	int done = 0;
	until = now_ms() + (double)nevents * gap_ms + 30000;
	while (done < nw && now_ms() < until) {
		poll(pf, (nfds_t)nw, 100);
		double now = now_ms();
		for (int i = 0; i < nw; i++) {
			if (!(pf[i].revents & POLLIN))
				continue;
			ssize_t n = recv(pf[i].fd, buf, sizeof buf, 0);
			if (n <= 0) {
				fprintf(stderr, "watch: stream %d closed\n", i);
				return 1;
			}
			for (ssize_t k = 0; k < n; k++) {
				char c = buf[k];
				if (c == '\n') {
					part[i][plen[i] < 63 ? plen[i] : 63] = '\0';
					if (strncmp(part[i], "id: ", 4) == 0) {
						int v = atoi(part[i] + 4);
						if (v >= 1 && v <= nevents &&
						    recv_at[(size_t)i * (nevents + 1) + v] == 0) {
							recv_at[(size_t)i * (nevents + 1) + v] = now;
							if (++seen[i] == nevents)
								done++;
						}
					}
					plen[i] = 0;
				} else if (plen[i] < 63) {
					part[i][plen[i]++] = c;
				}
			}
		}
	}
	pthread_join(t, NULL);
	size_t k = 0, missing = 0;
	for (int i = 0; i < nw; i++)
		for (int v = 1; v <= nevents; v++) {
			double r = recv_at[(size_t)i * (nevents + 1) + v];
			if (r == 0) {
				missing++;
				continue;
			}
			double d = r - acked[v];
			lat[k++] = d < 0 ? 0 : d;
		}
	qsort(lat, k, sizeof *lat, cmp);
	double p50 = k ? lat[k / 2] : -1, p99 = k ? lat[(size_t)((double)k * 0.99)] : -1;
	printf("live_watchers: %d streams\n", nw);
	printf("live_events: %d writes, %zu deliveries, %zu missing\n", nevents, k,
	       missing);
	printf("live_delivery_p50: %.2f ms\n", p50);
	printf("live_delivery_p99: %.2f ms (target <= 50)\n", p99);
	printf("live_delivery_max: %.2f ms\n", k ? lat[k - 1] : -1);
	printf("live_write_ack_mean: %.2f ms (the writer's own round trip, same run)\n",
	       acked[0] / nevents);
	printf("live_memory_per_watcher: %.1f KiB (RSS %ld -> %ld KiB)\n",
	       (double)(rss1 - rss0) / nw, rss0, rss1);
	for (int i = 0; i < nw; i++)
		close(pf[i].fd);
	return missing ? 1 : 0;
}
