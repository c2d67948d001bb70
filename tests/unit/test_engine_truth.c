/*
 * test_engine_truth.c - never call an applied change dropped or failed
 * (issue 7 §1): every exit after a transient answer reads back first, a
 * group is judged over its whole desired final state, a lone group is dropped
 * only after its own refusal or a read that shows why, the quarantine holds
 * only what conflicts, and "could not read" is never "not in effect".
 */
#include "engine_fixture.h"

/* Delete + create of one RRset in one group, committed, reply lost (502), then 409: both in effect. */
static void test_delete_and_create_of_one_rrset_502_then_409(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient", 0, 0);
	put_a(r.p, "x.example.com.", "192.0.2.1");
	run_plan(&r, parse_plan("{\"delete\":[{\"dnsName\":\"x.example.com\",\"recordType\":\"A\","
				"\"targets\":[\"192.0.2.1\"],\"recordTTL\":300}],"
				"\"create\":[{\"dnsName\":\"x.example.com\",\"recordType\":\"A\","
				"\"targets\":[\"192.0.2.2\"],\"recordTTL\":300}]}"));
	run_apply(&r);
	assert_true(holds_a(r.p, "x.example.com.", "192.0.2.2"));
	assert_int_equal(r.rep.already_applied, 2);
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* The deadline comes during the wait after a lost success reply: read back, not failed/deadline. */
static void test_deadline_after_lost_reply_reads_back(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient", 3, 0);
	r.o.timeout = 0.5;
	r.o.seed = 42; /* first wait U(0,1) s = 0.742 s: past the deadline */
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 3);
	assert_int_equal(r.rep.failed, 0);
	assert_int_equal(r.rep.submissions, 1);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* The example: commit then lost reply, then rate limits until the waits run out. */
static void test_rate_limit_waits_out_after_lost_reply(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient,2-99:rate-limit=0.001", 1, 0);
	r.o.max_rate_limit_waits = 3;
	run_apply(&r);
	assert_true(holds_a(r.p, "h0.example.com.", "192.0.2.1"));
	assert_int_equal(r.rep.already_applied, 1);
	assert_int_equal(r.rep.failed, 0);
	assert_int_equal(r.rep.submissions, 5); /* 502, then 429 four times: three waits allowed */
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* A fatal answer after a lost success reply: what was committed is already_applied, not failed/fatal. */
static void test_fatal_after_lost_reply_reads_back(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient,2:fatal", 2, 1);
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 4);
	assert_int_equal(r.rep.failed, 0);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* Transient retries run out and the read fails too: unknown, so failed/transient, never dropped. */
static void test_unreadable_after_transient_is_failed_transient(void **state)
{
	run r;

	(void)state;
	run_init(&r, "*:commit-transient,1:read-transient", 2, 0);
	r.o.max_retries = 1;
	run_apply(&r);
	assert_int_equal(r.rep.failed, 2);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_TRANSIENT);
	assert_non_null(strstr(run_change(&r, 0)->message, "and reading back failed"));
	run_free(&r);
}

/* A conflict that went away (another writer) between submissions: nothing is dropped. */
static void test_conflict_gone_drops_nothing(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:conflict", 2, 0);
	run_apply(&r);
	/* whole(409, injected) [h0](ok), h1 found by elimination: the read shows no cause, so it is sent alone (ok) */
	assert_int_equal(r.rep.applied, 2);
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(r.rep.submissions, 3);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* 502 then 409, and the read-back fails: 2 submissions, 1 read, every change failed/transient, no bisection. */
static void test_unknown_verification_never_bisects(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:commit-transient,1:read-transient", 1000, 0);
	r.o.batch_size = 1000;
	run_apply(&r);
	assert_int_equal(r.rep.submissions, 2);
	assert_int_equal(r.rep.reads, 1);
	assert_int_equal(r.rep.bisections, 0);
	assert_int_equal(r.rep.failed, 1000);
	assert_int_equal(run_change(&r, 999)->reason, DNSB_REASON_TRANSIENT);
	run_free(&r);
}

/* Retries are the batch's: a bisection does not get a fresh budget for every part. */
static void test_retries_bounded_per_batch(void **state)
{
	run r;

	(void)state;
	run_init(&r, "2-99:transient", 8, 0);
	put_a(r.p, "h7.example.com.", "198.51.100.1");
	r.o.max_retries = 3;
	run_apply(&r);
	/* whole (409), then the first half meets 503 four times: three retries for the whole batch */
	assert_int_equal(r.rep.submissions, 5);
	assert_int_equal(r.rep.retries, 3);
	assert_int_equal(r.rep.failed, 8);
	run_free(&r);
}

/* Retry-After is a floor, but at most 10 x --backoff-cap, and never past the deadline. */
static void test_retry_after_capped(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1:rate-limit=50000", 1, 0);
	r.o.backoff_cap = 2;
	run_apply(&r);
	assert_int_equal(r.c.sleeps, 1);
	assert_true(r.c.slept[0] == 20.0);
	assert_int_equal(r.rep.applied, 1);
	run_free(&r);

	run_init(&r, "1:rate-limit=30", 1, 0);
	r.o.timeout = 10;
	run_apply(&r);
	assert_int_equal(r.c.sleeps, 0);
	assert_int_equal(r.rep.failed, 1);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_DEADLINE);
	run_free(&r);
}

/* Another batch slows the provider down just before our read: the read waits too. */
static void hold_provider(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes,
			  size_t n)
{
	run *r = payload;

	(void)zone;
	(void)batch_no;
	(void)changes;
	(void)n;
	dnsb_pacing_hold(r->p, r->c.t + 5.0);
}

static void test_reads_wait_for_pacing(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 1, 0);
	put_a(r.p, "h0.example.com.", "198.51.100.1");
	r.o.on_batch = hold_provider;
	r.o.payload = &r;
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(r.rep.reads, 1);
	assert_int_equal(r.c.sleeps, 1);
	assert_true(r.c.slept[0] == 5.0);
	run_free(&r);
}

/* A group half in effect whose other half conflicts: it drops and is held whole, nothing of it is sent again. */
static void test_quarantine_holds_the_group_whole(void **state)
{
	dnsb_quarantine *q = NULL;
	dnsb_rrset txt = { 0 };
	run r;

	(void)state;
	run_init(&r, NULL, 1, 1);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	put_a(r.p, "h0.example.com.", "198.51.100.1");
	txt.owner = strdup("a-h0.example.com.");
	txt.type = 16;
	txt.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&txt, "\"heritage=external-dns,external-dns/owner=default\""), 0);
	assert_int_equal(dnsb_memory_put(r.p, &txt), 0);
	dnsb_rrset_clear(&txt);
	run_apply(&r);
	/* The TXT is in effect, but its group cannot land: it drops with the A (a group is one). */
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_CONFLICT);
	assert_non_null(strstr(run_change(&r, 1)->message, "dropped with its group"));

	r.c.t += 10;
	run_plan(&r, plan_of_creates(1, 1));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_QUARANTINED);
	assert_int_equal(run_change(&r, 1)->reason, DNSB_REASON_QUARANTINED);
	assert_int_equal(r.rep.dropped, 2);
	assert_int_equal(dnsb_quarantine_count(q, r.c.t), 1);
	run_free(&r);
	dnsb_quarantine_free(q);
}

/* examples/plans/conflicts.json twice through the quarantine: the groups that conflicted are held whole. */
static void test_conflicts_example_second_loop(void **state)
{
	dnsb_quarantine *q = NULL;
	dnsb_plan *plan = NULL;
	size_t quarantined = 0, already = 0;
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	assert_int_equal(dnsb_memory_load(r.p, "example.com.", "examples/zones/example.com.zone", NULL), 0);
	assert_int_equal(dnsb_quarantine_new(&q, 60, 3600), 0);
	r.o.quarantine = q;
	assert_int_equal(dnsb_plan_load(&plan, "examples/plans/conflicts.json", NULL), 0);
	run_plan(&r, plan);
	run_apply(&r);
	r.c.t += 10;
	assert_int_equal(dnsb_plan_load(&plan, "examples/plans/conflicts.json", NULL), 0);
	run_plan(&r, plan);
	run_apply(&r);
	for (size_t i = 0; i < dnsb_plan_count(r.plan); i++) {
		quarantined += run_change(&r, i)->reason == DNSB_REASON_QUARANTINED;
		already += run_change(&r, i)->outcome == DNSB_OUTCOME_ALREADY_APPLIED;
	}
	/* Every change of a group that conflicted is held, the one in effect beside the conflict too. */
	assert_int_equal(quarantined, 8);
	print_message("second loop: %zu quarantined, %zu already applied\n", quarantined, already);
	run_free(&r);
	dnsb_quarantine_free(q);
}

/* Group ids are the engine's: the record and its ownership record share one, other names get others. */
static void test_group_ids_are_set(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 3, 1);
	run_apply(&r);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(run_change(&r, i)->group, i / 2);
	run_free(&r);
}

/*
 * The soak over seeded fault schedules, stronger than test_engine's: with
 * reads that always answer, a change ends failed only when it is not in effect.
 */
static void test_soak_committed_is_never_failed(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 400; seed++) {
		char faults[200];
		run r;

		snprintf(faults, sizeof(faults),
			 "p0.2:commit-transient,p0.1:transient,p0.1:rate-limit=0.2,p0.05:conflict,%sseed=%u",
			 seed % 7 == 0 ? "p0.05:fatal," : "", seed);
		run_init(&r, faults, 24, seed % 2);
		if (seed % 3 == 0)
			put_a(r.p, "h5.example.com.", "198.51.100.5");
		r.o.seed = seed;
		r.o.batch_size = 1 + seed % 9;
		r.o.max_retries = 2;
		r.o.max_rate_limit_waits = 2;
		run_apply(&r);
		for (size_t i = 0; i < dnsb_plan_count(r.plan); i++) {
			dnsb_change *ch = run_change(&r, i);
			dnsb_rrkey key = { ch->new_set.owner, ch->new_set.type };
			dnsb_rrset_list held = { 0 };
			int in_effect;

			assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
			in_effect = held.count == 1 && dnsb_rrset_equal(&held.items[0], &ch->new_set);
			if (ch->outcome == DNSB_OUTCOME_FAILED || ch->outcome == DNSB_OUTCOME_DROPPED) {
				if (in_effect)
					fail_msg("seed %u: change %zu %s is in effect but %s/%s", seed, i, ch->new_set.owner,
						 dnsb_outcome_name(ch->outcome), dnsb_reason_name(ch->reason));
			} else {
				assert_true(in_effect);
			}
			dnsb_rrset_list_clear(&held);
		}
		run_free(&r);
	}
}


/* Put "owner TTL TXT rdata" into the memory provider. */
static void put_txt_ttl(dnsb_provider *p, const char *owner, uint32_t ttl, const char *rdata)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = 16;
	r.ttl = ttl;
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

/*
 * external-dns's TXT registry sends its ownership records in delete and
 * updateOld with recordTTL 0 (or none): "not set", whatever TTL the zone
 * holds. Both apply; a stated TTL that differs still conflicts.
 */
#define OWN_JSON "\"\\\"heritage=external-dns,external-dns/owner=default\\\"\""
static void test_old_ttl_unset_matches_any_ttl(void **state)
{
	const char *own = "\"heritage=external-dns,external-dns/owner=default\"";
	dnsb_rrkey key = { "a-gone.example.com.", 16 };
	dnsb_rrset_list held = { 0 };
	char plan[1024];
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_txt_ttl(r.p, "a-gone.example.com.", 3600, own);
	put_txt_ttl(r.p, "a-kept.example.com.", 0, own);
	put_txt_ttl(r.p, "a-wrong.example.com.", 3600, own);
	snprintf(plan, sizeof(plan),
		 "{\"delete\":[{\"dnsName\":\"a-gone.example.com\",\"recordType\":\"TXT\",\"targets\":[%s]},"
		 "{\"dnsName\":\"a-wrong.example.com\",\"recordType\":\"TXT\",\"targets\":[%s],\"recordTTL\":300}],"
		 "\"updateOld\":[{\"dnsName\":\"a-kept.example.com\",\"recordType\":\"TXT\",\"targets\":[%s],"
		 "\"recordTTL\":0}],"
		 "\"updateNew\":[{\"dnsName\":\"a-kept.example.com\",\"recordType\":\"TXT\",\"targets\":[%s],"
		 "\"recordTTL\":300}]}",
		 OWN_JSON, OWN_JSON, OWN_JSON, OWN_JSON);
	run_plan(&r, parse_plan(plan));
	assert_int_equal(run_change(&r, 0)->old.ttl, DNSB_TTL_UNSET);
	run_apply(&r);
	assert_int_equal(r.rep.applied, 2);
	assert_int_equal(r.rep.dropped, 1);
	assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	assert_int_equal(held.count, 0);
	key.owner = "a-kept.example.com.";
	assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	assert_int_equal(held.count, 1);
	assert_int_equal(held.items[0].ttl, 300);
	dnsb_rrset_list_clear(&held);
	run_free(&r);
}


/* Put "owner TTL TYPE rdata" into the memory provider. */
static void put_rr(dnsb_provider *p, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = type;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

static dnsb_change *change_at(run *r, const char *owner, uint16_t type)
{
	for (size_t i = 0; i < dnsb_plan_count(r->plan); i++) {
		dnsb_change *c = run_change(r, i);
		const dnsb_rrset *s = c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
		if (strcmp(s->owner, owner) == 0 && s->type == type)
			return c;
	}
	fail_msg("no change at %s", owner);
	return NULL;
}

#define HERITAGE(owner, resource) "\"heritage=external-dns,external-dns/owner=" owner ",external-dns/resource=" resource "\""
#define EP(name, type, target) "{\"dnsName\":\"" name "\",\"recordType\":\"" type "\",\"targets\":[\"" target "\"]}"
#define OWN_EP(name, owned) "{\"dnsName\":\"" name "\",\"recordType\":\"TXT\",\"labels\":{\"ownedRecord\":\"" owned "\"}," \
	"\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=me\\\"\"]}"

/*
 * Each dropped change says what is in its way (cause), what the zone holds at
 * its name (current) and who owns that name by external-dns's ownership
 * records (txt_owner), from the read that proved the drop: no extra read.
 */
static void test_drops_say_what_is_in_the_way(void **state)
{
	run r;
	dnsb_change *c;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_rr(r.p, "taken.example.com.", 1, "192.0.2.77");
	put_rr(r.p, "a-taken.example.com.", 16, HERITAGE("other", "ingress/default/legacy"));
	put_rr(r.p, "web.example.com.", 1, "192.0.2.80");
	put_rr(r.p, "pre-a-web.example.com.", 16, HERITAGE("blue", "service/web"));
	put_rr(r.p, "alias.example.com.", 1, "192.0.2.81");
	put_rr(r.p, "moved.example.com.", 1, "192.0.2.82");
	run_plan(&r, parse_plan("{\"create\":[" EP("taken.example.com", "A", "192.0.2.1") ","
				OWN_EP("a-taken.example.com", "taken.example.com") ","
				EP("web.example.com", "AAAA", "2001:db8::1") ","
				OWN_EP("pre-a-web.example.com", "web.example.com") ","
				EP("alias.example.com", "CNAME", "taken.example.com") ","
				EP("free.example.com", "A", "192.0.2.2") "],"
				"\"updateOld\":[" EP("moved.example.com", "A", "192.0.2.9") "," EP("gone.example.com", "A", "192.0.2.8") "],"
				"\"updateNew\":[" EP("moved.example.com", "A", "192.0.2.10") "," EP("gone.example.com", "A", "192.0.2.11") "]}"));
	run_apply(&r);
	assert_int_equal(r.rep.applied, 1);

	c = change_at(&r, "taken.example.com.", 1);
	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_string_equal(dnsb_cause_name(c->cause), "exists");
	assert_int_equal(c->current.count, 1);
	assert_string_equal(c->current.items[0].rdata[0], "192.0.2.77");
	assert_string_equal(c->txt_owner, "other");
	assert_string_equal(c->txt_resource, "ingress/default/legacy");
	c = change_at(&r, "a-taken.example.com.", 16);
	assert_string_equal(dnsb_cause_name(c->cause), "exists");
	assert_string_equal(c->txt_owner, "other");

	/* The group's own ownership record shows the registry's prefix: "pre-a-". */
	c = change_at(&r, "web.example.com.", 28);
	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_string_equal(c->txt_owner, "blue");

	c = change_at(&r, "alias.example.com.", 5);
	assert_string_equal(dnsb_cause_name(c->cause), "cname");
	assert_int_equal(c->current.count, 1);
	assert_int_equal(c->current.items[0].type, 1);
	assert_null(c->txt_owner);

	c = change_at(&r, "moved.example.com.", 1);
	assert_string_equal(dnsb_cause_name(c->cause), "differs");
	assert_string_equal(c->current.items[0].rdata[0], "192.0.2.82");
	c = change_at(&r, "gone.example.com.", 1);
	assert_string_equal(dnsb_cause_name(c->cause), "missing");
	assert_int_equal(c->current.count, 0);
	/* Every drop was proved by a read; the diagnosis added none. */
	assert_true(r.rep.reads <= r.rep.dropped);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delete_and_create_of_one_rrset_502_then_409),
		cmocka_unit_test(test_deadline_after_lost_reply_reads_back),
		cmocka_unit_test(test_rate_limit_waits_out_after_lost_reply),
		cmocka_unit_test(test_fatal_after_lost_reply_reads_back),
		cmocka_unit_test(test_unreadable_after_transient_is_failed_transient),
		cmocka_unit_test(test_conflict_gone_drops_nothing),
		cmocka_unit_test(test_unknown_verification_never_bisects),
		cmocka_unit_test(test_retries_bounded_per_batch),
		cmocka_unit_test(test_retry_after_capped),
		cmocka_unit_test(test_reads_wait_for_pacing),
		cmocka_unit_test(test_quarantine_holds_the_group_whole),
		cmocka_unit_test(test_conflicts_example_second_loop),
		cmocka_unit_test(test_group_ids_are_set),
		cmocka_unit_test(test_soak_committed_is_never_failed),
		cmocka_unit_test(test_old_ttl_unset_matches_any_ttl),
		cmocka_unit_test(test_drops_say_what_is_in_the_way),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
