/*
 * test_group_whole.c - the engine's edges (issue 19): a change group lands or
 * drops as one, an update that changes nothing writes nothing (and is
 * already_applied only when a read proves it), and external-dns v0.22's TXT
 * registry migration (txt/force-update) is a create of the new-format
 * ownership record. On the memory provider, whose request counts are the
 * engine's report.
 */
#include "engine_fixture.h"

#define HERITAGE "\\\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/app\\\""

/* "owner TXT value" (TTL 300) into the memory provider. */
static void put_txt(dnsb_provider *p, const char *owner, const char *value)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = 16;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, value), 0);
	assert_int_equal(dnsb_memory_put(p, &r), 0);
	dnsb_rrset_clear(&r);
}

static const char *noop_plan =
	"{\"updateOld\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":300}],"
	"\"updateNew\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":300}]}";

/* An update to what is held: already_applied, proved by one read, nothing sent. */
static void test_noop_update_proved_by_a_read(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_a(r.p, "app.example.com.", "192.0.2.5");
	run_plan(&r, parse_plan(noop_plan));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	assert_int_equal(r.rep.submissions, 0);
	assert_int_equal(r.rep.reads, 1);
	run_free(&r);
}

/* The same update of an absent record proves nothing: it is sent, refused, dropped (missing). */
static void test_noop_update_of_nothing_is_dropped(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan(noop_plan));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 0)->cause, DNSB_CAUSE_MISSING);
	assert_int_equal(r.rep.submissions, 1);
	run_free(&r);
}

/* Beside a real change of its group, a no-op update rides in the same submission: the answer proves it. */
static void test_noop_beside_a_write_is_proved_by_the_answer(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_a(r.p, "app.example.com.", "192.0.2.5");
	put_txt(r.p, "a-app.example.com.", "\"heritage=external-dns,external-dns/owner=default\"");
	run_plan(&r, parse_plan(
		"{\"updateOld\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":300},"
		"{\"dnsName\":\"a-app.example.com\",\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"],"
		"\"recordType\":\"TXT\",\"recordTTL\":300,\"labels\":{\"ownedRecord\":\"app.example.com\"}}],"
		"\"updateNew\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.6\"],\"recordType\":\"A\",\"recordTTL\":300},"
		"{\"dnsName\":\"a-app.example.com\",\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"],"
		"\"recordType\":\"TXT\",\"recordTTL\":300,\"labels\":{\"ownedRecord\":\"app.example.com\"}}]}"));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_APPLIED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	assert_int_equal(r.rep.submissions, 1);
	assert_int_equal(r.rep.reads, 0);
	run_free(&r);
}

/* external-dns v0.22's force-update of a record owned through an old-format TXT (registry/txt/registry.go). */
static const char *force_update =
	"{\"updateOld\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":300,"
	"\"labels\":{\"owner\":\"default\",\"resource\":\"service/default/app\"},"
	"\"providerSpecific\":[{\"name\":\"txt/force-update\",\"value\":\"true\"}]},"
	"{\"dnsName\":\"a-app.example.com\",\"targets\":[\"" HERITAGE "\"],\"recordType\":\"TXT\","
	"\"labels\":{\"ownedRecord\":\"app.example.com\"},\"providerSpecific\":[{\"name\":\"txt/force-update\",\"value\":\"true\"}]}],"
	"\"updateNew\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":300,"
	"\"labels\":{\"owner\":\"default\",\"resource\":\"service/default/app\"}},"
	"{\"dnsName\":\"a-app.example.com\",\"targets\":[\"" HERITAGE "\"],\"recordType\":\"TXT\","
	"\"labels\":{\"ownedRecord\":\"app.example.com\"}}]}";

static void test_registry_migration_converges(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_rrkey key = { "a-app.example.com.", 16 };
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_a(r.p, "app.example.com.", "192.0.2.5");
	put_txt(r.p, "app.example.com.", HERITAGE);
	run_plan(&r, parse_plan(force_update));
	run_apply(&r);
	assert_int_equal(r.rep.dropped, 0);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_ALREADY_APPLIED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_APPLIED);
	assert_int_equal(run_change(&r, 1)->kind, DNSB_CHANGE_UPDATE); /* as the plan has it, for the logs */
	assert_int_equal(r.rep.submissions, 1);
	assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	assert_int_equal(held.count, 1);
	dnsb_rrset_list_clear(&held);
	/* The next loop (a stale view sends it again): nothing to write. */
	run_plan(&r, parse_plan(force_update));
	run_apply(&r);
	assert_int_equal(r.rep.already_applied, 2);
	assert_int_equal(r.rep.submissions, 0);
	run_free(&r);
}

/* Not an upgrade when the record itself is not as the group expects: the group drops whole, no TXT made. */
static void test_no_upgrade_when_the_record_differs(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_rrkey key = { "a-app.example.com.", 16 };
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	put_a(r.p, "app.example.com.", "198.51.100.7");
	run_plan(&r, parse_plan(force_update));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(dnsb_provider_read(r.p, "example.com.", &key, 1, 0, &held, NULL, NULL), 0);
	assert_int_equal(held.count, 0);
	run_free(&r);
}

/* Nor when the record is not there at all: nothing held to compare (the read finds no RRset). */
static void test_no_upgrade_when_the_record_is_absent(void **state)
{
	run r;

	(void)state;
	run_init(&r, NULL, 0, 0);
	run_plan(&r, parse_plan(force_update));
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(dnsb_memory_rrset_count(r.p), 0);
	run_free(&r);
}

/*
 * A refusal of any one member, injected by the fault script after the group
 * was found part in effect: the part in effect is not reported
 * already_applied beside a dropped member, and nothing is written.
 */
static void test_refused_member_drops_the_part_in_effect(void **state)
{
	run r;

	(void)state;
	run_init(&r, "1-2:conflict", 1, 1);
	put_a(r.p, "h0.example.com.", "192.0.2.1");
	run_apply(&r);
	assert_int_equal(run_change(&r, 0)->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(run_change(&r, 1)->outcome, DNSB_OUTCOME_DROPPED);
	assert_non_null(strstr(run_change(&r, 0)->message, "dropped with its group"));
	assert_int_equal(dnsb_memory_rrset_count(r.p), 1);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noop_update_proved_by_a_read),
		cmocka_unit_test(test_noop_update_of_nothing_is_dropped),
		cmocka_unit_test(test_noop_beside_a_write_is_proved_by_the_answer),
		cmocka_unit_test(test_registry_migration_converges),
		cmocka_unit_test(test_no_upgrade_when_the_record_differs),
		cmocka_unit_test(test_no_upgrade_when_the_record_is_absent),
		cmocka_unit_test(test_refused_member_drops_the_part_in_effect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
