/* test_threshold.c - the safety thresholds' settings (PERCENT, ZONE=PERCENT) and the release store: a grant is
 * for one digest, held recently, valid for its ttl, used once (dnsbatch/threshold.h, issue 33 §2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "dnsbatch/common.h"
#include "dnsbatch/threshold.h"

#define D1 "1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "2222222222222222222222222222222222222222222222222222222222222222"

static void test_flags(void **state)
{
	dnsb_thresholds t = DNSB_THRESHOLDS_INIT;

	(void)state;
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "50"), 0);
	assert_true(t.max_delete_percent == 50);
	assert_int_equal(dnsb_thresholds_set(&t, 'u', "Example.COM=12.5"), 0);
	assert_int_equal(dnsb_thresholds_set(&t, 'm', "example.com.=3"), 0);
	assert_int_equal(t.nzones, 1); /* with or without the dot, any case: one zone */
	assert_string_equal(t.zones[0].zone, "example.com.");
	assert_true(t.zones[0].max_update_percent == 12.5);
	assert_true(t.zones[0].max_delete_percent < 0); /* the default */
	assert_int_equal(t.zones[0].min_existing, 3);
	assert_true(t.max_update_percent == 30); /* untouched */
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "101"), DNSB_EINVAL);
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "-1"), DNSB_EINVAL);
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "ten"), DNSB_EINVAL);
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "=5"), DNSB_EINVAL);
	assert_int_equal(dnsb_thresholds_set(&t, 'm', "2.5"), DNSB_EINVAL);
	assert_int_equal(dnsb_thresholds_set(&t, 'd', "a b=5"), DNSB_EINVAL);
}

static void test_release_cycle(void **state)
{
	dnsb_release *r;
	char zone[64];

	(void)state;
	assert_int_equal(dnsb_release_new(&r, 900), 0);
	assert_int_equal(dnsb_release_grant(r, D1, 1000, zone, sizeof(zone)), DNSB_ENOTFOUND); /* never held */
	assert_int_equal(dnsb_release_grant(r, "abc", 1000, NULL, 0), DNSB_EINVAL);
	assert_int_equal(dnsb_release_note(r, D1, "example.com.", 1000), 0);
	assert_int_equal(dnsb_release_take(r, D1, 1001), 0); /* held, not released */
	assert_int_equal(dnsb_release_grant(r, D1, 1010, zone, sizeof(zone)), 0);
	assert_string_equal(zone, "example.com.");
	assert_int_equal(dnsb_release_take(r, D2, 1011), 0); /* another set */
	assert_int_equal(dnsb_release_take(r, D1, 1012), 1);
	assert_int_equal(dnsb_release_take(r, D1, 1013), 0); /* used once */
	assert_int_equal(dnsb_release_grant(r, D1, 1014, NULL, 0), DNSB_ENOTFOUND);
	dnsb_release_free(r);
}

static void test_release_expires(void **state)
{
	dnsb_release *r;

	(void)state;
	assert_int_equal(dnsb_release_new(&r, 900), 0);
	assert_int_equal(dnsb_release_new(&(dnsb_release *){ NULL }, 0), DNSB_EINVAL);
	assert_int_equal(dnsb_release_note(r, D1, "example.com.", 1000), 0);
	assert_int_equal(dnsb_release_grant(r, D1, 1100, NULL, 0), 0);
	assert_int_equal(dnsb_release_note(r, D1, "example.com.", 1900), 0); /* held again by later loops */
	assert_int_equal(dnsb_release_take(r, D1, 1100 + 901), 0); /* the grant ran out */
	assert_int_equal(dnsb_release_note(r, D2, "example.com.", 5000), 0);
	assert_int_equal(dnsb_release_grant(r, D2, 5000 + 901, NULL, 0), DNSB_ENOTFOUND); /* held too long ago */
	dnsb_release_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_release_cycle),
		cmocka_unit_test(test_release_expires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
