/*
 * test_google.c - the google provider without a server: the class of every
 * row of docs/design.md §3.1's table and the reference's, culprits mapped from the
 * request's additions/deletions layout back to the batch, the changes.create
 * body (unset old TTLs filled from the read), rrsets.list pages to RRsets
 * (DNSB_RRKEY_ANY included), read errors, base64url and the RS256 JWT
 * (verified here with the public key), key files and flags; and the HTTP
 * layer's Retry-After and Content-Type rules. The fake server is in
 * tests/integration/test_google.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "providers/google/google.h"
#include "applier/net/http.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"
#include "unit/config_fixture.h"

/* ---- helpers ---- */

static dnsb_change *change_new(dnsb_change_kind kind, const char *owner, uint16_t type, const char *old_rdata,
			       const char *new_rdata)
{
	return change_with_ttl(kind, owner, type, old_rdata, new_rdata, 600);
}

/* The batch every table test uses: create a, update b, delete c, create d.
 * Additions: a (0), b new (1), d (3). Deletions: b old (1), c (2). */
typedef struct batch {
	dnsb_change *c[4];
	dnsb_google_change layout;
} batch;

static void batch_make(batch *b)
{
	b->c[0] = change_new(DNSB_CHANGE_CREATE, "a.example.com.", LDNS_RR_TYPE_A, NULL, "192.0.2.1");
	b->c[1] = change_new(DNSB_CHANGE_UPDATE, "b.example.com.", LDNS_RR_TYPE_TXT, "\"old\"", "\"new\"");
	b->c[2] = change_new(DNSB_CHANGE_DELETE, "c.example.com.", LDNS_RR_TYPE_A, "192.0.2.3", NULL);
	b->c[3] = change_new(DNSB_CHANGE_CREATE, "d.example.com.", LDNS_RR_TYPE_CNAME, NULL, "www.example.com.");
	assert_int_equal(dnsb_google_change_build(&b->layout, b->c, 4, NULL, NULL), 0);
}

static void batch_free(batch *b)
{
	dnsb_google_change_clear(&b->layout);
	changes_free(b->c, 4);
}

#define JSON "application/json; charset=UTF-8"

/* An error body as Cloud DNS writes it, with one errors[] entry. */
static char *error_body(int code, const char *reason, const char *message)
{
	char *s;

	assert_true(asprintf(&s, "{\"error\":{\"code\":%d,\"message\":\"%s\",\"errors\":[{\"message\":\"%s\",\"domain\":\"global\",\"reason\":\"%s\"}]}}",
			     code, message, message, reason) > 0);
	return s;
}

static dnsb_result classify(batch *b, long status, const char *reason, const char *message, double retry_after)
{
	char *body = error_body((int)status, reason, message);
	dnsb_http_response r = http_reply(status, JSON, body, retry_after);
	dnsb_result res;

	dnsb_google_classify(&res, &r, &b->layout, b->c, 4);
	free(body);
	return res;
}

/* ---- the class table ---- */

static void test_classify_table(void **state)
{
	static const struct {
		long status;
		const char *reason, *message;
		dnsb_class cls;
	} rows[] = {
		{ 409, "alreadyExists", "The resource 'entity.change.additions[0]' named 'a.example.com. (A)' already exists", DNSB_CLASS_CONFLICT },
		{ 412, "conditionNotMet", "Precondition not met for 'entity.change.deletions[1]'", DNSB_CLASS_CONFLICT },
		{ 404, "notFound", "The 'entity.change.deletions[1]' resource named 'c.example.com. (A)' does not exist.", DNSB_CLASS_CONFLICT },
		{ 400, "cnameResourceRecordSetConflict", "The resource record set 'entity.change.additions[2]' is invalid because the DNS name 'd.example.com.' may have either one CNAME resource record set or resource record sets of other types, but not both.", DNSB_CLASS_CONFLICT },
		{ 400, "invalid", "Invalid value for 'entity.change.additions[0].rrdata[0]': '999.1.1.1'", DNSB_CLASS_INVALID },
		{ 403, "quotaExceeded", "The change would exceed quota for additions per change.", DNSB_CLASS_TOO_LARGE },
		{ 403, "quotaExceeded", "... would exceed quota for total rrdata size per change", DNSB_CLASS_TOO_LARGE },
		{ 413, "", "Request Entity Too Large", DNSB_CLASS_TOO_LARGE },
		{ 429, "rateLimitExceeded", "Resource has been exhausted (e.g. check quota).", DNSB_CLASS_RATE_LIMITED },
		{ 403, "rateLimitExceeded", "Rate Limit Exceeded", DNSB_CLASS_RATE_LIMITED },
		{ 403, "userRateLimitExceeded", "User Rate Limit Exceeded", DNSB_CLASS_RATE_LIMITED },
		{ 403, "quotaExceeded", "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute'", DNSB_CLASS_RATE_LIMITED },
		{ 500, "internalError", "Internal Error", DNSB_CLASS_TRANSIENT },
		{ 502, "", "Bad Gateway", DNSB_CLASS_TRANSIENT },
		{ 503, "backendError", "The service is currently unavailable.", DNSB_CLASS_TRANSIENT },
		{ 408, "", "Request Timeout", DNSB_CLASS_TRANSIENT },
		{ 401, "authError", "Request had invalid authentication credentials.", DNSB_CLASS_FATAL },
		{ 403, "forbidden", "The caller does not have permission", DNSB_CLASS_FATAL },
		{ 403, "accessNotConfigured", "Cloud DNS API has not been used in project 1 before or it is disabled.", DNSB_CLASS_FATAL },
		{ 404, "notFound", "The 'parameters.managedZone' resource named 'nope' does not exist.", DNSB_CLASS_FATAL },
		{ 301, "", "Moved", DNSB_CLASS_FATAL },
	};
	batch b;

	(void)state;
	batch_make(&b);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		dnsb_result res = classify(&b, rows[i].status, rows[i].reason, rows[i].message, 7);
		if (res.cls != rows[i].cls)
			fail_msg("row %zu: HTTP %ld %s: class %s, expected %s", i, rows[i].status, rows[i].reason,
				 dnsb_class_name(res.cls), dnsb_class_name(rows[i].cls));
		assert_int_equal(res.status, rows[i].status);
		assert_string_equal(res.code, rows[i].reason);
		assert_string_equal(res.message, rows[i].message);
		/* Retry-After is kept where the engine waits. */
		if (res.cls == DNSB_CLASS_RATE_LIMITED || res.cls == DNSB_CLASS_TRANSIENT)
			assert_true(res.retry_after == 7);
		else
			assert_true(res.retry_after < 0);
		if (res.cls != DNSB_CLASS_CONFLICT && res.cls != DNSB_CLASS_INVALID)
			assert_int_equal(res.culprit_count, 0);
	}
	batch_free(&b);
}

static void test_success_must_be_json(void **state)
{
	dnsb_http_response ok = http_reply(200, JSON, "{\"kind\":\"dns#change\",\"id\":\"7\",\"status\":\"pending\"}", -1);
	dnsb_http_response page = http_reply(200, "text/html", "<html>captive portal</html>", -1);
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	dnsb_google_classify(&res, &ok, &b.layout, b.c, 4);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(res.culprit_count, 0);
	/* A 200 that is not the API's JSON proves nothing: verifying will tell. */
	dnsb_google_classify(&res, &page, &b.layout, b.c, 4);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_non_null(strstr(res.message, "text/html"));
	batch_free(&b);
}

static void test_non_json_error_keeps_its_first_line(void **state)
{
	dnsb_http_response r = http_reply(502, "text/html; charset=UTF-8", "<!DOCTYPE html>\n<p><b>502.</b> That's an error.", 3);
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	dnsb_google_classify(&res, &r, &b.layout, b.c, 4);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	assert_string_equal(res.message, "<!DOCTYPE html>");
	assert_true(res.retry_after == 3);
	batch_free(&b);
}

/* ---- culprits ---- */

static void test_culprits_map_through_the_layout(void **state)
{
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	assert_int_equal(b.layout.addition_count, 3);
	assert_int_equal(b.layout.deletion_count, 2);
	/* additions[2] is d (change 3); deletions[0] is b's old (change 1), deletions[1] is c (change 2). */
	res = classify(&b, 409, "alreadyExists", "The resource 'entity.change.additions[2]' named 'd.example.com. (CNAME)' already exists", -1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 3);
	res = classify(&b, 412, "conditionNotMet", "Precondition not met for 'entity.change.deletions[0]'", -1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	res = classify(&b, 404, "notFound", "The 'entity.change.deletions[1]' resource named 'c.example.com. (A)' does not exist.", -1);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 2);
	res = classify(&b, 400, "invalid", "Invalid value for 'entity.change.additions[1].rrdata[0]': 'x'", -1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	batch_free(&b);
}

static void test_every_error_entry_is_a_culprit(void **state)
{
	const char *body =
		"{\"error\":{\"code\":404,\"message\":\"The 'entity.change.deletions[0]' resource named 'b.example.com. (TXT)' does not exist.\","
		"\"errors\":[{\"message\":\"The 'entity.change.deletions[0]' resource named 'b.example.com. (TXT)' does not exist.\",\"reason\":\"notFound\"},"
		"{\"message\":\"The 'entity.change.deletions[1]' resource named 'c.example.com. (A)' does not exist.\",\"reason\":\"notFound\"}]}}";
	dnsb_http_response r = http_reply(404, JSON, body, -1);
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	dnsb_google_classify(&res, &r, &b.layout, b.c, 4);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(res.code, "notFound");
	/* Both entries named; the top-level message repeats the first and adds nothing. */
	assert_int_equal(res.culprit_count, 2);
	assert_int_equal(res.culprits[0], 1);
	assert_int_equal(res.culprits[1], 2);
	assert_non_null(strstr(res.message, "(2 errors)"));
	batch_free(&b);
}

static void test_culprit_by_name_and_type(void **state)
{
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	/* Older replies name the RRset, not the entry: matched against the additions for alreadyExists. */
	res = classify(&b, 409, "alreadyExists", "The resource 'entity.rrset' named 'A.Example.com. (A)' already exists", -1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 0);
	/* ... and against the deletions for notFound and conditionNotMet. */
	res = classify(&b, 412, "conditionNotMet", "Precondition not met for 'b.example.com. (TXT)'", -1);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 1);
	/* A name of another type, or quoted text that is not 'NAME (TYPE)', names nothing. */
	res = classify(&b, 409, "alreadyExists", "The resource 'entity.rrset' named 'a.example.com. (TXT)' already exists", -1);
	assert_int_equal(res.culprit_count, 0);
	res = classify(&b, 409, "alreadyExists", "'nothing' is 'here (X'", -1);
	assert_int_equal(res.culprit_count, 0);
	batch_free(&b);
}

static void test_wrong_or_missing_indexes_name_nothing(void **state)
{
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	res = classify(&b, 409, "alreadyExists", "The resource 'entity.change.additions[3]' already exists", -1);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 0);
	res = classify(&b, 409, "alreadyExists", "The resource 'entity.change.additions[x]' or 'entity.change.additions[' exists", -1);
	assert_int_equal(res.culprit_count, 0);
	res = classify(&b, 409, "alreadyExists", "exists", -1);
	assert_int_equal(res.culprit_count, 0);
	/* A 404 that names no deletion is the zone's: fatal, no culprits. */
	res = classify(&b, 404, "notFound", "The 'entity.change.additions[0]' resource does not exist.", -1);
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	assert_int_equal(res.culprit_count, 0);
	batch_free(&b);
}

static void test_culprits_direct(void **state)
{
	dnsb_result res;
	batch b;

	(void)state;
	batch_make(&b);
	dnsb_result_init(&res);
	assert_int_equal(dnsb_google_culprits(&res, "entity.change.additions[0] and entity.change.deletions[1]", "", &b.layout, b.c, 4), 2);
	assert_int_equal(res.culprits[0], 0);
	assert_int_equal(res.culprits[1], 2);
	batch_free(&b);
}

/* ---- the body ---- */

static void test_body_layout_and_unset_ttl(void **state)
{
	dnsb_change *c[2];
	dnsb_rrset_list held = { 0 };
	dnsb_rrset cur;
	dnsb_google_change body;
	json_object *doc, *adds, *dels, *o;

	(void)state;
	c[0] = change_new(DNSB_CHANGE_UPDATE, "a-www.example.com.", LDNS_RR_TYPE_TXT, "\"owner=a\"", "\"owner=b\"");
	c[0]->old.ttl = DNSB_TTL_UNSET;
	c[1] = change_new(DNSB_CHANGE_DELETE, "gone.example.com.", LDNS_RR_TYPE_A, "192.0.2.9", NULL);
	c[1]->old.ttl = DNSB_TTL_UNSET;
	rrset_set(&cur, "a-www.example.com.", LDNS_RR_TYPE_TXT, 7200, "\"owner=a\"");
	assert_int_equal(dnsb_rrset_list_push(&held, &cur), 0);
	assert_int_equal(dnsb_google_change_build(&body, c, 2, &held, NULL), 0);
	assert_int_equal(body.addition_count, 1);
	assert_int_equal(body.deletion_count, 2);
	assert_int_equal(body.additions[0], 0);
	assert_int_equal(body.deletions[0], 0);
	assert_int_equal(body.deletions[1], 1);
	doc = json_tokener_parse(body.json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "additions", &adds));
	assert_true(json_object_object_get_ex(doc, "deletions", &dels));
	o = json_object_array_get_idx(dels, 0);
	/* The unset TTL took the held one; a deletion with no held RRset keeps 0 (it is refused as missing). */
	assert_int_equal(json_object_get_int(json_object_object_get(o, "ttl")), 7200);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "type")), "TXT");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(json_object_object_get(o, "rrdatas"), 0)), "\"owner=a\"");
	assert_int_equal(json_object_get_int(json_object_object_get(json_object_array_get_idx(dels, 1), "ttl")), 0);
	o = json_object_array_get_idx(adds, 0);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "ttl")), 600);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "name")), "a-www.example.com.");
	json_object_put(doc);
	dnsb_google_change_clear(&body);
	dnsb_rrset_list_clear(&held);
	changes_free(c, 2);
}

static void test_url_escapes_each_argument(void **state)
{
	char *url = dnsb_google_url("https://dns.googleapis.com/dns/v1/", "projects/%s/managedZones/%s/rrsets?name=%s&x=%",
				    "my project", "zone/1", "*.example.com.");

	(void)state;
	assert_non_null(url);
	assert_string_equal(url, "https://dns.googleapis.com/dns/v1/projects/my%20project/managedZones/zone%2F1/rrsets?name=%2A.example.com.&x=%");
	free(url);
}

/* ---- replies to reads ---- */

static void test_rrsets_page(void **state)
{
	const char *page =
		"{\"rrsets\":[{\"kind\":\"dns#resourceRecordSet\",\"name\":\"WWW.example.com.\",\"type\":\"A\",\"ttl\":300,\"rrdatas\":[\"192.0.2.2\",\"192.0.2.1\"]},"
		"{\"name\":\"www.example.com.\",\"type\":\"TXT\",\"ttl\":60,\"rrdatas\":[\"\\\"a b\\\"\"]},"
		"{\"name\":\"mx.example.com.\",\"type\":\"MX\",\"ttl\":60,\"rrdatas\":[\"10 Mail.Example.com.\"]},"
		"{\"name\":\"geo.example.com.\",\"type\":\"A\",\"ttl\":60,\"routingPolicy\":{}},"
		"{\"name\":\"odd.example.com.\",\"type\":\"NOSUCHTYPE\",\"ttl\":60,\"rrdatas\":[\"x\"]}],"
		"\"nextPageToken\":\"abc\"}";
	json_object *doc = json_tokener_parse(page);
	dnsb_rrset_list all = { 0 }, some = { 0 };
	dnsb_rrkey keys[] = { { "www.example.com.", LDNS_RR_TYPE_A }, { "mx.example.com.", DNSB_RRKEY_ANY } };
	const dnsb_rrset *r;
	char *next = NULL;

	(void)state;
	assert_int_equal(dnsb_google_rrsets_parse(&all, doc, NULL, 0, &next, NULL), 0);
	assert_string_equal(next, "abc");
	free(next);
	/* Routing policies and unknown types are skipped; names and RDATA made canonical. */
	assert_int_equal(all.count, 3);
	assert_non_null(r = dnsb_rrset_list_find(&all, "www.example.com.", LDNS_RR_TYPE_A));
	assert_int_equal(r->ttl, 300);
	assert_int_equal(r->rdata_count, 2);
	assert_string_equal(r->rdata[0], "192.0.2.1");
	assert_non_null(r = dnsb_rrset_list_find(&all, "mx.example.com.", LDNS_RR_TYPE_MX));
	assert_string_equal(r->rdata[0], "10 mail.example.com.");
	assert_int_equal(dnsb_google_rrsets_parse(&some, doc, keys, 2, &next, NULL), 0);
	free(next);
	assert_int_equal(some.count, 2);
	assert_null(dnsb_rrset_list_find(&some, "www.example.com.", LDNS_RR_TYPE_TXT));
	assert_non_null(dnsb_rrset_list_find(&some, "mx.example.com.", LDNS_RR_TYPE_MX));
	json_object_put(doc);
	dnsb_rrset_list_clear(&all);
	dnsb_rrset_list_clear(&some);
}

static void test_rrsets_page_errors(void **state)
{
	json_object *arr = json_tokener_parse("[1]"), *bad = json_tokener_parse("{\"rrsets\":{}}");
	json_object *noname = json_tokener_parse("{\"rrsets\":[{\"type\":\"A\"}]}"), *empty = json_tokener_parse("{}");
	dnsb_rrset_list out = { 0 };
	dnsb_error err;
	char *next = (char *)"x";

	(void)state;
	assert_int_equal(dnsb_google_rrsets_parse(&out, arr, NULL, 0, &next, &err), DNSB_EPARSE);
	assert_int_equal(dnsb_google_rrsets_parse(&out, bad, NULL, 0, &next, &err), DNSB_EPARSE);
	assert_int_equal(dnsb_google_rrsets_parse(&out, noname, NULL, 0, &next, &err), DNSB_EPARSE);
	/* An empty page leaves "rrsets" out and ends the listing. */
	assert_int_equal(dnsb_google_rrsets_parse(&out, empty, NULL, 0, &next, &err), 0);
	assert_null(next);
	assert_int_equal(out.count, 0);
	json_object_put(arr);
	json_object_put(bad);
	json_object_put(noname);
	json_object_put(empty);
}

static void test_read_errors(void **state)
{
	static const struct {
		long status;
		const char *reason;
		int code;
	} rows[] = {
		{ 500, "internalError", DNSB_ETRANSIENT }, { 503, "backendError", DNSB_ETRANSIENT },
		{ 429, "rateLimitExceeded", DNSB_ERATELIMIT }, { 403, "rateLimitExceeded", DNSB_ERATELIMIT },
		{ 408, "", DNSB_ETRANSIENT }, { 401, "authError", DNSB_EFATAL }, { 403, "forbidden", DNSB_EFATAL },
		{ 404, "notFound", DNSB_EFATAL }, { 400, "invalid", DNSB_EFATAL },
	};
	dnsb_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *body = error_body((int)rows[i].status, rows[i].reason, "why");
		dnsb_http_response r = http_reply(rows[i].status, JSON, body, -1);
		assert_int_equal(dnsb_google_reply_error(&r, "rrsets.list z", &err), rows[i].code);
		assert_non_null(strstr(err.message, "rrsets.list z: HTTP"));
		assert_non_null(strstr(err.message, "why"));
		free(body);
	}
}

/* ---- credentials ---- */

static void test_base64url(void **state)
{
	static const struct {
		const char *in, *out;
	} v[] = { { "", "" }, { "f", "Zg" }, { "fo", "Zm8" }, { "foo", "Zm9v" }, { "foob", "Zm9vYg" }, { "\xfb\xff", "-_8" } };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *s = dnsb_google_base64url((const unsigned char *)v[i].in, strlen(v[i].in));
		assert_string_equal(s, v[i].out);
		free(s);
	}
}

/* A fresh RSA key as PEM (the caller's) and the key itself. */
static char *rsa_pem(EVP_PKEY **key)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *pem;
	long len;

	*key = EVP_RSA_gen(2048);
	assert_non_null(*key);
	assert_int_equal(PEM_write_bio_PrivateKey(bio, *key, NULL, NULL, 0, NULL, NULL), 1);
	len = BIO_get_mem_data(bio, &data);
	pem = strndup(data, (size_t)len);
	BIO_free(bio);
	return pem;
}

static char *key_file_text(const char *pem, const char *type, const char *uri)
{
	json_object *o = json_object_new_object();
	char *s;

	if (type)
		json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "client_email", json_object_new_string("sa@p.iam.gserviceaccount.com"));
	if (pem)
		json_object_object_add(o, "private_key", json_object_new_string(pem));
	if (uri)
		json_object_object_add(o, "token_uri", json_object_new_string(uri));
	s = strdup(json_object_to_json_string(o));
	json_object_put(o);
	return s;
}

/* base64url back to bytes for the check (OpenSSL's decoder, alphabet and padding restored). */
static size_t unb64url(unsigned char *out, const char *in, size_t len)
{
	char buf[2048];
	size_t n = len;
	int got;

	assert_true(len + 4 < sizeof(buf));
	for (size_t i = 0; i < len; i++)
		buf[i] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
	while (n % 4)
		buf[n++] = '=';
	got = EVP_DecodeBlock(out, (unsigned char *)buf, (int)n);
	assert_true(got >= 0);
	return (size_t)got - (n - len);
}

static void test_jwt_is_rs256_signed(void **state)
{
	EVP_PKEY *key;
	char *pem = rsa_pem(&key), *text = key_file_text(pem, "service_account", "https://oauth2.example/token"), *jwt;
	dnsb_google_auth a;
	unsigned char head[256], claims[512], sig[512];
	const char *d1, *d2;
	size_t hl, cl, sl;
	json_object *c;
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(dnsb_google_key_parse(&a, text, "k.json", NULL), 0);
	assert_int_equal(a.kind, DNSB_GOOGLE_AUTH_KEY);
	assert_string_equal(a.token_uri, "https://oauth2.example/token");
	assert_null(strstr(a.source, "PRIVATE"));
	assert_int_equal(dnsb_google_jwt(&jwt, &a, 1700000000, NULL), 0);
	d1 = strchr(jwt, '.');
	d2 = strchr(d1 + 1, '.');
	assert_non_null(d2);
	hl = unb64url(head, jwt, (size_t)(d1 - jwt));
	cl = unb64url(claims, d1 + 1, (size_t)(d2 - d1 - 1));
	sl = unb64url(sig, d2 + 1, strlen(d2 + 1));
	head[hl] = claims[cl] = '\0';
	assert_string_equal((char *)head, "{\"alg\":\"RS256\",\"typ\":\"JWT\"}");
	c = json_tokener_parse((char *)claims);
	assert_string_equal(json_object_get_string(json_object_object_get(c, "iss")), "sa@p.iam.gserviceaccount.com");
	assert_string_equal(json_object_get_string(json_object_object_get(c, "scope")), DNSB_GOOGLE_SCOPE);
	assert_string_equal(json_object_get_string(json_object_object_get(c, "aud")), "https://oauth2.example/token");
	assert_int_equal(json_object_get_int64(json_object_object_get(c, "iat")), 1700000000);
	assert_int_equal(json_object_get_int64(json_object_object_get(c, "exp")), 1700003600);
	json_object_put(c);
	/* The signature verifies with the public half over "header.claims". */
	assert_int_equal(sl, 256);
	assert_int_equal(EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key), 1);
	assert_int_equal(EVP_DigestVerify(md, sig, sl, (const unsigned char *)jwt, (size_t)(d2 - jwt)), 1);
	EVP_MD_CTX_free(md);
	free(jwt);
	dnsb_google_auth_clear(&a);
	EVP_PKEY_free(key);
	free(pem);
	free(text);
}

static void test_key_file_errors(void **state)
{
	EVP_PKEY *key, *ec = EVP_EC_gen("P-256");
	char *pem = rsa_pem(&key), *ecpem;
	BIO *bio = BIO_new(BIO_s_mem());
	long len;
	char *data;
	struct {
		char *text;
		const char *says;
	} cases[7];
	dnsb_error err;

	(void)state;
	PEM_write_bio_PrivateKey(bio, ec, NULL, NULL, 0, NULL, NULL);
	len = BIO_get_mem_data(bio, &data);
	ecpem = strndup(data, (size_t)len);
	BIO_free(bio);
	cases[0].text = strdup("not json");
	cases[0].says = "not a JSON object";
	cases[1].text = key_file_text(NULL, "service_account", NULL);
	cases[1].says = "no private_key";
	cases[2].text = key_file_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", NULL, NULL);
	cases[2].says = "not an unencrypted PEM private key";
	cases[3].text = key_file_text(ecpem, NULL, NULL);
	cases[3].says = "RS256 needs RSA";
	cases[4].text = key_file_text(pem, "authorized_user", NULL);
	cases[4].says = "are not supported";
	cases[5].text = key_file_text(pem, NULL, "http://insecure.example/token");
	cases[5].says = "is not an https:// URL";
	cases[6].text = strdup("{\"private_key\":\"x\"}");
	cases[6].says = "no client_email";
	for (size_t i = 0; i < 7; i++) {
		dnsb_google_auth a;
		memset(&a, 0, sizeof(a));
		assert_int_equal(dnsb_google_key_parse(&a, cases[i].text, "key.json", &err), DNSB_EINVAL);
		if (strstr(err.message, cases[i].says) == NULL)
			fail_msg("case %zu: '%s' does not say '%s'", i, err.message, cases[i].says);
		/* The message names the file, never its content. */
		assert_non_null(strstr(err.message, "key.json"));
		assert_null(strstr(err.message, "BEGIN"));
		assert_null(strstr(err.message, "MII"));
		dnsb_google_auth_clear(&a);
		free(cases[i].text);
	}
	/* No token_uri: Google's. */
	{
		char *text = key_file_text(pem, "service_account", NULL);
		dnsb_google_auth a;
		memset(&a, 0, sizeof(a));
		assert_int_equal(dnsb_google_key_parse(&a, text, "key.json", &err), 0);
		assert_string_equal(a.token_uri, DNSB_GOOGLE_TOKEN_URI_DEFAULT);
		dnsb_google_auth_clear(&a);
		free(text);
	}
	EVP_PKEY_free(key);
	EVP_PKEY_free(ec);
	free(pem);
	free(ecpem);
}

/* ---- flags ---- */

static int parse_flags(dnsb_google_config *out, dnsb_error *err, ...)
{
	dnsb_config *cfg;
	va_list ap;
	int rc;

	va_start(ap, err);
	cfg = config_va(ap);
	va_end(ap);
	rc = dnsb_google_config_parse(out, cfg, err);
	dnsb_config_free(cfg);
	return rc;
}

static void test_config(void **state)
{
	dnsb_google_config c;
	dnsb_error err;

	(void)state;
	unsetenv(DNSB_GOOGLE_CREDENTIALS_ENV);
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-zone", "Example.COM=example-com",
				     "google-zone", "b.example.org.=b-zone", NULL), 0);
	assert_string_equal(c.project, "p");
	assert_int_equal(c.zone_count, 2);
	assert_string_equal(c.zones[0].apex, "example.com.");
	assert_string_equal(c.zones[0].id, "example-com");
	assert_string_equal(c.zones[1].apex, "b.example.org.");
	assert_int_equal(c.batch_size, DNSB_GOOGLE_BATCH_DEFAULT);
	assert_true(c.interval == DNSB_GOOGLE_INTERVAL_DEFAULT);
	assert_string_equal(c.endpoint, DNSB_GOOGLE_ENDPOINT_DEFAULT);
	assert_null(c.credentials);
	dnsb_google_config_clear(&c);

	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-api-endpoint", "https://127.0.0.1:9/dns/v1",
				     "google-batch-change-size", "10", "google-batch-change-interval", "0.5s", NULL), 0);
	assert_string_equal(c.endpoint, "https://127.0.0.1:9/dns/v1/");
	assert_int_equal(c.batch_size, 10);
	assert_true(c.interval == 0.5);
	dnsb_google_config_clear(&c);

	assert_int_equal(parse_flags(&c, &err, NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "--google-project"));
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-zone", "example.com", NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "DNSNAME=ZONENAME"));
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-zone", "example.com=Bad_Zone", NULL), DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-zone", "a.com=x", "google-zone", "A.com.=y", NULL),
			 DNSB_EINVAL);
	assert_non_null(strstr(err.message, "twice"));
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-api-endpoint", "http://x/", NULL), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "https://"));
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-batch-change-size", "0", NULL), DNSB_EINVAL);
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-credentials", "/nonexistent/key.json", NULL),
			 DNSB_ENOTFOUND);
	assert_non_null(strstr(err.message, "--google-credentials /nonexistent/key.json"));
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", "google-ca-file", "/nonexistent/ca.pem", NULL),
			 DNSB_ENOTFOUND);
	setenv(DNSB_GOOGLE_CREDENTIALS_ENV, "/nonexistent/env.json", 1);
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", NULL), DNSB_ENOTFOUND);
	assert_non_null(strstr(err.message, "$" DNSB_GOOGLE_CREDENTIALS_ENV));
	unsetenv(DNSB_GOOGLE_CREDENTIALS_ENV);
}

static void test_env_token_comes_first(void **state)
{
	dnsb_google_config c;
	dnsb_google_auth a;
	dnsb_error err;

	(void)state;
	unsetenv(DNSB_GOOGLE_CREDENTIALS_ENV);
	assert_int_equal(parse_flags(&c, &err, "google-project", "p", NULL), 0);
	setenv(DNSB_GOOGLE_TOKEN_ENV, "tok-env", 1);
	assert_int_equal(dnsb_google_auth_init(&a, &c, &err), 0);
	assert_int_equal(a.kind, DNSB_GOOGLE_AUTH_ENV);
	assert_string_equal(a.source, "$" DNSB_GOOGLE_TOKEN_ENV);
	dnsb_google_auth_clear(&a);
	unsetenv(DNSB_GOOGLE_TOKEN_ENV);
	/* Neither token nor key: the metadata server, at GCE_METADATA_HOST when set. */
	setenv(DNSB_GOOGLE_METADATA_HOST_ENV, "127.0.0.1:8089", 1);
	assert_int_equal(dnsb_google_auth_init(&a, &c, &err), 0);
	assert_int_equal(a.kind, DNSB_GOOGLE_AUTH_METADATA);
	assert_string_equal(a.metadata_url, "http://127.0.0.1:8089" DNSB_GOOGLE_METADATA_PATH);
	dnsb_google_auth_clear(&a);
	unsetenv(DNSB_GOOGLE_METADATA_HOST_ENV);
	dnsb_google_config_clear(&c);
}

/* ---- the HTTP layer ---- */

static void test_retry_after(void **state)
{
	time_t now = 1700000000; /* Tue, 14 Nov 2023 22:13:20 GMT */

	(void)state;
	assert_true(dnsb_http_retry_after("2", now) == 2);
	assert_true(dnsb_http_retry_after(" 120 ", now) == 120);
	assert_true(dnsb_http_retry_after("0", now) == 0);
	assert_true(dnsb_http_retry_after("Tue, 14 Nov 2023 22:13:25 GMT", now) == 5);
	assert_true(dnsb_http_retry_after("Tue, 14 Nov 2023 22:13:00 GMT", now) == 0); /* past: at once */
	assert_true(dnsb_http_retry_after("-1", now) < 0);
	assert_true(dnsb_http_retry_after("1.5", now) < 0);
	assert_true(dnsb_http_retry_after("soon", now) < 0);
	assert_true(dnsb_http_retry_after("", now) < 0);
}

static void test_content_type(void **state)
{
	dnsb_http_response r = http_reply(200, "text/html", "{}", -1);
	json_object *doc;
	dnsb_error err;

	(void)state;
	assert_true(dnsb_http_is_json("application/json"));
	assert_true(dnsb_http_is_json("Application/JSON; charset=UTF-8"));
	assert_true(dnsb_http_is_json("application/problem+json"));
	assert_false(dnsb_http_is_json("text/plain"));
	assert_false(dnsb_http_is_json("application/jsonp"));
	assert_false(dnsb_http_is_json(""));
	assert_int_equal(dnsb_http_json(&doc, &r, &err), DNSB_EPARSE);
	assert_non_null(strstr(err.message, "text/html"));
	r = http_reply(200, JSON, "{\"a\":1} x", -1);
	assert_int_equal(dnsb_http_json(&doc, &r, &err), DNSB_EPARSE);
	r = http_reply(200, JSON, "{\"a\":", -1);
	assert_int_equal(dnsb_http_json(&doc, &r, &err), DNSB_EPARSE);
	r = http_reply(200, JSON, "{\"a\":1}\n", -1);
	r.truncated = 1;
	assert_int_equal(dnsb_http_json(&doc, &r, &err), DNSB_EPARSE);
	r.truncated = 0;
	assert_int_equal(dnsb_http_json(&doc, &r, &err), 0);
	json_object_put(doc);
}

static void test_http_refused_connection_is_transient(void **state)
{
	dnsb_http_options o = DNSB_HTTP_OPTIONS_INIT;
	dnsb_http_request req = { "GET", "https://127.0.0.1:1/", NULL, NULL, 0, 2 };
	dnsb_http_response resp;
	dnsb_http *h;
	dnsb_error err;

	(void)state;
	assert_int_equal(dnsb_http_new(&h, &o, &err), 0);
	assert_int_equal(dnsb_http_do(h, &req, &resp, &err), DNSB_ETRANSIENT);
	assert_non_null(strstr(err.message, "GET https://127.0.0.1:1/"));
	assert_null(resp.body);
	req.url = "not a url";
	assert_int_equal(dnsb_http_do(h, &req, &resp, &err), DNSB_EINVAL);
	dnsb_http_free(h);
	o.timeout = 0;
	assert_int_equal(dnsb_http_new(&h, &o, &err), DNSB_EINVAL);
	o = (dnsb_http_options)DNSB_HTTP_OPTIONS_INIT;
	o.ca_file = "/nonexistent/ca.pem";
	assert_int_equal(dnsb_http_new(&h, &o, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "/nonexistent/ca.pem"));
	dnsb_http_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_success_must_be_json),
		cmocka_unit_test(test_non_json_error_keeps_its_first_line),
		cmocka_unit_test(test_culprits_map_through_the_layout),
		cmocka_unit_test(test_every_error_entry_is_a_culprit),
		cmocka_unit_test(test_culprit_by_name_and_type),
		cmocka_unit_test(test_wrong_or_missing_indexes_name_nothing),
		cmocka_unit_test(test_culprits_direct),
		cmocka_unit_test(test_body_layout_and_unset_ttl),
		cmocka_unit_test(test_url_escapes_each_argument),
		cmocka_unit_test(test_rrsets_page),
		cmocka_unit_test(test_rrsets_page_errors),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_base64url),
		cmocka_unit_test(test_jwt_is_rs256_signed),
		cmocka_unit_test(test_key_file_errors),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_env_token_comes_first),
		cmocka_unit_test(test_retry_after),
		cmocka_unit_test(test_content_type),
		cmocka_unit_test(test_http_refused_connection_is_transient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
