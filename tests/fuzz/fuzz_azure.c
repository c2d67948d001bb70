/*
 * fuzz_azure.c - libFuzzer: any bytes as what Azure DNS answers: a record
 * set listing page ({"value": [...], "nextLink"}) item by item as the
 * listing reads it (by key and whole), one record set (a GET or a PUT's
 * reply), and an error reply's class and read error. Every record set read
 * alone is written back as a PUT body (dnsb_azure_rrset_body) and that body
 * read again: what was read must write, and read back the same. No record
 * set may read as DNSB_ENOMEM (bad input is not a local failure).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "providers/azure/internal.h"
#include "fuzz_common.h"

#define APEX "example.com."

/* A record set read must write as a PUT body, and that body (named as the set was) read back the same. */
static void round_trip(const dnsb_rrset *set, int private_zones)
{
	dnsb_rrset_list again = { 0 };
	json_object *doc;
	const char *seg = dnsb_azure_type_segment(set->type);
	char *body = NULL, typename[96];
	size_t olen = strlen(set->owner), alen = strlen(APEX);
	dnsb_error err;

	if (seg == NULL || set->rdata_count == 0 || dnsb_azure_rrset_body(&body, set, private_zones, &err) != 0) {
		free(body);
		return;
	}
	if ((doc = json_tokener_parse(body)) == NULL)
		abort(); /* the body written is not JSON */
	if (strcmp(set->owner, APEX) == 0)
		json_object_object_add(doc, "name", json_object_new_string("@"));
	else if (olen > alen)
		json_object_object_add(doc, "name", json_object_new_string_len(set->owner, (int)(olen - alen - 1)));
	snprintf(typename, sizeof(typename), "Microsoft.Network/%s/%s", private_zones ? "privateDnsZones" : "dnszones",
		 seg);
	json_object_object_add(doc, "type", json_object_new_string(typename));
	json_object_object_add(doc, "etag", json_object_new_string("e-1"));
	if (dnsb_azure_rrset_parse(&again, NULL, doc, APEX, NULL, 0, &err) != 0 || again.count != 1 ||
	    again.items[0].rdata_count != set->rdata_count || again.items[0].ttl != set->ttl ||
	    strcmp(again.items[0].owner, set->owner) != 0) {
		fprintf(stderr, "round trip of %s type %u (%zu values): %s\n", set->owner, set->type, set->rdata_count,
			body);
		abort();
	}
	for (size_t i = 0; i < set->rdata_count; i++)
		if (strcmp(again.items[0].rdata[i], set->rdata[i]) != 0) {
			fprintf(stderr, "round trip of %s: '%s' came back '%s' (%s)\n", set->owner, set->rdata[i],
				again.items[0].rdata[i], body);
			abort();
		}
	dnsb_rrset_list_clear(&again);
	json_object_put(doc);
	free(body);
}

/* One record set read alone, and written back. Memory does not run out here: DNSB_ENOMEM would be bad input
 * reported as a local failure (the listing's whole read failing "out of memory"). */
static void item(json_object *rs, size_t size)
{
	dnsb_rrset_list one = { 0 };
	dnsb_error err;
	int rc = dnsb_azure_rrset_parse(&one, NULL, rs, APEX, NULL, 0, &err);

	if (rc == DNSB_ENOMEM) {
		fprintf(stderr, "a record set read as out of memory: %s\n", json_object_to_json_string(rs));
		abort();
	}
	if (rc == 0)
		for (size_t i = 0; i < one.count; i++)
			round_trip(&one.items[i], (int)(size % 2));
	dnsb_rrset_list_clear(&one);
}

/* A listing page's items as dnsb_azure_list's page() takes them (into one list: two record sets of one name
 * and type make one RRset), or the document as one record set; each item also alone. */
static void listing(json_object *doc, size_t size)
{
	dnsb_rrkey keys[] = { { "www." APEX, LDNS_RR_TYPE_A }, { "*." APEX, DNSB_RRKEY_ANY } };
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags tags = { 0 };
	json_object *value;
	size_t n = size % 3;
	dnsb_error err;
	int rc = 0;

	if (json_object_object_get_ex(doc, "value", &value) && json_object_is_type(value, json_type_array)) {
		for (size_t i = 0; rc == 0 && i < json_object_array_length(value); i++) {
			rc = dnsb_azure_rrset_parse(&out, &tags, json_object_array_get_idx(value, i), APEX, keys, n,
						    &err);
			item(json_object_array_get_idx(value, i), size);
		}
	} else if (doc != NULL) {
		(void)dnsb_azure_rrset_parse(&out, &tags, doc, APEX, keys, n, &err);
		item(doc, size);
	}
	dnsb_rrset_list_clear(&out);
	dnsb_hb_tags_clear(&tags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 200, 412, 409, 400, 429, 503, 401, 403, 404, 408, 201 };
	char *text = fuzz_text(data, size);
	dnsb_http_response resp;
	json_object *doc;
	dnsb_result res;
	dnsb_error err;

	if (text == NULL)
		return 0;
	doc = json_tokener_parse(text);
	listing(doc, size);
	json_object_put(doc);
	fuzz_reply(&resp, statuses[size % (sizeof(statuses) / sizeof(statuses[0]))],
		   text, size, size % 5 ? -1 : 7, size % 4 ? "application/json; charset=utf-8" : "text/html");
	dnsb_result_init(&res);
	dnsb_azure_classify(&res, &resp);
	(void)dnsb_azure_reply_error(&resp, "list record sets", &err);
	free(text);
	return 0;
}
