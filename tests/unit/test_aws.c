/*
 * test_aws.c - the aws provider without a server: the class of every
 * Route53 reply of docs/design.md §3.1 and the reference, culprits from every
 * [name='...', type='...'] and "RRSet of type T with DNS name N" message of
 * one InvalidChangeBatch (none when two changes hold the name and type),
 * the ChangeResourceRecordSets body (DELETE before CREATE, never UPSERT,
 * unset old TTLs filled from the read, aliases as AliasTarget), the hosted
 * zone of an alias target (AWS services' zones, the account's own, none),
 * ListResourceRecordSets and ListHostedZones pages (\052 decoded,
 * pagination, AliasTarget read as an alias, routing-policy sets skipped), the
 * --aws-wait-insync's flag and a reply without a change id, the shared
 * credentials file (without showing a secret) and ISO 8601 times.
 * The fake server is tests/fakes/fake_route53.py (tests/integration/test_aws.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnsbatch/clock.h"
#include "providers/aws/aws.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"

/* ---- helpers ---- */

static dnsb_change *change_new(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
			       const char *new_rdata)
{
	return change_with_ttl(kind, owner, type, old_rdata, new_rdata, 600);
}

/* create a, update b, delete c, create *.w, create d (CNAME). */
static void batch_make(dnsb_change **c)
{
	c[0] = change_new(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	c[1] = change_new(DNSB_CHANGE_UPDATE, "b.example.com.", LDNS_RR_TYPE_TXT, "\"old\"", "\"new\"");
	c[2] = change_new(DNSB_CHANGE_DELETE, "c.example.com.", LDNS_RR_TYPE_A, "192.0.2.3", NULL);
	c[3] = change_new(DNSB_CHANGE_CREATE, "*.w.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.4");
	c[4] = change_new(DNSB_CHANGE_CREATE, "d.example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.com.");
}

static dnsb_http_response reply(long status, const char *body)
{
	return http_reply(status, NULL, body, -1);
}

#define ERR(code, msg) \
	"<?xml version=\"1.0\"?>\n<ErrorResponse xmlns=\"" DNSB_AWS_XMLNS "\"><Error><Type>Sender</Type><Code>" code \
	"</Code><Message>" msg "</Message></Error><RequestId>r</RequestId></ErrorResponse>"
#define BATCH(msgs) \
	"<?xml version=\"1.0\"?>\n<InvalidChangeBatch xmlns=\"" DNSB_AWS_XMLNS "\"><Messages>" msgs \
	"</Messages><RequestId>r</RequestId></InvalidChangeBatch>"
#define MSG(m) "<Message>" m "</Message>"

static int has_culprit(const dnsb_result *res, size_t index)
{
	for (size_t i = 0; i < res->culprit_count; i++)
		if (res->culprits[i] == index)
			return 1;
	return 0;
}

/* ---- classification ---- */

static void test_classify_table(void **state)
{
	static const struct {
		long status;
		const char *body;
		dnsb_class cls;
		const char *code;
	} rows[] = {
		{ 200, "<ChangeResourceRecordSetsResponse/>", DNSB_CLASS_OK, "" },
		{ 400, BATCH(MSG("Tried to create resource record set [name='a.example.com.', type='A'] but it already exists")),
		  DNSB_CLASS_CONFLICT, "InvalidChangeBatch" },
		{ 400, BATCH(MSG("Tried to delete resource record set [name='c.example.com.', type='A'] but it was not found")),
		  DNSB_CLASS_CONFLICT, "InvalidChangeBatch" },
		{ 400, BATCH(MSG("Tried to delete resource record set [name='b.example.com.', type='TXT'] but the values provided do not match the current values")),
		  DNSB_CLASS_CONFLICT, "InvalidChangeBatch" },
		{ 400, BATCH(MSG("RRSet of type A with DNS name a.example.com. is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone example.com.")),
		  DNSB_CLASS_CONFLICT, "InvalidChangeBatch" },
		{ 400, ERR("InvalidChangeBatch", "Tried to create resource record set [name='a.example.com.', type='A'] but it already exists"),
		  DNSB_CLASS_CONFLICT, "InvalidChangeBatch" },
		{ 400, BATCH(MSG("Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '999.1.1.1''")),
		  DNSB_CLASS_INVALID, "InvalidChangeBatch" },
		{ 400, BATCH(MSG("Number of records limit of 1000 exceeded.")), DNSB_CLASS_TOO_LARGE, "InvalidChangeBatch" },
		{ 400, ERR("InvalidChangeBatch", "Number of records limit of 1000 exceeded."), DNSB_CLASS_TOO_LARGE, "InvalidChangeBatch" },
		{ 400, ERR("InvalidInput", "Invalid request"), DNSB_CLASS_INVALID, "InvalidInput" },
		{ 400, ERR("Throttling", "Rate exceeded"), DNSB_CLASS_RATE_LIMITED, "Throttling" },
		{ 400, ERR("PriorRequestNotComplete", "still processing"), DNSB_CLASS_RATE_LIMITED, "PriorRequestNotComplete" },
		{ 500, ERR("InternalFailure", "oops"), DNSB_CLASS_TRANSIENT, "InternalFailure" },
		{ 502, "<html>Bad Gateway</html>", DNSB_CLASS_TRANSIENT, "" },
		{ 503, "", DNSB_CLASS_TRANSIENT, "" },
		/* 408 Request Timeout: transient, as for every other backend (it was fatal). */
		{ 408, "", DNSB_CLASS_TRANSIENT, "" },
		{ 408, ERR("RequestTimeout", "timed out"), DNSB_CLASS_TRANSIENT, "RequestTimeout" },
		{ 403, ERR("AccessDenied", "not authorized"), DNSB_CLASS_FATAL, "AccessDenied" },
		{ 403, ERR("InvalidClientTokenId", "invalid"), DNSB_CLASS_FATAL, "InvalidClientTokenId" },
		{ 403, ERR("SignatureDoesNotMatch", "mismatch"), DNSB_CLASS_FATAL, "SignatureDoesNotMatch" },
		{ 403, ERR("ExpiredToken", "expired"), DNSB_CLASS_FATAL, "ExpiredToken" },
		{ 404, ERR("NoSuchHostedZone", "No hosted zone found with ID: Z1"), DNSB_CLASS_FATAL, "NoSuchHostedZone" },
	};
	dnsb_change *c[5];
	dnsb_result res;

	(void)state;
	batch_make(c);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		dnsb_http_response r = reply(rows[i].status, rows[i].body);
		dnsb_aws_classify(&res, &r, c, 5);
		if (res.cls != rows[i].cls || strcmp(res.code, rows[i].code) != 0)
			fail_msg("row %zu (HTTP %ld): class %s code '%s', expected %s '%s'", i, rows[i].status,
				 dnsb_class_name(res.cls), res.code, dnsb_class_name(rows[i].cls), rows[i].code);
		assert_int_equal(res.status, rows[i].status);
	}
	changes_free(c, 5);
}

static void test_retry_after_kept_for_throttling(void **state)
{
	dnsb_change *c[5];
	dnsb_http_response r = reply(400, ERR("Throttling", "Rate exceeded"));
	dnsb_result res;

	(void)state;
	batch_make(c);
	r.retry_after = 2;
	dnsb_aws_classify(&res, &r, c, 5);
	assert_int_equal(res.cls, DNSB_CLASS_RATE_LIMITED);
	assert_true(res.retry_after == 2);
	assert_string_equal(res.message, "Rate exceeded");
	changes_free(c, 5);
}

static void test_every_message_names_its_change(void **state)
{
	dnsb_change *c[5];
	dnsb_http_response r = reply(400, BATCH(
		MSG("Tried to create resource record set [name='a.example.com.', type='A'] but it already exists")
		MSG("Tried to delete resource record set [name='b.example.com.', type='TXT'] but the values provided do not match the current values")
		MSG("Tried to delete resource record set [name='c.example.com.', type='A'] but it was not found")
		MSG("Tried to create resource record set [name='\\052.w.example.com.', type='A'] but it already exists")
		MSG("RRSet of type CNAME with DNS name d.example.com. is not permitted as it conflicts with other records with the same DNS name in zone example.com.")));
	dnsb_result res;

	(void)state;
	batch_make(c);
	dnsb_aws_classify(&res, &r, c, 5);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 5);
	for (size_t i = 0; i < 5; i++)
		assert_true(has_culprit(&res, i));
	/* Every message kept, on one line. */
	assert_non_null(strstr(res.message, "already exists; Tried to delete"));
	changes_free(c, 5);
}

static void test_culprit_with_set_identifier_and_cname_form(void **state)
{
	dnsb_change *c[6];
	dnsb_http_response r = reply(400, BATCH(
		MSG("Tried to create resource record set [name='a.example.com.', type='A', set-identifier='eu'] but it already exists")
		MSG("RRSet of type A with DNS name \\052.w.example.com. is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone example.com.")));
	dnsb_result res;

	(void)state;
	batch_make(c);
	/* Two sets at a.example.com. A: the message's set identifier names the one. */
	c[5] = change_new(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.9");
	assert_non_null(c[0]->new_set.set_id = strdup("us"));
	assert_non_null(c[5]->new_set.set_id = strdup("eu"));
	dnsb_aws_classify(&res, &r, c, 6);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 2);
	assert_true(has_culprit(&res, 5));
	assert_false(has_culprit(&res, 0));
	assert_true(has_culprit(&res, 3));
	changes_free(c, 6);
}

/* A value Route53 cannot take names the one change writing it (both message forms); a value two write, none. */
static void test_refused_value_names_its_change(void **state)
{
	dnsb_change *c[6];
	dnsb_http_response r = reply(400, BATCH(
		MSG("Invalid Resource Record: FATAL problem: InvalidCharacterString (Value should be enclosed in quotation marks) encountered with '\"new\"'")
		MSG("Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '192.0.2.4''")
		MSG("Invalid Resource Record: FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '192.0.2.1'")));
	dnsb_result res;

	(void)state;
	batch_make(c);
	/* A second change writing 192.0.2.1: that message cannot say which. */
	c[5] = change_new(DNSB_CHANGE_CREATE, "e.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	dnsb_aws_classify(&res, &r, c, 6);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(res.culprit_count, 2);
	assert_true(has_culprit(&res, 1));
	assert_true(has_culprit(&res, 3));
	assert_non_null(strstr(dnsb_result_note(&res, 3), "ARRDATAIllegalIPv4Address"));
	changes_free(c, 6);
}

static void test_ambiguous_or_unknown_names_name_nothing(void **state)
{
	dnsb_change *c[6];
	dnsb_http_response r = reply(400, BATCH(
		MSG("Tried to create resource record set [name='a.example.com.', type='A'] but it already exists")
		MSG("Tried to create resource record set [name='zzz.example.com.', type='A'] but it already exists")
		MSG("Tried to create resource record set [name='c.example.com.', type='AAAA'] but it already exists")
		MSG("something without a name")));
	dnsb_result res;

	(void)state;
	batch_make(c);
	/* A second change on a.example.com. A: the message cannot say which. */
	c[5] = change_new(DNSB_CHANGE_DELETE, "a.example.com.", LDNS_RR_TYPE_A, "192.0.2.9", NULL);
	dnsb_aws_classify(&res, &r, c, 6);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 0);
	changes_free(c, 6);
}

static void test_error_code(void **state)
{
	char code[64];
	static const char body[] = ERR("ExpiredToken", "expired");

	(void)state;
	dnsb_aws_error_code(code, sizeof(code), body, strlen(body));
	assert_string_equal(code, "ExpiredToken");
	dnsb_aws_error_code(code, sizeof(code), "not xml", 7);
	assert_string_equal(code, "");
}

static void test_reply_error(void **state)
{
	dnsb_http_response r = reply(400, ERR("Throttling", "Rate exceeded"));
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_aws_reply_error(&r, "ListResourceRecordSets", &err), DNSB_ERATELIMIT);
	r = reply(503, "");
	assert_int_equal(dnsb_aws_reply_error(&r, "ListResourceRecordSets", &err), DNSB_ETRANSIENT);
	r = reply(408, "");
	assert_int_equal(dnsb_aws_reply_error(&r, "ListResourceRecordSets", &err), DNSB_ETRANSIENT);
	r = reply(404, ERR("NoSuchHostedZone", "No hosted zone found with ID: Z9"));
	assert_int_equal(dnsb_aws_reply_error(&r, "ListResourceRecordSets", &err), DNSB_EFATAL);
	assert_non_null(strstr(err.message, "NoSuchHostedZone"));
	assert_non_null(strstr(err.message, "Z9"));
}

/* ---- the body ---- */

static void test_body_order_and_unset_ttl(void **state)
{
	dnsb_change *c[5];
	dnsb_rrset_list held = { 0 };
	dnsb_rrset cur;
	dnsb_aws_body body;
	const char *del_b, *cre_b, *del_c;

	(void)state;
	batch_make(c);
	c[2]->old.ttl = DNSB_TTL_UNSET;
	rrset_set(&cur, "c.example.com.", LDNS_RR_TYPE_A, 1234, "192.0.2.3");
	assert_int_equal(dnsb_rrset_list_push(&held, &cur), 0);
	assert_int_equal(dnsb_aws_body_build(&body, c, 5, &held, NULL, NULL), 0);
	assert_int_equal(body.count, 6);
	assert_int_equal(body.records, 6);
	size_t want[] = { 0, 1, 1, 2, 3, 4 };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(body.origin[i], want[i]);
	assert_non_null(strstr(body.xml, "<ChangeResourceRecordSetsRequest xmlns=\"" DNSB_AWS_XMLNS "\">"));
	assert_null(strstr(body.xml, "UPSERT"));
	/* The update: DELETE old before CREATE new, in the model's element order. */
	del_b = strstr(body.xml, "<Action>DELETE</Action><ResourceRecordSet><Name>b.example.com.</Name><Type>TXT</Type><TTL>300</TTL>"
				 "<ResourceRecords><ResourceRecord><Value>\"old\"</Value>");
	cre_b = strstr(body.xml, "<Action>CREATE</Action><ResourceRecordSet><Name>b.example.com.</Name><Type>TXT</Type><TTL>600</TTL>");
	assert_non_null(del_b);
	assert_non_null(cre_b);
	assert_true(del_b < cre_b);
	/* The unset TTL taken from the read. */
	del_c = strstr(body.xml, "<Name>c.example.com.</Name><Type>A</Type><TTL>1234</TTL>");
	assert_non_null(del_c);
	dnsb_aws_body_clear(&body);
	dnsb_rrset_list_clear(&held);
	changes_free(c, 5);
}

/* An alias change: the fixture's change with its RRsets turned into aliases of `kind`. */
static dnsb_change *alias_change(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_target,
				 dnsb_alias old_kind, const char *new_target, dnsb_alias new_kind)
{
	dnsb_change *c = change_new(kind, owner, type, old_target, new_target);

	c->old.alias = old_target ? old_kind : DNSB_ALIAS_NONE;
	c->new_set.alias = new_target ? new_kind : DNSB_ALIAS_NONE;
	return c;
}

static const dnsb_aws_zone own_zones[] = {
	{ (char *)"example.com.", (char *)"ZEXAMPLE" },
	{ (char *)"internal.example.com.", (char *)"ZINTERNAL" },
	{ (char *)"example.com.", (char *)"ZEXAMPLEPRIV" },
	{ (char *)"example.net.", (char *)"ZNET" },
};

static void test_body_alias(void **state)
{
	dnsb_change *c[4];
	dnsb_aws_targets targets = { own_zones, 4, "ZEXAMPLE" };
	dnsb_aws_body body;

	(void)state;
	c[0] = alias_change(DNSB_CHANGE_CREATE, "lb.example.com.", LDNS_RR_TYPE_A, NULL, 0,
			    "my-lb-1.us-east-1.elb.amazonaws.com.", DNSB_ALIAS_HEALTH);
	c[1] = alias_change(DNSB_CHANGE_UPDATE, "lb.example.com.", LDNS_RR_TYPE_AAAA, "net-1.elb.eu-west-1.amazonaws.com.",
			    DNSB_ALIAS_PLAIN, "dualstack.my-lb-2.eu-west-1.elb.amazonaws.com.", DNSB_ALIAS_HEALTH);
	c[2] = alias_change(DNSB_CHANGE_DELETE, "cdn.example.com.", LDNS_RR_TYPE_A, "d111111abcdef8.cloudfront.net.",
			    DNSB_ALIAS_PLAIN, NULL, 0);
	c[3] = alias_change(DNSB_CHANGE_CREATE, "example.com.", LDNS_RR_TYPE_A, NULL, 0, "www.example.com.",
			    DNSB_ALIAS_PLAIN);
	assert_int_equal(dnsb_aws_body_build(&body, c, 4, NULL, &targets, NULL), 0);
	assert_int_equal(body.count, 5);
	assert_int_equal(body.records, 0);
	/* The whole Change, in the model's order: Name, Type, AliasTarget (HostedZoneId, DNSName,
	 * EvaluateTargetHealth); no TTL, no ResourceRecords. */
	assert_non_null(strstr(body.xml,
		"<Change><Action>CREATE</Action><ResourceRecordSet><Name>lb.example.com.</Name><Type>A</Type>"
		"<AliasTarget><HostedZoneId>Z35SXDOTRQ7X7K</HostedZoneId><DNSName>my-lb-1.us-east-1.elb.amazonaws.com.</DNSName>"
		"<EvaluateTargetHealth>true</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change>"
		"<Change><Action>DELETE</Action><ResourceRecordSet><Name>lb.example.com.</Name><Type>AAAA</Type>"
		"<AliasTarget><HostedZoneId>Z2IFOLAFXWLO4F</HostedZoneId><DNSName>net-1.elb.eu-west-1.amazonaws.com.</DNSName>"
		"<EvaluateTargetHealth>false</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change>"
		"<Change><Action>CREATE</Action><ResourceRecordSet><Name>lb.example.com.</Name><Type>AAAA</Type>"
		"<AliasTarget><HostedZoneId>Z32O12XQLNTSW2</HostedZoneId><DNSName>dualstack.my-lb-2.eu-west-1.elb.amazonaws.com.</DNSName>"
		"<EvaluateTargetHealth>true</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change>"
		"<Change><Action>DELETE</Action><ResourceRecordSet><Name>cdn.example.com.</Name><Type>A</Type>"
		"<AliasTarget><HostedZoneId>Z2FDTNDATAQYW2</HostedZoneId><DNSName>d111111abcdef8.cloudfront.net.</DNSName>"
		"<EvaluateTargetHealth>false</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change>"
		"<Change><Action>CREATE</Action><ResourceRecordSet><Name>example.com.</Name><Type>A</Type>"
		"<AliasTarget><HostedZoneId>ZEXAMPLE</HostedZoneId><DNSName>www.example.com.</DNSName>"
		"<EvaluateTargetHealth>false</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change>"));
	assert_null(strstr(body.xml, "<TTL>"));
	dnsb_aws_body_clear(&body);
	changes_free(c, 4);
}

static void test_body_alias_without_zone(void **state)
{
	dnsb_change *c[2];
	dnsb_aws_targets targets = { own_zones, 4, "ZEXAMPLE" };
	dnsb_aws_body body;
	dnsb_error err;

	(void)state;
	c[0] = change_new(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	c[1] = alias_change(DNSB_CHANGE_CREATE, "lb.example.com.", LDNS_RR_TYPE_A, NULL, 0, "x.example.org.",
			    DNSB_ALIAS_HEALTH);
	assert_int_equal(dnsb_aws_body_build(&body, c, 2, NULL, &targets, &err), DNSB_EINVAL);
	assert_null(body.xml);
	assert_int_equal(body.count, 0);
	/* Without the zones, no alias can be placed. */
	assert_int_equal(dnsb_aws_body_build(&body, c, 2, NULL, NULL, &err), DNSB_EINVAL);
	assert_int_equal(dnsb_aws_body_build(&body, c, 1, NULL, NULL, &err), 0);
	dnsb_aws_body_clear(&body);
	changes_free(c, 2);
}

/* ---- alias targets ---- */

static void test_service_zones(void **state)
{
	static const struct {
		const char *target, *zone;
	} rows[] = {
		{ "my-lb-1.us-east-1.elb.amazonaws.com.", "Z35SXDOTRQ7X7K" },              /* ALB/CLB */
		{ "dualstack.my-lb-1.us-east-1.elb.amazonaws.com.", "Z35SXDOTRQ7X7K" },    /* CLB dualstack */
		{ "my-nlb-0123.elb.us-east-1.amazonaws.com.", "Z26RNL4JYFTOTI" },          /* NLB */
		{ "dualstack.my-nlb-0123.elb.us-east-1.amazonaws.com.", "Z26RNL4JYFTOTI" },
		{ "a.eu-central-1.elb.amazonaws.com.", "Z215JYRZR1TBD5" },
		{ "a.elb.ap-southeast-2.amazonaws.com.", "ZCT6FZBF4DROD" },
		{ "a.ap-northeast-3.elb.amazonaws.com.", "Z5LXEXXYW11ES" },
		{ "a.elb.ap-northeast-3.amazonaws.com.", NULL },                           /* NLB zone not known */
		{ "a.cn-north-1.elb.amazonaws.com.cn.", "Z1GDH35T77C1KE" },
		{ "a.elb.cn-northwest-1.amazonaws.com.cn.", "ZQEIKTCZ8352D" },
		{ "a.cn-north-1.elb.amazonaws.com.", NULL },                               /* China is .com.cn */
		{ "a.us-gov-west-1.elb.amazonaws.com.", "Z33AYJ8TM3BH4J" },
		{ "a.elb.us-gov-east-1.amazonaws.com.", "Z1ZSMQQ6Q24QQ8" },
		{ "d111111abcdef8.cloudfront.net.", "Z2FDTNDATAQYW2" },
		{ "a1234567890abcdef.awsglobalaccelerator.com.", "Z2BJ6XQ5FK7U4H" },
		{ "x.evilcloudfront.net.", NULL },                                         /* label boundaries */
		{ "a.fakeus-east-1.elb.amazonaws.com.", NULL },
		{ "cloudfront.net.", NULL },                                               /* the suffix itself */
		{ "us-east-1.elb.amazonaws.com.", NULL },
		{ "a.us-east-9.elb.amazonaws.com.", NULL },
		{ "www.example.com.", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *zone = dnsb_aws_service_zone(rows[i].target);
		if (rows[i].zone == NULL ? zone != NULL : zone == NULL || strcmp(zone, rows[i].zone) != 0)
			fail_msg("%s: zone %s, expected %s", rows[i].target, zone ? zone : "none",
				 rows[i].zone ? rows[i].zone : "none");
	}
}

static void test_alias_zone_own_zones(void **state)
{
	(void)state;
	/* A service's zone first, even when an own zone would hold the name. */
	assert_string_equal(dnsb_aws_alias_zone("a.us-west-2.elb.amazonaws.com.", own_zones, 4, NULL), "Z1H1FL5HABSF5");
	/* The longest apex holding the target. */
	assert_string_equal(dnsb_aws_alias_zone("db.internal.example.com.", own_zones, 4, "ZEXAMPLE"), "ZINTERNAL");
	assert_string_equal(dnsb_aws_alias_zone("internal.example.com.", own_zones, 4, "ZEXAMPLE"), "ZINTERNAL");
	assert_string_equal(dnsb_aws_alias_zone("www.example.net.", own_zones, 4, "ZEXAMPLE"), "ZNET");
	/* Two zones of one apex: the batch's own, else the first. */
	assert_string_equal(dnsb_aws_alias_zone("www.example.com.", own_zones, 4, "ZEXAMPLE"), "ZEXAMPLE");
	assert_string_equal(dnsb_aws_alias_zone("www.example.com.", own_zones, 4, "ZEXAMPLEPRIV"), "ZEXAMPLEPRIV");
	assert_string_equal(dnsb_aws_alias_zone("www.example.com.", own_zones, 4, "ZNET"), "ZEXAMPLE");
	assert_string_equal(dnsb_aws_alias_zone("example.com.", own_zones, 4, NULL), "ZEXAMPLE");
	/* Neither. */
	assert_null(dnsb_aws_alias_zone("x.example.org.", own_zones, 4, "ZEXAMPLE"));
	assert_null(dnsb_aws_alias_zone("wwwexample.com.", own_zones, 4, "ZEXAMPLE"));
	assert_null(dnsb_aws_alias_zone("www.example.com.", NULL, 0, NULL));
}

static void test_alias_unplaced(void **state)
{
	dnsb_change *c[4];
	dnsb_result res;

	(void)state;
	c[0] = alias_change(DNSB_CHANGE_CREATE, "lb.example.com.", LDNS_RR_TYPE_A, NULL, 0, "x.example.net.",
			    DNSB_ALIAS_HEALTH);
	c[1] = change_new(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	c[2] = alias_change(DNSB_CHANGE_CREATE, "ok.example.com.", LDNS_RR_TYPE_AAAA, NULL, 0,
			    "my-lb-1.us-east-1.elb.amazonaws.com.", DNSB_ALIAS_HEALTH);
	/* An update whose old alias has no zone, though its new one has. */
	c[3] = alias_change(DNSB_CHANGE_UPDATE, "old.example.com.", LDNS_RR_TYPE_A, "gone.example.org.", DNSB_ALIAS_PLAIN,
			    "d1.cloudfront.net.", DNSB_ALIAS_PLAIN);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_aws_alias_unplaced(&res, c + 1, 2, own_zones, 1, "ZEXAMPLE"), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(res.culprit_count, 0);
	assert_int_equal(dnsb_aws_alias_unplaced(&res, c, 2, own_zones, 1, "ZEXAMPLE"), 1);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.code, "");
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 0);
	assert_string_equal(res.message, "alias target x.example.net. of lb.example.com. A lies in no AWS service zone "
					 "dnsbatch knows nor in a hosted zone of this account");
	assert_int_equal(dnsb_aws_alias_unplaced(&res, c, 4, own_zones, 1, "ZEXAMPLE"), 1);
	assert_int_equal(res.culprit_count, 2);
	assert_int_equal(res.culprits[0], 0);
	assert_int_equal(res.culprits[1], 3);
	/* With example.net. a zone of the account, the first is placed; the update's old target still is not. */
	assert_int_equal(dnsb_aws_alias_unplaced(&res, c, 4, own_zones, 4, "ZEXAMPLE"), 1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 3);
	assert_string_equal(res.message, "alias target gone.example.org. of old.example.com. A lies in no AWS service zone "
					 "dnsbatch knows nor in a hosted zone of this account");
	changes_free(c, 4);
}

static void test_alias_messages_name_the_alias(void **state)
{
	dnsb_change *c[3];
	dnsb_http_response r = reply(400, BATCH(MSG("Tried to create an alias that targets www.example.com., type A in zone "
						    "ZEXAMPLE, but that target was not found")));
	dnsb_result res;

	(void)state;
	c[0] = alias_change(DNSB_CHANGE_CREATE, "apex.example.com.", LDNS_RR_TYPE_A, NULL, 0, "www.example.com.",
			    DNSB_ALIAS_PLAIN);
	c[1] = alias_change(DNSB_CHANGE_CREATE, "lb.example.com.", LDNS_RR_TYPE_A, NULL, 0,
			    "x.us-east-1.elb.amazonaws.com.", DNSB_ALIAS_HEALTH);
	c[2] = change_new(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	dnsb_aws_classify(&res, &r, c, 3);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 0);
	r = reply(400, BATCH(MSG("Tried to create an alias that targets X.us-east-1.elb.amazonaws.com., type A in zone "
				 "Z26RNL4JYFTOTI, but the alias target name does not lie within the target zone")));
	dnsb_aws_classify(&res, &r, c, 3);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	/* Of another type: not that alias. */
	r = reply(400, BATCH(MSG("Tried to create an alias that targets www.example.com., type AAAA in zone "
				 "ZEXAMPLE, but that target was not found")));
	dnsb_aws_classify(&res, &r, c, 3);
	assert_int_equal(res.culprit_count, 0);
	changes_free(c, 3);
}

/* ---- pages ---- */

static const char rrsets_page[] =
	"<?xml version=\"1.0\"?>\n<ListResourceRecordSetsResponse xmlns=\"" DNSB_AWS_XMLNS "\"><ResourceRecordSets>"
	"<ResourceRecordSet><Name>\\052.w.example.com.</Name><Type>A</Type><TTL>300</TTL><ResourceRecords>"
	"<ResourceRecord><Value>192.0.2.5</Value></ResourceRecord><ResourceRecord><Value>192.0.2.4</Value></ResourceRecord>"
	"</ResourceRecords></ResourceRecordSet>"
	"<ResourceRecordSet><Name>\\052.w.example.com.</Name><Type>TXT</Type><TTL>60</TTL><ResourceRecords>"
	"<ResourceRecord><Value>\"hello world\"</Value></ResourceRecord></ResourceRecords></ResourceRecordSet>"
	"<ResourceRecordSet><Name>lb.example.com.</Name><Type>A</Type><AliasTarget><HostedZoneId>Z35SXDOTRQ7X7K</HostedZoneId>"
	"<DNSName>x.elb.amazonaws.com.</DNSName><EvaluateTargetHealth>true</EvaluateTargetHealth></AliasTarget></ResourceRecordSet>"
	"<ResourceRecordSet><Name>lb.example.com.</Name><Type>AAAA</Type><AliasTarget><HostedZoneId>Z26RNL4JYFTOTI</HostedZoneId>"
	"<DNSName>DualStack.My-NLB.elb.us-east-1.amazonaws.com</DNSName><EvaluateTargetHealth>false</EvaluateTargetHealth>"
	"</AliasTarget></ResourceRecordSet>"
	"<ResourceRecordSet><Name>lb.example.com.</Name><Type>TXT</Type><AliasTarget><HostedZoneId>ZEXAMPLE</HostedZoneId>"
	"<DNSName>txt.example.com.</DNSName><EvaluateTargetHealth>false</EvaluateTargetHealth></AliasTarget></ResourceRecordSet>"
	"<ResourceRecordSet><Name>w.example.com.</Name><Type>A</Type><SetIdentifier>eu</SetIdentifier><Weight>10</Weight>"
	"<TTL>60</TTL><ResourceRecords><ResourceRecord><Value>192.0.2.8</Value></ResourceRecord></ResourceRecords></ResourceRecordSet>"
	"<ResourceRecordSet><Name>w.example.com.</Name><Type>A</Type><SetIdentifier>us</SetIdentifier><Weight>10</Weight>"
	"<AliasTarget><HostedZoneId>Z35SXDOTRQ7X7K</HostedZoneId><DNSName>y.us-east-1.elb.amazonaws.com.</DNSName>"
	"<EvaluateTargetHealth>true</EvaluateTargetHealth></AliasTarget></ResourceRecordSet>"
	"<ResourceRecordSet><Name>www.example.com.</Name><Type>A</Type><TTL>300</TTL><ResourceRecords>"
	"<ResourceRecord><Value>192.0.2.1</Value></ResourceRecord></ResourceRecords></ResourceRecordSet>"
	"</ResourceRecordSets><IsTruncated>true</IsTruncated><NextRecordName>x\\052.example.com.</NextRecordName>"
	"<NextRecordType>MX</NextRecordType><MaxItems>9</MaxItems></ListResourceRecordSetsResponse>";

static void test_rrsets_page(void **state)
{
	dnsb_rrset_list out = { 0 };
	char *name, *type, *id;
	const dnsb_rrset *r;
	int past;

	(void)state;
	assert_int_equal(dnsb_aws_rrsets_parse(&out, rrsets_page, strlen(rrsets_page), NULL, NULL, 0, &name, &type, &id,
					       &past, NULL),
			 0);
	/* The TXT alias (no such alias in the model) is skipped; both routing-policy sets are kept apart. */
	assert_int_equal(out.count, 7);
	assert_non_null(r = dnsb_rrset_list_find(&out, "*.w.example.com.", LDNS_RR_TYPE_A));
	assert_int_equal(r->rdata_count, 2);
	assert_int_equal(r->ttl, 300);
	assert_int_equal(r->alias, DNSB_ALIAS_NONE);
	assert_non_null(r = dnsb_rrset_list_find(&out, "*.w.example.com.", LDNS_RR_TYPE_TXT));
	assert_string_equal(r->rdata[0], "\"hello world\"");
	assert_non_null(r = dnsb_rrset_list_find(&out, "lb.example.com.", LDNS_RR_TYPE_A));
	assert_int_equal(r->alias, DNSB_ALIAS_HEALTH);
	assert_int_equal(r->ttl, DNSB_TTL_DEFAULT);
	assert_int_equal(r->rdata_count, 1);
	assert_string_equal(r->rdata[0], "x.elb.amazonaws.com.");
	/* DNSName made canonical: lower case, trailing dot. */
	assert_non_null(r = dnsb_rrset_list_find(&out, "lb.example.com.", LDNS_RR_TYPE_AAAA));
	assert_int_equal(r->alias, DNSB_ALIAS_PLAIN);
	assert_int_equal(r->ttl, 300);
	assert_int_equal(r->rdata_count, 1);
	assert_string_equal(r->rdata[0], "dualstack.my-nlb.elb.us-east-1.amazonaws.com.");
	assert_null(dnsb_rrset_list_find(&out, "lb.example.com.", LDNS_RR_TYPE_TXT));
	assert_null(dnsb_rrset_list_find(&out, "w.example.com.", LDNS_RR_TYPE_A));
	assert_non_null(r = dnsb_rrset_list_find_set(&out, "w.example.com.", LDNS_RR_TYPE_A, "eu"));
	assert_int_equal(r->rdata_count, 1);
	assert_string_equal(r->rdata[0], "192.0.2.8");
	assert_string_equal(r->routing, "aws/weight=10\n");
	assert_non_null(r = dnsb_rrset_list_find_set(&out, "w.example.com.", LDNS_RR_TYPE_A, "us"));
	assert_int_equal(r->alias, DNSB_ALIAS_HEALTH);
	assert_string_equal(r->routing, "aws/weight=10\n");
	assert_non_null(r = dnsb_rrset_list_find(&out, "www.example.com.", LDNS_RR_TYPE_A));
	assert_int_equal(r->alias, DNSB_ALIAS_NONE);
	assert_string_equal(name, "x\\052.example.com.");
	assert_string_equal(type, "MX");
	assert_null(id);
	assert_int_equal(past, 0);
	free(name);
	free(type);
	dnsb_rrset_list_clear(&out);
}

static void test_rrsets_page_alias_by_key(void **state)
{
	dnsb_rrset_list out = { 0 };
	dnsb_rrkey keys[] = { { "lb.example.com.", LDNS_RR_TYPE_AAAA } };
	char *name, *type, *id;
	int past;

	(void)state;
	assert_int_equal(dnsb_aws_rrsets_parse(&out, rrsets_page, strlen(rrsets_page), NULL, keys, 1, &name, &type, &id,
					       &past, NULL),
			 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.items[0].type, LDNS_RR_TYPE_AAAA);
	assert_int_equal(out.items[0].alias, DNSB_ALIAS_PLAIN);
	free(name);
	free(type);
	dnsb_rrset_list_clear(&out);
}

static void test_rrsets_page_by_owner_stops_past_it(void **state)
{
	dnsb_rrset_list out = { 0 };
	dnsb_rrkey keys[] = { { "*.w.example.com.", LDNS_RR_TYPE_TXT } };
	char *name, *type, *id;
	int past;

	(void)state;
	assert_int_equal(dnsb_aws_rrsets_parse(&out, rrsets_page, strlen(rrsets_page), "*.w.example.com.", keys, 1, &name,
					       &type, &id, &past, NULL),
			 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.items[0].type, LDNS_RR_TYPE_TXT);
	assert_int_equal(past, 1);
	assert_null(name); /* past the owner: no next page */
	dnsb_rrset_list_clear(&out);
	keys[0].type = DNSB_RRKEY_ANY;
	assert_int_equal(dnsb_aws_rrsets_parse(&out, rrsets_page, strlen(rrsets_page), "*.w.example.com.", keys, 1, &name,
					       &type, &id, &past, NULL),
			 0);
	assert_int_equal(out.count, 2);
	dnsb_rrset_list_clear(&out);
}

static void test_pages_that_are_not_route53(void **state)
{
	dnsb_rrset_list out = { 0 };
	dnsb_aws_zone *zones = NULL;
	size_t count = 0;
	char *name, *type, *id, *marker;
	dnsb_error err;
	int past;

	(void)state;
	assert_int_equal(dnsb_aws_rrsets_parse(&out, "<html/>", 7, NULL, NULL, 0, &name, &type, &id, &past, &err),
			 DNSB_EPARSE);
	assert_int_equal(dnsb_aws_rrsets_parse(&out, "not xml", 7, NULL, NULL, 0, &name, &type, &id, &past, &err),
			 DNSB_EPARSE);
	assert_int_equal(dnsb_aws_zones_parse(&zones, &count, "<x/>", 4, DNSB_AWS_ZONES_ANY, &marker, &err), DNSB_EPARSE);
	assert_int_equal(count, 0);
}

static void test_zones_page_filters_by_type(void **state)
{
	static const char page[] =
		"<ListHostedZonesResponse xmlns=\"" DNSB_AWS_XMLNS "\"><HostedZones>"
		"<HostedZone><Id>/hostedzone/ZPUB</Id><Name>Example.COM.</Name><CallerReference>a</CallerReference>"
		"<Config><PrivateZone>false</PrivateZone></Config></HostedZone>"
		"<HostedZone><Id>/hostedzone/ZPRIV</Id><Name>corp.internal.</Name><CallerReference>b</CallerReference>"
		"<Config><PrivateZone>true</PrivateZone></Config></HostedZone>"
		"</HostedZones><IsTruncated>true</IsTruncated><NextMarker>ZNEXT</NextMarker><MaxItems>2</MaxItems>"
		"</ListHostedZonesResponse>";
	dnsb_aws_zone *zones = NULL;
	size_t count = 0;
	char *marker;

	(void)state;
	assert_int_equal(dnsb_aws_zones_parse(&zones, &count, page, strlen(page), DNSB_AWS_ZONES_PUBLIC, &marker, NULL), 0);
	assert_int_equal(count, 1);
	assert_string_equal(zones[0].apex, "example.com.");
	assert_string_equal(zones[0].id, "ZPUB");
	assert_string_equal(marker, "ZNEXT");
	free(marker);
	assert_int_equal(dnsb_aws_zones_parse(&zones, &count, page, strlen(page), DNSB_AWS_ZONES_PRIVATE, &marker, NULL), 0);
	assert_int_equal(count, 2);
	assert_string_equal(zones[1].id, "ZPRIV");
	free(marker);
	for (size_t i = 0; i < count; i++) {
		free(zones[i].apex);
		free(zones[i].id);
	}
	free(zones);
}

static void test_name_decode(void **state)
{
	char *s;

	(void)state;
	assert_non_null(s = dnsb_aws_name_decode("\\052.Example.com."));
	assert_string_equal(s, "*.example.com.");
	free(s);
	assert_non_null(s = dnsb_aws_name_decode("www.example.com"));
	assert_string_equal(s, "www.example.com.");
	free(s);
	assert_non_null(s = dnsb_aws_name_decode("a\\055b.example.com."));
	assert_string_equal(s, "a-b.example.com.");
	free(s);
}

/* ---- --aws-wait-insync ---- */

static void test_wait_insync_flag(void **state)
{
	dnsb_config *cfg;
	dnsb_aws_config parsed;

	(void)state;
	assert_int_equal(dnsb_config_new(&cfg), 0);
	assert_int_equal(dnsb_aws_config_parse(&parsed, cfg, NULL), 0);
	assert_int_equal(parsed.wait_insync, 0);
	dnsb_aws_config_clear(&parsed);
	assert_int_equal(dnsb_config_add(cfg, "aws-wait-insync", ""), 0);
	assert_int_equal(dnsb_aws_config_parse(&parsed, cfg, NULL), 0);
	assert_int_equal(parsed.wait_insync, 1);
	dnsb_aws_config_clear(&parsed);
	dnsb_config_free(cfg);
}

static void test_wait_insync_without_change_id(void **state)
{
	static const char accepted[] = "<ChangeResourceRecordSetsResponse xmlns=\"" DNSB_AWS_XMLNS "\"><ChangeInfo>"
				       "<Status>PENDING</Status></ChangeInfo></ChangeResourceRecordSetsResponse>";
	dnsb_aws a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.cfg.endpoint = (char *)"https://127.0.0.1:9";
	/* Nothing to poll: not INSYNC, at once, no request (a.http is NULL). */
	assert_int_equal(dnsb_aws_wait_insync(&a, "example.com.", accepted, strlen(accepted), 0), 0);
	assert_int_equal(dnsb_aws_wait_insync(&a, "example.com.", "not xml", 7, 0), 0);
}

/* ---- credentials ---- */

static void test_credentials_file(void **state)
{
	char path[] = "/tmp/test_aws_credsXXXXXX";
	dnsb_aws_keys k;
	dnsb_error err;
	FILE *f;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	fputs("# comment\n[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key=s3cr3t-default\n\n"
	      "[ci]\naws_access_key_id=AKIDCI\naws_secret_access_key = s3cr3t-ci\naws_session_token = tok-ci\n"
	      "[broken]\naws_access_key_id = AKIDBROKEN\n",
	      f);
	fclose(f);
	assert_int_equal(dnsb_aws_creds_file(&k, path, "default", &err), 0);
	assert_string_equal(k.access_key, "AKIDDEFAULT");
	assert_string_equal(k.secret, "s3cr3t-default");
	assert_null(k.token);
	dnsb_aws_keys_clear(&k);
	assert_int_equal(dnsb_aws_creds_file(&k, path, "ci", &err), 0);
	assert_string_equal(k.token, "tok-ci");
	dnsb_aws_keys_clear(&k);
	assert_int_equal(dnsb_aws_creds_file(&k, path, "broken", &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "aws_secret_access_key is missing"));
	assert_null(strstr(err.message, "AKIDBROKEN"));
	assert_int_equal(dnsb_aws_creds_file(&k, path, "nosuch", &err), DNSB_ENOTFOUND);
	assert_null(strstr(err.message, "s3cr3t"));
	unlink(path);
	assert_int_equal(dnsb_aws_creds_file(&k, path, "default", &err), DNSB_ENOTFOUND);
}

static void test_time(void **state)
{
	(void)state;
	assert_int_equal(dnsb_aws_time("1970-01-02T00:00:00Z"), 86400);
	assert_int_equal(dnsb_aws_time("2026-11-23T10:00:00.000Z"), 1795428000);
	assert_int_equal(dnsb_aws_time("soon"), 0);
	assert_int_equal(dnsb_aws_time(NULL), 0);
}

static double wall_of(void *payload)
{
	return *(const double *)payload;
}

/* Temporary keys are fetched anew within DNSB_AWS_REFRESH_MARGIN of their expiry, on the clock's wall time. */
static void test_creds_expiry_on_clock(void **state)
{
	const time_t expires = 2000000000; /* 2033-05-18T03:33:20Z */
	double wall = (double)expires - DNSB_AWS_REFRESH_MARGIN - 1;
	dnsb_clock clock = DNSB_CLOCK_INIT;
	dnsb_aws_creds c;
	dnsb_error err = { 0 };
	char *userpwd = NULL, *token = NULL;

	(void)state;
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.lock, NULL);
	snprintf(c.describe, sizeof(c.describe), "environment");
	c.source = DNSB_AWS_CREDS_ENV;
	c.keys.access_key = strdup("AKIDEXAMPLE");
	c.keys.secret = strdup("s3cr3t");
	c.keys.expires = expires;
	clock.wall = wall_of;
	clock.payload = &wall;
	c.clock = &clock;

	assert_int_equal(dnsb_aws_creds_get(&userpwd, &token, &c, NULL, 0, 0, &err), 0);
	assert_string_equal(userpwd, "AKIDEXAMPLE:s3cr3t");
	assert_null(token);
	dnsb_secret_free(userpwd);
	/* Two seconds on: inside the margin. Keys from the environment cannot be fetched again. */
	wall += 2;
	assert_int_equal(dnsb_aws_creds_get(&userpwd, &token, &c, NULL, 0, 0, &err), DNSB_EFATAL);
	assert_null(userpwd);
	assert_non_null(strstr(err.message, "refused as expired"));
	dnsb_aws_creds_clear(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_retry_after_kept_for_throttling),
		cmocka_unit_test(test_every_message_names_its_change),
		cmocka_unit_test(test_culprit_with_set_identifier_and_cname_form),
		cmocka_unit_test(test_ambiguous_or_unknown_names_name_nothing),
		cmocka_unit_test(test_refused_value_names_its_change),
		cmocka_unit_test(test_error_code),
		cmocka_unit_test(test_reply_error),
		cmocka_unit_test(test_body_order_and_unset_ttl),
		cmocka_unit_test(test_body_alias),
		cmocka_unit_test(test_body_alias_without_zone),
		cmocka_unit_test(test_service_zones),
		cmocka_unit_test(test_alias_zone_own_zones),
		cmocka_unit_test(test_alias_unplaced),
		cmocka_unit_test(test_alias_messages_name_the_alias),
		cmocka_unit_test(test_rrsets_page),
		cmocka_unit_test(test_rrsets_page_alias_by_key),
		cmocka_unit_test(test_rrsets_page_by_owner_stops_past_it),
		cmocka_unit_test(test_pages_that_are_not_route53),
		cmocka_unit_test(test_zones_page_filters_by_type),
		cmocka_unit_test(test_name_decode),
		cmocka_unit_test(test_wait_insync_flag),
		cmocka_unit_test(test_wait_insync_without_change_id),
		cmocka_unit_test(test_credentials_file),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_creds_expiry_on_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
