/* client_limits.c — the per-client limits of client_limits.h: a token
 * bucket per client address for the request rate, and open-connection
 * counts in total and per address.
 *
 * The rate table is a fixed set-associative cache: an address hashes to one
 * set of RATE_WAYS entries; a new address takes a free entry of its set or
 * evicts the one seen longest ago. Memory never grows, and the worst an
 * attacker with many addresses can do is evict someone's bucket, which then
 * starts full again (the limit fails open for that client, never closed).
 * Sets are guarded by striped mutexes, so threads rarely wait on each
 * other.
 *
 * The connection table must never forget an open connection, so it is a
 * chained hash of one node per address with open connections, freed when
 * the last one closes; its size is bounded by the daemon's hard connection
 * limit. Connections open and close far less often than requests arrive,
 * so one mutex guards it. */
#include "client_limits.h"

#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/resource.h>

#define RATE_SETS 1024 /* power of two */
#define RATE_WAYS 8
#define RATE_LOCKS 64  /* divides RATE_SETS */
#define CONN_BUCKETS 4096 /* power of two */

struct rate_entry {
	struct limits_key key;
	uint8_t used;
	double tokens;
	double last; /* when tokens was last brought up to date */
};

struct conn_node {
	struct limits_key key;
	uint64_t open; /* connections open from this address */
	struct conn_node *next;
};

struct limits {
	struct limits_config cfg;
	pthread_mutex_t rate_lock[RATE_LOCKS];
	struct rate_entry *rate; /* RATE_SETS * RATE_WAYS */
	pthread_mutex_t conn_lock;
	struct conn_node *conn[CONN_BUCKETS];
	uint64_t conn_total;
	uint64_t addrs; /* nodes with open > 0 */
};

void limits_key_of(const struct sockaddr *sa, struct limits_key *key)
{
	memset(key, 0, sizeof *key);
	if (sa == NULL)
		return;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
		key->family = 4;
		memcpy(key->addr, &s4->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
		const uint8_t *a = s6->sin6_addr.s6_addr;
		static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0,
						   0, 0, 0, 0, 0xff, 0xff};
		if (memcmp(a, mapped, 12) == 0) {
			/* ::ffff:a.b.c.d is the IPv4 client a.b.c.d */
			key->family = 4;
			memcpy(key->addr, a + 12, 4);
		} else {
			key->family = 6;
			memcpy(key->addr, a, 16);
		}
	}
}

static uint32_t key_hash(const struct limits_key *k)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	h = (h ^ k->family) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ k->addr[i]) * 16777619u;
	h ^= h >> 16; /* the low bits pick the set: mix the high ones in */
	h *= 0x7feb352du;
	h ^= h >> 15;
	return h;
}

static int key_eq(const struct limits_key *a, const struct limits_key *b)
{
	return a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

struct limits *limits_new(const struct limits_config *cfg)
{
	struct limits *l = calloc(1, sizeof *l);
	if (l == NULL)
		return NULL;
	l->cfg = *cfg;
	if (l->cfg.burst < 1)
		l->cfg.burst = 1;
	if (cfg->rate > 0) {
		l->rate = calloc((size_t)RATE_SETS * RATE_WAYS, sizeof *l->rate);
		if (l->rate == NULL) {
			free(l);
			return NULL;
		}
	}
	for (int i = 0; i < RATE_LOCKS; i++)
		pthread_mutex_init(&l->rate_lock[i], NULL);
	pthread_mutex_init(&l->conn_lock, NULL);
	return l;
}

void limits_free(struct limits *l)
{
	if (l == NULL)
		return;
	for (int b = 0; b < CONN_BUCKETS; b++) {
		struct conn_node *n = l->conn[b];
		while (n) {
			struct conn_node *next = n->next;
			free(n);
			n = next;
		}
	}
	for (int i = 0; i < RATE_LOCKS; i++)
		pthread_mutex_destroy(&l->rate_lock[i]);
	pthread_mutex_destroy(&l->conn_lock);
	free(l->rate);
	free(l);
}

/* key's entry of the rate table, brought up to date at now; the caller
 * holds its set's lock (*lock, taken here). */
static struct rate_entry *rate_entry(struct limits *l,
				     const struct limits_key *key, double now,
				     pthread_mutex_t **lock)
{
	uint32_t set = key_hash(key) & (RATE_SETS - 1);
	*lock = &l->rate_lock[set % RATE_LOCKS];
	struct rate_entry *ways = &l->rate[(size_t)set * RATE_WAYS];
	double rate = l->cfg.rate, burst = l->cfg.burst;

	pthread_mutex_lock(*lock);
	struct rate_entry *e = NULL, *victim = &ways[0];
	for (int i = 0; i < RATE_WAYS; i++) {
		if (ways[i].used && key_eq(&ways[i].key, key)) {
			e = &ways[i];
			break;
		}
		/* a free entry, else the one idle longest */
		if (victim->used &&
		    (!ways[i].used || ways[i].last < victim->last))
			victim = &ways[i];
	}
	if (e == NULL) {
		e = victim;
		e->key = *key;
		e->used = 1;
		e->tokens = burst;
		e->last = now;
	}
	if (now > e->last) {
		e->tokens += (now - e->last) * rate;
		if (e->tokens > burst)
			e->tokens = burst;
		e->last = now;
	}
	return e;
}

/* Whole seconds until tokens (< need) reach need at rate, 1 to a day. */
static unsigned wait_for(double tokens, double need, double rate)
{
	double secs = ceil((need - tokens) / rate);
	return secs < 1 ? 1 : secs > 86400 ? 86400 : (unsigned)secs;
}

unsigned limits_rate_take(struct limits *l, const struct limits_key *key,
			  double now)
{
	if (l == NULL || l->rate == NULL)
		return 0;
	pthread_mutex_t *lock;
	struct rate_entry *e = rate_entry(l, key, now, &lock);
	unsigned wait = 0;
	if (e->tokens >= 1)
		e->tokens -= 1;
	else
		wait = wait_for(e->tokens, 1, l->cfg.rate);
	pthread_mutex_unlock(lock);
	return wait;
}

unsigned limits_amount_check(struct limits *l, const struct limits_key *key,
			     double now)
{
	if (l == NULL || l->rate == NULL)
		return 0;
	pthread_mutex_t *lock;
	struct rate_entry *e = rate_entry(l, key, now, &lock);
	unsigned wait = e->tokens > 0 ? 0 : wait_for(e->tokens, 1, l->cfg.rate);
	pthread_mutex_unlock(lock);
	return wait;
}

void limits_amount_charge(struct limits *l, const struct limits_key *key,
			  double now, double amount)
{
	if (l == NULL || l->rate == NULL)
		return;
	pthread_mutex_t *lock;
	struct rate_entry *e = rate_entry(l, key, now, &lock);
	e->tokens -= amount;
	/* one write can overdraw the bucket, never by more than the bucket:
	 * a client waits at most one window after it */
	if (e->tokens < -l->cfg.burst)
		e->tokens = -l->cfg.burst;
	pthread_mutex_unlock(lock);
}

/* key's node, made when make and there is none; the caller holds
 * conn_lock. NULL if there is none (or memory ran out). */
static struct conn_node *conn_node(struct limits *l,
				   const struct limits_key *key, int make)
{
	uint32_t b = key_hash(key) & (CONN_BUCKETS - 1);
	struct conn_node *n = l->conn[b];
	while (n && !key_eq(&n->key, key))
		n = n->next;
	if (n == NULL && make) {
		n = calloc(1, sizeof *n);
		if (n == NULL)
			return NULL;
		n->key = *key;
		n->next = l->conn[b];
		l->conn[b] = n;
	}
	return n;
}

/* Free key's node once it counts nothing; the caller holds conn_lock. */
static void conn_node_drop(struct limits *l, const struct limits_key *key)
{
	uint32_t b = key_hash(key) & (CONN_BUCKETS - 1);
	struct conn_node **p = &l->conn[b];
	while (*p && !key_eq(&(*p)->key, key))
		p = &(*p)->next;
	struct conn_node *n = *p;
	if (n && n->open == 0) {
		*p = n->next;
		free(n);
	}
}

enum limits_conn limits_conn_open(struct limits *l,
				  const struct limits_key *key)
{
	if (l == NULL)
		return LIMITS_CONN_OK;
	enum limits_conn verdict = LIMITS_CONN_OK;
	pthread_mutex_lock(&l->conn_lock);
	struct conn_node *n = conn_node(l, key, 1);
	if (n == NULL) {
		/* cannot count it: refuse it rather than lose count */
		pthread_mutex_unlock(&l->conn_lock);
		return LIMITS_CONN_TOTAL;
	}
	if (n->open++ == 0)
		l->addrs++;
	l->conn_total++;
	if (l->cfg.max_conns && l->conn_total > l->cfg.max_conns)
		verdict = LIMITS_CONN_TOTAL;
	else if (l->cfg.max_conns_ip && n->open > l->cfg.max_conns_ip)
		verdict = LIMITS_CONN_PER_IP;
	pthread_mutex_unlock(&l->conn_lock);
	return verdict;
}

void limits_conn_close(struct limits *l, const struct limits_key *key)
{
	if (l == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	struct conn_node *n = conn_node(l, key, 0);
	if (n && n->open > 0) {
		if (l->conn_total > 0)
			l->conn_total--;
		if (--n->open == 0 && l->addrs > 0)
			l->addrs--;
		conn_node_drop(l, key);
	}
	pthread_mutex_unlock(&l->conn_lock);
}

void limits_conn_count(struct limits *l, const struct limits_key *key,
		       uint64_t *total, uint64_t *from_key)
{
	struct limits_view v;
	limits_view(l, key, &v);
	*total = v.total;
	*from_key = v.from_key;
}

void limits_view(struct limits *l, const struct limits_key *key,
		 struct limits_view *out)
{
	memset(out, 0, sizeof *out);
	if (l == NULL)
		return;
	pthread_mutex_lock(&l->conn_lock);
	out->total = l->conn_total;
	out->addrs = l->addrs;
	struct conn_node *n = key ? conn_node(l, key, 0) : NULL;
	if (n)
		out->from_key = n->open;
	pthread_mutex_unlock(&l->conn_lock);
}

int limits_conn_heaviest(struct limits *l,
			 int (*skip)(void *cls, const struct limits_key *key),
			 void *cls, struct limits_key *out, uint64_t *open)
{
	int found = 0;
	*open = 0;
	if (l == NULL)
		return 0;
	pthread_mutex_lock(&l->conn_lock);
	for (int b = 0; b < CONN_BUCKETS; b++)
		for (struct conn_node *n = l->conn[b]; n; n = n->next)
			if (n->open > *open && !(skip && skip(cls, &n->key))) {
				*open = n->open;
				*out = n->key;
				found = 1;
			}
	pthread_mutex_unlock(&l->conn_lock);
	return found;
}

uint64_t limits_raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
		struct rlimit want = rl;
		want.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			rl = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
}

/* ------------------------------------------------------ trusted proxies */

/* Text (not NUL-terminated: len bytes) as an address key; 0 if it is not
 * a numeric IPv4 or IPv6 address. */
static int parse_addr(const char *text, size_t len, struct limits_key *key)
{
	char buf[INET6_ADDRSTRLEN + 1];
	while (len > 0 && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof buf)
		return 0;
	memcpy(buf, text, len);
	buf[len] = '\0';
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6};
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	if (inet_pton(AF_INET, buf, &s4.sin_addr) == 1)
		limits_key_of((const struct sockaddr *)&s4, key);
	else if (inet_pton(AF_INET6, buf, &s6.sin6_addr) == 1)
		limits_key_of((const struct sockaddr *)&s6, key);
	else
		return 0;
	return 1;
}

int limits_parse_cidrs(const char *text, struct limits_cidr *out, int cap,
		       char *err, size_t errlen)
{
	int n = 0;
	const char *p = text;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *slash = memchr(p, '/', len);
		size_t alen = slash ? (size_t)(slash - p) : len;
		struct limits_key k;
		if (n == cap) {
			snprintf(err, errlen, "more than %d blocks", cap);
			return -1;
		}
		if (!parse_addr(p, alen, &k)) {
			snprintf(err, errlen, "\"%.*s\" is not a CIDR block "
				 "(an IPv4 or IPv6 address, /bits optional)",
				 (int)len, p);
			return -1;
		}
		int max = k.family == 4 ? 32 : 128, bits = max;
		if (slash) {
			char *stop;
			long b = strtol(slash + 1, &stop, 10);
			if (stop == slash + 1 || stop != p + len || b < 0 ||
			    b > max) {
				snprintf(err, errlen, "\"%.*s\": the prefix "
					 "length must be 0 to %d", (int)len,
					 p, max);
				return -1;
			}
			bits = (int)b;
		}
		out[n].family = k.family;
		memcpy(out[n].addr, k.addr, 16);
		out[n].bits = bits;
		n++;
		p = end ? end + 1 : NULL;
	}
	return n;
}

int limits_cidr_match(const struct limits_cidr *c, int n,
		      const struct limits_key *key)
{
	for (int i = 0; i < n; i++) {
		if (c[i].family != key->family)
			continue;
		int bits = c[i].bits, whole = bits / 8, rest = bits % 8;
		if (memcmp(c[i].addr, key->addr, (size_t)whole) != 0)
			continue;
		uint8_t mask = (uint8_t)(0xff << (8 - rest));
		if (rest && ((c[i].addr[whole] ^ key->addr[whole]) & mask))
			continue;
		return 1;
	}
	return 0;
}

int limits_forwarded_key(const char *xff, const struct limits_cidr *c, int n,
			 struct limits_key *out)
{
	if (!xff || !*xff)
		return 0;
	const char *end = xff + strlen(xff);
	struct limits_key k, last;
	int have = 0;
	while (end > xff) {
		const char *start = end;
		while (start > xff && start[-1] != ',')
			start--;
		if (!parse_addr(start, (size_t)(end - start), &k))
			return have ? (*out = last, 1) : 0;
		if (!limits_cidr_match(c, n, &k)) {
			*out = k;
			return 1;
		}
		last = k;
		have = 1;
		end = start > xff ? start - 1 : start;
	}
	if (have)
		*out = last;
	return have;
}
