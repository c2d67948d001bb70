/*
 * test_rfc2136_snapshot.c - the rfc2136 provider's snapshot of a zone
 * (providers/rfc2136/snapshot.c): a batch's prerequisites checked against
 * it give the rcode the server answers, with the same exceptions the UPDATE
 * makes (what the batch itself removes), and our own commits keep it in step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "applier/core/array.h"
#include "providers/rfc2136/internal.h"
#include "unit/change_fixture.h"

static dnsb_change *change_new(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
			       const char *new_rdata)
{
	return change_with_ttl(kind, owner, type, old_rdata, new_rdata, 300);
}

static void put(dnsb_rfc2136_snapshot *snap, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset set;

	rrset_set(&set, owner, type, 300, rdata);
	assert_int_equal(dnsb_rfc2136_snapshot_put(snap, &set), 0);
	assert_null(set.owner); /* moved */
}

/* www A, alias CNAME, txt TXT: a small zone. */
static void zone(dnsb_rfc2136_snapshot *snap)
{
	put(snap, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.1");
	put(snap, "alias.example.test.", LDNS_RR_TYPE_CNAME, "www.example.test.");
	put(snap, "txt.example.test.", LDNS_RR_TYPE_TXT, "\"v1\"");
}

static void test_creates(void **state)
{
	dnsb_rfc2136_snapshot snap = DNSB_RFC2136_SNAPSHOT_INIT;
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "new.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.9"),
		change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.9"),
		change_new(DNSB_CHANGE_CREATE, "alias.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.9"),
		change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_AAAA, NULL, "2001:db8::1"),
		change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_CNAME, NULL, "other.example.test."),
		change_new(DNSB_CHANGE_CREATE, "fresh.example.test.", LDNS_RR_TYPE_CNAME, NULL, "www.example.test."),
	};
	dnsb_rfc2136_failed f;
	enum { N = sizeof(cs) / sizeof(cs[0]) };

	(void)state;
	zone(&snap);
	assert_int_equal(snap.count, 3);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 0, &f), 0);
	assert_int_equal(f.rcode, 0);
	/* The RRset exists. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 1, &f), LDNS_RCODE_YXRRSET);
	assert_int_equal(f.kind, DNSB_RFC2136_NO_RRSET);
	assert_string_equal(f.owner, "www.example.test.");
	assert_int_equal(f.type, LDNS_RR_TYPE_A);
	/* A CNAME is at the name. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 2, &f), LDNS_RCODE_YXRRSET);
	assert_int_equal(f.type, LDNS_RR_TYPE_CNAME);
	/* Another type beside an A: no prerequisite fails. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 3, NULL), 0);
	/* A CNAME where the name holds data: the name is in use. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 4, &f), LDNS_RCODE_YXDOMAIN);
	assert_int_equal(f.kind, DNSB_RFC2136_NO_NAME);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 5, NULL), 0);
	dnsb_rfc2136_snapshot_clear(&snap);
	assert_int_equal(snap.count, 0);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 1, NULL), 0);
	changes_free(cs, N);
}

static void test_updates_and_deletes_are_value_dependent(void **state)
{
	dnsb_rfc2136_snapshot snap = DNSB_RFC2136_SNAPSHOT_INIT;
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_UPDATE, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.2"),
		change_new(DNSB_CHANGE_UPDATE, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.7", "192.0.2.2"),
		change_new(DNSB_CHANGE_DELETE, "txt.example.test.", LDNS_RR_TYPE_TXT, "\"v1\"", NULL),
		change_new(DNSB_CHANGE_DELETE, "gone.example.test.", LDNS_RR_TYPE_TXT, "\"v1\"", NULL),
		change_new(DNSB_CHANGE_UPDATE, "txt.example.test.", LDNS_RR_TYPE_TXT, NULL, "\"v2\""),
	};
	dnsb_rfc2136_failed f;
	enum { N = sizeof(cs) / sizeof(cs[0]) };

	(void)state;
	zone(&snap);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 0, NULL), 0);
	/* Other RDATA held: NXRRSET, as the server answers a value-dependent prerequisite. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 1, &f), LDNS_RCODE_NXRRSET);
	assert_int_equal(f.kind, DNSB_RFC2136_EXACTLY);
	assert_ptr_equal(f.exact, &cs[1]->old);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 2, NULL), 0);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 3, NULL), LDNS_RCODE_NXRRSET);
	/* An update without old RDATA cannot be sent: the build names it, the snapshot does not. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, N, 4, &f), 0);
	dnsb_rfc2136_snapshot_clear(&snap);
	changes_free(cs, N);
}

static void test_what_the_batch_removes_is_no_conflict(void **state)
{
	dnsb_rfc2136_snapshot snap = DNSB_RFC2136_SNAPSHOT_INIT;
	/* alias: CNAME to A in one batch (delete the CNAME, create the A), as the UPDATE leaves out the prerequisite. */
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_DELETE, "alias.example.test.", LDNS_RR_TYPE_CNAME, "www.example.test.", NULL),
		change_new(DNSB_CHANGE_CREATE, "alias.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.3"),
	};

	(void)state;
	zone(&snap);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 2, 1, NULL), 0);
	/* Alone, the create meets the CNAME. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs + 1, 1, 0, NULL), LDNS_RCODE_YXRRSET);
	dnsb_rfc2136_snapshot_clear(&snap);
	changes_free(cs, 2);
}

static void test_commit_keeps_it_in_step(void **state)
{
	dnsb_rfc2136_snapshot snap = DNSB_RFC2136_SNAPSHOT_INIT;
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "new.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.9"),
		change_new(DNSB_CHANGE_UPDATE, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.2"),
		change_new(DNSB_CHANGE_DELETE, "alias.example.test.", LDNS_RR_TYPE_CNAME, "www.example.test.", NULL),
	};
	const uint16_t *types;
	const dnsb_rrset *www;

	(void)state;
	zone(&snap);
	assert_int_equal(dnsb_rfc2136_snapshot_commit(&snap, cs, 3), 0);
	assert_int_equal(snap.count, 3);
	assert_non_null(dnsb_rfc2136_snapshot_get(&snap, "new.example.test.", LDNS_RR_TYPE_A));
	assert_non_null(www = dnsb_rfc2136_snapshot_get(&snap, "www.example.test.", LDNS_RR_TYPE_A));
	assert_string_equal(www->rdata[0], "192.0.2.2");
	assert_null(dnsb_rfc2136_snapshot_get(&snap, "alias.example.test.", LDNS_RR_TYPE_CNAME));
	assert_int_equal(dnsb_rfc2136_snapshot_types(&snap, "alias.example.test.", &types), 0);
	/* The same batch again: each change now conflicts with what was committed. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 3, 0, NULL), LDNS_RCODE_YXRRSET);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 3, 1, NULL), LDNS_RCODE_NXRRSET);
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 3, 2, NULL), LDNS_RCODE_NXRRSET);
	dnsb_rfc2136_snapshot_clear(&snap);
	changes_free(cs, 3);
}

static void test_keys_to_read(void **state)
{
	dnsb_rfc2136_snapshot snap = DNSB_RFC2136_SNAPSHOT_INIT;
	dnsb_change *cs[] = {
		change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_CNAME, NULL, "other.example.test."),
		change_new(DNSB_CHANGE_CREATE, "alias.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.9"),
	};
	dnsb_rfc2136_failed f;
	dnsb_rrkey *keys = NULL;
	size_t count = 0, cap = 0;

	(void)state;
	zone(&snap);
	put(&snap, "www.example.test.", LDNS_RR_TYPE_TXT, "\"owner\"");
	/* "The name is unused" fails: every type held there is read. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 2, 0, &f), LDNS_RCODE_YXDOMAIN);
	assert_int_equal(dnsb_rfc2136_snapshot_keys(&snap, &f, &keys, &count, &cap), 0);
	assert_int_equal(count, 2);
	assert_int_equal(keys[0].type + keys[1].type, LDNS_RR_TYPE_A + LDNS_RR_TYPE_TXT);
	/* Only the prerequisite that fails is read. */
	assert_int_equal(dnsb_rfc2136_snapshot_check(&snap, cs, 2, 1, &f), LDNS_RCODE_YXRRSET);
	assert_int_equal(dnsb_rfc2136_snapshot_keys(&snap, &f, &keys, &count, &cap), 0);
	assert_int_equal(count, 3);
	assert_string_equal(keys[2].owner, "alias.example.test.");
	assert_int_equal(keys[2].type, LDNS_RR_TYPE_CNAME);
	/* What a read shows replaces what the snapshot held: the CNAME is gone, the prerequisite holds. */
	dnsb_rfc2136_snapshot_remove(&snap, "alias.example.test.", LDNS_RR_TYPE_CNAME);
	assert_int_equal(dnsb_rfc2136_snapshot_still(&snap, &f), 0);
	free(keys);
	dnsb_rfc2136_snapshot_clear(&snap);
	changes_free(cs, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_creates),
		cmocka_unit_test(test_updates_and_deletes_are_value_dependent),
		cmocka_unit_test(test_what_the_batch_removes_is_no_conflict),
		cmocka_unit_test(test_commit_keeps_it_in_step),
		cmocka_unit_test(test_keys_to_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
