/*
 * routing.c - Route53's routing policies in XML: a set's SetIdentifier and
 * routing elements written in the API model's order (SetIdentifier, Weight,
 * Region, GeoLocation, Failover, MultiValueAnswer before TTL; HealthCheckId
 * after AliasTarget) and read back into dnsb_rrset.set_id and .routing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "providers/aws/aws.h"

/* Route53 element -> providerSpecific name, in the model's order (GeoLocation's three codes nested). */
static const struct { const char *element, *property; int geo; } fields[] = {
	{ "Weight", "aws/weight", 0 },
	{ "Region", "aws/region", 0 },
	{ "ContinentCode", "aws/geolocation-continent-code", 1 },
	{ "CountryCode", "aws/geolocation-country-code", 1 },
	{ "SubdivisionCode", "aws/geolocation-subdivision-code", 1 },
	{ "Failover", "aws/failover", 0 },
	{ "MultiValueAnswer", "aws/multi-value-answer", 0 },
};

/* <name>value</name> under parent from the routing text's `property`, when it has one. @return 0 or DNSB_ENOMEM */
static int put(xmlNode *parent, const char *name, const char *routing, const char *property)
{
	size_t len;
	const char *v = dnsb_routing_get(routing, property, &len);
	char *value;
	xmlNode *n;

	if (v == NULL)
		return 0;
	if ((value = strndup(v, len)) == NULL)
		return DNSB_ENOMEM;
	n = xmlNewTextChild(parent, NULL, BAD_CAST name, BAD_CAST value);
	free(value);
	return n ? 0 : DNSB_ENOMEM;
}

/* Does the routing text hold any GeoLocation code? */
static int has_geo(const char *routing)
{
	size_t len;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].geo && dnsb_routing_get(routing, fields[i].property, &len) != NULL)
			return 1;
	return 0;
}

int dnsb_aws_routing_head(xmlNode *set, const dnsb_rrset *r)
{
	xmlNode *geo = NULL;

	if (r->set_id == NULL || *r->set_id == '\0')
		return 0;
	if (xmlNewTextChild(set, NULL, BAD_CAST "SetIdentifier", BAD_CAST r->set_id) == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (fields[i].geo && geo == NULL && has_geo(r->routing) &&
		    (geo = xmlNewChild(set, NULL, BAD_CAST "GeoLocation", NULL)) == NULL)
			return DNSB_ENOMEM;
		if (put(fields[i].geo ? geo : set, fields[i].element, r->routing, fields[i].property) != 0)
			return DNSB_ENOMEM;
	}
	return 0;
}

int dnsb_aws_routing_tail(xmlNode *set, const dnsb_rrset *r)
{
	if (r->set_id == NULL || *r->set_id == '\0')
		return 0;
	return put(set, "HealthCheckId", r->routing, "aws/health-check-id");
}

/* The text of a child element (malloc'd) or NULL. */
static char *text_of(const xmlNode *parent, const char *name)
{
	for (xmlNode *c = parent ? parent->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0) {
			xmlChar *t = xmlNodeGetContent(c);
			char *s = t ? strdup((const char *)t) : NULL;
			xmlFree(t);
			return s;
		}
	return NULL;
}

/* Append "property=value\n" for the element `name` of `parent`, when present. @return 0 or DNSB_ENOMEM */
static int take(char **routing, const xmlNode *parent, const char *name, const char *property)
{
	char *value = text_of(parent, name), *grown = NULL;
	int rc = 0;

	if (value != NULL && *value != '\0') {
		if (asprintf(&grown, "%s%s=%s\n", *routing ? *routing : "", property, value) < 0)
			rc = DNSB_ENOMEM;
		else {
			free(*routing);
			*routing = grown;
		}
	}
	free(value);
	return rc;
}

int dnsb_aws_routing_read(char **set_id, char **routing, const xmlNode *set)
{
	const xmlNode *geo = NULL;
	/* In DNSB_ROUTING_PROPERTIES order, so that the text compares equal to a plan's. */
	static const char *const order[DNSB_ROUTING_PROPERTY_COUNT] = DNSB_ROUTING_PROPERTIES;

	*set_id = text_of(set, "SetIdentifier");
	*routing = NULL;
	if (*set_id == NULL)
		return 0;
	for (xmlNode *c = set->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "GeoLocation") == 0)
			geo = c;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		int rc = 0;
		if (strcmp(order[k], "aws/health-check-id") == 0)
			rc = take(routing, set, "HealthCheckId", order[k]);
		for (size_t i = 0; rc == 0 && i < sizeof(fields) / sizeof(fields[0]); i++)
			if (strcmp(fields[i].property, order[k]) == 0)
				rc = take(routing, fields[i].geo ? geo : set, fields[i].element, order[k]);
		if (rc != 0)
			return rc;
	}
	return 0;
}
