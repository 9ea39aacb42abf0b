/* client_limits.h — per-client limits the HTTP layer applies before a
 * request reaches a handler: requests per second per client address (a
 * token bucket), and open connections in total and per address. Both
 * tables are keyed by the client's IP address and bounded, so no number of
 * clients can make them grow past what start-up allocated (plus one small
 * node per open connection, which the connection limits themselves
 * bound).
 *
 * Everything here is thread-safe: MHD's pool threads call it at once. */
#ifndef CUBED_CLIENT_LIMITS_H
#define CUBED_CLIENT_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct limits_config {
	double rate;           /* requests per second per address; 0 = off */
	double burst;          /* bucket size (requests); < 1 counts as 1 */
	uint64_t max_conns;    /* open connections in total; 0 = no limit */
	uint64_t max_conns_ip; /* open connections per address; 0 = none */
};

/* A client address reduced to what the tables key on: the IPv4 address
 * (IPv4-mapped IPv6 included) or the whole IPv6 address. */
struct limits_key {
	uint8_t family; /* 4, 6, or 0 for an address of no known family */
	uint8_t addr[16];
};

struct limits;

/* NULL if memory ran out. */
struct limits *limits_new(const struct limits_config *cfg);
void limits_free(struct limits *l);

/* The key of sa (NULL or an unknown family gives family 0; all such
 * clients share one entry). */
void limits_key_of(const struct sockaddr *sa, struct limits_key *key);

/* Take one request from key's bucket at monotonic time now (seconds).
 * Returns 0 if the request may go ahead, else the whole seconds until the
 * bucket holds a request again (at least 1). Always 0 with rate off. */
unsigned limits_rate_take(struct limits *l, const struct limits_key *key,
			  double now);

/* The same buckets measuring an amount instead of requests (stored bytes
 * per client address: the rate is the amount refilled per second, burst
 * the bucket). limits_amount_check: 0 while key's bucket holds anything,
 * else the whole seconds until it does (at least 1); it takes nothing.
 * limits_amount_charge takes amount, which may leave the bucket below
 * zero (a write is counted after it is done), at most by a whole bucket.
 * Both are no-ops with rate off. */
unsigned limits_amount_check(struct limits *l, const struct limits_key *key,
			     double now);
void limits_amount_charge(struct limits *l, const struct limits_key *key,
			  double now, double amount);

enum limits_conn {
	LIMITS_CONN_OK = 0,
	LIMITS_CONN_TOTAL = 1, /* past max_conns */
	LIMITS_CONN_PER_IP = 2, /* past max_conns_ip for this address */
};

/* Count a connection from key as open, and say whether it is within the
 * limits. It counts even when it is not (it is open until the caller
 * closes it); every call must be paired with one limits_conn_close. */
enum limits_conn limits_conn_open(struct limits *l,
				  const struct limits_key *key);
void limits_conn_close(struct limits *l, const struct limits_key *key);

/* Open connections now: in total, and from key. */
void limits_conn_count(struct limits *l, const struct limits_key *key,
		       uint64_t *total, uint64_t *from_key);

/* The connection table seen from key (may be NULL) at one moment: what
 * the per-address shares are worked out from (guard.c). */
struct limits_view {
	uint64_t total;      /* connections open */
	uint64_t from_key;   /* … from key */
	uint64_t addrs;      /* addresses with connections open */
};
void limits_view(struct limits *l, const struct limits_key *key,
		 struct limits_view *out);

/* The address with the most connections open, skipping those skip
 * (may be NULL) says 1 for: 1 with *out and *open set, or 0. A scan of
 * the table (a few thousand entries): for when a limit is reached, not
 * for every request. */
int limits_conn_heaviest(struct limits *l,
			 int (*skip)(void *cls, const struct limits_key *key),
			 void *cls, struct limits_key *out, uint64_t *open);

/* Trusted proxies (--trusted-proxy): CIDR blocks whose connections may
 * name the client in X-Forwarded-For. */
#define LIMITS_MAX_CIDRS 32
struct limits_cidr {
	uint8_t family; /* 4 or 6 */
	uint8_t addr[16];
	int bits;       /* prefix length */
};

/* Parse "CIDR[,CIDR…]" (an address without /bits is a single host;
 * IPv4 and IPv6). Returns the count (0 for NULL or ""), or -1 with a
 * sentence in err. */
int limits_parse_cidrs(const char *text, struct limits_cidr *out, int cap,
		       char *err, size_t errlen);

/* 1 if key is inside one of the n blocks. */
int limits_cidr_match(const struct limits_cidr *c, int n,
		      const struct limits_key *key);

/* The client behind trusted proxies: X-Forwarded-For (comma-separated,
 * each proxy appends the address it saw) read from the right, skipping
 * addresses inside the trusted blocks; the first one outside is the
 * client. Nothing a client writes further left can pass for it. 1 with
 * *out set, or 0 (no header, an entry that is not an address: keep the
 * peer's key). If every entry is trusted, the left-most one. */
int limits_forwarded_key(const char *xff, const struct limits_cidr *c, int n,
			 struct limits_key *out);

/* Raise this process's open-file limit (RLIMIT_NOFILE) from its soft value
 * to its hard one: every connection is a descriptor. Returns the soft limit
 * in force afterwards (UINT64_MAX for unlimited, 0 if unknown). */
uint64_t limits_raise_nofile(void);

#endif
