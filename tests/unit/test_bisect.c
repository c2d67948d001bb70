/*
 * test_bisect.c - isolating refused groups (issue 7 §2): culprit lists with
 * several entries, a wrong list costs one request, adaptive splitting, and an
 * explicit work list that survives 20,000 conflicting groups in one batch.
 */
#include "engine_fixture.h"

/* n creations, with the groups at `bad` already held with other data (conflicts). */
static void run_conflicts(run *r, const char *faults, size_t n, const size_t *bad, size_t k, int hints)
{
	run_init(r, faults, n, 0);
	r->o.batch_size = n;
	dnsb_memory_set_hints(r->p, hints);
	for (size_t i = 0; i < k; i++) {
		char owner[32];
		snprintf(owner, sizeof(owner), "h%zu.example.com.", bad[i]);
		put_a(r->p, owner, "198.51.100.99");
	}
	run_apply(r);
	assert_int_equal(r->rep.dropped, k);
	assert_int_equal(r->rep.applied, n - k);
	for (size_t i = 0; i < k; i++)
		assert_int_equal(run_change(r, bad[i])->reason, DNSB_REASON_CONFLICT);
}

/* One reply names all five culprits: one refusal, one submission of the rest, one read. */
static void test_several_culprits_in_one_reply(void **state)
{
	static const size_t bad[] = { 3, 17, 40, 41, 99 };
	run r;

	(void)state;
	run_conflicts(&r, NULL, 100, bad, 5, 1);
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.rep.reads, 1);
	/* Each drop carries what the reply said of it, not of the batch's first culprit. */
	for (size_t i = 0; i < 5; i++) {
		char owner[32];
		snprintf(owner, sizeof(owner), "h%zu.example.com.", bad[i]);
		assert_non_null(run_change(&r, bad[i])->message);
		if (strstr(run_change(&r, bad[i])->message, owner) == NULL)
			fail_msg("change %zu dropped with \"%s\"", bad[i], run_change(&r, bad[i])->message);
	}
	run_free(&r);
}

/* A reply that always names the wrong change: followed once, then the batch is split as without lists. */
static void test_wrong_culprit_costs_at_most_one_request(void **state)
{
	static const size_t bad[] = { 700 };
	unsigned long plain, wrong;
	run r;

	(void)state;
	run_conflicts(&r, NULL, 1000, bad, 1, 0);
	plain = r.rep.submissions;
	run_free(&r);
	run_conflicts(&r, "*:wrong-hint", 1000, bad, 1, 1);
	wrong = r.rep.submissions;
	run_free(&r);
	/* Today's engine followed every wrong name: 1999 submissions for this case. */
	assert_int_equal(plain, 12);
	if (wrong > plain + 1)
		fail_msg("with a wrong list %lu submissions, without lists %lu", wrong, plain);
}

/* Without lists: one culprit in 1000 costs the binary search and one more, near L = 11. */
static void test_adaptive_cost_without_lists(void **state)
{
	static const size_t one[] = { 123 };
	static const size_t ten[] = { 5, 77, 150, 151, 300, 420, 555, 700, 888, 999 };
	run r;

	(void)state;
	run_conflicts(&r, NULL, 1000, one, 1, 0);
	/* whole(F); [0,500)(F) [0,250)(F) [0,125)(F) [0,62)ok [62,93)ok [93,109)ok [109,117)ok [117,121)ok
	 * [121,123)ok [123](F): dropped; then [124,624) (chunk 500) ok, [624,1000) ok */
	assert_int_equal(r.rep.submissions, 13);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
	run_conflicts(&r, NULL, 1000, ten, 10, 0);
	assert_true(r.rep.submissions <= 95); /* L = 79; the target is 1.20 L */
	run_free(&r);
}

/* 20,000 conflicting groups in one batch, a provider without a batch limit (PowerDNS has none). */
static void test_twenty_thousand_conflicts_one_batch(void **state)
{
	static const dnsb_provider_limits none = { .max_changes = 0 }; /* no limit of any kind */
	const size_t n = 20000;
	run r;

	(void)state;
	run_init(&r, NULL, n, 0);
	dnsb_provider_set_limits(r.p, &none);
	r.o.batch_size = n;
	for (size_t i = 0; i < n; i++) {
		char owner[32];
		snprintf(owner, sizeof(owner), "h%zu.example.com.", i);
		put_a(r.p, owner, "198.51.100.99");
	}
	run_apply(&r);
	assert_int_equal(r.rep.batches, 1);
	assert_int_equal(r.rep.dropped, n);
	run_free(&r);
}

/* More than 64 memory zones through the registry: all held, none silently lost. */
static void test_memory_many_zones(void **state)
{
	dnsb_config *cfg = NULL;
	dnsb_provider *p = NULL;
	dnsb_error err = { 0 };
	char zone[32];

	(void)state;
	assert_int_equal(dnsb_config_new(&cfg), 0);
	for (int i = 0; i < 70; i++) {
		snprintf(zone, sizeof(zone), "z%d.example.", i);
		assert_int_equal(dnsb_config_add(cfg, "memory-zone", zone), 0);
	}
	assert_int_equal(dnsb_provider_open(&p, "memory", cfg, &err), 0);
	assert_int_equal(dnsb_provider_zone_count(p), 70);
	assert_string_equal(dnsb_provider_zone(p, 69), "z69.example.");
	dnsb_provider_free(p);
	dnsb_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several_culprits_in_one_reply),
		cmocka_unit_test(test_wrong_culprit_costs_at_most_one_request),
		cmocka_unit_test(test_adaptive_cost_without_lists),
		cmocka_unit_test(test_twenty_thousand_conflicts_one_batch),
		cmocka_unit_test(test_memory_many_zones),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
