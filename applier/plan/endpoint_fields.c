/*
 * endpoint_fields.c - an Endpoint's members as they are found, with no
 * judgement: the lowest floor of the plan's endpoint files (endpoint_read.c
 * reads an endpoint as an RRset, routing.c its routing properties, endpoint.c
 * prints one; each calls these, and these call none of them).
 */
#include <stddef.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

const char *dnsb_endpoint_string(json_object *ep, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(ep, key, &v) || v == NULL)
		return NULL;
	return json_object_get_string(v);
}

void dnsb_endpoint_fields_read(json_object *ep, dnsb_endpoint_fields *f)
{
	static const struct { const char *key; unsigned bit; size_t at; } members[] = {
		{ "dnsName", DNSB_EP_DNS_NAME, offsetof(dnsb_endpoint_fields, dns_name) },
		{ "targets", DNSB_EP_TARGETS, offsetof(dnsb_endpoint_fields, targets) },
		{ "recordType", DNSB_EP_RECORD_TYPE, offsetof(dnsb_endpoint_fields, record_type) },
		{ "setIdentifier", DNSB_EP_SET_IDENTIFIER, offsetof(dnsb_endpoint_fields, set_identifier) },
		{ "recordTTL", DNSB_EP_RECORD_TTL, offsetof(dnsb_endpoint_fields, record_ttl) },
		{ "labels", DNSB_EP_LABELS, offsetof(dnsb_endpoint_fields, labels) },
		{ "providerSpecific", DNSB_EP_PROVIDER_SPECIFIC, offsetof(dnsb_endpoint_fields, provider_specific) },
	};

	memset(f, 0, sizeof(*f));
	if (!json_object_is_type(ep, json_type_object))
		return;
	json_object_object_foreach(ep, key, val) {
		size_t m = 0;
		while (m < sizeof(members) / sizeof(members[0]) && strcmp(key, members[m].key) != 0)
			m++;
		if (m == sizeof(members) / sizeof(members[0])) {
			f->others++;
			continue;
		}
		f->has |= members[m].bit;
		*(json_object **)(void *)((char *)f + members[m].at) = val;
	}
}

const char *dnsb_endpoint_property(json_object *ep, const char *name)
{
	json_object *list, *p, *v;

	if (!json_object_object_get_ex(ep, "providerSpecific", &list) || !json_object_is_type(list, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		p = json_object_array_get_idx(list, i);
		if (json_object_is_type(p, json_type_object) && json_object_object_get_ex(p, "name", &v) &&
		    json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), name) == 0)
			return json_object_object_get_ex(p, "value", &v) ? json_object_get_string(v) : "";
	}
	return NULL;
}
