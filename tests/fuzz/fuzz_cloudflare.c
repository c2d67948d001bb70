/*
 * fuzz_cloudflare.c - libFuzzer: any bytes as what the Cloudflare API
 * answers: a dns_records listing page (by key and whole, its records' ids
 * and properties, its next page), and a batch's or a read's error reply
 * (its class and the culprit its first error names, against a fixed batch
 * layout of two deletes and two posts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "providers/cloudflare/cloudflare.h"
#include "fuzz_common.h"

static void listing(const char *text, size_t size)
{
	static char comment[] = "managed by dnsbatch";
	dnsb_rrkey keys[] = { { "www.example.com.", LDNS_RR_TYPE_A }, { "*.example.com.", DNSB_RRKEY_ANY } };
	dnsb_cf_config cfg;
	json_object *doc = json_tokener_parse(text);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags ids = { 0 };
	char *next = NULL;
	dnsb_error err;

	memset(&cfg, 0, sizeof(cfg));
	cfg.proxied = (int)(size % 2);
	cfg.comment = size % 3 ? comment : NULL;
	if (dnsb_cf_records_parse(&out, size % 5 ? &ids : NULL, size % 7 ? &cfg : NULL, doc, keys, size % 3, &next,
				  &err) == 0)
		free(next);
	dnsb_rrset_list_clear(&out);
	dnsb_hb_tags_clear(&ids);
	json_object_put(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 400, 409, 422, 200, 429, 403, 404, 413, 500, 401, 408 };
	static size_t deletes[] = { 0, 2 }, posts[] = { 1, 3 };
	static const char *delete_ids[] = { "372e67954025e0ba6aaa6d586b9e0b59", "023e105f4ecef8ad9ca31a8372d0c353" };
	dnsb_cf_batch layout = { NULL, deletes, 2, delete_ids, posts, 2 };
	char *text = fuzz_text(data, size);
	dnsb_http_response resp;
	dnsb_result res;
	dnsb_error err;

	if (text == NULL)
		return 0;
	listing(text, size);
	fuzz_reply(&resp, statuses[size % (sizeof(statuses) / sizeof(statuses[0]))],
		   text, size, size % 5 ? -1 : 3, size % 4 ? "application/json" : "text/html");
	dnsb_cf_classify(&res, &resp, &layout);
	for (size_t i = 0; i < res.culprit_count; i++)
		if (res.culprits[i] > 3)
			abort(); /* a culprit outside the batch */
	(void)dnsb_cf_reply_error(&resp, "GET dns_records", &err);
	free(text);
	return 0;
}
