/*
 * azure.c - the azure provider (Azure DNS record sets): open (settings,
 * token, the resource group's zones), read and list by the zone's listing
 * with $top and nextLink, submit (write.c), close, flags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/azure/azure.h"

/* One request of the skeleton's (a listing page) through send.c: the token (renewed after a 401), the budget,
 * the pace. */
static int call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	dnsb_azure_write w = { method, (char *)url, (char *)body, NULL, out, 1, { 0 }, NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	if (give_up > 0 && dnsb_monotonic() >= give_up)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	if ((rc = dnsb_azure_send((dnsb_azure *)b, &w, 1, give_up, err)) != 0)
		return rc;
	free(w.etag);
	if (w.rc == 1 && w.res.cls != DNSB_CLASS_OK) /* not sent, and said why (the token) */
		rc = dnsb_error_set(err, dnsb_hb_class_code(w.res.cls), "%s", w.res.message);
	else if (w.rc != 0)
		rc = dnsb_error_set(err, w.rc == 1 ? DNSB_ETRANSIENT : w.rc, "%s %s: no reply", method, url);
	else if (out->status == 0) /* not sent (the budget, the pace) or no reply: the class says which */
		rc = dnsb_error_set(err, dnsb_hb_class_code(w.res.cls), "%s", w.res.message);
	if (rc != 0)
		dnsb_http_response_clear(out);
	return rc;
}

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

static int azure_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		      dnsb_rrset_list *out, dnsb_error *err)
{
	if (n == 0)
		return dnsb_azure_list((dnsb_azure *)b, zone, keys, n, give_up, out, NULL, err);
	return dnsb_azure_read_keys((dnsb_azure *)b, zone, keys, n, give_up, out, NULL, err);
}

/* The resource group's zones: a missing group, a refused token, a wrong subscription are fatal here; a transient
 * answer (5xx, 429 past its waits, a timeout) stays transient (apply: every change failed, exit 4). */
static int open_zones(dnsb_azure *a, dnsb_error *err)
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
				      "resource group %s of subscription %s: %s",
				      a->cfg.resource_group, a->cfg.subscription, e.message);
	if (a->base.zone_count == 0)
		return dnsb_error_set(err, DNSB_EFATAL, "resource group %s of subscription %s holds no %s", a->cfg.resource_group,
				      a->cfg.subscription, a->cfg.private_zones ? "private DNS zone" : "DNS zone");
	return 0;
}

static int azure_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_azure *a = (dnsb_azure *)b;
	char *rg, *sub;
	int rc;

	pthread_mutex_init(&a->auth.lock, NULL);
	pthread_mutex_init(&a->multi_lock, NULL);
	dnsb_azure_quota_init(&a->reads);
	dnsb_azure_quota_init(&a->writes);
	if ((a->multi = curl_multi_init()) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	curl_multi_setopt(a->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
	if ((rc = dnsb_azure_config_parse(&a->cfg, cfg, err)) != 0)
		return rc;
	a->api_version = a->cfg.private_zones ? DNSB_AZURE_PRIVATE_API_VERSION : DNSB_AZURE_API_VERSION;
	sub = dnsb_http_escape(a->cfg.subscription);
	rg = dnsb_http_escape(a->cfg.resource_group);
	rc = sub && rg ? asprintf(&a->zones_url, "%ssubscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/%s",
				  a->cfg.endpoint, sub, rg, a->cfg.private_zones ? "privateDnsZones" : "dnsZones")
		       : -1;
	free(sub);
	free(rg);
	if (rc < 0) {
		a->zones_url = NULL;
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	curl_multi_setopt(a->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)a->cfg.max_in_flight);
	if ((rc = dnsb_hb_client(b, DNSB_AZURE_TIMEOUT, a->cfg.ca_file, err)) != 0 || (rc = open_zones(a, err)) != 0)
		return rc;
	limits->names_culprit = 1;
	dnsb_log(DNSB_LOG_DEBUG, "azure: subscription %s, resource group %s, %zu zones, token from %s, %zu in flight",
		 a->cfg.subscription, a->cfg.resource_group, b->zone_count, a->cfg.cred_source, a->cfg.max_in_flight);
	return 0;
}

static void azure_close(dnsb_hb *b)
{
	dnsb_azure *a = (dnsb_azure *)b;

	if (a->multi)
		dnsb_log(DNSB_LOG_DEBUG, "azure: %lu requests sent (%lu record-set GETs, %lu listing pages); quota: "
			 "%lu reads and %lu writes paced, %lu 429s", a->requests, a->gets, a->pages, a->reads.paced,
			 a->writes.paced, a->reads.throttled + a->writes.throttled);
	curl_multi_cleanup(a->multi);
	dnsb_azure_auth_clear(&a->auth);
	pthread_mutex_destroy(&a->auth.lock);
	pthread_mutex_destroy(&a->multi_lock);
	free(a->zones_url);
	free(a->zone_sets);
	dnsb_azure_config_clear(&a->cfg);
}

static const dnsb_hb_methods azure_methods = {
	DNSB_HB_OPS("azure"), "Azure DNS zone of the resource group", sizeof(dnsb_azure), NULL,
	azure_open_state, call, dnsb_azure_reply_error, dnsb_azure_submit, azure_read, azure_close,
	0, 0, /* Azure Resource Manager throttles per subscription and region by its own buckets: give --rate-budget-rate */
};

static int azure_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &azure_methods, cfg, err);
}

static const dnsb_provider_flag azure_flags[] = {
	{ "azure-subscription-id", 1, "the subscription of the zones (or subscriptionId in --azure-config-file)" },
	{ "azure-resource-group", 1, "the resource group of the zones (or resourceGroup in --azure-config-file)" },
	{ "azure-config-file", 1, "external-dns's azure.json (tenantId, aadClientId, aadClientSecret, use*Extension, ...)" },
	{ "azure-user-assigned-identity-client-id", 1, "the client id of a user-assigned managed identity" },
	{ "azure-api-endpoint", 1, "the Resource Manager endpoint (default " DNSB_AZURE_ENDPOINT_DEFAULT ")" },
	{ "azure-ca-file", 1, "PEM file of the CAs to trust instead of the system's (TLS is always verified)" },
	{ "azure-max-in-flight", 1, "record-set requests in flight at once (default 8)" },
	{ "azure-private-zones", 0, "manage privateDnsZones (api-version " DNSB_AZURE_PRIVATE_API_VERSION ")" },
	{ NULL, 0, NULL },
};

const dnsb_backend dnsb_backend_azure = {
	"azure",
	"Azure DNS (a read, then one conditional request per record set; a refused batch is undone)",
	azure_flags,
	azure_open,
};
