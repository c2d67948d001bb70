/*
 * endpoint.c - the one Endpoint/plan JSON serializer: RRsets as the Endpoints
 * external-dns expects from a provider (GET /records, `dnsbatch records
 * --output json`), and changes in plan form (the drop log, --dry-run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

enum { TYPE_TXT = 16, TYPE_SRV = 33, TYPE_NAPTR = 35 };

/*
 * Octets of the quoted character-string at s (ldns's presentation form: \X
 * and \DDD escapes); *end receives the position after its closing quote.
 * @return the octets, or -1 when s is not a quoted string
 */
static long string_octets(const char *s, const char **end)
{
	long n = 0;

	if (*s != '"')
		return -1;
	for (s++; *s && *s != '"'; n++)
		s += s[0] != '\\' ? 1 : (s[1] >= '0' && s[1] <= '9') ? 4 : 2;
	if (*s != '"')
		return -1;
	*end = s + 1;
	return n;
}

/*
 * A TXT value longer than 255 octets is stored as several character-strings
 * of 255 (dnsb_rdata_canonical splits it, as other providers do); external-dns
 * wrote it as one string, and compares targets as strings. Join such a run back
 * into one quoted string: "aaa..255.." "bbb" -> "aaa..bbb". Strings of
 * other lengths ("a" "b") are shown as they are.
 * @return a malloc'd string, or NULL when rdata is not such a split value (or out of memory)
 */
static char *txt_joined(const char *rdata)
{
	const char *p = rdata, *end;
	char *out, *o;
	long octets;
	int pieces = 0;

	while ((octets = string_octets(p, &end)) == 255 && *end == ' ') {
		pieces++;
		p = end + 1;
	}
	if (pieces == 0 || octets < 0 || *end != '\0' || (out = malloc(strlen(rdata) + 1)) == NULL)
		return NULL;
	o = out;
	*o++ = '"';
	for (p = rdata; *p; p++) {
		if (p[0] == '"' && (p == rdata || p[1] == '\0'))
			continue;                /* the outer quotes */
		if (p[0] == '"' && p[1] == ' ' && p[2] == '"') {
			p += 2;                  /* a boundary: "<255> "<next> */
			continue;
		}
		if (p[0] == '\\' && p[1] != '\0')
			*o++ = *p++;             /* an escape and what it escapes */
		*o++ = *p;
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

/* endpoint.NewEndpointWithTTL trims the trailing dot of every target but
 * TXT, NAPTR and SRV ones; external-dns then compares targets with what the
 * sources want ("lb.example.com"), so a kept dot would mean an update every
 * loop. A lone "." (null MX, root NS) keeps it: without it the RDATA would
 * not parse when external-dns sends it back. */
const char *dnsb_endpoint_target_text(uint16_t type, const char *rdata, size_t *len, char **joined)
{
	*len = strlen(rdata);
	if (type == TYPE_TXT && (*joined = txt_joined(rdata)) != NULL) {
		*len = strlen(*joined);
		return *joined;
	}
	*joined = NULL;
	if (type != TYPE_TXT && type != TYPE_NAPTR && type != TYPE_SRV && *len > 1 &&
	    rdata[*len - 1] == '.' && rdata[*len - 2] != ' ' && rdata[*len - 2] != '\\')
		(*len)--;
	return rdata;
}

static struct json_object *target(uint16_t type, const char *rdata)
{
	char *joined;
	size_t len;
	const char *text = dnsb_endpoint_target_text(type, rdata, &len, &joined);
	struct json_object *t = json_object_new_string_len(text, (int)len);

	free(joined);
	return t;
}

/* Does `given` (an Endpoint's targets) hold exactly the targets dnsb_rrset_to_endpoint prints for rrset? */
static int same_targets(json_object *given, const dnsb_rrset *rrset)
{
	if (!json_object_is_type(given, json_type_array) || json_object_array_length(given) != rrset->rdata_count)
		return 0;
	for (size_t i = 0; i < rrset->rdata_count; i++) {
		json_object *t = json_object_array_get_idx(given, i);
		char *joined;
		size_t len;
		const char *text = dnsb_endpoint_target_text(rrset->type, rrset->rdata[i], &len, &joined);
		int same = json_object_is_type(t, json_type_string) && (size_t)json_object_get_string_len(t) == len &&
			   memcmp(json_object_get_string(t), text, len) == 0;

		free(joined);
		if (!same)
			return 0;
	}
	return 1;
}

int dnsb_endpoint_reproduced(json_object *ep, const dnsb_rrset *rrset)
{
	enum { PRINTED = DNSB_EP_DNS_NAME | DNSB_EP_TARGETS | DNSB_EP_RECORD_TYPE | DNSB_EP_RECORD_TTL };
	dnsb_endpoint_fields f;
	json_object *v;
	size_t olen = rrset->owner ? strlen(rrset->owner) : 0;

	if (rrset->owner == NULL || rrset->alias != DNSB_ALIAS_NONE || !json_object_is_type(ep, json_type_object))
		return 0;
	dnsb_endpoint_fields_read(ep, &f);
	if (f.others != 0 || (f.has & ~(unsigned)PRINTED) != 0)
		return 0;
	if (olen > 1 && rrset->owner[olen - 1] == '.')
		olen--;
	if (!json_object_is_type(v = f.dns_name, json_type_string) ||
	    (size_t)json_object_get_string_len(v) != olen || memcmp(json_object_get_string(v), rrset->owner, olen) != 0)
		return 0;
	if (!json_object_is_type(v = f.record_type, json_type_string) ||
	    strcmp(json_object_get_string(v), dnsb_type_name(rrset->type)) != 0)
		return 0;
	/* recordTTL is printed when not 0, as an integer. */
	if ((f.has & DNSB_EP_RECORD_TTL) ?
	    !json_object_is_type(v = f.record_ttl, json_type_int) || rrset->ttl == 0 ||
	    json_object_get_int64(v) != (int64_t)rrset->ttl :
	    rrset->ttl != 0)
		return 0;
	return same_targets(f.targets, rrset);
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

/* {"name": name, "value": value} appended to a providerSpecific array. @return 0 or -1 */
static int add_property(struct json_object *list, const char *name, const char *value)
{
	struct json_object *p = json_object_new_object();

	if (p == NULL || add(p, "name", json_object_new_string(name)) != 0 ||
	    add(p, "value", json_object_new_string(value)) != 0 || json_object_array_add(list, p) != 0) {
		json_object_put(p);
		return -1;
	}
	return 0;
}

/* An alias's providerSpecific, as external-dns's aws provider lists it. @return a new array or NULL */
static struct json_object *alias_properties(dnsb_alias alias)
{
	struct json_object *list = json_object_new_array_ext(2);

	if (list == NULL || add_property(list, DNSB_PROPERTY_ALIAS, "true") != 0 ||
	    (alias != DNSB_ALIAS_DEFAULT && /* one that did not say, as it came */
	     add_property(list, DNSB_PROPERTY_EVALUATE_TARGET_HEALTH, alias == DNSB_ALIAS_HEALTH ? "true" : "false") != 0)) {
		json_object_put(list);
		return NULL;
	}
	return list;
}

/* An RRset's providerSpecific: an alias's properties, then its routing properties. @return a new array or NULL */
static struct json_object *properties(const dnsb_rrset *rrset)
{
	struct json_object *list = rrset->alias != DNSB_ALIAS_NONE ? alias_properties(rrset->alias) :
				   json_object_new_array();

	if (list != NULL && dnsb_routing_to_properties(list, rrset->routing) != 0) {
		json_object_put(list);
		return NULL;
	}
	return list;
}

json_object *dnsb_rrset_to_endpoint(const dnsb_rrset *rrset)
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
	if (rrset->set_id && *rrset->set_id && add(ep, "setIdentifier", json_object_new_string(rrset->set_id)) != 0)
		goto fail;
	if (rrset->ttl != 0 && add(ep, "recordTTL", json_object_new_int64(rrset->ttl)) != 0)
		goto fail;
	if ((rrset->alias != DNSB_ALIAS_NONE || rrset->routing) && add(ep, "providerSpecific", properties(rrset)) != 0)
		goto fail;
	return ep;
fail:
	json_object_put(targets);
	json_object_put(ep);
	return NULL;
}

static json_object *one_list(const char *key, json_object *ep)
{
	json_object *obj = json_object_new_object(), *arr = json_object_new_array();

	if (obj == NULL || arr == NULL || json_object_array_add(arr, ep) != 0) {
		json_object_put(obj);
		json_object_put(arr);
		json_object_put(ep);
		return NULL;
	}
	json_object_object_add(obj, key, arr);
	return obj;
}

json_object *dnsb_change_endpoint(const dnsb_change *change, int old)
{
	json_object *given = old ? change->endpoint_old : change->endpoint_new;
	dnsb_rrset printed;

	if (given != NULL)
		return json_object_get(given);
	if (old ? change->kind == DNSB_CHANGE_CREATE : change->kind == DNSB_CHANGE_DELETE)
		return NULL;
	printed = old ? change->old : change->new_set; /* a shallow copy, read only */
	if (!old && change->new_ttl_unset)
		printed.ttl = 0;
	return dnsb_rrset_to_endpoint(&printed);
}

json_object *dnsb_change_to_plan_json(const dnsb_change *change)
{
	json_object *obj, *ep;

	switch (change->kind) {
	case DNSB_CHANGE_CREATE:
		ep = dnsb_change_endpoint(change, 0);
		return ep ? one_list("create", ep) : NULL;
	case DNSB_CHANGE_DELETE:
		ep = dnsb_change_endpoint(change, 1);
		return ep ? one_list("delete", ep) : NULL;
	case DNSB_CHANGE_UPDATE:
		ep = dnsb_change_endpoint(change, 1);
		if (ep == NULL || (obj = one_list("updateOld", ep)) == NULL)
			return NULL;
		ep = dnsb_change_endpoint(change, 0);
		json_object *other = ep ? one_list("updateNew", ep) : NULL;
		if (other == NULL) {
			json_object_put(obj);
			return NULL;
		}
		json_object *arr = json_object_object_get(other, "updateNew");
		json_object_object_add(obj, "updateNew", json_object_get(arr));
		json_object_put(other);
		return obj;
	}
	return NULL;
}
