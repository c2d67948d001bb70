/*
 * http_fixture.h - HTTP replies built by hand for the providers' unit tests (test_aws, test_azure,
 * test_azure_truth, test_cloudflare, test_google, test_pdns): what dnsb_http_do would have filled.
 */
#ifndef DNSB_TEST_HTTP_FIXTURE_H
#define DNSB_TEST_HTTP_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "applier/net/http.h"

/* A reply of status with body (borrowed, NUL-terminated: the reply does not own it), Content-Type ctype ("" when
 * NULL) and Retry-After retry_after seconds (-1: none). */
static inline dnsb_http_response http_reply(long status, const char *ctype, const char *body, double retry_after)
{
	dnsb_http_response r;

	memset(&r, 0, sizeof(r));
	r.status = status;
	r.body = (char *)body;
	r.body_len = strlen(body);
	if (ctype)
		snprintf(r.content_type, sizeof(r.content_type), "%s", ctype);
	r.retry_after = retry_after;
	return r;
}

#endif
