/*
 * fuzz_google.c - libFuzzer: any bytes as what Cloud DNS and Google's token
 * services answer: an rrsets.list page (by owner and whole), a
 * managedZones.list page, an error reply
 * and the class and culprits of a changes.create answer (against a fixed
 * batch), a read's error, a service-account key file, and a token (or
 * metadata server) reply and refusal.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "providers/google/google.h"
#include "fuzz_common.h"

static void rrsets_page(const char *text, size_t size)
{
	dnsb_rrkey keys[] = { { "*.example.com.", DNSB_RRKEY_ANY }, { "www.example.com.", LDNS_RR_TYPE_A } };
	json_object *doc = json_tokener_parse(text);
	dnsb_rrset_list out = { 0 };
	char *next = NULL;
	dnsb_error err;

	dnsb_google g;

	if (dnsb_google_rrsets_parse(&out, doc, keys, size % 3, &next, &err) == 0)
		free(next);
	dnsb_rrset_list_clear(&out);
	memset(&g, 0, sizeof(g));
	next = NULL;
	(void)dnsb_google_zones_page(&g, doc, &next);
	free(next);
	dnsb_hb_zones_free(g.base.zones, g.base.zone_count);
	json_object_put(doc);
}

static void credentials(const char *text, const dnsb_http_response *resp)
{
	dnsb_google_auth auth;
	dnsb_error err;

	memset(&auth, 0, sizeof(auth));
	pthread_mutex_init(&auth.lock, NULL);
	(void)dnsb_google_key_parse(&auth, text, "key.json", &err);
	dnsb_google_auth_clear(&auth);
	memset(&auth, 0, sizeof(auth));
	pthread_mutex_init(&auth.lock, NULL);
	snprintf(auth.source, sizeof(auth.source), "the metadata server");
	(void)dnsb_google_token_take(&auth, resp, &err);
	(void)dnsb_google_token_refused(resp, &auth, &err);
	dnsb_google_auth_clear(&auth);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 400, 403, 404, 409, 412, 429, 200, 500, 401 };
	static dnsb_change *batch[3];
	static dnsb_google_change layout;
	char *text = fuzz_text(data, size);
	dnsb_http_response resp;
	dnsb_google_error ge;
	dnsb_result res;
	dnsb_error err;

	if (text == NULL)
		return 0;
	if (batch[0] == NULL) {
		batch[0] = fuzz_change(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1");
		batch[1] = fuzz_change(DNSB_CHANGE_DELETE, "*.example.com.", LDNS_RR_TYPE_TXT, "\"x\"");
		batch[2] = fuzz_change(DNSB_CHANGE_CREATE, "mail.example.com.", LDNS_RR_TYPE_MX, "10 mx.example.com.");
		if (dnsb_google_change_build(&layout, batch, 3, NULL, &err) != 0)
			abort();
	}
	fuzz_reply(&resp, statuses[size % (sizeof(statuses) / sizeof(statuses[0]))],
		   text, size, -1, size % 4 ? "application/json; charset=UTF-8" : "text/html");
	rrsets_page(text, size);
	dnsb_google_error_parse(&ge, &resp);
	dnsb_result_init(&res);
	dnsb_google_classify(&res, &resp, &layout, batch, 3);
	(void)dnsb_google_reply_error(&resp, "rrsets.list", &err);
	credentials(text, &resp);
	free(text);
	return 0;
}
