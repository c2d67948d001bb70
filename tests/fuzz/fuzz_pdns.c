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
#include "fuzz_common.h"

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
	char *text = fuzz_text(data, size);
	dnsb_http_response resp;
	dnsb_result res;
	dnsb_error err;

	if (text == NULL)
		return 0;
	if (batch[0] == NULL) {
		batch[0] = fuzz_change(DNSB_CHANGE_CREATE, "www.example.test.", LDNS_RR_TYPE_A, "192.0.2.1");
		batch[1] = fuzz_change(DNSB_CHANGE_DELETE, "*.example.test.", LDNS_RR_TYPE_TXT, "\"x\"");
		batch[2] = fuzz_change(DNSB_CHANGE_CREATE, "mix.example.test.", LDNS_RR_TYPE_CNAME, "www.example.test.");
	}
	fuzz_reply(&resp, statuses[size % (sizeof(statuses) / sizeof(statuses[0]))],
		   text, size, -1, size % 4 ? "application/json" : "text/plain");
	documents(text, size);
	dnsb_result_init(&res);
	dnsb_pdns_classify(&res, &resp, batch, 3);
	dnsb_result_init(&res);
	(void)dnsb_pdns_culprits(&res, text, batch, 3);
	(void)dnsb_pdns_reply_error(&resp, "GET zone", &err);
	free(text);
	return 0;
}
