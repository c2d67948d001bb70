/*
 * azure.c - the azure provider (Azure DNS record sets): open (settings,
 * token, the transport's pacer, the resource group's zones: list.c), read
 * (read.c) and list (list.c), submit (write.c), close, flags.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/net/ratelimit.h"
#include "providers/azure/internal.h"
#include "applier/net/throttle.h"

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

static int azure_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		      dnsb_rrset_list *out, dnsb_error *err)
{
	if (n == 0)
		return dnsb_azure_list((dnsb_azure *)b, zone, keys, n, give_up, out, NULL, err);
	return dnsb_azure_read_keys((dnsb_azure *)b, zone, keys, n, give_up, out, NULL, err);
}

static int azure_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_azure *a = (dnsb_azure *)b;
	dnsb_pacer pacer;
	char *rg, *sub;
	int rc;

	pthread_mutex_init(&a->auth.lock, NULL);
	pthread_mutex_init(&a->quota_lock, NULL);
	dnsb_azure_quota_init(&a->reads);
	dnsb_azure_quota_init(&a->writes);
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
	if ((rc = dnsb_hb_client(b, DNSB_AZURE_TIMEOUT, a->cfg.ca_file, err)) != 0)
		return rc;
	dnsb_azure_pacer(&pacer, a);
	dnsb_http_set_pacer(b->http, &pacer);
	if ((rc = dnsb_azure_list_zones(a, err)) != 0)
		return rc;
	limits->names_culprit = 1;
	dnsb_log(DNSB_LOG_DEBUG, "azure: subscription %s, resource group %s, %zu zones, token from %s, %zu in flight",
		 a->cfg.subscription, a->cfg.resource_group, b->zone_count, a->cfg.cred_source, a->cfg.max_in_flight);
	return 0;
}

static void azure_close(dnsb_hb *b)
{
	dnsb_azure *a = (dnsb_azure *)b;

	if (a->requests)
		dnsb_log(DNSB_LOG_DEBUG, "azure: %lu requests sent (%lu record-set GETs, %lu listing pages); quota: "
			 "%lu reads and %lu writes paced, %lu 429s", a->requests, a->gets, a->pages, a->reads.paced,
			 a->writes.paced, a->reads.throttled + a->writes.throttled);
	dnsb_azure_auth_clear(&a->auth);
	pthread_mutex_destroy(&a->auth.lock);
	pthread_mutex_destroy(&a->quota_lock);
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

const dnsb_backend dnsb_backend_azure = DNSB_BACKEND_INIT(
	"azure",
	"Azure DNS (a read, then one conditional request per record set; a refused batch is undone)",
	dnsb_azure_flags, dnsb_budget_flags, azure_open, &azure_methods.ops);
