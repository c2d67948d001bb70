/*
 * test_azure_names.c - record sets whose name or TTL dnsbatch cannot
 * represent (found by fuzz_azure): a name ldns refuses (an empty label, a
 * label over 63 octets, a name over 255 octets, a NUL octet; named with
 * each octet outside printable ASCII as \DDD, lower-cased) or a TTL
 * outside 0..2147483647 (RFC 2181 section 8; -1 used to read as 4294967295,
 * 4294967301 as 5) is left out of the listing with an info line naming it
 * and why, kept apart in a submission's tags (never written over or
 * deleted), and never reads as DNSB_ENOMEM: the rest of the page is read.
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

#include "dnsbatch/log.h"
#include "providers/azure/internal.h"

/* A good record set (www A 192.0.2.1, TTL 300), as a listing holds it. */
#define GOOD "{\"name\":\"www\",\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e-2\",\"properties\":{\"TTL\":300," \
	     "\"ARecords\":[{\"ipv4Address\":\"192.0.2.1\"}]}}"

/* An A record set named `name` (JSON text, quoted) with TTL `ttl` (JSON text), as a listing holds it. */
static json_object *a_set(const char *name, const char *ttl)
{
	char *text = NULL;
	json_object *rs;

	assert_true(asprintf(&text, "{\"name\":%s,\"type\":\"Microsoft.Network/dnszones/A\",\"etag\":\"e-1\","
				    "\"properties\":{%s%s%s\"ARecords\":[{\"ipv4Address\":\"192.0.2.9\"}]}}",
			     name, ttl ? "\"TTL\":" : "", ttl ? ttl : "", ttl ? "," : "") > 0);
	assert_non_null(rs = json_tokener_parse(text));
	free(text);
	return rs;
}

/* What dnsb_log writes to stderr while a page is listed. */
typedef struct capture {
	char path[32];
	int file, saved;
} capture;

static void capture_start(capture *c)
{
	snprintf(c->path, sizeof(c->path), "/tmp/dnsb-azn-XXXXXX");
	assert_true((c->file = mkstemp(c->path)) >= 0);
	assert_true((c->saved = dup(STDERR_FILENO)) >= 0);
	assert_true(dup2(c->file, STDERR_FILENO) >= 0);
	dnsb_log_set_level(DNSB_LOG_INFO);
}

/* @return what was written (the caller's) */
static char *capture_end(capture *c)
{
	FILE *f;
	char *buf = calloc(1, 65536);

	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	assert_non_null(buf);
	assert_non_null(f = fopen(c->path, "r"));
	(void)fread(buf, 1, 65535, f);
	fclose(f);
	close(c->file);
	unlink(c->path);
	return buf;
}

/*
 * A page of [bad, good] read as the listing reads it: both read (rc 0, the
 * good one listed alone), the bad one named in an info line with `why`; in
 * a submission's tags it is apart as unrepresentable, under `owner`.
 */
static void page_case(json_object *bad, const char *owner, const char *why)
{
	json_object *good = json_tokener_parse(GOOD);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags tags = { 0 };
	dnsb_error err;
	const char *reason;
	char *log, *line;
	int rc_bad, rc_good;
	capture c;

	capture_start(&c); /* no assert until it ends: a failure would leave stderr in the file */
	rc_bad = dnsb_azure_rrset_parse(&out, NULL, bad, "example.com.", NULL, 0, &err);
	rc_good = dnsb_azure_rrset_parse(&out, NULL, good, "example.com.", NULL, 0, &err);
	log = capture_end(&c);
	assert_int_equal(rc_bad, 0);
	assert_int_equal(rc_good, 0);
	assert_int_equal(out.count, 1);
	assert_string_equal(out.items[0].owner, "www.example.com.");
	assert_non_null(line = strstr(log, owner));
	assert_non_null(strstr(line, why));
	assert_non_null(strstr(line, "not listed, never written or deleted"));
	assert_int_equal(dnsb_azure_rrset_parse(&out, &tags, bad, "example.com.", NULL, 0, &err), 0);
	assert_non_null(reason = dnsb_azure_opaque(&tags, owner, LDNS_RR_TYPE_A));
	assert_non_null(strstr(reason, why));
	assert_null(dnsb_hb_tags_find(&tags, owner, LDNS_RR_TYPE_A, NULL, NULL)); /* no ETag to write on */
	assert_int_equal(out.count, 1);
	free(log);
	dnsb_hb_tags_clear(&tags);
	dnsb_rrset_list_clear(&out);
	json_object_put(good);
	json_object_put(bad);
}

static void test_bad_names(void **state)
{
	char label64[64 + 3], long_name[4 * 63 + 5 + 2], long_owner[4 * 64 + 16];

	(void)state;
	page_case(a_set("\"a..b\"", "300"), "a..b.example.com.", "Empty label");
	snprintf(label64, sizeof(label64), "\"%064d\"", 0);
	page_case(a_set(label64, "300"), "0000000000000000000000000000000000000000000000000000000000000000.example.com.",
		  "Label length overflow");
	snprintf(long_name, sizeof(long_name), "\"%063d.%063d.%063d.%063d\"", 1, 2, 3, 4); /* 256 + .example.com. */
	snprintf(long_owner, sizeof(long_owner), "%.255s.example.com.", long_name + 1);
	page_case(a_set(long_name, "300"), long_owner, "Domainname length overflow");
	page_case(a_set("\"x\\u0000y\"", "300"), "x\\000y.example.com.", "a NUL octet");
	page_case(a_set("\"@\\u0000x\"", "300"), "@\\000x.example.com.", "a NUL octet"); /* not the apex */
	page_case(a_set("\"A\\n..B\"", "300"), "a\\010..b.example.com.", "Empty label"); /* one log line */
}

/* A TTL dnsbatch cannot hold: out of the listing, apart in tags, held without records by a read of keys. */
static void ttl_case(const char *ttl, const char *why)
{
	dnsb_rrkey key = { "x.example.com.", DNSB_RRKEY_ANY };
	json_object *rs = a_set("\"x\"", ttl);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags tags = { 0 };
	dnsb_error err;
	const char *reason;

	page_case(a_set("\"x\"", ttl), "x.example.com.", why);
	assert_int_equal(dnsb_azure_rrset_parse(&out, &tags, rs, "example.com.", &key, 1, &err), 0);
	assert_int_equal(out.count, 0);
	assert_non_null(reason = dnsb_azure_opaque(&tags, "x.example.com.", LDNS_RR_TYPE_A));
	assert_non_null(strstr(reason, why));
	assert_int_equal(dnsb_azure_rrset_parse(&out, NULL, rs, "example.com.", &key, 1, &err), 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.items[0].rdata_count, 0); /* held, equal to no desired RRset */
	dnsb_hb_tags_clear(&tags);
	dnsb_rrset_list_clear(&out);
	json_object_put(rs);
}

/* A TTL that is one: read as it is. */
static void ttl_read(const char *ttl, uint32_t want)
{
	json_object *rs = a_set("\"x\"", ttl);
	dnsb_rrset_list out = { 0 };
	dnsb_error err;

	assert_int_equal(dnsb_azure_rrset_parse(&out, NULL, rs, "example.com.", NULL, 0, &err), 0);
	assert_int_equal(out.count, 1);
	assert_int_equal(out.items[0].ttl, want);
	dnsb_rrset_list_clear(&out);
	json_object_put(rs);
}

static void test_ttl_outside_rfc2181(void **state)
{
	(void)state;
	ttl_case("-1", "a TTL of -1, outside 0..2147483647");
	ttl_case("4294967295", "a TTL of 4294967295, outside");
	ttl_case("4294967301", "a TTL of 4294967301, outside");
	ttl_case("2147483648", "a TTL of 2147483648, outside");
	ttl_case("18446744073709551615", "a TTL of 18446744073709551615, outside");
	ttl_case("\"300\"", "a TTL that is not an integer");
	ttl_case("300.5", "a TTL that is not an integer");
	ttl_case(NULL, "a TTL that is missing");
	ttl_read("0", 0);
	ttl_read("2147483647", 2147483647u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_ttl_outside_rfc2181),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
