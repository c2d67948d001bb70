/*
 * alias.c - which desired CNAMEs the sidecar answers as aliases, for a
 * provider that stores them (external-dns's aws AdjustEndpoints): one marked
 * `alias` = "true", or unmarked to a name the provider would rather alias (an
 * AWS load balancer, unless --aws-prefer-cname), becomes an A and an AAAA
 * alias.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "dnsbatch/sys/provider.h"
#include "applier/webhook/internal.h"

/* A copy of ep with another recordType, or NULL (ENOMEM). */
static struct json_object *retyped(struct json_object *ep, const char *type)
{
	struct json_object *copy = NULL;

	if (json_object_deep_copy(ep, &copy, NULL) != 0)
		return NULL;
	if (json_object_object_add(copy, "recordType", json_object_new_string(type)) != 0) {
		json_object_put(copy);
		return NULL;
	}
	return copy;
}

/* Would the provider rather make this CNAME (no `alias` property, one target) an alias? */
static int alias_preferred(const dnsb_provider_limits *limits, struct json_object *ep)
{
	struct json_object *targets = json_object_object_get(ep, "targets");
	char *target = NULL;
	int yes;

	if (limits->alias_preferred == NULL || !json_object_is_type(targets, json_type_array) ||
	    json_object_array_length(targets) != 1 ||
	    dnsb_name_canonical(&target, json_object_get_string(json_object_array_get_idx(targets, 0)), NULL) != 0)
		return 0;
	yes = limits->alias_preferred(target);
	free(target);
	return yes;
}

/*
 * A CNAME marked as an alias, or without the mark but to a name the provider
 * would rather alias (an AWS load balancer): external-dns's aws AdjustEndpoints
 * answers for it an A alias and an AAAA alias (an alias answers with its
 * target's addresses, of either family), and so do we. `alias` = "false"
 * keeps a CNAME a CNAME.
 */
static int alias_cname(const dnsb_provider_limits *limits, struct json_object *ep)
{
	const char *type, *alias;

	if (!json_object_is_type(ep, json_type_object))
		return 0;
	type = json_object_get_string(json_object_object_get(ep, "recordType"));
	if (type == NULL || strcmp(type, "CNAME") != 0)
		return 0;
	alias = dnsb_endpoint_property(ep, DNSB_PROPERTY_ALIAS);
	return alias ? strcmp(alias, "true") == 0 : alias_preferred(limits, ep);
}

/* Mark ep (one of our copies) as an alias, its other providerSpecific kept. @return 0 or DNSB_ENOMEM */
static int mark_alias(struct json_object *ep)
{
	struct json_object *list = json_object_object_get(ep, "providerSpecific"), *p = json_object_new_object();

	if (!json_object_is_type(list, json_type_array)) {
		list = json_object_new_array();
		if (list == NULL || json_object_object_add(ep, "providerSpecific", list) != 0) {
			json_object_put(list);
			json_object_put(p);
			return DNSB_ENOMEM;
		}
	}
	if (p == NULL || json_object_object_add(p, "name", json_object_new_string(DNSB_PROPERTY_ALIAS)) != 0 ||
	    json_object_object_add(p, "value", json_object_new_string("true")) != 0 || json_object_array_add(list, p) != 0) {
		json_object_put(p);
		return DNSB_ENOMEM;
	}
	return 0;
}

int dnsb_webhook_alias_split(struct json_object *ep, const dnsb_provider_limits *limits, struct json_object **a,
			     struct json_object **aaaa)
{
	*a = *aaaa = NULL;
	if (!alias_cname(limits, ep))
		return 0;
	if ((*a = retyped(ep, "A")) == NULL || (*aaaa = retyped(ep, "AAAA")) == NULL ||
	    (dnsb_endpoint_property(ep, DNSB_PROPERTY_ALIAS) == NULL && (mark_alias(*a) != 0 || mark_alias(*aaaa) != 0))) {
		json_object_put(*a);
		json_object_put(*aaaa);
		*a = *aaaa = NULL;
		return DNSB_ENOMEM;
	}
	return 1;
}
