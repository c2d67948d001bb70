/* webhook_records.c - RRsets as the Endpoints external-dns expects from GET /records. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/webhook.h"

enum {
	TYPE_SOA = 6, TYPE_TXT = 16, TYPE_SRV = 33, TYPE_NAPTR = 35,
	TYPE_RRSIG = 46, TYPE_NSEC = 47, TYPE_DNSKEY = 48, TYPE_NSEC3 = 50, TYPE_NSEC3PARAM = 51
};

int dnsb_webhook_type_listed(uint16_t type)
{
	switch (type) {
	case TYPE_SOA: case TYPE_RRSIG: case TYPE_NSEC: case TYPE_DNSKEY:
	case TYPE_NSEC3: case TYPE_NSEC3PARAM:
		return 0;
	default:
		return 1;
	}
}

/* endpoint.NewEndpointWithTTL trims the trailing dot of every target but
 * TXT, NAPTR and SRV ones; external-dns then compares targets with what the
 * sources want ("lb.example.com"), so a kept dot would mean an update every
 * loop. A lone "." (null MX, root NS) keeps it: without it the RDATA would
 * not parse when external-dns sends it back. */
static struct json_object *target(uint16_t type, const char *rdata)
{
	size_t len = strlen(rdata);

	if (type != TYPE_TXT && type != TYPE_NAPTR && type != TYPE_SRV && len > 1 &&
	    rdata[len - 1] == '.' && rdata[len - 2] != ' ' && rdata[len - 2] != '\\')
		return json_object_new_string_len(rdata, (int)len - 1);
	return json_object_new_string(rdata);
}

static int add(struct json_object *obj, const char *key, struct json_object *val)
{
	if (val == NULL)
		return -1;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

struct json_object *dnsb_webhook_endpoint(const dnsb_rrset *rrset)
{
	struct json_object *ep, *targets;
	size_t olen = rrset->owner ? strlen(rrset->owner) : 0;

	ep = json_object_new_object();
	targets = json_object_new_array_ext((int)rrset->rdata_count);
	if (ep == NULL || targets == NULL)
		goto fail;
	if (olen > 1 && rrset->owner[olen - 1] == '.')
		olen--;
	/* Field order as Go's encoder writes the Endpoint struct. */
	if (add(ep, "dnsName", json_object_new_string_len(rrset->owner ? rrset->owner : "", (int)olen)) != 0)
		goto fail;
	for (size_t i = 0; i < rrset->rdata_count; i++) {
		struct json_object *t = target(rrset->type, rrset->rdata[i]);
		if (t == NULL || json_object_array_add(targets, t) != 0) {
			json_object_put(t);
			goto fail;
		}
	}
	if (add(ep, "targets", targets) != 0) {
		targets = NULL; /* add() released it */
		goto fail;
	}
	targets = NULL;
	if (add(ep, "recordType", json_object_new_string(dnsb_type_name(rrset->type))) != 0)
		goto fail;
	if (rrset->ttl != 0 && add(ep, "recordTTL", json_object_new_int64(rrset->ttl)) != 0)
		goto fail;
	return ep;
fail:
	json_object_put(targets);
	json_object_put(ep);
	return NULL;
}
