/*
 * fuzz_aws.c - libFuzzer: any bytes as a Route53 reply: the class and
 * culprits of a ChangeResourceRecordSets answer (against a fixed batch), a
 * ListResourceRecordSets page (by owner and whole), a ListHostedZones page,
 * and a name with \ooo escapes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/aws/aws.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_change *batch[3];
	char *text = malloc(size + 1), *name, *type, *id, *marker, *plain;
	dnsb_rrkey keys[] = { { "*.example.com.", DNSB_RRKEY_ANY }, { "www.example.com.", LDNS_RR_TYPE_A } };
	dnsb_http_response resp;
	dnsb_rrset_list out = { 0 };
	dnsb_aws_zone *zones = NULL;
	size_t count = 0;
	dnsb_result res;
	dnsb_error err;
	int past;

	if (text == NULL)
		return 0;
	if (batch[0] == NULL) {
		batch[0] = change(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1");
		batch[1] = change(DNSB_CHANGE_DELETE, "*.example.com.", LDNS_RR_TYPE_TXT, "\"x\"");
		batch[2] = change(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.2");
	}
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&resp, 0, sizeof(resp));
	resp.status = size % 2 ? 400 : 403;
	resp.body = text;
	resp.body_len = size;
	resp.retry_after = -1;
	dnsb_aws_classify(&res, &resp, batch, size % 3 + 1);
	if (dnsb_aws_rrsets_parse(&out, text, size, size % 5 ? NULL : "*.example.com.", keys, size % 3, &name, &type, &id,
				  &past, &err) == 0) {
		free(name);
		free(type);
		free(id);
	}
	dnsb_rrset_list_clear(&out);
	if (dnsb_aws_zones_parse(&zones, &count, text, size, (dnsb_aws_zone_type)(size % 3), &marker, &err) == 0)
		free(marker);
	for (size_t i = 0; i < count; i++) {
		free(zones[i].apex);
		free(zones[i].id);
	}
	free(zones);
	free(plain = dnsb_aws_name_decode(text));
	free(text);
	return 0;
}
