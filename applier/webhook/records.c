/* records.c - GET /records: every zone listed within --apply-timeout, filtered, as Endpoints (applier/plan/endpoint.c). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <microhttpd.h>

#include "dnsbatch/log.h"
#include "dnsbatch/sys/provider.h"
#include "dnsbatch/webhook.h"
#include "applier/core/clock.h"
#include "applier/webhook/internal.h"

/* List zone index zi within `left` seconds and mark what is in scope; its count kept for the thresholds of the POST
 * that follows (listing.c). @return 0, or the provider's error (z is then empty) */
static int list_zone(dnsb_webhook *wh, size_t zi, double left, struct stream_zone *z, dnsb_error *err)
{
	const dnsb_clock *clk = wh->engine.clock ? wh->engine.clock : dnsb_clock_system();
	const char *zone = dnsb_provider_zone(wh->provider, zi);
	unsigned long gen = dnsb_webhook_listing_begin(wh, zi);
	double t0 = dnsb_monotonic(), at = clk->now(clk->payload);
	int rc = dnsb_provider_list_within(wh->provider, zone, left, &z->list, err);

	dnsb_metrics_request(wh->metrics, dnsb_provider_name(wh->provider), "list", dnsb_webhook_class_of(rc),
			     dnsb_monotonic() - t0);
	if (rc == 0)
		dnsb_webhook_listing_note(wh, zi, gen, at, z->list.count);
	if (rc == 0 && ((z->keep = malloc(z->list.count + 1)) == NULL ||
			dnsb_webhook_scope(z->keep, wh->filter, &z->list, wh->txt_wildcard) != 0))
		rc = dnsb_error_set(err, DNSB_ENOMEM, "out of memory");
	if (rc != 0)
		dnsb_webhook_stream_zone_clear(z);
	return rc;
}

/* Seconds left of GET /records' time (apply_timeout from `start`, monotonic), never 0 (no limit); 0 when none is
 * left, with err set. */
static double time_left(const dnsb_webhook *wh, double start, const char *zone, dnsb_error *err)
{
	double left = start + wh->apply_timeout - dnsb_monotonic();

	if (left > 1e-3)
		return left;
	dnsb_error_set(err, DNSB_ETRANSIENT, "not listed within --apply-timeout (%g s); zone %s and those after it "
		       "were not listed", wh->apply_timeout, zone);
	return 0;
}

/*
 * Every zone is listed before the first byte goes out, so that a provider
 * that fails answers 5xx (a soft error to external-dns: it tries again next
 * loop) rather than a body cut short, which external-dns cannot decode and
 * treats as fatal. Then the reply is streamed (stream.c).
 */
enum MHD_Result dnsb_webhook_handle_records_get(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	size_t n = dnsb_provider_zone_count(wh->provider), listed = 0;
	struct stream_zone *zones = calloc(n ? n : 1, sizeof(*zones));
	dnsb_error err = { 0 };
	int rc = zones ? 0 : dnsb_error_set(&err, DNSB_ENOMEM, "out of memory");
	double start = dnsb_monotonic(), left;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *zone = dnsb_provider_zone(wh->provider, i);
		if (!dnsb_domain_filter_may_match_zone(wh->filter, zone))
			continue;
		if ((left = time_left(wh, start, zone, &err)) == 0)
			rc = DNSB_ETRANSIENT;
		else
			rc = list_zone(wh, i, left, &zones[listed], &err);
		if (rc != 0)
			dnsb_log(DNSB_LOG_ERROR, "GET /records: listing %s: %s", zone,
				 err.message[0] ? err.message : dnsb_strerror(rc));
		else
			listed++;
	}
	if (rc != 0) {
		for (size_t i = 0; zones && i < listed; i++)
			dnsb_webhook_stream_zone_clear(&zones[i]);
		free(zones);
		/* Any 5xx is a soft error to external-dns: it tries again next loop. */
		return dnsb_webhook_reply_text(conn, wh, req,
				  rc == DNSB_ETRANSIENT || rc == DNSB_ERATELIMIT ?
				  MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "listing records failed: %s", err.message[0] ? err.message : dnsb_strerror(rc));
	}
	dnsb_webhook_set_ready(wh, "list");
	return dnsb_webhook_reply_records(conn, wh, req, zones, listed);
}
