/*
 * test_redact_replies.c - issue 38 §4 at the providers' parsers: the text a
 * provider's error reply is quoted into holds no secret the process holds,
 * before it reaches any writer (a log line, the drop log, an HTTP answer).
 * Cloud DNS's error parser copies the reply's message itself (no
 * dnsb_error_set on the way): an endpoint echoing the bearer token.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "applier/core/secret.h"
#include "providers/google/google.h"

static void test_google_error_redacted(void **state)
{
	char api[] = "{\"error\":{\"code\":401,\"message\":\"bad header Authorization: Bearer ya29.fake-token-0123\"}}";
	char page[] = "<html>502: upstream got Authorization: Bearer ya29.fake-token-0123</html>";
	dnsb_http_response resp = { .status = 401, .body = api, .body_len = sizeof(api) - 1,
				    .content_type = "application/json; charset=UTF-8" };
	dnsb_google_error ge;

	(void)state;
	dnsb_secret_register("ya29.fake-token-0123");
	dnsb_google_error_parse(&ge, &resp);
	assert_string_equal(ge.message, "bad header Authorization: Bearer ***");
	resp = (dnsb_http_response){ .status = 502, .body = page, .body_len = sizeof(page) - 1 };
	dnsb_google_error_parse(&ge, &resp);
	assert_string_equal(ge.message, "<html>502: upstream got Authorization: Bearer ***</html>");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_google_error_redacted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
