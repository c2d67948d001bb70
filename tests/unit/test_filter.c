/* test_filter.c - the domain filter as external-dns's domain_filter.go: RE2 (Go) regular expressions, IDN in either form. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/webhook.h"

static dnsb_domain_filter *regex_filter(const char *include, const char *exclude)
{
	dnsb_domain_filter *f = NULL;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_domain_filter_new(&f, NULL, 0, NULL, 0, include, exclude, &err), 0);
	assert_non_null(f);
	return f;
}

static dnsb_domain_filter *list_filter(const char *include, const char *exclude)
{
	dnsb_domain_filter *f = NULL;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_domain_filter_new(&f, &include, include ? 1 : 0, &exclude, exclude ? 1 : 0,
						NULL, NULL, &err), 0);
	assert_non_null(f);
	return f;
}

static void regex_refused(const char *include, const char *exclude, const char *flag)
{
	dnsb_domain_filter *f = (dnsb_domain_filter *)&f;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_domain_filter_new(&f, NULL, 0, NULL, 0, include, exclude, &err), DNSB_EINVAL);
	assert_null(f);
	assert_int_equal(err.code, DNSB_EINVAL);
	assert_non_null(strstr(err.message, flag));
}

static void body_is(const dnsb_domain_filter *f, const char *expected)
{
	struct json_object *body = NULL;

	assert_int_equal(dnsb_domain_filter_to_json(&body, f), 0);
	assert_string_equal(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN), expected);
	json_object_put(body);
}

static void test_regex_go_syntax(void **state)
{
	dnsb_domain_filter *f;

	(void)state;
	f = regex_filter("^app\\d\\.example\\.com$", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "app1.example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "app1.example.com."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "appx.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "app12.example.com"), 0);
	dnsb_domain_filter_free(f);

	f = regex_filter("(?i)^APP\\.example\\.com$", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "app.example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "api.example.com"), 0);
	dnsb_domain_filter_free(f);

	/* Names are lower-cased before matching, as external-dns's idna mapping does. */
	f = regex_filter("^APP\\.", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "APP.example.com"), 0);
	dnsb_domain_filter_free(f);

	/* Unanchored, as Go's MatchString. */
	f = regex_filter("example\\.com", "\\binternal\\b");
	assert_int_equal(dnsb_domain_filter_match(f, "www.example.com.au"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "a.internal.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "internals.example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 0);
	body_is(f, "{\"regexInclude\":\"example\\\\.com\",\"regexExclude\":\"\\\\binternal\\\\b\"}");
	dnsb_domain_filter_free(f);
}

static void test_regex_refused(void **state)
{
	(void)state;
	/* Go's regexp refuses backreferences and lookaround; so does RE2. */
	regex_refused("(a)\\1", NULL, "--regex-domain-filter");
	regex_refused("^(?=x)", NULL, "--regex-domain-filter");
	regex_refused("(", NULL, "--regex-domain-filter");
	regex_refused("example\\.com$", "(?!internal)", "--regex-domain-exclusion");
	regex_refused("a{1001}", NULL, "--regex-domain-filter");
}

static void test_regex_unicode_form(void **state)
{
	dnsb_domain_filter *f;

	(void)state;
	/* external-dns matches the Unicode form of a name. */
	f = regex_filter("^caf\\p{L}\\.example\\.org$", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.org."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "CAFÉ.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "cafe1.example.org"), 0);
	dnsb_domain_filter_free(f);

	f = regex_filter("(?:😍|🤩)\\.org$", "^example\\.(?:😍|🤩)\\.org$");
	assert_int_equal(dnsb_domain_filter_match(f, "xn--r28h.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "🤩.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "a.example.xn--r28h.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "example.xn--r28h.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 0);
	dnsb_domain_filter_free(f);

	/* A label libidn2 refuses stays as given; the others are still decoded. */
	f = regex_filter("^r3---sn\\.café\\.org$", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "r3---sn.xn--caf-dma.org"), 1);
	dnsb_domain_filter_free(f);
}

static void test_idn_lists(void **state)
{
	dnsb_domain_filter *f;

	(void)state;
	f = list_filter("café.example.org", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.org."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "XN--CAF-DMA.Example.ORG"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "sub.café.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "sub.xn--caf-dma.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "CAFÉ.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "cafe.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "xn--caf-dma.example.org."), 1);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "example.org."), 1);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "example.com."), 0);
	/* GET / hands back the entry as given. */
	body_is(f, "{\"include\":[\"café.example.org\"]}");
	dnsb_domain_filter_free(f);

	f = list_filter("XN--CAF-DMA.example.org.", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "café.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "www.café.example.org."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_may_match_zone(f, "café.example.org"), 1);
	body_is(f, "{\"include\":[\"xn--caf-dma.example.org\"]}");
	dnsb_domain_filter_free(f);

	f = list_filter("sTOnks📈.ORG", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "API.xn--StonkS-u354e.ORG"), 1);
	dnsb_domain_filter_free(f);
}

static void test_idn_exclusions(void **state)
{
	dnsb_domain_filter *f;

	(void)state;
	f = list_filter("example.org", "café.example.org");
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "www.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "xn--caf-dma.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "a.xn--caf-dma.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "café.example.org"), 0);
	dnsb_domain_filter_free(f);

	f = list_filter(NULL, ".xn--caf-dma.example.org");
	assert_int_equal(dnsb_domain_filter_match(f, "café.example.org"), 1);   /* subdomains only */
	assert_int_equal(dnsb_domain_filter_match(f, "www.café.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "www.xn--caf-dma.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "other.example.org"), 1);
	dnsb_domain_filter_free(f);
}

static void test_list_semantics(void **state)
{
	const char *inc[] = { "Example.com. , .example.org", NULL, " ,, " };
	const char *exc[] = { "skip.example.com,.deep.example.org" };
	dnsb_domain_filter *f = NULL;
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_domain_filter_new(&f, inc, 3, exc, 1, NULL, NULL, &err), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "APP.example.com."), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "badexample.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "skip.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "a.skip.example.com"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 0);       /* ".example.org": subdomains only */
	assert_int_equal(dnsb_domain_filter_match(f, "www.example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "deep.example.org"), 1);  /* ".deep...": subdomains only */
	assert_int_equal(dnsb_domain_filter_match(f, "a.deep.example.org"), 0);
	assert_int_equal(dnsb_domain_filter_match(f, "_acme-challenge.example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "r3---sn.example.com"), 1);
	body_is(f, "{\"include\":[\".example.org\",\"example.com\"],"
		   "\"exclude\":[\".deep.example.org\",\"skip.example.com\"]}");
	dnsb_domain_filter_free(f);

	f = (dnsb_domain_filter *)&f;
	assert_int_equal(dnsb_domain_filter_new(&f, inc, 1, NULL, 0, "x", NULL, &err), DNSB_EINVAL);
	assert_null(f);
	assert_int_equal(dnsb_domain_filter_match(NULL, "anything"), 1);
	body_is(NULL, "{}");
	dnsb_domain_filter_free(NULL);
}

static void list_refused(const char *include, const char *exclude, const char *says)
{
	dnsb_domain_filter *f = (dnsb_domain_filter *)&f;
	dnsb_error err = { 0, "" };

	assert_int_equal(dnsb_domain_filter_new(&f, &include, include ? 1 : 0, &exclude, exclude ? 1 : 0,
						NULL, NULL, &err), DNSB_EINVAL);
	assert_null(f);
	assert_int_equal(err.code, DNSB_EINVAL);
	if (strstr(err.message, says) == NULL)
		print_error("'%s' not in: %s\n", says, err.message);
	assert_non_null(strstr(err.message, says));
}

/*
 * An entry with an empty label is refused at start: "..", trimmed of its
 * trailing dot, was matched as "" (passing nearly nothing) while GET / told
 * external-dns ".", which it trims to nothing and drops (passing
 * everything). What is announced is what is matched.
 */
static void test_empty_label_refused(void **state)
{
	dnsb_domain_filter *f;

	(void)state;
	list_refused("..", NULL, "--domain-filter: \"..\" has an empty label");
	list_refused("example.com,. .", NULL, "--domain-filter: \". .\" has an empty label");
	list_refused("example.com..", NULL, "--domain-filter: \"example.com..\"");
	list_refused("a..example.com", NULL, "\"a..example.com\"");
	list_refused("..example.com", NULL, "\"..example.com\"");
	list_refused(NULL, "..", "--exclude-domains: \"..\" has an empty label");
	/* A leading dot, one trailing dot and a lone "." (ignored) stay as external-dns reads them. */
	f = list_filter(".example.com, example.org., .", NULL);
	assert_int_equal(dnsb_domain_filter_match(f, "www.example.com"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "example.org"), 1);
	assert_int_equal(dnsb_domain_filter_match(f, "example.net"), 0);
	body_is(f, "{\"include\":[\".example.com\",\"example.org\"]}");
	dnsb_domain_filter_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regex_go_syntax),
		cmocka_unit_test(test_regex_refused),
		cmocka_unit_test(test_regex_unicode_form),
		cmocka_unit_test(test_idn_lists),
		cmocka_unit_test(test_idn_exclusions),
		cmocka_unit_test(test_list_semantics),
		cmocka_unit_test(test_empty_label_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
