/*
 * test_engine_unopened.c - dnsb_engine_fail_unopened, the engine's door for a
 * plan whose provider could not be opened: nothing sent, a group with an
 * invalid member dropped whole, every other change failed/transient with a
 * message naming the open's failure; told once each (report, metrics,
 * on_outcome) under the zone ""; bad options and a dry run refused before any
 * change is touched.
 */
#include "engine_fixture.h"

#define MAX_SEEN 8

typedef struct told {
	dnsb_outcome outcome[MAX_SEEN];
	char zone[MAX_SEEN][16];
	size_t n;
} told;

static void observe(void *payload, const char *zone, const dnsb_change *c)
{
	told *t = payload;

	if (t->n < MAX_SEEN) {
		t->outcome[t->n] = c->outcome;
		snprintf(t->zone[t->n], sizeof(t->zone[t->n]), "%s", zone);
	}
	t->n++;
}

/* o1's A is invalid, its ownership TXT goes down with it; o2 is fine. */
static const char PLAN[] = "{\"create\":["
	"{\"dnsName\":\"o1.example.com\",\"recordType\":\"A\",\"targets\":[\"300.0.2.72\"],"
	"\"labels\":{\"ownedRecord\":\"o1.example.com\"}},"
	"{\"dnsName\":\"a-o1.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"heritage=external-dns\\\"\"],"
	"\"labels\":{\"ownedRecord\":\"o1.example.com\"}},"
	"{\"dnsName\":\"o2.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.2\"]}]}";

static void test_settled_and_told(void **state)
{
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_plan *plan = parse_plan(PLAN);
	dnsb_metrics *m = NULL;
	dnsb_report rep;
	dnsb_error err = { 0 };
	told t = { 0 };
	char *text = NULL;
	size_t len = 0;
	fake_clock clk;

	(void)state;
	fake_clock_init(&clk);
	assert_int_equal(dnsb_metrics_new(&m), 0);
	o.clock = &clk.clock;
	o.metrics = m;
	o.on_outcome = observe;
	o.outcome_payload = &t;
	assert_int_equal(dnsb_engine_fail_unopened(&rep, plan, "HTTP 503 on GET /zones", &o, &err), 0);
	assert_invariant(plan, &rep);
	assert_int_equal(rep.dropped, 2);
	assert_int_equal(rep.failed, 1);
	assert_int_equal(rep.submissions + rep.reads, 0);
	assert_int_equal(dnsb_plan_change(plan, 1)->reason, DNSB_REASON_INVALID); /* with its group */
	assert_int_equal(dnsb_plan_change(plan, 2)->reason, DNSB_REASON_TRANSIENT);
	assert_string_equal(dnsb_plan_change(plan, 2)->message,
			    "not sent: the provider could not be opened: HTTP 503 on GET /zones");
	assert_int_equal(rep.zone_count, 1);
	assert_string_equal(rep.zones[0].zone, "");
	assert_int_equal(rep.zones[0].failed, 1);
	assert_int_equal(t.n, 3); /* each change once, plan order, final outcomes */
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(t.outcome[i], dnsb_plan_change(plan, i)->outcome);
		assert_string_equal(t.zone[i], "");
	}
	assert_int_equal(dnsb_metrics_render(&text, &len, m), 0);
	assert_non_null(strstr(text, "dnsbatch_changes_total{zone=\"\",outcome=\"failed\"} 1"));
	free(text);
	dnsb_report_clear(&rep);
	dnsb_metrics_free(m);
	dnsb_plan_free(plan);
}

/* No reason given: "unknown"; NULL options are the defaults. */
static void test_no_reason(void **state)
{
	dnsb_plan *plan = parse_plan(PLAN);
	dnsb_report rep;

	(void)state;
	assert_int_equal(dnsb_engine_fail_unopened(&rep, plan, NULL, NULL, NULL), 0);
	assert_string_equal(dnsb_plan_change(plan, 2)->message, "not sent: the provider could not be opened: unknown");
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
}

/* Bad options, a dry run, a preview: DNSB_EINVAL before anything is touched. */
static void test_refused_options(void **state)
{
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_plan *plan = parse_plan(PLAN);
	dnsb_report rep;
	dnsb_error err = { 0 };

	(void)state;
	o.version = 99;
	assert_int_equal(dnsb_engine_fail_unopened(&rep, plan, "x", &o, &err), DNSB_EINVAL);
	assert_int_equal(err.code, DNSB_EINVAL);
	o.version = DNSB_ENGINE_OPTIONS_VERSION;
	o.dry_run = 1;
	assert_int_equal(dnsb_engine_fail_unopened(&rep, plan, "x", &o, &err), DNSB_EINVAL);
	o.dry_run = 0;
	o.preview = 1;
	assert_int_equal(dnsb_engine_fail_unopened(&rep, plan, "x", &o, &err), DNSB_EINVAL);
	assert_int_equal(rep.changes, 0);
	assert_int_equal(dnsb_plan_change(plan, 2)->outcome, DNSB_OUTCOME_PENDING);
	dnsb_plan_free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settled_and_told),
		cmocka_unit_test(test_no_reason),
		cmocka_unit_test(test_refused_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
