/*
 * digitalocean.c - the digitalocean provider's glue on the HTTP backend
 * skeleton: the request with the token, open (settings, the pacer, the
 * account's domains), read, close, the methods and the descriptor.
 * Everything of DigitalOcean's own is in the other files of this folder
 * (digitalocean.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/sys/log.h"
#include "providers/digitalocean/digitalocean.h"
#include "applier/net/ratelimit.h"
#include "applier/net/throttle.h"

/*
 * One request with the token; the body, when any, is JSON. The transport's
 * throttle chain holds it first (the shared budget, then the pacer of the
 * ratelimit headers); a wait past give_up sends nothing (DNSB_ERATELIMIT).
 */
int dnsb_do_call(dnsb_hb *b, const char *method, const char *url, const char *body, double give_up,
		 dnsb_http_response *out, dnsb_error *err)
{
	dnsb_do *d = (dnsb_do *)b;
	const char *headers[] = { "Accept: application/json", d->cfg.auth, body ? "Content-Type: application/json" : NULL,
				  NULL };

	return dnsb_hb_send(b, method, url, headers, body, NULL, give_up, out, err);
}

static int do_read(dnsb_hb *b, const dnsb_hb_zone *zone, const dnsb_rrkey *keys, size_t n, double give_up,
		   dnsb_rrset_list *out, dnsb_error *err)
{
	return dnsb_do_read_ids((dnsb_do *)b, zone, keys, n, give_up, out, NULL, err);
}

static int do_open_state(dnsb_hb *b, const dnsb_config *cfg, dnsb_provider_limits *limits, dnsb_error *err)
{
	dnsb_do *d = (dnsb_do *)b;
	dnsb_pacer pacer;
	int rc;

	dnsb_do_pace_init(&d->pace);
	if ((rc = dnsb_do_config_parse(&d->cfg, cfg, err)) != 0 ||
	    (rc = dnsb_hb_client(b, DNSB_DO_TIMEOUT, d->cfg.ca_file, err)) != 0)
		return rc;
	dnsb_do_pacer(&pacer, &d->pace);
	dnsb_http_set_pacer(b->http, &pacer);
	if ((rc = dnsb_do_list_domains(d, err)) != 0)
		return rc;
	limits->names_culprit = 1;
	limits->unconditional = 1;
	limits->properties = dnsb_do_props;
	limits->properties_ctx = d;
	dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %s, %zu domains, %zu records per page", d->cfg.endpoint, b->zone_count,
		 d->cfg.page_size);
	return 0;
}

static void do_close(dnsb_hb *b)
{
	dnsb_do *d = (dnsb_do *)b;

	if (d->skipped)
		dnsb_log(DNSB_LOG_INFO, "digitalocean: %lu records skipped by listings (unreadable: see the warnings)",
			 d->skipped);
	if (d->writes)
		dnsb_log(DNSB_LOG_DEBUG, "digitalocean: %lu writes, %lu undone, %lu lost replies read back; %lu requests "
			 "paced, %lu 429s", d->writes, d->undone, d->settled, d->pace.slowed, d->pace.throttled);
	dnsb_do_config_clear(&d->cfg);
	dnsb_do_pace_clear(&d->pace);
}

static const dnsb_hb_methods do_methods = {
	DNSB_HB_OPS("digitalocean"), "DigitalOcean domain", sizeof(dnsb_do), NULL,
	do_open_state, dnsb_do_call, dnsb_do_reply_error, dnsb_do_submit, do_read, do_close,
	DNSB_DO_BUDGET_RATE, DNSB_DO_BUDGET_BURST, /* 5,000 requests an hour and 250 a minute per token */
};

static int do_open(dnsb_provider **out, const dnsb_config *cfg, dnsb_error *err)
{
	return dnsb_hb_open(out, &do_methods, cfg, err);
}

const dnsb_backend dnsb_backend_digitalocean = DNSB_BACKEND_INIT(
	"digitalocean",
	"DigitalOcean DNS (records one request each, a refused group undone; token from $DO_TOKEN or a file)",
	dnsb_do_flags, dnsb_budget_flags, do_open, &do_methods.ops);
