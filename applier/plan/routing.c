/*
 * routing.c - the set identifier and routing properties of an Endpoint
 * (external-dns's setIdentifier and its aws provider's providerSpecific
 * names) and the provider properties of any Endpoint (its cloudflare
 * provider's), read into an RRset and written back in the same form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "dnsbatch/plan.h"
#include "applier/plan/internal.h"

static const char *const routing_names[DNSB_ROUTING_PROPERTY_COUNT] = DNSB_ROUTING_PROPERTIES;

/* Append "name=value\n" to *text (malloc'd, may be NULL); value is `len` bytes. @return 0 or DNSB_ENOMEM */
static int append_line(char **text, const char *name, const char *value, size_t len)
{
	char *grown = NULL;

	if (asprintf(&grown, "%s%s=%.*s\n", *text ? *text : "", name, (int)len, value) < 0)
		return DNSB_ENOMEM;
	free(*text);
	*text = grown;
	return 0;
}

int dnsb_endpoint_routing(dnsb_rrset *out, json_object *ep, const char *path, char **why)
{
	const char *setid = dnsb_endpoint_string(ep, "setIdentifier");
	int set = setid != NULL && *setid != '\0';

	/* Routing properties only count on a set with an identifier; provider properties on any RRset. */
	if (set && (out->set_id = strdup(setid)) == NULL)
		return DNSB_ENOMEM;
	for (size_t i = set ? 0 : DNSB_ROUTING_SET_PROPERTY_COUNT; i < DNSB_ROUTING_PROPERTY_COUNT; i++) {
		const char *value = dnsb_endpoint_property(ep, routing_names[i]);
		if (value == NULL || *value == '\0')
			continue;
		if (strchr(value, '\n') != NULL)
			return asprintf(why, "%s (%s): providerSpecific %s holds a line break", path, out->owner,
					routing_names[i]) < 0 ? DNSB_ENOMEM : 0;
		if (append_line(&out->routing, routing_names[i], value, strlen(value)) < 0)
			return DNSB_ENOMEM;
	}
	return 0;
}

const char *dnsb_routing_get(const char *routing, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *line = routing; line && *line; line = strchr(line, '\n') + 1) {
		const char *end = strchr(line, '\n');
		if (end == NULL)
			return NULL;
		if (strncmp(line, name, n) == 0 && line[n] == '=') {
			*len = (size_t)(end - line - (ptrdiff_t)n - 1);
			return line + n + 1;
		}
	}
	return NULL;
}

int dnsb_routing_to_properties(json_object *list, const char *routing)
{
	for (size_t i = 0; routing && i < DNSB_ROUTING_PROPERTY_COUNT; i++) {
		size_t len;
		const char *value = dnsb_routing_get(routing, routing_names[i], &len);
		json_object *p;
		if (value == NULL)
			continue;
		p = json_object_new_object();
		if (p == NULL || json_object_object_add(p, "name", json_object_new_string(routing_names[i])) != 0 ||
		    json_object_object_add(p, "value", json_object_new_string_len(value, (int)len)) != 0 ||
		    json_object_array_add(list, p) != 0) {
			json_object_put(p);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

int dnsb_routing_strip_provider(char **routing)
{
	char *kept = NULL;

	for (size_t i = 0; *routing && i < DNSB_ROUTING_SET_PROPERTY_COUNT; i++) {
		size_t len;
		const char *value = dnsb_routing_get(*routing, routing_names[i], &len);
		if (value != NULL && append_line(&kept, routing_names[i], value, len) < 0) {
			free(kept);
			return DNSB_ENOMEM;
		}
	}
	free(*routing);
	*routing = kept;
	return 0;
}
