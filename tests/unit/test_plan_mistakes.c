/*
 * test_plan_mistakes.c - files that are no external-dns plan, and JSON read
 * strictly (issue 33 §3): refused with what was expected and what the file
 * looks like; external-dns's own "no changes" bodies still accepted; a
 * trailing comma named; a UTF-8 byte order mark skipped. Both readers
 * (stream.c a value at a time, parse.c the whole tree) are reached: a long
 * list of good endpoints before the fault. A plan that writes and deletes one
 * RRset: both changes invalid, each naming the other.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/plan.h"

#define EXPECTED "expected an object with create, updateOld, updateNew and delete lists (an external-dns plan)"
#define EP_A "{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}"

#define count_of(json) count_of_len((json), strlen(json))

static size_t count_of_len(const char *json, size_t len)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };
	int rc = dnsb_plan_parse(&plan, json, len, "plan.json", &err);
	size_t n;

	if (rc != 0)
		print_error("unexpected parse failure: %s\n", err.message);
	assert_int_equal(rc, 0);
	n = dnsb_plan_count(plan);
	dnsb_plan_free(plan);
	return n;
}

static void refused(const char *json, const char *message)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_plan_parse(&plan, json, strlen(json), "plan.json", &err), DNSB_EPARSE);
	assert_null(plan);
	assert_string_equal(err.message, message);
}

static void test_route53_change_batch_is_refused(void **state)
{
	(void)state;
	refused("{\"Comment\":\"x\",\"Changes\":[{\"Action\":\"CREATE\",\"ResourceRecordSet\":{\"Name\":\"a.example.com\","
		"\"Type\":\"A\",\"TTL\":300,\"ResourceRecords\":[{\"Value\":\"192.0.2.1\"}]}}]}",
		"plan.json: $: " EXPECTED "; this one has only the keys Comment, Changes: it looks like a Route53 change "
		"batch (aws route53 change-resource-record-sets --change-batch)");
	refused("{\"additions\":[],\"deletions\":[]}",
		"plan.json: $: " EXPECTED "; this one has only the keys additions, deletions: it looks like a Cloud DNS change");
}

static void test_object_without_lists_is_refused(void **state)
{
	(void)state;
	refused("{\"creates\":[" EP_A "]}", "plan.json: $: " EXPECTED "; this one has only the key creates");
	refused(" {\"records\" : [] }\n", "plan.json: $: " EXPECTED "; this one has only the key records");
}

static void test_no_changes_as_external_dns_sends_them(void **state)
{
	(void)state;
	/* v0.14+: omitempty on every list, so no changes is {}; before: no JSON tags, every list null. */
	assert_int_equal(count_of("{}"), 0);
	assert_int_equal(count_of("null"), 0);
	assert_int_equal(count_of("{\"Create\":null,\"UpdateOld\":null,\"UpdateNew\":null,\"Delete\":null}"), 0);
	assert_int_equal(count_of("{\"create\":[],\"updateOld\":[],\"updateNew\":[],\"delete\":[]}"), 0);
	/* a list beside unknown keys is a plan: the unknown keys are only warned about */
	assert_int_equal(count_of("{\"comment\":\"x\",\"delete\":[" EP_A "]}"), 1);
}

/* A plan of n creates, then `tail` (the fault): long enough for the stream reader to read the good ones first. */
static char *long_plan(size_t n, const char *tail)
{
	size_t one = sizeof(EP_A), len = 16 + n * one + strlen(tail);
	char *buf = malloc(len), *p = buf;

	assert_non_null(buf);
	p += sprintf(p, "{\"create\":[");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? "," : "", EP_A);
	strcpy(p, tail);
	return buf;
}

static void test_trailing_comma_is_refused_and_named(void **state)
{
	char *plan = long_plan(3, ",\n]}");

	(void)state;
	refused(plan, "plan.json:2:1 (offset 219): not JSON: a comma before the closing bracket "
		"(RFC 8259 JSON allows no trailing comma)");
	free(plan);
	refused("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",}]}",
		"plan.json:1:80 (offset 79): not JSON: a comma before the closing bracket "
		"(RFC 8259 JSON allows no trailing comma)");
	refused("{\"create\":[],}", "plan.json:1:14 (offset 13): not JSON: a comma before the closing bracket "
		"(RFC 8259 JSON allows no trailing comma)");
}

static void test_strict_json(void **state)
{
	(void)state;
	refused("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":0300}]}",
		"plan.json:1:96 (offset 95): not JSON: number expected");
	refused("/* plan */ {}", "plan.json:1:1 (offset 0): not JSON: unexpected character");
	/* What real plans hold passes: layout, \u escapes (a surrogate pair too), UTF-8, a big TTL. */
	const char *real = "{\n  \"create\": [\n    {\n      \"dnsName\": \"b\\u00fccher.example.com\",\n"
			   "      \"targets\": [\"\\\"caf\xc3\xa9 \\ud83d\\ude00\\\"\"],\n      \"recordType\": \"TXT\",\n"
			   "      \"recordTTL\": 2147483647,\n      \"labels\": {}\n    }\n  ],\n  \"delete\": null\n}\n";
	assert_int_equal(count_of(real), 1);
}

static void test_byte_order_mark_is_skipped(void **state)
{
	char *plan = long_plan(2, "]}");
	size_t len = strlen(plan);
	char *bom = malloc(len + 4);

	(void)state;
	assert_non_null(bom);
	memcpy(bom, "\xEF\xBB\xBF", 3);
	memcpy(bom + 3, plan, len + 1);
	assert_int_equal(count_of_len(bom, len + 3), 2);
	assert_int_equal(count_of("\xEF\xBB\xBF{}"), 0);
	/* Past the mark, a fault is told where an editor shows it. */
	refused("\xEF\xBB\xBF{\"create\":[],}", "plan.json:1:14 (offset 13): not JSON: a comma before the closing "
		"bracket (RFC 8259 JSON allows no trailing comma)");
	free(bom);
	free(plan);
	/* A UTF-16 mark is named, not "unexpected character" */
	refused("\xFF\xFE{\0}\0", "plan.json: not JSON: the text starts with a UTF-16 byte order mark; a plan is UTF-8 "
		"(RFC 8259 §8.1): convert it with iconv -f UTF-16 -t UTF-8");
}

static dnsb_plan *parsed(const char *json)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	assert_int_equal(dnsb_plan_parse(&plan, json, strlen(json), "plan.json", &err), 0);
	return plan;
}

static void assert_invalid(dnsb_plan *plan, size_t i, const char *message)
{
	dnsb_change *c = dnsb_plan_change(plan, i);

	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(c->reason, DNSB_REASON_INVALID);
	assert_string_equal(c->message, message);
}

#define EP(name, type, target, extra) \
	"{\"dnsName\":\"" name "\",\"targets\":[\"" target "\"],\"recordType\":\"" type "\"" extra "}"

static void test_create_and_delete_of_one_rrset_are_invalid(void **state)
{
	/* creates: 0 c A, 1 c AAAA, 2 r A; updates: 0 u A (set one); deletes: 0 x A, 1 c A, 2 u A (set one),
	 * 3 u A (set two), 4 r A (other records: a replacement) */
	dnsb_plan *plan = parsed(
		"{\"create\":[" EP("c.example.com", "A", "192.0.2.1", "") "," EP("c.example.com", "AAAA", "2001:db8::1", "")
		"," EP("r.example.com", "A", "192.0.2.5", "")
		"],\"updateOld\":[" EP("u.example.com", "A", "192.0.2.2", ",\"setIdentifier\":\"one\"")
		"],\"updateNew\":[" EP("u.example.com", "A", "192.0.2.3", ",\"setIdentifier\":\"one\"")
		"],\"delete\":[" EP("x.example.com", "A", "192.0.2.9", "") "," EP("C.example.com.", "A", "192.0.2.1", "") ","
		EP("u.example.com", "A", "192.0.2.2", ",\"setIdentifier\":\"one\"") ","
		EP("u.example.com", "A", "192.0.2.2", ",\"setIdentifier\":\"two\"") "," EP("r.example.com", "A", "192.0.2.4", "")
		"]}");
	const char *create = "$.create[0] and $.delete[1] (c.example.com. A): the plan both creates and deletes this RRset, "
			     "with the same records; neither is sent";
	const char *update = "$.updateNew[0] and $.delete[2] (u.example.com. A): the plan both updates and deletes this "
			     "RRset; neither is sent";

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 9); /* creates, updates, deletes */
	assert_invalid(plan, 0, create);
	assert_int_equal(dnsb_plan_change(plan, 1)->outcome, DNSB_OUTCOME_PENDING); /* AAAA: another RRset */
	assert_int_equal(dnsb_plan_change(plan, 2)->outcome, DNSB_OUTCOME_PENDING); /* r: replaced */
	assert_invalid(plan, 3, update);
	assert_int_equal(dnsb_plan_change(plan, 4)->outcome, DNSB_OUTCOME_PENDING); /* x: nothing writes it */
	assert_invalid(plan, 5, create);
	assert_invalid(plan, 6, update);
	assert_int_equal(dnsb_plan_change(plan, 7)->outcome, DNSB_OUTCOME_PENDING); /* set two: another RRset */
	assert_int_equal(dnsb_plan_change(plan, 8)->outcome, DNSB_OUTCOME_PENDING); /* r: a replacement */
	dnsb_plan_free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route53_change_batch_is_refused),
		cmocka_unit_test(test_object_without_lists_is_refused),
		cmocka_unit_test(test_no_changes_as_external_dns_sends_them),
		cmocka_unit_test(test_trailing_comma_is_refused_and_named),
		cmocka_unit_test(test_strict_json),
		cmocka_unit_test(test_byte_order_mark_is_skipped),
		cmocka_unit_test(test_create_and_delete_of_one_rrset_are_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
