/*
 * test_engine_lost_reply_writers.c - a lost reply, then other writers at the
 * RRsets this run wrote (issue 31 §1; conformance scenarios 013 and 014): a
 * submission commits, its reply is lost (502), another client adds to or
 * replaces what this run wrote before the retry, and the retry is refused.
 * The read-back shows not exactly the desired state, yet this run's write
 * landed: nothing proves it did not, so the group is failed (transient,
 * unknown, retried next time), never dropped; and the logs say why.
 */
#include "engine_fixture.h"

/* Another client's write made just before a chosen submission (on_batch), added to the RRset it names. */
typedef struct writer {
	run *r;
	unsigned long at;          /* the submission it comes before */
	const char *owner;
	const char *rdata[2];      /* added to owner's A RRset, NULL-ended */
} writer;

static void add_a(dnsb_provider *p, const char *owner, const char *rdata)
{
	dnsb_rrkey key = { owner, 1 };
	dnsb_rrset_list held = { 0 };
	dnsb_rrset r = { 0 };

	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	if (held.count == 1) {
		assert_int_equal(dnsb_rrset_copy(&r, &held.items[0]), 0);
	} else {
		r.owner = strdup(owner);
		r.type = 1;
		r.ttl = 300;
	}
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
	dnsb_rrset_list_clear(&held);
}

static void before_submission(void *payload, const char *zone, unsigned long batch_no, dnsb_change *const *changes,
			      size_t n)
{
	writer *w = payload;

	(void)zone;
	(void)changes;
	(void)n;
	if (batch_no != w->at)
		return;
	for (size_t i = 0; i < 2 && w->rdata[i]; i++)
		add_a(w->r->p, w->owner, w->rdata[i]);
}

/* Does owner's A RRset hold rdata? */
static int holds(dnsb_provider *p, const char *owner, const char *rdata)
{
	dnsb_rrkey key = { owner, 1 };
	dnsb_rrset_list held = { 0 };
	int yes = 0;

	assert_int_equal(dnsb_provider_read(p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	for (size_t i = 0; held.count == 1 && i < held.items[0].rdata_count; i++)
		yes |= strcmp(held.items[0].rdata[i], rdata) == 0;
	dnsb_rrset_list_clear(&held);
	return yes;
}

/* Change i is failed/transient, and its message says the truth is unknown after a lost reply. */
static void assert_unknown(run *r, size_t i)
{
	const dnsb_change *c = run_change(r, i);

	if (c->outcome != DNSB_OUTCOME_FAILED || c->reason != DNSB_REASON_TRANSIENT)
		fail_msg("%s %s: %s/%s (%s), expected failed/transient", c->new_set.owner, dnsb_type_name(c->new_set.type),
			 dnsb_outcome_name(c->outcome), dnsb_reason_name(c->reason), c->message ? c->message : "");
	assert_non_null(c->message);
	assert_non_null(strstr(c->message, "unknown after a lost reply"));
	assert_non_null(strstr(c->message, "retried next time"));
	assert_int_equal(c->cause, DNSB_CAUSE_NONE);
	assert_int_equal(c->current.count, 0);
}

static dnsb_plan *update_plan(void)
{
	return parse_plan("{\"updateOld\": [{\"dnsName\": \"r0.example.com\", \"recordType\": \"A\", \"recordTTL\": 300, "
			  "\"targets\": [\"192.0.2.67\"]}], \"updateNew\": [{\"dnsName\": \"r0.example.com\", "
			  "\"recordType\": \"A\", \"recordTTL\": 300, \"targets\": [\"192.0.2.96\"]}]}");
}

/* Scenario 014's zone and plan: r0 A 192.0.2.67 (with its ownership TXT), updated to 192.0.2.96. */
static void init_update(run *r, const char *faults)
{
	dnsb_rrset txt = { 0 };

	run_init(r, faults, 0, 0);
	put_a(r->p, "r0.example.com.", "192.0.2.67");
	txt.owner = strdup("a-r0.example.com.");
	txt.type = 16;
	txt.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&txt, "\"heritage=external-dns,external-dns/owner=default\""), 0);
	assert_int_equal(dnsb_memory_put(r->p, &txt), 0);
	dnsb_rrset_clear(&txt);
	r->plan = update_plan();
}

/*
 * Scenario 014: the update commits, its reply is lost, another client adds a
 * record to the updated RRset before the retry; the retry is refused (the old
 * RRset is gone) and the read shows {this run's value, the other's}. It was
 * dropped (differs); this run's write is in effect.
 */
static void test_update_lost_reply_then_record_added(void **state)
{
	writer w = { 0 };
	run r;

	(void)state;
	init_update(&r, "1:commit-transient");
	w.r = &r;
	w.at = 2;
	w.owner = "r0.example.com.";
	w.rdata[0] = "198.51.100.2";
	r.o.on_batch = before_submission;
	r.o.payload = &w;
	run_apply(&r);
	assert_true(holds(r.p, "r0.example.com.", "192.0.2.96"));
	assert_true(holds(r.p, "r0.example.com.", "198.51.100.2"));
	assert_int_equal(r.rep.dropped, 0);
	assert_unknown(&r, 0);
	run_free(&r);
}

/*
 * The same with the other client's value replacing the RRset (a write= rule):
 * nothing of this run's write is left to see, yet nothing proves it did not
 * land either: failed, not dropped.
 */
static void test_update_lost_reply_then_rrset_replaced(void **state)
{
	run r;

	(void)state;
	init_update(&r, "1:commit-transient,2:write=r0.example.com. 300 A 198.51.100.2");
	run_apply(&r);
	assert_false(holds(r.p, "r0.example.com.", "192.0.2.96"));
	assert_int_equal(r.rep.dropped, 0);
	assert_unknown(&r, 0);
	run_free(&r);
}

/* The ownership TXT of NAME.example.com as a plan endpoint, followed by ", ". */
static void ownership(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "{\"dnsName\": \"a-%s.example.com\", \"recordType\": \"TXT\", \"targets\": "
		 "[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"], \"labels\": {\"ownedRecord\": "
		 "\"%s.example.com\"}}, ", name, name);
}

/*
 * Scenario 013: a batch of creates, one of them (r3) refused for a record held
 * before the run; the bisection's part holding r1 commits and its reply is
 * lost; two other clients add to r1's RRset before the retry, which is
 * refused. r1 (with its ownership TXT when `txt`) is failed, r3 dropped, r4
 * applied.
 */
static void lost_reply_then_two_writers(int txt)
{
	char plan[2048];
	writer w = { 0 };
	size_t r1 = 0, r3 = txt ? 2 : 1, r4 = txt ? 3 : 2;
	char own1[256] = "", own4[256] = "";
	run r;

	if (txt) {
		ownership(own1, sizeof(own1), "r1");
		ownership(own4, sizeof(own4), "r4");
	}
	snprintf(plan, sizeof(plan),
		 "{\"create\": [{\"dnsName\": \"r1.example.com\", \"recordType\": \"A\", \"targets\": [\"192.0.2.170\"]}, %s"
		 "{\"dnsName\": \"r3.example.com\", \"recordType\": \"A\", \"targets\": [\"192.0.2.51\"]}, "
		 "{\"dnsName\": \"r4.example.com\", \"recordType\": \"A\", \"targets\": [\"192.0.2.35\"]}%s%.*s]}",
		 own1, txt ? ", " : "", txt ? (int)strlen(own4) - 2 : 0, own4);
	run_init(&r, "2:commit-transient", 0, 0);
	put_a(r.p, "r3.example.com.", "192.0.2.11");
	r.plan = parse_plan(plan);
	w.r = &r;
	w.at = 3;
	w.owner = "r1.example.com.";
	w.rdata[0] = "198.51.100.1";
	w.rdata[1] = "198.51.100.3";
	r.o.on_batch = before_submission;
	r.o.payload = &w;
	run_apply(&r);
	assert_true(holds(r.p, "r1.example.com.", "192.0.2.170"));
	assert_true(holds(r.p, "r1.example.com.", "198.51.100.3"));
	assert_unknown(&r, r1);
	if (txt)
		assert_unknown(&r, r1 + 1);
	assert_int_equal(run_change(&r, r3)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, r3)->reason, DNSB_REASON_CONFLICT);
	assert_int_equal(run_change(&r, r4)->outcome, DNSB_OUTCOME_APPLIED);
	assert_int_equal(r.rep.dropped, 1);
	run_free(&r);
}

static void test_creates_lost_reply_then_two_writers(void **state)
{
	(void)state;
	lost_reply_then_two_writers(0);
}

static void test_creates_lost_reply_then_two_writers_with_registry(void **state)
{
	(void)state;
	lost_reply_then_two_writers(1);
}

/*
 * The rule keeps what a read proves: after a lost reply, a retry refused
 * while the read shows the whole desired state is already_applied (502, then
 * 409), and a transient answer that committed nothing followed by a refusal
 * of a conflict held before the run is still failed, not dropped (nothing
 * tells the two apart), and dropped by the next apply.
 */
static void test_lost_reply_then_refused_in_effect_is_already_applied(void **state)
{
	run r;

	(void)state;
	init_update(&r, "1:commit-transient");
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	assert_int_equal(r.rep.failed + r.rep.dropped, 0);
	run_free(&r);
}

static void test_transient_then_conflict_fails_then_drops(void **state)
{
	run r;

	(void)state;
	init_update(&r, "1:transient");
	put_a(r.p, "r0.example.com.", "198.51.100.7");
	run_apply(&r);
	assert_unknown(&r, 0);
	run_plan(&r, update_plan());
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 0)->reason, DNSB_REASON_CONFLICT);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_update_lost_reply_then_record_added),
		cmocka_unit_test(test_update_lost_reply_then_rrset_replaced),
		cmocka_unit_test(test_creates_lost_reply_then_two_writers),
		cmocka_unit_test(test_creates_lost_reply_then_two_writers_with_registry),
		cmocka_unit_test(test_lost_reply_then_refused_in_effect_is_already_applied),
		cmocka_unit_test(test_transient_then_conflict_fails_then_drops),
	};

	dnsb_log_set_level(DNSB_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
