/*
 * cloudflare.c - the cloudflare provider (Cloudflare API v4) on the HTTP
 * backend skeleton: a batch is a read of its names (records and ids), the
 * pre-check, one POST /zones/{id}/dns_records/batch and a read-back of its
 * RRsets (another client's write in the window: `race`); read and list by
 * GET /zones/{id}/dns_records (paginated); zones from --cloudflare-zone-id
 * (GET /zones/{id}) or GET /zones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "applier/core/stop.h"
#include "providers/cloudflare/cloudflare.h"
#include "applier/net/throttle.h"
#include "applier/net/ratelimit.h"

/*
 * One request with the credentials; the body, when any, is JSON. The
 * transport's throttle chain holds it first while the token's RateLimit
 * header says little is left, or a 429's Retry-After holds it (pace.c, the
 * chain's pacer); when that wait would pass give_up, nothing is sent
 * (DNSB_ERATELIMIT; the client keeps the hold: dnsb_http_held).
 */
static int call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	dnsb_cf *cf = (dnsb_cf *)b;
	const char *headers[5] = { "Accept: application/json", NULL, NULL, NULL, NULL };
	size_t k = 1;

	for (size_t i = 0; cf->cfg.auth[i]; i++)
		headers[k++] = cf->cfg.auth[i];
	if (body)
		headers[k++] = "Content-Type: application/json";
	return dnsb_hb_send(b, method, url, headers, body, NULL, give_up, out, err);
}

/* endpoint + "/zones/" + zone id + rest. @return a malloc'd URL or NULL */
static char *zone_url(const dnsb_cf *cf, const char *zone_id, const char *rest)
{
	char *id = dnsb_http_escape(zone_id), *url = NULL;

	if (id && asprintf(&url, "%s/zones/%s%s", cf->cfg.endpoint, id, rest) < 0)
		url = NULL;
	free(id);
	return url;
}

/* ---- listing records ---- */

typedef struct listing {
	dnsb_cf *cf;
	const dnsb_hb_zone *zone;
	char *query;               /* "&name=...&type=..." or "" */
	const dnsb_rrkey *keys;
	size_t n;
	double give_up;
	dnsb_rrset_list *out;
	dnsb_hb_tags *ids;
	const char *what;
} listing;

static int records_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	listing *l = payload;
	char *rest = NULL, *url;
	json_object *doc = NULL;
	int rc;

	if (asprintf(&rest, "/dns_records?per_page=%d&page=%s%s", DNSB_CF_PAGE_SIZE, token ? token : "1", l->query) < 0)
		rest = NULL;
	url = rest ? zone_url(l->cf, l->zone->id, rest) : NULL;
	free(rest);
	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_hb_get_json(&l->cf->base, url, l->what, l->give_up, &doc, NULL, err)) == 0 &&
	    (rc = dnsb_cf_records_parse(l->out, l->ids, &l->cf->cfg, doc, l->keys, l->n, next, err)) == DNSB_EPARSE)
		rc = DNSB_ETRANSIENT; /* a reply we cannot read: maybe not the API's */
	json_object_put(doc);
	free(url);
	return rc;
}

/* The records at `owner` (of `type` when not 0), or of the whole zone: a dnsb_hb_list_fn. */
static int list_records(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type, const dnsb_rrkey *keys,
			size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *ids, dnsb_error *err)
{
	char what[400];
	listing l = { (dnsb_cf *)b, zone, NULL, keys, n, give_up, out, ids, what };
	int rc;

	snprintf(what, sizeof(what), "GET dns_records of zone %s%s%s", zone->apex, owner ? " at " : "", owner ? owner : "");
	if ((rc = dnsb_hb_owner_query(&l.query, owner, "name", type, "type", err)) != 0)
		return rc;
	rc = dnsb_hb_pages(what, DNSB_CF_PAGES_MAX, records_page, &l, err);
	free(l.query);
	return rc;
}

static int cf_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		   dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_hb_read_by_owner(b, zone, keys, n, DNSB_CF_READ_BY_NAME_MAX, list_records, give_up, out, NULL, err);
}

/* ---- submit ---- */

/* Send the batch and classify the answer. */
static int post_batch(dnsb_cf *cf, const dnsb_hb_zone *zone, const dnsb_cf_batch *batch, double give_up,
		      dnsb_result *out, dnsb_error *err)
{
	char *url = zone_url(cf, zone->id, "/dns_records/batch");
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	int rc;

	if (url == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = call(&cf->base, "POST", url, batch->json, give_up, &resp, &e);
	free(url);
	if (rc != 0)
		return dnsb_result_from_error(out, rc, 0, "POST dns_records/batch", &e, err);
	dnsb_cf_classify(out, &resp, batch);
	dnsb_log(DNSB_LOG_DEBUG, "cloudflare: batch %s: %zu deletes, %zu posts: HTTP %ld %s%s%s, %zu culprits", zone->apex,
		 batch->delete_count, batch->post_count, resp.status, dnsb_class_name(out->cls), out->code[0] ? " " : "",
		 out->code, out->culprit_count);
	dnsb_http_response_clear(&resp);
	return 0;
}

/* Build the batch of the pre-checked changes and send it (nothing when nothing changes). */
static int write_batch(dnsb_cf *cf, const dnsb_hb_zone *zone, const dnsb_precheck *pc, const dnsb_hb_tags *ids,
		       dnsb_change *const *changes, size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_cf_batch batch;
	dnsb_error e = { 0, "" };
	size_t bad = 0;
	int rc = dnsb_cf_batch_build(&batch, pc, ids, changes, n, &cf->cfg, &bad, &e);

	if (rc == DNSB_EINVAL) {
		dnsb_result_set(out, DNSB_CLASS_INVALID, 0, "", "%s", e.message);
		dnsb_result_add_culprit_note(out, bad, e.message);
		return 0;
	}
	if (rc != 0)
		return dnsb_error_set(err, rc, "%s", e.message);
	if (dnsb_cf_batch_size(&batch) > cf->cfg.batch_size)
		dnsb_result_set(out, DNSB_CLASS_TOO_LARGE, 0, "", "%zu operations, more than --cloudflare-batch-change-size %zu",
				dnsb_cf_batch_size(&batch), cf->cfg.batch_size);
	else if (dnsb_cf_batch_size(&batch) > 0)
		rc = post_batch(cf, zone, &batch, give_up, out, err);
	dnsb_cf_batch_clear(&batch);
	return rc;
}

/*
 * After an accepted batch: read its RRsets back and count those another
 * client wrote in the window between the pre-check's read and the POST
 * (dnsb_precheck_races: a `race` warning names each). Cloudflare adds a
 * record posted beside one another client made meanwhile, so the RRset
 * holds both. A failed read proves nothing either way: the batch stays
 * applied, and the failure is logged.
 */
static void check_races(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_precheck *pc, double give_up, dnsb_result *out)
{
	dnsb_rrkey *keys = calloc(pc->count + 1, sizeof(*keys));
	dnsb_rrset_list after = { 0 };
	dnsb_error e = { 0, "out of memory" };
	int rc = keys ? 0 : DNSB_ENOMEM;

	for (size_t i = 0; keys && i < pc->count; i++)
		keys[i] = (dnsb_rrkey){ pc->entries[i].owner, pc->entries[i].type };
	if (rc == 0)
		rc = dnsb_hb_read_by_owner(b, zone, keys, pc->count, DNSB_CF_READ_BY_NAME_MAX, list_records, give_up, &after,
					   NULL, &e);
	if (rc == 0)
		out->races = dnsb_precheck_races(pc, &after, zone->apex);
	else
		dnsb_log(DNSB_LOG_INFO, "cloudflare: zone %s: reading back after the batch failed (%s): a write by another "
			 "client in the window would go unnoticed", zone->apex, e.message);
	dnsb_rrset_list_clear(&after);
	free(keys);
}

static int cf_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		     dnsb_result *out, dnsb_error *err)
{
	dnsb_rrset_list held = { 0 };
	dnsb_hb_tags ids = { 0 };
	dnsb_precheck pc = { 0 };
	dnsb_rrkey *keys;
	dnsb_error e = { 0, "" };
	int k = dnsb_precheck_keys(&keys, changes, n), rc;

	if (k < 0)
		return dnsb_error_set(err, k, "out of memory");
	rc = dnsb_hb_read_by_owner(b, zone, keys, (size_t)k, DNSB_CF_READ_BY_NAME_MAX, list_records, give_up, &held, &ids,
				   &e);
	free(keys);
	if (rc != 0)
		rc = dnsb_result_from_error(out, rc, 0, "reading the batch's names", &e, err);
	else if ((rc = dnsb_precheck_run(&pc, out, changes, n, &held, NULL)) != 0)
		rc = dnsb_error_set(err, rc, "out of memory checking %zu changes", n);
	else if (out->cls != DNSB_CLASS_OK)
		dnsb_log(DNSB_LOG_DEBUG, "cloudflare: pre-check %s: %zu of %zu changes conflict; nothing sent", zone->apex,
			 out->culprit_count, n);
	else if ((rc = write_batch((dnsb_cf *)b, zone, &pc, &ids, changes, n, give_up, out, err)) == 0 &&
		 out->cls == DNSB_CLASS_OK && pc.count > 0)
		check_races(b, zone, &pc, give_up, out);
	dnsb_precheck_clear(&pc);
	dnsb_hb_tags_clear(&ids);
	dnsb_rrset_list_clear(&held);
	return rc;
}

static void cf_close(dnsb_hb *b)
{
	dnsb_cf *cf = (dnsb_cf *)b;

	if (cf->pace.w.slowed)
		dnsb_log(DNSB_LOG_INFO, "cloudflare: %lu requests held back %.1f s in all by the RateLimit header",
			 cf->pace.w.slowed, cf->pace.w.waited);
	dnsb_cf_pace_clear(&cf->pace);
	dnsb_cf_config_clear(&cf->cfg);
}

/* ---- open ---- */

/* One zone object {"id", "name"} into the zones. */
static int take_zone(dnsb_cf *cf, json_object *z)
{
	json_object *id, *name;
	char *apex;

	if (!json_object_object_get_ex(z, "id", &id) || !json_object_object_get_ex(z, "name", &name) ||
	    !json_object_is_type(id, json_type_string) || !json_object_is_type(name, json_type_string) ||
	    dnsb_name_canonical(&apex, json_object_get_string(name), NULL) != 0)
		return DNSB_EPARSE;
	return dnsb_hb_zones_push(&cf->base.zones, &cf->base.zone_count, apex, json_object_get_string(id));
}

typedef struct zones_listing {
	dnsb_cf *cf;
	double give_up;
} zones_listing;

static int zones_page(void *payload, const char *token, char **next, dnsb_error *err)
{
	zones_listing *l = payload;
	char *url = NULL;
	json_object *doc = NULL, *list, *info, *at, *total;
	int rc;

	if (asprintf(&url, "%s/zones?per_page=50&page=%s", l->cf->cfg.endpoint, token ? token : "1") < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_hb_get_json(&l->cf->base, url, "GET /zones", l->give_up, &doc, NULL, err);
	free(url);
	if (rc == 0 && (!json_object_object_get_ex(doc, "result", &list) || !json_object_is_type(list, json_type_array)))
		rc = DNSB_EPARSE;
	for (size_t i = 0; rc == 0 && i < json_object_array_length(list); i++)
		rc = take_zone(l->cf, json_object_array_get_idx(list, i));
	if (rc == 0 && json_object_object_get_ex(doc, "result_info", &info) && json_object_object_get_ex(info, "page", &at) &&
	    json_object_object_get_ex(info, "total_pages", &total) && json_object_get_int(at) < json_object_get_int(total) &&
	    asprintf(next, "%d", json_object_get_int(at) + 1) < 0)
		rc = DNSB_ENOMEM;
	json_object_put(doc);
	if (rc == DNSB_EPARSE)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "GET /zones: not a zone listing");
	return rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory") : rc;
}

/* --cloudflare-zone-id: each zone's name from GET /zones/{id} (a token without the zone stops here). */
static int zones_by_id(dnsb_cf *cf, const dnsb_config *cfg, double give_up, dnsb_error *err)
{
	const char *id;
	size_t iter = 0;
	int rc = 0;

	while (rc == 0 && (id = dnsb_config_next(cfg, "cloudflare-zone-id", &iter)) != NULL) {
		char *url = zone_url(cf, id, ""), what[120];
		json_object *doc = NULL, *result;
		if (url == NULL)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		snprintf(what, sizeof(what), "GET /zones/%.64s", id);
		rc = dnsb_hb_get_json(&cf->base, url, what, give_up, &doc, NULL, err);
		free(url);
		if (rc == 0 && !json_object_object_get_ex(doc, "result", &result))
			result = NULL;
		if (rc == 0 && (rc = result ? take_zone(cf, result) : DNSB_EPARSE) != 0)
			rc = rc == DNSB_ENOMEM ? dnsb_error_set(err, rc, "out of memory")
					       : dnsb_error_set(err, DNSB_EFATAL, "%s: no zone in the reply", what);
		json_object_put(doc);
	}
	return rc;
}

static int cf_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_cf *cf = (dnsb_cf *)b;
	zones_listing l = { cf, 0 };
	dnsb_pacer pacer;
	int rc;

	dnsb_cf_pace_init(&cf->pace);
	if ((rc = dnsb_cf_config_parse(&cf->cfg, cfg, err)) != 0 ||
	    (rc = dnsb_hb_client(b, DNSB_CF_TIMEOUT, cf->cfg.ca_file, err)) != 0)
		return rc;
	dnsb_cf_pacer(&pacer, &cf->pace);
	dnsb_http_set_pacer(b->http, &pacer);
	l.give_up = dnsb_monotonic() + DNSB_CF_TIMEOUT;
	rc = cf->cfg.zone_id_count ? zones_by_id(cf, cfg, l.give_up, err) :
				     dnsb_hb_pages("GET /zones", DNSB_CF_PAGES_MAX, zones_page, &l, err);
	if (rc == 0 && b->zone_count == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL, "the Cloudflare credentials (%s) reach no zone", cf->cfg.auth_source);
	if (rc != 0)
		return rc;
	limits->max_changes = cf->cfg.batch_size;
	limits->names_culprit = 1;
	limits->unconditional = 1;
	/* TTLs compare exactly: dnsb_cf_props gives each RRset the TTL Cloudflare will list (cloudflare.h). */
	limits->properties = dnsb_cf_props; /* proxied and comment: dnsb_cf_effective */
	limits->properties_ctx = &cf->cfg;
	dnsb_log(DNSB_LOG_DEBUG, "cloudflare: %s, %zu zones, credentials from %s, %zu operations per batch",
		 cf->cfg.endpoint, b->zone_count, cf->cfg.auth_source, cf->cfg.batch_size);
	return 0;
}

static const dnsb_hb_methods cloudflare_methods = {
	DNSB_HB_OPS("cloudflare"), "Cloudflare zone", sizeof(dnsb_cf), NULL,
	cf_open_state, call, dnsb_cf_reply_error, cf_submit, cf_read, cf_close,
	/* Cloudflare: 1,200 requests per five minutes per token, shared by every client of it: burst + rate x 300 s
	 * within it (DNSB_CF_BUDGET_RATE). */
	DNSB_CF_BUDGET_RATE, DNSB_CF_BUDGET_BURST,
};

static int cloudflare_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &cloudflare_methods, cfg, err);
}

const dnsb_backend dnsb_backend_cloudflare = DNSB_BACKEND_INIT(
	"cloudflare",
	"Cloudflare DNS (API v4: a read of the batch's names, then one atomic dns_records/batch); $" DNSB_CF_TOKEN_ENV
	" or $" DNSB_CF_KEY_ENV "+$" DNSB_CF_EMAIL_ENV,
	dnsb_cf_flags, dnsb_budget_flags, cloudflare_open, &cloudflare_methods.ops);
