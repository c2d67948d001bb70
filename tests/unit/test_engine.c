/* test_engine.c - the class table, bisection, verification, backoff and the outcome invariant. */
#include "engine_fixture.h"

static dnsb_engine_options options(fake_clock *c)
{
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;

	o.clock = &c->clock;
	o.seed = 42;
	return o;
}

static void apply_ok(dnsb_report *rep, dnsb_provider *p, dnsb_plan *plan, const dnsb_engine_options *o)
{
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_engine_apply(rep, p, plan, o, &err), 0);
	assert_invariant(plan, rep);
}

static void test_all_applied_in_one_submission(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(10, 1);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 20);
	assert_int_equal(rep.submissions, 1);
	assert_int_equal(rep.reads, 0);
	assert_int_equal(dnsb_memory_rrset_count(p), 20);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/* n = 8 groups, one conflict at position `pos`: submissions counted by hand from DESIGN §3. */
static unsigned long submissions_for_culprit(size_t pos, size_t *dropped_out)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(8, 0);
	dnsb_engine_options o;
	dnsb_report rep;
	char owner[32];
	unsigned long subs;

	fake_clock_init(&c);
	o = options(&c);
	snprintf(owner, sizeof(owner), "h%zu.example.com.", pos);
	put_a(p, owner, "198.51.100.1");
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 7);
	assert_int_equal(rep.dropped, 1);
	assert_int_equal(rep.reads, 1); /* the culprit alone is read back before it is dropped */
	assert_int_equal(dnsb_plan_change(plan, pos)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(dnsb_plan_change(plan, pos)->reason, DNSB_REASON_CONFLICT);
	assert_int_equal(dnsb_plan_change(plan, pos)->status, 409);
	assert_string_equal(dnsb_plan_change(plan, pos)->code, "alreadyExists");
	*dropped_out = rep.dropped;
	subs = rep.submissions;
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
	return subs;
}

static void test_bisection_submission_counts(void **state)
{
	size_t dropped;

	(void)state;
	/* 7: whole(F) [0-3](ok) [4,5](ok) [6](ok), [7] inferred without a submission */
	assert_int_equal(submissions_for_culprit(7, &dropped), 4);
	/* 0: whole(F) [0-3](F) [0,1](F) [0](F) [1] [2,3] [4-7] */
	assert_int_equal(submissions_for_culprit(0, &dropped), 7);
	/* 3: whole(F) [0-3](F) [0,1](ok) -> [2,3] known bad: [2](ok), [3] inferred; [4-7] */
	assert_int_equal(submissions_for_culprit(3, &dropped), 5);
	/* 6: whole(F) [0-3](ok) [4,5](ok) -> [6,7] known bad: [6](F) [7](ok) */
	assert_int_equal(submissions_for_culprit(6, &dropped), 5);
}

static void test_hint_isolates_culprit_in_two_submissions(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(8, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	dnsb_memory_set_hints(p, 1);
	put_a(p, "h5.example.com.", "198.51.100.1");
	apply_ok(&rep, p, plan, &o);
	/* whole(F, names #5), the rest (ok), #5 inferred and verified */
	assert_int_equal(rep.submissions, 2);
	assert_int_equal(rep.applied, 7);
	assert_int_equal(dnsb_plan_change(plan, 5)->outcome, DNSB_OUTCOME_DROPPED);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static dnsb_class conflict_on_bad_owner(scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(changes[i]->new_set.owner, s->bad_owner) == 0) {
			dnsb_result_set(out, DNSB_CLASS_CONFLICT, 409, "alreadyExists", "%s exists", s->bad_owner);
			out->hint = s->wrong_hint == -2 ? (long)i : s->wrong_hint < (long)n ? s->wrong_hint : -1;
			return DNSB_CLASS_CONFLICT;
		}
	}
	return DNSB_CLASS_OK;
}

static void test_wrong_hint_costs_one_request(void **state)
{
	fake_clock c;
	scripted s = { .decide = conflict_on_bad_owner, .bad_owner = "h6.example.com.", .wrong_hint = 1 };
	dnsb_provider *p = scripted_provider(&s);
	dnsb_plan *plan = plan_of_creates(8, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	p->limits.names_culprit = 1;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	/* whole(F, hint #1 wrong) -> without #1: 7 groups (F, hint wrong again: #1 of those = h2) ...
	 * whatever the path, exactly h6 is dropped and the others applied */
	assert_int_equal(rep.dropped, 1);
	assert_int_equal(rep.applied, 7);
	assert_int_equal(dnsb_plan_change(plan, 6)->outcome, DNSB_OUTCOME_DROPPED);
	assert_true(rep.submissions <= 14);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_verify_before_drop_already_applied(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(4, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	put_a(p, "h2.example.com.", "192.0.2.3"); /* exactly what the plan wants, made out of band */
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 3);
	assert_int_equal(rep.already_applied, 1);
	assert_int_equal(rep.dropped, 0);
	assert_int_equal(dnsb_plan_change(plan, 2)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/* The real case: 502 for a batch that was committed, then 409 on the retry. */
static void test_502_then_409_is_already_applied(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("1:commit-transient");
	dnsb_plan *plan = plan_of_creates(10, 1);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.already_applied, 20);
	assert_int_equal(rep.dropped, 0);
	assert_int_equal(rep.submissions, 2);
	assert_int_equal(rep.reads, 1);      /* one read-back of the whole batch */
	assert_int_equal(rep.bisections, 0); /* no bisection of a batch that was in fact applied */
	assert_int_equal(rep.retries, 1);
	assert_int_equal(c.sleeps, 1);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_502_then_409_update_and_delete(void **state)
{
	static const char json[] =
		"{\"updateOld\":[{\"dnsName\":\"api.example.com\",\"recordType\":\"A\",\"targets\":[\"10.0.0.1\"],\"recordTTL\":60}],"
		"\"updateNew\":[{\"dnsName\":\"api.example.com\",\"recordType\":\"A\",\"targets\":[\"10.0.0.2\"],\"recordTTL\":60}],"
		"\"delete\":[{\"dnsName\":\"old.example.com\",\"recordType\":\"A\",\"targets\":[\"198.51.100.1\"]}]}";
	fake_clock c;
	dnsb_provider *p = memory_zone("1:commit-transient");
	dnsb_plan *plan = NULL;
	dnsb_engine_options o;
	dnsb_report rep;
	dnsb_rrset api = { 0 };

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	api.owner = strdup("api.example.com.");
	api.type = 1;
	api.ttl = 60;
	dnsb_rrset_add_rdata(&api, "10.0.0.1");
	assert_int_equal(dnsb_memory_put(p, &api), 0);
	dnsb_rrset_clear(&api);
	put_a(p, "old.example.com.", "198.51.100.1");
	assert_int_equal(dnsb_plan_parse(&plan, json, sizeof(json) - 1, "t", NULL), 0);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.already_applied, 2);
	assert_int_equal(rep.submissions, 2);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_transient_exhausted_fails_with_bounded_retries(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("*:transient");
	dnsb_plan *plan = plan_of_creates(5, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.max_retries = 3;
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.failed, 5);
	assert_int_equal(rep.submissions, 4);
	assert_int_equal(rep.retries, 3);
	assert_int_equal(rep.reads, 1); /* checked for a hidden commit before calling it failed */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(dnsb_plan_change(plan, i)->reason, DNSB_REASON_TRANSIENT);
	/* full jitter: each wait below min(cap, base * 2^attempt) */
	assert_int_equal(c.sleeps, 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(c.slept[i] >= 0 && c.slept[i] < (double)(1u << i));
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_transient_before_commit_then_ok(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("1-2:transient");
	dnsb_plan *plan = plan_of_creates(5, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 5);
	assert_int_equal(rep.submissions, 3);
	assert_int_equal(rep.retries, 2);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_retry_after_is_a_floor(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("1:rate-limit=7");
	dnsb_plan *plan = plan_of_creates(3, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 3);
	assert_int_equal(rep.submissions, 2);
	assert_int_equal(c.sleeps, 1);
	assert_true(c.slept[0] == 7.0); /* U(0, 1 s) < 7 s: the floor wins */
	assert_true(rep.backoff_seconds == 7.0);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_rate_limit_exhausted_fails_rate_limited(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("*:rate-limit");
	dnsb_plan *plan = plan_of_creates(3, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.max_rate_limit_waits = 4;
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.failed, 3);
	assert_int_equal(rep.submissions, 5);
	assert_int_equal(dnsb_plan_change(plan, 0)->reason, DNSB_REASON_RATE_LIMITED);
	assert_int_equal(dnsb_plan_change(plan, 0)->status, 429);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_shared_pacing_waits_for_provider(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(3, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	/* Another apply on this provider was told to slow down until t = 1012. */
	p->pacer.not_before = 1012.0;
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(c.sleeps, 1);
	assert_true(c.slept[0] == 12.0);
	assert_int_equal(rep.applied, 3);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void run_seeded(uint64_t seed, double *slept, size_t *n)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("1-4:transient");
	dnsb_plan *plan = plan_of_creates(2, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	fake_clock_init(&c);
	o = options(&c);
	o.seed = seed;
	apply_ok(&rep, p, plan, &o);
	*n = c.sleeps;
	memcpy(slept, c.slept, sizeof(double) * c.sleeps);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_backoff_deterministic_with_seed(void **state)
{
	double a[64], b[64], d[64];
	size_t na, nb, nd;

	(void)state;
	run_seeded(7, a, &na);
	run_seeded(7, b, &nb);
	run_seeded(8, d, &nd);
	assert_int_equal(na, 4);
	assert_int_equal(nb, 4);
	assert_memory_equal(a, b, sizeof(double) * 4);
	assert_memory_not_equal(a, d, sizeof(double) * 4);
}

static void test_backoff_delay_formula(void **state)
{
	(void)state;
	assert_true(dnsb_backoff_delay(0, 1, 60, 0.5) == 0.5);
	assert_true(dnsb_backoff_delay(3, 1, 60, 0.5) == 4.0);
	assert_true(dnsb_backoff_delay(10, 1, 60, 0.5) == 30.0); /* capped at 60 */
	assert_true(dnsb_backoff_delay(200, 1, 60, 1.0) == 60.0);
	assert_true(dnsb_backoff_delay(2, 0.25, 60, 0.0) == 0.0);
}

static void test_fatal_stops_the_zone(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("1:fatal");
	dnsb_plan *plan = plan_of_creates(6, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.batch_size = 2;
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.failed, 6);
	assert_int_equal(rep.submissions, 1); /* the other batches are not sent */
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(dnsb_plan_change(plan, i)->reason, DNSB_REASON_FATAL);
		assert_non_null(strstr(dnsb_plan_change(plan, i)->message, "403"));
	}
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static dnsb_class too_large_above(scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	(void)changes;
	if (n > s->max_n) {
		dnsb_result_set(out, DNSB_CLASS_TOO_LARGE, 403, "quotaExceeded", "would exceed quota for additions per change");
		return DNSB_CLASS_TOO_LARGE;
	}
	return DNSB_CLASS_OK;
}

static void test_too_large_splits_without_drop_or_retry(void **state)
{
	fake_clock c;
	scripted s = { .decide = too_large_above, .max_n = 2 };
	dnsb_provider *p = scripted_provider(&s);
	dnsb_plan *plan = plan_of_creates(8, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 8);
	assert_int_equal(rep.retries, 0);
	/* 8(F) 4(F) 2 2 4(F) 2 2 */
	assert_int_equal(rep.submissions, 7);
	assert_int_equal(c.sleeps, 0);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static dnsb_class invalid_on_bad_owner(scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(changes[i]->new_set.owner, s->bad_owner) == 0) {
			dnsb_result_set(out, DNSB_CLASS_INVALID, 400, "invalid", "Invalid value for 'entity.change.additions[%zu]'", i);
			return DNSB_CLASS_INVALID;
		}
	}
	return DNSB_CLASS_OK;
}

static void test_invalid_dropped_without_read_back(void **state)
{
	fake_clock c;
	scripted s = { .decide = invalid_on_bad_owner, .bad_owner = "h1.example.com." };
	dnsb_provider *p = scripted_provider(&s);
	dnsb_plan *plan = plan_of_creates(4, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 3);
	assert_int_equal(rep.dropped, 1);
	assert_int_equal(rep.reads, 0);
	assert_int_equal(dnsb_plan_change(plan, 1)->reason, DNSB_REASON_INVALID);
	assert_int_equal(dnsb_plan_change(plan, 1)->status, 400);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_no_zone_and_parser_invalid_cost_nothing(void **state)
{
	static const char json[] =
		"{\"create\":[{\"dnsName\":\"a.example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
		"{\"dnsName\":\"b.example.com\",\"recordType\":\"A\",\"targets\":[\"999.1.1.1\"]}]}";
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = NULL;
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	assert_int_equal(dnsb_plan_parse(&plan, json, sizeof(json) - 1, "t", NULL), 0);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.dropped, 2);
	assert_int_equal(rep.submissions, 0);
	assert_int_equal(dnsb_plan_change(plan, 0)->reason, DNSB_REASON_NO_ZONE);
	assert_int_equal(dnsb_plan_change(plan, 1)->reason, DNSB_REASON_INVALID);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_ownership_record_drops_with_its_record(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(4, 1); /* h_i and a-h_i, each pair one group */
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	put_a(p, "h2.example.com.", "198.51.100.1");
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.dropped, 2);
	assert_int_equal(rep.applied, 6);
	assert_int_equal(dnsb_plan_change(plan, 4)->outcome, DNSB_OUTCOME_DROPPED); /* h2 */
	assert_int_equal(dnsb_plan_change(plan, 5)->outcome, DNSB_OUTCOME_DROPPED); /* a-h2 TXT */
	assert_int_equal(dnsb_plan_change(plan, 4)->group, dnsb_plan_change(plan, 5)->group);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_batch_size_and_provider_limits(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(2500, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.batch_size = 5000; /* the memory provider's 1000 additions per change limit cuts first */
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.applied, 2500);
	assert_int_equal(rep.batches, 3);
	assert_int_equal(rep.submissions, 3);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);

	plan = plan_of_creates(10, 1);
	dnsb_provider_free(p);
	p = memory_zone(NULL);
	o.batch_size = 3; /* groups, never split: 10 pairs -> 4 batches */
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.batches, 4);
	assert_int_equal(rep.applied, 20);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_deadline_fails_what_is_not_reached(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone("*:transient");
	dnsb_plan *plan = plan_of_creates(3, 0);
	dnsb_engine_options o;
	dnsb_report rep;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.timeout = 5;
	o.backoff_base = 10;
	o.backoff_cap = 10;
	o.seed = 3;
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.failed, 3);
	assert_true(c.t - 1000.0 <= 5.0);
	assert_int_equal(dnsb_plan_change(plan, 0)->reason, DNSB_REASON_DEADLINE);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_quarantine_holds_then_retries(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_quarantine *q = NULL;
	dnsb_engine_options o;
	dnsb_report rep;
	dnsb_plan *plan;
	unsigned long before;

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	o.quarantine = q;
	put_a(p, "h1.example.com.", "198.51.100.1");

	plan = plan_of_creates(3, 1);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(rep.dropped, 2);
	assert_int_equal(dnsb_plan_change(plan, 2)->reason, DNSB_REASON_CONFLICT);
	assert_int_equal(dnsb_quarantine_count(q, c.t), 1);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);

	/* Same plan again, 10 s later: the conflicting group costs no request. */
	c.t += 10;
	plan = plan_of_creates(3, 1);
	before = dnsb_provider_submissions(p);
	unsigned long reads_before = dnsb_provider_reads(p);
	apply_ok(&rep, p, plan, &o);
	/* h0 and h2 were applied the first time: whole(F), then each alone is verified */
	assert_int_equal(rep.already_applied, 4);
	assert_int_equal(dnsb_plan_change(plan, 2)->reason, DNSB_REASON_QUARANTINED);
	assert_int_equal(dnsb_plan_change(plan, 3)->reason, DNSB_REASON_QUARANTINED);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	/* The conflicting group alone: not one request, submission or read. */
	plan = plan_of_creates(3, 1);
	for (size_t i = 0; i < dnsb_plan_count(plan); i++)
		if (i != 2 && i != 3)
			dnsb_plan_change(plan, i)->outcome = DNSB_OUTCOME_APPLIED;
	before = dnsb_provider_submissions(p);
	reads_before = dnsb_provider_reads(p);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(dnsb_provider_submissions(p) - before, 0);
	assert_int_equal(dnsb_provider_reads(p) - reads_before, 0);
	assert_int_equal(rep.dropped, 2);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);

	/* After the minute it is tried again, conflicts again: held for 120 s now. */
	c.t += 60;
	plan = plan_of_creates(3, 1);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(dnsb_plan_change(plan, 2)->reason, DNSB_REASON_CONFLICT);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	c.t += 100;
	plan = plan_of_creates(3, 1);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(dnsb_plan_change(plan, 2)->reason, DNSB_REASON_QUARANTINED);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);

	/* The group leaves the plan: forgotten. */
	plan = plan_of_creates(1, 0);
	apply_ok(&rep, p, plan, &o);
	assert_int_equal(dnsb_quarantine_count(q, c.t), 0);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_quarantine_free(q);
	dnsb_provider_free(p);
}

typedef struct batches_seen {
	unsigned long batches;
	size_t changes;
} batches_seen;

static void count_batch(void *payload, const char *zone, unsigned long no, dnsb_change *const *changes, size_t n)
{
	batches_seen *b = payload;

	(void)zone;
	(void)changes;
	assert_int_equal(no, b->batches + 1);
	b->batches++;
	b->changes += n;
}

static void test_dry_run_sends_nothing(void **state)
{
	fake_clock c;
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(10, 1);
	dnsb_engine_options o;
	dnsb_report rep;
	dnsb_error err = { 0 };
	batches_seen seen = { 0 };

	(void)state;
	fake_clock_init(&c);
	o = options(&c);
	o.dry_run = 1;
	o.batch_size = 4;
	o.on_batch = count_batch;
	o.payload = &seen;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), 0);
	assert_int_equal(seen.batches, 3);
	assert_int_equal(seen.changes, 20);
	assert_int_equal(dnsb_provider_submissions(p), 0);
	assert_int_equal(dnsb_memory_rrset_count(p), 0);
	assert_int_equal(dnsb_plan_change(plan, 0)->outcome, DNSB_OUTCOME_PENDING);
	dnsb_report_clear(&rep);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

static void test_bad_options(void **state)
{
	dnsb_provider *p = memory_zone(NULL);
	dnsb_plan *plan = plan_of_creates(1, 0);
	dnsb_engine_options o = DNSB_ENGINE_OPTIONS_INIT;
	dnsb_report rep;
	dnsb_error err = { 0 };

	(void)state;
	o.batch_size = 0;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), DNSB_EINVAL);
	assert_string_equal(err.message, "--batch-size must be at least 1");
	o.batch_size = 10;
	o.backoff_cap = 0.5;
	assert_int_equal(dnsb_engine_apply(&rep, p, plan, &o, &err), DNSB_EINVAL);
	assert_int_equal(dnsb_provider_submissions(p), 0);
	dnsb_plan_free(plan);
	dnsb_provider_free(p);
}

/*
 * The invariant over many seeded random fault scripts: every change ends
 * with one outcome, the report adds up, nothing dropped is in effect and
 * everything applied is.
 */
static void test_invariant_random_faults(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 150; seed++) {
		char faults[160];
		fake_clock c;
		dnsb_provider *p;
		dnsb_plan *plan = plan_of_creates(40, seed % 2);
		dnsb_engine_options o;
		dnsb_report rep;
		uint64_t r = seed * 2654435761u;

		snprintf(faults, sizeof(faults), "p0.15:transient,p0.1:commit-transient,p0.05:rate-limit=0.5,%sseed=%u",
			 seed % 25 == 0 ? "p0.02:fatal," : "", seed);
		p = memory_zone(faults);
		/* a few conflicts, and a few changes already in effect */
		for (int k = 0; k < 5; k++) {
			char owner[32], rdata[32];
			size_t i;
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			i = (size_t)(r >> 33) % 40;
			snprintf(owner, sizeof(owner), "h%zu.example.com.", i);
			snprintf(rdata, sizeof(rdata), k % 2 ? "198.51.100.7" : "192.0.2.%zu", i % 250 + 1);
			put_a(p, owner, rdata);
		}
		fake_clock_init(&c);
		o = options(&c);
		o.seed = seed;
		o.batch_size = 1 + seed % 16;
		o.max_retries = 3;
		apply_ok(&rep, p, plan, &o);
		for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
			dnsb_change *ch = dnsb_plan_change(plan, i);
			dnsb_rrkey key = { ch->new_set.owner, ch->new_set.type };
			dnsb_rrset_list held = { 0 };
			assert_int_equal(p->ops->read(p->state, "example.com.", &key, 1, &held, NULL), 0);
			int in_effect = held.count == 1 && dnsb_rrset_equal(&held.items[0], &ch->new_set);
			if ((ch->outcome == DNSB_OUTCOME_APPLIED || ch->outcome == DNSB_OUTCOME_ALREADY_APPLIED) && !in_effect)
				fprintf(stderr, "seed %u change %zu %s outcome %d held %zu\n", seed, i, ch->new_set.owner, ch->outcome, held.count);
			if (ch->outcome == DNSB_OUTCOME_APPLIED || ch->outcome == DNSB_OUTCOME_ALREADY_APPLIED)
				assert_true(in_effect);
			if (ch->outcome == DNSB_OUTCOME_DROPPED && in_effect)
				fprintf(stderr, "seed %u change %zu %s dropped %d but in effect: %s\n", seed, i, ch->new_set.owner, ch->reason, ch->message);
			if (ch->outcome == DNSB_OUTCOME_DROPPED)
				assert_false(in_effect);
			dnsb_rrset_list_clear(&held);
		}
		dnsb_report_clear(&rep);
		dnsb_plan_free(plan);
		dnsb_provider_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_applied_in_one_submission),
		cmocka_unit_test(test_bisection_submission_counts),
		cmocka_unit_test(test_hint_isolates_culprit_in_two_submissions),
		cmocka_unit_test(test_wrong_hint_costs_one_request),
		cmocka_unit_test(test_verify_before_drop_already_applied),
		cmocka_unit_test(test_502_then_409_is_already_applied),
		cmocka_unit_test(test_502_then_409_update_and_delete),
		cmocka_unit_test(test_transient_exhausted_fails_with_bounded_retries),
		cmocka_unit_test(test_transient_before_commit_then_ok),
		cmocka_unit_test(test_retry_after_is_a_floor),
		cmocka_unit_test(test_rate_limit_exhausted_fails_rate_limited),
		cmocka_unit_test(test_shared_pacing_waits_for_provider),
		cmocka_unit_test(test_backoff_deterministic_with_seed),
		cmocka_unit_test(test_backoff_delay_formula),
		cmocka_unit_test(test_fatal_stops_the_zone),
		cmocka_unit_test(test_too_large_splits_without_drop_or_retry),
		cmocka_unit_test(test_invalid_dropped_without_read_back),
		cmocka_unit_test(test_no_zone_and_parser_invalid_cost_nothing),
		cmocka_unit_test(test_ownership_record_drops_with_its_record),
		cmocka_unit_test(test_batch_size_and_provider_limits),
		cmocka_unit_test(test_deadline_fails_what_is_not_reached),
		cmocka_unit_test(test_quarantine_holds_then_retries),
		cmocka_unit_test(test_dry_run_sends_nothing),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_invariant_random_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
