/*
 * google.c - the google provider (Cloud DNS v1): each batch is one
 * changes.create; read and list by rrsets.list; zones from --google-zone or
 * managedZones.list; per-change limits from projects.get.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/net/ratelimit.h"
#include "providers/google/google.h"
#include "providers/registry.h"

/* The RRsets of keys that exist: rrsets.list per owner name when there are few names, else of the whole zone. */
static int google_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		       dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_hb_read_by_owner(b, zone, keys, n, DNSB_GOOGLE_READ_BY_NAME_MAX, dnsb_google_rrsets_list, give_up,
				     out, NULL, err);
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
	rc = dnsb_interval_wait(&g->base.pace, give_up, &e);
	if (rc == 0)
		rc = dnsb_google_call(&g->base, "POST", url, body->json, give_up, &resp, &e);
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

static int google_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
			 dnsb_result *out, dnsb_error *err)
{
	dnsb_rrset_list held = { 0 };
	dnsb_google_change body;
	dnsb_error e = { 0, "" };
	int rc;

	if ((rc = dnsb_hb_read_unset_ttls(b, zone, changes, n, give_up, &held, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_result_from_error(out, rc, 0, "reading the TTLs of old records sent without one", &e, err);
	}
	rc = dnsb_google_change_build(&body, changes, n, &held, err);
	dnsb_rrset_list_clear(&held);
	if (rc != 0)
		return rc;
	rc = post_change((dnsb_google *)b, zone->id, &body, changes, n, give_up, out, err);
	dnsb_google_change_clear(&body);
	return rc;
}

static void google_close(dnsb_hb *b)
{
	dnsb_google *g = (dnsb_google *)b;

	if (g->auth_ready) {
		dnsb_log(DNSB_LOG_DEBUG, "google: %lu tokens fetched", dnsb_google_auth_fetches(&g->auth));
		dnsb_google_auth_clear(&g->auth);
	}
	dnsb_google_config_clear(&g->cfg);
}

/* The zones of --google-zone, or of the project (managedZones.list). */
static int open_zones(dnsb_google *g, dnsb_error *err)
{
	dnsb_error e = { 0, "" };
	int rc;

	if (g->cfg.zone_count > 0) {
		dnsb_hb_zones_take(&g->base, &g->cfg.zones, &g->cfg.zone_count);
		return 0;
	}
	if ((rc = dnsb_google_zones_list(g, dnsb_monotonic() + DNSB_GOOGLE_TIMEOUT, &e)) != 0)
		return dnsb_error_set(err, rc, "%s%s", e.message,
				      rc == DNSB_ENOMEM ? "" : " (or give the zones with --google-zone DNSNAME=ZONENAME)");
	if (g->base.zone_count == 0)
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
	int rc = dnsb_google_auth_header(&header, &g->auth, g->base.http, NULL, dnsb_monotonic() + DNSB_GOOGLE_TIMEOUT,
					 &e);

	dnsb_secret_free(header);
	if (rc == DNSB_ENOMEM)
		return dnsb_error_set(err, rc, "out of memory");
	if (rc == DNSB_EFATAL || (rc == DNSB_ETRANSIENT && g->auth.kind == DNSB_GOOGLE_AUTH_METADATA))
		return dnsb_error_set(err, DNSB_EINVAL, "%s", e.message);
	return 0;
}

static int google_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_google *g = (dnsb_google *)b;
	int rc;

	if ((rc = dnsb_google_config_parse(&g->cfg, cfg, err)) != 0)
		return rc;
	rc = dnsb_google_auth_init(&g->auth, &g->cfg, err);
	g->auth_ready = 1;
	if (rc != 0 || (rc = dnsb_hb_client(b, DNSB_GOOGLE_TIMEOUT, g->cfg.ca_file, err)) != 0 ||
	    (rc = open_token(g, err)) != 0 || (rc = open_zones(g, err)) != 0 || (rc = open_limits(g, limits, err)) != 0)
		return rc;
	b->pace.every = g->cfg.interval;
	dnsb_log(DNSB_LOG_DEBUG, "google: project %s, %zu zones, credentials: %s; per change: %zu additions, %zu deletions, %zu bytes",
		 g->cfg.project, b->zone_count, g->auth.source, limits->max_additions, limits->max_deletions,
		 limits->max_rdata_bytes);
	return 0;
}

static const dnsb_hb_methods google_methods = {
	DNSB_HB_OPS("google"), "managed zone", sizeof(dnsb_google), "google-batch-change-interval",
	google_open_state, dnsb_google_call, dnsb_google_reply_error, google_submit, google_read, google_close,
	0, 0, /* Cloud DNS quotas are per project and set by its owner: give --rate-budget-rate */
};

static int google_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &google_methods, cfg, err);
}

const dnsb_backend dnsb_backend_google = DNSB_BACKEND_INIT(
	"google", "Google Cloud DNS v1 (changes.create, rrsets.list) over HTTPS with OAuth2", dnsb_google_flags,
	dnsb_budget_flags, google_open, &google_methods.ops);
