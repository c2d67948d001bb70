/*
 * test_azure_quota.c - the azure provider's pace from the subscription's
 * quota headers (providers/azure/quota.c), on a clock the test sets: no
 * wait while plenty remains, the low-water mark counting the requests sent
 * since the header, a refill rate estimated from successive headers and
 * turned into an interval, a 429's Retry-After held whatever remains, within
 * the cap every throttle's Retry-After has (10 x the skeleton's 5 s: 50 s).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "applier/core/backoff.h"
#include "providers/azure/internal.h"

#define LOW 20

static void test_unknown_and_plenty(void **state)
{
	dnsb_azure_quota q;

	(void)state;
	dnsb_azure_quota_init(&q);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 0.0) == 0);  /* no header yet: no pace */
	dnsb_azure_quota_seen(&q, 1199, 0.0);
	for (int i = 0; i < 100; i++) {
		assert_true(dnsb_azure_quota_wait(&q, LOW, 0.0) == 0);
		dnsb_azure_quota_started(&q, LOW, 0.0);
	}
	assert_int_equal(q.paced, 0);
}

static void test_low_water_counts_what_was_sent(void **state)
{
	dnsb_azure_quota q;

	(void)state;
	dnsb_azure_quota_init(&q);
	dnsb_azure_quota_seen(&q, LOW + 2, 0.0);
	dnsb_azure_quota_started(&q, LOW, 0.0); /* 21 left */
	dnsb_azure_quota_started(&q, LOW, 0.0); /* 20 left: at the mark, paced from here */
	assert_int_equal(q.paced, 0);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 0.0) == 0);
	dnsb_azure_quota_started(&q, LOW, 0.0);
	assert_int_equal(q.paced, 1);
	/* The refill is not known yet: one a second. */
	assert_true(dnsb_azure_quota_wait(&q, LOW, 0.5) > 0.49 && dnsb_azure_quota_wait(&q, LOW, 0.5) < 0.51);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 1.0) == 0);
}

static void test_refill_estimated(void **state)
{
	dnsb_azure_quota q;

	(void)state;
	dnsb_azure_quota_init(&q);
	dnsb_azure_quota_seen(&q, 10, 0.0);
	/* Estimates once a second: 20 came back in the first (20 replies, as many left), 30 in the next (10
	 * replies, 20 more left); their mean is 25 a second. */
	for (int i = 1; i < 30; i++)
		dnsb_azure_quota_seen(&q, 10, 0.05 * i);
	dnsb_azure_quota_seen(&q, 30, 2.0);
	assert_true(q.rate > 24.9 && q.rate < 25.1);
	dnsb_azure_quota_seen(&q, 5, 2.0);
	dnsb_azure_quota_started(&q, LOW, 2.0);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 2.0) > 0.039 && dnsb_azure_quota_wait(&q, LOW, 2.0) < 0.041);
}

static void test_retry_after_held(void **state)
{
	dnsb_azure_quota q;

	(void)state;
	dnsb_azure_quota_init(&q);
	dnsb_azure_quota_seen(&q, 1000, 0.0);
	dnsb_azure_quota_throttled(&q, 3.0, 1.0);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 2.0) > 1.99 && dnsb_azure_quota_wait(&q, LOW, 2.0) < 2.01);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 4.0) == 0);
	assert_int_equal(q.throttled, 1);
}

/* A Retry-After of a day (or garbage) holds no longer than dnsb_hb_get would wait it; a second 429 holds anew. */
static void test_retry_after_capped(void **state)
{
	double cap = DNSB_RETRY_AFTER_CAP_FACTOR * DNSB_HB_THROTTLE_CAP, w;
	dnsb_azure_quota q;

	(void)state;
	dnsb_azure_quota_init(&q);
	dnsb_azure_quota_throttled(&q, 100000.0, 10.0);
	w = dnsb_azure_quota_wait(&q, LOW, 10.0);
	assert_true(w > cap - 0.01 && w < cap + 0.01);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 10.0 + cap) == 0); /* sent again after the capped wait */
	dnsb_azure_quota_throttled(&q, 100000.0, 70.0);
	assert_true(dnsb_azure_quota_wait(&q, LOW, 70.0) > cap - 0.01);
	assert_int_equal(q.throttled, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_and_plenty),
		cmocka_unit_test(test_low_water_counts_what_was_sent),
		cmocka_unit_test(test_refill_estimated),
		cmocka_unit_test(test_retry_after_held),
		cmocka_unit_test(test_retry_after_capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
