/* check_solve_pool.c — the solver pool (server/solve/solve_pool.c) on its own:
 * the order a worker takes tasks in (round-robin over clients, not first
 * come first served), the per-client and whole-queue caps, cancelling a
 * queued task, and stopping with tasks queued. The first task holds the
 * only worker on a gate the test opens, so the queue is set up while
 * nothing else can run: the assertions are on the recorded order of
 * runs, and every wait is on a condition with a deadline. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "solve_pool.h"
#include "suites.h"

struct log {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char order[32]; /* the tasks' names, in the order they ran */
	int n;
	int dropped;
	int started;    /* the gate task is running */
	int open;       /* the gate task may return */
};

static struct log lg;

struct task {
	char name;
	int gate; /* hold the worker until lg.open */
};

static void log_init(void)
{
	memset(&lg, 0, sizeof lg);
	pthread_mutex_init(&lg.mu, NULL);
	pthread_cond_init(&lg.cv, NULL);
}

static void run(void *arg)
{
	struct task *t = arg;
	pthread_mutex_lock(&lg.mu);
	lg.order[lg.n++] = t->name;
	if (t->gate) {
		lg.started = 1;
		pthread_cond_broadcast(&lg.cv);
		while (!lg.open)
			pthread_cond_wait(&lg.cv, &lg.mu);
	}
	pthread_cond_broadcast(&lg.cv);
	pthread_mutex_unlock(&lg.mu);
}

static void drop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lg.mu);
	lg.dropped++;
	pthread_mutex_unlock(&lg.mu);
}

/* Wait until pred() holds (under lg.mu), at most 10 s. */
static int wait_for(int (*pred)(void *), void *ctx)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&lg.mu);
	int rc = 0;
	while (!pred(ctx) && rc == 0)
		rc = pthread_cond_timedwait(&lg.cv, &lg.mu, &until);
	int ok = pred(ctx);
	pthread_mutex_unlock(&lg.mu);
	return ok;
}

static int gate_started(void *ctx)
{
	(void)ctx;
	return lg.started;
}

static int ran(void *ctx)
{
	return lg.n >= *(int *)ctx;
}

static void open_gate(void)
{
	pthread_mutex_lock(&lg.mu);
	lg.open = 1;
	pthread_cond_broadcast(&lg.cv);
	pthread_mutex_unlock(&lg.mu);
}

static struct limits_key key(int last)
{
	struct limits_key k;
	memset(&k, 0, sizeof k);
	k.family = 4;
	k.addr[0] = 127;
	k.addr[3] = (uint8_t)last;
	return k;
}

/* A's first task holds the worker; A queues two more, then B two, then C
 * one. They run A B C A B A: each time, the client served longest ago
 * among those with the fewest running — first come first served would
 * have run A's three before anyone else's. */
START_TEST(round_robin_over_clients)
{
	log_init();
	struct solve_pool_config c = {1, 16, 1, 8};
	struct solve_pool *p = solve_pool_new(&c);
	ck_assert_ptr_nonnull(p);
	struct limits_key a = key(2), b = key(3), cc = key(4);
	struct task t[] = {{'A', 1}, {'A', 0}, {'A', 0},
			   {'B', 0}, {'B', 0}, {'C', 0}};
	const struct limits_key *who[] = {&a, &a, &a, &b, &b, &cc};
	uint64_t ticket;
	ck_assert_int_eq(solve_pool_submit(p, who[0], run, drop, &t[0],
					   &ticket),
			 POOL_OK);
	ck_assert(wait_for(gate_started, NULL));
	for (int i = 1; i < 6; i++)
		ck_assert_int_eq(solve_pool_submit(p, who[i], run, drop, &t[i],
						   &ticket),
				 POOL_OK);
	struct solve_pool_stats st;
	solve_pool_stats(p, &st);
	ck_assert_uint_eq(st.queued, 5);
	ck_assert_uint_eq(st.running, 1);
	open_gate();
	int all = 6;
	ck_assert(wait_for(ran, &all));
	ck_assert_str_eq(lg.order, "ABCABA");
	solve_pool_free(p);
	ck_assert_int_eq(lg.dropped, 0);
}
END_TEST

/* Caps: a client past its waiting cap is POOL_CLIENT_BUSY, anyone past
 * the queue's is POOL_FULL; both counted, nothing queued for them. A
 * queued task can be taken out (drop called once, counted as cancelled),
 * a running one not; stopping drops what still waits. */
START_TEST(caps_cancel_and_stop)
{
	log_init();
	struct solve_pool_config c = {1, 3, 1, 2};
	struct solve_pool *p = solve_pool_new(&c);
	ck_assert_ptr_nonnull(p);
	struct limits_key a = key(2), b = key(3), cc = key(4);
	struct task ta = {'A', 1}, t2 = {'a', 0}, t3 = {'a', 0}, tb = {'B', 0};
	uint64_t first, second, ticket;
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &ta, &first),
			 POOL_OK);
	ck_assert(wait_for(gate_started, NULL));
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &t2, &second),
			 POOL_OK);
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &t3, &ticket),
			 POOL_OK);
	/* A has two waiting: its cap */
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &t3, &ticket),
			 POOL_CLIENT_BUSY);
	ck_assert_int_eq(solve_pool_submit(p, &b, run, drop, &tb, &ticket),
			 POOL_OK);
	/* three waiting: the queue's cap, whoever asks */
	ck_assert_int_eq(solve_pool_submit(p, &cc, run, drop, &tb, &ticket),
			 POOL_FULL);
	struct solve_pool_stats st;
	solve_pool_stats(p, &st);
	ck_assert_uint_eq(st.queued, 3);
	ck_assert_uint_eq(st.refused_client, 1);
	ck_assert_uint_eq(st.refused_full, 1);
	ck_assert_int_eq(solve_pool_cancel(p, second), 1);
	ck_assert_int_eq(solve_pool_cancel(p, second), 0);
	ck_assert_int_eq(solve_pool_cancel(p, first), 0); /* running */
	solve_pool_count_cancelled(p);
	solve_pool_stats(p, &st);
	ck_assert_uint_eq(st.queued, 2);
	ck_assert_uint_eq(st.cancelled, 2);
	ck_assert_int_eq(lg.dropped, 1);
	/* stop with two waiting: they are dropped, the running one ends */
	open_gate();
	solve_pool_stop(p);
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &t2, &ticket),
			 POOL_STOPPED);
	solve_pool_free(p);
	/* A's gate task ran; of B's and A's last, whichever the worker
	 * picked before the stop ran, the rest were dropped */
	ck_assert_int_eq(lg.n + lg.dropped, 4);
	ck_assert_int_eq(lg.order[0], 'A');
}
END_TEST

/* The per-client cap is on running and waiting together. B's gate task
 * holds the only worker, so A's tasks cannot start: A, running none,
 * still gets its running share plus its waiting share queued (1 + 2),
 * and only the next is refused — the same as if the worker had taken
 * A's first at once. Counting the not-yet-taken task as waiting refused
 * a client within its caps whenever workers were slow to wake. */
START_TEST(cap_is_running_plus_waiting)
{
	log_init();
	struct solve_pool_config c = {1, 8, 1, 2};
	struct solve_pool *p = solve_pool_new(&c);
	ck_assert_ptr_nonnull(p);
	struct limits_key a = key(2), b = key(3);
	struct task tb = {'B', 1}, ta = {'A', 0};
	uint64_t ticket;
	ck_assert_int_eq(solve_pool_submit(p, &b, run, drop, &tb, &ticket),
			 POOL_OK);
	ck_assert(wait_for(gate_started, NULL));
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &ta,
						   &ticket),
				 POOL_OK);
	ck_assert_int_eq(solve_pool_submit(p, &a, run, drop, &ta, &ticket),
			 POOL_CLIENT_BUSY);
	struct solve_pool_stats st;
	solve_pool_stats(p, &st);
	ck_assert_uint_eq(st.queued, 3);
	ck_assert_uint_eq(st.running, 1);
	ck_assert_uint_eq(st.refused_client, 1);
	open_gate();
	int all = 4;
	ck_assert(wait_for(ran, &all));
	ck_assert_str_eq(lg.order, "BAAA");
	solve_pool_free(p);
	ck_assert_int_eq(lg.dropped, 0);
}
END_TEST

/* A share of the room left (issue 60, case 5): with one worker held and
 * a queue of 16 (a unit of 2 places), four clients each queueing all
 * they may leave room: each is refused once it has n waiting and no more
 * than 2n places are free (POOL_CLIENT_SHARE; the first stops at its own
 * cap of 4 waiting, POOL_CLIENT_BUSY), and three more clients with
 * nothing waiting still get a task queued each. Only then is the queue
 * full, for anyone. */
START_TEST(share_of_the_room_left)
{
	log_init();
	struct solve_pool_config c = {1, 16, 1, 4};
	struct solve_pool *p = solve_pool_new(&c);
	ck_assert_ptr_nonnull(p);
	static struct task gate = {'G', 1}, t = {'t', 0};
	struct limits_key k2 = key(2);
	uint64_t ticket;
	ck_assert_int_eq(solve_pool_submit(p, &k2, run, drop, &gate, &ticket),
			 POOL_OK);
	ck_assert(wait_for(gate_started, NULL));
	/* what each heavy client got queued, and why it stopped */
	const int queued[4] = {4, 4, 3, 2};
	const int why[4] = {POOL_CLIENT_BUSY, POOL_CLIENT_SHARE,
			    POOL_CLIENT_SHARE, POOL_CLIENT_SHARE};
	for (int i = 0; i < 4; i++) {
		struct limits_key k = key(2 + i);
		int n = 0, rc;
		while ((rc = solve_pool_submit(p, &k, run, drop, &t,
					       &ticket)) == POOL_OK)
			n++;
		ck_assert_msg(n == queued[i] && rc == why[i],
			      "client %d: %d queued, then %d", i, n, rc);
	}
	struct solve_pool_stats st;
	solve_pool_stats(p, &st);
	ck_assert_uint_eq(st.queued, 13);
	ck_assert_uint_eq(st.refused_share, 3);
	ck_assert_uint_eq(st.refused_client, 4);
	for (int i = 0; i < 3; i++) {
		struct limits_key k = key(10 + i);
		ck_assert_int_eq(solve_pool_submit(p, &k, run, drop, &t,
						   &ticket),
				 POOL_OK);
	}
	struct limits_key late = key(20);
	ck_assert_int_eq(solve_pool_submit(p, &late, run, drop, &t, &ticket),
			 POOL_FULL);
	open_gate();
	int all = 17;
	ck_assert(wait_for(ran, &all));
	solve_pool_free(p);
	ck_assert_int_eq(lg.dropped, 0);
}
END_TEST

Suite *solve_pool_suite(void)
{
	Suite *s = suite_create("solve_pool");
	TCase *tc = tcase_create("pool");
	tcase_add_test(tc, round_robin_over_clients);
	tcase_add_test(tc, cap_is_running_plus_waiting);
	tcase_add_test(tc, caps_cancel_and_stop);
	tcase_add_test(tc, share_of_the_room_left);
	suite_add_tcase(s, tc);
	return s;
}
