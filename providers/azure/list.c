/*
 * list.c - the provider's listings, with $top and nextLink (followed on the
 * API's own endpoint only): the resource group's zones at open, a zone's
 * record sets (and their ETags) for a read; and the URL of one record set.
 * Its callers are azure.c (open, list) and read.c (a read that lists).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "providers/azure/internal.h"

/* The zone's name in URLs: the apex without its trailing dot. */
static const char *zone_name(const dnsb_hb_zone *zone)
{
	return zone->id;
}

char *dnsb_azure_rrset_url(const dnsb_azure *a, const dnsb_hb_zone *zone, const char *owner, uint16_t type)
{
	size_t alen = strlen(zone->apex), olen = strlen(owner);
	char *url = NULL, *rel, *esc;
	int rc;

	if (strcmp(owner, zone->apex) == 0)
		rel = strdup("@");
	else
		rel = olen > alen ? strndup(owner, olen - alen - 1) : strdup(owner);
	esc = rel ? dnsb_http_escape(rel) : NULL;
	rc = esc ? asprintf(&url, "%s/%s/%s/%s?api-version=%s", a->zones_url, zone_name(zone),
			    dnsb_azure_type_segment(type) ? dnsb_azure_type_segment(type) : "TYPE", esc, a->api_version)
		 : -1;
	free(rel);
	free(esc);
	return rc < 0 ? NULL : url;
}

/* ---- listings ---- */

typedef struct lister {
	dnsb_azure *a;
	const dnsb_hb_zone *zone;  /* NULL: the zones listing */
	const dnsb_rrkey *keys;
	size_t n;
	double give_up;
	dnsb_rrset_list *out;
	dnsb_hb_tags *tags;
	const char *first;  /* the first page's URL */
	size_t seen;        /* record sets listed */
} lister;

/* A nextLink is followed only on the API's own endpoint: the token goes nowhere else. */
static int next_link(char **next, json_object *doc, const dnsb_azure *a, dnsb_error *err)
{
	json_object *v;
	const char *link;

	*next = NULL;
	if (!json_object_object_get_ex(doc, "nextLink", &v) || !json_object_is_type(v, json_type_string))
		return 0;
	link = json_object_get_string(v);
	if (*link == '\0')
		return 0;
	if (strncmp(link, a->cfg.endpoint, strlen(a->cfg.endpoint)) != 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "a nextLink outside %s", a->cfg.endpoint);
	return (*next = strdup(link)) ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

static int take_zone(dnsb_azure *a, json_object *z, dnsb_error *err)
{
	json_object *name, *props, *count;
	size_t *sets;
	char *apex;
	dnsb_error e;

	if (!json_object_object_get_ex(z, "name", &name) || !json_object_is_type(name, json_type_string))
		return dnsb_error_set(err, DNSB_ETRANSIENT, "a zone without a name in the zones listing");
	if (dnsb_name_canonical(&apex, json_object_get_string(name), &e) != 0)
		return 0; /* not a name this library can hold */
	if ((sets = realloc(a->zone_sets, (a->base.zone_count + 1) * sizeof(*sets))) == NULL) {
		free(apex);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	a->zone_sets = sets;
	sets[a->base.zone_count] = json_object_object_get_ex(z, "properties", &props) &&
					   json_object_object_get_ex(props, "numberOfRecordSets", &count)
				   ? (size_t)json_object_get_int64(count)
				   : 0;
	if (dnsb_hb_zones_push(&a->base.zones, &a->base.zone_count, apex, json_object_get_string(name)) != 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	return 0;
}

static int page(void *payload, const char *token, char **next, dnsb_error *err)
{
	lister *l = payload;
	json_object *doc = NULL, *value;
	int rc;

	rc = dnsb_hb_get_json(&l->a->base, token ? token : l->first, l->zone ? "list record sets" : "list zones",
			      l->give_up, &doc, NULL, err);
	if (rc == 0 && (!json_object_object_get_ex(doc, "value", &value) || !json_object_is_type(value, json_type_array)))
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "a listing without \"value\"");
	for (size_t i = 0; rc == 0 && i < json_object_array_length(value); i++) {
		json_object *item = json_object_array_get_idx(value, i);
		rc = l->zone ? dnsb_azure_rrset_parse(l->out, l->tags, item, l->zone->apex, l->keys, l->n, err)
			     : take_zone(l->a, item, err);
		if (rc == DNSB_EPARSE)
			rc = DNSB_ETRANSIENT; /* err says which record set */
	}
	if (rc == 0)
		rc = next_link(next, doc, l->a, err);
	if (rc == 0 && l->zone) {
		size_t items = json_object_array_length(value);
		l->seen += items;
		__atomic_add_fetch(&l->a->pages, 1, __ATOMIC_RELAXED);
		if (*next && items > 0)
			__atomic_store_n(&l->a->page_size, items, __ATOMIC_RELAXED);
	}
	json_object_put(doc);
	return rc;
}

int dnsb_azure_list(dnsb_azure *a, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		    dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	lister l = { a, zone, keys, n, give_up, out, tags, NULL, 0 };
	char *url = NULL;
	int rc;

	if (asprintf(&url, "%s/%s/%s?api-version=%s&$top=%d", a->zones_url, zone_name(zone),
		     a->cfg.private_zones ? "ALL" : "recordsets", a->api_version, DNSB_AZURE_PAGE) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	l.first = url;
	rc = dnsb_hb_pages("list record sets", 100000, page, &l, err);
	free(url);
	if (rc == 0)
		__atomic_store_n(&a->zone_sets[zone - a->base.zones], l.seen, __ATOMIC_RELAXED);
	return rc;
}

/* The resource group's zones: a missing group, a refused token, a wrong subscription are fatal here; a transient
 * answer (5xx, 429 past its waits, a timeout) stays transient (apply: every change failed, exit 4). */
int dnsb_azure_list_zones(dnsb_azure *a, dnsb_error *err)
{
	lister l = { a, NULL, NULL, 0, dnsb_monotonic() + DNSB_AZURE_TIMEOUT, NULL, NULL, NULL, 0 };
	char *url = NULL;
	dnsb_error e = { 0, "" };
	int rc;

	if (asprintf(&url, "%s?api-version=%s", a->zones_url, a->api_version) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	l.first = url;
	rc = dnsb_hb_pages("list zones", 1000, page, &l, &e);
	free(url);
	if (rc != 0)
		return dnsb_error_set(err, rc == DNSB_ENOMEM || rc == DNSB_ETRANSIENT ? rc : DNSB_EFATAL,
				      "resource group %s of subscription %s: %s", a->cfg.resource_group, a->cfg.subscription,
				      e.message);
	if (a->base.zone_count == 0)
		return dnsb_error_set(err, DNSB_EFATAL, "resource group %s of subscription %s holds no %s", a->cfg.resource_group,
				      a->cfg.subscription, a->cfg.private_zones ? "private DNS zone" : "DNS zone");
	return 0;
}

