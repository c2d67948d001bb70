/*
 * aws.c - the aws provider (Route53): each batch is one
 * ChangeResourceRecordSets, signed with SigV4 by libcurl; read and list by
 * ListResourceRecordSets (paginated); zones from --aws-zone-id or
 * ListHostedZones.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/log.h"
#include "applier/core/clock.h"
#include "providers/aws/aws.h"
#include "providers/ratelimit.h"

/* ---- signed calls ---- */

static int send_signed(dnsb_aws *a, const char *method, const char *url, const char *body, int refresh,
		       double give_up, dnsb_http_response *out, dnsb_error *err)
{
	char *userpwd = NULL, *token = NULL;
	const char *headers[3] = { NULL, NULL, NULL };
	dnsb_http_sigv4 sign = { DNSB_AWS_SIGV4, NULL };
	dnsb_http_request req = { method, url, headers, body, body ? strlen(body) : 0, 0 };
	size_t k = 0;
	int rc;

	if (give_up > 0 && (req.time_left = give_up - dnsb_monotonic()) <= 0)
		return dnsb_error_set(err, DNSB_ETRANSIENT, "%s %s: no time left", method, url);
	if ((rc = dnsb_aws_creds_get(&userpwd, &token, &a->creds, a->http, refresh, give_up, err)) != 0)
		return rc;
	if (token)
		headers[k++] = token;
	if (body)
		headers[k++] = "Content-Type: text/xml";
	sign.userpwd = userpwd;
	rc = dnsb_http_do_sigv4(a->http, &req, &sign, out, err);
	dnsb_secret_free(userpwd);
	dnsb_secret_free(token);
	return rc;
}

/* One request; when the service calls the credentials expired, new ones and one more try. */
static int call(dnsb_aws *a, const char *method, const char *url, const char *body, double give_up,
		dnsb_http_response *out, dnsb_error *err)
{
	char code[64];
	int rc = send_signed(a, method, url, body, 0, give_up, out, err);

	if (rc != 0 || (out->status != 403 && out->status != 400))
		return rc;
	dnsb_aws_error_code(code, sizeof(code), out->body, out->body_len);
	if (strcmp(code, "Throttling") == 0 || strcmp(code, "PriorRequestNotComplete") == 0)
		dnsb_http_throttled(a->http); /* a 429 is fed back by the client itself */
	if (strcmp(code, "ExpiredToken") != 0 || a->creds.source == DNSB_AWS_CREDS_ENV ||
	    a->creds.source == DNSB_AWS_CREDS_FILE)
		return 0;
	dnsb_log(DNSB_LOG_INFO, "aws: %s %s: ExpiredToken, fetching new credentials from %s", method, url,
		 a->creds.describe);
	dnsb_http_response_clear(out);
	return send_signed(a, method, url, body, 1, give_up, out, err);
}

/*
 * GET a URL; a non-200 answer becomes a code through dnsb_aws_reply_error.
 * A throttle (the account's limit, shared by every client of it) is waited
 * out with full-jitter backoff while give_up allows, at zone discovery as on
 * any read: only an answer that cannot change with time ends the call.
 */
int dnsb_aws_get(dnsb_aws *a, const char *url, const char *what, double give_up, dnsb_http_response *out,
		 dnsb_error *err)
{
	for (unsigned attempt = 0;; attempt++) {
		int rc = call(a, "GET", url, NULL, give_up, out, err);
		double wait;

		if (rc != 0 || out->status == 200)
			return rc;
		rc = dnsb_aws_reply_error(out, what, err);
		dnsb_http_response_clear(out);
		if (rc != DNSB_ERATELIMIT)
			return rc;
		dnsb_http_throttled(a->http);
		wait = dnsb_uniform01(&a->rng) * fmin(DNSB_AWS_THROTTLE_CAP, DNSB_AWS_THROTTLE_BASE * ldexp(1, (int)fmin(attempt, 16)));
		if (give_up > 0 && dnsb_monotonic() + wait >= give_up)
			return rc;
		dnsb_log(DNSB_LOG_INFO, "aws: %s throttled; retrying in %.2f s", what, wait);
		dnsb_sleep(wait);
	}
}

/* ---- listing ---- */

/*
 * ListResourceRecordSets from (name, type) on, page by page; with `owner`,
 * only that name (the listing is in name order, so it stops past it).
 * libcurl 7.88 signs the query as written: the parameters go in sorted order.
 */
static int list_rrsets(dnsb_aws *a, const char *zone_id, const char *owner, uint16_t type, const dnsb_rrkey *keys,
		       size_t n, double give_up, dnsb_rrset_list *out, dnsb_error *err)
{
	char *name = owner ? dnsb_http_escape(owner) : NULL, *tname = NULL, *id = NULL, *url = NULL;
	int rc = 0, past = 0;

	if (owner && name == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (owner && type && (tname = strdup(dnsb_type_name(type))) == NULL)
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t page = 0; rc == 0 && page < DNSB_AWS_PAGES_MAX; page++) {
		dnsb_http_response resp;
		char *next_name = NULL, *next_type = NULL, *next_id = NULL, *e_id = id ? dnsb_http_escape(id) : NULL,
		     *e_type = tname ? dnsb_http_escape(tname) : NULL;
		int len = asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s/rrset?%s%s%smaxitems=%d%s%s%s%s", a->cfg.endpoint,
				   zone_id, e_id ? "identifier=" : "", e_id ? e_id : "", e_id ? "&" : "", DNSB_AWS_PAGE_SIZE,
				   name ? "&name=" : "", name ? name : "", e_type && name ? "&type=" : "",
				   e_type && name ? e_type : "");
		free(e_id);
		free(e_type);
		if (len < 0) {
			url = NULL;
			rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
			break;
		}
		if ((rc = dnsb_aws_get(a, url, "ListResourceRecordSets", give_up, &resp, err)) != 0)
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
static int read_keys(dnsb_aws *a, const char *zone_id, const dnsb_rrkey *keys, size_t n, double give_up,
		     dnsb_rrset_list *out, dnsb_error *err)
{
	const char *owners[READ_BY_NAME_MAX];
	size_t k = dnsb_rrkeys_owners(keys, n, owners, READ_BY_NAME_MAX);
	int rc = 0;

	if (k > READ_BY_NAME_MAX)
		return list_rrsets(a, zone_id, NULL, 0, keys, n, give_up, out, err);
	for (size_t i = 0; rc == 0 && i < k; i++)
		rc = list_rrsets(a, zone_id, owners[i], dnsb_rrkeys_only_type(keys, n, owners[i]), keys, n, give_up, out, err);
	return rc;
}

static const char *zone_id(const dnsb_aws *a, const char *apex)
{
	for (size_t i = 0; i < a->zone_count; i++)
		if (strcmp(a->zones[i].apex, apex) == 0)
			return a->zones[i].id;
	return NULL;
}

/* ---- submit ---- */

static int read_unset_ttls(dnsb_aws *a, const char *id, dnsb_change *const *changes, size_t n, double give_up,
			   dnsb_rrset_list *held, dnsb_error *err)
{
	dnsb_rrkey *keys;
	size_t k;
	int rc = dnsb_unset_ttl_keys(&keys, &k, changes, n);

	if (rc != 0)
		return dnsb_error_set(err, rc, "out of memory");
	rc = k ? read_keys(a, id, keys, k, give_up, held, err) : 0;
	free(keys);
	return rc;
}

static int aws_submit(void *opaque, const char *zone, dnsb_change *const *changes, size_t n, double timeout,
		      dnsb_result *out, dnsb_error *err)
{
	dnsb_aws *a = opaque;
	double give_up = timeout > 0 ? dnsb_monotonic() + timeout : 0;
	const char *id = zone_id(a, zone);
	dnsb_aws_targets targets = { a->zones, a->zone_count, id };
	dnsb_rrset_list held = { 0 };
	dnsb_http_response resp;
	dnsb_aws_body body;
	dnsb_error e = { 0, "" };
	char *url = NULL;
	int rc;

	dnsb_result_init(out);
	if (id == NULL) {
		dnsb_result_set(out, DNSB_CLASS_FATAL, 0, "", "no hosted zone serves %s", zone);
		return 0;
	}
	/* An AliasTarget needs its hosted zone: a batch holding an alias in none is refused here, unsent. */
	if (dnsb_aws_alias_unplaced(out, changes, n, targets.zones, targets.count, id)) {
		dnsb_log(DNSB_LOG_DEBUG, "aws: ChangeResourceRecordSets %s: not sent: %s", zone, out->message);
		return 0;
	}
	if ((rc = read_unset_ttls(a, id, changes, n, give_up, &held, &e)) != 0) {
		dnsb_rrset_list_clear(&held);
		return dnsb_result_from_error(out, rc, 0, "reading the TTLs of old records sent without one", &e, err);
	}
	rc = dnsb_aws_body_build(&body, changes, n, &held, &targets, err);
	dnsb_rrset_list_clear(&held);
	if (rc != 0)
		return rc;
	if (asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s/rrset/", a->cfg.endpoint, id) < 0) {
		dnsb_aws_body_clear(&body);
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	}
	if ((rc = dnsb_interval_wait(&a->pace, give_up, &e)) == 0)
		rc = call(a, "POST", url, body.xml, give_up, &resp, &e);
	free(url);
	if (rc == 0) {
		dnsb_aws_classify(out, &resp, changes, n);
		dnsb_log(DNSB_LOG_DEBUG, "aws: ChangeResourceRecordSets %s: %zu changes, %zu records: HTTP %ld %s%s%s, %zu culprits",
			 zone, body.count, body.records, resp.status, dnsb_class_name(out->cls), out->code[0] ? " " : "",
			 out->code, out->culprit_count);
		if (out->cls == DNSB_CLASS_OK && a->cfg.wait_insync)
			dnsb_aws_wait_insync(a, zone, resp.body, resp.body_len, give_up);
		dnsb_http_response_clear(&resp);
	} else {
		rc = dnsb_result_from_error(out, rc, 0, "ChangeResourceRecordSets", &e, err);
	}
	dnsb_aws_body_clear(&body);
	return rc;
}

static int aws_read(void *opaque, const char *zone, const dnsb_rrkey *keys, size_t n, double timeout,
		    dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_aws *a = opaque;
	const char *id = zone_id(a, zone);

	if (id == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no hosted zone serves %s", zone);
	return read_keys(a, id, keys, n, timeout > 0 ? dnsb_monotonic() + timeout : 0, out, err);
}

static int aws_list(void *opaque, const char *zone, dnsb_rrset_list *out, dnsb_error *err)
{
	dnsb_aws *a = opaque;
	const char *id = zone_id(a, zone);

	if (id == NULL)
		return dnsb_error_set(err, DNSB_EFATAL, "no hosted zone serves %s", zone);
	return list_rrsets(a, id, NULL, 0, NULL, 0, 0, out, err);
}

static void aws_close(void *opaque)
{
	dnsb_aws *a = opaque;

	if (a == NULL)
		return;
	if (a->http)
		dnsb_log(DNSB_LOG_DEBUG, "aws: %lu requests, %lu connections opened, %lu credentials fetched",
			 dnsb_http_requests(a->http), dnsb_http_connections(a->http), a->creds_ready ? a->creds.fetches : 0);
	dnsb_http_free(a->http);
	dnsb_budget_free(a->budget);
	if (a->creds_ready)
		dnsb_aws_creds_clear(&a->creds);
	for (size_t i = 0; i < a->zone_count; i++) {
		free(a->zones[i].apex);
		free(a->zones[i].id);
	}
	free(a->zones);
	dnsb_aws_config_clear(&a->cfg);
	dnsb_interval_clear(&a->pace);
	free(a);
}

static const dnsb_provider_ops aws_ops = {
	DNSB_PROVIDER_OPS_VERSION, "aws", aws_submit, aws_read, aws_list, aws_close,
};

/* ---- open ---- */

/* --aws-zone-id: each zone's apex from GetHostedZone. */
static int zones_by_id(dnsb_aws *a, double give_up, dnsb_error *err)
{
	int rc = 0;

	if ((a->zones = calloc(a->cfg.zone_id_count, sizeof(*a->zones))) == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	for (size_t i = 0; rc == 0 && i < a->cfg.zone_id_count; i++) {
		dnsb_http_response resp;
		char *url = NULL, *name;
		if (asprintf(&url, "%s" DNSB_AWS_API "/hostedzone/%s", a->cfg.endpoint, a->cfg.zone_ids[i]) < 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		rc = dnsb_aws_get(a, url, "GetHostedZone", give_up, &resp, err);
		free(url);
		if (rc != 0)
			break;
		name = dnsb_aws_xml_find(resp.body, resp.body_len, "Name");
		dnsb_http_response_clear(&resp);
		a->zones[i].apex = name ? dnsb_aws_name_decode(name) : NULL;
		a->zones[i].id = strdup(a->cfg.zone_ids[i]);
		a->zone_count++;
		free(name);
		if (a->zones[i].apex == NULL || a->zones[i].id == NULL)
			rc = dnsb_error_set(err, DNSB_EPARSE, "GetHostedZone %s: no zone name in the reply", a->cfg.zone_ids[i]);
	}
	return rc;
}

/* ListHostedZones, every page, filtered by --aws-zone-type. */
static int zones_list(dnsb_aws *a, double give_up, dnsb_error *err)
{
	char *marker = NULL;
	int rc = 0;

	for (size_t page = 0; rc == 0 && page < DNSB_AWS_PAGES_MAX; page++) {
		dnsb_http_response resp;
		char *url = NULL, *e = marker ? dnsb_http_escape(marker) : NULL;
		int len = asprintf(&url, "%s" DNSB_AWS_API "/hostedzone?%s%s%smaxitems=100", a->cfg.endpoint,
				   e ? "marker=" : "", e ? e : "", e ? "&" : "");
		free(e);
		free(marker);
		marker = NULL;
		if (len < 0)
			return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
		rc = dnsb_aws_get(a, url, "ListHostedZones", give_up, &resp, err);
		free(url);
		if (rc != 0)
			break;
		rc = dnsb_aws_zones_parse(&a->zones, &a->zone_count, resp.body, resp.body_len, a->cfg.zone_type, &marker,
					  err);
		dnsb_http_response_clear(&resp);
		if (marker == NULL)
			break;
	}
	free(marker);
	return rc;
}

static int open_state(dnsb_aws *a, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_http_options http = DNSB_HTTP_OPTIONS_INIT;
	/* Route53: five requests per second per AWS account (Route 53 quotas, "Number of API requests"); no
	 * burst is documented, so the budget spaces requests evenly and the account's own bucket absorbs jitter. */
	dnsb_budget_options budget = DNSB_BUDGET_OPTIONS_INIT;
	double give_up;
	int rc;

	budget.key = "aws";
	budget.rate = 5;
	budget.burst = 1;
	if ((rc = dnsb_aws_config_parse(&a->cfg, cfg, err)) != 0)
		return rc;
	rc = dnsb_aws_creds_init(&a->creds, &a->cfg, err);
	a->creds_ready = 1;
	if (rc != 0)
		return rc;
	http.timeout = DNSB_AWS_TIMEOUT;
	http.ca_file = a->cfg.ca_file;
	if ((rc = dnsb_http_new(&a->http, &http, err)) != 0 ||
	    (rc = dnsb_budget_from_config(&a->budget, cfg, &budget, err)) != 0)
		return rc;
	dnsb_http_set_budget(a->http, a->budget);
	a->rng = (uint64_t)(dnsb_monotonic() * 1e9) ^ (uint64_t)(uintptr_t)a;
	give_up = dnsb_monotonic() + DNSB_AWS_TIMEOUT;
	rc = a->cfg.zone_id_count ? zones_by_id(a, give_up, err) : zones_list(a, give_up, err);
	if (rc == 0 && a->zone_count == 0)
		rc = dnsb_error_set(err, DNSB_EINVAL, "no hosted zones%s", a->cfg.zone_type ? " of that --aws-zone-type" : "");
	return rc;
}

/* external-dns's aws provider makes a CNAME to an AWS service's name (a load balancer, CloudFront) an alias. */
static int alias_preferred(const char *target)
{
	return dnsb_aws_service_zone(target) != NULL;
}

static int aws_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	dnsb_aws *a = calloc(1, sizeof(*a));
	dnsb_provider_limits limits = { 0 };
	dnsb_provider *p;
	int rc;

	*out = NULL;
	if (a == NULL)
		return dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	dnsb_interval_init(&a->pace, 0, "aws-batch-change-interval");
	if ((rc = open_state(a, cfg, err)) != 0) {
		aws_close(a);
		return rc;
	}
	a->pace.every = a->cfg.interval;
	if ((rc = dnsb_provider_alloc(&p, &aws_ops, a)) != 0)
		return dnsb_error_set(err, rc, "out of memory");
	if (a->budget)
		dnsb_provider_set_budget(p, dnsb_budget_stats_get, a->budget);
	for (size_t i = 0; i < a->zone_count; i++) {
		if ((rc = dnsb_provider_add_zone(p, a->zones[i].apex, err)) != 0) {
			dnsb_provider_free(p);
			return rc;
		}
	}
	/* Route53 counts ResourceRecord elements (1000) and value characters (32,000) per request; an update
	 * sends both its old and its new records. A batch over them answers too_large and is split. */
	limits.max_changes = a->cfg.batch_size;
	limits.max_additions = DNSB_AWS_MAX_RECORDS;
	limits.max_deletions = DNSB_AWS_MAX_RECORDS;
	limits.max_rdata_bytes = DNSB_AWS_MAX_VALUE_CHARS;
	limits.names_culprit = 1;
	limits.aliases = 1;
	limits.alias_preferred = a->cfg.prefer_cname ? NULL : alias_preferred;
	limits.alias_health = !a->cfg.no_health;
	dnsb_provider_set_limits(p, &limits);
	dnsb_log(DNSB_LOG_DEBUG, "aws: %zu hosted zones, credentials: %s", a->zone_count, a->creds.describe);
	*out = p;
	return 0;
}

static const dnsb_provider_flag aws_flags[] = {
	{ "aws-zone-type", 1, "public or private: only hosted zones of that type (default both)" },
	{ "aws-zone-id", 1, "a hosted zone id to manage (repeatable; default: every zone ListHostedZones gives)" },
	{ "aws-batch-change-size", 1, "changes per ChangeResourceRecordSets (default 1000, at most 1000)" },
	{ "aws-batch-change-interval", 1, "seconds between two submissions (default 1)" },
	{ "aws-profile", 1, "profile of the shared credentials file (default $AWS_PROFILE, else default)" },
	{ "aws-wait-insync", 0, "after each accepted batch, poll GetChange until Route53 says INSYNC (within --timeout)" },
	{ "no-aws-evaluate-target-health", 0, "aliases that do not say evaluate no target health (default: they do)" },
	{ "aws-prefer-cname", 0, "serve: keep a CNAME to an AWS load balancer or CloudFront a CNAME (default: an alias)" },
	{ NULL, 0, NULL },
};

const dnsb_backend dnsb_backend_aws = {
	"aws",
	"Amazon Route53 (ChangeResourceRecordSets, ListResourceRecordSets) signed with SigV4; AWS SDK credential chain",
	aws_flags,
	aws_open,
};
