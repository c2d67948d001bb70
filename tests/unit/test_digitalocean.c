/*
 * test_digitalocean.c - the digitalocean provider without a server: a
 * record's JSON and its RDATA both ways (every type, "@" for the apex, host
 * names without their final dot, TXT as one string, TTL at least 30), the
 * requests of a pre-checked batch (records kept, updated in place, added,
 * removed, in order), the apex CNAME check, the class of every reply, and
 * the pace of the ratelimit headers. The fake server is in
 * tests/integration/test_digitalocean.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ldns/ldns.h>

#include "applier/core/clock.h"
#include "providers/digitalocean/digitalocean.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"

#define APEX "example.com."

/* Parse one record of JSON text; rc as dnsb_do_record_parse, *rdata "owner ttl rdata id" when 0 (malloc'd). */
static int parse_text(char **out, const char *json)
{
	json_object *rec = json_tokener_parse(json);
	char *owner = NULL, *rdata = NULL, id[24];
	uint16_t type;
	uint32_t ttl;
	int rc;

	assert_non_null(rec);
	rc = dnsb_do_record_parse(&owner, &type, &rdata, &ttl, id, rec, APEX, NULL);
	json_object_put(rec);
	*out = NULL;
	if (rc == 0)
		assert_true(asprintf(out, "%s %u %s %s %s", owner, ttl, dnsb_type_name(type), rdata, id) > 0);
	free(owner);
	free(rdata);
	return rc;
}

static void expect_parse(const char *json, const char *want)
{
	char *got;

	assert_int_equal(parse_text(&got, json), 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_record_parse(void **state)
{
	char *got;

	(void)state;
	expect_parse("{\"id\":1,\"type\":\"A\",\"name\":\"www\",\"data\":\"192.0.2.1\",\"ttl\":300}",
		     "www.example.com. 300 A 192.0.2.1 1");
	expect_parse("{\"id\":2,\"type\":\"AAAA\",\"name\":\"@\",\"data\":\"2001:DB8::1\",\"ttl\":30}",
		     "example.com. 30 AAAA 2001:db8::1 2");
	/* host names: listed without the dot, the zone's own name as "@" */
	expect_parse("{\"id\":3,\"type\":\"CNAME\",\"name\":\"Docs\",\"data\":\"pages.example.net\",\"ttl\":300}",
		     "docs.example.com. 300 CNAME pages.example.net. 3");
	expect_parse("{\"id\":4,\"type\":\"CNAME\",\"name\":\"www\",\"data\":\"@\",\"ttl\":300}",
		     "www.example.com. 300 CNAME example.com. 4");
	expect_parse("{\"id\":5,\"type\":\"MX\",\"name\":\"@\",\"data\":\"mail.example.com\",\"priority\":10,\"ttl\":300}",
		     "example.com. 300 MX 10 mail.example.com. 5");
	expect_parse("{\"id\":6,\"type\":\"SRV\",\"name\":\"_sip._tcp\",\"data\":\"sip.example.com\",\"priority\":10,"
		     "\"weight\":5,\"port\":5060,\"ttl\":300}", "_sip._tcp.example.com. 300 SRV 10 5 5060 sip.example.com. 6");
	expect_parse("{\"id\":7,\"type\":\"SRV\",\"name\":\"_x._tcp\",\"data\":\".\",\"priority\":0,\"weight\":0,\"port\":0,"
		     "\"ttl\":300}", "_x._tcp.example.com. 300 SRV 0 0 0 . 7");
	expect_parse("{\"id\":8,\"type\":\"NS\",\"name\":\"sub\",\"data\":\"ns1.example.net\",\"ttl\":1800}",
		     "sub.example.com. 1800 NS ns1.example.net. 8");
	/* a CAA issue domain: listed with the dot DigitalOcean requires, read without it */
	expect_parse("{\"id\":9,\"type\":\"CAA\",\"name\":\"@\",\"data\":\"letsencrypt.org.\",\"flags\":0,\"tag\":\"issue\","
		     "\"ttl\":300}", "example.com. 300 CAA 0 issue \"letsencrypt.org\" 9");
	expect_parse("{\"id\":16,\"type\":\"CAA\",\"name\":\"@\",\"data\":\"mailto:a@example.com\",\"flags\":128,"
		     "\"tag\":\"iodef\",\"ttl\":300}", "example.com. 300 CAA 128 iodef \"mailto:a@example.com\" 16");
	expect_parse("{\"id\":10,\"type\":\"TXT\",\"name\":\"t\",\"data\":\"say \\\"hi\\\"\",\"ttl\":300}",
		     "t.example.com. 300 TXT \"say \\\"hi\\\"\" 10");
	/* TXT: one string, served in character-strings of 255 octets */
	{
		char json[800], want[800], a[301];
		memset(a, 'a', 300);
		a[300] = '\0';
		snprintf(json, sizeof(json), "{\"id\":11,\"type\":\"TXT\",\"name\":\"long\",\"data\":\"%s\",\"ttl\":300}", a);
		snprintf(want, sizeof(want), "long.example.com. 300 TXT \"%.255s\" \"%.45s\" 11", a, a);
		expect_parse(json, want);
	}
	/* not written here: skipped; not a record: a parse error */
	assert_int_equal(parse_text(&got, "{\"id\":12,\"type\":\"SOA\",\"name\":\"@\",\"data\":\"1800\",\"ttl\":1800}"), 1);
	assert_int_equal(parse_text(&got, "{\"id\":13,\"type\":\"A\",\"name\":\"x\",\"data\":\"192.0.2.1\"}"), DNSB_EPARSE);
	assert_int_equal(parse_text(&got, "{\"id\":14,\"type\":\"MX\",\"name\":\"x\",\"data\":\"m.example.com\",\"ttl\":3}"),
			 DNSB_EPARSE);
	assert_int_equal(parse_text(&got, "{\"type\":\"A\",\"name\":\"x\",\"data\":\"192.0.2.1\",\"ttl\":3}"), DNSB_EPARSE);
	assert_int_equal(parse_text(&got, "{\"id\":15,\"type\":\"A\",\"name\":\"x\",\"data\":\"not an address\",\"ttl\":3}"),
			 DNSB_EPARSE);
	assert_int_equal(parse_text(&got, "[1]"), DNSB_EPARSE);
}

/* The body of one record, and the same body read back as a listed record (with an id): the same RDATA. */
static void expect_body(const char *owner, uint16_t type, const char *rdata, uint32_t ttl, const char *want_json,
			const char *want_back)
{
	char *body = NULL, *back, *with_id;

	assert_int_equal(dnsb_do_record_body(&body, APEX, owner, type, rdata, ttl, NULL), 0);
	assert_string_equal(body, want_json);
	assert_true(asprintf(&with_id, "{\"id\":42,%s", body + 1) > 0);
	/* DigitalOcean lists host names without their final dot, the apex as "@" (what the fake keeps) */
	assert_int_equal(parse_text(&back, with_id), 0);
	assert_string_equal(back, want_back);
	free(back);
	free(with_id);
	free(body);
}

static void test_record_body(void **state)
{
	char *body = (char *)"unchanged";

	(void)state;
	expect_body("www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", 300,
		    "{\"type\":\"A\",\"name\":\"www\",\"data\":\"192.0.2.1\",\"ttl\":300}", "www.example.com. 300 A 192.0.2.1 42");
	expect_body("example.com.", LDNS_RR_TYPE_MX, "10 mail.example.com.", 10,
		    "{\"type\":\"MX\",\"name\":\"@\",\"priority\":10,\"data\":\"mail.example.com.\",\"ttl\":30}",
		    "example.com. 30 MX 10 mail.example.com. 42");
	expect_body("_sip._tcp.example.com.", LDNS_RR_TYPE_SRV, "10 5 5060 sip.example.com.", 300,
		    "{\"type\":\"SRV\",\"name\":\"_sip._tcp\",\"priority\":10,\"weight\":5,\"port\":5060,\"data\":"
		    "\"sip.example.com.\",\"ttl\":300}", "_sip._tcp.example.com. 300 SRV 10 5 5060 sip.example.com. 42");
	expect_body("www.example.com.", LDNS_RR_TYPE_CNAME, "example.com.", 300,
		    "{\"type\":\"CNAME\",\"name\":\"www\",\"data\":\"example.com.\",\"ttl\":300}",
		    "www.example.com. 300 CNAME example.com. 42");
	expect_body("example.com.", LDNS_RR_TYPE_CAA, "0 issue \"letsencrypt.org\"", 300,
		    "{\"type\":\"CAA\",\"name\":\"@\",\"flags\":0,\"tag\":\"issue\",\"data\":\"letsencrypt.org.\",\"ttl\":300}",
		    "example.com. 300 CAA 0 issue \"letsencrypt.org\" 42");
	expect_body("example.com.", LDNS_RR_TYPE_CAA, "0 issuewild \";\"", 300,
		    "{\"type\":\"CAA\",\"name\":\"@\",\"flags\":0,\"tag\":\"issuewild\",\"data\":\";\",\"ttl\":300}",
		    "example.com. 300 CAA 0 issuewild \";\" 42");
	expect_body("t.example.com.", LDNS_RR_TYPE_TXT, "\"say \\\"hi\\\"\"", 300,
		    "{\"type\":\"TXT\",\"name\":\"t\",\"data\":\"say \\\"hi\\\"\",\"ttl\":300}",
		    "t.example.com. 300 TXT \"say \\\"hi\\\"\" 42");
	/* refused before sending: two short strings, a type DigitalOcean does not hold, a name outside the domain */
	assert_int_equal(dnsb_do_record_body(&body, APEX, "t.example.com.", LDNS_RR_TYPE_TXT, "\"a\" \"b\"", 300, NULL),
			 DNSB_EINVAL);
	assert_null(body);
	assert_int_equal(dnsb_do_record_body(&body, APEX, "p.example.com.", LDNS_RR_TYPE_PTR, "x.example.com.", 300, NULL),
			 DNSB_EINVAL);
	assert_int_equal(dnsb_do_record_body(&body, APEX, "www.example.org.", LDNS_RR_TYPE_A, "192.0.2.1", 300, NULL),
			 DNSB_EINVAL);
	assert_int_equal(dnsb_do_record_body(&body, APEX, "notexample.com.", LDNS_RR_TYPE_A, "192.0.2.1", 300, NULL),
			 DNSB_EINVAL);
	assert_int_equal(dnsb_do_record_body(&body, APEX, "x.example.com.", LDNS_RR_TYPE_A, "not an address", 300, NULL),
			 DNSB_EINVAL);
}

static void test_props(void **state)
{
	dnsb_rrset r;

	(void)state;
	rrset_set(&r, "x.example.com.", LDNS_RR_TYPE_A, 10, "192.0.2.1");
	r.routing = strdup(DNSB_PROPERTY_CF_PROXIED "=true\n");
	assert_int_equal(dnsb_do_props(NULL, &r), 0);
	assert_int_equal(r.ttl, DNSB_DO_TTL_MIN);
	assert_null(r.routing);
	r.ttl = DNSB_TTL_UNSET; /* an old RRset sent without one: any TTL still */
	assert_int_equal(dnsb_do_props(NULL, &r), 0);
	assert_int_equal(r.ttl, DNSB_TTL_UNSET);
	r.ttl = 3600;
	assert_int_equal(dnsb_do_props(NULL, &r), 0);
	assert_int_equal(r.ttl, 3600);
	r.type = LDNS_RR_TYPE_PTR;
	assert_int_equal(dnsb_do_props(NULL, &r), DNSB_EINVAL);
	dnsb_rrset_clear(&r);
}

/* The ops of one RRset going from the records `held` ("rdata/ttl/id" items) to final. @return "K id rdata/ttl;..." */
static void expect_diff(const char *const *held, size_t nh, const dnsb_rrset *final, const char *want)
{
	dnsb_hb_tags ids = { 0 };
	dnsb_rrset h;
	dnsb_precheck pc;
	dnsb_precheck_entry e = { "m.example.com.", LDNS_RR_TYPE_A, NULL, final, NULL };
	dnsb_do_op *ops;
	size_t n;
	char got[600] = "";
	static const char *const k[] = { "DELETE", "PUT", "POST" };

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < nh; i++) {
		char rdata[64], id[16];
		unsigned ttl;
		assert_int_equal(sscanf(held[i], "%63[^/]/%u/%15s", rdata, &ttl, id), 3);
		assert_int_equal(dnsb_hb_tags_add(&ids, "m.example.com.", LDNS_RR_TYPE_A, rdata, id, ttl), 0);
	}
	e.held = nh ? &h : NULL;
	pc.entries = &e;
	pc.count = 1;
	assert_int_equal(dnsb_do_diff(&ops, &n, &pc, &ids, NULL), 0);
	for (size_t i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s %s %s/%u;", k[ops[i].kind], ops[i].id,
			 ops[i].rdata ? ops[i].rdata : ops[i].old_rdata, ops[i].rdata ? ops[i].ttl : ops[i].old_ttl);
	assert_string_equal(got, want);
	free(ops);
	dnsb_hb_tags_clear(&ids);
}

static void test_diff(void **state)
{
	dnsb_rrset f;
	const char *two[] = { "192.0.2.1/300/11", "192.0.2.2/300/12" };
	const char *dup[] = { "192.0.2.1/300/11", "192.0.2.1/300/13" };
	const char *again[] = { "192.0.2.1/300/11", "192.0.2.1/300/11" };

	(void)state;
	rrset_set(&f, "m.example.com.", LDNS_RR_TYPE_A, 300, "192.0.2.2");
	assert_int_equal(dnsb_rrset_add_rdata(&f, "192.0.2.3"), 0);
	assert_int_equal(dnsb_rrset_add_rdata(&f, "192.0.2.4"), 0);
	/* .2 stays; .1 becomes .3 in place; .4 is added */
	expect_diff(two, 2, &f, "PUT 11 192.0.2.3/300;POST  192.0.2.4/300;");
	/* nothing held: every record posted */
	expect_diff(NULL, 0, &f, "POST  192.0.2.2/300;POST  192.0.2.3/300;POST  192.0.2.4/300;");
	/* deleted: every record by id */
	expect_diff(two, 2, NULL, "DELETE 11 192.0.2.1/300;DELETE 12 192.0.2.2/300;");
	dnsb_rrset_clear(&f);
	/* a TTL alone changes: each record put with its own data */
	rrset_set(&f, "m.example.com.", LDNS_RR_TYPE_A, 600, "192.0.2.1");
	assert_int_equal(dnsb_rrset_add_rdata(&f, "192.0.2.2"), 0);
	expect_diff(two, 2, &f, "PUT 11 192.0.2.1/600;PUT 12 192.0.2.2/600;");
	dnsb_rrset_clear(&f);
	/* one value held twice (two ids): the second removed */
	rrset_set(&f, "m.example.com.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	expect_diff(dup, 2, &f, "DELETE 13 192.0.2.1/300;");
	dnsb_rrset_clear(&f);
	/* one record listed twice (a page that moved between two reads of a listing): one record, one request by its
	 * id, never a PUT and a DELETE of it */
	rrset_set(&f, "m.example.com.", LDNS_RR_TYPE_A, 300, "192.0.2.5");
	expect_diff(again, 2, &f, "PUT 11 192.0.2.5/300;");
	dnsb_rrset_clear(&f);
	expect_diff(again, 2, NULL, "DELETE 11 192.0.2.1/300;");
}

static void test_diff_order(void **state)
{
	/* a CNAME replaced by an A at one name: the CNAME's DELETE before the A's POST, whatever the entries' order */
	dnsb_rrset a, cname;
	dnsb_hb_tags ids = { 0 };
	dnsb_precheck_entry e[2] = { { "x.example.com.", LDNS_RR_TYPE_A, NULL, &a, NULL },
				     { "x.example.com.", LDNS_RR_TYPE_CNAME, &cname, NULL, NULL } };
	dnsb_precheck pc = { e, 2 };
	dnsb_do_op *ops;
	size_t n;

	(void)state;
	rrset_set(&a, "x.example.com.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	rrset_set(&cname, "x.example.com.", LDNS_RR_TYPE_CNAME, 300, "y.example.com.");
	assert_int_equal(dnsb_hb_tags_add(&ids, "x.example.com.", LDNS_RR_TYPE_CNAME, "y.example.com.", "7", 300), 0);
	assert_int_equal(dnsb_do_diff(&ops, &n, &pc, &ids, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ops[0].kind, DNSB_DO_DELETE);
	assert_string_equal(ops[0].id, "7");
	assert_int_equal(ops[1].kind, DNSB_DO_POST);
	free(ops);
	/* an RRset held without any id listed: refused, not guessed */
	dnsb_hb_tags_clear(&ids);
	assert_int_equal(dnsb_do_diff(&ops, &n, &pc, &ids, NULL), DNSB_EINVAL);
	assert_null(ops);
	dnsb_rrset_clear(&a);
	dnsb_rrset_clear(&cname);
}

static void test_apex_cname(void **state)
{
	dnsb_change *cs[3];
	dnsb_result res;

	(void)state;
	cs[0] = change_with_ttl(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_CNAME, NULL, "example.com.", 300);
	cs[1] = change_with_ttl(DNSB_CHANGE_CREATE, APEX, LDNS_RR_TYPE_CNAME, NULL, "www.example.com.", 300);
	cs[2] = change_with_ttl(DNSB_CHANGE_DELETE, APEX, LDNS_RR_TYPE_CNAME, "www.example.com.", NULL, 300);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_do_apex_cname(&res, cs, 3, APEX), 1);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(res.code, "precheck");
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_do_apex_cname(&res, cs, 1, APEX), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	changes_free(cs, 3);
}

static dnsb_class classify(long status, const char *body, int by_id)
{
	dnsb_http_response r = http_reply(status, "application/json", body, -1);
	dnsb_result res;

	dnsb_result_init(&res);
	dnsb_do_classify(&res, &r, by_id);
	return res.cls;
}

static void test_classify(void **state)
{
	dnsb_http_response r = http_reply(422, "application/json", "{\"id\":\"unprocessable_entity\",\"message\":"
					  "\"CNAME records cannot share a name with other records\"}", -1);
	dnsb_result res;
	dnsb_error err;

	(void)state;
	assert_int_equal(classify(201, "{\"domain_record\":{\"id\":1}}", 0), DNSB_CLASS_OK);
	assert_int_equal(classify(204, "", 1), DNSB_CLASS_OK);
	assert_int_equal(classify(422, "{\"id\":\"unprocessable_entity\",\"message\":\"records cannot share a name with a "
				  "CNAME record\"}", 0), DNSB_CLASS_CONFLICT);
	assert_int_equal(classify(422, "{\"id\":\"unprocessable_entity\",\"message\":\"A record with the same name, type "
				  "and data already exists\"}", 0), DNSB_CLASS_CONFLICT);
	assert_int_equal(classify(422, "{\"id\":\"unprocessable_entity\",\"message\":\"Data needs to end with a dot (.)\"}",
				  0), DNSB_CLASS_INVALID);
	assert_int_equal(classify(400, "{\"id\":\"bad_request\",\"message\":\"error parsing request body\"}", 0),
			 DNSB_CLASS_INVALID);
	assert_int_equal(classify(404, "{\"id\":\"not_found\",\"message\":\"The resource you requested could not be "
				  "found.\"}", 1), DNSB_CLASS_CONFLICT);
	assert_int_equal(classify(404, "{\"id\":\"not_found\"}", 0), DNSB_CLASS_FATAL);
	assert_int_equal(classify(401, "{\"id\":\"unauthorized\",\"message\":\"Unable to authenticate you.\"}", 0),
			 DNSB_CLASS_FATAL);
	assert_int_equal(classify(403, "{\"id\":\"forbidden\"}", 0), DNSB_CLASS_FATAL);
	assert_int_equal(classify(429, "{\"id\":\"too_many_requests\",\"message\":\"API Rate limit exceeded.\"}", 0),
			 DNSB_CLASS_RATE_LIMITED);
	assert_int_equal(classify(500, "{\"id\":\"server_error\"}", 0), DNSB_CLASS_TRANSIENT);
	assert_int_equal(classify(502, "<html>Bad Gateway</html>", 0), DNSB_CLASS_TRANSIENT);
	assert_int_equal(classify(413, "too large", 0), DNSB_CLASS_INVALID);
	dnsb_result_init(&res);
	dnsb_do_classify(&res, &r, 0);
	assert_string_equal(res.code, "unprocessable_entity");
	assert_string_equal(res.message, "CNAME records cannot share a name with other records");
	assert_int_equal(res.status, 422);
	r = http_reply(401, "application/json", "{\"id\":\"unauthorized\",\"message\":\"Unable to authenticate you.\"}", -1);
	assert_int_equal(dnsb_do_reply_error(&r, "GET /v2/domains", &err), DNSB_EFATAL);
	assert_non_null(strstr(err.message, "GET /v2/domains: HTTP 401 unauthorized: Unable to authenticate you."));
	r = http_reply(429, "application/json", "{}", 3);
	assert_int_equal(dnsb_do_reply_error(&r, "x", &err), DNSB_ERATELIMIT);
	r = http_reply(503, "text/plain", "down", -1);
	assert_int_equal(dnsb_do_reply_error(&r, "x", &err), DNSB_ETRANSIENT);
}

static int write_state(dnsb_do_op_kind kind, long status, const char *body, dnsb_class want_cls, char *id)
{
	dnsb_do_op op = { kind, "x.example.com.", LDNS_RR_TYPE_A, "7", "192.0.2.1", 300, "192.0.2.2", 300, 0 };
	dnsb_http_response r = http_reply(status, "application/json", body, -1);
	dnsb_result res;
	int st = dnsb_do_write_state(&res, &op, &r);

	assert_int_equal(res.cls, want_cls);
	if (id)
		strcpy(id, op.id);
	return st;
}

static void test_write_state(void **state)
{
	char id[24];
	const char *dup = "{\"id\":\"unprocessable_entity\",\"message\":\"A record with the same name, type and data "
			  "already exists\"}";

	(void)state;
	assert_int_equal(write_state(DNSB_DO_POST, 201, "{\"domain_record\":{\"id\":3352896,\"type\":\"A\"}}",
				     DNSB_CLASS_OK, id), DNSB_DO_LANDED);
	assert_string_equal(id, "3352896"); /* the id its undo would delete */
	assert_int_equal(write_state(DNSB_DO_PUT, 200, "{\"domain_record\":{\"id\":7}}", DNSB_CLASS_OK, id), DNSB_DO_LANDED);
	assert_string_equal(id, "7");
	assert_int_equal(write_state(DNSB_DO_DELETE, 204, "", DNSB_CLASS_OK, NULL), DNSB_DO_LANDED);
	/* landed, but no id to undo it by: read back */
	assert_int_equal(write_state(DNSB_DO_POST, 201, "{}", DNSB_CLASS_OK, NULL), DNSB_DO_UNKNOWN);
	/* a resend meeting its own work: read back, the class kept should it not have landed */
	assert_int_equal(write_state(DNSB_DO_POST, 422, dup, DNSB_CLASS_CONFLICT, NULL), DNSB_DO_UNKNOWN);
	assert_int_equal(write_state(DNSB_DO_DELETE, 404, "{\"id\":\"not_found\"}", DNSB_CLASS_CONFLICT, NULL),
			 DNSB_DO_UNKNOWN);
	/* refused: nothing done */
	assert_int_equal(write_state(DNSB_DO_PUT, 404, "{\"id\":\"not_found\"}", DNSB_CLASS_CONFLICT, NULL),
			 DNSB_DO_NOT_LANDED);
	assert_int_equal(write_state(DNSB_DO_POST, 422, "{\"id\":\"unprocessable_entity\",\"message\":\"CNAME records cannot "
				     "share a name with other records\"}", DNSB_CLASS_CONFLICT, NULL), DNSB_DO_UNKNOWN);
	assert_int_equal(write_state(DNSB_DO_POST, 422, "{\"id\":\"unprocessable_entity\",\"message\":\"Data needs to end "
				     "with a dot (.)\"}", DNSB_CLASS_INVALID, NULL), DNSB_DO_NOT_LANDED);
	assert_int_equal(write_state(DNSB_DO_POST, 429, "{\"id\":\"too_many_requests\"}", DNSB_CLASS_RATE_LIMITED, NULL),
			 DNSB_DO_NOT_LANDED);
	assert_int_equal(write_state(DNSB_DO_POST, 401, "{\"id\":\"unauthorized\"}", DNSB_CLASS_FATAL, NULL),
			 DNSB_DO_NOT_LANDED);
	/* lost after the commit, maybe: read back */
	assert_int_equal(write_state(DNSB_DO_PUT, 502, "<html>", DNSB_CLASS_TRANSIENT, NULL), DNSB_DO_UNKNOWN);
}

/* A reply with the ratelimit headers ("name\0value\0" pairs, as the transport keeps them). */
static dnsb_http_response limited(long status, const char *remaining, const char *reset, double retry_after,
				  char *buf, size_t size)
{
	dnsb_http_response r = http_reply(status, "application/json", "{}", retry_after);
	int len = snprintf(buf, size, "ratelimit-limit%c5000%cratelimit-remaining%c%s%cratelimit-reset%c%s%c", 0, 0, 0,
			   remaining, 0, 0, reset, 0);

	r.headers = buf;
	r.headers_len = (size_t)len;
	return r;
}

static void test_pace(void **state)
{
	dnsb_do_pace p;
	char buf[200], reset[32];
	double now = 1000.0, wall = 1.8e9;
	dnsb_http_response r;

	(void)state;
	dnsb_do_pace_init(&p);
	assert_true(dnsb_do_pace_reserve(&p, now, 0) == 0.0); /* nothing known: at once */
	assert_true(dnsb_do_pace_room(&p, 1e6, now) == 0.0);
	snprintf(reset, sizeof(reset), "%.0f", wall + 10);
	r = limited(200, "4000", reset, -1, buf, sizeof(buf));
	assert_int_equal(dnsb_do_pace_note(&p, &r, now, wall), 0);
	assert_true(dnsb_do_pace_reserve(&p, now, 0) == 0.0); /* plenty left */
	r = limited(200, "0", reset, -1, buf, sizeof(buf));
	assert_int_equal(dnsb_do_pace_note(&p, &r, now, wall), 1); /* fell below the low water */
	assert_true(dnsb_do_pace_reserve(&p, now, 0) > 9.9);     /* none left: until the reset */
	assert_true(dnsb_do_pace_reserve(&p, now, now + 5) > 9.9); /* past give_up: not reserved (the caller's test) */
	dnsb_do_pace_clear(&p); /* that reservation took the slot at the reset: start again */
	dnsb_do_pace_init(&p);
	r = limited(200, "100", reset, -1, buf, sizeof(buf));
	dnsb_do_pace_note(&p, &r, now, wall);
	assert_true(dnsb_do_pace_reserve(&p, now, 0) < 0.2); /* below a twentieth: spread, 100 over 10 s */
	assert_true(dnsb_do_pace_reserve(&p, now, 0) > 0.05);
	/* room for a batch: 100 left, a batch of 60 requests and its undos (120) waits for the reset, one of 40 not */
	assert_true(dnsb_do_pace_room(&p, 120, now) > 9.9);
	assert_true(dnsb_do_pace_room(&p, 80, now) == 0.0);
	assert_true(dnsb_do_pace_room(&p, 120, now + 11) == 0.0); /* past the reset: nothing known */
	/* a 429 with Retry-After holds every request that long */
	r = limited(429, "0", reset, 2, buf, sizeof(buf));
	dnsb_do_pace_note(&p, &r, now, wall);
	assert_true(dnsb_do_pace_reserve(&p, now, 0) > 1.9 && dnsb_do_pace_reserve(&p, now, 0) < 2.1);
	assert_int_equal(p.throttled, 1);
	/* a reset past the hour makes no sense: ignored */
	snprintf(reset, sizeof(reset), "%.0f", wall + 1e9);
	dnsb_do_pace_clear(&p);
	dnsb_do_pace_init(&p);
	r = limited(200, "0", reset, -1, buf, sizeof(buf));
	dnsb_do_pace_note(&p, &r, now, wall);
	assert_true(dnsb_do_pace_reserve(&p, now, 0) == 0.0);
	dnsb_do_pace_clear(&p);
}

/* The TTL a page lists an RRset at whose records carry several: the lowest, in either order; a record of another
 * RRset than the keys' is skipped before its data (an SRV without weight). */
static void test_page_ttl(void **state)
{
	static const char *const pages[] = {
		"{\"domain_records\":[{\"id\":1,\"type\":\"A\",\"name\":\"m\",\"data\":\"192.0.2.1\",\"ttl\":600},"
		"{\"id\":2,\"type\":\"A\",\"name\":\"m\",\"data\":\"192.0.2.2\",\"ttl\":300},"
		"{\"id\":3,\"type\":\"SRV\",\"name\":\"_x._tcp\",\"data\":\"t\",\"priority\":1,\"port\":2,\"weight\":null,"
		"\"ttl\":300}]}",
		"{\"domain_records\":[{\"id\":2,\"type\":\"A\",\"name\":\"m\",\"data\":\"192.0.2.2\",\"ttl\":300},"
		"{\"id\":1,\"type\":\"A\",\"name\":\"m\",\"data\":\"192.0.2.1\",\"ttl\":600}]}",
	};
	dnsb_rrkey key = { "m.example.com.", LDNS_RR_TYPE_A };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		json_object *doc = json_tokener_parse(pages[i]);
		dnsb_rrset_list out = { 0 };
		dnsb_hb_tags ids = { 0 };
		char *next = NULL;
		assert_int_equal(dnsb_do_records_parse(&out, &ids, doc, APEX, &key, 1, &next, NULL), 0);
		assert_int_equal(out.count, 1);
		assert_int_equal(out.items[0].ttl, 300);
		assert_int_equal(out.items[0].rdata_count, 2);
		assert_int_equal(ids.count, 2); /* each record keeps its own TTL for the diff */
		assert_null(next);
		dnsb_rrset_list_clear(&out);
		dnsb_hb_tags_clear(&ids);
		json_object_put(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_parse), cmocka_unit_test(test_record_body), cmocka_unit_test(test_props),
		cmocka_unit_test(test_diff),         cmocka_unit_test(test_diff_order), cmocka_unit_test(test_apex_cname),
		cmocka_unit_test(test_classify),     cmocka_unit_test(test_write_state), cmocka_unit_test(test_pace),
		cmocka_unit_test(test_page_ttl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
