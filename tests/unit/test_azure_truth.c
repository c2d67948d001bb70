/*
 * test_azure_truth.c - what the azure provider reads is what Azure holds
 * (issue 31): TXT value strings over 255 octets read as 255-octet
 * character-strings and written back as Azure holds them (one value[]
 * string of up to 1,024 octets); both shapes of an error body; record sets
 * this library cannot represent (alias, auto-registered, empty, unreadable)
 * kept apart from the RRsets, named, and held by a read of keys.
 * The provider against the fake is tests/integration/test_azure_truth.sh.
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

/* n octets of c, as a malloc'd string. */
static char *octets(size_t n, char c)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* A TXT record set {"name":"t", ..., "TXTRecords":[{"value": values}]} as a listing holds it. */
static json_object *txt_set(const char *const *values, size_t n)
{
	json_object *rs = json_object_new_object(), *props = json_object_new_object();
	json_object *recs = json_object_new_array(), *rec = json_object_new_object(), *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(arr, json_object_new_string(values[i]));
	json_object_object_add(rec, "value", arr);
	json_object_array_add(recs, rec);
	json_object_object_add(props, "TTL", json_object_new_int(300));
	json_object_object_add(props, "TXTRecords", recs);
	json_object_object_add(rs, "name", json_object_new_string("t"));
	json_object_object_add(rs, "type", json_object_new_string("Microsoft.Network/dnszones/TXT"));
	json_object_object_add(rs, "etag", json_object_new_string("e-1"));
	json_object_object_add(rs, "properties", props);
	return rs;
}

/* The lengths of the value[] strings of an RRset's body, as "a,b,c". */
static void value_lengths(char *buf, size_t size, const dnsb_rrset *s)
{
	dnsb_error err;
	char *body = NULL;
	json_object *doc, *props, *recs, *value;
	size_t len = 0;

	assert_int_equal(dnsb_azure_rrset_body(&body, s, 0, &err), 0);
	doc = json_tokener_parse(body);
	assert_true(json_object_object_get_ex(doc, "properties", &props));
	assert_true(json_object_object_get_ex(props, "TXTRecords", &recs));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(recs, 0), "value", &value));
	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(value); i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "",
					json_object_get_string_len(json_object_array_get_idx(value, i)));
	json_object_put(doc);
	free(body);
}

/* Values read, then written back: the character-strings read, and the value[] lengths written. */
static void txt_case(const char *const *values, size_t n, const char *want_strings, const char *want_lengths)
{
	dnsb_rrset_list list = { 0 };
	dnsb_hb_tags tags = { 0 };
	dnsb_error err;
	json_object *rs = txt_set(values, n);
	char lengths[128], strings[128];
	size_t len = 0;
	ldns_rr_list *rrs = ldns_rr_list_new();
	ldns_rr *rr;

	assert_int_equal(dnsb_azure_rrset_parse(&list, &tags, rs, "example.com.", NULL, 0, &err), 0);
	assert_int_equal(list.count, 1);
	assert_int_equal(tags.count, 1);
	assert_null(dnsb_azure_opaque(&tags, "t.example.com.", LDNS_RR_TYPE_TXT));
	assert_int_equal(dnsb_rrset_to_ldns(rrs, &list.items[0], &err), 0);
	rr = ldns_rr_list_rr(rrs, 0);
	for (size_t i = 0; i < ldns_rr_rd_count(rr); i++) /* each character-string's octets (its length octet aside) */
		len += (size_t)snprintf(strings + len, sizeof(strings) - len, "%s%zu", i ? "," : "",
					ldns_rdf_size(ldns_rr_rdf(rr, i)) - 1);
	assert_string_equal(strings, want_strings);
	value_lengths(lengths, sizeof(lengths), &list.items[0]);
	assert_string_equal(lengths, want_lengths);
	ldns_rr_list_deep_free(rrs);
	json_object_put(rs);
	dnsb_rrset_list_clear(&list);
	dnsb_hb_tags_clear(&tags);
}

static void test_txt_over_255(void **state)
{
	char *s255 = octets(255, 'a'), *s256 = octets(256, 'b'), *s1024 = octets(1024, 'c');
	const char *one255[] = { s255 }, *one256[] = { s256 }, *two1024[] = { s1024, s1024 };

	(void)state;
	txt_case(one255, 1, "255", "255");
	txt_case(one256, 1, "255,1", "256"); /* a DKIM key as one string: 255 + 1, written back whole */
	txt_case(two1024, 2, "255,255,255,255,4,255,255,255,255,4", "1024,1024");
	free(s255);
	free(s256);
	free(s1024);
}

/* 2,048 octets from a plan (8 x 255 + 8): value[] strings within Azure's 1,024. */
static void test_txt_2048_written_within_the_limit(void **state)
{
	char rdata[2048 + 3 * 9 + 1], lengths[64];
	size_t len = 0;
	dnsb_rrset s;

	(void)state;
	for (int i = 0; i < 9; i++) {
		size_t n = i < 8 ? 255 : 8;
		len += (size_t)snprintf(rdata + len, sizeof(rdata) - len, "%s\"", i ? " " : "");
		memset(rdata + len, 'd', n);
		len += n;
		rdata[len++] = '"';
		rdata[len] = '\0';
	}
	rrset_set(&s, "t.example.com.", LDNS_RR_TYPE_TXT, 300, rdata);
	value_lengths(lengths, sizeof(lengths), &s);
	assert_string_equal(lengths, "1020,1020,8");
	dnsb_rrset_clear(&s);
}

static dnsb_http_response reply(long status, const char *body)
{
	return http_reply(status, "application/json; charset=utf-8", body, -1);
}

static void test_error_shapes(void **state)
{
	const char *bodies[] = { "{\"error\":{\"code\":\"NotFound\",\"message\":\"The resource record 'x' does not exist.\"}}",
				 "{\"code\":\"NotFound\",\"message\":\"The resource record 'x' does not exist.\"}" };
	const char *refusals[] = { "{\"error\":{\"code\":\"PreconditionFailed\",\"message\":\"etag mismatch\"}}",
				   "{\"code\":\"PreconditionFailed\",\"message\":\"etag mismatch\"}" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		dnsb_http_response r = reply(404, bodies[i]), w = reply(412, refusals[i]);
		dnsb_result res;
		dnsb_error err;
		char code[64], msg[128];
		dnsb_azure_reply_fields(&r, code, sizeof(code), msg, sizeof(msg));
		assert_string_equal(code, "NotFound");
		assert_string_equal(msg, "The resource record 'x' does not exist.");
		assert_int_equal(dnsb_azure_reply_error(&r, "read record set", &err), DNSB_EFATAL);
		assert_non_null(strstr(err.message, "404 NotFound: The resource record"));
		dnsb_result_init(&res);
		dnsb_azure_classify(&res, &w);
		assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
		assert_string_equal(res.code, "PreconditionFailed");
		assert_string_equal(res.message, "etag mismatch");
	}
}

/* Parse one record set (JSON text) with tags or without, keys or the listing; @return the list's count. */
static size_t parse(const char *json, dnsb_hb_tags *tags, int keyed, dnsb_rrset_list *list)
{
	dnsb_rrkey key = { "x.example.com.", DNSB_RRKEY_ANY };
	json_object *rs = json_tokener_parse(json);
	dnsb_error err;

	assert_non_null(rs);
	assert_int_equal(dnsb_azure_rrset_parse(list, tags, rs, "example.com.", keyed ? &key : NULL, keyed ? 1 : 0, &err), 0);
	json_object_put(rs);
	return list->count;
}

/* A record set that cannot be an RRset: apart in tags (reason containing `why`), held without records by a read
 * of keys (with its records when `whole`), left out of the listing. */
static void opaque_case(const char *json, const char *why, int whole)
{
	dnsb_rrset_list list = { 0 };
	dnsb_hb_tags tags = { 0 };
	const char *reason;

	assert_int_equal(parse(json, &tags, 1, &list), 0);
	assert_non_null(reason = dnsb_azure_opaque(&tags, "x.example.com.", LDNS_RR_TYPE_A));
	assert_non_null(strstr(reason, why));
	assert_null(dnsb_hb_tags_find(&tags, "x.example.com.", LDNS_RR_TYPE_A, NULL, NULL)); /* no ETag to write on */
	dnsb_hb_tags_clear(&tags);
	assert_int_equal(parse(json, NULL, 0, &list), 0);
	assert_int_equal(parse(json, NULL, 1, &list), 1);
	assert_string_equal(list.items[0].owner, "x.example.com.");
	assert_int_equal(list.items[0].rdata_count, whole ? 1 : 0);
	dnsb_rrset_list_clear(&list);
}

static void test_unrepresentable(void **state)
{
	(void)state;
	opaque_case("{\"name\":\"x\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e\",\"properties\":{\"TTL\":60,"
		    "\"ARecords\":[],\"targetResource\":{\"id\":\"/subscriptions/s/resourceGroups/g/providers/"
		    "Microsoft.Network/trafficManagerProfiles/tm\"}}}", "alias", 0);
	opaque_case("{\"name\":\"x\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e\",\"properties\":{\"TTL\":60,"
		    "\"targetResourceId\":\"/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/publicIPAddresses/ip\"}}",
		    "alias", 0);
	opaque_case("{\"name\":\"x\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e\",\"properties\":{\"TTL\":60,"
		    "\"ARecords\":[]}}", "empty", 0);
	opaque_case("{\"name\":\"x\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e\",\"properties\":{\"TTL\":60,"
		    "\"ARecords\":[{\"ipv4Address\":\"192.0.2.1\"},{\"ipv4Address\":\"not an address\"}]}}", "cannot read", 0);
	opaque_case("{\"name\":\"x\",\"type\":\"Microsoft.Network/privateDnsZones/A\",\"etag\":\"e\",\"properties\":{"
		    "\"ttl\":10,\"aRecords\":[{\"ipv4Address\":\"10.0.0.4\"}],\"isAutoRegistered\":true}}", "automatically", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_txt_over_255),
		cmocka_unit_test(test_txt_2048_written_within_the_limit),
		cmocka_unit_test(test_error_shapes),
		cmocka_unit_test(test_unrepresentable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
