/*
 * api.c - Cloud DNS calls: every request authorised (a 401 refreshes the
 * token once), rrsets.list and managedZones.list followed page by page,
 * projects.get for the per-change quotas.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "providers/google/google.h"

/* One request with the given Authorization line. */
static int send_once(dnsb_google *g, const char *method, const char *url, const char *body, const char *auth,
		     double give_up, dnsb_http_response *out, dnsb_error *err)
{
	const char *headers[] = { auth, "Content-Type: application/json", "Accept: application/json", NULL };
	dnsb_http_request req = { method, url, headers, body, body ? strlen(body) : 0, 0 };

	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	return dnsb_http_do(g->http, &req, out, err);
}

int dnsb_google_call(dnsb_google *g, const char *method, const char *url, const char *body, double give_up,
		     dnsb_http_response *out, dnsb_error *err)
{
	char *auth = NULL, *refused;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = dnsb_google_auth_header(&auth, &g->auth, g->http, NULL, give_up, err)) != 0)
		return rc;
	rc = send_once(g, method, url, body, auth, give_up, out, err);
	if (rc == 0 && out->status == 401) {
		/* Expired early or revoked: one new token, one more try; a second 401 is the answer. */
		dnsb_log(DNSB_LOG_INFO, "google: %s %s: HTTP 401, fetching a new access token from %s", method, url,
			 g->auth.source);
		dnsb_http_response_clear(out);
		refused = auth;
		auth = NULL;
		rc = dnsb_google_auth_header(&auth, &g->auth, g->http, refused, give_up, err);
		dnsb_secret_free(refused);
		if (rc == 0)
			rc = send_once(g, method, url, body, auth, give_up, out, err);
	}
	dnsb_secret_free(auth);
	return rc;
}

/* GET a JSON document; non-200 answers become codes through dnsb_google_reply_error. */
static int get_json(dnsb_google *g, const char *url, const char *what, double give_up, json_object **doc,
		    long *status, dnsb_error *err)
{
	dnsb_http_response resp;
	dnsb_error e;
	int rc;

	*doc = NULL;
	*status = 0;
	if ((rc = dnsb_google_call(g, "GET", url, NULL, give_up, &resp, err)) != 0)
		return rc;
	*status = resp.status;
	if (resp.status != 200)
		rc = dnsb_google_reply_error(&resp, what, err);
	else if ((rc = dnsb_http_json(doc, &resp, &e)) != 0)
		rc = dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_ETRANSIENT, "%s: %s", what, e.message);
	dnsb_http_response_clear(&resp);
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

int dnsb_google_rrsets_list(dnsb_google *g, const char *zone_name, const char *name, uint16_t type,
			    const dnsb_rrkey *keys, size_t n, double give_up, dnsb_rrset_list *out, dnsb_error *err)
{
	char *page = NULL, *url, what[384];
	unsigned long pages = 0;
	long status;
	int rc = 0;

	snprintf(what, sizeof(what), "rrsets.list %s%s%s", zone_name, name ? " " : "", name ? name : "");
	do {
		json_object *doc = NULL;
		char *next = NULL;

		if ((url = rrsets_url(g, zone_name, name, type, page)) == NULL)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		if (rc == 0 && (rc = get_json(g, url, what, give_up, &doc, &status, err)) == 0)
			rc = dnsb_google_rrsets_parse(out, doc, keys, n, &next, err);
		if (rc == DNSB_EPARSE)
			rc = DNSB_ETRANSIENT; /* a reply we cannot read: maybe not the API's */
		json_object_put(doc);
		free(url);
		free(page);
		page = next;
		if (rc == 0 && page && ++pages >= DNSB_GOOGLE_PAGES_MAX)
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: more than %d pages", what, DNSB_GOOGLE_PAGES_MAX);
	} while (rc == 0 && page);
	free(page);
	return rc;
}

const char *dnsb_google_zone_name(const dnsb_google *g, const char *apex)
{
	for (size_t i = 0; i < g->zone_count; i++)
		if (strcmp(g->zones[i].dns_name, apex) == 0)
			return g->zones[i].name;
	return NULL;
}

/* One managed zone of a managedZones.list page into g->zones (a second zone for a DNS name is skipped). */
static int take_zone(dnsb_google *g, json_object *z)
{
	json_object *name, *dns;
	dnsb_google_zone *grown, add = { NULL, NULL };

	if (!json_object_object_get_ex(z, "name", &name) || !json_object_object_get_ex(z, "dnsName", &dns) ||
	    !json_object_is_type(name, json_type_string) || !json_object_is_type(dns, json_type_string) ||
	    dnsb_name_canonical(&add.dns_name, json_object_get_string(dns), NULL) != 0)
		return DNSB_EPARSE;
	if (dnsb_google_zone_name(g, add.dns_name) != NULL) {
		dnsb_log(DNSB_LOG_WARN,
			 "google: managed zones %s and %s both serve %s (public and private?): using %s; choose with --google-zone",
			 dnsb_google_zone_name(g, add.dns_name), json_object_get_string(name), add.dns_name,
			 dnsb_google_zone_name(g, add.dns_name));
		free(add.dns_name);
		return 0;
	}
	if ((add.name = strdup(json_object_get_string(name))) == NULL ||
	    (grown = realloc(g->zones, (g->zone_count + 1) * sizeof(*grown))) == NULL) {
		free(add.dns_name);
		free(add.name);
		return DNSB_ENOMEM;
	}
	g->zones = grown;
	g->zones[g->zone_count++] = add;
	return 0;
}

int dnsb_google_zones_page(dnsb_google *g, json_object *doc, char **next)
{
	json_object *list, *token;
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
	if (rc == 0 && json_object_object_get_ex(doc, "nextPageToken", &token) &&
	    json_object_is_type(token, json_type_string) && json_object_get_string_len(token) > 0 &&
	    (*next = strdup(json_object_get_string(token))) == NULL)
		rc = DNSB_ENOMEM;
	return rc;
}

int dnsb_google_zones_list(dnsb_google *g, double give_up, dnsb_error *err)
{
	char *page = NULL, *url, what[200];
	unsigned long pages = 0;
	long status;
	int rc = 0;

	snprintf(what, sizeof(what), "managedZones.list of project %.100s", g->cfg.project);
	do {
		json_object *doc = NULL;
		char *next = NULL;

		url = page ? dnsb_google_url(g->cfg.endpoint, "projects/%s/managedZones?maxResults=1000&pageToken=%s",
					     g->cfg.project, page) :
			     dnsb_google_url(g->cfg.endpoint, "projects/%s/managedZones?maxResults=1000", g->cfg.project);
		if (url == NULL)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		if (rc == 0 && (rc = get_json(g, url, what, give_up, &doc, &status, err)) == 0 &&
		    (rc = dnsb_google_zones_page(g, doc, &next)) == DNSB_EPARSE)
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: not a managedZones.list reply", what);
		json_object_put(doc);
		free(url);
		free(page);
		page = next;
		if (rc == 0 && page && ++pages >= DNSB_GOOGLE_PAGES_MAX)
			rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: more than %d pages", what, DNSB_GOOGLE_PAGES_MAX);
	} while (rc == 0 && page);
	free(page);
	if (rc == DNSB_ENOMEM)
		dnsb_error_set(err, rc, "out of memory");
	return rc;
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
	rc = get_json(g, url, what, give_up, &doc, status, err);
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
