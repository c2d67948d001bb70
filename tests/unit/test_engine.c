/* test_engine.c - the class table, bisection, verification, backoff and the outcome invariant. */
#include "engine_fixture.h"
#include "applier/core/backoff.h"


static void test_all_applied_in_one_submission(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 10, 1);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 20);
	assert_int_equal(r.rep.submissions, 1);
	assert_int_equal(r.rep.reads, 0);
	assert_int_equal(dnsb_memory_rrset_count(r.p), 20);
	run_free(&r);
}

/* A flush that records its calls and fails the write when told to. */
static int flush_calls[2], flush_fails;

static int fake_flush(void *state, const char *zone, int hold, double timeout, dnsb_error *err)
{
	(void)state;
	(void)timeout;
	assert_string_equal(zone, "example.com.");
	flush_calls[hold]++;
	if (!hold && flush_fails)
		return dnsb_error_set(err, DNSB_EIO, "example.com.zone: No space left on device");
	return 0;
}

/*
 * Deferred commits: the zone is held while its batches run and flushed once
 * before the outcomes are told; a flush that cannot write fails every change
 * it held, which is then never reported applied.
 */
static void test_deferred_commit_flushed_before_outcomes(void **state)
{
	run r;

	(void)state;
	for (flush_fails = 0; flush_fails < 2; flush_fails++) {
		memset(flush_calls, 0, sizeof(flush_calls));
		run_init(&r, NULL, 10, 1);
		r.o.batch_size = 4;
		dnsb_memory_set_flush(r.p, fake_flush);
		run_apply(&r);
		assert_int_equal(r.rep.submissions, 3);
		assert_int_equal(flush_calls[1], 1);
		assert_int_equal(flush_calls[0], 1);
		assert_int_equal(r.rep.applied, flush_fails ? 0 : 20);
		assert_int_equal(r.rep.failed, flush_fails ? 20 : 0);
		if (flush_fails) {
			assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_TRANSIENT);
			assert_string_equal(run_change(&r, 0)->message, "example.com.zone: No space left on device");
		}
		run_free(&r);
	}
}

/* n = 8 groups, one conflict at position `pos`: submissions counted by hand from docs/design.md §3.2. */
static unsigned long submissions_for_culprit(size_t pos)
{
	run r;
	char owner[32];
	unsigned long subs;

	run_init(&r, NULL, 8, 0);
	snprintf(owner, sizeof(owner), "h%zu.example.com.", pos);
	put_a(r.p, owner, "198.51.100.1");
	run_apply(&r);
	assert_int_equal(r.rep.applied, 7);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(r.rep.reads, 1); /* the culprit alone is read back before it is dropped */
	assert_int_equal(run_change(&r, pos)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, pos)->reason, DNSB_REASON_CONFLICT);
	assert_int_equal(run_change(&r, pos)->status, 409);
	assert_string_equal(run_change(&r, pos)->code, "alreadyExists");
	subs = r.rep.submissions;
	run_free(&r);
	return subs;
}

static void test_bisection_submission_counts(void **state)
{
	(void)state;
	/* 7: whole(F) [0-3](ok) [4,5](ok) [6](ok), [7] inferred without a submission */
	assert_int_equal(submissions_for_culprit(7), 4);
	/* 0: whole(F) [0-3](F) [0,1](F) [0](F); then the chunk halves to 4: [1-4](ok), doubles: [5-7](ok) */
	assert_int_equal(submissions_for_culprit(0), 6);
	/* 3: whole(F) [0-3](F) [0,1](ok) -> [2,3] known bad: [2](ok), [3] inferred; [4-7] */
	assert_int_equal(submissions_for_culprit(3), 5);
	/* 6: whole(F) [0-3](ok) [4,5](ok) -> [6,7] known bad: [6](F) [7](ok) */
	assert_int_equal(submissions_for_culprit(6), 5);
}

static void test_hint_isolates_culprit_in_two_submissions(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 8, 0);
	dnsb_memory_set_hints(r.p, 1);
	put_a(r.p, "h5.example.com.", "198.51.100.1");
	run_apply(&r);
	/* whole(F, names #5), the rest (ok), #5 inferred and verified */
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.rep.applied, 7);
	assert_int_equal(run_change(&r, 5)->outcome, DNSB_OUTCOME_DROPPED);
	run_free(&r);
}

static dnsb_class conflict_on_bad_owner(scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(changes[i]->new_set.owner, s->bad_owner) == 0) {
			dnsb_result_set(out, DNSB_CLASS_CONFLICT, 409, "alreadyExists", "%s exists", s->bad_owner);
			if (s->wrong_hint == -2)
				dnsb_result_add_culprit(out, i);
			else if (s->wrong_hint >= 0 && s->wrong_hint < (long)n)
				dnsb_result_add_culprit(out, (size_t)s->wrong_hint);
			return DNSB_CLASS_CONFLICT;
		}
	}
	return DNSB_CLASS_OK;
}

static void test_wrong_hint_costs_one_request(void **state)
{
	scripted s = { .decide = conflict_on_bad_owner, .bad_owner = "h6.example.com.", .wrong_hint = 1 };
	run r;

	(void)state;
	run_init_scripted(&r, &s, 8);
	set_names_culprit(r.p, 1);
	run_apply(&r);
	/* whole(F, names h1); h1 read (no cause) and sent alone: ok, so the list was wrong and is ignored
	 * from now on, and the refusal belongs to the other 7: [h0,h2,h3](ok) [h4,h5](ok) [h6](F, dropped);
	 * the chunk halves to 4: [h7](ok). The first engine followed every wrong name (up to 14). */
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(r.rep.applied, 7);
	assert_int_equal(run_change(&r, 6)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(r.rep.submissions, 6);
	assert_int_equal(r.rep.reads, 2);
	run_free(&r);
}

static void test_verify_before_drop_already_applied(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 4, 0);
	put_a(r.p, "h2.example.com.", "192.0.2.3"); /* exactly what the plan wants, made out of band */
	run_apply(&r);
	assert_int_equal(r.rep.applied, 3);
	assert_int_equal(r.rep.already_applied, 1);
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(run_change(&r, 2)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	run_free(&r);
}

/* The real case: 502 for a batch that was committed, then 409 on the retry. */
static void test_502_then_409_is_already_applied(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient", 10, 1);
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 20);
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.rep.reads, 1);      /* one read-back of the whole batch */
	assert_int_equal(r.rep.bisections, 0); /* no bisection of a batch that was in fact applied */
	assert_int_equal(r.rep.retries, 1);
	assert_int_equal(r.c.sleeps, 1);
	run_free(&r);
}

static void test_502_then_409_update_and_delete(void **state)
{
	static const char json[] =
		"{\"updateOld\":[{\"dnsName\":\"api.example.com\",\"recordType\":\"A\",\"targets\":[\"10.0.0.1\"],\"recordTTL\":60}],"
		"\"updateNew\":[{\"dnsName\":\"api.example.com\",\"recordType\":\"A\",\"targets\":[\"10.0.0.2\"],\"recordTTL\":60}],"
		"\"delete\":[{\"dnsName\":\"old.example.com\",\"recordType\":\"A\",\"targets\":[\"198.51.100.1\"]}]}";
	dnsb_rrset api = { 0 };
	run r;

	(void)state;
	run_init(&r, "1:commit-transient", 0, 0);
	api.owner = strdup("api.example.com.");
	api.type = 1;
	api.ttl = 60;
	dnsb_rrset_add_rdata(&api, "10.0.0.1");
	assert_int_equal(dnsb_memory_put(r.p, &api), 0);
	dnsb_rrset_clear(&api);
	put_a(r.p, "old.example.com.", "198.51.100.1");
	run_plan(&r, parse_plan(json));
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 2);
	assert_int_equal(r.rep.submissions, 2);
	run_free(&r);
}

static void test_transient_exhausted_fails_with_bounded_retries(void **state)
{
	run r;

	(void)state;
	run_init(&r, "*:transient", 5, 0);
	r.o.max_retries = 3;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 5);
	assert_int_equal(r.rep.submissions, 4);
	assert_int_equal(r.rep.retries, 3);
	assert_int_equal(r.rep.reads, 1); /* checked for a hidden commit before calling it failed */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(run_change(&r, i)->reason, DNSB_REASON_TRANSIENT);
	/* full jitter: each wait below min(cap, base * 2^attempt) */
	assert_int_equal(r.c.sleeps, 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(r.c.slept[i] >= 0 && r.c.slept[i] < (double)(1u << i));
	run_free(&r);
}

static void test_transient_before_commit_then_ok(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1-2:transient", 5, 0);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 5);
	assert_int_equal(r.rep.submissions, 3);
	assert_int_equal(r.rep.retries, 2);
	run_free(&r);
}

static void test_retry_after_is_a_floor(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:rate-limit=7", 3, 0);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 3);
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.c.sleeps, 1);
	assert_true(r.c.slept[0] == 7.0); /* U(0, 1 s) < 7 s: the floor wins */
	assert_true(r.rep.backoff_seconds == 7.0);
	run_free(&r);
}

static void test_rate_limit_exhausted_fails_rate_limited(void **state)
{
	run r;

	(void)state;
	run_init(&r, "*:rate-limit", 3, 0);
	r.o.max_rate_limit_waits = 4;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 3);
	assert_int_equal(r.rep.submissions, 5);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_RATE_LIMITED);
	assert_int_equal(run_change(&r, 0)->status, 429);
	run_free(&r);
}

/* A rate limit whose Retry-After passes the deadline ends the apply at once (failed, deadline): the provider will
 * refuse until then, so resubmitting at 10 x a small --backoff-cap only spends submissions (DigitalOcean's spent
 * hour, 3,600 s: 8 submissions in 4 s, a log line each, nothing sent). */
static void test_rate_limit_past_deadline_ends_at_once(void **state)
{
	run r;

	(void)state;
	run_init(&r, "*:rate-limit=3600", 3, 0);
	r.o.backoff_base = 0.01;
	r.o.backoff_cap = 0.05;
	r.o.timeout = 4;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 3);
	assert_int_equal(r.rep.submissions, 1);
	assert_int_equal(r.c.sleeps, 0);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_DEADLINE);
	run_free(&r);
}

static void test_shared_pacing_waits_for_provider(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 3, 0);
	/* Another apply on this provider was told to slow down until t = 1012. */
	dnsb_pacing_hold(r.p, 1012.0);
	run_apply(&r);
	assert_int_equal(r.c.sleeps, 1);
	assert_true(r.c.slept[0] == 12.0);
	assert_int_equal(r.rep.applied, 3);
	run_free(&r);
}

static size_t run_seeded(uint64_t seed, double *slept)
{
	run r;
	size_t n;

	run_init(&r, "1-4:transient", 2, 0);
	r.o.seed = seed;
	run_apply(&r);
	n = r.c.sleeps;
	memcpy(slept, r.c.slept, sizeof(double) * n);
	run_free(&r);
	return n;
}

static void test_backoff_deterministic_with_seed(void **state)
{
	double a[64], b[64], d[64];

	(void)state;
	assert_int_equal(run_seeded(7, a), 4);
	assert_int_equal(run_seeded(7, b), 4);
	run_seeded(8, d);
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

/* The one Retry-After rule, the engine's and the HTTP backends' reads': a floor over the backoff, capped at 10 x cap. */
static void test_retry_after_floor_and_cap(void **state)
{
	(void)state;
	assert_true(dnsb_retry_after_wait(0.3, -1, 60) == 0.3);    /* none given: the backoff */
	assert_true(dnsb_retry_after_wait(0.3, 2, 60) == 2.0);     /* a floor */
	assert_true(dnsb_retry_after_wait(3.0, 2, 60) == 3.0);     /* not a ceiling */
	assert_true(dnsb_retry_after_wait(0.3, 3600, 60) == 600.0); /* 10 x --backoff-cap at most */
	assert_true(dnsb_retry_after_wait(0.1, 3600, 5) == 50.0);   /* a backend's read: 10 x its 5 s cap */
	assert_true(dnsb_retry_after_wait(0.1, 0, 5) == 0.1);
}

static void test_fatal_stops_the_zone(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:fatal", 6, 0);
	r.o.batch_size = 2;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 6);
	assert_int_equal(r.rep.submissions, 1); /* the other batches are not sent */
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(run_change(&r, i)->reason, DNSB_REASON_FATAL);
		assert_non_null(strstr(run_change(&r, i)->message, "403"));
	}
	run_free(&r);
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
	scripted s = { .decide = too_large_above, .max_n = 2 };
	run r;

	(void)state;
	run_init_scripted(&r, &s, 8);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 8);
	assert_int_equal(r.rep.retries, 0);
	/* 8(F) 4(F) 2 2 2 2: a part never grows past a size that was too large */
	assert_int_equal(r.rep.submissions, 6);
	assert_int_equal(r.c.sleeps, 0);
	run_free(&r);
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
	scripted s = { .decide = invalid_on_bad_owner, .bad_owner = "h1.example.com." };
	run r;

	(void)state;
	run_init_scripted(&r, &s, 4);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 3);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(r.rep.reads, 0);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_INVALID);
	assert_int_equal(run_change(&r, 1)->status, 400);
	run_free(&r);
}

static void test_no_zone_and_parser_invalid_cost_nothing(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan("{\"create\":[{\"dnsName\":\"a.example.org\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]},"
				"{\"dnsName\":\"b.example.com\",\"recordType\":\"A\",\"targets\":[\"999.1.1.1\"]}]}"));
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(r.rep.submissions, 0);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_NO_ZONE);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_INVALID);
	run_free(&r);
}

/* A plan of 4,096 changes or more is mapped to its zones in two halves at once (dnsb_par2): each change's own. */
static void test_long_plan_mapped_in_halves(void **state)
{
	size_t n = 6000, used = 0, size = n * 100 + 64;
	char *json = malloc(size);
	run r;

	(void)state;
	assert_non_null(json);
	used += (size_t)snprintf(json + used, size - used, "{\"create\":[");
	for (size_t i = 0; i < n; i++) /* one in seven in no zone, the rest in example.com */
		used += (size_t)snprintf(json + used, size - used,
					 "%s{\"dnsName\":\"h%zu.example.%s\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]}",
					 i ? "," : "", i, i % 7 == 3 ? "org" : "com");
	snprintf(json + used, size - used, "]}");
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan(json));
	run_apply(&r);
	for (size_t i = 0; i < n; i++) {
		dnsb_change *c = run_change(&r, i);
		assert_int_equal(c->outcome, i % 7 == 3 ? DNSB_OUTCOME_DROPPED : DNSB_OUTCOME_APPLIED);
		if (i % 7 == 3) {
			char want[64];
			snprintf(want, sizeof(want), "no configured zone holds h%zu.example.org.", i);
			assert_int_equal(c->reason, DNSB_REASON_NO_ZONE);
			assert_string_equal(c->message, want);
		}
	}
	assert_int_equal(r.rep.dropped, (n + 3) / 7);
	run_free(&r);
	free(json);
}

static void test_ownership_record_drops_with_its_record(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 4, 1); /* h_i and a-h_i, each pair one group */
	put_a(r.p, "h2.example.com.", "198.51.100.1");
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(r.rep.applied, 6);
	assert_int_equal(run_change(&r, 4)->outcome, DNSB_OUTCOME_DROPPED); /* h2 */
	assert_int_equal(run_change(&r, 5)->outcome, DNSB_OUTCOME_DROPPED); /* a-h2 TXT */
	assert_int_equal(run_change(&r, 4)->group, 2); /* set by the engine: the third group */
	assert_int_equal(run_change(&r, 5)->group, 2);
	assert_int_equal(run_change(&r, 6)->group, 3);
	run_free(&r);
}

static void test_invalid_record_drops_its_ownership_record(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan("{\"create\":[{\"dnsName\":\"bad.example.com\",\"recordType\":\"A\",\"targets\":[\"999.1.1.1\"]},"
				"{\"dnsName\":\"a-bad.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"heritage=external-dns\\\"\"],"
				"\"labels\":{\"ownedRecord\":\"bad.example.com\"}}]}"));
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(r.rep.submissions, 0);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_INVALID);
	assert_non_null(strstr(run_change(&r, 1)->message, "dropped with its group"));
	run_free(&r);
}

static void test_half_applied_group_is_settled_truthfully(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	put_a(r.p, "h1.example.com.", "192.0.2.2"); /* h1 as wanted, its ownership record missing */
	run_apply(&r);
	assert_int_equal(run_change(&r, 2)->outcome, DNSB_OUTCOME_ALREADY_APPLIED); /* h1 */
	assert_int_equal(run_change(&r, 3)->outcome, DNSB_OUTCOME_APPLIED);         /* a-h1, sent alone */
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(dnsb_memory_rrset_count(r.p), 6);
	run_free(&r);
}

static void test_batch_size_and_provider_limits(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 2500, 0);
	r.o.batch_size = 5000; /* the memory provider's 1000 additions per change limit cuts first */
	run_apply(&r);
	assert_int_equal(r.rep.applied, 2500);
	assert_int_equal(r.rep.batches, 3);
	assert_int_equal(r.rep.submissions, 3);
	run_free(&r);

	run_init(&r, NULL, 10, 1);
	r.o.batch_size = 3; /* groups, never split: 10 pairs -> 4 batches */
	run_apply(&r);
	assert_int_equal(r.rep.batches, 4);
	assert_int_equal(r.rep.applied, 20);
	run_free(&r);
}

static void test_deadline_fails_what_is_not_reached(void **state)
{
	run r;

	(void)state;
	run_init(&r, "*:transient", 3, 0);
	r.o.timeout = 5;
	r.o.backoff_base = 10;
	r.o.backoff_cap = 10;
	r.o.seed = 3;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 3);
	assert_true(r.c.t - 1000.0 <= 5.0);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_DEADLINE);
	run_free(&r);
}

static void test_quarantine_holds_then_retries(void **state)
{
	dnsb_quarantine *q = NULL;
	unsigned long subs, reads;
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "h1.example.com.", "198.51.100.1");
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(run_change(&r, 2)->reason, DNSB_REASON_CONFLICT);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 1);

	/* Same plan again, 10 s later: h0 and h2 are in effect, the conflicting group is held. */
	r.c.t += 10;
	run_plan(&r, plan_of_creates(3, 1));
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 4);
	assert_int_equal(run_change(&r, 2)->reason, DNSB_REASON_QUARANTINED);
	assert_int_equal(run_change(&r, 3)->reason, DNSB_REASON_QUARANTINED);

	/* The conflicting group alone: not one request, submission or read. */
	run_plan(&r, plan_of_creates(3, 1));
	for (size_t i = 0; i < dnsb_plan_count(r.plan); i++)
		if (i != 2 && i != 3)
			run_change(&r, i)->outcome = DNSB_OUTCOME_APPLIED;
	subs = dnsb_provider_submissions(r.p);
	reads = dnsb_provider_reads(r.p);
	run_apply(&r);
	assert_int_equal(dnsb_provider_submissions(r.p) - subs, 0);
	assert_int_equal(dnsb_provider_reads(r.p) - reads, 0);
	assert_int_equal(r.rep.dropped, 2);

	/* After the minute it is tried again, conflicts again: held for 120 s now. */
	r.c.t += 60;
	run_plan(&r, plan_of_creates(3, 1));
	run_apply(&r);
	assert_int_equal(run_change(&r, 2)->reason, DNSB_REASON_CONFLICT);
	r.c.t += 100;
	run_plan(&r, plan_of_creates(3, 1));
	run_apply(&r);
	assert_int_equal(run_change(&r, 2)->reason, DNSB_REASON_QUARANTINED);

	/* The group leaves the plan: forgotten. */
	run_plan(&r, plan_of_creates(1, 0));
	run_apply(&r);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 0);
	dnsb_quarantine_free(q);
	run_free(&r);
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
	batches_seen seen = { 0 };
	dnsb_error err = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 10, 1);
	r.o.dry_run = 1;
	r.o.batch_size = 4;
	r.o.on_batch = count_batch;
	r.o.payload = &seen;
	assert_int_equal(dnsb_engine_apply(&r.rep, r.p, r.plan, &r.o, &err), 0);
	assert_int_equal(seen.batches, 3);
	assert_int_equal(seen.changes, 20);
	assert_int_equal(dnsb_provider_submissions(r.p), 0);
	assert_int_equal(dnsb_memory_rrset_count(r.p), 0);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_PENDING);
	run_free(&r);
}

static void test_bad_options(void **state)
{
	dnsb_error err = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 1, 0);
	r.o.batch_size = 0;
	assert_int_equal(dnsb_engine_apply(&r.rep, r.p, r.plan, &r.o, &err), DNSB_EINVAL);
	assert_string_equal(err.message, "--batch-size must be at least 1");
	r.o.batch_size = 10;
	r.o.backoff_cap = 0.5;
	assert_int_equal(dnsb_engine_apply(&r.rep, r.p, r.plan, &r.o, &err), DNSB_EINVAL);
	assert_int_equal(dnsb_provider_submissions(r.p), 0);
	run_free(&r);
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
		uint64_t x = seed * 2654435761u;
		run r;

		snprintf(faults, sizeof(faults), "p0.15:transient,p0.1:commit-transient,p0.05:rate-limit=0.5,%sseed=%u",
			 seed % 25 == 0 ? "p0.02:fatal," : "", seed);
		run_init(&r, faults, 40, seed % 2);
		/* a few conflicts, and a few changes already in effect */
		for (int k = 0; k < 5; k++) {
			char owner[32], rdata[32];
			size_t i;
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			i = (size_t)(x >> 33) % 40;
			snprintf(owner, sizeof(owner), "h%zu.example.com.", i);
			snprintf(rdata, sizeof(rdata), k % 2 ? "198.51.100.7" : "192.0.2.%zu", i % 250 + 1);
			put_a(r.p, owner, rdata);
		}
		r.o.seed = seed;
		r.o.batch_size = 1 + seed % 16;
		r.o.max_retries = 3;
		run_apply(&r);
		for (size_t i = 0; i < dnsb_plan_count(r.plan); i++) {
			dnsb_change *ch = run_change(&r, i);
			dnsb_rrkey key = { ch->new_set.owner, ch->new_set.type };
			dnsb_rrset_list held = { 0 };
			assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
			int in_effect = held.count == 1 && dnsb_rrset_equal(&held.items[0], &ch->new_set);
			if (ch->outcome == DNSB_OUTCOME_APPLIED || ch->outcome == DNSB_OUTCOME_ALREADY_APPLIED)
				assert_true(in_effect);
			if (ch->outcome == DNSB_OUTCOME_DROPPED)
				assert_false(in_effect);
			dnsb_rrset_list_clear(&held);
		}
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_applied_in_one_submission),
		cmocka_unit_test(test_deferred_commit_flushed_before_outcomes),
		cmocka_unit_test(test_bisection_submission_counts),
		cmocka_unit_test(test_hint_isolates_culprit_in_two_submissions),
		cmocka_unit_test(test_wrong_hint_costs_one_request),
		cmocka_unit_test(test_verify_before_drop_already_applied),
		cmocka_unit_test(test_502_then_409_is_already_applied),
		cmocka_unit_test(test_502_then_409_update_and_delete),
		cmocka_unit_test(test_transient_exhausted_fails_with_bounded_retries),
		cmocka_unit_test(test_transient_before_commit_then_ok),
		cmocka_unit_test(test_retry_after_is_a_floor),
		cmocka_unit_test(test_rate_limit_past_deadline_ends_at_once),
		cmocka_unit_test(test_rate_limit_exhausted_fails_rate_limited),
		cmocka_unit_test(test_shared_pacing_waits_for_provider),
		cmocka_unit_test(test_backoff_deterministic_with_seed),
		cmocka_unit_test(test_backoff_delay_formula),
		cmocka_unit_test(test_retry_after_floor_and_cap),
		cmocka_unit_test(test_fatal_stops_the_zone),
		cmocka_unit_test(test_too_large_splits_without_drop_or_retry),
		cmocka_unit_test(test_invalid_dropped_without_read_back),
		cmocka_unit_test(test_no_zone_and_parser_invalid_cost_nothing),
		cmocka_unit_test(test_long_plan_mapped_in_halves),
		cmocka_unit_test(test_ownership_record_drops_with_its_record),
		cmocka_unit_test(test_invalid_record_drops_its_ownership_record),
		cmocka_unit_test(test_half_applied_group_is_settled_truthfully),
		cmocka_unit_test(test_batch_size_and_provider_limits),
		cmocka_unit_test(test_deadline_fails_what_is_not_reached),
		cmocka_unit_test(test_quarantine_holds_then_retries),
		cmocka_unit_test(test_dry_run_sends_nothing),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_invariant_random_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
