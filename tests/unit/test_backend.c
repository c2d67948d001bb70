/*
 * test_backend.c - the HTTP backend skeleton (providers/common/backend.c) without a
 * server: the shared opening of a classification, the result of a
 * classified reply, pagination (tokens freed, a looping server stopped),
 * reads by owner name or by listing the zone, the zone array and the list
 * of service handles (record ids, ETags).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/common/backend.h"

static void test_status_class_opening(void **state)
{
	(void)state;
	assert_int_equal(dnsb_hb_status_class(200), DNSB_CLASS_OK);
	assert_int_equal(dnsb_hb_status_class(204), DNSB_CLASS_OK);
	assert_int_equal(dnsb_hb_status_class(408), DNSB_CLASS_TRANSIENT);
	assert_int_equal(dnsb_hb_status_class(502), DNSB_CLASS_TRANSIENT);
	assert_int_equal(dnsb_hb_status_class(413), DNSB_CLASS_TOO_LARGE);
	assert_int_equal(dnsb_hb_status_class(429), DNSB_CLASS_RATE_LIMITED);
	/* The rest is the backend's: its error body decides. */
	assert_int_equal(dnsb_hb_status_class(400), DNSB_HB_CLASS_OWN);
	assert_int_equal(dnsb_hb_status_class(401), DNSB_HB_CLASS_OWN);
	assert_int_equal(dnsb_hb_status_class(403), DNSB_HB_CLASS_OWN);
	assert_int_equal(dnsb_hb_status_class(409), DNSB_HB_CLASS_OWN);
	assert_int_equal(dnsb_hb_status_class(302), DNSB_HB_CLASS_OWN);
	assert_int_equal(dnsb_hb_class_code(DNSB_CLASS_RATE_LIMITED), DNSB_ERATELIMIT);
	assert_int_equal(dnsb_hb_class_code(DNSB_CLASS_TRANSIENT), DNSB_ETRANSIENT);
	assert_int_equal(dnsb_hb_class_code(DNSB_CLASS_CONFLICT), DNSB_EFATAL);
	assert_int_equal(dnsb_hb_class_code(DNSB_CLASS_FATAL), DNSB_EFATAL);
}

static void test_result_keeps_culprits_and_retry_after(void **state)
{
	dnsb_http_response resp = { 0 };
	dnsb_result res;

	(void)state;
	resp.status = 429;
	resp.retry_after = 7;
	dnsb_result_init(&res);
	dnsb_result_add_culprit(&res, 3);
	dnsb_hb_result(&res, DNSB_CLASS_RATE_LIMITED, &resp, "10000", "");
	assert_int_equal(res.cls, DNSB_CLASS_RATE_LIMITED);
	assert_int_equal(res.status, 429);
	assert_string_equal(res.code, "10000");
	assert_string_equal(res.message, "(no message)");
	assert_true(res.retry_after == 7);
	assert_int_equal(res.culprit_count, 1);

	resp.status = 409;
	dnsb_result_init(&res);
	dnsb_hb_result(&res, DNSB_CLASS_CONFLICT, &resp, NULL, "exists");
	assert_string_equal(res.code, "");
	assert_string_equal(res.message, "exists");
	assert_true(res.retry_after < 0); /* only rate_limited and transient wait */

	resp.status = 200;
	dnsb_hb_result(&res, DNSB_CLASS_OK, &resp, "", "ignored");
	assert_string_equal(res.message, "");
}

/* A fake listing: pages "2", "3", ... up to `last`; -1 never ends. */
typedef struct pager {
	int last, calls;
	char seen[64];
} pager;

static int page_of(void *payload, const char *token, char **next, dnsb_error *err)
{
	pager *p = payload;
	int at = token ? atoi(token) : 1;
	char buf[16];

	(void)err;
	p->calls++;
	strncat(p->seen, token ? token : "-", sizeof(p->seen) - strlen(p->seen) - 1);
	if (p->last >= 0 && at >= p->last)
		return 0;
	snprintf(buf, sizeof(buf), "%d", at + 1);
	*next = strdup(buf);
	return *next ? 0 : DNSB_ENOMEM;
}

static void test_pages(void **state)
{
	pager p = { 3, 0, "" };
	dnsb_error err = { 0, "" };

	(void)state;
	assert_int_equal(dnsb_hb_pages("listing", 100, page_of, &p, &err), 0);
	assert_int_equal(p.calls, 3);
	assert_string_equal(p.seen, "-23");

	memset(&p, 0, sizeof(p));
	p.last = -1;
	assert_int_equal(dnsb_hb_pages("rrsets.list x", 5, page_of, &p, &err), DNSB_ETRANSIENT);
	assert_int_equal(p.calls, 5);
	assert_non_null(strstr(err.message, "rrsets.list x: more than 5 pages"));
}

/* A fake zone: www A, www TXT, mail A; records the owners listed. */
typedef struct lister {
	char listed[256];
} lister;

static lister the_lister;

static int add(dnsb_rrset_list *out, const char *owner, uint16_t type, const char *rdata)
{
	return dnsb_rrset_list_add_text(out, owner, 300, dnsb_type_name(type), rdata);
}

static int list_zone(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type, const dnsb_rrkey *keys,
		     size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	static const struct {
		const char *owner;
		uint16_t type;
		const char *rdata;
	} zone_data[] = { { "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1" },
			  { "www.example.com.", LDNS_RR_TYPE_TXT, "\"hello\"" },
			  { "mail.example.com.", LDNS_RR_TYPE_A, "192.0.2.2" } };

	(void)b, (void)zone, (void)give_up, (void)tags, (void)err;
	strncat(the_lister.listed, owner ? owner : "*", sizeof(the_lister.listed) - strlen(the_lister.listed) - 1);
	strncat(the_lister.listed, type ? "/t;" : ";", sizeof(the_lister.listed) - strlen(the_lister.listed) - 1);
	for (size_t i = 0; i < sizeof(zone_data) / sizeof(zone_data[0]); i++) {
		if (owner && (strcmp(zone_data[i].owner, owner) != 0 || (type && zone_data[i].type != type)))
			continue;
		if (n > 0 && !dnsb_rrkeys_want(keys, n, zone_data[i].owner, zone_data[i].type))
			continue;
		if (add(out, zone_data[i].owner, zone_data[i].type, zone_data[i].rdata) != 0)
			return DNSB_ENOMEM;
	}
	return 0;
}

static void test_read_by_owner(void **state)
{
	char apex[] = "example.com.", id[] = "Z1";
	dnsb_hb_zone zone = { apex, id };
	dnsb_rrkey keys[] = { { "www.example.com.", LDNS_RR_TYPE_A },
			      { "www.example.com.", LDNS_RR_TYPE_AAAA },
			      { "mail.example.com.", DNSB_RRKEY_ANY } };
	dnsb_rrset_list out = { 0 };
	dnsb_error err = { 0, "" };

	(void)state;
	/* Few names: one listing each, by type where one type is asked for there. */
	memset(&the_lister, 0, sizeof(the_lister));
	assert_int_equal(dnsb_hb_read_by_owner(NULL, &zone, keys, 3, 16, list_zone, 0, &out, NULL, &err), 0);
	assert_string_equal(the_lister.listed, "www.example.com.;mail.example.com.;");
	assert_int_equal(out.count, 2);
	assert_non_null(dnsb_rrset_list_find(&out, "www.example.com.", LDNS_RR_TYPE_A));
	assert_non_null(dnsb_rrset_list_find(&out, "mail.example.com.", LDNS_RR_TYPE_A));
	dnsb_rrset_list_clear(&out);

	memset(&the_lister, 0, sizeof(the_lister));
	assert_int_equal(dnsb_hb_read_by_owner(NULL, &zone, keys, 1, 16, list_zone, 0, &out, NULL, &err), 0);
	assert_string_equal(the_lister.listed, "www.example.com./t;");
	dnsb_rrset_list_clear(&out);

	/* More names than by_name_max: one listing of the zone, kept to the keys. */
	memset(&the_lister, 0, sizeof(the_lister));
	assert_int_equal(dnsb_hb_read_by_owner(NULL, &zone, keys, 3, 1, list_zone, 0, &out, NULL, &err), 0);
	assert_string_equal(the_lister.listed, "*;");
	assert_int_equal(out.count, 2);
	assert_null(dnsb_rrset_list_find(&out, "www.example.com.", LDNS_RR_TYPE_TXT));
	dnsb_rrset_list_clear(&out);

	/* No keys: the whole zone. */
	memset(&the_lister, 0, sizeof(the_lister));
	assert_int_equal(dnsb_hb_read_by_owner(NULL, &zone, NULL, 0, 16, list_zone, 0, &out, NULL, &err), 0);
	assert_int_equal(out.count, 3);
	dnsb_rrset_list_clear(&out);
}

static void test_zones(void **state)
{
	dnsb_hb b = { 0 };
	dnsb_hb_zone *cfg = NULL;
	size_t cfg_count = 0;

	(void)state;
	assert_int_equal(dnsb_hb_zones_push(&cfg, &cfg_count, strdup("example.com."), "Z1"), 0);
	assert_int_equal(dnsb_hb_zones_push(&cfg, &cfg_count, strdup("example.org."), "Z2"), 0);
	dnsb_hb_zones_take(&b, &cfg, &cfg_count);
	assert_null(cfg);
	assert_int_equal(cfg_count, 0);
	assert_int_equal(b.zone_count, 2);
	assert_string_equal(dnsb_hb_zone_find(&b, "example.org.")->id, "Z2");
	assert_null(dnsb_hb_zone_find(&b, "example.net."));
	dnsb_hb_zones_free(b.zones, b.zone_count);
}

static void test_tags(void **state)
{
	dnsb_hb_tags tags = { 0 };
	unsigned char skip[64] = { 0 };
	const dnsb_hb_tag *t;
	char id[32];

	(void)state;
	/* Cloudflare: one id per record, a value may be held twice; Azure: one ETag per RRset. */
	assert_int_equal(dnsb_hb_tags_add(&tags, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", "id1", 300), 0);
	assert_int_equal(dnsb_hb_tags_add(&tags, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", "id2", 300), 0);
	assert_int_equal(dnsb_hb_tags_add(&tags, "www.example.com.", LDNS_RR_TYPE_TXT, NULL, "W/\"etag\"", 60), 0);
	for (int i = 0; i < 40; i++) { /* past the first growth */
		snprintf(id, sizeof(id), "m%d", i);
		assert_int_equal(dnsb_hb_tags_add(&tags, "mail.example.com.", LDNS_RR_TYPE_A, "192.0.2.9", id, 1), 0);
	}
	assert_int_equal(tags.count, 43);
	t = dnsb_hb_tags_find(&tags, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", NULL);
	assert_string_equal(t->tag, "id1");
	skip[t - tags.items] = 1;
	assert_string_equal(dnsb_hb_tags_find(&tags, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1", skip)->tag, "id2");
	assert_null(dnsb_hb_tags_find(&tags, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.2", NULL));
	assert_null(dnsb_hb_tags_find(&tags, "www.example.com.", LDNS_RR_TYPE_A, NULL, NULL));
	t = dnsb_hb_tags_find(&tags, "www.example.com.", LDNS_RR_TYPE_TXT, NULL, NULL);
	assert_string_equal(t->tag, "W/\"etag\"");
	assert_int_equal(t->ttl, 60);
	assert_string_equal(dnsb_hb_tags_find(&tags, "mail.example.com.", LDNS_RR_TYPE_A, "192.0.2.9", NULL)->tag, "m0");
	dnsb_hb_tags_clear(&tags);
	assert_int_equal(tags.count, 0);
	dnsb_hb_tags_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_class_opening),
		cmocka_unit_test(test_result_keeps_culprits_and_retry_after),
		cmocka_unit_test(test_pages),
		cmocka_unit_test(test_read_by_owner),
		cmocka_unit_test(test_zones),
		cmocka_unit_test(test_tags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
