/*
 * read.c - the record sets a batch names, read in the fewest requests: one
 * GET per distinct (owner, type), side by side, when there are fewer of
 * them than the pages of the zone's listing (its record sets over a page's
 * size, both as last seen), else the listing with $top and nextLink. A GET
 * answered 404 NotFound is a record set that does not exist; any other 404
 * (the zone, the resource group) is the read's failure.
 */
#include <stdlib.h>
#include <string.h>

#include "providers/azure/internal.h"

static int key_cmp(const void *x, const void *y)
{
	const dnsb_rrkey *a = x, *b = y;
	int c = strcmp(a->owner, b->owner);

	return c ? c : (int)a->type - (int)b->type;
}

/* Can a record set of this type exist in this kind of zone? */
static int held_type(const dnsb_azure *a, uint16_t type)
{
	if (dnsb_azure_type_segment(type) == NULL)
		return 0;
	return !a->cfg.private_zones || (type != LDNS_RR_TYPE_NS && type != LDNS_RR_TYPE_CAA);
}

/* The distinct keys that can exist in this kind of zone, sorted. @return their count, or -1 (ANY asked: list) */
static long distinct(dnsb_rrkey *sorted, const dnsb_azure *a, const dnsb_rrkey *keys, size_t n)
{
	size_t k = 0, d = 0;

	for (size_t i = 0; i < n; i++) {
		if (keys[i].type == DNSB_RRKEY_ANY)
			return -1;
		if (held_type(a, keys[i].type))
			sorted[k++] = keys[i];
	}
	qsort(sorted, k, sizeof(*sorted), key_cmp);
	for (size_t i = 0; i < k; i++)
		if (d == 0 || key_cmp(&sorted[d - 1], &sorted[i]) != 0)
			sorted[d++] = sorted[i];
	return (long)d;
}

/* Pages the zone's listing is expected to take. */
static size_t listing_pages(const dnsb_azure *a, const dnsb_hb_zone *zone)
{
	size_t sets = __atomic_load_n(&a->zone_sets[zone - a->base.zones], __ATOMIC_RELAXED);
	size_t page = __atomic_load_n(&a->page_size, __ATOMIC_RELAXED);

	if (page == 0)
		page = DNSB_AZURE_PAGE_GUESS;
	return sets <= page ? 1 : (sets + page - 1) / page;
}

/* A 404 whose code is NotFound (either error shape): the record set does not exist (not the zone, not the group). */
static int not_found(const dnsb_http_response *resp)
{
	char code[64], msg[8];

	if (resp->status != 404)
		return 0;
	dnsb_azure_reply_fields(resp, code, sizeof(code), msg, sizeof(msg));
	return strcmp(code, "NotFound") == 0;
}

/* One GET's reply into out and tags. */
static int take_get(const dnsb_hb_zone *zone, const dnsb_azure_write *w, const dnsb_rrkey *keys, size_t n,
		    dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	const dnsb_http_response *resp = w->reply;
	json_object *doc = NULL;
	int rc;

	if (w->rc == 1 && w->res.cls != DNSB_CLASS_OK) /* not sent, and said why (the token) */
		return dnsb_error_set(err, dnsb_hb_class_code(w->res.cls), "read record set: %s", w->res.message);
	if (w->rc != 0 || resp->status == 0) {
		int code = w->rc < 0 ? w->rc : w->rc == 1 ? DNSB_ETRANSIENT : dnsb_hb_class_code(w->res.cls);
		dnsb_error_set(err, code, "read record set: %s", w->rc == 1 ? "not sent" : w->res.message);
		return code;
	}
	if (not_found(resp))
		return 0;
	if (resp->status != 200)
		return dnsb_azure_reply_error(resp, "read record set", err);
	if (dnsb_http_json(&doc, resp, NULL) != 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "read record set: a 200 that is not JSON");
	rc = dnsb_azure_rrset_parse(out, tags, doc, zone->apex, keys, n, err);
	json_object_put(doc);
	return rc == DNSB_EPARSE ? DNSB_ETRANSIENT : rc;
}

/* One GET per key, side by side. */
static int read_by_name(dnsb_azure *a, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
			dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	dnsb_azure_write *w = calloc(n ? n : 1, sizeof(*w));
	dnsb_http_response *replies = calloc(n ? n : 1, sizeof(*replies));
	int rc = w && replies ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *url = dnsb_azure_rrset_url(a, zone, keys[i].owner, keys[i].type);
		w[i] = (dnsb_azure_write){ "GET", url, NULL, NULL, &replies[i], 1, { 0 }, NULL };
		if (w[i].url == NULL)
			rc = DNSB_ENOMEM;
	}
	if (rc == DNSB_ENOMEM)
		dnsb_error_set(err, rc, "out of memory");
	else if ((rc = dnsb_azure_send(a, w, n, give_up, err)) == 0)
		__atomic_add_fetch(&a->gets, n, __ATOMIC_RELAXED);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = take_get(zone, &w[i], keys, n, out, tags, err);
	for (size_t i = 0; w && replies && i < n; i++) {
		dnsb_http_response_clear(&replies[i]);
		dnsb_azure_write_clear(&w[i]);
	}
	free(w);
	free(replies);
	return rc;
}

int dnsb_azure_read_keys(dnsb_azure *a, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
			 dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	dnsb_rrkey *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	long d;
	int rc;

	if (sorted == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	d = distinct(sorted, a, keys, n);
	if (d < 0 || (size_t)d >= listing_pages(a, zone))
		rc = dnsb_azure_list(a, zone, keys, n, give_up, out, tags, err);
	else
		rc = read_by_name(a, zone, sorted, (size_t)d, give_up, out, tags, err);
	free(sorted);
	return rc;
}
