/* test_quarantine.c - the quarantine's store: holds, doubling backoff, release, and the end of an apply. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "dnsbatch/engine.h"
#include "applier/engine/quarantine.h"

static void test_hold_doubles_then_release(void **state)
{
	dnsb_quarantine *q = NULL, *bad = NULL;
	unsigned long t;

	(void)state;
	assert_int_equal(dnsb_quarantine_new(&q, 60, 150), 0);
	t = dnsb_quarantine_begin(q);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 0), 0);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 0), 0);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 59), 1);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 60), 0);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 60), 0);  /* 120 s now */
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 179), 1);
	assert_int_equal(dnsb_quarantine_hold(q, "g", "example.com.", t, 180), 0); /* 240, capped at 150 */
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 329), 1);
	assert_int_equal(dnsb_quarantine_check(q, "g", t, 330), 0);
	dnsb_quarantine_release(q, "g");
	assert_int_equal(dnsb_quarantine_count(q, 0), 0);
	assert_int_equal(dnsb_quarantine_new(&bad, 0, 1), DNSB_EINVAL);
	assert_null(bad);
	dnsb_quarantine_free(q);
	dnsb_quarantine_free(NULL);
}

/* The end of an apply forgets, in one pass, every unseen entry of its own zones, and only those. */
static void test_end_forgets_unseen_of_its_zones(void **state)
{
	dnsb_quarantine *q = NULL;
	const char *zones[] = { "a.test." };
	unsigned long t1, t2;
	char key[32];

	(void)state;
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	t1 = dnsb_quarantine_begin(q);
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "a%d", i);
		assert_int_equal(dnsb_quarantine_hold(q, key, "a.test.", t1, 0), 0);
	}
	for (int i = 0; i < 10; i++) {
		snprintf(key, sizeof(key), "b%d", i);
		assert_int_equal(dnsb_quarantine_hold(q, key, "b.test.", t1, 0), 0);
	}
	dnsb_quarantine_end(q, t1, zones, 1);
	assert_int_equal(dnsb_quarantine_count(q, 1), 5010); /* all seen by t1 */
	t2 = dnsb_quarantine_begin(q);
	for (int i = 0; i < 100; i++) {
		snprintf(key, sizeof(key), "a%d", i * 7);
		assert_int_equal(dnsb_quarantine_check(q, key, t2, 1), 1);
	}
	dnsb_quarantine_end(q, t2, zones, 1);
	assert_int_equal(dnsb_quarantine_count(q, 1), 110); /* 100 seen in a.test., b.test. untouched */
	assert_int_equal(dnsb_quarantine_check(q, "a7", t2, 1), 1);
	assert_int_equal(dnsb_quarantine_check(q, "a8", t2, 1), 0);
	assert_int_equal(dnsb_quarantine_check(q, "b3", t2, 1), 1);
	dnsb_quarantine_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_doubles_then_release),
		cmocka_unit_test(test_end_forgets_unseen_of_its_zones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
