/*
 * config_fixture.h - provider configurations built by hand for the
 * providers' unit tests (test_google, test_pdns): key, value pairs as the
 * command line gives them. Test code: failures are cmocka asserts.
 */
#ifndef DNSB_TEST_CONFIG_FIXTURE_H
#define DNSB_TEST_CONFIG_FIXTURE_H

#include <stdarg.h>

#include "dnsbatch/config.h"

/* A configuration of the pairs in ap (key, value, ..., NULL); the caller's (dnsb_config_free). */
static inline dnsb_config *config_va(va_list ap)
{
	dnsb_config *cfg;
	const char *k;

	assert_int_equal(dnsb_config_new(&cfg), 0);
	while ((k = va_arg(ap, const char *)) != NULL)
		assert_int_equal(dnsb_config_add(cfg, k, va_arg(ap, const char *)), 0);
	return cfg;
}

#endif
