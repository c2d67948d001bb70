/*
 * test_outcome_observer.c - dnsb_engine_options.on_outcome: told once per
 * settled change, with its final outcome and zone, in plan order, a change the
 * plan itself dropped (invalid) included; never in a dry run. On the memory
 * provider.
 */
#include "engine_fixture.h"

#define MAX_SEEN 16

typedef struct told {
	const dnsb_change *change[MAX_SEEN];
	dnsb_outcome outcome[MAX_SEEN];
	dnsb_reason reason[MAX_SEEN];
	char zone[MAX_SEEN][64];
	size_t n;
} told;

static void observe(void *payload, const char *zone, const dnsb_change *c)
{
	told *t = payload;

	if (t->n < MAX_SEEN) {
		t->change[t->n] = c;
		t->outcome[t->n] = c->outcome;
		t->reason[t->n] = c->reason;
		snprintf(t->zone[t->n], sizeof(t->zone[t->n]), "%s", zone);
	}
	t->n++;
}

static const char PLAN[] = "{\"create\":["
	"{\"dnsName\":\"a.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
	"{\"dnsName\":\"b.example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.2\"]},"
	"{\"dnsName\":\"c.example.com\",\"recordType\":\"A\",\"targets\":[\"not-an-address\"]},"
	"{\"dnsName\":\"d.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.4\"]}]}";

/* Applied, no zone, invalid (the plan's own drop) and a conflict: four calls, each as the report tells it. */
static void test_told_once_each(void **state)
{
	told t = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan(PLAN));
	put_a(r.p, "d.example.com.", "192.0.2.99"); /* in the way of the last create */
	r.o.on_outcome = observe;
	r.o.outcome_payload = &t;
	run_apply(&r);
	assert_int_equal(t.n, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_ptr_equal(t.change[i], run_change(&r, i)); /* plan order, final outcomes */
		assert_int_equal(t.outcome[i], run_change(&r, i)->outcome);
		assert_int_equal(t.reason[i], run_change(&r, i)->reason);
	}
	assert_int_equal(t.outcome[0], DNSB_OUTCOME_APPLIED);
	assert_string_equal(t.zone[0], "example.com.");
	assert_int_equal(t.outcome[1], DNSB_OUTCOME_DROPPED);
	assert_int_equal(t.reason[1], DNSB_REASON_NO_ZONE);
	assert_string_equal(t.zone[1], "");
	assert_int_equal(t.outcome[2], DNSB_OUTCOME_DROPPED);
	assert_int_equal(t.reason[2], DNSB_REASON_INVALID);
	assert_int_equal(t.outcome[3], DNSB_OUTCOME_DROPPED);
	assert_int_equal(t.reason[3], DNSB_REASON_CONFLICT);
	run_free(&r);
}

/* A dry run settles nothing it would send: only the changes decided before sending are told. */
static void test_dry_run_tells_no_pending(void **state)
{
	told t = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan(PLAN));
	r.o.dry_run = 1;
	r.o.on_outcome = observe;
	r.o.outcome_payload = &t;
	assert_int_equal(dnsb_engine_apply(&r.rep, r.p, r.plan, &r.o, NULL), 0); /* pending stay pending */
	for (size_t i = 0; i < t.n && i < MAX_SEEN; i++)
		assert_int_not_equal(t.outcome[i], DNSB_OUTCOME_PENDING);
	assert_int_equal(t.n, 2); /* b (no zone) and c (invalid) */
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_told_once_each),
		cmocka_unit_test(test_dry_run_tells_no_pending),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
