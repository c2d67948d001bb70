/*
 * test_engine_reads.c - the groups a culprit list names one at a time (the
 * zone file, RFC 2136 probes) are read back together at the batch's end once
 * the provider's lists have proved right; a wrong list is found by the read
 * and costs requests, never a wrong outcome; a failed read fails what was
 * refused on its own.
 */
#include "engine_fixture.h"

/* A scripted provider whose conflicts are the RRsets in s.held; its refusals name one culprit. */
typedef struct one_at_a_time {
	scripted s;                 /* first: decide gets &s */
	unsigned long wrong_from;   /* from this submission on (1-based), name a change that applies; 0 = never */
	unsigned long read_fails_from; /* from this read on (1-based), reads fail; 0 = never */
	unsigned long reads;
} one_at_a_time;

static int held_owner(const scripted *s, const char *owner)
{
	return dnsb_rrset_list_find(&s->held, owner, 1) != NULL;
}

static dnsb_class first_culprit(scripted *s, dnsb_change *const *changes, size_t n, dnsb_result *out)
{
	one_at_a_time *o = (one_at_a_time *)s;

	for (size_t i = 0; i < n; i++) {
		if (!held_owner(s, changes[i]->new_set.owner))
			continue;
		dnsb_result_set(out, DNSB_CLASS_CONFLICT, 409, "alreadyExists", "%s exists", changes[i]->new_set.owner);
		if (o->wrong_from && s->calls >= o->wrong_from) {
			for (size_t j = 0; j < n; j++)
				if (!held_owner(s, changes[j]->new_set.owner)) {
					dnsb_result_add_culprit(out, j);
					break;
				}
		} else {
			dnsb_result_add_culprit(out, i);
		}
		return DNSB_CLASS_CONFLICT;
	}
	return DNSB_CLASS_OK;
}

static int counted_read(void *state, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
			dnsb_rrset_list *out, dnsb_error *err)
{
	one_at_a_time *o = state;

	if (o->read_fails_from && ++o->reads >= o->read_fails_from)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "read refused by the test");
	return scripted_read(state, zone, keys, n, timeout, out, err);
}

static const dnsb_provider_ops one_ops =
	DNSB_PROVIDER_OPS_INIT("one-at-a-time", scripted_submit, counted_read, scripted_list, scripted_close);

/* n creations in batches of 100; h<i> conflicts for each i in bad (an A record is held there). */
static void run_one(run *r, one_at_a_time *o, size_t n, const size_t *bad, size_t k)
{
	char owner[64];

	run_init(r, NULL, n, 0);
	dnsb_provider_free(r->p);
	assert_int_equal(dnsb_provider_alloc(&r->p, &one_ops, o), 0);
	assert_int_equal(dnsb_provider_add_zone(r->p, "example.com", NULL), 0);
	set_names_culprit(r->p, 1);
	r->o.batch_size = 100;
	o->s.decide = first_culprit;
	for (size_t i = 0; i < k; i++) {
		dnsb_rrset held = { 0 };
		snprintf(owner, sizeof(owner), "h%zu.example.com.", bad[i]);
		held.owner = strdup(owner);
		held.type = 1;
		held.ttl = 300;
		assert_int_equal(dnsb_rrset_add_rdata(&held, "198.51.100.1"), 0);
		assert_int_equal(dnsb_rrset_list_push(&o->s.held, &held), 0);
	}
	run_apply(r);
}

/* 10 conflicts in each of the first two batches, 1 in the third. */
static size_t spread(size_t *bad)
{
	size_t k = 0;

	for (size_t i = 5; i < 200; i += 10)
		bad[k++] = i;
	bad[k++] = 250;
	return k;
}

static void assert_dropped_exactly(run *r, const size_t *bad, size_t k, size_t n)
{
	for (size_t i = 0, j = 0; i < n; i++) {
		int is_bad = j < k && bad[j] == i;
		assert_int_equal(run_change(r, i)->outcome, is_bad ? DNSB_OUTCOME_DROPPED : DNSB_OUTCOME_APPLIED);
		j += is_bad;
	}
}

static void test_named_culprits_read_together(void **state)
{
	one_at_a_time o = { 0 };
	size_t bad[32], k = spread(bad);
	run r;

	(void)state;
	run_one(&r, &o, 300, bad, k);
	assert_int_equal(r.rep.dropped, 21);
	assert_int_equal(r.rep.applied, 279);
	assert_dropped_exactly(&r, bad, k, 300);
	/* Each refusal names one: 3 batches + 21 refusals. */
	assert_int_equal(r.rep.submissions, 24);
	/* Batch 1: read at once after names 1 and 3 (the list not yet proven), then at its end after names 4-6
	 * and 7-10 waited (1, 2, 4 may wait); batch 2: after name 9 (8 may wait) and at its end; batch 3: at its
	 * end. One read per refusal before: 21. */
	assert_int_equal(r.rep.reads, 7);
	/* Each keeps what is in its way. */
	assert_int_equal(run_change(&r, 5)->cause, DNSB_CAUSE_EXISTS);
	run_free(&r);
}

static void test_wrong_list_after_trust_costs_requests_not_outcomes(void **state)
{
	one_at_a_time o = { 0 };
	size_t bad[32], k = spread(bad);
	run r;

	(void)state;
	o.wrong_from = 13; /* batch 1 (submissions 1-11) names right; batch 2 wrong from its second refusal */
	run_one(&r, &o, 300, bad, k);
	assert_int_equal(r.rep.dropped, 21);
	assert_int_equal(r.rep.applied, 279);
	assert_dropped_exactly(&r, bad, k, 300);
	run_free(&r);
}

static void test_failed_read_fails_not_drops(void **state)
{
	one_at_a_time o = { 0 };
	size_t bad[32], k = spread(bad);
	run r;

	(void)state;
	o.read_fails_from = 1;
	run_one(&r, &o, 300, bad, k);
	/* Nothing is dropped unverified: each culprit was refused on its own, and the read that would show it
	 * failed, so it ends failed (transient); everything else applied. */
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(r.rep.failed, 21);
	assert_int_equal(r.rep.applied, 279);
	for (size_t i = 0; i < k; i++) {
		assert_int_equal(run_change(&r, bad[i])->outcome, DNSB_OUTCOME_FAILED);
		assert_int_equal(run_change(&r, bad[i])->reason, DNSB_REASON_TRANSIENT);
	}
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_culprits_read_together),
		cmocka_unit_test(test_wrong_list_after_trust_costs_requests_not_outcomes),
		cmocka_unit_test(test_failed_read_fails_not_drops),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
