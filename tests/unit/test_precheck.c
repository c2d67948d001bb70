/*
 * test_precheck.c - the pre-check of the unconditional backends
 * (providers/common/precheck.h) on the rules every DNS service enforces: no CNAME
 * beside other data (RFC 1034 §3.6.2), none at the apex, and the apex keeps
 * its NS RRset; each breach named as a culprit before anything is sent,
 * every one of a batch in one pass (issue 31). The conditions of each change
 * (exists, missing, differs) are tested with the backends (test_pdns,
 * test_cloudflare).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/common/precheck.h"
#include "unit/change_fixture.h"

/* Push owner type rdata (TTL 300) into a held list. */
static void hold(dnsb_rrset_list *held, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_rrset s;

	rrset_set(&s, owner, type, 300, rdata);
	assert_int_equal(dnsb_rrset_list_push(held, &s), 0);
}

/* Run the pre-check of c[0..n) over held; the culprits' indexes, in order, as "0,2" ("" when none). */
static void culprits_of(char *out, size_t size, dnsb_change **c, size_t n, const dnsb_rrset_list *held)
{
	dnsb_precheck pc;
	dnsb_result res;
	size_t len = 0;

	assert_int_equal(dnsb_precheck_run(&pc, &res, c, n, held, NULL), 0);
	out[0] = '\0';
	for (size_t i = 0; i < res.culprit_count && len + 8 < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%zu", i ? "," : "", res.culprits[i]);
	assert_int_equal(res.cls, res.culprit_count ? DNSB_CLASS_CONFLICT : DNSB_CLASS_OK);
	dnsb_precheck_clear(&pc);
}

static void test_cname_beside_data(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[5];
	char got[64];

	(void)state;
	hold(&held, "c.example.com.", LDNS_RR_TYPE_CNAME, "www.example.com.");
	hold(&held, "a.example.com.", LDNS_RR_TYPE_TXT, "\"t\"");
	/* An A and a TXT at a CNAME's name; a CNAME at a TXT's; a CNAME and an A created at one name (the CNAME named). */
	c[0] = change_with_ttl(DNSB_CHANGE_CREATE, "c.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1", 300);
	c[1] = change_with_ttl(DNSB_CHANGE_CREATE, "c.example.com.", LDNS_RR_TYPE_TXT, NULL, "\"x\"", 300);
	c[2] = change_with_ttl(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.com.", 300);
	c[3] = change_with_ttl(DNSB_CHANGE_CREATE, "n.example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.com.", 300);
	c[4] = change_with_ttl(DNSB_CHANGE_CREATE, "n.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.2", 300);
	culprits_of(got, sizeof(got), c, 5, &held);
	assert_string_equal(got, "0,1,2,3");
	changes_free(c, 5);
	dnsb_rrset_list_clear(&held);
}

/* Replacing a CNAME by an A at one name breaks nothing, in either order within the batch. */
static void test_cname_replaced(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[3];
	char got[64];

	(void)state;
	hold(&held, "c.example.com.", LDNS_RR_TYPE_CNAME, "www.example.com.");
	hold(&held, "s.example.com.", LDNS_RR_TYPE_A, "192.0.2.9");
	/* The batch is written whole: the A created before the CNAME's delete in its order does not meet it. */
	c[0] = change_with_ttl(DNSB_CHANGE_CREATE, "c.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1", 300);
	c[1] = change_with_ttl(DNSB_CHANGE_DELETE, "c.example.com.", LDNS_RR_TYPE_CNAME, "www.example.com.", NULL, 0);
	/* An A updated into a CNAME at one name (an update to another type) leaves no A beside it. */
	c[2] = change_with_ttl(DNSB_CHANGE_UPDATE, "s.example.com.", LDNS_RR_TYPE_A, "192.0.2.9", "192.0.2.9", 300);
	dnsb_rrset_clear(&c[2]->new_set);
	rrset_set(&c[2]->new_set, "s.example.com.", LDNS_RR_TYPE_CNAME, 300, "www.example.com.");
	culprits_of(got, sizeof(got), c, 3, &held);
	assert_string_equal(got, "");
	changes_free(c, 3);
	dnsb_rrset_list_clear(&held);
}

/* The apex (the name holding the SOA): no CNAME there, and its NS RRset stays. */
static void test_apex(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[3];
	char got[64];

	(void)state;
	hold(&held, "example.com.", LDNS_RR_TYPE_SOA, "ns1.example.com. h.example.com. 1 3600 600 86400 300");
	hold(&held, "example.com.", LDNS_RR_TYPE_NS, "ns1.example.com.");
	c[0] = change_with_ttl(DNSB_CHANGE_CREATE, "example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.net.", 300);
	c[1] = change_with_ttl(DNSB_CHANGE_DELETE, "example.com.", LDNS_RR_TYPE_NS, "ns1.example.com.", NULL, 0);
	c[2] = change_with_ttl(DNSB_CHANGE_CREATE, "example.com.", LDNS_RR_TYPE_TXT, NULL, "\"v=spf1 -all\"", 300);
	culprits_of(got, sizeof(got), c, 3, &held);
	assert_string_equal(got, "0,1");
	changes_free(c, 3);
	/* An NS update at the apex keeps one. */
	c[0] = change_with_ttl(DNSB_CHANGE_UPDATE, "example.com.", LDNS_RR_TYPE_NS, "ns1.example.com.", "ns2.example.com.", 300);
	culprits_of(got, sizeof(got), c, 1, &held);
	assert_string_equal(got, "");
	changes_free(c, 1);
	/* Without an SOA in what was read (Cloudflare lists none, and flattens a CNAME at the apex): no apex rule. */
	dnsb_rrset_list_clear(&held);
	c[0] = change_with_ttl(DNSB_CHANGE_CREATE, "example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.net.", 300);
	culprits_of(got, sizeof(got), c, 1, &held);
	assert_string_equal(got, "");
	changes_free(c, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cname_beside_data),
		cmocka_unit_test(test_cname_replaced),
		cmocka_unit_test(test_apex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
