/*
 * test_cloudflare.c - the cloudflare provider without a server: the class of
 * each reply Cloudflare gives (by its first error's code) and the culprit
 * its operation names, listing pages to RRsets and record ids, the batch
 * body of a pre-checked batch (deletes by id of the values that go, posts
 * of those that come, all when the TTL changes), and the credentials. The
 * fake server is in tests/integration/test_cloudflare.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "dnsbatch/plan.h"
#include "applier/core/backoff.h"
#include "providers/cloudflare/cloudflare.h"
#include "unit/change_fixture.h"
#include "unit/http_fixture.h"

/* A configuration of key, value, ..., NULL pairs (the caller's). */
static dnsb_config *config_of(const char *first, ...)
{
	va_list ap;
	dnsb_config *cfg;

	assert_int_equal(dnsb_config_new(&cfg), 0);
	va_start(ap, first);
	for (const char *k = first; k; k = va_arg(ap, const char *))
		assert_int_equal(dnsb_config_add(cfg, k, va_arg(ap, const char *)), 0);
	va_end(ap);
	return cfg;
}

/* A reply of `status` with a JSON body (borrowed). */
static dnsb_http_response reply(long status, const char *json)
{
	return http_reply(status, "application/json", json, -1);
}

static void test_classify(void **state)
{
	size_t posts[] = { 4, 7 }, deletes[] = { 2 };
	char id[] = "0123456789abcdef0123456789abcdef";
	const char *ids[] = { id };
	dnsb_cf_batch layout = { NULL, deletes, 1, ids, posts, 2 };
	dnsb_http_response r;
	dnsb_result res;

	(void)state;
	r = reply(200, "{\"success\":true,\"errors\":[],\"messages\":[],\"result\":{}}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_OK);

	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81058,\"message\":\"posts[1]: An identical record already exists.\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_string_equal(res.code, "81058");
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 7);
	assert_non_null(strstr(dnsb_result_note(&res, 7), "identical"));

	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81044,\"message\":\"deletes[0]: Record does not exist.\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprits[0], 2);

	/* A message that names no operation names no culprit: the engine splits. */
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":9005,\"message\":\"Content for A record must be a valid IPv4 address.\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(res.culprit_count, 0);
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":1004,\"message\":\"posts[9]: DNS Validation Error\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_INVALID);
	assert_int_equal(res.culprit_count, 0); /* posts[9] is past the batch */

	r = reply(403, "{\"success\":false,\"errors\":[{\"code\":10000,\"message\":\"Authentication error\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_FATAL);
	r = reply(429, "{\"success\":false,\"errors\":[{\"code\":971,\"message\":\"Please wait\"}]}");
	r.retry_after = 3;
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_RATE_LIMITED);
	assert_true(res.retry_after == 3);
	r = reply(502, "<html>bad gateway</html>");
	strcpy(r.content_type, "text/html");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
	/* A 200 that is not the API's answer proves nothing. */
	r = reply(200, "<html>portal</html>");
	strcpy(r.content_type, "text/html");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_TRANSIENT);
}

/* Each documented form naming the failing operation: source.pointer, the message, a record id (issue 31). */
static void test_classify_forms(void **state)
{
	size_t posts[] = { 4, 7, 9 }, deletes[] = { 2, 3 };
	const char *ids[] = { "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210" };
	dnsb_cf_batch layout = { NULL, deletes, 2, ids, posts, 3 };
	dnsb_http_response r;
	dnsb_result res;

	(void)state;
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81054,\"message\":\"A CNAME record with that host already "
		       "exists.\",\"source\":{\"pointer\":\"/posts/2\"}}],\"messages\":[],\"result\":null}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.cls, DNSB_CLASS_CONFLICT);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 9);
	assert_non_null(strstr(dnsb_result_note(&res, 9), "CNAME"));
	/* A pointer into a member of the operation; one past the batch names nothing. */
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81044,\"message\":\"Record does not exist.\","
		       "\"source\":{\"pointer\":\"/deletes/1/id\"}},{\"code\":81058,\"message\":\"x\","
		       "\"source\":{\"pointer\":\"/posts/3\"}}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 3);
	/* Every error of the reply that names an operation: the pointer of one, the message of the other. */
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81058,\"message\":\"identical\",\"source\":{\"pointer\":"
		       "\"/posts/0\"}},{\"code\":81058,\"message\":\"posts[1]: identical\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.culprit_count, 2);
	assert_int_equal(res.culprits[0], 4);
	assert_int_equal(res.culprits[1], 7);
	/* A delete by the record id its message names. */
	r = reply(400, "{\"success\":false,\"errors\":[{\"code\":81044,\"message\":\"Record "
		       "fedcba9876543210fedcba9876543210 does not exist.\"}]}");
	dnsb_cf_classify(&res, &r, &layout);
	assert_int_equal(res.culprit_count, 1);
	assert_int_equal(res.culprits[0], 3);
}

static void test_reply_error(void **state)
{
	dnsb_http_response r = reply(403, "{\"success\":false,\"errors\":[{\"code\":9109,\"message\":\"Unauthorized to access requested resource\"}]}");
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_cf_reply_error(&r, "GET /zones/x", &err), DNSB_EFATAL);
	assert_non_null(strstr(err.message, "GET /zones/x: HTTP 403: 9109 Unauthorized"));
	r = reply(503, "{}");
	assert_int_equal(dnsb_cf_reply_error(&r, "GET", &err), DNSB_ETRANSIENT);
}

static const char *page_json =
	"{\"success\":true,\"result\":["
	"{\"id\":\"a1\",\"name\":\"WWW.example.com\",\"type\":\"A\",\"content\":\"192.0.2.1\",\"ttl\":300},"
	"{\"id\":\"a2\",\"name\":\"www.example.com\",\"type\":\"A\",\"content\":\"192.0.2.2\",\"ttl\":300},"
	"{\"id\":\"c1\",\"name\":\"alias.example.com\",\"type\":\"CNAME\",\"content\":\"www.example.com\",\"ttl\":1},"
	"{\"id\":\"m1\",\"name\":\"example.com\",\"type\":\"MX\",\"content\":\"mail.example.com\",\"priority\":10,\"ttl\":300},"
	"{\"id\":\"t1\",\"name\":\"example.com\",\"type\":\"TXT\",\"content\":\"\\\"v=spf1 -all\\\"\",\"ttl\":300},"
	"{\"id\":\"s1\",\"name\":\"_sip._tcp.example.com\",\"type\":\"SRV\",\"data\":{\"port\":5060},\"ttl\":300}],"
	"\"result_info\":{\"page\":1,\"per_page\":6,\"total_pages\":2}}";

static void test_records_parse(void **state)
{
	json_object *page = json_tokener_parse(page_json);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags ids = { 0 };
	dnsb_rrkey www = { "www.example.com.", LDNS_RR_TYPE_A };
	const dnsb_rrset *r;
	char *next = NULL;

	(void)state;
	assert_int_equal(dnsb_cf_records_parse(&out, &ids, NULL, page, NULL, 0, &next, NULL), 0);
	assert_string_equal(next, "2");
	assert_int_equal(out.count, 4); /* the SRV record, held in "data", is not one this provider writes */
	r = dnsb_rrset_list_find(&out, "www.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(r->rdata_count, 2);
	assert_string_equal(dnsb_rrset_list_find(&out, "alias.example.com.", LDNS_RR_TYPE_CNAME)->rdata[0], "www.example.com.");
	assert_int_equal(dnsb_rrset_list_find(&out, "alias.example.com.", LDNS_RR_TYPE_CNAME)->ttl, 1);
	assert_string_equal(dnsb_rrset_list_find(&out, "example.com.", LDNS_RR_TYPE_MX)->rdata[0], "10 mail.example.com.");
	assert_string_equal(dnsb_hb_tags_find(&ids, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", NULL)->tag, "a1");
	assert_string_equal(dnsb_hb_tags_find(&ids, "example.com.", LDNS_RR_TYPE_MX, "10 mail.example.com.", NULL)->tag, "m1");
	free(next);
	dnsb_rrset_list_clear(&out);
	dnsb_hb_tags_clear(&ids);

	/* Kept to the keys. */
	assert_int_equal(dnsb_cf_records_parse(&out, NULL, NULL, page, &www, 1, &next, NULL), 0);
	assert_int_equal(out.count, 1);
	free(next);
	dnsb_rrset_list_clear(&out);
	json_object_put(page);
}

/* SRV and CAA from their data, PTR; two records of one value are one, their properties the first's (issue 38). */
static void test_records_types(void **state)
{
	const char *json =
		"{\"success\":true,\"result\":["
		"{\"id\":\"s1\",\"name\":\"_sip._tcp.example.com\",\"type\":\"SRV\",\"content\":\"5 5060 sip.example.com\","
		"\"priority\":10,\"data\":{\"priority\":10.0,\"weight\":5,\"port\":5060,\"target\":\"sip.example.com\"},\"ttl\":300},"
		"{\"id\":\"q1\",\"name\":\"example.com\",\"type\":\"CAA\",\"content\":\"0 issue x\","
		"\"data\":{\"flags\":0,\"tag\":\"issue\",\"value\":\"ca.example.net; a=\\\"b\\\"\"},\"ttl\":300},"
		"{\"id\":\"p1\",\"name\":\"4.2.0.192.example.com\",\"type\":\"PTR\",\"content\":\"host.example.com\",\"ttl\":300},"
		"{\"id\":\"d1\",\"name\":\"dup.example.com\",\"type\":\"A\",\"content\":\"192.0.2.7\",\"ttl\":300,"
		"\"proxied\":true,\"comment\":\"the first of two records of one value\"},"
		"{\"id\":\"d2\",\"name\":\"dup.example.com\",\"type\":\"A\",\"content\":\"192.0.2.7\",\"ttl\":300,"
		"\"proxied\":true,\"comment\":\"the second\"}]}";
	json_object *page = json_tokener_parse(json);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags ids = { 0 };
	dnsb_cf_config cfg = { 0 };
	const dnsb_rrset *dup;
	char *next = NULL;

	(void)state;
	assert_int_equal(dnsb_cf_records_parse(&out, &ids, &cfg, page, NULL, 0, &next, NULL), 0);
	assert_null(next);
	assert_int_equal(out.count, 4);
	assert_string_equal(dnsb_rrset_list_find(&out, "_sip._tcp.example.com.", LDNS_RR_TYPE_SRV)->rdata[0],
			    "10 5 5060 sip.example.com.");
	assert_string_equal(dnsb_rrset_list_find(&out, "example.com.", LDNS_RR_TYPE_CAA)->rdata[0],
			    "0 issue \"ca.example.net; a=\\\"b\\\"\"");
	assert_string_equal(dnsb_rrset_list_find(&out, "4.2.0.192.example.com.", LDNS_RR_TYPE_PTR)->rdata[0],
			    "host.example.com.");
	dup = dnsb_rrset_list_find(&out, "dup.example.com.", LDNS_RR_TYPE_A);
	assert_int_equal(dup->rdata_count, 1);
	assert_non_null(strstr(dup->routing, "the first of two"));
	assert_non_null(dnsb_hb_tags_find(&ids, "dup.example.com.", LDNS_RR_TYPE_A, "192.0.2.7", NULL));
	dnsb_rrset_list_clear(&out);
	dnsb_hb_tags_clear(&ids);
	json_object_put(page);
}

/* held: www A {192.0.2.1 id a1, 192.0.2.2 id a2} TTL 300 */
static void held_www(dnsb_rrset_list *held, dnsb_hb_tags *ids)
{
	dnsb_rrset s;

	rrset_set(&s, "www.example.com.", LDNS_RR_TYPE_A, 300, "192.0.2.1");
	assert_int_equal(dnsb_rrset_add_rdata(&s, "192.0.2.2"), 0);
	assert_int_equal(dnsb_rrset_list_push(held, &s), 0);
	assert_int_equal(dnsb_hb_tags_add(ids, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", "a1", 300), 0);
	assert_int_equal(dnsb_hb_tags_add(ids, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.2", "a2", 300), 0);
}

/* An update of www from {.1, .2} to {.2, .3} at new_ttl, and a create of txt; the batch's body. */
static void build(uint32_t new_ttl, int proxied, const char *comment, dnsb_cf_batch *batch)
{
	dnsb_rrset_list held = { 0 };
	dnsb_hb_tags ids = { 0 };
	dnsb_change *c[2];
	dnsb_precheck pc;
	dnsb_result res;
	dnsb_cf_config cfg = { 0 };
	size_t bad;

	cfg.proxied = proxied;
	cfg.comment = (char *)comment;

	held_www(&held, &ids);
	c[0] = change_with_ttl(DNSB_CHANGE_UPDATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", "192.0.2.3", new_ttl);
	assert_int_equal(dnsb_rrset_add_rdata(&c[0]->old, "192.0.2.2"), 0);
	assert_int_equal(dnsb_rrset_add_rdata(&c[0]->new_set, "192.0.2.2"), 0);
	c[1] = change_with_ttl(DNSB_CHANGE_CREATE, "txt.example.com.", LDNS_RR_TYPE_TXT, NULL, "\"hello world\"", 300);
	assert_int_equal(dnsb_precheck_run(&pc, &res, c, 2, &held, NULL), 0);
	assert_int_equal(res.cls, DNSB_CLASS_OK);
	assert_int_equal(dnsb_cf_batch_build(batch, &pc, &ids, c, 2, &cfg, &bad, NULL), 0);
	dnsb_precheck_clear(&pc);
	changes_free(c, 2);
	dnsb_rrset_list_clear(&held);
	dnsb_hb_tags_clear(&ids);
}

static void test_batch_body(void **state)
{
	dnsb_cf_batch b;

	(void)state;
	/* Same TTL: only the value that goes is deleted, only the one that comes posted. */
	build(300, 0, NULL, &b);
	assert_string_equal(b.json, "{\"deletes\":[{\"id\":\"a1\"}],\"posts\":["
				    "{\"name\":\"www.example.com\",\"type\":\"A\",\"content\":\"192.0.2.3\",\"proxied\":false,\"ttl\":300},"
				    "{\"name\":\"txt.example.com\",\"type\":\"TXT\",\"content\":\"\\\"hello world\\\"\",\"ttl\":300}]}");
	assert_int_equal(dnsb_cf_batch_size(&b), 3);
	assert_int_equal(b.deletes[0], 0);
	assert_int_equal(b.posts[0], 0);
	assert_int_equal(b.posts[1], 1);
	dnsb_cf_batch_clear(&b);

	/* Another TTL: every value again; proxied: TTL automatic; the comment on each post. */
	build(600, 1, "managed by dnsbatch", &b);
	assert_int_equal(b.delete_count, 2);
	assert_int_equal(b.post_count, 3);
	assert_non_null(strstr(b.json, "\"proxied\":true,\"ttl\":1,\"comment\":\"managed by dnsbatch\""));
	/* A TXT record is not proxiable: no proxied member, its own TTL. */
	assert_non_null(strstr(b.json, "\"type\":\"TXT\",\"content\":\"\\\"hello world\\\"\",\"ttl\":300,"));
	dnsb_cf_batch_clear(&b);
}

/* SRV and CAA posted with Cloudflare's data object (content is read-only for them), PTR by content. */
static void test_batch_data(void **state)
{
	dnsb_change *c[3];
	dnsb_rrset_list held = { 0 };
	dnsb_hb_tags ids = { 0 };
	dnsb_cf_config cfg = { 0 };
	dnsb_precheck pc;
	dnsb_result res;
	dnsb_cf_batch b;
	size_t bad;

	(void)state;
	c[0] = change_with_ttl(DNSB_CHANGE_CREATE, "_sip._tcp.example.com.", LDNS_RR_TYPE_SRV, NULL, "10 5 5060 sip.example.com.", 300);
	c[1] = change_with_ttl(DNSB_CHANGE_CREATE, "example.com.", LDNS_RR_TYPE_CAA, NULL, "128 iodef \"mailto:a\\\"b@example.com\"", 300);
	c[2] = change_with_ttl(DNSB_CHANGE_CREATE, "4.2.0.192.example.com.", LDNS_RR_TYPE_PTR, NULL, "host.example.com.", 30);
	assert_int_equal(dnsb_precheck_run(&pc, &res, c, 3, &held, NULL), 0);
	assert_int_equal(dnsb_cf_batch_build(&b, &pc, &ids, c, 3, &cfg, &bad, NULL), 0);
	assert_string_equal(b.json, "{\"posts\":["
		"{\"name\":\"_sip._tcp.example.com\",\"type\":\"SRV\",\"data\":{\"priority\":10,\"weight\":5,\"port\":5060,"
		"\"target\":\"sip.example.com\"},\"ttl\":300},"
		"{\"name\":\"example.com\",\"type\":\"CAA\",\"data\":{\"flags\":128,\"tag\":\"iodef\",\"value\":\"mailto:a\\\"b@example.com\"},"
		"\"ttl\":300},"
		"{\"name\":\"4.2.0.192.example.com\",\"type\":\"PTR\",\"content\":\"host.example.com\",\"ttl\":1}]}");
	dnsb_cf_batch_clear(&b);
	dnsb_precheck_clear(&pc);
	changes_free(c, 3);
}

/* The TTL Cloudflare will list, and a type the provider does not write refused (issue 31). */
static void test_props_ttl(void **state)
{
	dnsb_cf_config cfg = { 0 };
	dnsb_rrset r;

	(void)state;
	rrset_set(&r, "a.example.com.", LDNS_RR_TYPE_A, 30, "192.0.2.1");
	assert_int_equal(dnsb_cf_props(&cfg, &r), 0);
	assert_int_equal(r.ttl, DNSB_CF_TTL_AUTO); /* written as automatic below 60 s */
	r.ttl = 60;
	assert_int_equal(dnsb_cf_props(&cfg, &r), 0);
	assert_int_equal(r.ttl, 60);
	r.ttl = DNSB_TTL_UNSET;
	assert_int_equal(dnsb_cf_props(&cfg, &r), 0);
	assert_int_equal(r.ttl, DNSB_TTL_UNSET);
	cfg.proxied = 1;
	r.ttl = 3600;
	assert_int_equal(dnsb_cf_props(&cfg, &r), 0);
	assert_int_equal(r.ttl, DNSB_CF_TTL_AUTO);
	r.type = LDNS_RR_TYPE_SSHFP;
	assert_int_equal(dnsb_cf_props(&cfg, &r), DNSB_EINVAL);
	dnsb_rrset_clear(&r);
}

/* The default shared budget grants at most Cloudflare's 1,200 requests per token in any five minutes (issue 31). */
static void test_budget_default(void **state)
{
	(void)state;
	assert_true(DNSB_CF_BUDGET_BURST + DNSB_CF_BUDGET_RATE * DNSB_CF_LIMIT_WINDOW <= DNSB_CF_LIMIT_REQUESTS);
	assert_true(DNSB_CF_BUDGET_RATE > 0 && DNSB_CF_BUDGET_BURST >= 1);
}

static void test_config(void **state)
{
	dnsb_cf_config c;
	dnsb_config *cfg;
	dnsb_error err = { 0, "" };
	char path[] = "/tmp/test_cloudflare_tokenXXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "  tok-in-file\n", 14), 14);
	close(fd);
	unsetenv(DNSB_CF_TOKEN_ENV);
	unsetenv(DNSB_CF_KEY_ENV);
	unsetenv(DNSB_CF_EMAIL_ENV);
	cfg = config_of("cloudflare-zone-id", "0123456789abcdef0123456789abcdef", "cloudflare-proxied", "", NULL);
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "CF_API_TOKEN"));

	setenv(DNSB_CF_KEY_ENV, "global-key", 1);
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "CF_API_EMAIL"));
	assert_null(strstr(err.message, "global-key"));
	setenv(DNSB_CF_EMAIL_ENV, "a@example.com", 1);
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), 0);
	assert_string_equal(c.auth[0], "X-Auth-Key: global-key");
	assert_string_equal(c.auth[1], "X-Auth-Email: a@example.com");
	assert_int_equal(c.proxied, 1);
	assert_int_equal(c.batch_size, DNSB_CF_BATCH_DEFAULT);
	assert_string_equal(c.endpoint, DNSB_CF_ENDPOINT_DEFAULT);
	dnsb_cf_config_clear(&c);

	/* A token wins over the key; file:PATH is read and trimmed. */
	{
		char env[64];
		snprintf(env, sizeof(env), "file:%s", path);
		setenv(DNSB_CF_TOKEN_ENV, env, 1);
	}
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), 0);
	assert_string_equal(c.auth[0], "Authorization: Bearer tok-in-file");
	assert_null(c.auth[1]);
	dnsb_cf_config_clear(&c);
	/* A file past 4 KiB is read whole (it was cut there in silence): what follows the token is not ignored. */
	{
		char big[6000];
		memset(big, ' ', sizeof(big));
		memcpy(big, "tok-in-file", 11);
		memcpy(big + sizeof(big) - 5, "junk\n", 5);
		assert_int_equal(truncate(path, 0), 0);
		fd = open(path, O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
		close(fd);
	}
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), DNSB_EINVAL);
	assert_null(strstr(err.message, "tok-in-file"));
	dnsb_cf_config_clear(&c);
	dnsb_config_free(cfg);

	cfg = config_of("cloudflare-zone-id", "not a zone id", NULL);
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), DNSB_EINVAL);
	assert_non_null(strstr(err.message, "--cloudflare-zone-id"));
	dnsb_config_free(cfg);
	cfg = config_of("cloudflare-api-endpoint", "ftp://x", NULL);
	assert_int_equal(dnsb_cf_config_parse(&c, cfg, &err), DNSB_EINVAL);
	dnsb_config_free(cfg);
	unlink(path);
	unsetenv(DNSB_CF_TOKEN_ENV);
	unsetenv(DNSB_CF_KEY_ENV);
	unsetenv(DNSB_CF_EMAIL_ENV);
}

/* The RateLimit headers as Cloudflare documents them, and the pace they give. */
static void test_pace(void **state)
{
	dnsb_http_response r = { 0 };
	dnsb_cf_pace p;
	long v = 0, t = 0;

	(void)state;
	assert_int_equal(dnsb_cf_ratelimit_read("\"default\";r=50;t=30", "r", &v, "t", &t), 0);
	assert_int_equal(v, 50);
	assert_int_equal(t, 30);
	/* The tighter item, with its own reset. */
	assert_int_equal(dnsb_cf_ratelimit_read("\"default\";r=50;t=3, \"burst\";r=5;t=20", "r", &v, "t", &t), 0);
	assert_int_equal(v, 5);
	assert_int_equal(t, 20);
	assert_int_equal(dnsb_cf_ratelimit_read("\"burst\";q=100;w=60", "q", &v, NULL, NULL), 0);
	assert_int_equal(v, 100);
	assert_int_equal(dnsb_cf_ratelimit_read("\"default\";q=100", "r", &v, "t", &t), -1);
	assert_int_equal(dnsb_cf_ratelimit_read("\"default\";r=7", "r", &v, "t", &t), 0);
	assert_int_equal(t, -1);
	assert_int_equal(dnsb_cf_ratelimit_read("", "r", &v, NULL, NULL), -1);
	assert_int_equal(dnsb_cf_ratelimit_read("\"x\";rr=1;r=", "r", &v, NULL, NULL), -1);

	dnsb_cf_pace_init(&p);
	assert_true(dnsb_cf_pace_reserve(&p, 100.0, 0) == 0); /* nothing known: no wait */
	snprintf(r.ratelimit_policy, sizeof(r.ratelimit_policy), "\"default\";q=100;w=60");
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=50;t=30");
	assert_int_equal(dnsb_cf_pace_note(&p, &r, 100.0), 0);
	assert_true(dnsb_cf_pace_reserve(&p, 100.0, 0) == 0); /* half the quota left */
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=10;t=30");
	assert_int_equal(dnsb_cf_pace_note(&p, &r, 100.0), 1); /* fell below a fifth */
	assert_true(dnsb_cf_pace_reserve(&p, 100.0, 0) > 2.9); /* 30 s over the 10 left */
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=0;t=7");
	assert_int_equal(dnsb_cf_pace_note(&p, &r, 200.0), 0);
	assert_true(dnsb_cf_pace_reserve(&p, 200.0, 0) > 6.9); /* none left: until the reset */
	assert_true(dnsb_cf_pace_reserve(&p, 208.0, 0) == 0); /* the window reset */
	assert_int_equal(p.w.slowed, 2);
	/* A 429 with Retry-After and no header: nothing until it has passed. */
	r.ratelimit[0] = '\0';
	r.status = 429;
	r.retry_after = 4;
	assert_int_equal(dnsb_cf_pace_note(&p, &r, 300.0), 0);
	assert_true(dnsb_cf_pace_reserve(&p, 300.0, 0) > 3.9);
	dnsb_cf_pace_clear(&p);
}

/* Is x within 0.01 of want? */
static int near(double x, double want)
{
	return x > want - 0.01 && x < want + 0.01;
}

/*
 * A 429's hold: a huge Retry-After is capped as dnsb_hb_get caps it (10 x its
 * 5 s cap: 50 s), then the request goes again and a second 429 holds anew; a
 * request refused past its give_up spends nothing and leaves the hold as it
 * was; none left stays none for the next request too.
 */
static void test_pace_hold(void **state)
{
	dnsb_http_response r = { 0 };
	dnsb_cf_pace p;

	(void)state;
	dnsb_cf_pace_init(&p);
	r.status = 429;
	r.retry_after = 100000;
	dnsb_cf_pace_note(&p, &r, 10.0);
	assert_true(near(dnsb_cf_pace_reserve(&p, 10.0, 0), DNSB_RETRY_AFTER_CAP_FACTOR * DNSB_HB_THROTTLE_CAP));
	assert_true(dnsb_cf_pace_reserve(&p, 60.0, 0) == 0); /* the capped hold has passed: sent again */
	dnsb_cf_pace_note(&p, &r, 61.0);                      /* and refused again: a new hold */
	assert_true(near(dnsb_cf_pace_reserve(&p, 61.0, 0), 50.0));
	dnsb_cf_pace_clear(&p);

	/* Refused before its give_up: the hold it would wait is said, nothing reserved. */
	dnsb_cf_pace_init(&p);
	r.retry_after = 30;
	dnsb_cf_pace_note(&p, &r, 0.0);
	assert_true(near(dnsb_cf_pace_reserve(&p, 0.0, 5.0), 30.0));
	assert_true(near(dnsb_cf_pace_reserve(&p, 1.0, 5.0), 29.0)); /* still held: the refusal spent nothing */
	assert_int_equal(p.w.slowed, 0);
	assert_true(p.w.waited == 0);
	/* Without a give_up: both wait for the end of the hold (none left is not "unknown"). */
	assert_true(near(dnsb_cf_pace_reserve(&p, 2.0, 0), 28.0));
	assert_true(near(dnsb_cf_pace_reserve(&p, 2.0, 0), 28.0));
	assert_int_equal(p.w.slowed, 2);
	dnsb_cf_pace_clear(&p);
}

/*
 * Issue 38 §1 (fuzz_cf_ratelimit): RateLimit "default";r=0;t=99999999999 held
 * a listing (no give_up) for 1e11 s. A reset past DNSB_CF_RESET_MAX is
 * ignored (counted); a sensible one past the 60 s cap reserves nothing, as
 * past a give_up: the caller does not send (rate_limited), nobody is held.
 */
static void test_pace_bounded(void **state)
{
	dnsb_http_response r = { 0 };
	dnsb_cf_pace p;

	(void)state;
	dnsb_cf_pace_init(&p);
	r.status = 200;
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=0;t=99999999999");
	dnsb_cf_pace_note(&p, &r, 10.0);
	assert_true(dnsb_cf_pace_reserve(&p, 10.0, 0) == 0);
	dnsb_cf_pace_note(&p, &r, 11.0);
	assert_int_equal(p.absurd, 2);
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=0;t=300");
	dnsb_cf_pace_note(&p, &r, 20.0);
	assert_true(near(dnsb_cf_pace_reserve(&p, 20.0, 0), 300.0)); /* held that long: more than the cap */
	assert_true(near(dnsb_cf_pace_reserve(&p, 20.0, 0), 300.0));
	assert_int_equal(p.w.slowed, 0); /* neither reserved */
	snprintf(r.ratelimit, sizeof(r.ratelimit), "\"default\";r=0;t=%d", (int)DNSB_CF_PACE_CAP);
	dnsb_cf_pace_note(&p, &r, 30.0);
	assert_true(near(dnsb_cf_pace_reserve(&p, 30.0, 0), DNSB_CF_PACE_CAP)); /* at the cap: waited */
	assert_int_equal(p.w.slowed, 1);
	dnsb_cf_pace_clear(&p);
}

/* AdjustEndpoints with the provider's properties: defaults left out, a proxied record's TTL automatic. */
static void adjusted(const char *in, const dnsb_cf_config *cfg, const char *want)
{
	json_object *ep = json_tokener_parse(in), *out = NULL;
	char *why = NULL;

	assert_non_null(ep);
	assert_int_equal(dnsb_endpoint_adjust_props(&out, &why, ep, "$[0]", 0, cfg ? dnsb_cf_props : NULL, cfg), 0);
	assert_null(why);
	json_object_object_del(out, "labels");
	assert_string_equal(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE), want);
	json_object_put(out);
	json_object_put(ep);
}

static void test_adjust(void **state)
{
	dnsb_cf_config cfg = { 0 };
	const char *web = "{\"dnsName\":\"Web.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			  "\"recordTTL\":300,\"providerSpecific\":[{\"name\":\"" DNSB_PROPERTY_CF_PROXIED "\",\"value\":\"True\"},"
			  "{\"name\":\"" DNSB_PROPERTY_CF_COMMENT "\",\"value\":\"c\"}]}";

	(void)state;
	cfg.comment = (char *)"c";
	/* "True" read as Go's ParseBool does, written "true"; the comment is the default: left out. */
	adjusted(web, &cfg, "{\"dnsName\":\"web.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			    "\"recordTTL\":1,\"providerSpecific\":[{\"name\":\"" DNSB_PROPERTY_CF_PROXIED "\",\"value\":\"true\"}]}");
	/* Proxied by default: the flag is the default, left out; another comment kept. */
	cfg.proxied = 1;
	cfg.comment = NULL;
	adjusted(web, &cfg, "{\"dnsName\":\"web.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			    "\"recordTTL\":1,\"providerSpecific\":[{\"name\":\"" DNSB_PROPERTY_CF_COMMENT "\",\"value\":\"c\"}]}");
	/* Not proxied, TTL 30: Cloudflare writes and lists automatic, so AdjustEndpoints says 1 (issue 31). */
	cfg.proxied = 0;
	adjusted("{\"dnsName\":\"short.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":30}", &cfg,
		 "{\"dnsName\":\"short.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\",\"recordTTL\":1}");
	/* A provider without properties: both removed, the TTL as asked. */
	adjusted(web, NULL, "{\"dnsName\":\"web.example.com\",\"targets\":[\"192.0.2.1\"],\"recordType\":\"A\","
			     "\"recordTTL\":300}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_classify_forms),
		cmocka_unit_test(test_records_types),
		cmocka_unit_test(test_batch_data),
		cmocka_unit_test(test_props_ttl),
		cmocka_unit_test(test_budget_default),
		cmocka_unit_test(test_reply_error),
		cmocka_unit_test(test_records_parse),
		cmocka_unit_test(test_batch_body),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_pace_hold),
		cmocka_unit_test(test_pace_bounded),
		cmocka_unit_test(test_adjust),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
