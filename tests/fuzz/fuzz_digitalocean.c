/*
 * fuzz_digitalocean.c - libFuzzer: any bytes as what DigitalOcean answers: a
 * domain-record page (by key and whole, its next link), one record read and
 * written back (its body, when it reads), a reply's class and the read
 * error it makes, and the ratelimit headers' pace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/change.h"
#include "providers/digitalocean/digitalocean.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void page(const char *text, size_t size)
{
	dnsb_rrkey keys[] = { { "www.example.com.", LDNS_RR_TYPE_A }, { "example.com.", DNSB_RRKEY_ANY } };
	json_object *doc = json_tokener_parse(text), *list;
	dnsb_rrset_list out = { 0 };
	dnsb_hb_tags ids = { 0 };
	char *next = NULL;
	dnsb_error err;

	(void)dnsb_do_records_parse(&out, size % 2 ? &ids : NULL, doc, "example.com.", keys, size % 3, &next, &err);
	if (json_object_object_get_ex(doc, "domain_records", &list) && json_object_is_type(list, json_type_array))
		for (size_t i = 0; i < json_object_array_length(list) && i < 8; i++) {
			char *owner = NULL, *rdata = NULL, *body = NULL, id[24];
			uint16_t type;
			uint32_t ttl;
			if (dnsb_do_record_parse(&owner, &type, &rdata, &ttl, id, json_object_array_get_idx(list, i),
						 "example.com.", &err) == 0 &&
			    dnsb_do_record_body(&body, "example.com.", owner, type, rdata, ttl, &err) == 0 && body[0] != '{')
				abort(); /* a body that is not an object */
			free(owner);
			free(rdata);
			free(body);
		}
	free(next);
	dnsb_rrset_list_clear(&out);
	dnsb_hb_tags_clear(&ids);
	json_object_put(doc);
}

/* The bytes as a reply's body (its class, its read error) and as its ratelimit headers ("name\0value\0" pairs). */
static void reply(char *text, size_t size)
{
	static const long statuses[] = { 422, 404, 401, 200, 429, 403, 201, 204, 500, 503, 408, 400 };
	dnsb_http_response resp;
	dnsb_result res;
	dnsb_error err;
	dnsb_do_pace p;
	char *headers;
	size_t strings = 0;

	memset(&resp, 0, sizeof(resp));
	resp.status = statuses[size % (sizeof(statuses) / sizeof(statuses[0]))];
	resp.body = text;
	resp.body_len = size;
	resp.retry_after = size % 5 ? -1 : 3;
	snprintf(resp.content_type, sizeof(resp.content_type), "%s", size % 4 ? "application/json" : "text/html");
	/* the transport's form: complete "name\0value\0" pairs (the bytes' strings, an empty value added when odd) */
	if ((headers = calloc(size + 2, 1)) == NULL)
		return;
	memcpy(headers, text, size);
	resp.headers = headers;
	resp.headers_len = size + 1;
	for (size_t i = 0; i < size; i++)
		strings += text[i] == '\0';
	if (strings % 2 == 0) /* strings counts the NULs: their strings and the last make strings + 1 */
		resp.headers_len++;
	dnsb_result_init(&res);
	dnsb_do_classify(&res, &resp, (int)(size % 2));
	(void)dnsb_do_reply_error(&resp, "GET records", &err);
	dnsb_do_pace_init(&p);
	(void)dnsb_do_pace_note(&p, &resp, 1000.0, 1.8e9);
	if (dnsb_do_pace_reserve(&p, 1000.0, 0) < 0)
		abort(); /* a negative wait */
	dnsb_do_pace_clear(&p);
	free(headers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	page(text, size);
	reply(text, size);
	free(text);
	return 0;
}
