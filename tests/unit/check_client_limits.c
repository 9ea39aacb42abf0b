/* check_client_limits.c — the tables behind the per-client limits
 * (server/base/client_limits.h) on their own, with time passed in: the token
 * bucket's arithmetic and Retry-After, addresses kept apart, IPv4-mapped
 * IPv6 counted as the IPv4 client, eviction that fails open, and the
 * connection counts and verdicts. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "client_limits.h"
#include "suites.h"

static struct limits_key v4(const char *a)
{
	struct sockaddr_in s = {0};
	s.sin_family = AF_INET;
	ck_assert_int_eq(inet_pton(AF_INET, a, &s.sin_addr), 1);
	struct limits_key k;
	limits_key_of((struct sockaddr *)&s, &k);
	return k;
}

static struct limits_key v6(const char *a)
{
	struct sockaddr_in6 s = {0};
	s.sin6_family = AF_INET6;
	ck_assert_int_eq(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
	struct limits_key k;
	limits_key_of((struct sockaddr *)&s, &k);
	return k;
}

START_TEST(bucket)
{
	struct limits_config c = {.rate = 2, .burst = 3};
	struct limits *l = limits_new(&c);
	struct limits_key a = v4("10.0.0.1"), b = v4("10.0.0.2");
	/* a full bucket of 3, then a wait of ceil((1 - 0) / 2) = 1 s */
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(limits_rate_take(l, &a, 100.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 100.0), 1);
	/* another address has a bucket of its own */
	ck_assert_uint_eq(limits_rate_take(l, &b, 100.0), 0);
	/* half a second at 2/s is one request */
	ck_assert_uint_eq(limits_rate_take(l, &a, 100.5), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 100.5), 1);
	/* a long pause refills to the burst, not past it */
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(limits_rate_take(l, &a, 1000.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 1000.0), 1);
	/* time going backwards (it cannot, with CLOCK_MONOTONIC) adds none */
	ck_assert_uint_eq(limits_rate_take(l, &a, 999.0), 1);
	limits_free(l);

	/* a slow rate: Retry-After in whole seconds, rounded up */
	struct limits_config slow = {.rate = 0.25, .burst = 1};
	l = limits_new(&slow);
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 4);
	ck_assert_uint_eq(limits_rate_take(l, &a, 1.0), 3);
	ck_assert_uint_eq(limits_rate_take(l, &a, 3.5), 1);
	ck_assert_uint_eq(limits_rate_take(l, &a, 4.0), 0);
	limits_free(l);

	/* rate 0 is off */
	struct limits_config off = {.rate = 0, .burst = 1};
	l = limits_new(&off);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 0);
	limits_free(l);
}
END_TEST

/* The buckets measuring an amount (stored bytes): a charge may overdraw
 * the bucket, by a whole bucket at most; the check refuses while it is
 * empty or overdrawn and says when it holds something again. */
START_TEST(amounts)
{
	struct limits_config c = {.rate = 10, .burst = 100};
	struct limits *l = limits_new(&c);
	struct limits_key a = v4("10.0.0.1"), b = v4("10.0.0.2");
	ck_assert_uint_eq(limits_amount_check(l, &a, 50.0), 0);
	limits_amount_charge(l, &a, 50.0, 99);
	ck_assert_uint_eq(limits_amount_check(l, &a, 50.0), 0); /* 1 left */
	limits_amount_charge(l, &a, 50.0, 51);
	/* -50: ceil((1 + 50) / 10) = 6 s until it holds a byte again */
	ck_assert_uint_eq(limits_amount_check(l, &a, 50.0), 6);
	ck_assert_uint_eq(limits_amount_check(l, &a, 55.0), 1);
	ck_assert_uint_eq(limits_amount_check(l, &a, 55.2), 0);
	/* another address is untouched */
	ck_assert_uint_eq(limits_amount_check(l, &b, 50.0), 0);
	/* overdrawn by at most one bucket: -100, then 11 s */
	limits_amount_charge(l, &b, 50.0, 1e9);
	ck_assert_uint_eq(limits_amount_check(l, &b, 50.0), 11);
	/* refilled to the bucket, not past it */
	ck_assert_uint_eq(limits_amount_check(l, &b, 10000.0), 0);
	limits_amount_charge(l, &b, 10000.0, 100);
	ck_assert_uint_eq(limits_amount_check(l, &b, 10000.0), 1);
	limits_free(l);
	/* rate 0 is off */
	struct limits_config off = {.rate = 0, .burst = 1};
	l = limits_new(&off);
	limits_amount_charge(l, &a, 0.0, 1e9);
	ck_assert_uint_eq(limits_amount_check(l, &a, 0.0), 0);
	limits_free(l);
}
END_TEST

START_TEST(keys)
{
	struct limits_key a = v4("192.0.2.7"), m = v6("::ffff:192.0.2.7"),
			  x = v6("2001:db8::7"), y = v6("2001:db8::8");
	ck_assert_int_eq(a.family, 4);
	ck_assert_int_eq(m.family, 4);
	ck_assert(memcmp(&a, &m, sizeof a) == 0);
	ck_assert_int_eq(x.family, 6);
	ck_assert(memcmp(&x, &y, sizeof x) != 0);
	struct limits_key none;
	limits_key_of(NULL, &none);
	ck_assert_int_eq(none.family, 0);

	/* the mapped address shares the IPv4 client's bucket */
	struct limits_config c = {.rate = 1, .burst = 1};
	struct limits *l = limits_new(&c);
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &m, 0.0), 1);
	ck_assert_uint_eq(limits_rate_take(l, &x, 0.0), 0);
	limits_free(l);
}
END_TEST

/* Far more addresses than the table holds: it never grows, and an address
 * pushed out starts again with a full bucket (fails open, never closed). */
START_TEST(eviction_fails_open)
{
	struct limits_config c = {.rate = 1, .burst = 2};
	struct limits *l = limits_new(&c);
	struct limits_key a = v4("10.9.9.9");
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 0);
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.0), 1);
	/* 100,000 other addresses, each seen later than a */
	for (unsigned i = 0; i < 100000; i++) {
		struct limits_key k = {4, {0}};
		memcpy(k.addr, &i, sizeof i);
		limits_rate_take(l, &k, 0.001);
	}
	ck_assert_uint_eq(limits_rate_take(l, &a, 0.002), 0);
	limits_free(l);
}
END_TEST

START_TEST(connections)
{
	struct limits_config c = {.max_conns = 4, .max_conns_ip = 2};
	struct limits *l = limits_new(&c);
	struct limits_key a = v4("10.0.0.1"), b = v4("10.0.0.2"),
			  d = v4("10.0.0.3");
	uint64_t total, mine;
	ck_assert_int_eq(limits_conn_open(l, &a), LIMITS_CONN_OK);
	ck_assert_int_eq(limits_conn_open(l, &a), LIMITS_CONN_OK);
	ck_assert_int_eq(limits_conn_open(l, &a), LIMITS_CONN_PER_IP);
	limits_conn_count(l, &a, &total, &mine);
	ck_assert_uint_eq(total, 3);
	ck_assert_uint_eq(mine, 3);
	ck_assert_int_eq(limits_conn_open(l, &b), LIMITS_CONN_OK);
	/* the fifth in total is past the total, whoever it is */
	ck_assert_int_eq(limits_conn_open(l, &d), LIMITS_CONN_TOTAL);
	limits_conn_close(l, &d);
	limits_conn_close(l, &a); /* a's extra one */
	ck_assert_int_eq(limits_conn_open(l, &d), LIMITS_CONN_OK);
	limits_conn_count(l, &a, &total, &mine);
	ck_assert_uint_eq(total, 4);
	ck_assert_uint_eq(mine, 2);
	/* closing every connection forgets the addresses */
	limits_conn_close(l, &a);
	limits_conn_close(l, &a);
	limits_conn_close(l, &b);
	limits_conn_close(l, &d);
	limits_conn_count(l, &a, &total, &mine);
	ck_assert_uint_eq(total, 0);
	ck_assert_uint_eq(mine, 0);
	/* a close that was never opened changes nothing */
	limits_conn_close(l, &b);
	limits_conn_count(l, &b, &total, &mine);
	ck_assert_uint_eq(total, 0);
	limits_free(l);

	/* 0 per address = no limit per address */
	struct limits_config open = {.max_conns = 1000, .max_conns_ip = 0};
	l = limits_new(&open);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(limits_conn_open(l, &a), LIMITS_CONN_OK);
	ck_assert_int_eq(limits_conn_open(l, &a), LIMITS_CONN_TOTAL);
	limits_free(l);
}
END_TEST

/* The view the per-address shares are worked out from: how many
 * addresses are connected, and which holds the most (skipping those the
 * caller says, as guard.c skips trusted proxies). */
static int skip_b(void *cls, const struct limits_key *k)
{
	const struct limits_key *b = cls;
	return k->family == b->family && memcmp(k->addr, b->addr, 16) == 0;
}

START_TEST(heaviest)
{
	struct limits_config c = {.max_conns = 100};
	struct limits *l = limits_new(&c);
	struct limits_key a = v4("10.0.0.1"), b = v4("10.0.0.2"),
			  d = v4("10.0.0.3"), out;
	uint64_t open = 99;
	ck_assert_int_eq(limits_conn_heaviest(l, NULL, NULL, &out, &open), 0);
	ck_assert_uint_eq(open, 0);
	for (int i = 0; i < 5; i++)
		limits_conn_open(l, &b);
	for (int i = 0; i < 3; i++)
		limits_conn_open(l, &a);
	limits_conn_open(l, &d);
	struct limits_view v;
	limits_view(l, &a, &v);
	ck_assert_uint_eq(v.total, 9);
	ck_assert_uint_eq(v.from_key, 3);
	ck_assert_uint_eq(v.addrs, 3);
	ck_assert_int_eq(limits_conn_heaviest(l, NULL, NULL, &out, &open), 1);
	ck_assert_uint_eq(open, 5);
	ck_assert(skip_b(&b, &out));
	ck_assert_int_eq(limits_conn_heaviest(l, skip_b, &b, &out, &open), 1);
	ck_assert_uint_eq(open, 3);
	ck_assert(skip_b(&a, &out));
	/* an address whose last connection closed is no longer counted */
	limits_conn_close(l, &d);
	limits_view(l, NULL, &v);
	ck_assert_uint_eq(v.addrs, 2);
	ck_assert_uint_eq(v.total, 8);
	ck_assert_uint_eq(v.from_key, 0);
	limits_free(l);
}
END_TEST

START_TEST(trusted_proxies)
{
	struct limits_cidr c[LIMITS_MAX_CIDRS];
	char err[160];
	ck_assert_int_eq(limits_parse_cidrs(NULL, c, LIMITS_MAX_CIDRS, err,
					    sizeof err),
			 0);
	ck_assert_int_eq(limits_parse_cidrs("", c, LIMITS_MAX_CIDRS, err,
					    sizeof err),
			 0);
	int n = limits_parse_cidrs("10.0.0.0/8,192.168.1.7,fd00::/8,"
				   "172.16.0.0/12",
				   c, LIMITS_MAX_CIDRS, err, sizeof err);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(c[1].bits, 32);
	ck_assert(limits_cidr_match(c, n, &(struct limits_key){0}) == 0);
	struct limits_key k = v4("10.200.3.4");
	ck_assert(limits_cidr_match(c, n, &k));
	k = v4("11.0.0.1");
	ck_assert(!limits_cidr_match(c, n, &k));
	k = v4("192.168.1.7");
	ck_assert(limits_cidr_match(c, n, &k));
	k = v4("192.168.1.8");
	ck_assert(!limits_cidr_match(c, n, &k));
	k = v4("172.31.255.255");
	ck_assert(limits_cidr_match(c, n, &k));
	k = v4("172.32.0.0");
	ck_assert(!limits_cidr_match(c, n, &k));
	k = v6("fd12::1");
	ck_assert(limits_cidr_match(c, n, &k));
	k = v6("fe80::1");
	ck_assert(!limits_cidr_match(c, n, &k));
	k = v6("::ffff:10.1.1.1"); /* mapped IPv4 is the IPv4 client */
	ck_assert(limits_cidr_match(c, n, &k));
	/* bad lists are refused, saying which part */
	static const char *const bad[] = {"10.0.0.0/33", "10.0.0/8", "x",
					  "10.0.0.0/", "::/129", "1.2.3.4/8x",
					  "10.0.0.0/8,,1.2.3.4"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(limits_parse_cidrs(bad[i], c, LIMITS_MAX_CIDRS,
						 err, sizeof err) == -1,
			      "%s accepted", bad[i]);
	ck_assert(strstr(err, "is not a CIDR block"));

	/* X-Forwarded-For from the right: the first untrusted address */
	n = limits_parse_cidrs("10.0.0.0/8", c, LIMITS_MAX_CIDRS, err,
			       sizeof err);
	struct limits_key got;
	ck_assert(limits_forwarded_key("203.0.113.9", c, n, &got));
	k = v4("203.0.113.9");
	ck_assert_mem_eq(&got, &k, sizeof k);
	/* a client's own forged entries further left change nothing */
	ck_assert(limits_forwarded_key("1.1.1.1, 2.2.2.2,203.0.113.9 , "
				       "10.0.0.5, 10.9.9.9",
				       c, n, &got));
	ck_assert_mem_eq(&got, &k, sizeof k);
	/* every entry trusted: the left-most */
	ck_assert(limits_forwarded_key("10.1.1.1, 10.2.2.2", c, n, &got));
	k = v4("10.1.1.1");
	ck_assert_mem_eq(&got, &k, sizeof k);
	/* no header, or garbage where the client should be: not used */
	ck_assert(!limits_forwarded_key(NULL, c, n, &got));
	ck_assert(!limits_forwarded_key("", c, n, &got));
	ck_assert(!limits_forwarded_key("unknown", c, n, &got));
	ck_assert(limits_forwarded_key("2001:db8::1", c, n, &got));
	k = v6("2001:db8::1");
	ck_assert_mem_eq(&got, &k, sizeof k);
}
END_TEST

Suite *client_limits_suite(void)
{
	Suite *s = suite_create("client_limits");
	TCase *tc = tcase_create("tables");
	tcase_add_test(tc, bucket);
	tcase_add_test(tc, amounts);
	tcase_add_test(tc, keys);
	tcase_add_test(tc, eviction_fails_open);
	tcase_add_test(tc, connections);
	tcase_add_test(tc, heaviest);
	tcase_add_test(tc, trusted_proxies);
	suite_add_tcase(s, tc);
	return s;
}
