/*
 * fuzz_akamai.c - libFuzzer: any bytes as what Akamai Edge DNS answers or
 * what a user gives it: a record-set page (by key and whole, its next page),
 * a zones page, a change-list listing, a problem-details reply (its class
 * and the culprits it names, against a fixed batch of three changes), and
 * an .edgerc file (its [default] section).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/change.h"
#include "providers/akamai/akamai.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void pages(const char *text, size_t size)
{
	dnsb_rrkey keys[] = { { "www.example.com.", LDNS_RR_TYPE_A }, { "*.example.com.", DNSB_RRKEY_ANY } };
	json_object *doc = json_tokener_parse(text);
	dnsb_rrset_list out = { 0 };
	dnsb_hb_zone *zones = NULL;
	size_t count = 0;
	int more;
	dnsb_error err;

	(void)dnsb_akamai_recordsets_parse(&out, doc, keys, size % 3, size % 2 ? "www.example.com." : NULL, &more, &err);
	(void)dnsb_akamai_zones_parse(&zones, &count, doc, &more, &err);
	(void)dnsb_akamai_changelists_has(doc, "example.com");
	dnsb_rrset_list_clear(&out);
	dnsb_hb_zones_free(zones, count);
	json_object_put(doc);
}

/* Three changes at www, mail and a.b (owners only: the classifier reads them). */
static void problem(char *text, size_t size)
{
	static const long statuses[] = { 400, 409, 401, 200, 429, 403, 404, 204, 500, 503, 408, 422 };
	static char www[] = "www.example.com.", mail[] = "mail.example.com.", ab[] = "a.b.example.com.";
	char *owners[] = { www, mail, ab };
	dnsb_change c[3], *changes[3];
	dnsb_http_response resp;
	dnsb_result res;
	dnsb_error err;

	memset(c, 0, sizeof(c));
	for (size_t i = 0; i < 3; i++) {
		c[i].kind = i == 1 ? DNSB_CHANGE_DELETE : DNSB_CHANGE_CREATE;
		(i == 1 ? &c[i].old : &c[i].new_set)->owner = owners[i];
		changes[i] = &c[i];
	}
	memset(&resp, 0, sizeof(resp));
	resp.status = statuses[size % (sizeof(statuses) / sizeof(statuses[0]))];
	resp.body = text;
	resp.body_len = size;
	resp.retry_after = size % 5 ? -1 : 3;
	snprintf(resp.content_type, sizeof(resp.content_type), "%s",
		 size % 4 ? "application/problem+json" : "text/html");
	dnsb_result_init(&res);
	dnsb_akamai_classify(&res, &resp, changes, 3);
	for (size_t i = 0; i < res.culprit_count; i++)
		if (res.culprits[i] > 2)
			abort(); /* a culprit outside the batch */
	(void)dnsb_akamai_reply_error(&resp, "GET recordsets", &err);
}

static void edgerc(const char *text)
{
	dnsb_akamai_creds c;
	dnsb_error err;

	memset(&c, 0, sizeof(c));
	(void)dnsb_akamai_edgerc_parse(&c, text, "default", "fuzz.edgerc", &err);
	dnsb_akamai_creds_clear(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	pages(text, size);
	problem(text, size);
	edgerc(text);
	free(text);
	return 0;
}
