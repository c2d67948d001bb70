/*
 * api.c - Cloud DNS calls: every request authorised (a 401 refreshes the
 * token once), rrsets.list and managedZones.list followed page by page,
 * projects.get for the per-change quotas.
 */
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/google/google.h"

/* One request with the given Authorization line. */
static int send_once(dnsb_hb *b, const char *method, const char *url, const char *body, const char *auth,
		     double give_up, dnsb_http_response *out, dnsb_error *err)
{
	const char *headers[] = { auth, "Content-Type: application/json", "Accept: application/json", NULL };

	return dnsb_hb_send(b, method, url, headers, body, NULL, give_up, out, err);
}

int dnsb_google_call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		     dnsb_http_response *out, dnsb_error *err)
{
	dnsb_google *g = (dnsb_google *)b;
	char *auth = NULL, *refused;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dnsb_google_auth_header(&auth, &g->auth, b->http, NULL, give_up, err)) != 0)
		return rc;
	rc = send_once(b, method, url, body, auth, give_up, out, err);
	if (rc == 0 && out->status == 401) {
		/* Expired early or revoked: one new token, one more try; a second 401 is the answer. */
		dnsb_log(DNSB_LOG_INFO, "google: %s %s: HTTP 401, fetching a new access token from %s", method, url,
			 g->auth.source);
		dnsb_http_response_clear(out);
		refused = auth;
		auth = NULL;
		rc = dnsb_google_auth_header(&auth, &g->auth, b->http, refused, give_up, err);
		dnsb_secret_free(refused);
		if (rc == 0)
			rc = send_once(b, method, url, body, auth, give_up, out, err);
	}
	dnsb_secret_free(auth);
	return rc;
}

static char *rrsets_url(const dnsb_google *g, const char *zone, const char *name, uint16_t type, const char *page)
{
	const char *ep = g->cfg.endpoint, *p = g->cfg.project;
	char size[16], *base, *url = NULL;

	snprintf(size, sizeof(size), "%d", DNSB_GOOGLE_PAGE_SIZE);
	if (name && type)
		base = dnsb_google_url(ep, "projects/%s/managedZones/%s/rrsets?maxResults=%s&name=%s&type=%s", p, zone,
				       size, name, dnsb_type_name(type));
	else if (name)
		base = dnsb_google_url(ep, "projects/%s/managedZones/%s/rrsets?maxResults=%s&name=%s", p, zone, size,
				       name);
	else
		base = dnsb_google_url(ep, "projects/%s/managedZones/%s/rrsets?maxResults=%s", p, zone, size);
	if (base == NULL || page == NULL)
		return base;
	url = dnsb_google_url(base, "&pageToken=%s", page);
	free(base);
	return url;
}

/* One listing in progress (the payload of its pages): rrsets.list, or managedZones.list (g, what, give_up). */
typedef struct listing {
	dnsb_google *g;
	const char *zone, *owner, *what;
	uint16_t type;
	const dnsb_rrkey *keys;
	size_t n;
	double give_up;
	dnsb_rrset_list *out;
} listing;

static int rrsets_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	listing *l = payload;
	char *url = rrsets_url(l->g, l->zone, l->owner, l->type, token);
	json_object *doc = NULL;
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_hb_get_json(&l->g->base, url, l->what, l->give_up, &doc, NULL, err)) == 0)
		rc = dnsb_google_rrsets_parse(l->out, doc, l->keys, l->n, next, err);
	if (rc == DNSB_EPARSE)
		rc = DNSB_ETRANSIENT; /* a reply we cannot read: maybe not the API's */
	json_object_put(doc);
	free(url);
	return rc;
}

int dnsb_google_rrsets_list(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type,
			    const dnsb_rrkey *keys, size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *tags,
			    dnsb_error *err)
{
	char what[384];
	listing l = { (dnsb_google *)b, zone->id, owner, what, type, keys, n, give_up, out };

	(void)tags;
	snprintf(what, sizeof(what), "rrsets.list %s%s%s", zone->id, owner ? " " : "", owner ? owner : "");
	return dnsb_hb_pages(what, DNSB_GOOGLE_PAGES_MAX, rrsets_page, &l, err);
}

/* One managed zone of a managedZones.list page into the zones (a second zone for a DNS name is skipped). */
static int take_zone(dnsb_google *g, json_object *z)
{
	json_object *name, *dns;
	const dnsb_hb_zone *known;
	char *apex;

	if (!json_object_object_get_ex(z, "name", &name) || !json_object_object_get_ex(z, "dnsName", &dns) ||
	    !json_object_is_type(name, json_type_string) || !json_object_is_type(dns, json_type_string) ||
	    dnsb_name_canonical(&apex, json_object_get_string(dns), NULL) != 0)
		return DNSB_EPARSE;
	if ((known = dnsb_hb_zone_find(&g->base, apex)) != NULL) {
		dnsb_log(DNSB_LOG_WARN,
			 "google: managed zones %s and %s both serve %s (public and private?): using %s; choose with --google-zone",
			 known->id, json_object_get_string(name), apex, known->id);
		free(apex);
		return 0;
	}
	return dnsb_hb_zones_push(&g->base.zones, &g->base.zone_count, apex, json_object_get_string(name));
}

int dnsb_google_zones_page(dnsb_google *g, json_object *doc, char **next)
{
	json_object *list, *more;
	int rc = 0;

	*next = NULL;
	if (!json_object_is_type(doc, json_type_object))
		return DNSB_EPARSE;
	if (json_object_object_get_ex(doc, "managedZones", &list)) {
		if (!json_object_is_type(list, json_type_array))
			return DNSB_EPARSE;
		for (size_t i = 0; rc == 0 && i < json_object_array_length(list); i++)
			rc = take_zone(g, json_object_array_get_idx(list, i));
	}
	if (rc == 0 && json_object_object_get_ex(doc, "nextPageToken", &more) &&
	    json_object_is_type(more, json_type_string) && json_object_get_string_len(more) > 0 &&
	    (*next = strdup(json_object_get_string(more))) == NULL)
		rc = DNSB_ENOMEM;
	return rc;
}

static int zones_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	const listing *l = payload;
	dnsb_google *g = l->g;
	char *url = token ? dnsb_google_url(g->cfg.endpoint, "projects/%s/managedZones?maxResults=1000&pageToken=%s",
					    g->cfg.project, token) :
			    dnsb_google_url(g->cfg.endpoint, "projects/%s/managedZones?maxResults=1000", g->cfg.project);
	json_object *doc = NULL;
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_hb_get_json(&g->base, url, l->what, l->give_up, &doc, NULL, err);
	free(url);
	if (rc == 0)
		rc = dnsb_google_zones_page(g, doc, next);
	json_object_put(doc);
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: not a managedZones.list reply", l->what);
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory") : rc;
}

int dnsb_google_zones_list(dnsb_google *g, double give_up, dnsb_error *err)
{
	char what[200];
	listing l = { g, NULL, NULL, what, 0, NULL, 0, give_up, NULL };

	snprintf(what, sizeof(what), "managedZones.list of project %.100s", g->cfg.project);
	return dnsb_hb_pages(what, DNSB_GOOGLE_PAGES_MAX, zones_page, &l, err);
}

/* A positive whole quota field, or 0. */
static size_t quota_field(json_object *quota, const char *name)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(quota, name, &v) ||
	    (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_string)))
		return 0;
	n = json_object_get_int64(v); /* an int64 field may come as a string */
	return n > 0 ? (size_t)n : 0;
}

int dnsb_google_quota(dnsb_google *g, double give_up, dnsb_provider_limits *limits, long *status, dnsb_error *err)
{
	char *url = dnsb_google_url(g->cfg.endpoint, "projects/%s", g->cfg.project), what[160];
	json_object *doc = NULL, *quota;
	size_t v;
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	snprintf(what, sizeof(what), "projects.get %.100s", g->cfg.project);
	rc = dnsb_hb_get_json(&g->base, url, what, give_up, &doc, status, err);
	free(url);
	if (rc != 0)
		return rc;
	if (!json_object_object_get_ex(doc, "quota", &quota) || !json_object_is_type(quota, json_type_object)) {
		json_object_put(doc);
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s: the reply has no quota", what);
	}
	if ((v = quota_field(quota, "rrsetAdditionsPerChange")) > 0)
		limits->max_additions = v;
	if ((v = quota_field(quota, "rrsetDeletionsPerChange")) > 0)
		limits->max_deletions = v;
	if ((v = quota_field(quota, "totalRrdataSizePerChange")) > 0)
		limits->max_rdata_bytes = v;
	json_object_put(doc);
	return 0;
}
