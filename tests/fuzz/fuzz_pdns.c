/*
 * fuzz_pdns.c - libFuzzer: any bytes as what the PowerDNS API answers: a zone
 * document's RRsets (by owner and whole), the zone list, the class and
 * culprits of a PATCH answer (against a fixed batch), a read's error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "providers/pdns/pdns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static dnsb_change *change(dnsb_change_kind kind, const char *owner, uint16_t type, const char *rdata)
{
	dnsb_change *c = calloc(1, sizeof(*c));
	dnsb_rrset *r;

	if (c == NULL)
		abort();
	c->kind = kind;
	r = kind == DNSB_CHANGE_DELETE ? &c->old : &c->new_set;
	r->owner = strdup(owner);
	r->type = type;
	r->ttl = 300;
	if (r->owner == NULL || dnsb_rrset_add_rdata(r, rdata) != 0)
		abort();
	return c;
}

static void documents(const char *text, size_t size)
{
	dnsb_rrkey keys[] = { { "*.example.test.", DNSB_RRKEY_ANY }, { "www.example.test.", LDNS_RR_TYPE_A } };
	json_object *doc = json_tokener_parse(text);
	dnsb_rrset_list out = { 0 };
	dnsb_pdns_zone *zones = NULL;
	size_t count = 0;
	dnsb_error err;

	(void)dnsb_pdns_rrsets_parse(&out, doc, keys, size % 3, &err);
	dnsb_rrset_list_clear(&out);
	(void)dnsb_pdns_zones_parse(&zones, &count, doc, &err);
	dnsb_hb_zones_free(zones, count);
	json_object_put(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 422, 400, 409, 404, 429, 204, 500, 401 };
	static dnsb_change *batch[3];
	char *text = malloc(size + 1);
	dnsb_http_response resp;
	dnsb_result res;
	dnsb_error err;

	if (text == NULL)
		return 0;
	if (batch[0] == NULL) {
		batch[0] = change(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.1");
		batch[1] = change(DNSB_CHANGE_DELETE, "*.example.test.", LDNS_RR_TYPE_TXT, "\"x\"");
		batch[2] = change(DNSB_CHANGE_CREATE, "mix.example.test.", LDNS_RR_TYPE_CNAME, "www.example.test.");
	}
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&resp, 0, sizeof(resp));
	resp.status = statuses[size % (sizeof(statuses) / sizeof(statuses[0]))];
	resp.body = text;
	resp.body_len = size;
	resp.retry_after = -1;
	snprintf(resp.content_type, sizeof(resp.content_type), "%s", size % 4 ? "application/json" : "text/plain");
	documents(text, size);
	dnsb_result_init(&res);
	dnsb_pdns_classify(&res, &resp, batch, 3);
	dnsb_result_init(&res);
	(void)dnsb_pdns_culprits(&res, text, batch, 3);
	(void)dnsb_pdns_reply_error(&resp, "GET zone", &err);
	free(text);
	return 0;
}
