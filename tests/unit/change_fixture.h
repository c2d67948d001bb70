/*
 * change_fixture.h - changes built by hand for the providers' unit tests
 * (test_rfc2136, test_google, test_pdns, test_aws): one RRset of one RDATA
 * each, freed with changes_free. Test code: failures are cmocka asserts.
 */
#ifndef DNSB_TEST_CHANGE_FIXTURE_H
#define DNSB_TEST_CHANGE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "dnsbatch/change.h"

/* *s = owner type ttl rdata (owned copies). */
static inline void rrset_set(dnsb_rrset *s, const char *owner, uint16_t type, uint32_t ttl, const char *rdata)
{
	memset(s, 0, sizeof(*s));
	s->owner = strdup(owner);
	s->type = type;
	s->ttl = ttl;
	assert_int_equal(dnsb_rrset_add_rdata(s, rdata), 0);
}

/* A change at owner/type: old RRset (TTL 300) when old_rdata, new one (TTL new_ttl) when new_rdata. */
static inline dnsb_change *change_with_ttl(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
					   const char *new_rdata, uint32_t new_ttl)
{
	dnsb_change *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->kind = kind;
	if (old_rdata)
		rrset_set(&c->old, owner, type, 300, old_rdata);
	if (new_rdata)
		rrset_set(&c->new_set, owner, type, new_ttl, new_rdata);
	return c;
}

static inline void changes_free(dnsb_change **cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dnsb_rrset_clear(&cs[i]->old);
		dnsb_rrset_clear(&cs[i]->new_set);
		free(cs[i]);
	}
}

#endif
