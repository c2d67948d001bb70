/*
 * read.c - the reads of Edge DNS: GET /zones/{zone}/recordsets, paginated
 * (page, pageSize; metadata.totalElements), narrowed to one owner name by
 * search= (which matches names and RDATA alike: the owner is kept exactly)
 * and to its type by types=; the zones from GET /zones (contractIds=).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/akamai/akamai.h"

typedef struct listing {
	dnsb_akamai *a;
	const dnsb_hb_zone *zone;
	char *query;               /* "&search=...&types=..." or "" */
	const char *owner;         /* keep only this owner, or NULL */
	const dnsb_rrkey *keys;
	size_t n;
	double give_up;
	dnsb_rrset_list *out;
	const char *what;
} listing;

static int records_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	listing *l = payload;
	long page = token ? strtol(token, NULL, 10) : 1;
	char *url = NULL, *base = dnsb_akamai_url(l->a, "/zones/%s/recordsets", l->zone->id);
	json_object *doc = NULL;
	int rc, more = 0;

	if (base == NULL || asprintf(&url, "%s?page=%ld&pageSize=%d&sortBy=name,type%s", base, page, DNSB_AKAMAI_PAGE_SIZE,
				     l->query) < 0)
		url = NULL;
	free(base);
	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_hb_get_json(&l->a->base, url, l->what, l->give_up, &doc, NULL, err)) == 0 &&
	    (rc = dnsb_akamai_recordsets_parse(l->out, doc, l->keys, l->n, l->owner, &more, err)) == DNSB_EPARSE)
		rc = DNSB_ETRANSIENT; /* a reply we cannot read: maybe not the API's */
	if (rc == 0 && more && asprintf(next, "%ld", page + 1) < 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	json_object_put(doc);
	free(url);
	return rc;
}

/* The record sets at `owner` (of `type` when not 0), or of the whole zone: a dnsb_hb_list_fn. */
static int list_records(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type, const dnsb_rrkey *keys,
			size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	char what[400];
	listing l = { (dnsb_akamai *)b, zone, NULL, owner, keys, n, give_up, out, what };
	int rc;

	(void)tags;
	snprintf(what, sizeof(what), "GET recordsets of zone %s%s%s", zone->apex, owner ? " at " : "", owner ? owner : "");
	if ((rc = dnsb_hb_owner_query(&l.query, owner, "search", type, "types", err)) != 0)
		return rc;
	rc = dnsb_hb_pages(what, DNSB_AKAMAI_PAGES_MAX, records_page, &l, err);
	free(l.query);
	return rc;
}

int dnsb_akamai_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_hb_read_by_owner(b, zone, keys, n, DNSB_AKAMAI_READ_BY_NAME_MAX, list_records, give_up, out, NULL,
				     err);
}

typedef struct zone_listing {
	dnsb_akamai *a;
	dnsb_hb_zone *zones;
	size_t count;
} zone_listing;

static int zones_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	zone_listing *z = payload;
	dnsb_akamai *a = z->a;
	long page = token ? strtol(token, NULL, 10) : 1;
	char *url = NULL, *base = dnsb_akamai_url(a, "/zones"), *contracts = NULL;
	json_object *doc = NULL;
	int rc, more = 0;

	if (a->cfg.contract_ids && (contracts = dnsb_http_escape(a->cfg.contract_ids)) == NULL)
		base = (free(base), NULL);
	if (base == NULL || asprintf(&url, "%s?page=%ld&pageSize=%d%s%s", base, page, DNSB_AKAMAI_PAGE_SIZE,
				     contracts ? "&contractIds=" : "", contracts ? contracts : "") < 0)
		url = NULL;
	free(base);
	free(contracts);
	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_hb_get_json(&a->base, url, "GET zones", dnsb_monotonic() + DNSB_AKAMAI_TIMEOUT, &doc, NULL, err)) == 0)
		rc = dnsb_akamai_zones_parse(&z->zones, &z->count, doc, &more, err);
	if (rc == 0 && more && asprintf(next, "%ld", page + 1) < 0)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	json_object_put(doc);
	free(url);
	return rc;
}

int dnsb_akamai_zones(dnsb_akamai *a, dnsb_error *err)
{
	zone_listing z = { a, NULL, 0 };
	dnsb_error e = { 0, "" };
	int rc;

	if (a->cfg.zone_count > 0) {
		dnsb_hb_zones_take(&a->base, &a->cfg.zones, &a->cfg.zone_count);
		return 0;
	}
	rc = dnsb_hb_pages("GET zones", DNSB_AKAMAI_PAGES_MAX, zones_page, &z, &e);
	if (rc == 0) {
		a->base.zones = z.zones;
		a->base.zone_count = z.count;
		z.zones = NULL;
	}
	dnsb_hb_zones_free(z.zones, z.count);
	if (rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "listing the zones at %s failed (retry later): %s", a->cfg.endpoint,
				      e.message);
	if (rc != 0)
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_EINVAL, "%s (or give the zones with --akamai-zone)",
				      e.message);
	if (a->base.zone_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "GET zones at %s lists no primary or secondary zone%s%s",
				      a->cfg.endpoint, a->cfg.contract_ids ? " of contract " : "",
				      a->cfg.contract_ids ? a->cfg.contract_ids : "");
	return 0;
}
