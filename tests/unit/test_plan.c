/*
 * test_plan.c - the plan parser: key spellings, pairing, endpoint to RRset,
 * invalid records (dropped with a message naming the JSON path), structure
 * errors (DNSB_EPARSE with exact messages), plan form round trip, files.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L  /* mkdtemp */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <ldns/ldns.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

#define TYPE_A 1
#define TYPE_CNAME 5
#define TYPE_SOA 6
#define TYPE_MX 15
#define TYPE_TXT 16
#define TYPE_AAAA 28
#define TYPE_SRV 33

/* ---- helpers ---- */

static dnsb_plan *parse_ok(const char *json)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };
	int rc = dnsb_plan_parse(&plan, json, strlen(json), "plan.json", &err);

	if (rc != 0)
		print_error("unexpected parse failure: %s\n", err.message);
	assert_int_equal(rc, 0);
	assert_non_null(plan);
	return plan;
}

static void parse_fails(const char *json, const char *message)
{
	dnsb_plan *plan = (dnsb_plan *)&plan; /* must be reset to NULL */
	dnsb_error err = { 0 };
	int rc = dnsb_plan_parse(&plan, json, strlen(json), "plan.json", &err);

	if (rc != DNSB_EPARSE)
		print_error("input: %s\n", json);
	assert_int_equal(rc, DNSB_EPARSE);
	assert_int_equal(err.code, DNSB_EPARSE);
	assert_null(plan);
	assert_string_equal(err.message, message);
}

/* The RRset a change is about: the new one, or the old one for a delete. */
static const dnsb_rrset *target_of(const dnsb_change *c)
{
	return c->kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
}

static void assert_rdata(const dnsb_rrset *r, size_t n, ...)
{
	va_list ap;

	assert_int_equal(r->rdata_count, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r->rdata[i], va_arg(ap, const char *));
	va_end(ap);
}

/* A plan of one created endpoint: its change. The plan is returned in *out. */
static dnsb_change *one_create(dnsb_plan **out, const char *endpoint)
{
	char *json;

	assert_true(asprintf(&json, "{\"create\":[%s]}", endpoint) > 0);
	*out = parse_ok(json);
	free(json);
	assert_int_equal(dnsb_plan_count(*out), 1);
	return dnsb_plan_change(*out, 0);
}

static void assert_pending(const dnsb_change *c)
{
	if (c->outcome != DNSB_OUTCOME_PENDING)
		print_error("unexpected: %s\n", c->message ? c->message : "(no message)");
	assert_int_equal(c->outcome, DNSB_OUTCOME_PENDING);
	assert_int_equal(c->reason, DNSB_REASON_NONE);
	assert_null(c->message);
}

static void assert_invalid(const dnsb_change *c, const char *message)
{
	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(c->reason, DNSB_REASON_INVALID);
	assert_non_null(c->message);
	assert_string_equal(c->message, message);
}

/* One created endpoint that must be dropped as invalid with this message. */
static void create_invalid(const char *endpoint, const char *message)
{
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan, endpoint);

	assert_int_equal(c->kind, DNSB_CHANGE_CREATE);
	assert_invalid(c, message);
	dnsb_plan_free(plan);
}

/* ---- key spellings and pairing ---- */

#define EP(name, type, target) \
	"{\"dnsName\":\"" name "\",\"targets\":[\"" target "\"],\"recordType\":\"" type "\",\"recordTTL\":300}"

static const char plan_lower[] =
	"{\"create\":[" EP("new.example.com", "A", "203.0.113.1") "],"
	"\"updateOld\":[" EP("app.example.com", "A", "203.0.113.10") "," EP("api.example.com", "A", "203.0.113.11") "],"
	"\"updateNew\":[" EP("app.example.com", "A", "203.0.113.13") "," EP("api.example.com", "A", "203.0.113.14") "],"
	"\"delete\":[" EP("old.example.com", "A", "203.0.113.50") "]}";

static const char plan_upper[] =
	"{\"Create\":[" EP("new.example.com", "A", "203.0.113.1") "],"
	"\"UpdateOld\":[" EP("app.example.com", "A", "203.0.113.10") "," EP("api.example.com", "A", "203.0.113.11") "],"
	"\"UpdateNew\":[" EP("app.example.com", "A", "203.0.113.13") "," EP("api.example.com", "A", "203.0.113.14") "],"
	"\"Delete\":[" EP("old.example.com", "A", "203.0.113.50") "]}";

/* The change in plan form is `json`, member for member (dnsb_change_to_plan_json). */
static void assert_plan_form(const dnsb_change *c, const char *json)
{
	json_object *want = json_tokener_parse(json), *got = dnsb_change_to_plan_json(c);

	assert_non_null(want);
	assert_non_null(got);
	if (!json_object_equal(got, want))
		print_error("got %s\nwant %s\n", json_object_to_json_string(got), json);
	assert_true(json_object_equal(got, want));
	json_object_put(want);
	json_object_put(got);
}

static void check_four_lists(dnsb_plan *plan)
{
	dnsb_change *c;

	assert_int_equal(dnsb_plan_count(plan), 4);
	c = dnsb_plan_change(plan, 0);
	assert_int_equal(c->kind, DNSB_CHANGE_CREATE);
	assert_string_equal(c->new_set.owner, "new.example.com.");
	assert_rdata(&c->new_set, 1, "203.0.113.1");
	assert_null(c->old.owner);
	/* An endpoint its RRset prints again is not kept twice: the plan form is the same. */
	assert_null(c->endpoint_old);
	assert_null(c->endpoint_new);
	assert_plan_form(c, "{\"create\":[" EP("new.example.com", "A", "203.0.113.1") "]}");
	assert_pending(c);

	/* updateOld[i] pairs with updateNew[i] */
	c = dnsb_plan_change(plan, 1);
	assert_int_equal(c->kind, DNSB_CHANGE_UPDATE);
	assert_int_equal(c->plan_index, 0);
	assert_string_equal(c->old.owner, "app.example.com.");
	assert_string_equal(c->new_set.owner, "app.example.com.");
	assert_rdata(&c->old, 1, "203.0.113.10");
	assert_rdata(&c->new_set, 1, "203.0.113.13");
	assert_plan_form(c, "{\"updateOld\":[" EP("app.example.com", "A", "203.0.113.10") "],"
			 "\"updateNew\":[" EP("app.example.com", "A", "203.0.113.13") "]}");
	assert_pending(c);
	c = dnsb_plan_change(plan, 2);
	assert_int_equal(c->kind, DNSB_CHANGE_UPDATE);
	assert_int_equal(c->plan_index, 1);
	assert_string_equal(c->old.owner, "api.example.com.");
	assert_rdata(&c->old, 1, "203.0.113.11");
	assert_rdata(&c->new_set, 1, "203.0.113.14");
	assert_pending(c);

	c = dnsb_plan_change(plan, 3);
	assert_int_equal(c->kind, DNSB_CHANGE_DELETE);
	assert_string_equal(c->old.owner, "old.example.com.");
	assert_rdata(&c->old, 1, "203.0.113.50");
	assert_null(c->new_set.owner);
	assert_null(c->endpoint_new);
	assert_pending(c);
	assert_null(dnsb_plan_change(plan, 4));
}

/*
 * What the parsed plan keeps of an endpoint: nothing when its RRset prints it
 * again; the endpoint itself when it says more (labels, a set identifier, an
 * upper-case name, targets out of order) or is invalid, so that the drop log
 * gives it back as the plan gave it.
 */
static void test_endpoints_kept_only_when_needed(void **state)
{
	static const char *const kept[] = {
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":300,"
		"\"labels\":{\"owner\":\"default\"}}",
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"setIdentifier\":\"x\"}",
		"{\"dnsName\":\"A.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}",
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.2\",\"192.0.2.1\"],\"recordType\":\"A\"}",
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"not an address\"],\"recordType\":\"A\"}",
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":0}",
	};
	static const char *const dropped[] = {
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\",\"192.0.2.2\"],\"recordType\":\"A\",\"recordTTL\":60}",
		"{\"dnsName\":\"www.example.com\",\"targets\":[\"lb.example.net\"],\"recordType\":\"CNAME\",\"recordTTL\":300}",
		/* no TTL: the RRset holds the default, and is printed without one, as given */
		"{\"dnsName\":\"b.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}",
	};
	char json[512];
	dnsb_plan *plan;
	dnsb_change *c;

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		c = one_create(&plan, kept[i]);
		assert_non_null(c->endpoint_new);
		dnsb_plan_free(plan);
	}
	for (size_t i = 0; i < sizeof(dropped) / sizeof(dropped[0]); i++) {
		c = one_create(&plan, dropped[i]);
		assert_null(c->endpoint_new);
		snprintf(json, sizeof(json), "{\"create\":[%s]}", dropped[i]);
		assert_plan_form(c, json);
		dnsb_plan_free(plan);
	}
}

static void test_lower_case_keys(void **state)
{
	dnsb_plan *plan = parse_ok(plan_lower);

	(void)state;
	check_four_lists(plan);
	dnsb_plan_free(plan);
}

static void test_capitalised_keys(void **state)
{
	dnsb_plan *plan = parse_ok(plan_upper);

	(void)state;
	check_four_lists(plan);
	dnsb_plan_free(plan);
}

static void test_spellings_mixed_across_lists(void **state)
{
	/* Each list is looked up on its own: Create beside updateOld is fine. */
	dnsb_plan *plan = parse_ok(
		"{\"Create\":[" EP("new.example.com", "A", "203.0.113.1") "],"
		"\"updateOld\":[" EP("app.example.com", "A", "203.0.113.10") "],"
		"\"UpdateNew\":[" EP("app.example.com", "A", "203.0.113.13") "],\"delete\":[]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 2);
	assert_int_equal(dnsb_plan_change(plan, 0)->kind, DNSB_CHANGE_CREATE);
	assert_int_equal(dnsb_plan_change(plan, 1)->kind, DNSB_CHANGE_UPDATE);
	assert_rdata(&dnsb_plan_change(plan, 1)->new_set, 1, "203.0.113.13");
	dnsb_plan_free(plan);
}

static void test_empty_and_null_lists(void **state)
{
	dnsb_plan *plan = parse_ok("{}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 0);
	dnsb_plan_free(plan);
	plan = parse_ok("{\"create\":null,\"updateOld\":[],\"updateNew\":null,\"delete\":[]}");
	assert_int_equal(dnsb_plan_count(plan), 0);
	dnsb_plan_free(plan);
}

static void test_pairing_is_by_position(void **state)
{
	/* Swapped pairs are not matched by name: each pair is an update of two owners. */
	dnsb_plan *plan = parse_ok(
		"{\"updateOld\":[" EP("app.example.com", "A", "203.0.113.10") "," EP("api.example.com", "A", "203.0.113.11") "],"
		"\"updateNew\":[" EP("api.example.com", "A", "203.0.113.14") "," EP("app.example.com", "A", "203.0.113.13") "]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 2);
	assert_invalid(dnsb_plan_change(plan, 0),
		       "$.updateOld[0] (app.example.com.) and $.updateNew[0] (api.example.com.): "
		       "an update keeps its owner name");
	assert_invalid(dnsb_plan_change(plan, 1),
		       "$.updateOld[1] (api.example.com.) and $.updateNew[1] (app.example.com.): "
		       "an update keeps its owner name");
	dnsb_plan_free(plan);
}

static void test_changes_in_list_order(void **state)
{
	/* create, then update, then delete, each in its list's order, whatever the key order. */
	dnsb_plan *plan = parse_ok(
		"{\"delete\":[" EP("d0.example.com", "A", "192.0.2.1") "," EP("d1.example.com", "A", "192.0.2.2") "],"
		"\"create\":[" EP("c0.example.com", "A", "192.0.2.3") "," EP("c1.example.com", "A", "192.0.2.4") "]}");
	static const char *const owners[] = { "c0.example.com.", "c1.example.com.", "d0.example.com.",
					      "d1.example.com." };

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 4);
	for (size_t i = 0; i < 4; i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		assert_string_equal(target_of(c)->owner, owners[i]);
		assert_int_equal(c->plan_index, i % 2);
		assert_int_equal(c->kind, i < 2 ? DNSB_CHANGE_CREATE : DNSB_CHANGE_DELETE);
	}
	dnsb_plan_free(plan);
}

/* ---- endpoint to RRset ---- */

static void test_owner_absolute_lower_case(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":[" EP("WWW.Example.COM", "A", "192.0.2.1") "," EP("api.example.com.", "A", "192.0.2.2") ","
		EP("*.Apps.Example.com", "A", "192.0.2.3") "," EP("_Sip._TCP.example.com", "SRV",
								   "10 60 5060 sip.example.com") "]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 4);
	assert_string_equal(dnsb_plan_change(plan, 0)->new_set.owner, "www.example.com.");
	assert_string_equal(dnsb_plan_change(plan, 1)->new_set.owner, "api.example.com.");
	assert_string_equal(dnsb_plan_change(plan, 2)->new_set.owner, "*.apps.example.com.");
	assert_string_equal(dnsb_plan_change(plan, 3)->new_set.owner, "_sip._tcp.example.com.");
	for (size_t i = 0; i < 4; i++)
		assert_pending(dnsb_plan_change(plan, i));
	dnsb_plan_free(plan);
}

static void test_targets_make_one_sorted_rrset(void **state)
{
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan,
				    "{\"dnsName\":\"events.example.com\",\"recordType\":\"A\",\"recordTTL\":60,"
				    "\"targets\":[\"203.0.113.42\",\"203.0.113.41\",\"203.0.113.42\",\"10.0.0.1\"]}");

	(void)state;
	assert_pending(c);
	assert_int_equal(c->new_set.type, TYPE_A);
	assert_int_equal(c->new_set.ttl, 60);
	/* sorted, duplicates gone: one RRset, not one per target */
	assert_rdata(&c->new_set, 3, "10.0.0.1", "203.0.113.41", "203.0.113.42");
	dnsb_plan_free(plan);
}

static void test_ttl_default(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":["
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":0},"
		"{\"dnsName\":\"b.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"},"
		"{\"dnsName\":\"c.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":1},"
		"{\"dnsName\":\"d.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":3600},"
		"{\"dnsName\":\"e.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":2147483647},"
		"{\"dnsName\":\"f.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":null}"
		"]}");
	static const uint32_t want[] = { 300, 300, 1, 3600, 2147483647u, 300 };

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 6);
	for (size_t i = 0; i < 6; i++) {
		assert_pending(dnsb_plan_change(plan, i));
		assert_int_equal(dnsb_plan_change(plan, i)->new_set.ttl, want[i]);
	}
	dnsb_plan_free(plan);
}

static void test_txt_quoted_and_bare(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":["
		/* the TXT registry's form: quoted; kept as given */
		"{\"dnsName\":\"a-app.example.com\",\"recordType\":\"TXT\",\"targets\":"
		"[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"]},"
		/* a user record: bare, one character-string */
		"{\"dnsName\":\"example.com\",\"recordType\":\"TXT\",\"targets\":[\"v=spf1 mx -all\"]},"
		/* bare with a semicolon, a quote and a backslash: escaped, not a comment */
		"{\"dnsName\":\"_dmarc.example.com\",\"recordType\":\"TXT\",\"targets\":"
		"[\"v=DMARC1; p=reject; x=a\\\"b\\\\c\"]},"
		/* already two quoted strings: two character-strings */
		"{\"dnsName\":\"two.example.com\",\"recordType\":\"TXT\",\"targets\":[\"\\\"a b\\\" \\\"c\\\"\"]},"
		/* the same text bare and quoted is one record */
		"{\"dnsName\":\"dup.example.com\",\"recordType\":\"TXT\",\"targets\":[\"hello world\",\"\\\"hello world\\\"\"]}"
		"]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 5);
	for (size_t i = 0; i < 5; i++) {
		assert_pending(dnsb_plan_change(plan, i));
		assert_int_equal(dnsb_plan_change(plan, i)->new_set.type, TYPE_TXT);
	}
	assert_rdata(&dnsb_plan_change(plan, 0)->new_set, 1, "\"heritage=external-dns,external-dns/owner=default\"");
	assert_rdata(&dnsb_plan_change(plan, 1)->new_set, 1, "\"v=spf1 mx -all\"");
	assert_rdata(&dnsb_plan_change(plan, 2)->new_set, 1, "\"v=DMARC1; p=reject; x=a\\\"b\\\\c\"");
	assert_rdata(&dnsb_plan_change(plan, 3)->new_set, 1, "\"a b\" \"c\"");
	assert_rdata(&dnsb_plan_change(plan, 4)->new_set, 1, "\"hello world\"");
	dnsb_plan_free(plan);
}

static void test_txt_long_bare_split_in_255(void **state)
{
	char target[301], want[320], endpoint[512];
	dnsb_plan *plan;
	dnsb_change *c;

	(void)state;
	memset(target, 'x', 300);
	target[300] = '\0';
	snprintf(endpoint, sizeof(endpoint), "{\"dnsName\":\"long.example.com\",\"recordType\":\"TXT\",\"targets\":[\"%s\"]}",
		 target);
	c = one_create(&plan, endpoint);
	assert_pending(c);
	/* RFC 1035 §3.3: at most 255 octets per character-string */
	want[0] = '"';
	memset(want + 1, 'x', 255);
	memcpy(want + 256, "\" \"", 3);
	memset(want + 259, 'x', 45);
	memcpy(want + 304, "\"", 2);
	assert_rdata(&c->new_set, 1, want);
	dnsb_plan_free(plan);
}

static void test_txt_bare_keeps_its_spaces(void **state)
{
	/* A bare TXT target is the record's text, spaces included: "  indented " is not "indented ". */
	dnsb_plan *plan;
	dnsb_change *c = one_create(&plan,
				    "{\"dnsName\":\"t.example.com\",\"recordType\":\"TXT\",\"targets\":[\"  indented \"]}");

	(void)state;
	assert_pending(c);
	assert_rdata(&c->new_set, 1, "\"  indented \"");
	dnsb_plan_free(plan);
}

static void test_canonical_rdata(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":["
		"{\"dnsName\":\"www.example.com\",\"recordType\":\"CNAME\",\"targets\":[\"Ingress.LB.Example.NET\"]},"
		"{\"dnsName\":\"v6.example.com\",\"recordType\":\"AAAA\",\"targets\":"
		"[\"2001:0DB8:0000:0000:0000:0000:0000:0001\",\"2001:db8:0:0:1:0:0:1\",\"2001:db8::1\"]},"
		"{\"dnsName\":\"example.com\",\"recordType\":\"MX\",\"targets\":[\"20 MX2.example.com.\",\"10 mx1.Example.com\"]},"
		"{\"dnsName\":\"_minecraft._tcp.games.example.com\",\"recordType\":\"SRV\",\"targets\":"
		"[\"0 5 25565 MC.Games.example.com\"]},"
		"{\"dnsName\":\"ip.example.com\",\"recordType\":\"A\",\"targets\":[\" 192.0.2.1\"]}"
		"]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 5);
	for (size_t i = 0; i < 5; i++)
		assert_pending(dnsb_plan_change(plan, i));
	/* names in RDATA case-folded (RFC 4034 §6.2) and made absolute */
	assert_int_equal(dnsb_plan_change(plan, 0)->new_set.type, TYPE_CNAME);
	assert_rdata(&dnsb_plan_change(plan, 0)->new_set, 1, "ingress.lb.example.net.");
	/* AAAA in RFC 5952 form: lower case, longest zero run compressed; equal spellings merge */
	assert_int_equal(dnsb_plan_change(plan, 1)->new_set.type, TYPE_AAAA);
	assert_rdata(&dnsb_plan_change(plan, 1)->new_set, 2, "2001:db8::1", "2001:db8::1:0:0:1");
	assert_int_equal(dnsb_plan_change(plan, 2)->new_set.type, TYPE_MX);
	assert_rdata(&dnsb_plan_change(plan, 2)->new_set, 2, "10 mx1.example.com.", "20 mx2.example.com.");
	assert_int_equal(dnsb_plan_change(plan, 3)->new_set.type, TYPE_SRV);
	assert_rdata(&dnsb_plan_change(plan, 3)->new_set, 1, "0 5 25565 mc.games.example.com.");
	assert_rdata(&dnsb_plan_change(plan, 4)->new_set, 1, "192.0.2.1");
	dnsb_plan_free(plan);
}

static void test_rdata_canonical_function(void **state)
{
	dnsb_error err = { 0 };
	char *out = NULL;

	(void)state;
	assert_int_equal(dnsb_rdata_canonical(&out, TYPE_CNAME, "Foo.EXAMPLE.net", &err), 0);
	assert_string_equal(out, "foo.example.net.");
	free(out);
	assert_int_equal(dnsb_rdata_canonical(&out, TYPE_AAAA, "2001:DB8:0:0:0:0:0:AB", &err), 0);
	assert_string_equal(out, "2001:db8::ab");
	free(out);
	out = NULL;
	assert_int_equal(dnsb_rdata_canonical(&out, TYPE_A, "999.1.1.1", &err), DNSB_EINVAL);
	assert_int_equal(err.code, DNSB_EINVAL);
	assert_string_equal(err.message, "A target '999.1.1.1': Syntax error, could not parse the RR's rdata");
	assert_null(out);
	assert_int_equal(dnsb_rdata_canonical(&out, TYPE_A, "   ", &err), DNSB_EINVAL);
	assert_string_equal(err.message, "empty A target");
	assert_null(out);
}

/* rdata of type is refused as invalid, with this message. */
static void rdata_refused(uint16_t type, const char *rdata, const char *message)
{
	dnsb_error err = { 0 };
	char *out = NULL;
	int rc = dnsb_rdata_canonical(&out, type, rdata, &err);

	if (rc != DNSB_EINVAL)
		fail_msg("type %u '%s': accepted as '%s' (rc %d)", (unsigned)type, rdata, out ? out : "", rc);
	assert_null(out);
	assert_string_equal(err.message, message);
}

/* rdata of type is accepted, written as `want`. */
static void rdata_kept(uint16_t type, const char *rdata, const char *want)
{
	dnsb_error err = { 0 };
	char *out = NULL;

	if (dnsb_rdata_canonical(&out, type, rdata, &err) != 0)
		fail_msg("type %u '%s' refused: %s", (unsigned)type, rdata, err.message);
	assert_string_equal(out, want);
	free(out);
}

/*
 * Issue 38 §3: every numeric RDATA field against its wire width, before
 * ldns's int8/int16 conversion wraps it (MX 70000 was written 4464, MX -1
 * 65535, CAA flags 256 as 0, TLSA 259 as 3, NAPTR 65537 as 1).
 */
static void test_rdata_numeric_ranges(void **state)
{
	(void)state;
	rdata_refused(TYPE_MX, "70000 mx.example.com.", "MX preference 70000 is out of range (0 to 65535)");
	rdata_refused(TYPE_MX, "-1 mx.example.com.", "MX preference -1 is out of range (0 to 65535)");
	rdata_refused(TYPE_MX, "999999999999999999 mx.example.com.",
			    "MX preference 999999999999999999 is out of range (0 to 65535)");
	rdata_refused(TYPE_MX, "99999999999999999999999 mx.example.com.",
			    "MX preference 99999999999999999999999 is out of range (0 to 65535)");
	rdata_refused(TYPE_MX, "( 65536 mx.example.com. )", "MX preference 65536 is out of range (0 to 65535)");
	rdata_kept(TYPE_MX, "65535 mx.example.com.", "65535 mx.example.com.");
	rdata_kept(TYPE_MX, "0 .", "0 .");
	rdata_refused(TYPE_SRV, "-1 99999999 65536 sip.example.com.",
			    "SRV priority -1 is out of range (0 to 65535)");
	rdata_refused(TYPE_SRV, "1 99999999 65536 sip.example.com.",
			    "SRV weight 99999999 is out of range (0 to 65535)");
	rdata_refused(TYPE_SRV, "1 2 65536 sip.example.com.", "SRV port 65536 is out of range (0 to 65535)");
	rdata_kept(TYPE_SRV, "65535 65535 65535 sip.example.com.", "65535 65535 65535 sip.example.com.");
	rdata_refused(257, "256 issue \"ca.example.net\"", "CAA flags 256 is out of range (0 to 255)");
	rdata_kept(257, "128 issue \"ca.example.net\"", "128 issue \"ca.example.net\"");
	rdata_refused(52, "259 1 1 d2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971",
			    "TLSA certificate usage 259 is out of range (0 to 255)");
	rdata_refused(52, "3 256 1 d2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971",
			    "TLSA selector 256 is out of range (0 to 255)");
	rdata_refused(52, "3 1 300 d2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971",
			    "TLSA matching type 300 is out of range (0 to 255)");
	rdata_refused(35, "65537 10 \"u\" \"E2U+sip\" \"\" sip.example.com.",
			    "NAPTR order 65537 is out of range (0 to 65535)");
	rdata_refused(35, "100 -10 \"u\" \"E2U+sip\" \"\" sip.example.com.",
			    "NAPTR preference -10 is out of range (0 to 65535)");
	rdata_refused(44, "256 1 123456789abcdef67890123456789abcdef67890",
			    "SSHFP algorithm 256 is out of range (0 to 255)");
	rdata_refused(44, "1 257 123456789abcdef67890123456789abcdef67890",
			    "SSHFP fingerprint type 257 is out of range (0 to 255)");
	rdata_refused(43, "65536 8 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE2D9A3C2AE6E5A1A5A0C2E2F5",
			    "DS key tag 65536 is out of range (0 to 65535)");
	rdata_refused(43, "60485 264 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE2D9A3C2AE6E5A1A5A0C2E2F5",
			    "DS algorithm 264 is out of range (0 to 255)");
	rdata_refused(43, "60485 8 258 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE2D9A3C2AE6E5A1A5A0C2E2F5",
			    "DS digest type 258 is out of range (0 to 255)");
	/* a mnemonic is ldns's to read, never a wrapped number */
	rdata_kept(43, "60485 RSASHA256 2 49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE2D9A3C2AE6E5A1A5A0C2E2F5",
			"60485 8 2 49fd46e6c4b45c55d4ac69cbd3cd34ac1afe51de2d9a3c2ae6e5a1a5a0c2e2f5");
	if (ldns_rr_descript(64)->_name != NULL) /* SVCB and HTTPS where this ldns knows them */
		rdata_refused(65, "65536 . alpn=h2", "HTTPS priority 65536 is out of range (0 to 65535)");
}

static void test_name_canonical_function(void **state)
{
	dnsb_error err = { 0 };
	char *out = NULL, label63[64], name[128];

	(void)state;
	assert_int_equal(dnsb_name_canonical(&out, "Www.Example.COM", &err), 0);
	assert_string_equal(out, "www.example.com.");
	free(out);
	memset(label63, 'a', 63);
	label63[63] = '\0';
	snprintf(name, sizeof(name), "%s.example.com", label63);
	assert_int_equal(dnsb_name_canonical(&out, name, &err), 0);
	assert_int_equal(strlen(out), 63 + strlen(".example.com."));
	free(out);
	out = NULL;
	assert_int_equal(dnsb_name_canonical(&out, "a..example.com", &err), DNSB_EINVAL);
	assert_string_equal(err.message, "'a..example.com' is not a legal domain name (empty label)");
	assert_int_equal(dnsb_name_canonical(&out, "", &err), DNSB_EINVAL);
	assert_string_equal(err.message, "empty name");
	assert_null(out);
}

/* ---- invalid records: dropped, reason invalid, message naming the path and the record ---- */

static void test_invalid_ipv4(void **state)
{
	(void)state;
	create_invalid("{\"dnsName\":\"bad.example.com\",\"targets\":[\"999.1.1.1\"],\"recordType\":\"A\"}",
		       "$.create[0].targets[0] (bad.example.com A): A target '999.1.1.1': "
		       "Syntax error, could not parse the RR's rdata");
	/* the second target is the bad one */
	create_invalid("{\"dnsName\":\"bad.example.com\",\"targets\":[\"192.0.2.1\",\"192.0.2.300\"],\"recordType\":\"A\"}",
		       "$.create[0].targets[1] (bad.example.com A): A target '192.0.2.300': "
		       "Syntax error, could not parse the RR's rdata");
	create_invalid("{\"dnsName\":\"bad.example.com\",\"targets\":[\"192.0.2.1 junk\"],\"recordType\":\"A\"}",
		       "$.create[0].targets[0] (bad.example.com A): A target '192.0.2.1 junk': "
		       "Syntax error, superfluous text present");
	create_invalid("{\"dnsName\":\"bad.example.com\",\"targets\":[\"\"],\"recordType\":\"A\"}",
		       "$.create[0].targets[0] (bad.example.com A): empty A target");
}

static void test_invalid_record_type(void **state)
{
	(void)state;
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"BOGUS\"}",
		       "$.create[0] (x.example.com): unknown recordType 'BOGUS': known are A, AAAA, CAA, CNAME, DS, HTTPS, "
		       "MX, NAPTR, NS, PTR, SRV, SSHFP, SVCB, TLSA, TXT and the other types ldns names, or TYPEnnn (RFC 3597)");
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"]}",
		       "$.create[0] (x.example.com): recordType is missing");
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"\"}",
		       "$.create[0] (x.example.com): recordType is missing");
}

static void test_invalid_ttl(void **state)
{
	(void)state;
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":-1}",
		       "$.create[0] (x.example.com A): recordTTL -1 is out of range 0..2147483647");
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
		       "\"recordTTL\":2147483648}",
		       "$.create[0] (x.example.com A): recordTTL 2147483648 is out of range 0..2147483647");
}

static void test_invalid_name(void **state)
{
	char label64[65], endpoint[256], message[512];

	(void)state;
	memset(label64, 'a', 64);
	label64[64] = '\0';
	snprintf(endpoint, sizeof(endpoint),
		 "{\"dnsName\":\"%s.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}", label64);
	snprintf(message, sizeof(message),
		 "$.create[0] (%s.example.com): '%s.example.com' is not a legal domain name "
		 "(labels of 1-63 octets, 255 in all)", label64, label64);
	create_invalid(endpoint, message);
	create_invalid("{\"dnsName\":\"a..example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}",
		       "$.create[0] (a..example.com): 'a..example.com' is not a legal domain name (empty label)");
	create_invalid("{\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}", "$.create[0]: dnsName is missing");
}

static void test_invalid_name_too_long(void **state)
{
	/* 4 labels of 63 octets: 256 octets on the wire, one more than RFC 1035 allows */
	char name[300], endpoint[400];
	dnsb_plan *plan;
	dnsb_change *c;

	(void)state;
	name[0] = '\0';
	for (int i = 0; i < 4; i++) {
		char label[65];
		memset(label, (char)('a' + i), 63);
		label[63] = i < 3 ? '.' : '\0';
		label[64] = '\0';
		strcat(name, label);
	}
	snprintf(endpoint, sizeof(endpoint), "{\"dnsName\":\"%s\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}", name);
	c = one_create(&plan, endpoint);
	assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
	assert_int_equal(c->reason, DNSB_REASON_INVALID);
	assert_non_null(strstr(c->message, "is not a legal domain name (labels of 1-63 octets, 255 in all)"));
	dnsb_plan_free(plan);
}

static void test_invalid_targets(void **state)
{
	(void)state;
	create_invalid("{\"dnsName\":\"x.example.com\",\"targets\":[],\"recordType\":\"A\"}",
		       "$.create[0] (x.example.com A): no targets");
	create_invalid("{\"dnsName\":\"x.example.com\",\"recordType\":\"A\"}", "$.create[0] (x.example.com A): no targets");
	create_invalid("{\"dnsName\":\"www.example.com\",\"targets\":[\"a.example.net\",\"b.example.net\"],"
		       "\"recordType\":\"CNAME\"}",
		       "$.create[0] (www.example.com CNAME): a CNAME RRset holds one record, got 2 targets");
}

static void test_invalid_set_identifier(void **state)
{
	dnsb_plan *plan;
	dnsb_change *c;

	(void)state;
	/* A set identifier and its routing properties are read (the engine refuses them where the provider has none). */
	c = one_create(&plan, "{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			      "\"setIdentifier\":\"eu-west\",\"providerSpecific\":[{\"name\":\"aws/weight\",\"value\":\"10\"},"
			      "{\"name\":\"aws/failover\",\"value\":\"PRIMARY\"},{\"name\":\"other\",\"value\":\"x\"}]}");
	assert_pending(c);
	assert_string_equal(c->new_set.set_id, "eu-west");
	assert_string_equal(c->new_set.routing, "aws/failover=PRIMARY\naws/weight=10\n");
	dnsb_plan_free(plan);
	/* external-dns sends "" when there is none */
	c = one_create(&plan, "{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			      "\"setIdentifier\":\"\"}");
	assert_pending(c);
	assert_null(c->new_set.set_id);
	dnsb_plan_free(plan);
}

static void test_invalid_in_update_and_delete(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"updateOld\":[" EP("ok.example.com", "A", "192.0.2.1") "," EP("u.example.com", "A", "192.0.2.1") "],"
		"\"updateNew\":[" EP("ok.example.com", "A", "192.0.2.2") "," EP("u.example.com", "A", "192.0.2.256") "],"
		"\"delete\":[" EP("ok2.example.com", "A", "192.0.2.3") "," EP("d.example.com", "AAAA", "2001:db8::g") "]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 4);
	assert_pending(dnsb_plan_change(plan, 0));
	assert_invalid(dnsb_plan_change(plan, 1),
		       "$.updateNew[1].targets[0] (u.example.com A): A target '192.0.2.256': "
		       "Syntax error, could not parse the RR's rdata");
	assert_pending(dnsb_plan_change(plan, 2));
	assert_invalid(dnsb_plan_change(plan, 3),
		       "$.delete[1].targets[0] (d.example.com AAAA): AAAA target '2001:db8::g': "
		       "Syntax error, could not parse the RR's rdata");
	dnsb_plan_free(plan);
}

static void test_invalid_does_not_stop_the_rest(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":[" EP("a.example.com", "A", "192.0.2.1") "," EP("bad.example.com", "A", "999.1.1.1") ","
		EP("c.example.com", "A", "192.0.2.3") "]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 3);
	assert_pending(dnsb_plan_change(plan, 0));
	assert_int_equal(dnsb_plan_change(plan, 1)->reason, DNSB_REASON_INVALID);
	assert_string_equal(dnsb_plan_change(plan, 1)->message,
			    "$.create[1].targets[0] (bad.example.com A): A target '999.1.1.1': "
			    "Syntax error, could not parse the RR's rdata");
	assert_pending(dnsb_plan_change(plan, 2));
	assert_rdata(&dnsb_plan_change(plan, 2)->new_set, 1, "192.0.2.3");
	dnsb_plan_free(plan);
}

/* ---- structure errors: DNSB_EPARSE, nothing returned ---- */

static void test_not_json(void **state)
{
	(void)state;
	/* a syntax error: line:col and the byte offset */
	parse_fails("{\"create\": [\n  {\"dnsName\": tru }]}",
		    "plan.json:2:18 (offset 30): not JSON: boolean expected");
	parse_fails("{\"create\": [\n  {\"dnsName\": \"x.example.com\", \"targets\": [1.2.3.4]}\n]}",
		    "plan.json:2:47 (offset 59): not JSON: number expected");
	/* cut short */
	parse_fails("{\"create\": [", "plan.json:1:13: not JSON: unexpected end of input");
	parse_fails("", "plan.json:1:1: not JSON: unexpected end of input");
	/* trailing garbage after a complete document */
	parse_fails("{\"create\":[]} x", "plan.json:1:15 (offset 14): not JSON: data after the end of the document");
	parse_fails("{}\n\n  {}", "plan.json:3:3 (offset 6): not JSON: data after the end of the document");
}

static void test_trailing_whitespace_is_fine(void **state)
{
	dnsb_plan *plan = parse_ok("  {\"create\":[]}\r\n\t \n");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 0);
	dnsb_plan_free(plan);
}

static void test_not_an_object(void **state)
{
	(void)state;
	parse_fails("[]", "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is an array (a GET /records answer is a list of endpoints; a plan is one object)");
	parse_fails("[{\"create\":[]}]",
		    "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is an array (a GET /records answer is a list of endpoints; a plan is one object)");
	parse_fails("\"create\"", "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is a string");
	parse_fails("42\n", "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is a number");
}

static void test_scalar_document_is_not_a_plan(void **state)
{
	/* `42` is a well-formed JSON document: not a plan, rather than "unexpected end of input". `null` is
	 * an empty plan, as Go decodes it (external-dns's own webhook tests send it). */
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	(void)state;
	parse_fails("42", "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is a number");
	parse_fails("\"x\"", "plan.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is a string");
	assert_int_equal(dnsb_plan_parse(&plan, "null\n", 5, "plan.json", &err), 0);
	assert_int_equal(dnsb_plan_count(plan), 0);
	dnsb_plan_free(plan);
}

static void test_structure_errors(void **state)
{
	(void)state;
	parse_fails("{\"create\":{}}", "plan.json: $.create: expected an array of endpoints");
	parse_fails("{\"Delete\":\"www.example.com\"}", "plan.json: $.Delete: expected an array of endpoints");
	parse_fails("{\"create\":[1]}", "plan.json: $.create[0]: expected an endpoint object");
	parse_fails("{\"delete\":[" EP("a.example.com", "A", "192.0.2.1") ",[]]}",
		    "plan.json: $.delete[1]: expected an endpoint object");
	parse_fails("{\"create\":[{\"dnsName\":5,\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}]}",
		    "plan.json: $.create[0].dnsName: expected string");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\",5],\"recordType\":\"A\"}]}",
		    "plan.json: $.create[0].targets: expected an array of strings");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":\"192.0.2.1\",\"recordType\":\"A\"}]}",
		    "plan.json: $.create[0].targets: expected array");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
		    "\"labels\":{\"owner\":\"default\",\"ownedRecord\":1}}]}",
		    "plan.json: $.create[0].labels: expected an object of strings");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
		    "\"recordTTL\":\"300\"}]}",
		    "plan.json: $.create[0].recordTTL: expected a whole number of seconds");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
		    "\"recordTTL\":1.5}]}",
		    "plan.json: $.create[0].recordTTL: expected a whole number of seconds");
	parse_fails("{\"updateOld\":[" EP("a.example.com", "A", "192.0.2.1") "," EP("b.example.com", "A", "192.0.2.2")
		    "],\"updateNew\":[" EP("a.example.com", "A", "192.0.2.3") "]}",
		    "plan.json: $.updateOld has 2 endpoints and $.updateNew 1: they pair by position");
	parse_fails("{\"updateNew\":[" EP("a.example.com", "A", "192.0.2.3") "]}",
		    "plan.json: $.updateOld has 0 endpoints and $.updateNew 1: they pair by position");
	parse_fails("{\"create\":[],\"Create\":[]}", "plan.json: $.Create: the list 'create' is given twice");
	parse_fails("{\"UpdateOld\":[],\"updateOld\":[]}", "plan.json: $.updateOld: the list 'updateOld' is given twice");
}

static void test_structure_error_after_good_endpoints(void **state)
{
	/* A structure error anywhere rejects the whole plan, even after good endpoints. */
	(void)state;
	parse_fails("{\"create\":[" EP("a.example.com", "A", "192.0.2.1") "," EP("b.example.com", "A", "192.0.2.2") "],"
		    "\"delete\":[" EP("c.example.com", "A", "192.0.2.3") ",{\"dnsName\":\"d.example.com\","
		    "\"targets\":[true],\"recordType\":\"A\"}]}",
		    "plan.json: $.delete[1].targets: expected an array of strings");
}

static void test_source_name_in_messages(void **state)
{
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };

	(void)state;
	assert_int_equal(dnsb_plan_parse(&plan, "[]", 2, "/srv/plans/p1.json", &err), DNSB_EPARSE);
	assert_string_equal(err.message,
			    "/srv/plans/p1.json: $: expected an object with create, updateOld, updateNew and delete lists (an external-dns plan); this is an array (a GET /records answer is a list of endpoints; a plan is one object)");
	/* not NUL-terminated: only len bytes are read */
	assert_int_equal(dnsb_plan_parse(&plan, "{}garbage", 2, "p", &err), 0);
	assert_int_equal(dnsb_plan_count(plan), 0);
	dnsb_plan_free(plan);
}

/* ---- ownership labels ---- */

static void test_owned_record(void **state)
{
	dnsb_plan *plan = parse_ok(
		"{\"create\":["
		"{\"dnsName\":\"chat.example.com\",\"targets\":[\"203.0.113.45\"],\"recordType\":\"A\","
		"\"labels\":{\"owner\":\"default\",\"resource\":\"ingress/default/chat\"}},"
		"{\"dnsName\":\"a-chat.example.com\",\"targets\":[\"\\\"heritage=external-dns\\\"\"],\"recordType\":\"TXT\","
		"\"labels\":{\"ownedRecord\":\"Chat.Example.com\"}},"
		"{\"dnsName\":\"x.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"}],"
		"\"updateOld\":[{\"dnsName\":\"a-app.example.com\",\"targets\":[\"\\\"h\\\"\"],\"recordType\":\"TXT\","
		"\"labels\":{\"ownedRecord\":\"app.example.com\"}}],"
		"\"updateNew\":[{\"dnsName\":\"a-app.example.com\",\"targets\":[\"\\\"h\\\"\"],\"recordType\":\"TXT\","
		"\"labels\":{\"ownedRecord\":\"app.example.com.\"}}],"
		"\"delete\":[{\"dnsName\":\"a-gone.example.com\",\"targets\":[\"\\\"h\\\"\"],\"recordType\":\"TXT\","
		"\"labels\":{\"ownedRecord\":\"gone.example.com\"}}]}");

	(void)state;
	assert_int_equal(dnsb_plan_count(plan), 5);
	assert_null(dnsb_plan_change(plan, 0)->owned_record);
	assert_string_equal(dnsb_plan_change(plan, 1)->owned_record, "chat.example.com.");
	assert_null(dnsb_plan_change(plan, 2)->owned_record);
	assert_string_equal(dnsb_plan_change(plan, 3)->owned_record, "app.example.com.");
	assert_string_equal(dnsb_plan_change(plan, 4)->owned_record, "gone.example.com.");
	for (size_t i = 0; i < 5; i++)
		assert_pending(dnsb_plan_change(plan, i));
	dnsb_plan_free(plan);
}

/* ---- plan form round trip ---- */

static const char round_trip_plan[] =
	"{\"create\":["
	"{\"dnsName\":\"Events.example.com\",\"targets\":[\"203.0.113.42\",\"203.0.113.41\"],\"recordType\":\"A\","
	"\"recordTTL\":60,\"labels\":{\"owner\":\"default\"}},"
	"{\"dnsName\":\"a-events.example.com\",\"targets\":[\"\\\"heritage=external-dns,external-dns/owner=default\\\"\"],"
	"\"recordType\":\"TXT\",\"labels\":{\"ownedRecord\":\"events.example.com\"}},"
	"{\"dnsName\":\"docs.example.com\",\"targets\":[\"Docs.Pages.example.net\"],\"recordType\":\"CNAME\",\"recordTTL\":3600},"
	"{\"dnsName\":\"_mc._tcp.example.com\",\"targets\":[\"0 5 25565 mc.example.com\"],\"recordType\":\"SRV\"},"
	"{\"dnsName\":\"spf.example.com\",\"targets\":[\"v=spf1 -all\"],\"recordType\":\"TXT\"},"
	"{\"dnsName\":\"bad.example.com\",\"targets\":[\"999.1.1.1\"],\"recordType\":\"A\"}],"
	"\"updateOld\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.10\"],\"recordType\":\"A\",\"recordTTL\":300},"
	"{\"dnsName\":\"v6.example.com\",\"targets\":[\"2001:DB8:0:0:0:0:0:1\"],\"recordType\":\"AAAA\"}],"
	"\"updateNew\":[{\"dnsName\":\"app.example.com\",\"targets\":[\"203.0.113.13\"],\"recordType\":\"A\",\"recordTTL\":120},"
	"{\"dnsName\":\"v6.example.com\",\"targets\":[\"2001:db8::2\",\"2001:db8::1\"],\"recordType\":\"AAAA\"}],"
	"\"delete\":[{\"dnsName\":\"old.example.com\",\"targets\":[\"203.0.113.50\"],\"recordType\":\"A\",\"recordTTL\":300,"
	"\"providerSpecific\":[{\"name\":\"x\",\"value\":\"y\"}],\"setIdentifier\":\"\"}]}";

static void assert_same_rrset(const dnsb_rrset *a, const dnsb_rrset *b)
{
	if (a->owner == NULL || b->owner == NULL) {
		assert_null(a->owner);
		assert_null(b->owner);
		return;
	}
	assert_string_equal(a->owner, b->owner);
	assert_true(dnsb_rrset_equal(a, b));
}

static void test_change_to_plan_json_round_trip(void **state)
{
	dnsb_plan *plan = parse_ok(round_trip_plan);
	size_t n = dnsb_plan_count(plan);

	(void)state;
	assert_int_equal(n, 9);
	for (size_t i = 0; i < n; i++) {
		const dnsb_change *c = dnsb_plan_change(plan, i);
		json_object *form = dnsb_change_to_plan_json(c), *list;
		const char *text;
		dnsb_plan *again;
		dnsb_change *d;

		assert_non_null(form);
		/* exactly the keys of its kind, one endpoint each */
		switch (c->kind) {
		case DNSB_CHANGE_CREATE:
			assert_int_equal(json_object_object_length(form), 1);
			assert_true(json_object_object_get_ex(form, "create", &list));
			assert_int_equal(json_object_array_length(list), 1);
			break;
		case DNSB_CHANGE_UPDATE:
			assert_int_equal(json_object_object_length(form), 2);
			assert_true(json_object_object_get_ex(form, "updateOld", &list));
			assert_int_equal(json_object_array_length(list), 1);
			assert_true(json_object_object_get_ex(form, "updateNew", &list));
			assert_int_equal(json_object_array_length(list), 1);
			break;
		case DNSB_CHANGE_DELETE:
			assert_int_equal(json_object_object_length(form), 1);
			assert_true(json_object_object_get_ex(form, "delete", &list));
			assert_int_equal(json_object_array_length(list), 1);
			break;
		}
		text = json_object_to_json_string_ext(form, JSON_C_TO_STRING_PLAIN);
		again = parse_ok(text);
		assert_int_equal(dnsb_plan_count(again), 1);
		d = dnsb_plan_change(again, 0);
		assert_int_equal(d->kind, c->kind);
		assert_same_rrset(&d->old, &c->old);
		assert_same_rrset(&d->new_set, &c->new_set);
		assert_int_equal(d->outcome, c->outcome);
		assert_int_equal(d->reason, c->reason);
		if (c->owned_record)
			assert_string_equal(d->owned_record, c->owned_record);
		else
			assert_null(d->owned_record);
		/* the endpoints exactly as the plan gave them */
		if (c->endpoint_new)
			assert_true(json_object_equal(d->endpoint_new, c->endpoint_new));
		if (c->endpoint_old)
			assert_true(json_object_equal(d->endpoint_old, c->endpoint_old));
		dnsb_plan_free(again);
		json_object_put(form);
	}
	dnsb_plan_free(plan);
}

static void test_change_to_plan_json_given_endpoint(void **state)
{
	dnsb_plan *plan = parse_ok("{\"create\":[{\"dnsName\":\"Events.example.com\",\"targets\":[\"203.0.113.42\"],"
				   "\"recordType\":\"A\",\"labels\":{\"owner\":\"default\"}}]}");
	json_object *form = dnsb_change_to_plan_json(dnsb_plan_change(plan, 0));

	(void)state;
	assert_string_equal(json_object_to_json_string_ext(form, JSON_C_TO_STRING_PLAIN),
			    "{\"create\":[{\"dnsName\":\"Events.example.com\",\"targets\":[\"203.0.113.42\"],"
			    "\"recordType\":\"A\",\"labels\":{\"owner\":\"default\"}}]}");
	json_object_put(form);
	dnsb_plan_free(plan);
}

static void test_change_to_plan_json_without_endpoints(void **state)
{
	/* A change built by hand (no endpoints): its RRsets become endpoints. */
	static char owner[] = "www.example.com.", r1[] = "192.0.2.1", r2[] = "192.0.2.2";
	static char *old_rdata[] = { r1 }, *new_rdata[] = { r1, r2 };
	dnsb_change c;
	json_object *form;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.kind = DNSB_CHANGE_UPDATE;
	c.old = (dnsb_rrset){ owner, TYPE_A, 300, old_rdata, 1, DNSB_ALIAS_NONE, NULL, NULL };
	c.new_set = (dnsb_rrset){ owner, TYPE_A, 60, new_rdata, 2, DNSB_ALIAS_NONE, NULL, NULL };
	form = dnsb_change_to_plan_json(&c);
	assert_non_null(form);
	assert_string_equal(json_object_to_json_string_ext(form, JSON_C_TO_STRING_PLAIN),
			    "{\"updateOld\":[{\"dnsName\":\"www.example.com\",\"targets\":[\"192.0.2.1\"],"
			    "\"recordType\":\"A\",\"recordTTL\":300}],"
			    "\"updateNew\":[{\"dnsName\":\"www.example.com\",\"targets\":[\"192.0.2.1\",\"192.0.2.2\"],"
			    "\"recordType\":\"A\",\"recordTTL\":60}]}");
	json_object_put(form);
}

/*
 * The plan writer (a dry run's JSON) prints each change as its plan form does, also when its kept Endpoint tree is
 * set from RRsets of other sizes one after another: targets growing and shrinking, a TTL given and not, a TXT value
 * split into 255-octet strings, shapes it does not keep (set identifier, alias, labels), updates and deletes.
 */
static void test_plan_writer_matches_plan_form(void **state)
{
	char long_txt[600];
	char *json = NULL, *text = NULL;
	size_t len = 0;
	dnsb_plan *plan;
	FILE *out;
	dnsb_plan_writer *w;

	(void)state;
	memset(long_txt, 'x', 400);
	long_txt[400] = '\0';
	assert_true(asprintf(&json,
		"{\"create\":["
		"{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.3\",\"192.0.2.1\",\"192.0.2.2\"],\"recordType\":\"A\",\"recordTTL\":60},"
		"{\"dnsName\":\"b.example.com\",\"targets\":[\"192.0.2.9\"],\"recordType\":\"A\"},"
		"{\"dnsName\":\"t.example.com\",\"targets\":[\"\\\"%s\\\"\"],\"recordType\":\"TXT\",\"recordTTL\":300},"
		"{\"dnsName\":\"m.example.com\",\"targets\":[\"10 mail.example.com\",\"20 mx2.example.com\"],\"recordType\":\"MX\",\"recordTTL\":300},"
		"{\"dnsName\":\"w.example.com\",\"targets\":[\"192.0.2.7\"],\"recordType\":\"A\",\"setIdentifier\":\"eu\",\"recordTTL\":300},"
		"{\"dnsName\":\"l.example.com\",\"targets\":[\"192.0.2.8\"],\"recordType\":\"A\",\"labels\":{\"owner\":\"x\"}},"
		"{\"dnsName\":\"c.example.com\",\"targets\":[\"lb.example.com\"],\"recordType\":\"CNAME\",\"recordTTL\":120}],"
		"\"updateOld\":[{\"dnsName\":\"u.example.com\",\"targets\":[\"192.0.2.4\",\"192.0.2.5\"],\"recordType\":\"A\",\"recordTTL\":0}],"
		"\"updateNew\":[{\"dnsName\":\"u.example.com\",\"targets\":[\"192.0.2.6\"],\"recordType\":\"A\",\"recordTTL\":300}],"
		"\"delete\":[{\"dnsName\":\"d.example.com\",\"targets\":[\"2001:DB8::1\"],\"recordType\":\"AAAA\"}]}",
		long_txt) > 0);
	plan = parse_ok(json);
	assert_int_equal(dnsb_plan_count(plan), 9);
	assert_non_null(out = open_memstream(&text, &len));
	assert_non_null(w = dnsb_plan_writer_new(out));
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		dnsb_change *c = dnsb_plan_change(plan, i);
		json_object *form = dnsb_change_to_plan_json(c);
		long at = ftell(out);

		assert_null(c->message);
		assert_int_equal(dnsb_plan_writer_change(w, c), 0);
		assert_int_equal(fflush(out), 0);
		assert_non_null(form);
		assert_string_equal(text + at, json_object_to_json_string_ext(form, JSON_C_TO_STRING_PLAIN |
									      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(form);
		if (i == 1) /* three targets and a TTL before, one and none now */
			assert_string_equal(text + at, "{\"create\":[{\"dnsName\":\"b.example.com\","
					    "\"targets\":[\"192.0.2.9\"],\"recordType\":\"A\"}]}");
	}
	assert_non_null(strstr(text, long_txt)); /* the split TXT value joined back */
	assert_non_null(strstr(text, "\"10 mail.example.com\""));
	dnsb_plan_writer_free(w);
	fclose(out);
	free(text);
	free(json);
	dnsb_plan_free(plan);
}

/* A run of changes written at once (two threads from 64 on) is each change's plan form, comma-separated, in order. */
static void test_plan_writer_run_matches_plan_form(void **state)
{
	static const char *const shapes[][2] = { /* an endpoint before and after its number */
		{ "{\"dnsName\":\"a", ".example.com\",\"targets\":[\"192.0.2.3\",\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":60}" },
		{ "{\"dnsName\":\"b", ".example.com\",\"targets\":[\"192.0.2.9\"],\"recordType\":\"A\"}" },
		{ "{\"dnsName\":\"w", ".example.com\",\"targets\":[\"192.0.2.7\"],\"recordType\":\"A\",\"setIdentifier\":\"eu\"}" },
		{ "{\"dnsName\":\"l", ".example.com\",\"targets\":[\"2001:DB8::1\"],\"recordType\":\"AAAA\",\"labels\":{\"owner\":\"x\"}}" },
		{ "{\"dnsName\":\"m", ".example.com\",\"targets\":[\"10 mail.example.com\"],\"recordType\":\"MX\",\"recordTTL\":300}" },
	};
	static const size_t runs[] = { 1, 10, 63, 64, 301 };
	(void)state;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		size_t n = runs[r], used = 0, size = n * 200 + 64, len = 0;
		char *body = malloc(size), *text = NULL, *want = malloc(size * 2);
		dnsb_change **list = malloc(n * sizeof(*list));
		dnsb_plan_writer *w;
		dnsb_plan *plan;
		FILE *out;

		assert_non_null(body);
		used += (size_t)snprintf(body + used, size - used, "{\"create\":[");
		for (size_t i = 0; i < n; i++) {
			used += (size_t)snprintf(body + used, size - used, "%s%s%zu%s", i ? "," : "", shapes[i % 5][0], i,
						 shapes[i % 5][1]);
		}
		used += (size_t)snprintf(body + used, size - used, "]}");
		plan = parse_ok(body);
		assert_int_equal(dnsb_plan_count(plan), n);
		want[0] = '\0';
		for (size_t i = 0, at = 0; i < n; i++) {
			json_object *form = dnsb_change_to_plan_json(list[i] = dnsb_plan_change(plan, i));
			at += (size_t)snprintf(want + at, size * 2 - at, "%s%s", i ? "," : "",
					       json_object_to_json_string_ext(form, JSON_C_TO_STRING_PLAIN |
									      JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(form);
		}
		assert_non_null(out = open_memstream(&text, &len));
		assert_non_null(w = dnsb_plan_writer_new(out));
		/* Twice: the second writer's buffer is emptied between runs. */
		assert_int_equal(dnsb_plan_writer_changes(w, list, n), 0);
		assert_int_equal(fflush(out), 0);
		assert_string_equal(text, want);
		assert_int_equal(dnsb_plan_writer_changes(w, list, n), 0);
		assert_int_equal(fflush(out), 0);
		assert_int_equal(len, 2 * strlen(want));
		assert_string_equal(text + strlen(want), want);
		dnsb_plan_writer_free(w);
		fclose(out);
		free(text);
		free(list);
		free(want);
		free(body);
		dnsb_plan_free(plan);
	}
}

/* ---- files ---- */

static void test_plan_load_missing_file(void **state)
{
	dnsb_plan *plan = (dnsb_plan *)&plan;
	dnsb_error err = { 0 };

	(void)state;
	assert_int_equal(dnsb_plan_load(&plan, "/nonexistent/dnsbatch/plan.json", &err), DNSB_EIO);
	assert_int_equal(err.code, DNSB_EIO);
	assert_null(plan);
	assert_string_equal(err.message, "/nonexistent/dnsbatch/plan.json: No such file or directory");
}

static void test_plan_load_directory(void **state)
{
	/* plan.h: "DNSB_EIO when the file cannot be read (the message names the file and the system error)" */
	char dir[] = "/tmp/dnsb-plan-XXXXXX", want[128];
	dnsb_plan *plan = (dnsb_plan *)&plan;
	dnsb_error err = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(dnsb_plan_load(&plan, dir, &err), DNSB_EIO);
	assert_null(plan);
	rmdir(dir);
	snprintf(want, sizeof(want), "%s: Is a directory: the plan is one file, external-dns's POST /records body as JSON",
		 dir);
	assert_string_equal(err.message, want);
}

static void test_plan_load_file(void **state)
{
	char dir[] = "/tmp/dnsb-plan-XXXXXX", path[64];
	dnsb_plan *plan = NULL;
	dnsb_error err = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.json", dir);
	assert_non_null(f = fopen(path, "w"));
	fputs(plan_upper, f);
	fclose(f);
	assert_int_equal(dnsb_plan_load(&plan, path, &err), 0);
	check_four_lists(plan);
	dnsb_plan_free(plan);

	/* a syntax error names the file */
	assert_non_null(f = fopen(path, "w"));
	fputs("{\n\"create\": [,]}", f);
	fclose(f);
	assert_int_equal(dnsb_plan_load(&plan, path, &err), DNSB_EPARSE);
	assert_null(plan);
	{
		char want[160];
		snprintf(want, sizeof(want), "%s:2:12 (offset 13): not JSON: unexpected character", path);
		assert_string_equal(err.message, want);
	}
	unlink(path);
	rmdir(dir);
}

/* A NUL (\u0000) inside a name or a target would silently cut the C string: the change is invalid, named. */
static void test_nul_inside_strings_is_invalid(void **state)
{
	static const struct { const char *json, *message; } cases[] = {
		{ "{\"create\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.6\\u0000junk\"]}]}",
		  "$.create[0].targets[0]: holds a NUL character (\\u0000), which no DNS name or record can carry" },
		{ "{\"create\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"TXT\",\"targets\":[\"ok\",\"\\\"a\\u0000b\\\"\"]}]}",
		  "$.create[0].targets[1]: holds a NUL character (\\u0000), which no DNS name or record can carry" },
		{ "{\"delete\":[{\"dnsName\":\"a.example.com\\u0000.evil\",\"recordType\":\"A\",\"targets\":[\"192.0.2.6\"]}]}",
		  "$.delete[0].dnsName: holds a NUL character (\\u0000), which no DNS name or record can carry" },
		{ "{\"create\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.6\"],"
		  "\"labels\":{\"ownedRecord\":\"x\\u0000y\"}}]}",
		  "$.create[0].labels.ownedRecord: holds a NUL character (\\u0000), which no DNS name or record can carry" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dnsb_plan *plan = parse_ok(cases[i].json);
		dnsb_change *c = dnsb_plan_change(plan, 0);
		assert_int_equal(dnsb_plan_count(plan), 1);
		assert_int_equal(c->outcome, DNSB_OUTCOME_DROPPED);
		assert_int_equal(c->reason, DNSB_REASON_INVALID);
		assert_string_equal(c->message, cases[i].message);
		dnsb_plan_free(plan);
	}
}


/* external-dns's idna.NormalizeDNSName test names (internal/idna/idna_test.go): the owner in punycode. */
static void test_idn_owner_in_punycode(void **state)
{
	static const struct { const char *name, *owner; } cases[] = {
		{ "café.example.com", "xn--caf-dma.example.com." },
		{ "點看.org", "xn--c1yn36f.org." },
		{ "nordic-ø.kitty😸.com.", "xn--nordic--w1a.xn--kitty-pd34d.com." },
		{ "xn--nordic--w1a.kitty😸.com.", "xn--nordic--w1a.xn--kitty-pd34d.com." },
		{ "*.GÖPHER.com", "*.xn--gpher-jua.com." },
		{ "例子.com", "xn--fsqu00a.com." },
		{ "Straße.example.com", "strasse.example.com." }, /* transitional, as external-dns's profile */
		{ "_foo.com.", "_foo.com." },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *ep;
		dnsb_plan *plan;
		dnsb_change *c;
		assert_true(asprintf(&ep, "{\"dnsName\":\"%s\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
				     "\"labels\":{\"ownedRecord\":\"%s\"}}", cases[i].name, cases[i].name) > 0);
		c = one_create(&plan, ep);
		free(ep);
		assert_pending(c);
		assert_string_equal(c->new_set.owner, cases[i].owner);
		assert_string_equal(c->owned_record, cases[i].owner);
		dnsb_plan_free(plan);
	}
}

/* A string that is not UTF-8, anywhere in the document: DNSB_EPARSE naming its path. */
static void test_invalid_utf8_refused(void **state)
{
	(void)state;
	parse_fails("{\"create\":[{\"dnsName\":\"\xff\xfe\xc3(.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"]}]}",
		    "plan.json: $.create[0].dnsName: not valid UTF-8 (octet 0xff at offset 0)");
	parse_fails("{\"delete\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"TXT\",\"targets\":[\"ok\",\"x\xed\xa0\x80\"]}]}",
		    "plan.json: $.delete[0].targets[1]: not valid UTF-8 (octet 0xed at offset 1)");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"A\",\"targets\":[\"192.0.2.1\"],"
		    "\"labels\":{\"o\xc0\xafk\":\"v\"}}]}",
		    "plan.json: $.create[0].labels (a member name): not valid UTF-8 (octet 0xc0 at offset 1)");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"recordType\":\"A\",\"targets\":[\"\xf4\x90\x80\x80\"]}]}",
		    "plan.json: $.create[0].targets[0]: not valid UTF-8 (octet 0xf4 at offset 0)");
	dnsb_plan_free(parse_ok("{\"create\":[{\"dnsName\":\"\xf0\x9f\x98\xb8.example.com\",\"recordType\":\"A\","
				"\"targets\":[\"192.0.2.1\"]}]}"));
}

/* The same RRset created twice (or created and updated): both invalid, naming both paths; the rest stays. */
static void test_duplicate_rrset_invalid(void **state)
{
	dnsb_plan *plan;
	(void)state;

	plan = parse_ok("{\"create\":[" EP("dup.example.com", "A", "192.0.2.1") "," EP("other.example.com", "A", "192.0.2.3")
			"," EP("Dup.example.com.", "A", "192.0.2.2") "," EP("dup.example.com", "AAAA", "2001:db8::1") "],"
			"\"updateOld\":[" EP("dup.example.com", "A", "192.0.2.9") "],"
			"\"updateNew\":[" EP("dup.example.com", "A", "192.0.2.8") "]}");
	assert_int_equal(dnsb_plan_count(plan), 5);
	assert_invalid(dnsb_plan_change(plan, 0), "$.create[0] and $.create[2] (dup.example.com. A): the plan writes "
		       "this RRset twice, with different values; neither is sent");
	assert_pending(dnsb_plan_change(plan, 1));
	assert_invalid(dnsb_plan_change(plan, 2), "$.create[2] and $.create[0] (dup.example.com. A): the plan writes "
		       "this RRset twice, with different values; neither is sent");
	assert_pending(dnsb_plan_change(plan, 3));
	assert_invalid(dnsb_plan_change(plan, 4), "$.updateNew[0] and $.create[0] (dup.example.com. A): the plan "
		       "writes this RRset twice, with different values; neither is sent");
	dnsb_plan_free(plan);
}

/*
 * A well-formed plan is read one endpoint at a time (stream.c); any other text by the whole tree (parse.c). A key
 * spelt with a \u escape sends the same plan down the tree path, so both readers are compared on it change by change:
 * list order, update pairing when updateNew comes first, null lists, unknown keys, invalid and duplicate changes.
 */
static void describe_changes(char *buf, size_t size, const dnsb_change *changes, size_t count)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < count && used < size; i++) {
		const dnsb_change *c = &changes[i];
		char *json = NULL;
		json_object *o = dnsb_change_to_plan_json(c);
		json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		used += (size_t)snprintf(buf + used, size - used, "%d %zu %d %d %s %s|", (int)c->kind, c->plan_index,
					 (int)c->outcome, (int)c->reason, c->message ? c->message : "-", json);
		free(json);
	}
}

static void describe(char *buf, size_t size, dnsb_plan *plan)
{
	describe_changes(buf, size, dnsb_plan_count(plan) ? dnsb_plan_change(plan, 0) : NULL, dnsb_plan_count(plan));
}

static void test_stream_and_tree_read_alike(void **state)
{
	static const char *const bodies[] = {
		"{\"updateNew\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.2\"],\"recordType\":\"A\"},"
		"{\"dnsName\":\"b.example.com\",\"targets\":[\"not-an-ip\"],\"recordType\":\"A\"}],"
		"\"Delete\":[{\"dnsName\":\"d.example.com\",\"targets\":[\"192.0.2.9\"],\"recordType\":\"A\",\"recordTTL\":60}],"
		"\"other\":{\"x\":[1,2,{\"y\":null}]},"
		"\"create\":[{\"dnsName\":\"C.example.com.\",\"targets\":[\"\\\"v=1\\\"\"],\"recordType\":\"TXT\","
		"\"labels\":{\"ownedRecord\":\"c.example.com\"}},"
		"{\"dnsName\":\"c.example.com\",\"targets\":[\"\\\"v=2\\\"\"],\"recordType\":\"TXT\"}],"
		"\"updateOld\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\"},"
		"{\"dnsName\":\"b.example.com\",\"targets\":[\"192.0.2.3\"],\"recordType\":\"A\"}]}",
		" {\n \"create\" : null , \"updateOld\":[], \"updateNew\": [ ] ,\"delete\":[{\"dnsName\":\"e.example.com\","
		"\"targets\":[\"e.example.net\"],\"recordType\":\"CNAME\",\"setIdentifier\":\"one\"}]}\n\t",
		/* An escaped backslash before a 'u' is no \\u escape: this one is streamed too. */
		"{\"create\":[{\"dnsName\":\"t.example.com\",\"targets\":[\"\\\"a\\\\\\\\u0041\\\"\"],\"recordType\":\"TXT\"}]}",
		"{}",
	};
	(void)state;
	for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
		char *tree_body = NULL, streamed[4096], tree[4096];
		dnsb_plan *plan = parse_ok(bodies[b]);

		describe(streamed, sizeof(streamed), plan);
		dnsb_plan_free(plan);
		/* The same plan with one more (ignored) key whose name holds an escape: read by the whole tree. */
		assert_true(asprintf(&tree_body, "{\"\\u0078\":0,%s", strcmp(bodies[b], "{}") == 0 ? "\"create\":[]}"
				     : strchr(bodies[b], '{') + 1) > 0);
		plan = parse_ok(tree_body);
		describe(tree, sizeof(tree), plan);
		dnsb_plan_free(plan);
		free(tree_body);
		assert_string_equal(streamed, tree);
	}
}

/* Read with the second thread started at the first `}`, `,`, `{` at or after `from`: the changes described. */
static dnsb_plan_split read_split(char *buf, size_t size, const char *body, size_t from)
{
	dnsb_change *changes = NULL;
	dnsb_plan_split split = { 0, 0 };
	size_t count = 0;

	assert_int_equal(dnsb_plan_stream_split(&changes, &count, body, strlen(body), "plan.json", from, &split), 0);
	describe_changes(buf, size, changes, count);
	for (size_t i = 0; i < count; i++)
		dnsb_plan_change_clear(&changes[i]);
	free(changes);
	return split;
}

/*
 * A long list is read by two threads, the second started at a guessed endpoint boundary (stream.c). Started at every
 * offset of these plans, the changes are those of one thread: guesses inside a string, between providerSpecific
 * entries, in a later list or past an updateOld list are thrown away; right guesses are taken, and the invalid
 * changes the second thread read name their place in the whole list.
 */
static void test_split_reads_alike(void **state)
{
#define A(n, ip) "{\"dnsName\":\"" n ".example.com\",\"targets\":[\"" ip "\"],\"recordType\":\"A\"}"
	static const char *const bodies[] = {
		"{\"create\":[" A("a", "192.0.2.1") ","
		"{\"dnsName\":\"t.example.com\",\"targets\":[\"\\\"x},{y\\\"\"],\"recordType\":\"TXT\"},"
		"{\"dnsName\":\"p.example.com\",\"targets\":[\"192.0.2.2\"],\"recordType\":\"A\",\"providerSpecific\":"
		"[{\"name\":\"a\",\"value\":\"1\"},{\"name\":\"b\",\"value\":\"2\"}]},"
		A("bad", "192.0.2.300") "," A("b", "192.0.2.3") ","
		"{\"dnsName\":\"o.example.com\",\"targets\":[\"192.0.2.4\"],\"recordType\":\"A\","
		"\"labels\":{\"ownedRecord\":\"b.example.com\"}}," A("c", "192.0.2.5") "],"
		"\"updateOld\":[" A("u", "192.0.2.6") "," A("v", "192.0.2.7") "],"
		"\"updateNew\":[" A("u", "192.0.2.8") "," A("v", "not-an-ip") "],"
		"\"delete\":[" A("d", "192.0.2.9") "," A("e", "300.0.0.1") "," A("f", "192.0.2.10") "]}",
		" {\n \"delete\" : [ " A("d", "192.0.2.9") " ,\n\t" A("bad", "1.2.3") " , " A("g", "192.0.2.11") " ] ,\n"
		"  \"create\":[\n  " A("a", "192.0.2.1") "\n ,  " A("a", "192.0.2.1") "\n]\n}\n",
	};
#undef A
	(void)state;
	for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
		const char *body = bodies[b], *bad = strstr(body, "bad.example.com");
		size_t len = strlen(body), taken_some = 0, thrown = 0;
		char one[8192], two[8192];

		assert_int_equal(read_split(one, sizeof(one), body, SIZE_MAX).started, 0);
		for (size_t from = 1; from < len; from++) {
			dnsb_plan_split split = read_split(two, sizeof(two), body, from);
			assert_string_equal(one, two);
			taken_some += split.taken > 0;
			thrown += split.started > 0 && split.taken == 0;
		}
		/* Both kinds happened: guesses taken and guesses thrown away. */
		assert_true(taken_some > 0);
		assert_true(thrown > 0);
		/* The second thread started at the invalid endpoint: it and the rest of its list are taken. */
		while (bad > body && *bad != '{')
			bad--;
		while (bad > body && *bad != '}')
			bad--;
		assert_int_equal(read_split(two, sizeof(two), body, (size_t)(bad - body)).taken, b == 0 ? 4 : 2);
		assert_string_equal(one, two);
		assert_non_null(strstr(one, b == 0 ? "$.create[3].targets[0] (bad.example.com A)" :
					       "$.delete[1].targets[0] (bad.example.com A)"));
	}
}

/* A list of 256 KiB or more is read by two threads unasked (split_from 0), one in ten endpoints invalid. */
static void test_split_on_long_list(void **state)
{
	size_t n = 4000, used = 0, size = n * 100 + 64;
	char *body = malloc(size), *one = malloc(n * 400), *two = malloc(n * 400);
	dnsb_plan_split split;
	(void)state;

	assert_non_null(body);
	used += (size_t)snprintf(body + used, size - used, "{\"create\":[");
	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(body + used, size - used,
					 "%s{\"dnsName\":\"h%zu.example.com\",\"targets\":[\"192.0.%zu.%zu\"],"
					 "\"recordType\":\"A\",\"recordTTL\":60}", i ? "," : "", i, i / 256,
					 i % 10 == 7 ? 256 : i % 256);
	snprintf(body + used, size - used, "]}");
	assert_true(strlen(body) >= 256 * 1024);
	assert_int_equal(read_split(one, n * 400, body, SIZE_MAX).started, 0);
	split = read_split(two, n * 400, body, 0);
	assert_int_equal(split.started, 1);
	assert_true(split.taken > n / 3 && split.taken < n * 2 / 3);
	assert_string_equal(one, two);
	assert_non_null(strstr(two, "$.create[3997].targets[0] (h3997.example.com A)"));
	free(body);
	free(one);
	free(two);
}

/* Faults the one-at-a-time reader leaves to the whole tree keep their exact messages. */
static void test_stream_leaves_faults_to_the_tree(void **state)
{
	(void)state;
	parse_fails("{\"updateNew\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.2\"],\"recordType\":\"A\"}],"
		    "\"updateOld\":[]}",
		    "plan.json: $.updateOld has 0 endpoints and $.updateNew 1: they pair by position");
	parse_fails("{\"create\":[],\"Create\":[]}", "plan.json: $.Create: the list 'create' is given twice");
	parse_fails("{\"create\":[{\"dnsName\":\"a.example.com\",\"targets\":[\"192.0.2.2\"],\"recordType\":\"A\"},7]}",
		    "plan.json: $.create[1]: expected an endpoint object");
	parse_fails("{\"create\":[]} {}", "plan.json:1:15 (offset 14): not JSON: data after the end of the document");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream_and_tree_read_alike),
		cmocka_unit_test(test_split_reads_alike),
		cmocka_unit_test(test_split_on_long_list),
		cmocka_unit_test(test_stream_leaves_faults_to_the_tree),
		cmocka_unit_test(test_nul_inside_strings_is_invalid),
		cmocka_unit_test(test_idn_owner_in_punycode),
		cmocka_unit_test(test_invalid_utf8_refused),
		cmocka_unit_test(test_duplicate_rrset_invalid),
		cmocka_unit_test(test_lower_case_keys),
		cmocka_unit_test(test_endpoints_kept_only_when_needed),
		cmocka_unit_test(test_capitalised_keys),
		cmocka_unit_test(test_spellings_mixed_across_lists),
		cmocka_unit_test(test_empty_and_null_lists),
		cmocka_unit_test(test_pairing_is_by_position),
		cmocka_unit_test(test_changes_in_list_order),
		cmocka_unit_test(test_owner_absolute_lower_case),
		cmocka_unit_test(test_targets_make_one_sorted_rrset),
		cmocka_unit_test(test_ttl_default),
		cmocka_unit_test(test_txt_quoted_and_bare),
		cmocka_unit_test(test_txt_long_bare_split_in_255),
		cmocka_unit_test(test_txt_bare_keeps_its_spaces),
		cmocka_unit_test(test_canonical_rdata),
		cmocka_unit_test(test_rdata_canonical_function),
		cmocka_unit_test(test_rdata_numeric_ranges),
		cmocka_unit_test(test_name_canonical_function),
		cmocka_unit_test(test_invalid_ipv4),
		cmocka_unit_test(test_invalid_record_type),
		cmocka_unit_test(test_invalid_ttl),
		cmocka_unit_test(test_invalid_name),
		cmocka_unit_test(test_invalid_name_too_long),
		cmocka_unit_test(test_invalid_targets),
		cmocka_unit_test(test_invalid_set_identifier),
		cmocka_unit_test(test_invalid_in_update_and_delete),
		cmocka_unit_test(test_invalid_does_not_stop_the_rest),
		cmocka_unit_test(test_not_json),
		cmocka_unit_test(test_trailing_whitespace_is_fine),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_scalar_document_is_not_a_plan),
		cmocka_unit_test(test_structure_errors),
		cmocka_unit_test(test_structure_error_after_good_endpoints),
		cmocka_unit_test(test_source_name_in_messages),
		cmocka_unit_test(test_owned_record),
		cmocka_unit_test(test_change_to_plan_json_round_trip),
		cmocka_unit_test(test_change_to_plan_json_given_endpoint),
		cmocka_unit_test(test_change_to_plan_json_without_endpoints),
		cmocka_unit_test(test_plan_writer_matches_plan_form),
		cmocka_unit_test(test_plan_writer_run_matches_plan_form),
		cmocka_unit_test(test_plan_load_missing_file),
		cmocka_unit_test(test_plan_load_directory),
		cmocka_unit_test(test_plan_load_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
