/*
 * test_progress.c - the engine's progress (dnsb_engine_options.on_progress),
 * its stop flag, and the message of a change dropped only with its group,
 * on the memory provider with a fake clock that the test moves.
 */
#include "engine_fixture.h"

#define MAX_CALLS 32

typedef struct seen {
	dnsb_progress calls[MAX_CALLS];
	size_t n;
	fake_clock *clock;
	volatile sig_atomic_t stop;
	int stop_at_first;       /* set stop on the first submission */
} seen;

static void record(void *payload, const dnsb_progress *p)
{
	seen *s = payload;

	if (s->n < MAX_CALLS)
		s->calls[s->n] = *p;
	s->n++;
}

/* Each submission takes 2 s on the fake clock; the first may ask the engine to stop. */
static void submission(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes, size_t n)
{
	seen *s = payload;

	(void)zone;
	(void)batch_no;
	(void)changes;
	(void)n;
	s->clock->t += 2.0;
	if (s->stop_at_first)
		s->stop = 1;
}

static dnsb_engine_options options(seen *s, fake_clock *clock)
{
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;

	fake_clock_init(clock);
	s->clock = clock;
	o.clock = &clock->clock;
	o.batch_size = 3;
	o.seed = 1;
	o.on_batch = submission;
	o.payload = s;
	o.on_progress = record;
	o.progress_payload = s;
	o.stop = &s->stop;
	return o;
}

/* 10 changes in batches of 3: told at the start, after each batch, and once at the end, on the engine's clock. */
static void test_progress_per_batch(void **state)
{
	seen s = { 0 };
	fake_clock clock;
	dnsb_engine_options o = options(&s, &clock);
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(10, 0);
	dnsb_report rep;
	dnsb_error err = { 0 };
	static const size_t done[] = { 0, 0, 3, 3, 6, 6, 9, 9, 10, 10 };

	(void)state;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), 0);
	assert_invariant(plan, &rep);
	/* start, then per batch: after its submission and after the batch, then the final call */
	assert_int_equal(s.n, 1 + 4 * 2 + 1);
	for (size_t i = 0; i < s.n; i++) {
		assert_int_equal(s.calls[i].total, 10);
		assert_int_equal(s.calls[i].done, done[i]);
		assert_int_equal(s.calls[i].applied, done[i]);
		assert_int_equal(s.calls[i].final, i + 1 == s.n);
	}
	assert_true(s.calls[0].elapsed == 0.0);
	assert_true(s.calls[2].elapsed == 2.0);   /* one submission of 2 s */
	assert_true(s.calls[9].elapsed == 8.0);   /* four */
	assert_int_equal(s.calls[9].submissions, 4);
	assert_int_equal(s.calls[9].batches, 4);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/* A stop asked during the first batch: that batch finishes, the others are never begun and end failed. */
static void test_stop_between_batches(void **state)
{
	seen s = { .stop_at_first = 1 };
	fake_clock clock;
	dnsb_engine_options o = options(&s, &clock);
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(10, 0);
	dnsb_report rep;
	dnsb_error err = { 0 };

	(void)state;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), 0);
	assert_invariant(plan, &rep);
	assert_int_equal(rep.applied, 3);
	assert_int_equal(rep.failed, 7);
	assert_int_equal(rep.batches, 1);
	assert_int_equal(rep.submissions, 1);
	for (size_t i = 3; i < 10; i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		assert_int_equal(c->outcome, DNSB_OUTCOME_FAILED);
		assert_int_equal(c->reason, DNSB_REASON_DEADLINE);
		assert_non_null(strstr(c->message, "the apply was stopped"));
	}
	assert_true(s.calls[s.n - 1].final);
	assert_int_equal(s.calls[s.n - 1].done, 10);
	assert_int_equal(s.calls[s.n - 1].failed, 7);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/* A registry TXT with nothing in its own way, dropped with its record: its message names the refused change. */
static void test_dropped_with_group(void **state)
{
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(1, 1);
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_report rep;
	dnsb_error err = { 0 };
	const dnsb_change *txt = NULL, *rec = NULL;

	(void)state;
	put_a(p, "h0.example.com.", "198.51.100.7");
	o.seed = 1;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), 0);
	assert_int_equal(rep.dropped, 2);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		if (c->new_set.type == 16)
			txt = c;
		else
			rec = c;
	}
	assert_non_null(txt);
	assert_non_null(rec);
	assert_non_null(txt->message);
	assert_true(strncmp(txt->message, "dropped with its group: create h0.example.com. A was refused: ", 62) == 0);
	assert_null(strstr(rec->message, "dropped with its group"));
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_per_batch),
		cmocka_unit_test(test_stop_between_batches),
		cmocka_unit_test(test_dropped_with_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
