/*
 * list.c - DigitalOcean's listings: the account's domains (the zones, at
 * open) and a domain's records, all of them or those of one name
 * (?name=FQDN, and &type= when one type is asked), page by page
 * (per_page=--digitalocean-api-page-size, links.pages.next). A next link
 * that leaves the endpoint is refused: the token goes nowhere else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "applier/core/clock.h"
#include "providers/digitalocean/digitalocean.h"

char *dnsb_do_url(const dnsb_do *d, const char *domain, const char *rest)
{
	char *name = dnsb_http_escape(domain), *url = NULL;

	if (name && asprintf(&url, "%s/domains/%s%s", d->cfg.endpoint, name, rest) < 0)
		url = NULL;
	free(name);
	return url;
}

/* The URL of the page after `token` (a next link, checked to stay on the endpoint) or the first, `first`. */
static int page_url(char **out, const dnsb_do *d, const char *token, const char *first, dnsb_error *err)
{
	size_t len = strlen(d->cfg.endpoint);

	if (token && (strncmp(token, d->cfg.endpoint, len) != 0 || (token[len] != '/' && token[len] != '?')))
		return dnsb_error_set(err, DNSB_ETRANSIENT, "a listing's next page leaves the API endpoint: not followed");
	*out = strdup(token ? token : first);
	return *out ? 0 : dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
}

/*
 * How far a listing's next links are followed: the pages the first page's meta.total announced at per_page, plus
 * DNSB_DO_PAGES_SLACK and a tenth for what is added meanwhile (DNSB_DO_PAGES_MAX without meta.total), and no page
 * past give_up (0: no limit). A server whose next links never end (hostile, or a bug) fails the listing transient.
 */
typedef struct walk {
	unsigned long pages, bound; /* pages read; at most this many (0 until the first page is read) */
	size_t per_page;
	double give_up;
	const char *what;
} walk;

/* After a page (doc) with a next link: may the walk go on? @return 0, or DNSB_ETRANSIENT (err says why) */
static int walk_on(walk *w, json_object *doc, dnsb_error *err)
{
	json_object *meta, *v;

	if (w->pages++ == 0) {
		w->bound = DNSB_DO_PAGES_MAX;
		if (json_object_object_get_ex(doc, "meta", &meta) && json_object_object_get_ex(meta, "total", &v) &&
		    json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0) {
			unsigned long want = (unsigned long)((json_object_get_int64(v) + (int64_t)w->per_page - 1) /
							     (int64_t)w->per_page);
			if (want < DNSB_DO_PAGES_MAX)
				w->bound = want + want / 10 + DNSB_DO_PAGES_SLACK;
		}
	}
	if (w->pages >= w->bound)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: the next links run past %lu pages (meta.total said fewer "
				      "at %zu a page): the listing is not followed further", w->what, w->bound, w->per_page);
	if (w->give_up > 0 && dnsb_monotonic() >= w->give_up)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: out of time after %lu pages: the listing is not complete",
				      w->what, w->pages);
	return 0;
}

/* ---- the domains ---- */

typedef struct domains {
	dnsb_do *d;
	char *first;
	walk w;
} domains;

static int take_domains(dnsb_do *d, json_object *doc, dnsb_error *err)
{
	json_object *list, *v;

	if (!json_object_object_get_ex(doc, "domains", &list) || !json_object_is_type(list, json_type_array))
		return dnsb_error_set(err, DNSB_ETRANSIENT, "GET /v2/domains: not a domain listing (no domains array)");
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *dom = json_object_array_get_idx(list, i);
		char *apex = NULL;
		if (!json_object_object_get_ex(dom, "name", &v) || !json_object_is_type(v, json_type_string) ||
		    dnsb_name_canonical(&apex, json_object_get_string(v), NULL) != 0)
			return dnsb_error_set(err, DNSB_ETRANSIENT, "GET /v2/domains: a domain without a name");
		if (dnsb_hb_zones_push(&d->base.zones, &d->base.zone_count, apex, json_object_get_string(v)) != 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return 0;
}

static int domains_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	domains *l = payload;
	json_object *doc = NULL;
	char *url;
	int rc;

	*next = NULL;
	if ((rc = page_url(&url, l->d, token, l->first, err)) != 0)
		return rc;
	if ((rc = dnsb_hb_get_json(&l->d->base, url, "GET /v2/domains", 0, &doc, NULL, err)) == 0 &&
	    (rc = take_domains(l->d, doc, err)) == 0) {
		json_object *links, *pages, *v;
		if (json_object_object_get_ex(doc, "links", &links) && json_object_object_get_ex(links, "pages", &pages) &&
		    json_object_object_get_ex(pages, "next", &v) && json_object_is_type(v, json_type_string) &&
		    (*next = strdup(json_object_get_string(v))) == NULL)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		if (rc == 0 && *next)
			rc = walk_on(&l->w, doc, err);
	}
	json_object_put(doc);
	free(url);
	return rc;
}

int dnsb_do_list_domains(dnsb_do *d, dnsb_error *err)
{
	domains l = { d, NULL, { 0, 0, d->cfg.page_size, 0, "GET /v2/domains" } };
	int rc;

	if (asprintf(&l.first, "%s/domains?per_page=%zu", d->cfg.endpoint, d->cfg.page_size) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_hb_pages("GET /v2/domains", DNSB_DO_PAGES_MAX, domains_page, &l, err);
	free(l.first);
	if (rc == 0 && d->base.zone_count == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL, "the token's account holds no domain (GET /v2/domains)");
	return rc;
}

/* ---- a domain's records ---- */

typedef struct listing {
	dnsb_do *d;
	const dnsb_hb_zone *zone;
	char *first;
	const dnsb_rrkey *keys;
	size_t n;
	double give_up;
	dnsb_rrset_list *out;
	dnsb_hb_tags *ids;
	walk w;
} listing;

static int records_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	listing *l = payload;
	json_object *doc = NULL;
	char *url;
	int rc;

	*next = NULL;
	if ((rc = page_url(&url, l->d, token, l->first, err)) != 0)
		return rc;
	if ((rc = dnsb_hb_get_json(&l->d->base, url, l->w.what, l->give_up, &doc, NULL, err)) == 0 &&
	    (rc = dnsb_do_records_parse(l->out, l->ids, doc, l->zone->apex, l->keys, l->n, next, err)) == DNSB_EPARSE)
		rc = DNSB_ETRANSIENT; /* a reply we cannot read: maybe not the API's */
	if (rc > 0) { /* records of a whole listing skipped (records.c warned of each) */
		__atomic_fetch_add(&l->d->skipped, (unsigned long)rc, __ATOMIC_RELAXED);
		rc = 0;
	}
	if (rc == 0 && *next && (rc = walk_on(&l->w, doc, err)) != 0) {
		free(*next);
		*next = NULL;
	}
	json_object_put(doc);
	free(url);
	return rc;
}

/* The records at `owner` (of `type` when not 0), or of the whole domain: a dnsb_hb_list_fn. */
static int list_records(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type, const dnsb_rrkey *keys,
			size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *ids, dnsb_error *err)
{
	dnsb_do *d = (dnsb_do *)b;
	char what[400], *query = NULL, *rest = NULL;
	listing l = { d, zone, NULL, keys, n, give_up, out, ids, { 0, 0, d->cfg.page_size, give_up, what } };
	int rc;

	snprintf(what, sizeof(what), "GET records of domain %s%s%s", zone->id, owner ? " at " : "", owner ? owner : "");
	if ((rc = dnsb_hb_owner_query(&query, owner, "name", type, "type", err)) != 0)
		return rc;
	if (asprintf(&rest, "/records?per_page=%zu%s", d->cfg.page_size, query) < 0)
		rest = NULL;
	l.first = rest ? dnsb_do_url(d, zone->id, rest) : NULL;
	free(rest);
	free(query);
	if (l.first == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_hb_pages(what, DNSB_DO_PAGES_MAX, records_page, &l, err);
	free(l.first);
	return rc;
}

int dnsb_do_read_ids(dnsb_do *d, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_hb_tags *ids, dnsb_error *err)
{
	const char *owners[DNSB_DO_READ_BY_NAME_MAX];

	/* Many names: the whole domain listed, kept to the keys as each page is read (records.c: a record of another
	 * RRset is not parsed, its data cannot fail the read) */
	if (n > 0 && dnsb_rrkeys_owners(keys, n, owners, DNSB_DO_READ_BY_NAME_MAX) > DNSB_DO_READ_BY_NAME_MAX)
		return list_records(&d->base, zone, NULL, 0, keys, n, give_up, out, ids, err);
	return dnsb_hb_read_by_owner(&d->base, zone, keys, n, DNSB_DO_READ_BY_NAME_MAX, list_records, give_up, out, ids,
				     err);
}
