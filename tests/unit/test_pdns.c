/*
 * test_pdns.c - the pdns provider without a server: the class of every
 * PowerDNS reply in the reference (422 conflict and invalid with the RRset
 * named, text/plain 400/401/404, 5xx, 429), the Content-Type checked before
 * parsing, the pre-check (every mismatch named in one pass, the batch
 * replayed in order, unset old TTLs, nothing sent for what is already so),
 * the PATCH body (DELETEs first), zone documents to RRsets, zone lists and
 * flags. The real server is in tests/integration/test_pdns.sh.
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

#include "providers/pdns/pdns.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"
#include "unit/config_fixture.h"

/* ---- helpers ---- */

static dnsb_change *change_new(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
			       const char *new_rdata)
{
	return change_with_ttl(kind, owner, type, old_rdata, new_rdata, 300);
}

static void held_add(dnsb_rrset_list *held, const char *owner, uint16_t type, uint32_t ttl, const char *rdata)
{
	dnsb_rrset s;

	rrset_set(&s, owner, type, ttl, rdata);
	assert_int_equal(dnsb_rrset_list_push(held, &s), 0);
}

#define JSON "application/json"
#define TEXT "text/plain; charset=utf-8"

/* The batch of the table tests: create www CNAME (0), update b TXT (1), delete c A (2), create bad A (3), create d A (4). */
typedef struct batch {
	dnsb_change *c[5];
} batch;

static void batch_make(batch *b)
{
	b->c[0] = change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_CNAME, NULL, "x.example.test.");
	b->c[1] = change_new(DNSB_CHANGE_UPDATE, "b.example.test.", LDNS_RR_TYPE_TXT, "\"old\"", "\"new\"");
	b->c[2] = change_new(DNSB_CHANGE_DELETE, "c.example.test.", LDNS_RR_TYPE_A, "192.0.2.3", NULL);
	b->c[3] = change_new(DNSB_CHANGE_CREATE, "bad.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.4");
	b->c[4] = change_new(DNSB_CHANGE_CREATE, "d.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.5");
}

static dnsb_result classify(batch *b, long status, const char *ctype, const char *body, double retry_after)
{
	dnsb_http_response r = http_reply(status, ctype, body, retry_after);
	dnsb_result res;

	dnsb_pdns_classify(&res, &r, b->c, 5);
	return res;
}

static void assert_culprits(const dnsb_result *res, size_t count, ...)
{
	va_list ap;

	assert_int_equal(res->culprit_count, count);
	va_start(ap, count);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(res->culprits[i], va_arg(ap, int));
	va_end(ap);
}

/* ---- the class table ---- */

static void test_classify_table(void **state)
{
	batch b;
	dnsb_result r;

	(void)state;
	batch_make(&b);
	r = classify(&b, 204, "", "", -1);
	assert_int_equal(r.cls, DNSB_CLASS_OK);
	assert_int_equal(r.status, 204);

	r = classify(&b, 422, JSON, "{\"error\": \"RRset www.example.test. IN CNAME: Conflicts with pre-existing RRset\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(r.status, 422);
	assert_string_equal(r.message, "RRset www.example.test. IN CNAME: Conflicts with pre-existing RRset");
	assert_culprits(&r, 1, 0);

	r = classify(&b, 422, JSON, "{\"error\": \"Duplicate RRset d.example.test. IN A with changetype: REPLACE\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_CONFLICT);
	assert_culprits(&r, 1, 4);

	r = classify(&b, 422, JSON,
		     "{\"error\": \"Record bad.example.test./A '999.1.1.1': Parsing record content (try 'pdnsutil check-zone'): unable to parse IP address\"}",
		     -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_culprits(&r, 1, 3);

	r = classify(&b, 422, JSON, "{\"error\": \"RRset c.example.test. IN A: Name is out of zone\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_culprits(&r, 1, 2);

	r = classify(&b, 422, JSON, "{\"error\": \"DNS Name 'B.example.test' is not canonical\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_culprits(&r, 1, 1);

	r = classify(&b, 422, JSON, "{\"error\": \"Record d.example.test. IN A is not allowed at apex\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_culprits(&r, 1, 4);

	r = classify(&b, 422, JSON, "{\"error\": \"RRset nowhere.example.test. IN A: Name is out of zone\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_culprits(&r, 0);

	r = classify(&b, 400, TEXT, "Bad Request", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_string_equal(r.message, "Bad Request");

	r = classify(&b, 401, TEXT, "Unauthorized", -1);
	assert_int_equal(r.cls, DNSB_CLASS_FATAL);
	assert_int_equal(r.status, 401);
	assert_string_equal(r.message, "Unauthorized");
	assert_culprits(&r, 0);

	r = classify(&b, 404, TEXT, "Not Found", -1);
	assert_int_equal(r.cls, DNSB_CLASS_FATAL);
	r = classify(&b, 403, TEXT, "Forbidden", -1);
	assert_int_equal(r.cls, DNSB_CLASS_FATAL);
	r = classify(&b, 409, TEXT, "Conflict", -1);
	assert_int_equal(r.cls, DNSB_CLASS_CONFLICT);

	r = classify(&b, 500, JSON, "{\"error\": \"Internal Server Error\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_TRANSIENT);
	r = classify(&b, 503, TEXT, "Service Unavailable\nmore", 7);
	assert_int_equal(r.cls, DNSB_CLASS_TRANSIENT);
	assert_string_equal(r.message, "Service Unavailable");
	assert_true(r.retry_after == 7);
	r = classify(&b, 429, TEXT, "Too Many Requests", 3);
	assert_int_equal(r.cls, DNSB_CLASS_RATE_LIMITED);
	assert_true(r.retry_after == 3);
	r = classify(&b, 302, TEXT, "Found", -1);
	assert_int_equal(r.cls, DNSB_CLASS_FATAL);
	changes_free(b.c, 5);
}

/* A JSON-looking body sent as text/plain is not parsed: its first line is the message. */
static void test_content_type_checked_first(void **state)
{
	batch b;
	dnsb_result r;

	(void)state;
	batch_make(&b);
	r = classify(&b, 422, TEXT, "{\"error\": \"RRset www.example.test. IN CNAME: Conflicts with pre-existing RRset\"}", -1);
	assert_int_equal(r.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(r.message, "{\"error\": \"RRset www.example.test. IN CNAME: Conflicts with pre-existing RRset\"}");
	r = classify(&b, 422, JSON, "not json", -1);
	assert_int_equal(r.cls, DNSB_CLASS_INVALID);
	assert_string_equal(r.message, "not json");
	changes_free(b.c, 5);
}

static void test_read_errors(void **state)
{
	dnsb_http_response r;
	dnsb_error err;

	(void)state;
	r = http_reply(401, TEXT, "Unauthorized", -1);
	assert_int_equal(dnsb_pdns_reply_error(&r, "GET zone example.test.", &err), DNSB_EFATAL);
	assert_string_equal(err.message, "GET zone example.test.: HTTP 401: Unauthorized");
	r = http_reply(404, TEXT, "Not Found", -1);
	assert_int_equal(dnsb_pdns_reply_error(&r, "GET", &err), DNSB_EFATAL);
	r = http_reply(502, TEXT, "Bad Gateway", -1);
	assert_int_equal(dnsb_pdns_reply_error(&r, "GET", &err), DNSB_ETRANSIENT);
	r = http_reply(429, TEXT, "", -1);
	assert_int_equal(dnsb_pdns_reply_error(&r, "GET", &err), DNSB_ERATELIMIT);
	assert_string_equal(err.message, "GET: HTTP 429: (no message)");
}

/* ---- the pre-check ---- */

static void test_check_names_every_mismatch(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[6];
	dnsb_precheck patch;
	dnsb_result res;

	(void)state;
	held_add(&held, "exists.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	held_add(&held, "other.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.9");
	held_add(&held, "ttl.example.test.", LDNS_RR_TYPE_A, 600, "192.0.2.2");
	c[0] = change_new(DNSB_CHANGE_CREATE, "new.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.10");
	c[1] = change_new(DNSB_CHANGE_CREATE, "exists.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.11");
	c[2] = change_new(DNSB_CHANGE_DELETE, "missing.example.test.", LDNS_RR_TYPE_A, "192.0.2.12", NULL);
	c[3] = change_new(DNSB_CHANGE_UPDATE, "other.example.test.", LDNS_RR_TYPE_A, "192.0.2.13", "192.0.2.14");
	c[4] = change_new(DNSB_CHANGE_DELETE, "ttl.example.test.", LDNS_RR_TYPE_A, "192.0.2.2", NULL); /* TTL 300 != 600 */
	c[5] = change_new(DNSB_CHANGE_CREATE, "new2.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.15");
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 6, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(res.code, "precheck");
	assert_culprits(&res, 4, 1, 2, 3, 4);
	assert_non_null(strstr(res.message, "create exists.example.test. A: the RRset exists"));
	/* The others are still planned (a caller would send them after the engine drops the culprits). */
	assert_int_equal(patch.count, 2);
	dnsb_precheck_clear(&patch);

	/* An unset old TTL matches any TTL held. */
	c[4]->old.ttl = DNSB_TTL_UNSET;
	assert_int_equal(dnsb_precheck_run(&patch, &res, c + 4, 1, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(patch.count, 1);
	assert_null(patch.entries[0].final);
	assert_non_null(patch.entries[0].held);
	dnsb_precheck_clear(&patch);
	changes_free(c, 6);
	dnsb_rrset_list_clear(&held);
}

/* Changes are replayed in order: each sees what the ones before it did. */
static void test_check_replays_in_order(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[5];
	dnsb_precheck patch;
	dnsb_result res;

	(void)state;
	held_add(&held, "x.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	c[0] = change_new(DNSB_CHANGE_DELETE, "x.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", NULL);
	c[1] = change_new(DNSB_CHANGE_CREATE, "x.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.2");
	c[2] = change_new(DNSB_CHANGE_CREATE, "y.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.3");
	c[3] = change_new(DNSB_CHANGE_DELETE, "y.example.test.", LDNS_RR_TYPE_A, "192.0.2.3", NULL);
	c[4] = change_new(DNSB_CHANGE_CREATE, "x.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.4"); /* after c[1]: exists */
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 5, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_culprits(&res, 1, 4);
	/* x replaced once (delete + create = one REPLACE), y created and deleted: nothing to send. */
	assert_int_equal(patch.count, 1);
	assert_string_equal(patch.entries[0].owner, "x.example.test.");
	assert_string_equal(patch.entries[0].final->rdata[0], "192.0.2.2");
	dnsb_precheck_clear(&patch);

	/* What is held already: nothing to write. */
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 1, NULL, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT); /* nothing held at all: the delete misses */
	assert_culprits(&res, 1, 0);
	assert_non_null(strstr(res.message, "does not exist"));
	dnsb_precheck_clear(&patch);
	changes_free(c, 5);
	dnsb_rrset_list_clear(&held);
}

/* An update to another type must not overwrite an RRset held there. */
static void test_check_update_to_other_type(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c;
	dnsb_precheck patch;
	dnsb_result res;

	(void)state;
	held_add(&held, "u.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	held_add(&held, "u.example.test.", LDNS_RR_TYPE_AAAA, 300, "2001:db8::1");
	c = change_new(DNSB_CHANGE_UPDATE, "u.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", NULL);
	rrset_set(&c->new_set, "u.example.test.", LDNS_RR_TYPE_AAAA, 300, "2001:db8::2");
	assert_int_equal(dnsb_precheck_run(&patch, &res, &c, 1, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_non_null(strstr(res.message, "the RRset exists"));
	dnsb_precheck_clear(&patch);
	changes_free(&c, 1);
	dnsb_rrset_list_clear(&held);
}

/* ---- the PATCH body ---- */

static json_object *rrsets_of(const char *body)
{
	json_object *doc = json_tokener_parse(body), *rrsets;

	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "rrsets", &rrsets));
	json_object_get(rrsets);
	json_object_put(doc);
	return rrsets;
}

static const char *field(json_object *rrsets, size_t i, const char *name)
{
	json_object *v;

	assert_true(json_object_object_get_ex(json_object_array_get_idx(rrsets, i), name, &v));
	return json_object_get_string(v);
}

/* A CNAME replaced by an A record: the CNAME's DELETE leads, whatever the batch's order. */
static void test_body_deletes_first(void **state)
{
	dnsb_rrset_list held = { 0 };
	dnsb_change *c[3];
	dnsb_precheck patch;
	dnsb_result res;
	json_object *rrsets, *records;
	char *body;

	(void)state;
	held_add(&held, "www.example.test.", LDNS_RR_TYPE_CNAME, 300, "old.example.test.");
	c[0] = change_new(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	c[1] = change_new(DNSB_CHANGE_CREATE, "t.example.test.", LDNS_RR_TYPE_TXT, NULL, "\"a b\"");
	c[2] = change_new(DNSB_CHANGE_DELETE, "www.example.test.", LDNS_RR_TYPE_CNAME, "old.example.test.", NULL);
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 3, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(dnsb_pdns_patch_body(&body, &patch), 0);
	rrsets = rrsets_of(body);
	assert_int_equal(json_object_array_length(rrsets), 3);
	assert_string_equal(field(rrsets, 0, "changetype"), "DELETE");
	assert_string_equal(field(rrsets, 0, "type"), "CNAME");
	assert_string_equal(field(rrsets, 0, "name"), "www.example.test.");
	assert_string_equal(field(rrsets, 1, "changetype"), "REPLACE");
	assert_string_equal(field(rrsets, 1, "type"), "A");
	assert_string_equal(field(rrsets, 1, "ttl"), "300");
	assert_string_equal(field(rrsets, 2, "type"), "TXT");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rrsets, 2), "records", &records));
	assert_string_equal(field(records, 0, "content"), "\"a b\"");
	assert_string_equal(field(records, 0, "disabled"), "false");
	json_object_put(rrsets);
	free(body);
	dnsb_precheck_clear(&patch);
	changes_free(c, 3);
	dnsb_rrset_list_clear(&held);
}

/* Disabled records: kept apart, an RRset of them only held; the PATCH carries them; a create names them. */
static void test_disabled_records(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"rrsets\":["
		"{\"name\":\"mix.example.test.\",\"type\":\"A\",\"ttl\":300,\"records\":[{\"content\":\"192.0.2.1\",\"disabled\":false},"
		"{\"content\":\"192.0.2.99\",\"disabled\":true}],\"comments\":[{\"content\":\"keep\"}]},"
		"{\"name\":\"off.example.test.\",\"type\":\"A\",\"ttl\":300,\"records\":[{\"content\":\"192.0.2.98\",\"disabled\":true}]}]}");
	dnsb_rrset_list held = { 0 }, disabled = { 0 }, served = { 0 };
	dnsb_change *c[3];
	dnsb_precheck patch;
	dnsb_result res;
	json_object *rrsets, *records;
	char *body;

	(void)state;
	assert_int_equal(dnsb_pdns_zone_parse(&served, &disabled, 0, doc, NULL, 0, NULL), 0);
	assert_int_equal(served.count, 1); /* a listing: what is served */
	assert_int_equal(disabled.count, 2);
	dnsb_rrset_list_clear(&disabled);
	assert_int_equal(dnsb_pdns_zone_parse(&held, &disabled, 1, doc, NULL, 0, NULL), 0);
	assert_int_equal(held.count, 2); /* off is held: its records are all disabled */
	assert_int_equal(dnsb_rrset_list_find(&held, "mix.example.test.", LDNS_RR_TYPE_A)->rdata_count, 1);

	c[0] = change_new(DNSB_CHANGE_UPDATE, "mix.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.2");
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 1, &held, &disabled), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(dnsb_pdns_patch_body(&body, &patch), 0);
	rrsets = rrsets_of(body);
	assert_string_equal(field(rrsets, 0, "changetype"), "REPLACE");
	assert_false(json_object_object_get_ex(json_object_array_get_idx(rrsets, 0), "comments", NULL));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rrsets, 0), "records", &records));
	assert_int_equal(json_object_array_length(records), 2);
	assert_string_equal(field(records, 0, "content"), "192.0.2.2");
	assert_string_equal(field(records, 1, "content"), "192.0.2.99");
	assert_string_equal(field(records, 1, "disabled"), "true");
	json_object_put(rrsets);
	free(body);
	dnsb_precheck_clear(&patch);

	/* A delete of the enabled records: a REPLACE with the disabled one alone. */
	c[1] = change_new(DNSB_CHANGE_DELETE, "mix.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", NULL);
	assert_int_equal(dnsb_precheck_run(&patch, &res, c + 1, 1, &held, &disabled), 0);
	assert_int_equal(dnsb_pdns_patch_body(&body, &patch), 0);
	rrsets = rrsets_of(body);
	assert_string_equal(field(rrsets, 0, "changetype"), "REPLACE");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rrsets, 0), "records", &records));
	assert_int_equal(json_object_array_length(records), 1);
	assert_string_equal(field(records, 0, "content"), "192.0.2.99");
	json_object_put(rrsets);
	free(body);
	dnsb_precheck_clear(&patch);

	/* A create over disabled records only: a conflict naming them. */
	c[2] = change_new(DNSB_CHANGE_CREATE, "off.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.3");
	assert_int_equal(dnsb_precheck_run(&patch, &res, c + 2, 1, &held, &disabled), 0);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_non_null(strstr(dnsb_result_note(&res, 0), "the RRset exists (disabled records held: 192.0.2.98)"));
	dnsb_precheck_clear(&patch);
	changes_free(c, 3);
	dnsb_rrset_list_clear(&held);
	dnsb_rrset_list_clear(&disabled);
	dnsb_rrset_list_clear(&served);
	json_object_put(doc);
}

/* The read-back after a PATCH: what neither side wrote is a race; ours, or what was there, is not. */
static void test_races(void **state)
{
	dnsb_rrset_list held = { 0 }, after = { 0 };
	dnsb_change *c[3];
	dnsb_precheck patch;
	dnsb_result res;

	(void)state;
	held_add(&held, "u.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	c[0] = change_new(DNSB_CHANGE_UPDATE, "u.example.test.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.2");
	c[1] = change_new(DNSB_CHANGE_CREATE, "n.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.3");
	c[2] = change_new(DNSB_CHANGE_CREATE, "m.example.test.", LDNS_RR_TYPE_A, NULL, "192.0.2.4");
	assert_int_equal(dnsb_precheck_run(&patch, &res, c, 3, &held, NULL), 0);
	assert_int_equal(patch.count, 3);
	held_add(&after, "u.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.2");   /* ours */
	held_add(&after, "n.example.test.", LDNS_RR_TYPE_A, 300, "198.51.100.9"); /* another client's */
	assert_int_equal(dnsb_precheck_races(&patch, &after, "example.test."), 1);  /* n; m absent is what was there */
	dnsb_rrset_list_clear(&after);
	held_add(&after, "u.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.1");   /* what was there */
	held_add(&after, "n.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.3");
	held_add(&after, "m.example.test.", LDNS_RR_TYPE_A, 300, "192.0.2.4");
	assert_int_equal(dnsb_precheck_races(&patch, &after, "example.test."), 0);
	dnsb_precheck_clear(&patch);
	changes_free(c, 3);
	dnsb_rrset_list_clear(&held);
	dnsb_rrset_list_clear(&after);
}

static void test_url(void **state)
{
	dnsb_pdns_config cfg = { 0 };
	char *url;

	(void)state;
	cfg.server = (char *)"http://127.0.0.1:8081";
	cfg.server_id = (char *)"local host";
	url = dnsb_pdns_url(&cfg, "/zones/%s", "example.test.");
	assert_string_equal(url, "http://127.0.0.1:8081/api/v1/servers/local%20host/zones/example.test.");
	free(url);
	url = dnsb_pdns_url(&cfg, "/zones/%s", "a/b=2F.");
	assert_string_equal(url, "http://127.0.0.1:8081/api/v1/servers/local%20host/zones/a%2Fb%3D2F.");
	free(url);
}

/* ---- replies to data ---- */

static void test_zone_parse(void **state)
{
	const char *doc_text =
		"{\"name\":\"example.test.\",\"rrsets\":["
		"{\"name\":\"WWW.example.test.\",\"type\":\"A\",\"ttl\":60,\"records\":[{\"content\":\"192.0.2.2\",\"disabled\":false},"
		"{\"content\":\"192.0.2.1\",\"disabled\":false},{\"content\":\"192.0.2.9\",\"disabled\":true}]},"
		"{\"name\":\"www.example.test.\",\"type\":\"TXT\",\"ttl\":300,\"records\":[{\"content\":\"\\\"x y\\\"\",\"disabled\":false}]},"
		"{\"name\":\"m.example.test.\",\"type\":\"MX\",\"ttl\":300,\"records\":[{\"content\":\"10 Mail.example.test.\",\"disabled\":false}]},"
		"{\"name\":\"c.example.test.\",\"type\":\"A\",\"ttl\":300,\"records\":[],\"comments\":[{\"content\":\"x\"}]},"
		"{\"name\":\"z.example.test.\",\"type\":\"NOSUCHTYPE\",\"ttl\":300,\"records\":[{\"content\":\"x\",\"disabled\":false}]}]}";
	json_object *doc = json_tokener_parse(doc_text), *bad = json_tokener_parse("{\"rrsets\":[{\"type\":\"A\"}]}");
	dnsb_rrset_list all = { 0 }, some = { 0 };
	dnsb_rrkey keys[] = { { "www.example.test.", DNSB_RRKEY_ANY }, { "m.example.test.", LDNS_RR_TYPE_A } };
	const dnsb_rrset *www;
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_pdns_rrsets_parse(&all, doc, NULL, 0, &err), 0);
	assert_int_equal(all.count, 3);
	www = dnsb_rrset_list_find(&all, "www.example.test.", LDNS_RR_TYPE_A);
	assert_non_null(www);
	assert_int_equal(www->ttl, 60);
	assert_int_equal(www->rdata_count, 2); /* the disabled record is not served */
	assert_string_equal(dnsb_rrset_list_find(&all, "m.example.test.", LDNS_RR_TYPE_MX)->rdata[0], "10 mail.example.test.");
	assert_int_equal(dnsb_pdns_rrsets_parse(&some, doc, keys, 2, &err), 0);
	assert_int_equal(some.count, 2);
	assert_null(dnsb_rrset_list_find(&some, "m.example.test.", LDNS_RR_TYPE_MX));
	assert_int_equal(dnsb_pdns_rrsets_parse(&some, bad, NULL, 0, &err), DNSB_EPARSE);
	json_object_put(doc);
	json_object_put(bad);
	dnsb_rrset_list_clear(&all);
	dnsb_rrset_list_clear(&some);
}

static void test_zones_parse(void **state)
{
	json_object *list = json_tokener_parse("[{\"id\":\"example.test.\",\"name\":\"Example.test.\",\"kind\":\"Native\"},"
					       "{\"id\":\"a=2Fb.test.\",\"name\":\"a/b.test.\"}]");
	json_object *bad = json_tokener_parse("{\"zones\":[]}");
	dnsb_pdns_zone *zones = NULL;
	size_t count = 0;
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_pdns_zones_parse(&zones, &count, list, &err), 0);
	assert_int_equal(count, 2);
	assert_string_equal(zones[0].apex, "example.test.");
	assert_string_equal(zones[0].id, "example.test.");
	assert_string_equal(zones[1].id, "a=2Fb.test.");
	assert_int_equal(dnsb_pdns_zones_parse(&zones, &count, bad, &err), DNSB_EPARSE);
	for (size_t i = 0; i < count; i++) {
		free(zones[i].apex);
		free(zones[i].id);
	}
	free(zones);
	json_object_put(list);
	json_object_put(bad);
}

/* ---- flags ---- */

static int parse_flags(dnsb_pdns_config *out, dnsb_error *err, ...)
{
	dnsb_config *cfg;
	va_list ap;
	int rc;

	va_start(ap, err);
	cfg = config_va(ap);
	va_end(ap);
	rc = dnsb_pdns_config_parse(out, cfg, err);
	dnsb_config_free(cfg);
	return rc;
}

static void test_config(void **state)
{
	dnsb_pdns_config c;
	dnsb_error err;
	char path[] = "/tmp/test_pdns_key.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("  s3cret-key \nsecond line\n", f);
	fclose(f);
	unsetenv(DNSB_PDNS_API_KEY_ENV);

	assert_int_equal(parse_flags(&c, &err, NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "--pdns-server is required"));
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "ftp://x", NULL), DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://127.0.0.1:8081", NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "API key is required"));
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-api-key-file", "/nonexistent/key", NULL),
			 DNSB_ENOTFOUND);

	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://127.0.0.1:8081/", "pdns-api-key-file", path, NULL), 0);
	assert_string_equal(c.server, "http://127.0.0.1:8081");
	assert_string_equal(c.server_id, "localhost");
	assert_string_equal(c.api_key, "s3cret-key");
	assert_string_equal(c.key_source, "--pdns-api-key-file");
	assert_int_equal(c.batch_size, DNSB_PDNS_BATCH_DEFAULT);
	assert_int_equal(c.zone_count, 0);
	dnsb_pdns_config_clear(&c);

	setenv(DNSB_PDNS_API_KEY_ENV, "env-key", 1);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "https://dns.example:8081", "pdns-server-id", "other",
				     "pdns-batch-change-size", "50", "pdns-zone", "Example.Test", "pdns-zone", "b.test.", NULL),
			 0);
	assert_string_equal(c.api_key, "env-key");
	assert_string_equal(c.key_source, "$" DNSB_PDNS_API_KEY_ENV);
	assert_string_equal(c.server_id, "other");
	assert_int_equal(c.batch_size, 50);
	assert_int_equal(c.zone_count, 2);
	assert_string_equal(c.zones[0].apex, "example.test.");
	assert_string_equal(c.zones[0].id, "example.test.");
	dnsb_pdns_config_clear(&c);
	/* The file wins over the environment. */
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-api-key-file", path, NULL), 0);
	assert_string_equal(c.api_key, "s3cret-key");
	dnsb_pdns_config_clear(&c);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-zone", "a.test", "pdns-zone", "A.test.",
				     NULL),
			 DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-batch-change-size", "0", NULL), DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-server-id", "a/b", NULL), DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", "pdns-ca-file", "/nonexistent/ca.pem", NULL),
			 DNSB_ENOTFOUND);
	setenv(DNSB_PDNS_API_KEY_ENV, " \n", 1);
	assert_int_equal(parse_flags(&c, &err, "pdns-server", "http://h:1", NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "empty"));
	unsetenv(DNSB_PDNS_API_KEY_ENV);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_content_type_checked_first),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_check_names_every_mismatch),
		cmocka_unit_test(test_check_replays_in_order),
		cmocka_unit_test(test_check_update_to_other_type),
		cmocka_unit_test(test_body_deletes_first),
		cmocka_unit_test(test_disabled_records),
		cmocka_unit_test(test_races),
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_zone_parse),
		cmocka_unit_test(test_zones_parse),
		cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
