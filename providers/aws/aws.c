/*
 * aws.c - the aws provider (Route53): each batch is one
 * ChangeResourceRecordSets, signed with SigV4 by libcurl; read and list by
 * ListResourceRecordSets (paginated); zones from --aws-zone-id or
 * ListHostedZones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "applier/core/clock.h"
#include "providers/aws/aws.h"
#include "applier/net/ratelimit.h"
#include "providers/registry.h"

/* ---- signed calls ---- */

static int send_signed(dnsb_aws *a, const char *method, const char *url, const char *body, int refresh,
		       double give_up, dnsb_http_response *out, dnsb_error *err)
{
	char *userpwd = NULL, *token = NULL;
	const char *headers[3] = { NULL, NULL, NULL };
	dnsb_http_sigv4 sign = { DNSB_AWS_SIGV4, NULL };
	size_t k = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (give_up > 0 && give_up <= dnsb_monotonic())
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	if ((rc = dnsb_aws_creds_get(&userpwd, &token, &a->creds, a->base.http, refresh, give_up, err)) != 0)
		return rc;
	if (token)
		headers[k++] = token;
	if (body)
		headers[k++] = "Content-Type: text/xml";
	sign.userpwd = userpwd;
	rc = dnsb_hb_send(&a->base, method, url, headers, body, &sign, give_up, out, err);
	dnsb_secret_free(userpwd);
	dnsb_secret_free(token);
	return rc;
}

/* One request; when the service calls the credentials expired, new ones and one more try. */
static int call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	dnsb_aws *a = (dnsb_aws *)b;
	char code[64];
	int rc = send_signed(a, method, url, body, 0, give_up, out, err);

	if (rc != 0 || (out->status != 403 && out->status != 400))
		return rc;
	dnsb_aws_error_code(code, sizeof(code), out->body, out->body_len);
	if (strcmp(code, "Throttling") == 0 || strcmp(code, "PriorRequestNotComplete") == 0)
		dnsb_http_throttled(b->http); /* a 429 is fed back by the client itself */
	if (strcmp(code, "ExpiredToken") != 0 || a->creds.source == DNSB_AWS_CREDS_ENV ||
	    a->creds.source == DNSB_AWS_CREDS_FILE)
		return 0;
	dnsb_log(DNSB_LOG_INFO, "aws: %s %s: ExpiredToken, fetching new credentials from %s", method, url,
		 a->creds.describe);
	dnsb_http_response_clear(out);
	return send_signed(a, method, url, body, 1, give_up, out, err);
}

/* ---- listing ---- */

/*
 * ListResourceRecordSets from (name, type) on, page by page; with `owner`,
 * only that name (the listing is in name order, so it stops past it).
 * libcurl 7.88 signs the query as written: the parameters go in sorted order.
 * A dnsb_hb_list_fn.
 */
static int list_rrsets(dnsb_hb *b, const dnsb_hb_zone *zone, const char *owner, uint16_t type, const dnsb_rrkey *keys,
		       size_t n, double give_up, dnsb_rrset_list *out, dnsb_hb_tags *tags, dnsb_error *err)
{
	dnsb_aws *a = (dnsb_aws *)b;
	char *name = owner ? dnsb_http_escape(owner) : NULL, *tname = NULL, *id = NULL, *url = NULL;
	int rc = 0, past = 0;

	(void)tags; /* Route53 writes by value */
	if (owner && name == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (owner && type && (tname = strdup(dnsb_type_name(type))) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t page = 0; rc == 0 && page < DNSB_AWS_PAGES_MAX; page++) {
		dnsb_http_response resp;
		char *next_name = NULL, *next_type = NULL, *next_id = NULL, *e_id = id ? dnsb_http_escape(id) : NULL,
		     *e_type = tname ? dnsb_http_escape(tname) : NULL;
		int len = asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s/rrset?%s%s%smaxitems=%d%s%s%s%s", a->cfg.endpoint,
				   zone->id, e_id ? "identifier=" : "", e_id ? e_id : "", e_id ? "&" : "", DNSB_AWS_PAGE_SIZE,
				   name ? "&name=" : "", name ? name : "", e_type && name ? "&type=" : "",
				   e_type && name ? e_type : "");
		free(e_id);
		free(e_type);
		if (len < 0) {
			url = NULL;
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
			break;
		}
		if ((rc = dnsb_hb_get(b, url, "ListResourceRecordSets", give_up, &resp, NULL, err)) != 0)
			break;
		rc = dnsb_aws_rrsets_parse(out, resp.body, resp.body_len, owner, keys, n, &next_name, &next_type,
					   &next_id, &past, err);
		dnsb_http_response_clear(&resp);
		free(url);
		url = NULL;
		free(name);
		free(tname);
		free(id);
		name = next_name ? dnsb_http_escape(next_name) : NULL;
		tname = next_type;
		id = next_id;
		free(next_name);
		if (rc != 0 || past || name == NULL)
			break;
	}
	free(url);
	free(name);
	free(tname);
	free(id);
	return rc;
}

#define READ_BY_NAME_MAX 16

/* The RRsets of keys that exist: one listing per owner name when there are few, else the whole zone. */
static int aws_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		    dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_hb_read_by_owner(b, zone, keys, n, READ_BY_NAME_MAX, list_rrsets, give_up, out, NULL, err);
}

/* ---- submit ---- */

/* Send the body and classify the answer; with --aws-wait-insync, wait for an accepted change. */
static int post_change(dnsb_aws *a, const dnsb_hb_zone *zone, const dnsb_aws_body *body, dnsb_change *const *changes,
		       size_t n, double give_up, dnsb_result *out, dnsb_error *err)
{
	dnsb_http_response resp;
	dnsb_error e = { 0, "" };
	char *url = NULL;
	int rc;

	if (asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s/rrset/", a->cfg.endpoint, zone->id) < 0)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if ((rc = dnsb_interval_wait(&a->base.pace, give_up, &e)) == 0)
		rc = call(&a->base, "POST", url, body->xml, give_up, &resp, &e);
	free(url);
	if (rc != 0)
		return dnsb_result_from_error(out, rc, 0, "ChangeResourceRecordSets", &e, err);
	dnsb_aws_classify(out, &resp, changes, n);
	dnsb_log(DNSB_LOG_DEBUG, "aws: ChangeResourceRecordSets %s: %zu changes, %zu records: HTTP %ld %s%s%s, %zu culprits",
		 zone->apex, body->count, body->records, resp.status, dnsb_class_name(out->cls), out->code[0] ? " " : "",
		 out->code, out->culprit_count);
	if (out->cls == DNSB_CLASS_OK && a->cfg.wait_insync)
		dnsb_aws_wait_insync(a, zone->apex, resp.body, resp.body_len, give_up);
	dnsb_http_response_clear(&resp);
	return 0;
}

static int aws_submit(dnsb_hb *b, const dnsb_hb_zone *zone, dnsb_change *const *changes, size_t n, double give_up,
		      dnsb_result *out, dnsb_error *err)
{
	dnsb_aws_targets targets = { b->zones, b->zone_count, zone->id };
	dnsb_rrset_list held = { 0 };
	dnsb_aws_body body;
	dnsb_error e = { 0, "" };
	int rc;

	/* An AliasTarget needs its hosted zone: a batch holding an alias in none is refused here, unsent. */
	if (dnsb_aws_alias_unplaced(out, changes, n, targets.zones, targets.count, zone->id)) {
		dnsb_log(DNSB_LOG_DEBUG, "aws: ChangeResourceRecordSets %s: not sent: %s", zone->apex, out->message);
		return 0;
	}
	if ((rc = dnsb_hb_read_unset_ttls(b, zone, changes, n, give_up, &held, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_result_from_error(out, rc, 0, "reading the TTLs of old records sent without one", &e, err);
	}
	rc = dnsb_aws_body_build(&body, changes, n, &held, &targets, err);
	dnsb_rrset_list_clear(&held);
	if (rc != 0)
		return rc;
	rc = post_change((dnsb_aws *)b, zone, &body, changes, n, give_up, out, err);
	dnsb_aws_body_clear(&body);
	return rc;
}

static void aws_close(dnsb_hb *b)
{
	dnsb_aws *a = (dnsb_aws *)b;

	if (a->creds_ready) {
		dnsb_log(DNSB_LOG_DEBUG, "aws: %lu credentials fetched", a->creds.fetches);
		dnsb_aws_creds_clear(&a->creds);
	}
	dnsb_aws_config_clear(&a->cfg);
}

/* ---- open ---- */

/* --aws-zone-id: each zone's apex from GetHostedZone. */
static int zones_by_id(dnsb_aws *a, double give_up, dnsb_error *err)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < a->cfg.zone_id_count; i++) {
		dnsb_http_response resp;
		char *url = NULL, *name, *apex;
		if (asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s", a->cfg.endpoint, a->cfg.zone_ids[i]) < 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		rc = dnsb_hb_get(&a->base, url, "GetHostedZone", give_up, &resp, NULL, err);
		free(url);
		if (rc != 0)
			break;
		name = dnsb_aws_xml_find(resp.body, resp.body_len, "Name");
		dnsb_http_response_clear(&resp);
		apex = name ? dnsb_aws_name_decode(name) : NULL;
		free(name);
		if (apex == NULL)
			rc = dnsb_error_set(err, DNSB_EPARSE, "GetHostedZone %s: no zone name in the reply", a->cfg.zone_ids[i]);
		else if (dnsb_hb_zones_push(&a->base.zones, &a->base.zone_count, apex, a->cfg.zone_ids[i]) != 0)
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	return rc;
}

/* ListHostedZones, every page, filtered by --aws-zone-type. */
typedef struct zones_listing {
	dnsb_aws *a;
	double give_up;
} zones_listing;

static int zones_page(void *payload, const char *marker, char **next, dnsb_error *err)
{
	zones_listing *l = payload;
	dnsb_aws *a = l->a;
	dnsb_http_response resp;
	char *url = NULL, *e = marker ? dnsb_http_escape(marker) : NULL;
	int rc, len = asprintf(&url, "%s" DNSB_AWS_API "/hostedzone?%s%s%smaxitems=100", a->cfg.endpoint,
			       e ? "marker=" : "", e ? e : "", e ? "&" : "");

	free(e);
	if (len < 0 || (marker && e == NULL))
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	rc = dnsb_hb_get(&a->base, url, "ListHostedZones", l->give_up, &resp, NULL, err);
	free(url);
	if (rc != 0)
		return rc;
	rc = dnsb_aws_zones_parse(&a->base.zones, &a->base.zone_count, resp.body, resp.body_len, a->cfg.zone_type, next,
				  err);
	dnsb_http_response_clear(&resp);
	return rc;
}

static int zones_list(dnsb_aws *a, double give_up, dnsb_error *err)
{
	zones_listing l = { a, give_up };

	return dnsb_hb_pages("ListHostedZones", DNSB_AWS_PAGES_MAX, zones_page, &l, err);
}

/* The settings, the credential chain, the client and the hosted zones. */
static int open_account(dnsb_aws *a, const dnsb_config *cfg, dnsb_error *err)
{
	double give_up;
	int rc;

	if ((rc = dnsb_aws_config_parse(&a->cfg, cfg, err)) != 0)
		return rc;
	rc = dnsb_aws_creds_init(&a->creds, &a->cfg, err);
	a->creds_ready = 1;
	if (rc != 0)
		return rc;
	if ((rc = dnsb_hb_client(&a->base, DNSB_AWS_TIMEOUT, a->cfg.ca_file, err)) != 0)
		return rc;
	give_up = dnsb_monotonic() + DNSB_AWS_TIMEOUT;
	rc = a->cfg.zone_id_count ? zones_by_id(a, give_up, err) : zones_list(a, give_up, err);
	if (rc == 0 && a->base.zone_count == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL, "no hosted zones%s", a->cfg.zone_type ? " of that --aws-zone-type" : "");
	return rc;
}

/* external-dns's aws provider makes a CNAME to an AWS service's name (a load balancer, CloudFront) an alias. */
static int alias_preferred(const char *target)
{
	return dnsb_aws_service_zone(target) != NULL;
}

static int aws_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_aws *a = (dnsb_aws *)b;
	int rc;

	if ((rc = open_account(a, cfg, err)) != 0)
		return rc;
	b->pace.every = a->cfg.interval;
	/* Route53 counts ResourceRecord elements (1000) and value characters (32,000) per request, a DELETE's
	 * and a CREATE's each (an update sends both), so batches are cut within them before they are sent; an
	 * alias counts its target as one record of its length (it sends none: the count errs on the safe side). */
	limits->max_changes = a->cfg.batch_size;
	limits->max_records = DNSB_AWS_MAX_RECORDS;
	limits->max_rdata_bytes = DNSB_AWS_MAX_VALUE_CHARS;
	limits->names_culprit = 1;
	limits->aliases = 1;
	limits->set_ids = 1;
	limits->alias_preferred = a->cfg.prefer_cname ? NULL : alias_preferred;
	limits->alias_health = !a->cfg.no_health;
	dnsb_log(DNSB_LOG_DEBUG, "aws: %zu hosted zones, credentials: %s", b->zone_count, a->creds.describe);
	return 0;
}

static const dnsb_hb_methods aws_methods = {
	DNSB_HB_OPS("aws"), "hosted zone", sizeof(dnsb_aws), "aws-batch-change-interval",
	aws_open_state, call, dnsb_aws_reply_error, aws_submit, aws_read, aws_close,
	/* Route53: five requests per second per AWS account (Route 53 quotas, "Number of API requests"), a bucket of
	 * five; the budget grants a margin below both (applier/net/ratelimit.h), so that jitter meets no throttle. */
	5, 5,
};

static int aws_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &aws_methods, cfg, err);
}

const dnsb_backend dnsb_backend_aws = DNSB_BACKEND_INIT(
	"aws",
	"Amazon Route53 (ChangeResourceRecordSets, ListResourceRecordSets) signed with SigV4; AWS SDK credential chain",
	dnsb_aws_flags, dnsb_budget_flags, aws_open, &aws_methods.ops);
