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
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dnsb_change *batch[3];
	char *text = fuzz_text(data, size), *name, *type, *id, *marker, *plain;
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
		batch[0] = fuzz_change(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.1");
		batch[1] = fuzz_change(DNSB_CHANGE_DELETE, "*.example.com.", LDNS_RR_TYPE_TXT, "\"x\"");
		batch[2] = fuzz_change(DNSB_CHANGE_CREATE, "www.example.com.", LDNS_RR_TYPE_A, "192.0.2.2");
	}
	fuzz_reply(&resp, size % 2 ? 400 : 403, text, size, -1, NULL);
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
