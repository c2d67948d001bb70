/*
 * test_threshold_recent.c - dnsb_engine_options.recent_count: the safety thresholds take a zone's RRset count from
 * a recent listing when the caller knows one (the sidecar's GET /records), and then list nothing; when it knows none
 * they list the zone. The count decides the share: the same two deletes are held against the 5 RRsets the zone
 * holds (40% > 30%) and applied against a count of 100 (2%). On the memory provider, with the fake clock.
 */
#include "engine_fixture.h"

typedef struct recent {
	int known;          /* answer with `rrsets` */
	size_t rrsets;
	unsigned calls;
	double now;         /* the last call's */
	char zone[64];
} recent;

static int recent_count(void *payload, const char *zone, double now, size_t *rrsets)
{
	recent *r = payload;

	r->calls++;
	r->now = now;
	snprintf(r->zone, sizeof(r->zone), "%s", zone);
	if (r->known)
		*rrsets = r->rrsets;
	return r->known;
}

static const char PLAN[] = "{\"delete\":["
	"{\"dnsName\":\"h1.example.com\",\"recordType\":\"A\",\"recordTTL\":300,\"targets\":[\"192.0.2.1\"]},"
	"{\"dnsName\":\"h2.example.com\",\"recordType\":\"A\",\"recordTTL\":300,\"targets\":[\"192.0.2.2\"]}]}";

/* A zone of 5 RRsets; thresholds 30% on zones of 1 or more, the sidecar's way (only what is over is held). */
static void set_up(run *r, recent *rc, dnsb_thresholds *t)
{
	static const char *const names[] = { "h1.example.com.", "h2.example.com.", "h3.example.com.",
					     "h4.example.com.", "h5.example.com." };
	char addr[32];

	run_init(r, NULL, 0, 0);
	for (size_t i = 0; i < 5; i++) {
		snprintf(addr, sizeof(addr), "192.0.2.%zu", i + 1);
		put_a(r->p, names[i], addr);
	}
	run_plan(r, parse_plan(PLAN));
	*t = (dnsb_thresholds)DNSB_THRESHOLDS_INIT;
	t->min_existing = 1;
	t->whole_zone = 0;
	r->o.thresholds = t;
	r->o.recent_count = recent_count;
	r->o.recent_payload = rc;
}

static void test_recent_count_stands_for_the_list(void **state)
{
	recent rc = { 1, 100, 0, 0, "" };
	dnsb_thresholds t;
	run r;

	(void)state;
	set_up(&r, &rc, &t);
	run_apply(&r);
	assert_int_equal(dnsb_provider_reads(r.p), 0); /* no list */
	assert_int_equal(rc.calls, 1);
	assert_string_equal(rc.zone, "example.com.");
	assert_true(rc.now == r.c.t); /* on the engine's clock */
	assert_int_equal(r.rep.applied, 2);   /* 2 of 100: under 30% */
	assert_false(holds_a(r.p, "h1.example.com.", "192.0.2.1"));
	run_free(&r);
}

static void test_no_recent_count_lists(void **state)
{
	recent rc = { 0, 0, 0, 0, "" };
	dnsb_thresholds t;
	run r;

	(void)state;
	set_up(&r, &rc, &t);
	run_apply(&r);
	assert_int_equal(rc.calls, 1);
	assert_int_equal(r.rep.failed, 2);    /* 2 of the 5 listed: 40%, held */
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_HELD);
	assert_non_null(strstr(run_change(&r, 0)->message, "deletes 2 of 5 RRsets"));
	assert_int_equal(dnsb_provider_reads(r.p), 1); /* the list */
	assert_true(holds_a(r.p, "h1.example.com.", "192.0.2.1"));
	run_free(&r);
}

/* Creates alone are not counted: the count is not asked for. */
static void test_not_asked_without_counted_changes(void **state)
{
	recent rc = { 1, 100, 0, 0, "" };
	dnsb_thresholds t;
	run r;

	(void)state;
	set_up(&r, &rc, &t);
	run_plan(&r, plan_of_creates(2, 0));
	run_apply(&r);
	assert_int_equal(rc.calls, 0);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recent_count_stands_for_the_list),
		cmocka_unit_test(test_no_recent_count_lists),
		cmocka_unit_test(test_not_asked_without_counted_changes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
