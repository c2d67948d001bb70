/*
 * test_budget.c - the rate budget's margin against an account's bucket, on a
 * virtual clock (no sleeping, no timing): N instances take their requests
 * from one bucket of the budget (the GCRA the shared bucket and the local one
 * both run), each request reaches the service a few milliseconds of jitter
 * after its token, and the service's own bucket (Route53's: 5 requests/s,
 * burst 5, continuous refill) admits or throttles it.
 *
 *  - with the margin (dnsb_budget_margin), no request is throttled over many
 *    jitter draws, and the account's capacity stays used (>= 90%);
 *  - without it (the account's rate and burst granted as they are), jitter
 *    meets throttles: the case the margin exists for;
 *  - one throttle lowers the rate for a short hold, not for 10 s.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "applier/net/ratelimit.h"

#define RATE 5.0
#define BURST 5.0
#define INSTANCES 8
#define REQUESTS 12     /* each instance's: zone discovery, a listing, ten batches of 50 */
#define SERVICE 0.030   /* seconds from a request's arrival to the instance's next take */
#define JITTER 0.050    /* seconds: the most a request's arrival lags its token */

typedef struct figures {
	unsigned throttled, admitted;
	double capacity;  /* admitted / (RATE * (last - first) + BURST) */
} figures;

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The account's bucket over arrival times (sorted): Route53's, refilled continuously. */
static figures account(double *arrivals, size_t n)
{
	figures f = { 0, 0, 0 };
	double tokens = BURST, at = arrivals[0], first = -1, last = 0;

	for (size_t i = 0; i < n; i++) {
		tokens += (arrivals[i] - at) * RATE;
		if (tokens > BURST)
			tokens = BURST;
		at = arrivals[i];
		if (tokens < 1) {
			f.throttled++;
			continue;
		}
		tokens -= 1;
		f.admitted++;
		if (first < 0)
			first = at;
		last = at;
	}
	f.capacity = f.admitted / (RATE * (last - first) + BURST);
	return f;
}

/*
 * One run: the instance ready first takes the next token of the budget's bucket (rate, burst); its request
 * arrives after the wait and a jitter drawn from seed; it is ready again SERVICE later.
 */
static figures run(double rate, double burst, uint64_t seed)
{
	double ready[INSTANCES] = { 0 }, arrivals[INSTANCES * REQUESTS], tat = 0;
	unsigned left[INSTANCES];
	size_t n = 0;

	for (size_t i = 0; i < INSTANCES; i++)
		left[i] = REQUESTS;
	while (n < INSTANCES * REQUESTS) {
		size_t k = INSTANCES;
		double wait;
		for (size_t i = 0; i < INSTANCES; i++)
			if (left[i] && (k == INSTANCES || ready[i] < ready[k]))
				k = i;
		wait = dnsb_budget_gcra(&tat, ready[k], rate, burst, 0);
		assert_true(wait >= 0);
		arrivals[n] = ready[k] + wait + JITTER * dnsb_uniform01(&seed);
		ready[k] = arrivals[n++] + SERVICE;
		left[k]--;
	}
	qsort(arrivals, n, sizeof(arrivals[0]), by_time);
	return account(arrivals, n);
}

static void test_margin_meets_no_throttle(void **state)
{
	double rate, burst, worst = 1;
	unsigned throttled = 0;

	(void)state;
	dnsb_budget_margin(RATE, BURST, &rate, &burst);
	assert_true(rate < RATE && rate >= 0.95 * RATE);
	assert_true(burst == BURST - 1);
	for (uint64_t seed = 1; seed <= 200; seed++) {
		figures f = run(rate, burst, seed);
		throttled += f.throttled;
		worst = f.capacity < worst ? f.capacity : worst;
	}
	assert_int_equal(throttled, 0);
	if (worst < 0.90)
		fail_msg("the account's capacity used fell to %.0f%%", worst * 100);
}

/* Granted at exactly the account's rate and burst, jitter meets throttles: the margin is what avoids them. */
static void test_no_margin_meets_throttles(void **state)
{
	unsigned throttled = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++)
		throttled += run(RATE, BURST, seed).throttled;
	assert_true(throttled > 0);
}

/* A burst of 1 keeps 1: the budget never grants nothing at once. */
static void test_margin_keeps_one(void **state)
{
	double rate, burst;

	(void)state;
	dnsb_budget_margin(4, 1, &rate, &burst);
	assert_true(burst == 1);
	assert_true(rate > 3.87 && rate < 3.89);
}

/* One throttle lowers the rate for two refills of the burst: 2 s at Route53's 5/s and 5, never the old 10 s. */
static void test_hold_is_short(void **state)
{
	(void)state;
	assert_true(dnsb_budget_hold(5, 5) == 2);
	assert_true(dnsb_budget_hold(5, 1) == 1);
	assert_true(dnsb_budget_hold(4, 1200) == 10);
}

/* The local bucket takes at the granted rate: 5 tokens of a fresh budget of rate 5, burst 5 are 4 at once, then 1 waits. */
static void test_local_bucket_keeps_the_margin(void **state)
{
	dnsb_budget_options o = DNSB_BUDGET_OPTIONS_INIT;
	dnsb_budget *b = NULL;
	dnsb_error err = { 0 };
	dnsb_budget_stats st;
	double waited;

	(void)state;
	o.rate = 5;
	o.burst = 5;
	assert_int_equal(dnsb_budget_new(&b, &o, &err), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(dnsb_budget_take(b, 0, &waited), 0);
		assert_true(waited == 0);
	}
	/* The fifth would wait about 1 / 4.85 s: more than the 0.1 s given, so nothing is taken. */
	assert_int_equal(dnsb_budget_take(b, 0.1, &waited), DNSB_ERATELIMIT);
	dnsb_budget_stats_get(b, &st);
	assert_true(st.rate > 4.84 && st.rate < 4.86);
	assert_int_equal(st.local_tokens, 4);
	dnsb_budget_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_margin_meets_no_throttle),
		cmocka_unit_test(test_no_margin_meets_throttles),
		cmocka_unit_test(test_margin_keeps_one),
		cmocka_unit_test(test_hold_is_short),
		cmocka_unit_test(test_local_bucket_keeps_the_margin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
