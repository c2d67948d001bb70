/* apply.c - POST /records: parse the plan, take the zones' locks within the deadline, run the engine, answer. */
#include <errno.h>
#include <float.h>
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

static const char *change_owner(const dnsb_change *c)
{
	return c->new_set.owner ? c->new_set.owner : c->old.owner;
}

/* Take the locks of every zone the plan touches, in zone order so that two
 * plans can never wait for each other. @return 0 or ETIMEDOUT (none held) */
static int lock_zones(dnsb_webhook *wh, const unsigned char *touched, double deadline_unix)
{
	struct timespec ts;
	ts.tv_sec = (time_t)deadline_unix;
	ts.tv_nsec = (long)((deadline_unix - (double)ts.tv_sec) * 1e9);

	for (size_t z = 0; z < wh->zone_count; z++) {
		if (!touched[z])
			continue;
		if (pthread_mutex_timedlock(&wh->zone_locks[z], &ts) != 0) {
			while (z-- > 0)
				if (touched[z])
					pthread_mutex_unlock(&wh->zone_locks[z]);
			return ETIMEDOUT;
		}
	}
	return 0;
}

static void unlock_zones(dnsb_webhook *wh, const unsigned char *touched)
{
	for (size_t z = wh->zone_count; z-- > 0;)
		if (touched[z])
			pthread_mutex_unlock(&wh->zone_locks[z]);
}

static void flush_droplog(dnsb_webhook *wh)
{
	if (wh->droplog == NULL)
		return;
	pthread_mutex_lock(&wh->droplog_lock);
	if (dnsb_droplog_flush(wh->droplog) != 0)
		dnsb_log(DNSB_LOG_ERROR, "drop log: flush failed");
	pthread_mutex_unlock(&wh->droplog_lock);
}

void dnsb_webhook_update_quarantine_gauge(dnsb_webhook *wh)
{
	const dnsb_clock *clk = wh->engine.clock ? wh->engine.clock : dnsb_clock_system();
	dnsb_metrics_set_quarantined(wh->metrics, dnsb_quarantine_count(wh->quarantine, clk->now(clk->payload)));
}

enum MHD_Result dnsb_webhook_handle_records_post(struct MHD_Connection *conn, dnsb_webhook *wh, struct request *req)
{
	dnsb_plan *plan = NULL;
	dnsb_report report = { 0 };
	dnsb_error err = { 0 };
	dnsb_engine_options opts = wh->engine;
	const dnsb_clock *clk = opts.clock ? opts.clock : dnsb_clock_system();
	unsigned char *touched;
	double start_unix = dnsb_wall_clock(), waited;
	unsigned status;
	int rc, busy;

	rc = dnsb_plan_parse(&plan, req->body ? req->body : "", req->len, "POST /records", &err);
	if (rc == DNSB_EPARSE) {
		dnsb_log(DNSB_LOG_WARN, "%s", err.message);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_BAD_REQUEST, "%s", err.message);
	}
	if (rc != 0)
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
				  err.message[0] ? err.message : dnsb_strerror(rc));

	touched = calloc(wh->zone_count ? wh->zone_count : 1, 1);
	if (touched == NULL) {
		dnsb_plan_free(plan);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	for (size_t i = 0; i < dnsb_plan_count(plan); i++) {
		const char *owner = change_owner(dnsb_plan_change(plan, i));
		long z = owner ? dnsb_provider_zone_for(wh->provider, owner) : -1;
		if (z >= 0 && (size_t)z < wh->zone_count)
			touched[z] = 1;
	}

	busy = lock_zones(wh, touched, start_unix + wh->apply_timeout) != 0;
	/* The deadline bounds the whole request, the wait for the zones included. When the
	 * zones stayed busy it has passed: the engine settles and counts every change itself
	 * (pending ones failed/deadline, without a request; invalid and no_zone as such). */
	waited = dnsb_wall_clock() - start_unix;
	opts.timeout = 0;
	opts.deadline = clk->now(clk->payload) + (busy ? 0.0 : wh->apply_timeout - waited);
	if (!(opts.deadline > 0))
		opts.deadline = DBL_MIN;
	rc = dnsb_engine_apply(&report, wh->provider, plan, &opts, &err);
	if (busy) {
		dnsb_log(DNSB_LOG_WARN, "POST /records: zones still busy after %.1f s: %zu changes failed (deadline)",
			 wh->apply_timeout, report.failed);
		flush_droplog(wh);
		free(touched);
		dnsb_plan_free(plan);
		dnsb_report_clear(&report);
		return dnsb_webhook_reply_text(conn, wh, req, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "zones busy past the apply timeout; retry next interval");
	}
	unlock_zones(wh, touched);
	free(touched);

	if (report.dropped + report.failed > 0)
		flush_droplog(wh);
	dnsb_metrics_set_last_apply(wh->metrics, dnsb_wall_clock());
	dnsb_webhook_update_quarantine_gauge(wh);
	if (report.applied + report.already_applied > 0 || (report.submissions > 0 && report.failed == 0))
		dnsb_webhook_set_ready(wh, "apply");

	if (rc != 0)
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	else if (report.failed > 0)
		status = MHD_HTTP_SERVICE_UNAVAILABLE;
	else
		status = MHD_HTTP_NO_CONTENT;
	dnsb_log(rc != 0 ? DNSB_LOG_ERROR : report.failed ? DNSB_LOG_WARN : DNSB_LOG_INFO,
		 "POST /records: %zu changes: %zu applied, %zu already applied, %zu dropped, %zu failed; "
		 "%lu batches, %lu submissions, %lu bisections, %.3f s -> %u%s%s",
		 report.changes, report.applied, report.already_applied, report.dropped, report.failed,
		 report.batches, report.submissions, report.bisections, dnsb_wall_clock() - start_unix, status,
		 rc != 0 ? ": " : "", rc != 0 ? (err.message[0] ? err.message : dnsb_strerror(rc)) : "");
	dnsb_report_clear(&report);
	dnsb_plan_free(plan);
	if (status == MHD_HTTP_NO_CONTENT)
		return dnsb_webhook_reply(conn, wh, req, status, NULL, NULL, 0);
	return dnsb_webhook_reply_text(conn, wh, req, status, "%s", status == MHD_HTTP_SERVICE_UNAVAILABLE ?
			  "some changes failed and will be retried next interval" : "internal error");
}
