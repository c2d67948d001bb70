/*
 * test_akamai.c - the akamai provider without a server: EdgeGrid signatures
 * against vectors computed by Akamai's own Node library (npm akamai-edgegrid
 * 4.0.4, generateAuth with the same timestamp and nonce), the class of every
 * problem-details reply and the culprits it names, record-set and zone pages,
 * add-change bodies, .edgerc sections, and the flags. The fake server is in
 * tests/integration/test_akamai.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/akamai/akamai.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"

#define TS "20261127T15:00:00+0000"
#define NONCE "f5c1e3a4-1b2d-4c6e-8f0a-9b8c7d6e5f4a"

static dnsb_akamai_creds test_creds(void)
{
	dnsb_akamai_creds c = { (char *)"akab-test.luna.akamaiapis.net", (char *)"akab-ct", (char *)"c2VjcmV0LXNlY3JldA==",
				(char *)"akab-at", DNSB_AKAMAI_MAX_BODY };
	return c;
}

static void test_sign_vectors(void **state)
{
	dnsb_akamai_creds c = test_creds();
	const char *body = "{\"name\":\"www.example.com\",\"type\":\"A\",\"op\":\"ADD\",\"ttl\":300,\"rdata\":[\"192.0.2.1\"]}";
	char *out = NULL;

	(void)state;
	/* POST with a body: the content hash is signed (akamai-edgegrid's generateAuth, same timestamp and nonce). */
	assert_int_equal(dnsb_akamai_sign(&out, &c, "POST", "https://127.0.0.1:8443/config-dns/v2/changelists/"
					  "example.com/recordsets/add-change", c.host, body, strlen(body), TS, NONCE, NULL), 0);
	assert_string_equal(out, "EG1-HMAC-SHA256 client_token=akab-ct;access_token=akab-at;timestamp=" TS ";nonce=" NONCE
				 ";signature=566kn54kP/Xy0VdOABkxr/O1UPxgP/XqIa/no3NHYoM=");
	dnsb_secret_free(out);
	/* GET with a query, signed for the URL's own host. */
	assert_int_equal(dnsb_akamai_sign(&out, &c, "GET", "https://akab-test.luna.akamaiapis.net/config-dns/v2/zones/"
					  "example.com/recordsets?page=2&pageSize=500&search=www.example.com", NULL, NULL, 0,
					  TS, NONCE, NULL), 0);
	assert_string_equal(out, "EG1-HMAC-SHA256 client_token=akab-ct;access_token=akab-at;timestamp=" TS ";nonce=" NONCE
				 ";signature=U1zu/6OGcr9+V2eqf1MyNtOd+0Z06OX8MHXCvyKW+Og=");
	dnsb_secret_free(out);
	assert_int_equal(dnsb_akamai_sign(&out, &c, "GET", "not a url", NULL, NULL, 0, TS, NONCE, NULL), DNSB_EINVAL);
	assert_null(out);
}

static void test_nonce_timestamp(void **state)
{
	char a[40], b[40], ts[32];

	(void)state;
	assert_int_equal(dnsb_akamai_nonce(a, sizeof(a)), 0);
	assert_int_equal(dnsb_akamai_nonce(b, sizeof(b)), 0);
	assert_int_equal(strlen(a), 36);
	assert_string_not_equal(a, b);
	assert_int_equal(a[14], '4'); /* version 4 */
	dnsb_akamai_timestamp(ts, sizeof(ts));
	assert_int_equal(strlen(ts), strlen(TS));
	assert_string_equal(ts + 17, "+0000");
}

/* The class of a reply of status with a problem body. */
static dnsb_class class_of(long status, const char *body)
{
	dnsb_http_response r = http_reply(status, "application/problem+json", body, -1);
	dnsb_result res;

	dnsb_result_init(&res);
	dnsb_akamai_classify(&res, &r, NULL, 0);
	return res.cls;
}

#define PB(TYPE, TITLE, DETAIL) \
	"{\"type\":\"https://problems.luna.akamaiapis.net/authoritative-dns/" TYPE "\",\"title\":\"" TITLE \
	"\",\"detail\":\"" DETAIL "\"}"

static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(class_of(204, ""), DNSB_CLASS_OK);
	assert_int_equal(class_of(201, "{}"), DNSB_CLASS_OK);
	assert_int_equal(class_of(400, PB("invalidRecordSet", "Bad Request", "Invalid record set")), DNSB_CLASS_INVALID);
	assert_int_equal(class_of(409, PB("changeListExists", "Conflict", "A change list exists")), DNSB_CLASS_CONFLICT);
	assert_int_equal(class_of(409, PB("staleChangeList", "Change list is stale", "zone version changed")),
			 DNSB_CLASS_CONFLICT);
	assert_int_equal(class_of(400, PB("x", "Bad Request", "The change list is stale")), DNSB_CLASS_CONFLICT);
	assert_int_equal(class_of(429, PB("rateLimitExceeded", "Too Many Requests", "")), DNSB_CLASS_RATE_LIMITED);
	assert_int_equal(class_of(500, PB("serverError", "Server error", "An internal error occurred.")),
			 DNSB_CLASS_TRANSIENT);
	assert_int_equal(class_of(503, "<html>busy</html>"), DNSB_CLASS_TRANSIENT);
	assert_int_equal(class_of(401, PB("-/pep-authn/deny", "Not authorized", "The signature does not match")),
			 DNSB_CLASS_FATAL);
	assert_int_equal(class_of(401, PB("-/pep-authn/deny", "Not authorized", "Invalid authorization nonce: used")),
			 DNSB_CLASS_TRANSIENT);
	assert_int_equal(class_of(403, PB("forbidden", "Forbidden", "no access to zone")), DNSB_CLASS_FATAL);
	assert_int_equal(class_of(404, PB("notFound", "Not Found", "Zone does not exist")), DNSB_CLASS_FATAL);
}

static void test_culprits(void **state)
{
	dnsb_change *cs[3] = {
		change_with_ttl(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1", 300),
		change_with_ttl(DNSB_CHANGE_DELETE, "mail.example.com.", LDNS_RR_TYPE_A, "192.0.2.2", NULL, 300),
		change_with_ttl(DNSB_CHANGE_CREATE, "w.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.3", 300),
	};
	dnsb_http_response r = http_reply(400, "application/problem+json",
					  "{\"type\":\"x/invalidRecordSet\",\"title\":\"Bad Request\",\"detail\":\"Invalid\","
					  "\"errors\":[{\"field\":\"rdata[0]\",\"detail\":\"mail.example.com A: bad\"}]}", -1);
	dnsb_result res;

	(void)state;
	dnsb_result_init(&res);
	dnsb_akamai_classify(&res, &r, cs, 3);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_string_equal(res.code, "invalidRecordSet");
	assert_int_equal(res.culprit_count, 1); /* mail, not www nor w (whole names only) */
	assert_int_equal(res.culprits[0], 1);
	assert_string_equal(dnsb_result_note(&res, 1), "mail.example.com A: bad");
	assert_non_null(strstr(res.message, "Invalid; mail.example.com A: bad"));
	changes_free(cs, 3);
}

static void test_pages(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"metadata\":{\"page\":1,\"pageSize\":2,\"totalElements\":3,\"zone\":\"example.com\",\"types\":[]},"
		"\"recordsets\":[{\"name\":\"www.example.com\",\"type\":\"A\",\"ttl\":300,\"rdata\":[\"192.0.2.2\","
		"\"192.0.2.1\"]},{\"name\":\"t.example.com\",\"type\":\"TXT\",\"ttl\":60,\"rdata\":[\"\\\"a b\\\"\"]},"
		"{\"name\":\"x.example.com\",\"type\":\"AKAMAICDN\",\"ttl\":20,\"rdata\":[\"e.edgekey.net\"]}]}");
	dnsb_rrset_list out = { 0 };
	dnsb_hb_zone *zones = NULL;
	size_t count = 0;
	int more = -1;

	(void)state;
	assert_int_equal(dnsb_akamai_recordsets_parse(&out, doc, NULL, 0, NULL, &more, NULL), 0);
	assert_int_equal(more, 1);
	assert_int_equal(out.count, 2); /* AKAMAICDN: a type ldns does not know, left out */
	assert_string_equal(out.items[0].owner, "www.example.com.");
	assert_int_equal(out.items[0].rdata_count, 2);
	assert_string_equal(out.items[1].rdata[0], "\"a b\"");
	dnsb_rrset_list_clear(&out);
	assert_int_equal(dnsb_akamai_recordsets_parse(&out, doc, NULL, 0, "t.example.com.", &more, NULL), 0);
	assert_int_equal(out.count, 1);
	dnsb_rrset_list_clear(&out);
	assert_int_equal(dnsb_akamai_zones_parse(&zones, &count, doc, &more, NULL), DNSB_EPARSE);
	json_object_put(doc);
	doc = json_tokener_parse("{\"metadata\":{\"page\":2,\"pageSize\":2,\"totalElements\":4},\"zones\":["
				 "{\"zone\":\"Example.COM\",\"type\":\"PRIMARY\"},{\"zone\":\"a.net\",\"type\":\"ALIAS\"}]}");
	assert_int_equal(dnsb_akamai_zones_parse(&zones, &count, doc, &more, NULL), 0);
	assert_int_equal(more, 0);
	assert_int_equal(count, 1);
	assert_string_equal(zones[0].apex, "example.com.");
	dnsb_hb_zones_free(zones, count);
	json_object_put(doc);
}

static void test_change_body(void **state)
{
	dnsb_rrset held, final;
	dnsb_precheck_entry e = { "www.example.com.", LDNS_RR_TYPE_TXT, NULL, &final, NULL };
	char *body;

	(void)state;
	rrset_set(&final, "www.example.com.", LDNS_RR_TYPE_TXT, 600, "\"v=2\"");
	rrset_set(&held, "www.example.com.", LDNS_RR_TYPE_TXT, 300, "\"v=1\"");
	assert_int_equal(dnsb_akamai_change_body(&body, &e), 0);
	assert_string_equal(body, "{\"name\":\"www.example.com\",\"type\":\"TXT\",\"op\":\"ADD\",\"ttl\":600,"
				  "\"rdata\":[\"\\\"v=2\\\"\"]}");
	free(body);
	e.held = &held;
	assert_string_equal(dnsb_akamai_op(&e), "EDIT");
	e.final = NULL;
	assert_int_equal(dnsb_akamai_change_body(&body, &e), 0);
	assert_string_equal(body, "{\"name\":\"www.example.com\",\"type\":\"TXT\",\"op\":\"DELETE\"}");
	free(body);
	dnsb_rrset_clear(&held);
	dnsb_rrset_clear(&final);
}

static void test_edgerc(void **state)
{
	dnsb_akamai_creds c;
	dnsb_error err;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(dnsb_akamai_edgerc_parse(&c, "[default]\nhost = a.luna.akamaiapis.net\n\n[dns]\n; comment\n"
						  "client_secret = \"s3cr3t+/=\"\nclient_token=ct\r\naccess_token = at\n"
						  "max_body = 2048\n", "dns", "t.edgerc", &err), 0);
	assert_null(c.host); /* the other section's */
	assert_string_equal(c.client_secret, "s3cr3t+/=");
	assert_string_equal(c.client_token, "ct");
	assert_string_equal(c.access_token, "at");
	assert_int_equal(c.max_body, 2048);
	dnsb_akamai_creds_clear(&c);
	assert_int_equal(dnsb_akamai_edgerc_parse(&c, "[default]\nhost = h\n", "dns", "t.edgerc", &err), DNSB_ENOTFOUND);
	dnsb_akamai_creds_clear(&c);
	assert_int_equal(dnsb_akamai_edgerc_parse(&c, "[dns]\nclient_secret s3cr3t\n", "dns", "t.edgerc", &err),
			 DNSB_EINVAL);
	assert_null(strstr(err.message, "s3cr3t")); /* the line is named, never its value */
	assert_non_null(strstr(err.message, "t.edgerc:2"));
	dnsb_akamai_creds_clear(&c);
}

static void test_config(void **state)
{
	dnsb_config *cfg;
	dnsb_akamai_config out;
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "akamai-client-secret", "on-argv"), 0);
	assert_int_equal(dnsb_config_add(cfg, "akamai-client-token", "ct"), 0);
	assert_int_equal(dnsb_akamai_config_parse(&out, cfg, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "--akamai-client-secret-file"));
	dnsb_config_free(cfg);
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_config_add(cfg, "akamai-client-token", "ct"), 0);
	assert_int_equal(dnsb_akamai_config_parse(&out, cfg, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "incomplete"));
	dnsb_config_free(cfg);
}

static void test_ratelimit_next(void **state)
{
	(void)state;
	assert_true(dnsb_http_ratelimit_next("2026-11-27T15:00:03.250Z", 1795791600) == 4);
	assert_true(dnsb_http_ratelimit_next("2026-11-27T14:59:00Z", 1795791600) == 0);
	assert_true(dnsb_http_ratelimit_next("soon", 1795791600) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_vectors), cmocka_unit_test(test_nonce_timestamp), cmocka_unit_test(test_classes),
		cmocka_unit_test(test_culprits),     cmocka_unit_test(test_pages),           cmocka_unit_test(test_change_body),
		cmocka_unit_test(test_edgerc),       cmocka_unit_test(test_config),          cmocka_unit_test(test_ratelimit_next),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
