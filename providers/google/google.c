/*
 * google.c - the google provider (Cloud DNS v1): each batch is one
 * changes.create; read and list by rrsets.list; zones from --google-zone or
 * managedZones.list; per-change limits from projects.get.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "providers/google/google.h"

/* The keys as an indexed list of empty RRsets (type DNSB_RRKEY_ANY kept as is), for lookups. */
static int key_index(dnsb_rrset_list *out, const dnsb_rrkey *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dnsb_rrset k = { 0 };
		if (dnsb_rrset_list_find(out, keys[i].owner, keys[i].type) != NULL)
			continue;
		k.type = keys[i].type;
		if ((k.owner = strdup(keys[i].owner)) == NULL || dnsb_rrset_list_push(out, &k) != 0) {
			free(k.owner);
			return DNSB_ENOMEM;
		}
	}
	return 0;
}

/* Copy from `all` the RRsets that keys name (by type, or every type for DNSB_RRKEY_ANY) into out. */
static int pick(dnsb_rrset_list *out, const dnsb_rrset_list *all, const dnsb_rrkey *keys, size_t n)
{
	dnsb_rrset_list want = { 0 };
	int rc = key_index(&want, keys, n);

	for (size_t i = 0; rc == 0 && i < all->count; i++) {
		const dnsb_rrset *r = &all->items[i];
		dnsb_rrset copy;
		if (dnsb_rrset_list_find(&want, r->owner, r->type) == NULL &&
		    dnsb_rrset_list_find(&want, r->owner, DNSB_RRKEY_ANY) == NULL)
			continue;
		if ((rc = dnsb_rrset_copy(&copy, r)) == 0 && (rc = dnsb_rrset_list_push(out, &copy)) != 0)
			dnsb_rrset_clear(&copy);
	}
	dnsb_rrset_list_clear(&want);
	return rc;
}

/*
 * The RRsets of keys that exist: one rrsets.list per owner name when there
 * are few names (by name and type when one type is asked for there), else
 * one listing of the whole zone.
 */
static int read_keys(dnsb_google *g, const char *zone_name, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	const char *owners[DNSB_GOOGLE_READ_BY_NAME_MAX];
	size_t k = dnsb_rrkeys_owners(keys, n, owners, DNSB_GOOGLE_READ_BY_NAME_MAX);
	dnsb_rrset_list all = { 0 };
	int rc = 0;

	if (k <= DNSB_GOOGLE_READ_BY_NAME_MAX) {
		for (size_t i = 0; rc == 0 && i < k; i++)
			rc = dnsb_google_rrsets_list(g, zone_name, owners[i], dnsb_rrkeys_only_type(keys, n, owners[i]), keys, n,
						     give_up, out, err);
		return rc;
	}
	rc = dnsb_google_rrsets_list(g, zone_name, NULL, 0, NULL, 0, give_up, &all, err);
	if (rc == 0 && (rc = pick(out, &all, keys, n)) != 0)
		dnsb_error_set(err, rc, "out of memory");
	dnsb_rrset_list_clear(&all);
	return rc;
}

/* The old RRsets without a TTL (external-dns's ownership records), read so that their deletion matches. */
static int read_unset_ttls(dnsb_google *g, const char *zone_name, dnsb_change *const *changes, size_t n,
			   double give_up, dnsb_rrset_list *held, dnsb_error *err)
{
	dnsb_rrkey *keys;
	size_t k;
	int rc = dnsb_unset_ttl_keys(&keys, &k, changes, n);

	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	rc = k ? read_keys(g, zone_name, keys, k, give_up, held, err) : 0;
	free(keys);
	return rc;
}

/* Send the body and classify the answer. */
static int post_change(dnsb_google *g, const char *zone_name, const dnsb_google_change *body,
		       dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	char *url = dnsb_google_url(g->cfg.endpoint, "projects/%s/managedZones/%s/changes", g->cfg.project, zone_name);
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_interval_wait(&g->pace, give_up, &e);
	if (rc == 0)
		rc = dnsb_google_call(g, "POST", url, body->json, give_up, &resp, &e);
	free(url);
	if (rc != 0)
		return dnsb_result_from_error(out, rc, 0, "changes.create", &e, err);
	dnsb_google_classify(out, &resp, body, changes, n);
	dnsb_log(DNSB_LOG_DEBUG, "google: changes.create %s: %zu additions, %zu deletions: HTTP %ld %s%s%s, %zu culprits",
		 zone_name, body->addition_count, body->deletion_count, resp.status, dnsb_class_name(out->cls),
		 out->code[0] ? " " : "", out->code, out->culprit_count);
	dnsb_http_response_clear(&resp);
	return 0;
}

static int google_submit(void *opaque, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
			 dnsb_result *out, dnsb_error *err)
{
	dnsb_google *g = opaque;
	double give_up = timeout > 0 ? dnsb_monotonic() + timeout : 0;
	const char *zone_name = dnsb_google_zone_name(g, zone);
	dnsb_rrset_list held = { 0 };
	dnsb_google_change body;
	dnsb_error e = { 0, "" };
	int rc;

	dnsb_result_init(out);
	if (zone_name == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 0, "", "no managed zone serves %s", zone);
		return 0;
	}
	if ((rc = read_unset_ttls(g, zone_name, changes, n, give_up, &held, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_result_from_error(out, rc, 0, "reading the TTLs of old records sent without one", &e, err);
	}
	rc = dnsb_google_change_build(&body, changes, n, &held, err);
	dnsb_rrset_list_clear(&held);
	if (rc != 0)
		return rc;
	rc = post_change(g, zone_name, &body, changes, n, give_up, out, err);
	dnsb_google_change_clear(&body);
	return rc;
}

static int google_read(void *opaque, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		       dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_google *g = opaque;
	const char *zone_name = dnsb_google_zone_name(g, zone);

	if (zone_name == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no managed zone serves %s", zone);
	return read_keys(g, zone_name, keys, n, timeout > 0 ? dnsb_monotonic() + timeout : 0, out, err);
}

static int google_list(void *opaque, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_google *g = opaque;
	const char *zone_name = dnsb_google_zone_name(g, zone);

	if (zone_name == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no managed zone serves %s", zone);
	return dnsb_google_rrsets_list(g, zone_name, NULL, 0, NULL, 0, 0, out, err);
}

static void google_close(void *opaque)
{
	dnsb_google *g = opaque;

	if (g == NULL)
		return;
	if (g->http)
		dnsb_log(DNSB_LOG_DEBUG, "google: %lu requests, %lu connections opened, %lu tokens fetched",
			 dnsb_http_requests(g->http), dnsb_http_connections(g->http),
			 g->auth_ready ? dnsb_google_auth_fetches(&g->auth) : 0);
	dnsb_http_free(g->http);
	if (g->auth_ready)
		dnsb_google_auth_clear(&g->auth);
	for (size_t i = 0; i < g->zone_count; i++) {
		free(g->zones[i].dns_name);
		free(g->zones[i].name);
	}
	free(g->zones);
	dnsb_google_config_clear(&g->cfg);
	dnsb_interval_clear(&g->pace);
	free(g);
}

static const dnsb_provider_ops google_ops = {
	DNSB_PROVIDER_OPS_VERSION, "google", google_submit, google_read, google_list, google_close,
};

/* The zones of --google-zone, or of the project (managedZones.list). */
static int open_zones(dnsb_google *g, dnsb_error *err)
{
	int rc;

	if (g->cfg.zone_count > 0) {
		g->zones = g->cfg.zones;
		g->zone_count = g->cfg.zone_count;
		g->cfg.zones = NULL;
		g->cfg.zone_count = 0;
		return 0;
	}
	dnsb_error e = { 0, "" };

	if ((rc = dnsb_google_zones_list(g, dnsb_monotonic() + DNSB_GOOGLE_TIMEOUT, &e)) != 0)
		return dnsb_error_set(err, rc, "%s%s", e.message,
				      rc == DNSB_ENOMEM ? "" : " (or give the zones with --google-zone DNSNAME=ZONENAME)");
	if (g->zone_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "project %s has no managed zones", g->cfg.project);
	return 0;
}

/*
 * The per-change limits: the project's quotas from projects.get, else Cloud
 * DNS's defaults; never above --google-batch-change-size. A certificate or
 * credential refusal stops here, before any plan is applied; a quota that
 * cannot be read only costs the defaults.
 */
static int open_limits(dnsb_google *g, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_error e = { 0, "" };
	long status = 0;
	int rc;

	limits->max_additions = DNSB_GOOGLE_ADDITIONS_DEFAULT;
	limits->max_deletions = DNSB_GOOGLE_DELETIONS_DEFAULT;
	limits->max_rdata_bytes = DNSB_GOOGLE_RDATA_BYTES_DEFAULT;
	rc = dnsb_google_quota(g, dnsb_monotonic() + DNSB_GOOGLE_TIMEOUT, limits, &status, &e);
	if (rc == DNSB_ENOMEM || (rc == DNSB_EFATAL && (status == 0 || status == 401)))
		return dnsb_error_set(err, rc, "%s", e.message);
	if (rc != 0)
		dnsb_log(DNSB_LOG_WARN, "google: %s: using the default limits (1000 additions, 1000 deletions, 100000 bytes per change)",
			 e.message);
	limits->max_changes = g->cfg.batch_size;
	if (limits->max_additions > g->cfg.batch_size)
		limits->max_additions = g->cfg.batch_size;
	if (limits->max_deletions > g->cfg.batch_size)
		limits->max_deletions = g->cfg.batch_size;
	limits->names_culprit = 1;
	return 0;
}

/*
 * A token fetched before anything is sent (and kept for the first request):
 * no credentials at all, or credentials the token endpoint refuses, are a
 * setup fault named at once, not a transient error retried for half a minute.
 * A token endpoint that answers 5xx is left to the batches' retries.
 */
static int open_token(dnsb_google *g, dnsb_error *err)
{
	dnsb_error e = { 0, "" };
	char *header = NULL;
	int rc = dnsb_google_auth_header(&header, &g->auth, g->http, NULL, dnsb_monotonic() + DNSB_GOOGLE_TIMEOUT, &e);

	dnsb_secret_free(header);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory");
	if (rc == DNSB_EFATAL || (rc == DNSB_ETRANSIENT && g->auth.kind == DNSB_GOOGLE_AUTH_METADATA))
		return dnsb_error_set(err, DNSB_EINVAL, "%s", e.message);
	return 0;
}

static int open_state(dnsb_google *g, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_http_options http = DNSB_HTTP_OPTIONS_INIT;
	int rc;

	if ((rc = dnsb_google_config_parse(&g->cfg, cfg, err)) != 0)
		return rc;
	rc = dnsb_google_auth_init(&g->auth, &g->cfg, err);
	g->auth_ready = 1;
	if (rc != 0)
		return rc;
	http.timeout = DNSB_GOOGLE_TIMEOUT;
	http.ca_file = g->cfg.ca_file;
	if ((rc = dnsb_http_new(&g->http, &http, err)) != 0 || (rc = open_token(g, err)) != 0)
		return rc;
	return open_zones(g, err);
}

static int google_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_google *g = calloc(1, sizeof(*g));
	dnsb_provider_limits limits = { 0 };
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (g == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_interval_init(&g->pace, 0, "google-batch-change-interval");
	if ((rc = open_state(g, cfg, err)) != 0 || (rc = open_limits(g, &limits, err)) != 0) {
		google_close(g);
		return rc;
	}
	g->pace.every = g->cfg.interval;
	if ((rc = dnsb_provider_alloc(&p, &google_ops, g)) != 0)
		return dnsb_error_set(err, rc, "out of memory");
	for (size_t i = 0; i < g->zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, g->zones[i].dns_name, err)) != 0) {
			dnsb_provider_free(p);
			return rc;
		}
	}
	dnsb_provider_set_limits(p, &limits);
	dnsb_log(DNSB_LOG_DEBUG, "google: project %s, %zu zones, credentials: %s; per change: %zu additions, %zu deletions, %zu bytes",
		 g->cfg.project, g->zone_count, g->auth.source, limits.max_additions, limits.max_deletions,
		 limits.max_rdata_bytes);
	*out = p;
	return 0;
}

static const dnsb_provider_flag google_flags[] = {
	{ "google-project", 1, "the project holding the managed zones (required)" },
	{ "google-zone", 1, "DNSNAME=ZONENAME: a managed zone (repeatable; default: every zone of the project)" },
	{ "google-batch-change-size", 1, "changes per changes.create (default 1000; the project's quotas also apply)" },
	{ "google-batch-change-interval", 1, "seconds between two submissions (default 1)" },
	{ "google-credentials", 1, "service-account key file (or $" DNSB_GOOGLE_CREDENTIALS_ENV "; $" DNSB_GOOGLE_TOKEN_ENV
				   " first, the GCE metadata server last)" },
	{ "google-api-endpoint", 1, "Cloud DNS API base URL (default " DNSB_GOOGLE_ENDPOINT_DEFAULT ")" },
	{ "google-ca-file", 1, "PEM file of the CAs to trust instead of the system's (TLS is always verified)" },
	{ NULL, 0, NULL },
};

const dnsb_backend dnsb_backend_google = {
	"google",
	"Google Cloud DNS v1 (changes.create, rrsets.list) over HTTPS with OAuth2",
	google_flags,
	google_open,
};
