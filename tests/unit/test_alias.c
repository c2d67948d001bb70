/*
 * test_alias.c - aliases in the plan stage: endpoints with providerSpecific
 * alias=true read as alias RRsets (Route53's AliasTarget), compared without
 * their TTL, listed back with their two properties, and adjusted for
 * external-dns as its aws provider would (or refused for a provider that
 * stores none).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"

#define TYPE_A 1
#define TYPE_AAAA 28

#define LB "my-lb-1.us-east-1.elb.amazonaws.com"
#define ALIAS_PROPS(health) \
	"\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"true\"}" health "]"
#define HEALTH(v) ",{\"name\":\"aws/evaluate-target-health\",\"value\":\"" v "\"}"

/* The one change of {"create":[endpoint]}; the plan is returned in *out. */
static dnsb_change *one_create(dnsb_plan **out, const char *endpoint)
{
	dnsb_error err = { 0 };
	char *json;

	assert_true(asprintf(&json, "{\"create\":[%s]}", endpoint) > 0);
	assert_int_equal(dnsb_plan_parse(out, json, strlen(json), "plan.json", &err), 0);
	free(json);
	assert_int_equal(dnsb_plan_count(*out), 1);
	return dnsb_plan_change(*out, 0);
}

static void test_alias_read(void **state)
{
	(void)state;
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan, "{\"dnsName\":\"LB.example.com\",\"targets\":[\"My-LB-1.us-east-1.elb."
					   "amazonaws.com\"],\"recordType\":\"A\"," ALIAS_PROPS("") "}");

	assert_int_equal(c->outcome, DNSB_OUTCOME_PENDING);
	assert_string_equal(c->new_set.owner, "lb.example.com.");
	assert_int_equal(c->new_set.type, TYPE_A);
	assert_int_equal(c->new_set.alias, DNSB_ALIAS_DEFAULT); /* absent: the provider's default decides */
	assert_int_equal(c->new_set.rdata_count, 1);
	assert_string_equal(c->new_set.rdata[0], LB ".");
	dnsb_plan_free(plan);
}

static void test_alias_health_values(void **state)
{
	static const struct {
		const char *value;
		dnsb_alias want;
	} cases[] = { { "true", DNSB_ALIAS_HEALTH }, { "false", DNSB_ALIAS_PLAIN }, { "yes", DNSB_ALIAS_PLAIN } };
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dnsb_plan *plan;
		char *ep;
		assert_true(asprintf(&ep, "{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":"
				     "\"AAAA\",\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"true\"},{\"name\":"
				     "\"aws/evaluate-target-health\",\"value\":\"%s\"}]}", cases[i].value) > 0);
		dnsb_change *c = one_create(&plan, ep);
		assert_int_equal(c->outcome, DNSB_OUTCOME_PENDING);
		assert_int_equal(c->new_set.type, TYPE_AAAA);
		assert_int_equal(c->new_set.alias, cases[i].want);
		dnsb_plan_free(plan);
		free(ep);
	}
}

static void test_alias_false_is_an_ordinary_record(void **state)
{
	(void)state;
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan, "{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":"
					   "\"A\",\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"false\"}]}");

	assert_int_equal(c->outcome, DNSB_OUTCOME_PENDING);
	assert_int_equal(c->new_set.alias, DNSB_ALIAS_NONE);
	assert_string_equal(c->new_set.rdata[0], "192.0.2.1");
	dnsb_plan_free(plan);
}

/*
 * external-dns's TXT registry copies its record's providerSpecific onto the ownership TXT: alias=true and the
 * health flag on a TXT are ignored (external-dns's aws provider reads them on A and AAAA only), the TXT is a TXT.
 */
static void test_alias_on_registry_txt_ignored(void **state)
{
	(void)state;
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan, "{\"dnsName\":\"a-lb.example.com\",\"targets\":[\"\\\"heritage=external-dns,"
					   "external-dns/owner=default\\\"\"],\"recordType\":\"TXT\",\"labels\":{\"ownedRecord\":"
					   "\"lb.example.com\"}," ALIAS_PROPS(HEALTH("true")) "}");

	assert_int_equal(c->outcome, DNSB_OUTCOME_PENDING);
	assert_int_equal(c->new_set.alias, DNSB_ALIAS_NONE);
	assert_int_equal(c->new_set.rdata_count, 1);
	assert_string_equal(c->new_set.rdata[0], "\"heritage=external-dns,external-dns/owner=default\"");
	assert_null(c->new_set.routing);
	dnsb_plan_free(plan);
}

static void assert_invalid(const char *endpoint, const char *message)
{
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan, endpoint);

	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(c->reason, DNSB_REASON_INVALID);
	assert_string_equal(c->message, message);
	dnsb_plan_free(plan);
}

static void test_alias_invalid(void **state)
{
	(void)state;
	assert_invalid("{\"dnsName\":\"c.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"CNAME\","
		       ALIAS_PROPS("") "}",
		       "$.create[0] (c.example.com CNAME): an alias (providerSpecific alias=true) is of type A or AAAA: "
		       "it answers with its target's addresses");
	assert_invalid("{\"dnsName\":\"lb.example.com\",\"targets\":[\"a.example.net\",\"b.example.net\"],"
		       "\"recordType\":\"A\"," ALIAS_PROPS("") "}",
		       "$.create[0] (lb.example.com A alias): an alias has one target, got 2");
	assert_invalid("{\"dnsName\":\"lb.example.com\",\"targets\":[\"bad..name\"],\"recordType\":\"A\","
		       ALIAS_PROPS("") "}",
		       "$.create[0].targets[0] (lb.example.com A alias): the target is a host name: "
		       "'bad..name' is not a legal domain name (empty label)");
}

static dnsb_rrset alias_set(const char *owner, uint32_t ttl, const char *target, dnsb_alias kind)
{
	dnsb_rrset r = { 0 };

	assert_non_null(r.owner = strdup(owner));
	r.type = TYPE_A;
	r.ttl = ttl;
	r.alias = kind;
	assert_int_equal(dnsb_rrset_add_rdata(&r, target), 0);
	return r;
}

static void test_alias_compare(void **state)
{
	(void)state;
	dnsb_rrset a = alias_set("lb.example.com.", 60, LB ".", DNSB_ALIAS_HEALTH);
	dnsb_rrset listed = alias_set("lb.example.com.", 300, LB ".", DNSB_ALIAS_HEALTH);
	dnsb_rrset plain = alias_set("lb.example.com.", 300, LB ".", DNSB_ALIAS_PLAIN);
	dnsb_rrset other = alias_set("lb.example.com.", 300, "other-lb.us-east-1.elb.amazonaws.com.", DNSB_ALIAS_HEALTH);
	dnsb_rrset copy;

	assert_true(dnsb_rrset_equal(&a, &listed));       /* an alias's TTL is not compared */
	assert_true(dnsb_rrset_matches_old(&listed, &a));
	assert_false(dnsb_rrset_same_data(&listed, &plain)); /* the health flag is */
	assert_false(dnsb_rrset_equal(&listed, &plain));
	assert_false(dnsb_rrset_equal(&listed, &other));
	assert_int_equal(dnsb_rrset_copy(&copy, &plain), 0);
	assert_int_equal(copy.alias, DNSB_ALIAS_PLAIN);
	assert_true(dnsb_rrset_equal(&copy, &plain));
	/* An ordinary A RRset with the same text is not the alias. */
	copy.alias = DNSB_ALIAS_NONE;
	assert_false(dnsb_rrset_equal(&copy, &plain));
	dnsb_rrset_clear(&copy);
	dnsb_rrset_clear(&a);
	dnsb_rrset_clear(&listed);
	dnsb_rrset_clear(&plain);
	dnsb_rrset_clear(&other);
}

static void assert_json(json_object *obj, const char *want)
{
	const char *got = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (strcmp(got, want) != 0)
		print_error("got:  %s\nwant: %s\n", got, want);
	assert_string_equal(got, want);
}

static void test_alias_listed(void **state)
{
	(void)state;
	dnsb_rrset r = alias_set("lb.example.com.", 300, LB ".", DNSB_ALIAS_PLAIN);
	json_object *ep = dnsb_rrset_to_endpoint(&r);

	assert_json(ep, "{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\",\"recordTTL\":300,"
			"\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"true\"},{\"name\":\"aws/evaluate-target-"
			"health\",\"value\":\"false\"}]}");
	json_object_put(ep);
	/* One that did not say is shown as it came: without the health property. */
	r.alias = DNSB_ALIAS_DEFAULT;
	ep = dnsb_rrset_to_endpoint(&r);
	assert_json(ep, "{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\",\"recordTTL\":300,"
			"\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"true\"}]}");
	json_object_put(ep);
	dnsb_rrset_clear(&r);
}

static json_object *adjust(const char *in, unsigned flags, char **why)
{
	json_object *ep = json_tokener_parse(in), *out = NULL;

	assert_non_null(ep);
	assert_int_equal(dnsb_endpoint_adjust(&out, why, ep, "$[0]", flags), 0);
	json_object_put(ep);
	return out;
}

static void test_alias_adjusted(void **state)
{
	(void)state;
	char *why = NULL;
	/* As external-dns's aws AdjustEndpoints: the health property added, a set TTL made 300, the target
	 * written as it is listed, other properties removed. */
	json_object *out = adjust("{\"dnsName\":\"LB.example.com\",\"targets\":[\"My-LB-1.us-east-1.elb.amazonaws.com.\"],"
				  "\"recordType\":\"A\",\"recordTTL\":60,\"providerSpecific\":[{\"name\":\"alias\",\"value\":"
				  "\"true\"},{\"name\":\"aws/weight\",\"value\":\"10\"}]}", DNSB_ADJUST_ALIASES, &why);

	assert_null(why);
	assert_json(out, "{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\",\"recordTTL\":300,"
			 "\"providerSpecific\":[{\"name\":\"alias\",\"value\":\"true\"},{\"name\":\"aws/evaluate-target-"
			 "health\",\"value\":\"true\"}]}");
	json_object_put(out);

	/* An ordinary endpoint loses its providerSpecific, aliases stored or not. */
	out = adjust("{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"providerSpecific\":"
		     "[{\"name\":\"aws/evaluate-target-health\",\"value\":\"true\"}]}", DNSB_ADJUST_ALIASES, &why);
	assert_null(why);
	assert_json(out, "{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}");
	json_object_put(out);

	/* --no-aws-evaluate-target-health: an alias that does not say gets "false"; one that says keeps it. */
	out = adjust("{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\"," ALIAS_PROPS("") "}",
		     DNSB_ADJUST_ALIASES | DNSB_ADJUST_NO_HEALTH, &why);
	assert_null(why);
	assert_string_equal(dnsb_endpoint_property(out, DNSB_PROPERTY_EVALUATE_TARGET_HEALTH), "false");
	json_object_put(out);
	out = adjust("{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\","
		     ALIAS_PROPS(HEALTH("true")) "}", DNSB_ADJUST_ALIASES | DNSB_ADJUST_NO_HEALTH, &why);
	assert_string_equal(dnsb_endpoint_property(out, DNSB_PROPERTY_EVALUATE_TARGET_HEALTH), "true");
	json_object_put(out);
}

/* A routing policy: setIdentifier and the routing properties kept (in DNSB_ROUTING_PROPERTIES order), others removed. */
static void test_set_id_adjusted(void **state)
{
	(void)state;
	const char *in = "{\"dnsName\":\"W.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			 "\"setIdentifier\":\"eu\",\"providerSpecific\":[{\"name\":\"aws/weight\",\"value\":\"10\"},"
			 "{\"name\":\"other\",\"value\":\"x\"},{\"name\":\"aws/health-check-id\",\"value\":\"hc\"}]}";
	char *why = NULL;
	json_object *out = adjust(in, DNSB_ADJUST_SET_IDS, &why);

	assert_null(why);
	assert_json(out, "{\"dnsName\":\"w.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			 "\"setIdentifier\":\"eu\",\"providerSpecific\":[{\"name\":\"aws/health-check-id\",\"value\":"
			 "\"hc\"},{\"name\":\"aws/weight\",\"value\":\"10\"}]}");
	json_object_put(out);
	/* Without a provider that stores set identifiers: unsupported, named. */
	out = adjust(in, DNSB_ADJUST_ALIASES, &why);
	assert_non_null(why);
	assert_non_null(strstr(why, "setIdentifier 'eu' (a routing policy) needs a provider that stores set identifiers"));
	free(why);
	json_object_put(out);
}

static void test_alias_refused_without_aliases(void **state)
{
	(void)state;
	const char *in = "{\"dnsName\":\"lb.example.com\",\"targets\":[\"" LB "\"],\"recordType\":\"A\"," ALIAS_PROPS("") "}";
	char *why = NULL;
	json_object *out = adjust(in, 0, &why);

	assert_non_null(why);
	assert_string_equal(why, "$[0] (lb.example.com. A): an alias (providerSpecific alias=true) needs a provider "
				 "that stores aliases (--provider aws)");
	/* Returned unchanged: external-dns would otherwise delete what it owns by that name. */
	assert_json(out, in);
	free(why);
	json_object_put(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_read),
		cmocka_unit_test(test_alias_health_values),
		cmocka_unit_test(test_alias_false_is_an_ordinary_record),
		cmocka_unit_test(test_alias_invalid),
		cmocka_unit_test(test_alias_on_registry_txt_ignored),
		cmocka_unit_test(test_alias_compare),
		cmocka_unit_test(test_alias_listed),
		cmocka_unit_test(test_alias_adjusted),
		cmocka_unit_test(test_alias_refused_without_aliases),
		cmocka_unit_test(test_set_id_adjusted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
