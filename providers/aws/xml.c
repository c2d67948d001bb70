/*
 * xml.c - Route53's XML through libxml2: the ChangeResourceRecordSets body
 * (elements in the order the API model requires, aliases as AliasTarget),
 * ListResourceRecordSets pages (aliases included) and ListHostedZones pages,
 * and Route53's \ooo escapes in names.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "dnsbatch/sys/log.h"
#include "providers/aws/aws.h"

/* ---- reading ---- */

static xmlDocPtr parse(const char *xml, size_t len)
{
	if (xml == NULL || len == 0 || len > (size_t)0x7fffffff)
		return NULL;
	return xmlReadMemory(xml, (int)len, "reply.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR |
								      XML_PARSE_NOWARNING);
}

static int named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The first child element of `parent` named `name`, or NULL. */
static xmlNode *child(const xmlNode *parent, const char *name)
{
	for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
		if (named(n, name))
			return n;
	return NULL;
}

/* The text of a child element (malloc'd), or NULL. */
static char *child_text(const xmlNode *parent, const char *name)
{
	xmlNode *c = child(parent, name);
	xmlChar *t;
	char *s;

	if (c == NULL || (t = xmlNodeGetContent(c)) == NULL)
		return NULL;
	s = strdup((const char *)t);
	xmlFree(t);
	return s;
}

static xmlNode *find(xmlNode *n, const char *name)
{
	for (; n; n = n->next) {
		xmlNode *hit;
		if (named(n, name))
			return n;
		if ((hit = find(n->children, name)) != NULL)
			return hit;
	}
	return NULL;
}

char *dnsb_aws_xml_find(const char *xml, size_t len, const char *name)
{
	xmlDocPtr doc = parse(xml, len);
	xmlNode *n = doc ? find(xmlDocGetRootElement(doc), name) : NULL;
	xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
	char *s = t ? strdup((const char *)t) : NULL;

	xmlFree(t);
	xmlFreeDoc(doc);
	return s;
}

char *dnsb_aws_name_decode(const char *name)
{
	char *plain = malloc(strlen(name) + 1), *out = NULL;
	size_t k = 0;

	if (plain == NULL)
		return NULL;
	for (const char *p = name; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
		    p[3] <= '7') {
			plain[k++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			plain[k++] = *p;
		}
	}
	plain[k] = '\0';
	if (dnsb_name_canonical(&out, plain, NULL) != 0)
		out = NULL;
	free(plain);
	return out;
}

/*
 * An AliasTarget as an alias RRset: Route53 gives it no TTL (external-dns
 * lists it with 300) and may spell DNSName in any case, with or without the
 * trailing dot. @return 0, 1 skipped, or DNSB_ENOMEM
 */
static int add_alias(dnsb_rrset_list *out, const char *owner, uint16_t type, const xmlNode *target)
{
	char *dns = child_text(target, "DNSName"), *health = child_text(target, "EvaluateTargetHealth");
	char *name = dns ? dnsb_aws_name_decode(dns) : NULL;
	dnsb_rrset r = { 0 };
	int rc = 1;

	if (name == NULL || (type != LDNS_RR_TYPE_A && type != LDNS_RR_TYPE_AAAA)) {
		dnsb_log(DNSB_LOG_DEBUG, "aws: skipped an alias dnsbatch cannot hold: %s %s", owner, dnsb_type_name(type));
	} else {
		r.type = type;
		r.ttl = DNSB_TTL_DEFAULT;
		r.alias = health && strcmp(health, "true") == 0 ? DNSB_ALIAS_HEALTH : DNSB_ALIAS_PLAIN;
		rc = (r.owner = strdup(owner)) == NULL || dnsb_rrset_add_rdata(&r, name) != 0 ||
				     dnsb_rrset_list_push(out, &r) != 0 ?
			     DNSB_ENOMEM :
			     0;
		dnsb_rrset_clear(&r);
	}
	free(dns);
	free(health);
	free(name);
	return rc;
}

/* The ResourceRecords of a set, record by record. @return 0 or DNSB_ENOMEM */
static int add_records(dnsb_rrset_list *out, const char *owner, const char *ttl, const char *type,
		       const xmlNode *records)
{
	int rc = 0;

	for (xmlNode *r = records ? records->children : NULL; rc >= 0 && r; r = r->next) {
		char *value = named(r, "ResourceRecord") ? child_text(r, "Value") : NULL;
		if (value && (rc = dnsb_rrset_list_add_text(out, owner, ttl ? strtoll(ttl, NULL, 10) : 0, type, value)) == 1)
			dnsb_log(DNSB_LOG_DEBUG, "aws: skipped a record ldns cannot read: %s %s", owner, type);
		free(value);
	}
	return rc < 0 ? rc : 0;
}

/*
 * The set (records or alias) read into `one`, then moved to `out` with its set identifier and routing
 * properties: records of sets that differ only by SetIdentifier must not merge. @return 0 or DNSB_ENOMEM
 */
static int add_set(dnsb_rrset_list *out, const xmlNode *set, const char *owner, uint16_t code, const char *ttl,
		   const char *type)
{
	xmlNode *target = child(set, "AliasTarget");
	dnsb_rrset_list one = { 0 };
	char *set_id = NULL, *routing = NULL;
	int rc = target ? add_alias(&one, owner, code, target) :
			  add_records(&one, owner, ttl, type, child(set, "ResourceRecords"));

	if (rc >= 0 && (rc = dnsb_aws_routing_read(&set_id, &routing, set)) == 0 && one.count == 1) {
		one.items[0].set_id = set_id;
		one.items[0].routing = routing;
		set_id = routing = NULL;
		rc = dnsb_rrset_list_push(out, &one.items[0]);
	}
	free(set_id);
	free(routing);
	dnsb_rrset_list_clear(&one);
	return rc;
}

/* One ResourceRecordSet element into the list when wanted. */
static int add_rrset(dnsb_rrset_list *out, const xmlNode *set, const char *only, const dnsb_rrkey *keys, size_t n,
		     int *past)
{
	char *name = child_text(set, "Name"), *type = child_text(set, "Type"), *ttl = child_text(set, "TTL");
	char *owner = name ? dnsb_aws_name_decode(name) : NULL;
	uint16_t code = type ? (uint16_t)ldns_get_rr_type_by_name(type) : 0;
	int rc = 0;

	if (name == NULL || type == NULL)
		rc = DNSB_EPARSE;
	else if (owner && only && strcmp(owner, only) != 0)
		*past = 1;
	else if (owner && code && dnsb_rrkeys_want(keys, n, owner, code))
		rc = add_set(out, set, owner, code, ttl, type);
	free(name);
	free(type);
	free(ttl);
	free(owner);
	return rc < 0 ? rc : 0;
}

int dnsb_aws_rrsets_parse(dnsb_rrset_list *out, const char *xml, size_t len, const char *owner, const dnsb_rrkey *keys,
			  size_t n, char **next_name, char **next_type, char **next_id, int *past, dnsb_error *err)
{
	xmlDocPtr doc = parse(xml, len);
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL, *sets = child(root, "ResourceRecordSets");
	char *truncated = NULL;
	int rc = 0;

	*next_name = *next_type = *next_id = NULL;
	*past = 0;
	if (root == NULL || !named(root, "ListResourceRecordSetsResponse")) {
		xmlFreeDoc(doc);
		return dnsb_error_set(err, DNSB_EPARSE, "ListResourceRecordSets: the reply is not a ListResourceRecordSetsResponse");
	}
	for (xmlNode *s = sets ? sets->children : NULL; rc == 0 && s && !*past; s = s->next)
		if (named(s, "ResourceRecordSet"))
			rc = add_rrset(out, s, owner, keys, n, past);
	truncated = child_text(root, "IsTruncated");
	if (rc == 0 && !*past && truncated && strcmp(truncated, "true") == 0) {
		*next_name = child_text(root, "NextRecordName");
		*next_type = child_text(root, "NextRecordType");
		*next_id = child_text(root, "NextRecordIdentifier");
		if (*next_name == NULL)
			rc = DNSB_EPARSE;
	}
	free(truncated);
	xmlFreeDoc(doc);
	if (rc != 0) {
		free(*next_name);
		free(*next_type);
		free(*next_id);
		*next_name = *next_type = *next_id = NULL;
		return dnsb_error_set(err, rc, rc == DNSB_EPARSE ? "ListResourceRecordSets: a record set without name or "
								  "type, or a truncated page without NextRecordName" :
								  "out of memory");
	}
	return 0;
}

int dnsb_aws_zones_parse(dnsb_aws_zone **zones, size_t *count, const char *xml, size_t len, dnsb_aws_zone_type type,
			 char **marker, dnsb_error *err)
{
	xmlDocPtr doc = parse(xml, len);
	xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL, *list = child(root, "HostedZones");
	char *truncated;
	int rc = 0;

	*marker = NULL;
	if (root == NULL || !named(root, "ListHostedZonesResponse")) {
		xmlFreeDoc(doc);
		return dnsb_error_set(err, DNSB_EPARSE, "ListHostedZones: the reply is not a ListHostedZonesResponse");
	}
	for (xmlNode *z = list ? list->children : NULL; rc == 0 && z; z = z->next) {
		char *id, *name, *priv;
		int is_private;
		if (!named(z, "HostedZone"))
			continue;
		id = child_text(z, "Id");
		name = child_text(z, "Name");
		priv = child_text(child(z, "Config"), "PrivateZone");
		is_private = priv && strcmp(priv, "true") == 0;
		free(priv);
		if (id && name && (type == DNSB_AWS_ZONES_ANY || (type == DNSB_AWS_ZONES_PRIVATE) == is_private)) {
			const char *bare = strncmp(id, "/hostedzone/", 12) == 0 ? id + 12 : id;
			char *apex = dnsb_aws_name_decode(name);
			if (apex == NULL || dnsb_hb_zones_push(zones, count, apex, bare) != 0)
				rc = DNSB_ENOMEM;
		}
		free(id);
		free(name);
	}
	truncated = child_text(root, "IsTruncated");
	if (rc == 0 && truncated && strcmp(truncated, "true") == 0 && (*marker = child_text(root, "NextMarker")) == NULL)
		rc = DNSB_EPARSE;
	free(truncated);
	xmlFreeDoc(doc);
	if (rc != 0)
		return dnsb_error_set(err, rc, rc == DNSB_EPARSE ? "ListHostedZones: a truncated page without NextMarker" :
								  "out of memory");
	return 0;
}

/* ---- the ChangeResourceRecordSets body ---- */

void dnsb_aws_body_clear(dnsb_aws_body *b)
{
	if (b == NULL)
		return;
	free(b->xml);
	free(b->origin);
	memset(b, 0, sizeof(*b));
}

/* <TTL/><ResourceRecords><ResourceRecord><Value/>... */
static int add_values(xmlNode *set, const dnsb_rrset *r, uint32_t ttl, size_t *records)
{
	xmlNode *list;
	char num[16];

	snprintf(num, sizeof(num), "%u", ttl);
	if (xmlNewTextChild(set, NULL, BAD_CAST "TTL", BAD_CAST num) == NULL ||
	    (list = xmlNewChild(set, NULL, BAD_CAST "ResourceRecords", NULL)) == NULL)
		return DNSB_ENOMEM;
	for (size_t i = 0; i < r->rdata_count; i++) {
		xmlNode *rec = xmlNewChild(list, NULL, BAD_CAST "ResourceRecord", NULL);
		if (rec == NULL || xmlNewTextChild(rec, NULL, BAD_CAST "Value", BAD_CAST r->rdata[i]) == NULL)
			return DNSB_ENOMEM;
		(*records)++;
	}
	return 0;
}

/* <AliasTarget><HostedZoneId/><DNSName/><EvaluateTargetHealth/>: an alias has no TTL and no records. */
static int add_alias_target(xmlNode *set, const dnsb_rrset *r, const char *zone_id)
{
	xmlNode *target = xmlNewChild(set, NULL, BAD_CAST "AliasTarget", NULL);

	if (target == NULL || xmlNewTextChild(target, NULL, BAD_CAST "HostedZoneId", BAD_CAST zone_id) == NULL ||
	    xmlNewTextChild(target, NULL, BAD_CAST "DNSName", BAD_CAST r->rdata[0]) == NULL ||
	    xmlNewTextChild(target, NULL, BAD_CAST "EvaluateTargetHealth",
			    BAD_CAST(r->alias == DNSB_ALIAS_HEALTH ? "true" : "false")) == NULL)
		return DNSB_ENOMEM;
	return 0;
}

/*
 * <Change><Action/><ResourceRecordSet><Name/><Type/>, a routing policy's <SetIdentifier/>..., then
 * <TTL/><ResourceRecords/> or, for an alias, <AliasTarget/>, then <HealthCheckId/>: the model's order.
 */
static int add_change(xmlNode *changes, const char *action, const dnsb_rrset *r, uint32_t ttl,
		      const dnsb_aws_targets *targets, size_t *records)
{
	xmlNode *change, *set;
	const char *zone_id = NULL;

	if (r->alias != DNSB_ALIAS_NONE &&
	    (r->rdata_count != 1 || targets == NULL ||
	     (zone_id = dnsb_aws_alias_zone(r->rdata[0], targets->zones, targets->count, targets->current)) == NULL))
		return DNSB_EINVAL;
	if ((change = xmlNewChild(changes, NULL, BAD_CAST "Change", NULL)) == NULL ||
	    xmlNewTextChild(change, NULL, BAD_CAST "Action", BAD_CAST action) == NULL ||
	    (set = xmlNewChild(change, NULL, BAD_CAST "ResourceRecordSet", NULL)) == NULL ||
	    xmlNewTextChild(set, NULL, BAD_CAST "Name", BAD_CAST r->owner) == NULL ||
	    xmlNewTextChild(set, NULL, BAD_CAST "Type", BAD_CAST dnsb_type_name(r->type)) == NULL ||
	    dnsb_aws_routing_head(set, r) != 0 ||
	    (zone_id ? add_alias_target(set, r, zone_id) : add_values(set, r, ttl, records)) != 0 ||
	    dnsb_aws_routing_tail(set, r) != 0)
		return DNSB_ENOMEM;
	return 0;
}

int dnsb_aws_body_build(dnsb_aws_body *out, dnsb_change *const *changes, size_t n, const dnsb_rrset_list *held,
			const dnsb_aws_targets *targets, dnsb_error *err)
{
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNode *root = doc ? xmlNewNode(NULL, BAD_CAST "ChangeResourceRecordSetsRequest") : NULL, *batch, *list = NULL;
	xmlChar *text = NULL;
	int len = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	out->origin = malloc((2 * n + 1) * sizeof(size_t));
	if (root == NULL || out->origin == NULL || xmlNewNs(root, BAD_CAST DNSB_AWS_XMLNS, NULL) == NULL)
		rc = DNSB_ENOMEM;
	if (rc == 0) {
		xmlSetNs(root, root->nsDef);
		xmlDocSetRootElement(doc, root);
		root = NULL;
		if ((batch = xmlNewChild(xmlDocGetRootElement(doc), NULL, BAD_CAST "ChangeBatch", NULL)) == NULL ||
		    (list = xmlNewChild(batch, NULL, BAD_CAST "Changes", NULL)) == NULL)
			rc = DNSB_ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const dnsb_change *c = changes[i];
		/* An update is DELETE old + CREATE new in one atomic batch: never UPSERT, which overwrites whatever is held. */
		if (c->kind != DNSB_CHANGE_CREATE && (rc = add_change(list, "DELETE", &c->old, dnsb_old_ttl(&c->old, held),
								      targets, &out->records)) == 0)
			out->origin[out->count++] = i;
		if (rc == 0 && c->kind != DNSB_CHANGE_DELETE &&
		    (rc = add_change(list, "CREATE", &c->new_set, c->new_set.ttl, targets, &out->records)) == 0)
			out->origin[out->count++] = i;
	}
	if (rc == 0) {
		xmlDocDumpMemoryEnc(doc, &text, &len, "UTF-8");
		if (text == NULL || (out->xml = strndup((const char *)text, (size_t)len)) == NULL)
			rc = DNSB_ENOMEM;
		out->xml_len = (size_t)len;
	}
	xmlFree(text);
	xmlFreeNode(root);
	xmlFreeDoc(doc);
	if (rc != 0) {
		dnsb_aws_body_clear(out);
		if (rc == DNSB_EINVAL)
			return dnsb_error_set(err, rc, "an alias of the batch lies in no hosted zone dnsbatch knows");
		return dnsb_error_set(err, rc, "out of memory building a change batch of %zu changes", n);
	}
	return 0;
}
