/*
 * test_azure.c - the azure provider without a server: record sets written
 * as Azure's JSON (public and private spellings) and read back to the same
 * RRsets, ETags kept, types Azure does not hold refused, and the class of
 * every reply a write can get. The fake is in tests/integration/test_azure.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/azure/internal.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"

static dnsb_http_response reply(long status, const char *body, double retry_after)
{
	return http_reply(status, "application/json; charset=utf-8", body, retry_after);
}

/* The body of an RRset of one RDATA, then that body read back as a listed record set. */
static void round_trip(uint16_t type, const char *rdata, const char *want_body)
{
	dnsb_rrset s, *back;
	dnsb_rrset_list list = { 0 };
	dnsb_hb_tags tags = { 0 };
	dnsb_error err;
	json_object *rs;
	char *body = NULL;

	rrset_set(&s, "www.example.com.", type, 300, rdata);
	assert_int_equal(dnsb_azure_rrset_body(&body, &s, 0, &err), 0);
	assert_string_equal(body, want_body);
	rs = json_tokener_parse(body);
	json_object_object_add(rs, "name", json_object_new_string("www"));
	json_object_object_add(rs, "etag", json_object_new_string("e-1"));
	json_object_object_add(rs, "type", json_object_new_string("Microsoft.Network/dnszones/X"));
	json_object_object_add(rs, "type", json_object_new_string(type == LDNS_RR_TYPE_CAA ? "Microsoft.Network/dnszones/CAA"
								   : type == LDNS_RR_TYPE_TXT ? "Microsoft.Network/dnszones/TXT"
								   : type == LDNS_RR_TYPE_MX ? "Microsoft.Network/dnszones/MX"
								   : type == LDNS_RR_TYPE_SRV ? "Microsoft.Network/dnszones/SRV"
								   : type == LDNS_RR_TYPE_CNAME ? "Microsoft.Network/dnszones/CNAME"
											       : "Microsoft.Network/dnszones/A"));
	assert_int_equal(dnsb_azure_rrset_parse(&list, &tags, rs, "example.com.", NULL, 0, &err), 0);
	assert_int_equal(list.count, 1);
	back = &list.items[0];
	assert_true(dnsb_rrset_equal(back, &s));
	assert_int_equal(tags.count, 1);
	assert_string_equal(tags.items[0].tag, "e-1");
	json_object_put(rs);
	free(body);
	dnsb_rrset_list_clear(&list);
	dnsb_hb_tags_clear(&tags);
	dnsb_rrset_clear(&s);
}

static void test_bodies_round_trip(void **state)
{
	(void)state;
	round_trip(LDNS_RR_TYPE_A, "192.0.2.1", "{\"properties\":{\"TTL\":300,\"ARecords\":[{\"ipv4Address\":\"192.0.2.1\"}]}}");
	round_trip(LDNS_RR_TYPE_CNAME, "target.example.net.",
		   "{\"properties\":{\"TTL\":300,\"CNAMERecord\":{\"cname\":\"target.example.net\"}}}");
	round_trip(LDNS_RR_TYPE_MX, "10 mx1.example.com.",
		   "{\"properties\":{\"TTL\":300,\"MXRecords\":[{\"preference\":10,\"exchange\":\"mx1.example.com\"}]}}");
	round_trip(LDNS_RR_TYPE_SRV, "0 5 25565 mc.example.com.",
		   "{\"properties\":{\"TTL\":300,\"SRVRecords\":[{\"priority\":0,\"weight\":5,\"port\":25565,"
		   "\"target\":\"mc.example.com\"}]}}");
	/* Two character-strings, one with a quote and a space: raw bytes in JSON, not presentation. */
	round_trip(LDNS_RR_TYPE_TXT, "\"a \\\"b\\\"\" \"c\"",
		   "{\"properties\":{\"TTL\":300,\"TXTRecords\":[{\"value\":[\"a \\\"b\\\"\",\"c\"]}]}}");
	round_trip(LDNS_RR_TYPE_CAA, "0 issue \"letsencrypt.org\"",
		   "{\"properties\":{\"TTL\":300,\"caaRecords\":[{\"flags\":0,\"tag\":\"issue\",\"value\":\"letsencrypt.org\"}]}}");
}

static void test_private_spelling_and_unheld_types(void **state)
{
	dnsb_rrset s;
	dnsb_error err;
	char *body = NULL;

	(void)state;
	rrset_set(&s, "www.example.com.", LDNS_RR_TYPE_A, 60, "192.0.2.1");
	assert_int_equal(dnsb_azure_rrset_body(&body, &s, 1, &err), 0);
	assert_string_equal(body, "{\"properties\":{\"ttl\":60,\"aRecords\":[{\"ipv4Address\":\"192.0.2.1\"}]}}");
	free(body);
	dnsb_rrset_clear(&s);
	rrset_set(&s, "www.example.com.", LDNS_RR_TYPE_NS, 60, "ns1.example.com.");
	assert_int_equal(dnsb_azure_rrset_body(&body, &s, 1, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "private"));
	dnsb_rrset_clear(&s);
	rrset_set(&s, "www.example.com.", LDNS_RR_TYPE_SSHFP, 60, "1 1 0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(dnsb_azure_rrset_body(&body, &s, 0, &err), DNSB_EINVAL);
	dnsb_rrset_clear(&s);
}

static void test_apex_and_soa(void **state)
{
	dnsb_rrset_list list = { 0 };
	dnsb_error err;
	json_object *apex = json_tokener_parse("{\"name\":\"@\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"x\","
					       "\"properties\":{\"TTL\":60,\"ARecords\":[{\"ipv4Address\":\"192.0.2.9\"}]}}");
	json_object *soa = json_tokener_parse("{\"name\":\"@\",\"type\":\"Microsoft.Network/dnszones/SOA\",\"etag\":\"x\","
					      "\"properties\":{\"TTL\":3600,\"SOARecord\":{\"host\":\"ns1\"}}}");

	(void)state;
	assert_int_equal(dnsb_azure_rrset_parse(&list, NULL, apex, "example.com.", NULL, 0, &err), 0);
	assert_int_equal(dnsb_azure_rrset_parse(&list, NULL, soa, "example.com.", NULL, 0, &err), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].owner, "example.com.");
	json_object_put(apex);
	json_object_put(soa);
	dnsb_rrset_list_clear(&list);
}

static void expect_class(long status, const char *body, dnsb_class cls, const char *code)
{
	dnsb_http_response r = reply(status, body, status == 429 ? 7 : -1);
	dnsb_result res;

	dnsb_result_init(&res);
	dnsb_azure_classify(&res, &r);
	assert_int_equal(res.cls, cls);
	assert_string_equal(res.code, code);
	if (status == 429)
		assert_true(res.retry_after == 7);
}

static void test_classes(void **state)
{
	(void)state;
	expect_class(200, "{}", DNSB_CLASS_OK, "");
	expect_class(201, "{}", DNSB_CLASS_OK, "");
	expect_class(412, "{\"error\":{\"code\":\"PreconditionFailed\",\"message\":\"m\"}}", DNSB_CLASS_CONFLICT,
		     "PreconditionFailed");
	expect_class(409, "{\"error\":{\"code\":\"Conflict\",\"message\":\"a CNAME record set\"}}", DNSB_CLASS_CONFLICT,
		     "Conflict");
	expect_class(400, "{\"error\":{\"code\":\"BadRequest\",\"message\":\"CNAME conflicts\"}}", DNSB_CLASS_CONFLICT,
		     "BadRequest");
	expect_class(400, "{\"error\":{\"code\":\"BadRequest\",\"message\":\"bad address\"}}", DNSB_CLASS_INVALID,
		     "BadRequest");
	expect_class(429, "{\"error\":{\"code\":\"TooManyRequests\"}}", DNSB_CLASS_RATE_LIMITED, "TooManyRequests");
	expect_class(502, "{\"error\":{\"code\":\"BadGateway\"}}", DNSB_CLASS_TRANSIENT, "BadGateway");
	expect_class(401, "{\"error\":{\"code\":\"InvalidAuthenticationToken\"}}", DNSB_CLASS_FATAL,
		     "InvalidAuthenticationToken");
	expect_class(403, "{\"error\":{\"code\":\"AuthorizationFailed\"}}", DNSB_CLASS_FATAL, "AuthorizationFailed");
	expect_class(404, "{\"error\":{\"code\":\"ParentResourceNotFound\"}}", DNSB_CLASS_FATAL, "ParentResourceNotFound");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bodies_round_trip),
		cmocka_unit_test(test_private_spelling_and_unheld_types),
		cmocka_unit_test(test_apex_and_soa),
		cmocka_unit_test(test_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
