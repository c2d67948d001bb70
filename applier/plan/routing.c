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

/*
 * The value a routing property is written with, as external-dns's aws provider (provider/aws/aws.go, newChange)
 * reads it: aws/multi-value-answer by its presence alone (true, whatever its value; external-dns lists it without
 * one), a geoproximity location's bias 0 when it gives none (adjustGeoProximityLocationEndpoint). NULL: none.
 */
static const char *aws_value(json_object *ep, const char *name, const char *value)
{
	static const char *const located[] = { "aws/geoproximity-region", "aws/geoproximity-local-zone-group",
					       "aws/geoproximity-coordinates" };

	if (strcmp(name, "aws/multi-value-answer") == 0)
		return value ? "true" : NULL;
	if (strcmp(name, "aws/geoproximity-bias") == 0 && (value == NULL || *value == '\0'))
		for (size_t i = 0; i < sizeof(located) / sizeof(located[0]); i++)
			if (dnsb_endpoint_property(ep, located[i]) != NULL)
				return "0";
	return value && *value ? value : NULL;
}

/* "LATITUDE,LONGITUDE" in degrees, as external-dns's aws provider reads aws/geoproximity-coordinates. */
static int coordinates_ok(const char *v)
{
	char *end;
	double lat = strtod(v, &end), lon;

	if (end == v || *end != ',')
		return 0;
	v = end + 1;
	lon = strtod(v, &end);
	return end != v && *end == '\0' && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}

/* The first aws/ providerSpecific name of ep that dnsbatch does not map, or NULL. */
static const char *unmapped_aws(json_object *ep)
{
	json_object *list, *p, *v;

	if (!json_object_object_get_ex(ep, "providerSpecific", &list) || !json_object_is_type(list, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		const char *name;
		size_t k = 0;
		p = json_object_array_get_idx(list, i);
		if (!json_object_object_get_ex(p, "name", &v) || !json_object_is_type(v, json_type_string))
			continue;
		name = json_object_get_string(v);
		if (strncmp(name, "aws/", 4) != 0 || strcmp(name, DNSB_PROPERTY_EVALUATE_TARGET_HEALTH) == 0)
			continue;
		while (k < DNSB_ROUTING_SET_PROPERTY_COUNT && strcmp(name, routing_names[k]) != 0)
			k++;
		if (k == DNSB_ROUTING_SET_PROPERTY_COUNT)
			return name;
	}
	return NULL;
}

int dnsb_endpoint_routing(dnsb_rrset *out, json_object *ep, const char *path, char **why)
{
	const char *setid = dnsb_endpoint_string(ep, "setIdentifier"), *unmapped = unmapped_aws(ep);
	int set = setid != NULL && *setid != '\0';

	if (unmapped != NULL)
		return asprintf(why, "%s (%s): providerSpecific %s: not a property dnsbatch can map", path, out->owner,
				unmapped) < 0 ? DNSB_ENOMEM : 0;
	/* Routing properties only count on a set with an identifier; provider properties on any RRset. */
	if (set && (out->set_id = strdup(setid)) == NULL)
		return DNSB_ENOMEM;
	for (size_t i = set ? 0 : DNSB_ROUTING_SET_PROPERTY_COUNT; i < DNSB_ROUTING_PROPERTY_COUNT; i++) {
		const char *value = dnsb_endpoint_property(ep, routing_names[i]);
		if (i < DNSB_ROUTING_SET_PROPERTY_COUNT)
			value = aws_value(ep, routing_names[i], value);
		if (value == NULL || *value == '\0')
			continue;
		if (strchr(value, '\n') != NULL)
			return asprintf(why, "%s (%s): providerSpecific %s holds a line break", path, out->owner,
					routing_names[i]) < 0 ? DNSB_ENOMEM : 0;
		if (strcmp(routing_names[i], "aws/geoproximity-coordinates") == 0 && !coordinates_ok(value))
			return asprintf(why, "%s (%s): providerSpecific %s '%s': expected LATITUDE,LONGITUDE in degrees",
					path, out->owner, routing_names[i], value) < 0 ? DNSB_ENOMEM : 0;
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
