/*
 * test_rfc2136_snapshot.c - the rfc2136 provider's snapshot of a zone
 * against a real BIND: taken at the first refused UPDATE, kept in step with
 * the provider's own commits, and never trusted alone: a change it says
 * conflicts is named without sending only when a read shows the conflict
 * (changed out of band: sent, and the server decides), and a refusal it did
 * not foresee makes it transfer the zone again. Out-of-band writes go
 * through a second provider without a snapshot (probes name its culprits).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/provider.h"
#include "integration/bind_fixture.h"
#include "providers/rfc2136/internal.h"
#include "unit/change_fixture.h"


enum { N = 3 };

/* A batch of three: create fresh names around `middle` (its own change). */
static void batch(dnsb_change **cs, const char *prefix, dnsb_change *middle)
{
	char owner[64];

	snprintf(owner, sizeof(owner), "%s1.example.test.", prefix);
	cs[0] = change_with_ttl(DNSB_CHANGE_CREATE, owner, LDNS_RR_TYPE_A, NULL, "10.0.0.1", 300);
	cs[1] = middle;
	snprintf(owner, sizeof(owner), "%s2.example.test.", prefix);
	cs[2] = change_with_ttl(DNSB_CHANGE_CREATE, owner, LDNS_RR_TYPE_A, NULL, "10.0.0.2", 300);
}

static dnsb_change *create(const char *owner, const char *rdata)
{
	return change_with_ttl(DNSB_CHANGE_CREATE, owner, LDNS_RR_TYPE_A, NULL, rdata, 300);
}

static dnsb_result submit(dnsb_provider *p, dnsb_change **cs, size_t n)
{
	dnsb_result res;
	dnsb_error err = { 0, "" };

	if (dnsb_provider_submit(p, "example.test.", cs, n, 0, &res, NULL, &err) != 0)
		fail_msg("submit: %s", err.message);
	return res;
}

/* Does the server hold owner A? */
static int held(dnsb_provider *p, const char *owner)
{
	dnsb_rrset_list out = { 0 };
	dnsb_rrkey key = { owner, LDNS_RR_TYPE_A };
	dnsb_error err = { 0, "" };
	int found;

	assert_int_equal(dnsb_provider_read(p, "example.test.", &key, 1, 0, &out, NULL, &err), 0);
	found = out.count > 0;
	dnsb_rrset_list_clear(&out);
	return found;
}

static void assert_named(const dnsb_result *res, size_t index, const char *code, int sent)
{
	if (res->cls != DNSB_CLASS_CONFLICT)
		fail_msg("class %d, expected a conflict: %s", res->cls, res->message);
	assert_int_equal(res->culprit_count, 1);
	assert_int_equal(res->culprits[0], index);
	assert_string_equal(res->code, code);
	/* A refusal the server answered has its rcode as status; a pre-check sent nothing. */
	assert_int_equal(res->status != 0, sent);
	assert_int_equal(strstr(res->message, "nothing sent") != NULL, !sent);
}

static void test_snapshot_is_checked_by_reads(void **state)
{
	static const char *const no_snapshot[] = { "rfc2136-snapshot-max", "0", NULL };
	dnsb_provider *p = bind_provider(&bind_group_server, NULL), *other = bind_provider(&bind_group_server, no_snapshot);
	dnsb_change *cs[N], *one[1];
	dnsb_result res;

	(void)state;
	/* 1. The server refuses; the zone is transferred and names the culprit. */
	batch(cs, "a", create("taken.example.test.", "192.0.2.99"));
	res = submit(p, cs, N);
	assert_named(&res, 1, "YXRRSET", 1);
	assert_non_null(strstr(dnsb_result_note(&res, 1), "zone transfer shows"));
	changes_free(cs, N);

	/* 2. Now known: named before sending, and nothing of the batch is sent. */
	batch(cs, "b", create("taken.example.test.", "192.0.2.99"));
	res = submit(p, cs, N);
	assert_named(&res, 1, "YXRRSET", 0);
	assert_int_equal(held(p, "b1.example.test."), 0);
	changes_free(cs, N);

	/* 3. Deleted out of band: the read before sending finds it gone, so the batch is sent and lands. */
	one[0] = change_with_ttl(DNSB_CHANGE_DELETE, "taken.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", NULL, 300);
	assert_int_equal(submit(other, one, 1).cls, DNSB_CLASS_OK);
	changes_free(one, 1);
	batch(cs, "c", create("taken.example.test.", "192.0.2.99"));
	res = submit(p, cs, N);
	if (res.cls != DNSB_CLASS_OK)
		fail_msg("class %d: %s", res.cls, res.message);
	assert_int_equal(held(p, "taken.example.test."), 1);
	changes_free(cs, N);

	/* 4. Created out of band: the refusal the snapshot did not foresee transfers the zone again. */
	one[0] = create("late.example.test.", "192.0.2.7");
	assert_int_equal(submit(other, one, 1).cls, DNSB_CLASS_OK);
	changes_free(one, 1);
	batch(cs, "d", create("late.example.test.", "192.0.2.8"));
	res = submit(p, cs, N);
	assert_named(&res, 1, "YXRRSET", 1);
	changes_free(cs, N);

	/* 5. Our own commits are known: c1 was created in step 3. */
	batch(cs, "e", create("c1.example.test.", "10.0.0.9"));
	res = submit(p, cs, N);
	assert_named(&res, 1, "YXRRSET", 0);
	changes_free(cs, N);

	/* 6. An update whose old RDATA is not held: NXRRSET, named before sending. */
	batch(cs, "f", change_with_ttl(DNSB_CHANGE_UPDATE, "late.example.test.", LDNS_RR_TYPE_A, "192.0.2.8",
				       "192.0.2.9", 300));
	res = submit(p, cs, N);
	assert_named(&res, 1, "NXRRSET", 0);
	assert_int_equal(held(p, "f1.example.test."), 0);
	changes_free(cs, N);

	/* 7. Without a snapshot, probes name the culprit (the server's answer to it alone). */
	batch(cs, "g", create("late.example.test.", "192.0.2.8"));
	res = submit(other, cs, N);
	assert_named(&res, 1, "YXRRSET", 1);
	assert_non_null(strstr(res.message, "late.example.test. A (create)"));
	changes_free(cs, N);

	dnsb_provider_free(other);
	dnsb_provider_free(p);
}

/* A zone larger than --rfc2136-snapshot-max is not kept: probes name the culprit. */
static void test_large_zone_is_not_kept(void **state)
{
	static const char *const small[] = { "rfc2136-snapshot-max", "3", NULL };
	dnsb_provider *p = bind_provider(&bind_group_server, small);
	dnsb_change *cs[N];
	dnsb_result res;

	(void)state;
	for (int round = 0; round < 2; round++) {
		batch(cs, round ? "i" : "h", create("taken.example.test.", "192.0.2.99"));
		res = submit(p, cs, N);
		/* Sent both times: no snapshot to name it before. */
		assert_named(&res, 1, "YXRRSET", 1);
		assert_null(strstr(dnsb_result_note(&res, 1) ? dnsb_result_note(&res, 1) : "", "zone transfer"));
		changes_free(cs, N);
	}
	dnsb_provider_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot_is_checked_by_reads),
		cmocka_unit_test(test_large_zone_is_not_kept),
	};

	return cmocka_run_group_tests(tests, bind_group_setup, bind_group_teardown);
}
