/*
 * pdns.c - the pdns provider (PowerDNS Authoritative HTTP API): a batch is
 * one read of the zone (the pre-check) and one PATCH; read and list by GET
 * of the zone; zones from --pdns-zone or GET .../zones.
 *
 * The pre-check reads the whole zone in one GET: PowerDNS 4.7 has no
 * per-name filter (it ignores rrset_name), so per-name reads would cost one
 * request per owner name of the batch, while one GET finds every mismatch of
 * a batch of any size at once, whatever the zone's size costs in bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/backoff.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/pdns/pdns.h"
#include "applier/net/ratelimit.h"
#include "providers/registry.h"

/* One request with the key; the body, when any, is JSON. */
static int call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	const dnsb_pdns *p = (const dnsb_pdns *)b;
	const char *headers[] = { p->key_header, "Accept: application/json", body ? "Content-Type: application/json" : NULL,
				  NULL };

	return dnsb_hb_send(b, method, url, headers, body, NULL, give_up, out, err);
}

/* The zone's RRsets (those of keys when n > 0) by one GET. */
static int read_zone(dnsb_pdns *p, const char *zone_id, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_rrset_list *disabled, int disabled_held, long *status, dnsb_error *err)
{
	char *url = dnsb_pdns_url(&p->cfg, "/zones/%s", zone_id), what[300];
	json_object *doc = NULL;
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	snprintf(what, sizeof(what), "GET zone %.200s", zone_id);
	if ((rc = dnsb_hb_get_json(&p->base, url, what, give_up, &doc, status, err)) == 0 &&
	    (rc = dnsb_pdns_zone_parse(out, disabled, disabled_held, doc, keys, n, err)) == DNSB_EPARSE)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: %s", what, err ? err->message : "not a zone");
	json_object_put(doc);
	free(url);
	return rc;
}

/* Send the PATCH of the checked batch and classify the answer. */
static int send_patch(dnsb_pdns *p, const char *id, const dnsb_precheck *patch, dnsb_change *const *changes,
		      size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	char *body = NULL, *url = dnsb_pdns_url(&p->cfg, "/zones/%s", id);
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int rc;

	if (url == NULL || dnsb_pdns_patch_body(&body, patch) != 0) {
		free(url);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory building a PATCH of %zu RRsets", patch->count);
	}
	rc = call(&p->base, "PATCH", url, body, give_up, &resp, &e);
	free(body);
	free(url);
	if (rc != 0)
		return dnsb_result_from_error(out, rc, 0, "PATCH", &e, err);
	dnsb_pdns_classify(out, &resp, changes, n);
	dnsb_log(DNSB_LOG_DEBUG, "pdns: PATCH %s: %zu changes, %zu RRsets: HTTP %ld %s, %zu culprits", id, n,
		 patch->count, resp.status, dnsb_class_name(out->cls), out->culprit_count);
	dnsb_http_response_clear(&resp);
	return 0;
}

/*
 * After an accepted PATCH: read the zone back and count the RRsets another
 * client wrote in the window (dnsb_precheck_races). A failed read proves nothing
 * either way: the batch stays applied, and the failure is logged.
 */
static void check_races(dnsb_pdns *p, const char *zone, const char *id, const dnsb_precheck *patch, double give_up,
			dnsb_result *out)
{
	dnsb_rrset_list after = { 0 };
	dnsb_error e = { 0, "" };
	long status = 0;

	if (read_zone(p, id, NULL, 0, give_up, &after, NULL, 0, &status, &e) == 0)
		out->races = dnsb_precheck_races(patch, &after, zone);
	else
		dnsb_log(DNSB_LOG_INFO, "pdns: zone %s: reading back after the PATCH failed (%s): a write by another "
			 "client in the window would go unnoticed", zone, e.message);
	dnsb_rrset_list_clear(&after);
}

static int pdns_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		       dnsb_result *out, dnsb_error *err)
{
	dnsb_pdns *p = (dnsb_pdns *)b;
	dnsb_rrset_list held = { 0 }, disabled = { 0 };
	dnsb_precheck patch;
	dnsb_error e = { 0, "" };
	long status = 0;
	int rc;

	if ((rc = read_zone(p, zone->id, NULL, 0, give_up, &held, &disabled, 1, &status, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		dnsb_rrset_list_clear(&disabled);
		return dnsb_result_from_error(out, rc, (int)status, "pre-check read", &e, err);
	}
	if ((rc = dnsb_precheck_run(&patch, out, changes, n, &held, &disabled)) != 0) {
		dnsb_rrset_list_clear(&held);
		dnsb_rrset_list_clear(&disabled);
		return dnsb_error_set(err, rc, "out of memory checking %zu changes", n);
	}
	if (out->cls != DNSB_CLASS_OK)
		dnsb_log(DNSB_LOG_DEBUG, "pdns: pre-check %s: %zu of %zu changes conflict; nothing sent", zone->id,
			 out->culprit_count, n);
	else if (patch.count > 0 && (rc = send_patch(p, zone->id, &patch, changes, n, give_up, out, err)) == 0 &&
		 out->cls == DNSB_CLASS_OK)
		check_races(p, zone->apex, zone->id, &patch, give_up, out);
	dnsb_precheck_clear(&patch);
	dnsb_rrset_list_clear(&held);
	dnsb_rrset_list_clear(&disabled);
	return rc;
}

/*
 * One GET of the zone serves a read of any keys and the listing alike.
 * Disabled records are held data: a read of keys takes an RRset of disabled
 * records only as held (pdns.h); the listing leaves them out, naming each in
 * a warning.
 */
static int pdns_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_rrset_list disabled = { 0 };
	long status;
	int rc = read_zone((dnsb_pdns *)b, zone->id, keys, n, give_up, out, &disabled, n > 0, &status, err);

	if (rc == 0 && n == 0)
		dnsb_pdns_tell_disabled(zone->apex, &disabled);
	dnsb_rrset_list_clear(&disabled);
	return rc;
}

static void pdns_close(dnsb_hb *b)
{
	dnsb_pdns *p = (dnsb_pdns *)b;

	dnsb_secret_free(p->key_header);
	dnsb_pdns_config_clear(&p->cfg);
}

/* Tries of the zone listing at start when it meets a transient answer (waits of full-jitter backoff between). */
#define DNSB_PDNS_LIST_TRIES 5

/*
 * GET .../zones into doc. A transient answer (no answer, 5xx) is tried
 * again with backoff, as the batches retry theirs: a server busy at start is
 * not a setup fault. @return 0, or the last try's error code (e filled)
 */
static int list_zones(dnsb_pdns *p, const char *url, json_object **doc, dnsb_error *e)
{
	int rc = 0;

	for (unsigned attempt = 0; attempt < DNSB_PDNS_LIST_TRIES; attempt++) {
		double wait;

		rc = dnsb_hb_get_json(&p->base, url, "GET zones", dnsb_monotonic() + DNSB_PDNS_TIMEOUT, doc, NULL, e);
		if (rc != DNSB_ETRANSIENT || attempt + 1 == DNSB_PDNS_LIST_TRIES) /* a throttle was waited out already */
			break;
		wait = dnsb_backoff_delay(attempt, DNSB_HB_THROTTLE_BASE, DNSB_HB_THROTTLE_CAP, dnsb_uniform01(&p->base.rng));
		dnsb_log(DNSB_LOG_INFO, "pdns: listing the zones at %s: %s; retrying in %.2f s", p->cfg.server, e->message,
			 wait);
		if (dnsb_stop_sleep(wait))
			break; /* a stop asked: the listing stays failed */
	}
	return rc;
}

/* The zones of --pdns-zone, or every zone of the server (GET .../zones). */
static int open_zones(dnsb_pdns *p, dnsb_error *err)
{
	char *url;
	json_object *doc = NULL;
	dnsb_error e = { 0, "" };
	int rc;

	if (p->cfg.zone_count > 0) {
		dnsb_hb_zones_take(&p->base, &p->cfg.zones, &p->cfg.zone_count);
		return 0;
	}
	if ((url = dnsb_pdns_url(&p->cfg, "/zones")) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = list_zones(p, url, &doc, &e);
	free(url);
	if (rc == 0)
		rc = dnsb_pdns_zones_parse(&p->base.zones, &p->base.zone_count, doc, &e);
	json_object_put(doc);
	if (rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT) /* no answer, 5xx, 429 on every try: retry later */
		return dnsb_error_set(err, DNSB_ETRANSIENT, "listing the zones at %s failed %d times (retry later): %s",
				      p->cfg.server, DNSB_PDNS_LIST_TRIES, e.message);
	if (rc != 0)
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_EINVAL, "%s at %s (or give the zones with --pdns-zone)",
				      e.message, p->cfg.server);
	if (p->base.zone_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "the PowerDNS server %s (server id %s) holds no zones", p->cfg.server,
				      p->cfg.server_id);
	return 0;
}

static int pdns_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_pdns *p = (dnsb_pdns *)b;
	size_t len;
	int rc;

	if ((rc = dnsb_pdns_config_parse(&p->cfg, cfg, err)) != 0)
		return rc;
	len = strlen(p->cfg.api_key) + sizeof("X-API-Key: ");
	if ((p->key_header = malloc(len)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	snprintf(p->key_header, len, "X-API-Key: %s", p->cfg.api_key);
	if ((rc = dnsb_hb_client(b, DNSB_PDNS_TIMEOUT, p->cfg.ca_file, err)) != 0 || (rc = dnsb_pdns_probe(p, err)) != 0 ||
	    (rc = open_zones(p, err)) != 0)
		return rc;
	limits->max_changes = p->cfg.batch_size;
	limits->names_culprit = 1;
	limits->unconditional = 1;
	dnsb_log(DNSB_LOG_DEBUG, "pdns: server %s (id %s), %zu zones, key from %s, %zu changes per PATCH", p->cfg.server,
		 p->cfg.server_id, b->zone_count, p->cfg.key_source, p->cfg.batch_size);
	return 0;
}

static const dnsb_hb_methods pdns_methods = {
	DNSB_HB_OPS("pdns"), "zone of the PowerDNS server", sizeof(dnsb_pdns), NULL,
	pdns_open_state, call, dnsb_pdns_reply_error, pdns_submit, pdns_read, pdns_close,
	0, 0, /* a server of one's own: no account limit */
};

static int pdns_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &pdns_methods, cfg, err);
}

const dnsb_backend dnsb_backend_pdns = DNSB_BACKEND_INIT(
	"pdns", "PowerDNS Authoritative HTTP API (a pre-check read, then one PATCH per batch)", dnsb_pdns_flags,
	dnsb_budget_flags, pdns_open, &pdns_methods.ops);
