/* test_rrset_list.c - the RRset list and its owner-name index (past 32 items), and merging records into it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "dnsbatch/change.h"
#include "dnsbatch/sys/provider.h"

static void push(dnsb_rrset_list *l, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset r = { 0 };

	r.owner = strdup(owner);
	r.type = type;
	r.ttl = 300;
	assert_int_equal(dnsb_rrset_add_rdata(&r, rdata), 0);
	assert_int_equal(dnsb_rrset_list_push(l, &r), 0);
}

/* Below and far above the index threshold, every (owner, type) is found, and only those. */
static void test_find_short_and_long(void **state)
{
	dnsb_rrset_list l = { 0 };
	char owner[64];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(owner, sizeof(owner), "h%d.example.com.", i % 2500);
		push(&l, owner, i < 2500 ? LDNS_RR_TYPE_A : LDNS_RR_TYPE_TXT, i < 2500 ? "192.0.2.1" : "\"t\"");
		if (i == 10) {
			assert_null(l.index); /* short lists are scanned */
			assert_non_null(dnsb_rrset_list_find(&l, "h3.example.com.", LDNS_RR_TYPE_A));
		}
	}
	assert_non_null(l.index);
	for (int i = 0; i < 2500; i++) {
		snprintf(owner, sizeof(owner), "h%d.example.com.", i);
		assert_ptr_equal(dnsb_rrset_list_find(&l, owner, LDNS_RR_TYPE_A), &l.items[i]);
		assert_ptr_equal(dnsb_rrset_list_find(&l, owner, LDNS_RR_TYPE_TXT), &l.items[2500 + i]);
		assert_null(dnsb_rrset_list_find(&l, owner, LDNS_RR_TYPE_AAAA));
	}
	assert_null(dnsb_rrset_list_find(&l, "nowhere.example.com.", LDNS_RR_TYPE_A));
	dnsb_rrset_list_clear(&l);
	assert_null(l.index);
	assert_int_equal(l.count, 0);
}

/* A duplicate (owner, type) pushed later is the one found, as before the index. */
static void test_newest_wins(void **state)
{
	dnsb_rrset_list l = { 0 };
	char owner[64];

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(owner, sizeof(owner), "h%d.example.com.", i);
		push(&l, owner, LDNS_RR_TYPE_A, "192.0.2.1");
	}
	push(&l, "h7.example.com.", LDNS_RR_TYPE_A, "192.0.2.99");
	assert_string_equal(dnsb_rrset_list_find(&l, "h7.example.com.", LDNS_RR_TYPE_A)->rdata[0], "192.0.2.99");
	dnsb_rrset_list_clear(&l);
}

/* Records of one RRset far apart in a transfer merge into one RRset; the last TTL wins; owners lower-cased. */
static void test_add_ldns_rr_merges_across_the_stream(void **state)
{
	dnsb_rrset_list l = { 0 };
	char line[128];

	(void)state;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 200; i++) {
			ldns_rr *rr = NULL;
			snprintf(line, sizeof(line), "H%d.Example.COM. %d IN A 192.0.2.%d", i, 60 + round, round + 1);
			assert_int_equal(ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL), LDNS_STATUS_OK);
			assert_int_equal(dnsb_rrset_list_add_ldns_rr(&l, rr, NULL), 0);
			ldns_rr_free(rr);
		}
	}
	assert_int_equal(l.count, 200);
	for (int i = 0; i < 200; i += 37) {
		const dnsb_rrset *r;
		snprintf(line, sizeof(line), "h%d.example.com.", i);
		r = dnsb_rrset_list_find(&l, line, LDNS_RR_TYPE_A);
		assert_non_null(r);
		assert_int_equal(r->rdata_count, 3);
		assert_int_equal(r->ttl, 62);
	}
	dnsb_rrset_list_clear(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_short_and_long),
		cmocka_unit_test(test_newest_wins),
		cmocka_unit_test(test_add_ldns_rr_merges_across_the_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
