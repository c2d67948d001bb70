/*
 * routing.c - Route53's routing policies in XML: a set's SetIdentifier and
 * routing elements written in the API model's order (SetIdentifier, Weight,
 * Region, GeoLocation, Failover, MultiValueAnswer before TTL; HealthCheckId
 * and GeoProximityLocation after AliasTarget) and read back into
 * dnsb_rrset.set_id and .routing, under external-dns's aws provider's names.
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

/* GeoProximityLocation's members, in the model's order (Coordinates holds "LATITUDE,LONGITUDE"). */
static const struct { const char *element, *property; } geoproximity[] = {
	{ "AWSRegion", "aws/geoproximity-region" },
	{ "LocalZoneGroup", "aws/geoproximity-local-zone-group" },
	{ "Coordinates", "aws/geoproximity-coordinates" },
	{ "Bias", "aws/geoproximity-bias" },
};

/* <Coordinates><Latitude/><Longitude/></Coordinates> from "LATITUDE,LONGITUDE". @return 0 or DNSB_ENOMEM */
static int put_coordinates(xmlNode *geo, const char *routing)
{
	size_t len;
	const char *v = dnsb_routing_get(routing, "aws/geoproximity-coordinates", &len);
	const char *comma = v ? memchr(v, ',', len) : NULL;
	char *lat, *lon;
	xmlNode *c;
	int rc = 0;

	if (comma == NULL)
		return 0;
	lat = strndup(v, (size_t)(comma - v));
	lon = strndup(comma + 1, len - (size_t)(comma - v) - 1);
	if (lat == NULL || lon == NULL || (c = xmlNewChild(geo, NULL, BAD_CAST "Coordinates", NULL)) == NULL ||
	    xmlNewTextChild(c, NULL, BAD_CAST "Latitude", BAD_CAST lat) == NULL ||
	    xmlNewTextChild(c, NULL, BAD_CAST "Longitude", BAD_CAST lon) == NULL)
		rc = DNSB_ENOMEM;
	free(lat);
	free(lon);
	return rc;
}

static int put_geoproximity(xmlNode *set, const char *routing)
{
	xmlNode *geo = NULL;
	size_t len;

	for (size_t i = 0; i < sizeof(geoproximity) / sizeof(geoproximity[0]); i++)
		if (dnsb_routing_get(routing, geoproximity[i].property, &len) != NULL && geo == NULL &&
		    (geo = xmlNewChild(set, NULL, BAD_CAST "GeoProximityLocation", NULL)) == NULL)
			return DNSB_ENOMEM;
	for (size_t i = 0; geo && i < sizeof(geoproximity) / sizeof(geoproximity[0]); i++)
		if ((strcmp(geoproximity[i].element, "Coordinates") == 0 ? put_coordinates(geo, routing) :
		     put(geo, geoproximity[i].element, routing, geoproximity[i].property)) != 0)
			return DNSB_ENOMEM;
	return 0;
}

int dnsb_aws_routing_tail(xmlNode *set, const dnsb_rrset *r)
{
	if (r->set_id == NULL || *r->set_id == '\0')
		return 0;
	if (put(set, "HealthCheckId", r->routing, "aws/health-check-id") != 0)
		return DNSB_ENOMEM;
	return put_geoproximity(set, r->routing);
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

/* The child element `name` of parent, or NULL. */
static const xmlNode *element_of(const xmlNode *parent, const char *name)
{
	for (const xmlNode *c = parent ? parent->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

/* Append "aws/geoproximity-coordinates=LAT,LON\n" from a listed Coordinates element. @return 0 or DNSB_ENOMEM */
static int take_coordinates(char **routing, const xmlNode *coordinates)
{
	char *lat = text_of(coordinates, "Latitude"), *lon = text_of(coordinates, "Longitude"), *grown = NULL;
	int rc = 0;

	if (lat && lon) {
		if (asprintf(&grown, "%saws/geoproximity-coordinates=%s,%s\n", *routing ? *routing : "", lat, lon) < 0)
			rc = DNSB_ENOMEM;
		else {
			free(*routing);
			*routing = grown;
		}
	}
	free(lat);
	free(lon);
	return rc;
}

/* One routing property of DNSB_ROUTING_PROPERTIES from a listed set. @return 0 or DNSB_ENOMEM */
static int take_property(char **routing, const xmlNode *set, const char *property)
{
	const xmlNode *geo = element_of(set, "GeoLocation"), *near = element_of(set, "GeoProximityLocation");

	if (strcmp(property, "aws/health-check-id") == 0)
		return take(routing, set, "HealthCheckId", property);
	if (strcmp(property, "aws/geoproximity-coordinates") == 0)
		return take_coordinates(routing, element_of(near, "Coordinates"));
	for (size_t i = 0; i < sizeof(geoproximity) / sizeof(geoproximity[0]); i++)
		if (strcmp(geoproximity[i].property, property) == 0)
			return take(routing, near, geoproximity[i].element, property);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strcmp(fields[i].property, property) == 0)
			return take(routing, fields[i].geo ? geo : set, fields[i].element, property);
	return 0;
}

int dnsb_aws_routing_read(char **set_id, char **routing, const xmlNode *set)
{
	/* In DNSB_ROUTING_PROPERTIES order, so that the text compares equal to a plan's. */
	static const char *const order[DNSB_ROUTING_PROPERTY_COUNT] = DNSB_ROUTING_PROPERTIES;

	*set_id = text_of(set, "SetIdentifier");
	*routing = NULL;
	if (*set_id == NULL)
		return 0;
	for (size_t k = 0; k < DNSB_ROUTING_SET_PROPERTY_COUNT; k++)
		if (take_property(routing, set, order[k]) != 0)
			return DNSB_ENOMEM;
	return 0;
}
