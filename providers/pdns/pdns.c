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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "providers/pdns/pdns.h"

/* One request with the key; the body, when any, is JSON. */
static int call(dnsb_pdns *p, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	const char *headers[] = { p->key_header, "Accept: application/json", body ? "Content-Type: application/json" : NULL,
				  NULL };
	dnsb_http_request req = { method, url, headers, body, body ? strlen(body) : 0, 0 };

	memset(out, 0, sizeof(*out));
	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	return dnsb_http_do(p->http, &req, out, err);
}

/* GET a JSON document; other answers than 200 JSON become codes. */
static int get_json(dnsb_pdns *p, const char *url, const char *what, double give_up, json_object **doc, long *status,
		    dnsb_error *err)
{
	dnsb_http_response resp;
	dnsb_error e;
	int rc;

	*doc = NULL;
	*status = 0;
	if ((rc = call(p, "GET", url, NULL, give_up, &resp, err)) != 0)
		return rc;
	*status = resp.status;
	if (resp.status != 200)
		rc = dnsb_pdns_reply_error(&resp, what, err);
	else if ((rc = dnsb_http_json(doc, &resp, &e)) != 0)
		rc = dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_ETRANSIENT, "%s: %s", what, e.message);
	dnsb_http_response_clear(&resp);
	return rc;
}

/* The zone's RRsets (those of keys when n > 0) by one GET. */
static int read_zone(dnsb_pdns *p, const char *zone_id, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, long *status, dnsb_error *err)
{
	char *url = dnsb_pdns_url(&p->cfg, "/zones/%s", zone_id), what[300];
	json_object *doc = NULL;
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	snprintf(what, sizeof(what), "GET zone %.200s", zone_id);
	if ((rc = get_json(p, url, what, give_up, &doc, status, err)) == 0 &&
	    (rc = dnsb_pdns_rrsets_parse(out, doc, keys, n, err)) == DNSB_EPARSE)
		rc = dnsb_error_set(err, DNSB_ETRANSIENT, "%s: %s", what, err ? err->message : "not a zone");
	json_object_put(doc);
	free(url);
	return rc;
}

static const char *zone_id(const dnsb_pdns *p, const char *apex)
{
	for (size_t i = 0; i < p->zone_count; i++)
		if (strcmp(p->zones[i].name, apex) == 0)
			return p->zones[i].id;
	return NULL;
}

/* Send the PATCH of the checked batch and classify the answer. */
static int send_patch(dnsb_pdns *p, const char *id, const dnsb_pdns_patch *patch, dnsb_change *const *changes,
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
	rc = call(p, "PATCH", url, body, give_up, &resp, &e);
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

static int pdns_submit(void *opaque, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		       dnsb_result *out, dnsb_error *err)
{
	dnsb_pdns *p = opaque;
	double give_up = timeout > 0 ? dnsb_monotonic() + timeout : 0;
	const char *id = zone_id(p, zone);
	dnsb_rrset_list held = { 0 };
	dnsb_pdns_patch patch;
	dnsb_error e = { 0, "" };
	long status = 0;
	int rc;

	dnsb_result_init(out);
	if (id == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 404, "", "the PowerDNS server holds no zone %s", zone);
		return 0;
	}
	if ((rc = read_zone(p, id, NULL, 0, give_up, &held, &status, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_result_from_error(out, rc, (int)status, "pre-check read", &e, err);
	}
	if ((rc = dnsb_pdns_check(&patch, out, changes, n, &held)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_error_set(err, rc, "out of memory checking %zu changes", n);
	}
	if (out->cls != DNSB_CLASS_OK)
		dnsb_log(DNSB_LOG_DEBUG, "pdns: pre-check %s: %zu of %zu changes conflict; nothing sent", id,
			 out->culprit_count, n);
	else if (patch.count > 0)
		rc = send_patch(p, id, &patch, changes, n, give_up, out, err);
	dnsb_pdns_patch_clear(&patch);
	dnsb_rrset_list_clear(&held);
	return rc;
}

static int pdns_read(void *opaque, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_pdns *p = opaque;
	const char *id = zone_id(p, zone);
	long status;

	if (id == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "the PowerDNS server holds no zone %s", zone);
	if (n == 0)
		return 0;
	return read_zone(p, id, keys, n, timeout > 0 ? dnsb_monotonic() + timeout : 0, out, &status, err);
}

static int pdns_list(void *opaque, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_pdns *p = opaque;
	const char *id = zone_id(p, zone);
	long status;

	if (id == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "the PowerDNS server holds no zone %s", zone);
	return read_zone(p, id, NULL, 0, 0, out, &status, err);
}

static void pdns_close(void *opaque)
{
	dnsb_pdns *p = opaque;

	if (p == NULL)
		return;
	if (p->http)
		dnsb_log(DNSB_LOG_DEBUG, "pdns: %lu requests, %lu connections opened", dnsb_http_requests(p->http),
			 dnsb_http_connections(p->http));
	dnsb_http_free(p->http);
	dnsb_secret_free(p->key_header);
	for (size_t i = 0; i < p->zone_count; i++) {
		free(p->zones[i].name);
		free(p->zones[i].id);
	}
	free(p->zones);
	dnsb_pdns_config_clear(&p->cfg);
	free(p);
}

static const dnsb_provider_ops pdns_ops = {
	DNSB_PROVIDER_OPS_VERSION, "pdns", pdns_submit, pdns_read, pdns_list, pdns_close,
};

/* The zones of --pdns-zone, or every zone of the server (GET .../zones). */
static int open_zones(dnsb_pdns *p, dnsb_error *err)
{
	char *url;
	json_object *doc = NULL;
	dnsb_error e = { 0, "" };
	long status;
	int rc;

	if (p->cfg.zone_count > 0) {
		p->zones = p->cfg.zones;
		p->zone_count = p->cfg.zone_count;
		p->cfg.zones = NULL;
		p->cfg.zone_count = 0;
		return 0;
	}
	if ((url = dnsb_pdns_url(&p->cfg, "/zones")) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = get_json(p, url, "GET zones", dnsb_monotonic() + DNSB_PDNS_TIMEOUT, &doc, &status, &e);
	free(url);
	if (rc == 0)
		rc = dnsb_pdns_zones_parse(&p->zones, &p->zone_count, doc, &e);
	json_object_put(doc);
	if (rc != 0)
		return dnsb_error_set(err, rc == DNSB_ENOMEM ? rc : DNSB_EINVAL, "%s at %s (or give the zones with --pdns-zone)",
				      e.message, p->cfg.server);
	if (p->zone_count == 0)
		return dnsb_error_set(err, DNSB_EINVAL, "the PowerDNS server %s (server id %s) holds no zones", p->cfg.server,
				      p->cfg.server_id);
	return 0;
}

static int open_state(dnsb_pdns *p, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_http_options http = DNSB_HTTP_OPTIONS_INIT;
	size_t len;
	int rc;

	if ((rc = dnsb_pdns_config_parse(&p->cfg, cfg, err)) != 0)
		return rc;
	len = strlen(p->cfg.api_key) + sizeof("X-API-Key: ");
	if ((p->key_header = malloc(len)) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	snprintf(p->key_header, len, "X-API-Key: %s", p->cfg.api_key);
	http.timeout = DNSB_PDNS_TIMEOUT;
	http.ca_file = p->cfg.ca_file;
	if ((rc = dnsb_http_new(&p->http, &http, err)) != 0 || (rc = dnsb_pdns_probe(p, err)) != 0)
		return rc;
	return open_zones(p, err);
}

static int pdns_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_pdns *p = calloc(1, sizeof(*p));
	dnsb_provider_limits limits = { 0 };
	dnsb_provider *prov;
	int rc;

	*out = NULL;
	if (p == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = open_state(p, cfg, err)) != 0) {
		pdns_close(p);
		return rc;
	}
	if ((rc = dnsb_provider_alloc(&prov, &pdns_ops, p)) != 0)
		return dnsb_error_set(err, rc, "out of memory");
	for (size_t i = 0; i < p->zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(prov, p->zones[i].name, err)) != 0) {
			dnsb_provider_free(prov);
			return rc;
		}
	}
	limits.max_changes = p->cfg.batch_size;
	limits.names_culprit = 1;
	limits.unconditional = 1;
	dnsb_provider_set_limits(prov, &limits);
	dnsb_log(DNSB_LOG_DEBUG, "pdns: server %s (id %s), %zu zones, key from %s, %zu changes per PATCH", p->cfg.server,
		 p->cfg.server_id, p->zone_count, p->cfg.key_source, p->cfg.batch_size);
	*out = prov;
	return 0;
}

static const dnsb_provider_flag pdns_flags[] = {
	{ "pdns-server", 1, "the API's base URL, http(s)://HOST:PORT (required)" },
	{ "pdns-server-id", 1, "the server id in the API's paths (default " DNSB_PDNS_SERVER_ID_DEFAULT ")" },
	{ "pdns-zone", 1, "a zone to manage (repeatable; default: every zone of the server, from GET .../zones)" },
	{ "pdns-batch-change-size", 1, "changes per PATCH (default 1000)" },
	{ "pdns-api-key-file", 1, "file holding the API key (or $" DNSB_PDNS_API_KEY_ENV "; never on the command line)" },
	{ "pdns-ca-file", 1, "PEM file of the CAs to trust instead of the system's, for https (TLS is always verified)" },
	{ NULL, 0, NULL },
};

const dnsb_backend dnsb_backend_pdns = {
	"pdns",
	"PowerDNS Authoritative HTTP API (a pre-check read, then one PATCH per batch)",
	pdns_flags,
	pdns_open,
};
